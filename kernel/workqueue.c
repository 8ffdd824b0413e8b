/* kernel/workqueue.c - the concurrency-managed workqueue; the design is in
 * workqueue.h and docs/workqueue.md.
 *
 * Field legend: I = set at creation; L = pool->lock; A = atomic;
 * W = the worker itself; M = wq->mutex; PM = wq_pool_mutex;
 * F = wq->flush_lock; MD = wq_mayday_lock.
 * Lock order (checked by the lock validator, kernel/lockdep.h): wq_pool_mutex
 * > wq->mutex > pool->lock > wq_mayday_lock and wq->flush_lock > run-queue
 * and wait-queue locks.
 *
 * Policy lives in small predicates, as in Linux:
 *   need_more_worker       work is pending and no worker runs
 *   may_start_working      an idle worker is left to take over if we block
 *   keep_working           work is pending and we are the only one running
 *   need_to_create_worker  work waits, nobody runs it, nobody is idle
 *   too_many_workers       more idle workers than the pool needs
 *
 * The idle-list rule. One reader takes a per-CPU pool's idle list without
 * pool->lock: the sleeping hook of a counted (bound) worker, running on the
 * pool's CPU, which reads its first entry. So such a reader exists only
 * while the pool is associated (not disassociated) and its CPU is online.
 * Every change is made with pool->lock held, and while a reader may exist:
 *   - an entry is removed only on the pool's CPU (pool->lock keeps
 *     preemption off there, so no worker of the pool is inside schedule()
 *     meanwhile and the worker the hook reads cannot be freed under it):
 *     workers leave it themselves, and the reaping work item runs there;
 *   - an entry may be added on any CPU (worker_attach() from the online
 *     step, or a manager not yet rebound): the new worker is complete
 *     before pool->lock is taken, and list_add() publishes it with its
 *     last store, so the reader sees the old first entry or the new one,
 *     both valid.
 * Otherwise entries may go on any CPU: an idle worker woken after its CPU
 * left cpu_online_mask but before workqueue_cpu_dying() leaves the list
 * from wherever the scheduler runs it (its CPU only runs the stopper by
 * then), and the trustee and the online step empty the list of a
 * disassociated pool (the online step does so in the locked section that
 * ends the disassociation, before it ends it). worker_leave_idle() and
 * destroy_worker() check the rule.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/workqueue.h"
#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/deterministic.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/lockdep.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/wait.h"
#include "lib/errno.h"
#include "lib/hash.h"
#include "lib/printf.h"
#include "lib/string.h"

#define NR_STD_POOLS		  WQ_NR_CPU_POOLS /* per CPU: normal, high priority */
#define HIGHPRI_NICE		  (-20)
#define MAX_IDLE_WORKERS_RATIO	  4 /* keep 1 idle worker per 4 busy ones */
#define MIN_IDLE_WORKERS	  2
#define MAYDAY_INITIAL_TIMEOUT_NS (10 * NSEC_PER_MSEC) /* creation may fail this long */
/* Adapting (docs/workqueue.md, "Concurrency management that adapts"). */
#define LONG_BLOCK_FACTOR  10 /* a hold that expired: no holds for 10 holds' time */
#define PACE_FREE_WORKERS  64 /* made back to back before creation is paced */
#define PACE_FIRST_NS	   (200 * NSEC_PER_USEC)
#define PACE_QUIET_NS	   (100 * NSEC_PER_MSEC) /* no creation this long: a new storm */
#define REAP_MIN_NS	   (50 * NSEC_PER_MSEC)	 /* the shortest idle life, far over need */
#define HOG_MAX_BACKOFF	   4 /* in a long batch, look for hogs every 16 thresholds */
#define MAYDAY_INTERVAL_NS (100 * NSEC_PER_MSEC)
#define CREATE_COOLDOWN_MS 10 /* between failed creation attempts */
#define STATS_INTERVAL_NS  NSEC_PER_SEC
/* pool->trustee_state, also the b value of TR_TRUSTEE trace events (a
 * move to TRUSTEE_NONE is the hand-back when the CPU is online again). */
#define TRUSTEE_NONE	  0 /* the CPU is online: no trustee */
#define TRUSTEE_IN_CHARGE 1 /* CPU offline, the trustee runs the pool */
#define TRUSTEE_DONE	  2 /* CPU offline, work gone, workers released */
static const char *const trustee_names[] = { "none", "in-charge", "done" };
#define WQ_MAGIC      0x57514d51 /* "WQMQ" while alive */
#define WQ_MAGIC_DEAD 0x64656164

/* Worker flags. Those in WORKER_NOT_RUNNING keep a worker out of nr_running. */
#define WORKER_IDLE	     (1u << 0)
#define WORKER_PREP	     (1u << 1)
#define WORKER_CPU_INTENSIVE (1u << 2)
#define WORKER_DIE	     (1u << 3)
#define WORKER_UNBOUND	     (1u << 4)
#define WORKER_RESCUER	     (1u << 5)
#define WORKER_REBIND	     (1u << 6) /* its CPU is back: rebind after this item */
#define WORKER_NOT_RUNNING                                                                         \
	(WORKER_IDLE | WORKER_PREP | WORKER_CPU_INTENSIVE | WORKER_DIE | WORKER_UNBOUND |          \
	 WORKER_RESCUER)

unsigned int wq_idle_timeout_ms = 5000;
PARAM_UINT(wq_idle_timeout_ms, wq_idle_timeout_ms, 10, 3600000,
	   "ms a pool remembers its busiest moment, and an unneeded idle worker lives");
unsigned int wq_create_hold_us = 100;
PARAM_UINT(wq_create_hold_us, wq_create_hold_us, 0, 100000,
	   "us a worker left without a spare waits for a blocked one to return before making one "
	   "(0: at once)");
unsigned int wq_pace_max_us = 1000;
PARAM_UINT(wq_pace_max_us, wq_pace_max_us, 0, 1000000,
	   "longest pause between worker creations in a storm, past 64 workers (0: no pacing)");
unsigned int wq_max_workers = 512;
PARAM_UINT(wq_max_workers, wq_max_workers, 4, 4096,
	   "most workers in one pool (rescuers make WQ_MEM_RECLAIM work progress beyond it)");
unsigned int wq_cpu_intensive_thresh_us = 10000;
PARAM_UINT(wq_cpu_intensive_thresh_us, wq_cpu_intensive_thresh_us, 0, 10000000,
	   "us an item may stay the pool's runner while others wait; "
	   "then it runs as CPU-intensive (0: never)");
/* Lab 2 (docs/labs.md): turn the non-reentrancy guard off and watch an
 * item run on two workers at once. Never for real use. */
static bool wq_lab_no_reentrancy_guard;
PARAM_BOOL(wq_lab_no_reentrancy_guard, wq_lab_no_reentrancy_guard,
	   "LAB ONLY: let a work item run on two workers at once");
/* A planted race for deterministic mode's seed search and replay
 * (docs/stress-testing.md): an item run by a trustee-managed worker
 * publishes its last pool a few instructions late. It widens no window by
 * itself; only an interleaving that puts a queue_work() of the same item
 * from another CPU in those instructions runs the item twice at once.
 * Never for real use. */
static bool wq_lab_late_last_pool;
PARAM_BOOL(wq_lab_late_last_pool, wq_lab_late_last_pool,
	   "LAB ONLY: a planted hand-over race (an item's last pool published late)");
static unsigned int wq_stats_s;
PARAM_UINT(wq_stats, wq_stats_s, 0, 3600, "print workqueue statistics every N s (0: never)");
static unsigned int wq_stall_s = 60;
PARAM_UINT(wq_stall_s, wq_stall_s, 0, 3600,
	   "report a pool whose pending work made no progress for N s (0: never)");

#define BUSY_HASH_SIZE 32 /* a power of two */

struct worker_pool {
	struct spinlock lock;
	unsigned int cpu;	      /* I: WORK_CPU_UNBOUND for unbound pools */
	int id;			      /* I */
	struct workqueue_attrs attrs; /* PM+L: unbound pools are re-keyed when unused */
	struct list_head worklist;    /* L */
	struct list_head idle_list;   /* L: most recently idle first */
	struct list_head workers;     /* L: all of them, and an attached rescuer */
	/* The workers running an item, by the item's address: the
	 * non-reentrancy lookup on every item must not walk idle workers (a
	 * storm leaves hundreds until they are reaped). BUSY_HASH_SIZE
	 * buckets, allocated with the pool (I), their lists under L; not in
	 * the pool itself, which exists for each of NR_CPUS. */
	struct list_head *busy_hash;
	unsigned int nr_workers; /* L: rescuers not counted */
	unsigned int nr_idle;	 /* L */
	/* A: counted workers running. Changed by a counted worker's own
	 * flag changes (under L) and its sleep/wake hooks (without L, on
	 * the pool's CPU only), and zeroed under L by workqueue_cpu_dying()
	 * on the dying CPU. A counted worker runs on the pool's CPU, except
	 * between the CPU leaving cpu_online_mask and workqueue_cpu_dying(),
	 * when the scheduler may run it elsewhere: its hooks leave the count
	 * alone then, and L orders its flag changes with the zeroing. While
	 * the pool is disassociated no worker is counted: it stays 0. */
	atomic_t nr_running;
	bool manager_active;	     /* L */
	bool disassociated;	     /* L to change (WRITE_ONCE): per-CPU pool whose CPU is
					offline; the waiting trustee reads it without */
	int trustee_state;	     /* L: TRUSTEE_* */
	unsigned int trustee_events; /* L to change (trustee_news()); the waiting trustee
					reads it without */
	struct wait_queue_head trustee_wait;
	/* Manages the pool while disassociated; delayed only for the retries
	 * of a trustee run by its workqueue's rescuer (trustee_fn). */
	struct delayed_work trustee_work;
	u64 nr_trustee_runs;	       /* L */
	int next_id;		       /* L */
	int refcnt;		       /* PM+L: pwqs using it */
	struct list_head unbound_node; /* PM */
	struct timer_list idle_timer;  /* queues idle_cull_work */
	u64 idle_expires;	       /* L: when idle_timer is due, while it is pending */
	struct work_struct idle_cull_work;
	/* Armed while a manager is at work (the mayday invariant:
	 * assert_mayday_armed()), and while work waits with no idle worker. */
	struct timer_list mayday_timer;
	/* Adapting. last_block_ns: when a counted worker last blocked with
	 * work pending and none left running; written by the sleeping hook
	 * on the pool's CPU, read under L on that CPU (so never at once). */
	u64 last_block_ns;
	u64 long_until;	     /* L: blocks outlast the hold: none until then */
	bool create_waiting; /* L, on the pool's CPU: a worker waits to create (hooks read it) */
	u64 pace_ns, last_create_ns;	/* L: the current pause between creations */
	struct timer_list create_timer; /* armed while a worker waits to create */
	struct timer_list hog_timer;	/* armed while work waits behind a counted runner */
	u64 nr_started;			/* L: items started, numbering them */
	u64 hog_seq;			/* L: nr_started when the hog timer was last armed */
	u64 hog_expires;		/* L: when it fires */
	unsigned int hog_backoff;	/* L: its period is thresh << hog_backoff */
	unsigned int nr_hogs_running;	/* L: workers marked, still in their item */
	unsigned int peak_busy;		/* L: most busy workers lately, and when */
	u64 peak_at;			/* L */
	u64 nr_executed, nr_created, nr_destroyed, nr_maydays, nr_rescued; /* L */
	u64 nr_deferred, nr_hogs, nr_mayday_timeouts;			   /* L */
	u64 shortest_life_ns; /* L: the shortest idle life a worker reaped here had */
	/* The statistics work only: the executed count at its last look, and
	 * since when it has seen pending work without progress (0: not). */
	u64 watch_executed, watch_since;
};

struct worker {
	struct thread *thread;		    /* I */
	struct worker_pool *pool;	    /* I; a rescuer: W+L while attached */
	int id;				    /* I */
	struct list_head node;		    /* L: pool->workers */
	struct list_head idle_entry;	    /* L: pool->idle_list */
	struct list_head scheduled;	    /* L: works handed to this worker */
	struct list_head hentry;	    /* L: pool->busy_hash while current_work */
	struct work_struct *current_work;   /* L */
	work_func_t current_func;	    /* L */
	struct pool_workqueue *current_pwq; /* L */
	unsigned int flags;		    /* L (WRITE_ONCE), and W for its own WORKER_NOT_RUNNING
					       changes; the hooks read it without L */
	bool sleeping;			    /* W: sleeping() ran */
	bool hog;			    /* L: this item held the pool: CPU-intensive now */
	u64 current_seq;		    /* L: the current item's number (pool->nr_started) */
	u64 last_active;		    /* L: when it went idle */
	struct workqueue_struct *rescue_wq; /* I: rescuers only */
};

struct pool_workqueue {
	struct workqueue_struct *wq;  /* I */
	struct worker_pool *pool;     /* I */
	int nr_active;		      /* L: items on the worklist or running */
	int max_active;		      /* L */
	int nr_in_flight;	      /* L: queued, inactive or running (barriers not) */
	int nr_inactive;	      /* L */
	int nr_barriers;	      /* L: flush_work barriers queued here */
	struct list_head inactive;    /* L: over max_active, in order */
	bool retired;		      /* L: replaced by apply_workqueue_attrs */
	bool released;		      /* M: retired, drained, pool reference dropped */
	struct list_head pwqs_node;   /* M: wq->pwqs */
	struct list_head mayday_node; /* MD: wq->maydays */
};

struct workqueue_struct {
	u32 magic;	      /* WQ_MAGIC while alive */
	char name[24];	      /* I */
	unsigned int flags;   /* I */
	int saved_max_active; /* M */
	struct mutex mutex;
	struct list_head pwqs; /* M: every pwq, retired ones included */
	struct list_head list; /* PM: all workqueues */
	/* Bound: where an item for each CPU goes (its own pwq, or another
	 * CPU's of the mask: wq_update_cpu_map), and the workqueue's pwq on
	 * each CPU's pool of its nice. */
	struct pool_workqueue *cpu_pwqs[NR_CPUS];  /* PM+M; read with READ_ONCE */
	struct pool_workqueue *pool_pwqs[NR_CPUS]; /* M */
	struct pool_workqueue *dfl_pwq;		   /* M; read with READ_ONCE: unbound */
	struct workqueue_attrs attrs;		   /* PM+M */
	bool restricted;			   /* PM+M: the mask leaves out a possible CPU */
	int nr_drainers;			   /* M; read without it by queueing */
	bool destroying;			   /* M; likewise */
	atomic_t nr_timers;			   /* A: delayed items with their timer armed */
	/* flushing (see "colours" in workqueue.h) */
	struct spinlock flush_lock;
	struct mutex flush_mutex;	   /* serialises flushers taking a colour */
	u64 work_gen;			   /* F: generation of new items */
	u64 done_gen;			   /* F: every older generation has drained */
	atomic_t nr_color[WORK_NR_COLORS]; /* A: items in flight per colour */
	struct wait_queue_head flush_wait;
	u64 nr_flushes, nr_flush_overflows; /* F */
	/* rescue */
	struct worker *rescuer;	  /* I: WQ_MEM_RECLAIM */
	struct list_head maydays; /* MD: pwqs asking for the rescuer */
	u64 nr_rescued;		  /* the rescuer only */
	/* the lock validator: the workqueue as a pseudo-lock, a class of its own */
	struct lock_class_key lockdep_key;
	struct lockdep_map lockdep_map;
};

struct wq_barrier {
	struct work_struct work;
	struct completion done;
};

static struct worker_pool cpu_pools[NR_CPUS][NR_STD_POOLS];
/* The per-CPU pools of a nice other than the standard two (0 and -20),
 * indexed by nice - NICE_MIN: made the first time a bound workqueue asks
 * for that nice, one pool per possible CPU, and kept. Set under PM and the
 * hotplug lock, so the hotplug callbacks see a set that does not change. */
#define NR_NICE_LEVELS (NICE_MAX - NICE_MIN + 1)
static struct worker_pool **nice_pools[NR_NICE_LEVELS]; /* PM+H; read with READ_ONCE */
static DEFINE_MUTEX(wq_pool_mutex);
static LIST_HEAD(unbound_pools); /* PM; pools are never freed, only re-keyed */
static LIST_HEAD(workqueues);	 /* PM */
static bool wq_freezing;	 /* PM */
static int next_pool_id;	 /* PM */
static DEFINE_SPINLOCK(wq_mayday_lock);
static struct delayed_work stats_work;
struct workqueue_struct *system_wq;
struct workqueue_struct *system_highpri_wq;
struct workqueue_struct *system_long_wq;
struct workqueue_struct *system_unbound_wq;
/* The trustees' own (docs/hotplug.md): unbound, with a rescuer, so that a
 * dying CPU's work is taken over even when no worker can be had, and high
 * priority: a hand-over is short and urgent work, and its pool is the
 * unbound high-priority one, not system_unbound_wq's, so that a CPU's
 * hand-over never waits behind whatever fills that (a starved hand-over
 * once reached the trustees through it). */
static struct workqueue_struct *trustee_wq;

static bool pool_is_bound(const struct worker_pool *pool)
{
	return pool->cpu != WORK_CPU_UNBOUND;
}

/* cpu's pool of nice: NULL for a nice level not made yet. */
static struct worker_pool *cpu_pool(unsigned int cpu, int nice)
{
	if (nice == 0)
		return &cpu_pools[cpu][WQ_POOL_NORMAL];
	if (nice == HIGHPRI_NICE)
		return &cpu_pools[cpu][WQ_POOL_HIGHPRI];
	struct worker_pool **level = READ_ONCE(nice_pools[nice - NICE_MIN]);

	return level ? level[cpu] : NULL;
}

/* The next of cpu's pools after *i (start at 0): the standard two, then one
 * per nice level made so far. */
static struct worker_pool *next_cpu_pool(unsigned int cpu, unsigned int *i)
{
	while (*i < NR_STD_POOLS + NR_NICE_LEVELS) {
		unsigned int n = (*i)++;

		if (n < NR_STD_POOLS)
			return &cpu_pools[cpu][n];
		struct worker_pool **level = READ_ONCE(nice_pools[n - NR_STD_POOLS]);

		if (level)
			return level[cpu];
	}
	return NULL;
}
#define for_each_cpu_pool(pool, cpu, i) for ((i) = 0; ((pool) = next_cpu_pool((cpu), &(i)));)

/* ---- policy ------------------------------------------------------------- */

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

static bool need_to_create_worker(struct worker_pool *pool)
{
	return need_more_worker(pool) && !may_start_working(pool);
}

/* Whether the pool's need counts its busiest moment of the last
 * wq_idle_timeout_ms (a pool hit by a storm every few seconds keeps the
 * workers for the next one) or only what is busy now. */
enum need_kind { NEED_NOW, NEED_WITH_PEAK };

/* How many idle workers the pool needs: two, one per four busy ones, and
 * (NEED_WITH_PEAK) enough to serve its recent peak again. A disassociated
 * one keeps all (the trustee releases them); an unused one needs none, or
 * one for a per-CPU pool (concurrency management needs one to wake: the
 * pools of a nice level no workqueue uses any more). pool->lock held. */
static unsigned int idle_needed(struct worker_pool *pool, u64 now, enum need_kind kind)
{
	unsigned int nr_idle = pool->nr_idle + (pool->manager_active ? 1 : 0);
	unsigned int nr_busy = pool->nr_workers - nr_idle;
	unsigned int keep = MIN_IDLE_WORKERS + nr_busy / MAX_IDLE_WORKERS_RATIO;

	assert_spin_locked(&pool->lock);
	if (pool->disassociated)
		return ~0u;
	if (pool->refcnt == 0) /* unused: a per-CPU pool keeps the one it must have */
		return pool_is_bound(pool) ? 1 : 0;
	if (kind == NEED_WITH_PEAK &&
	    now - pool->peak_at < (u64)READ_ONCE(wq_idle_timeout_ms) * NSEC_PER_MSEC &&
	    pool->peak_busy + MIN_IDLE_WORKERS > nr_busy)
		keep = max(keep, pool->peak_busy + MIN_IDLE_WORKERS - nr_busy);
	return keep;
}

/* More idle workers than the pool needs now. pool->lock held. */
static bool too_many_workers(struct worker_pool *pool, u64 now)
{
	assert_spin_locked(&pool->lock);
	return pool->nr_idle > idle_needed(pool, now, NEED_NOW);
}

/* How long an idle worker beyond the need lives: wq_idle_timeout_ms
 * divided by one more than the excess idle workers (in proportion to how
 * far over the need the pool is: half of it for one too many), down to
 * REAP_MIN_NS. */
static u64 idle_life_ns(unsigned int excess)
{
	u64 life = (u64)READ_ONCE(wq_idle_timeout_ms) * NSEC_PER_MSEC / (excess + 1);

	return max(life, (u64)REAP_MIN_NS);
}

/* A worker leaves the idle list to work: remember the pool's busiest
 * moment. pool->lock held. */
static void note_busy(struct worker_pool *pool)
{
	unsigned int busy = pool->nr_workers - pool->nr_idle;
	u64 now = ktime_get_ns();

	assert_spin_locked(&pool->lock);
	if (busy >= pool->peak_busy ||
	    now - pool->peak_at >= (u64)READ_ONCE(wq_idle_timeout_ms) * NSEC_PER_MSEC) {
		pool->peak_busy = busy;
		pool->peak_at = now;
	}
}

static unsigned int count_list(struct list_head *head)
{
	struct list_head *pos;
	unsigned int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/* ---- workers: idle list and flags --------------------------------------- */

static struct worker *first_idle_worker(struct worker_pool *pool)
{
	return list_first_entry_or_null(&pool->idle_list, struct worker, idle_entry);
}

/* Wake the first idle worker. pool->lock held. */
static void wake_up_worker(struct worker_pool *pool)
{
	struct worker *w;

	assert_spin_locked(&pool->lock);
	w = first_idle_worker(pool);
	if (w)
		wake_up_thread(w->thread);
}

/* Something the trustee of a disassociated pool waits for happened: bump its
 * count and wake it. pool->lock held. */
static void trustee_news(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	WRITE_ONCE(pool->trustee_events, pool->trustee_events + 1);
	wake_up(&pool->trustee_wait);
}

/* Flag changes of the worker itself (pool->lock held). Only these and the
 * hooks move nr_running (see its legend). */
static void worker_set_flags(struct worker *worker, unsigned int flags)
{
	assert_spin_locked(&worker->pool->lock);
	if ((flags & WORKER_NOT_RUNNING) && !(worker->flags & WORKER_NOT_RUNNING))
		atomic_dec(&worker->pool->nr_running);
	WRITE_ONCE(worker->flags, worker->flags | flags);
}

static void worker_clr_flags(struct worker *worker, unsigned int flags)
{
	unsigned int old = worker->flags;

	assert_spin_locked(&worker->pool->lock);
	WRITE_ONCE(worker->flags, worker->flags & ~flags);
	if ((old & WORKER_NOT_RUNNING) && !(worker->flags & WORKER_NOT_RUNNING))
		atomic_inc(&worker->pool->nr_running);
}

/* (Re)arm the reaping timer for at. pool->lock held. */
static void arm_idle_timer(struct worker_pool *pool, u64 at)
{
	assert_spin_locked(&pool->lock);
	pool->idle_expires = at;
	mod_timer(&pool->idle_timer, at);
}

static void worker_enter_idle(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	u64 now = ktime_get_ns();

	WRITE_ONCE(worker->flags, worker->flags | WORKER_IDLE);
	pool->nr_idle++;
	worker->last_active = now;
	list_add(&worker->idle_entry, &pool->idle_list); /* LIFO */
	if (pool->disassociated)
		trustee_news(pool);
	if (!too_many_workers(pool, now))
		return;
	/* When the oldest idle worker's life ends, at the pool's excess now
	 * (the further over the need, the sooner), or when the recent peak
	 * that keeps them is forgotten, as idle_cull_fn() will see it: a timer
	 * armed while the pool was only a little over its need, or with a
	 * longer wq_idle_timeout_ms, is brought forward. */
	struct worker *oldest = list_last_entry(&pool->idle_list, struct worker, idle_entry);
	u64 at = oldest->last_active +
		 idle_life_ns(pool->nr_idle - idle_needed(pool, now, NEED_NOW));

	if (pool->nr_idle <= idle_needed(pool, now, NEED_WITH_PEAK))
		at = max(at,
			 pool->peak_at + (u64)READ_ONCE(wq_idle_timeout_ms) * NSEC_PER_MSEC + 1);
	if (!timer_pending(&pool->idle_timer) || at < pool->idle_expires)
		arm_idle_timer(pool, at);
}

/* The idle-list rule (top of file): the idle list of an associated
 * per-CPU pool whose CPU is online loses entries on that CPU only.
 * pool->lock held. */
static void assert_idle_removal_allowed(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	WARN_ONCE(pool_is_bound(pool) && !pool->disassociated && cpu_online(pool->cpu) &&
			  smp_processor_id() != pool->cpu,
		  "pool %d: idle worker removed on cpu%u, not on its cpu%u", pool->id,
		  smp_processor_id(), pool->cpu);
}

static void worker_leave_idle(struct worker *worker)
{
	assert_spin_locked(&worker->pool->lock);
	if (!(worker->flags & WORKER_IDLE))
		return;
	assert_idle_removal_allowed(worker->pool);
	WRITE_ONCE(worker->flags, worker->flags & ~WORKER_IDLE);
	worker->pool->nr_idle--;
	list_del_init(&worker->idle_entry);
}

/* Tell an idle worker to exit. pool->lock held; where, the idle-list
 * rule at the top says. */
static void destroy_worker(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	assert_idle_removal_allowed(pool);
	WARN_ON_ONCE(!(worker->flags & WORKER_IDLE) || worker->current_work);
	WRITE_ONCE(pool->nr_workers, pool->nr_workers - 1);
	pool->nr_idle--;
	pool->nr_destroyed++;
	list_del_init(&worker->idle_entry);
	list_del_init(&worker->node);
	WRITE_ONCE(worker->flags, (worker->flags & ~WORKER_IDLE) | WORKER_DIE);
	trace_event(TR_WORKER_DESTROY, worker->thread, (u64)pool->id, 0);
	wake_up_thread(worker->thread);
}

/* Destroy every idle worker, the longest idle first: an unbound pool no
 * workqueue uses, or a per-CPU pool whose trustee is done or whose CPU is
 * back. pool->lock held. */
static void destroy_idle_workers(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	while (pool->nr_idle)
		destroy_worker(list_last_entry(&pool->idle_list, struct worker, idle_entry));
}

/* ---- the scheduler hooks: concurrency management ------------------------ */

/* The worker blocks (rq lock held and interrupts off: the hook contract,
 * which sched.c checks after each hook; on the pool's CPU). If it
 * was the last running worker and work is pending, hand the scheduler an
 * idle worker to wake (lock-free: see the idle-list rule at the top). */
static struct thread *wq_worker_sleeping(struct thread *t, void *data)
{
	struct worker *worker = data;
	struct worker_pool *pool = worker->pool;

	if (READ_ONCE(worker->flags) & WORKER_NOT_RUNNING)
		return NULL;
	delay_point(DP_WORKER_SLEEP);
	/* A bound worker away from its CPU: woken while the CPU was already
	 * out of cpu_online_mask but before workqueue_cpu_dying() unbound the
	 * pool (the scheduler then runs it elsewhere). Its pool is about to
	 * lose concurrency management (nr_running is zeroed there), and its
	 * idle list may only be read on its own CPU: leave both alone. */
	if (pool_is_bound(pool) && pool->cpu != smp_processor_id())
		return NULL;
	WRITE_ONCE(worker->sleeping, true);
	if (atomic_dec_return(&pool->nr_running) == 0 && !list_empty(&pool->worklist)) {
		struct worker *idle = first_idle_worker(pool);

		/* For the creation hold: when the pool last had to turn to
		 * another worker (only if a hold can need it: a clock read). */
		if (READ_ONCE(wq_create_hold_us))
			pool->last_block_ns = ktime_get_ns();
		/* The one idle worker already waits for a hold to end: its
		 * timer wakes it (and it looks at this block then). Read on
		 * the pool's CPU, where it is written (under L). */
		if (idle && pool->create_waiting && pool->nr_idle == 1)
			idle = NULL;
		trace_event(TR_WORKER_SLEEP, t, (u64)pool->id, idle ? idle->thread->tid : 0);
		return idle ? idle->thread : NULL;
	}
	trace_event(TR_WORKER_SLEEP, t, (u64)pool->id, 0);
	return NULL;
}

/* The worker runs again (its own context, nothing held). It counts again
 * if sleeping() uncounted it, on the pool's CPU only: woken elsewhere, its
 * CPU is going down and workqueue_cpu_dying() is about to zero the count
 * and uncount it for good (with preemption off here, that step cannot
 * slip in between the flags test and the increment on the pool's CPU). */
static void wq_worker_running(struct thread *t, void *data)
{
	struct worker *worker = data;
	struct worker_pool *pool = worker->pool;

	if (!worker->sleeping)
		return;
	preempt_disable();
	if (!(READ_ONCE(worker->flags) & WORKER_NOT_RUNNING) &&
	    !(pool_is_bound(pool) && pool->cpu != smp_processor_id()))
		atomic_inc(&pool->nr_running);
	WRITE_ONCE(worker->sleeping, false);
	trace_event(TR_WORKER_WAKE, t, (u64)worker->pool->id, 0);
	preempt_enable();
}

static const struct sched_hook_ops wq_worker_hooks = {
	.sleeping = wq_worker_sleeping,
	.running = wq_worker_running,
};

/* The calling thread's worker struct (its hook's data), or NULL if it is
 * not a worker. */
static struct worker *current_worker(void)
{
	return sched_hook_data(current, &wq_worker_hooks);
}

/* t is current, or the caller a for_each_thread() callback: the worker
 * struct, freed by worker_die() only after kthread_set_data(current, NULL),
 * which waits for such a callback, stays valid meanwhile. Its fields are
 * read without pool->lock: display only, each may be stale. */
void workqueue_describe_thread(struct thread *t, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (t != current)
		assert_thread_list_locked();
	if (!sched_hook_data(t, &wq_worker_hooks))
		return;
	struct worker *worker = kthread_data(t);
	work_func_t fn = worker ? READ_ONCE(worker->current_func) : NULL;

	if (fn)
		snprintf(buf, size, "%pS%s", fn, READ_ONCE(worker->hog) ? " [cpu-hog]" : "");
	else if (worker)
		snprintf(buf, size, "%s",
			 (READ_ONCE(worker->flags) & WORKER_IDLE) ? "(idle)" : "(busy)");
}

struct work_struct *current_work(void)
{
	struct worker *worker = current_worker();

	return worker ? worker->current_work : NULL;
}

bool current_is_rescuer(void)
{
	struct worker *worker = current_worker();

	return worker && (worker->flags & WORKER_RESCUER);
}

/* Is the caller an item of wq (queueing from it is "chained" work)? */
static bool is_chained_work(struct workqueue_struct *wq)
{
	struct worker *worker = current_worker();

	return worker && worker->current_pwq && worker->current_pwq->wq == wq;
}

/* ---- flush colours ------------------------------------------------------ */

/* Move done_gen past every drained generation; wake flushers. F held. */
static void flush_advance(struct workqueue_struct *wq)
{
	u64 old = wq->done_gen;

	assert_spin_locked(&wq->flush_lock);
	while (wq->done_gen < wq->work_gen &&
	       atomic_read(&wq->nr_color[wq->done_gen % WORK_NR_COLORS]) == 0)
		WRITE_ONCE(wq->done_gen, wq->done_gen + 1);
	if (wq->done_gen != old)
		wake_up_all(&wq->flush_wait);
}

/* An item of this colour left flight. Any context. */
static void color_done(struct workqueue_struct *wq, unsigned int color)
{
	if (atomic_dec_return(&wq->nr_color[color]) != 0)
		return;
	unsigned long flags = spin_lock_irqsave(&wq->flush_lock);

	flush_advance(wq);
	spin_unlock_irqrestore(&wq->flush_lock, flags);
}

/* ---- executing work ----------------------------------------------------- */

static struct list_head *busy_bucket(struct worker_pool *pool, const struct work_struct *w)
{
	return &pool->busy_hash[hash_ptr(w, 5)];
}
_Static_assert(BUSY_HASH_SIZE == 1 << 5, "busy_bucket() takes the top 5 bits");

/* The worker of this pool executing w, or NULL. pool->lock held. */
static struct worker *find_worker_executing(struct worker_pool *pool, struct work_struct *w)
{
	struct worker *worker;

	assert_spin_locked(&pool->lock);
	list_for_each_entry(worker, busy_bucket(pool, w), hentry)
		if (worker->current_work == w && worker->current_func == w->func)
			return worker;
	return NULL;
}

/* Move w, and the flush barriers linked behind it, to the tail of head:
 * a barrier must run on the worker that runs its target, right after it
 * (on a pool where every item gets a worker, it would otherwise run at
 * once, beside its target). pool->lock held. */
static void move_linked_works(struct worker_pool *pool, struct work_struct *w,
			      struct list_head *head)
{
	assert_spin_locked(&pool->lock);
	for (;;) {
		struct work_struct *next = list_next_entry(w, entry);
		bool linked = test_bit(WORK_STRUCT_LINKED, &w->flags);

		list_move_tail(&w->entry, head);
		if (!linked)
			break;
		if (WARN_ONCE(next->magic != WORK_MAGIC,
			      "work %pS is linked to a barrier that is gone", w->func))
			break;
		w = next;
	}
}

static bool work_is_barrier(struct work_struct *w);

/* Move inactive items to the worklist while max_active allows. A flush
 * barrier waiting among them takes no slot. pool->lock held. */
static void pwq_activate_inactive(struct pool_workqueue *pwq)
{
	assert_spin_locked(&pwq->pool->lock);
	while (!list_empty(&pwq->inactive) && pwq->nr_active < pwq->max_active) {
		struct work_struct *w = list_first_entry(&pwq->inactive, struct work_struct, entry);

		move_linked_works(pwq->pool, w, &pwq->pool->worklist); /* its barriers come along */
		if (work_is_barrier(w))
			continue;
		clear_bit(WORK_STRUCT_INACTIVE, &w->flags);
		pwq->nr_inactive--;
		pwq->nr_active++;
	}
}

/* Set max_active and let waiting items in. pool->lock held. */
static void pwq_set_max_active(struct pool_workqueue *pwq, int max_active)
{
	assert_spin_locked(&pwq->pool->lock);
	pwq->max_active = max_active;
	pwq_activate_inactive(pwq);
	if (need_more_worker(pwq->pool))
		wake_up_worker(pwq->pool);
}

/* Where an item was when it left flight: counted in nr_active (on the
 * worklist or running) or waiting over max_active. */
enum work_slot { WORK_WAS_INACTIVE, WORK_WAS_ACTIVE };

/* An item of pwq is done (or cancelled). pool->lock held. */
static void pwq_dec_nr_in_flight(struct pool_workqueue *pwq, unsigned int color,
				 enum work_slot slot)
{
	assert_spin_locked(&pwq->pool->lock);
	if (color == WORK_NO_COLOR) {
		pwq->nr_barriers--;
		return;
	}
	pwq->nr_in_flight--;
	if (slot == WORK_WAS_ACTIVE) {
		pwq->nr_active--;
		pwq_activate_inactive(pwq);
	}
	color_done(pwq->wq, color);
}

/* A worker of a CPU's pool run by the trustee (on any active CPU) is about
 * to run an item of a workqueue with a CPU mask: keep it to the active
 * CPUs of the mask, if there are any. May sleep. True if it narrowed its
 * affinity (the caller widens it again after the item). */
static bool keep_to_wq_cpus(struct workqueue_struct *wq)
{
	struct cpumask cpus;

	mutex_lock(&wq->mutex);
	bool some = cpumask_and(&cpus, &wq->attrs.cpumask, &cpu_active_mask);

	mutex_unlock(&wq->mutex);
	return some && set_cpus_allowed(current, &cpus) == 0;
}

/* The validator's view of a running item: while its function runs, the
 * worker "holds" the item and its workqueue, so that flushing either from
 * inside it is a deadlock the validator reports (docs/lockdep.md). With
 * lockdep=0 none of this happens. */
struct work_dep {
	bool validated;		     /* lockdep on when the item was taken */
	unsigned int held;	     /* locks held before the function ran */
	struct lockdep_map item_map; /* a copy of the item's map (see below) */
};

/* Before PENDING clears (process_one_work()): after that w may be freed
 * or set up again by its owner, so the item is held through a copy. */
static __always_inline void work_dep_prepare(struct work_dep *d, struct work_struct *w)
{
	d->validated = READ_ONCE(lockdep_active);
	if (d->validated)
		d->item_map = w->lockdep_map;
}

/* Not under pool->lock: an item that queues work takes that lock after
 * the item and its workqueue. Both are "taken at" the function. */
static __always_inline void work_dep_acquire(struct work_dep *d, struct pool_workqueue *pwq,
					     struct work_struct *w, work_func_t fn)
{
	const void *at = (const char *)fn + 1;

	if (!d->validated)
		return;
	d->held = lockdep_held_depth();
	if (pwq)
		lock_acquire(&pwq->wq->lockdep_map, 0, 0, &pwq->wq->lockdep_map, at);
	lock_acquire(&d->item_map, 0, 0, w, at);
}

/* After the function: let both go, and report locks it left held. */
static __always_inline void work_dep_release(struct work_dep *d, struct pool_workqueue *pwq,
					     struct work_struct *w, work_func_t fn)
{
	const void *at = (const char *)fn + 1;

	if (!d->validated)
		return;
	lock_release(w, at);
	if (pwq)
		lock_release(&pwq->wq->lockdep_map, at);
	lockdep_check_depth(d->held, "work function", fn);
}

/* Run w on this worker. pool->lock held on entry and exit (dropped inside). */
static void process_one_work(struct worker *worker, struct work_struct *w)
{
	struct worker_pool *pool = worker->pool;
	struct pool_workqueue *pwq = w->pwq;
	struct worker *collision =
		wq_lab_no_reentrancy_guard ? NULL : find_worker_executing(pool, w);
	unsigned int color = w->color;
	void (*put)(struct work_struct *) = w->put;

	assert_spin_locked(&pool->lock);
	if (collision) {
		/* Non-reentrancy: the worker already running it takes it next. */
		move_linked_works(pool, w, &collision->scheduled);
		return;
	}
	list_del_init(&w->entry);
	clear_bit(WORK_STRUCT_LINKED, &w->flags); /* its barriers are on our list now */
	worker->current_work = w;
	WRITE_ONCE(worker->current_func, w->func);
	worker->current_pwq = pwq;
	worker->current_seq = ++pool->nr_started;
	list_add(&worker->hentry, busy_bucket(pool, w));
	bool intensive = pwq && (pwq->wq->flags & WQ_CPU_INTENSIVE);

	if (intensive)
		worker_set_flags(worker, WORKER_CPU_INTENSIVE);
	/* Out of nr_running now (CPU-intensive) or always (an unbound pool's
	 * worker, or one the trustee runs): nothing will wake another worker
	 * when this one blocks, so wake one now if work is waiting. Without
	 * it two items queued at once, the second woken onto the worker that
	 * the first had woken already, run one after the other. */
	if ((intensive || (worker->flags & WORKER_UNBOUND)) && need_more_worker(pool))
		wake_up_worker(pool);
	/* The lab race (wq_lab_late_last_pool): a worker the trustee runs
	 * publishes last_pool only after PENDING is clear and the lock
	 * dropped, so a queue_work() in between reads the previous pool and
	 * its reentrancy guard looks in the wrong place. */
	bool late_last_pool = wq_lab_late_last_pool && pool_is_bound(pool) && pool->disassociated;
	/* Run by the trustee: an item of a workqueue with a CPU mask keeps to it. */
	bool keep_to_mask =
		pwq && pool_is_bound(pool) && pool->disassociated && READ_ONCE(pwq->wq->restricted);

	if (!late_last_pool)
		WRITE_ONCE(w->last_pool, pool);
	WRITE_ONCE(w->pwq, NULL);
	struct work_dep dep;

	work_dep_prepare(&dep, w);

	/* From here on it may be queued again (it will wait for us). */
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	spin_unlock_irq(&pool->lock);
	bool narrowed = keep_to_mask && keep_to_wq_cpus(pwq->wq);

	delay_point(DP_WORK_START);
	if (late_last_pool)
		WRITE_ONCE(w->last_pool, pool);

	work_dep_acquire(&dep, pwq, w, worker->current_func);
	trace_event(TR_WORK_START, current, (u64)w, (u64)worker->current_func);
	worker->current_func(w);
	trace_event(TR_WORK_END, current, (u64)w, (u64)worker->current_func);
	work_dep_release(&dep, pwq, w, worker->current_func);
	WARN_ONCE(preempt_count() != 0 || irqs_disabled(),
		  "work function %pS returned with preemption (%d) or interrupts off",
		  worker->current_func, preempt_count());
	if (put && color != WORK_NO_COLOR)
		put(w); /* the last touch of w by the workqueue */
	if (narrowed)	/* any active CPU again, or its own CPU if it is back */
		set_cpus_allowed(current, &cpu_active_mask);

	spin_lock_irq(&pool->lock);
	/* Its workqueue's flag, or the hog timer's verdict: for this item only. */
	if (worker->flags & WORKER_CPU_INTENSIVE)
		worker_clr_flags(worker, WORKER_CPU_INTENSIVE);
	if (worker->hog)
		pool->nr_hogs_running--;
	WRITE_ONCE(worker->hog, false);
	pool->nr_executed++;
	list_del_init(&worker->hentry);
	worker->current_work = NULL;
	WRITE_ONCE(worker->current_func, NULL);
	worker->current_pwq = NULL;
	if (pwq)
		pwq_dec_nr_in_flight(pwq, color, WORK_WAS_ACTIVE);
}

static void process_scheduled_works(struct worker *worker)
{
	while (!list_empty(&worker->scheduled))
		process_one_work(worker,
				 list_first_entry(&worker->scheduled, struct work_struct, entry));
}

/* ---- creation that adapts: the hold and the pace --------------------------
 *
 * A worker about to take work with no idle worker left behind it would
 * make one first (the manager role), so that a blocking item always has a
 * successor. Two policies may make it wait, idle, with the pool's create
 * timer armed for when it may make one (it is woken earlier if another
 * block hands it work, and the timer wakes it when due):
 *   the hold: a counted worker that blocked less than wq_create_hold_us
 *     ago counts as still running, so a short block makes no worker; a
 *     hold that expires with the need still there means the blocks are
 *     long: then no hold for LONG_BLOCK_FACTOR holds' time, so that a pool
 *     whose items sleep for long gets its workers at full speed;
 *   the pace: past PACE_FREE_WORKERS workers, each creation waits a pause
 *     that starts at PACE_FIRST_NS and doubles while creation keeps being
 *     asked for, up to wq_pace_max_us; PACE_QUIET_NS without a creation
 *     ends the storm.
 * Only per-CPU pools that are associated: elsewhere nothing is counted,
 * every item gets a worker at once.
 */

static u64 hold_ns(void)
{
	return (u64)READ_ONCE(wq_create_hold_us) * NSEC_PER_USEC;
}

/* Must the caller (about to work, no idle worker left) wait before
 * making a worker? If so the create timer is armed for when it may.
 * pool->lock held. Never on a CPU other than the pool's (see below). */
static bool creation_deferred(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	/* Only on the pool's CPU: the hooks read create_waiting there without
	 * the lock, and the create timer must fire there. A worker of an
	 * associated pool may run elsewhere (one that could not rebind yet,
	 * or between its CPU leaving the online mask and the dying step):
	 * it makes its worker at once, as without these policies. */
	if (!pool_is_bound(pool) || pool->disassociated || smp_processor_id() != pool->cpu)
		return false;
	u64 now = ktime_get_ns(), hold = hold_ns(), at = 0;
	/* Workers in an item other than the caller (it left the idle list):
	 * with nothing running, those not marked as hogs are blocked, and
	 * the hold waits for them. None: nobody is coming back. */
	unsigned int blocked = pool->nr_workers - pool->nr_idle - 1 - pool->nr_hogs_running;

	if (hold && blocked && now >= pool->long_until)
		at = pool->last_block_ns + hold;
	if (pool->pace_ns && now - pool->last_create_ns >= PACE_QUIET_NS)
		pool->pace_ns = 0; /* the storm is over */
	if (pool->pace_ns)
		at = max(at, pool->last_create_ns + pool->pace_ns);
	if (now < at) {
		if (!pool->create_waiting)
			pool->nr_deferred++;
		pool->create_waiting = true;
		mod_timer(&pool->create_timer, at);
		return true;
	}
	/* Waited, and no worker ran since the last block for a whole hold:
	 * the blocks are long ones. */
	if (pool->create_waiting && hold && now >= pool->last_block_ns + hold)
		pool->long_until = now + LONG_BLOCK_FACTOR * hold;
	pool->create_waiting = false;
	return false;
}

/* A worker was made for pool: the pace of the next one. pool->lock held. */
static void pace_after_create(struct worker_pool *pool)
{
	u64 max_pace = (u64)READ_ONCE(wq_pace_max_us) * NSEC_PER_USEC;

	assert_spin_locked(&pool->lock);
	pool->last_create_ns = ktime_get_ns();
	if (!pool_is_bound(pool) || pool->nr_workers < PACE_FREE_WORKERS || !max_pace)
		pool->pace_ns = 0;
	else
		pool->pace_ns = min(pool->pace_ns ? 2 * pool->pace_ns : PACE_FIRST_NS, max_pace);
}

/* Timer callback: a waiting worker may make its worker now, unless a
 * blocked one came back meanwhile. */
static void pool_create_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, create_timer);

	spin_lock(&pool->lock);
	if (need_more_worker(pool))
		wake_up_worker(pool);
	else
		pool->create_waiting = false; /* held, and no worker was needed */
	spin_unlock_no_resched(&pool->lock);
}

/* ---- creating workers, managing, maydays -------------------------------- */

static int worker_thread(void *arg);

/* A new worker for pool, its thread created but not started and not yet a
 * member of the pool (worker_attach() makes it one). created_unbound: may
 * run on any active CPU (an unbound pool, or a per-CPU pool whose CPU is
 * offline); otherwise bound to the pool's CPU. NULL if out of memory or
 * threads. May sleep; no locks held. */
static struct worker *worker_new(struct worker_pool *pool, bool created_unbound)
{
	struct worker *worker = kzalloc(sizeof(*worker));

	might_sleep();
	if (!worker)
		return NULL;
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	worker->id = pool->next_id++;
	spin_unlock_irqrestore(&pool->lock, flags);
	worker->pool = pool;
	INIT_LIST_HEAD(&worker->scheduled);
	INIT_LIST_HEAD(&worker->idle_entry);
	INIT_LIST_HEAD(&worker->node);
	INIT_LIST_HEAD(&worker->hentry);
	if (pool_is_bound(pool) && !created_unbound)
		worker->thread = kthread_create_on_cpu(worker_thread, worker, pool->cpu,
						       "kworker/%u:%d%s", pool->cpu, worker->id,
						       pool->attrs.nice < 0 ? "H" : "");
	else if (pool_is_bound(pool))
		worker->thread = kthread_create_on_mask(worker_thread, worker, &cpu_active_mask,
							"kworker/%u:%d%s", pool->cpu, worker->id,
							pool->attrs.nice < 0 ? "H" : "");
	else
		worker->thread = kthread_create_on_mask(worker_thread, worker, &pool->attrs.cpumask,
							"kworker/u%d:%d", pool->id, worker->id);
	if (!worker->thread) {
		kfree(worker);
		return NULL;
	}
	kthread_set_data(worker->thread, worker);
	sched_set_nice(worker->thread, pool->attrs.nice);
	return worker;
}

/* Give up a worker from worker_new() that never joined its pool: its
 * thread starts, sees WORKER_DIE and exits (worker_thread). */
static void worker_discard(struct worker *worker)
{
	struct thread *th = worker->thread;

	WRITE_ONCE(worker->flags, WORKER_DIE);
	wake_up_thread(th);
	put_thread(th); /* it frees worker and itself */
}

/* Make a worker from worker_new() a member of its pool and start it, idle
 * (or on its way to rebind). pool->lock held. Returns its thread, whose
 * creator's reference the caller drops with put_thread() once unlocked
 * (the worker may be reaped and freed as soon as the lock is dropped). */
static struct thread *worker_attach(struct worker *worker, bool created_unbound)
{
	struct worker_pool *pool = worker->pool;
	struct thread *th = worker->thread;

	assert_spin_locked(&pool->lock);
	WRITE_ONCE(worker->flags, WORKER_PREP | (created_unbound ? WORKER_UNBOUND : 0));
	if (pool_is_bound(pool) && pool->disassociated) {
		/* The CPU went down while we created it. */
		WRITE_ONCE(worker->flags, worker->flags | WORKER_UNBOUND);
		if (!created_unbound)
			set_cpus_allowed(th, &cpu_active_mask);
	} else if (pool_is_bound(pool) && created_unbound) {
		WRITE_ONCE(worker->flags, worker->flags | WORKER_REBIND); /* the CPU came back
									     meanwhile */
	}
	list_add_tail(&worker->node, &pool->workers);
	WRITE_ONCE(pool->nr_workers, pool->nr_workers + 1);
	pool->nr_created++;
	/* Only a worker where the pool's hooks expect it may wait as idle;
	 * one still to rebind goes there first (worker_thread). */
	if (!(worker->flags & WORKER_REBIND))
		worker_enter_idle(worker);
	trace_event(TR_WORKER_CREATE, th, (u64)pool->id, 0);
	wake_up_thread(th);
	return th;
}

/* The pool has wq_max_workers: say so, once per boot, in words. */
static void report_max_workers(struct worker_pool *pool)
{
	static bool reported;

	if (__atomic_exchange_n(&reported, true, __ATOMIC_RELAXED))
		return;
	if (pool_is_bound(pool))
		pr_warn("pool %d (cpu%u%s) has wq_max_workers=%u workers: no more are made while "
			"it is full; WQ_MEM_RECLAIM work goes to its rescuer, the rest waits "
			"(reported "
			"once)\n",
			pool->id, pool->cpu, pool->attrs.nice < 0 ? " highpri" : "",
			wq_max_workers);
	else
		pr_warn("unbound pool %d has wq_max_workers=%u workers: no more are made while it "
			"is full; WQ_MEM_RECLAIM work goes to its rescuer, the rest waits "
			"(reported "
			"once)\n",
			pool->id, wq_max_workers);
}

/* Create one worker for pool and start it idle; false if the pool is full
 * (wq_max_workers) or out of memory or threads. May sleep; no locks held. */
static bool create_worker(struct worker_pool *pool)
{
	/* A per-CPU pool whose CPU is offline gets workers that may run on any
	 * active CPU (the trustee's); they rebind when the CPU returns. */
	bool created_unbound = !pool_is_bound(pool) || READ_ONCE(pool->disassociated);

	if (READ_ONCE(pool->nr_workers) >= READ_ONCE(wq_max_workers)) {
		report_max_workers(pool);
		return false;
	}
	struct worker *worker = worker_new(pool, created_unbound);

	if (!worker)
		return false;
	unsigned long flags = spin_lock_irqsave(&pool->lock);
	struct thread *th = worker_attach(worker, created_unbound);

	pace_after_create(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	put_thread(th); /* it frees itself when it exits */
	return true;
}

/* Ask wq's rescuer to come and run pwq's items. pool->lock held. */
static void send_mayday(struct pool_workqueue *pwq)
{
	struct workqueue_struct *wq = pwq->wq;

	assert_spin_locked(&pwq->pool->lock);
	if (!wq->rescuer)
		return;
	spin_lock(&wq_mayday_lock);
	if (list_empty(&pwq->mayday_node)) {
		list_add_tail(&pwq->mayday_node, &wq->maydays);
		wake_up_thread(wq->rescuer->thread);
		pwq->pool->nr_maydays++;
		trace_event(TR_MAYDAY, NULL, (u64)pwq->pool->id, 0);
	}
	spin_unlock_no_resched(&wq_mayday_lock);
}

/* The mayday invariant: a pool whose manager is active has its mayday
 * timer pending or firing, so that, however long creation keeps failing,
 * the rescuers are called within MAYDAY_INTERVAL_NS of the pool needing
 * them. Queueing to a pool with no idle worker relies on it (mayday_watch()
 * arms nothing while a manager is at work). It once did not hold: the
 * manager armed the timer once, at entry, and the timer re-armed only if
 * a worker was needed at the instant it fired; one firing in a moment of
 * no need (the worklist empty for a while) left a manager looping with no
 * timer, and every later queueing trusted it (a starved hand-over that
 * never ended: docs/workqueue.md, "Rescuers"). pool->lock held. */
static void assert_mayday_armed(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	WARN_ONCE(pool->manager_active && !timer_active(&pool->mayday_timer),
		  "pool %d: its manager is active and its mayday timer is not armed "
		  "(%u pending, %u idle, %u workers)",
		  pool->id, count_list(&pool->worklist), pool->nr_idle, pool->nr_workers);
}

/* Timer callback: the manager has failed to create a worker for a while,
 * or work was queued with no idle worker (mayday_watch()). While a worker
 * is needed and none can be had, call the rescuers; stay armed while the
 * manager is at work (the mayday invariant), or while the need lasts. */
static void pool_mayday_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, mayday_timer);
	struct work_struct *w;

	spin_lock(&pool->lock);
	pool->nr_mayday_timeouts++;
	bool need = need_to_create_worker(pool);

	if (need)
		list_for_each_entry(w, &pool->worklist, entry)
			if (w->pwq)
				send_mayday(w->pwq);
	if (need || pool->manager_active)
		mod_timer(&pool->mayday_timer, ktime_get_ns() + MAYDAY_INTERVAL_NS);
	spin_unlock_no_resched(&pool->lock);
}

/* The manager role: create a worker, and keep trying while one is needed
 * (need_to_create_worker); if that fails for MAYDAY_INITIAL_TIMEOUT_NS, the
 * mayday timer calls the rescuers, and again every MAYDAY_INTERVAL_NS for
 * as long as the manager is at work (the mayday invariant: the timer is
 * armed in the same locked section that makes the manager active, and
 * re-arms itself while it is). Taken by a worker of the pool that is
 * about to work with no idle worker left, and by the trustee of a
 * disassociated pool; one manager at a time. pool->lock held (interrupts
 * off); sleeps with it dropped. Returns false, without dropping it, if
 * another manager is at work; true if it dropped the lock (the caller
 * must look at the pool afresh). */
static bool manage_workers(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	if (pool->manager_active)
		return false;
	pool->manager_active = true;
	mod_timer(&pool->mayday_timer, ktime_get_ns() + MAYDAY_INITIAL_TIMEOUT_NS);
	spin_unlock_irq(&pool->lock);
	while (!create_worker(pool)) {
		msleep(CREATE_COOLDOWN_MS); /* out of memory or threads: try again */
		spin_lock_irq(&pool->lock);
		bool need = need_to_create_worker(pool);

		assert_mayday_armed(pool);
		spin_unlock_irq(&pool->lock);
		if (!need)
			break;
	}
	spin_lock_irq(&pool->lock);
	pool->manager_active = false;
	/* Still needed (another manager will come): the timer stays, as
	 * mayday_watch() would arm it. Otherwise it would only fire once more
	 * to find nothing to do: an idle CPU is not woken for that. A callback
	 * already firing waits for pool->lock, then sees no manager and no
	 * need, and lapses. */
	if (!need_to_create_worker(pool))
		del_timer(&pool->mayday_timer);
	return true;
}

/* Exit: the worker was told to die by destroy_worker(). Its struct is
 * freed once no ps-style reader can see it (kthread_set_data()). */
static __noreturn void worker_die(struct worker *worker)
{
	sched_hook_remove(&wq_worker_hooks);
	kthread_set_data(current, NULL);
	kfree(worker);
	thread_exit(0);
}

/* The pool's CPU is back (WORKER_REBIND): move there and rejoin
 * concurrency management. pool->lock held (dropped and retaken inside);
 * returns true if the caller should look at the pool afresh, false if
 * there was nothing to do or the move must wait for a later try. */
static bool worker_maybe_rebind(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	if (!(worker->flags & WORKER_REBIND))
		return false;
	WRITE_ONCE(worker->flags, worker->flags & ~WORKER_REBIND);
	if (pool->disassociated)
		return false; /* down again already: stay with the trustee */
	spin_unlock_irq(&pool->lock);
	int err = set_cpus_allowed(current, cpumask_of(pool->cpu));

	spin_lock_irq(&pool->lock);
	if (!err && !pool->disassociated && smp_processor_id() == pool->cpu) {
		worker_clr_flags(worker, WORKER_UNBOUND);
		return true;
	}
	if (!pool->disassociated) {
		/* The CPU is on its way down again, or that was cancelled: try
		 * again after the next item (not at once: that would spin).
		 * A worker still unbound when it would idle leaves instead. */
		WRITE_ONCE(worker->flags, worker->flags | WORKER_REBIND);
		return false;
	}
	return true;
}

static void watch_for_hog(struct worker_pool *pool);

static int worker_thread(void *arg)
{
	struct worker *worker = arg;
	struct worker_pool *pool = worker->pool;

	sched_hook_add(&wq_worker_hooks, worker);
	for (;;) {
		spin_lock_irq(&pool->lock);
		if (worker->flags & WORKER_DIE) {
			spin_unlock_irq(&pool->lock);
			worker_die(worker);
		}
		worker_leave_idle(worker);
	recheck:
		if (worker_maybe_rebind(worker))
			goto recheck;
		if (!need_more_worker(pool))
			goto sleep;
		if (!may_start_working(pool)) {
			if (creation_deferred(pool))
				goto sleep; /* wait idle: a blocked worker may be back soon */
			if (manage_workers(pool))
				goto recheck;
		}
		note_busy(pool);
		worker_clr_flags(worker, WORKER_PREP);
		if (!list_is_singular(&pool->worklist))
			watch_for_hog(pool); /* more waits behind what we take */
		do {
			struct work_struct *w =
				list_first_entry(&pool->worklist, struct work_struct, entry);

			if (test_bit(WORK_STRUCT_LINKED, &w->flags))
				move_linked_works(pool, w, &worker->scheduled); /* with its barriers
										 */
			else
				process_one_work(worker, w);
			process_scheduled_works(worker);
			/* Rebind after this item, not after the worklist drains:
			 * an item that requeues itself (idle_cull_fn, sent back
			 * to its CPU) would keep an unbound worker away forever. */
		} while (keep_working(pool) && !(worker->flags & WORKER_REBIND));
		worker_set_flags(worker, WORKER_PREP);
		if (worker_maybe_rebind(worker) || !list_empty(&pool->worklist))
			goto recheck;
	sleep:
		if (!need_more_worker(pool))
			pool->create_waiting = false; /* nobody waits to create now */
		if (pool_is_bound(pool) && !pool->disassociated &&
		    (worker->flags & WORKER_UNBOUND)) {
			/* Its CPU is back but it could not rebind (the CPU went
			 * away and came back meanwhile): an unbound worker must
			 * not wait on a bound pool's idle list. It leaves. */
			list_del_init(&worker->node);
			WRITE_ONCE(pool->nr_workers, pool->nr_workers - 1);
			pool->nr_destroyed++;
			trace_event(TR_WORKER_DESTROY, current, (u64)pool->id, 0);
			spin_unlock_irq(&pool->lock);
			worker_die(worker);
		}
		worker_enter_idle(worker);
		set_current_state(THREAD_BLOCKED);
		spin_unlock_irq(&pool->lock);
		schedule();
	}
	return 0;
}

/* The reaping work item (queued by the pool's idle timer): destroy idle
 * workers that have been idle longer than the timeout, oldest first. */
static void idle_cull_fn(struct work_struct *work)
{
	struct worker_pool *pool = container_of(work, struct worker_pool, idle_cull_work);

	spin_lock_irq(&pool->lock);
	if (pool_is_bound(pool) && !pool->disassociated && smp_processor_id() != pool->cpu) {
		/* Queued while its CPU was offline, run after it came back:
		 * the idle list may only change on the pool's CPU. Go there. */
		spin_unlock_irq(&pool->lock);
		queue_work_on(pool->cpu, system_wq, work);
		return;
	}
	/* Oldest first, each once idle for its life: shorter the further
	 * over the need the pool is. While the recent peak keeps them, look
	 * again when it is forgotten. This item may run on a worker of the
	 * pool it reaps, which is idle again as soon as it returns: counted
	 * as idle here, or a pool one over its need would keep that one and
	 * re-arm this for ever (the waking of an idle CPU every few seconds). */
	struct worker *self = current_worker();
	unsigned int me = self && self->pool == pool;

	for (;;) {
		u64 now = ktime_get_ns();
		unsigned int keep = idle_needed(pool, now, NEED_WITH_PEAK);

		if (pool->nr_idle + me <= keep) {
			if (pool->nr_idle + me > idle_needed(pool, now, NEED_NOW))
				arm_idle_timer(pool,
					       pool->peak_at +
						       (u64)wq_idle_timeout_ms * NSEC_PER_MSEC + 1);
			break;
		}
		if (!pool->nr_idle)
			break; /* only this worker is over the need: it stays */
		struct worker *worker =
			list_last_entry(&pool->idle_list, struct worker, idle_entry);
		u64 life = idle_life_ns(pool->nr_idle + me - keep);

		if (now < worker->last_active + life && pool->refcnt) {
			arm_idle_timer(pool, worker->last_active + life);
			break;
		}
		if (pool->refcnt && (!pool->shortest_life_ns || life < pool->shortest_life_ns))
			pool->shortest_life_ns = life;
		destroy_worker(worker);
	}
	spin_unlock_irq(&pool->lock);
}

/* Timer callback: only queues the reaping work (per-CPU pools: on their
 * own CPU, which the idle-list rule needs). */
static void idle_worker_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, idle_timer);

	if (pool_is_bound(pool))
		queue_work_on(pool->cpu, system_wq, &pool->idle_cull_work);
	else
		queue_work(system_unbound_wq, &pool->idle_cull_work);
}

/* ---- the rescuer -------------------------------------------------------- */

/* Where a rescuer may run pool's items: an unbound pool's CPUs; a per-CPU
 * pool's CPU, or any active CPU while the pool is disassociated (its CPU
 * offline). pool->lock held: the answer holds while it is. */
static const struct cpumask *rescue_mask(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	if (!pool_is_bound(pool))
		return &pool->attrs.cpumask;
	return pool->disassociated ? &cpu_active_mask : cpumask_of(pool->cpu);
}

/* Run pwq's items waiting in its pool, as a temporary member of the pool. */
static void rescue_pwq(struct worker *rescuer, struct pool_workqueue *pwq)
{
	struct worker_pool *pool = pwq->pool;
	struct work_struct *w, *n;

	/* Move where the pool's items may run, decided under pool->lock and
	 * checked again under it: the pool's CPU may come back (or leave)
	 * while we move, and a per-CPU pool's items run on its CPU whenever
	 * it is associated (once, the mask came from an unlocked look at
	 * disassociated, and items ran on another CPU). */
	spin_lock_irq(&pool->lock);
	do {
		const struct cpumask *mask = rescue_mask(pool);

		spin_unlock_irq(&pool->lock);
		if (set_cpus_allowed(current, mask))
			msleep(1); /* its CPU is going down, the pool not yet disassociated */
		spin_lock_irq(&pool->lock);
	} while (pool_is_bound(pool) && !pool->disassociated && smp_processor_id() != pool->cpu);
	rescuer->pool = pool;
	list_add_tail(&rescuer->node, &pool->workers); /* a member while it works here */
	list_for_each_entry_safe(w, n, &pool->worklist, entry)
		if (w->pwq == pwq)
			list_move_tail(&w->entry, &rescuer->scheduled);
	if (!list_empty(&rescuer->scheduled)) {
		trace_event(TR_RESCUE, current, (u64)pool->id, 0);
		WRITE_ONCE(pool->nr_rescued, pool->nr_rescued + 1);
		WRITE_ONCE(rescuer->rescue_wq->nr_rescued, rescuer->rescue_wq->nr_rescued + 1);
		process_scheduled_works(rescuer);
	}
	/* Still stuck with more of ours waiting? Stay on the list. */
	if (need_to_create_worker(pool))
		list_for_each_entry(w, &pool->worklist, entry)
			if (w->pwq == pwq) {
				send_mayday(pwq);
				break;
			}
	if (need_more_worker(pool))
		wake_up_worker(pool);
	list_del_init(&rescuer->node);
	spin_unlock_irq(&pool->lock);
}

static int rescuer_thread(void *arg)
{
	struct worker *rescuer = arg;
	struct workqueue_struct *wq = rescuer->rescue_wq;

	sched_hook_add(&wq_worker_hooks, rescuer); /* for current_work(); never counted */
	for (;;) {
		set_current_state(THREAD_BLOCKED);
		bool stop = kthread_should_stop();

		spin_lock_irq(&wq_mayday_lock);
		while (!list_empty(&wq->maydays)) {
			struct pool_workqueue *pwq =
				list_first_entry(&wq->maydays, struct pool_workqueue, mayday_node);

			list_del_init(&pwq->mayday_node);
			spin_unlock_irq(&wq_mayday_lock);
			__set_current_state(THREAD_RUNNING);
			rescue_pwq(rescuer, pwq);
			spin_lock_irq(&wq_mayday_lock);
		}
		spin_unlock_irq(&wq_mayday_lock);
		if (stop)
			break;
		schedule();
	}
	__set_current_state(THREAD_RUNNING);
	sched_hook_remove(&wq_worker_hooks);
	kthread_set_data(current, NULL); /* destroy_workqueue() frees it (worker_die()) */
	return 0;
}

/* ---- CPU hogs -------------------------------------------------------------
 *
 * An item that stays on the CPU without blocking holds its per-CPU pool:
 * it is the counted runner, so the items behind it wait until it ends.
 * When work waits behind a counted runner, the pool's hog timer is armed
 * for wq_cpu_intensive_thresh_us; a counted runner still in the item it
 * was in when the timer was armed is marked CPU-intensive for the rest of
 * that item (as if their workqueue were WQ_CPU_INTENSIVE: out of nr_running),
 * and an idle worker starts the next item. One hog at a time per pool: a
 * second waits until the first ends, so that a stream of CPU-bound items
 * does not make a worker each. The timer runs again while work waits
 * behind a runner, one threshold on (a hog later in a batch is seen too:
 * a runner that started after the timer was armed gets a whole threshold
 * from that fire), backing off to 16 while a hog is already out and
 * another waits for it; new work queued behind a runner brings it back to
 * one. After a mark it rests: the worker that takes the waiting work
 * watches what it leaves behind. Linux (6.5) does the same from its tick, on the item's CPU
 * time, with a 10 ms threshold; baton's default is the same 10 ms, of
 * guest time (docs/workqueue.md, "CPU hogs": under TCG, short thresholds
 * marked ordinary items, the serial console's among them).
 */

/* Work was put on the worklist behind a counted runner: watch it. Any
 * context; pool->lock held. */
static void watch_for_hog(struct worker_pool *pool)
{
	unsigned int thresh = READ_ONCE(wq_cpu_intensive_thresh_us);

	assert_spin_locked(&pool->lock);
	if (!thresh || !pool_is_bound(pool) || pool->disassociated)
		return;
	u64 at = ktime_get_ns() + (u64)thresh * NSEC_PER_USEC;

	/* Pending, soon enough: leave it. Otherwise (not pending, or its
	 * period backed off in a long batch) arm it for one threshold; always
	 * through del_timer(): timer_pending() read without the timer's base
	 * lock can miss a timer that a dying CPU's timers are moving. */
	if (timer_pending(&pool->hog_timer) && pool->hog_expires <= at)
		return;
	del_timer(&pool->hog_timer);
	pool->hog_seq = pool->nr_started;
	pool->hog_backoff = 0;
	pool->hog_expires = at;
	add_timer_on(&pool->hog_timer, at, pool->cpu);
}

/* Mark as CPU hogs the counted runners of pool that are on the CPU in an
 * item they started before the hog timer was armed (so one threshold ago
 * or more); how many were. pool->lock held. */
static unsigned int mark_hogs(struct worker_pool *pool, bool *fresh)
{
	unsigned int marked = 0;
	struct worker *worker;

	assert_spin_locked(&pool->lock);
	*fresh = false;
	for (int b = 0; b < BUSY_HASH_SIZE; b++)
		list_for_each_entry(worker, &pool->busy_hash[b], hentry) {
			if ((worker->flags & WORKER_NOT_RUNNING) || READ_ONCE(worker->sleeping))
				continue;
			if (worker->current_seq > pool->hog_seq) {
				*fresh = true; /* started since the timer was armed */
				continue;
			}
			/* One at a time: a second hog waits for the first to
			 * end, so CPU-bound items never make a worker each. */
			if (pool->nr_hogs_running)
				return marked;
			worker_set_flags(worker, WORKER_CPU_INTENSIVE);
			WRITE_ONCE(worker->hog, true);
			pool->nr_hogs_running++;
			pool->nr_hogs++;
			marked++;
			/* No console line: the trace event, `ps` ([cpu-hog])
			 * and `wq` (hogs) say it. A line here once landed in
			 * the middle of what was being typed at the shell. */
			trace_event(TR_WQ_HOG, worker->thread, (u64)pool->id,
				    (u64)worker->current_func);
		}
	return marked;
}

/* Timer callback, on the pool's CPU: has the pool been held? */
static void pool_hog_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, hog_timer);
	unsigned int thresh = READ_ONCE(wq_cpu_intensive_thresh_us);

	spin_lock(&pool->lock);
	if (thresh && !pool->disassociated && smp_processor_id() == pool->cpu &&
	    !list_empty(&pool->worklist) && atomic_read(&pool->nr_running)) {
		bool fresh;

		if (mark_hogs(pool, &fresh)) {
			if (need_more_worker(pool))
				wake_up_worker(pool);
			/* The hog is what this interrupt interrupted: let the
			 * woken worker compete with it now, not at its slice
			 * end (without this, p99 behind a hog was a whole 1 ms
			 * item whenever the hog's worker had run less lately). */
			sched_resched_here();
			/* Not armed again: the worker that takes the waiting
			 * work watches what it leaves behind (worker_thread()),
			 * and work queued later arms it afresh, for a whole
			 * threshold behind whoever runs then. */
			pool->hog_backoff = 0;
			spin_unlock_no_resched(&pool->lock);
			return;
		}
		if (fresh) {
			/* A runner that started after the timer was armed (the
			 * next item of a batch): one threshold from now. */
			pool->hog_backoff = 0;
		} else if (pool->hog_backoff < HOG_MAX_BACKOFF) {
			/* A hog already out, and another waiting for it to end:
			 * look less often. */
			pool->hog_backoff++;
		}
		pool->hog_seq = pool->nr_started;
		pool->hog_expires =
			ktime_get_ns() + ((u64)thresh * NSEC_PER_USEC << pool->hog_backoff);
		mod_timer(t, pool->hog_expires);
	}
	spin_unlock_no_resched(&pool->lock);
}

/* Work was queued to a pool with no idle worker: if nobody manages it
 * either, nobody would call the rescuers should creation fail. Arm the
 * mayday timer anyway (it looks again and stays armed only while a
 * worker is needed and none can be had). pool->lock held. */
static void mayday_watch(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	if (pool->manager_active)
		assert_mayday_armed(pool); /* the manager's timer serves */
	else if (!timer_pending(&pool->mayday_timer))
		mod_timer(&pool->mayday_timer, ktime_get_ns() + MAYDAY_INITIAL_TIMEOUT_NS);
}

/* ---- queueing ----------------------------------------------------------- */

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

static bool work_valid(struct work_struct *w, const char *op)
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

/* Queue w, whose PENDING bit the caller owns, to wq for cpu. Interrupts
 * off. Returns false (PENDING and reference released) if refused. */
static bool __queue_work(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	struct pool_workqueue *pwq;

	if (!wq_valid(wq, "queue_work", w)) {
		release_pending(w);
		return false;
	}
	if (unlikely(READ_ONCE(wq->nr_drainers) || READ_ONCE(wq->destroying)) &&
	    !is_chained_work(wq)) {
		WARN_ONCE(1, "queue_work(%pS) to workqueue %s while it is being %s: refused",
			  w->func, wq->name, READ_ONCE(wq->destroying) ? "destroyed" : "drained");
		release_pending(w);
		return false;
	}
retry:
	if (wq->flags & WQ_UNBOUND) {
		pwq = READ_ONCE(wq->dfl_pwq);
	} else {
		/* An offline CPU's items go to its pool all the same: its trustee
		 * has them run on other CPUs (workqueue.h, "CPUs going offline").
		 * With a CPU mask, the map sends them to the mask's CPUs. */
		if (cpu >= NR_CPUS || !READ_ONCE(wq->cpu_pwqs[cpu]))
			cpu = smp_processor_id();
		pwq = READ_ONCE(wq->cpu_pwqs[cpu]);
	}
	delay_point(DP_QUEUE);
	struct worker_pool *last = READ_ONCE(w->last_pool);
	bool redirected = false;

	/* Still running on another pool of this workqueue? Queue it there, so
	 * that it never runs on two workers at once. */
	if (last && last != pwq->pool && !wq_lab_no_reentrancy_guard) {
		spin_lock(&last->lock);
		struct worker *worker = find_worker_executing(last, w);

		if (worker && worker->current_pwq && worker->current_pwq->wq == wq) {
			pwq = worker->current_pwq;
			redirected = true;
		} else {
			spin_unlock_no_resched(&last->lock);
			spin_lock(&pwq->pool->lock);
		}
	} else {
		spin_lock(&pwq->pool->lock);
	}
	struct worker_pool *pool = pwq->pool;

	if (unlikely(pwq->retired && !redirected)) {
		/* apply_workqueue_attrs() replaced it under us: take the new one. */
		spin_unlock_no_resched(&pool->lock);
		goto retry;
	}
	WRITE_ONCE(w->pwq, pwq);
	trace_event(TR_WORK_QUEUE, current, (u64)w, (u64)w->func);
	w->color = READ_ONCE(wq->work_gen) % WORK_NR_COLORS;
	atomic_inc(&wq->nr_color[w->color]);
	pwq->nr_in_flight++;
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
	bool kick = pool->disassociated && !pool->nr_idle;

	if (pool->disassociated)
		trustee_news(pool);
	spin_unlock_no_resched(&pool->lock);
	if (kick)
		queue_work(trustee_wq, &pool->trustee_work.work); /* it needs a worker */
	return true;
}

/* Take PENDING for a new queueing: false if it was pending already. */
static bool claim_pending(struct work_struct *w)
{
	if (test_and_set_bit(WORK_STRUCT_PENDING, &w->flags))
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

/* What a work item is, for grabbing and cancelling: a delayed one has a
 * timer to stop as well. */
enum work_kind { WORK_PLAIN, WORK_DELAYED };

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

static int grab_pending(struct work_struct *w, enum work_kind kind, unsigned long *irqflags)
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

/* ---- flushing ----------------------------------------------------------- */

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

/* A flush that would wait for itself: refused (the fast paths below),
 * reported once per call site like the WARN_ONCE they replaced (a test's
 * ktest_expect_bugs() re-arms them), in the validator's form, and only if
 * the validator did not report this very call. */
#define report_self_wait(fmt, ...)                                                                 \
	do {                                                                                       \
		static bool __done __section(".data.once");                                        \
		if (!__atomic_exchange_n(&__done, true, __ATOMIC_RELAXED))                         \
			lockdep_report_misuse(fmt, ##__VA_ARGS__);                                 \
	} while (0)

/* flush_work() once the validator has seen it (reported: it reported). */
static bool __flush_work(struct work_struct *w, bool reported, const void *ip)
{
	struct wq_barrier barr;
	struct worker *worker, *self = current_worker();
	unsigned long flags;
	struct worker_pool *pool = lock_work_pool(w, &worker, &flags);

	if (!pool)
		return false;
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
	wq->nr_flushes++;
	flush_advance(wq);
	spin_unlock_irqrestore(&wq->flush_lock, flags);
	mutex_unlock(&wq->flush_mutex);
	wait_event(wq->flush_wait, READ_ONCE(wq->done_gen) > my_gen);
}

/* What wq_nr_in_flight() counts: items only, or flush_work barriers too. */
enum in_flight_count { ITEMS_ONLY, ITEMS_AND_BARRIERS };

/* Items (and barriers, if asked) queued or running. M held. */
static int wq_nr_in_flight(struct workqueue_struct *wq, enum in_flight_count what)
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

/* Whether a cancel waits for an execution in progress (the _sync ones). */
enum cancel_wait { CANCEL_NO_WAIT, CANCEL_SYNC };

static bool __cancel_work(struct work_struct *w, enum work_kind kind, enum cancel_wait wait,
			  const void *ip)
{
	unsigned long flags;

	if (wait == CANCEL_SYNC)
		might_sleep();
	if (!work_valid(w, "cancel_work"))
		return false;
	/* For the validator: it may wait for w. */
	bool reported = wait == CANCEL_SYNC && lock_wait_for(&w->lockdep_map, w, ip);

	/* From here on queue_work(w) fails: a self-requeue too. */
	int ret = grab_pending(w, kind, &flags);

	local_irq_restore(flags);
	if (wait == CANCEL_SYNC)
		__flush_work(w, reported, ip); /* wait for an execution in progress */
	clear_bit(WORK_STRUCT_PENDING, &w->flags);
	if (ret == 1 && w->put)
		w->put(w);
	return ret == 1;
}

bool cancel_work(struct work_struct *w)
{
	return __cancel_work(w, WORK_PLAIN, CANCEL_NO_WAIT, __builtin_return_address(0));
}

bool cancel_work_sync(struct work_struct *w)
{
	return __cancel_work(w, WORK_PLAIN, CANCEL_SYNC, __builtin_return_address(0));
}

bool cancel_delayed_work(struct delayed_work *dw)
{
	return __cancel_work(&dw->work, WORK_DELAYED, CANCEL_NO_WAIT, __builtin_return_address(0));
}

bool cancel_delayed_work_sync(struct delayed_work *dw)
{
	return __cancel_work(&dw->work, WORK_DELAYED, CANCEL_SYNC, __builtin_return_address(0));
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

/* ---- CPU hotplug: the trustee --------------------------------------------
 *
 * When a CPU goes down, its two pools are "disassociated" on the dying CPU
 * itself (interrupts off, so no hook can act on them meanwhile: hooks act
 * only on the pool's CPU): every worker gets WORKER_UNBOUND (out of
 * concurrency management, nr_running is zeroed) and may run on any active
 * CPU. cpu_down() does not wait for the pools to drain. A trustee - a work
 * item of trustee_wq (unbound, WQ_MEM_RECLAIM: its rescuer runs it when no
 * worker can be had), not a thread - takes charge: the pool behaves
 * like an unbound one (every pending item gets a worker), the trustee is
 * its manager when no worker is idle (manage_workers(): creation, maydays
 * to rescuers if it fails), and once the work is gone it releases the idle
 * workers and leaves (TRUSTEE_DONE). Work queued to the offline CPU later
 * calls it back (TRUSTEE_IN_CHARGE again).
 *
 * When the CPU returns, workqueue_cpu_online() takes the pools back
 * (TRUSTEE_NONE): idle (unbound) workers are destroyed, busy ones are
 * marked WORKER_REBIND and move back to the CPU after their current item,
 * a bound worker joins, and concurrency management resumes. The bound
 * workers are made first: if that fails, the online step fails before it
 * changed anything, cpu_up() takes the CPU back down and the pools stay
 * with the trustee. A cancelled offline never reaches the dying step, so
 * it leaves nothing to undo.
 */

static bool trustee_has_news(struct worker_pool *pool, unsigned int seen)
{
	return READ_ONCE(pool->trustee_events) != seen || !READ_ONCE(pool->disassociated);
}

/* Record a trustee state change (and trace it). pool->lock held. */
static void trustee_set_state(struct worker_pool *pool, int state)
{
	assert_spin_locked(&pool->lock);
	if (pool->trustee_state == state)
		return;
	pool->trustee_state = state;
	trace_event(TR_TRUSTEE, NULL, (u64)pool->id, (u64)state);
}

/* Run by its workqueue's rescuer, a trustee comes back this often. */
#define TRUSTEE_RETRY_NS (CREATE_COOLDOWN_MS * NSEC_PER_MSEC)

/* The trustee: runs a disassociated pool until its work is gone, as the
 * pool's manager (manage_workers) when no worker is idle; then releases
 * the idle workers (TRUSTEE_DONE) and leaves. Queued again by work queued
 * to the pool meanwhile, or when it finds no idle worker; returns at once
 * once the CPU is back.
 * Run by the trustees' rescuer (no worker could be had), it must not keep
 * it: the one rescuer serves the trustees of every pool, both of a CPU
 * and those of other CPUs going down. So it makes one pass (one creation
 * attempt, no waiting) and comes back TRUSTEE_RETRY_NS later, queued
 * again (by the rescuer again, if still no worker can be had). */
static void trustee_fn(struct work_struct *work)
{
	struct worker_pool *pool =
		container_of(to_delayed_work(work), struct worker_pool, trustee_work);
	bool rescuer = current_is_rescuer();

	delay_point(DP_TRUSTEE);
	spin_lock_irq(&pool->lock);
	WRITE_ONCE(pool->nr_trustee_runs, pool->nr_trustee_runs + 1);
	while (pool->disassociated) {
		trustee_set_state(pool, TRUSTEE_IN_CHARGE);
		if (need_to_create_worker(pool) && !rescuer && manage_workers(pool))
			continue;
		if (need_to_create_worker(pool) && rescuer && !pool->manager_active) {
			mayday_watch(pool); /* for the items, should this fail too */
			spin_unlock_irq(&pool->lock);
			bool made = create_worker(pool);

			spin_lock_irq(&pool->lock);
			if (made)
				continue;
		}
		if (list_empty(&pool->worklist) && pool->nr_idle == pool->nr_workers &&
		    !pool->manager_active) {
			/* The work is gone: release the workers. */
			destroy_idle_workers(pool);
			trustee_set_state(pool, TRUSTEE_DONE);
			break;
		}
		if (need_more_worker(pool))
			wake_up_worker(pool);
		if (rescuer) {
			spin_unlock_irq(&pool->lock);
			queue_delayed_work(trustee_wq, &pool->trustee_work, TRUSTEE_RETRY_NS);
			return;
		}
		unsigned int seen = pool->trustee_events;

		spin_unlock_irq(&pool->lock);
		wait_event_timeout(pool->trustee_wait, trustee_has_news(pool, seen),
				   100 * NSEC_PER_MSEC);
		spin_lock_irq(&pool->lock);
	}
	spin_unlock_irq(&pool->lock);
}

int workqueue_cpu_dying(unsigned int cpu)
{
	struct worker_pool *pool;
	unsigned int i;

	assert(irqs_disabled() && smp_processor_id() == cpu);
	for_each_cpu_pool(pool, cpu, i)
	{
		struct worker *worker;

		delay_point(DP_CPU_DYING);
		spin_lock(&pool->lock);
		WRITE_ONCE(pool->disassociated, true);
		trustee_set_state(pool, TRUSTEE_IN_CHARGE);
		list_for_each_entry(worker, &pool->workers, node) {
			if (worker->flags & WORKER_RESCUER)
				continue; /* it leaves by itself */
			WRITE_ONCE(worker->flags,
				   (worker->flags | WORKER_UNBOUND) & ~WORKER_REBIND);
			set_cpus_allowed(worker->thread, &cpu_active_mask);
		}
		atomic_set(&pool->nr_running, 0);
		if (need_more_worker(pool))
			wake_up_worker(pool);
		/* Whether or not the trustee runs soon: should no worker be
		 * had for the pool's items, the rescuers are called. */
		if (need_to_create_worker(pool))
			mayday_watch(pool);
		spin_unlock_no_resched(&pool->lock);
		queue_work(trustee_wq, &pool->trustee_work.work);
	}
	return 0;
}

static void update_cpu_maps(void);

int workqueue_cpu_online(unsigned int cpu)
{
	struct worker *bound[NR_STD_POOLS + NR_NICE_LEVELS];
	struct worker_pool *pool;
	unsigned int i, n = 0;

	might_sleep();
	delay_point(DP_REBIND);
	/* First a bound idle worker for each pool, so that concurrency
	 * management has one to wake: the trustee may have released every
	 * worker, and a pool taken back with none would leave its items to
	 * nobody. Made before anything changes, so that failing is clean:
	 * cpu_up() then takes the CPU back down, and the trustee keeps the
	 * pools (docs/hotplug.md). */
	for_each_cpu_pool(pool, cpu, i)
	{
		bound[n] = worker_new(pool, false);
		if (!bound[n]) {
			while (n--)
				worker_discard(bound[n]);
			pr_warn("cpu%u: no bound worker could be created: online refused\n", cpu);
			return -ENOMEM;
		}
		n++;
	}
	n = 0;
	for_each_cpu_pool(pool, cpu, i)
	{
		struct worker *worker;

		spin_lock_irq(&pool->lock);
		if (pool->disassociated) {
			/* Idle workers go while the pool is still disassociated
			 * (the idle-list rule); the busy ones rebind later. */
			destroy_idle_workers(pool);
			WRITE_ONCE(pool->disassociated, false);
			trustee_set_state(pool, TRUSTEE_NONE);
			list_for_each_entry(worker, &pool->workers, node)
				if (!(worker->flags & WORKER_RESCUER))
					WRITE_ONCE(worker->flags, worker->flags | WORKER_REBIND);
			/* No worker was counted while it was disassociated. */
			if (WARN_ONCE(atomic_read(&pool->nr_running) != 0,
				      "cpu%u pool %d: nr_running %d while disassociated", cpu,
				      pool->id, atomic_read(&pool->nr_running)))
				atomic_set(&pool->nr_running, 0);
			trustee_news(pool);
		}
		/* In the same locked section: the pool is never associated
		 * without its bound worker. */
		struct thread *th = worker_attach(bound[n++], false);

		spin_unlock_irq(&pool->lock);
		put_thread(th);
	}
	update_cpu_maps();
	return 0;
}

/* The CPU is no longer active: workqueues with a CPU mask send what is
 * queued for it to their other CPUs from now on. What is queued there
 * already goes to the trustee, whose workers keep to the mask
 * (keep_to_wq_cpus). */
int workqueue_cpu_offline(unsigned int cpu)
{
	might_sleep();
	update_cpu_maps();
	return 0;
}

unsigned int workqueue_pool_unbound_workers(unsigned int cpu, enum wq_cpu_pool which)
{
	struct worker_pool *pool = &cpu_pools[cpu][which];
	struct worker *worker;
	unsigned int n = 0;
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	list_for_each_entry(worker, &pool->workers, node)
		if ((worker->flags & (WORKER_UNBOUND | WORKER_RESCUER)) == WORKER_UNBOUND) {
			n++;
		}
	spin_unlock_irqrestore(&pool->lock, flags);
	return n;
}

/* ---- pools -------------------------------------------------------------- */

/* 0, or -ENOMEM (the pool is unusable then; nothing to undo). */
static int init_pool(struct worker_pool *pool, unsigned int cpu, int nice)
{
	pool->busy_hash = kcalloc(BUSY_HASH_SIZE, sizeof(*pool->busy_hash));
	if (!pool->busy_hash)
		return -ENOMEM;
	spin_lock_init(&pool->lock, "pool->lock");
	pool->cpu = cpu;
	pool->attrs.nice = nice;
	if (cpu != WORK_CPU_UNBOUND)
		cpumask_set_cpu(cpu, &pool->attrs.cpumask);
	INIT_LIST_HEAD(&pool->worklist);
	INIT_LIST_HEAD(&pool->idle_list);
	INIT_LIST_HEAD(&pool->workers);
	for (int i = 0; i < BUSY_HASH_SIZE; i++)
		INIT_LIST_HEAD(&pool->busy_hash[i]);
	INIT_LIST_HEAD(&pool->unbound_node);
	timer_setup(&pool->idle_timer, idle_worker_timeout);
	timer_setup(&pool->mayday_timer, pool_mayday_timeout);
	timer_setup(&pool->create_timer, pool_create_timeout);
	timer_setup(&pool->hog_timer, pool_hog_timeout);
	INIT_WORK(&pool->idle_cull_work, idle_cull_fn);
	INIT_DELAYED_WORK(&pool->trustee_work, trustee_fn);
	init_waitqueue_head(&pool->trustee_wait);
	return 0;
}

static bool attrs_equal(const struct workqueue_attrs *a, const struct workqueue_attrs *b)
{
	return a->nice == b->nice && cpumask_equal(&a->cpumask, &b->cpumask);
}

/* A reference to the unbound pool for attrs, with at least one worker:
 * an existing one, an unused one re-keyed, or a new one. PM held. */
static struct worker_pool *get_unbound_pool(const struct workqueue_attrs *attrs)
{
	struct worker_pool *pool, *found = NULL;
	unsigned long flags;

	assert(mutex_owned(&wq_pool_mutex));
	list_for_each_entry(pool, &unbound_pools, unbound_node)
		if (attrs_equal(&pool->attrs, attrs)) {
			found = pool;
			break;
		}
	if (!found) {
		/* Re-key an unused pool whose workers are all gone. */
		list_for_each_entry(pool, &unbound_pools, unbound_node) {
			flags = spin_lock_irqsave(&pool->lock);
			if (pool->refcnt == 0 && pool->nr_workers == 0 && !pool->manager_active) {
				pool->attrs = *attrs;
				found = pool;
			}
			spin_unlock_irqrestore(&pool->lock, flags);
			if (found)
				break;
		}
	}
	if (!found) {
		found = kzalloc(sizeof(*found));
		if (!found || init_pool(found, WORK_CPU_UNBOUND, attrs->nice)) {
			kfree(found);
			return NULL;
		}
		found->attrs = *attrs;
		found->id = next_pool_id++;
		list_add_tail(&found->unbound_node, &unbound_pools);
	}
	flags = spin_lock_irqsave(&found->lock);
	found->refcnt++;
	bool empty = found->nr_workers == 0;

	spin_unlock_irqrestore(&found->lock, flags);
	if (empty && !create_worker(found)) {
		flags = spin_lock_irqsave(&found->lock);
		found->refcnt--;
		spin_unlock_irqrestore(&found->lock, flags);
		return NULL;
	}
	return found;
}

/* A pwq takes a reference to its per-CPU pool. PM held. */
static void get_cpu_pool(struct worker_pool *pool)
{
	assert(mutex_owned(&wq_pool_mutex));
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	pool->refcnt++;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* Drop a pwq's reference. An unused unbound pool's idle workers go at
 * once; an unused per-CPU pool (a nice level nobody uses any more) keeps
 * one, the rest reaped on its CPU (the idle-list rule) by its timer, now.
 * PM held. */
static void put_pool(struct worker_pool *pool)
{
	assert(mutex_owned(&wq_pool_mutex));
	unsigned long flags = spin_lock_irqsave(&pool->lock);
	u64 now = ktime_get_ns();

	if (--pool->refcnt == 0) {
		if (!pool_is_bound(pool))
			destroy_idle_workers(pool);
		else if (too_many_workers(pool, now))
			arm_idle_timer(pool, now);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* Make sure the per-CPU pools of nice exist and that each online CPU's has
 * a worker: 0, or -ENOMEM (what was made stays, unused, for another try).
 * PM and the hotplug lock held, so no CPU comes or goes meanwhile. */
static int get_nice_level(int nice)
{
	struct worker_pool **level;
	unsigned int cpu;

	assert(mutex_owned(&wq_pool_mutex) && cpus_locked());
	if (nice == 0 || nice == HIGHPRI_NICE)
		return 0; /* the standard pools, made at boot */
	level = nice_pools[nice - NICE_MIN];
	if (!level) {
		level = kcalloc(NR_CPUS, sizeof(*level));
		if (!level)
			return -ENOMEM;
		for_each_possible_cpu(cpu) {
			struct worker_pool *pool = kzalloc(sizeof(*pool));

			if (!pool || init_pool(pool, cpu, nice)) {
				kfree(pool);
				goto fail;
			}
			pool->id = next_pool_id++;
			WRITE_ONCE(pool->disassociated, !cpu_online(cpu)); /* until cpu_up() */
			level[cpu] = pool;
		}
		/* The hotplug callbacks walk it from now on. */
		WRITE_ONCE(nice_pools[nice - NICE_MIN], level);
	}
	for_each_online_cpu(cpu)
		if (!READ_ONCE(level[cpu]->nr_workers) && !create_worker(level[cpu]))
			return -ENOMEM;
	return 0;
fail:
	for_each_possible_cpu(cpu)
		if (level[cpu]) {
			kfree(level[cpu]->busy_hash);
			kfree(level[cpu]);
		}
	kfree(level);
	return -ENOMEM;
}

/* ---- workqueues --------------------------------------------------------- */

static struct pool_workqueue *alloc_pwq(struct workqueue_struct *wq, struct worker_pool *pool)
{
	struct pool_workqueue *pwq = kzalloc(sizeof(*pwq));

	if (!pwq)
		return NULL;
	pwq->wq = wq;
	pwq->pool = pool;
	pwq->max_active = (wq_freezing && (wq->flags & WQ_FREEZABLE)) ? 0 : wq->saved_max_active;
	INIT_LIST_HEAD(&pwq->inactive);
	INIT_LIST_HEAD(&pwq->mayday_node);
	list_add_tail(&pwq->pwqs_node, &wq->pwqs);
	return pwq;
}

/* Drop the pool references of retired pwqs that have drained (their
 * memory stays until the workqueue goes: a queuer may still look at one).
 * M and PM held. */
static void release_retired_pwqs(struct workqueue_struct *wq)
{
	struct pool_workqueue *pwq;

	assert_mutex_held(&wq->mutex);
	assert_mutex_held(&wq_pool_mutex);
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		if (!pwq->retired || pwq->released)
			continue;
		unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

		spin_lock(&wq_mayday_lock);
		bool idle = pwq->nr_in_flight == 0 && pwq->nr_barriers == 0 &&
			    list_empty(&pwq->mayday_node);

		spin_unlock_no_resched(&wq_mayday_lock);
		spin_unlock_irqrestore(&pwq->pool->lock, flags);
		if (idle) {
			pwq->released = true;
			put_pool(pwq->pool);
		}
	}
}

/* Why wq cannot take attrs, in words; NULL if it can. */
static const char *attrs_refusal(struct workqueue_struct *wq, const struct workqueue_attrs *attrs)
{
	if (wq->flags & __WQ_ORDERED)
		return "an ordered workqueue keeps its attributes (a second pool would let its "
		       "next item start beside the last one)";
	if (attrs->nice < NICE_MIN || attrs->nice > NICE_MAX)
		return "nice must be -20..19";
	if (!cpumask_intersects(&attrs->cpumask, &cpu_active_mask))
		return "no CPU of the mask is active";
	if ((wq->flags & __WQ_FIXED_CPUS) && !cpumask_subset(&cpu_possible_mask, &attrs->cpumask))
		return "the CPUs of a system per-CPU workqueue are fixed (its users queue work "
		       "on exact CPUs)";
	return NULL;
}

/* Point each CPU's entry of a bound workqueue's map at the pwq its items go
 * to: the CPU's own, if the mask has it and it is active, or a mask
 * covers every possible CPU (an offline CPU's items then go to its pool,
 * and its trustee has them run elsewhere); otherwise one of the mask's
 * active CPUs, spread by CPU number. With none of them active, every CPU
 * maps to itself: items run anywhere rather than nowhere (Linux's fallback
 * for unbound workqueues). PM and M held. */
static void wq_update_cpu_map(struct workqueue_struct *wq)
{
	struct cpumask live;
	unsigned int cpu, n = 0;

	assert(mutex_owned(&wq_pool_mutex) && mutex_owned(&wq->mutex));
	if (wq->flags & WQ_UNBOUND)
		return;
	if (wq->restricted && cpumask_and(&live, &wq->attrs.cpumask, &cpu_active_mask))
		n = cpumask_weight(&live);
	for_each_possible_cpu(cpu) {
		unsigned int to = cpu;

		if (n && !cpumask_test_cpu(cpu, &live))
			to = cpumask_nth(cpu % n, &live);
		WRITE_ONCE(wq->cpu_pwqs[cpu], wq->pool_pwqs[to]);
	}
}

/* A CPU became active or stopped being so: remap the bound workqueues with
 * a CPU mask. May sleep; the hotplug lock held. */
static void update_cpu_maps(void)
{
	struct workqueue_struct *wq;

	WARN_ON_ONCE(!cpus_locked());
	mutex_lock(&wq_pool_mutex);
	list_for_each_entry(wq, &workqueues, list) {
		mutex_lock(&wq->mutex);
		if (wq->restricted)
			wq_update_cpu_map(wq);
		mutex_unlock(&wq->mutex);
	}
	mutex_unlock(&wq_pool_mutex);
}

/* Move a bound workqueue to the per-CPU pools of nice: new pwqs for every
 * possible CPU, returned in *fresh; the caller swaps them in. 0 or -ENOMEM
 * (nothing changed). PM, M and the hotplug lock held. */
static int repool_bound(struct workqueue_struct *wq, int nice, struct pool_workqueue **fresh)
{
	int err = get_nice_level(nice);
	unsigned int cpu;

	assert_mutex_held(&wq_pool_mutex);
	assert_mutex_held(&wq->mutex);
	WARN_ON_ONCE(!cpus_locked());
	for_each_possible_cpu(cpu) {
		if (err)
			break;
		fresh[cpu] = alloc_pwq(wq, cpu_pool(cpu, nice));
		if (fresh[cpu])
			get_cpu_pool(fresh[cpu]->pool);
		else
			err = -ENOMEM;
	}
	if (err)
		for_each_possible_cpu(cpu)
			if (fresh[cpu]) {
				list_del(&fresh[cpu]->pwqs_node);
				put_pool(fresh[cpu]->pool);
				kfree(fresh[cpu]);
			}
	return err;
}

/* Mark a pwq replaced: queuers that still see it take the new one. */
static void retire_pwq(struct pool_workqueue *pwq)
{
	unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

	pwq->retired = true;
	spin_unlock_irqrestore(&pwq->pool->lock, flags);
}

/* PM and M held (wq_freezing is PM's). */
static void set_max_active_locked(struct workqueue_struct *wq, int max_active)
{
	struct pool_workqueue *pwq;

	assert(mutex_owned(&wq_pool_mutex) && mutex_owned(&wq->mutex));
	WRITE_ONCE(wq->saved_max_active, max_active);
	if (!(wq_freezing && (wq->flags & WQ_FREEZABLE)))
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

			pwq_set_max_active(pwq, max_active);
			spin_unlock_irqrestore(&pwq->pool->lock, flags);
		}
}

/* apply_workqueue_attrs() with its checks done: PM, M and the hotplug lock
 * held. 0 or -ENOMEM (nothing changed). */
static int apply_attrs_locked(struct workqueue_struct *wq, const struct workqueue_attrs *attrs)
{
	struct pool_workqueue **fresh = NULL;
	unsigned int cpu;

	assert_mutex_held(&wq_pool_mutex);
	assert_mutex_held(&wq->mutex);
	WARN_ON_ONCE(!cpus_locked());
	if (attrs_equal(&wq->attrs, attrs))
		return 0;
	if (wq->flags & WQ_UNBOUND) {
		struct worker_pool *pool = get_unbound_pool(attrs);
		struct pool_workqueue *pwq = pool ? alloc_pwq(wq, pool) : NULL;

		if (!pwq) {
			if (pool)
				put_pool(pool);
			return -ENOMEM;
		}
		struct pool_workqueue *old = wq->dfl_pwq;

		WRITE_ONCE(wq->dfl_pwq, pwq);
		retire_pwq(old);
	} else if (attrs->nice != wq->attrs.nice) {
		fresh = kcalloc(NR_CPUS, sizeof(*fresh));
		if (!fresh)
			return -ENOMEM;
		int err = repool_bound(wq, attrs->nice, fresh);

		if (err) {
			kfree(fresh);
			return err;
		}
		for_each_possible_cpu(cpu) { /* fresh: the old ones from now on */
			struct pool_workqueue *old = wq->pool_pwqs[cpu];

			wq->pool_pwqs[cpu] = fresh[cpu];
			fresh[cpu] = old;
		}
	}
	wq->attrs = *attrs;
	WRITE_ONCE(wq->restricted, !cpumask_subset(&cpu_possible_mask, &attrs->cpumask));
	wq_update_cpu_map(wq);
	if (fresh) {
		/* Only once the map points at the new ones: a queuer that sees
		 * a retired pwq retries, and must find another. */
		for_each_possible_cpu(cpu)
			retire_pwq(fresh[cpu]);
		kfree(fresh);
	}
	release_retired_pwqs(wq);
	return 0;
}

struct workqueue_attrs *alloc_workqueue_attrs(void)
{
	struct workqueue_attrs *attrs = kzalloc(sizeof(*attrs));

	if (attrs)
		cpumask_copy(&attrs->cpumask, &cpu_possible_mask);
	return attrs;
}

void free_workqueue_attrs(struct workqueue_attrs *attrs)
{
	kfree(attrs);
}

int apply_workqueue_attrs(struct workqueue_struct *wq, const struct workqueue_attrs *attrs)
{
	struct workqueue_attrs want = *attrs;
	int err = -EINVAL;

	might_sleep();
	cpumask_and(&want.cpumask, &want.cpumask, &cpu_possible_mask);
	cpus_read_lock();
	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	const char *why = attrs_refusal(wq, &want);

	if (why)
		pr_warn("apply_workqueue_attrs(%s, nice %d): refused: %s\n", wq->name, want.nice,
			why);
	else
		err = apply_attrs_locked(wq, &want);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	cpus_read_unlock();
	return err;
}

void workqueue_get_attrs(struct workqueue_struct *wq, struct workqueue_attrs *attrs)
{
	mutex_lock(&wq->mutex);
	*attrs = wq->attrs;
	mutex_unlock(&wq->mutex);
}

int workqueue_change(const char *name, const struct wq_change *ch, const char **why)
{
	struct workqueue_struct *wq;
	int err = -ENOENT;

	might_sleep();
	*why = "no workqueue of that name (see 'wq')";
	if (ch->max_active && (ch->max_active < 1 || ch->max_active > WQ_MAX_ACTIVE)) {
		*why = "max_active must be 1..512";
		return -EINVAL;
	}
	cpus_read_lock();
	mutex_lock(&wq_pool_mutex);
	list_for_each_entry(wq, &workqueues, list) {
		if (strcmp(wq->name, name))
			continue;
		mutex_lock(&wq->mutex);
		struct workqueue_attrs want = wq->attrs;

		if (ch->set_nice)
			want.nice = ch->nice;
		if (ch->set_cpus)
			cpumask_and(&want.cpumask, &ch->cpus, &cpu_possible_mask);
		*why = NULL;
		if (wq->destroying || wq->nr_drainers)
			*why = "it is being drained or destroyed";
		else if (ch->max_active && (wq->flags & __WQ_ORDERED))
			*why = "an ordered workqueue runs one item at a time";
		else if (ch->set_nice || ch->set_cpus)
			*why = attrs_refusal(wq, &want);
		err = *why ? -EINVAL : apply_attrs_locked(wq, &want);
		if (err == -ENOMEM)
			*why = "out of memory";
		else if (!err && ch->max_active)
			set_max_active_locked(wq, ch->max_active);
		mutex_unlock(&wq->mutex);
		break;
	}
	mutex_unlock(&wq_pool_mutex);
	cpus_read_unlock();
	return err;
}

static int clamp_max_active(const char *name, int max_active)
{
	if (max_active <= 0)
		return WQ_DFL_ACTIVE;
	if (max_active > WQ_MAX_ACTIVE) {
		pr_warn("workqueue %s: max_active %d is over %d; using %d\n", name, max_active,
			WQ_MAX_ACTIVE, WQ_MAX_ACTIVE);
		return WQ_MAX_ACTIVE;
	}
	return max_active;
}

static struct worker *create_rescuer(struct workqueue_struct *wq)
{
	struct worker *rescuer = kzalloc(sizeof(*rescuer));

	if (!rescuer)
		return NULL;
	rescuer->rescue_wq = wq;
	WRITE_ONCE(rescuer->flags, WORKER_PREP | WORKER_RESCUER);
	rescuer->id = -1;
	INIT_LIST_HEAD(&rescuer->scheduled);
	INIT_LIST_HEAD(&rescuer->idle_entry);
	INIT_LIST_HEAD(&rescuer->node);
	INIT_LIST_HEAD(&rescuer->hentry);
	rescuer->thread = kthread_create(rescuer_thread, rescuer, "kworker/R-%s", wq->name);
	if (!rescuer->thread) {
		kfree(rescuer);
		return NULL;
	}
	kthread_set_data(rescuer->thread, rescuer);
	wake_up_thread(rescuer->thread);
	return rescuer;
}

/* Drop the pool references of wq's current pwqs (retired ones:
 * release_retired_pwqs). PM and M held. */
static void put_pools(struct workqueue_struct *wq)
{
	unsigned int cpu;

	assert_mutex_held(&wq->mutex);
	assert_mutex_held(&wq_pool_mutex);
	if (wq->dfl_pwq)
		put_pool(wq->dfl_pwq->pool);
	for_each_possible_cpu(cpu)
		if (wq->pool_pwqs[cpu])
			put_pool(wq->pool_pwqs[cpu]->pool);
}

static void free_wq(struct workqueue_struct *wq)
{
	struct pool_workqueue *pwq, *n;

	lockdep_unregister_key(&wq->lockdep_key);
	list_for_each_entry_safe(pwq, n, &wq->pwqs, pwqs_node)
		kfree(pwq);
	wq->magic = WQ_MAGIC_DEAD;
	kfree(wq);
}

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active)
{
	struct workqueue_struct *wq = kzalloc(sizeof(*wq));
	unsigned int cpu;

	might_sleep();
	if (!wq)
		return NULL;
	if (flags & __WQ_ORDERED) {
		flags |= WQ_UNBOUND;
		max_active = 1;
	}
	strscpy(wq->name, name, sizeof(wq->name));
	/* A class of its own, dead at free_wq(). */
	lockdep_init_map(&wq->lockdep_map, wq->name, &wq->lockdep_key, LD_WQ);
	wq->flags = flags;
	wq->saved_max_active = clamp_max_active(name, max_active);
	mutex_init(&wq->mutex, "wq->mutex");
	mutex_init(&wq->flush_mutex, "wq->flush_mutex");
	spin_lock_init(&wq->flush_lock, "wq->flush_lock");
	init_waitqueue_head(&wq->flush_wait);
	INIT_LIST_HEAD(&wq->pwqs);
	INIT_LIST_HEAD(&wq->maydays);
	INIT_LIST_HEAD(&wq->list);
	wq->magic = WQ_MAGIC;

	wq->attrs.nice = (flags & WQ_HIGHPRI) ? HIGHPRI_NICE : 0;
	cpumask_copy(&wq->attrs.cpumask, &cpu_possible_mask);

	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	if (flags & WQ_UNBOUND) {
		struct worker_pool *pool = get_unbound_pool(&wq->attrs);

		wq->dfl_pwq = pool ? alloc_pwq(wq, pool) : NULL;
		if (!wq->dfl_pwq) {
			if (pool)
				put_pool(pool);
			goto fail;
		}
	} else {
		/* The standard pools of its nice: every CPU maps to itself. */
		for_each_possible_cpu(cpu) {
			struct pool_workqueue *pwq = alloc_pwq(wq, cpu_pool(cpu, wq->attrs.nice));

			if (!pwq)
				goto fail;
			get_cpu_pool(pwq->pool);
			wq->pool_pwqs[cpu] = wq->cpu_pwqs[cpu] = pwq;
		}
	}
	if ((flags & WQ_MEM_RECLAIM) && !(wq->rescuer = create_rescuer(wq)))
		goto fail;
	list_add_tail(&wq->list, &workqueues);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	return wq;
fail:
	put_pools(wq);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	free_wq(wq);
	return NULL;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	might_sleep();
	if (WARN_ONCE(!wq || wq->magic != WQ_MAGIC,
		      "destroy_workqueue of a destroyed workqueue (%p)", wq))
		return;
	/* For the validator: it waits for every item. */
	bool reported =
		lock_wait_for(&wq->lockdep_map, &wq->lockdep_map, __builtin_return_address(0));
	if (is_chained_work(wq)) {
		if (!reported)
			report_self_wait(
				"destroy_workqueue(%s) from its own item %pS would wait for "
				"itself forever",
				wq->name, current_worker()->current_func);
		return;
	}
	mutex_lock(&wq->mutex);
	int busy = wq_nr_in_flight(wq, ITEMS_ONLY); /* a returned flush_work's barrier is no misuse
						     */

	WRITE_ONCE(wq->destroying, true);
	mutex_unlock(&wq->mutex);
	int timers = atomic_read(&wq->nr_timers);

	WARN_ONCE(busy || timers,
		  "destroy_workqueue(%s) with %d items queued or running and %d delayed: draining "
		  "first",
		  wq->name, busy, timers);
	drain_workqueue(wq);
	if (atomic_read(&wq->nr_timers)) {
		/* Their timers will fire into this workqueue: keep it (marked
		 * destroying, so they are refused with a warning) rather than
		 * let them write into freed memory. */
		pr_err("destroy_workqueue(%s): %d delayed items still armed; the workqueue is "
		       "leaked\n",
		       wq->name, atomic_read(&wq->nr_timers));
		return;
	}
	if (wq->rescuer) {
		kthread_stop(wq->rescuer->thread);
		kfree(wq->rescuer);
	}
	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	list_del(&wq->list);
	release_retired_pwqs(wq);
	put_pools(wq);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	free_wq(wq);
}

void workqueue_set_max_active(struct workqueue_struct *wq, int max_active)
{
	if (WARN_ONCE(wq->flags & __WQ_ORDERED,
		      "workqueue_set_max_active(%s, %d) on an ordered workqueue: refused", wq->name,
		      max_active))
		return;
	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	set_max_active_locked(wq, clamp_max_active(wq->name, max_active));
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
}

/* ---- freezing ----------------------------------------------------------- */

enum freeze_op { THAW, FREEZE };

/* Set every freezable pwq's max_active (FREEZE: 0); count the busy ones. PM held. */
static int freezable_set(enum freeze_op op)
{
	struct workqueue_struct *wq;
	struct pool_workqueue *pwq;
	int busy = 0;

	assert_mutex_held(&wq_pool_mutex);
	list_for_each_entry(wq, &workqueues, list) {
		if (!(wq->flags & WQ_FREEZABLE))
			continue;
		mutex_lock(&wq->mutex);
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

			pwq_set_max_active(pwq, op == FREEZE ? 0 : wq->saved_max_active);
			busy += pwq->nr_active;
			spin_unlock_irqrestore(&pwq->pool->lock, flags);
		}
		mutex_unlock(&wq->mutex);
	}
	return busy;
}

int workqueue_freeze(u64 timeout_ns)
{
	u64 deadline = ktime_get_ns() + timeout_ns;

	might_sleep();
	mutex_lock(&wq_pool_mutex);
	if (wq_freezing) {
		mutex_unlock(&wq_pool_mutex);
		pr_warn("workqueue_freeze: already frozen\n");
		return -EBUSY;
	}
	wq_freezing = true;
	int busy = freezable_set(FREEZE);

	mutex_unlock(&wq_pool_mutex);
	while (busy) {
		if (ktime_get_ns() > deadline) {
			pr_warn("workqueue_freeze: %d freezable items still running; thawing\n",
				busy);
			workqueue_thaw();
			return -EBUSY;
		}
		msleep(1);
		mutex_lock(&wq_pool_mutex);
		busy = freezable_set(FREEZE);
		mutex_unlock(&wq_pool_mutex);
	}
	return 0;
}

void workqueue_thaw(void)
{
	might_sleep();
	mutex_lock(&wq_pool_mutex);
	if (wq_freezing) {
		wq_freezing = false;
		freezable_set(THAW);
	}
	mutex_unlock(&wq_pool_mutex);
}

/* ---- observability ------------------------------------------------------ */

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

	mutex_lock(&wq_pool_mutex);
	for_each_pool(stats_check_pool, &now);
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

void workqueue_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (init_pool(&cpu_pools[cpu][WQ_POOL_NORMAL], cpu, 0) ||
		    init_pool(&cpu_pools[cpu][WQ_POOL_HIGHPRI], cpu, HIGHPRI_NICE))
			panic("workqueue: no memory for the pools of cpu%u", cpu);
		cpu_pools[cpu][WQ_POOL_NORMAL].id = next_pool_id++;
		cpu_pools[cpu][WQ_POOL_HIGHPRI].id = next_pool_id++;
	}
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			for (int i = 0; i < NR_STD_POOLS; i++)
				WRITE_ONCE(cpu_pools[cpu][i].disassociated, true); /* until cpu_up()
										    */
	for_each_online_cpu(cpu)
		for (int i = 0; i < NR_STD_POOLS; i++)
			if (!create_worker(&cpu_pools[cpu][i]))
				panic("workqueue: cannot create the first worker of cpu%u", cpu);
	system_wq = alloc_workqueue("events", __WQ_FIXED_CPUS, 0);
	system_highpri_wq = alloc_workqueue("events_highpri", WQ_HIGHPRI | __WQ_FIXED_CPUS, 0);
	system_long_wq = alloc_workqueue("events_long", __WQ_FIXED_CPUS, 0);
	system_unbound_wq = alloc_workqueue("events_unbound", WQ_UNBOUND, WQ_MAX_ACTIVE);
	trustee_wq =
		alloc_workqueue("trustee", WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, WQ_MAX_ACTIVE);
	if (!system_wq || !system_highpri_wq || !system_long_wq || !system_unbound_wq ||
	    !trustee_wq)
		panic("workqueue: cannot allocate the system workqueues");
	if (wq_lab_no_reentrancy_guard)
		pr_warn("LAB: the non-reentrancy guard is OFF: work items may run on two workers "
			"at once\n");
	if (wq_lab_late_last_pool)
		pr_warn("LAB: a planted race: items run by a trustee's workers publish their "
			"last pool late\n");
	INIT_DELAYED_WORK(&stats_work, stats_fn);
	queue_delayed_work(system_highpri_wq, &stats_work, STATS_INTERVAL_NS);
}
