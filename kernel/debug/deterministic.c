/* kernel/debug/deterministic.c - deterministic mode and seeded delay points;
 * see kernel/deterministic.h (what the core calls) and
 * kernel/debug/deterministic.h.
 *
 * Field legend: I = set at boot by det_init() (params, then nothing
 * writes it); C = this CPU only, with interrupts off (an interrupt handler
 * may pass a delay point between a thread's draws).
 */
#define pr_fmt(fmt) "deterministic: " fmt
#include "kernel/debug/deterministic.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_local.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "lib/printf.h"
#include "lib/random.h"
#include "lib/string.h"

static u64 deterministic; /* I */
PARAM_U64(deterministic, deterministic, 0, UINT64_MAX,
	  "deterministic mode under QEMU -icount: every random choice and delay point from "
	  "this seed (0: off)");
static char delay_points_param[160] = "all";
PARAM_STRING(delay_points, delay_points_param,
	     "deterministic mode: the delay points that may delay (all, none, or site,site,...)");
#define DELAY_PERCENT 10
#define DELAY_MAX_US  50
static unsigned int delay_percent = DELAY_PERCENT; /* I */
PARAM_UINT(delay_percent, delay_percent, 0, 100,
	   "deterministic mode: the chance (%) that a pass of a delay point delays");
static unsigned int delay_max_us = DELAY_MAX_US; /* I */
PARAM_UINT(delay_max_us, delay_max_us, 1, 100000,
	   "deterministic mode: the longest delay at a delay point (us of guest time)");

bool delay_points_on;	    /* I */
static u32 sites_enabled;   /* I: bit per enum delay_site */
static u64 delay_threshold; /* I: a draw below it delays (out of 2^32) */

static const char *const site_names[NR_DELAY_SITES] = {
	[DP_WORK_START] = "work_start", [DP_WORKER_SLEEP] = "worker_sleep",
	[DP_QUEUE] = "queue",		[DP_CPU_DYING] = "cpu_dying",
	[DP_TRUSTEE] = "trustee",	[DP_REBIND] = "rebind",
	[DP_MIGRATE] = "migrate",	[DP_SCHED_DYING] = "sched_dying",
	[DP_TIMER_MOVE] = "timer_move",
};

struct dp_cpu {
	struct prng rng;	    /* C */
	u64 passes[NR_DELAY_SITES]; /* C */
	u64 delays[NR_DELAY_SITES]; /* C */
	u64 delayed_ns;		    /* C */
} __aligned(64);
static struct dp_cpu dp_cpus[NR_CPUS];

const char *delay_site_name(enum delay_site site)
{
	return site < NR_DELAY_SITES ? site_names[site] : "?";
}

u64 det_seed(void)
{
	return deterministic;
}

#define ALL_SITES ((1u << NR_DELAY_SITES) - 1)

/* The names of the sites in mask, separated by commas, into buf. */
static void join_sites(char *buf, size_t size, u32 mask)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < NR_DELAY_SITES && n < size; i++)
		if (mask & (1u << i))
			n += snprintf(buf + n, size - n, "%s%s", n ? "," : "", site_names[i]);
}

/* delay_points=: "all", "none" or names separated by commas. An unknown
 * name is reported and skipped. */
static u32 parse_sites(const char *s)
{
	if (!strcmp(s, "all"))
		return ALL_SITES;
	if (!strcmp(s, "none") || !*s)
		return 0;
	u32 mask = 0;

	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		int found = -1;

		for (int i = 0; i < NR_DELAY_SITES; i++)
			if (strlen(site_names[i]) == len && !strncmp(s, site_names[i], len))
				found = i;
		if (found < 0) {
			char all[160];

			join_sites(all, sizeof(all), ALL_SITES);
			pr_warn("delay_points: no delay point is called '%.*s' (they are: all, "
				"none, "
				"%s); skipped\n",
				(int)len, s, all);
		} else {
			mask |= 1u << found;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return mask;
}

/* Before time_init(): the clock rates depend on the mode. */
void det_init(void)
{
	if (!deterministic) {
		if (strcmp(delay_points_param, "all") || delay_percent != DELAY_PERCENT ||
		    delay_max_us != DELAY_MAX_US)
			pr_warn("delay_points=, delay_percent= and delay_max_us= act only in "
				"deterministic mode (deterministic=SEED): ignored\n");
		return;
	}
	sites_enabled = parse_sites(delay_points_param);
	delay_threshold = ((u64)delay_percent << 32) / 100;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++)
		prng_seed(&dp_cpus[cpu].rng, deterministic ^ (0x9e3779b97f4a7c15ULL * (cpu + 1)));
	delay_points_on = sites_enabled && delay_percent;

	char buf[160];

	join_sites(buf, sizeof(buf), sites_enabled);
	if (delay_points_on)
		pr_info("on, seed %lu; delay points %s: %u%% of passes, up to %u us\n",
			(unsigned long)deterministic, buf, delay_percent, delay_max_us);
	else
		pr_info("on, seed %lu; no delay points\n", (unsigned long)deterministic);
}

u64 clock_rate(const char *what, u64 measured, u64 exact)
{
	if (!deterministic)
		return measured;
	if (measured < exact - exact / 100 || measured > exact + exact / 100)
		panic("deterministic mode: the %s runs at %lu Hz, not at the %lu Hz of QEMU's "
		      "-icount: boot with -icount shift=N,sleep=off (or without deterministic=)",
		      what, (unsigned long)measured, (unsigned long)exact);
	return exact;
}

void det_boot_quiesce(void)
{
	if (!deterministic)
		return;
	assert(irqs_disabled() && smp_processor_id() == 0);
	/* The other CPUs sit in the firmware's halt loop until their INIT:
	 * with this one halted too, QEMU stops its kick timer, and the timer
	 * interrupt's wake-up restarts it at a moment of guest time only. */
	clockevent_halt_for(100);
}

void __delay_point(enum delay_site site)
{
	if (!(sites_enabled & (1u << site)))
		return;
	unsigned long flags = local_irq_save();
	struct dp_cpu *d = &dp_cpus[smp_processor_id()];
	u64 r = prng_u64(&d->rng);
	u64 ns = 0;

	d->passes[site]++;
	if ((r & 0xFFFFFFFFu) < delay_threshold) {
		/* Log-uniform from 1 us to delay_max_us: short delays often,
		 * long ones now and then. */
		u32 doublings = 64 - (u32)__builtin_clzll((u64)delay_max_us);
		u64 base = 1ULL << ((r >> 32) % doublings);
		u64 us = min(base + ((r >> 40) & (base - 1)), (u64)delay_max_us);

		ns = us * NSEC_PER_USEC;
		d->delays[site]++;
		WRITE_ONCE(d->delayed_ns, d->delayed_ns + ns);
	}
	local_irq_restore(flags);
	if (!ns)
		return;
	/* Spin on guest time: each pause ends this virtual CPU's turn, and
	 * QEMU runs the others meanwhile. */
	u64 end = ktime_get_ns() + ns;

	while (ktime_get_ns() < end)
		cpu_relax();
}

void delay_get_stats(struct delay_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct dp_cpu *d = &dp_cpus[cpu];

		for (int i = 0; i < NR_DELAY_SITES; i++) {
			st->passes[i] += READ_ONCE(d->passes[i]);
			st->delays[i] += READ_ONCE(d->delays[i]);
		}
		st->delayed_ns += READ_ONCE(d->delayed_ns);
	}
}
