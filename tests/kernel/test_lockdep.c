/* tests/kernel/test_lockdep.c - the lock validator (kernel/lockdep.h): each
 * kind of report, provoked once on paths that never actually deadlock (the
 * validator reports what is possible, from one run of each path), and
 * checked for its contents; and the silence of the orders that are fine.
 *
 * Every case uses locks, work items and workqueues of its own, so the
 * dependencies it leaves behind join nothing else in the graph. A report
 * turns validation off; the runner turns it back on after a case that
 * declared reports (ktest_expect_bugs), so each case starts with it on.
 *
 * The validator's counts (lockdep_reports(), lockdep_get_stats()) are
 * global, and other CPUs take locks while a case runs. So each check of
 * one either counts only what this CPU does with interrupts off, or says
 * why no other CPU can move it past what it checks.
 */
#include "arch/x86_64/cpu.h"
#include "kernel/biglock.h"
#include "kernel/bottom_half.h"
#include "kernel/completion.h"
#include "kernel/cpu_local.h"
#include "kernel/debug/lockdep.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
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
#include "tests/kernel/ktest_helpers.h"

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

	ktest_expect_bugs(t, "lockdep", 1);
	abba_second();
	/* Global, but exact: validation was on, any report turns it off and
	 * only the runner turns it back on, after the case; so one report at
	 * most, and the line below says it was ours. */
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
	ktest_expect_bugs(t, "lockdep", 1);
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

/* How the chain cache answered one in_order() run. */
struct order_run {
	u64 hits, misses;
};

/* in_order() with interrupts off: nothing else runs on this CPU
 * meanwhile, so the change in its chain-cache counters is this run's own
 * acquisitions, and nothing another CPU does can move it. */
static int in_order_counted(void *arg)
{
	struct order_run *r = arg;
	unsigned long flags = local_irq_save();
	u64 hits = this_cpu_read(lockdep.chain_hits), misses = this_cpu_read(lockdep.chain_misses);

	in_order(NULL);
	r->hits = this_cpu_read(lockdep.chain_hits) - hits;
	r->misses = this_cpu_read(lockdep.chain_misses) - misses;
	local_irq_restore(flags);
	return 0;
}

/*
 * Once the first round has validated the order, every later acquisition,
 * on this thread or another, is answered by the chain cache: nothing new
 * is learned. The lockdep_get_stats() totals are no measure of that, as
 * every CPU moves them (another CPU's hits could make up for ours, its new
 * dependencies would fail us), so each run counts its own CPU's hits and
 * misses with interrupts off. A miss is allowed only where another CPU
 * emptied the cache meanwhile (to reuse the classes of destroyed
 * workqueues): the first of the two runs after it misses once on each of
 * this path's two chains, and caches them again.
 */
static void consistent_order_is_silent_and_memoised(struct ktest *t)
{
	struct order_run here, there;
	struct lockdep_stats a, b;

	if (!need_validator(t))
		return;
	in_order(NULL); /* the first round adds the dependency */
	lockdep_get_stats(&a);
	run_in_thread(t, in_order_counted, &there, "ld-order");
	in_order_counted(&here);
	lockdep_get_stats(&b);
	/* A report anywhere turns the validator off (and one this case did not
	 * declare fails it): no count of reports is needed. */
	KT_EXPECT_TRUE(t, lockdep_on());
	KT_EXPECT_EQ(t, here.hits + here.misses, 2 * ROUNDS);
	KT_EXPECT_EQ(t, there.hits + there.misses, 2 * ROUNDS);
	KT_EXPECT_LE(t, here.misses + there.misses, 2 * (b.chain_flushes - a.chain_flushes));
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
	if (wait_for_completion_timeout(&irq_timer_ran, KT_WAIT_LIMIT_NS))
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
	spin_lock(&irq_unsafe);
	spin_unlock(&irq_unsafe);
	KT_EXPECT_TRUE(t, reported("hardirq-safe -> hardirq-unsafe lock order: "));
	KT_EXPECT_TRUE(t, logged("'irq_safe' (spinlock) is taken in interrupt handlers and "
				 "'irq_unsafe' (spinlock) with interrupts enabled\n"));
	KT_EXPECT_TRUE(t, logged("  'irq_safe' (spinlock) -> 'irq_unsafe' (spinlock), first by "));
}

/* ---- bottom halves -------------------------------------------------------- */

static DEFINE_SPINLOCK(bh_lock);
static DEFINE_SPINLOCK(bh_lock_guarded);
static DEFINE_SPINLOCK(bh_safe);
static DEFINE_SPINLOCK(bh_unsafe);
static struct spinlock *bh_item_takes;

static void bh_take_fn(struct work_struct *w)
{
	spin_lock(bh_item_takes); /* a BH item: interrupts on, BHs off */
	spin_unlock(bh_item_takes);
}

/* Take l once in a BH item, and wait until that is done. */
static void take_in_bh(struct spinlock *l)
{
	struct work_struct w;

	bh_item_takes = l;
	INIT_WORK(&w, bh_take_fn);
	queue_work(system_bh_wq, &w);
	flush_work(&w);
}

/* Taken in a BH item, then by a thread with BHs and interrupts on: the BH
 * run of an interrupt on the holder's CPU would spin on it forever. */
static void bh_inversion_is_reported(struct ktest *t)
{
	char line[192];

	if (!need_validator(t))
		return;
	take_in_bh(&bh_lock);
	ktest_expect_bugs(t, "lockdep", 1);
	spin_lock(&bh_lock);
	spin_unlock(&bh_lock);
	scnprintf(line, sizeof(line),
		  "inconsistent lock state {IN-BH-W} -> {BH-ON-W}: %s takes 'bh_lock' (spinlock) "
		  "at bh_inversion_is_reported+",
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	KT_EXPECT_TRUE(t, logged("it was taken in a BH item before, first by bh:\n"));
	KT_EXPECT_TRUE(t, logged("] bh_take_fn+0x"));
}

/* The same lock taken by the thread with BHs off (or interrupts off):
 * nothing to report, either way round. */
static void bh_lock_taken_with_bhs_off_is_silent(struct ktest *t)
{
	unsigned long before = bug_reports();

	if (!need_validator(t))
		return;
	take_in_bh(&bh_lock_guarded);
	local_bh_disable();
	spin_lock(&bh_lock_guarded);
	spin_unlock(&bh_lock_guarded);
	local_bh_enable();
	unsigned long flags = spin_lock_irqsave(&bh_lock_guarded);

	spin_unlock_irqrestore(&bh_lock_guarded, flags);
	take_in_bh(&bh_lock_guarded);
	KT_EXPECT_EQ(t, bug_reports(), before);
	KT_EXPECT_TRUE(t, lockdep_on());
}

/* S is taken in BH items; S -> U with BHs off (fine on its own); then U
 * with BHs on. A BH run taking S on a CPU whose thread holds U, while
 * another CPU holds S and waits for U, deadlocks. */
static void bh_safe_to_unsafe_order_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	take_in_bh(&bh_safe);
	local_bh_disable();
	spin_lock(&bh_safe);
	spin_lock(&bh_unsafe);
	spin_unlock(&bh_unsafe);
	spin_unlock(&bh_safe);
	local_bh_enable();
	KT_EXPECT_TRUE(t, lockdep_on());
	ktest_expect_bugs(t, "lockdep", 1);
	spin_lock(&bh_unsafe);
	spin_unlock(&bh_unsafe);
	KT_EXPECT_TRUE(t, reported("BH-safe -> BH-unsafe lock order: "));
	KT_EXPECT_TRUE(t, logged("'bh_safe' (spinlock) is taken in BH items and 'bh_unsafe' "
				 "(spinlock) with BHs and interrupts enabled\n"));
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
	ktest_expect_bugs(t, "lockdep", 1);
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

/* ---- CPU hotplug: a step that waits for work needing the hotplug lock ---- */

static struct work_struct hp_work;
static volatile bool hp_step_armed;

static void hp_fn(struct work_struct *w)
{
	cpus_read_lock(); /* what code that sets things up per CPU does */
	cpus_read_unlock();
}

/* The online step of a CPU coming up flushes hp_work: it runs holding the
 * hotplug lock (every prepare, online and offline callback does), so the
 * flush would wait for an item waiting for that lock. */
static int hp_step_fn(unsigned int cpu)
{
	if (READ_ONCE(hp_step_armed))
		flush_work(&hp_work);
	return 0;
}

static struct cpuhp_step hp_flush_step = {
	.name = "test:flush-work-needing-hotplug",
	.phase = CPUHP_ONLINE,
	.startup = hp_step_fn,
};

/* Linux catches this with pseudo-locks for the up and down directions
 * (cpuhp_state_up_map), because its callbacks run in a per-CPU thread that
 * does not hold cpu_hotplug_lock. Here every callback that may sleep runs
 * in the caller, which holds it (kernel/hotplug.h): the hotplug lock is the
 * pseudo-lock, and the cycle is found through it on the first online that
 * makes it possible (the item idle: nothing hangs). The starting and dying
 * steps run with interrupts off and cannot wait for anything that sleeps. */
static void a_hotplug_step_flushing_work_that_takes_the_hotplug_lock_is_reported(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();

	if (!need_validator(t) || !ktest_need_cpus(t, 2))
		return;
	INIT_WORK(&hp_work, hp_fn);
	run_once(system_wq, &hp_work); /* the item has run: (work) -> cpu_hotplug_lock */
	cpuhp_add_step(&hp_flush_step);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	ktest_expect_bugs(t, "lockdep", 1);
	WRITE_ONCE(hp_step_armed, true);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	WRITE_ONCE(hp_step_armed, false);
	cpuhp_remove_step(&hp_flush_step);
	KT_EXPECT_TRUE(t, reported("possible circular locking dependency: "));
	KT_EXPECT_TRUE(t, logged("takes '&hp_work' (work) at hp_step_fn"));
	KT_EXPECT_TRUE(t, logged("while holding 'cpu_hotplug_lock' (mutex)\n"));
	KT_EXPECT_TRUE(
		t, logged("  '&hp_work' (work) -> 'cpu_hotplug_lock' (mutex), first by kworker/"));
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
	run_once(drain_self_wq, &drain_self_work);
	KT_EXPECT_TRUE(t, reported("possible recursive locking: kworker/"));
	KT_EXPECT_TRUE(t, logged("takes 'test_ld_drainself' (workqueue) at drain_self_fn+"));
	/* The validator is off now: the fast path's report, once. */
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
	run_once(reclaim_wq, &reclaim_item);
	KT_EXPECT_TRUE(t,
		       reported("WQ_MEM_RECLAIM workqueue test_ld_reclaim (item reclaim_fn+0x0/"));
	KT_EXPECT_TRUE(t, logged("flushes !WQ_MEM_RECLAIM workqueue test_ld_plain: under memory "
				 "pressure its rescuer may wait forever\n"));
	destroy_workqueue(reclaim_wq);
	destroy_workqueue(plain_wq);
}

/* ---- timers: del_timer_sync() waits for the callback ----------------------- */

static DEFINE_SPINLOCK(dts_lock);
static DEFINE_SPINLOCK(dts_late_lock);
static DEFINE_SPINLOCK(dts_fine_lock);
static DEFINE_MUTEX(dts_fine_mutex);
static struct timer_list dts_timer, dts_late_timer, dts_fine_timer;
static struct completion dts_ran;

static void dts_fn(struct timer_list *tl)
{
	spin_lock(&dts_lock); /* hard-interrupt context: interrupts are off */
	spin_unlock(&dts_lock);
	complete(&dts_ran);
}

static void dts_late_fn(struct timer_list *tl)
{
	spin_lock(&dts_late_lock);
	spin_unlock(&dts_late_lock);
	complete(&dts_ran);
}

static void dts_fine_fn(struct timer_list *tl)
{
	spin_lock(&dts_fine_lock);
	spin_unlock(&dts_fine_lock);
	complete(&dts_ran);
}

/* Arm tl on this CPU and wait until its callback has run. */
static bool fire_once(struct ktest *t, struct timer_list *tl)
{
	init_completion(&dts_ran);
	add_timer(tl, ktime_get_ns() + 1000 * NSEC_PER_USEC);
	if (wait_for_completion_timeout(&dts_ran, KT_WAIT_LIMIT_NS))
		return true;
	ktest_fail(t, __FILE__, __LINE__, "the timer callback did not run");
	return false;
}

/* The callback takes L; a thread holding L calls del_timer_sync(). Here
 * the callback has long returned, so del_timer_sync() returns at once; had
 * it been running on another CPU, it would spin on L while this thread,
 * interrupts off, spun waiting for it. */
static void del_timer_sync_under_a_lock_the_callback_takes_is_reported(struct ktest *t)
{
	char line[192];

	if (!need_validator(t))
		return;
	timer_setup(&dts_timer, dts_fn);
	if (!fire_once(t, &dts_timer)) /* the callback ran: (timer) -> L */
		return;
	ktest_expect_bugs(t, "lockdep", 1);
	unsigned long flags = spin_lock_irqsave(&dts_lock);

	del_timer_sync(&dts_timer);
	spin_unlock_irqrestore(&dts_lock, flags);
	scnprintf(line, sizeof(line),
		  "possible circular locking dependency: %s takes '&dts_timer' (timer) at "
		  "del_timer_sync_under_a_lock_the_callback_takes_is_reported",
		  current->name);
	KT_EXPECT_TRUE(t, reported(line));
	KT_EXPECT_TRUE(t, logged("while holding 'dts_lock' (spinlock)\n"));
	KT_EXPECT_TRUE(t,
		       logged("  '&dts_timer' (timer) -> 'dts_lock' (spinlock), first by irq:\n"));
	KT_EXPECT_TRUE(t, logged("] dts_fn+0x"));
	KT_EXPECT_TRUE(t, logged("(a timer is 'held' while its callback runs and 'taken' by "
				 "del_timer_sync(): it waits for the callback)\n"));
}

/* The same two paths the other way round: del_timer_sync() under L while
 * the timer is idle, then the callback's first run takes L, and is
 * reported in the interrupt handler. */
static void callback_taking_a_lock_held_around_del_timer_sync_is_reported(struct ktest *t)
{
	if (!need_validator(t))
		return;
	timer_setup(&dts_late_timer, dts_late_fn);
	unsigned long flags = spin_lock_irqsave(&dts_late_lock);

	del_timer_sync(&dts_late_timer); /* never armed: L -> (timer) */
	spin_unlock_irqrestore(&dts_late_lock, flags);
	KT_EXPECT_TRUE(t, lockdep_on());
	ktest_expect_bugs(t, "lockdep", 1);
	if (!fire_once(t, &dts_late_timer))
		return;
	KT_EXPECT_TRUE(t, reported("possible circular locking dependency: irq takes "
				   "'dts_late_lock' (spinlock) at dts_late_fn+"));
	KT_EXPECT_TRUE(t, logged("while holding '&dts_late_timer' (timer)\n"));
	KT_EXPECT_TRUE(t, logged("  'dts_late_lock' (spinlock) -> '&dts_late_timer' (timer), first "
				 "by "));
}

/* The legal pattern: the lock the callback takes is let go before
 * del_timer_sync(), and what is held across it (a mutex) the callback
 * never takes. Run twice, so that the second run goes through the chain
 * cache. */
static void del_timer_sync_after_unlocking_is_silent(struct ktest *t)
{
	if (!need_validator(t))
		return;
	timer_setup(&dts_fine_timer, dts_fine_fn);
	for (int i = 0; i < 2; i++) {
		if (!fire_once(t, &dts_fine_timer))
			return;
		mutex_lock(&dts_fine_mutex);
		unsigned long flags = spin_lock_irqsave(&dts_fine_lock);

		spin_unlock_irqrestore(&dts_fine_lock, flags);
		del_timer_sync(&dts_fine_timer);
		mutex_unlock(&dts_fine_mutex);
	}
	KT_EXPECT_TRUE(t, lockdep_on());
	KT_EXPECT_EQ(t, lockdep_held_depth(), 0);
}

/* ---- the classes of destroyed workqueues are reclaimed --------------------- */

#define CHURN_ROUNDS 10000
#define CHURN_WARMUP 100
static DEFINE_MUTEX(churn_outer);
static DEFINE_MUTEX(churn_inner);
static struct work_struct churn_work;

static void churn_fn(struct work_struct *w)
{
	mutex_lock(&churn_inner);
	mutex_unlock(&churn_inner);
}

/* One workqueue's life: its class is made, gets dependencies both ways
 * (churn_outer -> it, from a flush under churn_outer; it -> the item, from
 * running the item), and dies. */
static bool churn_once(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_ld_churn", 0, 0);

	if (!wq) {
		ktest_fail(t, __FILE__, __LINE__, "alloc_workqueue failed");
		return false;
	}
	queue_work(wq, &churn_work);
	mutex_lock(&churn_outer);
	flush_workqueue(wq);
	mutex_unlock(&churn_outer);
	flush_work(&churn_work);
	destroy_workqueue(wq);
	return true;
}

/*
 * A workqueue made and destroyed over and over must not fill the
 * validator's tables: each one's class, its dependencies, their stack
 * traces and the cached chains naming it are given back.
 *
 * The table counts are global: other CPUs may make classes, dependencies
 * and chains meanwhile (a lock taken for the first time, a new worker's
 * first chains). Those are a finite set the kernel has mostly made by now,
 * a few dozen at most; a leak of one entry per round would be CHURN_ROUNDS
 * (or fill the table: a report, and the validator off). So growth is
 * bounded by CHURN_ROUNDS / 100 (traces: that many of up to 10 return
 * addresses); the chains, also by the stale ones the cache holds until it
 * is next emptied (every 32 dead classes: 2 or 3 chains each).
 */
static void destroyed_workqueue_classes_are_reclaimed(struct ktest *t)
{
	struct lockdep_stats a, b;
	const unsigned int slack = CHURN_ROUNDS / 100;

	if (!need_validator(t))
		return;
	INIT_WORK(&churn_work, churn_fn);
	for (int i = 0; i < CHURN_WARMUP; i++)
		if (!churn_once(t))
			return;
	lockdep_get_stats(&a);
	for (int i = 0; i < CHURN_ROUNDS; i++)
		if (!churn_once(t))
			return;
	lockdep_get_stats(&b);
	KT_EXPECT_TRUE(t, lockdep_on());
	/* Others can only add to this count: at least one per round. */
	KT_EXPECT_LE(t, (unsigned long)CHURN_ROUNDS, b.classes_reclaimed - a.classes_reclaimed);
	KT_EXPECT_LE(t, b.classes, a.classes + slack);
	KT_EXPECT_LE(t, b.deps, a.deps + slack);
	KT_EXPECT_LE(t, b.chains, a.chains + 2 * slack);
	KT_EXPECT_LE(t, b.trace_ips, a.trace_ips + 10 * slack);
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
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
	ktest_expect_bugs(t, "lockdep", 1);
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

/* How many times text is in the last 16 KB of the log. */
static unsigned int times_logged(const char *text)
{
	unsigned int n = 0;

	log_buf_read(log_tail, sizeof(log_tail));
	for (const char *p = log_tail; (p = strstr(p, text)); p++)
		n++;
	return n;
}

/*
 * After a report the validator stops checking (one report, not a flood)
 * but keeps tracking, so that turning it back on finds every stack right;
 * and then it checks again, with nothing learned while it was off.
 *
 * Counts of reports: lockdep_reports() is global, but it cannot move under
 * us by more than it says here. A report is made only while the validator
 * is on, and it turns it off; only lockdep_rearm() turns it on again, and
 * only this case calls it meanwhile. So from an armed start each report
 * adds at most one: the log check that it is ours (named after this
 * thread and this case's locks) does the rest.
 */
static void report_is_once_then_rearmed(struct ktest *t)
{
	char ab[160], dc[160];

	if (!need_validator(t))
		return;
	scnprintf(ab, sizeof(ab),
		  "lockdep: possible circular locking dependency: %s takes 'once_a' (spinlock)",
		  current->name);
	scnprintf(dc, sizeof(dc),
		  "lockdep: possible circular locking dependency: %s takes 'once_c' (spinlock)",
		  current->name);
	take_two(&once_a, &once_b);
	take_two(&once_c, &once_d);
	unsigned long before = lockdep_reports();

	/* The first wrong order: reported, once, and the validator stops. */
	ktest_expect_bugs(t, "lockdep", 1);
	take_two(&once_b, &once_a);
	KT_EXPECT_FALSE(t, lockdep_on());
	KT_EXPECT_EQ(t, lockdep_reports() - before, 1);
	KT_EXPECT_EQ(t, times_logged(ab), 1);
	/* Off: the same order again, and another wrong one, go unreported... */
	take_two(&once_b, &once_a);
	KT_EXPECT_FALSE(t, lockdep_on());
	spin_lock(&once_d);
	/* ...but every lock is still tracked. */
	KT_EXPECT_EQ(t, lockdep_held_depth(), 1);
	spin_lock(&once_c);
	KT_EXPECT_EQ(t, lockdep_held_depth(), 2);
	spin_unlock(&once_c);
	spin_unlock(&once_d);
	KT_EXPECT_EQ(t, lockdep_held_depth(), 0);
	KT_EXPECT_EQ(t, lockdep_reports() - before, 1);
	KT_EXPECT_EQ(t, times_logged(ab), 1);
	KT_EXPECT_EQ(t, times_logged(dc), 0);
	/* Re-armed, it checks again: the order it saw while off was not
	 * learned, so it is reported now. */
	lockdep_rearm();
	KT_EXPECT_TRUE(t, lockdep_on());
	ktest_expect_bugs(t, "lockdep", 1);
	take_two(&once_d, &once_c);
	KT_EXPECT_FALSE(t, lockdep_on());
	KT_EXPECT_EQ(t, lockdep_reports() - before, 2);
	KT_EXPECT_EQ(t, times_logged(dc), 1);
	KT_EXPECT_TRUE(t, logged("  'once_c' (spinlock) -> 'once_d' (spinlock), first by "));
	KT_EXPECT_EQ(t, times_logged(ab), 1);
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
	    KTEST_CASE(irq_safe_to_unsafe_order_is_reported), KTEST_CASE(bh_inversion_is_reported),
	    KTEST_CASE(bh_lock_taken_with_bhs_off_is_silent),
	    KTEST_CASE(bh_safe_to_unsafe_order_is_reported),
	    KTEST_CASE(flush_under_a_lock_the_item_takes_is_reported),
	    KTEST_CASE(a_hotplug_step_flushing_work_that_takes_the_hotplug_lock_is_reported),
	    KTEST_CASE(cross_workqueue_flush_cycle_is_reported),
	    KTEST_CASE(flushing_a_later_item_of_an_ordered_wq_is_reported),
	    KTEST_CASE(self_flush_is_reported),
	    KTEST_CASE(cancel_sync_from_inside_the_item_is_reported_once),
	    KTEST_CASE(draining_from_an_own_item_is_refused),
	    KTEST_CASE(reclaim_flushing_non_reclaim_is_reported),
	    KTEST_CASE(del_timer_sync_under_a_lock_the_callback_takes_is_reported),
	    KTEST_CASE(callback_taking_a_lock_held_around_del_timer_sync_is_reported),
	    KTEST_CASE(del_timer_sync_after_unlocking_is_silent),
	    KTEST_CASE(destroyed_workqueue_classes_are_reclaimed),
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
	/* Global: another CPU can only add a report, which the runner fails
	 * the case for anyway. */
	KT_EXPECT_EQ(t, bug_reports(), before);
	INIT_WORK(&self_work, self_flush_fn);
	self_flush_result = true;
	ktest_expect_bugs(t, "lockdep", 1);
	run_once(system_wq, &self_work);
	KT_EXPECT_FALSE(t, self_flush_result);
	KT_EXPECT_TRUE(t, reported("flush_work(self_flush_fn+0x0/"));
	KT_EXPECT_TRUE(t, logged("from inside that work item would wait forever\n"));
	struct lockdep_stats st;

	lockdep_get_stats(&st);
	KT_EXPECT_FALSE(t, st.enabled);
	KT_EXPECT_EQ(t, st.classes, 0u); /* off, no CPU makes one */
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
