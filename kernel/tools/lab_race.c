/* kernel/tools/lab_race.c - Lab 8 (docs/labs.md); see lab_race.h.
 *
 * The story: a statistics counter that every CPU bumps, the first shared
 * variable of every concurrency course. The items run on every online CPU
 * at once: each waits at a gate until all have started, then counts
 * LAB_RACE_EVENTS events. Only lab_count_event() differs between the
 * lab-only racy version and the fix.
 */
#include "kernel/tools/lab_race.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/mutex.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/workqueue.h"
#include "lib/compiler.h"

/* LAB ONLY: count with a plain increment, a data race. Never for real use:
 * the boot that sets it must see the detector's report. */
static bool kcsan_lab_racy;
PARAM_BOOL(kcsan_lab_racy, kcsan_lab_racy,
	   "LAB ONLY: count the lab's events with a plain increment, a data race (lab 8)");

/* One run at a time: the items are static, one per CPU. */
static DEFINE_MUTEX(lab_race_mutex);
static u64 lab_events;			      /* atomic: the events of every CPU (the racy
						 version increments it plainly: the bug) */
static unsigned int lab_arrived;	      /* atomic: items at the gate */
static unsigned int lab_cpus;		      /* lab_race_mutex: items this run; the items
						 read it after they were queued */
static struct work_struct lab_items[NR_CPUS]; /* lab_race_mutex */
static bool lab_items_ready;		      /* lab_race_mutex */

/* Count one event. Not inlined: the report names it. */
static __noinline void lab_count_event(void)
{
	if (kcsan_lab_racy)
		lab_events++; /* wrong: load, add, store; another CPU's store can fall between */
	else
		__atomic_add_fetch(&lab_events, 1, __ATOMIC_RELAXED); /* the fix: one locked add */
}

static void lab_item_fn(struct work_struct *w)
{
	unsigned int n = READ_ONCE(lab_cpus);

	/* The gate: every item has started before any counts. (Each runs on
	 * a CPU of its own, and the run holds CPUs from going offline.) */
	__atomic_add_fetch(&lab_arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&lab_arrived, __ATOMIC_ACQUIRE) < n)
		cpu_relax();
	for (unsigned int i = 0; i < LAB_RACE_EVENTS; i++)
		lab_count_event();
}

void lab_race_run(struct lab_race_result *r)
{
	unsigned long before = bug_reports();
	unsigned int cpu;

	mutex_lock(&lab_race_mutex);
	if (!lab_items_ready) {
		for (unsigned int i = 0; i < NR_CPUS; i++)
			INIT_WORK(&lab_items[i], lab_item_fn);
		lab_items_ready = true;
	}
	cpus_read_lock();
	__atomic_store_n(&lab_events, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lab_arrived, 0, __ATOMIC_RELAXED);
	WRITE_ONCE(lab_cpus, num_online_cpus());
	for_each_online_cpu(cpu)
		queue_work_on(cpu, system_wq, &lab_items[cpu]);
	for_each_online_cpu(cpu)
		flush_work(&lab_items[cpu]);
	r->cpus = lab_cpus;
	cpus_read_unlock();
	r->racy = kcsan_lab_racy;
#ifdef CONFIG_KCSAN
	r->detector = true;
#else
	r->detector = false;
#endif
	r->expected = (u64)r->cpus * LAB_RACE_EVENTS;
	r->counted = __atomic_load_n(&lab_events, __ATOMIC_RELAXED);
	mutex_unlock(&lab_race_mutex);
	r->reports = bug_reports() - before;
}
