/* lib/random.c - xoroshiro128++ (Blackman & Vigna) with splitmix64 seeding.
 *
 * See random.h. splitmix64 is a bijection on its counter, so two
 * consecutive outputs are never both zero and the xoroshiro state (which
 * must not be all-zero) is valid for every seed.
 */
#include "random.h"

static u64 splitmix64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rotl(u64 x, unsigned int k)
{
	return (x << k) | (x >> (64 - k));
}

void prng_seed(struct prng *r, u64 seed)
{
	r->s[0] = splitmix64(&seed);
	r->s[1] = splitmix64(&seed);
}

u64 prng_u64(struct prng *r)
{
	u64 s0 = r->s[0], s1 = r->s[1];
	u64 result = rotl(s0 + s1, 17) + s0;

	s1 ^= s0;
	r->s[0] = rotl(s0, 49) ^ s1 ^ (s1 << 21);
	r->s[1] = rotl(s1, 28);
	return result;
}

u32 prng_u32(struct prng *r)
{
	/* The high bits are the best-mixed ones. */
	return (u32)(prng_u64(r) >> 32);
}

/*
 * Lemire's multiply-shift: the high half of x * bound is in [0, bound).
 * Low halves below 2^32 mod bound map unevenly, so those draws are retried.
 */
u32 prng_below(struct prng *r, u32 bound)
{
	u64 m;
	u32 low;

	if (bound == 0) /* caller bug; avoid the division trap */
		return 0;
	m = (u64)prng_u32(r) * bound;
	low = (u32)m;
	if (low < bound) {
		u32 threshold = (0U - bound) % bound;

		while (low < threshold) {
			m = (u64)prng_u32(r) * bound;
			low = (u32)m;
		}
	}
	return (u32)(m >> 32);
}

void prng_fill(struct prng *r, void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		u64 bits = prng_u64(r);
		size_t i;

		for (i = 0; i < sizeof(bits) && len; i++, len--) {
			*p++ = (u8)bits;
			bits >>= 8;
		}
	}
}
