/* tests/kernel/test_pmm.c - the physical page allocator. */
#include "arch/x86_64/paging.h"
#include "kernel/mm/pmm.h"
#include "kernel/tools/ktest.h"

static void orders_are_naturally_aligned(struct ktest *t)
{
	for (unsigned int order = 0; order <= 10; order++) {
		phys_addr_t pa = pmm_alloc_pages(order);

		KT_ASSERT_TRUE(t, pa != 0);
		KT_EXPECT_EQ(t, pa % ((u64)PAGE_SIZE << order), 0);
		KT_EXPECT_TRUE(t, pmm_is_allocated(pa));
		KT_EXPECT_EQ(t, pmm_free_pages(pa), 0);
		KT_EXPECT_FALSE(t, pmm_is_allocated(pa));
	}
	KT_EXPECT_EQ(t, pmm_alloc_pages(11), 0); /* beyond the largest order */
}

static void frees_restore_the_count(struct ktest *t)
{
	struct pmm_stats a, b;
	phys_addr_t p[64];

	pmm_get_stats(&a);
	for (int i = 0; i < 64; i++) {
		p[i] = pmm_alloc_pages((unsigned int)(i % 4));
		KT_ASSERT_TRUE(t, p[i] != 0);
	}
	pmm_get_stats(&b);
	KT_EXPECT_EQ(t, a.free_pages - b.free_pages, 16 * (1 + 2 + 4 + 8));
	for (int i = 0; i < 64; i++)
		pmm_free_pages(p[i]);
	pmm_get_stats(&b);
	KT_EXPECT_EQ(t, a.free_pages, b.free_pages);
}

static void kernel_and_low_memory_never_handed_out(struct ktest *t)
{
	extern char __kernel_phys_start[], __kernel_phys_end[];
	static phys_addr_t p[512];

	for (int i = 0; i < 512; i++) {
		p[i] = pmm_alloc_pages(0);
		KT_ASSERT_TRUE(t, p[i] != 0);
		KT_EXPECT_TRUE(t, p[i] >= 0x100000);
		KT_EXPECT_TRUE(t,
			       p[i] >= (u64)__kernel_phys_end || p[i] < (u64)__kernel_phys_start);
	}
	for (int i = 0; i < 512; i++)
		pmm_free_pages(p[i]);
}

static void double_free_is_refused(struct ktest *t)
{
	struct pmm_stats a, b;
	phys_addr_t pa = pmm_alloc_pages(1);

	KT_ASSERT_TRUE(t, pa != 0);
	KT_EXPECT_EQ(t, pmm_free_pages(pa), 0);
	pmm_get_stats(&a);
	ktest_expect_warnings(t, "kernel/mm/pmm.c", 2);
	KT_EXPECT_NE(t, pmm_free_pages(pa), 0);	    /* double free */
	KT_EXPECT_NE(t, pmm_free_pages(0x1234), 0); /* not a block at all */
	pmm_get_stats(&b);
	KT_EXPECT_EQ(t, a.free_pages, b.free_pages);
}

static void page_owner_pointer(struct ktest *t)
{
	phys_addr_t pa = pmm_alloc_pages(0);
	int cookie;

	KT_ASSERT_TRUE(t, pa != 0);
	pmm_set_page_priv(pa, &cookie);
	KT_EXPECT_TRUE(t, pmm_page_priv(pa) == &cookie);
	pmm_set_page_priv(pa, NULL);
	pmm_free_pages(pa);
}

KTEST_SUITE(pmm, KTEST_CASE(orders_are_naturally_aligned), KTEST_CASE(frees_restore_the_count),
	    KTEST_CASE(kernel_and_low_memory_never_handed_out), KTEST_CASE(double_free_is_refused),
	    KTEST_CASE(page_owner_pointer));
