/* tests/kernel/test_workqueue.c - concurrency management, non-reentrancy,
 * flushing, cancelling and delayed work. */
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

#define NR_SLEEPY 64
static struct ktest_gate sleepy_gate;

/* 64 items that each block until all 64 block at once, all on one CPU:
 * another worker takes over each time one blocks, so they all overlap
 * (run one after another, the first would wait for ever: the case fails
 * by timing out, its gate opened so that they finish). */
static void blocked_items_overlap(struct ktest *t)
{
	static struct ktest_gate_work items[NR_SLEEPY];
	unsigned int cpu = cpumask_first(&cpu_online_mask);
	struct workqueue_struct *wq = alloc_workqueue("test_overlap", 0, 0);

	KT_ASSERT_NOT_NULL(t, wq);
	struct wq_pool_stats before, after;

	ktest_gate_init(&sleepy_gate);
	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &before);
	for (int i = 0; i < NR_SLEEPY; i++) {
		ktest_gate_work_init(&items[i], &sleepy_gate);
		KT_EXPECT_TRUE(t, queue_work_on(cpu, wq, &items[i].work));
	}
	KT_GATE_WAIT_ARRIVED(t, &sleepy_gate, NR_SLEEPY);
	KT_EXPECT_EQ(t, ktest_gate_passed(&sleepy_gate), 0);
	ktest_gate_works_release(items, NR_SLEEPY);
	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &after);
	KT_EXPECT_EQ(t, ktest_gate_passed(&sleepy_gate), NR_SLEEPY);
	/* Workers were created only for items that blocked: at most one each. */
	KT_EXPECT_LE(t, after.nr_created - before.nr_created, 64);
	KT_EXPECT_LE(t, 64, after.nr_executed - before.nr_executed);
	destroy_workqueue(wq);
}

static atomic_t running_now, max_running;
static volatile unsigned int bad_cpu;
static struct thread *batch_thread; /* the worker that ran the first item */
static u64 batch_nvcsw;
static int batch_breaks;	   /* items on another worker, or after it blocked */
static int batch_first_break = -1; /* the item that broke it first */
static char batch_first_worker[THREAD_NAME_LEN], batch_break_worker[THREAD_NAME_LEN];
static u64 batch_break_blocks; /* how often the first worker had blocked by then */
static atomic_t batch_seq;
/* Where the first worker was switched out when another took the batch
 * (its block, if it blocked), and its state then: what a break needs to
 * be told apart (it named the cause of the case's failures at -smp 2, a
 * second worker taking the batch after item 0: the first had gone idle,
 * the batch not yet all queued; see queue_batch()). */
#define BATCH_TRACE_DEPTH 10
static u64 batch_break_ips[BATCH_TRACE_DEPTH];
static unsigned int batch_break_nips;
static int batch_break_state;

#define BATCH_ITEMS 32

static struct workqueue_struct *batch_wq;
static struct work_struct *batch_items;
static atomic_t batch_queued; /* items queued when the first one started */
static int batch_queued_at_first = -1;

/* On the batch's CPU, in its call-function IPI (interrupts off). */
static void queue_batch(void *unused)
{
	unsigned int cpu = smp_processor_id();

	for (int i = 0; i < BATCH_ITEMS; i++) {
		queue_work_on(cpu, batch_wq, &batch_items[i]);
		atomic_inc(&batch_queued);
	}
}

/* Each item looks, as it starts, at whether the batch is still unbroken:
 * the same worker as item 0, not blocked since. Looking at the start, a
 * worker taking over finds the first one still switched out where it
 * blocked, and records where that was. */
static void cpu_bound(struct work_struct *w)
{
	int n = atomic_inc_return(&running_now), seq = atomic_inc_return(&batch_seq) - 1;

	atomic_max(&max_running, n);
	if (!batch_thread) {
		batch_queued_at_first = atomic_read(&batch_queued);
		batch_thread = current;
		batch_nvcsw = current->stats.nvcsw;
		strscpy(batch_first_worker, current->name, sizeof(batch_first_worker));
	} else if ((batch_thread != current || current->stats.nvcsw != batch_nvcsw) &&
		   !batch_breaks++) {
		batch_first_break = seq;
		strscpy(batch_break_worker, current->name, sizeof(batch_break_worker));
		batch_break_blocks = READ_ONCE(batch_thread->stats.nvcsw) - batch_nvcsw;
		if (batch_thread != current) {
			struct thread_desc d;

			sched_describe_thread(batch_thread, &d);
			batch_break_state = d.state;
			batch_break_nips = sched_thread_backtrace(batch_thread, batch_break_ips,
								  BATCH_TRACE_DEPTH);
		}
	}
	udelay(2000);
	atomic_dec(&running_now);
}

/* CPU-bound items on one CPU run one at a time, batched on one worker
 * that never blocks in between (no context switch from item to item):
 * cmwq's own rule, seen here with CPU-hog detection off (with it on, a
 * hog lets one more item start: test_workqueue_adapt.c). The rule holds for a
 * pool nothing else uses: in a shared one (cpu0's system pool, where this
 * case once ran) another worker counted as running in the pool (an earlier
 * case's item woken, a reaping item) counts as running too, and the batch
 * may stop and pass to it. So the items go to a pool of their own (a nice
 * no other workqueue uses), the case checks that the pool ran nothing
 * else, and a break says which item, which worker and how often the first
 * one blocked. */
#define BATCH_NICE 3

static void cpu_bound_items_run_one_at_a_time(struct ktest *t)
{
	static struct work_struct items[BATCH_ITEMS];
	unsigned int cpu = ktest_last_online_cpu();
	unsigned int thresh = wq_cpu_intensive_thresh_us;
	struct workqueue_struct *wq = alloc_workqueue("test_batch", 0, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	struct wq_pool_stats before, after;

	KT_ASSERT_TRUE(t, wq && attrs);
	attrs->nice = BATCH_NICE;
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	free_workqueue_attrs(attrs);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);
	atomic_set(&running_now, 0);
	atomic_set(&max_running, 0);
	atomic_set(&batch_seq, 0);
	batch_thread = NULL;
	batch_breaks = 0;
	batch_first_break = -1;
	batch_break_nips = 0;
	batch_queued_at_first = -1;
	workqueue_wq_pool_stats(wq, cpu, &before);
	for (int i = 0; i < BATCH_ITEMS; i++)
		INIT_WORK(&items[i], cpu_bound);
	batch_wq = wq;
	batch_items = items;
	atomic_set(&batch_queued, 0);
	/* All waiting before the first one runs: queued on the pool's own CPU
	 * with interrupts off, so its worker cannot start in between.
	 * (Queued from this CPU with preemption off, a host holding this vCPU
	 * after the first item let cpu's worker run it and go idle; the next
	 * queueing woke the other idle worker: batch_breaks 31 at -smp 2.) */
	KT_ASSERT_EQ(t, smp_call_function_single(cpu, queue_batch, NULL, true), 0);
	flush_workqueue(wq); /* no barrier items in the pool, as flush_work() would queue */
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	workqueue_wq_pool_stats(wq, cpu, &after);
	KT_EXPECT_EQ(t, batch_queued_at_first, BATCH_ITEMS); /* the construction held */
	KT_EXPECT_EQ(t, atomic_read(&max_running), 1);
	KT_EXPECT_EQ(t, batch_breaks, 0);
	if (batch_breaks) /* what a failure needs to be told apart */
		ktest_fail(t, __FILE__, __LINE__,
			   "item %d of %d was the first not run by %s in one go: %s ran it, %s "
			   "had blocked %lu times; the pool ran %lu items, %lu workers made",
			   batch_first_break, BATCH_ITEMS, batch_first_worker, batch_break_worker,
			   batch_first_worker, batch_break_blocks,
			   after.nr_executed - before.nr_executed,
			   after.nr_created - before.nr_created);
	if (batch_breaks && batch_break_nips) {
		printk(KERN_RAW "    # %s was %s, switched out at:\n", batch_first_worker,
		       thread_state_name(batch_break_state));
		for (unsigned int i = 0; i < batch_break_nips; i++)
			printk(KERN_RAW "    #   %pS\n", (void *)batch_break_ips[i]);
	}
	KT_EXPECT_EQ(t, after.nr_executed - before.nr_executed, BATCH_ITEMS); /* nothing else */
	destroy_workqueue(wq);
}

#define CHAIN 200
struct chain_item {
	struct work_struct work;
	struct completion done;
};
static struct chain_item chain[CHAIN];

static void chain_fn(struct work_struct *w)
{
	struct chain_item *c = container_of(w, struct chain_item, work);
	int i = (int)(c - chain);

	if (i + 1 < CHAIN)
		wait_for_completion(&chain[i + 1].done); /* waits for the next */
	complete(&c->done);
}

/* 200 items, each waiting for the one queued after it: a worker for each
 * blocked item keeps the chain moving (no deadlock at any length). */
static void dependency_chain_completes(struct ktest *t)
{
	for (int i = 0; i < CHAIN; i++) {
		INIT_WORK(&chain[i].work, chain_fn);
		init_completion(&chain[i].done);
	}
	for (int i = 0; i < CHAIN; i++)
		queue_work(system_wq, &chain[i].work);
	if (!wait_for_completion_timeout(&chain[0].done, KT_WAIT_LIMIT_NS)) {
		KT_EXPECT_TRUE(t, completion_done(&chain[0].done)); /* fails: stuck */
		for (int i = 0; i < CHAIN; i++)
			complete_all(&chain[i].done); /* let the stuck links end */
	}
	for (int i = 0; i < CHAIN; i++)
		flush_work(&chain[i].work);
}

static atomic_t reentry_inside, reentry_violations, reentry_runs;

static void reentry_fn(struct work_struct *w)
{
	if (atomic_inc_return(&reentry_inside) != 1)
		atomic_inc(&reentry_violations);
	atomic_inc(&reentry_runs);
	udelay(12000); /* over a tick: a second worker would surely overlap */
	atomic_dec(&reentry_inside);
}

static struct work_struct shared_work;
static atomic_t queued_ok;

static int hammer_queue(void *arg)
{
	/* A thread per CPU, preemptible: the workers of every CPU run too, so
	 * the item is queued on one CPU's pool while it runs on another's. */
	for (int i = 0; i < 100; i++) {
		if (queue_work(system_wq, &shared_work))
			atomic_inc(&queued_ok);
		udelay(100);
		if (i % 8 == 0)
			msleep(1);
	}
	complete(arg);
	return 0;
}

/* Queued from every CPU at once: never two executions at a time, and
 * every successful queue_work yields exactly one execution. */
static void non_reentrant_under_contention(struct ktest *t)
{
	static struct completion done[NR_CPUS];
	unsigned int cpu;

	INIT_WORK(&shared_work, reentry_fn);
	atomic_set(&reentry_violations, 0);
	atomic_set(&reentry_runs, 0);
	atomic_set(&queued_ok, 0);
	for_each_online_cpu(cpu) {
		init_completion(&done[cpu]);
		struct thread *th =
			kthread_create_on_cpu(hammer_queue, &done[cpu], cpu, "hammer/%u", cpu);

		KT_ASSERT_NOT_NULL(t, th);
		wake_up_thread(th);
		put_thread(th);
	}
	for_each_online_cpu(cpu)
		KT_EXPECT_NE(t, wait_for_completion_timeout(&done[cpu], KT_WAIT_LIMIT_NS), 0);
	flush_work(&shared_work);
	KT_EXPECT_LE(t, 2, atomic_read(&queued_ok));
	printk(KERN_RAW "    # non_reentrant: %d queued, %d ran, %d overlaps\n",
	       atomic_read(&queued_ok), atomic_read(&reentry_runs),
	       atomic_read(&reentry_violations));
	KT_EXPECT_EQ(t, atomic_read(&reentry_violations), 0);
	KT_EXPECT_EQ(t, atomic_read(&reentry_runs), atomic_read(&queued_ok));
	/* While pending (it cannot start: our CPU's pool waits for us), a
	 * second queue_work() returns false. */
	preempt_disable();
	bool first = queue_work(system_wq, &shared_work);
	bool second = queue_work(system_wq, &shared_work);

	preempt_enable();
	KT_EXPECT_TRUE(t, first);
	KT_EXPECT_FALSE(t, second);
	flush_work(&shared_work);
}

static struct ktest_timed_dwork timed;
static struct ktest_gate delayed_gate;
static struct ktest_gate_work delayed_gate_item;

/* Not run before its delay (a slow host only makes it later). Queued
 * again while pending, it is not queued twice: both queueings are made
 * with interrupts off, so its timer, armed on this CPU, cannot fire in
 * between however long the host stalls the vCPU there. Cancelled while
 * pending it never runs, whether its timer is still armed or has fired:
 * an ordered workqueue held by a gate item keeps it from running until
 * the test opens the gate, however long the host stalls us. */
static void delayed_work_is_not_early(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_ordered_workqueue("test_delayed", 0);
	unsigned long flags;
	bool queued, queued_again;

	KT_ASSERT_NOT_NULL(t, wq);
	ktest_timed_dwork_init(&timed);
	u64 t0 = ktime_get_ns();

	flags = local_irq_save();
	queued = queue_delayed_work(system_wq, &timed.dwork, 50 * NSEC_PER_MSEC);
	queued_again = queue_delayed_work(system_wq, &timed.dwork, 50 * NSEC_PER_MSEC);
	local_irq_restore(flags);
	KT_EXPECT_TRUE(t, queued);
	KT_EXPECT_FALSE(t, queued_again);
	KT_WAIT_UNTIL(t, timed.ran_at != 0);
	KT_EXPECT_TRUE(t, timed.ran_at - t0 >= 50 * NSEC_PER_MSEC);
	flush_delayed_work(&timed.dwork);

	ktest_gate_hold(wq, &delayed_gate_item, &delayed_gate);
	/* Cancelled while its timer is armed. */
	atomic_set(&timed.runs, 0);
	KT_EXPECT_TRUE(t, queue_delayed_work(wq, &timed.dwork, 30 * NSEC_PER_MSEC));
	KT_EXPECT_TRUE(t, cancel_delayed_work_sync(&timed.dwork));
	KT_EXPECT_FALSE(t, timer_pending(&timed.dwork.timer));
	/* Cancelled after its timer fired, queued behind the gate. */
	KT_EXPECT_TRUE(t, queue_delayed_work(wq, &timed.dwork, 1 * NSEC_PER_MSEC));
	KT_WAIT_UNTIL(t, !timer_pending(&timed.dwork.timer));
	KT_EXPECT_TRUE(t, work_pending(&timed.dwork.work));
	KT_EXPECT_TRUE(t, cancel_delayed_work_sync(&timed.dwork));
	KT_EXPECT_FALSE(t, delayed_work_pending(&timed.dwork));
	ktest_gate_open(&delayed_gate);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, atomic_read(&timed.runs), 0);
	destroy_workqueue(wq);
}

static struct work_struct self_requeue;
static atomic_t requeue_runs;

static void requeue_fn(struct work_struct *w)
{
	atomic_inc(&requeue_runs);
	udelay(100);
	queue_work(system_wq, w); /* forever, until cancelled */
}

static void cancel_stops_a_self_requeueing_item(struct ktest *t)
{
	INIT_WORK(&self_requeue, requeue_fn);
	atomic_set(&requeue_runs, 0);
	queue_work(system_wq, &self_requeue);
	KT_WAIT_UNTIL(t, atomic_read(&requeue_runs) >= 20);
	cancel_work_sync(&self_requeue);
	int runs = atomic_read(&requeue_runs);

	/* Neither queued nor running once cancel_work_sync() returned: no
	 * later run can come (a flush of an idle item returns at once). */
	KT_EXPECT_FALSE(t, work_pending(&self_requeue));
	KT_EXPECT_EQ(t, work_busy(&self_requeue), 0);
	KT_EXPECT_FALSE(t, flush_work(&self_requeue));
	KT_EXPECT_EQ(t, atomic_read(&requeue_runs), runs);
}

/* An item queued again while it runs on one CPU, from another CPU: the
 * second run waits for the first to end (never two at once), and it does
 * run, exactly once more. The first run is held by a gate the test opens,
 * so the requeue happens while it runs by construction. */
static struct work_struct gated_item;
static struct ktest_gate gated_release;
static atomic_t gated_inside, gated_overlaps, gated_runs;
static volatile unsigned int gated_first_cpu;

static void gated_fn(struct work_struct *w)
{
	if (atomic_inc_return(&gated_inside) != 1)
		atomic_inc(&gated_overlaps);
	if (atomic_inc_return(&gated_runs) == 1) {
		gated_first_cpu = smp_processor_id();
		ktest_gate_pass(&gated_release);
	}
	atomic_dec(&gated_inside);
}

static void requeue_while_running_waits_for_the_first_run(struct ktest *t)
{
	unsigned int a = cpumask_first(&cpu_online_mask), b = cpumask_any_but(&cpu_online_mask, a);

	if (!ktest_need_cpus(t, 2))
		return;
	INIT_WORK(&gated_item, gated_fn);
	ktest_gate_init(&gated_release);
	atomic_set(&gated_inside, 0);
	atomic_set(&gated_overlaps, 0);
	atomic_set(&gated_runs, 0);
	KT_EXPECT_TRUE(t, queue_work_on(a, system_wq, &gated_item));
	if (KT_WAIT_UNTIL(t, atomic_read(&gated_runs) == 1)) {
		KT_EXPECT_EQ(t, gated_first_cpu, a);
		KT_EXPECT_EQ(t, work_busy(&gated_item), WORK_BUSY_RUNNING);
		/* Running, not pending: it may be queued again, here on b. */
		KT_EXPECT_TRUE(t, queue_work_on(b, system_wq, &gated_item));
		KT_EXPECT_FALSE(t, queue_work_on(b, system_wq, &gated_item)); /* now pending */
		/* b's pool is free, yet the second run waits for the first: it
		 * is handed to the worker running it on a, or held back. */
		for (int i = 0; i < 20; i++)
			msleep(1);
		KT_EXPECT_EQ(t, atomic_read(&gated_runs), 1);
	}
	ktest_gate_open(&gated_release);
	flush_work(&gated_item);
	KT_EXPECT_EQ(t, atomic_read(&gated_runs), 2);
	KT_EXPECT_EQ(t, atomic_read(&gated_overlaps), 0);
	KT_EXPECT_EQ(t, work_busy(&gated_item), 0);
}

static struct work_struct who_am_i;
static struct work_struct *seen_current;

static void who_fn(struct work_struct *w)
{
	seen_current = current_work();
}

static void current_work_and_misuse(struct ktest *t)
{
	struct work_struct never_initialised = { 0 };

	INIT_WORK(&who_am_i, who_fn);
	queue_work(system_highpri_wq, &who_am_i);
	flush_work(&who_am_i);
	KT_EXPECT_TRUE(t, seen_current == &who_am_i);
	KT_EXPECT_TRUE(t, current_work() == NULL);
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1);
	KT_EXPECT_FALSE(t, queue_work(system_wq, &never_initialised));
	KT_EXPECT_FALSE(t, queue_work(system_wq, &never_initialised)); /* warned once */
}

static atomic_t limited_running, limited_max;

static void limited_fn(struct work_struct *w)
{
	int n = atomic_inc_return(&limited_running);

	atomic_max(&limited_max, n);
	msleep(2);
	atomic_dec(&limited_running);
}

/* max_active=2: never more than 2 items of the workqueue at once, even
 * while they block; flushing an item still waiting for a slot works. */
static void max_active_is_never_exceeded(struct ktest *t)
{
	static struct work_struct items[16];
	struct workqueue_struct *wq = alloc_workqueue("test_limit", 0, 2);
	unsigned int cpu = cpumask_first(&cpu_online_mask);

	KT_ASSERT_NOT_NULL(t, wq);
	atomic_set(&limited_max, 0);
	for (int i = 0; i < 16; i++) {
		INIT_WORK(&items[i], limited_fn);
		queue_work_on(cpu, wq, &items[i]);
	}
	flush_work(&items[15]); /* the last one: inactive when flushed */
	for (int i = 0; i < 16; i++)
		flush_work(&items[i]);
	KT_EXPECT_EQ(t, atomic_read(&limited_max), 2);
	destroy_workqueue(wq);
}

KTEST_SUITE(workqueue, KTEST_CASE(max_active_is_never_exceeded), KTEST_CASE(blocked_items_overlap),
	    KTEST_CASE(cpu_bound_items_run_one_at_a_time), KTEST_CASE(dependency_chain_completes),
	    KTEST_CASE(non_reentrant_under_contention), KTEST_CASE(delayed_work_is_not_early),
	    KTEST_CASE(cancel_stops_a_self_requeueing_item),
	    KTEST_CASE(requeue_while_running_waits_for_the_first_run),
	    KTEST_CASE(current_work_and_misuse));
