/* lib/sort.c - heapsort and binary search over arrays of any element size.
 *
 * Heapsort rather than quicksort: the kernel needs a bounded stack and a
 * guaranteed O(n log n), and has no allocator early in boot. See sort.h.
 */
#include "sort.h"

/* Elements can be of any type, so word access must be allowed to alias. */
typedef u64 __attribute__((may_alias)) alias_u64;

/* Swap two size-byte elements, a word at a time when alignment allows. */
static void swap_elements(char *a, char *b, size_t size)
{
	if (((uintptr_t)a | (uintptr_t)b | size) % sizeof(u64) == 0) {
		alias_u64 *x = (alias_u64 *)(void *)a;
		alias_u64 *y = (alias_u64 *)(void *)b;

		for (; size; size -= sizeof(u64), x++, y++) {
			u64 t = *x;

			*x = *y;
			*y = t;
		}
		return;
	}
	for (; size; size--, a++, b++) {
		char t = *a;

		*a = *b;
		*b = t;
	}
}

/*
 * Move the element at index root down the max-heap held in the first n
 * elements until both of its children are no larger than it.
 */
static void sift_down(char *base, size_t root, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap_elements(base + root * size, base + child * size, size);
		root = child;
	}
}

void sort(void *base, size_t num, size_t size, int (*cmp)(const void *a, const void *b))
{
	char *array = base;
	size_t i;

	if (num < 2 || size == 0)
		return;
	for (i = num / 2; i-- > 0;)
		sift_down(array, i, num, size, cmp);
	for (i = num - 1; i > 0; i--) {
		swap_elements(array, array + i * size, size);
		sift_down(array, 0, i, size, cmp);
	}
}

void *bsearch(const void *key, const void *base, size_t num, size_t size,
	      int (*cmp)(const void *key, const void *element))
{
	const char *lo = base;

	while (num) {
		const char *mid = lo + (num / 2) * size;
		int c = cmp(key, mid);

		if (c == 0)
			return (void *)mid;
		if (c > 0) {
			lo = mid + size;
			num -= num / 2 + 1;
		} else {
			num /= 2;
		}
	}
	return NULL;
}

int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}
