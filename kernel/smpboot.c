/* kernel/smpboot.c - bringing the other CPUs up, at boot and for cpu_up();
 * see smpboot.h. */
#define pr_fmt(fmt) "smp: " fmt
#include "kernel/smpboot.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/traps.h"
#include "drivers/acpi.h"
#include "kernel/cpu_masks.h"
#include "kernel/deterministic.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/errno.h"

#define DEFAULT_LAPIC_PHYS 0xFEE00000ULL

bool smp_booted; /* smp_init() is done */

static void timer_interrupt(struct pt_regs *regs)
{
	clockevent_interrupt();
}

static void clock_kick_interrupt(struct pt_regs *regs)
{
	clockevent_kick_interrupt();
}

static void spurious_interrupt(struct pt_regs *regs)
{
	/* Nothing to do, and no EOI (SDM 11.9). */
}

static void apic_error_interrupt(struct pt_regs *regs)
{
	/* The kernel programs every interrupt and IPI the APIC sees. */
	report_bug("smp", "local APIC error on cpu%u", smp_processor_id());
}

int smp_bringup_cpu(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpumask_test_cpu(cpu, &cpu_present_mask))
		return -ENODEV;
	if (cpu_online(cpu))
		return -EALREADY;
	struct percpu *pc = percpu_setup(cpu, cpu_apic_ids[cpu]);

	if (!pc)
		return -ENOMEM;
	/* Live from before it runs its first instruction: stacks freed from
	 * now until it is online wait (kernel/mm/kstack.c). */
	set_bit(cpu, cpumask_bits(&cpu_live_mask));
	int err = arch_cpu_boot(pc);

	if (err)
		clear_bit(cpu, cpumask_bits(&cpu_live_mask)); /* never started, or parked by INIT */
	return err;
}

static struct acpi_madt_info madt; /* I: filled once on the boot CPU */

void smp_init(void)
{
	const struct acpi_sdt_header *t = acpi_get_table("APIC", 0);
	u64 lapic_phys = DEFAULT_LAPIC_PHYS;

	if (t && acpi_parse_madt(t, &madt) == 0)
		lapic_phys = madt.lapic_phys;
	else
		pr_err("no usable MADT: running on the boot CPU only\n");
	lapic_init_boot(lapic_phys);
	boot_percpu.apic_id = lapic_id();
	acpi_number_cpus(&madt, boot_percpu.apic_id);

	irq_register_vector(LOCAL_TIMER_VECTOR, timer_interrupt);
	smp_calls_init(); /* the call-function and reschedule vectors */
	irq_register_vector(CLOCK_KICK_VECTOR, clock_kick_interrupt);
	irq_register_vector(SPURIOUS_APIC_VECTOR, spurious_interrupt);
	irq_register_vector(ERROR_APIC_VECTOR, apic_error_interrupt);
	for (unsigned int v = PIC_SPURIOUS_BASE; v < PIC_SPURIOUS_BASE + 16; v++)
		irq_register_vector(v, spurious_interrupt);
	pic_disable();
	ioapic_init(&madt);

	lapic_timer_calibrate();
	cpu_mark_online();
	clockevent_start_cpu();

	det_boot_quiesce(); /* deterministic mode: QEMU's round-robin from guest time */

	unsigned int cpu, started = 0;
	u64 t0 = ktime_get_ns();

	for_each_present_cpu(cpu) {
		if (cpu == 0)
			continue;
		int err = smp_bringup_cpu(cpu);

		started += !err;
		if (err)
			pr_err("cpu%u (APIC id %u) did not come up (error %d); continuing without "
			       "it\n",
			       cpu, cpu_apic_ids[cpu], err);
	}
	u64 took = ktime_get_ns() - t0;

	/* make bench reads this line: the bring-up's cost per CPU. */
	if (started)
		pr_info("%u other CPUs brought up in %lu us, %lu us each\n", started,
			(unsigned long)(took / 1000), (unsigned long)(took / 1000 / started));
	kstack_reclaim(); /* stacks freed while a CPU was starting */
	pr_info("%u CPUs possible, %u present, %u online\n", cpumask_weight(&cpu_possible_mask),
		cpumask_weight(&cpu_present_mask), num_online_cpus());
	smp_booted = true;
}
