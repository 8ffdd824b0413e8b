/* kernel/tools/lab_race.h - Lab 8 (docs/labs.md): "a data race the detector
 * sees on the first run".
 *
 * One work item per online CPU counts events into one shared counter,
 * lab_events, all of them at once (a gate starts them together). The fix
 * counts with an atomic add. With the lab-only parameter kcsan_lab_racy=1
 * the count was written as a plain increment: a load, an add and a store,
 * so two CPUs can both load the same value and one update is lost. Lost
 * updates need two increments within a few instructions of each other, and
 * show only as a total a little short; the data-race detector (make SAN=1)
 * names the two accesses on the first run.
 *
 * lab_race_run() runs the items to their end and returns what was counted.
 * It may sleep. The shell's `demo lab8` and the lab_race suite call it.
 */
#ifndef KERNEL_TOOLS_LAB_RACE_H
#define KERNEL_TOOLS_LAB_RACE_H

#include "lib/types.h"

#define LAB_RACE_EVENTS 100000 /* per CPU and run */

struct lab_race_result {
	bool racy;	       /* kcsan_lab_racy=1: the plain increment */
	bool detector;	       /* this image has the data-race detector */
	unsigned int cpus;     /* items run at once: one per online CPU */
	u64 expected;	       /* cpus * LAB_RACE_EVENTS */
	u64 counted;	       /* lab_events after the run */
	unsigned long reports; /* kernel error reports during the run */
};

void lab_race_run(struct lab_race_result *r);

#endif
