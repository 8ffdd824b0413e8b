/* kernel/tools/lab_lockdep.c - Lab 7 (docs/labs.md); see lab_lockdep.h.
 *
 * The story: a table of event counters, and a running total of them. The
 * table path counts an event: one slot and the total. The stats path, a
 * work item (in a real kernel a timer would queue it every 100 ms), folds
 * the slots into the total again. Each path holds both locks for a few
 * instructions. With lockdep_lab_abba=1 the table path was written
 * "table first, then the total": on two CPUs, the item holding the stats
 * lock and waiting for the table lock while the table path holds the table
 * lock and waits for the stats lock spin forever. A test run almost never
 * meets that window; the validator needs no window, only both orders.
 */
#include "kernel/tools/lab_lockdep.h"
#include "kernel/cpu_local.h"
#include "kernel/debug/lockdep.h"
#include "kernel/mutex.h"
#include "kernel/params.h"
#include "kernel/spinlock.h"
#include "kernel/workqueue.h"
#include "lib/compiler.h"

/* LAB ONLY: the table path takes its locks in the wrong order. Never for
 * real use: the boot that sets it must see the validator's report. */
static bool lockdep_lab_abba;
PARAM_BOOL(lockdep_lab_abba, lockdep_lab_abba,
	   "LAB ONLY: take the lab's two locks in the wrong order on one path (lab 7)");

#define LAB_SLOTS 8

static DEFINE_SPINLOCK(lab_stats_lock);
static DEFINE_SPINLOCK(lab_table_lock);
/* One run at a time: the stats item is one static item, and the two paths
 * must never overlap (the lab shows the report, it must not hang). */
static DEFINE_MUTEX(lab_run_mutex);

static u64 lab_slots[LAB_SLOTS];   /* lab_table_lock: events per slot */
static u64 lab_total;		   /* lab_stats_lock: the events in every slot */
static unsigned int lab_next_slot; /* lab_run_mutex */
static unsigned int lab_stats_cpu; /* lab_run_mutex: the item writes it, the run
				      reads it after flush_work() */

/* The stats path: the total again from the slots; stats lock, then table. */
static void lab_stats_fn(struct work_struct *w)
{
	u64 sum = 0;

	spin_lock(&lab_stats_lock);
	spin_lock(&lab_table_lock);
	for (unsigned int i = 0; i < LAB_SLOTS; i++)
		sum += lab_slots[i];
	lab_total = sum;
	lab_stats_cpu = smp_processor_id();
	spin_unlock(&lab_table_lock);
	spin_unlock(&lab_stats_lock);
}

static struct work_struct lab_stats_work; /* lab_run_mutex: set up by the first run */
static bool lab_stats_work_ready;	  /* lab_run_mutex */

/* The table path: count one event in a slot and in the total. Not inlined:
 * the report's stack names it. */
static __noinline void lab_table_count(unsigned int slot, struct lab_lockdep_result *r)
{
	if (lockdep_lab_abba) {
		/* Wrong: table, then stats, against the stats path's order. */
		spin_lock(&lab_table_lock);
		lab_slots[slot]++;
		spin_lock(&lab_stats_lock);
		lab_total++;
	} else {
		/* The fix: the same order as the stats path. */
		spin_lock(&lab_stats_lock);
		spin_lock(&lab_table_lock);
		lab_slots[slot]++;
		lab_total++;
	}
	r->table_cpu = smp_processor_id();
	r->total = lab_total;
	r->slot_sum = 0;
	for (unsigned int i = 0; i < LAB_SLOTS; i++)
		r->slot_sum += lab_slots[i];
	if (lockdep_lab_abba) {
		spin_unlock(&lab_stats_lock);
		spin_unlock(&lab_table_lock);
	} else {
		spin_unlock(&lab_table_lock);
		spin_unlock(&lab_stats_lock);
	}
}

void lab_lockdep_run(struct lab_lockdep_result *r)
{
	unsigned long before = lockdep_reports();

	mutex_lock(&lab_run_mutex);
	r->abba = lockdep_lab_abba;
	if (!lab_stats_work_ready) {
		INIT_WORK(&lab_stats_work, lab_stats_fn);
		lab_stats_work_ready = true;
	}
	/* The stats path first, to its end: flush_work() waits for it. */
	queue_work(system_wq, &lab_stats_work);
	flush_work(&lab_stats_work);
	r->stats_cpu = lab_stats_cpu;
	/* Then the table path, which no stats path can overlap now. */
	lab_table_count(lab_next_slot, r);
	lab_next_slot = (lab_next_slot + 1) % LAB_SLOTS;
	mutex_unlock(&lab_run_mutex);
	r->reports = lockdep_reports() - before;
}
