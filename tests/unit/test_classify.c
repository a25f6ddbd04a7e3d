/* test_classify.c - IP validation, DSCP classification and the flow hash,
 * on hand-built IPv4 and IPv6 packets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/classify.h"

#include "testutil.h"

#define BUF_BYTES 256

/* IPv4 with `opt_words` option words, proto, TOS (DSCP and ECN), ports at
 * the L4 offset (when l4_bytes >= 4), l4_bytes of L4 header/payload;
 * returns the length. */
static size_t build_v4(uint8_t *b, uint8_t tos, uint8_t proto,
		       uint16_t sport, uint16_t dport, size_t l4_bytes,
		       unsigned int opt_words)
{
	const struct tu_ip ip = {
		.version = 4, .dscp = tos >> 2, .ecn = tos & 3, .proto = proto,
		.sport = sport, .dport = dport, .opt_words = opt_words,
		.len_bytes = (uint32_t)(20 + 4 * opt_words + l4_bytes),
	};

	memset(b, 0, BUF_BYTES);
	return tu_ip_build(b, BUF_BYTES, &ip);
}

/* IPv6 header; `ext` (ext_bytes) is copied after it, then the L4 bytes.
 * nh is the Next Header of the fixed header. */
static size_t build_v6(uint8_t *b, uint8_t tclass, uint8_t nh,
		       const uint8_t *ext, size_t ext_bytes,
		       uint16_t sport, uint16_t dport, size_t l4_bytes)
{
	const struct tu_ip ip = {
		.version = 6, .dscp = tclass >> 2, .ecn = tclass & 3,
		.proto = nh, .sport = sport, .dport = dport, .ext = ext,
		.ext_bytes = ext_bytes,
		.len_bytes = (uint32_t)(40 + ext_bytes + l4_bytes),
	};

	memset(b, 0, BUF_BYTES);
	return tu_ip_build(b, BUF_BYTES, &ip);
}

/* The default map, spelled out independently of dscp_map_default(). */
static enum pkt_class expected_default(unsigned int dscp)
{
	switch (dscp) {
	case 46: case 44:
		return CLS_EF;
	case 10: case 12: case 14:      /* AF11 AF12 AF13 */
	case 18: case 20: case 22:      /* AF21 AF22 AF23 */
	case 26: case 28: case 30:      /* AF31 AF32 AF33 */
	case 34: case 36: case 38:      /* AF41 AF42 AF43 */
		return CLS_AF;
	default:
		return CLS_CS0;
	}
}

static void test_names(void **state)
{
	static const struct tu_name classes[] = {
		{ CLS_EF, "ef" }, { CLS_AF, "af" }, { CLS_CS0, "cs0" },
	};
	static const struct tu_name verdicts[] = {
		{ IP_OK, "ok" }, { IP_EMPTY, "empty" },
		{ IP_BAD_VERSION, "bad_version" }, { IP_SHORT, "short" },
		{ IP_BAD_IHL, "bad_ihl" }, { IP_BAD_LENGTH, "bad_length" },
		{ IP_BAD_CHECKSUM, "bad_checksum" },
	};

	(void)state;
	tu_assert_names(cls_name, classes, TU_LEN(classes));
	tu_assert_names(ip_verdict_name, verdicts, TU_LEN(verdicts));
}

static void test_default_map_counts(void **state)
{
	struct dscp_map m;
	unsigned int n[NCLASS] = { 0 };

	(void)state;
	memset(&m, 0xee, sizeof(m));
	dscp_map_default(&m);
	for (unsigned int d = 0; d < 64; d++) {
		assert_int_equal(m.cls_of[d], expected_default(d));
		n[m.cls_of[d]]++;
	}
	assert_int_equal(n[CLS_EF], 2);
	assert_int_equal(n[CLS_AF], 12);
	assert_int_equal(n[CLS_CS0], 50);
}

/* A known header (the classic worked example of the IPv4 checksum):
 * 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7. */
static void test_v4_known_checksum(void **state)
{
	static const uint8_t hdr[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	uint8_t b[0x73];
	struct ip_info info;

	(void)state;
	memset(b, 0, sizeof(b));
	memcpy(b, hdr, sizeof(hdr));
	/* the builders' own checksum agrees */
	tu_ipv4_fix_checksum(b);
	assert_memory_equal(b, hdr, sizeof(hdr));
	assert_int_equal(ip_inspect(b, sizeof(b), &info), IP_OK);
	assert_int_equal(info.version, 4);
	assert_int_equal(info.dscp, 0);
	assert_int_equal(info.proto, 17);
	b[11] ^= 0x01;
	assert_int_equal(ip_inspect(b, sizeof(b), &info), IP_BAD_CHECKSUM);
}

/* b inspects as IP version `version`, DSCP dscp, protocol proto, and the
 * default map classes it as expected_default() does. */
static void expect_inspect(const uint8_t *b, size_t len, unsigned version,
			   unsigned dscp, unsigned proto)
{
	struct dscp_map def;
	struct ip_info info;

	dscp_map_default(&def);
	memset(&info, 0, sizeof(info));
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	assert_int_equal(info.version, version);
	assert_int_equal(info.dscp, dscp);
	assert_int_equal(info.proto, proto);
	assert_int_equal(def.cls_of[info.dscp], expected_default(dscp));
}

static void test_v4_all_dscp(void **state)
{
	struct dscp_map custom;
	uint8_t b[BUF_BYTES];

	(void)state;
	/* a custom map: CS1 (8) is EF, CS0 (0) is AF, EF (46) demoted */
	dscp_map_default(&custom);
	custom.cls_of[8] = CLS_EF;
	custom.cls_of[0] = CLS_AF;
	custom.cls_of[46] = CLS_CS0;

	for (unsigned int d = 0; d < 64; d++) {
		/* ECN bits must not leak into the DSCP */
		size_t len = build_v4(b, (uint8_t)(d << 2 | (d & 3)), 17,
				      1000, 2000, 30, 0);

		expect_inspect(b, len, 4, d, 17);
		if (d == 8)
			assert_int_equal(custom.cls_of[d], CLS_EF);
		else if (d == 0)
			assert_int_equal(custom.cls_of[d], CLS_AF);
		else if (d == 46)
			assert_int_equal(custom.cls_of[d], CLS_CS0);
		else
			assert_int_equal(custom.cls_of[d], expected_default(d));
	}
}

static void test_v6_all_dscp(void **state)
{
	struct dscp_map custom;
	uint8_t b[BUF_BYTES];

	(void)state;
	memset(&custom, CLS_CS0, sizeof(custom));
	for (unsigned int d = 32; d < 64; d++)
		custom.cls_of[d] = CLS_AF;      /* "upper half is AF" */
	custom.cls_of[63] = CLS_EF;

	for (unsigned int d = 0; d < 64; d++) {
		size_t len = build_v6(b, (uint8_t)(d << 2 | (~d & 3)), 6,
				      NULL, 0, 40000, 80, 20);

		expect_inspect(b, len, 6, d, 6);
		assert_int_equal(custom.cls_of[d],
				 d == 63 ? CLS_EF : d >= 32 ? CLS_AF : CLS_CS0);
	}
}

/* The verdict, and *out untouched on refusal. */
static void check_verdict(const uint8_t *b, size_t len, enum ip_verdict want)
{
	struct ip_info info, untouched;

	memset(&info, 0xa5, sizeof(info));
	memcpy(&untouched, &info, sizeof(info));
	assert_int_equal(ip_inspect(b, len, &info), want);
	if (want != IP_OK)
		assert_memory_equal(&info, &untouched, sizeof(info));
}

static void test_v4_verdicts(void **state)
{
	uint8_t b[BUF_BYTES];
	size_t len;

	(void)state;
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	check_verdict(b, len, IP_OK);

	check_verdict(b, 0, IP_EMPTY);

	/* version 5, 0 and 15 */
	b[0] = 0x55;
	check_verdict(b, len, IP_BAD_VERSION);
	b[0] = 0x05;
	check_verdict(b, len, IP_BAD_VERSION);
	b[0] = 0xf5;
	check_verdict(b, len, IP_BAD_VERSION);

	/* truncated below the fixed header */
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	check_verdict(b, 19, IP_SHORT);
	check_verdict(b, 1, IP_SHORT);

	/* IHL below 5 */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		len = build_v4(b, 0, 17, 1, 2, 30, 0);
		b[0] = (uint8_t)(0x40 | ihl);
		check_verdict(b, len, IP_BAD_IHL);
	}
	/* IHL 15 (60 bytes) in a 40-byte packet */
	len = build_v4(b, 0, 6, 1, 2, 20, 0);
	assert_int_equal(len, 40);
	b[0] = 0x4f;
	tu_ipv4_fix_checksum(b);
	check_verdict(b, len, IP_BAD_IHL);
	/* a header exactly as long as the packet is fine (no L4 at all) */
	len = build_v4(b, 0, 6, 1, 2, 0, 10);
	assert_int_equal(len, 60);
	check_verdict(b, len, IP_OK);

	/* lying total length, checksum kept valid */
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	tu_put16(b + 2, (uint16_t)(len + 1));
	tu_ipv4_fix_checksum(b);
	check_verdict(b, len, IP_BAD_LENGTH);
	tu_put16(b + 2, (uint16_t)(len - 1));
	tu_ipv4_fix_checksum(b);
	check_verdict(b, len, IP_BAD_LENGTH);
	/* truncated packet: the buffer is shorter than the header says */
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	check_verdict(b, len - 1, IP_BAD_LENGTH);
	check_verdict(b, 20, IP_BAD_LENGTH);
	/* trailing garbage after the packet is refused too */
	check_verdict(b, len + 1, IP_BAD_LENGTH);

	/* bad checksum, in the checksum field and elsewhere in the header */
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	b[10] ^= 0x80;
	check_verdict(b, len, IP_BAD_CHECKSUM);
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	b[8]--;                         /* TTL changed, checksum not updated */
	check_verdict(b, len, IP_BAD_CHECKSUM);
	/* options are covered by the checksum */
	len = build_v4(b, 0, 17, 1, 2, 30, 2);
	check_verdict(b, len, IP_OK);
	b[21] ^= 0x40;
	check_verdict(b, len, IP_BAD_CHECKSUM);
}

static void test_v4_check_order(void **state)
{
	uint8_t b[BUF_BYTES];
	size_t len;

	(void)state;
	/* bad IHL and bad length and bad checksum: IHL is reported */
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	b[0] = 0x44;
	tu_put16(b + 2, 999);
	check_verdict(b, len, IP_BAD_IHL);
	/* bad length and bad checksum: length is reported */
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	tu_put16(b + 2, 999);
	check_verdict(b, len, IP_BAD_LENGTH);
}

static void test_v6_verdicts(void **state)
{
	/* hop-by-hop header claiming 16 bytes (hdr ext len 1) */
	static const uint8_t hbh_long[8] = { 17, 1, 1, 4, 0, 0, 0, 0 };
	/* hop-by-hop 8 bytes, then a routing header claiming 24 bytes */
	static const uint8_t hbh_then_rt_long[16] = {
		43, 0, 1, 4, 0, 0, 0, 0,
		17, 2, 0, 0, 0, 0, 0, 0,
	};
	uint8_t b[BUF_BYTES];
	size_t len;

	(void)state;
	len = build_v6(b, 0, 17, NULL, 0, 1, 2, 8);
	check_verdict(b, len, IP_OK);

	check_verdict(b, 39, IP_SHORT);
	check_verdict(b, 2, IP_SHORT);

	/* payload length lying both ways, and a truncated buffer */
	tu_put16(b + 4, 9);
	check_verdict(b, len, IP_BAD_LENGTH);
	tu_put16(b + 4, 7);
	check_verdict(b, len, IP_BAD_LENGTH);
	tu_put16(b + 4, 8);
	check_verdict(b, len - 1, IP_BAD_LENGTH);
	check_verdict(b, len + 1, IP_BAD_LENGTH);
	check_verdict(b, len, IP_OK);
	/* payload length 0 with a payload (no jumbograms on a tun) */
	tu_put16(b + 4, 0);
	check_verdict(b, len, IP_BAD_LENGTH);

	/* extension header chain running past the end of the packet */
	len = build_v6(b, 0, 0, hbh_long, sizeof(hbh_long), 1, 2, 4);
	check_verdict(b, len, IP_BAD_LENGTH);       /* 8 + 4 < 16 */
	len = build_v6(b, 0, 0, hbh_long, sizeof(hbh_long), 1, 2, 8);
	check_verdict(b, len, IP_OK);               /* exactly 16: fine */
	len = build_v6(b, 0, 0, hbh_then_rt_long, sizeof(hbh_then_rt_long),
		       1, 2, 8);
	check_verdict(b, len, IP_BAD_LENGTH);       /* 8 + 16 < 8 + 24 */
	/* next header says hop-by-hop but the payload is empty or 1 byte */
	len = build_v6(b, 0, 0, NULL, 0, 0, 0, 0);
	check_verdict(b, len, IP_BAD_LENGTH);
	len = build_v6(b, 0, 60, NULL, 0, 0, 0, 1);
	check_verdict(b, len, IP_BAD_LENGTH);
	/* a fragment header cut short */
	len = build_v6(b, 0, 44, NULL, 0, 0, 0, 6);
	check_verdict(b, len, IP_BAD_LENGTH);
	/* no next header (59) and an empty payload are well-formed */
	len = build_v6(b, 0, 59, NULL, 0, 0, 0, 0);
	check_verdict(b, len, IP_OK);
}

static uint32_t hash_of(const uint8_t *b, size_t len)
{
	struct ip_info info;

	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	return info.flow_hash;
}

static void test_v4_flow_hash(void **state)
{
	uint8_t b[BUF_BYTES];
	size_t len;
	uint32_t h, h2;

	(void)state;
	len = build_v4(b, 0, 17, 5000, 6000, 30, 0);
	h = hash_of(b, len);
	assert_int_not_equal(h, 0);
	assert_int_equal(hash_of(b, len), h);   /* deterministic */

	/* same tuple, different DSCP, TTL, id, payload, options: same flow */
	len = build_v4(b, 0xb8, 17, 5000, 6000, 100, 3);
	b[8] = 3;
	tu_put16(b + 4, 0x9999);
	tu_ipv4_fix_checksum(b);
	assert_int_equal(hash_of(b, len), h);

	/* a different port, either one, or the protocol: a different flow */
	len = build_v4(b, 0, 17, 5001, 6000, 30, 0);
	assert_int_not_equal(hash_of(b, len), h);
	len = build_v4(b, 0, 17, 5000, 6001, 30, 0);
	assert_int_not_equal(hash_of(b, len), h);
	len = build_v4(b, 0, 6, 5000, 6000, 30, 0);
	assert_int_not_equal(hash_of(b, len), h);
	/* ports swapped: direction-sensitive */
	len = build_v4(b, 0, 17, 6000, 5000, 30, 0);
	assert_int_not_equal(hash_of(b, len), h);
	/* a different address */
	len = build_v4(b, 0, 17, 5000, 6000, 30, 0);
	b[15] = 9;
	tu_ipv4_fix_checksum(b);
	assert_int_not_equal(hash_of(b, len), h);

	/* TCP, SCTP and UDP-Lite use their ports too */
	{
		static const uint8_t protos[] = { 6, 17, 132, 136 };

		for (size_t i = 0; i < sizeof(protos); i++) {
			len = build_v4(b, 0, protos[i], 1, 2, 20, 0);
			h2 = hash_of(b, len);
			len = build_v4(b, 0, protos[i], 1, 3, 20, 0);
			assert_int_not_equal(hash_of(b, len), h2);
		}
	}
	/* ICMP has no ports: the bytes at the L4 offset are ignored */
	len = build_v4(b, 0, 1, 1, 2, 20, 0);
	h2 = hash_of(b, len);
	len = build_v4(b, 0, 1, 3, 4, 20, 0);
	assert_int_equal(hash_of(b, len), h2);

	/* non-first fragment: no ports */
	len = build_v4(b, 0, 17, 5000, 6000, 30, 0);
	tu_put16(b + 6, 0x00b9);            /* offset 185 * 8 */
	tu_ipv4_fix_checksum(b);
	h2 = hash_of(b, len);
	len = build_v4(b, 0, 17, 1, 2, 30, 0);
	tu_put16(b + 6, 0x2001);            /* MF + offset 8 */
	tu_ipv4_fix_checksum(b);
	assert_int_equal(hash_of(b, len), h2);
	/* ...and that is the hash of the zero-port tuple */
	len = build_v4(b, 0, 17, 0, 0, 30, 0);
	assert_int_equal(hash_of(b, len), h2);
	/* first fragment (MF, offset 0): ports are used */
	len = build_v4(b, 0, 17, 5000, 6000, 30, 0);
	tu_put16(b + 6, 0x2000);
	tu_ipv4_fix_checksum(b);
	assert_int_equal(hash_of(b, len), h);

	/* L4 header cut short (3 bytes): accepted, hashed without ports */
	len = build_v4(b, 0, 17, 0, 0, 3, 0);
	b[20] = 0x13;
	b[21] = 0x88;
	b[22] = 0x17;
	tu_ipv4_fix_checksum(b);
	h2 = hash_of(b, len);
	len = build_v4(b, 0, 17, 0, 0, 30, 0);
	assert_int_equal(hash_of(b, len), h2);
	/* exactly the four port bytes: used */
	len = build_v4(b, 0, 17, 5000, 6000, 4, 0);
	assert_int_equal(hash_of(b, len), h);
}

static void test_v6_flow_hash_and_ext(void **state)
{
	/* hop-by-hop (8) -> destination options (16) -> routing (8) -> UDP */
	static const uint8_t chain[32] = {
		60, 0, 1, 4, 0, 0, 0, 0,
		43, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		17, 0, 0, 0, 0, 0, 0, 0,
	};
	/* a first fragment (offset 0, M) -> UDP */
	static const uint8_t frag_first[8] = { 17, 0, 0x00, 0x01, 0, 0, 0, 7 };
	/* a non-first fragment (offset 100) of a UDP datagram */
	static const uint8_t frag_later[8] = { 17, 0, 0x03, 0x20, 0, 0, 0, 7 };
	/* AH (length 4 -> 24 bytes) -> TCP */
	static const uint8_t ah[24] = { 6, 4, 0, 0 };
	uint8_t b[BUF_BYTES], ext[BUF_BYTES];
	struct ip_info info;
	size_t len;
	uint32_t h, h0;

	(void)state;
	len = build_v6(b, 0, 17, NULL, 0, 5000, 6000, 8);
	h = hash_of(b, len);
	assert_int_not_equal(h, 0);
	len = build_v6(b, 0, 17, NULL, 0, 0, 0, 8);
	h0 = hash_of(b, len);
	assert_int_not_equal(h0, h);

	/* the ports and the L4 protocol are found behind the chain, and the
	 * tuple hashes the same as without extension headers */
	len = build_v6(b, 0xb8, 0, chain, sizeof(chain), 5000, 6000, 8);
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	assert_int_equal(info.proto, 17);
	assert_int_equal(info.dscp, 46);
	assert_int_equal(info.flow_hash, h);
	len = build_v6(b, 0, 0, chain, sizeof(chain), 5000, 6001, 8);
	assert_int_not_equal(hash_of(b, len), h);

	len = build_v6(b, 0, 44, frag_first, sizeof(frag_first), 5000, 6000, 8);
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	assert_int_equal(info.proto, 17);
	assert_int_equal(info.flow_hash, h);

	len = build_v6(b, 0, 44, frag_later, sizeof(frag_later), 5000, 6000, 8);
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	assert_int_equal(info.proto, 17);
	assert_int_equal(info.flow_hash, h0);

	len = build_v6(b, 0, 51, ah, sizeof(ah), 5000, 6000, 20);
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	assert_int_equal(info.proto, 6);
	h0 = info.flow_hash;
	len = build_v6(b, 0, 6, NULL, 0, 5000, 6000, 20);
	assert_int_equal(hash_of(b, len), h0);

	/* ICMPv6: no ports */
	len = build_v6(b, 0, 58, NULL, 0, 1, 2, 8);
	h0 = hash_of(b, len);
	len = build_v6(b, 0, 58, NULL, 0, 3, 4, 8);
	assert_int_equal(hash_of(b, len), h0);

	/* swapped addresses: direction-sensitive */
	len = build_v6(b, 0, 17, NULL, 0, 5000, 6000, 8);
	memcpy(b + 8, tu_v6_dst, 16);
	memcpy(b + 24, tu_v6_src, 16);
	assert_int_not_equal(hash_of(b, len), h);

	/* a long chain of destination options (20 x 8 bytes) is walked only
	 * so far: accepted, the ports behind it are not used */
	for (int i = 0; i < 20; i++) {
		memset(ext + 8 * i, 0, 8);
		ext[8 * i] = i == 19 ? 17 : 60;
	}
	len = build_v6(b, 0, 60, ext, 160, 5000, 6000, 8);
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	h0 = info.flow_hash;
	assert_int_equal(info.proto, 60);
	len = build_v6(b, 0, 60, ext, 160, 1, 2, 8);
	assert_int_equal(hash_of(b, len), h0);
	assert_int_not_equal(h0, h);
	/* three of them are walked to the UDP ports */
	ext[16] = 17;
	len = build_v6(b, 0, 60, ext, 24, 5000, 6000, 8);
	assert_int_equal(ip_inspect(b, len, &info), IP_OK);
	assert_int_equal(info.proto, 17);
	assert_int_equal(info.flow_hash, h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_default_map_counts),
		cmocka_unit_test(test_v4_known_checksum),
		cmocka_unit_test(test_v4_all_dscp),
		cmocka_unit_test(test_v6_all_dscp),
		cmocka_unit_test(test_v4_verdicts),
		cmocka_unit_test(test_v4_check_order),
		cmocka_unit_test(test_v6_verdicts),
		cmocka_unit_test(test_v4_flow_hash),
		cmocka_unit_test(test_v6_flow_hash_and_ext),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
