/* drivers/acpi_cpus.c - the CPUs the firmware's MADT lists, numbered into
 * the CPU masks (kernel/cpu_masks.h) at boot: acpi_number_cpus(), in
 * drivers/acpi.h. The table itself is read by drivers/acpi_madt.c. */
#define pr_fmt(fmt) "smp: " fmt /* the boot's CPU messages, as smp_init()'s */
#include "drivers/acpi.h"
#include "kernel/cpu_masks.h"
#include "kernel/printk.h"

void acpi_number_cpus(const struct acpi_madt_info *madt, u32 boot_apic)
{
	cpu_apic_ids[0] = boot_apic;
	cpumask_set_cpu(0, &cpu_possible_mask);
	cpumask_set_cpu(0, &cpu_present_mask);
	for (unsigned int i = 0; i < madt->nr_cpus; i++) {
		const struct acpi_madt_cpu *c = &madt->cpus[i];

		if (c->apic_id == boot_apic)
			continue;
		if (nr_cpu_ids == NR_CPUS) {
			pr_warn("more than %d CPUs; ignoring APIC id %u and beyond\n", NR_CPUS,
				c->apic_id);
			break;
		}
		cpu_apic_ids[nr_cpu_ids] = c->apic_id;
		cpumask_set_cpu(nr_cpu_ids, &cpu_possible_mask);
		if (c->enabled)
			cpumask_set_cpu(nr_cpu_ids, &cpu_present_mask);
		nr_cpu_ids++;
	}
}
