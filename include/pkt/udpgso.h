/* udpgso.h - the pure part of UDP segmentation offload: which datagrams of
 * a send burst go out as one UDP_SEGMENT message, and how a UDP_GRO
 * buffer splits back into datagrams.  No system call, no libevent: the
 * loop (loop.c) does the I/O, this module the arithmetic and the copies,
 * so that both are unit-tested.
 *
 * Kernel rules (net/ipv4/udp.c, udp_send_skb / udp_gro_receive_segment):
 * a GSO message is cut into segments of gso_size bytes, every segment but
 * the last exactly gso_size, the last 1..gso_size; at most
 * UDP_MAX_SEGMENTS segments (64 before Linux 6.10, 128 since: we keep to
 * 64 so that older kernels accept every message); the whole payload is one
 * UDP datagram's worth, at most 65507 bytes over IPv4 (65535 - IP - UDP
 * header; IPv6 allows 65527, the IPv4 bound serves both).  A GRO buffer
 * follows the same shape: equal segments, a last one possibly shorter.
 */
#ifndef SCHEDTUN_UDPGSO_H
#define SCHEDTUN_UDPGSO_H

#include <stddef.h>
#include <stdint.h>
#include "pkt/pkt.h"
#include "pkt/tunnel.h"

#define UDPGSO_MAX_SEGS          64
#define UDPGSO_MAX_PAYLOAD_BYTES 65507u

/* Datagrams first .. first + count - 1 of a burst: one message.  count 1:
 * a plain datagram (no UDP_SEGMENT); count >= 2: seg_bytes is the
 * UDP_SEGMENT size (the first datagram's length). */
struct udpgso_run {
	int      first, count;
	uint16_t seg_bytes;
};

/* Groups len[0..n) (datagram lengths, in order) into runs the kernel
 * accepts as GSO messages, greedily from the front: a run is datagrams of
 * the first one's length, closed by at most one shorter datagram, within
 * UDPGSO_MAX_SEGS and UDPGSO_MAX_PAYLOAD_BYTES.  A datagram of 0 bytes or
 * longer than the payload limit is a run of its own.  run[] has room for
 * n entries (never more are needed).  Returns the number of runs; their
 * counts add up to n, and order is kept. */
int udpgso_group(const size_t *len, int n, struct udpgso_run *run);

/* What the receive side does with each datagram split off a GRO buffer:
 * p holds it at p->data - lay->hdr_bytes (core_udp_input's layout) and
 * dgram_bytes is its length for the decoder; p is NULL when the pool was
 * empty (the datagram is lost: the callee counts it).  The callee owns p. */
typedef void (*udpgro_deliver_fn)(void *ctx, struct pkt *p, size_t dgram_bytes);

/* Splits buf[0..buf_bytes), one receive's data, into datagrams of
 * gso_size bytes (the UDP_GRO control message; the last may be shorter)
 * and hands each, copied into a pool packet at p->data - lay->hdr_bytes,
 * to deliver in order.  A gso_size <= 0 (no control message) or >=
 * buf_bytes makes the buffer one datagram, also when it is empty.  A
 * datagram longer than a pool packet holds (lay->hdr_bytes +
 * pkt_pool_cap_bytes() + lay->tag_bytes), and the last one when
 * `truncated` (MSG_TRUNC: the kernel cut the buffer), is reported as one
 * byte longer than that room, a length the decoder refuses as oversize
 * without reading past what was copied.  Returns the number of datagrams
 * delivered (pool-empty ones included). */
size_t udpgro_split(const uint8_t *buf, size_t buf_bytes, int gso_size,
		    int truncated, const struct tun_layout *lay,
		    udpgro_deliver_fn deliver, void *ctx);

#endif
