/* kernel/tools/bench_models.h - the execution models cmwq replaced, behind
 * one work-item API, so that `make bench` can run the same workloads on
 * each of them in one boot (kernel/tools/bench.c, docs/bench.md).
 *
 *   MODEL_CMWQ        baton's workqueue as it is: alloc_workqueue(),
 *                     queue_work_on(), flush_workqueue().
 *   MODEL_DEDICATED   the model before cmwq (Linux up to 2.6.35): every
 *                     workqueue owns one worker thread per online CPU
 *                     (create_workqueue) or one thread in all
 *                     (create_singlethread_workqueue, MODEL_WQ_SINGLE);
 *                     each thread runs its own list strictly in queueing
 *                     order; no concurrency management, nothing shared.
 *   MODEL_THREAD_PER_ITEM  a new kernel thread for every item, started on
 *                     the item's CPU, ending when the item returns (what
 *                     code did when it could not block a shared worker).
 *
 * The baselines are built as well as their design allows, from the same
 * scheduler, allocator and primitives as cmwq (kthreads, spinlocks, wait
 * queues), so that a difference measured is the design's. They are not a
 * deferred-work mechanism of the kernel: this header is included only by
 * kernel/tools/ and tests/ (tests/checks/check_deferred.py checks it), so no
 * kernel code can queue to them by accident.
 *
 * The items are ordinary struct work_struct, set up with INIT_WORK().
 * A baseline uses the item's PENDING bit as cmwq does (queueing a pending
 * item is refused and returns false; the bit is cleared just before the
 * item runs, so it may queue itself again) and its entry list node while
 * it waits; an item must not be queued on a cmwq workqueue and a baseline
 * at once.
 *
 *   model_wq_create(model, name, flags)  NULL on failure (-ENOMEM)
 *   model_queue_on(mwq, cpu, w)          queue w to run on cpu (an online
 *                                        CPU; MODEL_WQ_SINGLE ignores it);
 *                                        false if w was pending already
 *   model_flush(mwq)       wait until everything queued before it ran
 *   model_wq_destroy(mwq)  flush, then stop its threads and free it
 *   model_wq_threads(mwq)  threads the model holds for mwq now (for cmwq:
 *                          none of its own, the pools serve every queue)
 * All of them may sleep, but model_queue_on() for cmwq and the dedicated
 * model, which may also be called with preemption or interrupts off (a
 * thread per item is created by queueing, so that model's queueing
 * sleeps). Call model_flush() from a thread, not from an item of the same
 * mwq (it would wait for itself, as in every model).
 *
 * Counters, for the benchmarks (per model, since boot):
 *   model_counters(model, &c)  threads the baseline created for its
 *                              workers or items, and creations that failed
 *                              and were tried again
 */
#ifndef KERNEL_TOOLS_BENCH_MODELS_H
#define KERNEL_TOOLS_BENCH_MODELS_H

#include "kernel/workqueue.h"
#include "lib/types.h"

enum bench_model { MODEL_CMWQ, MODEL_DEDICATED, MODEL_THREAD_PER_ITEM, NR_BENCH_MODELS };

#define MODEL_WQ_SINGLE (1u << 0) /* dedicated: one thread, not one per CPU */

extern const char *const bench_model_names[NR_BENCH_MODELS];

struct model_wq;

struct model_wq *model_wq_create(enum bench_model model, const char *name, unsigned int flags);
bool model_queue_on(struct model_wq *mwq, unsigned int cpu, struct work_struct *w);
void model_flush(struct model_wq *mwq);
void model_wq_destroy(struct model_wq *mwq);
unsigned int model_wq_threads(struct model_wq *mwq);

struct model_counters {
	u64 threads_created; /* by the baseline, for its workers or its items */
	u64 create_retries;  /* thread creations that failed and were tried again */
};
void model_counters(enum bench_model model, struct model_counters *c);

#endif /* KERNEL_TOOLS_BENCH_MODELS_H */
