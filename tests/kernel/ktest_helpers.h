/* tests/kernel/ktest_helpers.h - what the kernel test suites share besides
 * the checks of kernel/tools/ktest.h: one way each to pick a CPU, to skip a
 * case the machine is too small for, and to hold work at a gate.
 *
 * Interface:
 *
 *   ktest_last_online_cpu()     the highest-numbered online CPU: not the
 *                               boot CPU (which the runner is likely on, and
 *                               which cannot go offline) unless it is alone
 *   ktest_need_cpus(t, n)       true if at least n CPUs are online; if not,
 *                               skips the case with "needs at least n CPUs",
 *                               the one wording of this skip, which the
 *                               harness (SKIP_NEEDS, tests/harness/run_tests.py)
 *                               lets pass only when the boot has fewer than
 *                               n CPUs
 *
 * A gate: work items (or any thread that may sleep) stop at it until the
 * case opens it, so the state a case checks (items running at once,
 * workers blocked, a CPU's work pending) is reached by construction, not by
 * a delay the host can stretch. It counts who reached it and who went on.
 *
 *   ktest_gate_init(g)          shut, with no one at it
 *   ktest_gate_pass(g)          arrive, wait until it opens, go on (sleeps)
 *   ktest_gate_pass_bounded(g)  the same for at most KT_WAIT_LIMIT_S; one
 *                               that waited that long counts a timeout and
 *                               opens the gate (so that a kernel that waits
 *                               for the waiters fails instead of hanging)
 *   ktest_gate_open(g)          let every waiter, and every later one, on
 *   ktest_gate_is_open(g)
 *   ktest_gate_arrived(g), ktest_gate_passed(g), ktest_gate_timeouts(g)
 *   KT_GATE_WAIT_ARRIVED(t, g, n)  KT_WAIT_UNTIL at least n have arrived
 *
 *   struct ktest_gate_work      a work item that does nothing but pass its
 *                               gate (ktest_gate_pass)
 *   ktest_gate_work_init(w, g)  one of them, at gate g
 *   ktest_gate_works_alloc(n, g)  n of them (kcalloc: kfree them), or NULL
 *   ktest_gate_works_release(w, n)  open their gate and flush all n
 *   ktest_gate_hold(wq, w, g)   shut g and queue w, a gate item at g, to wq:
 *                               an ordered workqueue runs nothing queued
 *                               after it until the case opens g, however
 *                               long the host stalls the case
 *
 * A delayed item that says when it ran and how often (the delayed-work
 * cases' fixture): a case checks "not before its delay" from ran_at and
 * "exactly once" from runs.
 *
 *   struct ktest_timed_dwork    its delayed_work, ran_at (ktime_get_ns() at
 *                               its last run, 0 until then) and runs
 *   ktest_timed_dwork_init(d)   set up, never run
 *   ktest_timed_dwork_reset(d)  ran_at and runs back to 0
 *
 * Where a work item ran: its CPU, its worker's nice and name.
 *
 *   struct ktest_where          a work item that records them (after
 *                               passing its gate, if it has one) and
 *                               completes ->ran
 *   ktest_where_init(wh, g)     one of them, gate g or NULL; cpu is
 *                               NR_CPUS until it runs
 */
#ifndef TESTS_KERNEL_KTEST_HELPERS_H
#define TESTS_KERNEL_KTEST_HELPERS_H

#include "arch/x86_64/atomic.h"
#include "kernel/completion.h"
#include "kernel/sched.h"
#include "kernel/tools/ktest.h"
#include "kernel/workqueue.h"

unsigned int ktest_last_online_cpu(void);
bool ktest_need_cpus(struct ktest *t, unsigned int n);

struct ktest_gate {
	struct completion open; /* completed (for all) when the gate opens */
	atomic_t arrived;	/* ktest_gate_pass*() calls that reached it */
	atomic_t passed;	/* ... and went on */
	atomic_t timeouts;	/* ktest_gate_pass_bounded() calls that gave up */
};

void ktest_gate_init(struct ktest_gate *g);
/* Both may sleep (might_sleep() checks): from a work item or a thread. */
void ktest_gate_pass(struct ktest_gate *g);
void ktest_gate_pass_bounded(struct ktest_gate *g);
/* Any context. */
void ktest_gate_open(struct ktest_gate *g);
bool ktest_gate_is_open(struct ktest_gate *g);

static inline unsigned int ktest_gate_arrived(struct ktest_gate *g)
{
	return (unsigned int)atomic_read(&g->arrived);
}

static inline unsigned int ktest_gate_passed(struct ktest_gate *g)
{
	return (unsigned int)atomic_read(&g->passed);
}

static inline unsigned int ktest_gate_timeouts(struct ktest_gate *g)
{
	return (unsigned int)atomic_read(&g->timeouts);
}

/* A macro, so that a timeout names the caller's line and its n. */
#define KT_GATE_WAIT_ARRIVED(t, g, n) KT_WAIT_UNTIL(t, ktest_gate_arrived(g) >= (unsigned int)(n))

struct ktest_gate_work {
	struct work_struct work;
	struct ktest_gate *gate;
};

void ktest_gate_work_init(struct ktest_gate_work *w, struct ktest_gate *g);
struct ktest_gate_work *ktest_gate_works_alloc(unsigned int n, struct ktest_gate *g);
/* Opens the gate of w[0] (all n share it) and waits for every item: may
 * sleep. */
void ktest_gate_works_release(struct ktest_gate_work *w, unsigned int n);
void ktest_gate_hold(struct workqueue_struct *wq, struct ktest_gate_work *w, struct ktest_gate *g);

struct ktest_timed_dwork {
	struct delayed_work dwork;
	volatile u64 ran_at;
	atomic_t runs;
};

void ktest_timed_dwork_init(struct ktest_timed_dwork *d);
void ktest_timed_dwork_reset(struct ktest_timed_dwork *d);

struct ktest_where {
	struct work_struct work;
	unsigned int cpu;
	int nice;
	char name[THREAD_NAME_LEN];
	struct ktest_gate *gate; /* passed first, if set */
	struct completion ran;
};

void ktest_where_init(struct ktest_where *wh, struct ktest_gate *g);

/* Queue an item to cpu on system_wq and wait (bounded) until it ran: true
 * if it did, on cpu itself (there) or on another CPU (!there); a failure
 * is reported on t. Sleeps; one caller at a time. */
bool ktest_item_for_cpu_runs(struct ktest *t, unsigned int cpu, bool there);

#endif
