/* marker.h - the edge conditioner of the daemon: per class, each flow's
 * packets metered and marked with RFC 2859's Time Sliding Window (tsw.h),
 * the packets above the profile re-marked to a lower class before they
 * are queued.  The TICKET paper's access routers (Karlsson et al., §3:
 * "service profiles of 2.4 Mbps (i.e., 267 kbps/flow) are used to police
 * TFRC traffic into conforming and excess traffic with Time Sliding Window
 * based traffic conditioners"): EF (In-Time conforming) above its
 * committed rate becomes AF (In-Time excess).
 *
 * Per flow.  A flow is the inner 5-tuple (pkt->flow_hash, as the per-flow
 * schedulers see it), one meter per flow and class in a bounded flow
 * table (util/flowtab.h) of `flows` entries allocated at start; an entry
 * idle for MARKER_IDLE_WINDOWS windows (at least 1 s) is reclaimed, and a
 * flow seen again starts a fresh meter as RFC 2859 §2.2 "Initially" does
 * for a flow silent since the marker's start (its first packets are
 * green; the meter it lost had decayed towards that anyway).  When the
 * table is full, the packets of flows without an entry share one meter
 * per class (counted in `shared`): together they are held to one flow's
 * profile, so a flood of new flows cannot escape the policing.
 *
 * Re-marking.  Green packets are untouched.  A yellow packet's DSCP
 * becomes yellow_dscp, a red one's red_dscp (the IPv4 header checksum is
 * recomputed; ECN bits are kept); the packet then joins the class that
 * code point maps to (yellow_cls, red_cls, resolved by the configuration
 * from the DSCP map), so the scheduler, the counters and the peer all see
 * the new marking.  No allocation per packet, no clock (now is passed in),
 * randomness from one seeded stream (a run repeats from its seed).
 */
#ifndef SCHEDTUN_MARK_MARKER_H
#define SCHEDTUN_MARK_MARKER_H

#include <stdint.h>
#include "mark/tsw.h"
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "util/flowtab.h"

#define MARKER_IDLE_WINDOWS 10u
#define MARKER_FLOWS_MAX    (1u << 20)

struct marker_cls {
	int      on;
	struct tsw_params tsw;          /* committed, peak (0: two colours), window */
	uint32_t flows;                 /* meters in the flow table */
	uint8_t  yellow_dscp, red_dscp; /* what re-marked packets carry */
	uint8_t  yellow_cls, red_cls;   /* enum pkt_class of those code points */
};

struct marker_params {
	struct marker_cls cls[NCLASS];
	uint64_t seed;
};

struct marker {
	struct marker_params p;
	struct flowtab    ft[NCLASS];
	struct tsw_meter  shared[NCLASS];       /* flows without an entry */
	uint64_t          rng;
	tstamp_ns         t0_ns;
	/* cumulative counts, per class marked */
	uint64_t colour_pkts[NCLASS][TSW_NCOLOUR];
	uint64_t shared_pkts[NCLASS];
};

/* 1 when some class is marked. */
int  marker_params_on(const struct marker_params *p);

/* Allocates the flow tables of the classes that are marked, starting the
 * meters at t0_ns.  0, or -1 (no memory) with nothing allocated. */
int  marker_init(struct marker *m, const struct marker_params *p, tstamp_ns t0_ns);
void marker_destroy(struct marker *m);

/* Meters and marks a classified packet (p->cls, p->dscp, p->flow_hash
 * set, p->data a valid IP packet) at now; a yellow or red one is
 * re-marked (header, p->dscp, p->cls).  Returns its colour (green for a
 * class without a marker, not counted then). */
enum tsw_colour marker_mark(struct marker *m, struct pkt *p, tstamp_ns now);

/* Flows with a meter in class k's table now. */
uint32_t marker_flows(const struct marker *m, unsigned k);

/* Rewrites the DSCP of the IP packet at ip (version 4 or 6) to dscp,
 * keeping ECN; an IPv4 header's checksum is recomputed. */
void ip_set_dscp(uint8_t *ip, uint8_t dscp);

#endif
