/* kernel/cpu_masks.h - which CPUs exist and which run: the CPU masks.
 *
 * The masks (as in Linux):
 *   cpu_possible_mask  every CPU the firmware lists, enabled or able to be
 *                      brought online later (ACPI "online capable", what
 *                      QEMU's -smp N,maxcpus=M creates); fixed at boot
 *   cpu_present_mask   possible CPUs that are physically there (enabled)
 *   cpu_online_mask    CPUs running the kernel and taking interrupts
 *   cpu_active_mask    online CPUs that take new work (CPU hotplug clears
 *                      a dying CPU's bit here first)
 *   cpu_live_mask      CPUs executing kernel code: the online ones, plus one
 *                      being started (set before its INIT-SIPI-SIPI) or
 *                      dying (out of online, not yet halted). Only online
 *                      CPUs take cross-CPU calls, so a TLB shootdown does
 *                      not reach a live CPU that is not online: see
 *                      cpus_in_transit() and kernel/mm/kstack.c.
 * possible is written on the boot CPU before any other runs (from the
 * firmware's MADT: drivers/acpi_cpus.c). present is too, and then changes
 * when the host adds or removes a vCPU (cpu_hot_add()/cpu_hot_remove()).
 * online and active change during cpu_up()/cpu_down(), by the control CPU
 * and by the CPU coming or going itself (cpu_mark_online(),
 * smp_cpu_dying(), the scheduler's activate and deactivate steps). All of
 * these run while kernel/hotplug.c's lock is held (its holder is the
 * control CPU; at boot, before anyone can take it), and change a bit with
 * an atomic bit operation; readers take no lock (test_bit() and the bitmap
 * functions read each word once). A reader sees each bit change whole but
 * no set that stays put: a CPU it finds online may be going down already.
 * Code that must not run on a CPU once it is gone registers a hotplug
 * step.
 */
#ifndef KERNEL_CPU_MASKS_H
#define KERNEL_CPU_MASKS_H

#include "kernel/cpu_local.h"
#include "lib/cpumask.h"

extern struct cpumask cpu_possible_mask;
extern struct cpumask cpu_present_mask;
extern struct cpumask cpu_online_mask;
extern struct cpumask cpu_active_mask;
extern struct cpumask cpu_live_mask;
extern u32 cpu_apic_ids[NR_CPUS]; /* I: APIC id of each possible CPU */
extern unsigned int nr_cpu_ids;	  /* I: highest possible CPU id + 1 */

#define for_each_possible_cpu(cpu) for_each_cpu(cpu, &cpu_possible_mask)
#define for_each_present_cpu(cpu)  for_each_cpu(cpu, &cpu_present_mask)
#define for_each_online_cpu(cpu)   for_each_cpu(cpu, &cpu_online_mask)

/* Could cpu ever run (any number, out of range too: false)? */
static inline bool cpu_possible(unsigned int cpu)
{
	return cpu < nr_cpu_ids && cpumask_test_cpu(cpu, &cpu_possible_mask);
}

static inline bool cpu_online(unsigned int cpu)
{
	return cpumask_test_cpu(cpu, &cpu_online_mask);
}

/* Is some CPU running kernel code without being online (starting up, or
 * dying)? Such a CPU may cache translations a shootdown cannot reach. */
static inline bool cpus_in_transit(void)
{
	return !cpumask_subset(&cpu_live_mask, &cpu_online_mask);
}

static inline unsigned int num_online_cpus(void)
{
	return cpumask_weight(&cpu_online_mask);
}

/* The CPU itself, going online (from ap_start, and the boot CPU from
 * smp_init()), interrupts off: set its live and online bits (and active,
 * at boot), then forget every translation it cached meanwhile. Going
 * offline is smp_cpu_dying()'s (kernel/smp.h): it must not strand a
 * cross-CPU call. */
void cpu_mark_online(void);

#endif
