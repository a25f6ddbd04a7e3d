/* test_dwrr.c - the dwrr scheduler: EF strict priority above Deficit Round
 * Robin between AF and CS0.  Deterministic; runs in tests/unit (fixtures
 * under data/dwrr/).  Expected orders are worked out by hand in the
 * comments; one test also compares against a literal transcription of
 * Shreedhar & Varghese's loop. */
#include <libconfig.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf/conf.h"
#include "pkt/pkt.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "testutil.h"

#define POOL_PKTS 512u
#define D "data/dwrr/"

static struct sched_env env;

/* dwrr never drops (the core enforces the class limits): the teardown
 * fails on any drop that no test took. */
static int setup(void **state)
{
	(void)state;
	tu_sched_env(&env, 20000000);
	return tu_pool_init(POOL_PKTS, 1500);
}

/* ---- helpers ------------------------------------------------------------ */

/* Each live instance's stats memo, so that "rounds" reads as the stats
 * line shows it: quanta since the previous stats() of that instance. */
static struct {
	const void *priv;
	struct jw_memo memo;
} memos[2];

/* Gives instance s a fresh memo (make() calls it: a new instance may
 * reuse a destroyed one's address), taking over the least recent slot. */
static void memo_new(const struct sched *s)
{
	static unsigned int turn;
	unsigned int i = turn++ % 2;

	memos[i].priv = s->priv;
	jw_memo_reset(&memos[i].memo);
}

/* The scheduler's stats members as one line "{...}\n", "rounds" as a
 * delta since the previous call for the same instance. */
static const char *stats(struct sched *s)
{
	static char buf[512];
	struct jw w;
	unsigned int i;

	for (i = 0; i < 2 && memos[i].priv != s->priv; i++)
		;
	assert_true(i < 2);
	jw_init(&w, buf, sizeof(buf));
	jw_use_memo(&w, &memos[i].memo);
	jw_obj_begin(&w, NULL);
	s->ops->dump_stats(s->priv, &w);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	jw_memo_commit(&memos[i].memo);
	return buf;
}

/* An instance configured by `text` (the body of a scheduler.dwrr group,
 * libconfig syntax), or with the defaults when text is NULL. */
static void make(struct sched *s, const char *text)
{
	tu_sched_create(s, &sched_dwrr_ops, text, &env);
	memo_new(s);
}

/* A packet of class cls and len bytes, identified by id (kept in seq). */
static struct pkt *mk(enum pkt_class cls, uint32_t id, uint32_t len)
{
	struct pkt *p = tu_pkt(cls, len, id);

	p->enq_ns = 1000 + id;
	return p;
}

static void put(struct sched *s, enum pkt_class cls, uint32_t id,
		uint32_t len)
{
	sched_enqueue(s, mk(cls, id, len), 0);
}

/* Dequeues one packet, checks peek announced it and that it is `id`,
 * returns its class and frees it. */
static enum pkt_class expect_next(struct sched *s, uint32_t id)
{
	const struct pkt *peeked = s->ops->peek(s->priv, 0);
	struct pkt *p = sched_dequeue(s, 0);
	enum pkt_class c;

	assert_non_null(p);
	assert_ptr_equal(peeked, p);
	if (p->seq != id)
		fail_msg("dequeued %u, expected %u", p->seq, id);
	assert_true(p->enq_ns == 1000 + id);
	c = (enum pkt_class)p->cls;
	pkt_free(p);
	return c;
}

/* Checks a whole scripted order. */
static void expect_seq(struct sched *s, const uint32_t *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		expect_next(s, ids[i]);
}

static void expect_empty(struct sched *s)
{
	assert_null(s->ops->peek(s->priv, 0));
	assert_null(sched_dequeue(s, 0));
	assert_true(sched_next_event(s, 0) == TS_NEVER);
}

#define STATS(ad, ar, aq, cd, cr, cq) \
	"{\"af\": {\"deficit\": " #ad ", \"rounds\": " #ar ", \"quantum\": " \
	#aq "}, \"cs0\": {\"deficit\": " #cd ", \"rounds\": " #cr \
	", \"quantum\": " #cq "}}\n"

/* A deterministic pseudo-random sequence (64-bit LCG, high bits). */
static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((lcg_state >> 33) % n);
}

/* ---- registry, defaults, stats ------------------------------------------ */

static void test_registry_and_defaults(void **state)
{
	alignas(16) unsigned char zero[SCHED_PARAMS_MAX];
	char names[256];
	struct sched s;
	int i, after_prio = 0;

	(void)state;
	assert_ptr_equal(sched_lookup("dwrr"), &sched_dwrr_ops);
	sched_names(names, sizeof(names));
	assert_non_null(strstr(names, "fifo | prio | "));
	assert_non_null(strstr(names, " | dwrr"));
	/* registered after prio */
	for (i = 0; sched_registry[i]; i++) {
		if (sched_registry[i] == sched_lookup("prio"))
			after_prio = 1;
		if (sched_registry[i] == &sched_dwrr_ops)
			assert_true(after_prio);
	}

	/* DESIGN §2 defaults: quantum af 4500, cs0 3000 */
	make(&s, NULL);
	assert_string_equal(stats(&s), STATS(0, 0, 4500, 0, 0, 3000));
	expect_empty(&s);
	sched_destroy(&s);

	/* params that did not come from defaults()/parse() are refused:
	 * a zero quantum would never let a packet fit */
	memset(zero, 0, sizeof(zero));
	assert_int_equal(sched_create(&s, &sched_dwrr_ops, zero, &env), -1);
	assert_null(s.ops);
}

/* ---- scripted orders ---------------------------------------------------- */

/* Quanta AF 3000, CS0 1500, every packet 1500 bytes, AF queued first.
 * Each AF turn fits two packets, each CS0 turn one:
 *   A1 A2 C1 A3 A4 C2 A5 A6 C3 A7 A8 C4. */
static void test_order_equal_sizes(void **state)
{
	static const uint32_t want[] = {
		1, 2, 101, 3, 4, 102, 5, 6, 103, 7, 8, 104
	};
	/* CS0 queued first heads the round: C1 A1 A2 C2 A3 A4 ... */
	static const uint32_t want_cs0_first[] = {
		101, 1, 2, 102, 3, 4, 103, 104
	};
	struct sched s;
	uint32_t i;

	(void)state;
	make(&s, "quantum = { af = 3000; cs0 = 1500; };");
	for (i = 1; i <= 8; i++)
		put(&s, CLS_AF, i, 1500);
	for (i = 101; i <= 104; i++)
		put(&s, CLS_CS0, i, 1500);
	expect_seq(&s, want, sizeof(want) / sizeof(want[0]));
	expect_empty(&s);
	sched_destroy(&s);

	make(&s, "quantum = { af = 3000; cs0 = 1500; };");
	for (i = 101; i <= 104; i++)
		put(&s, CLS_CS0, i, 1500);
	for (i = 1; i <= 4; i++)
		put(&s, CLS_AF, i, 1500);
	expect_seq(&s, want_cs0_first,
		   sizeof(want_cs0_first) / sizeof(want_cs0_first[0]));
	expect_empty(&s);
	sched_destroy(&s);
}

/* Quanta AF 3000, CS0 1500; AF a1..a5 = 2000 1500 700 1400 300,
 * CS0 c1..c4 = 1000 1200 400 1500, AF queued first.
 *   AF turn 1:  0 + 3000 = 3000; a1 -> 1000; a2 (1500) > 1000: ends
 *   CS0 turn 1: 0 + 1500 = 1500; c1 -> 500;  c2 (1200) > 500: ends
 *   AF turn 2:  1000 + 3000 = 4000; a2 -> 2500, a3 -> 1800, a4 -> 400,
 *               a5 -> 100; AF empty: leaves, deficit 0
 *   CS0 turn 2: 500 + 1500 = 2000; c2 -> 800, c3 -> 400; c4 > 400: ends
 *   CS0 turn 3 (alone): 400 + 1500 = 1900; c4 -> 400; empty: deficit 0
 * Order a1 c1 a2 a3 a4 a5 c2 c3 c4. */
static void test_order_mixed_sizes(void **state)
{
	struct sched s;

	(void)state;
	make(&s, "quantum = { af = 3000; cs0 = 1500; };");
	put(&s, CLS_AF, 1, 2000);
	put(&s, CLS_AF, 2, 1500);
	put(&s, CLS_AF, 3, 700);
	put(&s, CLS_AF, 4, 1400);
	put(&s, CLS_AF, 5, 300);
	put(&s, CLS_CS0, 101, 1000);
	put(&s, CLS_CS0, 102, 1200);
	put(&s, CLS_CS0, 103, 400);
	put(&s, CLS_CS0, 104, 1500);

	expect_next(&s, 1);
	assert_string_equal(stats(&s), STATS(1000, 1, 3000, 0, 0, 1500));
	expect_next(&s, 101);
	/* both carry their remainder into the next round */
	assert_string_equal(stats(&s), STATS(1000, 0, 3000, 500, 1, 1500));
	expect_next(&s, 2);
	assert_string_equal(stats(&s), STATS(2500, 1, 3000, 500, 0, 1500));
	expect_next(&s, 3);
	expect_next(&s, 4);
	assert_string_equal(stats(&s), STATS(400, 0, 3000, 500, 0, 1500));
	expect_next(&s, 5);
	/* 100 bytes left, but AF went idle: no hoarding */
	assert_string_equal(stats(&s), STATS(0, 0, 3000, 500, 0, 1500));
	expect_next(&s, 102);
	expect_next(&s, 103);
	assert_string_equal(stats(&s), STATS(0, 0, 3000, 400, 1, 1500));
	expect_next(&s, 104);
	assert_string_equal(stats(&s), STATS(0, 0, 3000, 0, 1, 1500));
	expect_empty(&s);
	sched_destroy(&s);
}

/* EF preempts at every dequeue and leaves the DRR round untouched.
 * Quanta 3000/1500, 1500-byte packets, AF a1..a3, CS0 c1 c2, EF e1:
 *   e1; a1 (AF turn 1: 3000 -> 1500); e2 e3 arrive: e2 e3;
 *   a2 (AF's turn goes on: 1500 -> 0); c1 (a3 does not fit: CS0 turn);
 *   e4 arrives: e4; a3 (AF turn 2, then empty); c2. */
static void test_ef_strict_priority(void **state)
{
	struct sched s;

	(void)state;
	make(&s, "quantum = { af = 3000; cs0 = 1500; };");
	put(&s, CLS_AF, 1, 1500);
	put(&s, CLS_AF, 2, 1500);
	put(&s, CLS_AF, 3, 1500);
	put(&s, CLS_CS0, 101, 1500);
	put(&s, CLS_CS0, 102, 1500);
	put(&s, CLS_EF, 201, 200);

	assert_int_equal(expect_next(&s, 201), CLS_EF);
	expect_next(&s, 1);
	put(&s, CLS_EF, 202, 1500);
	put(&s, CLS_EF, 203, 100);
	expect_next(&s, 202);
	expect_next(&s, 203);
	/* EF took no deficit from AF */
	assert_string_equal(stats(&s), STATS(1500, 1, 3000, 0, 0, 1500));
	expect_next(&s, 2);
	expect_next(&s, 101);
	put(&s, CLS_EF, 204, 1500);
	expect_next(&s, 204);
	expect_next(&s, 3);
	expect_next(&s, 102);
	expect_empty(&s);

	/* EF alone, and EF while DRR holds packets: EF first each time */
	put(&s, CLS_EF, 205, 64);
	expect_next(&s, 205);
	put(&s, CLS_CS0, 103, 1500);
	put(&s, CLS_EF, 206, 64);
	put(&s, CLS_AF, 4, 1500);
	put(&s, CLS_EF, 207, 64);
	expect_next(&s, 206);
	expect_next(&s, 207);
	expect_next(&s, 103);
	expect_next(&s, 4);
	expect_empty(&s);
	sched_destroy(&s);
}

/* Quanta 3000/3000.  AF sends one 1000-byte packet alone and empties
 * with 2000 bytes left, which it loses.  Then AF a b c and CS0 x y z,
 * 1500 bytes each, AF queued first:
 *   AF turn: 0 + 3000 -> a, b (0 left); CS0 turn: 3000 -> x, y;
 *   AF turn: 3000 -> c (empty: 0); CS0: z.
 * Order a b x y c z.  Had AF kept the 2000 it would have sent a b c
 * (5000 >= 4500) before x. */
static void test_idle_class_loses_deficit(void **state)
{
	static const uint32_t want[] = { 2, 3, 101, 102, 4, 103 };
	struct sched s;

	(void)state;
	make(&s, "quantum = { af = 3000; cs0 = 3000; };");
	put(&s, CLS_AF, 1, 1000);
	expect_next(&s, 1);
	assert_string_equal(stats(&s), STATS(0, 1, 3000, 0, 0, 3000));
	expect_empty(&s);

	put(&s, CLS_AF, 2, 1500);
	put(&s, CLS_AF, 3, 1500);
	put(&s, CLS_AF, 4, 1500);
	put(&s, CLS_CS0, 101, 1500);
	put(&s, CLS_CS0, 102, 1500);
	put(&s, CLS_CS0, 103, 1500);
	/* a newly active class starts at 0 and gets its quantum on its turn */
	assert_string_equal(stats(&s), STATS(0, 0, 3000, 0, 0, 3000));
	expect_seq(&s, want, sizeof(want) / sizeof(want[0]));
	expect_empty(&s);
	sched_destroy(&s);
}

/* Quanta 64/64 (the minimum), AF one 1500-byte packet, CS0 twenty
 * 100-byte packets, AF queued first.  AF needs ceil(1500/64) = 24 turns
 * (23 x 64 = 1472 < 1500 <= 1536).  Before AF's 24th turn CS0 has had 23
 * turns = 1472 bytes: floor(1472/100) = 14 packets, 72 bytes left.
 * Then AF (1536 - 1500 = 36 left, lost as AF empties).  CS0 alone:
 *   turn 24: 136 -> send, 36;  25: 100 -> send, 0;  26: 64;
 *   27: 128 -> send, 28;  28: 92;  29: 156 -> send, 56;
 *   30: 120 -> send, 20;  31: 84;  32: 148 -> send, 48, empty -> 0
 * so the last six take 9 more turns. */
static void test_packets_larger_than_quantum(void **state)
{
	struct sched s;
	uint32_t i;

	(void)state;
	make(&s, "quantum = { af = 64; cs0 = 64; };");
	put(&s, CLS_AF, 1, 1500);
	for (i = 0; i < 20; i++)
		put(&s, CLS_CS0, 101 + i, 100);
	for (i = 0; i < 14; i++)
		assert_int_equal(expect_next(&s, 101 + i), CLS_CS0);
	assert_int_equal(expect_next(&s, 1), CLS_AF);
	assert_string_equal(stats(&s), STATS(0, 24, 64, 72, 23, 64));
	for (i = 14; i < 20; i++)
		expect_next(&s, 101 + i);
	/* "rounds" counts since the previous stats line */
	assert_string_equal(stats(&s), STATS(0, 0, 64, 0, 9, 64));
	expect_empty(&s);
	sched_destroy(&s);
}

/* ---- long-run shares ---------------------------------------------------- */

struct share_case {
	const char *conf;
	/* eq. 2 inputs, independent of how the config spells them */
	uint64_t w_af, l_af, w_cs0, l_cs0;
	/* actual packet sizes, cycled per class (mean = l_*) */
	uint32_t af_sizes[4], cs0_sizes[4];
	unsigned int n_af, n_cs0;
};

/* Both classes kept backlogged (each dequeued packet is replaced by one
 * of its class).  At the start of every AF turn after the first (a CS0
 * packet followed by an AF one) both classes have had r turns, so
 * sent_i = r * Q_i - d_i with 0 <= d_i < L_max,i, and with
 * K = Q_AF / (Q_AF + Q_CS0):
 *   sent_AF - K * total = K * d_CS0 - (1 - K) * d_AF,   |.| < L_max:
 * the AF share is K_AF of eq. 2 within one packet, checked in integers
 * as |sent_AF * Q_CS0 - sent_CS0 * Q_AF| < L_max * (Q_AF + Q_CS0). */
static void run_shares(const struct share_case *sc, unsigned int ndeq)
{
	uint64_t q_af = sc->w_af * sc->l_af, q_cs0 = sc->w_cs0 * sc->l_cs0;
	uint64_t sent[NCLASS] = { 0 }, lmax = 0;
	unsigned int next[NCLASS] = { 0 }, i, boundaries = 0;
	enum pkt_class prev = CLS_EF;
	uint32_t id = 0;
	struct sched s;
	double k_af, share;

	for (i = 0; i < sc->n_af; i++)
		lmax = sc->af_sizes[i] > lmax ? sc->af_sizes[i] : lmax;
	for (i = 0; i < sc->n_cs0; i++)
		lmax = sc->cs0_sizes[i] > lmax ? sc->cs0_sizes[i] : lmax;

	make(&s, sc->conf);
	for (i = 0; i < 4; i++) {
		put(&s, CLS_AF, id++, sc->af_sizes[next[CLS_AF]++ % sc->n_af]);
		put(&s, CLS_CS0, id++,
		    sc->cs0_sizes[next[CLS_CS0]++ % sc->n_cs0]);
	}
	for (i = 0; i < ndeq; i++) {
		struct pkt *p = sched_dequeue(&s, 0);
		enum pkt_class c;

		assert_non_null(p);
		c = (enum pkt_class)p->cls;
		if (prev == CLS_CS0 && c == CLS_AF) {
			uint64_t a = sent[CLS_AF] * q_cs0;
			uint64_t b = sent[CLS_CS0] * q_af;

			boundaries++;
			assert_true((a > b ? a - b : b - a) <
				    lmax * (q_af + q_cs0));
		}
		sent[c] += p->len_bytes;
		prev = c;
		pkt_free(p);
		if (c == CLS_AF)
			put(&s, CLS_AF, id++,
			    sc->af_sizes[next[CLS_AF]++ % sc->n_af]);
		else
			put(&s, CLS_CS0, id++,
			    sc->cs0_sizes[next[CLS_CS0]++ % sc->n_cs0]);
	}
	/* every turn sends (Q_i >= every packet of i): one boundary a round */
	assert_true(boundaries * (q_af + q_cs0) + 2 * (q_af + q_cs0) >=
		    (sent[CLS_AF] + sent[CLS_CS0]));
	assert_true(boundaries > 1000);

	k_af = (double)(sc->w_af * sc->l_af) /
	       (double)(sc->w_af * sc->l_af + sc->w_cs0 * sc->l_cs0);
	share = (double)sent[CLS_AF] / (double)(sent[CLS_AF] + sent[CLS_CS0]);
	/* the final prefix may stop mid-round: within one AF turn */
	assert_true(share > k_af - (double)(q_af + lmax) /
			(double)(sent[CLS_AF] + sent[CLS_CS0]));
	assert_true(share < k_af + (double)(q_af + lmax) /
			(double)(sent[CLS_AF] + sent[CLS_CS0]));
	sched_destroy(&s);
}

/* Weights 9:2 of 1500-byte packets: K_AF = 9 * 1500 / (9 * 1500 + 2 *
 * 1500) = 9/11 = 0.818...; every round is exactly 9 AF then 2 CS0. */
static void test_shares_equal_sizes(void **state)
{
	static const struct share_case sc = {
		"weights = { af = 9; cs0 = 2; }; packet_size = 1500;",
		9, 1500, 2, 1500, { 1500 }, { 1500 }, 1, 1
	};
	struct sched s;
	unsigned int r, i;
	uint32_t id = 0;

	(void)state;
	run_shares(&sc, 110000);

	make(&s, sc.conf);
	for (i = 0; i < 10; i++) {
		put(&s, CLS_AF, id++, 1500);
		put(&s, CLS_CS0, id++, 1500);
	}
	for (r = 0; r < 1000; r++) {
		for (i = 0; i < 11; i++) {
			struct pkt *p = sched_dequeue(&s, 0);

			assert_non_null(p);
			assert_int_equal(p->cls, i < 9 ? CLS_AF : CLS_CS0);
			put(&s, (enum pkt_class)p->cls, id++, 1500);
			pkt_free(p);
		}
	}
	sched_destroy(&s);
}

/* Unequal sizes, eq. 2 with per-class L:
 *   AF 1500-byte, CS0 500-byte packets, weights 9:2:
 *     K_AF = 9 * 1500 / (9 * 1500 + 2 * 500) = 13500 / 14500 = 0.931;
 *   sizes varying inside each class, AF {1500, 1000, 500} (mean 1000),
 *   CS0 {200, 600} (mean 400), weights 9:2:
 *     K_AF = 9000 / (9000 + 800) = 0.918;
 *   the same byte quanta given directly. */
static void test_shares_unequal_sizes(void **state)
{
	static const struct share_case fixed = {
		"weights = { af = 9; cs0 = 2; };"
		"packet_size = { af = 1500; cs0 = 500; };",
		9, 1500, 2, 500, { 1500 }, { 500 }, 1, 1
	};
	static const struct share_case mixed = {
		"weights = { af = 9; cs0 = 2; };"
		"packet_size = { af = 1000; cs0 = 400; };",
		9, 1000, 2, 400, { 1500, 1000, 500 }, { 200, 600 }, 3, 2
	};
	static const struct share_case bytes = {
		"quantum = { af = 9000; cs0 = 800; };",
		9, 1000, 2, 400, { 1500, 1000, 500 }, { 200, 600 }, 3, 2
	};

	(void)state;
	run_shares(&fixed, 100000);
	run_shares(&mixed, 100000);
	run_shares(&bytes, 100000);
}

/* ---- weights form = quantum form ---------------------------------------- */

/* The same random traffic through "weights 9:2 x 1500" and "quantum
 * 13500/3000" leaves in the same order with the same state. */
static void test_weights_equal_quantum(void **state)
{
	struct sched a, b;
	uint32_t id = 0;
	int i;

	(void)state;
	make(&a, "weights = { af = 9; cs0 = 2; }; packet_size = 1500;");
	make(&b, "quantum = { af = 13500; cs0 = 3000; };");
	assert_string_equal(stats(&a), STATS(0, 0, 13500, 0, 0, 3000));
	assert_string_equal(stats(&b), STATS(0, 0, 13500, 0, 0, 3000));
	lcg_state = 42;
	for (i = 0; i < 20000; i++) {
		if (lcg(3) && pkt_pool_in_use() + 2 <= POOL_PKTS) {
			enum pkt_class c = (enum pkt_class)lcg(NCLASS);
			uint32_t len = 40 + lcg(1461);

			put(&a, c, id, len);
			put(&b, c, id, len);
			id++;
		} else {
			struct pkt *pa = sched_dequeue(&a, 0);
			struct pkt *pb = sched_dequeue(&b, 0);

			assert_true((pa == NULL) == (pb == NULL));
			if (pa) {
				assert_int_equal(pa->seq, pb->seq);
				pkt_free(pa);
				pkt_free(pb);
			}
		}
		if (i % 1000 == 0) {
			char sa[512];

			snprintf(sa, sizeof(sa), "%s", stats(&a));
			assert_string_equal(sa, stats(&b));
		}
	}
	sched_destroy(&a);
	sched_destroy(&b);
}

/* ---- against the textbook loop ------------------------------------------ */

#define REF_QLEN 1024u

/* Shreedhar & Varghese's DRR transcribed literally: the head of the
 * ActiveList gets its quantum when its turn starts, sends while the head
 * packet fits, goes to the tail when it does not, leaves with deficit 0
 * when it empties.  EF strict above it. */
struct ref_q {
	uint32_t id[REF_QLEN], len[REF_QLEN];
	unsigned int head, n;
};

struct ref_drr {
	struct ref_q q[NCLASS];         /* by class */
	uint64_t quantum[NCLASS], deficit[NCLASS], rounds[NCLASS];
	enum pkt_class list[2];
	unsigned int nlist;
	int in_turn;
};

static void ref_push(struct ref_drr *r, enum pkt_class c, uint32_t id,
		     uint32_t len)
{
	struct ref_q *q = &r->q[c];

	assert_true(q->n < REF_QLEN);
	if (c != CLS_EF && q->n == 0)
		r->list[r->nlist++] = c;
	q->id[(q->head + q->n) % REF_QLEN] = id;
	q->len[(q->head + q->n) % REF_QLEN] = len;
	q->n++;
}

static uint32_t ref_pop(struct ref_q *q)
{
	uint32_t id = q->id[q->head];

	q->head = (q->head + 1) % REF_QLEN;
	q->n--;
	return id;
}

/* The id of the next packet, or UINT32_MAX when empty. */
static uint32_t ref_dequeue(struct ref_drr *r)
{
	if (r->q[CLS_EF].n)
		return ref_pop(&r->q[CLS_EF]);
	while (r->nlist) {
		enum pkt_class c = r->list[0];
		struct ref_q *q = &r->q[c];
		uint32_t id;

		if (!r->in_turn) {
			r->deficit[c] += r->quantum[c];
			r->rounds[c]++;
			r->in_turn = 1;
		}
		if (q->len[q->head] <= r->deficit[c]) {
			r->deficit[c] -= q->len[q->head];
			id = ref_pop(q);
			if (!q->n) {
				r->deficit[c] = 0;
				r->list[0] = r->list[1];
				r->nlist--;
				r->in_turn = 0;
			}
			return id;
		}
		r->in_turn = 0;
		if (r->nlist == 2) {
			r->list[0] = r->list[1];
			r->list[1] = c;
		}
	}
	return UINT32_MAX;
}

/* The reference's stats line, as stats() reads dwrr_dump_stats(): round
 * counts since the previous call. */
static const char *ref_stats(struct ref_drr *r)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "{\"af\": {\"deficit\": %llu, "
		 "\"rounds\": %llu, \"quantum\": %llu}, \"cs0\": "
		 "{\"deficit\": %llu, \"rounds\": %llu, \"quantum\": "
		 "%llu}}\n",
		 (unsigned long long)r->deficit[CLS_AF],
		 (unsigned long long)r->rounds[CLS_AF],
		 (unsigned long long)r->quantum[CLS_AF],
		 (unsigned long long)r->deficit[CLS_CS0],
		 (unsigned long long)r->rounds[CLS_CS0],
		 (unsigned long long)r->quantum[CLS_CS0]);
	r->rounds[CLS_AF] = r->rounds[CLS_CS0] = 0;
	return buf;
}

/* One dequeue from both; they must agree (and peek with dequeue). */
static void compare_dequeue(struct sched *s, struct ref_drr *r, int step)
{
	const struct pkt *pk = s->ops->peek(s->priv, 0);
	struct pkt *p = sched_dequeue(s, 0);
	uint32_t rid = ref_dequeue(r);

	assert_ptr_equal(pk, p);
	if (rid == UINT32_MAX) {
		/* work-conserving: NULL only when nothing is held */
		assert_null(p);
		assert_int_equal(pkt_pool_in_use(), 0);
		return;
	}
	assert_non_null(p);
	if (p->seq != rid)
		fail_msg("quanta %llu/%llu step %d: got %u, textbook %u",
			 (unsigned long long)r->quantum[CLS_AF],
			 (unsigned long long)r->quantum[CLS_CS0], step, p->seq,
			 rid);
	pkt_free(p);
}

/* Random arrivals of random sizes (including packets several quanta
 * long), various quanta: identical order, deficits and round counts. */
static void test_matches_textbook_drr(void **state)
{
	static const uint64_t quanta[][2] = {
		{ 3000, 1500 }, { 64, 64 }, { 64, 1500 }, { 1500, 100 },
		{ 13500, 3000 }, { 777, 333 },
	};
	static struct ref_drr ref;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(quanta) / sizeof(quanta[0]); k++) {
		char text[128];
		struct sched s;
		uint32_t id = 0;
		int i;

		memset(&ref, 0, sizeof(ref));
		ref.quantum[CLS_AF] = quanta[k][0];
		ref.quantum[CLS_CS0] = quanta[k][1];
		snprintf(text, sizeof(text),
			 "quantum = { af = %llu; cs0 = %llu; };",
			 (unsigned long long)quanta[k][0],
			 (unsigned long long)quanta[k][1]);
		make(&s, text);
		lcg_state = 1000 + k;
		for (i = 0; i < 30000; i++) {
			/* alternately more and fewer arrivals: queues build
			 * up, drain and restart, exercising (de)activation */
			int arrive = lcg(100) < (i % 4000 < 2000 ? 55 : 40);

			if (arrive && pkt_pool_in_use() < POOL_PKTS) {
				/* EF rarer, so the DRR part dominates */
				uint32_t r = lcg(10);
				enum pkt_class c = r == 0 ? CLS_EF :
						   r < 6 ? CLS_AF : CLS_CS0;
				uint32_t len = 40 + lcg(1461);

				put(&s, c, id, len);
				ref_push(&ref, c, id, len);
				id++;
			} else {
				compare_dequeue(&s, &ref, i);
			}
			if (i % 97 == 0)
				assert_string_equal(stats(&s), ref_stats(&ref));
		}
		sched_destroy(&s);
	}
}

/* ---- drain and destroy -------------------------------------------------- */

/* drain: EF, then AF, then CS0, each in arrival order, whatever the DRR
 * state; afterwards the instance is empty with no deficit held. */
static void test_drain_order(void **state)
{
	static const uint32_t want[] = {
		202, 203, 2, 3, 4, 5, 6, 103, 104
	};
	struct sched s;
	struct pkt *p;
	size_t n = 0;

	(void)state;
	make(&s, "quantum = { af = 1500; cs0 = 1500; };");
	put(&s, CLS_CS0, 101, 1000);
	put(&s, CLS_AF, 1, 1000);
	put(&s, CLS_EF, 201, 100);
	put(&s, CLS_CS0, 102, 1000);
	put(&s, CLS_AF, 2, 1000);
	put(&s, CLS_AF, 3, 1000);
	put(&s, CLS_CS0, 103, 1000);
	put(&s, CLS_AF, 4, 1000);
	put(&s, CLS_CS0, 104, 1000);
	put(&s, CLS_AF, 5, 1000);
	/* CS0 heads the round: e201; c101 (turn 1: 1500 -> 500 left);
	 * a1 (turn 1: 1500 -> 500); c102 (turn 2: 500 + 1500 -> 1000) */
	expect_next(&s, 201);
	expect_next(&s, 101);
	expect_next(&s, 1);
	expect_next(&s, 102);
	/* CS0 is mid-turn and both hold deficit; drain ignores the policy */
	assert_string_equal(stats(&s), STATS(500, 1, 1500, 1000, 2, 1500));
	put(&s, CLS_EF, 202, 100);
	put(&s, CLS_AF, 6, 1000);
	put(&s, CLS_EF, 203, 100);
	while ((p = s.ops->drain(s.priv))) {
		if (n < sizeof(want) / sizeof(want[0]))
			assert_int_equal(p->seq, want[n]);
		else if (n == sizeof(want) / sizeof(want[0]))
			fail_msg("drained more than expected: %u", p->seq);
		n++;
		pkt_free(p);
	}
	assert_int_equal(n, 0 + sizeof(want) / sizeof(want[0]));
	assert_string_equal(stats(&s), STATS(0, 0, 1500, 0, 0, 1500));
	expect_empty(&s);

	/* the drained instance still schedules correctly */
	put(&s, CLS_AF, 7, 1500);
	put(&s, CLS_CS0, 105, 1500);
	expect_next(&s, 7);
	expect_next(&s, 105);
	expect_empty(&s);
	sched_destroy(&s);
}

static void test_destroy_frees(void **state)
{
	struct sched s;
	uint32_t i;

	(void)state;
	make(&s, NULL);
	for (i = 0; i < 30; i++)
		put(&s, (enum pkt_class)(i % NCLASS), i, 100 + i);
	expect_next(&s, 0);     /* EF first */
	assert_int_equal(pkt_pool_in_use(), 29);
	sched_destroy(&s);
	assert_int_equal(pkt_pool_in_use(), 0);
	assert_null(s.ops);
	sched_destroy(&s);      /* harmless twice */
}

/* ---- configuration files ------------------------------------------------ */

static struct conf g_conf;      /* big: keep it off the stack */
static char *g_text;

/* Loads path, capturing the diagnostics in g_text; checks the count is
 * the number of lines printed. */
static int load(const char *path)
{
	struct diag d;
	size_t len = 0;
	FILE *f;
	int n, lines = 0;
	const char *p;

	free(g_text);
	g_text = NULL;
	f = open_memstream(&g_text, &len);
	assert_non_null(f);
	diag_init(&d, f, path);
	n = conf_load(path, &g_conf, &d);
	fclose(f);
	assert_int_equal(n, d.nerr);
	for (p = g_text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, n);
	return n;
}

static void load_bad(const char *path, int nerr, const char *expected)
{
	int n = load(path);

	assert_string_equal(g_text, expected);
	assert_int_equal(n, nerr);
	free(g_text);
	g_text = NULL;
}

/* A file that loads; its scheduler's stats line (quanta) is `want`. */
static void load_quanta(const char *path, const char *want)
{
	struct sched_env e;
	struct sched s;

	if (load(path) != 0)
		fail_msg("%s: unexpected errors:\n%s", path, g_text);
	free(g_text);
	g_text = NULL;
	assert_ptr_equal(g_conf.sched, &sched_dwrr_ops);
	conf_sched_env(&g_conf, &e);
	assert_int_equal(sched_create(&s, g_conf.sched, g_conf.sched_params,
				      &e), 0);
	memo_new(&s);
	assert_string_equal(stats(&s), want);
	sched_destroy(&s);
	conf_free(&g_conf);
}

static void test_conf_ok(void **state)
{
	(void)state;
	load_quanta(D "quantum.conf", STATS(0, 0, 6000, 0, 0, 1000));
	load_quanta(D "weights.conf", STATS(0, 0, 13500, 0, 0, 3000));
	load_quanta(D "sizes.conf", STATS(0, 0, 9000, 0, 0, 800));
	/* af 5 x 1500; cs0 the default weight 2 x 1500 */
	load_quanta(D "partial.conf", STATS(0, 0, 7500, 0, 0, 3000));
	load_quanta(D "empty.conf", STATS(0, 0, 4500, 0, 0, 3000));
}

#define ACC_FORMS "(accepted: either quantum = { af, cs0 } in bytes, or " \
	"weights = { af, cs0 } with packet_size)"

static void test_conf_errors(void **state)
{
	(void)state;
	load_bad(D "both.conf", 1,
		 D "both.conf:6: scheduler.dwrr.weights: given together with "
		 "quantum (line 5) " ACC_FORMS "\n");
	load_bad(D "range.conf", 2,
		 D "range.conf:5: scheduler.dwrr.quantum.af: 10 is out of "
		 "range (accepted: 64..1000000 bytes)\n"
		 D "range.conf:6: scheduler.dwrr.quantum.cs0: 2000000 is out "
		 "of range (accepted: 64..1000000 bytes)\n");
	load_bad(D "types.conf", 4,
		 D "types.conf:5: scheduler.dwrr.weights.af: 'nine' is not an "
		 "integer (accepted: 1..10000)\n"
		 D "types.conf:6: scheduler.dwrr.weights.cs0: 2.5 is not an "
		 "integer (accepted: 1..10000)\n"
		 D "types.conf:11: scheduler.dwrr.packet_size.ef: unknown key "
		 "(accepted: af, cs0)\n"
		 D "types.conf:10: scheduler.dwrr.packet_size.cs0: 10 is out "
		 "of range (accepted: 64..65535 bytes)\n");
	load_bad(D "unknown.conf", 2,
		 D "unknown.conf:4: scheduler.dwrr.quanta: unknown key "
		 "(accepted: quantum, weights, packet_size)\n"
		 D "unknown.conf:6: scheduler.dwrr.quantum.ef: unknown key "
		 "(accepted: af, cs0)\n");
	load_bad(D "notgroup.conf", 3,
		 D "notgroup.conf:5: scheduler.dwrr.weights: given together "
		 "with quantum (line 4) " ACC_FORMS "\n"
		 D "notgroup.conf:4: scheduler.dwrr.quantum: 4500 is not a "
		 "group (accepted: { af, cs0 })\n"
		 D "notgroup.conf:5: scheduler.dwrr.weights: an array is not a "
		 "group (accepted: { af, cs0 })\n");
	load_bad(D "size_alone.conf", 1,
		 D "size_alone.conf:5: scheduler.dwrr.packet_size: has no "
		 "effect without weights (accepted: packet_size together with "
		 "weights = { af, cs0 })\n");
	load_bad(D "too_big.conf", 1,
		 D "too_big.conf:5: scheduler.dwrr.weights.af: weight 10000 x "
		 "packet_size 1500 = 15000000 bytes per turn is too large "
		 "(accepted: weight x packet_size <= 1000000 bytes)\n");
	load_bad(D "size_bad.conf", 3,
		 D "size_bad.conf:4: scheduler.dwrr.weights.af: 0 is out of "
		 "range (accepted: 1..10000)\n"
		 D "size_bad.conf:4: scheduler.dwrr.weights.cs0: 20000 is out "
		 "of range (accepted: 1..10000)\n"
		 D "size_bad.conf:5: scheduler.dwrr.packet_size: 70000 is out "
		 "of range (accepted: 64..65535 bytes)\n");
	/* an @include'd file is named as the helpers name it */
	load_bad(D "include_main.conf", 2,
		 D "include_part.conf:5: scheduler.dwrr.weights: given "
		 "together with quantum (line 6) " ACC_FORMS "\n"
		 D "include_part.conf:6: scheduler.dwrr.quantum.cs0: 30 is out "
		 "of range (accepted: 64..1000000 bytes)\n");
	/* groups of schedulers not selected are checked too */
	load_bad(D "not_selected.conf", 1,
		 D "not_selected.conf:4: scheduler.dwrr.quantum.af: 32 is out "
		 "of range (accepted: 64..1000000 bytes)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_registry_and_defaults,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_order_equal_sizes,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_order_mixed_sizes,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_ef_strict_priority,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_idle_class_loses_deficit,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(
			test_packets_larger_than_quantum, setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_shares_equal_sizes,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_shares_unequal_sizes,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_weights_equal_quantum,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_matches_textbook_drr,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_drain_order,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_frees,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_conf_ok, setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_conf_errors,
						setup, tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
