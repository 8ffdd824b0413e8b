/* tests/host/ktest_host.c - KTAP runner and main() for build/host/lib_tests.
 *
 * Output (KTAP version 1): a top-level plan with one line per suite; each
 * suite is a nested, 4-space indented subtest with its own plan and one
 * result line per case, failure diagnostics printed before the case's
 * result. Exit status 0 iff every selected case passed.
 *
 * Built without lib_prefix.h: this file uses the real stdio/string.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ktest_host.h"

/* Past this many failures in one case, stop printing diagnostics. */
#define MAX_DIAGNOSTICS_PER_CASE 20

static const struct ktest_suite *const all_suites[] = {
#define KTEST_SUITE_POINTER(sname) &ktest_suite_##sname,
	KTEST_ALL_SUITES(KTEST_SUITE_POINTER)
#undef KTEST_SUITE_POINTER
};

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	t->nr_failures++;
	if (t->nr_failures > MAX_DIAGNOSTICS_PER_CASE) {
		if (t->nr_failures == MAX_DIAGNOSTICS_PER_CASE + 1)
			printf("    # (further failures of %s not shown)\n", t->name);
		return;
	}
	printf("    # FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void ktest_note(const char *fmt, ...)
{
	va_list ap;

	printf("    # ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
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

/* Runs one suite as a nested KTAP subtest; returns true if all passed. */
static bool run_suite(const struct ktest_suite *suite)
{
	bool suite_ok = true;
	size_t i;

	printf("    KTAP version 1\n");
	printf("    # Subtest: %s\n", suite->name);
	printf("    1..%zu\n", suite->nr_cases);
	fflush(stdout);
	for (i = 0; i < suite->nr_cases; i++) {
		const struct ktest_case *c = &suite->cases[i];
		struct ktest t = { .name = c->name, .nr_failures = 0 };

		c->run(&t);
		printf("    %s %zu %s\n", t.nr_failures ? "not ok" : "ok", i + 1, c->name);
		fflush(stdout);
		if (t.nr_failures)
			suite_ok = false;
	}
	return suite_ok;
}

static bool selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], name))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	size_t i, planned = 0, number = 0;
	bool all_ok = true;

	for (i = 0; i < ARRAY_SIZE(all_suites); i++)
		planned += selected(all_suites[i]->name, argc, argv);
	if (planned == 0) {
		fprintf(stderr, "%s: no such suite\n", argv[0]);
		return 2;
	}

	printf("KTAP version 1\n");
	printf("1..%zu\n", planned);
	for (i = 0; i < ARRAY_SIZE(all_suites); i++) {
		bool ok;

		if (!selected(all_suites[i]->name, argc, argv))
			continue;
		ok = run_suite(all_suites[i]);
		printf("%s %zu %s\n", ok ? "ok" : "not ok", ++number, all_suites[i]->name);
		fflush(stdout);
		all_ok = all_ok && ok;
	}
	return all_ok ? 0 : 1;
}
