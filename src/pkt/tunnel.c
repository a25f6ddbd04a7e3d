/* tunnel.c - the UDP encapsulation header (layout in tunnel.h).
 *
 * Fields are written and read one byte at a time in network byte order:
 * the header sits at an arbitrary offset inside a packet buffer, and a
 * struct cast would bake the compiler's padding and the host's byte order
 * into the wire format.
 */
#include "pkt/classify.h"
#include "pkt/tunnel.h"

const char *const tun_verdict_name[TUN_VERDICT_MAX] = {
	[TUN_OK]           = "ok",
	[TUN_SHORT]        = "short",
	[TUN_BAD_MAGIC]    = "bad_magic",
	[TUN_BAD_VERSION]  = "bad_version",
	[TUN_BAD_CLASS]    = "bad_class",
	[TUN_LEN_MISMATCH] = "len_mismatch",
	[TUN_OVERSIZE]     = "oversize",
};

static inline void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void put32(uint8_t *b, uint32_t v)
{
	put16(b, (uint16_t)(v >> 16));
	put16(b + 2, (uint16_t)v);
}

static inline void put64(uint8_t *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b + 4, (uint32_t)v);
}

static inline uint16_t get16(const uint8_t *b)
{
	return (uint16_t)((uint16_t)b[0] << 8 | b[1]);
}

static inline uint32_t get32(const uint8_t *b)
{
	return (uint32_t)get16(b) << 16 | get16(b + 2);
}

static inline uint64_t get64(const uint8_t *b)
{
	return (uint64_t)get32(b) << 32 | get32(b + 4);
}

/* Writes magic, version and every field of h; out must hold TUN_HDR_BYTES. */
void tun_hdr_encode(uint8_t *out, const struct tun_hdr *h)
{
	put16(out + 0, TUN_MAGIC);
	out[2] = TUN_VERSION;
	out[3] = h->cls;
	put16(out + 4, h->len_bytes);
	put16(out + 6, h->flags);
	put32(out + 8, h->seq);
	put64(out + 12, h->tx_ns);
}

/* Checks in the order of enum tun_verdict and stops at the first failure;
 * *h is written only on TUN_OK.  Unknown flag bits are passed through, not
 * refused, so that a newer sender stays compatible.  Whether the inner
 * packet is IPv4/IPv6 is ip_inspect()'s job, on the bytes after the
 * header. */
enum tun_verdict tun_hdr_decode(const uint8_t *dgram, size_t len,
				uint32_t mtu_bytes, struct tun_hdr *h)
{
	uint16_t inner_bytes;

	if (len < TUN_HDR_BYTES)
		return TUN_SHORT;
	if (get16(dgram) != TUN_MAGIC)
		return TUN_BAD_MAGIC;
	if (dgram[2] != TUN_VERSION)
		return TUN_BAD_VERSION;
	if (dgram[3] >= NCLASS)
		return TUN_BAD_CLASS;
	inner_bytes = get16(dgram + 4);
	/* Oversize first: a datagram longer than any buffer arrives truncated
	 * (the receiver reports it as one byte over), and must be counted as
	 * what it is, not as a length mismatch. */
	if (inner_bytes > mtu_bytes || len - TUN_HDR_BYTES > mtu_bytes)
		return TUN_OVERSIZE;
	if (inner_bytes != len - TUN_HDR_BYTES)
		return TUN_LEN_MISMATCH;

	h->cls = dgram[3];
	h->len_bytes = inner_bytes;
	h->flags = get16(dgram + 6);
	h->seq = get32(dgram + 8);
	h->tx_ns = get64(dgram + 12);
	return TUN_OK;
}
