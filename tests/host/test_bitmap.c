/* tests/host/test_bitmap.c - tests for lib/bitmap.c and lib/bitmap.h.
 *
 * Random bitmaps are mirrored in plain bool arrays (the reference model).
 * Sizes deliberately include 0, 1, 63, 64, 65 and other non-multiples of
 * 64, and the unused tail bits of the last word are filled with garbage to
 * prove they are ignored.
 */
#include "ktest_host.h"
#include "lib/bitmap.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/random.h"
#include "lib/string.h"

#define MAX_BITS 300

static const unsigned int test_sizes[] = { 0,	1,   2,	  31,  63,  64,	 65,
					   127, 128, 129, 200, 255, 256, MAX_BITS };

struct model {
	unsigned int nbits;
	DECLARE_BITMAP(map, MAX_BITS + BITS_PER_LONG);
	bool bits[MAX_BITS];
};

/*
 * Random contents with a given density (percent of set bits); the tail
 * past nbits in the last word gets random garbage.
 */
static void model_random(struct model *m, struct prng *r, unsigned int nbits, unsigned int density)
{
	unsigned int i;

	m->nbits = nbits;
	prng_fill(r, m->map, sizeof(m->map));
	for (i = 0; i < nbits; i++) {
		m->bits[i] = prng_below(r, 100) < density;
		if (m->bits[i])
			__set_bit(i, m->map);
		else
			__clear_bit(i, m->map);
	}
}

static bool model_matches(const unsigned long *map, const bool *bits, unsigned int nbits)
{
	unsigned int i;

	for (i = 0; i < nbits; i++) {
		if (test_bit(i, map) != bits[i])
			return false;
	}
	return true;
}

static void bitops_single(struct ktest *t)
{
	DECLARE_BITMAP(map, 130);

	KT_EXPECT_EQ(t, BITS_PER_LONG, 64);
	KT_EXPECT_EQ(t, BITS_TO_LONGS(0), 0);
	KT_EXPECT_EQ(t, BITS_TO_LONGS(1), 1);
	KT_EXPECT_EQ(t, BITS_TO_LONGS(64), 1);
	KT_EXPECT_EQ(t, BITS_TO_LONGS(65), 2);
	KT_EXPECT_EQ(t, sizeof(map), 3 * sizeof(unsigned long));

	bitmap_zero(map, 130);
	__set_bit(0, map);
	__set_bit(63, map);
	__set_bit(64, map);
	__set_bit(129, map);
	KT_EXPECT_EQ(t, map[0], 0x8000000000000001UL);
	KT_EXPECT_EQ(t, map[1], 1);
	KT_EXPECT_EQ(t, map[2], 2);
	KT_EXPECT_TRUE(t, test_bit(63, map));
	KT_EXPECT_TRUE(t, !test_bit(62, map));
	__clear_bit(63, map);
	KT_EXPECT_TRUE(t, !test_bit(63, map));
	KT_EXPECT_TRUE(t, !__test_and_set_bit(100, map));
	KT_EXPECT_TRUE(t, __test_and_set_bit(100, map));
	KT_EXPECT_TRUE(t, test_bit(100, map));
	KT_EXPECT_TRUE(t, __test_and_clear_bit(100, map));
	KT_EXPECT_TRUE(t, !__test_and_clear_bit(100, map));
	KT_EXPECT_TRUE(t, !test_bit(100, map));
}

static void bitmap_zero_fill_copy(struct ktest *t)
{
	unsigned long map[5], copy[5];
	size_t s;

	for (s = 0; s < ARRAY_SIZE(test_sizes); s++) {
		unsigned int n = test_sizes[s];
		unsigned int words = (unsigned int)BITS_TO_LONGS(n);

		if (n > 5 * BITS_PER_LONG)
			continue;
		memset(map, 0x5a, sizeof(map));
		bitmap_fill(map, n);
		KT_EXPECT_TRUE(t, bitmap_full(map, n));
		KT_EXPECT_EQ(t, bitmap_weight(map, n), n);
		/* fill leaves the tail of the last word clear */
		if (n % BITS_PER_LONG)
			KT_EXPECT_EQ(t, map[words - 1] >> (n % BITS_PER_LONG), 0);
		/* and touches no word past it */
		if (words < 5)
			KT_EXPECT_EQ(t, map[words], 0x5a5a5a5a5a5a5a5aUL);

		memset(copy, 0, sizeof(copy));
		bitmap_copy(copy, map, n);
		KT_EXPECT_TRUE(t, bitmap_equal(copy, map, n));

		bitmap_zero(map, n);
		KT_EXPECT_TRUE(t, bitmap_empty(map, n));
		KT_EXPECT_EQ(t, bitmap_weight(map, n), 0);
		KT_EXPECT_EQ(t, find_first_bit(map, n), n);
		if (words < 5)
			KT_EXPECT_EQ(t, map[words], 0x5a5a5a5a5a5a5a5aUL);
		KT_EXPECT_TRUE(t, n == 0 || !bitmap_full(map, n));
	}
}

static void bitmap_set_clear_ranges(struct ktest *t)
{
	struct prng r;
	int round;

	prng_seed(&r, 7);
	for (round = 0; round < 2000; round++) {
		struct model m;
		unsigned int start, len, i;
		bool set = prng_below(&r, 2);

		model_random(&m, &r, MAX_BITS, 50);
		start = prng_below(&r, MAX_BITS + 1);
		len = prng_below(&r, MAX_BITS - start + 1);
		if (set)
			bitmap_set(m.map, start, len);
		else
			bitmap_clear(m.map, start, len);
		for (i = start; i < start + len; i++)
			m.bits[i] = set;
		KT_EXPECT_TRUE(t, model_matches(m.map, m.bits, MAX_BITS));
	}
}

static void bitmap_logic_ops(struct ktest *t)
{
	struct prng r;
	size_t s;
	int round;

	prng_seed(&r, 99);
	for (s = 0; s < ARRAY_SIZE(test_sizes); s++)
		for (round = 0; round < 40; round++) {
			unsigned int n = test_sizes[s], i;
			unsigned int density = (unsigned int)round % 5 * 25;
			struct model a, b;
			DECLARE_BITMAP(dst, MAX_BITS + BITS_PER_LONG);
			bool and_any = false, andnot_any = false;
			bool equal = true, subset = true, intersects = false;
			bool and_bits[MAX_BITS], or_bits[MAX_BITS];
			bool andnot_bits[MAX_BITS];

			model_random(&a, &r, n, density);
			if (round % 7 == 0) {
				/* equal contents, different garbage tails */
				b = a;
				prng_fill(&r, &b.map[BITS_TO_LONGS(n)], sizeof(unsigned long));
				if (n % BITS_PER_LONG)
					b.map[n / BITS_PER_LONG] ^= ~BITMAP_LAST_WORD_MASK(n);
			} else {
				model_random(&b, &r, n, 100 - density);
			}

			for (i = 0; i < n; i++) {
				and_bits[i] = a.bits[i] && b.bits[i];
				or_bits[i] = a.bits[i] || b.bits[i];
				andnot_bits[i] = a.bits[i] && !b.bits[i];
				and_any |= and_bits[i];
				andnot_any |= andnot_bits[i];
				equal &= a.bits[i] == b.bits[i];
				subset &= !a.bits[i] || b.bits[i];
				intersects |= and_bits[i];
			}

			KT_EXPECT_EQ(t, bitmap_and(dst, a.map, b.map, n), and_any);
			KT_EXPECT_TRUE(t, model_matches(dst, and_bits, n));
			bitmap_or(dst, a.map, b.map, n);
			KT_EXPECT_TRUE(t, model_matches(dst, or_bits, n));
			KT_EXPECT_EQ(t, bitmap_andnot(dst, a.map, b.map, n), andnot_any);
			KT_EXPECT_TRUE(t, model_matches(dst, andnot_bits, n));
			KT_EXPECT_EQ(t, bitmap_equal(a.map, b.map, n), equal);
			KT_EXPECT_EQ(t, bitmap_subset(a.map, b.map, n), subset);
			KT_EXPECT_EQ(t, bitmap_intersects(a.map, b.map, n), intersects);
		}
}

static void bitmap_weight_empty_full(struct ktest *t)
{
	struct prng r;
	size_t s;
	int round;

	prng_seed(&r, 3);
	for (s = 0; s < ARRAY_SIZE(test_sizes); s++)
		for (round = 0; round < 30; round++) {
			unsigned int n = test_sizes[s], i, weight = 0;
			struct model m;

			/* 0 and 100 percent density make empty and full maps. */
			model_random(&m, &r, n, (unsigned int)round % 3 * 50);
			for (i = 0; i < n; i++)
				weight += m.bits[i];
			KT_EXPECT_EQ(t, bitmap_weight(m.map, n), weight);
			KT_EXPECT_EQ(t, bitmap_empty(m.map, n), weight == 0);
			KT_EXPECT_EQ(t, bitmap_full(m.map, n), weight == n);
		}
}

static void bitmap_find_bits(struct ktest *t)
{
	struct prng r;
	size_t s;
	int round;

	prng_seed(&r, 11);
	for (s = 0; s < ARRAY_SIZE(test_sizes); s++)
		for (round = 0; round < 30; round++) {
			unsigned int n = test_sizes[s], off;
			unsigned int density[] = { 0, 2, 50, 98, 100 };
			struct model m;

			model_random(&m, &r, n, density[round % 5]);
			for (off = 0; off <= n + 2; off++) {
				unsigned long want_set = n, want_zero = n, want_wrap;
				unsigned int i;

				for (i = off; i < n; i++) {
					if (m.bits[i] && want_set == n)
						want_set = i;
					if (!m.bits[i] && want_zero == n)
						want_zero = i;
				}
				want_wrap = want_set;
				for (i = 0; want_wrap == n && i < off && i < n; i++) {
					if (m.bits[i])
						want_wrap = i;
				}
				KT_EXPECT_EQ(t, find_next_bit(m.map, n, off), want_set);
				KT_EXPECT_EQ(t, find_next_zero_bit(m.map, n, off), want_zero);
				KT_EXPECT_EQ(t, find_next_bit_wrap(m.map, n, off), want_wrap);
				if (off == 0) {
					KT_EXPECT_EQ(t, find_first_bit(m.map, n), want_set);
					KT_EXPECT_EQ(t, find_first_zero_bit(m.map, n), want_zero);
				}
			}
		}
}

static void bitmap_for_each_iterators(struct ktest *t)
{
	struct prng r;
	size_t s;

	prng_seed(&r, 5);
	for (s = 0; s < ARRAY_SIZE(test_sizes); s++) {
		unsigned int n = test_sizes[s];
		unsigned long bit;
		unsigned int seen_set = 0, seen_clear = 0, i;
		bool visited[MAX_BITS] = { false };
		bool ok = true;
		struct model m;

		model_random(&m, &r, n, 40);
		for_each_set_bit(bit, m.map, n) {
			ok = ok && bit < n && m.bits[bit] && !visited[bit];
			if (bit < n)
				visited[bit] = true;
			seen_set++;
		}
		for_each_clear_bit(bit, m.map, n) {
			ok = ok && bit < n && !m.bits[bit] && !visited[bit];
			if (bit < n)
				visited[bit] = true;
			seen_clear++;
		}
		for (i = 0; i < n; i++)
			ok = ok && visited[i];
		KT_EXPECT_TRUE(t, ok);
		KT_EXPECT_EQ(t, seen_set + seen_clear, n);
	}
}

static void bitmap_parselist_valid(struct ktest *t)
{
	DECLARE_BITMAP(map, 100);
	char buf[128];

	KT_EXPECT_EQ(t, bitmap_parselist("0-3,5,7-8", map, 100), 0);
	KT_EXPECT_EQ(t, map[0], 0x1af);
	KT_EXPECT_EQ(t, map[1], 0);

	memset(map, 0xff, sizeof(map));
	KT_EXPECT_EQ(t, bitmap_parselist("", map, 100), 0);
	KT_EXPECT_TRUE(t, bitmap_empty(map, 100));
	KT_EXPECT_EQ(t, bitmap_parselist("\n", map, 100), 0);
	KT_EXPECT_TRUE(t, bitmap_empty(map, 100));

	KT_EXPECT_EQ(t, bitmap_parselist("99", map, 100), 0);
	KT_EXPECT_EQ(t, bitmap_weight(map, 100), 1);
	KT_EXPECT_TRUE(t, test_bit(99, map));

	KT_EXPECT_EQ(t, bitmap_parselist("0-99\n", map, 100), 0);
	KT_EXPECT_TRUE(t, bitmap_full(map, 100));

	/* Overlapping and unordered pieces are fine. */
	KT_EXPECT_EQ(t, bitmap_parselist("10-20,15-25,3,3,1", map, 100), 0);
	bitmap_print_list(buf, sizeof(buf), map, 100);
	KT_EXPECT_STREQ(t, buf, "1,3,10-25");

	KT_EXPECT_EQ(t, bitmap_parselist("62-66", map, 100), 0);
	KT_EXPECT_EQ(t, map[0], 0xc000000000000000UL);
	KT_EXPECT_EQ(t, map[1], 0x7);
}

static void bitmap_parselist_errors(struct ktest *t)
{
	static const struct {
		const char *s;
		int err;
	} cases[] = {
		{ ",", -EINVAL },
		{ "1,", -EINVAL },
		{ ",1", -EINVAL },
		{ "1,,2", -EINVAL },
		{ "1-", -EINVAL },
		{ "-1", -EINVAL },
		{ "1-2-3", -EINVAL },
		{ "3-1", -EINVAL },
		{ "a", -EINVAL },
		{ "1 ", -EINVAL },
		{ " 1", -EINVAL },
		{ "1, 2", -EINVAL },
		{ "1\n\n", -EINVAL },
		{ "0x1", -EINVAL },
		{ "64", -ERANGE },
		{ "0-64", -ERANGE },
		{ "1,99999999999999999999", -ERANGE },
		{ "4294967295", -ERANGE },
		{ "64,x", -EINVAL }, /* a syntax error anywhere wins */
	};
	DECLARE_BITMAP(map, 64);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		map[0] = 0x1234;
		KT_EXPECT_EQ(t, bitmap_parselist(cases[i].s, map, 64), cases[i].err);
		KT_EXPECT_EQ(t, map[0], 0x1234); /* untouched */
	}
}

static void bitmap_print_list_format(struct ktest *t)
{
	DECLARE_BITMAP(map, 200);
	char buf[64];

	bitmap_zero(map, 200);
	memset(buf, 'X', sizeof(buf));
	KT_EXPECT_EQ(t, bitmap_print_list(buf, sizeof(buf), map, 200), 0);
	KT_EXPECT_STREQ(t, buf, "");

	bitmap_set(map, 0, 4);
	__set_bit(5, map);
	KT_EXPECT_EQ(t, bitmap_print_list(buf, sizeof(buf), map, 200), 5);
	KT_EXPECT_STREQ(t, buf, "0-3,5");

	bitmap_set(map, 63, 2);
	__set_bit(199, map);
	KT_EXPECT_EQ(t, bitmap_print_list(buf, sizeof(buf), map, 200), 15);
	KT_EXPECT_STREQ(t, buf, "0-3,5,63-64,199");

	/* Bits past nbits are not printed. */
	KT_EXPECT_EQ(t, bitmap_print_list(buf, sizeof(buf), map, 199), 11);
	KT_EXPECT_STREQ(t, buf, "0-3,5,63-64");

	/* Truncation behaves like scnprintf. */
	KT_EXPECT_EQ(t, bitmap_print_list(buf, 6, map, 200), 5);
	KT_EXPECT_STREQ(t, buf, "0-3,5");
	KT_EXPECT_EQ(t, bitmap_print_list(buf, 4, map, 200), 3);
	KT_EXPECT_STREQ(t, buf, "0-3");
	KT_EXPECT_EQ(t, bitmap_print_list(buf, 1, map, 200), 0);
	KT_EXPECT_STREQ(t, buf, "");
	KT_EXPECT_EQ(t, bitmap_print_list(NULL, 0, map, 200), 0);

	bitmap_fill(map, 200);
	KT_EXPECT_EQ(t, bitmap_print_list(buf, sizeof(buf), map, 200), 5);
	KT_EXPECT_STREQ(t, buf, "0-199");
}

static void bitmap_list_round_trip(struct ktest *t)
{
	struct prng r;
	int round;

	prng_seed(&r, 1234);
	for (round = 0; round < 500; round++) {
		unsigned int n = 1 + prng_below(&r, MAX_BITS);
		DECLARE_BITMAP(back, MAX_BITS);
		char text[2048];
		struct model m;
		int len;

		model_random(&m, &r, n, prng_below(&r, 101));
		len = bitmap_print_list(text, sizeof(text), m.map, n);
		KT_ASSERT_TRUE(t, len >= 0 && (size_t)len < sizeof(text) - 1);
		KT_EXPECT_EQ(t, strlen(text), len);
		KT_EXPECT_EQ(t, bitmap_parselist(text, back, n), 0);
		KT_EXPECT_TRUE(t, bitmap_equal(back, m.map, n));
	}
}

static const struct ktest_case bitmap_cases[] = {
	KTEST_CASE(bitops_single),
	KTEST_CASE(bitmap_zero_fill_copy),
	KTEST_CASE(bitmap_set_clear_ranges),
	KTEST_CASE(bitmap_logic_ops),
	KTEST_CASE(bitmap_weight_empty_full),
	KTEST_CASE(bitmap_find_bits),
	KTEST_CASE(bitmap_for_each_iterators),
	KTEST_CASE(bitmap_parselist_valid),
	KTEST_CASE(bitmap_parselist_errors),
	KTEST_CASE(bitmap_print_list_format),
	KTEST_CASE(bitmap_list_round_trip),
};

KTEST_SUITE(bitmap, bitmap_cases);
