/* kernel/spinlock.c - ticket spinlocks; see spinlock.h. */
#include "kernel/spinlock.h"
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
	WRITE_ONCE(l->holder_cpu, (int)smp_processor_id());
	WRITE_ONCE(l->holder_ip, ip);
}

static __noinline void spin_report_recursion(struct spinlock *l, const void *ip)
{
	/* Spinning here would hang this CPU for good: say who and where. */
	panic("spinlock recursion: cpu%u takes lock '%s' at %pS, already holding it since %pS",
	      smp_processor_id(), l->dep_map.name, ip, l->holder_ip);
}

unsigned int spin_stuck_ms = 2000;
PARAM_UINT(spin_stuck_ms, spin_stuck_ms, 1, 3600000,
	   "report a CPU that waits longer than this for a spinlock (ms)");
unsigned long spin_stuck_reports;

#define SPINS_PER_CLOCK_READ 1024

static __noinline void spin_report_stuck(struct spinlock *l, u32 ticket, const void *ip,
					 u64 waited_ns)
{
	int holder = READ_ONCE(l->holder_cpu);

	__atomic_add_fetch(&spin_stuck_reports, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&l->stuck_reports, 1, __ATOMIC_RELAXED);
	if (holder >= 0)
		printk(KERN_ERR
		       "spinlock '%s': cpu%u has waited %lu ms at %pS; held by cpu%d since %pS\n",
		       l->dep_map.name, smp_processor_id(), (unsigned long)(waited_ns / 1000000),
		       ip, holder, READ_ONCE(l->holder_ip));
	else /* between holders: the next ticket's CPU has not taken it yet */
		printk(KERN_ERR
		       "spinlock '%s': cpu%u has waited %lu ms at %pS; ticket %u, serving %u\n",
		       l->dep_map.name, smp_processor_id(), (unsigned long)(waited_ns / 1000000),
		       ip, ticket, READ_ONCE(l->serving));
}

/* The contended path: spin, and report once if the wait gets too long. */
static __noinline void spin_wait(struct spinlock *l, u32 ticket, const void *ip)
{
	u64 start = 0;
	bool reported = l->dep_map.kind == LD_NOVALIDATE; /* the console's */

	for (unsigned int spins = 1; __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket;
	     spins++) {
		cpu_relax();
		if (reported || spins % SPINS_PER_CLOCK_READ)
			continue;
		u64 now = ktime_get_ns();

		if (!start) {
			start = now;
		} else if (now - start > (u64)READ_ONCE(spin_stuck_ms) * 1000000) {
			reported = true;
			spin_report_stuck(l, ticket, ip, now - start);
		}
	}
}

/* The validator checks before the wait, so that a deadlock it can see is
 * reported instead of spun into. */
static void __spin_acquire(struct spinlock *l, unsigned int subclass, const void *ip)
{
	if (unlikely(READ_ONCE(l->holder_cpu) == (int)smp_processor_id()))
		spin_report_recursion(l, ip);
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
	if (unlikely(READ_ONCE(l->holder_cpu) != (int)smp_processor_id())) {
		WARN(1, "spinlock '%s' released by cpu%u, but held by cpu%d (taken at %pS)",
		     l->dep_map.name, smp_processor_id(), l->holder_cpu, l->holder_ip);
		return false;
	}
	lock_release(l, ip);
	WRITE_ONCE(l->holder_cpu, -1);
	WRITE_ONCE(l->holder_ip, NULL);
	/* Release: x86 stores are not reordered with earlier loads/stores. */
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
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
