/* test_tso.c - splitting IFF_VNET_HDR super-packets (src/pkt/tso.c).
 *
 * Super-packets are built here as the kernel hands them to a tun (virtio
 * header little-endian, NEEDS_CSUM at the L4 checksum holding the
 * pseudo-header sum), split into pool packets, and every segment is
 * checked against an oracle written independently of tso.c: lengths,
 * IPv4 ID, TCP sequence numbers and flags, the other header bytes
 * unchanged, both checksums by summing the finished packet (RFC 1071 over
 * pseudo-header + segment = 0xffff, byte by byte), and the payloads
 * concatenated = the original payload.  Malformed buffers are copied into
 * heap blocks of their exact size, so that AddressSanitizer catches any
 * read past the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/pkt.h"
#include "pkt/tso.h"
#include "testutil.h"

#define VH TSO_VNET_HDR_BYTES
#define F_NEEDS_CSUM 1u
#define GSO_NONE  0u
#define GSO_TCPV4 1u
#define GSO_UFO   3u
#define GSO_TCPV6 4u
#define GSO_ECN   0x80u
#define TCP_FIN 0x01u
#define TCP_SYN 0x02u
#define TCP_PSH 0x08u
#define TCP_ACK 0x10u
#define TCP_URG 0x20u
#define TCP_ECE 0x40u
#define TCP_CWR 0x80u

/* ---- building super-packets -------------------------------------------- */

struct super {
	int      v6;
	uint8_t  proto;                 /* 6 or 17 */
	uint32_t payload_bytes;
	uint16_t mss;                   /* gso_size; 0: a plain packet */
	uint8_t  tcp_flags;
	unsigned tcp_opt_words;         /* TCP options, 4-byte words */
	uint32_t seq;
	uint8_t  gso_type;              /* 0: from v6/proto (GSO if mss) */
};

static uint8_t  sbuf[TSO_READ_BYTES + 1];       /* the last super-packet built */
static uint8_t  payload[65536];         /* its payload */
static uint64_t rng = 10;

/* A virtio header field (little-endian). */
static void put_le16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

/* Builds sp into sbuf (virtio header + IP packet) as the kernel would hand
 * it over: NEEDS_CSUM, the L4 checksum field holding the folded
 * pseudo-header sum over the whole L4 length (not complemented), hdr_len
 * the headers' length.  Returns the read's length. */
static size_t build(const struct super *sp)
{
	uint32_t l3 = sp->v6 ? 40 : 20;
	uint32_t l4h = sp->proto == 6 ? 20 + 4 * sp->tcp_opt_words : 8;
	struct tu_ip ip = { .version = sp->v6 ? 6 : 4, .dscp = 10, .proto = sp->proto,
			    .sport = 40000, .dport = 5201,
			    .len_bytes = l3 + l4h + sp->payload_bytes };
	uint8_t *pkt = sbuf + VH, *l4 = pkt + l3;
	uint32_t ph;
	uint8_t gso = sp->gso_type;

	memset(sbuf, 0, VH);
	tu_ip_build(pkt, sizeof(sbuf) - VH, &ip);
	for (uint32_t i = 0; i < sp->payload_bytes; i++)
		payload[i] = (uint8_t)rng_next(&rng);
	memcpy(pkt + l3 + l4h, payload, sp->payload_bytes);
	if (sp->proto == 6) {
		tu_put32(l4 + 4, sp->seq);
		tu_put32(l4 + 8, 0x01020304);            /* ack */
		l4[12] = (uint8_t)((l4h / 4) << 4);
		l4[13] = sp->tcp_flags;
		tu_put16(l4 + 14, 512);                 /* window */
		tu_put16(l4 + 18, 0);                   /* urgent pointer */
		for (uint32_t i = 20; i < l4h; i++)
			l4[i] = 1;                      /* NOP options */
	} else {
		tu_put16(l4 + 4, (uint16_t)(l4h + sp->payload_bytes));
	}
	/* The partial checksum the kernel leaves (CHECKSUM_PARTIAL). */
	ph = tu_l4_pseudo(pkt, sp->proto, l4h + sp->payload_bytes);
	tu_put16(l4 + (sp->proto == 6 ? 16 : 6), tu_csum_fold(ph));
	if (!gso && sp->mss)
		gso = sp->proto == 17 ? TSO_GSO_UDP_L4 : sp->v6 ? GSO_TCPV6 : GSO_TCPV4;
	sbuf[0] = F_NEEDS_CSUM;
	sbuf[1] = gso;
	put_le16(sbuf + 2, (uint16_t)(l3 + l4h));
	put_le16(sbuf + 4, sp->mss);
	put_le16(sbuf + 6, (uint16_t)l3);
	put_le16(sbuf + 8, sp->proto == 6 ? 16 : 6);
	return VH + ip.len_bytes;
}

/* ---- splitting and checking ------------------------------------------ */

/* Splits sbuf[0..len) into pool packets of the pool's capacity and checks
 * each segment against sp; frees them.  Returns the segment count. */
static unsigned split_check(const struct super *sp, size_t len)
{
	const uint8_t *orig = sbuf + VH;
	uint32_t l3 = sp->v6 ? 40 : 20;
	uint32_t l4h = sp->proto == 6 ? 20 + 4 * sp->tcp_opt_words : 8;
	uint32_t hl = l3 + l4h, off = 0;
	uint32_t want = sp->payload_bytes <= sp->mss ? 1 :
			(sp->payload_bytes + sp->mss - 1) / sp->mss;
	struct tso_split s;
	unsigned i = 0;

	assert_int_equal(tso_begin(&s, sbuf, len, pkt_pool_cap_bytes()), TSO_OK);
	assert_int_equal(tso_left(&s), want);
	while (tso_left(&s)) {
		struct pkt *p = pkt_alloc();
		uint32_t n = sp->payload_bytes - off < sp->mss ?
			     sp->payload_bytes - off : sp->mss;
		int last = i + 1 == want;
		uint8_t *q, *l4;

		assert_non_null(p);
		p->len_bytes = tso_next(&s, p->data);
		q = p->data;
		l4 = q + l3;
		assert_int_equal(p->len_bytes, hl + n);
		assert_true(p->len_bytes <= pkt_pool_cap_bytes());
		if (sp->v6) {
			assert_int_equal(tu_get16(q + 4), l4h + n);
			assert_memory_equal(q, orig, 4);
			assert_memory_equal(q + 6, orig + 6, 34);
		} else {
			assert_int_equal(tu_get16(q + 2), hl + n);
			assert_int_equal(tu_get16(q + 4), (uint16_t)(0x1234 + i));
			assert_int_equal(tu_csum_fold(tu_csum_sum(0, q, 20)), 0xffff);
			assert_memory_equal(q, orig, 2);
			assert_memory_equal(q + 6, orig + 6, 4);    /* DF, TTL, proto */
			assert_memory_equal(q + 12, orig + 12, 8);
		}
		if (sp->proto == 6) {
			uint8_t f = sp->tcp_flags;

			if (!last)
				f &= (uint8_t)~(TCP_FIN | TCP_PSH);
			if (i)
				f &= (uint8_t)~TCP_CWR;
			assert_int_equal(tu_get32(l4 + 4), (uint32_t)(sp->seq + off));
			assert_int_equal(l4[13], f);
			assert_memory_equal(l4, orig + l3, 4);          /* ports */
			assert_memory_equal(l4 + 8, orig + l3 + 8, 5);  /* ack, doff */
			assert_memory_equal(l4 + 14, orig + l3 + 14, 2);
			assert_memory_equal(l4 + 18, orig + l3 + 18, l4h - 18);
		} else {
			assert_int_equal(tu_get16(l4 + 4), 8 + n);
			assert_memory_equal(l4, orig + l3, 4);
			assert_int_not_equal(tu_get16(l4 + 6), 0);
		}
		tu_assert_l4_csum(q, p->len_bytes, l3);
		assert_memory_equal(q + hl, payload + off, n);
		off += n;
		i++;
		pkt_free(p);
	}
	assert_int_equal(off, sp->payload_bytes);
	assert_int_equal(tso_next(&s, sbuf), 0);        /* none left: no write */
	return i;
}

/* 64 KiB of IPv4 TCP with options, all flags that move: 49 segments, the
 * last one short. */
static void test_tcp4_split(void **state)
{
	struct super sp = { .proto = 6, .payload_bytes = 65535 - 40 - 12,
			    .mss = 1348, .tcp_flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR | TCP_ECE,
			    .tcp_opt_words = 3, .seq = 1000 };

	(void)state;
	assert_int_equal(split_check(&sp, build(&sp)), 49);     /* short last one */
}

/* IPv6 TCP, URG copied to every segment, the sequence number wrapping. */
static void test_tcp6_split(void **state)
{
	struct super sp = { .v6 = 1, .proto = 6, .payload_bytes = 20000,
			    .mss = 1328, .tcp_flags = TCP_ACK | TCP_PSH | TCP_URG,
			    .tcp_opt_words = 3, .seq = 0xfffff000u };  /* wraps */

	(void)state;
	assert_int_equal(split_check(&sp, build(&sp)), 16);
}

/* A payload that is a whole number of segments: the last one full. */
static void test_tcp4_exact_multiple(void **state)
{
	struct super sp = { .proto = 6, .payload_bytes = 4 * 1360, .mss = 1360,
			    .tcp_flags = TCP_ACK | TCP_FIN, .seq = 7 };

	(void)state;
	assert_int_equal(split_check(&sp, build(&sp)), 4);
}

/* Payload not above gso_size: one segment, FIN/PSH/CWR kept (the kernel
 * leaves such a packet as it is). */
static void test_tcp_one_segment(void **state)
{
	struct super sp = { .proto = 6, .payload_bytes = 100, .mss = 1360,
			    .tcp_flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR, .seq = 5 };

	(void)state;
	assert_int_equal(split_check(&sp, build(&sp)), 1);
	sp.v6 = 1;
	sp.payload_bytes = 0;
	assert_int_equal(split_check(&sp, build(&sp)), 1);
}

/* The ECN bit of gso_type changes nothing but is accepted. */
static void test_tcp_ecn_gso_type(void **state)
{
	struct super sp = { .proto = 6, .payload_bytes = 5000, .mss = 1000,
			    .tcp_flags = TCP_ACK | TCP_CWR, .gso_type = GSO_TCPV4 | GSO_ECN };

	(void)state;
	assert_int_equal(split_check(&sp, build(&sp)), 5);
}

/* USO: UDP length and checksum per segment, both families. */
static void test_udp_l4_split(void **state)
{
	struct super sp = { .proto = 17, .payload_bytes = 10000, .mss = 1200 };

	(void)state;
	assert_int_equal(split_check(&sp, build(&sp)), 9);
	sp.v6 = 1;
	assert_int_equal(split_check(&sp, build(&sp)), 9);
}

/* Many sizes against the oracle, both families. */
static void test_sizes_sweep(void **state)
{
	static const uint16_t mss[] = { 48, 536, 1000, 1360, 1440 };

	(void)state;
	for (size_t m = 0; m < TU_LEN(mss); m++)
		for (uint32_t pl = 1; pl < 9000; pl += 997) {
			struct super sp = { .v6 = (int)(pl & 1), .proto = 6,
					    .payload_bytes = pl, .mss = mss[m],
					    .tcp_flags = TCP_ACK | TCP_PSH,
					    .seq = (uint32_t)rng_next(&rng) };

			split_check(&sp, build(&sp));
		}
}

/* A plain packet without NEEDS_CSUM is copied as it is. */
static void test_plain_copied(void **state)
{
	struct super sp = { .proto = 6, .payload_bytes = 1000 };
	size_t len = build(&sp);
	struct tso_split s;
	struct pkt *p = pkt_alloc();

	(void)state;
	sbuf[0] = 0;
	assert_int_equal(tso_begin(&s, sbuf, len, pkt_pool_cap_bytes()), TSO_OK);
	assert_int_equal(tso_left(&s), 1);
	assert_int_equal(tso_next(&s, p->data), len - VH);
	assert_memory_equal(p->data, sbuf + VH, len - VH);
	assert_int_equal(tso_left(&s), 0);
	pkt_free(p);
}

/* NEEDS_CSUM on a plain packet: completed from the partial sum. */
static void test_plain_needs_csum(void **state)
{
	static const int v6s[] = { 0, 1 };
	static const uint8_t protos[] = { 6, 17 };

	(void)state;
	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 2; b++) {
			struct super sp = { .v6 = v6s[a], .proto = protos[b],
					    .payload_bytes = 777, .tcp_flags = TCP_SYN };
			size_t len = build(&sp);
			struct tso_split s;
			struct pkt *p = pkt_alloc();
			uint32_t l3 = sp.v6 ? 40 : 20;

			assert_int_equal(tso_begin(&s, sbuf, len, pkt_pool_cap_bytes()),
					 TSO_OK);
			assert_int_equal(tso_next(&s, p->data), len - VH);
			tu_assert_l4_csum(p->data, len - VH, l3);
			/* Nothing but the checksum field changed. */
			size_t cs = l3 + (protos[b] == 6 ? 16 : 6);
			assert_memory_equal(p->data, sbuf + VH, cs);
			assert_memory_equal(p->data + cs + 2, sbuf + VH + cs + 2,
					    len - VH - cs - 2);
			pkt_free(p);
		}
}

/* A UDP checksum that computes to 0 is sent as 0xffff (RFC 768). */
static void test_udp_zero_csum(void **state)
{
	struct super sp = { .proto = 17, .payload_bytes = 100 };
	size_t len = build(&sp);
	uint8_t *pkt = sbuf + VH, *last = pkt + len - VH - 2;
	struct tso_split s;
	struct pkt *p = pkt_alloc();
	uint16_t need;

	(void)state;
	/* Choose the last payload word so that the sum is 0xffff. */
	tu_put16(last, 0);
	need = (uint16_t)~tu_csum_fold(tu_csum_sum(0, pkt + 20, len - VH - 20));
	tu_put16(last, need);
	assert_int_equal(tu_csum_fold(tu_csum_sum(0, pkt + 20, len - VH - 20)), 0xffff);
	assert_int_equal(tso_begin(&s, sbuf, len, pkt_pool_cap_bytes()), TSO_OK);
	assert_int_equal(tso_next(&s, p->data), len - VH);
	assert_int_equal(tu_get16(p->data + 26), 0xffff);
	tu_assert_l4_csum(p->data, len - VH, 20);
	pkt_free(p);
}

/* The pool runs dry half-way: the caller writes what it has buffers for
 * and the rest are left (its pool_empty drops); nothing leaks. */
static void test_pool_runs_dry(void **state)
{
	struct super sp = { .proto = 6, .payload_bytes = 10 * 1000, .mss = 1000,
			    .tcp_flags = TCP_ACK };
	size_t len = build(&sp);
	struct tso_split s;
	struct pkt *held[TU_POOL_PKTS];
	unsigned got = 0, n = 0;
	struct pkt *p;

	(void)state;
	while (pkt_pool_in_use() < pkt_pool_size() - 4)
		held[n++] = pkt_alloc();
	assert_int_equal(tso_begin(&s, sbuf, len, pkt_pool_cap_bytes()), TSO_OK);
	while (tso_left(&s) && (p = pkt_alloc()) != NULL) {
		assert_true(tso_next(&s, p->data) > 0);
		held[n++] = p;
		got++;
	}
	assert_int_equal(got, 4);
	assert_int_equal(tso_left(&s), 6);
	while (n)
		pkt_free(held[--n]);
}

/* ---- malformed buffers -------------------------------------------------- */

/* tso_begin on an exact-size heap copy of sbuf[0..len) must give want
 * and leave no segment to write. */
static void expect_refused(size_t len, uint32_t cap, enum tso_verdict want,
			   const char *what)
{
	uint8_t *b = malloc(len ? len : 1);
	struct tso_split s;
	enum tso_verdict v;

	assert_non_null(b);
	memcpy(b, sbuf, len);
	v = tso_begin(&s, b, len, cap);
	if (v != want)
		fail_msg("%s: verdict %s, want %s", what, tso_verdict_name[v],
			 tso_verdict_name[want]);
	if (want != TSO_OK)
		assert_int_equal(tso_left(&s), 0);
	free(b);
}

/* Re-validates sbuf's IPv4 header checksum after an edit, so that a case
 * tests the one fault it made. */
static void fix4(void)
{
	tu_ipv4_fix_checksum(sbuf + VH);
}

/* Each fault alone, refused with its own reason; the limits themselves
 * (gso_size 2, a segment exactly at the MTU, the checksum field in the
 * last two bytes, hdr_len = the whole packet) accepted. */
static void test_malformed(void **state)
{
	struct super t4 = { .proto = 6, .payload_bytes = 4000, .mss = 1000,
			    .tcp_flags = TCP_ACK };
	struct super t6 = t4;
	uint8_t *ip = sbuf + VH;
	uint32_t cap = pkt_pool_cap_bytes();
	size_t len;

	(void)state;
	t6.v6 = 1;
	len = build(&t4);
	expect_refused(len, cap, TSO_OK, "the valid one");
	expect_refused(0, cap, TSO_SHORT, "empty read");
	expect_refused(VH, cap, TSO_SHORT, "header only");
	expect_refused(VH + 19, cap, TSO_SHORT, "GSO shorter than IPv4");
	sbuf[0] = 0x04;
	expect_refused(len, cap, TSO_BAD_FLAGS, "unknown flag");
	build(&t4);
	sbuf[1] = GSO_UFO;
	expect_refused(len, cap, TSO_BAD_GSO_TYPE, "UFO");
	sbuf[1] = 2;
	expect_refused(len, cap, TSO_BAD_GSO_TYPE, "gso type 2");
	sbuf[1] = GSO_TCPV6;
	expect_refused(len, cap, TSO_BAD_IP, "TCPV6 naming an IPv4 packet");
	build(&t4);
	ip[0] = 0x44;
	expect_refused(len, cap, TSO_BAD_IP, "IHL 4");
	build(&t4);
	ip[6] |= 0x20;
	fix4();
	expect_refused(len, cap, TSO_BAD_IP, "MF");
	build(&t4);
	ip[7] = 1;
	fix4();
	expect_refused(len, cap, TSO_BAD_IP, "fragment offset");
	build(&t4);
	ip[10] ^= 1;
	expect_refused(len, cap, TSO_BAD_IP, "IPv4 header checksum");
	build(&t4);
	expect_refused(len - 100, cap, TSO_BAD_LENGTH, "truncated read");
	tu_put16(ip + 2, (uint16_t)(len - VH + 1));
	fix4();
	expect_refused(len, cap, TSO_BAD_LENGTH, "total length past the read");
	build(&t4);
	ip[9] = 17;
	fix4();
	expect_refused(len, cap, TSO_BAD_PROTO, "UDP in TCPV4");
	build(&t4);
	ip[20 + 12] = 0x40;
	expect_refused(len, cap, TSO_BAD_L4_HDR, "TCP doff 4");
	build(&t4);
	put_le16(sbuf + 2, (uint16_t)(len - VH + 1));
	expect_refused(len, cap, TSO_BAD_HDR_LEN, "hdr_len past the end");
	put_le16(sbuf + 2, (uint16_t)(len - VH));
	expect_refused(len, cap, TSO_OK, "hdr_len = skb_headlen is allowed");
	put_le16(sbuf + 6, 24);
	expect_refused(len, cap, TSO_BAD_CSUM, "csum_start not at TCP");
	put_le16(sbuf + 6, 20);
	put_le16(sbuf + 8, 6);
	expect_refused(len, cap, TSO_BAD_CSUM, "csum_offset not TCP's");
	build(&t4);
	put_le16(sbuf + 4, 0);
	expect_refused(len, cap, TSO_BAD_GSO_SIZE, "gso_size 0");
	put_le16(sbuf + 4, 1);
	expect_refused(len, cap, TSO_TOO_MANY_SEGS, "gso_size 1: 4000 segments");
	put_le16(sbuf + 4, 2);
	expect_refused(len, cap, TSO_OK, "gso_size 2: 2000 segments");
	build(&t4);
	expect_refused(len, 1000 + 40 - 1, TSO_SEG_TOO_BIG, "segment over the MTU");
	expect_refused(len, 1000 + 40, TSO_OK, "segment at the MTU");
	expect_refused(TSO_READ_BYTES + 1, cap, TSO_BAD_LENGTH, "longer than any read");

	/* A TCP header that runs past the end of a small GSO packet. */
	t4.payload_bytes = 0;
	len = build(&t4);
	ip[20 + 12] = 0x60;
	expect_refused(len, cap, TSO_BAD_L4_HDR, "TCP header past the end");
	t4.payload_bytes = 4000;

	len = build(&t6);
	expect_refused(len, cap, TSO_OK, "the valid IPv6 one");
	expect_refused(VH + 39, cap, TSO_SHORT, "GSO shorter than IPv6");
	ip[6] = 0;      /* hop-by-hop options first */
	expect_refused(len, cap, TSO_BAD_PROTO, "IPv6 extension header");
	build(&t6);
	tu_put16(ip + 4, (uint16_t)(len - VH - 40 - 1));
	expect_refused(len, cap, TSO_BAD_LENGTH, "IPv6 payload length");
	build(&t6);
	sbuf[1] = GSO_TCPV4;
	expect_refused(len, cap, TSO_BAD_IP, "TCPV4 naming an IPv6 packet");

	/* Plain packets: only what the copy and the checksum need. */
	struct super pl = { .proto = 17, .payload_bytes = 100 };

	len = build(&pl);
	expect_refused(len, cap, TSO_OK, "plain UDP with NEEDS_CSUM");
	put_le16(sbuf + 6, (uint16_t)(len - VH - 1));
	put_le16(sbuf + 8, 0);
	expect_refused(len, cap, TSO_BAD_CSUM, "field's second byte past the end");
	put_le16(sbuf + 6, (uint16_t)(len - VH - 2));
	expect_refused(len, cap, TSO_OK, "field in the last two bytes");
	put_le16(sbuf + 6, 0xffff);
	put_le16(sbuf + 8, 0xffff);
	expect_refused(len, cap, TSO_BAD_CSUM, "csum_start + offset overflow 16 bits");
	sbuf[0] = 0;
	expect_refused(len, cap, TSO_OK, "the same without NEEDS_CSUM is copied");
	expect_refused(len, (uint32_t)(len - VH - 1), TSO_SEG_TOO_BIG,
		       "plain packet over the MTU");
}

/* Random corruption of valid super-packets in exact-size buffers: a
 * verdict for each, and every segment of the accepted ones within the
 * pool's capacity (ASan watches the reads). */
static void test_random_corruption(void **state)
{
	uint64_t r = 99;
	int ok = 0;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		struct super sp = { .v6 = (int)(round & 1),
				    .proto = round % 5 == 0 ? 17 : 6,
				    .payload_bytes = (uint32_t)(rng_next(&r) % 6000),
				    .mss = (uint16_t)(500 + rng_next(&r) % 1000),
				    .tcp_flags = TCP_ACK | TCP_FIN };
		size_t len = build(&sp);
		int flips = 1 + (int)(rng_next(&r) % 4);
		uint8_t *b;
		struct tso_split s;

		for (int f = 0; f < flips; f++) {
			/* Mostly the headers, where the checks are. */
			size_t at = rng_next(&r) % (f ? len : VH + 80);

			sbuf[at < len ? at : 0] ^= (uint8_t)(1u << (rng_next(&r) % 8));
		}
		if (rng_next(&r) % 4 == 0)
			len = (size_t)(rng_next(&r) % (len + 1));
		b = malloc(len ? len : 1);
		assert_non_null(b);
		memcpy(b, sbuf, len);
		if (tso_begin(&s, b, len, pkt_pool_cap_bytes()) == TSO_OK) {
			ok++;
			while (tso_left(&s)) {
				struct pkt *p = pkt_alloc();

				assert_non_null(p);
				assert_true(tso_next(&s, p->data) <= pkt_pool_cap_bytes());
				pkt_free(p);
			}
		} else {
			assert_int_equal(tso_left(&s), 0);
		}
		free(b);
	}
	/* Payload flips leave the buffer valid: some must pass. */
	assert_true(ok > 0);
}

/* Every verdict has a stats name. */
static void test_names(void **state)
{
	(void)state;
	for (int v = 0; v < TSO_VERDICT_MAX; v++)
		assert_non_null(tso_verdict_name[v]);
	assert_string_equal(tso_verdict_name[TSO_SEG_TOO_BIG], "seg_too_big");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_POOL_TEST(test_tcp4_split),
		TU_POOL_TEST(test_tcp6_split),
		TU_POOL_TEST(test_tcp4_exact_multiple),
		TU_POOL_TEST(test_tcp_one_segment),
		TU_POOL_TEST(test_tcp_ecn_gso_type),
		TU_POOL_TEST(test_udp_l4_split),
		TU_POOL_TEST(test_sizes_sweep),
		TU_POOL_TEST(test_plain_copied),
		TU_POOL_TEST(test_plain_needs_csum),
		TU_POOL_TEST(test_udp_zero_csum),
		TU_POOL_TEST(test_pool_runs_dry),
		TU_POOL_TEST(test_malformed),
		TU_POOL_TEST(test_random_corruption),
		TU_POOL_TEST(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
