/* kernel/time.c - the periodic tick; see time.h (the clock is in
 * arch/x86_64/tsc.c). */
#include "kernel/time.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/percpu.h"
#include "kernel/sched.h"
#include "kernel/timer.h"

volatile u64 jiffies;

void timer_tick(void)
{
	struct percpu *pc = this_cpu_ptr();

	pc->ticks++;
	/* One CPU keeps jiffies: the boot CPU. */
	if (pc->cpu_id == 0)
		jiffies++;
	run_timers();
	scheduler_tick();
}

void tick_start_cpu(void)
{
	lapic_timer_start(HZ);
}
