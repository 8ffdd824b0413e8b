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
 * ends the case) are tests/ktest_assert.h, shared with the host tests of lib/.
 * Each failure prints "# FAIL file:line: ..." with the values.
 */
#ifndef KERNEL_TOOLS_KTEST_H
#define KERNEL_TOOLS_KTEST_H

#include "lib/compiler.h"
#include "lib/types.h"
#include "tests/ktest_assert.h"

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
