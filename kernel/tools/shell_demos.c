/* kernel/tools/shell_demos.c - the workloads behind the shell's `demo`;
 * see shell_demos.h. The shell has checked every argument before these
 * run.
 */
#include "kernel/tools/shell_demos.h"
#include "arch/x86_64/atomic.h"
#include "kernel/cpu_masks.h"
#include "kernel/debug/lockdep.h"
#include "kernel/mm/kmalloc.h"
#include "kernel/preempt.h"
#include "kernel/sched.h"
#include "kernel/time.h"
#include "kernel/tools/lab_lockdep.h"
#include "kernel/tools/lab_race.h"
#include "kernel/tools/shell.h"
#include "kernel/wait.h"
#include "kernel/workqueue.h"
#include "lib/errno.h"

#define out shell_out

/* ---- sleep, spin, hold: items on one CPU -------------------------------- */

struct demo_item {
	struct work_struct work;
	unsigned int ms;
	bool spin;
	bool hold;
	unsigned int gate; /* hold: blocks while demo_gate is still this */
};

/* No lock: atomics, and demo_gate read and written once; waiters sleep on
 * demo_waitq and re-check. */
static atomic_t demo_outstanding; /* queued and not finished */
static atomic_t demo_held;	  /* blocked at the gate now */
static unsigned int demo_gate;	  /* demo_release() moves it on: the held items go */
static DECLARE_WAIT_QUEUE_HEAD(demo_waitq);

/* The labs' traces look for this function by name (docs/labs.md). */
static void demo_fn(struct work_struct *w)
{
	struct demo_item *it = container_of(w, struct demo_item, work);

	if (it->hold) {
		atomic_inc(&demo_held);
		wake_up_all(&demo_waitq);
		wait_event(demo_waitq, READ_ONCE(demo_gate) != it->gate);
		atomic_dec(&demo_held);
	} else if (it->spin) {
		mdelay(it->ms);
	} else {
		msleep(it->ms);
	}
	kfree(it);
	atomic_dec(&demo_outstanding);
	wake_up_all(&demo_waitq);
}

int demo_queue(enum demo_kind kind, unsigned int n, unsigned int cpu, unsigned int ms)
{
	might_sleep();
	for (unsigned int i = 0; i < n; i++) {
		struct demo_item *it = kmalloc(sizeof(*it));

		if (!it) {
			out("shell: out of memory after %u items\n", i);
			return -ENOMEM;
		}
		INIT_WORK(&it->work, demo_fn);
		it->ms = ms;
		it->spin = kind == DEMO_SPIN;
		it->hold = kind == DEMO_HOLD;
		it->gate = READ_ONCE(demo_gate);
		atomic_inc(&demo_outstanding);
		queue_work_on(cpu, system_wq, &it->work);
	}
	if (kind == DEMO_HOLD)
		out("queued %u items that block until 'demo release' on cpu%u%s\n", n, cpu,
		    cpu_online(cpu) ? "" : " (offline: its trustee runs them)");
	else
		out("queued %u items that %s %u ms on cpu%u%s; try 'wq' and 'ps'\n", n,
		    kind == DEMO_SPIN ? "spin" : "sleep", ms, cpu,
		    cpu_online(cpu) ? "" : " (offline: its trustee runs them)");
	return 0;
}

/* How long demo_release() and demo_wait() wait before they report what is
 * still out: far beyond any item's DEMO_MAX_MS. */
#define DEMO_WAIT_NS (60 * NSEC_PER_SEC)

int demo_release(void)
{
	might_sleep();
	/* Counted before the gate opens: once it has, they leave. */
	int held = atomic_read(&demo_held);

	WRITE_ONCE(demo_gate, demo_gate + 1);
	wake_up_all(&demo_waitq);
	/* Until they have left the gate: a "demo wait" right after must not
	 * count an item that is released but has not yet run on. */
	if (!wait_event_timeout(demo_waitq, atomic_read(&demo_held) == 0, DEMO_WAIT_NS)) {
		out("shell: demo release: %d items still at the gate after %llu s\n",
		    atomic_read(&demo_held), (unsigned long long)(DEMO_WAIT_NS / NSEC_PER_SEC));
		return -ETIMEDOUT;
	}
	out("demo: released %d held items\n", held);
	return 0;
}

int demo_wait(void)
{
	might_sleep();
	if (!wait_event_timeout(demo_waitq,
				atomic_read(&demo_outstanding) == atomic_read(&demo_held),
				DEMO_WAIT_NS)) {
		out("shell: demo wait: %d items neither finished nor held after %llu s\n",
		    atomic_read(&demo_outstanding) - atomic_read(&demo_held),
		    (unsigned long long)(DEMO_WAIT_NS / NSEC_PER_SEC));
		return -ETIMEDOUT;
	}
	out("demo: %d items held at the gate, the others finished\n", atomic_read(&demo_held));
	return 0;
}

/* ---- ordered: an ordered workqueue against max_active 1 ----------------- */

/* The same items on an ordered workqueue and on a bound one with
 * max_active 1 (which is per CPU): compare concurrency and order. */
struct order_item {
	struct work_struct work;
	unsigned int seq;
	struct order_run *run;
};

struct order_run {
	atomic_t running, max, next, out_of_order, done;
};

static void order_fn(struct work_struct *w)
{
	struct order_item *it = container_of(w, struct order_item, work);
	struct order_run *r = it->run;
	int n = atomic_inc_return(&r->running);

	atomic_max(&r->max, n);
	if ((unsigned int)atomic_inc_return(&r->next) - 1 != it->seq)
		atomic_inc(&r->out_of_order);
	msleep(2);
	atomic_dec(&r->running);
	atomic_inc(&r->done);
}

static int demo_order(struct workqueue_struct *wq, const char *what, unsigned int n)
{
	struct order_item *items = kcalloc(n, sizeof(*items));
	struct order_run r = { 0 };
	unsigned int cpu = cpumask_first(&cpu_online_mask);

	if (!items) {
		out("shell: out of memory\n");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		INIT_WORK(&items[i].work, order_fn);
		items[i].seq = i;
		items[i].run = &r;
		queue_work_on(cpu, wq, &items[i].work); /* spread over the CPUs */
		cpu = cpumask_next_wrap(cpu, &cpu_online_mask);
	}
	flush_workqueue(wq);
	out("%-28s %u items: at most %d at once, %d out of queueing order\n", what, n,
	    atomic_read(&r.max), atomic_read(&r.out_of_order));
	kfree(items);
	return 0;
}

int demo_ordered(unsigned int n)
{
	might_sleep();
	struct workqueue_struct *ord = alloc_ordered_workqueue("demo_ordered", 0);
	struct workqueue_struct *one = alloc_workqueue("demo_max1", 0, 1);
	int err = -ENOMEM;

	if (ord && one) {
		err = demo_order(ord, "ordered workqueue:", n);
		if (!err)
			err = demo_order(one, "bound, max_active 1:", n);
	} else {
		out("shell: out of memory\n");
	}
	if (ord)
		destroy_workqueue(ord);
	if (one)
		destroy_workqueue(one);
	return err;
}

/* ---- the labs ----------------------------------------------------------- */

/* The two paths of lab 7 over the lab's two locks, one after the other
 * (kernel/tools/lab_lockdep.h). */
int demo_lab7(void)
{
	struct lab_lockdep_result r;
	bool on = lockdep_on();

	might_sleep();
	lab_lockdep_run(&r);
	out("lab7: stats path (a work item, cpu%u): lab_stats_lock, then lab_table_lock\n",
	    r.stats_cpu);
	out("lab7: table path (this shell, cpu%u): %s\n", r.table_cpu,
	    r.abba ? "lab_table_lock, then lab_stats_lock (lockdep_lab_abba=1: the wrong order)" :
		     "lab_stats_lock, then lab_table_lock (the same order)");
	out("lab7: total %llu, slots' sum %llu; %lu lock validator report%s during the run%s\n",
	    (unsigned long long)r.total, (unsigned long long)r.slot_sum, r.reports,
	    r.reports == 1 ? "" : "s",
	    on ? "" : " (the validator was off: lockdep=0, or an earlier report stopped it)");
	return 0;
}

/* Every online CPU counts events into one counter at once
 * (kernel/tools/lab_race.h). */
int demo_lab8(void)
{
	struct lab_race_result r;

	might_sleep();
	if (num_online_cpus() < 2) {
		out("shell: demo lab8 needs at least 2 online CPUs\n");
		return -EINVAL;
	}
	lab_race_run(&r);
	out("lab8: %u CPUs counted %u events each, at once, with %s\n", r.cpus, LAB_RACE_EVENTS,
	    r.racy ? "a plain increment (kcsan_lab_racy=1: the data race)" :
		     "an atomic add (the fix)");
	out("lab8: counted %llu of %llu (%llu lost); %lu report%s during the run%s\n",
	    (unsigned long long)r.counted, (unsigned long long)r.expected,
	    (unsigned long long)(r.expected - r.counted), r.reports, r.reports == 1 ? "" : "s",
	    r.detector ? "" : " (this image has no data-race detector: make run SAN=1)");
	return 0;
}
