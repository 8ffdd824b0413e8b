/* kernel/panic.c - panic, warnings and backtraces; see panic.h. */
#include "kernel/panic.h"
#include "arch/x86_64/cpu.h"
#include "drivers/qemu_exit.h"
#include "kernel/cpu_local.h"
#include "kernel/ksyms.h"
#include "kernel/mm/kstack.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/reboot.h"
#include "kernel/smp.h"
#include "lib/list.h"
#include "lib/printf.h"

#define BACKTRACE_MAX_FRAMES 32

volatile int panic_cpu = -1;
unsigned long warn_count;
static unsigned long bug_count; /* atomic */

/* Who is told of each report (set_report_notifier()); NULL: no one. */
static const struct report_notifier *report_notifier; /* atomic */

void set_report_notifier(const struct report_notifier *n)
{
	__atomic_store_n(&report_notifier, n, __ATOMIC_SEQ_CST);
}

/* A report begins: does its line read "(expected by a test)"? *rn is the
 * notifier it began with, which notify_report_end() tells once the line is
 * printed and counted, whatever is set meanwhile. */
static bool notify_report_begin(const struct report_notifier **rn, enum report_type type,
				const char *key)
{
	*rn = __atomic_load_n(&report_notifier, __ATOMIC_ACQUIRE);
	return *rn && (*rn)->begin(type, key);
}

static void notify_report_end(const struct report_notifier *rn, enum report_type type)
{
	if (rn)
		rn->end(type);
}

enum panic_action { PANIC_HALT, PANIC_EXIT, PANIC_REBOOT };
static unsigned int panic_action = PANIC_HALT;
static const char *const panic_actions[] = { "halt", "exit", "reboot", NULL };
PARAM_ENUM(panic, panic_action, panic_actions,
	   "after a panic: halt (keep the report on screen), exit (QEMU exits, for tests), reboot");

int sprint_symbol(char *buf, size_t size, u64 addr)
{
	u64 off, len;
	const char *name = ksym_lookup(addr, &off, &len);

	if (!name)
		return scnprintf(buf, size, "0x%lx", (unsigned long)addr);
	return scnprintf(buf, size, "%s+0x%lx/0x%lx", name, (unsigned long)off, (unsigned long)len);
}

/*
 * Walk the frame-pointer chain (the kernel is built with
 * -fno-omit-frame-pointer): [rbp] is the caller's rbp, [rbp+8] the return
 * address. Every frame must lie on the stack the walk started on, above
 * the previous one, or the walk stops: a corrupt chain ends the trace
 * instead of faulting inside the fault report.
 */
unsigned int save_backtrace(u64 rbp, u64 *ips, unsigned int max)
{
	u64 lo, hi;
	unsigned int n = 0;

	if (!kstack_bounds(rbp, &lo, &hi))
		return 0;
	while (n < max && rbp >= lo && rbp + 16 <= hi && !(rbp & 7)) {
		u64 next = ((u64 *)rbp)[0];
		u64 ret = ((u64 *)rbp)[1];

		if (!ret)
			break;
		ips[n++] = ret;
		if (next <= rbp)
			break;
		rbp = next;
	}
	return n;
}

void print_backtrace(const u64 *ips, unsigned int n, const char *indent)
{
	char sym[128];

	for (unsigned int i = 0; i < n; i++) {
		/* ret - 1: the call instruction, not what follows it. */
		sprint_symbol(sym, sizeof(sym), ips[i] - 1);
		printk(KERN_EMERG "%s  [<%016lx>] %s\n", indent, (unsigned long)ips[i], sym);
	}
}

__noinline void dump_stack_from(const void *ip)
{
	u64 ips[BACKTRACE_MAX_FRAMES];
	unsigned int n = save_backtrace(read_rbp(), ips, BACKTRACE_MAX_FRAMES), from = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (ips[i] == (u64)ip) {
			from = i;
			break;
		}
	}
	printk(KERN_EMERG "Call trace:\n");
	print_backtrace(ips + from, n - from, "");
}

static void walk_frames(u64 rbp, const char *indent)
{
	u64 lo, hi, ips[BACKTRACE_MAX_FRAMES];
	unsigned int n;

	if (!kstack_bounds(rbp, &lo, &hi)) {
		printk(KERN_EMERG "%s  (frame pointer 0x%lx is on no known stack)\n", indent,
		       (unsigned long)rbp);
		return;
	}
	n = save_backtrace(rbp, ips, BACKTRACE_MAX_FRAMES);
	print_backtrace(ips, n, indent);
	if (n == BACKTRACE_MAX_FRAMES)
		printk(KERN_EMERG "%s  ...\n", indent);
}

void show_backtrace(u64 rbp, const char *indent)
{
	printk(KERN_EMERG "%sCall trace:\n", indent);
	walk_frames(rbp, indent);
}

extern char __text_start[], __text_end[];

/* Could v be a return address: in .text, right after a call instruction? */
static bool looks_like_return_address(u64 v)
{
	const u8 *p = (const u8 *)v;

	if (v < (u64)__text_start + 8 || v >= (u64)__text_end)
		return false;
	return p[-5] == 0xE8 || p[-2] == 0xFF || p[-3] == 0xFF || p[-6] == 0xFF || p[-7] == 0xFF;
}

/*
 * An exception can hit a function before it has set up its frame, or one
 * that has none (GCC leaves frameless leaves even with frame pointers), so
 * the chain starting at the interrupted rbp may skip the caller. Return
 * addresses found on the stack between the interrupted rsp and rbp are
 * printed first, marked "?" as Linux does: likely, not certain, callers.
 */
void show_exception_backtrace(u64 rsp, u64 rbp)
{
	u64 lo, hi;
	char sym[128];

	printk(KERN_EMERG "Call trace:\n");
	if (kstack_bounds(rsp, &lo, &hi)) {
		u64 end = (rbp > rsp && rbp < hi) ? rbp : min(hi, rsp + 256);

		for (u64 a = ALIGN_UP(rsp, 8); a + 8 <= end; a += 8) {
			u64 v = *(u64 *)a;

			if (!looks_like_return_address(v))
				continue;
			sprint_symbol(sym, sizeof(sym), v - 1);
			printk(KERN_EMERG "  [<%016lx>] ? %s\n", (unsigned long)v, sym);
		}
	}
	walk_frames(rbp, "");
}

__noinline void dump_stack(void)
{
	show_backtrace(read_rbp(), "");
}

void warn_report(const char *file, int line, const void *ip, const char *fmt, ...)
{
	const struct report_notifier *rn;
	char msg[256];
	char sym[128];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sprint_symbol(sym, sizeof(sym), (u64)ip);
	/* A test that provokes a WARN on purpose declares it, by its source
	 * file; the harness, which fails any boot that prints "WARNING:",
	 * lets a declared one pass. */
	bool expected = notify_report_begin(&rn, REPORT_WARN, file);

	printk(KERN_WARNING "------------[ cut here ]------------\n");
	printk(KERN_WARNING "WARNING%s: %s:%d (called from %s) on cpu%u: %s\n",
	       expected ? " (expected by a test)" : "", file, line, sym, smp_processor_id(), msg);
	dump_stack();
	printk(KERN_WARNING "---[ end trace ]---\n");
	__atomic_add_fetch(&warn_count, 1, __ATOMIC_RELAXED);
	notify_report_end(rn, REPORT_WARN);
}

void report_bug(const char *subsys, const char *fmt, ...)
{
	const struct report_notifier *rn;
	char msg[256];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (len > 0 && msg[len - 1] == '\n') /* the line ends here either way */
		msg[len - 1] = '\0';
	/* As for WARN: the harness fails any boot that prints "BUG: ", and
	 * lets the form a test declared (ktest_expect_bugs()) pass: of the
	 * declared subsystem, and no more than declared. Counted once
	 * printed: whoever sees the count grow finds the line in the log
	 * (test_reports.c's stalled pool waits for the count, then reads the
	 * log; the other order failed it once). Ended only then, so that the
	 * end of a test case waits for the line it may have declared. */
	bool expected = notify_report_begin(&rn, REPORT_BUG, subsys);

	printk(KERN_ERR "BUG%s: %s: %s\n", expected ? " (expected by a test)" : "", subsys, msg);
	__atomic_add_fetch(&bug_count, 1, __ATOMIC_RELEASE);
	notify_report_end(rn, REPORT_BUG);
}

unsigned long bug_reports(void)
{
	return __atomic_load_n(&bug_count, __ATOMIC_ACQUIRE);
}

static bool oops_report_open; /* panic_cpu only: oops_begin() ran */

/* Let one CPU through; any other CPU that panics meanwhile just stops. */
static void panic_enter(void)
{
	int expected = -1;

	local_irq_disable();
	if (!__atomic_compare_exchange_n(&panic_cpu, &expected, (int)smp_processor_id(), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (expected != (int)smp_processor_id())
			halt_forever();
		if (oops_report_open) {
			/* The panic that ends the report oops_begin() opened. */
			oops_report_open = false;
			return;
		}
		/* A panic inside the panic report: just stop. */
		printk(KERN_EMERG "panic: nested panic on cpu%u, stopping\n", smp_processor_id());
		panic_finish();
	}
	smp_send_stop();
	console_force_unlock();
}

void oops_begin(void)
{
	panic_enter();
	oops_report_open = true;
}

__noreturn void panic_finish(void)
{
	switch (panic_action) {
	case PANIC_EXIT:
		qemu_exit(QEMU_EXIT_PANIC);
		break;
	case PANIC_REBOOT:
		machine_reboot();
		break;
	}
	printk(KERN_EMERG "---[ end Kernel panic ]--- (CPU halted; quit QEMU with Ctrl-A X)\n");
	halt_forever();
}

static __noreturn void vpanic(bool backtrace, const char *fmt, va_list ap)
{
	char msg[256];

	panic_enter(); /* returns only on the first panicking CPU */
	vscnprintf(msg, sizeof(msg), fmt, ap);
	printk(KERN_EMERG "Kernel panic - not syncing: %s\n", msg);
	if (backtrace)
		show_backtrace(read_rbp(), "");
	panic_finish();
}

__noreturn void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic(true, fmt, ap);
}

__noreturn void panic_after_report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpanic(false, fmt, ap);
}

extern bool __start_data_once[], __stop_data_once[];

void clear_warn_once(void)
{
	for (bool *b = __start_data_once; b < __stop_data_once; b++)
		WRITE_ONCE(*b, false);
}

/* lib/list.h's checks failed: say which nodes disagree, and stop. */
static const char *where_is(const void *p)
{
	const char *owner = kstack_owner((u64)p);

	return owner ? owner : "not on a stack";
}

__noreturn void list_corruption(const char *op, const struct list_head *node,
				const struct list_head *prev, const struct list_head *next)
{
	panic("%s corruption: node %p (%s), prev %p (%s) whose next is %p, next %p (%s) whose prev "
	      "is %p",
	      op, node, where_is(node), prev, where_is(prev), prev->next, next, where_is(next),
	      next->prev);
}
