/* kernel/workqueue/worker.c - the workers: the idle list and the flags that
 * count a worker in nr_running, the scheduler hooks that keep one worker
 * running per CPU (concurrency management), what ps shows of a worker,
 * executing an item, and the worker thread's loop. workqueue.h
 * ("Concurrency management: nr_running and the scheduler hooks",
 * "Non-reentrancy") says how; internal.h has the structs and the
 * idle-list rule.
 *
 * It calls into manage.c (a worker with no idle one behind it becomes the
 * manager), adapt.c (the creation hold, watching for hogs, reaping) and
 * trustee.c (rebinding after a CPU returns); everything here runs with
 * pool->lock held unless it says otherwise.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/deterministic.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/workqueue/internal.h"
#include "lib/hash.h"
#include "lib/printf.h"

/* ---- the idle list and the flags ---------------------------------------- */

static struct worker *first_idle_worker(struct worker_pool *pool)
{
	return list_first_entry_or_null(&pool->idle_list, struct worker, idle_entry);
}

/* Wake the first idle worker; a BH pool's run is kicked instead (an
 * offline CPU's BH pool waits for the drain its queuer starts, bh.c).
 * pool->lock held. */
void wake_up_worker(struct worker_pool *pool)
{
	struct worker *w;

	assert_spin_locked(&pool->lock);
	if (pool->bh) {
		kick_bh_pool(pool);
		return;
	}
	w = first_idle_worker(pool);
	if (w)
		wake_up_thread(w->thread);
}

/* Flag changes of the worker itself, and the hog timer's mark of a runner
 * (mark_hogs()); pool->lock held. Only these and the hooks move nr_running
 * (see its legend). */
void worker_set_flags(struct worker *worker, unsigned int flags)
{
	assert_spin_locked(&worker->pool->lock);
	if ((flags & WORKER_NOT_RUNNING) && !(worker->flags & WORKER_NOT_RUNNING))
		atomic_dec(&worker->pool->nr_running);
	WRITE_ONCE(worker->flags, worker->flags | flags);
}

void worker_clr_flags(struct worker *worker, unsigned int flags)
{
	unsigned int old = worker->flags;

	assert_spin_locked(&worker->pool->lock);
	WRITE_ONCE(worker->flags, worker->flags & ~flags);
	if ((old & WORKER_NOT_RUNNING) && !(worker->flags & WORKER_NOT_RUNNING))
		atomic_inc(&worker->pool->nr_running);
}

void worker_enter_idle(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	u64 now = ktime_get_ns();

	WRITE_ONCE(worker->flags, worker->flags | WORKER_IDLE);
	pool->nr_idle++;
	worker->last_active = now;
	list_add(&worker->idle_entry, &pool->idle_list); /* LIFO */
	if (pool->disassociated)
		trustee_news(pool);
	if (too_many_workers(pool, now))
		reaping_watch(pool, now);
}

/* The idle-list rule (internal.h): the idle list of an associated
 * per-CPU pool whose CPU is online loses entries on that CPU only.
 * pool->lock held. */
static void assert_idle_removal_allowed(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	WARN_ONCE(pool_is_bound(pool) && !pool->disassociated && cpu_online(pool->cpu) &&
			  smp_processor_id() != pool->cpu,
		  "pool %d: idle worker removed on cpu%u, not on its cpu%u", pool->id,
		  smp_processor_id(), pool->cpu);
}

static void worker_leave_idle(struct worker *worker)
{
	assert_spin_locked(&worker->pool->lock);
	if (!(worker->flags & WORKER_IDLE))
		return;
	assert_idle_removal_allowed(worker->pool);
	WRITE_ONCE(worker->flags, worker->flags & ~WORKER_IDLE);
	worker->pool->nr_idle--;
	list_del_init(&worker->idle_entry);
}

/* Tell an idle worker to exit. pool->lock held; where, the idle-list
 * rule (internal.h) says. */
void destroy_worker(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	assert_idle_removal_allowed(pool);
	WARN_ON_ONCE(!(worker->flags & WORKER_IDLE) || worker->current_work);
	WRITE_ONCE(pool->nr_workers, pool->nr_workers - 1);
	pool->nr_idle--;
	pool->nr_destroyed++;
	list_del_init(&worker->idle_entry);
	list_del_init(&worker->node);
	WRITE_ONCE(worker->flags, (worker->flags & ~WORKER_IDLE) | WORKER_DIE);
	trace_event(TR_WORKER_DESTROY, worker->thread, (u64)pool->id, 0);
	wake_up_thread(worker->thread);
}

/* Destroy every idle worker, the longest idle first: an unbound pool no
 * workqueue uses, or a per-CPU pool whose trustee is done or whose CPU is
 * back. pool->lock held. */
void destroy_idle_workers(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	while (pool->nr_idle)
		destroy_worker(list_last_entry(&pool->idle_list, struct worker, idle_entry));
}

/* ---- the scheduler hooks: concurrency management ------------------------ */

/* The worker blocks (rq lock held and interrupts off: the hook contract,
 * which sched.c checks after each hook; on the pool's CPU). If it
 * was the last running worker and work is pending, hand the scheduler an
 * idle worker to wake (lock-free: see the idle-list rule, internal.h). */
static struct thread *wq_worker_sleeping(struct thread *t, void *data)
{
	struct worker *worker = data;
	struct worker_pool *pool = worker->pool;

	if (READ_ONCE(worker->flags) & WORKER_NOT_RUNNING)
		return NULL;
	delay_point(DP_WORKER_SLEEP);
	/* A bound worker away from its CPU: woken while the CPU was already
	 * out of cpu_online_mask but before workqueue_cpu_dying() unbound the
	 * pool (the scheduler then runs it elsewhere). Its pool is about to
	 * lose concurrency management (nr_running is zeroed there), and its
	 * idle list may only be read on its own CPU: leave both alone. */
	if (pool_is_bound(pool) && pool->cpu != smp_processor_id())
		return NULL;
	WRITE_ONCE(worker->sleeping, true);
	if (atomic_dec_return(&pool->nr_running) == 0 && !list_empty(&pool->worklist)) {
		struct worker *idle = first_idle_worker(pool);

		/* For the creation hold: when the pool last had to turn to
		 * another worker (only if a hold can need it: a clock read). */
		if (READ_ONCE(wq_create_hold_us))
			pool->last_block_ns = ktime_get_ns();
		/* The one idle worker already waits for a hold to end: its
		 * timer wakes it (and it looks at this block then). Read on
		 * the pool's CPU, where it is written (under L). */
		if (idle && pool->create_waiting && pool->nr_idle == 1)
			idle = NULL;
		trace_event(TR_WORKER_SLEEP, t, (u64)pool->id, idle ? idle->thread->tid : 0);
		return idle ? idle->thread : NULL;
	}
	trace_event(TR_WORKER_SLEEP, t, (u64)pool->id, 0);
	return NULL;
}

/* The worker runs again (its own context, nothing held). It counts again
 * if sleeping() uncounted it, on the pool's CPU only: woken elsewhere, its
 * CPU is going down and workqueue_cpu_dying() is about to zero the count
 * and uncount it for good (with preemption off here, that step cannot
 * slip in between the flags test and the increment on the pool's CPU). */
static void wq_worker_running(struct thread *t, void *data)
{
	struct worker *worker = data;
	struct worker_pool *pool = worker->pool;

	if (!worker->sleeping)
		return;
	preempt_disable();
	if (!(READ_ONCE(worker->flags) & WORKER_NOT_RUNNING) &&
	    !(pool_is_bound(pool) && pool->cpu != smp_processor_id()))
		atomic_inc(&pool->nr_running);
	WRITE_ONCE(worker->sleeping, false);
	trace_event(TR_WORKER_WAKE, t, (u64)worker->pool->id, 0);
	preempt_enable();
}

const struct sched_hook_ops wq_worker_hooks = {
	.sleeping = wq_worker_sleeping,
	.running = wq_worker_running,
};

/* t is current, or the caller a for_each_thread() callback: the worker
 * struct, freed by worker_die() only after kthread_set_data(current, NULL),
 * which waits for such a callback, stays valid meanwhile. Its fields are
 * read without pool->lock: display only, each may be stale. */
void workqueue_describe_thread(struct thread *t, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (t != current)
		assert_thread_list_locked();
	if (!sched_hook_data(t, &wq_worker_hooks))
		return;
	struct worker *worker = kthread_data(t);
	work_func_t fn = worker ? READ_ONCE(worker->current_func) : NULL;

	if (fn)
		snprintf(buf, size, "%pS%s", fn, READ_ONCE(worker->hog) ? " [cpu-hog]" : "");
	else if (worker)
		snprintf(buf, size, "%s",
			 (READ_ONCE(worker->flags) & WORKER_IDLE) ? "(idle)" : "(busy)");
}

struct work_struct *current_work(void)
{
	struct worker *worker = current_worker();

	return worker ? worker->current_work : NULL;
}

bool current_is_rescuer(void)
{
	struct worker *worker = current_worker();

	return worker && (worker->flags & WORKER_RESCUER);
}

/* Is the caller an item of wq (queueing from it is "chained" work)? */
bool is_chained_work(struct workqueue_struct *wq)
{
	struct worker *worker = current_worker();

	return worker && worker->current_pwq && worker->current_pwq->wq == wq;
}

/* ---- executing work ----------------------------------------------------- */

static struct list_head *busy_bucket(struct worker_pool *pool, const struct work_struct *w)
{
	return &pool->busy_hash[hash_ptr(w, 5)];
}
_Static_assert(BUSY_HASH_SIZE == 1 << 5, "busy_bucket() takes the top 5 bits");

/* The worker in bucket (w's, of a pool whose lock is held) executing w. */
static inline struct worker *find_in_bucket(struct list_head *bucket, struct work_struct *w)
{
	struct worker *worker;

	list_for_each_entry(worker, bucket, hentry)
		if (worker->current_work == w && worker->current_func == w->func)
			return worker;
	return NULL;
}

/* The worker of this pool executing w, or NULL. pool->lock held. */
struct worker *find_worker_executing(struct worker_pool *pool, struct work_struct *w)
{
	assert_spin_locked(&pool->lock);
	return find_in_bucket(busy_bucket(pool, w), w);
}

/* Move w, and the flush barriers linked behind it, to the tail of head:
 * a barrier must run on the worker that runs its target, right after it
 * (on a pool where every item gets a worker, it would otherwise run at
 * once, beside its target). pool->lock held. */
static void move_linked_works(struct worker_pool *pool, struct work_struct *w,
			      struct list_head *head)
{
	assert_spin_locked(&pool->lock);
	for (;;) {
		struct work_struct *next = list_next_entry(w, entry);
		bool linked = test_bit(WORK_STRUCT_LINKED, &w->flags);

		list_move_tail(&w->entry, head);
		if (!linked)
			break;
		if (WARN_ONCE(next->magic != WORK_MAGIC,
			      "work %pS is linked to a barrier that is gone", w->func))
			break;
		w = next;
	}
}

/* Move inactive items to the worklist while max_active allows. A flush
 * barrier waiting among them takes no slot. pool->lock held. */
static void pwq_activate_inactive(struct pool_workqueue *pwq)
{
	assert_spin_locked(&pwq->pool->lock);
	while (pwq->nr_active < pwq->max_active && !list_empty(&pwq->inactive)) {
		struct work_struct *w = list_first_entry(&pwq->inactive, struct work_struct, entry);

		if (likely(!test_bit(WORK_STRUCT_LINKED, &w->flags)))
			list_move_tail(&w->entry, &pwq->pool->worklist);
		else /* its barriers come along */
			move_linked_works(pwq->pool, w, &pwq->pool->worklist);
		if (work_is_barrier(w))
			continue;
		clear_bit(WORK_STRUCT_INACTIVE, &w->flags);
		pwq->nr_inactive--;
		pwq->nr_active++;
	}
}

/* Set max_active and let waiting items in. pool->lock held. */
void pwq_set_max_active(struct pool_workqueue *pwq, int max_active)
{
	assert_spin_locked(&pwq->pool->lock);
	pwq->max_active = max_active;
	pwq_activate_inactive(pwq);
	if (need_more_worker(pwq->pool))
		wake_up_worker(pwq->pool);
}

/* An item of pwq is done (or cancelled). pool->lock held. */
void pwq_dec_nr_in_flight(struct pool_workqueue *pwq, unsigned int color, enum work_slot slot)
{
	assert_spin_locked(&pwq->pool->lock);
	if (color == WORK_NO_COLOR) {
		pwq->nr_barriers--;
		return;
	}
	pwq->nr_in_flight--;
	if (slot == WORK_WAS_ACTIVE) {
		pwq->nr_active--;
		pwq_activate_inactive(pwq);
	}
	color_done(pwq->wq, color);
}

/* A worker of a CPU's pool run by the trustee (on any active CPU) is about
 * to run an item of a workqueue with a CPU mask: keep it to the active
 * CPUs of the mask, if there are any. May sleep. True if it narrowed its
 * affinity (the caller widens it again after the item). */
static bool keep_to_wq_cpus(struct workqueue_struct *wq)
{
	struct cpumask cpus;

	mutex_lock(&wq->mutex);
	bool some = cpumask_and(&cpus, &wq->attrs.cpumask, &cpu_active_mask);

	mutex_unlock(&wq->mutex);
	return some && set_cpus_allowed(current, &cpus) == 0;
}

/* The validator's view of a running item: while its function runs, the
 * worker "holds" the item and its workqueue, so that flushing either from
 * inside it is a deadlock the validator reports (docs/lockdep.md). With
 * lockdep=0 none of this happens. */
struct work_dep {
	bool validated;		     /* lockdep on when the item was taken */
	unsigned int held;	     /* locks held before the function ran */
	struct lockdep_map item_map; /* a copy of the item's map (see below) */
};

/* Before PENDING clears (process_one_work()): after that w may be freed
 * or set up again by its owner, so the item is held through a copy. */
static __always_inline void work_dep_prepare(struct work_dep *d, struct work_struct *w)
{
	d->validated = READ_ONCE(lockdep_active);
	if (d->validated)
		d->item_map = w->lockdep_map;
}

/* Not under pool->lock: an item that queues work takes that lock after
 * the item and its workqueue. Both are "taken at" the function. */
static __always_inline void work_dep_acquire(struct work_dep *d, struct pool_workqueue *pwq,
					     struct work_struct *w, work_func_t fn)
{
	const void *at = (const char *)fn + 1;

	if (!d->validated)
		return;
	d->held = lockdep_held_depth();
	/* A drain runs a dead CPU's BH items inside a BH item (bh.c), maybe
	 * of the same workqueue, or another drain: each nesting level is a
	 * subclass, of the workqueue and of the item. */
	unsigned int sub = pwq && pwq->pool->bh ? this_cpu_read(bh.depth) - 1 : 0;

	if (pwq)
		lock_acquire(&pwq->wq->lockdep_map, sub, 0, &pwq->wq->lockdep_map, at);
	lock_acquire(&d->item_map, sub, 0, w, at);
}

/* After the function: let both go, and report locks it left held. */
static __always_inline void work_dep_release(struct work_dep *d, struct pool_workqueue *pwq,
					     struct work_struct *w, work_func_t fn)
{
	const void *at = (const char *)fn + 1;

	if (!d->validated)
		return;
	lock_release(w, at);
	if (pwq)
		lock_release(&pwq->wq->lockdep_map, at);
	lockdep_check_depth(d->held, "work function", fn);
}

/* Run w on this worker. pool->lock held on entry and exit (dropped inside). */
static void process_one_work(struct worker *worker, struct work_struct *w)
{
	struct worker_pool *pool = worker->pool;
	struct pool_workqueue *pwq = w->pwq;
	struct list_head *bucket = busy_bucket(pool, w);
	struct worker *collision = find_in_bucket(bucket, w);
	unsigned int color = w->color;
	void (*put)(struct work_struct *) = w->put;

	assert_spin_locked(&pool->lock);
	if (collision) {
		/* Non-reentrancy: the worker already running it takes it next. */
		move_linked_works(pool, w, &collision->scheduled);
		return;
	}
	list_del_init(&w->entry);
	clear_bit(WORK_STRUCT_LINKED, &w->flags); /* its barriers are on our list now */
	worker->current_work = w;
	WRITE_ONCE(worker->current_func, w->func);
	worker->current_pwq = pwq;
	worker->current_seq = ++pool->nr_started;
	list_add(&worker->hentry, bucket);
	bool intensive = pwq && (pwq->wq->flags & WQ_CPU_INTENSIVE);

	if (intensive)
		worker_set_flags(worker, WORKER_CPU_INTENSIVE);
	/* Out of nr_running now (CPU-intensive) or always (an unbound pool's
	 * worker, or one the trustee runs): nothing will wake another worker
	 * when this one blocks, so wake one now if work is waiting. Without
	 * it two items queued at once, the second woken onto the worker that
	 * the first had woken already, run one after the other. */
	if ((intensive || (worker->flags & WORKER_UNBOUND)) && need_more_worker(pool))
		wake_up_worker(pool);
	/* Run by the trustee: an item of a workqueue with a CPU mask keeps to it. */
	bool keep_to_mask = pwq && pool_is_bound(pool) && pool->disassociated && !pool->bh &&
			    READ_ONCE(pwq->wq->restricted);

	WRITE_ONCE(w->last_pool, pool);
	WRITE_ONCE(w->pwq, NULL);
	struct work_dep dep;

	work_dep_prepare(&dep, w);

	/* From here on it may be queued again (it will wait for us). */
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	spin_unlock_irq(&pool->lock);
	bool narrowed = keep_to_mask && keep_to_wq_cpus(pwq->wq);

	delay_point(DP_WORK_START);
	work_dep_acquire(&dep, pwq, w, worker->current_func);
	trace_event(TR_WORK_START, current, (u64)w, (u64)worker->current_func);
	worker->current_func(w);
	trace_event(TR_WORK_END, current, (u64)w, (u64)worker->current_func);
	work_dep_release(&dep, pwq, w, worker->current_func);
	/* The count it started with: 0 in a thread; in a BH run, BH_OFFSET
	 * on top of what the run came in on (bh_item_count). The BH test
	 * only once the thread's has failed: every item asks. */
	if (unlikely(preempt_count() != 0 || irqs_disabled()))
		WARN_ONCE(!pool->bh || preempt_count() != worker->bh_item_count || irqs_disabled(),
			  "work function %pS returned with preemption (%#x, not %#x) or interrupts "
			  "off",
			  worker->current_func, preempt_count(),
			  pool->bh ? worker->bh_item_count : 0);
	if (put && color != WORK_NO_COLOR)
		put(w); /* the last touch of w by the workqueue */
	if (narrowed)	/* any active CPU again, or its own CPU if it is back */
		set_cpus_allowed(current, &cpu_active_mask);

	spin_lock_irq(&pool->lock);
	/* Its workqueue's flag, or the hog timer's verdict: for this item only. */
	if (worker->flags & WORKER_CPU_INTENSIVE)
		worker_clr_flags(worker, WORKER_CPU_INTENSIVE);
	if (worker->hog)
		pool->nr_hogs_running--;
	WRITE_ONCE(worker->hog, false);
	pool->nr_executed++;
	list_del_init(&worker->hentry);
	worker->current_work = NULL;
	WRITE_ONCE(worker->current_func, NULL);
	worker->current_pwq = NULL;
	if (pwq)
		pwq_dec_nr_in_flight(pwq, color, WORK_WAS_ACTIVE);
}

void process_scheduled_works(struct worker *worker)
{
	while (!list_empty(&worker->scheduled))
		process_one_work(worker,
				 list_first_entry(&worker->scheduled, struct work_struct, entry));
}

/* Inline: the worker loop's every item (a call there costs the burst). */
static __always_inline void __worker_run_first(struct worker *worker, struct worker_pool *pool)
{
	struct work_struct *w = list_first_entry(&pool->worklist, struct work_struct, entry);

	if (test_bit(WORK_STRUCT_LINKED, &w->flags))
		move_linked_works(pool, w, &worker->scheduled); /* with its barriers */
	else
		process_one_work(worker, w);
	process_scheduled_works(worker);
}

void worker_run_first(struct worker *worker)
{
	assert_spin_locked(&worker->pool->lock);
	__worker_run_first(worker, worker->pool);
}

/* ---- the worker thread ------------------------------------------------- */

/* Exit: the worker was told to die (destroy_worker(), worker_discard()),
 * or it is unbound on a bound pool that is associated again (below). Its
 * struct is freed once no ps-style reader can see it (kthread_set_data()). */
static __noreturn void worker_die(struct worker *worker)
{
	sched_hook_remove(&wq_worker_hooks);
	kthread_set_data(current, NULL);
	kfree(worker);
	thread_exit(0);
}

int worker_thread(void *arg)
{
	struct worker *worker = arg;
	struct worker_pool *pool = worker->pool;

	sched_hook_add(&wq_worker_hooks, worker);
	for (;;) {
		spin_lock_irq(&pool->lock);
		if (worker->flags & WORKER_DIE) {
			spin_unlock_irq(&pool->lock);
			worker_die(worker);
		}
		worker_leave_idle(worker);
	recheck:
		if (worker_maybe_rebind(worker))
			goto recheck;
		if (!need_more_worker(pool))
			goto sleep;
		if (!may_start_working(pool)) {
			if (creation_deferred(pool))
				goto sleep; /* wait idle: a blocked worker may be back soon */
			if (manage_workers(pool))
				goto recheck;
		}
		note_busy(pool);
		worker_clr_flags(worker, WORKER_PREP);
		if (!list_is_singular(&pool->worklist))
			watch_for_hog(pool); /* more waits behind what we take */
		do {
			__worker_run_first(worker, pool);
			/* Rebind after this item, not after the worklist drains:
			 * an item that requeues itself (idle_cull_fn, sent back
			 * to its CPU) would keep an unbound worker away forever. */
		} while (keep_working(pool) && !(worker->flags & WORKER_REBIND));
		worker_set_flags(worker, WORKER_PREP);
		if (worker_maybe_rebind(worker) || !list_empty(&pool->worklist))
			goto recheck;
	sleep:
		if (!need_more_worker(pool))
			pool->create_waiting = false; /* nobody waits to create now */
		if (pool_is_bound(pool) && !pool->disassociated &&
		    (worker->flags & WORKER_UNBOUND)) {
			/* Its CPU is back but it could not rebind (the CPU went
			 * away and came back meanwhile): an unbound worker must
			 * not wait on a bound pool's idle list. It leaves. */
			list_del_init(&worker->node);
			WRITE_ONCE(pool->nr_workers, pool->nr_workers - 1);
			pool->nr_destroyed++;
			trace_event(TR_WORKER_DESTROY, current, (u64)pool->id, 0);
			spin_unlock_irq(&pool->lock);
			worker_die(worker);
		}
		worker_enter_idle(worker);
		set_current_state(THREAD_BLOCKED);
		spin_unlock_irq(&pool->lock);
		schedule();
	}
	return 0;
}
