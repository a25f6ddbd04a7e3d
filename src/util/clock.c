/* clock.c - the two system clocks the daemon reads (see clock.h). */
#include <time.h>
#include "util/clock.h"

tstamp_ns clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (tstamp_ns)ts.tv_sec * NS_PER_SEC + (tstamp_ns)ts.tv_nsec;
}

uint64_t clock_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}
