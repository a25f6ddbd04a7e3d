/* tstamp.h - time representation shared by every module.
 *
 * Everything below the event loop receives `now` as an argument and sees
 * only this header; reading a clock needs util/clock.h, which the
 * schedulers, the link model, the packets and the core may not include
 * (tests/layering.py).  That keeps them deterministic under a virtual
 * clock in the unit tests and the simulator.
 */
#ifndef SCHEDTUN_TSTAMP_H
#define SCHEDTUN_TSTAMP_H

#include <stdint.h>

typedef uint64_t tstamp_ns;             /* monotonic nanoseconds */

#define TS_NEVER     UINT64_MAX         /* "no event pending" */
#define NS_PER_US    1000ULL
#define NS_PER_MS    1000000ULL
#define NS_PER_SEC   1000000000ULL

#endif
