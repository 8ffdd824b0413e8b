/* kernel/timer.h - one-shot timers, per CPU, that expire when due.
 *
 * A timer runs fn(t) from its CPU's clock-event interrupt (kernel/time.h),
 * which is programmed for the CPU's earliest timer: at its expiry, never
 * before (the clock is read, not trusted to the hardware), and late by the
 * interrupt's latency only (with nohz=off, up to one 10 ms tick). Expiries
 * are ktime_get_ns() nanoseconds; timers of one CPU with the same expiry
 * run in the order they were armed. Callbacks run with interrupts off and
 * must not sleep: per baton's rule they only wake threads or queue work
 * (the workqueue's delayed work rides on this).
 *
 *   timer_setup(t, fn)                one lock class per call site (below)
 *   timer_set_check(t, check)         debugging: the queue calls check(t)
 *                                     each time it meets t in a queue
 *   add_timer(t, expires)             on this CPU; expires is ktime_get_ns() time
 *   add_timer_on(t, expires, cpu)
 *   mod_timer(t, expires)             (re)arm on this CPU; returns whether it
 *                                     was pending
 *   del_timer(t)                      disarm; returns whether it was pending
 *   del_timer_sync(t)                 disarm and wait until no callback of t
 *                                     runs on any CPU (one that re-arms t,
 *                                     here or on another CPU, included); may
 *                                     not be called from the callback, nor
 *                                     holding a lock the callback takes
 *   timer_pending(t)                  a glance, without the lock
 *   timer_active(t)                   t is pending, or a callback of t runs
 *                                     on some CPU: decided under t's lock,
 *                                     as del_timer_sync() decides (below)
 *   timers_migrate(from, to)          move every timer of CPU from to CPU
 *                                     to, expiries kept (CPU hotplug: from
 *                                     is dying; a timer armed for it after
 *                                     that goes to an online CPU instead)
 *   timers_get_stats(cpu, st)         what is pending on a CPU, and counts
 *   timers_check()                    tests: walk every queue, count links
 *                                     that do not point back, keys out of
 *                                     order and timers on a queue that is
 *                                     not theirs
 * For the clock event (this CPU, interrupts off):
 *   timers_next_expiry()              the earliest expiry (KTIME_MAX: none)
 *   run_timers()                      run the expired ones; returns how many.
 *                                     One queued here while it runs (by a
 *                                     callback re-arming itself for now, say)
 *                                     waits for the next call, which the
 *                                     clock event makes at once (nohz=off:
 *                                     at the next tick): no callback keeps
 *                                     its CPU in one interrupt
 *
 * For the lock validator (kernel/lockdep.h) a timer is a pseudo-lock, as
 * in Linux: its callback runs holding it, and del_timer_sync() takes it
 * (and lets it go at once), since it waits for the callback. So
 * del_timer_sync() under a lock the callback takes is reported as the
 * deadlock it can be, on the first run that makes both paths, whether or
 * not the callback was running at the time. One class per timer_setup()
 * call site, named after its first argument ('&pool->mayday_timer').
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include "kernel/lockdep_types.h"
#include "lib/rbtree.h"
#include "lib/types.h"

struct timer_list {
	struct rb_node node; /* base lock: in its CPU's queue while pending */
	u64 expires;	     /* base lock */
	u64 armed_pass;	     /* base lock: its base's nr_passes when queued
			      * there; run_timers() leaves one queued during
			      * its pass for the next */
	void (*fn)(struct timer_list *t);
	/* NULL, or checks what the owner knows and the queue does not (a
	 * sleeper's timer: that its thread still waits on it); panics on a
	 * stale timer. Called under the base lock, interrupts off. */
	void (*check)(const struct timer_list *t);
	int cpu;      /* base lock: its home base, the one it is queued
		       * on or was last (its lock guards it, pending or
		       * not); changed with both bases' locks held */
	int run_cpu;  /* base lock: the CPU that last took it off its
		       * queue to run its callback (timer.c, "Is a
		       * callback of t running?") */
	bool pending; /* base lock to write; timer_pending() reads it
		       * without (a glance: node's words change as other
		       * timers are linked around it, KCSAN found) */
	/* Base lock: a callback of it may run on a CPU other than run_cpu
	 * (it was taken to run while an earlier one still ran elsewhere). */
	bool run_overlap;
	/* Set at timer_setup(): the validator's pseudo-lock. */
	struct lockdep_map lockdep_map;
};

#define timer_setup(t, fn)                                                                         \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__timer_setup((t), (fn), #t, &__key);                                              \
	} while (0)
void __timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t), const char *name,
		   const struct lock_class_key *key);
void timer_set_check(struct timer_list *t, void (*check)(const struct timer_list *t));
void add_timer(struct timer_list *t, u64 expires);
void add_timer_on(struct timer_list *t, u64 expires, unsigned int cpu);
bool mod_timer(struct timer_list *t, u64 expires);
bool del_timer(struct timer_list *t);
bool del_timer_sync(struct timer_list *t);
bool timer_pending(const struct timer_list *t);
/* Is t pending, or a callback of t running on some CPU? Exact at one
 * moment, under t's base lock, as del_timer_sync() decides; it may change
 * once returned, unless the caller's own locks keep t from being armed,
 * fired or finishing meanwhile (the workqueue asserts with it that a
 * pool's mayday timer is armed or firing). Any context: other spinlocks
 * held, interrupts on or off (it takes t's base lock with interrupts off
 * and never waits). From t's own callback it is true, always. */
bool timer_active(const struct timer_list *t);
u64 timers_next_expiry(void);
unsigned int run_timers(void);
void timers_init(void);
struct timer_stats {
	unsigned int nr_pending; /* queued there now */
	u64 nr_armed;		 /* queued there, ever (a migration counts) */
	u64 nr_expired;		 /* callbacks run there, ever */
	u64 nr_passes;		 /* run_timers() calls there, ever */
	u64 next_expiry;	 /* the earliest pending, KTIME_MAX: none */
};
void timers_get_stats(unsigned int cpu, struct timer_stats *st);
void timers_migrate(unsigned int from, unsigned int to);
unsigned int timers_check(void);

#endif
