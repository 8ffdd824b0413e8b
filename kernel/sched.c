/* kernel/sched.c - the scheduler's paths: the classes' steps, wake-ups,
 * context switching, slices and balancing, the sleep/wake hooks, set-up and
 * CPU hotplug. The run queue, and the contracts of the steps the attributes
 * (nice, FIFO, affinity: sched_attrs.c) take too, are in sched_internal.h;
 * the scheduler's contracts for the rest of the kernel are in sched.h.
 *
 * Locking: rq->lock (interrupts off) protects a run queue and the
 * scheduling fields of the threads on it. t->pi_lock serialises wake-ups
 * and affinity changes of t and is taken before any rq->lock. Two run-queue
 * locks are taken in CPU order (double_rq_lock), or with trylock when one
 * is already held. The lock validator checks these orders (kernel/lockdep.h).
 * The run-queue lock taken in __schedule() is released by the thread
 * switched to (finish_switch()), so while a CPU holds its lock the thread
 * it switches out cannot be picked up elsewhere; the validator is told of
 * the hand-over (in __schedule() and finish_switch()).
 */
#define pr_fmt(fmt) "sched: " fmt
#include "kernel/sched.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/bottom_half.h"
#include "kernel/cpu_masks.h"
#include "kernel/deterministic.h"
#include "kernel/hardirq.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/lockdep.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched_internal.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/trace.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

struct rq runqueues[NR_CPUS];
static struct thread idle_threads[NR_CPUS];
bool sched_ready;

extern void __switch_to(u64 *prev_rsp, u64 next_rsp);
extern char thread_start[], boot_stack[];

/* ---- the classes (contracts of the shared steps: sched_internal.h) ----- */

u64 update_curr(struct rq *rq)
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

void update_slice_end(struct rq *rq)
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

void enqueue(struct rq *rq, struct thread *t, enum queue_place place)
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

void preempt_or_share(struct rq *rq, struct thread *t)
{
	if (should_preempt(rq, t))
		resched_cpu_locked(rq);
	else
		update_slice_end(rq);
}

void activate(struct rq *rq, struct thread *t)
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

struct rq *move_to_cpu(struct rq *rq, struct thread *t, unsigned int cpu)
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

/* ---- wake-ups ----------------------------------------------------------- */

/* May t run on cpu? In its mask and active; a thread bound to that one CPU
 * (a per-CPU kthread: workers, the hotplug stopper) also while the CPU is
 * online but no longer active, on its way down. */
static bool cpu_allowed(struct thread *t, unsigned int cpu)
{
	if (!cpumask_test_cpu(cpu, &t->cpus_allowed))
		return false;
	return cpumask_test_cpu(cpu, &cpu_active_mask) ||
	       (cpu_online(cpu) && t->nr_cpus_allowed == 1);
}

/* Idle with nothing queued: a thread woken onto the CPU a moment ago
 * waits there until the CPU takes the wake-up's IPI, its idle thread
 * still current meanwhile. A glance, without rq->lock. */
static bool rq_idle(const struct rq *rq)
{
	return READ_ONCE(rq->curr) == rq->idle && !READ_ONCE(rq->nr_queued);
}

/* Where should t run? Its last CPU if allowed and idle (rq_idle(): with
 * nothing queued either) or if it is the only one t may use (a per-CPU
 * kthread: every worker of a CPU's pool); else an allowed active CPU that
 * is idle; else its last CPU if allowed; else the first allowed active
 * CPU; else (none of its CPUs is active) the first active CPU. */
static unsigned int select_cpu(struct thread *t)
{
	unsigned int cpu, fallback = NR_CPUS;
	bool last_allowed = cpu_allowed(t, t->cpu);

	/* The bound thread's case is answered before any CPU mask is walked
	 * (a walk of 256 bits, and a weight, twice: 150 instructions per
	 * wake-up of a worker, measured on the 64 sleepers' ends). */
	if (last_allowed && (t->nr_cpus_allowed == 1 || rq_idle(cpu_rq(t->cpu))))
		return t->cpu;
	/* A per-CPU thread moving to its CPU, which may be online and not
	 * (yet, or any more) active (cpus_usable()). */
	if (t->nr_cpus_allowed == 1 && cpu_allowed(t, cpumask_first(&t->cpus_allowed)))
		return cpumask_first(&t->cpus_allowed);
	for_each_cpu_and(cpu, &t->cpus_allowed, &cpu_active_mask) {
		if (rq_idle(cpu_rq(cpu)))
			return cpu;
		if (fallback == NR_CPUS)
			fallback = cpu;
	}
	if (last_allowed)
		return t->cpu;
	if (fallback == NR_CPUS) {
		/* No allowed CPU is active (hotplug took them): run it on an
		 * active one meanwhile; its affinity stays, so it goes back
		 * when one of its CPUs returns. */
		fallback = cpumask_first(&cpu_active_mask);
		if (!t->fallback_reported)
			pr_info("thread %s: none of its CPUs is online; it runs on cpu%u "
				"meanwhile\n",
				t->name, fallback);
		t->fallback_reported = true; /* once per thread: hotplug makes it routine */
	}
	return fallback;
}

/* Queue t, on no run queue, where select_cpu() places it: rq (locked; t's
 * pi_lock held too: its two callers, wake_up_thread() and migrate_away(),
 * take both just before) or another CPU's, which is
 * returned locked instead. */
static struct rq *place_and_activate(struct rq *rq, struct thread *t)
{
	unsigned int cpu = select_cpu(t);

	if (cpu != rq->cpu)
		rq = move_to_cpu(rq, t, cpu);
	activate(rq, t);
	return rq;
}

bool wake_up_thread(struct thread *t)
{
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);
	bool woke = false;

	if (t->state == THREAD_BLOCKED) {
		t->state = THREAD_RUNNING;
		woke = true;
		/* A thread switched out for migration is requeued by
		 * migrate_away(), whatever its state; activating it here too
		 * would queue it twice. */
		if (!t->on_rq && !t->migrate) {
			/* Fully switched out (we hold its CPU's lock): free to move. */
			rq = place_and_activate(rq, t);
		}
	}
	unlock_thread_rq(t, rq, flags);
	return woke;
}

/* Wake t, bound to this CPU, from a sleeping() hook: rq->lock is held. */
static void wake_up_local(struct rq *rq, struct thread *t)
{
	if (WARN_ONCE(t->cpu != rq->cpu || t == rq->curr,
		      "sleeping hook returned thread %s on cpu%u, not a blocked thread of cpu%u",
		      t->name, t->cpu, rq->cpu))
		return;
	if (t->state != THREAD_BLOCKED)
		return;
	t->state = THREAD_RUNNING;
	if (!t->on_rq && !t->migrate) /* see wake_up_thread() */
		activate(rq, t);
}

void set_current_state(int state)
{
	__atomic_store_n(&current->state, state, __ATOMIC_SEQ_CST); /* full barrier */
}

/* ---- switching ---------------------------------------------------------- */

static struct thread *idle_balance(struct rq *rq);
static void migrate_away(struct thread *t);

static u64 current_sp(void)
{
	u64 sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* Is sp on t's own stack (an idle thread's is its CPU's boot stack)? */
static bool on_own_stack(const struct thread *t, u64 sp)
{
	return sp - (u64)t->stack < KSTACK_SIZE;
}

/* The CPU runs the thread its run queue names, on that thread's stack:
 * otherwise switching out would save this context as another thread's.
 * rq->lock held. */
static void check_curr(struct rq *rq, const char *where)
{
	struct thread *c = rq->curr;
	u64 sp = current_sp();

	assert_spin_locked(&rq->lock);
	if (unlikely(c != current || !on_own_stack(c, sp)))
		panic("cpu%u %s: its run queue says %s runs (stack %p), current is %s, rsp %lx is "
		      "on the stack of %s",
		      rq->cpu, where, c->name, c->stack, current->name, sp,
		      kstack_owner(sp) ?: "no stack");
}

/* Run by the thread just switched to, on its new stack: release the lock
 * __schedule() took, and finish with the thread switched out. */
static void finish_switch(void)
{
	struct rq *rq = this_rq();
	struct thread *prev = rq->prev;
	/* Dead only if it blocked as such: a thread preempted between setting
	 * THREAD_DEAD and calling schedule() (thread_exit) is still queued and
	 * will run again; reaping it now would free a queued thread. */
	bool migrate = prev->migrate, dead = prev->state == THREAD_DEAD && !prev->on_rq && !migrate;

	check_curr(rq, "switching in");

	/* Seal its saved frame (switch.S: rbp at +40, return address at +48). */
	prev->ctx_seal[0] = ((u64 *)prev->ctx_rsp)[5];
	prev->ctx_seal[1] = ((u64 *)prev->ctx_rsp)[6];
	__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	/* The lock prev took is ours now, as far as the validator knows. */
	lock_acquire(&rq->lock.dep_map, 0, LD_NOCHECK, &rq->lock, __builtin_return_address(0));
	spin_unlock_no_resched(&rq->lock);
	if (migrate)
		migrate_away(prev);
	if (dead)
		kthread_put_dead(prev);
}

/* Why __schedule() was called. */
enum sched_mode {
	SCHED_VOLUNTARY, /* schedule(): the thread blocks, yields or exits */
	SCHED_PREEMPT,	 /* need_resched acted on: the thread stays runnable,
			  * whatever its state says (it may be on its way to
			  * blocking, between set_current_state() and
			  * schedule()) */
};

/* Tell prev's hooks it blocks; each may name a thread to wake here (the
 * workqueue's next worker). rq->lock held, interrupts off: the hooks'
 * contract (sched.h), checked after each. */
static __always_inline void run_sleeping_hooks(struct rq *rq, struct thread *prev)
{
	prev->in_hook = true;
	for (unsigned int i = 0; i < prev->nr_hooks; i++) {
		const struct sched_hook_ops *ops = prev->hook_ops[i];
		struct thread *w = ops->sleeping ? ops->sleeping(prev, prev->hook_data[i]) : NULL;

		WARN_ON_ONCE(!spin_lock_held(&rq->lock) || !irqs_disabled());
		if (w)
			wake_up_local(rq, w);
	}
	prev->in_hook = false;
	prev->hooks_slept = prev->nr_hooks > 0;
}

/* The old thread's side of a switch (not the idle thread): off the run
 * queue if it blocks (telling its hooks), marked to move if its affinity
 * changed under it, else back on the queue. rq->lock held, interrupts off. */
static __always_inline void put_prev(struct rq *rq, struct thread *prev, enum sched_mode mode)
{
	if (mode == SCHED_VOLUNTARY && prev->state != THREAD_RUNNING) {
		/* Blocking: off the run queue, and tell the hooks. */
		WARN_ONCE(prev->in_hook, "thread %s blocks inside a sleep/wake hook", prev->name);
		prev->on_rq = false;
		prev->stats.nvcsw++;
		run_sleeping_hooks(rq, prev);
	} else if (!cpu_allowed(prev, rq->cpu) && cpus_usable(&prev->cpus_allowed)) {
		/* Affinity changed under it: move it once switched out. */
		prev->migrate = true;
		prev->on_rq = false;
	} else {
		/* Preempted (or yielding): a FIFO thread keeps its place. */
		bool keeps_turn = mode == SCHED_PREEMPT && prev->policy == SCHED_CLASS_FIFO;

		enqueue(rq, prev, keeps_turn ? QUEUE_AHEAD_OF_EQUALS : QUEUE_BEHIND_EQUALS);
	}
}

/* The new thread's checks before it gets the CPU: not still running
 * elsewhere, and its saved context intact on its own stack. Each failure
 * is a panic: running it would corrupt the machine. rq->lock held. */
static __always_inline void check_next(struct rq *rq, struct thread *next)
{
	/* Still executing (or being switched out) elsewhere: its saved
	 * context is stale, and running it here would run it twice. */
	if (unlikely(READ_ONCE(next->on_cpu)))
		panic("thread %s picked on cpu%u while still on a CPU (its cpu %u)", next->name,
		      rq->cpu, next->cpu);
	const u64 *frame = (const u64 *)next->ctx_rsp;

	if (unlikely(!on_own_stack(next, next->ctx_rsp)))
		panic("thread %s picked on cpu%u: its saved rsp %lx is not on its stack %p "
		      "but on the stack of %s; it last switched out on cpu%u at %lu ns",
		      next->name, rq->cpu, next->ctx_rsp, next->stack,
		      kstack_owner(next->ctx_rsp) ?: "no stack", next->out_cpu, next->out_ns);
	if (unlikely(next->ctx_seal[1] &&
		     (frame[5] != next->ctx_seal[0] || frame[6] != next->ctx_seal[1])))
		panic("thread %s: its stack was written while it was switched out: saved "
		      "rbp %lx return %pS at %p, sealed as %lx %pS",
		      next->name, frame[5], (void *)frame[6], frame, next->ctx_seal[0],
		      (void *)next->ctx_seal[1]);
}

static void __schedule(enum sched_mode mode)
{
	unsigned long flags = local_irq_save();
	struct rq *rq = this_rq();
	struct thread *prev = rq->curr, *next;

	if (unlikely(preempt_count() != 0) && mode == SCHED_VOLUNTARY) {
		if (preempt_count() & BH_OFFSET) {
			/* A BH item blocks: the thread under it is the one it
			 * interrupted, and cannot sleep for it. Refused: the
			 * item's wait loop spins instead (interrupts still come). */
			struct work_struct *w = current_work();

			WARN_ONCE(1,
				  "BH item %pS would sleep (thread %s under it): BH items must "
				  "not block; refused",
				  w ? w->func : NULL, prev->name);
			WRITE_ONCE(prev->state, THREAD_RUNNING);
			local_irq_restore(flags);
			return;
		}
		WARN_ONCE(1, "thread %s schedules with preemption disabled (count %d)", prev->name,
			  preempt_count());
		this_cpu_write(sched.preempt_count, 0);
	}
	spin_lock(&rq->lock);
	check_curr(rq, "switching out");
	u64 now = update_curr(rq);

	this_cpu_write(sched.need_resched, false);

	if (prev != rq->idle)
		put_prev(rq, prev, mode);
	next = pick_next(rq);
	if (!next)
		next = idle_balance(rq);
	if (!next)
		next = rq->idle;
	if (next != prev) {
		if (prev == rq->idle) {
			rq->idle_ns += now - rq->idle_since;
			/* Busy: balance while it lasts (the timer stops re-arming
			 * itself once the CPU is found idle). */
			if (!timer_pending(&rq->balance_timer))
				add_timer(&rq->balance_timer, now + BALANCE_INTERVAL_NS);
		}
		if (next == rq->idle)
			rq->idle_since = now;
		if (mode == SCHED_PREEMPT && prev != rq->idle)
			prev->stats.nivcsw++;
		prev->stats.max_stint_ns = max(prev->stats.max_stint_ns,
					       prev->stats.sum_exec_ns - prev->stint_start_exec);
		rq->nr_switches++;
		check_next(rq, next);
		next->on_cpu = true;
		next->exec_start = now;
		next->slice_start_exec = next->stats.sum_exec_ns;
		next->stint_start_exec = next->stats.sum_exec_ns;
		rq->curr = next;
		rq->prev = prev;
		update_slice_end(rq);				      /* next's slice, or none */
		lock_release(&rq->lock, __builtin_return_address(0)); /* next releases it */
		this_cpu_write(sched.curr_thread, next);
		prev->out_cpu = rq->cpu;
		prev->out_ns = now;
		trace_event(TR_SWITCH, next, prev->tid, 0);
		__switch_to(&prev->ctx_rsp, next->ctx_rsp);
		/* Back in prev, possibly much later and on another CPU. */
		finish_switch();
	} else {
		/* Kept the CPU: a new slice if it was preempted (its slice
		 * ended), the same one if it only yielded to nobody. */
		if (mode == SCHED_PREEMPT)
			prev->slice_start_exec = prev->stats.sum_exec_ns;
		update_slice_end(rq);
		spin_unlock_no_resched(&rq->lock);
	}
	local_irq_restore(flags);
}

static void run_running_hooks(void)
{
	struct thread *t = current;

	if (!t->hooks_slept)
		return;
	t->hooks_slept = false;
	/* The contract (sched.h): the thread's own context, nothing held. */
	WARN_ON_ONCE(irqs_disabled() || preempt_count());
	t->in_hook = true;
	for (unsigned int i = t->nr_hooks; i-- > 0;)
		if (t->hook_ops[i]->running)
			t->hook_ops[i]->running(t, t->hook_data[i]);
	t->in_hook = false;
}

void schedule(void)
{
	__schedule(SCHED_VOLUNTARY);
	run_running_hooks();
}

void yield(void)
{
	schedule(); /* state RUNNING: requeued behind its equals */
}

void sched_resched_here(void)
{
	assert(irqs_disabled());
	this_cpu_write(sched.need_resched, true);
}

void preempt_schedule(void)
{
	do {
		preempt_disable();
		preempt_enable_no_resched();
		__schedule(SCHED_PREEMPT);
	} while (need_resched());
}

void preempt_schedule_irq(void)
{
	if (!sched_ready || preempt_count() != 0)
		return;
	while (need_resched())
		__schedule(SCHED_PREEMPT);
}

/* The first code every new thread runs (from thread_start in switch.S). */
__noreturn void sched_thread_start(void);
__noreturn void sched_thread_start(void)
{
	finish_switch();
	local_irq_enable();
	struct thread *t = current;
	int code = t->fn(t->arg);

	thread_exit(code);
}

/* ---- slices and balancing ------------------------------------------------ */

static void balance(struct rq *rq);

bool sched_clock_event(void)
{
	struct rq *rq = this_rq();

	if (!sched_ready)
		return false;
	spin_lock(&rq->lock);
	bool due = ktime_get_ns() >= rq->slice_end;

	/* (With nohz=off this runs on every tick, as the old tick did.) */
	if (due || clockevent_periodic()) {
		update_curr(rq);
		if (slice_over(rq)) {
			struct thread *c = rq->curr;

			trace_event(TR_SLICE_END, c, c->stats.sum_exec_ns - c->slice_start_exec, 0);
			this_cpu_write(sched.need_resched, true);
			/* No more events for this slice: __schedule() sets the
			 * next one (preemption may be off for a while). */
			WRITE_ONCE(rq->slice_end, KTIME_MAX);
		} else {
			update_slice_end(rq); /* it moved later (a thread left) */
		}
	}
	spin_unlock_no_resched(&rq->lock);
	return due;
}

u64 sched_next_event(void)
{
	return READ_ONCE(this_rq()->slice_end);
}

/* Every BALANCE_INTERVAL_NS while the CPU is busy. */
static void balance_timer_fn(struct timer_list *t)
{
	struct rq *rq = container_of(t, struct rq, balance_timer);

	/* CPU hotplug moved the timer off its offline CPU: let it lapse
	 * there; the CPU arms it again when it is busy again. */
	if (rq->cpu != smp_processor_id())
		return;
	balance(rq);
	if (READ_ONCE(rq->curr) != rq->idle)
		add_timer(t, ktime_get_ns() + BALANCE_INTERVAL_NS);
}

static void double_rq_lock(struct rq *a, struct rq *b)
{
	if (a->cpu < b->cpu) {
		spin_lock(&a->lock);
		spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
	} else {
		spin_lock(&b->lock);
		spin_lock_nested(&a->lock, SINGLE_DEPTH_NESTING);
	}
}

static void double_rq_unlock(struct rq *a, struct rq *b)
{
	spin_unlock_no_resched(&a->lock);
	spin_unlock_no_resched(&b->lock);
}

/* Take queued (not running) thread t off src for dst's CPU, on no run
 * queue yet; both locks held, not asserted here: move_queued() asserts
 * both, and idle_balance() holds dst's (its own CPU's) and took src's by
 * trylock. */
static void take_queued(struct rq *src, struct rq *dst, struct thread *t)
{
	dequeue(src, t);
	t->vruntime = dst->min_vruntime + vruntime_lead(t, src);
	t->cpu = dst->cpu;
	t->stats.nr_migrations++;
}

/* Move queued (not running) thread t from src to dst; both locks held. */
static void move_queued(struct rq *src, struct rq *dst, struct thread *t)
{
	assert_spin_locked(&src->lock);
	assert_spin_locked(&dst->lock);
	update_curr(dst); /* (preempt_or_share() compares with dst's current) */
	take_queued(src, dst, t);
	enqueue(dst, t, QUEUE_BEHIND_EQUALS);
	preempt_or_share(dst, t);
}

/* A queued fair thread on src that may run on dst's CPU, or NULL. */
static struct thread *find_movable(struct rq *src, struct rq *dst)
{
	struct thread *t;

	list_for_each_entry_reverse(t, &src->fair, run_link)
		if (cpu_allowed(t, dst->cpu) && !t->on_cpu)
			return t;
	return NULL;
}

/* Periodic balance: pull one thread from the busiest CPU if it has at least
 * two more runnable threads than this one. Interrupts off (its timer). */
static void balance(struct rq *rq)
{
	unsigned int cpu, busiest_n = 0;
	struct rq *busiest = NULL;

	for_each_cpu(cpu, &cpu_active_mask) {
		struct rq *o = cpu_rq(cpu);
		unsigned int n = READ_ONCE(o->nr_queued) + (READ_ONCE(o->curr) != o->idle);

		if (o != rq && n > busiest_n) {
			busiest = o;
			busiest_n = n;
		}
	}
	unsigned int mine = READ_ONCE(rq->nr_queued) + (READ_ONCE(rq->curr) != rq->idle);

	if (!busiest || busiest_n < mine + 2 || !cpumask_test_cpu(rq->cpu, &cpu_active_mask))
		return;
	double_rq_lock(rq, busiest);
	struct thread *t = find_movable(busiest, rq);

	if (t)
		move_queued(busiest, rq, t);
	double_rq_unlock(rq, busiest);
}

/* About to idle: take a queued thread from another CPU (trylock, since
 * our lock is held). Returns it dequeued and ours, or NULL. */
static struct thread *idle_balance(struct rq *rq)
{
	unsigned int cpu;

	if (!cpumask_test_cpu(rq->cpu, &cpu_active_mask))
		return NULL;
	for_each_cpu(cpu, &cpu_active_mask) {
		struct rq *o = cpu_rq(cpu);

		if (o == rq || !READ_ONCE(o->nr_queued) || !spin_trylock(&o->lock))
			continue;
		struct thread *t = find_movable(o, rq);

		if (t)
			take_queued(o, rq, t); /* ours to run next */
		spin_unlock_no_resched(&o->lock);
		if (t)
			return t;
	}
	return NULL;
}

/*
 * t was switched out on a CPU it may no longer use: requeue it elsewhere.
 * Until this runs, t is on no run queue with t->migrate set, and wake-ups
 * only set its state (wake_up_thread()). Checking on_rq instead is not
 * enough: a wake-up could activate it, it could run and block again on
 * another CPU, and still be switching out there (its context not saved)
 * when we looked.
 */
static void migrate_away(struct thread *t)
{
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);

	if (WARN_ONCE(!t->migrate || t->on_rq, "migrate_away(%s): not waiting for migration",
		      t->name)) {
		unlock_thread_rq(t, rq, flags);
		return;
	}
	t->migrate = false;
	rq = place_and_activate(rq, t);
	unlock_thread_rq(t, rq, flags);
}

/* ---- hooks -------------------------------------------------------------- */

int sched_hook_add(const struct sched_hook_ops *ops, void *data)
{
	struct thread *t = current;

	if (t->nr_hooks == SCHED_MAX_HOOKS)
		return -ENOSPC;
	unsigned long flags = local_irq_save(); /* schedule() reads the array */

	WRITE_ONCE(t->hook_ops[t->nr_hooks], ops);
	WRITE_ONCE(t->hook_data[t->nr_hooks], data);
	WRITE_ONCE(t->nr_hooks, t->nr_hooks + 1);
	local_irq_restore(flags);
	return 0;
}

void *sched_hook_data(const struct thread *t, const struct sched_hook_ops *ops)
{
	unsigned int n = READ_ONCE(t->nr_hooks);

	for (unsigned int i = 0; i < n && i < SCHED_MAX_HOOKS; i++)
		if (READ_ONCE(t->hook_ops[i]) == ops)
			return READ_ONCE(t->hook_data[i]);
	return NULL;
}

void sched_hook_remove(const struct sched_hook_ops *ops)
{
	struct thread *t = current;
	unsigned long flags = local_irq_save();

	for (unsigned int i = 0; i < t->nr_hooks; i++) {
		if (t->hook_ops[i] != ops)
			continue;
		for (; i + 1 < t->nr_hooks; i++) {
			WRITE_ONCE(t->hook_ops[i], t->hook_ops[i + 1]);
			WRITE_ONCE(t->hook_data[i], t->hook_data[i + 1]);
		}
		WRITE_ONCE(t->nr_hooks, t->nr_hooks - 1);
		break;
	}
	local_irq_restore(flags);
}

/* ---- set-up ------------------------------------------------------------- */

void sched_thread_init(struct thread *t, const char *name)
{
	static u32 next_tid;

	t->tid = __atomic_add_fetch(&next_tid, 1, __ATOMIC_RELAXED);
	t->state = THREAD_BLOCKED;
	t->policy = SCHED_CLASS_FAIR;
	sched_set_weight(t, 0);
	INIT_LIST_HEAD(&t->run_link);
	spin_lock_init(&t->pi_lock, "pi_lock");
	thread_set_cpus_allowed(t, &cpu_possible_mask);
	t->cpu = smp_processor_id(); /* where it is first queued, unless placed */
	strscpy(t->name, name, sizeof(t->name));
	init_completion(&t->exited);
}

void sched_thread_place(struct thread *t, const struct cpumask *allowed)
{
	/* Not started: nothing else looks at these fields yet. */
	WARN_ON(t->on_rq || t->state != THREAD_BLOCKED || cpumask_empty(allowed));
	thread_set_cpus_allowed(t, allowed);
	if (!cpumask_test_cpu(t->cpu, allowed))
		t->cpu = cpumask_first(allowed);
}

void sched_thread_drop_hooks(void)
{
	unsigned long flags = local_irq_save(); /* schedule() reads the array */

	WRITE_ONCE(current->nr_hooks, 0);
	local_irq_restore(flags);
}

/* Build the frame switch.S pops for a thread that never ran. */
void sched_thread_stack_init(struct thread *t)
{
	u64 *sp = (u64 *)(t->stack + KSTACK_SIZE);

	*--sp = 0;		   /* alignment: thread_start runs with rsp % 16 == 0 */
	*--sp = (u64)thread_start; /* return address */
	for (int i = 0; i < 6; i++)
		*--sp = 0; /* rbp, rbx, r12, r13, r14, r15 */
	t->ctx_rsp = (u64)sp;
	t->ctx_seal[0] = 0;
	t->ctx_seal[1] = (u64)thread_start;
}

/* Every run queue is usable from the start, for every CPU number, started
 * or not: a CPU the host may plug in later is asked for its figures (the
 * shell's `cpus`) long before it runs. */
static void init_runqueues(void)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		struct thread *idle = &idle_threads[cpu];

		spin_lock_init(&rq->lock, "rq->lock");
		INIT_LIST_HEAD(&rq->fifo);
		INIT_LIST_HEAD(&rq->fair);
		rq->cpu = cpu;
		rq->idle = idle;
		rq->slice_end = KTIME_MAX;
		timer_setup(&rq->balance_timer, balance_timer_fn);
		sched_thread_init(idle, "idle");
		idle->name[4] = '/';
		scnprintf(idle->name + 5, sizeof(idle->name) - 5, "%u", cpu);
		idle->policy = SCHED_CLASS_IDLE; /* runs on the CPU's boot stack */
	}
}

/* On the CPU itself, each time it starts: the idle thread becomes current. */
static void init_this_cpu(void)
{
	unsigned int cpu = smp_processor_id();
	struct rq *rq = cpu_rq(cpu);
	struct thread *idle = &idle_threads[cpu];
	unsigned long flags = local_irq_save();

	idle->stack = this_cpu_ptr()->boot_stack ? this_cpu_ptr()->boot_stack : (u8 *)boot_stack;
	idle->state = THREAD_RUNNING;
	idle->cpu = cpu;
	idle->on_rq = true;
	idle->on_cpu = true;
	thread_set_cpus_allowed(idle, cpumask_of(cpu));
	rq->curr = idle;
	rq->idle_since = ktime_get_ns();
	rq->slice_end = KTIME_MAX; /* idle: no slice */
	this_cpu_write(sched.curr_thread, idle);
	this_cpu_write(sched.preempt_count, 0);
	this_cpu_write(sched.idle_seq, 1); /* running (odd) */
	lockdep_reset_cpu(idle);	   /* a CPU coming back holds nothing */
	local_irq_restore(flags);
}

void sched_init(void)
{
	init_runqueues();
	init_this_cpu();
	WRITE_ONCE(sched_ready, true);
}

void sched_init_ap(void)
{
	init_this_cpu();
}

/*
 * The idle period's mark for smp_wait_irqs_off_sections(): idle_seq is even
 * only while this CPU is halted in cpu_idle(), where it is in no section
 * with interrupts off that another CPU must wait out. Both increments are
 * locked (full barriers): a CPU that changed what such sections read (the
 * active mask) and then reads an even count here knows that this CPU will
 * read the new value when an interrupt ends its halt (irq_enter() marks
 * the end before the handler runs). Interrupts off.
 */
static void sched_idle_enter(void)
{
	assert(irqs_disabled());
	__atomic_add_fetch(&this_cpu_ptr()->sched.idle_seq, 1, __ATOMIC_SEQ_CST);
}

void sched_idle_exit(void)
{
	struct sched_cpu *sc = &this_cpu_ptr()->sched;

	assert(irqs_disabled());
	__atomic_add_fetch(&sc->idle_seq, 1, __ATOMIC_SEQ_CST);
	/* After the increment: a shootdown that saw us idle set this first. */
	if (unlikely(READ_ONCE(sc->flush_on_wake))) {
		__atomic_store_n(&sc->flush_on_wake, 0, __ATOMIC_SEQ_CST);
		local_flush_tlb_all();
		sc->wake_flushes++;
	}
}

bool sched_cpu_idle_halted(unsigned int cpu)
{
	return !(__atomic_load_n(&per_cpu_ptr(cpu)->sched.idle_seq, __ATOMIC_SEQ_CST) & 1);
}

bool sched_cpu_flush_tlb_on_wake(unsigned int cpu)
{
	struct sched_cpu *sc = &per_cpu_ptr(cpu)->sched;

	/* Locked, then the look at idle_seq: if it is even, the CPU's
	 * sched_idle_exit() increments it after this and then sees the flag
	 * (Dekker, as in smp_wait_irqs_off_sections()). If the CPU is not
	 * idle, the flag costs it one needless flush when it next wakes. */
	__atomic_store_n(&sc->flush_on_wake, 1, __ATOMIC_SEQ_CST);
	return sched_cpu_idle_halted(cpu);
}

__noreturn void cpu_idle(void)
{
	for (;;) {
		local_irq_disable();
		if (cpu_should_die())
			cpu_play_dead(); /* CPU hotplug: this CPU's end */
		if (need_resched()) {
			local_irq_enable();
			schedule();
			continue;
		}
		if (bh_pending()) { /* e.g. a CPU just started, or work left by a run */
			bh_idle_run();
			local_irq_enable();
			continue;
		}
		/* The CPU's next event, exactly (or none): a deadline that
		 * moved later while it was busy is not left to wake it. */
		clockevent_idle();
		sched_idle_enter();
		/* sti; hlt: no interrupt can slip in between the two. */
		__asm__ volatile("sti; hlt" ::: "memory");
		local_irq_disable();
		if (!(this_cpu_read(sched.idle_seq) & 1)) /* woken by an NMI */
			sched_idle_exit();
	}
}

void sched_get_rq_stats(unsigned int cpu, struct rq_stats *st)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);

	st->nr_switches = rq->nr_switches;
	st->nr_running = rq_nr_running(rq);
	st->idle_ns = rq->idle_ns + (rq->curr == rq->idle ? ktime_get_ns() - rq->idle_since : 0);
	spin_unlock_irqrestore(&rq->lock, flags);
}

static const char *const thread_state_names[] = {
	[THREAD_RUNNING] = "running",
	[THREAD_BLOCKED] = "blocked",
	[THREAD_DEAD] = "dead",
}; /* scripts/gdb/baton.py reads this table too */

const char *thread_state_name(int state)
{
	if (state < 0 || state >= (int)ARRAY_SIZE(thread_state_names))
		return "?";
	return thread_state_names[state];
}

static void dump_thread(struct thread *t, void *unused)
{
	printk(KERN_ERR "  %-16s %-8s cpu%u %s%s hooks %u vcsw %lu ivcsw %lu\n", t->name,
	       thread_state_name(t->state), t->cpu, t->on_rq ? "on_rq " : "",
	       t->on_cpu ? "on_cpu" : "", t->nr_hooks, (unsigned long)t->stats.nvcsw,
	       (unsigned long)t->stats.nivcsw);
	if (!t->on_cpu && t->ctx_rsp) {
		/* Switched out: its saved frame (switch.S: rbp at +40) starts
		 * the backtrace. */
		u64 *frame = (u64 *)t->ctx_rsp;

		show_backtrace(frame[5], "    ");
	}
}

/* Lock-free on purpose: it runs from an NMI, perhaps with threads_lock or
 * a run-queue lock held. */
void sched_dump_threads(void)
{
	printk(KERN_ERR "threads:\n");
	kthread_for_each_unlocked(dump_thread, NULL);
}

/* ---- CPU hotplug ---------------------------------------------------------- */

void sched_cpu_deactivate(unsigned int cpu)
{
	clear_bit(cpu, cpumask_bits(&cpu_active_mask));
	/* Wake-ups place threads with interrupts off: once every CPU has taken
	 * an interrupt, none is still placing one by the old mask. */
	smp_wait_irqs_off_sections();
}

void sched_cpu_activate(unsigned int cpu)
{
	set_bit(cpu, cpumask_bits(&cpu_active_mask));
}

/* On the dying CPU, interrupts off, its stopper current: move every queued
 * thread to an active CPU it may use (or any, keeping its affinity). */
void sched_cpu_dying(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	assert(irqs_disabled() && cpu == smp_processor_id());
	for (;;) {
		delay_point(DP_SCHED_DYING);
		spin_lock(&rq->lock);
		struct thread *t = list_first_entry_or_null(&rq->fifo, struct thread, run_link);

		if (!t)
			t = list_first_entry_or_null(&rq->fair, struct thread, run_link);
		if (!t) {
			spin_unlock_no_resched(&rq->lock);
			break;
		}
		/* Hold rq->lock throughout, so t stays queued here (and alive);
		 * the locks that go before it in the order are only tried. */
		if (!spin_trylock(&t->pi_lock)) {
			spin_unlock_no_resched(&rq->lock);
			cpu_relax();
			continue;
		}
		struct rq *dst = cpu_rq(select_cpu(t));

		if (dst->cpu > cpu)
			spin_lock_nested(&dst->lock, SINGLE_DEPTH_NESTING);
		else if (!spin_trylock(&dst->lock)) {
			spin_unlock_no_resched(&t->pi_lock);
			spin_unlock_no_resched(&rq->lock);
			cpu_relax();
			continue;
		}
		move_queued(rq, dst, t);
		/* pi_lock first: once dst->lock goes, t may run there, exit and
		 * be freed (unlock_thread_rq()). */
		spin_unlock_no_resched(&t->pi_lock);
		spin_unlock_no_resched(&dst->lock);
		spin_unlock_no_resched(&rq->lock);
	}
}

/* After the CPU stopped: nothing may be left on its run queue. */
void sched_cpu_dead(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);

	WARN_ONCE(rq->nr_queued, "cpu%u went offline with %u threads queued", cpu, rq->nr_queued);
	spin_unlock_irqrestore(&rq->lock, flags);
}
