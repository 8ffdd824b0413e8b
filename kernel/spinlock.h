/* kernel/spinlock.h - fair (ticket) spinlocks.
 *
 * A CPU takes a ticket with one locked xadd and spins until the lock serves
 * it, so CPUs get the lock in arrival order. On x86-64 a locked instruction
 * is a full barrier, and a plain store is a release: unlocking is a compiler
 * barrier followed by an ordinary increment of the serving counter.
 *
 * Debug checks (always on): taking a lock this CPU already holds (a panic:
 * it would never be granted), releasing a lock this CPU does not hold (a
 * WARN; the unlock is refused), and waiting longer than spin_stuck_ms for a
 * lock (reported once per wait with the holder's CPU and where it took the
 * lock; the console's own lock is exempt, since the report needs it).
 *
 * Waiting that gives the host its core back. baton runs in QEMU, often with
 * more vCPUs than the host has cores: a vCPU holding a lock can be
 * descheduled on the host, and then every waiter spinning on it burns a host
 * core its holder needs. So a waiter spins for spin_halt_us and then
 * halts (the pv-ticketlock design of Linux 3.12, with an NMI for the
 * hypervisor's kick): it names the lock and its ticket in a per-CPU slot
 * and counts itself in the lock's 'halted', and an unlock that finds
 * 'halted' non-zero looks through the slots for the CPU whose ticket it
 * has just served and sends it an NMI. No wake-up is lost: the waiter's
 * count and the unlock's new 'serving' are both locked instructions, each
 * followed by a load of the other, so at least one side sees the other
 * (the waiter does not halt, or the unlock kicks it); a kick that lands
 * between the waiter's last look and its hlt makes the hlt return at once
 * (arch/x86_64/halt_unless.S). A waiter that had interrupts on halts with
 * them on. The uncontended path pays one load of 'halted' per unlock.
 * A wait that halted is reported as too long when it ends (it cannot
 * watch the clock while halted); an NMI (the harness's on a hang,
 * smp_show_backtraces()) prints what a halted waiter waits for.
 *
 * Holding a spinlock disables preemption (kernel/preempt.h).
 *
 * The lock validator (kernel/lockdep.h) checks the order in which they are
 * taken: a lock declared with DEFINE_SPINLOCK is its own class; those set
 * up by spin_lock_init() share one class per call site. spin_lock_nested()
 * takes a second lock of a class already held, as subclass n (a fixed
 * order, such as by CPU number, that the code keeps).
 *
 * Interface:
 *   DEFINE_SPINLOCK(name) / spin_lock_init(lock, name)
 *   spin_lock / spin_unlock                  interrupts untouched
 *   spin_lock_nested(lock, subclass)
 *   spin_lock_irqsave / spin_unlock_irqrestore
 *   spin_trylock, spin_is_locked, spin_lock_held (by this CPU)
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "arch/x86_64/cpu_id.h"
#include "kernel/lockdep_types.h"
#include "lib/compiler.h"
#include "lib/types.h"

struct spinlock {
	u32 next;		    /* next ticket to hand out */
	u32 serving;		    /* ticket now holding the lock */
	int holder_cpu;		    /* debug: CPU holding it, or -1 */
	u16 halted;		    /* waiters halted (or about to halt) until kicked */
	u16 stuck_reports;	    /* debug: waits on it reported as too long */
	const void *holder_ip;	    /* debug: where it was taken */
	struct lockdep_map dep_map; /* its name, and its class for the validator */
};

/* key: the class (NULL: a static lock, its own class) */
#define SPINLOCK_INIT_KEY(n, k)                                                                    \
	{                                                                                          \
		.next = 0, .serving = 0, .holder_cpu = -1, .holder_ip = NULL,                      \
		.dep_map = LOCKDEP_MAP_INIT(n, k, LD_SPIN)                                         \
	}
#define SPINLOCK_INIT(n)   SPINLOCK_INIT_KEY(n, NULL)
#define DEFINE_SPINLOCK(x) struct spinlock x = SPINLOCK_INIT(#x)
/* The console's: never validated and never reported as stuck (reports
 * print through it). */
#define DEFINE_SPINLOCK_NOVALIDATE(x)                                                              \
	struct spinlock x = { .holder_cpu = -1,                                                    \
			      .dep_map = LOCKDEP_MAP_INIT(#x, NULL, LD_NOVALIDATE) }

extern unsigned int spin_stuck_ms;	 /* report waits longer than this */
extern unsigned long spin_stuck_reports; /* how many so far */
extern unsigned int spin_halt_us;	 /* wait before a waiter halts (0: never) */

/* The NMI handler's questions (arch/x86_64/traps.c): was this NMI a kick
 * (then it has done its work), and, for an NMI that asks what the CPU
 * does, print the spinlock it is halted waiting for, if any. */
bool spin_nmi_was_kick(void);
void spin_show_halted_wait(void);

/* The same halting for other waits (kernel/smp.c's wait for cross-CPU
 * calls): may this CPU halt waiting (not in the NMI handler, whose NMIs,
 * the kick's included, are held back until it returns; not after a
 * panic), and wake cpu from a halt_unless() on a word this CPU has just
 * changed (an NMI, counted as a kick). */
bool cpu_wait_may_halt(void);
void cpu_kick(unsigned int cpu);

void __spin_lock_init(struct spinlock *l, const char *name, const struct lock_class_key *key);
/* One class per call site. */
#define spin_lock_init(l, n)                                                                       \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__spin_lock_init((l), (n), &__key);                                                \
	} while (0)
void spin_lock(struct spinlock *l);
void spin_lock_nested(struct spinlock *l, unsigned int subclass);
void spin_unlock(struct spinlock *l);
/* Release without acting on a pending reschedule (the scheduler's own use). */
void spin_unlock_no_resched(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
/* With interrupts known to be on: turn them off, and back on at unlock. */
void spin_lock_irq(struct spinlock *l);
void spin_unlock_irq(struct spinlock *l);
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

static inline bool spin_is_locked(const struct spinlock *l)
{
	return READ_ONCE(l->next) != READ_ONCE(l->serving);
}

/* Does this CPU hold l? Inline: every assert_spin_locked() asks, on the
 * scheduler's hot paths too. The holder is set right after the lock is
 * granted and cleared before it is let go, so only its holder can read
 * its own number there. */
static inline bool spin_lock_held(const struct spinlock *l)
{
#ifndef CONFIG_LEAN
	return READ_ONCE(l->holder_cpu) == (int)arch_cpu_id();
#else /* LEAN=1 (Makefile): no holder is recorded */
	return spin_is_locked(l);
#endif
}

#endif
