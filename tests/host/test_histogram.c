/* tests/host/test_histogram.c - tests for lib/histogram.c.
 *
 * Exact figures are checked against the host libc qsort; the histogram's
 * median beyond HIST_SAMPLES against the exact median, within the half
 * bucket width histogram.h promises (at most 1/128 of the value).
 */
#include "ktest_host.h"
#include "lib/histogram.h"
#include "lib/random.h"
#include "lib/sort.h"

/* The exact figures of v[0..n), from a sorted copy. */
static struct value_summary reference(const u64 *v, size_t n)
{
	u64 *copy = host_alloc((n ? n : 1) * sizeof(u64));
	struct value_summary s = { .n = n };

	for (size_t i = 0; i < n; i++)
		copy[i] = v[i];
	libc_qsort(copy, n, sizeof(u64), cmp_u64);
	if (n) {
		s.min = copy[0];
		s.median = copy[(n - 1) / 2];
		s.max = copy[n - 1];
	}
	host_free(copy);
	return s;
}

static void summarize_values_small(struct ktest *t)
{
	u64 none[1] = { 7 };
	u64 one[] = { 42 };
	u64 two[] = { 9, 3 }; /* the lower middle: 3 */
	u64 four[] = { 40, 10, 30, 20 };
	u64 five[] = { ~0ull, 5, 0, 5, 1 };
	struct value_summary s;

	summarize_values(none, 0, &s);
	KT_EXPECT_EQ(t, s.n, 0);
	KT_EXPECT_EQ(t, s.min, 0);
	KT_EXPECT_EQ(t, s.median, 0);
	KT_EXPECT_EQ(t, s.max, 0);
	summarize_values(one, 1, &s);
	KT_EXPECT_TRUE(t, s.n == 1 && s.min == 42 && s.median == 42 && s.max == 42);
	summarize_values(two, 2, &s);
	KT_EXPECT_TRUE(t, s.n == 2 && s.min == 3 && s.median == 3 && s.max == 9);
	summarize_values(four, 4, &s);
	KT_EXPECT_TRUE(t, s.min == 10 && s.median == 20 && s.max == 40);
	summarize_values(five, 5, &s);
	KT_EXPECT_TRUE(t, s.min == 0 && s.median == 5 && s.max == ~0ull);
	/* Sorted in place. */
	KT_EXPECT_TRUE(t, four[0] == 10 && four[1] == 20 && four[2] == 30 && four[3] == 40);
}

static void summarize_values_vs_qsort(struct ktest *t)
{
	struct prng r;

	prng_seed(&r, 16);
	for (size_t n = 1; n < 300; n += 1 + n / 8) {
		u64 *v = host_alloc(n * sizeof(u64));

		for (size_t i = 0; i < n; i++)
			v[i] = n % 2 ? prng_u64(&r) : prng_below(&r, 10);
		struct value_summary want = reference(v, n), got;

		summarize_values(v, n, &got);
		KT_EXPECT_EQ(t, got.n, want.n);
		KT_EXPECT_EQ(t, got.min, want.min);
		KT_EXPECT_EQ(t, got.median, want.median);
		KT_EXPECT_EQ(t, got.max, want.max);
		host_free(v);
	}
}

static void histogram_empty(struct ktest *t)
{
	struct histogram *h = host_alloc(sizeof(*h));
	struct value_summary s;

	histogram_summarize(h, &s);
	KT_EXPECT_TRUE(t, s.n == 0 && s.min == 0 && s.median == 0 && s.max == 0);
	host_free(h);
}

/* Up to HIST_SAMPLES values: every figure exact. */
static void histogram_exact_up_to_samples(struct ktest *t)
{
	static const size_t counts[] = { 1, 2, 3, 100, HIST_SAMPLES - 1, HIST_SAMPLES };
	struct prng r;

	prng_seed(&r, 4096);
	for (size_t c = 0; c < ARRAY_SIZE(counts); c++) {
		size_t n = counts[c];
		struct histogram *h = host_alloc(sizeof(*h));
		u64 *v = host_alloc(n * sizeof(u64));
		struct value_summary got;

		for (size_t i = 0; i < n; i++) {
			v[i] = prng_u64(&r) >> prng_below(&r, 64);
			histogram_add(h, v[i]);
		}
		struct value_summary want = reference(v, n);

		histogram_summarize(h, &got);
		KT_EXPECT_EQ(t, got.n, n);
		KT_EXPECT_EQ(t, got.min, want.min);
		KT_EXPECT_EQ(t, got.median, want.median);
		KT_EXPECT_EQ(t, got.max, want.max);
		host_free(v);
		host_free(h);
	}
}

/* Half the width of the bucket v falls in: 1/128 of v's power of two. */
static u64 half_bucket(u64 v)
{
	if (v < HIST_SUB)
		return 0;
	return (1ull << (63 - __builtin_clzll(v) - HIST_SUB_BITS)) / 2;
}

/* Beyond HIST_SAMPLES: min and max exact, the median within half a bucket. */
static void histogram_median_beyond_samples(struct ktest *t)
{
	struct prng r;

	prng_seed(&r, 64);
	for (unsigned int shape = 0; shape < 5; shape++) {
		size_t n = HIST_SAMPLES + 1 + shape * 3001;
		struct histogram *h = host_alloc(sizeof(*h));
		u64 *v = host_alloc(n * sizeof(u64));
		struct value_summary got;

		for (size_t i = 0; i < n; i++) {
			switch (shape) {
			case 0:
				v[i] = prng_below(&r, 50);
				break; /* one bucket per value */
			case 1:
				v[i] = 1000000 + prng_below(&r, 1000000);
				break;
			case 2:
				v[i] = prng_u64(&r) >> prng_below(&r, 64);
				break;
			case 3:
				v[i] = n - i;
				break; /* the later ones are smaller */
			default:
				v[i] = ~0ull - prng_below(&r, 3);
				break;
			}
			histogram_add(h, v[i]);
		}
		struct value_summary want = reference(v, n);

		histogram_summarize(h, &got);
		KT_EXPECT_EQ(t, got.n, n);
		KT_EXPECT_EQ(t, got.min, want.min);
		KT_EXPECT_EQ(t, got.max, want.max);
		u64 err = got.median > want.median ? got.median - want.median :
						     want.median - got.median;

		if (err > half_bucket(want.median))
			ktest_fail(t, __FILE__, __LINE__, "shape %u: median %llu, exact %llu",
				   shape, (unsigned long long)got.median,
				   (unsigned long long)want.median);
		KT_EXPECT_TRUE(t, got.min <= got.median && got.median <= got.max);
		host_free(v);
		host_free(h);
	}
}

static const struct ktest_case histogram_cases[] = {
	KTEST_CASE(summarize_values_small),
	KTEST_CASE(summarize_values_vs_qsort),
	KTEST_CASE(histogram_empty),
	KTEST_CASE(histogram_exact_up_to_samples),
	KTEST_CASE(histogram_median_beyond_samples),
};

KTEST_SUITE(histogram, histogram_cases);
