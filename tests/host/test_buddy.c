/* tests/host/test_buddy.c - tests for lib/buddy.c.
 *
 * Zones here are plain arrays of metadata; pfns are just numbers. The
 * stress test keeps a shadow bitmap of allocated pages to prove that no two
 * live allocations overlap and that reserved pages are never handed out,
 * and runs buddy_check() along the way.
 */
#include "ktest_host.h"
#include "lib/bitmap.h"
#include "lib/buddy.h"
#include "lib/errno.h"
#include "lib/random.h"
#include "lib/string.h"

struct test_zone {
	struct buddy_zone zone;
	struct buddy_block *blocks;
};

static struct test_zone *zone_create(u64 base_pfn, u64 npages)
{
	struct test_zone *tz = host_alloc(sizeof(*tz));

	tz->blocks = host_alloc(buddy_meta_bytes(npages));
	buddy_init(&tz->zone, tz->blocks, base_pfn, npages);
	return tz;
}

static void zone_destroy(struct test_zone *tz)
{
	host_free(tz->blocks);
	host_free(tz);
}

/* Free-block counts per order, for comparing whole allocator states. */
static void free_profile(const struct buddy_zone *z, u64 profile[BUDDY_NR_ORDERS])
{
	unsigned int order;

	for (order = 0; order <= BUDDY_MAX_ORDER; order++)
		profile[order] = buddy_nr_free_blocks(z, order);
}

static void buddy_layout(struct ktest *t)
{
	KT_EXPECT_EQ(t, sizeof(struct buddy_block), 32);
	KT_EXPECT_EQ(t, buddy_meta_bytes(0), 0);
	KT_EXPECT_EQ(t, buddy_meta_bytes(1000), 32000);
	KT_EXPECT_EQ(t, BUDDY_MAX_ORDER, 10);
}

static void buddy_init_all_reserved(struct ktest *t)
{
	struct test_zone *tz = zone_create(4096, 3000);
	struct buddy_zone *z = &tz->zone;
	u64 pfn = 0;

	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 0);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn), -ENOMEM);
	KT_EXPECT_EQ(t, buddy_free(z, 4096, NULL), -EINVAL);
	KT_EXPECT_EQ(t, buddy_alloc_order_of(z, 4096), -EINVAL);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 4096)->state == BUDDY_RESERVED);
	zone_destroy(tz);

	/* An empty zone is legal and useless. */
	tz = zone_create(0, 0);
	KT_EXPECT_EQ(t, buddy_check(&tz->zone), 0);
	KT_EXPECT_EQ(t, buddy_alloc(&tz->zone, 0, &pfn), -ENOMEM);
	buddy_release_range(&tz->zone, 0, 100);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(&tz->zone), 0);
	KT_EXPECT_TRUE(t, !buddy_contains(&tz->zone, 0));
	zone_destroy(tz);
}

static void buddy_release_coalesces(struct ktest *t)
{
	struct test_zone *tz = zone_create(0, 2048);
	struct buddy_zone *z = &tz->zone;
	struct prng r;
	u64 order_of_release[2048];
	u64 i;

	buddy_release_range(z, 0, 2048);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 2048);
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 2048);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, BUDDY_MAX_ORDER), 2);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, 0), 0);
	zone_destroy(tz);

	/* Page by page in random order ends in the same state. */
	tz = zone_create(0, 2048);
	z = &tz->zone;
	for (i = 0; i < 2048; i++)
		order_of_release[i] = i;
	prng_seed(&r, 1);
	for (i = 2047; i > 0; i--) {
		u64 j = prng_below(&r, (u32)i + 1), tmp = order_of_release[i];

		order_of_release[i] = order_of_release[j];
		order_of_release[j] = tmp;
	}
	for (i = 0; i < 2048; i++) {
		buddy_release_range(z, order_of_release[i], 1);
		if (i % 97 == 0)
			KT_EXPECT_EQ(t, buddy_check(z), 0);
	}
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 2048);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, BUDDY_MAX_ORDER), 2);

	/* Releasing again is a no-op, not a double count. */
	buddy_release_range(z, 0, 2048);
	buddy_release_range(z, 100, 5);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 2048);
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 2048);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

static void buddy_alloc_split_and_merge(struct ktest *t)
{
	struct test_zone *tz = zone_create(1024, 1024);
	struct buddy_zone *z = &tz->zone;
	unsigned int order, freed_order = 99;
	u64 pfn = 0, pfn2 = 0;

	buddy_release_range(z, 1024, 1024);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn), 0);
	KT_EXPECT_EQ(t, pfn, 1024);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 1023);
	/* One free block of every smaller order is left over. */
	for (order = 0; order < BUDDY_MAX_ORDER; order++)
		KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, order), 1);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, BUDDY_MAX_ORDER), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);

	/* The order-0 buddy is next. */
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn2), 0);
	KT_EXPECT_EQ(t, pfn2, 1025);
	KT_EXPECT_EQ(t, buddy_free(z, pfn, &freed_order), 0);
	KT_EXPECT_EQ(t, freed_order, 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_free(z, pfn2, NULL), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 1024);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, BUDDY_MAX_ORDER), 1);

	/* The whole zone as one block, then nothing is left. */
	KT_EXPECT_EQ(t, buddy_alloc(z, BUDDY_MAX_ORDER, &pfn), 0);
	KT_EXPECT_EQ(t, pfn, 1024);
	KT_EXPECT_EQ(t, buddy_alloc_order_of(z, 1024), BUDDY_MAX_ORDER);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn2), -ENOMEM);
	KT_EXPECT_EQ(t, buddy_free(z, 1024, &freed_order), 0);
	KT_EXPECT_EQ(t, freed_order, BUDDY_MAX_ORDER);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

static void buddy_smallest_fit(struct ktest *t)
{
	struct test_zone *tz = zone_create(0, 64);
	struct buddy_zone *z = &tz->zone;
	u64 pfn = 0;

	/* Free blocks: [4,8) order 2 and [32,64) order 5. */
	buddy_release_range(z, 4, 4);
	buddy_release_range(z, 32, 32);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, 2), 1);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, 5), 1);
	KT_EXPECT_EQ(t, buddy_alloc(z, 1, &pfn), 0);
	KT_EXPECT_TRUE(t, pfn == 4 || pfn == 6);
	KT_EXPECT_EQ(t, buddy_nr_free_blocks(z, 5), 1); /* untouched */
	KT_EXPECT_EQ(t, buddy_alloc(z, 3, &pfn), 0);
	KT_EXPECT_EQ(t, pfn % 8, 0);
	KT_EXPECT_TRUE(t, pfn >= 32);
	KT_EXPECT_EQ(t, buddy_alloc(z, 5, &pfn), -ENOMEM);
	KT_EXPECT_EQ(t, buddy_alloc(z, BUDDY_MAX_ORDER + 1, &pfn), -EINVAL);
	KT_EXPECT_EQ(t, buddy_alloc(z, 1000, &pfn), -EINVAL);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

/* Low memory first (kernel/mm/pmm.c): once the lists are sorted, a
 * block is taken from the lowest first block of the orders big enough,
 * not from the smallest order. */
static void buddy_lowest_block_first(struct ktest *t)
{
	struct test_zone *tz = zone_create(0, 128);
	struct buddy_zone *z = &tz->zone;
	u64 pfn = 0;

	/* Single pages, released upwards (each goes to the front of its
	 * list), then [16,24) order 3 and, above them, [120,122) order 1. */
	buddy_release_range(z, 1, 1);
	buddy_release_range(z, 3, 1);
	buddy_release_range(z, 5, 1);
	buddy_release_range(z, 16, 8);
	buddy_release_range(z, 120, 2);
	buddy_sort_free_lists(z);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn), 0);
	KT_EXPECT_EQ(t, pfn, 1);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn), 0);
	KT_EXPECT_EQ(t, pfn, 3);
	KT_EXPECT_EQ(t, buddy_alloc(z, 1, &pfn), 0);
	KT_EXPECT_EQ(t, pfn, 16); /* the order-3 block below, split */
	KT_EXPECT_EQ(t, buddy_alloc(z, 1, &pfn), 0);
	KT_EXPECT_EQ(t, pfn, 18);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

static void buddy_alignment_absolute(struct ktest *t)
{
	/* Odd base: absolute alignment must still hold for every order. */
	struct test_zone *tz = zone_create(1000003, 5000);
	struct buddy_zone *z = &tz->zone;
	unsigned int order;

	buddy_release_range(z, 0, UINT64_MAX); /* clipped to the zone */
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 5000);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	for (order = 0; order <= BUDDY_MAX_ORDER; order++) {
		u64 pfn = 0;

		if (buddy_alloc(z, order, &pfn) != 0)
			continue;
		KT_EXPECT_EQ(t, pfn % (1ULL << order), 0);
		KT_EXPECT_TRUE(t, pfn >= 1000003);
		KT_EXPECT_TRUE(t, pfn + (1ULL << order) <= 1000003 + 5000);
		KT_EXPECT_EQ(t, buddy_alloc_order_of(z, pfn), order);
	}
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

static void buddy_exhaustion(struct ktest *t)
{
	enum { PAGES = 777 };
	struct test_zone *tz = zone_create(3, PAGES);
	struct buddy_zone *z = &tz->zone;
	u64 before[BUDDY_NR_ORDERS], after[BUDDY_NR_ORDERS];
	u64 pfns[PAGES], pfn;
	DECLARE_BITMAP(seen, PAGES);
	size_t n = 0, i;

	buddy_release_range(z, 3, PAGES);
	free_profile(z, before);
	bitmap_zero(seen, PAGES);
	while (buddy_alloc(z, 0, &pfn) == 0) {
		KT_ASSERT_TRUE(t, n < PAGES);
		KT_EXPECT_TRUE(t, buddy_contains(z, pfn));
		KT_EXPECT_TRUE(t, !__test_and_set_bit(pfn - 3, seen));
		pfns[n++] = pfn;
	}
	KT_EXPECT_EQ(t, n, PAGES);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 0);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn), -ENOMEM);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	for (i = 0; i < n; i++)
		KT_EXPECT_EQ(t, buddy_free(z, pfns[(i * 31) % n], NULL), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	free_profile(z, after);
	KT_EXPECT_MEMEQ(t, before, after, sizeof(before));
	zone_destroy(tz);
}

static void buddy_bad_frees_rejected(struct ktest *t)
{
	struct test_zone *tz = zone_create(64, 256);
	struct buddy_zone *z = &tz->zone;
	u64 profile[BUDDY_NR_ORDERS], profile2[BUDDY_NR_ORDERS];
	u64 pfn = 0, free_pages;
	unsigned int order = 77;

	buddy_release_range(z, 64, 200); /* [264, 320) stays reserved */
	KT_EXPECT_EQ(t, buddy_alloc(z, 2, &pfn), 0);
	KT_EXPECT_EQ(t, buddy_free(z, pfn, &order), 0);
	KT_EXPECT_EQ(t, order, 2);
	free_pages = buddy_nr_free_pages(z);
	free_profile(z, profile);

	order = 77;
	KT_EXPECT_EQ(t, buddy_free(z, pfn, &order), -EINVAL); /* double */
	KT_EXPECT_EQ(t, order, 77);
	KT_EXPECT_EQ(t, buddy_alloc(z, 2, &pfn), 0);
	KT_EXPECT_EQ(t, buddy_free(z, pfn + 1, NULL), -EINVAL); /* tail */
	KT_EXPECT_EQ(t, buddy_free(z, pfn + 3, NULL), -EINVAL);
	KT_EXPECT_EQ(t, buddy_free(z, 63, NULL), -EINVAL);  /* below */
	KT_EXPECT_EQ(t, buddy_free(z, 320, NULL), -EINVAL); /* above */
	KT_EXPECT_EQ(t, buddy_free(z, 300, NULL), -EINVAL); /* reserved */
	KT_EXPECT_EQ(t, buddy_free(z, UINT64_MAX, NULL), -EINVAL);
	KT_EXPECT_EQ(t, buddy_alloc_order_of(z, pfn), 2);
	KT_EXPECT_EQ(t, buddy_alloc_order_of(z, pfn + 1), -EINVAL);
	KT_EXPECT_EQ(t, buddy_free(z, pfn, NULL), 0);
	/* pfn is now inside a free block: freeing its head is also bad. */
	KT_EXPECT_EQ(t, buddy_free(z, 128, NULL), -EINVAL);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), free_pages);
	free_profile(z, profile2);
	KT_EXPECT_MEMEQ(t, profile, profile2, sizeof(profile));
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

static void buddy_lookup_helpers(struct ktest *t)
{
	struct test_zone *tz = zone_create(500, 100);
	struct buddy_zone *z = &tz->zone;

	KT_EXPECT_TRUE(t, !buddy_contains(z, 499));
	KT_EXPECT_TRUE(t, buddy_contains(z, 500));
	KT_EXPECT_TRUE(t, buddy_contains(z, 599));
	KT_EXPECT_TRUE(t, !buddy_contains(z, 600));
	KT_EXPECT_TRUE(t, buddy_block_of(z, 499) == NULL);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 600) == NULL);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 500) == &tz->blocks[0]);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 577) == &tz->blocks[77]);
	KT_EXPECT_EQ(t, buddy_pfn_of(z, &tz->blocks[77]), 577);
	zone_destroy(tz);
}

static void buddy_owner_fields_cleared(struct ktest *t)
{
	struct test_zone *tz = zone_create(0, 16);
	struct buddy_zone *z = &tz->zone;
	u64 pfn = 0, i;
	int token;

	buddy_release_range(z, 0, 16);
	KT_EXPECT_EQ(t, buddy_alloc(z, 2, &pfn), 0);
	for (i = 0; i < 4; i++) {
		buddy_block_of(z, pfn + i)->priv = &token;
		buddy_block_of(z, pfn + i)->flags = 0xbeef;
	}
	/* The owner may also borrow the head's link. */
	INIT_LIST_HEAD(&buddy_block_of(z, pfn)->link);
	KT_EXPECT_EQ(t, buddy_free(z, pfn, NULL), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_alloc(z, 4, &pfn), 0);
	for (i = 0; i < 16; i++) {
		KT_EXPECT_TRUE(t, buddy_block_of(z, pfn + i)->priv == NULL);
		KT_EXPECT_EQ(t, buddy_block_of(z, pfn + i)->flags, 0);
	}
	zone_destroy(tz);
}

static void buddy_reserve_ranges(struct ktest *t)
{
	struct test_zone *tz = zone_create(0, 4096);
	struct buddy_zone *z = &tz->zone;
	u64 before[BUDDY_NR_ORDERS], after[BUDDY_NR_ORDERS];
	u64 pfn = 0, held;
	int err;

	buddy_release_range(z, 0, 4096);
	free_profile(z, before);

	/* A hole with odd edges in the middle of an order-10 block. */
	KT_EXPECT_EQ(t, buddy_reserve_range(z, 1001, 37), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 4096 - 37);
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 4096 - 37);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 1001)->state == BUDDY_RESERVED);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 1037)->state == BUDDY_RESERVED);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 1038)->state != BUDDY_RESERVED);
	KT_EXPECT_TRUE(t, buddy_block_of(z, 1000)->state != BUDDY_RESERVED);

	/* Reserving again (and partly outside the zone) is fine. */
	KT_EXPECT_EQ(t, buddy_reserve_range(z, 1001, 10), 0);
	KT_EXPECT_EQ(t, buddy_reserve_range(z, 4090, 100), 0);
	KT_EXPECT_EQ(t, buddy_reserve_range(z, 5000, 100), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 4096 - 37 - 6);
	KT_EXPECT_EQ(t, buddy_check(z), 0);

	/* Nothing reserved is ever handed out. */
	while (buddy_alloc(z, 0, &pfn) == 0)
		KT_EXPECT_TRUE(t, (pfn < 1001 || pfn >= 1038) && pfn < 4090);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);

	/* Reserving over an allocated page fails and changes nothing. */
	err = buddy_reserve_range(z, 990, 20);
	KT_EXPECT_EQ(t, err, -EBUSY);
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 4096 - 43);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);

	/* -EBUSY on a tail page of an allocated block, nothing changed. */
	tz = zone_create(0, 4096);
	z = &tz->zone;
	buddy_release_range(z, 0, 4096);
	KT_EXPECT_EQ(t, buddy_alloc(z, 5, &held), 0);
	held += 7;
	free_profile(z, before);
	KT_EXPECT_EQ(t, buddy_reserve_range(z, 0, held + 1), -EBUSY);
	KT_EXPECT_EQ(t, buddy_reserve_range(z, held, 1), -EBUSY);
	free_profile(z, after);
	KT_EXPECT_MEMEQ(t, before, after, sizeof(before));
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z), 4096);
	KT_EXPECT_EQ(t, buddy_free(z, held - 7, NULL), 0);

	/* Reserve then release restores the fully merged state. */
	free_profile(z, before);
	KT_EXPECT_EQ(t, buddy_reserve_range(z, 5, 3000), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z), 4096 - 3000);
	buddy_release_range(z, 5, 3000);
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	free_profile(z, after);
	KT_EXPECT_MEMEQ(t, before, after, sizeof(before));
	zone_destroy(tz);
}

/* buddy_check must notice broken metadata, or the other tests prove little. */
static void buddy_check_detects_corruption(struct ktest *t)
{
	struct test_zone *tz = zone_create(0, 64);
	struct buddy_zone *z = &tz->zone;
	struct buddy_block saved;
	u64 pfn = 0;

	buddy_release_range(z, 0, 64);
	KT_EXPECT_EQ(t, buddy_alloc(z, 0, &pfn), 0);
	KT_EXPECT_EQ(t, buddy_check(z), 0);

	z->nr_free++;
	KT_EXPECT_EQ(t, buddy_check(z), -EINVAL);
	z->nr_free--;

	z->nr_free_blocks[3]++;
	KT_EXPECT_EQ(t, buddy_check(z), -EINVAL);
	z->nr_free_blocks[3]--;

	saved = tz->blocks[9]; /* a tail of the order-3 block [8,16) */
	tz->blocks[9].state = BUDDY_FREE;
	KT_EXPECT_EQ(t, buddy_check(z), -EINVAL);
	tz->blocks[9] = saved;

	saved = tz->blocks[8]; /* head of [8,16): claim order 2 */
	tz->blocks[8].order = 2;
	KT_EXPECT_EQ(t, buddy_check(z), -EINVAL);
	tz->blocks[8] = saved;

	tz->blocks[pfn].state = BUDDY_TAIL; /* orphan tail */
	KT_EXPECT_EQ(t, buddy_check(z), -EINVAL);
	tz->blocks[pfn].state = BUDDY_ALLOCATED;

	/* A free block dropped from its list. */
	list_del(&tz->blocks[8].link);
	KT_EXPECT_EQ(t, buddy_check(z), -EINVAL);
	list_add(&tz->blocks[8].link, &z->free_list[3]);

	KT_EXPECT_EQ(t, buddy_check(z), 0);
	zone_destroy(tz);
}

/*
 * Random alloc/free with a shadow bitmap of allocated pages. Zones have
 * reserved holes and (in the second round) an unaligned base.
 */
static void stress_zone(struct ktest *t, u64 base, u64 npages, u64 seed, int ops)
{
	struct test_zone *tz = zone_create(base, npages);
	struct buddy_zone *z = &tz->zone;
	unsigned long *shadow = host_alloc(BITS_TO_LONGS(npages) * sizeof(unsigned long));
	unsigned long *reserved = host_alloc(BITS_TO_LONGS(npages) * sizeof(unsigned long));
	u64 *live_pfn = host_alloc((size_t)npages * sizeof(u64));
	u8 *live_order = host_alloc((size_t)npages);
	u64 before[BUDDY_NR_ORDERS], after[BUDDY_NR_ORDERS];
	size_t nr_live = 0;
	struct prng r;
	int op, failures_before = (int)t->nr_failures;

	prng_seed(&r, seed);
	buddy_release_range(z, base, npages);
	/* Punch some reserved holes at random. */
	for (op = 0; op < 8; op++) {
		u64 start = base + prng_below(&r, (u32)npages);
		u64 len = 1 + prng_below(&r, 300);

		KT_EXPECT_EQ(t, buddy_reserve_range(z, start, len), 0);
	}
	for (op = 0; (u64)op < npages; op++) {
		if (buddy_block_of(z, base + (u64)op)->state == BUDDY_RESERVED)
			__set_bit((unsigned long)op, reserved);
	}
	KT_EXPECT_EQ(t, buddy_nr_managed_pages(z),
		     npages - bitmap_weight(reserved, (unsigned int)npages));
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	free_profile(z, before);

	for (op = 0; op < ops; op++) {
		bool do_alloc = nr_live == 0 || prng_below(&r, 100) < 55;

		if (do_alloc) {
			/* Mostly small orders, like real use. */
			unsigned int order = prng_below(&r, 4) ? prng_below(&r, 3) :
								 prng_below(&r, BUDDY_NR_ORDERS);
			u64 free_before = buddy_nr_free_pages(z);
			u64 pfn = 0, i, idx;
			int err = buddy_alloc(z, order, &pfn);

			if (err) {
				KT_EXPECT_EQ(t, err, -ENOMEM);
				continue;
			}
			KT_EXPECT_EQ(t, pfn % (1ULL << order), 0);
			if (pfn < base || pfn + (1ULL << order) > base + npages) {
				ktest_fail(t, __FILE__, __LINE__, "pfn %llu order %u outside zone",
					   (unsigned long long)pfn, order);
				break;
			}
			idx = pfn - base;
			for (i = 0; i < (1ULL << order); i++) {
				KT_EXPECT_TRUE(t, !test_bit(idx + i, reserved));
				KT_EXPECT_TRUE(t, !__test_and_set_bit(idx + i, shadow));
			}
			KT_EXPECT_EQ(t, buddy_nr_free_pages(z), free_before - (1ULL << order));
			live_pfn[nr_live] = pfn;
			live_order[nr_live] = (u8)order;
			nr_live++;
		} else {
			size_t victim = prng_below(&r, (u32)nr_live);
			u64 pfn = live_pfn[victim], i;
			unsigned int order = 99;

			KT_EXPECT_EQ(t, buddy_free(z, pfn, &order), 0);
			KT_EXPECT_EQ(t, order, live_order[victim]);
			for (i = 0; i < (1ULL << live_order[victim]); i++)
				__clear_bit(pfn - base + i, shadow);
			/* Freeing it again must fail. */
			KT_EXPECT_EQ(t, buddy_free(z, pfn, NULL), -EINVAL);
			live_pfn[victim] = live_pfn[nr_live - 1];
			live_order[victim] = live_order[nr_live - 1];
			nr_live--;
		}
		if (op % 256 == 0)
			KT_EXPECT_EQ(t, buddy_check(z), 0);
		if ((int)t->nr_failures > failures_before) {
			ktest_note("stress seed %llu base %llu: stop at op %d",
				   (unsigned long long)seed, (unsigned long long)base, op);
			break;
		}
	}
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	KT_EXPECT_EQ(t, buddy_nr_free_pages(z) + bitmap_weight(shadow, (unsigned int)npages),
		     buddy_nr_managed_pages(z));

	/* Free everything: the allocator must fully re-merge. */
	while (nr_live) {
		nr_live--;
		KT_EXPECT_EQ(t, buddy_free(z, live_pfn[nr_live], NULL), 0);
	}
	KT_EXPECT_EQ(t, buddy_check(z), 0);
	free_profile(z, after);
	KT_EXPECT_MEMEQ(t, before, after, sizeof(before));

	host_free(live_order);
	host_free(live_pfn);
	host_free(reserved);
	host_free(shadow);
	zone_destroy(tz);
}

static void buddy_stress_aligned(struct ktest *t)
{
	stress_zone(t, 0, 8192, 1, 20000);
	stress_zone(t, 1 << 20, 3000, 2, 10000);
}

static void buddy_stress_unaligned(struct ktest *t)
{
	stress_zone(t, 1001, 6007, 3, 20000);
	stress_zone(t, 0x7ffff, 2049, 4, 10000);
	stress_zone(t, 13, 50, 5, 3000); /* tiny: lots of -ENOMEM */
}

static const struct ktest_case buddy_cases[] = {
	KTEST_CASE(buddy_layout),
	KTEST_CASE(buddy_init_all_reserved),
	KTEST_CASE(buddy_release_coalesces),
	KTEST_CASE(buddy_alloc_split_and_merge),
	KTEST_CASE(buddy_smallest_fit),
	KTEST_CASE(buddy_lowest_block_first),
	KTEST_CASE(buddy_alignment_absolute),
	KTEST_CASE(buddy_exhaustion),
	KTEST_CASE(buddy_bad_frees_rejected),
	KTEST_CASE(buddy_lookup_helpers),
	KTEST_CASE(buddy_owner_fields_cleared),
	KTEST_CASE(buddy_reserve_ranges),
	KTEST_CASE(buddy_check_detects_corruption),
	KTEST_CASE(buddy_stress_aligned),
	KTEST_CASE(buddy_stress_unaligned),
};

KTEST_SUITE(buddy, buddy_cases);
