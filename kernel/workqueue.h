/* kernel/workqueue.h - the concurrency-managed workqueue (cmwq), baton's
 * only deferred-work mechanism. The API mirrors Linux's, so Linux's
 * Documentation/core-api/workqueue.rst describes it; docs/workqueue.md has
 * the longer story with pictures.
 *
 * The code is the folder kernel/workqueue/, one part a file; each chapter
 * below is one part and names its file. kernel/workqueue/internal.h holds
 * what the parts share: the structs with their lock legend, the pool
 * predicates, and the idle-list rule.
 *
 * ---------------------------------------------------------------------
 * Pools, not threads per workqueue (pool.c)
 * ---------------------------------------------------------------------
 * No thread belongs to a workqueue. Every CPU has two shared worker pools,
 * normal and high priority (workers at nice -20), more per-CPU pools for
 * any other nice a bound workqueue is given, and there are unbound pools
 * keyed by attributes (nice, CPU mask) for WQ_UNBOUND workqueues. A
 * workqueue is a set of queueing rules (max_active, flags, flush state)
 * in front of the pools: one "pool_workqueue" (pwq) per CPU for a bound
 * workqueue, one for an unbound one, and for a bound one a map saying
 * which CPU's pwq an item for each CPU goes to (its own, or one of the
 * mask's CPUs). pool.c makes and finds the pools, the workqueues and their
 * pwqs, changes attributes (new pwqs; the old ones are retired at once and
 * drop their pool at the first change that finds them drained, or at
 * destruction),
 * freezes and thaws, and starts it all (workqueue_init()).
 *
 * ---------------------------------------------------------------------
 * Queueing (queue.c)
 * ---------------------------------------------------------------------
 * queue_work_on() takes the item's PENDING bit (queued once until it
 * starts) and calls __queue_work(), which is one helper per decision:
 *   wq_takes_work           a live workqueue, not draining or being
 *                           destroyed (chained work excepted)
 *   pwq_for_cpu             the pwq for the CPU asked for (the map)
 *   lock_pwq_not_reentered  or the one the item still runs from (below)
 *   pwq_take_work           the workqueue's flush colour, counted in flight
 *   pwq_activate_or_wait    on the pool's worklist if max_active allows
 *                           (waking a worker, or watching the runner for
 *                           hogging; the mayday timer if none is idle),
 *                           else on the pwq's inactive list
 *   trustee_needed          a dying CPU's pool: tell its trustee
 * Delayed items are a timer that calls __queue_work(); cancelling and
 * mod_delayed_work() grab a pending item off its queue or timer.
 *
 * ---------------------------------------------------------------------
 * Non-reentrancy (queue.c and worker.c)
 * ---------------------------------------------------------------------
 * Per workqueue, as in Linux: an item queued to a workqueue while it runs
 * from that same workqueue, on any CPU, does not start on a second worker;
 * it runs after the current execution, on the worker running it. A pool
 * knows which items its workers are executing (a hash by address); the
 * item is queued to the pool where it runs (lock_pwq_not_reentered), and
 * that pool hands it to the same worker (process_one_work()'s "collision"
 * path). Re-queueing an item from inside itself is safe. Exactly what the
 * code gives, beyond that: a pool never runs one item on two of its
 * workers at once, whichever workqueues it came through (the per-CPU pools
 * are shared by every bound workqueue of their priority). Across pools an
 * item remembers only the pool it last started on: queued to another
 * workqueue while it runs, it may run there at the same time, and while it
 * does, queueing it to the first workqueue again is guarded only if it
 * lands on the pool of that first execution. (Lab 2's image, built with
 * docs/labs/no-reentrancy-guard.patch, has all of this off.)
 *
 * ---------------------------------------------------------------------
 * Concurrency management: nr_running and the scheduler hooks (worker.c)
 * ---------------------------------------------------------------------
 * A per-CPU pool counts its workers that are running (nr_running). The
 * scheduler's sleep/wake hooks (kernel/sched.h) tell it when one blocks
 * (nr_running drops; if it reaches zero while work is pending, the hook
 * hands the scheduler the first idle worker to wake, right there under the
 * run-queue lock) and when one runs again (nr_running goes back up). So
 * the pool keeps exactly one worker running per CPU while there is work,
 * batches items on it without context switches, and a blocked item never
 * holds up the others:
 *
 *     worker A runs item 1 ... item 1 blocks (msleep, a mutex, I/O)
 *        sleeping(A): nr_running 1 -> 0, worklist not empty
 *                     -> wake idle worker B (same CPU, no IPI, no lock)
 *     worker B runs item 2, item 3, ... (batched)
 *     item 1 wakes: running(A): nr_running 1 -> 2; A finishes item 1,
 *        sees nr_running > 1 (keep_working is false) and goes idle
 *
 * Items of WQ_CPU_INTENSIVE workqueues, and items marked as CPU hogs
 * (adapt.c), do not count toward nr_running while they run, so a long
 * computation does not hold back the pool. Unbound pools do no
 * concurrency management: every pending item gets a worker, up to the
 * workqueue's max_active. worker.c also has the idle list (LIFO), the
 * worker thread's loop, process_one_work(), which runs one item, and what
 * ps shows of a worker (workqueue_describe_thread()).
 *
 * ---------------------------------------------------------------------
 * Managing workers; rescuers (manage.c)
 * ---------------------------------------------------------------------
 * A worker that is about to take work and finds no idle worker left
 * becomes the pool's manager (one at a time) and creates one first, so
 * that a blocking item always has a successor (unless the creation hold
 * or the pace, below, has it wait). A pool makes at most wq_max_workers.
 *
 * If the manager cannot create a worker (out of memory or threads, or the
 * pool is full) for 10 ms, the pool's mayday timer calls for help: every
 * WQ_MEM_RECLAIM workqueue with items waiting in the pool gets a "mayday",
 * and its rescuer thread (created with the workqueue, so it exists when
 * memory is short) comes to the pool's CPU and runs that workqueue's items
 * itself. The timer stays armed while a manager is at work, and work
 * queued to a pool with no idle worker arms it even when nobody manages.
 * A workqueue that memory reclaim depends on thus always makes progress.
 *
 * ---------------------------------------------------------------------
 * Concurrency that adapts (adapt.c)
 * ---------------------------------------------------------------------
 * Plain concurrency management makes a worker at every block, one per
 * item when a storm of items blocks, and lets an item that never blocks
 * hold its pool. Four policies (parameters below; docs/workqueue.md,
 * "Concurrency management that adapts", says why each value):
 *   the hold    a worker left with no idle one behind it waits, idle, for
 *               a counted worker that blocked less than wq_create_hold_us
 *               ago to come back; a hold that expires means long blocks
 *               (no holds for ten holds' time);
 *   the pace    past 64 workers, each creation waits a pause that doubles
 *               while creation is asked for, up to wq_pace_max_us;
 *   CPU hogs    a counted runner still in the same item a
 *               wq_cpu_intensive_thresh_us after work queued behind it
 *               is marked CPU-intensive for the rest of that item, and an
 *               idle worker starts the next (one hog at a time a pool);
 *   reaping     below.
 *
 * Reaping idle workers. A pool needs two idle workers, plus one per four
 * busy ones, or, if that is more, enough to serve again its busiest moment
 * of the last wq_idle_timeout_ms with two to spare (so a pool hit by a
 * storm every few seconds keeps its workers). An idle worker beyond that
 * need lives wq_idle_timeout_ms divided by one more than the number beyond
 * it, at least 50 ms: the further over the need, the sooner they go. A
 * worker going idle in a pool over its need brings the pool's reaping timer
 * forward to the end of the oldest idle worker's life (or to when the
 * busiest moment is forgotten, if that keeps them), never later than it
 * was; the timer queues the reaping work item, on the pool's CPU for a
 * per-CPU pool (the idle-list rule), which destroys idle workers oldest
 * first, each once its life is over, and arms the timer again for the next.
 * A dying CPU's pool keeps all (its trustee releases them); a pool no
 * workqueue uses needs none, or one if it is per-CPU, and loses the rest at
 * once.
 *
 * ---------------------------------------------------------------------
 * Flushing: colours; cancelling (flush.c)
 * ---------------------------------------------------------------------
 * flush_workqueue() must wait for everything queued before it, and not
 * for what is queued after (or a busy workqueue would never be flushed).
 * Each item is tagged with the workqueue's current "colour" (one of
 * WORK_NR_COLORS) when queued; a flush starts a new colour for later items
 * and waits until the older colours have drained. Flushes are numbered
 * generations, colour = generation % WORK_NR_COLORS; when all colours are
 * in use, a further flusher waits for the oldest one to drain before it
 * takes a new colour, so any number of concurrent flushers works.
 * flush_work() instead puts a barrier item right behind the one item (or
 * on the worker running it). drain_workqueue() flushes until nothing is
 * left, refusing new work meanwhile except chained work; the cancels grab
 * the item (queue.c) and, the _sync ones, wait for a running execution.
 *
 * ---------------------------------------------------------------------
 * CPUs going offline: the trustee (trustee.c)
 * ---------------------------------------------------------------------
 * A dying CPU's pools are handed, on the CPU itself, to a trustee: a work
 * item of an unbound workqueue with a rescuer, which runs the pools as
 * unbound ones (every item a worker, on any active CPU) until their work
 * is gone, then releases the idle workers. cpu_down() does not wait for
 * the work. When the CPU returns, the online step makes a bound worker for
 * each pool, destroys the idle unbound ones, and the busy ones move back
 * after their current item. kernel/hotplug.h has the phase order,
 * docs/hotplug.md the story; what users see is under "CPUs going offline"
 * below.
 *
 * ---------------------------------------------------------------------
 * Bottom halves: BH pools (bh.c)
 * ---------------------------------------------------------------------
 * A WQ_BH workqueue (system_bh_wq, system_bh_highpri_wq) is per-CPU and
 * threadless: its items run in the BH context of the CPU they are queued
 * for (kernel/bottom_half.h), at an interrupt's exit or in the idle loop,
 * in queueing order, one at a time, and must not sleep. Each CPU has a
 * normal and a high-priority BH pool with one pseudo-worker each; a run
 * has a budget (10 items per pass, 10 passes, 2 ms) and work left after
 * it continues in a worker thread, so that threads keep their share. A
 * dying CPU's BH pools get no trustee: a BH item on a live CPU drains
 * them, and cpu_down() waits for it; an item queued to an offline CPU's
 * BH pool runs on a live CPU (normally the queueing one) by the same
 * drain (bh.c has it all).
 *
 * ---------------------------------------------------------------------
 * Statistics (stats.c)
 * ---------------------------------------------------------------------
 * The figures below (per pool, per workqueue, totals) for tests, `make
 * bench` and the shell's `wq`, and the statistics work item, once a
 * second on cpu0 while wq_stall_s or wq_stats is set, which reports a pool
 * whose pending work made no progress for wq_stall_s and prints totals
 * every wq_stats seconds.
 *
 * ---------------------------------------------------------------------
 * Interface (Linux's names and semantics; delays are in nanoseconds)
 * ---------------------------------------------------------------------
 *   INIT_WORK(w, fn), INIT_DELAYED_WORK(dw, fn), work_set_refs(w, get, put)
 *   work_pending(w), work_busy(w), current_work()
 *   alloc_workqueue(name, flags, max_active), alloc_ordered_workqueue(name,
 *     flags), destroy_workqueue(wq), workqueue_set_max_active(wq, n)
 *   alloc_workqueue_attrs(), apply_workqueue_attrs(wq, attrs) (nice, CPUs)
 *   queue_work(wq, w), queue_work_on(cpu, wq, w), schedule_work(w)
 *   queue_delayed_work(_on)(...), mod_delayed_work(_on)(...)
 *   flush_work(w), flush_delayed_work(dw), flush_workqueue(wq),
 *     drain_workqueue(wq)
 *   cancel_work(w), cancel_work_sync(w), cancel_delayed_work(dw),
 *     cancel_delayed_work_sync(dw)
 *   disable_work(w), disable_work_sync(w), enable_work(w),
 *     enable_and_queue_work(wq, w), and the delayed ones: disable_delayed_work(dw),
 *     disable_delayed_work_sync(dw), enable_delayed_work(dw)
 *   workqueue_freeze(timeout), workqueue_thaw()  (WQ_FREEZABLE ones)
 *   system_wq, system_highpri_wq, system_long_wq, system_unbound_wq,
 *     system_bh_wq, system_bh_highpri_wq
 * queue_*, mod_delayed_work*, cancel_work, cancel_delayed_work, the
 * disables that do not wait and the enables may be called from any
 * context, interrupts included; flush_*, drain, the *_sync cancels and
 * disables, alloc/destroy and attribute changes may sleep, except that
 * cancel_*_sync() and disable_*_sync() of an item whose last run was on a
 * BH pool wait by spinning, and so may be called from atomic context
 * (not for an item the caller interrupted: that is reported, not waited
 * for).
 *
 * Disabling (Linux 6.10's, for what tasklet_disable() did): disable_work()
 * cancels the item and counts a disable in its flags word, which only the
 * owner of PENDING changes; while the count is not zero, queueing it (any
 * queue_*, mod_delayed_work*) does nothing and returns false. enable_work()
 * takes one disable back and returns true when none is left;
 * enable_and_queue_work() then queues it. An enable without a disable is
 * reported and ignored.
 *
 * CPUs going offline (kernel/hotplug.h, docs/hotplug.md): queue_work_on(cpu)
 * and the delayed *_on calls take any possible CPU, online or not. Work
 * for an offline CPU goes to that CPU's pool, whose trustee has it run on
 * other CPUs, promptly and exactly once; it is not refused and not held
 * until the CPU comes back (Linux does the same). So an item queued "on"
 * a CPU runs there only while the CPU stays online: one going down
 * before or during the item has it start, or go on, elsewhere. An item
 * that needs that CPU's own state must check where it is running.
 * A delayed item's timer is armed on a live CPU. A CPU number that is not
 * possible at all is misuse: reported once, then queued as if
 * WORK_CPU_UNBOUND.
 *
 * Optional references (asked for by David Howells in the RFC thread, as
 * what slow-work did: "keeps references on its work items by asking the
 * client to get and put on the client's refcount"): work_set_refs() gives
 * an item get/put callbacks; the workqueue calls get() when a queue_work
 * succeeds and put() once that queueing is over (after the execution
 * returns, or when cancel takes it off the queue), so an object can never
 * be freed while it is queued or running. get/put may be called with
 * interrupts off and must not sleep.
 *
 * Misuse is reported once with names and values, and refused without
 * corrupting anything: an uninitialised or freed item, a destroyed or
 * draining workqueue, a flush that would wait for itself (flush_work of
 * the running item, flush_workqueue from one of its own items, flush_work
 * of a later item of the same ordered workqueue: "BUG: lockdep: ...", the
 * validator's form, even with it off). Destroying a workqueue that still
 * has work is reported too, and handled rather than refused: it is drained
 * first.
 *
 * For the lock validator (kernel/lockdep.h) each workqueue and each work
 * item is a pseudo-lock: running an item holds both; flush_work() and
 * cancel_work_sync() take the item, and also its workqueue if that runs
 * one item at a time (ordered, or max_active 1); flush_workqueue(),
 * drain_workqueue() and destroy_workqueue() take the workqueue. So a flush
 * under a lock the item takes, a cycle of flushes across workqueues and a
 * flush that waits for itself are reported on the first run that makes
 * them possible. So is an item of a WQ_MEM_RECLAIM workqueue flushing a
 * workqueue without a rescuer (it could wait forever under memory
 * pressure).
 *
 * THE RULE: every piece of deferred work in baton goes through this API.
 * Interrupt handlers and timer callbacks only queue work or wake a thread;
 * there are no tasklets, softirqs, DPCs or private thread pools: bottom
 * halves are BH workqueue items (bh.c), and only bh.c enters BH context. The few
 * kernel threads that are not workers are listed, with their reason, in
 * docs/workqueue.md, and `make test` checks that list.
 */
#ifndef KERNEL_WORKQUEUE_H
#define KERNEL_WORKQUEUE_H

#include "kernel/lockdep_types.h"
#include "kernel/timer.h"
#include "lib/cpumask.h"
#include "lib/list.h"
#include "lib/types.h"

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

/* Bits in work->flags (atomic). */
#define WORK_STRUCT_PENDING  0		/* queued or timer armed, not yet started */
#define WORK_STRUCT_INACTIVE 1		/* the pool's lock: waiting over max_active */
#define WORK_STRUCT_LINKED   2		/* the pool's lock: a flush barrier follows it */
#define WORK_NR_COLORS	     15		/* flush colours */
#define WORK_NO_COLOR	     15		/* flush barriers take part in no flush */
#define WORK_MAGIC	     0x574f524b /* "WORK": set by INIT_WORK */
/* The disable count (disable_work()), in flags while the item is not
 * queued; only the owner of PENDING changes it. */
#define WORK_DISABLE_SHIFT 16
#define WORK_DISABLE_MAX   0xffffu
#define WORK_DISABLE_MASK  ((unsigned long)WORK_DISABLE_MAX << WORK_DISABLE_SHIFT)

struct pool_workqueue;
struct worker_pool;

struct work_struct {
	unsigned long flags;	/* atomic bits: WORK_STRUCT_* */
	struct list_head entry; /* the pool's lock, while queued */
	work_func_t func;
	struct pool_workqueue *pwq;	    /* the pool's lock: where it is queued */
	struct worker_pool *last_pool;	    /* the pool it last ran on (pools live forever) */
	void (*get)(struct work_struct *w); /* optional references */
	void (*put)(struct work_struct *w);
	u32 magic;
	u8 color;			/* the pool's lock: flush colour */
	struct lockdep_map lockdep_map; /* the validator's pseudo-lock: one class per INIT_WORK site
					 */
};

struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
	struct workqueue_struct *wq; /* owner of PENDING: where it goes */
	unsigned int cpu;
};

#define to_delayed_work(w) container_of((w), struct delayed_work, work)

#define WQ_BH		 (1u << 0)  /* BH context: per-CPU, no threads (bh.c) */
#define WQ_UNBOUND	 (1u << 1)  /* not bound to a CPU: unbound pools */
#define WQ_FREEZABLE	 (1u << 2)  /* held by workqueue_freeze() */
#define WQ_MEM_RECLAIM	 (1u << 3)  /* has a rescuer */
#define WQ_HIGHPRI	 (1u << 4)  /* the highpri pools (nice -20) */
#define WQ_CPU_INTENSIVE (1u << 5)  /* its items do not count in nr_running */
#define __WQ_ORDERED	 (1u << 17) /* one at a time, in queueing order */
#define __WQ_FIXED_CPUS	 (1u << 18) /* its CPU mask cannot change (system per-CPU ones) */
#define WQ_MAX_ACTIVE	 512
#define WQ_DFL_ACTIVE	 (WQ_MAX_ACTIVE / 2)
#define WORK_CPU_UNBOUND NR_CPUS

#define WORK_BUSY_PENDING (1u << 0)
#define WORK_BUSY_RUNNING (1u << 1)

void __init_work(struct work_struct *w, work_func_t fn, const char *name,
		 const struct lock_class_key *key);
#define INIT_WORK(w, fn)                                                                           \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__init_work((w), (fn), #w, &__key);                                                \
	} while (0)
void __init_delayed_work(struct delayed_work *dw, work_func_t fn, const char *name,
			 const struct lock_class_key *key);
#define INIT_DELAYED_WORK(dw, fn)                                                                  \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__init_delayed_work((dw), (fn), #dw, &__key);                                      \
	} while (0)
void work_set_refs(struct work_struct *w, void (*get)(struct work_struct *),
		   void (*put)(struct work_struct *));
#define work_pending(w)		 test_bit(WORK_STRUCT_PENDING, &(w)->flags)
#define delayed_work_pending(dw) work_pending(&(dw)->work)
unsigned int work_busy(struct work_struct *w);
struct work_struct *current_work(void);
/* Is the calling thread a workqueue's rescuer (running an item it rescued)? */
bool current_is_rescuer(void);

/* Every workqueue's attributes: the nice of the workers that run its
 * items, and the CPUs they run on. By default nice 0 (-20 with
 * WQ_HIGHPRI) and every possible CPU.
 * - Unbound: an unbound pool per set of attributes, shared, its workers
 *   allowed on the mask's CPUs.
 * - Bound: the per-CPU pools of its nice, shared by every bound workqueue
 *   of that nice, per CPU (0 and -20 are the standard pools; any other
 *   nice gets per-CPU pools of its own the first time a workqueue asks for
 *   it, kept afterwards with one idle worker per CPU). The mask picks the
 *   CPUs: an item queued for a CPU outside it (queue_work from there, or
 *   queue_work_on), or for one of its CPUs that is not active, goes to an
 *   active CPU of the mask instead (spread by CPU number); an item already
 *   queued on a CPU of the mask that goes down runs, with the trustee, on
 *   another active CPU of the mask. With no CPU of the mask active, items
 *   run where they would with no mask (any CPU rather than none, as Linux
 *   does for unbound workqueues). The mask of the three system per-CPU
 *   workqueues is fixed (__WQ_FIXED_CPUS): their users queue_work_on()
 *   exact CPUs.
 * Ordered workqueues keep theirs (as Linux before 6.5: a second pool would
 * let the next item start beside the last one).
 */
struct workqueue_attrs {
	int nice;
	struct cpumask cpumask;
};
struct workqueue_attrs *alloc_workqueue_attrs(void);
void free_workqueue_attrs(struct workqueue_attrs *attrs);
/* 0; -EINVAL (ordered, nice out of NICE_MIN..NICE_MAX, no active CPU in
 * the mask, a system per-CPU workqueue's mask), the reason printed;
 * -ENOMEM (nothing changed). CPUs of the mask that are not possible are
 * dropped. Items already queued or running finish where they are; later
 * ones follow the new attributes. May sleep; takes the hotplug lock. */
int apply_workqueue_attrs(struct workqueue_struct *wq, const struct workqueue_attrs *attrs);
void workqueue_get_attrs(struct workqueue_struct *wq, struct workqueue_attrs *attrs);
/* The shell's `wq set`: change the workqueue called name as ch says (any of
 * its nice, its CPUs, its max_active). 0, or -ENOENT (no such workqueue),
 * -EINVAL or -ENOMEM, with *why saying why in words (nothing changed). */
struct wq_change {
	bool set_nice, set_cpus;
	int nice;
	struct cpumask cpus;
	int max_active; /* 0: unchanged */
};
int workqueue_change(const char *name, const struct wq_change *ch, const char **why);

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active);
#define alloc_ordered_workqueue(name, flags)                                                       \
	alloc_workqueue((name), WQ_UNBOUND | __WQ_ORDERED | (flags), 1)
void destroy_workqueue(struct workqueue_struct *wq);
void workqueue_set_max_active(struct workqueue_struct *wq, int max_active);

bool queue_work_on(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w);
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
bool schedule_work(struct work_struct *w);
bool queue_delayed_work_on(unsigned int cpu, struct workqueue_struct *wq, struct delayed_work *dw,
			   u64 delay_ns);
bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, u64 delay_ns);
bool mod_delayed_work_on(unsigned int cpu, struct workqueue_struct *wq, struct delayed_work *dw,
			 u64 delay_ns);
bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, u64 delay_ns);

bool flush_work(struct work_struct *w);
bool flush_delayed_work(struct delayed_work *dw);
void flush_workqueue(struct workqueue_struct *wq);
void drain_workqueue(struct workqueue_struct *wq);
bool cancel_work(struct work_struct *w);
bool cancel_work_sync(struct work_struct *w);
bool cancel_delayed_work(struct delayed_work *dw);
bool cancel_delayed_work_sync(struct delayed_work *dw);
/* Cancel and disable: true if it was pending. */
bool disable_work(struct work_struct *w);
bool disable_work_sync(struct work_struct *w);
bool disable_delayed_work(struct delayed_work *dw);
bool disable_delayed_work_sync(struct delayed_work *dw);
/* One disable less: true if the item is enabled now. */
bool enable_work(struct work_struct *w);
bool enable_delayed_work(struct delayed_work *dw);
/* enable_work(), then queue_work() if that enabled it: true if queued. */
bool enable_and_queue_work(struct workqueue_struct *wq, struct work_struct *w);
/* How many disables w has (tests, the shell). Any context. */
static inline unsigned int work_disable_count(const struct work_struct *w)
{
	return (unsigned int)(__atomic_load_n(&w->flags, __ATOMIC_RELAXED) >> WORK_DISABLE_SHIFT) &
	       WORK_DISABLE_MAX;
}

/* Hold WQ_FREEZABLE workqueues: new items wait, running ones finish.
 * 0, or -EBUSY if they did not drain within timeout_ns (then thawed) or
 * were frozen already. */
int workqueue_freeze(u64 timeout_ns);
void workqueue_thaw(void);

extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_highpri_wq;
extern struct workqueue_struct *system_long_wq;
extern struct workqueue_struct *system_unbound_wq;
extern struct workqueue_struct *system_bh_wq;
extern struct workqueue_struct *system_bh_highpri_wq;

/* The policies of concurrency management that adapts (docs/workqueue.md),
 * each a command-line parameter of the same name; tests and benchmarks
 * change them at run time (plain stores, read with READ_ONCE):
 *   wq_idle_timeout_ms          a pool's memory of its busiest moment, and
 *                               the life of an idle worker beyond the need
 *                               (shorter the further over it)
 *   wq_create_hold_us           a short block makes no worker
 *   wq_pace_max_us              creation paced in a storm
 *   wq_max_workers              the most workers in one pool
 *   wq_cpu_intensive_thresh_us  an item holding its pool this long with
 *                               work waiting runs as CPU-intensive */
extern unsigned int wq_idle_timeout_ms;
extern unsigned int wq_create_hold_us;
extern unsigned int wq_pace_max_us;
extern unsigned int wq_max_workers;
extern unsigned int wq_cpu_intensive_thresh_us;

void workqueue_init(void);

/* CPU hotplug steps (kernel/hotplug.c): hand cpu's pools to a trustee (on the
 * dying CPU, interrupts off); take them back when it is online again. */
int workqueue_cpu_dying(unsigned int cpu);
int workqueue_cpu_online(unsigned int cpu);
/* The BH pools' steps (bh.c): "workqueue:dying"'s startup associates them
 * on the coming CPU (interrupts off); "workqueue:bh" gives the CPU a BH
 * stack before it starts and, after its death, drains its BH pools on this
 * CPU and waits for that (sleeps; the hotplug lock held). */
int workqueue_cpu_starting(unsigned int cpu);
int workqueue_bh_prepare(unsigned int cpu);
int workqueue_bh_dead(unsigned int cpu);
/* The CPU left cpu_active_mask (hotplug's "offline" step): workqueues with
 * a CPU mask stop sending work there. */
int workqueue_cpu_offline(unsigned int cpu);
/* The CPU joined cpu_active_mask (hotplug's sched:active, after the online
 * steps): workqueues with a CPU mask send work there again. Sleeps; the
 * hotplug lock held. */
void workqueue_cpu_active(unsigned int cpu);
/* Which of a CPU's two pools. */
enum wq_cpu_pool { WQ_POOL_NORMAL, WQ_POOL_HIGHPRI, WQ_NR_CPU_POOLS };
/* Workers of cpu's pool still unbound (tests: none after a rebind). */
unsigned int workqueue_pool_unbound_workers(unsigned int cpu, enum wq_cpu_pool which);

/* ---- observability ----------------------------------------------------- */

/* A per-CPU pool's figures, for tests, the shell and benchmarks. */
struct wq_pool_stats {
	unsigned int nr_workers, nr_idle;
	int nr_running;
	unsigned int nr_pending;
	u64 nr_executed, nr_created, nr_destroyed, nr_maydays, nr_rescued;
	u64 nr_deferred;	/* creations held or paced */
	u64 nr_hogs;		/* items marked CPU-intensive for holding the pool */
	u64 nr_trustee_runs;	/* times its trustee started (per-CPU pools) */
	u64 nr_mayday_timeouts; /* times its mayday timer fired */
	/* The shortest idle life a worker reaped there had (0: none reaped
	 * for being over the need): wq_idle_timeout_ms / (excess + 1). */
	u64 shortest_life_ns;
};
void workqueue_pool_stats(unsigned int cpu, enum wq_cpu_pool which, struct wq_pool_stats *st);
/* The figures of wq's current pool for cpu (bound: cpu's pool of wq's
 * nice, even if wq's CPU mask sends cpu's items elsewhere; unbound: its
 * pool, whatever cpu). May sleep. */
void workqueue_wq_pool_stats(struct workqueue_struct *wq, unsigned int cpu,
			     struct wq_pool_stats *st);

/* A workqueue's figures. */
struct wq_stats {
	int nr_active, nr_inactive, nr_in_flight, nr_delayed;
	unsigned int nr_pwqs;
	unsigned int nr_idle; /* unbound: the idle workers of its current pool */
	u64 nr_rescued, nr_flushes, nr_flush_overflows;
};
void workqueue_wq_stats(struct workqueue_struct *wq, struct wq_stats *st);

/* Totals over every pool, counted since boot. */
struct wq_counters {
	u64 executed, created, destroyed, maydays, rescued;
	unsigned int workers, idle, pools;
};
void workqueue_get_counters(struct wq_counters *c);

/* A textual dump of every pool and workqueue into buf (scnprintf-like
 * return); workqueue_show() prints it. May sleep. */
size_t workqueue_dump(char *buf, size_t size);
/* What thread t is doing as a worker ("func+0x../0x..", "(idle)"), or ""
 * if it is not one; for ps. Any context, t current or the caller a
 * for_each_thread() callback (which keeps t's worker struct alive). */
struct thread;
void workqueue_describe_thread(struct thread *t, char *buf, size_t size);
void workqueue_show(void);

#endif
