/* tests/kernel/test_kmalloc.c - the kernel heap and its debug checks. */
#include "arch/x86_64/paging.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/tools/ktest.h"
#include "lib/random.h"
#include "lib/string.h"

static void sizes_and_alignment(struct ktest *t)
{
	static const size_t sizes[] = { 0,    1,    15,	  16,	17,    100,  255,
					1024, 2048, 2049, 4096, 10000, 70000 };

	for (unsigned int i = 0; i < ARRAY_SIZE(sizes); i++) {
		u8 *p = kmalloc(sizes[i]);

		KT_ASSERT_NOT_NULL(t, p);
		KT_EXPECT_EQ(t, (u64)p % 16, 0);
		if (sizes[i] > KMALLOC_MAX_CACHE_SIZE)
			KT_EXPECT_EQ(t, (u64)p % PAGE_SIZE, 0);
		memset(p, 0xA5, sizes[i]);
		KT_EXPECT_EQ(t, ksize(p), sizes[i] ? sizes[i] : 1);
		kfree(p);
	}
}

static void kzalloc_zeroes(struct ktest *t)
{
	/* Dirty a slot, free it, and get it back zeroed. */
	u8 *p = kmalloc(200);

	KT_ASSERT_NOT_NULL(t, p);
	memset(p, 0xFF, 200);
	kfree(p);
	p = kzalloc(200);
	KT_ASSERT_NOT_NULL(t, p);
	for (int i = 0; i < 200; i++)
		if (p[i]) {
			KT_EXPECT_EQ(t, p[i], 0);
			break;
		}
	kfree(p);
}

static void kcalloc_overflow(struct ktest *t)
{
	KT_EXPECT_TRUE(t, kcalloc((size_t)1 << 40, (size_t)1 << 40) == NULL);
	void *p = kcalloc(10, 10);

	KT_EXPECT_TRUE(t, p != NULL);
	kfree(p);
	kfree(NULL);
}

#define MANY 2000

/* Many live objects of random sizes never overlap, keep their contents and
 * their sizes, and raise no debug report. */
static void many_objects_keep_contents(struct ktest *t)
{
	static u8 *ptr[MANY];
	static u16 len[MANY];
	unsigned long errors = kmalloc_errors;
	struct prng r;

	/* (The heap's global counts are not this case's to check: other
	 * threads allocate and free meanwhile, workers reaped after their
	 * idle time among them, which a slow boot meets.) */
	prng_seed(&r, 1234);
	for (int i = 0; i < MANY; i++) {
		len[i] = (u16)(1 + prng_below(&r, 3000));
		ptr[i] = kmalloc(len[i]);
		KT_ASSERT_NOT_NULL(t, ptr[i]);
		KT_EXPECT_EQ(t, ksize(ptr[i]), len[i]);
		memset(ptr[i], (u8)i, len[i]);
	}
	for (int i = 0; i < MANY; i++) {
		for (int j = 0; j < len[i]; j++) {
			if (ptr[i][j] != (u8)i) {
				KT_EXPECT_EQ(t, ptr[i][j], (u8)i);
				break;
			}
		}
		kfree(ptr[i]);
	}
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 0);
}

KTEST_SUITE(kmalloc, KTEST_CASE(sizes_and_alignment), KTEST_CASE(kzalloc_zeroes),
	    KTEST_CASE(kcalloc_overflow), KTEST_CASE(many_objects_keep_contents));

/* The debug checks: each misuse is reported exactly once and the heap keeps
 * working. Each report is a report_bug() the case declares; the harness also
 * checks the report text (report-double-free). */

static void kmalloc_debug_double_free(struct ktest *t)
{
	unsigned long errors = kmalloc_errors;
	char *p = kmalloc(24);

	ktest_expect_bugs(t, "kmalloc", 1);
	KT_ASSERT_NOT_NULL(t, p);
	kfree(p);
	kfree(p);
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 1);
	/* The slot was not put on the free list twice: two allocations differ. */
	char *a = kmalloc(24), *b = kmalloc(24);

	KT_EXPECT_TRUE(t, a && b && a != b);
	kfree(a);
	kfree(b);
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 1);
}

static void kmalloc_debug_overflow(struct ktest *t)
{
	unsigned long errors = kmalloc_errors;
	u8 *p = kmalloc(20);

	ktest_expect_bugs(t, "kmalloc", 2);
	KT_ASSERT_NOT_NULL(t, p);
	p[20] = 0x41; /* one byte past the end */
	kfree(p);
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 1);
	/* A write within the size class's slack is caught too. */
	p = kmalloc(17);
	KT_ASSERT_NOT_NULL(t, p);
	p[30] = 0;
	kfree(p);
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 2);
}

static void kmalloc_debug_use_after_free(struct ktest *t)
{
	unsigned long errors = kmalloc_errors;
	u8 *p = kmalloc(40);

	ktest_expect_bugs(t, "kmalloc", 1);
	KT_ASSERT_NOT_NULL(t, p);
	kfree(p);
	p[3] = 7; /* write after free: found when the slot is handed out */
	/* Allocate until the cache reaches the slot (usually at once). */
	static u8 *q[256];
	unsigned int n = 0;

	while (n < ARRAY_SIZE(q) && kmalloc_errors == errors) {
		q[n] = kmalloc(40);
		KT_EXPECT_TRUE(t, q[n] != p);
		n++;
	}
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 1);
	while (n)
		kfree(q[--n]);
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 1);
}

static void kmalloc_debug_bad_pointers(struct ktest *t)
{
	unsigned long errors = kmalloc_errors;
	int on_stack = 0;
	u8 *p = kmalloc(64);

	ktest_expect_bugs(t, "kmalloc", 3);
	KT_ASSERT_NOT_NULL(t, p);
	kfree(&on_stack); /* not heap memory */
	kfree(p + 8);	  /* inside an object */
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 2);
	kfree(p);
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 2);
	u8 *big = kmalloc(3 * PAGE_SIZE);

	KT_ASSERT_NOT_NULL(t, big);
	kfree(big);
	kfree(big); /* double free of a large allocation */
	KT_EXPECT_EQ(t, kmalloc_errors - errors, 3);
}

KTEST_SUITE(kmalloc_debug, KTEST_CASE(kmalloc_debug_double_free),
	    KTEST_CASE(kmalloc_debug_overflow), KTEST_CASE(kmalloc_debug_use_after_free),
	    KTEST_CASE(kmalloc_debug_bad_pointers));
