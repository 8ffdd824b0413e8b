/* kernel/timer.c - per-CPU timer lists; see timer.h. Each CPU's list is
 * sorted by expiry (a linear insert), so the tick looks only at its head. */
#include "kernel/timer.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/spinlock.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "kernel/time.h"

struct timer_base {
	struct spinlock lock;
	struct list_head timers;		/* lock: by expiry */
	struct timer_list *volatile running;	/* lock: callback in progress */
};

static struct timer_base bases[NR_CPUS];

void timers_init(void)
{
	for (unsigned int i = 0; i < NR_CPUS; i++) {
		spin_lock_init(&bases[i].lock, "timer_base");
		INIT_LIST_HEAD(&bases[i].timers);
	}
}

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t))
{
	INIT_LIST_HEAD(&t->entry);
	t->fn = fn;
	t->cpu = -1;
	t->expires = 0;
}

/* Lock the base t is on (or, if on none, return NULL with nothing locked). */
static struct timer_base *lock_timer_base(struct timer_list *t, unsigned long *flags)
{
	for (;;) {
		int cpu = READ_ONCE(t->cpu);

		if (cpu < 0)
			return NULL;
		struct timer_base *b = &bases[cpu];

		*flags = spin_lock_irqsave(&b->lock);
		if (READ_ONCE(t->cpu) == cpu)
			return b;
		spin_unlock_irqrestore(&b->lock, *flags);
	}
}

/* Called with b->lock held. */
static void enqueue_timer(struct timer_base *b, unsigned int cpu, struct timer_list *t)
{
	struct timer_list *pos;

	t->cpu = (int)cpu;
	list_for_each_entry(pos, &b->timers, entry) {
		if (pos->expires > t->expires) {
			list_add_tail(&t->entry, &pos->entry);
			return;
		}
	}
	list_add_tail(&t->entry, &b->timers);
}

static bool detach(struct timer_list *t)
{
	unsigned long flags;
	struct timer_base *b = lock_timer_base(t, &flags);

	if (!b)
		return false;
	list_del_init(&t->entry);
	WRITE_ONCE(t->cpu, -1);
	spin_unlock_irqrestore(&b->lock, flags);
	return true;
}

void add_timer_on(struct timer_list *t, u64 expires, unsigned int cpu)
{
	struct timer_base *b = &bases[cpu];

	if (WARN_ONCE(timer_pending(t), "add_timer of a pending timer (%pS)", t->fn))
		detach(t);
	unsigned long flags = spin_lock_irqsave(&b->lock);

	t->expires = expires;
	enqueue_timer(b, cpu, t);
	spin_unlock_irqrestore(&b->lock, flags);
}

void add_timer(struct timer_list *t, u64 expires)
{
	unsigned long flags = local_irq_save();

	add_timer_on(t, expires, smp_processor_id());
	local_irq_restore(flags);
}

bool mod_timer(struct timer_list *t, u64 expires)
{
	bool was = detach(t);

	add_timer(t, expires);
	return was;
}

bool del_timer(struct timer_list *t)
{
	return detach(t);
}

bool del_timer_sync(struct timer_list *t)
{
	bool was = detach(t);

	/* Wait for a callback already running on any CPU. */
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		while (READ_ONCE(bases[cpu].running) == t)
			cpu_relax();
	return was;
}

bool timer_pending(const struct timer_list *t)
{
	return READ_ONCE(t->cpu) >= 0;
}

void run_timers(void)
{
	struct timer_base *b = &bases[smp_processor_id()];
	u64 now = ktime_get_ns();

	spin_lock(&b->lock);
	for (;;) {
		struct timer_list *t = list_first_entry_or_null(&b->timers, struct timer_list, entry);

		if (!t || t->expires > now)
			break;
		list_del_init(&t->entry);
		WRITE_ONCE(t->cpu, -1);
		b->running = t;
		spin_unlock(&b->lock);
		t->fn(t);
		spin_lock(&b->lock);
		b->running = NULL;
	}
	spin_unlock_no_resched(&b->lock);
}
