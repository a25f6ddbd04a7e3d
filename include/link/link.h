/* link.h - the emulated link's capacity C(t) and its service curve.
 *
 * Every profile is described by its cumulative service curve S(t): the
 * number of bits the link can have carried from time 0 (the daemon's start)
 * to time t.  The pacer works in that "service position" space: a packet of
 * b bits that starts at position x finishes when S(t) reaches x + b.  This
 * gives one exact rule for all profiles:
 *   constant   S(t) = R t
 *   cosine     C(t) = m (1 + a cos(2 pi t / P)),
 *              S(t) = m t + m a P / (2 pi) sin(2 pi t / P)
 *   trace      piecewise constant rate from a CSV file (time_s,rate_bps),
 *              the last rate holding forever
 *   mahimahi   a Mahimahi link trace: each line is a millisecond offset at
 *              which one delivery opportunity of 1504 bytes occurs; the file
 *              repeats with its last offset as period.  S(t) is a staircase
 *              of 1504*8 bits per opportunity, so a packet may span several
 *              opportunities and an opportunity the link leaves unused while
 *              idle is lost, as in Mahimahi's LinkQueue.  schedtun charges the
 *              inner IP packet's bytes against those opportunities.
 */
#ifndef SCHEDTUN_LINK_H
#define SCHEDTUN_LINK_H

#include <stddef.h>
#include <stdint.h>
#include "util/tstamp.h"

#define MAHIMAHI_OPP_BYTES 1504u

enum link_kind { LINK_UNLIMITED = 0, LINK_CONSTANT, LINK_COSINE, LINK_TRACE,
		 LINK_MAHIMAHI };

extern const char *const link_kind_name[];   /* indexed by enum link_kind */

struct trace_pt {
	tstamp_ns t_ns;                 /* start of this segment */
	uint64_t  rate_bps;             /* rate from t_ns to the next point */
	double    cum_bits;             /* S(t_ns) */
};

struct link_profile {
	enum link_kind kind;
	uint64_t  rate_bps;             /* constant: the rate */
	uint64_t  mean_bps;             /* cosine: m */
	double    amplitude;            /* cosine: a, 0 <= a < 1 */
	double    period_s;             /* cosine: P */
	struct trace_pt *pts;           /* trace: sorted, pts[0].t_ns == 0 */
	uint32_t  npts;
	uint32_t *opp_ms;               /* mahimahi: opportunity offsets (ms) */
	uint32_t  nopps;
	uint32_t  mm_period_ms;         /* mahimahi: last offset */
	char      source[256];          /* trace file name, for messages */
};

/* Loads a trace CSV ("time_s,rate_bps", '#' comments, header line allowed,
 * times strictly increasing from 0) into p.  On error returns -1 and writes
 * "FILE:LINE: problem (accepted: ...)" into err. */
int link_load_trace(struct link_profile *p, const char *path,
		    char *err, size_t errlen);

/* Loads a Mahimahi trace (one non-decreasing integer ms offset per line). */
int link_load_mahimahi(struct link_profile *p, const char *path,
		       char *err, size_t errlen);

/* Frees what the loaders allocated; leaves the profile LINK_UNLIMITED. */
void link_profile_free(struct link_profile *p);

/* Deep copy (trace arrays are duplicated).  0 or -1 (ENOMEM). */
int link_profile_copy(struct link_profile *dst, const struct link_profile *src);

/* Instantaneous rate C(t) in bit/s (mahimahi: the mean over one period). */
uint64_t link_rate_at(const struct link_profile *p, tstamp_ns t_ns);

/* Long-run mean rate in bit/s (the nominal capacity schedulers are given). */
uint64_t link_mean_bps(const struct link_profile *p);

/* S(t) in bits.  Not meaningful for LINK_UNLIMITED. */
double link_service_bits(const struct link_profile *p, tstamp_ns t_ns);

/* Smallest t >= hint_ns with S(t) >= bits, or TS_NEVER if the link never
 * gets there (a trace ending at rate 0).  hint_ns must satisfy
 * S(hint_ns) <= bits or be 0. */
tstamp_ns link_time_for_bits(const struct link_profile *p, double bits,
			     tstamp_ns hint_ns);

#endif
