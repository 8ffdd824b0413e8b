/* kernel/kthread.c - kernel threads; see kthread.h. */
#define pr_fmt(fmt) "kthread: " fmt
#include "kernel/kthread.h"
#include "arch/x86_64/atomic.h"
#include "kernel/biglock.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/printf.h"

void sched_thread_init(struct thread *t, const char *name);
void sched_thread_stack_init(struct thread *t);

static DEFINE_SPINLOCK(threads_lock);
static LIST_HEAD(all_threads);		/* threads_lock */
static unsigned int thread_count;	/* threads_lock */
static LIST_HEAD(zombies);		/* threads_lock: dead, unreferenced, to free */
static unsigned int fail_next;		/* atomic: creations to fail on purpose */

void kthread_fail_next(unsigned int n)
{
	WRITE_ONCE(fail_next, n);
}

static void free_thread(struct thread *t)
{
	kstack_free(t->stack);
	kfree(t);
}

/* Free the zombies (may sleep: stack frees shoot down TLB entries). */
static void reap_zombies(void)
{
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

static void unlist(struct thread *t, bool to_zombies)
{
	unsigned long flags = spin_lock_irqsave(&threads_lock);

	list_del(&t->all_link);
	thread_count--;
	if (to_zombies)
		list_add_tail(&t->all_link, &zombies);
	spin_unlock_irqrestore(&threads_lock, flags);
}

void put_thread(struct thread *t)
{
	might_sleep();
	if (put_ref(t)) {
		unlist(t, false);
		free_thread(t);
	}
}

void sched_reap_dead(struct thread *t)
{
	/* The thread's own reference: its stack is no longer in use. */
	if (put_ref(t))
		unlist(t, true);
}

static struct thread *create(int (*fn)(void *), void *arg, const char *fmt, va_list ap)
{
	struct thread *t;
	char name[THREAD_NAME_LEN];
	unsigned int f = READ_ONCE(fail_next);

	might_sleep();
	reap_zombies();
	if (f && __atomic_compare_exchange_n(&fail_next, &f, f - 1, false, __ATOMIC_SEQ_CST,
					     __ATOMIC_SEQ_CST))
		return NULL;
	vscnprintf(name, sizeof(name), fmt, ap);
	t = kzalloc(sizeof(*t));
	if (!t)
		return NULL;
	sched_thread_init(t, name);
	t->stack = kstack_alloc(t->name);
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->fn = fn;
	t->arg = arg;
	t->refcount = 2;	/* the creator's and the thread's own */
	t->cpu = smp_processor_id();
	sched_thread_stack_init(t);
	unsigned long flags = spin_lock_irqsave(&threads_lock);

	list_add_tail(&t->all_link, &all_threads);
	thread_count++;
	spin_unlock_irqrestore(&threads_lock, flags);
	return t;
}

struct thread *kthread_create(int (*fn)(void *), void *arg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	struct thread *t = create(fn, arg, fmt, ap);

	va_end(ap);
	return t;
}

struct thread *kthread_create_on_cpu(int (*fn)(void *), void *arg, unsigned int cpu,
				     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	struct thread *t = create(fn, arg, fmt, ap);

	va_end(ap);
	if (t)
		kthread_bind(t, cpu);
	return t;
}

struct thread *kthread_create_on_mask(int (*fn)(void *), void *arg, const struct cpumask *mask,
				      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	struct thread *t = create(fn, arg, fmt, ap);

	va_end(ap);
	if (t) {
		/* Not started yet: nothing else looks at the mask. */
		cpumask_copy(&t->cpus_allowed, mask);
		if (!cpumask_test_cpu(t->cpu, mask))
			t->cpu = cpumask_first(mask);
	}
	return t;
}

struct thread *kthread_run(int (*fn)(void *), void *arg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	struct thread *t = create(fn, arg, fmt, ap);

	va_end(ap);
	if (t)
		wake_up_thread(t);
	return t;
}

void kthread_bind(struct thread *t, unsigned int cpu)
{
	/* Not started yet: nothing else looks at these fields. */
	WARN_ON(t->on_rq);
	cpumask_copy(&t->cpus_allowed, cpumask_of(cpu));
	t->cpu = cpu;
}

void kthread_set_data(struct thread *t, void *data)
{
	t->data = data;
}

void *kthread_data(struct thread *t)
{
	return t->data;
}

bool kthread_should_stop(void)
{
	return test_bit(KTHREAD_SHOULD_STOP, &current->kflags);
}

bool kthread_should_park(void)
{
	return test_bit(KTHREAD_SHOULD_PARK, &current->kflags);
}

void kthread_parkme(void)
{
	struct thread *t = current;

	for (;;) {
		set_current_state(THREAD_PARKED);
		if (!test_bit(KTHREAD_SHOULD_PARK, &t->kflags))
			break;
		if (!test_and_set_bit(KTHREAD_IS_PARKED, &t->kflags))
			complete(&t->parked);
		schedule();
	}
	clear_bit(KTHREAD_IS_PARKED, &t->kflags);
	__set_current_state(THREAD_RUNNING);
}

int kthread_park(struct thread *t)
{
	might_sleep();
	if (test_bit(KTHREAD_IS_PARKED, &t->kflags))
		return 0;
	if (t->state == THREAD_DEAD)
		return -ENOSYS;
	reinit_completion(&t->parked);
	set_bit(KTHREAD_SHOULD_PARK, &t->kflags);
	if (t != current) {
		wake_up_thread(t);
		wait_for_completion(&t->parked);
	}
	return 0;
}

void kthread_unpark(struct thread *t)
{
	clear_bit(KTHREAD_SHOULD_PARK, &t->kflags);
	/* Not parked any more from now on, even before it runs again: a
	 * kthread_park() right after must wait for it to park anew. */
	clear_bit(KTHREAD_IS_PARKED, &t->kflags);
	wake_up_state(t, THREAD_PARKED);
}

int kthread_stop(struct thread *t)
{
	might_sleep();
	set_bit(KTHREAD_SHOULD_STOP, &t->kflags);
	kthread_unpark(t);
	wake_up_thread(t);
	wait_for_completion(&t->exited);
	int code = t->exit_code;

	put_thread(t);
	reap_zombies();
	return code;
}

__noreturn void thread_exit(int code)
{
	struct thread *t = current;

	t->exit_code = code;
	biglock_thread_exit(t);	/* before its hooks go: they would release it */
	t->nr_hooks = 0;	/* a dying thread tells no one it sleeps */
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

static const char *const state_names[] = { "running", "blocked", "dead", "parked" };

/* Lock-free on purpose: it runs from an NMI, perhaps with threads_lock held. */
void sched_dump_threads(void)
{
	struct thread *t;

	printk(KERN_ERR "threads:\n");
	list_for_each_entry(t, &all_threads, all_link) {
		printk(KERN_ERR "  %-16s %-8s cpu%u %s%s hooks %u vcsw %lu ivcsw %lu\n", t->name,
		       t->state >= 0 && t->state <= 3 ? state_names[t->state] : "?", t->cpu,
		       t->on_rq ? "on_rq " : "", t->on_cpu ? "on_cpu" : "", t->nr_hooks,
		       (unsigned long)t->stats.nvcsw, (unsigned long)t->stats.nivcsw);
		if (!t->on_cpu && t->ctx_rsp) {
			/* Switched out: its saved frame starts the backtrace. */
			u64 *frame = (u64 *)t->ctx_rsp;

			show_backtrace(frame[5], "    ");
		}
	}
}

unsigned int nr_threads(void)
{
	return READ_ONCE(thread_count);
}
