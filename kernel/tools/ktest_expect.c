/* kernel/tools/ktest_expect.c - the reports a test case declares it
 * provokes; see ktest_expect.h.
 *
 * Runs inside every WARN and report_bug() once ktest_run() has set its
 * notifier: part of the report path, so the data-race detector leaves it
 * unwatched (the Makefile's KCSAN_EXCLUDE), as it does panic.c. */
#include "kernel/tools/ktest_expect.h"
#include "arch/x86_64/cpu.h"
#include "lib/string.h"

/*
 * Declared reports and WARNs (bug_expect(), warn_expect()): one set each,
 * keyed by the report's subsystem or the WARN's source file. Slots are
 * filled by one thread at a time (the running test case's) and emptied by
 * *_expect_end(), which first closes the set (open) and then waits until no
 * reporter is between its increment of in_flight and its decrement: a
 * reporter increments it before it reads open (both sequentially
 * consistent), so either the reporter sees the set closed or the ending
 * thread sees it in flight and waits for its line.
 */
struct expect_set {
	struct bug_expectation slot[BUG_EXPECT_KINDS];
	bool open;		/* atomic */
	unsigned int in_flight; /* atomic */
};
static struct expect_set bug_set, warn_set;

static bool expect_add(struct expect_set *set, const char *key, unsigned long n)
{
	struct bug_expectation *free = NULL;

	for (unsigned int i = 0; i < BUG_EXPECT_KINDS; i++) {
		struct bug_expectation *e = &set->slot[i];
		const char *k = __atomic_load_n(&e->subsys, __ATOMIC_ACQUIRE);

		if (k && strcmp(k, key) == 0) {
			__atomic_add_fetch(&e->declared, n, __ATOMIC_SEQ_CST);
			return true;
		}
		if (!k && !free)
			free = e;
	}
	if (!free)
		return false;
	__atomic_store_n(&free->came, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&free->declared, n, __ATOMIC_RELAXED);
	__atomic_store_n(&free->subsys, key, __ATOMIC_RELEASE); /* published whole */
	__atomic_store_n(&set->open, true, __ATOMIC_SEQ_CST);
	return true;
}

/* Is a report of this key one a test declared and not yet seen? Takes it.
 * The caller has counted itself in set->in_flight. */
static bool expect_take(struct expect_set *set, const char *key)
{
	if (!__atomic_load_n(&set->open, __ATOMIC_SEQ_CST))
		return false;
	for (unsigned int i = 0; i < BUG_EXPECT_KINDS; i++) {
		struct bug_expectation *e = &set->slot[i];
		const char *k = __atomic_load_n(&e->subsys, __ATOMIC_ACQUIRE);

		if (!k || strcmp(k, key) != 0)
			continue;
		unsigned long came = __atomic_load_n(&e->came, __ATOMIC_RELAXED);

		while (came < __atomic_load_n(&e->declared, __ATOMIC_SEQ_CST))
			if (__atomic_compare_exchange_n(&e->came, &came, came + 1, false,
							__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				return true;
		return false; /* all of that kind came already: this one is extra */
	}
	return false;
}

static unsigned int expect_end(struct expect_set *set, struct bug_expectation *out,
			       unsigned int max)
{
	unsigned int n = 0;

	__atomic_store_n(&set->open, false, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&set->in_flight, __ATOMIC_SEQ_CST))
		cpu_relax(); /* one marked expected is still printing */
	for (unsigned int i = 0; i < BUG_EXPECT_KINDS; i++) {
		struct bug_expectation *e = &set->slot[i];

		if (!e->subsys)
			continue;
		if (n < max)
			out[n++] = *e;
		__atomic_store_n(&e->subsys, NULL, __ATOMIC_RELEASE);
	}
	return n;
}

bool bug_expect(const char *subsys, unsigned long n)
{
	return expect_add(&bug_set, subsys, n);
}

unsigned int bug_expect_end(struct bug_expectation *out, unsigned int max)
{
	return expect_end(&bug_set, out, max);
}

bool warn_expect(const char *file, unsigned long n)
{
	return expect_add(&warn_set, file, n);
}

unsigned int warn_expect_end(struct bug_expectation *out, unsigned int max)
{
	return expect_end(&warn_set, out, max);
}

static struct expect_set *set_of(enum report_type type)
{
	return type == REPORT_WARN ? &warn_set : &bug_set;
}

/* A report begins: counted in flight before it looks at the set, until its
 * line is printed and counted (expect_report_end()), so that *_expect_end()
 * waits for a line it may have marked expected. */
static bool expect_report_begin(enum report_type type, const char *key)
{
	struct expect_set *set = set_of(type);

	__atomic_add_fetch(&set->in_flight, 1, __ATOMIC_SEQ_CST);
	return expect_take(set, key);
}

static void expect_report_end(enum report_type type)
{
	__atomic_sub_fetch(&set_of(type)->in_flight, 1, __ATOMIC_SEQ_CST);
}

const struct report_notifier ktest_expect_notifier = {
	.begin = expect_report_begin,
	.end = expect_report_end,
};
