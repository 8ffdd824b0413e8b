/* kernel/panic.h - fatal errors, warnings and assertions.
 *
 * panic(fmt, ...)     report, print a backtrace, stop every CPU; never returns.
 *                     What happens then is the panic= parameter: halt (default,
 *                     so the report stays on screen), exit (QEMU exits with a
 *                     failure status; the test harness uses this) or reboot.
 * WARN(cond, fmt,...) report a broken invariant with a backtrace, carry on;
 *                     evaluates to cond. WARN_ON(cond), WARN_ON_ONCE(cond) and
 *                     WARN_ONCE(cond, fmt, ...) as in Linux.
 * BUG_ON(cond)        panic if cond: for states that cannot be recovered.
 * assert(cond)        BUG_ON(!cond) with the expression in the report.
 * dump_stack()        print a backtrace of the caller.
 * warn_count          number of WARNs so far (tests check it stays 0).
 * clear_warn_once()   re-arm every WARN_ONCE (a test that provokes one
 *                     calls it through ktest_expect_warnings()).
 * report_bug(subsys, fmt, ...)
 *                     report a kernel error the kernel survives (a heap
 *                     misuse, a stalled pool, a hotplug step that failed
 *                     where it cannot fail): one line at KERN_ERR,
 *                     "BUG: <subsys>: <message>", and carry on. No
 *                     backtrace: add dump_stack() where it helps. Any
 *                     context. Not for bad input from a user, firmware or a
 *                     caller (those are messages, or a WARN).
 * bug_reports()       number of report_bug() calls so far: tests and the
 *                     torture check it does not grow. A test that provokes
 *                     a report says so with ktest_expect_bugs(t, subsys, n),
 *                     and the line reads "BUG (expected by a test): ...".
 *
 * set_report_notifier(n)  the one hook through which anything outside the
 *                     core sees the reports (the test runner's declared
 *                     reports, kernel/tools/ktest_expect.c; NULL: none).
 *                     Each WARN and report_bug() calls n->begin(type, key)
 *                     before its line is printed (key: the WARN's source
 *                     file, as its line prints it, or the report's
 *                     subsystem), which says whether the line reads
 *                     "(expected by a test)", and n->end(type) once the
 *                     line is printed and counted (warn_count,
 *                     bug_reports()); a report ends with the notifier it
 *                     began with. Both run in the reporter's context (any:
 *                     an interrupt, a CPU going down) and must neither
 *                     sleep nor report.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "lib/compiler.h"
#include "lib/types.h"

struct pt_regs;

__noreturn void panic(const char *fmt, ...) __printf(1, 2);
/* Exception handlers: oops_begin() stops the other CPUs and takes the
 * console; then print the report; then panic_after_report(), which adds no
 * second backtrace. */
void oops_begin(void);
__noreturn void panic_after_report(const char *fmt, ...) __printf(1, 2);
/* The end of every panic: act on panic= (halt, exit QEMU, reboot). */
__noreturn void panic_finish(void);

void warn_report(const char *file, int line, const void *ip, const char *fmt, ...) __printf(4, 5);
extern unsigned long warn_count;
void clear_warn_once(void);

void report_bug(const char *subsys, const char *fmt, ...) __printf(2, 3);
unsigned long bug_reports(void);

enum report_type { REPORT_WARN, REPORT_BUG };
struct report_notifier {
	bool (*begin)(enum report_type type, const char *key);
	void (*end)(enum report_type type);
};
void set_report_notifier(const struct report_notifier *n);

void dump_stack(void);
void show_backtrace(u64 rbp, const char *indent);
/* The return addresses of the frame chain from rbp (at most max), and their
 * lines ("[<address>] name+0xoff/0xsize" each): a trace kept for later. */
unsigned int save_backtrace(u64 rbp, u64 *ips, unsigned int max);
void print_backtrace(const u64 *ips, unsigned int n, const char *indent);
/* dump_stack() from the frame that returns to ip (a sanitizer's report
 * leaves out its own frames), or whole if no frame does. */
void dump_stack_from(const void *ip);
/* For exceptions: also the likely callers between the interrupted rsp and rbp. */
void show_exception_backtrace(u64 rsp, u64 rbp);
/* Format a code address as "name+0xoff/0xsize" (or the bare hex address). */
int sprint_symbol(char *buf, size_t size, u64 addr);
/* Is the machine going down? (Later CPUs stop in their tracks.) */
extern volatile int panic_cpu;

#define WARN(cond, fmt, ...)                                                                       \
	({                                                                                         \
		bool __c = !!(cond);                                                               \
		if (unlikely(__c))                                                                 \
			warn_report(__FILE__, __LINE__, __builtin_return_address(0), fmt,          \
				    ##__VA_ARGS__);                                                \
		__c;                                                                               \
	})
#define WARN_ON(cond) WARN(cond, "%s", "WARN_ON(" #cond ")")
#define WARN_ONCE(cond, fmt, ...)                                                                  \
	({                                                                                         \
		static bool __warned __section(".data.once");                                      \
		bool __c = !!(cond);                                                               \
		if (unlikely(__c) && !__atomic_exchange_n(&__warned, true, __ATOMIC_RELAXED))      \
			warn_report(__FILE__, __LINE__, __builtin_return_address(0), fmt,          \
				    ##__VA_ARGS__);                                                \
		__c;                                                                               \
	})
#define WARN_ON_ONCE(cond) WARN_ONCE(cond, "%s", "WARN_ON_ONCE(" #cond ")")

#ifndef CONFIG_LEAN
/* The caller must hold spinlock l (on this CPU). */
#define assert_spin_locked(l)                                                                      \
	WARN_ONCE(!spin_lock_held(l), "%s: lock '%s' not held", __func__, (l)->dep_map.name)

/* The calling thread must hold mutex m (kernel/mutex.h). */
#define assert_mutex_held(m)                                                                       \
	WARN_ONCE(!mutex_owned(m), "%s: mutex '%s' not held", __func__, (m)->dep_map.name)
#else /* LEAN=1 (Makefile): no checks */
#define assert_spin_locked(l) ((void)(l))
#define assert_mutex_held(m)  ((void)(m))
#endif

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (unlikely(cond))                                                                \
			panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__);                   \
	} while (0)
#define assert(cond)                                                                               \
	do {                                                                                       \
		if (unlikely(!(cond)))                                                             \
			panic("assertion failed: %s at %s:%d", #cond, __FILE__, __LINE__);         \
	} while (0)

#endif
