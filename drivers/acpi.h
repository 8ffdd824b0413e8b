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
 *   acpi_enable()              switch the chipset to ACPI mode (SCI_EN) if
 *                              the firmware left it in legacy mode; true if
 *                              SCI_EN is set
 *   acpi_parse_madt(t, info)   CPUs, I/O APICs, ISA overrides, LAPIC NMIs
 *   acpi_parse_hpet(t, &phys)  where the HPET registers are
 *   acpi_parse_fadt(t, info)   SCI, PM timer port, legacy-device flags
 *   acpi_number_cpus(info, boot_apic)  number the CPUs a parsed MADT lists
 *                              into the CPU masks (drivers/acpi_cpus.c)
 * The three parsers take a table from acpi_get_table() (NULL is allowed and
 * gives -ENOENT, so a missing table needs no separate check), trust nothing
 * in it beyond its checked length, allocate nothing and only read it; they
 * report what is wrong with pr_err/pr_warn and never WARN.
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
bool acpi_enable(void);
/* Scan AML for the \_S5 package; 0 and the two sleep types, or -ENOENT.
 * Exposed for tests. */
int acpi_parse_s5(const u8 *aml, size_t len, u8 *slp_typa, u8 *slp_typb);

/* MADT (ACPI 6.5, 5.2.12): the interrupt controllers. */
#define ACPI_MAX_CPUS	    256
#define ACPI_MAX_IOAPICS    8
#define ACPI_MAX_OVERRIDES  16
#define ACPI_MAX_LAPIC_NMIS 8

/* Every field says what the firmware said; only the CPU's ids are ids. */
struct acpi_madt_cpu {
	u32 apic_id;	     /* local APIC id (x2APIC id for type 9) */
	u32 acpi_uid;	     /* ACPI processor UID, matched by NMI entries */
	bool enabled;	     /* usable now */
	bool online_capable; /* not enabled, but can be brought up later */
	bool x2apic;	     /* from a type 9 (x2APIC) entry */
};

struct acpi_madt_ioapic {
	u32 id;
	u64 phys;     /* register window */
	u32 gsi_base; /* first GSI its inputs serve */
};

struct acpi_madt_override {
	u8 bus; /* 0: ISA (the only bus ACPI defines) */
	u8 source_irq;
	u32 gsi;
	u16 flags; /* MPS INTI flags: polarity bits 0-1, trigger bits 2-3 */
};

struct acpi_madt_lapic_nmi {
	u32 acpi_uid; /* 0xFFFFFFFF = all processors (a type 4 entry's
		       * 8-bit 0xFF is widened to it, so one test serves) */
	u16 flags;    /* MPS INTI flags, as in the overrides */
	u8 lint;      /* LINT0 or LINT1 */
};

#define ACPI_MADT_NMI_ALL_CPUS 0xFFFFFFFFu

struct acpi_madt_info {
	u64 lapic_phys;	  /* from the header, or the 64-bit override (type 5) */
	bool pcat_compat; /* flags bit 0: dual 8259s present (must be masked) */
	struct acpi_madt_cpu cpus[ACPI_MAX_CPUS];
	unsigned int nr_cpus;
	struct acpi_madt_ioapic ioapics[ACPI_MAX_IOAPICS];
	unsigned int nr_ioapics;
	struct acpi_madt_override overrides[ACPI_MAX_OVERRIDES];
	unsigned int nr_overrides;
	struct acpi_madt_lapic_nmi nmis[ACPI_MAX_LAPIC_NMIS];
	unsigned int nr_nmis;
	/* Problems found (and skipped): each malformed or unstorable entry,
	 * each duplicated APIC id once however many copies there are, and
	 * running out of CPU slots once however many entries did not fit. */
	unsigned int nr_problems;
};

/*
 * Parse a MADT (already checksum-validated) into *info, in table order.
 * Never trusts the table: an entry with length < 2 or running past the
 * table end stops the walk (reported; the entries before it are kept); an
 * entry too short for its type is reported and skipped, one longer than
 * its type needs is fine (later revisions append fields); a processor
 * entry (type 0 local APIC, type 9 x2APIC) whose APIC id was already seen
 * is reported once and ignored, the first entry winning; a processor
 * neither enabled nor online-capable is not a CPU at all (ACPI says the OS
 * must ignore it); processor entries past ACPI_MAX_CPUS are reported and
 * ignored. Type 0 entries with APIC id 0xFF and type 9 entries with
 * 0xFFFFFFFF are placeholders and are ignored silently. Unknown entry
 * types are skipped silently (ACPI adds types; reserved ones are for OEMs).
 *
 * Online capable is a MADT revision 5 (ACPI 6.3) flag. In older tables
 * every disabled processor is taken as online-capable, as Linux does: that
 * is how firmware listed hot-pluggable CPUs before the flag existed (QEMU
 * 7.2, for one, writes a revision 1 MADT in which -smp 2,maxcpus=8 gives
 * six processors with flags 0).
 *
 * Returns 0; -ENOENT if madt is NULL; -EINVAL (reported, *info untouched)
 * if the table is not a MADT or too short for its header.
 */
int acpi_parse_madt(const struct acpi_sdt_header *madt, struct acpi_madt_info *info);

/*
 * The boot's CPU numbering, from the parsed MADT: CPU 0 is the boot CPU
 * (local APIC id boot_apic), the others follow in table order; each is
 * possible, present if enabled, and its APIC id is kept in cpu_apic_ids
 * (kernel/cpu_masks.h). CPUs past NR_CPUS are reported and ignored. Once,
 * on the boot CPU, before any other runs.
 */
void acpi_number_cpus(const struct acpi_madt_info *madt, u32 boot_apic);

/*
 * HPET description table (IA-PC HPET specification 1.0a, 3.2.4): the
 * physical base of the HPET's registers. 0; -ENOENT if hpet is NULL;
 * -EINVAL (reported) if it is not an HPET table, is too short, or the
 * registers are not in memory space or at address 0.
 */
int acpi_parse_hpet(const struct acpi_sdt_header *hpet, u64 *phys);

/* FADT details later code needs (ACPI 6.5, 5.2.9). */
struct acpi_fadt_info {
	u16 sci_irq;	    /* the SCI, as an ISA IRQ (a GSI on APIC systems) */
	u32 pm_timer_port;  /* I/O port of the ACPI PM timer; 0 if none */
	u16 iapc_boot_arch; /* IA-PC boot architecture flags; 0 before rev 2 */
	bool has_8042;	    /* a PS/2 controller; assumed before FADT rev 2 */
	u16 gpe0_port;	    /* I/O port of the GPE0 block (status, then enable); 0 if none */
	u8 gpe0_len;	    /* its length in bytes: half status, half enable */
	u16 pm1a_evt_port;  /* I/O port of the PM1a event block (status, then enable); 0 if none */
	u8 pm1_evt_len;	    /* its length in bytes: half status, half enable (4 on QEMU) */
};

/* 0; -ENOENT if fadt is NULL; -EINVAL (reported, *info untouched) if it is
 * not a FADT or is shorter than the ACPI 1.0 FADT (116 bytes). */
int acpi_parse_fadt(const struct acpi_sdt_header *fadt, struct acpi_fadt_info *info);

#endif
