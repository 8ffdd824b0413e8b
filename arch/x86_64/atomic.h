/* arch/x86_64/atomic.h - atomic integers and memory barriers.
 *
 * The x86-64 memory model (Intel SDM vol. 3A, 9.2 "Memory Ordering"; the
 * "x86-TSO" model) is strong:
 *   - loads are not reordered with other loads, stores not with other
 *     stores, and stores not with earlier loads;
 *   - a store MAY be reordered with a LATER load from a different address
 *     (the store buffer): the only reordering the hardware does;
 *   - locked instructions (lock xadd, xchg, lock cmpxchg) are full barriers.
 * So:
 *   smp_mb()   a full barrier: needed only for store->load ordering
 *              (e.g. "set my flag, then read yours"); a locked op or mfence
 *   smp_rmb()  load->load: the hardware keeps it; only the compiler must
 *   smp_wmb()  store->store: likewise just a compiler barrier
 *   smp_store_release()/smp_load_acquire(): plain moves plus compiler
 *              barriers on x86, written out so the intent is visible
 * The atomic_* read-modify-write operations are locked instructions and
 * so imply smp_mb(). atomic_read/atomic_set are single untorn accesses
 * with no ordering.
 */
#ifndef ARCH_ATOMIC_H
#define ARCH_ATOMIC_H

#include "lib/compiler.h"

#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST) /* lock; or / mfence */
#define smp_rmb()		barrier()
#define smp_wmb()		barrier()
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_INIT(v)                                                                             \
	{                                                                                          \
		(v)                                                                                \
	}

static inline int atomic_read(const atomic_t *a)
{
	return READ_ONCE(a->counter);
}
static inline void atomic_set(atomic_t *a, int v)
{
	WRITE_ONCE(a->counter, v);
}
static inline void atomic_add(int v, atomic_t *a)
{
	__atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}
static inline void atomic_sub(int v, atomic_t *a)
{
	__atomic_sub_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}
static inline void atomic_inc(atomic_t *a)
{
	atomic_add(1, a);
}
static inline void atomic_dec(atomic_t *a)
{
	atomic_sub(1, a);
}
static inline int atomic_add_return(int v, atomic_t *a)
{
	return __atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}
static inline int atomic_inc_return(atomic_t *a)
{
	return atomic_add_return(1, a);
}
static inline int atomic_dec_return(atomic_t *a)
{
	return atomic_add_return(-1, a);
}
static inline bool atomic_dec_and_test(atomic_t *a)
{
	return atomic_dec_return(a) == 0;
}
static inline int atomic_xchg(atomic_t *a, int v)
{
	return __atomic_exchange_n(&a->counter, v, __ATOMIC_SEQ_CST);
}
/* Returns the old value; the swap happened iff it equals old. */
static inline int atomic_cmpxchg(atomic_t *a, int old, int new)
{
	__atomic_compare_exchange_n(&a->counter, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

/* Raises *a to v if v is larger; returns the value it replaced or kept. */
static inline int atomic_max(atomic_t *a, int v)
{
	int old = atomic_read(a);

	while (old < v && !__atomic_compare_exchange_n(&a->counter, &old, v, false,
						       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	return old;
}

static inline long atomic_long_read(const atomic_long_t *a)
{
	return READ_ONCE(a->counter);
}
static inline void atomic_long_set(atomic_long_t *a, long v)
{
	WRITE_ONCE(a->counter, v);
}
static inline long atomic_long_add_return(long v, atomic_long_t *a)
{
	return __atomic_add_fetch(&a->counter, v, __ATOMIC_SEQ_CST);
}
static inline void atomic_long_inc(atomic_long_t *a)
{
	atomic_long_add_return(1, a);
}

/* Atomic bit operations on bitmaps shared between CPUs. */
static inline void set_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_or_fetch(&addr[nr / 64], 1UL << (nr % 64), __ATOMIC_SEQ_CST);
}
static inline void clear_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_and_fetch(&addr[nr / 64], ~(1UL << (nr % 64)), __ATOMIC_SEQ_CST);
}
static inline bool test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	return __atomic_fetch_or(&addr[nr / 64], 1UL << (nr % 64), __ATOMIC_SEQ_CST) &
	       (1UL << (nr % 64));
}
static inline bool test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	return __atomic_fetch_and(&addr[nr / 64], ~(1UL << (nr % 64)), __ATOMIC_SEQ_CST) &
	       (1UL << (nr % 64));
}

#endif
