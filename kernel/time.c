/* kernel/time.c - each CPU's clock event; see time.h (the clock itself is
 * arch/x86_64/tsc.c, the hardware arch/x86_64/apic.c).
 *
 * Field legend: C = this CPU only, with interrupts off (its interrupt
 * handler writes them too); read by other CPUs only as a glance (stats).
 */
#define pr_fmt(fmt) "time: " fmt
#include "kernel/time.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/timer.h"
#include "kernel/trace.h"

static bool nohz = true;
PARAM_BOOL(nohz, nohz,
	   "one-shot timer interrupts at each CPU's next deadline (off: a periodic tick of "
	   "100 Hz, every timer and slice rounded to it)");

struct clock_event {
	/* C: its deadlines may be programmed now: set up in one-shot mode
	 * since the CPU's last start, and not inside its own interrupt
	 * (which programs once, at its end) */
	bool direct;
	u64 programmed;	 /* C: the deadline the hardware fires at (KTIME_MAX: none) */
	u64 nr_events;	 /* C */
	u64 nr_early;	 /* C */
	u64 nr_programs; /* C */
	u64 nr_kicks;	 /* C */
} __aligned(64);	 /* one cache line each: written by its own CPU */

static struct clock_event clock_events[NR_CPUS];

static struct clock_event *this_ce(void)
{
	return &clock_events[smp_processor_id()];
}

bool clockevent_periodic(void)
{
	return !nohz;
}

/* The hardware to deadline (KTIME_MAX: no interrupt); now is the clock
 * read by the caller just before, or 0. Interrupts off. */
static void program(struct clock_event *ce, u64 deadline, u64 now)
{
	ce->programmed = deadline;
	ce->nr_programs++;
	if (deadline == KTIME_MAX) {
		lapic_timer_cancel();
		trace_event(TR_CLOCK_PROGRAM, NULL, 0, 0);
		return;
	}
	if (!now)
		now = ktime_get_ns();
	u64 delta = deadline > now ? deadline - now : 0;

	lapic_timer_oneshot(delta);
	trace_event(TR_CLOCK_PROGRAM, NULL, deadline, delta);
}

/* Program this CPU's earliest deadline (its first timer or its slice's
 * end) if it moved earlier than the one programmed, or, exact, if it moved
 * at all. Interrupts off. */
static void reprogram(bool exact)
{
	struct clock_event *ce = this_ce();

	assert(irqs_disabled());
	if (!ce->direct)
		return;
	u64 next = min(timers_next_expiry(), sched_next_event());

	if (next < ce->programmed || (exact && next != ce->programmed))
		program(ce, next, 0);
}

/* A deadline that moved earlier is programmed at once. One that moved later
 * is left as it is, on a busy CPU: the interrupt at the old deadline finds
 * nothing due and programs the new one, which costs less than writing the
 * hardware at every change (a thread queued behind the running one sets a
 * slice end, which goes again as soon as the running one blocks). An idle
 * CPU programs exactly, before each halt: clockevent_idle(). */
void clockevent_reevaluate(void)
{
	reprogram(false);
}

/* The hardware is never set later than any deadline (one moved earlier is
 * programmed at once), so a deadline earlier than the one programmed is the
 * earliest of all: no need to ask the others. */
void clockevent_earlier(u64 deadline, u64 now)
{
	struct clock_event *ce = this_ce();

	assert(irqs_disabled());
	if (deadline < ce->programmed && ce->direct)
		program(ce, deadline, now);
}

void clockevent_halt_for(u64 us)
{
	u64 now = ktime_get_ns(), end = now + us * NSEC_PER_USEC;

	assert(irqs_disabled());
	while (now < end) {
		clockevent_earlier(end, now);
		__asm__ volatile("sti; hlt; cli" ::: "memory");
		now = ktime_get_ns();
	}
}

void clockevent_idle(void)
{
	reprogram(true);
}

void clockevent_kick(unsigned int cpu)
{
	struct percpu *pc = per_cpu_ptr(cpu);

	if (!nohz || !pc || !cpu_online(cpu))
		return; /* the tick, or not running: it re-evaluates as it starts */
	lapic_send_ipi(pc->apic_id, CLOCK_KICK_VECTOR); /* orders the deadline before it */
}

void clockevent_kick_interrupt(void)
{
	this_ce()->nr_kicks++;
	clockevent_reevaluate();
}

void clockevent_interrupt(void)
{
	struct clock_event *ce = this_ce();
	u64 due = ce->programmed;
	bool direct = ce->direct;

	ce->nr_events++;
	if (nohz)
		ce->programmed = KTIME_MAX; /* a one-shot: spent */
	trace_event(TR_CLOCK_EVENT, NULL, due == KTIME_MAX ? 0 : due, 0);
	ce->direct = false;
	unsigned int expired = run_timers();
	bool slice = sched_clock_event();

	ce->direct = direct;
	if (!expired && !slice)
		ce->nr_early++;
	clockevent_reevaluate();
}

void clockevent_start_cpu(void)
{
	struct clock_event *ce = this_ce();

	assert(irqs_disabled());
	ce->programmed = KTIME_MAX;
	if (!nohz) {
		lapic_timer_periodic(CLOCK_TICK_HZ);
	} else {
		lapic_timer_setup_oneshot();
		ce->direct = true;
		clockevent_reevaluate(); /* timers may be queued here already */
	}
}

void clockevent_stop_cpu(void)
{
	struct clock_event *ce = this_ce();

	assert(irqs_disabled());
	lapic_timer_stop();
	ce->direct = false;
	ce->programmed = KTIME_MAX;
}

void clockevent_get_stats(unsigned int cpu, struct clockevent_stats *st)
{
	const struct clock_event *ce = &clock_events[cpu];

	*st = (struct clockevent_stats){
		.nr_events = READ_ONCE(ce->nr_events),
		.nr_early = READ_ONCE(ce->nr_early),
		.nr_programs = READ_ONCE(ce->nr_programs),
		.nr_kicks = READ_ONCE(ce->nr_kicks),
		.next_ns = READ_ONCE(ce->programmed),
	};
}
