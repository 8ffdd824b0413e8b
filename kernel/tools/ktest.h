/* kernel/tools/ktest.h - in-kernel tests, reported in KTAP version 1.
 *
 * A suite is a named list of cases, registered at link time:
 *
 *   static void alloc_free(struct ktest *t)
 *   {
 *           void *p = kmalloc(10);
 *           KT_ASSERT_NOT_NULL(t, p);
 *           KT_EXPECT_EQ(t, ksize(p), 10);
 *           kfree(p);
 *   }
 *   KTEST_SUITE(kmalloc, KTEST_CASE(alloc_free), ...);
 *
 * test=all runs every suite except those declared with KTEST_SUITE_EXPLICIT
 * (the harness's own deliberately failing, panicking and hanging cases, and
 * crash demonstrations), which run only when named: test=kmalloc,selftest_fail.
 * After the run the kernel exits QEMU with QEMU_EXIT_SUCCESS if every case
 * passed or was skipped, QEMU_EXIT_FAILURE otherwise.
 *
 * The checks (KT_EXPECT_* records a failure and continues, KT_ASSERT_* also
 * ends the case) are ktest_assert.h's, shared with the host tests of lib/
 * (tests/host/ktest_host.h). Each failure prints "# FAIL file:line: ..."
 * with the values.
 *
 * Waiting for another thread or CPU: every wait of a test is bounded, so a
 * regression fails its case by name instead of hanging the boot and losing
 * every later suite.
 *
 *   KT_WAIT_UNTIL(t, cond)  evaluate cond until it holds (sleeping a
 *                           millisecond between tries where the caller may
 *                           sleep, spinning where it may not) or
 *                           KT_WAIT_LIMIT_S seconds have passed; then fail
 *                           the case with "timed out after N s waiting for
 *                           <cond>". Evaluates to whether cond held, so a
 *                           case can stop where going on would hang:
 *                           if (!KT_WAIT_UNTIL(t, done)) return;
 *
 * The limit is a safety net for hangs, never a timing assertion: it is far
 * beyond anything a loaded host takes. A blocking wait of the kernel's own
 * (wait_for_completion_timeout()) takes KT_WAIT_LIMIT_NS.
 *
 * What kernel suites share besides these checks (the highest online CPU,
 * the one "needs at least N CPUs" skip, gates that hold work items until
 * the case opens them) is tests/kernel/ktest_helpers.h.
 */
#ifndef KERNEL_TOOLS_KTEST_H
#define KERNEL_TOOLS_KTEST_H

#include "kernel/tools/ktest_assert.h"
#include "lib/compiler.h"
#include "lib/types.h"

/* One round of KT_WAIT_UNTIL (ktest_wait.c): the first call sets
 * *deadline_ns; returns false once it has passed, else pauses a little and
 * returns true. The _busy one never blocks (for a work item whose
 * blocking would change what is tested): it spins, preemptibly. */
bool ktest_wait_poll(u64 *deadline_ns);
bool ktest_wait_poll_busy(u64 *deadline_ns);

/* 60 s: the slowest boots of make test are the sanitized ones at -smp 16
 * (every suite in 100 s alone on 2 cores, 140 s beside the other boots),
 * where 16 vCPU threads share 2 loaded host cores and one cpu_down() waits
 * for an IPI round trip to every CPU, each answered only once the host
 * runs that vCPU: a wait there can take many seconds with nothing wrong. A limit is only a safety
 * net for a hang, so a longer one costs a passing run nothing; 60 s is what the hotplug tests, the
 * ones most exposed, have always waited. */
#define KT_WAIT_LIMIT_S	 60
#define KT_WAIT_LIMIT_NS (KT_WAIT_LIMIT_S * 1000000000ULL)

#define KT_WAIT_UNTIL(t, cond)                                                                     \
	({                                                                                         \
		u64 __deadline = 0;                                                                \
		bool __held;                                                                       \
		while (!(__held = (cond)) && ktest_wait_poll(&__deadline))                         \
			;                                                                          \
		if (!__held)                                                                       \
			ktest_fail(t, __FILE__, __LINE__, "timed out after %d s waiting for %s",   \
				   KT_WAIT_LIMIT_S, #cond);                                        \
		__held;                                                                            \
	})

struct ktest {
	const char *case_name;
	bool failed;
	bool skipped;
	char skip_reason[96];
	unsigned long bugs_expected; /* report_bug()s the case provokes on purpose */
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	unsigned int nr_cases;
	bool explicit_only;
};

#define KTEST_CASE(fn)                                                                             \
	{                                                                                          \
		.name = #fn, .run = fn                                                             \
	}

#define __KTEST_SUITE(sname, expl, ...)                                                            \
	static const struct ktest_case __ktest_cases_##sname[] = { __VA_ARGS__ };                  \
	static const struct ktest_suite __ktest_suite_##sname __used __section(".ktest_suites")    \
		__aligned(8) = {                                                                   \
			.name = #sname,                                                            \
			.cases = __ktest_cases_##sname,                                            \
			.nr_cases = ARRAY_SIZE(__ktest_cases_##sname),                             \
			.explicit_only = expl,                                                     \
		}
#define KTEST_SUITE(sname, ...)		 __KTEST_SUITE(sname, false, __VA_ARGS__)
#define KTEST_SUITE_EXPLICIT(sname, ...) __KTEST_SUITE(sname, true, __VA_ARGS__)

void ktest_skip(struct ktest *t, const char *reason);
/* The case will provoke n WARNs on purpose, from source file file (the
 * WARN's __FILE__, as its line prints it: "kernel/workqueue/queue.c"): only those
 * read "(expected by a test)"; fewer, more, or one from another file fail
 * the case (and another file's reads as a plain WARNING). */
void ktest_expect_warnings(struct ktest *t, const char *file, unsigned long n);
/* The case will provoke n kernel error reports of subsystem subsys
 * (report_bug(subsys, ...), "BUG: <subsys>: ...") on purpose, from its own
 * thread or from any it sets going (a work item, a dying CPU's stopper),
 * before it returns. Until then up to n of them print as "BUG (expected by
 * a test): ...", which the harness lets pass; a report of another
 * subsystem, or one too many, prints as a plain "BUG:" and fails the boot.
 * Fewer or more of them, or any report it did not declare, fail the case.
 * Up to BUG_EXPECT_KINDS subsystems per case; subsys must outlive it (a
 * string literal). */
void ktest_expect_bugs(struct ktest *t, const char *subsys, unsigned long n);
/* Run the suites named by the test= parameter; returns true if any ran. */
bool ktest_run_selected(void);
/* Run the suites in list ("all" or "a,b"), print KTAP; returns failures
 * (unknown names count). For the shell: does not exit QEMU. */
unsigned int ktest_run(const char *list);
/* Is test= set? (Then the boot ends with the test run.) */
bool ktest_requested(void);
#endif
