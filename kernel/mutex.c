/* kernel/mutex.c - mutexes and semaphores; see mutex.h.
 *
 * Both hand the lock (or unit) directly to the first waiter and wake it:
 * the waiter finds lock_waiter.granted set when it runs, so wake-ups can
 * be neither lost nor stolen. */
#include "kernel/mutex.h"
#include "kernel/lockdep.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "lib/errno.h"

const struct lock_class_key mutex_wait_lock_key;

void __mutex_init(struct mutex *m, const char *name, const struct lock_class_key *key)
{
	__spin_lock_init(&m->wait_lock, name, &mutex_wait_lock_key);
	m->owner = NULL;
	m->owner_ip = NULL;
	INIT_LIST_HEAD(&m->waiters);
	m->name = name;
	lockdep_init_map(&m->dep_map, name, key, LD_MUTEX);
}

/* Block until w is granted. Called with lock held; returns with it held. */
static int wait_granted(struct spinlock *lock, struct lock_waiter *w, unsigned long *flags, u64 ns)
{
	u64 left = ns;

	assert_spin_locked(lock);
	for (;;) {
		set_current_state(THREAD_BLOCKED);
		if (w->granted)
			break;
		spin_unlock_irqrestore(lock, *flags);
		if (ns == UINT64_MAX)
			schedule();
		else
			left = schedule_timeout(left);
		*flags = spin_lock_irqsave(lock);
		if (!w->granted && ns != UINT64_MAX && !left) {
			list_del(&w->link);
			__set_current_state(THREAD_RUNNING);
			return -ETIMEDOUT;
		}
	}
	__set_current_state(THREAD_RUNNING);
	return 0;
}

static __noinline void mutex_lock_slow(struct mutex *m, const void *ip)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);

	if (!m->owner) {
		WRITE_ONCE(m->owner, current);
		m->owner_ip = ip;
		spin_unlock_irqrestore(&m->wait_lock, flags);
		return;
	}
	if (m->owner == current)
		panic("mutex '%s': recursive mutex_lock by %s at %pS; it took it at %pS", m->name,
		      current->name, ip, m->owner_ip);
	struct lock_waiter w = { .thread = current };

	list_add_tail(&w.link, &m->waiters);
	wait_granted(&m->wait_lock, &w, &flags, UINT64_MAX);
	m->owner_ip = ip; /* ownership was handed over by mutex_unlock */
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

/* The validator checks before the wait; a recursive lock it leaves to
 * mutex_lock_slow()'s panic. */
void mutex_lock(struct mutex *m)
{
	const void *ip = __builtin_return_address(0);

	might_sleep();
	lock_acquire(&m->dep_map, 0, 0, m, ip);
	mutex_lock_slow(m, ip);
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);
	bool ok = !m->owner;

	if (ok) {
		WRITE_ONCE(m->owner, current);
		m->owner_ip = __builtin_return_address(0);
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
	if (ok)
		lock_acquire(&m->dep_map, 0, LD_TRY, m, __builtin_return_address(0));
	return ok;
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wait_lock);

	if (m->owner != current) {
		struct thread *owner = m->owner;

		spin_unlock_irqrestore(&m->wait_lock, flags);
		WARN(1, "mutex '%s' unlocked by %s, but %s%s owns it", m->name, current->name,
		     owner ? owner->name : "nobody", owner ? "" : " (not locked)");
		return;
	}
	struct lock_waiter *w = list_first_entry_or_null(&m->waiters, struct lock_waiter, link);

	lock_release(m, __builtin_return_address(0));
	WRITE_ONCE(m->owner, w ? w->thread : NULL);
	if (w) {
		list_del(&w->link);
		w->granted = true;
		wake_up_thread(w->thread);
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

bool mutex_is_locked(const struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
}

bool mutex_owned(const struct mutex *m)
{
	return READ_ONCE(m->owner) == current;
}

void __sema_init(struct semaphore *s, unsigned int count, const char *name,
		 const struct lock_class_key *key)
{
	__spin_lock_init(&s->lock, name, key);
	s->count = count;
	INIT_LIST_HEAD(&s->waiters);
}

int down_timeout(struct semaphore *s, u64 ns)
{
	might_sleep();
	unsigned long flags = spin_lock_irqsave(&s->lock);
	int err = 0;

	if (s->count) {
		s->count--;
	} else {
		struct lock_waiter w = { .thread = current };

		list_add_tail(&w.link, &s->waiters);
		err = wait_granted(&s->lock, &w, &flags, ns);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	return err;
}

void down(struct semaphore *s)
{
	down_timeout(s, UINT64_MAX);
}

bool down_trylock_ok(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);
	bool ok = s->count > 0;

	if (ok)
		s->count--;
	spin_unlock_irqrestore(&s->lock, flags);
	return ok;
}

void up(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);
	struct lock_waiter *w = list_first_entry_or_null(&s->waiters, struct lock_waiter, link);

	if (w) {
		list_del(&w->link);
		w->granted = true;
		wake_up_thread(w->thread);
	} else {
		s->count++;
	}
	spin_unlock_irqrestore(&s->lock, flags);
}
