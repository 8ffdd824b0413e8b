/* kernel/sched_attrs.c - a thread's scheduling attributes: its CPUs
 * (set_cpus_allowed() and the pinning helpers), its nice level and class
 * (fair or FIFO), and the reports that read them (runtime, description,
 * backtrace). Part of the scheduler: it writes the scheduling fields under
 * the locks sched.c's header comment names, with the run-queue steps of
 * sched_internal.h; the contracts are in sched.h.
 */
#include "kernel/cpu_masks.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/sched_internal.h"
#include "lib/errno.h"

/* ---- attributes --------------------------------------------------------- */

/* Linux's sched_prio_to_weight: each nice level is about 10% of CPU. */
static const unsigned int nice_weights[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,	 1991,	1586,  1277,
	1024,  820,   655,   526,   423,   335,	  272,	 215,	172,   137,
	110,   87,    70,    56,    45,	   36,	  29,	 23,	18,    15,
};

int set_cpus_allowed(struct thread *t, const struct cpumask *mask)
{
	struct cpumask m;

	if (!cpus_usable(mask))
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);

	/* Again under the locks: a CPU may have gone inactive meanwhile. Where
	 * to move it: an active CPU of the mask, or its one online CPU. */
	if (!cpus_usable(mask)) {
		unlock_thread_rq(t, rq, flags);
		return -EINVAL;
	}

	if (!cpumask_and(&m, mask, &cpu_active_mask))
		cpumask_copy(&m, mask);
	thread_set_cpus_allowed(t, mask);
	if (!list_empty(&t->run_link) && !cpumask_test_cpu(rq->cpu, mask)) {
		/* Queued on a CPU it may not use: move it now. */
		dequeue(rq, t);
		t->on_rq = false;
		rq = move_to_cpu(rq, t, cpumask_first(&m));
		activate(rq, t);
	} else if (rq->curr == t && !cpumask_test_cpu(rq->cpu, mask)) {
		resched_cpu_locked(rq);
	}
	unlock_thread_rq(t, rq, flags);
	/* Current on a CPU it may not use: move it before returning. Test the
	 * mask in force, not ours: another set_cpus_allowed (CPU hotplug) may
	 * have replaced it meanwhile, and we would wait for a CPU forever. */
	while (t == current && !cpumask_test_cpu(smp_processor_id(), &t->cpus_allowed) &&
	       cpus_usable(&t->cpus_allowed))
		schedule();
	return 0;
}

u64 thread_runtime_ns(struct thread *t)
{
	unsigned long flags = local_irq_save();
	struct rq *rq = lock_thread_rq(t);

	if (rq->curr == t)
		update_curr(rq);
	u64 ns = t->stats.sum_exec_ns;

	spin_unlock_no_resched(&rq->lock);
	local_irq_restore(flags);
	return ns;
}

void thread_get_cpus_allowed(struct thread *t, struct cpumask *mask)
{
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);

	cpumask_copy(mask, &t->cpus_allowed);
	spin_unlock_irqrestore(&t->pi_lock, flags);
}

int sched_pin_current(unsigned int cpu, struct cpumask *saved)
{
	might_sleep();
	thread_get_cpus_allowed(current, saved);
	return set_cpus_allowed(current, cpumask_of(cpu));
}

int sched_unpin_current(const struct cpumask *saved)
{
	might_sleep();
	return set_cpus_allowed(current, saved);
}

void sched_describe_thread(struct thread *t, struct thread_desc *d)
{
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);

	if (rq->curr == t)
		update_curr(rq);
	d->cpu = t->cpu;
	d->state = t->state;
	d->policy = t->policy;
	d->nice = t->nice;
	d->fifo_prio = t->fifo_prio;
	cpumask_copy(&d->cpus_allowed, &t->cpus_allowed);
	d->runtime_ns = t->stats.sum_exec_ns;
	d->vruntime = t->vruntime;
	d->min_vruntime = rq->min_vruntime;
	d->nr_running = rq_nr_running(rq);
	d->nvcsw = t->stats.nvcsw;
	d->nivcsw = t->stats.nivcsw;
	unlock_thread_rq(t, rq, flags);
}

unsigned int sched_thread_backtrace(struct thread *t, u64 *ips, unsigned int max)
{
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);
	unsigned int n = 0;

	if (max && t != current && !READ_ONCE(t->on_cpu)) {
		/* switch.S's frame: the saved rbp, then the return address. */
		const u64 *frame = (const u64 *)t->ctx_rsp;

		ips[n++] = frame[6];
		n += save_backtrace(frame[5], ips + 1, max - 1);
	}
	unlock_thread_rq(t, rq, flags);
	return n;
}

void sched_set_weight(struct thread *t, int nice)
{
	t->nice = nice;
	t->weight = nice_weights[nice - NICE_MIN];
}

int sched_set_nice(struct thread *t, int nice)
{
	if (nice < NICE_MIN || nice > NICE_MAX)
		return -EINVAL;
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);

	update_curr(rq);
	sched_set_weight(t, nice);
	update_slice_end(rq); /* a new weight moves the vruntime lead's deadline */
	unlock_thread_rq(t, rq, flags);
	return 0;
}

static int set_policy(struct thread *t, enum sched_class policy, unsigned int prio)
{
	unsigned long flags = spin_lock_irqsave(&t->pi_lock);
	struct rq *rq = lock_thread_rq(t);
	bool queued = !list_empty(&t->run_link);

	if (queued)
		dequeue(rq, t);
	update_curr(rq);
	t->policy = policy;
	t->fifo_prio = prio;
	if (policy == SCHED_CLASS_FAIR)
		t->vruntime = max(t->vruntime, rq->min_vruntime);
	if (queued) {
		enqueue(rq, t, QUEUE_BEHIND_EQUALS);
		preempt_or_share(rq, t);
	} else {
		update_slice_end(rq); /* t may be the current thread */
	}
	unlock_thread_rq(t, rq, flags);
	preempt_check_resched();
	return 0;
}

int sched_set_fifo(struct thread *t, unsigned int prio)
{
	if (prio < FIFO_PRIO_MIN || prio > FIFO_PRIO_MAX)
		return -EINVAL;
	return set_policy(t, SCHED_CLASS_FIFO, prio);
}

int sched_set_normal(struct thread *t)
{
	return set_policy(t, SCHED_CLASS_FAIR, 0);
}
