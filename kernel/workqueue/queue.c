/* kernel/workqueue/queue.c - queueing: the path from queue_work_on() to an
 * item on its pool's worklist (or its pwq's inactive list), delayed items
 * and their timers, and grabbing a pending item off its queue or timer
 * (for cancel and mod_delayed_work). workqueue.h ("Queueing") says what
 * each step decides.
 *
 * __queue_work() is the whole of queueing, one helper per decision: does
 * the workqueue take it (wq_takes_work), which pwq (pwq_for_cpu, then
 * lock_pwq_not_reentered: where it still runs), its flush colour
 * (pwq_take_work), active or waiting over max_active, and whom to tell
 * (pwq_activate_or_wait, trustee_needed). It calls into worker.c (waking
 * a worker, the non-reentrancy lookup), adapt.c (watch_for_hog), manage.c
 * (mayday_watch) and trustee.c (trustee_news), all under pool->lock.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/deterministic.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/workqueue/internal.h"
#include "lib/errno.h"

void __init_work(struct work_struct *w, work_func_t fn, const char *name,
		 const struct lock_class_key *key)
{
	lockdep_init_map(&w->lockdep_map, name, key, LD_WORK);
	w->flags = 0;
	INIT_LIST_HEAD(&w->entry);
	w->func = fn;
	w->pwq = NULL;
	w->last_pool = NULL;
	w->get = NULL;
	w->put = NULL;
	w->color = WORK_NO_COLOR;
	w->magic = WORK_MAGIC;
}

void work_set_refs(struct work_struct *w, void (*get)(struct work_struct *),
		   void (*put)(struct work_struct *))
{
	w->get = get;
	w->put = put;
}

static void delayed_work_timer_fn(struct timer_list *t);

void __init_delayed_work(struct delayed_work *dw, work_func_t fn, const char *name,
			 const struct lock_class_key *key)
{
	__init_work(&dw->work, fn, name, key);
	timer_setup(&dw->timer, delayed_work_timer_fn);
	dw->wq = NULL;
}

bool work_valid(struct work_struct *w, const char *op)
{
	return !WARN_ONCE(w->magic != WORK_MAGIC,
			  "%s of a work item that was never initialised or was freed (%p: magic "
			  "%#x, func %pS)",
			  op, w, w->magic, w->func);
}

static bool wq_valid(struct workqueue_struct *wq, const char *op, struct work_struct *w)
{
	return !WARN_ONCE(
		!wq || wq->magic != WQ_MAGIC,
		"%s(%pS) to a workqueue that was destroyed or never allocated (%p, magic %#x)", op,
		w->func, wq, wq ? wq->magic : 0);
}

/* Out of line: keeps the queueing fast path short. */
static __noinline unsigned int wq_bad_cpu_arg(unsigned int cpu, const char *op,
					      struct work_struct *w)
{
	WARN_ONCE(1, "%s_on(cpu%u, %pS): not a possible CPU; queued as if WORK_CPU_UNBOUND", op,
		  cpu, w->func);
	return WORK_CPU_UNBOUND;
}

/* The cpu of a *_on call: a possible CPU (online or not) or
 * WORK_CPU_UNBOUND. Any other number is misuse, reported once; the item
 * goes where plain queue_work() would put it. Any context. */
static inline unsigned int wq_cpu_arg(unsigned int cpu, const char *op, struct work_struct *w)
{
	if (likely(cpu == WORK_CPU_UNBOUND || cpu_possible(cpu)))
		return cpu;
	return wq_bad_cpu_arg(cpu, op, w);
}

/* The caller took PENDING (and the reference): give both back. */
static void release_pending(struct work_struct *w)
{
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	if (w->put)
		w->put(w);
}

/* Does wq take w? No if it is not a live workqueue, or it is being drained
 * or destroyed and w is not chained work (queued by an item of wq): each
 * reported once. Any context. */
static bool wq_takes_work(struct workqueue_struct *wq, struct work_struct *w)
{
	if (!wq_valid(wq, "queue_work", w))
		return false;
	if (unlikely(READ_ONCE(wq->nr_drainers) || READ_ONCE(wq->destroying)) &&
	    !is_chained_work(wq)) {
		WARN_ONCE(1, "queue_work(%pS) to workqueue %s while it is being %s: refused",
			  w->func, wq->name, READ_ONCE(wq->destroying) ? "destroyed" : "drained");
		return false;
	}
	return true;
}

/* The pwq an item queued to wq for cpu goes to: an unbound workqueue's
 * one, or the CPU map's (an offline CPU's items go to its pool all the
 * same: its trustee has them run on other CPUs, workqueue.h, "CPUs going
 * offline"; with a CPU mask, the map sends them to the mask's CPUs).
 * Interrupts off. */
static struct pool_workqueue *pwq_for_cpu(struct workqueue_struct *wq, unsigned int cpu)
{
	if (wq->flags & WQ_UNBOUND)
		return READ_ONCE(wq->dfl_pwq);
	if (cpu >= NR_CPUS || !READ_ONCE(wq->cpu_pwqs[cpu]))
		cpu = smp_processor_id();
	return READ_ONCE(wq->cpu_pwqs[cpu]);
}

/* Non-reentrancy: is w still running on another pool of wq? Then it goes
 * to the pwq it runs from, so that it never runs on two workers at once;
 * otherwise to pwq. Returns the pwq chosen, its pool locked; *running is
 * set if it is the one w runs from (which may be retired: w goes there
 * all the same). Interrupts off. */
static struct pool_workqueue *lock_pwq_not_reentered(struct workqueue_struct *wq,
						     struct work_struct *w,
						     struct pool_workqueue *pwq, bool *running)
{
	struct worker_pool *last = READ_ONCE(w->last_pool);

	*running = false;
	if (last && last != pwq->pool) {
		spin_lock(&last->lock);
		struct worker *worker = find_worker_executing(last, w);

		if (worker && worker->current_pwq && worker->current_pwq->wq == wq) {
			*running = true;
			return worker->current_pwq;
		}
		spin_unlock_no_resched(&last->lock);
	}
	spin_lock(&pwq->pool->lock);
	return pwq;
}

/* w goes to pwq: it takes the workqueue's flush colour now (flush.c) and
 * counts in flight. pool->lock held. */
static void pwq_take_work(struct pool_workqueue *pwq, struct work_struct *w)
{
	struct workqueue_struct *wq = pwq->wq;

	WRITE_ONCE(w->pwq, pwq);
	trace_event(TR_WORK_QUEUE, current, (u64)w, (u64)w->func);
	w->color = READ_ONCE(wq->work_color);
	atomic_inc(&wq->nr_color[w->color]);
	pwq->nr_in_flight++;
}

/* Put w on its pool's worklist if max_active allows, and tell the pool:
 * a worker to wake, a runner to watch for hogging it, a mayday timer to
 * arm should no worker be idle; over max_active it waits on the pwq's
 * inactive list instead. pool->lock held. */
static void pwq_activate_or_wait(struct pool_workqueue *pwq, struct work_struct *w)
{
	struct worker_pool *pool = pwq->pool;

	if (pwq->nr_active < pwq->max_active) {
		pwq->nr_active++;
		list_add_tail(&w->entry, &pool->worklist);
		if (need_more_worker(pool))
			wake_up_worker(pool);
		else
			watch_for_hog(pool);
		if (unlikely(!pool->nr_idle))
			mayday_watch(pool);
	} else {
		set_bit(WORK_STRUCT_INACTIVE, &w->flags);
		pwq->nr_inactive++;
		list_add_tail(&w->entry, &pwq->inactive);
	}
}

/* Whom __queue_work() tells once it has dropped pool->lock. */
enum queue_tell { TELL_NOBODY, TELL_TRUSTEE, TELL_BH_DRAIN };

/* A disassociated pool's trustee is told of new work, and must be queued
 * too if no worker is idle (it manages the pool); an offline CPU's BH
 * pool is drained on a live CPU (bh.c) unless a drain runs it now.
 * pool->lock held. */
static enum queue_tell whom_to_tell(struct worker_pool *pool)
{
	if (!pool->disassociated)
		return TELL_NOBODY;
	if (pool->bh)
		return pool->bh_running ? TELL_NOBODY : TELL_BH_DRAIN;
	trustee_news(pool);
	return pool->nr_idle ? TELL_NOBODY : TELL_TRUSTEE;
}

/* Queue w, whose PENDING bit the caller owns, to wq for cpu. Interrupts
 * off. Returns false (PENDING and reference released) if refused. */
bool __queue_work(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	struct pool_workqueue *pwq;
	bool running;

	if (!wq_takes_work(wq, w)) {
		release_pending(w);
		return false;
	}
	for (;;) {
		pwq = pwq_for_cpu(wq, cpu);
		delay_point(DP_QUEUE);
		pwq = lock_pwq_not_reentered(wq, w, pwq, &running);
		if (likely(!pwq->retired || running))
			break;
		/* apply_workqueue_attrs() replaced it under us: take the new one. */
		spin_unlock_no_resched(&pwq->pool->lock);
	}
	struct worker_pool *pool = pwq->pool;

	pwq_take_work(pwq, w);
	pwq_activate_or_wait(pwq, w);
	enum queue_tell tell = whom_to_tell(pool);

	spin_unlock_no_resched(&pool->lock);
	if (unlikely(tell != TELL_NOBODY)) {
		if (tell == TELL_TRUSTEE)
			queue_work(trustee_wq, &pool->trustee_work.work); /* it needs a worker */
		else
			queue_bh_drain(pool);
	}
	return true;
}

/* Having taken PENDING: if w is disabled, give it back. True if it was.
 * Inline, as claim_pending() below: every queueing asks. */
static __always_inline bool clear_pending_if_disabled(struct work_struct *w)
{
	if (likely(!(__atomic_load_n(&w->flags, __ATOMIC_RELAXED) & WORK_DISABLE_MASK)))
		return false; /* (one test of the word: every queueing asks) */
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	return true;
}

/* Take PENDING for a new queueing: false if it was pending already, or
 * the item is disabled (disable_work()). */
static __always_inline bool claim_pending(struct work_struct *w)
{
	if (test_and_set_bit(WORK_STRUCT_PENDING, &w->flags) || clear_pending_if_disabled(w))
		return false;
	if (w->get)
		w->get(w);
	return true;
}

bool queue_work_on(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	bool ret = false;

	if (!work_valid(w, "queue_work"))
		return false;
	cpu = wq_cpu_arg(cpu, "queue_work", w);
	unsigned long flags = local_irq_save();

	if (claim_pending(w))
		ret = __queue_work(cpu, wq, w);
	local_irq_restore(flags);
	preempt_check_resched();
	return ret;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	return queue_work_on(WORK_CPU_UNBOUND, wq, w);
}

bool schedule_work(struct work_struct *w)
{
	return queue_work(system_wq, w);
}

static void delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dw = container_of(t, struct delayed_work, timer);
	struct workqueue_struct *wq = dw->wq;

	/* Timer callbacks only queue work: this is the whole of it. */
	__queue_work(dw->cpu, wq, &dw->work);
	atomic_dec(&wq->nr_timers); /* after: destroy_workqueue waits for this */
}

/* Queue dw (PENDING owned) after delay_ns. Interrupts off. */
static void __queue_delayed_work(unsigned int cpu, struct workqueue_struct *wq,
				 struct delayed_work *dw, u64 delay_ns)
{
	if (!wq_valid(wq, "queue_delayed_work", &dw->work)) {
		release_pending(&dw->work);
		return;
	}
	dw->wq = wq;
	dw->cpu = cpu;
	if (!delay_ns) {
		__queue_work(cpu, wq, &dw->work);
		return;
	}
	unsigned int tcpu = cpu < NR_CPUS && cpu_online(cpu) ? cpu : smp_processor_id();

	atomic_inc(&wq->nr_timers);
	add_timer_on(&dw->timer, ktime_get_ns() + delay_ns, tcpu);
}

bool queue_delayed_work_on(unsigned int cpu, struct workqueue_struct *wq, struct delayed_work *dw,
			   u64 delay_ns)
{
	bool ret = false;

	if (!work_valid(&dw->work, "queue_delayed_work"))
		return false;
	cpu = wq_cpu_arg(cpu, "queue_delayed_work", &dw->work);
	unsigned long flags = local_irq_save();

	if (claim_pending(&dw->work)) {
		__queue_delayed_work(cpu, wq, dw, delay_ns);
		ret = true;
	}
	local_irq_restore(flags);
	preempt_check_resched();
	return ret;
}

bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, u64 delay_ns)
{
	return queue_delayed_work_on(WORK_CPU_UNBOUND, wq, dw, delay_ns);
}

/* ---- grabbing a pending item (cancel, mod) ------------------------------ */

/* Try to own w's PENDING bit with w queued nowhere. Returns 1 if it was
 * pending and we took it off its queue or timer (its reference is still
 * held: the caller puts or reuses it), 0 if it was idle and PENDING is now
 * ours, -EAGAIN if it is in transit (being queued or started right now):
 * try again. On 0 and 1, interrupts stay disabled (*irqflags restores). */
static int try_grab_pending(struct work_struct *w, enum work_kind kind, unsigned long *irqflags)
{
	*irqflags = local_irq_save();
	if (kind == WORK_DELAYED) {
		struct delayed_work *dw = to_delayed_work(w);

		if (del_timer(&dw->timer)) {
			atomic_dec(&dw->wq->nr_timers);
			return 1;
		}
	}
	if (!test_and_set_bit(WORK_STRUCT_PENDING, &w->flags))
		return 0;
	struct pool_workqueue *pwq = READ_ONCE(w->pwq);

	if (pwq) {
		struct worker_pool *pool = pwq->pool;

		spin_lock(&pool->lock);
		if (READ_ONCE(w->pwq) == pwq && !list_empty(&w->entry)) {
			bool active = !test_bit(WORK_STRUCT_INACTIVE, &w->flags);

			list_del_init(&w->entry);
			clear_bit(WORK_STRUCT_LINKED, &w->flags); /* its barriers run alone */
			if (!active) {
				clear_bit(WORK_STRUCT_INACTIVE, &w->flags);
				pwq->nr_inactive--;
			}
			WRITE_ONCE(w->pwq, NULL);
			pwq_dec_nr_in_flight(pwq, w->color,
					     active ? WORK_WAS_ACTIVE : WORK_WAS_INACTIVE);
			spin_unlock_no_resched(&pool->lock);
			return 1;
		}
		spin_unlock_no_resched(&pool->lock);
	}
	local_irq_restore(*irqflags);
	return -EAGAIN;
}

int grab_pending(struct work_struct *w, enum work_kind kind, unsigned long *irqflags)
{
	int ret;

	while ((ret = try_grab_pending(w, kind, irqflags)) == -EAGAIN)
		cpu_relax();
	return ret;
}

bool mod_delayed_work_on(unsigned int cpu, struct workqueue_struct *wq, struct delayed_work *dw,
			 u64 delay_ns)
{
	unsigned long flags;

	if (!work_valid(&dw->work, "mod_delayed_work"))
		return false;
	cpu = wq_cpu_arg(cpu, "mod_delayed_work", &dw->work);
	int ret = grab_pending(&dw->work, WORK_DELAYED, &flags);

	/* Disabled: not queued (it cannot have been pending). */
	if (ret == 0 && clear_pending_if_disabled(&dw->work)) {
		local_irq_restore(flags);
		return false;
	}
	if (ret == 0 && dw->work.get)
		dw->work.get(&dw->work); /* a new queueing; when stolen, its reference carries over
					  */
	__queue_delayed_work(cpu, wq, dw, delay_ns);
	local_irq_restore(flags);
	preempt_check_resched();
	return ret == 1;
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, u64 delay_ns)
{
	return mod_delayed_work_on(WORK_CPU_UNBOUND, wq, dw, delay_ns);
}
