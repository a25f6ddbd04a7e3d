/* tunnel.c - the UDP encapsulation header (layout in tunnel.h).
 *
 * Fields are written and read one byte at a time (util/bytes.h).
 */
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "pkt/tunnel.h"
#include "util/bytes.h"

const char *const tun_verdict_name[TUN_VERDICT_MAX] = {
	[TUN_OK]           = "ok",
	[TUN_SHORT]        = "short",
	[TUN_BAD_MAGIC]    = "bad_magic",
	[TUN_BAD_VERSION]  = "bad_version",
	[TUN_BAD_CLASS]    = "bad_class",
	[TUN_LEN_MISMATCH] = "len_mismatch",
	[TUN_OVERSIZE]     = "oversize",
};

_Static_assert(PKT_HEADROOM_BYTES >= TUN_HDR_V2_BYTES &&
	       PKT_TAILROOM_BYTES >= TUN_TAG_BYTES,
	       "a pool packet holds a version 2 datagram around its inner packet");

const struct tun_layout tun_layout_v1 = { TUN_HDR_BYTES, 0 };
const struct tun_layout tun_layout_v2 = { TUN_HDR_V2_BYTES, TUN_TAG_BYTES };

/* Writes magic, version and every field of h; out must hold TUN_HDR_BYTES. */
void tun_hdr_encode(uint8_t *out, const struct tun_hdr *h)
{
	be16_put(out + 0, TUN_MAGIC);
	out[2] = TUN_VERSION;
	out[3] = h->cls;
	be16_put(out + 4, h->len_bytes);
	be16_put(out + 6, h->flags);
	be32_put(out + 8, h->seq);
	be64_put(out + 12, h->tx_ns);
}

/* Checks in the order of enum tun_verdict and stops at the first failure,
 * but for the length of a version 2 datagram (44-byte header and 16-byte
 * tag), which is known only after its version, so a short one of those is
 * refused after magic and version; *h is written only on TUN_OK.  Unknown flag bits are passed through, not
 * refused, so that a newer sender stays compatible.  Whether the inner
 * packet is IPv4/IPv6 is ip_inspect()'s job, on the bytes after the
 * header. */
enum tun_verdict tun_hdr_decode(const uint8_t *dgram, size_t len,
				uint32_t mtu_bytes, struct tun_hdr *h)
{
	const struct tun_layout *lay;
	uint16_t inner_bytes;
	size_t outer_bytes;

	if (len < TUN_HDR_BYTES)
		return TUN_SHORT;
	if (be16_get(dgram) != TUN_MAGIC)
		return TUN_BAD_MAGIC;
	if (dgram[2] == TUN_VERSION)
		lay = &tun_layout_v1;
	else if (dgram[2] == TUN_VERSION_AUTH)
		lay = &tun_layout_v2;
	else
		return TUN_BAD_VERSION;
	outer_bytes = lay->hdr_bytes + lay->tag_bytes;
	if (len < outer_bytes)
		return TUN_SHORT;
	if (dgram[3] >= NCLASS)
		return TUN_BAD_CLASS;
	inner_bytes = be16_get(dgram + 4);
	/* Oversize first: a datagram longer than any buffer arrives truncated
	 * (the receiver reports it as one byte over), and must be counted as
	 * what it is, not as a length mismatch. */
	if (inner_bytes > mtu_bytes || len - outer_bytes > mtu_bytes)
		return TUN_OVERSIZE;
	if (inner_bytes != len - outer_bytes)
		return TUN_LEN_MISMATCH;

	h->version = dgram[2];
	h->cls = dgram[3];
	h->len_bytes = inner_bytes;
	h->flags = be16_get(dgram + 6);
	h->seq = be32_get(dgram + 8);
	h->tx_ns = be64_get(dgram + 12);
	return TUN_OK;
}
