/* drivers/acpi.h - ACPI firmware tables.
 *
 * acpi_init() finds the RSDP (the copy the Multiboot2 loader passed, else
 * the BIOS areas: the first KiB of the EBDA and 0xE0000-0xFFFFF), walks the
 * XSDT (or the RSDT before ACPI 2.0) and keeps every table whose checksum
 * holds. A table with a bad checksum or an impossible length is reported
 * by name and address and skipped: it is never trusted, never a crash.
 *
 * Interface:
 *   acpi_get_table("APIC", 0)  the first valid MADT, or NULL
 *   acpi_checksum_ok(p, len)   the bytes sum to 0 (mod 256)
 *   acpi_poweroff()            enter S5 using the FADT and the DSDT's \_S5;
 *                              returns only if that is impossible
 *   acpi_reset()               the FADT reset register; returns on failure
 */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H

#include "lib/compiler.h"
#include "lib/types.h"

struct acpi_sdt_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

void acpi_init(void);
const struct acpi_sdt_header *acpi_get_table(const char sig[4], unsigned int instance);
bool acpi_checksum_ok(const void *p, size_t len);
/* 0 if the avail bytes at h hold a whole table with a good checksum; else
 * -EINVAL and *why says what is wrong. */
int acpi_table_check(const struct acpi_sdt_header *h, size_t avail, const char **why);
void acpi_poweroff(void);
void acpi_reset(void);
/* Scan AML for the \_S5 package; 0 and the two sleep types, or -ENOENT.
 * Exposed for tests. */
int acpi_parse_s5(const u8 *aml, size_t len, u8 *slp_typa, u8 *slp_typb);

#endif
