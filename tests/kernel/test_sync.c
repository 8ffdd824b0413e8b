/* tests/kernel/test_sync.c - wait queues, completions, mutexes,
 * semaphores, the sleep-releasing lock and might_sleep(). */
#include "arch/x86_64/atomic.h"
#include "kernel/biglock.h"
#include "kernel/completion.h"
#include "kernel/kthread.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/tools/ktest.h"
#include "lib/errno.h"
#include "lib/random.h"

#define WORKERS 8

static struct thread *start_workers(int (*fn)(void *), struct thread **t, const char *name)
{
	for (unsigned int i = 0; i < WORKERS; i++)
		t[i] = kthread_run(fn, (void *)(u64)(i + 1), "%s%u", name, i);
	return t[0];
}

static void stop_workers(struct ktest *kt, struct thread **t)
{
	for (unsigned int i = 0; i < WORKERS; i++) {
		KT_ASSERT_TRUE(kt, t[i] != NULL);
		KT_EXPECT_EQ(kt, kthread_stop(t[i]), 0);
	}
}

/* ---- mutex ---- */

#define MUTEX_ROUNDS 400
static DEFINE_MUTEX(torture_mutex);
static unsigned long mutex_counter; /* torture_mutex */
static atomic_t mutex_inside, mutex_violations;

static int mutex_worker(void *arg)
{
	struct prng r;

	prng_seed(&r, (u64)arg);
	for (int i = 0; i < MUTEX_ROUNDS; i++) {
		mutex_lock(&torture_mutex);
		if (atomic_inc_return(&mutex_inside) != 1 || !mutex_owned(&torture_mutex))
			atomic_inc(&mutex_violations);
		unsigned long v = mutex_counter;

		switch (prng_below(&r, 8)) {
		case 0:
			msleep(1); /* block while holding it */
			break;
		case 1:
			yield();
			break;
		default:
			udelay(prng_below(&r, 50));
		}
		mutex_counter = v + 1;
		atomic_dec(&mutex_inside);
		mutex_unlock(&torture_mutex);
	}
	return 0;
}

static void mutex_torture_counts_exactly(struct ktest *t)
{
	struct thread *w[WORKERS];

	mutex_counter = 0;
	atomic_set(&mutex_violations, 0);
	start_workers(mutex_worker, w, "mtx");
	stop_workers(t, w);
	KT_EXPECT_EQ(t, mutex_counter, WORKERS * MUTEX_ROUNDS);
	KT_EXPECT_EQ(t, atomic_read(&mutex_violations), 0);
	KT_EXPECT_FALSE(t, mutex_is_locked(&torture_mutex));
	KT_EXPECT_TRUE(t, mutex_trylock(&torture_mutex));
	KT_EXPECT_FALSE(t, mutex_trylock(&torture_mutex));
	mutex_unlock(&torture_mutex);
}

static int unlock_foreign(void *m)
{
	mutex_unlock(m);
	return 0;
}

static void mutex_unlock_by_non_owner_is_refused(struct ktest *t)
{
	static DEFINE_MUTEX(m);

	mutex_lock(&m);
	ktest_expect_warnings(t, "kernel/mutex.c", 1);
	kthread_stop(kthread_run(unlock_foreign, &m, "thief"));
	KT_EXPECT_TRUE(t, mutex_owned(&m));
	mutex_unlock(&m);
	KT_EXPECT_FALSE(t, mutex_is_locked(&m));
}

/* ---- semaphore ---- */

#define SEM_UNITS 3
static struct semaphore torture_sem;
static atomic_t sem_inside, sem_max, sem_done;

static int sem_worker(void *arg)
{
	for (int i = 0; i < 300; i++) {
		down(&torture_sem);
		int in = atomic_inc_return(&sem_inside);

		atomic_max(&sem_max, in);
		if (i % 7 == 0)
			msleep(1);
		else
			udelay(20);
		atomic_dec(&sem_inside);
		atomic_inc(&sem_done);
		up(&torture_sem);
	}
	return 0;
}

static void semaphore_torture_respects_the_count(struct ktest *t)
{
	struct thread *w[WORKERS];

	sema_init(&torture_sem, SEM_UNITS);
	atomic_set(&sem_max, 0);
	atomic_set(&sem_done, 0);
	start_workers(sem_worker, w, "sem");
	stop_workers(t, w);
	KT_EXPECT_EQ(t, atomic_read(&sem_done), WORKERS * 300);
	KT_EXPECT_LE(t, atomic_read(&sem_max), SEM_UNITS);
	KT_EXPECT_TRUE(t, atomic_read(&sem_max) >= 2);
	for (int i = 0; i < SEM_UNITS; i++)
		KT_EXPECT_TRUE(t, down_trylock_ok(&torture_sem));
	KT_EXPECT_FALSE(t, down_trylock_ok(&torture_sem));
	KT_EXPECT_EQ(t, down_timeout(&torture_sem, 20 * NSEC_PER_MSEC), -ETIMEDOUT);
	for (int i = 0; i < SEM_UNITS; i++)
		up(&torture_sem);
}

/* ---- wait queues and completions ---- */

static DECLARE_WAIT_QUEUE_HEAD(wq);
static volatile int wq_flag;
static atomic_t waiters_arrived, waiters_woken;
static int woke_at[WORKERS]; /* the flag each waiter saw when it woke */

/* Asleep: blocked and off its run queue (only a wake-up brings it back).
 * Every waiter counts itself in waiters_arrived before it waits, so
 * asleep then means asleep in that wait. */
static bool all_asleep(struct thread **w)
{
	for (unsigned int i = 0; i < WORKERS; i++)
		if (!w[i] || !thread_asleep(w[i]))
			return false;
	return true;
}

static int wq_waiter(void *arg)
{
	int i = (int)(u64)arg - 1;

	atomic_inc(&waiters_arrived);
	wait_event(wq, READ_ONCE(wq_flag) >= i + 1);
	woke_at[i] = READ_ONCE(wq_flag);
	atomic_inc(&waiters_woken);
	return 0;
}

/* Waiter i sleeps until the flag reaches i + 1. The test raises it one
 * step at a time with wake_up_all() and waits (bounded) for exactly that
 * waiter to wake: each wake-up must wake the waiter whose condition now
 * holds, and none whose condition does not. kthread_stop() (which wakes
 * a thread too) comes only after every waiter returned. */
static void wait_queue_wakes_when_true(struct ktest *t)
{
	struct thread *w[WORKERS];

	wq_flag = 0;
	for (int i = 0; i < WORKERS; i++)
		woke_at[i] = 0;
	atomic_set(&waiters_arrived, 0);
	atomic_set(&waiters_woken, 0);
	start_workers(wq_waiter, w, "wq");
	KT_WAIT_UNTIL(t, atomic_read(&waiters_arrived) == WORKERS && all_asleep(w));
	for (int v = 1; v <= WORKERS; v++) {
		WRITE_ONCE(wq_flag, v);
		wake_up_all(&wq);
		if (!KT_WAIT_UNTIL(t, atomic_read(&waiters_woken) == v))
			break;
	}
	for (int i = 0; i < WORKERS; i++)
		KT_EXPECT_EQ(t, woke_at[i], i + 1);
	WRITE_ONCE(wq_flag, WORKERS); /* after a failure: kthread_stop's wake-up ends them */
	stop_workers(t, w);
	u64 left = wait_event_timeout(wq, READ_ONCE(wq_flag) > 100, 20 * NSEC_PER_MSEC);

	KT_EXPECT_EQ(t, left, 0);
	left = wait_event_timeout(wq, READ_ONCE(wq_flag) > 0, 20 * NSEC_PER_MSEC);
	KT_EXPECT_TRUE(t, left > 0);
}

static struct completion all_go;

static int completion_waiter(void *arg)
{
	atomic_inc(&waiters_arrived);
	wait_for_completion(&all_go);
	atomic_inc(&waiters_woken);
	return 0;
}

static void completions_count_and_broadcast(struct ktest *t)
{
	struct completion c;
	struct thread *w[WORKERS];

	init_completion(&c);
	complete(&c);
	complete(&c);
	KT_EXPECT_TRUE(t, try_wait_for_completion(&c));
	KT_EXPECT_TRUE(t, try_wait_for_completion(&c));
	KT_EXPECT_FALSE(t, try_wait_for_completion(&c));
	KT_EXPECT_EQ(t, wait_for_completion_timeout(&c, 10 * NSEC_PER_MSEC), 0);
	/* complete_all() wakes every waiter, all asleep in the wait before it
	 * (not merely let in later by the count it leaves): all return
	 * before kthread_stop(), which would wake them too. */
	init_completion(&all_go);
	atomic_set(&waiters_arrived, 0);
	atomic_set(&waiters_woken, 0);
	start_workers(completion_waiter, w, "cw");
	KT_WAIT_UNTIL(t, atomic_read(&waiters_arrived) == WORKERS && all_asleep(w));
	KT_EXPECT_EQ(t, atomic_read(&waiters_woken), 0);
	complete_all(&all_go);
	KT_WAIT_UNTIL(t, atomic_read(&waiters_woken) == WORKERS);
	stop_workers(t, w);
}

/* ---- the sleep-releasing lock ---- */

static struct biglock big = BIGLOCK_INIT("big");
static atomic_t big_holders, big_violations, big_sleeps;

static void big_enter(void)
{
	if (atomic_inc_return(&big_holders) != 1 || !biglock_held(&big))
		atomic_inc(&big_violations);
}

static void big_leave(void)
{
	atomic_dec(&big_holders);
}

static int big_worker(void *arg)
{
	struct prng r;

	prng_seed(&r, (u64)arg);
	for (int i = 0; i < 60; i++) {
		biglock_lock(&big);
		big_enter();
		if (prng_below(&r, 3) == 0) {
			/* Blocking drops the lock for us; others get in meanwhile. */
			big_leave();
			msleep(1);
			atomic_inc(&big_sleeps);
			big_enter(); /* retaken before we run on */
		} else {
			udelay(prng_below(&r, 100)); /* preemptible: we keep it */
		}
		if (prng_below(&r, 4) == 0) {
			biglock_lock(&big); /* nests */
			biglock_unlock(&big);
		}
		big_leave();
		biglock_unlock(&big);
	}
	return 0;
}

static void biglock_is_never_held_twice(struct ktest *t)
{
	struct thread *w[WORKERS];

	atomic_set(&big_violations, 0);
	atomic_set(&big_sleeps, 0);
	start_workers(big_worker, w, "big");
	stop_workers(t, w);
	KT_EXPECT_EQ(t, atomic_read(&big_violations), 0);
	KT_EXPECT_TRUE(t, atomic_read(&big_sleeps) > 0);
	KT_EXPECT_TRUE(t, READ_ONCE(big.owner) == NULL);
	KT_EXPECT_EQ(t, current->nr_hooks, 0);
}

static int big_exits_holding(void *arg)
{
	biglock_lock(&big);
	biglock_lock(&big);
	return 0; /* a bug: exits holding it, twice */
}

/* A thread that exits holding the lock is reported, and the lock let go:
 * otherwise every later taker would wait on a thread that is gone. */
static void biglock_held_at_exit_is_released(struct ktest *t)
{
	ktest_expect_warnings(t, "kernel/biglock.c", 1); /* first: the thread may exit at once */
	struct thread *th = kthread_run(big_exits_holding, NULL, "big/exit");

	KT_ASSERT_TRUE(t, th != NULL);
	kthread_stop(th);
	KT_ASSERT_TRUE(t, READ_ONCE(big.owner) == NULL); /* else taking it would hang */
	biglock_lock(&big);
	KT_EXPECT_TRUE(t, biglock_held(&big));
	biglock_unlock(&big);
}

/* ---- might_sleep ---- */

static void sleep_check_site(void)
{
	might_sleep();
}

static void might_sleep_reports_once_per_site(struct ktest *t)
{
	static DEFINE_SPINLOCK(l);

	ktest_expect_warnings(t, "tests/kernel/test_sync.c", 1);
	spin_lock(&l);
	sleep_check_site();
	sleep_check_site(); /* same site: no second report */
	spin_unlock(&l);
	sleep_check_site(); /* fine here */
}

KTEST_SUITE(sync, KTEST_CASE(mutex_torture_counts_exactly),
	    KTEST_CASE(mutex_unlock_by_non_owner_is_refused),
	    KTEST_CASE(semaphore_torture_respects_the_count),
	    KTEST_CASE(wait_queue_wakes_when_true), KTEST_CASE(completions_count_and_broadcast),
	    KTEST_CASE(biglock_is_never_held_twice), KTEST_CASE(biglock_held_at_exit_is_released),
	    KTEST_CASE(might_sleep_reports_once_per_site));
