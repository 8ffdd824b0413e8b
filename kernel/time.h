/* kernel/time.h - time: a monotonic nanosecond clock, busy-wait delays and
 * the periodic tick.
 *
 * The clock is the TSC, calibrated at boot against the HPET (or the PIT
 * when there is no HPET); QEMU keeps the TSCs of its vCPUs in step, and
 * ktime_get_ns() may be called on any CPU, in any context.
 *
 * The tick: every online CPU's local APIC timer interrupts HZ times a
 * second and calls timer_tick(); the boot CPU also advances jiffies.
 *
 * Interface:
 *   time_init()         calibrate the TSC (boot CPU, early)
 *   ktime_get_ns()      nanoseconds since time_init()
 *   udelay(us), mdelay(ms)  spin (callable with interrupts off)
 *   jiffies             ticks since the tick started (u64, read with READ_ONCE)
 *   tsc_khz             the calibrated TSC frequency
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "lib/types.h"

#define HZ	      100
#define NSEC_PER_SEC  1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL

extern u64 tsc_khz;
extern volatile u64 jiffies;

void time_init(void);
u64 ktime_get_ns(void);
void udelay(u64 us);
void mdelay(u64 ms);
/* Called from the local APIC timer interrupt on every CPU. */
void timer_tick(void);
/* Start this CPU's tick (every CPU, at each bring-up). */
void tick_start_cpu(void);

#endif
