/* kernel/hardirq.h - what the arch's interrupt entry tells the core.
 *
 * arch/x86_64/traps.c brackets each interrupt handler and the NMI handler
 * with these; the core passes them on to what keeps track of interrupt
 * context (the lock validator's hooks, kernel/lockdep.h). Called with
 * interrupts off, on the CPU taking the interrupt; they never sleep.
 *
 *   irq_enter() / irq_exit(handler)  around an interrupt handler (handler:
 *                                    what ran, named if it leaves a lock held)
 *   nmi_enter() / nmi_exit()         around the NMI handler
 */
#ifndef KERNEL_HARDIRQ_H
#define KERNEL_HARDIRQ_H

#include "kernel/cpu_local.h"
#include "kernel/lockdep.h"

/* kernel/sched.c: an interrupt that wakes the idle loop's halt ends the
 * CPU's idle period before its handler runs (sched_cpu.idle_seq). */
void sched_idle_exit(void);

static inline void irq_enter(void)
{
	if (unlikely(!(this_cpu_read(sched.idle_seq) & 1)))
		sched_idle_exit();
	lockdep_hardirq_enter();
}

static inline void irq_exit(const void *handler)
{
	lockdep_hardirq_exit(handler);
}

static inline void nmi_enter(void)
{
	lockdep_nmi_enter();
}

static inline void nmi_exit(void)
{
	lockdep_nmi_exit();
}

#endif
