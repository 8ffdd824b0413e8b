/* kernel/timer.c - per-CPU timer wheels; see timer.h.
 *
 * Each CPU has a hashed timing wheel: WHEEL_SLOTS lists, one per tick,
 * reused every WHEEL_SLOTS ticks. A timer expiring in tick k (the tick
 * whose time is the first at or after its expiry) goes to slot
 * k % WHEEL_SLOTS, sorted there by expiry; timers further out than one
 * turn share the slot and wait for their turn. Adding and deleting are
 * O(1) plus the slot's length; each tick looks at the slots of the ticks
 * that passed since the last (usually one; after a stall, at most all). */
#include "kernel/timer.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/spinlock.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "kernel/time.h"

#define WHEEL_SLOTS 256
#define TICK_NS (NSEC_PER_SEC / HZ)

struct timer_base {
	struct spinlock lock;
	struct list_head slots[WHEEL_SLOTS];	/* lock: each sorted by expiry */
	u64 next_tick;				/* lock: first tick not yet run */
	struct timer_list *volatile running;	/* lock: callback in progress */
};

static struct timer_base bases[NR_CPUS];

void timers_init(void)
{
	u64 now_tick = ktime_get_ns() / TICK_NS;

	for (unsigned int i = 0; i < NR_CPUS; i++) {
		spin_lock_init(&bases[i].lock, "timer_base");
		for (unsigned int s = 0; s < WHEEL_SLOTS; s++)
			INIT_LIST_HEAD(&bases[i].slots[s]);
		bases[i].next_tick = now_tick;
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

/* Insert t into list, keeping it sorted by expiry. */
static void insert_sorted(struct list_head *list, struct timer_list *t)
{
	struct timer_list *pos;

	list_for_each_entry(pos, list, entry) {
		if (pos->expires > t->expires) {
			list_add_tail(&t->entry, &pos->entry);
			return;
		}
	}
	list_add_tail(&t->entry, list);
}

/* Called with b->lock held. */
static void enqueue_timer(struct timer_base *b, unsigned int cpu, struct timer_list *t)
{
	u64 tick = max(DIV_ROUND_UP(t->expires, TICK_NS), b->next_tick);

	t->cpu = (int)cpu;
	insert_sorted(&b->slots[tick % WHEEL_SLOTS], t);
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

	/* Checked under the base lock that timers_migrate() takes once the CPU
	 * is out of cpu_online_mask: a timer never lands on a dead wheel. */
	while (!cpu_online(cpu) && cpumask_first(&cpu_online_mask) < NR_CPUS) {
		spin_unlock_irqrestore(&b->lock, flags);
		cpu = cpumask_first(&cpu_online_mask);	/* (before SMP: none yet) */
		b = &bases[cpu];
		flags = spin_lock_irqsave(&b->lock);
	}

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
	bool was = false;

	/* Wait for a callback already running on any CPU; if it re-armed
	 * the timer meanwhile, disarm that too. */
	do {
		was |= detach(t);
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
			while (READ_ONCE(bases[cpu].running) == t)
				cpu_relax();
	} while (timer_pending(t));
	return was;
}

bool timer_pending(const struct timer_list *t)
{
	return READ_ONCE(t->cpu) >= 0;
}

void run_timers(void)
{
	struct timer_base *b = &bases[smp_processor_id()];
	u64 now = ktime_get_ns(), now_tick = now / TICK_NS;
	LIST_HEAD(expired);	/* sorted by expiry */

	spin_lock(&b->lock);
	/* Collect what is due from the slots of the ticks that passed. */
	u64 first = max(b->next_tick, now_tick >= WHEEL_SLOTS ? now_tick - WHEEL_SLOTS + 1 : 0);

	for (u64 tick = first; tick <= now_tick; tick++) {
		struct timer_list *t, *n;

		list_for_each_entry_safe(t, n, &b->slots[tick % WHEEL_SLOTS], entry) {
			if (t->expires > now)
				break;	/* sorted: the rest of the slot is later */
			list_del(&t->entry);
			insert_sorted(&expired, t);
		}
	}
	b->next_tick = now_tick + 1;
	/* Run them in order, without the lock: a callback may re-arm itself. */
	while (!list_empty(&expired)) {
		struct timer_list *t = list_first_entry(&expired, struct timer_list, entry);

		list_del_init(&t->entry);
		/* running first: del_timer_sync() reads t->cpu without our
		 * lock, and once it sees -1 it must also see the callback as
		 * running (stores are seen in order on x86; both are volatile,
		 * so the compiler keeps the order). The other way round, a
		 * sleeper's on-stack timer could fire after its owner left. */
		b->running = t;
		WRITE_ONCE(t->cpu, -1);
		spin_unlock(&b->lock);
		t->fn(t);
		spin_lock(&b->lock);
		b->running = NULL;
	}
	spin_unlock_no_resched(&b->lock);
}

void timers_migrate(unsigned int from, unsigned int to)
{
	struct timer_base *src = &bases[from], *dst = &bases[to];
	unsigned long flags = local_irq_save();
	unsigned int moved = 0;

	/* Two bases: lock in CPU order. */
	spin_lock(from < to ? &src->lock : &dst->lock);
	spin_lock(from < to ? &dst->lock : &src->lock);
	for (unsigned int s = 0; s < WHEEL_SLOTS; s++)
		while (!list_empty(&src->slots[s])) {
			struct timer_list *t = list_first_entry(&src->slots[s], struct timer_list, entry);

			list_del_init(&t->entry);
			enqueue_timer(dst, to, t);
			moved++;
		}
	spin_unlock_no_resched(&src->lock);
	spin_unlock_no_resched(&dst->lock);
	local_irq_restore(flags);
	(void)moved;
}
