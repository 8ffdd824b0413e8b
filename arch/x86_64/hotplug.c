/* arch/x86_64/hotplug.c - the machine's part of CPU hotplug: what
 * kernel/hotplug.c's state machine asks of the local APIC and the I/O APIC
 * (the interface and when each is called: kernel/hotplug.h, "The
 * machine's part"). Starting a CPU is arch/x86_64/smpboot.c's. */
#define pr_fmt(fmt) "cpu: " fmt
#include "kernel/hotplug.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/ioapic.h"
#include "kernel/cpu_masks.h"
#include "kernel/printk.h"

/* The dying step "irqs:dying": on cpu, interrupts off. The I/O APIC inputs
 * aimed at it go to the first online CPU (cpu is out of the online mask
 * by now), where the timers go too. */
int arch_cpu_irqs_dying(unsigned int cpu)
{
	unsigned int to = cpumask_first(&cpu_online_mask);
	unsigned int n = ioapic_retarget(cpu_apic_ids[cpu], cpu_apic_ids[to]);

	if (n)
		pr_info("cpu%u: %u interrupt(s) re-routed to cpu%u\n", cpu, n, to);
	return 0;
}

/* cpu halted with interrupts off and holds no lock. INIT puts it in
 * wait-for-SIPI, as at power-on, so cpu_up() starts it exactly like the
 * boot did (arch_cpu_boot()). */
void arch_cpu_dead(unsigned int cpu)
{
	lapic_send_init(cpu_apic_ids[cpu]);
}
