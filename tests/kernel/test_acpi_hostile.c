/* tests/kernel/test_acpi_hostile.c - the host as an adversary
 * (drivers/acpi_cpuhp.c, docs/vcpu-hotplug.md "A hostile host").
 *
 * QEMU never sends a bad selector, a slot that changed its APIC id or an
 * event that cannot be cleared, so the driver runs here on a register
 * block this file scripts: a model of QEMU's modern CPU-hotplug interface
 * (selector, command, data, flags, control, _OST) and of the GPE0 and PM1
 * event blocks, whose slots are the machine's possible CPUs (the same APIC
 * ids), plus one slot with an APIC id the MADT does not list. Its events
 * act on the real CPUs. Each case kicks the block as its SCI would and
 * waits until the script has been played out (by construction: the block
 * reports what was read and written).
 */
#include "arch/x86_64/cpu.h"
#include "drivers/acpi_cpuhp.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/tools/ktest.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "tests/kernel/ktest_helpers.h"

/* The register layout (QEMU docs/specs/acpi_cpu_hotplug.rst). */
#define FAKE_BASE      0x100
#define FAKE_GPE0      0x200 /* 2 status bytes, then 2 enable bytes */
#define FAKE_PM1       0x300 /* 16-bit status, then 16-bit enable */
#define R_DATA2	       0x0
#define R_FLAGS	       0x4
#define R_DATA	       0x8
#define R_CMD	       0x5
#define F_ENABLED      (1u << 0)
#define F_INSERT       (1u << 1)
#define F_REMOVE       (1u << 2)
#define C_CLEAR_INSERT (1u << 1)
#define C_CLEAR_REMOVE (1u << 2)
#define C_EJECT	       (1u << 3)
#define CMD_NEXT       0
#define CMD_OST_EV     1
#define CMD_OST_ST     2
#define CMD_ARCH       3
#define GPE_HOTPLUG    (1u << 2)
#define PM1_PWRBTN     (1u << 8)
#define MAX_SLOTS      (NR_CPUS + 1)
#define MAX_OST	       64
#define FLOOD	       (3 * 4 * 256 + 1) /* past three passes' cap (4 x ACPI_MAX_CPUS) */

struct fake_slot {
	u64 apic; /* what command 3 answers (the script may change it) */
	u8 flags; /* F_* */
	bool ejected;
	unsigned int sticky; /* clears of its events ignored (a flood) */
};

struct fake_ost {
	u32 slot, event, status;
};

/* Written by the driver under its regs_lock, read by the case once the
 * script has played out (or with READ_ONCE while waiting). */
static struct fake {
	unsigned int nr, unknown; /* slots; the one not in the MADT */
	struct fake_slot slot[MAX_SLOTS];
	u32 selector, data;
	u8 command;
	u32 ost_event;
	struct fake_ost ost[MAX_OST];
	unsigned int nr_ost;
	unsigned int bad_left; /* NEXT_EVENT answers a selector past the last this often */
	unsigned int bad_answered;
	bool phantom; /* the selector is a bad one NEXT_EVENT answered */
	u8 gpe_sts[2], gpe_en[2];
	u16 pm1_sts, pm1_en;
	unsigned int masked;
} fk;

static struct fake_slot *sel(void)
{
	return fk.selector < fk.nr ? &fk.slot[fk.selector] : NULL;
}

static u8 f_in8(void *ctx, u16 port)
{
	if (port == FAKE_BASE + R_FLAGS) {
		if (fk.selector >= fk.nr) /* past the last: 0, or the phantom of a bad answer */
			return fk.phantom ? F_INSERT : 0;
		return sel()->flags;
	}
	if (port >= FAKE_GPE0 && port < FAKE_GPE0 + 2)
		return fk.gpe_sts[port - FAKE_GPE0];
	if (port >= FAKE_GPE0 + 2 && port < FAKE_GPE0 + 4)
		return fk.gpe_en[port - FAKE_GPE0 - 2];
	return 0;
}

static u16 f_in16(void *ctx, u16 port)
{
	return port == FAKE_PM1 ? fk.pm1_sts : port == FAKE_PM1 + 2 ? fk.pm1_en : 0;
}

static u32 f_in32(void *ctx, u16 port)
{
	struct fake_slot *s = sel();
	u64 apic = s ? s->apic : fk.phantom ? 0x99 : 0;

	if (port == FAKE_BASE + R_DATA)
		return fk.command == CMD_NEXT ? fk.selector :
		       fk.command == CMD_ARCH ? (u32)apic :
						0;
	if (port == FAKE_BASE + R_DATA2)
		return fk.command == CMD_ARCH ? (u32)(apic >> 32) : 0;
	return 0;
}

static void f_out8(void *ctx, u16 port, u8 v)
{
	struct fake_slot *s = sel();

	if (port == FAKE_BASE + R_CMD) {
		fk.command = v;
		if (v != CMD_NEXT)
			return;
		if (fk.bad_left) {
			fk.bad_left--;
			fk.bad_answered++;
			fk.selector = fk.nr + 5;
			fk.phantom = true;
			return;
		}
		for (unsigned int i = 0; i < fk.nr; i++)
			if (fk.slot[i].flags & (F_INSERT | F_REMOVE)) {
				fk.selector = i;
				return;
			}
	} else if (port == FAKE_BASE + R_FLAGS && s) { /* control */
		if ((v & (C_CLEAR_INSERT | C_CLEAR_REMOVE)) && s->sticky)
			s->sticky--;
		else
			s->flags &= (u8) ~(v & (C_CLEAR_INSERT | C_CLEAR_REMOVE));
		if (v & C_EJECT) {
			s->ejected = true;
			s->flags &= (u8)~F_ENABLED;
		}
	} else if (port >= FAKE_GPE0 && port < FAKE_GPE0 + 2) {
		fk.gpe_sts[port - FAKE_GPE0] &= (u8)~v; /* write 1 to clear */
	} else if (port >= FAKE_GPE0 + 2 && port < FAKE_GPE0 + 4) {
		fk.gpe_en[port - FAKE_GPE0 - 2] = v;
	}
}

static void f_out16(void *ctx, u16 port, u16 v)
{
	if (port == FAKE_PM1)
		fk.pm1_sts &= (u16)~v;
	else if (port == FAKE_PM1 + 2)
		fk.pm1_en = v;
}

static void f_out32(void *ctx, u16 port, u32 v)
{
	if (port == FAKE_BASE) {
		fk.selector = v;
		fk.phantom = false;
	} else if (port == FAKE_BASE + R_DATA && fk.command == CMD_OST_EV) {
		fk.ost_event = v;
	} else if (port == FAKE_BASE + R_DATA && fk.command == CMD_OST_ST && fk.nr_ost < MAX_OST) {
		fk.ost[fk.nr_ost++] = (struct fake_ost){ fk.selector, fk.ost_event, v };
	}
}

static void f_mask_sci(void *ctx)
{
	fk.masked++;
}

static const struct acpi_cpuhp_ops fake_ops = {
	.in8 = f_in8,
	.in16 = f_in16,
	.in32 = f_in32,
	.out8 = f_out8,
	.out16 = f_out16,
	.out32 = f_out32,
	.mask_sci = f_mask_sci,
};

static const struct acpi_cpuhp_ports fake_ports = {
	.base = FAKE_BASE,
	.gpe0 = FAKE_GPE0,
	.gpe0_len = 4,
	.pm1a = FAKE_PM1,
	.pm1_len = 4,
};

/* A block whose slots are the possible CPUs, then one the MADT lacks. */
static struct acpi_cpuhp_block *fake_block(void)
{
	unsigned int cpu;
	u64 top = 0;

	memset(&fk, 0, sizeof(fk));
	for_each_possible_cpu(cpu) {
		fk.slot[fk.nr].apic = cpu_apic_ids[cpu];
		fk.slot[fk.nr++].flags = cpumask_test_cpu(cpu, &cpu_present_mask) ? F_ENABLED : 0;
		top = max(top, (u64)cpu_apic_ids[cpu]);
	}
	fk.unknown = fk.nr;
	fk.slot[fk.nr++].apic = top + 1;
	return acpi_cpuhp_block_create(&fake_ops, NULL, &fake_ports);
}

static struct acpi_cpuhp_stats stats_of(struct acpi_cpuhp_block *b)
{
	struct acpi_cpuhp_stats st;

	acpi_cpuhp_block_stats(b, &st);
	return st;
}

/* Every event of the script consumed (the block reports none pending). */
static bool played_out(void)
{
	if (READ_ONCE(fk.bad_left))
		return false;
	for (unsigned int i = 0; i < fk.nr; i++)
		if (READ_ONCE(fk.slot[i].flags) & (F_INSERT | F_REMOVE))
			return false;
	return true;
}

/* Wait for the script to play out, then for the scan that consumed it. */
static void play(struct ktest *t, struct acpi_cpuhp_block *b)
{
	acpi_cpuhp_block_kick(b);
	KT_WAIT_UNTIL(t, played_out());
	acpi_cpuhp_block_kick(b); /* ordered: runs after the one that played it */
	KT_WAIT_UNTIL(t, !acpi_cpuhp_block_busy(b));
}

/* The enumeration saw every slot, with its APIC id. */
static void the_scripted_block_reads_as_qemus(struct ktest *t)
{
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	KT_EXPECT_EQ(t, stats_of(b).nr_slots, fk.nr);
	acpi_cpuhp_block_destroy(b);
}

/* An event for a selector past the last slot: ignored (it cannot even be
 * cleared), no _OST, no CPU touched. */
static void a_bad_selector_is_ignored(struct ktest *t)
{
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	struct acpi_cpuhp_stats before = stats_of(b);

	fk.bad_left = 3;
	play(t, b);
	struct acpi_cpuhp_stats after = stats_of(b);

	KT_EXPECT_EQ(t, after.hostile, before.hostile + 3);
	KT_EXPECT_EQ(t, after.failed + after.inserted + after.removed + after.refused,
		     before.failed + before.inserted + before.removed + before.refused);
	KT_EXPECT_EQ(t, fk.nr_ost, 0);
	acpi_cpuhp_block_destroy(b);
}

/* A slot not in the MADT: its insert is refused (_OST failure), its
 * removal ejects it (nothing of ours runs there). */
static void an_unknown_apic_id_is_refused(struct ktest *t)
{
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	fk.slot[fk.unknown].flags = F_INSERT;
	play(t, b);
	KT_EXPECT_EQ(t, stats_of(b).failed, 1);
	KT_ASSERT_EQ(t, fk.nr_ost, 1);
	KT_EXPECT_EQ(t, fk.ost[0].slot, fk.unknown);
	KT_EXPECT_EQ(t, fk.ost[0].event, 1);
	KT_EXPECT_EQ(t, fk.ost[0].status, 1);
	fk.slot[fk.unknown].flags = F_ENABLED | F_REMOVE;
	play(t, b);
	KT_EXPECT_TRUE(t, fk.slot[fk.unknown].ejected);
	acpi_cpuhp_block_destroy(b);
}

/* A slot that reports another slot's APIC id (here: the slot the MADT
 * lacks, claiming to be an online CPU): its removal must not take that CPU
 * down, nor its insert count as one; both refused with _OST failure. */
static void a_mismatched_apic_id_is_refused(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	fk.slot[fk.unknown].apic = cpu_apic_ids[cpu];
	fk.slot[fk.unknown].flags = F_ENABLED | F_REMOVE;
	play(t, b);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_present_mask));
	KT_EXPECT_FALSE(t, fk.slot[fk.unknown].ejected);
	fk.slot[fk.unknown].flags = F_ENABLED | F_INSERT;
	play(t, b);
	struct acpi_cpuhp_stats st = stats_of(b);

	KT_EXPECT_EQ(t, st.hostile, 2);
	KT_EXPECT_EQ(t, st.removed + st.inserted + st.refused + st.failed, 0);
	KT_ASSERT_EQ(t, fk.nr_ost, 2);
	KT_EXPECT_EQ(t, fk.ost[0].event, 3);
	KT_EXPECT_EQ(t, fk.ost[0].status, 1);
	KT_EXPECT_EQ(t, fk.ost[1].event, 1);
	KT_EXPECT_EQ(t, fk.ost[1].status, 1);
	acpi_cpuhp_block_destroy(b);
}

/* The boot CPU's removal: baton's own refusal, _OST(3, 0x80), seen here
 * (QEMU 7.2 refuses device_del of the boot CPU itself, so a test through
 * QEMU never reaches baton's). */
static void the_boot_cpu_is_refused_by_baton(struct ktest *t)
{
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	fk.slot[0].flags |= F_REMOVE;
	play(t, b);
	KT_EXPECT_TRUE(t, cpu_online(0));
	KT_EXPECT_FALSE(t, fk.slot[0].ejected);
	KT_EXPECT_EQ(t, stats_of(b).refused, 1);
	KT_ASSERT_EQ(t, fk.nr_ost, 1);
	KT_EXPECT_EQ(t, fk.ost[0].slot, 0);
	KT_EXPECT_EQ(t, fk.ost[0].event, 3);
	KT_EXPECT_EQ(t, fk.ost[0].status, 0x80);
	acpi_cpuhp_block_destroy(b);
}

/* A slot whose event comes back however often it is cleared: each pass
 * stops at its cap and the next goes on by itself, with no other kick,
 * until the flood ends. */
static void an_event_flood_is_capped_and_resumed(struct ktest *t)
{
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	fk.slot[fk.unknown].apic++; /* not the id it had: refused, cheaply */
	fk.slot[fk.unknown].sticky = FLOOD - 1;
	fk.slot[fk.unknown].flags = F_INSERT;
	acpi_cpuhp_block_kick(b); /* once */
	KT_WAIT_UNTIL(t, played_out());
	struct acpi_cpuhp_stats st = stats_of(b);

	KT_EXPECT_LE(t, 3, st.resumed);
	KT_EXPECT_LE(t, FLOOD, st.hostile);
	acpi_cpuhp_block_destroy(b);
}

/* An SCI for events that are not ours is cleared and disabled (ours
 * kept); an SCI that keeps coming with nothing to clear is masked, and the
 * block polled. */
static void a_foreign_sci_is_cleared_and_a_storm_masked(struct ktest *t)
{
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	fk.gpe_en[0] = GPE_HOTPLUG | 0x01;
	fk.gpe_sts[0] = GPE_HOTPLUG | 0x01;
	fk.pm1_en = PM1_PWRBTN;
	fk.pm1_sts = PM1_PWRBTN;
	unsigned long flags = local_irq_save();
	bool its = acpi_cpuhp_block_sci(b);

	local_irq_restore(flags);
	KT_EXPECT_TRUE(t, its);
	KT_EXPECT_EQ(t, fk.gpe_sts[0], 0);
	KT_EXPECT_EQ(t, fk.gpe_en[0], GPE_HOTPLUG);
	KT_EXPECT_EQ(t, fk.pm1_sts, 0);
	KT_EXPECT_EQ(t, fk.pm1_en, 0);
	struct acpi_cpuhp_stats st = stats_of(b);

	KT_EXPECT_EQ(t, st.sci_interrupts, 1);
	KT_EXPECT_EQ(t, st.foreign_events, 1);
	KT_EXPECT_FALSE(t, st.sci_masked);
	/* Nothing set, again and again (a line held by something unseen). */
	for (int i = 0; i < 200 && !fk.masked; i++) {
		flags = local_irq_save();
		its = acpi_cpuhp_block_sci(b);
		local_irq_restore(flags);
		KT_EXPECT_FALSE(t, its);
	}
	KT_EXPECT_EQ(t, fk.masked, 1);
	KT_EXPECT_TRUE(t, stats_of(b).sci_masked);
	/* Polled from now on: an event is seen with no kick. */
	fk.slot[fk.unknown].flags = F_INSERT;
	KT_WAIT_UNTIL(t, played_out());
	acpi_cpuhp_block_destroy(b);
}

/* The host removes a CPU while cpu_down() of it is under way (held at a
 * step the case opens): the removal waits for it, finds the CPU offline
 * and ejects it; then an insert brings it back. */
static struct ktest_gate step_gate;
static unsigned int step_cpu = NR_CPUS;

static int gate_offline(unsigned int cpu)
{
	if (cpu == READ_ONCE(step_cpu))
		ktest_gate_pass(&step_gate);
	return 0;
}

static struct cpuhp_step gate_step = {
	.name = "test:hostile-gate",
	.phase = CPUHP_ONLINE,
	.teardown = gate_offline,
};

static int down_fn(void *arg)
{
	return cpu_down((unsigned int)(unsigned long)arg);
}

static void events_during_cpu_down_leave_a_consistent_cpu(struct ktest *t)
{
	unsigned int cpu = ktest_last_online_cpu();

	if (!ktest_need_cpus(t, 2))
		return;
	struct acpi_cpuhp_block *b = fake_block();

	KT_ASSERT_NOT_NULL(t, b);
	ktest_gate_init(&step_gate);
	WRITE_ONCE(step_cpu, cpu);
	cpuhp_add_step(&gate_step);
	struct thread *th = kthread_run(down_fn, (void *)(unsigned long)cpu, "hostile-down");

	KT_ASSERT_NOT_NULL(t, th);
	KT_GATE_WAIT_ARRIVED(t, &step_gate, 1); /* cpu_down holds the hotplug lock */
	fk.slot[cpu].flags |= F_REMOVE;
	acpi_cpuhp_block_kick(b);
	ktest_gate_open(&step_gate);
	KT_WAIT_UNTIL(t, READ_ONCE(fk.slot[cpu].ejected));
	KT_WAIT_UNTIL(t, !acpi_cpuhp_block_busy(b)); /* its scan counted the removal */
	KT_EXPECT_EQ(t, kthread_stop(th), 0);	     /* its cpu_down() */
	WRITE_ONCE(step_cpu, NR_CPUS);
	cpuhp_remove_step(&gate_step);
	KT_EXPECT_FALSE(t, cpu_online(cpu));
	KT_EXPECT_FALSE(t, cpumask_test_cpu(cpu, &cpu_present_mask));
	KT_EXPECT_EQ(t, stats_of(b).removed, 1);
	/* And back. */
	fk.slot[cpu].ejected = false;
	fk.slot[cpu].flags = F_ENABLED | F_INSERT;
	play(t, b);
	KT_EXPECT_TRUE(t, cpu_online(cpu));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(cpu, &cpu_present_mask));
	KT_EXPECT_EQ(t, stats_of(b).inserted, 1);
	acpi_cpuhp_block_destroy(b);
}

KTEST_SUITE(acpi_hostile, KTEST_CASE(the_scripted_block_reads_as_qemus),
	    KTEST_CASE(a_bad_selector_is_ignored), KTEST_CASE(an_unknown_apic_id_is_refused),
	    KTEST_CASE(a_mismatched_apic_id_is_refused),
	    KTEST_CASE(the_boot_cpu_is_refused_by_baton),
	    KTEST_CASE(an_event_flood_is_capped_and_resumed),
	    KTEST_CASE(a_foreign_sci_is_cleared_and_a_storm_masked),
	    KTEST_CASE(events_during_cpu_down_leave_a_consistent_cpu));
