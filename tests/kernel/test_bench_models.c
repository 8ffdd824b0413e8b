/* tests/kernel/test_bench_models.c - the benchmark's execution models are
 * correct, and every comparison scenario runs at a small size in each of
 * them with every item run exactly once (kernel/tools/bench_models.h,
 * kernel/tools/bench_compare.h). No figure is checked here: timing
 * belongs to `make bench`.
 */
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/tools/bench_compare.h"
#include "kernel/tools/bench_models.h"
#include "kernel/tools/ktest.h"
#include "kernel/wait.h"
#include "lib/cpumask.h"
#include "tests/kernel/ktest_helpers.h"

#define NR_ITEMS 16

struct mitem {
	struct work_struct work;
	atomic_t runs;
	unsigned int seq;    /* the order it ran in */
	unsigned int queued; /* queueings that succeeded */
};

static atomic_t next_seq;

static void mitem_fn(struct work_struct *w)
{
	struct mitem *m = container_of(w, struct mitem, work);

	m->seq = (unsigned int)atomic_inc_return(&next_seq);
	atomic_inc(&m->runs);
}

/* Every model runs an item once per queueing that succeeded, refuses an
 * item already pending, and the dedicated model keeps queueing order. */
static void each_model_runs_every_item_once(struct ktest *t)
{
	unsigned int cpu = cpumask_first(&cpu_online_mask);
	struct cpumask old;

	KT_ASSERT_EQ(t, sched_pin_current(cpu, &old), 0);
	for (enum bench_model m = 0; m < NR_BENCH_MODELS; m++) {
		static struct mitem items[NR_ITEMS];
		struct model_wq *mwq = model_wq_create(m, "test/m", 0);
		unsigned int refused = 0;

		KT_EXPECT_TRUE(t, mwq != NULL);
		if (!mwq)
			break;
		atomic_set(&next_seq, 0);
		for (unsigned int i = 0; i < NR_ITEMS; i++) {
			INIT_WORK(&items[i].work, mitem_fn);
			atomic_set(&items[i].runs, 0);
		}
		/* This thread runs on cpu. With preemption off, cmwq's and
		 * the dedicated thread's workers there cannot run yet: every item is still
		 * pending when it is queued the second time. A thread per
		 * item is created by queueing, which sleeps. */
		bool hold = m != MODEL_THREAD_PER_ITEM;

		if (hold)
			preempt_disable();
		for (unsigned int i = 0; i < NR_ITEMS; i++) {
			KT_EXPECT_TRUE(t, model_queue_on(mwq, cpu, &items[i].work));
			items[i].queued = 1 + model_queue_on(mwq, cpu, &items[i].work);
			refused += items[i].queued == 1;
		}
		if (hold)
			preempt_enable();
		model_flush(mwq);
		for (unsigned int i = 0; i < NR_ITEMS; i++) {
			KT_EXPECT_EQ(t, atomic_read(&items[i].runs), items[i].queued);
			if (m == MODEL_DEDICATED)
				KT_EXPECT_EQ(t, items[i].seq, i + 1);
		}
		if (hold)
			KT_EXPECT_EQ(t, refused, NR_ITEMS);
		model_wq_destroy(mwq);
	}
	sched_unpin_current(&old);
}

/* The dedicated model owns one thread per online CPU, or one in all. */
static void dedicated_threads_per_queue(struct ktest *t)
{
	struct model_wq *per_cpu = model_wq_create(MODEL_DEDICATED, "test/d", 0);
	struct model_wq *single = model_wq_create(MODEL_DEDICATED, "test/s", MODEL_WQ_SINGLE);
	struct model_wq *cmwq = model_wq_create(MODEL_CMWQ, "test/c", 0);

	KT_EXPECT_TRUE(t, per_cpu && single && cmwq);
	if (per_cpu && single && cmwq) {
		KT_EXPECT_EQ(t, model_wq_threads(per_cpu), num_online_cpus());
		KT_EXPECT_EQ(t, model_wq_threads(single), 1);
		KT_EXPECT_EQ(t, model_wq_threads(cmwq), 0);
	}
	model_wq_destroy(per_cpu);
	model_wq_destroy(single);
	model_wq_destroy(cmwq);
}

/* Every scenario at a small size, in every model it applies to. */
static void every_scenario_runs_small(struct ktest *t)
{
	struct cmp_ctx c = { .a = cpumask_first(&cpu_online_mask), .small = true };
	struct cpumask old;
	unsigned int n;
	const struct cmp_scenario *sc = bench_cmp_scenarios(&n);

	c.b = ktest_last_online_cpu();
	KT_ASSERT_EQ(t, sched_pin_current(c.a, &old), 0);
	for (unsigned int i = 0; i < n; i++) {
		int err = sc[i].run(&c);

		if (err)
			ktest_fail(t, __FILE__, __LINE__, "scenario %s: error %d", sc[i].name, err);
	}
	sched_unpin_current(&old);
}

KTEST_SUITE(bench_models, KTEST_CASE(each_model_runs_every_item_once),
	    KTEST_CASE(dedicated_threads_per_queue), KTEST_CASE(every_scenario_runs_small));
