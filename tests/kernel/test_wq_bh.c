/* tests/kernel/test_wq_bh.c - BH workqueues (kernel/workqueue/bh.c): where
 * and how their items run, the budget and its continuation, flush and
 * cancel of BH items (from atomic context too), the hotplug drain and the
 * rule for items queued to an offline CPU; and disable_work()/enable_work()
 * (kernel/workqueue/flush.c) for any item.
 *
 * No case waits on the clock: an item is held back from its run by
 * local_bh_disable() on the queueing CPU (nothing of that CPU's BH pools
 * runs until local_bh_enable()), a dying CPU's items are queued by a
 * dying step of the test's that runs before the workqueue's, and a BH item
 * held running spins until the cancel that must wait for it has begun.
 */
#include "arch/x86_64/atomic.h"
#include "kernel/bottom_half.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/mutex.h"
#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "tests/kernel/ktest_helpers.h"

#define NR_SEEN 320

/* What an item saw when it ran. */
struct bh_probe {
	struct work_struct work;
	struct delayed_work dwork; /* the delayed cases' */
	int index;
	volatile int cpu;
	volatile bool in_bh, irqs_on, was_current;
	atomic_t runs;
};

static atomic_t order_next;
static int order_seen[NR_SEEN];

static void probe_note(struct bh_probe *p, struct work_struct *w)
{
	p->cpu = (int)smp_processor_id();
	p->in_bh = in_bh_run();
	p->irqs_on = !irqs_disabled();
	p->was_current = current_work() == w;
	int slot = atomic_inc_return(&order_next) - 1;

	if (slot < NR_SEEN)
		order_seen[slot] = p->index;
	atomic_inc(&p->runs);
}

static void probe_fn(struct work_struct *w)
{
	probe_note(container_of(w, struct bh_probe, work), w);
}

static void probe_dfn(struct work_struct *w)
{
	probe_note(container_of(w, struct bh_probe, dwork.work), w);
}

static struct bh_probe probes[NR_SEEN];

static void probes_init(unsigned int n)
{
	atomic_set(&order_next, 0);
	for (unsigned int i = 0; i < n; i++) {
		struct bh_probe *p = &probes[i];

		INIT_WORK(&p->work, probe_fn);
		INIT_DELAYED_WORK(&p->dwork, probe_dfn);
		p->index = (int)i;
		p->cpu = -1;
		p->in_bh = p->irqs_on = p->was_current = false;
		atomic_set(&p->runs, 0);
	}
}

/* A BH item queued for each online CPU (this one too) runs there, in BH
 * context, interrupts on, as its pool's current item; one for another CPU
 * gets there by the BH kick interrupt. */
static void items_run_in_bh_context_on_their_cpu(struct ktest *t)
{
	unsigned int cpu, n = 0;
	u64 kicks[NR_CPUS];

	probes_init(NR_CPUS);
	for_each_online_cpu(cpu)
		kicks[cpu] = READ_ONCE(per_cpu_ptr(cpu)->smp.ipis_bh);
	for_each_online_cpu(cpu) {
		KT_EXPECT_TRUE(t, queue_work_on(cpu, system_bh_wq, &probes[cpu].work));
		n++;
	}
	for_each_online_cpu(cpu) {
		struct bh_probe *p = &probes[cpu];

		flush_work(&p->work); /* (false if it ran already) */
		KT_EXPECT_EQ(t, atomic_read(&p->runs), 1);
		KT_EXPECT_EQ(t, p->cpu, (int)cpu);
		KT_EXPECT_TRUE(t, p->in_bh);
		KT_EXPECT_TRUE(t, p->irqs_on);
		KT_EXPECT_TRUE(t, p->was_current);
		KT_EXPECT_LE(t, kicks[cpu] + 1, READ_ONCE(per_cpu_ptr(cpu)->smp.ipis_bh));
	}
	KT_EXPECT_EQ(t, (unsigned int)atomic_read(&order_next), n);
}

/* Items held back by local_bh_disable() run only after local_bh_enable(),
 * on this CPU, each pool's in queueing order, the high-priority pool's
 * batch first in each pass. */
static void items_wait_for_bh_enable_and_run_in_order(struct ktest *t)
{
	const unsigned int n = 40;

	probes_init(n);
	local_bh_disable();
	unsigned int me = smp_processor_id();

	for (unsigned int i = 0; i < n; i++)
		queue_work(i < n / 2 ? system_bh_wq : system_bh_highpri_wq, &probes[i].work);
	int ran_while_disabled = atomic_read(&order_next);

	local_bh_enable();
	KT_EXPECT_EQ(t, ran_while_disabled, 0);
	KT_WAIT_UNTIL(t, atomic_read(&order_next) == (int)n);
	for (unsigned int i = 0; i < n; i++) {
		KT_EXPECT_EQ(t, probes[i].cpu, (int)me);
		KT_EXPECT_TRUE(t, probes[i].in_bh);
	}
	int last_lo = -1, last_hi = -1;

	KT_EXPECT_EQ(t, order_seen[0], (int)n / 2); /* the high-priority pool first */
	for (unsigned int s = 0; s < n; s++) {
		int i = order_seen[s];
		int *last = i < (int)n / 2 ? &last_lo : &last_hi;

		KT_EXPECT_LT(t, *last, i);
		*last = i;
	}
}

/* More than a run takes (10 passes of 10 items): the rest goes to the
 * continuation, a worker thread, and every item still runs once, in
 * order, on this CPU, in BH context. */
static void a_run_over_its_budget_continues_in_a_thread(struct ktest *t)
{
	const unsigned int n = 300;
	struct bh_stats before, after;

	probes_init(n);
	local_bh_disable();
	unsigned int me = smp_processor_id();

	bh_get_stats(me, &before);
	for (unsigned int i = 0; i < n; i++)
		queue_work(system_bh_wq, &probes[i].work);
	local_bh_enable();
	KT_WAIT_UNTIL(t, atomic_read(&order_next) == (int)n);
	bh_get_stats(me, &after);
	KT_EXPECT_LE(t, before.deferrals + 1, after.deferrals);
	KT_EXPECT_LE(t, before.continued + 1, after.continued);
	for (unsigned int i = 0; i < n; i++) {
		KT_EXPECT_EQ(t, order_seen[i], (int)i);
		KT_EXPECT_EQ(t, probes[i].cpu, (int)me);
		KT_EXPECT_EQ(t, atomic_read(&probes[i].runs), 1);
		KT_EXPECT_TRUE(t, probes[i].in_bh);
	}
}

/* A BH item that sleeps is reported at once, and its sleep refused. */
static DEFINE_MUTEX(bh_mutex);

static void sleeper_fn(struct work_struct *w)
{
	mutex_lock(&bh_mutex); /* might_sleep(): reported */
	mutex_unlock(&bh_mutex);
	schedule(); /* refused: the thread under it cannot block for it */
	probe_note(&probes[0], w);
}

static void a_bh_item_that_sleeps_is_reported(struct ktest *t)
{
	probes_init(1);
	INIT_WORK(&probes[0].work, sleeper_fn);
	ktest_expect_warnings(t, "kernel/mutex.c", 1);
	ktest_expect_warnings(t, "kernel/sched.c", 1);
	queue_work(system_bh_wq, &probes[0].work);
	flush_work(&probes[0].work);
	KT_EXPECT_EQ(t, atomic_read(&probes[0].runs), 1);
	KT_EXPECT_TRUE(t, probes[0].in_bh);
}

/* A WQ_BH workqueue of the caller's: delayed items, flush_workqueue(),
 * cancel of a pending item, and its refusals. */
static void flush_delay_and_cancel_cover_bh_items(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_bh", WQ_BH, 0);
	unsigned int cpu, n = 0;

	KT_ASSERT_NOT_NULL(t, wq);
	probes_init(NR_CPUS + 2);
	for_each_online_cpu(cpu) {
		queue_delayed_work_on(cpu, wq, &probes[cpu].dwork, 200 * NSEC_PER_USEC);
		n++;
	}
	flush_workqueue(wq); /* only the queued ones: the timers may still be armed */
	for_each_online_cpu(cpu)
		flush_delayed_work(&probes[cpu].dwork);
	for_each_online_cpu(cpu) {
		KT_EXPECT_EQ(t, atomic_read(&probes[cpu].runs), 1);
		KT_EXPECT_EQ(t, probes[cpu].cpu, (int)cpu);
		KT_EXPECT_TRUE(t, probes[cpu].in_bh);
	}
	/* Cancelled while pending: never runs. */
	struct bh_probe *p = &probes[NR_CPUS];

	local_bh_disable();
	queue_work(wq, &p->work);
	KT_EXPECT_TRUE(t, cancel_work(&p->work));
	local_bh_enable();
	/* Queued and flushed from the same BH-disabled stretch's end. */
	struct bh_probe *q = &probes[NR_CPUS + 1];

	queue_work(wq, &q->work);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, atomic_read(&q->runs), 1);
	KT_EXPECT_EQ(t, atomic_read(&p->runs), 0);
	/* No nice, mask or max_active for it. */
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();

	KT_ASSERT_NOT_NULL(t, attrs);
	attrs->nice = 5;
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	free_workqueue_attrs(attrs);
	/* The max_active change, and the first refusal (a WARN_ONCE). */
	ktest_expect_warnings(t, "kernel/workqueue/pool.c", 2);
	workqueue_set_max_active(wq, 4);
	KT_EXPECT_TRUE(t, !alloc_workqueue("test_bh_bad", WQ_BH | WQ_UNBOUND, 0));
	KT_EXPECT_TRUE(t, !alloc_workqueue("test_bh_bad", WQ_BH, 16));
	destroy_workqueue(wq);
}

/* A BH item held running until a cancel or disable has taken its PENDING
 * bit (the first thing either does): so that the caller finds it running
 * and must wait for it. Queued to another CPU than the caller's, which
 * pin_to_first_cpu() keeps off it (a run there would hold the caller). */
static volatile bool hold_started, hold_done;

static void hold_fn(struct work_struct *w)
{
	hold_started = true;
	while (!work_pending(w))
		cpu_relax();
	hold_done = true;
}

/* Pin the calling thread to the first online CPU; *saved gets its mask
 * back with unpin(). The CPU to hold an item on: the last. */
static void pin_to_first_cpu(struct cpumask *saved)
{
	struct cpumask one;

	thread_get_cpus_allowed(current, saved);
	cpumask_clear(&one);
	cpumask_set_cpu(cpumask_first(&cpu_online_mask), &one);
	set_cpus_allowed(current, &one);
}

static void unpin(const struct cpumask *saved)
{
	set_cpus_allowed(current, saved);
}

/* cancel_work_sync() of a BH item waits for its run from atomic context
 * (preemption off) by spinning: when it returns, the run is over. */
static void cancel_sync_of_a_bh_item_works_from_atomic_context(struct ktest *t)
{
	struct work_struct w;
	struct cpumask saved;

	if (!ktest_need_cpus(t, 2))
		return;
	hold_started = hold_done = false;
	INIT_WORK(&w, hold_fn);
	pin_to_first_cpu(&saved);
	queue_work_on(ktest_last_online_cpu(), system_bh_wq, &w);
	if (KT_WAIT_UNTIL(t, hold_started)) {
		preempt_disable();			  /* atomic */
		KT_EXPECT_FALSE(t, cancel_work_sync(&w)); /* running, not pending */
		bool done = hold_done;

		preempt_enable();
		KT_EXPECT_TRUE(t, done);
	}
	unpin(&saved);
}

/* disable_work(): queueing fails while any disable is left; enable_work()
 * says when none is; enable_and_queue_work(); a pending item disabled is
 * cancelled; _sync waits for a run; an enable too many is reported. */
static void disable_and_enable_work(struct ktest *t)
{
	struct bh_probe *p = &probes[0];
	struct workqueue_struct *wqs[] = { system_wq, system_bh_wq };

	for (unsigned int k = 0; k < ARRAY_SIZE(wqs); k++) {
		struct workqueue_struct *wq = wqs[k];

		probes_init(1);
		KT_EXPECT_FALSE(t, disable_work(&p->work)); /* idle: nothing cancelled */
		KT_EXPECT_EQ(t, work_disable_count(&p->work), 1);
		KT_EXPECT_FALSE(t, queue_work(wq, &p->work));
		KT_EXPECT_FALSE(t, disable_work(&p->work));
		KT_EXPECT_FALSE(t, enable_work(&p->work)); /* one left */
		KT_EXPECT_FALSE(t, queue_work(wq, &p->work));
		KT_EXPECT_FALSE(t, work_pending(&p->work));
		KT_EXPECT_TRUE(t, enable_and_queue_work(wq, &p->work));
		flush_work(&p->work);
		KT_EXPECT_EQ(t, atomic_read(&p->runs), 1);
		KT_EXPECT_EQ(t, work_disable_count(&p->work), 0);

		/* Pending, then disabled: taken off its queue. */
		local_bh_disable();
		queue_work(wq, &p->work);
		KT_EXPECT_TRUE(t, disable_work(&p->work));
		local_bh_enable();
		flush_workqueue(wq);
		KT_EXPECT_EQ(t, atomic_read(&p->runs), 1);
		KT_EXPECT_TRUE(t, enable_work(&p->work));

		/* The delayed ones: the timer is stopped, mod refused. */
		KT_EXPECT_TRUE(t, queue_delayed_work(wq, &p->dwork, 1000 * NSEC_PER_MSEC));
		KT_EXPECT_TRUE(t, disable_delayed_work_sync(&p->dwork));
		KT_EXPECT_FALSE(t, mod_delayed_work(wq, &p->dwork, 0));
		KT_EXPECT_FALSE(t, delayed_work_pending(&p->dwork));
		KT_EXPECT_TRUE(t, enable_delayed_work(&p->dwork));
		KT_EXPECT_FALSE(t, mod_delayed_work(wq, &p->dwork, 0)); /* queued; was idle */
		flush_delayed_work(&p->dwork);
		KT_EXPECT_EQ(t, atomic_read(&p->runs), 2);
	}
	/* disable_work_sync() waits for the run under way. */
	hold_started = hold_done = false;
	struct work_struct w;
	struct cpumask saved;

	INIT_WORK(&w, hold_fn);
	if (ktest_need_cpus(t, 2)) {
		pin_to_first_cpu(&saved);
		queue_work_on(ktest_last_online_cpu(), system_bh_wq, &w);
		if (KT_WAIT_UNTIL(t, hold_started)) {
			KT_EXPECT_FALSE(t, disable_work_sync(&w));
			KT_EXPECT_TRUE(t, hold_done);
			KT_EXPECT_FALSE(t, queue_work(system_bh_wq, &w));
			KT_EXPECT_TRUE(t, enable_work(&w));
		}
		unpin(&saved);
	}
	/* An enable with no disable: reported, ignored. */
	ktest_expect_warnings(t, "kernel/workqueue/flush.c", 1);
	KT_EXPECT_TRUE(t, enable_work(&w));
	KT_EXPECT_EQ(t, work_disable_count(&w), 0);
}

/* ---- CPU hotplug ----------------------------------------------------------- */

#define NR_DYING_ITEMS 24
static unsigned int dying_target;

/* A dying step of the test's: registered after the workqueue's, so it runs
 * before it, on the dying CPU with interrupts off: its items cannot run
 * there any more, and wait in the CPU's BH pools for the drain. */
static int queue_while_dying(unsigned int cpu)
{
	if (cpu != dying_target)
		return 0;
	for (unsigned int i = 0; i < NR_DYING_ITEMS; i++)
		queue_work_on(cpu, i % 3 ? system_bh_wq : system_bh_highpri_wq, &probes[i].work);
	return 0;
}

static struct cpuhp_step dying_step = {
	.name = "test:bh-dying",
	.phase = CPUHP_STARTING,
	.teardown = queue_while_dying,
};

/* Holds cpu0's high-priority BH pool (a BH item spinning until released,
 * a safety net of KT_WAIT_LIMIT_S): the drain that the dying step queues
 * there (the first live CPU) waits behind it. */
static volatile bool blocker_started, blocker_release, blocker_gave_up;

static void blocker_fn(struct work_struct *w)
{
	u64 until = ktime_get_ns() + KT_WAIT_LIMIT_NS;

	blocker_started = true;
	while (!READ_ONCE(blocker_release))
		if (ktime_get_ns() > until) {
			blocker_gave_up = true;
			break;
		}
}

/* The dying CPU's BH items are drained on a live CPU, in BH context, in
 * order per pool, before cpu_down() returns; one queued to the offline
 * CPU then runs on the queueing CPU; back online, its items run there.
 * With three CPUs or more, the drain the dying step queued is held behind
 * a BH item on cpu0 for the whole cpu_down(): the items must have run all
 * the same when it returns, by the drain its "workqueue:bh" step ran on
 * the calling CPU and waited for (without that wait they would run late,
 * once the blocker lets go). */
static void a_dying_cpus_bh_items_are_drained_before_cpu_down_returns(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	bool hold = num_online_cpus() >= 3;
	struct work_struct blocker;
	struct cpumask saved;

	if (!ktest_need_cpus(t, 2))
		return;
	probes_init(NR_DYING_ITEMS + 2);
	dying_target = cpu;
	INIT_WORK(&blocker, blocker_fn);
	blocker_started = blocker_release = blocker_gave_up = false;
	if (hold) {
		/* Off cpu0 (held) and off the target. */
		struct cpumask one;

		thread_get_cpus_allowed(current, &saved);
		cpumask_clear(&one);
		cpumask_set_cpu(cpumask_nth(1, &cpu_online_mask), &one);
		set_cpus_allowed(current, &one);
		queue_work_on(0, system_bh_highpri_wq, &blocker);
		hold = KT_WAIT_UNTIL(t, blocker_started);
	}
	cpuhp_add_step(&dying_step);
	int err = cpu_down(cpu);
	int ran = atomic_read(&order_next);

	cpuhp_remove_step(&dying_step);
	blocker_release = true;
	flush_work(&blocker);
	KT_EXPECT_FALSE(t, blocker_gave_up);
	if (hold)
		set_cpus_allowed(current, &saved);
	KT_ASSERT_EQ(t, err, 0);
	KT_EXPECT_EQ(t, ran, NR_DYING_ITEMS); /* all of them, by the time cpu_down() returned */
	KT_WAIT_UNTIL(t, atomic_read(&order_next) == NR_DYING_ITEMS);
	int last_hi = -1, last_lo = -1;

	for (unsigned int i = 0; i < NR_DYING_ITEMS; i++) {
		KT_EXPECT_EQ(t, atomic_read(&probes[i].runs), 1);
		KT_EXPECT_NE(t, probes[i].cpu, (int)cpu);
		KT_EXPECT_TRUE(t, probes[i].in_bh);
	}
	for (int s = 0; s < NR_DYING_ITEMS; s++) { /* each pool's in queueing order */
		int i = order_seen[s];
		int *last = i % 3 ? &last_lo : &last_hi;

		KT_EXPECT_LT(t, *last, i);
		*last = i;
	}
	/* Queued to the offline CPU: run on a live CPU, by the drain. */
	struct bh_probe *p = &probes[NR_DYING_ITEMS];

	local_bh_disable();
	int me = (int)smp_processor_id();

	KT_EXPECT_TRUE(t, queue_work_on(cpu, system_bh_wq, &p->work));
	local_bh_enable();
	KT_WAIT_UNTIL(t, atomic_read(&p->runs) == 1); /* (bounded: were it left, no hang) */
	flush_work(&p->work);
	KT_EXPECT_EQ(t, atomic_read(&p->runs), 1);
	/* By the pool's drain: queued here, unless the one the dying step
	 * queued (on cpu0, behind the blocker) was still pending. */
	KT_EXPECT_TRUE(t, p->cpu == me || p->cpu == 0);
	KT_EXPECT_NE(t, p->cpu, (int)cpu);
	KT_EXPECT_TRUE(t, p->in_bh);
	KT_ASSERT_EQ(t, cpu_up(cpu), 0);
	struct bh_probe *q = &probes[NR_DYING_ITEMS + 1];

	KT_EXPECT_TRUE(t, queue_work_on(cpu, system_bh_wq, &q->work));
	flush_work(&q->work);
	KT_EXPECT_EQ(t, atomic_read(&q->runs), 1);
	KT_EXPECT_EQ(t, q->cpu, (int)cpu);
	KT_EXPECT_TRUE(t, q->in_bh);
}

KTEST_SUITE(wq_bh, KTEST_CASE(items_run_in_bh_context_on_their_cpu),
	    KTEST_CASE(items_wait_for_bh_enable_and_run_in_order),
	    KTEST_CASE(a_run_over_its_budget_continues_in_a_thread),
	    KTEST_CASE(a_bh_item_that_sleeps_is_reported),
	    KTEST_CASE(flush_delay_and_cancel_cover_bh_items),
	    KTEST_CASE(cancel_sync_of_a_bh_item_works_from_atomic_context),
	    KTEST_CASE(disable_and_enable_work),
	    KTEST_CASE(a_dying_cpus_bh_items_are_drained_before_cpu_down_returns));
