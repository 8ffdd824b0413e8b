/* arch/x86_64/multiboot2.c - read the Multiboot2 information structure.
 *
 * Layout: Multiboot2 specification 1.0, section 3.6: a u32 total size, a
 * u32 reserved, then 8-byte aligned tags {u32 type, u32 size, data...}
 * ending with a tag of type 0. Runs on the boot page tables, which map the
 * low 4 GiB at PHYS_OFFSET; GRUB keeps the structure below 4 GiB. */
#define pr_fmt(fmt) "multiboot2: " fmt
#include "arch/x86_64/paging.h"
#include "kernel/bootinfo.h"
#include "kernel/printk.h"
#include "lib/string.h"

#define MB2_TAG_END	    0
#define MB2_TAG_CMDLINE	    1
#define MB2_TAG_LOADER_NAME 2
#define MB2_TAG_MODULE	    3
#define MB2_TAG_MMAP	    6
#define MB2_TAG_EFI32	    11
#define MB2_TAG_EFI64	    12
#define MB2_TAG_ACPI_OLD    14
#define MB2_TAG_ACPI_NEW    15

struct mb2_tag {
	u32 type;
	u32 size;
};

struct mb2_mmap_entry {
	u64 base;
	u64 len;
	u32 type;
	u32 reserved;
};

struct boot_info boot_info;

/* UEFI 2.x, 4.3: EFI_SYSTEM_TABLE starts with an EFI_TABLE_HEADER (u64
 * signature, u32 revision, u32 header size, u32 CRC32, u32 reserved), then
 * the CHAR16 *FirmwareVendor. Only the 64-bit layout is read. */
#define EFI_SYSTEM_TABLE_SIGNATURE 0x5453595320494249ull /* "IBI SYST" */
#define EFI_LOW_LIMIT		   0x100000000ull	 /* what the boot page tables map */

struct efi_system_table_head {
	u64 signature;
	u32 revision;
	u32 header_size;
	u32 crc32;
	u32 reserved;
	u64 firmware_vendor;
};

/* Read the revision and vendor of the EFI system table, if it lies where
 * the boot page tables reach; otherwise record why not. Firmware memory is
 * only read, never trusted: a bad signature is reported, not followed. */
static void read_efi_system_table(void)
{
	u64 pa = boot_info.efi_system_table;
	const struct efi_system_table_head *st;

	if (boot_info.efi_bits != 64) {
		boot_info.efi_problem = "a 32-bit table, not read";
		return;
	}
	if (pa >= EFI_LOW_LIMIT - sizeof(*st)) {
		boot_info.efi_problem = "above 4 GiB, not read";
		return;
	}
	st = phys_to_virt(pa);
	if (st->signature != EFI_SYSTEM_TABLE_SIGNATURE) {
		boot_info.efi_problem = "bad signature";
		return;
	}
	boot_info.efi_revision = st->revision;
	u64 v = st->firmware_vendor;

	if (!v || v >= EFI_LOW_LIMIT - sizeof(boot_info.efi_vendor) * 2)
		return;
	const u16 *w = phys_to_virt(v);
	size_t i;

	for (i = 0; i + 1 < sizeof(boot_info.efi_vendor) && w[i]; i++)
		boot_info.efi_vendor[i] = w[i] >= 0x20 && w[i] < 0x7f ? (char)w[i] : '?';
	boot_info.efi_vendor[i] = 0;
}

void boot_log_firmware(void)
{
	u64 st = boot_info.efi_system_table;

	if (!st) {
		printk(KERN_INFO "firmware: BIOS (the loader gave no EFI system table)\n");
		return;
	}
	if (boot_info.efi_problem) {
		printk(KERN_INFO "firmware: UEFI (EFI system table at %#lx: %s)\n",
		       (unsigned long)st, boot_info.efi_problem);
		return;
	}
	printk(KERN_INFO "firmware: UEFI %u.%u%s%s (EFI system table at %#lx)\n",
	       boot_info.efi_revision >> 16, boot_info.efi_revision & 0xffff,
	       boot_info.efi_vendor[0] ? ", " : "", boot_info.efi_vendor, (unsigned long)st);
}

static void parse_mmap(const u8 *tag, u32 size)
{
	u32 entry_size = *(const u32 *)(tag + 8);
	const u8 *p = tag + 16, *end = tag + size;

	if (entry_size < sizeof(struct mb2_mmap_entry)) {
		pr_err("memory map entry size %u is too small; ignoring the map\n", entry_size);
		return;
	}
	for (; p + entry_size <= end; p += entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;

		if (boot_info.nr_mmap == BOOT_MMAP_MAX) {
			pr_warn("more than %d memory map entries; ignoring the rest\n",
				BOOT_MMAP_MAX);
			return;
		}
		if (!e->len)
			continue;
		boot_info.mmap[boot_info.nr_mmap++] =
			(struct boot_mmap_entry){ .base = e->base, .len = e->len, .type = e->type };
	}
}

void multiboot2_parse(u64 mbi_phys)
{
	const u8 *mbi = phys_to_virt(mbi_phys);
	u32 total = *(const u32 *)mbi;

	boot_info.mbi_phys = mbi_phys;
	boot_info.mbi_size = total;
	for (const u8 *p = mbi + 8; p + sizeof(struct mb2_tag) <= mbi + total;) {
		const struct mb2_tag *tag = (const void *)p;

		if (tag->type == MB2_TAG_END)
			break;
		if (tag->size < sizeof(*tag) || p + tag->size > mbi + total) {
			pr_err("malformed tag (type %u, size %u); ignoring the rest\n", tag->type,
			       tag->size);
			break;
		}
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			strscpy(boot_info.cmdline, (const char *)(p + 8),
				min((size_t)tag->size - 8 + 1, sizeof(boot_info.cmdline)));
			break;
		case MB2_TAG_LOADER_NAME:
			strscpy(boot_info.loader_name, (const char *)(p + 8),
				min((size_t)tag->size - 8 + 1, sizeof(boot_info.loader_name)));
			break;
		case MB2_TAG_MODULE:
			if (boot_info.nr_modules < BOOT_MODULES_MAX) {
				struct boot_module *m = &boot_info.modules[boot_info.nr_modules++];

				m->start = *(const u32 *)(p + 8);
				m->end = *(const u32 *)(p + 12);
				strscpy(m->cmdline, (const char *)(p + 16),
					min((size_t)tag->size - 16 + 1, sizeof(m->cmdline)));
			} else {
				pr_warn("more than %d modules; ignoring the rest\n",
					BOOT_MODULES_MAX);
			}
			break;
		case MB2_TAG_MMAP:
			parse_mmap(p, tag->size);
			break;
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
			if (tag->size < 8 + (tag->type == MB2_TAG_EFI64 ? 8u : 4u)) {
				pr_err("EFI system table tag of size %u is too small; ignored\n",
				       tag->size);
				break;
			}
			boot_info.efi_bits = tag->type == MB2_TAG_EFI64 ? 64 : 32;
			boot_info.efi_system_table = tag->type == MB2_TAG_EFI64 ?
							     *(const u64 *)(p + 8) :
							     *(const u32 *)(p + 8);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			/* Prefer the ACPI 2.0+ RSDP when the loader gives both. */
			if (boot_info.rsdp_len <= 20) {
				size_t len = min((size_t)tag->size - 8, sizeof(boot_info.rsdp));

				memcpy(boot_info.rsdp, p + 8, len);
				boot_info.rsdp_len = (unsigned int)len;
			}
			break;
		}
		p += ALIGN_UP(tag->size, 8);
	}
	if (boot_info.efi_system_table)
		read_efi_system_table();
}
