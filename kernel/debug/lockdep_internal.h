/* kernel/debug/lockdep_internal.h - what the lock validator's two files
 * share: lockdep.c (classes, the graph, the chain cache, the held-lock
 * stacks: everything on the acquire and release paths) and
 * lockdep_report.c (what is printed when it finds something). Only those
 * two include it; tests and tools read kernel/debug/lockdep.h.
 *
 * The tables are written by lockdep.c under graph_lock (lockdep.c's
 * opening comment says what is read without it); lockdep_report.c reads
 * them while it prints the report it owns, with the validator off, when
 * nothing changes the graph.
 *
 * Field legend: G = graph_lock; A = atomic (READ_ONCE/WRITE_ONCE or the
 * atomics); I = set before others see it (a class's: under G, before its
 * key is published with release; class_find() reads the key with acquire);
 * C = this CPU only, interrupts off.
 */
#ifndef KERNEL_DEBUG_LOCKDEP_INTERNAL_H
#define KERNEL_DEBUG_LOCKDEP_INTERNAL_H

#include "kernel/cpu_local.h"
#include "kernel/debug/lockdep.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"

#define MAX_CLASSES   2048
#define MAX_DEPS      8192
#define MAX_TRACES    (MAX_DEPS + 2 * MAX_CLASSES)
#define MAX_TRACE_IPS 65536
#define TRACE_DEPTH   10
#define NAME_LEN      40

/* Usage bits, in pairs: one per context that can come in on top of a
 * lock's holder on its CPU (an interrupt handler, a BH run at its exit).
 * A class with both bits of a pair can deadlock against itself; one
 * ordered (held) before a class with the other, against the other. */
#define USED_IN_HARDIRQ 0x1 /* taken in hard-interrupt context: "hardirq-safe" */
#define ENABLED_HARDIRQ 0x2 /* taken with interrupts enabled: "hardirq-unsafe" */
#define USED_IN_BH	0x4 /* taken in a BH run: "BH-safe" */
#define ENABLED_BH	0x8 /* taken in a thread with BHs and interrupts on: "BH-unsafe" */
#define NR_USAGE_BITS	4

static inline bool usage_is_used(u8 bit)
{
	return bit & (USED_IN_HARDIRQ | USED_IN_BH);
}

/* The other bit of bit's pair. */
static inline u8 usage_partner(u8 bit)
{
	return usage_is_used(bit) ? (u8)(bit << 1) : (u8)(bit >> 1);
}

/* Its slot in usage_trace[]. */
static inline unsigned int usage_index(u8 bit)
{
	return (unsigned int)__builtin_ctz(bit);
}

struct lock_class {
	const void *key; /* A, set under G: the key, or the static lock's map;
			  * NULL from its unregistering until its reuse */
	u16 hash_next;	 /* A, set under G: the next class in its hash bucket */
	u16 free_next;	 /* G: while dead, the next on its list (pending,
			  * zombie or free: "Giving classes back") */
	u8 subclass;	 /* A */
	u8 kind;	 /* I: enum lockdep_kind */
	u8 usage;	 /* A, set under G: the usage bits above */
	bool dead;	 /* A, set under G: its key was unregistered */
	u32 after;	 /* G: first dependency out of it (index in deps; 0: none) */
	u32 before;	 /* G: first dependency into it */
	u32 first_trace; /* I: where it was first taken (zapping frees it, under G) */
	u32 usage_trace[NR_USAGE_BITS]; /* G: where each usage bit was first seen */
	u32 bfs_gen[2];			/* G: last search (forward, backward) that reached it */
	u32 bfs_dep[2];			/* G: the dependency that search reached it by */
	char name[NAME_LEN];
};

struct lock_dep { /* "to was taken while from was held" */
	u16 from, to;
	u32 next_after;	 /* G: the next dependency out of from; while free, the next free */
	u32 next_before; /* G: the next dependency into to */
	u32 trace;	 /* where it was first made */
};

struct ld_trace {		    /* all G */
	u32 start;		    /* in trace_ips */
	u32 next_free;		    /* while free: the next free one of its cap */
	u8 len;			    /* return addresses used */
	u8 cap;			    /* return addresses it owns from start */
	char comm[THREAD_NAME_LEN]; /* the thread (or "irq") */
};

/* lockdep.c's tables; index 0 of each means "none". */
extern struct lock_class classes[MAX_CLASSES]; /* A/G */
extern struct lock_dep deps[MAX_DEPS];	       /* G */
extern struct ld_trace traces[MAX_TRACES];     /* G */
extern u64 trace_ips[MAX_TRACE_IPS];	       /* G */

/* The report under way (lockdep.c's section of that name says how a CPU
 * takes the right to print it). */
enum report_kind {
	REP_NONE,
	REP_CIRCULAR,	  /* the new dependency closes a cycle */
	REP_RECURSIVE,	  /* a class taken while held */
	REP_INCONSISTENT, /* a class both hardirq-safe and hardirq-unsafe */
	REP_IRQ_ORDER,	  /* a hardirq-safe class before a hardirq-unsafe one */
	REP_FULL,	  /* a table ran out */
};

/* Written by its owner only: the CPU whose report_begin() succeeded, until
 * lockdep_print_report() clears kind (no other CPU can succeed meanwhile). */
struct ld_report {
	unsigned int owner; /* the CPU that took the right to report */
	enum report_kind kind;
	u16 prev, next;		      /* the held class and the one being taken */
	const struct held_lock *held; /* REP_RECURSIVE: the entry already held */
	u8 new_bit;		      /* REP_INCONSISTENT: the usage just seen */
	u16 safe, unsafe;	      /* REP_IRQ_ORDER */
	u8 used_bit;		      /* REP_IRQ_ORDER: the pair's "used in" bit */
	bool via_new_dep;	      /* REP_IRQ_ORDER: the new prev -> next closes it */
	bool safe_is_new;	      /* REP_IRQ_ORDER, not via_new_dep: next just became safe */
	const char *table;	      /* REP_FULL */
};
extern struct ld_report rep;

/* The current context's held-lock stack, or NULL where nothing is tracked:
 * in an NMI, once the machine panics, and before this CPU has a thread. */
static inline struct lockdep_ctx *ctx_get(struct percpu *pc)
{
	if (pc->lockdep.in_nmi || READ_ONCE(panic_cpu) >= 0 || !sched_ready)
		return NULL;
	if (pc->lockdep.hardirq_depth)
		return &pc->lockdep.irq_ctx;
	if (pc->sched.preempt_count & BH_OFFSET)
		return &pc->lockdep.bh_ctx;
	struct thread *t = pc->sched.curr_thread;

	return t ? t->lockdep : NULL;
}

/* Who is running: the thread's name, "irq" or "boot" (traces keep it). */
static inline const char *ctx_name(void)
{
	if (this_cpu_read(lockdep.hardirq_depth))
		return "irq";
	if (this_cpu_read(sched.preempt_count) & BH_OFFSET)
		return "bh";
	struct thread *t = this_cpu_read(sched.curr_thread);

	return t ? t->name : "boot";
}

/* lockdep_report.c: "'name'" or "'name/1'", then "(kind)": the form every
 * report line uses. */
const char *lockdep_class_str(u16 idx, char *buf, size_t size);
/* lockdep_report.c: what ctx holds, one line per lock. */
void lockdep_report_held(const struct lockdep_ctx *ctx);
/* lockdep_report.c: the report this CPU owns (rep), for the acquisition
 * of instance at ip by ctx; with interrupts off and lockdep.recursion set.
 * Clears rep.kind. */
void lockdep_print_report(const struct lockdep_ctx *ctx, const void *ip, const void *instance);

/* The end of every report: what the context holds, the stack, and that
 * validation is now off. Inline, so that the stack dumped starts at the
 * function that reports. */
static __always_inline void print_report_end(const struct lockdep_ctx *ctx)
{
	lockdep_report_held(ctx);
	dump_stack();
	printk(KERN_ERR "validator off after this report (locks are still tracked)\n");
}

#endif
