/* tests/host/test_hash.c - tests for lib/hash.h.
 *
 * The buckets are the product's top bits, and keys in arithmetic
 * progression (objects in an array, aligned allocations) spread evenly over
 * them: the workqueue's busy hash and lockdep's class hash rely on both.
 */
#include "ktest_host.h"
#include "lib/hash.h"

/* A kernel-looking base address (the direct map), 1 MiB aligned. */
#define BASE 0xffff888000100000ull

static void hash_in_range(struct ktest *t)
{
	static const u64 values[] = { 0, 1, 8, BASE, ~0ull, GOLDEN_RATIO_64 };
	bool in_range = true;

	for (unsigned int bits = 1; bits < 32; bits++)
		for (size_t i = 0; i < ARRAY_SIZE(values); i++)
			in_range &= hash_64(values[i], bits) < 1u << bits;
	KT_EXPECT_TRUE(t, in_range);
	KT_EXPECT_EQ(t, hash_64(0, 32), 0u);
	KT_EXPECT_EQ(t, hash_64(1, 32), (unsigned int)(GOLDEN_RATIO_64 >> 32));
	KT_EXPECT_EQ(t, hash_ptr((const void *)(uintptr_t)BASE, 10), hash_64(BASE, 10));
}

/* n keys BASE + i * stride into 2^bits buckets: the fullest and emptiest. */
static void bucket_loads(u64 stride, unsigned int bits, unsigned int n, unsigned int *min,
			 unsigned int *max)
{
	unsigned int load[1024] = { 0 };

	for (unsigned int i = 0; i < n; i++)
		load[hash_ptr((const void *)(uintptr_t)(BASE + i * stride), bits)]++;
	*min = ~0u;
	*max = 0;
	for (unsigned int b = 0; b < 1u << bits; b++) {
		*min = load[b] < *min ? load[b] : *min;
		*max = load[b] > *max ? load[b] : *max;
	}
}

/* Strides from 1-byte keys to pages and beyond: 32 buckets, 16 keys each
 * on average, none under half or over twice that; 1024 buckets, 4 each on
 * average, none over twice that. */
static void strided_keys_spread(struct ktest *t)
{
	static const u64 strides[] = { 1, 8, 16, 64, 200, 4096, 1 << 20 };
	unsigned int min, max;

	for (size_t i = 0; i < ARRAY_SIZE(strides); i++) {
		bucket_loads(strides[i], 5, 32 * 16, &min, &max);
		if (min < 8 || max > 32)
			ktest_fail(t, __FILE__, __LINE__, "stride %lu, 32 buckets: loads %u to %u",
				   (unsigned long)strides[i], min, max);
		bucket_loads(strides[i], 10, 1024 * 4, &min, &max);
		if (max > 8)
			ktest_fail(t, __FILE__, __LINE__,
				   "stride %lu, 1024 buckets: a bucket holds %u",
				   (unsigned long)strides[i], max);
	}
}

static const struct ktest_case hash_cases[] = {
	KTEST_CASE(hash_in_range),
	KTEST_CASE(strided_keys_spread),
};

KTEST_SUITE(hash, hash_cases);
