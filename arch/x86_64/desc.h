/* arch/x86_64/desc.h - GDT, TSS and IDT layouts and the segment selectors.
 *
 * baton runs only in ring 0: the GDT holds a 64-bit code segment, a data
 * segment and one TSS, whose only job is to hold the IST stack pointers
 * used by #DF, NMI and #MC (so that a double fault caused by a stack
 * overflow still has a good stack to report it on). */
#ifndef ARCH_DESC_H
#define ARCH_DESC_H

#include "lib/compiler.h"
#include "lib/types.h"

#define KERNEL_CS  0x08
#define KERNEL_DS  0x10
#define KERNEL_TSS 0x18

#define IST_DOUBLE_FAULT  1
#define IST_NMI		  2
#define IST_MACHINE_CHECK 3

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

struct gdt_page {
	u64 entries[5]; /* null, code, data, TSS (two slots) */
} __aligned(16);

void gdt_init_cpu(struct gdt_page *gdt, struct tss *tss);
void idt_init(void);
void idt_load(void);

#endif
