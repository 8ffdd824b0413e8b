/* kernel/completion.c - "this has happened" for one or many waiters; see
 * completion.h. A completion is a count and a wait queue: complete() adds
 * one and wakes every waiter, each of which tries to take one under the
 * queue's lock (one gets it, the others find none and sleep again: wait
 * queues have no exclusive waiters, kernel/wait.h), and complete_all()
 * makes the count infinite. */
#include "kernel/completion.h"
#include "kernel/sched.h"

void __init_completion(struct completion *c, const char *name, const struct lock_class_key *key)
{
	c->done = 0;
	__init_waitqueue_head(&c->wait, name, key);
}

/* Take one "done" if there is one (all of them stay after complete_all()). */
static bool consume_done(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wait.lock);
	bool ok = c->done > 0;

	if (ok && c->done != COMPLETION_ALL)
		WRITE_ONCE(c->done, c->done - 1);
	spin_unlock_irqrestore(&c->wait.lock, flags);
	return ok;
}

void wait_for_completion(struct completion *c)
{
	wait_event(c->wait, consume_done(c));
}

u64 wait_for_completion_timeout(struct completion *c, u64 ns)
{
	return wait_event_timeout(c->wait, consume_done(c), ns);
}

bool try_wait_for_completion(struct completion *c)
{
	return consume_done(c);
}

void complete(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wait.lock);

	if (c->done != COMPLETION_ALL)
		WRITE_ONCE(c->done, c->done + 1);
	/* Wake under the lock: a waiter sees done only after our unlock, our
	 * last touch, so it may free the completion (often on its stack) as
	 * soon as it returns. */
	wake_up_locked(&c->wait);
	spin_unlock_irqrestore(&c->wait.lock, flags);
}

void complete_all(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wait.lock);

	WRITE_ONCE(c->done, COMPLETION_ALL);
	wake_up_all_locked(&c->wait);
	spin_unlock_irqrestore(&c->wait.lock, flags);
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) > 0;
}
