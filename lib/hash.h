/* lib/hash.h - multiplicative (Fibonacci) hashing, for hash tables of
 * 2^bits buckets.
 *
 * hash_64(val, bits) multiplies val by 2^64 / phi (phi the golden ratio,
 * made odd) and keeps the top `bits` bits of the 64-bit product. The top
 * bits are the ones every bit of val reaches through the carries; the low
 * bits of a product depend only on the low bits of val, which in an address
 * are mostly alignment zeros. Keys in arithmetic progression (an array of
 * objects, aligned allocations) land in evenly spread buckets: multiples of
 * the golden ratio are the most evenly spaced modulo 1 (Knuth, The Art of
 * Computer Programming vol. 3, 6.4).
 *
 * Interface:
 *   hash_64(val, bits)  val's bucket in [0, 2^bits); 1 <= bits <= 32
 *   hash_ptr(p, bits)   the same for an address
 *   GOLDEN_RATIO_64     the multiplier
 *
 * One multiply and one shift (both constants when bits is): cheap enough for
 * a queueing path.
 */
#ifndef LIB_HASH_H
#define LIB_HASH_H

#include "types.h"

#define GOLDEN_RATIO_64 0x9e3779b97f4a7c15ull

static inline unsigned int hash_64(u64 val, unsigned int bits)
{
	return (unsigned int)((val * GOLDEN_RATIO_64) >> (64 - bits));
}

static inline unsigned int hash_ptr(const void *p, unsigned int bits)
{
	return hash_64((u64)(uintptr_t)p, bits);
}

#endif
