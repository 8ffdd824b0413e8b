/* kernel/kthread.h - kernel threads: create, start, stop, exit, reap.
 *
 *   kthread_create(fn, arg, fmt, ...)   a new thread, not yet running
 *   kthread_create_on_cpu(fn, arg, cpu, fmt, ...)  bound to one CPU
 *   kthread_create_on_mask(fn, arg, mask, fmt, ...)  allowed on those CPUs
 *   kthread_bind(t, cpu)                bind a thread that has not started
 *   kthread_run(fn, arg, fmt, ...)      create and start
 *   wake_up_thread(t)                   start a created thread
 *   kthread_stop(t)     ask t to stop (kthread_should_stop() turns true),
 *                       wake it, wait for it to exit, free it; returns
 *                       fn's result. The creator's reference is consumed.
 *   kthread_set_data(t, data), kthread_data(t)   a pointer for the
 *                       thread's owner (the workqueue's worker struct).
 *                       Another thread's may be read by a for_each_thread()
 *                       callback: set under the list's lock, data its owner
 *                       clears (kthread_set_data(t, NULL)) before freeing it
 *                       stays valid until the callback returns
 *                       (assert_thread_list_locked() in such a reader)
 *   thread_exit(code)   end the calling thread
 *   put_thread(t)       drop the creator's reference without stopping t:
 *                       it is freed when it exits
 * Creation and kthread_stop() may sleep. A thread's struct and stack live
 * until both the creator's reference and the thread's own (dropped after
 * its last switch-out) are gone; a dead thread nobody waits for is reaped
 * by the next kthread_create() or kthread_stop(), or by kthread_reap()
 * (may sleep) for a caller that must not leave that work to whoever
 * creates a thread next (a benchmark between its runs).
 */
#ifndef KERNEL_KTHREAD_H
#define KERNEL_KTHREAD_H

#include "kernel/sched.h"

#define KTHREAD_SHOULD_STOP 0 /* bit in t->kflags */

/* The one creation; mask NULL leaves the thread where sched_thread_init()
 * places a new one. The others are this with a mask, or then started (as
 * Linux's kthread_create() and kthread_run() are macros). */
struct thread *kthread_create_on_mask(int (*fn)(void *), void *arg, const struct cpumask *mask,
				      const char *fmt, ...) __printf(4, 5);
#define kthread_create(fn, arg, fmt, ...) kthread_create_on_mask(fn, arg, NULL, fmt, ##__VA_ARGS__)
#define kthread_create_on_cpu(fn, arg, cpu, fmt, ...)                                              \
	kthread_create_on_mask(fn, arg, cpumask_of(cpu), fmt, ##__VA_ARGS__)
#define kthread_run(fn, arg, fmt, ...)                                                             \
	({                                                                                         \
		struct thread *__kthread_run_t = kthread_create(fn, arg, fmt, ##__VA_ARGS__);      \
		if (__kthread_run_t)                                                               \
			wake_up_thread(__kthread_run_t);                                           \
		__kthread_run_t;                                                                   \
	})
void kthread_bind(struct thread *t, unsigned int cpu);
void kthread_reap(void);
void kthread_set_data(struct thread *t, void *data);
int kthread_stop(struct thread *t);
bool kthread_should_stop(void);
void *kthread_data(struct thread *t);
__noreturn void thread_exit(int code);
void put_thread(struct thread *t);
/* Where a creation may be failed on purpose (kernel/tools/fault_inject.c
 * fills it when a test asks; NULL: never): asked at the start of every
 * creation, in the creating thread with no lock held (it may sleep); true
 * makes the creation return NULL, as if memory had run out. */
extern bool (*kthread_should_fail)(void);

/* Every thread, for ps-style listings: call fn on each under threads_lock
 * (fn must not sleep). */
void for_each_thread(void (*fn)(struct thread *t, void *arg), void *arg);
/* The caller is a for_each_thread() callback (threads_lock held here). */
void assert_thread_list_locked(void);
unsigned int nr_threads(void);

#endif
