/* tests/kernel/test_ubsan.c - UBSAN catches planted bugs (kernel/ubsan.c).
 * Explicit (test=ubsan): only the sanitized build (make SAN=1) has the
 * checks; in the plain one these cases would be undefined behaviour with
 * nothing to see. Each plants one bug in a function of its own (one check
 * site: GCC gives each copy of an unrolled or inlined check a site of its
 * own), fed by volatile values so that nothing is folded away, declares the
 * report it must cause, and runs it twice: the second time stays quiet. */
#include "kernel/panic.h"
#include "kernel/tools/ktest.h"
#include "tests/ktest_assert.h"

static volatile int four = 4, forty = 40, one = 1;
static volatile int big = 0x7fffffff;
static volatile int sink;

static __noinline void store_past_the_end(void)
{
	int a[4] = { 1, 2, 3, 4 };

	a[four] = 5; /* a[4]: one past the end */
	sink = a[0];
}

static __noinline void shift_too_far(void)
{
	sink = one << forty; /* 40 places of a 32-bit int */
}

static __noinline void add_past_int_max(void)
{
	sink = big + one; /* INT_MAX + 1 */
}

static void planted(struct ktest *t, void (*bug)(void))
{
	unsigned long before = bug_reports();

	ktest_expect_bugs(t, "ubsan", 1);
	bug();
	bug();
	KT_EXPECT_EQ(t, bug_reports() - before, 1);
}

static void an_out_of_bounds_index_is_reported(struct ktest *t)
{
	planted(t, store_past_the_end);
}

static void a_shift_overflow_is_reported(struct ktest *t)
{
	planted(t, shift_too_far);
}

static void a_signed_overflow_is_reported(struct ktest *t)
{
	planted(t, add_past_int_max);
}

KTEST_SUITE_EXPLICIT(ubsan, KTEST_CASE(an_out_of_bounds_index_is_reported),
		     KTEST_CASE(a_shift_overflow_is_reported),
		     KTEST_CASE(a_signed_overflow_is_reported));
