/* test_auth.c - authenticated datagrams (include/sec/auth.h): round trips
 * with and without encryption; every single-bit flip of header, inner
 * packet and tag refused with the receiver's state untouched; a wrong
 * key; replays, stale and new sessions; the counter limit; the grace
 * period of a re-key, and a pair re-keyed one side at a time under
 * traffic losing nothing; the key's text form.  Virtual clock, fixed
 * epochs and salts; deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sec/auth.h"

#define INNER 48u
#define MS 1000000ull

static const struct auth_key K1 = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
				    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
				    27, 28, 29, 30, 31, 32}};
static const struct auth_key K2 = {{0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
				    0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
				    0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
				    0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf}};

/* The states are large (a 64 KB scratch each): static, not on the stack. */
static struct auth tx, rx, rx_before;

struct dgram {
	uint8_t b[AUTH_OVERHEAD_BYTES + 2048];
	size_t len;
};

/* A datagram with a recognisable v1 header and inner packet (byte i =
 * fill + i), sealed by a. */
static void make(struct auth *a, struct dgram *d, uint8_t fill, size_t inner,
		 uint64_t now)
{
	memset(d->b, 0, sizeof(d->b));
	d->b[0] = 0x53;
	d->b[1] = 0x54;
	d->b[2] = 1;                    /* auth_seal sets 2 */
	d->b[3] = 1;
	d->b[4] = (uint8_t)(inner >> 8);
	d->b[5] = (uint8_t)inner;
	d->b[7] = 0x80;                 /* an unknown flag bit: kept */
	for (size_t i = 8; i < 20; i++)
		d->b[i] = (uint8_t)(0x40 + i);
	for (size_t i = 0; i < inner; i++)
		d->b[AUTH_HDR_BYTES + i] = (uint8_t)(fill + i);
	d->len = auth_seal(a, d->b, inner, now);
	assert_int_equal(d->len, inner + AUTH_OVERHEAD_BYTES);
}

static void assert_inner(const struct dgram *d, uint8_t fill, size_t inner)
{
	for (size_t i = 0; i < inner; i++)
		assert_int_equal(d->b[AUTH_HDR_BYTES + i], (uint8_t)(fill + i));
}

static void pair(int encrypt)
{
	assert_int_equal(auth_init(&tx, &K1, encrypt, 1000 * MS, 0x1111), 0);
	assert_int_equal(auth_init(&rx, &K1, encrypt, 2000 * MS, 0x2222), 0);
}

static void test_round_trip(void **state)
{
	struct dgram d;

	(void)state;
	for (int enc = 0; enc <= 1; enc++) {
		pair(enc);
		for (uint8_t i = 0; i < 20; i++) {
			make(&tx, &d, i, INNER + i, 0);
			assert_int_equal(d.b[2], AUTH_VERSION);
			assert_int_equal(d.b[7], 0x80 | (enc ? AUTH_F_SEALED : 0));
			if (enc)        /* the inner packet is not in clear */
				assert_true(d.b[AUTH_HDR_BYTES + 5] != (uint8_t)(i + 5) ||
					    d.b[AUTH_HDR_BYTES + 6] != (uint8_t)(i + 6));
			else
				assert_inner(&d, i, INNER + i);
			assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_OK);
			assert_inner(&d, i, INNER + i);
			assert_int_equal(d.b[36 + 7], i);       /* counter */
		}
		assert_int_equal(rx.rx_sessions, 1);
	}
}

/* Every single-bit flip of every byte of the datagram is refused and
 * leaves the receiver exactly as it was. */
static void test_every_bit_flip(void **state)
{
	struct dgram d, f;

	(void)state;
	for (int enc = 0; enc <= 1; enc++) {
		pair(enc);
		make(&tx, &d, 0, INNER, 0);     /* counter 0: opens the session */
		f = d;
		assert_int_equal(auth_open(&rx, f.b, f.len, 0), AUTH_OK);
		make(&tx, &d, 7, INNER, 0);     /* counter 1: the one flipped */
		memcpy(&rx_before, &rx, sizeof(rx));
		for (size_t bit = 0; bit < 8 * d.len; bit++) {
			enum auth_verdict v;

			f = d;
			f.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			v = auth_open(&rx, f.b, f.len, 0);
			assert_int_not_equal(v, AUTH_OK);
			assert_memory_equal(&rx, &rx_before,
					    offsetof(struct auth, scratch));
		}
		f = d;                          /* and the original still passes */
		assert_int_equal(auth_open(&rx, f.b, f.len, 0), AUTH_OK);
		assert_inner(&f, 7, INNER);
	}
}

static void test_wrong_key_and_mode(void **state)
{
	struct dgram d;

	(void)state;
	assert_int_equal(auth_init(&tx, &K2, 0, 1000 * MS, 1), 0);
	assert_int_equal(auth_init(&rx, &K1, 0, 2000 * MS, 2), 0);
	make(&tx, &d, 0, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_BAD_TAG);
	assert_int_equal(rx.rx_any, 0);         /* a forgery pins no session */
	/* the mode must match: sealed to a clear receiver and back */
	assert_int_equal(auth_init(&tx, &K1, 1, 1000 * MS, 1), 0);
	make(&tx, &d, 0, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_MODE_MISMATCH);
	assert_int_equal(auth_init(&tx, &K1, 0, 1000 * MS, 1), 0);
	assert_int_equal(auth_init(&rx, &K1, 1, 2000 * MS, 2), 0);
	make(&tx, &d, 0, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_MODE_MISMATCH);
	/* shorter than header and tag */
	assert_int_equal(auth_open(&rx, d.b, AUTH_OVERHEAD_BYTES - 1, 0), AUTH_SHORT);
}

/* A captured datagram replayed: accepted once.  Reordered: accepted. */
static void test_replay(void **state)
{
	struct dgram d[5], c;

	(void)state;
	pair(1);
	for (int i = 0; i < 5; i++)
		make(&tx, &d[i], (uint8_t)i, INNER, 0);
	c = d[3];
	assert_int_equal(auth_open(&rx, c.b, c.len, 0), AUTH_OK);
	for (int i = 0; i < 1000; i++) {
		c = d[3];
		assert_int_equal(auth_open(&rx, c.b, c.len, 0), AUTH_REPLAY);
	}
	for (int i = 0; i < 5; i++) {   /* the others, late: once each */
		c = d[i];
		assert_int_equal(auth_open(&rx, c.b, c.len, 0), i == 3 ? AUTH_REPLAY : AUTH_OK);
		c = d[i];
		assert_int_equal(auth_open(&rx, c.b, c.len, 0), AUTH_REPLAY);
	}
}

/* A restarted peer (later epoch) opens a new session; its old session
 * is stale from then on, replays included; an earlier epoch never
 * opens a session. */
static void test_sessions(void **state)
{
	static struct auth tx2, tx0;
	struct dgram old, d, c;

	(void)state;
	pair(0);
	make(&tx, &old, 1, INNER, 0);
	c = old;
	assert_int_equal(auth_open(&rx, c.b, c.len, 0), AUTH_OK);
	assert_int_equal(auth_init(&tx2, &K1, 0, 5000 * MS, 0x9999), 0);     /* the restart */
	make(&tx2, &d, 2, INNER, 0);                    /* counter 0 again */
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_OK);
	assert_int_equal(rx.rx_sessions, 2);
	make(&tx, &d, 3, INNER, 0);                     /* the old process */
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_STALE_SESSION);
	c = old;
	assert_int_equal(auth_open(&rx, c.b, c.len, 0), AUTH_STALE_SESSION);
	assert_int_equal(auth_init(&tx0, &K1, 0, 5000 * MS, 0x1234), 0);     /* same epoch, other salt */
	make(&tx0, &d, 4, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_STALE_SESSION);
	/* a forged datagram of a later session opens nothing */
	assert_int_equal(auth_init(&tx0, &K2, 0, 9000 * MS, 1), 0);
	make(&tx0, &d, 5, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_BAD_TAG);
	assert_int_equal(rx.rx_epoch_ns, 5000 * MS);
	make(&tx2, &d, 6, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_OK);
}

static void test_counter_limit(void **state)
{
	struct dgram d;

	(void)state;
	pair(0);
	tx.tx_ctr = REPLAY_CTR_LIMIT - 1;
	make(&tx, &d, 0, INNER, 0);
	assert_int_equal(auth_open(&rx, d.b, d.len, 0), AUTH_OK);
	memset(d.b, 0, sizeof(d.b));
	assert_int_equal(auth_seal(&tx, d.b, INNER, 0), 0);
	assert_int_equal(tx.tx_ctr, REPLAY_CTR_LIMIT);
}

/* The receiver re-keyed, the sender not: accepted under the previous key
 * during the grace period, refused after it. */
static void test_grace(void **state)
{
	struct dgram d;

	(void)state;
	for (int enc = 0; enc <= 1; enc++) {
		pair(enc);
		auth_rekey(&rx, &K2, 100 * MS, 1000 * MS);
		make(&tx, &d, 1, INNER, 200 * MS);
		assert_int_equal(auth_open(&rx, d.b, d.len, 200 * MS), AUTH_OK);
		assert_inner(&d, 1, INNER);
		assert_int_equal(rx.rx_prev_key, 1);
		assert_int_equal(rx.tx_cur, 0);         /* the peer lacks K2 */
		make(&tx, &d, 2, INNER, 1099 * MS);
		assert_int_equal(auth_open(&rx, d.b, d.len, 1099 * MS), AUTH_OK);
		make(&tx, &d, 3, INNER, 1100 * MS);
		assert_int_equal(auth_open(&rx, d.b, d.len, 1100 * MS), AUTH_BAD_TAG);
		assert_int_equal(rx.has_prev, 0);
		assert_int_equal(rx.tx_cur, 1);         /* sends with K2 now */
		assert_int_equal(rx.tx_switches, 1);
	}
}

/* Two daemons exchange a datagram each way every ms; A re-keys at 100 ms,
 * B at 400 ms (grace 1 s).  Nothing is refused, both send with K2 within
 * one exchange after B's re-key, and K1 is refused after the grace. */
static void test_rekey_one_side_at_a_time(void **state)
{
	static struct auth a, b;
	struct dgram d;
	uint64_t switched_ms = 0;

	(void)state;
	for (int enc = 0; enc <= 1; enc++) {
		assert_int_equal(auth_init(&a, &K1, enc, 1000 * MS, 1), 0);
		assert_int_equal(auth_init(&b, &K1, enc, 1001 * MS, 2), 0);
		switched_ms = 0;
		for (uint64_t ms = 0; ms < 2000; ms++) {
			uint64_t now = ms * MS;

			if (ms == 100)
				auth_rekey(&a, &K2, now, 1000 * MS);
			if (ms == 400)
				auth_rekey(&b, &K2, now, 1000 * MS);
			make(&a, &d, (uint8_t)ms, INNER, now);
			assert_int_equal(auth_open(&b, d.b, d.len, now), AUTH_OK);
			assert_inner(&d, (uint8_t)ms, INNER);
			make(&b, &d, (uint8_t)~ms, INNER, now);
			assert_int_equal(auth_open(&a, d.b, d.len, now), AUTH_OK);
			if (ms < 400)
				assert_int_equal(a.tx_cur, 0 + (ms < 100));
			if (!switched_ms && a.tx_cur && b.tx_cur && ms >= 400)
				switched_ms = ms;
		}
		assert_int_equal(switched_ms, 400);
		assert_int_equal(a.tx_switches, 1);
		assert_int_equal(b.tx_switches, 1);
		assert_int_equal(a.has_prev, 0);        /* grace over at 1.1 s */
		assert_int_equal(b.has_prev, 0);
		/* K1 is gone: a datagram under it is refused */
		assert_int_equal(auth_init(&tx, &K1, enc, 3000 * MS, 3), 0);
		make(&tx, &d, 0, INNER, 2000 * MS);
		assert_int_equal(auth_open(&b, d.b, d.len, 2000 * MS), AUTH_BAD_TAG);
	}
}

static void test_key_text(void **state)
{
	struct auth_key k;
	char out[AUTH_KEY_B64_BYTES], err[200], buf[80];

	(void)state;
	auth_key_format(&K1, out);
	assert_int_equal(strlen(out), 44);
	snprintf(buf, sizeof(buf), "  %s\n", out);
	assert_int_equal(auth_key_parse(buf, strlen(buf), &k, err, sizeof(err)), 0);
	assert_memory_equal(&k, &K1, sizeof(k));
	/* one character short, one too many, a bad character, no padding */
	assert_int_equal(auth_key_parse(out, 43, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "43 characters (accepted: 44"));
	snprintf(buf, sizeof(buf), "%sA", out);
	assert_int_equal(auth_key_parse(buf, strlen(buf), &k, err, sizeof(err)), -1);
	memcpy(buf, out, 45);
	buf[10] = '*';
	assert_int_equal(auth_key_parse(buf, 44, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not base64 of 32 bytes"));
	assert_null(strstr(err, out));          /* never quotes the text */
	memcpy(buf, out, 45);
	buf[43] = 'A';                          /* the '=' replaced */
	assert_int_equal(auth_key_parse(buf, 44, &k, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_bit_flip),
		cmocka_unit_test(test_wrong_key_and_mode),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_counter_limit),
		cmocka_unit_test(test_grace),
		cmocka_unit_test(test_rekey_one_side_at_a_time),
		cmocka_unit_test(test_key_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
