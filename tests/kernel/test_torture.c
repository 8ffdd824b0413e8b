/* tests/kernel/test_torture.c - the CPU-hotplug torture (kernel/tools/torture.h)
 * as an explicit suite: test=hotplug_torture, with the torture_* command
 * line parameters (default: 500 cycles, no pause between operations).
 * `make test` boots it at -smp 4; `make torture` runs it for hours. */
#include "kernel/tools/ktest.h"
#include "kernel/tools/torture.h"
#include "lib/errno.h"
#include "tests/kernel/ktest_helpers.h"

static struct torture_result res; /* too big for the stack */

static void cpus_go_offline_and_online_under_load(struct ktest *t)
{
	struct torture_params p;

	if (!ktest_need_cpus(t, 2))
		return;
	torture_params_from_cmdline(&p);
	if (!p.cycles && !p.duration_s) {
		ktest_fail(t, __FILE__, __LINE__,
			   "torture_cycles=0 needs torture_duration_s=N: the suite must end");
		return;
	}
	KT_EXPECT_FALSE(t, torture_running());
	int err = torture_start(&p);

	KT_EXPECT_EQ(t, err, 0);
	if (err)
		return;
	KT_EXPECT_EQ(t, torture_start(&p), -EBUSY);
	KT_ASSERT_TRUE(t, torture_wait(UINT64_MAX));
	KT_EXPECT_FALSE(t, torture_running());
	KT_ASSERT_TRUE(t, torture_get_result(&res));
	KT_EXPECT_TRUE(t, res.passed);
	KT_EXPECT_FALSE(t, res.gave_up);
	KT_EXPECT_EQ(t, res.violations, 0);
	for (unsigned int i = 0; i < res.nr_reports; i++)
		ktest_fail(t, __FILE__, __LINE__, "violation: %s", res.reports[i]);
	if (p.cycles)
		KT_EXPECT_LE(t, p.cycles, res.cycles);
	if (p.hotplug != TORTURE_HOTPLUG_HOST) /* then another caller does it all */
		KT_EXPECT_LE(t, 1, res.cycles);
	KT_EXPECT_LE(t, res.cycles, res.nr_offline);
	KT_EXPECT_LE(t, 1, res.works_run);
	KT_EXPECT_EQ(t, res.works_run + res.works_cancelled, res.works_queued);
	KT_EXPECT_LE(t, 1, res.timers_fired);
}

KTEST_SUITE_EXPLICIT(hotplug_torture, KTEST_CASE(cpus_go_offline_and_online_under_load));
