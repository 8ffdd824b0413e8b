/* tests/kernel/ktest_helpers.c - CPUs, skips, gates and fixtures for the
 * kernel test suites; see ktest_helpers.h. */
#include "tests/kernel/ktest_helpers.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "lib/printf.h"
#include "lib/string.h"

unsigned int ktest_last_online_cpu(void)
{
	unsigned int cpu, last = 0;

	for_each_online_cpu(cpu)
		last = cpu;
	return last;
}

bool ktest_need_cpus(struct ktest *t, unsigned int n)
{
	char reason[32];

	if (num_online_cpus() >= n)
		return true;
	/* The harness matches this wording (tests/harness/run_tests.py, SKIP_NEEDS). */
	snprintf(reason, sizeof(reason), "needs at least %u CPUs", n);
	ktest_skip(t, reason);
	return false;
}

void ktest_gate_init(struct ktest_gate *g)
{
	init_completion(&g->open);
	atomic_set(&g->arrived, 0);
	atomic_set(&g->passed, 0);
	atomic_set(&g->timeouts, 0);
}

void ktest_gate_pass(struct ktest_gate *g)
{
	might_sleep();
	atomic_inc(&g->arrived);
	wait_for_completion(&g->open);
	atomic_inc(&g->passed);
}

void ktest_gate_pass_bounded(struct ktest_gate *g)
{
	might_sleep();
	atomic_inc(&g->arrived);
	if (!wait_for_completion_timeout(&g->open, KT_WAIT_LIMIT_NS)) {
		atomic_inc(&g->timeouts);
		complete_all(&g->open);
	}
	atomic_inc(&g->passed);
}

void ktest_gate_open(struct ktest_gate *g)
{
	complete_all(&g->open);
}

bool ktest_gate_is_open(struct ktest_gate *g)
{
	return completion_done(&g->open);
}

static void gate_work_fn(struct work_struct *work)
{
	struct ktest_gate_work *w = container_of(work, struct ktest_gate_work, work);

	ktest_gate_pass(w->gate);
}

void ktest_gate_work_init(struct ktest_gate_work *w, struct ktest_gate *g)
{
	INIT_WORK(&w->work, gate_work_fn);
	w->gate = g;
}

struct ktest_gate_work *ktest_gate_works_alloc(unsigned int n, struct ktest_gate *g)
{
	struct ktest_gate_work *w = kcalloc(n, sizeof(*w));

	for (unsigned int i = 0; w && i < n; i++)
		ktest_gate_work_init(&w[i], g);
	return w;
}

void ktest_gate_works_release(struct ktest_gate_work *w, unsigned int n)
{
	might_sleep();
	if (!n)
		return;
	ktest_gate_open(w[0].gate);
	for (unsigned int i = 0; i < n; i++)
		flush_work(&w[i].work);
}

void ktest_gate_hold(struct workqueue_struct *wq, struct ktest_gate_work *w, struct ktest_gate *g)
{
	ktest_gate_init(g);
	ktest_gate_work_init(w, g);
	queue_work(wq, &w->work);
}

static void timed_dwork_fn(struct work_struct *w)
{
	struct ktest_timed_dwork *d = container_of(w, struct ktest_timed_dwork, dwork.work);

	d->ran_at = ktime_get_ns();
	atomic_inc(&d->runs);
}

void ktest_timed_dwork_init(struct ktest_timed_dwork *d)
{
	INIT_DELAYED_WORK(&d->dwork, timed_dwork_fn);
	ktest_timed_dwork_reset(d);
}

void ktest_timed_dwork_reset(struct ktest_timed_dwork *d)
{
	d->ran_at = 0;
	atomic_set(&d->runs, 0);
}

static void where_fn(struct work_struct *w)
{
	struct ktest_where *wh = container_of(w, struct ktest_where, work);
	struct thread_desc d;

	if (wh->gate)
		ktest_gate_pass(wh->gate);
	sched_describe_thread(current, &d);
	wh->cpu = smp_processor_id();
	wh->nice = d.nice;
	strscpy(wh->name, current->name, sizeof(wh->name));
	complete(&wh->ran);
}

void ktest_where_init(struct ktest_where *wh, struct ktest_gate *g)
{
	memset(wh, 0, sizeof(*wh));
	INIT_WORK(&wh->work, where_fn);
	init_completion(&wh->ran);
	wh->cpu = NR_CPUS;
	wh->gate = g;
}

static struct completion probe_ran;
static volatile unsigned int probe_ran_on;

static void probe_fn(struct work_struct *w)
{
	probe_ran_on = smp_processor_id();
	complete(&probe_ran);
}

bool ktest_item_for_cpu_runs(struct ktest *t, unsigned int cpu, bool there)
{
	static struct work_struct w;

	INIT_WORK(&w, probe_fn);
	init_completion(&probe_ran);
	probe_ran_on = NR_CPUS;
	KT_EXPECT_TRUE(t, queue_work_on(cpu, system_wq, &w));
	if (!wait_for_completion_timeout(&probe_ran, KT_WAIT_LIMIT_NS)) {
		ktest_fail(t, __FILE__, __LINE__, "an item queued to cpu%u did not run", cpu);
		return false;
	}
	flush_work(&w);
	KT_EXPECT_TRUE(t, probe_ran_on < NR_CPUS);
	if (there)
		KT_EXPECT_EQ(t, probe_ran_on, cpu);
	else
		KT_EXPECT_NE(t, probe_ran_on, cpu);
	return probe_ran_on < NR_CPUS && (probe_ran_on == cpu) == there;
}
