/* kernel/workqueue/stats.c - what the workqueue shows of itself: the
 * figures of pools and workqueues (for tests, benchmarks and the shell's
 * `wq`), the textual dump, and the periodic statistics work that watches
 * for stalled pools and prints totals if asked to. It only reads: each
 * figure under the lock its legend names (internal.h), but for a few the
 * dump and the counts glance at without it (nr_trustee_runs,
 * trustee_state, nr_created, a workqueue's max_active and drainers:
 * display only, perhaps stale), and the watch state of the statistics
 * work, which is its own.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/bottom_half.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/workqueue/internal.h"
#include "lib/printf.h"
#include "lib/string.h"

#define STATS_INTERVAL_NS NSEC_PER_SEC

static unsigned int wq_stats_s;
PARAM_UINT(wq_stats, wq_stats_s, 0, 3600, "print workqueue statistics every N s (0: never)");
static unsigned int wq_stall_s = 60;
PARAM_UINT(wq_stall_s, wq_stall_s, 0, 3600,
	   "report a pool whose pending work made no progress for N s (0: never)");
static struct delayed_work stats_work;
/* pool->trustee_state in words. */
static const char *const trustee_names[] = { "none", "in-charge", "done" };

static void pool_stats(struct worker_pool *pool, struct wq_pool_stats *st)
{
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	*st = (struct wq_pool_stats){
		.nr_workers = pool->nr_workers,
		.nr_idle = pool->nr_idle,
		.nr_running = atomic_read(&pool->nr_running),
		.nr_pending = count_list(&pool->worklist),
		.nr_executed = pool->nr_executed,
		.nr_created = pool->nr_created,
		.nr_destroyed = pool->nr_destroyed,
		.nr_maydays = pool->nr_maydays,
		.nr_rescued = pool->nr_rescued,
		.nr_deferred = pool->nr_deferred,
		.nr_hogs = pool->nr_hogs,
		.nr_mayday_timeouts = pool->nr_mayday_timeouts,
		.shortest_life_ns = pool->shortest_life_ns,
	};
	spin_unlock_irqrestore(&pool->lock, flags);
	st->nr_trustee_runs = READ_ONCE(pool->nr_trustee_runs);
}

void workqueue_pool_stats(unsigned int cpu, enum wq_cpu_pool which, struct wq_pool_stats *st)
{
	pool_stats(&cpu_pools[cpu][which], st);
}

void workqueue_wq_pool_stats(struct workqueue_struct *wq, unsigned int cpu,
			     struct wq_pool_stats *st)
{
	mutex_lock(&wq->mutex);
	struct pool_workqueue *pwq = (wq->flags & WQ_UNBOUND) ? wq->dfl_pwq :
				     cpu < NR_CPUS	      ? wq->pool_pwqs[cpu] :
								NULL;

	if (pwq)
		pool_stats(pwq->pool, st);
	else
		*st = (struct wq_pool_stats){ 0 }; /* not a CPU it has a pool on */
	mutex_unlock(&wq->mutex);
}

void workqueue_wq_stats(struct workqueue_struct *wq, struct wq_stats *st)
{
	struct pool_workqueue *pwq;

	*st = (struct wq_stats){ .nr_delayed = atomic_read(&wq->nr_timers) };
	mutex_lock(&wq->mutex);
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

		st->nr_active += pwq->nr_active;
		st->nr_inactive += pwq->nr_inactive;
		st->nr_in_flight += pwq->nr_in_flight;
		if (!pwq->released)
			st->nr_pwqs++;
		if (pwq == wq->dfl_pwq)
			st->nr_idle = pwq->pool->nr_idle;
		spin_unlock_irqrestore(&pwq->pool->lock, flags);
	}
	mutex_unlock(&wq->mutex);
	unsigned long flags = spin_lock_irqsave(&wq->flush_lock);

	st->nr_flushes = wq->nr_flushes;
	st->nr_flush_overflows = wq->nr_flush_overflows;
	spin_unlock_irqrestore(&wq->flush_lock, flags);
	st->nr_rescued = READ_ONCE(wq->nr_rescued);
}

/* Call fn on every pool with workers or history. PM held. */
static void for_each_pool(void (*fn)(struct worker_pool *pool, void *arg), void *arg)
{
	struct worker_pool *pool;
	unsigned int cpu;

	assert(mutex_owned(&wq_pool_mutex));
	for_each_possible_cpu(cpu) {
		unsigned int i;

		for_each_cpu_pool(pool, cpu, i) if (pool->nr_created) fn(pool, arg);
	}
	list_for_each_entry(pool, &unbound_pools, unbound_node)
		fn(pool, arg);
}

static void add_counters(struct worker_pool *pool, void *arg)
{
	struct wq_counters *c = arg;
	struct wq_pool_stats st;

	pool_stats(pool, &st);
	c->executed += st.nr_executed;
	c->created += st.nr_created;
	c->destroyed += st.nr_destroyed;
	c->maydays += st.nr_maydays;
	c->rescued += st.nr_rescued;
	c->workers += st.nr_workers;
	c->idle += st.nr_idle;
	c->pools++;
}

void workqueue_get_counters(struct wq_counters *c)
{
	*c = (struct wq_counters){ 0 };
	mutex_lock(&wq_pool_mutex);
	for_each_pool(add_counters, c);
	mutex_unlock(&wq_pool_mutex);
}

struct dump_buf {
	char *buf;
	size_t size, len;
};

static void dump_pool(struct worker_pool *pool, void *arg)
{
	struct dump_buf *d = arg;
	struct wq_pool_stats st;
	char where[64];

	pool_stats(pool, &st);
	if (pool_is_bound(pool)) {
		char level[16] = "";

		if (pool->attrs.nice == HIGHPRI_NICE)
			strscpy(level, " highpri", sizeof(level));
		else if (pool->attrs.nice)
			snprintf(level, sizeof(level), " nice %d", pool->attrs.nice);
		snprintf(where, sizeof(where), "cpu%u%s%s%s", pool->cpu, level,
			 pool->trustee_state ? " trustee " : "",
			 pool->trustee_state ? trustee_names[pool->trustee_state] : "");
	} else {
		snprintf(where, sizeof(where), "unbound u%d nice %d refs %d", pool->id,
			 pool->attrs.nice, pool->refcnt);
	}
	d->len += scnprintf(d->buf + d->len, d->size - d->len,
			    "pool %-28s workers %u idle %u running %d pending %u | executed %lu "
			    "created %lu destroyed %lu maydays %lu rescued %lu held %lu hogs %lu\n",
			    where, st.nr_workers, st.nr_idle, st.nr_running, st.nr_pending,
			    st.nr_executed, st.nr_created, st.nr_destroyed, st.nr_maydays,
			    st.nr_rescued, st.nr_deferred, st.nr_hogs);
}

/* One line per CPU whose BH pools ever ran or have work: its runs, and
 * each pool's pending and executed items. PM held (for the dump's order). */
static void dump_bh_pools(struct dump_buf *d)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct wq_pool_stats n, h;
		struct bh_stats b;

		pool_stats(&bh_pools[cpu][WQ_POOL_NORMAL], &n);
		pool_stats(&bh_pools[cpu][WQ_POOL_HIGHPRI], &h);
		if (!n.nr_executed && !h.nr_executed && !n.nr_pending && !h.nr_pending)
			continue;
		bh_get_stats(cpu, &b);
		d->len +=
			scnprintf(d->buf + d->len, d->size - d->len,
				  "bh   cpu%-3u%s runs %lu deferred %lu continued %lu drains %lu | "
				  "normal: pending %u executed %lu | highpri: pending %u executed "
				  "%lu\n",
				  cpu, READ_ONCE(bh_pools[cpu][0].disassociated) ? " offline" : "",
				  b.runs, b.deferrals, b.continued, b.drains, n.nr_pending,
				  n.nr_executed, h.nr_pending, h.nr_executed);
	}
}

size_t workqueue_dump(char *buf, size_t size)
{
	struct dump_buf d = { buf, size, 0 };
	struct workqueue_struct *wq;

	might_sleep();
	if (size)
		buf[0] = '\0';
	d.len += scnprintf(
		buf, size,
		"policy: creation hold %u us, pace up to %u us past %d workers, at most %u "
		"workers a pool, CPU hog after %u us, idle life %u ms\n",
		wq_create_hold_us, wq_pace_max_us, PACE_FREE_WORKERS, wq_max_workers,
		wq_cpu_intensive_thresh_us, wq_idle_timeout_ms);
	mutex_lock(&wq_pool_mutex);
	for_each_pool(dump_pool, &d);
	dump_bh_pools(&d);
	list_for_each_entry(wq, &workqueues, list) {
		struct wq_stats st;
		struct workqueue_attrs attrs;
		char cpus[64];

		workqueue_wq_stats(wq, &st);
		workqueue_get_attrs(wq, &attrs);
		if (cpumask_subset(&cpu_possible_mask, &attrs.cpumask))
			strscpy(cpus, "all", sizeof(cpus));
		else
			cpumask_print_list(cpus, sizeof(cpus), &attrs.cpumask);
		d.len += scnprintf(buf + d.len, size - d.len,
				   "wq %-16s %s%s%s%s%s%s nice %d cpus %s max_active %d active %d "
				   "inactive %d delayed %d flushes %lu rescued %lu\n",
				   wq->name,
				   (wq->flags & __WQ_ORDERED) ? "ordered" :
				   (wq->flags & WQ_UNBOUND)   ? "unbound" :
				   (wq->flags & WQ_BH)	      ? "bh" :
								"bound",
				   (wq->flags & WQ_HIGHPRI) ? ",highpri" : "",
				   (wq->flags & WQ_CPU_INTENSIVE) ? ",cpu_intensive" : "",
				   (wq->flags & WQ_MEM_RECLAIM) ? ",mem_reclaim" : "",
				   (wq->flags & WQ_FREEZABLE) ? ",freezable" : "",
				   wq->nr_drainers ? ",draining" : "", attrs.nice, cpus,
				   wq->saved_max_active, st.nr_active, st.nr_inactive,
				   st.nr_delayed, st.nr_flushes, st.nr_rescued);
	}
	mutex_unlock(&wq_pool_mutex);
	return d.len;
}

void workqueue_show(void)
{
	size_t size = 64 * 1024;
	char *buf = kmalloc(size);

	if (!buf)
		return;
	workqueue_dump(buf, size);
	printk_lines(KERN_INFO pr_fmt(""), buf);
	kfree(buf);
}

/* Periodic statistics, itself a delayed work item: watch for pools whose
 * pending work makes no progress, and print totals if asked to. Once a
 * second on cpu0 while either is on (the one timer an idle baton keeps
 * armed); with both off it stops. */
static void stats_check_pool(struct worker_pool *pool, void *arg)
{
	u64 now = *(u64 *)arg;
	struct wq_pool_stats st;

	pool_stats(pool, &st);
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	assert_mayday_armed(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!st.nr_pending || st.nr_executed != pool->watch_executed) {
		pool->watch_executed = st.nr_executed;
		pool->watch_since = 0; /* progress, or nothing to do */
		return;
	}
	/* Pending work and no progress since the last look. Counted from this
	 * look, not the last: when this work is late (its CPU busy, the pool
	 * mutex held), the last look may be long ago, before the work came. */
	if (!pool->watch_since) {
		pool->watch_since = now;
		return;
	}
	if (wq_stall_s && now - pool->watch_since >= wq_stall_s * NSEC_PER_SEC) {
		report_bug("workqueue",
			   "pool %d (cpu %d) stalled: %u items pending, none run for %lu s",
			   pool->id, pool_is_bound(pool) ? (int)pool->cpu : -1, st.nr_pending,
			   (u64)((now - pool->watch_since) / NSEC_PER_SEC));
		pool->watch_since = now;
	}
}

static void stats_fn(struct work_struct *w)
{
	static u64 last_print;
	u64 now = ktime_get_ns();
	unsigned int cpu;

	mutex_lock(&wq_pool_mutex);
	for_each_pool(stats_check_pool, &now);
	for_each_possible_cpu(cpu) /* the BH pools too: a run that never comes is a stall */
		for (unsigned int i = 0; i < NR_STD_POOLS; i++)
			stats_check_pool(&bh_pools[cpu][i], &now);
	mutex_unlock(&wq_pool_mutex);
	if (wq_stats_s && now - last_print >= wq_stats_s * NSEC_PER_SEC) {
		struct wq_counters c;

		workqueue_get_counters(&c);
		pr_info("stats: %u pools, %u workers (%u idle), executed %lu, created %lu, "
			"destroyed %lu, maydays %lu, rescued %lu\n",
			c.pools, c.workers, c.idle, c.executed, c.created, c.destroyed, c.maydays,
			c.rescued);
		last_print = now;
	}
	if (READ_ONCE(wq_stall_s) || READ_ONCE(wq_stats_s))
		queue_delayed_work(system_highpri_wq, to_delayed_work(w), STATS_INTERVAL_NS);
}

void workqueue_stats_start(void)
{
	INIT_DELAYED_WORK(&stats_work, stats_fn);
	queue_delayed_work(system_highpri_wq, &stats_work, STATS_INTERVAL_NS);
}
