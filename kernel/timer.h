/* kernel/timer.h - one-shot timers on per-CPU timing wheels.
 *
 * A timer runs fn(t) from the tick interrupt of its CPU, at the first tick
 * at or after its expiry (never early; up to one tick late). Callbacks run
 * with interrupts off and must not sleep: per baton's rule they only wake
 * threads or queue work (the workqueue's delayed work rides on this).
 *
 *   timer_setup(t, fn)
 *   timer_set_check(t, check)         debugging: the wheel calls check(t)
 *                                     each time it meets t on a list
 *   add_timer(t, expires_ns)          on this CPU; expires is ktime_get_ns() time
 *   add_timer_on(t, expires_ns, cpu)
 *   mod_timer(t, expires_ns)          (re)arm on this CPU; returns whether it
 *                                     was pending
 *   del_timer(t)                      disarm; returns whether it was pending
 *   del_timer_sync(t)                 disarm and wait for a running callback
 *                                     (may not be called from the callback)
 *   timer_pending(t)
 *   timers_migrate(from, to)          move every timer of CPU from to CPU
 *                                     to (CPU hotplug: from is dying)
 *   timers_check()                    tests: walk every wheel, count links
 *                                     that do not point back and timers
 *                                     on a wheel that is not theirs
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include "lib/list.h"
#include "lib/types.h"

struct timer_list {
	struct list_head entry; /* base lock */
	u64 expires;		/* base lock */
	void (*fn)(struct timer_list *t);
	/* NULL, or checks what the owner knows and the wheel does not (a
	 * sleeper's timer: that its thread still waits on it); panics on a
	 * stale timer. Called under the base lock, interrupts off. */
	void (*check)(const struct timer_list *t);
	int cpu; /* base lock: its home base, the one it is queued
		  * on or was last (its lock guards it, pending or
		  * not); changed with both bases' locks held */
};

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t));
void timer_set_check(struct timer_list *t, void (*check)(const struct timer_list *t));
void add_timer(struct timer_list *t, u64 expires);
void add_timer_on(struct timer_list *t, u64 expires, unsigned int cpu);
bool mod_timer(struct timer_list *t, u64 expires);
bool del_timer(struct timer_list *t);
bool del_timer_sync(struct timer_list *t);
bool timer_pending(const struct timer_list *t);
/* From the tick: run this CPU's expired timers. */
void run_timers(void);
void timers_init(void);
void timers_migrate(unsigned int from, unsigned int to);
unsigned int timers_check(void);

#endif
