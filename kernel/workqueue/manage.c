/* kernel/workqueue/manage.c - where workers come from: making one (and
 * attaching it to its pool), the manager role that makes one for a pool
 * about to be left without an idle worker, the mayday timer that calls the
 * rescuers when none can be made, and the rescuers themselves (a thread
 * per WQ_MEM_RECLAIM workqueue, made with it). workqueue.h ("Managing
 * workers; rescuers") says how they fit.
 *
 * Called by worker.c (a worker turning manager), trustee.c (the trustee
 * managing a disassociated pool, the online step's bound workers), queue.c
 * (mayday_watch) and pool.c (a pool's first worker, a workqueue's
 * rescuer). Its own fields: the pool's manager and mayday state, and
 * wq->maydays (wq_mayday_lock).
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/workqueue/internal.h"

#define MAYDAY_INITIAL_TIMEOUT_NS (10 * NSEC_PER_MSEC) /* creation may fail this long */
#define MAYDAY_INTERVAL_NS	  (100 * NSEC_PER_MSEC)

unsigned int wq_max_workers = 512;
PARAM_UINT(wq_max_workers, wq_max_workers, 4, 4096,
	   "most workers in one pool (rescuers make WQ_MEM_RECLAIM work progress beyond it)");

/* ---- creating workers, managing, maydays -------------------------------- */

/* A new worker for pool, its thread created but not started and not yet a
 * member of the pool (worker_attach() makes it one). created_unbound: may
 * run on any active CPU (an unbound pool, or a per-CPU pool whose CPU is
 * offline); otherwise bound to the pool's CPU. NULL if out of memory or
 * threads. May sleep; no locks held. */
struct worker *worker_new(struct worker_pool *pool, bool created_unbound)
{
	struct worker *worker = kzalloc(sizeof(*worker));

	might_sleep();
	if (!worker)
		return NULL;
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	worker->id = pool->next_id++;
	spin_unlock_irqrestore(&pool->lock, flags);
	worker->pool = pool;
	INIT_LIST_HEAD(&worker->scheduled);
	INIT_LIST_HEAD(&worker->idle_entry);
	INIT_LIST_HEAD(&worker->node);
	INIT_LIST_HEAD(&worker->hentry);
	if (pool_is_bound(pool) && !created_unbound)
		worker->thread = kthread_create_on_cpu(worker_thread, worker, pool->cpu,
						       "kworker/%u:%d%s", pool->cpu, worker->id,
						       pool->attrs.nice < 0 ? "H" : "");
	else if (pool_is_bound(pool))
		worker->thread = kthread_create_on_mask(worker_thread, worker, &cpu_active_mask,
							"kworker/%u:%d%s", pool->cpu, worker->id,
							pool->attrs.nice < 0 ? "H" : "");
	else
		worker->thread = kthread_create_on_mask(worker_thread, worker, &pool->attrs.cpumask,
							"kworker/u%d:%d", pool->id, worker->id);
	if (!worker->thread) {
		kfree(worker);
		return NULL;
	}
	kthread_set_data(worker->thread, worker);
	sched_set_nice(worker->thread, pool->attrs.nice);
	return worker;
}

/* Give up a worker from worker_new() that never joined its pool: its
 * thread starts, sees WORKER_DIE and exits (worker_thread). */
void worker_discard(struct worker *worker)
{
	struct thread *th = worker->thread;

	WRITE_ONCE(worker->flags, WORKER_DIE);
	wake_up_thread(th);
	put_thread(th); /* it frees worker and itself */
}

/* Make a worker from worker_new() a member of its pool and start it, idle
 * (or on its way to rebind). pool->lock held. Returns its thread, whose
 * creator's reference the caller drops with put_thread() once unlocked
 * (the worker may be reaped and freed as soon as the lock is dropped). */
struct thread *worker_attach(struct worker *worker, bool created_unbound)
{
	struct worker_pool *pool = worker->pool;
	struct thread *th = worker->thread;

	assert_spin_locked(&pool->lock);
	WRITE_ONCE(worker->flags, WORKER_PREP | (created_unbound ? WORKER_UNBOUND : 0));
	if (pool_is_bound(pool) && pool->disassociated) {
		/* The CPU went down while we created it. */
		WRITE_ONCE(worker->flags, worker->flags | WORKER_UNBOUND);
		if (!created_unbound)
			set_cpus_allowed(th, &cpu_active_mask);
	} else if (pool_is_bound(pool) && created_unbound) {
		WRITE_ONCE(worker->flags, worker->flags | WORKER_REBIND); /* the CPU came back
									     meanwhile */
	}
	list_add_tail(&worker->node, &pool->workers);
	WRITE_ONCE(pool->nr_workers, pool->nr_workers + 1);
	pool->nr_created++;
	/* Only a worker where the pool's hooks expect it may wait as idle;
	 * one still to rebind goes there first (worker_thread). */
	if (!(worker->flags & WORKER_REBIND))
		worker_enter_idle(worker);
	trace_event(TR_WORKER_CREATE, th, (u64)pool->id, 0);
	wake_up_thread(th);
	return th;
}

/* The pool has wq_max_workers: say so, once per boot, in words. */
static void report_max_workers(struct worker_pool *pool)
{
	static bool reported;

	if (__atomic_exchange_n(&reported, true, __ATOMIC_RELAXED))
		return;
	if (pool_is_bound(pool))
		pr_warn("pool %d (cpu%u%s) has wq_max_workers=%u workers: no more are made while "
			"it is full; WQ_MEM_RECLAIM work goes to its rescuer, the rest waits "
			"(reported "
			"once)\n",
			pool->id, pool->cpu, pool->attrs.nice < 0 ? " highpri" : "",
			wq_max_workers);
	else
		pr_warn("unbound pool %d has wq_max_workers=%u workers: no more are made while it "
			"is full; WQ_MEM_RECLAIM work goes to its rescuer, the rest waits "
			"(reported "
			"once)\n",
			pool->id, wq_max_workers);
}

/* Create one worker for pool and start it idle; false if the pool is full
 * (wq_max_workers) or out of memory or threads. May sleep; no locks held. */
bool create_worker(struct worker_pool *pool)
{
	/* A per-CPU pool whose CPU is offline gets workers that may run on any
	 * active CPU (the trustee's); they rebind when the CPU returns. */
	bool created_unbound = !pool_is_bound(pool) || READ_ONCE(pool->disassociated);

	if (READ_ONCE(pool->nr_workers) >= READ_ONCE(wq_max_workers)) {
		report_max_workers(pool);
		return false;
	}
	struct worker *worker = worker_new(pool, created_unbound);

	if (!worker)
		return false;
	unsigned long flags = spin_lock_irqsave(&pool->lock);
	struct thread *th = worker_attach(worker, created_unbound);

	pace_after_create(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	put_thread(th); /* it frees itself when it exits */
	return true;
}

/* Ask wq's rescuer to come and run pwq's items. pool->lock held. */
static void send_mayday(struct pool_workqueue *pwq)
{
	struct workqueue_struct *wq = pwq->wq;

	assert_spin_locked(&pwq->pool->lock);
	if (!wq->rescuer)
		return;
	spin_lock(&wq_mayday_lock);
	if (list_empty(&pwq->mayday_node)) {
		list_add_tail(&pwq->mayday_node, &wq->maydays);
		wake_up_thread(wq->rescuer->thread);
		pwq->pool->nr_maydays++;
		trace_event(TR_MAYDAY, NULL, (u64)pwq->pool->id, 0);
	}
	spin_unlock_no_resched(&wq_mayday_lock);
}

/* The mayday invariant: a pool whose manager is active has its mayday
 * timer pending or firing, so that, however long creation keeps failing,
 * the rescuers are called within MAYDAY_INTERVAL_NS of the pool needing
 * them. Queueing to a pool with no idle worker relies on it (mayday_watch()
 * arms nothing while a manager is at work). It once did not hold: the
 * manager armed the timer once, at entry, and the timer re-armed only if
 * a worker was needed at the instant it fired; one firing in a moment of
 * no need (the worklist empty for a while) left a manager looping with no
 * timer, and every later queueing trusted it (a starved hand-over that
 * never ended: docs/workqueue.md, "Rescuers"). pool->lock held. */
void assert_mayday_armed(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	WARN_ONCE(pool->manager_active && !timer_active(&pool->mayday_timer),
		  "pool %d: its manager is active and its mayday timer is not armed "
		  "(%u pending, %u idle, %u workers)",
		  pool->id, count_list(&pool->worklist), pool->nr_idle, pool->nr_workers);
}

/* Timer callback: the manager has failed to create a worker for a while,
 * or work was queued with no idle worker (mayday_watch()). While a worker
 * is needed and none can be had, call the rescuers; stay armed while the
 * manager is at work (the mayday invariant), or while the need lasts. */
void pool_mayday_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, mayday_timer);
	struct work_struct *w;

	spin_lock(&pool->lock);
	pool->nr_mayday_timeouts++;
	bool need = need_to_create_worker(pool);

	if (need)
		list_for_each_entry(w, &pool->worklist, entry)
			if (w->pwq)
				send_mayday(w->pwq);
	if (need || pool->manager_active)
		mod_timer(&pool->mayday_timer, ktime_get_ns() + MAYDAY_INTERVAL_NS);
	spin_unlock_no_resched(&pool->lock);
}

/* Work was queued to a pool with no idle worker: if nobody manages it
 * either, nobody would call the rescuers should creation fail. Arm the
 * mayday timer anyway (it looks again and stays armed only while a
 * worker is needed and none can be had). pool->lock held. */
void mayday_watch(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	if (pool->bh)
		return; /* no workers to make: its pseudo-worker is busy only in a run */
	if (pool->manager_active)
		assert_mayday_armed(pool); /* the manager's timer serves */
	else if (!timer_pending(&pool->mayday_timer))
		mod_timer(&pool->mayday_timer, ktime_get_ns() + MAYDAY_INITIAL_TIMEOUT_NS);
}

/* The manager role: create a worker, and keep trying while one is needed
 * (need_to_create_worker); if that fails for MAYDAY_INITIAL_TIMEOUT_NS, the
 * mayday timer calls the rescuers, and again every MAYDAY_INTERVAL_NS for
 * as long as the manager is at work (the mayday invariant: the timer is
 * armed in the same locked section that makes the manager active, and
 * re-arms itself while it is). Taken by a worker of the pool that is
 * about to work with no idle worker left, and by the trustee of a
 * disassociated pool; one manager at a time. pool->lock held (interrupts
 * off); sleeps with it dropped. Returns false, without dropping it, if
 * another manager is at work; true if it dropped the lock (the caller
 * must look at the pool afresh). */
bool manage_workers(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	if (pool->manager_active)
		return false;
	pool->manager_active = true;
	mod_timer(&pool->mayday_timer, ktime_get_ns() + MAYDAY_INITIAL_TIMEOUT_NS);
	spin_unlock_irq(&pool->lock);
	while (!create_worker(pool)) {
		msleep(CREATE_COOLDOWN_MS); /* out of memory or threads: try again */
		spin_lock_irq(&pool->lock);
		bool need = need_to_create_worker(pool);

		assert_mayday_armed(pool);
		spin_unlock_irq(&pool->lock);
		if (!need)
			break;
	}
	spin_lock_irq(&pool->lock);
	pool->manager_active = false;
	/* Still needed (another manager will come): the timer stays, as
	 * mayday_watch() would arm it. Otherwise it would only fire once more
	 * to find nothing to do: an idle CPU is not woken for that. A callback
	 * already firing waits for pool->lock, then sees no manager and no
	 * need, and lapses. */
	if (!need_to_create_worker(pool))
		del_timer(&pool->mayday_timer);
	return true;
}

/* ---- the rescuer -------------------------------------------------------- */

/* Where a rescuer may run pool's items: an unbound pool's CPUs; a per-CPU
 * pool's CPU, or any active CPU while the pool is disassociated (its CPU
 * offline). pool->lock held: the answer holds while it is. */
static const struct cpumask *rescue_mask(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	if (!pool_is_bound(pool))
		return &pool->attrs.cpumask;
	return pool->disassociated ? &cpu_active_mask : cpumask_of(pool->cpu);
}

/* Run pwq's items waiting in its pool, as a temporary member of the pool. */
static void rescue_pwq(struct worker *rescuer, struct pool_workqueue *pwq)
{
	struct worker_pool *pool = pwq->pool;
	struct work_struct *w, *n;

	/* Move where the pool's items may run, decided under pool->lock and
	 * checked again under it: the pool's CPU may come back (or leave)
	 * while we move, and a per-CPU pool's items run on its CPU whenever
	 * it is associated (once, the mask came from an unlocked look at
	 * disassociated, and items ran on another CPU). */
	spin_lock_irq(&pool->lock);
	do {
		const struct cpumask *mask = rescue_mask(pool);

		spin_unlock_irq(&pool->lock);
		if (set_cpus_allowed(current, mask))
			msleep(1); /* its CPU is going down, the pool not yet disassociated */
		spin_lock_irq(&pool->lock);
	} while (pool_is_bound(pool) && !pool->disassociated && smp_processor_id() != pool->cpu);
	rescuer->pool = pool;
	list_add_tail(&rescuer->node, &pool->workers); /* a member while it works here */
	list_for_each_entry_safe(w, n, &pool->worklist, entry)
		if (w->pwq == pwq)
			list_move_tail(&w->entry, &rescuer->scheduled);
	if (!list_empty(&rescuer->scheduled)) {
		trace_event(TR_RESCUE, current, (u64)pool->id, 0);
		WRITE_ONCE(pool->nr_rescued, pool->nr_rescued + 1);
		WRITE_ONCE(rescuer->rescue_wq->nr_rescued, rescuer->rescue_wq->nr_rescued + 1);
		process_scheduled_works(rescuer);
	}
	/* Still stuck with more of ours waiting? Stay on the list. */
	if (need_to_create_worker(pool))
		list_for_each_entry(w, &pool->worklist, entry)
			if (w->pwq == pwq) {
				send_mayday(pwq);
				break;
			}
	if (need_more_worker(pool))
		wake_up_worker(pool);
	list_del_init(&rescuer->node);
	spin_unlock_irq(&pool->lock);
}

static int rescuer_thread(void *arg)
{
	struct worker *rescuer = arg;
	struct workqueue_struct *wq = rescuer->rescue_wq;

	sched_hook_add(&wq_worker_hooks, rescuer); /* for current_work(); never counted */
	for (;;) {
		set_current_state(THREAD_BLOCKED);
		bool stop = kthread_should_stop();

		spin_lock_irq(&wq_mayday_lock);
		while (!list_empty(&wq->maydays)) {
			struct pool_workqueue *pwq =
				list_first_entry(&wq->maydays, struct pool_workqueue, mayday_node);

			list_del_init(&pwq->mayday_node);
			spin_unlock_irq(&wq_mayday_lock);
			__set_current_state(THREAD_RUNNING);
			rescue_pwq(rescuer, pwq);
			spin_lock_irq(&wq_mayday_lock);
		}
		spin_unlock_irq(&wq_mayday_lock);
		if (stop)
			break;
		schedule();
	}
	__set_current_state(THREAD_RUNNING);
	sched_hook_remove(&wq_worker_hooks);
	kthread_set_data(current, NULL); /* destroy_workqueue() frees it (worker_die()) */
	return 0;
}

/* The rescuer of a WQ_MEM_RECLAIM workqueue, started: it waits for maydays
 * (send_mayday()). NULL if out of memory or threads. May sleep. */
struct worker *create_rescuer(struct workqueue_struct *wq)
{
	struct worker *rescuer = kzalloc(sizeof(*rescuer));

	if (!rescuer)
		return NULL;
	rescuer->rescue_wq = wq;
	WRITE_ONCE(rescuer->flags, WORKER_PREP | WORKER_RESCUER);
	rescuer->id = -1;
	INIT_LIST_HEAD(&rescuer->scheduled);
	INIT_LIST_HEAD(&rescuer->idle_entry);
	INIT_LIST_HEAD(&rescuer->node);
	INIT_LIST_HEAD(&rescuer->hentry);
	rescuer->thread = kthread_create(rescuer_thread, rescuer, "kworker/R-%s", wq->name);
	if (!rescuer->thread) {
		kfree(rescuer);
		return NULL;
	}
	kthread_set_data(rescuer->thread, rescuer);
	wake_up_thread(rescuer->thread);
	return rescuer;
}
