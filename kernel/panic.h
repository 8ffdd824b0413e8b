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
 * Expected reports (the test runner's side of ktest_expect_bugs()):
 * bug_expect(subsys, n) n more reports of subsystem subsys are expected:
 *                     from here on report_bug() marks reports of that
 *                     subsystem "(expected by a test)", from any thread or
 *                     CPU (a work item the case queued, a dying CPU), but
 *                     no more of them than were declared; a report of
 *                     another subsystem, or one past the count, reads as a
 *                     plain "BUG:" (and fails a test boot). False if
 *                     BUG_EXPECT_KINDS subsystems are declared already.
 * warn_expect(file, n), warn_expect_end(out, max)  the same for WARNs,
 *                     keyed by the source file of the WARN (ktest's
 *                     ktest_expect_warnings(t, file, n)).
 * bug_expect_end(out, max)  end every declaration: no report is marked
 *                     expected after it, and it returns once every
 *                     report_bug() that may have been marked has printed
 *                     its line and been counted. Fills out[] with each
 *                     subsystem declared, its count and how many came;
 *                     returns how many it filled.
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

#define BUG_EXPECT_KINDS 4
struct bug_expectation {
	const char *subsys;	/* the declaring thread writes it; NULL: a free slot */
	unsigned long declared; /* atomic: how many reports of it are expected */
	unsigned long came;	/* atomic: how many report_bug() marked expected */
};
bool bug_expect(const char *subsys, unsigned long n);
unsigned int bug_expect_end(struct bug_expectation *out, unsigned int max);
/* The same for WARNs, keyed by the WARN's source file (its __FILE__, as
 * the WARNING line prints it): "subsys" holds the file. */
bool warn_expect(const char *file, unsigned long n);
unsigned int warn_expect_end(struct bug_expectation *out, unsigned int max);

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

/* The caller must hold spinlock l (on this CPU). */
#define assert_spin_locked(l)                                                                      \
	WARN_ONCE(!spin_lock_held(l), "%s: lock '%s' not held", __func__, (l)->dep_map.name)

/* The calling thread must hold mutex m (kernel/mutex.h). */
#define assert_mutex_held(m)                                                                       \
	WARN_ONCE(!mutex_owned(m), "%s: mutex '%s' not held", __func__, (m)->dep_map.name)

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
