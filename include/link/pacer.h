/* pacer.h - serialises packets onto the emulated link at C(t).
 *
 * The pacer keeps the link's service position (bits) and the time the link
 * becomes free.  While the link stays backlogged, each packet continues from
 * the previous one's finishing position, even if the loop wakes up late: the
 * missed send slots are caught up (as Mahimahi's rationalize() does), so
 * the long-run rate is exact despite timer jitter.  Lateness beyond
 * PACER_CATCHUP_MAX_NS is forgiven rather than replayed as a burst.  When
 * the link went idle, the position jumps to S(now): unused capacity is lost.
 */
#ifndef SCHEDTUN_PACER_H
#define SCHEDTUN_PACER_H

#include "link/link.h"
#include "util/tstamp.h"

#define PACER_CATCHUP_MAX_NS (50 * NS_PER_MS)

struct pacer {
	const struct link_profile *prof;
	double    pos_bits;             /* service position after last packet */
	tstamp_ns busy_until_ns;        /* when the last packet finishes */
	int       idle;                 /* nothing was sent since busy_until */
	tstamp_ns idle_since_ns;        /* first time seen idle (if idle) */
};

void pacer_init(struct pacer *pc, const struct link_profile *prof, tstamp_ns now);

/* Swaps in a new profile (SIGHUP).  A packet on the wire keeps its
 * finish time and the next one starts after it, at the new rate; an idle
 * link goes idle at `now` in the new profile. */
void pacer_set_profile(struct pacer *pc, const struct link_profile *prof,
		       tstamp_ns now);

/* True when a packet may start now (busy_until <= now). */
static inline int pacer_ready(const struct pacer *pc, tstamp_ns now)
{
	return pc->busy_until_ns <= now;
}

/* Records that the link had nothing to send at `now` (it goes idle). */
void pacer_mark_idle(struct pacer *pc, tstamp_ns now);

/* Charges a packet of len_bytes that starts now (pacer_ready() was true);
 * returns the time its last bit leaves (TS_NEVER if the profile never
 * serves it).  Unlimited links finish at `now`. */
tstamp_ns pacer_send(struct pacer *pc, uint32_t len_bytes, tstamp_ns now);

/* The same for a packet that became available (arrived) at avail_ns: a
 * catch-up never starts it before that time nor before the link was last
 * seen idle, so capacity the link had while this packet did not exist yet
 * is not replayed, and a packet the loop reaches late still starts at its
 * arrival.  avail_ns = TS_NEVER: unknown (pacer_send). */
tstamp_ns pacer_send_at(struct pacer *pc, uint32_t len_bytes, tstamp_ns now,
			tstamp_ns avail_ns);

/* When the link starts the next packet if it is sent at `now` with the
 * same avail_ns as pacer_send_at(): `now`, or earlier while a late
 * wake-up is being caught up (then busy_until or the start of the
 * backlog).  This is the emulated link's clock, which schedulers that
 * measure time (PSS) must see rather than the loop's wake-up jitter. */
tstamp_ns pacer_start_time(const struct pacer *pc, tstamp_ns now,
			   tstamp_ns avail_ns);

#endif
