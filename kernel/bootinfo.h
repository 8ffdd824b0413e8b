/* kernel/bootinfo.h - what the boot loader told us, copied out of the
 * Multiboot2 information structure by arch/x86_64/multiboot2.c before any
 * allocator can reuse the memory it sits in. */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include "lib/types.h"

#define BOOT_MMAP_MAX	 128
#define BOOT_MODULES_MAX 8
#define BOOT_CMDLINE_MAX 1024

enum boot_mem_type {
	BOOT_MEM_AVAILABLE = 1,
	BOOT_MEM_RESERVED = 2,
	BOOT_MEM_ACPI_RECLAIMABLE = 3,
	BOOT_MEM_ACPI_NVS = 4,
	BOOT_MEM_BAD = 5,
};

struct boot_mmap_entry {
	u64 base;
	u64 len;
	u32 type; /* enum boot_mem_type; others are treated as reserved */
};

struct boot_module {
	u64 start, end; /* physical, end exclusive */
	char cmdline[64];
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	char loader_name[64];
	struct boot_mmap_entry mmap[BOOT_MMAP_MAX];
	unsigned int nr_mmap;
	struct boot_module modules[BOOT_MODULES_MAX];
	unsigned int nr_modules;
	u8 rsdp[36];	       /* copy of the ACPI RSDP (v1: 20 bytes, v2+: 36) */
	unsigned int rsdp_len; /* 0: the loader gave none */
	u64 mbi_phys, mbi_size;
	/* UEFI: the loader's EFI system table tag (type 11 or 12; GRUB's EFI
	 * build gives it, its BIOS build does not). Boot services have exited. */
	u64 efi_system_table;	 /* physical; 0: no tag (booted from BIOS) */
	unsigned int efi_bits;	 /* 32 or 64: which tag */
	u32 efi_revision;	 /* the table's, major << 16 | minor; 0: not read */
	char efi_vendor[32];	 /* its FirmwareVendor, ASCII; "" if not read */
	const char *efi_problem; /* why the table was not read, or NULL */
};

extern struct boot_info boot_info;

/* Fill boot_info from the Multiboot2 structure at mbi_phys. Problems (a
 * truncated map, too many entries) are reported, never fatal. */
void multiboot2_parse(u64 mbi_phys);

/* Log which firmware booted us ("firmware: UEFI ..." or "firmware: BIOS"). */
void boot_log_firmware(void);

#endif
