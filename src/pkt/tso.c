/* tso.c - splitting tun super-packets into MTU-sized packets (see tso.h
 * for what it follows and the traps it avoids). */
#include <string.h>
#include "pkt/tso.h"
#include "util/csum.h"

#define VNET_F_NEEDS_CSUM  TSO_F_NEEDS_CSUM
#define VNET_F_DATA_VALID  0x02u
#define VNET_GSO_NONE      0u
#define VNET_GSO_TCPV4     TSO_GSO_TCPV4
#define VNET_GSO_TCPV6     TSO_GSO_TCPV6
#define VNET_GSO_ECN       0x80u

#define IPPROTO_TCP_NUM    CSUM_PROTO_TCP
#define IPPROTO_UDP_NUM    CSUM_PROTO_UDP
#define TCP_CSUM_OFF       16u
#define UDP_CSUM_OFF       6u
#define TCP_FLAG_FIN       0x01u
#define TCP_FLAG_PSH       0x08u
#define TCP_FLAG_CWR       0x80u

enum { KIND_PLAIN, KIND_CSUM, KIND_TCP, KIND_UDP };

const char *const tso_verdict_name[TSO_VERDICT_MAX] = {
	[TSO_OK]            = "ok",
	[TSO_SHORT]         = "short",
	[TSO_BAD_FLAGS]     = "bad_flags",
	[TSO_BAD_GSO_TYPE]  = "bad_gso_type",
	[TSO_BAD_IP]        = "bad_ip",
	[TSO_BAD_LENGTH]    = "bad_length",
	[TSO_BAD_PROTO]     = "bad_proto",
	[TSO_BAD_L4_HDR]    = "bad_l4_hdr",
	[TSO_BAD_HDR_LEN]   = "bad_hdr_len",
	[TSO_BAD_CSUM]      = "bad_csum",
	[TSO_BAD_GSO_SIZE]  = "bad_gso_size",
	[TSO_TOO_MANY_SEGS] = "too_many_segs",
	[TSO_SEG_TOO_BIG]   = "seg_too_big",
};

/* Validates the IP header of a GSO packet: version as the gso_type says,
 * lengths equal to the read, no fragment, protocol proto (IPv6: directly
 * after the fixed header), IPv4 header checksum.  Sets l4_off. */
static enum tso_verdict check_ip(struct tso_split *s, int v6, uint8_t proto)
{
	const uint8_t *ip = s->ip;

	if (ip[0] >> 4 != (v6 ? 6 : 4))
		return TSO_BAD_IP;
	if (v6) {
		if (s->ip_bytes < 40)
			return TSO_SHORT;
		if (40u + be16_get(ip + 4) != s->ip_bytes)
			return TSO_BAD_LENGTH;
		if (ip[6] != proto)
			return TSO_BAD_PROTO;
		s->l4_off = 40;
		return TSO_OK;
	}
	s->l4_off = (ip[0] & 0x0fu) * 4u;
	if (s->l4_off < 20 || s->l4_off > s->ip_bytes)
		return TSO_BAD_IP;
	if (be16_get(ip + 2) != s->ip_bytes)
		return TSO_BAD_LENGTH;
	if (be16_get(ip + 6) & 0x3fff)          /* MF or a fragment offset */
		return TSO_BAD_IP;
	if (csum_fold(csum_add(0, ip, s->l4_off)) != 0xffff)
		return TSO_BAD_IP;
	if (ip[9] != proto)
		return TSO_BAD_PROTO;
	return TSO_OK;
}

/* A GSO packet: IP and L4 headers, the checksum fields if given, the
 * segment size and count against the caller's buffers. */
static enum tso_verdict begin_gso(struct tso_split *s, uint8_t flags,
				  uint8_t gso, uint16_t gso_size,
				  uint16_t csum_start, uint16_t csum_offset,
				  uint32_t seg_cap_bytes)
{
	int v6, tcp = gso != TSO_GSO_UDP_L4;
	uint32_t l4_hdr, csum_want = tcp ? TCP_CSUM_OFF : UDP_CSUM_OFF;
	enum tso_verdict v;

	if (tcp)
		v6 = gso == VNET_GSO_TCPV6;
	else
		v6 = s->ip[0] >> 4 == 6;
	v = check_ip(s, v6, (uint8_t)(tcp ? IPPROTO_TCP_NUM : IPPROTO_UDP_NUM));
	if (v != TSO_OK)
		return v;
	if (tcp) {
		if (s->ip_bytes - s->l4_off < 20)
			return TSO_BAD_L4_HDR;
		l4_hdr = (uint32_t)(s->ip[s->l4_off + 12] >> 4) * 4u;
		if (l4_hdr < 20 || l4_hdr > s->ip_bytes - s->l4_off)
			return TSO_BAD_L4_HDR;
	} else {
		l4_hdr = 8;
		if (s->ip_bytes - s->l4_off < l4_hdr)
			return TSO_BAD_L4_HDR;
	}
	/* The kernel always sends GSO with NEEDS_CSUM; when it is there it
	 * must point at the L4 checksum, or the buffer is not what it says.
	 * The value itself is recomputed (see tso.h). */
	if ((flags & VNET_F_NEEDS_CSUM) &&
	    (csum_start != s->l4_off || csum_offset != csum_want))
		return TSO_BAD_CSUM;
	if (!gso_size)
		return TSO_BAD_GSO_SIZE;
	s->hdr_bytes = s->l4_off + l4_hdr;
	s->payload_bytes = s->ip_bytes - s->hdr_bytes;
	s->mss_bytes = gso_size;
	s->segs = 1;
	if (s->payload_bytes > gso_size) {
		uint32_t n = (s->payload_bytes + gso_size - 1) / gso_size;

		if (n > TSO_SEGS_MAX)
			return TSO_TOO_MANY_SEGS;
		s->segs = (uint16_t)n;
	}
	if (s->hdr_bytes + (s->payload_bytes < gso_size ? s->payload_bytes
			    : gso_size) > seg_cap_bytes)
		return TSO_SEG_TOO_BIG;
	s->kind = tcp ? KIND_TCP : KIND_UDP;
	s->v6 = (uint8_t)v6;
	return TSO_OK;
}

/* See tso.h.  Field by field from the bytes, never a struct cast (the
 * buffer has no alignment and the header's byte order is fixed). */
enum tso_verdict tso_begin(struct tso_split *s, const uint8_t *buf, size_t len,
			   uint32_t seg_cap_bytes)
{
	uint8_t flags, gso;
	uint16_t hdr_len, gso_size, csum_start, csum_offset;
	enum tso_verdict v;

	memset(s, 0, sizeof(*s));
	if (len < TSO_VNET_HDR_BYTES + 1 || len > TSO_READ_BYTES)
		return len < TSO_VNET_HDR_BYTES + 1 ? TSO_SHORT : TSO_BAD_LENGTH;
	flags = buf[0];
	gso = buf[1];
	hdr_len = get_le16(buf + 2);
	gso_size = get_le16(buf + 4);
	csum_start = get_le16(buf + 6);
	csum_offset = get_le16(buf + 8);
	s->ip = buf + TSO_VNET_HDR_BYTES;
	s->ip_bytes = (uint32_t)(len - TSO_VNET_HDR_BYTES);

	if (flags & ~(VNET_F_NEEDS_CSUM | VNET_F_DATA_VALID))
		return TSO_BAD_FLAGS;
	gso &= (uint8_t)~VNET_GSO_ECN;  /* CWR handling below covers ECN */
	if (gso == VNET_GSO_NONE) {
		if (s->ip_bytes > seg_cap_bytes)
			return TSO_SEG_TOO_BIG;
		s->kind = KIND_PLAIN;
		if (flags & VNET_F_NEEDS_CSUM) {
			/* Room for the 2-byte field, all inside the packet. */
			if ((uint32_t)csum_start + csum_offset + 2u > s->ip_bytes)
				return TSO_BAD_CSUM;
			s->kind = KIND_CSUM;
			s->csum_start = csum_start;
			s->csum_offset = csum_offset;
		}
		if (hdr_len > s->ip_bytes)
			return TSO_BAD_HDR_LEN;
		s->hdr_bytes = s->ip_bytes;
		s->segs = 1;
		return TSO_OK;
	}
	if (gso != VNET_GSO_TCPV4 && gso != VNET_GSO_TCPV6 && gso != TSO_GSO_UDP_L4)
		return TSO_BAD_GSO_TYPE;
	if (s->ip_bytes < 20)
		return TSO_SHORT;
	v = begin_gso(s, flags, gso, gso_size, csum_start, csum_offset,
		      seg_cap_bytes);
	/* Last: a hint only (see tso.h), so any other fault names the cause. */
	if (v == TSO_OK && hdr_len > s->ip_bytes)
		v = TSO_BAD_HDR_LEN;
	if (v != TSO_OK) {
		s->segs = 0;
		return v;
	}
	return TSO_OK;
}

/* Segment i of a TCP/UDP super-packet into out: headers, payload slice,
 * then the per-segment fields and both checksums. */
static uint32_t write_gso(const struct tso_split *s, uint32_t i, uint8_t *out)
{
	uint32_t off = i * s->mss_bytes;
	uint32_t n = s->payload_bytes - off < s->mss_bytes ?
		     s->payload_bytes - off : s->mss_bytes;
	uint32_t len = s->hdr_bytes + n, l4_bytes = len - s->l4_off;
	uint8_t *l4 = out + s->l4_off;
	uint16_t sum;

	memcpy(out, s->ip, s->hdr_bytes);
	memcpy(out + s->hdr_bytes, s->ip + s->hdr_bytes + off, n);
	if (s->v6) {
		be16_put(out + 4, (uint16_t)(len - 40));
	} else {
		be16_put(out + 2, (uint16_t)len);
		be16_put(out + 4, (uint16_t)(be16_get(s->ip + 4) + i));
		be16_put(out + 10, 0);
		be16_put(out + 10, (uint16_t)~csum_fold(csum_add(0, out, s->l4_off)));
	}
	if (s->kind == KIND_TCP) {
		uint32_t seq = (uint32_t)be16_get(l4 + 4) << 16 | be16_get(l4 + 6);

		seq += off;             /* mod 2^32, as TCP sequence numbers are */
		be16_put(l4 + 4, (uint16_t)(seq >> 16));
		be16_put(l4 + 6, (uint16_t)seq);
		if (i + 1 < s->segs)
			l4[13] &= (uint8_t)~(TCP_FLAG_FIN | TCP_FLAG_PSH);
		if (i)
			l4[13] &= (uint8_t)~TCP_FLAG_CWR;
		be16_put(l4 + TCP_CSUM_OFF, 0);
		sum = (uint16_t)~csum_fold(csum_add(
			csum_pseudo(out, s->v6, IPPROTO_TCP_NUM, l4_bytes),
			l4, l4_bytes));
		be16_put(l4 + TCP_CSUM_OFF, sum);
	} else {
		be16_put(l4 + 4, (uint16_t)l4_bytes);
		be16_put(l4 + UDP_CSUM_OFF, 0);
		sum = (uint16_t)~csum_fold(csum_add(
			csum_pseudo(out, s->v6, IPPROTO_UDP_NUM, l4_bytes),
			l4, l4_bytes));
		/* RFC 768: a computed 0 is sent as all ones (0 = none). */
		be16_put(l4 + UDP_CSUM_OFF, sum ? sum : 0xffff);
	}
	return len;
}

/* See tso.h.  A plain packet is copied, its checksum completed when the
 * kernel left it partial. */
uint32_t tso_next(struct tso_split *s, uint8_t *out)
{
	uint32_t i = s->next, len;

	if (i >= s->segs)
		return 0;
	s->next++;
	if (s->kind == KIND_TCP || s->kind == KIND_UDP)
		return write_gso(s, i, out);
	len = s->ip_bytes;
	memcpy(out, s->ip, len);
	if (s->kind == KIND_CSUM) {
		/* skb_checksum_help(): the field holds the pseudo-header sum
		 * and is included in the sum. */
		uint16_t sum = (uint16_t)~csum_fold(csum_add(0, out + s->csum_start,
							     len - s->csum_start));

		be16_put(out + s->csum_start + s->csum_offset, sum ? sum : 0xffff);
	}
	return len;
}
