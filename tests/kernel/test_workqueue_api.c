/* tests/kernel/test_workqueue_api.c - the rest of the workqueue API:
 * ordered and unbound workqueues, attributes, max_active, flush colours,
 * drain, mod/flush/cancel of delayed work, rescuers, freezing, highpri and
 * CPU-intensive items, idle reaping, references, misuse and the dump. */
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/fault_inject.h"
#include "kernel/tools/ktest.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

/* Run fn(i, arg) for i < n, each in its own thread, thread i on the i-th
 * online CPU (round robin); return when all are done. */
struct par {
	void (*fn)(int idx, void *arg);
	void *arg;
	int idx;
	struct completion done;
};

static int par_thread(void *a)
{
	struct par *p = a;

	p->fn(p->idx, p->arg);
	complete(&p->done);
	return 0;
}

static bool run_parallel(int n, void (*fn)(int idx, void *arg), void *arg)
{
	struct par *p = kzalloc(sizeof(*p) * n);
	unsigned int cpu = cpumask_first(&cpu_online_mask);
	bool ok = true;

	if (!p)
		return false;
	for (int i = 0; i < n; i++) {
		p[i] = (struct par){ .fn = fn, .arg = arg, .idx = i };
		init_completion(&p[i].done);
		struct thread *th = kthread_create_on_cpu(par_thread, &p[i], cpu, "wqtest/%d", i);

		if (!th) {
			complete(&p[i].done);
			ok = false;
		} else {
			wake_up_thread(th);
			put_thread(th);
		}
		cpu = cpumask_next_wrap(cpu, &cpu_online_mask);
	}
	for (int i = 0; i < n; i++)
		if (!wait_for_completion_timeout(&p[i].done, KT_WAIT_LIMIT_NS))
			ok = false; /* leaks p: better than a use after free */
	if (ok)
		kfree(p);
	return ok;
}

/* ---- ordered workqueues ------------------------------------------------- */

#define ORD_PER_CPU 100
#define ORD_MAX	    (ORD_PER_CPU * 8)
struct ord_item {
	struct work_struct work;
	int seq;
};
static struct ord_item ord_items[ORD_MAX];
static int ord_next; /* ord_lock */
static DEFINE_SPINLOCK(ord_lock);
static atomic_t ord_exec, ord_running, ord_max, ord_bad;
static int ord_order[ORD_MAX];
static struct workqueue_struct *ord_wq;

static void ord_fn(struct work_struct *w)
{
	struct ord_item *it = container_of(w, struct ord_item, work);

	atomic_max(&ord_max, atomic_inc_return(&ord_running));
	ord_order[atomic_inc_return(&ord_exec) - 1] = it->seq;
	if (it->seq % 16 == 0)
		msleep(1); /* under load: some block */
	atomic_dec(&ord_running);
}

static void ord_producer(int idx, void *arg)
{
	int n = *(int *)arg;

	for (int i = 0; i < ORD_PER_CPU && i * n + idx < ORD_MAX; i++) {
		unsigned long flags = spin_lock_irqsave(&ord_lock);
		struct ord_item *it = &ord_items[ord_next];

		it->seq = ord_next++;
		INIT_WORK(&it->work, ord_fn);
		if (!queue_work(ord_wq, &it->work))
			atomic_inc(&ord_bad);
		spin_unlock_irqrestore(&ord_lock, flags);
		udelay(20);
	}
}

/* Items queued from every CPU run one at a time, in queueing order. */
static void ordered_keeps_strict_order_from_all_cpus(struct ktest *t)
{
	int n = (int)min(num_online_cpus(), 8u);

	ord_wq = alloc_ordered_workqueue("test_ordered", 0);
	KT_ASSERT_NOT_NULL(t, ord_wq);
	ord_next = 0;
	atomic_set(&ord_exec, 0);
	atomic_set(&ord_running, 0);
	atomic_set(&ord_max, 0);
	atomic_set(&ord_bad, 0);
	KT_EXPECT_TRUE(t, run_parallel(n, ord_producer, &n));
	flush_workqueue(ord_wq);
	KT_EXPECT_EQ(t, atomic_read(&ord_bad), 0);
	KT_EXPECT_EQ(t, atomic_read(&ord_exec), ord_next);
	KT_EXPECT_EQ(t, atomic_read(&ord_max), 1);
	int out_of_order = 0;

	for (int i = 0; i < ord_next; i++)
		if (ord_order[i] != i)
			out_of_order++;
	KT_EXPECT_EQ(t, out_of_order, 0);
	/* max_active cannot be changed on an ordered workqueue. */
	ktest_expect_warnings(t, "kernel/workqueue/pool.c", 1);
	workqueue_set_max_active(ord_wq, 4);
	destroy_workqueue(ord_wq);
}

/* ---- max_active changes ------------------------------------------------- */

static atomic_t lim_running, lim_max;
static struct ktest_gate lim_gate; /* the items wait at it */

static void lim_fn(struct work_struct *w)
{
	atomic_max(&lim_max, atomic_inc_return(&lim_running));
	ktest_gate_pass(&lim_gate);
	atomic_dec(&lim_running);
}

/* Raising max_active lets waiting items in at once, up to the new limit:
 * every item holds at a gate the case opens, so the count of items running
 * at once is reached by construction, however slow the host. */
static void set_max_active_takes_effect(struct ktest *t)
{
	static struct work_struct items[16];
	struct workqueue_struct *wq = alloc_workqueue("test_setmax", 0, 1);
	unsigned int cpu = cpumask_first(&cpu_online_mask);

	KT_ASSERT_NOT_NULL(t, wq);
	atomic_set(&lim_running, 0);
	atomic_set(&lim_max, 0);
	ktest_gate_init(&lim_gate);
	for (int i = 0; i < 16; i++) {
		INIT_WORK(&items[i], lim_fn);
		queue_work_on(cpu, wq, &items[i]);
	}
	KT_GATE_WAIT_ARRIVED(t, &lim_gate, 1);
	workqueue_set_max_active(wq, 4);
	KT_GATE_WAIT_ARRIVED(t, &lim_gate, 4);
	ktest_gate_open(&lim_gate);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, atomic_read(&lim_max), 4);
	destroy_workqueue(wq);
}

/* ---- unbound workqueues and attributes ---------------------------------- */

static void unbound_attrs_place_and_prioritise_workers(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_unbound", WQ_UNBOUND, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	static struct ktest_where wh[8];
	unsigned int cpu = ktest_last_online_cpu();

	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_NOT_NULL(t, attrs);
	/* The system unbound workqueue runs items on unbound workers. */
	ktest_where_init(&wh[0], NULL);
	queue_work(system_unbound_wq, &wh[0].work);
	flush_work(&wh[0].work);
	KT_EXPECT_EQ(t, strncmp(wh[0].name, "kworker/u", 9), 0);

	attrs->nice = 5;
	cpumask_copy(&attrs->cpumask, cpumask_of(cpu));
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	for (int i = 0; i < 8; i++) {
		ktest_where_init(&wh[i], NULL);
		queue_work(wq, &wh[i].work);
	}
	flush_workqueue(wq);
	for (int i = 0; i < 8; i++) {
		KT_EXPECT_EQ(t, wh[i].cpu, cpu);
		KT_EXPECT_EQ(t, wh[i].nice, 5);
	}
	struct workqueue_attrs got;

	workqueue_get_attrs(wq, &got);
	KT_EXPECT_EQ(t, got.nice, 5);
	/* Bad attributes are refused with a message, and change nothing. */
	attrs->nice = 30;
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	attrs->nice = 0;
	cpumask_clear(&attrs->cpumask);
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	KT_EXPECT_EQ(t, apply_workqueue_attrs(system_wq, attrs), -EINVAL);
	workqueue_get_attrs(wq, &got);
	KT_EXPECT_EQ(t, got.nice, 5);
	destroy_workqueue(wq);
	free_workqueue_attrs(attrs);
}

/* ---- delayed work ------------------------------------------------------- */

static struct ktest_timed_dwork timed;
static struct ktest_gate dgate;
static struct ktest_gate_work dgate_item;

/* mod_delayed_work re-arms a pending item for delay from the call, earlier
 * or later. Checked without racing the clock: "not before" holds however
 * slow the host, the earlier deadline is read from the armed timer, and
 * an ordered workqueue held by a gate item keeps the 10 ms item from
 * running before the test moves it, however long the host stalls us. */
static void mod_delayed_work_moves_the_deadline(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_ordered_workqueue("test_moddelay", 0);

	KT_ASSERT_NOT_NULL(t, wq);
	ktest_timed_dwork_init(&timed);
	/* Earlier: from 10 s to 20 ms. */
	u64 t0 = ktime_get_ns();

	KT_EXPECT_FALSE(t, mod_delayed_work(system_wq, &timed.dwork, 10 * NSEC_PER_SEC)); /* was
											     idle */
	KT_EXPECT_TRUE(t, mod_delayed_work(system_wq, &timed.dwork, 20 * NSEC_PER_MSEC)); /* pending
											   */
	u64 t1 = ktime_get_ns(), expires = READ_ONCE(timed.dwork.timer.expires);

	KT_EXPECT_LE(t, t0 + 20 * NSEC_PER_MSEC, expires);
	KT_EXPECT_LE(t, expires, t1 + 20 * NSEC_PER_MSEC); /* not the 10 s one */
	KT_WAIT_UNTIL(t, timed.ran_at != 0);
	KT_EXPECT_LE(t, t0 + 20 * NSEC_PER_MSEC, timed.ran_at);
	flush_delayed_work(&timed.dwork);
	KT_EXPECT_EQ(t, atomic_read(&timed.runs), 1);
	/* Later: from 10 ms to 200 ms; not run before. */
	ktest_gate_hold(wq, &dgate_item, &dgate);
	ktest_timed_dwork_reset(&timed);
	KT_EXPECT_TRUE(t, queue_delayed_work(wq, &timed.dwork, 10 * NSEC_PER_MSEC));
	t0 = ktime_get_ns();
	/* Pending: still on its timer, or queued behind the gate. */
	KT_EXPECT_TRUE(t, mod_delayed_work(wq, &timed.dwork, 200 * NSEC_PER_MSEC));
	ktest_gate_open(&dgate);
	KT_WAIT_UNTIL(t, timed.ran_at != 0);
	KT_EXPECT_LE(t, t0 + 200 * NSEC_PER_MSEC, timed.ran_at);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, atomic_read(&timed.runs), 1);
	/* flush_delayed_work runs a 200 ms item now, not when it is due: it
	 * has run when the flush returns (the flush's return value is not
	 * checked: queued at once, it may already have run on another CPU
	 * by the time the flush looks). */
	KT_EXPECT_TRUE(t, queue_delayed_work(wq, &timed.dwork, 200 * NSEC_PER_MSEC));
	flush_delayed_work(&timed.dwork);
	KT_EXPECT_EQ(t, atomic_read(&timed.runs), 2);
	KT_EXPECT_FALSE(t, timer_pending(&timed.dwork.timer));
	destroy_workqueue(wq);
	/* flush_delayed_work runs a far-off item at once. */
	atomic_set(&timed.runs, 0);
	queue_delayed_work(system_wq, &timed.dwork, 100 * NSEC_PER_SEC);
	flush_delayed_work(&timed.dwork); /* (its return value: see above) */
	KT_EXPECT_EQ(t, atomic_read(&timed.runs), 1);
	/* cancel_delayed_work (non-sync) of an armed item. */
	queue_delayed_work(system_wq, &timed.dwork, 100 * NSEC_PER_SEC);
	KT_EXPECT_TRUE(t, cancel_delayed_work(&timed.dwork));
	KT_EXPECT_FALSE(t, cancel_delayed_work(&timed.dwork));
	KT_EXPECT_FALSE(t, delayed_work_pending(&timed.dwork));
}

static struct delayed_work self_dwork;
static atomic_t self_dwork_runs;

static void self_dwork_fn(struct work_struct *w)
{
	atomic_inc(&self_dwork_runs);
	queue_delayed_work(system_wq, to_delayed_work(w), NSEC_PER_MSEC);
}

static void cancel_delayed_stops_a_self_requeueing_item(struct ktest *t)
{
	INIT_DELAYED_WORK(&self_dwork, self_dwork_fn);
	atomic_set(&self_dwork_runs, 0);
	queue_delayed_work(system_wq, &self_dwork, 0);
	KT_WAIT_UNTIL(t, atomic_read(&self_dwork_runs) >= 10);
	cancel_delayed_work_sync(&self_dwork);
	int runs = atomic_read(&self_dwork_runs);

	/* Returned: no timer armed, nothing queued or running, so no later
	 * run can come. */
	KT_EXPECT_LE(t, 10, runs);
	KT_EXPECT_FALSE(t, delayed_work_pending(&self_dwork));
	KT_EXPECT_FALSE(t, timer_pending(&self_dwork.timer));
	KT_EXPECT_EQ(t, work_busy(&self_dwork.work), 0);
	KT_EXPECT_EQ(t, atomic_read(&self_dwork_runs), runs);
}

/* ---- flushing ----------------------------------------------------------- */

#define RACE_ITEMS 1500
static struct work_struct race_items[RACE_ITEMS];
static volatile bool race_done[RACE_ITEMS];
static volatile int race_queued;
static volatile bool race_stop;
static struct workqueue_struct *race_wq;

static void race_fn(struct work_struct *w)
{
	if ((w - race_items) % 8 == 0)
		msleep(1);
	race_done[w - race_items] = true;
}

static void race_producer(int idx, void *arg)
{
	for (int i = 0; i < RACE_ITEMS && !race_stop; i++) {
		INIT_WORK(&race_items[i], race_fn);
		queue_work(race_wq, &race_items[i]);
		WRITE_ONCE(race_queued, i + 1);
		if (i % 4 == 0)
			msleep(1);
	}
}

static int race_thread(void *arg)
{
	race_producer(0, NULL);
	complete(arg);
	return 0;
}

/* A flush waits for what was queued before it and is not held up by what
 * is queued after (a producer keeps queueing all along). */
static void flush_races_with_queueing(struct ktest *t)
{
	struct completion producer_done;
	int missing = 0, flushes = 0;

	race_wq = alloc_workqueue("test_flushrace", 0, 0);
	KT_ASSERT_NOT_NULL(t, race_wq);
	race_queued = 0;
	race_stop = false;
	for (int i = 0; i < RACE_ITEMS; i++)
		race_done[i] = false;
	init_completion(&producer_done);
	struct thread *th = kthread_run(race_thread, &producer_done, "wqtest-producer");

	KT_ASSERT_NOT_NULL(t, th);
	put_thread(th);
	while (READ_ONCE(race_queued) < RACE_ITEMS && flushes < 30) {
		int before = READ_ONCE(race_queued);

		flush_workqueue(race_wq);
		flushes++;
		for (int i = 0; i < before; i++)
			if (!race_done[i])
				missing++;
		msleep(3);
	}
	race_stop = true;
	KT_EXPECT_NE(t, wait_for_completion_timeout(&producer_done, KT_WAIT_LIMIT_NS), 0);
	flush_workqueue(race_wq);
	KT_EXPECT_EQ(t, missing, 0);
	KT_EXPECT_LE(t, 2, flushes);
	destroy_workqueue(race_wq);
}

#define NR_FLUSHERS 20
static struct workqueue_struct *fl_wq;
static struct ktest_gate fl_gate;
static struct ktest_gate_work fl_gate_work;
static struct work_struct fl_items[NR_FLUSHERS];
static volatile bool fl_done[NR_FLUSHERS];
static atomic_t fl_bad, fl_returned;

static void fl_item_fn(struct work_struct *w)
{
	msleep(1);
	fl_done[w - fl_items] = true;
}

static void flusher(int idx, void *arg)
{
	INIT_WORK(&fl_items[idx], fl_item_fn);
	queue_work(fl_wq, &fl_items[idx]);
	flush_workqueue(fl_wq);
	if (!fl_done[idx] || !ktest_gate_is_open(&fl_gate))
		atomic_inc(&fl_bad);
	atomic_inc(&fl_returned);
}

static void gate_opener(int idx, void *arg)
{
	struct wq_stats st;
	u64 deadline = 0;

	if (idx < NR_FLUSHERS) {
		flusher(idx, arg);
		return;
	}
	/* Open the gate once every colour is taken (the case checks that this
	 * happened; the bound only keeps a regression from hanging). */
	do {
		workqueue_wq_stats(fl_wq, &st);
	} while (!st.nr_flush_overflows && ktest_wait_poll(&deadline));
	ktest_gate_open(&fl_gate);
}

/* More concurrent flushers than colours: an item holds the oldest colour
 * until all 20 flushers wait, so some must wait for a colour; all return,
 * none before its own item ran. */
static void twenty_concurrent_flushers(struct ktest *t)
{
	struct wq_stats st;

	fl_wq = alloc_workqueue("test_flushers", 0, 0);
	KT_ASSERT_NOT_NULL(t, fl_wq);
	ktest_gate_init(&fl_gate);
	atomic_set(&fl_bad, 0);
	atomic_set(&fl_returned, 0);
	for (int i = 0; i < NR_FLUSHERS; i++)
		fl_done[i] = false;
	ktest_gate_work_init(&fl_gate_work, &fl_gate);
	queue_work(fl_wq, &fl_gate_work.work);
	KT_EXPECT_TRUE(t, run_parallel(NR_FLUSHERS + 1, gate_opener, NULL));
	KT_EXPECT_EQ(t, atomic_read(&fl_returned), NR_FLUSHERS);
	KT_EXPECT_EQ(t, atomic_read(&fl_bad), 0);
	workqueue_wq_stats(fl_wq, &st);
	KT_EXPECT_LE(t, 1, st.nr_flush_overflows);
	destroy_workqueue(fl_wq);
}

#define CHAIN_LEN 40
static struct workqueue_struct *drain_wq;
static struct work_struct drain_chain, outsider;
static atomic_t drain_links;
static struct completion drain_started, drain_finished;
static struct ktest_gate drain_gate;

static void drain_chain_fn(struct work_struct *w)
{
	if (atomic_read(&drain_links) == 0)
		ktest_gate_pass(&drain_gate); /* the chain waits for the test */
	msleep(2);
	if (atomic_inc_return(&drain_links) < CHAIN_LEN)
		queue_work(drain_wq, w); /* chained: allowed while draining */
}

static void outsider_fn(struct work_struct *w)
{
}

static int drainer(void *arg)
{
	complete(&drain_started);
	drain_workqueue(drain_wq);
	complete(&drain_finished);
	return 0;
}

/* drain_workqueue waits for chains to end; meanwhile outsiders are refused.
 * The chain's first link waits at a gate until the test has tried the
 * outsider, so the drain is in progress then by construction: the drainer
 * has started flushing (nr_flushes moved, after it counted itself as a
 * drainer) and cannot finish while the gate is shut. */
static void drain_waits_for_chained_work(struct ktest *t)
{
	struct wq_stats st;

	drain_wq = alloc_workqueue("test_drain", 0, 0);
	KT_ASSERT_NOT_NULL(t, drain_wq);
	atomic_set(&drain_links, 0);
	init_completion(&drain_started);
	init_completion(&drain_finished);
	ktest_gate_init(&drain_gate);
	INIT_WORK(&drain_chain, drain_chain_fn);
	INIT_WORK(&outsider, outsider_fn);
	queue_work(drain_wq, &drain_chain);
	workqueue_wq_stats(drain_wq, &st);
	u64 flushes = st.nr_flushes;
	struct thread *th = kthread_run(drainer, NULL, "wqtest-drainer");

	KT_ASSERT_NOT_NULL(t, th);
	put_thread(th);
	KT_WAIT_UNTIL(t, (workqueue_wq_stats(drain_wq, &st), st.nr_flushes > flushes));
	KT_EXPECT_FALSE(t, completion_done(&drain_finished));
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1);
	KT_EXPECT_FALSE(t, queue_work(drain_wq, &outsider));
	KT_EXPECT_FALSE(t, work_pending(&outsider));
	ktest_gate_open(&drain_gate);
	KT_EXPECT_NE(t, wait_for_completion_timeout(&drain_finished, KT_WAIT_LIMIT_NS), 0);
	KT_EXPECT_EQ(t, atomic_read(&drain_links), CHAIN_LEN);
	/* Drained, it takes work again. */
	KT_EXPECT_TRUE(t, queue_work(drain_wq, &outsider));
	flush_work(&outsider);
	destroy_workqueue(drain_wq);
}

/* ---- misuse ------------------------------------------------------------- */

static struct workqueue_struct *own_wq;
static struct work_struct own_first, own_second;
static volatile bool own_second_ran;

static struct completion own_second_queued;

static void own_first_fn(struct work_struct *w)
{
	/* The ordered workqueue is unbound: this may start on another CPU
	 * before the test queued own_second. Wait until it has. */
	wait_for_completion(&own_second_queued);
	flush_workqueue(own_wq); /* would wait for itself: refused */
	flush_work(&own_second); /* queued behind us, ordered: refused */
}

static void own_second_fn(struct work_struct *w)
{
	own_second_ran = true;
}

static void flush_from_own_ordered_item_is_refused(struct ktest *t)
{
	own_wq = alloc_ordered_workqueue("test_ownflush", 0);
	KT_ASSERT_NOT_NULL(t, own_wq);
	own_second_ran = false;
	INIT_WORK(&own_first, own_first_fn);
	INIT_WORK(&own_second, own_second_fn);
	init_completion(&own_second_queued);
	/* One "BUG: lockdep:" report each: the validator's, or the fast
	 * path's in the same form once the validator is off after the first
	 * (or with lockdep=0). */
	ktest_expect_bugs(t, "lockdep", 2);
	queue_work(own_wq, &own_first);
	queue_work(own_wq, &own_second);
	complete(&own_second_queued); /* both queued before the first flushes */
	flush_workqueue(own_wq);
	KT_EXPECT_TRUE(t, own_second_ran);
	destroy_workqueue(own_wq);
}

static struct ktest_gate busy_gate;
static struct ktest_gate_work busy_item;
static struct work_struct busy_queued;
static volatile bool busy_queued_ran;

static void busy_queued_fn(struct work_struct *w)
{
	busy_queued_ran = true;
}

static struct workqueue_struct *busy_wq;
static u64 busy_flushes; /* busy_wq's nr_flushes before destroy_workqueue */

/* Opens the gate once destroy_workqueue is draining (it flushes, after it
 * judged the workqueue busy), never before, however the host runs us. */
static int releaser(void *arg)
{
	struct wq_stats st;
	u64 deadline = 0;

	do {
		workqueue_wq_stats(busy_wq, &st);
	} while (st.nr_flushes == busy_flushes && ktest_wait_poll(&deadline));
	ktest_gate_open(arg);
	return 0;
}

/* Destroying a busy workqueue warns, drains it, and frees it; queueing to
 * it afterwards is refused (the freed memory is poisoned). work_busy()
 * tells running from pending. */
static void destroy_busy_workqueue_warns_and_drains(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_destroy", 0, 1);
	unsigned int cpu = cpumask_first(&cpu_online_mask);

	KT_ASSERT_NOT_NULL(t, wq);
	ktest_gate_init(&busy_gate);
	busy_queued_ran = false;
	ktest_gate_work_init(&busy_item, &busy_gate);
	INIT_WORK(&busy_queued, busy_queued_fn);
	queue_work_on(cpu, wq, &busy_item.work);
	queue_work_on(cpu, wq, &busy_queued); /* inactive: max_active 1 */
	KT_WAIT_UNTIL(t, work_busy(&busy_item.work) & WORK_BUSY_RUNNING);
	KT_EXPECT_EQ(t, work_busy(&busy_item.work), WORK_BUSY_RUNNING);
	KT_EXPECT_EQ(t, work_busy(&busy_queued), WORK_BUSY_PENDING);
	struct wq_stats st;

	workqueue_wq_stats(wq, &st);
	busy_wq = wq;
	busy_flushes = st.nr_flushes;
	struct thread *th = kthread_run(releaser, &busy_gate, "wqtest-release");

	KT_ASSERT_NOT_NULL(t, th);
	put_thread(th);
	ktest_expect_warnings(t, "kernel/workqueue/pool.c", 1);	 /* destroying it busy */
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1); /* queueing to it after */
	destroy_workqueue(wq);
	KT_EXPECT_TRUE(t, busy_queued_ran);
	KT_EXPECT_EQ(t, work_busy(&busy_item.work), 0);
	KT_EXPECT_FALSE(t, queue_work(wq, &busy_queued)); /* destroyed */
}

/* A freed item is refused, not run. */
static void queueing_a_freed_item_is_refused(struct ktest *t)
{
	struct work_struct *w = kmalloc(sizeof(*w));

	KT_ASSERT_NOT_NULL(t, w);
	INIT_WORK(w, outsider_fn);
	kfree(w);
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1);
	KT_EXPECT_FALSE(t, queue_work(system_wq, w));
}

/* A CPU number that is not possible is reported and the item still runs,
 * as if queued with WORK_CPU_UNBOUND; one that is possible is taken. */
static volatile int bad_cpu_runs;

static void bad_cpu_fn(struct work_struct *w)
{
	bad_cpu_runs++;
}

static void queueing_on_an_impossible_cpu_is_reported(struct ktest *t)
{
	struct work_struct w;
	struct delayed_work dw;
	unsigned int beyond = NR_CPUS;

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		if (!cpumask_test_cpu(cpu, &cpu_possible_mask))
			beyond = cpu; /* -smp below NR_CPUS: the last one left out */
	if (beyond == NR_CPUS)
		beyond = NR_CPUS + 1; /* NR_CPUS itself is WORK_CPU_UNBOUND */
	bad_cpu_runs = 0;
	INIT_WORK(&w, bad_cpu_fn);
	INIT_DELAYED_WORK(&dw, bad_cpu_fn);
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1); /* (each re-arms the WARN_ONCE) */
	KT_EXPECT_TRUE(t, queue_work_on(beyond, system_wq, &w));
	flush_work(&w);
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1);
	KT_EXPECT_TRUE(t, queue_delayed_work_on(~0u, system_wq, &dw, 1000 * NSEC_PER_USEC));
	flush_delayed_work(&dw);
	ktest_expect_warnings(t, "kernel/workqueue/queue.c", 1);
	KT_EXPECT_FALSE(t, mod_delayed_work_on(beyond + 1000, system_wq, &dw, 0));
	flush_delayed_work(&dw);
	KT_EXPECT_EQ(t, bad_cpu_runs, 3);
	/* Every possible CPU, online or not, is taken without a word. */
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		KT_EXPECT_TRUE(t, queue_work_on(cpu, system_wq, &w));
		flush_work(&w);
	}
	KT_EXPECT_EQ(t, bad_cpu_runs, 3 + (int)cpumask_weight(&cpu_possible_mask));
}

/* ---- references --------------------------------------------------------- */

struct refd {
	struct work_struct work;
	atomic_t refs, gets, runs;
	bool requeue_once;
};

static void refd_get(struct work_struct *w)
{
	struct refd *r = container_of(w, struct refd, work);

	atomic_inc(&r->refs);
	atomic_inc(&r->gets);
}

static void refd_put(struct work_struct *w)
{
	atomic_dec(&container_of(w, struct refd, work)->refs);
}

static void refd_fn(struct work_struct *w)
{
	struct refd *r = container_of(w, struct refd, work);

	atomic_inc(&r->runs);
	if (atomic_read(&r->refs) < 1)
		atomic_set(&r->runs, -1000); /* running without a reference */
	if (r->requeue_once) {
		r->requeue_once = false;
		queue_work(system_wq, w);
	}
}

/* The workqueue holds a reference while an item is queued or running. */
static void references_are_held_while_queued_or_running(struct ktest *t)
{
	static struct refd r;

	INIT_WORK(&r.work, refd_fn);
	work_set_refs(&r.work, refd_get, refd_put);
	atomic_set(&r.refs, 0);
	atomic_set(&r.gets, 0);
	atomic_set(&r.runs, 0);
	r.requeue_once = true;
	queue_work(system_wq, &r.work);
	flush_work(&r.work);
	flush_work(&r.work); /* the requeued run */
	KT_EXPECT_EQ(t, atomic_read(&r.runs), 2);
	KT_EXPECT_EQ(t, atomic_read(&r.gets), 2);
	KT_EXPECT_EQ(t, atomic_read(&r.refs), 0);
	/* Cancelled while queued: the reference is dropped. */
	preempt_disable();
	queue_work(system_wq, &r.work);
	KT_EXPECT_EQ(t, atomic_read(&r.refs), 1);
	KT_EXPECT_TRUE(t, cancel_work(&r.work));
	preempt_enable();
	KT_EXPECT_EQ(t, atomic_read(&r.refs), 0);
	KT_EXPECT_EQ(t, atomic_read(&r.runs), 2);
}

/* ---- rescuer ------------------------------------------------------------ */

#define NR_BLOCKERS_EXTRA 3
static struct ktest_gate rescue_gate;
static struct ktest_gate_work *blockers;
static struct work_struct rescue_item;
static volatile bool rescue_ran_in_rescuer;

static void rescue_fn(struct work_struct *w)
{
	rescue_ran_in_rescuer = strncmp(current->name, "kworker/R-", 10) == 0;
	ktest_gate_open(&rescue_gate);
}

/* With worker creation failing, every worker of a pool is blocked on an
 * item that waits for a WQ_MEM_RECLAIM item queued behind them: only its
 * rescuer can run it, and it does. */
static void rescuer_makes_progress_when_workers_cannot_be_created(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_reclaim", WQ_MEM_RECLAIM, 0);
	unsigned int cpu = ktest_last_online_cpu();
	struct wq_pool_stats before, after;
	struct wq_stats st;

	KT_ASSERT_NOT_NULL(t, wq);
	ktest_gate_init(&rescue_gate);
	rescue_ran_in_rescuer = false;
	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &before);
	unsigned int n = before.nr_workers + NR_BLOCKERS_EXTRA;

	blockers = ktest_gate_works_alloc(n, &rescue_gate);
	KT_ASSERT_NOT_NULL(t, blockers);
	kthread_fail_next(1000000);
	for (unsigned int i = 0; i < n; i++)
		queue_work_on(cpu, system_wq, &blockers[i].work);
	INIT_WORK(&rescue_item, rescue_fn);
	queue_work_on(cpu, wq, &rescue_item);
	/* The rescue item opens the gate. */
	KT_WAIT_UNTIL(t, ktest_gate_is_open(&rescue_gate));
	kthread_fail_next(0);
	ktest_gate_works_release(blockers, n); /* on failure, unblock anyway */
	flush_work(&rescue_item);
	KT_EXPECT_TRUE(t, rescue_ran_in_rescuer);
	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &after);
	KT_EXPECT_LE(t, before.nr_maydays + 1, after.nr_maydays);
	KT_EXPECT_LE(t, before.nr_rescued + 1, after.nr_rescued);
	workqueue_wq_stats(wq, &st);
	KT_EXPECT_LE(t, 1, st.nr_rescued);
	kfree(blockers);
	destroy_workqueue(wq);
}

/* The mayday invariant (kernel/workqueue/manage.c, assert_mayday_armed()): while
 * a pool's manager keeps failing to make a worker, its mayday timer stays
 * armed, even through a moment when no worker was needed as it fired. The
 * pool is an unbound one of a nice nobody else uses, with its one worker;
 * the creations of its workers (that nice) fail, the first one held at a
 * gate while the case sets up the moment:
 *   1. an item arrives: the worker turns manager, arms the timer and fails;
 *   2. the item is cancelled, and the timer fires with nothing needed;
 *   3. the item is queued again with an item of a WQ_MEM_RECLAIM workqueue
 *      of the same pool, and the manager goes on failing.
 * The rescuer must run the second item. Before the fix the timer lapsed at
 * 2 and every queueing trusted the manager to have it armed: nobody called
 * the rescuer while creation failed (the fail_workers torture's stall). */
#define MAYDAY_NICE 11

static struct ktest_gate mayday_gate;
static atomic_t mayday_fails;
static struct completion mayday_rescued;
static volatile bool mayday_in_rescuer;

static bool mayday_fail_hook(void *arg)
{
	struct thread_desc d;

	sched_describe_thread(current, &d);
	if (d.nice != MAYDAY_NICE)
		return false;
	if (atomic_inc_return(&mayday_fails) == 1)
		ktest_gate_pass(&mayday_gate);
	return true;
}

static void mayday_nop_fn(struct work_struct *w)
{
}

static void mayday_reclaim_fn(struct work_struct *w)
{
	mayday_in_rescuer = current_is_rescuer();
	complete(&mayday_rescued);
}

static struct wq_pool_stats unbound_pool_now(struct workqueue_struct *wq)
{
	struct wq_pool_stats st;

	workqueue_wq_pool_stats(wq, WORK_CPU_UNBOUND, &st);
	return st;
}

static void a_failing_manager_keeps_the_mayday_timer_armed(struct ktest *t)
{
	struct workqueue_struct *plain = alloc_workqueue("test_mayday", WQ_UNBOUND, 0);
	struct workqueue_struct *reclaim =
		alloc_workqueue("test_mayday_reclaim", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	static struct work_struct item, reclaim_item;

	KT_ASSERT_TRUE(t, plain && reclaim && attrs);
	attrs->nice = MAYDAY_NICE;
	KT_ASSERT_EQ(t, apply_workqueue_attrs(plain, attrs), 0);
	KT_ASSERT_EQ(t, apply_workqueue_attrs(reclaim, attrs), 0);
	free_workqueue_attrs(attrs);
	struct wq_pool_stats st = unbound_pool_now(plain);

	KT_ASSERT_EQ(t, st.nr_workers, 1);
	KT_ASSERT_EQ(t, st.nr_idle, 1);
	ktest_gate_init(&mayday_gate);
	atomic_set(&mayday_fails, 0);
	init_completion(&mayday_rescued);
	mayday_in_rescuer = false;
	INIT_WORK(&item, mayday_nop_fn);
	INIT_WORK(&reclaim_item, mayday_reclaim_fn);
	kthread_set_fail_hook(mayday_fail_hook, NULL);
	/* 1. */
	queue_work(plain, &item);
	if (KT_GATE_WAIT_ARRIVED(t, &mayday_gate, 1)) {
		/* 2. Any firing counted from here finds nothing to do. */
		KT_EXPECT_TRUE(t, cancel_work(&item));
		u64 fired = unbound_pool_now(plain).nr_mayday_timeouts;

		KT_WAIT_UNTIL(t, unbound_pool_now(plain).nr_mayday_timeouts > fired);
		/* 3. */
		queue_work(plain, &item);
		queue_work(reclaim, &reclaim_item);
		ktest_gate_open(&mayday_gate);
		KT_EXPECT_NE(t, wait_for_completion_timeout(&mayday_rescued, KT_WAIT_LIMIT_NS), 0);
		KT_EXPECT_TRUE(t, mayday_in_rescuer);
		/* No worker was made: the rescue came while creation failed.
		 * (Not "the manager failed again": it sleeps CREATE_COOLDOWN_MS
		 * between tries, and the timer may fire and the rescuer finish
		 * within that sleep; at -smp 16 on a loaded host it did.) */
		KT_EXPECT_EQ(t, unbound_pool_now(plain).nr_workers, 1);
	}
	kthread_set_fail_hook(NULL, NULL);
	ktest_gate_open(&mayday_gate);
	flush_work(&item);
	flush_work(&reclaim_item);
	destroy_workqueue(plain);
	destroy_workqueue(reclaim);
}

/* ---- freezing ----------------------------------------------------------- */

static struct work_struct frz_a, frz_b;
static volatile bool frz_a_done, frz_b_done;

static void frz_a_fn(struct work_struct *w)
{
	msleep(30);
	frz_a_done = true;
}

static void frz_b_fn(struct work_struct *w)
{
	frz_b_done = true;
}

/* Freezing lets running items finish and holds new ones until the thaw. */
static void freeze_drains_and_holds_freezable_work(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_freeze", WQ_FREEZABLE, 0);

	KT_ASSERT_NOT_NULL(t, wq);
	frz_a_done = frz_b_done = false;
	INIT_WORK(&frz_a, frz_a_fn);
	INIT_WORK(&frz_b, frz_b_fn);
	queue_work(wq, &frz_a);
	KT_EXPECT_EQ(t, workqueue_freeze(KT_WAIT_LIMIT_NS), 0);
	KT_EXPECT_TRUE(t, frz_a_done);
	KT_EXPECT_TRUE(t, queue_work(wq, &frz_b));
	msleep(50);
	KT_EXPECT_FALSE(t, frz_b_done);
	/* Non-freezable workqueues go on. */
	INIT_WORK(&frz_a, frz_a_fn);
	frz_a_done = false;
	queue_work(system_wq, &frz_a);
	flush_work(&frz_a);
	KT_EXPECT_TRUE(t, frz_a_done);
	workqueue_thaw();
	flush_work(&frz_b);
	KT_EXPECT_TRUE(t, frz_b_done);
	destroy_workqueue(wq);
}

/* ---- priorities and CPU-intensive items --------------------------------- */

#define PRIO_N 30
#define PRIO_H 8
static struct work_struct prio_normal[PRIO_N], prio_high[PRIO_H];
static atomic_t prio_seq, prio_high_done;
static int normal_done_at[PRIO_N], high_done_at[PRIO_H];
static volatile bool prio_holder_saw_all_high;

/* The first normal item holds its pool (CPU-bound: it never blocks, so
 * concurrency management starts no other normal item) until every highpri
 * item is done, or the wait's limit passes. */
static void prio_normal_fn(struct work_struct *w)
{
	if (w == &prio_normal[0]) {
		u64 deadline = 0;

		while (atomic_read(&prio_high_done) < PRIO_H && ktest_wait_poll_busy(&deadline))
			;
		prio_holder_saw_all_high = atomic_read(&prio_high_done) == PRIO_H;
	} else {
		udelay(100);
	}
	normal_done_at[w - prio_normal] = atomic_inc_return(&prio_seq);
}

static void prio_high_fn(struct work_struct *w)
{
	udelay(100);
	high_done_at[w - prio_high] = atomic_inc_return(&prio_seq);
	atomic_inc(&prio_high_done);
}

/* Normal and highpri items wait on the same CPU (queued while it is held),
 * the normal ones first. Highpri items have a pool of their own: they all
 * run while a normal item occupies the normal pool, before any normal item
 * behind it. (Queued to one shared pool, round robin or in order, they
 * would wait behind the holder, which waits for them: the case fails.)
 * CPU-hog detection is off meanwhile: the holder spins, and detection would
 * let the normal items behind it start beside the highpri ones (their
 * udelay() counts wall time, so they may end first at a tiny CPU share). */
static void highpri_items_run_before_waiting_normal_ones(struct ktest *t)
{
	unsigned int cpu, thresh = wq_cpu_intensive_thresh_us;

	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);

	atomic_set(&prio_seq, 0);
	atomic_set(&prio_high_done, 0);
	prio_holder_saw_all_high = false;
	for (int i = 0; i < PRIO_N; i++)
		INIT_WORK(&prio_normal[i], prio_normal_fn);
	for (int i = 0; i < PRIO_H; i++)
		INIT_WORK(&prio_high[i], prio_high_fn);
	preempt_disable();
	cpu = smp_processor_id();
	for (int i = 0; i < PRIO_N; i++)
		queue_work_on(cpu, system_wq, &prio_normal[i]);
	for (int i = 0; i < PRIO_H; i++)
		queue_work_on(cpu, system_highpri_wq, &prio_high[i]);
	preempt_enable();
	for (int i = 0; i < PRIO_N; i++)
		flush_work(&prio_normal[i]);
	for (int i = 0; i < PRIO_H; i++)
		flush_work(&prio_high[i]);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	int last_high = 0, normal_before = 0;

	for (int i = 0; i < PRIO_H; i++)
		last_high = max(last_high, high_done_at[i]);
	for (int i = 0; i < PRIO_N; i++)
		if (normal_done_at[i] < last_high)
			normal_before++;
	KT_EXPECT_TRUE(t, prio_holder_saw_all_high);
	KT_EXPECT_EQ(t, normal_before, 0);
}

static volatile bool intensive_saw_other;
static volatile bool other_done;
static struct work_struct intensive_item, other_item;

static void intensive_fn(struct work_struct *w)
{
	u64 deadline = 0;

	/* Spin (preemptibly, never blocking) until the other item has run,
	 * or the wait's limit passed. */
	while (!other_done && ktest_wait_poll_busy(&deadline))
		;
	intensive_saw_other = other_done;
}

static void other_fn(struct work_struct *w)
{
	other_done = true;
}

/* A CPU-intensive item does not count as running: a normal item queued
 * behind it on the same CPU gets a worker of its own. */
static void cpu_intensive_items_do_not_hold_back_others(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_intensive", WQ_CPU_INTENSIVE, 0);
	unsigned int cpu = ktest_last_online_cpu();

	KT_ASSERT_NOT_NULL(t, wq);
	intensive_saw_other = other_done = false;
	INIT_WORK(&intensive_item, intensive_fn);
	INIT_WORK(&other_item, other_fn);
	queue_work_on(cpu, wq, &intensive_item);
	KT_WAIT_UNTIL(t, work_busy(&intensive_item) & WORK_BUSY_RUNNING);
	queue_work_on(cpu, system_wq, &other_item);
	flush_work(&intensive_item);
	flush_work(&other_item);
	KT_EXPECT_TRUE(t, intensive_saw_other);
	destroy_workqueue(wq);
}

/* ---- idle reaping ------------------------------------------------------- */

#define NR_REAP 24
static struct ktest_gate_work reap_items[NR_REAP];
static struct ktest_gate reap_gate;

/* Workers created for a burst of blocking items are reaped once idle for
 * wq_idle_timeout_ms (lowered here), down to the two idle ones kept. */
static void idle_workers_are_reaped_after_the_timeout(struct ktest *t)
{
	unsigned int saved = wq_idle_timeout_ms, cpu = ktest_last_online_cpu();
	struct wq_pool_stats st, before;

	wq_idle_timeout_ms = 50;
	ktest_gate_init(&reap_gate);
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &before);
	for (int i = 0; i < NR_REAP; i++) {
		ktest_gate_work_init(&reap_items[i], &reap_gate);
		queue_work_on(cpu, system_highpri_wq, &reap_items[i].work);
	}
	/* All blocked at once: a worker each, by construction. */
	KT_GATE_WAIT_ARRIVED(t, &reap_gate, NR_REAP);
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &st);
	unsigned int peak = st.nr_workers;

	ktest_gate_works_release(reap_items, NR_REAP);

	KT_WAIT_UNTIL(t, (workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &st), st.nr_workers <= 2));
	wq_idle_timeout_ms = saved;
	KT_EXPECT_LE(t, NR_REAP, peak);
	KT_EXPECT_LE(t, st.nr_workers, 2);
	KT_EXPECT_LE(t, before.nr_destroyed + peak - 2, st.nr_destroyed);
}

/* ---- the dump ----------------------------------------------------------- */

static void dump_lists_pools_and_workqueues(struct ktest *t)
{
	size_t size = 64 * 1024;
	char *buf = kmalloc(size);

	KT_ASSERT_NOT_NULL(t, buf);
	size_t len = workqueue_dump(buf, size);
	struct wq_counters c;

	KT_EXPECT_EQ(t, len, strlen(buf));
	KT_EXPECT_TRUE(t, strstr(buf, "pool cpu0 ") != NULL);
	KT_EXPECT_TRUE(t, strstr(buf, "pool cpu0 highpri") != NULL);
	KT_EXPECT_TRUE(t, strstr(buf, "wq events ") != NULL);
	KT_EXPECT_TRUE(t, strstr(buf, "wq events_unbound ") != NULL);
	KT_EXPECT_TRUE(t, strstr(buf, "unbound u") != NULL);
	workqueue_get_counters(&c);
	KT_EXPECT_LE(t, 2 * num_online_cpus() + 1, c.pools);
	KT_EXPECT_LE(t, 1, c.executed);
	KT_EXPECT_LE(t, c.idle, c.workers);
	/* Truncation is safe. */
	KT_EXPECT_EQ(t, workqueue_dump(buf, 16), 15);
	KT_EXPECT_EQ(t, strlen(buf), 15);
	kfree(buf);
}

/* An unbound pool counts no worker in nr_running, so nothing wakes a
 * second worker when the first blocks: each item that starts must wake one
 * if more are waiting. Each item of a pair waits until both started; run
 * one after the other, the first would wait out the bound (30 s). The
 * first round, on a fresh pool (its own attributes), leaves it with idle
 * workers; in the second both queueings wake the same one, the first on
 * the idle list, and only the item's own wake-up brings a second. */
struct pair_item {
	struct work_struct work;
	bool saw_both;
};
static atomic_t pair_started;

static void unbound_pair_fn(struct work_struct *w)
{
	struct pair_item *it = container_of(w, struct pair_item, work);
	u64 deadline = 0;

	atomic_inc(&pair_started);
	while (atomic_read(&pair_started) < 2 && ktest_wait_poll(&deadline))
		;
	it->saw_both = atomic_read(&pair_started) == 2;
}

static void unbound_items_that_block_run_side_by_side(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_unbound_pair", WQ_UNBOUND, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	static struct pair_item pair[2];

	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_NOT_NULL(t, attrs);
	attrs->nice = 7; /* no other pool has it: a new one, with one worker */
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	for (int round = 0; round < 2; round++) {
		atomic_set(&pair_started, 0);
		for (int i = 0; i < 2; i++) {
			INIT_WORK(&pair[i].work, unbound_pair_fn);
			pair[i].saw_both = false;
		}
		for (int i = 0; i < 2; i++)
			queue_work(wq, &pair[i].work);
		for (int i = 0; i < 2; i++) {
			flush_work(&pair[i].work);
			KT_EXPECT_TRUE(t, pair[i].saw_both);
		}
	}
	free_workqueue_attrs(attrs);
	destroy_workqueue(wq);
}

KTEST_SUITE(workqueue_api, KTEST_CASE(ordered_keeps_strict_order_from_all_cpus),
	    KTEST_CASE(set_max_active_takes_effect),
	    KTEST_CASE(unbound_attrs_place_and_prioritise_workers),
	    KTEST_CASE(unbound_items_that_block_run_side_by_side),
	    KTEST_CASE(mod_delayed_work_moves_the_deadline),
	    KTEST_CASE(cancel_delayed_stops_a_self_requeueing_item),
	    KTEST_CASE(flush_races_with_queueing), KTEST_CASE(twenty_concurrent_flushers),
	    KTEST_CASE(drain_waits_for_chained_work),
	    KTEST_CASE(flush_from_own_ordered_item_is_refused),
	    KTEST_CASE(destroy_busy_workqueue_warns_and_drains),
	    KTEST_CASE(queueing_a_freed_item_is_refused),
	    KTEST_CASE(queueing_on_an_impossible_cpu_is_reported),
	    KTEST_CASE(references_are_held_while_queued_or_running),
	    KTEST_CASE(rescuer_makes_progress_when_workers_cannot_be_created),
	    KTEST_CASE(a_failing_manager_keeps_the_mayday_timer_armed),
	    KTEST_CASE(freeze_drains_and_holds_freezable_work),
	    KTEST_CASE(highpri_items_run_before_waiting_normal_ones),
	    KTEST_CASE(cpu_intensive_items_do_not_hold_back_others),
	    KTEST_CASE(idle_workers_are_reaped_after_the_timeout),
	    KTEST_CASE(dump_lists_pools_and_workqueues));
