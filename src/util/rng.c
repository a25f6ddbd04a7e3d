/* rng.c - splitmix64 and its distributions (util/rng.h). */
#include <math.h>

#include "util/rng.h"

#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15ULL
#define TWO_POW_53     9007199254740992.0

/* See rng.h. */
uint64_t rng_next(uint64_t *st)
{
	uint64_t z = (*st += SPLITMIX_GAMMA);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* See rng.h. */
double rng_u01(uint64_t *st)
{
	return (double)(rng_next(st) >> 11) / TWO_POW_53;
}

/* See rng.h. */
double rng_u01_nonzero(uint64_t *st)
{
	return ((double)(rng_next(st) >> 11) + 1.0) / TWO_POW_53;
}

/* See rng.h. */
tstamp_ns rng_exp_ns(uint64_t *st, tstamp_ns mean_ns)
{
	return (tstamp_ns)llround(-(double)mean_ns * log(rng_u01_nonzero(st)));
}

/* See rng.h. */
double rng_pareto(uint64_t *st, double alpha, double mean)
{
	return mean * (alpha - 1.0) / alpha *
	       pow(rng_u01_nonzero(st), -1.0 / alpha);
}

/* See rng.h. */
double rng_pareto_trunc(uint64_t *st, double alpha, double mean, double max)
{
	double k = mean * (alpha - 1.0) / alpha;

	return k * pow(1.0 - rng_u01_nonzero(st) * (1.0 - pow(k / max, alpha)),
		       -1.0 / alpha);
}
