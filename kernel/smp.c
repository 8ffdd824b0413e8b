/* kernel/smp.c - cross-CPU calls: running a function on other CPUs, by IPI;
 * see smp.h. The CPU masks are kernel/cpu_masks.c's, bringing CPUs up
 * kernel/smpboot.c's. */
#include "kernel/smp.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/traps.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "lib/errno.h"

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
	atomic_t *pending;   /* the waiter's counter, or NULL: free after */
	unsigned int waiter; /* the waiter's CPU, kicked if it halted */
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
		unsigned int waiter = r->waiter;

		list_del(&r->link);
		r->fn(r->info);
		/* The waiter's counter is the last thing of its we touch (it may
		 * return the moment it reads 0). The last call done kicks it if
		 * it halted: our locked decrement, then its flag; it sets the
		 * flag (locked), then looks at the counter (wait_for_calls()). */
		if (!pending)
			kfree(r);
		else if (atomic_dec_and_test(pending) &&
			 READ_ONCE(per_cpu_ptr(waiter)->smp.call_halted)) {
			__atomic_add_fetch(&per_cpu_ptr(waiter)->smp.call_kicks, 1,
					   __ATOMIC_RELAXED);
			cpu_kick(waiter);
		}
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

/* A BH pool of this CPU has work: the BH run is irq_exit()'s, on the way
 * out (kernel/hardirq.h). */
static void bh_kick_interrupt(struct pt_regs *regs)
{
	this_cpu_ptr()->smp.ipis_bh++;
}

void smp_calls_init(void)
{
	irq_register_vector(CALL_FUNCTION_VECTOR, call_function_interrupt);
	irq_register_vector(RESCHEDULE_VECTOR, reschedule_interrupt);
	irq_register_vector(BH_KICK_VECTOR, bh_kick_interrupt);
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
	*r = (struct call_request){
		.fn = fn, .info = info, .pending = pending, .waiter = smp_processor_id()
	};
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

#define CALL_SPINS_PER_CLOCK_READ 64

/* Halt until the last of the calls counted in *pending kicks us, or any
 * interrupt comes (a call queued to us runs in its handler). Interrupts
 * off; on for the halt. */
static void call_halt(atomic_t *pending)
{
	struct smp_cpu *s = &this_cpu_ptr()->smp;

	assert(irqs_disabled());
	/* Locked, so a full barrier before halt_unless() looks at *pending:
	 * the last call's decrement is seen there, or that call sees the flag
	 * and kicks us. */
	__atomic_store_n(&s->call_halted, true, __ATOMIC_SEQ_CST);
	s->call_halts++;
	halt_unless((const volatile u32 *)&pending->counter, 0, true);
	local_irq_disable();
	WRITE_ONCE(s->call_halted, false);
}

/* Wait until *pending is 0, running calls queued to us meanwhile. After
 * spin_halt_us, a waiter whose interrupts were on halts until the last of
 * its calls kicks it, as a spinlock's waiter does and for the same reason:
 * with more vCPUs than host cores, the CPUs it waits for may need the host
 * core it would spin on. One with interrupts off spins on: a call queued
 * to it could not wake it. Preemption disabled (the callers'). */
static void wait_for_calls(atomic_t *pending)
{
	u64 start = 0, halt_after = (u64)READ_ONCE(spin_halt_us) * 1000;

	for (unsigned int spins = 1; atomic_read(pending); spins++) {
		unsigned long flags = local_irq_save();

		call_queue_run();
		if (halt_after && (flags & X86_RFLAGS_IF) && !(spins % CALL_SPINS_PER_CLOCK_READ) &&
		    cpu_wait_may_halt()) {
			u64 now = ktime_get_ns();

			if (!start)
				start = now;
			else if (now - start >= halt_after)
				call_halt(pending);
		}
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
	struct cpumask busy;
	unsigned int cpu;

	/* A CPU runs the call in its IPI handler, so only once interrupts
	 * are on again there; waiting for all of them is the barrier. A CPU
	 * halted in its idle loop is in no such section, and reads what the
	 * caller changed when it wakes (sched_cpu_idle_halted()): it is left
	 * to sleep. Waking an idle vCPU is a host thread wake-up, which took
	 * up to milliseconds of a CPU offline here. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cpumask_clear(&busy);
	preempt_disable();
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id() && !sched_cpu_idle_halted(cpu))
			cpumask_set_cpu(cpu, &busy);
	if (!cpumask_empty(&busy))
		__smp_call_function_many(&busy, nothing, NULL, true);
	preempt_enable();
}

void smp_send_reschedule(unsigned int cpu)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	if (pc && cpu_online(cpu))
		lapic_send_ipi(pc->apic_id, RESCHEDULE_VECTOR);
}

void smp_send_bh_kick(unsigned int cpu)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	if (pc)
		lapic_send_ipi(pc->apic_id, BH_KICK_VECTOR);
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
