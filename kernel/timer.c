/* kernel/timer.c - per-CPU timer queues; see timer.h.
 *
 * Each CPU keeps its pending timers in a red-black tree ordered by expiry
 * in nanoseconds (ties in the order they were armed), with the leftmost,
 * the earliest, cached: the CPU's clock event (kernel/time.c) is
 * programmed for it. Why a tree (docs/scheduler.md, "Timers"): expiry is
 * exact, so the earliest must be found at once at every interrupt, which
 * a hashed wheel cannot do without a scan and a sorted list pays for at
 * every insert; a heap would need an array grown while interrupts are off.
 * A tree allocates nothing, and arming or cancelling is O(log n) in the
 * CPU's own pending timers, a few dozen at most in practice: the timeouts
 * that are cancelled before they fire (most of them) cost one walk down
 * and one rebalancing.
 */
#include "kernel/timer.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cpu_masks.h"
#include "kernel/deterministic.h"
#include "kernel/lockdep.h"
#include "kernel/mm/kstack.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/trace.h"

struct timer_base {
	struct spinlock lock;
	struct rb_root_cached queue;	     /* lock: pending timers by expiry */
	u64 next_expiry;		     /* lock to write; its CPU reads it
					      * without: the first's expiry, or
					      * KTIME_MAX */
	struct timer_list *volatile running; /* lock to write; read under
					      * the home base lock of the
					      * timer looked for instead
					      * (timer_running_on()): the
					      * callback in progress */
	unsigned int nr_pending;	     /* lock */
	u64 nr_armed;			     /* lock: timers queued here, ever */
	u64 nr_expired;			     /* lock to write; del_timer_sync()
					      * waits on it without: callbacks
					      * run here, ever */
	u64 nr_passes;			     /* lock: run_timers() calls, ever */
} __aligned(64);

static struct timer_base bases[NR_CPUS];

void timers_init(void)
{
	for (unsigned int i = 0; i < NR_CPUS; i++) {
		spin_lock_init(&bases[i].lock, "timer_base");
		bases[i].queue = RB_ROOT_CACHED;
		bases[i].next_expiry = KTIME_MAX;
	}
}

void __timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t), const char *name,
		   const struct lock_class_key *key)
{
	lockdep_init_map(&t->lockdep_map, name, key, LD_TIMER);
	RB_CLEAR_NODE(&t->node);
	t->pending = false;
	t->fn = fn;
	t->check = NULL;
	/* Its home base until it is first armed: this CPU's, where it will
	 * most likely be armed (an on-stack sleeper's timer is), so that
	 * arming it takes one base lock, not this one and cpu0's. */
	t->cpu = (int)smp_processor_id();
	t->run_cpu = t->cpu; /* never run: that base's running is not t */
	t->run_overlap = false;
	t->expires = 0;
	t->armed_pass = 0;
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
static struct timer_base *lock_timer_base(const struct timer_list *t)
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

/* A node met in base b's tree must be a timer of b: a stale node (a timer
 * whose memory was reused while queued, say an on-stack one) shows up here
 * as a node with no callback or the wrong home, or fails its owner's check
 * (timer_set_check()). b->lock held, not asserted here: enqueue_timer()
 * asserts it, run_timers() took it itself (this one runs for every
 * node an arm walks past). */
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

/* b's earliest pending timer, or NULL. b->lock held, not asserted here:
 * its callers take it or assert it (this one is on every arm and every
 * expiry). */
static struct timer_list *first_timer(const struct timer_base *b)
{
	struct rb_node *n = rb_first_cached(&b->queue);

	return n ? rb_entry(n, struct timer_list, node) : NULL;
}

/* The base's earliest expiry may have changed; if it moved earlier, tell
 * its CPU's clock event (at once if it is this CPU, by a kick on another;
 * one that moved later costs one early interrupt at most: kernel/time.h).
 * b->lock held, interrupts off. */
static void base_next_changed(struct timer_base *b)
{
	const struct timer_list *first = first_timer(b);
	u64 old = b->next_expiry, next = first ? first->expires : KTIME_MAX;
	unsigned int cpu = (unsigned int)(b - bases);

	assert_spin_locked(&b->lock);
	if (next == old)
		return;
	WRITE_ONCE(b->next_expiry, next);
	if (next > old)
		return;
	if (cpu == smp_processor_id())
		clockevent_earlier(next, 0);
	else
		clockevent_kick(cpu);
}

/* Queue t on b (its home from now on), after any timer of the same
 * expiry. b->lock held. */
static void enqueue_timer(struct timer_base *b, unsigned int cpu, struct timer_list *t)
{
	struct rb_node **link = &b->queue.root.node, *parent = NULL;
	bool leftmost = true;

	assert_spin_locked(&b->lock);
	WRITE_ONCE(t->cpu, (int)cpu); /* read without the lock by arm_timer() */
	while (*link) {
		struct timer_list *pos = rb_entry(*link, struct timer_list, node);

		check_node(b, pos);
		parent = *link;
		if (t->expires < pos->expires) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_link_node(&t->node, parent, link);
	rb_insert_color_cached(&t->node, &b->queue, leftmost);
	t->armed_pass = b->nr_passes;
	WRITE_ONCE(t->pending, true);
	b->nr_pending++;
	b->nr_armed++;
}

/* Take pending t off b. b->lock held. */
static void dequeue_timer(struct timer_base *b, struct timer_list *t)
{
	assert_spin_locked(&b->lock);
	rb_erase_cached(&t->node, &b->queue);
	RB_CLEAR_NODE(&t->node);
	WRITE_ONCE(t->pending, false);
	b->nr_pending--;
}

/* Take t off its queue if it is pending there; returns whether it was. b,
 * t's home base, locked: its two callers lock it just before (no second
 * check here, on every cancel). */
static bool detach_locked(struct timer_base *b, struct timer_list *t)
{
	if (!t->pending)
		return false;
	dequeue_timer(b, t);
	base_next_changed(b);
	return true;
}

/*
 * Is a callback of t running? del_timer_sync() and timer_active() decide
 * "no callback of t runs on any CPU" under the lock of t's home base,
 * which makes the verdict exact, not two glances at different moments:
 *
 * - No callback of t can start while that lock is held. One starts only
 *   when run_timers() takes t off its queue, under that base's lock, and a
 *   pending t is queued on its home base; arming t anywhere takes the home
 *   base's lock as well (a callback moving its own timer to another CPU
 *   included). So a base's running found not to be t stays not t until the
 *   lock is let go, whatever that base does meanwhile: "none runs" cannot
 *   turn false during the decision. One found to be t may turn NULL as it
 *   is read (its own base's lock guards it): "one runs" is then a moment
 *   late, and the caller looks again.
 * - Where to look. run_timers() records in t->run_cpu the CPU that takes t
 *   to run, under that base's lock, which is t's home's lock then (t is
 *   queued there): run_cpu, like the rest of t, is guarded by whichever
 *   lock is t's home's. A callback of t runs on run_cpu, unless two
 *   overlap: t was re-armed on another CPU while a callback ran (by the
 *   callback, with add_timer_on() or a mod_timer() that moves it, or by
 *   anyone else), and fired there before that callback returned.
 *   run_timers() sees it as it takes t: the previous run_cpu's running is
 *   still t (which cannot become t anew while t is queued elsewhere). It
 *   sets t->run_overlap, and then every CPU's running is looked at, until
 *   a del_timer_sync() finds none running t and clears it.
 *
 * Linux's try_to_del_timer_sync() looks at the running timer of t's
 * current base only: its __mod_timer() never moves a timer whose callback
 * runs, but its add_timer_on() does, and then the earlier callback can be
 * missed. Here run_cpu alone (the latest) would miss an earlier callback
 * that outlives the later one, and reading pending and the bases without
 * the lock, as before, a later one that starts behind the scan.
 */

/* A CPU where a callback of t runs, or -1 if none does. t's home base
 * locked. */
static int timer_running_on(const struct timer_list *t)
{
	assert_spin_locked(&bases[t->cpu].lock);
	if (!t->run_overlap)
		return READ_ONCE(bases[t->run_cpu].running) == t ? t->run_cpu : -1;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (READ_ONCE(bases[cpu].running) == t)
			return (int)cpu;
	return -1;
}

static bool detach(struct timer_list *t)
{
	unsigned long flags = local_irq_save();
	struct timer_base *b = lock_timer_base(t);
	bool was = detach_locked(b, t);

	spin_unlock_no_resched(&b->lock);
	local_irq_restore(flags);
	return was;
}

/*
 * (Re)arm t on cpu's queue, or the first online CPU's if cpu is offline;
 * returns whether t was pending. Done under the lock of t's home base
 * and the target's, taken in CPU order: two CPUs arming the same timer
 * at once (a callback re-arming itself while someone calls mod_timer)
 * must not link it into two trees.
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
		 * lands on a dead CPU's queue, even one armed there by its own
		 * dying steps after the timers' step. */
		bool moved = READ_ONCE(t->cpu) != home;
		bool dead = !cpu_online(cpu) && cpumask_first(&cpu_online_mask) < NR_CPUS;
		/* Only under its home base's lock: moved, another CPU may be
		 * unlinking it from its new home right now (KCSAN found this). */
		bool was = !moved && timer_pending(t);

		if (!moved && !dead) {
			if (was)
				dequeue_timer(hb, t);
			t->expires = expires;
			enqueue_timer(b, cpu, t); /* its new home: both locks held */
			if (hb != b)
				base_next_changed(hb);
			base_next_changed(b);
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

/* Disarm t and decide, under its home base's lock ("Is a callback of t
 * running?" above), that no callback of it runs; while one does, wait for
 * it without the lock, then look again (as Linux loops on
 * try_to_del_timer_sync()): the callback may re-arm t, which takes that
 * lock, and t may even fire elsewhere before it returns. Once none runs
 * and t is not pending, only someone other than its callback can arm it. */
bool del_timer_sync(struct timer_list *t)
{
	bool was = false;

	/* For the validator: it waits for the callback, which runs holding
	 * the timer (run_timers()); checked whether or not it runs now. */
	lock_wait_for(&t->lockdep_map, t, __builtin_return_address(0));
	for (;;) {
		unsigned long flags = local_irq_save();
		struct timer_base *b = lock_timer_base(t);
		int cpu;
		u64 done = 0;

		was |= detach_locked(b, t);
		cpu = timer_running_on(t);
		if (cpu < 0)
			t->run_overlap = false; /* none runs: run_cpu is enough again */
		else
			done = READ_ONCE(bases[cpu].nr_expired);
		spin_unlock_no_resched(&b->lock);
		local_irq_restore(flags);
		if (cpu < 0)
			return was;
		/* Until that CPU counts a callback done (it does as it clears
		 * running): a glance at running alone could miss the moment
		 * between two callbacks of t there. */
		while (READ_ONCE(bases[cpu].running) == t &&
		       READ_ONCE(bases[cpu].nr_expired) == done)
			cpu_relax();
	}
}

bool timer_active(const struct timer_list *t)
{
	unsigned long flags = local_irq_save();
	struct timer_base *b = lock_timer_base(t);
	bool active = t->pending || timer_running_on(t) >= 0;

	spin_unlock_no_resched(&b->lock);
	local_irq_restore(flags);
	return active;
}

bool timer_pending(const struct timer_list *t)
{
	return READ_ONCE(t->pending); /* a glance without the lock */
}

u64 timers_next_expiry(void)
{
	return READ_ONCE(bases[smp_processor_id()].next_expiry);
}

unsigned int run_timers(void)
{
	unsigned int cpu = smp_processor_id();
	struct timer_base *b = &bases[cpu];
	u64 now = ktime_get_ns(), pass;
	unsigned int n = 0;
	struct timer_list *t;

	assert(irqs_disabled());
	spin_lock(&b->lock);
	pass = ++b->nr_passes;
	/* In expiry order, each without the lock (a callback may re-arm
	 * itself). One queued during this pass (armed_pass), here or from
	 * another CPU, stops it: it and those behind it wait for the next
	 * interrupt, which the clock event programs at once when it is due
	 * already (clockevent_interrupt()). So a callback that re-arms itself
	 * for now or earlier, every time, runs once an interrupt instead of
	 * keeping its CPU in this one, and every timer still runs in expiry
	 * order: each taken is the earliest queued. */
	while ((t = first_timer(b)) && t->expires <= now && t->armed_pass != pass) {
		check_node(b, t);
		void (*fn)(struct timer_list *) = t->fn; /* t may be gone after it */
		/* For the validator the callback holds the timer (del_timer_sync()
		 * waits for it), through a copy of its map: once off the queue, t
		 * may be freed or set up again (by the callback, or its owner).
		 * With lockdep=0, no copy. */
		bool validated = READ_ONCE(lockdep_active);
		const void *at = (const char *)fn + 1; /* "taken at" the callback */
		struct lockdep_map map;

		if (validated)
			map = t->lockdep_map;
		/* Where its callback runs, for del_timer_sync(): an earlier one
		 * still running on another CPU makes two ("Is a callback of t
		 * running?"). */
		if (t->run_cpu != (int)cpu && READ_ONCE(bases[t->run_cpu].running) == t)
			t->run_overlap = true;
		t->run_cpu = (int)cpu;
		WRITE_ONCE(b->running, t);
		dequeue_timer(b, t);
		base_next_changed(b);
		spin_unlock(&b->lock);
		trace_event(TR_TIMER_EXPIRE, NULL, (u64)t, (u64)fn);
		if (validated)
			lock_acquire(&map, 0, 0, t, at);
		fn(t);
		if (validated)
			lock_release(t, at);
		if (WARN_ONCE(!irqs_disabled(), "timer callback %pS returned with interrupts on",
			      fn))
			local_irq_disable();
		spin_lock(&b->lock);
		WRITE_ONCE(b->running, NULL);
		WRITE_ONCE(b->nr_expired, b->nr_expired + 1);
		n++;
	}
	spin_unlock_no_resched(&b->lock);
	return n;
}

void timers_get_stats(unsigned int cpu, struct timer_stats *st)
{
	struct timer_base *b = &bases[cpu];
	unsigned long flags = spin_lock_irqsave(&b->lock);

	*st = (struct timer_stats){ .nr_pending = b->nr_pending,
				    .nr_armed = b->nr_armed,
				    .nr_expired = b->nr_expired,
				    .nr_passes = b->nr_passes,
				    .next_expiry = b->next_expiry };
	spin_unlock_irqrestore(&b->lock, flags);
}

void timers_migrate(unsigned int from, unsigned int to)
{
	struct timer_base *src = &bases[from], *dst = &bases[to];
	struct timer_list *t;

	delay_point(DP_TIMER_MOVE);
	unsigned long flags = local_irq_save();

	/* Two bases: lock in CPU order. */
	spin_lock(from < to ? &src->lock : &dst->lock);
	spin_lock_nested(from < to ? &dst->lock : &src->lock, SINGLE_DEPTH_NESTING);
	/* Earliest first: equal expiries keep their order on the new CPU. */
	while ((t = first_timer(src))) {
		dequeue_timer(src, t);
		enqueue_timer(dst, to, t);
	}
	base_next_changed(src);
	base_next_changed(dst);
	spin_unlock_no_resched(&src->lock);
	spin_unlock_no_resched(&dst->lock);
	local_irq_restore(flags);
}

/* Check one subtree of a CPU's queue: parent links that point back, keys
 * in order, every timer's home that CPU. Returns the problems found; at
 * most budget nodes are visited (a cycle must not hang the check). */
static unsigned int check_subtree(const struct rb_node *n, const struct rb_node *parent,
				  unsigned int cpu, unsigned int *budget)
{
	unsigned int bad = 0;

	for (; n; parent = n, n = n->right) {
		const struct timer_list *t = rb_entry(n, struct timer_list, node);

		if (!(*budget)-- || rb_parent(n) != parent)
			return bad + 1;
		if (t->cpu != (int)cpu)
			bad++;
		if (n->left && rb_entry(n->left, struct timer_list, node)->expires > t->expires)
			bad++;
		if (n->right && rb_entry(n->right, struct timer_list, node)->expires < t->expires)
			bad++;
		bad += check_subtree(n->left, n, cpu, budget);
	}
	return bad;
}

unsigned int timers_check(void)
{
	unsigned int bad = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct timer_base *b = &bases[cpu];
		unsigned long flags = spin_lock_irqsave(&b->lock);
		unsigned int budget = 100000;
		const struct timer_list *first = first_timer(b);

		bad += check_subtree(b->queue.root.node, NULL, cpu, &budget);
		if (rb_first_cached(&b->queue) != rb_first(&b->queue.root) ||
		    b->next_expiry != (first ? first->expires : KTIME_MAX))
			bad++;
		spin_unlock_irqrestore(&b->lock, flags);
	}
	return bad;
}
