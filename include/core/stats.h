/* stats.h - the daemon's counters and the JSON-lines writer for them.
 * Layout of a line: docs/stats-format.md.  Counters are deltas since the
 * previous line; stats_emit() resets them. */
#ifndef SCHEDTUN_STATS_H
#define SCHEDTUN_STATS_H

#include <stdio.h>
#include "pkt/classify.h"
#include "pkt/tso.h"
#include "pkt/tunnel.h"
#include "sched/sched.h"
#include "sec/auth.h"
#include "util/hist.h"
#include "util/jw.h"

struct cls_stats {                      /* egress of one class */
	uint64_t in_pkts, in_bytes;
	uint64_t out_pkts, out_bytes;
	uint64_t drop_pkts, drop_bytes;
	struct hist sojourn;            /* enqueue -> dequeue, ns */
};

struct rx_stats {                       /* what arrived from the peer */
	uint64_t pkts, bytes, lost;
	struct hist owd;                /* one-way delay, ns */
	uint32_t next_seq;              /* expected next sequence number */
	int      seq_valid;             /* next_seq holds a value (not reset) */
};

struct stats {
	struct cls_stats cls[NCLASS];
	struct rx_stats  rx[NCLASS];
	uint64_t link_out_pkts, link_out_bytes;
	struct hist late;               /* |actual - planned| departure, ns */
	uint64_t tun_bad[IP_VERDICT_MAX];
	uint64_t tso_bad[TSO_VERDICT_MAX];      /* tun reads refused by tso_begin */
	uint64_t rx_bad[TUN_VERDICT_MAX];
	uint64_t rx_inner_bad[IP_VERDICT_MAX];
	uint64_t rx_unknown_peer;
	uint64_t rx_not_allowed;        /* before pinning, outside tunnel.allow */
	uint64_t rx_unauth;             /* version 1 at a daemon with a key */
	uint64_t rx_keyed;              /* version 2 at a daemon without one */
	uint64_t rx_auth[AUTH_VERDICT_MAX];     /* refused by auth_open() */
	uint64_t pool_empty;
	uint64_t send_error;
	uint64_t tx_counter_limit;      /* not sealed: the session's counters spent */
	uint64_t tun_write_error;
	uint64_t tx_blocked;            /* sends that met EAGAIN (held, not lost) */
	uint64_t stats_write_error;     /* stats lines that could not be written */
	uint64_t tun_super_reads;       /* tun reads that were GSO super-packets */
	uint64_t tun_segments;          /* packets those reads were split into */
	uint64_t gso_sends;             /* messages sent with UDP_SEGMENT */
	uint64_t gso_segments;          /* datagrams those messages carried */
	uint64_t gro_reads;             /* receives that held > 1 datagram (UDP_GRO) */
	uint64_t gro_segments;          /* datagrams those receives held */
	uint64_t gso_fallback;          /* GSO turned off for the run (refused) */
	uint64_t tun_gro_writes;        /* tun writes of a super-packet (>= 2) */
	uint64_t tun_gro_segments;      /* packets those writes held */
	uint64_t tun_gro_fallback;      /* coalescing turned off (refused) */
	uint64_t sched_drop[DROP_REASON_MAX];
	/* The scheduler's counters on the previous line, so that its
	 * dump_stats can stay read-only (jw_counter()); not a delta. */
	struct jw_memo sched_memo;
};

/* Values sampled at the end of the interval, not deltas. */
struct stats_gauges {
	double    t_s;
	double    wall_s;       /* CLOCK_REALTIME at t (s since the epoch):
				 * the clock of the tunnel header's tx stamp
				 * and rx owd, so that two daemons' lines can
				 * be put on one time axis */
	uint64_t  rate_bps;
	uint32_t  inflight_pkts;
	uint32_t  qlen_pkts[NCLASS];
	uint64_t  qlen_bytes[NCLASS];
	/* the per-packet log (only when it is on): records written into its
	 * buffer and records lost (refused under pressure, or lost with a
	 * failed write) over the interval; bytes waiting in the buffer */
	int       log_on;
	uint64_t  log_records, log_lost;
	uint64_t  log_buffered_bytes;
	/* the edge marker, per class marked: packets by colour and packets
	 * metered on the shared meter over the interval; flow meters now */
	int       mark_on[NCLASS];
	uint64_t  mark_pkts[NCLASS][3];         /* green, yellow, red */
	uint64_t  mark_shared[NCLASS];
	uint32_t  mark_flows[NCLASS];
	/* the authenticated tunnel (only with a key): sessions of the peer
	 * opened, datagrams accepted under the previous key and re-keys
	 * completed on the send side over the interval; the largest
	 * reordering accepted in the peer's session, in datagrams; whether
	 * sending still waits for the peer's new key */
	int       auth_on;
	uint64_t  auth_sessions, auth_prev_key, auth_switches;
	uint64_t  auth_late_max;
	int       auth_rekey_pending;
};

void stats_init(struct stats *s);

/* Accounts an arrival with sequence number seq in class cls: counts the
 * gap since the previous one as lost.  A sequence number behind the
 * expected one (peer restarted, or reordering) resynchronises silently. */
void stats_rx_seq(struct rx_stats *r, uint32_t seq);

/* A new scheduler instance (SIGHUP swap): its counters start again, so
 * the next line's deltas count from 0. */
void stats_sched_swapped(struct stats *s);

/* Formats one line into buf (JSON, '\n'-terminated) including the
 * scheduler's own fields, then resets the deltas.  Returns the length or
 * -1 if buf was too small (the deltas are kept then, the scheduler's
 * included).  The scheduler's dump_stats is only read: its counters are
 * cumulative and turned into deltas here (jw_counter()). */
int stats_format(struct stats *s, const struct stats_gauges *g,
		 struct sched *sch, char *buf, size_t len);

#endif
