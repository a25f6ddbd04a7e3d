/* test_marker.c - the daemon's per-flow TSW marker (src/mark/marker.c)
 * and its hook in the core, on a virtual clock:
 *  - the DSCP rewrite (IPv4: checksum valid again, ECN kept; IPv6);
 *  - a flow at exactly the committed rate stays green; one at 2x it next
 *    to one at 0.5x it: only the fast one is re-marked (about half its
 *    packets: the meter is per flow, an aggregate meter would mark both),
 *    each re-marked packet carrying yellow_dscp and joining its class;
 *  - three colours at 3x the committed rate with a peak at 2x: a third
 *    each;
 *  - a full table: flows beyond `flows` share one meter (and are counted
 *    as shared), so two of them at 0.75x each are marked as one at 1.5x;
 *  - an idle flow's meter is reclaimed and it starts green again;
 *  - a seed repeats the colours exactly, another seed does not;
 *  - the core: a yellow EF packet is counted, limited and queued as AF,
 *    and the stats line's marker object carries the counts.
 * Every test ends with the packet pool empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/core.h"
#include "mark/marker.h"
#include "pkt/classify.h"
#include "testutil.h"

#define KBIT 1000u
#define LEN  1000u              /* bytes a packet */

static struct marker_params params(uint64_t ctr_bps, uint64_t ptr_bps,
				   uint32_t flows, uint64_t seed)
{
	struct marker_params p;

	memset(&p, 0, sizeof(p));
	p.seed = seed;
	p.cls[CLS_EF] = (struct marker_cls){
		.on = 1, .tsw = { ctr_bps, ptr_bps, NS_PER_SEC }, .flows = flows,
		.yellow_dscp = 10, .red_dscp = 0,
		.yellow_cls = CLS_AF, .red_cls = CLS_CS0,
	};
	return p;
}

/* An EF packet (DSCP 46, ECN 1) of flow `sport`, classified as the core
 * would. */
static struct pkt *ef_pkt(uint16_t sport, uint8_t version)
{
	const struct tu_ip ip = { .version = version, .dscp = 46, .ecn = 1,
				  .proto = 17, .sport = sport, .dport = 9,
				  .len_bytes = LEN };
	struct pkt *p = tu_pkt_ip(&ip);
	struct ip_info ii;

	assert_int_equal(ip_inspect(p->data, p->len_bytes, &ii), IP_OK);
	p->cls = CLS_EF;
	p->dscp = ii.dscp;
	p->flow_hash = ii.flow_hash;
	return p;
}

/* Marks one packet of flow sport at now; checks what a colour does to
 * the packet and returns the colour. */
static enum tsw_colour mark_one(struct marker *m, uint16_t sport, tstamp_ns now)
{
	struct pkt *p = ef_pkt(sport, 4);
	enum tsw_colour c = marker_mark(m, p, now);
	struct ip_info ii;

	assert_int_equal(ip_inspect(p->data, p->len_bytes, &ii), IP_OK);
	assert_int_equal(ii.dscp, p->dscp);
	assert_int_equal(p->data[1] & 3, 1);                    /* ECN kept */
	switch (c) {
	case TSW_GREEN:
		assert_int_equal(p->dscp, 46);
		assert_int_equal(p->cls, CLS_EF);
		break;
	case TSW_YELLOW:
		assert_int_equal(p->dscp, 10);
		assert_int_equal(p->cls, CLS_AF);
		break;
	default:
		assert_int_equal(p->dscp, 0);
		assert_int_equal(p->cls, CLS_CS0);
		break;
	}
	pkt_free(p);
	return c;
}

static void test_set_dscp(void **state)
{
	struct pkt *p4 = ef_pkt(1, 4), *p6 = ef_pkt(1, 6);
	struct ip_info ii;

	(void)state;
	ip_set_dscp(p4->data, 10);
	assert_int_equal(ip_inspect(p4->data, p4->len_bytes, &ii), IP_OK);
	assert_int_equal(ii.dscp, 10);
	assert_int_equal(p4->data[1] & 3, 1);
	ip_set_dscp(p6->data, 10);
	assert_int_equal(ip_inspect(p6->data, p6->len_bytes, &ii), IP_OK);
	assert_int_equal(ii.dscp, 10);
	assert_int_equal((p6->data[1] >> 4) & 3, 1);            /* ECN kept */
	assert_int_equal(p6->data[0] >> 4, 6);                  /* version kept */
	pkt_free(p4);
	pkt_free(p6);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_exact_rate_green(void **state)
{
	struct marker_params mp = params(800 * KBIT, 0, 16, 1);
	struct marker m;
	tstamp_ns gap = NS_PER_SEC * LEN * 8 / (800 * KBIT);   /* 10 ms */

	(void)state;
	assert_int_equal(marker_init(&m, &mp, 0), 0);
	for (int i = 1; i <= 3000; i++)
		assert_int_equal(mark_one(&m, 1, (tstamp_ns)i * gap), TSW_GREEN);
	assert_int_equal(m.colour_pkts[CLS_EF][TSW_GREEN], 3000);
	marker_destroy(&m);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_per_flow(void **state)
{
	struct marker_params mp = params(400 * KBIT, 0, 16, 5);
	struct marker m;
	tstamp_ns gap = 10 * NS_PER_MS;          /* 800 kbit/s: 2x committed */
	unsigned yellow_fast = 0, yellow_slow = 0;

	(void)state;
	assert_int_equal(marker_init(&m, &mp, 0), 0);
	for (int i = 1; i <= 6000; i++) {        /* 60 s */
		tstamp_ns t = (tstamp_ns)i * gap;

		yellow_fast += mark_one(&m, 1, t) != TSW_GREEN;
		if (i % 4 == 0)                  /* 200 kbit/s: 0.5x */
			yellow_slow += mark_one(&m, 2, t + gap / 2) != TSW_GREEN;
	}
	/* After the meter's warm-up (a few windows) the fast flow's yellow
	 * share is (2C - C) / 2C = 1/2: 3000 expected, binomial sd ~ 39, and
	 * the warm-up's first second is mostly green: [2700, 3100]. */
	assert_true(yellow_fast >= 2700 && yellow_fast <= 3100);
	assert_int_equal(yellow_slow, 0);
	assert_int_equal(marker_flows(&m, CLS_EF), 2);
	assert_int_equal(m.shared_pkts[CLS_EF], 0);
	assert_int_equal(m.colour_pkts[CLS_EF][TSW_YELLOW], yellow_fast);
	marker_destroy(&m);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_three_colours(void **state)
{
	struct marker_params mp = params(400 * KBIT, 800 * KBIT, 16, 9);
	struct marker m;
	tstamp_ns gap = NS_PER_SEC * LEN * 8 / (1200 * KBIT);  /* 3x */
	unsigned n[TSW_NCOLOUR] = { 0 };

	(void)state;
	assert_int_equal(marker_init(&m, &mp, 0), 0);
	for (int i = 1; i <= 9000; i++) {
		enum tsw_colour c = mark_one(&m, 1, (tstamp_ns)i * gap);

		if (i > 600)                     /* past 4 s: converged */
			n[c]++;
	}
	/* 8400 packets, a third each (green C, yellow P - C, red the rest of
	 * 3C): 2800, binomial sd ~ 43: within 5 sd. */
	for (int c = 0; c < TSW_NCOLOUR; c++)
		assert_true(n[c] >= 2585 && n[c] <= 3015);
	marker_destroy(&m);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_table_full_shared(void **state)
{
	struct marker_params mp = params(400 * KBIT, 0, 2, 3);
	struct marker m;
	tstamp_ns gap = NS_PER_SEC * LEN * 8 / (300 * KBIT);   /* 0.75x each */
	unsigned yellow[4] = { 0 }, count = 0;

	(void)state;
	assert_int_equal(marker_init(&m, &mp, 0), 0);
	for (int i = 1; i <= 2000; i++)
		for (uint16_t f = 0; f < 4; f++) {
			tstamp_ns t = (tstamp_ns)i * gap + f * NS_PER_MS;

			yellow[f] += mark_one(&m, (uint16_t)(10 + f), t) != TSW_GREEN;
			count++;
		}
	/* flows 10, 11 have their meters: green; 12 and 13 share one, an
	 * aggregate at 1.5x: a third of their 4000 packets yellow once
	 * converged (~1333, sd ~30; warm-up lowers it). */
	assert_int_equal(yellow[0] + yellow[1], 0);
	assert_true(yellow[2] + yellow[3] >= 1150 && yellow[2] + yellow[3] <= 1450);
	assert_int_equal(m.shared_pkts[CLS_EF], 4000);
	assert_int_equal(marker_flows(&m, CLS_EF), 2);
	marker_destroy(&m);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_idle_flow_restarts(void **state)
{
	struct marker_params mp = params(400 * KBIT, 0, 2, 3);
	struct marker m;
	tstamp_ns gap = 5 * NS_PER_MS, t = 0;   /* 1.6 Mbit/s: 4x */
	unsigned late_yellow = 0;

	(void)state;
	assert_int_equal(marker_init(&m, &mp, 0), 0);
	for (int i = 0; i < 1000; i++)
		late_yellow += mark_one(&m, 1, t += gap) != TSW_GREEN && i > 800;
	assert_true(late_yellow > 100);          /* 3/4 of 199 when busy */
	/* Silent for 11 windows (> MARKER_IDLE_WINDOWS): another flow's
	 * first packet reaps its entry (the table holds only flow 2 then),
	 * and it comes back with a fresh meter of its own, green at first
	 * (its old meter would have decayed to about the same). */
	t += 11 * NS_PER_SEC;
	assert_int_equal(mark_one(&m, 2, t), TSW_GREEN);
	assert_int_equal(marker_flows(&m, CLS_EF), 1);
	assert_int_equal(mark_one(&m, 1, t + 1), TSW_GREEN);
	assert_int_equal(marker_flows(&m, CLS_EF), 2);
	assert_int_equal(m.shared_pkts[CLS_EF], 0);     /* its own slot */
	marker_destroy(&m);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void colours(uint64_t seed, unsigned char *out, int n)
{
	struct marker_params mp = params(400 * KBIT, 800 * KBIT, 4, seed);
	struct marker m;

	assert_int_equal(marker_init(&m, &mp, 0), 0);
	for (int i = 0; i < n; i++)
		out[i] = (unsigned char)mark_one(&m, 1, (tstamp_ns)(i + 1) * 4 * NS_PER_MS);
	marker_destroy(&m);
}

static void test_seeds(void **state)
{
	unsigned char a[2000], b[2000], c[2000];

	(void)state;
	colours(11, a, 2000);
	colours(11, b, 2000);
	colours(12, c, 2000);
	assert_memory_equal(a, b, sizeof(a));
	assert_true(memcmp(a, c, sizeof(a)) != 0);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_unmarked_class(void **state)
{
	struct marker_params mp = params(400 * KBIT, 0, 4, 1);
	struct marker m;
	struct pkt *p = ef_pkt(1, 4);

	(void)state;
	assert_int_equal(marker_init(&m, &mp, 0), 0);
	p->cls = CLS_AF;                 /* AF is not marked */
	for (int i = 0; i < 100; i++)
		assert_int_equal(marker_mark(&m, p, (tstamp_ns)i), TSW_GREEN);
	assert_int_equal(p->cls, CLS_AF);
	assert_int_equal(p->dscp, 46);
	assert_int_equal(m.colour_pkts[CLS_AF][TSW_GREEN], 0);
	assert_int_equal(marker_flows(&m, CLS_AF), 0);
	pkt_free(p);
	marker_destroy(&m);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* ---- the core's hook -------------------------------------------------- */

static int sink_send(void *ctx, const uint8_t *buf, size_t len,
		     const struct conf_addr *to)
{
	(void)ctx; (void)buf; (void)len; (void)to;
	return 0;
}

static int sink_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx; (void)buf; (void)len;
	return 0;
}

static void test_core_hook(void **state)
{
	static const struct core_io io = { .send = sink_send,
					   .tun_write = sink_tun_write };
	struct conf conf;
	struct core c;
	char line[8192], want[256];
	uint64_t y;

	(void)state;
	/* a slow link (100 kbit/s) that sends nothing within the test: the
	 * counts are what the classification and the marker decided */
	tu_core_conf(&conf, 100 * KBIT, 0, "prio");
	conf.marker = params(400 * KBIT, 0, 16, 2);
	tu_core_init(&c, &conf, &io);
	assert_true(c.mark_on);
	for (int i = 1; i <= 500; i++) {                 /* 800 kbit/s, 5 s */
		struct pkt *p = pkt_alloc();
		const struct tu_ip ip = { .version = 4, .dscp = 46, .proto = 17,
					  .sport = 7, .dport = 9, .len_bytes = LEN };

		assert_non_null(p);
		p->len_bytes = (uint32_t)tu_ip_build(p->data, LEN, &ip);
		core_tun_input(&c, p, (tstamp_ns)i * 10 * NS_PER_MS);
	}
	y = c.mark.colour_pkts[CLS_EF][TSW_YELLOW];
	assert_true(y > 150 && y < 260);
	/* yellow ones were counted, and limited, as AF: EF's limit is 100 */
	assert_int_equal(c.st.cls[CLS_EF].in_pkts, 500 - y);
	assert_int_equal(c.st.cls[CLS_AF].in_pkts, y);
	assert_int_equal(c.qlen_pkts[CLS_AF] + c.st.cls[CLS_AF].drop_pkts, y);
	assert_true(core_stats_line(&c, 5 * NS_PER_SEC, line, sizeof(line)) > 0);
	snprintf(want, sizeof(want), "\"marker\": {\"ef\": {\"green\": %llu, "
		 "\"yellow\": %llu, \"red\": 0, \"shared\": 0, \"flows\": 1}}",
		 (unsigned long long)(500 - y), (unsigned long long)y);
	if (!strstr(line, want))
		fail_msg("stats line without %s:\n%s", want, line);
	/* the next line counts from there */
	assert_true(core_stats_line(&c, 6 * NS_PER_SEC, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "\"marker\": {\"ef\": {\"green\": 0, \"yellow\": 0,"));
	core_destroy(&c);
	assert_int_equal(pkt_pool_in_use(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_dscp),
		cmocka_unit_test(test_exact_rate_green),
		cmocka_unit_test(test_per_flow),
		cmocka_unit_test(test_three_colours),
		cmocka_unit_test(test_table_full_shared),
		cmocka_unit_test(test_idle_flow_restarts),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_unmarked_class),
		cmocka_unit_test(test_core_hook),
	};

	return cmocka_run_group_tests(tests, tu_pool_setup, tu_pool_teardown);
}
