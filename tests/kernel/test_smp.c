/* tests/kernel/test_smp.c - every CPU online, IPIs, spinlocks, timer interrupts, the
 * I/O APIC and the clock. Cases that need two CPUs skip on one. */
#include "arch/x86_64/apic.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/traps.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/kstack.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"
#include "tests/kernel/ktest_helpers.h"

static void masks_are_nested(struct ktest *t)
{
	KT_EXPECT_TRUE(t, cpumask_subset(&cpu_active_mask, &cpu_online_mask));
	KT_EXPECT_TRUE(t, cpumask_subset(&cpu_online_mask, &cpu_present_mask));
	KT_EXPECT_TRUE(t, cpumask_subset(&cpu_present_mask, &cpu_possible_mask));
	KT_EXPECT_TRUE(t, cpu_online(0));
	/* Every present CPU came up (QEMU's always do). */
	KT_EXPECT_TRUE(t, cpumask_equal(&cpu_online_mask, &cpu_present_mask));
	KT_EXPECT_EQ(t, cpumask_weight(&cpu_possible_mask), nr_cpu_ids);
}

static u32 reported_apic[NR_CPUS];
static unsigned int reported_cpu[NR_CPUS];

static void report_identity(void *arg)
{
	unsigned int cpu = smp_processor_id();

	reported_apic[cpu] = lapic_id();
	reported_cpu[cpu] = cpu;
}

static void every_cpu_reports_its_apic_id(struct ktest *t)
{
	unsigned int cpu, other;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		reported_apic[cpu] = ~0u;
	KT_EXPECT_EQ(t, on_each_cpu(report_identity, NULL, true), 0);
	for_each_online_cpu(cpu) {
		KT_EXPECT_EQ(t, reported_apic[cpu], cpu_apic_ids[cpu]);
		KT_EXPECT_EQ(t, reported_apic[cpu], per_cpu_ptr(cpu)->apic_id);
		KT_EXPECT_EQ(t, reported_cpu[cpu], cpu);
		for_each_online_cpu(other)
			if (other != cpu)
				KT_EXPECT_NE(t, reported_apic[cpu], reported_apic[other]);
	}
}

static void record_cpu(void *arg)
{
	*(unsigned int *)arg = smp_processor_id();
}

static void ipi_runs_on_the_target(struct ktest *t)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		unsigned int where = ~0u;

		KT_EXPECT_EQ(t, smp_call_function_single(cpu, record_cpu, &where, true), 0);
		KT_EXPECT_EQ(t, where, cpu);
	}
	KT_EXPECT_NE(t, smp_call_function_single(NR_CPUS - 1, record_cpu, NULL, true), 0);
}

static atomic_t async_done;

static void count_async(void *arg)
{
	atomic_inc(&async_done);
}

static void calls_without_waiting(struct ktest *t)
{
	/* About 2000 calls in all, however many CPUs. */
	const unsigned int rounds = max(2000 / num_online_cpus(), 10u);

	if (!ktest_need_cpus(t, 2))
		return;
	atomic_set(&async_done, 0);
	for (unsigned int i = 0; i < rounds; i++)
		smp_call_function_many(&cpu_online_mask, count_async, NULL, false);
	unsigned int want = rounds * (num_online_cpus() - 1);

	KT_WAIT_UNTIL(t, (unsigned int)atomic_read(&async_done) >= want);
	KT_EXPECT_EQ(t, atomic_read(&async_done), want);
}

/* Acquisitions in all, shared by the CPUs. Small on purpose: with more
 * vCPUs than host cores every ticket hand-off may wait for the host to run
 * the next waiter's vCPU (a fair lock's price under virtualisation). */
#define LOCK_ACQUISITIONS 4000
static unsigned int lock_rounds;
static DEFINE_SPINLOCK(test_lock);
static unsigned long locked_counter; /* test_lock */
static atomic_t lock_workers_done;

static void hammer_lock(void *arg)
{
	for (unsigned int i = 0; i < lock_rounds; i++) {
		spin_lock(&test_lock);
		locked_counter++;
		spin_unlock(&test_lock);
	}
	atomic_inc(&lock_workers_done);
}

/* All CPUs at once, the caller included: the count must come out exact. */
static void spinlock_counter_is_exact(struct ktest *t)
{
	unsigned int n = num_online_cpus();

	lock_rounds = max(LOCK_ACQUISITIONS / n, 50u);
	locked_counter = 0;
	atomic_set(&lock_workers_done, 0);
	smp_call_function_many(&cpu_online_mask, hammer_lock, NULL, false);
	unsigned long flags = local_irq_save();

	hammer_lock(NULL);
	local_irq_restore(flags);
	KT_WAIT_UNTIL(t, (unsigned int)atomic_read(&lock_workers_done) == n);
	KT_EXPECT_EQ(t, locked_counter, (unsigned long)n * lock_rounds);
}

static void unlock_it(void *lock)
{
	spin_unlock(lock);
}

static void unlock_by_non_owner_warns(struct ktest *t)
{
	static DEFINE_SPINLOCK(l);

	if (!ktest_need_cpus(t, 2))
		return;
	unsigned int other = cpumask_any_but(&cpu_online_mask, smp_processor_id());

	spin_lock(&l);
	ktest_expect_warnings(t, "kernel/spinlock.c", 1);
	/* The other CPU releases a lock it does not hold: refused, reported. */
	smp_call_function_single(other, unlock_it, &l, true);
	KT_EXPECT_TRUE(t, spin_lock_held(&l));
	spin_unlock(&l);
	KT_EXPECT_FALSE(t, spin_is_locked(&l));
}

/* Is cpu halted waiting for l (spin_halt_us)? */
static bool halted_waiting_for(unsigned int cpu, struct spinlock *l)
{
	struct spin_cpu *sc = &per_cpu_ptr(cpu)->spin;

	for (unsigned int d = 0; d < SPIN_WAIT_LEVELS; d++)
		if (READ_ONCE(sc->wait[d].lock) == l)
			return true;
	return false;
}

static u16 stuck_reports_before;
static volatile bool holder_saw_report;

/* Holds the lock until the waiter (cpu *arg) has reported its wait (in an
 * IPI handler, interrupts off: the wait spins), however slowly the host
 * runs either; or, if the waiter halted (it reports when the wait ends),
 * until spin_stuck_ms more have passed since it was seen halted: its wait
 * is longer than that by construction. */
static void hold_lock_until_reported(void *arg)
{
	unsigned int waiter = *(unsigned int *)arg;
	u64 deadline = 0, halted_at = 0;

	spin_lock(&test_lock);
	while (READ_ONCE(test_lock.stuck_reports) == stuck_reports_before &&
	       ktest_wait_poll(&deadline)) {
		if (!halted_at && halted_waiting_for(waiter, &test_lock))
			halted_at = ktime_get_ns();
		if (halted_at && ktime_get_ns() - halted_at > (u64)spin_stuck_ms * 1000000)
			break;
	}
	holder_saw_report = READ_ONCE(test_lock.stuck_reports) != stuck_reports_before || halted_at;
	spin_unlock(&test_lock);
}

/* A wait longer than spin_stuck_ms is reported, once per wait: the holder
 * lets go only after the report (or, for a waiter that halted, after the
 * time), so the wait is long enough by construction, and one wait gives
 * exactly one report. */
static void spinlock_held_too_long_is_reported(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	unsigned int saved = spin_stuck_ms;

	spin_stuck_ms = 100;
	stuck_reports_before = test_lock.stuck_reports;
	holder_saw_report = false;
	preempt_disable(); /* the waits below spin: we stay on this CPU */
	unsigned int me = smp_processor_id();
	unsigned int other = cpumask_any_but(&cpu_online_mask, me);

	smp_call_function_single(other, hold_lock_until_reported, &me, false);
	KT_WAIT_UNTIL(t, spin_is_locked(&test_lock));
	/* Interrupts off, as everywhere test_lock is taken: IPI handlers take
	 * it too (the lock validator reports a plain spin_lock() here). This
	 * waits until the wait was reported, after 100 ms. */
	unsigned long flags = spin_lock_irqsave(&test_lock);
	spin_unlock_irqrestore(&test_lock, flags);
	preempt_enable();
	spin_stuck_ms = saved;
	KT_EXPECT_TRUE(t, holder_saw_report);
	/* Other locks may be reported too on a crowded host: count this one. */
	KT_EXPECT_EQ(t, (u16)(test_lock.stuck_reports - stuck_reports_before), 1);
}

static u64 sum_spin_stat(size_t offset)
{
	u64 sum = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		sum += READ_ONCE(*(u64 *)((char *)&per_cpu_ptr(cpu)->spin + offset));
	return sum;
}

/* Waiters that halt are woken by the unlock that serves them, and none is
 * left halted. Two locks: kick_lock_irq, taken with interrupts off (in IPI
 * handlers on every other CPU, and here): only the kick's NMI wakes a
 * waiter; kick_lock, taken with interrupts on by a work item on every CPU:
 * its waiters halt with interrupts on and take them while halted. First
 * every other CPU waits, halted, for kick_lock_irq held here
 * (spin_halt_us=1: a waiter halts at its second look at the clock); then
 * all go on taking each lock, halting at most contended acquisitions. A
 * lost wake-up leaves a count short and a wait below times out. */
static DEFINE_SPINLOCK(kick_lock_irq);
static DEFINE_SPINLOCK(kick_lock);
static unsigned long kick_count_irq; /* kick_lock_irq */
static unsigned long kick_count;     /* kick_lock */
static atomic_t kick_done;

static void hammer_kick_lock_irq(void *arg)
{
	for (unsigned int i = 0; i < lock_rounds; i++) {
		unsigned long flags = spin_lock_irqsave(&kick_lock_irq);

		kick_count_irq++;
		spin_unlock_irqrestore(&kick_lock_irq, flags);
	}
	atomic_inc(&kick_done);
}

static void hammer_kick_lock(struct work_struct *w)
{
	for (unsigned int i = 0; i < lock_rounds; i++) {
		spin_lock(&kick_lock);
		kick_count++;
		spin_unlock(&kick_lock);
	}
}

static struct work_struct kick_works[NR_CPUS];

static void halted_spinlock_waiters_are_kicked(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	unsigned int saved = spin_halt_us, n = num_online_cpus(), cpu;
	u64 halts = sum_spin_stat(offsetof(struct spin_cpu, halts));
	u64 kicks = sum_spin_stat(offsetof(struct spin_cpu, kicks_sent));

	spin_halt_us = 1;
	lock_rounds = max(LOCK_ACQUISITIONS / n, 50u);
	kick_count_irq = kick_count = 0;
	atomic_set(&kick_done, 0);
	preempt_disable();
	unsigned long flags = spin_lock_irqsave(&kick_lock_irq);

	smp_call_function_many(&cpu_online_mask, hammer_kick_lock_irq, NULL, false);
	KT_WAIT_UNTIL(t, READ_ONCE(kick_lock_irq.halted) == n - 1);
	spin_unlock_irqrestore(&kick_lock_irq, flags);
	hammer_kick_lock_irq(NULL);
	preempt_enable();
	KT_WAIT_UNTIL(t, (unsigned int)atomic_read(&kick_done) == n);
	for_each_online_cpu(cpu) {
		INIT_WORK(&kick_works[cpu], hammer_kick_lock);
		queue_work_on(cpu, system_wq, &kick_works[cpu]);
	}
	for_each_online_cpu(cpu)
		flush_work(&kick_works[cpu]);
	spin_halt_us = saved;
	KT_EXPECT_EQ(t, kick_count_irq, (unsigned long)n * lock_rounds);
	KT_EXPECT_EQ(t, kick_count, (unsigned long)n * lock_rounds);
	KT_EXPECT_EQ(t, READ_ONCE(kick_lock_irq.halted) + READ_ONCE(kick_lock.halted), 0);
	KT_EXPECT_LE(t, (u64)(n - 1), sum_spin_stat(offsetof(struct spin_cpu, halts)) - halts);
	KT_EXPECT_LE(t, (u64)(n - 1), sum_spin_stat(offsetof(struct spin_cpu, kicks_sent)) - kicks);
}

/* A CPU waiting for its cross-CPU calls halts after spin_halt_us (here 1:
 * at its second look at the clock) and the last call done kicks it. Each
 * call below returns only once the caller is seen halted, so each wait
 * ends in a halt that the kick's NMI ends (the CPU counts it as it takes
 * it, spin.kicks_taken), unless another interrupt comes first: then the
 * caller may find its calls done and need no kick. So the rounds are
 * counted, and most must have been kicked; without the kick none is (some
 * later interrupt ends each halt instead). */
#define CALL_KICK_ROUNDS 16
static volatile bool call_saw_halt;

static void return_once_caller_halted(void *arg)
{
	struct smp_cpu *s = &per_cpu_ptr(*(unsigned int *)arg)->smp;
	u64 deadline = 0;

	while (!READ_ONCE(s->call_halted) && ktest_wait_poll(&deadline))
		;
	if (!READ_ONCE(s->call_halted))
		call_saw_halt = false;
}

static void halted_call_waiters_are_kicked(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	unsigned int saved = spin_halt_us;

	spin_halt_us = 1;
	call_saw_halt = true;
	preempt_disable(); /* the caller's CPU is the one that halts */
	unsigned int me = smp_processor_id();
	struct smp_cpu *s = &this_cpu_ptr()->smp;
	u64 halts = s->call_halts, kicks = READ_ONCE(s->call_kicks);
	u64 taken = this_cpu_ptr()->spin.kicks_taken;

	/* One target, then every other CPU (the last of them kicks). */
	for (unsigned int i = 0; i < CALL_KICK_ROUNDS / 2; i++) {
		smp_call_function_single(cpumask_any_but(&cpu_online_mask, me),
					 return_once_caller_halted, &me, true);
		smp_call_function_many(&cpu_online_mask, return_once_caller_halted, &me, true);
	}
	u64 halted = s->call_halts - halts, kicked = READ_ONCE(s->call_kicks) - kicks;
	u64 woken = this_cpu_ptr()->spin.kicks_taken - taken;

	preempt_enable();
	spin_halt_us = saved;
	KT_EXPECT_TRUE(t, call_saw_halt);
	KT_EXPECT_LE(t, CALL_KICK_ROUNDS, halted);
	KT_EXPECT_LE(t, CALL_KICK_ROUNDS / 2, kicked);
	KT_EXPECT_LE(t, CALL_KICK_ROUNDS / 2, woken);
}

/*
 * A TLB shootdown skips a CPU halted in its idle loop, which flushes as it
 * wakes (sched_cpu_flush_tlb_on_wake()). Here a stack's translation is
 * cached on another CPU, which then goes idle; the stack is freed, its
 * slot handed out again with other frames, marked; and a work item on the
 * idle CPU reads the slot: a stale translation would read the old frames
 * (when the allocator gave the slot other frames), and the CPU must have
 * counted a flush as it woke.
 * Tried until the shootdown did skip the CPU (it took no call IPI), which
 * an idle CPU with nothing to do makes the first try almost always.
 */
#define IDLE_TLB_OFF   512
#define IDLE_TLB_TRIES 10
static void *idle_tlb_stack;
static volatile u64 idle_tlb_seen;

static void idle_tlb_touch(struct work_struct *w)
{
	*(volatile u64 *)((char *)idle_tlb_stack + IDLE_TLB_OFF) = 0xdead;
}

static void idle_tlb_read(struct work_struct *w)
{
	idle_tlb_seen = *(volatile u64 *)((char *)idle_tlb_stack + IDLE_TLB_OFF);
}

static void an_idle_cpu_flushes_a_shootdown_it_slept_through(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	/* Kept on one CPU: waking from its polls on the other, this thread
	 * would keep that one busy. */
	struct cpumask saved = current->cpus_allowed;

	set_cpus_allowed(current, cpumask_of(smp_processor_id()));
	unsigned int other = cpumask_any_but(&cpu_online_mask, smp_processor_id());
	struct work_struct w;
	bool skipped = false;

	for (unsigned int try = 0; try < IDLE_TLB_TRIES && !skipped; try++) {
		void *got[64];
		unsigned int n = 0;

		idle_tlb_stack = kstack_alloc("test:idle-tlb");
		if (!idle_tlb_stack) {
			KT_EXPECT_TRUE(t, idle_tlb_stack != NULL);
			break;
		}
		INIT_WORK(&w, idle_tlb_touch);
		queue_work_on(other, system_wq, &w); /* it caches the translation */
		flush_work(&w);
		KT_WAIT_UNTIL(t, sched_cpu_idle_halted(other));
		u64 calls = READ_ONCE(per_cpu_ptr(other)->smp.ipis_call);
		u64 flushes = READ_ONCE(per_cpu_ptr(other)->sched.wake_flushes);

		kstack_free(idle_tlb_stack);
		skipped = READ_ONCE(per_cpu_ptr(other)->smp.ipis_call) == calls;
		/* The slot again, with other frames: it is the first free slot. */
		while (n < ARRAY_SIZE(got) && (got[n] = kstack_alloc("test:idle-tlb-new"))) {
			*(volatile u64 *)((char *)got[n] + IDLE_TLB_OFF) = 0x57ac + n;
			if (got[n++] == idle_tlb_stack)
				break;
		}
		if (!n || got[n - 1] != idle_tlb_stack) {
			KT_EXPECT_TRUE(t, n > 0 && got[n - 1] == idle_tlb_stack);
			while (n)
				kstack_free(got[--n]);
			break;
		}
		idle_tlb_seen = 0;
		INIT_WORK(&w, idle_tlb_read);
		queue_work_on(other, system_wq, &w);
		flush_work(&w);
		KT_EXPECT_EQ(t, idle_tlb_seen, 0x57ac + n - 1);
		/* Skipped, it flushed as it woke, before the item ran there (the
		 * read above tells only when the slot got other frames). */
		if (skipped)
			KT_EXPECT_LT(t, flushes, READ_ONCE(per_cpu_ptr(other)->sched.wake_flushes));
		while (n)
			kstack_free(got[--n]);
	}
	set_cpus_allowed(current, &saved);
	KT_EXPECT_TRUE(t, skipped);
}

static volatile int cross_phase;

static void call_back(void *arg)
{
	unsigned int *where = arg;

	*where = smp_processor_id();
}

static void call_the_caller(void *arg)
{
	unsigned int caller = *(unsigned int *)arg, where = ~0u;

	/* In an IPI handler, interrupts off: call the CPU that is waiting on us. */
	smp_call_function_single(caller, call_back, &where, true);
	*(unsigned int *)arg = where;
}

static void cpus_calling_each_other_do_not_deadlock(struct ktest *t)
{
	if (!ktest_need_cpus(t, 2))
		return;
	unsigned int self = smp_processor_id();
	unsigned int other = cpumask_any_but(&cpu_online_mask, self);
	unsigned int arg = self;
	unsigned long flags = local_irq_save();

	smp_call_function_single(other, call_the_caller, &arg, true);
	local_irq_restore(flags);
	KT_EXPECT_EQ(t, arg, self);
}

/* Every online CPU takes its clock-event interrupt: a timer armed on each
 * runs there, in that CPU's interrupt (its count of them grows). There is
 * no tick to count: an idle CPU takes no timer interrupt unless one of its
 * timers is due (suite timer). */
static struct timer_list cpu_timers[NR_CPUS];
static volatile unsigned int cpu_timer_ran_on[NR_CPUS];

static void cpu_timer_fn(struct timer_list *tl)
{
	cpu_timer_ran_on[tl - cpu_timers] = smp_processor_id();
}

static bool every_cpu_timer_ran(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (READ_ONCE(cpu_timer_ran_on[cpu]) == NR_CPUS)
			return false;
	return true;
}

static void every_cpu_takes_timer_interrupts(struct ktest *t)
{
	u64 events[NR_CPUS];
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct clockevent_stats st;

		clockevent_get_stats(cpu, &st);
		events[cpu] = st.nr_events;
		cpu_timer_ran_on[cpu] = NR_CPUS;
		timer_setup(&cpu_timers[cpu], cpu_timer_fn);
		add_timer_on(&cpu_timers[cpu], ktime_get_ns() + NSEC_PER_MSEC, cpu);
	}
	KT_WAIT_UNTIL(t, every_cpu_timer_ran());
	for_each_online_cpu(cpu) {
		struct clockevent_stats st;

		clockevent_get_stats(cpu, &st);
		KT_EXPECT_EQ(t, cpu_timer_ran_on[cpu], cpu);
		KT_EXPECT_LT(t, events[cpu], st.nr_events);
		del_timer_sync(&cpu_timers[cpu]);
	}
}

static volatile u64 pit_irqs;

static void pit_interrupt(struct pt_regs *regs)
{
	pit_irqs++;
}

/* ISA IRQ 0 arrives on GSI 2 (QEMU's override): route it, let the PIT run
 * at 1 kHz, and count interrupts on this CPU. */
static void ioapic_delivers_the_pit(struct ktest *t)
{
	u64 entry;
	static bool registered;

	KT_EXPECT_EQ(t, ioapic_isa_irq_gsi(0), 2);
	if (!registered)
		KT_ASSERT_TRUE(t, irq_register_vector(ISA_IRQ_VECTOR(0), pit_interrupt) == 0);
	registered = true;
	outb(0x43, 0x34); /* channel 0, lobyte/hibyte, mode 2 (rate generator) */
	outb(0x40, 1193 & 0xFF);
	outb(0x40, 1193 >> 8);
	pit_irqs = 0;
	KT_ASSERT_TRUE(t, ioapic_route_isa_irq(0, lapic_id()) == 0);
	KT_EXPECT_EQ(t, ioapic_read_route(0, &entry), 0);
	KT_EXPECT_EQ(t, entry & 0xFF, ISA_IRQ_VECTOR(0));
	KT_EXPECT_FALSE(t, entry & (1 << 16));
	KT_WAIT_UNTIL(t, pit_irqs >= 20);
	ioapic_mask_isa_irq(0);
	KT_EXPECT_TRUE(t, pit_irqs >= 20);
	u64 seen = pit_irqs;

	mdelay(30);
	KT_EXPECT_TRUE(t, pit_irqs - seen <= 1); /* masked: no more */
}

static volatile u64 stamp;

static void stamp_later(void *arg)
{
	u64 before = *(u64 *)arg;
	u64 now = ktime_get_ns();

	stamp = now >= before ? now : 0;
}

static void clock_is_monotonic_across_cpus(struct ktest *t)
{
	unsigned int cpu;

	for (int round = 0; round < 20; round++) {
		for_each_online_cpu(cpu) {
			u64 now = ktime_get_ns();

			stamp = 1;
			smp_call_function_single(cpu, stamp_later, &now, true);
			KT_EXPECT_NE(t, stamp, 0);
		}
	}
	u64 a = ktime_get_ns();

	udelay(1000);
	u64 b = ktime_get_ns();

	KT_EXPECT_TRUE(t, b - a >= 1000 * NSEC_PER_USEC);
	KT_EXPECT_TRUE(t, tsc_khz > 100000);
}

KTEST_SUITE(smp, KTEST_CASE(masks_are_nested), KTEST_CASE(every_cpu_reports_its_apic_id),
	    KTEST_CASE(ipi_runs_on_the_target), KTEST_CASE(calls_without_waiting),
	    KTEST_CASE(spinlock_counter_is_exact), KTEST_CASE(unlock_by_non_owner_warns),
	    KTEST_CASE(spinlock_held_too_long_is_reported),
	    KTEST_CASE(halted_spinlock_waiters_are_kicked),
	    KTEST_CASE(halted_call_waiters_are_kicked),
	    KTEST_CASE(an_idle_cpu_flushes_a_shootdown_it_slept_through),
	    KTEST_CASE(cpus_calling_each_other_do_not_deadlock),
	    KTEST_CASE(every_cpu_takes_timer_interrupts), KTEST_CASE(ioapic_delivers_the_pit),
	    KTEST_CASE(clock_is_monotonic_across_cpus));
