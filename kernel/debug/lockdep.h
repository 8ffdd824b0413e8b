/* kernel/debug/lockdep.h - what the lock validator's tests and tools read
 * of it (the shell's `lockdep`, the test runner, the benchmarks, the
 * torture): whether it validates, its reports, its tables' use. The core
 * calls only the hooks of kernel/lockdep.h, which this includes; the
 * validator is kernel/debug/lockdep.c, its reports
 * kernel/debug/lockdep_report.c.
 */
#ifndef KERNEL_DEBUG_LOCKDEP_H
#define KERNEL_DEBUG_LOCKDEP_H

#include "kernel/lockdep.h"
#include "lib/types.h"

/* Validation is on (not off by lockdep=0 nor stopped by a report). */
bool lockdep_on(void);
/* Reports so far. */
unsigned long lockdep_reports(void);
/* Tests only: turn validation back on after a report they provoked. */
void lockdep_rearm(void);

/* Table use: entries in use now (those of dead classes given back). */
struct lockdep_stats {
	bool enabled, on;
	unsigned int classes, max_classes, deps, max_deps, chains, max_chains;
	unsigned int trace_ips, max_trace_ips, max_depth;
	unsigned int chain_flushes;	 /* the chain cache emptied, to reuse classes */
	unsigned long classes_reclaimed; /* classes of unregistered keys given back */
	unsigned long reports;
	u64 chain_hits, chain_misses;
};
void lockdep_get_stats(struct lockdep_stats *st); /* the shell's `lockdep` prints them */

#endif
