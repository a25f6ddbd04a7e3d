/* test_udpgso.c - GSO runs of a send burst and GRO buffers split back into
 * datagrams (udpgso.h), against the kernel's limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include "core/core.h"
#include "pkt/tunnel.h"
#include "pkt/udpgso.h"
#include "testutil.h"

#define MAXN 256

static struct udpgso_run run[MAXN];

/* Checks run r is (first, count, seg_bytes). */
static void expect_run(int r, int first, int count, unsigned seg_bytes)
{
	assert_int_equal(run[r].first, first);
	assert_int_equal(run[r].count, count);
	if (count >= 2)
		assert_int_equal(run[r].seg_bytes, seg_bytes);
}

/* n datagrams of len_bytes each into len[off..off+n). */
static void fill(size_t *len, int off, int n, size_t len_bytes)
{
	int i;

	for (i = 0; i < n; i++)
		len[off + i] = len_bytes;
}

static void test_group_equal_sizes(void **state)
{
	size_t len[5];

	(void)state;
	fill(len, 0, 5, 1420);
	assert_int_equal(udpgso_group(len, 5, run), 1);
	expect_run(0, 0, 5, 1420);
}

static void test_group_short_tail_ends_run(void **state)
{
	/* 100 100 100 60 | 60: a shorter datagram is the run's last; the
	 * next one, equal to it, cannot follow a shorter segment. */
	size_t len[] = { 100, 100, 100, 60, 60 };

	(void)state;
	assert_int_equal(udpgso_group(len, 5, run), 2);
	expect_run(0, 0, 4, 100);
	expect_run(1, 4, 1, 0);
}

static void test_group_longer_breaks_run(void **state)
{
	/* A longer datagram cannot be a segment of a shorter gso_size. */
	size_t len[] = { 100, 100, 150, 150, 150, 40 };

	(void)state;
	assert_int_equal(udpgso_group(len, 6, run), 2);
	expect_run(0, 0, 2, 100);
	expect_run(1, 2, 4, 150);
}

static void test_group_single_and_alternating(void **state)
{
	size_t one[] = { 1420 };
	size_t alt[] = { 60, 1420, 60, 1420 };

	(void)state;
	assert_int_equal(udpgso_group(one, 1, run), 1);
	expect_run(0, 0, 1, 0);
	/* 60 1420: the longer breaks; 1420 60: a run with a short tail. */
	assert_int_equal(udpgso_group(alt, 4, run), 3);
	expect_run(0, 0, 1, 0);
	expect_run(1, 1, 2, 1420);
	expect_run(2, 3, 1, 0);
	assert_int_equal(udpgso_group(alt, 0, run), 0);
}

static void test_group_segment_limit(void **state)
{
	size_t len[130];

	(void)state;
	fill(len, 0, 130, 100);
	assert_int_equal(udpgso_group(len, 130, run), 3);
	expect_run(0, 0, UDPGSO_MAX_SEGS, 100);
	expect_run(1, 64, UDPGSO_MAX_SEGS, 100);
	expect_run(2, 128, 2, 100);
	/* 64 full segments leave no room for a short tail either. */
	fill(len, 0, 64, 100);
	len[64] = 50;
	assert_int_equal(udpgso_group(len, 65, run), 2);
	expect_run(0, 0, 64, 100);
	expect_run(1, 64, 1, 0);
}

static void test_group_payload_limit(void **state)
{
	/* 65507 / 1420 = 46 segments (65320 bytes); a 200-byte tail would
	 * make 65520 > 65507, a 187-byte one exactly 65507. */
	size_t len[60];
	int r, i, total;

	(void)state;
	fill(len, 0, 50, 1420);
	assert_int_equal(udpgso_group(len, 50, run), 2);
	expect_run(0, 0, 46, 1420);
	expect_run(1, 46, 4, 1420);
	len[46] = 200;
	assert_int_equal(udpgso_group(len, 47, run), 2);
	expect_run(0, 0, 46, 1420);
	expect_run(1, 46, 1, 0);
	len[46] = 187;
	assert_int_equal(udpgso_group(len, 47, run), 1);
	expect_run(0, 0, 47, 1420);
	/* Every run of a random-ish burst within both limits, in order. */
	for (i = 0; i < 60; i++)
		len[i] = i % 7 == 6 ? 300 + (size_t)i : 1420;
	r = udpgso_group(len, 60, run);
	for (i = 0, total = 0; i < r; i++) {
		size_t bytes = 0;
		int j;

		assert_int_equal(run[i].first, total);
		assert_true(run[i].count >= 1 && run[i].count <= UDPGSO_MAX_SEGS);
		for (j = 0; j < run[i].count; j++)
			bytes += len[run[i].first + j];
		assert_true(run[i].count == 1 || bytes <= UDPGSO_MAX_PAYLOAD_BYTES);
		/* GSO's shape: all but the last of seg_bytes, the last no
		 * longer */
		for (j = 0; run[i].count > 1 && j < run[i].count - 1; j++)
			assert_int_equal(len[run[i].first + j], run[i].seg_bytes);
		if (run[i].count > 1)
			assert_true(len[run[i].first + run[i].count - 1] <=
				    run[i].seg_bytes);
		total += run[i].count;
	}
	assert_int_equal(total, 60);
	/* six of 1420 closed by a shorter one: 8 runs of 7, then 4 */
	assert_int_equal(r, 9);
}

static void test_group_unsendable_alone(void **state)
{
	/* 0 bytes, or over one datagram's payload: a run of its own. */
	size_t len[] = { 0, 0, 70000, 70000, 100, 100 };

	(void)state;
	assert_int_equal(udpgso_group(len, 6, run), 5);
	expect_run(0, 0, 1, 0);
	expect_run(1, 1, 1, 0);
	expect_run(2, 2, 1, 0);
	expect_run(3, 3, 1, 0);
	expect_run(4, 4, 2, 100);
}

/* ---- GRO split --------------------------------------------------------- */

struct got {
	size_t     n, nulls;
	struct pkt *p[80];
	size_t     len[80];
};

static void collect(void *ctx, struct pkt *p, size_t dgram_bytes)
{
	struct got *g = ctx;

	assert_true(g->n < TU_LEN(g->p));
	g->p[g->n] = p;
	g->len[g->n] = dgram_bytes;
	g->n++;
	if (!p)
		g->nulls++;
}

static void got_free(struct got *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->p[i])
			pkt_free(g->p[i]);
	memset(g, 0, sizeof(*g));
}

static const uint8_t *dg_of(const struct pkt *p)
{
	return p->data - TUN_HDR_BYTES;
}

/* A tunnel datagram of inner_bytes (header + IPv4 of that length) with
 * sequence number seq at out; returns its length. */
static size_t make_dgram(uint8_t *out, uint16_t inner_bytes, uint32_t seq)
{
	struct tun_hdr h = { .cls = CLS_AF, .len_bytes = inner_bytes,
			     .seq = seq, .tx_ns = 42 };
	struct tu_ip ip = { .version = 4, .len_bytes = inner_bytes,
			    .proto = 17, .sport = (uint16_t)seq };

	tun_hdr_encode(out, &h);
	tu_ip_build(out + TUN_HDR_BYTES, 2000, &ip);
	return TUN_HDR_BYTES + inner_bytes;
}

static uint8_t buf[65536];

static void test_split_short_last(void **state)
{
	struct got g = { 0 };
	struct tun_hdr h;
	size_t off = 0, i;

	(void)state;
	off += make_dgram(buf + off, 1400, 1);
	off += make_dgram(buf + off, 1400, 2);
	off += make_dgram(buf + off, 1400, 3);
	off += make_dgram(buf + off, 300, 4);
	assert_int_equal(udpgro_split(buf, off, 1420, 0, &tun_layout_v1, collect, &g), 4);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.nulls, 0);
	for (i = 0; i < 4; i++) {
		size_t want = i < 3 ? 1420 : 320;

		assert_int_equal(g.len[i], want);
		assert_memory_equal(dg_of(g.p[i]), buf + i * 1420, want);
		/* each a datagram the decoder takes on its own */
		assert_int_equal(tun_hdr_decode(dg_of(g.p[i]), g.len[i], 1400, &h),
				 TUN_OK);
		assert_int_equal(h.seq, i + 1);
	}
	assert_int_equal(pkt_pool_in_use(), 4);
	got_free(&g);
}

static void test_split_no_cmsg_one_datagram(void **state)
{
	struct got g = { 0 };
	size_t n = make_dgram(buf, 1000, 9);

	(void)state;
	assert_int_equal(udpgro_split(buf, n, 0, 0, &tun_layout_v1, collect, &g), 1);
	assert_int_equal(g.len[0], 1020);
	assert_memory_equal(dg_of(g.p[0]), buf, 1020);
	got_free(&g);
	/* an empty datagram is one (short) datagram too */
	assert_int_equal(udpgro_split(buf, 0, 0, 0, &tun_layout_v1, collect, &g), 1);
	assert_int_equal(g.len[0], 0);
	assert_non_null(g.p[0]);
	got_free(&g);
}

static void test_split_bogus_gso_size(void **state)
{
	struct got g = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 30; i++)
		buf[i] = (uint8_t)i;
	/* negative: no segmentation */
	assert_int_equal(udpgro_split(buf, 30, -5, 0, &tun_layout_v1, collect, &g), 1);
	assert_int_equal(g.len[0], 30);
	got_free(&g);
	/* odd size 7: 7 7 7 7 2, each copied from its own offset */
	assert_int_equal(udpgro_split(buf, 30, 7, 0, &tun_layout_v1, collect, &g), 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(g.len[i], i < 4 ? 7 : 2);
		assert_int_equal(dg_of(g.p[i])[0], i * 7);
	}
	got_free(&g);
	/* 1: every byte a datagram, none refused by the splitter itself */
	assert_int_equal(udpgro_split(buf, 30, 1, 0, &tun_layout_v1, collect, &g), 30);
	assert_int_equal(g.nulls, 0);
	assert_int_equal(dg_of(g.p[29])[0], 29);
	got_free(&g);
}

static void test_split_shorter_than_segment(void **state)
{
	struct got g = { 0 };
	size_t n = make_dgram(buf, 80, 5);

	(void)state;
	assert_int_equal(udpgro_split(buf, n, 1420, 0, &tun_layout_v1, collect, &g), 1);
	assert_int_equal(g.len[0], 100);
	got_free(&g);
	/* exactly one segment: one datagram */
	assert_int_equal(udpgro_split(buf, n, 100, 0, &tun_layout_v1, collect, &g), 1);
	assert_int_equal(g.len[0], 100);
	got_free(&g);
}

static void test_split_oversize_and_truncated(void **state)
{
	struct got g = { 0 };
	size_t room = TUN_HDR_BYTES + TU_POOL_CAP_BYTES;
	struct tun_hdr h;

	(void)state;
	memset(buf, 0xab, sizeof(buf));
	make_dgram(buf, 1400, 1);
	/* a 2000-byte datagram: longer than a packet holds */
	assert_int_equal(udpgro_split(buf, 2000, 0, 0, &tun_layout_v1, collect, &g), 1);
	assert_int_equal(g.len[0], room + 1);
	assert_memory_equal(dg_of(g.p[0]), buf, room);
	assert_int_equal(tun_hdr_decode(dg_of(g.p[0]), g.len[0], TU_POOL_CAP_BYTES, &h),
			 TUN_OVERSIZE);
	got_free(&g);
	/* cut by the kernel: only the last segment is refused */
	make_dgram(buf + 1420, 1400, 2);
	assert_int_equal(udpgro_split(buf, 2000, 1420, 1, &tun_layout_v1, collect, &g), 2);
	assert_int_equal(g.len[0], 1420);
	assert_int_equal(g.len[1], room + 1);
	got_free(&g);
}

static void test_split_pool_empty(void **state)
{
	struct got g = { 0 };
	struct pkt *hold[TU_POOL_PKTS];
	size_t i, off = 0;

	(void)state;
	for (i = 0; i < TU_POOL_PKTS - 2; i++)
		hold[i] = pkt_alloc();
	for (i = 0; i < 5; i++)
		off += make_dgram(buf + off, 200, (uint32_t)i);
	assert_int_equal(udpgro_split(buf, off, 220, 0, &tun_layout_v1, collect, &g), 5);
	assert_int_equal(g.nulls, 3);
	assert_non_null(g.p[0]);
	assert_non_null(g.p[1]);
	assert_null(g.p[2]);
	assert_int_equal(g.len[4], 220);        /* a lost one's length still told */
	got_free(&g);
	for (i = 0; i < TU_POOL_PKTS - 2; i++)
		pkt_free(hold[i]);
}

/* ---- random GRO buffers through the core ------------------------------ */

static unsigned tun_writes;

/* Counts the core's tun writes, each of which must be one whole inner
 * packet as make_dgram() builds it: IPv4, UDP, total length = len. */
static int count_tun_write(void *ctx, const uint8_t *b, size_t len)
{
	(void)ctx;
	assert_true(len >= 20);
	assert_int_equal(b[0], 0x45);
	assert_int_equal(((size_t)b[2] << 8 | b[3]), len);
	assert_int_equal(b[9], 17);
	tun_writes++;
	return 0;
}

static int no_send(void *ctx, const uint8_t *b, size_t len,
		   const struct conf_addr *to)
{
	(void)ctx;
	(void)b;
	(void)len;
	(void)to;
	return 0;
}

struct rx_fixture {
	struct core        *c;
	struct sockaddr_in  src;
	unsigned            lost;   /* datagrams with no pool packet */
};

static void to_core(void *ctx, struct pkt *p, size_t dgram_bytes)
{
	struct rx_fixture *f = ctx;

	if (!p) {
		f->lost++;
		return;
	}
	core_udp_input(f->c, p, dgram_bytes, (const struct sockaddr *)&f->src,
		       sizeof(f->src), 0);
}

/* Every datagram the core refused or wrote, by any reason. */
static uint64_t core_outcomes(const struct core *c)
{
	uint64_t n = c->st.rx_unknown_peer;
	int i;

	for (i = 0; i < NCLASS; i++)
		n += c->st.rx[i].pkts;
	for (i = 0; i < TUN_VERDICT_MAX; i++)
		n += c->st.rx_bad[i];
	for (i = 0; i < IP_VERDICT_MAX; i++)
		n += c->st.rx_inner_bad[i];
	return n;
}

/* 2000 receives of valid datagrams, garbage, and the two mixed, each with
 * a random "segment size" (negative, 0, 1, odd, larger than the buffer),
 * some marked truncated, some arriving while the pool is dry:
 * nothing crashes or leaks, every datagram split off is accounted exactly
 * once (written to the tun, refused under a reason, or lost for want of a
 * buffer), and whatever the core wrote was a whole valid datagram. */
static void test_split_random_into_core(void **state)
{
	static const struct core_io io = { .send = no_send,
					   .tun_write = count_tun_write };
	static uint8_t rbuf[65536];
	struct core c;
	struct conf conf;
	struct rx_fixture f = { .c = &c };
	struct pkt *hold[TU_POOL_PKTS];
	uint64_t rng = 10, split = 0, valid_in = 0;
	unsigned nhold = 0;
	int round;

	(void)state;
	tu_core_conf(&conf, 8000000, 0, "fifo");
	tu_core_init(&c, &conf, &io);
	f.src.sin_family = AF_INET;
	f.src.sin_addr.s_addr = htonl(0x0a000002);
	f.src.sin_port = htons(5000);
	tun_writes = 0;
	for (round = 0; round < 2000; round++) {
		size_t len = 0, seg = 60 + rng_next(&rng) % 1400;
		int gso, kind = (int)(rng_next(&rng) % 3);

		while (len + seg <= 60000 && rng_next(&rng) % 40) {
			if (kind == 0 || (kind == 2 && rng_next(&rng) % 2)) {
				make_dgram(rbuf + len, (uint16_t)(seg - TUN_HDR_BYTES),
					   (uint32_t)round);
				valid_in++;
			} else {
				size_t i;

				for (i = 0; i < seg; i++)
					rbuf[len + i] = (uint8_t)rng_next(&rng);
			}
			len += seg;
		}
		switch (rng_next(&rng) % 6) {
		case 0: gso = -(int)(rng_next(&rng) % 100); break;
		case 1: gso = 0; break;
		case 2: gso = 1 + (int)(rng_next(&rng) % 7); break;
		case 3: gso = (int)(len + rng_next(&rng) % 100); break;
		default: gso = (int)seg; break;
		}
		/* Now and then a dry pool (the core frees each packet before the
		 * next is taken, so only an empty one loses any). */
		while (nhold < TU_POOL_PKTS && round % 100 == 50)
			hold[nhold++] = pkt_alloc();
		while (nhold && round % 100 == 60)
			pkt_free(hold[--nhold]);
		split += udpgro_split(rbuf, len, gso, round % 17 == 0, &tun_layout_v1, to_core, &f);
		assert_int_equal(pkt_pool_in_use(), nhold);
	}
	while (nhold)
		pkt_free(hold[--nhold]);
	print_message("split %llu datagrams (%llu valid made): %u written, "
		      "%llu refused, %u lost with no buffer\n",
		      (unsigned long long)split, (unsigned long long)valid_in,
		      tun_writes,
		      (unsigned long long)(core_outcomes(&c) - tun_writes), f.lost);
	assert_true(split > 2000);
	assert_true(f.lost > 0);
	assert_int_equal(core_outcomes(&c) + f.lost, split);
	assert_int_equal(tun_writes, c.st.rx[CLS_AF].pkts);
	assert_true(tun_writes > 0 && tun_writes <= valid_in);
	core_destroy(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_POOL_TEST(test_group_equal_sizes),
		TU_POOL_TEST(test_group_short_tail_ends_run),
		TU_POOL_TEST(test_group_longer_breaks_run),
		TU_POOL_TEST(test_group_single_and_alternating),
		TU_POOL_TEST(test_group_segment_limit),
		TU_POOL_TEST(test_group_payload_limit),
		TU_POOL_TEST(test_group_unsendable_alone),
		TU_POOL_TEST(test_split_short_last),
		TU_POOL_TEST(test_split_no_cmsg_one_datagram),
		TU_POOL_TEST(test_split_bogus_gso_size),
		TU_POOL_TEST(test_split_shorter_than_segment),
		TU_POOL_TEST(test_split_oversize_and_truncated),
		TU_POOL_TEST(test_split_pool_empty),
		TU_POOL_TEST(test_split_random_into_core),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
