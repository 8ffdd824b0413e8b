/* kernel/biglock.c - the sleep-releasing lock; see biglock.h.
 *
 * The lock is one word, the owner, taken with cmpxchg. The holder's hooks
 * (sched.h) release it when the holder blocks (sleeping(): a store, legal
 * under the run-queue lock) and retake it when it runs again (running():
 * spins with preemption enabled, so a preempted holder on this CPU can
 * finish). One thread holds at most one big lock (biglock_depth). */
#include "kernel/biglock.h"
#include "arch/x86_64/cpu.h"
#include "kernel/lockdep.h"
#include "kernel/panic.h"
#include "kernel/sched.h"

/* Spin while the owner runs; while it does not (preempted, perhaps on this
 * very CPU), give the CPU away instead of burning our slice. Called from
 * thread context with preemption enabled. The owner cannot be freed while
 * it holds the lock (a thread must not exit holding it). */
static void acquire(struct biglock *b, struct thread *t)
{
	struct thread *expected = NULL;

	while (!__atomic_compare_exchange_n(&b->owner, &expected, t, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		if (expected && !thread_on_cpu(expected))
			yield();
		else
			cpu_relax();
		expected = NULL;
	}
	b->acquisitions++;
}

static struct thread *biglock_sleeping(struct thread *t, void *data)
{
	struct biglock *b = data;

	if (t->biglock_depth)
		__atomic_store_n(&b->owner, NULL, __ATOMIC_RELEASE);
	return NULL;
}

static void biglock_running(struct thread *t, void *data)
{
	if (t->biglock_depth)
		acquire(data, t);
}

static const struct sched_hook_ops biglock_hooks = {
	.sleeping = biglock_sleeping,
	.running = biglock_running,
};

void biglock_lock(struct biglock *b)
{
	struct thread *t = current;

	if (t->biglock_depth++) {
		WARN_ONCE(READ_ONCE(b->owner) != t, "thread %s takes a second big lock", t->name);
		return;
	}
	if (sched_hook_add(&biglock_hooks, b))
		panic("biglock: thread %s has no free hook slot", t->name);
	lock_acquire(&b->dep_map, 0, 0, b, __builtin_return_address(0));
	acquire(b, t);
}

void biglock_unlock(struct biglock *b)
{
	struct thread *t = current;

	if (WARN(t->biglock_depth <= 0 || READ_ONCE(b->owner) != t,
		 "biglock_unlock by %s, which does not hold it", t->name))
		return;
	if (--t->biglock_depth)
		return;
	lock_release(b, __builtin_return_address(0));
	__atomic_store_n(&b->owner, NULL, __ATOMIC_RELEASE);
	sched_hook_remove(&biglock_hooks);
}

void biglock_thread_exit(struct thread *t)
{
	struct biglock *b = sched_hook_data(t, &biglock_hooks);

	if (!t->biglock_depth || !b)
		return;
	WARN(1, "thread %s exits holding a big lock (depth %d): released", t->name,
	     t->biglock_depth);
	t->biglock_depth = 0;
	lock_release(b, __builtin_return_address(0));
	__atomic_store_n(&b->owner, NULL, __ATOMIC_RELEASE);
	sched_hook_remove(&biglock_hooks);
}

bool biglock_held(const struct biglock *b)
{
	return READ_ONCE(b->owner) == current;
}
