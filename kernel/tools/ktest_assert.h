/* kernel/tools/ktest_assert.h - the one assertion vocabulary of baton's tests.
 *
 * Both test runners include this file: the in-kernel KTAP runner
 * (kernel/tools/ktest.h, for tests/kernel/) and the host runner of lib/'s
 * unit tests (tests/host/ktest_host.h). A case is "void fn(struct ktest *t)"
 * in both; each runner defines struct ktest and these functions:
 *
 *   ktest_fail(t, file, line, fmt, ...)  mark the case failed, print
 *                                        "    # FAIL file:line: message"
 *   ktest_str_equal(a, b), ktest_mem_equal(a, b, n)   (NULL equals NULL only)
 *
 * KT_EXPECT_* record a failure and go on; KT_ASSERT_* also return from the
 * case (so they may only be used in the case function itself, or in a
 * helper returning void whose caller checks the failure). Integers are
 * compared as long long and shown in decimal and hex on failure.
 *
 *   KT_EXPECT_TRUE(t, c)   KT_EXPECT_FALSE(t, c)     KT_ASSERT_TRUE(t, c)
 *   KT_EXPECT_EQ(t, a, b)  KT_EXPECT_NE(t, a, b)     KT_ASSERT_EQ(t, a, b)
 *   KT_EXPECT_LE(t, a, b)  KT_EXPECT_LT(t, a, b)     KT_ASSERT_NOT_NULL(t, p)
 *   KT_EXPECT_STREQ(t, a, b)   KT_EXPECT_MEMEQ(t, a, b, n)
 */
#ifndef KERNEL_TOOLS_KTEST_ASSERT_H
#define KERNEL_TOOLS_KTEST_ASSERT_H

#include "lib/compiler.h"
#include "lib/types.h"

struct ktest;

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...) __printf(4, 5);
bool ktest_str_equal(const char *a, const char *b);
bool ktest_mem_equal(const void *a, const void *b, size_t n);

/* Evaluates a and b once each; on !(a OP b) reports both and runs on_fail. */
#define __KT_CMP(t, a, op, b, on_fail)                                                             \
	do {                                                                                       \
		long long __a = (long long)(a), __b = (long long)(b);                              \
		if (!(__a op __b)) {                                                               \
			ktest_fail(t, __FILE__, __LINE__,                                          \
				   "expected %s %s %s (%lld/0x%llx vs %lld/0x%llx)", #a, #op, #b,  \
				   __a, (unsigned long long)__a, __b, (unsigned long long)__b);    \
			on_fail;                                                                   \
		}                                                                                  \
	} while (0)

#define __KT_BOOL(t, c, on_fail)                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			ktest_fail(t, __FILE__, __LINE__, "expected %s", #c);                      \
			on_fail;                                                                   \
		}                                                                                  \
	} while (0)

#define KT_EXPECT_TRUE(t, c)	 __KT_BOOL(t, c, )
#define KT_EXPECT_FALSE(t, c)	 __KT_BOOL(t, !(c), )
#define KT_ASSERT_TRUE(t, c)	 __KT_BOOL(t, c, return )
#define KT_ASSERT_NOT_NULL(t, p) __KT_BOOL(t, (p) != NULL, return )

#define KT_EXPECT_EQ(t, a, b) __KT_CMP(t, a, ==, b, )
#define KT_EXPECT_NE(t, a, b) __KT_CMP(t, a, !=, b, )
#define KT_EXPECT_LE(t, a, b) __KT_CMP(t, a, <=, b, )
#define KT_EXPECT_LT(t, a, b) __KT_CMP(t, a, <, b, )
#define KT_ASSERT_EQ(t, a, b) __KT_CMP(t, a, ==, b, return )

#define KT_EXPECT_STREQ(t, a, b)                                                                   \
	do {                                                                                       \
		const char *__a = (a), *__b = (b);                                                 \
		if (!ktest_str_equal(__a, __b))                                                    \
			ktest_fail(t, __FILE__, __LINE__, "expected %s == %s (\"%s\" vs \"%s\")",  \
				   #a, #b, __a ? __a : "NULL", __b ? __b : "NULL");                \
	} while (0)

#define KT_EXPECT_MEMEQ(t, a, b, n)                                                                \
	do {                                                                                       \
		if (!ktest_mem_equal(a, b, n))                                                     \
			ktest_fail(t, __FILE__, __LINE__, "expected memory %s == %s (%zu bytes)",  \
				   #a, #b, (size_t)(n));                                           \
	} while (0)

#endif
