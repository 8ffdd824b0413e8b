/* kernel/sched_internal.h - what the scheduler's two files (sched.c: its
 * paths; sched_attrs.c: nice, FIFO, affinity) share, and what the
 * scheduler and the kthread machinery (kthread.c) call in each other. Only
 * those three files include it; everything else uses sched.h and kthread.h.
 *
 * The scheduler's part: the run queue, the classes, and the steps the
 * wake-up path and the attribute changes both take (activating a thread,
 * moving it between CPUs, locking its run queue). They are static, so each
 * file has its own copy and the wake-up and switch paths call them as they
 * did when all of this was sched.c (never into the other file): the small
 * ones inline, the larger ones out of line and __noinline, as GCC had
 * compiled them (declared inline, they would be inlined into __schedule()
 * and sched_clock_event(), nearly doubling both). Locking is described in
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

/* ---- the classes -------------------------------------------------------- */

/* Charge the current thread its time since exec_start; returns the time it
 * read (the caller's "now"). Called with rq->lock held. */
static __noinline __unused u64 update_curr(struct rq *rq)
{
	struct thread *c = rq->curr;
	u64 now = ktime_get_ns();
	u64 delta = now > c->exec_start ? now - c->exec_start : 0;

	assert_spin_locked(&rq->lock);
	c->exec_start = now;
	rq->clock = now;
	if (c == rq->idle)
		return now;
	c->stats.sum_exec_ns += delta;
	if (c->policy == SCHED_CLASS_FAIR) {
		c->vruntime += delta * NICE_0_WEIGHT / c->weight;
		u64 least = c->vruntime;

		if (!list_empty(&rq->fair))
			least = min(least,
				    list_first_entry(&rq->fair, struct thread, run_link)->vruntime);
		rq->min_vruntime = max(rq->min_vruntime, least);
	}
	return now;
}

/* The slice of the current fair thread: its share of the latency period
 * among the runnable fair threads, at least the minimum granularity. */
static inline u64 fair_slice(const struct rq *rq)
{
	return max(SCHED_LATENCY_NS / (rq->nr_queued + 1), SCHED_MIN_GRANULARITY_NS);
}

/* Has the current thread's slice ended? It has run its slice in this stint,
 * or run so far ahead of the fair thread waiting first (in vruntime) that
 * the distance exceeds a slice. rq->lock held (its one caller,
 * sched_clock_event(), has just taken it), update_curr() just done. */
static inline bool slice_over(const struct rq *rq)
{
	const struct thread *c = rq->curr;

	if (c == rq->idle || c->policy != SCHED_CLASS_FAIR || list_empty(&rq->fair))
		return false;
	u64 slice = fair_slice(rq);

	return c->stats.sum_exec_ns - c->slice_start_exec >= slice ||
	       c->vruntime > list_first_entry(&rq->fair, struct thread, run_link)->vruntime + slice;
}

/* When slice_over() becomes true if nothing else changes (KTIME_MAX: it
 * cannot): the earlier of the stint reaching the slice and the vruntime
 * lead reaching it (the vruntime grows by run time x NICE_0_WEIGHT /
 * weight), counted from the last update_curr() (c->exec_start). rq->lock
 * held: asserted by its one caller, update_slice_end() (on the wake-up
 * path, where each check costs). */
static inline u64 slice_deadline(const struct rq *rq)
{
	const struct thread *c = rq->curr;

	if (c == rq->idle || c->policy != SCHED_CLASS_FAIR || list_empty(&rq->fair))
		return KTIME_MAX;
	u64 slice = fair_slice(rq), ran = c->stats.sum_exec_ns - c->slice_start_exec;
	u64 first = list_first_entry(&rq->fair, struct thread, run_link)->vruntime + slice;
	u64 by_stint = c->exec_start + (ran < slice ? slice - ran : 0);
	/* The lead passes `first` one weighted nanosecond after it equals it. */
	u64 by_lead =
		c->vruntime > first ?
			c->exec_start :
			c->exec_start + ((first - c->vruntime) * c->weight / NICE_0_WEIGHT) + 1;

	return min(by_stint, by_lead);
}

/* Recompute when the current slice ends; if it moved earlier, tell the
 * CPU's clock event (at once on this CPU, by a kick on another; a deadline
 * that moved later costs one early interrupt at most: kernel/time.h).
 * rq->lock held, and update_curr() done in the same locked section (its
 * clock reading is the programming's "now"). */
static __noinline __unused void update_slice_end(struct rq *rq)
{
	u64 old = rq->slice_end, end = slice_deadline(rq);

	assert_spin_locked(&rq->lock);
	if (end == old)
		return;
	WRITE_ONCE(rq->slice_end, end);
	if (end > old)
		return;
	if (rq->cpu == smp_processor_id())
		clockevent_earlier(end, rq->clock);
	else
		clockevent_kick(rq->cpu);
}

/* Where enqueue() puts a thread among those of its own FIFO priority (fair
 * threads go by vruntime either way). */
enum queue_place {
	QUEUE_BEHIND_EQUALS,   /* woken, or yielding: after its equals */
	QUEUE_AHEAD_OF_EQUALS, /* a FIFO thread preempted: it keeps its turn */
};

/* Put t on rq's lists. Called with rq->lock held; t is not current. */
static __noinline __unused void enqueue(struct rq *rq, struct thread *t, enum queue_place place)
{
	struct thread *pos;

	assert_spin_locked(&rq->lock);
	/* Queued twice, or on a run queue that is not its CPU's: either way
	 * two CPUs could pick it and run it at once. Stop here, by name. */
	if (unlikely(!list_empty(&t->run_link) || t->cpu != rq->cpu))
		panic("thread %s enqueued on cpu%u: already queued %d, its cpu %u", t->name,
		      rq->cpu, !list_empty(&t->run_link), t->cpu);
	if (t->policy == SCHED_CLASS_FIFO) {
		list_for_each_entry(pos, &rq->fifo, run_link) {
			if (place == QUEUE_AHEAD_OF_EQUALS ? pos->fifo_prio <= t->fifo_prio :
							     pos->fifo_prio < t->fifo_prio) {
				list_add_tail(&t->run_link, &pos->run_link);
				goto queued;
			}
		}
		list_add_tail(&t->run_link, &rq->fifo);
	} else {
		list_for_each_entry(pos, &rq->fair, run_link) {
			if (pos->vruntime > t->vruntime) {
				list_add_tail(&t->run_link, &pos->run_link);
				goto queued;
			}
		}
		list_add_tail(&t->run_link, &rq->fair);
	}
queued:
	rq->nr_queued++;
}

static inline void dequeue(struct rq *rq, struct thread *t)
{
	list_del_init(&t->run_link);
	rq->nr_queued--;
}

static inline struct thread *pick_next(struct rq *rq)
{
	struct thread *t = list_first_entry_or_null(&rq->fifo, struct thread, run_link);

	if (!t)
		t = list_first_entry_or_null(&rq->fair, struct thread, run_link);
	if (t)
		dequeue(rq, t);
	return t;
}

/* Should woken thread t take the CPU from rq->curr? rq->lock held: its one
 * caller, preempt_or_share(), runs right after enqueue(), which asserts it
 * (on every wake-up: no second check here). */
static inline bool should_preempt(struct rq *rq, struct thread *t)
{
	struct thread *c = rq->curr;

	if (c == rq->idle)
		return true;
	if (t->policy == SCHED_CLASS_FIFO)
		return c->policy != SCHED_CLASS_FIFO || t->fifo_prio > c->fifo_prio;
	if (c->policy == SCHED_CLASS_FIFO)
		return false;
	return c->vruntime > t->vruntime + WAKEUP_GRANULARITY_NS * NICE_0_WEIGHT / t->weight;
}

static inline void resched_cpu_locked(struct rq *rq)
{
	struct percpu *pc = per_cpu_ptr(rq->cpu);

	if (rq->cpu == smp_processor_id()) {
		this_cpu_write(sched.need_resched, true);
	} else if (!pc->sched.need_resched) {
		pc->sched.need_resched = true;
		smp_send_reschedule(rq->cpu);
	}
}

/* t was just queued on rq: it takes the CPU now, or waits for the current
 * thread's slice to end (which it may have brought closer). rq->lock held:
 * its callers queued t under it (enqueue() asserts it). */
static __noinline __unused void preempt_or_share(struct rq *rq, struct thread *t)
{
	if (should_preempt(rq, t))
		resched_cpu_locked(rq);
	else
		update_slice_end(rq);
}

/* ---- moving and locking (wake-ups and attributes) ---------------------- */

/* Make t runnable on rq: rq->lock held (enqueue() asserts it, on every
 * wake-up), t off every run queue. */
static __noinline __unused void activate(struct rq *rq, struct thread *t)
{
	/* The running thread's vruntime, and the queue's minimum, as of now:
	 * without a tick they are brought up to date only here and at
	 * switches, and a stale minimum places newcomers in the past (a chain
	 * of threads each making the next would never let the minimum move,
	 * and keep the CPU from a thread that slept). An idle CPU has none. */
	if (rq->curr != rq->idle)
		update_curr(rq);
	if (t->policy == SCHED_CLASS_FAIR) {
		/* A sleeper gets at most half a latency period of credit; a new
		 * thread (never woken before) none: it starts at min_vruntime.
		 * Otherwise a thread that makes its successor as it ends keeps
		 * the credit for good, and the threads already here starve. */
		u64 credit = t->stats.nr_wakeups ? SCHED_LATENCY_NS / 2 : 0;
		u64 floor = rq->min_vruntime > credit ? rq->min_vruntime - credit : 0;

		t->vruntime = max(t->vruntime, floor);
	}
	t->on_rq = true;
	t->stats.nr_wakeups++;
	enqueue(rq, t, QUEUE_BEHIND_EQUALS);
	preempt_or_share(rq, t);
}

/* t's vruntime above rq's min_vruntime: vruntime is relative to a run
 * queue, so a thread moving between queues carries only this lead. */
static inline u64 vruntime_lead(const struct thread *t, const struct rq *rq)
{
	return t->vruntime - min(t->vruntime, rq->min_vruntime);
}

/* Move t, on no run queue, from rq (locked; t->pi_lock held too) to cpu's
 * run queue: returns that one, locked instead (each lock is taken alone,
 * so the pair's order does not matter). */
static __noinline __unused struct rq *move_to_cpu(struct rq *rq, struct thread *t, unsigned int cpu)
{
	u64 lead = vruntime_lead(t, rq);

	assert_spin_locked(&t->pi_lock);
	assert_spin_locked(&rq->lock);
	t->cpu = cpu; /* under both P and the old R */
	t->stats.nr_migrations++;
	spin_unlock_no_resched(&rq->lock);
	delay_point(DP_MIGRATE); /* in transit: on neither run queue's lock */
	rq = cpu_rq(cpu);
	spin_lock(&rq->lock);
	t->vruntime = rq->min_vruntime + lead;
	return rq;
}

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
