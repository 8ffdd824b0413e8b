/* kernel/tools/torture.c - the CPU-hotplug torture's run and its load: the
 * parameters, the run state, violations, queueing with accounting, the work
 * function, the timers, statistics, the stress threads, and starting and
 * stopping a run (torture.h's calls). What it does and checks is in
 * torture.h; the onoff thread is in torture_onoff.c, the watchdog and the
 * end of a run in torture_end.c; what they share (the run state and its
 * field legend) in torture_internal.h.
 */
#define pr_fmt(fmt) "torture: " fmt
#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/debug/deterministic.h"
#include "kernel/debug/kcsan.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/mm/kstack.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/torture_internal.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/histogram.h"
#include "lib/printf.h"
#include "lib/random.h"
#include "lib/string.h"

#define VIOLATIONS_PRINTED 32 /* then only counted */

static unsigned int torture_cycles = 500;
PARAM_UINT(torture_cycles, torture_cycles, 0, 100000000,
	   "CPU-hotplug torture: offline/online cycles (0: run for torture_duration_s)");
static unsigned int torture_duration_s;
PARAM_UINT(torture_duration_s, torture_duration_s, 0, 30 * 24 * 3600,
	   "CPU-hotplug torture: seconds to run when torture_cycles=0 (0: until stopped)");
static unsigned int torture_interval_ms;
PARAM_UINT(torture_interval_ms, torture_interval_ms, 0, 60000,
	   "CPU-hotplug torture: ms between hotplug operations (0: none)");
static u64 torture_seed;
PARAM_U64(torture_seed, torture_seed, 0, UINT64_MAX,
	  "CPU-hotplug torture: PRNG seed (0: from the clock)");
static const char *const inject_names[] = { "none", "lost", "hang", NULL };
static unsigned int torture_inject;
PARAM_ENUM(torture_inject, torture_inject, inject_names,
	   "CPU-hotplug torture: a deliberate fault, to see it fail (harness self-test)");
static bool torture_fail_workers;
PARAM_BOOL(torture_fail_workers, torture_fail_workers,
	   "CPU-hotplug torture: thread creation fails now and then around hotplug calls");
static bool torture_fail_steps;
PARAM_BOOL(torture_fail_steps, torture_fail_steps,
	   "CPU-hotplug torture: a hotplug step fails now and then (cancelled offlines)");
static bool torture_walk_steps;
PARAM_BOOL(torture_walk_steps, torture_walk_steps,
	   "CPU-hotplug torture: every other hotplug call fails on request at a step, each step "
	   "that may fail in turn, both ways; of the others, every other stops at a level first, "
	   "each in turn (`hotplug states`)");
static bool torture_attrs;
PARAM_BOOL(torture_attrs, torture_attrs,
	   "CPU-hotplug torture: change the unbound and bound workqueues' attributes meanwhile");
static unsigned int torture_threads = NR_STRESS;
PARAM_UINT(torture_threads, torture_threads, 1, NR_STRESS,
	   "CPU-hotplug torture: stress threads (each with its items and timer)");
unsigned int torture_stall_s = 30;
PARAM_UINT(torture_stall_s, torture_stall_s, 1, 3600,
	   "CPU-hotplug torture: an operation this many seconds long has hung, and the run "
	   "ends as long after the first such (the harness's hang test makes it short)");
static unsigned int torture_trace;
PARAM_UINT(torture_trace, torture_trace, 0, 65536,
	   "CPU-hotplug torture: events per CPU traced, frozen at the first violation and "
	   "printed with the verdict (0: no tracing)");
const char *const torture_hotplug_names[] = { "own", "both", "host", NULL };
static unsigned int torture_hotplug;
PARAM_ENUM(torture_hotplug, torture_hotplug, torture_hotplug_names,
	   "CPU-hotplug torture: who takes CPUs down and up: own (only the torture), both "
	   "(the torture and another caller, e.g. the host), host (only another caller)");

/* ---- the workqueues and their items ------------------------------------- */

const char *const torture_wq_names[NR_TWQ] = { "torture_bound",	  "torture_hi",	     "torture_cpu",
					       "torture_unbound", "torture_ordered", "torture_bh" };

/* What each shared item does; the doomed ones belong to the onoff thread
 * (stress threads queue, flush and cancel them too). */
static const struct item_spec {
	unsigned int count;
	enum torture_wq wq;
	unsigned int flags;
	const char *name;
} shared_specs[] = {
	{ 2, TWQ_BOUND, 0, "plain" },
	{ 2, TWQ_BOUND, TI_SLEEP, "sleep" },
	{ 2, TWQ_BOUND, TI_REQUEUE, "requeue" },
	{ 2, TWQ_BOUND, TI_SLEEP | TI_REQUEUE, "sleep-requeue" },
	{ 2, TWQ_BOUND, TI_DELAYED, "delayed" },
	{ 3, TWQ_BOUND, TI_DELAYED | TI_SLEEP | TI_REQUEUE, "delayed-requeue" },
	{ 2, TWQ_HIGHPRI, 0, "hi" },
	{ 2, TWQ_HIGHPRI, TI_SLEEP | TI_REQUEUE, "hi-requeue" },
	{ 2, TWQ_INTENSIVE, TI_SPIN, "spin" },
	{ 2, TWQ_INTENSIVE, TI_SPIN | TI_REQUEUE, "spin-requeue" },
	{ 2, TWQ_UNBOUND, TI_SLEEP, "unbound" },
	{ 2, TWQ_UNBOUND, TI_REQUEUE, "unbound-requeue" },
	{ 2, TWQ_UNBOUND, TI_DELAYED | TI_SLEEP, "unbound-delayed" },
	{ 6, TWQ_BOUND, TI_DOOM | TI_LONG, "doomed" },
	{ 2, TWQ_BOUND, TI_DOOM | TI_LONG | TI_DELAYED, "doomed-delayed" },
	{ 2, TWQ_HIGHPRI, TI_DOOM | TI_LONG, "doomed-hi" },
	/* BH items (WQ_BH): never sleep; they run in BH context, drained
	 * on a live CPU when theirs goes. */
	{ 2, TWQ_BH, 0, "bh" },
	{ 2, TWQ_BH, TI_SPIN | TI_REQUEUE, "bh-requeue" },
	{ 2, TWQ_BH, TI_DELAYED, "bh-delayed" },
	{ 2, TWQ_BH, TI_DOOM, "bh-doomed" },
};

/* Each stress thread's private items. */
static const struct item_spec private_specs[] = {
	{ 1, TWQ_BOUND, TI_PRIVATE | TI_SLEEP, "p-sleep" },
	{ 1, TWQ_BOUND, TI_PRIVATE, "p-plain" },
	{ 1, TWQ_BOUND, TI_PRIVATE | TI_DELAYED, "p-delayed" },
	{ 1, TWQ_HIGHPRI, TI_PRIVATE | TI_SLEEP, "p-hi" },
	{ 1, TWQ_INTENSIVE, TI_PRIVATE | TI_SPIN, "p-spin" },
	{ 1, TWQ_UNBOUND, TI_PRIVATE | TI_SLEEP, "p-unbound" },
	{ 1, TWQ_BH, TI_PRIVATE, "p-bh" },
};
_Static_assert(ARRAY_SIZE(private_specs) == NR_PRIVATE, "torture_internal.h's NR_PRIVATE");

/* ---- run state ----------------------------------------------------------- */

/* Everything one run uses (struct torture_run, torture_internal.h). */
struct torture_run torture_run;

/* The locks and what spans runs: never reset (a reader such as
 * torture_status() may hold one as a run ends and the next starts). */
DEFINE_MUTEX(torture_mutex);
bool torture_active;	  /* TM: threads of a run exist (maybe stuck) */
bool torture_have_result; /* TM: a run has given its verdict */
static DEFINE_SPINLOCK(ordered_lock);
DEFINE_SPINLOCK(torture_stats_lock);
DEFINE_SPINLOCK(torture_report_lock);
DECLARE_WAIT_QUEUE_HEAD(torture_onoff_wait); /* the onoff thread's pauses */

static struct histogram lat_snapshot; /* the verdict only (once per run) */

/* ---- violations ---------------------------------------------------------- */

void __printf(1, 2) torture_violation(const char *fmt, ...)
{
	char buf[TORTURE_REPORT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	long n = atomic_long_add_return(1, &torture_run.nr_violations);

	if (n == 1 && torture_run.tracing)
		trace_freeze(); /* the ring keeps the moments before this one */
	if (n <= VIOLATIONS_PRINTED)
		pr_err("violation %ld: %s\n", n, buf);
	/* A hint for shrinking (a run of that many cycles gets this far);
	 * read racily: the count is torture_stats_lock's, and we may hold it. */
	if (n == 1)
		pr_err("the first violation came during cycle %lu\n",
		       UL(READ_ONCE(torture_run.hp.cycles) + 1));
	else if (n == VIOLATIONS_PRINTED + 1)
		pr_err("further violations are counted, not printed\n");
	unsigned long flags = spin_lock_irqsave(&torture_report_lock);

	/* After the verdict the result stays as printed. */
	if (!atomic_read(&torture_run.verdict_given) &&
	    torture_run.result.nr_reports < TORTURE_MAX_REPORTS)
		strscpy(torture_run.result.reports[torture_run.result.nr_reports++], buf,
			TORTURE_REPORT_LEN);
	spin_unlock_irqrestore(&torture_report_lock, flags);
}

/* Has n (a kernel-wide count of reports, read now) moved past *seen? Then
 * report it, once per increase (the watchdog and the end both call this). */
static void check_reports(unsigned long n, unsigned long *seen, const char *what)
{
	unsigned long old = __atomic_load_n(seen, __ATOMIC_RELAXED);

	if (n != old &&
	    __atomic_compare_exchange_n(seen, &old, n, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		torture_violation("%lu %s during the run (see above)", n - old, what);
}

void torture_check_kernel_reports(void)
{
	check_reports(__atomic_load_n(&warn_count, __ATOMIC_RELAXED), &torture_run.warns_seen,
		      "kernel warning(s) (WARN)");
	check_reports(bug_reports(), &torture_run.bugs_seen, "kernel error report(s) (BUG)");
}

/* No thread may run on an offline CPU: check where we are, preemption off
 * (a CPU goes offline only once its stopper thread has run). */
unsigned int torture_check_cpu(const char *who, const char *name)
{
	preempt_disable();
	unsigned int cpu = smp_processor_id();
	bool online = cpu_online(cpu);

	preempt_enable();
	if (!online)
		torture_violation("%s %s ran on cpu%u, which is offline", who, name, cpu);
	return cpu;
}

/* ---- random choices ------------------------------------------------------ */

static unsigned int random_present_cpu(struct prng *r)
{
	return cpumask_nth(prng_below(r, cpumask_weight(&cpu_present_mask)), &cpu_present_mask);
}

/* A CPU for queue_work_on: any present one (offline ones too), or now and
 * then WORK_CPU_UNBOUND (plain queue_work). */
static unsigned int random_queue_cpu(struct prng *r)
{
	return prng_below(r, 8) == 0 ? WORK_CPU_UNBOUND : random_present_cpu(r);
}

u64 torture_random_delay_ns(struct prng *r, unsigned int max_ms)
{
	return (u64)prng_below(r, max_ms * 1000 + 1) * NSEC_PER_USEC;
}

/* ---- queueing with accounting ------------------------------------------- */

/* Before each queue_* call: count the queueing, note the CPU asked for. */
static void count_queueing(struct torture_item *it, unsigned int cpu)
{
	atomic_long_inc(&it->queued);
	WRITE_ONCE(it->target, cpu);
}

/* After it: a queueing that did not happen is taken back; returns queued. */
static bool settle_queueing(struct torture_item *it, bool queued)
{
	if (!queued)
		atomic_long_add_return(-1, &it->queued);
	return queued;
}

bool torture_item_queue(struct torture_item *it, unsigned int cpu)
{
	struct workqueue_struct *wq = torture_run.wqs[it->wq];

	count_queueing(it, cpu);
	return settle_queueing(it, cpu >= NR_CPUS ? queue_work(wq, &it->dw.work) :
						    queue_work_on(cpu, wq, &it->dw.work));
}

bool torture_item_queue_delayed(struct torture_item *it, unsigned int cpu, u64 delay_ns,
				enum delayed_call call)
{
	struct workqueue_struct *wq = torture_run.wqs[it->wq];

	count_queueing(it, cpu);
	if (call == MOD_DELAYED) {
		settle_queueing(it, !mod_delayed_work_on(cpu, wq, &it->dw, delay_ns));
		return true;
	}
	return settle_queueing(it, queue_delayed_work_on(cpu, wq, &it->dw, delay_ns));
}

static void ordered_release(struct torture_item *it)
{
	unsigned long flags = spin_lock_irqsave(&ordered_lock);

	it->busy = false;
	spin_unlock_irqrestore(&ordered_lock, flags);
}

/* The next ordered item, numbered in queueing order (under ordered_lock,
 * so numbering and queueing happen together). */
static void ordered_queue(struct prng *r)
{
	unsigned int start = prng_below(r, NR_ORDERED);
	unsigned long flags = spin_lock_irqsave(&ordered_lock);

	for (unsigned int i = 0; i < NR_ORDERED; i++) {
		struct torture_item *it =
			&torture_run.items[torture_run.first_ordered + (start + i) % NR_ORDERED];

		if (it->busy)
			continue;
		it->busy = true;
		it->seq = ++torture_run.ordered_next_seq;
		/* It can fail: a cancel holds the item's PENDING bit for a moment. */
		if (!torture_item_queue(it, WORK_CPU_UNBOUND))
			it->busy = false;
		break;
	}
	spin_unlock_irqrestore(&ordered_lock, flags);
}

/* ---- the work function --------------------------------------------------- */

static void item_fn(struct work_struct *w)
{
	struct torture_item *it = container_of(w, struct torture_item, dw.work);
	int inside = atomic_inc_return(&it->inside);
	unsigned int cpu = torture_check_cpu("item", it->name);
	unsigned int target = READ_ONCE(it->target);

	if (inside != 1)
		torture_violation("item %s: %d executions at once (one on cpu%u)", it->name, inside,
				  cpu);
	if ((it->wq == TWQ_BH) != in_bh_run())
		torture_violation("item %s ran %s BH context on cpu%u", it->name,
				  it->wq == TWQ_BH ? "outside" : "in", cpu);
	if (target < NR_CPUS && target != cpu && (cpu_going_down(target) || !cpu_online(target)))
		atomic_long_inc(&torture_run.ran_elsewhere);
	if (it->flags & TI_ORDERED) {
		int n = atomic_inc_return(&torture_run.ordered_inside);

		if (n != 1)
			torture_violation("ordered workqueue: %d items at once (%s among them)", n,
					  it->name);
		unsigned long flags = spin_lock_irqsave(&ordered_lock);
		u64 seq = it->seq, last = torture_run.ordered_last_run;

		if (seq > torture_run.ordered_last_run)
			torture_run.ordered_last_run = seq;
		spin_unlock_irqrestore(&ordered_lock, flags);
		if (seq <= last)
			torture_violation("ordered workqueue: %s (queued #%lu) ran after #%lu",
					  it->name, UL(seq), UL(last));
	}
	if (it->flags & TI_SLEEP)
		msleep(prng_below(&it->rng, 4));
	if (it->flags & TI_LONG)
		msleep(5 + prng_below(&it->rng, 16));
	if (it->flags & TI_SPIN)
		udelay(prng_below(&it->rng, 301));
	if (it->flags & (TI_SLEEP | TI_LONG | TI_SPIN))
		torture_check_cpu("item", it->name);
	if ((it->flags & TI_REQUEUE) && !READ_ONCE(torture_run.stopping) &&
	    prng_below(&it->rng, 4)) {
		unsigned int c = random_queue_cpu(&it->rng);

		if (it->flags & TI_DELAYED)
			torture_item_queue_delayed(it, c, torture_random_delay_ns(&it->rng, 3),
						   QUEUE_DELAYED);
		else
			torture_item_queue(it, c);
	}
	if (it->flags & TI_ORDERED) {
		atomic_dec(&torture_run.ordered_inside);
		ordered_release(it);
	}
	atomic_long_inc(&it->executed);
	atomic_dec(&it->inside);
}

/* ---- timers -------------------------------------------------------------- */

/* A timer callback only records (baton's rule): where it ran, that it ran. */
static void torture_timer_fn(struct timer_list *t)
{
	struct torture_timer *tt = container_of(t, struct torture_timer, timer);
	unsigned int cpu = smp_processor_id();

	if (!cpu_online(cpu)) {
		WRITE_ONCE(torture_run.timer_offline_cpu, cpu);
		atomic_inc(&torture_run.timer_offline_fires);
	}
	atomic_long_inc(&tt->fired);
}

/* Owner only. cpu >= NR_CPUS: on this CPU (mod_timer), else add_timer_on
 * (the caller makes sure that CPU stays online meanwhile). */
void torture_timer_arm(struct torture_timer *tt, u64 delay_ns, unsigned int cpu)
{
	u64 expires = ktime_get_ns() + delay_ns;

	atomic_long_inc(&tt->armed);
	tt->expires = expires;
	tt->late_reported = false;
	if (cpu >= NR_CPUS) {
		if (mod_timer(&tt->timer, expires))
			atomic_long_inc(&tt->deleted); /* it replaced a pending arming */
		return;
	}
	if (del_timer(&tt->timer))
		atomic_long_inc(&tt->deleted);
	add_timer_on(&tt->timer, expires, cpu);
}

void torture_timer_delete(struct torture_timer *tt)
{
	if (del_timer(&tt->timer))
		atomic_long_inc(&tt->deleted);
}

/* Owner only: a timer fires when due (later by what the host stalls), never
 * 30 s late. */
void torture_timer_check_late(struct torture_timer *tt)
{
	u64 now = ktime_get_ns();

	if (!tt->late_reported && timer_pending(&tt->timer) && now > tt->expires + STALL_NS) {
		tt->late_reported = true;
		torture_violation("timer %s expired %lu ms ago and has not fired", tt->name,
				  UL((now - tt->expires) / NSEC_PER_MSEC));
	}
}

/* ---- statistics --------------------------------------------------------- */

void torture_lat_add(struct histogram *h, u64 ns)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	histogram_add(h, ns);
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

/* The verdict only (lat_snapshot): copied under the lock, summarized
 * outside it. */
void torture_lat_summary(const struct histogram *h, struct value_summary *out)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	lat_snapshot = *h;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
	histogram_summarize(&lat_snapshot, out);
}

void torture_read_hp_counts(struct hp_counts *c)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	*c = torture_run.hp;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

u64 torture_cycles_completed(void)
{
	struct hp_counts c;

	torture_read_hp_counts(&c);
	return c.cycles;
}

void torture_sum_items(struct work_totals *t)
{
	*t = (struct work_totals){ 0 };
	for (unsigned int i = 0; i < torture_run.nr_items; i++) {
		t->queued += atomic_long_read(&torture_run.items[i].queued);
		t->executed += atomic_long_read(&torture_run.items[i].executed);
		t->cancelled += atomic_long_read(&torture_run.items[i].cancelled);
	}
}

/* ---- the stress threads -------------------------------------------------- */

static struct torture_item *random_shared(struct prng *r)
{
	return &torture_run.items[prng_below(r, torture_run.nr_shared)];
}

/* Shared and ordered items: anyone may flush or cancel them. */
static struct torture_item *random_flushable(struct prng *r)
{
	unsigned int i = prng_below(r, torture_run.nr_shared + NR_ORDERED);

	return &torture_run.items[i < torture_run.nr_shared ?
					  i :
					  torture_run.first_ordered + (i - torture_run.nr_shared)];
}

enum cancel_wait {
	CANCEL_NOWAIT, /* cancel_work, cancel_delayed_work */
	CANCEL_SYNC,   /* the _sync ones: also wait for a running execution */
};

/* The name of the call torture_do_flush() / do_cancel() makes for it. */
static const char *flush_call(const struct torture_item *it)
{
	return it->flags & TI_DELAYED ? "flush_delayed_work" : "flush_work";
}

static const char *cancel_call(const struct torture_item *it, enum cancel_wait wait)
{
	if (it->flags & TI_DELAYED)
		return wait == CANCEL_SYNC ? "cancel_delayed_work_sync" : "cancel_delayed_work";
	return wait == CANCEL_SYNC ? "cancel_work_sync" : "cancel_work";
}

void torture_do_flush(struct torture_slot *s, struct torture_item *it)
{
	slot_begin(s, flush_call(it), it->name, 0);
	if (it->flags & TI_DELAYED)
		flush_delayed_work(&it->dw);
	else
		flush_work(&it->dw.work);
	slot_end(s);
	atomic_long_inc(&torture_run.nr_flushes);
}

static bool do_cancel(struct torture_slot *s, struct torture_item *it, enum cancel_wait wait)
{
	bool sync = wait == CANCEL_SYNC, ret;

	slot_begin(s, cancel_call(it, wait), it->name, 0);
	if (it->flags & TI_DELAYED)
		ret = sync ? cancel_delayed_work_sync(&it->dw) : cancel_delayed_work(&it->dw);
	else
		ret = sync ? cancel_work_sync(&it->dw.work) : cancel_work(&it->dw.work);
	slot_end(s);
	atomic_long_inc(&torture_run.nr_cancels);
	if (ret) {
		atomic_long_inc(&it->cancelled);
		if (it->flags & TI_ORDERED)
			ordered_release(it);
	}
	return ret;
}

void torture_do_flush_workqueue(struct torture_slot *s, enum torture_wq w)
{
	slot_begin(s, "flush_workqueue", torture_wq_names[w], 0);
	flush_workqueue(torture_run.wqs[w]);
	slot_end(s);
	atomic_long_inc(&torture_run.nr_flushes);
}

/* A private item after a flush or a _sync cancel: nothing in flight, and
 * every queueing ran or was cancelled. */
static void private_check(struct torture_item *it, const char *after)
{
	long q = atomic_long_read(&it->queued), e = atomic_long_read(&it->executed);
	long c = atomic_long_read(&it->cancelled);
	bool pending = work_pending(&it->dw.work) ||
		       ((it->flags & TI_DELAYED) && timer_pending(&it->dw.timer));
	int inside = atomic_read(&it->inside);

	if (e + c != q || pending || inside)
		torture_violation(
			"%s returned early: item %s queued %ld, ran %ld, cancelled %ld%s%s", after,
			it->name, q, e, c, pending ? ", still pending" : "",
			inside ? ", still running" : "");
	it->idle_executed = e;
	it->idle_after = after;
}

/* A private item idle since a flush or _sync cancel has not run since. */
void torture_private_idle_check(struct torture_item *it)
{
	long e = atomic_long_read(&it->executed);

	if (it->idle_after && e != it->idle_executed)
		torture_violation(
			"item %s ran %ld more time(s) after %s returned, not queued again",
			it->name, e - it->idle_executed, it->idle_after);
	it->idle_after = NULL;
}

static void private_queue(struct torture_item *it, struct prng *r)
{
	torture_private_idle_check(it);
	bool ok =
		it->flags & TI_DELAYED ?
			torture_item_queue_delayed(it, random_present_cpu(r),
						   torture_random_delay_ns(r, 3),
						   prng_below(r, 2) ? MOD_DELAYED : QUEUE_DELAYED) :
			torture_item_queue(it, random_queue_cpu(r));

	/* Idle since its last flush or _sync cancel: a queueing must succeed. */
	if (!ok)
		torture_violation("private item %s was still pending when queued again", it->name);
}

/* A plain (not delayed) item on workqueue w? */
static bool plain_on(const struct torture_item *it, enum torture_wq w)
{
	return it->wq == w && !(it->flags & TI_DELAYED);
}

/* Queue one's own items, then flush or cancel them, and check exactly. */
static void private_op(struct stress *st, struct torture_slot *s)
{
	struct prng *r = &st->rng;
	struct torture_item *it = st->priv[prng_below(r, NR_PRIVATE)];
	unsigned int op = prng_below(r, 4);

	switch (op) {
	case 1:
		private_queue(it, r);
		if (prng_below(r, 2))
			msleep(prng_below(r, 3));
		do_cancel(s, it, CANCEL_SYNC);
		private_check(it, cancel_call(it, CANCEL_SYNC));
		break;
	case 2: {
		/* All of one's plain items of one workqueue, then flush it. */
		enum torture_wq w = it->wq;

		for (unsigned int i = 0; i < NR_PRIVATE; i++)
			if (plain_on(st->priv[i], w))
				private_queue(st->priv[i], r);
		torture_do_flush_workqueue(s, w);
		for (unsigned int i = 0; i < NR_PRIVATE; i++)
			if (plain_on(st->priv[i], w))
				private_check(st->priv[i], "flush_workqueue");
		break;
	}
	default: /* 0: flush at once; 3: after a sleep */
		private_queue(it, r);
		if (op == 3)
			msleep(prng_below(r, 4));
		torture_do_flush(s, it);
		private_check(it, flush_call(it));
		break;
	}
}

/* Move to a random active CPU, arm this thread's timer there, and mostly
 * go back to running anywhere (1 time in 64 stay pinned: if that CPU goes
 * down, the scheduler must move us, and says so in the log). */
static void hop(struct stress *st, struct torture_slot *s)
{
	struct prng *r = &st->rng;
	unsigned int cpu = cpumask_nth(prng_below(r, num_online_cpus()), &cpu_active_mask);

	if (cpu >= NR_CPUS)
		return;
	slot_begin(s, "set_cpus_allowed", NULL, (int)cpu);
	int err = set_cpus_allowed(current, cpumask_of(cpu));

	slot_end(s);
	if (err && err != -EINVAL) /* -EINVAL: it went down meanwhile */
		torture_violation("set_cpus_allowed(cpu%u) returned %d", cpu, err);
	torture_check_cpu("thread", current->name);
	torture_timer_arm(&torture_run.timers[st->id], torture_random_delay_ns(r, 50), NR_CPUS);
	if (prng_below(r, 64))
		set_cpus_allowed(current, &cpu_possible_mask);
}

/* torture_attrs: give the unbound workqueue a random nice and a random
 * set of present CPUs (CPU 0 among them: it never goes down; else maybe
 * none active, and -EINVAL is right), or the bound one a random nice (its
 * items move to the per-CPU pools of that nice, made on demand, while CPUs
 * come and go; its CPUs stay all, as its items check where they run). */
static void change_attrs(struct stress *st, struct torture_slot *s)
{
	struct prng *r = &st->rng;
	struct workqueue_attrs a = { .nice = (int)prng_below(r, 11) - 5 };
	enum torture_wq which = prng_below(r, 2) ? TWQ_UNBOUND : TWQ_BOUND;
	unsigned int cpu;

	if (which == TWQ_BOUND)
		cpumask_copy(&a.cpumask, &cpu_possible_mask);
	else
		for_each_present_cpu(cpu)
			if (prng_below(r, 2))
				cpumask_set_cpu(cpu, &a.cpumask);
	bool has_boot_cpu = cpumask_test_cpu(0, &a.cpumask);

	slot_begin(s, "apply_workqueue_attrs", torture_wq_names[which], a.nice);
	int err = apply_workqueue_attrs(torture_run.wqs[which], &a);

	slot_end(s);
	if (!err)
		atomic_long_inc(&torture_run.nr_attrs);
	else if (!(err == -EINVAL && !has_boot_cpu) &&
		 !(err == -ENOMEM && torture_run.params.fail_workers))
		torture_violation("apply_workqueue_attrs(%s, nice %d) returned %d (%s)",
				  torture_wq_names[which], a.nice, err, errno_name(err));
}

static int stress_thread(void *arg)
{
	struct stress *st = arg;
	struct prng *r = &st->rng;
	struct torture_slot *s = &torture_run.slots[st->id];

	while (!READ_ONCE(torture_run.stopping)) {
		unsigned int op = prng_below(r, 64);
		struct torture_item *it;

		if (op < 24) {
			it = random_shared(r);
			if (it->flags & TI_DELAYED)
				torture_item_queue_delayed(
					it, random_queue_cpu(r), torture_random_delay_ns(r, 4),
					prng_below(r, 3) == 0 ? MOD_DELAYED : QUEUE_DELAYED);
			else
				torture_item_queue(it, random_queue_cpu(r));
		} else if (op < 30) {
			torture_do_flush(s, random_flushable(r));
		} else if (op < 36) {
			do_cancel(s, random_flushable(r),
				  prng_below(r, 4) ? CANCEL_SYNC : CANCEL_NOWAIT);
		} else if (op < 38) {
			torture_do_flush_workqueue(s, (enum torture_wq)prng_below(r, NR_TWQ));
		} else if (op < 46) {
			ordered_queue(r);
		} else if (op < 54) {
			private_op(st, s);
		} else if (op < 58) {
			hop(st, s);
		} else if (op < 60) {
			torture_timer_delete(&torture_run.timers[st->id]);
		} else if (op == 60 && torture_run.params.attrs) {
			change_attrs(st, s);
		} else {
			msleep(1 + prng_below(r, 2));
		}
		torture_check_cpu("thread", current->name);
		torture_timer_check_late(&torture_run.timers[st->id]);
	}
	set_cpus_allowed(current, &cpu_possible_mask);
	complete(&st->done);
	return 0;
}

/* ---- starting ------------------------------------------------------------ */

static struct torture_item *item_init(unsigned int idx, const struct item_spec *sp, unsigned int n,
				      u64 seed)
{
	struct torture_item *it = &torture_run.items[idx];

	*it = (struct torture_item){ .flags = sp->flags, .wq = sp->wq };
	if (sp->flags & TI_DELAYED)
		INIT_DELAYED_WORK(&it->dw, item_fn);
	else
		INIT_WORK(&it->dw.work, item_fn);
	snprintf(it->name, sizeof(it->name), "%s/%u", sp->name, n);
	it->target = NR_CPUS;
	prng_seed(&it->rng, seed ^ (0x9e3779b97f4a7c15ULL * (idx + 1)));
	return it;
}

static void items_init(u64 seed)
{
	static const struct item_spec ordered_spec[] = {
		{ 1, TWQ_ORDERED, TI_ORDERED, "ordered" },
		{ 1, TWQ_ORDERED, TI_ORDERED | TI_SLEEP, "ordered-sleep" },
	};
	unsigned int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(shared_specs); i++)
		for (unsigned int k = 0; k < shared_specs[i].count; k++, n++)
			item_init(n, &shared_specs[i], k, seed);
	torture_run.nr_shared = n;
	torture_run.first_ordered = n;
	for (unsigned int k = 0; k < NR_ORDERED; k++, n++)
		item_init(n, &ordered_spec[k % 2], k, seed);
	for (unsigned int t = 0; t < NR_STRESS; t++) {
		for (unsigned int k = 0; k < NR_PRIVATE; k++, n++) {
			torture_run.stress[t].priv[k] = item_init(n, &private_specs[k], t, seed);
		}
	}
	torture_run.nr_items = n;
}

/* The one place a run is reset: zero it, then set up everything but the
 * workqueues and threads for p, taking down CPUs of candidates (online at
 * the start, not 0). Under torture_mutex, no run active. */
static void run_init(const struct torture_params *p, const struct cpumask *online)
{
	unsigned int cpu;

	memset(&torture_run, 0, sizeof(torture_run));
	torture_run.params = *p;
	if (!torture_run.params.seed)
		torture_run.params.seed = det_mode() ? det_seed() : ktime_get_ns() | 1;
	if (!torture_run.params.threads || torture_run.params.threads > NR_STRESS)
		torture_run.params.threads = NR_STRESS;
	init_completion(&torture_run.finished);
	cpumask_copy(&torture_run.initially_online, online);
	for_each_present_cpu(cpu)
		if (cpu != 0 && cpumask_test_cpu(cpu, online))
			torture_run.cand[torture_run.nr_cand++] = cpu;
	prng_seed(&torture_run.onoff_rng, torture_run.params.seed);
	for (unsigned int i = 0; i < NR_STRESS; i++) {
		struct stress *st = &torture_run.stress[i];

		st->id = i;
		prng_seed(&st->rng, torture_run.params.seed + i + 1);
		init_completion(&st->done);
	}
	torture_run.warns_seen = READ_ONCE(warn_count);
	torture_run.bugs_seen = bug_reports();
	torture_run.spin_stuck_at_start = READ_ONCE(spin_stuck_reports);
	kstack_nr_held(&torture_run.stacks_held_at_start);
	kcsan_get_stats(&torture_run.kcsan_at_start);
	items_init(torture_run.params.seed);
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		struct torture_timer *tt = &torture_run.timers[i];

		tt->late_reported = true;
		timer_setup(&tt->timer, torture_timer_fn);
		if (i == ONOFF_TIMER)
			snprintf(tt->name, sizeof(tt->name), "onoff");
		else
			snprintf(tt->name, sizeof(tt->name), "stress%u", i);
	}
	torture_run.slots[ONOFF_SLOT].thread = "torture/onoff";
}

static const unsigned int wq_flags[NR_TWQ] = {
	[TWQ_BOUND] = 0,
	[TWQ_HIGHPRI] = WQ_HIGHPRI | WQ_MEM_RECLAIM,
	[TWQ_INTENSIVE] = WQ_CPU_INTENSIVE,
	[TWQ_UNBOUND] = WQ_UNBOUND,
	[TWQ_BH] = WQ_BH,
};

void torture_params_from_cmdline(struct torture_params *p)
{
	*p = (struct torture_params){ .cycles = torture_cycles,
				      .duration_s = torture_duration_s,
				      .interval_ms = torture_interval_ms,
				      .seed = torture_seed,
				      .inject = torture_inject,
				      .fail_workers = torture_fail_workers,
				      .fail_steps = torture_fail_steps,
				      .walk_steps = torture_walk_steps,
				      .attrs = torture_attrs,
				      .hotplug = torture_hotplug,
				      .threads = torture_threads,
				      .trace = torture_trace };
}

int torture_start(const struct torture_params *p)
{
	struct thread *onoff = NULL;
	struct cpumask online;
	unsigned int cpu, nr_cand = 0, made = 0;
	int err = -ENOMEM;

	might_sleep();
	if (p->inject > TORTURE_INJECT_HANG || p->hotplug > TORTURE_HOTPLUG_HOST ||
	    (p->hotplug == TORTURE_HOTPLUG_HOST && p->cycles) ||
	    (p->walk_steps && p->hotplug != TORTURE_HOTPLUG_OWN))
		return -EINVAL; /* (a walk's requests are per CPU: another caller would take them)
				 */
	mutex_lock(&torture_mutex);
	if (torture_active) {
		mutex_unlock(&torture_mutex);
		return -EBUSY;
	}
	/* Count the candidates first: the last run's result stays if none
	 * (the host modes need none: the host adds CPUs). */
	cpumask_copy(&online, &cpu_online_mask);
	for_each_present_cpu(cpu)
		nr_cand += cpu != 0 && cpumask_test_cpu(cpu, &online);
	if (!nr_cand && p->hotplug == TORTURE_HOTPLUG_OWN) {
		mutex_unlock(&torture_mutex);
		return -ENODEV;
	}
	run_init(p, &online);
	for (unsigned int w = 0; w < NR_TWQ; w++) {
		torture_run.wqs[w] = w == TWQ_ORDERED ?
					     alloc_ordered_workqueue(torture_wq_names[w], 0) :
					     alloc_workqueue(torture_wq_names[w], wq_flags[w], 0);
		if (!torture_run.wqs[w])
			goto fail_wq;
	}
	if (torture_run.params.fail_workers) {
		torture_run.starve_wq =
			alloc_workqueue("torture_starve", WQ_UNBOUND | WQ_HIGHPRI, 0);
		if (!torture_run.starve_wq)
			goto fail_wq;
	}
	for (; made < torture_run.params.threads; made++) {
		struct stress *st = &torture_run.stress[made];

		st->thread = kthread_create(stress_thread, st, "torture/stress%u", made);
		if (!st->thread)
			goto fail_threads;
		torture_run.slots[made].thread = st->thread->name;
	}
	torture_run.watch_thread = kthread_create(torture_watch_thread_fn, NULL, "torture/watch");
	if (!torture_run.watch_thread)
		goto fail_threads;
	onoff = kthread_create(torture_onoff_thread, &torture_run.onoff_rng, "torture/onoff");
	if (!onoff) {
		kthread_stop(torture_run.watch_thread);
		goto fail_threads;
	}
	if (torture_run.params.fail_steps && !torture_step_added) {
		cpuhp_add_step(&torture_fail_step);
		torture_step_added = true;
	}
	if (torture_run.params.walk_steps)
		cpuhp_for_each_step(torture_walk_add, NULL);
	if (torture_run.params.trace) {
		int terr = trace_start(torture_run.params.trace);

		if (terr)
			pr_warn("torture_trace: tracing could not start (%s): the run goes on "
				"without it\n",
				errno_name(terr));
		torture_run.tracing = !terr;
	}
	cpuhp_get_stats(&torture_run.hp_before);
	torture_run.start_ns = ktime_get_ns();
	torture_active = true;
	mutex_unlock(&torture_mutex);
	pr_notice("starting: %u CPUs to take down, %u%s cycles, %u s, interval %u ms, seed %lu, "
		  "torture_hotplug=%s, %u stress threads%s\n",
		  torture_run.nr_cand, torture_run.params.cycles,
		  torture_run.params.cycles ? "" : " (time-bound)", torture_run.params.duration_s,
		  torture_run.params.interval_ms, UL(torture_run.params.seed),
		  torture_hotplug_names[torture_run.params.hotplug], torture_run.params.threads,
		  torture_run.tracing ? ", traced" : "");
	wake_up_thread(torture_run.watch_thread);
	for (unsigned int i = 0; i < torture_run.params.threads; i++)
		wake_up_thread(torture_run.stress[i].thread);
	wake_up_thread(onoff);
	put_thread(onoff); /* it ends the run and exits by itself */
	return 0;

fail_threads:
	WRITE_ONCE(torture_run.stopping, true);
	for (unsigned int i = 0; i < made; i++)
		kthread_stop(torture_run.stress[i].thread);
fail_wq:
	torture_destroy_wqs();
	mutex_unlock(&torture_mutex);
	return err;
}

/* Threads of a run exist and it has no verdict yet. torture_mutex held. */
static bool run_in_progress(void)
{
	WARN_ON(!mutex_owned(&torture_mutex));
	return torture_active && !atomic_read(&torture_run.verdict_given);
}

void torture_stop(void)
{
	mutex_lock(&torture_mutex);
	bool running = run_in_progress();

	if (running) {
		WRITE_ONCE(torture_run.stop_requested, true);
		wake_up_all(&torture_onoff_wait);
	}
	mutex_unlock(&torture_mutex);
	if (running)
		wait_for_completion(&torture_run.finished);
}

bool torture_running(void)
{
	mutex_lock(&torture_mutex);
	bool running = run_in_progress();

	mutex_unlock(&torture_mutex);
	return running;
}

bool torture_wait(u64 timeout_ns)
{
	mutex_lock(&torture_mutex);
	bool started = torture_active || torture_have_result;

	mutex_unlock(&torture_mutex);
	if (!started)
		return false;
	if (timeout_ns == UINT64_MAX) {
		wait_for_completion(&torture_run.finished);
		return true;
	}
	return wait_for_completion_timeout(&torture_run.finished, timeout_ns) != 0 ||
	       completion_done(&torture_run.finished);
}

bool torture_get_result(struct torture_result *r)
{
	mutex_lock(&torture_mutex);
	bool have = torture_have_result && atomic_read(&torture_run.verdict_given);

	if (have)
		*r = torture_run.result;
	mutex_unlock(&torture_mutex);
	return have;
}

size_t torture_status(char *buf, size_t size)
{
	mutex_lock(&torture_mutex);
	bool running = run_in_progress(), have = torture_have_result;

	mutex_unlock(&torture_mutex);
	if (!running && !have)
		return scnprintf(buf, size, "torture: not run\n");
	if (!running) {
		const struct torture_result *r = &torture_run.result;
		size_t n = scnprintf(
			buf, size,
			"torture: %s after %lu s: %lu cycles, offline us %lu/%lu/%lu, online us "
			"%lu/%lu/%lu (min/median/max), works run %lu, violations %lu\n",
			r->passed ? "PASS" : "FAIL", UL(r->elapsed_ns / NSEC_PER_SEC),
			UL(r->cycles), to_us(r->offline.min), to_us(r->offline.median),
			to_us(r->offline.max), to_us(r->online.min), to_us(r->online.median),
			to_us(r->online.max), UL(r->works_run), r->violations);
		for (unsigned int i = 0; i < r->nr_reports; i++)
			n += scnprintf(buf + n, size - n, "  %u: %s\n", i + 1, r->reports[i]);
		return n;
	}
	struct work_totals works;

	torture_sum_items(&works);
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);
	u64 cycles = torture_run.hp.cycles, dmin = torture_run.lat_down.min,
	    dmax = torture_run.lat_down.max, umin = torture_run.lat_up.min,
	    umax = torture_run.lat_up.max;

	spin_unlock_irqrestore(&torture_stats_lock, flags);
	return scnprintf(buf, size,
			 "torture: running for %lu s: %lu cycles of %u, offline us %lu-%lu, online "
			 "us %lu-%lu, works run %lu, violations %ld\n",
			 UL((ktime_get_ns() - torture_run.start_ns) / NSEC_PER_SEC), UL(cycles),
			 torture_run.params.cycles, to_us(dmin), to_us(dmax), to_us(umin),
			 to_us(umax), UL(works.executed),
			 atomic_long_read(&torture_run.nr_violations));
}
