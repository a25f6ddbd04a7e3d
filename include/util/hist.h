/* hist.h - a log-linear histogram of durations for avg / p99 / max over one
 * stats interval, with bounded relative error (1/HIST_SUB) and no
 * allocation.  Values are nanoseconds. */
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
 * maximum seen; 0 when empty. */
uint64_t hist_quantile_ns(const struct hist *h, double q);

#endif
