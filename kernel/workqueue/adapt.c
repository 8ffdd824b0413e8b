/* kernel/workqueue/adapt.c - concurrency management that adapts: the
 * policies that decide when a pool makes a worker, when it treats a
 * runner as a CPU hog, and when it lets idle workers go.
 *   the hold and the pace   a worker left with no idle one behind it
 *                           waits before it makes one (creation_deferred)
 *   CPU hogs                a runner holding its pool while work waits is
 *                           marked CPU-intensive (watch_for_hog, the hog
 *                           timer)
 *   reaping                 idle workers beyond the need go, sooner the
 *                           further over it the pool is (reaping_watch,
 *                           idle_cull_fn)
 * workqueue.h ("Concurrency that adapts", "Reaping idle workers") and
 * docs/workqueue.md say why each is as it is. Called by worker.c,
 * manage.c, queue.c and pool.c under pool->lock; its timers' callbacks are
 * set up by pool.c.
 * It changes only the pool's adapting fields (internal.h) and, through
 * worker.c, a marked hog's flags and the idle workers it destroys.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/params.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/workqueue/internal.h"

#define MAX_IDLE_WORKERS_RATIO 4 /* keep 1 idle worker per 4 busy ones */
#define MIN_IDLE_WORKERS       2
#define REAP_MIN_NS	       (50 * NSEC_PER_MSEC) /* the shortest idle life, far over need */
#define LONG_BLOCK_FACTOR      10 /* a hold that expired: no holds for 10 holds' time */
#define PACE_FIRST_NS	       (200 * NSEC_PER_USEC)
#define PACE_QUIET_NS	       (100 * NSEC_PER_MSEC) /* no creation this long: a new storm */
#define HOG_MAX_BACKOFF	       4 /* in a long batch, look for hogs every 16 thresholds */

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
unsigned int wq_cpu_intensive_thresh_us = 10000;
PARAM_UINT(wq_cpu_intensive_thresh_us, wq_cpu_intensive_thresh_us, 0, 10000000,
	   "us an item may stay the pool's runner while others wait; "
	   "then it runs as CPU-intensive (0: never)");

/* ---- reaping: how many idle workers a pool needs ------------------------ */

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
bool too_many_workers(struct worker_pool *pool, u64 now)
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

/* (Re)arm the reaping timer for at. pool->lock held. */
void arm_idle_timer(struct worker_pool *pool, u64 at)
{
	assert_spin_locked(&pool->lock);
	pool->idle_expires = at;
	mod_timer(&pool->idle_timer, at);
}

/* A worker just went idle (worker_enter_idle()) and the pool is over its
 * need (too_many_workers()): have the reaping timer fire when the oldest
 * idle worker's life ends, at the pool's excess now (the further over the
 * need, the sooner), or when the recent peak that keeps them is forgotten,
 * as idle_cull_fn() will see it. A timer armed while the pool was only a
 * little over its need, or with a longer wq_idle_timeout_ms, is brought
 * forward; never put off. pool->lock held. */
void reaping_watch(struct worker_pool *pool, u64 now)
{
	assert_spin_locked(&pool->lock);
	struct worker *oldest = list_last_entry(&pool->idle_list, struct worker, idle_entry);
	u64 at = oldest->last_active +
		 idle_life_ns(pool->nr_idle - idle_needed(pool, now, NEED_NOW));

	if (pool->nr_idle <= idle_needed(pool, now, NEED_WITH_PEAK))
		at = max(at,
			 pool->peak_at + (u64)READ_ONCE(wq_idle_timeout_ms) * NSEC_PER_MSEC + 1);
	if (!timer_pending(&pool->idle_timer) || at < pool->idle_expires)
		arm_idle_timer(pool, at);
}

/* The reaping work item (queued by the pool's idle timer): destroy the
 * idle workers beyond the need, oldest first, each once idle for its life
 * (idle_life_ns()), or at once if no workqueue uses the pool. */
void idle_cull_fn(struct work_struct *work)
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
void idle_worker_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, idle_timer);

	if (pool_is_bound(pool))
		queue_work_on(pool->cpu, system_wq, &pool->idle_cull_work);
	else
		queue_work(system_unbound_wq, &pool->idle_cull_work);
}

/* ---- creation that adapts: the hold and the pace --------------------------
 *
 * A worker about to take work with no idle worker left behind it would
 * make one first (the manager role), so that a blocking item always has a
 * successor. Two policies may make it wait, idle, with the pool's create
 * timer armed for when it may make one (the timer wakes it when due; a
 * block does not wake it while it is the only idle worker, and new work
 * may wake it to look again):
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
bool creation_deferred(struct worker_pool *pool)
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
	 * with nothing running, those not marked as hogs are blocked (or in
	 * a WQ_CPU_INTENSIVE item, counted here all the same), and the hold
	 * waits for them. None: nobody is coming back. */
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
void pace_after_create(struct worker_pool *pool)
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
void pool_create_timeout(struct timer_list *t)
{
	struct worker_pool *pool = container_of(t, struct worker_pool, create_timer);

	spin_lock(&pool->lock);
	if (need_more_worker(pool))
		wake_up_worker(pool);
	else
		pool->create_waiting = false; /* held, and no worker was needed */
	spin_unlock_no_resched(&pool->lock);
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
void watch_for_hog(struct worker_pool *pool)
{
	unsigned int thresh = READ_ONCE(wq_cpu_intensive_thresh_us);

	assert_spin_locked(&pool->lock);
	if (!thresh || !pool->hog_watched || pool->disassociated)
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
void pool_hog_timeout(struct timer_list *t)
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
