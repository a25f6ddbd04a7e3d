/* hist.c - log-linear histograms (see hist.h).
 *
 * Bucket index for sub_bits b (S = 2^b sub-buckets): values below S map to
 * themselves; above, the octave (position of the top bit) selects a group
 * of S buckets and the next b bits below the top bit select the bucket
 * inside it, so a bucket is at most 1/S of its value wide.  Both
 * precisions of hist.h share these helpers. */
#include <string.h>
#include "util/hist.h"

static unsigned ll_index(uint64_t v, unsigned sub_bits)
{
	unsigned top, shift, sub = 1u << sub_bits;

	if (v < sub)
		return (unsigned)v;
	top = 63u - (unsigned)__builtin_clzll(v);       /* >= sub_bits */
	shift = top - sub_bits;
	return (shift + 1) * sub + (unsigned)((v >> shift) & (sub - 1));
}

/* Largest value that maps to bucket i. */
static uint64_t ll_upper(unsigned i, unsigned sub_bits)
{
	unsigned shift, sub = 1u << sub_bits;
	uint64_t base;

	if (i < sub)
		return i;
	shift = i / sub - 1;
	base = ((uint64_t)sub + (i % sub)) << shift;
	return base + ((1ULL << shift) - 1);
}

/* One value into bucket[n] and the counters. */
static void ll_add(uint32_t *bucket, unsigned n, unsigned sub_bits,
		   uint64_t *count, uint64_t *max_ns, double *sum_ns,
		   uint64_t v_ns)
{
	unsigned i = ll_index(v_ns, sub_bits);

	if (i >= n)
		i = n - 1;
	bucket[i]++;
	(*count)++;
	*sum_ns += (double)v_ns;
	if (v_ns > *max_ns)
		*max_ns = v_ns;
}

/* The q-quantile's bucket's upper edge, clamped to max_ns (hist.h). */
static uint64_t ll_quantile(const uint32_t *bucket, unsigned n,
			    unsigned sub_bits, uint64_t count,
			    uint64_t max_ns, double q)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (!count)
		return 0;
	/* rank = ceil(q * count), at least 1 */
	rank = (uint64_t)(q * (double)count);
	if ((double)rank < q * (double)count)
		rank++;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < n; i++) {
		seen += bucket[i];
		if (seen >= rank) {
			uint64_t up = ll_upper(i, sub_bits);

			return up < max_ns ? up : max_ns;
		}
	}
	return max_ns;
}

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_add(struct hist *h, uint64_t v_ns)
{
	ll_add(h->bucket, HIST_BUCKETS, HIST_SUB_BITS, &h->count, &h->max_ns,
	       &h->sum_ns, v_ns);
}

double hist_avg_ns(const struct hist *h)
{
	return h->count ? h->sum_ns / (double)h->count : 0.0;
}

uint64_t hist_quantile_ns(const struct hist *h, double q)
{
	return ll_quantile(h->bucket, HIST_BUCKETS, HIST_SUB_BITS, h->count,
			   h->max_ns, q);
}

void hist_fine_reset(struct hist_fine *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_fine_add(struct hist_fine *h, uint64_t v_ns)
{
	ll_add(h->bucket, HIST_FINE_BUCKETS, HIST_FINE_SUB_BITS, &h->count,
	       &h->max_ns, &h->sum_ns, v_ns);
}

double hist_fine_avg_ns(const struct hist_fine *h)
{
	return h->count ? h->sum_ns / (double)h->count : 0.0;
}

uint64_t hist_fine_quantile_ns(const struct hist_fine *h, double q)
{
	return ll_quantile(h->bucket, HIST_FINE_BUCKETS, HIST_FINE_SUB_BITS,
			   h->count, h->max_ns, q);
}
