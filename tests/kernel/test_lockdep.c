/* tests/kernel/test_lockdep.c - the lock validator (kernel/lockdep.h): each
 * kind of report, provoked once on paths that never actually deadlock (the
 * validator reports what is possible, from one run of each path), and
 * checked for its contents; and the silence of the orders that are fine.
 *
 * Every case uses locks, work items and workqueues of its own, so the
 * dependencies it leaves behind join nothing else in the graph. A report
 * turns validation off; the runner turns it back on after a case that
 * declared reports (ktest_expect_bugs), so each case starts with it on.
 */
#include "arch/x86_64/cpu.h"
#include "kernel/biglock.h"
#include "kernel/completion.h"
#include "kernel/kthread.h"
#include "kernel/lockdep.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/printf.h"
#include "lib/string.h"

#define WAIT_NS (10 * NSEC_PER_SEC)

static char log_tail[16384];

/* Is the text in the last 16 KB of the log? */
static bool logged(const char *text)
{
	log_buf_read(log_tail, sizeof(log_tail));
	return strstr(log_tail, text) != NULL;
}

/* The first line of a report this case declared, by the calling thread. */
static bool reported(const char *kind_and_rest)
{
	char line[256];

	scnprintf(line, sizeof(line), "] BUG (expected by a test): lockdep: %s", kind_and_rest);
	return logged(line);
}

static bool need_validator(struct ktest *t)
{
	if (lockdep_on())
		return true;
	ktest_skip(t, "the lock validator is off (lockdep=0)");
	return false;
}

/* Queue w and wait until it has run. */
static void run_once(struct workqueue_struct *wq, struct work_struct *w)
{
	queue_work(wq, w);
	flush_work(w);
}

/* Run fn(arg) in a thread of its own and wait until it has exited. */
static void run_in_thread(struct ktest *t, int (*fn)(void *), void *arg, const char *name)
{
	struct thread *th = kthread_run(fn, arg, "%s", name);

	KT_ASSERT_NOT_NULL(t, th);
	kthread_stop(th);
}

/* ---- AB-BA ---------------------------------------------------------------- */

static DEFINE_SPINLOCK(abba_a);
static DEFINE_SPINLOCK(abba_b);

static int abba_first(void *arg)
{
	spin_lock(&abba_a);
	spin_lock(&abba_b);
	spin_unlock(&abba_b);
	spin_unlock(&abba_a);
	return 0;
}

static __noinline void abba_second(void)
{
	spin_lock(&abba_b);
	spin_lock(&abba_a);
	spin_unlock(&abba_a);
	spin_unlock(&abba_b);
}

/* Thread 1 takes A then B and exits; then this thread takes B then A.
 * They never overlap, so nothing can hang; the validator still sees that
 * they could. */
static void abba_on_two_threads_is_reported(struct ktest *t)
{
	char line[160];

	if (!need_validator(t))
		return;
	run_in_thread(t, abba_first, NULL, "ld-abba-first");
	unsigned long before = lockdep_reports();

	ktest_expect_bugs(t, 1);
	abba_second();
	KT_EXPECT_EQ(t, lockdep_reports() - before, 1);
	KT_EXPECT_FALSE(t, lockdep_on()); /* off after a report */
	scnprintf(line, sizeof(line),
		  "possible circular locking dependency: %s takes 'abba_a' (spinlock) at "
		  "abba_second+",
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	/* The chain back, with where it was made, and by whom. */
	KT_EXPECT_TRUE(t, logged("  'abba_a' (spinlock) -> 'abba_b' (spinlock), first by "
				 "ld-abba-first:\n"));
	KT_EXPECT_TRUE(t, logged("] abba_first+0x"));
	KT_EXPECT_TRUE(t, logged("  #0 'abba_b' (spinlock) taken at abba_second+0x"));
	KT_EXPECT_TRUE(t, logged("validator off after this report"));
}

static DEFINE_MUTEX(abba_m1);
static DEFINE_MUTEX(abba_m2);

static int abba_mutex_first(void *arg)
{
	mutex_lock(&abba_m1);
	mutex_lock(&abba_m2);
	mutex_unlock(&abba_m2);
	mutex_unlock(&abba_m1);
	return 0;
}

static void abba_mutexes_are_reported(struct ktest *t)
{
	char line[160];

	if (!need_validator(t))
		return;
	run_in_thread(t, abba_mutex_first, NULL, "ld-abba-mutex");
	ktest_expect_bugs(t, 1);
	mutex_lock(&abba_m2);
	mutex_lock(&abba_m1);
	mutex_unlock(&abba_m1);
	mutex_unlock(&abba_m2);
	scnprintf(line, sizeof(line),
		  "possible circular locking dependency: %s takes 'abba_m1' (mutex) at ",
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	KT_EXPECT_TRUE(t, logged("while holding 'abba_m2' (mutex)\n"));
}

/* ---- the same order, many times: silent, and memoised --------------------- */

#define ROUNDS 500
static DEFINE_SPINLOCK(order_outer);
static DEFINE_SPINLOCK(order_inner);

static int in_order(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long flags = spin_lock_irqsave(&order_outer);

		spin_lock(&order_inner);
		spin_unlock(&order_inner);
		spin_unlock_irqrestore(&order_outer, flags);
	}
	return 0;
}

static void consistent_order_is_silent_and_memoised(struct ktest *t)
{
	struct lockdep_stats a, b;

	if (!need_validator(t))
		return;
	in_order(NULL); /* the first round adds the dependency */
	lockdep_get_stats(&a);
	run_in_thread(t, in_order, NULL, "ld-order");
	in_order(NULL);
	lockdep_get_stats(&b);
	KT_EXPECT_TRUE(t, lockdep_on());
	KT_EXPECT_EQ(t, b.reports, a.reports);
	/* Nothing new to learn: no dependency added, and (about) every
	 * acquisition answered by the chain cache. */
	KT_EXPECT_EQ(t, b.deps, a.deps);
	KT_EXPECT_LE(t, (u64)(2 * 2 * ROUNDS), b.chain_hits - a.chain_hits);
	KT_EXPECT_EQ(t, lockdep_held_depth(), 0);
}

/* ---- interrupts ---------------------------------------------------------- */

static DEFINE_SPINLOCK(irq_lock);
static DEFINE_SPINLOCK(irq_lock_late);
static struct timer_list irq_timer;
static struct completion irq_timer_ran;
static struct spinlock *irq_timer_takes;

static void irq_timer_fn(struct timer_list *tl)
{
	spin_lock(irq_timer_takes); /* hard-interrupt context: interrupts are off */
	spin_unlock(irq_timer_takes);
	complete(&irq_timer_ran);
}

/* Take l once in hard-interrupt context (a timer callback), and wait
 * until that is done. */
static bool take_in_interrupt(struct ktest *t, struct spinlock *l)
{
	irq_timer_takes = l;
	init_completion(&irq_timer_ran);
	timer_setup(&irq_timer, irq_timer_fn);
	add_timer(&irq_timer, ktime_get_ns() + 1000 * NSEC_PER_USEC);
	if (wait_for_completion_timeout(&irq_timer_ran, WAIT_NS))
		return true;
	ktest_fail(t, __FILE__, __LINE__, "the timer callback did not run");
	return false;
}

/* Taken in an interrupt handler, then by a thread with interrupts on: an
 * interrupt on the holder's CPU would spin on it forever. */
static void irq_inversion_is_reported(struct ktest *t)
{
	char line[192];

	if (!need_validator(t) || !take_in_interrupt(t, &irq_lock))
		return;
	ktest_expect_bugs(t, 1);
	spin_lock(&irq_lock);
	spin_unlock(&irq_lock);
	scnprintf(line, sizeof(line),
		  "inconsistent lock state {IN-HARDIRQ-W} -> {HARDIRQ-ON-W}: %s takes 'irq_lock' "
		  "(spinlock) at irq_inversion_is_reported+",
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	KT_EXPECT_TRUE(t, logged("it was taken in an interrupt handler before, first by irq:\n"));
	KT_EXPECT_TRUE(t, logged("] irq_timer_fn+0x"));
}

/* The same, the other way round: the interrupt handler comes second, and
 * the report is made in it. */
static void irq_inversion_found_in_the_handler_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	spin_lock(&irq_lock_late);
	spin_unlock(&irq_lock_late);
	ktest_expect_bugs(t, 1);
	if (!take_in_interrupt(t, &irq_lock_late))
		return;
	KT_EXPECT_TRUE(t, reported("inconsistent lock state {HARDIRQ-ON-W} -> {IN-HARDIRQ-W}: irq "
				   "takes 'irq_lock_late' (spinlock) at irq_timer_fn+"));
	KT_EXPECT_TRUE(t, logged("it was taken with interrupts enabled before, first by "));
}

static DEFINE_SPINLOCK(irq_safe);
static DEFINE_SPINLOCK(irq_unsafe);

/* S is taken in interrupts; S -> U is taken with interrupts off (fine on
 * its own); then U with interrupts on. An interrupt taking S on a CPU that
 * holds U, while another CPU holds S and waits for U, deadlocks. */
static void irq_safe_to_unsafe_order_is_reported(struct ktest *t)
{
	if (!need_validator(t) || !take_in_interrupt(t, &irq_safe))
		return;
	unsigned long flags = spin_lock_irqsave(&irq_safe);

	spin_lock(&irq_unsafe);
	spin_unlock(&irq_unsafe);
	spin_unlock_irqrestore(&irq_safe, flags);
	KT_EXPECT_TRUE(t, lockdep_on());
	ktest_expect_bugs(t, 1);
	spin_lock(&irq_unsafe);
	spin_unlock(&irq_unsafe);
	KT_EXPECT_TRUE(t, reported("hardirq-safe -> hardirq-unsafe lock order: "));
	KT_EXPECT_TRUE(t, logged("'irq_safe' (spinlock) is taken in interrupt handlers and "
				 "'irq_unsafe' (spinlock) with interrupts enabled\n"));
	KT_EXPECT_TRUE(t, logged("  'irq_safe' (spinlock) -> 'irq_unsafe' (spinlock), first by "));
}

/* ---- workqueue flushes ---------------------------------------------------- */

static DEFINE_MUTEX(fum_mutex);
static struct work_struct fum_work;

static void fum_fn(struct work_struct *w)
{
	mutex_lock(&fum_mutex);
	mutex_unlock(&fum_mutex);
}

/* The item takes M; a thread holding M flushes it. Here the item is idle
 * when flushed, so the flush returns at once; had it been queued, it would
 * wait for an item waiting for M. */
static void flush_under_a_lock_the_item_takes_is_reported(struct ktest *t)
{
	char line[192];

	if (!need_validator(t))
		return;
	INIT_WORK(&fum_work, fum_fn);
	run_once(system_wq, &fum_work); /* the item has run: (work) -> M */
	ktest_expect_bugs(t, 1);
	mutex_lock(&fum_mutex);
	flush_work(&fum_work);
	mutex_unlock(&fum_mutex);
	scnprintf(line, sizeof(line),
		  "possible circular locking dependency: %s takes '&fum_work' (work) at "
		  "flush_under_a_lock_the_item_takes_is_reported", /* (+, or .part.0+) */
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	KT_EXPECT_TRUE(t, logged("while holding 'fum_mutex' (mutex)\n"));
	KT_EXPECT_TRUE(t, logged("  '&fum_work' (work) -> 'fum_mutex' (mutex), first by kworker/"));
	KT_EXPECT_TRUE(t, logged("] fum_fn+0x"));
	KT_EXPECT_TRUE(t,
		       logged("(a work item is 'held' while it runs and 'taken' by flush_work()"));
}

static struct workqueue_struct *cross_wq1, *cross_wq2;
static struct work_struct cross_item1, cross_item2;

static void cross_fn1(struct work_struct *w)
{
	flush_workqueue(cross_wq2);
}

static void cross_fn2(struct work_struct *w)
{
	flush_workqueue(cross_wq1);
}

/* An item of wq1 flushes wq2, an item of wq2 flushes wq1: each waits for
 * the other if both run at once. */
static void cross_workqueue_flush_cycle_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	cross_wq1 = alloc_workqueue("test_ld_cross1", 0, 0);
	cross_wq2 = alloc_workqueue("test_ld_cross2", 0, 0);
	KT_ASSERT_NOT_NULL(t, cross_wq1);
	KT_ASSERT_NOT_NULL(t, cross_wq2);
	INIT_WORK(&cross_item1, cross_fn1);
	INIT_WORK(&cross_item2, cross_fn2);
	run_once(cross_wq1, &cross_item1);
	ktest_expect_bugs(t, 1);
	run_once(cross_wq2, &cross_item2);
	KT_EXPECT_TRUE(t, reported("possible circular locking dependency: kworker/"));
	KT_EXPECT_TRUE(t, logged("takes 'test_ld_cross1' (workqueue) at cross_fn2+"));
	KT_EXPECT_TRUE(t, logged("while holding '&cross_item2' (work)\n"));
	KT_EXPECT_TRUE(
		t, logged("  '&cross_item1' (work) -> 'test_ld_cross2' (workqueue), first by "));
	destroy_workqueue(cross_wq1);
	destroy_workqueue(cross_wq2);
}

static struct workqueue_struct *ord_wq;
static struct work_struct ord_first, ord_second;
static struct completion ord_second_queued;
static volatile bool ord_flush_result, ord_second_ran;

static void ord_first_fn(struct work_struct *w)
{
	wait_for_completion(&ord_second_queued);
	ord_flush_result = flush_work(&ord_second); /* behind us: waits for us */
}

static void ord_second_fn(struct work_struct *w)
{
	ord_second_ran = true;
}

/* One report, the validator's (the fast path that refuses the flush stays
 * quiet), and the flush refused: nothing hangs. */
static void flushing_a_later_item_of_an_ordered_wq_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	ord_wq = alloc_ordered_workqueue("test_ld_ordered", 0);
	KT_ASSERT_NOT_NULL(t, ord_wq);
	INIT_WORK(&ord_first, ord_first_fn);
	INIT_WORK(&ord_second, ord_second_fn);
	init_completion(&ord_second_queued);
	ord_flush_result = true;
	ord_second_ran = false;
	ktest_expect_bugs(t, 1);
	queue_work(ord_wq, &ord_first);
	queue_work(ord_wq, &ord_second);
	complete(&ord_second_queued);
	flush_workqueue(ord_wq);
	KT_EXPECT_FALSE(t, ord_flush_result);
	KT_EXPECT_TRUE(t, ord_second_ran);
	KT_EXPECT_TRUE(t, reported("possible recursive locking: kworker/"));
	KT_EXPECT_TRUE(t, logged("takes 'test_ld_ordered' (workqueue) at ord_first_fn+"));
	KT_EXPECT_TRUE(t, logged("while holding that very one (taken at ord_first_fn+0x0/"));
	destroy_workqueue(ord_wq);
}

static struct work_struct self_work;
static volatile bool self_flush_result;

static void self_flush_fn(struct work_struct *w)
{
	self_flush_result = flush_work(w);
}

static void self_flush_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	INIT_WORK(&self_work, self_flush_fn);
	self_flush_result = true;
	ktest_expect_bugs(t, 1);
	run_once(system_wq, &self_work);
	KT_EXPECT_FALSE(t, self_flush_result);
	KT_EXPECT_TRUE(t, reported("possible recursive locking: kworker/"));
	KT_EXPECT_TRUE(t, logged("takes '&self_work' (work) at self_flush_fn+"));
	KT_EXPECT_TRUE(t, logged("while holding that very one (taken at self_flush_fn+0x0/"));
}

/* cancel_work_sync() waits like flush_work(): from inside the item, one
 * report (not one from each), and it returns. */
static struct work_struct cancel_self_work;

static void cancel_self_fn(struct work_struct *w)
{
	cancel_work_sync(w);
}

static void cancel_sync_from_inside_the_item_is_reported_once(struct ktest *t)
{
	if (!need_validator(t))
		return;
	INIT_WORK(&cancel_self_work, cancel_self_fn);
	ktest_expect_bugs(t, 1);
	run_once(system_wq, &cancel_self_work);
	KT_EXPECT_TRUE(t, reported("possible recursive locking: kworker/"));
	KT_EXPECT_TRUE(t, logged("takes '&cancel_self_work' (work) at cancel_self_fn+"));
}

/* Draining (or destroying) a workqueue from one of its own items would
 * wait for itself: one report, and refused. */
static struct workqueue_struct *drain_self_wq;
static struct work_struct drain_self_work, destroy_self_work;

static void drain_self_fn(struct work_struct *w)
{
	drain_workqueue(drain_self_wq);
}

static void destroy_self_fn(struct work_struct *w)
{
	destroy_workqueue(drain_self_wq);
}

static void draining_from_an_own_item_is_refused(struct ktest *t)
{
	if (!need_validator(t))
		return;
	drain_self_wq = alloc_workqueue("test_ld_drainself", 0, 0);
	KT_ASSERT_NOT_NULL(t, drain_self_wq);
	INIT_WORK(&drain_self_work, drain_self_fn);
	INIT_WORK(&destroy_self_work, destroy_self_fn);
	ktest_expect_bugs(t, 1);
	run_once(drain_self_wq, &drain_self_work);
	KT_EXPECT_TRUE(t, reported("possible recursive locking: kworker/"));
	KT_EXPECT_TRUE(t, logged("takes 'test_ld_drainself' (workqueue) at drain_self_fn+"));
	/* The validator is off now: the fast path's report, once. */
	ktest_expect_bugs(t, 1);
	run_once(drain_self_wq, &destroy_self_work);
	KT_EXPECT_TRUE(t, reported("destroy_workqueue(test_ld_drainself) from its own item "
				   "destroy_self_fn+0x0/"));
	destroy_workqueue(drain_self_wq); /* still there: refused */
}

static struct workqueue_struct *reclaim_wq, *plain_wq;
static struct work_struct reclaim_item;

static void reclaim_fn(struct work_struct *w)
{
	flush_workqueue(plain_wq);
}

static void reclaim_flushing_non_reclaim_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	reclaim_wq = alloc_workqueue("test_ld_reclaim", WQ_MEM_RECLAIM, 0);
	plain_wq = alloc_workqueue("test_ld_plain", 0, 0);
	KT_ASSERT_NOT_NULL(t, reclaim_wq);
	KT_ASSERT_NOT_NULL(t, plain_wq);
	INIT_WORK(&reclaim_item, reclaim_fn);
	ktest_expect_bugs(t, 1);
	run_once(reclaim_wq, &reclaim_item);
	KT_EXPECT_TRUE(t,
		       reported("WQ_MEM_RECLAIM workqueue test_ld_reclaim (item reclaim_fn+0x0/"));
	KT_EXPECT_TRUE(t, logged("flushes !WQ_MEM_RECLAIM workqueue test_ld_plain: under memory "
				 "pressure its rescuer may wait forever\n"));
	destroy_workqueue(reclaim_wq);
	destroy_workqueue(plain_wq);
}

/* ---- nesting, leaks, once-only -------------------------------------------- */

static struct spinlock nest_pair[2];

static void nesting_annotation_is_honoured(struct ktest *t)
{
	char line[192];

	if (!need_validator(t))
		return;
	for (int i = 0; i < 2; i++)
		spin_lock_init(&nest_pair[i], "nest_pair"); /* one site: one class */
	/* In a fixed order, said so: fine. */
	spin_lock(&nest_pair[0]);
	spin_lock_nested(&nest_pair[1], SINGLE_DEPTH_NESTING);
	spin_unlock(&nest_pair[1]);
	spin_unlock(&nest_pair[0]);
	KT_EXPECT_TRUE(t, lockdep_on());
	/* Unsaid: two of one class, in no known order. */
	ktest_expect_bugs(t, 1);
	spin_lock(&nest_pair[0]);
	spin_lock(&nest_pair[1]);
	spin_unlock(&nest_pair[1]);
	spin_unlock(&nest_pair[0]);
	scnprintf(line, sizeof(line),
		  "possible recursive locking: %s takes 'nest_pair' (spinlock) at "
		  "nesting_annotation_is_honoured+",
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	KT_EXPECT_TRUE(t, logged("while holding another of its class"));
}

static DEFINE_MUTEX(leaked_by_item); /* stays locked by a worker: used nowhere else */
static struct work_struct leak_work;

static void leak_fn(struct work_struct *w)
{
	mutex_lock(&leaked_by_item);
}

static void work_function_returning_holding_a_lock_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	INIT_WORK(&leak_work, leak_fn);
	ktest_expect_bugs(t, 1);
	run_once(system_wq, &leak_work);
	KT_EXPECT_TRUE(t, reported("work function leak_fn+0x0/"));
	KT_EXPECT_TRUE(t, logged("returned holding 'leaked_by_item' (mutex)\n"));
}

static DEFINE_MUTEX(leaked_by_thread); /* stays locked by a dead thread: used nowhere else */

static int leak_thread(void *arg)
{
	mutex_lock(&leaked_by_thread);
	return 0;
}

static void thread_exiting_holding_a_lock_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	ktest_expect_bugs(t, 1);
	run_in_thread(t, leak_thread, NULL, "ld-leaker");
	KT_EXPECT_TRUE(t, reported("thread ld-leaker exits holding 'leaked_by_thread' (mutex)\n"));
}

static DEFINE_SPINLOCK(once_a);
static DEFINE_SPINLOCK(once_b);
static DEFINE_SPINLOCK(once_c);
static DEFINE_SPINLOCK(once_d);

static void take_two(struct spinlock *x, struct spinlock *y)
{
	spin_lock(x);
	spin_lock(y);
	spin_unlock(y);
	spin_unlock(x);
}

/* After a report the validator stops checking (one report, not a flood)
 * but keeps tracking, so turning it back on finds every stack right. */
static void report_is_once_then_rearmed(struct ktest *t)
{
	if (!need_validator(t))
		return;
	take_two(&once_a, &once_b);
	take_two(&once_c, &once_d);
	unsigned long before = lockdep_reports();

	ktest_expect_bugs(t, 1);
	take_two(&once_b, &once_a);
	KT_EXPECT_FALSE(t, lockdep_on());
	take_two(&once_d, &once_c); /* as wrong, but not checked */
	KT_EXPECT_EQ(t, lockdep_reports() - before, 1);
	KT_EXPECT_EQ(t, lockdep_held_depth(), 0);
	lockdep_rearm();
	KT_EXPECT_TRUE(t, lockdep_on());
	struct lockdep_stats st;

	lockdep_get_stats(&st);
	KT_EXPECT_LE(t, st.classes, st.max_classes);
	KT_EXPECT_LT(t, 0u, st.max_depth);
}

/* The big lock is let go while its holder blocks, so blocking on a mutex
 * (or in a flush) under it cannot deadlock, in either order. */
static struct biglock ld_big = BIGLOCK_INIT("ld_big");
static DEFINE_MUTEX(big_mutex);

static int big_then_mutex(void *arg)
{
	biglock_lock(&ld_big);
	mutex_lock(&big_mutex);
	mutex_unlock(&big_mutex);
	biglock_unlock(&ld_big);
	return 0;
}

static void big_lock_and_mutexes_make_no_cycle(struct ktest *t)
{
	if (!need_validator(t))
		return;
	run_in_thread(t, big_then_mutex, NULL, "ld-big");
	mutex_lock(&big_mutex);
	biglock_lock(&ld_big);
	biglock_unlock(&ld_big);
	mutex_unlock(&big_mutex);
	KT_EXPECT_TRUE(t, lockdep_on());
}

KTEST_SUITE(lockdep, KTEST_CASE(abba_on_two_threads_is_reported),
	    KTEST_CASE(abba_mutexes_are_reported),
	    KTEST_CASE(consistent_order_is_silent_and_memoised),
	    KTEST_CASE(irq_inversion_is_reported),
	    KTEST_CASE(irq_inversion_found_in_the_handler_is_reported),
	    KTEST_CASE(irq_safe_to_unsafe_order_is_reported),
	    KTEST_CASE(flush_under_a_lock_the_item_takes_is_reported),
	    KTEST_CASE(cross_workqueue_flush_cycle_is_reported),
	    KTEST_CASE(flushing_a_later_item_of_an_ordered_wq_is_reported),
	    KTEST_CASE(self_flush_is_reported),
	    KTEST_CASE(cancel_sync_from_inside_the_item_is_reported_once),
	    KTEST_CASE(draining_from_an_own_item_is_refused),
	    KTEST_CASE(reclaim_flushing_non_reclaim_is_reported),
	    KTEST_CASE(nesting_annotation_is_honoured),
	    KTEST_CASE(work_function_returning_holding_a_lock_is_reported),
	    KTEST_CASE(thread_exiting_holding_a_lock_is_reported),
	    KTEST_CASE(report_is_once_then_rearmed),
	    KTEST_CASE(big_lock_and_mutexes_make_no_cycle));

/* ---- with lockdep=0, and the harness's own check -------------------------- */

static DEFINE_SPINLOCK(off_a);
static DEFINE_SPINLOCK(off_b);

/* lockdep=0: nothing is validated, and a flush that waits for itself is
 * still refused, reported by the fast path in the validator's form. */
static void nothing_is_validated_when_off(struct ktest *t)
{
	unsigned long before = bug_reports();

	KT_EXPECT_FALSE(t, lockdep_on());
	take_two(&off_a, &off_b);
	take_two(&off_b, &off_a);
	KT_EXPECT_EQ(t, bug_reports(), before);
	INIT_WORK(&self_work, self_flush_fn);
	self_flush_result = true;
	ktest_expect_bugs(t, 1);
	run_once(system_wq, &self_work);
	KT_EXPECT_FALSE(t, self_flush_result);
	KT_EXPECT_TRUE(t, reported("flush_work(self_flush_fn+0x0/"));
	KT_EXPECT_TRUE(t, logged("from inside that work item would wait forever\n"));
	struct lockdep_stats st;

	lockdep_get_stats(&st);
	KT_EXPECT_FALSE(t, st.enabled);
	KT_EXPECT_EQ(t, st.classes, 0u);
}

KTEST_SUITE_EXPLICIT(lockdep_off, KTEST_CASE(nothing_is_validated_when_off));

static DEFINE_SPINLOCK(undeclared_a);
static DEFINE_SPINLOCK(undeclared_b);

/* For the harness: a report nobody declared fails the boot. */
static void an_undeclared_report_fails(struct ktest *t)
{
	take_two(&undeclared_a, &undeclared_b);
	take_two(&undeclared_b, &undeclared_a);
}

KTEST_SUITE_EXPLICIT(lockdep_undeclared, KTEST_CASE(an_undeclared_report_fails));
