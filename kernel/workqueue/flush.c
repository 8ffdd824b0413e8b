/* kernel/workqueue/flush.c - waiting for work: flush colours and
 * flush_workqueue(), flush_work()'s barrier, draining, cancelling, and
 * work_busy(). workqueue.h ("Flushing: colours; cancelling") says how;
 * the validator's view of these waits is in docs/lockdep.md.
 *
 * An item takes its colour when queued (queue.c) and gives it back when it
 * leaves flight (color_done(), internal.h, from worker.c and queue.c);
 * flush_advance() here moves the drained generations on. It reads the
 * pools through worker.c's lookup of a running item, and grabs pending
 * items through queue.c.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/completion.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/workqueue/internal.h"
#include "lib/printf.h"

struct wq_barrier {
	struct work_struct work;
	struct completion done;
};

/* ---- flush colours ------------------------------------------------------ */

/* Move done_gen past every drained generation; wake flushers. F held. */
void flush_advance(struct workqueue_struct *wq)
{
	u64 old = wq->done_gen;

	assert_spin_locked(&wq->flush_lock);
	while (wq->done_gen < wq->work_gen &&
	       atomic_read(&wq->nr_color[wq->done_gen % WORK_NR_COLORS]) == 0)
		WRITE_ONCE(wq->done_gen, wq->done_gen + 1);
	if (wq->done_gen != old)
		wake_up_all(&wq->flush_wait);
}

/* ---- flushing ----------------------------------------------------------- */

void wq_barrier_func(struct work_struct *w)
{
	complete(&container_of(w, struct wq_barrier, work)->done);
}

/* Lock the pool w is queued on or running in; NULL if neither. With the
 * lock held, *worker is set if it is running. */
static struct worker_pool *lock_work_pool(struct work_struct *w, struct worker **worker,
					  unsigned long *flags)
{
	for (;;) {
		struct pool_workqueue *pwq = READ_ONCE(w->pwq);
		struct worker_pool *pool = pwq ? pwq->pool : READ_ONCE(w->last_pool);

		if (!pool)
			return NULL;
		*flags = spin_lock_irqsave(&pool->lock);
		if (pwq && READ_ONCE(w->pwq) == pwq && !list_empty(&w->entry)) {
			*worker = NULL;
			return pool;
		}
		if (!pwq) {
			*worker = find_worker_executing(pool, w);
			if (*worker)
				return pool;
			if (!READ_ONCE(w->pwq)) {
				spin_unlock_irqrestore(&pool->lock, *flags);
				return NULL;
			}
		}
		spin_unlock_irqrestore(&pool->lock, *flags);
		cpu_relax(); /* it moved (being queued or started): look again */
	}
}

/* The validator: waiting for a workqueue that runs one item at a time (it
 * may have to run first what the caller holds) is "taking" it. True if it
 * reported. */
static bool flush_wait_reported(struct workqueue_struct *wq, const void *ip)
{
	if (!wq || READ_ONCE(wq->saved_max_active) != 1)
		return false;
	return lock_wait_for(&wq->lockdep_map, &wq->lockdep_map, ip);
}

/* Linux's check_flush_dependency(): an item of a WQ_MEM_RECLAIM workqueue
 * (or a rescuer) must not wait for a workqueue without a rescuer, which
 * under memory pressure may never get a worker. Reported by the validator
 * (while it is on), in its form. */
static void check_flush_dependency(struct workqueue_struct *target, work_func_t target_fn)
{
	struct worker *self = current_worker();

	if (!target || (target->flags & WQ_MEM_RECLAIM) || !self)
		return;
	struct workqueue_struct *own = self->current_pwq ? self->current_pwq->wq : NULL;

	if (!(self->flags & WORKER_RESCUER) && !(own && (own->flags & WQ_MEM_RECLAIM)))
		return;
	if (!lockdep_claim_report())
		return;
	char item[96] = "";

	if (target_fn)
		scnprintf(item, sizeof(item), " (item %pS)", target_fn);
	lockdep_report_misuse("WQ_MEM_RECLAIM workqueue %s (item %pS) flushes !WQ_MEM_RECLAIM "
			      "workqueue %s%s: under memory pressure its rescuer may wait forever",
			      own ? own->name : "(rescuer)", self->current_func, target->name,
			      item);
}

/* flush_work() once the validator has seen it (reported: it reported). */
static bool __flush_work(struct work_struct *w, bool reported, const void *ip)
{
	struct wq_barrier barr;
	struct worker *worker;
	unsigned long flags;
	struct worker_pool *pool = lock_work_pool(w, &worker, &flags);

	if (!pool)
		return false; /* idle: the common flush, kept short */
	struct worker *self = current_worker();

	struct pool_workqueue *target_pwq = worker ? worker->current_pwq : w->pwq;
	struct workqueue_struct *target_wq = target_pwq ? target_pwq->wq : NULL;

	/* Fast paths that keep these from hanging, validator on or off; one
	 * report each, the validator's if it made one. */
	if (worker && worker->thread == current) {
		spin_unlock_irqrestore(&pool->lock, flags);
		if (!reported)
			report_self_wait("flush_work(%pS) from inside that work item would wait "
					 "forever",
					 w->func);
		return false;
	}
	if (!worker && self && self->current_pwq && self->current_pwq->wq == target_wq &&
	    (target_wq->flags & __WQ_ORDERED)) {
		spin_unlock_irqrestore(&pool->lock, flags);
		reported |= flush_wait_reported(target_wq, ip);
		if (!reported)
			report_self_wait("flush_work(%pS) from %pS of the same ordered workqueue "
					 "%s would wait forever",
					 w->func, self->current_func, target_wq->name);
		return false;
	}
	INIT_WORK(&barr.work, wq_barrier_func);
	init_completion(&barr.done);
	set_bit(WORK_STRUCT_PENDING, &barr.work.flags);
	if (worker) {
		/* Running: the barrier runs right after it, on the same worker. */
		list_add(&barr.work.entry, &worker->scheduled);
	} else {
		/* Queued: the barrier goes right behind it, linked to it, so the
		 * worker that runs it runs the barrier next. It inherits w's
		 * link to barriers queued earlier. */
		barr.work.pwq = w->pwq;
		w->pwq->nr_barriers++;
		if (test_bit(WORK_STRUCT_LINKED, &w->flags))
			set_bit(WORK_STRUCT_LINKED, &barr.work.flags);
		set_bit(WORK_STRUCT_LINKED, &w->flags);
		list_add(&barr.work.entry, &w->entry);
	}
	if (need_more_worker(pool))
		wake_up_worker(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	flush_wait_reported(target_wq, ip);
	check_flush_dependency(target_wq, w->func);
	wait_for_completion(&barr.done);
	return true;
}

bool flush_work(struct work_struct *w)
{
	const void *ip = __builtin_return_address(0);

	might_sleep();
	if (!work_valid(w, "flush_work"))
		return false;
	return __flush_work(w, lock_wait_for(&w->lockdep_map, w, ip), ip);
}

bool flush_delayed_work(struct delayed_work *dw)
{
	might_sleep();
	/* _sync: a timer callback busy queueing it elsewhere finishes first,
	 * so flush_work() below sees it queued. */
	if (del_timer_sync(&dw->timer)) {
		/* Run it now rather than waiting for the timer. */
		struct workqueue_struct *wq = dw->wq;
		unsigned long flags = local_irq_save();

		__queue_work(dw->cpu, wq, &dw->work);
		atomic_dec(&wq->nr_timers);
		local_irq_restore(flags);
	}
	return flush_work(&dw->work);
}

void flush_workqueue(struct workqueue_struct *wq)
{
	struct worker *self = current_worker();
	unsigned long flags;

	might_sleep();
	if (WARN_ONCE(!wq || wq->magic != WQ_MAGIC, "flush_workqueue of a destroyed workqueue (%p)",
		      wq))
		return;
	/* The validator: waiting for every item of wq is "taking" it. */
	bool reported =
		lock_wait_for(&wq->lockdep_map, &wq->lockdep_map, __builtin_return_address(0));
	/* The fast path that keeps it from hanging, validator on or off. */
	if (self && self->current_pwq && self->current_pwq->wq == wq) {
		if (!reported)
			report_self_wait("flush_workqueue(%s) from its own item %pS would wait for "
					 "itself forever",
					 wq->name, self->current_func);
		return;
	}
	check_flush_dependency(wq, NULL);
	mutex_lock(&wq->flush_mutex);
	flags = spin_lock_irqsave(&wq->flush_lock);
	if (wq->done_gen == wq->work_gen &&
	    atomic_read(&wq->nr_color[wq->work_gen % WORK_NR_COLORS]) == 0) {
		/* Nothing in flight. */
		spin_unlock_irqrestore(&wq->flush_lock, flags);
		mutex_unlock(&wq->flush_mutex);
		return;
	}
	if (wq->work_gen - wq->done_gen >= WORK_NR_COLORS - 1) {
		/* Every colour is taken: wait for the oldest to drain first. */
		wq->nr_flush_overflows++;
		spin_unlock_irqrestore(&wq->flush_lock, flags);
		wait_event(wq->flush_wait,
			   READ_ONCE(wq->work_gen) - READ_ONCE(wq->done_gen) < WORK_NR_COLORS - 1);
		flags = spin_lock_irqsave(&wq->flush_lock);
	}
	/* Later items take the next colour; we wait for ours and older. */
	u64 my_gen = wq->work_gen;

	WRITE_ONCE(wq->work_gen, my_gen + 1);
	WRITE_ONCE(wq->work_color, (my_gen + 1) % WORK_NR_COLORS);
	wq->nr_flushes++;
	flush_advance(wq);
	spin_unlock_irqrestore(&wq->flush_lock, flags);
	mutex_unlock(&wq->flush_mutex);
	wait_event(wq->flush_wait, READ_ONCE(wq->done_gen) > my_gen);
}

/* Items (and barriers, if asked) queued or running. M held. */
int wq_nr_in_flight(struct workqueue_struct *wq, enum in_flight_count what)
{
	struct pool_workqueue *pwq;
	int n = 0;

	assert(mutex_owned(&wq->mutex));
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

		n += pwq->nr_in_flight + (what == ITEMS_AND_BARRIERS ? pwq->nr_barriers : 0);
		spin_unlock_irqrestore(&pwq->pool->lock, flags);
	}
	return n;
}

void drain_workqueue(struct workqueue_struct *wq)
{
	unsigned int tries = 0;

	might_sleep();
	/* For the validator: it waits for every item. */
	bool reported =
		lock_wait_for(&wq->lockdep_map, &wq->lockdep_map, __builtin_return_address(0));
	if (is_chained_work(wq)) {
		if (!reported)
			report_self_wait("drain_workqueue(%s) from its own item %pS would wait for "
					 "itself forever",
					 wq->name, current_worker()->current_func);
		return;
	}
	mutex_lock(&wq->mutex);
	WRITE_ONCE(wq->nr_drainers, wq->nr_drainers + 1);
	mutex_unlock(&wq->mutex);
	for (;;) {
		flush_workqueue(wq);
		mutex_lock(&wq->mutex);
		int left = wq_nr_in_flight(wq, ITEMS_AND_BARRIERS);

		mutex_unlock(&wq->mutex);
		if (!left)
			break;
		if (++tries % 100 == 0)
			pr_warn("drain_workqueue(%s): %d items still in flight after %u flushes\n",
				wq->name, left, tries);
	}
	mutex_lock(&wq->mutex);
	WRITE_ONCE(wq->nr_drainers, wq->nr_drainers - 1);
	mutex_unlock(&wq->mutex);
}

/* ---- cancelling and asking ---------------------------------------------- */

/* Whether a cancel waits for an execution in progress (the _sync ones),
 * and whether it disables the item too. */
enum cancel_wait { CANCEL_NO_WAIT, CANCEL_SYNC };
enum cancel_disable { CANCEL_ONLY, CANCEL_DISABLE };

/* Wait for w's execution in progress on BH pool pool, by spinning (any
 * context): a BH item is short, and its run does not sleep. One run of
 * this CPU's that the caller is nested in (its interrupt, or the item
 * itself) cannot end while we wait: reported, not waited for. */
static void bh_wait_running(struct work_struct *w, struct worker_pool *pool, const char *op,
			    bool reported)
{
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&pool->lock);
		struct worker *worker = find_worker_executing(pool, w);
		/* Runs do not migrate or get preempted: one on this CPU is
		 * one the caller is inside. */
		bool inside = worker && worker->bh_run_cpu == smp_processor_id();

		spin_unlock_irqrestore(&pool->lock, flags);
		if (!worker)
			return;
		if (inside) {
			if (!reported)
				report_self_wait("%s(%pS) from inside that BH item's run on cpu%u "
						 "(the item, or an interrupt of it) would wait "
						 "forever",
						 op, w->func, smp_processor_id());
			return;
		}
		cpu_relax();
	}
}

static bool __cancel_work(struct work_struct *w, enum work_kind kind, enum cancel_wait wait,
			  enum cancel_disable disable, const void *ip)
{
	const char *op = disable == CANCEL_DISABLE ? "disable_work_sync" : "cancel_work_sync";
	unsigned long flags;

	if (!work_valid(w, disable == CANCEL_DISABLE ? "disable_work" : "cancel_work"))
		return false;
	/* For the validator: it may wait for w. */
	bool reported = wait == CANCEL_SYNC && lock_wait_for(&w->lockdep_map, w, ip);
	/* From here on queue_work(w) fails: a self-requeue too. */
	int ret = grab_pending(w, kind, &flags);

	local_irq_restore(flags);
	if (wait == CANCEL_SYNC) {
		/* Where it may be running: the pool of its last start (it
		 * cannot start again while we hold PENDING). */
		struct worker_pool *last = READ_ONCE(w->last_pool);

		if (last && last->bh) {
			bh_wait_running(w, last, op, reported);
		} else {
			might_sleep();
			__flush_work(w, reported, ip); /* wait for an execution in progress */
		}
	}
	if (disable == CANCEL_DISABLE &&
	    !WARN_ONCE(work_disable_count(w) == WORK_DISABLE_MAX,
		       "disable_work(%pS): disabled %u times already: not counted", w->func,
		       WORK_DISABLE_MAX))
		__atomic_fetch_add(&w->flags, 1ul << WORK_DISABLE_SHIFT, __ATOMIC_RELAXED);
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	if (ret == 1 && w->put)
		w->put(w);
	return ret == 1;
}

bool cancel_work(struct work_struct *w)
{
	return __cancel_work(w, WORK_PLAIN, CANCEL_NO_WAIT, CANCEL_ONLY,
			     __builtin_return_address(0));
}

bool cancel_work_sync(struct work_struct *w)
{
	return __cancel_work(w, WORK_PLAIN, CANCEL_SYNC, CANCEL_ONLY, __builtin_return_address(0));
}

bool cancel_delayed_work(struct delayed_work *dw)
{
	return __cancel_work(&dw->work, WORK_DELAYED, CANCEL_NO_WAIT, CANCEL_ONLY,
			     __builtin_return_address(0));
}

bool cancel_delayed_work_sync(struct delayed_work *dw)
{
	return __cancel_work(&dw->work, WORK_DELAYED, CANCEL_SYNC, CANCEL_ONLY,
			     __builtin_return_address(0));
}

bool disable_work(struct work_struct *w)
{
	return __cancel_work(w, WORK_PLAIN, CANCEL_NO_WAIT, CANCEL_DISABLE,
			     __builtin_return_address(0));
}

bool disable_work_sync(struct work_struct *w)
{
	return __cancel_work(w, WORK_PLAIN, CANCEL_SYNC, CANCEL_DISABLE,
			     __builtin_return_address(0));
}

bool disable_delayed_work(struct delayed_work *dw)
{
	return __cancel_work(&dw->work, WORK_DELAYED, CANCEL_NO_WAIT, CANCEL_DISABLE,
			     __builtin_return_address(0));
}

bool disable_delayed_work_sync(struct delayed_work *dw)
{
	return __cancel_work(&dw->work, WORK_DELAYED, CANCEL_SYNC, CANCEL_DISABLE,
			     __builtin_return_address(0));
}

/* A disabled item is never queued, so PENDING is free or held only for a
 * moment (a queueing that gives it back, another disable or enable): take
 * it to change the count. An item with no disable is left alone (stealing
 * PENDING from a queued one would cancel it). Any context. */
bool enable_work(struct work_struct *w)
{
	if (!work_valid(w, "enable_work"))
		return false;
	unsigned long flags = local_irq_save();
	bool owned = false;

	while (work_disable_count(w) &&
	       !(owned = !test_and_set_bit(WORK_STRUCT_PENDING, &w->flags)))
		cpu_relax();
	unsigned int left = work_disable_count(w);

	if (left)
		__atomic_fetch_sub(&w->flags, 1ul << WORK_DISABLE_SHIFT, __ATOMIC_RELAXED);
	if (owned)
		clear_bit(WORK_STRUCT_PENDING, &w->flags);
	local_irq_restore(flags);
	WARN_ONCE(!left, "enable_work(%pS) of an item that is not disabled: ignored", w->func);
	return left <= 1;
}

bool enable_delayed_work(struct delayed_work *dw)
{
	return enable_work(&dw->work);
}

bool enable_and_queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	if (!enable_work(w))
		return false;
	queue_work(wq, w);
	return true;
}

unsigned int work_busy(struct work_struct *w)
{
	struct worker_pool *pool = READ_ONCE(w->last_pool);
	unsigned int ret = work_pending(w) ? WORK_BUSY_PENDING : 0;

	if (pool) {
		unsigned long flags = spin_lock_irqsave(&pool->lock);

		if (find_worker_executing(pool, w))
			ret |= WORK_BUSY_RUNNING;
		spin_unlock_irqrestore(&pool->lock, flags);
	}
	return ret;
}
