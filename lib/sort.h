/* lib/sort.h - in-place array sort and binary search.
 *
 * sort():    heapsort of num elements of size bytes at base, ordered by cmp
 *            (negative/zero/positive like qsort's). O(n log n) worst case,
 *            no recursion, no allocation, constant stack; not stable.
 * bsearch(): the C library's: finds an element equal to *key in an array
 *            sorted by cmp, which is called as cmp(key, element). Returns
 *            NULL when absent.
 * cmp_u64(): the comparator for arrays of u64, ascending.
 */
#ifndef LIB_SORT_H
#define LIB_SORT_H

#include "types.h"

void sort(void *base, size_t num, size_t size, int (*cmp)(const void *a, const void *b));
void *bsearch(const void *key, const void *base, size_t num, size_t size,
	      int (*cmp)(const void *key, const void *element));

int cmp_u64(const void *a, const void *b);

#endif
