/* kernel/mm/pmm.h - the physical page allocator.
 *
 * Two stages, as in Linux (memblock, then the buddy allocator):
 *  1. pmm_early_init() takes the Multiboot2 memory map: available RAM minus
 *     the kernel image, boot modules and the first MiB (the loader's
 *     information structure was copied out before: kernel/bootinfo.h).
 *     Until pmm_init(), pmm_alloc_pages() hands out pages by bumping
 *     through that free memory (below 4 GiB, which the boot page tables
 *     map). paging_init() builds the page tables this way.
 *  2. pmm_init() gives every available range a buddy zone (lib/buddy.c)
 *     whose metadata is itself allocated early, then releases into the
 *     zones all free memory not handed out by stage 1. From then on pages
 *     come from the zones, above 4 GiB too.
 *
 * Interface (any context; never sleeps; pmm_lock inside):
 *   pmm_alloc_pages(order)  2^order contiguous, naturally aligned pages;
 *                           returns the physical address, 0 when out of memory
 *   pmm_free_pages(pa)      the order is remembered; a double free or a
 *                           free of memory never allocated is reported
 *                           (a WARN with the address) and ignored
 *   page_alloc(order) / page_free(va)  the same through the direct map
 *   pmm_page_priv(pa) / pmm_set_page_priv(pa, p)  a pointer per page for
 *                           the page's owner (kmalloc keeps its slab there)
 */
#ifndef KERNEL_MM_PMM_H
#define KERNEL_MM_PMM_H

#include "lib/types.h"

struct pmm_stats {
	u64 total_pages; /* managed by the zones */
	u64 free_pages;
	unsigned int nr_zones;
	u64 early_pages; /* handed out before pmm_init */
};

void pmm_early_init(void);
void pmm_init(void);
phys_addr_t pmm_alloc_pages(unsigned int order);
/* Returns 0, or -EINVAL when pa is not an allocated block's head. */
int pmm_free_pages(phys_addr_t pa);
void *page_alloc(unsigned int order);
void page_free(void *va);
void *pmm_page_priv(phys_addr_t pa);
void pmm_set_page_priv(phys_addr_t pa, void *priv);
void pmm_get_stats(struct pmm_stats *st);
/* Is pa the head of a block allocated from the zones? */
bool pmm_is_allocated(phys_addr_t pa);

#endif
