/* classify.c - IP header validation, DSCP extraction and the flow hash.
 *
 * ip_inspect() is the gate in both directions (tun -> scheduler and
 * peer -> tun), so it must be safe on arbitrary bytes: every read is
 * preceded by a bounds check against `len`, and header fields are assembled
 * byte by byte (no casts onto the buffer, no alignment assumptions).
 *
 * The flow hash feeds the per-flow schedulers (PDRR, DQ).  It covers
 * (src, dst, proto, sport, dport); ports are used only when the L4 header
 * is TCP, UDP, SCTP or UDP-Lite, the packet is not a non-first fragment and
 * the four port bytes are inside the buffer.  It is direction-sensitive:
 * the two directions of a connection are two flows, which is what an
 * egress scheduler sees anyway.
 *
 * A daemon keys it (flow_hash_set_key, a random key per start): then it
 * is SipHash-2-4, and a sender who does not know the key cannot choose
 * flows that share a per-flow state (a PDRR or DQ queue, a TSW meter).
 * Unkeyed (the simulator, the tests) it is FNV-1a with a final mix, so
 * their flows, and the numbers they print, stay the same from run to run.
 */
#include <string.h>
#include "pkt/classify.h"
#include "util/csum.h"
#include "util/siphash.h"

#define IPV4_HDR_MIN_BYTES 20u
#define IPV6_HDR_BYTES     40u

/* Enough for any sane chain (RFC 8200 recommends a single occurrence of
 * each, in order); beyond it we stop looking for ports rather than let a
 * crafted packet cost unbounded work. */
#define IPV6_EXT_MAX 8

enum {
	PROTO_HOPOPTS  = 0,
	PROTO_TCP      = 6,
	PROTO_UDP      = 17,
	PROTO_ROUTING  = 43,
	PROTO_FRAGMENT = 44,
	PROTO_AH       = 51,
	PROTO_DSTOPTS  = 60,
	PROTO_SCTP     = 132,
	PROTO_UDPLITE  = 136,
};

const char *const cls_name[NCLASS] = {
	[CLS_EF]  = "ef",
	[CLS_AF]  = "af",
	[CLS_CS0] = "cs0",
};

const char *const ip_verdict_name[IP_VERDICT_MAX] = {
	[IP_OK]           = "ok",
	[IP_EMPTY]        = "empty",
	[IP_BAD_VERSION]  = "bad_version",
	[IP_SHORT]        = "short",
	[IP_BAD_IHL]      = "bad_ihl",
	[IP_BAD_LENGTH]   = "bad_length",
	[IP_BAD_CHECKSUM] = "bad_checksum",
};

/* EF: Expedited Forwarding (RFC 3246) and VOICE-ADMIT (RFC 5865).
 * AF: AF11..AF43 (RFC 2597). */
static const uint8_t dscp_ef[] = { 46, 44 };
static const uint8_t dscp_af[] = { 10, 12, 14, 18, 20, 22,
				   26, 28, 30, 34, 36, 38 };

void dscp_map_default(struct dscp_map *m)
{
	size_t i;

	for (i = 0; i < 64; i++)
		m->cls_of[i] = CLS_CS0;
	for (i = 0; i < sizeof(dscp_ef); i++)
		m->cls_of[dscp_ef[i]] = CLS_EF;
	for (i = 0; i < sizeof(dscp_af); i++)
		m->cls_of[dscp_af[i]] = CLS_AF;
}

/* FNV-1a over the tuple bytes, then the murmur3 finaliser: FNV alone
 * leaves the low bits poorly mixed, and schedulers index buckets with
 * them. */
#define FNV32_OFFSET 2166136261u
#define FNV32_PRIME  16777619u

static uint32_t fnv1a(uint32_t h, const uint8_t *b, size_t n)
{
	while (n--) {
		h ^= *b++;
		h *= FNV32_PRIME;
	}
	return h;
}

static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static int proto_has_ports(uint8_t proto)
{
	return proto == PROTO_TCP || proto == PROTO_UDP ||
	       proto == PROTO_SCTP || proto == PROTO_UDPLITE;
}

static struct {
	int on;
	uint64_t k0, k1;
} hash_key;

void flow_hash_set_key(uint64_t k0, uint64_t k1)
{
	hash_key.on = 1;
	hash_key.k0 = k0;
	hash_key.k1 = k1;
}

void flow_hash_clear_key(void)
{
	memset(&hash_key, 0, sizeof(hash_key));
}

/* Hash of (src, dst, proto, ports).  ports == NULL hashes zero ports.
 * Never 0, because pkt->flow_hash == 0 means "not computed". */
static uint32_t flow_hash(const uint8_t *src, const uint8_t *dst,
			  size_t addr_bytes, uint8_t proto,
			  const uint8_t *ports)
{
	static const uint8_t no_ports[4];
	uint32_t h = FNV32_OFFSET;

	if (hash_key.on) {
		uint8_t t[2 * 16 + 1 + 4];
		uint64_t x;

		memcpy(t, src, addr_bytes);
		memcpy(t + addr_bytes, dst, addr_bytes);
		t[2 * addr_bytes] = proto;
		memcpy(t + 2 * addr_bytes + 1, ports ? ports : no_ports, 4);
		x = siphash24(hash_key.k0, hash_key.k1, t, 2 * addr_bytes + 5);
		h = (uint32_t)(x ^ (x >> 32));
		return h ? h : 1;
	}

	h = fnv1a(h, src, addr_bytes);
	h = fnv1a(h, dst, addr_bytes);
	h = fnv1a(h, &proto, 1);
	h = fnv1a(h, ports ? ports : no_ports, 4);
	h = fmix32(h);
	return h ? h : 1;
}

void ipv4_set_checksum(uint8_t *hdr)
{
	size_t ihl_bytes = (size_t)(hdr[0] & 0x0f) * 4;
	uint16_t c;

	be16_put(hdr + 10, 0);
	c = (uint16_t)~csum_fold(csum_add(0, hdr, ihl_bytes));
	be16_put(hdr + 10, c);
}

static enum ip_verdict inspect_v4(const uint8_t *pkt, size_t len,
				  struct ip_info *out)
{
	size_t hdr_bytes;
	uint16_t frag_off;
	const uint8_t *ports = NULL;
	uint8_t proto;

	if (len < IPV4_HDR_MIN_BYTES)
		return IP_SHORT;
	hdr_bytes = (size_t)(pkt[0] & 0x0f) * 4;
	if (hdr_bytes < IPV4_HDR_MIN_BYTES || hdr_bytes > len)
		return IP_BAD_IHL;
	/* the tun hands over exactly one packet per read: no padding */
	if (be16_get(pkt + 2) != len)
		return IP_BAD_LENGTH;
	/* a valid header, checksum field included, sums to 0xffff */
	if (csum_fold(csum_add(0, pkt, hdr_bytes)) != 0xffff)
		return IP_BAD_CHECKSUM;

	proto = pkt[9];
	frag_off = be16_get(pkt + 6) & 0x1fff;
	if (frag_off == 0 && proto_has_ports(proto) && hdr_bytes + 4 <= len)
		ports = pkt + hdr_bytes;

	out->version = 4;
	out->dscp = pkt[1] >> 2;
	out->proto = proto;
	out->l4_off = ports ? (uint16_t)hdr_bytes : 0;
	out->flow_hash = flow_hash(pkt + 12, pkt + 16, 4, proto, ports);
	return IP_OK;
}

/* Walks at most IPV6_EXT_MAX extension headers from offset 40.  Returns
 * IP_BAD_LENGTH when a header claims bytes beyond the packet (the payload
 * length matched the buffer, so the chain itself is lying).  On IP_OK,
 * *proto is the first header not walked (normally the L4 protocol) and
 * *l4_off its offset, or 0 when ports must not be read (non-first
 * fragment, chain too long). */
static enum ip_verdict walk_v6_ext(const uint8_t *pkt, size_t len,
				   uint8_t *proto, size_t *l4_off)
{
	uint8_t nh = pkt[6];
	size_t off = IPV6_HDR_BYTES;
	size_t hlen;
	int n;

	for (n = 0; n < IPV6_EXT_MAX; n++) {
		switch (nh) {
		case PROTO_HOPOPTS:
		case PROTO_ROUTING:
		case PROTO_DSTOPTS:
			if (len - off < 2)
				return IP_BAD_LENGTH;
			hlen = ((size_t)pkt[off + 1] + 1) * 8;
			break;
		case PROTO_AH:
			if (len - off < 2)
				return IP_BAD_LENGTH;
			hlen = ((size_t)pkt[off + 1] + 2) * 4;
			break;
		case PROTO_FRAGMENT:
			if (len - off < 8)
				return IP_BAD_LENGTH;
			if (be16_get(pkt + off + 2) >> 3) {
				/* a non-first fragment carries no L4 header */
				*proto = pkt[off];
				*l4_off = 0;
				return IP_OK;
			}
			hlen = 8;
			break;
		default:
			*proto = nh;
			*l4_off = off;
			return IP_OK;
		}
		if (hlen > len - off)
			return IP_BAD_LENGTH;
		nh = pkt[off];
		off += hlen;
	}
	*proto = nh;
	*l4_off = 0;
	return IP_OK;
}

static enum ip_verdict inspect_v6(const uint8_t *pkt, size_t len,
				  struct ip_info *out)
{
	enum ip_verdict v;
	const uint8_t *ports = NULL;
	size_t l4_off;
	uint8_t proto;

	if (len < IPV6_HDR_BYTES)
		return IP_SHORT;
	if ((size_t)be16_get(pkt + 4) + IPV6_HDR_BYTES != len)
		return IP_BAD_LENGTH;
	v = walk_v6_ext(pkt, len, &proto, &l4_off);
	if (v != IP_OK)
		return v;
	if (l4_off && proto_has_ports(proto) && len - l4_off >= 4)
		ports = pkt + l4_off;

	out->version = 6;
	/* l4_off <= 40 + IPV6_EXT_MAX headers of at most 2048 bytes */
	out->l4_off = ports ? (uint16_t)l4_off : 0;
	/* traffic class straddles bytes 0 and 1 */
	out->dscp = (uint8_t)(((pkt[0] & 0x0f) << 2) | (pkt[1] >> 6));
	out->proto = proto;
	out->flow_hash = flow_hash(pkt + 8, pkt + 24, 16, proto, ports);
	return IP_OK;
}

/* See classify.h.  *out is written only on IP_OK.  For IPv6, proto is the
 * protocol found after the extension headers (the L4 protocol unless the
 * chain was too long or the packet is a non-first fragment), and an
 * extension header running past the packet is IP_BAD_LENGTH. */
enum ip_verdict ip_inspect(const uint8_t *pkt, size_t len, struct ip_info *out)
{
	if (len == 0)
		return IP_EMPTY;
	switch (pkt[0] >> 4) {
	case 4:
		return inspect_v4(pkt, len, out);
	case 6:
		return inspect_v6(pkt, len, out);
	default:
		return IP_BAD_VERSION;
	}
}
