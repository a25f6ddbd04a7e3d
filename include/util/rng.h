/* rng.h - deterministic random numbers: splitmix64 (Steele, Lea and
 * Flood, 2014) and the distributions the simulator draws from.  A stream
 * is one uint64_t of state; the same seed gives the same numbers on every
 * machine, so simulator runs and randomised tests repeat exactly. */
#ifndef SCHEDTUN_RNG_H
#define SCHEDTUN_RNG_H

#include <stdint.h>

#include "util/tstamp.h"

/* The next number of the stream *st, advancing it. */
uint64_t rng_next(uint64_t *st);

/* Uniform in [0, 1), 53 random bits. */
double rng_u01(uint64_t *st);

/* Uniform in (0, 1], 53 bits: never 0, so logs and powers stay finite. */
double rng_u01_nonzero(uint64_t *st);

/* An exponential duration of mean mean_ns, rounded to ns. */
tstamp_ns rng_exp_ns(uint64_t *st, tstamp_ns mean_ns);

/* Pareto of shape alpha > 1 and mean `mean`: scale mean (alpha-1)/alpha. */
double rng_pareto(uint64_t *st, double alpha, double mean);

/* The Pareto of rng_pareto() conditioned on <= max (max >= its minimum
 * k): the inverse of the truncated CDF (1 - (k/x)^alpha) / (1 -
 * (k/max)^alpha), one draw like the untruncated one. */
double rng_pareto_trunc(uint64_t *st, double alpha, double mean, double max);

#endif
