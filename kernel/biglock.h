/* kernel/biglock.h - a sleep-releasing lock, after Linux's old big kernel
 * lock (Linus Torvalds' example of a second user of the scheduler's
 * sleep/wake hooks, in his review of the cmwq patchset). Waiters spin while
 * the holder runs and yield while it does not.
 *
 * A thread holds it across preemption (a preempted holder still holds it;
 * others spin), but when the holder BLOCKS, the lock is dropped for it, by
 * its sleeping() hook, and retaken, by its running() hook, before the
 * holder continues. So code under it must re-check what it read before any
 * blocking call, exactly as under the BKL. It nests in one thread
 * (biglock_lock() twice needs biglock_unlock() twice).
 *
 *   biglock_lock(b), biglock_unlock(b)   may be called by threads only
 *   biglock_held(b)                      by the calling thread
 *   biglock_thread_exit(t)               thread_exit() of t, current: a
 *                                        thread must not exit holding the
 *                                        lock; if it does, a warning says
 *                                        so and the lock is let go
 */
#ifndef KERNEL_BIGLOCK_H
#define KERNEL_BIGLOCK_H

#include "kernel/lockdep_types.h"
#include "lib/types.h"

struct thread;

struct biglock {
	struct thread *owner;	    /* atomic: the holder, or NULL while free */
	unsigned long acquisitions; /* owner: times taken, retakes included */
	struct lockdep_map dep_map; /* held from the outermost lock to its unlock, across sleeps */
};

#define BIGLOCK_INIT(n)                                                                            \
	{                                                                                          \
		.owner = NULL, .acquisitions = 0, .dep_map = LOCKDEP_MAP_INIT(n, NULL, LD_BIGLOCK) \
	}

void biglock_lock(struct biglock *b);
void biglock_unlock(struct biglock *b);
bool biglock_held(const struct biglock *b);
void biglock_thread_exit(struct thread *t);

#endif
