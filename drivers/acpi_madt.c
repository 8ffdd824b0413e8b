/* drivers/acpi_madt.c - parse the MADT (ACPI 6.5, 5.2.12) into plain data.
 *
 * acpi_parse_madt() (interface and rules in drivers/acpi.h) walks the
 * variable-length entries after the MADT's fixed fields and fills a
 * caller-provided struct acpi_madt_info: processors (type 0 local APIC,
 * type 9 x2APIC), I/O APICs (1), interrupt source overrides (2), local
 * APIC NMIs (4, 0xA) and the 64-bit local APIC address (5).
 *
 * The table comes from firmware and is treated as hostile input: every
 * read is bounded by the table's length and by the entry's own length
 * (both checked first), entries are read through packed structs (they sit
 * at any alignment), and nothing is allocated or written outside *info.
 * Each problem is reported with the entry's type, offset and what is
 * wrong; at most MADT_MAX_REPORTS are printed per table, so a table of
 * garbage cannot flood the console, but all are counted.
 */
#define pr_fmt(fmt) "ACPI: " fmt
#include "drivers/acpi.h"
#include "kernel/printk.h"
#include "lib/bitmap.h"
#include "lib/errno.h"
#include "lib/string.h"

#define MADT_MAX_REPORTS 16

#define MADT_FLAG_PCAT_COMPAT	(1u << 0)
#define MADT_CPU_ENABLED	(1u << 0)
#define MADT_CPU_ONLINE_CAPABLE (1u << 1)
/* The MADT revision that defined the online capable flag (ACPI 6.3). */
#define MADT_REV_ONLINE_CAPABLE 5

enum madt_type {
	MADT_LAPIC = 0,
	MADT_IOAPIC = 1,
	MADT_OVERRIDE = 2,
	MADT_LAPIC_NMI = 4,
	MADT_LAPIC_ADDR = 5,
	MADT_X2APIC = 9,
	MADT_X2APIC_NMI = 0xA,
};

struct madt_header {
	struct acpi_sdt_header sdt;
	u32 lapic_addr;
	u32 flags;
} __packed;

struct madt_entry {
	u8 type;
	u8 length;
} __packed;

struct madt_lapic { /* type 0 */
	struct madt_entry e;
	u8 acpi_uid;
	u8 apic_id;
	u32 flags;
} __packed;

struct madt_ioapic { /* type 1 */
	struct madt_entry e;
	u8 id;
	u8 reserved;
	u32 addr;
	u32 gsi_base;
} __packed;

struct madt_override { /* type 2 */
	struct madt_entry e;
	u8 bus;
	u8 source_irq;
	u32 gsi;
	u16 flags;
} __packed;

struct madt_lapic_nmi { /* type 4 */
	struct madt_entry e;
	u8 acpi_uid;
	u16 flags;
	u8 lint;
} __packed;

struct madt_lapic_addr { /* type 5 */
	struct madt_entry e;
	u16 reserved;
	u64 addr;
} __packed;

struct madt_x2apic { /* type 9 */
	struct madt_entry e;
	u16 reserved;
	u32 x2apic_id;
	u32 flags;
	u32 acpi_uid;
} __packed;

struct madt_x2apic_nmi { /* type 0xA */
	struct madt_entry e;
	u16 flags;
	u32 acpi_uid;
	u8 lint;
	u8 reserved[3];
} __packed;

/* Walk state; the problem and overflow bookkeeping lives here, not in
 * *info, so the public structure holds only what the firmware said. */
struct madt_walk {
	struct acpi_madt_info *info;
	u8 revision;
	unsigned int reports;	   /* problems printed so far */
	unsigned int cpus_dropped; /* usable CPUs past ACPI_MAX_CPUS */
	u32 first_dropped_off;
	DECLARE_BITMAP(dup_reported, ACPI_MAX_CPUS); /* by cpus[] slot */
};

static const char *madt_type_name(u8 type)
{
	switch (type) {
	case MADT_LAPIC:
		return "local APIC";
	case MADT_IOAPIC:
		return "I/O APIC";
	case MADT_OVERRIDE:
		return "interrupt source override";
	case MADT_LAPIC_NMI:
		return "local APIC NMI";
	case MADT_LAPIC_ADDR:
		return "local APIC address override";
	case MADT_X2APIC:
		return "x2APIC";
	case MADT_X2APIC_NMI:
		return "x2APIC NMI";
	default:
		return "unknown";
	}
}

/* The minimum length of each entry type we read; 0 for types we skip. */
static u8 madt_min_length(u8 type)
{
	switch (type) {
	case MADT_LAPIC:
		return sizeof(struct madt_lapic);
	case MADT_IOAPIC:
		return sizeof(struct madt_ioapic);
	case MADT_OVERRIDE:
		return sizeof(struct madt_override);
	case MADT_LAPIC_NMI:
		return sizeof(struct madt_lapic_nmi);
	case MADT_LAPIC_ADDR:
		return sizeof(struct madt_lapic_addr);
	case MADT_X2APIC:
		return sizeof(struct madt_x2apic);
	case MADT_X2APIC_NMI:
		return sizeof(struct madt_x2apic_nmi);
	default:
		return 0;
	}
}

/* Count a problem; print it unless this table has already printed its
 * share (the line after the last one says so). */
static bool madt_problem(struct madt_walk *w)
{
	w->info->nr_problems++;
	w->reports++;
	if (w->reports == MADT_MAX_REPORTS + 1)
		pr_err("MADT: more problems; not reporting them\n");
	return w->reports <= MADT_MAX_REPORTS;
}

static void madt_add_cpu(struct madt_walk *w, const struct madt_entry *e, u32 off, u32 apic_id,
			 u32 acpi_uid, u32 flags)
{
	struct acpi_madt_info *info = w->info;
	bool enabled = flags & MADT_CPU_ENABLED;
	bool online_capable;

	/* Before revision 5 bit 1 was reserved, and a disabled processor
	 * was how firmware (QEMU's included) listed a hot-pluggable one. */
	if (enabled)
		online_capable = false; /* bit 1 is reserved then */
	else if (w->revision >= MADT_REV_ONLINE_CAPABLE)
		online_capable = flags & MADT_CPU_ONLINE_CAPABLE;
	else
		online_capable = true;
	if (!enabled && !online_capable)
		return; /* unusable: ACPI says to ignore the entry */

	for (unsigned int i = 0; i < info->nr_cpus; i++) {
		if (info->cpus[i].apic_id != apic_id)
			continue;
		if (!__test_and_set_bit(i, w->dup_reported) && madt_problem(w))
			pr_warn("MADT: %s entry at offset %u repeats APIC id %u (first listed as "
				"ACPI UID %u); later copies ignored\n",
				madt_type_name(e->type), off, apic_id, info->cpus[i].acpi_uid);
		return;
	}
	if (info->nr_cpus == ACPI_MAX_CPUS) {
		if (w->cpus_dropped++ == 0)
			w->first_dropped_off = off;
		return;
	}
	info->cpus[info->nr_cpus++] = (struct acpi_madt_cpu){
		.apic_id = apic_id,
		.acpi_uid = acpi_uid,
		.enabled = enabled,
		.online_capable = online_capable,
		.x2apic = e->type == MADT_X2APIC,
	};
}

static void madt_add_nmi(struct madt_walk *w, const struct madt_entry *e, u32 off, u32 acpi_uid,
			 u16 flags, u8 lint)
{
	struct acpi_madt_info *info = w->info;

	if (lint > 1) {
		if (madt_problem(w))
			pr_err("MADT: %s entry at offset %u names LINT%u (only LINT0 and LINT1 "
			       "exist); skipped\n",
			       madt_type_name(e->type), off, lint);
		return;
	}
	if (info->nr_nmis == ACPI_MAX_LAPIC_NMIS) {
		if (madt_problem(w))
			pr_err("MADT: %s entry at offset %u: more than %u NMI entries; skipped\n",
			       madt_type_name(e->type), off, ACPI_MAX_LAPIC_NMIS);
		return;
	}
	info->nmis[info->nr_nmis++] = (struct acpi_madt_lapic_nmi){
		.acpi_uid = acpi_uid,
		.flags = flags,
		.lint = lint,
	};
}

static void madt_entry(struct madt_walk *w, const struct madt_entry *e, u32 off)
{
	struct acpi_madt_info *info = w->info;
	u8 need = madt_min_length(e->type);

	if (e->length < need) {
		if (madt_problem(w))
			pr_err("MADT: %s entry (type %u) at offset %u is %u bytes, needs %u; "
			       "skipped\n",
			       madt_type_name(e->type), e->type, off, e->length, need);
		return;
	}

	switch (e->type) {
	case MADT_LAPIC: {
		const struct madt_lapic *p = (const void *)e;

		if (p->apic_id != 0xFF) /* 0xFF: a placeholder, not a CPU */
			madt_add_cpu(w, e, off, p->apic_id, p->acpi_uid, p->flags);
		break;
	}
	case MADT_X2APIC: {
		const struct madt_x2apic *p = (const void *)e;

		if (p->x2apic_id != 0xFFFFFFFF) /* broadcast: not a CPU */
			madt_add_cpu(w, e, off, p->x2apic_id, p->acpi_uid, p->flags);
		break;
	}
	case MADT_IOAPIC: {
		const struct madt_ioapic *p = (const void *)e;

		if (info->nr_ioapics == ACPI_MAX_IOAPICS) {
			if (madt_problem(w))
				pr_err("MADT: I/O APIC entry at offset %u: more than %u I/O APICs; "
				       "skipped\n",
				       off, ACPI_MAX_IOAPICS);
			break;
		}
		info->ioapics[info->nr_ioapics++] = (struct acpi_madt_ioapic){
			.id = p->id,
			.phys = p->addr,
			.gsi_base = p->gsi_base,
		};
		break;
	}
	case MADT_OVERRIDE: {
		const struct madt_override *p = (const void *)e;

		if (info->nr_overrides == ACPI_MAX_OVERRIDES) {
			if (madt_problem(w))
				pr_err("MADT: override entry at offset %u (IRQ %u -> GSI %u): more "
				       "than %u overrides; skipped\n",
				       off, p->source_irq, p->gsi, ACPI_MAX_OVERRIDES);
			break;
		}
		info->overrides[info->nr_overrides++] = (struct acpi_madt_override){
			.bus = p->bus,
			.source_irq = p->source_irq,
			.gsi = p->gsi,
			.flags = p->flags,
		};
		break;
	}
	case MADT_LAPIC_NMI: {
		const struct madt_lapic_nmi *p = (const void *)e;

		madt_add_nmi(w, e, off, p->acpi_uid == 0xFF ? ACPI_MADT_NMI_ALL_CPUS : p->acpi_uid,
			     p->flags, p->lint);
		break;
	}
	case MADT_X2APIC_NMI: {
		const struct madt_x2apic_nmi *p = (const void *)e;

		madt_add_nmi(w, e, off, p->acpi_uid, p->flags, p->lint);
		break;
	}
	case MADT_LAPIC_ADDR: {
		const struct madt_lapic_addr *p = (const void *)e;

		if (!p->addr) {
			if (madt_problem(w))
				pr_err("MADT: local APIC address override at offset %u is 0; "
				       "skipped\n",
				       off);
			break;
		}
		info->lapic_phys = p->addr;
		break;
	}
	default:
		break; /* not ours (SAPIC, GIC, ...) or newer than us */
	}
}

int acpi_parse_madt(const struct acpi_sdt_header *madt, struct acpi_madt_info *info)
{
	const struct madt_header *h = (const void *)madt;
	const u8 *base = (const u8 *)madt;
	struct madt_walk w;
	u32 len, off;

	if (!madt)
		return -ENOENT;
	len = madt->length;
	if (memcmp(madt->signature, "APIC", 4)) {
		pr_err("MADT: table signature is '%.4s', not 'APIC'\n", madt->signature);
		return -EINVAL;
	}
	if (len < sizeof(*h)) {
		pr_err("MADT: table of %u bytes is shorter than the %zu-byte MADT header\n", len,
		       sizeof(*h));
		return -EINVAL;
	}

	memset(info, 0, sizeof(*info));
	memset(&w, 0, sizeof(w));
	w.info = info;
	w.revision = madt->revision;
	info->lapic_phys = h->lapic_addr;
	info->pcat_compat = h->flags & MADT_FLAG_PCAT_COMPAT;

	/* off < len and the checks below keep every read inside the table
	 * whatever the entries claim; each step advances by >= 2 bytes. */
	for (off = sizeof(*h); off < len;) {
		const struct madt_entry *e = (const void *)(base + off);

		if (len - off < sizeof(*e)) {
			if (madt_problem(&w))
				pr_err("MADT: %u stray byte(s) at offset %u, too few for an entry "
				       "header; walk ends\n",
				       len - off, off);
			break;
		}
		if (e->length < sizeof(*e)) {
			if (madt_problem(&w))
				pr_err("MADT: %s entry (type %u) at offset %u has length %u; walk "
				       "ends\n",
				       madt_type_name(e->type), e->type, off, e->length);
			break;
		}
		if (e->length > len - off) {
			if (madt_problem(&w))
				pr_err("MADT: %s entry (type %u) at offset %u has length %u, past "
				       "the table end at %u; walk ends\n",
				       madt_type_name(e->type), e->type, off, e->length, len);
			break;
		}
		madt_entry(&w, e, off);
		off += e->length;
	}

	if (w.cpus_dropped && madt_problem(&w))
		pr_err("MADT: %u usable processor entries from offset %u on do not fit in %u CPUs; "
		       "ignored\n",
		       w.cpus_dropped, w.first_dropped_off, ACPI_MAX_CPUS);
	return 0;
}
