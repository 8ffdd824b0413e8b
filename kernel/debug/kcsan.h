/* kernel/debug/kcsan.h - what the data-race detector's tests and tools read
 * of it (the test runner, the torture, its own suite): its counts, the
 * floor under its sampling, the sampling rate. The core calls only
 * kernel/kcsan.h, which this includes; the detector is kernel/debug/kcsan.c.
 */
#ifndef KERNEL_DEBUG_KCSAN_H
#define KERNEL_DEBUG_KCSAN_H

#include "kernel/kcsan.h"
#include "lib/types.h"

/* Watch about once per n accesses of a CPU from now on (tests: 1, every
 * access); returns the old n. */
unsigned int kcsan_set_skip_watch(unsigned int n);

/* Counts since boot: watchpoints set, races seen (the same pair again
 * included), races reported (each pair of functions once), plain accesses
 * counted down by the sampler. rate_watchpoints and rate_accesses: the same
 * at the boot's own sampling rate only (a test's kcsan_set_skip_watch() left
 * out), what the floor judges. on: the image has the detector and it is
 * running. */
struct kcsan_stats {
	bool on;
	unsigned int cpus; /* that counted accesses since boot */
	unsigned long watchpoints, races, reported, accesses;
	unsigned long rate_watchpoints, rate_accesses;
};
void kcsan_get_stats(struct kcsan_stats *st);

/*
 * The floor under the sampling. At the default kcsan_skip_watch (4000) the
 * detector sets about 250 watchpoints per million plain accesses (fewer
 * where a context is not checked or a slot is busy; docs/sanitizers.md has
 * the figures measured); one sampling a hundred thousand times too rarely
 * sets 0.0025, one that never decides to watch none. Under the floor, a run
 * that saw no race made no race checks: the end of a sanitized test boot
 * (ktest) and the torture fail it. Judged over at least
 * KCSAN_FLOOR_MIN_ACCESSES_PER_CPU accesses per CPU that counted any: a
 * count still under way on each CPU (at most 6000 accesses at the default,
 * none watched yet) then pulls a working detector down to 66 per million
 * at worst, not under the floor.
 */
#define KCSAN_FLOOR_PER_MILLION		 25u
#define KCSAN_FLOOR_MIN_ACCESSES_PER_CPU 10000ul

static inline unsigned long kcsan_per_million(unsigned long watchpoints, unsigned long accesses)
{
	return accesses ? watchpoints * 1000000 / accesses : 0;
}

/* *during = the counts since *from (cpus stays since boot). */
void kcsan_stats_since(struct kcsan_stats *during, const struct kcsan_stats *from);

/* Did the detector sample at the floor or above over counts st (since
 * boot, or kcsan_stats_since()), at the boot's own rate? If not, says so in
 * why. Always true in an image without the detector. */
bool kcsan_sampled(const struct kcsan_stats *st, char *why, size_t len);

#endif
