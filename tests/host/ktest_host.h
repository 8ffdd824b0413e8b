/* tests/host/ktest_host.h - a tiny KTAP-emitting unit test framework.
 *
 * A test case is "void fn(struct ktest *t)"; its checks are the ones the
 * kernel's tests use (kernel/tools/ktest_assert.h, whose vocabulary the
 * kernel's test runner owns: KT_EXPECT_* record a failure and go on,
 * KT_ASSERT_* also return from the case); this runner defines what that
 * file asks of it (ktest_fail(), ktest_str_equal(), ktest_mem_equal()). A
 * suite is a named array of cases defined with KTEST_SUITE(name, cases) and listed in
 * KTEST_ALL_SUITES below. The runner (ktest_host.c) prints KTAP version 1 with one nested subtest
 * per suite and exits 0 iff every case passed. "lib_tests NAME..." runs only those suites.
 *
 * Test files are compiled with lib_prefix.h force-included, so they must not
 * include libc headers; the libc services they need (reference snprintf and
 * qsort, malloc) are wrapped here with libc_/host_ names.
 */
#ifndef TESTS_HOST_KTEST_HOST_H
#define TESTS_HOST_KTEST_HOST_H

#include <stdarg.h>

#include "kernel/tools/ktest_assert.h"
#include "lib/compiler.h"
#include "lib/types.h"

struct ktest {
	const char *name;
	unsigned int nr_failures;
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	size_t nr_cases;
};

#define KTEST_CASE(fn)                                                                             \
	{                                                                                          \
#fn, fn                                                                            \
	}
#define KTEST_SUITE(sname, case_array)                                                             \
	const struct ktest_suite ktest_suite_##sname = { #sname, case_array,                       \
							 ARRAY_SIZE(case_array) }

/* Every suite, in run order. Add new suites here. */
#define KTEST_ALL_SUITES(X)                                                                        \
	X(string)                                                                                  \
	X(printf)                                                                                  \
	X(list)                                                                                    \
	X(bitmap) X(cpumask) X(sort) X(random) X(buddy) X(errno) X(histogram) X(rbtree) X(hash)

#define KTEST_DECLARE_SUITE(sname) extern const struct ktest_suite ktest_suite_##sname;
KTEST_ALL_SUITES(KTEST_DECLARE_SUITE)
#undef KTEST_DECLARE_SUITE

/* Prints a "    # <message>" diagnostic line. */
void ktest_note(const char *fmt, ...) __printf(1, 2);

/* Host libc, for reference results and memory (see host_libc.c). */
int libc_snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
void libc_qsort(void *base, size_t num, size_t size, int (*cmp)(const void *a, const void *b));
void *host_alloc(size_t size); /* zeroed; aborts on failure */
void host_free(void *p);

#endif
