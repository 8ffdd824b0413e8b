/* kernel/mm/pmm.c - physical pages; see pmm.h. */
#define pr_fmt(fmt) "pmm: " fmt
#include "kernel/mm/pmm.h"
#include "arch/x86_64/atomic.h"
#include "arch/x86_64/paging.h"
#include "kernel/bootinfo.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/bitmap.h"
#include "lib/buddy.h"
#include "lib/errno.h"
#include "lib/sort.h"
#include "lib/string.h"

#define MAX_RANGES	160
#define MAX_ZONES	64
#define LOW_MEMORY_END	0x100000ULL  /* BIOS, real-mode trampoline */
#define BOOT_MAPPED_END (4ULL << 30) /* what the boot page tables map */

struct range {
	u64 start, end; /* physical, end exclusive, page aligned */
};

/* Stage 1 state: written only on the boot CPU before SMP. */
static struct range avail[MAX_RANGES];
static unsigned int nr_avail;
static struct range reserved[MAX_RANGES];
static unsigned int nr_reserved;
static struct range early; /* the bump window; early.start moves up */
static u64 early_base;	   /* where the window started */
static u64 early_used_pages;

/* Stage 2 */
static DEFINE_SPINLOCK(pmm_lock);
static struct buddy_zone zones[MAX_ZONES]; /* pmm_lock (contents) */
static unsigned int nr_zones;		   /* I: set in pmm_init */
static bool zones_ready;		   /* I: set in pmm_init */

/*
 * Pages never handed out since boot, a bit per page of each zone (atomic
 * bit operations: the allocating CPU clears its block's bits, neighbours
 * share the words). Each is cleared the first time it is handed out: QEMU's
 * TCG, which runs baton for its users, keeps the code it translated from a
 * page until those very bytes are overwritten, and until then every write
 * to the page takes its slow path (the check for code to invalidate). The
 * firmware and the loader ran code in memory the map then gives baton as
 * free (GRUB runs its modules from its heap): a thread whose stack landed
 * on such a page took 7 us of host time for a spin_lock + spin_unlock that
 * takes 67 ns elsewhere. A page cleared whole has no code left; on
 * hardware the cost is one clear of each page used, once per boot.
 */
static unsigned long *never_used[MAX_ZONES]; /* I: the pointers; the bits atomic */

static void range_add(struct range *r, unsigned int *n, u64 start, u64 end)
{
	if (end <= start)
		return;
	if (*n == MAX_RANGES) {
		pr_warn("too many memory ranges; ignoring [%lx-%lx)\n", (unsigned long)start,
			(unsigned long)end);
		return;
	}
	r[(*n)++] = (struct range){ start, end };
}

static void reserve(u64 start, u64 end)
{
	range_add(reserved, &nr_reserved, ALIGN_DOWN(start, PAGE_SIZE), ALIGN_UP(end, PAGE_SIZE));
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first reserved range overlapping [start, end), or NULL. */
static const struct range *first_overlap(u64 start, u64 end)
{
	for (unsigned int i = 0; i < nr_reserved; i++)
		if (reserved[i].start < end && reserved[i].end > start)
			return &reserved[i];
	return NULL;
}

/* Call fn on each free piece of [start, end): minus every reserved range. */
static void for_each_free_piece(u64 start, u64 end, void (*fn)(u64 s, u64 e, void *arg), void *arg)
{
	while (start < end) {
		const struct range *r = first_overlap(start, end);

		if (!r) {
			fn(start, end, arg);
			return;
		}
		/* reserved[] is sorted, so r is the lowest overlap. */
		if (r->start > start)
			fn(start, r->start, arg);
		start = r->end;
	}
}

static void pick_early_window(u64 s, u64 e, void *arg)
{
	(void)arg;
	e = min(e, BOOT_MAPPED_END);
	if (e > s && e - s > early.end - early.start)
		early = (struct range){ s, e };
}

extern char __kernel_phys_start[], __kernel_phys_end[];

void pmm_early_init(void)
{
	for (unsigned int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];

		if (m->type == BOOT_MEM_AVAILABLE)
			range_add(avail, &nr_avail, ALIGN_UP(m->base, PAGE_SIZE),
				  ALIGN_DOWN(m->base + m->len, PAGE_SIZE));
	}
	if (!nr_avail)
		panic("the boot loader's memory map lists no available RAM");
	reserve(0, LOW_MEMORY_END);
	reserve((u64)__kernel_phys_start, (u64)__kernel_phys_end);
	for (unsigned int i = 0; i < boot_info.nr_modules; i++)
		reserve(boot_info.modules[i].start, boot_info.modules[i].end);
	sort(reserved, nr_reserved, sizeof(reserved[0]), range_cmp);
	sort(avail, nr_avail, sizeof(avail[0]), range_cmp);

	/* The early window: the largest free piece the boot tables map. */
	for (unsigned int i = 0; i < nr_avail; i++)
		for_each_free_piece(avail[i].start, avail[i].end, pick_early_window, NULL);
	if (early.end == early.start)
		panic("no free memory below 4 GiB for the early page allocator");
	early_base = early.start;
}

/* Bump allocation from the early window: size bytes aligned to align,
 * cleared, as every page is on its first use (never_used, above). */
static phys_addr_t early_alloc(u64 size, u64 align)
{
	u64 start = ALIGN_UP(early.start, align);

	size = ALIGN_UP(size, PAGE_SIZE);
	if (start + size > early.end)
		return 0;
	early.start = start + size;
	early_used_pages += size >> PAGE_SHIFT;
	memset(phys_to_virt(start), 0, size);
	return start;
}

/* The block of 2^order pages at pfn in zone i is the caller's: clear its
 * pages that were never handed out before. */
static void clear_first_use(unsigned int i, u64 pfn, unsigned int order)
{
	u64 first = pfn - zones[i].base_pfn;

	for (u64 k = first; k < first + (1ULL << order); k++)
		if (test_and_clear_bit(k, never_used[i]))
			clear_page(phys_to_virt((zones[i].base_pfn + k) << PAGE_SHIFT));
}

phys_addr_t pmm_alloc_pages(unsigned int order)
{
	if (!READ_ONCE(zones_ready))
		return early_alloc((u64)PAGE_SIZE << order, (u64)PAGE_SIZE << order);
	if (order > BUDDY_MAX_ORDER)
		return 0;
	unsigned long flags = spin_lock_irqsave(&pmm_lock);
	u64 pfn = 0;
	int err = -ENOMEM;
	unsigned int i;

	for (i = 0; i < nr_zones && err; i++)
		err = buddy_alloc(&zones[i], order, &pfn);
	spin_unlock_irqrestore(&pmm_lock, flags);
	if (err)
		return 0;
	clear_first_use(i - 1, pfn, order); /* outside the lock: up to 4 MiB */
	return pfn << PAGE_SHIFT;
}

static struct buddy_zone *zone_of(u64 pfn)
{
	for (unsigned int i = 0; i < nr_zones; i++)
		if (buddy_contains(&zones[i], pfn))
			return &zones[i];
	return NULL;
}

int pmm_free_pages(phys_addr_t pa)
{
	u64 pfn = pa >> PAGE_SHIFT;
	struct buddy_zone *z = zone_of(pfn);
	unsigned int order;
	int err = -EINVAL;

	if (z && IS_ALIGNED(pa, PAGE_SIZE)) {
		unsigned long flags = spin_lock_irqsave(&pmm_lock);

		err = buddy_free(z, pfn, &order);
		spin_unlock_irqrestore(&pmm_lock, flags);
	}
	WARN(err, "pmm_free_pages(%lx): not an allocated block (double free or bad address)",
	     (unsigned long)pa);
	return err;
}

bool pmm_is_allocated(phys_addr_t pa)
{
	struct buddy_zone *z = zone_of(pa >> PAGE_SHIFT);

	if (!z)
		return false;
	unsigned long flags = spin_lock_irqsave(&pmm_lock);
	bool r = buddy_alloc_order_of(z, pa >> PAGE_SHIFT) >= 0;

	spin_unlock_irqrestore(&pmm_lock, flags);
	return r;
}

void *page_alloc(unsigned int order)
{
	phys_addr_t pa = pmm_alloc_pages(order);

	return pa ? phys_to_virt(pa) : NULL;
}

void page_free(void *va)
{
	pmm_free_pages(virt_to_phys(va));
}

void *pmm_page_priv(phys_addr_t pa)
{
	struct buddy_zone *z = zone_of(pa >> PAGE_SHIFT);

	return z ? buddy_block_of(z, pa >> PAGE_SHIFT)->priv : NULL;
}

void pmm_set_page_priv(phys_addr_t pa, void *priv)
{
	struct buddy_zone *z = zone_of(pa >> PAGE_SHIFT);

	if (!WARN(!z, "pmm_set_page_priv(%lx): not managed memory", (unsigned long)pa))
		buddy_block_of(z, pa >> PAGE_SHIFT)->priv = priv;
}

static void release_piece(u64 s, u64 e, void *arg)
{
	struct buddy_zone *z = arg;

	buddy_release_range(z, s >> PAGE_SHIFT, (e - s) >> PAGE_SHIFT);
}

void pmm_init(void)
{
	/* Metadata comes from the early window too: carve it all first. */
	for (unsigned int i = 0; i < nr_avail && nr_zones < MAX_ZONES; i++) {
		u64 npages = (avail[i].end - avail[i].start) >> PAGE_SHIFT;
		phys_addr_t meta = early_alloc(buddy_meta_bytes(npages), 64);

		if (!meta) {
			pr_warn("no memory for the metadata of [%lx-%lx); leaving it unused\n",
				(unsigned long)avail[i].start, (unsigned long)avail[i].end);
			continue;
		}
		phys_addr_t bits = early_alloc(BITS_TO_LONGS(npages) * sizeof(long), 64);

		if (!bits) {
			pr_warn("no memory for the first-use bits of [%lx-%lx); leaving it "
				"unused\n",
				(unsigned long)avail[i].start, (unsigned long)avail[i].end);
			continue;
		}
		never_used[nr_zones] = phys_to_virt(bits);
		bitmap_fill(never_used[nr_zones], npages);
		buddy_init(&zones[nr_zones], phys_to_virt(meta), avail[i].start >> PAGE_SHIFT,
			   npages);
		nr_zones++;
	}
	/* Everything the early allocator handed out stays reserved. */
	reserve(early_base, early.start);
	sort(reserved, nr_reserved, sizeof(reserved[0]), range_cmp);
	for (unsigned int i = 0; i < nr_zones; i++) {
		u64 s = zones[i].base_pfn << PAGE_SHIFT;

		for_each_free_piece(s, s + (zones[i].npages << PAGE_SHIFT), release_piece,
				    &zones[i]);
		/* Low memory first. Under QEMU's TCG a page that the firmware
		 * or the loader ran code in keeps its translations until each
		 * of those bytes is overwritten, and every write to the page
		 * takes QEMU's slow path until then (its first-use clear too,
		 * at about 1 us a store). SeaBIOS and GRUB run theirs at the
		 * top of RAM; handed out first (the free lists are LIFO), those
		 * pages made each CPU's bring-up at -smp 64 cost 14 ms of wall
		 * clock, nearly all of it the clearing of its areas and stacks. */
		buddy_sort_free_lists(&zones[i]);
	}
	WRITE_ONCE(zones_ready, true);

	struct pmm_stats st;

	pmm_get_stats(&st);
	pr_info("%u zones, %lu MiB managed, %lu MiB free, %lu KiB used before the zones\n",
		st.nr_zones, (unsigned long)(st.total_pages >> 8),
		(unsigned long)(st.free_pages >> 8), (unsigned long)(st.early_pages * 4));
}

void pmm_get_stats(struct pmm_stats *st)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	*st = (struct pmm_stats){ .nr_zones = nr_zones, .early_pages = early_used_pages };
	for (unsigned int i = 0; i < nr_zones; i++) {
		st->total_pages += buddy_nr_managed_pages(&zones[i]);
		st->free_pages += buddy_nr_free_pages(&zones[i]);
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
}
