/* tests/kernel/test_paging.c - the kernel's page tables and guarded stacks. */
#include "arch/x86_64/paging.h"
#include "kernel/cpu_masks.h"
#include "kernel/mm/kstack.h"
#include "kernel/mm/pmm.h"
#include "kernel/panic.h"
#include "kernel/tools/ktest.h"

extern char __text_start[], __rodata_start[], __data_start[], boot_stack_guard[], boot_stack[];
static int some_data = 1;

static void text_is_read_only_and_executable(struct ktest *t)
{
	u64 e = kernel_pte((u64)__text_start, NULL);

	KT_ASSERT_TRUE(t, e != 0);
	KT_EXPECT_FALSE(t, e & PTE_WRITE);
	KT_EXPECT_FALSE(t, e & PTE_NX);
	e = kernel_pte((u64)&text_is_read_only_and_executable, NULL);
	KT_EXPECT_FALSE(t, e & PTE_WRITE);
}

static void rodata_is_read_only_no_exec(struct ktest *t)
{
	u64 e = kernel_pte((u64)__rodata_start, NULL);

	KT_ASSERT_TRUE(t, e != 0);
	KT_EXPECT_FALSE(t, e & PTE_WRITE);
	if (cpu_has_nx())
		KT_EXPECT_TRUE(t, e & PTE_NX);
}

static void data_is_writable_no_exec(struct ktest *t)
{
	u64 e = kernel_pte((u64)&some_data, NULL);

	KT_ASSERT_TRUE(t, e != 0);
	KT_EXPECT_TRUE(t, e & PTE_WRITE);
	if (cpu_has_nx())
		KT_EXPECT_TRUE(t, e & PTE_NX);
	/* The direct map is data too. */
	void *p = page_alloc(0);

	KT_ASSERT_NOT_NULL(t, p);
	e = kernel_pte((u64)p, NULL);
	KT_EXPECT_TRUE(t, e & PTE_WRITE);
	if (cpu_has_nx())
		KT_EXPECT_TRUE(t, e & PTE_NX);
	page_free(p);
}

static void low_memory_and_guards_unmapped(struct ktest *t)
{
	KT_EXPECT_FALSE(t, kernel_page_mapped(0));
	KT_EXPECT_FALSE(t, kernel_page_mapped(0x100000)); /* the identity map is gone */
	KT_EXPECT_FALSE(t, kernel_page_mapped((u64)boot_stack_guard));
	KT_EXPECT_TRUE(t, kernel_page_mapped((u64)boot_stack));
}

static void kstack_has_guard(struct ktest *t)
{
	u8 *s = kstack_alloc("ktest");
	u64 lo, hi;
	char what[64];

	KT_ASSERT_NOT_NULL(t, s);
	KT_EXPECT_TRUE(t, kernel_page_mapped((u64)s));
	KT_EXPECT_TRUE(t, kernel_page_mapped((u64)s + KSTACK_SIZE - 1));
	KT_EXPECT_FALSE(t, kernel_page_mapped((u64)s - 1));
	KT_EXPECT_FALSE(t, kernel_page_mapped((u64)s - KSTACK_GUARD_SIZE));
	KT_EXPECT_TRUE(t, kstack_bounds((u64)s + 100, &lo, &hi));
	KT_EXPECT_EQ(t, lo, (u64)s);
	KT_EXPECT_EQ(t, hi, (u64)s + KSTACK_SIZE);
	KT_EXPECT_TRUE(t, kstack_guard_hit((u64)s - 8, &lo, &hi, what, sizeof(what)));
	KT_EXPECT_FALSE(t, kstack_guard_hit((u64)s + 8, &lo, &hi, what, sizeof(what)));
	s[0] = 1;
	s[KSTACK_SIZE - 1] = 1;
	kstack_free(s);
	KT_EXPECT_FALSE(t, kernel_page_mapped((u64)s));
	KT_EXPECT_FALSE(t, kstack_bounds((u64)s + 100, &lo, &hi));
}

static void kstack_bad_free_warns(struct ktest *t)
{
	int x;

	ktest_expect_warnings(t, "kernel/mm/kstack.c", 1);
	kstack_free(&x);
}

static void ioremap_is_uncached(struct ktest *t)
{
	/* The local APIC's page: MMIO, so uncached and not executable. */
	volatile u32 *apic = ioremap(0xFEE00000, PAGE_SIZE);
	u64 e;

	KT_ASSERT_NOT_NULL(t, (void *)apic);
	e = kernel_pte((u64)apic, NULL);
	KT_EXPECT_TRUE(t, e & PTE_PCD);
	KT_EXPECT_EQ(t, e & PTE_ADDR_MASK, 0xFEE00000);
	/* The APIC version register reads back something plausible. */
	KT_EXPECT_NE(t, apic[0x30 / 4] & 0xFF, 0);
	iounmap((void *)apic, PAGE_SIZE);
	KT_EXPECT_FALSE(t, kernel_page_mapped((u64)apic));
}

static void all_free_memory_is_mapped(struct ktest *t)
{
	/* Take pages until none are left in the largest orders too, and touch
	 * each through the direct map (above 4 GiB when there is memory there). */
	struct pmm_stats st;
	phys_addr_t highest = 0;
	static phys_addr_t taken[4096];
	unsigned int n = 0;

	pmm_get_stats(&st);
	while (n < ARRAY_SIZE(taken)) {
		phys_addr_t pa = pmm_alloc_pages(10);

		if (!pa)
			break;
		*(volatile u64 *)phys_to_virt(pa) = pa;
		*(volatile u64 *)phys_to_virt(pa + (4UL << 20) - 8) = pa;
		highest = max(highest, pa);
		taken[n++] = pa;
	}
	KT_EXPECT_TRUE(t, n > 0);
	while (n)
		KT_EXPECT_EQ(t, pmm_free_pages(taken[--n]), 0);
	struct pmm_stats after;

	pmm_get_stats(&after);
	/* Everything came back; other CPUs may have allocated meanwhile: the
	 * workqueue creates workers in the background (a 16 KiB stack and
	 * their structs each), per CPU: seen, 28 workers made during this test
	 * at -smp 32 after test=all's earlier suites (112 pages). */
	u64 slack = 64 + 8 * (u64)nr_cpu_ids;

	KT_EXPECT_LE(t, st.free_pages, after.free_pages + slack);
	KT_EXPECT_LE(t, after.free_pages, st.free_pages + slack);
	/* With more than 4 GiB of RAM, memory above 4 GiB is in use. */
	if ((st.total_pages << PAGE_SHIFT) > (5ULL << 30))
		KT_EXPECT_TRUE(t, highest >= (4ULL << 30));
}

KTEST_SUITE(paging, KTEST_CASE(text_is_read_only_and_executable),
	    KTEST_CASE(rodata_is_read_only_no_exec), KTEST_CASE(data_is_writable_no_exec),
	    KTEST_CASE(low_memory_and_guards_unmapped), KTEST_CASE(kstack_has_guard),
	    KTEST_CASE(kstack_bad_free_warns), KTEST_CASE(ioremap_is_uncached),
	    KTEST_CASE(all_free_memory_is_mapped));
