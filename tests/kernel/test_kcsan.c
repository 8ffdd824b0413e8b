/* tests/kernel/test_kcsan.c - the data-race detector catches a planted
 * race (kernel/debug/kcsan.c). Explicit (test=kcsan, a boot of its own in make
 * test): only the sanitized build (make SAN=1 or SAN=kcsan) has the
 * detector; the plain one skips, and make test, whose boots are sanitized,
 * fails on that skip. Two threads on two CPUs increment a plain
 * counter (the racy counter every course starts with) while every access
 * is watched; the detector must report the pair once, and a marked
 * counter (WRITE_ONCE/READ_ONCE, no lost updates only by luck, but no data
 * race in the C sense) must not be reported. A plain store racing with a
 * marked load must be reported at the detector's default rate, within a
 * bound of accesses: the case that fails when the sampling is broken. */
#include "kernel/debug/kcsan.h"
#include "kernel/kthread.h"
#include "kernel/panic.h"
#include "kernel/tools/ktest.h"
#include "lib/compiler.h"
#include "tests/kernel/ktest_helpers.h"

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

/*
 * A race found at the detector's own rate: no kcsan_set_skip_watch(), so a
 * sampler that has stopped sampling fails here, where the cases above,
 * which watch every access, would not notice.
 *
 * One racer stores to a plain variable, the other loads it with
 * READ_ONCE(): a data race (one plain access is enough), and one the
 * detector can report only one way, so exactly once. The writer's CPU
 * watches its own store now and then; the reader's marked load consumes
 * the watchpoint, and the pair of functions is reported, once. The reader
 * never watches (marked accesses do not), and nothing else writes, so no
 * watched value changes with the other side unseen: two plain increments
 * can be reported that way too, a second report that would come before
 * the case could stop them.
 *
 * The writer's loop makes one plain access, its store (stop, the start
 * and the progress are marked, bug_reports() is not instrumented). At the
 * default kcsan_skip_watch (4000, each count drawn between 2000 and 6000)
 * its CPU watches the store about once every 4000 iterations, and the
 * reader loads within the 80 us the watchpoint waits if its vCPU is
 * running then. Alone on the host that is one of the first watchpoints, a
 * few thousand stores in; with the host's two cores loaded nine deep,
 * 48 boots at -smp 2 and 4 needed up to 310,000 stores (75 watchpoints),
 * most under 130,000.
 *
 * The bound: the racers run until the report comes, or until each has made
 * RATE_BOUND_ACCESSES (2,000,000 stores: about 500 watchpoints at the
 * default rate), and then the case fails. They start together, and
 * neither stops before the other has made its share. A sampler 100,000
 * times too rare watches once in 200 to 600 million accesses: within the
 * bound with a chance of about 0.5%. KT_WAIT_UNTIL's limit caps the time
 * (the bound takes about 2 s of guest time on the loaded host).
 *
 * Each racer stops by itself as soon as the report is out; the case, which
 * polls, would let them run on a little longer.
 */
#define RATE_BOUND_ACCESSES 2000000ul

static unsigned long rate_shared;
static unsigned long rate_progress[2];	  /* the writer's stores, the reader's loads: WRITE_ONCE */
static unsigned long rate_reports_before; /* set before the racers start */

static atomic_t rate_racers_started;

/* Each racer begins once both run, so that neither counts accesses made
 * alone towards the bound (the case stops a racer still waiting here). */
static void rate_start_together(void)
{
	atomic_inc(&rate_racers_started);
	while (atomic_read(&rate_racers_started) < 2 && !READ_ONCE(stop))
		cpu_relax();
}

/* Until the case stops them, or the report is out (bug_reports() is not
 * instrumented: no plain access). */
static bool rate_racing(void)
{
	return !READ_ONCE(stop) && bug_reports() == READ_ONCE(rate_reports_before);
}

static __noinline int rate_writer_fn(void *arg)
{
	unsigned long n = 0;

	rate_start_together();
	while (rate_racing()) {
		rate_shared = ++n;
		barrier(); /* a store each time */
		if (!(n % 1024))
			WRITE_ONCE(rate_progress[0], n);
	}
	return 0;
}

static __noinline int rate_reader_fn(void *arg)
{
	unsigned long n = 0;

	rate_start_together();
	while (rate_racing()) {
		(void)READ_ONCE(rate_shared);
		if (!(++n % 1024))
			WRITE_ONCE(rate_progress[1], n);
	}
	return 0;
}

static void a_race_is_reported_at_the_default_rate(struct ktest *t)
{
	if (cannot_run(t))
		return;
	ktest_expect_bugs(t, "kcsan", 1);
	rate_reports_before = bug_reports();
	rate_progress[0] = rate_progress[1] = 0;
	atomic_set(&rate_racers_started, 0);
	stop = false;
	struct thread *a = kthread_create_on_cpu(rate_writer_fn, NULL, 0, "rate-writer/0");
	struct thread *b = kthread_create_on_cpu(rate_reader_fn, NULL, 1, "rate-reader/1");

	KT_ASSERT_TRUE(t, a && b);
	wake_up_thread(a);
	wake_up_thread(b);
	KT_WAIT_UNTIL(t, bug_reports() > rate_reports_before ||
				 (READ_ONCE(rate_progress[0]) >= RATE_BOUND_ACCESSES &&
				  READ_ONCE(rate_progress[1]) >= RATE_BOUND_ACCESSES));
	WRITE_ONCE(stop, true);
	kthread_stop(a);
	kthread_stop(b);
	if (bug_reports() == rate_reports_before)
		ktest_fail(
			t, __FILE__, __LINE__,
			"no report after %lu plain stores racing with %lu marked loads on another "
			"CPU (bound %lu each): the detector is not sampling at its default rate",
			rate_progress[0], rate_progress[1], RATE_BOUND_ACCESSES);
	KT_EXPECT_EQ(t, bug_reports() - rate_reports_before, 1);
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
		     KTEST_CASE(a_race_is_reported_at_the_default_rate),
		     KTEST_CASE(a_marked_counter_is_not), KTEST_CASE(a_data_race_access_is_not));
