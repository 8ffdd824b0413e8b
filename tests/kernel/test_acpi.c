/* tests/kernel/test_acpi.c - firmware table checks. */
#include "drivers/acpi.h"
#include "kernel/ktest.h"
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
	tbl.bytes[50] ^= 1;	/* one flipped bit */
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
	KT_EXPECT_TRUE(t, why && strstr(why, "checksum"));
	tbl.bytes[50] ^= 1;
	tbl.h.length = 10;	/* shorter than its own header */
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
	tbl.h.length = 4000;	/* past the buffer */
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
	tbl.h.length = 0xFFFFFFFF;
	KT_EXPECT_EQ(t, acpi_table_check(&tbl.h, sizeof(tbl), &why), -EINVAL);
}

static void s5_object_parsed(struct ktest *t)
{
	/* Name(_S5, Package(4) { 5, 5, 0, 0 }) as iasl encodes it, then
	 * Package { One, BytePrefix 7 }, then a truncated one. */
	static const u8 aml1[] = { 0x10, 0x08, 0x08, '_', 'S', '5', '_', 0x12, 0x0A, 0x04,
				   0x0A, 0x05, 0x0A, 0x05, 0x00, 0x00, 0, 0, 0 };
	static const u8 aml2[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x02, 0x01, 0x0A, 0x07, 0, 0 };
	static const u8 aml3[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x02, 0xFF, 0, 0, 0, 0 };
	static const u8 none[] = { 0x08, '_', 'S', '4', '_', 0x12, 0x06, 0x02, 0x01, 0x01, 0, 0, 0 };
	u8 a = 0xEE, b = 0xEE;

	KT_EXPECT_EQ(t, acpi_parse_s5(aml1, sizeof(aml1), &a, &b), 0);
	KT_EXPECT_EQ(t, a, 5);
	KT_EXPECT_EQ(t, b, 5);
	KT_EXPECT_EQ(t, acpi_parse_s5(aml2, sizeof(aml2), &a, &b), 0);
	KT_EXPECT_EQ(t, a, 1);
	KT_EXPECT_EQ(t, b, 7);
	KT_EXPECT_EQ(t, acpi_parse_s5(aml3, sizeof(aml3), &a, &b), -EINVAL);
	KT_EXPECT_EQ(t, acpi_parse_s5(none, sizeof(none), &a, &b), -ENOENT);
	KT_EXPECT_EQ(t, acpi_parse_s5(aml2, 6, &a, &b), -ENOENT);	/* cut short */
}

KTEST_SUITE(acpi, KTEST_CASE(qemu_tables_found), KTEST_CASE(bad_tables_rejected),
	    KTEST_CASE(s5_object_parsed));
