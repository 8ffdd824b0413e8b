/* kernel/cpu_local.h - a CPU's per-CPU area (struct percpu): the arch's
 * fields, then the kernel's, one struct per owner.
 *
 * The area is one struct, so that each field is one %gs-relative load
 * (this_cpu_read(sched.preempt_count); the accessors are the arch's,
 * arch/x86_64/percpu.h). The arch owns the GS base, the areas' allocation
 * and its own fields (struct percpu_arch: ids, descriptor tables, stacks,
 * the interrupt count), and knows nothing of the kernel's. Only the file
 * named above each struct writes its fields.
 *
 * Field legend (every struct here): C = this CPU only (no lock: only this
 * CPU touches it, with interrupts off where an interrupt handler also
 * does); Q = smp.call_lock.
 */
#ifndef KERNEL_CPU_LOCAL_H
#define KERNEL_CPU_LOCAL_H

#include "arch/x86_64/percpu.h"
#include "kernel/lockdep_types.h"
#include "kernel/spinlock.h"
#include "lib/list.h"
#include "lib/types.h"

/* The scheduler: kernel/sched.c, sched_attrs.c (and kernel/preempt.h's inline
 * counters). */
struct sched_cpu {
	void *curr_thread; /* C: the running struct thread */
	int preempt_count; /* C: preemption disabled while > 0 */
	bool need_resched; /* any CPU sets it (WRITE_ONCE, then an IPI), this one
			    * clears it (this_cpu_*(): one load or store each) */
	u32 idle_seq;	   /* C (locked increments), read by any CPU: even while the
			    * CPU is halted in its idle loop, odd otherwise
			    * (smp_wait_irqs_off_sections() skips it when even) */
	u32 flush_on_wake; /* any CPU sets it (locked), this CPU clears it when it
			    * leaves idle, flushing its TLB: a shootdown it slept through */
	u64 wake_flushes;  /* C: TLB flushes for shootdowns it slept through */
};

/* kernel/spinlock.c: a waiter that halts (spin_halt_spins) names the lock
 * and ticket it waits for, so that the unlock that serves the ticket can
 * kick it. One slot per nesting level: a thread's wait, then an interrupt
 * handler's that came in while the thread halted with interrupts on. */
#define SPIN_WAIT_LEVELS 4
struct spin_wait_slot {
	struct spinlock *lock; /* C, read by any CPU's unlock: the lock, or NULL */
	u32 want;	       /* C, read likewise: the ticket it waits for */
};
struct spin_cpu {
	struct spin_wait_slot wait[SPIN_WAIT_LEVELS];
	unsigned int depth; /* C: slots in use (interrupts off while it changes) */
	u64 kicks_sent;	    /* atomic, any CPU: NMIs sent to wake this one */
	u64 kicks_taken;    /* C (NMI handler): kick NMIs this CPU has taken */
	u64 halts;	    /* C: halts while waiting for a spinlock */
};

/* kernel/printk.c. */
struct printk_cpu {
	int nesting; /* C: printk recursion depth */
};

/* kernel/smp.c: cross-CPU function calls. */
struct smp_cpu {
	struct spinlock call_lock;
	struct list_head call_queue; /* Q: smp_call_function_single/many() requests */
	u64 ipis_call;		     /* C: call-function IPIs handled */
	u64 ipis_resched;	     /* C: reschedule IPIs handled */
	u64 ipis_bh;		     /* C: BH kick IPIs handled */
	bool call_halted;	     /* C to write, read by the CPUs it waits for: halted
					waiting for calls (kernel/smp.c, wait_for_calls()) */
	u64 call_halts;		     /* C: such halts */
	u64 call_kicks;		     /* A: kicks it was sent, by the last call done */
};
/* kernel/smp.c: set up a CPU's struct smp_cpu (zeroed) when its per-CPU
 * area is made, before the CPU runs (arch/x86_64/percpu.c calls it). */
void smp_cpu_init(struct smp_cpu *s);

/* kernel/workqueue/bh.c: the CPU's bottom halves (kernel/bottom_half.h). */
struct bh_cpu {
	u32 pending;	    /* any CPU sets bits (atomic or), this CPU takes them
			     * (atomic exchange): bit n, the CPU's BH pool n has
			     * work for a run (kick_bh_pool()) */
	void *worker;	    /* C: the BH pool's pseudo-worker whose run this CPU is
			     * in (current_worker() in BH context), or NULL */
	unsigned int depth; /* C: BH runs nested on this CPU (a drain inside a
			     * run): the lock validator's subclass for their items */
	u64 runs;	    /* C: BH runs begun (irq exit, idle, bh enable) */
	u64 deferrals;	    /* C: runs that ended on their budget with work left */
};

/* kernel/debug/lockdep.c: the lock validator. */
struct lockdep_cpu {
	int hardirq_depth;	    /* C: inside an interrupt handler */
	bool in_nmi;		    /* C: inside the NMI handler: nothing tracked */
	bool recursion;		    /* C: inside the validator */
	u64 rbp;		    /* C: the frame of lock_acquire() under way */
	u64 chain_hits;		    /* C: acquisitions validated by the chain cache */
	u64 chain_misses;	    /* C: ... and by the graph */
	struct lockdep_ctx irq_ctx; /* C: the locks held in interrupt context */
	struct lockdep_ctx bh_ctx;  /* C: the locks held in a BH run */
};

/* A CPU's area. The arch's fields come first and are the area's own
 * (an unnamed member, GCC's -fms-extensions: pc->apic_id,
 * this_cpu_read(irqs)); the arch allocates sizeof(struct percpu)
 * (arch/x86_64/percpu.c). */
struct percpu {
	struct percpu_arch; /* must stay first: gs:0 is self */
	struct sched_cpu sched;
	struct printk_cpu printk;
	struct spin_cpu spin;
	struct smp_cpu smp;
	struct lockdep_cpu lockdep;
	struct bh_cpu bh;
};
BUILD_BUG_ON(offsetof(struct percpu, self) != 0);

#endif
