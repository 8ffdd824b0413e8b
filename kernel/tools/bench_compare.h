/* kernel/tools/bench_compare.h - cmwq against the models it replaced.
 *
 * The cmwq RFC promised fewer threads, fewer task switches and better
 * concurrency, and its cover letter asked for backing numbers. These
 * scenarios run the same workloads on cmwq, on the dedicated-thread model
 * and on a thread per item (kernel/tools/bench_models.h), in one boot, and
 * take a CPU offline with pending work under the trustee and under
 * drain-first (cpu_down waits until the dying CPU's work is done, as
 * Linux 2.6.35's flush of the dying CPU's queue made it do):
 *
 *   storm     256 items that all block at once on one CPU: threads made,
 *             peak, time until all run, time until the extra ones are gone
 *   threads   1, 2, 4, 8 and 16 workqueues on every online CPU: threads
 *             serving them and memory, idle and with one blocked item per
 *             queue per CPU
 *   burst     10,000 empty items queued on one CPU, then flushed: time
 *             and context switches on that CPU
 *   sleepers  N items that sleep 10 ms, queued to one CPU, N = 1, 8, 64,
 *             256: first queued to last finished
 *   mixed     per CPU, 32 CPU-bound 1 ms items and 32 sleeping 10 ms
 *   chain     item i queues item i+1 on the same queue and waits for it,
 *             256 deep; a model that cannot finish it is declared
 *             "stalled" after a bounded wait and the waiters give up:
 *             the dedicated model must (it deadlocks), cmwq and a thread
 *             per item must not (either is -EIO)
 *   latency   queue to start, p50 / p99 / max, on an idle CPU and on a CPU
 *             kept busy by CPU-bound items of another queue of the model
 *   offline   cpu_down with 0, 10, 100, 1000 pending CPU-bound 1 ms
 *             items: how long it takes, and until the last item is done
 *
 * Each scenario checks that every item ran exactly once (and, for the
 * dedicated model's burst, in queueing order) and returns -EIO with the
 * culprit named otherwise. With small set, each runs a few items only
 * (make test's suite bench_models); the figures are then meaningless.
 *
 * Output, one line per scenario and row (a model, or trustee/drain-first):
 *
 *     bench: cmp SCENARIO ROW key=value key=value ...
 *
 * times in guest nanoseconds (`_ns`), sizes in KiB (`_kib`), counts bare.
 * tests/harness/bench.py reads these lines into tables, build/bench.json and the
 * plots in docs/. The scenarios sleep; call them from a thread pinned to
 * cmp_ctx.a, with no hotplug torture running (bench.c checks both).
 */
#ifndef KERNEL_TOOLS_BENCH_COMPARE_H
#define KERNEL_TOOLS_BENCH_COMPARE_H

#include "lib/compiler.h"
#include "lib/types.h"

struct cmp_ctx {
	unsigned int a, b; /* the first and the last online CPU */
	bool small;	   /* a few items each: for the tests */
};

struct cmp_scenario {
	const char *name;
	const char *what;
	int (*run)(const struct cmp_ctx *c);
};

const struct cmp_scenario *bench_cmp_scenarios(unsigned int *n);
void bench_cmp_line(const char *scenario, const char *row, const char *fmt, ...) __printf(3, 4);

#endif /* KERNEL_TOOLS_BENCH_COMPARE_H */
