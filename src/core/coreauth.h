/* coreauth.h - the authenticated tunnel in the core (coreauth.c).
 * Private to src/core. */
#ifndef SCHEDTUN_COREAUTH_H
#define SCHEDTUN_COREAUTH_H

#include "core/core.h"

/* At core_init, after c->conf and c->io are set: the warnings, and with
 * a key the state (c->auth, its session from c->io) and the version 2
 * layout.  0, or -1 logged (nothing to undo). */
int  core_auth_init(struct core *c);
/* Wipes and frees the state. */
void core_auth_destroy(struct core *c);

/* Seals p's datagram, whose version 1 header the caller wrote at
 * p->data - TUN_HDR_V2_BYTES.  0, or -1 when the session's counters are
 * used up: p is then counted (drops.tx_counter_limit) and freed. */
int  core_auth_seal(struct core *c, struct pkt *p, tstamp_ns now);

/* A decoded header of the version this daemon does not speak: counted
 * (drops.rx_unauth or drops.rx_keyed), said once per episode, -1; 0 when
 * the version is this daemon's. */
int  core_auth_version(struct core *c, const struct tun_hdr *h,
		       size_t dgram_len, tstamp_ns now);

/* auth_open() on the version 2 datagram dg of dgram_len bytes (h its
 * decoded header): 0 when authentic (the inner packet, decrypted, is at
 * dg + TUN_HDR_V2_BYTES); else -1, counted by verdict (drops.rx_bad_auth,
 * rx_replay, ...). */
int  core_auth_open(struct core *c, uint8_t *dg, size_t dgram_len,
		    const struct tun_hdr *h, tstamp_ns now);

/* core_reconfigure's part: a changed key re-keys; adding or removing a
 * key or changing tunnel.encrypt is refused (n set back, warned). */
void core_auth_reconfigure(struct core *c, struct conf *n, tstamp_ns now);

/* The stats line's "auth" object (deltas since the last line), and the
 * end of quiet warning episodes. */
void core_auth_gauges(struct core *c, struct stats_gauges *g);
void core_auth_warn_poll(struct core *c, tstamp_ns now);

#endif
