/* arch/x86_64/cpu_id.h - this CPU's number in one %gs-relative load.
 *
 * For the few headers that the per-CPU area's definition includes (the
 * spinlock: struct percpu, kernel/cpu_local.h, holds spinlocks), which
 * therefore cannot use smp_processor_id(). arch/x86_64/percpu.h checks that
 * cpu_id sits at this offset.
 */
#ifndef ARCH_CPU_ID_H
#define ARCH_CPU_ID_H

#define PERCPU_CPU_ID_OFFSET 8

static inline unsigned int arch_cpu_id(void)
{
	unsigned int cpu;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(cpu) : "i"(PERCPU_CPU_ID_OFFSET));
	return cpu;
}

#endif
