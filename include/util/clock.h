/* clock.h - the system clocks.  Only the event loop, the tunnel header's
 * stamp (through the loop), the tools' mains and the simulator's cost
 * measurement read them; everything else receives `now` (util/tstamp.h). */
#ifndef SCHEDTUN_CLOCK_H
#define SCHEDTUN_CLOCK_H

#include "util/tstamp.h"

/* CLOCK_MONOTONIC in ns: drives timers, pacing and the stats interval. */
tstamp_ns clock_mono_ns(void);

/* CLOCK_REALTIME in ns: stamped into the tunnel header so that two daemons
 * on different hosts (NTP-synchronised) or in two netns of one host can
 * compute one-way delay. */
uint64_t clock_real_ns(void);

#endif
