/* test_tunnel.c - the encapsulation header, byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/classify.h"
#include "pkt/tunnel.h"
#include "testutil.h"

#define MTU 1400u

/* The known header: AF, 258 inner bytes, flags 0x8001, seq 0x01020304,
 * tx_ns 0x1122334455667788, as it must appear on the wire. */
static const struct tun_hdr known = {
	.cls = CLS_AF, .len_bytes = 258, .flags = 0x8001,
	.seq = 0x01020304u, .tx_ns = 0x1122334455667788ull,
};
static const uint8_t known_wire[TUN_HDR_BYTES] = {
	0x53, 0x54,                     /* magic "ST" */
	0x01,                           /* version */
	0x01,                           /* class AF */
	0x01, 0x02,                     /* length 258 */
	0x80, 0x01,                     /* flags */
	0x01, 0x02, 0x03, 0x04,         /* seq */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* tx_ns */
};

static uint8_t dgram[TUN_HDR_BYTES + 2000];

static void test_names(void **state)
{
	static const struct tu_name verdicts[] = {
		{ TUN_OK, "ok" }, { TUN_SHORT, "short" },
		{ TUN_BAD_MAGIC, "bad_magic" }, { TUN_BAD_VERSION, "bad_version" },
		{ TUN_BAD_CLASS, "bad_class" },
		{ TUN_LEN_MISMATCH, "len_mismatch" }, { TUN_OVERSIZE, "oversize" },
	};

	(void)state;
	tu_assert_names(tun_verdict_name, verdicts, TU_LEN(verdicts));
}

static void test_encode_known_bytes(void **state)
{
	uint8_t buf[TUN_HDR_BYTES + 2];

	(void)state;
	memset(buf, 0xcc, sizeof(buf));
	tun_hdr_encode(buf + 1, &known);
	assert_memory_equal(buf + 1, known_wire, TUN_HDR_BYTES);
	/* exactly TUN_HDR_BYTES written, at an odd (unaligned) address */
	assert_int_equal(buf[0], 0xcc);
	assert_int_equal(buf[TUN_HDR_BYTES + 1], 0xcc);
}

static void test_decode_known_bytes(void **state)
{
	struct tun_hdr h;

	(void)state;
	memset(dgram, 0, sizeof(dgram));
	memcpy(dgram, known_wire, TUN_HDR_BYTES);
	memset(&h, 0, sizeof(h));
	assert_int_equal(tun_hdr_decode(dgram, TUN_HDR_BYTES + 258, MTU, &h),
			 TUN_OK);
	assert_int_equal(h.cls, CLS_AF);
	assert_int_equal(h.len_bytes, 258);
	assert_int_equal(h.flags, 0x8001);      /* unknown bits passed on */
	assert_int_equal(h.seq, 0x01020304u);
	assert_true(h.tx_ns == 0x1122334455667788ull);
}

static void test_round_trip(void **state)
{
	static const struct tun_hdr cases[] = {
		{ .cls = CLS_EF },
		{ .cls = CLS_CS0, .len_bytes = MTU, .flags = 0xffff,
		  .seq = UINT32_MAX, .tx_ns = UINT64_MAX },
		{ .cls = CLS_AF, .len_bytes = 1, .flags = 1, .seq = 1, .tx_ns = 1 },
		{ .cls = CLS_EF, .len_bytes = 1280, .seq = 0x80000000u,
		  .tx_ns = 0x8000000000000001ull },
	};
	struct tun_hdr h;

	(void)state;
	for (size_t i = 0; i < TU_LEN(cases); i++) {
		memset(dgram, 0x5a, sizeof(dgram));
		tun_hdr_encode(dgram, &cases[i]);
		memset(&h, 0xee, sizeof(h));
		assert_int_equal(tun_hdr_decode(dgram,
						 TUN_HDR_BYTES + cases[i].len_bytes,
						 MTU, &h), TUN_OK);
		assert_int_equal(h.version, TUN_VERSION);
		assert_int_equal(h.cls, cases[i].cls);
		assert_int_equal(h.len_bytes, cases[i].len_bytes);
		assert_int_equal(h.flags, cases[i].flags);
		assert_int_equal(h.seq, cases[i].seq);
		assert_true(h.tx_ns == cases[i].tx_ns);
	}
}

/* The verdict; on refusal *h is left alone. */
static void check(size_t len, uint32_t mtu, enum tun_verdict want)
{
	struct tun_hdr h, untouched;

	memset(&h, 0xa5, sizeof(h));
	memcpy(&untouched, &h, sizeof(h));
	assert_int_equal(tun_hdr_decode(dgram, len, mtu, &h), want);
	if (want != TUN_OK)
		assert_memory_equal(&h, &untouched, sizeof(h));
}

static void reset_known(void)
{
	memset(dgram, 0, sizeof(dgram));
	tun_hdr_encode(dgram, &known);
}

static void test_verdicts(void **state)
{
	const size_t len = TUN_HDR_BYTES + 258;

	(void)state;
	reset_known();
	check(len, MTU, TUN_OK);

	check(0, MTU, TUN_SHORT);
	check(TUN_HDR_BYTES - 1, MTU, TUN_SHORT);

	dgram[0] = 0x54;                        /* byte-swapped magic */
	dgram[1] = 0x53;
	check(len, MTU, TUN_BAD_MAGIC);
	reset_known();
	dgram[1] ^= 0x01;
	check(len, MTU, TUN_BAD_MAGIC);

	reset_known();
	dgram[2] = 0;
	check(len, MTU, TUN_BAD_VERSION);
	dgram[2] = 3;
	check(len, MTU, TUN_BAD_VERSION);

	reset_known();
	dgram[3] = NCLASS;
	check(len, MTU, TUN_BAD_CLASS);
	dgram[3] = 0xff;
	check(len, MTU, TUN_BAD_CLASS);
	dgram[3] = CLS_CS0;
	check(len, MTU, TUN_OK);

	reset_known();
	check(len - 1, MTU, TUN_LEN_MISMATCH);
	check(len + 1, MTU, TUN_LEN_MISMATCH);
	check(TUN_HDR_BYTES, MTU, TUN_LEN_MISMATCH);

	/* inner length equal to the MTU passes, one more does not */
	reset_known();
	check(len, 258, TUN_OK);
	check(len, 257, TUN_OVERSIZE);
	check(len, 0, TUN_OVERSIZE);
	/* a datagram longer than header + MTU is oversize even when its
	 * length field is small (what a truncated receive looks like) */
	check(len + 1, 258, TUN_OVERSIZE);
	check(len + 1, 259, TUN_LEN_MISMATCH);
	/* a bare header (empty inner packet) is a matter for ip_inspect */
	dgram[4] = 0;
	dgram[5] = 0;
	check(TUN_HDR_BYTES, MTU, TUN_OK);
}

/* Version 2 (sec/auth.h): the same fields, 44 bytes of header and a
 * 16-byte tag around the inner packet; only the framing is checked here. */
static void test_version2_framing(void **state)
{
	const size_t len = TUN_HDR_V2_BYTES + 258 + TUN_TAG_BYTES;
	struct tun_hdr h;

	(void)state;
	reset_known();
	dgram[2] = TUN_VERSION_AUTH;
	memset(&h, 0, sizeof(h));
	assert_int_equal(tun_hdr_decode(dgram, len, MTU, &h), TUN_OK);
	assert_int_equal(h.version, TUN_VERSION_AUTH);
	assert_int_equal(h.len_bytes, 258);
	assert_int_equal(h.seq, 0x01020304u);
	/* the version 1 length of the same inner packet is too short by 40 */
	check(TUN_HDR_BYTES + 258, MTU, TUN_LEN_MISMATCH);
	check(len - 1, MTU, TUN_LEN_MISMATCH);
	check(len + 1, MTU, TUN_LEN_MISMATCH);
	/* shorter than header and tag: short, after magic and version */
	check(TUN_HDR_V2_BYTES + TUN_TAG_BYTES - 1, MTU, TUN_SHORT);
	check(TUN_HDR_BYTES, MTU, TUN_SHORT);
	dgram[0] = 0;
	check(TUN_HDR_BYTES, MTU, TUN_BAD_MAGIC);
	reset_known();
	dgram[2] = TUN_VERSION_AUTH;
	check(len, 258, TUN_OK);
	check(len, 257, TUN_OVERSIZE);
	check(len + 1, 258, TUN_OVERSIZE);
	dgram[4] = 0;
	dgram[5] = 0;
	check(TUN_HDR_V2_BYTES + TUN_TAG_BYTES, MTU, TUN_OK);
	assert_int_equal(tun_layout_v1.hdr_bytes + tun_layout_v1.tag_bytes,
			 TUN_HDR_BYTES);
	assert_int_equal(tun_layout_v2.hdr_bytes, 44);
	assert_int_equal(tun_layout_v2.tag_bytes, 16);
}

/* The first failed check in enum order is the one reported. */
static void test_verdict_order(void **state)
{
	const size_t len = TUN_HDR_BYTES + 258;

	(void)state;
	reset_known();
	dgram[0] = 0;           /* magic */
	dgram[2] = 9;           /* version */
	dgram[3] = 9;           /* class */
	check(len + 1, 10, TUN_BAD_MAGIC);
	check(3, 10, TUN_SHORT);
	reset_known();
	dgram[2] = 9;
	dgram[3] = 9;
	check(len + 1, 10, TUN_BAD_VERSION);
	reset_known();
	dgram[3] = 9;
	check(len + 1, 10, TUN_BAD_CLASS);
	/* oversize is checked before the length fields are compared */
	reset_known();
	check(len + 1, 10, TUN_OVERSIZE);
	check(len + 1, 1000, TUN_LEN_MISMATCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_encode_known_bytes),
		cmocka_unit_test(test_decode_known_bytes),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_version2_framing),
		cmocka_unit_test(test_verdict_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
