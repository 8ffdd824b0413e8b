/* kernel/ksyms.c - symbol lookup; see ksyms.h. The table layout is written
 * by scripts/mksyms.py: keep both in step. */
#include "kernel/ksyms.h"
#include "lib/string.h"

extern const u64 ksym_count;
extern const u64 ksym_addr[]; /* sorted ascending */
extern const u32 ksym_size[];
extern const u32 ksym_name[]; /* offsets into ksym_strtab */
extern const char ksym_strtab[];

const char *ksym_lookup(u64 addr, u64 *offset, u64 *size)
{
	u64 lo = 0, hi = ksym_count;

	/* Find the last symbol at or below addr. */
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (ksym_addr[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	u64 i = lo - 1;
	u64 len = ksym_size[i];

	/* Past the end of a sized symbol: not inside any function we know. */
	if (len && addr - ksym_addr[i] >= len)
		return NULL;
	if (offset)
		*offset = addr - ksym_addr[i];
	if (size)
		*size = len;
	return ksym_strtab + ksym_name[i];
}

u64 ksym_address(const char *name)
{
	for (u64 i = 0; i < ksym_count; i++)
		if (strcmp(ksym_strtab + ksym_name[i], name) == 0)
			return ksym_addr[i];
	return 0;
}
