/* kernel/mm/kmalloc.h - the kernel heap.
 *
 * kmalloc(size) returns 16-byte aligned memory from size classes of 16 to
 * 2048 bytes (slabs of pages); larger requests get whole pages (page
 * aligned). Any context; never sleeps; returns NULL when out of memory.
 *
 * Debug checks, always on (this is a teaching kernel; the cost is a 32-byte
 * header and a 16-byte red zone per object, and a fill on alloc and free):
 *   - double free, and kfree() of a pointer kmalloc never returned
 *   - writes past the requested size (checked at kfree: the red zone and
 *     the slack of the size class are filled with 0xcc)
 *   - writes to freed memory (freed objects are filled with 0x6b and
 *     checked when handed out again)
 * Each is reported once per object with the object, its size, where it was
 * allocated (and freed) and a backtrace, counted in kmalloc_errors, and
 * the bad free is ignored: the heap is never silently corrupted further.
 * The report's first line is report_bug()'s, "BUG: kmalloc: ...", so it
 * fails a test boot unless the test declared it (ktest_expect_bugs(t, "kmalloc", n)).
 */
#ifndef KERNEL_MM_KMALLOC_H
#define KERNEL_MM_KMALLOC_H

#include "lib/types.h"

#define KMALLOC_MAX_CACHE_SIZE 2048

void kmalloc_init(void);
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void *kcalloc(size_t n, size_t size); /* zeroed; NULL if n * size overflows */
void kfree(const void *p);
/* Usable size of an allocation: what was asked for. */
size_t ksize(const void *p);

struct kmalloc_stats {
	u64 allocs, frees; /* since boot */
	u64 bytes_in_use;  /* requested bytes now allocated */
	u64 slab_pages;	   /* pages held by slabs */
	u64 large_allocs;  /* live allocations above KMALLOC_MAX_CACHE_SIZE */
};
void kmalloc_get_stats(struct kmalloc_stats *st);
extern unsigned long kmalloc_errors; /* debug reports so far */

#endif
