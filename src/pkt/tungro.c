/* tungro.c - coalescing adjacent TCP segments into tun GSO super-packets
 * (see tungro.h for the rules and whose they are). */
#include <stdlib.h>
#include <string.h>
#include "pkt/tungro.h"
#include "util/csum.h"

#define TCP_CSUM_OFF    16u
#define TCP_FLAG_PSH    0x08u
#define TCP_FLAG_ACK    0x10u
#define IP4_HDR_BYTES   20u
#define IP6_HDR_BYTES   40u
#define IP_LEN_MAX      65535u  /* IPv4 total length, IPv6 payload length */

/* What tungro_add() needs of a packet that may be merged. */
struct cand {
	uint32_t l4_off, hdr_bytes, payload_bytes, seq;
	uint8_t  v6, flags;
};

int tungro_init(struct tungro *g)
{
	memset(g, 0, sizeof(*g));
	g->buf = malloc(TSO_READ_BYTES);
	return g->buf ? 0 : -1;
}

void tungro_free(struct tungro *g)
{
	free(g->buf);
	g->buf = NULL;
}

/* The IP part of a candidate: IPv4 of IHL 5, not a fragment (MF, offset,
 * and the reserved bit 0: inet_gro_receive flushes on any of them), a
 * header checksum that verifies (0xffff excluded: tso.c would recompute
 * it as 0x0000, so the round trip would not be exact), TCP; or IPv6 whose
 * next header is TCP (ipv6_gro_receive would walk extension headers; a
 * super-packet with them is not what tso.c splits).  Lengths equal to
 * len.  Sets l4_off and v6; 0, or -1. */
static int cand_ip(const uint8_t *p, size_t len, struct cand *c)
{
	if (len < IP4_HDR_BYTES)
		return -1;
	if (p[0] == 0x45) {
		if (be16_get(p + 2) != len || be16_get(p + 6) & 0xbfff ||
		    p[9] != CSUM_PROTO_TCP || be16_get(p + 10) == 0xffff ||
		    csum_fold(csum_add(0, p, IP4_HDR_BYTES)) != 0xffff)
			return -1;
		c->l4_off = IP4_HDR_BYTES;
		c->v6 = 0;
		return 0;
	}
	if (p[0] >> 4 != 6 || len < IP6_HDR_BYTES ||
	    IP6_HDR_BYTES + be16_get(p + 4) != len || p[6] != CSUM_PROTO_TCP)
		return -1;
	c->l4_off = IP6_HDR_BYTES;
	c->v6 = 1;
	return 0;
}

/* Whether pkt (len bytes) may ever be merged, and its fields: the IP part
 * (cand_ip), a whole TCP header, a payload, flags exactly ACK or ACK|PSH
 * (tcp_gro_receive flushes on SYN/FIN/RST/URG/ECE/CWR; only ACK|PSH is
 * taken as the end of a run), and a TCP checksum that verifies (0xffff
 * excluded, as for the IPv4 header).  0, or -1: written alone. */
static int candidate(const uint8_t *p, size_t len, struct cand *c)
{
	uint32_t l4_bytes, doff;
	const uint8_t *th;

	if (cand_ip(p, len, c))
		return -1;
	l4_bytes = (uint32_t)len - c->l4_off;
	th = p + c->l4_off;
	if (l4_bytes < 20)
		return -1;
	doff = (uint32_t)(th[12] >> 4) * 4u;
	if (doff < 20 || doff >= l4_bytes)      /* >=: no payload */
		return -1;
	c->flags = th[13];
	if (c->flags != TCP_FLAG_ACK && c->flags != (TCP_FLAG_ACK | TCP_FLAG_PSH))
		return -1;
	if (be16_get(th + TCP_CSUM_OFF) == 0xffff ||
	    csum_fold(csum_add(csum_pseudo(p, c->v6, CSUM_PROTO_TCP, l4_bytes),
			       th, l4_bytes)) != 0xffff)
		return -1;
	c->hdr_bytes = c->l4_off + doff;
	c->payload_bytes = l4_bytes - doff;
	c->seq = be32_get(th + 4);
	return 0;
}

/* Whether candidate p continues the pending super-packet (tungro.h's
 * rules; tcp_gro_receive's flush conditions made exact).  The IPv4 bytes
 * compared: version/IHL, TOS, flags/fragment (DF), TTL, protocol,
 * addresses; the IPv6 ones: version, traffic class, flow label, next
 * header, hop limit, addresses.  TCP: ports, ack, data offset (and the
 * reserved bits beside it), window, urgent pointer, options. */
static int continues(const struct tungro *g, const uint8_t *p,
		     const struct cand *c)
{
	const uint8_t *h = g->buf + TSO_VNET_HDR_BYTES;
	const uint8_t *ht = h + c->l4_off, *pt = p + c->l4_off;
	uint32_t max_bytes = c->v6 ? IP6_HDR_BYTES + IP_LEN_MAX : IP_LEN_MAX;

	if (g->closed || c->v6 != g->v6 || c->hdr_bytes != g->hdr_bytes ||
	    g->pkts >= TUNGRO_PKTS_MAX || c->seq != g->next_seq ||
	    c->payload_bytes > g->gso_bytes ||
	    g->ip_bytes + c->payload_bytes > max_bytes)
		return 0;
	if (c->v6) {
		if (memcmp(h, p, 4) || memcmp(h + 6, p + 6, 34))
			return 0;
	} else {
		if (memcmp(h, p, 2) || memcmp(h + 6, p + 6, 4) ||
		    memcmp(h + 12, p + 12, 8) ||
		    be16_get(p + 4) != (uint16_t)(be16_get(h + 4) + g->pkts))
			return 0;
	}
	return !memcmp(ht, pt, 4) && !memcmp(ht + 8, pt + 8, 5) &&
	       !memcmp(ht + 14, pt + 14, 2) &&
	       !memcmp(ht + 18, pt + 18, c->hdr_bytes - c->l4_off - 18);
}

/* See tungro.h. */
enum tungro_verdict tungro_add(struct tungro *g, const uint8_t *pkt, size_t len)
{
	struct cand c;

	if (candidate(pkt, len, &c))
		return TUNGRO_ALONE;
	if (g->pkts) {
		if (!continues(g, pkt, &c))
			return TUNGRO_FLUSH;
		memcpy(g->buf + TSO_VNET_HDR_BYTES + g->ip_bytes,
		       pkt + c.hdr_bytes, c.payload_bytes);
		g->ip_bytes += c.payload_bytes;
		g->next_seq += c.payload_bytes;
		g->pkts++;
		/* A shorter payload or PSH ends the run (tcp_gro_receive:
		 * flush after a packet below mss or with PSH). */
		if (c.payload_bytes < g->gso_bytes || c.flags & TCP_FLAG_PSH)
			g->closed = 1;
		if (c.flags & TCP_FLAG_PSH)     /* the head had ACK only */
			g->buf[TSO_VNET_HDR_BYTES + c.l4_off + 13] |= TCP_FLAG_PSH;
		return TUNGRO_HELD;
	}
	if (c.flags & TCP_FLAG_PSH)     /* would end a run of one */
		return TUNGRO_ALONE;
	memcpy(g->buf + TSO_VNET_HDR_BYTES, pkt, len);
	g->ip_bytes = (uint32_t)len;
	g->pkts = 1;
	g->hdr_bytes = c.hdr_bytes;
	g->gso_bytes = c.payload_bytes;
	g->next_seq = c.seq + c.payload_bytes;  /* mod 2^32 */
	g->v6 = c.v6;
	g->closed = 0;
	return TUNGRO_HELD;
}

/* See tungro.h.  The header fields as virtio_net_hdr_from_skb() would
 * write them for this skb (little-endian: the tun is TUNSETVNETLE), with
 * hdr_len the true header length. */
uint32_t tungro_flush(struct tungro *g, const uint8_t **out, size_t *out_bytes)
{
	uint8_t *vh = g->buf, *ip = g->buf + TSO_VNET_HDR_BYTES;
	uint32_t n = g->pkts, l4_off = g->v6 ? IP6_HDR_BYTES : IP4_HDR_BYTES;

	if (!n)
		return 0;
	memset(vh, 0, TSO_VNET_HDR_BYTES);
	if (n > 1) {
		if (g->v6) {
			be16_put(ip + 4, (uint16_t)(g->ip_bytes - IP6_HDR_BYTES));
		} else {
			be16_put(ip + 2, (uint16_t)g->ip_bytes);
			be16_put(ip + 10, 0);
			be16_put(ip + 10, (uint16_t)~csum_fold(csum_add(0, ip,
								IP4_HDR_BYTES)));
		}
		/* CHECKSUM_PARTIAL: the pseudo-header sum, not complemented
		 * (tcp_v4_send_check/tcp_v6_send_check); the kernel adds the
		 * TCP bytes from csum_start when it completes it. */
		be16_put(ip + l4_off + TCP_CSUM_OFF,
			 csum_fold(csum_pseudo(ip, g->v6, CSUM_PROTO_TCP,
					       g->ip_bytes - l4_off)));
		vh[0] = TSO_F_NEEDS_CSUM;
		vh[1] = (uint8_t)(g->v6 ? TSO_GSO_TCPV6 : TSO_GSO_TCPV4);
		put_le16(vh + 2, (uint16_t)g->hdr_bytes);
		put_le16(vh + 4, (uint16_t)g->gso_bytes);
		put_le16(vh + 6, (uint16_t)l4_off);
		put_le16(vh + 8, TCP_CSUM_OFF);
	}
	*out = g->buf;
	*out_bytes = TSO_VNET_HDR_BYTES + g->ip_bytes;
	g->pkts = 0;
	g->ip_bytes = 0;
	g->closed = 0;
	return n;
}
