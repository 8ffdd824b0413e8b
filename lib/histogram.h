/* lib/histogram.h - min, median and max of a series of measurements
 * (latencies, sizes): the hotplug torture's and the benchmarks' figures.
 *
 * struct value_summary: n, min, median, max. The median of an even
 *     count is the lower of the two middle values.
 * summarize_values(v, n, out): all n values are at hand: sorts v[0..n)
 *     in place and reads the figures off (exact).
 * struct histogram: a record of any number of values in fixed memory
 *     (about 48 KiB): the first HIST_SAMPLES values themselves, and a
 *     log-linear histogram of all of them, 64 buckets per power of two.
 *     A zeroed one is empty.
 * histogram_add(h, v): one more value.
 * histogram_summarize(h, out): min and max exact; the median exact while
 *     n <= HIST_SAMPLES, then the middle of the bucket that holds it
 *     (within 1/128 of it: a bucket is 1/64 of its power of two wide).
 *     Sorts h's kept samples in place: summarize a copy, or a record
 *     that is complete.
 *
 * No locking: the caller serialises the calls on one histogram.
 */
#ifndef LIB_HISTOGRAM_H
#define LIB_HISTOGRAM_H

#include "types.h"

struct value_summary {
	u64 n;
	u64 min, median, max;
};

void summarize_values(u64 *values, size_t n, struct value_summary *out);

#define HIST_SAMPLES  4096 /* exact median up to this many */
#define HIST_SUB_BITS 6	   /* 64 buckets per power of two */
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_BUCKETS  ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct histogram {
	u64 n, min, max;
	u64 samples[HIST_SAMPLES]; /* the first HIST_SAMPLES values */
	u32 buckets[HIST_BUCKETS];
};

void histogram_add(struct histogram *h, u64 v);
void histogram_summarize(struct histogram *h, struct value_summary *out);

#endif
