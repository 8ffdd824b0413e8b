/* arch/x86_64/traps.c - exception reports and vector dispatch; see traps.h. */
#include "arch/x86_64/traps.h"
#include "arch/x86_64/apic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/percpu.h"
#include "kernel/cpu_local.h"
#include "kernel/cpu_masks.h"
#include "kernel/hardirq.h"
#include "kernel/lockdep.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smpboot.h"
#include "lib/errno.h"
#include "lib/printf.h"

#define X86_PF_PRESENT (1 << 0)
#define X86_PF_WRITE   (1 << 1)
#define X86_PF_USER    (1 << 2)
#define X86_PF_RSVD    (1 << 3)
#define X86_PF_INSTR   (1 << 4)

static const char *const exception_names[NR_EXCEPTIONS] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range exceeded",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack-segment fault",
	[13] = "#GP general protection fault",
	[14] = "#PF page fault",
	[15] = "reserved vector 15",
	[16] = "#MF x87 floating-point error",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating-point exception",
	[20] = "#VE virtualization exception",
	[21] = "#CP control protection",
	[22] = "reserved vector 22",
	[23] = "reserved vector 23",
	[24] = "reserved vector 24",
	[25] = "reserved vector 25",
	[26] = "reserved vector 26",
	[27] = "reserved vector 27",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security exception",
	[31] = "reserved vector 31",
};

static vector_handler_t vector_handlers[256]; /* written once per vector, before use */

int irq_register_vector(unsigned int vector, vector_handler_t handler)
{
	if (vector < FIRST_EXTERNAL_VECTOR || vector > 255)
		return -EINVAL;
	vector_handler_t expected = NULL;

	if (!__atomic_compare_exchange_n(&vector_handlers[vector], &expected, handler, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return -EBUSY;
	return 0;
}

/* Level-triggered vectors: acknowledged after their handler (set once,
 * before the source is unmasked). */
static bool level_vectors[256];

int irq_register_level_vector(unsigned int vector, vector_handler_t handler)
{
	if (vector < FIRST_EXTERNAL_VECTOR || vector > 255)
		return -EINVAL;
	WRITE_ONCE(level_vectors[vector], true);
	int err = irq_register_vector(vector, handler);

	if (err)
		WRITE_ONCE(level_vectors[vector], false);
	return err;
}

void show_regs(const struct pt_regs *r)
{
	char sym[128];

	sprint_symbol(sym, sizeof(sym), r->rip);
	printk(KERN_EMERG "RIP: %04lx:%016lx <%s>\n", (unsigned long)r->cs, (unsigned long)r->rip,
	       sym);
	printk(KERN_EMERG "RSP: %04lx:%016lx  RFLAGS: %08lx\n", (unsigned long)r->ss,
	       (unsigned long)r->rsp, (unsigned long)r->rflags);
	printk(KERN_EMERG "RAX: %016lx RBX: %016lx RCX: %016lx\n", (unsigned long)r->rax,
	       (unsigned long)r->rbx, (unsigned long)r->rcx);
	printk(KERN_EMERG "RDX: %016lx RSI: %016lx RDI: %016lx\n", (unsigned long)r->rdx,
	       (unsigned long)r->rsi, (unsigned long)r->rdi);
	printk(KERN_EMERG "RBP: %016lx R08: %016lx R09: %016lx\n", (unsigned long)r->rbp,
	       (unsigned long)r->r8, (unsigned long)r->r9);
	printk(KERN_EMERG "R10: %016lx R11: %016lx R12: %016lx\n", (unsigned long)r->r10,
	       (unsigned long)r->r11, (unsigned long)r->r12);
	printk(KERN_EMERG "R13: %016lx R14: %016lx R15: %016lx\n", (unsigned long)r->r13,
	       (unsigned long)r->r14, (unsigned long)r->r15);
	printk(KERN_EMERG "CR0: %016lx CR3: %016lx CR4: %016lx\n", (unsigned long)read_cr0(),
	       (unsigned long)read_cr3(), (unsigned long)read_cr4());
}

static void describe_page_fault(const struct pt_regs *regs, u64 cr2)
{
	u64 err = regs->error_code;

	printk(KERN_EMERG "CR2: %016lx (%s %s%s%s)\n", (unsigned long)cr2,
	       err & X86_PF_INSTR ? "instruction fetch from" :
	       err & X86_PF_WRITE ? "write to" :
				    "read from",
	       err & X86_PF_PRESENT ? "a page without permission" : "an unmapped page",
	       err & X86_PF_RSVD ? ", reserved bit set" : "",
	       cr2 < PAGE_SIZE ? ": NULL pointer dereference" : "");
}

/* A fault at addr in some stack's guard page means that stack overflowed. */
static bool report_stack_overflow(u64 addr)
{
	char what[64];
	u64 lo, hi;

	if (!kstack_guard_hit(addr, &lo, &hi, what, sizeof(what)))
		return false;
	printk(KERN_EMERG
	       "kernel stack overflow: %s [%016lx-%016lx] ran into its guard page at %016lx\n",
	       what, (unsigned long)lo, (unsigned long)hi, (unsigned long)addr);
	return true;
}

static __noreturn void die(struct pt_regs *regs)
{
	unsigned int v = (unsigned int)regs->vector;
	u64 cr2 = read_cr2();
	bool overflow = false;

	oops_begin();
	printk(KERN_EMERG "------------[ cut here ]------------\n");
	printk(KERN_EMERG "%s (vector %u) on cpu%u, error code 0x%lx\n", exception_names[v], v,
	       smp_processor_id(), (unsigned long)regs->error_code);
	if (v == 14 || v == 8) {
		/* A #DF from a stack overflow keeps the #PF's address in CR2. */
		overflow = report_stack_overflow(cr2) || report_stack_overflow(regs->rsp - 8);
		if (v == 14)
			describe_page_fault(regs, cr2);
	}
	show_regs(regs);
	show_exception_backtrace(regs->rsp, regs->rbp);
	if (overflow)
		panic_after_report("kernel stack overflow");
	panic_after_report("fatal exception: %s", exception_names[v]);
}

/* An NMI that lands in halt_unless() between its test and its hlt: go on
 * past the hlt, so that the caller looks at the word again instead of
 * halting for a kick already spent. */
static void halt_unless_nmi_fixup(struct pt_regs *regs)
{
	extern const char halt_unless_window[], halt_unless_resume[];

	if (regs->rip >= (u64)halt_unless_window && regs->rip < (u64)halt_unless_resume)
		regs->rip = (u64)halt_unless_resume;
}

/* NMIs: the panicking CPU's stop request, a spinlock's kick of a halted
 * waiter (kernel/spinlock.c), smp_show_backtraces()'s request, or
 * something external. */
static void nmi(struct pt_regs *regs)
{
	int p = READ_ONCE(panic_cpu);

	if (p >= 0 && p != (int)smp_processor_id())
		halt_forever(); /* stopped by panic(): stay out of its way */
	halt_unless_nmi_fixup(regs);
	if (spin_nmi_was_kick())
		return;
	/* An offline CPU halted for good (cpu_play_dead()) waits for INIT,
	 * which could leave a lock taken here held: back to its halt. */
	if (smp_booted && !cpumask_test_cpu(smp_processor_id(), &cpu_live_mask))
		return;
	/* An NMI from smp_show_backtraces() (a failing torture check) or from
	 * outside (QEMU's inject-nmi, or the test harness when a boot hangs):
	 * say what this CPU is doing. */
	printk(KERN_ERR "NMI on cpu%u: thread %s at %pS\n", smp_processor_id(),
	       sched_ready ? current->name : "-", (void *)regs->rip);
	spin_show_halted_wait();
	show_exception_backtrace(regs->rsp, regs->rbp);
	if (smp_processor_id() == 0 && sched_ready)
		sched_dump_threads();
}

void x86_interrupt(struct pt_regs *regs)
{
	unsigned int v = (unsigned int)regs->vector;

	if (v == 2) {
		nmi_enter();
		nmi(regs);
		nmi_exit();
		return;
	}
	if (v < NR_EXCEPTIONS)
		die(regs);
	this_cpu_ptr()->irqs++;
	/* Edge-triggered sources: acknowledge first, so that a handler that
	 * switches threads leaves the APIC ready for the next one. A level-
	 * triggered one is acknowledged after its handler has quietened the
	 * source: the EOI re-arms the I/O APIC pin, which would otherwise
	 * deliver the still-asserted line again at once. The APIC's spurious
	 * vector and the masked 8259s' take no EOI. */
	bool eoi =
		v != SPURIOUS_APIC_VECTOR && (v < PIC_SPURIOUS_BASE || v >= PIC_SPURIOUS_BASE + 16);
	bool level = READ_ONCE(level_vectors[v]);

	if (eoi && !level)
		lapic_eoi();
	vector_handler_t h = __atomic_load_n(&vector_handlers[v], __ATOMIC_ACQUIRE);

	irq_enter();
	if (h)
		h(regs);
	else
		WARN_ONCE(1, "unexpected interrupt on vector %u", v);
	if (eoi && level)
		lapic_eoi();
	irq_exit(h); /* after every EOI: bottom halves may run here, interrupts on */
	/* Back to code that had interrupts on: a good moment to preempt it. */
	if ((regs->rflags & X86_RFLAGS_IF) && need_resched())
		preempt_schedule_irq();
}
