/* clock.h - time representation shared by every module.
 *
 * Everything below the event loop receives `now` as an argument; only the
 * loop (and the tunnel header stamp) reads a system clock.  That keeps the
 * schedulers, the pacer and the delay line deterministic under a virtual
 * clock in the unit tests and the simulator.
 */
#ifndef SCHEDTUN_CLOCK_H
#define SCHEDTUN_CLOCK_H

#include <stdint.h>

typedef uint64_t tstamp_ns;             /* monotonic nanoseconds */

#define TS_NEVER     UINT64_MAX         /* "no event pending" */
#define NS_PER_US    1000ULL
#define NS_PER_MS    1000000ULL
#define NS_PER_SEC   1000000000ULL

/* CLOCK_MONOTONIC in ns: drives timers, pacing and the stats interval. */
tstamp_ns clock_mono_ns(void);

/* CLOCK_REALTIME in ns: stamped into the tunnel header so that two daemons
 * on different hosts (NTP-synchronised) or in two netns of one host can
 * compute one-way delay. */
uint64_t clock_real_ns(void);

#endif
