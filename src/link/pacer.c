/* pacer.c - serialises packets onto the emulated link at C(t).
 *
 * The pacer lives in "service position" space (bits along S(t), link.h):
 * a packet of b bits starting at position x finishes at the first t with
 * S(t) >= x + b.  Working in positions rather than in durations makes the
 * long-run rate exact whatever the timer jitter, and makes a variable C(t)
 * and Mahimahi opportunities (several packets in one, one packet over
 * several) fall out of the same rule.
 */
#include "link/pacer.h"

/* Lowest position a packet may start at when sent at `now`.
 * avail_ns is when the packet became available to the link (TS_NEVER:
 * unknown).  Known: the start lies at or after its arrival, after the
 * moment the link was last seen idle, and no more than
 * PACER_CATCHUP_MAX_NS in the past (a late wake-up is caught up, a stalled
 * process does not come back with seconds of burst).  Unknown: an idle
 * link starts at now, a backlogged one catches up. */
static tstamp_ns floor_time(const struct pacer *pc, tstamp_ns now,
			    tstamp_ns avail_ns)
{
	tstamp_ns from = now > PACER_CATCHUP_MAX_NS ? now - PACER_CATCHUP_MAX_NS : 0;

	if (avail_ns == TS_NEVER) {
		if (pc->idle)
			from = now;
	} else {
		if (avail_ns > from)
			from = avail_ns;
		if (pc->idle && pc->idle_since_ns > from)
			from = pc->idle_since_ns;
		if (from > now)
			from = now;
	}
	return from;
}

static double floor_bits(const struct pacer *pc, tstamp_ns now,
			 tstamp_ns avail_ns)
{
	return link_service_bits(pc->prof, floor_time(pc, now, avail_ns));
}

tstamp_ns pacer_start_time(const struct pacer *pc, tstamp_ns now,
			   tstamp_ns avail_ns)
{
	tstamp_ns t;

	if (pc->prof->kind == LINK_UNLIMITED)
		return now;
	t = floor_time(pc, now, avail_ns);
	if (pc->busy_until_ns > t)
		t = pc->busy_until_ns;
	return t < now ? t : now;
}

/* Starts idle at `now` with the position at S(now): nothing is owed for
 * the time before the pacer existed. */
void pacer_init(struct pacer *pc, const struct link_profile *prof,
		tstamp_ns now)
{
	pc->prof = prof;
	pc->pos_bits = prof->kind == LINK_UNLIMITED ? 0.0 :
		       link_service_bits(prof, now);
	pc->busy_until_ns = now;
	pc->idle = 1;
	pc->idle_since_ns = now;
}

/* A packet already on the wire keeps its finish time (unless the old
 * profile never finished it), and the link stays busy until then: the
 * next packet starts in the new profile's position space at S_new(busy),
 * whenever it is sent.  Trap avoided: resetting to an idle link at `now`
 * let a packet already waiting (its avail_ns before the swap) start at
 * S_new(now), on top of the one still on the wire -- up to one packet
 * time given away per reload.  An idle link starts afresh at `now`. */
void pacer_set_profile(struct pacer *pc, const struct link_profile *prof,
		       tstamp_ns now)
{
	tstamp_ns busy = pc->busy_until_ns;

	pacer_init(pc, prof, now);
	if (busy == TS_NEVER || busy <= now || prof->kind == LINK_UNLIMITED)
		return;
	pc->busy_until_ns = busy;
	pc->pos_bits = link_service_bits(prof, busy);
	pc->idle = 0;
}

/* Cheap enough to call every time the scheduler comes back empty: the
 * position is settled lazily at the next pacer_send(). */
void pacer_mark_idle(struct pacer *pc, tstamp_ns now)
{
	(void)now;
	pc->idle = 1;
	pc->idle_since_ns = now;
}

/* O(1) for constant/cosine, O(log n) for trace/mahimahi; no allocation.
 * The returned finish may lie before `now` while catching up: it is the
 * time the link would have finished the packet, which is what the delay
 * line must add its propagation delay to. */
tstamp_ns pacer_send(struct pacer *pc, uint32_t len_bytes, tstamp_ns now)
{
	return pacer_send_at(pc, len_bytes, now, TS_NEVER);
}

tstamp_ns pacer_send_at(struct pacer *pc, uint32_t len_bytes, tstamp_ns now,
			tstamp_ns avail_ns)
{
	double start, lowest;
	tstamp_ns finish;

	if (pc->prof->kind == LINK_UNLIMITED) {
		pc->busy_until_ns = now;
		pc->idle = 0;
		return now;
	}
	start = pc->pos_bits;
	lowest = floor_bits(pc, now, avail_ns);
	if (lowest > start)
		start = lowest;
	start += (double)len_bytes * 8.0;
	finish = link_time_for_bits(pc->prof, start, 0);
	pc->pos_bits = start;
	pc->busy_until_ns = finish;
	pc->idle = 0;
	return finish;
}
