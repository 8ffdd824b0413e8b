/* kernel/sched_internal.h - what the scheduler (sched.c) and the kthread
 * machinery (kthread.c) call in each other. Only those two files include
 * it; everything else uses sched.h and kthread.h.
 *
 * kthread.c owns the list of threads and their lifetime (creation,
 * references, reaping); sched.c owns how a thread runs (its scheduling
 * fields, its first stack frame, switching it out for the last time).
 */
#ifndef KERNEL_SCHED_INTERNAL_H
#define KERNEL_SCHED_INTERNAL_H

#include "kernel/sched.h"

/* sched.c, for kthread_create(): fill in a new thread's scheduling fields
 * (blocked, fair, nice 0, any CPU) and its name; build the frame
 * switch.S pops the first time it is switched to (t->stack is set). */
void sched_thread_init(struct thread *t, const char *name);
void sched_thread_stack_init(struct thread *t);

/* sched.c, for kthread.c before t first runs: the CPUs it may use. It is
 * first queued on the creating CPU if allowed, else on the first allowed
 * (sched_thread_init() gave it every possible CPU and the creating one). */
void sched_thread_place(struct thread *t, const struct cpumask *allowed);
/* sched.c, for thread_exit(): the dying calling thread drops its hooks, so
 * that its last switch tells no one it sleeps. */
void sched_thread_drop_hooks(void);

/* kthread.c, for the scheduler: a dead thread has switched out for the
 * last time and its stack is no longer in use; drop the thread's own
 * reference (the struct goes to the zombies if it was the last). Called
 * by the thread switched to, on the dead thread's CPU, interrupts off. */
void kthread_put_dead(struct thread *t);

/* kthread.c, for sched_dump_threads(): call fn on every listed thread
 * WITHOUT threads_lock (from an NMI, perhaps with the lock held). The list
 * may change under the walk: only for last-gasp reports. */
void kthread_for_each_unlocked(void (*fn)(struct thread *t, void *arg), void *arg);

#endif
