/* tests/kernel/test_ubsan.c - UBSAN catches planted bugs (kernel/debug/ubsan.c).
 * Explicit (test=ubsan, a boot of its own in make test): only the sanitized
 * build (make SAN=1 or SAN=ubsan) has the checks; in the plain one these
 * cases would be undefined behaviour with nothing to see, so they skip (and
 * make test, whose boots are sanitized, fails on that skip). Each plants one bug in a function of
 * its own (one check site: GCC gives each copy of an unrolled or inlined check a site of its own),
 * fed by volatile values so that nothing is folded away, declares the report it must cause, and
 * runs it twice: the second time stays quiet. */
#include "kernel/panic.h"
#include "kernel/tools/ktest.h"

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

/* (No enum case: in C an enum object may hold any value of its integer
 * type, so loading one is never undefined; GCC checks enum loads in C++
 * only.) */
static unsigned char byte = 2; /* neither false nor true */

static __noinline void load_a_bad_bool(void)
{
	sink = *(bool *)&byte;
}

static void planted(struct ktest *t, void (*bug)(void))
{
	unsigned long before = bug_reports();

#ifndef CONFIG_UBSAN
	ktest_skip(t, "the plain build has no UBSAN (make SAN=1)");
	return;
#endif
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

/* Only the SAN=ubsan image checks bool loads (the Makefile says why). */
static void an_invalid_bool_load_is_reported(struct ktest *t)
{
#ifndef CONFIG_UBSAN_BOOL
	ktest_skip(t, "this image checks no bool loads (make SAN=ubsan does)");
	return;
#endif
	planted(t, load_a_bad_bool);
}

KTEST_SUITE_EXPLICIT(ubsan, KTEST_CASE(an_out_of_bounds_index_is_reported),
		     KTEST_CASE(a_shift_overflow_is_reported),
		     KTEST_CASE(a_signed_overflow_is_reported));
KTEST_SUITE_EXPLICIT(ubsan_bool, KTEST_CASE(an_invalid_bool_load_is_reported));
