/* arch/x86_64/paging.h - the kernel's address space.
 *
 * Virtual layout (4-level paging, one address space shared by all CPUs):
 *   0xFFFF800000000000  PHYS_OFFSET: direct map of all RAM (NX)
 *   0xFFFFC90000000000  KSTACK_BASE: kernel stacks, each with a guard
 *                       (kernel/mm/kstack.c)
 *   0xFFFFD00000000000  IOREMAP_BASE: ioremap()/memremap() windows
 *   0xFFFFFFFF80000000  KERNEL_VMA: the image: text RX, rodata R, data RW NX
 * Nothing is mapped at low addresses once paging_init() has run, so a NULL
 * dereference faults.
 *
 * Interface:
 *   phys_to_virt(pa) / virt_to_phys(va)  direct map and kernel image
 *   paging_init()           build and load the kernel page tables
 *   map_kernel_page(), unmap_kernel_page()  4 KiB mappings (may allocate
 *                           page-table pages; may be called with interrupts
 *                           off; takes kernel_pgtable_lock)
 *   ioremap()   MMIO, uncached     memremap()  firmware tables, cached
 *   kernel_page_mapped(va)  is va mapped? (for fault reports and tests)
 */
#ifndef ARCH_PAGING_H
#define ARCH_PAGING_H

#include "arch/x86_64/boot_defs.h"
#include "lib/types.h"

#define PTE_PRESENT   (1ULL << 0)
#define PTE_WRITE     (1ULL << 1)
#define PTE_PWT	      (1ULL << 3)
#define PTE_PCD	      (1ULL << 4)
#define PTE_LARGE     (1ULL << 7) /* 2 MiB page in a page directory */
#define PTE_NX	      (1ULL << 63)
#define PTE_ADDR_MASK 0x000FFFFFFFFFF000ULL

#define PAGE_KERNEL_RO (PTE_PRESENT | PTE_NX)
#define PAGE_KERNEL_RX (PTE_PRESENT)
#define PAGE_KERNEL_RW (PTE_PRESENT | PTE_WRITE | PTE_NX)
#define PAGE_KERNEL_IO (PTE_PRESENT | PTE_WRITE | PTE_NX | PTE_PCD | PTE_PWT)

#define KSTACK_BASE  0xFFFFC90000000000ULL
#define IOREMAP_BASE 0xFFFFD00000000000ULL
#define IOREMAP_SIZE (1ULL << 40)

/* Zero one page: rep stosq, 512 stores (under QEMU's -icount, 512
 * instructions, where a loop of word stores counts three for each). */
static inline void clear_page(void *page)
{
	unsigned long n = PAGE_SIZE / 8;

	__asm__ volatile("rep stosq" : "+D"(page), "+c"(n) : "a"(0UL) : "memory");
}

static inline void *phys_to_virt(phys_addr_t pa)
{
	return (void *)(pa + PHYS_OFFSET);
}
phys_addr_t virt_to_phys(const void *va);

void paging_init(void);
/* Does this CPU honour PTE_NX? (Without NX, data stays executable.) */
bool cpu_has_nx(void);
int map_kernel_page(u64 va, phys_addr_t pa, u64 flags);
void unmap_kernel_page(u64 va);
bool kernel_page_mapped(u64 va);
/* The leaf page-table entry mapping va (flags included), 0 if unmapped;
 * *page_size (may be NULL) gets 4 KiB or 2 MiB. */
u64 kernel_pte(u64 va, u64 *page_size);
/* The physical address va is mapped to, found by walking the tables; 0 if none. */
phys_addr_t virt_to_phys_mapped(u64 va);
void *ioremap(phys_addr_t pa, size_t size);
void *memremap(phys_addr_t pa, size_t size);
void iounmap(void *va, size_t size);

#endif
