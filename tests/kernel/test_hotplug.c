/* tests/kernel/test_hotplug.c - CPU offline and online: errors, threads and
 * timers moving away and back, interrupts re-routed, the workqueue's
 * trustee (pending work, re-online while in charge, cancelled offline) and
 * concurrency management across hotplug. */
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/ioapic.h"
#include "drivers/uart16550.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/debug/deterministic.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/kstack.h"
#include "kernel/mm/pmm.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/fault_inject.h"
#include "kernel/tools/ktest.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/random.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

static void errors_are_clear(struct ktest *t)
{
	KT_EXPECT_EQ(t, cpu_down(NR_CPUS + 1), -EINVAL);
	KT_EXPECT_EQ(t, cpu_up(NR_CPUS + 1), -EINVAL);
	KT_EXPECT_EQ(t, cpu_up(0), -EALREADY);
	if (num_online_cpus() == 1) {
		KT_EXPECT_EQ(t, cpu_down(0), -EBUSY); /* the last one */
		return;
	}
	KT_EXPECT_EQ(t, cpu_down(0), -EPERM); /* the boot CPU stays */
	unsigned int cpu = ktest_last_online_cpu();

	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, cpu_down(cpu), -EALREADY);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
}

/* ---- threads: a pinned thread runs elsewhere meanwhile, then back ------- */

static volatile unsigned int pinned_cpu_seen;
static volatile bool pinned_stop;

static int pinned_fn(void *arg)
{
	while (!pinned_stop) {
		preempt_disable();
		pinned_cpu_seen = smp_processor_id();
		if (!cpu_online(pinned_cpu_seen))
			pinned_cpu_seen = NR_CPUS; /* ran on an offline CPU */
		preempt_enable();
		msleep(1);
	}
	return 0;
}

static volatile unsigned int work_ran_on;

static void where_fn(struct work_struct *w)
{
	work_ran_on = smp_processor_id();
}

static void every_cpu_goes_offline_and_comes_back(struct ktest *t)
{
	struct work_struct w;
	unsigned int cpu;

	if (!ktest_need_cpus(t, 2))
		return;
	INIT_WORK(&w, where_fn);
	for_each_present_cpu(cpu) {
		if (cpu == 0 || !cpu_online(cpu))
			continue;
		pinned_stop = false;
		struct thread *th = kthread_create(pinned_fn, NULL, "pinned/%u", cpu);

		KT_ASSERT_NOT_NULL(t, th);
		set_cpus_allowed(th, cpumask_of(cpu));
		wake_up_thread(th);
		KT_WAIT_UNTIL(t, pinned_cpu_seen == cpu);
		struct rq_stats before, after;

		KT_EXPECT_EQ(t, cpu_down(cpu), 0);
		KT_EXPECT_FALSE(t, cpu_online(cpu));
		/* The pinned thread goes on elsewhere, never on the dead CPU. */
		pinned_cpu_seen = cpu;
		KT_WAIT_UNTIL(t, pinned_cpu_seen != cpu);
		KT_EXPECT_NE(t, pinned_cpu_seen, NR_CPUS);
		/* Nothing is scheduled on it any more. */
		sched_get_rq_stats(cpu, &before);
		msleep(30);
		sched_get_rq_stats(cpu, &after);
		KT_EXPECT_EQ(t, before.nr_switches, after.nr_switches);
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
		/* Back on its CPU; the pools are bound again. */
		KT_WAIT_UNTIL(t, pinned_cpu_seen == cpu);
		work_ran_on = NR_CPUS;
		queue_work_on(cpu, system_wq, &w);
		flush_work(&w);
		KT_EXPECT_EQ(t, work_ran_on, cpu);
		KT_WAIT_UNTIL(t, workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL) == 0 &&
					 workqueue_pool_unbound_workers(cpu, WQ_POOL_HIGHPRI) == 0);
		pinned_stop = true;
		kthread_stop(th);
	}
}

/* ---- timers and interrupts move ----------------------------------------- */

/* A timer that keeps itself pending on move_cpu: while that CPU is online
 * it re-arms there from its callback (which runs there, interrupts off, so
 * the CPU's dying step cannot come in between): when the CPU goes, the
 * timer is pending on it, by construction. Its first firing anywhere else
 * is recorded. */
static struct timer_list move_timer;
static volatile unsigned int move_cpu;
static volatile bool move_fired_there;
static volatile int timer_fired_on = -1;
static volatile bool timer_fired_online;

static void move_timer_fn(struct timer_list *tl)
{
	unsigned int me = smp_processor_id();

	if (me == move_cpu && cpu_online(me)) {
		move_fired_there = true;
		add_timer_on(tl, ktime_get_ns() + NSEC_PER_MSEC, me);
		return;
	}
	timer_fired_online = cpu_online(me);
	timer_fired_on = (int)me;
}

static void timers_and_interrupts_move_to_a_live_cpu(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	u64 route;

	if (!ktest_need_cpus(t, 2))
		return;
	timer_setup(&move_timer, move_timer_fn);
	timer_fired_on = -1;
	move_fired_there = false;
	move_cpu = cpu;
	add_timer_on(&move_timer, ktime_get_ns() + NSEC_PER_MSEC, cpu);
	KT_WAIT_UNTIL(t, move_fired_there); /* it keeps to its CPU */
	/* Aim the serial interrupt at the CPU, as if it had been balanced there. */
	KT_ASSERT_TRUE(t, ioapic_route_isa_irq(COM1_ISA_IRQ, cpu_apic_ids[cpu]) == 0);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, ioapic_read_route(COM1_ISA_IRQ, &route), 0);
	KT_EXPECT_NE(t, (u32)(route >> 56), cpu_apic_ids[cpu]);
	KT_WAIT_UNTIL(t, timer_fired_on >= 0);
	KT_EXPECT_NE(t, timer_fired_on, (int)cpu);
	KT_EXPECT_TRUE(t, timer_fired_online);
	del_timer_sync(&move_timer); /* not pending any more: a no-op */
	KT_EXPECT_EQ(t, ioapic_route_isa_irq(COM1_ISA_IRQ, cpu_apic_ids[0]), 0);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
}

/* ---- the trustee -------------------------------------------------------- */

#define PENDING_ITEMS 1000
struct hp_item {
	struct work_struct work;
	atomic_t runs, inside;
};
static struct hp_item *items;
static atomic_t items_done, items_overlap, items_offline;

/* The gate the trustee tests' items wait on, opened by the test once the
 * state it checks is reached (cpu_down() or cpu_up() returned). Bounded
 * (ktest_gate_pass_bounded): a kernel that waits for the items (a
 * drain-first cpu_down) fails instead of hanging. */
static struct ktest_gate items_gate;

static void hp_item_fn(struct work_struct *w)
{
	struct hp_item *it = container_of(w, struct hp_item, work);

	if (atomic_inc_return(&it->inside) != 1)
		atomic_inc(&items_overlap);
	preempt_disable();
	if (!cpu_online(smp_processor_id()))
		atomic_inc(&items_offline);
	preempt_enable();
	ktest_gate_pass_bounded(&items_gate);
	atomic_inc(&it->runs);
	atomic_dec(&it->inside);
	atomic_inc(&items_done);
}

static bool items_setup(unsigned int n)
{
	items = kzalloc(sizeof(*items) * n);
	if (!items)
		return false;
	atomic_set(&items_done, 0);
	atomic_set(&items_overlap, 0);
	atomic_set(&items_offline, 0);
	ktest_gate_init(&items_gate);
	for (unsigned int i = 0; i < n; i++)
		INIT_WORK(&items[i].work, hp_item_fn);
	return true;
}

static int items_run_other_than_once(unsigned int n)
{
	int bad = 0;

	for (unsigned int i = 0; i < n; i++)
		if (atomic_read(&items[i].runs) != 1)
			bad++;
	return bad;
}

/* cpu_down does not wait for the CPU's pending work: the items wait on a
 * gate the test opens only after cpu_down returned (so none can have
 * finished then), and the trustee has them run elsewhere, every item
 * exactly once. */
static void offline_with_pending_work_returns_at_once(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct workqueue_struct *wq;

	if (!ktest_need_cpus(t, 2))
		return;
	wq = alloc_workqueue("test_hp_pending", 0, 16);
	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_TRUE(t, items_setup(PENDING_ITEMS));
	for (unsigned int i = 0; i < PENDING_ITEMS; i++)
		queue_work_on(cpu, wq, &items[i].work);
	/* One of them runs there (at the gate) when the CPU goes. */
	KT_WAIT_UNTIL(t, atomic_read(&items[0].inside) == 1);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, atomic_read(&items_done), 0); /* it did not wait for them */
	KT_EXPECT_EQ(t, ktest_gate_timeouts(&items_gate), 0);
	/* Queued to the offline CPU: runs, elsewhere (past the blocked ones). */
	work_ran_on = NR_CPUS;
	struct work_struct w;

	INIT_WORK(&w, where_fn);
	queue_work_on(cpu, system_wq, &w);
	flush_work(&w);
	KT_EXPECT_NE(t, work_ran_on, cpu);
	KT_EXPECT_NE(t, work_ran_on, NR_CPUS);
	ktest_gate_open(&items_gate);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, ktest_gate_timeouts(&items_gate), 0);
	KT_EXPECT_EQ(t, atomic_read(&items_done), PENDING_ITEMS);
	KT_EXPECT_EQ(t, items_run_other_than_once(PENDING_ITEMS), 0);
	KT_EXPECT_EQ(t, atomic_read(&items_overlap), 0);
	KT_EXPECT_EQ(t, atomic_read(&items_offline), 0);
	/* The trustee released its workers once the work was gone. */
	struct wq_pool_stats st;

	KT_WAIT_UNTIL(t, (workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &st), st.nr_workers == 0));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	kfree(items);
	destroy_workqueue(wq);
}

static atomic_t cm_running, cm_max;

static void cm_fn(struct work_struct *w)
{
	int n = atomic_inc_return(&cm_running);

	atomic_max(&cm_max, n);
	udelay(1000);
	atomic_dec(&cm_running);
}

/* 16 CPU-bound items queued together to cpu through wq: the most that ran
 * at once (concurrency management: 1). CPU-hog detection is off meanwhile:
 * it would let a second start beside a hog (tests/kernel/test_workqueue_adapt.c). */
static struct work_struct cm[16];

static int cpu_bound_batch_max(unsigned int cpu, struct workqueue_struct *wq)
{
	unsigned int thresh = wq_cpu_intensive_thresh_us;

	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);
	atomic_set(&cm_max, 0);
	preempt_disable();
	for (int i = 0; i < 16; i++) {
		INIT_WORK(&cm[i], cm_fn);
		queue_work_on(cpu, wq, &cm[i]);
	}
	preempt_enable();
	for (int i = 0; i < 16; i++)
		flush_work(&cm[i]);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	return atomic_read(&cm_max);
}

/* The CPU comes back while the trustee still has work (the items wait on a
 * gate opened after cpu_up() returned): the workers finish them and rebind.
 * Half of the items are queued again meanwhile, from here: each item runs
 * once per successful queueing (none lost, none run twice), and no item is
 * seen on two workers at once. Then the pool is bound again with
 * concurrency management back: an item queued there runs there, and
 * CPU-bound items queued together run one at a time. */
#define REONLINE_ITEMS 200

static void reonline_while_the_trustee_is_in_charge(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), n = REONLINE_ITEMS, requeued = 0;
	struct workqueue_struct *wq;

	if (!ktest_need_cpus(t, 2))
		return;
	wq = alloc_workqueue("test_hp_reonline", 0, 8);
	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_TRUE(t, items_setup(n));
	for (unsigned int i = 0; i < n; i++)
		queue_work_on(cpu, wq, &items[i].work);
	KT_WAIT_UNTIL(t, atomic_read(&items[0].inside) == 1); /* at the gate */
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_EQ(t, atomic_read(&items_done), 0); /* still in charge when it came back */
	/* Requeue the first half meanwhile, from here: those running (held at
	 * the gate: the first max_active) are queued again and must run again,
	 * those still pending not. */
	bool again[REONLINE_ITEMS] = { false };

	for (unsigned int i = 0; i < n / 2; i++) {
		again[i] = queue_work_on(cpu, wq, &items[i].work);
		requeued += again[i];
	}
	KT_EXPECT_TRUE(t, again[0]); /* it was running: queued again */
	ktest_gate_open(&items_gate);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, ktest_gate_timeouts(&items_gate), 0);
	KT_EXPECT_EQ(t, atomic_read(&items_done), (int)(n + requeued));
	int wrong_runs = 0;

	for (unsigned int i = 0; i < n; i++)
		if (atomic_read(&items[i].runs) != 1 + again[i])
			wrong_runs++;
	KT_EXPECT_EQ(t, wrong_runs, 0);
	KT_EXPECT_EQ(t, atomic_read(&items_overlap), 0);
	KT_WAIT_UNTIL(t, workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL) == 0);
	/* Bound again: an item queued there runs there... */
	work_ran_on = NR_CPUS;
	struct work_struct w;

	INIT_WORK(&w, where_fn);
	queue_work_on(cpu, wq, &w);
	flush_work(&w);
	KT_EXPECT_EQ(t, work_ran_on, cpu);
	/* ...and concurrency management is back: CPU-bound items (they never
	 * block) queued together run one at a time. */
	KT_EXPECT_EQ(t, cpu_bound_batch_max(cpu, wq), 1);
	kfree(items);
	destroy_workqueue(wq);
}

/* An item that sends itself back to its CPU until it runs there (as
 * idle_cull_fn does) must not keep an unbound worker busy forever: a
 * worker marked to rebind does so after its current item, even with more
 * items waiting. */
#define CHASE_MAX 100000
static struct ktest_gate chase_gate;
static struct completion chase_done;
static atomic_t chase_requeues;
static volatile bool chase_started;
static volatile unsigned int chase_cpu, chase_ran_on;
static struct workqueue_struct *chase_wq;

static void chase_fn(struct work_struct *w)
{
	if (!chase_started) {
		chase_started = true;
		ktest_gate_pass(&chase_gate); /* its CPU goes and comes back */
	}
	if (smp_processor_id() != chase_cpu && atomic_read(&chase_requeues) < CHASE_MAX) {
		atomic_inc(&chase_requeues);
		queue_work_on(chase_cpu, chase_wq, w);
		return;
	}
	chase_ran_on = smp_processor_id();
	complete(&chase_done);
}

static void a_worker_rebinds_between_requeued_items(struct ktest *t)
{
	static struct work_struct chase;

	if (!ktest_need_cpus(t, 2))
		return;
	chase_cpu = ktest_last_online_cpu();
	chase_ran_on = NR_CPUS;
	chase_started = false;
	atomic_set(&chase_requeues, 0);
	ktest_gate_init(&chase_gate);
	init_completion(&chase_done);
	chase_wq = alloc_workqueue("test_hp_chase", 0, 1);
	KT_ASSERT_NOT_NULL(t, chase_wq);
	INIT_WORK(&chase, chase_fn);
	queue_work_on(chase_cpu, chase_wq, &chase);
	KT_GATE_WAIT_ARRIVED(t, &chase_gate, 1);
	KT_EXPECT_EQ(t, cpu_down(chase_cpu), 0); /* its worker: unbound, busy */
	KT_EXPECT_EQ(t, cpu_up(chase_cpu), 0);	 /* ... and marked to rebind */
	ktest_gate_open(&chase_gate);
	KT_EXPECT_NE(t, wait_for_completion_timeout(&chase_done, KT_WAIT_LIMIT_NS), 0);
	KT_EXPECT_EQ(t, chase_ran_on, chase_cpu);
	KT_EXPECT_LE(t, atomic_read(&chase_requeues), 2);
	flush_work(&chase);
	destroy_workqueue(chase_wq);
}

static int refuse_down(unsigned int cpu)
{
	return -EBUSY;
}

static struct cpuhp_step refusing_step = {
	.name = "test:refuse",
	.phase = CPUHP_ONLINE,
	.teardown = refuse_down,
};

/* A failing callback cancels the offline; so does a stopper that cannot
 * be created. Either way the CPU is as before: online, active, its pools
 * bound. */
static void cancelled_offline_leaves_no_trace(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct work_struct w;
	struct cpuhp_stats st0, st1;

	if (!ktest_need_cpus(t, 2))
		return;
	cpuhp_get_stats(&st0);
	cpuhp_add_step(&refusing_step);
	KT_EXPECT_EQ(t, cpu_down(cpu), -EBUSY);
	cpuhp_remove_step(&refusing_step);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
	kthread_fail_own(1); /* the stopper: this thread makes it */
	KT_EXPECT_EQ(t, cpu_down(cpu), -ENOMEM);
	kthread_fail_own(0);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
	KT_EXPECT_EQ(t, workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL), 0);
	INIT_WORK(&w, where_fn);
	work_ran_on = NR_CPUS;
	queue_work_on(cpu, system_wq, &w);
	flush_work(&w);
	KT_EXPECT_EQ(t, work_ran_on, cpu);
	cpuhp_get_stats(&st1);
	KT_EXPECT_EQ(t, st1.nr_down_failed - st0.nr_down_failed, 2);
	KT_EXPECT_EQ(t, st1.nr_down, st0.nr_down);
}

/* With every other CPU offline, the last one is refused. */
static void the_last_cpu_is_refused(struct ktest *t)
{
	unsigned int cpu;

	for_each_present_cpu(cpu)
		if (cpu != 0 && cpu_online(cpu))
			KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, num_online_cpus(), 1);
	KT_EXPECT_EQ(t, cpu_down(0), -EBUSY);
	/* The workqueue still works on one CPU. */
	struct work_struct w;

	INIT_WORK(&w, where_fn);
	work_ran_on = NR_CPUS;
	queue_work(system_wq, &w);
	flush_work(&w);
	KT_EXPECT_EQ(t, work_ran_on, 0);
	for_each_present_cpu(cpu)
		if (cpu != 0)
			KT_EXPECT_EQ(t, cpu_up(cpu), 0);
}

/* ---- nr_running across hotplug (Linux's 2021 race) ---------------------- */

#define PINGERS 16
static struct work_struct pingers[PINGERS];
static volatile bool ping_stop;
static atomic_t ping_runs, ping_queued;

static void pinger_fn(struct work_struct *w)
{
	/* Block and wake again and again: sleeping()/running() in flight
	 * while the CPU goes away and comes back. */
	for (int i = 0; i < 50 && !ping_stop; i++) {
		msleep(1);
		udelay(50);
	}
	atomic_inc(&ping_runs);
	if (!ping_stop && queue_work(system_wq, w))
		atomic_inc(&ping_queued);
}

static void ping_queue_on(unsigned int cpu, struct work_struct *w)
{
	if (queue_work_on(cpu, system_wq, w))
		atomic_inc(&ping_queued);
}

static void hotplug_while_workers_block_and_wake(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct wq_pool_stats st;

	if (!ktest_need_cpus(t, 2))
		return;
	ping_stop = false;
	atomic_set(&ping_runs, 0);
	atomic_set(&ping_queued, 0);
	for (int i = 0; i < PINGERS; i++) {
		INIT_WORK(&pingers[i], pinger_fn);
		ping_queue_on(cpu, &pingers[i]);
	}
	for (int round = 0; round < 10; round++) {
		msleep(3);
		KT_EXPECT_EQ(t, cpu_down(cpu), 0);
		msleep(3);
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
		for (int i = 0; i < PINGERS; i++)
			ping_queue_on(cpu, &pingers[i]);
	}
	/* They go on queueing themselves until told to stop: they get there. */
	KT_WAIT_UNTIL(t, atomic_read(&ping_runs) >= PINGERS);
	ping_stop = true;
	int cancelled = 0;

	for (int i = 0; i < PINGERS; i++)
		cancelled += cancel_work_sync(&pingers[i]);
	/* Every successful queueing ran or was cancelled, exactly. */
	KT_EXPECT_EQ(t, atomic_read(&ping_runs) + cancelled, atomic_read(&ping_queued));
	/* Quiet now: no worker of the pool counts as running... */
	KT_WAIT_UNTIL(t, (workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &st),
			  st.nr_running == 0 && st.nr_pending == 0));
	KT_WAIT_UNTIL(t, workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL) == 0);
	/* ...and concurrency management is exact again: one at a time. */
	KT_EXPECT_EQ(t, cpu_bound_batch_max(cpu, system_wq), 1);
}

/* Work queued to a possible CPU that was never online (-smp N,maxcpus=M)
 * runs too: its pools start in the trustee's charge. */
static void work_for_a_never_online_cpu_runs(struct ktest *t)
{
	unsigned int cpu, target = NR_CPUS;
	struct work_struct w;

	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			target = cpu;
	if (target == NR_CPUS) {
		ktest_skip(t, "every possible CPU is online (boot with maxcpus above -smp)");
		return;
	}
	KT_EXPECT_EQ(t, cpu_up(target), cpumask_test_cpu(target, &cpu_present_mask) ? 0 : -ENODEV);
	INIT_WORK(&w, where_fn);
	work_ran_on = NR_CPUS;
	KT_EXPECT_TRUE(t, queue_work_on(target, system_wq, &w));
	flush_work(&w);
	KT_EXPECT_TRUE(t, work_ran_on < NR_CPUS && cpu_online(work_ran_on));
}

/* ---- stacks freed while a CPU dies ---------------------------------------- */

/*
 * A dying CPU has left cpu_online_mask, so kstack_free()'s TLB shootdown
 * passes it by, yet it still runs kernel code that reaches into threads'
 * stacks: its dying callbacks move timers, and a sleeper's timer sits in
 * its thread's frame. A stack freed meanwhile must not be handed out again
 * in its slot before that CPU is dead: the dying CPU would read and write
 * it through its old translation, into the frames it used to have. Here
 * the dying CPU first caches a stack's translation, then, in a dying
 * callback, waits while another CPU frees that stack and allocates new
 * ones, and reads what was written in them.
 */
#define TLB_OFF	   512 /* a word in a stack's first page */
#define TLB_ALLOCS 64
static void *tlb_old, *tlb_got[TLB_ALLOCS];
static volatile unsigned int tlb_cpu = NR_CPUS, tlb_n, tlb_pick;
static volatile bool tlb_dying, tlb_freed, tlb_old_freed;
static volatile u64 tlb_seen;

static u64 tlb_marker(unsigned int i)
{
	return 0x57ac000000ull + i;
}

static void tlb_touch_fn(struct work_struct *w)
{
	*(volatile u64 *)((char *)tlb_old + TLB_OFF) = 0xdead;
}

/* On the dying CPU, interrupts off. */
static int tlb_dying_fn(unsigned int cpu)
{
	u64 t0 = ktime_get_ns();

	if (cpu != tlb_cpu)
		return 0;
	tlb_dying = true;
	while (!READ_ONCE(tlb_freed) && ktime_get_ns() - t0 < 20 * NSEC_PER_SEC)
		cpu_relax();
	if (tlb_freed && tlb_n)
		tlb_seen = *(volatile u64 *)((char *)READ_ONCE(tlb_got[tlb_pick]) + TLB_OFF);
	return 0;
}

static struct cpuhp_step tlb_step = {
	.name = "test:tlb",
	.phase = CPUHP_STARTING,
	.teardown = tlb_dying_fn,
};

/* Another CPU: free the stack the dying CPU knows, hold on to the frames
 * it had (should the allocator hand them out first), then allocate until
 * the old slot comes back (or TLB_ALLOCS stacks), marking each. */
static int tlb_helper(void *arg)
{
	phys_addr_t *grab = arg;

	u64 deadline = 0;

	while (!(tlb_dying || kthread_should_stop()) && ktest_wait_poll(&deadline))
		;
	if (!tlb_dying)
		return 0;
	kstack_free(tlb_old);
	tlb_old_freed = true;
	*grab = pmm_alloc_pages((unsigned int)__builtin_ctzl(KSTACK_SIZE / PAGE_SIZE));
	for (unsigned int i = 0; i < TLB_ALLOCS; i++) {
		void *s = kstack_alloc("test:tlb");

		if (!s)
			break;
		*(volatile u64 *)((char *)s + TLB_OFF) = tlb_marker(i);
		WRITE_ONCE(tlb_got[i], s);
		tlb_n = i + 1;
		if (s == tlb_old) {
			tlb_pick = i;
			break;
		}
	}
	tlb_freed = true;
	return 0;
}

static void stacks_freed_while_a_cpu_dies(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), other = 0;
	phys_addr_t grab = 0;
	struct work_struct w;

	if (!ktest_need_cpus(t, 2))
		return;
	tlb_old = kstack_alloc("test:tlb-old");
	KT_ASSERT_TRUE(t, tlb_old != NULL);
	INIT_WORK(&w, tlb_touch_fn);
	queue_work_on(cpu, system_wq, &w); /* the dying CPU caches the mapping */
	flush_work(&w);
	tlb_cpu = cpu;
	tlb_dying = tlb_freed = tlb_old_freed = false;
	tlb_n = tlb_pick = 0;
	tlb_seen = 0;
	struct thread *helper = kthread_create(tlb_helper, &grab, "tlb/helper");

	if (!helper)
		kstack_free(tlb_old);
	KT_ASSERT_TRUE(t, helper != NULL);
	set_cpus_allowed(helper, cpumask_of(other));
	wake_up_thread(helper);
	cpuhp_add_step(&tlb_step);
	int down = cpu_down(cpu);

	cpuhp_remove_step(&tlb_step);
	kthread_stop(helper);
	unsigned int held = kstack_nr_held(NULL);

	for (unsigned int i = 0; i < tlb_n; i++)
		kstack_free(tlb_got[i]);
	if (grab)
		pmm_free_pages(grab);
	if (!tlb_old_freed)
		kstack_free(tlb_old);
	if (down == 0)
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_EQ(t, down, 0);
	KT_ASSERT_TRUE(t, tlb_freed && tlb_n > 0);
	/* The old slot stayed out of reach while the CPU was dying, and what
	 * the dying CPU read is what was written. */
	KT_EXPECT_TRUE(t, tlb_got[tlb_pick] != tlb_old);
	KT_EXPECT_EQ(t, tlb_seen, tlb_marker(tlb_pick));
	/* Dead, it held nothing back any more: the slot was free again. */
	KT_EXPECT_EQ(t, held, 0);
}

/* ---- the way up fails --------------------------------------------------- */

static bool cpu_pools_empty(unsigned int cpu)
{
	struct wq_pool_stats a, b;

	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &a);
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &b);
	return a.nr_workers == 0 && b.nr_workers == 0;
}

/* The bound worker of an online step cannot be made, after the trustee has
 * released every worker of the CPU's pools: the online fails, cpu_up()
 * takes the CPU back down (also when its stopper thread cannot be made at
 * first) and the trustee keeps the pools, so items queued there still
 * run. Taken back with no worker, they would wait for good. */
static void a_worker_that_cannot_be_made_fails_the_online(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct cpuhp_stats st0, st1;
	static const unsigned int fails[] = { 1, 3 }; /* the worker; + the stopper twice */

	if (!ktest_need_cpus(t, 2))
		return;
	KT_ASSERT_EQ(t, cpu_down(cpu), 0);
	if (!KT_WAIT_UNTIL(t, cpu_pools_empty(cpu))) /* the trustee is done */
		return;
	for (unsigned int i = 0; i < ARRAY_SIZE(fails); i++) {
		cpuhp_get_stats(&st0);
		kthread_fail_own(fails[i]); /* the online step and the rollback run here */
		int err = cpu_up(cpu);

		kthread_fail_own(0);
		KT_EXPECT_EQ(t, err, -ENOMEM);
		cpuhp_get_stats(&st1);
		KT_EXPECT_EQ(t, st1.nr_up_failed - st0.nr_up_failed, 1);
		KT_EXPECT_EQ(t, st1.nr_up, st0.nr_up);
		KT_EXPECT_FALSE(t, cpu_online(cpu));
		KT_EXPECT_FALSE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
		if (err != -ENOMEM && cpu_online(cpu))
			KT_ASSERT_EQ(t, cpu_down(cpu), 0); /* a broken kernel: try on */
		KT_ASSERT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, false));
		if (!KT_WAIT_UNTIL(t, cpu_pools_empty(cpu)))
			return;
	}
	KT_ASSERT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, true));
	/* A worker the trustee's pool was still making when the CPU came back
	 * attaches unbound, marked to rebind, and rebinds as it starts: wait
	 * for that, bounded, rather than catch it on its way. */
	KT_WAIT_UNTIL(t, workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL) == 0 &&
				 workqueue_pool_unbound_workers(cpu, WQ_POOL_HIGHPRI) == 0);
}

/* Test steps in every phase, counting their calls for one CPU; the *_fail
 * ones fail their "up" when armed. */
static unsigned int steps_cpu = NR_CPUS;
static atomic_t prep_ups, prep_downs, start_ups, dying_downs, online_ups, offline_downs;
static volatile int fail_prepare, fail_online; /* the error to return, 0: none */

#define COUNTING(name, counter)                                                                    \
	static int name(unsigned int cpu)                                                          \
	{                                                                                          \
		if (cpu == steps_cpu)                                                              \
			atomic_inc(&counter);                                                      \
		return 0;                                                                          \
	}
COUNTING(prep_up, prep_ups)
COUNTING(prep_down, prep_downs)
COUNTING(start_up, start_ups)
COUNTING(dying_down, dying_downs)
COUNTING(online_up, online_ups)
COUNTING(offline_down, offline_downs)

static int prep_fail_up(unsigned int cpu)
{
	return cpu == steps_cpu ? fail_prepare : 0;
}

static int online_fail_up(unsigned int cpu)
{
	return cpu == steps_cpu ? fail_online : 0;
}

static struct cpuhp_step up_steps[] = {
	{ .name = "test:prep", .phase = CPUHP_PREPARE, .startup = prep_up, .teardown = prep_down },
	{ .name = "test:prep-fail", .phase = CPUHP_PREPARE, .startup = prep_fail_up },
	{ .name = "test:start",
	  .phase = CPUHP_STARTING,
	  .startup = start_up,
	  .teardown = dying_down },
	{ .name = "test:online",
	  .phase = CPUHP_ONLINE,
	  .startup = online_up,
	  .teardown = offline_down },
	{ .name = "test:online-fail", .phase = CPUHP_ONLINE, .startup = online_fail_up },
};

static void counts_are(struct ktest *t, const char *what, int pu, int pd, int su, int dd, int ou,
		       int od)
{
	int got[] = { atomic_read(&prep_ups),	atomic_read(&prep_downs),
		      atomic_read(&start_ups),	atomic_read(&dying_downs),
		      atomic_read(&online_ups), atomic_read(&offline_downs) };
	int want[] = { pu, pd, su, dd, ou, od };

	for (unsigned int i = 0; i < ARRAY_SIZE(got); i++)
		if (got[i] != want[i])
			ktest_fail(
				t, __FILE__, __LINE__,
				"%s: step calls (prepare, dead, starting, dying, online, offline) "
				"%d %d %d %d %d %d, expected %d %d %d %d %d %d",
				what, got[0], got[1], got[2], got[3], got[4], got[5], want[0],
				want[1], want[2], want[3], want[4], want[5]);
}

static void counts_reset(void)
{
	atomic_set(&prep_ups, 0);
	atomic_set(&prep_downs, 0);
	atomic_set(&start_ups, 0);
	atomic_set(&dying_downs, 0);
	atomic_set(&online_ups, 0);
	atomic_set(&offline_downs, 0);
}

/* Every way cpu_up() can fail after its checks (those are in
 * errors_are_clear and work_for_a_never_online_cpu_runs): a failing
 * "prepare" step, a CPU that does not start, a failing "online" step.
 * Each time what was done is undone in reverse, exactly once, the CPU is
 * offline as before, the failure is counted, and its work still runs. */
static void every_way_up_can_fail_rolls_back(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct cpuhp_stats st0, st1;

	if (!ktest_need_cpus(t, 2))
		return;
	KT_ASSERT_EQ(t, cpu_down(cpu), 0);
	steps_cpu = cpu;
	fail_prepare = fail_online = 0;
	counts_reset();
	for (unsigned int i = 0; i < ARRAY_SIZE(up_steps); i++)
		cpuhp_add_step(&up_steps[i]);
	cpuhp_get_stats(&st0);

	fail_prepare = -EIO; /* the earlier prepare step is undone; nothing else ran */
	KT_EXPECT_EQ(t, cpu_up(cpu), -EIO);
	fail_prepare = 0;
	counts_are(t, "a prepare step fails", 1, 1, 0, 0, 0, 0);
	KT_EXPECT_FALSE(t, cpu_online(cpu));

	counts_reset(); /* prepared, then the CPU does not start: prepare undone */
	cpuhp_fail_bringup_next(1);
	KT_EXPECT_EQ(t, cpu_up(cpu), -EIO);
	cpuhp_fail_bringup_next(0);
	counts_are(t, "the CPU does not start", 1, 1, 0, 0, 0, 0);
	KT_EXPECT_FALSE(t, cpu_online(cpu));

	counts_reset(); /* online, then a step fails: the CPU goes back down */
	fail_online = -EIO;
	KT_EXPECT_EQ(t, cpu_up(cpu), -EIO);
	fail_online = 0;
	counts_are(t, "an online step fails", 1, 1, 1, 1, 1, 1);
	KT_EXPECT_FALSE(t, cpu_online(cpu));
	KT_EXPECT_FALSE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
	KT_EXPECT_FALSE(t, cpu_going_down(cpu));
	cpuhp_get_stats(&st1);
	KT_EXPECT_EQ(t, st1.nr_up_failed - st0.nr_up_failed, 3);
	KT_EXPECT_EQ(t, st1.nr_up, st0.nr_up);
	KT_EXPECT_EQ(t, st1.nr_down, st0.nr_down); /* a rollback is no cpu_down */
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, false));

	counts_reset(); /* and then it comes up for real */
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	counts_are(t, "cpu_up", 1, 0, 1, 0, 1, 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(up_steps); i++)
		cpuhp_remove_step(&up_steps[i]);
	steps_cpu = NR_CPUS;
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, true));
}

/* ---- two callers at once ------------------------------------------------ */

/* A step that holds the first call to reach it (with the hotplug lock held)
 * at a gate until the test lets it go. */
static struct ktest_gate hold_gate;
static volatile bool hold_armed;

static int hold_step(unsigned int cpu)
{
	if (!hold_armed)
		return 0;
	hold_armed = false;
	ktest_gate_pass_bounded(&hold_gate);
	return 0;
}

static struct cpuhp_step hold_offline = { .name = "test:hold-offline",
					  .phase = CPUHP_ONLINE,
					  .teardown = hold_step };
static struct cpuhp_step hold_prepare = { .name = "test:hold-prepare",
					  .phase = CPUHP_PREPARE,
					  .startup = hold_step };

struct hp_call {
	int (*fn)(unsigned int cpu);
	unsigned int cpu;
	volatile bool calling;
	volatile int ret;
};

static int hp_call_fn(void *arg)
{
	struct hp_call *c = arg;

	c->calling = true;
	c->ret = c->fn(c->cpu);
	return 0;
}

/* a calls first and is held inside its operation; b calls while it is (b is
 * blocked on the hotplug lock); then a is let go. Returns false if the
 * threads could not be made. */
static bool call_together(struct ktest *t, struct hp_call *a, struct hp_call *b)
{
	struct thread *ta, *tb;

	ktest_gate_init(&hold_gate);
	a->calling = b->calling = false;
	a->ret = b->ret = 1;
	hold_armed = true;
	ta = kthread_run(hp_call_fn, a, "hp-call/a");
	if (!ta) {
		ktest_fail(t, __FILE__, __LINE__, "no thread for the first call");
		return false;
	}
	KT_GATE_WAIT_ARRIVED(t, &hold_gate, 1);
	tb = kthread_run(hp_call_fn, b, "hp-call/b");
	if (!tb) {
		ktest_gate_open(&hold_gate);
		kthread_stop(ta);
		ktest_fail(t, __FILE__, __LINE__, "no thread for the second call");
		return false;
	}
	/* b only blocks on the hotplug lock (a holds it). */
	KT_WAIT_UNTIL(t, b->calling && thread_state(tb) == THREAD_BLOCKED);
	KT_EXPECT_EQ(t, b->ret, 1); /* still waiting */
	ktest_gate_open(&hold_gate);
	KT_WAIT_UNTIL(t, a->ret != 1 && b->ret != 1);
	kthread_stop(ta);
	kthread_stop(tb);
	return true;
}

/* Two callers of cpu_down() for one CPU, the second arriving while the
 * first is inside: one takes it down, the other finds it offline. The same
 * for cpu_up(). With a third CPU, two different CPUs go down together. */
static void two_callers_at_once(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct hp_call a = { .fn = cpu_down, .cpu = cpu }, b = { .fn = cpu_down, .cpu = cpu };

	if (!ktest_need_cpus(t, 2))
		return;
	cpuhp_add_step(&hold_offline);
	bool ok = call_together(t, &a, &b);

	cpuhp_remove_step(&hold_offline);
	KT_ASSERT_TRUE(t, ok);
	KT_EXPECT_EQ(t, a.ret, 0);
	KT_EXPECT_EQ(t, b.ret, -EALREADY);
	KT_EXPECT_FALSE(t, cpu_online(cpu));

	a.fn = b.fn = cpu_up;
	cpuhp_add_step(&hold_prepare);
	ok = call_together(t, &a, &b);
	cpuhp_remove_step(&hold_prepare);
	KT_ASSERT_TRUE(t, ok);
	KT_EXPECT_EQ(t, a.ret, 0);
	KT_EXPECT_EQ(t, b.ret, -EALREADY);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, true));

	if (num_online_cpus() < 3)
		return;
	unsigned int other = cpumask_next(0, &cpu_online_mask);

	a = (struct hp_call){ .fn = cpu_down, .cpu = cpu };
	b = (struct hp_call){ .fn = cpu_down, .cpu = other };
	cpuhp_add_step(&hold_offline);
	ok = call_together(t, &a, &b);
	cpuhp_remove_step(&hold_offline);
	KT_ASSERT_TRUE(t, ok);
	KT_EXPECT_EQ(t, a.ret, 0);
	KT_EXPECT_EQ(t, b.ret, 0);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_EQ(t, cpu_up(other), 0);
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, other, true));
}

/* ---- rescuers ----------------------------------------------------------- */

static struct completion rescued;
static volatile bool rescued_in_rescuer;
static volatile unsigned int rescued_on;

static void rescued_fn(struct work_struct *w)
{
	rescued_in_rescuer = current_is_rescuer();
	preempt_disable();
	rescued_on = cpu_online(smp_processor_id()) ? smp_processor_id() : NR_CPUS;
	preempt_enable();
	complete(&rescued);
}

/* An unbound WQ_MEM_RECLAIM workqueue whose pool cannot make a worker: its
 * one worker turns manager and fails, the mayday timer calls the rescuer,
 * which runs the item. The pool is its own (a nice nobody else uses), so
 * it has exactly the worker it was made with. */
static void the_rescuer_of_an_unbound_workqueue_runs_its_items(struct ktest *t)
{
	struct workqueue_struct *wq;
	struct workqueue_attrs *attrs;
	static struct work_struct w;
	struct wq_stats st;

	wq = alloc_workqueue("test_hp_unbound_rescue", WQ_UNBOUND | WQ_MEM_RECLAIM, 1);
	KT_ASSERT_NOT_NULL(t, wq);
	attrs = alloc_workqueue_attrs();
	KT_ASSERT_NOT_NULL(t, attrs);
	attrs->nice = 13;
	cpumask_copy(&attrs->cpumask, &cpu_possible_mask);
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	free_workqueue_attrs(attrs);
	init_completion(&rescued);
	rescued_in_rescuer = false;
	INIT_WORK(&w, rescued_fn);
	kthread_fail_next(1000000);
	queue_work(wq, &w);
	u64 left = wait_for_completion_timeout(&rescued, KT_WAIT_LIMIT_NS);

	kthread_fail_next(0);
	KT_EXPECT_NE(t, left, 0);
	KT_EXPECT_TRUE(t, rescued_in_rescuer);
	KT_EXPECT_NE(t, rescued_on, NR_CPUS);
	workqueue_wq_stats(wq, &st);
	KT_EXPECT_LE(t, 1, st.nr_rescued);
	if (left)
		flush_work(&w);
	destroy_workqueue(wq);
}

/* Blockers of a pool's workers, held until the gate opens. */
static struct ktest_gate blockers_gate;

static void blocker_fn(struct work_struct *w)
{
	ktest_gate_pass(&blockers_gate);
}

/* "rescued N" of workqueue name in the dump (-1 if it is not listed). */
static long wq_rescued(const char *name)
{
	size_t size = 64 * 1024;
	char *buf = kmalloc(size), key[40];
	long n = -1;

	if (!buf)
		return -1;
	workqueue_dump(buf, size);
	snprintf(key, sizeof(key), "wq %-16s ", name);
	char *line = strstr(buf, key), *r = line ? strstr(line, " rescued ") : NULL;

	if (r && (!strchr(line, '\n') || r < strchr(line, '\n')))
		for (n = 0, r += 9; *r >= '0' && *r <= '9'; r++)
			n = n * 10 + (*r - '0');
	kfree(buf);
	return n;
}

#define POOL_BLOCKERS 64 /* more than a pool keeps idle after the busiest suites */

/* The idle workers of an unbound workqueue's pool. */
static unsigned int unbound_idle(struct workqueue_struct *wq)
{
	struct wq_pool_stats st;

	workqueue_wq_pool_stats(wq, WORK_CPU_UNBOUND, &st);
	return st.nr_idle;
}

/* Thread creations that fail while a pool is blocked (kthread_set_fail_hook),
 * never the case's own (cpu_down() makes a stopper thread): every other
 * one, or those of threads at nice 0 (system_unbound_wq's workers; the
 * trustees' are at -20). */
static bool fail_but_the_case(void *case_thread)
{
	return current != case_thread;
}

static bool fail_nice0_but_the_case(void *case_thread)
{
	struct thread_desc d;

	sched_describe_thread(current, &d);
	return current != case_thread && d.nice == 0;
}

/* With no worker to be made for it from now on (fail, the fail hook),
 * block wq's unbound pool: blockers, one at a time, until it has no idle
 * worker (each starts on an idle one, or finds none: then the pool is
 * full). How many were queued: unblock_unbound_pool() lets them go,
 * whatever the case found. */
static unsigned int block_unbound_pool(struct ktest *t, struct workqueue_struct *wq,
				       struct work_struct *blockers, bool (*fail)(void *))
{
	unsigned int n = 0;

	kthread_set_fail_hook(fail, current);
	ktest_gate_init(&blockers_gate);
	while (unbound_idle(wq) && n < POOL_BLOCKERS) {
		unsigned int arrived = ktest_gate_arrived(&blockers_gate);

		INIT_WORK(&blockers[n], blocker_fn);
		queue_work(wq, &blockers[n++]);
		KT_WAIT_UNTIL(t, ktest_gate_arrived(&blockers_gate) > arrived || !unbound_idle(wq));
	}
	KT_EXPECT_EQ(t, unbound_idle(wq), 0);
	return n;
}

static void unblock_unbound_pool(struct work_struct *blockers, unsigned int n)
{
	kthread_set_fail_hook(NULL, NULL);
	ktest_gate_open(&blockers_gate);
	for (unsigned int i = 0; i < n; i++)
		flush_work(&blockers[i]);
}

/* The trustees' pool is not system_unbound_wq's (theirs is the unbound
 * high-priority one): a CPU's hand-over does not wait for it. Its pool is
 * full (every worker blocked, none to be made for it) when the CPU goes
 * down with an item running there: the trustees start, nothing is rescued
 * from system_unbound_wq's pool, and the item goes on on an online CPU.
 * (With the pool shared, as before, the trustees waited there for the
 * mayday timer and their rescuer.) The trustees' own pool may still call
 * its rescuer if the host stalls a worker's creation there past the
 * mayday timeout: that is the rescuer's job, not a wait for
 * system_unbound_wq, so the case counts rescues of the blocked pool only
 * (it counted the trustees', and could fail on a loaded host). */
static void a_hand_over_does_not_wait_for_system_unbound_wq(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	static struct work_struct blockers[POOL_BLOCKERS];
	static struct ktest_gate item_gate;
	static struct ktest_where item;
	struct wq_pool_stats before, after, unbound_before, unbound_after;

	if (!ktest_need_cpus(t, 2))
		return;

	/* An item running on cpu (held at a gate) when it goes down: the
	 * trustee must take over the pool while it runs. It starts while
	 * workers can still be made (it needs a spare). */
	ktest_gate_init(&item_gate);
	ktest_where_init(&item, &item_gate);
	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &before);
	queue_work_on(cpu, system_wq, &item.work);
	KT_GATE_WAIT_ARRIVED(t, &item_gate, 1);
	unsigned int n =
		block_unbound_pool(t, system_unbound_wq, blockers, fail_nice0_but_the_case);
	workqueue_wq_pool_stats(system_unbound_wq, WORK_CPU_UNBOUND, &unbound_before);
	int err = cpu_down(cpu);
	bool down = err == 0;

	KT_EXPECT_EQ(t, err, 0);
	if (down) {
		KT_WAIT_UNTIL(t, ({
				      workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &after);
				      after.nr_trustee_runs > before.nr_trustee_runs;
			      }));
		workqueue_wq_pool_stats(system_unbound_wq, WORK_CPU_UNBOUND, &unbound_after);
		KT_EXPECT_EQ(t, unbound_after.nr_rescued, unbound_before.nr_rescued);
	}
	ktest_gate_open(&item_gate);
	KT_EXPECT_NE(t, wait_for_completion_timeout(&item.ran, KT_WAIT_LIMIT_NS), 0);
	if (down)
		KT_EXPECT_NE(t, item.cpu, cpu);
	unblock_unbound_pool(blockers, n);
	if (down)
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
}

/* The trustee needs no spare worker: work queued to an offline CPU whose
 * pools the trustee has emptied, while no worker can be made and every
 * worker of the trustees' pool is blocked (by items of an unbound
 * high-priority workqueue, which shares it). The trustees' workqueue has a
 * rescuer, which runs the trustee; the offline pool's mayday timer is
 * armed whether or not the trustee ran, and calls the rescuer of the
 * item's WQ_MEM_RECLAIM workqueue, which runs it on an online CPU. */
static void the_trustee_runs_with_no_worker_to_spare(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct workqueue_struct *wq, *hi_unbound;
	static struct work_struct w, blockers[POOL_BLOCKERS];
	struct wq_pool_stats before, after;

	if (!ktest_need_cpus(t, 2))
		return;
	wq = alloc_workqueue("test_hp_trustee_rescue", WQ_MEM_RECLAIM, 0);
	hi_unbound = alloc_workqueue("test_hp_hi_unbound", WQ_UNBOUND | WQ_HIGHPRI, 0);
	KT_ASSERT_TRUE(t, wq && hi_unbound);
	KT_ASSERT_EQ(t, cpu_down(cpu), 0);
	KT_WAIT_UNTIL(t, cpu_pools_empty(cpu));
	long trustee_rescued = wq_rescued("trustee");

	KT_EXPECT_LE(t, 0, trustee_rescued);
	unsigned int n = block_unbound_pool(t, hi_unbound, blockers, fail_but_the_case);

	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &before);
	init_completion(&rescued);
	rescued_in_rescuer = false;
	INIT_WORK(&w, rescued_fn);
	queue_work_on(cpu, wq, &w);
	u64 left = wait_for_completion_timeout(&rescued, KT_WAIT_LIMIT_NS);

	/* The trustee was queued by that item, and has run by its rescuer. */
	KT_WAIT_UNTIL(t, wq_rescued("trustee") > trustee_rescued);
	unblock_unbound_pool(blockers, n);
	KT_EXPECT_NE(t, left, 0);
	KT_EXPECT_TRUE(t, rescued_in_rescuer);
	KT_EXPECT_NE(t, rescued_on, NR_CPUS);
	KT_EXPECT_NE(t, rescued_on, cpu);
	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &after);
	KT_EXPECT_LE(t, before.nr_maydays + 1, after.nr_maydays);
	KT_EXPECT_LE(t, before.nr_rescued + 1, after.nr_rescued);
	if (left)
		flush_work(&w);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	destroy_workqueue(hi_unbound);
	destroy_workqueue(wq);
}

/* ---- freezing across hotplug -------------------------------------------- */

#define FRZ_ITEMS 8
static atomic_t frz_runs[FRZ_ITEMS];

static void frz_fn(struct work_struct *w);
static struct work_struct frz_items[FRZ_ITEMS];

static void frz_fn(struct work_struct *w)
{
	atomic_inc(&frz_runs[w - frz_items]);
}

static int frz_total(void)
{
	int n = 0;

	for (int i = 0; i < FRZ_ITEMS; i++)
		n += atomic_read(&frz_runs[i]);
	return n;
}

/* A frozen freezable workqueue holds its items across hotplug: queued to a
 * CPU that then goes down, they are not run by the trustee; queued to an
 * offline CPU that then comes back, not by its new bound worker. Thawed,
 * each runs exactly once. Frozen and thawed with the CPU offline too. */
static void freezing_holds_across_hotplug(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct workqueue_struct *wq;
	int i;

	if (!ktest_need_cpus(t, 2))
		return;
	wq = alloc_workqueue("test_hp_freezable", WQ_FREEZABLE, 0);
	KT_ASSERT_NOT_NULL(t, wq);
	for (i = 0; i < FRZ_ITEMS; i++) {
		INIT_WORK(&frz_items[i], frz_fn);
		atomic_set(&frz_runs[i], 0);
	}
	KT_ASSERT_EQ(t, workqueue_freeze(KT_WAIT_LIMIT_NS), 0);
	for (i = 0; i < FRZ_ITEMS / 2; i++)
		KT_EXPECT_TRUE(t, queue_work_on(cpu, wq, &frz_items[i]));
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, false)); /* the trustee is at work */
	for (; i < FRZ_ITEMS; i++)
		KT_EXPECT_TRUE(t, queue_work_on(cpu, wq, &frz_items[i]));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, true)); /* the pools are back */
	KT_EXPECT_EQ(t, frz_total(), 0);
	for (i = 0; i < FRZ_ITEMS; i++)
		KT_EXPECT_TRUE(t, work_pending(&frz_items[i]));
	workqueue_thaw();
	flush_workqueue(wq);
	for (i = 0; i < FRZ_ITEMS; i++)
		KT_EXPECT_EQ(t, atomic_read(&frz_runs[i]), 1);

	/* Frozen while the CPU is offline, thawed after it came back. */
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_ASSERT_EQ(t, workqueue_freeze(KT_WAIT_LIMIT_NS), 0);
	for (i = 0; i < FRZ_ITEMS; i++)
		KT_EXPECT_TRUE(t, queue_work_on(cpu, wq, &frz_items[i]));
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, false));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_TRUE(t, ktest_item_for_cpu_runs(t, cpu, true));
	KT_EXPECT_EQ(t, frz_total(), FRZ_ITEMS);
	workqueue_thaw();
	flush_workqueue(wq);
	for (i = 0; i < FRZ_ITEMS; i++)
		KT_EXPECT_EQ(t, atomic_read(&frz_runs[i]), 2);
	destroy_workqueue(wq);
}

KTEST_SUITE(hotplug, KTEST_CASE(work_for_a_never_online_cpu_runs), KTEST_CASE(errors_are_clear),
	    KTEST_CASE(every_cpu_goes_offline_and_comes_back),
	    KTEST_CASE(timers_and_interrupts_move_to_a_live_cpu),
	    KTEST_CASE(offline_with_pending_work_returns_at_once),
	    KTEST_CASE(reonline_while_the_trustee_is_in_charge),
	    KTEST_CASE(a_worker_rebinds_between_requeued_items),
	    KTEST_CASE(cancelled_offline_leaves_no_trace), KTEST_CASE(the_last_cpu_is_refused),
	    KTEST_CASE(hotplug_while_workers_block_and_wake),
	    KTEST_CASE(stacks_freed_while_a_cpu_dies),
	    KTEST_CASE(a_worker_that_cannot_be_made_fails_the_online),
	    KTEST_CASE(every_way_up_can_fail_rolls_back), KTEST_CASE(two_callers_at_once),
	    KTEST_CASE(the_rescuer_of_an_unbound_workqueue_runs_its_items),
	    KTEST_CASE(the_trustee_runs_with_no_worker_to_spare),
	    KTEST_CASE(a_hand_over_does_not_wait_for_system_unbound_wq),
	    KTEST_CASE(freezing_holds_across_hotplug));

/*
 * timer_hotplug_stress (run only when named): sleepers in short
 * schedule_timeout()s (0 to 3 ms: sub-tick) and early wake-ups, threads
 * hopping between CPUs, CPU-bound threads sharing CPUs (their slices end
 * by clock events), timers armed at random sub-tick expiries on random
 * CPUs and cancelled at random, and a CPU going down and up as fast as it
 * can, for a minute; every timer queue is checked after each cycle, and
 * every timer fired exactly once per arming that was not cancelled, never
 * early. The queues' own checks (kernel/timer.c) stop the kernel at the
 * first stale or foreign node. A focused soak of what a dying CPU's stale
 * TLB used to break about once in 2.5 hours of torture
 * (stacks_freed_while_a_cpu_dies above; docs/hotplug.md).
 */
#define THS_THREADS  8
#define THS_SPINNERS 4
#define THS_TIMERS   16
#define THS_SECONDS  60
static volatile bool ths_stop;
static struct thread *ths_threads[THS_THREADS];
static atomic_t ths_sleeps;

static struct ths_timer {
	struct timer_list timer;
	u64 expires;	/* the arming thread's, while the timer is pending */
	u64 armed;	/* the arming thread's */
	u64 cancelled;	/* the arming thread's */
	atomic_t fired; /* its callback's */
	atomic_t early; /* its callback's */
} ths_timers[THS_TIMERS];

static void ths_timer_fn(struct timer_list *tl)
{
	struct ths_timer *tm = container_of(tl, struct ths_timer, timer);

	if (ktime_get_ns() < tm->expires)
		atomic_inc(&tm->early);
	atomic_inc(&tm->fired);
}

/* The only one to arm the timers: each is re-armed only after
 * del_timer_sync() (no callback under way), so its expiry has one writer. */
static int ths_armer(void *arg)
{
	struct prng r;

	prng_seed(&r, 77);
	while (!ths_stop) {
		struct ths_timer *tm = &ths_timers[prng_below(&r, THS_TIMERS)];
		unsigned int cpu = (unsigned int)prng_below(&r, nr_cpu_ids);

		if (del_timer_sync(&tm->timer))
			tm->cancelled++;
		tm->expires = ktime_get_ns() + prng_below(&r, 2000) * NSEC_PER_USEC;
		tm->armed++;
		add_timer_on(&tm->timer, tm->expires, cpu); /* an offline CPU: an online one */
		if (prng_below(&r, 4) == 0)
			msleep(1);
	}
	return 0;
}

/* CPU-bound, on the CPUs it is moved to: its slices end by the clock
 * event of whatever CPU it shares. */
static int ths_spinner(void *arg)
{
	struct prng r;

	prng_seed(&r, (u64)(unsigned long)arg + 100);
	while (!ths_stop) {
		u64 end = ktime_get_ns() + prng_below(&r, 5000) * NSEC_PER_USEC;

		while (!ths_stop && ktime_get_ns() < end)
			cpu_relax();
		set_cpus_allowed(current, cpumask_of((unsigned int)prng_below(&r, nr_cpu_ids)));
	}
	return 0;
}

static int ths_sleeper(void *arg)
{
	struct prng r;

	prng_seed(&r, (u64)(unsigned long)arg + 1);
	while (!ths_stop) {
		if (prng_below(&r, 8) == 0) {
			unsigned int cpu = (unsigned int)prng_below(&r, nr_cpu_ids);
			const struct cpumask *m =
				prng_below(&r, 2) ? &cpu_possible_mask : cpumask_of(cpu);

			set_cpus_allowed(current, m); /* -EINVAL if offline: fine */
		}
		set_current_state(THREAD_BLOCKED);
		schedule_timeout(prng_below(&r, 3 * NSEC_PER_MSEC));
		__set_current_state(THREAD_RUNNING);
		atomic_inc(&ths_sleeps);
	}
	return 0;
}

static int ths_waker(void *arg)
{
	struct prng r;

	prng_seed(&r, 99);
	while (!ths_stop) {
		wake_up_thread(ths_threads[prng_below(&r, THS_THREADS)]); /* early */
		if (prng_below(&r, 4) == 0)
			msleep(1);
	}
	return 0;
}

static void sleepers_survive_cpus_coming_and_going(struct ktest *t)
{
	struct thread *waker, *armer, *spinners[THS_SPINNERS];
	struct prng r;
	unsigned int cycles = 0, bad = 0;

	if (!ktest_need_cpus(t, 2))
		return;
	ths_stop = false;
	atomic_set(&ths_sleeps, 0);
	for (unsigned int i = 0; i < THS_TIMERS; i++) {
		ths_timers[i] = (struct ths_timer){ 0 };
		timer_setup(&ths_timers[i].timer, ths_timer_fn);
	}
	for (unsigned long i = 0; i < THS_THREADS; i++) {
		ths_threads[i] = kthread_create(ths_sleeper, (void *)i, "ths/%lu", i);
		KT_ASSERT_NOT_NULL(t, ths_threads[i]);
	}
	for (unsigned long i = 0; i < THS_SPINNERS; i++) {
		spinners[i] = kthread_create(ths_spinner, (void *)i, "ths/spin%lu", i);
		KT_ASSERT_NOT_NULL(t, spinners[i]);
	}
	waker = kthread_create(ths_waker, NULL, "ths/waker");
	armer = kthread_create(ths_armer, NULL, "ths/armer");
	KT_ASSERT_NOT_NULL(t, waker);
	KT_ASSERT_NOT_NULL(t, armer);
	for (unsigned int i = 0; i < THS_THREADS; i++)
		wake_up_thread(ths_threads[i]);
	for (unsigned int i = 0; i < THS_SPINNERS; i++)
		wake_up_thread(spinners[i]);
	wake_up_thread(waker);
	wake_up_thread(armer);
	/* From the clock, but from the seed in deterministic mode (the clock
	 * repeats there too: the seed says so). */
	prng_seed(&r, det_mode() ? det_seed() : ktime_get_ns());
	for (u64 t0 = ktime_get_ns(); ktime_get_ns() - t0 < THS_SECONDS * NSEC_PER_SEC; cycles++) {
		unsigned int cpu = 1 + (unsigned int)prng_below(&r, nr_cpu_ids - 1);

		if (cpu_down(cpu) == 0) {
			msleep((unsigned int)prng_below(&r, 3));
			KT_EXPECT_EQ(t, cpu_up(cpu), 0);
		}
		bad += timers_check();
	}
	ths_stop = true;
	kthread_stop(waker);
	kthread_stop(armer);
	u64 armed = 0, fired = 0, preempted = 0;

	for (unsigned int i = 0; i < THS_SPINNERS; i++) {
		preempted += spinners[i]->stats.nivcsw;
		kthread_stop(spinners[i]);
	}
	for (unsigned int i = 0; i < THS_THREADS; i++)
		kthread_stop(ths_threads[i]);
	for (unsigned int i = 0; i < THS_TIMERS; i++) {
		struct ths_timer *tm = &ths_timers[i];

		if (del_timer_sync(&tm->timer))
			tm->cancelled++;
		KT_EXPECT_EQ(t, tm->armed, tm->cancelled + (u64)atomic_read(&tm->fired));
		KT_EXPECT_EQ(t, atomic_read(&tm->early), 0);
		armed += tm->armed;
		fired += (u64)atomic_read(&tm->fired);
	}
	pr_info("timer_hotplug_stress: %u cycles, %d sleeps, %lu timers armed (%lu fired), "
		"spinners "
		"preempted %lu times\n",
		cycles, atomic_read(&ths_sleeps), armed, fired, preempted);
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_LE(t, 1, atomic_read(&ths_sleeps));
	KT_EXPECT_LE(t, 1, fired);
	KT_EXPECT_LE(t, 1, preempted);
}

KTEST_SUITE_EXPLICIT(timer_hotplug_stress, KTEST_CASE(sleepers_survive_cpus_coming_and_going));
