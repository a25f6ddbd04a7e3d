/* siphash.h - SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012): a keyed 64-bit hash of a short message, so
 * that whoever does not know the 128-bit key cannot choose inputs that
 * collide.  The same function as libsodium's crypto_shorthash (the tests
 * compare the two); here because the packet path below src/sec uses no
 * library. */
#ifndef SCHEDTUN_SIPHASH_H
#define SCHEDTUN_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* The 16-byte key as the reference reads it: k0 = bytes 0..7, k1 = bytes
 * 8..15, each little-endian. */
uint64_t siphash24(uint64_t k0, uint64_t k1, const uint8_t *msg, size_t len);

#endif
