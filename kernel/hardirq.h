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
 *   in_hardirq()                     inside an interrupt handler
 *
 * irq_exit() is also where this CPU's bottom halves run: if a BH pool of
 * the CPU has work (kernel/bottom_half.h), and the interrupted code was
 * neither a BH run nor inside local_bh_disable(), the BH run starts there,
 * on the CPU's BH stack, with interrupts on (kernel/workqueue/bh.c).
 */
#ifndef KERNEL_HARDIRQ_H
#define KERNEL_HARDIRQ_H

#include "kernel/cpu_local.h"
#include "kernel/lockdep.h"
#include "kernel/preempt.h"

/* kernel/sched.c: an interrupt that wakes the idle loop's halt ends the
 * CPU's idle period before its handler runs (sched_cpu.idle_seq). */
void sched_idle_exit(void);

static inline void irq_enter(void)
{
	if (unlikely(!(this_cpu_read(sched.idle_seq) & 1)))
		sched_idle_exit();
	lockdep_hardirq_enter();
}

/* The validator's count is the kernel's: irq_enter()/irq_exit() keep it
 * whether or not the validator is on. */
static inline bool in_hardirq(void)
{
	return this_cpu_read(lockdep.hardirq_depth) != 0;
}

/* kernel/workqueue/bh.c: the BH run of an interrupt's exit. */
void bh_irq_exit(void);

static inline void irq_exit(const void *handler)
{
	lockdep_hardirq_exit(handler);
	if (unlikely(this_cpu_read(bh.pending)) && !(preempt_count() & BH_MASK) && !in_hardirq())
		bh_irq_exit();
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
