/* kernel/workqueue.c - the concurrency-managed workqueue; the design is in
 * workqueue.h.
 *
 * Field legend: I = set at creation; L = pool->lock; A = atomic;
 * W = the worker itself (on its pool's CPU).
 *
 * Policy lives in small predicates, as in Linux:
 *   need_more_worker   work is pending and no worker runs
 *   may_start_working  an idle worker is left to take over if we block
 *   keep_working       work is pending and we are the only one running
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/workqueue.h"
#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/printf.h"
#include "lib/string.h"

#define NR_STD_POOLS 2	/* per CPU: normal, high priority */
#define HIGHPRI_NICE (-20)

/* Worker flags. Those in WORKER_NOT_RUNNING keep a worker out of nr_running. */
#define WORKER_IDLE (1u << 0)
#define WORKER_PREP (1u << 1)
#define WORKER_CPU_INTENSIVE (1u << 2)
#define WORKER_DIE (1u << 3)
#define WORKER_NOT_RUNNING (WORKER_IDLE | WORKER_PREP | WORKER_CPU_INTENSIVE | WORKER_DIE)

struct worker_pool {
	struct spinlock lock;
	unsigned int cpu;		/* I */
	int nice;			/* I */
	struct list_head worklist;	/* L */
	struct list_head idle_list;	/* L: most recently idle first */
	struct list_head workers;	/* L: all of them */
	unsigned int nr_workers;	/* L */
	unsigned int nr_idle;		/* L */
	atomic_t nr_running;		/* A: changed only on the pool's CPU */
	bool manager_active;		/* L */
	u64 nr_executed;		/* L */
	u64 nr_created;			/* L */
	int next_id;			/* L */
};

struct worker {
	struct thread *thread;		/* I */
	struct worker_pool *pool;	/* I */
	int id;				/* I */
	struct list_head node;		/* L: pool->workers */
	struct list_head idle_entry;	/* L: pool->idle_list */
	struct list_head scheduled;	/* L: works handed to this worker */
	struct work_struct *current_work;	/* L */
	work_func_t current_func;	/* L */
	struct pool_workqueue *current_pwq;	/* L */
	unsigned int flags;		/* L, and W for its own NOT_RUNNING changes */
	bool sleeping;			/* W: sleeping() ran */
};

struct pool_workqueue {
	struct workqueue_struct *wq;	/* I */
	struct worker_pool *pool;	/* I */
	int nr_active;			/* L: items on the worklist or running */
	int max_active;			/* L */
	int nr_in_flight;		/* L: queued, inactive or running */
	struct list_head inactive;	/* L: over max_active, in order */
};

struct workqueue_struct {
	char name[24];			/* I */
	unsigned int flags;		/* I */
	int max_active;			/* I */
	struct pool_workqueue *cpu_pwqs[NR_CPUS];	/* I */
};

struct wq_barrier {
	struct work_struct work;
	struct completion done;
};

static struct worker_pool cpu_pools[NR_CPUS][NR_STD_POOLS];
struct workqueue_struct *system_wq;
struct workqueue_struct *system_highpri_wq;
struct workqueue_struct *system_long_wq;

static bool need_more_worker(struct worker_pool *pool)
{
	return !list_empty(&pool->worklist) && !atomic_read(&pool->nr_running);
}

static bool may_start_working(struct worker_pool *pool)
{
	return pool->nr_idle > 0;
}

static bool keep_working(struct worker_pool *pool)
{
	return !list_empty(&pool->worklist) && atomic_read(&pool->nr_running) <= 1;
}

/* Called with pool->lock held. */
static struct worker *first_idle_worker(struct worker_pool *pool)
{
	return list_first_entry_or_null(&pool->idle_list, struct worker, idle_entry);
}

static void wake_up_worker(struct worker_pool *pool)
{
	struct worker *w = first_idle_worker(pool);

	if (w)
		wake_up_thread(w->thread);
}

/* Flag changes of the worker itself (pool->lock held, on its CPU). */
static void worker_set_flags(struct worker *worker, unsigned int flags)
{
	if ((flags & WORKER_NOT_RUNNING) && !(worker->flags & WORKER_NOT_RUNNING))
		atomic_dec(&worker->pool->nr_running);
	worker->flags |= flags;
}

static void worker_clr_flags(struct worker *worker, unsigned int flags)
{
	unsigned int old = worker->flags;

	worker->flags &= ~flags;
	if ((old & WORKER_NOT_RUNNING) && !(worker->flags & WORKER_NOT_RUNNING))
		atomic_inc(&worker->pool->nr_running);
}

static void worker_enter_idle(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	worker->flags |= WORKER_IDLE;
	pool->nr_idle++;
	list_add(&worker->idle_entry, &pool->idle_list);	/* LIFO */
}

static void worker_leave_idle(struct worker *worker)
{
	if (!(worker->flags & WORKER_IDLE))
		return;
	worker->flags &= ~WORKER_IDLE;
	worker->pool->nr_idle--;
	list_del_init(&worker->idle_entry);
}

/* ---- the scheduler hooks: concurrency management ------------------------ */

/* The worker blocks (rq lock held, interrupts off, on the pool's CPU). If it
 * was the last running worker and work is pending, hand the scheduler an
 * idle worker to wake. Lock-free: only this CPU's workers touch idle_list
 * and none of them is inside pool->lock now (spinlocks disable preemption,
 * so a holder would be the current thread, which is us, blocking). */
static struct thread *wq_worker_sleeping(struct thread *t, void *data)
{
	struct worker *worker = data;
	struct worker_pool *pool = worker->pool;

	if (worker->flags & WORKER_NOT_RUNNING)
		return NULL;
	worker->sleeping = true;
	if (atomic_dec_return(&pool->nr_running) == 0 && !list_empty(&pool->worklist)) {
		struct worker *idle = first_idle_worker(pool);

		return idle ? idle->thread : NULL;
	}
	return NULL;
}

static void wq_worker_running(struct thread *t, void *data)
{
	struct worker *worker = data;

	if (!worker->sleeping)
		return;
	preempt_disable();
	if (!(worker->flags & WORKER_NOT_RUNNING))
		atomic_inc(&worker->pool->nr_running);
	worker->sleeping = false;
	preempt_enable();
}

static const struct sched_hook_ops wq_worker_hooks = {
	.sleeping = wq_worker_sleeping,
	.running = wq_worker_running,
};

/* ---- executing work ----------------------------------------------------- */

/* The worker of this pool executing w, or NULL. pool->lock held. */
static struct worker *find_worker_executing(struct worker_pool *pool, struct work_struct *w)
{
	struct worker *worker;

	assert_spin_locked(&pool->lock);
	list_for_each_entry(worker, &pool->workers, node)
		if (worker->current_work == w && worker->current_func == w->func)
			return worker;
	return NULL;
}

static bool work_is_barrier(struct work_struct *w);

/* Move inactive items to the worklist while max_active allows. A flush
 * barrier waiting among them takes no slot. pool->lock held. */
static void pwq_activate_inactive(struct pool_workqueue *pwq)
{
	while (!list_empty(&pwq->inactive) && pwq->nr_active < pwq->max_active) {
		struct work_struct *w = list_first_entry(&pwq->inactive, struct work_struct, entry);

		list_move_tail(&w->entry, &pwq->pool->worklist);
		if (!work_is_barrier(w))
			pwq->nr_active++;
	}
}

/* An item of pwq is done (or cancelled). pool->lock held. */
static void pwq_dec_nr_in_flight(struct pool_workqueue *pwq, bool was_active)
{
	assert_spin_locked(&pwq->pool->lock);
	pwq->nr_in_flight--;
	if (!was_active)
		return;
	pwq->nr_active--;
	pwq_activate_inactive(pwq);
}

/* Run w on this worker. pool->lock held on entry and exit (dropped inside). */
static void process_one_work(struct worker *worker, struct work_struct *w)
{
	struct worker_pool *pool = worker->pool;
	struct pool_workqueue *pwq = w->pwq;
	struct worker *collision = find_worker_executing(pool, w);
	bool barrier = work_is_barrier(w);

	if (collision) {
		/* Non-reentrancy: the worker already running it takes it next. */
		list_move_tail(&w->entry, &collision->scheduled);
		return;
	}
	list_del_init(&w->entry);
	worker->current_work = w;
	worker->current_func = w->func;
	worker->current_pwq = pwq;
	bool intensive = pwq && (pwq->wq->flags & WQ_CPU_INTENSIVE);

	if (intensive) {
		worker_set_flags(worker, WORKER_CPU_INTENSIVE);
		if (need_more_worker(pool))
			wake_up_worker(pool);
	}
	w->last_pool = pool;
	w->pwq = NULL;
	/* From here on it may be queued again (it will wait for us). */
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	spin_unlock_irq(&pool->lock);

	worker->current_func(w);
	WARN_ONCE(preempt_count() != 0 || irqs_disabled(),
		  "work function %pS returned with preemption (%d) or interrupts off", worker->current_func,
		  preempt_count());

	spin_lock_irq(&pool->lock);
	if (intensive)
		worker_clr_flags(worker, WORKER_CPU_INTENSIVE);
	pool->nr_executed++;
	worker->current_work = NULL;
	worker->current_func = NULL;
	worker->current_pwq = NULL;
	if (pwq)
		pwq_dec_nr_in_flight(pwq, !barrier);
}

static void process_scheduled_works(struct worker *worker)
{
	while (!list_empty(&worker->scheduled))
		process_one_work(worker, list_first_entry(&worker->scheduled, struct work_struct, entry));
}

/* ---- workers ------------------------------------------------------------ */

static int worker_thread(void *arg);

/* Create one worker for pool and start it idle. May sleep; no locks held. */
static struct worker *create_worker(struct worker_pool *pool)
{
	struct worker *worker = kzalloc(sizeof(*worker));

	if (!worker)
		return NULL;
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	worker->id = pool->next_id++;
	spin_unlock_irqrestore(&pool->lock, flags);
	worker->pool = pool;
	INIT_LIST_HEAD(&worker->scheduled);
	INIT_LIST_HEAD(&worker->idle_entry);
	worker->thread = kthread_create_on_cpu(worker_thread, worker, pool->cpu, "kworker/%u:%d%s",
					       pool->cpu, worker->id, pool->nice < 0 ? "H" : "");
	if (!worker->thread) {
		kfree(worker);
		return NULL;
	}
	kthread_set_data(worker->thread, worker);
	sched_set_nice(worker->thread, pool->nice);
	flags = spin_lock_irqsave(&pool->lock);
	worker->flags = WORKER_PREP;
	list_add_tail(&worker->node, &pool->workers);
	pool->nr_workers++;
	pool->nr_created++;
	worker_enter_idle(worker);
	spin_unlock_irqrestore(&pool->lock, flags);
	wake_up_thread(worker->thread);
	return worker;
}

/* The manager role: make sure an idle worker exists. pool->lock held;
 * returns true if it dropped the lock (the caller must re-check). */
static bool manage_workers(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	if (pool->manager_active)
		return false;
	pool->manager_active = true;
	while (!may_start_working(pool) && need_more_worker(pool)) {
		spin_unlock_irq(&pool->lock);
		if (!create_worker(pool))
			msleep(10);	/* out of memory or threads: try again */
		spin_lock_irq(&pool->lock);
	}
	pool->manager_active = false;
	return true;
}

static int worker_thread(void *arg)
{
	struct worker *worker = arg;
	struct worker_pool *pool = worker->pool;

	sched_hook_add(&wq_worker_hooks, worker);
	for (;;) {
		spin_lock_irq(&pool->lock);
		worker_leave_idle(worker);
recheck:
		if (!need_more_worker(pool))
			goto sleep;
		if (!may_start_working(pool) && manage_workers(worker))
			goto recheck;
		worker_clr_flags(worker, WORKER_PREP);
		do {
			struct work_struct *w =
				list_first_entry(&pool->worklist, struct work_struct, entry);

			process_one_work(worker, w);
			process_scheduled_works(worker);
		} while (keep_working(pool));
		worker_set_flags(worker, WORKER_PREP);
sleep:
		worker_enter_idle(worker);
		set_current_state(THREAD_BLOCKED);
		spin_unlock_irq(&pool->lock);
		schedule();
	}
	return 0;
}

/* ---- queueing ----------------------------------------------------------- */

void __init_work(struct work_struct *w, work_func_t fn)
{
	w->flags = 0;
	INIT_LIST_HEAD(&w->entry);
	w->func = fn;
	w->pwq = NULL;
	w->last_pool = NULL;
	w->magic = WORK_MAGIC;
}

static void delayed_work_timer_fn(struct timer_list *t);

void __init_delayed_work(struct delayed_work *dw, work_func_t fn)
{
	__init_work(&dw->work, fn);
	timer_setup(&dw->timer, delayed_work_timer_fn);
}

/* Queue w, whose PENDING bit the caller owns, to wq for cpu. */
static void __queue_work(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	unsigned long flags = local_irq_save();

	if (cpu >= NR_CPUS || !cpu_online(cpu))
		cpu = smp_processor_id();
	struct pool_workqueue *pwq = wq->cpu_pwqs[cpu];
	struct worker_pool *last = READ_ONCE(w->last_pool);

	/* Still running on another pool of this workqueue? Queue it there, so
	 * that it never runs on two workers at once. */
	if (last && last != pwq->pool) {
		spin_lock(&last->lock);
		struct worker *worker = find_worker_executing(last, w);

		if (worker && worker->current_pwq && worker->current_pwq->wq == wq) {
			pwq = worker->current_pwq;
		} else {
			spin_unlock_no_resched(&last->lock);
			spin_lock(&pwq->pool->lock);
		}
	} else {
		spin_lock(&pwq->pool->lock);
	}
	struct worker_pool *pool = pwq->pool;

	w->pwq = pwq;
	pwq->nr_in_flight++;
	if (pwq->nr_active < pwq->max_active) {
		pwq->nr_active++;
		list_add_tail(&w->entry, &pool->worklist);
		if (need_more_worker(pool))
			wake_up_worker(pool);
	} else {
		list_add_tail(&w->entry, &pwq->inactive);
	}
	spin_unlock_no_resched(&pool->lock);
	local_irq_restore(flags);
	preempt_check_resched();
}

static bool work_valid(struct work_struct *w, const char *op)
{
	return !WARN_ONCE(w->magic != WORK_MAGIC,
			  "%s of a work item that was never initialised (%p: magic %#x, func %pS)", op,
			  w, w->magic, w->func);
}

bool queue_work_on(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	if (!work_valid(w, "queue_work"))
		return false;
	if (test_and_set_bit(WORK_STRUCT_PENDING, &w->flags))
		return false;
	__queue_work(cpu, wq, w);
	return true;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	preempt_disable();
	bool r = queue_work_on(smp_processor_id(), wq, w);

	preempt_enable();
	return r;
}

bool schedule_work(struct work_struct *w)
{
	return queue_work(system_wq, w);
}

static void delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dw = container_of(t, struct delayed_work, timer);

	/* Timer callbacks only queue work: this is the whole of it. */
	__queue_work(dw->cpu, dw->wq, &dw->work);
}

bool queue_delayed_work_on(unsigned int cpu, struct workqueue_struct *wq, struct delayed_work *dw,
			   u64 delay_ns)
{
	if (!work_valid(&dw->work, "queue_delayed_work"))
		return false;
	if (test_and_set_bit(WORK_STRUCT_PENDING, &dw->work.flags))
		return false;
	dw->wq = wq;
	dw->cpu = cpu;
	if (!delay_ns) {
		__queue_work(cpu, wq, &dw->work);
		return true;
	}
	unsigned long flags = local_irq_save();
	unsigned int tcpu = cpu < NR_CPUS && cpu_online(cpu) ? cpu : smp_processor_id();

	add_timer_on(&dw->timer, ktime_get_ns() + delay_ns, tcpu);
	local_irq_restore(flags);
	return true;
}

bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, u64 delay_ns)
{
	preempt_disable();
	bool r = queue_delayed_work_on(smp_processor_id(), wq, dw, delay_ns);

	preempt_enable();
	return r;
}

/* ---- flushing and cancelling -------------------------------------------- */

static void wq_barrier_func(struct work_struct *w)
{
	complete(&container_of(w, struct wq_barrier, work)->done);
}

static bool work_is_barrier(struct work_struct *w)
{
	return w->func == wq_barrier_func;
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
		cpu_relax();	/* it moved (being queued or started): look again */
	}
}

bool flush_work(struct work_struct *w)
{
	struct wq_barrier barr;
	struct worker *worker;
	unsigned long flags;

	might_sleep();
	if (!work_valid(w, "flush_work"))
		return false;
	struct worker_pool *pool = lock_work_pool(w, &worker, &flags);

	if (!pool)
		return false;
	if (worker && worker->thread == current) {
		spin_unlock_irqrestore(&pool->lock, flags);
		WARN_ONCE(1, "flush_work(%pS) from inside that work item would wait forever", w->func);
		return false;
	}
	__init_work(&barr.work, wq_barrier_func);
	init_completion(&barr.done);
	set_bit(WORK_STRUCT_PENDING, &barr.work.flags);
	if (worker) {
		/* Running: the barrier runs right after it, on the same worker. */
		list_add(&barr.work.entry, &worker->scheduled);
	} else {
		/* Queued: the barrier runs right after it, in list order. */
		barr.work.pwq = w->pwq;
		list_add(&barr.work.entry, &w->entry);
		w->pwq->nr_in_flight++;
	}
	if (need_more_worker(pool))
		wake_up_worker(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	wait_for_completion(&barr.done);
	return true;
}

/* Take w off its queue if it is pending there; true if we now own its
 * PENDING bit with it queued nowhere. */
static bool grab_pending(struct work_struct *w)
{
	for (;;) {
		if (!test_and_set_bit(WORK_STRUCT_PENDING, &w->flags))
			return true;	/* was idle: ours now */
		struct pool_workqueue *pwq = READ_ONCE(w->pwq);

		if (!pwq) {
			cpu_relax();	/* between PENDING and queued, or a delayed timer */
			continue;
		}
		unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

		if (READ_ONCE(w->pwq) == pwq && !list_empty(&w->entry) &&
		    test_bit(WORK_STRUCT_PENDING, &w->flags)) {
			bool active = true;
			struct work_struct *pos;

			list_for_each_entry(pos, &pwq->inactive, entry)
				if (pos == w)
					active = false;
			list_del_init(&w->entry);
			w->pwq = NULL;
			pwq_dec_nr_in_flight(pwq, active);
			spin_unlock_irqrestore(&pwq->pool->lock, flags);
			return true;
		}
		spin_unlock_irqrestore(&pwq->pool->lock, flags);
	}
}

bool cancel_work_sync(struct work_struct *w)
{
	might_sleep();
	if (!work_valid(w, "cancel_work_sync"))
		return false;
	bool was_pending = work_pending(w);

	grab_pending(w);	/* from here, queue_work(w) fails: a self-requeue too */
	flush_work(w);		/* wait for an execution in progress */
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	return was_pending;
}

bool cancel_delayed_work_sync(struct delayed_work *dw)
{
	might_sleep();
	bool was_pending = del_timer_sync(&dw->timer);

	if (was_pending) {
		/* The timer owned PENDING; now we do. Wait for a running one. */
		flush_work(&dw->work);
		clear_bit(WORK_STRUCT_PENDING, &dw->work.flags);
		return true;
	}
	return cancel_work_sync(&dw->work);
}

struct work_struct *current_work(void)
{
	struct thread *t = current;

	if (t->nr_hooks == 0 || t->hook_ops[0] != &wq_worker_hooks)
		return NULL;
	return ((struct worker *)kthread_data(t))->current_work;
}

/* ---- workqueues --------------------------------------------------------- */

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active)
{
	struct workqueue_struct *wq = kzalloc(sizeof(*wq));
	unsigned int cpu;

	if (!wq)
		return NULL;
	if (max_active <= 0)
		max_active = WQ_DFL_ACTIVE;
	strscpy(wq->name, name, sizeof(wq->name));
	wq->flags = flags;
	wq->max_active = max_active;
	for_each_possible_cpu(cpu) {
		struct pool_workqueue *pwq = kzalloc(sizeof(*pwq));

		if (!pwq) {
			destroy_workqueue(wq);
			return NULL;
		}
		pwq->wq = wq;
		pwq->pool = &cpu_pools[cpu][(flags & WQ_HIGHPRI) ? 1 : 0];
		pwq->max_active = max_active;
		INIT_LIST_HEAD(&pwq->inactive);
		wq->cpu_pwqs[cpu] = pwq;
	}
	return wq;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pool_workqueue *pwq = wq->cpu_pwqs[cpu];

		if (pwq)
			WARN(pwq->nr_in_flight, "destroy_workqueue(%s): %d items still in flight on cpu%u",
			     wq->name, pwq->nr_in_flight, cpu);
		kfree(pwq);
	}
	kfree(wq);
}

static void init_pool(struct worker_pool *pool, unsigned int cpu, int nice)
{
	spin_lock_init(&pool->lock, "pool->lock");
	pool->cpu = cpu;
	pool->nice = nice;
	INIT_LIST_HEAD(&pool->worklist);
	INIT_LIST_HEAD(&pool->idle_list);
	INIT_LIST_HEAD(&pool->workers);
}

void workqueue_pool_stats(unsigned int cpu, bool highpri, struct wq_pool_stats *st)
{
	struct worker_pool *pool = &cpu_pools[cpu][highpri ? 1 : 0];
	struct list_head *pos;
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	*st = (struct wq_pool_stats){
		.nr_workers = pool->nr_workers,
		.nr_idle = pool->nr_idle,
		.nr_running = atomic_read(&pool->nr_running),
		.nr_executed = pool->nr_executed,
		.nr_created = pool->nr_created,
	};
	list_for_each(pos, &pool->worklist)
		st->nr_pending++;
	spin_unlock_irqrestore(&pool->lock, flags);
}

void workqueue_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		init_pool(&cpu_pools[cpu][0], cpu, 0);
		init_pool(&cpu_pools[cpu][1], cpu, HIGHPRI_NICE);
	}
	for_each_online_cpu(cpu)
		for (int i = 0; i < NR_STD_POOLS; i++)
			if (!create_worker(&cpu_pools[cpu][i]))
				panic("workqueue: cannot create the first worker of cpu%u", cpu);
	system_wq = alloc_workqueue("events", 0, 0);
	system_highpri_wq = alloc_workqueue("events_highpri", WQ_HIGHPRI, 0);
	system_long_wq = alloc_workqueue("events_long", 0, 0);
	if (!system_wq || !system_highpri_wq || !system_long_wq)
		panic("workqueue: cannot allocate the system workqueues");
}
