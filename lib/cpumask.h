/* lib/cpumask.h - sets of CPU numbers, built on lib/bitmap.h.
 *
 * A struct cpumask (also cpumask_t) holds one bit per CPU number
 * 0..NR_CPUS-1. CPU numbers are the kernel's logical numbers, not APIC ids.
 * Every operation here is a plain, NON-ATOMIC read-modify-write of the
 * whole mask or of one word: callers serialise access themselves. The
 * kernel's global masks (possible, online, ...) are wrapped by the kernel
 * with its own locking; nothing in this file knows about them.
 *
 * Single CPUs (cpu must be < NR_CPUS, except that cpumask_test_cpu answers
 * false for any cpu >= NR_CPUS, so the NR_CPUS "none" result of the
 * searches below can be tested directly):
 *   cpumask_set_cpu, cpumask_clear_cpu, cpumask_test_cpu;
 *   cpumask_of(cpu) - a read-only mask holding cpu alone (as in Linux)
 * Whole masks (argument order follows Linux: destination first):
 *   cpumask_clear, cpumask_setall, cpumask_copy, cpumask_and and
 *   cpumask_andnot (return "result is non-empty"), cpumask_or,
 *   cpumask_equal, cpumask_empty, cpumask_weight, cpumask_subset
 *   (a within b), cpumask_intersects
 * Search (every one returns NR_CPUS when nothing is found):
 *   cpumask_first; cpumask_next(cpu, m) - first set after cpu (cpu may be
 *   -1, meaning "from the start"); cpumask_next_and(cpu, a, b) - the same
 *   in a & b; cpumask_next_wrap(cpu, m) - first set after cpu, wrapping
 *   around to 0 and ending at cpu itself, so it returns cpu when cpu is the
 *   only member; cpumask_any_but(m, cpu) - some member other than cpu;
 *   cpumask_nth(n, m) - the n-th member counting from 0.
 *   for_each_cpu(cpu, m), for_each_cpu_and(cpu, a, b) - ascending order;
 *   the masks may change during the walk (the walk sees bits above cpu as
 *   they are when it gets there).
 * Text: cpumask_parselist ("0-3,5" -> mask; -EINVAL syntax, -ERANGE a CPU
 *   >= NR_CPUS; the mask is untouched on error) and cpumask_print_list (the
 *   same format; scnprintf-like return), both from lib/bitmap.c.
 */
#ifndef LIB_CPUMASK_H
#define LIB_CPUMASK_H

#include "bitmap.h"
#include "compiler.h"
#include "types.h"

#define NR_CPUS 256

struct cpumask {
	DECLARE_BITMAP(bits, NR_CPUS);
};
typedef struct cpumask cpumask_t;

#define cpumask_bits(maskp) ((maskp)->bits)

static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m)
{
	__set_bit(cpu, m->bits);
}

static inline void cpumask_clear_cpu(unsigned int cpu, struct cpumask *m)
{
	__clear_bit(cpu, m->bits);
}

static inline bool cpumask_test_cpu(unsigned int cpu, const struct cpumask *m)
{
	return cpu < NR_CPUS && test_bit(cpu, m->bits);
}

/* The one-CPU masks cpumask_of() hands out (lib/bitmap.c). */
extern const struct cpumask cpu_single_masks[NR_CPUS];

static inline const struct cpumask *cpumask_of(unsigned int cpu)
{
	return &cpu_single_masks[cpu];
}

static inline void cpumask_clear(struct cpumask *m)
{
	bitmap_zero(m->bits, NR_CPUS);
}

static inline void cpumask_setall(struct cpumask *m)
{
	bitmap_fill(m->bits, NR_CPUS);
}

static inline void cpumask_copy(struct cpumask *dst, const struct cpumask *src)
{
	bitmap_copy(dst->bits, src->bits, NR_CPUS);
}

static inline bool cpumask_and(struct cpumask *dst, const struct cpumask *a,
			       const struct cpumask *b)
{
	return bitmap_and(dst->bits, a->bits, b->bits, NR_CPUS);
}

static inline void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	bitmap_or(dst->bits, a->bits, b->bits, NR_CPUS);
}

/* dst = a & ~b */
static inline bool cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
				  const struct cpumask *b)
{
	return bitmap_andnot(dst->bits, a->bits, b->bits, NR_CPUS);
}

static inline bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	return bitmap_equal(a->bits, b->bits, NR_CPUS);
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	return bitmap_empty(m->bits, NR_CPUS);
}

static inline unsigned int cpumask_weight(const struct cpumask *m)
{
	return bitmap_weight(m->bits, NR_CPUS);
}

/* Is every member of a also in b? */
static inline bool cpumask_subset(const struct cpumask *a, const struct cpumask *b)
{
	return bitmap_subset(a->bits, b->bits, NR_CPUS);
}

static inline bool cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	return bitmap_intersects(a->bits, b->bits, NR_CPUS);
}

static inline unsigned int cpumask_first(const struct cpumask *m)
{
	return (unsigned int)find_first_bit(m->bits, NR_CPUS);
}

/*
 * cpu is an int so that -1 can start a walk, as in Linux; cpu + 1 is then
 * formed in int, which cannot overflow for any cpu this can be given.
 */
static inline unsigned int cpumask_next(int cpu, const struct cpumask *m)
{
	return (unsigned int)find_next_bit(m->bits, NR_CPUS, (unsigned long)(cpu + 1));
}

static inline unsigned int cpumask_next_and(int cpu, const struct cpumask *a,
					    const struct cpumask *b)
{
	unsigned int n;

	for (n = cpumask_next(cpu, a); n < NR_CPUS; n = cpumask_next((int)n, a)) {
		if (test_bit(n, b->bits))
			break;
	}
	return n;
}

/*
 * Round-robin helper: the search covers cpu+1..NR_CPUS-1 and then 0..cpu,
 * so cpu itself comes last and is returned only if it is the sole member.
 */
static inline unsigned int cpumask_next_wrap(int cpu, const struct cpumask *m)
{
	return (unsigned int)find_next_bit_wrap(m->bits, NR_CPUS, (unsigned long)(cpu + 1));
}

static inline unsigned int cpumask_any_but(const struct cpumask *m, unsigned int cpu)
{
	unsigned int n = cpumask_first(m);

	if (n == cpu)
		n = cpumask_next((int)n, m);
	return n;
}

static inline unsigned int cpumask_nth(unsigned int n, const struct cpumask *m)
{
	unsigned int cpu;

	for (cpu = cpumask_first(m); cpu < NR_CPUS; cpu = cpumask_next((int)cpu, m)) {
		if (n-- == 0)
			break;
	}
	return cpu;
}

#define for_each_cpu(cpu, mask)                                                                    \
	for ((cpu) = cpumask_first(mask); (cpu) < NR_CPUS; (cpu) = cpumask_next((int)(cpu), (mask)))

#define for_each_cpu_and(cpu, a, b)                                                                \
	for ((cpu) = cpumask_next_and(-1, (a), (b)); (cpu) < NR_CPUS;                              \
	     (cpu) = cpumask_next_and((int)(cpu), (a), (b)))

static inline int cpumask_parselist(const char *s, struct cpumask *m)
{
	return bitmap_parselist(s, m->bits, NR_CPUS);
}

static inline int cpumask_print_list(char *buf, size_t size, const struct cpumask *m)
{
	return bitmap_print_list(buf, size, m->bits, NR_CPUS);
}

#endif
