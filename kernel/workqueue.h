/* kernel/workqueue.h - the concurrency-managed workqueue (cmwq), baton's
 * only deferred-work mechanism. The API mirrors Linux's, so Linux's
 * Documentation/core-api/workqueue.rst describes it.
 *
 * Design (Tejun Heo's 2009 cmwq patchset, as Linux has it):
 *
 * No thread belongs to a workqueue. Every CPU has two shared worker pools,
 * normal and high priority (nice -20); a workqueue is a set of queueing
 * rules (max_active, flags) in front of the pools: queue_work() puts the
 * item on a pool's worklist. Workers are kernel threads bound to the
 * pool's CPU.
 *
 * Concurrency management: the pool counts its workers that are running
 * (nr_running). The scheduler's sleep/wake hooks (kernel/sched.h) tell it
 * when one blocks (nr_running drops; if it reaches zero while work is
 * pending, the hook hands the scheduler an idle worker to wake) and when
 * one runs again. So the pool keeps exactly one worker running per CPU
 * while there is work, and a blocked item never holds up the others:
 *
 *     worker A runs item 1 ... item 1 blocks (I/O, msleep)
 *        sleeping(A): nr_running 1 -> 0, worklist not empty
 *                     -> wake idle worker B (same CPU, under the rq lock)
 *     worker B runs item 2, item 3, ... (batched on this CPU, no switches)
 *     item 1 wakes: running(A): nr_running 1 -> 2; A finishes item 1,
 *        sees nr_running > 1 and goes idle instead of taking more
 *
 * Non-reentrancy: a work item never runs on two workers at once, system
 * wide. Each pool keeps a hash of the items its workers are executing;
 * an item queued while it still runs is queued to the pool where it runs,
 * and that pool hands it to the same worker after the current execution.
 *
 * Interface (Linux's names and semantics):
 *   INIT_WORK(w, fn), INIT_DELAYED_WORK(dw, fn), work_pending(w)
 *   alloc_workqueue(name, flags, max_active), destroy_workqueue(wq)
 *   queue_work(wq, w), queue_work_on(cpu, wq, w), schedule_work(w)
 *   queue_delayed_work(wq, dw, delay_ns), queue_delayed_work_on(...)
 *   flush_work(w), cancel_work_sync(w), cancel_delayed_work_sync(dw)
 *   current_work()
 *   system_wq, system_highpri_wq, system_long_wq
 * queue_* and cancel_work() may be called from any context; flush_* and
 * cancel_*_sync() may sleep.
 */
#ifndef KERNEL_WORKQUEUE_H
#define KERNEL_WORKQUEUE_H

#include "kernel/timer.h"
#include "lib/list.h"
#include "lib/types.h"

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

#define WORK_STRUCT_PENDING 0	/* bit in work->flags: queued, not yet started */
#define WORK_MAGIC 0x574f524b	/* "WORK": set by INIT_WORK */

struct pool_workqueue;
struct worker_pool;

struct work_struct {
	unsigned long flags;		/* atomic: WORK_STRUCT_PENDING */
	struct list_head entry;		/* the pool's lock, while queued */
	work_func_t func;
	struct pool_workqueue *pwq;	/* the pool's lock: where it is queued */
	struct worker_pool *last_pool;	/* the pool it last ran on */
	u32 magic;
};

struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
	struct workqueue_struct *wq;	/* set when queued */
	unsigned int cpu;
};

#define WQ_UNBOUND (1u << 1)
#define WQ_HIGHPRI (1u << 4)
#define WQ_CPU_INTENSIVE (1u << 5)
#define WQ_MEM_RECLAIM (1u << 3)
#define WQ_DFL_ACTIVE 256
#define WORK_CPU_UNBOUND NR_CPUS

void __init_work(struct work_struct *w, work_func_t fn);
#define INIT_WORK(w, fn) __init_work((w), (fn))
void __init_delayed_work(struct delayed_work *dw, work_func_t fn);
#define INIT_DELAYED_WORK(dw, fn) __init_delayed_work((dw), (fn))
#define work_pending(w) test_bit(WORK_STRUCT_PENDING, &(w)->flags)

struct workqueue_struct *alloc_workqueue(const char *name, unsigned int flags, int max_active);
void destroy_workqueue(struct workqueue_struct *wq);
bool queue_work_on(unsigned int cpu, struct workqueue_struct *wq, struct work_struct *w);
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
bool schedule_work(struct work_struct *w);
bool queue_delayed_work_on(unsigned int cpu, struct workqueue_struct *wq, struct delayed_work *dw,
			   u64 delay_ns);
bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dw, u64 delay_ns);
bool flush_work(struct work_struct *w);
bool cancel_work_sync(struct work_struct *w);
bool cancel_delayed_work_sync(struct delayed_work *dw);
struct work_struct *current_work(void);

extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_highpri_wq;
extern struct workqueue_struct *system_long_wq;

void workqueue_init(void);

/* A per-CPU pool's figures, for tests, the shell and benchmarks. */
struct wq_pool_stats {
	unsigned int nr_workers, nr_idle;
	int nr_running;
	unsigned int nr_pending;
	u64 nr_executed, nr_created;
};
void workqueue_pool_stats(unsigned int cpu, bool highpri, struct wq_pool_stats *st);

#endif
