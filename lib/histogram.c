/* lib/histogram.c - min, median and max of measurements; see histogram.h.
 *
 * Bucket layout: values below HIST_SUB have a bucket each; a value whose
 * top bit is e (e >= HIST_SUB_BITS) goes to group e - HIST_SUB_BITS + 1,
 * HIST_SUB buckets wide, picked by the HIST_SUB_BITS bits below the top
 * one. So every bucket is 2^(e - HIST_SUB_BITS) wide, 1/64 of 2^e.
 */
#include "histogram.h"
#include "compiler.h"
#include "sort.h"

void summarize_values(u64 *values, size_t n, struct value_summary *out)
{
	*out = (struct value_summary){ .n = n };
	if (!n)
		return;
	sort(values, n, sizeof(u64), cmp_u64);
	out->min = values[0];
	out->median = values[(n - 1) / 2];
	out->max = values[n - 1];
}

static unsigned int hist_bucket(u64 v)
{
	if (v < HIST_SUB)
		return (unsigned int)v;
	unsigned int e = 63 - (unsigned int)__builtin_clzll(v); /* >= HIST_SUB_BITS */

	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned int)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The middle of bucket b. */
static u64 hist_value(unsigned int b)
{
	if (b < HIST_SUB)
		return b;
	unsigned int e = b / HIST_SUB + HIST_SUB_BITS - 1, m = b % HIST_SUB;
	unsigned int shift = e - HIST_SUB_BITS;

	return ((u64)(HIST_SUB + m) << shift) + ((1ULL << shift) >> 1);
}

void histogram_add(struct histogram *h, u64 v)
{
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (h->n < HIST_SAMPLES)
		h->samples[h->n] = v;
	h->buckets[hist_bucket(v)]++;
	h->n++;
}

void histogram_summarize(struct histogram *h, struct value_summary *out)
{
	u64 n = h->n, seen = 0;

	if (n <= HIST_SAMPLES) {
		summarize_values(h->samples, n, out);
		return;
	}
	*out = (struct value_summary){ .n = n, .min = h->min, .max = h->max };
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= (n + 1) / 2) {
			out->median = clamp(hist_value(b), h->min, h->max);
			break;
		}
	}
}
