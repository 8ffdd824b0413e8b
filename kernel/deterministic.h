/* kernel/deterministic.h - deterministic mode and its seeded delay points:
 * what the core calls (kernel/debug/deterministic.c does it; what the
 * torture and the tests read of it, kernel/debug/deterministic.h).
 *
 * deterministic=SEED (0: off) on the command line says: this machine is
 * QEMU with -icount (one virtual CPU at a time, guest time counted in
 * instructions), a guest-time RTC, -seed, and no input from outside. Then a
 * run is a function of the build, the command line and the QEMU
 * configuration: two runs print byte-identical serial logs, timestamps
 * included (docs/stress-testing.md says what QEMU 7.2 lets repeat and what
 * not). What the kernel does for it:
 *
 *  - every random choice derives from SEED: det_seed() is the torture's
 *    seed unless torture_seed= is given, and the delay points' generators;
 *  - the TSC and the local APIC timer are taken at the rates -icount gives
 *    them exactly (clock_rate(), kernel/time.h): calibration quantises on where in
 *    the reference clock's period it starts, which differs between runs by
 *    how long the firmware took, and a part per million shows in the log;
 *  - det_boot_quiesce() halts the boot CPU once, with every other CPU
 *    halted too, before the others start: QEMU 7.2 restarts its
 *    round-robin kick timer when a CPU wakes an all-idle machine, and
 *    from then on its phase is a function of guest time only.
 *
 * Delay points: delay_point(site) marks a hand-over window in the
 * workqueue, scheduler and hotplug paths. In deterministic mode (and with
 * delay_points= naming the site) each pass draws from a per-CPU generator
 * seeded by SEED whether to spin there, and for how long (up to
 * delay_max_us of guest time, each pause letting QEMU run the other
 * virtual CPUs). Different seeds explore different interleavings and each
 * one repeats. Outside deterministic mode a delay point is one load and a
 * branch not taken. A delay point may be passed in any context (interrupts
 * off, spinlocks held, interrupt handlers): it takes no lock and never
 * sleeps.
 */
#ifndef KERNEL_DETERMINISTIC_H
#define KERNEL_DETERMINISTIC_H

#include "lib/compiler.h"
#include "lib/types.h"

enum delay_site {
	DP_WORK_START,	 /* a worker took an item and dropped the pool lock */
	DP_WORKER_SLEEP, /* a worker blocks: its replacement is about to be chosen */
	DP_QUEUE,	 /* queue_work() chose a pool and is about to lock it */
	DP_CPU_DYING,	 /* a dying CPU is about to unbind one of its pools */
	DP_TRUSTEE,	 /* a trustee starts on a disassociated pool */
	DP_REBIND,	 /* a returning CPU is about to take a pool back */
	DP_MIGRATE,	 /* a thread moves to another CPU's run queue, on neither lock */
	DP_SCHED_DYING,	 /* a dying CPU is about to move one of its queued threads */
	DP_TIMER_MOVE,	 /* a dying CPU's timers are about to move */
	NR_DELAY_SITES
};

extern bool delay_points_on; /* I: set at boot, read anywhere */
void __delay_point(enum delay_site site);

static inline void delay_point(enum delay_site site)
{
#ifndef CONFIG_LEAN /* LEAN=1 (Makefile): no delay points */
	if (unlikely(READ_ONCE(delay_points_on)))
		__delay_point(site);
#endif
}

/* Reads the parameters and says what is on (before time_init(): the
 * clock rates depend on the mode). */
void det_init(void);

/* Deterministic mode: halt until a timer interrupt with every other CPU
 * halted (boot CPU, before the others start, interrupts off on entry and
 * on return). A no-op otherwise. */
void det_boot_quiesce(void);

#endif
