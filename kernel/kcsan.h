/* kernel/kcsan.h - the data-race detector (kernel/kcsan.c, make KCSAN=1).
 *
 *   kcsan_init()     turn it on (kmain, once per-CPU data and current exist)
 *   data_race(expr)  an access that is racy on purpose, and harmless: not
 *                    checked. Say why at each use.
 */
#ifndef KERNEL_KCSAN_H
#define KERNEL_KCSAN_H

#include "kernel/sched.h"

void kcsan_init(void);
/* Watch about once per n accesses of a CPU from now on (tests: 1, every
 * access); returns the old n. */
unsigned int kcsan_set_skip_watch(unsigned int n);

#ifdef CONFIG_KCSAN
#define data_race(expr)                                                                            \
	({                                                                                         \
		current->kcsan_disable++;                                                          \
		__auto_type __v = (expr);                                                          \
		current->kcsan_disable--;                                                          \
		__v;                                                                               \
	})
#else
#define data_race(expr) (expr)
#endif

#endif
