/* tests/kernel/test_lab_hotplug.c - lab 5 (docs/labs.md): a CPU-hotplug
 * callback. The step below is the lab's reference solution: it counts the
 * CPUs it has seen come and go, and checks what a step of its phase may
 * rely on. Explicit: test=lab_hotplug_callback. */
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "tests/kernel/ktest_helpers.h"

static atomic_t ups, downs, bad;
static volatile bool lab_setting_up; /* the test is in cpuhp_setup_step() */
static volatile bool refuse;
static volatile unsigned int ran_on;

static void where_fn(struct work_struct *w)
{
	ran_on = smp_processor_id();
}

/* Online phase, up: the CPU is online, and its worker pools are bound
 * again (workqueue:online ran before this step), so a work item queued to
 * it runs there. In a cpu_up it is not active yet (sched:active is the
 * last step); set up for CPUs already up (cpuhp_setup_step()), it is. */
static int lab_up(unsigned int cpu)
{
	struct work_struct w;

	atomic_inc(&ups);
	if (!cpu_online(cpu) || cpumask_test_cpu(cpu, &cpu_active_mask) != lab_setting_up)
		atomic_inc(&bad);
	INIT_WORK(&w, where_fn);
	ran_on = NR_CPUS;
	queue_work_on(cpu, system_wq, &w);
	flush_work(&w);
	if (ran_on != cpu)
		atomic_inc(&bad);
	return 0;
}

/* Online phase, down: in an offline (cpu_going_down()) the CPU still runs
 * but takes no new threads, and a refusal cancels the offline; as the step
 * is taken out (cpuhp_teardown_step()) it runs for CPUs that stay up. */
static int lab_down(unsigned int cpu)
{
	bool going = cpu_going_down(cpu);

	if (refuse && going)
		return -EBUSY;
	atomic_inc(&downs);
	if (!cpu_online(cpu) || cpumask_test_cpu(cpu, &cpu_active_mask) == going)
		atomic_inc(&bad);
	return 0;
}

static struct cpuhp_step lab_step = {
	.name = "lab:counter",
	.phase = CPUHP_ONLINE,
	.startup = lab_up,
	.teardown = lab_down,
};

static void a_hotplug_step_sees_the_right_state(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();

	if (!ktest_need_cpus(t, 2))
		return;
	unsigned int online = num_online_cpus();

	atomic_set(&ups, 0);
	atomic_set(&downs, 0);
	atomic_set(&bad, 0);
	/* Set up as Linux's cpuhp_setup_state(): its startup runs for every CPU
	 * already online, then for each that comes up. */
	lab_setting_up = true;
	int err = cpuhp_setup_step(&lab_step);

	lab_setting_up = false;
	KT_ASSERT_EQ(t, err, 0);
	KT_EXPECT_EQ(t, atomic_read(&ups), online);
	for (int i = 0; i < 3; i++) {
		KT_EXPECT_EQ(t, cpu_down(cpu), 0);
		KT_EXPECT_EQ(t, cpu_up(cpu), 0);
	}
	refuse = true;
	KT_EXPECT_EQ(t, cpu_down(cpu), -EBUSY); /* cancelled by the step */
	refuse = false;
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	cpuhp_teardown_step(&lab_step); /* its teardown for every CPU, then gone */
	KT_EXPECT_EQ(t, atomic_read(&downs), 3 + online);
	KT_EXPECT_EQ(t, atomic_read(&ups), 3 + online);
	KT_EXPECT_EQ(t, atomic_read(&bad), 0);
}

KTEST_SUITE_EXPLICIT(lab_hotplug_callback, KTEST_CASE(a_hotplug_step_sees_the_right_state));
