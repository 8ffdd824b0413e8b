/* kernel/time.h - time: a monotonic nanosecond clock, busy-wait delays and
 * each CPU's clock event.
 *
 * The clock is the TSC, calibrated at boot against the HPET (or the PIT
 * when there is no HPET); QEMU keeps the TSCs of its vCPUs in step, and
 * ktime_get_ns() may be called on any CPU, in any context.
 *
 * The clock event: each CPU's local APIC timer, in one-shot mode, raises
 * one interrupt at the CPU's earliest deadline: its first timer
 * (kernel/timer.h) or the end of the running thread's slice (the fair
 * class, kernel/sched_internal.h), whichever comes first; with neither,
 * none at all (a CPU with nothing to do takes no timer interrupt: no tick).
 * The interrupt runs the expired timers and the slice check, then programs
 * the next deadline. The hardware is written only when the earliest
 * deadline moves.
 *
 * Who programs: only the CPU itself (the APIC timer is per CPU). A CPU
 * that moves one of its own deadlines calls clockevent_reevaluate(); a CPU
 * that moves another's deadline earlier (a timer armed there, a thread
 * queued behind its running one) calls clockevent_kick(), an IPI after
 * which the owner re-evaluates. A deadline moved later needs no IPI and no
 * write while the CPU is busy: the interrupt comes early, finds nothing
 * due and programs the real one. The idle loop programs exactly before
 * each halt, so an idle CPU is woken only by what is due.
 *
 * nohz=off restores a periodic tick of CLOCK_TICK_HZ instead (every
 * timer and slice then ends on a tick, as baton's did before), for
 * comparisons and labs.
 *
 * Interface:
 *   time_init()               calibrate the TSC (boot CPU, early)
 *   ktime_get_ns()            nanoseconds since time_init()
 *   udelay(us), mdelay(ms)    spin (callable with interrupts off)
 *   tsc_khz                   the calibrated TSC frequency
 *   clock_rate(what, measured, exact)  the rate the arch is to take for a
 *                             clock it calibrated (the TSC, the local APIC
 *                             timer): measured, or in deterministic mode
 *                             (kernel/deterministic.h) exact
 *   clockevent_start_cpu()    this CPU's clock event (every CPU, at each
 *                             bring-up, interrupts off: an INIT stops it)
 *   clockevent_stop_cpu()     stop it (a CPU going offline, interrupts off)
 *   clockevent_reevaluate()   this CPU, interrupts off: one of its deadlines
 *                             moved; program the earliest if it is earlier
 *                             than the one programmed (a later one waits for
 *                             the early interrupt, or the idle loop)
 *   clockevent_earlier(when, now)  the same, when the deadline that moved is
 *                             known and now earlier than before: when (now:
 *                             the caller's reading of the clock, just taken
 *                             with interrupts off, or 0)
 *   clockevent_idle()         this CPU's idle loop, interrupts off, before it
 *                             halts: program exactly its earliest deadline, or
 *                             none
 *   clockevent_kick(cpu)      another CPU's deadline moved earlier
 *   clockevent_get_stats(cpu, st)  interrupts, programmings and kicks
 *   clockevent_periodic()     is nohz=off in force?
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "lib/types.h"

#define NSEC_PER_SEC  1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL
/* "No deadline": later than any time the clock will reach. */
#define KTIME_MAX UINT64_MAX
/* The periodic tick of nohz=off. */
#define CLOCK_TICK_HZ 100

extern u64 tsc_khz;

void time_init(void);
u64 ktime_get_ns(void);
/* A clock rate for what ("TSC", "local APIC timer"): measured outside
 * deterministic mode; in it, exact (the rate -icount gives), after a check
 * that the measurement agrees within 1% (it panics otherwise: the machine
 * is not QEMU with -icount). Boot CPU, at calibration; deterministic mode
 * (kernel/debug/deterministic.c) decides. */
u64 clock_rate(const char *what, u64 measured, u64 exact);
void udelay(u64 us);
void mdelay(u64 ms);

/* Figures of one CPU's clock event (a glance: another CPU's move on). */
struct clockevent_stats {
	u64 nr_events;	 /* timer interrupts taken */
	u64 nr_early;	 /* ... that found nothing due (a clamped delta, a
			  * deadline moved later, the count rounding) */
	u64 nr_programs; /* writes of the one-shot count (or cancels) */
	u64 nr_kicks;	 /* re-evaluations other CPUs asked for */
	u64 next_ns;	 /* the deadline programmed, KTIME_MAX: none */
};

void clockevent_start_cpu(void);
void clockevent_stop_cpu(void);
void clockevent_reevaluate(void);
void clockevent_earlier(u64 deadline, u64 now);
void clockevent_idle(void);
/* Halt until us have passed, taking interrupts meanwhile (the boot CPU
 * before threads exist). Interrupts off on entry and on return. */
void clockevent_halt_for(u64 us);
void clockevent_kick(unsigned int cpu);
void clockevent_get_stats(unsigned int cpu, struct clockevent_stats *st);
bool clockevent_periodic(void);
/* The vector handlers (kernel/smpboot.c registers them): the local APIC timer's
 * interrupt, and the kick IPI. */
void clockevent_interrupt(void);
void clockevent_kick_interrupt(void);

#endif
