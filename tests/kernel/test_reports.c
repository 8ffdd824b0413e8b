/* tests/kernel/test_reports.c - kernel error reports (report_bug(), "BUG:
 * <subsystem>: ..."): their form, their count, and the hotplug failures, the
 * hotplug waits that give up at their bound and the pool stall report that
 * go through them (the kmalloc debug reports are test_kmalloc.c's
 * kmalloc_debug).
 * Each case declares the reports it provokes, by subsystem
 * (ktest_expect_bugs), so they read "BUG (expected by a test): ..." and the
 * runner fails the case if it caused more or fewer, or others (a report of
 * another subsystem during a case: selftest_bug_kind, in test_selftest.c). */
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "kernel/tools/fault_inject.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

static char log_tail[4096];

/* Is the text among the last few KB of the log? */
static bool logged(const char *text)
{
	log_buf_read(log_tail, sizeof(log_tail));
	return strstr(log_tail, text) != NULL;
}

/* Is "] BUG (expected by a test): cpuhp: cpuN: <what>" a line of the log? */
static bool cpuhp_reported(unsigned int cpu, const char *what)
{
	char line[128];

	scnprintf(line, sizeof(line), "] BUG (expected by a test): cpuhp: cpu%u: %s\n", cpu, what);
	return logged(line);
}

static void a_report_is_counted_and_reads_as_declared(struct ktest *t)
{
	unsigned long before = bug_reports();

	ktest_expect_bugs(t, "reports", 1);
	report_bug("reports", "provoked on purpose by %s", t->case_name);
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t, logged("] BUG (expected by a test): reports: provoked on purpose by "
				 "a_report_is_counted_and_reads_as_declared\n"));
}

/* A declared report may come from another thread the case set going: its
 * kind, not its thread, ties it to the case. */
static void report_from_work_fn(struct work_struct *w)
{
	report_bug("reports", "from a work item the case queued");
}

static void a_declared_report_from_a_work_item_is_expected(struct ktest *t)
{
	unsigned long before = bug_reports();
	unsigned int cpu = cpumask_any_but(&cpu_online_mask, smp_processor_id());
	struct work_struct w;

	if (cpu >= nr_cpu_ids)
		cpu = smp_processor_id();
	ktest_expect_bugs(t, "reports", 1);
	INIT_WORK(&w, report_from_work_fn);
	queue_work_on(cpu, system_wq, &w);
	flush_work(&w);
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t, logged("] BUG (expected by a test): reports: from a work item the case "
				 "queued\n"));
}

/* ---- hotplug: failures with no way back are reported ------------------- */

static int fail_step(unsigned int cpu)
{
	return -EIO;
}

static struct cpuhp_step failing_starting_step = {
	.name = "test:failing-starting",
	.phase = CPUHP_STARTING,
	.startup = fail_step,
	.teardown = fail_step,
};

/* A starting or dying callback cannot fail: the CPU goes up or down all
 * the same, and each failure is one report. */
static void failed_starting_and_dying_steps_are_reported(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	unsigned long before = bug_reports();

	if (!ktest_need_cpus(t, 2))
		return;
	ktest_expect_bugs(t, "cpuhp", 2);
	cpuhp_add_step(&failing_starting_step);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0);
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t, cpuhp_reported(cpu, "dying step test:failing-starting failed; ignored"));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	cpuhp_remove_step(&failing_starting_step);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_EQ(t, bug_reports() - before, 2);
	KT_EXPECT_TRUE(t,
		       cpuhp_reported(cpu, "starting step test:failing-starting failed; ignored"));
}

/* Registered in this order: the second one's up fails, so the first one's
 * down undoes it, and fails too. */
static struct cpuhp_step unundoable_step = {
	.name = "test:cannot-undo",
	.phase = CPUHP_PREPARE,
	.teardown = fail_step,
};
static struct cpuhp_step refusing_prepare_step = {
	.name = "test:refuse-prepare",
	.phase = CPUHP_PREPARE,
	.startup = fail_step,
};

/* A failed online is rolled back; a rollback step that fails is reported.
 * The online fails with the first error, and a later one succeeds. */
static void failed_rollback_is_reported(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	unsigned long before = bug_reports();

	if (!ktest_need_cpus(t, 2))
		return;
	ktest_expect_bugs(t, "cpuhp", 1);
	KT_ASSERT_EQ(t, cpu_down(cpu), 0);
	cpuhp_add_step(&unundoable_step);
	cpuhp_add_step(&refusing_prepare_step);
	KT_EXPECT_EQ(t, cpu_up(cpu), -EIO);
	cpuhp_remove_step(&refusing_prepare_step);
	cpuhp_remove_step(&unundoable_step);
	KT_EXPECT_FALSE(t, cpu_online(cpu));
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t,
		       cpuhp_reported(cpu, "test:cannot-undo teardown failed while rolling back"));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
}

/* ---- workqueue: a pool that makes no progress is reported --------------- */

extern const struct kernel_param __kparam_start[], __kparam_end[];

/* The variable of an unsigned int parameter (the command line's table). */
static unsigned int *uint_param(const char *name)
{
	for (const struct kernel_param *p = __kparam_start; p < __kparam_end; p++)
		if (p->type == PARAM_T_UINT && strcmp(p->name, name) == 0)
			return p->var;
	return NULL;
}

static unsigned int *stall_s, stall_s_saved;
static unsigned long hog_bugs0;
static volatile bool hog_running, hog_saw_report, waiter_ran;

/* Busy, never sleeping: its pool runs nothing else until a report comes
 * (or, in a broken kernel, until the bound of KT_WAIT_UNTIL). */
static void hog_fn(struct work_struct *w)
{
	u64 deadline = 0;

	WRITE_ONCE(hog_running, true);
	while (bug_reports() == hog_bugs0 && ktest_wait_poll_busy(&deadline))
		;
	/* At once, so the stall cannot be reported twice. */
	WRITE_ONCE(*stall_s, stall_s_saved);
	WRITE_ONCE(hog_saw_report, bug_reports() != hog_bugs0);
}

static void waiter_fn(struct work_struct *w)
{
	WRITE_ONCE(waiter_ran, true);
}

/* An item queued behind one that keeps its CPU's pool busy makes no
 * progress: with wq_stall_s=1, the periodic check reports the pool, once. */
static void a_stalled_pool_is_reported(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	unsigned long before = bug_reports();
	struct work_struct hog, waiter;

	if (!ktest_need_cpus(t, 2))
		return;
	stall_s = uint_param("wq_stall_s");
	KT_ASSERT_NOT_NULL(t, stall_s);
	stall_s_saved = *stall_s;
	hog_bugs0 = before;
	hog_running = hog_saw_report = waiter_ran = false;
	INIT_WORK(&hog, hog_fn);
	INIT_WORK(&waiter, waiter_fn);
	ktest_expect_bugs(t, "workqueue", 1);
	queue_work_on(cpu, system_wq, &hog);
	KT_WAIT_UNTIL(t, READ_ONCE(hog_running));
	/* CPU-hog detection would let the waiter start beside the hog: off
	 * for the stall to happen. */
	unsigned int thresh = wq_cpu_intensive_thresh_us;

	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);
	queue_work_on(cpu, system_wq, &waiter);
	WRITE_ONCE(*stall_s, 1);
	flush_work(&hog);
	WRITE_ONCE(*stall_s, stall_s_saved); /* (done already, unless it gave up) */
	flush_work(&waiter);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	KT_EXPECT_TRUE(t, hog_saw_report);
	KT_EXPECT_TRUE(t, waiter_ran);
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t, logged("] BUG (expected by a test): workqueue: pool "));
	char where[32];

	scnprintf(where, sizeof(where), " (cpu %u) stalled: ", cpu);
	KT_EXPECT_TRUE(t, logged(where));
}

/* ---- hotplug: the waits that have a bound ------------------------------ */

/* An online step that fails, and leaves the thread that runs it (cpu_up's
 * caller, which also makes the rollback's stopper) unable to make threads:
 * the rollback cannot take the CPU back down however long it tries. */
static int fail_and_starve(unsigned int cpu)
{
	kthread_fail_own(~0u);
	return -EIO;
}

static struct cpuhp_step starving_online_step = {
	.name = "test:fail-and-starve",
	.phase = CPUHP_ONLINE,
	.startup = fail_and_starve,
};

/* The rollback of a failed online gives up on its stopper at the bound,
 * reports it, and leaves the CPU online, inactive and going down; cpu_up()
 * refuses it and cpu_down() finishes the rollback. */
static void a_rollback_without_a_stopper_gives_up_at_its_bound(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	unsigned int saved = cpuhp_timeout_ms;
	unsigned long before = bug_reports();

	if (!ktest_need_cpus(t, 2))
		return;
	ktest_expect_bugs(t, "cpuhp", 1);
	KT_ASSERT_EQ(t, cpu_down(cpu), 0);
	cpuhp_add_step(&starving_online_step);
	WRITE_ONCE(cpuhp_timeout_ms, 100); /* reached by construction: no stopper ever */
	int err = cpu_up(cpu);

	kthread_fail_own(0);
	WRITE_ONCE(cpuhp_timeout_ms, saved);
	cpuhp_remove_step(&starving_online_step);
	KT_EXPECT_EQ(t, err, -EIO);
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t, cpuhp_reported(cpu, "no stopper thread to take it back down after a "
					      "failed online within 100 ms; left online, "
					      "inactive and going down"));
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_FALSE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
	KT_EXPECT_TRUE(t, cpu_going_down(cpu));
	KT_EXPECT_EQ(t, cpu_up(cpu), -EBUSY);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0); /* finishes the rollback */
	KT_EXPECT_FALSE(t, cpu_online(cpu));
	KT_EXPECT_FALSE(t, cpu_going_down(cpu));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
}

/* A dying CPU that does not signal its death (held by the test) is given
 * up at the bound and reported; the CPU stays going down, cpu_up() refuses
 * it, and once it dies a later cpu_down() finishes the offline. */
static void a_cpu_that_does_not_die_is_given_up_at_the_bound(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	unsigned int saved = cpuhp_timeout_ms;
	unsigned long before = bug_reports();

	if (!ktest_need_cpus(t, 2))
		return;
	ktest_expect_bugs(t, "cpuhp", 1);
	cpuhp_hold_death(true);
	WRITE_ONCE(cpuhp_timeout_ms, 100); /* reached by construction: it is held */
	int err = cpu_down(cpu);

	WRITE_ONCE(cpuhp_timeout_ms, saved);
	KT_EXPECT_EQ(t, err, -ETIMEDOUT);
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
	KT_EXPECT_TRUE(t, cpuhp_reported(cpu, "did not die within 100 ms of its stopper's start; "
					      "left going down"));
	KT_EXPECT_FALSE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
	KT_EXPECT_TRUE(t, cpu_going_down(cpu));
	KT_EXPECT_EQ(t, cpu_up(cpu), -EBUSY);
	cpuhp_hold_death(false);
	KT_EXPECT_EQ(t, cpu_down(cpu), 0); /* it dies now: the offline is finished */
	KT_EXPECT_FALSE(t, cpu_online(cpu));
	KT_EXPECT_FALSE(t, cpu_going_down(cpu));
	KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
}

KTEST_SUITE(reports, KTEST_CASE(a_report_is_counted_and_reads_as_declared),
	    KTEST_CASE(a_declared_report_from_a_work_item_is_expected),
	    KTEST_CASE(failed_starting_and_dying_steps_are_reported),
	    KTEST_CASE(failed_rollback_is_reported), KTEST_CASE(a_stalled_pool_is_reported),
	    KTEST_CASE(a_cpu_that_does_not_die_is_given_up_at_the_bound),
	    KTEST_CASE(a_rollback_without_a_stopper_gives_up_at_its_bound));
