/* hist.h - log-linear histograms of durations for avg / quantiles / max,
 * with bounded relative error and no allocation.  Values are nanoseconds.
 *
 * Two precisions of one implementation: struct hist (1/16, 4 KiB: the
 * stats line's per-interval delays and the simulator's classes) and
 * struct hist_fine (1/1024, 256 KiB: whole-run summaries where a few
 * milliseconds at 250 ms matter, the EF sink's). */
#ifndef SCHEDTUN_HIST_H
#define SCHEDTUN_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 4                 /* 16 sub-buckets per octave */
#define HIST_SUB      (1u << HIST_SUB_BITS)
#define HIST_BUCKETS  (64u * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t max_ns;
	double   sum_ns;
	uint32_t bucket[HIST_BUCKETS];
};

void     hist_reset(struct hist *h);
void     hist_add(struct hist *h, uint64_t v_ns);
double   hist_avg_ns(const struct hist *h);            /* 0 when empty */
/* Upper edge of the bucket holding the q-quantile (0<q<=1), clamped to the
 * maximum seen; 0 when empty.  Never below the exact nearest-rank
 * quantile, above it by less than 1/HIST_SUB of it. */
uint64_t hist_quantile_ns(const struct hist *h, double q);

#define HIST_FINE_SUB_BITS 10           /* 1024 sub-buckets per octave */
#define HIST_FINE_SUB      (1u << HIST_FINE_SUB_BITS)
#define HIST_FINE_BUCKETS  (64u * HIST_FINE_SUB)

struct hist_fine {
	uint64_t count;
	uint64_t max_ns;
	double   sum_ns;
	uint32_t bucket[HIST_FINE_BUCKETS];
};

/* As hist_*, above it by less than 1/HIST_FINE_SUB of the exact value. */
void     hist_fine_reset(struct hist_fine *h);
void     hist_fine_add(struct hist_fine *h, uint64_t v_ns);
double   hist_fine_avg_ns(const struct hist_fine *h);
uint64_t hist_fine_quantile_ns(const struct hist_fine *h, double q);

#endif
