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
 */
#ifndef SCHEDTUN_TUNNEL_H
#define SCHEDTUN_TUNNEL_H

#include <stddef.h>
#include <stdint.h>

#define TUN_HDR_BYTES   20u
#define TUN_MAGIC       0x5354u
#define TUN_VERSION     1u

struct tun_hdr {
	uint8_t  cls;
	uint16_t len_bytes;
	uint16_t flags;
	uint32_t seq;
	uint64_t tx_ns;
};

/* Why a datagram from the underlay was refused. */
enum tun_verdict {
	TUN_OK = 0,
	TUN_SHORT,          /* shorter than the header */
	TUN_BAD_MAGIC,
	TUN_BAD_VERSION,
	TUN_BAD_CLASS,      /* class >= NCLASS */
	TUN_LEN_MISMATCH,   /* header length != datagram length - header */
	TUN_OVERSIZE,       /* inner packet larger than the configured MTU */
	TUN_VERDICT_MAX
};

extern const char *const tun_verdict_name[TUN_VERDICT_MAX];

/* Writes the header into out[0..TUN_HDR_BYTES). */
void tun_hdr_encode(uint8_t *out, const struct tun_hdr *h);

/* Checks a datagram of `len` bytes against the header rules; on TUN_OK
 * fills *h.  `mtu_bytes` bounds the inner length. */
enum tun_verdict tun_hdr_decode(const uint8_t *dgram, size_t len,
				uint32_t mtu_bytes, struct tun_hdr *h);

#endif
