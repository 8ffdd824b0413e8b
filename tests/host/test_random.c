/* tests/host/test_random.c - tests for lib/random.c.
 *
 * Checks determinism, the published splitmix64 seeding values, range and
 * rough uniformity (chi-square with fixed seeds, so results are stable).
 */
#include "ktest_host.h"
#include "lib/random.h"
#include "lib/string.h"

static void prng_deterministic(struct ktest *t)
{
	struct prng a, b, c;
	bool same = true, differs = false;
	int i;

	prng_seed(&a, 12345);
	prng_seed(&b, 12345);
	prng_seed(&c, 12346);
	for (i = 0; i < 1000; i++) {
		u64 x = prng_u64(&a);

		same = same && x == prng_u64(&b);
		differs = differs || x != prng_u64(&c);
	}
	KT_EXPECT_TRUE(t, same);
	KT_EXPECT_TRUE(t, differs);
}

static void prng_seed_zero(struct ktest *t)
{
	struct prng r;
	u64 s0, s1, x, or_all = 0;
	int i;

	/* The first two splitmix64 outputs from state 0 (published values). */
	prng_seed(&r, 0);
	KT_EXPECT_EQ(t, r.s[0], 0xe220a8397b1dcdafULL);
	KT_EXPECT_EQ(t, r.s[1], 0x6e789e6aa1b965f4ULL);

	/* xoroshiro128++ step, written out independently. */
	s0 = r.s[0];
	s1 = r.s[1];
	x = ((s0 + s1) << 17 | (s0 + s1) >> 47) + s0;
	KT_EXPECT_EQ(t, prng_u64(&r), x);
	s1 ^= s0;
	KT_EXPECT_EQ(t, r.s[0], (s0 << 49 | s0 >> 15) ^ s1 ^ (s1 << 21));
	KT_EXPECT_EQ(t, r.s[1], s1 << 28 | s1 >> 36);

	for (i = 0; i < 100; i++)
		or_all |= prng_u64(&r);
	KT_EXPECT_EQ(t, or_all, UINT64_MAX);
}

static void prng_u32_is_high_half(struct ktest *t)
{
	struct prng a, b;
	int i;

	prng_seed(&a, 5);
	prng_seed(&b, 5);
	for (i = 0; i < 100; i++)
		KT_EXPECT_EQ(t, prng_u32(&a), prng_u64(&b) >> 32);
}

static void prng_bits_balanced(struct ktest *t)
{
	enum { DRAWS = 20000 };
	unsigned int ones[64] = { 0 };
	struct prng r;
	int i, bit;

	prng_seed(&r, 31337);
	for (i = 0; i < DRAWS; i++) {
		u64 x = prng_u64(&r);

		for (bit = 0; bit < 64; bit++)
			ones[bit] += (x >> bit) & 1;
	}
	/* 50% +- 2.5% is over 7 standard deviations. */
	for (bit = 0; bit < 64; bit++)
		KT_EXPECT_TRUE(t, ones[bit] > DRAWS * 475 / 1000 && ones[bit] < DRAWS * 525 / 1000);
}

static void prng_below_range(struct ktest *t)
{
	static const u32 bounds[] = { 1,    2,		3,	     7,		  10,
				      1000, 0x7fffffff, 0x80000000U, 0xc0000000U, UINT32_MAX };
	struct prng r;
	size_t b;
	int i;

	prng_seed(&r, 8);
	for (b = 0; b < ARRAY_SIZE(bounds); b++) {
		bool ok = true;

		for (i = 0; i < 5000; i++)
			ok = ok && prng_below(&r, bounds[b]) < bounds[b];
		KT_EXPECT_TRUE(t, ok);
	}
	for (i = 0; i < 100; i++)
		KT_EXPECT_EQ(t, prng_below(&r, 1), 0);
}

/* Chi-square goodness of fit for prng_below(bound) with few buckets. */
static void prng_below_uniform(struct ktest *t)
{
	static const u32 bounds[] = { 2, 3, 6, 10, 17 };
	struct prng r;
	size_t b;

	prng_seed(&r, 4242);
	for (b = 0; b < ARRAY_SIZE(bounds); b++) {
		u32 bound = bounds[b], k;
		u32 draws = 10000 * bound;
		u64 counts[17] = { 0 }, chi2_scaled = 0;

		for (k = 0; k < draws; k++)
			counts[prng_below(&r, bound)]++;
		/* chi2 = sum (obs - 10000)^2 / 10000, kept in integers */
		for (k = 0; k < bound; k++) {
			s64 d = (s64)counts[k] - 10000;

			chi2_scaled += (u64)(d * d);
		}
		/* 99.99th percentile for df <= 16 is below 45. */
		KT_EXPECT_TRUE(t, chi2_scaled < 45ULL * 10000);
	}
}

/*
 * bound = 3 * 2^30 makes a sloppy reduction of a 32-bit draw very visible:
 * "x % bound" returns [0, 2^30) with probability 1/2 instead of 1/3, and a
 * multiply-shift without rejection returns multiples of 3 with probability
 * 1/2 instead of 1/3.
 */
static void prng_below_unbiased(struct ktest *t)
{
	enum { DRAWS = 30000 };
	struct prng r;
	int i, low = 0, multiple_of_3 = 0;

	prng_seed(&r, 17);
	for (i = 0; i < DRAWS; i++) {
		u32 x = prng_below(&r, 0xc0000000U);

		low += x < 0x40000000U;
		multiple_of_3 += x % 3 == 0;
	}
	KT_EXPECT_TRUE(t, low > DRAWS * 31 / 100 && low < DRAWS * 35 / 100);
	KT_EXPECT_TRUE(t, multiple_of_3 > DRAWS * 31 / 100 && multiple_of_3 < DRAWS * 35 / 100);
}

static void prng_fill_bytes(struct ktest *t)
{
	struct prng a, b;
	u8 buf[48];
	size_t len, i;

	for (len = 0; len <= 40; len++) {
		u64 word = 0;
		bool ok = true;

		prng_seed(&a, len);
		prng_seed(&b, len);
		memset(buf, 0xee, sizeof(buf));
		prng_fill(&a, buf, len);
		/* Bytes come from the u64 stream, least significant first. */
		for (i = 0; i < len; i++) {
			if (i % 8 == 0)
				word = prng_u64(&b);
			ok = ok && buf[i] == (u8)(word >> (i % 8 * 8));
		}
		for (i = len; i < sizeof(buf); i++)
			ok = ok && buf[i] == 0xee;
		KT_EXPECT_TRUE(t, ok);
		/* A partial last word is consumed whole. */
		KT_EXPECT_EQ(t, prng_u64(&a), prng_u64(&b));
	}
}

static const struct ktest_case random_cases[] = {
	KTEST_CASE(prng_deterministic),	   KTEST_CASE(prng_seed_zero),
	KTEST_CASE(prng_u32_is_high_half), KTEST_CASE(prng_bits_balanced),
	KTEST_CASE(prng_below_range),	   KTEST_CASE(prng_below_uniform),
	KTEST_CASE(prng_below_unbiased),   KTEST_CASE(prng_fill_bytes),
};

KTEST_SUITE(random, random_cases);
