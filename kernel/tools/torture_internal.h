/* kernel/tools/torture_internal.h - what the parts of the CPU-hotplug
 * torture share: the run state and its structs, and the calls one part
 * makes into another. Only the .c files beside it include it; what the
 * torture does and checks is in torture.h.
 *   torture.c        the run and its load: parameters, the run state,
 *                    violations, queueing with accounting, the work
 *                    function, timers, statistics, the stress threads,
 *                    starting and stopping a run (torture.h's calls)
 *   torture_onoff.c  the onoff thread: the hotplug calls and their checks,
 *                    probes, doomed work, starved hand-overs, the harness's
 *                    injected faults
 *   torture_end.c    the watchdog, the end of a run (restoring the CPUs,
 *                    draining, the end checks) and the verdict
 * What one part alone uses stays static in it.
 *
 * Field legend: I = set by torture_start() before the threads run (or at
 * creation); A = atomic; O = the onoff thread only; ST = torture_stats_lock;
 * RP = torture_report_lock; OL = ordered_lock (torture.c); TM = torture_mutex;
 * WD = the watchdog thread only; X = the item's own executions (never two at
 * once: that is one of the invariants checked); "owner" = the one thread that
 * uses it.
 *
 * Accounting of an item: "queued" is raised BEFORE each queue_* call and
 * lowered again if the call fails (or, for mod_delayed_work, if it took a
 * pending queueing over, which it replaces); "executed" is raised at the
 * end of each execution, "cancelled" after each cancel that returned true.
 * So at any moment executed + cancelled <= queued (read in that order),
 * and once everything is drained, executed + cancelled == queued.
 */
#ifndef KERNEL_TOOLS_TORTURE_INTERNAL_H
#define KERNEL_TOOLS_TORTURE_INTERNAL_H

#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/mutex.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/torture.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/compiler.h"
#include "lib/histogram.h"
#include "lib/random.h"
#include "lib/types.h"

#define NR_STRESS  TORTURE_MAX_THREADS /* stress threads (at most) */
#define MAX_ITEMS  128
#define NR_ORDERED 8
#define NR_PRIVATE 7 /* items of each stress thread (torture.c's private_specs) */
#define UL(x)	   ((unsigned long)(x))

/* An operation this long has hung; after a hang, the run ends this long
 * after it anyway (torture_stall_s=, torture.c). */
extern unsigned int torture_stall_s;
#define STALL_NS ((u64)READ_ONCE(torture_stall_s) * NSEC_PER_SEC)

/* ---- the workqueues and their items ------------------------------------- */

enum torture_wq { TWQ_BOUND, TWQ_HIGHPRI, TWQ_INTENSIVE, TWQ_UNBOUND, TWQ_ORDERED, TWQ_BH, NR_TWQ };
extern const char *const torture_wq_names[NR_TWQ];

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

static inline void slot_begin(struct torture_slot *s, const char *what, const char *obj, int arg)
{
	WRITE_ONCE(s->what, what);
	WRITE_ONCE(s->obj, obj);
	WRITE_ONCE(s->arg, arg);
	smp_wmb();
	WRITE_ONCE(s->state, (((s->state >> 1) + 1) << 1) | 1);
}

static inline void slot_end(struct torture_slot *s)
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

#define TORTURE_MAX_WALK 32 /* walk_steps: (step, direction) pairs at most */

/* Everything one run uses. torture_start() zeroes it and sets it up
 * (run_init()) while no run is active; the result stays readable until
 * the next start. */
struct torture_run {
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

	/* walk_steps: the steps that may fail, each way, taken in turn */
	struct torture_walk {
		char name[32];	    /* I */
		enum cpuhp_dir dir; /* I */
		u64 failed;	    /* O: calls failed there on request */
	} walk[TORTURE_MAX_WALK];
	unsigned int nr_walk;		       /* I */
	unsigned int walk_next[CPUHP_NR_DIRS]; /* O: the next to try each way */
	u64 walk_calls[CPUHP_NR_DIRS];	       /* O: calls asked to fail, each way */
	/* ... and the levels between offline and online, each stopped at in
	 * turn before a call that then goes on from there */
	struct torture_stop {
		char name[32];		    /* I */
		u64 stopped[CPUHP_NR_DIRS]; /* O: stops there coming down, going up */
	} stops[TORTURE_MAX_WALK];
	unsigned int nr_stops;		       /* I */
	unsigned int stop_next[CPUHP_NR_DIRS]; /* O */
	u64 stop_calls[CPUHP_NR_DIRS];	       /* O */

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
};

/* Everything one run uses (torture.c). */
extern struct torture_run torture_run;

/* The locks and what spans runs (torture.c): never reset (a reader such as
 * torture_status() may hold one as a run ends and the next starts). */
extern struct mutex torture_mutex;
extern bool torture_active;	 /* TM: threads of a run exist (maybe stuck) */
extern bool torture_have_result; /* TM: a run has given its verdict */
extern struct spinlock torture_stats_lock;
extern struct spinlock torture_report_lock;
extern struct wait_queue_head torture_onoff_wait; /* the onoff thread's pauses */
extern const char *const torture_hotplug_names[]; /* the values of torture_hotplug= */

/* Who takes CPUs down and up: not the torture alone (torture_hotplug=both
 * or host)? */
static inline bool host_mode(void)
{
	return torture_run.params.hotplug != TORTURE_HOTPLUG_OWN;
}

/* ---- torture.c, for the other parts ------------------------------------- */

/* A breach of an invariant: counted, printed (the first ones), kept for
 * the result (the first TORTURE_MAX_REPORTS). */
void __printf(1, 2) torture_violation(const char *fmt, ...);
void torture_check_kernel_reports(void);
unsigned int torture_check_cpu(const char *who, const char *name);
u64 torture_random_delay_ns(struct prng *r, unsigned int max_ms);

enum delayed_call {
	QUEUE_DELAYED, /* queue_delayed_work_on: fails if already pending */
	MOD_DELAYED,   /* mod_delayed_work_on: always queues; true when it replaced
			* a pending queueing, which it takes over */
};

bool torture_item_queue(struct torture_item *it, unsigned int cpu);
bool torture_item_queue_delayed(struct torture_item *it, unsigned int cpu, u64 delay_ns,
				enum delayed_call call);
void torture_timer_arm(struct torture_timer *tt, u64 delay_ns, unsigned int cpu);
void torture_timer_delete(struct torture_timer *tt);
void torture_timer_check_late(struct torture_timer *tt);

/* The items' counts, summed (a moving picture while the run goes on). */
struct work_totals {
	u64 queued, executed, cancelled;
};

void torture_lat_add(struct histogram *h, u64 ns);
void torture_lat_summary(const struct histogram *h, struct value_summary *out);
void torture_read_hp_counts(struct hp_counts *c);
u64 torture_cycles_completed(void);
void torture_sum_items(struct work_totals *t);

static inline unsigned long to_us(u64 ns)
{
	return UL(ns / NSEC_PER_USEC);
}

void torture_do_flush(struct torture_slot *s, struct torture_item *it);
void torture_do_flush_workqueue(struct torture_slot *s, enum torture_wq w);
void torture_private_idle_check(struct torture_item *it);

/* ---- torture_onoff.c ----------------------------------------------------- */

enum hotplug_dir { TAKE_DOWN, BRING_UP };

int torture_timed_hotplug(unsigned int cpu, enum hotplug_dir dir, int may_fail);
/* torture_fail_steps' failing step, registered by torture_start() */
extern struct cpuhp_step torture_fail_step;
extern bool torture_step_added; /* TM */
/* walk_steps: cpuhp_for_each_step()'s callback, filling torture_run.walk */
void torture_walk_add(const struct cpuhp_step_info *info, void *arg);
int torture_onoff_thread(void *arg);

/* ---- torture_end.c ------------------------------------------------------- */

int torture_watch_thread_fn(void *unused);
void torture_end_run(void);
void torture_destroy_wqs(void);

#endif
