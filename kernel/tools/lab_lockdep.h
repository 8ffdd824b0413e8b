/* kernel/tools/lab_lockdep.h - Lab 7 (docs/labs.md): "a deadlock a test run
 * will almost never hit".
 *
 * Two paths take the lab's two locks, lab_stats_lock and lab_table_lock:
 * the stats path, a work item, takes the stats lock and then the table
 * lock; the table path takes them in the same order, or, with the lab-only
 * parameter lockdep_lab_abba=1, the table lock first (AB-BA). On two CPUs at
 * once the wrong order can deadlock, but only if both paths meet within a
 * few instructions; the lock validator reports it on the first run of each.
 *
 * lab_lockdep_run() runs the stats path (queued, then flushed) and then the
 * table path, one after the other, never at once: the lab cannot hang. It
 * may sleep. The shell's `demo lab7` and the lab_lockdep suite call it.
 */
#ifndef KERNEL_TOOLS_LAB_LOCKDEP_H
#define KERNEL_TOOLS_LAB_LOCKDEP_H

#include "lib/types.h"

struct lab_lockdep_result {
	bool abba;		/* the table path took the wrong order */
	unsigned int stats_cpu; /* where the stats path (the work item) ran */
	unsigned int table_cpu; /* where the table path started */
	u64 total;		/* the running total, after both paths */
	u64 slot_sum;		/* the sum of the table's slots: equal to total */
	unsigned long reports;	/* lock validator reports during the run */
};

void lab_lockdep_run(struct lab_lockdep_result *r);

#endif
