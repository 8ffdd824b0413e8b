/* kernel/wait.c - wait queues, schedule_timeout, msleep and might_sleep;
 * see wait.h. Completions, built on wait queues: kernel/completion.c. */
#include "kernel/wait.h"
#include "kernel/panic.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/timer.h"

void __init_waitqueue_head(struct wait_queue_head *wq, const char *name,
			   const struct lock_class_key *key)
{
	__spin_lock_init(&wq->lock, name, key);
	INIT_LIST_HEAD(&wq->head);
}

/* Linked at the head: the last to wait is woken first. */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	if (list_empty(&e->link)) {
		e->thread = current;
		list_add(&e->link, &wq->head);
	}
	set_current_state(THREAD_BLOCKED);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	__set_current_state(THREAD_RUNNING);
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	if (!list_empty(&e->link))
		list_del_init(&e->link);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up(struct wait_queue_head *wq)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	wake_up_locked(wq);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up_all(struct wait_queue_head *wq)
{
	wake_up(wq);
}

bool waitqueue_active(struct wait_queue_head *wq)
{
	return !list_empty(&wq->head);
}

struct sleeper {
	struct timer_list timer;
	struct thread *thread;
};

/* The sleeper's timer check (timer_set_check()), run by the timer queue each
 * time it meets the timer: a sleeper's timer lives in the frame of its
 * thread's schedule_timeout(), which takes it off every queue before
 * returning. One met in a queue after that is stale, and the frame it
 * sits in already belongs to later calls. */
static void sleeper_check(const struct timer_list *t)
{
	const struct sleeper *s = container_of(t, struct sleeper, timer);
	const struct thread *th = s->thread;

	if (unlikely(th->sleeper != s))
		panic("timer %p: sleeper of %s, which left schedule_timeout() (sleeping now on "
		      "%p); it is %s on cpu%u, saved rsp %lx",
		      t, th->name, th->sleeper, thread_on_cpu(th) ? "running" : "switched out",
		      thread_cpu(th), th->ctx_rsp);
}

/* The callback: the thread is still in schedule_timeout() (its
 * del_timer_sync() waits for us), so the check holds here too; it catches
 * a stale timer whose check pointer was overwritten but not its callback. */
static void sleeper_wake(struct timer_list *t)
{
	sleeper_check(t);
	wake_up_thread(container_of(t, struct sleeper, timer)->thread);
}

u64 schedule_timeout(u64 ns)
{
	struct sleeper s = { .thread = current };
	u64 start = ktime_get_ns();

	if (ns == UINT64_MAX) {
		schedule();
		return UINT64_MAX;
	}
	timer_setup(&s.timer, sleeper_wake);
	timer_set_check(&s.timer, sleeper_check);
	current->sleeper = &s;
	add_timer(&s.timer, start + ns);
	schedule();
	del_timer_sync(&s.timer);
	current->sleeper = NULL;
	u64 spent = ktime_get_ns() - start;

	return spent >= ns ? 0 : ns - spent;
}

/* Sleep ns, however many early wake-ups come. */
static void sleep_ns(u64 ns)
{
	might_sleep();
	while (ns) {
		set_current_state(THREAD_BLOCKED);
		ns = schedule_timeout(ns);
	}
	__set_current_state(THREAD_RUNNING);
}

void msleep(unsigned int ms)
{
	sleep_ns((u64)ms * NSEC_PER_MSEC);
}

void usleep(u64 us)
{
	sleep_ns(us * NSEC_PER_USEC);
}

/* ---- might_sleep -------------------------------------------------------- */

__attribute__((noinline, noclone)) void __might_sleep(const char *file, int line, bool *reported)
{
	if (!sched_ready || READ_ONCE(panic_cpu) >= 0)
		return;
	int count = preempt_count();
	bool irqs_off = irqs_disabled();

	if ((count || irqs_off) && !__atomic_exchange_n(reported, true, __ATOMIC_RELAXED))
		warn_report(file, line, __builtin_return_address(0),
			    "sleeping function called from invalid context: preempt_count %#x%s, "
			    "interrupts %s, thread %s",
			    count,
			    (count & BH_OFFSET) ? " (a BH item)" :
			    (count & BH_MASK)	? " (BHs disabled)" :
						  "",
			    irqs_off ? "off" : "on", current->name);
}
