/* kernel/workqueue/trustee.c - CPU hotplug: the trustee that runs a dying
 * CPU's pools, the hotplug steps (dying, online, offline) and a worker's
 * way back to its CPU (worker_maybe_rebind). kernel/hotplug.h has the
 * steps' order, docs/hotplug.md the story; workqueue.h ("CPUs going
 * offline") the promise to users.
 *
 * When a CPU goes down, its pools (the standard two, and one per other
 * nice made so far) are "disassociated" on the dying CPU itself
 * (interrupts off, so no hook can act on them meanwhile: hooks act
 * only on the pool's CPU): every worker gets WORKER_UNBOUND (out of
 * concurrency management, nr_running is zeroed) and may run on any active
 * CPU. cpu_down() does not wait for the pools to drain. A trustee - a work
 * item of trustee_wq (unbound, WQ_MEM_RECLAIM: its rescuer runs it when no
 * worker can be had), not a thread - takes charge: the pool behaves
 * like an unbound one (every pending item gets a worker), the trustee is
 * its manager when no worker is idle (manage_workers(): creation, maydays
 * to rescuers if it fails), and once the work is gone it releases the idle
 * workers and leaves (TRUSTEE_DONE). Work queued to the offline CPU later
 * calls it back (TRUSTEE_IN_CHARGE again).
 *
 * When the CPU returns, workqueue_cpu_online() takes the pools back
 * (TRUSTEE_NONE): idle (unbound) workers are destroyed, busy ones are
 * marked WORKER_REBIND and move back to the CPU after their current item,
 * a bound worker joins, and concurrency management resumes. The bound
 * workers are made first: if that fails, the online step fails before it
 * changed anything, cpu_up() takes the CPU back down and the pools stay
 * with the trustee. A cancelled offline never reaches the dying step, so
 * it leaves nothing to undo.
 *
 * It changes the pool's association and trustee fields and the workers'
 * UNBOUND and REBIND flags; it makes workers through manage.c and
 * destroys idle ones through worker.c.
 */
#define pr_fmt(fmt) "workqueue: " fmt
#include "kernel/deterministic.h"
#include "kernel/hotplug.h"
#include "kernel/kthread.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "kernel/workqueue/internal.h"
#include "lib/errno.h"

/* Something the trustee of a disassociated pool waits for happened: bump its
 * count and wake it. pool->lock held. */
void trustee_news(struct worker_pool *pool)
{
	assert_spin_locked(&pool->lock);
	WRITE_ONCE(pool->trustee_events, pool->trustee_events + 1);
	wake_up(&pool->trustee_wait);
}

static bool trustee_has_news(struct worker_pool *pool, unsigned int seen)
{
	return READ_ONCE(pool->trustee_events) != seen || !READ_ONCE(pool->disassociated);
}

/* Record a trustee state change (and trace it). pool->lock held. */
static void trustee_set_state(struct worker_pool *pool, int state)
{
	assert_spin_locked(&pool->lock);
	if (pool->trustee_state == state)
		return;
	pool->trustee_state = state;
	trace_event(TR_TRUSTEE, NULL, (u64)pool->id, (u64)state);
}

/* Run by its workqueue's rescuer, a trustee comes back this often. */
#define TRUSTEE_RETRY_NS (CREATE_COOLDOWN_MS * NSEC_PER_MSEC)

/* The trustee: runs a disassociated pool until its work is gone, as the
 * pool's manager (manage_workers) when no worker is idle; then releases
 * the idle workers (TRUSTEE_DONE) and leaves. Queued again by work queued
 * to the pool meanwhile, or when it finds no idle worker; returns at once
 * once the CPU is back.
 * Run by the trustees' rescuer (no worker could be had), it must not keep
 * it: the one rescuer serves the trustees of every pool, both of a CPU
 * and those of other CPUs going down. So it makes one pass (one creation
 * attempt, no waiting) and comes back TRUSTEE_RETRY_NS later, queued
 * again (by the rescuer again, if still no worker can be had). */
void trustee_fn(struct work_struct *work)
{
	struct worker_pool *pool =
		container_of(to_delayed_work(work), struct worker_pool, trustee_work);
	bool rescuer = current_is_rescuer();

	delay_point(DP_TRUSTEE);
	spin_lock_irq(&pool->lock);
	WRITE_ONCE(pool->nr_trustee_runs, pool->nr_trustee_runs + 1);
	while (pool->disassociated) {
		trustee_set_state(pool, TRUSTEE_IN_CHARGE);
		if (need_to_create_worker(pool) && !rescuer && manage_workers(pool))
			continue;
		if (need_to_create_worker(pool) && rescuer && !pool->manager_active) {
			mayday_watch(pool); /* for the items, should this fail too */
			spin_unlock_irq(&pool->lock);
			bool made = create_worker(pool);

			spin_lock_irq(&pool->lock);
			/* Made or not, the lock was dropped: the CPU may be
			 * back, its pool associated again (and its idle list
			 * its own: the idle-list rule). Look again. */
			if (made || !pool->disassociated)
				continue;
		}
		if (list_empty(&pool->worklist) && pool->nr_idle == pool->nr_workers &&
		    !pool->manager_active) {
			/* The work is gone: release the workers. */
			destroy_idle_workers(pool);
			trustee_set_state(pool, TRUSTEE_DONE);
			break;
		}
		if (need_more_worker(pool))
			wake_up_worker(pool);
		if (rescuer) {
			spin_unlock_irq(&pool->lock);
			queue_delayed_work(trustee_wq, &pool->trustee_work, TRUSTEE_RETRY_NS);
			return;
		}
		unsigned int seen = pool->trustee_events;

		spin_unlock_irq(&pool->lock);
		wait_event_timeout(pool->trustee_wait, trustee_has_news(pool, seen),
				   100 * NSEC_PER_MSEC);
		spin_lock_irq(&pool->lock);
	}
	spin_unlock_irq(&pool->lock);
}

int workqueue_cpu_dying(unsigned int cpu)
{
	struct worker_pool *pool;
	unsigned int i;

	assert(irqs_disabled() && smp_processor_id() == cpu);
	for_each_cpu_pool(pool, cpu, i)
	{
		struct worker *worker;

		delay_point(DP_CPU_DYING);
		spin_lock(&pool->lock);
		WRITE_ONCE(pool->disassociated, true);
		trustee_set_state(pool, TRUSTEE_IN_CHARGE);
		list_for_each_entry(worker, &pool->workers, node) {
			if (worker->flags & WORKER_RESCUER)
				continue; /* it leaves by itself */
			WRITE_ONCE(worker->flags,
				   (worker->flags | WORKER_UNBOUND) & ~WORKER_REBIND);
			set_cpus_allowed(worker->thread, &cpu_active_mask);
		}
		atomic_set(&pool->nr_running, 0);
		if (need_more_worker(pool))
			wake_up_worker(pool);
		/* Whether or not the trustee runs soon: should no worker be
		 * had for the pool's items, the rescuers are called. */
		if (need_to_create_worker(pool))
			mayday_watch(pool);
		spin_unlock_no_resched(&pool->lock);
		queue_work(trustee_wq, &pool->trustee_work.work);
	}
	bh_cpu_dying(cpu); /* no trustee for these: a drain on a live CPU */
	return 0;
}

int workqueue_cpu_online(unsigned int cpu)
{
	struct worker *bound[NR_STD_POOLS + NR_NICE_LEVELS];
	struct worker_pool *pool;
	unsigned int i, n = 0;

	might_sleep();
	delay_point(DP_REBIND);
	/* First a bound idle worker for each pool, so that concurrency
	 * management has one to wake: the trustee may have released every
	 * worker, and a pool taken back with none would leave its items to
	 * nobody. Made before anything changes, so that failing is clean:
	 * cpu_up() then takes the CPU back down, and the trustee keeps the
	 * pools (docs/hotplug.md). */
	for_each_cpu_pool(pool, cpu, i)
	{
		/* A pool never handed over (an offline cancelled before the
		 * CPU's dying steps, a CPU stopped above them: hotplug target)
		 * still has its workers. Disassociated only by the dying steps,
		 * under the hotplug lock we hold: no lock needed to look. */
		if (!READ_ONCE(pool->disassociated)) {
			bound[n++] = NULL;
			continue;
		}
		bound[n] = worker_new(pool, false);
		if (!bound[n]) {
			while (n--)
				if (bound[n])
					worker_discard(bound[n]);
			pr_warn("cpu%u: no bound worker could be created: online refused\n", cpu);
			return -ENOMEM;
		}
		n++;
	}
	n = 0;
	for_each_cpu_pool(pool, cpu, i)
	{
		struct worker *worker;

		if (!bound[n]) {
			n++;
			continue;
		}
		spin_lock_irq(&pool->lock);
		if (pool->disassociated) {
			/* Idle workers go while the pool is still disassociated
			 * (the idle-list rule); the busy ones rebind later. */
			destroy_idle_workers(pool);
			WRITE_ONCE(pool->disassociated, false);
			trustee_set_state(pool, TRUSTEE_NONE);
			list_for_each_entry(worker, &pool->workers, node)
				if (!(worker->flags & WORKER_RESCUER))
					WRITE_ONCE(worker->flags, worker->flags | WORKER_REBIND);
			/* No worker was counted while it was disassociated. */
			if (WARN_ONCE(atomic_read(&pool->nr_running) != 0,
				      "cpu%u pool %d: nr_running %d while disassociated", cpu,
				      pool->id, atomic_read(&pool->nr_running)))
				atomic_set(&pool->nr_running, 0);
			trustee_news(pool);
		}
		/* In the same locked section: the pool is never associated
		 * without its bound worker. */
		struct thread *th = worker_attach(bound[n++], false);

		spin_unlock_irq(&pool->lock);
		put_thread(th);
	}
	/* (the CPU is not active yet: workqueue_cpu_active() remaps) */
	return 0;
}

void workqueue_cpu_active(unsigned int cpu)
{
	might_sleep();
	update_cpu_maps();
}

/* The CPU is no longer active: workqueues with a CPU mask send what is
 * queued for it to their other CPUs from now on. What is queued there
 * already goes to the trustee, whose workers keep to the mask
 * (keep_to_wq_cpus). */
int workqueue_cpu_offline(unsigned int cpu)
{
	might_sleep();
	update_cpu_maps();
	return 0;
}

unsigned int workqueue_pool_unbound_workers(unsigned int cpu, enum wq_cpu_pool which)
{
	struct worker_pool *pool = &cpu_pools[cpu][which];
	struct worker *worker;
	unsigned int n = 0;
	unsigned long flags = spin_lock_irqsave(&pool->lock);

	list_for_each_entry(worker, &pool->workers, node)
		if ((worker->flags & (WORKER_UNBOUND | WORKER_RESCUER)) == WORKER_UNBOUND) {
			n++;
		}
	spin_unlock_irqrestore(&pool->lock, flags);
	return n;
}

/* The pool's CPU is back (WORKER_REBIND): move there and rejoin
 * concurrency management. pool->lock held (dropped and retaken inside);
 * returns true if the caller should look at the pool afresh, false if
 * there was nothing to do or the move must wait for a later try. */
bool worker_maybe_rebind(struct worker *worker)
{
	struct worker_pool *pool = worker->pool;

	assert_spin_locked(&pool->lock);
	if (!(worker->flags & WORKER_REBIND))
		return false;
	WRITE_ONCE(worker->flags, worker->flags & ~WORKER_REBIND);
	if (pool->disassociated)
		return false; /* down again already: stay with the trustee */
	spin_unlock_irq(&pool->lock);
	int err = set_cpus_allowed(current, cpumask_of(pool->cpu));

	spin_lock_irq(&pool->lock);
	if (!err && !pool->disassociated && smp_processor_id() == pool->cpu) {
		worker_clr_flags(worker, WORKER_UNBOUND);
		return true;
	}
	if (!pool->disassociated) {
		/* The CPU is on its way down again, or that was cancelled: try
		 * again after the next item (not at once: that would spin).
		 * A worker still unbound when it would idle leaves instead. */
		WRITE_ONCE(worker->flags, worker->flags | WORKER_REBIND);
		return false;
	}
	return true;
}
