/* arch/x86_64/tsc.c - the TSC as the kernel clock; see kernel/time.h.
 *
 * Calibration measures TSC cycles over 50 ms of a reference clock: the
 * HPET main counter (period from its capabilities register) when ACPI
 * lists one, else PIT channel 2 counting down in mode 0 with its gate
 * enabled through port 0x61 (the way PC firmware has done it since the AT). */
#define pr_fmt(fmt) "time: " fmt
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "drivers/acpi.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/time.h"

#define HPET_CAPABILITIES  0x00
#define HPET_CONFIG	   0x10
#define HPET_CONFIG_ENABLE 1
#define HPET_MAIN_COUNTER  0xF0

#define PIT_HZ		   1193182ULL
#define PIT_CH0		   0x40
#define PIT_CH2		   0x42
#define PIT_MODE	   0x43
#define PIT_GATE	   0x61
#define PIT_GATE_CH2	   0x01
#define PIT_SPEAKER	   0x02
#define PIT_OUT2	   0x20
#define PIT_CH2_LOHI_MODE0 0xB0
#define PIT_CH0_LOHI_MODE0 0x30

#define CALIBRATE_MS 50

u64 tsc_khz;
static u64 tsc_base; /* I: TSC at time_init */
static u64 ns_mult;  /* I: ns = (cycles * ns_mult) >> 32 */

static u64 calibrate_hpet(u64 phys)
{
	volatile u64 *hpet = ioremap(phys, PAGE_SIZE);

	if (!hpet)
		return 0;
	u64 period_fs = hpet[HPET_CAPABILITIES / 8] >> 32;

	if (!period_fs || period_fs > 100000000ULL) /* spec: at most 100 ns */
		return 0;
	hpet[HPET_CONFIG / 8] |= HPET_CONFIG_ENABLE;
	u64 ticks = CALIBRATE_MS * 1000000000000ULL / period_fs;
	u64 h0 = hpet[HPET_MAIN_COUNTER / 8], t0 = rdtsc();
	u64 h1, t1;

	do {
		h1 = hpet[HPET_MAIN_COUNTER / 8];
		t1 = rdtsc();
	} while (h1 - h0 < ticks);
	/* cycles per second = tsc delta / elapsed; elapsed = hpet delta * period */
	u64 elapsed_ns = (h1 - h0) * period_fs / 1000000;

	return elapsed_ns ? (t1 - t0) * NSEC_PER_SEC / elapsed_ns : 0;
}

static u64 calibrate_pit(void)
{
	u64 latch = PIT_HZ * CALIBRATE_MS / 1000;
	u8 gate = inb(PIT_GATE);

	outb(PIT_GATE, (u8)((gate & ~PIT_SPEAKER) | PIT_GATE_CH2));
	outb(PIT_MODE, PIT_CH2_LOHI_MODE0);
	outb(PIT_CH2, latch & 0xFF);
	outb(PIT_CH2, (u8)(latch >> 8));
	u64 t0 = rdtsc();

	while (!(inb(PIT_GATE) & PIT_OUT2))
		cpu_relax();
	u64 t1 = rdtsc();

	outb(PIT_GATE, gate);
	return (t1 - t0) * 1000 / CALIBRATE_MS;
}

/*
 * The firmware leaves PIT channel 0 counting at 18.2 Hz. baton takes no
 * interrupt from it (the 8259 is masked, the I/O APIC pin too), but an
 * emulator still runs a timer for each period: wake-ups of an idle host,
 * and under -icount events at moments set by how long the firmware ran.
 * Mode 0 with a count of 1 ends it: one terminal count, then silence (the
 * way Linux shuts its i8253 clock event down).
 */
static void pit_stop_channel0(void)
{
	outb(PIT_MODE, PIT_CH0_LOHI_MODE0);
	outb(PIT_CH0, 1);
	outb(PIT_CH0, 0);
}

void time_init(void)
{
	const struct acpi_sdt_header *t = acpi_get_table("HPET", 0);
	u64 hpet_phys, hz = 0;
	const char *ref = "HPET";

	if (t && acpi_parse_hpet(t, &hpet_phys) == 0)
		hz = calibrate_hpet(hpet_phys);
	if (!hz) {
		ref = "PIT";
		hz = calibrate_pit();
	}
	if (hz < 1000000)
		panic("TSC calibration against the %s failed (%lu Hz)", ref, (unsigned long)hz);
	pit_stop_channel0();
	/* Under -icount the TSC counts guest ns: 1 GHz exactly. */
	hz = clock_rate("TSC", hz, NSEC_PER_SEC);
	tsc_khz = hz / 1000;
	ns_mult = (NSEC_PER_SEC << 32) / hz;
	tsc_base = rdtsc();
	pr_info("TSC %lu.%03lu MHz, calibrated against the %s\n", (unsigned long)(tsc_khz / 1000),
		(unsigned long)(tsc_khz % 1000), ref);
}

u64 ktime_get_ns(void)
{
	u64 now = rdtsc();

	/* Before calibration, or a TSC a little behind the boot CPU's: 0. */
	if (!ns_mult || now < tsc_base)
		return 0;
	return (u64)(((unsigned __int128)(now - tsc_base) * ns_mult) >> 32);
}

void udelay(u64 us)
{
	u64 t0 = ktime_get_ns();

	while (ktime_get_ns() - t0 < us * NSEC_PER_USEC)
		cpu_relax();
}

void mdelay(u64 ms)
{
	udelay(ms * 1000);
}
