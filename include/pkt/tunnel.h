/* tunnel.h - the UDP encapsulation header, encoded field by field.
 *
 * Wire format (network byte order), TUN_HDR_BYTES = 20:
 *   0      2      magic   0x5354 ("ST")
 *   2      1      version 1
 *   3      1      class   0 = EF, 1 = AF, 2 = CS0
 *   4      2      length  inner packet length in bytes
 *   6      2      flags   0 (reserved; receivers ignore unknown bits)
 *   8      4      seq     per-class sequence number, +1 per packet sent
 *  12      8      tx_ns   sender's CLOCK_REALTIME in ns when the packet
 *                         entered the sender (read from its tun)
 *  20      ...    inner IPv4/IPv6 packet
 *
 * Version 2 (a daemon with tunnel.key_file; sec/auth.h has its fields and
 * sec/auth.c writes and checks them) puts 24 more bytes between the
 * header and the inner packet and a 16-byte tag after it: TUN_HDR_V2_BYTES
 * in front, TUN_TAG_BYTES behind.  Here only its framing is checked, so
 * that both versions are refused for the same reasons with the same
 * counters, and the core can tell a peer of the other kind.
 */
#ifndef SCHEDTUN_TUNNEL_H
#define SCHEDTUN_TUNNEL_H

#include <stddef.h>
#include <stdint.h>

#define TUN_HDR_BYTES   20u
#define TUN_MAGIC       0x5354u
#define TUN_VERSION     1u
#define TUN_VERSION_AUTH 2u
#define TUN_HDR_V2_BYTES 44u    /* = AUTH_HDR_BYTES */
#define TUN_TAG_BYTES    16u    /* = AUTH_TAG_BYTES */

/* Where a datagram sits in a pool packet, so that its inner packet lands
 * at p->data: hdr_bytes before it, tag_bytes after the inner packet. */
struct tun_layout {
	uint32_t hdr_bytes, tag_bytes;
};

extern const struct tun_layout tun_layout_v1;   /* 20, 0 */
extern const struct tun_layout tun_layout_v2;   /* 44, 16 */

struct tun_hdr {
	uint8_t  version;       /* TUN_VERSION or TUN_VERSION_AUTH */
	uint8_t  cls;
	uint16_t len_bytes;
	uint16_t flags;
	uint32_t seq;
	uint64_t tx_ns;
};

/* Why a datagram from the underlay was refused. */
enum tun_verdict {
	TUN_OK = 0,
	TUN_SHORT,          /* shorter than the header (and tag) */
	TUN_BAD_MAGIC,
	TUN_BAD_VERSION,    /* neither 1 nor 2 */
	TUN_BAD_CLASS,      /* class >= NCLASS */
	TUN_LEN_MISMATCH,   /* length field != datagram - header - tag */
	TUN_OVERSIZE,       /* inner packet larger than the configured MTU */
	TUN_VERDICT_MAX
};

extern const char *const tun_verdict_name[TUN_VERDICT_MAX];

/* Writes a version 1 header into out[0..TUN_HDR_BYTES). */
void tun_hdr_encode(uint8_t *out, const struct tun_hdr *h);

/* Checks a datagram of `len` bytes of version 1 or 2 against the header
 * rules; on TUN_OK fills *h (its version tells the layout).  `mtu_bytes`
 * bounds the inner length.  Version 2's own fields are auth_open()'s. */
enum tun_verdict tun_hdr_decode(const uint8_t *dgram, size_t len,
				uint32_t mtu_bytes, struct tun_hdr *h);

#endif
