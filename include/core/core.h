/* core.h - the daemon's packet path, free of libevent and of system clocks.
 *
 * The event loop (loop.c) reads packets and the clock and hands both to the
 * core; the core classifies, schedules, paces, delays and counts, and calls
 * back into the loop only to put bytes on the wire or into the tun.  That
 * keeps the whole path testable on a virtual clock with fake I/O.
 */
#ifndef SCHEDTUN_CORE_H
#define SCHEDTUN_CORE_H

#include "conf/conf.h"
#include "core/stats.h"
#include "link/delayline.h"
#include "link/pacer.h"
#include "mark/marker.h"
#include "plog/plog.h"
#include "sched/sched.h"
#include "sec/auth.h"
#include "util/warnonce.h"

struct core_io {
	/* Sends one datagram to `to`.  0 when sent; -EAGAIN/-EWOULDBLOCK when
	 * the socket is full (the core keeps the packet and waits for
	 * core_writable()); any other -errno loses the packet (counted). */
	int  (*send)(void *ctx, const uint8_t *buf, size_t len,
		     const struct conf_addr *to);
	/* Optional (NULL: one send() per packet): sends up to n datagrams in
	 * order, in one system call where possible.  Returns how many were
	 * sent; when that is less than n, *err is the -errno of the first
	 * unsent one (same meaning as for send()). */
	int  (*send_many)(void *ctx, const uint8_t *const *buf,
			  const size_t *len, int n, const struct conf_addr *to,
			  int *err);
	/* Writes one inner packet to the tun.  0 or -errno (counted). */
	int  (*tun_write)(void *ctx, const uint8_t *buf, size_t len);
	void *ctx;
	/* With tunnel.key_file: this process's session, never reused with
	 * one key (sec/auth.h): the loop gives CLOCK_REALTIME at start-up
	 * and a random salt; a test, fixed values.  Unused without a key. */
	uint64_t session_epoch_ns;
	uint64_t session_salt;
};

#define CORE_BURST_MAX 256      /* packets per core_run() before yielding */
#define CORE_TX_BATCH  32       /* datagrams per send_many() */

struct core {
	struct conf      conf;          /* the running configuration */
	struct sched     sched;
	struct sched_env env;
	struct pacer     pacer;
	struct delayline dl;
	struct stats     st;
	struct core_io   io;
	uint32_t   qlen_pkts[NCLASS];   /* held by the scheduler */
	uint64_t   qlen_bytes[NCLASS];
	uint32_t   tx_seq[NCLASS];      /* next sequence number to send */
	struct conf_addr peer;          /* configured or pinned */
	int        peer_known;
	tstamp_ns  backlog_since_ns;    /* scheduler non-empty since */
	int        blocked;             /* last send hit EAGAIN */
	int64_t    real_minus_mono_ns;  /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	tstamp_ns  start_ns;
	tstamp_ns  now_ns;              /* of the call being handled (log times) */
	/* The per-packet log, or NULL (off).  The owner (the daemon) creates
	 * and flushes it; the core only adds records.  log_lost counts what
	 * the owner reports lost after the buffer (core_log_lost()). */
	struct plog *plog;
	uint64_t   log_lost;            /* lost downstream of the buffer */
	uint64_t   log_prev[2];         /* records, lost: at the last line */
	/* The edge marker (conf.marker), when some class is marked: each
	 * packet read from the tun is metered and maybe re-marked after
	 * classification, before the class limit. */
	struct marker mark;
	int        mark_on;
	uint64_t   mark_prev[NCLASS][TSW_NCOLOUR + 1];  /* at the last line */
	/* Failures that can repeat per packet: counted in st, logged once
	 * per episode (warnonce.h); episodes end in core_stats_line(). */
	struct warn_once warn_send, warn_tun_write, warn_pool;
	/* tunnel.key_file: the authenticated tunnel (version 2), or NULL.
	 * lay is where datagrams sit around p->data (pkt/tunnel.h), the
	 * loop receives into it.  The peer speaking the other version, a
	 * wrong key and a peer whose new session is older than the one
	 * followed are each said once per episode. */
	struct auth *auth;
	struct tun_layout lay;
	struct warn_once warn_unauth, warn_keyed, warn_bad_auth, warn_stale;
	struct warn_once warn_tx_limit;
	uint64_t   auth_prev[3];        /* sessions, prev_key, switches: last line */
};

/* Takes ownership of *conf's resources (the caller's copy must not be
 * freed).  Creates the scheduler.  The packet pool must exist.  0 or -1. */
int  core_init(struct core *c, struct conf *conf, const struct core_io *io,
	       tstamp_ns now);
/* Frees every packet held (scheduler, delay line) and the configuration. */
void core_destroy(struct core *c);

/* A packet read from the tun: p->data/p->len_bytes are set.  Consumes p. */
void core_tun_input(struct core *c, struct pkt *p, tstamp_ns now);

/* A datagram of dgram_len bytes (its true length, even if it was longer
 * than the buffer) received at p->data - c->lay.hdr_bytes from src.
 * Validates it (and with a key, authenticates and decrypts it in place),
 * writes the inner packet to the tun, consumes p. */
void core_udp_input(struct core *c, struct pkt *p, size_t dgram_len,
		    const struct sockaddr *src, socklen_t srclen, tstamp_ns now);

/* Releases what the delay line has due, feeds the link from the scheduler
 * while the pacer allows, and returns when the core next needs to run
 * (TS_NEVER: only an arrival or writability can change anything). */
tstamp_ns core_run(struct core *c, tstamp_ns now);

/* The loop refused a tun read before splitting it (tso_begin): counted in
 * drops.tso_<verdict>, logged. */
void core_tso_refused(struct core *c, enum tso_verdict v, tstamp_ns now);

/* The log's owner lost `records` after they left the buffer (the writer
 * could not write them): counted on the stats line's log.lost. */
static inline void core_log_lost(struct core *c, uint64_t records)
{
	c->log_lost += records;
}

/* The loop had no pool buffer for a tun packet or a datagram and
 * discarded it: counted in drops.pool_empty, said once per episode. */
void core_pool_empty(struct core *c, tstamp_ns now);

/* Writing `pkts` inner packets to the tun failed with err (-errno): one
 * super-packet of tunwrite.c that held them, or one packet.  Counted per
 * packet in drops.tun_write_error, said once per episode. */
void core_tun_write_failed(struct core *c, uint32_t pkts, int err, tstamp_ns now);

/* corewarn.c: names the core's failure reports (core_init calls it), and
 * ends the episodes quiet for WARN_QUIET_NS (core_stats_line calls it). */
void core_warn_init(struct core *c);
void core_warn_poll(struct core *c, tstamp_ns now);

/* The socket is writable again after -EAGAIN. */
static inline void core_writable(struct core *c)
{
	c->blocked = 0;
}

/* Applies a validated configuration (SIGHUP): swaps the scheduler moving
 * every queued packet, the link profile, delay, classes; a new key in the
 * same tunnel.key_file's place re-keys (auth_rekey, tunnel.key_grace).
 * Tunnel keys that need a restart (adding or removing a key, changing
 * tunnel.encrypt, the other tunnel.* keys) are kept as they are, with a
 * warning.  Takes ownership of
 * *n's resources.  0, or -1 when the new scheduler cannot be created (the
 * old configuration keeps running and *n is freed). */
int  core_reconfigure(struct core *c, struct conf *n, tstamp_ns now);

/* coremark.c: a reload's marker section, when it changed, replaces the
 * running marker (fresh meters from now; out of memory: the running one
 * is kept and n->marker set back to it); and the marker's counters over
 * the interval for the stats line. */
void core_marker_reconfigure(struct core *c, struct conf *n, tstamp_ns now);
void core_marker_gauges(struct core *c, struct stats_gauges *g);

/* Formats the stats line for the interval ending now (resets deltas), and
 * ends the failure episodes that have been quiet long enough. */
int  core_stats_line(struct core *c, tstamp_ns now, char *buf, size_t len);

#endif
