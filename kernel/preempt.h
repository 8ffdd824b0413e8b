/* kernel/preempt.h - the preemption count.
 *
 * Per CPU (as on Linux/x86): preempt_disable() keeps the current thread on
 * this CPU until the matching preempt_enable(), which reschedules if a
 * reschedule was asked for meanwhile. Spinlocks disable preemption while
 * held, so a thread never loses its CPU holding one. A thread must not
 * block with the count above zero (might_sleep() reports it).
 *
 * The count has two fields, as on Linux: bits 0-7 count preempt_disable()
 * (and held spinlocks), bits 8-15 the bottom-half context
 * (kernel/bottom_half.h): BH_OFFSET while this CPU runs a BH workqueue's
 * items (a "BH run", kernel/workqueue/bh.c), BH_DISABLE_OFFSET per
 * local_bh_disable(). Either makes the count non-zero, so that a BH item,
 * or a thread with BHs off, is atomic for every check below.
 */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"

#define PREEMPT_MASK	  0x00ffu
#define BH_OFFSET	  0x0100u /* a BH run is under way on this CPU */
#define BH_DISABLE_OFFSET 0x0200u /* one local_bh_disable() */
#define BH_MASK		  0xff00u

extern bool sched_ready;
void preempt_schedule(void);

static inline int preempt_count(void)
{
	return this_cpu_read(sched.preempt_count);
}

/* This CPU runs a BH run's items (a BH item, or a flush barrier run there). */
static inline bool in_bh_run(void)
{
	return this_cpu_read(sched.preempt_count) & BH_OFFSET;
}

static inline void preempt_disable(void)
{
	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) + 1);
	barrier();
}

static inline void preempt_enable_no_resched(void)
{
	barrier();
	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) - 1);
}

/* Reschedule now if that was asked for and nothing forbids it. */
static inline void preempt_check_resched(void)
{
	if (unlikely(this_cpu_read(sched.need_resched)) &&
	    this_cpu_read(sched.preempt_count) == 0 && !irqs_disabled() && sched_ready)
		preempt_schedule();
}

static inline void preempt_enable(void)
{
	preempt_enable_no_resched();
	preempt_check_resched();
}

static inline bool need_resched(void)
{
	return this_cpu_read(sched.need_resched);
}

/*
 * might_sleep(): the caller may block. Reports, once per call site, a call
 * with preemption disabled (a spinlock held), interrupts off, or from an
 * interrupt handler.
 */
void __might_sleep(const char *file, int line, bool *reported);
#define might_sleep()                                                                              \
	do {                                                                                       \
		static bool __ms_reported;                                                         \
		__might_sleep(__FILE__, __LINE__, &__ms_reported);                                 \
	} while (0)

#endif
