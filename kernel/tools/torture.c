/* kernel/tools/torture.c - the CPU-hotplug torture; what it does and checks is
 * in torture.h.
 *
 * Field legend: I = set by torture_start() before the threads run (or at
 * creation); A = atomic; O = the onoff thread only; ST = torture_stats_lock;
 * RP = torture_report_lock; OL = ordered_lock; TM = torture_mutex; WD = the watchdog
 * thread only; X = the item's own executions (never two at once: that is
 * one of the invariants checked); "owner" = the one thread that uses it.
 *
 * Accounting of an item: "queued" is raised BEFORE each queue_* call and
 * lowered again if the call fails (or, for mod_delayed_work, if it took a
 * pending queueing over, which it replaces); "executed" is raised at the
 * end of each execution, "cancelled" after each cancel that returned true.
 * So at any moment executed + cancelled <= queued (read in that order),
 * and once everything is drained, executed + cancelled == queued.
 */
#define pr_fmt(fmt) "torture: " fmt
#include "kernel/tools/torture.h"
#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/debug/deterministic.h"
#include "kernel/debug/kcsan.h"
#include "kernel/debug/lockdep.h"
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
#include "kernel/tools/fault_inject.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/histogram.h"
#include "lib/printf.h"
#include "lib/random.h"
#include "lib/string.h"

#define NR_STRESS	   TORTURE_MAX_THREADS /* stress threads (at most) */
#define STOP_WAIT_NS	   (60 * NSEC_PER_SEC) /* for a stress thread to stop */
#define WATCH_PERIOD_MS	   200
#define PROGRESS_NS	   (30 * NSEC_PER_SEC)
#define REBIND_WAIT_NS	   (10 * NSEC_PER_SEC)
#define VIOLATIONS_PRINTED 32  /* then only counted */
#define VIOLATIONS_ABORT   200 /* the run ends early: it has failed */
#define DRAIN_ROUNDS	   5
#define IDLE_PAUSE_MS	   10  /* the onoff thread, after a round without a hotplug call */
#define HOST_PAUSE_MS	   100 /* torture_hotplug=host: between its rounds */
#define MAX_ITEMS	   128
#define NR_ORDERED	   8
#define UL(x)		   ((unsigned long)(x))

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
static bool torture_attrs;
PARAM_BOOL(torture_attrs, torture_attrs,
	   "CPU-hotplug torture: change the unbound and bound workqueues' attributes meanwhile");
static unsigned int torture_threads = NR_STRESS;
PARAM_UINT(torture_threads, torture_threads, 1, NR_STRESS,
	   "CPU-hotplug torture: stress threads (each with its items and timer)");
static unsigned int torture_stall_s = 30;
PARAM_UINT(torture_stall_s, torture_stall_s, 1, 3600,
	   "CPU-hotplug torture: an operation this many seconds long has hung, and the run "
	   "ends as long after the first such (the harness's hang test makes it short)");
/* An operation this long has hung; after a hang, the run ends this long
 * after it anyway. */
#define STALL_NS ((u64)READ_ONCE(torture_stall_s) * NSEC_PER_SEC)
static unsigned int torture_trace;
PARAM_UINT(torture_trace, torture_trace, 0, 65536,
	   "CPU-hotplug torture: events per CPU traced, frozen at the first violation and "
	   "printed with the verdict (0: no tracing)");
static const char *const torture_hotplug_names[] = { "own", "both", "host", NULL };
static unsigned int torture_hotplug;
PARAM_ENUM(torture_hotplug, torture_hotplug, torture_hotplug_names,
	   "CPU-hotplug torture: who takes CPUs down and up: own (only the torture), both "
	   "(the torture and another caller, e.g. the host), host (only another caller)");

/* ---- the workqueues and their items ------------------------------------- */

enum torture_wq { TWQ_BOUND, TWQ_HIGHPRI, TWQ_INTENSIVE, TWQ_UNBOUND, TWQ_ORDERED, NR_TWQ };
static const char *const torture_wq_names[NR_TWQ] = { "torture_bound", "torture_hi", "torture_cpu",
						      "torture_unbound", "torture_ordered" };

#define TI_DELAYED (1u << 0) /* a delayed item (queue_delayed_work, mod_delayed_work) */
#define TI_SLEEP   (1u << 1) /* sleeps 0-3 ms */
#define TI_REQUEUE (1u << 2) /* queues itself again, 3 times in 4 */
#define TI_SPIN	   (1u << 3) /* busy for 0-300 us */
#define TI_LONG	   (1u << 4) /* sleeps 5-20 ms: still running when its CPU goes */
#define TI_DOOM	   (1u << 5) /* queued to a CPU right before and after it goes down */
#define TI_ORDERED (1u << 6) /* on the ordered workqueue; queued in sequence */
#define TI_PRIVATE (1u << 7) /* touched by one stress thread only: exact checks */

struct torture_item {
	struct delayed_work dw;	 /* plain items use dw.work only */
	char name[24];		 /* I */
	unsigned int flags;	 /* I: TI_* */
	enum torture_wq wq;	 /* I */
	atomic_long_t queued;	 /* A: see the accounting above */
	atomic_long_t executed;	 /* A */
	atomic_long_t cancelled; /* A */
	atomic_t inside;	 /* A: executions in progress (0 or 1) */
	unsigned int target;	 /* racy, statistics only: CPU it was last queued for */
	struct prng rng;	 /* X */
	u64 seq;		 /* OL: ordered items: queueing number */
	bool busy;		 /* OL: ordered items: queued or running */
	bool over_reported;	 /* WD: "ran more than queued" reported */
	/* Private items, their thread: after a flush or _sync cancel, the
	 * executions then and the call, until the item is queued again. */
	long idle_executed;
	const char *idle_after; /* NULL: not idle by such a call */
};

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
};

/* Each stress thread's private items. */
static const struct item_spec private_specs[] = {
	{ 1, TWQ_BOUND, TI_PRIVATE | TI_SLEEP, "p-sleep" },
	{ 1, TWQ_BOUND, TI_PRIVATE, "p-plain" },
	{ 1, TWQ_BOUND, TI_PRIVATE | TI_DELAYED, "p-delayed" },
	{ 1, TWQ_HIGHPRI, TI_PRIVATE | TI_SLEEP, "p-hi" },
	{ 1, TWQ_INTENSIVE, TI_PRIVATE | TI_SPIN, "p-spin" },
	{ 1, TWQ_UNBOUND, TI_PRIVATE | TI_SLEEP, "p-unbound" },
};
#define NR_PRIVATE ARRAY_SIZE(private_specs)

/* ---- timers -------------------------------------------------------------- */

/* One per stress thread and one for the onoff thread (its owner is the
 * only one to arm or delete it). The callback only records. */
struct torture_timer {
	struct timer_list timer;
	char name[24];			     /* I */
	atomic_long_t armed, fired, deleted; /* A */
	u64 expires;			     /* owner: of the last arming */
	bool late_reported;		     /* owner */
	bool over_reported;		     /* WD */
};
#define NR_TIMERS   (NR_STRESS + 1)
#define ONOFF_TIMER NR_STRESS

/* ---- watched operations -------------------------------------------------- */

/* A thread's current blocking operation, for the watchdog. The owner
 * writes what/obj/arg, then state = (generation << 1) | 1; at the end
 * state &= ~1. A state seen busy and unchanged for STALL_NS has hung. */
struct torture_slot {
	const char *thread;	    /* I */
	const char *what;	    /* owner */
	const char *obj;	    /* owner */
	int arg;		    /* owner */
	u64 state;		    /* owner writes, the watchdog reads */
	u64 seen_state, seen_since; /* WD */
	bool reported;		    /* WD */
};
#define NR_SLOTS   (NR_STRESS + 1)
#define ONOFF_SLOT NR_STRESS

static void slot_begin(struct torture_slot *s, const char *what, const char *obj, int arg)
{
	WRITE_ONCE(s->what, what);
	WRITE_ONCE(s->obj, obj);
	WRITE_ONCE(s->arg, arg);
	smp_wmb();
	WRITE_ONCE(s->state, (((s->state >> 1) + 1) << 1) | 1);
}

static void slot_end(struct torture_slot *s)
{
	WRITE_ONCE(s->state, s->state & ~1ULL);
}

/* ---- run state ----------------------------------------------------------- */

struct stress {
	struct thread *thread;		       /* I */
	unsigned int id;		       /* I */
	struct prng rng;		       /* the thread */
	struct torture_item *priv[NR_PRIVATE]; /* I */
	struct completion done;		       /* the thread completes it on its way out */
};

/* The hotplug calls of a run: all ST (torture_stats_lock), written by the onoff thread. */
struct hp_counts {
	u64 cycles;	     /* offline + online of one CPU, completed */
	u64 offline, online; /* successful cpu_down / cpu_up calls */
	u64 quick_onlines;   /* cpu_up right after its cpu_down */
	u64 probes;	     /* deliberate failing calls made */
	/* The variants: calls that failed as injected, the CPU as it was. */
	u64 cancelled_offlines, failed_onlines;
	/* The host modes: our calls that another caller's overtook; the
	 * successful cpu_down / cpu_up calls of others (set at the end). */
	u64 overtaken;
	u64 others_offline, others_online;
};

/* Everything one run uses. torture_start() zeroes it and sets it up
 * (run_init()) while no run is active; the result stays readable until
 * the next start. */
static struct torture_run {
	struct torture_params params; /* I: with a seed */
	u64 start_ns;		      /* I */
	bool tracing;		      /* I: this run turned tracing on (params.trace) */
	volatile bool stop_requested; /* torture_stop() */
	volatile bool stopping;	      /* the end: items stop re-queueing, stress threads exit */
	atomic_t verdict_given;	      /* A: the verdict is out */
	struct completion finished;   /* completed for all at the verdict */

	/* The CPUs */
	unsigned int cand[NR_CPUS];	 /* I: CPUs to take down: online at start, not 0 */
	unsigned int nr_cand;		 /* I */
	struct cpumask initially_online; /* I */
	struct cpumask taken_down;	 /* O: CPUs this run took offline */
	struct cpuhp_stats hp_before;	 /* I */

	/* The threads */
	struct stress stress[NR_STRESS];
	struct thread *watch_thread; /* I; stopped by the onoff thread */
	struct prng onoff_rng;	     /* O */

	/* What they work on (each struct's fields have their own legend) */
	struct workqueue_struct *wqs[NR_TWQ]; /* I */
	/* fail_workers: unbound and high priority, like the trustees', so
	 * that its items at a gate fill the trustees' pool; no rescuer. */
	struct workqueue_struct *starve_wq;   /* I */
	struct torture_item items[MAX_ITEMS]; /* I (layout) */
	unsigned int nr_items;		      /* I */
	unsigned int nr_shared;		      /* I: items[0..nr_shared) */
	unsigned int first_ordered;	      /* I: then NR_ORDERED ordered ones, then
					       * NR_PRIVATE per stress thread */
	u64 ordered_next_seq;		      /* OL */
	u64 ordered_last_run;		      /* OL */
	atomic_t ordered_inside;	      /* A: ordered items running (0 or 1) */
	struct torture_timer timers[NR_TIMERS];
	atomic_t timer_offline_fires;	/* A: callbacks that found their CPU offline */
	unsigned int timer_offline_cpu; /* racy: the last such CPU, for the report */
	struct torture_slot slots[NR_SLOTS];

	/* What it counts */
	struct hp_counts hp;		   /* ST */
	struct histogram lat_down, lat_up; /* ST: cpu_down / cpu_up latency in ns */
	atomic_long_t nr_flushes, nr_cancels, ran_elsewhere; /* A */
	atomic_long_t nr_attrs;				     /* A: attribute changes made */
	unsigned long nr_starved;			     /* O: starved hand-overs done */
	unsigned long nr_starved_full;			     /* O: ... the trustees' pool full */
	unsigned long nr_starved_rescued;		     /* O: ... the item by a rescuer */
	/* Kernel WARNs and error reports (report_bug()) during the run are
	 * violations too: the counts already reported (A: compare-and-swap;
	 * the torture declares none expected). Spinlock "stuck" reports are only
	 * counted: on a busy host a vCPU holding a lock can be descheduled for
	 * seconds, and a real deadlock hangs an operation, which the watchdog
	 * reports. */
	unsigned long warns_seen;
	unsigned long bugs_seen;
	unsigned long spin_stuck_at_start; /* I */
	u64 stacks_held_at_start;	   /* I */
	struct kcsan_stats kcsan_at_start; /* I: the data-race detector's counts */

	/* The verdict */
	atomic_long_t nr_violations;  /* A */
	struct torture_result result; /* RP: final once the verdict is given */
} torture_run;

/* The locks and what spans runs: never reset (a reader such as
 * torture_status() may hold one as a run ends and the next starts). */
static DEFINE_MUTEX(torture_mutex);
static bool torture_active;	 /* TM: threads of a run exist (maybe stuck) */
static bool torture_have_result; /* TM: a run has given its verdict */
static DEFINE_SPINLOCK(ordered_lock);
static DEFINE_SPINLOCK(torture_stats_lock);
static DEFINE_SPINLOCK(torture_report_lock);
static DECLARE_WAIT_QUEUE_HEAD(torture_onoff_wait); /* the onoff thread's pauses */

static struct histogram lat_snapshot; /* the verdict only (once per run) */

/* ---- violations ---------------------------------------------------------- */

static void __printf(1, 2) torture_violation(const char *fmt, ...)
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

static void torture_check_kernel_reports(void)
{
	check_reports(__atomic_load_n(&warn_count, __ATOMIC_RELAXED), &torture_run.warns_seen,
		      "kernel warning(s) (WARN)");
	check_reports(bug_reports(), &torture_run.bugs_seen, "kernel error report(s) (BUG)");
}

/* No thread may run on an offline CPU: check where we are, preemption off
 * (a CPU goes offline only once its stopper thread has run). */
static unsigned int torture_check_cpu(const char *who, const char *name)
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

static u64 torture_random_delay_ns(struct prng *r, unsigned int max_ms)
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

static bool torture_item_queue(struct torture_item *it, unsigned int cpu)
{
	struct workqueue_struct *wq = torture_run.wqs[it->wq];

	count_queueing(it, cpu);
	return settle_queueing(it, cpu >= NR_CPUS ? queue_work(wq, &it->dw.work) :
						    queue_work_on(cpu, wq, &it->dw.work));
}

enum delayed_call {
	QUEUE_DELAYED, /* queue_delayed_work_on: fails if already pending */
	MOD_DELAYED,   /* mod_delayed_work_on: always queues; true when it replaced
			* a pending queueing, which it takes over */
};

static bool torture_item_queue_delayed(struct torture_item *it, unsigned int cpu, u64 delay_ns,
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
static void torture_timer_arm(struct torture_timer *tt, u64 delay_ns, unsigned int cpu)
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

static void torture_timer_delete(struct torture_timer *tt)
{
	if (del_timer(&tt->timer))
		atomic_long_inc(&tt->deleted);
}

/* Owner only: a timer fires when due (later by what the host stalls), never
 * 30 s late. */
static void torture_timer_check_late(struct torture_timer *tt)
{
	u64 now = ktime_get_ns();

	if (!tt->late_reported && timer_pending(&tt->timer) && now > tt->expires + STALL_NS) {
		tt->late_reported = true;
		torture_violation("timer %s expired %lu ms ago and has not fired", tt->name,
				  UL((now - tt->expires) / NSEC_PER_MSEC));
	}
}

/* ---- statistics --------------------------------------------------------- */

static void torture_lat_add(struct histogram *h, u64 ns)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	histogram_add(h, ns);
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

/* The verdict only (lat_snapshot): copied under the lock, summarized
 * outside it. */
static void torture_lat_summary(const struct histogram *h, struct value_summary *out)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	lat_snapshot = *h;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
	histogram_summarize(&lat_snapshot, out);
}

static void torture_read_hp_counts(struct hp_counts *c)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	*c = torture_run.hp;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

static u64 torture_cycles_completed(void)
{
	struct hp_counts c;

	torture_read_hp_counts(&c);
	return c.cycles;
}

/* The items' counts, summed (a moving picture while the run goes on). */
struct work_totals {
	u64 queued, executed, cancelled;
};

static void torture_sum_items(struct work_totals *t)
{
	*t = (struct work_totals){ 0 };
	for (unsigned int i = 0; i < torture_run.nr_items; i++) {
		t->queued += atomic_long_read(&torture_run.items[i].queued);
		t->executed += atomic_long_read(&torture_run.items[i].executed);
		t->cancelled += atomic_long_read(&torture_run.items[i].cancelled);
	}
}

static unsigned long to_us(u64 ns)
{
	return UL(ns / NSEC_PER_USEC);
}

/* ---- the onoff thread ---------------------------------------------------- */

enum hotplug_dir { TAKE_DOWN, BRING_UP };

static bool host_mode(void)
{
	return torture_run.params.hotplug != TORTURE_HOTPLUG_OWN;
}

static void count_overtaken(void)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	torture_run.hp.overtaken++;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

static u64 hp_calls(const struct cpuhp_stats *st)
{
	return st->nr_down + st->nr_up + st->nr_down_failed + st->nr_up_failed;
}

/* The host modes, after our call and the checks of the CPU's state that
 * followed it: did another caller's cpu_down or cpu_up run meanwhile (since
 * *before, read before our call)? Each takes the hotplug lock for all its
 * changes and is counted before it lets go, so if cpuhp_get_stats() (which
 * waits for that lock) counts only our call, nobody else changed a CPU's
 * state between our call and now: a wrong state is then ours. */
static bool others_moved(const struct cpuhp_stats *before)
{
	struct cpuhp_stats now;

	cpuhp_get_stats(&now);
	return hp_calls(&now) - hp_calls(before) > 1;
}

/* A check of the state our call left failed: a violation, unless (host
 * modes) another caller may have changed it since. */
static bool state_excused(const struct cpuhp_stats *before)
{
	if (!host_mode() || !others_moved(before))
		return false;
	count_overtaken();
	return true;
}

/* cpu_down or cpu_up, timed and checked; may_fail: the error a fault
 * injected for this call may bring (0: none). The onoff thread. In the
 * host modes another caller may get there first: the CPU gone (-ENODEV),
 * already in the asked state (-EALREADY), the last one online (-EBUSY). */
static int torture_timed_hotplug(unsigned int cpu, enum hotplug_dir dir, int may_fail)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];
	bool up = dir == BRING_UP;
	const char *op = up ? "cpu_up" : "cpu_down";
	struct cpuhp_stats before = { 0 };

	if (host_mode())
		cpuhp_get_stats(&before);
	slot_begin(s, op, NULL, (int)cpu);
	u64 t0 = ktime_get_ns();
	int err = up ? cpu_up(cpu) : cpu_down(cpu);
	u64 dt = ktime_get_ns() - t0;

	slot_end(s);
	if (err && host_mode() && (err == -ENODEV || err == -EALREADY || err == -EBUSY)) {
		count_overtaken();
		return err;
	}
	if (err && err == may_fail) {
		/* Rolled back: the CPU is exactly as it was. */
		bool online = cpu_online(cpu), act = cpumask_test_cpu(cpu, &cpu_active_mask);

		if ((online == up || act == up || cpu_going_down(cpu)) && !state_excused(&before))
			torture_violation(
				"after %s(%u) failed as injected (%s): online %d, active %d, "
				"going down %d",
				op, cpu, errno_name(err), online, act, cpu_going_down(cpu));
		unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

		if (up)
			torture_run.hp.failed_onlines++;
		else
			torture_run.hp.cancelled_offlines++;
		spin_unlock_irqrestore(&torture_stats_lock, flags);
		return err;
	}
	if (err) {
		torture_violation("%s(%u) returned %d (%s)", op, cpu, err, errno_name(err));
		return err;
	}
	torture_lat_add(up ? &torture_run.lat_up : &torture_run.lat_down, dt);
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	if (up)
		torture_run.hp.online++;
	else
		torture_run.hp.offline++;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
	if (up)
		cpumask_clear_cpu(cpu, &torture_run.taken_down);
	else
		cpumask_set_cpu(cpu, &torture_run.taken_down);
	bool online = cpu_online(cpu), act = cpumask_test_cpu(cpu, &cpu_active_mask);

	if ((online != up || act != up || cpu_going_down(cpu)) && !state_excused(&before))
		torture_violation("after %s(%u) returned 0: online %d, active %d, going down %d",
				  op, cpu, online, act, cpu_going_down(cpu));
	/* Online again, each pool has a worker to run what is queued there
	 * (none can go meanwhile: idle ones are culled down to two). */
	for (unsigned int p = 0; up && p < WQ_NR_CPU_POOLS; p++) {
		struct wq_pool_stats ps;

		workqueue_pool_stats(cpu, (enum wq_cpu_pool)p, &ps);
		if (!ps.nr_workers && !state_excused(&before))
			torture_violation("cpu%u is online again, and its %s pool has no worker",
					  cpu, p == WQ_POOL_HIGHPRI ? "high-priority" : "normal");
	}
	return 0;
}

/* torture_fail_steps: an online-phase step that fails for one CPU, the
 * CPU of the onoff thread's current call (NR_CPUS: none). Its "down"
 * failing cancels an offline; its "up" failing makes cpu_up roll back. */
static unsigned int step_fail_cpu = NR_CPUS; /* O */
static bool torture_step_added;		     /* TM */

static int step_fail_fn(unsigned int cpu)
{
	return cpu == READ_ONCE(step_fail_cpu) ? -ECANCELED : 0;
}

static struct cpuhp_step torture_fail_step = {
	.name = "torture:fail",
	.phase = CPUHP_ONLINE,
	.startup = step_fail_fn,
	.teardown = step_fail_fn,
};

/* A hotplug call of the onoff thread, with a fault injected now and then
 * (the variants): a failing step, or thread creation failing around it. */
static int hotplug_call(struct prng *r, unsigned int cpu, enum hotplug_dir dir)
{
	int may_fail = 0;

	if (torture_run.params.fail_steps && prng_below(r, 4) == 0) {
		WRITE_ONCE(step_fail_cpu, cpu);
		may_fail = -ECANCELED;
	} else if (torture_run.params.fail_workers && prng_below(r, 4) == 0) {
		kthread_fail_next(1 + (unsigned int)prng_below(r, 3));
		may_fail = -ENOMEM;
	}
	int err = torture_timed_hotplug(cpu, dir, may_fail);

	if (may_fail == -ENOMEM)
		kthread_fail_next(0);
	WRITE_ONCE(step_fail_cpu, NR_CPUS);
	return err;
}

/* How a cycle's cpu_up followed its cpu_down. */
enum cycle_kind {
	UP_LATER,   /* in a later round of the onoff thread */
	UP_AT_ONCE, /* right after it, while the trustee may still run its work */
};

/* One more completed offline/online cycle (torture_cycles_completed() reads them). */
static void count_cycle(enum cycle_kind kind)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	WRITE_ONCE(torture_run.hp.cycles, torture_run.hp.cycles + 1);
	torture_run.hp.quick_onlines += kind == UP_AT_ONCE;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
}

/* A call that must fail, with the error hotplug.h documents. */
static void probe_one(const char *call, unsigned int cpu, int err, int want, int also)
{
	unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

	torture_run.hp.probes++;
	spin_unlock_irqrestore(&torture_stats_lock, flags);
	if (err != want && err != also)
		torture_violation("%s(%u) returned %d (%s), expected %s", call, cpu, err,
				  errno_name(err), errno_name(want));
}

/* In the host modes only the calls no other caller can make succeed: on
 * CPU 0 (never taken down: -EPERM, or -EBUSY if it is the last one
 * online) and on impossible numbers. */
static void probe(struct prng *r)
{
	unsigned int cpu, online_cand = NR_CPUS, offline_cand = NR_CPUS;
	bool host = host_mode();

	for (unsigned int i = 0; i < torture_run.nr_cand && !host; i++) {
		if (cpu_online(torture_run.cand[i]))
			online_cand = torture_run.cand[i];
		else
			offline_cand = torture_run.cand[i];
	}
	switch (prng_below(r, 4)) {
	case 0:
		/* The boot CPU stays; when it is the last one online either
		 * reason is right. */
		probe_one("cpu_down", 0, cpu_down(0), -EPERM,
			  num_online_cpus() == 1 || host ? -EBUSY : -EPERM);
		break;
	case 1:
		if (online_cand < NR_CPUS)
			probe_one("cpu_up", online_cand, cpu_up(online_cand), -EALREADY, -EALREADY);
		probe_one("cpu_up", 0, cpu_up(0), -EALREADY, -EALREADY);
		break;
	case 2:
		if (offline_cand < NR_CPUS)
			probe_one("cpu_down", offline_cand, cpu_down(offline_cand), -EALREADY,
				  -EALREADY);
		break;
	default:
		probe_one("cpu_down", NR_CPUS + 1, cpu_down(NR_CPUS + 1), -EINVAL, -EINVAL);
		probe_one("cpu_up", NR_CPUS + 1, cpu_up(NR_CPUS + 1), -EINVAL, -EINVAL);
		for_each_possible_cpu(cpu) {
			if (!host && !cpumask_test_cpu(cpu, &cpu_present_mask)) {
				probe_one("cpu_up", cpu, cpu_up(cpu), -ENODEV, -ENODEV);
				break;
			}
		}
		break;
	}
}

enum doom_time { BEFORE_DOWN, AFTER_DOWN };

/* Work and a timer for cpu, which is about to go down (or just went):
 * the trustee must run the work elsewhere, the timer must move. */
static void doom(struct prng *r, unsigned int cpu, enum doom_time when)
{
	bool before = when == BEFORE_DOWN;

	for (unsigned int i = 0; i < torture_run.nr_shared; i++) {
		struct torture_item *it = &torture_run.items[i];

		if (!(it->flags & TI_DOOM))
			continue;
		if (it->flags & TI_DELAYED)
			torture_item_queue_delayed(it, cpu,
						   torture_random_delay_ns(r, before ? 20 : 3),
						   QUEUE_DELAYED);
		else
			torture_item_queue(it, cpu);
	}
	/* Only this thread takes CPUs down: cpu stays online until we do (not
	 * so in the host modes: add_timer_on() wants an online CPU). */
	if (before && !host_mode())
		torture_timer_arm(&torture_run.timers[ONOFF_TIMER], torture_random_delay_ns(r, 100),
				  cpu);
}

/* torture_fail_workers, now and then: a hand-over starved of workers.
 * Before the offline, no pool may grow (wq_max_workers 1) and the pool of
 * the trustees' workqueue (the unbound high-priority one) has no idle
 * worker (items at a gate, of torture_run.starve_wq which shares it, take them one
 * by one);
 * after it, no thread can be made at all. The offline CPU's trustees must
 * still start (by their workqueue's rescuer), and an item of the
 * WQ_MEM_RECLAIM workqueue queued for the offline CPU must run on an
 * online CPU (by a worker the trustee has, or by the rescuers the offline
 * pool's mayday timer calls), all before anything can be made again. */
#define STARVE_BLOCKERS 64
#define STARVE_LIMIT_NS (30 * NSEC_PER_SEC)
static struct work_struct starve_blockers[STARVE_BLOCKERS], starve_item; /* O */
static struct completion starve_gate, starve_ran;			 /* O */
static unsigned int starve_max_workers;					 /* O */
static u64 starve_trustee_runs[WQ_NR_CPU_POOLS];			 /* O */
static unsigned int starve_queued;					 /* O: blockers queued */
static atomic_t starve_inside;
static unsigned int starve_ran_on; /* written by the item before starve_ran */

static void starve_blocker_fn(struct work_struct *w)
{
	atomic_inc(&starve_inside);
	wait_for_completion(&starve_gate);
}

static void starve_item_fn(struct work_struct *w)
{
	starve_ran_on = smp_processor_id();
	complete(&starve_ran);
}

/* Bounded: false (and a violation) if cond stays false for STARVE_LIMIT_NS. */
#define starve_wait(cond, fmt, ...)                                                                \
	({                                                                                         \
		u64 __t0 = ktime_get_ns();                                                         \
		bool __ok;                                                                         \
		while (!(__ok = (cond)) && ktime_get_ns() - __t0 < STARVE_LIMIT_NS)                \
			msleep(1);                                                                 \
		if (!__ok)                                                                         \
			torture_violation("starved hand-over: " fmt, ##__VA_ARGS__);               \
		__ok;                                                                              \
	})

static u64 trustee_runs(unsigned int cpu, enum wq_cpu_pool which)
{
	struct wq_pool_stats st;

	workqueue_pool_stats(cpu, which, &st);
	return st.nr_trustee_runs;
}

/* The idle workers of the trustees' pool. */
static unsigned int trustee_idle(void)
{
	struct wq_pool_stats st;

	workqueue_wq_pool_stats(torture_run.starve_wq, WORK_CPU_UNBOUND, &st);
	return st.nr_idle;
}

/* Before cpu goes down: note how often its pools' trustees have run; no
 * pool may grow; the trustees' pool made full by construction, one
 * blocker at a time until it has no idle worker (each either starts, on
 * an idle worker, or finds none: then the pool is full). Its workers may
 * all be busy already (trustees of other offline CPUs). */
static void starve_begin(unsigned int cpu)
{
	for (int p = 0; p < WQ_NR_CPU_POOLS; p++)
		starve_trustee_runs[p] = trustee_runs(cpu, (enum wq_cpu_pool)p);
	starve_max_workers = READ_ONCE(wq_max_workers);
	WRITE_ONCE(wq_max_workers, 1);
	init_completion(&starve_gate);
	atomic_set(&starve_inside, 0);
	INIT_WORK(&starve_item, starve_item_fn); /* flushed at the end, queued or not */
	starve_queued = 0;
	while (trustee_idle() && starve_queued < STARVE_BLOCKERS) {
		struct work_struct *w = &starve_blockers[starve_queued++];

		INIT_WORK(w, starve_blocker_fn);
		queue_work(torture_run.starve_wq, w);
		int inside = atomic_read(&starve_inside);

		starve_wait(atomic_read(&starve_inside) > inside ||
				    work_busy(w) == WORK_BUSY_RUNNING || !trustee_idle(),
			    "a blocker in the trustees' pool neither started nor found it "
			    "full in 30 s");
	}
}

/* cpu went down while starved. */
static void starve_check(unsigned int cpu)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];
	struct wq_pool_stats before, after;

	slot_begin(s, "starved hand-over", torture_wq_names[TWQ_HIGHPRI], cpu);
	/* Full: no idle worker left when the CPU's trustees were queued. */
	bool full = !trustee_idle();

	kthread_fail_next(~0u); /* for ever, until starve_end() */
	for (int p = 0; p < WQ_NR_CPU_POOLS; p++)
		starve_wait(trustee_runs(cpu, (enum wq_cpu_pool)p) > starve_trustee_runs[p],
			    "the trustee of offline cpu%u's %s pool did not start within 30 s with "
			    "the trustees' pool full and no worker to be made",
			    cpu, p == WQ_POOL_HIGHPRI ? "high-priority" : "normal");
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &before);
	init_completion(&starve_ran);
	starve_ran_on = NR_CPUS;
	queue_work_on(cpu, torture_run.wqs[TWQ_HIGHPRI], &starve_item);
	if (starve_wait(completion_done(&starve_ran),
			"an item of %s for offline cpu%u did not run within 30 s with no "
			"worker to be made",
			torture_wq_names[TWQ_HIGHPRI], cpu) &&
	    starve_ran_on == cpu)
		torture_violation("starved hand-over: an item for offline cpu%u ran on it", cpu);
	workqueue_pool_stats(cpu, WQ_POOL_HIGHPRI, &after);
	WRITE_ONCE(torture_run.nr_starved, torture_run.nr_starved + 1);
	if (full)
		WRITE_ONCE(torture_run.nr_starved_full, torture_run.nr_starved_full + 1);
	if (after.nr_rescued > before.nr_rescued)
		WRITE_ONCE(torture_run.nr_starved_rescued, torture_run.nr_starved_rescued + 1);
	slot_end(s);
}

static void starve_end(void)
{
	kthread_fail_next(0);
	WRITE_ONCE(wq_max_workers, starve_max_workers);
	complete_all(&starve_gate);
	for (unsigned int i = 0; i < starve_queued; i++)
		flush_work(&starve_blockers[i]);
	flush_work(&starve_item);
}

static bool onoff_should_end(void)
{
	if (READ_ONCE(torture_run.stop_requested) ||
	    atomic_long_read(&torture_run.nr_violations) >= VIOLATIONS_ABORT)
		return true;
	if (torture_run.params.cycles)
		return torture_cycles_completed() >= torture_run.params.cycles;
	return torture_run.params.duration_s &&
	       ktime_get_ns() - torture_run.start_ns >=
		       (u64)torture_run.params.duration_s * NSEC_PER_SEC;
}

/* idle: the round made no hotplug call (there was none to make). */
static void onoff_pause(bool idle)
{
	unsigned int ms = torture_run.params.interval_ms;

	if (idle && ms < IDLE_PAUSE_MS)
		ms = IDLE_PAUSE_MS;
	if (ms)
		wait_event_timeout(torture_onoff_wait, READ_ONCE(torture_run.stop_requested),
				   (u64)ms * NSEC_PER_MSEC);
}

/* The CPU for the next hotplug call: a candidate; in the host modes any
 * present CPU but 0 (the host adds and removes them), NR_CPUS if none. */
static unsigned int pick_cpu(struct prng *r)
{
	struct cpumask m;

	if (!host_mode())
		return torture_run.cand[prng_below(r, torture_run.nr_cand)];
	cpumask_copy(&m, &cpu_present_mask);
	cpumask_clear_cpu(0, &m);
	unsigned int n = cpumask_weight(&m);

	return n ? cpumask_nth(prng_below(r, n), &m) : NR_CPUS;
}

/* When the harness's fault is due: after 10 cycles; in the host modes,
 * after 20 hotplug calls by anyone. */
static bool inject_due(void)
{
	struct cpuhp_stats now;

	if (!host_mode())
		return torture_cycles_completed() >= 10;
	cpuhp_get_stats(&now);
	return now.nr_down + now.nr_up - torture_run.hp_before.nr_down -
		       torture_run.hp_before.nr_up >=
	       20;
}

static void torture_end_run(void);

/* The harness's self-test: faults the torture must catch. */
static void inject_fault(void)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];

	if (torture_run.params.inject == TORTURE_INJECT_LOST) {
		pr_notice("injecting a fault: a queueing of %s that never happens\n",
			  torture_run.items[0].name);
		atomic_long_inc(&torture_run.items[0].queued);
	} else if (torture_run.params.inject == TORTURE_INJECT_HANG) {
		pr_notice("injecting a fault: torture/onoff hangs\n");
		slot_begin(s, "injected hang", NULL, 0);
		for (;;)
			msleep(1000);
	}
}

static int torture_onoff_thread(void *arg)
{
	struct prng *r = arg;
	bool injected = false;

	while (!onoff_should_end()) {
		if (torture_run.params.inject && !injected && inject_due()) {
			inject_fault();
			injected = true;
		}
		torture_check_cpu("thread", "torture/onoff");
		torture_timer_check_late(&torture_run.timers[ONOFF_TIMER]);
		if (prng_below(r, 16) == 0)
			probe(r);
		if (torture_run.params.hotplug == TORTURE_HOTPLUG_HOST) {
			wait_event_timeout(torture_onoff_wait,
					   READ_ONCE(torture_run.stop_requested),
					   (u64)max(torture_run.params.interval_ms, HOST_PAUSE_MS) *
						   NSEC_PER_MSEC);
			continue;
		}
		unsigned int cpu = pick_cpu(r);

		if (cpu >= NR_CPUS) {
			onoff_pause(true);
		} else if (cpu_online(cpu)) {
			bool starve = torture_run.params.fail_workers && prng_below(r, 4) == 0;

			if (starve)
				starve_begin(cpu);
			doom(r, cpu, BEFORE_DOWN);
			int down = hotplug_call(r, cpu, TAKE_DOWN);

			if (!down)
				doom(r, cpu, AFTER_DOWN);
			if (!down && starve)
				starve_check(cpu);
			if (starve)
				starve_end();
			/* Sometimes at once, while the trustee still has work. */
			if (!down && prng_below(r, 4) == 0 && !hotplug_call(r, cpu, BRING_UP))
				count_cycle(UP_AT_ONCE);
		} else if (cpumask_test_cpu(cpu, &torture_run.taken_down)) {
			if (!hotplug_call(r, cpu, BRING_UP))
				count_cycle(UP_LATER);
		} else {
			onoff_pause(true); /* host modes: offline, not by us */
			continue;
		}
		onoff_pause(false);
	}
	torture_end_run();
	return 0;
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

static void torture_do_flush(struct torture_slot *s, struct torture_item *it)
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

static void torture_do_flush_workqueue(struct torture_slot *s, enum torture_wq w)
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
static void torture_private_idle_check(struct torture_item *it)
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

/* ---- the watchdog -------------------------------------------------------- */

/* How a run reaches its verdict. */
enum run_end {
	RUN_ENDED,   /* torture_end_run(): the threads stopped, the end checks are done */
	RUN_GAVE_UP, /* threads are stuck: the verdict without them */
};

static void report_verdict(enum run_end how);

static void watch_slots(u64 now, u64 *first_stall)
{
	for (unsigned int i = 0; i < NR_SLOTS; i++) {
		struct torture_slot *s = &torture_run.slots[i];
		u64 st = READ_ONCE(s->state);

		if (!(st & 1) || st != s->seen_state) {
			s->seen_state = st;
			s->seen_since = now;
			s->reported = false;
			continue;
		}
		if (s->reported || now - s->seen_since < STALL_NS)
			continue;
		const char *what = READ_ONCE(s->what), *obj = READ_ONCE(s->obj);
		int arg = READ_ONCE(s->arg);

		smp_rmb();
		if (READ_ONCE(s->state) != st)
			continue; /* it returned just now */
		s->reported = true;
		if (obj)
			torture_violation("%s: %s(%s) has not returned after %lu s", s->thread,
					  what, obj, UL((now - s->seen_since) / NSEC_PER_SEC));
		else
			torture_violation("%s: %s(%d) has not returned after %lu s", s->thread,
					  what, arg, UL((now - s->seen_since) / NSEC_PER_SEC));
		if (!*first_stall) {
			*first_stall = now;
			sched_dump_threads();
			workqueue_show();
		}
	}
}

/* Never more executions and cancels than queueings, at any time. */
static void watch_counts(void)
{
	for (unsigned int i = 0; i < torture_run.nr_items; i++) {
		struct torture_item *it = &torture_run.items[i];
		long e = atomic_long_read(&it->executed), c = atomic_long_read(&it->cancelled);
		long q = atomic_long_read(&it->queued);

		if (e + c > q && !it->over_reported) {
			it->over_reported = true;
			torture_violation(
				"item %s ran %ld times and was cancelled %ld times, queued only "
				"%ld",
				it->name, e, c, q);
		}
	}
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		struct torture_timer *tt = &torture_run.timers[i];
		long f = atomic_long_read(&tt->fired), d = atomic_long_read(&tt->deleted);
		long a = atomic_long_read(&tt->armed);

		if (f + d > a && !tt->over_reported) {
			tt->over_reported = true;
			torture_violation(
				"timer %s fired %ld times and was deleted %ld times, armed only "
				"%ld",
				tt->name, f, d, a);
		}
	}
}

static void print_progress(u64 now)
{
	struct work_totals works;
	struct hp_counts hp;

	torture_sum_items(&works);
	torture_read_hp_counts(&hp);
	pr_info("%lu s: %lu cycles (%lu offline, %lu online), %lu works run, %ld violations\n",
		UL((now - torture_run.start_ns) / NSEC_PER_SEC), UL(hp.cycles), UL(hp.offline),
		UL(hp.online), UL(works.executed), atomic_long_read(&torture_run.nr_violations));
}

static int torture_watch_thread_fn(void *unused)
{
	u64 first_stall = 0, next_progress = torture_run.start_ns + PROGRESS_NS;
	int offline_fires_seen = 0;

	while (!kthread_should_stop()) {
		msleep(WATCH_PERIOD_MS);
		u64 now = ktime_get_ns();

		watch_slots(now, &first_stall);
		watch_counts();
		torture_check_kernel_reports();
		int n = atomic_read(&torture_run.timer_offline_fires);

		if (n != offline_fires_seen) {
			torture_violation(
				"a torture timer fired on cpu%u while it was offline (%d such so "
				"far)",
				READ_ONCE(torture_run.timer_offline_cpu), n);
			offline_fires_seen = n;
		}
		if (atomic_read(&torture_run.verdict_given))
			continue;
		if (first_stall && now - first_stall >= STALL_NS) {
			pr_err("threads are stuck: ending the run without them\n");
			report_verdict(RUN_GAVE_UP);
			continue;
		}
		if (now >= next_progress) {
			print_progress(now);
			next_progress += PROGRESS_NS;
		}
	}
	return 0;
}

/* ---- the end ------------------------------------------------------------- */

static bool item_idle(struct torture_item *it)
{
	return !work_pending(&it->dw.work) && !(work_busy(&it->dw.work) & WORK_BUSY_RUNNING) &&
	       !((it->flags & TI_DELAYED) && timer_pending(&it->dw.timer));
}

/* Flush every item until none is pending or running. Executions that
 * began before "stopping" may re-queue once more: hence rounds. */
static bool drain_items(struct torture_slot *s)
{
	for (unsigned int round = 0; round < DRAIN_ROUNDS; round++) {
		bool idle = true;

		for (unsigned int i = 0; i < torture_run.nr_items; i++)
			torture_do_flush(s, &torture_run.items[i]);
		for (unsigned int w = 0; w < NR_TWQ; w++)
			torture_do_flush_workqueue(s, (enum torture_wq)w);
		for (unsigned int i = 0; i < torture_run.nr_items; i++)
			idle &= item_idle(&torture_run.items[i]);
		if (idle)
			return true;
	}
	for (unsigned int i = 0; i < torture_run.nr_items; i++)
		if (!item_idle(&torture_run.items[i]))
			torture_violation(
				"item %s still pending or running after %u rounds of flushing",
				torture_run.items[i].name, DRAIN_ROUNDS);
	return false;
}

/* Every item ran or was cancelled once per queueing, and none is still
 * inside its function. */
static void check_items_balanced(void)
{
	for (unsigned int i = 0; i < torture_run.nr_items; i++) {
		struct torture_item *it = &torture_run.items[i];
		long q = atomic_long_read(&it->queued), e = atomic_long_read(&it->executed);
		long c = atomic_long_read(&it->cancelled);

		if (e + c != q)
			torture_violation(
				"item %s: queued %ld times, ran %ld, cancelled %ld (%s %ld)",
				it->name, q, e, c, e + c < q ? "lost" : "extra",
				e + c < q ? q - e - c : e + c - q);
		if (atomic_read(&it->inside))
			torture_violation("item %s: %d executions still inside", it->name,
					  atomic_read(&it->inside));
		if (it->flags & TI_PRIVATE)
			torture_private_idle_check(it);
	}
}

/* Every timer fired or was deleted once per arming (those still pending
 * are deleted here). */
static void check_timers_balanced(void)
{
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		struct torture_timer *tt = &torture_run.timers[i];

		if (del_timer_sync(&tt->timer))
			atomic_long_inc(&tt->deleted);
		long a = atomic_long_read(&tt->armed), f = atomic_long_read(&tt->fired);
		long d = atomic_long_read(&tt->deleted);

		if (f + d != a)
			torture_violation("timer %s: armed %ld times, fired %ld, deleted %ld",
					  tt->name, a, f, d);
	}
}

/* Every online CPU's pools are bound again (busy workers rebind after
 * their item: give them a moment). */
static void check_pools_rebound(void)
{
	u64 t0 = ktime_get_ns();
	unsigned int cpu, left;

	do {
		left = 0;
		for_each_online_cpu(cpu)
			left += workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL) +
				workqueue_pool_unbound_workers(cpu, WQ_POOL_HIGHPRI);
		if (left)
			msleep(10);
	} while (left && ktime_get_ns() - t0 < REBIND_WAIT_NS);
	for_each_online_cpu(cpu) {
		unsigned int n = workqueue_pool_unbound_workers(cpu, WQ_POOL_NORMAL),
			     h = workqueue_pool_unbound_workers(cpu, WQ_POOL_HIGHPRI);

		if (n + h)
			torture_violation(
				"cpu%u is online but %u normal and %u highpri workers are still "
				"unbound",
				cpu, n, h);
	}
	if (left) { /* for whoever debugs it: the busy ones too */
		workqueue_show();
		sched_dump_threads();
		smp_show_backtraces();
		msleep(200);
	}
}

/* cpuhp_get_stats() counted exactly our successful calls; in the host
 * modes, ours and those of others (whose count it gives torture_run.hp). */
static void check_hotplug_counted(void)
{
	struct cpuhp_stats now;

	cpuhp_get_stats(&now);
	struct hp_counts hp;
	u64 downs = now.nr_down - torture_run.hp_before.nr_down,
	    ups = now.nr_up - torture_run.hp_before.nr_up;

	torture_read_hp_counts(&hp);
	if (host_mode() ? downs < hp.offline || ups < hp.online :
			  downs != hp.offline || ups != hp.online)
		torture_violation(
			"cpuhp_get_stats: %lu offline and %lu online during the run, we made %lu "
			"and %lu",
			UL(downs), UL(ups), UL(hp.offline), UL(hp.online));
	if (host_mode()) {
		unsigned long flags = spin_lock_irqsave(&torture_stats_lock);

		torture_run.hp.others_offline = downs >= hp.offline ? downs - hp.offline : 0;
		torture_run.hp.others_online = ups >= hp.online ? ups - hp.online : 0;
		spin_unlock_irqrestore(&torture_stats_lock, flags);
	}
}

/* Every hotplug operation ends by releasing the kernel stacks freed while
 * its CPU was in transit: none may still be held. */
static void check_stacks_released(void)
{
	unsigned int held = kstack_nr_held(NULL);

	if (held && !cpus_in_transit())
		torture_violation(
			"%u freed kernel stacks still held back, with no CPU starting or dying",
			held);
}

/* The run did what it was asked: CPUs went offline and online (the cycles
 * asked for), work ran, and each variant made its calls fail or its
 * changes. After check_hotplug_counted(): the host modes count the others'
 * calls. */
static void check_run_exercised(void)
{
	u64 cycles = torture_cycles_completed();
	struct work_totals works;
	struct hp_counts hp;

	torture_sum_items(&works);
	torture_read_hp_counts(&hp);
	if (!cycles && !host_mode())
		torture_violation("no offline/online cycle was completed");
	else if (host_mode() && !hp.offline && !hp.online && !hp.others_offline &&
		 !hp.others_online)
		torture_violation("no CPU went offline or online during the run");
	else if (torture_run.params.cycles && cycles < torture_run.params.cycles &&
		 !READ_ONCE(torture_run.stop_requested))
		torture_violation("only %lu of %u cycles were done", UL(cycles),
				  torture_run.params.cycles);
	if (!works.executed)
		torture_violation("no work item ran");
	if (torture_run.params.fail_steps && !hp.cancelled_offlines && !hp.failed_onlines)
		torture_violation("torture_fail_steps: no call failed at its step");
	if (torture_run.params.fail_workers && !hp.cancelled_offlines && !hp.failed_onlines)
		torture_violation("torture_fail_workers: no call failed for want of a thread");
	if (torture_run.params.fail_workers && !READ_ONCE(torture_run.nr_starved) && !host_mode())
		torture_violation("torture_fail_workers: no hand-over was starved of threads");
	if (torture_run.params.attrs && !atomic_long_read(&torture_run.nr_attrs))
		torture_violation("torture_attrs: no attribute change was made");
}

/* In a sanitized image, the data-race detector sampled the run at its
 * floor or above (kernel/debug/kcsan.h): with fewer watchpoints, "no race seen"
 * means no race looked for. */
static void check_detector_sampled(void)
{
	struct kcsan_stats during;
	char why[TORTURE_REPORT_LEN];

	kcsan_stats_since(&during, &torture_run.kcsan_at_start);
	if (!kcsan_sampled(&during, why, sizeof(why)))
		torture_violation("%s", why);
}

/* The end state, once the stress threads have stopped and the items are
 * drained: each check reports what it finds as violations, in this order. */
static void final_checks(void)
{
	check_items_balanced();
	check_timers_balanced();
	check_pools_rebound();
	check_hotplug_counted();
	check_stacks_released();
	torture_check_kernel_reports();
	check_run_exercised();
	check_detector_sampled();
}

static void torture_destroy_wqs(void)
{
	for (unsigned int w = 0; w < NR_TWQ; w++) {
		if (torture_run.wqs[w])
			destroy_workqueue(torture_run.wqs[w]);
		torture_run.wqs[w] = NULL;
	}
	if (torture_run.starve_wq)
		destroy_workqueue(torture_run.starve_wq);
	torture_run.starve_wq = NULL;
}

/* The onoff thread, once the cycles or the time are done: restore the
 * CPUs, stop the stress threads, drain everything, check the end state,
 * then report the verdict and stop the watchdog. */
static void torture_end_run(void)
{
	struct torture_slot *s = &torture_run.slots[ONOFF_SLOT];
	bool stuck = false;

	/* Leave the CPUs as we found them (the stress goes on meanwhile); in
	 * the host modes, bring back those we took down that are still there. */
	for (unsigned int i = 0; i < torture_run.nr_cand && !host_mode(); i++)
		if (cpumask_test_cpu(torture_run.cand[i], &torture_run.initially_online) &&
		    !cpu_online(torture_run.cand[i]))
			torture_timed_hotplug(torture_run.cand[i], BRING_UP, 0);
	unsigned int cpu;

	for_each_cpu(cpu, &torture_run.taken_down)
		if (host_mode() && cpumask_test_cpu(cpu, &cpu_present_mask) && !cpu_online(cpu))
			torture_timed_hotplug(cpu, BRING_UP, 0);
	WRITE_ONCE(torture_run.stopping, true);
	smp_mb();
	for (unsigned int i = 0; i < torture_run.params.threads; i++) {
		slot_begin(s, "waiting for", torture_run.stress[i].thread->name, 0);
		u64 left = wait_for_completion_timeout(&torture_run.stress[i].done, STOP_WAIT_NS);

		slot_end(s);
		if (!left) {
			torture_violation("%s did not stop within %lu s",
					  torture_run.stress[i].thread->name,
					  UL(STOP_WAIT_NS / NSEC_PER_SEC));
			stuck = true;
		}
	}
	if (stuck) {
		report_verdict(RUN_GAVE_UP);
		return; /* leave everything as it is: threads still use it */
	}
	for (unsigned int i = 0; i < torture_run.params.threads; i++)
		kthread_stop(torture_run.stress[i].thread);
	torture_timer_delete(&torture_run.timers[ONOFF_TIMER]);
	bool idle = drain_items(s);

	if (idle) {
		for (unsigned int w = 0; w < NR_TWQ; w++) {
			slot_begin(s, "drain_workqueue", torture_wq_names[w], 0);
			drain_workqueue(torture_run.wqs[w]);
			slot_end(s);
		}
	}
	final_checks();
	mutex_lock(&torture_mutex);
	if (torture_step_added)
		cpuhp_remove_step(&torture_fail_step);
	torture_step_added = false;
	mutex_unlock(&torture_mutex);
	if (idle)
		torture_destroy_wqs();
	report_verdict(RUN_ENDED);
	kthread_stop(torture_run.watch_thread);
	/* Items left in flight (a violation) keep the run "active": a new one
	 * must not re-initialise them under the workqueue. */
	mutex_lock(&torture_mutex);
	torture_active = !idle;
	mutex_unlock(&torture_mutex);
}

static void print_latency(const char *what, const struct value_summary *l)
{
	pr_notice("%s latency us: min %lu median %lu max %lu (%lu samples)\n", what, to_us(l->min),
		  to_us(l->median), to_us(l->max), UL(l->n));
}

/* Deterministic mode: how often each delay point delayed. */
static void report_delay_points(void)
{
	struct delay_stats st;
	char buf[256];
	size_t n = 0;

	if (!delay_points_on)
		return;
	delay_get_stats(&st);
	buf[0] = '\0';
	for (int i = 0; i < NR_DELAY_SITES && n < sizeof(buf); i++)
		if (st.passes[i])
			n += snprintf(buf + n, sizeof(buf) - n, " %s %lu/%lu",
				      delay_site_name((enum delay_site)i), UL(st.delays[i]),
				      UL(st.passes[i]));
	pr_notice("delay points (delayed/passed):%s; %lu us of delays in all\n", buf,
		  UL(st.delayed_ns / NSEC_PER_USEC));
}

/* Fill in torture_run.result from the run's counts: the verdict (passed unless
 * there were violations or the run gave up) and the statistics it reports. */
static void decide_verdict(bool gave_up)
{
	struct torture_result *res = &torture_run.result;
	struct work_totals works;
	struct hp_counts hp;
	u64 armed = 0, fired = 0;

	torture_lat_summary(&torture_run.lat_down, &res->offline);
	torture_lat_summary(&torture_run.lat_up, &res->online);
	torture_sum_items(&works);
	for (unsigned int i = 0; i < NR_TIMERS; i++) {
		armed += atomic_long_read(&torture_run.timers[i].armed);
		fired += atomic_long_read(&torture_run.timers[i].fired);
	}
	torture_read_hp_counts(&hp);
	res->cycles = hp.cycles;
	res->nr_offline = hp.offline;
	res->nr_online = hp.online;
	res->quick_onlines = hp.quick_onlines;
	res->probes = hp.probes;
	res->cancelled_offlines = hp.cancelled_offlines;
	res->failed_onlines = hp.failed_onlines;
	res->overtaken = hp.overtaken;
	res->others_offline = hp.others_offline;
	res->others_online = hp.others_online;
	res->attrs_changes = (u64)atomic_long_read(&torture_run.nr_attrs);
	res->starved_handovers = READ_ONCE(torture_run.nr_starved);
	res->starved_rescued = READ_ONCE(torture_run.nr_starved_rescued);
	res->starved_full = READ_ONCE(torture_run.nr_starved_full);
	res->seed = torture_run.params.seed;
	res->elapsed_ns = ktime_get_ns() - torture_run.start_ns;
	res->stopped = READ_ONCE(torture_run.stop_requested);
	res->gave_up = gave_up;
	res->works_queued = works.queued;
	res->works_run = works.executed;
	res->works_cancelled = works.cancelled;
	res->ran_elsewhere = atomic_long_read(&torture_run.ran_elsewhere);
	res->flushes = atomic_long_read(&torture_run.nr_flushes);
	res->cancels = atomic_long_read(&torture_run.nr_cancels);
	res->timers_armed = armed;
	res->timers_fired = fired;
	res->spin_stuck = READ_ONCE(spin_stuck_reports) - torture_run.spin_stuck_at_start;
	kstack_nr_held(&res->stacks_held);
	res->stacks_held -= torture_run.stacks_held_at_start;
	kcsan_stats_since(&res->detector, &torture_run.kcsan_at_start);
	unsigned long flags = spin_lock_irqsave(&torture_report_lock);

	res->violations = atomic_long_read(&torture_run.nr_violations);
	res->passed = res->violations == 0 && !gave_up;
	spin_unlock_irqrestore(&torture_report_lock, flags);
}

/* The validators' statistics beside the verdict: lockdep's since boot, and
 * the data-race detector's during the run, where it is built in. */
static void print_validators(const struct torture_result *res)
{
	const struct kcsan_stats *kc = &res->detector;
	u64 elapsed_ns = max(res->elapsed_ns, 1ull);
	struct lockdep_stats ld;

	lockdep_get_stats(&ld);
	pr_notice("lock validator: %s, %lu report(s); classes %u/%u, dependencies %u/%u, chains "
		  "%u/%u, deepest %u held; chain cache %lu hits, %lu misses\n",
		  !ld.enabled ? "off (lockdep=0)" :
		  ld.on	      ? "on" :
				"off after a report",
		  ld.reports, ld.classes, ld.max_classes, ld.deps, ld.max_deps, ld.chains,
		  ld.max_chains, ld.max_depth, UL(ld.chain_hits), UL(ld.chain_misses));
	if (kc->on)
		pr_notice(
			"data-race detector: %lu watchpoints set (%lu per minute; %lu per million "
			"plain accesses, floor %u), %lu races seen, %lu pairs of functions "
			"reported\n",
			UL(kc->watchpoints), UL(kc->watchpoints * 60 * NSEC_PER_SEC / elapsed_ns),
			kcsan_per_million(kc->rate_watchpoints, kc->rate_accesses),
			KCSAN_FLOOR_PER_MILLION, UL(kc->races), UL(kc->reported));
}

/* Print torture_run.result as decide_verdict() left it: the statistics, the
 * trace up to the first violation if one froze it, the violations, and
 * PASS or FAIL last. */
static void print_verdict(void)
{
	const struct torture_result *res = &torture_run.result;

	pr_notice("%s after %lu s: %lu cycles (%lu offline, %lu online, %lu at once), %lu error "
		  "probes, seed %lu\n",
		  res->stopped ? "stopped" : "done", UL(res->elapsed_ns / NSEC_PER_SEC),
		  UL(res->cycles), UL(res->nr_offline), UL(res->nr_online), UL(res->quick_onlines),
		  UL(res->probes), UL(res->seed));
	print_latency("offline", &res->offline);
	print_latency("online", &res->online);
	pr_notice("works queued %lu, run %lu, cancelled %lu, %lu ran elsewhere as their CPU went "
		  "down; %lu flushes, %lu cancels; timers armed %lu, fired %lu\n",
		  UL(res->works_queued), UL(res->works_run), UL(res->works_cancelled),
		  UL(res->ran_elsewhere), UL(res->flushes), UL(res->cancels), UL(res->timers_armed),
		  UL(res->timers_fired));
	pr_notice("%lu kernel stack(s) freed while a CPU was starting or dying, held back until "
		  "none was\n",
		  UL(res->stacks_held));
	print_validators(res);
	if (res->spin_stuck)
		pr_notice("%lu spinlock wait(s) over spin_stuck_ms reported (not violations: a "
			  "busy host can cause them)\n",
			  UL(res->spin_stuck));
	if (torture_run.params.fail_workers || torture_run.params.fail_steps ||
	    torture_run.params.attrs)
		pr_notice("variants (%s%s%s): %lu cancelled offlines, %lu failed onlines, %lu "
			  "attribute changes, %lu starved hand-overs (%lu with the trustees' pool "
			  "full, %lu items by rescuers)\n",
			  torture_run.params.fail_workers ? " fail_workers" : "",
			  torture_run.params.fail_steps ? " fail_steps" : "",
			  torture_run.params.attrs ? " attrs" : "", UL(res->cancelled_offlines),
			  UL(res->failed_onlines), UL(res->attrs_changes),
			  UL(res->starved_handovers), UL(res->starved_full),
			  UL(res->starved_rescued));
	if (host_mode())
		pr_notice("torture_hotplug=%s: others took CPUs offline %lu times and online %lu "
			  "times; %lu of our calls found the CPU moved by them\n",
			  torture_hotplug_names[torture_run.params.hotplug],
			  UL(res->others_offline), UL(res->others_online), UL(res->overtaken));
	report_delay_points();
	if (torture_run.tracing) {
		trace_stop(); /* the ring must stand still to be printed */
		if (res->violations) {
			pr_notice("the trace up to the first violation follows "
				  "(scripts/trace2json.py "
				  "turns it into Perfetto JSON and an SVG timeline)\n");
			trace_dump();
		}
	}
	pr_notice("violations: %lu\n", res->violations);
	for (unsigned int i = 0; i < res->nr_reports; i++)
		pr_notice("  %u: %s\n", i + 1, res->reports[i]);
	if (res->passed)
		pr_notice("PASS\n");
	else
		pr_err("FAIL (%lu violations)\n", res->violations);
}

/* Decide and print the verdict, once per run (the first caller does it:
 * torture_end_run(), or the watchdog giving up on stuck threads), then wake whoever
 * waits for it. */
static void report_verdict(enum run_end how)
{
	bool gave_up = how == RUN_GAVE_UP;

	if (atomic_cmpxchg(&torture_run.verdict_given, 0, 1) != 0)
		return;
	if (gave_up)
		WRITE_ONCE(torture_run.stopping, true); /* the stress threads that can, stop */
	decide_verdict(gave_up);
	print_verdict();
	mutex_lock(&torture_mutex);
	torture_have_result = true;
	mutex_unlock(&torture_mutex);
	complete_all(&torture_run.finished);
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
	    (p->hotplug == TORTURE_HOTPLUG_HOST && p->cycles))
		return -EINVAL;
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
