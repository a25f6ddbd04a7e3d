/* bytes.h - big-endian (network order) loads and stores at any address.
 *
 * Wire fields sit at arbitrary offsets inside packet buffers; a struct
 * cast would bake the compiler's padding and the host's byte order into
 * the format, so every field is written and read a byte at a time.
 */
#ifndef SCHEDTUN_UTIL_BYTES_H
#define SCHEDTUN_UTIL_BYTES_H

#include <stdint.h>

static inline void be16_put(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void be32_put(uint8_t *b, uint32_t v)
{
	be16_put(b, (uint16_t)(v >> 16));
	be16_put(b + 2, (uint16_t)v);
}

static inline void be64_put(uint8_t *b, uint64_t v)
{
	be32_put(b, (uint32_t)(v >> 32));
	be32_put(b + 4, (uint32_t)v);
}

static inline uint16_t be16_get(const uint8_t *b)
{
	return (uint16_t)((uint16_t)b[0] << 8 | b[1]);
}

static inline uint32_t be32_get(const uint8_t *b)
{
	return (uint32_t)be16_get(b) << 16 | be16_get(b + 2);
}

static inline uint64_t be64_get(const uint8_t *b)
{
	return (uint64_t)be32_get(b) << 32 | be32_get(b + 4);
}

#endif
