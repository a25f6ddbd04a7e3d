/* efgen.h - the EF generator's rate schedule and pacing (docs/efgen.md).
 *
 * A rate profile EF(t) is held as its cumulative curve S(t) = integral of
 * EF from 0 to t, in bits: the link module's service curves (link.h) are
 * exactly that, so constant, cosine and piecewise-constant profiles reuse
 * their exact S(t) and inverse.  Packet k (k = 0, 1, ...) of `size` IP
 * bytes is due at the smallest t with S(t) >= k * size * 8: the schedule
 * is absolute, so a late wake-up never shifts the later packets (no
 * drift), and sending everything already due on waking keeps the
 * long-run rate exact (catch-up).
 *
 * Everything here runs on a time passed in (ns since the generator's
 * start), never on the system clock: the unit test drives it on a virtual
 * clock, the tool (src/tools/schedtun-efgen.c) on CLOCK_MONOTONIC.
 */
#ifndef SCHEDTUN_EFGEN_H
#define SCHEDTUN_EFGEN_H

#include <stddef.h>
#include <stdint.h>

#include "link/link.h"
#include "util/tstamp.h"

#define EFGEN_PAYLOAD_MIN_BYTES 16u     /* sequence number + send time */
#define EFGEN_IP4_UDP_BYTES     28u     /* IPv4 + UDP headers */
#define EFGEN_IP6_UDP_BYTES     48u     /* IPv6 + UDP headers */
#define EFGEN_SIZE_MAX_BYTES    9000u
#define EFGEN_CSV_MAX_POINTS    1000000u
#define EFGEN_RATE_MAX_BPS      (1ULL << 53)    /* exact in a double */

#define EFGEN_SPEC_ACCEPTED \
	"RATE | cosine:AVG:AMPLITUDE:PERIOD | step:R1:T:R2 | csv:FILE; " \
	"RATE as in the config (\"5Mbit\", \"500kbit\", a plain number is " \
	"bit/s), 0 <= AMPLITUDE <= 1, PERIOD and T durations (\"6.1s\", " \
	"\"6100ms\", a plain number is s)"

enum efgen_kind { EFGEN_CONSTANT, EFGEN_COSINE, EFGEN_STEP, EFGEN_CSV };

extern const char *const efgen_kind_name[];     /* by enum efgen_kind */

struct efgen_profile {
	enum efgen_kind kind;
	struct link_profile curve;      /* EF(t) as a service curve S(t) */
};

/* Parses a --rate SPEC into p (EFGEN_SPEC_ACCEPTED).  Step and csv rates
 * may be 0 (a silent period); the constant rate and the cosine's AVG must
 * be above 0.  0, or -1 with "problem (accepted: ...)" in err, csv errors
 * as "FILE:LINE: problem (accepted: ...)", and p all zero (no partial
 * profile, nothing to free).  Free p with efgen_profile_free() after
 * success. */
int efgen_profile_parse(const char *spec, struct efgen_profile *p,
			char *err, size_t errlen);

/* Parses a csv profile file: lines "t_s,rate" (rate as RATE or bit/s, 0
 * allowed), piecewise constant from each t_s, the first t_s 0, times
 * strictly increasing; '#' starts a comment, blank lines and a header
 * "t_s,rate" are skipped.  0, or -1 with "FILE:LINE: problem (accepted:
 * ...)" in err. */
int efgen_csv_load(const char *path, struct efgen_profile *p,
		   char *err, size_t errlen);

void efgen_profile_free(struct efgen_profile *p);

/* S(t): the bits the profile asks for in [0, t). */
double efgen_bits(const struct efgen_profile *p, tstamp_ns t_ns);

/* The due time of packet k of size_bytes: the smallest t with
 * S(t) >= k * size_bytes * 8 (for k = 0: 0, or the time the rate first
 * rises above 0 when it starts at 0), or TS_NEVER when the profile
 * never gets there (it ends at rate 0).  hint_ns: a time with S(hint) at
 * most those bits (the previous packet's due time), or 0. */
tstamp_ns efgen_due_ns(const struct efgen_profile *p, uint64_t k,
		       uint32_t size_bytes, tstamp_ns hint_ns);

/* ---- the sender's run: pacing and per-interval accounting ------------ */

struct efgen_interval {                 /* one report line */
	double   t_s;                   /* end of the interval */
	double   target_bps;            /* mean of EF(t) over it */
	double   sent_bps;              /* IP bits sent in it / its length */
	uint64_t sent_pkts;
	uint64_t send_errors;
};

struct efgen_summary {                  /* the final line */
	double   duration_s;
	uint64_t sent_pkts;
	uint64_t sent_bytes;
	double   target_bits;           /* S(duration) */
	double   sent_bits;
	double   error_pct;             /* 100 (sent - target) / target */
	uint64_t send_errors;
};

/* What the run does with a packet and a finished interval.  send returns
 * 0 when the packet left, -1 when the send failed (counted, not fatal). */
struct efgen_io {
	void *ctx;
	int  (*send)(void *ctx, uint64_t seq);
	void (*report)(void *ctx, const struct efgen_interval *iv);
};

struct efgen_run {
	const struct efgen_profile *prof;
	uint32_t  size_bytes;
	tstamp_ns end_ns;               /* --duration, or the stop time */
	tstamp_ns interval_ns;
	uint64_t  next_seq;
	tstamp_ns next_due_ns;          /* of next_seq, TS_NEVER: none */
	tstamp_ns ival_start_ns;        /* the open interval */
	uint64_t  ival_pkts, ival_errors;
	uint64_t  sent_pkts, send_errors;
	int       done;
};

/* Starts a run of profile p (which must outlive it): packets of
 * size_bytes, for duration_ns (> 0), reports every interval_ns (> 0). */
void efgen_run_init(struct efgen_run *r, const struct efgen_profile *p,
		    uint32_t size_bytes, tstamp_ns duration_ns,
		    tstamp_ns interval_ns);

/* One wake-up at now_ns (ns since the start, non-decreasing across
 * calls).  Reports every interval that ended at or before now, then sends
 * every packet due at or before now and before the end, counted in the
 * interval that holds now (a late wake-up counts its catch-up burst where
 * it really happened).  Once now reaches the end, the packets still due
 * before the end are sent, counted in the last interval, and the last
 * (possibly shorter) interval is reported.  Returns when to call again:
 * the earliest of the next due time, the interval's end and the run's
 * end; TS_NEVER once the run is over. */
tstamp_ns efgen_run_step(struct efgen_run *r, tstamp_ns now_ns,
			 const struct efgen_io *io);

/* Ends the run early at now_ns (SIGINT/SIGTERM): the end becomes now,
 * then efgen_run_step() finishes it.  No-op after the end. */
void efgen_run_stop(struct efgen_run *r, tstamp_ns now_ns,
		    const struct efgen_io *io);

/* The totals of a run (meaningful once efgen_run_step returned
 * TS_NEVER). */
void efgen_run_summary(const struct efgen_run *r, struct efgen_summary *s);

/* ---- payload ---------------------------------------------------------- */

/* Writes the payload: 8-byte sequence number and 8-byte CLOCK_REALTIME
 * send time in ns, network byte order, the rest (len - 16) zero.  len
 * must be >= EFGEN_PAYLOAD_MIN_BYTES. */
void efgen_payload_write(uint8_t *buf, size_t len, uint64_t seq,
			 uint64_t real_ns);

/* Reads them back.  0, or -1 when len < EFGEN_PAYLOAD_MIN_BYTES. */
int efgen_payload_read(const uint8_t *buf, size_t len, uint64_t *seq,
		       uint64_t *real_ns);

#endif
