/* arch/x86_64/apic.c - local APIC; see apic.h.
 * Registers: Intel SDM vol. 3A, chapter 11 (APIC), table 11-1 and 11.12 (x2APIC). */
#define pr_fmt(fmt) "apic: " fmt
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/time.h"

#define APIC_ID		   0x20
#define APIC_VERSION	   0x30
#define APIC_TPR	   0x80
#define APIC_EOI	   0xB0
#define APIC_SVR	   0xF0
#define APIC_ESR	   0x280
#define APIC_ICR_LO	   0x300
#define APIC_ICR_HI	   0x310
#define APIC_LVT_TIMER	   0x320
#define APIC_LVT_LINT0	   0x350
#define APIC_LVT_LINT1	   0x360
#define APIC_LVT_ERROR	   0x370
#define APIC_TIMER_INIT	   0x380
#define APIC_TIMER_CURRENT 0x390
#define APIC_TIMER_DIVIDE  0x3E0

#define MSR_APIC_BASE	 0x1B
#define APIC_BASE_ENABLE (1UL << 11)
#define APIC_BASE_X2APIC (1UL << 10)
#define MSR_X2APIC_BASE	 0x800

#define SVR_ENABLE	     (1u << 8)
#define LVT_MASKED	     (1u << 16)
#define LVT_TIMER_PERIODIC   (1u << 17)
#define LVT_DELIVERY_NMI     (4u << 8)
#define TIMER_DIVIDE_16	     0x3
#define ICR_DELIVERY_FIXED   (0u << 8)
#define ICR_DELIVERY_NMI     (4u << 8)
#define ICR_DELIVERY_INIT    (5u << 8)
#define ICR_DELIVERY_STARTUP (6u << 8)
#define ICR_PENDING	     (1u << 12) /* xAPIC only: delivery status */
#define ICR_LEVEL_ASSERT     (1u << 14)
#define ICR_TRIGGER_LEVEL    (1u << 15)
#define ICR_ALL_BUT_SELF     (3u << 18)

#define CALIBRATE_NS 10000000ULL /* 10 ms */

static volatile u32 *lapic_mmio; /* I: xAPIC registers */
static bool use_x2apic;		 /* I: set on the boot CPU */
static u64 timer_rate;		 /* I: timer counts per second (divide 16) */
static u64 max_delta_ns;	 /* I: the longest one-shot the count holds */
static bool nox2apic;
PARAM_BOOL(nox2apic, nox2apic, "use the xAPIC (MMIO) even if the CPU has x2APIC");

static u32 apic_read(u32 reg)
{
	if (use_x2apic)
		return (u32)rdmsr(MSR_X2APIC_BASE + (reg >> 4));
	return lapic_mmio[reg / 4];
}

static void apic_write(u32 reg, u32 v)
{
	if (use_x2apic)
		wrmsr(MSR_X2APIC_BASE + (reg >> 4), v);
	else
		lapic_mmio[reg / 4] = v;
}

bool lapic_is_x2apic(void)
{
	return use_x2apic;
}

u32 lapic_id(void)
{
	return use_x2apic ? apic_read(APIC_ID) : apic_read(APIC_ID) >> 24;
}

void lapic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/* Interrupts off throughout (it turns them off itself): an interrupt
 * handler sending an IPI between the two xAPIC ICR writes would send ours
 * to its destination.
 * Every IPI tells its target to look at something this CPU stored before
 * sending it (a reschedule flag, a queued call, a new timer deadline): the
 * stores must be visible before the IPI can arrive. An xAPIC ICR write is
 * an uncached MMIO store, which x86 orders after earlier stores; the
 * x2APIC ICR is an MSR, and WRMSR to it is not serialising (Intel SDM vol.
 * 3, "x2APIC Register Address Space": not ordered with earlier stores
 * still in the store buffer). Linux fences it the same way
 * (weak_wrmsr_fence()). QEMU's TCG offers no x2APIC (KVM only), so no test
 * here can see the difference. */
static void send_icr(u32 dest, u32 lo)
{
	unsigned long flags = local_irq_save();

	if (use_x2apic) {
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(MSR_X2APIC_BASE + (APIC_ICR_LO >> 4), ((u64)dest << 32) | lo);
	} else {
		while (apic_read(APIC_ICR_LO) & ICR_PENDING)
			cpu_relax();
		apic_write(APIC_ICR_HI, dest << 24);
		apic_write(APIC_ICR_LO, lo);
	}
	local_irq_restore(flags);
}

bool lapic_ipi_idle(void)
{
	return use_x2apic || !(apic_read(APIC_ICR_LO) & ICR_PENDING);
}

void lapic_send_ipi(u32 apic_id, u8 vector)
{
	send_icr(apic_id, ICR_DELIVERY_FIXED | vector);
}

void lapic_send_nmi(u32 apic_id)
{
	send_icr(apic_id, ICR_DELIVERY_NMI);
}

void lapic_send_nmi_allbutself(void)
{
	send_icr(0, ICR_DELIVERY_NMI | ICR_ALL_BUT_SELF);
}

void lapic_send_init(u32 apic_id)
{
	send_icr(apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT | ICR_TRIGGER_LEVEL);
}

void lapic_send_startup(u32 apic_id, u8 page)
{
	send_icr(apic_id, ICR_DELIVERY_STARTUP | page);
}

void lapic_init_boot(u64 phys)
{
	u32 a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(d & (1u << 9)))
		panic("this CPU has no local APIC; baton needs one");
	use_x2apic = (c & (1u << 21)) && !nox2apic;
	if (!use_x2apic) {
		lapic_mmio = ioremap(phys, PAGE_SIZE);
		if (!lapic_mmio)
			panic("cannot map the local APIC at %lx", (unsigned long)phys);
	}
	lapic_init_cpu();
	pr_info("%s, boot CPU APIC id %u, version %#x\n", use_x2apic ? "x2APIC" : "xAPIC",
		lapic_id(), apic_read(APIC_VERSION) & 0xFF);
}

void lapic_init_cpu(void)
{
	u64 base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;

	if (use_x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_APIC_BASE, base);
	apic_write(APIC_TPR, 0); /* accept every priority */
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);	      /* the 8259 is not used */
	apic_write(APIC_LVT_LINT1, LVT_DELIVERY_NMI); /* NMI as the chipset wires it */
	apic_write(APIC_LVT_ERROR, ERROR_APIC_VECTOR);
	apic_write(APIC_ESR, 0); /* clear errors (write, then read) */
	(void)apic_read(APIC_ESR);
	apic_write(APIC_SVR, SVR_ENABLE | SPURIOUS_APIC_VECTOR);
	lapic_eoi();
}

/* Count the timer down over 10 ms of the (already calibrated) TSC clock. */
void lapic_timer_calibrate(void)
{
	apic_write(APIC_TIMER_DIVIDE, TIMER_DIVIDE_16);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0xFFFFFFFF);
	u64 t0 = ktime_get_ns();

	while (ktime_get_ns() - t0 < CALIBRATE_NS)
		cpu_relax();
	u32 left = apic_read(APIC_TIMER_CURRENT);
	u64 t1 = ktime_get_ns();

	apic_write(APIC_TIMER_INIT, 0);
	timer_rate = (u64)(0xFFFFFFFFu - left) * NSEC_PER_SEC / (t1 - t0);
	if (!timer_rate)
		panic("the local APIC timer does not count");
	/* Under -icount it counts guest ns / 16 (the divide): 62.5 MHz. */
	timer_rate = clock_rate("local APIC timer", timer_rate, NSEC_PER_SEC / 16);
	/* The longest count the register holds, in ns (rounded down, so that
	 * lapic_timer_oneshot()'s product below cannot overflow). */
	max_delta_ns = (u64)0xFFFFFFFFu * NSEC_PER_SEC / timer_rate;
	pr_info("timer: %lu kHz (divide 16), one-shot deltas %lu ns to %lu ms\n",
		(unsigned long)(timer_rate / 1000), (unsigned long)LAPIC_TIMER_MIN_DELTA_NS,
		(unsigned long)(max_delta_ns / NSEC_PER_MSEC));
}

u64 lapic_timer_rate(void)
{
	return timer_rate;
}

u64 lapic_timer_max_delta_ns(void)
{
	return max_delta_ns;
}

void lapic_timer_periodic(unsigned int hz)
{
	apic_write(APIC_TIMER_DIVIDE, TIMER_DIVIDE_16);
	apic_write(APIC_LVT_TIMER, LVT_TIMER_PERIODIC | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TIMER_INIT, (u32)max(timer_rate / hz, (u64)1));
}

/*
 * One interrupt, delta_ns from now. The count is rounded up (an interrupt
 * before its deadline would be useless: the timer code checks the clock,
 * finds nothing due and programs again) and clamped: below by the
 * minimum delta (a count of 0 would stop the timer instead of firing it,
 * and a deadline closer than the interrupt's own entry cost cannot be met
 * anyway), above by what the 32-bit count register holds (a later deadline
 * gets an early interrupt that finds nothing due and programs the rest).
 * Writing the initial count restarts the count-down: a pending one-shot
 * is replaced, not added to.
 */
void lapic_timer_oneshot(u64 delta_ns)
{
	u64 ns = clamp(delta_ns, (u64)LAPIC_TIMER_MIN_DELTA_NS, max_delta_ns);
	u64 count = DIV_ROUND_UP(ns * timer_rate, NSEC_PER_SEC);

	apic_write(APIC_TIMER_INIT, (u32)min(count, (u64)0xFFFFFFFFu));
}

/* One-shot mode, unmasked, nothing counting yet. */
void lapic_timer_setup_oneshot(void)
{
	apic_write(APIC_TIMER_DIVIDE, TIMER_DIVIDE_16);
	apic_write(APIC_LVT_TIMER, LOCAL_TIMER_VECTOR);
	apic_write(APIC_TIMER_INIT, 0);
}

/* No interrupt until the next lapic_timer_oneshot(). */
void lapic_timer_cancel(void)
{
	apic_write(APIC_TIMER_INIT, 0);
}

void lapic_timer_stop(void)
{
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0);
}
