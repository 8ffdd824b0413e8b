/* kernel/kcsan.h - the data-race detector (kernel/kcsan.c; make SAN=1 or SAN=kcsan).
 *
 *   kcsan_init()     turn it on (kmain, once per-CPU data and current exist)
 *   data_race(expr)  an access that is racy on purpose, and harmless: not
 *                    checked. Say why at each use.
 */
#ifndef KERNEL_KCSAN_H
#define KERNEL_KCSAN_H

#include "lib/types.h"

void kcsan_init(void);
/* Watch about once per n accesses of a CPU from now on (tests: 1, every
 * access); returns the old n. */
unsigned int kcsan_set_skip_watch(unsigned int n);

/* Counts since boot: watchpoints set, races seen (the same pair again
 * included), races reported (each pair of functions once). on: the image
 * has the detector and it is running. */
struct kcsan_stats {
	bool on;
	unsigned long watchpoints, races, reported;
};
void kcsan_get_stats(struct kcsan_stats *st);

/* data_race()'s own: n more (or fewer) data_race() entered in this context. */
void kcsan_nest(int delta);

#ifdef CONFIG_KCSAN
#define data_race(expr)                                                                            \
	({                                                                                         \
		kcsan_nest(1);                                                                     \
		__auto_type __v = (expr);                                                          \
		kcsan_nest(-1);                                                                    \
		__v;                                                                               \
	})
#else
#define data_race(expr) (expr)
#endif

#endif
