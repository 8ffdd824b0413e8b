/* tests/kernel/test_trace.c - trace the two classic scenarios and dump
 * them, then one CPU's clock events in a dump of their own; the harness
 * converts the dumps (scripts/trace2json.py) and checks the JSON.
 * Explicit: run with test=trace_scenarios. */
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "tests/kernel/ktest_helpers.h"

/* Scenario 1's blocker waits until a spinner has started: it blocks for
 * sure (a msleep() whose time a host's preemption let pass before the
 * thread got to block returns without blocking, and the spinners then ran
 * after it, not while: seen beside a torture), and stays blocked until
 * another worker has taken the CPU. */
static struct completion blocker_release;
static bool spinner_started;

static void blocker_fn(struct work_struct *w)
{
	wait_for_completion(&blocker_release); /* blocks: another worker takes over */
}

static void spinner_fn(struct work_struct *w)
{
	WRITE_ONCE(spinner_started, true);
	mdelay(3);
}

/* Scenario 2's items wait until the CPU is down: they are there when it
 * goes, and end after it, by construction (items that slept 10 ms could
 * all end before a slow cpu_down() reached the dying step). */
static struct completion pending_release;

static void pending_fn(struct work_struct *w)
{
	wait_for_completion(&pending_release);
}

static unsigned int pool_workers(unsigned int cpu, enum wq_cpu_pool which)
{
	struct wq_pool_stats st;

	workqueue_pool_stats(cpu, which, &st);
	return st.nr_workers;
}

static void trace_the_classic_scenarios(struct ktest *t)
{
	static struct work_struct a, b, c, pend[6];
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	u64 recorded, lost;

	KT_ASSERT_TRUE(t, trace_start(8192) == 0);
	/* 1: item A blocks; B and C run on another worker meanwhile. CPU-hog
	 * detection is off for it: A's worker, slow to reach its msleep()
	 * under TCG, could be marked a hog first and lose the CPU to B and C,
	 * which then run before A blocks, not while. */
	unsigned int thresh = wq_cpu_intensive_thresh_us;

	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);
	INIT_WORK(&a, blocker_fn);
	INIT_WORK(&b, spinner_fn);
	INIT_WORK(&c, spinner_fn);
	init_completion(&blocker_release);
	spinner_started = false;
	preempt_disable();
	queue_work_on(cpu, system_wq, &a);
	queue_work_on(cpu, system_wq, &b);
	queue_work_on(cpu, system_wq, &c);
	preempt_enable();
	KT_WAIT_UNTIL(t, READ_ONCE(spinner_started));
	complete(&blocker_release); /* (on failure too: let A end) */
	flush_work(&a);
	flush_work(&b);
	flush_work(&c);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	/* 2: a CPU goes offline with pending work; the trustee's workers finish
	 * it. Before that, an offline whose step fails on request, undone: the
	 * trace has both, with their steps (scripts/trace2json.py nests them). */
	if (cpu) {
		KT_EXPECT_EQ(t,
			     cpuhp_fail_step(cpu, "workqueue:online", CPUHP_DIR_BIT(CPUHP_DOWN),
					     -EBUSY, NULL),
			     0);
		KT_EXPECT_EQ(t, cpu_down(cpu), -EBUSY);
		init_completion(&pending_release);
		for (int i = 0; i < 6; i++) {
			INIT_WORK(&pend[i], pending_fn);
			queue_work_on(cpu, system_wq, &pend[i]);
		}
		KT_EXPECT_EQ(t, cpu_down(cpu), 0);
		complete_all(&pending_release); /* (on failure too: let them end) */
		for (int i = 0; i < 6; i++)
			flush_work(&pend[i]);
		/* The trustees done: their pools' workers released (else the
		 * CPU could come back before the trace has their "done"). */
		KT_WAIT_UNTIL(t, pool_workers(cpu, WQ_POOL_NORMAL) == 0 &&
					 pool_workers(cpu, WQ_POOL_HIGHPRI) == 0);
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	}
	trace_stop();
	trace_counts(&recorded, &lost);
	KT_EXPECT_EQ(t, lost, 0);
	KT_EXPECT_LE(t, 20, trace_dump());
}

/* One CPU's time without a tick (docs/clock-events.svg is drawn from it):
 * two CPU-bound threads share the CPU, their slices ending by clock
 * events; a third sleeps there in sub-tick steps, each wake-up taking the
 * CPU at once; then the CPU is idle with one timer armed, which wakes it
 * once, and nothing else does (but the load balancer's timer, armed while
 * the CPU was busy, which lapses once if a slow host stretched the run
 * past its 100 ms: tests/vm/shell_tests.py allows that one). */
static volatile bool clock_hogs_stop;

static int clock_hog(void *arg)
{
	while (!READ_ONCE(clock_hogs_stop))
		cpu_relax();
	return 0;
}

static int clock_sleeper(void *arg)
{
	for (int i = 0; i < 4; i++)
		usleep(700 + 400 * i);
	return 0;
}

static volatile bool clock_timer_fired;

static void clock_timer_fn(struct timer_list *t)
{
	clock_timer_fired = true;
}

static void trace_one_cpus_clock_events(struct ktest *t)
{
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	struct thread *hog[2], *sleeper;
	struct timer_list timer;
	struct cpumask old;
	u64 recorded, lost;

	if (!ktest_need_cpus(t, 2)) {
		/* the test thread waits on the other CPU */
		return;
	}
	KT_ASSERT_EQ(t, sched_pin_current(0, &old), 0); /* off the traced CPU */
	clock_hogs_stop = clock_timer_fired = false;
	hog[0] = kthread_create_on_cpu(clock_hog, NULL, cpu, "hog/a");
	hog[1] = kthread_create_on_cpu(clock_hog, NULL, cpu, "hog/b");
	sleeper = kthread_create_on_cpu(clock_sleeper, NULL, cpu, "sleeper");
	KT_ASSERT_TRUE(t, hog[0] && hog[1] && sleeper);
	timer_setup(&timer, clock_timer_fn);
	KT_ASSERT_TRUE(t, trace_start(4096) == 0);
	wake_up_thread(hog[0]);
	wake_up_thread(hog[1]);
	/* Each switched out at least twice (slice ends: nothing else runs
	 * there yet), however slowly the host runs us; then the sleeper. */
	KT_WAIT_UNTIL(t,
		      READ_ONCE(hog[0]->stats.nivcsw) >= 2 && READ_ONCE(hog[1]->stats.nivcsw) >= 2);
	wake_up_thread(sleeper);
	KT_WAIT_UNTIL(t, thread_state(sleeper) == THREAD_DEAD);
	clock_hogs_stop = true;
	kthread_stop(hog[0]);
	kthread_stop(hog[1]);
	kthread_stop(sleeper);
	add_timer_on(&timer, ktime_get_ns() + 5 * NSEC_PER_MSEC, cpu);
	KT_WAIT_UNTIL(t, clock_timer_fired);
	msleep(20); /* the CPU idle after it: no interrupt at all */
	trace_stop();
	sched_unpin_current(&old);
	trace_counts(&recorded, &lost);
	KT_EXPECT_EQ(t, lost, 0);
	KT_EXPECT_LE(t, 20, trace_dump());
}

KTEST_SUITE_EXPLICIT(trace_scenarios, KTEST_CASE(trace_the_classic_scenarios),
		     KTEST_CASE(trace_one_cpus_clock_events));
