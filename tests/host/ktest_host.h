/* tests/host/ktest_host.h - a tiny KTAP-emitting unit test framework.
 *
 * A test case is "void fn(struct ktest *t)"; checks record a failure with a
 * "# FAIL file:line: expr" diagnostic and keep going (KT_EXPECT*) or return
 * from the case (KT_ASSERT*). A suite is a named array of cases defined with
 * KTEST_SUITE(name, cases) and listed in KTEST_ALL_SUITES below. The runner
 * (ktest_host.c) prints KTAP version 1 with one nested subtest per suite and
 * exits 0 iff every case passed. "lib_tests NAME..." runs only those suites.
 *
 * Test files are compiled with lib_prefix.h force-included, so they must not
 * include libc headers; the libc services they need (reference snprintf and
 * qsort, malloc) are wrapped here with libc_/host_ names.
 */
#ifndef TESTS_HOST_KTEST_HOST_H
#define TESTS_HOST_KTEST_HOST_H

#include <stdarg.h>

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

#define KTEST_CASE(fn) { #fn, fn }
#define KTEST_SUITE(sname, case_array)					\
	const struct ktest_suite ktest_suite_##sname = {		\
		#sname, case_array, ARRAY_SIZE(case_array)		\
	}

/* Every suite, in run order. Add new suites here. */
#define KTEST_ALL_SUITES(X)						\
	X(string) X(printf) X(list) X(bitmap) X(cpumask) X(sort) X(random)	\
	X(buddy)

#define KTEST_DECLARE_SUITE(sname) \
	extern const struct ktest_suite ktest_suite_##sname;
KTEST_ALL_SUITES(KTEST_DECLARE_SUITE)
#undef KTEST_DECLARE_SUITE

/* Records a failure and prints "    # FAIL file:line: <message>". */
void ktest_fail(struct ktest *t, const char *file, int line,
		const char *fmt, ...) __printf(4, 5);
/* Prints a "    # <message>" diagnostic line. */
void ktest_note(const char *fmt, ...) __printf(1, 2);

/* Helpers that compare with libc so checks do not rely on lib/ itself. */
bool ktest_str_equal(const char *a, const char *b);
bool ktest_mem_equal(const void *a, const void *b, size_t n);

#define KT_EXPECT(t, cond)						\
	do {								\
		if (!(cond))						\
			ktest_fail(t, __FILE__, __LINE__, "%s", #cond);	\
	} while (0)

#define KT_ASSERT(t, cond)						\
	do {								\
		if (!(cond)) {						\
			ktest_fail(t, __FILE__, __LINE__, "%s", #cond);	\
			return;						\
		}							\
	} while (0)

/* Integer equality; both sides are shown (as s64 and hex) on failure. */
#define KT_EXPECT_EQ(t, a, b)						\
	do {								\
		s64 __a = (s64)(a), __b = (s64)(b);			\
		if (__a != __b)						\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "%s == %s (%lld/0x%llx vs %lld/0x%llx)", \
				   #a, #b, (long long)__a,		\
				   (unsigned long long)__a,		\
				   (long long)__b,			\
				   (unsigned long long)__b);		\
	} while (0)

#define KT_ASSERT_EQ(t, a, b)						\
	do {								\
		unsigned int __before = (t)->nr_failures;		\
		KT_EXPECT_EQ(t, a, b);					\
		if ((t)->nr_failures != __before)			\
			return;						\
	} while (0)

#define KT_EXPECT_STREQ(t, a, b)					\
	do {								\
		const char *__a = (a), *__b = (b);			\
		if (!ktest_str_equal(__a, __b))				\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "%s == %s (\"%s\" vs \"%s\")", #a, #b, \
				   __a ? __a : "NULL",			\
				   __b ? __b : "NULL");			\
	} while (0)

#define KT_EXPECT_MEMEQ(t, a, b, n)					\
	do {								\
		if (!ktest_mem_equal(a, b, n))				\
			ktest_fail(t, __FILE__, __LINE__,		\
				   "memory %s == %s (%zu bytes)", #a, #b, \
				   (size_t)(n));			\
	} while (0)

/* Host libc, for reference results and memory (see host_libc.c). */
int libc_snprintf(char *buf, size_t size, const char *fmt, ...)
	__printf(3, 4);
int libc_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__printf(3, 0);
void libc_qsort(void *base, size_t num, size_t size,
		int (*cmp)(const void *a, const void *b));
void *host_alloc(size_t size);		/* zeroed; aborts on failure */
void host_free(void *p);

#endif
