/* lib/bitmap.c - whole-bitmap operations, bit searches and list syntax.
 *
 * See bitmap.h for the interface. Operations walk whole words and mask the
 * last one, so garbage past nbits never leaks into a result.
 */
#include "bitmap.h"

/* A source word, read once and whole (bitmap.h: the run-time CPU masks
 * change under their readers). A relaxed atomic load, not READ_ONCE: the
 * same marked access, and the compiler still folds it into its addressing
 * (a volatile load cost the wake-up path 11 instructions). */
static inline unsigned long word_once(const unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}
#include "cpumask.h"
#include "errno.h"
#include "printf.h"

/* Mask of the bits at and above start within start's word. */
#define BITMAP_FIRST_WORD_MASK(start) (~0UL << ((start) % BITS_PER_LONG))

/* Number of whole words, and whether a partial word follows. */
#define FULL_WORDS(nbits)	((nbits) / BITS_PER_LONG)
#define HAS_PARTIAL_WORD(nbits) ((nbits) % BITS_PER_LONG != 0)

/*
 * Population count without __builtin_popcountl: with -mgeneral-regs-only
 * and no -mpopcnt gcc turns that into a libgcc call the kernel lacks.
 */
static unsigned int hweight_long(unsigned long w)
{
	w = w - ((w >> 1) & 0x5555555555555555UL);
	w = (w & 0x3333333333333333UL) + ((w >> 2) & 0x3333333333333333UL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fUL;
	return (unsigned int)((w * 0x0101010101010101UL) >> 56);
}

void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < BITS_TO_LONGS(nbits); k++)
		dst[k] = 0;
}

void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < FULL_WORDS(nbits); k++)
		dst[k] = ~0UL;
	if (HAS_PARTIAL_WORD(nbits))
		dst[k] = BITMAP_LAST_WORD_MASK(nbits);
}

void bitmap_copy(unsigned long *dst, const unsigned long *src, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < BITS_TO_LONGS(nbits); k++)
		dst[k] = word_once(&src[k]);
}

void bitmap_set(unsigned long *map, unsigned int start, unsigned int len)
{
	unsigned long *p = map + BIT_WORD(start);
	unsigned int end = start + len;
	unsigned int bits_in_word = BITS_PER_LONG - start % BITS_PER_LONG;
	unsigned long mask = BITMAP_FIRST_WORD_MASK(start);

	while (len >= bits_in_word) {
		*p++ |= mask;
		len -= bits_in_word;
		bits_in_word = BITS_PER_LONG;
		mask = ~0UL;
	}
	if (len)
		*p |= mask & BITMAP_LAST_WORD_MASK(end);
}

void bitmap_clear(unsigned long *map, unsigned int start, unsigned int len)
{
	unsigned long *p = map + BIT_WORD(start);
	unsigned int end = start + len;
	unsigned int bits_in_word = BITS_PER_LONG - start % BITS_PER_LONG;
	unsigned long mask = BITMAP_FIRST_WORD_MASK(start);

	while (len >= bits_in_word) {
		*p++ &= ~mask;
		len -= bits_in_word;
		bits_in_word = BITS_PER_LONG;
		mask = ~0UL;
	}
	if (len)
		*p &= ~(mask & BITMAP_LAST_WORD_MASK(end));
}

bool bitmap_and(unsigned long *dst, const unsigned long *src1, const unsigned long *src2,
		unsigned int nbits)
{
	unsigned long any = 0;
	unsigned int k;

	for (k = 0; k < FULL_WORDS(nbits); k++)
		any |= dst[k] = word_once(&src1[k]) & word_once(&src2[k]);
	if (HAS_PARTIAL_WORD(nbits))
		any |= (dst[k] = word_once(&src1[k]) & word_once(&src2[k])) &
		       BITMAP_LAST_WORD_MASK(nbits);
	return any != 0;
}

void bitmap_or(unsigned long *dst, const unsigned long *src1, const unsigned long *src2,
	       unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < BITS_TO_LONGS(nbits); k++)
		dst[k] = word_once(&src1[k]) | word_once(&src2[k]);
}

bool bitmap_andnot(unsigned long *dst, const unsigned long *src1, const unsigned long *src2,
		   unsigned int nbits)
{
	unsigned long any = 0;
	unsigned int k;

	for (k = 0; k < FULL_WORDS(nbits); k++)
		any |= dst[k] = word_once(&src1[k]) & ~word_once(&src2[k]);
	if (HAS_PARTIAL_WORD(nbits))
		any |= (dst[k] = word_once(&src1[k]) & ~word_once(&src2[k])) &
		       BITMAP_LAST_WORD_MASK(nbits);
	return any != 0;
}

bool bitmap_equal(const unsigned long *src1, const unsigned long *src2, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < FULL_WORDS(nbits); k++) {
		if (word_once(&src1[k]) != word_once(&src2[k]))
			return false;
	}
	if (HAS_PARTIAL_WORD(nbits))
		return !((word_once(&src1[k]) ^ word_once(&src2[k])) &
			 BITMAP_LAST_WORD_MASK(nbits));
	return true;
}

bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return find_first_bit(src, nbits) >= nbits;
}

bool bitmap_full(const unsigned long *src, unsigned int nbits)
{
	return find_first_zero_bit(src, nbits) >= nbits;
}

unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int k, weight = 0;

	for (k = 0; k < FULL_WORDS(nbits); k++)
		weight += hweight_long(word_once(&src[k]));
	if (HAS_PARTIAL_WORD(nbits))
		weight += hweight_long(word_once(&src[k]) & BITMAP_LAST_WORD_MASK(nbits));
	return weight;
}

bool bitmap_intersects(const unsigned long *src1, const unsigned long *src2, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < FULL_WORDS(nbits); k++) {
		if (word_once(&src1[k]) & word_once(&src2[k]))
			return true;
	}
	if (HAS_PARTIAL_WORD(nbits))
		return (word_once(&src1[k]) & word_once(&src2[k]) & BITMAP_LAST_WORD_MASK(nbits)) !=
		       0;
	return false;
}

bool bitmap_subset(const unsigned long *src1, const unsigned long *src2, unsigned int nbits)
{
	unsigned int k;

	for (k = 0; k < FULL_WORDS(nbits); k++) {
		if (word_once(&src1[k]) & ~word_once(&src2[k]))
			return false;
	}
	if (HAS_PARTIAL_WORD(nbits))
		return (word_once(&src1[k]) & ~word_once(&src2[k]) &
			BITMAP_LAST_WORD_MASK(nbits)) == 0;
	return true;
}

/*
 * Shared search loop: invert is 0 to look for set bits, ~0UL to look for
 * clear ones (each word is XORed with it before testing).
 */
static unsigned long find_next(const unsigned long *addr, unsigned long size, unsigned long offset,
			       unsigned long invert)
{
	unsigned long idx, word, found;

	if (offset >= size)
		return size;
	idx = BIT_WORD(offset);
	word = (word_once(&addr[idx]) ^ invert) & BITMAP_FIRST_WORD_MASK(offset);
	while (!word) {
		idx++;
		if (idx * BITS_PER_LONG >= size)
			return size;
		word = word_once(&addr[idx]) ^ invert;
	}
	found = idx * BITS_PER_LONG + (unsigned long)__builtin_ctzl(word);
	return found < size ? found : size;
}

unsigned long find_next_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	return find_next(addr, size, offset, 0);
}

unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
				 unsigned long offset)
{
	return find_next(addr, size, offset, ~0UL);
}

unsigned long find_next_bit_wrap(const unsigned long *addr, unsigned long size,
				 unsigned long offset)
{
	unsigned long bit;

	if (offset > size)
		offset = size;
	bit = find_next_bit(addr, size, offset);
	if (bit < size || offset == 0)
		return bit;
	bit = find_next_bit(addr, offset, 0);
	return bit < offset ? bit : size;
}

/*
 * Decimal bit number at *s. Returns -EINVAL if there is no digit; values
 * too large for unsigned int come back as UINT32_MAX, which is always out of
 * range for the caller.
 */
static int parse_bit_number(const char **s, unsigned int *out)
{
	const char *p = *s;
	u64 val = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (val <= UINT32_MAX)
			val = val * 10 + (unsigned int)(*p - '0');
	}
	*s = p;
	*out = val > UINT32_MAX ? UINT32_MAX : (unsigned int)val;
	return 0;
}

/*
 * Walk a list like "0-3,5,7-8". With dst == NULL it only validates, so
 * bitmap_parselist() can leave dst alone when the input is bad. A syntax
 * error anywhere is reported as -EINVAL even if an earlier bit was out of
 * range (-ERANGE).
 */
static int parse_list(const char *s, unsigned long *dst, unsigned int nbits)
{
	int range_err = 0;

	if (*s == '\0' || (s[0] == '\n' && s[1] == '\0'))
		return 0;

	for (;;) {
		unsigned int first, last;

		if (parse_bit_number(&s, &first))
			return -EINVAL;
		last = first;
		if (*s == '-') {
			s++;
			if (parse_bit_number(&s, &last))
				return -EINVAL;
			if (last < first)
				return -EINVAL;
		}
		if (*s != ',' && *s != '\0' && !(s[0] == '\n' && s[1] == '\0'))
			return -EINVAL;
		if (last >= nbits)
			range_err = -ERANGE;
		else if (dst)
			bitmap_set(dst, first, last - first + 1);
		if (*s != ',')
			return range_err;
		s++;
	}
}

int bitmap_parselist(const char *s, unsigned long *dst, unsigned int nbits)
{
	int err;

	err = parse_list(s, NULL, nbits);
	if (err)
		return err;
	bitmap_zero(dst, nbits);
	return parse_list(s, dst, nbits);
}

int bitmap_print_list(char *buf, size_t size, const unsigned long *src, unsigned int nbits)
{
	unsigned long first, end;
	const char *sep = "";
	size_t len = 0;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	for (first = find_first_bit(src, nbits); first < nbits;
	     first = find_next_bit(src, nbits, end)) {
		end = find_next_zero_bit(src, nbits, first + 1);
		if (end - first > 1)
			len += (size_t)scnprintf(buf + len, size - len, "%s%lu-%lu", sep, first,
						 end - 1);
		else
			len += (size_t)scnprintf(buf + len, size - len, "%s%lu", sep, first);
		sep = ",";
	}
	return (int)len;
}

/*
 * cpumask_of(cpu): a table of NR_CPUS masks, mask n holding bit n alone,
 * built at compile time so that it is read-only and needs no init call.
 */
#define ONE_CPU(n)	[n] = { .bits = { [(n) / BITS_PER_LONG] = 1UL << ((n) % BITS_PER_LONG) } }
#define FOUR_CPUS(n)	ONE_CPU(n), ONE_CPU(n + 1), ONE_CPU(n + 2), ONE_CPU(n + 3)
#define SIXTEEN_CPUS(n) FOUR_CPUS(n), FOUR_CPUS(n + 4), FOUR_CPUS(n + 8), FOUR_CPUS(n + 12)
#define SIXTY_FOUR_CPUS(n)                                                                         \
	SIXTEEN_CPUS(n), SIXTEEN_CPUS(n + 16), SIXTEEN_CPUS(n + 32), SIXTEEN_CPUS(n + 48)

_Static_assert(NR_CPUS == 256, "cpu_single_masks lists 256 masks");
const struct cpumask cpu_single_masks[NR_CPUS] = {
	SIXTY_FOUR_CPUS(0),
	SIXTY_FOUR_CPUS(64),
	SIXTY_FOUR_CPUS(128),
	SIXTY_FOUR_CPUS(192),
};
