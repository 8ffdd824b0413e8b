/* kernel/workqueue/pool.c - the pools and the workqueues in front of them:
 * the per-CPU pools (the standard two, and one per nice level asked for),
 * the unbound pools keyed by attributes, each workqueue's pwqs and CPU
 * map, attribute changes, creating and destroying workqueues, freezing,
 * and workqueue_init(). workqueue.h ("Pools, not threads per workqueue",
 * and struct workqueue_attrs) says how they fit.
 *
 * It owns the lists of pools and workqueues (wq_pool_mutex) and each
 * workqueue's pwqs (wq->mutex); a pool's first worker comes from manage.c,
 * its timers' callbacks from adapt.c and manage.c, its reaping and trustee
 * work from adapt.c and trustee.c.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/workqueue/internal.h"
#include "lib/errno.h"
#include "lib/string.h"

struct worker_pool cpu_pools[NR_CPUS][NR_STD_POOLS];
/* The per-CPU pools of a nice other than the standard two (0 and -20),
 * indexed by nice - NICE_MIN: made the first time a bound workqueue asks
 * for that nice, one pool per possible CPU, and kept. Set under PM and the
 * hotplug lock, so the hotplug callbacks see a set that does not change. */
static struct worker_pool **nice_pools[NR_NICE_LEVELS]; /* PM+H; read with READ_ONCE */
DEFINE_MUTEX(wq_pool_mutex);
LIST_HEAD(unbound_pools);
LIST_HEAD(workqueues);
static bool wq_freezing; /* PM */
static int next_pool_id; /* PM */
DEFINE_SPINLOCK(wq_mayday_lock);
struct workqueue_struct *system_wq;
struct workqueue_struct *system_highpri_wq;
struct workqueue_struct *system_long_wq;
struct workqueue_struct *system_unbound_wq;
/* The trustees' own (docs/hotplug.md): unbound, with a rescuer, so that a
 * dying CPU's work is taken over even when no worker can be had, and high
 * priority: a hand-over is short and urgent work, and its pool is the
 * unbound high-priority one, not system_unbound_wq's, so that a CPU's
 * hand-over never waits behind whatever fills that (a starved hand-over
 * once reached the trustees through it). */
struct workqueue_struct *trustee_wq;

/* cpu's pool of nice: NULL for a nice level not made yet. */
static struct worker_pool *cpu_pool(unsigned int cpu, int nice)
{
	if (nice == 0)
		return &cpu_pools[cpu][WQ_POOL_NORMAL];
	if (nice == HIGHPRI_NICE)
		return &cpu_pools[cpu][WQ_POOL_HIGHPRI];
	struct worker_pool **level = READ_ONCE(nice_pools[nice - NICE_MIN]);

	return level ? level[cpu] : NULL;
}

struct worker_pool *next_cpu_pool(unsigned int cpu, unsigned int *i)
{
	while (*i < NR_STD_POOLS + NR_NICE_LEVELS) {
		unsigned int n = (*i)++;

		if (n < NR_STD_POOLS)
			return &cpu_pools[cpu][n];
		struct worker_pool **level = READ_ONCE(nice_pools[n - NR_STD_POOLS]);

		if (level)
			return level[cpu];
	}
	return NULL;
}

/* ---- pools -------------------------------------------------------------- */

/* 0, or -ENOMEM (the pool is unusable then; nothing to undo). */
static int init_pool(struct worker_pool *pool, unsigned int cpu, int nice)
{
	pool->busy_hash = kcalloc(BUSY_HASH_SIZE, sizeof(*pool->busy_hash));
	if (!pool->busy_hash)
		return -ENOMEM;
	spin_lock_init(&pool->lock, "pool->lock");
	pool->cpu = cpu;
	pool->hog_watched = cpu != WORK_CPU_UNBOUND; /* (init_bh_pool() clears it) */
	pool->attrs.nice = nice;
	if (cpu != WORK_CPU_UNBOUND)
		cpumask_set_cpu(cpu, &pool->attrs.cpumask);
	INIT_LIST_HEAD(&pool->worklist);
	INIT_LIST_HEAD(&pool->idle_list);
	INIT_LIST_HEAD(&pool->workers);
	for (int i = 0; i < BUSY_HASH_SIZE; i++)
		INIT_LIST_HEAD(&pool->busy_hash[i]);
	INIT_LIST_HEAD(&pool->unbound_node);
	timer_setup(&pool->idle_timer, idle_worker_timeout);
	timer_setup(&pool->mayday_timer, pool_mayday_timeout);
	timer_setup(&pool->create_timer, pool_create_timeout);
	timer_setup(&pool->hog_timer, pool_hog_timeout);
	INIT_WORK(&pool->idle_cull_work, idle_cull_fn);
	INIT_DELAYED_WORK(&pool->trustee_work, trustee_fn);
	init_waitqueue_head(&pool->trustee_wait);
	return 0;
}

static bool attrs_equal(const struct workqueue_attrs *a, const struct workqueue_attrs *b)
{
	return a->nice == b->nice && cpumask_equal(&a->cpumask, &b->cpumask);
}

/* A reference to the unbound pool for attrs, with at least one worker:
 * an existing one, an unused one re-keyed, or a new one. PM held. */
static struct worker_pool *get_unbound_pool(const struct workqueue_attrs *attrs)
{
	struct worker_pool *pool, *found = NULL;
	unsigned long flags;

	assert(mutex_owned(&wq_pool_mutex));
	list_for_each_entry(pool, &unbound_pools, unbound_node)
		if (attrs_equal(&pool->attrs, attrs)) {
			found = pool;
			break;
		}
	if (!found) {
		/* Re-key an unused pool whose workers are all gone. */
		list_for_each_entry(pool, &unbound_pools, unbound_node) {
			flags = spin_lock_irqsave(&pool->lock);
			if (pool->refcnt == 0 && pool->nr_workers == 0 && !pool->manager_active) {
				pool->attrs = *attrs;
				found = pool;
			}
			spin_unlock_irqrestore(&pool->lock, flags);
			if (found)
				break;
		}
	}
	if (!found) {
		found = kzalloc(sizeof(*found));
		if (!found || init_pool(found, WORK_CPU_UNBOUND, attrs->nice)) {
			kfree(found);
			return NULL;
		}
		found->attrs = *attrs;
		found->id = next_pool_id++;
		list_add_tail(&found->unbound_node, &unbound_pools);
	}
	flags = spin_lock_irqsave(&found->lock);
	found->refcnt++;
	bool empty = found->nr_workers == 0;

	spin_unlock_irqrestore(&found->lock, flags);
	if (empty && !create_worker(found)) {
		flags = spin_lock_irqsave(&found->lock);
		found->refcnt--;
		spin_unlock_irqrestore(&found->lock, flags);
		return NULL;
	}
	return found;
}

/* A pwq takes a reference to its per-CPU pool. PM held. */
static void get_cpu_pool(struct worker_pool *pool)
{
	assert(mutex_owned(&wq_pool_mutex));
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	pool->refcnt++;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* Drop a pwq's reference. An unused unbound pool's idle workers go at
 * once; an unused per-CPU pool (a nice level nobody uses any more) keeps
 * one, the rest reaped on its CPU (the idle-list rule) by its timer, now.
 * PM held. */
static void put_pool(struct worker_pool *pool)
{
	assert(mutex_owned(&wq_pool_mutex));
	unsigned long flags = spin_lock_irqsave(&pool->lock);
	u64 now = ktime_get_ns();

	if (--pool->refcnt == 0 && !pool->bh) {
		if (!pool_is_bound(pool))
			destroy_idle_workers(pool);
		else if (too_many_workers(pool, now))
			arm_idle_timer(pool, now);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* Make sure the per-CPU pools of nice exist and that each online CPU's has
 * a worker: 0, or -ENOMEM (pools and workers made stay, unused, for another
 * try; a level whose pools could not all be allocated is freed). PM and
 * the hotplug lock held, so no CPU comes or goes meanwhile. */
static int get_nice_level(int nice)
{
	struct worker_pool **level;
	unsigned int cpu;

	assert(mutex_owned(&wq_pool_mutex) && cpus_locked());
	if (nice == 0 || nice == HIGHPRI_NICE)
		return 0; /* the standard pools, made at boot */
	level = nice_pools[nice - NICE_MIN];
	if (!level) {
		level = kcalloc(NR_CPUS, sizeof(*level));
		if (!level)
			return -ENOMEM;
		for_each_possible_cpu(cpu) {
			struct worker_pool *pool = kzalloc(sizeof(*pool));

			if (!pool || init_pool(pool, cpu, nice)) {
				kfree(pool);
				goto fail;
			}
			pool->id = next_pool_id++;
			WRITE_ONCE(pool->disassociated, !cpu_online(cpu)); /* until cpu_up() */
			level[cpu] = pool;
		}
		/* The hotplug callbacks walk it from now on. */
		WRITE_ONCE(nice_pools[nice - NICE_MIN], level);
	}
	for_each_online_cpu(cpu)
		if (!READ_ONCE(level[cpu]->nr_workers) && !create_worker(level[cpu]))
			return -ENOMEM;
	return 0;
fail:
	for_each_possible_cpu(cpu)
		if (level[cpu]) {
			kfree(level[cpu]->busy_hash);
			kfree(level[cpu]);
		}
	kfree(level);
	return -ENOMEM;
}

/* ---- workqueues --------------------------------------------------------- */

static struct pool_workqueue *alloc_pwq(struct workqueue_struct *wq, struct worker_pool *pool)
{
	struct pool_workqueue *pwq = kzalloc(sizeof(*pwq));

	if (!pwq)
		return NULL;
	pwq->wq = wq;
	pwq->pool = pool;
	pwq->max_active = (wq_freezing && (wq->flags & WQ_FREEZABLE)) ? 0 : wq->saved_max_active;
	INIT_LIST_HEAD(&pwq->inactive);
	INIT_LIST_HEAD(&pwq->mayday_node);
	list_add_tail(&pwq->pwqs_node, &wq->pwqs);
	return pwq;
}

/* Drop the pool references of retired pwqs that have drained (their
 * memory stays until the workqueue goes: a queuer may still look at one).
 * M and PM held. */
static void release_retired_pwqs(struct workqueue_struct *wq)
{
	struct pool_workqueue *pwq;

	assert_mutex_held(&wq->mutex);
	assert_mutex_held(&wq_pool_mutex);
	list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
		if (!pwq->retired || pwq->released)
			continue;
		unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

		spin_lock(&wq_mayday_lock);
		bool idle = pwq->nr_in_flight == 0 && pwq->nr_barriers == 0 &&
			    list_empty(&pwq->mayday_node);

		spin_unlock_no_resched(&wq_mayday_lock);
		spin_unlock_irqrestore(&pwq->pool->lock, flags);
		if (idle) {
			pwq->released = true;
			put_pool(pwq->pool);
		}
	}
}

/* Why wq cannot take attrs, in words; NULL if it can. */
static const char *attrs_refusal(struct workqueue_struct *wq, const struct workqueue_attrs *attrs)
{
	if (wq->flags & WQ_BH)
		return "a BH workqueue's items run in the BH context of the CPU they are queued "
		       "for: it has no nice and no CPU mask";
	if (wq->flags & __WQ_ORDERED)
		return "an ordered workqueue keeps its attributes (a second pool would let its "
		       "next item start beside the last one)";
	if (attrs->nice < NICE_MIN || attrs->nice > NICE_MAX)
		return "nice must be -20..19";
	if (!cpumask_intersects(&attrs->cpumask, &cpu_active_mask))
		return "no CPU of the mask is active";
	if ((wq->flags & __WQ_FIXED_CPUS) && !cpumask_subset(&cpu_possible_mask, &attrs->cpumask))
		return "the CPUs of a system per-CPU workqueue are fixed (its users queue work "
		       "on exact CPUs)";
	return NULL;
}

/* Point each CPU's entry of a bound workqueue's map at the pwq its items go
 * to: the CPU's own, if the mask has it and it is active, or a mask
 * covers every possible CPU (an offline CPU's items then go to its pool,
 * and its trustee has them run elsewhere); otherwise one of the mask's
 * active CPUs, spread by CPU number. With none of them active, every CPU
 * maps to itself: items run anywhere rather than nowhere (Linux's fallback
 * for unbound workqueues). PM and M held. */
static void wq_update_cpu_map(struct workqueue_struct *wq)
{
	struct cpumask live;
	unsigned int cpu, n = 0;

	assert(mutex_owned(&wq_pool_mutex) && mutex_owned(&wq->mutex));
	if (wq->flags & WQ_UNBOUND)
		return;
	if (wq->restricted && cpumask_and(&live, &wq->attrs.cpumask, &cpu_active_mask))
		n = cpumask_weight(&live);
	for_each_possible_cpu(cpu) {
		unsigned int to = cpu;

		if (n && !cpumask_test_cpu(cpu, &live))
			to = cpumask_nth(cpu % n, &live);
		WRITE_ONCE(wq->cpu_pwqs[cpu], wq->pool_pwqs[to]);
	}
}

/* A CPU became active or stopped being so: remap the bound workqueues with
 * a CPU mask. May sleep; the hotplug lock held. */
void update_cpu_maps(void)
{
	struct workqueue_struct *wq;

	WARN_ON_ONCE(!cpus_locked());
	mutex_lock(&wq_pool_mutex);
	list_for_each_entry(wq, &workqueues, list) {
		mutex_lock(&wq->mutex);
		if (wq->restricted)
			wq_update_cpu_map(wq);
		mutex_unlock(&wq->mutex);
	}
	mutex_unlock(&wq_pool_mutex);
}

/* Move a bound workqueue to the per-CPU pools of nice: new pwqs for every
 * possible CPU, returned in *fresh; the caller swaps them in. 0 or -ENOMEM
 * (nothing changed). PM, M and the hotplug lock held. */
static int repool_bound(struct workqueue_struct *wq, int nice, struct pool_workqueue **fresh)
{
	int err = get_nice_level(nice);
	unsigned int cpu;

	assert_mutex_held(&wq_pool_mutex);
	assert_mutex_held(&wq->mutex);
	WARN_ON_ONCE(!cpus_locked());
	for_each_possible_cpu(cpu) {
		if (err)
			break;
		fresh[cpu] = alloc_pwq(wq, cpu_pool(cpu, nice));
		if (fresh[cpu])
			get_cpu_pool(fresh[cpu]->pool);
		else
			err = -ENOMEM;
	}
	if (err)
		for_each_possible_cpu(cpu)
			if (fresh[cpu]) {
				list_del(&fresh[cpu]->pwqs_node);
				put_pool(fresh[cpu]->pool);
				kfree(fresh[cpu]);
			}
	return err;
}

/* Mark a pwq replaced: queuers that still see it take the new one. */
static void retire_pwq(struct pool_workqueue *pwq)
{
	unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

	pwq->retired = true;
	spin_unlock_irqrestore(&pwq->pool->lock, flags);
}

/* PM and M held (wq_freezing is PM's). */
static void set_max_active_locked(struct workqueue_struct *wq, int max_active)
{
	struct pool_workqueue *pwq;

	assert(mutex_owned(&wq_pool_mutex) && mutex_owned(&wq->mutex));
	WRITE_ONCE(wq->saved_max_active, max_active);
	if (!(wq_freezing && (wq->flags & WQ_FREEZABLE)))
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

			pwq_set_max_active(pwq, max_active);
			spin_unlock_irqrestore(&pwq->pool->lock, flags);
		}
}

/* apply_workqueue_attrs() with its checks done: PM, M and the hotplug lock
 * held. 0 or -ENOMEM (nothing changed). */
static int apply_attrs_locked(struct workqueue_struct *wq, const struct workqueue_attrs *attrs)
{
	struct pool_workqueue **fresh = NULL;
	unsigned int cpu;

	assert_mutex_held(&wq_pool_mutex);
	assert_mutex_held(&wq->mutex);
	WARN_ON_ONCE(!cpus_locked());
	if (attrs_equal(&wq->attrs, attrs))
		return 0;
	if (wq->flags & WQ_UNBOUND) {
		struct worker_pool *pool = get_unbound_pool(attrs);
		struct pool_workqueue *pwq = pool ? alloc_pwq(wq, pool) : NULL;

		if (!pwq) {
			if (pool)
				put_pool(pool);
			return -ENOMEM;
		}
		struct pool_workqueue *old = wq->dfl_pwq;

		WRITE_ONCE(wq->dfl_pwq, pwq);
		retire_pwq(old);
	} else if (attrs->nice != wq->attrs.nice) {
		fresh = kcalloc(NR_CPUS, sizeof(*fresh));
		if (!fresh)
			return -ENOMEM;
		int err = repool_bound(wq, attrs->nice, fresh);

		if (err) {
			kfree(fresh);
			return err;
		}
		for_each_possible_cpu(cpu) { /* fresh: the old ones from now on */
			struct pool_workqueue *old = wq->pool_pwqs[cpu];

			wq->pool_pwqs[cpu] = fresh[cpu];
			fresh[cpu] = old;
		}
	}
	wq->attrs = *attrs;
	WRITE_ONCE(wq->restricted, !cpumask_subset(&cpu_possible_mask, &attrs->cpumask));
	wq_update_cpu_map(wq);
	if (fresh) {
		/* Only once the map points at the new ones: a queuer that sees
		 * a retired pwq retries, and must find another. */
		for_each_possible_cpu(cpu)
			retire_pwq(fresh[cpu]);
		kfree(fresh);
	}
	release_retired_pwqs(wq);
	return 0;
}

struct workqueue_attrs *alloc_workqueue_attrs(void)
{
	struct workqueue_attrs *attrs = kzalloc(sizeof(*attrs));

	if (attrs)
		cpumask_copy(&attrs->cpumask, &cpu_possible_mask);
	return attrs;
}

void free_workqueue_attrs(struct workqueue_attrs *attrs)
{
	kfree(attrs);
}

int apply_workqueue_attrs(struct workqueue_struct *wq, const struct workqueue_attrs *attrs)
{
	struct workqueue_attrs want = *attrs;
	int err = -EINVAL;

	might_sleep();
	cpumask_and(&want.cpumask, &want.cpumask, &cpu_possible_mask);
	cpus_read_lock();
	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	const char *why = attrs_refusal(wq, &want);

	if (why)
		pr_warn("apply_workqueue_attrs(%s, nice %d): refused: %s\n", wq->name, want.nice,
			why);
	else
		err = apply_attrs_locked(wq, &want);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	cpus_read_unlock();
	return err;
}

void workqueue_get_attrs(struct workqueue_struct *wq, struct workqueue_attrs *attrs)
{
	mutex_lock(&wq->mutex);
	*attrs = wq->attrs;
	mutex_unlock(&wq->mutex);
}

int workqueue_change(const char *name, const struct wq_change *ch, const char **why)
{
	struct workqueue_struct *wq;
	int err = -ENOENT;

	might_sleep();
	*why = "no workqueue of that name (see 'wq')";
	if (ch->max_active && (ch->max_active < 1 || ch->max_active > WQ_MAX_ACTIVE)) {
		*why = "max_active must be 1..512";
		return -EINVAL;
	}
	cpus_read_lock();
	mutex_lock(&wq_pool_mutex);
	list_for_each_entry(wq, &workqueues, list) {
		if (strcmp(wq->name, name))
			continue;
		mutex_lock(&wq->mutex);
		struct workqueue_attrs want = wq->attrs;

		if (ch->set_nice)
			want.nice = ch->nice;
		if (ch->set_cpus)
			cpumask_and(&want.cpumask, &ch->cpus, &cpu_possible_mask);
		*why = NULL;
		if (wq->destroying || wq->nr_drainers)
			*why = "it is being drained or destroyed";
		else if (ch->max_active && (wq->flags & __WQ_ORDERED))
			*why = "an ordered workqueue runs one item at a time";
		else if (ch->max_active && (wq->flags & WQ_BH))
			*why = "a BH workqueue has no max_active: its CPU's BH run takes its items "
			       "one after another";
		else if (ch->set_nice || ch->set_cpus)
			*why = attrs_refusal(wq, &want);
		err = *why ? -EINVAL : apply_attrs_locked(wq, &want);
		if (err == -ENOMEM)
			*why = "out of memory";
		else if (!err && ch->max_active)
			set_max_active_locked(wq, ch->max_active);
		mutex_unlock(&wq->mutex);
		break;
	}
	mutex_unlock(&wq_pool_mutex);
	cpus_read_unlock();
	return err;
}

static int clamp_max_active(const char *name, int max_active)
{
	if (max_active <= 0)
		return WQ_DFL_ACTIVE;
	if (max_active > WQ_MAX_ACTIVE) {
		pr_warn("workqueue %s: max_active %d is over %d; using %d\n", name, max_active,
			WQ_MAX_ACTIVE, WQ_MAX_ACTIVE);
		return WQ_MAX_ACTIVE;
	}
	return max_active;
}

/* Drop the pool references of wq's current pwqs (retired ones:
 * release_retired_pwqs). PM and M held. */
static void put_pools(struct workqueue_struct *wq)
{
	unsigned int cpu;

	assert_mutex_held(&wq->mutex);
	assert_mutex_held(&wq_pool_mutex);
	if (wq->dfl_pwq)
		put_pool(wq->dfl_pwq->pool);
	for_each_possible_cpu(cpu)
		if (wq->pool_pwqs[cpu])
			put_pool(wq->pool_pwqs[cpu]->pool);
}

static void free_wq(struct workqueue_struct *wq)
{
	struct pool_workqueue *pwq, *n;

	lockdep_unregister_key(&wq->lockdep_key);
	list_for_each_entry_safe(pwq, n, &wq->pwqs, pwqs_node)
		kfree(pwq);
	wq->magic = WQ_MAGIC_DEAD;
	kfree(wq);
}

/* Why a BH workqueue cannot be made with these (Linux's rules), or NULL. */
static const char *bh_refusal(unsigned int flags, int max_active)
{
	if (!(flags & WQ_BH))
		return NULL;
	if (flags & ~(WQ_BH | WQ_HIGHPRI))
		return "WQ_BH takes no flag but WQ_HIGHPRI (its items run in BH context on the CPU "
		       "they are queued for)";
	if (max_active)
		return "a BH workqueue's max_active must be 0";
	return NULL;
}

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active)
{
	unsigned int cpu;

	might_sleep();
	const char *why = bh_refusal(flags, max_active);

	if (why) {
		WARN_ONCE(1, "alloc_workqueue(%s, flags %#x, max_active %d): refused: %s", name,
			  flags, max_active, why);
		return NULL;
	}
	struct workqueue_struct *wq = kzalloc(sizeof(*wq));

	if (!wq)
		return NULL;
	if (flags & __WQ_ORDERED) {
		flags |= WQ_UNBOUND;
		max_active = 1;
	}
	strscpy(wq->name, name, sizeof(wq->name));
	/* A class of its own, dead at free_wq(). */
	lockdep_init_map(&wq->lockdep_map, wq->name, &wq->lockdep_key, LD_WQ);
	wq->flags = flags;
	wq->saved_max_active = clamp_max_active(name, max_active);
	mutex_init(&wq->mutex, "wq->mutex");
	mutex_init(&wq->flush_mutex, "wq->flush_mutex");
	spin_lock_init(&wq->flush_lock, "wq->flush_lock");
	init_waitqueue_head(&wq->flush_wait);
	INIT_LIST_HEAD(&wq->pwqs);
	INIT_LIST_HEAD(&wq->maydays);
	INIT_LIST_HEAD(&wq->list);
	wq->magic = WQ_MAGIC;

	wq->attrs.nice = (flags & WQ_HIGHPRI) ? HIGHPRI_NICE : 0;
	cpumask_copy(&wq->attrs.cpumask, &cpu_possible_mask);

	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	if (flags & WQ_UNBOUND) {
		struct worker_pool *pool = get_unbound_pool(&wq->attrs);

		wq->dfl_pwq = pool ? alloc_pwq(wq, pool) : NULL;
		if (!wq->dfl_pwq) {
			if (pool)
				put_pool(pool);
			goto fail;
		}
	} else {
		/* The standard pools of its nice (the BH ones for WQ_BH): every
		 * CPU maps to itself. */
		for_each_possible_cpu(cpu) {
			unsigned int hi = (flags & WQ_HIGHPRI) ? WQ_POOL_HIGHPRI : WQ_POOL_NORMAL;
			struct pool_workqueue *pwq =
				alloc_pwq(wq, (flags & WQ_BH) ? &bh_pools[cpu][hi] :
								cpu_pool(cpu, wq->attrs.nice));

			if (!pwq)
				goto fail;
			get_cpu_pool(pwq->pool);
			wq->pool_pwqs[cpu] = wq->cpu_pwqs[cpu] = pwq;
		}
	}
	if ((flags & WQ_MEM_RECLAIM) && !(wq->rescuer = create_rescuer(wq)))
		goto fail;
	list_add_tail(&wq->list, &workqueues);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	return wq;
fail:
	put_pools(wq);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	free_wq(wq);
	return NULL;
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	might_sleep();
	if (WARN_ONCE(!wq || wq->magic != WQ_MAGIC,
		      "destroy_workqueue of a destroyed workqueue (%p)", wq))
		return;
	/* For the validator: it waits for every item. */
	bool reported =
		lock_wait_for(&wq->lockdep_map, &wq->lockdep_map, __builtin_return_address(0));
	if (is_chained_work(wq)) {
		if (!reported)
			report_self_wait(
				"destroy_workqueue(%s) from its own item %pS would wait for "
				"itself forever",
				wq->name, current_worker()->current_func);
		return;
	}
	mutex_lock(&wq->mutex);
	int busy = wq_nr_in_flight(wq, ITEMS_ONLY); /* a returned flush_work's barrier is no misuse
						     */

	WRITE_ONCE(wq->destroying, true);
	mutex_unlock(&wq->mutex);
	int timers = atomic_read(&wq->nr_timers);

	WARN_ONCE(busy || timers,
		  "destroy_workqueue(%s) with %d items queued or running and %d delayed: draining "
		  "first",
		  wq->name, busy, timers);
	drain_workqueue(wq);
	if (atomic_read(&wq->nr_timers)) {
		/* Their timers will fire into this workqueue: keep it (marked
		 * destroying, so they are refused with a warning) rather than
		 * let them write into freed memory. */
		pr_err("destroy_workqueue(%s): %d delayed items still armed; the workqueue is "
		       "leaked\n",
		       wq->name, atomic_read(&wq->nr_timers));
		return;
	}
	if (wq->rescuer) {
		kthread_stop(wq->rescuer->thread);
		kfree(wq->rescuer);
	}
	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	list_del(&wq->list);
	release_retired_pwqs(wq);
	put_pools(wq);
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
	free_wq(wq);
}

void workqueue_set_max_active(struct workqueue_struct *wq, int max_active)
{
	if (WARN_ONCE(wq->flags & (__WQ_ORDERED | WQ_BH),
		      "workqueue_set_max_active(%s, %d) on %s workqueue: refused", wq->name,
		      max_active, (wq->flags & WQ_BH) ? "a BH" : "an ordered"))
		return;
	mutex_lock(&wq_pool_mutex);
	mutex_lock(&wq->mutex);
	set_max_active_locked(wq, clamp_max_active(wq->name, max_active));
	mutex_unlock(&wq->mutex);
	mutex_unlock(&wq_pool_mutex);
}

/* ---- freezing ----------------------------------------------------------- */

enum freeze_op { THAW, FREEZE };

/* Set every freezable pwq's max_active (FREEZE: 0); count the busy ones. PM held. */
static int freezable_set(enum freeze_op op)
{
	struct workqueue_struct *wq;
	struct pool_workqueue *pwq;
	int busy = 0;

	assert_mutex_held(&wq_pool_mutex);
	list_for_each_entry(wq, &workqueues, list) {
		if (!(wq->flags & WQ_FREEZABLE))
			continue;
		mutex_lock(&wq->mutex);
		list_for_each_entry(pwq, &wq->pwqs, pwqs_node) {
			unsigned long flags = spin_lock_irqsave(&pwq->pool->lock);

			pwq_set_max_active(pwq, op == FREEZE ? 0 : wq->saved_max_active);
			busy += pwq->nr_active;
			spin_unlock_irqrestore(&pwq->pool->lock, flags);
		}
		mutex_unlock(&wq->mutex);
	}
	return busy;
}

int workqueue_freeze(u64 timeout_ns)
{
	u64 deadline = ktime_get_ns() + timeout_ns;

	might_sleep();
	mutex_lock(&wq_pool_mutex);
	if (wq_freezing) {
		mutex_unlock(&wq_pool_mutex);
		pr_warn("workqueue_freeze: already frozen\n");
		return -EBUSY;
	}
	wq_freezing = true;
	int busy = freezable_set(FREEZE);

	mutex_unlock(&wq_pool_mutex);
	while (busy) {
		if (ktime_get_ns() > deadline) {
			pr_warn("workqueue_freeze: %d freezable items still running; thawing\n",
				busy);
			workqueue_thaw();
			return -EBUSY;
		}
		msleep(1);
		mutex_lock(&wq_pool_mutex);
		busy = freezable_set(FREEZE);
		mutex_unlock(&wq_pool_mutex);
	}
	return 0;
}

void workqueue_thaw(void)
{
	might_sleep();
	mutex_lock(&wq_pool_mutex);
	if (wq_freezing) {
		wq_freezing = false;
		freezable_set(THAW);
	}
	mutex_unlock(&wq_pool_mutex);
}

void workqueue_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (init_pool(&cpu_pools[cpu][WQ_POOL_NORMAL], cpu, 0) ||
		    init_pool(&cpu_pools[cpu][WQ_POOL_HIGHPRI], cpu, HIGHPRI_NICE))
			panic("workqueue: no memory for the pools of cpu%u", cpu);
		cpu_pools[cpu][WQ_POOL_NORMAL].id = next_pool_id++;
		cpu_pools[cpu][WQ_POOL_HIGHPRI].id = next_pool_id++;
	}
	for_each_possible_cpu(cpu)
		for (unsigned int i = 0; i < NR_STD_POOLS; i++) {
			struct worker_pool *pool = &bh_pools[cpu][i];

			if (init_pool(pool, cpu, i == WQ_POOL_HIGHPRI ? HIGHPRI_NICE : 0) ||
			    init_bh_pool(pool, i))
				panic("workqueue: no memory for the BH pools of cpu%u", cpu);
			pool->id = next_pool_id++;
		}
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			for (int i = 0; i < NR_STD_POOLS; i++)
				WRITE_ONCE(cpu_pools[cpu][i].disassociated, true); /* until cpu_up()
										    */
	for_each_online_cpu(cpu)
		for (int i = 0; i < NR_STD_POOLS; i++)
			if (!create_worker(&cpu_pools[cpu][i]))
				panic("workqueue: cannot create the first worker of cpu%u", cpu);
	system_wq = alloc_workqueue("events", __WQ_FIXED_CPUS, 0);
	system_highpri_wq = alloc_workqueue("events_highpri", WQ_HIGHPRI | __WQ_FIXED_CPUS, 0);
	system_long_wq = alloc_workqueue("events_long", __WQ_FIXED_CPUS, 0);
	system_unbound_wq = alloc_workqueue("events_unbound", WQ_UNBOUND, WQ_MAX_ACTIVE);
	trustee_wq =
		alloc_workqueue("trustee", WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, WQ_MAX_ACTIVE);
	system_bh_wq = alloc_workqueue("events_bh", WQ_BH, 0);
	system_bh_highpri_wq = alloc_workqueue("events_bh_highpri", WQ_BH | WQ_HIGHPRI, 0);
	bh_drain_wq = alloc_workqueue("bh_drain", WQ_BH | WQ_HIGHPRI, 0);
	if (!system_wq || !system_highpri_wq || !system_long_wq || !system_unbound_wq ||
	    !trustee_wq || !system_bh_wq || !system_bh_highpri_wq || !bh_drain_wq)
		panic("workqueue: cannot allocate the system workqueues");
	workqueue_stats_start();
}
