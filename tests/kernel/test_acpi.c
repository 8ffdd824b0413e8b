/* tests/kernel/test_acpi.c - firmware table checks.
 *
 * QEMU's own tables (FADT, MADT, HPET) are checked for what every QEMU
 * machine we boot provides, whatever -smp says; the parsers' defences are
 * checked on tables built here in static buffers, each with a correct
 * checksum so only the defect under test is wrong. The malformed tables
 * make the parsers print pr_err/pr_warn lines on purpose; none WARNs.
 */
#include "drivers/acpi.h"
#include "kernel/printk.h"
#include "kernel/tools/ktest.h"
#include "lib/errno.h"
#include "lib/string.h"

static void qemu_tables_found(struct ktest *t)
{
	/* QEMU's firmware always provides a FADT and a MADT. */
	const struct acpi_sdt_header *fadt = acpi_get_table("FACP", 0);
	const struct acpi_sdt_header *madt = acpi_get_table("APIC", 0);
	const char *why;

	KT_ASSERT_NOT_NULL(t, fadt);
	KT_ASSERT_NOT_NULL(t, madt);
	KT_EXPECT_EQ(t, acpi_table_check(fadt, fadt->length, &why), 0);
	KT_EXPECT_TRUE(t, acpi_get_table("APIC", 1) == NULL);
	KT_EXPECT_TRUE(t, acpi_get_table("NONE", 0) == NULL);
}

static void fill_checksum(struct acpi_sdt_header *h)
{
	h->checksum = 0;
	u8 sum = 0;

	for (u32 i = 0; i < h->length; i++)
		sum += ((u8 *)h)[i];
	h->checksum = (u8)-sum;
}

static void bad_tables_rejected(struct ktest *t)
{
	static union {
		struct acpi_sdt_header h;
		u8 bytes[64];
	} tbl;
	const char *why = NULL;

	memcpy(tbl.h.signature, "TEST", 4);
	tbl.h.length = 64;
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), 0);
	tbl.bytes[50] ^= 1; /* one flipped bit */
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
	KT_EXPECT_TRUE(t, why && strstr(why, "checksum"));
	tbl.bytes[50] ^= 1;
	tbl.h.length = 10; /* shorter than its own header */
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
	tbl.h.length = 4000; /* past the buffer */
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
	tbl.h.length = 0xFFFFFFFF;
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
}

static void s5_object_parsed(struct ktest *t)
{
	/* Name(_S5, Package(4) { 5, 5, 0, 0 }) as iasl encodes it, then
	 * Package { One, BytePrefix 7 }, then a truncated one. */
	/* The tables as written read better than clang-format's columns. */
	/* clang-format off */
	static const u8 aml1[] = { 0x10, 0x08, 0x08, '_', 'S', '5', '_', 0x12, 0x0A, 0x04,
				   0x0A, 0x05, 0x0A, 0x05, 0x00, 0x00, 0, 0, 0 };
	static const u8 aml2[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06,
				   0x02, 0x01, 0x0A, 0x07, 0, 0 };
	static const u8 aml3[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x02, 0xFF, 0, 0, 0, 0 };
	static const u8 none[] = { 0x08, '_', 'S', '4', '_', 0x12, 0x06,
				   0x02, 0x01, 0x01, 0, 0, 0 };
	/* clang-format on */
	u8 a = 0xEE, b = 0xEE;

	KT_EXPECT_EQ(t, acpi_parse_s5(aml1, sizeof(aml1), &a, &b), 0);
	KT_EXPECT_EQ(t, a, 5);
	KT_EXPECT_EQ(t, b, 5);
	KT_EXPECT_EQ(t, acpi_parse_s5(aml2, sizeof(aml2), &a, &b), 0);
	KT_EXPECT_EQ(t, a, 1);
	KT_EXPECT_EQ(t, b, 7);
	KT_EXPECT_EQ(t, acpi_parse_s5(aml3, sizeof(aml3), &a, &b), -EINVAL);
	KT_EXPECT_EQ(t, acpi_parse_s5(none, sizeof(none), &a, &b), -ENOENT);
	KT_EXPECT_EQ(t, acpi_parse_s5(aml2, 6, &a, &b), -ENOENT); /* cut short */
}

/* The parse results are large: one static copy, used by one case at a time. */
static struct acpi_madt_info madt_info;

static void qemu_madt_parsed(struct ktest *t)
{
	const struct acpi_sdt_header *madt = acpi_get_table("APIC", 0);
	struct acpi_madt_info *mi = &madt_info;
	unsigned int enabled = 0, hotplug = 0;
	bool irq0_to_gsi2 = false;

	KT_ASSERT_NOT_NULL(t, madt);
	KT_ASSERT_TRUE(t, acpi_parse_madt(madt, mi) == 0);
	KT_EXPECT_EQ(t, mi->nr_problems, 0);
	KT_EXPECT_EQ(t, mi->lapic_phys, 0xFEE00000);
	KT_EXPECT_TRUE(t, mi->pcat_compat);
	for (unsigned int i = 0; i < mi->nr_cpus; i++) {
		enabled += mi->cpus[i].enabled;
		hotplug += mi->cpus[i].online_capable;
		KT_EXPECT_TRUE(t, mi->cpus[i].enabled != mi->cpus[i].online_capable);
	}
	KT_EXPECT_LE(t, 1, enabled);
	KT_EXPECT_EQ(t, mi->nr_ioapics, 1);
	KT_EXPECT_EQ(t, mi->ioapics[0].phys, 0xFEC00000);
	KT_EXPECT_EQ(t, mi->ioapics[0].gsi_base, 0);
	for (unsigned int i = 0; i < mi->nr_overrides; i++) {
		const struct acpi_madt_override *o = &mi->overrides[i];

		if (o->bus == 0 && o->source_irq == 0 && o->gsi == 2)
			irq0_to_gsi2 = true;
	}
	KT_EXPECT_TRUE(t, irq0_to_gsi2);
	/* What QEMU said, for whoever reads the log. */
	pr_info("test: MADT rev %u: %u CPUs (%u enabled, %u hot-pluggable), %u overrides, %u "
		"NMIs\n",
		madt->revision, mi->nr_cpus, enabled, hotplug, mi->nr_overrides, mi->nr_nmis);
}

/* A MADT under construction: header, then entries appended at off. */
static union {
	struct acpi_sdt_header h;
	u8 bytes[44 + 16 * (ACPI_MAX_CPUS + 8)];
} madt_buf;
static u32 madt_off;

static void madt_begin(u8 revision)
{
	memset(&madt_buf, 0, sizeof(madt_buf));
	memcpy(madt_buf.h.signature, "APIC", 4);
	madt_buf.h.revision = revision;
	madt_buf.bytes[36] = 0x00; /* local APIC at 0xFEE00000 */
	madt_buf.bytes[37] = 0x00;
	madt_buf.bytes[38] = 0xE0;
	madt_buf.bytes[39] = 0xFE;
	madt_buf.bytes[40] = 1; /* PCAT_COMPAT */
	madt_off = 44;
}

static void madt_put(const u8 *entry, u32 len)
{
	memcpy(madt_buf.bytes + madt_off, entry, len);
	madt_off += len;
}

static void madt_lapic(u8 uid, u8 apic_id, u32 flags)
{
	const u8 e[8] = { 0,
			  8,
			  uid,
			  apic_id,
			  (u8)flags,
			  (u8)(flags >> 8),
			  (u8)(flags >> 16),
			  (u8)(flags >> 24) };

	madt_put(e, sizeof(e));
}

static void madt_x2apic(u32 x2apic_id, u32 flags, u32 uid)
{
	u8 e[16] = { 9, 16 };

	memcpy(e + 4, &x2apic_id, 4);
	memcpy(e + 8, &flags, 4);
	memcpy(e + 12, &uid, 4);
	madt_put(e, sizeof(e));
}

static void madt_ioapic(u8 id, u32 addr, u32 gsi_base)
{
	u8 e[12] = { 1, 12, id, 0 };

	memcpy(e + 4, &addr, 4);
	memcpy(e + 8, &gsi_base, 4);
	madt_put(e, sizeof(e));
}

/* Set the length and checksum; returns the finished table. */
static const struct acpi_sdt_header *madt_end(void)
{
	madt_buf.h.length = madt_off;
	fill_checksum(&madt_buf.h);
	return &madt_buf.h;
}

static int madt_parse(void)
{
	return acpi_parse_madt(madt_end(), &madt_info);
}

static void madt_good_entries(struct ktest *t)
{
	/* Every entry type we read, at odd offsets (after a 5-byte unknown
	 * entry) so unaligned fields are exercised too. */
	static const u8 unknown[5] = { 0x7F, 5, 1, 2, 3 };
	static const u8 override[10] = { 2, 10, 0, 9, 9, 0, 0, 0, 0x0D, 0 };
	static const u8 nmi[6] = { 4, 6, 0xFF, 0x05, 0x00, 1 };
	static const u8 x2nmi[12] = { 0xA, 12, 0x0F, 0, 7, 0, 0, 0, 0, 0, 0, 0 };
	static const u8 addr64[12] = { 5, 12, 0, 0, 0x00, 0x10, 0, 0, 0x01, 0, 0, 0 };
	struct acpi_madt_info *mi = &madt_info;

	madt_begin(5);
	madt_put(unknown, sizeof(unknown));
	madt_lapic(0, 0, 1);
	madt_lapic(1, 4, 1);
	madt_ioapic(2, 0xFEC00000, 0);
	madt_ioapic(3, 0xFEC01000, 24);
	madt_put(override, sizeof(override));
	madt_put(nmi, sizeof(nmi));
	madt_put(x2nmi, sizeof(x2nmi));
	madt_x2apic(300, 1, 300);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_problems, 0);
	KT_EXPECT_EQ(t, mi->lapic_phys, 0xFEE00000);
	KT_EXPECT_TRUE(t, mi->pcat_compat);
	KT_EXPECT_EQ(t, mi->nr_cpus, 3);
	KT_EXPECT_EQ(t, mi->cpus[1].apic_id, 4);
	KT_EXPECT_EQ(t, mi->cpus[1].acpi_uid, 1);
	KT_EXPECT_TRUE(t, mi->cpus[1].enabled && !mi->cpus[1].online_capable);
	KT_EXPECT_FALSE(t, mi->cpus[1].x2apic);
	KT_EXPECT_EQ(t, mi->cpus[2].apic_id, 300);
	KT_EXPECT_EQ(t, mi->cpus[2].acpi_uid, 300);
	KT_EXPECT_TRUE(t, mi->cpus[2].x2apic && mi->cpus[2].enabled);
	KT_EXPECT_EQ(t, mi->nr_ioapics, 2);
	KT_EXPECT_EQ(t, mi->ioapics[1].id, 3);
	KT_EXPECT_EQ(t, mi->ioapics[1].phys, 0xFEC01000);
	KT_EXPECT_EQ(t, mi->ioapics[1].gsi_base, 24);
	KT_EXPECT_EQ(t, mi->nr_overrides, 1);
	KT_EXPECT_EQ(t, mi->overrides[0].source_irq, 9);
	KT_EXPECT_EQ(t, mi->overrides[0].gsi, 9);
	KT_EXPECT_EQ(t, mi->overrides[0].flags, 0x0D); /* level, active high */
	KT_EXPECT_EQ(t, mi->nr_nmis, 2);
	KT_EXPECT_EQ(t, mi->nmis[0].acpi_uid, ACPI_MADT_NMI_ALL_CPUS); /* widened */
	KT_EXPECT_EQ(t, mi->nmis[0].flags, 5);
	KT_EXPECT_EQ(t, mi->nmis[0].lint, 1);
	KT_EXPECT_EQ(t, mi->nmis[1].acpi_uid, 7);
	KT_EXPECT_EQ(t, mi->nmis[1].flags, 0x0F);
	KT_EXPECT_EQ(t, mi->nmis[1].lint, 0);

	/* The 64-bit local APIC address override (type 5) wins. */
	madt_put(addr64, sizeof(addr64));
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->lapic_phys, 0x100001000ULL);
	KT_EXPECT_EQ(t, mi->nr_cpus, 3);
	KT_EXPECT_EQ(t, mi->nr_problems, 0);

	/* One with address 0 is reported and does not replace the last. */
	madt_put(addr64, sizeof(addr64));
	memset(madt_buf.bytes + madt_off - 8, 0, 8);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->lapic_phys, 0x100001000ULL);
	KT_EXPECT_EQ(t, mi->nr_problems, 1);

	/* PCAT_COMPAT clear: no 8259s to mask. */
	madt_buf.bytes[40] = 0;
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_FALSE(t, mi->pcat_compat);
}

static void madt_cpu_flags(struct ktest *t)
{
	struct acpi_madt_info *mi = &madt_info;

	/* Revision 5: bit 1 is "online capable". */
	madt_begin(5);
	madt_lapic(0, 0, 1);	       /* enabled */
	madt_lapic(1, 1, 0);	       /* neither: not a CPU at all */
	madt_lapic(2, 2, 2);	       /* hot-pluggable (QEMU maxcpus) */
	madt_lapic(3, 3, 3);	       /* enabled; bit 1 reserved, ignored */
	madt_lapic(4, 0xFF, 1);	       /* placeholder id */
	madt_x2apic(0xFFFFFFFF, 1, 5); /* placeholder id */
	madt_x2apic(0x1000, 0, 6);     /* neither */
	madt_x2apic(0x1001, 2, 7);     /* hot-pluggable */
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_problems, 0);
	KT_ASSERT_TRUE(t, mi->nr_cpus == 4);
	KT_EXPECT_EQ(t, mi->cpus[0].apic_id, 0);
	KT_EXPECT_TRUE(t, mi->cpus[0].enabled && !mi->cpus[0].online_capable);
	KT_EXPECT_EQ(t, mi->cpus[1].apic_id, 2);
	KT_EXPECT_TRUE(t, !mi->cpus[1].enabled && mi->cpus[1].online_capable);
	KT_EXPECT_EQ(t, mi->cpus[2].apic_id, 3);
	KT_EXPECT_TRUE(t, mi->cpus[2].enabled && !mi->cpus[2].online_capable);
	KT_EXPECT_EQ(t, mi->cpus[3].apic_id, 0x1001);
	KT_EXPECT_EQ(t, mi->cpus[3].acpi_uid, 7);
	KT_EXPECT_TRUE(t, !mi->cpus[3].enabled && mi->cpus[3].online_capable);
	KT_EXPECT_TRUE(t, mi->cpus[3].x2apic);

	/* Before revision 5 a disabled processor is a hot-pluggable one. */
	madt_begin(1);
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 0);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_ASSERT_TRUE(t, mi->nr_cpus == 2);
	KT_EXPECT_TRUE(t, !mi->cpus[1].enabled && mi->cpus[1].online_capable);
}

static void madt_duplicate_ids(struct ktest *t)
{
	struct acpi_madt_info *mi = &madt_info;

	/* APIC id 1 three times (once as x2APIC): one CPU, one report. */
	madt_begin(5);
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	madt_lapic(2, 1, 1);
	madt_x2apic(1, 1, 3);
	madt_lapic(4, 2, 1);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 3);
	KT_EXPECT_EQ(t, mi->nr_problems, 1);
	KT_EXPECT_EQ(t, mi->cpus[1].apic_id, 1);
	KT_EXPECT_EQ(t, mi->cpus[1].acpi_uid, 1); /* the first copy wins */
	KT_EXPECT_EQ(t, mi->cpus[2].apic_id, 2);

	/* Two ids duplicated: one report each. */
	madt_lapic(5, 2, 1);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 3);
	KT_EXPECT_EQ(t, mi->nr_problems, 2);
}

static void madt_bad_lengths(struct ktest *t)
{
	static const u8 zero_len[8] = { 0, 0, 9, 9, 1, 0, 0, 0 };
	static const u8 short_lapic[6] = { 0, 6, 5, 5, 1, 0 };
	static const u8 short_ioapic[8] = { 1, 8, 1, 0, 0, 0, 0xC0, 0xFE };
	static const u8 short_x2apic[12] = { 9, 12, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0 };
	static const u8 long_lapic[10] = { 0, 10, 6, 6, 1, 0, 0, 0, 0xAA, 0xBB };
	struct acpi_madt_info *mi = &madt_info;

	/* Length 0 stops the walk (and does not loop); entries before it
	 * stay, entries after it are never seen. */
	madt_begin(5);
	madt_lapic(0, 0, 1);
	madt_put(zero_len, sizeof(zero_len));
	madt_lapic(1, 1, 1);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 1);
	KT_EXPECT_EQ(t, mi->nr_problems, 1);

	/* Length 1 likewise. */
	madt_buf.bytes[44 + 8 + 1] = 1;
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 1);
	KT_EXPECT_EQ(t, mi->nr_problems, 1);

	/* An entry running past the table end: the table ends mid-entry. */
	madt_begin(5);
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	madt_off -= 3;
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 1);
	KT_EXPECT_EQ(t, mi->nr_problems, 1);

	/* A lone stray byte after the last entry. */
	madt_begin(5);
	madt_lapic(0, 0, 1);
	madt_off += 1;
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 1);
	KT_EXPECT_EQ(t, mi->nr_problems, 1);

	/* Entries too short for their type are skipped, the walk goes on;
	 * a longer one than needed is read normally. */
	madt_begin(5);
	madt_put(short_lapic, sizeof(short_lapic));
	madt_put(short_ioapic, sizeof(short_ioapic));
	madt_put(short_x2apic, sizeof(short_x2apic));
	madt_put(long_lapic, sizeof(long_lapic));
	madt_lapic(0, 0, 1);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_problems, 3);
	KT_EXPECT_EQ(t, mi->nr_ioapics, 0);
	KT_ASSERT_TRUE(t, mi->nr_cpus == 2);
	KT_EXPECT_EQ(t, mi->cpus[0].apic_id, 6);
	KT_EXPECT_EQ(t, mi->cpus[1].apic_id, 0);

	/* A header-only MADT is valid and empty. */
	madt_begin(5);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, 0);
	KT_EXPECT_EQ(t, mi->nr_problems, 0);
}

static void madt_not_a_madt(struct ktest *t)
{
	struct acpi_madt_info *mi = &madt_info;

	KT_EXPECT_EQ(t, acpi_parse_madt(NULL, mi), -ENOENT);

	madt_begin(5);
	madt_lapic(0, 0, 1);
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	memcpy(madt_buf.h.signature, "APIX", 4);
	fill_checksum(&madt_buf.h);
	KT_EXPECT_EQ(t, acpi_parse_madt(&madt_buf.h, mi), -EINVAL);
	KT_EXPECT_EQ(t, mi->nr_cpus, 1); /* untouched on error */

	/* Shorter than the 44-byte MADT header (the SDT header is there). */
	madt_begin(5);
	madt_off = 40;
	KT_EXPECT_EQ(t, madt_parse(), -EINVAL);
	madt_off = 43;
	KT_EXPECT_EQ(t, madt_parse(), -EINVAL);
	madt_off = 0;
	KT_EXPECT_EQ(t, madt_parse(), -EINVAL);
}

static void madt_too_many(struct ktest *t)
{
	static const u8 override[10] = { 2, 10, 0, 1, 1, 0, 0, 0, 0, 0 };
	static const u8 nmi[6] = { 4, 6, 0xFF, 0, 0, 1 };
	struct acpi_madt_info *mi = &madt_info;
	unsigned int i;

	/* ACPI_MAX_CPUS + 3 usable x2APIC processors: the extra three are
	 * one problem; a disabled (and not online-capable) one and a
	 * duplicate past the limit are still what they are. */
	madt_begin(5);
	for (i = 0; i < ACPI_MAX_CPUS + 3; i++)
		madt_x2apic(i * 2, i % 2 ? 2 : 1, i);
	madt_x2apic(7 * 2, 1, 999); /* duplicate of a kept CPU */
	madt_x2apic(5000, 0, 1000); /* neither enabled nor capable */
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_cpus, ACPI_MAX_CPUS);
	KT_EXPECT_EQ(t, mi->nr_problems, 2);
	KT_EXPECT_EQ(t, mi->cpus[ACPI_MAX_CPUS - 1].apic_id, (ACPI_MAX_CPUS - 1) * 2);
	KT_EXPECT_TRUE(t, mi->cpus[ACPI_MAX_CPUS - 1].online_capable);

	/* I/O APICs, overrides and NMIs past their arrays: one problem each. */
	madt_begin(5);
	for (i = 0; i < ACPI_MAX_IOAPICS + 1; i++)
		madt_ioapic((u8)i, 0xFEC00000 + i * 0x1000, i * 24);
	for (i = 0; i < ACPI_MAX_OVERRIDES + 1; i++)
		madt_put(override, sizeof(override));
	for (i = 0; i < ACPI_MAX_LAPIC_NMIS + 1; i++)
		madt_put(nmi, sizeof(nmi));
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_ioapics, ACPI_MAX_IOAPICS);
	KT_EXPECT_EQ(t, mi->ioapics[ACPI_MAX_IOAPICS - 1].gsi_base, (ACPI_MAX_IOAPICS - 1) * 24);
	KT_EXPECT_EQ(t, mi->nr_overrides, ACPI_MAX_OVERRIDES);
	KT_EXPECT_EQ(t, mi->nr_nmis, ACPI_MAX_LAPIC_NMIS);
	KT_EXPECT_EQ(t, mi->nr_problems, 3);
}

static void madt_garbage_table(struct ktest *t)
{
	struct acpi_madt_info *mi = &madt_info;

	/* A table of 2-byte local APIC entries: every one is too short. The
	 * walk visits them all, prints a bounded number, counts them all. */
	madt_begin(5);
	while (madt_off < 44 + 2 * 100) {
		madt_buf.bytes[madt_off] = 0;
		madt_buf.bytes[madt_off + 1] = 2;
		madt_off += 2;
	}
	KT_ASSERT_TRUE(t, madt_parse() == 0);
	KT_EXPECT_EQ(t, mi->nr_problems, 100);
	KT_EXPECT_EQ(t, mi->nr_cpus, 0);
}

static void qemu_hpet_parsed(struct ktest *t)
{
	const struct acpi_sdt_header *hpet = acpi_get_table("HPET", 0);
	u64 phys = 0;

	/* QEMU's pc and q35 both have an HPET, at the usual address. */
	KT_ASSERT_NOT_NULL(t, hpet);
	KT_EXPECT_EQ(t, acpi_parse_hpet(hpet, &phys), 0);
	KT_EXPECT_EQ(t, phys, 0xFED00000);
}

static void bad_hpet_rejected(struct ktest *t)
{
	static union {
		struct acpi_sdt_header h;
		u8 bytes[56];
	} tbl;
	const u64 addr = 0xFED00000;
	u64 phys = 0;

	memset(&tbl, 0, sizeof(tbl));
	memcpy(tbl.h.signature, "HPET", 4);
	tbl.h.length = 56;
	tbl.bytes[40] = 0;		  /* memory space */
	memcpy(tbl.bytes + 44, &addr, 8); /* unaligned field */
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_hpet(&tbl.h, &phys), 0);
	KT_EXPECT_EQ(t, phys, 0xFED00000);

	phys = 1;
	tbl.bytes[40] = 1; /* I/O space: rejected */
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_hpet(&tbl.h, &phys), -EINVAL);
	KT_EXPECT_EQ(t, phys, 1);
	tbl.bytes[40] = 0;
	memset(tbl.bytes + 44, 0, 8); /* address 0 */
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_hpet(&tbl.h, &phys), -EINVAL);
	memcpy(tbl.bytes + 44, &addr, 8);
	tbl.h.length = 51; /* ends inside the address */
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_hpet(&tbl.h, &phys), -EINVAL);
	tbl.h.length = 56;
	memcpy(tbl.h.signature, "HPEX", 4);
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_hpet(&tbl.h, &phys), -EINVAL);
	KT_EXPECT_EQ(t, acpi_parse_hpet(NULL, &phys), -ENOENT);
	KT_EXPECT_EQ(t, phys, 1);
}

static void qemu_fadt_parsed(struct ktest *t)
{
	const struct acpi_sdt_header *fadt = acpi_get_table("FACP", 0);
	struct acpi_fadt_info fi;

	KT_ASSERT_NOT_NULL(t, fadt);
	KT_ASSERT_TRUE(t, acpi_parse_fadt(fadt, &fi) == 0);
	KT_EXPECT_EQ(t, fi.sci_irq, 9);
	/* Both machines have an ACPI PM timer in I/O space. */
	KT_EXPECT_NE(t, fi.pm_timer_port, 0);
	KT_EXPECT_LE(t, fi.pm_timer_port, 0xFFFC);
	pr_info("test: FADT rev %u: SCI %u, PM timer port %#x, IAPC_BOOT_ARCH %#x%s\n",
		fadt->revision, fi.sci_irq, fi.pm_timer_port, fi.iapc_boot_arch,
		fi.has_8042 ? ", 8042" : "");
}

static void bad_fadt_handled(struct ktest *t)
{
	static union {
		struct acpi_sdt_header h;
		u8 bytes[244];
	} tbl;
	const u16 sci = 11;
	const u32 pm_tmr = 0x408, x_pm_tmr_lo = 0xB008;
	struct acpi_fadt_info fi;

	/* ACPI 1.0: 116 bytes, revision 1, no IAPC_BOOT_ARCH. */
	memset(&tbl, 0, sizeof(tbl));
	memcpy(tbl.h.signature, "FACP", 4);
	tbl.h.revision = 1;
	tbl.h.length = 116;
	memcpy(tbl.bytes + 46, &sci, 2);
	memcpy(tbl.bytes + 76, &pm_tmr, 4);
	tbl.bytes[91] = 4;     /* PM_TMR_LEN */
	tbl.bytes[109] = 0xFF; /* reserved in revision 1 */
	fill_checksum(&tbl.h);
	KT_ASSERT_TRUE(t, acpi_parse_fadt(&tbl.h, &fi) == 0);
	KT_EXPECT_EQ(t, fi.sci_irq, 11);
	KT_EXPECT_EQ(t, fi.pm_timer_port, 0x408);
	KT_EXPECT_EQ(t, fi.iapc_boot_arch, 0);
	KT_EXPECT_TRUE(t, fi.has_8042);

	/* Revision 3 without the 8042 flag, and an X_PM_TMR_BLK that
	 * supersedes PM_TMR_BLK. */
	tbl.h.revision = 3;
	tbl.h.length = 244;
	tbl.bytes[109] = 0x01; /* LEGACY_DEVICES only */
	tbl.bytes[110] = 0;
	tbl.bytes[208] = 1; /* I/O space */
	tbl.bytes[209] = 32;
	memcpy(tbl.bytes + 212, &x_pm_tmr_lo, 4);
	fill_checksum(&tbl.h);
	KT_ASSERT_TRUE(t, acpi_parse_fadt(&tbl.h, &fi) == 0);
	KT_EXPECT_EQ(t, fi.pm_timer_port, 0xB008);
	KT_EXPECT_EQ(t, fi.iapc_boot_arch, 1);
	KT_EXPECT_FALSE(t, fi.has_8042);

	/* A memory-mapped PM timer is not a port; no timer at all is 0. */
	tbl.bytes[208] = 0;
	fill_checksum(&tbl.h);
	KT_ASSERT_TRUE(t, acpi_parse_fadt(&tbl.h, &fi) == 0);
	KT_EXPECT_EQ(t, fi.pm_timer_port, 0);
	memset(tbl.bytes + 208, 0, 12);
	tbl.bytes[91] = 0;     /* PM_TMR_LEN 0: none */
	tbl.bytes[109] = 0x02; /* 8042 */
	fill_checksum(&tbl.h);
	KT_ASSERT_TRUE(t, acpi_parse_fadt(&tbl.h, &fi) == 0);
	KT_EXPECT_EQ(t, fi.pm_timer_port, 0);
	KT_EXPECT_TRUE(t, fi.has_8042);

	/* Not a FADT, or too short for one. */
	fi.sci_irq = 77;
	tbl.h.length = 115;
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_fadt(&tbl.h, &fi), -EINVAL);
	tbl.h.length = 116;
	memcpy(tbl.h.signature, "APIC", 4);
	fill_checksum(&tbl.h);
	KT_EXPECT_EQ(t, acpi_parse_fadt(&tbl.h, &fi), -EINVAL);
	KT_EXPECT_EQ(t, acpi_parse_fadt(NULL, &fi), -ENOENT);
	KT_EXPECT_EQ(t, fi.sci_irq, 77); /* untouched on error */
}

KTEST_SUITE(acpi, KTEST_CASE(qemu_tables_found), KTEST_CASE(bad_tables_rejected),
	    KTEST_CASE(s5_object_parsed), KTEST_CASE(qemu_madt_parsed),
	    KTEST_CASE(madt_good_entries), KTEST_CASE(madt_cpu_flags),
	    KTEST_CASE(madt_duplicate_ids), KTEST_CASE(madt_bad_lengths),
	    KTEST_CASE(madt_not_a_madt), KTEST_CASE(madt_too_many), KTEST_CASE(madt_garbage_table),
	    KTEST_CASE(qemu_hpet_parsed), KTEST_CASE(bad_hpet_rejected),
	    KTEST_CASE(qemu_fadt_parsed), KTEST_CASE(bad_fadt_handled));
