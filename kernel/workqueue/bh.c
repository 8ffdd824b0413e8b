/* kernel/workqueue/bh.c - BH pools: the workqueue's bottom halves.
 *
 * Each CPU has two BH pools (normal and high priority, the pools of
 * system_bh_wq and system_bh_highpri_wq and of every WQ_BH workqueue).
 * A BH pool has no threads: one pseudo-worker (pool->bh_worker) stands for
 * the CPU's BH context, and its items run in a "BH run" on that CPU:
 *
 *   - at the exit of an interrupt (irq_exit(), kernel/hardirq.h), on the
 *     CPU's BH stack, with interrupts on, if the interrupted code was not
 *     a BH run and had not disabled BHs;
 *   - in the idle loop, before the CPU halts;
 *   - where local_bh_enable() (or the end of the continuation below) lets
 *     pending work in.
 *
 * Queueing a BH item wakes no thread: it kicks the pool (kick_bh_pool()),
 * which sets the pool's bit in its CPU's bh.pending and, unless the
 * queuer is on that CPU in an interrupt handler or a BH run (whose end
 * looks at the bits again), sends the CPU a BH kick IPI, whose exit runs
 * it. From thread context on the same CPU that is a self-IPI: it arrives
 * as soon as interrupts are on.
 *
 * Concurrency management is the pools' usual: the pseudo-worker counts in
 * nr_running while it runs, so an item queued meanwhile is taken by the
 * same run (keep_working()), and flush colours, flush barriers, delayed
 * items and cancelling are the same code as for any pool.
 *
 * The budget. A run takes at most BH_BATCH items from a pool before it
 * looks at the CPU's other pool, and makes at most BH_RESTARTS such passes,
 * within BH_RUN_NS (Linux's bh_worker() and __do_softirq() limits). Work
 * left then is deferred: the pool's continuation item (bh_continue, on
 * system_wq at the pool's CPU) runs it from a worker thread, in BH context,
 * one budget per item, queueing itself again behind other work until the
 * pool is empty. Until then interrupt exits leave the pool alone
 * (bh_deferred), so that an interrupt flood cannot keep the CPU in BH
 * runs: the scheduler shares the CPU between the continuation's worker and
 * the other threads (Linux's ksoftirqd, as a work item).
 *
 * One runner per pool. bh_running (pool->lock) is taken by whichever run
 * has the pseudo-worker: the CPU's own, the continuation's, or a drain's.
 * Another runner that finds it taken leaves; the runner that has it looks
 * at the worklist again when it lets go and kicks the pool if work is left.
 *
 * CPU hotplug. BH pools are never handed to a trustee: a dying CPU's
 * dying step marks its BH pools disassociated (on the CPU, interrupts off:
 * it runs no BH after that), and from then on work on them is drained by
 * a BH item on a live CPU: the pool's bh_drain item, queued on
 * bh_drain_wq (high-priority BH) there, runs the dead pool's items in that CPU's BH
 * context, in queueing order, and queues itself again while work is left.
 * The CPU's "workqueue:bh" step (after its death, on the CPU calling
 * cpu_down()) drains them once more by a BH item of its own on that CPU
 * and waits for it (the pool's drain may wait behind other BH work where it
 * went), so that cpu_down() returns with nothing left of the CPU's bottom
 * halves. An item queued to
 * an offline CPU's BH pool later is not refused and not left: the queuer
 * sees the pool disassociated and queues the drain (queue.c), so it runs
 * on a live CPU, as per-CPU thread items do through their trustee. When
 * the CPU comes back, its starting step associates the pools again on the
 * CPU itself (interrupts off) and kicks them if work waits.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/bottom_half.h"
#include "kernel/hotplug.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/workqueue/internal.h"
#include "lib/errno.h"

#define BH_RUN_NS   (2 * NSEC_PER_MSEC) /* a run's time (Linux: 2 ms) */
#define BH_RESTARTS 10			/* passes over the CPU's pools in a run */
#define BH_BATCH    10			/* items a pass takes from one pool */

struct worker_pool bh_pools[NR_CPUS][NR_STD_POOLS];
struct workqueue_struct *system_bh_wq;
struct workqueue_struct *system_bh_highpri_wq;
/* The drains' own (high priority BH): an item it drains may be of any BH
 * workqueue, system_bh_highpri_wq's included, so that the drain, an item
 * holding its workqueue for the lock validator, runs it nested. */
struct workqueue_struct *bh_drain_wq;

/* Each CPU's BH stack, for runs at interrupt exit: allocated with the pools
 * for the CPUs up at boot, by the "workqueue:bh" step for the others (kept
 * when the CPU goes). Set at boot or under the hotplug lock, before the CPU
 * starts; read by its CPU. */
static void *bh_stacks[NR_CPUS];

/* Who runs a pool: the CPU's own run, its continuation, or a live CPU's
 * drain of an offline CPU's pool. */
enum bh_runner { BH_OWN_RUN, BH_CONTINUATION, BH_DRAIN };

static void bh_continue_fn(struct work_struct *w);
static void bh_drain_fn(struct work_struct *w);

int init_bh_pool(struct worker_pool *pool, unsigned int index)
{
	struct worker *worker = kzalloc(sizeof(*worker));

	if (!worker)
		return -ENOMEM;
	INIT_LIST_HEAD(&worker->node);
	INIT_LIST_HEAD(&worker->idle_entry);
	INIT_LIST_HEAD(&worker->scheduled);
	INIT_LIST_HEAD(&worker->hentry);
	worker->pool = pool;
	worker->flags = WORKER_PREP;
	pool->bh = true;
	pool->hog_watched = false;
	pool->bh_index = index;
	pool->bh_worker = worker;
	list_add(&worker->node, &pool->workers);
	pool->nr_workers = 1;
	pool->nr_idle = 1; /* the pseudo-worker: "idle" between runs */
	WRITE_ONCE(pool->disassociated, !cpu_online(pool->cpu));
	INIT_WORK(&pool->bh_continue, bh_continue_fn);
	INIT_WORK(&pool->bh_drain, bh_drain_fn);
	/* The CPUs up at boot came up before the pools (their "workqueue:bh"
	 * step did not run): their stacks come from here. */
	if (cpu_online(pool->cpu) && !bh_stacks[pool->cpu])
		bh_stacks[pool->cpu] = kstack_alloc("bh");
	return 0;
}

/* ---- kicking --------------------------------------------------------------- */

static void bh_mark_pending(struct worker_pool *pool)
{
	__atomic_fetch_or(&per_cpu_ptr(pool->cpu)->bh.pending, 1u << pool->bh_index,
			  __ATOMIC_SEQ_CST);
}

bool kick_bh_pool(struct worker_pool *pool)
{
	unsigned int cpu = pool->cpu;

	assert_spin_locked(&pool->lock);
	if (pool->disassociated)
		return false;
	if (pool->bh_running || pool->bh_deferred)
		return true; /* the runner looks again when it lets go */
	bh_mark_pending(pool);
	/* On the pool's CPU, an interrupt's exit, a BH run's end or
	 * local_bh_enable() looks at the bits: no interrupt needed. */
	if (cpu != smp_processor_id() || (!in_hardirq() && !bh_blocked()))
		smp_send_bh_kick(cpu);
	return true;
}

/* A live CPU to drain on: this one if its BH pools run, else the first
 * such online CPU. Interrupts off or BHs blocked (we stay on this CPU). */
static unsigned int bh_drain_cpu(void)
{
	unsigned int cpu = smp_processor_id();

	if (cpu_online(cpu) && !READ_ONCE(bh_pools[cpu][WQ_POOL_HIGHPRI].disassociated))
		return cpu;
	for_each_online_cpu(cpu)
		if (!READ_ONCE(bh_pools[cpu][WQ_POOL_HIGHPRI].disassociated))
			return cpu;
	return smp_processor_id();
}

void queue_bh_drain(struct worker_pool *pool)
{
	unsigned long flags = local_irq_save();

	queue_work_on(bh_drain_cpu(), bh_drain_wq, &pool->bh_drain);
	local_irq_restore(flags);
}

/* ---- runs ------------------------------------------------------------------ */

/* Run pool's items: up to BH_BATCH, or until the worklist is empty or the
 * deadline passes. BH context (BH_OFFSET), on the pool's CPU unless who is
 * BH_DRAIN. True if work is left for another pass. */
static bool bh_pool_run(struct worker_pool *pool, u64 deadline, enum bh_runner who)
{
	struct worker *worker = pool->bh_worker;
	unsigned int n = BH_BATCH;
	int count = preempt_count(); /* what its items start with */
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	assert(in_bh_run());
	if (pool->bh_running || !need_more_worker(pool) ||
	    (who == BH_OWN_RUN && pool->bh_deferred) || (who == BH_DRAIN) != pool->disassociated) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return false;
	}
	pool->bh_running = true;
	pool->nr_idle = 0;
	worker->bh_run_cpu = smp_processor_id();
	worker->bh_item_count = count;
	void *outer = this_cpu_read(bh.worker);

	this_cpu_write(bh.worker, worker);
	this_cpu_write(bh.depth, this_cpu_read(bh.depth) + 1);
	trace_event(TR_BH_RUN, current, (u64)pool->id, who);
	worker_clr_flags(worker, WORKER_PREP);
	do
		worker_run_first(worker);
	while (keep_working(pool) && --n && ktime_get_ns() < deadline);
	worker_set_flags(worker, WORKER_PREP);
	trace_event(TR_BH_RUN_END, current, (u64)pool->id, !list_empty(&pool->worklist));
	this_cpu_write(bh.depth, this_cpu_read(bh.depth) - 1);
	this_cpu_write(bh.worker, outer);
	pool->nr_idle = 1;
	pool->bh_running = false;
	if (who == BH_DRAIN)
		pool->nr_bh_drains++;
	bool more = need_more_worker(pool);

	spin_unlock_irqrestore(&pool->lock, flags);
	return more;
}

/* The CPU's work left over the budget goes to pool's continuation. In a
 * run; interrupts off. */
static void bh_defer(struct worker_pool *pool)
{
	assert(irqs_disabled() && in_bh_run());
	spin_lock(&pool->lock);
	bool queue = !pool->bh_deferred && !pool->disassociated && need_more_worker(pool);

	if (queue)
		pool->bh_deferred = true;
	spin_unlock_no_resched(&pool->lock);
	if (queue)
		queue_work_on(pool->cpu, system_wq, &pool->bh_continue);
}

/* A BH run of this CPU's pending pools. Interrupts off on entry and on
 * return (on only while items run); not in a BH run, BHs not disabled, not
 * in an interrupt handler. */
static void bh_run(void)
{
	struct percpu *pc = this_cpu_ptr();
	unsigned int cpu = smp_processor_id();
	u64 deadline = ktime_get_ns() + BH_RUN_NS;
	unsigned int restarts = BH_RESTARTS;
	u32 pending;

	assert(irqs_disabled() && !bh_blocked());
	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) + BH_OFFSET);
	pc->bh.runs++;
	while ((pending = __atomic_exchange_n(&pc->bh.pending, 0, __ATOMIC_SEQ_CST))) {
		u32 again = 0;

		local_irq_enable();
		for (unsigned int i = NR_STD_POOLS; i-- > 0;) /* high priority first */
			if ((pending & (1u << i)) &&
			    bh_pool_run(&bh_pools[cpu][i], deadline, BH_OWN_RUN))
				again |= 1u << i;
		local_irq_disable();
		if (again)
			__atomic_fetch_or(&pc->bh.pending, again, __ATOMIC_SEQ_CST);
		if (!--restarts || ktime_get_ns() >= deadline)
			break;
	}
	pending = __atomic_exchange_n(&pc->bh.pending, 0, __ATOMIC_SEQ_CST);
	if (pending) {
		pc->bh.deferrals++;
		for (unsigned int i = 0; i < NR_STD_POOLS; i++)
			if (pending & (1u << i))
				bh_defer(&bh_pools[cpu][i]);
	}
	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) - BH_OFFSET);
}

static void bh_run_on_stack(void *unused)
{
	bh_run();
}

void bh_irq_exit(void)
{
	void *stack = bh_stacks[smp_processor_id()];

	if (stack)
		call_on_stack(stack, bh_run_on_stack, NULL);
	else
		bh_run();
}

void bh_idle_run(void)
{
	if (!bh_blocked())
		bh_run();
}

/* A thread's BH section ends (local_bh_enable(), a continuation): run what
 * became pending meanwhile if nothing else will. */
static void bh_section_end(unsigned int offset)
{
	barrier();
	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) - offset);
	if (unlikely(bh_pending()) && !bh_blocked() && !in_hardirq() && !irqs_disabled()) {
		local_irq_disable();
		bh_run();
		local_irq_enable();
	}
	preempt_check_resched();
}

void local_bh_enable(void)
{
	if (WARN_ONCE((preempt_count() & BH_MASK) < BH_DISABLE_OFFSET,
		      "local_bh_enable() without local_bh_disable() (preempt_count %#x): ignored",
		      preempt_count()))
		return;
	bh_section_end(BH_DISABLE_OFFSET);
}

/* The continuation: a worker thread runs one budget of pool's work in BH
 * context, and queues itself again behind other work while work is left. */
static void bh_continue_fn(struct work_struct *w)
{
	struct worker_pool *pool = container_of(w, struct worker_pool, bh_continue);
	unsigned int restarts = BH_RESTARTS;
	bool more = false;

	this_cpu_write(sched.preempt_count, this_cpu_read(sched.preempt_count) + BH_OFFSET);
	u64 deadline = ktime_get_ns() + BH_RUN_NS;

	/* Run by a worker not yet back on the pool's CPU (its CPU went and
	 * came back): not here; the requeue below sends it there. */
	if (smp_processor_id() == pool->cpu)
		do
			more = bh_pool_run(pool, deadline, BH_CONTINUATION);
		while (more && --restarts && ktime_get_ns() < deadline);
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	pool->nr_bh_continued++;
	more = need_more_worker(pool);
	/* Its CPU went offline meanwhile (a trustee ran this): the drain
	 * takes over. */
	bool drain = pool->disassociated && more;

	if (!more || drain)
		pool->bh_deferred = false;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (drain)
		queue_bh_drain(pool);
	else if (more)
		queue_work_on(pool->cpu, system_wq, w);
	bh_section_end(BH_OFFSET);
}

/* The drain: a BH item on a live CPU runs an offline CPU's BH pool. */
static void bh_drain_fn(struct work_struct *w)
{
	struct worker_pool *pool = container_of(w, struct worker_pool, bh_drain);
	u64 deadline = ktime_get_ns() + BH_RUN_NS;
	bool more = false;

	do
		more = bh_pool_run(pool, deadline, BH_DRAIN);
	while (more && ktime_get_ns() < deadline);
	unsigned long flags = spin_lock_irqsave(&pool->lock);
	bool again = need_more_worker(pool) && !kick_bh_pool(pool);

	spin_unlock_irqrestore(&pool->lock, flags);
	if (again)
		queue_bh_drain(pool);
}

/* ---- CPU hotplug ------------------------------------------------------------ */

/* The CPU's dying step (trustee.c's workqueue_cpu_dying()): on the CPU,
 * interrupts off; it runs no BH from here on. */
void bh_cpu_dying(unsigned int cpu)
{
	assert(irqs_disabled() && smp_processor_id() == cpu);
	for (unsigned int i = 0; i < NR_STD_POOLS; i++) {
		struct worker_pool *pool = &bh_pools[cpu][i];

		spin_lock(&pool->lock);
		WRITE_ONCE(pool->disassociated, true);
		bool drain = need_more_worker(pool);

		spin_unlock_no_resched(&pool->lock);
		if (drain)
			queue_bh_drain(pool);
	}
	this_cpu_write(bh.pending, 0);
}

int workqueue_cpu_starting(unsigned int cpu)
{
	assert(irqs_disabled() && smp_processor_id() == cpu);
	this_cpu_write(bh.pending, 0);
	this_cpu_write(bh.worker, NULL);
	if (!READ_ONCE(bh_pools[cpu][0].bh_worker))
		return 0; /* at boot, before workqueue_init(): it sets the pools up */
	for (unsigned int i = 0; i < NR_STD_POOLS; i++) {
		struct worker_pool *pool = &bh_pools[cpu][i];

		spin_lock(&pool->lock);
		WRITE_ONCE(pool->disassociated, false);
		/* For the idle loop, which looks before it first halts (a drain
		 * under way kicks the pool when it ends). */
		if (need_more_worker(pool) && !pool->bh_running && !pool->bh_deferred)
			bh_mark_pending(pool);
		spin_unlock_no_resched(&pool->lock);
	}
	return 0;
}

int workqueue_bh_prepare(unsigned int cpu)
{
	might_sleep();
	assert(cpus_locked());
	if (!bh_stacks[cpu])
		bh_stacks[cpu] = kstack_alloc("bh");
	return bh_stacks[cpu] ? 0 : -ENOMEM;
}

/* The dead step's own drain, on the caller's CPU: not pool->bh_drain,
 * which may wait behind other BH work on the CPU it went to. */
struct bh_dead_drain {
	struct work_struct work;
	struct worker_pool *pool;
};

static void bh_dead_drain_fn(struct work_struct *w)
{
	struct worker_pool *pool = container_of(w, struct bh_dead_drain, work)->pool;
	u64 deadline = ktime_get_ns() + BH_RUN_NS;

	while (bh_pool_run(pool, deadline, BH_DRAIN) && ktime_get_ns() < deadline)
		;
}

int workqueue_bh_dead(unsigned int cpu)
{
	struct bh_dead_drain d;

	might_sleep();
	INIT_WORK(&d.work, bh_dead_drain_fn);
	for (unsigned int i = 0; i < NR_STD_POOLS; i++) {
		d.pool = &bh_pools[cpu][i];
		for (;;) {
			unsigned long flags = spin_lock_irqsave(&d.pool->lock);
			bool busy = need_more_worker(d.pool) || d.pool->bh_running;

			spin_unlock_irqrestore(&d.pool->lock, flags);
			if (!busy)
				break;
			flags = local_irq_save();
			queue_work_on(bh_drain_cpu(), bh_drain_wq, &d.work);
			local_irq_restore(flags);
			flush_work(&d.work);
		}
	}
	return 0;
}

void bh_get_stats(unsigned int cpu, struct bh_stats *st)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	st->runs = pc ? READ_ONCE(pc->bh.runs) : 0;
	st->deferrals = pc ? READ_ONCE(pc->bh.deferrals) : 0;
	st->continued = st->drains = 0;
	for (unsigned int i = 0; i < NR_STD_POOLS; i++) {
		struct worker_pool *pool = &bh_pools[cpu][i];
		unsigned long flags = spin_lock_irqsave(&pool->lock);

		st->continued += pool->nr_bh_continued;
		st->drains += pool->nr_bh_drains;
		spin_unlock_irqrestore(&pool->lock, flags);
	}
}
