/* kernel/tools/bench_compare.c - the same workloads on cmwq and on the
 * models it replaced (bench_models.h), and CPU offline with the trustee
 * against drain-first; see bench_compare.h for the scenarios and the
 * output, docs/bench.md for the figures.
 */
#define pr_fmt(fmt) "bench: " fmt
#include "kernel/tools/bench_compare.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/boot_defs.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/pmm.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/tools/bench_models.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/sort.h"
#include "lib/string.h"

/* A state the scenario reaches by construction (all items started, an
 * item run) is waited for at most this long in guest time; past it the
 * scenario fails instead of hanging the boot. Generous: a loaded host
 * running many virtual CPUs stretches guest time (-smp 32 on two cores). */
#define MUST_NS (60 * NSEC_PER_SEC)
/* The chain deadlocks the dedicated model by design: it is declared
 * stalled after this long, and must be (a small run, the tests': sooner,
 * a deadlock being no likelier to end after 5 s than after 0.2). The
 * other models have MUST_NS to finish it; a stall of theirs fails the
 * scenario. */
#define STALL_NS       (5 * NSEC_PER_SEC)
#define STALL_SMALL_NS (200 * NSEC_PER_MSEC)

#define KSTACK_KIB (KSTACK_SIZE / 1024)

/* One item of a scenario: what it does, and what happened to it.
 *
 * Field legend (this struct and struct cmp_run): no lock guards these.
 * BQ = written by the measuring thread before it queues the item;
 * X = written by the item's one execution, read by the measuring thread
 * only after a flush or after waiting for them (wait queues order the
 * accesses: their lock is taken on both sides); MT = written by the
 * measuring thread, read by the items with READ_ONCE; A = atomic;
 * I = set before anything runs. */
struct citem {
	struct work_struct work;
	struct cmp_run *run;		  /* I */
	unsigned int idx;		  /* I */
	unsigned int cpu;		  /* BQ: where it was queued */
	bool blocks;			  /* BQ: mixed: sleeps instead of spinning */
	atomic_t runs;			  /* A: executions: exactly one is right */
	u64 queued_ns;			  /* BQ: latency only */
	u64 start_ns, end_ns;		  /* X (end_ns with WRITE_ONCE: chain waits on it) */
	struct wait_queue_head done_wait; /* chain: its predecessor waits here */
};

/* One scenario run in one model (legend as for struct citem). */
struct cmp_run {
	const struct cmp_ctx *c;    /* I */
	enum bench_model model;	    /* I */
	struct model_wq *mwq;	    /* I */
	struct citem *items;	    /* I */
	unsigned int nr;	    /* I */
	atomic_t started, finished; /* A */
	atomic_t order;		    /* A: burst: the next index expected (dedicated) */
	atomic_t out_of_order;	    /* A */
	u64 last_end_ns;	    /* X of the item that finished last */
	/* Each waiter has a queue of its own, so that no wake-up is wasted
	 * on a thread waiting for something else (the figures would count
	 * them). */
	struct wait_queue_head wait; /* the measuring thread: started, finished */
	struct wait_queue_head gate; /* gated items: gate_open */
	bool gate_open;		     /* MT */
	bool abort;		     /* MT: chain: stalled, the waiters give up */
	unsigned int chain_reached;  /* X of each chain item in turn: deepest that ran */
	bool spin_stop;		     /* MT: latency: the busy CPU's load stops */
};

static u64 now(void)
{
	return ktime_get_ns();
}

static void spin_ns(u64 ns)
{
	u64 end = now() + ns;

	while (now() < end)
		cpu_relax();
}

static void item_start(struct citem *it)
{
	it->start_ns = now();
	atomic_inc(&it->runs);
	atomic_inc(&it->run->started);
	wake_up_all(&it->run->wait);
}

static void item_end(struct citem *it)
{
	struct cmp_run *r = it->run;

	WRITE_ONCE(it->end_ns, now());
	if (atomic_inc_return(&r->finished) == (int)r->nr)
		WRITE_ONCE(r->last_end_ns, it->end_ns);
	wake_up_all(&it->done_wait);
	wake_up_all(&r->wait);
}

static struct cmp_run *run_alloc(const struct cmp_ctx *c, enum bench_model model, unsigned int nr,
				 work_func_t fn, unsigned int flags)
{
	struct cmp_run *r = kzalloc(sizeof(*r));

	if (!r)
		return NULL;
	r->c = c;
	r->model = model;
	r->nr = nr;
	init_waitqueue_head(&r->wait);
	init_waitqueue_head(&r->gate);
	r->items = kcalloc(nr ? nr : 1, sizeof(*r->items));
	r->mwq = model_wq_create(model, "bench/m", flags);
	if (!r->items || !r->mwq) {
		model_wq_destroy(r->mwq);
		kfree(r->items);
		kfree(r);
		return NULL;
	}
	for (unsigned int i = 0; i < nr; i++) {
		INIT_WORK(&r->items[i].work, fn);
		r->items[i].run = r;
		r->items[i].idx = i;
		init_waitqueue_head(&r->items[i].done_wait);
	}
	/* Free the threads earlier runs left dead now: else the first thread
	 * created inside this run's measurement (a new worker, say) frees
	 * them all, and this run is charged for an earlier one's threads. */
	kthread_reap();
	return r;
}

/* Every item ran exactly once: 0, or -EIO with the first culprit named. */
static int run_check(struct cmp_run *r, const char *scenario)
{
	for (unsigned int i = 0; i < r->nr; i++) {
		int n = atomic_read(&r->items[i].runs);

		if (n != 1) {
			pr_err("%s %s: item %u ran %d times\n", scenario,
			       bench_model_names[r->model], i, n);
			return -EIO;
		}
	}
	return 0;
}

static void run_free(struct cmp_run *r)
{
	if (!r)
		return;
	model_wq_destroy(r->mwq);
	kfree(r->items);
	kfree(r);
}

static bool queue_item(struct cmp_run *r, unsigned int i, unsigned int cpu)
{
	struct citem *it = &r->items[i];

	it->cpu = cpu;
	return model_queue_on(r->mwq, cpu, &it->work);
}

/* Wait, at most limit_ns, until cond; false if it never came. */
#define wait_within(r, cond, limit_ns) (wait_event_timeout((r)->wait, (cond), (limit_ns)) != 0)
#define wait_bounded(r, cond)	       wait_within(r, cond, MUST_NS)

static u64 cpu_switches(unsigned int cpu)
{
	struct rq_stats st;

	sched_get_rq_stats(cpu, &st);
	return st.nr_switches;
}

static u64 pages_in_use(void)
{
	struct pmm_stats st;

	pmm_get_stats(&st);
	return st.total_pages - st.free_pages;
}

#define for_each_model(m) for (enum bench_model m = 0; m < NR_BENCH_MODELS; m++)

/* ---- 1. no-op burst ------------------------------------------------------------ */

/* As little as an item can do and still be counted: what is measured is
 * the queueing and the running. */
static void noop_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);
	struct cmp_run *r = it->run;

	atomic_inc(&it->runs);
	if (r->model == MODEL_DEDICATED && atomic_xchg(&r->order, (int)it->idx + 1) != (int)it->idx)
		atomic_inc(&r->out_of_order);
}

static int burst_one(const struct cmp_ctx *c, enum bench_model m, const char *row)
{
	unsigned int nr = c->small ? 32 : 10000;
	int err = 0;

	{
		struct cmp_run *r = run_alloc(c, m, nr, noop_fn, 0);

		if (!r)
			return -ENOMEM;
		model_flush(r->mwq); /* its threads have started and sleep */
		msleep(1);
		u64 sw0 = cpu_switches(c->a), t0 = now();

		/* The burst arrives as from an interrupt handler or a section
		 * holding a spinlock: nothing runs on this CPU until all are
		 * queued, so a model can batch them. A thread per item cannot
		 * be made there (creating a thread sleeps): it is queued with
		 * preemption on, and its threads may run in between. */
		bool atomic = m != MODEL_THREAD_PER_ITEM;

		if (atomic)
			preempt_disable();
		for (unsigned int i = 0; i < nr; i++)
			queue_item(r, i, c->a);
		u64 tq = now();

		if (atomic)
			preempt_enable();
		model_flush(r->mwq);
		u64 t1 = now(), sw1 = cpu_switches(c->a);

		err = run_check(r, "burst");
		if (!err && atomic_read(&r->out_of_order)) {
			pr_err("burst dedicated: %d items out of queueing order\n",
			       atomic_read(&r->out_of_order));
			err = -EIO;
		}
		if (!err)
			bench_cmp_line("burst", row ? row : bench_model_names[m],
				       "items=%u ns=%lu queue_ns=%lu switches=%lu", nr, t1 - t0,
				       tq - t0, sw1 - sw0);
		run_free(r);
		if (err)
			return err;
	}
	return 0;
}

static int scenario_burst(const struct cmp_ctx *c)
{
	for_each_model(m) {
		int err = burst_one(c, m, NULL);

		if (err)
			return err;
	}
	return 0;
}

/* ---- 2. sleepers ---------------------------------------------------------------- */

#define SLEEP_MS 10

static void sleep_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);

	item_start(it);
	msleep(SLEEP_MS);
	item_end(it);
}

/* Queue r's n items to cpu and wait for them: first queued to last done. */
static u64 sleepers_round(struct cmp_run *r, unsigned int cpu)
{
	msleep(1);
	atomic_set(&r->finished, 0);
	u64 t0 = now();

	for (unsigned int i = 0; i < r->nr; i++)
		queue_item(r, i, cpu);
	model_flush(r->mwq);
	return r->last_end_ns - t0;
}

/* Each size twice: the first round (first_ns) finds cmwq's pool with the
 * workers earlier scenarios left, and makes those it lacks; the second
 * (ns) finds them made, as the dedicated model's threads were made when
 * its queue was. */
static int scenario_sleepers(const struct cmp_ctx *c)
{
	static const unsigned int full[] = { 1, 8, 64, 256 }, small[] = { 1, 4 };
	const unsigned int *ns = c->small ? small : full;
	unsigned int nn = c->small ? ARRAY_SIZE(small) : ARRAY_SIZE(full);

	for (unsigned int k = 0; k < nn; k++) {
		for_each_model(m) {
			struct cmp_run *r = run_alloc(c, m, ns[k], sleep_fn, 0);
			int err;

			if (!r)
				return -ENOMEM;
			u64 first = sleepers_round(r, c->a);

			err = run_check(r, "sleepers");
			for (unsigned int i = 0; i < r->nr; i++)
				atomic_set(&r->items[i].runs, 0);
			u64 second = err ? 0 : sleepers_round(r, c->a);

			if (!err)
				err = run_check(r, "sleepers");
			if (!err)
				bench_cmp_line("sleepers", bench_model_names[m],
					       "n=%u ns=%lu first_ns=%lu", ns[k], second, first);
			run_free(r);
			if (err)
				return err;
		}
	}
	return 0;
}

/* ---- 3. mixed: CPU-bound and blocking items on every CPU ------------------------ */

#define MIXED_SPIN_NS  (1 * NSEC_PER_MSEC)
#define MIXED_BLOCK_MS 10

static void mixed_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);

	item_start(it);
	if (it->blocks)
		msleep(MIXED_BLOCK_MS);
	else
		spin_ns(MIXED_SPIN_NS);
	item_end(it);
}

static int scenario_mixed(const struct cmp_ctx *c)
{
	unsigned int per_cpu = c->small ? 2 : 32; /* of each kind */
	unsigned int ncpus = num_online_cpus();

	for_each_model(m) {
		struct cmp_run *r = run_alloc(c, m, 2 * per_cpu * ncpus, mixed_fn, 0);
		unsigned int cpu, i = 0;
		int err;

		if (!r)
			return -ENOMEM;
		model_flush(r->mwq);
		msleep(1);
		u64 t0 = now();

		/* Interleaved: spin, block, spin, block ... on each CPU in turn. */
		for (unsigned int k = 0; k < 2 * per_cpu; k++)
			for_each_online_cpu(cpu) {
				r->items[i].blocks = k % 2;
				queue_item(r, i++, cpu);
			}
		model_flush(r->mwq);
		err = run_check(r, "mixed");
		if (!err) {
			u64 spin_last = 0, block_last = 0;

			for (i = 0; i < r->nr; i++) {
				u64 *last = r->items[i].blocks ? &block_last : &spin_last;

				*last = max(*last, r->items[i].end_ns - t0);
			}
			bench_cmp_line("mixed", bench_model_names[m],
				       "cpus=%u items=%u ns=%lu spin_ns=%lu block_ns=%lu", ncpus,
				       r->nr, r->last_end_ns - t0, spin_last, block_last);
		}
		run_free(r);
		if (err)
			return err;
	}
	return 0;
}

/* ---- 4. dependency chain ---------------------------------------------------------- */

static void chain_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);
	struct cmp_run *r = it->run;

	item_start(it);
	if (!READ_ONCE(r->abort)) {
		WRITE_ONCE(r->chain_reached, max(READ_ONCE(r->chain_reached), it->idx + 1));
		if (it->idx + 1 < r->nr) {
			struct citem *next = &r->items[it->idx + 1];

			/* Queue the successor on the same queue and wait for it;
			 * give up when the bench declares the chain stalled. */
			if (queue_item(r, it->idx + 1, it->cpu))
				wait_event(next->done_wait,
					   READ_ONCE(next->end_ns) || READ_ONCE(r->abort));
		}
	}
	item_end(it);
}

static int scenario_chain(const struct cmp_ctx *c)
{
	unsigned int depth = c->small ? 4 : 256;
	int verdict = 0; /* -EIO once a model did not do what it must */

	for_each_model(m) {
		struct cmp_run *r = run_alloc(c, m, depth, chain_fn, 0);
		int err = 0;

		if (!r)
			return -ENOMEM;
		model_flush(r->mwq);
		msleep(1);
		u64 t0 = now();

		queue_item(r, 0, c->a);
		u64 limit = m != MODEL_DEDICATED ? MUST_NS : c->small ? STALL_SMALL_NS : STALL_NS;
		bool done = wait_within(r, READ_ONCE(r->items[0].end_ns) != 0, limit);
		u64 t1 = now();

		if (!done) {
			/* Stalled: the waiting items give up, the rest do nothing. */
			WRITE_ONCE(r->abort, true);
			for (unsigned int i = 0; i < depth; i++)
				wake_up_all(&r->items[i].done_wait);
		}
		model_flush(r->mwq);
		unsigned int ran = (unsigned int)atomic_read(&r->started);

		/* Exactly once for every item that was queued (the chain stops
		 * queueing once aborted). */
		for (unsigned int i = 0; i < ran && !err; i++)
			if (atomic_read(&r->items[i].runs) != 1) {
				pr_err("chain %s: item %u ran %d times\n", bench_model_names[m], i,
				       atomic_read(&r->items[i].runs));
				err = -EIO;
			}
		if (!err && done && ran != depth) {
			pr_err("chain %s: finished with %u of %u items run\n", bench_model_names[m],
			       ran, depth);
			err = -EIO;
		}
		if (!err)
			bench_cmp_line("chain", bench_model_names[m],
				       "depth=%u completed=%d reached=%u ns=%lu", depth, done,
				       READ_ONCE(r->chain_reached), done ? t1 - t0 : limit);
		/* The line is printed either way (bench.py checks it too); the
		 * remaining models still run. A model that must finish the
		 * chain and did not stalled: only the waiters' giving up ended
		 * it. One thread per CPU that finished it was never made to
		 * wait on its own queue: the scenario tested nothing. */
		if (!err && !done && m != MODEL_DEDICATED) {
			pr_err("chain %s: stalled: item 0 not done after %lu ms of guest time, "
			       "the deepest item run %u of %u\n",
			       bench_model_names[m], (u64)(limit / NSEC_PER_MSEC),
			       READ_ONCE(r->chain_reached), depth);
			verdict = -EIO;
		}
		if (!err && done && m == MODEL_DEDICATED) {
			pr_err("chain dedicated: completed, but one thread per CPU must deadlock "
			       "on it: no item waited on its own queue\n");
			verdict = -EIO;
		}
		run_free(r);
		if (err)
			return err;
	}
	return verdict;
}

/* ---- 5. threads and memory for many workqueues -------------------------------------- */

#define THREADS_WQS 16

static void gated_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);
	struct cmp_run *r = it->run;

	item_start(it);
	wait_event(r->gate, READ_ONCE(r->gate_open));
	item_end(it);
}

/* Threads that serve mwqs: a baseline's own; for cmwq, the workers of the
 * per-CPU normal pools, which serve every bound workqueue. */
static unsigned int serving_threads(enum bench_model m, struct cmp_run **runs, unsigned int n)
{
	unsigned int t = 0, cpu;

	if (m == MODEL_CMWQ) {
		for_each_online_cpu(cpu) {
			struct wq_pool_stats st;

			workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &st);
			t += st.nr_workers;
		}
		return t;
	}
	for (unsigned int i = 0; i < n; i++)
		t += model_wq_threads(runs[i]->mwq);
	return t;
}

/* What one measurement of one model with nwq queues found. */
struct threads_fig {
	unsigned int threads; /* serving the queues */
	int added;	      /* threads that exist now and did not before */
	s64 mem_kib;	      /* pages in use now over before */
};

/* Create nwq queues of model m; with load, block one item per queue per
 * CPU; measure; let everything go. */
static int threads_one(const struct cmp_ctx *c, enum bench_model m, unsigned int nwq, bool load,
		       struct threads_fig *fig)
{
	struct cmp_run *runs[THREADS_WQS] = { 0 };
	unsigned int ncpus = num_online_cpus(), cpu;
	s64 pages0 = (s64)pages_in_use();
	int threads0 = (int)nr_threads();
	bool all = true;
	int err = 0;

	for (unsigned int i = 0; i < nwq && !err; i++) {
		runs[i] = run_alloc(c, m, load ? ncpus : 0, gated_fn, 0);
		if (!runs[i])
			err = -ENOMEM;
	}
	for (unsigned int i = 0; i < nwq && !err; i++) {
		unsigned int k = 0;

		model_flush(runs[i]->mwq); /* a baseline's threads have started */
		if (load)
			for_each_online_cpu(cpu)
				queue_item(runs[i], k++, cpu);
	}
	for (unsigned int i = 0; i < nwq && !err && load; i++)
		all &= wait_bounded(runs[i], atomic_read(&runs[i]->started) == (int)ncpus);
	if (!err) {
		fig->threads = serving_threads(m, runs, nwq);
		fig->added = (int)nr_threads() - threads0;
		fig->mem_kib = ((s64)pages_in_use() - pages0) * (s64)PAGE_SIZE / 1024;
	}
	for (unsigned int i = 0; i < nwq && runs[i]; i++) {
		WRITE_ONCE(runs[i]->gate_open, true);
		wake_up_all(&runs[i]->gate);
		model_flush(runs[i]->mwq);
		if (!err)
			err = run_check(runs[i], "threads");
	}
	if (!all && !err) {
		pr_err("threads %s: the blocked load never all started\n", bench_model_names[m]);
		err = -EIO;
	}
	for (unsigned int i = 0; i < nwq; i++)
		run_free(runs[i]);
	return err;
}

/* Every idle figure first: blocked items leave cmwq's pools with idle
 * workers for wq_idle_timeout_ms, which the next idle count would see. */
static int scenario_threads(const struct cmp_ctx *c)
{
	static const unsigned int full[] = { 1, 2, 4, 8, THREADS_WQS }, small[] = { 2 };
	const unsigned int *nw = c->small ? small : full;
	unsigned int n = c->small ? ARRAY_SIZE(small) : ARRAY_SIZE(full);
	struct threads_fig idle[NR_BENCH_MODELS][ARRAY_SIZE(full)];
	int err = 0;

	for (unsigned int k = 0; k < n && !err; k++)
		for_each_model(m)
			if (!err)
				err = threads_one(c, m, nw[k], false, &idle[m][k]);
	for (unsigned int k = 0; k < n && !err; k++) {
		for_each_model(m) {
			struct threads_fig busy;

			err = threads_one(c, m, nw[k], true, &busy);
			if (err)
				break;
			bench_cmp_line("threads", bench_model_names[m],
				       "wqs=%u cpus=%u idle=%u idle_added=%d idle_stack_kib=%u "
				       "idle_mem_kib=%ld busy=%u busy_added=%d busy_stack_kib=%u "
				       "busy_mem_kib=%ld",
				       nw[k], num_online_cpus(), idle[m][k].threads,
				       idle[m][k].added, idle[m][k].threads * KSTACK_KIB,
				       idle[m][k].mem_kib, busy.threads, busy.added,
				       busy.threads * KSTACK_KIB, busy.mem_kib);
		}
	}
	return err;
}

/* ---- 6. CPU offline with pending work: trustee against drain-first ------------------ */

#define OFFLINE_ITEM_NS (1 * NSEC_PER_MSEC)

static void cpu_bound_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);

	item_start(it);
	spin_ns(OFFLINE_ITEM_NS);
	item_end(it);
}

/* Drain-first: a step in the hotplug "online" phase whose teardown,
 * run while the CPU still runs but takes no new work, waits until the
 * benchmark's items are done (2.6.35's flush of the dying CPU's queue). */
static struct cmp_run *drain_run;

static int drain_down(unsigned int cpu)
{
	if (drain_run)
		model_flush(drain_run->mwq);
	return 0;
}

static struct cpuhp_step drain_step = {
	.name = "bench:drain-first",
	.phase = CPUHP_ONLINE,
	.teardown = drain_down,
};

static int scenario_offline(const struct cmp_ctx *c)
{
	static const unsigned int full[] = { 0, 10, 100, 1000 }, small[] = { 0, 3 };
	const unsigned int *ps = c->small ? small : full;
	unsigned int np = c->small ? ARRAY_SIZE(small) : ARRAY_SIZE(full);

	if (c->a == c->b) {
		pr_notice("offline: skipped (needs two online CPUs)\n");
		return 0;
	}
	/* One cycle first, not measured: the earlier scenarios leave B's pools
	 * with idle workers and dead threads to reap, which the first cpu_down
	 * would pay for. Every measured cycle then starts from the same state. */
	int err = cpu_down(c->b);

	if (!err)
		err = cpu_up(c->b);
	if (err) {
		pr_err("offline: the warm-up cycle of cpu%u failed (%d)\n", c->b, err);
		return err;
	}
	for (unsigned int k = 0; k < np; k++) {
		for (int drain = 0; drain < 2; drain++) {
			struct cmp_run *r = run_alloc(c, MODEL_CMWQ, ps[k], cpu_bound_fn, 0);
			int uerr;

			if (!r)
				return -ENOMEM;
			msleep(1);
			if (drain) {
				drain_run = r;
				cpuhp_add_step(&drain_step);
			}
			u64 t0 = now();

			for (unsigned int i = 0; i < ps[k]; i++)
				queue_item(r, i, c->b);
			u64 t1 = now();
			unsigned int started = (unsigned int)atomic_read(&r->started);

			err = cpu_down(c->b);
			u64 t2 = now();
			struct cpuhp_stats st;

			cpuhp_get_stats(&st);

			if (drain) {
				cpuhp_remove_step(&drain_step);
				drain_run = NULL;
			}
			model_flush(r->mwq);
			uerr = err ? 0 : cpu_up(c->b);
			if (!err)
				err = run_check(r, "offline");
			if (err || uerr)
				pr_err("offline %s: cpu_down %d, cpu_up %d\n",
				       drain ? "drain-first" : "trustee", err, uerr);
			else
				bench_cmp_line("offline", drain ? "drain-first" : "trustee",
					       "pending=%u queue_ns=%lu started_before_down=%u "
					       "down_ns=%lu dead_ns=%lu last_item_ns=%lu",
					       ps[k], t1 - t0, started, t2 - t1,
					       st.last_down_dead_ns,
					       ps[k] ? r->last_end_ns - t1 : 0);
			run_free(r);
			if (err || uerr)
				return err ? err : uerr;
		}
	}
	return 0;
}

/* ---- 7. latency: queue to start, idle and busy CPU ------------------------------------ */

static void latency_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);

	item_start(it);
	item_end(it);
}

/* The busy CPU's load: an item that spins 1 ms and queues itself again. */
static void spinner_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);
	struct cmp_run *r = it->run;

	atomic_inc(&it->runs);
	spin_ns(OFFLINE_ITEM_NS);
	if (!READ_ONCE(r->spin_stop))
		model_queue_on(r->mwq, it->cpu, w);
}

static u64 pct(const u64 *sorted, unsigned int n, unsigned int p)
{
	return sorted[(n - 1) * p / 100];
}

/* The CPU-intensive marks of cpu's normal pool so far (where the cmwq
 * model's items and load run). */
static u64 hogs_marked(unsigned int cpu)
{
	struct wq_pool_stats st;

	workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &st);
	return st.nr_hogs;
}

/* Queue-to-start of n items on cpu b, one at a time: b idle, or (busy)
 * beside a load of CPU-bound 1 ms items, one after another in the same
 * workqueue. Reported with the items the CPU-hog rule marked meanwhile. */
static int latency_one(const struct cmp_ctx *c, enum bench_model m, bool busy, const char *row)
{
	unsigned int n = c->small ? 5 : 200;
	struct cmp_run *r = run_alloc(c, m, n, latency_fn, 0);
	struct cmp_run *load = busy ? run_alloc(c, m, 1, spinner_fn, 0) : NULL;
	u64 *lat = kcalloc(n, sizeof(u64));
	u64 hogs0 = hogs_marked(c->b);
	int err = 0;

	if (!r || (busy && !load) || !lat) {
		err = -ENOMEM;
		goto out;
	}
	model_flush(r->mwq);
	if (busy) {
		load->items[0].cpu = c->b;
		model_queue_on(load->mwq, c->b, &load->items[0].work);
	}
	for (unsigned int i = 0; i < n; i++) {
		msleep(1);
		r->items[i].queued_ns = now(); /* the only scenario that stamps: not in queue_item
						*/
		queue_item(r, i, c->b);
		if (!wait_bounded(r, READ_ONCE(r->items[i].end_ns) != 0)) {
			pr_err("latency %s: item %u never ran\n", bench_model_names[m], i);
			err = -EIO;
			break;
		}
		lat[i] = r->items[i].start_ns - r->items[i].queued_ns;
	}
	if (busy) {
		WRITE_ONCE(load->spin_stop, true);
		model_flush(load->mwq);
		/* the spinner may still be requeued once by itself: flush again */
		model_flush(load->mwq);
	}
	model_flush(r->mwq);
	if (!err)
		err = run_check(r, "latency");
	if (!err) {
		sort(lat, n, sizeof(u64), cmp_u64);
		bench_cmp_line(busy ? "latency_busy" : "latency_idle",
			       row ? row : bench_model_names[m],
			       "n=%u p50_ns=%lu p99_ns=%lu max_ns=%lu hogs=%lu", n, pct(lat, n, 50),
			       pct(lat, n, 99), lat[n - 1],
			       m == MODEL_CMWQ ? hogs_marked(c->b) - hogs0 : 0);
	}
out:
	kfree(lat);
	run_free(load);
	run_free(r);
	return err;
}

/* The busy CPU must not be the measuring thread's own: with one CPU only
 * the idle figures are taken. */
static int scenario_latency(const struct cmp_ctx *c)
{
	if (c->a == c->b)
		pr_notice("latency: busy CPU skipped (needs two online CPUs)\n");
	for (int busy = 0; busy < (c->a == c->b ? 1 : 2); busy++)
		for_each_model(m) {
			int err = latency_one(c, m, busy, NULL);

			if (err)
				return err;
		}
	return 0;
}

/* ---- 8. creation storm --------------------------------------------------------------- */

/* How often the reaping is looked at, and for how long at most. */
#define STORM_POLL_MS 100

/* Threads the storm added that still exist: for cmwq the workers of the
 * pool beyond those it had before (storm_before), for a thread per item
 * those not finished. */
static struct wq_pool_stats storm_before;

static unsigned int threads_now(const struct cmp_ctx *c, enum bench_model m, struct cmp_run *r)
{
	struct wq_pool_stats st;

	if (m != MODEL_CMWQ)
		return model_wq_threads(r->mwq);
	workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &st);
	return st.nr_workers > storm_before.nr_workers ? st.nr_workers - storm_before.nr_workers :
							 0;
}

/* The storm is repeated this often (cmwq): the pool should keep its
 * workers from one to the next. */
#define STORM_REPEAT_MS 2000
#define STORM_REPEATS	3

/* One storm of r's items: queue them all, wait until all have started
 * (each blocked on the gate), open the gate, wait until all are done.
 * Returns false if they never all started. */
static bool storm_round(const struct cmp_ctx *c, struct cmp_run *r, u64 *all_ns)
{
	atomic_set(&r->started, 0);
	WRITE_ONCE(r->gate_open, false);
	for (unsigned int i = 0; i < r->nr; i++)
		atomic_set(&r->items[i].runs, 0);
	u64 t0 = now();

	for (unsigned int i = 0; i < r->nr; i++)
		queue_item(r, i, c->b);
	bool all = wait_bounded(r, atomic_read(&r->started) == (int)r->nr);

	*all_ns = now() - t0;
	return all;
}

static void storm_release(struct cmp_run *r)
{
	WRITE_ONCE(r->gate_open, true);
	wake_up_all(&r->gate);
	model_flush(r->mwq);
}

static int storm_one(const struct cmp_ctx *c, enum bench_model m)
{
	unsigned int n = c->small ? 8 : 256;
	struct cmp_run *r = run_alloc(c, m, n, gated_fn, 0);
	struct wq_pool_stats peak, st;
	u64 all_ns, again[STORM_REPEATS] = { 0 };
	int err = 0;

	if (!r)
		return -ENOMEM;
	model_flush(r->mwq);
	msleep(1);
	workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &storm_before);
	int threads0 = (int)nr_threads();
	bool all = storm_round(c, r, &all_ns);
	int threads_peak = (int)nr_threads() - threads0;

	workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &peak);
	storm_release(r);
	err = run_check(r, "storm");
	/* cmwq: the same storm every 2 s; how many workers each makes. */
	for (unsigned int k = 0; k < STORM_REPEATS && m == MODEL_CMWQ && !c->small && !err && all;
	     k++) {
		u64 ignored;

		msleep(STORM_REPEAT_MS);
		workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &st);
		all = storm_round(c, r, &ignored);
		storm_release(r);
		err = run_check(r, "storm");
		struct wq_pool_stats after;

		workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &after);
		again[k] = after.nr_created - st.nr_created;
	}
	u64 t2 = now();

	if (!err && !all) {
		pr_err("storm %s: only %d of %u items started at once\n", bench_model_names[m],
		       atomic_read(&r->started), n);
		err = -EIO;
	}
	/* How long until the threads made for the storm are gone again: the
	 * time of the last decrease, once the count has stayed put for a
	 * whole idle timeout (cmwq keeps a few idle workers for good). */
	unsigned int left = threads_now(c, m, r), last = left;
	u64 t3 = t2,
	    quiet_ns = 2 * (u64)wq_idle_timeout_ms * NSEC_PER_MSEC + STORM_POLL_MS * NSEC_PER_MSEC;

	while (!c->small && left && now() - t3 < quiet_ns) {
		msleep(STORM_POLL_MS);
		left = threads_now(c, m, r);
		if (left != last)
			t3 = now();
		last = left;
	}
	if (!err)
		bench_cmp_line("storm", bench_model_names[m],
			       "n=%u created=%lu peak_threads=%d all_started_ns=%lu left=%u "
			       "reap_ns=%lu again1=%lu again2=%lu again3=%lu",
			       n,
			       m == MODEL_CMWQ ? peak.nr_created - storm_before.nr_created :
						 (u64)threads_peak,
			       threads_peak, all_ns, left, t3 - t2, again[0], again[1], again[2]);
	run_free(r);
	return err;
}

static int scenario_storm(const struct cmp_ctx *c)
{
	/* The dedicated model creates no thread for a storm: its one thread
	 * per CPU runs the items one after the other (see "sleepers"). */
	int err = storm_one(c, MODEL_CMWQ);

	return err ? err : storm_one(c, MODEL_THREAD_PER_ITEM);
}

/* ---- 9. short blocks: the creation hold ------------------------------------------- */

#define SHORT_ITEMS   256
#define SHORT_SPIN_NS (5 * NSEC_PER_USEC)

/* A little work, then a block of 20 to 200 us (spread over the items). */
static void short_block_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);

	item_start(it);
	spin_ns(SHORT_SPIN_NS);
	usleep(20 + (it->idx * 73) % 181);
	item_end(it);
}

/* Let cpu's normal pool shed the workers earlier runs left, so that each
 * row starts from the same pool: two idle workers. */
static void pool_to_rest(unsigned int cpu)
{
	unsigned int saved = wq_idle_timeout_ms;
	struct wq_pool_stats st;

	WRITE_ONCE(wq_idle_timeout_ms, 20);
	for (int i = 0; i < 300; i++) {
		workqueue_pool_stats(cpu, WQ_POOL_NORMAL, &st);
		if (st.nr_workers <= 2)
			break;
		msleep(100);
	}
	WRITE_ONCE(wq_idle_timeout_ms, saved);
	if (st.nr_workers > 2)
		pr_notice("shortblock: cpu%u's pool kept %u workers: the row starts from those\n",
			  cpu, st.nr_workers);
}

static int short_one(const struct cmp_ctx *c, const char *row)
{
	unsigned int n = c->small ? 16 : SHORT_ITEMS;
	struct cmp_run *r = run_alloc(c, MODEL_CMWQ, n, short_block_fn, 0);
	struct wq_pool_stats st0, st1;

	if (!r)
		return -ENOMEM;
	if (!c->small) /* the tests' small run checks it works, not its figures */
		pool_to_rest(c->b);
	workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &st0);
	u64 sw0 = cpu_switches(c->b), t0 = now();

	for (unsigned int i = 0; i < n; i++)
		queue_item(r, i, c->b);
	model_flush(r->mwq);
	u64 t1 = now(), sw1 = cpu_switches(c->b);

	workqueue_pool_stats(c->b, WQ_POOL_NORMAL, &st1);
	int err = run_check(r, "shortblock");

	if (!err)
		bench_cmp_line("shortblock", row,
			       "items=%u ns=%lu created=%lu switches=%lu workers=%u deferred=%lu",
			       n, t1 - t0, st1.nr_created - st0.nr_created, sw1 - sw0,
			       st1.nr_workers, st1.nr_deferred - st0.nr_deferred);
	run_free(r);
	return err;
}

/* Rows: the policy before (no hold, no pace, no hog detection), then holds of several
 * lengths (the default's row is the one the claims read). */
static int scenario_shortblock(const struct cmp_ctx *c)
{
	static const unsigned int holds[] = { 50, 100, 200, 500 };
	unsigned int hold = wq_create_hold_us, pace = wq_pace_max_us;
	unsigned int thresh = wq_cpu_intensive_thresh_us;
	char row[32];
	int err;

	WRITE_ONCE(wq_create_hold_us, 0);
	WRITE_ONCE(wq_pace_max_us, 0);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);
	err = short_one(c, "before");
	WRITE_ONCE(wq_pace_max_us, pace);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	for (unsigned int k = 0; k < ARRAY_SIZE(holds) && !err && !c->small; k++) {
		WRITE_ONCE(wq_create_hold_us, holds[k]);
		snprintf(row, sizeof(row), "hold-%uus", holds[k]);
		err = short_one(c, row);
	}
	WRITE_ONCE(wq_create_hold_us, hold);
	if (!err)
		err = short_one(c, "cmwq");
	return err;
}

/* ---- 10. CPU hogs: the threshold -------------------------------------------------- */

/* Behind a hog: n times, an item that spins up to HOG_ITEM_NS starts on
 * cpu b, and once it runs another item is queued there: queue-to-start of
 * that one (the hog is marked after about a threshold, and stops as the
 * item starts). Each hog is a fresh one, never marked before: a hog
 * already marked holds nothing, and an item behind it starts at once. */
#define HOG_ITEM_NS (100 * NSEC_PER_MSEC)

static void hog_fn(struct work_struct *w)
{
	struct citem *it = container_of(w, struct citem, work);
	struct cmp_run *r = it->run;
	u64 end = now() + HOG_ITEM_NS;

	item_start(it);
	while (!READ_ONCE(r->spin_stop) && now() < end)
		cpu_relax();
	item_end(it);
}

static int hog_latency_one(const struct cmp_ctx *c, const char *row)
{
	unsigned int n = c->small ? 3 : 20;
	struct cmp_run *r = run_alloc(c, MODEL_CMWQ, n, latency_fn, 0);
	struct cmp_run *hogs = run_alloc(c, MODEL_CMWQ, n, hog_fn, 0);
	u64 *lat = kcalloc(n, sizeof(u64));
	int err = 0;

	if (!r || !hogs || !lat) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < n && !err; i++) {
		WRITE_ONCE(hogs->spin_stop, false);
		queue_item(hogs, i, c->b);
		if (!wait_bounded(hogs, READ_ONCE(hogs->items[i].start_ns) != 0)) {
			err = -EIO;
			break;
		}
		r->items[i].queued_ns = now();
		queue_item(r, i, c->b);
		if (!wait_bounded(r, READ_ONCE(r->items[i].end_ns) != 0)) {
			pr_err("latency_hog: item %u never ran\n", i);
			err = -EIO;
		}
		lat[i] = r->items[i].start_ns - r->items[i].queued_ns;
		WRITE_ONCE(hogs->spin_stop, true);
		model_flush(hogs->mwq);
	}
	model_flush(r->mwq);
	if (!err) {
		sort(lat, n, sizeof(u64), cmp_u64);
		bench_cmp_line("latency_hog", row, "n=%u p50_ns=%lu p99_ns=%lu max_ns=%lu", n,
			       pct(lat, n, 50), pct(lat, n, 99), lat[n - 1]);
	}
out:
	kfree(lat);
	run_free(hogs);
	run_free(r);
	return err;
}

/* Queue-to-start behind CPU-bound items of 1 ms (ordinary work: no item
 * should be marked at the default) and behind a hog (the item should start
 * within about a threshold), and the burst's cost, for several thresholds
 * (0: no detection, the policy before); the default's rows are the latency
 * and burst scenarios' own. */
static int scenario_hog(const struct cmp_ctx *c)
{
	static const unsigned int thresh[] = { 0, 10000, 1000, 200, 50, 20 };
	unsigned int saved = wq_cpu_intensive_thresh_us;
	char row[32];
	int err = 0;

	if (c->a == c->b) {
		pr_notice("hog: skipped (needs two online CPUs)\n");
		return 0;
	}
	for (unsigned int k = 0; k < ARRAY_SIZE(thresh) && !err; k++) {
		if (c->small && k != 0 && k != ARRAY_SIZE(thresh) - 1)
			continue;
		WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh[k]);
		snprintf(row, sizeof(row), "thresh-%uus", thresh[k]);
		err = latency_one(c, MODEL_CMWQ, true, row);
		if (!err)
			err = hog_latency_one(c, row);
		if (!err)
			err = burst_one(c, MODEL_CMWQ, row);
	}
	WRITE_ONCE(wq_cpu_intensive_thresh_us, saved);
	return err;
}

/* ---- the list ----------------------------------------------------------------------- */

static const struct cmp_scenario scenarios[] = {
	/* The storm first, from pools at rest: it waits until its workers are
	 * reaped, so that "threads" finds the pools at rest too. */
	{ "storm", "256 items blocking at once, then every 2 s: workers made, peak, reaping",
	  scenario_storm },
	{ "threads", "1 to 16 workqueues on every CPU: threads and memory, idle and loaded",
	  scenario_threads },
	{ "burst", "10,000 empty items on one CPU: instructions and switches per item",
	  scenario_burst },
	{ "sleepers", "N items sleeping 10 ms on one CPU: first queued to last done",
	  scenario_sleepers },
	{ "mixed", "per CPU 32 CPU-bound 1 ms items and 32 sleeping 10 ms", scenario_mixed },
	{ "chain", "item i queues item i+1 and waits for it, 256 deep", scenario_chain },
	{ "latency", "queue to start, p50/p99/max, idle CPU and busy CPU", scenario_latency },
	{ "offline", "cpu_down with 0..1000 pending 1 ms items: trustee, drain-first",
	  scenario_offline },
	{ "shortblock", "256 items blocking 20-200 us on one CPU: workers made, by creation hold",
	  scenario_shortblock },
	{ "hog", "queue-to-start behind CPU-bound items and burst cost, by hog threshold",
	  scenario_hog },
};

const struct cmp_scenario *bench_cmp_scenarios(unsigned int *n)
{
	*n = ARRAY_SIZE(scenarios);
	return scenarios;
}

void bench_cmp_line(const char *scenario, const char *row, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pr_notice("cmp %s %s %s\n", scenario, row, buf);
}
