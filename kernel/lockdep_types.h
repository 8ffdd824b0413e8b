/* kernel/lockdep_types.h - the small parts of the lock validator that every
 * lock embeds (struct lockdep_map) and every thread and CPU carries (struct
 * lockdep_ctx). The validator itself is kernel/debug/lockdep.c, its hooks
 * kernel/lockdep.h.
 */
#ifndef KERNEL_LOCKDEP_TYPES_H
#define KERNEL_LOCKDEP_TYPES_H

#include "lib/types.h"

/* A lock class's identity is the address of a key (plus the subclass):
 * a static one per init site (spin_lock_init(), timer_setup() and friends
 * make one), one per workqueue, or, for a lock declared statically, the
 * lock itself. */
struct lock_class_key {
	char unused;
};

enum lockdep_kind {
	LD_SPIN,       /* a spinlock (0: what a zeroed map means) */
	LD_MUTEX,      /* a sleeping lock with an owner */
	LD_BIGLOCK,    /* the sleep-releasing big lock */
	LD_WQ,	       /* pseudo-lock: a workqueue (flushed, or running an item) */
	LD_WORK,       /* pseudo-lock: a work item */
	LD_TIMER,      /* pseudo-lock: a timer (its callback running; del_timer_sync) */
	LD_NOVALIDATE, /* never tracked (the console's lock, which reports need) */
};

struct lockdep_map {
	const struct lock_class_key *key; /* NULL: a static lock, keyed by its address */
	const char *name;
	u16 class_idx; /* A: the class of subclass 0, once looked up */
	u8 kind;       /* enum lockdep_kind */
};

#define LOCKDEP_MAP_INIT(n, k, kd)                                                                 \
	{                                                                                          \
		.key = (k), .name = (n), .class_idx = 0, .kind = (kd)                              \
	}

/* One lock a context holds. */
struct held_lock {
	const void *instance; /* what the release names: the lock, or the work item */
	const void *ip;	      /* where it was taken */
	u64 chain_key;	      /* this entry and every one below it */
	u16 class_idx;	      /* 0: unknown (taken while the validator was off) */
	u8 flags;	      /* LD_TRY */
};

#define LOCKDEP_MAX_HELD 16

/* The locks one context holds, innermost last: a thread's, or a CPU's in
 * hard-interrupt context. Only that context touches it (interrupts off). */
struct lockdep_ctx {
	unsigned int depth;
	struct held_lock held[LOCKDEP_MAX_HELD];
};

#endif
