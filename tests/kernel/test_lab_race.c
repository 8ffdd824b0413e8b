/* tests/kernel/test_lab_race.c - lab 8 (docs/labs.md): every online CPU
 * counts events into one counter at once, and nothing may be lost or
 * reported. Booted with kcsan_lab_racy=1 the count is a plain increment:
 * the detector's report fails the case (the lab8-race-broken boot), and so
 * may a short total. Explicit: test=lab_race. */
#include "kernel/tools/ktest.h"
#include "kernel/tools/lab_race.h"
#include "tests/kernel/ktest_helpers.h"

static void lab8_every_event_counted_no_race(struct ktest *t)
{
	struct lab_race_result r;

	if (!ktest_need_cpus(t, 2))
		return;
	lab_race_run(&r);
	KT_EXPECT_EQ(t, r.reports, 0);
	KT_EXPECT_EQ(t, r.counted, r.expected);
}

KTEST_SUITE_EXPLICIT(lab_race, KTEST_CASE(lab8_every_event_counted_no_race));
