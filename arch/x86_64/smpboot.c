/* arch/x86_64/smpboot.c - start application processors; see smpboot.h. */
#define pr_fmt(fmt) "smpboot: " fmt
#include "arch/x86_64/smpboot.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/paging.h"
#include "arch/x86_64/trampoline.h"
#include "kernel/bootinfo.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/hotplug.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smpboot.h"
#include "kernel/time.h"
#include "kernel/wait.h"
#include "lib/errno.h"
#include "lib/string.h"

#define EFER_LME (1u << 8)
#define EFER_NXE (1u << 11)

static unsigned int smp_boot_timeout_ms = 5000;
PARAM_UINT(smp_boot_timeout_ms, smp_boot_timeout_ms, 10, 600000,
	   "how long to wait for each CPU to start (ms)");

extern char ap_entry64[];

/* The trampoline's memory must be RAM the firmware leaves alone. */
static bool trampoline_memory_ok(void)
{
	for (unsigned int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];

		if (m->type == BOOT_MEM_AVAILABLE && m->base <= TRAMPOLINE_PHYS &&
		    m->base + m->len >= TRAMPOLINE_END)
			return true;
	}
	return false;
}

static void trampoline_setup(struct percpu *pc)
{
	u64 *pml4 = phys_to_virt(TRAMPOLINE_PML4), *pdpt = phys_to_virt(TRAMPOLINE_PDPT);
	u64 *pd = phys_to_virt(TRAMPOLINE_PD);
	const u64 *kernel_pml4 = phys_to_virt(read_cr3() & PTE_ADDR_MASK);

	static bool written; /* the code and the low map, by the first start (callers serialise) */

	/* Under QEMU's TCG a write to a page that code ran in takes the slow
	 * path until every byte of that code is overwritten, and the loader
	 * ran its own code in these pages (GRUB's core sits at 0x8000):
	 * clearing each page whole, once, makes later writes fast. The code
	 * is written once: each start runs it, and rewriting it would make its
	 * page slow again. */
	if (!written) {
		memset(phys_to_virt(TRAMPOLINE_PHYS), 0, PAGE_SIZE);
		memcpy(phys_to_virt(TRAMPOLINE_PHYS), trampoline_start,
		       (size_t)(trampoline_end - trampoline_start));
		memset(pml4, 0, PAGE_SIZE);
		memset(pdpt, 0, PAGE_SIZE);
		memset(pd, 0, PAGE_SIZE);
		written = true;
	}
	/* Identity-map the first 2 MiB, share the kernel's upper half. The
	 * kernel's PML4 may have gained entries since the last start: copy
	 * it every time. */
	pd[0] = 0 | PTE_PRESENT | PTE_WRITE | PTE_LARGE;
	pdpt[0] = TRAMPOLINE_PD | PTE_PRESENT | PTE_WRITE;
	pml4[0] = TRAMPOLINE_PDPT | PTE_PRESENT | PTE_WRITE;
	for (int i = 256; i < 512; i++)
		pml4[i] = kernel_pml4[i];

	struct trampoline_params *tp = phys_to_virt(TRAMPOLINE_PHYS + TRAMPOLINE_PARAMS);

	*tp = (struct trampoline_params){
		.efer = EFER_LME | (cpu_has_nx() ? EFER_NXE : 0),
		.kernel_cr3 = read_cr3(),
		.stack_top = (u64)pc->boot_stack + KSTACK_SIZE,
		.percpu = (u64)pc,
		.entry = (u64)ap_entry64,
	};
}

/*
 * The control CPU's waits for the new one sleep where the caller may sleep
 * (cpu_up() from a thread), in AP_POLL_US steps, and spin only at boot
 * (cpu0's idle context, before there are other threads). Sleeping leaves
 * the CPU to other work meanwhile; and under QEMU's -icount, which runs one
 * vCPU at a time, a control CPU spinning on the new one kept it from
 * running at all until a timer ended the spinner's turn: 5 to 50 ms of
 * guest time for a 10 us wait (make bench's `online` moved with it).
 */
#define AP_POLL_US 10

static bool can_sleep(void)
{
	return sched_ready && !current_is_idle() && !preempt_count() && !irqs_disabled();
}

/*
 * The boot CPU bringing up the others, before interrupts are on: no thread
 * can sleep yet, but the CPU can halt until its clock event. Spinning there
 * made each CPU's start wait under -icount for QEMU's round-robin kick
 * (100 ms of guest time each: a started CPU was not run while the boot CPU
 * spun), where halting lets it run at once.
 */
static bool can_halt(void)
{
	return !smp_booted && irqs_disabled() && smp_processor_id() == 0;
}

/* Wait us: the MP specification's pauses. */
static void ap_delay(u64 us)
{
	if (can_sleep())
		usleep(us);
	else if (can_halt())
		clockevent_halt_for(us);
	else
		udelay(us);
}

/* One pause while polling the new CPU's progress. */
static void ap_wait_pause(void)
{
	if (can_sleep())
		usleep(AP_POLL_US);
	else if (can_halt())
		clockevent_halt_for(AP_POLL_US);
	else
		cpu_relax();
}

static bool wait_started(struct percpu *pc, u64 us)
{
	u64 t0 = ktime_get_ns();

	while (!READ_ONCE(pc->started)) {
		if (ktime_get_ns() - t0 >= us * NSEC_PER_USEC)
			return false;
		ap_wait_pause();
	}
	return true;
}

/*
 * Does this CPU family need the MP specification's pauses around INIT and
 * STARTUP (10 ms after INIT, 200 us after each STARTUP)? They were for the
 * external APICs of the 486 era; Linux waits 10 us after each STARTUP and
 * not at all after INIT on Intel family 6, AMD family 0xF and later, and
 * Hygon (family 0x18 on), and keeps the old pauses for the rest. QEMU's
 * qemu64 and max models report AMD family 0xF; its APIC needs no pause.
 */
static bool legacy_init_pause(void)
{
	u32 a, b, c, d;
	char vendor[13];

	cpuid(0, 0, &a, &b, &c, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	cpuid(1, 0, &a, &b, &c, &d);
	u32 family = (a >> 8) & 0xF;

	if (family == 0xF)
		family += (a >> 20) & 0xFF; /* the extended family */
	if (!strcmp(vendor, "GenuineIntel"))
		return family != 6;
	if (!strcmp(vendor, "AuthenticAMD"))
		return family < 0xF;
	if (!strcmp(vendor, "HygonGenuine"))
		return family < 0x18;
	return true;
}

int arch_cpu_boot(struct percpu *pc)
{
	bool legacy = legacy_init_pause();
	unsigned int sipi_wait_us = legacy ? 200 : 10;

	BUILD_BUG_ON(TRAMPOLINE_PARAMS + sizeof(struct trampoline_params) > PAGE_SIZE);
	if ((size_t)(trampoline_end - trampoline_start) > TRAMPOLINE_PARAMS)
		panic("the AP trampoline is larger than its page");
	if (!trampoline_memory_ok()) {
		pr_err("memory at %#x-%#x is not free RAM: cannot start other CPUs\n",
		       TRAMPOLINE_PHYS, TRAMPOLINE_END);
		return -ENOMEM;
	}
	if (!pc->boot_stack) {
		pc->boot_stack = kstack_alloc("a CPU's boot stack");
		if (!pc->boot_stack)
			return -ENOMEM;
	}
	trampoline_setup(pc);
	WRITE_ONCE(pc->started, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	/* MP spec B.4: INIT, wait 10 ms; STARTUP, wait 200 us; STARTUP again
	 * (the second is for CPUs that missed the first), wait 200 us. The
	 * waits only where the CPU family needs them (legacy_init_pause()). */
	lapic_send_init(pc->apic_id);
	if (legacy)
		ap_delay(10000);
	lapic_send_startup(pc->apic_id, TRAMPOLINE_PHYS >> 12);
	ap_delay(sipi_wait_us);
	if (!READ_ONCE(pc->started)) {
		lapic_send_startup(pc->apic_id, TRAMPOLINE_PHYS >> 12);
		ap_delay(sipi_wait_us);
	}
	u64 t0 = ktime_get_ns();

	/* Given up on, it must not run on: started goes 0 -> -1 here or
	 * 0 -> 1 in ap_start(), never both, and ap_start() halts on -1. */
	int zero = 0;

	if (!wait_started(pc, (u64)smp_boot_timeout_ms * 1000) &&
	    __atomic_compare_exchange_n(&pc->started, &zero, -1, false, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST)) {
		lapic_send_init(pc->apic_id); /* park it for good */
		pr_err("cpu%u (APIC id %u) did not start within %u ms\n", pc->cpu_id, pc->apic_id,
		       smp_boot_timeout_ms);
		return -ETIMEDOUT;
	}
	/* Started, it runs kernel code and may hold locks: INIT now could
	 * leave one held for good, and giving up would let it come online
	 * behind our back. So wait, however long, and say so meanwhile. */
	while (!cpu_online(pc->cpu_id)) {
		if (ktime_get_ns() - t0 >= (u64)smp_boot_timeout_ms * NSEC_PER_MSEC) {
			pr_warn("cpu%u started but is not online after %u ms; still waiting (%u "
				"freed kernel stacks held back meanwhile)\n",
				pc->cpu_id, smp_boot_timeout_ms, kstack_nr_held(NULL));
			t0 = ktime_get_ns();
		}
		ap_wait_pause();
	}
	return 0;
}

__noreturn void ap_start(struct percpu *pc)
{
	int zero = 0;

	/* Too late: the control CPU gave up on us and sends INIT. */
	if (!__atomic_compare_exchange_n(&pc->started, &zero, 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		halt_forever();
	percpu_load(pc); /* GS base, GDT, TSS */
	idt_load();
	lapic_init_cpu();
	if (lapic_id() != pc->apic_id)
		pr_warn("cpu%u expected APIC id %u, has %u\n", pc->cpu_id, pc->apic_id, lapic_id());
	sched_init_ap();	/* this context becomes the CPU's idle thread */
	clockevent_start_cpu(); /* INIT stopped its timer */
	cpuhp_ap_starting();	/* starting steps, then online */
	cpu_idle();
}
