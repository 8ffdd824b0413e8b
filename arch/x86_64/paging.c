/* arch/x86_64/paging.c - kernel page tables; see paging.h.
 * Page-table format: Intel SDM vol. 3A, 4.5 (4-level paging). */
#define pr_fmt(fmt) "paging: " fmt
#include "arch/x86_64/paging.h"
#include "arch/x86_64/cpu.h"
#include "kernel/bootinfo.h"
#include "kernel/mm/pmm.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/string.h"

#define LARGE_PAGE_SIZE (2ULL << 20)
#define PT_ENTRIES	512

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_end[], boot_stack_guard[];
extern u32 boot_cpu_has_nx;

static DEFINE_SPINLOCK(kernel_pgtable_lock);
static u64 *kernel_pml4;		/* kernel_pgtable_lock (for changes) */
static u64 ioremap_next = IOREMAP_BASE; /* kernel_pgtable_lock */
static u64 nx_mask;			/* I: PTE_NX if the CPU has NX, else 0 */

phys_addr_t virt_to_phys(const void *va)
{
	u64 a = (u64)va;

	if (a >= KERNEL_VMA)
		return a - KERNEL_VMA;
	if (a >= PHYS_OFFSET && a < KSTACK_BASE)
		return a - PHYS_OFFSET;
	panic("virt_to_phys(%p): not a direct-map or kernel-image address", va);
}

static unsigned int pt_index(u64 va, int level)
{
	return (va >> (12 + 9 * (level - 1))) & 0x1FF;
}

/* The entry for va at level (1 = PT, 2 = PD); allocates missing tables when
 * create is set. Called with kernel_pgtable_lock held (or at boot). */
static u64 *pte_walk(u64 va, int level, bool create)
{
	u64 *table = kernel_pml4;

	for (int l = 4; l > level; l--) {
		u64 *e = &table[pt_index(va, l)];

		if (!(*e & PTE_PRESENT)) {
			if (!create)
				return NULL;
			phys_addr_t pa = pmm_alloc_pages(0);

			if (!pa)
				return NULL;
			memset(phys_to_virt(pa), 0, PAGE_SIZE);
			*e = pa | PTE_PRESENT | PTE_WRITE;
		} else if (*e & PTE_LARGE) {
			return NULL; /* va is inside a large page */
		}
		table = phys_to_virt(*e & PTE_ADDR_MASK);
	}
	return &table[pt_index(va, level)];
}

/* Map [va, va+size) to [pa, pa+size): 2 MiB pages where both are aligned. */
static void map_range(u64 va, phys_addr_t pa, u64 size, u64 flags)
{
	flags &= ~PTE_NX | nx_mask;
	while (size) {
		bool large = IS_ALIGNED(va, LARGE_PAGE_SIZE) && IS_ALIGNED(pa, LARGE_PAGE_SIZE) &&
			     size >= LARGE_PAGE_SIZE;
		u64 *e = pte_walk(va, large ? 2 : 1, true);

		if (!e)
			panic("out of memory for page tables mapping %lx", (unsigned long)va);
		*e = pa | flags | (large ? PTE_LARGE : 0);
		u64 step = large ? LARGE_PAGE_SIZE : PAGE_SIZE;

		va += step;
		pa += step;
		size -= step;
	}
}

static void map_image_part(char *start, char *end, u64 flags)
{
	map_range((u64)start, virt_to_phys(start), (u64)(end - start), flags);
}

void paging_init(void)
{
	nx_mask = boot_cpu_has_nx ? PTE_NX : 0;
	phys_addr_t root = pmm_alloc_pages(0);

	if (!root)
		panic("no memory for the kernel page tables");
	kernel_pml4 = phys_to_virt(root);
	memset(kernel_pml4, 0, PAGE_SIZE);

	/* The direct map: the first MiB (BIOS data, AP trampoline) and RAM. */
	map_range(PHYS_OFFSET, 0, 0x100000, PAGE_KERNEL_RW);
	for (unsigned int i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];
		u64 start = ALIGN_UP(m->base, PAGE_SIZE),
		    end = ALIGN_DOWN(m->base + m->len, PAGE_SIZE);

		if (m->type != BOOT_MEM_AVAILABLE)
			continue;
		start = max(start, (u64)0x100000);
		if (end > start)
			map_range(PHYS_OFFSET + start, start, end - start, PAGE_KERNEL_RW);
	}

	/* The image, part by part; the boot stack's guard page stays unmapped. */
	map_image_part(__text_start, __text_end, PAGE_KERNEL_RX);
	map_image_part(__rodata_start, __rodata_end, PAGE_KERNEL_RO);
	map_image_part(__data_start, boot_stack_guard, PAGE_KERNEL_RW);
	map_image_part(boot_stack_guard + PAGE_SIZE, __bss_end, PAGE_KERNEL_RW);

	write_cr3(root);
	pr_info("kernel page tables loaded: text RX, rodata RO, data NX%s\n",
		nx_mask ? "" : " (no NX on this CPU: data is executable)");
}

int map_kernel_page(u64 va, phys_addr_t pa, u64 flags)
{
	unsigned long irq = spin_lock_irqsave(&kernel_pgtable_lock);
	u64 *e = pte_walk(va, 1, true);

	if (e)
		*e = pa | (flags & (~PTE_NX | nx_mask));
	spin_unlock_irqrestore(&kernel_pgtable_lock, irq);
	return e ? 0 : -1;
}

/* TLB: only this CPU's entry is flushed; callers on SMP must shoot down
 * other CPUs' entries (or never have let them use the mapping). */
void unmap_kernel_page(u64 va)
{
	unsigned long irq = spin_lock_irqsave(&kernel_pgtable_lock);
	u64 *e = pte_walk(va, 1, false);

	if (e)
		*e = 0;
	invlpg(va);
	spin_unlock_irqrestore(&kernel_pgtable_lock, irq);
}

u64 kernel_pte(u64 va, u64 *page_size)
{
	u64 *table = kernel_pml4;

	for (int l = 4; l >= 1; l--) {
		u64 e = READ_ONCE(table[pt_index(va, l)]);

		if (!(e & PTE_PRESENT))
			return 0;
		if (l == 1 || (l == 2 && (e & PTE_LARGE))) {
			if (page_size)
				*page_size = l == 1 ? PAGE_SIZE : LARGE_PAGE_SIZE;
			return e;
		}
		table = phys_to_virt(e & PTE_ADDR_MASK);
	}
	return 0;
}

phys_addr_t virt_to_phys_mapped(u64 va)
{
	u64 size;
	u64 e = kernel_pte(va, &size);

	if (!e)
		return 0;
	return (e & PTE_ADDR_MASK & ~(size - 1)) + (va & (size - 1));
}

bool cpu_has_nx(void)
{
	return nx_mask != 0;
}

bool kernel_page_mapped(u64 va)
{
	return kernel_pte(va, NULL) != 0;
}

static void *remap(phys_addr_t pa, size_t size, u64 flags)
{
	phys_addr_t first = ALIGN_DOWN(pa, PAGE_SIZE);
	u64 len = ALIGN_UP(pa + size, PAGE_SIZE) - first;
	unsigned long irq = spin_lock_irqsave(&kernel_pgtable_lock);
	u64 va = ioremap_next;

	if (va + len > IOREMAP_BASE + IOREMAP_SIZE) {
		spin_unlock_irqrestore(&kernel_pgtable_lock, irq);
		return NULL;
	}
	ioremap_next += len + PAGE_SIZE; /* a hole between windows */
	for (u64 off = 0; off < len; off += PAGE_SIZE) {
		u64 *e = pte_walk(va + off, 1, true);

		if (!e) {
			spin_unlock_irqrestore(&kernel_pgtable_lock, irq);
			return NULL;
		}
		*e = (first + off) | (flags & (~PTE_NX | nx_mask));
	}
	spin_unlock_irqrestore(&kernel_pgtable_lock, irq);
	return (void *)(va + (pa - first));
}

void *ioremap(phys_addr_t pa, size_t size)
{
	return remap(pa, size, PAGE_KERNEL_IO);
}
void *memremap(phys_addr_t pa, size_t size)
{
	return remap(pa, size, PAGE_KERNEL_RO);
}

void iounmap(void *va, size_t size)
{
	u64 first = ALIGN_DOWN((u64)va, PAGE_SIZE);
	u64 end = ALIGN_UP((u64)va + size, PAGE_SIZE);

	for (u64 a = first; a < end; a += PAGE_SIZE)
		unmap_kernel_page(a);
}
