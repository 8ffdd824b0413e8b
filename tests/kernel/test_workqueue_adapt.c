/* tests/kernel/test_workqueue_adapt.c - suite wq_adapt: concurrency
 * management that adapts (docs/workqueue.md): the creation hold, the pace,
 * reaping in proportion, CPU-hog detection, the bound on workers.
 *
 * Each case reaches its state by construction (items blocked on a gate
 * the case opens, a spinner it stops) and sets the policy it exercises to
 * a value no busy host can defeat (a hold of 100 s), then restores it.
 */
#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

#define SPIN_LIMIT_NS (60 * NSEC_PER_SEC) /* a spinner gives up after this, test or not */

static struct wq_pool_stats pool_now(unsigned int cpu, enum wq_cpu_pool which)
{
	struct wq_pool_stats st;

	workqueue_pool_stats(cpu, which, &st);
	return st;
}

/* Gated items (ktest_gate_works_alloc()): open the gate, wait for them,
 * free them. */
static void gated_finish(struct ktest_gate_work *g, unsigned int n)
{
	ktest_gate_works_release(g, n);
	kfree(g);
}

/* ---- the hold ------------------------------------------------------------- */

/* Items that block while a hold lasts (100 s here): the pool's idle
 * workers take them, the last one waits instead of making a worker, and
 * when the blocked ones come back they run the rest. No worker is made.
 *
 * A hold starts when a counted worker blocks and leaves work waiting (the
 * sleeping hook stamps it only then). The case once began with an item
 * blocking alone: no stamp, so the first worker to find no spare looked
 * at the pool's previous stamp, which on a boot over 100 s old was over a
 * hold ago ("the blocks are long ones"), and made a worker: 65 made where
 * 63 were expected. Now the first item queues the second before it
 * blocks. The pool is given idle workers first (gated items let go), so
 * that the first two items start without a spare being made.
 * CPU-hog detection is off meanwhile: a worker marked as a hog on its way
 * to the gate (its vCPU preempted by the host, say) counts as running, its
 * block stamps nothing, and the hold does not wait for it. */
#define HOLD_PRIME 4

static struct ktest_gate hold_gate;
static struct ktest_gate_work *hold_rest; /* the items after the first */
static unsigned int hold_cpu;

static void hold_first_fn(struct work_struct *w)
{
	queue_work_on(hold_cpu, system_highpri_wq, &hold_rest[0].work);
	ktest_gate_pass(&hold_gate);
}

static void a_block_within_the_hold_makes_no_worker(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), hold = wq_create_hold_us;
	unsigned int thresh = wq_cpu_intensive_thresh_us;
	static struct work_struct first;
	struct ktest_gate prime_gate;

	hold_cpu = cpu;
	ktest_gate_init(&prime_gate);
	ktest_gate_init(&hold_gate);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, 0);
	struct ktest_gate_work *p = ktest_gate_works_alloc(HOLD_PRIME, &prime_gate);

	KT_ASSERT_NOT_NULL(t, p);
	for (unsigned int i = 0; i < HOLD_PRIME; i++)
		queue_work_on(cpu, system_highpri_wq, &p[i].work);
	KT_GATE_WAIT_ARRIVED(t, &prime_gate, HOLD_PRIME);
	gated_finish(p, HOLD_PRIME);
	WRITE_ONCE(wq_create_hold_us, 100 * 1000 * 1000);
	/* An expired hold earlier switched holds off for 10 holds (1 ms at
	 * the default): past that now, however late this sleep returns. */
	msleep(10);
	unsigned int n = pool_now(cpu, WQ_POOL_HIGHPRI).nr_idle + 3;

	KT_EXPECT_LE(t, HOLD_PRIME, n - 3);
	hold_rest = ktest_gate_works_alloc(n - 1, &hold_gate);
	KT_ASSERT_NOT_NULL(t, hold_rest);
	INIT_WORK(&first, hold_first_fn);
	queue_work_on(cpu, system_highpri_wq, &first);
	/* The first blocked with the second waiting (the hold starts), and an
	 * idle worker took the second. */
	KT_GATE_WAIT_ARRIVED(t, &hold_gate, 2);
	struct wq_pool_stats base = pool_now(cpu, WQ_POOL_HIGHPRI);

	for (unsigned int i = 1; i < n - 1; i++)
		queue_work_on(cpu, system_highpri_wq, &hold_rest[i].work);
	/* Some worker found no spare and waits: that is the state to check. */
	KT_WAIT_UNTIL(t, pool_now(cpu, WQ_POOL_HIGHPRI).nr_deferred > base.nr_deferred);
	struct wq_pool_stats held = pool_now(cpu, WQ_POOL_HIGHPRI);

	KT_EXPECT_EQ(t, held.nr_created, base.nr_created);
	KT_EXPECT_LT(t, ktest_gate_arrived(&hold_gate), n);
	ktest_gate_open(&hold_gate);
	flush_work(&first);
	gated_finish(hold_rest, n - 1);
	KT_EXPECT_EQ(t, ktest_gate_arrived(&hold_gate), n);
	KT_EXPECT_EQ(t, pool_now(cpu, WQ_POOL_HIGHPRI).nr_created, base.nr_created);
	KT_EXPECT_EQ(t, pool_now(cpu, WQ_POOL_HIGHPRI).nr_hogs, base.nr_hogs);
	WRITE_ONCE(wq_create_hold_us, hold);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
}

/* A block that outlasts the hold (1 ms here; the gate stays shut) makes a
 * worker: every item starts, each in a worker of its own. */
static void a_block_past_the_hold_makes_a_worker(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), hold = wq_create_hold_us;
	struct ktest_gate gate;

	ktest_gate_init(&gate);
	WRITE_ONCE(wq_create_hold_us, 1000);
	struct wq_pool_stats base = pool_now(cpu, WQ_POOL_HIGHPRI);
	unsigned int n = base.nr_idle + 3;
	struct ktest_gate_work *g = ktest_gate_works_alloc(n, &gate);

	KT_ASSERT_NOT_NULL(t, g);
	for (unsigned int i = 0; i < n; i++)
		queue_work_on(cpu, system_highpri_wq, &g[i].work);
	KT_GATE_WAIT_ARRIVED(t, &gate, n);
	struct wq_pool_stats st = pool_now(cpu, WQ_POOL_HIGHPRI);

	KT_EXPECT_LE(t, base.nr_created + 3, st.nr_created);
	gated_finish(g, n);
	WRITE_ONCE(wq_create_hold_us, hold);
}

/* ---- the pace ------------------------------------------------------------- */

#define STORM_ITEMS 80 /* past the 64 workers made back to back */

/* A storm past 64 workers: creation is paced (counted as deferred with no
 * hold), and every item still starts. */
static void a_storm_is_paced(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), hold = wq_create_hold_us, pace = wq_pace_max_us;
	struct ktest_gate gate;

	ktest_gate_init(&gate);
	WRITE_ONCE(wq_create_hold_us, 0);
	WRITE_ONCE(wq_pace_max_us, 1000);
	struct wq_pool_stats base = pool_now(cpu, WQ_POOL_HIGHPRI);
	struct ktest_gate_work *g = ktest_gate_works_alloc(STORM_ITEMS, &gate);

	KT_ASSERT_NOT_NULL(t, g);
	for (unsigned int i = 0; i < STORM_ITEMS; i++)
		queue_work_on(cpu, system_highpri_wq, &g[i].work);
	KT_GATE_WAIT_ARRIVED(t, &gate, STORM_ITEMS);
	struct wq_pool_stats st = pool_now(cpu, WQ_POOL_HIGHPRI);

	KT_EXPECT_LE(t, STORM_ITEMS, st.nr_workers);
	KT_EXPECT_LT(t, base.nr_deferred, st.nr_deferred);
	gated_finish(g, STORM_ITEMS);
	WRITE_ONCE(wq_create_hold_us, hold);
	WRITE_ONCE(wq_pace_max_us, pace);
}

/* ---- reaping -------------------------------------------------------------- */

static atomic_t quick_runs;

static void quick_fn(struct work_struct *w)
{
	atomic_inc(&quick_runs);
	msleep(1);
}

/* After a storm the extra workers go, down to the two idle ones kept, and
 * the pool they leave still runs what is queued, blocking items included
 * (a short timeout: how fast is not the point here). The normal pool
 * reaps with an item of its own (system_wq): the worker running it counts
 * as idle, or the pool would stay one over and re-arm its reaping for
 * ever. */
static void reap_then_run(struct ktest *t, struct workqueue_struct *wq, enum wq_cpu_pool which)
{
	unsigned int cpu = ktest_last_online_cpu(), saved = wq_idle_timeout_ms;
	static struct work_struct quick[8];
	struct ktest_gate gate;

	ktest_gate_init(&gate);
	WRITE_ONCE(wq_idle_timeout_ms, 50);
	struct ktest_gate_work *g = ktest_gate_works_alloc(24, &gate);

	KT_ASSERT_NOT_NULL(t, g);
	for (unsigned int i = 0; i < 24; i++)
		queue_work_on(cpu, wq, &g[i].work);
	KT_GATE_WAIT_ARRIVED(t, &gate, 24);
	gated_finish(g, 24);
	KT_WAIT_UNTIL(t, pool_now(cpu, which).nr_workers <= 2);
	WRITE_ONCE(wq_idle_timeout_ms, saved);
	atomic_set(&quick_runs, 0);
	for (int i = 0; i < 8; i++) {
		INIT_WORK(&quick[i], quick_fn);
		queue_work_on(cpu, wq, &quick[i]);
	}
	for (int i = 0; i < 8; i++)
		flush_work(&quick[i]);
	KT_EXPECT_EQ(t, atomic_read(&quick_runs), 8);
}

static void reaping_leaves_the_pool_able_to_run_work(struct ktest *t)
{
	reap_then_run(t, system_highpri_wq, WQ_POOL_HIGHPRI);
	reap_then_run(t, system_wq, WQ_POOL_NORMAL);
}

/* Reaping in proportion: an idle worker beyond the need lives
 * wq_idle_timeout_ms / (excess + 1), at least 50 ms, so a pool far over
 * its need sheds workers quickly. After a storm of 24 in a pool of its own
 * (a nice no other workqueue uses), with a timeout of 1.2 s, the first
 * worker reaped is 22 or so over the need: its life is the 50 ms floor,
 * far under the timeout (without the proportion it would be the whole
 * timeout). The timeout must be over 23 floors for the proportion to show
 * at all. */
#define REAP_NICE	 9
#define REAP_STORM	 24
#define REAP_TIMEOUT_MS	 1200
#define REAP_MIN_LIFE_NS (50 * NSEC_PER_MSEC)

static void reaping_far_over_the_need_is_quick(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), saved = wq_idle_timeout_ms;
	struct workqueue_struct *wq = alloc_workqueue("test_reap", 0, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	struct wq_pool_stats st;
	struct ktest_gate gate;

	KT_ASSERT_TRUE(t, wq && attrs);
	attrs->nice = REAP_NICE;
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	free_workqueue_attrs(attrs);
	workqueue_wq_pool_stats(wq, cpu, &st);
	KT_EXPECT_EQ(t, st.shortest_life_ns, 0); /* nothing reaped there yet */
	ktest_gate_init(&gate);
	WRITE_ONCE(wq_idle_timeout_ms, REAP_TIMEOUT_MS);
	struct ktest_gate_work *g = ktest_gate_works_alloc(REAP_STORM, &gate);

	KT_ASSERT_NOT_NULL(t, g);
	for (unsigned int i = 0; i < REAP_STORM; i++)
		queue_work_on(cpu, wq, &g[i].work);
	KT_GATE_WAIT_ARRIVED(t, &gate, REAP_STORM);
	gated_finish(g, REAP_STORM);
	KT_WAIT_UNTIL(t, ({
			      workqueue_wq_pool_stats(wq, cpu, &st);
			      st.nr_workers <= 2;
		      }));
	WRITE_ONCE(wq_idle_timeout_ms, saved);
	KT_EXPECT_LE(t, REAP_MIN_LIFE_NS, st.shortest_life_ns);
	KT_EXPECT_LE(t, st.shortest_life_ns, (u64)REAP_TIMEOUT_MS * NSEC_PER_MSEC / 10);
	destroy_workqueue(wq);
}

/* ---- CPU hogs ------------------------------------------------------------- */

static volatile bool hog_release;
static atomic_t hog_started, after_hog_ran;
static volatile bool hog_marked;

static void hog_fn(struct work_struct *w)
{
	u64 t0 = ktime_get_ns();
	char what[96];

	atomic_inc(&hog_started);
	while (!READ_ONCE(hog_release) && ktime_get_ns() - t0 < SPIN_LIMIT_NS)
		cpu_relax();
	workqueue_describe_thread(current, what, sizeof(what));
	hog_marked = strstr(what, "[cpu-hog]") != NULL;
}

static void after_hog_fn(struct work_struct *w)
{
	atomic_inc(&after_hog_ran);
}

/* An item that spins until released holds its pool's CPU without
 * blocking; an item queued behind it must start meanwhile. */
static void a_cpu_hog_stops_holding_the_pool(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	static struct work_struct hog, after;

	WRITE_ONCE(hog_release, false);
	hog_marked = false;
	atomic_set(&hog_started, 0);
	atomic_set(&after_hog_ran, 0);
	struct wq_pool_stats base = pool_now(cpu, WQ_POOL_NORMAL);

	INIT_WORK(&hog, hog_fn);
	INIT_WORK(&after, after_hog_fn);
	queue_work_on(cpu, system_wq, &hog);
	KT_WAIT_UNTIL(t, atomic_read(&hog_started) == 1);
	queue_work_on(cpu, system_wq, &after);
	KT_WAIT_UNTIL(t, atomic_read(&after_hog_ran) == 1);
	WRITE_ONCE(hog_release, true);
	flush_work(&hog);
	flush_work(&after);
	KT_EXPECT_TRUE(t, hog_marked);
	KT_EXPECT_LT(t, base.nr_hogs, pool_now(cpu, WQ_POOL_NORMAL).nr_hogs);
}

static atomic_t bound_now, bound_max;

static void cpu_bound_fn(struct work_struct *w)
{
	int n = atomic_inc_return(&bound_now);

	atomic_max(&bound_max, n);
	udelay(2000);
	atomic_dec(&bound_now);
}

/* A stream of CPU-bound items (each a hog at the 200 us threshold set
 * here) never makes a worker each: one hog at a time, so at most two of
 * them run at once. */
static void cpu_bound_items_make_one_hog_at_a_time(struct ktest *t)
{
	static struct work_struct items[16];
	unsigned int cpu = ktest_last_online_cpu(), thresh = wq_cpu_intensive_thresh_us;

	WRITE_ONCE(wq_cpu_intensive_thresh_us, 200);
	atomic_set(&bound_now, 0);
	atomic_set(&bound_max, 0);
	struct wq_pool_stats base = pool_now(cpu, WQ_POOL_NORMAL);

	for (int i = 0; i < 16; i++) {
		INIT_WORK(&items[i], cpu_bound_fn);
		queue_work_on(cpu, system_wq, &items[i]);
	}
	for (int i = 0; i < 16; i++)
		flush_work(&items[i]);
	WRITE_ONCE(wq_cpu_intensive_thresh_us, thresh);
	printk(KERN_RAW
	       "    # 16 CPU-bound items of 2 ms: at most %d at once, %lu marked as hogs\n",
	       atomic_read(&bound_max), pool_now(cpu, WQ_POOL_NORMAL).nr_hogs - base.nr_hogs);
	KT_EXPECT_LE(t, atomic_read(&bound_max), 2);
}

/* ---- the bound ------------------------------------------------------------ */

static struct completion rescued;
static volatile bool rescued_by_rescuer;

static void reclaim_fn(struct work_struct *w)
{
	rescued_by_rescuer = strncmp(current->name, "kworker/R-", 10) == 0;
	complete(&rescued);
}

/* A pool at wq_max_workers with every worker blocked: a WQ_MEM_RECLAIM
 * item still runs, by its rescuer; the rest run once the gate opens. */
static void at_the_bound_the_rescuer_runs_reclaim_work(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu(), bound = wq_max_workers;
	struct workqueue_struct *wq = alloc_workqueue("test_bound", WQ_MEM_RECLAIM, 0);
	static struct work_struct item;
	struct ktest_gate gate;

	KT_ASSERT_NOT_NULL(t, wq);
	ktest_gate_init(&gate);
	init_completion(&rescued);
	rescued_by_rescuer = false;
	struct wq_pool_stats base = pool_now(cpu, WQ_POOL_NORMAL);
	unsigned int n = base.nr_workers + 2;
	struct ktest_gate_work *g = ktest_gate_works_alloc(n, &gate);

	KT_ASSERT_NOT_NULL(t, g);
	WRITE_ONCE(wq_max_workers, base.nr_workers);
	for (unsigned int i = 0; i < n; i++)
		queue_work_on(cpu, system_wq, &g[i].work);
	INIT_WORK(&item, reclaim_fn);
	queue_work_on(cpu, wq, &item);
	KT_WAIT_UNTIL(t, completion_done(&rescued));
	struct wq_pool_stats st = pool_now(cpu, WQ_POOL_NORMAL);

	KT_EXPECT_TRUE(t, rescued_by_rescuer);
	KT_EXPECT_LE(t, st.nr_workers, base.nr_workers);
	KT_EXPECT_LT(t, base.nr_rescued, st.nr_rescued);
	WRITE_ONCE(wq_max_workers, bound);
	gated_finish(g, n);
	KT_EXPECT_EQ(t, ktest_gate_arrived(&gate), n);
	flush_work(&item);
	destroy_workqueue(wq);
}

KTEST_SUITE(wq_adapt, KTEST_CASE(a_block_within_the_hold_makes_no_worker),
	    KTEST_CASE(a_block_past_the_hold_makes_a_worker), KTEST_CASE(a_storm_is_paced),
	    KTEST_CASE(reaping_leaves_the_pool_able_to_run_work),
	    KTEST_CASE(reaping_far_over_the_need_is_quick),
	    KTEST_CASE(a_cpu_hog_stops_holding_the_pool),
	    KTEST_CASE(cpu_bound_items_make_one_hog_at_a_time),
	    KTEST_CASE(at_the_bound_the_rescuer_runs_reclaim_work));
