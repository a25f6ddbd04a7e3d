/* efsink.h - what schedtun-efgen --sink measures (docs/efgen.md): IP-level
 * bits per interval, loss, reordering and duplicates from the generator's
 * sequence numbers, and the one-way delay from its CLOCK_REALTIME stamp.
 *
 * Fed with (sequence number, IP bytes, one-way delay) per datagram; no
 * sockets and no clock here, so the unit test drives it directly.
 *
 * Loss: the generator numbers its packets from 0, so a first packet with
 * sequence number n means n were lost before it; a jump above the highest
 * number seen opens a gap (lost), and a late packet inside a gap closes it
 * (lost - 1, reordered + 1); the counts are held at INT64_MAX (a datagram
 * may carry any 64-bit number).  The last EFSINK_WINDOW numbers below the
 * highest are remembered, so a packet seen twice there is a duplicate, not
 * a gap filled.  One-way delays: exact percentiles per interval (its
 * samples sorted); for the whole run util/hist's fine log-linear
 * histogram (256 KiB for any run length): a percentile is its bucket's
 * upper edge, never below the exact nearest-rank value and above it by
 * less than 1/HIST_FINE_SUB (0.1 %) of it, at most the maximum, which is
 * exact.  A negative delay (clocks not shared)
 * counts as 0.
 */
#ifndef SCHEDTUN_EFSINK_H
#define SCHEDTUN_EFSINK_H

#include <stddef.h>
#include <stdint.h>

#include "util/hist.h"
#include "util/tstamp.h"

#define EFSINK_WINDOW     65536u                /* sequence numbers */

struct efsink_owd_ms {
	double p50, p99, max;
};

struct efsink_interval {                /* one report line */
	double   t_s;                   /* end of the interval */
	double   rcvd_bps;              /* IP bits received / its length */
	uint64_t rcvd_pkts;
	int64_t  lost_pkts;             /* gaps opened - gaps filled in it */
	uint64_t reordered_pkts, dup_pkts;
	struct efsink_owd_ms owd_ms;    /* of its packets; 0s when none */
};

struct efsink_summary {                 /* the final line */
	double   duration_s;
	uint64_t rcvd_pkts, rcvd_bytes;
	double   rcvd_bits;
	int64_t  lost_pkts;             /* numbers below the highest missing */
	uint64_t reordered_pkts, dup_pkts;
	uint64_t highest_seq;           /* 0 when nothing arrived */
	struct efsink_owd_ms owd_ms;
};

struct efsink {
	int       started;
	uint64_t  max_seq;
	uint8_t   seen[EFSINK_WINDOW / 8];      /* bit seq % WINDOW */
	tstamp_ns ival_start_ns;
	uint64_t  iv_pkts, iv_bytes, iv_reordered, iv_dups;
	int64_t   iv_lost;
	uint64_t *iv_owd_ns;                    /* this interval's delays */
	size_t    iv_n, iv_cap;
	uint64_t  pkts, bytes, reordered, dups;
	int64_t   lost;
	struct hist_fine owd_run;               /* whole run's delays */
};

/* An empty sink; the first interval starts at 0.  Cannot fail: only the
 * interval's delays are allocated, as they arrive (efsink_add). */
void efsink_init(struct efsink *s);
void efsink_free(struct efsink *s);

/* One datagram: its sequence number, its IP size (payload + IP and UDP
 * headers) and its one-way delay (receive - send CLOCK_REALTIME, ns).
 * 0, or -1 (ENOMEM: the delay is then missing from this interval's
 * percentiles; the counts and the whole run's delays have it). */
int efsink_add(struct efsink *s, uint64_t seq, uint64_t ip_bytes,
	       int64_t owd_ns);

/* Closes the interval [start, to_ns) into *iv and opens the next at
 * to_ns (> start). */
void efsink_interval_close(struct efsink *s, tstamp_ns to_ns,
			   struct efsink_interval *iv);

/* The whole run's totals, duration_ns long. */
void efsink_summary(const struct efsink *s, tstamp_ns duration_ns,
		    struct efsink_summary *out);

#endif
