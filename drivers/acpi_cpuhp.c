/* drivers/acpi_cpuhp.c - QEMU's CPU-hotplug register block; see acpi_cpuhp.h.
 * Register layout and protocol: QEMU docs/specs/acpi_cpu_hotplug.rst (the
 * modern interface). _OST codes: ACPI 6.5, 6.3.5.
 *
 * Field legend: I = set once when the block is made (acpi_cpuhp_init() for
 * the real one), SC = only its scans (one ordered workqueue: one at a time).
 */
#define pr_fmt(fmt) "acpi-cpuhp: " fmt
#include "drivers/acpi_cpuhp.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/traps.h"
#include "drivers/acpi.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
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
 * was told to clear. Stop, say so, and go on RESUME_DELAY_NS later. */
#define MAX_EVENTS_PER_PASS (4 * ACPI_MAX_CPUS)
#define RESUME_DELAY_NS	    (100 * NSEC_PER_MSEC)
/* SCIs in a row (each within SCI_ROW_NS of the last) without an event of
 * ours: a storm; the SCI is masked and events are polled. */
#define SCI_STORM  100
#define SCI_ROW_NS NSEC_PER_SEC

/* PM1 enable bits that can raise the SCI (ACPI 6.5, 4.8.3.1): timer,
 * global lock, power button, sleep button, RTC alarm. */
#define PM1_SCI_SOURCES 0x0721u

enum { MODE_SCI, MODE_POLL, MODE_OFF };
static unsigned int mode = MODE_SCI;
static const char *const mode_names[] = { "sci", "poll", "off", NULL };
PARAM_ENUM(acpi_cpuhp, mode, mode_names,
	   "the hypervisor's CPU hotplug: sci (events by interrupt), poll (every 100 ms), off "
	   "(ignored: QEMU refuses device_del)");

/* The kinds of hostility, each reported once per slot. */
enum hostile { H_BAD_SELECTOR, H_MISMATCH, H_UNKNOWN_ID, H_FLOOD, NR_HOSTILE };

struct acpi_cpuhp_block {
	const struct acpi_cpuhp_ops *ops; /* I */
	void *ctx;			  /* I */
	struct acpi_cpuhp_ports ports;	  /* I */
	struct spinlock regs_lock;	  /* the selector-command-data sequences */
	unsigned int nr_slots;		  /* I */
	u64 slot_apic[ACPI_MAX_CPUS];	  /* I: each slot's APIC id at boot */
	u8 warned[ACPI_MAX_CPUS + 1];	  /* SC: 1 << enum hostile; [nr]: past the last slot */
	struct work_struct event_work;	  /* a scan, as the SCI asks */
	struct delayed_work resume_work;  /* a scan later: a pass cut short, or polling */
	bool polling;			  /* SC, and the SCI handler sets it once */
	bool sci_warned;		  /* SCI handler only (one CPU, interrupts off) */
	unsigned int sci_in_a_row;	  /* SCI handler only */
	u64 last_sci_ns;		  /* SCI handler only */
	struct spinlock stats_lock;
	struct acpi_cpuhp_stats stats; /* stats_lock */
};

static struct acpi_cpuhp_block *real;	  /* I: QEMU's block, or NULL */
static unsigned int sci_irq;		  /* I */
static struct workqueue_struct *cpuhp_wq; /* I: ordered: one scan at a time, any block */

static u32 pci_host_bridge_id(void)
{
	outl(PCI_CONFIG_ADDRESS, 0x80000000u); /* bus 0, device 0, function 0, offset 0 */
	return inl(PCI_CONFIG_DATA);
}

/* The real ports. */
static u8 port_in8(void *ctx, u16 port)
{
	return inb(port);
}

static u16 port_in16(void *ctx, u16 port)
{
	return inw(port);
}

static u32 port_in32(void *ctx, u16 port)
{
	return inl(port);
}

static void port_out8(void *ctx, u16 port, u8 v)
{
	outb(port, v);
}

static void port_out16(void *ctx, u16 port, u16 v)
{
	outw(port, v);
}

static void port_out32(void *ctx, u16 port, u32 v)
{
	outl(port, v);
}

static void port_mask_sci(void *ctx)
{
	ioapic_mask_isa_irq(sci_irq);
}

static const struct acpi_cpuhp_ops port_ops = {
	.in8 = port_in8,
	.in16 = port_in16,
	.in32 = port_in32,
	.out8 = port_out8,
	.out16 = port_out16,
	.out32 = port_out32,
	.mask_sci = port_mask_sci,
};

static u8 rd8(struct acpi_cpuhp_block *b, u16 off)
{
	return b->ops->in8(b->ctx, b->ports.base + off);
}

static u32 rd32(struct acpi_cpuhp_block *b, u16 off)
{
	return b->ops->in32(b->ctx, b->ports.base + off);
}

static void wr8(struct acpi_cpuhp_block *b, u16 off, u8 v)
{
	b->ops->out8(b->ctx, b->ports.base + off, v);
}

static void wr32(struct acpi_cpuhp_block *b, u16 off, u32 v)
{
	b->ops->out32(b->ctx, b->ports.base + off, v);
}

/* regs_lock held: select slot (its registers from now on). */
static void select_slot(struct acpi_cpuhp_block *b, unsigned int slot)
{
	assert_spin_locked(&b->regs_lock);
	wr32(b, REG_SELECTOR, slot);
}

/* regs_lock held: the selected slot's APIC id (command 3). */
static u64 selected_arch_id(struct acpi_cpuhp_block *b)
{
	assert_spin_locked(&b->regs_lock);
	wr8(b, REG_COMMAND, CMD_ARCH_ID);
	return rd32(b, REG_DATA) | (u64)rd32(b, REG_DATA2) << 32;
}

/* Slot's APIC id and status flags. */
static void read_slot(struct acpi_cpuhp_block *b, unsigned int slot, u64 *arch_id, u8 *flags)
{
	unsigned long irqf = spin_lock_irqsave(&b->regs_lock);

	select_slot(b, slot);
	*arch_id = selected_arch_id(b);
	*flags = rd8(b, REG_FLAGS);
	spin_unlock_irqrestore(&b->regs_lock, irqf);
}

/* Write control bits for slot (clear an event, eject). */
static void control_slot(struct acpi_cpuhp_block *b, unsigned int slot, u8 bits)
{
	unsigned long irqf = spin_lock_irqsave(&b->regs_lock);

	select_slot(b, slot);
	wr8(b, REG_CONTROL, bits);
	spin_unlock_irqrestore(&b->regs_lock, irqf);
}

/* _OST(event, status) for slot: QEMU sends ACPI_DEVICE_OST to QMP clients. */
static void report_ost(struct acpi_cpuhp_block *b, unsigned int slot, u32 event, u32 status)
{
	unsigned long irqf = spin_lock_irqsave(&b->regs_lock);

	select_slot(b, slot);
	wr8(b, REG_COMMAND, CMD_OST_EVENT);
	wr32(b, REG_DATA, event);
	wr8(b, REG_COMMAND, CMD_OST_STATUS);
	wr32(b, REG_DATA, status);
	spin_unlock_irqrestore(&b->regs_lock, irqf);
}

/* The next slot with an event: true and its slot, APIC id and flags. The
 * slot is the host's word: it may be past the last one. */
static bool next_event(struct acpi_cpuhp_block *b, unsigned int *slot, u64 *arch_id, u8 *flags)
{
	unsigned long irqf = spin_lock_irqsave(&b->regs_lock);

	select_slot(b, 0);
	wr8(b, REG_COMMAND, CMD_NEXT_EVENT); /* selects one with an event, if any */
	*flags = rd8(b, REG_FLAGS);
	bool found = *flags & (FLAG_INSERT | FLAG_REMOVE);

	if (found) {
		*slot = rd32(b, REG_DATA);
		*arch_id = selected_arch_id(b);
	}
	spin_unlock_irqrestore(&b->regs_lock, irqf);
	return found;
}

/* The kernel's number for the CPU with this APIC id: from the MADT's slots
 * (drivers/acpi_cpus.c numbers every possible CPU at boot). -1 if none. */
static int cpu_of_apic(u64 arch_id)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (cpu_apic_ids[cpu] == arch_id)
			return (int)cpu;
	return -1;
}

static void stats_inc(struct acpi_cpuhp_block *b, u64 *field)
{
	unsigned long irqf = spin_lock_irqsave(&b->stats_lock);

	(*field)++;
	spin_unlock_irqrestore(&b->stats_lock, irqf);
}

/* SC: true the first time slot shows this kind of hostility (say it then). */
static bool first_time(struct acpi_cpuhp_block *b, unsigned int slot, enum hostile kind)
{
	u8 *w = &b->warned[min(slot, (unsigned int)ACPI_MAX_CPUS)];
	bool first = !(*w & (1u << kind));

	*w |= (u8)(1u << kind);
	return first;
}

/* SC: device_add. The insert event is cleared first: one raised again while
 * this runs is a new event, seen by the next pass. */
static void handle_insert(struct acpi_cpuhp_block *b, unsigned int slot, u64 arch_id)
{
	int cpu = cpu_of_apic(arch_id);
	u64 t0 = ktime_get_ns();

	control_slot(b, slot, CTL_CLEAR_INSERT);
	if (cpu < 0) {
		if (first_time(b, slot, H_UNKNOWN_ID))
			pr_err("slot %u: the host added a CPU with APIC id %lu, which the MADT "
			       "does "
			       "not list: it cannot be used (reported once)\n",
			       slot, (unsigned long)arch_id);
		report_ost(b, slot, OST_DEVICE_CHECK, OST_FAILURE);
		stats_inc(b, &b->stats.failed);
		return;
	}
	pr_info("cpu%d (APIC id %lu) inserted by the host\n", cpu, (unsigned long)arch_id);
	int err = cpu_hot_add((unsigned int)cpu);

	if (err) {
		pr_err("cpu%d is present but did not come online: %s (%s)\n", cpu,
		       cpuhp_error_words(err, true), errno_name(err));
		report_ost(b, slot, OST_DEVICE_CHECK, OST_FAILURE);
		stats_inc(b, &b->stats.failed);
		return;
	}
	pr_info("cpu%d online (%lu us)\n", cpu, (unsigned long)((ktime_get_ns() - t0) / 1000));
	report_ost(b, slot, OST_DEVICE_CHECK, OST_SUCCESS);
	stats_inc(b, &b->stats.inserted);
}

/* SC: device_del. Offline (the trustee takes its work), not present, then
 * ejected; or refused with _OST, and it keeps running. */
static void handle_remove(struct acpi_cpuhp_block *b, unsigned int slot, u64 arch_id)
{
	int cpu = cpu_of_apic(arch_id);
	u64 t0 = ktime_get_ns();

	control_slot(b, slot, CTL_CLEAR_REMOVE);
	if (cpu < 0) {
		/* Never used by this kernel (its own APIC id, checked): nothing
		 * runs there. */
		pr_info("slot %u (APIC id %lu, not in the MADT): ejected\n", slot,
			(unsigned long)arch_id);
		control_slot(b, slot, CTL_EJECT);
		return;
	}
	pr_info("cpu%d (APIC id %lu): the host asks for its removal\n", cpu,
		(unsigned long)arch_id);
	int err = cpu_hot_remove((unsigned int)cpu);

	if (err && err != -ENODEV) {
		u32 status = err == -EPERM ? OST_EJECT_NOT_SUPP :
			     err == -EBUSY ? OST_EJECT_IN_USE :
					     OST_FAILURE;

		pr_warn("cpu%d: removal refused: %s (%s); _OST status %#x\n", cpu,
			cpuhp_error_words(err, false), errno_name(err), status);
		report_ost(b, slot, OST_EJECT_REQUEST, status);
		stats_inc(b, &b->stats.refused);
		return;
	}
	/* -ENODEV: not present for us already (it never came online): no
	 * work of ours can be there, so it can go as well. */
	control_slot(b, slot, CTL_EJECT);
	pr_info("cpu%d offline and ejected (%lu us)\n", cpu,
		(unsigned long)((ktime_get_ns() - t0) / 1000));
	stats_inc(b, &b->stats.removed);
}

/* SC: an event the host should not send: past the last slot (it cannot even
 * be cleared: the pass's cap ends it), or for a slot whose APIC id is not
 * the one it had at boot (the host's tables changed under us, or it lies:
 * acting on either id could take down a CPU nobody asked for). Refused. */
static void refuse_event(struct acpi_cpuhp_block *b, unsigned int slot, u64 arch_id, u8 flags)
{
	stats_inc(b, &b->stats.hostile);
	if (slot >= b->nr_slots) {
		if (first_time(b, slot, H_BAD_SELECTOR))
			pr_err("the host reports an event (flags %#x) for slot %u, past the last "
			       "of "
			       "its %u slots: ignored (reported once)\n",
			       flags, slot, b->nr_slots);
		return;
	}
	if (first_time(b, slot, H_MISMATCH))
		pr_err("slot %u reports APIC id %lu, but it had %lu at boot: its %s event is "
		       "refused, no CPU touched (reported once)\n",
		       slot, (unsigned long)arch_id, (unsigned long)b->slot_apic[slot],
		       flags & FLAG_INSERT ? "insert" : "remove");
	control_slot(b, slot, flags & (CTL_CLEAR_INSERT | CTL_CLEAR_REMOVE));
	report_ost(b, slot, flags & FLAG_INSERT ? OST_DEVICE_CHECK : OST_EJECT_REQUEST,
		   OST_FAILURE);
}

/* SC: every pending event, one slot at a time, until none is left: 0, or
 * -EAGAIN if the pass was cut short by its cap (the caller goes on later). */
static int scan_events(struct acpi_cpuhp_block *b)
{
	unsigned int slot, n = 0;
	u64 arch_id;
	u8 flags;

	might_sleep();
	while (next_event(b, &slot, &arch_id, &flags)) {
		if (++n > MAX_EVENTS_PER_PASS) {
			if (first_time(b, slot, H_FLOOD))
				pr_err("slot %u reports events again and again (flags %#x); going "
				       "on "
				       "in %u ms (reported once)\n",
				       slot, flags,
				       (unsigned int)(RESUME_DELAY_NS / NSEC_PER_MSEC));
			stats_inc(b, &b->stats.resumed);
			return -EAGAIN;
		}
		if (slot >= b->nr_slots || arch_id != b->slot_apic[slot])
			refuse_event(b, slot, arch_id, flags);
		else if (flags & FLAG_INSERT)
			handle_insert(b, slot, arch_id);
		else
			handle_remove(b, slot, arch_id);
	}
	return 0;
}

static void event_fn(struct work_struct *w)
{
	struct acpi_cpuhp_block *b = container_of(w, struct acpi_cpuhp_block, event_work);

	if (scan_events(b) == -EAGAIN)
		mod_delayed_work(cpuhp_wq, &b->resume_work, RESUME_DELAY_NS);
}

/* A pass cut short goes on; while polling, every POLL_INTERVAL_NS. */
static void resume_fn(struct work_struct *w)
{
	struct acpi_cpuhp_block *b =
		container_of(to_delayed_work(w), struct acpi_cpuhp_block, resume_work);

	if (scan_events(b) == -EAGAIN)
		queue_delayed_work(cpuhp_wq, &b->resume_work, RESUME_DELAY_NS);
	else if (READ_ONCE(b->polling))
		queue_delayed_work(cpuhp_wq, &b->resume_work, POLL_INTERVAL_NS);
}

void acpi_cpuhp_block_kick(struct acpi_cpuhp_block *b)
{
	queue_work(cpuhp_wq, &b->event_work);
}

bool acpi_cpuhp_block_busy(struct acpi_cpuhp_block *b)
{
	return work_busy(&b->event_work) != 0;
}

/* Interrupts off: clear what raised the SCI. GPE0 bit 2 is ours (a scan
 * is queued); any other GPE0 or PM1 event is cleared and disabled (baton
 * handles none: no power button; `poweroff` in the shell). True if there
 * was anything to clear. */
bool acpi_cpuhp_block_sci(struct acpi_cpuhp_block *b)
{
	const struct acpi_cpuhp_ops *o = b->ops;
	const struct acpi_cpuhp_ports *p = &b->ports;
	bool ours = false;
	u32 foreign = 0;

	assert(irqs_disabled());
	for (unsigned int i = 0; p->gpe0 && i < p->gpe0_len / 2u; i++) {
		u16 sts = (u16)(p->gpe0 + i), en = (u16)(p->gpe0 + p->gpe0_len / 2u + i);
		u8 set = o->in8(b->ctx, sts);
		u8 mine = i == 0 ? set & GPE_CPU_HOTPLUG : 0;

		if (!set)
			continue;
		o->out8(b->ctx, sts, set); /* write 1 to clear: the line drops */
		ours |= mine != 0;
		if (set & ~mine) {
			o->out8(b->ctx, en, o->in8(b->ctx, en) & (u8) ~(set & ~mine));
			foreign |= (u32)(set & ~mine) << (8 * i);
		}
	}
	if (p->pm1a) {
		u16 en = o->in16(b->ctx, (u16)(p->pm1a + 2));
		u16 live = o->in16(b->ctx, p->pm1a) & en & PM1_SCI_SOURCES;

		if (live) {
			o->out16(b->ctx, p->pm1a, live);
			o->out16(b->ctx, (u16)(p->pm1a + 2), en & (u16)~live);
			foreign |= (u32)live << 16;
		}
	}
	spin_lock(&b->stats_lock);
	b->stats.sci_interrupts += ours;
	b->stats.foreign_events += foreign != 0;
	b->stats.spurious_sci += !ours && !foreign;
	spin_unlock(&b->stats_lock);
	if (foreign && !b->sci_warned) {
		b->sci_warned = true;
		pr_warn("the SCI came for events that are not baton's (GPE0 %#x, PM1 %#x: the host "
			"pressed a button, or set an alarm?): cleared and disabled (reported "
			"once)\n",
			foreign & 0xFFFF, foreign >> 16);
	}
	if (ours)
		queue_work(cpuhp_wq, &b->event_work);
	/* A storm: an SCI with no event of ours, again and again. */
	u64 now = ktime_get_ns();

	b->sci_in_a_row = ours || now - b->last_sci_ns > SCI_ROW_NS ? 0 : b->sci_in_a_row + 1;
	b->last_sci_ns = now;
	if (b->sci_in_a_row == SCI_STORM && !b->stats.sci_masked) {
		o->mask_sci(b->ctx);
		spin_lock(&b->stats_lock);
		b->stats.sci_masked = true;
		spin_unlock(&b->stats_lock);
		WRITE_ONCE(b->polling, true);
		queue_delayed_work(cpuhp_wq, &b->resume_work, 0);
		pr_err("the SCI came %u times in a row without an event of ours: masked; events "
		       "are polled every %u ms from now on\n",
		       SCI_STORM, (unsigned int)(POLL_INTERVAL_NS / NSEC_PER_MSEC));
	}
	return ours || foreign;
}

/* The real SCI (level-triggered, cpu0). Its bottom half is a thread item
 * (event_work on the ordered cpuhp_wq), not a BH item: the scan it starts
 * takes CPUs up and down, which sleeps (the hotplug lock, cpu_up()'s
 * waits), and must not run beside another scan. */
static void sci_interrupt(struct pt_regs *regs)
{
	acpi_cpuhp_block_sci(real);
}

/* Take the SCI for GPE0 bit 2; 0, or why not (reported). */
static int sci_setup(struct acpi_cpuhp_block *b)
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
	b->ports.gpe0 = fadt.gpe0_port;
	b->ports.gpe0_len = fadt.gpe0_len;
	b->ports.pm1a = fadt.pm1a_evt_port;
	b->ports.pm1_len = fadt.pm1_evt_len;
	outb(fadt.gpe0_port, GPE_CPU_HOTPLUG); /* an old event: the first scan sees it */
	outb(en, inb(en) | GPE_CPU_HOTPLUG);
	err = ioapic_route_isa_irq(sci_irq, boot_percpu.apic_id);
	if (err) {
		outb(en, inb(en) & ~GPE_CPU_HOTPLUG);
		b->ports.gpe0 = 0;
		pr_warn("cannot route the SCI, IRQ %u (%d)\n", sci_irq, err);
		return err;
	}
	return 0;
}

/* The modern interface answers: command data 2 reads 0 after command 0
 * (the legacy bitmap there would have the boot CPU's bit), and slot 0
 * holds a vCPU (a port with nothing behind it reads all ones). */
static bool modern_answers(struct acpi_cpuhp_block *b)
{
	unsigned long irqf = spin_lock_irqsave(&b->regs_lock);

	select_slot(b, 0);
	wr8(b, REG_COMMAND, CMD_NEXT_EVENT);
	select_slot(b, 0);
	bool ok = rd32(b, REG_DATA2) == 0 && (rd8(b, REG_FLAGS) & FLAG_ENABLED);

	spin_unlock_irqrestore(&b->regs_lock, irqf);
	return ok;
}

/* List the slots and compare them with the MADT's CPUs. */
static void enumerate(struct acpi_cpuhp_block *b)
{
	unsigned int present = 0, disagree = 0, cpu, n;
	u64 id;
	u8 flags;

	for (n = 0; n < ACPI_MAX_CPUS; n++) {
		read_slot(b, n, &id, &flags);
		/* Past the last slot every register reads 0. QEMU keeps its
		 * slots sorted by APIC id, so only slot 0 can hold id 0. */
		if (n > 0 && id == 0)
			break;
		b->slot_apic[n] = id;
		present += flags & FLAG_ENABLED ? 1 : 0;
		int c = cpu_of_apic(id);

		if (c < 0) {
			pr_warn("slot %u: APIC id %lu is not in the MADT: a CPU plugged there "
				"cannot be used\n",
				n, (unsigned long)id);
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
	b->nr_slots = n;
	for_each_possible_cpu(cpu) {
		bool found = false;

		for (unsigned int s = 0; s < n && !found; s++)
			found = b->slot_apic[s] == cpu_apic_ids[cpu];
		if (!found) {
			pr_warn("cpu%u (APIC id %u) is in the MADT but has no hotplug slot\n", cpu,
				cpu_apic_ids[cpu]);
			disagree++;
		}
	}
	pr_info("%s at port %#x: %u slots, %u with a vCPU%s\n",
		b->ops == &port_ops ? "modern CPU hotplug interface" : "a test's scripted block",
		b->ports.base, n, present,
		disagree ? "; the MADT disagrees (above)" : ", as in the MADT");
}

static struct acpi_cpuhp_block *block_new(const struct acpi_cpuhp_ops *ops, void *ctx,
					  const struct acpi_cpuhp_ports *ports)
{
	struct acpi_cpuhp_block *b = kzalloc(sizeof(*b));

	if (!b)
		return NULL;
	b->ops = ops;
	b->ctx = ctx;
	b->ports = *ports;
	spin_lock_init(&b->regs_lock, "acpi_cpuhp regs_lock");
	spin_lock_init(&b->stats_lock, "acpi_cpuhp stats_lock");
	INIT_WORK(&b->event_work, event_fn);
	INIT_DELAYED_WORK(&b->resume_work, resume_fn);
	return b;
}

/* The ordered workqueue every block's scans run on; false if none. */
static bool get_wq(void)
{
	static DEFINE_MUTEX(wq_mutex);

	mutex_lock(&wq_mutex);
	if (!cpuhp_wq)
		cpuhp_wq = alloc_ordered_workqueue("acpi_cpuhp", 0);
	mutex_unlock(&wq_mutex);
	return cpuhp_wq != NULL;
}

struct acpi_cpuhp_block *acpi_cpuhp_block_create(const struct acpi_cpuhp_ops *ops, void *ctx,
						 const struct acpi_cpuhp_ports *ports)
{
	struct acpi_cpuhp_block *b = get_wq() ? block_new(ops, ctx, ports) : NULL;

	if (b) {
		enumerate(b);
		b->stats.active = true;
		b->stats.base = ports->base;
		b->stats.nr_slots = b->nr_slots;
	}
	return b;
}

void acpi_cpuhp_block_destroy(struct acpi_cpuhp_block *b)
{
	WRITE_ONCE(b->polling, false);
	cancel_work_sync(&b->event_work);
	cancel_delayed_work_sync(&b->resume_work);
	kfree(b);
}

void acpi_cpuhp_init(void)
{
	u32 bridge = pci_host_bridge_id();
	struct acpi_cpuhp_ports ports = { 0 };

	if (mode == MODE_OFF) {
		pr_info("off (acpi_cpuhp=off): the host's CPU hot-plug is ignored\n");
		return;
	}
	if (bridge == HOST_BRIDGE_Q35) {
		ports.base = BASE_ICH9;
	} else if (bridge == HOST_BRIDGE_I440FX) {
		ports.base = BASE_PIIX4;
	} else {
		pr_info("no QEMU CPU hotplug block on this machine (host bridge %04x:%04x): "
			"CPUs the host adds or removes are not seen\n",
			bridge & 0xFFFF, bridge >> 16);
		return;
	}
	struct acpi_cpuhp_block *b = get_wq() ? block_new(&port_ops, NULL, &ports) : NULL;

	if (!b) {
		pr_err("no memory for its workqueue: CPUs the host adds or removes are not "
		       "seen\n");
		return;
	}
	outl(ports.base, 0); /* legacy -> modern (in modern mode: selector 0) */
	if (!modern_answers(b)) {
		pr_warn("the CPU hotplug block at port %#x does not answer as QEMU's modern "
			"interface: CPUs the host adds or removes are not seen\n",
			ports.base);
		kfree(b);
		return;
	}
	enumerate(b);
	real = b;
	if (mode == MODE_SCI && sci_setup(b) == 0) {
		pr_info("events by SCI (IRQ %u, GSI %u), GPE0 bit 2\n", sci_irq,
			ioapic_isa_irq_gsi(sci_irq));
		queue_work(cpuhp_wq, &b->event_work); /* events from before */
	} else {
		pr_info("events by polling every %u ms\n",
			(unsigned int)(POLL_INTERVAL_NS / NSEC_PER_MSEC));
		WRITE_ONCE(b->polling, true);
		queue_delayed_work(cpuhp_wq, &b->resume_work, 0);
	}
	unsigned long irqf = spin_lock_irqsave(&b->stats_lock);

	b->stats.active = true;
	b->stats.sci = b->ports.gpe0 != 0;
	b->stats.base = ports.base;
	b->stats.sci_irq = sci_irq;
	b->stats.nr_slots = b->nr_slots;
	spin_unlock_irqrestore(&b->stats_lock, irqf);
}

void acpi_cpuhp_block_stats(struct acpi_cpuhp_block *b, struct acpi_cpuhp_stats *st)
{
	unsigned long irqf = spin_lock_irqsave(&b->stats_lock);

	*st = b->stats;
	spin_unlock_irqrestore(&b->stats_lock, irqf);
	st->nr_present = 0;
	for (unsigned int s = 0; s < b->nr_slots; s++) {
		u64 id;
		u8 flags;

		read_slot(b, s, &id, &flags);
		st->nr_present += flags & FLAG_ENABLED ? 1 : 0;
	}
}

void acpi_cpuhp_get_stats(struct acpi_cpuhp_stats *st)
{
	if (real) {
		acpi_cpuhp_block_stats(real, st);
		return;
	}
	*st = (struct acpi_cpuhp_stats){ 0 };
}
