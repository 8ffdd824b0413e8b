/* kernel/workqueue/internal.h - what the parts of the workqueue share: its
 * four structs, the pool predicates, and the calls one part makes into
 * another. Only the .c files beside it include it; everything else uses
 * kernel/workqueue.h, whose essay says which part does what:
 *   worker.c   workers: the idle list, the scheduler hooks, executing work,
 *              what ps shows of a worker
 *   manage.c   creating workers, the manager, maydays, the rescuer
 *   adapt.c    concurrency that adapts: the hold, the pace, CPU hogs, reaping
 *   queue.c    queueing, delayed work, grabbing a pending item
 *   flush.c    flush colours, flushing, draining, cancelling
 *   trustee.c  CPU hotplug: the trustee, the online and offline steps
 *   pool.c     pools, workqueues and their attributes, freezing, init
 *   stats.c    statistics, the stall watch, the dump for `wq`
 *   bh.c       BH pools: runs at interrupt exit and in the idle loop, the
 *              budget and its continuation, the hotplug drain
 * What one part alone uses stays static in it.
 *
 * Field legend: I = set at creation; L = pool->lock; A = atomic;
 * W = the worker itself; M = wq->mutex; PM = wq_pool_mutex;
 * F = wq->flush_lock; MD = wq_mayday_lock; H = the hotplug lock.
 * Lock order (checked by the lock validator, kernel/lockdep.h): wq_pool_mutex
 * > wq->mutex > pool->lock > wq_mayday_lock and wq->flush_lock > run-queue
 * and wait-queue locks.
 *
 * Policy lives in small predicates, as in Linux:
 *   need_more_worker       work is pending and no worker runs
 *   may_start_working      an idle worker is left to take over if we block
 *   keep_working           work is pending and we are the only one running
 *   need_to_create_worker  work waits, nobody runs it, nobody is idle
 *   too_many_workers       more idle workers than the pool needs (adapt.c)
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
 * destroy_worker() (worker.c) check the rule.
 */
#ifndef KERNEL_WORKQUEUE_INTERNAL_H
#define KERNEL_WORKQUEUE_INTERNAL_H

#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/hardirq.h"
#include "kernel/lockdep.h"
#include "kernel/mutex.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"

#define NR_STD_POOLS	   WQ_NR_CPU_POOLS /* per CPU: normal, high priority */
#define HIGHPRI_NICE	   (-20)
#define NR_NICE_LEVELS	   (NICE_MAX - NICE_MIN + 1) /* per-CPU pools of any nice (pool.c) */
#define PACE_FREE_WORKERS  64 /* made back to back before creation is paced (adapt.c) */
#define CREATE_COOLDOWN_MS 10 /* between failed creation attempts */
/* pool->trustee_state, also the b value of TR_TRUSTEE trace events (a
 * move to TRUSTEE_NONE is the hand-back when the CPU is online again). */
#define TRUSTEE_NONE	  0	     /* the CPU is online: no trustee */
#define TRUSTEE_IN_CHARGE 1	     /* CPU offline, the trustee runs the pool */
#define TRUSTEE_DONE	  2	     /* CPU offline, work gone, workers released */
#define WQ_MAGIC	  0x57514d51 /* "WQMQ" while alive */
#define WQ_MAGIC_DEAD	  0x64656164

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

#define BUSY_HASH_SIZE 32 /* a power of two */

struct worker_pool {
	struct spinlock lock;
	unsigned int cpu; /* I: WORK_CPU_UNBOUND for unbound pools */
	int id;		  /* I */
	/* A BH pool (bh.c): its items run in its CPU's BH context, by its one
	 * pseudo-worker (bh_worker, no thread) at interrupt exit or in the
	 * idle loop. It is in no list of pools the trustee, the reaper or the
	 * manager walk: those fields stay unused. */
	bool bh;			/* I */
	unsigned int bh_index;		/* I: its bit in the CPU's bh.pending */
	struct worker *bh_worker;	/* I */
	bool bh_running;		/* L: a run has the pseudo-worker (one at a time) */
	bool bh_deferred;		/* L: a run left work over its budget:
					   bh_continue owns it until it is empty */
	struct work_struct bh_continue; /* on system_wq, at the pool's CPU */
	struct work_struct bh_drain;	/* on bh_drain_wq, at a live CPU */
	u64 nr_bh_drains;		/* L: drain runs, while its CPU was offline */
	u64 nr_bh_continued;		/* L: continuation items run */
	struct workqueue_attrs attrs;	/* PM+L: unbound pools are re-keyed when unused */
	struct list_head worklist;	/* L */
	struct list_head idle_list;	/* L: most recently idle first */
	struct list_head workers;	/* L: all of them, and an attached rescuer */
	/* The workers running an item, by the item's address: the
	 * non-reentrancy lookup on every item must not walk idle workers (a
	 * storm leaves hundreds until they are reaped). BUSY_HASH_SIZE
	 * buckets, allocated with the pool (I), their lists under L; not in
	 * the pool itself, which exists for each of NR_CPUS. */
	struct list_head *busy_hash;
	unsigned int nr_workers; /* L: rescuers not counted */
	unsigned int nr_idle;	 /* L */
	/* A: counted workers running. Changed by a counted worker's own flag
	 * changes (under L) and its sleep/wake hooks (without L, on the
	 * pool's CPU only), by the hog timer's mark of a runner (under L, on
	 * the pool's CPU: mark_hogs()), and zeroed under L by
	 * workqueue_cpu_dying() on the dying CPU. A counted worker runs on
	 * the pool's CPU, except between the CPU leaving cpu_online_mask and
	 * workqueue_cpu_dying(), when the scheduler may run it elsewhere:
	 * its hooks leave the count alone then, and L orders its flag
	 * changes with the zeroing. While the pool is disassociated no
	 * worker is counted: it stays 0. */
	atomic_t nr_running;
	bool hog_watched;	     /* I: per-CPU, not BH (a BH run has its own budget):
					the hog timer watches its runners (adapt.c) */
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
					       changes, but for the dying step's (nr_running
					       zeroed) and the hog timer's mark (on the pool's
					       CPU); the hooks read it without L */
	bool sleeping;			    /* W: sleeping() ran */
	bool hog;			    /* L: this item held the pool: CPU-intensive now */
	u64 current_seq;		    /* L: the current item's number (pool->nr_started) */
	unsigned int bh_run_cpu;	    /* L: a BH pseudo-worker: the CPU of its run */
	int bh_item_count;		    /* L: ... and the preemption count its items start
					       with (BH_OFFSET on top of what the run came in
					       on: process_one_work() checks it) */
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
	int saved_max_active; /* M; flushes read it without (READ_ONCE) */
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
	u64 work_gen;			   /* F: generation of new items; read without it by
					      waiting flushers */
	unsigned int work_color;	   /* F: work_gen % WORK_NR_COLORS, kept beside it
					      for queueing (which reads it without F): a
					      division by 15 on every queueing otherwise */
	u64 done_gen;			   /* F: every older generation has drained; read
					      without it by waiting flushers */
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

/* The pools and the lists of them (pool.c; bh.c has the BH pools). */
extern struct worker_pool cpu_pools[NR_CPUS][NR_STD_POOLS];
extern struct worker_pool bh_pools[NR_CPUS][NR_STD_POOLS];
extern struct mutex wq_pool_mutex;
extern struct list_head unbound_pools; /* PM; pools are never freed, only re-keyed */
extern struct list_head workqueues;    /* PM */
extern struct spinlock wq_mayday_lock;
/* The BH drains' own workqueue (bh.c). */
extern struct workqueue_struct *bh_drain_wq;
/* The trustees' own workqueue (pool.c says why it is as it is). */
extern struct workqueue_struct *trustee_wq;
/* The next of cpu's pools after *i (start at 0): the standard two, then one
 * per nice level made so far (pool.c). */
struct worker_pool *next_cpu_pool(unsigned int cpu, unsigned int *i);

#define for_each_cpu_pool(pool, cpu, i) for ((i) = 0; ((pool) = next_cpu_pool((cpu), &(i)));)

/* ---- the pool predicates ---------------------------------------------- */

static inline bool pool_is_bound(const struct worker_pool *pool)
{
	return pool->cpu != WORK_CPU_UNBOUND;
}

static inline bool need_more_worker(struct worker_pool *pool)
{
	return !list_empty(&pool->worklist) && !atomic_read(&pool->nr_running);
}

static inline bool may_start_working(struct worker_pool *pool)
{
	return pool->nr_idle > 0;
}

static inline bool keep_working(struct worker_pool *pool)
{
	return !list_empty(&pool->worklist) && atomic_read(&pool->nr_running) <= 1;
}

static inline bool need_to_create_worker(struct worker_pool *pool)
{
	return need_more_worker(pool) && !may_start_working(pool);
}

static inline unsigned int count_list(struct list_head *head)
{
	struct list_head *pos;
	unsigned int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/* ---- worker.c: workers, the scheduler hooks, executing work ------------ */

/* The hooks that make a thread a worker (sched_hook_add()); their data is
 * its struct worker. */
extern const struct sched_hook_ops wq_worker_hooks;

/* The calling thread's worker struct (its hook's data), or NULL if it is
 * not a worker. Inline: flush_work() of an idle item asks, and the call
 * would be a twentieth of its cost. */
static inline struct worker *current_worker(void)
{
	/* An interrupt handler is no worker's item, whatever it interrupted;
	 * a BH run's item is its pool's pseudo-worker's. */
	if (unlikely(in_hardirq()))
		return NULL;
	if (unlikely(in_bh_run()))
		return this_cpu_read(bh.worker);
	return sched_hook_data(current, &wq_worker_hooks);
}

int worker_thread(void *arg);
void wake_up_worker(struct worker_pool *pool);
void worker_set_flags(struct worker *worker, unsigned int flags);
void worker_clr_flags(struct worker *worker, unsigned int flags);
void worker_enter_idle(struct worker *worker);
void destroy_worker(struct worker *worker);
void destroy_idle_workers(struct worker_pool *pool);
bool is_chained_work(struct workqueue_struct *wq);
struct worker *find_worker_executing(struct worker_pool *pool, struct work_struct *w);
void process_scheduled_works(struct worker *worker);
/* Take the worklist's first item (with the flush barriers linked to it)
 * and run it, then whatever it scheduled. pool->lock held, dropped inside. */
void worker_run_first(struct worker *worker);
void pwq_set_max_active(struct pool_workqueue *pwq, int max_active);
/* Where an item was when it left flight: counted in nr_active (on the
 * worklist or running) or waiting over max_active. */
enum work_slot { WORK_WAS_INACTIVE, WORK_WAS_ACTIVE };
void pwq_dec_nr_in_flight(struct pool_workqueue *pwq, unsigned int color, enum work_slot slot);

/* ---- manage.c: creating workers, the manager, maydays, the rescuer ----- */

struct worker *worker_new(struct worker_pool *pool, bool created_unbound);
void worker_discard(struct worker *worker);
struct thread *worker_attach(struct worker *worker, bool created_unbound);
bool create_worker(struct worker_pool *pool);
bool manage_workers(struct worker_pool *pool);
void mayday_watch(struct worker_pool *pool);
void assert_mayday_armed(struct worker_pool *pool);
void pool_mayday_timeout(struct timer_list *t);
struct worker *create_rescuer(struct workqueue_struct *wq);

/* ---- adapt.c: the hold, the pace, CPU hogs, reaping -------------------- */

/* A worker leaves the idle list to work: remember the pool's busiest
 * moment (the need that reaping keeps, adapt.c). On every batch a worker
 * starts: inline. pool->lock held. */
static inline void note_busy(struct worker_pool *pool)
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

bool too_many_workers(struct worker_pool *pool, u64 now);
void arm_idle_timer(struct worker_pool *pool, u64 at);
void reaping_watch(struct worker_pool *pool, u64 now);
void idle_cull_fn(struct work_struct *work);
void idle_worker_timeout(struct timer_list *t);
bool creation_deferred(struct worker_pool *pool);
void pace_after_create(struct worker_pool *pool);
void pool_create_timeout(struct timer_list *t);
void watch_for_hog(struct worker_pool *pool);
void pool_hog_timeout(struct timer_list *t);

/* ---- queue.c: queueing, delayed work, grabbing a pending item ---------- */

bool work_valid(struct work_struct *w, const char *op);
bool __queue_work(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w);
/* What a work item is, for grabbing and cancelling: a delayed one has a
 * timer to stop as well. */
enum work_kind { WORK_PLAIN, WORK_DELAYED };
int grab_pending(struct work_struct *w, enum work_kind kind, unsigned long *irqflags);

/* ---- flush.c: flush colours, flushing, draining, cancelling ------------ */

void flush_advance(struct workqueue_struct *wq);

/* An item of this colour left flight. On every item's end: inline. Any
 * context. */
static inline void color_done(struct workqueue_struct *wq, unsigned int color)
{
	if (atomic_dec_return(&wq->nr_color[color]) != 0)
		return;
	unsigned long flags = spin_lock_irqsave(&wq->flush_lock);

	flush_advance(wq);
	spin_unlock_irqrestore(&wq->flush_lock, flags);
}

/* flush_work()'s barrier item runs this; worker.c tells barriers from items
 * by it (a barrier waiting among inactive items takes no max_active slot). */
void wq_barrier_func(struct work_struct *w);
static inline bool work_is_barrier(struct work_struct *w)
{
	return w->func == wq_barrier_func;
}

/* What wq_nr_in_flight() counts: items only, or flush_work barriers too. */
enum in_flight_count { ITEMS_ONLY, ITEMS_AND_BARRIERS };
int wq_nr_in_flight(struct workqueue_struct *wq, enum in_flight_count what);

/* A flush that would wait for itself: refused (flush.c's fast paths, and
 * destroy_workqueue()), reported once per call site like the WARN_ONCE
 * they replaced (a test's ktest_expect_bugs() re-arms them), in the
 * validator's form, and only if the validator did not report this very
 * call. */
#define report_self_wait(fmt, ...)                                                                 \
	do {                                                                                       \
		static bool __done __section(".data.once");                                        \
		if (!__atomic_exchange_n(&__done, true, __ATOMIC_RELAXED))                         \
			lockdep_report_misuse(fmt, ##__VA_ARGS__);                                 \
	} while (0)

/* ---- trustee.c: CPU hotplug --------------------------------------------- */

void trustee_news(struct worker_pool *pool);
void trustee_fn(struct work_struct *work);
bool worker_maybe_rebind(struct worker *worker);

/* ---- bh.c: BH pools -------------------------------------------------------- */

/* Make an initialised pool BH pool number index of its CPU (pool.c's
 * workqueue_init(); -ENOMEM). */
int init_bh_pool(struct worker_pool *pool, unsigned int index);
/* The dying CPU's BH pools go to the drain (trustee.c's dying step). */
void bh_cpu_dying(unsigned int cpu);
/* Work waits in a BH pool: have it run (kick_bh_pool()). False if the pool
 * is its offline CPU's: then the caller queues pool->bh_drain on a live
 * CPU once it has dropped pool->lock (queue_bh_drain()). pool->lock held. */
bool kick_bh_pool(struct worker_pool *pool);
void queue_bh_drain(struct worker_pool *pool);

/* ---- pool.c and stats.c ------------------------------------------------- */

void update_cpu_maps(void);
/* Start the periodic statistics work (stats.c), from workqueue_init(). */
void workqueue_stats_start(void);

#endif
