/* kernel/spinlock.c - ticket spinlocks; see spinlock.h. */
#include "kernel/spinlock.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/lockdep.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/time.h"

void __spin_lock_init(struct spinlock *l, const char *name, const struct lock_class_key *key)
{
	*l = (struct spinlock)SPINLOCK_INIT_KEY(name, key);
}

static void spin_debug_acquire(struct spinlock *l, const void *ip)
{
#ifndef CONFIG_LEAN /* LEAN=1 (Makefile): no holder recorded, nothing checked */
	WRITE_ONCE(l->holder_cpu, (int)smp_processor_id());
	WRITE_ONCE(l->holder_ip, ip);
#endif
}

#ifndef CONFIG_LEAN
static __noinline void spin_report_recursion(struct spinlock *l, const void *ip)
{
	/* Spinning here would hang this CPU for good: say who and where. */
	panic("spinlock recursion: cpu%u takes lock '%s' at %pS, already holding it since %pS",
	      smp_processor_id(), l->dep_map.name, ip, l->holder_ip);
}
#endif

unsigned int spin_stuck_ms = 2000;
PARAM_UINT(spin_stuck_ms, spin_stuck_ms, 1, 3600000,
	   "report a CPU that waits longer than this for a spinlock (ms)");
unsigned long spin_stuck_reports;

#define SPINS_PER_CLOCK_READ 64

/* holder, holder_ip: who held l when the wait was last looked at. */
static __noinline void spin_report_stuck(struct spinlock *l, u32 ticket, const void *ip,
					 u64 waited_ns, int holder, const void *holder_ip)
{
	__atomic_add_fetch(&spin_stuck_reports, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&l->stuck_reports, 1, __ATOMIC_RELAXED);
	if (holder >= 0)
		printk(KERN_ERR
		       "spinlock '%s': cpu%u has waited %lu ms at %pS; held by cpu%d since %pS\n",
		       l->dep_map.name, smp_processor_id(), (unsigned long)(waited_ns / 1000000),
		       ip, holder, holder_ip);
	else /* between holders: the next ticket's CPU has not taken it yet */
		printk(KERN_ERR
		       "spinlock '%s': cpu%u has waited %lu ms at %pS; ticket %u, serving %u\n",
		       l->dep_map.name, smp_processor_id(), (unsigned long)(waited_ns / 1000000),
		       ip, ticket, READ_ONCE(l->serving));
}

/* 100 us: a holder that runs releases well within it (the longest
 * critical sections are tens of us under TCG), so a waiter halts only when
 * its holder's vCPU is off its host core; then the host core goes back to
 * the holder ten times sooner than with 1 ms (measured: `online 3` from the
 * shell, q35 -smp 4 on 2 host cores, median 1.5 -> 0.8 ms, p90 3.8 -> 1.0
 * ms; test=all at -smp 64 71-78 -> 48 s; 30 us was no better). */
unsigned int spin_halt_us = 100;
PARAM_UINT(spin_halt_us, spin_halt_us, 0, 3600000000u,
	   "a CPU that has waited this long for a spinlock halts until the unlock kicks it "
	   "(us; 0: never)");

bool cpu_wait_may_halt(void)
{
	return !this_cpu_read(lockdep.in_nmi) && READ_ONCE(panic_cpu) < 0;
}

void cpu_kick(unsigned int cpu)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	/* Counted first: the NMI handler must know it for a kick. */
	__atomic_add_fetch(&pc->spin.kicks_sent, 1, __ATOMIC_SEQ_CST);
	lapic_send_nmi(pc->apic_id);
}

/* Halt until l serves ticket (see spinlock.h). Returns false, without
 * halting, if every slot of this CPU is taken (waits nested that deep
 * spin). */
static __noinline bool spin_halt(struct spinlock *l, u32 ticket)
{
	unsigned long flags = local_irq_save();
	struct spin_cpu *sc = &this_cpu_ptr()->spin;
	unsigned int d = sc->depth;

	if (d == SPIN_WAIT_LEVELS) {
		local_irq_restore(flags);
		return false;
	}
	struct spin_wait_slot *w = &sc->wait[d];

	sc->depth = d + 1;
	WRITE_ONCE(w->want, ticket);
	WRITE_ONCE(w->lock, l);
	/* Locked, so a full barrier: the unlock that serves us sees the count
	 * (and the slot, written before it), or our look at serving below
	 * sees that unlock's store. */
	__atomic_add_fetch(&l->halted, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket) {
		sc->halts++;
		halt_unless(&l->serving, ticket, flags & X86_RFLAGS_IF);
		local_irq_disable(); /* on for the halt if they were on */
	}
	__atomic_sub_fetch(&l->halted, 1, __ATOMIC_RELAXED);
	WRITE_ONCE(w->lock, NULL);
	sc->depth = d;
	local_irq_restore(flags);
	return true;
}

/* An unlock found waiters halted: wake the one whose turn it is, if it is
 * among them (the others wait for their own). If serving has moved on
 * since that unlock, the waiter it served is not halted any more: it took
 * the lock and let it go. */
static __noinline void spin_kick(struct spinlock *l)
{
	u32 ticket = __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);

	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct percpu *pc = per_cpu_ptr(cpu);

		if (!pc)
			continue;
		for (unsigned int d = 0; d < SPIN_WAIT_LEVELS; d++) {
			struct spin_wait_slot *w = &pc->spin.wait[d];

			if (READ_ONCE(w->lock) != l || READ_ONCE(w->want) != ticket)
				continue;
			cpu_kick(cpu);
			return;
		}
	}
}

bool spin_nmi_was_kick(void)
{
	struct spin_cpu *sc = &this_cpu_ptr()->spin;

	/* One kick per NMI taken. Two kicks whose NMIs merged into one leave
	 * a count behind that a later NMI from elsewhere takes for a kick: it
	 * then prints nothing, which is the lesser harm (a kick taken for a
	 * request would print a backtrace nobody asked for). */
	if (sc->kicks_taken == __atomic_load_n(&sc->kicks_sent, __ATOMIC_ACQUIRE))
		return false;
	sc->kicks_taken++;
	return true;
}

void spin_show_halted_wait(void)
{
	struct spin_cpu *sc = &this_cpu_ptr()->spin;

	for (unsigned int d = 0; d < sc->depth; d++) {
		struct spinlock *l = READ_ONCE(sc->wait[d].lock);

		if (l)
			printk(KERN_ERR
			       "cpu%u halted waiting for spinlock '%s' (ticket %u, serving "
			       "%u, held by cpu%d since %pS)\n",
			       smp_processor_id(), l->dep_map.name, sc->wait[d].want,
			       READ_ONCE(l->serving), READ_ONCE(l->holder_cpu),
			       READ_ONCE(l->holder_ip));
	}
}

/* The contended path: spin, halt after spin_halt_us, and report once if the
 * wait gets too long (when it ends, if it halted). The clock is read every
 * SPINS_PER_CLOCK_READ spins; a test sets spin_halt_us to 1 to halt at the
 * first look. */
static __noinline void spin_wait(struct spinlock *l, u32 ticket, const void *ip)
{
	u64 start = 0;
	bool reported = l->dep_map.kind == LD_NOVALIDATE; /* the console's */
	u64 halt_after = (u64)READ_ONCE(spin_halt_us) * 1000;
	bool halt = halt_after && cpu_wait_may_halt();

	for (unsigned int spins = 1; __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket;
	     spins++) {
		cpu_relax();
		if ((reported && !halt) || spins % SPINS_PER_CLOCK_READ)
			continue; /* nothing to time, or not yet */
		u64 now = ktime_get_ns();

		if (!start) {
			start = now;
			continue;
		}
		if (halt && now - start >= halt_after) {
			int holder = READ_ONCE(l->holder_cpu);
			const void *holder_ip = READ_ONCE(l->holder_ip);

			if (spin_halt(l, ticket)) {
				u64 waited = ktime_get_ns() - start;

				if (!reported && waited > (u64)READ_ONCE(spin_stuck_ms) * 1000000)
					spin_report_stuck(l, ticket, ip, waited, holder, holder_ip);
				return;
			}
			halt = false; /* nested too deep: spin */
		}
		if (!reported && now - start > (u64)READ_ONCE(spin_stuck_ms) * 1000000) {
			reported = true;
			spin_report_stuck(l, ticket, ip, now - start, READ_ONCE(l->holder_cpu),
					  READ_ONCE(l->holder_ip));
		}
	}
}

/* The validator checks before the wait, so that a deadlock it can see is
 * reported instead of spun into. */
static void __spin_acquire(struct spinlock *l, unsigned int subclass, const void *ip)
{
#ifndef CONFIG_LEAN
	if (unlikely(READ_ONCE(l->holder_cpu) == (int)smp_processor_id()))
		spin_report_recursion(l, ip);
#endif
	lock_acquire(&l->dep_map, subclass, 0, l, ip);
	u32 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);

	if (unlikely(__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket))
		spin_wait(l, ticket, ip);
	spin_debug_acquire(l, ip);
}

void spin_lock(struct spinlock *l)
{
	preempt_disable();
	__spin_acquire(l, 0, __builtin_return_address(0));
}

void spin_lock_nested(struct spinlock *l, unsigned int subclass)
{
	preempt_disable();
	__spin_acquire(l, subclass, __builtin_return_address(0));
}

bool spin_trylock(struct spinlock *l)
{
	u32 serving = READ_ONCE(l->serving);
	u32 expected = serving;

	preempt_disable();
	if (!__atomic_compare_exchange_n(&l->next, &expected, serving + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		preempt_enable_no_resched();
		return false;
	}
	spin_debug_acquire(l, __builtin_return_address(0));
	lock_acquire(&l->dep_map, 0, LD_TRY, l, __builtin_return_address(0));
	return true;
}

/* Returns false (and changes nothing) if this CPU does not hold l. */
static bool __spin_release(struct spinlock *l, const void *ip)
{
#ifndef CONFIG_LEAN
	if (unlikely(READ_ONCE(l->holder_cpu) != (int)smp_processor_id())) {
		WARN(1, "spinlock '%s' released by cpu%u, but held by cpu%d (taken at %pS)",
		     l->dep_map.name, smp_processor_id(), l->holder_cpu, l->holder_ip);
		return false;
	}
	lock_release(l, ip);
	WRITE_ONCE(l->holder_cpu, -1);
	WRITE_ONCE(l->holder_ip, NULL);
#endif
	/* Locked, so a full barrier before the load of 'halted' (a plain store
	 * could pass it and lose a halted waiter's wake-up: spin_halt()). */
	__atomic_fetch_add(&l->serving, 1, __ATOMIC_SEQ_CST);
	if (unlikely(READ_ONCE(l->halted)))
		spin_kick(l);
	return true;
}

void spin_unlock(struct spinlock *l)
{
	if (__spin_release(l, __builtin_return_address(0)))
		preempt_enable();
}

void spin_unlock_no_resched(struct spinlock *l)
{
	if (__spin_release(l, __builtin_return_address(0)))
		preempt_enable_no_resched();
}

void spin_lock_irq(struct spinlock *l)
{
	local_irq_disable();
	preempt_disable();
	__spin_acquire(l, 0, __builtin_return_address(0));
}

void spin_unlock_irq(struct spinlock *l)
{
	if (!__spin_release(l, __builtin_return_address(0)))
		return;
	local_irq_enable();
	preempt_enable();
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = local_irq_save();

	preempt_disable();
	__spin_acquire(l, 0, __builtin_return_address(0));
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	if (!__spin_release(l, __builtin_return_address(0)))
		return;
	local_irq_restore(flags);
	preempt_enable();
}
