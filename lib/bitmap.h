/* lib/bitmap.h - bit arrays stored in unsigned long words.
 *
 * Bit n lives in word n / BITS_PER_LONG at position n % BITS_PER_LONG. A
 * bitmap of nbits bits occupies BITS_TO_LONGS(nbits) words; bits at and past
 * nbits in the last word are ignored by every whole-bitmap operation, and the
 * operations that write a whole bitmap leave them in an unspecified state
 * (bitmap_zero/bitmap_fill clear them).
 *
 * Single bits (non-atomic; the arch provides atomic ones):
 *   __set_bit, __clear_bit, test_bit, __test_and_set_bit,
 *   __test_and_clear_bit
 * Whole bitmaps: bitmap_zero, bitmap_fill, bitmap_copy, bitmap_set,
 *   bitmap_clear (ranges), bitmap_and/bitmap_andnot (return "result is
 *   non-empty"), bitmap_or, bitmap_equal, bitmap_empty, bitmap_full,
 *   bitmap_weight, bitmap_intersects, bitmap_subset (src1 within src2)
 * Search (return size when nothing is found):
 *   find_first_bit, find_next_bit, find_first_zero_bit, find_next_zero_bit,
 *   find_next_bit_wrap (from offset to the end, then from 0 to offset)
 *   for_each_set_bit(bit, addr, size), for_each_clear_bit(...)
 * Every word read from a source bitmap is read once and whole (a relaxed
 * atomic load, a marked access like READ_ONCE):
 * the run-time CPU masks are read without a lock while atomic bit
 * operations change them (kernel/cpu_masks.h), a marked access for the data-race
 * detector (docs/sanitizers.md). The words written are plain.
 * Text: bitmap_parselist("0-3,5\n" -> bits; -EINVAL syntax, -ERANGE bit out
 *   of range; dst untouched on error) and bitmap_print_list (the same
 *   format, scnprintf-like return).
 */
#ifndef LIB_BITMAP_H
#define LIB_BITMAP_H

#include "compiler.h"
#include "types.h"

#define BITS_PER_LONG		   64
#define BITS_TO_LONGS(nbits)	   DIV_ROUND_UP((nbits), BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))

/* Mask of the valid bits in the last word of an nbits-bit bitmap. */
#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (__atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) & BIT_MASK(nr)) != 0;
}

static inline bool __test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__set_bit(nr, addr);
	return old;
}

static inline bool __test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__clear_bit(nr, addr);
	return old;
}

void bitmap_zero(unsigned long *dst, unsigned int nbits);
void bitmap_fill(unsigned long *dst, unsigned int nbits);
void bitmap_copy(unsigned long *dst, const unsigned long *src, unsigned int nbits);
void bitmap_set(unsigned long *map, unsigned int start, unsigned int len);
void bitmap_clear(unsigned long *map, unsigned int start, unsigned int len);
bool bitmap_and(unsigned long *dst, const unsigned long *src1, const unsigned long *src2,
		unsigned int nbits);
void bitmap_or(unsigned long *dst, const unsigned long *src1, const unsigned long *src2,
	       unsigned int nbits);
bool bitmap_andnot(unsigned long *dst, const unsigned long *src1, const unsigned long *src2,
		   unsigned int nbits);
bool bitmap_equal(const unsigned long *src1, const unsigned long *src2, unsigned int nbits);
bool bitmap_empty(const unsigned long *src, unsigned int nbits);
bool bitmap_full(const unsigned long *src, unsigned int nbits);
unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits);
bool bitmap_intersects(const unsigned long *src1, const unsigned long *src2, unsigned int nbits);
bool bitmap_subset(const unsigned long *src1, const unsigned long *src2, unsigned int nbits);

unsigned long find_next_bit(const unsigned long *addr, unsigned long size, unsigned long offset);
unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
				 unsigned long offset);
unsigned long find_next_bit_wrap(const unsigned long *addr, unsigned long size,
				 unsigned long offset);

static inline unsigned long find_first_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

static inline unsigned long find_first_zero_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_zero_bit(addr, size, 0);
}

#define for_each_set_bit(bit, addr, size)                                                          \
	for ((bit) = find_first_bit((addr), (size)); (bit) < (size);                               \
	     (bit) = find_next_bit((addr), (size), (bit) + 1))

#define for_each_clear_bit(bit, addr, size)                                                        \
	for ((bit) = find_first_zero_bit((addr), (size)); (bit) < (size);                          \
	     (bit) = find_next_zero_bit((addr), (size), (bit) + 1))

int bitmap_parselist(const char *s, unsigned long *dst, unsigned int nbits);
int bitmap_print_list(char *buf, size_t size, const unsigned long *src, unsigned int nbits);

#endif
