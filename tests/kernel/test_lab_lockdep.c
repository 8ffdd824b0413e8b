/* tests/kernel/test_lab_lockdep.c - lab 7 (docs/labs.md): the lab's two
 * paths, the stats work item and the table path, run once each, one after
 * the other (they never overlap, so nothing can hang), and the lock
 * validator must have nothing to report. Booted with lockdep_lab_abba=1 the
 * table path takes the locks in the wrong order and the validator's report
 * fails the case (the lab7-lockdep-broken boot). Explicit: test=lab_lockdep. */
#include "kernel/debug/lockdep.h"
#include "kernel/tools/ktest.h"
#include "kernel/tools/lab_lockdep.h"

static void lab7_paths_in_one_order(struct ktest *t)
{
	struct lab_lockdep_result r;

	/* Off (lockdep=0, or after an earlier report), it would prove nothing. */
	KT_ASSERT_TRUE(t, lockdep_on());
	lab_lockdep_run(&r);
	KT_EXPECT_EQ(t, r.total, r.slot_sum);
	KT_EXPECT_EQ(t, r.reports, 0);
}

KTEST_SUITE_EXPLICIT(lab_lockdep, KTEST_CASE(lab7_paths_in_one_order));
