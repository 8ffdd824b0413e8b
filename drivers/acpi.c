/* drivers/acpi.c - find and check the ACPI tables; power off and reset;
 * read the HPET table and the FADT fields later code needs (interface in
 * drivers/acpi.h; the MADT parser is drivers/acpi_madt.c).
 * Table layouts: ACPI specification 6.5, chapter 5.2; the HPET table: IA-PC
 * HPET specification 1.0a, 3.2.4. */
#define pr_fmt(fmt) "ACPI: " fmt
#include "drivers/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "lib/errno.h"
#include "lib/string.h"

#define ACPI_MAX_TABLES	   64
#define ACPI_MAX_TABLE_LEN (16u << 20) /* anything longer is corrupt */

struct rsdp {
	char signature[8]; /* "RSD PTR " */
	u8 checksum;	   /* bytes 0..19 */
	char oem_id[6];
	u8 revision; /* 0: ACPI 1.0 (20 bytes); 2: ACPI 2.0+ (36 bytes) */
	u32 rsdt_address;
	u32 length;
	u64 xsdt_address;
	u8 extended_checksum; /* all 36 bytes */
	u8 reserved[3];
} __packed;

struct acpi_gas {    /* Generic Address Structure, 5.2.3.2 */
	u8 space_id; /* 0 memory, 1 I/O port */
	u8 bit_width;
	u8 bit_offset;
	u8 access_size;
	u64 address;
} __packed;

/* The FADT fields we use (5.2.9), by offset. */
#define FADT_DSDT		40
#define FADT_SCI_INT		46
#define FADT_SMI_CMD		48
#define FADT_ACPI_ENABLE	52
#define FADT_PM1A_EVT		56
#define FADT_PM1A_CNT		64
#define FADT_PM1B_CNT		68
#define FADT_PM_TMR_BLK		76
#define FADT_GPE0_BLK		80
#define FADT_PM_TMR_LEN		91
#define FADT_PM1_EVT_LEN	88
#define FADT_GPE0_BLK_LEN	92
#define FADT_IAPC_BOOT_ARCH	109
#define FADT_FLAGS		112
#define FADT_RESET_REG		116
#define FADT_RESET_VALUE	128
#define FADT_X_DSDT		140
#define FADT_X_PM_TMR_BLK	208
#define FADT_X_GPE0_BLK		220
#define FADT_V1_LENGTH		116 /* the ACPI 1.0 FADT; every later one is longer */
#define FADT_REV_BOOT_ARCH	2   /* first revision with IAPC_BOOT_ARCH */
#define FADT_BOOT_ARCH_8042	(1u << 1)
#define ACPI_SPACE_MEMORY	0
#define ACPI_SPACE_IO		1
#define FADT_FLAG_RESET_REG_SUP (1u << 10)
#define PM1_SLP_TYP_SHIFT	10
#define PM1_SLP_EN		(1u << 13)
#define PM1_SCI_EN		(1u << 0)
#define ACPI_ENABLE_POLLS	100000
#define ACPI_SLEEP_WAIT_READS	1000000

/* HPET description table: the fields up to the register base. */
struct hpet_table {
	struct acpi_sdt_header sdt;
	u32 event_timer_block_id;
	struct acpi_gas base;
} __packed;

static const struct acpi_sdt_header *tables[ACPI_MAX_TABLES]; /* I: set in acpi_init */
static unsigned int nr_tables;				      /* I */

bool acpi_checksum_ok(const void *p, size_t len)
{
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += ((const u8 *)p)[i];
	return sum == 0;
}

/* Firmware puts tables at any byte address, so their fields have no
 * alignment a plain u32 or u64 load may assume (UBSAN checks it): one
 * memcpy each, a single mov on x86. */
static u32 load_u32(const void *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 load_u64(const void *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool rsdp_valid(const struct rsdp *r, size_t avail)
{
	if (avail < 20 || memcmp(r->signature, "RSD PTR ", 8) || !acpi_checksum_ok(r, 20))
		return false;
	if (r->revision >= 2 && (avail < 36 || !acpi_checksum_ok(r, 36)))
		return false;
	return true;
}

static const struct rsdp *scan_for_rsdp(phys_addr_t start, size_t len)
{
	const u8 *p = memremap(start, len);

	for (size_t off = 0; p && off + 20 <= len; off += 16)
		if (rsdp_valid((const void *)(p + off), len - off))
			return (const void *)(p + off);
	return NULL;
}

static const struct rsdp *find_rsdp(void)
{
	if (boot_info.rsdp_len) {
		if (rsdp_valid((const void *)boot_info.rsdp, boot_info.rsdp_len))
			return (const void *)boot_info.rsdp;
		pr_err("the RSDP from the boot loader has a bad signature or checksum; searching "
		       "the BIOS areas\n");
	}
	u16 ebda_segment = *(const u16 *)phys_to_virt(0x40E);
	const struct rsdp *r = NULL;

	if (ebda_segment)
		r = scan_for_rsdp((phys_addr_t)ebda_segment << 4, 1024);
	return r ? r : scan_for_rsdp(0xE0000, 0x20000);
}

int acpi_table_check(const struct acpi_sdt_header *h, size_t avail, const char **why)
{
	if (avail < sizeof(*h) || h->length < sizeof(*h) || h->length > ACPI_MAX_TABLE_LEN) {
		*why = "an impossible length";
		return -EINVAL;
	}
	if (h->length > avail) {
		*why = "a length past the end of its container";
		return -EINVAL;
	}
	if (!acpi_checksum_ok(h, h->length)) {
		*why = "a bad checksum";
		return -EINVAL;
	}
	return 0;
}

/* Map a whole table after checking it; NULL (reported) if bad. */
static const struct acpi_sdt_header *map_table(phys_addr_t pa)
{
	const struct acpi_sdt_header *h = memremap(pa, sizeof(*h));
	const char *why;

	if (!h)
		return NULL;
	u32 len = h->length;

	if (len >= sizeof(*h) && len <= ACPI_MAX_TABLE_LEN) {
		iounmap((void *)h, sizeof(*h));
		h = memremap(pa, len);
		if (!h)
			return NULL;
	}
	if (acpi_table_check(h, len, &why)) {
		pr_err("table %.4s at %lx has %s; ignored\n", h->signature, (unsigned long)pa, why);
		return NULL;
	}
	return h;
}

void acpi_init(void)
{
	const struct rsdp *rsdp = find_rsdp();

	if (!rsdp) {
		pr_warn("no RSDP found: no ACPI tables, power-off will halt\n");
		return;
	}
	bool x = rsdp->revision >= 2 && rsdp->xsdt_address;
	const struct acpi_sdt_header *root = map_table(x ? rsdp->xsdt_address : rsdp->rsdt_address);

	if (!root) {
		pr_err("no usable %s\n", x ? "XSDT" : "RSDT");
		return;
	}
	size_t entry = x ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / entry;
	const u8 *e = (const u8 *)(root + 1);

	for (size_t i = 0; i < n && nr_tables < ACPI_MAX_TABLES; i++) {
		phys_addr_t pa = x ? load_u64(e + i * 8) : load_u32(e + i * 4);
		const struct acpi_sdt_header *t = pa ? map_table(pa) : NULL;

		if (t)
			tables[nr_tables++] = t;
	}
	pr_info("ACPI %s, %u valid tables via the %s:", rsdp->revision >= 2 ? "2.0+" : "1.0",
		nr_tables, x ? "XSDT" : "RSDT");
	for (unsigned int i = 0; i < nr_tables; i++)
		pr_cont(" %.4s", tables[i]->signature);
	pr_cont("\n");
}

const struct acpi_sdt_header *acpi_get_table(const char sig[4], unsigned int instance)
{
	for (unsigned int i = 0; i < nr_tables; i++)
		if (memcmp(tables[i]->signature, sig, 4) == 0 && instance-- == 0)
			return tables[i];
	return NULL;
}

static u32 fadt_u32(const struct acpi_sdt_header *f, u32 off)
{
	return f->length >= off + 4 ? load_u32((const u8 *)f + off) : 0;
}

/* An AML integer at p: ZeroOp, OneOp, BytePrefix n (5.4 / 20.2.3). */
static int aml_byte_const(const u8 *p, const u8 *end, u8 *v, size_t *used)
{
	if (p >= end)
		return -EINVAL;
	if (*p == 0x00 || *p == 0x01) {
		*v = *p;
		*used = 1;
		return 0;
	}
	if (*p == 0x0A && p + 1 < end) {
		*v = p[1];
		*used = 2;
		return 0;
	}
	return -EINVAL;
}

int acpi_parse_s5(const u8 *aml, size_t len, u8 *slp_typa, u8 *slp_typb)
{
	for (size_t i = 0; i + 8 < len; i++) {
		/* NameOp? '_S5_' PackageOp PkgLength NumElements elements... */
		if (memcmp(aml + i, "_S5_", 4) || aml[i + 4] != 0x12)
			continue;
		const u8 *p = aml + i + 5, *end = aml + len;
		size_t used;

		p += 1 + (*p >> 6); /* PkgLength: 1 + (bits 6-7) bytes */
		p++;		    /* NumElements */
		if (p >= end || aml_byte_const(p, end, slp_typa, &used))
			return -EINVAL;
		p += used;
		if (aml_byte_const(p, end, slp_typb, &used))
			*slp_typb = *slp_typa;
		return 0;
	}
	return -ENOENT;
}

/* Switch the chipset from legacy (SMM) to ACPI mode if the firmware left it
 * in legacy mode: write ACPI_ENABLE to SMI_CMD and wait for SCI_EN (4.8.2.5).
 * QEMU's ICH9 (q35) ignores PM1 sleep requests until then. */
static bool acpi_enable_mode(const struct acpi_sdt_header *fadt, u16 pm1a)
{
	u32 smi_cmd = fadt_u32(fadt, FADT_SMI_CMD);
	u8 enable = fadt->length > FADT_ACPI_ENABLE ? *((const u8 *)fadt + FADT_ACPI_ENABLE) : 0;

	if ((inw(pm1a) & PM1_SCI_EN) || !smi_cmd || smi_cmd > 0xFFFF || !enable)
		return inw(pm1a) & PM1_SCI_EN;
	outb((u16)smi_cmd, enable);
	for (int i = 0; i < ACPI_ENABLE_POLLS && !(inw(pm1a) & PM1_SCI_EN); i++)
		cpu_relax();
	return inw(pm1a) & PM1_SCI_EN;
}

bool acpi_enable(void)
{
	const struct acpi_sdt_header *fadt = acpi_get_table("FACP", 0);
	u32 pm1a = fadt ? fadt_u32(fadt, FADT_PM1A_CNT) : 0;

	return pm1a && pm1a <= 0xFFFF && acpi_enable_mode(fadt, (u16)pm1a);
}

void acpi_poweroff(void)
{
	const struct acpi_sdt_header *fadt = acpi_get_table("FACP", 0);

	if (!fadt)
		return;
	phys_addr_t dsdt_pa = fadt_u32(fadt, FADT_DSDT);

	if (fadt->length >= FADT_X_DSDT + 8 && load_u64((const u8 *)fadt + FADT_X_DSDT))
		dsdt_pa = load_u64((const u8 *)fadt + FADT_X_DSDT);
	const struct acpi_sdt_header *dsdt = dsdt_pa ? map_table(dsdt_pa) : NULL;
	u8 a, b;

	if (!dsdt || acpi_parse_s5((const u8 *)(dsdt + 1), dsdt->length - sizeof(*dsdt), &a, &b)) {
		pr_err("no \\_S5 object in the DSDT: cannot power off\n");
		return;
	}
	u32 pm1a = fadt_u32(fadt, FADT_PM1A_CNT), pm1b = fadt_u32(fadt, FADT_PM1B_CNT);

	if (!pm1a || pm1a > 0xFFFF) {
		pr_err("FADT has no PM1a control block: cannot power off\n");
		return;
	}
	acpi_enable_mode(fadt, (u16)pm1a);
	outw((u16)pm1a, (u16)((a << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN));
	if (pm1b && pm1b <= 0xFFFF)
		outw((u16)pm1b, (u16)((b << PM1_SLP_TYP_SHIFT) | PM1_SLP_EN));
	/* The chipset (and QEMU's main loop) acts a little later: give it
	 * about a second of port reads before calling the request failed. */
	for (int i = 0; i < ACPI_SLEEP_WAIT_READS; i++)
		inw((u16)pm1a);
}

void acpi_reset(void)
{
	const struct acpi_sdt_header *fadt = acpi_get_table("FACP", 0);

	if (!fadt || fadt->length < FADT_RESET_VALUE + 1 ||
	    !(fadt_u32(fadt, FADT_FLAGS) & FADT_FLAG_RESET_REG_SUP))
		return;
	const struct acpi_gas *reg = (const void *)((const u8 *)fadt + FADT_RESET_REG);
	u8 value = *((const u8 *)fadt + FADT_RESET_VALUE);

	if (reg->space_id == 1 && reg->address <= 0xFFFF)
		outb((u16)reg->address, value);
}

int acpi_parse_hpet(const struct acpi_sdt_header *hpet, u64 *phys)
{
	const struct hpet_table *h = (const void *)hpet;

	if (!hpet)
		return -ENOENT;
	if (memcmp(hpet->signature, "HPET", 4)) {
		pr_err("HPET: table signature is '%.4s', not 'HPET'\n", hpet->signature);
		return -EINVAL;
	}
	if (hpet->length < sizeof(*h)) {
		pr_err("HPET: table of %u bytes ends before the register base (%zu bytes)\n",
		       hpet->length, sizeof(*h));
		return -EINVAL;
	}
	if (h->base.space_id != ACPI_SPACE_MEMORY || !h->base.address) {
		pr_err("HPET: registers at %lx in address space %u; only memory (0) at a nonzero "
		       "address works\n",
		       (unsigned long)h->base.address, h->base.space_id);
		return -EINVAL;
	}
	*phys = h->base.address;
	return 0;
}

/* Little-endian fields at any alignment; the caller checked the length. */
static u16 table_u16(const struct acpi_sdt_header *t, u32 off)
{
	u16 v;

	memcpy(&v, (const u8 *)t + off, sizeof(v));
	return v;
}

/* The PM timer's port: X_PM_TMR_BLK when the FADT has one (ACPI says it
 * then supersedes PM_TMR_BLK), else PM_TMR_BLK if PM_TMR_LEN says the
 * timer exists (4; 0 means none). A memory-mapped timer is "none": the
 * port is what the struct promises. */
static u32 fadt_pm_timer_port(const struct acpi_sdt_header *f)
{
	u32 port = fadt_u32(f, FADT_PM_TMR_BLK);
	u8 port_len = ((const u8 *)f)[FADT_PM_TMR_LEN];

	if (f->length >= FADT_X_PM_TMR_BLK + sizeof(struct acpi_gas)) {
		struct acpi_gas x;

		memcpy(&x, (const u8 *)f + FADT_X_PM_TMR_BLK, sizeof(x));
		if (x.address) {
			if (x.space_id == ACPI_SPACE_IO && x.address <= 0xFFFF)
				return (u32)x.address;
			pr_warn("FADT: PM timer at %lx in address space %u, not an I/O port; not "
				"used\n",
				(unsigned long)x.address, x.space_id);
			return 0;
		}
	}
	if (!port || !port_len)
		return 0; /* no PM timer (hardware-reduced ACPI, say) */
	if (port_len != 4 || port > 0xFFFF) {
		pr_warn("FADT: PM timer block %x of length %u (must be 4, below 0x10000); not "
			"used\n",
			port, port_len);
		return 0;
	}
	return port;
}

/* The GPE0 block's port and length: X_GPE0_BLK when the FADT has one in I/O
 * space, else GPE0_BLK; 0 if there is none (or it is not in I/O space). */
static void fadt_gpe0(const struct acpi_sdt_header *f, struct acpi_fadt_info *info)
{
	u32 port = fadt_u32(f, FADT_GPE0_BLK);
	u8 len = ((const u8 *)f)[FADT_GPE0_BLK_LEN];

	if (f->length >= FADT_X_GPE0_BLK + sizeof(struct acpi_gas)) {
		struct acpi_gas x;

		memcpy(&x, (const u8 *)f + FADT_X_GPE0_BLK, sizeof(x));
		if (x.address && (x.space_id != ACPI_SPACE_IO || x.address > 0xFFFF)) {
			pr_warn("FADT: GPE0 block at %lx in address space %u, not an I/O port; "
				"not used\n",
				(unsigned long)x.address, x.space_id);
			port = len = 0;
		} else if (x.address) {
			port = (u32)x.address;
		}
	}
	if (port > 0xFFFF || len % 2) {
		pr_warn("FADT: GPE0 block %x of length %u (must be even, below 0x10000); not "
			"used\n",
			port, len);
		port = len = 0;
	}
	info->gpe0_port = port && len ? (u16)port : 0;
	info->gpe0_len = info->gpe0_port ? len : 0;
}

int acpi_parse_fadt(const struct acpi_sdt_header *fadt, struct acpi_fadt_info *info)
{
	if (!fadt)
		return -ENOENT;
	if (memcmp(fadt->signature, "FACP", 4)) {
		pr_err("FADT: table signature is '%.4s', not 'FACP'\n", fadt->signature);
		return -EINVAL;
	}
	if (fadt->length < FADT_V1_LENGTH) {
		pr_err("FADT: table of %u bytes is shorter than any FADT (%u bytes)\n",
		       fadt->length, FADT_V1_LENGTH);
		return -EINVAL;
	}
	info->sci_irq = table_u16(fadt, FADT_SCI_INT);
	u32 pm1a_evt = fadt_u32(fadt, FADT_PM1A_EVT);
	u8 pm1_len = ((const u8 *)fadt)[FADT_PM1_EVT_LEN];

	/* Only a block of 16-bit status and enable registers, in I/O space. */
	info->pm1a_evt_port = pm1a_evt && pm1a_evt <= 0xFFFF && pm1_len == 4 ? (u16)pm1a_evt : 0;
	info->pm1_evt_len = info->pm1a_evt_port ? pm1_len : 0;
	info->pm_timer_port = fadt_pm_timer_port(fadt);
	fadt_gpe0(fadt, info);
	/* Revision 1 tables have reserved bytes here, and a PC of that era
	 * always had an 8042 (Linux assumes the same). */
	if (fadt->revision >= FADT_REV_BOOT_ARCH) {
		info->iapc_boot_arch = table_u16(fadt, FADT_IAPC_BOOT_ARCH);
		info->has_8042 = info->iapc_boot_arch & FADT_BOOT_ARCH_8042;
	} else {
		info->iapc_boot_arch = 0;
		info->has_8042 = true;
	}
	return 0;
}
