/* tests/kernel/test_acpi_cpuhp.c - the host's CPU hot-unplug refused
 * (drivers/acpi_cpuhp.c). Explicit: it needs a host that answers, run from
 * the shell by the vcpu-hotplug harness boots (tests/vm/vcpu_hotplug_tests.py):
 *
 *   the case makes cpu_down() of one CPU fail (an online-phase step whose
 *   "offline" callback refuses, as a driver that cannot let its CPU go
 *   would), prints which CPU, and waits; the harness sends QMP device_del
 *   for it; the driver's cpu_hot_remove() fails, so it reports _OST(3, 1)
 *   (QEMU sends ACPI_DEVICE_OST to the harness) and leaves the CPU running.
 *   The case checks that, removes the step, and the harness asks again:
 *   this time the CPU goes. */
#include "arch/x86_64/cpu.h"
#include "drivers/acpi_cpuhp.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/printk.h"
#include "kernel/tools/ktest.h"
#include "lib/errno.h"
#include "tests/kernel/ktest_helpers.h"

static unsigned int refusing_cpu;

static int refuse_offline(unsigned int cpu)
{
	return cpu == READ_ONCE(refusing_cpu) ? -ECANCELED : 0;
}

static struct cpuhp_step refuse_step = {
	.name = "test:refuse-offline",
	.phase = CPUHP_ONLINE,
	.teardown = refuse_offline,
};

static u64 refusals(void)
{
	struct acpi_cpuhp_stats st;

	acpi_cpuhp_get_stats(&st);
	return st.refused;
}

static void a_refused_removal_leaves_the_cpu_running(struct ktest *t)
{
	struct acpi_cpuhp_stats st;
	unsigned int cpu = ktest_last_online_cpu(); /* not the boot CPU */

	acpi_cpuhp_get_stats(&st);
	KT_ASSERT_TRUE(t, st.active);
	KT_ASSERT_TRUE(t, cpu != 0);
	u64 before = refusals();

	WRITE_ONCE(refusing_cpu, cpu);
	cpuhp_add_step(&refuse_step);
	printk(KERN_INFO "cpuhp_host_refusal: cpu%u (APIC id %u) refuses to go: ask the host to "
			 "remove it now\n",
	       cpu, cpu_apic_ids[cpu]);
	KT_WAIT_UNTIL(t, refusals() > before);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_active_mask));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_present_mask));
	cpuhp_remove_step(&refuse_step);
}

KTEST_SUITE_EXPLICIT(cpuhp_host_refusal, KTEST_CASE(a_refused_removal_leaves_the_cpu_running));
