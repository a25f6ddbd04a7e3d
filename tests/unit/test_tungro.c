/* test_tungro.c - coalescing TCP segments into tun GSO super-packets
 * (src/pkt/tungro.c).
 *
 * The segments are real: a super-packet is built here as the kernel hands
 * one to a tun and cut by tso_begin()/tso_next() into pool packets, so
 * IDs, sequence numbers, flags and checksums are what a sender's kernel
 * makes.  They are fed to the coalescer the way tunwrite.c does (FLUSH:
 * flush and offer again; ALONE: flush, then the packet on its own), and
 * every write that comes out is checked: a super-packet field by field
 * (virtio header, lengths, IPv4 header checksum, the partial TCP checksum
 * = the pseudo-header sum, by an oracle summing byte by byte, and
 * completed as the kernel would it must verify), then cut again by
 * tso.c, which must give back the packets that went in byte for byte, in
 * order; a write of one packet must be that packet behind a zero header.
 * A trace string records the decisions: H held, A alone, (k) a write of k
 * packets; each case says which it expects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/pkt.h"
#include "pkt/tso.h"
#include "pkt/tungro.h"
#include "testutil.h"

#define VH TSO_VNET_HDR_BYTES
#define MAXP 160
#define TCP_FIN 0x01u
#define TCP_SYN 0x02u
#define TCP_RST 0x04u
#define TCP_PSH 0x08u
#define TCP_ACK 0x10u
#define TCP_URG 0x20u
#define TCP_ECE 0x40u
#define TCP_CWR 0x80u

/* ---- the oracle (testutil.h's tu_csum_*) ----------------------------- */

static uint16_t le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

/* ---- the segments: a super-packet cut by tso.c ------------------------- */

static struct pkt *seg[MAXP];
static unsigned nseg;

static uint64_t rng = 77;

/* Appends the segments of f to seg[]. */
static void add_flow(const struct tu_flow *f)
{
	tu_tcp_flow(f, seg, &nseg, MAXP);
}

/* The default flow: IPv4 or IPv6, 8 segments of 1000 bytes, the last
 * 500, PSH at the end, 12 bytes of TCP options. */
static struct tu_flow flow8(int v6)
{
	return (struct tu_flow){ .v6 = v6, .seq = 1000000, .id = 0x1234, .mss = 1000,
			      .payload_bytes = 7500, .last_flags = TCP_ACK | TCP_PSH,
			      .opt_words = 3 };
}

static void free_segs(void)
{
	for (unsigned i = 0; i < nseg; i++)
		pkt_free(seg[i]);
	nseg = 0;
}

/* Puts a copy of seg[at] (sport changed: another flow) before seg[at]. */
static void insert_other_flow(unsigned at)
{
	struct pkt *q = pkt_alloc();
	size_t l4;

	assert_non_null(q);
	memcpy(q->data, seg[at]->data, seg[at]->len_bytes);
	q->len_bytes = seg[at]->len_bytes;
	l4 = tu_l4_off(q->data);
	tu_put16(q->data + l4, 41000);
	tu_tcp_fix(q->data, q->len_bytes);
	memmove(&seg[at + 1], &seg[at], (nseg - at) * sizeof(seg[0]));
	seg[at] = q;
	nseg++;
}

/* Cuts cut_bytes off the end of seg[k]'s payload (lengths, checksums) and
 * moves the sequence numbers of the segments after it back to match. */
static void shorten(unsigned k, uint32_t cut_bytes)
{
	uint8_t *p = seg[k]->data;
	size_t l4 = tu_l4_off(p);

	seg[k]->len_bytes -= cut_bytes;
	if (p[0] >> 4 == 6)
		tu_put16(p + 4, (uint16_t)(seg[k]->len_bytes - 40));
	else
		tu_put16(p + 2, (uint16_t)seg[k]->len_bytes);
	tu_tcp_fix(p, seg[k]->len_bytes);
	for (unsigned i = k + 1; i < nseg; i++) {
		uint8_t *q = seg[i]->data + l4;

		tu_put32(q + 4, tu_get32(q + 4) - cut_bytes);
		tu_tcp_fix(seg[i]->data, seg[i]->len_bytes);
	}
}

/* ---- driving and checking ---------------------------------------------- */

static char trace[1024];
static unsigned next_out;               /* the input the next write must be */

static void trace_add(const char *s)
{
	size_t n = strlen(trace);

	snprintf(trace + n, sizeof(trace) - n, "%s", s);
}

/* Checks a super-packet of k >= 2 packets (buf, len bytes) against the
 * inputs seg[next_out ..]: the virtio header, the IP and TCP fields, the
 * partial checksum; then cuts it with tso.c and compares. */
static void check_super(const uint8_t *buf, size_t len, uint32_t k)
{
	static uint8_t full[TSO_READ_BYTES], done[TSO_READ_BYTES], out[2048];
	const uint8_t *ip = buf + VH, *first = seg[next_out]->data;
	const uint8_t *last = seg[next_out + k - 1]->data;
	size_t l4 = tu_l4_off(first), ip_len = len - VH, hdr;
	uint32_t payload = 0;
	struct tso_split s;

	hdr = l4 + (size_t)(first[l4 + 12] >> 4) * 4;
	assert_int_equal(buf[0], TSO_F_NEEDS_CSUM);
	assert_int_equal(buf[1], first[0] >> 4 == 6 ? TSO_GSO_TCPV6 : TSO_GSO_TCPV4);
	assert_int_equal(le16(buf + 2), hdr);
	assert_int_equal(le16(buf + 4), seg[next_out]->len_bytes - hdr);
	assert_int_equal(le16(buf + 6), l4);
	assert_int_equal(le16(buf + 8), 16);
	if (first[0] >> 4 == 6) {
		assert_int_equal(tu_get16(ip + 4), ip_len - 40);
		assert_memory_equal(ip, first, 4);
		assert_memory_equal(ip + 6, first + 6, 34);
	} else {
		assert_int_equal(tu_get16(ip + 2), ip_len);
		assert_int_equal(tu_csum_fold(tu_csum_sum(0, ip, 20)), 0xffff);
		assert_memory_equal(ip, first, 2);
		assert_memory_equal(ip + 4, first + 4, 6);      /* first ID */
		assert_memory_equal(ip + 12, first + 12, 8);
	}
	/* TCP: the first's header, PSH as the last had it, the pseudo sum. */
	assert_memory_equal(ip + l4, first + l4, 13);
	assert_int_equal(ip[l4 + 13], first[l4 + 13] | (last[l4 + 13] & TCP_PSH));
	assert_memory_equal(ip + l4 + 14, first + l4 + 14, 2);
	assert_memory_equal(ip + l4 + 18, first + l4 + 18, hdr - l4 - 18);
	assert_int_equal(tu_get16(ip + l4 + 16), tu_csum_fold(tu_tcp_pseudo(ip, ip_len)));
	for (uint32_t j = 0; j < k; j++) {
		const struct pkt *q = seg[next_out + j];
		uint32_t n = q->len_bytes - (uint32_t)hdr;

		assert_true(hdr + payload + n <= ip_len);
		assert_memory_equal(ip + hdr + payload, q->data + hdr, n);
		payload += n;
	}
	assert_int_equal(hdr + payload, ip_len);
	/* Completed as the kernel does a NEEDS_CSUM packet (tso.c's plain
	 * path, skb_checksum_help), the whole TCP checksum verifies. */
	memcpy(full, buf, len);
	full[1] = 0;
	assert_int_equal(tso_begin(&s, full, len, sizeof(full)), TSO_OK);
	assert_int_equal(tso_next(&s, done), ip_len);
	assert_int_equal(tu_csum_fold(tu_csum_sum(tu_tcp_pseudo(done, ip_len), done + l4,
				      ip_len - l4)), 0xffff);
	/* Cut again: the very packets that went in. */
	assert_int_equal(tso_begin(&s, buf, len, pkt_pool_cap_bytes()), TSO_OK);
	assert_int_equal(tso_left(&s), k);
	for (uint32_t j = 0; j < k; j++) {
		uint32_t n = tso_next(&s, out);

		assert_int_equal(n, seg[next_out + j]->len_bytes);
		assert_memory_equal(out, seg[next_out + j]->data, n);
	}
}

/* tungro_flush() and the check of what it gives. */
static void flush(struct tungro *g)
{
	const uint8_t *buf = NULL;
	size_t len = 0;
	uint32_t k = tungro_flush(g, &buf, &len);
	char t[16];

	if (!k)
		return;
	snprintf(t, sizeof(t), "(%u)", k);
	trace_add(t);
	assert_true(next_out + k <= nseg);
	if (k == 1) {
		static const uint8_t zero[VH];

		assert_memory_equal(buf, zero, VH);
		assert_int_equal(len, VH + seg[next_out]->len_bytes);
		assert_memory_equal(buf + VH, seg[next_out]->data, len - VH);
	} else {
		check_super(buf, len, k);
	}
	next_out += k;
	assert_int_equal(tungro_flush(g, &buf, &len), 0);
}

/* Feeds seg[0..nseg) as tunwrite.c does, checks every write, frees the
 * segments and compares the trace with want (NULL: any). */
static void drive(const char *want)
{
	struct tungro g;

	assert_int_equal(tungro_init(&g), 0);
	trace[0] = '\0';
	next_out = 0;
	for (unsigned i = 0; i < nseg; i++) {
		enum tungro_verdict v = tungro_add(&g, seg[i]->data, seg[i]->len_bytes);

		if (v == TUNGRO_FLUSH) {
			flush(&g);
			v = tungro_add(&g, seg[i]->data, seg[i]->len_bytes);
			assert_int_not_equal(v, TUNGRO_FLUSH);
		}
		if (v == TUNGRO_ALONE) {
			flush(&g);
			assert_int_equal(next_out, i);
			next_out++;
			trace_add("A");
		} else {
			trace_add("H");
		}
	}
	flush(&g);
	assert_int_equal(next_out, nseg);
	tungro_free(&g);
	free_segs();
	if (want)
		assert_string_equal(trace, want);
}

/* pre, n H's, post: an expected trace with a long run. */
static const char *rep(const char *pre, unsigned n, const char *post)
{
	static char s[512];
	size_t l = (size_t)snprintf(s, sizeof(s), "%s", pre);

	for (unsigned i = 0; i < n; i++)
		s[l++] = 'H';
	snprintf(s + l, sizeof(s) - l, "%s", post);
	return s;
}

/* ---- the cases ----------------------------------------------------------- */

static void test_tcp4_merge(void **state)
{
	struct tu_flow f = flow8(0);

	(void)state;
	add_flow(&f);
	assert_int_equal(nseg, 8);
	drive("HHHHHHHH(8)");
}

static void test_tcp6_merge(void **state)
{
	struct tu_flow f = flow8(1);

	(void)state;
	add_flow(&f);
	drive("HHHHHHHH(8)");
}

/* All segments full, no PSH, no options; the sequence number wraps. */
static void test_exact_multiple_seq_wrap(void **state)
{
	struct tu_flow f = { .seq = 0xfffff000u, .id = 0xfffe, .mss = 1200,
			  .payload_bytes = 6000, .last_flags = TCP_ACK };

	(void)state;
	add_flow(&f);
	f.v6 = 1;
	add_flow(&f);
	drive("HHHHH(5)HHHHH(5)");
}

/* One packet: written as it came, behind a zero header. */
static void test_single(void **state)
{
	struct tu_flow f = flow8(0);

	(void)state;
	f.payload_bytes = 1000;
	f.last_flags = TCP_ACK;
	add_flow(&f);
	drive("H(1)");
}

/* PSH in the middle ends the super-packet; PSH on a first packet: alone. */
static void test_psh(void **state)
{
	struct tu_flow f = flow8(0);

	(void)state;
	add_flow(&f);
	seg[4]->data[20 + 13] |= TCP_PSH;
	tu_tcp_fix(seg[4]->data, seg[4]->len_bytes);
	drive("HHHHH(5)HHH(3)");
	add_flow(&f);
	seg[0]->data[20 + 13] |= TCP_PSH;
	tu_tcp_fix(seg[0]->data, seg[0]->len_bytes);
	drive("AHHHHHHH(7)");
}

/* A shorter payload ends it; a longer one than the first does not
 * continue. */
static void test_sizes(void **state)
{
	struct tu_flow f = flow8(1);

	(void)state;
	add_flow(&f);
	shorten(3, 100);
	drive("HHHH(4)HHHH(4)");
	add_flow(&f);
	shorten(0, 100);
	drive("H(1)HHHHHHH(7)");
}

/* A TCP checksum that does not verify: the packet is written alone and
 * unmodified (the kernel drops it), the others around it merge. */
static void test_bad_checksum(void **state)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct tu_flow f = flow8(v6);

		add_flow(&f);
		seg[3]->data[seg[3]->len_bytes - 1] ^= 0x40;
		drive("HHH(3)AHHHH(4)");
		add_flow(&f);
		tu_put16(seg[3]->data + (v6 ? 40 : 20) + 16, 0xffff);
		drive("HHH(3)AHHHH(4)");
	}
	(void)state;
}

/* Each TCP flag but ACK/PSH: alone. */
static void test_flags(void **state)
{
	static const uint8_t flags[] = { TCP_FIN, TCP_SYN, TCP_RST, TCP_URG,
					 TCP_ECE, TCP_CWR, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(flags); i++) {
		struct tu_flow f = flow8(0);

		add_flow(&f);
		seg[3]->data[20 + 13] = (uint8_t)(flags[i] ? TCP_ACK | flags[i] : 0);
		tu_tcp_fix(seg[3]->data, seg[3]->len_bytes);
		drive("HHH(3)AHHHH(4)");
	}
}

/* Edits of seg[3] that make it another flow or break the run: it starts
 * its own super-packet, which seg[4] does not continue either. */
struct edit {
	int      v6;
	unsigned off;                   /* byte of the IP packet */
	uint8_t  x;                     /* xor */
	const char *what;
};

static void test_no_continue(void **state)
{
	static const struct edit e[] = {
		{ 0, 1, 0x04, "TOS" }, { 0, 8, 0x01, "TTL" },
		{ 0, 6, 0x40, "DF" }, { 0, 4, 0x01, "IPv4 ID" },
		{ 0, 12, 0x01, "source" }, { 0, 19, 0x01, "destination" },
		{ 0, 20, 0x01, "source port" }, { 0, 23, 0x01, "dest port" },
		{ 0, 27, 0x01, "seq" }, { 0, 31, 0x01, "ack" },
		{ 0, 35, 0x01, "window" }, { 0, 39, 0x01, "urgent pointer" },
		{ 0, 43, 0x01, "option bytes" }, { 0, 51, 0x01, "timestamp" },
		{ 0, 32, 0x01, "reserved bits" },
		{ 1, 1, 0x10, "traffic class" }, { 1, 3, 0x01, "flow label" },
		{ 1, 7, 0x01, "hop limit" }, { 1, 8, 0x01, "source" },
		{ 1, 39, 0x01, "destination" }, { 1, 47, 0x01, "seq" },
		{ 1, 51, 0x01, "ack" }, { 1, 63, 0x01, "option bytes" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		struct tu_flow f = flow8(e[i].v6);

		add_flow(&f);
		seg[3]->data[e[i].off] ^= e[i].x;
		tu_tcp_fix(seg[3]->data, seg[3]->len_bytes);
		print_message("edit: %s\n", e[i].what);
		drive("HHH(3)H(1)HHHH(4)");
	}
}

/* Another flow in between, a different option length, IPv4 then IPv6. */
static void test_interleaved(void **state)
{
	struct tu_flow f = flow8(0), g6 = flow8(1);

	(void)state;
	add_flow(&f);
	insert_other_flow(3);
	drive("HHH(3)H(1)HHHHH(5)");
	/* Full segments without PSH, so that only the edit can end them. */
	f.last_flags = TCP_ACK;
	f.payload_bytes = 8000;
	add_flow(&f);
	f.seq += 8000;
	f.id += 8;
	f.opt_words = 0;
	add_flow(&f);
	drive("HHHHHHHH(8)HHHHHHHH(8)");
	f = flow8(0);
	f.last_flags = TCP_ACK;
	f.payload_bytes = 8000;
	add_flow(&f);
	g6.seq = f.seq + 8000;
	add_flow(&g6);
	drive("HHHHHHHH(8)HHHHHHHH(8)");
}

/* Packets that can never be merged: IPv4 options, a fragment, an IPv6
 * extension header, UDP, no payload, a short read. */
static void test_never(void **state)
{
	struct tu_flow f = flow8(0);
	struct pkt *p;

	(void)state;
	add_flow(&f);
	seg[3]->data[6] |= 0x20;                /* MF */
	tu_tcp_fix(seg[3]->data, seg[3]->len_bytes);
	drive("HHH(3)AHHHH(4)");
	/* IHL 6: a 4-byte option in front of TCP, lengths kept. */
	add_flow(&f);
	p = seg[3];
	memmove(p->data + 24, p->data + 20, p->len_bytes - 20);
	memset(p->data + 20, 1, 4);
	p->data[0] = 0x46;
	p->len_bytes += 4;
	tu_put16(p->data + 2, (uint16_t)p->len_bytes);
	tu_tcp_fix(p->data, p->len_bytes);
	drive("HHH(3)AHHHH(4)");
	/* IPv6 with a next header other than TCP (a hop-by-hop header). */
	f = flow8(1);
	add_flow(&f);
	seg[3]->data[6] = 0;
	drive("HHH(3)AHHHH(4)");
	/* UDP, a pure ACK (no payload), a cut packet. */
	f = flow8(0);
	add_flow(&f);
	seg[2]->data[9] = 17;
	tu_ipv4_fix_checksum(seg[2]->data);
	seg[4]->len_bytes = 20 + 32;
	tu_put16(seg[4]->data + 2, 52);
	tu_tcp_fix(seg[4]->data, 52);
	seg[6]->len_bytes -= 1;
	drive("HH(2)AH(1)AH(1)AA");   /* the last has PSH */
}

/* The IPv4 total length ends a super-packet at 65535 bytes. */
static void test_size_limit(void **state)
{
	struct tu_flow f = { .seq = 5, .id = 100, .mss = 1100,
			  .payload_bytes = 40 * 1100, .last_flags = TCP_ACK,
			  .opt_words = 3 };

	(void)state;
	add_flow(&f);
	f.seq += 40 * 1100;
	f.id += 40;
	f.payload_bytes = 30 * 1100;
	add_flow(&f);
	/* 52 bytes of headers: 59 payloads of 1100 fit in 65535, 60 not. */
	drive(rep("", 59, "(59)HHHHHHHHHHH(11)"));
	/* IPv6: its payload length may reach 65535, so 59 as well (52+40). */
	f.v6 = 1;
	f.seq = 5;
	f.payload_bytes = 40 * 1100;
	add_flow(&f);
	f.seq += 40 * 1100;
	f.payload_bytes = 30 * 1100;
	add_flow(&f);
	drive(rep("", 59, "(59)HHHHHHHHHHH(11)"));
}

/* TUNGRO_PKTS_MAX packets at most. */
static void test_count_limit(void **state)
{
	struct tu_flow f = { .seq = 5, .id = 100, .mss = 100,
			  .payload_bytes = 70 * 100, .last_flags = TCP_ACK };
	char post[32];

	(void)state;
	add_flow(&f);
	snprintf(post, sizeof(post), "(%u)HHHHHH(6)", TUNGRO_PKTS_MAX);
	drive(rep("", TUNGRO_PKTS_MAX, post));
}

/* Random edits of random segments, checksums fixed or not: whatever the
 * verdicts, every write is checked (drive()) and the pool ends empty. */
static void test_random(void **state)
{
	(void)state;
	for (int round = 0; round < 400; round++) {
		struct tu_flow f = flow8(round & 1);
		unsigned k;

		f.payload_bytes = 1 + (uint32_t)(rng_next(&rng) % 9000);
		f.mss = (uint16_t)(1 + rng_next(&rng) % 1000);
		if (f.payload_bytes / f.mss >= MAXP / 2)
			f.mss = 1000;
		add_flow(&f);
		k = (unsigned)(rng_next(&rng) % nseg);
		seg[k]->data[rng_next(&rng) % seg[k]->len_bytes] ^=
			(uint8_t)(1 + rng_next(&rng) % 255);
		if (round & 2)
			tu_tcp_fix(seg[k]->data, seg[k]->len_bytes);
		drive(NULL);
	}
}

/* The pool, and no segment left over from a test that failed. */
static int setup(void **state)
{
	nseg = 0;
	return tu_pool_setup(state);
}

#define TG_TEST(f) cmocka_unit_test_setup_teardown(f, setup, tu_pool_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TG_TEST(test_tcp4_merge),
		TG_TEST(test_tcp6_merge),
		TG_TEST(test_exact_multiple_seq_wrap),
		TG_TEST(test_single),
		TG_TEST(test_psh),
		TG_TEST(test_sizes),
		TG_TEST(test_bad_checksum),
		TG_TEST(test_flags),
		TG_TEST(test_no_continue),
		TG_TEST(test_interleaved),
		TG_TEST(test_never),
		TG_TEST(test_size_limit),
		TG_TEST(test_count_limit),
		TG_TEST(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
