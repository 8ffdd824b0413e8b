/* arch/x86_64/gdt.c - per-CPU GDT and TSS.
 *
 * Interface: gdt_init_cpu(gdt, tss) fills and loads this CPU's GDT (kernel
 * code and data, and the TSS whose IST slots idt.c's #DF, NMI and #MC
 * gates use), reloads the segment registers and loads the task register. */
#include "arch/x86_64/desc.h"
#include "lib/string.h"

#define GDT_CODE64	   0x00AF9A000000FFFFULL /* present, DPL0, exec/read, L */
#define GDT_DATA	   0x00CF92000000FFFFULL /* present, DPL0, read/write */
#define TSS_TYPE_AVAILABLE 0x89ULL		 /* present, 64-bit TSS */

struct gdt_ptr {
	u16 limit;
	u64 base;
} __packed;

void gdt_init_cpu(struct gdt_page *gdt, struct tss *tss)
{
	u64 base = (u64)tss;
	u64 limit = sizeof(*tss) - 1;

	memset(tss, 0, sizeof(*tss));
	tss->iomap_base = sizeof(*tss); /* no I/O bitmap */
	gdt->entries[0] = 0;
	gdt->entries[KERNEL_CS / 8] = GDT_CODE64;
	gdt->entries[KERNEL_DS / 8] = GDT_DATA;
	/* A 64-bit TSS descriptor takes two slots (SDM vol. 3, 8.2.3). */
	gdt->entries[KERNEL_TSS / 8] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) |
				       (TSS_TYPE_AVAILABLE << 40) | (((limit >> 16) & 0xF) << 48) |
				       (((base >> 24) & 0xFF) << 56);
	gdt->entries[KERNEL_TSS / 8 + 1] = base >> 32;

	struct gdt_ptr ptr = { .limit = sizeof(*gdt) - 1, .base = (u64)gdt };

	__asm__ volatile(
		"lgdt %0\n\tpushq %1\n\tleaq 1f(%%rip), %%rax\n\tpushq %%rax\n\tlretq\n1:\n\tmovl "
		"%2, %%eax\n\tmovl %%eax, %%ds\n\tmovl %%eax, %%es\n\tmovl %%eax, %%ss\n\tltr %w3"
		:
		: "m"(ptr), "i"((u64)KERNEL_CS), "i"(KERNEL_DS), "r"((u16)KERNEL_TSS)
		: "rax", "memory");
}
