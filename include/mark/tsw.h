/* tsw.h - the Time Sliding Window meter and marker of RFC 2859 (W. Fang,
 * N. Seddigh, B. Nandy, "A Time Sliding Window Three Colour Marker
 * (TSWTCM)", 2000), the conditioner the TICKET paper (Karlsson et al.,
 * §3) uses at its access routers to police each TFRC flow into
 * conforming and excess traffic.
 *
 * The meter (RFC 2859 §2.2) estimates a stream's rate, in bytes per
 * second, over a window that slides to each arrival:
 *     initially   AVG_RATE = CTR, T_FRONT = 0 (the marker's start)
 *     per packet  Bytes_in_win = AVG_RATE * AVG_INTERVAL
 *                 New_bytes    = Bytes_in_win + pkt_size
 *                 AVG_RATE     = New_bytes / (now - T_FRONT + AVG_INTERVAL)
 *                 T_FRONT      = now
 * so a stream at a constant rate R converges to R geometrically, by the
 * factor AVG_INTERVAL / (AVG_INTERVAL + gap) per packet, and stays there.
 *
 * The marker (§2.3) colours the packet from the estimate just updated,
 * against the Committed and Peak Target Rates CTR < PTR:
 *     AVG_RATE <= CTR        green
 *     CTR < AVG_RATE <= PTR  yellow with probability (AVG_RATE - CTR) / AVG_RATE,
 *                            else green
 *     AVG_RATE > PTR         red with probability (AVG_RATE - PTR) / AVG_RATE,
 *                            yellow with (PTR - CTR) / AVG_RATE, else green
 * so that, at a steady rate R, green carries CTR, yellow PTR - CTR and red
 * the rest.  Without a PTR (the two-colour marker of the TICKET paper's
 * conditioner, Clark and Fang's TSW tagger) there is no red: above CTR a
 * packet is yellow with probability (AVG_RATE - CTR) / AVG_RATE.
 *
 * Decisions where the RFC leaves room:
 *  - Time.  The RFC's T_FRONT = 0 is the time the marker started (t0 of
 *    tsw_meter_init()): a flow first seen later is a flow that was silent
 *    until then, so its first packets are green.  A packet stamped before
 *    T_FRONT (the daemon's clock handed out of order) counts as arriving
 *    at T_FRONT: the window never slides back.
 *  - Randomness.  One uniform draw in [0, 1) per packet whose colour is
 *    random, from a seeded splitmix64 stream (util/rng.h), none when the
 *    colour is certain: a run repeats exactly from its seed.
 * No clock (now is passed in), no allocation.
 */
#ifndef SCHEDTUN_MARK_TSW_H
#define SCHEDTUN_MARK_TSW_H

#include <stdint.h>

#include "util/tstamp.h"

enum tsw_colour {
	TSW_GREEN = 0,          /* within CTR: conforming */
	TSW_YELLOW,             /* between CTR and PTR: excess */
	TSW_RED,                /* above PTR */
	TSW_NCOLOUR
};

extern const char *const tsw_colour_name[TSW_NCOLOUR];

struct tsw_params {
	uint64_t  committed_bps;        /* CTR, bit/s, > 0 */
	uint64_t  peak_bps;             /* PTR, bit/s, > CTR; 0: two colours */
	tstamp_ns window_ns;            /* AVG_INTERVAL, > 0 */
};

/* One stream's meter. */
struct tsw_meter {
	double    avg_rate_bytes_per_s; /* AVG_RATE */
	tstamp_ns t_front_ns;           /* T_FRONT */
};

/* NULL when p is usable, else what is wrong with it (a constant string:
 * "committed rate is 0", ...), for the configuration layer's message. */
const char *tsw_params_problem(const struct tsw_params *p);

/* §2.2 "Initially", with the marker started at t0_ns. */
void tsw_meter_init(struct tsw_meter *m, const struct tsw_params *p,
		    tstamp_ns t0_ns);

/* §2.2 for a packet of len_bytes at now; returns the new AVG_RATE in
 * bit/s. */
double tsw_meter_update(struct tsw_meter *m, const struct tsw_params *p,
			uint32_t len_bytes, tstamp_ns now);

/* §2.3's probabilities of green, yellow and red at an estimate of
 * avg_bps (they add up to 1). */
void tsw_probabilities(const struct tsw_params *p, double avg_bps,
		       double prob[TSW_NCOLOUR]);

/* §2.3: the colour of a packet at an estimate of avg_bps; draws one
 * number from *rng only when the colour is random. */
enum tsw_colour tsw_colour_of(const struct tsw_params *p, double avg_bps,
			      uint64_t *rng);

#endif
