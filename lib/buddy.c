/* lib/buddy.c - buddy allocator over a caller-provided page metadata array.
 *
 * Invariants (verified by buddy_check):
 *  - every managed page belongs to exactly one block; a block of order k is
 *    2^k pages, starts at a pfn that is a multiple of 2^k, lies inside the
 *    zone, has a FREE or ALLOCATED head and TAIL pages after it;
 *  - each FREE head is on free_list[order], and only those are;
 *  - two free buddies of the same order never coexist: they are merged as
 *    soon as the second one is freed.
 * See buddy.h for the interface.
 */
#include "buddy.h"
#include "compiler.h"
#include "errno.h"

BUILD_BUG_ON(sizeof(struct buddy_block) != 32);
BUILD_BUG_ON(BUDDY_MAX_ORDER > 255);

static u64 zone_end(const struct buddy_zone *z)
{
	return z->base_pfn + z->npages;
}

static struct buddy_block *block_at(const struct buddy_zone *z, u64 pfn)
{
	return &z->blocks[pfn - z->base_pfn];
}

/* Does the whole order-sized block starting at pfn lie inside the zone? */
static bool block_fits(const struct buddy_zone *z, u64 pfn, unsigned int order)
{
	return pfn >= z->base_pfn && pfn + (1ULL << order) <= zone_end(z);
}

static bool is_head(const struct buddy_block *b)
{
	return b->state == BUDDY_FREE || b->state == BUDDY_ALLOCATED;
}

/* Clip [pfn, pfn + count) to the zone; false if nothing is left. */
static bool clip_range(const struct buddy_zone *z, u64 pfn, u64 count, u64 *start, u64 *end)
{
	u64 last = count > UINT64_MAX - pfn ? UINT64_MAX : pfn + count;

	*start = pfn > z->base_pfn ? pfn : z->base_pfn;
	*end = last < zone_end(z) ? last : zone_end(z);
	return *start < *end;
}

/*
 * Head pfn of the block containing the TAIL page pfn. Candidates are the
 * pfn rounded down to each order; the first head whose block reaches pfn
 * is the one. False only if the metadata is corrupt.
 */
static bool find_head(const struct buddy_zone *z, u64 pfn, u64 *head)
{
	unsigned int k;

	for (k = 1; k <= BUDDY_MAX_ORDER; k++) {
		u64 candidate = pfn & ~((1ULL << k) - 1);
		const struct buddy_block *b;

		if (candidate < z->base_pfn)
			return false;
		b = block_at(z, candidate);
		if (is_head(b) && b->order >= k) {
			*head = candidate;
			return true;
		}
	}
	return false;
}

/* Give all pages of a block back to the owner-field defaults. */
static void clear_owner_fields(struct buddy_zone *z, u64 pfn, unsigned int order)
{
	u64 i;

	for (i = 0; i < (1ULL << order); i++) {
		struct buddy_block *b = block_at(z, pfn + i);

		b->priv = NULL;
		b->flags = 0;
	}
}

static void set_state(struct buddy_zone *z, u64 pfn, u64 count, enum buddy_state state)
{
	u64 i;

	for (i = 0; i < count; i++) {
		struct buddy_block *b = block_at(z, pfn + i);

		b->state = (u8)state;
		b->order = 0;
	}
}

static void push_free(struct buddy_zone *z, u64 pfn, unsigned int order)
{
	struct buddy_block *b = block_at(z, pfn);

	b->state = BUDDY_FREE;
	b->order = (u8)order;
	list_add(&b->link, &z->free_list[order]);
	z->nr_free_blocks[order]++;
}

static void unlink_free(struct buddy_zone *z, struct buddy_block *b)
{
	list_del(&b->link);
	z->nr_free_blocks[b->order]--;
}

/*
 * Put a block whose pages are already head + TAILs onto the free lists,
 * merging with its buddy for as long as the buddy is a free block of the
 * same order.
 */
static void insert_free(struct buddy_zone *z, u64 pfn, unsigned int order)
{
	z->nr_free += 1ULL << order;
	while (order < BUDDY_MAX_ORDER) {
		u64 buddy = pfn ^ (1ULL << order);
		struct buddy_block *bb;

		if (!block_fits(z, buddy, order))
			break;
		bb = block_at(z, buddy);
		if (bb->state != BUDDY_FREE || bb->order != order)
			break;
		unlink_free(z, bb);
		/* The higher of the two heads becomes a tail of the merge. */
		if (buddy > pfn) {
			bb->state = BUDDY_TAIL;
			bb->order = 0;
		} else {
			block_at(z, pfn)->state = BUDDY_TAIL;
			block_at(z, pfn)->order = 0;
			pfn = buddy;
		}
		order++;
	}
	push_free(z, pfn, order);
}

/* Largest order whose block starts at pfn and ends by end. */
static unsigned int largest_fit(u64 pfn, u64 end)
{
	unsigned int order = 0;

	while (order < BUDDY_MAX_ORDER && (pfn & ((2ULL << order) - 1)) == 0 &&
	       pfn + (2ULL << order) <= end)
		order++;
	return order;
}

/* Free the RESERVED pages [pfn, end) as the largest aligned blocks. */
static void free_reserved_run(struct buddy_zone *z, u64 pfn, u64 end)
{
	while (pfn < end) {
		unsigned int order = largest_fit(pfn, end);
		u64 pages = 1ULL << order;

		clear_owner_fields(z, pfn, order);
		set_state(z, pfn + 1, pages - 1, BUDDY_TAIL);
		z->nr_managed += pages;
		insert_free(z, pfn, order);
		pfn += pages;
	}
}

size_t buddy_meta_bytes(u64 npages)
{
	return (size_t)npages * sizeof(struct buddy_block);
}

void buddy_init(struct buddy_zone *z, struct buddy_block *blocks, u64 base_pfn, u64 npages)
{
	unsigned int order;
	u64 i;

	z->blocks = blocks;
	z->base_pfn = base_pfn;
	z->npages = npages;
	z->nr_free = 0;
	z->nr_managed = 0;
	for (order = 0; order < BUDDY_NR_ORDERS; order++) {
		INIT_LIST_HEAD(&z->free_list[order]);
		z->nr_free_blocks[order] = 0;
	}
	for (i = 0; i < npages; i++) {
		struct buddy_block *b = &blocks[i];

		INIT_LIST_HEAD(&b->link);
		b->order = 0;
		b->state = BUDDY_RESERVED;
		b->flags = 0;
		b->reserved = 0;
		b->priv = NULL;
	}
}

void buddy_release_range(struct buddy_zone *z, u64 pfn, u64 count)
{
	u64 start, end;

	if (!clip_range(z, pfn, count, &start, &end))
		return;
	pfn = start;
	while (pfn < end) {
		struct buddy_block *b = block_at(z, pfn);
		u64 run_end;

		if (b->state != BUDDY_RESERVED) {
			/* Already managed: skip the whole block if we can. */
			pfn += is_head(b) ? 1ULL << b->order : 1;
			continue;
		}
		run_end = pfn + 1;
		while (run_end < end && block_at(z, run_end)->state == BUDDY_RESERVED)
			run_end++;
		free_reserved_run(z, pfn, run_end);
		pfn = run_end;
	}
}

void buddy_sort_free_lists(struct buddy_zone *z)
{
	for (unsigned int k = 0; k < BUDDY_NR_ORDERS; k++) {
		struct list_head sorted;

		INIT_LIST_HEAD(&sorted);
		/* Selection: the lowest left, to the tail, until none is left.
		 * Once, at boot, on lists of a few hundred blocks at most. */
		while (!list_empty(&z->free_list[k])) {
			struct buddy_block *b, *low = NULL;

			list_for_each_entry(b, &z->free_list[k], link)
				if (!low || b < low)
					low = b;
			list_move_tail(&low->link, &sorted);
		}
		list_splice_init(&sorted, &z->free_list[k]);
	}
}

/*
 * Head and order of the block holding pfn. Returns false for RESERVED
 * pages (and for corrupt metadata).
 */
static bool block_containing(const struct buddy_zone *z, u64 pfn, u64 *head, unsigned int *order)
{
	const struct buddy_block *b = block_at(z, pfn);

	if (b->state == BUDDY_TAIL) {
		if (!find_head(z, pfn, &pfn))
			return false;
		b = block_at(z, pfn);
	} else if (!is_head(b)) {
		return false;
	}
	*head = pfn;
	*order = b->order;
	return true;
}

int buddy_reserve_range(struct buddy_zone *z, u64 pfn, u64 count)
{
	unsigned int order;
	u64 start, end, head;

	if (!clip_range(z, pfn, count, &start, &end))
		return 0;

	/* First make sure nothing in the range is allocated. */
	for (pfn = start; pfn < end;) {
		if (!block_containing(z, pfn, &head, &order)) {
			pfn++;
			continue;
		}
		if (block_at(z, head)->state == BUDDY_ALLOCATED)
			return -EBUSY;
		pfn = head + (1ULL << order);
	}

	/*
	 * Take each overlapping free block off the lists whole, then hand
	 * back the parts of it outside [start, end).
	 */
	for (pfn = start; pfn < end;) {
		u64 block_end;

		if (!block_containing(z, pfn, &head, &order)) {
			pfn++;
			continue;
		}
		block_end = head + (1ULL << order);
		unlink_free(z, block_at(z, head));
		set_state(z, head, 1ULL << order, BUDDY_RESERVED);
		z->nr_free -= 1ULL << order;
		z->nr_managed -= 1ULL << order;
		if (head < start)
			free_reserved_run(z, head, start);
		if (block_end > end)
			free_reserved_run(z, end, block_end);
		pfn = block_end;
	}
	return 0;
}

int buddy_alloc(struct buddy_zone *z, unsigned int order, u64 *pfn_out)
{
	struct buddy_block *b;
	unsigned int k;
	u64 pfn;

	if (order > BUDDY_MAX_ORDER)
		return -EINVAL;
	/* The lowest of the lists' first blocks, of any order big enough
	 * (address-ordered first fit, while the lists keep the order
	 * buddy_sort_free_lists() gave them): a small block left at the top
	 * of memory is not taken before a big one below it. */
	b = NULL;
	unsigned int bk = 0;

	for (k = order; k <= BUDDY_MAX_ORDER; k++) {
		if (list_empty(&z->free_list[k]))
			continue;
		struct buddy_block *h =
			list_first_entry(&z->free_list[k], struct buddy_block, link);

		if (!b || h < b) {
			b = h;
			bk = k;
		}
	}
	if (!b)
		return -ENOMEM;
	k = bk;
	unlink_free(z, b);
	pfn = buddy_pfn_of(z, b);
	/* Split: keep the lower half, free the upper half, repeat. */
	while (k > order) {
		k--;
		push_free(z, pfn + (1ULL << k), k);
	}
	b->state = BUDDY_ALLOCATED;
	b->order = (u8)order;
	z->nr_free -= 1ULL << order;
	*pfn_out = pfn;
	return 0;
}

int buddy_free(struct buddy_zone *z, u64 pfn, unsigned int *order_out)
{
	struct buddy_block *b = buddy_block_of(z, pfn);
	unsigned int order;

	if (!b || b->state != BUDDY_ALLOCATED)
		return -EINVAL;
	order = b->order;
	clear_owner_fields(z, pfn, order);
	insert_free(z, pfn, order);
	if (order_out)
		*order_out = order;
	return 0;
}

bool buddy_contains(const struct buddy_zone *z, u64 pfn)
{
	return pfn >= z->base_pfn && pfn - z->base_pfn < z->npages;
}

struct buddy_block *buddy_block_of(struct buddy_zone *z, u64 pfn)
{
	return buddy_contains(z, pfn) ? block_at(z, pfn) : NULL;
}

u64 buddy_pfn_of(const struct buddy_zone *z, const struct buddy_block *b)
{
	return z->base_pfn + (u64)(b - z->blocks);
}

int buddy_alloc_order_of(struct buddy_zone *z, u64 pfn)
{
	struct buddy_block *b = buddy_block_of(z, pfn);

	if (!b || b->state != BUDDY_ALLOCATED)
		return -EINVAL;
	return b->order;
}

u64 buddy_nr_free_pages(const struct buddy_zone *z)
{
	return z->nr_free;
}

u64 buddy_nr_managed_pages(const struct buddy_zone *z)
{
	return z->nr_managed;
}

u64 buddy_nr_free_blocks(const struct buddy_zone *z, unsigned int order)
{
	return order <= BUDDY_MAX_ORDER ? z->nr_free_blocks[order] : 0;
}

/* Is node one of this zone's block links? (Without out-of-bounds math.) */
static bool is_block_link(const struct buddy_zone *z, const struct list_head *node)
{
	uintptr_t first = (uintptr_t)&z->blocks[0].link;
	uintptr_t addr = (uintptr_t)node;

	if (addr < first)
		return false;
	return (addr - first) % sizeof(struct buddy_block) == 0 &&
	       (addr - first) / sizeof(struct buddy_block) < z->npages;
}

static int check_free_list(const struct buddy_zone *z, unsigned int order, u64 expected_blocks)
{
	const struct list_head *head = &z->free_list[order];
	const struct list_head *prev = head, *node;
	u64 count = 0;

	for (node = head->next; node != head; prev = node, node = node->next) {
		const struct buddy_block *b;

		/* A cycle that misses the head would count forever. */
		if (++count > z->npages || !is_block_link(z, node) || node->prev != prev)
			return -EINVAL;
		b = list_entry(node, struct buddy_block, link);
		if (b->state != BUDDY_FREE || b->order != order)
			return -EINVAL;
	}
	if (head->prev != prev)
		return -EINVAL;
	if (count != z->nr_free_blocks[order] || count != expected_blocks)
		return -EINVAL;
	return 0;
}

int buddy_check(const struct buddy_zone *z)
{
	u64 free_heads[BUDDY_NR_ORDERS] = { 0 };
	u64 free_pages = 0, managed = 0;
	unsigned int order;
	u64 pfn, i;

	for (pfn = z->base_pfn; pfn < zone_end(z);) {
		const struct buddy_block *b = block_at(z, pfn);
		u64 pages;

		if (b->state == BUDDY_RESERVED) {
			pfn++;
			continue;
		}
		if (!is_head(b) || b->order > BUDDY_MAX_ORDER)
			return -EINVAL; /* orphan TAIL or bad state */
		order = b->order;
		pages = 1ULL << order;
		if ((pfn & (pages - 1)) || !block_fits(z, pfn, order))
			return -EINVAL;
		for (i = 1; i < pages; i++) {
			if (block_at(z, pfn + i)->state != BUDDY_TAIL)
				return -EINVAL;
		}
		if (b->state == BUDDY_FREE) {
			u64 buddy = pfn ^ pages;

			if (order < BUDDY_MAX_ORDER && block_fits(z, buddy, order) &&
			    block_at(z, buddy)->state == BUDDY_FREE &&
			    block_at(z, buddy)->order == order)
				return -EINVAL; /* missed merge */
			free_heads[order]++;
			free_pages += pages;
		}
		managed += pages;
		pfn += pages;
	}

	for (order = 0; order <= BUDDY_MAX_ORDER; order++) {
		if (check_free_list(z, order, free_heads[order]))
			return -EINVAL;
	}
	if (free_pages != z->nr_free || managed != z->nr_managed)
		return -EINVAL;
	return 0;
}
