/* test_ticket.c - the ticket scheduler: the In-Time PHB group, TICKET
 * (Algorithm 2) and the naive scheduler (Algorithm 1) of Karlsson et al.
 * Virtual clock, deterministic.
 *
 * Part 1 scripts each trap of the header comment of src/sched/ticket.c as
 * a scenario whose order, drops and Δ are worked out by hand in the
 * comments.  The capacity is 8 Mbit/s so that 1000 bytes take exactly
 * 1 ms: "b1 at 3" means the packet b1 starts at 3 ms.  Part 2 drives long
 * random loads through a link emulation and checks the IT requirements on
 * every departure; part 3 measures loss rates on the paper's 30 Mbit/s,
 * 256-packet link. */
#include <libconfig.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "diag.h"
#include "jw.h"
#include "pkt.h"
#include "sched.h"
#include "testutil.h"

#define CAP_BPS   8000000u      /* 1000 bytes = 1 ms */
#define MS(x)     ((tstamp_ns)((x) * (double)NS_PER_MS))
#define POOL_PKTS 2048u

static struct sched_env env;

static int setup(void **state)
{
	(void)state;
	tu_sched_env(&env, CAP_BPS);
	return tu_pool_init(POOL_PKTS, 1500);
}

/* ---- helpers ------------------------------------------------------------ */

/* A packet of class cls, len bytes, id `id`, arriving at t. */
static void put(struct sched *s, enum pkt_class cls, uint32_t id,
		uint32_t len, tstamp_ns t)
{
	struct pkt *p = tu_pkt(cls, len, id);

	p->enq_ns = t;
	sched_enqueue(s, p, t);
}

/* The link starts a packet at `now`: it must be `id`, announced by peek. */
static void expect(struct sched *s, tstamp_ns now, uint32_t id)
{
	const struct pkt *peeked = s->ops->peek(s->priv, now);
	struct pkt *p = sched_dequeue(s, now);

	if (!p)
		fail_msg("at %.3f ms: nothing, expected %u",
			 (double)now / NS_PER_MS, id);
	assert_ptr_equal(peeked, p);
	if (p->seq != id)
		fail_msg("at %.3f ms: %u, expected %u",
			 (double)now / NS_PER_MS, p->seq, id);
	pkt_free(p);
}

static void expect_none(struct sched *s, tstamp_ns now)
{
	assert_null(s->ops->peek(s->priv, now));
	assert_null(sched_dequeue(s, now));
}

/* n back-to-back 1000-byte packets: ids id, id + 1, ... at from_ms,
 * from_ms + 1, ... */
static void expect_run(struct sched *s, uint32_t from_ms, uint32_t id,
		       uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		expect(s, MS(from_ms + k), id + k);
}

/* A number of the scheduler's stats line: member `key` ("delta_ns",
 * "overflow.af" as `"af"` after `"overflow"`); fails when absent. */
static uint64_t stat_of(struct sched *s, const char *key)
{
	const char *line = tu_sched_stats(s), *at = line;
	char pat[64];
	const char *dot = strchr(key, '.');

	if (dot) {
		snprintf(pat, sizeof(pat), "\"%.*s\": {", (int)(dot - key), key);
		at = strstr(line, pat);
		assert_non_null(at);
		key = dot + 1;
	}
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	at = strstr(at, pat);
	if (!at)
		fail_msg("no %s in %s", key, line);
	return strtoull(at + strlen(pat), NULL, 10);
}

/* The end of a script without a missed EF deadline: nothing is left at
 * `now`; destroys s. */
static void finish(struct sched *s, tstamp_ns now)
{
	expect_none(s, now);
	assert_int_equal(stat_of(s, "ef_missed"), 0);
	sched_destroy(s);
}

/* ---- part 1: the traps, scripted ---------------------------------------- */

/* s with the defaults (d = 10 ms) holding background packets 1..12 (1000
 * bytes) and then conforming packet c_id (1000 bytes), all arrived at 0. */
static void backlog(struct sched *s, uint32_t c_id)
{
	uint32_t k;

	tu_sched_create(s, &sched_ticket_ops, NULL, &env);
	for (k = 1; k <= 12; k++)
		put(s, CLS_CS0, k, 1000, 0);
	put(s, CLS_EF, c_id, 1000, 0);
}

/* Traps 4, 6, 7: a conforming packet waits while background packets can
 * go, and starts exactly at its deadline (strict <, no sendTime of its
 * own).  d = 10 ms.  b1..b12 (1000 bytes) and c1 arrive at 0; at k ms the
 * test for b is τ_c = 10 < k + 0 + 1, true first at k = 10: b1..b10 at
 * 0..9, c1 at 10 (= τ_c), then b11, b12.  Then line 4: c2 alone goes at
 * once; c3 behind an excess e1 of a lower σ waits for it (e non-empty,
 * b empty: still not line 4). */
static void test_conforming_waits_until_deadline(void **state)
{
	struct sched s;

	(void)state;
	backlog(&s, 100);
	expect_run(&s, 0, 1, 10);
	expect(&s, MS(10), 100);
	expect_run(&s, 11, 11, 2);
	expect_none(&s, MS(13));
	put(&s, CLS_EF, 101, 1000, MS(20));
	expect(&s, MS(20), 101);                /* line 4: e, b empty */
	put(&s, CLS_AF, 200, 1000, MS(30));
	put(&s, CLS_EF, 102, 1000, MS(30));
	expect(&s, MS(30), 200);                /* e first: σ_e < σ_c */
	expect(&s, MS(31), 102);
	finish(&s, MS(32));
}

/* Trap 3: δ with the later packet, against a queued tail only.  d = 10.
 * b1..b12 and c1 at 0; b1 at 0; c2 at 0.5 overlaps c1 (τ 10 + 1 > 10.5):
 * δ2 = 0.5, Δ = 0.5.  The b test is now 10 < k + 0.5 + 1, true at k = 9:
 * b2..b9 at 1..8, c1 at 9, and Δ stays 0.5 (c1's δ is 0), c2 at 10
 * (10.5 < 10 + 0.5 + 1), Δ = 0; without Δ c1 would start at 10 and c2
 * at 11 > τ2.  Then c3 at 20 goes at once; c4 at 20.5 finds c empty (c3
 * on the link): δ4 = 0 and Δ stays 0 (against the departed c3, τ3 + 1 =
 * 31 > τ4 = 30.5, it would be 0.5). */
static void test_overlap_delta(void **state)
{
	struct sched s;

	(void)state;
	backlog(&s, 101);
	assert_int_equal(stat_of(&s, "delta_ns"), 0);
	expect(&s, 0, 1);
	put(&s, CLS_EF, 102, 1000, MS(0.5));
	assert_int_equal(stat_of(&s, "delta_ns"), MS(0.5));
	expect_run(&s, 1, 2, 8);
	expect(&s, MS(9), 101);
	assert_int_equal(stat_of(&s, "delta_ns"), MS(0.5));
	expect(&s, MS(10), 102);
	assert_int_equal(stat_of(&s, "delta_ns"), 0);
	expect_run(&s, 11, 10, 3);
	put(&s, CLS_EF, 103, 1000, MS(20));
	expect(&s, MS(20), 103);
	put(&s, CLS_EF, 104, 1000, MS(20.5));
	assert_int_equal(stat_of(&s, "delta_ns"), 0);
	expect(&s, MS(21), 104);
	finish(&s, MS(22));
}

/* Trap 5: the late test has no Δ.  d = 3.  At 0: b1 (1500 bytes), b2,
 * e1.  b1 at 0, b2 at 1.5.  At 2: c1, c2 (τ 5, δ2 = 1, Δ = 1).  At 2.5
 * Q_e < Q_b = ∞: c due? 5 < 2.5 + 1 + 1 no; σ_c < σ_e no; late? τ_e = 3
 * < 2.5 no (with Δ: 3 < 3.5, a wrong drop) -> e1; then c1 at 3.5 (Δ
 * still 1), c2 at 4.5 (Δ 0). */
static void test_late_test_without_delta(void **state)
{
	struct sched s;

	(void)state;
	tu_sched_create(&s, &sched_ticket_ops, "d = \"3ms\";", &env);
	put(&s, CLS_CS0, 1, 1500, 0);
	put(&s, CLS_CS0, 2, 1000, 0);
	put(&s, CLS_AF, 10, 1000, 0);
	expect(&s, 0, 1);
	expect(&s, MS(1.5), 2);
	put(&s, CLS_EF, 101, 1000, MS(2));
	put(&s, CLS_EF, 102, 1000, MS(2));
	assert_int_equal(stat_of(&s, "delta_ns"), MS(1));
	expect(&s, MS(2.5), 10);
	expect(&s, MS(3.5), 101);
	assert_int_equal(stat_of(&s, "delta_ns"), MS(1));
	expect(&s, MS(4.5), 102);
	assert_int_equal(stat_of(&s, "delta_ns"), 0);
	assert_int_equal(tu_drops(DROP_LATE), 0);
	sched_destroy(&s);
}

/* Traps 1 (one σ counter) and 8 (line 21 drops the excess head, its
 * ticket stays).  d = 3.  At 0: b1 (1000), b2 (1500), e1 (σ1, ticket 3),
 * c1 (200 bytes, σ2, τ 3).  b1 at 0 (3 < 0 + 1 no), b2 at 1 (3 < 2.5
 * no); at 2.5 Q_e = 3 < ∞ and c is due (3 < 3.5): c1, Σ = 2; at 2.7 e1
 * has σ 1 < Σ: dropped out of order (not late: τ 3 >= 2.7); nothing left.
 * Ticket 3 stays in q: at 3 b3, b4 (tickets 4, 5) and e2 arrive; e2 takes
 * ticket 3 and jumps ahead of both. */
static void test_order_drop_keeps_ticket(void **state)
{
	struct sched s;

	(void)state;
	tu_sched_create(&s, &sched_ticket_ops, "d = \"3ms\";", &env);
	put(&s, CLS_CS0, 1, 1000, 0);
	put(&s, CLS_CS0, 2, 1500, 0);
	put(&s, CLS_AF, 10, 1000, 0);
	put(&s, CLS_EF, 100, 200, 0);
	expect(&s, 0, 1);
	expect(&s, MS(1), 2);
	expect(&s, MS(2.5), 100);
	expect_none(&s, MS(2.7));
	assert_int_equal(tu_drops(DROP_ORDER), 1);
	assert_int_equal(tu_drops_take(), 1);
	assert_int_equal(stat_of(&s, "out_of_order"), 1);
	assert_int_equal(stat_of(&s, "late"), 0);
	assert_int_equal(stat_of(&s, "tickets"), 1);
	put(&s, CLS_CS0, 3, 1000, MS(3));
	put(&s, CLS_CS0, 4, 1000, MS(3));
	put(&s, CLS_AF, 11, 1000, MS(3));
	assert_int_equal(stat_of(&s, "tickets"), 2);
	expect(&s, MS(3), 11);
	expect(&s, MS(4), 3);
	expect(&s, MS(5), 4);
	expect_none(&s, MS(6));
	assert_int_equal(stat_of(&s, "tickets"), 1);
	sched_destroy(&s);
}

/* Traps 2 and 8, and the difference to the naive scheduler.  d = 2.  At
 * 0: e1 (ticket 1), b1, b2, b3.  At 3 e1 is late: dropped (not b1, as
 * line 21's `drop(p_b)` reads); e is empty, so Q_e = ∞ although ticket 1
 * waits in q: b1 at 3.  At 3.5 e2 arrives (τ 5.5) and takes ticket 1:
 * e2 at 4, ahead of b2 and b3.  The naive scheduler serves its one buffer
 * in arrival order: b2 at 4, b3 at 5, and e2 at 6 is late - dropped. */
static void run_jump_ahead(const char *params, int naive)
{
	struct sched s;

	tu_sched_create(&s, &sched_ticket_ops, params, &env);
	put(&s, CLS_AF, 10, 1000, 0);
	put(&s, CLS_CS0, 1, 1000, 0);
	put(&s, CLS_CS0, 2, 1000, 0);
	put(&s, CLS_CS0, 3, 1000, 0);
	expect(&s, MS(3), 1);
	assert_int_equal(tu_drops(DROP_LATE), 1);
	assert_int_equal(stat_of(&s, "tickets"), naive ? 0 : 1);
	put(&s, CLS_AF, 11, 1000, MS(3.5));
	if (naive) {
		expect(&s, MS(4), 2);
		expect(&s, MS(5), 3);
		expect_none(&s, MS(6));
		assert_int_equal(tu_drops(DROP_LATE), 2);
	} else {
		expect(&s, MS(4), 11);
		expect(&s, MS(5), 2);
		expect(&s, MS(6), 3);
		expect_none(&s, MS(7));
		assert_int_equal(tu_drops(DROP_LATE), 1);
		assert_int_equal(stat_of(&s, "tickets"), 1);
	}
	assert_int_equal(stat_of(&s, "late"), naive ? 2 : 1);
	tu_drops_take();
	sched_destroy(&s);
}

static void test_late_drop_and_jump_ahead(void **state)
{
	(void)state;
	run_jump_ahead("d = \"2ms\";", 0);
	run_jump_ahead("d = \"2ms\"; variant = \"naive\";", 1);
}

/* §2.4.2: a ticket is pushed only while q is not full.  n_eb = n_q = 2,
 * d = 2.  e1, e2 at 0 (tickets 1, 2: q full), both late at 5; e3 at 5
 * finds q full: no ticket pushed (still 2); b1 at 5 (ticket 4).  e3 uses
 * ticket 1 and goes first; e4 at 6 pushes ticket 5 into the freed slot. */
static void test_ticket_buffer_full(void **state)
{
	struct sched s;

	(void)state;
	tu_sched_create(&s, &sched_ticket_ops, "d = \"2ms\"; n_eb = 2;", &env);
	put(&s, CLS_AF, 10, 1000, 0);
	put(&s, CLS_AF, 11, 1000, 0);
	assert_int_equal(stat_of(&s, "tickets"), 2);
	expect_none(&s, MS(5));
	assert_int_equal(tu_drops(DROP_LATE), 2);
	put(&s, CLS_AF, 12, 1000, MS(5));
	assert_int_equal(stat_of(&s, "tickets"), 2);
	put(&s, CLS_CS0, 1, 1000, MS(5));
	expect(&s, MS(5), 12);
	assert_int_equal(stat_of(&s, "tickets"), 1);
	put(&s, CLS_AF, 13, 1000, MS(6));
	assert_int_equal(stat_of(&s, "tickets"), 2);
	expect(&s, MS(6), 13);      /* ticket 2 < 4 */
	expect(&s, MS(7), 1);
	expect_none(&s, MS(8));
	assert_int_equal(tu_drops_take(), 2);
	sched_destroy(&s);
}

/* N_eb bounds n_e + n_b whatever the class; EF has its own buffer (the
 * class limit of EF): overflow drops are counted per class. */
static void test_common_limit(void **state)
{
	struct sched_env e2 = env;
	struct sched s;

	(void)state;
	e2.limit_pkts[CLS_EF] = 2;
	tu_sched_create(&s, &sched_ticket_ops, "n_eb = 3;", &e2);
	put(&s, CLS_AF, 10, 1000, 0);
	put(&s, CLS_CS0, 1, 1000, 0);
	put(&s, CLS_AF, 11, 1000, 0);
	put(&s, CLS_CS0, 2, 1000, 0);   /* n_e + n_b = 3: refused */
	put(&s, CLS_AF, 12, 1000, 0);   /* refused */
	put(&s, CLS_EF, 100, 1000, 0);
	put(&s, CLS_EF, 101, 1000, 0);
	put(&s, CLS_EF, 102, 1000, 0);  /* c full */
	assert_int_equal(tu_drops(DROP_SCHED_LIMIT), 3);
	assert_int_equal(tu_drops_take(), 3);
	assert_int_equal(stat_of(&s, "overflow.ef"), 1);
	assert_int_equal(stat_of(&s, "overflow.af"), 1);
	assert_int_equal(stat_of(&s, "overflow.cs0"), 1);
	/* tickets e1 1, b1 2, e2 3; c1 and c2 (τ 10) wait: e1, b1, e2,
	 * then line 4 */
	expect(&s, 0, 10);
	expect(&s, MS(1), 1);
	expect(&s, MS(2), 11);
	expect(&s, MS(3), 100);
	expect(&s, MS(4), 101);
	expect_none(&s, MS(5));
	sched_destroy(&s);
}

/* drain: c, e, b in arrival order, Δ undone, tickets returned; the
 * instance then schedules afresh. */
static void test_drain(void **state)
{
	struct sched s;
	struct pkt *p;
	uint32_t want[] = { 100, 101, 10, 1 }, i = 0;

	(void)state;
	tu_sched_create(&s, &sched_ticket_ops, NULL, &env);
	put(&s, CLS_CS0, 1, 1000, 0);
	put(&s, CLS_EF, 100, 1000, 0);
	put(&s, CLS_AF, 10, 1000, 0);
	put(&s, CLS_EF, 101, 1000, 0);
	assert_int_equal(stat_of(&s, "delta_ns"), MS(1));
	while ((p = s.ops->drain(s.priv))) {
		assert_true(i < TU_LEN(want));
		assert_int_equal(p->seq, want[i++]);
		pkt_free(p);
	}
	assert_int_equal(i, TU_LEN(want));
	assert_int_equal(stat_of(&s, "delta_ns"), 0);
	assert_int_equal(stat_of(&s, "tickets"), 0);
	put(&s, CLS_EF, 102, 1000, MS(1));
	expect(&s, MS(1), 102);
	sched_destroy(&s);
}

/* The keys: n_q below n_eb and an unknown variant are refused, with the
 * key and the accepted values; the defaults are documented ones. */
static void test_config(void **state)
{
	struct conf c;

	(void)state;
	assert_int_equal(tu_conf_load_text(
		"scheduler = { name = \"ticket\"; ticket = { n_eb = 300; "
		"n_q = 200; variant = \"fast\"; }; };", "t.conf", &c), 2);
	assert_non_null(strstr(tu_conf_diag(), "scheduler.ticket.n_q: 200 is "
			       "below n_eb = 300"));
	assert_non_null(strstr(tu_conf_diag(), "scheduler.ticket.variant: "
			       "'fast' is not a variant"));
	assert_int_equal(tu_conf_load_text(
		"scheduler = { name = \"ticket\"; ticket = { d = \"2ms\"; "
		"n_q = 300; variant = \"naive\"; }; };", "t.conf", &c), 0);
	conf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_conforming_waits_until_deadline, setup,
			tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_overlap_delta, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_late_test_without_delta,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_order_drop_keeps_ticket,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_late_drop_and_jump_ahead,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_ticket_buffer_full, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_common_limit, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_drain, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_config, setup,
						tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
