/* tests/kernel/test_timer.c - timers that expire when due, and CPUs without
 * a tick: expiry order and exactness on many CPUs, cancels racing expiry,
 * a timer armed from an interrupt on an idle CPU, an idle CPU taking no
 * timer interrupt, a woken thread running at once on an idle CPU, timers
 * following a CPU that goes offline.
 *
 * Never early is checked everywhere. How late a timer may be is checked
 * only where guest time is the machine's own (the timers-icount boot,
 * under QEMU's -icount: ktest_timer_slack_us); elsewhere the host may
 * stall a virtual CPU for as long as it likes. */
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/wait.h"
#include "lib/random.h"
#include "tests/kernel/ktest_helpers.h"

static unsigned int ktest_timer_slack_us;
PARAM_UINT(ktest_timer_slack_us, ktest_timer_slack_us, 0, 1000000,
	   "tests: the latest a timer may fire after its expiry, in us (0: no bound; for "
	   "boots whose guest time the host cannot stretch, -icount)");

/* Check one firing: never before its expiry, and within the slack when
 * one is set. Returns the lateness. */
static u64 check_firing(struct ktest *t, u64 expires, u64 fired_at)
{
	KT_EXPECT_LE(t, expires, fired_at);
	if (fired_at < expires)
		return 0;
	if (ktest_timer_slack_us)
		KT_EXPECT_LE(t, fired_at - expires, (u64)ktest_timer_slack_us * NSEC_PER_USEC);
	return fired_at - expires;
}

/* ---- many timers on many CPUs ------------------------------------------- */

#define MANY 256

static struct many_timer {
	struct timer_list timer;
	u64 expires;
	u64 armed; /* after add_timer_on() returned: it was queued by then */
	u64 fired_at;
	unsigned int cpu, fired_on, rank; /* rank: its place among its CPU's firings */
} many[MANY];
static unsigned int many_next_rank[NR_CPUS]; /* each only by its CPU, interrupts off */
static atomic_t many_fired;

static void many_fn(struct timer_list *tl)
{
	struct many_timer *m = container_of(tl, struct many_timer, timer);
	unsigned int cpu = smp_processor_id();

	m->fired_at = ktime_get_ns();
	m->fired_on = cpu;
	m->rank = many_next_rank[cpu]++;
	atomic_inc(&many_fired);
}

/* MANY timers over every online CPU, armed in a random order (from this
 * CPU, so most are armed on another CPU's queue: each that becomes the
 * first there must make that CPU program its clock event), with random
 * expiries between 2 and 12 ms away, 1 us apart at the closest: each fires
 * once, on its CPU, never early, and each CPU fires its own in expiry
 * order: of two timers of one CPU, the one fired first is the earlier,
 * unless the other was armed only after it fired (arming may take longer
 * than 2 ms when the host stalls this vCPU). */
/* One round: arm the MANY timers in a random order, wait for them, check
 * them; returns how many were armed before they were due (only those can
 * show an early firing). */
static unsigned int fire_round(struct ktest *t, struct prng *r, const unsigned int *cpus,
			       unsigned int n, u64 *latest)
{
	unsigned int order[MANY], cpu, in_time = 0;

	for (unsigned int i = 0; i < MANY; i++) {
		order[i] = i;
		many[i].cpu = cpus[i % n];
		many[i].fired_on = NR_CPUS;
		many[i].fired_at = 0;
		timer_setup(&many[i].timer, many_fn);
	}
	for (unsigned int i = MANY - 1; i > 0; i--) { /* Fisher-Yates */
		unsigned int j = prng_below(r, i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for_each_online_cpu(cpu)
		many_next_rank[cpu] = 0;
	atomic_set(&many_fired, 0);
	u64 base = ktime_get_ns() + 20 * NSEC_PER_MSEC;

	for (unsigned int k = 0; k < MANY; k++) {
		struct many_timer *m = &many[order[k]];

		m->expires = base + prng_below(r, 10000) * NSEC_PER_USEC;
		add_timer_on(&m->timer, m->expires, m->cpu);
		m->armed = ktime_get_ns();
	}
	KT_WAIT_UNTIL(t, atomic_read(&many_fired) == MANY);
	for (unsigned int i = 0; i < MANY; i++) {
		struct many_timer *a = &many[i];
		/* When a was taken off its queue: not before its expiry, and not
		 * before the timer its CPU ran just before it had started. */
		u64 picked = a->expires;

		for (unsigned int j = 0; j < MANY; j++)
			if (many[j].cpu == a->cpu && many[j].rank + 1 == a->rank)
				picked = max(picked, many[j].fired_at);
		in_time += a->armed < a->expires;
		KT_EXPECT_EQ(t, a->fired_on, a->cpu);
		*latest = max(*latest, check_firing(t, a->expires, a->fired_at));
		for (unsigned int j = 0; j < MANY; j++) { /* the CPU's order */
			const struct many_timer *b = &many[j];

			/* b fired after a, and was queued when a was taken */
			if (b->cpu == a->cpu && b->rank > a->rank && b->armed < picked)
				KT_EXPECT_LE(t, a->expires, b->expires);
		}
		KT_EXPECT_FALSE(t, timer_pending(&a->timer));
	}
	KT_EXPECT_EQ(t, atomic_read(&many_fired), MANY); /* none twice */
	KT_EXPECT_EQ(t, timers_check(), 0);
	return in_time;
}

/* MANY timers over every online CPU, armed in a random order (from this
 * CPU, so most are armed on another CPU's queue: each that becomes the
 * first there must make that CPU program its clock event), with random
 * expiries between 20 and 30 ms away, 1 us apart at the closest: each
 * fires once, on its CPU, never early, and each CPU fires its own in
 * expiry order: of two timers of one CPU, the one fired first is the
 * earlier, unless the other was armed only after the first was taken off
 * the queue (it is run without the queue's lock held). A host that
 * stalls this vCPU while it arms them (20 ms is far beyond what arming
 * takes) leaves them due before they are armed, and then they cannot fire
 * early: the round is done again, three times at most, until at least
 * half were armed in time. */
static void timers_fire_when_due_in_order_on_every_cpu(struct ktest *t)
{
	unsigned int cpus[NR_CPUS], n = 0, cpu, in_time = 0, round;
	struct prng r;
	u64 latest = 0;

	prng_seed(&r, 7);
	for_each_online_cpu(cpu)
		cpus[n++] = cpu;
	for (round = 0; round < 3 && in_time < MANY / 2; round++)
		in_time = fire_round(t, &r, cpus, n, &latest);
	if (in_time < MANY / 2)
		ktest_fail(t, __FILE__, __LINE__,
			   "three rounds, and each time fewer than half the timers were armed "
			   "before they were due (the host held this vCPU for 20 ms)");
	printk(KERN_RAW "    # %u timers on %u CPUs, %u armed before due in round %u: the latest "
			"fired %lu us after its expiry\n",
	       MANY, n, in_time, round, (u64)(latest / NSEC_PER_USEC));
}

/* ---- cancel against expiry ---------------------------------------------- */

#define RACE_ROUNDS 2000

static struct timer_list race_timer;
static atomic_t race_fired;

/* Counts only at its end, 20 us in: a del_timer_sync() that returned while
 * it ran would find the round counted neither way. */
static void race_fn(struct timer_list *tl)
{
	udelay(20);
	atomic_inc(&race_fired);
}

/* A timer armed on another CPU to expire within 0 to 40 us, cancelled
 * after a random 0 to 40 us: every round it either fired or was cancelled,
 * exactly one of the two, and the count is final as soon as
 * del_timer_sync() returns (it waits for a callback under way). */
static void cancel_races_expiry(struct ktest *t)
{
	unsigned int other = NR_CPUS, cancelled = 0, cpu;
	struct prng r;

	if (!ktest_need_cpus(t, 2))
		return;
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			other = cpu;
	prng_seed(&r, 11);
	timer_setup(&race_timer, race_fn);
	atomic_set(&race_fired, 0);
	for (unsigned int i = 0; i < RACE_ROUNDS; i++) {
		add_timer_on(&race_timer, ktime_get_ns() + prng_below(&r, 40) * NSEC_PER_USEC,
			     other);
		udelay(prng_below(&r, 40));
		bool was = prng_below(&r, 2) ? del_timer(&race_timer) : del_timer_sync(&race_timer);

		was |= del_timer_sync(&race_timer);
		cancelled += was;
		if (cancelled + (unsigned int)atomic_read(&race_fired) != i + 1)
			break;
	}
	KT_EXPECT_EQ(t, cancelled + (unsigned int)atomic_read(&race_fired), RACE_ROUNDS);
	KT_EXPECT_FALSE(t, timer_pending(&race_timer));
	printk(KERN_RAW "    # %u rounds: %u fired, %u cancelled\n", RACE_ROUNDS,
	       atomic_read(&race_fired), cancelled);
}

/* ---- del_timer_sync() against two callbacks of one timer ---------------- */

/* How long the callback that outlives the other holds on, unless the test
 * says del_timer_sync() returned: a fixed delay is fine here, since only a
 * broken del_timer_sync() returns within it (a fixed one waits it out),
 * and the longer, the surer a broken one is caught. */
#define OVERLAP_HOLD_NS (20 * NSEC_PER_MSEC)
/* How long the first callback lets del_timer_sync() get going before it
 * moves its timer: on the old code that is the window in which a move
 * escapes its scan; the verdict asserted does not depend on it. */
#define OVERLAP_LEAD_US 1000
#define OVERLAP_ROUNDS	5

/* A timer whose callback on cpu_a re-arms it onto cpu_b, where it fires
 * while the first callback still runs: two callbacks of one timer at once.
 * Which of the two holds on until del_timer_sync() returned: */
enum overlap_outliver { OVERLAP_LATER, OVERLAP_EARLIER };

static struct overlap {
	struct timer_list timer;
	enum overlap_outliver outliver;
	unsigned int cpu_a, cpu_b;
	bool first_started, first_done;	  /* the callback on cpu_a */
	bool second_started, second_done; /* the first callback on cpu_b */
	bool sync_calling;		  /* the test is about to call del_timer_sync() */
	bool sync_returned;		  /* ... and it returned */
	bool timed_out;			  /* a wait of the first callback's that
					   * ends by itself did not */
} ov;

/* Interrupts off: hold on until del_timer_sync() returned, or the hold
 * passed. */
static void overlap_hold(void)
{
	u64 end = ktime_get_ns() + OVERLAP_HOLD_NS;

	while (!READ_ONCE(ov.sync_returned) && ktime_get_ns() < end)
		cpu_relax();
}

static void overlap_first(struct timer_list *tl)
{
	u64 deadline = 0;

	WRITE_ONCE(ov.first_started, true);
	if (ov.outliver == OVERLAP_LATER) {
		/* Move only once del_timer_sync() is under way. It may take
		 * the moved timer off cpu_b's queue before that CPU runs it:
		 * move it again then, until a second callback starts. */
		while (!READ_ONCE(ov.sync_calling) && ktest_wait_poll_busy(&deadline))
			;
		udelay(OVERLAP_LEAD_US);
		while (!READ_ONCE(ov.second_started)) {
			if (!timer_pending(tl))
				add_timer_on(tl, ktime_get_ns(), ov.cpu_b);
			if (!ktest_wait_poll_busy(&deadline))
				break;
		}
		if (!READ_ONCE(ov.second_started))
			WRITE_ONCE(ov.timed_out, true);
	} else {
		/* Move at once, and hold on from when del_timer_sync() is
		 * called, after the second callback is done. */
		add_timer_on(tl, ktime_get_ns(), ov.cpu_b);
		while (!READ_ONCE(ov.sync_calling) && ktest_wait_poll_busy(&deadline))
			;
		if (!READ_ONCE(ov.sync_calling))
			WRITE_ONCE(ov.timed_out, true);
		overlap_hold();
	}
	WRITE_ONCE(ov.first_done, true);
}

static void overlap_fn(struct timer_list *tl)
{
	if (smp_processor_id() == ov.cpu_a) {
		overlap_first(tl);
		return;
	}
	/* On cpu_b. A move raced with a second callback starting may have
	 * queued a third here: it has nothing to do. */
	if (READ_ONCE(ov.second_started))
		return;
	WRITE_ONCE(ov.second_started, true);
	if (ov.outliver == OVERLAP_LATER)
		overlap_hold();
	WRITE_ONCE(ov.second_done, true);
}

/* The three CPUs of the case: this one (the test pins itself to cpu0, which
 * never goes offline), cpu_b above it and cpu_a above that (the old
 * del_timer_sync() scanned the CPUs in order, so cpu_b's callback could
 * start behind its scan). False, skipped, on fewer than three. */
static bool overlap_cpus(struct ktest *t, struct cpumask *old)
{
	if (!ktest_need_cpus(t, 3))
		return false;
	int err = sched_pin_current(0, old);

	KT_EXPECT_EQ(t, err, 0);
	ov.cpu_b = cpumask_next(0, &cpu_online_mask);
	ov.cpu_a = ktest_last_online_cpu();
	return !err;
}

/* One round: arm the timer on cpu_a, call del_timer_sync() where the case
 * says; returns whether the callback that outlives the other was done
 * when del_timer_sync() returned, as it must be. */
static bool overlap_round(struct ktest *t, enum overlap_outliver outliver)
{
	bool done_at_return;

	ov = (struct overlap){ .outliver = outliver, .cpu_a = ov.cpu_a, .cpu_b = ov.cpu_b };
	timer_setup(&ov.timer, overlap_fn);
	add_timer_on(&ov.timer, ktime_get_ns(), ov.cpu_a);
	if (outliver == OVERLAP_LATER)
		KT_WAIT_UNTIL(t, READ_ONCE(ov.first_started));
	else
		KT_WAIT_UNTIL(t, READ_ONCE(ov.second_done));
	WRITE_ONCE(ov.sync_calling, true);
	del_timer_sync(&ov.timer);
	done_at_return =
		outliver == OVERLAP_LATER ? READ_ONCE(ov.second_done) : READ_ONCE(ov.first_done);
	WRITE_ONCE(ov.sync_returned, true);
	/* Let a callback that a broken del_timer_sync() left behind end. */
	KT_WAIT_UNTIL(t, READ_ONCE(ov.first_done) && READ_ONCE(ov.second_done));
	del_timer_sync(&ov.timer);
	KT_EXPECT_FALSE(t, ov.timed_out);
	KT_EXPECT_FALSE(t, timer_active(&ov.timer));
	return done_at_return;
}

/* A callback on cpu_a re-arms its timer onto cpu_b once del_timer_sync()
 * is under way (on a third CPU), and returns only after a second callback
 * has started there, which holds on: del_timer_sync() must wait for the
 * second, not return because the first is done and the timer is not
 * pending (the old one did, when cpu_b's callback started behind its scan
 * of the CPUs; the window is taken OVERLAP_ROUNDS times). */
static void del_timer_sync_waits_for_a_callback_moved_to_another_cpu(struct ktest *t)
{
	struct cpumask old;

	if (!overlap_cpus(t, &old))
		return;
	for (unsigned int round = 0; round < OVERLAP_ROUNDS; round++)
		if (!overlap_round(t, OVERLAP_LATER)) {
			ktest_fail(t, __FILE__, __LINE__,
				   "round %u: del_timer_sync() returned while the callback on "
				   "cpu%u ran",
				   round, ov.cpu_b);
			break;
		}
	sched_unpin_current(&old);
}

/* The other way round: the callback on cpu_b is done, the one on cpu_a
 * that moved the timer there still runs; del_timer_sync(), called then,
 * must wait for it, though the timer's home and last CPU is cpu_b (a
 * verdict from the CPU that ran it last would return at once). */
static void del_timer_sync_waits_for_an_earlier_callback_still_running(struct ktest *t)
{
	struct cpumask old;

	if (!overlap_cpus(t, &old))
		return;
	if (!overlap_round(t, OVERLAP_EARLIER))
		ktest_fail(t, __FILE__, __LINE__,
			   "del_timer_sync() returned while the callback on cpu%u ran", ov.cpu_a);
	sched_unpin_current(&old);
}

/* ---- timer_active() ----------------------------------------------------- */

static struct timer_list active_timer;
static bool active_started, active_release, active_done, active_timed_out;

static void active_fn(struct timer_list *tl)
{
	u64 deadline = 0;

	WRITE_ONCE(active_started, true);
	while (!READ_ONCE(active_release) && ktest_wait_poll_busy(&deadline))
		;
	active_timed_out = !READ_ONCE(active_release);
	WRITE_ONCE(active_done, true);
}

static void call_nothing(void *arg)
{
}

/* timer_active(): false for a timer never armed; true while it is pending;
 * false once cancelled; true while its callback runs on another CPU (held
 * there on a flag of the test's), not pending then; false once it
 * returned. */
static void timer_active_while_pending_or_running(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct cpumask old;

	if (!ktest_need_cpus(t, 2))
		return;
	KT_ASSERT_EQ(t, sched_pin_current(0, &old), 0);
	active_started = active_release = active_done = false;
	timer_setup(&active_timer, active_fn);
	KT_EXPECT_FALSE(t, timer_active(&active_timer));
	add_timer_on(&active_timer, ktime_get_ns() + 60 * NSEC_PER_SEC, cpu);
	KT_EXPECT_TRUE(t, timer_active(&active_timer));
	KT_EXPECT_TRUE(t, del_timer(&active_timer));
	KT_EXPECT_FALSE(t, timer_active(&active_timer));

	add_timer_on(&active_timer, ktime_get_ns(), cpu);
	KT_WAIT_UNTIL(t, READ_ONCE(active_started));
	KT_EXPECT_FALSE(t, timer_pending(&active_timer));
	KT_EXPECT_TRUE(t, timer_active(&active_timer));
	WRITE_ONCE(active_release, true);
	KT_WAIT_UNTIL(t, READ_ONCE(active_done));
	/* That CPU takes the call only once it left run_timers() (interrupts
	 * are off throughout): the callback has returned by then. */
	KT_EXPECT_EQ(t, smp_call_function_single(cpu, call_nothing, NULL, true), 0);
	KT_EXPECT_FALSE(t, timer_active(&active_timer));
	KT_EXPECT_FALSE(t, active_timed_out);
	sched_unpin_current(&old);
}

/* ---- a callback that re-arms itself in the past ------------------------- */

#define REARM_RUNS 16
/* Then it stops by itself: far more runs than this thread needs to see
 * REARM_RUNS, few enough for one interrupt of the old run_timers(), which
 * ran them all at once, to end within a second. */
#define REARM_LIMIT 100000

static struct rearm {
	struct timer_list timer;
	u64 expires; /* its first expiry: in the past at every re-arming */
	u64 pass[REARM_RUNS];
	unsigned int runs;
	bool stop;
} rearm;

/* Re-arms itself, in the past, until told to stop or REARM_LIMIT runs;
 * records the run_timers() pass of its CPU that runs it. */
static void rearm_fn(struct timer_list *tl)
{
	struct timer_stats st;

	timers_get_stats(smp_processor_id(), &st);
	if (rearm.runs < REARM_RUNS)
		rearm.pass[rearm.runs] = st.nr_passes;
	WRITE_ONCE(rearm.runs, rearm.runs + 1);
	if (!READ_ONCE(rearm.stop) && rearm.runs < REARM_LIMIT)
		add_timer(tl, rearm.expires);
}

/* A callback that re-arms its timer for a time already past, every time,
 * runs once per pass of run_timers() (one interrupt each), not again and
 * again in the one that ran it: each of its first REARM_RUNS runs is in a
 * pass of its own, and this thread, on the same CPU, runs between them
 * (it waits busy: a sleep's timer would queue behind the due one) and
 * stops it before it stops by itself: the CPU makes progress. */
static void timer_rearmed_in_the_past_waits_for_the_next_interrupt(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), runs, shared = 0;
	struct cpumask old;
	u64 end;

	KT_ASSERT_EQ(t, sched_pin_current(cpu, &old), 0);
	rearm = (struct rearm){ .expires = ktime_get_ns() };
	timer_setup(&rearm.timer, rearm_fn);
	end = ktime_get_ns() + KT_WAIT_LIMIT_NS;
	add_timer(&rearm.timer, rearm.expires);
	/* Look at every chance it gets between the interrupts. */
	while (READ_ONCE(rearm.runs) < REARM_RUNS && ktime_get_ns() < end)
		cpu_relax();
	WRITE_ONCE(rearm.stop, true);
	del_timer_sync(&rearm.timer);
	runs = READ_ONCE(rearm.runs);
	sched_unpin_current(&old);
	KT_EXPECT_LE(t, REARM_RUNS, runs);
	KT_EXPECT_LT(t, runs, REARM_LIMIT);
	for (unsigned int i = 1; i < REARM_RUNS; i++)
		shared += rearm.pass[i] <= rearm.pass[i - 1];
	KT_EXPECT_EQ(t, shared, 0); /* runs in the pass of the run before */
	printk(KERN_RAW "    # cpu%u: the timer ran %u times, passes %lu to %lu\n", cpu, runs,
	       rearm.pass[0], rearm.pass[REARM_RUNS - 1]);
}

/* ---- an idle CPU: what wakes it, and what does not ---------------------- */

/* Is cpu quiet for the next horizon ns: nothing to run, no timer due
 * before then (the workqueue's stall watch keeps one pending on some CPU,
 * a second away at most), and its clock event programmed for that timer
 * and nothing earlier (a deadline moved later from another CPU leaves it
 * programmed for one early interrupt, after which it is not)? */
static bool cpu_quiet(unsigned int cpu, u64 horizon)
{
	struct rq_stats rs;
	struct timer_stats ts;
	struct clockevent_stats ce;
	u64 until = ktime_get_ns() + horizon;

	sched_get_rq_stats(cpu, &rs);
	timers_get_stats(cpu, &ts);
	clockevent_get_stats(cpu, &ce);
	return rs.nr_running == 0 && ts.next_expiry > until && ce.next_ns >= ts.next_expiry;
}

static unsigned int find_quiet_cpu(u64 horizon)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id() && cpu_quiet(cpu, horizon))
			return cpu;
	return NR_CPUS;
}

/* Another online CPU, quiet for horizon ns; the caller moves to cpu0
 * first (the workqueue's stall watch keeps a timer there, a second away
 * at most: cpu0 cannot go offline, so it never leaves) and goes back to
 * *old after. One that just went idle may still hold its balancing timer
 * (up to 100 ms, then it lets it lapse): wait for one, bounded. */
static unsigned int quiet_cpu(struct ktest *t, u64 horizon, struct cpumask *old)
{
	unsigned int cpu = NR_CPUS;

	if (sched_pin_current(0, old))
		return NR_CPUS;
	KT_WAIT_UNTIL(t, (cpu = find_quiet_cpu(horizon)) != NR_CPUS);
	return cpu;
}

static struct timer_list from_irq_timer;
static volatile unsigned int from_irq_ran_on;
static volatile u64 from_irq_expires;

static void from_irq_fn(struct timer_list *tl)
{
	from_irq_ran_on = smp_processor_id();
}

/* Runs on the idle CPU, in its call-function interrupt. */
static void arm_here(void *arg)
{
	from_irq_expires = ktime_get_ns() + 2 * NSEC_PER_MSEC;
	add_timer(&from_irq_timer, from_irq_expires);
}

/* Linux's lost timer: an idle CPU decided to halt, an interrupt queued a
 * timer there, and the CPU halted without programming it. Here the
 * interrupt (a cross-CPU call) arms the timer on the idle CPU; the CPU
 * halts again with nothing else to do, and the timer must still wake it,
 * there, when due. */
static void timer_armed_from_an_interrupt_wakes_an_idle_cpu(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	struct cpumask old;
	unsigned int cpu = quiet_cpu(t, 100 * NSEC_PER_MSEC, &old);

	if (cpu != NR_CPUS) {
		timer_setup(&from_irq_timer, from_irq_fn);
		from_irq_ran_on = NR_CPUS;
		KT_EXPECT_EQ(t, smp_call_function_single(cpu, arm_here, NULL, true), 0);
		KT_WAIT_UNTIL(t, from_irq_ran_on != NR_CPUS);
		KT_EXPECT_EQ(t, from_irq_ran_on, cpu);
		KT_EXPECT_FALSE(t, timer_pending(&from_irq_timer));
	}
	sched_unpin_current(&old);
}

/* An idle CPU takes no timer interrupt until a timer of its own is due:
 * over a second of guest time with none due, its count stays. Something
 * may arm a timer there in that second (a work item's delay on its
 * pools, say); then the window says nothing, and another is tried, a few
 * times at most. */
static void idle_cpu_takes_no_timer_interrupt(struct ktest *t)
{
	const u64 window = NSEC_PER_SEC;

	if (!ktest_need_cpus(t, 2))
		return;
	for (int attempt = 0; attempt < 5; attempt++) {
		struct cpumask old;
		unsigned int cpu = quiet_cpu(t, 2 * window, &old);
		struct clockevent_stats c0, c1;
		struct timer_stats t0, t1;

		if (cpu != NR_CPUS) {
			timers_get_stats(cpu, &t0);
			clockevent_get_stats(cpu, &c0);
			msleep(window / NSEC_PER_MSEC);
			clockevent_get_stats(cpu, &c1);
			timers_get_stats(cpu, &t1);
		}
		sched_unpin_current(&old);
		KT_ASSERT_TRUE(t, cpu != NR_CPUS);
		if (t1.nr_armed != t0.nr_armed)
			continue; /* a timer came: not the case under test */
		KT_EXPECT_EQ(t, c1.nr_events, c0.nr_events);
		KT_EXPECT_EQ(t, t1.nr_expired, t0.nr_expired);
		printk(KERN_RAW "    # cpu%u: %lu timer interrupts in 1 s idle\n", cpu,
		       c1.nr_events - c0.nr_events);
		return;
	}
	printk(KERN_RAW "    # five windows of a second each had a timer armed on the idle CPU\n");
	KT_EXPECT_TRUE(t, false);
}

static volatile bool woken_ran;
static volatile u64 woken_events;
static volatile unsigned int woken_cpu;

static int woken_fn(void *arg)
{
	struct clockevent_stats st;

	clockevent_get_stats(smp_processor_id(), &st);
	woken_events = st.nr_events;
	woken_cpu = smp_processor_id();
	WRITE_ONCE(woken_ran, true);
	return 0;
}

/* A thread woken on an idle CPU runs at once: the reschedule IPI brings the
 * CPU out of its halt, with no timer interrupt between (there is no tick
 * to wait for, and none is needed). */
static void woken_thread_runs_at_once_on_an_idle_cpu(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	struct cpumask old;
	unsigned int cpu = quiet_cpu(t, 100 * NSEC_PER_MSEC, &old);
	struct thread *th =
		cpu != NR_CPUS ? kthread_create_on_cpu(woken_fn, NULL, cpu, "woken") : NULL;
	struct clockevent_stats st;

	if (th) {
		woken_ran = false;
		clockevent_get_stats(cpu, &st);
		wake_up_thread(th);
		KT_WAIT_UNTIL(t, READ_ONCE(woken_ran));
		KT_EXPECT_EQ(t, woken_cpu, cpu);
		KT_EXPECT_EQ(t, woken_events, st.nr_events);
		kthread_stop(th);
	}
	KT_EXPECT_TRUE(t, th != NULL);
	sched_unpin_current(&old);
}

/* ---- a CPU going offline with its timers ------------------------------- */

#define MOVERS 32
#define LATE   8

/* A timer that keeps itself pending on movers_cpu at a sub-tick spacing
 * (50 to 825 us): while that CPU is online it re-arms there from its
 * callback (which runs there, interrupts off, so the CPU's dying step
 * cannot come in between), so when the CPU goes, every one is pending on
 * it, by construction. Its first firing anywhere else is recorded. Only
 * the one callback under way writes a mover's expiry (it is not pending
 * meanwhile). */
static struct mover {
	struct timer_list timer;
	u64 spacing, expires;
	unsigned int fired_there;
	unsigned int fired_elsewhere, fired_on;
	u64 fired_at;
	bool early;
} movers[MOVERS + LATE];
static volatile unsigned int movers_cpu;

static void mover_fn(struct timer_list *tl)
{
	struct mover *m = container_of(tl, struct mover, timer);
	unsigned int me = smp_processor_id();
	u64 now = ktime_get_ns();

	if (now < m->expires)
		m->early = true;
	if (me == movers_cpu && cpu_online(me)) {
		WRITE_ONCE(m->fired_there, m->fired_there + 1);
		m->expires = now + m->spacing;
		add_timer_on(tl, m->expires, me);
		return;
	}
	m->fired_on = me;
	m->fired_at = now;
	WRITE_ONCE(m->fired_elsewhere, m->fired_elsewhere + 1);
}

/* A dying step registered to run last, after the built-in ones, the
 * timers' move to an online CPU included: on the dying CPU, interrupts off,
 * out of cpu_online_mask. Timers it arms there, for that CPU, must not be
 * stranded on a CPU that will never run them again (Linux lost such timers
 * until 2025): they go to an online CPU at once, and fire there. */
static int arm_late(unsigned int cpu)
{
	for (unsigned int i = MOVERS; i < MOVERS + LATE; i++) {
		struct mover *m = &movers[i];

		m->expires = ktime_get_ns() + (i - MOVERS + 1) * 100 * NSEC_PER_USEC;
		if (i % 2)
			add_timer(&m->timer, m->expires); /* "this CPU", the dying one */
		else
			add_timer_on(&m->timer, m->expires, cpu);
	}
	return 0;
}

static struct cpuhp_step arm_late_step = { .name = "test:arm-timers-dying",
					   .phase = CPUHP_STARTING,
					   .teardown = arm_late };

static bool all_moved(void)
{
	for (unsigned int i = 0; i < MOVERS + LATE; i++)
		if (!READ_ONCE(movers[i].fired_elsewhere))
			return false;
	return true;
}

static bool all_cycling(void)
{
	for (unsigned int i = 0; i < MOVERS; i++)
		if (READ_ONCE(movers[i].fired_there) < 2)
			return false;
	return true;
}

/* A CPU goes offline with MOVERS timers pending on it at sub-tick spacing,
 * and LATE more armed for it by a dying step: each fires once, on an
 * online CPU, never before it was due (and, under -icount, on time). */
static void timers_follow_a_dying_cpu(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	u64 latest = 0;

	if (!ktest_need_cpus(t, 2))
		return;
	movers_cpu = cpu;
	for (unsigned int i = 0; i < MOVERS + LATE; i++) {
		struct mover *m = &movers[i];

		*m = (struct mover){ .spacing = (50 + 25 * i) * NSEC_PER_USEC };
		timer_setup(&m->timer, mover_fn);
	}
	for (unsigned int i = 0; i < MOVERS; i++) {
		movers[i].expires = ktime_get_ns() + NSEC_PER_MSEC + i * 10 * NSEC_PER_USEC;
		add_timer_on(&movers[i].timer, movers[i].expires, cpu);
	}
	KT_WAIT_UNTIL(t, all_cycling());
	cpuhp_add_step_first(&arm_late_step); /* its down step runs last */
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	cpuhp_remove_step(&arm_late_step);
	KT_WAIT_UNTIL(t, all_moved());
	for (unsigned int i = 0; i < MOVERS + LATE; i++) {
		struct mover *m = &movers[i];

		del_timer_sync(&m->timer); /* a no-op: none is pending now */
		KT_EXPECT_EQ(t, m->fired_elsewhere, 1);
		KT_EXPECT_NE(t, m->fired_on, cpu);
		KT_EXPECT_FALSE(t, m->early);
		latest = max(latest, check_firing(t, m->expires, m->fired_at));
	}
	KT_EXPECT_EQ(t, timers_check(), 0);
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	printk(KERN_RAW "    # cpu%u went with %u timers, %u more armed by a dying step: the "
			"latest fired %lu us after its expiry\n",
	       cpu, MOVERS, LATE, (u64)(latest / NSEC_PER_USEC));
}

KTEST_SUITE(timer, KTEST_CASE(timers_fire_when_due_in_order_on_every_cpu),
	    KTEST_CASE(cancel_races_expiry),
	    KTEST_CASE(del_timer_sync_waits_for_a_callback_moved_to_another_cpu),
	    KTEST_CASE(del_timer_sync_waits_for_an_earlier_callback_still_running),
	    KTEST_CASE(timer_active_while_pending_or_running),
	    KTEST_CASE(timer_rearmed_in_the_past_waits_for_the_next_interrupt),
	    KTEST_CASE(timer_armed_from_an_interrupt_wakes_an_idle_cpu),
	    KTEST_CASE(idle_cpu_takes_no_timer_interrupt),
	    KTEST_CASE(woken_thread_runs_at_once_on_an_idle_cpu),
	    KTEST_CASE(timers_follow_a_dying_cpu));
