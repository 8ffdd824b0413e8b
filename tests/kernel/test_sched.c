/* tests/kernel/test_sched.c - threads, fairness, nice, FIFO, affinity,
 * cross-CPU wake-ups, timers and the sleep/wake hooks. */
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/completion.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/kthread.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/fault_inject.h"
#include "kernel/tools/ktest.h"
#include "lib/random.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

/* The CPU the CPU-bound tests crowd: the last online one (not the one the
 * test runner is likely on, when there are several). */
static unsigned int victim_cpu(void)
{
	return ktest_last_online_cpu();
}

static volatile bool spin_stop;

static int spinner(void *arg)
{
	while (!READ_ONCE(spin_stop))
		cpu_relax();
	return 0;
}

/* What run_spinners() saw of one spinner. */
struct spin_share {
	u64 runtime;  /* CPU time between the two snapshots (the exec accounting) */
	u64 weighted; /* the same in vruntime units: runtime * NICE_0_WEIGHT / weight */
};

/* Run n spinners pinned to one CPU with the given nice levels until they
 * have run run_ns of CPU time between them (since the start snapshot, as
 * the scheduler charges it), and fill what each got between a
 * snapshot after they all started and one at the end. Returns the bound
 * the fair class promises on how far apart the weighted shares may be,
 * whatever the host did to the clock: it runs the thread whose vruntime
 * is least until its stint ends, so the vruntimes stay within the longest
 * stint of each other (counted once for the start snapshot and once for
 * the end one, each of which may catch a stint under way), plus how far
 * apart they were at the start. A host that stalls a vCPU lengthens a
 * stint, and the bound with it: the test checks the scheduler's rule,
 * not the host's speed. */
static u64 run_spinners(unsigned int n, const int *nice, u64 run_ns, struct spin_share *share)
{
	struct thread *t[8];
	u64 vr0[8], exec0[8], lo = UINT64_MAX, hi = 0, stint = 0;
	unsigned int cpu = victim_cpu();

	spin_stop = false;
	for (unsigned int i = 0; i < n; i++) {
		t[i] = kthread_create_on_cpu(spinner, NULL, cpu, "spin%u", i);
		sched_set_nice(t[i], nice[i]);
	}
	for (unsigned int i = 0; i < n; i++)
		wake_up_thread(t[i]);
	u64 deadline = 0;

	/* A wake-up may complete on the victim CPU later (its wake list):
	 * the start snapshot waits until each is placed on its run queue. */
	for (unsigned int i = 0; i < n; i++)
		while (!READ_ONCE(t[i]->stats.nr_wakeups) && ktest_wait_poll(&deadline))
			;
	for (unsigned int i = 0; i < n; i++) {
		vr0[i] = READ_ONCE(t[i]->vruntime);
		exec0[i] = thread_runtime_ns(t[i]);
		lo = min(lo, vr0[i]);
		hi = max(hi, vr0[i]);
	}
	deadline = 0;
	for (;;) {
		u64 sum = 0;

		for (unsigned int i = 0; i < n; i++)
			sum += thread_runtime_ns(t[i]) - exec0[i];
		if (sum >= run_ns || !ktest_wait_poll(&deadline))
			break;
	}
	for (unsigned int i = 0; i < n; i++) {
		u64 exec = thread_runtime_ns(t[i]);
		/* The longest stint so far, the one under way included. */
		u64 longest = max(READ_ONCE(t[i]->stats.max_stint_ns),
				  exec - READ_ONCE(t[i]->stint_start_exec));

		share[i].runtime = exec - exec0[i];
		share[i].weighted = share[i].runtime * NICE_0_WEIGHT / t[i]->weight;
		stint = max(stint, longest * NICE_0_WEIGHT / t[i]->weight);
	}
	spin_stop = true;
	for (unsigned int i = 0; i < n; i++)
		kthread_stop(t[i]);
	return 2 * (hi - lo) + 2 * stint;
}

/* The largest difference between two of the weighted shares. */
static u64 share_spread(const struct spin_share *share, unsigned int n)
{
	u64 lo = UINT64_MAX, hi = 0;

	for (unsigned int i = 0; i < n; i++) {
		lo = min(lo, share[i].weighted);
		hi = max(hi, share[i].weighted);
	}
	return hi - lo;
}

/* For the log: how tight the bound was. A host that stalled the vCPU for
 * long makes it loose (the run then proves less); it never makes the
 * case fail. */
static void share_note(const char *name, const struct spin_share *share, unsigned int n, u64 bound)
{
	printk(KERN_RAW "    # %s: weighted shares %lu ms apart, the fair class allows %lu ms "
			"(the least share %lu ms)\n",
	       name, (u64)(share_spread(share, n) / NSEC_PER_MSEC), (u64)(bound / NSEC_PER_MSEC),
	       (u64)(min(share[0].weighted, share[n - 1].weighted) / NSEC_PER_MSEC));
}

static void equal_nice_shares_equally(struct ktest *t)
{
	static const int nice[3] = { 0, 0, 0 };
	struct spin_share share[3];
	u64 bound = run_spinners(3, nice, 3 * NSEC_PER_SEC, share);

	for (unsigned int i = 0; i < 3; i++)
		KT_ASSERT_TRUE(t, share[i].runtime > 0);
	/* Not a percentage that a busy host could exceed: the fair class's
	 * own promise (run_spinners()). Typically a few stints of 3 s. */
	KT_EXPECT_LE(t, share_spread(share, 3), bound);
	share_note("equal_nice_shares_equally", share, 3, bound);
}

static void nice_weights_the_shares(struct ktest *t)
{
	/* nice 0 : nice 5 = 1024 : 335: equal weighted shares, the runtimes
	 * in that ratio. The weighted shares come from the exec accounting
	 * and the weights, not from the vruntime the scheduler compares. */
	static const int nice[2] = { 0, 5 };
	struct spin_share share[2];
	u64 bound = run_spinners(2, nice, 3 * NSEC_PER_SEC, share);

	KT_ASSERT_TRUE(t, share[1].runtime > 0);
	KT_EXPECT_LE(t, share_spread(share, 2), bound);
	share_note("nice_weights_the_shares", share, 2, bound);
}

static volatile bool fifo_ran;

static int fifo_marker(void *arg)
{
	fifo_ran = true;
	return 0;
}

/* A woken FIFO thread takes the CPU from a running fair thread. No slice
 * end would: the spinner is the only fair thread there, so it has no
 * slice. Only wake-up preemption lets the FIFO thread in. */
static void fifo_preempts_fair(struct ktest *t)
{
	unsigned int cpu = victim_cpu();
	struct thread *s = kthread_create_on_cpu(spinner, NULL, cpu, "spin");
	struct thread *f = kthread_create_on_cpu(fifo_marker, NULL, cpu, "fifo");

	spin_stop = false;
	KT_ASSERT_TRUE(t, s && f);
	KT_EXPECT_EQ(t, sched_set_fifo(f, 50), 0);
	KT_EXPECT_NE(t, sched_set_fifo(f, 100), 0);
	fifo_ran = false;
	wake_up_thread(s);
	/* The spinner has run (with one CPU, we run only while it does not). */
	KT_WAIT_UNTIL(t, thread_runtime_ns(s) != 0);
	wake_up_thread(f);
	KT_WAIT_UNTIL(t, fifo_ran); /* while the spinner still spins */
	kthread_stop(f);
	spin_stop = true;
	kthread_stop(s);
}

static atomic_t affinity_violations;

static int affinity_checker(void *arg)
{
	struct prng r;
	struct cpumask m;

	/* Started on a one-CPU mask: it must be there. */
	thread_get_cpus_allowed(current, &m);
	if (!cpumask_test_cpu(smp_processor_id(), &m) || cpumask_weight(&m) != 1)
		atomic_inc(&affinity_violations);
	prng_seed(&r, (u64)arg);
	for (int round = 0; round < 40; round++) {
		cpumask_clear(&m);
		unsigned int cpu;

		for_each_online_cpu(cpu)
			if (prng_below(&r, 2))
				cpumask_set_cpu(cpu, &m);
		if (cpumask_empty(&m))
			cpumask_set_cpu(cpumask_first(&cpu_online_mask), &m);
		set_cpus_allowed(current, &m);
		for (int i = 0; i < 20; i++) {
			if (!cpumask_test_cpu(smp_processor_id(), &m))
				atomic_inc(&affinity_violations);
			if (i % 5 == 0)
				msleep(1);
			else if (i % 5 == 1)
				yield();
			else
				udelay(200);
		}
	}
	return 0;
}

static void affinity_is_never_violated(struct ktest *t)
{
	struct thread *th[8];
	const struct cpumask *first = cpumask_of(victim_cpu());

	atomic_set(&affinity_violations, 0);
	for (unsigned int i = 0; i < 8; i++) {
		th[i] = kthread_create_on_mask(affinity_checker, (void *)(u64)(i + 1), first,
					       "aff%u", i);
		if (th[i])
			wake_up_thread(th[i]);
	}
	for (unsigned int i = 0; i < 8; i++) {
		KT_ASSERT_TRUE(t, th[i] != NULL);
		KT_EXPECT_EQ(t, kthread_stop(th[i]), 0);
	}
	KT_EXPECT_EQ(t, atomic_read(&affinity_violations), 0);
}

#define PING_PONGS_QUICK 2000
#define PING_PONGS_FULL	 100000
static unsigned int ping_pongs;
static struct completion ping, pong;
static volatile unsigned int pong_cpu_wrong;
static volatile bool ping_abort; /* a wake-up was lost: the ponger ends */

static int ponger(void *arg)
{
	unsigned int home = (unsigned int)(u64)arg;

	for (unsigned int i = 0; i < ping_pongs; i++) {
		wait_for_completion(&ping);
		if (READ_ONCE(ping_abort))
			break;
		if (smp_processor_id() != home)
			pong_cpu_wrong++;
		complete(&pong);
	}
	return 0;
}

static void ping_pong(struct ktest *t, unsigned int rounds)
{
	unsigned int a = smp_processor_id(), b = cpumask_any_but(&cpu_online_mask, a);

	if (!ktest_need_cpus(t, 2)) {
		/* the ponger runs on the other CPU */
		return;
	}
	struct cpumask old;

	KT_ASSERT_EQ(t, sched_pin_current(a, &old), 0);
	init_completion(&ping);
	init_completion(&pong);
	pong_cpu_wrong = 0;
	ping_abort = false;
	ping_pongs = rounds;
	struct thread *p = kthread_create_on_cpu(ponger, (void *)(u64)b, b, "ponger");

	KT_ASSERT_NOT_NULL(t, p);
	wake_up_thread(p);
	for (unsigned int i = 0; i < rounds; i++) {
		complete(&ping);
		if (!wait_for_completion_timeout(&pong, KT_WAIT_LIMIT_NS)) {
			ktest_fail(t, __FILE__, __LINE__, "round trip %u of %u: no pong after %d s",
				   i, rounds, KT_WAIT_LIMIT_S);
			WRITE_ONCE(ping_abort, true);
			complete_all(&ping);
			break;
		}
	}
	KT_EXPECT_EQ(t, kthread_stop(p), 0);
	KT_EXPECT_EQ(t, pong_cpu_wrong, 0);
	KT_EXPECT_EQ(t, smp_processor_id(), a);
	sched_unpin_current(&old);
}

static void cross_cpu_wakeups_are_never_lost(struct ktest *t)
{
	ping_pong(t, PING_PONGS_QUICK);
}

/* The full 100,000 round trips: in its own suite, booted alone by the
 * harness (each round trip waits for the host to run a halted vCPU). */
static void hundred_thousand_round_trips(struct ktest *t)
{
	ping_pong(t, PING_PONGS_FULL);
}

KTEST_SUITE_EXPLICIT(sched_pingpong, KTEST_CASE(hundred_thousand_round_trips));

#define NR_TEST_TIMERS 40
static struct timer_list test_timers[NR_TEST_TIMERS];
static u64 fired_at[NR_TEST_TIMERS];
static unsigned int fired_cpu[NR_TEST_TIMERS];
static int fire_order[NR_TEST_TIMERS];
static atomic_t fired;

static void timer_fired(struct timer_list *tl)
{
	int i = (int)(tl - test_timers);

	fired_at[i] = ktime_get_ns();
	fired_cpu[i] = smp_processor_id();
	fire_order[atomic_inc_return(&fired) - 1] = i;
}

/* Timers armed in one order expire in another: timer i gets the expiry of
 * rank place[i], a random permutation (seeded, so a failure repeats), and
 * ranks are 137 us apart (far less than the 10 ms tick baton once had:
 * expiry is exact now). The order promised is that of one CPU's timers
 * (kernel/timer.h), so all are armed, and timer 0 disarmed, with
 * interrupts off on one CPU: none can fire before the last is armed, nor
 * the test thread move, however long the host holds the vCPU meanwhile.
 * (Armed with interrupts on, a 20 ms stall of the vCPU there let the first
 * timers fire, timer 0 among them, while the others were still being
 * armed: one run of make test beside a torture.) */
static void timers_fire_in_order_never_early(struct ktest *t)
{
	struct prng r;
	int place[NR_TEST_TIMERS];
	unsigned long flags;
	unsigned int cpu;
	bool pending, pending_again;
	u64 now, armed;

	prng_seed(&r, 42);
	for (int i = 0; i < NR_TEST_TIMERS; i++)
		place[i] = i;
	for (int i = NR_TEST_TIMERS - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)prng_below(&r, (u32)i + 1), tmp = place[i];

		place[i] = place[j];
		place[j] = tmp;
	}
	atomic_set(&fired, 0);
	for (int i = 0; i < NR_TEST_TIMERS; i++) {
		timer_setup(&test_timers[i], timer_fired);
		fired_at[i] = 0;
	}
	flags = local_irq_save();
	cpu = smp_processor_id();
	now = ktime_get_ns();
	for (int i = 0; i < NR_TEST_TIMERS; i++)
		add_timer(&test_timers[i],
			  now + 20 * NSEC_PER_MSEC + (u64)place[i] * 137 * NSEC_PER_USEC);
	pending = del_timer(&test_timers[0]);
	pending_again = del_timer(&test_timers[0]);
	armed = ktime_get_ns();
	local_irq_restore(flags);
	KT_EXPECT_TRUE(t, pending);
	KT_EXPECT_FALSE(t, pending_again);
	KT_WAIT_UNTIL(t, atomic_read(&fired) >= NR_TEST_TIMERS - 1);
	for (int i = 1; i < NR_TEST_TIMERS; i++) {
		KT_EXPECT_TRUE(t, fired_at[i] >= test_timers[i].expires);
		KT_EXPECT_EQ(t, fired_cpu[i], cpu);
	}
	for (int n = 1; n < NR_TEST_TIMERS - 1; n++)
		if (test_timers[fire_order[n - 1]].expires > test_timers[fire_order[n]].expires)
			ktest_fail(t, __FILE__, __LINE__,
				   "timer %d (expiry +%lu us) fired before timer %d (+%lu us), "
				   "at +%lu and +%lu us; armed on cpu%u in %lu us",
				   fire_order[n - 1],
				   (test_timers[fire_order[n - 1]].expires - now) / 1000,
				   fire_order[n], (test_timers[fire_order[n]].expires - now) / 1000,
				   (fired_at[fire_order[n - 1]] - now) / 1000,
				   (fired_at[fire_order[n]] - now) / 1000, cpu,
				   (armed - now) / 1000);
	KT_EXPECT_EQ(t, fired_at[0], 0);
	u64 t0 = ktime_get_ns();

	msleep(25);
	KT_EXPECT_TRUE(t, ktime_get_ns() - t0 >= 25 * NSEC_PER_MSEC);
}

/* ---- hooks ---- */

struct hook_counts {
	unsigned long sleeping, running;
	struct thread *wake_on_sleep; /* returned by sleeping() */
};

static struct thread *count_sleeping(struct thread *th, void *data)
{
	struct hook_counts *c = data;
	struct thread *w = c->wake_on_sleep;

	c->sleeping++;
	c->wake_on_sleep = NULL;
	return w;
}

static void count_running(struct thread *th, void *data)
{
	((struct hook_counts *)data)->running++;
}

static const struct sched_hook_ops counting_hooks = {
	.sleeping = count_sleeping,
	.running = count_running,
};

static struct hook_counts blocker_counts;
static atomic_t blocker_waits; /* completion waits the blocker has begun */

static int blocker(void *arg)
{
	sched_hook_add(&counting_hooks, &blocker_counts);
	u64 blocks = current->stats.nvcsw;

	for (int i = 0; i < 100; i++) {
		if (i % 2) {
			msleep(1);
			continue;
		}
		atomic_inc(&blocker_waits);
		if (!wait_for_completion_timeout(arg, KT_WAIT_LIMIT_NS))
			return -1; /* a lost wake-up: the case fails */
	}
	blocks = current->stats.nvcsw - blocks;
	sched_hook_remove(&counting_hooks);
	return (int)blocks; /* what the scheduler counted as blocking */
}

/* A wait may block more than once (woken before its condition held) or not
 * at all (already true; a 1 ms sleep whose time passed before its thread
 * got to block, its vCPU preempted by the host: once seen, 49 blocks): the
 * hooks must match exactly the blocks the scheduler counted. The 50
 * completion waits block by construction (each is completed only once its
 * thread is asleep in it), so there are at least 50. */
static void hooks_count_every_block(struct ktest *t)
{
	static struct completion go;

	init_completion(&go);
	atomic_set(&blocker_waits, 0);
	blocker_counts = (struct hook_counts){ 0 };
	struct thread *b = kthread_run(blocker, &go, "blocker");

	KT_ASSERT_NOT_NULL(t, b);
	for (int i = 1; i <= 50; i++) {
		if (!KT_WAIT_UNTIL(t, atomic_read(&blocker_waits) == i && thread_asleep(b)))
			break;
		complete(&go);
	}
	int blocks = kthread_stop(b);

	KT_EXPECT_LE(t, 50, blocks);
	KT_EXPECT_EQ(t, blocker_counts.sleeping, blocks);
	KT_EXPECT_EQ(t, blocker_counts.running, blocks);
}

static const struct sched_hook_ops other_hooks = { 0 };

/* A hook's data is found by its ops, whatever its slot, and is gone once
 * the hook is removed. */
static void hook_data_is_found_by_its_ops(struct ktest *t)
{
	static struct hook_counts a, b;
	struct thread *self = current;

	KT_EXPECT_TRUE(t, sched_hook_data(self, &counting_hooks) == NULL);
	KT_ASSERT_TRUE(t, sched_hook_add(&other_hooks, &a) == 0);
	KT_ASSERT_TRUE(t, sched_hook_add(&counting_hooks, &b) == 0);
	KT_EXPECT_TRUE(t, sched_hook_data(self, &counting_hooks) == &b);
	KT_EXPECT_TRUE(t, sched_hook_data(self, &other_hooks) == &a);
	sched_hook_remove(&other_hooks); /* counting_hooks moves to slot 0 */
	KT_EXPECT_TRUE(t, sched_hook_data(self, &other_hooks) == NULL);
	KT_EXPECT_TRUE(t, sched_hook_data(self, &counting_hooks) == &b);
	sched_hook_remove(&counting_hooks);
	KT_EXPECT_TRUE(t, sched_hook_data(self, &counting_hooks) == NULL);
}

static struct hook_counts spinner_counts;

static int hooked_spinner(void *arg)
{
	sched_hook_add(&counting_hooks, &spinner_counts);
	while (!READ_ONCE(spin_stop))
		cpu_relax();
	sched_hook_remove(&counting_hooks);
	return (int)current->stats.nivcsw;
}

static void hooks_silent_on_preemption(struct ktest *t)
{
	unsigned int cpu = victim_cpu();

	spin_stop = false;
	spinner_counts = (struct hook_counts){ 0 };
	struct thread *a = kthread_create_on_cpu(hooked_spinner, NULL, cpu, "hooked");
	struct thread *b = kthread_create_on_cpu(spinner, NULL, cpu, "rival");

	KT_ASSERT_TRUE(t, a && b);
	wake_up_thread(a);
	wake_up_thread(b);
	/* Until both were preempted a few times, at their slice ends (an
	 * oversubscribed host may hold the vCPU back, so no fixed time). */
	KT_WAIT_UNTIL(t, READ_ONCE(a->stats.nivcsw) >= 5 && READ_ONCE(b->stats.nivcsw) >= 5);
	spin_stop = true;
	u64 rival_preemptions = b->stats.nivcsw;
	int preemptions = kthread_stop(a);

	kthread_stop(b);
	KT_EXPECT_LE(t, 5, preemptions);
	KT_EXPECT_LE(t, 5, rival_preemptions);
	KT_EXPECT_EQ(t, spinner_counts.sleeping, 0);
	KT_EXPECT_EQ(t, spinner_counts.running, 0);
}

static volatile unsigned int helper_ran_on;
static struct hook_counts waker_counts;

static int helper_thread(void *arg)
{
	for (;;) {
		set_current_state(THREAD_BLOCKED);
		if (kthread_should_stop())
			break;
		schedule();
		helper_ran_on = smp_processor_id() + 1;
	}
	__set_current_state(THREAD_RUNNING);
	return 0;
}

static struct completion waker_done, waker_release;
static bool waker_waiting;

/* Blocks once, by construction: the case completes waker_release only once
 * the thread is asleep in it (a msleep() here could return without
 * blocking, its time passed while the host held the vCPU). */
static int waking_blocker(void *helper)
{
	sched_hook_add(&counting_hooks, &waker_counts);
	waker_counts.wake_on_sleep = helper;
	WRITE_ONCE(waker_waiting, true);
	wait_for_completion(&waker_release); /* sleeping() returns the helper, which runs */
	sched_hook_remove(&counting_hooks);
	complete(&waker_done);
	return 0;
}

/* The workqueue's need: sleeping() hands back a thread of the same CPU to
 * wake, and the scheduler wakes it without deadlocking on its own lock. */
static void sleeping_hook_wakes_a_local_thread(struct ktest *t)
{
	unsigned int cpu = victim_cpu();
	struct thread *h = kthread_create_on_cpu(helper_thread, NULL, cpu, "helper");
	struct thread *w = kthread_create_on_cpu(waking_blocker, h, cpu, "waker");

	KT_ASSERT_TRUE(t, h && w);
	waker_counts = (struct hook_counts){ 0 };
	helper_ran_on = 0;
	wake_up_thread(h);
	KT_WAIT_UNTIL(t, thread_asleep(h));
	helper_ran_on = 0;
	init_completion(&waker_done);
	init_completion(&waker_release);
	waker_waiting = false;
	wake_up_thread(w);
	KT_WAIT_UNTIL(t, READ_ONCE(waker_waiting) && thread_asleep(w));
	complete(&waker_release); /* (on failure too: let it end) */
	/* No early wake-up by kthread_stop. */
	KT_EXPECT_NE(t, wait_for_completion_timeout(&waker_done, KT_WAIT_LIMIT_NS), 0);
	kthread_stop(w);
	KT_EXPECT_EQ(t, helper_ran_on, cpu + 1);
	KT_EXPECT_EQ(t, waker_counts.sleeping, 1);
	KT_EXPECT_EQ(t, waker_counts.running, 1);
	kthread_stop(h);
}

static void cpus_used(struct thread **s, unsigned int n, struct cpumask *used)
{
	cpumask_clear(used);
	for (unsigned int i = 0; i < n; i++)
		cpumask_set_cpu(thread_cpu(s[i]), used);
}

/* Threads all started on one CPU spread out: idle CPUs pull them and the
 * periodic balance evens the run queues. */
static void balancing_spreads_threads(struct ktest *t)
{
	unsigned int n = num_online_cpus();
	struct thread *s[8];
	struct cpumask used;

	if (!ktest_need_cpus(t, 2))
		return;
	n = min(n, 8u);
	spin_stop = false;
	for (unsigned int i = 0; i < n; i++) {
		/* All queued first on one CPU, but free to move. */
		s[i] = kthread_create_on_cpu(spinner, NULL, victim_cpu(), "bal%u", i);
		KT_ASSERT_NOT_NULL(t, s[i]);
		KT_ASSERT_EQ(t, set_cpus_allowed(s[i], &cpu_possible_mask), 0);
	}
	for (unsigned int i = 0; i < n; i++)
		wake_up_thread(s[i]);
	/* Until all are apart, one a CPU (the test thread sleeps meanwhile). */
	KT_WAIT_UNTIL(t, (cpus_used(s, n, &used), cpumask_weight(&used) == n));
	spin_stop = true;
	u64 migrations = 0;

	for (unsigned int i = 0; i < n; i++) {
		migrations += s[i]->stats.nr_migrations;
		kthread_stop(s[i]);
	}
	/* n spinners on n CPUs: all moved but one, at least. */
	KT_EXPECT_EQ(t, cpumask_weight(&used), n);
	KT_EXPECT_LE(t, n - 1, migrations);
	KT_EXPECT_LE(t, 1, migrations);
}

static int returns_arg(void *arg)
{
	return (int)(u64)arg;
}

static void count_ours(struct thread *th, void *arg)
{
	if (!strncmp(th->name, "short", 5) || !strncmp(th->name, "detached", 8) ||
	    !strncmp(th->name, "reaper", 6))
		(*(unsigned int *)arg)++;
}

/* Threads of this test still listed (others, like new workqueue workers,
 * may come and go meanwhile). */
static unsigned int ours_listed(void)
{
	unsigned int n = 0;

	for_each_thread(count_ours, &n);
	return n;
}

static void threads_are_reaped(struct ktest *t)
{
	unsigned int before = ours_listed();

	for (int i = 0; i < 50; i++) {
		struct thread *th = kthread_run(returns_arg, (void *)(u64)i, "short%d", i);

		KT_ASSERT_NOT_NULL(t, th);
		KT_EXPECT_EQ(t, kthread_stop(th), i);
	}
	/* Detached: put the reference right away, let them die alone. */
	for (int i = 0; i < 20; i++) {
		struct thread *th = kthread_run(returns_arg, NULL, "detached%d", i);

		KT_ASSERT_NOT_NULL(t, th);
		put_thread(th);
	}
	/* Each creation reaps the dead; the detached ones die in their own time. */
	u64 deadline = 0;

	while (ours_listed() != before && ktest_wait_poll(&deadline))
		kthread_stop(kthread_run(returns_arg, NULL, "reaper"));
	KT_EXPECT_EQ(t, ours_listed(), before);
	kthread_fail_own(1); /* not kthread_fail_next(): a pool's manager may create meanwhile */
	KT_EXPECT_TRUE(t, kthread_create(returns_arg, NULL, "fails") == NULL);
	struct thread *next = kthread_run(returns_arg, NULL, "succeeds"); /* only one failed */

	KT_ASSERT_NOT_NULL(t, next);
	kthread_stop(next);
}

/* One timer armed and disarmed from every CPU at once while its callback
 * re-arms it: a timer linked into two wheels at once (arming is check,
 * then act) corrupts both. */
static struct timer_list contested;
static atomic_t contested_fired;
static volatile bool contest_stop;

static void contested_fn(struct timer_list *tl)
{
	if (atomic_inc_return(&contested_fired) % 2 && !READ_ONCE(contest_stop))
		mod_timer(tl, ktime_get_ns() + 10 * NSEC_PER_MSEC);
}

static int contester(void *arg)
{
	struct prng r;

	prng_seed(&r, (u64)(unsigned long)arg);
	while (!kthread_should_stop()) {
		switch (prng_below(&r, 4)) {
		case 0:
			del_timer(&contested);
			break;
		default:
			mod_timer(&contested,
				  ktime_get_ns() + prng_below(&r, 3000) * NSEC_PER_USEC);
		}
		if (prng_below(&r, 16) == 0)
			yield();
	}
	return 0;
}

static void timers_survive_concurrent_arming(struct ktest *t)
{
	struct thread *th[NR_CPUS];
	unsigned int cpu, n = 0;

	timer_setup(&contested, contested_fn);
	atomic_set(&contested_fired, 0);
	contest_stop = false;
	for_each_online_cpu(cpu) {
		th[n] = kthread_create_on_cpu(contester, (void *)(unsigned long)(cpu + 1), cpu,
					      "contest%u", cpu);
		KT_ASSERT_NOT_NULL(t, th[n]);
		wake_up_thread(th[n++]);
	}
	msleep(500);
	for (unsigned int i = 0; i < n; i++)
		kthread_stop(th[i]);
	WRITE_ONCE(contest_stop, true);
	KT_EXPECT_EQ(t, timers_check(), 0);
	/* It still works: armed once more, it fires (during the contest it
	 * may never have, re-armed each time before it was due). */
	int before = atomic_read(&contested_fired);

	mod_timer(&contested, ktime_get_ns() + 10 * NSEC_PER_MSEC);
	KT_WAIT_UNTIL(t, atomic_read(&contested_fired) != before);
	KT_EXPECT_LE(t, before + 1, atomic_read(&contested_fired));
	del_timer_sync(&contested);
	KT_EXPECT_FALSE(t, timer_pending(&contested));
	KT_EXPECT_EQ(t, timers_check(), 0);
}

/* A thread that makes its successor just before it ends (a chain, as a
 * thread per item that queues itself again makes) must leave the CPU to
 * the threads already there: a new thread starts at the queue's
 * min_vruntime, with no sleeper credit. With the credit, each new link
 * came in below everyone and the chain kept the CPU until it ended. */
#define CHAIN_LINKS   5000 /* 1 ms each: ends by itself after 5 s */
#define CHAIN_LINK_NS (1 * NSEC_PER_MSEC)

static atomic_t chain_links;
static bool chain_stop;
static struct completion chain_ended;

static int chain_link(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg;
	u64 end = ktime_get_ns() + CHAIN_LINK_NS;

	while (ktime_get_ns() < end)
		cpu_relax();
	if (!READ_ONCE(chain_stop) && atomic_inc_return(&chain_links) < CHAIN_LINKS) {
		struct thread *next = kthread_create_on_cpu(chain_link, arg, cpu, "chain");

		if (next) {
			wake_up_thread(next);
			put_thread(next);
			return 0;
		}
	}
	complete(&chain_ended);
	return 0;
}

static void new_threads_do_not_starve_old_ones(struct ktest *t)
{
	unsigned int cpu = cpumask_first(&cpu_online_mask);
	struct cpumask old;

	KT_ASSERT_EQ(t, sched_pin_current(cpu, &old), 0);
	atomic_set(&chain_links, 0);
	WRITE_ONCE(chain_stop, false);
	init_completion(&chain_ended);
	struct thread *first =
		kthread_create_on_cpu(chain_link, (void *)(uintptr_t)cpu, cpu, "chain");

	KT_EXPECT_TRUE(t, first != NULL);
	if (first) {
		wake_up_thread(first);
		put_thread(first);
		/* This thread, on the chain's CPU, gets to run again while the
		 * chain still grows: not only after it ended by itself. */
		for (int i = 0; i < 3; i++)
			msleep(2);
		KT_EXPECT_LT(t, atomic_read(&chain_links), CHAIN_LINKS - 1);
		WRITE_ONCE(chain_stop, true);
		KT_EXPECT_TRUE(t,
			       wait_for_completion_timeout(&chain_ended, 60 * NSEC_PER_SEC) != 0);
	}
	sched_unpin_current(&old);
}

/* ---- affinity of a running thread, FIFO priorities, wake-up preemption -- */

/* The CPU that is not the victim: the test thread waits there. */
static unsigned int other_cpu(void)
{
	return cpumask_any_but(&cpu_online_mask, victim_cpu());
}

static volatile unsigned int mover_on; /* CPU + 1 the mover last ran on */

static int mover(void *arg)
{
	while (!READ_ONCE(spin_stop))
		WRITE_ONCE(mover_on, smp_processor_id() + 1);
	return 0;
}

/* set_cpus_allowed() of a thread running on a CPU its new mask leaves out
 * moves it, though it never blocks: to b and back to a. */
static void affinity_change_moves_a_running_thread(struct ktest *t)
{
	unsigned int a = victim_cpu(), b = other_cpu();
	struct cpumask old;

	if (!ktest_need_cpus(t, 2)) {
		/* the thread moves between two CPUs */
		return;
	}
	KT_ASSERT_EQ(t, sched_pin_current(b, &old), 0);
	spin_stop = false;
	mover_on = 0;
	struct thread *m = kthread_create_on_cpu(mover, NULL, a, "mover");

	KT_ASSERT_NOT_NULL(t, m);
	wake_up_thread(m);
	if (KT_WAIT_UNTIL(t, READ_ONCE(mover_on) == a + 1 && thread_on_cpu(m))) {
		KT_EXPECT_EQ(t, set_cpus_allowed(m, cpumask_of(b)), 0);
		if (KT_WAIT_UNTIL(t, READ_ONCE(mover_on) == b + 1)) {
			KT_EXPECT_EQ(t, thread_cpu(m), b);
			KT_EXPECT_EQ(t, set_cpus_allowed(m, cpumask_of(a)), 0);
			KT_WAIT_UNTIL(t, READ_ONCE(mover_on) == a + 1);
			KT_EXPECT_EQ(t, thread_cpu(m), a);
		}
	}
	spin_stop = true;
	KT_EXPECT_EQ(t, kthread_stop(m), 0);
	KT_EXPECT_LE(t, 2, m->stats.nr_migrations);
	sched_unpin_current(&old);
}

static volatile bool low_stop, low_running, low_done, high_ran, lower_ran;
static volatile bool high_saw_low_done, lower_saw_low_done;

static int fifo_low(void *arg)
{
	WRITE_ONCE(low_running, true);
	while (!READ_ONCE(low_stop))
		cpu_relax();
	WRITE_ONCE(low_done, true);
	return 0;
}

static int fifo_high(void *arg)
{
	high_saw_low_done = READ_ONCE(low_done);
	WRITE_ONCE(high_ran, true);
	return 0;
}

static int fifo_lower(void *arg)
{
	lower_saw_low_done = READ_ONCE(low_done);
	WRITE_ONCE(lower_ran, true);
	return 0;
}

/* A timer on cpu that fires there n times, 1 ms apart: n interrupts, each
 * a chance for that CPU to reschedule on its way out (there is no tick to
 * provide them). */
static struct timer_list poke_timer;
static atomic_t pokes_left;

static void poke_fn(struct timer_list *tl)
{
	if (atomic_dec_return(&pokes_left) > 0)
		add_timer(tl, ktime_get_ns() + NSEC_PER_MSEC);
}

static void poke_cpu(unsigned int cpu, int n)
{
	timer_setup(&poke_timer, poke_fn);
	atomic_set(&pokes_left, n);
	add_timer_on(&poke_timer, ktime_get_ns() + NSEC_PER_MSEC, cpu);
}

/* On one CPU a FIFO thread at priority 20 woken takes the CPU from a
 * spinning one at 10 at once; one at 5 does not run until the spinner
 * ends, over however many interrupts of that CPU (counted, not timed). */
static void fifo_priorities_order_fifo_threads(struct ktest *t)
{
	unsigned int c = victim_cpu(), a = other_cpu();
	struct cpumask old;

	if (!ktest_need_cpus(t, 2)) {
		/* on one CPU the spinner would starve us */
		return;
	}
	KT_ASSERT_EQ(t, sched_pin_current(a, &old), 0);
	low_stop = low_running = low_done = high_ran = lower_ran = false;
	high_saw_low_done = lower_saw_low_done = true;
	struct thread *lo = kthread_create_on_cpu(fifo_low, NULL, c, "fifo10");
	struct thread *hi = kthread_create_on_cpu(fifo_high, NULL, c, "fifo20");
	struct thread *lw = kthread_create_on_cpu(fifo_lower, NULL, c, "fifo5");

	KT_ASSERT_TRUE(t, lo && hi && lw);
	KT_EXPECT_EQ(t, sched_set_fifo(lo, 10), 0);
	KT_EXPECT_EQ(t, sched_set_fifo(hi, 20), 0);
	KT_EXPECT_EQ(t, sched_set_fifo(lw, 5), 0);
	wake_up_thread(lo);
	if (KT_WAIT_UNTIL(t, READ_ONCE(low_running))) {
		wake_up_thread(hi);
		KT_WAIT_UNTIL(t, READ_ONCE(high_ran));
		KT_EXPECT_FALSE(t, high_saw_low_done); /* it ran while 10 still spun */
		wake_up_thread(lw);
		poke_cpu(c, 5);
		KT_WAIT_UNTIL(t, atomic_read(&pokes_left) == 0);
		KT_EXPECT_FALSE(t, READ_ONCE(lower_ran)); /* 5 interrupts: 10 kept the CPU */
	}
	WRITE_ONCE(low_stop, true);
	KT_WAIT_UNTIL(t, READ_ONCE(lower_ran));
	KT_EXPECT_TRUE(t, lower_saw_low_done); /* it ran only once 10 ended */
	kthread_stop(lo);
	kthread_stop(hi);
	kthread_stop(lw);
	sched_unpin_current(&old);
}

static volatile bool wp_go, wp_sleeper_go, wp_waker_continued, wp_sleeper_saw_continued,
	wp_sleeper_done, wp_wakeup_asked;
static struct thread *wp_sleeper;
/* What a failure needs to be told apart: the waker and the sleeper just
 * before the wake-up, and the sleeper as it runs. */
static struct thread_desc wp_waker_before, wp_sleeper_before, wp_sleeper_ran;

static int wp_sleeper_fn(void *arg)
{
	for (;;) {
		set_current_state(THREAD_BLOCKED);
		if (READ_ONCE(wp_sleeper_go))
			break;
		schedule();
	}
	__set_current_state(THREAD_RUNNING);
	wp_sleeper_saw_continued = READ_ONCE(wp_waker_continued);
	sched_describe_thread(current, &wp_sleeper_ran);
	WRITE_ONCE(wp_sleeper_done, true);
	return 0;
}

static int wp_waker_fn(void *arg)
{
	while (!READ_ONCE(wp_go))
		cpu_relax();
	sched_describe_thread(wp_sleeper, &wp_sleeper_before);
	sched_describe_thread(current, &wp_waker_before);
	WRITE_ONCE(wp_sleeper_go, true);
	/* The wake-up itself must ask for the CPU. Its slice end, moved to now
	 * by the newcomer (the waker's lead is far past a slice), would take
	 * the CPU a moment later all the same, at a clock interrupt: with
	 * interrupts off across the wake-up that cannot pass for it. */
	local_irq_disable();
	wake_up_thread(wp_sleeper);
	wp_wakeup_asked = need_resched();
	local_irq_enable();
	/* A preemption point: the sleeper runs here. Then none can come
	 * between it and the store. */
	preempt_disable();
	preempt_enable();
	preempt_disable();
	WRITE_ONCE(wp_waker_continued, true);
	preempt_enable();
	return 0;
}

static void wp_print(const char *who, const struct thread_desc *d)
{
	printk(KERN_RAW "    # %s: cpu%u %s vruntime %lu (queue minimum %lu, %u runnable), ran %lu "
			"us, %lu/%lu switches\n",
	       who, d->cpu, thread_state_name(d->state), d->vruntime, d->min_vruntime,
	       d->nr_running, d->runtime_ns / 1000, d->nvcsw, d->nivcsw);
}

/* A fair thread that slept takes the CPU from the fair thread that wakes
 * it, when that one ran far ahead of it (more than the wake-up
 * granularity): at the wake-up, not at its slice end. The waker's lead is
 * counted in its own CPU time, and the order is seen by the sleeper. The
 * case once failed at -smp 4 under UEFI (the sleeper saw the waker go on)
 * and could not say why; it could not have told a lost wake-up preemption
 * either (the slice end, a clock interrupt a moment later, hid it): it now
 * checks the wake-up's own request apart, and prints both threads'
 * vruntimes against their queue's minimum when it fails. */
static void fair_wakeup_preempts_the_waker(struct ktest *t)
{
	unsigned int c = victim_cpu(), a = other_cpu();
	struct cpumask old;

	thread_get_cpus_allowed(current, &old);
	if (a < NR_CPUS)
		KT_ASSERT_EQ(t, set_cpus_allowed(current, cpumask_of(a)), 0);
	wp_go = wp_sleeper_go = wp_waker_continued = wp_sleeper_done = wp_wakeup_asked = false;
	wp_sleeper_saw_continued = true;
	wp_sleeper = kthread_create_on_cpu(wp_sleeper_fn, NULL, c, "wp-sleeper");
	struct thread *w = kthread_create_on_cpu(wp_waker_fn, NULL, c, "wp-waker");

	KT_ASSERT_TRUE(t, wp_sleeper && w);
	wake_up_thread(wp_sleeper); /* runs once, then sleeps: woken before */
	KT_WAIT_UNTIL(t, thread_asleep(wp_sleeper));
	wake_up_thread(w);
	/* 30 ms of the waker's CPU time, as the scheduler counts it: far
	 * beyond the sleeper's vruntime plus the wake-up granularity. */
	KT_WAIT_UNTIL(t, thread_runtime_ns(w) >= 30 * NSEC_PER_MSEC);
	WRITE_ONCE(wp_go, true);
	KT_WAIT_UNTIL(t, READ_ONCE(wp_sleeper_done));
	KT_EXPECT_TRUE(t, wp_wakeup_asked);
	KT_EXPECT_FALSE(t, wp_sleeper_saw_continued);
	if (!wp_wakeup_asked || wp_sleeper_saw_continued) {
		wp_print("waker before the wake-up", &wp_waker_before);
		wp_print("sleeper before it", &wp_sleeper_before);
		wp_print("sleeper as it ran", &wp_sleeper_ran);
	}
	WRITE_ONCE(wp_sleeper_go, true);
	wake_up_thread(wp_sleeper); /* after a failure: let it end */
	kthread_stop(w);
	kthread_stop(wp_sleeper);
	sched_unpin_current(&old);
}

/* Every CPU number has a run queue to ask, started or not: from each online
 * CPU in turn (cpu0 too), the figures of every CPU number. A CPU that never
 * started (one the host may plug in later: -smp N,maxcpus=M, or a number
 * past the last possible one) runs nothing and has no idle time. Once,
 * such a queue's lock was never initialised: taken on cpu0, its zeroed
 * holder field read as "held by cpu0", a recursion panic in `cpus`. */
static void every_cpu_number_has_a_run_queue(struct ktest *t)
{
	struct cpumask old;
	unsigned int on;

	thread_get_cpus_allowed(current, &old);
	for_each_online_cpu(on) {
		KT_ASSERT_EQ(t, set_cpus_allowed(current, cpumask_of(on)), 0);
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
			struct rq_stats st;

			sched_get_rq_stats(cpu, &st);
			if (cpu_online(cpu) || cpumask_test_cpu(cpu, &cpu_live_mask) ||
			    percpu_areas[cpu])
				continue; /* started once: its figures are its own */
			KT_EXPECT_EQ(t, st.nr_running, 0);
			KT_EXPECT_EQ(t, st.nr_switches, 0);
			KT_EXPECT_EQ(t, st.idle_ns, 0);
		}
	}
	sched_unpin_current(&old);
}

KTEST_SUITE(sched, KTEST_CASE(threads_are_reaped), KTEST_CASE(equal_nice_shares_equally),
	    KTEST_CASE(nice_weights_the_shares), KTEST_CASE(fifo_preempts_fair),
	    KTEST_CASE(affinity_is_never_violated), KTEST_CASE(cross_cpu_wakeups_are_never_lost),
	    KTEST_CASE(timers_fire_in_order_never_early),
	    KTEST_CASE(timers_survive_concurrent_arming), KTEST_CASE(hooks_count_every_block),
	    KTEST_CASE(hooks_silent_on_preemption), KTEST_CASE(hook_data_is_found_by_its_ops),
	    KTEST_CASE(sleeping_hook_wakes_a_local_thread), KTEST_CASE(balancing_spreads_threads),
	    KTEST_CASE(new_threads_do_not_starve_old_ones),
	    KTEST_CASE(affinity_change_moves_a_running_thread),
	    KTEST_CASE(fifo_priorities_order_fifo_threads),
	    KTEST_CASE(fair_wakeup_preempts_the_waker),
	    KTEST_CASE(every_cpu_number_has_a_run_queue));
