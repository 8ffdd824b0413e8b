/* lib/random.h - small, fast, seedable pseudo-random generator.
 *
 * xoroshiro128++ seeded through splitmix64. Deterministic for a given seed
 * (so failing tests and torture runs can be replayed); NOT cryptographic.
 *
 * prng_seed():  any seed, including 0, gives a valid generator.
 * prng_u64()/prng_u32(): next 64/32 random bits.
 * prng_below(): uniform in [0, bound), without modulo bias; bound > 0.
 * prng_fill():  len random bytes into buf.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include "types.h"

struct prng {
	u64 s[2];
};

void prng_seed(struct prng *r, u64 seed);
u64 prng_u64(struct prng *r);
u32 prng_u32(struct prng *r);
u32 prng_below(struct prng *r, u32 bound);
void prng_fill(struct prng *r, void *buf, size_t len);

#endif
