/* tunwrite.c - the tun's write side (see tunwrite.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "daemon/tunwrite.h"
#include "util/log.h"

int tunw_init(struct tun_writer *w, int fd, unsigned offload, int gro,
	      struct core *c)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->offload = offload;
	w->core = c;
	if (!offload || !gro)
		return 0;
	if (tungro_init(&w->gro))
		return -1;
	w->seg = malloc(pkt_pool_cap_bytes());
	if (!w->seg) {
		tungro_free(&w->gro);
		return -1;
	}
	w->gro_on = 1;
	return 0;
}

void tunw_free(struct tun_writer *w)
{
	tungro_free(&w->gro);
	free(w->seg);
	w->seg = NULL;
}

/* One packet as the daemon always wrote it: with offload behind an
 * all-zero virtio_net_hdr (no GSO, no checksum to complete: its checksums
 * are complete) sent from static memory by writev, so it is not copied. */
static int write_one(const struct tun_writer *w, const uint8_t *buf, size_t len)
{
	static const uint8_t vnet_none[TSO_VNET_HDR_BYTES];
	struct iovec iov[2] = {
		{ .iov_base = (void *)vnet_none, .iov_len = sizeof(vnet_none) },
		{ .iov_base = (void *)buf, .iov_len = len },
	};

	if (w->offload ? writev(w->fd, iov, 2) < 0 : write(w->fd, buf, len) < 0)
		return -errno;
	return 0;
}

/* The kernel refused the first GSO write (buf, len bytes: a super-packet
 * of pkts packets) with EINVAL: coalescing off for the run, said once,
 * counted in io.tun_gro_fallback, and the packets it held are written one
 * by one, cut again by tso.c exactly as they arrived (tungro.h). */
static void gro_fallback(struct tun_writer *w, const uint8_t *buf, size_t len,
			 uint32_t pkts)
{
	struct tso_split s;
	int err;

	w->gro_on = 0;
	w->core->st.tun_gro_fallback++;
	log_warn("tun refused a GSO write (%s): writing one packet per write "
		 "from now on, counted in io.tun_gro_fallback", strerror(EINVAL));
	if (tso_begin(&s, buf, len, pkt_pool_cap_bytes()) != TSO_OK ||
	    tso_left(&s) != pkts) {
		core_tun_write_failed(w->core, pkts, -EINVAL, w->now_ns);
		return;
	}
	while (tso_left(&s)) {
		uint32_t n = tso_next(&s, w->seg);

		err = write_one(w, w->seg, n);
		if (err)
			core_tun_write_failed(w->core, 1, err, w->now_ns);
	}
}

void tunw_flush(struct tun_writer *w)
{
	const uint8_t *buf;
	size_t len;
	uint32_t pkts = tungro_flush(&w->gro, &buf, &len);
	int err;

	if (!pkts)
		return;
	err = write(w->fd, buf, len) < 0 ? -errno : 0;
	if (!err) {
		if (pkts > 1) {
			w->gro_proven = 1;
			w->core->st.tun_gro_writes++;
			w->core->st.tun_gro_segments += pkts;
		}
		return;
	}
	/* EINVAL on the first GSO write: the kernel does not take GSO from
	 * this tun (virtio_net_hdr_to_skb refused it).  Later, a refusal is
	 * this packet's own, like a plain write's failure. */
	if (pkts > 1 && err == -EINVAL && !w->gro_proven)
		gro_fallback(w, buf, len, pkts);
	else
		core_tun_write_failed(w->core, pkts, err, w->now_ns);
}

/* See tunwrite.h.  Arrival order is kept: what is pending goes before a
 * packet that does not continue it. */
int tunw_write(struct tun_writer *w, const uint8_t *buf, size_t len)
{
	enum tungro_verdict v;

	if (!w->gro_on)
		return write_one(w, buf, len);
	v = tungro_add(&w->gro, buf, len);
	if (v == TUNGRO_FLUSH) {
		tunw_flush(w);
		if (!w->gro_on)         /* that flush was refused: fallback */
			return write_one(w, buf, len);
		v = tungro_add(&w->gro, buf, len);
	}
	if (v == TUNGRO_HELD)
		return 0;
	tunw_flush(w);
	return write_one(w, buf, len);
}
