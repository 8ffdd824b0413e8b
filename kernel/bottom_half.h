/* kernel/bottom_half.h - bottom halves: the context BH workqueues run in.
 *
 * baton has one deferred-work mechanism, the workqueue; its BH workqueues
 * (WQ_BH, system_bh_wq, kernel/workqueue.h) are its bottom halves. Their
 * items run on the CPU they were queued for, in that CPU's BH context: at
 * the exit of an interrupt, in the idle loop, or where local_bh_enable()
 * lets pending ones in, on the interrupted thread's time and without a
 * thread switch. A BH run is atomic (preempt_count() has BH_OFFSET,
 * kernel/preempt.h): its items must not sleep.
 *
 *   local_bh_disable() / local_bh_enable()
 *       Keep this CPU's BH runs out (they nest). A lock that a BH item
 *       takes must be taken with BHs (or interrupts) off elsewhere, or the
 *       BH run of an interrupt landing in the holder waits for it forever;
 *       the lock validator reports the pattern (docs/lockdep.md).
 *       local_bh_enable() runs what became pending meanwhile (if interrupts
 *       are on), then reschedules if that was asked for. Thread context.
 *   in_bh_run() (kernel/preempt.h)
 *       This CPU is in a BH run.
 *
 * docs/workqueue.md ("Bottom halves") says where the runs happen, their
 * budget, and how BH work survives CPU hotplug.
 */
#ifndef KERNEL_BOTTOM_HALF_H
#define KERNEL_BOTTOM_HALF_H

#include "kernel/preempt.h"

void local_bh_enable(void);

static inline void local_bh_disable(void)
{
	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) + BH_DISABLE_OFFSET);
	barrier();
}

/* BHs are off here (disabled, or a BH run is under way). */
static inline bool bh_blocked(void)
{
	return this_cpu_read(sched.preempt_count) & BH_MASK;
}

/* A BH pool of this CPU has work waiting for a run. */
static inline bool bh_pending(void)
{
	return this_cpu_read(bh.pending) != 0;
}

/* The idle loop's run (kernel/sched.c, cpu_idle()): interrupts off, and off
 * again on return. */
void bh_idle_run(void);

/* Figures for `wq` and benchmarks: this CPU's runs so far. */
struct bh_stats {
	u64 runs;      /* runs begun: interrupt exit, idle loop, local_bh_enable() */
	u64 deferrals; /* runs that ended on their budget with work left */
	u64 continued; /* continuation items run (the rest, in a thread) */
	u64 drains;    /* drain runs of this CPU's pools while it was offline */
};
void bh_get_stats(unsigned int cpu, struct bh_stats *st);

#endif
