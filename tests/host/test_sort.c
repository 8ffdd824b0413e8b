/* tests/host/test_sort.c - tests for lib/sort.c (heapsort and bsearch).
 *
 * Results are compared with the host libc qsort. Comparators order by all
 * bytes of an element, so the order is total and unstable sorts must still
 * agree exactly.
 */
#include "ktest_host.h"
#include "lib/random.h"
#include "lib/sort.h"
#include "lib/string.h"

static unsigned long nr_compares;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	nr_compares++;
	return (x > y) - (x < y);
}

/* Element size for cmp_bytes (a comparator cannot take extra context). */
static size_t bytes_size;

static int cmp_bytes(const void *a, const void *b)
{
	const u8 *x = a, *y = b;
	size_t i;

	for (i = 0; i < bytes_size; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	}
	return 0;
}

static void sort_tiny_inputs(struct ktest *t)
{
	int one[] = { 5 };
	int two[] = { 9, 3 };
	int two_sorted[] = { 3, 9 };

	sort(NULL, 0, sizeof(int), cmp_int);
	sort(one, 1, sizeof(int), cmp_int);
	KT_EXPECT_EQ(t, one[0], 5);
	sort(two, 2, sizeof(int), cmp_int);
	KT_EXPECT_EQ(t, two[0], 3);
	KT_EXPECT_EQ(t, two[1], 9);
	sort(two_sorted, 2, sizeof(int), cmp_int);
	KT_EXPECT_EQ(t, two_sorted[0], 3);
	KT_EXPECT_EQ(t, two_sorted[1], 9);
}

static void sort_random_ints_vs_qsort(struct ktest *t)
{
	static const size_t big_sizes[] = { 1000, 4097 };
	struct prng r;
	size_t n, k;

	prng_seed(&r, 2024);
	for (n = 0; n < 200 + ARRAY_SIZE(big_sizes); n++) {
		size_t count = n < 200 ? n : big_sizes[n - 200];
		int *ours = host_alloc(count * sizeof(int));
		int *ref = host_alloc(count * sizeof(int));
		/* Small value ranges force many duplicates. */
		u32 range = n % 3 == 0 ? 4 : n % 3 == 1 ? 1000 : UINT32_MAX;

		for (k = 0; k < count; k++)
			ours[k] = ref[k] = (int)prng_below(&r, range);
		sort(ours, count, sizeof(int), cmp_int);
		libc_qsort(ref, count, sizeof(int), cmp_int);
		KT_EXPECT_MEMEQ(t, ours, ref, count * sizeof(int));
		host_free(ours);
		host_free(ref);
	}
}

static void sort_patterns(struct ktest *t)
{
	enum { N = 513 };
	int a[N];
	size_t i, pattern;

	for (pattern = 0; pattern < 4; pattern++) {
		bool sorted = true;

		for (i = 0; i < N; i++) {
			switch (pattern) {
			case 0:
				a[i] = (int)i;
				break; /* sorted */
			case 1:
				a[i] = (int)(N - i);
				break; /* reversed */
			case 2:
				a[i] = 7;
				break; /* all equal */
			default:
				a[i] = (int)(i % 2 ? i : N - i);
				break;
			}
		}
		sort(a, N, sizeof(int), cmp_int);
		for (i = 1; i < N; i++)
			sorted = sorted && a[i - 1] <= a[i];
		KT_EXPECT_TRUE(t, sorted);
	}
}

static void sort_is_n_log_n(struct ktest *t)
{
	enum { N = 4096 };
	int *a = host_alloc(N * sizeof(int));
	size_t i;

	/* Heapsort worst case stays below ~2 n log2 n compares. */
	for (i = 0; i < N; i++)
		a[i] = (int)(N - i);
	nr_compares = 0;
	sort(a, N, sizeof(int), cmp_int);
	KT_EXPECT_TRUE(t, nr_compares < 2UL * N * 12 + N);
	host_free(a);
}

static void sort_odd_element_sizes(struct ktest *t)
{
	static const size_t sizes[] = { 1, 2, 3, 5, 7, 8, 12, 13, 16, 24, 33 };
	struct prng r;
	size_t s, count;

	prng_seed(&r, 77);
	for (s = 0; s < ARRAY_SIZE(sizes); s++)
		for (count = 0; count < 70; count += 1 + count / 4) {
			size_t size = sizes[s];
			/* +1 so an unaligned base can be tested too */
			u8 *ours = host_alloc(count * size + 1);
			u8 *ref = host_alloc(count * size + 1);
			size_t shift;

			for (shift = 0; shift < 2; shift++) {
				size_t i;

				for (i = 0; i < count * size; i++)
					ours[shift + i] = ref[shift + i] = (u8)prng_below(&r, 3);
				bytes_size = size;
				sort(ours + shift, count, size, cmp_bytes);
				libc_qsort(ref + shift, count, size, cmp_bytes);
				KT_EXPECT_MEMEQ(t, ours + shift, ref + shift, count * size);
			}
			host_free(ours);
			host_free(ref);
		}
}

static void bsearch_ints(struct ktest *t)
{
	int a[100];
	int key;
	size_t n, i;

	for (i = 0; i < ARRAY_SIZE(a); i++)
		a[i] = (int)(2 * i + 1); /* odd numbers only */

	for (n = 0; n <= ARRAY_SIZE(a); n++) {
		for (key = -1; key <= (int)(2 * n + 2); key++) {
			int *found = bsearch(&key, a, n, sizeof(int), cmp_int);

			if (key % 2 && key > 0 && key < (int)(2 * n + 1)) {
				KT_EXPECT_TRUE(t, found && *found == key);
				KT_EXPECT_TRUE(t, found == &a[(key - 1) / 2]);
			} else {
				KT_EXPECT_TRUE(t, found == NULL);
			}
		}
	}
	key = 5;
	KT_EXPECT_TRUE(t, bsearch(&key, NULL, 0, sizeof(int), cmp_int) == NULL);
}

static void bsearch_odd_size(struct ktest *t)
{
	u8 table[50][3];
	u8 key[3];
	size_t i;

	for (i = 0; i < 50; i++) {
		table[i][0] = (u8)(i * 5);
		table[i][1] = 0;
		table[i][2] = (u8)i;
	}
	bytes_size = 3;
	for (i = 0; i < 50; i++) {
		memcpy(key, table[i], 3);
		KT_EXPECT_TRUE(t, bsearch(key, table, 50, 3, cmp_bytes) == table[i]);
		key[2]++;
		KT_EXPECT_TRUE(t, bsearch(key, table, 50, 3, cmp_bytes) == NULL);
	}
}

/* cmp_u64 orders the whole u64 range, where a subtraction would wrap. */
static void cmp_u64_full_range(struct ktest *t)
{
	u64 v[] = { ~0ull, 0, 1ull << 63, 42, (1ull << 63) - 1, 42 };
	u64 want[] = { 0, 42, 42, (1ull << 63) - 1, 1ull << 63, ~0ull };
	u64 a = 1, b = ~0ull;

	KT_EXPECT_TRUE(t, cmp_u64(&a, &b) < 0);
	KT_EXPECT_TRUE(t, cmp_u64(&b, &a) > 0);
	KT_EXPECT_EQ(t, cmp_u64(&a, &a), 0);
	sort(v, 6, sizeof(u64), cmp_u64);
	KT_EXPECT_MEMEQ(t, v, want, sizeof(want));
}

static const struct ktest_case sort_cases[] = {
	KTEST_CASE(cmp_u64_full_range),
	KTEST_CASE(sort_tiny_inputs),
	KTEST_CASE(sort_random_ints_vs_qsort),
	KTEST_CASE(sort_patterns),
	KTEST_CASE(sort_is_n_log_n),
	KTEST_CASE(sort_odd_element_sizes),
	KTEST_CASE(bsearch_ints),
	KTEST_CASE(bsearch_odd_size),
};

KTEST_SUITE(sort, sort_cases);
