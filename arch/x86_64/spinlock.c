/* arch/x86_64/spinlock.c - ticket spinlocks; see spinlock.h. */
#include "arch/x86_64/spinlock.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "kernel/printk.h"
#include "kernel/panic.h"

void spin_lock_init(struct spinlock *l, const char *name)
{
	*l = (struct spinlock)SPINLOCK_INIT(name);
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
	      smp_processor_id(), l->name, ip, l->holder_ip);
}

void spin_lock(struct spinlock *l)
{
	const void *ip = __builtin_return_address(0);

	if (unlikely(READ_ONCE(l->holder_cpu) == (int)smp_processor_id()))
		spin_report_recursion(l, ip);
	u32 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	spin_debug_acquire(l, ip);
}

bool spin_trylock(struct spinlock *l)
{
	u32 serving = READ_ONCE(l->serving);
	u32 expected = serving;

	if (!__atomic_compare_exchange_n(&l->next, &expected, serving + 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	spin_debug_acquire(l, __builtin_return_address(0));
	return true;
}

void spin_unlock(struct spinlock *l)
{
	if (unlikely(READ_ONCE(l->holder_cpu) != (int)smp_processor_id())) {
		WARN(1, "spinlock '%s' released by cpu%u, but held by cpu%d (taken at %pS)",
		     l->name, smp_processor_id(), l->holder_cpu, l->holder_ip);
		return;
	}
	WRITE_ONCE(l->holder_cpu, -1);
	WRITE_ONCE(l->holder_ip, NULL);
	/* Release: x86 stores are not reordered with earlier loads/stores. */
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = local_irq_save();

	spin_lock(l);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	local_irq_restore(flags);
}

bool spin_lock_held(const struct spinlock *l)
{
	return spin_is_locked(l) && READ_ONCE(l->holder_cpu) == (int)smp_processor_id();
}
