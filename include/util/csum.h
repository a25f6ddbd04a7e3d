/* csum.h - the Internet checksum (RFC 1071) and the byte-order helpers the
 * packet code shares: tso.c completes checksums when it splits a tun
 * super-packet, tungro.c verifies them and leaves the partial one the
 * kernel expects when it builds one (issue 10), classify.c checks the
 * IPv4 header's on every packet and fills it for packet builders (one
 * copy of each helper, issue 18).  Header-only: a few lines each,
 * inlined on the per-packet path. */
#ifndef SCHEDTUN_CSUM_H
#define SCHEDTUN_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include "util/bytes.h"    /* be16_get, be16_put, ...: csum users read headers */

#define CSUM_PROTO_TCP 6u
#define CSUM_PROTO_UDP 17u

/* The little-endian 16-bit value at b (the virtio header's fields). */
static inline uint16_t get_le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

/* Stores v at b little-endian. */
static inline void put_le16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

/* RFC 1071 sum of b[0..n) as big-endian 16-bit words (a last odd byte
 * padded with zero), added to sum; not folded.  Big-endian 32-bit words
 * give the same ones'-complement sum (2^16 = 1 mod 0xffff) at half the
 * iterations, and explicit byte order keeps it independent of the host's
 * and of alignment.  Exact for any n below 2^32 bytes. */
static inline uint64_t csum_add(uint64_t sum, const uint8_t *b, size_t n)
{
	while (n >= 4) {
		sum += (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		       (uint32_t)b[2] << 8 | b[3];
		b += 4;
		n -= 4;
	}
	if (n >= 2) {
		sum += be16_get(b);
		b += 2;
		n -= 2;
	}
	if (n)
		sum += (uint32_t)b[0] << 8;
	return sum;
}

/* Folds a csum_add() sum to 16 bits (not complemented). */
static inline uint16_t csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The pseudo-header sum (RFC 793/768 for IPv4, RFC 8200 8.1 for IPv6) of
 * the packet ip whose L4 part is l4_bytes long with protocol proto. */
static inline uint64_t csum_pseudo(const uint8_t *ip, int v6, uint8_t proto,
				   uint32_t l4_bytes)
{
	uint64_t sum = v6 ? csum_add(0, ip + 8, 32) : csum_add(0, ip + 12, 8);

	return sum + proto + (l4_bytes >> 16) + (l4_bytes & 0xffff);
}

#endif
