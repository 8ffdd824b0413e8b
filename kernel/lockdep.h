/* kernel/lockdep.h - the hooks of the lock-dependency validator ("lockdep"):
 * what the locks, the waits and interrupt entry call. The validator is
 * kernel/debug/lockdep.c (what it prints: kernel/debug/lockdep_report.c);
 * what its tests and tools read of it (reports, table use),
 * kernel/debug/lockdep.h.
 *
 * Every lock belongs to a class (its init site, or the lock itself if it is
 * declared statically; docs/lockdep.md). As the kernel runs, the validator
 * keeps each context's held locks and a global graph of "class B was taken
 * while class A was held", and reports, on the first run that makes one
 * possible, each way those can deadlock: a cycle in the graph (AB-BA on two
 * paths that never overlapped), one class taken twice, a class taken both
 * in hard-interrupt context and elsewhere with interrupts enabled, or an
 * interrupt-safe class taken before an interrupt-unsafe one. Workqueues,
 * work items and timers are pseudo-locks: running an item holds it and its
 * workqueue, and flushing acquires them; a timer's callback holds the
 * timer, and del_timer_sync() acquires it. So waits join the same graph.
 *
 * A report is one "BUG: lockdep: ..." line (the harness and the tests count
 * it like any report_bug()), followed by lines of detail: the dependency
 * chain with where each link was first made, where each class was first
 * taken, the held locks and the stack.
 * After a report, validation stops (locks are still tracked) and the kernel
 * carries on. `lockdep=0` turns the validator off for the boot.
 *
 * The primitives call the hooks; other code uses only the annotations:
 *   spin_lock_nested(l, subclass)   two locks of one class, in a fixed order
 *   lock_wait_for(m, instance, ip)  waiting for a pseudo-lock (the workqueue's
 *                                   flushes, del_timer_sync()): taken and
 *                                   let go at once
 *
 * Hooks (any context; they never sleep; the only struct spinlock they take
 * is printk's console_lock, when a report prints, and that lock is never
 * validated: DEFINE_SPINLOCK_NOVALIDATE):
 *   lock_acquire(map, subclass, flags, instance, ip)   before taking (a
 *                                 trylock: once it got the lock); true if
 *                                 it reported (the caller may then skip its
 *                                 own check of the same misuse)
 *   lock_release(instance, ip)    as the lock is let go (unknown
 *                                 instances: ignored)
 *   lockdep_hardirq_enter/exit()  around an interrupt handler (the arch
 *                                 calls irq_enter()/irq_exit(), kernel/hardirq.h)
 *   lockdep_nmi_enter/exit()      around an NMI: nothing is tracked inside
 *                                 (the arch calls nmi_enter()/nmi_exit())
 *   lockdep_thread_exit(t)        a thread must exit holding nothing
 *   lockdep_held_depth()          locks the current context holds
 *   lockdep_check_depth(depth, what, fn)  report (once) if more are held
 *                                 than depth after fn returned
 */
#ifndef KERNEL_LOCKDEP_H
#define KERNEL_LOCKDEP_H

#include "kernel/lockdep_types.h"
#include "lib/compiler.h"
#include "lib/types.h"

struct thread;

#define LD_TRY	   0x1 /* a trylock: no dependency on what is held, no recursion check */
#define LD_NOCHECK 0x2 /* bookkeeping only (the scheduler's run-queue lock hand-off) */

#define SINGLE_DEPTH_NESTING 1
#define LOCKDEP_SUBCLASSES   4

/* Nonzero unless lockdep=0: with it off, each hook is a load and a branch. */
extern int lockdep_active;

bool __lock_acquire_hook(const struct lockdep_map *m, unsigned int subclass, unsigned int flags,
			 const void *instance, const void *ip);
void __lock_release_hook(const void *instance, const void *ip);

static inline bool lock_acquire(const struct lockdep_map *m, unsigned int subclass,
				unsigned int flags, const void *instance, const void *ip)
{
#ifndef CONFIG_LEAN /* LEAN=1 (Makefile): the validator is never called */
	if (likely(!READ_ONCE(lockdep_active)))
		return false;
	return __lock_acquire_hook(m, subclass, flags, instance, ip);
#else
	return false;
#endif
}

static inline void lock_release(const void *instance, const void *ip)
{
#ifndef CONFIG_LEAN
	if (unlikely(READ_ONCE(lockdep_active)))
		__lock_release_hook(instance, ip);
#endif
}

/* True if it reported. */
static inline bool lock_wait_for(const struct lockdep_map *m, const void *instance, const void *ip)
{
	bool reported = lock_acquire(m, 0, 0, instance, ip);

	lock_release(instance, ip);
	return reported;
}

void lockdep_init_map(struct lockdep_map *m, const char *name, const struct lock_class_key *key,
		      enum lockdep_kind kind);
/* A key in allocated memory (a workqueue's) makes its classes at first
 * use, like any other; before the memory is freed, and once no lock of
 * theirs is held or will be taken again, this gives them back: at once no
 * lookup finds them (a new key at that address gets new classes), and
 * their dependencies, stack traces and slots are reused (kernel/debug/lockdep.c,
 * "Giving classes back"). Any context; it does not sleep. */
void lockdep_unregister_key(struct lock_class_key *key);

void lockdep_hardirq_enter(void);
void lockdep_hardirq_exit(const void *handler);
void lockdep_nmi_enter(void);
void lockdep_nmi_exit(void);
void lockdep_thread_exit(struct thread *t);
void lockdep_reset_cpu(struct thread *idle); /* a CPU (re)starting: it holds nothing */
/* What a new thread's allocation adds after its struct for its held locks
 * (0 with lockdep=0, so the struct stays small); kthread.c points
 * t->lockdep there. */
size_t lockdep_thread_ctx_size(void);
unsigned int lockdep_held_depth(void);
void lockdep_check_depth(unsigned int depth, const char *what, const void *fn);

/* A report of a misuse found outside the graph (the workqueue's flush fast
 * paths and the WQ_MEM_RECLAIM rule), in the validator's form. */
void lockdep_report_misuse(const char *fmt, ...) __printf(1, 2);
/* Validation was on, and the caller now owns the report it is about to
 * make (lockdep_report_misuse()); validation is off after it. */
bool lockdep_claim_report(void);

void lockdep_init(void); /* kmain, once the boot CPU's idle thread exists */

#endif
