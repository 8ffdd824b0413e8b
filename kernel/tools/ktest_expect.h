/* kernel/tools/ktest_expect.h - the reports a test case declares it provokes.
 *
 * The test runner's side of ktest_expect_bugs() and ktest_expect_warnings()
 * (ktest.h). It sees every WARN and report_bug() through the core's report
 * notifier (kernel/panic.h), which ktest_run() sets to ktest_expect_notifier.
 *
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
#ifndef KERNEL_TOOLS_KTEST_EXPECT_H
#define KERNEL_TOOLS_KTEST_EXPECT_H

#include "kernel/panic.h"
#include "lib/types.h"

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

/* Marks the declared reports: the notifier ktest_run() sets. */
extern const struct report_notifier ktest_expect_notifier;

#endif
