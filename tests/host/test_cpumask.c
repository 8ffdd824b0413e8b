/* tests/host/test_cpumask.c - tests for lib/cpumask.h.
 *
 * Fixed cases pin down the edges (CPU 0, 63/64 word boundary, NR_CPUS-1,
 * empty masks, single-member masks for the wrap search); random masks are
 * checked against a plain bool-array model for every search and logic
 * operation.
 */
#include "ktest_host.h"
#include "lib/cpumask.h"
#include "lib/errno.h"
#include "lib/random.h"
#include "lib/string.h"

struct cpu_model {
	struct cpumask mask;
	bool cpus[NR_CPUS];
};

static void model_random(struct cpu_model *m, struct prng *r, unsigned int density)
{
	unsigned int cpu;

	cpumask_clear(&m->mask);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		m->cpus[cpu] = prng_below(r, 100) < density;
		if (m->cpus[cpu])
			cpumask_set_cpu(cpu, &m->mask);
	}
}

static void cpumask_single_cpus(struct ktest *t)
{
	struct cpumask m;
	unsigned int cpu;

	KT_EXPECT_EQ(t, NR_CPUS, 256);
	KT_EXPECT_EQ(t, sizeof(cpumask_t), NR_CPUS / 8);

	cpumask_clear(&m);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KT_EXPECT_TRUE(t, !cpumask_test_cpu(cpu, &m));
	cpumask_set_cpu(0, &m);
	cpumask_set_cpu(63, &m);
	cpumask_set_cpu(64, &m);
	cpumask_set_cpu(NR_CPUS - 1, &m);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(0, &m));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(63, &m));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(64, &m));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(NR_CPUS - 1, &m));
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(1, &m));
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(65, &m));
	KT_EXPECT_EQ(t, cpumask_weight(&m), 4);

	/* Setting twice is idempotent; clearing a clear bit too. */
	cpumask_set_cpu(63, &m);
	KT_EXPECT_EQ(t, cpumask_weight(&m), 4);
	cpumask_clear_cpu(63, &m);
	cpumask_clear_cpu(63, &m);
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(63, &m));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(64, &m));
	KT_EXPECT_EQ(t, cpumask_weight(&m), 3);

	/* The "not found" sentinel and anything past it test as absent. */
	cpumask_setall(&m);
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(NR_CPUS, &m));
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(~0U, &m));
}

/* cpumask_of(cpu) holds cpu and nothing else, for every cpu. */
static void cpumask_of_holds_one_cpu(struct ktest *t)
{
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct cpumask *m = cpumask_of(cpu);

		KT_EXPECT_EQ(t, cpumask_weight(m), 1);
		KT_EXPECT_EQ(t, cpumask_first(m), cpu);
	}
}

static void cpumask_clear_setall_copy(struct ktest *t)
{
	struct cpumask a, b;

	memset(&a, 0xa5, sizeof(a));
	cpumask_clear(&a);
	KT_EXPECT_TRUE(t, cpumask_empty(&a));
	KT_EXPECT_EQ(t, cpumask_weight(&a), 0);

	cpumask_setall(&a);
	KT_EXPECT_TRUE(t, !cpumask_empty(&a));
	KT_EXPECT_EQ(t, cpumask_weight(&a), NR_CPUS);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(0, &a));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(NR_CPUS - 1, &a));

	cpumask_clear(&b);
	cpumask_set_cpu(5, &b);
	cpumask_set_cpu(200, &b);
	cpumask_copy(&a, &b);
	KT_EXPECT_TRUE(t, cpumask_equal(&a, &b));
	KT_EXPECT_EQ(t, cpumask_weight(&a), 2);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(200, &a));
	cpumask_clear_cpu(200, &b);
	KT_EXPECT_TRUE(t, !cpumask_equal(&a, &b));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(200, &a)); /* a copy, not an alias */
}

static void cpumask_logic_fixed(struct ktest *t)
{
	struct cpumask a, b, dst, empty;

	cpumask_clear(&empty);
	cpumask_clear(&a);
	cpumask_clear(&b);
	cpumask_set_cpu(1, &a);
	cpumask_set_cpu(70, &a);
	cpumask_set_cpu(255, &a);
	cpumask_set_cpu(70, &b);
	cpumask_set_cpu(128, &b);

	KT_EXPECT_TRUE(t, cpumask_and(&dst, &a, &b));
	KT_EXPECT_EQ(t, cpumask_weight(&dst), 1);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(70, &dst));

	cpumask_or(&dst, &a, &b);
	KT_EXPECT_EQ(t, cpumask_weight(&dst), 4);
	KT_EXPECT_TRUE(t, cpumask_subset(&a, &dst));
	KT_EXPECT_TRUE(t, cpumask_subset(&b, &dst));
	KT_EXPECT_TRUE(t, !cpumask_subset(&dst, &a));

	KT_EXPECT_TRUE(t, cpumask_andnot(&dst, &a, &b));
	KT_EXPECT_EQ(t, cpumask_weight(&dst), 2);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(1, &dst));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(255, &dst));
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(70, &dst));

	KT_EXPECT_TRUE(t, cpumask_intersects(&a, &b));
	KT_EXPECT_TRUE(t, !cpumask_intersects(&dst, &b));

	/* Empty results report false; the empty set is a subset of all. */
	KT_EXPECT_TRUE(t, !cpumask_and(&dst, &a, &empty));
	KT_EXPECT_TRUE(t, cpumask_empty(&dst));
	KT_EXPECT_TRUE(t, !cpumask_andnot(&dst, &a, &a));
	KT_EXPECT_TRUE(t, cpumask_empty(&dst));
	KT_EXPECT_TRUE(t, cpumask_subset(&empty, &a));
	KT_EXPECT_TRUE(t, cpumask_subset(&empty, &empty));
	KT_EXPECT_TRUE(t, cpumask_subset(&a, &a));
	KT_EXPECT_TRUE(t, !cpumask_intersects(&a, &empty));
	KT_EXPECT_TRUE(t, !cpumask_intersects(&empty, &empty));
	KT_EXPECT_TRUE(t, cpumask_equal(&empty, &empty));

	/* dst may alias a source, as with the bitmap versions. */
	cpumask_copy(&dst, &a);
	cpumask_or(&dst, &dst, &b);
	KT_EXPECT_EQ(t, cpumask_weight(&dst), 4);
	KT_EXPECT_TRUE(t, cpumask_and(&dst, &dst, &b));
	KT_EXPECT_TRUE(t, cpumask_equal(&dst, &b));
}

static void cpumask_logic_random(struct ktest *t)
{
	struct cpu_model a, b;
	struct cpumask dst;
	struct prng r;
	unsigned int iter, cpu;

	prng_seed(&r, 11);
	for (iter = 0; iter < 200; iter++) {
		bool any_and = false, any_andnot = false, sub = true;
		bool eq = true;
		unsigned int weight = 0;

		model_random(&a, &r, prng_below(&r, 101));
		if (iter % 4 == 0)
			b = a; /* equal and subset cases too */
		else
			model_random(&b, &r, prng_below(&r, 101));

		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			any_and |= a.cpus[cpu] && b.cpus[cpu];
			any_andnot |= a.cpus[cpu] && !b.cpus[cpu];
			if (a.cpus[cpu] && !b.cpus[cpu])
				sub = false;
			if (a.cpus[cpu] != b.cpus[cpu])
				eq = false;
			weight += a.cpus[cpu];
		}
		KT_EXPECT_EQ(t, cpumask_weight(&a.mask), weight);
		KT_EXPECT_EQ(t, cpumask_empty(&a.mask), weight == 0);
		KT_EXPECT_EQ(t, cpumask_equal(&a.mask, &b.mask), eq);
		KT_EXPECT_EQ(t, cpumask_subset(&a.mask, &b.mask), sub);
		KT_EXPECT_EQ(t, cpumask_intersects(&a.mask, &b.mask), any_and);

		KT_EXPECT_EQ(t, cpumask_and(&dst, &a.mask, &b.mask), any_and);
		for (cpu = 0; cpu < NR_CPUS; cpu++)
			KT_EXPECT_EQ(t, cpumask_test_cpu(cpu, &dst), a.cpus[cpu] && b.cpus[cpu]);
		KT_EXPECT_EQ(t, cpumask_andnot(&dst, &a.mask, &b.mask), any_andnot);
		for (cpu = 0; cpu < NR_CPUS; cpu++)
			KT_EXPECT_EQ(t, cpumask_test_cpu(cpu, &dst), a.cpus[cpu] && !b.cpus[cpu]);
		cpumask_or(&dst, &a.mask, &b.mask);
		for (cpu = 0; cpu < NR_CPUS; cpu++)
			KT_EXPECT_EQ(t, cpumask_test_cpu(cpu, &dst), a.cpus[cpu] || b.cpus[cpu]);
	}
}

static void cpumask_search_fixed(struct ktest *t)
{
	struct cpumask m;

	cpumask_clear(&m);
	KT_EXPECT_EQ(t, cpumask_first(&m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_next(-1, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_next(0, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_next_wrap(-1, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_next_wrap(7, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_next_wrap(NR_CPUS - 1, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_any_but(&m, 0), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_nth(0, &m), NR_CPUS);

	cpumask_set_cpu(3, &m);
	cpumask_set_cpu(64, &m);
	cpumask_set_cpu(NR_CPUS - 1, &m);
	KT_EXPECT_EQ(t, cpumask_first(&m), 3);
	KT_EXPECT_EQ(t, cpumask_next(-1, &m), 3);
	KT_EXPECT_EQ(t, cpumask_next(2, &m), 3);
	KT_EXPECT_EQ(t, cpumask_next(3, &m), 64);
	KT_EXPECT_EQ(t, cpumask_next(63, &m), 64);
	KT_EXPECT_EQ(t, cpumask_next(64, &m), NR_CPUS - 1);
	KT_EXPECT_EQ(t, cpumask_next(NR_CPUS - 1, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_next(NR_CPUS, &m), NR_CPUS);

	/* Wrap: after the last member comes the first again. */
	KT_EXPECT_EQ(t, cpumask_next_wrap(-1, &m), 3);
	KT_EXPECT_EQ(t, cpumask_next_wrap(3, &m), 64);
	KT_EXPECT_EQ(t, cpumask_next_wrap(100, &m), NR_CPUS - 1);
	KT_EXPECT_EQ(t, cpumask_next_wrap(NR_CPUS - 1, &m), 3);
	KT_EXPECT_EQ(t, cpumask_next_wrap(NR_CPUS, &m), 3);

	KT_EXPECT_EQ(t, cpumask_any_but(&m, 3), 64);
	KT_EXPECT_EQ(t, cpumask_any_but(&m, 64), 3);
	KT_EXPECT_EQ(t, cpumask_any_but(&m, 0), 3);

	KT_EXPECT_EQ(t, cpumask_nth(0, &m), 3);
	KT_EXPECT_EQ(t, cpumask_nth(1, &m), 64);
	KT_EXPECT_EQ(t, cpumask_nth(2, &m), NR_CPUS - 1);
	KT_EXPECT_EQ(t, cpumask_nth(3, &m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_nth(~0U, &m), NR_CPUS);

	/* A single member: wrap returns it from anywhere, itself included. */
	cpumask_clear(&m);
	cpumask_set_cpu(42, &m);
	KT_EXPECT_EQ(t, cpumask_next_wrap(42, &m), 42);
	KT_EXPECT_EQ(t, cpumask_next_wrap(41, &m), 42);
	KT_EXPECT_EQ(t, cpumask_next_wrap(43, &m), 42);
	KT_EXPECT_EQ(t, cpumask_next_wrap(-1, &m), 42);
	KT_EXPECT_EQ(t, cpumask_any_but(&m, 42), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_any_but(&m, 0), 42);

	cpumask_clear(&m);
	cpumask_set_cpu(0, &m);
	KT_EXPECT_EQ(t, cpumask_next_wrap(0, &m), 0);
	KT_EXPECT_EQ(t, cpumask_next_wrap(NR_CPUS - 1, &m), 0);
	cpumask_clear(&m);
	cpumask_set_cpu(NR_CPUS - 1, &m);
	KT_EXPECT_EQ(t, cpumask_next_wrap(NR_CPUS - 1, &m), NR_CPUS - 1);
	KT_EXPECT_EQ(t, cpumask_next_wrap(0, &m), NR_CPUS - 1);

	/* Full mask. */
	cpumask_setall(&m);
	KT_EXPECT_EQ(t, cpumask_first(&m), 0);
	KT_EXPECT_EQ(t, cpumask_any_but(&m, 0), 1);
	KT_EXPECT_EQ(t, cpumask_nth(NR_CPUS - 1, &m), NR_CPUS - 1);
	KT_EXPECT_EQ(t, cpumask_next_wrap(NR_CPUS - 1, &m), 0);
}

static void cpumask_search_random(struct ktest *t)
{
	struct cpu_model m;
	struct prng r;
	unsigned int iter;
	int cpu;

	prng_seed(&r, 23);
	for (iter = 0; iter < 100; iter++) {
		unsigned int members[NR_CPUS], nr = 0, i, but;

		model_random(&m, &r, prng_below(&r, 30));
		for (i = 0; i < NR_CPUS; i++) {
			if (m.cpus[i])
				members[nr++] = i;
		}
		KT_EXPECT_EQ(t, cpumask_first(&m.mask), nr ? members[0] : NR_CPUS);
		for (i = 0; i <= nr; i++)
			KT_EXPECT_EQ(t, cpumask_nth(i, &m.mask), i < nr ? members[i] : NR_CPUS);

		for (cpu = -1; cpu < NR_CPUS; cpu++) {
			unsigned int next = NR_CPUS, wrap = NR_CPUS;
			int c;

			for (c = cpu + 1; c < NR_CPUS; c++) {
				if (m.cpus[c]) {
					next = (unsigned int)c;
					break;
				}
			}
			wrap = next;
			if (wrap == NR_CPUS) {
				for (c = 0; c <= cpu; c++) {
					if (m.cpus[c]) {
						wrap = (unsigned int)c;
						break;
					}
				}
			}
			KT_EXPECT_EQ(t, cpumask_next(cpu, &m.mask), next);
			KT_EXPECT_EQ(t, cpumask_next_wrap(cpu, &m.mask), wrap);
		}

		but = prng_below(&r, NR_CPUS);
		if (nr && iter % 2)
			but = members[prng_below(&r, nr)];
		i = cpumask_any_but(&m.mask, but);
		if (nr == 0 || (nr == 1 && members[0] == but)) {
			KT_EXPECT_EQ(t, i, NR_CPUS);
		} else {
			KT_EXPECT_TRUE(t, i < NR_CPUS);
			KT_EXPECT_TRUE(t, i != but);
			KT_EXPECT_TRUE(t, cpumask_test_cpu(i, &m.mask));
		}
	}
}

static void cpumask_iterators(struct ktest *t)
{
	struct cpu_model a, b;
	struct prng r;
	unsigned int iter, cpu, nr, prev;
	int icpu;

	/* Empty masks: the bodies never run. */
	cpumask_clear(&a.mask);
	nr = 0;
	for_each_cpu(cpu, &a.mask)
		nr++;
	KT_EXPECT_EQ(t, nr, 0);
	cpumask_setall(&b.mask);
	for_each_cpu_and(cpu, &a.mask, &b.mask)
		nr++;
	for_each_cpu_and(cpu, &b.mask, &a.mask)
		nr++;
	KT_EXPECT_EQ(t, nr, 0);

	/* An int loop variable works too (Linux code uses both). */
	cpumask_set_cpu(0, &a.mask);
	cpumask_set_cpu(NR_CPUS - 1, &a.mask);
	nr = 0;
	for_each_cpu(icpu, &a.mask)
		nr += (unsigned int)icpu;
	KT_EXPECT_EQ(t, nr, NR_CPUS - 1);

	prng_seed(&r, 5);
	for (iter = 0; iter < 100; iter++) {
		unsigned int expect = 0, expect_and = 0;

		model_random(&a, &r, prng_below(&r, 101));
		model_random(&b, &r, prng_below(&r, 101));
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			expect += a.cpus[cpu];
			expect_and += a.cpus[cpu] && b.cpus[cpu];
		}

		nr = 0;
		prev = 0;
		for_each_cpu(cpu, &a.mask) {
			KT_EXPECT_TRUE(t, a.cpus[cpu]);
			KT_EXPECT_TRUE(t, nr == 0 || cpu > prev);
			prev = cpu;
			nr++;
		}
		KT_EXPECT_EQ(t, nr, expect);

		nr = 0;
		for_each_cpu_and(cpu, &a.mask, &b.mask) {
			KT_EXPECT_TRUE(t, a.cpus[cpu] && b.cpus[cpu]);
			KT_EXPECT_TRUE(t, nr == 0 || cpu > prev);
			prev = cpu;
			nr++;
		}
		KT_EXPECT_EQ(t, nr, expect_and);
	}

	/* next_and by itself, across the word boundary. */
	cpumask_clear(&a.mask);
	cpumask_clear(&b.mask);
	cpumask_set_cpu(10, &a.mask);
	cpumask_set_cpu(64, &a.mask);
	cpumask_set_cpu(64, &b.mask);
	cpumask_set_cpu(NR_CPUS - 1, &a.mask);
	cpumask_set_cpu(NR_CPUS - 1, &b.mask);
	KT_EXPECT_EQ(t, cpumask_next_and(-1, &a.mask, &b.mask), 64);
	KT_EXPECT_EQ(t, cpumask_next_and(64, &a.mask, &b.mask), NR_CPUS - 1);
	KT_EXPECT_EQ(t, cpumask_next_and(NR_CPUS - 1, &a.mask, &b.mask), NR_CPUS);
}

static void cpumask_list_text(struct ktest *t)
{
	struct cpumask m, back;
	char buf[64];
	struct prng r;
	unsigned int iter;

	KT_EXPECT_EQ(t, cpumask_parselist("0-3,5,64,254-255\n", &m), 0);
	KT_EXPECT_EQ(t, cpumask_weight(&m), 8);
	KT_EXPECT_TRUE(t, cpumask_test_cpu(5, &m));
	KT_EXPECT_TRUE(t, cpumask_test_cpu(255, &m));
	KT_EXPECT_TRUE(t, !cpumask_test_cpu(4, &m));
	KT_EXPECT_EQ(t, cpumask_print_list(buf, sizeof(buf), &m), 16);
	KT_EXPECT_STREQ(t, buf, "0-3,5,64,254-255");

	/* Errors leave the mask alone. */
	cpumask_copy(&back, &m);
	KT_EXPECT_EQ(t, cpumask_parselist("0-256", &m), -ERANGE);
	KT_EXPECT_EQ(t, cpumask_parselist("256", &m), -ERANGE);
	KT_EXPECT_EQ(t, cpumask_parselist("3-1", &m), -EINVAL);
	KT_EXPECT_EQ(t, cpumask_parselist("1,,2", &m), -EINVAL);
	KT_EXPECT_EQ(t, cpumask_parselist("x", &m), -EINVAL);
	KT_EXPECT_TRUE(t, cpumask_equal(&m, &back));

	/* The whole range, and the empty list. */
	KT_EXPECT_EQ(t, cpumask_parselist("0-255", &m), 0);
	KT_EXPECT_EQ(t, cpumask_weight(&m), NR_CPUS);
	KT_EXPECT_EQ(t, cpumask_print_list(buf, sizeof(buf), &m), 5);
	KT_EXPECT_STREQ(t, buf, "0-255");
	KT_EXPECT_EQ(t, cpumask_parselist("", &m), 0);
	KT_EXPECT_TRUE(t, cpumask_empty(&m));
	KT_EXPECT_EQ(t, cpumask_print_list(buf, sizeof(buf), &m), 0);
	KT_EXPECT_STREQ(t, buf, "");

	/* Truncation is scnprintf-like: the return counts what was stored. */
	cpumask_clear(&m);
	cpumask_set_cpu(100, &m);
	cpumask_set_cpu(200, &m);
	KT_EXPECT_EQ(t, cpumask_print_list(buf, 5, &m), 4);
	KT_EXPECT_STREQ(t, buf, "100,");

	prng_seed(&r, 9);
	for (iter = 0; iter < 50; iter++) {
		struct cpu_model rm;
		char text[1024];
		int len;

		model_random(&rm, &r, prng_below(&r, 101));
		len = cpumask_print_list(text, sizeof(text), &rm.mask);
		KT_ASSERT_TRUE(t, len >= 0 && (size_t)len < sizeof(text) - 1);
		KT_EXPECT_EQ(t, cpumask_parselist(text, &back), 0);
		KT_EXPECT_TRUE(t, cpumask_equal(&back, &rm.mask));
	}
}

static const struct ktest_case cpumask_cases[] = {
	KTEST_CASE(cpumask_single_cpus),       KTEST_CASE(cpumask_of_holds_one_cpu),
	KTEST_CASE(cpumask_clear_setall_copy), KTEST_CASE(cpumask_logic_fixed),
	KTEST_CASE(cpumask_logic_random),      KTEST_CASE(cpumask_search_fixed),
	KTEST_CASE(cpumask_search_random),     KTEST_CASE(cpumask_iterators),
	KTEST_CASE(cpumask_list_text),
};

KTEST_SUITE(cpumask, cpumask_cases);
