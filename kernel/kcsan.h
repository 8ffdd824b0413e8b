/* kernel/kcsan.h - what the core calls of the data-race detector
 * (kernel/debug/kcsan.c; make SAN=1 or SAN=kcsan). The compiler's
 * instrumentation calls the rest; what its tests and tools read of it (its
 * counts, the floor under its sampling), kernel/debug/kcsan.h.
 *
 *   kcsan_init()     turn it on (kmain, once per-CPU data and current exist)
 *   data_race(expr)  an access that is racy on purpose, and harmless: not
 *                    checked. Say why at each use.
 */
#ifndef KERNEL_KCSAN_H
#define KERNEL_KCSAN_H

#include "lib/types.h"

void kcsan_init(void);
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
