/* kernel/completion.h - "this has happened" for one or many waiters.
 *
 *   init_completion(c), reinit_completion(c)
 *   wait_for_completion(c)          block until complete() (may sleep)
 *   wait_for_completion_timeout(c, ns)  ns left, or 0 on timeout
 *   try_wait_for_completion(c)      take a completion without blocking
 *   complete(c)                     let one waiter (or the next) through
 *   complete_all(c)                 let every waiter through, for good
 *   completion_done(c)
 * complete() and complete_all() may be called from any context.
 */
#ifndef KERNEL_COMPLETION_H
#define KERNEL_COMPLETION_H

#include "kernel/wait.h"

#define COMPLETION_ALL (~0u)

struct completion {
	unsigned int done; /* wait.lock; COMPLETION_ALL after complete_all */
	struct wait_queue_head wait;
};

void __init_completion(struct completion *c, const char *name, const struct lock_class_key *key);
/* Its wait queue's lock: one class per call site. */
#define init_completion(c)                                                                         \
	do {                                                                                       \
		static const struct lock_class_key __key;                                          \
		__init_completion((c), #c, &__key);                                                \
	} while (0)
static inline void reinit_completion(struct completion *c)
{
	WRITE_ONCE(c->done, 0);
}
void wait_for_completion(struct completion *c);
u64 wait_for_completion_timeout(struct completion *c, u64 ns);
bool try_wait_for_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
bool completion_done(struct completion *c);

#endif
