/* kernel/mutex.h - sleeping locks: mutexes and counting semaphores.
 *
 * mutex_lock() blocks until the mutex is free, then owns it; waiters get
 * it in arrival order (mutex_unlock() hands it to the first waiter, so a
 * stream of new lockers cannot starve one). The owner is tracked: a
 * mutex_unlock() by a thread that does not own it is reported (WARN) and
 * refused; a mutex_lock() by the owner (which would never return) panics
 * with both call sites. Both may sleep: never with a spinlock held or from
 * an interrupt handler (might_sleep() reports it). The lock validator
 * (kernel/lockdep.h) checks mutexes' order like spinlocks': one class per
 * DEFINE_MUTEX, and per mutex_init() call site.
 *
 * Semaphores count: down() takes one unit or blocks (FIFO), up() returns
 * one; up() may be called from any context, by any thread. Having no
 * owner, they are not validated as locks (docs/lockdep.md).
 */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include "kernel/spinlock.h"
#include "lib/list.h"
#include "lib/types.h"

struct thread;

struct mutex {
	struct spinlock wait_lock;
	struct thread *owner;	  /* wait_lock (read racily by mutex_is_locked) */
	const void *owner_ip;	  /* wait_lock: where the owner locked it */
	struct list_head waiters; /* wait_lock: struct lock_waiter, FIFO */
	const char *name;
	struct lockdep_map dep_map;
};

struct semaphore {
	struct spinlock lock;
	unsigned int count;	  /* lock */
	struct list_head waiters; /* lock: struct lock_waiter, FIFO */
};

struct lock_waiter {
	struct list_head link;
	struct thread *thread;
	bool granted; /* set by the releaser: handed over */
};

/* Every mutex's wait_lock is one class. */
extern const struct lock_class_key mutex_wait_lock_key;

#define MUTEX_INIT_KEY(m, n, k)                                                                    \
	{                                                                                          \
		.wait_lock = SPINLOCK_INIT_KEY(n, &mutex_wait_lock_key), .owner = NULL,            \
		.owner_ip = NULL, .waiters = LIST_HEAD_INIT((m).waiters), .name = n,               \
		.dep_map = LOCKDEP_MAP_INIT(n, k, LD_MUTEX)                                        \
	}
#define MUTEX_INIT(m)	MUTEX_INIT_KEY(m, #m, NULL)
#define DEFINE_MUTEX(m) struct mutex m = MUTEX_INIT(m)

void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key);
/* One class per call site. */
#define mutex_init(m, n)                                                                           \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__mutex_init((m), (n), &__key);                                                    \
	} while (0)
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(const struct mutex *m);
bool mutex_owned(const struct mutex *m); /* by the calling thread */

void __sema_init(struct semaphore *s, unsigned int count, const char *name,
		 const struct lock_class_key *key);
/* Its inner lock: one class per call site. */
#define sema_init(s, c)                                                                            \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__sema_init((s), (c), #s, &__key);                                                 \
	} while (0)
void down(struct semaphore *s);
bool down_trylock_ok(struct semaphore *s); /* true if taken (Linux's down_trylock is inverted) */
int down_timeout(struct semaphore *s, u64 ns); /* 0, or -ETIMEDOUT */
void up(struct semaphore *s);

#endif
