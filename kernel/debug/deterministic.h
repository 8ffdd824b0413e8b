/* kernel/debug/deterministic.h - what the torture and the tests read of
 * deterministic mode: its seed, the delay points' counts. The core calls
 * only kernel/deterministic.h, which this includes; the mode is
 * kernel/debug/deterministic.c.
 */
#ifndef KERNEL_DEBUG_DETERMINISTIC_H
#define KERNEL_DEBUG_DETERMINISTIC_H

#include "kernel/deterministic.h"
#include "lib/types.h"

/* The deterministic=SEED value, 0 when off. */
u64 det_seed(void);
static inline bool det_mode(void)
{
	return det_seed() != 0;
}

/* Delay point statistics since boot, for a summary. */
struct delay_stats {
	u64 passes[NR_DELAY_SITES];
	u64 delays[NR_DELAY_SITES];
	u64 delayed_ns;
};
void delay_get_stats(struct delay_stats *st);
const char *delay_site_name(enum delay_site site);

#endif
