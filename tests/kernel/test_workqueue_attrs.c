/* tests/kernel/test_workqueue_attrs.c - suite wq_attrs: attributes for
 * every workqueue (workqueue.h, "Every workqueue's attributes"): a bound
 * workqueue's nice and CPU mask, the per-CPU pools shared by equal nice,
 * changes while items run, refusals, and a mask through CPU hotplug.
 *
 * Each case reaches its state by construction: items blocked on a gate
 * the case opens, a workqueue with max_active 1 that holds the next item
 * back, cpu_down() and cpu_up() having returned.
 */
#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/sched.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

#define NR_ITEMS 8

/* The line of `wq` for cpu's pool at a nice other than 0 and -20, copied
 * into line; how many such lines there are. */
static unsigned int pool_lines(unsigned int cpu, int nice, char *line, size_t size)
{
	size_t bufsize = 64 * 1024;
	char *buf = kmalloc(bufsize), key[40];
	unsigned int n = 0;

	if (!buf)
		return 0;
	snprintf(key, sizeof(key), "pool cpu%u nice %d ", cpu, nice);
	workqueue_dump(buf, bufsize);
	for (char *p = buf; (p = strstr(p, key)); p++) {
		n++;
		char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (line)
			strscpy(line, p, min(size, len + 1));
	}
	kfree(buf);
	return n;
}

/* The number after "executed " in a pool line. */
static unsigned long executed(const char *line)
{
	const char *p = strstr(line, "executed ");
	unsigned long v = 0;

	for (p = p ? p + 9 : ""; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	return v;
}

/* A bound workqueue given nice 7 and one CPU runs every item there, at
 * nice 7, on that CPU's bound workers (not unbound ones), wherever it was
 * queued from; a second bound workqueue of nice 7 shares the same pools
 * (no second pool appears; the one pool runs both workqueues' items). */
static void a_bound_workqueue_runs_at_its_nice_on_its_cpus(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_attrs", 0, 0);
	struct workqueue_struct *wq2 = alloc_workqueue("test_attrs2", 0, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	struct ktest_where *wh = kcalloc(NR_ITEMS, sizeof(*wh));
	unsigned int cpu = ktest_last_online_cpu(), from, i = 0;
	char prefix[16], line[256];
	struct cpumask old;

	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_NOT_NULL(t, wq2);
	KT_ASSERT_NOT_NULL(t, attrs);
	KT_ASSERT_NOT_NULL(t, wh);
	attrs->nice = 7;
	cpumask_copy(&attrs->cpumask, cpumask_of(cpu));
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	/* From every online CPU, and for every one of them. */
	thread_get_cpus_allowed(current, &old);
	for_each_online_cpu(from) {
		if (i + 2 > NR_ITEMS)
			break;
		ktest_where_init(&wh[i], NULL);
		queue_work_on(from, wq, &wh[i++].work);
		ktest_where_init(&wh[i], NULL);
		KT_ASSERT_EQ(t, set_cpus_allowed(current, cpumask_of(from)), 0);
		queue_work(wq, &wh[i++].work);
	}
	sched_unpin_current(&old);
	flush_workqueue(wq);
	snprintf(prefix, sizeof(prefix), "kworker/%u:", cpu);
	for (unsigned int k = 0; k < i; k++) {
		KT_EXPECT_EQ(t, wh[k].cpu, cpu);
		KT_EXPECT_EQ(t, wh[k].nice, 7);
		KT_EXPECT_EQ(t, strncmp(wh[k].name, prefix, strlen(prefix)), 0);
	}
	struct workqueue_attrs got;

	workqueue_get_attrs(wq, &got);
	KT_EXPECT_EQ(t, got.nice, 7);
	KT_EXPECT_TRUE(t, cpumask_equal(&got.cpumask, cpumask_of(cpu)));
	/* The second workqueue, nice 7 on every CPU: the same pool. */
	KT_ASSERT_EQ(t, pool_lines(cpu, 7, line, sizeof(line)), 1);
	unsigned long before = executed(line);

	attrs->nice = 7;
	cpumask_copy(&attrs->cpumask, &cpu_possible_mask);
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq2, attrs), 0);
	for (unsigned int k = 0; k < NR_ITEMS; k++) {
		ktest_where_init(&wh[k], NULL);
		queue_work_on(cpu, wq2, &wh[k].work);
	}
	flush_workqueue(wq2);
	for (unsigned int k = 0; k < NR_ITEMS; k++) {
		KT_EXPECT_EQ(t, wh[k].cpu, cpu);
		KT_EXPECT_EQ(t, wh[k].nice, 7);
	}
	KT_EXPECT_EQ(t, pool_lines(cpu, 7, line, sizeof(line)), 1);
	KT_EXPECT_LE(t, before + NR_ITEMS, executed(line));
	destroy_workqueue(wq);
	destroy_workqueue(wq2);
	free_workqueue_attrs(attrs);
	kfree(wh);
}

/* Attributes change while an item runs: the running one finishes at the
 * old nice, one queued after the change runs at the new nice while the
 * first is still blocked (a pool of its own), and a flush waits for both. */
static void changing_attributes_while_items_run(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_attrs_chg", 0, 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	unsigned int cpu = ktest_last_online_cpu();
	struct ktest_gate gate;
	static struct ktest_where old, late;

	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_NOT_NULL(t, attrs);
	ktest_gate_init(&gate);
	ktest_where_init(&old, &gate);
	ktest_where_init(&late, NULL);
	queue_work_on(cpu, wq, &old.work);
	KT_WAIT_UNTIL(t, work_busy(&old.work) == WORK_BUSY_RUNNING);
	attrs->nice = 5;
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	queue_work_on(cpu, wq, &late.work);
	wait_for_completion(&late.ran); /* while the old one is still at the gate */
	KT_EXPECT_EQ(t, late.nice, 5);
	KT_EXPECT_EQ(t, late.cpu, cpu);
	KT_EXPECT_TRUE(t, work_busy(&old.work) & WORK_BUSY_RUNNING);
	ktest_gate_open(&gate);
	flush_workqueue(wq);
	KT_EXPECT_TRUE(t, completion_done(&old.ran));
	KT_EXPECT_EQ(t, old.nice, 0);
	/* And back: the old pools again. */
	attrs->nice = 0;
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	ktest_where_init(&late, NULL);
	queue_work_on(cpu, wq, &late.work);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, late.nice, 0);
	destroy_workqueue(wq);
	free_workqueue_attrs(attrs);
}

/* Impossible attributes are refused, with a message, and change nothing;
 * so are the shell's changes that make no sense. */
static void impossible_attributes_are_refused(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("test_attrs_bad", 0, 0);
	struct workqueue_struct *ordered = alloc_ordered_workqueue("test_attrs_ord", 0);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	struct workqueue_attrs got;
	struct wq_change ch = { 0 };
	const char *why = NULL;
	unsigned int cpu;

	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_NOT_NULL(t, ordered);
	KT_ASSERT_NOT_NULL(t, attrs);
	attrs->nice = 20;
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	attrs->nice = -21;
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	attrs->nice = 3;
	cpumask_clear(&attrs->cpumask);
	KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	/* A CPU that is not possible is dropped: nothing is left. */
	for (cpu = NR_CPUS - 1; cpu > 0 && cpumask_test_cpu(cpu, &cpu_possible_mask); cpu--)
		;
	if (!cpumask_test_cpu(cpu, &cpu_possible_mask)) {
		cpumask_copy(&attrs->cpumask, cpumask_of(cpu));
		KT_EXPECT_EQ(t, apply_workqueue_attrs(wq, attrs), -EINVAL);
	}
	cpumask_copy(&attrs->cpumask, &cpu_possible_mask);
	KT_EXPECT_EQ(t, apply_workqueue_attrs(ordered, attrs), -EINVAL);
	/* The system per-CPU workqueues' CPUs are fixed. */
	workqueue_get_attrs(system_wq, &got);
	cpumask_copy(&attrs->cpumask, cpumask_of(0));
	attrs->nice = got.nice;
	if (cpumask_weight(&cpu_possible_mask) > 1)
		KT_EXPECT_EQ(t, apply_workqueue_attrs(system_wq, attrs), -EINVAL);
	workqueue_get_attrs(wq, &got);
	KT_EXPECT_EQ(t, got.nice, 0);
	KT_EXPECT_TRUE(t, cpumask_equal(&got.cpumask, &cpu_possible_mask));
	/* By name, as the shell does. */
	ch.set_nice = true;
	ch.nice = 4;
	KT_EXPECT_EQ(t, workqueue_change("test_attrs_none", &ch, &why), -ENOENT);
	KT_EXPECT_TRUE(t, why != NULL);
	ch.nice = 25;
	KT_EXPECT_EQ(t, workqueue_change("test_attrs_bad", &ch, &why), -EINVAL);
	KT_EXPECT_STREQ(t, why, "nice must be -20..19");
	ch.set_nice = false;
	ch.max_active = 3;
	KT_EXPECT_EQ(t, workqueue_change("test_attrs_ord", &ch, &why), -EINVAL);
	ch.max_active = 600;
	KT_EXPECT_EQ(t, workqueue_change("test_attrs_bad", &ch, &why), -EINVAL);
	ch.max_active = 3;
	ch.set_nice = true;
	ch.nice = 4;
	KT_EXPECT_EQ(t, workqueue_change("test_attrs_bad", &ch, &why), 0);
	workqueue_get_attrs(wq, &got);
	KT_EXPECT_EQ(t, got.nice, 4);
	destroy_workqueue(wq);
	destroy_workqueue(ordered);
	free_workqueue_attrs(attrs);
}

/* A mask of two CPUs, a and b, at nice 3 (pools made on demand, taken
 * down and back with their CPUs) through hotplug: with a offline, work for a
 * runs on b, both what is queued for it afterwards and what was waiting in
 * its pool when it went down (the trustee's worker keeps to the mask);
 * with a back, work for a runs on a again. With no CPU of the mask online,
 * items still run (anywhere). */
static void a_cpu_mask_holds_through_hotplug(struct ktest *t)
{
	unsigned int a = NR_CPUS, b = NR_CPUS, cpu;

	if (!ktest_need_cpus(t, 3)) /* two besides the boot CPU */
		return;
	for_each_online_cpu(cpu)
		if (cpu != 0 && a == NR_CPUS)
			a = cpu;
		else if (cpu != 0 && b == NR_CPUS)
			b = cpu;
	/* max_active 1: the second item waits in a's pool behind the first. */
	struct workqueue_struct *wq = alloc_workqueue("test_attrs_hp", 0, 1);
	struct workqueue_attrs *attrs = alloc_workqueue_attrs();
	struct ktest_gate gate;
	static struct ktest_where first, waiting, late, back, none;

	KT_ASSERT_NOT_NULL(t, wq);
	KT_ASSERT_NOT_NULL(t, attrs);
	attrs->nice = 3;
	cpumask_clear(&attrs->cpumask);
	cpumask_set_cpu(a, &attrs->cpumask);
	cpumask_set_cpu(b, &attrs->cpumask);
	KT_ASSERT_EQ(t, apply_workqueue_attrs(wq, attrs), 0);
	ktest_gate_init(&gate);
	ktest_where_init(&first, &gate);
	ktest_where_init(&waiting, NULL);
	queue_work_on(a, wq, &first.work);
	queue_work_on(a, wq, &waiting.work);
	KT_WAIT_UNTIL(t, work_busy(&first.work) == WORK_BUSY_RUNNING);
	KT_EXPECT_EQ(t, work_busy(&waiting.work), WORK_BUSY_PENDING);
	KT_ASSERT_EQ(t, cpu_down(a), 0);
	ktest_gate_open(&gate);
	wait_for_completion(&waiting.ran);
	KT_EXPECT_EQ(t, waiting.cpu, b);
	KT_EXPECT_EQ(t, waiting.nice, 3);
	ktest_where_init(&late, NULL);
	queue_work_on(a, wq, &late.work);
	wait_for_completion(&late.ran);
	KT_EXPECT_EQ(t, late.cpu, b);
	/* Neither CPU of the mask online: the items run all the same. */
	KT_ASSERT_EQ(t, cpu_down(b), 0);
	ktest_where_init(&none, NULL);
	queue_work_on(b, wq, &none.work);
	wait_for_completion(&none.ran);
	KT_EXPECT_NE(t, none.cpu, a);
	KT_EXPECT_NE(t, none.cpu, b);
	KT_EXPECT_EQ(t, cpu_up(b), 0);
	KT_EXPECT_EQ(t, cpu_up(a), 0);
	ktest_where_init(&back, NULL);
	queue_work_on(a, wq, &back.work);
	wait_for_completion(&back.ran);
	KT_EXPECT_EQ(t, back.cpu, a);
	KT_EXPECT_EQ(t, back.nice, 3);
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "kworker/%u:", a);
	KT_EXPECT_EQ(t, strncmp(back.name, prefix, strlen(prefix)), 0);
	flush_workqueue(wq);
	destroy_workqueue(wq);
	free_workqueue_attrs(attrs);
}

KTEST_SUITE(wq_attrs, KTEST_CASE(a_bound_workqueue_runs_at_its_nice_on_its_cpus),
	    KTEST_CASE(changing_attributes_while_items_run),
	    KTEST_CASE(impossible_attributes_are_refused),
	    KTEST_CASE(a_cpu_mask_holds_through_hotplug));
