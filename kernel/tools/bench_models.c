/* kernel/tools/bench_models.c - cmwq and the models it replaced, behind one
 * work-item API; see bench_models.h.
 *
 * The dedicated model is Linux 2.6.35's workqueue, reduced to what matters
 * for the comparison: a cpu_workqueue_struct per CPU (here struct dq) with
 * a lock, a list and one thread that takes the items off the list in order
 * and runs them (run_workqueue()); flush waits until the thread has run
 * everything queued before the flush (as its barrier items did). The
 * thread-per-item model creates a thread per queueing, bound to the CPU,
 * whose whole life is the item.
 */
#define pr_fmt(fmt) "bench_models: " fmt
#include "kernel/tools/bench_models.h"
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "lib/cpumask.h"
#include "lib/printf.h"
#include "lib/string.h"

const char *const bench_model_names[NR_BENCH_MODELS] = { "cmwq", "dedicated", "thread-per-item" };

/* How long a thread creation is retried before the item is given up
 * (reported: a benchmark that loses an item fails). */
#define CREATE_RETRY_MS	  1
#define CREATE_GIVE_UP_MS 10000

/* One dedicated worker thread and its list (2.6.35's cpu_workqueue_struct). */
struct dq {
	struct spinlock lock;
	struct list_head list;		/* lock: queued items, in order */
	u64 queued;			/* lock: items ever put on the list */
	u64 done;			/* lock: items ever run to the end */
	struct wait_queue_head more;	/* the thread waits here for items */
	struct wait_queue_head flushed; /* flushers wait here for done */
	struct thread *thread;		/* I */
};

struct model_wq {
	enum bench_model model;	     /* I */
	unsigned int flags;	     /* I */
	char name[24];		     /* I */
	struct workqueue_struct *wq; /* I: MODEL_CMWQ */
	struct dq *dqs[NR_CPUS];     /* I: MODEL_DEDICATED, per online CPU (or [0] if single) */
	atomic_t in_flight;	     /* MODEL_THREAD_PER_ITEM: threads not finished */
	struct wait_queue_head idle; /* MODEL_THREAD_PER_ITEM: in_flight reached 0 */
};

static atomic_long_t threads_created[NR_BENCH_MODELS];
static atomic_long_t create_retries[NR_BENCH_MODELS];

void model_counters(enum bench_model model, struct model_counters *c)
{
	c->threads_created = (u64)atomic_long_read(&threads_created[model]);
	c->create_retries = (u64)atomic_long_read(&create_retries[model]);
}

/* Take the PENDING bit as queue_work() does: false if w is queued already. */
static bool claim(struct work_struct *w)
{
	return !test_and_set_bit(WORK_STRUCT_PENDING, &w->flags);
}

/* Run w as a worker does: PENDING is cleared first, so w may requeue itself. */
static void run_item(struct work_struct *w)
{
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	w->func(w);
}

/* A thread creation that failed for lack of memory or stacks is tried
 * again every CREATE_RETRY_MS: true while it is worth it, false once
 * CREATE_GIVE_UP_MS have passed since give_up was set. */
static bool retry_create(enum bench_model model, u64 give_up_ns)
{
	if (ktime_get_ns() > give_up_ns)
		return false;
	atomic_long_add_return(1, &create_retries[model]);
	msleep(CREATE_RETRY_MS);
	return true;
}

/* Evaluates the kthread_create* expression until it gives a thread or
 * retry_create() gives up; counts the thread. */
#define create_thread(model, expr)                                                                 \
	({                                                                                         \
		u64 __give_up = ktime_get_ns() + CREATE_GIVE_UP_MS * NSEC_PER_MSEC;                \
		struct thread *__t;                                                                \
		while (!(__t = (expr)) && retry_create((model), __give_up))                        \
			;                                                                          \
		if (__t)                                                                           \
			atomic_long_add_return(1, &threads_created[model]);                        \
		__t;                                                                               \
	})

/* ---- dedicated: one thread per workqueue per CPU ---------------------------- */

static int dq_thread(void *arg)
{
	struct dq *q = arg;

	for (;;) {
		wait_event(q->more,
			   READ_ONCE(q->queued) != READ_ONCE(q->done) || kthread_should_stop());
		spin_lock_irq(&q->lock);
		if (list_empty(&q->list) && kthread_should_stop()) {
			spin_unlock_irq(&q->lock);
			return 0;
		}
		while (!list_empty(&q->list)) {
			struct work_struct *w =
				list_first_entry(&q->list, struct work_struct, entry);

			list_del_init(&w->entry);
			spin_unlock_irq(&q->lock);
			run_item(w);
			spin_lock_irq(&q->lock);
			q->done++;
			wake_up_all(&q->flushed);
		}
		spin_unlock_irq(&q->lock);
	}
}

static void dq_free(struct dq *q)
{
	if (q->thread)
		kthread_stop(q->thread);
	kfree(q);
}

static struct dq *dq_create(const char *name, unsigned int cpu)
{
	struct dq *q = kzalloc(sizeof(*q));
	char tname[32];

	if (!q)
		return NULL;
	spin_lock_init(&q->lock, "bench_models.dq");
	INIT_LIST_HEAD(&q->list);
	init_waitqueue_head(&q->more);
	init_waitqueue_head(&q->flushed);
	if (cpu < NR_CPUS) {
		snprintf(tname, sizeof(tname), "%s/%u", name, cpu);
		q->thread = create_thread(MODEL_DEDICATED,
					  kthread_create_on_cpu(dq_thread, q, cpu, "%s", tname));
	} else {
		q->thread =
			create_thread(MODEL_DEDICATED, kthread_create(dq_thread, q, "%s", name));
	}
	if (!q->thread) {
		kfree(q);
		return NULL;
	}
	wake_up_thread(q->thread);
	return q;
}

static void dq_queue(struct dq *q, struct work_struct *w)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);
	list_add_tail(&w->entry, &q->list);
	q->queued++;
	spin_unlock_irqrestore(&q->lock, flags);
	wake_up(&q->more);
}

static void dq_flush(struct dq *q)
{
	spin_lock_irq(&q->lock);
	u64 target = q->queued;

	spin_unlock_irq(&q->lock);
	wait_event(q->flushed, READ_ONCE(q->done) >= target);
}

/* ---- thread per item ---------------------------------------------------------- */

struct tpi_arg {
	struct model_wq *mwq;
	struct work_struct *w;
};

static int tpi_thread(void *arg)
{
	struct tpi_arg a = *(struct tpi_arg *)arg;

	kfree(arg);
	run_item(a.w);
	if (atomic_dec_and_test(&a.mwq->in_flight))
		wake_up_all(&a.mwq->idle);
	return 0;
}

/* Sleeps: it creates the item's thread. */
static bool tpi_queue(struct model_wq *mwq, unsigned int cpu, struct work_struct *w)
{
	struct tpi_arg *a;
	struct thread *t = NULL;

	might_sleep();
	a = kmalloc(sizeof(*a));

	if (a) {
		a->mwq = mwq;
		a->w = w;
		atomic_inc(&mwq->in_flight);
		t = create_thread(MODEL_THREAD_PER_ITEM,
				  kthread_create_on_cpu(tpi_thread, a, cpu, "%s", mwq->name));
	}
	if (!t) {
		pr_err("%s: no thread for an item: it is lost\n", mwq->name);
		if (a && atomic_dec_and_test(&mwq->in_flight))
			wake_up_all(&mwq->idle);
		kfree(a);
		clear_bit(WORK_STRUCT_PENDING, &w->flags);
		return false;
	}
	wake_up_thread(t);
	put_thread(t); /* freed when it exits */
	return true;
}

/* ---- the common interface ------------------------------------------------------- */

struct model_wq *model_wq_create(enum bench_model model, const char *name, unsigned int flags)
{
	struct model_wq *mwq = kzalloc(sizeof(*mwq));
	unsigned int cpu;

	might_sleep();
	if (!mwq)
		return NULL;
	mwq->model = model;
	mwq->flags = flags;
	strscpy(mwq->name, name, sizeof(mwq->name));
	atomic_set(&mwq->in_flight, 0);
	init_waitqueue_head(&mwq->idle);
	switch (model) {
	case MODEL_CMWQ:
		mwq->wq = alloc_workqueue(name, 0, 0);
		if (!mwq->wq)
			goto fail;
		break;
	case MODEL_DEDICATED:
		if (flags & MODEL_WQ_SINGLE) {
			mwq->dqs[0] = dq_create(name, NR_CPUS);
			if (!mwq->dqs[0])
				goto fail;
			break;
		}
		for_each_online_cpu(cpu) {
			mwq->dqs[cpu] = dq_create(name, cpu);
			if (!mwq->dqs[cpu])
				goto fail;
		}
		break;
	case MODEL_THREAD_PER_ITEM:
		break;
	default:
		WARN(1, "no execution model %d", model);
		goto fail;
	}
	return mwq;
fail:
	model_wq_destroy(mwq);
	return NULL;
}

/* The baselines' queueing, out of line: model_queue_on() is on the burst's
 * per-item path, and a switch whose other cases make calls of their own
 * saves five registers on every entry (18 instructions per item, measured
 * with baton-profile), which would be counted as cmwq's. */
static __noinline bool model_queue_baseline(struct model_wq *mwq, unsigned int cpu,
					    struct work_struct *w)
{
	switch (mwq->model) {
	case MODEL_DEDICATED:
		if (mwq->flags & MODEL_WQ_SINGLE)
			cpu = 0;
		if (WARN_ONCE(cpu >= NR_CPUS || !mwq->dqs[cpu], "%s: no thread for cpu%u",
			      mwq->name, cpu))
			return false;
		if (!claim(w))
			return false;
		dq_queue(mwq->dqs[cpu], w);
		return true;
	case MODEL_THREAD_PER_ITEM:
		if (!claim(w))
			return false;
		return tpi_queue(mwq, cpu, w);
	default:
		return false;
	}
}

bool model_queue_on(struct model_wq *mwq, unsigned int cpu, struct work_struct *w)
{
	if (mwq->model == MODEL_CMWQ)
		return queue_work_on(cpu, mwq->wq, w);
	return model_queue_baseline(mwq, cpu, w);
}

void model_flush(struct model_wq *mwq)
{
	might_sleep();
	switch (mwq->model) {
	case MODEL_CMWQ:
		flush_workqueue(mwq->wq);
		break;
	case MODEL_DEDICATED:
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
			if (mwq->dqs[cpu])
				dq_flush(mwq->dqs[cpu]);
		break;
	case MODEL_THREAD_PER_ITEM:
		wait_event(mwq->idle, atomic_read(&mwq->in_flight) == 0);
		break;
	default:
		break;
	}
}

unsigned int model_wq_threads(struct model_wq *mwq)
{
	unsigned int n = 0;

	switch (mwq->model) {
	case MODEL_DEDICATED:
		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
			n += mwq->dqs[cpu] != NULL;
		return n;
	case MODEL_THREAD_PER_ITEM:
		return (unsigned int)atomic_read(&mwq->in_flight);
	default:
		return 0;
	}
}

void model_wq_destroy(struct model_wq *mwq)
{
	might_sleep();
	if (!mwq)
		return;
	if (mwq->wq)
		destroy_workqueue(mwq->wq);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		if (mwq->dqs[cpu]) {
			dq_flush(mwq->dqs[cpu]);
			dq_free(mwq->dqs[cpu]);
		}
	}
	if (mwq->model == MODEL_THREAD_PER_ITEM)
		model_flush(mwq);
	kfree(mwq);
}
