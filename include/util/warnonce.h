/* warnonce.h - "say so once" for failures that can repeat per packet or
 * per stats line (a socket that refuses, a tun that cannot be written, an
 * empty pool, a full disk).
 *
 * The first failure of an episode is logged (a warning naming the counter
 * that keeps counting); the following ones only count.  The episode ends
 * when WARN_QUIET_NS pass without a failure, noticed by warn_once_poll():
 * one info line then gives the episode's total.  So a failure that repeats
 * for an hour, or that comes and goes faster than WARN_QUIET_NS, costs two
 * log lines, never one per packet.  No allocation, no clock: `now` comes
 * from the caller, as everywhere below the loop.
 */
#ifndef SCHEDTUN_WARNONCE_H
#define SCHEDTUN_WARNONCE_H

#include <stdint.h>
#include "util/tstamp.h"

#define WARN_QUIET_NS (5 * NS_PER_SEC)  /* failure-free time that ends an episode */

struct warn_once {
	const char *what;               /* "send to the peer" */
	const char *then;               /* "dropped, counted in drops.send_error" */
	uint64_t    episode_fails;      /* failures since the episode's first */
	tstamp_ns   last_ns;            /* time of the latest failure */
	int         active;             /* first line logged, end not yet */
};

/* what (the operation) and then (what happens to the data, which counter
 * counts) must outlive w. */
void warn_once_init(struct warn_once *w, const char *what, const char *then);

/* One failure at `now`; err is a positive errno (0: no OS error to name).
 * Logs only if no episode is running. */
void warn_once_fail(struct warn_once *w, int err, tstamp_ns now);

/* Ends a running episode after WARN_QUIET_NS without a failure, with one
 * line.  Cheap: call it on every stats tick. */
void warn_once_poll(struct warn_once *w, tstamp_ns now);

#endif
