/* lib/buddy.h - buddy allocator logic for physical page frames.
 *
 * A struct buddy_zone hands out naturally aligned blocks of 2^order pages
 * (order 0..BUDDY_MAX_ORDER) from the pfn range [base_pfn, base_pfn +
 * npages). It knows nothing about hardware: the kernel says which frames
 * exist (buddy_release_range) and which must never be handed out
 * (buddy_reserve_range), and maps pfns to addresses itself.
 *
 * Alignment is absolute: a block of order k starts at a pfn that is a
 * multiple of 2^k, so its physical address is aligned to 2^k pages even
 * when the zone itself starts at an odd pfn (blocks near such edges are
 * just smaller).
 *
 * Metadata is one struct buddy_block per page, in a caller-provided array of
 * buddy_meta_bytes(npages) bytes. Every page is in one of four states:
 * RESERVED (not managed), the head of a FREE or ALLOCATED block (order says
 * its size), or a TAIL page of such a block.
 *
 * Owner fields: priv and flags belong to whoever allocated the block (the
 * slab allocator keeps its slab pointer in priv); link may be used by the
 * owner on the head page of an allocated block. The allocator guarantees
 * priv == NULL and flags == 0 on every page of a freshly allocated block
 * and clears them again on free.
 *
 * Errors: buddy_alloc -EINVAL (order too big) / -ENOMEM; buddy_free and
 * buddy_alloc_order_of -EINVAL unless pfn is the head of an allocated block
 * (so double and bad frees are detected and change nothing);
 * buddy_reserve_range -EBUSY if any page of the range is allocated (nothing
 * is changed then). Ranges passed to release/reserve are clipped to the
 * zone.
 *
 * Locking: none. The zone is plain data; the kernel wraps every call on a
 * zone in its own lock. The zone holds list heads pointing into itself, so
 * it must not be copied or moved after buddy_init().
 */
#ifndef LIB_BUDDY_H
#define LIB_BUDDY_H

#include "list.h"
#include "types.h"

#define BUDDY_MAX_ORDER 10 /* largest block: 1024 pages = 4 MiB */
#define BUDDY_NR_ORDERS (BUDDY_MAX_ORDER + 1)

enum buddy_state {
	BUDDY_RESERVED = 0, /* not managed: hole, firmware, kernel image */
	BUDDY_FREE,	    /* head of a free block, on free_list[order] */
	BUDDY_ALLOCATED,    /* head of an allocated block */
	BUDDY_TAIL,	    /* non-head page of a free or allocated block */
};

struct buddy_block {
	struct list_head link; /* free list link (owner's when allocated) */
	u8 order;	       /* block size, valid on FREE/ALLOCATED heads */
	u8 state;	       /* enum buddy_state */
	u16 flags;	       /* owner's */
	u32 reserved;	       /* spare, kept zero */
	void *priv;	       /* owner's */
};

struct buddy_zone {
	struct buddy_block *blocks; /* blocks[i] describes base_pfn + i */
	u64 base_pfn;
	u64 npages;
	u64 nr_free;	/* pages in free blocks */
	u64 nr_managed; /* pages not RESERVED */
	u64 nr_free_blocks[BUDDY_NR_ORDERS];
	struct list_head free_list[BUDDY_NR_ORDERS];
};

size_t buddy_meta_bytes(u64 npages);
void buddy_init(struct buddy_zone *z, struct buddy_block *blocks, u64 base_pfn, u64 npages);
void buddy_release_range(struct buddy_zone *z, u64 pfn, u64 count);
int buddy_reserve_range(struct buddy_zone *z, u64 pfn, u64 count);
/* Order each free list by address, lowest first. buddy_alloc() takes the
 * lowest first block of the lists big enough, so that low memory goes
 * first (frees go to the front of their list, and are taken again first). */
void buddy_sort_free_lists(struct buddy_zone *z);

int buddy_alloc(struct buddy_zone *z, unsigned int order, u64 *pfn_out);
int buddy_free(struct buddy_zone *z, u64 pfn, unsigned int *order_out);

bool buddy_contains(const struct buddy_zone *z, u64 pfn);
struct buddy_block *buddy_block_of(struct buddy_zone *z, u64 pfn);
u64 buddy_pfn_of(const struct buddy_zone *z, const struct buddy_block *b);
int buddy_alloc_order_of(struct buddy_zone *z, u64 pfn);

u64 buddy_nr_free_pages(const struct buddy_zone *z);
u64 buddy_nr_managed_pages(const struct buddy_zone *z);
u64 buddy_nr_free_blocks(const struct buddy_zone *z, unsigned int order);

int buddy_check(const struct buddy_zone *z);

#endif
