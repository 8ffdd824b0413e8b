/* drivers/acpi_cpuhp.c - QEMU's CPU-hotplug register block; see acpi_cpuhp.h.
 * Register layout and protocol: QEMU docs/specs/acpi_cpu_hotplug.rst (the
 * modern interface). _OST codes: ACPI 6.5, 6.3.5.
 *
 * Field legend: I = set once in acpi_cpuhp_init(), R = regs_lock,
 * W = only the event work item (ordered workqueue: one at a time).
 */
#define pr_fmt(fmt) "acpi-cpuhp: " fmt
#include "drivers/acpi_cpuhp.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/traps.h"
#include "drivers/acpi.h"
#include "kernel/hotplug.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"

/* Register offsets from the base. Reads: */
#define REG_DATA2 0x0 /* command data 2: 0 after command 0; arch id high after 3 */
#define REG_FLAGS 0x4 /* status of the selected CPU (byte) */
#define REG_DATA  0x8 /* command data: selector after command 0; APIC id after 3 */
/* Writes: */
#define REG_SELECTOR 0x0 /* selects the CPU the other registers speak of */
#define REG_CONTROL  0x4 /* control of the selected CPU (byte) */
#define REG_COMMAND  0x5 /* command field (byte) */

#define FLAG_ENABLED (1u << 0) /* a vCPU is plugged into the slot */
#define FLAG_INSERT  (1u << 1) /* insert event pending (device_add) */
#define FLAG_REMOVE  (1u << 2) /* remove event pending (device_del) */

#define CTL_CLEAR_INSERT (1u << 1)
#define CTL_CLEAR_REMOVE (1u << 2)
#define CTL_EJECT	 (1u << 3)

#define CMD_NEXT_EVENT 0 /* select a CPU with an event; data reads its selector */
#define CMD_OST_EVENT  1 /* data writes set the _OST event */
#define CMD_OST_STATUS 2 /* data writes set the _OST status, and QEMU reports both */
#define CMD_ARCH_ID    3 /* data (and data 2) read the selected CPU's APIC id */

/* _OST source events and status codes (ACPI 6.5, 6.3.5). */
#define OST_DEVICE_CHECK   0x01
#define OST_EJECT_REQUEST  0x03
#define OST_SUCCESS	   0x00
#define OST_FAILURE	   0x01
#define OST_EJECT_NOT_SUPP 0x80
#define OST_EJECT_IN_USE   0x81

#define GPE_CPU_HOTPLUG (1u << 2) /* QEMU raises GPE0 bit 2 for CPU hotplug */

/* The block's address depends on the chipset: the host bridge says which. */
#define PCI_CONFIG_ADDRESS 0xCF8
#define PCI_CONFIG_DATA	   0xCFC
#define HOST_BRIDGE_Q35	   0x29C08086u /* Intel Q35 MCH (device << 16 | vendor) */
#define HOST_BRIDGE_I440FX 0x12378086u /* Intel 440FX (QEMU's pc) */
#define BASE_ICH9	   0x0CD8
#define BASE_PIIX4	   0xAF00

#define POLL_INTERVAL_NS (100 * NSEC_PER_MSEC)
/* More events than this in one pass: the block keeps reporting one it
 * was told to clear. Stop, say so, and look again at the next SCI/poll. */
#define MAX_EVENTS_PER_PASS (4 * ACPI_MAX_CPUS)

enum { MODE_SCI, MODE_POLL, MODE_OFF };
static unsigned int mode = MODE_SCI;
static const char *const mode_names[] = { "sci", "poll", "off", NULL };
PARAM_ENUM(acpi_cpuhp, mode, mode_names,
	   "the hypervisor's CPU hotplug: sci (events by interrupt), poll (every 100 ms), off "
	   "(ignored: QEMU refuses device_del)");

static DEFINE_SPINLOCK(regs_lock);	  /* the selector-command-data sequences */
static u16 base;			  /* I: 0 until the interface is found */
static unsigned int nr_slots;		  /* I */
static u64 slot_apic[ACPI_MAX_CPUS];	  /* I: each slot's APIC id */
static u16 gpe0_sts;			  /* I: GPE0 status port (0: polling) */
static unsigned int sci_irq;		  /* I */
static struct workqueue_struct *cpuhp_wq; /* I */
static struct work_struct event_work;
static struct delayed_work poll_work;
static DEFINE_SPINLOCK(stats_lock);
static struct acpi_cpuhp_stats stats; /* stats_lock */

static u32 pci_host_bridge_id(void)
{
	outl(PCI_CONFIG_ADDRESS, 0x80000000u); /* bus 0, device 0, function 0, offset 0 */
	return inl(PCI_CONFIG_DATA);
}

/* regs_lock held: select slot (its registers from now on). */
static void select_slot(unsigned int slot)
{
	assert_spin_locked(&regs_lock);
	outl(base + REG_SELECTOR, slot);
}

/* regs_lock held: the selected slot's APIC id (command 3). */
static u64 selected_arch_id(void)
{
	assert_spin_locked(&regs_lock);
	outb(base + REG_COMMAND, CMD_ARCH_ID);
	return inl(base + REG_DATA) | (u64)inl(base + REG_DATA2) << 32;
}

/* Slot's APIC id and status flags. */
static void read_slot(unsigned int slot, u64 *arch_id, u8 *flags)
{
	unsigned long irqf = spin_lock_irqsave(&regs_lock);

	select_slot(slot);
	*arch_id = selected_arch_id();
	*flags = inb(base + REG_FLAGS);
	spin_unlock_irqrestore(&regs_lock, irqf);
}

/* Write control bits for slot (clear an event, eject). */
static void control_slot(unsigned int slot, u8 bits)
{
	unsigned long irqf = spin_lock_irqsave(&regs_lock);

	select_slot(slot);
	outb(base + REG_CONTROL, bits);
	spin_unlock_irqrestore(&regs_lock, irqf);
}

/* _OST(event, status) for slot: QEMU sends ACPI_DEVICE_OST to QMP clients. */
static void report_ost(unsigned int slot, u32 event, u32 status)
{
	unsigned long irqf = spin_lock_irqsave(&regs_lock);

	select_slot(slot);
	outb(base + REG_COMMAND, CMD_OST_EVENT);
	outl(base + REG_DATA, event);
	outb(base + REG_COMMAND, CMD_OST_STATUS);
	outl(base + REG_DATA, status);
	spin_unlock_irqrestore(&regs_lock, irqf);
}

/* The next slot with an event: true and its slot, APIC id and flags. */
static bool next_event(unsigned int *slot, u64 *arch_id, u8 *flags)
{
	unsigned long irqf = spin_lock_irqsave(&regs_lock);

	select_slot(0);
	outb(base + REG_COMMAND, CMD_NEXT_EVENT); /* selects one with an event, if any */
	*flags = inb(base + REG_FLAGS);
	bool found = *flags & (FLAG_INSERT | FLAG_REMOVE);

	if (found) {
		*slot = inl(base + REG_DATA);
		*arch_id = selected_arch_id();
	}
	spin_unlock_irqrestore(&regs_lock, irqf);
	return found;
}

/* The kernel's number for the CPU with this APIC id: from the MADT's slots
 * (smp.c numbers every possible CPU at boot). -1 if none. */
static int cpu_of_apic(u64 arch_id)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (cpu_apic_ids[cpu] == arch_id)
			return (int)cpu;
	return -1;
}

static void count(u64 *field)
{
	unsigned long irqf = spin_lock_irqsave(&stats_lock);

	(*field)++;
	spin_unlock_irqrestore(&stats_lock, irqf);
}

/* W: device_add. The insert event is cleared first: one raised again while
 * this runs is a new event, seen by the next pass. */
static void handle_insert(unsigned int slot, u64 arch_id)
{
	int cpu = cpu_of_apic(arch_id);
	u64 t0 = ktime_get_ns();

	control_slot(slot, CTL_CLEAR_INSERT);
	if (cpu < 0) {
		pr_err("slot %u: the host added a CPU with APIC id %lu, which the MADT does not "
		       "list: it cannot be used\n",
		       slot, (unsigned long)arch_id);
		report_ost(slot, OST_DEVICE_CHECK, OST_FAILURE);
		count(&stats.failed);
		return;
	}
	pr_info("cpu%d (APIC id %lu) inserted by the host\n", cpu, (unsigned long)arch_id);
	int err = cpu_hot_add((unsigned int)cpu);

	if (err) {
		pr_err("cpu%d is present but did not come online (%d)\n", cpu, err);
		report_ost(slot, OST_DEVICE_CHECK, OST_FAILURE);
		count(&stats.failed);
		return;
	}
	pr_info("cpu%d online (%lu us)\n", cpu, (unsigned long)((ktime_get_ns() - t0) / 1000));
	report_ost(slot, OST_DEVICE_CHECK, OST_SUCCESS);
	count(&stats.inserted);
}

static const char *refusal_words(int err)
{
	switch (err) {
	case -EPERM:
		return "it is the boot CPU, which never goes";
	case -EBUSY:
		return "it is the last online CPU";
	default:
		return "cpu_down failed";
	}
}

/* W: device_del. Offline (the trustee takes its work), not present, then
 * ejected; or refused with _OST, and it keeps running. */
static void handle_remove(unsigned int slot, u64 arch_id)
{
	int cpu = cpu_of_apic(arch_id);
	u64 t0 = ktime_get_ns();

	control_slot(slot, CTL_CLEAR_REMOVE);
	if (cpu < 0) {
		/* Never used by this kernel: nothing runs there. */
		pr_info("slot %u (APIC id %lu, not in the MADT): ejected\n", slot,
			(unsigned long)arch_id);
		control_slot(slot, CTL_EJECT);
		return;
	}
	pr_info("cpu%d (APIC id %lu): the host asks for its removal\n", cpu,
		(unsigned long)arch_id);
	int err = cpu_hot_remove((unsigned int)cpu);

	if (err && err != -ENODEV) {
		u32 status = err == -EPERM ? OST_EJECT_NOT_SUPP :
			     err == -EBUSY ? OST_EJECT_IN_USE :
					     OST_FAILURE;

		pr_warn("cpu%d stays: %s (%d); _OST status %#x\n", cpu, refusal_words(err), err,
			status);
		report_ost(slot, OST_EJECT_REQUEST, status);
		count(&stats.refused);
		return;
	}
	/* -ENODEV: not present for us already (it never came online): no
	 * work of ours can be there, so it can go as well. */
	control_slot(slot, CTL_EJECT);
	pr_info("cpu%d offline and ejected (%lu us)\n", cpu,
		(unsigned long)((ktime_get_ns() - t0) / 1000));
	count(&stats.removed);
}

/* W: every pending event, one slot at a time, until none is left. */
static void scan_events(void)
{
	unsigned int slot, n = 0;
	u64 arch_id;
	u8 flags;

	might_sleep();
	while (next_event(&slot, &arch_id, &flags)) {
		if (++n > MAX_EVENTS_PER_PASS) {
			pr_err("slot %u reports events again and again (flags %#x); looking again "
			       "later\n",
			       slot, flags);
			return;
		}
		if (flags & FLAG_INSERT)
			handle_insert(slot, arch_id);
		else
			handle_remove(slot, arch_id);
	}
}

static void event_fn(struct work_struct *w)
{
	scan_events();
}

static void poll_fn(struct work_struct *w)
{
	scan_events();
	queue_delayed_work(cpuhp_wq, &poll_work, POLL_INTERVAL_NS);
}

/* The SCI (level-triggered, cpu0): quieten GPE0 bit 2 and queue the scan.
 * Other GPEs are never enabled, so they cannot raise it. */
static void sci_interrupt(struct pt_regs *regs)
{
	u8 sts = inb(gpe0_sts);

	if (!(sts & GPE_CPU_HOTPLUG))
		return;
	outb(gpe0_sts, GPE_CPU_HOTPLUG); /* write 1 to clear: the line drops */
	spin_lock(&stats_lock);
	stats.sci_interrupts++;
	spin_unlock(&stats_lock);
	queue_work(cpuhp_wq, &event_work);
}

/* Take the SCI for GPE0 bit 2; 0, or why not (reported). */
static int sci_setup(void)
{
	struct acpi_fadt_info fadt;

	if (acpi_parse_fadt(acpi_get_table("FACP", 0), &fadt)) {
		pr_warn("no usable FADT: no SCI\n");
		return -ENODEV;
	}
	if (!fadt.gpe0_port || fadt.sci_irq >= NR_ISA_IRQS) {
		pr_warn("FADT: %s: no SCI\n",
			fadt.gpe0_port ? "SCI is not an ISA interrupt" : "no GPE0 block");
		return -ENODEV;
	}
	if (!acpi_enable())
		pr_warn("the chipset did not enter ACPI mode (SCI_EN clear); trying the SCI "
			"anyway\n");
	sci_irq = fadt.sci_irq;
	u16 en = fadt.gpe0_port + fadt.gpe0_len / 2;
	int err = irq_register_level_vector(ISA_IRQ_VECTOR(sci_irq), sci_interrupt);

	if (err) {
		pr_warn("vector %#x for the SCI is taken (%d)\n", ISA_IRQ_VECTOR(sci_irq), err);
		return err;
	}
	gpe0_sts = fadt.gpe0_port;
	outb(gpe0_sts, GPE_CPU_HOTPLUG); /* an old event: the first scan sees it */
	outb(en, inb(en) | GPE_CPU_HOTPLUG);
	err = ioapic_route_isa_irq(sci_irq, boot_percpu.apic_id);
	if (err) {
		outb(en, inb(en) & ~GPE_CPU_HOTPLUG);
		gpe0_sts = 0;
		pr_warn("cannot route the SCI, IRQ %u (%d)\n", sci_irq, err);
		return err;
	}
	return 0;
}

/* The modern interface answers: command data 2 reads 0 after command 0
 * (the legacy bitmap there would have the boot CPU's bit), and slot 0
 * holds a vCPU (a port with nothing behind it reads all ones). */
static bool modern_answers(void)
{
	unsigned long irqf = spin_lock_irqsave(&regs_lock);

	select_slot(0);
	outb(base + REG_COMMAND, CMD_NEXT_EVENT);
	select_slot(0);
	bool ok = inl(base + REG_DATA2) == 0 && (inb(base + REG_FLAGS) & FLAG_ENABLED);

	spin_unlock_irqrestore(&regs_lock, irqf);
	return ok;
}

/* List the slots and compare them with the MADT's CPUs. */
static void enumerate(void)
{
	unsigned int present = 0, disagree = 0, cpu;
	u64 id;
	u8 flags;

	for (nr_slots = 0; nr_slots < ACPI_MAX_CPUS; nr_slots++) {
		read_slot(nr_slots, &id, &flags);
		/* Past the last slot every register reads 0. QEMU keeps its
		 * slots sorted by APIC id, so only slot 0 can hold id 0. */
		if (nr_slots > 0 && id == 0)
			break;
		slot_apic[nr_slots] = id;
		present += flags & FLAG_ENABLED ? 1 : 0;
		int c = cpu_of_apic(id);

		if (c < 0) {
			pr_warn("slot %u: APIC id %lu is not in the MADT: a CPU plugged there "
				"cannot be used\n",
				nr_slots, (unsigned long)id);
			disagree++;
		} else if (!!(flags & FLAG_ENABLED) !=
			   cpumask_test_cpu((unsigned int)c, &cpu_present_mask)) {
			pr_warn("cpu%d (APIC id %lu): the MADT says %s, the hotplug block %s\n", c,
				(unsigned long)id,
				cpumask_test_cpu((unsigned int)c, &cpu_present_mask) ? "present" :
										       "absent",
				flags & FLAG_ENABLED ? "present" : "absent");
			disagree++;
		}
	}
	for_each_possible_cpu(cpu) {
		bool found = false;

		for (unsigned int s = 0; s < nr_slots && !found; s++)
			found = slot_apic[s] == cpu_apic_ids[cpu];
		if (!found) {
			pr_warn("cpu%u (APIC id %u) is in the MADT but has no hotplug slot\n", cpu,
				cpu_apic_ids[cpu]);
			disagree++;
		}
	}
	pr_info("modern CPU hotplug interface at port %#x: %u slots, %u with a vCPU%s\n", base,
		nr_slots, present, disagree ? "; the MADT disagrees (above)" : ", as in the MADT");
}

void acpi_cpuhp_init(void)
{
	u32 bridge = pci_host_bridge_id();

	if (mode == MODE_OFF) {
		pr_info("off (acpi_cpuhp=off): the host's CPU hot-plug is ignored\n");
		return;
	}
	if (bridge == HOST_BRIDGE_Q35) {
		base = BASE_ICH9;
	} else if (bridge == HOST_BRIDGE_I440FX) {
		base = BASE_PIIX4;
	} else {
		pr_info("no QEMU CPU hotplug block on this machine (host bridge %04x:%04x): "
			"CPUs the host adds or removes are not seen\n",
			bridge & 0xFFFF, bridge >> 16);
		return;
	}
	outl(base, 0); /* legacy -> modern (in modern mode: selector 0) */
	if (!modern_answers()) {
		pr_warn("the CPU hotplug block at port %#x does not answer as QEMU's modern "
			"interface: CPUs the host adds or removes are not seen\n",
			base);
		base = 0;
		return;
	}
	enumerate();
	cpuhp_wq = alloc_ordered_workqueue("acpi_cpuhp", 0);
	if (!cpuhp_wq) {
		pr_err("no memory for its workqueue: CPUs the host adds or removes are not "
		       "seen\n");
		base = 0;
		return;
	}
	INIT_WORK(&event_work, event_fn);
	INIT_DELAYED_WORK(&poll_work, poll_fn);
	if (mode == MODE_SCI && sci_setup() == 0) {
		pr_info("events by SCI (IRQ %u, GSI %u), GPE0 bit 2\n", sci_irq,
			ioapic_isa_irq_gsi(sci_irq));
		queue_work(cpuhp_wq, &event_work); /* events from before */
	} else {
		pr_info("events by polling every %u ms\n",
			(unsigned int)(POLL_INTERVAL_NS / NSEC_PER_MSEC));
		queue_delayed_work(cpuhp_wq, &poll_work, 0);
	}
	unsigned long irqf = spin_lock_irqsave(&stats_lock);

	stats.active = true;
	stats.sci = gpe0_sts != 0;
	stats.base = base;
	stats.sci_irq = sci_irq;
	stats.nr_slots = nr_slots;
	spin_unlock_irqrestore(&stats_lock, irqf);
}

void acpi_cpuhp_get_stats(struct acpi_cpuhp_stats *st)
{
	unsigned long irqf = spin_lock_irqsave(&stats_lock);

	*st = stats;
	spin_unlock_irqrestore(&stats_lock, irqf);
	st->nr_present = 0;
	for (unsigned int s = 0; st->active && s < nr_slots; s++) {
		u64 id;
		u8 flags;

		read_slot(s, &id, &flags);
		st->nr_present += flags & FLAG_ENABLED ? 1 : 0;
	}
}
