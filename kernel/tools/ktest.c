/* kernel/tools/ktest.c - the KTAP test runner; see ktest.h.
 *
 * Output (KTAP version 1, as the harness's tests/harness/ktap.py parses it):
 *
 *   KTAP version 1
 *   1..2                       one line per selected suite
 *       KTAP version 1
 *       # Subtest: kmalloc
 *       1..3
 *       ok 1 alloc_free
 *       # FAIL tests/kernel/test_kmalloc.c:40: expected ...
 *       not ok 2 redzone
 *       ok 3 big # SKIP needs at least 2 CPUs
 *   not ok 1 kmalloc
 *   ...
 *   # baton-tests: 5 passed, 1 failed, 1 skipped
 *
 * Test output lines go straight to the console, without the "[cpuN]"
 * prefix, so that a KTAP parser sees them at the start of the line. */
#include "kernel/tools/ktest.h"
#include "drivers/qemu_exit.h"
#include "kernel/debug/kcsan.h"
#include "kernel/debug/lockdep.h"
#include "kernel/panic.h"
#include "kernel/params.h"
#include "kernel/printk.h"
#include "kernel/time.h"
#include "kernel/tools/ktest_expect.h"
#include "lib/printf.h"
#include "lib/string.h"

extern const struct ktest_suite __ktest_start[], __ktest_end[];

static char test_param[256];
PARAM_STRING(test, test_param,
	     "run test suites and exit: all, or a comma-separated list of suite names");

void ktest_expect_warnings(struct ktest *t, const char *file, unsigned long n)
{
	if (!warn_expect(file, n)) {
		ktest_fail(t, __FILE__, __LINE__,
			   "WARNs of more than %u files declared; '%s' is not", BUG_EXPECT_KINDS,
			   file);
		return;
	}
	clear_warn_once(); /* the expected ones fire even if fired before */
}

/* The end of a case: what it declared (ktest_expect_warnings, ktest_expect_bugs),
 * each kind as often as declared, and nothing else. got: how many of them
 * (WARNs or reports) came during the case; what: their name in a message. */
static void check_declared(struct ktest *t,
			   unsigned int (*end)(struct bug_expectation *, unsigned int),
			   unsigned long got, const char *what)
{
	struct bug_expectation kinds[BUG_EXPECT_KINDS];
	unsigned int n = end(kinds, ARRAY_SIZE(kinds));
	unsigned long came = 0;

	for (unsigned int i = 0; i < n; i++) {
		came += kinds[i].came;
		if (kinds[i].came != kinds[i].declared)
			ktest_fail(t, __FILE__, __LINE__,
				   "the case declared %lu %s of %s, and %lu came",
				   kinds[i].declared, what, kinds[i].subsys, kinds[i].came);
	}
	if (got > came)
		ktest_fail(t, __FILE__, __LINE__, "%lu %s during the case that it did not declare",
			   got - came, what);
}

void ktest_expect_bugs(struct ktest *t, const char *subsys, unsigned long n)
{
	if (!bug_expect(subsys, n)) {
		ktest_fail(t, __FILE__, __LINE__,
			   "reports of more than %u subsystems declared; '%s' is not",
			   BUG_EXPECT_KINDS, subsys);
		return;
	}
	t->bugs_expected += n;
	clear_warn_once(); /* and the once-only reports (the workqueue's self-waits) */
}

bool ktest_requested(void)
{
	return test_param[0] != '\0';
}

/* Print a KTAP line: no "[cpuN] " prefix, always shown. */
#define ktap(fmt, ...) printk(KERN_RAW fmt, ##__VA_ARGS__)

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failed = true;
	ktap("    # FAIL %s:%d: %s\n", file, line, msg);
}

bool ktest_str_equal(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool ktest_mem_equal(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n) == 0;
}

void ktest_skip(struct ktest *t, const char *reason)
{
	t->skipped = true;
	strscpy(t->skip_reason, reason, sizeof(t->skip_reason));
}

/* Is suite s named in the comma-separated list? */
static bool selected(const struct ktest_suite *s, const char *list)
{
	if (!s->explicit_only && strlist_has(list, "all", 3))
		return true;
	return strlist_has(list, s->name, strlen(s->name));
}

/* Warn about names in test= that match no suite: a typo must not pass. */
static unsigned int check_names(const char *list)
{
	unsigned int unknown = 0;
	const char *item;
	size_t len;

	while ((item = strlist_next(&list, &len))) {
		bool found = len == 3 && strncmp(item, "all", 3) == 0;

		for (const struct ktest_suite *s = __ktest_start; s < __ktest_end && !found; s++)
			found = strlen(s->name) == len && strncmp(item, s->name, len) == 0;
		if (!found && len) {
			pr_err("ktest: no test suite named '%.*s'\n", (int)len, item);
			unknown++;
		}
	}
	return unknown;
}

/* A sanitized boot's data-race detector sampled at its floor or above
 * (kernel/debug/kcsan.h); a boot whose detector set no watchpoints passed every
 * race check by making none. The figures go to the log; a rate under the
 * floor is an error report, which fails the boot. */
static bool detector_sampled(void)
{
#ifdef CONFIG_KCSAN
	struct kcsan_stats st;
	char why[192];

	kcsan_get_stats(&st);
	pr_info("kcsan: %lu watchpoints set in %lu plain accesses at the boot's rate: %lu per "
		"million (floor %u)\n",
		st.rate_watchpoints, st.rate_accesses,
		kcsan_per_million(st.rate_watchpoints, st.rate_accesses), KCSAN_FLOOR_PER_MILLION);
	if (!kcsan_sampled(&st, why, sizeof(why))) {
		report_bug("kcsan", "%s", why);
		return false;
	}
#endif
	return true;
}

bool ktest_run_selected(void)
{
	if (!ktest_requested())
		return false;
	unsigned int failed = ktest_run(test_param);

	if (!detector_sampled())
		failed++;
	qemu_exit(failed ? QEMU_EXIT_FAILURE : QEMU_EXIT_SUCCESS);
}

unsigned int ktest_run(const char *list)
{
	unsigned int nr_suites = 0, suite_no = 0;
	unsigned int passed = 0, failed = 0, skipped = 0;

	/* The reports a case declares are marked through the core's report
	 * notifier: from here on it is the runner's. */
	set_report_notifier(&ktest_expect_notifier);
	failed += check_names(list);
	for (const struct ktest_suite *s = __ktest_start; s < __ktest_end; s++)
		nr_suites += selected(s, list);

	ktap("KTAP version 1\n");
	ktap("1..%u\n", nr_suites);
	for (const struct ktest_suite *s = __ktest_start; s < __ktest_end; s++) {
		bool suite_failed = false;

		if (!selected(s, list))
			continue;
		suite_no++;
		ktap("    KTAP version 1\n");
		ktap("    # Subtest: %s\n", s->name);
		ktap("    1..%u\n", s->nr_cases);
		for (unsigned int i = 0; i < s->nr_cases; i++) {
			struct ktest t = { .case_name = s->cases[i].name };
			unsigned long warns = warn_count;
			unsigned long bugs = bug_reports();

			u64 t0 = ktime_get_ns();

			s->cases[i].run(&t);
			/* WARN()s by source file, report_bug()s by subsystem. */
			check_declared(&t, warn_expect_end, warn_count - warns, "WARN(s)");
			check_declared(&t, bug_expect_end, bug_reports() - bugs,
				       "kernel error report(s) (BUG)");
			/* A lock-validator report a case provoked stopped the
			 * validator: the cases after it run with it on again. */
			if (t.bugs_expected)
				lockdep_rearm();
			ktap("    # %s: %lu ms\n", t.case_name,
			     (unsigned long)((ktime_get_ns() - t0) / NSEC_PER_MSEC));
			if (t.skipped && !t.failed) {
				ktap("    ok %u %s # SKIP %s\n", i + 1, t.case_name, t.skip_reason);
				skipped++;
			} else {
				ktap("    %s %u %s\n", t.failed ? "not ok" : "ok", i + 1,
				     t.case_name);
				if (t.failed)
					failed++;
				else
					passed++;
			}
			suite_failed |= t.failed;
		}
		ktap("%s %u %s\n", suite_failed ? "not ok" : "ok", suite_no, s->name);
	}
	ktap("# baton-tests: %u passed, %u failed, %u skipped\n", passed, failed, skipped);
	return failed;
}
