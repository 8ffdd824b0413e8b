/* kernel/wait.h - wait queues.
 *
 * A wait queue is a list of threads waiting for some condition. Waiters:
 *   wait_event(wq, cond)                   block until cond is true
 *   wait_event_timeout(wq, cond, ns)       ... or ns pass; returns the ns
 *                                          left (at least 1) if cond came
 *                                          true, 0 on timeout
 * Wakers make cond true first, then:
 *   wake_up(wq)       wake every waiter (each checks cond again: one that
 *                     finds it false, another having taken what it waits
 *                     for, sleeps again)
 *   wake_up_all(wq)   the same; the name says the state stays true for all
 *                     (complete_all(), a flush's end)
 *   wake_up_locked(wq), wake_up_all_locked(wq)  the same, wq->lock held
 * There are no exclusive waiters (Linux's prepare_to_wait_exclusive(),
 * woken one at a time): no waiter here needed one, and a mode with no
 * caller would be a path nothing runs.
 * Wakers may be in any context (interrupt handlers and timer callbacks
 * too); waiters must be threads that may sleep (might_sleep()).
 * A wait queue's lock comes before any thread's pi_lock and any run-queue
 * lock; the lock validator (kernel/lockdep.h) checks it. Waiting itself is
 * not a dependency it sees (docs/lockdep.md: only flushes are).
 */
#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/spinlock.h"
#include "lib/list.h"
#include "lib/types.h"

struct thread;

struct wait_queue_head {
	struct spinlock lock;
	struct list_head head; /* lock: struct wait_queue_entry */
};

struct wait_queue_entry {
	struct thread *thread;
	struct list_head link; /* the queue's lock */
};

/* A waiter's entry, on its stack; prepare_to_wait() links it once. */
#define DEFINE_WAIT(name)                                                                          \
	struct wait_queue_entry name = { .thread = NULL, .link = LIST_HEAD_INIT(name.link) }

#define WAIT_QUEUE_HEAD_INIT(name)                                                                 \
	{                                                                                          \
		SPINLOCK_INIT(#name), LIST_HEAD_INIT((name).head)                                  \
	}
#define DECLARE_WAIT_QUEUE_HEAD(name) struct wait_queue_head name = WAIT_QUEUE_HEAD_INIT(name)

void __init_waitqueue_head(struct wait_queue_head *wq, const char *name,
			   const struct lock_class_key *key);
/* Its lock: one class per call site. */
#define init_waitqueue_head(wq)                                                                    \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__init_waitqueue_head((wq), #wq, &__key);                                          \
	} while (0)
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *e);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e);
void wake_up(struct wait_queue_head *wq);
void wake_up_all(struct wait_queue_head *wq);

bool wake_up_thread(struct thread *t); /* kernel/sched.h */

/* wake_up() and wake_up_all() with wq->lock held (asserted), for a
 * structure that keeps its state under the queue's lock
 * (kernel/completion.c). Inline: every complete() wakes through it. */
static inline void wake_up_locked(struct wait_queue_head *wq)
{
	struct wait_queue_entry *e;

	assert_spin_locked(&wq->lock);
	list_for_each_entry(e, &wq->head, link)
		wake_up_thread(e->thread);
}
static inline void wake_up_all_locked(struct wait_queue_head *wq)
{
	wake_up_locked(wq);
}
bool waitqueue_active(struct wait_queue_head *wq);
/* Sleep until woken or ns pass (UINT64_MAX: forever); returns ns left, 0
 * on timeout. The caller set its state to THREAD_BLOCKED first, as before
 * schedule(). */
u64 schedule_timeout(u64 ns);
/* Sleep at least ms milliseconds, or us microseconds: timers expire when
 * due (kernel/timer.h), so the sleep lasts that long plus the wake-up. */
void msleep(unsigned int ms);
void usleep(u64 us);

#define wait_event(wq, cond)                                                                       \
	do {                                                                                       \
		DEFINE_WAIT(__we);                                                                 \
		might_sleep();                                                                     \
		for (;;) {                                                                         \
			prepare_to_wait(&(wq), &__we);                                             \
			if (cond)                                                                  \
				break;                                                             \
			schedule();                                                                \
		}                                                                                  \
		finish_wait(&(wq), &__we);                                                         \
	} while (0)

#define wait_event_timeout(wq, cond, ns)                                                           \
	({                                                                                         \
		DEFINE_WAIT(__we);                                                                 \
		u64 __left = (ns);                                                                 \
		might_sleep();                                                                     \
		for (;;) {                                                                         \
			prepare_to_wait(&(wq), &__we);                                             \
			if (cond) {                                                                \
				__left = __left ? __left : 1;                                      \
				break;                                                             \
			}                                                                          \
			if (!__left)                                                               \
				break;                                                             \
			__left = schedule_timeout(__left);                                         \
		}                                                                                  \
		finish_wait(&(wq), &__we);                                                         \
		__left;                                                                            \
	})

#endif
