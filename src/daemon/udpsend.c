/* udpsend.c - the daemon's sends on the underlay: one datagram, or a
 * burst in one sendmmsg() with UDP GSO where the kernel takes it (see
 * udpsend.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "core/core.h"
#include "daemon/netdev.h"          /* UDP_SEGMENT where the libc lacks it */
#include "daemon/udpsend.h"
#include "pkt/udpgso.h"
#include "util/log.h"

int udpsend_one(struct udpsend *u, const uint8_t *buf, size_t len,
		const struct conf_addr *to)
{
	if (sendto(u->fd, buf, len, 0, (const struct sockaddr *)&to->ss,
		   to->len) < 0)
		return -errno;
	return 0;
}

/* The UDP_SEGMENT control message of one GSO send. */
union gso_cmsg {
	char           buf[CMSG_SPACE(sizeof(uint16_t))];
	struct cmsghdr align;
};

/* Turns GSO off for the rest of the run after the kernel refused a
 * segmented send with err (-errno): said once, counted in io.gso_fallback. */
static void gso_disable(struct udpsend *u, int err)
{
	u->gso_on = 0;
	u->st->gso_fallback++;
	log_warn("UDP GSO refused by the kernel (%s): sending one datagram per "
		 "message from now on, counted in io.gso_fallback", strerror(-err));
}

/* A refusal of the segmented send itself rather than of its datagrams
 * (which stay within UDPGSO_MAX_PAYLOAD_BYTES): no UDP checksum offload
 * on the route (EIO); a segment larger than the path MTU (EMSGSIZE on
 * Linux 6.18, EINVAL on older kernels), which a plain datagram passes by
 * being fragmented; a kernel without UDP_SEGMENT (EOPNOTSUPP). */
static int gso_refused(int err)
{
	return err == -EIO || err == -EINVAL || err == -EMSGSIZE ||
	       err == -EOPNOTSUPP;
}

/* Fills msg[0..nrun) for sendmmsg(): message r carries datagrams
 * run[r].first .. + count - 1 of iov[] (no copy), with a UDP_SEGMENT
 * cmsg in ctl[r] when it holds more than one. */
static void gso_msgs(const struct udpgso_run *run, int nrun, struct iovec *iov,
		     union gso_cmsg *ctl, struct mmsghdr *msg,
		     const struct conf_addr *to)
{
	int r;

	for (r = 0; r < nrun; r++) {
		struct msghdr *h = &msg[r].msg_hdr;
		struct cmsghdr *cm;

		memset(&msg[r], 0, sizeof(msg[r]));
		h->msg_name = (void *)&to->ss;
		h->msg_namelen = to->len;
		h->msg_iov = &iov[run[r].first];
		h->msg_iovlen = (size_t)run[r].count;
		if (run[r].count < 2)
			continue;
		h->msg_control = ctl[r].buf;
		h->msg_controllen = sizeof(ctl[r].buf);
		cm = CMSG_FIRSTHDR(h);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		memcpy(CMSG_DATA(cm), &run[r].seg_bytes, sizeof(uint16_t));
	}
}

/* udpsend.h.  sendmmsg() stops at the first message it cannot send
 * without saying why; that message is sent again alone to learn the
 * error.  A refusal of GSO as such turns GSO off and the rest goes again
 * one datagram per message (recursion depth 1: GSO is off then). */
int udpsend_many(struct udpsend *u, const uint8_t *const *buf,
		 const size_t *len, int n, const struct conf_addr *to, int *err)
{
	struct mmsghdr msg[CORE_TX_BATCH];
	struct iovec iov[CORE_TX_BATCH];
	struct udpgso_run run[CORE_TX_BATCH];
	union gso_cmsg ctl[CORE_TX_BATCH];
	int i, r, nrun = 0, sent, done, e;

	if (n > CORE_TX_BATCH)
		n = CORE_TX_BATCH;
	if (u->gso_on)
		nrun = udpgso_group(len, n, run);
	for (i = 0; i < n; i++) {
		iov[i].iov_base = (void *)buf[i];
		iov[i].iov_len = len[i];
		if (!u->gso_on)
			run[nrun++] = (struct udpgso_run){ .first = i, .count = 1 };
	}
	gso_msgs(run, nrun, iov, ctl, msg, to);
	sent = sendmmsg(u->fd, msg, (unsigned)nrun, 0);
	e = sent < 0 ? -errno : 0;
	if (sent < 0)
		sent = 0;
	else if (sent < nrun)
		/* sendmmsg stops at the first error without reporting it:
		 * ask for it by sending that message alone. */
		e = sendmsg(u->fd, &msg[sent].msg_hdr, 0) < 0 ? -errno : 0;
	if (sent < nrun && !e)
		sent++;         /* the message went on its own */
	for (r = 0, done = 0; r < sent; r++) {
		done += run[r].count;
		if (run[r].count > 1) {
			u->st->gso_sends++;
			u->st->gso_segments += (uint64_t)run[r].count;
		}
	}
	*err = 0;
	if (sent == nrun)
		return done;
	if (e && run[sent].count > 1 && gso_refused(e))
		gso_disable(u, e);
	else if (e) {
		*err = e;
		return done;
	}
	return done + udpsend_many(u, buf + done, len + done, n - done, to, err);
}
