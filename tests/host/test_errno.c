/* tests/host/test_errno.c - tests for lib/errno.c (errno_name). */
#include "ktest_host.h"
#include "lib/errno.h"
#include "lib/string.h"

/* Every number lib/errno.h defines, with the name it must print. */
static const struct {
	int err;
	const char *name;
} known[] = {
	{ EPERM, "EPERM" },	    { ENOENT, "ENOENT" },
	{ EINTR, "EINTR" },	    { EIO, "EIO" },
	{ E2BIG, "E2BIG" },	    { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },	    { EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" },	    { EEXIST, "EEXIST" },
	{ ENODEV, "ENODEV" },	    { EINVAL, "EINVAL" },
	{ ENOSPC, "ENOSPC" },	    { ERANGE, "ERANGE" },
	{ EDEADLK, "EDEADLK" },	    { ENOSYS, "ENOSYS" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { EALREADY, "EALREADY" },
	{ ECANCELED, "ECANCELED" },
};

static void errno_name_known(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		const char *neg = errno_name(-known[i].err);

		KT_EXPECT_STREQ(t, errno_name(known[i].err), known[i].name);
		KT_EXPECT_TRUE(t, neg[0] == '-');
		KT_EXPECT_STREQ(t, neg + 1, known[i].name);
	}
	KT_EXPECT_STREQ(t, errno_name(0), "0");
}

static void errno_name_unknown(struct ktest *t)
{
	static const int unknown[] = { 3,    -3,    6,	       13,	  -100,
				       109,  111,   124,       126,	  -126,
				       4096, -4096, INT32_MAX, INT32_MIN, INT32_MIN + 1 };
	size_t nr_named = 0;

	for (size_t i = 0; i < ARRAY_SIZE(unknown); i++)
		KT_EXPECT_STREQ(t, errno_name(unknown[i]), "unknown error");
	/* Exactly the numbers in the table have names, in both signs. */
	for (int e = 1; e < 1000; e++) {
		bool named = strcmp(errno_name(e), "unknown error") != 0;

		nr_named += named;
		KT_EXPECT_EQ(t, named, strcmp(errno_name(-e), "unknown error") != 0);
	}
	KT_EXPECT_EQ(t, nr_named, ARRAY_SIZE(known));
}

static const struct ktest_case errno_cases[] = {
	KTEST_CASE(errno_name_known),
	KTEST_CASE(errno_name_unknown),
};

KTEST_SUITE(errno, errno_cases);
