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
#include "kernel/lockdep.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/smp.h"
#include "kernel/time.h"

#define WHEEL_SLOTS 256
#define TICK_NS	    (NSEC_PER_SEC / HZ)

struct timer_base {
	struct spinlock lock;
	struct list_head slots[WHEEL_SLOTS]; /* lock: each sorted by expiry */
	u64 next_tick;			     /* lock: first tick not yet run */
	struct timer_list *volatile running; /* lock: callback in progress */
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
	t->check = NULL;
	t->cpu = 0; /* its home base until it is first armed */
	t->expires = 0;
}

/* Before t is armed: nothing else looks at it. */
void timer_set_check(struct timer_list *t, void (*check)(const struct timer_list *t))
{
	WARN_ON_ONCE(timer_pending(t));
	t->check = check;
}

/* Lock t's home base (the one it is queued on, or was last). Its lock
 * guards t whether pending or not, so two CPUs arming t are serialised.
 * Interrupts off. */
static struct timer_base *lock_timer_base(struct timer_list *t)
{
	WARN_ON_ONCE(!irqs_disabled());
	for (;;) {
		int cpu = READ_ONCE(t->cpu);
		struct timer_base *b = &bases[cpu];

		spin_lock(&b->lock);
		if (READ_ONCE(t->cpu) == cpu)
			return b;
		spin_unlock_no_resched(&b->lock);
	}
}

extern char __text_start[], __text_end[];

static bool in_text(u64 addr)
{
	return addr >= (u64)__text_start && addr < (u64)__text_end;
}

/* A node met on base b's lists must be a timer of b: a stale node (a
 * timer whose memory was reused while linked, say an on-stack one) shows
 * up here as a node with no callback or the wrong home, or fails its
 * owner's check (timer_set_check()). b->lock held. */
static void check_node(const struct timer_base *b, const struct timer_list *t)
{
	u64 fn = (u64)t->fn, check = (u64)t->check;

	if (unlikely(!in_text(fn) || (check && !in_text(check)) || t->cpu != b - bases)) {
		const char *owner = kstack_owner((u64)t);

		panic("timer base of cpu%ld: node %p (%s%s) is not one of its timers: callback "
		      "%lx, check %lx, home cpu %d",
		      (long)(b - bases), t, owner ? "on the stack of " : "heap or static",
		      owner ? owner : "", fn, check, t->cpu);
	}
	if (t->check)
		t->check(t);
}

/* Insert t into list (a slot of b, or b's expired list), keeping it sorted
 * by expiry. b->lock held. */
static void insert_sorted(const struct timer_base *b, struct list_head *list, struct timer_list *t)
{
	struct timer_list *pos;

	assert_spin_locked(&b->lock);
	list_for_each_entry(pos, list, entry) {
		check_node(b, pos);
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
	insert_sorted(b, &b->slots[tick % WHEEL_SLOTS], t);
}

static bool detach(struct timer_list *t)
{
	unsigned long flags = local_irq_save();
	struct timer_base *b = lock_timer_base(t);
	bool was = !list_empty(&t->entry);

	list_del_init(&t->entry);
	spin_unlock_no_resched(&b->lock);
	local_irq_restore(flags);
	return was;
}

/*
 * (Re)arm t on cpu's wheel, or the first online CPU's if cpu is offline;
 * returns whether t was pending. Done under the lock of t's home base
 * and the target's, taken in CPU order: two CPUs arming the same timer
 * at once (a callback re-arming itself while someone calls mod_timer)
 * must not link it into two lists.
 */
static bool arm_timer(struct timer_list *t, u64 expires, unsigned int cpu)
{
	unsigned long flags = local_irq_save();

	for (;;) {
		int home = READ_ONCE(t->cpu);
		struct timer_base *hb = &bases[home], *b = &bases[cpu];
		struct timer_base *first = hb < b ? hb : b, *second = hb < b ? b : hb;

		spin_lock(&first->lock);
		if (second != first)
			spin_lock_nested(&second->lock, SINGLE_DEPTH_NESTING);
		/* cpu_online is checked under the lock that timers_migrate()
		 * takes once a CPU is out of cpu_online_mask: a timer never
		 * lands on a dead wheel. */
		bool moved = READ_ONCE(t->cpu) != home;
		bool dead = !cpu_online(cpu) && cpumask_first(&cpu_online_mask) < NR_CPUS;
		bool was = !list_empty(&t->entry);

		if (!moved && !dead) {
			list_del_init(&t->entry);
			t->expires = expires;
			enqueue_timer(b, cpu, t); /* its new home: both locks held */
		}
		if (second != first)
			spin_unlock_no_resched(&second->lock);
		spin_unlock_no_resched(&first->lock);
		if (!moved && !dead) {
			local_irq_restore(flags);
			return was;
		}
		if (dead)
			cpu = cpumask_first(&cpu_online_mask); /* (before SMP: none yet) */
		cpu_relax();
	}
}

void add_timer_on(struct timer_list *t, u64 expires, unsigned int cpu)
{
	if (arm_timer(t, expires, cpu))
		WARN_ONCE(1, "add_timer of a pending timer (%pS): re-armed", t->fn);
}

void add_timer(struct timer_list *t, u64 expires)
{
	unsigned long flags = local_irq_save();

	add_timer_on(t, expires, smp_processor_id());
	local_irq_restore(flags);
}

bool mod_timer(struct timer_list *t, u64 expires)
{
	unsigned long flags = local_irq_save();
	bool was = arm_timer(t, expires, smp_processor_id());

	local_irq_restore(flags);
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
	return READ_ONCE(t->entry.next) != &t->entry; /* a glance without the lock */
}

void run_timers(void)
{
	struct timer_base *b = &bases[smp_processor_id()];
	u64 now = ktime_get_ns(), now_tick = now / TICK_NS;
	LIST_HEAD(expired); /* sorted by expiry */

	spin_lock(&b->lock);
	/* Collect what is due from the slots of the ticks that passed. */
	u64 first = max(b->next_tick, now_tick >= WHEEL_SLOTS ? now_tick - WHEEL_SLOTS + 1 : 0);

	for (u64 tick = first; tick <= now_tick; tick++) {
		struct timer_list *t, *n;

		list_for_each_entry_safe(t, n, &b->slots[tick % WHEEL_SLOTS], entry) {
			check_node(b, t);
			if (t->expires > now)
				break; /* sorted: the rest of the slot is later */
			list_del(&t->entry);
			insert_sorted(b, &expired, t);
		}
	}
	b->next_tick = now_tick + 1;
	/* Run them in order, without the lock: a callback may re-arm itself. */
	while (!list_empty(&expired)) {
		struct timer_list *t = list_first_entry(&expired, struct timer_list, entry);

		/* Running before it stops being pending: del_timer_sync() may
		 * look at the two without our lock, and must then see the
		 * callback as running (or a sleeper's on-stack timer could fire
		 * after its owner left). */
		void (*fn)(struct timer_list *) = t->fn; /* t may be gone after it */

		b->running = t;
		barrier();
		list_del_init(&t->entry);
		spin_unlock(&b->lock);
		fn(t);
		if (WARN_ONCE(!irqs_disabled(), "timer callback %pS returned with interrupts on",
			      fn))
			local_irq_disable();
		spin_lock(&b->lock);
		b->running = NULL;
	}
	spin_unlock_no_resched(&b->lock);
}

void timers_migrate(unsigned int from, unsigned int to)
{
	struct timer_base *src = &bases[from], *dst = &bases[to];
	unsigned long flags = local_irq_save();

	/* Two bases: lock in CPU order. */
	spin_lock(from < to ? &src->lock : &dst->lock);
	spin_lock_nested(from < to ? &dst->lock : &src->lock, SINGLE_DEPTH_NESTING);
	for (unsigned int s = 0; s < WHEEL_SLOTS; s++)
		while (!list_empty(&src->slots[s])) {
			struct timer_list *t =
				list_first_entry(&src->slots[s], struct timer_list, entry);

			list_del_init(&t->entry);
			enqueue_timer(dst, to, t);
		}
	spin_unlock_no_resched(&src->lock);
	spin_unlock_no_resched(&dst->lock);
	local_irq_restore(flags);
}

unsigned int timers_check(void)
{
	unsigned int bad = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct timer_base *b = &bases[cpu];
		unsigned long flags = spin_lock_irqsave(&b->lock);

		for (unsigned int s = 0; s < WHEEL_SLOTS; s++) {
			struct list_head *head = &b->slots[s], *pos = head;
			unsigned int n = 0;

			do {
				struct list_head *next = pos->next;

				if (next->prev != pos) {
					bad++;
					break;
				}
				if (next != head &&
				    container_of(next, struct timer_list, entry)->cpu != (int)cpu)
					bad++;
				pos = next;
			} while (pos != head && ++n < 100000);
		}
		spin_unlock_irqrestore(&b->lock, flags);
	}
	return bad;
}
