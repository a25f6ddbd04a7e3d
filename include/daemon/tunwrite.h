/* tunwrite.h - writing the inner packets the peer sent to the tun: plain
 * writes, or with tunnel.offload a virtio_net_hdr in front of each, and
 * with tunnel.tun_gro consecutive TCP segments of one flow coalesced into
 * one GSO super-packet per write (tungro.h; issue 10's receive side).
 *
 * The core still sees one tun_write() per inner packet and counts it as
 * before; a packet held for coalescing counts as written, and when the
 * super-packet holding it fails, core_tun_write_failed() counts
 * tun_write_error once per packet it held.  Nothing is held across
 * wake-ups: the loop calls tunw_flush() before it runs the core.
 */
#ifndef SCHEDTUN_TUNWRITE_H
#define SCHEDTUN_TUNWRITE_H

#include "core/core.h"
#include "pkt/tungro.h"

struct tun_writer {
	int          fd;
	unsigned     offload;           /* TUN_F_* set, 0: plain tun */
	int          gro_on;            /* coalescing, until the kernel refuses */
	int          gro_proven;        /* a GSO write has been taken */
	tstamp_ns    now_ns;            /* for failure reports: the loop sets it */
	struct core *core;              /* counters, failure reports */
	struct tungro gro;
	uint8_t     *seg;               /* the fallback's re-split, pool cap bytes */
};

/* Sets w up for fd; gro: tunnel.tun_gro (used only with offload).  The
 * buffers are allocated here, once.  0, or -1 when out of memory. */
int  tunw_init(struct tun_writer *w, int fd, unsigned offload, int gro,
	       struct core *c);
void tunw_free(struct tun_writer *w);

/* core_io.tun_write: writes the inner packet buf (len bytes), or holds it
 * in the pending super-packet.  0 (written or held) or -errno. */
int  tunw_write(struct tun_writer *w, const uint8_t *buf, size_t len);

/* Writes the pending super-packet, if any (see the top of this file). */
void tunw_flush(struct tun_writer *w);

#endif
