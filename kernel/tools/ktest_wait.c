/* kernel/tools/ktest_wait.c - the pause of KT_WAIT_UNTIL (ktest.h). */
#include "arch/x86_64/cpu.h"
#include "kernel/preempt.h"
#include "kernel/time.h"
#include "kernel/tools/ktest.h"
#include "kernel/wait.h"

/* The first call sets the deadline; false once it has passed. */
static bool wait_on(u64 *deadline_ns)
{
	u64 now = ktime_get_ns();

	if (!*deadline_ns)
		*deadline_ns = now + KT_WAIT_LIMIT_NS;
	return now < *deadline_ns;
}

/* May be called in any context: it sleeps only where the caller may. */
bool ktest_wait_poll(u64 *deadline_ns)
{
	if (!wait_on(deadline_ns))
		return false;
	if (preempt_count() == 0 && !irqs_disabled() && sched_ready)
		msleep(1);
	else
		cpu_relax();
	return true;
}

bool ktest_wait_poll_busy(u64 *deadline_ns)
{
	if (!wait_on(deadline_ns))
		return false;
	udelay(100);
	return true;
}
