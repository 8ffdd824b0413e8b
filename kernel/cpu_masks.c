/* kernel/cpu_masks.c - the CPU masks and CPU numbers; see cpu_masks.h. */
#include "kernel/cpu_masks.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/smpboot.h"

struct cpumask cpu_possible_mask;
struct cpumask cpu_present_mask;
struct cpumask cpu_online_mask;
struct cpumask cpu_active_mask;
struct cpumask cpu_live_mask;
u32 cpu_apic_ids[NR_CPUS];
unsigned int nr_cpu_ids = 1;

void cpu_mark_online(void)
{
	unsigned int cpu = smp_processor_id();

	set_bit(cpu, cpumask_bits(&cpu_live_mask)); /* (the boot CPU's first) */
	set_bit(cpu, cpumask_bits(&cpu_online_mask));
	/* Online, it takes TLB shootdowns from now on; one sent before went
	 * past it. Forget whatever it cached while starting, before touching
	 * anything else. */
	local_flush_tlb_all();
	/* At boot a CPU is active at once; later, CPU hotplug activates it
	 * after its online callbacks. */
	if (!smp_booted)
		set_bit(cpu, cpumask_bits(&cpu_active_mask));
}
