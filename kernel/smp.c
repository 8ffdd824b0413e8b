/* kernel/smp.c - CPU masks, CPU discovery and cross-CPU calls; see smp.h. */
#define pr_fmt(fmt) "smp: " fmt
#include "kernel/smp.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/traps.h"
#include "drivers/acpi.h"
#include "kernel/deterministic.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "lib/errno.h"

#define DEFAULT_LAPIC_PHYS 0xFEE00000ULL

struct cpumask cpu_possible_mask;
struct cpumask cpu_present_mask;
struct cpumask cpu_online_mask;
struct cpumask cpu_active_mask;
struct cpumask cpu_live_mask;
u32 cpu_apic_ids[NR_CPUS];
unsigned int nr_cpu_ids = 1;
bool smp_booted; /* smp_init() is done */

void smp_cpu_init(struct smp_cpu *s)
{
	spin_lock_init(&s->call_lock, "call_lock");
	INIT_LIST_HEAD(&s->call_queue);
}

/*
 * A request to run fn(info) on one CPU. With a waiter, the request belongs
 * to the waiter (on its stack, or in one array for a many-CPU call) and the
 * target's last touch is decrementing *pending; without one, it was
 * kmalloc'ed by the sender and the target frees it.
 */
struct call_request {
	struct list_head link; /* target's call_lock */
	smp_call_func_t fn;
	void *info;
	atomic_t *pending; /* the waiter's counter, or NULL: free after */
};

/* Run (and free) every request queued to this CPU. Interrupts off. */
static void call_queue_run(void)
{
	struct percpu *pc = this_cpu_ptr();
	LIST_HEAD(work);

	spin_lock(&pc->smp.call_lock);
	list_splice_tail_init(&pc->smp.call_queue, &work);
	spin_unlock(&pc->smp.call_lock);
	while (!list_empty(&work)) {
		struct call_request *r = list_first_entry(&work, struct call_request, link);
		atomic_t *pending = r->pending;

		list_del(&r->link);
		r->fn(r->info);
		/* The waiter's counter is the last thing we touch. */
		if (pending)
			atomic_dec(pending);
		else
			kfree(r);
	}
}

static void call_function_interrupt(struct pt_regs *regs)
{
	this_cpu_ptr()->smp.ipis_call++;
	call_queue_run();
}

static void reschedule_interrupt(struct pt_regs *regs)
{
	/* The scheduler will act on need_resched on the way out. */
	this_cpu_ptr()->smp.ipis_resched++;
}

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

/* Queue fn on cpu and send the IPI. r is the waiter's request, or NULL to
 * allocate one the target frees. 0, or -errno. */
static int queue_call(unsigned int cpu, smp_call_func_t fn, void *info, struct call_request *r,
		      atomic_t *pending)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	if (!cpu_online(cpu) || !pc)
		return -ENODEV;
	if (!r && !(r = kmalloc(sizeof(*r))))
		return -ENOMEM;
	*r = (struct call_request){ .fn = fn, .info = info, .pending = pending };
	unsigned long flags = spin_lock_irqsave(&pc->smp.call_lock);

	/* Checked again under the lock smp_cpu_dying() takes to go offline. */
	if (!cpu_online(cpu)) {
		spin_unlock_irqrestore(&pc->smp.call_lock, flags);
		if (!pending)
			kfree(r);
		return -ENODEV;
	}
	if (pending)
		atomic_inc(pending);
	list_add_tail(&r->link, &pc->smp.call_queue);
	spin_unlock_irqrestore(&pc->smp.call_lock, flags);
	lapic_send_ipi(pc->apic_id, CALL_FUNCTION_VECTOR);
	return 0;
}

/* Spin until *pending is 0, running calls queued to us meanwhile. */
static void wait_for_calls(atomic_t *pending)
{
	while (atomic_read(pending)) {
		unsigned long flags = local_irq_save();

		call_queue_run();
		local_irq_restore(flags);
		cpu_relax();
	}
}

int smp_call_function_single(unsigned int cpu, smp_call_func_t fn, void *info, bool wait)
{
	atomic_t pending = ATOMIC_INIT(0);
	struct call_request req;
	unsigned long flags;
	int err = 0;

	if (cpu >= NR_CPUS)
		return -EINVAL;
	preempt_disable(); /* "this CPU" must stay this CPU throughout */
	if (cpu == smp_processor_id()) {
		flags = local_irq_save();
		fn(info);
		local_irq_restore(flags);
	} else {
		err = queue_call(cpu, fn, info, wait ? &req : NULL, wait ? &pending : NULL);
		if (!err && wait)
			wait_for_calls(&pending);
	}
	preempt_enable();
	return err;
}

static int __smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info,
				    bool wait);

int smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info, bool wait)
{
	preempt_disable(); /* self stays self: the caller's CPU is skipped */
	int err = __smp_call_function_many(mask, fn, info, wait);

	preempt_enable();
	return err;
}

/* Preemption disabled. */
static int __smp_call_function_many(const struct cpumask *mask, smp_call_func_t fn, void *info,
				    bool wait)
{
	atomic_t pending = ATOMIC_INIT(0);
	unsigned int self = smp_processor_id(), cpu, n = 0;
	struct call_request *reqs = NULL;
	int err = 0;

	WARN_ON_ONCE(!preempt_count() && !irqs_disabled());

	/* One allocation for all the waited-for requests; without memory,
	 * one CPU at a time with a request on our stack (callers such as the
	 * TLB shootdown in kstack_free() must not fail for want of memory). */
	if (wait && !(reqs = kcalloc(nr_cpu_ids, sizeof(*reqs)))) {
		for_each_cpu_and(cpu, mask, &cpu_online_mask) {
			int e = cpu == self ? 0 : smp_call_function_single(cpu, fn, info, true);

			if (e && !err)
				err = e;
		}
		return err;
	}
	for_each_cpu_and(cpu, mask, &cpu_online_mask) {
		if (cpu == self)
			continue;
		int e = queue_call(cpu, fn, info, wait ? &reqs[n++] : NULL, wait ? &pending : NULL);

		if (e && !err)
			err = e;
	}
	if (wait) {
		wait_for_calls(&pending);
		kfree(reqs);
	}
	return err;
}

int on_each_cpu(smp_call_func_t fn, void *info, bool wait)
{
	preempt_disable(); /* "the others" and "here" must not overlap */
	int err = __smp_call_function_many(&cpu_online_mask, fn, info, wait);
	unsigned long flags = local_irq_save();

	fn(info);
	local_irq_restore(flags);
	preempt_enable();
	return err;
}

static void nothing(void *info)
{
}

void smp_wait_irqs_off_sections(void)
{
	/* A CPU runs the call in its IPI handler, so only once interrupts
	 * are on again there; waiting for all of them is the barrier. */
	on_each_cpu(nothing, NULL, true);
}

void smp_send_reschedule(unsigned int cpu)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	if (pc && cpu_online(cpu))
		lapic_send_ipi(pc->apic_id, RESCHEDULE_VECTOR);
}

void smp_show_backtraces(void)
{
	/* traps.c's NMI handler prints what the CPU was running, and where. */
	if (num_online_cpus() > 1)
		lapic_send_nmi_allbutself();
}

void smp_send_stop(void)
{
	/* NMIs get through even to CPUs spinning with interrupts off. */
	if (num_online_cpus() > 1)
		lapic_send_nmi_allbutself();
}

void smp_cpu_starting(void)
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

void smp_cpu_dying(void)
{
	unsigned int cpu = smp_processor_id();
	struct percpu *pc = this_cpu_ptr();

	spin_lock(&pc->smp.call_lock);
	clear_bit(cpu, cpumask_bits(&cpu_online_mask));
	spin_unlock_no_resched(&pc->smp.call_lock);
	/* Requests queued before the bit went: run them, no waiter hangs. */
	call_queue_run();
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

/* Number the CPUs: the boot CPU is 0, the rest follow in MADT order. */
static void discover_cpus(u32 boot_apic)
{
	cpu_apic_ids[0] = boot_apic;
	cpumask_set_cpu(0, &cpu_possible_mask);
	cpumask_set_cpu(0, &cpu_present_mask);
	for (unsigned int i = 0; i < madt.nr_cpus; i++) {
		const struct acpi_madt_cpu *c = &madt.cpus[i];

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
	discover_cpus(boot_percpu.apic_id);

	irq_register_vector(LOCAL_TIMER_VECTOR, timer_interrupt);
	irq_register_vector(CALL_FUNCTION_VECTOR, call_function_interrupt);
	irq_register_vector(RESCHEDULE_VECTOR, reschedule_interrupt);
	irq_register_vector(CLOCK_KICK_VECTOR, clock_kick_interrupt);
	irq_register_vector(SPURIOUS_APIC_VECTOR, spurious_interrupt);
	irq_register_vector(ERROR_APIC_VECTOR, apic_error_interrupt);
	for (unsigned int v = PIC_SPURIOUS_BASE; v < PIC_SPURIOUS_BASE + 16; v++)
		irq_register_vector(v, spurious_interrupt);
	pic_disable();
	ioapic_init(&madt);

	lapic_timer_calibrate();
	smp_cpu_starting();
	clockevent_start_cpu();

	det_boot_quiesce(); /* deterministic mode: QEMU's round-robin from guest time */

	unsigned int cpu;

	for_each_present_cpu(cpu) {
		if (cpu == 0)
			continue;
		int err = smp_bringup_cpu(cpu);

		if (err)
			pr_err("cpu%u (APIC id %u) did not come up (error %d); continuing without "
			       "it\n",
			       cpu, cpu_apic_ids[cpu], err);
	}
	kstack_reclaim(); /* stacks freed while a CPU was starting */
	pr_info("%u CPUs possible, %u present, %u online\n", cpumask_weight(&cpu_possible_mask),
		cpumask_weight(&cpu_present_mask), num_online_cpus());
	smp_booted = true;
}
