/* hist.c - log-linear histogram (see hist.h).
 *
 * Bucket index: values below HIST_SUB map to themselves; above, the octave
 * (position of the top bit) selects a group of HIST_SUB buckets and the next
 * HIST_SUB_BITS bits below the top bit select the bucket inside it, so a
 * bucket is at most 1/HIST_SUB of its value wide. */
#include <string.h>
#include "util/hist.h"

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

static unsigned hist_index(uint64_t v)
{
	unsigned top, shift;

	if (v < HIST_SUB)
		return (unsigned)v;
	top = 63u - (unsigned)__builtin_clzll(v);       /* >= HIST_SUB_BITS */
	shift = top - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (unsigned)((v >> shift) & (HIST_SUB - 1));
}

/* Largest value that maps to bucket i. */
static uint64_t hist_upper(unsigned i)
{
	unsigned shift;
	uint64_t base;

	if (i < HIST_SUB)
		return i;
	shift = i / HIST_SUB - 1;
	base = ((uint64_t)HIST_SUB + (i % HIST_SUB)) << shift;
	return base + ((1ULL << shift) - 1);
}

void hist_add(struct hist *h, uint64_t v_ns)
{
	unsigned i = hist_index(v_ns);

	if (i >= HIST_BUCKETS)
		i = HIST_BUCKETS - 1;
	h->bucket[i]++;
	h->count++;
	h->sum_ns += (double)v_ns;
	if (v_ns > h->max_ns)
		h->max_ns = v_ns;
}

double hist_avg_ns(const struct hist *h)
{
	return h->count ? h->sum_ns / (double)h->count : 0.0;
}

uint64_t hist_quantile_ns(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (!h->count)
		return 0;
	/* rank = ceil(q * count), at least 1 */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t up = hist_upper(i);

			return up < h->max_ns ? up : h->max_ns;
		}
	}
	return h->max_ns;
}
