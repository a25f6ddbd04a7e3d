/* siphash.c - SipHash-2-4 (siphash.h), from the paper's description:
 * four 64-bit words of state, two rounds per 8-byte word of message
 * (little-endian), the length in the last word's top byte, four
 * finalisation rounds. */
#include "util/siphash.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sipround(struct sip *s)
{
	s->v0 += s->v1; s->v1 = ROTL(s->v1, 13); s->v1 ^= s->v0; s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3; s->v3 = ROTL(s->v3, 16); s->v3 ^= s->v2;
	s->v0 += s->v3; s->v3 = ROTL(s->v3, 21); s->v3 ^= s->v0;
	s->v2 += s->v1; s->v1 = ROTL(s->v1, 17); s->v1 ^= s->v2; s->v2 = ROTL(s->v2, 32);
}

static void absorb(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sipround(s);
	sipround(s);
	s->v0 ^= m;
}

static uint64_t le64(const uint8_t *b, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v |= (uint64_t)b[n] << (8 * n);
	return v;
}

uint64_t siphash24(uint64_t k0, uint64_t k1, const uint8_t *msg, size_t len)
{
	struct sip s = {
		.v0 = k0 ^ 0x736f6d6570736575ull,
		.v1 = k1 ^ 0x646f72616e646f6dull,
		.v2 = k0 ^ 0x6c7967656e657261ull,
		.v3 = k1 ^ 0x7465646279746573ull,
	};
	size_t i, whole = len - len % 8;

	for (i = 0; i < whole; i += 8)
		absorb(&s, le64(msg + i, 8));
	absorb(&s, le64(msg + whole, len % 8) | (uint64_t)(len & 0xff) << 56);
	s.v2 ^= 0xff;
	sipround(&s);
	sipround(&s);
	sipround(&s);
	sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
