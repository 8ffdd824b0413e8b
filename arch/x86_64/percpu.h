/* arch/x86_64/percpu.h - per-CPU data reached through the GS base.
 *
 * Each CPU has one struct percpu; its GS base points at it, and its first
 * field points at itself so that this_cpu_ptr() is one load. The boot CPU's
 * lives in .data (boot_percpu) so that it exists before any allocator;
 * other CPUs get theirs at bring-up.
 *
 * Interface:
 *   smp_processor_id()     this CPU's logical id (stable while preemption
 *                          or interrupts are disabled)
 *   this_cpu_ptr()         this CPU's struct percpu
 *   this_cpu_read(field)   one field, read with a single %gs-relative load
 *   this_cpu_write(field, v)
 *   percpu_init_boot_cpu() point GS at boot_percpu; first thing kmain does
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include "arch/x86_64/boot_defs.h"
#include "arch/x86_64/desc.h"
#include "lib/compiler.h"
#include "lib/types.h"

#define IST_STACK_SIZE	8192
#define NR_IST_STACKS	3	/* 1: #DF, 2: NMI, 3: #MC */

struct percpu {
	struct percpu *self;		/* I: must stay first (gs:0) */
	unsigned int cpu_id;		/* I: logical CPU number */
	unsigned int apic_id;		/* I: local APIC id */
	int printk_nesting;		/* this CPU only: printk recursion depth */
	struct gdt_page gdt;		/* I: this CPU's GDT, with its TSS */
	struct tss tss;			/* I: IST stack pointers */
	/* IST stacks, each with an unmapped guard page in front: */
	u8 *ist_stack[NR_IST_STACKS];	/* I: base (lowest address) */
};

extern struct percpu boot_percpu;

#define this_cpu_read(field)                                                  \
	({                                                                    \
		__typeof__(((struct percpu *)0)->field) __v;                  \
		__asm__ volatile("mov %%gs:%c1, %0"                           \
				 : "=r"(__v)                                  \
				 : "i"(offsetof(struct percpu, field)));      \
		__v;                                                          \
	})
#define this_cpu_write(field, v)                                              \
	do {                                                                  \
		__typeof__(((struct percpu *)0)->field) __v = (v);            \
		__asm__ volatile("mov %0, %%gs:%c1" ::"r"(__v),               \
				 "i"(offsetof(struct percpu, field))          \
				 : "memory");                                 \
	} while (0)

static inline struct percpu *this_cpu_ptr(void) { return this_cpu_read(self); }
static inline unsigned int smp_processor_id(void) { return this_cpu_read(cpu_id); }

void percpu_init_boot_cpu(void);

#endif
