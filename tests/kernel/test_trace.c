/* tests/kernel/test_trace.c - trace the two classic scenarios and dump
 * them; the harness converts the dump (scripts/trace2json.py) and checks
 * the JSON. Explicit: run with test=trace_scenarios. */
#include "kernel/hotplug.h"
#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/tools/ktest.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"

static void blocker_fn(struct work_struct *w)
{
	msleep(20); /* blocks: another worker takes over the CPU */
}

static void spinner_fn(struct work_struct *w)
{
	mdelay(3);
}

static void pending_fn(struct work_struct *w)
{
	msleep(10);
}

static void trace_the_classic_scenarios(struct ktest *t)
{
	static struct work_struct a, b, c, pend[6];
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	u64 recorded, lost;

	KT_ASSERT_TRUE(t, trace_start(8192) == 0);
	/* 1: item A blocks; B and C run on another worker meanwhile. */
	INIT_WORK(&a, blocker_fn);
	INIT_WORK(&b, spinner_fn);
	INIT_WORK(&c, spinner_fn);
	preempt_disable();
	queue_work_on(cpu, system_wq, &a);
	queue_work_on(cpu, system_wq, &b);
	queue_work_on(cpu, system_wq, &c);
	preempt_enable();
	flush_work(&a);
	flush_work(&b);
	flush_work(&c);
	/* 2: a CPU goes offline with pending work; the trustee's workers finish it. */
	if (cpu) {
		for (int i = 0; i < 6; i++) {
			INIT_WORK(&pend[i], pending_fn);
			queue_work_on(cpu, system_wq, &pend[i]);
		}
		KT_EXPECT_EQ(t, cpu_down(cpu), 0);
		for (int i = 0; i < 6; i++)
			flush_work(&pend[i]);
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	}
	trace_stop();
	trace_counts(&recorded, &lost);
	KT_EXPECT_EQ(t, lost, 0);
	KT_EXPECT_LE(t, 20, trace_dump());
}

KTEST_SUITE_EXPLICIT(trace_scenarios, KTEST_CASE(trace_the_classic_scenarios));
