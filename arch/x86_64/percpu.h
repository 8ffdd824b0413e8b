/* arch/x86_64/percpu.h - per-CPU data reached through the GS base.
 *
 * Each CPU has one area, struct percpu: the arch's fields (struct
 * percpu_arch, below) first, then the kernel's, by owner; the kernel
 * defines the whole (kernel/cpu_local.h), so that the arch knows nothing
 * of its fields. The GS base points at the area, and its first field
 * points at itself so that this_cpu_ptr() is one load. The boot CPU's
 * lives in .data (boot_percpu) so that it exists before any allocator;
 * other CPUs get theirs at bring-up.
 *
 * Interface (the accessors need struct percpu whole: kernel/cpu_local.h):
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
#include "arch/x86_64/cpu_id.h"
#include "arch/x86_64/desc.h"
#include "lib/compiler.h"
#include "lib/cpumask.h"
#include "lib/types.h"

#define IST_STACK_SIZE KSTACK_SIZE /* APs take them from kstack_alloc() */
#define NR_IST_STACKS  3	   /* 1: #DF, 2: NMI, 3: #MC */

struct percpu; /* a CPU's whole area: kernel/cpu_local.h */

/*
 * The arch's fields, first in struct percpu, which embeds this struct
 * without a name (its fields are the area's: this_cpu_read(irqs)).
 *
 * Field legend: I = set before others see it (before the CPU starts, or,
 * for its GDT and TSS, by the CPU itself first thing at each start:
 * percpu_load()), then read-only; C = this CPU only (no lock: only this
 * CPU touches it, with interrupts off where an interrupt handler also
 * does).
 */
struct percpu_arch {
	struct percpu *self;	      /* I: must stay first (gs:0) */
	unsigned int cpu_id;	      /* I: logical CPU number */
	unsigned int apic_id;	      /* I: local APIC id */
	struct gdt_page gdt;	      /* I: this CPU's GDT, with its TSS */
	struct tss tss;		      /* I: IST stack pointers */
	u8 *ist_stack[NR_IST_STACKS]; /* I: base (lowest address) of each */
	u8 *boot_stack;		      /* I: the stack the CPU started on */
	volatile int started;	      /* 0 -> 1 by the CPU in C code; 0 -> -1: given up on */
	u64 irqs;		      /* C: interrupts of any kind (traps.c) */
};

/* arch_cpu_id() reads cpu_id at this offset (arch/x86_64/cpu_id.h). */
BUILD_BUG_ON(offsetof(struct percpu_arch, cpu_id) != PERCPU_CPU_ID_OFFSET);

extern struct percpu boot_percpu;
/* Every possible CPU's area; NULL until the CPU is first brought up. */
extern struct percpu *percpu_areas[NR_CPUS];

static inline struct percpu *per_cpu_ptr(unsigned int cpu)
{
	return percpu_areas[cpu];
}

#define this_cpu_read(field)                                                                       \
	({                                                                                         \
		__typeof__(((struct percpu *)0)->field) __v;                                       \
		__asm__ volatile("mov %%gs:%c1, %0"                                                \
				 : "=r"(__v)                                                       \
				 : "i"(offsetof(struct percpu, field)));                           \
		__v;                                                                               \
	})
#define this_cpu_write(field, v)                                                                   \
	do {                                                                                       \
		__typeof__(((struct percpu *)0)->field) __w = (v);                                 \
		__asm__ volatile("mov %0, %%gs:%c1" ::"r"(__w),                                    \
				 "i"(offsetof(struct percpu, field))                               \
				 : "memory");                                                      \
	} while (0)

/* gs:0, the area's self (struct percpu_arch: struct percpu's first field). */
static inline struct percpu *this_cpu_ptr(void)
{
	struct percpu *p;

	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(p) : "i"(offsetof(struct percpu_arch, self)));
	return p;
}
static inline unsigned int smp_processor_id(void)
{
	return arch_cpu_id();
}

void percpu_init_boot_cpu(void);
/* The area of cpu, allocated and set up on first use; NULL without memory. */
struct percpu *percpu_setup(unsigned int cpu, unsigned int apic_id);
/* Load this CPU's GS base, GDT and TSS from pc (on the CPU itself). */
void percpu_load(struct percpu *pc);

#endif
