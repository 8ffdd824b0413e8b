/* kernel/kthread.c - kernel threads; see kthread.h. */
#define pr_fmt(fmt) "kthread: " fmt
#include "kernel/kthread.h"
#include "arch/x86_64/atomic.h"
#include "kernel/biglock.h"
#include "kernel/lockdep.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/sched_internal.h"
#include "lib/printf.h"

static DEFINE_SPINLOCK(threads_lock);
static LIST_HEAD(all_threads);	  /* threads_lock */
static unsigned int thread_count; /* threads_lock */
static LIST_HEAD(zombies);	  /* threads_lock: dead, unreferenced, to free */

bool (*kthread_should_fail)(void); /* written once by fault injection */

/* A thread fits kmalloc's 512-byte class (with the lock validator off,
 * which adds its held-lock stack after it): one byte more and every thread
 * takes 1024. Grown by 8 bytes, struct thread made make bench's online
 * 40% slower under -icount (278 -> 390 us; offline_idle 140 -> 162). */
BUILD_BUG_ON(sizeof(struct thread) > 512);

static void free_thread(struct thread *t)
{
	kstack_free(t->stack);
	kfree(t);
}

/* Free the zombies (may sleep: stack frees shoot down TLB entries). */
void kthread_reap(void)
{
	might_sleep();
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&threads_lock);
		struct thread *t = list_first_entry_or_null(&zombies, struct thread, all_link);

		if (t)
			list_del(&t->all_link);
		spin_unlock_irqrestore(&threads_lock, flags);
		if (!t)
			return;
		free_thread(t);
	}
}

static bool put_ref(struct thread *t)
{
	return __atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) == 0;
}

/* What unlist() does with a thread it takes off the list. */
enum unlist_then { UNLIST_ONLY, UNLIST_TO_ZOMBIES };

static void unlist(struct thread *t, enum unlist_then then)
{
	unsigned long flags = spin_lock_irqsave(&threads_lock);

	list_del(&t->all_link);
	thread_count--;
	if (then == UNLIST_TO_ZOMBIES)
		list_add_tail(&t->all_link, &zombies);
	spin_unlock_irqrestore(&threads_lock, flags);
}

void put_thread(struct thread *t)
{
	might_sleep();
	if (put_ref(t)) {
		unlist(t, UNLIST_ONLY);
		free_thread(t);
	}
}

/* The scheduler must not sleep here (freeing a stack may): the last
 * reference sends t to the zombies, freed by the next creation or stop. */
void kthread_put_dead(struct thread *t)
{
	if (put_ref(t))
		unlist(t, UNLIST_TO_ZOMBIES);
}

static struct thread *create(int (*fn)(void *), void *arg, const char *fmt, va_list ap)
{
	struct thread *t;
	char name[THREAD_NAME_LEN];
	bool (*should_fail)(void) = READ_ONCE(kthread_should_fail);

	might_sleep();
	kthread_reap();
	if (should_fail && should_fail())
		return NULL;
	vscnprintf(name, sizeof(name), fmt, ap);
	size_t held = lockdep_thread_ctx_size(); /* the validator's, right after it */

	t = kzalloc(sizeof(*t) + held);
	if (!t)
		return NULL;
	if (held)
		t->lockdep = (struct lockdep_ctx *)(t + 1);
	sched_thread_init(t, name);
	t->stack = kstack_alloc(t->name);
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->fn = fn;
	t->arg = arg;
	t->refcount = 2; /* the creator's and the thread's own */
	sched_thread_stack_init(t);
	unsigned long flags = spin_lock_irqsave(&threads_lock);

	list_add_tail(&t->all_link, &all_threads);
	thread_count++;
	spin_unlock_irqrestore(&threads_lock, flags);
	return t;
}

struct thread *kthread_create_on_mask(int (*fn)(void *), void *arg, const struct cpumask *mask,
				      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	struct thread *t = create(fn, arg, fmt, ap);

	va_end(ap);
	if (t && mask)
		sched_thread_place(t, mask);
	return t;
}

void kthread_bind(struct thread *t, unsigned int cpu)
{
	sched_thread_place(t, cpumask_of(cpu));
}

/* Under threads_lock: a for_each_thread() callback that read the old data
 * has returned when this does, so its owner may free it then. */
void kthread_set_data(struct thread *t, void *data)
{
	unsigned long flags = spin_lock_irqsave(&threads_lock);

	WRITE_ONCE(t->data, data);
	spin_unlock_irqrestore(&threads_lock, flags);
}

void assert_thread_list_locked(void)
{
	assert_spin_locked(&threads_lock);
}

void *kthread_data(struct thread *t)
{
	return READ_ONCE(t->data);
}

bool kthread_should_stop(void)
{
	return test_bit(KTHREAD_SHOULD_STOP, &current->kflags);
}

int kthread_stop(struct thread *t)
{
	might_sleep();
	set_bit(KTHREAD_SHOULD_STOP, &t->kflags);
	wake_up_thread(t);
	wait_for_completion(&t->exited);
	int code = t->exit_code;

	put_thread(t);
	kthread_reap();
	return code;
}

__noreturn void thread_exit(int code)
{
	struct thread *t = current;

	t->exit_code = code;
	biglock_thread_exit(t); /* before its hooks go: they would release it */
	lockdep_thread_exit(t); /* it must hold nothing now */
	sched_thread_drop_hooks();
	complete_all(&t->exited);
	preempt_disable();
	set_current_state(THREAD_DEAD);
	preempt_enable_no_resched();
	schedule();
	panic("dead thread %s was scheduled again", t->name);
}

void for_each_thread(void (*fn)(struct thread *t, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&threads_lock);
	struct thread *t;

	list_for_each_entry(t, &all_threads, all_link)
		fn(t, arg);
	spin_unlock_irqrestore(&threads_lock, flags);
}

/* Lock-free on purpose: sched_dump_threads() runs from an NMI, perhaps
 * with threads_lock held. */
void kthread_for_each_unlocked(void (*fn)(struct thread *t, void *arg), void *arg)
{
	struct thread *t;

	list_for_each_entry(t, &all_threads, all_link)
		fn(t, arg);
}

unsigned int nr_threads(void)
{
	return READ_ONCE(thread_count);
}
