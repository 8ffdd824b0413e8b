/* tests/kernel/test_kcsan.c - the data-race detector catches a planted
 * race (kernel/kcsan.c). Explicit (test=kcsan, a boot of its own in make
 * test): only the sanitized build (make SAN=1 or SAN=kcsan) has the
 * detector; the plain one skips, and make test, whose boots are sanitized,
 * fails on that skip. Two threads on two CPUs increment a plain
 * counter (the racy counter every course starts with) while every access
 * is watched; the detector must report the pair once, and a marked
 * counter (WRITE_ONCE/READ_ONCE, no lost updates only by luck, but no data
 * race in the C sense) must not be reported. */
#include "kernel/kcsan.h"
#include "kernel/kthread.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "kernel/tools/ktest.h"
#include "lib/compiler.h"
#include "tests/kernel/ktest_helpers.h"
#include "tests/ktest_assert.h"

static unsigned long plain_counter;
static unsigned long marked_counter;
static unsigned long excused_counter;
static volatile bool stop;

static __noinline int racer_fn(void *arg)
{
	while (!READ_ONCE(stop)) {
		plain_counter++;
		barrier(); /* a load and a store each time, not a register */
	}
	return 0;
}

static __noinline int marked_fn(void *arg)
{
	while (!READ_ONCE(stop)) {
		WRITE_ONCE(marked_counter, READ_ONCE(marked_counter) + 1);
		barrier();
	}
	return 0;
}

/* A racy counter excused with data_race(): racy on purpose (a statistic
 * that may lose counts), so not checked. */
static __noinline int excused_fn(void *arg)
{
	while (!READ_ONCE(stop)) {
		data_race(excused_counter++);
		barrier();
	}
	return 0;
}

static void two_cpus(struct ktest *t, int (*fn)(void *), unsigned long *counter, unsigned long bugs)
{
	unsigned long before = bug_reports();
	unsigned int skip = kcsan_set_skip_watch(1);
	struct thread *a = kthread_create_on_cpu(fn, NULL, 0, "racer/0");
	struct thread *b = kthread_create_on_cpu(fn, NULL, 1, "racer/1");

	KT_ASSERT_TRUE(t, a && b);
	stop = false;
	wake_up_thread(a);
	wake_up_thread(b);
	if (bugs)
		KT_WAIT_UNTIL(t, bug_reports() > before);
	else
		KT_WAIT_UNTIL(t, READ_ONCE(*counter) > 200000);
	WRITE_ONCE(stop, true);
	kthread_stop(a);
	kthread_stop(b);
	kcsan_set_skip_watch(skip);
	KT_EXPECT_EQ(t, bug_reports() - before, bugs);
}

/* Skips where the case cannot run: say why. */
static bool cannot_run(struct ktest *t)
{
#ifndef CONFIG_KCSAN
	ktest_skip(t, "the plain build has no data-race detector (make SAN=1)");
	return true;
#endif
	return !ktest_need_cpus(t, 2);
}

static void a_racy_counter_is_reported(struct ktest *t)
{
	if (cannot_run(t))
		return;
	ktest_expect_bugs(t, "kcsan", 1);
	two_cpus(t, racer_fn, &plain_counter, 1);
}

static void a_marked_counter_is_not(struct ktest *t)
{
	if (cannot_run(t))
		return;
	two_cpus(t, marked_fn, &marked_counter, 0);
}

static void a_data_race_access_is_not(struct ktest *t)
{
	if (cannot_run(t))
		return;
	two_cpus(t, excused_fn, &excused_counter, 0);
}

KTEST_SUITE_EXPLICIT(kcsan, KTEST_CASE(a_racy_counter_is_reported),
		     KTEST_CASE(a_marked_counter_is_not), KTEST_CASE(a_data_race_access_is_not));
