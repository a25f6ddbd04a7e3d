/* test_siphash.c - SipHash-2-4 (src/util/siphash.c) against libsodium's
 * crypto_shorthash (an independent implementation of the same function)
 * for every length 0..64 under 200 keys; and the keyed flow hash of
 * classify.c: with a key it is the SipHash of (src, dst, proto, ports)
 * folded to 32 bits, differs between keys, is the same for the same
 * tuple, and without a key it is what it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sodium.h>

#include "pkt/classify.h"
#include "util/siphash.h"
#include "testutil.h"

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static void test_against_libsodium(void **state)
{
	uint8_t key[crypto_shorthash_KEYBYTES], msg[64], out[crypto_shorthash_BYTES];

	(void)state;
	assert_int_equal(crypto_shorthash_BYTES, 8);
	assert_true(sodium_init() >= 0);
	for (int k = 0; k < 200; k++) {
		/* deterministic keys and messages: a test replays exactly */
		for (size_t i = 0; i < sizeof(key); i++)
			key[i] = (uint8_t)(k * 31 + i * 7 + 1);
		for (size_t i = 0; i < sizeof(msg); i++)
			msg[i] = (uint8_t)(k * 13 + i * 5);
		for (size_t len = 0; len <= sizeof(msg); len++) {
			crypto_shorthash(out, msg, len, key);
			assert_true(siphash24(le64(key), le64(key + 8), msg, len) == le64(out));
		}
	}
}

/* The flow hash of a packet built from ip, under the current key. */
static uint32_t hash_of(const struct tu_ip *ip)
{
	uint8_t b[256];
	struct ip_info ii;
	size_t n = tu_ip_build(b, sizeof(b), ip);

	assert_int_equal(ip_inspect(b, n, &ii), IP_OK);
	return ii.flow_hash;
}

static void test_keyed_flow_hash(void **state)
{
	const struct tu_ip v4 = { .version = 4, .proto = 17, .sport = 1234, .dport = 80,
				  .len_bytes = 60 };
	const struct tu_ip v6 = { .version = 6, .proto = 6, .sport = 1, .dport = 2,
				  .len_bytes = 80 };
	uint8_t t[37];
	uint32_t plain4, plain6, a4, a6;
	uint64_t x;

	(void)state;
	flow_hash_clear_key();
	plain4 = hash_of(&v4);
	plain6 = hash_of(&v6);

	flow_hash_set_key(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull);
	a4 = hash_of(&v4);
	a6 = hash_of(&v6);
	/* the tuple as classify.c lays it out: src, dst, proto, ports */
	memcpy(t, tu_v4_src, 4);
	memcpy(t + 4, tu_v4_dst, 4);
	t[8] = 17;
	t[9] = 1234 >> 8;
	t[10] = 1234 & 0xff;
	t[11] = 0;
	t[12] = 80;
	x = siphash24(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull, t, 13);
	assert_int_equal(a4, (uint32_t)(x ^ (x >> 32)));
	memcpy(t, tu_v6_src, 16);
	memcpy(t + 16, tu_v6_dst, 16);
	t[32] = 6;
	t[33] = 0;
	t[34] = 1;
	t[35] = 0;
	t[36] = 2;
	x = siphash24(0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull, t, 37);
	assert_int_equal(a6, (uint32_t)(x ^ (x >> 32)));
	assert_int_equal(hash_of(&v4), a4);             /* stable under one key */
	assert_int_not_equal(a4, plain4);

	flow_hash_set_key(1, 2);
	assert_int_not_equal(hash_of(&v4), a4);
	assert_int_not_equal(hash_of(&v6), a6);

	flow_hash_clear_key();
	assert_int_equal(hash_of(&v4), plain4);
	assert_int_equal(hash_of(&v6), plain6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_libsodium),
		cmocka_unit_test(test_keyed_flow_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
