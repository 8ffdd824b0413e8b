/* kernel/sched_internal.h - what the scheduler's two files (sched.c: its
 * paths; sched_attrs.c: nice, FIFO, affinity) share, and what the
 * scheduler and the kthread machinery (kthread.c) call in each other. Only
 * those three files include it; everything else uses sched.h and kthread.h.
 *
 * The scheduler's part: the run queue, and the steps of the classes that
 * the wake-up path and the attribute changes both take (charging the
 * running thread, queueing, preempting, activating a thread, moving it
 * between CPUs, locking its run queue). The steps are defined in sched.c,
 * beside the paths that use them most: GCC compiles those paths as it did
 * when all of this was one file (the steps are not inlined into
 * __schedule() or sched_clock_event() either way); sched_attrs.c calls
 * them. The few-line helpers are inline here. Locking is described in
 * sched.c's header.
 *
 * kthread.c owns the list of threads and their lifetime (creation,
 * references, reaping); the scheduler owns how a thread runs (its
 * scheduling fields, its first stack frame, switching it out for the last
 * time).
 *
 * The fair class keeps runnable threads in a list sorted by vruntime (a
 * linear insert: run queues here are short). The current thread is never
 * on the list.
 */
#ifndef KERNEL_SCHED_INTERNAL_H
#define KERNEL_SCHED_INTERNAL_H

#include "kernel/cpu_masks.h"
#include "kernel/deterministic.h"
#include "kernel/panic.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/timer.h"

/* ---- the run queue -------------------------------------------------------- */

#define SCHED_LATENCY_NS	 (20 * NSEC_PER_MSEC)
#define SCHED_MIN_GRANULARITY_NS (4 * NSEC_PER_MSEC)
#define WAKEUP_GRANULARITY_NS	 (1 * NSEC_PER_MSEC)
#define BALANCE_INTERVAL_NS	 (100 * NSEC_PER_MSEC)

/* A CPU's run queue (runqueues[cpu], in sched.c). */
struct rq {
	struct spinlock lock;
	unsigned int cpu;	/* I */
	struct thread *curr;	/* lock */
	struct thread *idle;	/* I */
	struct list_head fifo;	/* lock: by priority, highest first */
	struct list_head fair;	/* lock: by vruntime */
	unsigned int nr_queued; /* lock: on the two lists */
	u64 min_vruntime;	/* lock */
	u64 clock;		/* lock: when update_curr() last read the clock */
	u64 nr_switches;	/* lock */
	u64 idle_ns;		/* lock */
	u64 idle_since;		/* lock */
	struct thread *prev;	/* lock: handed from __schedule to finish_switch */
	/* lock (its CPU reads it without, for the clock event): when the
	 * current thread's slice ends, KTIME_MAX while no slice runs (the
	 * CPU idle, a FIFO thread, or a fair one with nobody waiting) */
	u64 slice_end;
	/* Periodic balancing, armed while the CPU is busy (an idle CPU pulls
	 * work as it goes idle and is a wake-up's first choice): a busy CPU
	 * evens out with the others every BALANCE_INTERVAL_NS. */
	struct timer_list balance_timer;
};

extern struct rq runqueues[NR_CPUS];

/* Set t's CPU mask and the weight wake-ups read (select_cpu()). t's
 * pi_lock and run queue's lock held, or t not started yet. */
static inline void thread_set_cpus_allowed(struct thread *t, const struct cpumask *mask)
{
	cpumask_copy(&t->cpus_allowed, mask);
	t->nr_cpus_allowed = (u16)cpumask_weight(mask);
}

/* Can a thread with this mask run anywhere now? On an active CPU of it,
 * or, a mask of one CPU (a per-CPU thread: workers, the stopper), on that
 * CPU while it is online, active or not: Linux's rule for per-CPU kthreads,
 * which CPU hotplug's online steps need (they run before the CPU is
 * active) and its offline ones (after it is no longer). Any context. */
static inline bool cpus_usable(const struct cpumask *mask)
{
	if (cpumask_intersects(mask, &cpu_active_mask))
		return true;
	return cpumask_weight(mask) == 1 && cpu_online(cpumask_first(mask));
}

static inline struct rq *cpu_rq(unsigned int cpu)
{
	return &runqueues[cpu];
}
static inline struct rq *this_rq(void)
{
	return &runqueues[smp_processor_id()];
}

/* Runnable threads on rq, its current one included, the idle one not (a
 * CPU that never started has no current thread). rq->lock held. */
static inline unsigned int rq_nr_running(const struct rq *rq)
{
	assert_spin_locked(&rq->lock);
	return rq->nr_queued + (rq->curr && rq->curr != rq->idle);
}

/* ---- the classes (defined in sched.c) ------------------------------------ */

/* Charge the current thread its time since exec_start; returns the time it
 * read (the caller's "now"). Called with rq->lock held. */
u64 update_curr(struct rq *rq);

/* Recompute when the current slice ends; if it moved earlier, tell the
 * CPU's clock event (at once on this CPU, by a kick on another; a deadline
 * that moved later costs one early interrupt at most: kernel/time.h).
 * rq->lock held, and update_curr() done in the same locked section (its
 * clock reading is the programming's "now"). */
void update_slice_end(struct rq *rq);

/* Where enqueue() puts a thread among those of its own FIFO priority (fair
 * threads go by vruntime either way). */
enum queue_place {
	QUEUE_BEHIND_EQUALS,   /* woken, or yielding: after its equals */
	QUEUE_AHEAD_OF_EQUALS, /* a FIFO thread preempted: it keeps its turn */
};

/* Put t on rq's lists. Called with rq->lock held; t is not current. */
void enqueue(struct rq *rq, struct thread *t, enum queue_place place);

static inline void dequeue(struct rq *rq, struct thread *t)
{
	list_del_init(&t->run_link);
	rq->nr_queued--;
}

static inline void resched_cpu_locked(struct rq *rq)
{
	struct percpu *pc = per_cpu_ptr(rq->cpu);

	if (rq->cpu == smp_processor_id()) {
		this_cpu_write(sched.need_resched, true);
	} else if (!READ_ONCE(pc->sched.need_resched)) {
		WRITE_ONCE(pc->sched.need_resched, true);
		smp_send_reschedule(rq->cpu);
	}
}

/* t was just queued on rq: it takes the CPU now, or waits for the current
 * thread's slice to end (which it may have brought closer). rq->lock held:
 * its callers queued t under it (enqueue() asserts it). */
void preempt_or_share(struct rq *rq, struct thread *t);

/* ---- moving and locking (wake-ups and attributes) ---------------------- */

/* Make t runnable on rq: rq->lock held (enqueue() asserts it, on every
 * wake-up), t off every run queue. */
void activate(struct rq *rq, struct thread *t);

/* Move t, on no run queue, from rq (locked; t->pi_lock held too) to cpu's
 * run queue: returns that one, locked instead (each lock is taken alone,
 * so the pair's order does not matter). */
struct rq *move_to_cpu(struct rq *rq, struct thread *t, unsigned int cpu);

/* Lock the run queue t is on (t->cpu may change until we hold it). */
static inline struct rq *lock_thread_rq(struct thread *t)
{
	for (;;) {
		struct rq *rq = cpu_rq(READ_ONCE(t->cpu));

		spin_lock(&rq->lock);
		if (rq->cpu == READ_ONCE(t->cpu))
			return rq;
		spin_unlock_no_resched(&rq->lock);
	}
}

/* Let go of t's run queue's lock and t's pi_lock, taken by
 * spin_lock_irqsave(&t->pi_lock, ...) and lock_thread_rq(): pi_lock first.
 * Once the run queue's lock goes, t may run, exit and be freed (a dead
 * thread is reaped by the next thread creation, with no grace period), and
 * its pi_lock with it: a release after that wrote freed memory (found by
 * the walk torture: a stopper's release of a freed thread's pi_lock, after
 * sched_cpu_dying() had queued it on a live CPU). Nothing of t may be
 * touched after this. */
static inline void unlock_thread_rq(struct thread *t, struct rq *rq, unsigned long flags)
{
	spin_unlock_no_resched(&t->pi_lock);
	spin_unlock_no_resched(&rq->lock);
	local_irq_restore(flags);
	preempt_check_resched();
}

/* sched_attrs.c, for sched.c's sched_thread_init(): t's nice level and the
 * weight it gives (t not yet started, or its run queue's lock held). */
void sched_set_weight(struct thread *t, int nice);

/* ---- the scheduler and kthread.c ----------------------------------------- */

/* sched.c, for kthread_create(): fill in a new thread's scheduling fields
 * (blocked, fair, nice 0, any CPU) and its name; build the frame
 * switch.S pops the first time it is switched to (t->stack is set). */
void sched_thread_init(struct thread *t, const char *name);
void sched_thread_stack_init(struct thread *t);

/* sched.c, for kthread.c before t first runs: the CPUs it may use. It is
 * first queued on the creating CPU if allowed, else on the first allowed
 * (sched_thread_init() gave it every possible CPU and the creating one). */
void sched_thread_place(struct thread *t, const struct cpumask *allowed);
/* sched.c, for thread_exit(): the dying calling thread drops its hooks, so
 * that its last switch tells no one it sleeps. */
void sched_thread_drop_hooks(void);

/* kthread.c, for the scheduler: a dead thread has switched out for the
 * last time and its stack is no longer in use; drop the thread's own
 * reference (the struct goes to the zombies if it was the last). Called
 * by the thread switched to, on the dead thread's CPU, interrupts off. */
void kthread_put_dead(struct thread *t);

/* kthread.c, for sched_dump_threads(): call fn on every listed thread
 * WITHOUT threads_lock (from an NMI, perhaps with the lock held). The list
 * may change under the walk: only for last-gasp reports. */
void kthread_for_each_unlocked(void (*fn)(struct thread *t, void *arg), void *arg);

#endif
