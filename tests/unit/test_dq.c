/* test_dq.c - the dq scheduler: the Dual Queue discipline (Hayes et al.
 * 1999, §2, §4.3), on a virtual clock, deterministic.
 *
 * Scripted: the onset thresholds (strict "exceeds", exact in bytes), the
 * busy-source test with θ_j and its decrement and reset, θ_j beyond θ,
 * the forced redirection when α is full, the redirecting packet itself in
 * β, LIFO-by-session transfer (by redirection, not by the latest β
 * packet) and FIFO within a session, push-out of the oldest β packet
 * across sessions, the newcomer's drop without push-out, expiry exactly
 * after t_expire in β and at α's head (with peek() foreseeing it), α's
 * expiry when the link rate drops to 0, sessions beyond the flow table,
 * the ablation keys busy_test and forced_redirect.  Each expected outcome
 * is worked out in the comments.  Long runs: α's delay bound under a long
 * random overload, checked on every packet that went through α only; a
 * transient overload of a few greedy and many light sessions, counting
 * "degraded" sessions (a packet delayed more than 120 ms or lost) under
 * dq and under a FIFO of the same total buffer (Fig. 4's claim).
 */
#include <libconfig.h>
#include <math.h>
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

#define POOL_PKTS  4096u

/* 8 Mbit/s: one byte per microsecond, so byte counts read as times. */
#define C8_BPS     8000000u

static struct sched_env env;

static int setup(void **state)
{
	(void)state;
	tu_sched_env(&env, C8_BPS);
	return tu_pool_init(POOL_PKTS, 1500);
}

/* ---- helpers ------------------------------------------------------------ */

/* The value of stats member `key` (a number) in dq's dump now. */
static uint64_t stat(struct sched *s, const char *key)
{
	const char *line = tu_sched_stats(s);
	char pat[64];
	const char *at;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	at = strstr(line, pat);
	if (!at)
		fail_msg("no %s in %s", key, line);
	return strtoull(at + strlen(pat), NULL, 10);
}

/* Enqueues an AF packet of session `flow`, len_bytes, id seq, at now. */
static void put(struct sched *s, uint32_t flow, uint32_t len_bytes,
		uint32_t seq, tstamp_ns now)
{
	struct pkt *p = tu_pkt(CLS_AF, len_bytes, seq);

	p->flow_hash = 0x1000u + flow;
	p->enq_ns = now;
	sched_enqueue(s, p, now);
}

/* Dequeues one packet at now, which must be id seq, and frees it. */
static void take(struct sched *s, uint32_t seq, tstamp_ns now)
{
	struct pkt *p = sched_dequeue(s, now);

	if (!p)
		fail_msg("NULL, expected id %u", seq);
	if (p->seq != seq)
		fail_msg("id %u, expected %u", p->seq, seq);
	pkt_free(p);
}

/* What a dequeue at now would return (ops->peek). */
static const struct pkt *peek(struct sched *s, tstamp_ns now)
{
	return s->ops->peek(s->priv, now);
}

/* Dequeues everything at now and checks the ids against want[n]. */
static void expect_order(struct sched *s, const uint32_t *want, size_t n,
			 tstamp_ns now)
{
	size_t i;

	for (i = 0; i < n; i++)
		take(s, want[i], now);
	assert_null(sched_dequeue(s, now));
}

/* Session ids of the scripted tests. */
enum { A = 1, B, C, D, E, F };

/* ---- thresholds, θ, forced redirection, LIFO transfer -------------------- */

/* L = 8 Mbit/s x 9 ms = 9000 bytes: T_onset,1 = 9000 - 3000 = 6000,
 * T_onset,2 = 9000 - 2250 = 6750, T_onset,3 = 9000 - 1800 = 7200.  θ = 2:
 * θ_1 = 2, θ_2 = 1, θ_3 = (beyond θ) 0.  Packets 1000 bytes unless said.
 *
 *  id session α after   test                                    goes to
 *  1-3  A   1000-3000                                            α
 *  4-5  B   4000-5000                                            α
 *  6    C   6000        = T_onset,1: not exceeded, no test      α
 *  7    D   7000 > T1   j=1: D has 0 > θ_1=2? no, θ_1 := 1      α
 *  8    C   8000 > T1   j=1: C has 1 > 1? no, θ_1 := 0           α
 *  9    B   9000 > T1   j=1: B has 2 > 0: redirect B (rank 1),   β
 *                       θ_1 := 2
 *  10   B               redirected                              β
 *  11   E   (500) 8500 > T2  j=2: E has 0 > θ_2=1? no, θ_2 := 0  α
 *  12   A   (500) 9000 > T2  j=2: A has 3 > 0: redirect A (rk 2) β
 *  13   F   9500 > T3   j=3 > θ: F has 0 > 0? no; 9500 > L = 9000:
 *                       forced redirect F (rank 3)              β
 *                       (α stays at 8500)
 *  14   A   (300)       redirected                              β
 *
 * With ">=" for "exceeds", id 6 would test (θ_1 := 1), id 7 (θ_1 := 0),
 * and C would be redirected at id 8 instead of B at id 9.  Departures: α
 * in order, then β by session, the most recently redirected first (F,
 * then A: 12, 14 in order, then B: 9, 10).  Reading "most recently placed"
 * as the session of the latest β packet would send A (id 14) before F. */
static void test_thresholds_theta_lifo(void **state)
{
	static const uint32_t order[] = { 1, 2, 3, 4, 5, 6, 7, 8, 11,
					  13, 12, 14, 9, 10 };
	struct sched s;
	tstamp_ns t = NS_PER_SEC;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; theta = 2;",
			&env);
	assert_int_equal(stat(&s, "alpha_limit_bytes"), 9000);
	put(&s, A, 1000, 1, t);
	put(&s, A, 1000, 2, t);
	put(&s, A, 1000, 3, t);
	put(&s, B, 1000, 4, t);
	put(&s, B, 1000, 5, t);
	put(&s, C, 1000, 6, t);
	put(&s, D, 1000, 7, t);
	put(&s, C, 1000, 8, t);
	assert_int_equal(stat(&s, "redirections"), 0);
	put(&s, B, 1000, 9, t);
	assert_int_equal(stat(&s, "redirections"), 1);
	assert_int_equal(stat(&s, "beta_in"), 1);      /* the trigger */
	assert_int_equal(stat(&s, "alpha_bytes"), 8000);
	put(&s, B, 1000, 10, t);
	put(&s, E, 500, 11, t);
	assert_int_equal(stat(&s, "redirections"), 1);
	put(&s, A, 500, 12, t);
	assert_int_equal(stat(&s, "redirections"), 2);
	assert_int_equal(stat(&s, "forced"), 0);
	put(&s, F, 1000, 13, t);
	assert_int_equal(stat(&s, "redirections"), 3);
	assert_int_equal(stat(&s, "forced"), 1);
	put(&s, A, 300, 14, t);
	assert_int_equal(stat(&s, "redirected"), 3);
	assert_int_equal(stat(&s, "alpha_bytes"), 8500);
	assert_int_equal(stat(&s, "beta_pkts"), 5);
	assert_int_equal(stat(&s, "beta_bytes"), 3800);

	expect_order(&s, order, TU_LEN(order), t);
	assert_int_equal(stat(&s, "transfers"), 5);
	assert_int_equal(stat(&s, "redirected"), 0);
	assert_int_equal(stat(&s, "sessions"), 0);
	sched_destroy(&s);
}

/* The decrement stops at 0 and a redirection resets its level: θ = 1
 * (θ_1 = 1), L = 9000.  A fills α with 6 packets (6000 = T1); B's single
 * packet (7000) tests j=1: 0 > 1? no, θ_1 := 0; C's (8000): 0 > 0? no, θ_1
 * stays 0 (a session with nothing in α is never busy; below 0, C would be
 * redirected here); A (9000): 6 > 0, redirected, θ_1 := 1 (the reset).
 * After everything left, E fills α to 5000, D's first packet brings it to
 * 6000 (= T1, no test), D's second (7000) tests j=1 with θ_1 back at 1:
 * D has 1 > 1? no, α, θ_1 := 0 (without the reset θ_1 would still be 0
 * and D redirected here); D's third (8000): 2 > 0, redirected. */
static void test_theta_floor_and_reset(void **state)
{
	struct sched s;
	tstamp_ns t = NS_PER_SEC;
	uint32_t i;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; theta = 1;",
			&env);
	for (i = 1; i <= 6; i++)
		put(&s, A, 1000, i, t);
	put(&s, B, 1000, 7, t);
	put(&s, C, 1000, 8, t);
	assert_int_equal(stat(&s, "redirections"), 0);
	put(&s, A, 1000, 9, t);
	assert_int_equal(stat(&s, "redirections"), 1);
	for (i = 1; i <= 9; i++)        /* 1..8 from α, then 9 through it */
		take(&s, i, t);
	assert_int_equal(stat(&s, "redirected"), 0);
	for (i = 10; i <= 14; i++)
		put(&s, E, 1000, i, t);
	put(&s, D, 1000, 15, t);
	put(&s, D, 1000, 16, t);
	assert_int_equal(stat(&s, "redirections"), 1);
	put(&s, D, 1000, 17, t);
	assert_int_equal(stat(&s, "redirections"), 2);
	for (i = 10; i <= 17; i++)
		take(&s, i, t);
	assert_null(sched_dequeue(&s, t));
	sched_destroy(&s);
}

/* T_abate > 0: β moves into a non-empty α, one packet at a time while α
 * is at most T_abate, and only a packet that fits in L.  L = 3000 bytes
 * (3 ms at 8 Mbit/s), T_abate = 2000 (= T_onset,1, the largest accepted),
 * θ = 1.  A1 (1300) α; A2 (1600): 2900 > T1 = 2000, A has 1 > θ_1 = 1?
 * no, fits: α; B1 (1500): 4400 > L, forced: β; B2 (100): β (B is
 * redirected).  Dequeue A1: α = 1600 <= T_abate, but B1 does not fit
 * (3100 > L), and B2, which would, may not overtake it: nothing moves.
 * Dequeue A2: α is empty, B1 moves (1500 <= T_abate), then B2 (1600).
 * Without the fit test α would hold 3100 bytes after A1. */
static void test_abate_moves_what_fits(void **state)
{
	struct sched s;
	tstamp_ns t = NS_PER_SEC;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"3ms\"; "
			"t_abate = 2000; theta = 1;", &env);
	put(&s, A, 1300, 1, t);
	put(&s, A, 1600, 2, t);
	put(&s, B, 1500, 3, t);
	put(&s, B, 100, 4, t);
	assert_int_equal(stat(&s, "forced"), 1);
	assert_int_equal(stat(&s, "beta_pkts"), 2);
	take(&s, 1, t);
	assert_int_equal(stat(&s, "alpha_bytes"), 1600);
	assert_int_equal(stat(&s, "transfers"), 0);
	take(&s, 2, t);
	assert_int_equal(stat(&s, "alpha_bytes"), 1600);
	assert_int_equal(stat(&s, "transfers"), 2);
	take(&s, 3, t);
	take(&s, 4, t);
	assert_null(sched_dequeue(&s, t));
	sched_destroy(&s);
}

/* ---- the ablation keys (busy_test, forced_redirect) ---------------------- */

/* busy_test = false: only a full α redirects.  L = 9000, θ = 1.  A sends
 * 9 packets of 1000 bytes: with the busy test, A's 7th (7000 > T_onset,1 =
 * 6000, A has 6 > θ_1 = 1) would redirect A; without it all 9 fit in α
 * (9000 = L).  A's 10th does not fit (10000 > L): forced, β.  One
 * redirection, and it is the forced one. */
static void test_busy_test_off(void **state)
{
	struct sched s;
	tstamp_ns t = NS_PER_SEC;
	uint32_t i;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; theta = 1; "
			"busy_test = false;", &env);
	for (i = 1; i <= 9; i++)
		put(&s, A, 1000, i, t);
	assert_int_equal(stat(&s, "redirections"), 0);
	assert_int_equal(stat(&s, "alpha_bytes"), 9000);
	put(&s, A, 1000, 10, t);
	assert_int_equal(stat(&s, "redirections"), 1);
	assert_int_equal(stat(&s, "forced"), 1);
	assert_int_equal(stat(&s, "beta_in"), 1);
	for (i = 1; i <= 10; i++)
		take(&s, i, t);
	assert_null(sched_dequeue(&s, t));
	sched_destroy(&s);
}

/* forced_redirect = false: α is a finite queue of L bytes and a packet
 * that does not fit overflows it (dropped, alpha_full).  L = 9000, θ = 5.
 * Sessions 1..9 send one packet of 1000 bytes each: the ones bringing α
 * to 7000, 8000, 9000 test j = 1 and fail (0 packets in α > θ_1), so θ_1
 * goes 5, 4, 3, 2.  Session 10's packet (10000 > L) fails the test too
 * (θ_1 := 1) and does not fit: dropped, nothing redirected, its session
 * not kept.  After one departure (α 8000) session 10's next packet fits
 * and goes to α.  With the forced rule the first would have gone to β. */
static void test_forced_redirect_off(void **state)
{
	struct sched s;
	tstamp_ns t = NS_PER_SEC;
	uint32_t i;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; "
			"forced_redirect = false;", &env);
	for (i = 1; i <= 9; i++)
		put(&s, i, 1000, i, t);
	assert_int_equal(tu_drops_take(), 0);
	put(&s, 10, 1000, 10, t);
	assert_int_equal(tu_drops_take(), 1);
	assert_int_equal(stat(&s, "alpha_full"), 1);
	assert_int_equal(stat(&s, "redirections"), 0);
	assert_int_equal(stat(&s, "forced"), 0);
	assert_int_equal(stat(&s, "beta_in"), 0);
	assert_int_equal(stat(&s, "sessions"), 9);
	take(&s, 1, t);
	put(&s, 10, 1000, 11, t);
	assert_int_equal(stat(&s, "alpha_bytes"), 9000);
	assert_int_equal(stat(&s, "beta_in"), 0);
	for (i = 2; i <= 9; i++)
		take(&s, i, t);
	take(&s, 11, t);
	assert_null(sched_dequeue(&s, t));
	sched_destroy(&s);
}

/* ---- push-out, newcomer drop, expiry ------------------------------------- */

/* L = 9000, buffer 12000: β holds 3000 bytes.  θ = 5 (θ_1 = 5, θ_2 = 4).
 * A1..A6 (ids 1-6) fill α to 6000 = T1; A7 (7000 > T1, A has 6 > 5)
 * redirects A: β {A7}.  B1 (id 11; 7000 > T2 = 6750, j=2: 0 > 4? no,
 * θ_2 := 3) α; B2 (8000: 1 > 3? no, θ_2 := 2) α; B3 (9000: 2 > 2? no,
 * θ_2 := 1) α, fits; B4 (10000: 3 > 1) redirects B: β {A7, B4}.  A8 (id
 * 8): β {A7, B4, A8} = 3000, full.  Then B5 and B6 (ids 15, 16) overflow
 * β.  Runs the script on a dq configured by `text` (more keys after those
 * two) and checks the state before the overflow. */
static void overflow_script(struct sched *s, const char *text)
{
	tstamp_ns t = NS_PER_SEC;
	char conf[256];
	uint32_t i;

	snprintf(conf, sizeof(conf), "alpha_delay = \"9ms\"; buffer = 12000; "
		 "%s", text);
	tu_sched_create(s, &sched_dq_ops, conf, &env);
	assert_int_equal(stat(s, "beta_limit_bytes"), 3000);
	for (i = 1; i <= 7; i++)
		put(s, A, 1000, i, t);
	for (i = 11; i <= 14; i++)
		put(s, B, 1000, i, t);
	assert_int_equal(stat(s, "redirected"), 2);
	assert_int_equal(stat(s, "forced"), 0);
	put(s, A, 1000, 8, t);
	assert_int_equal(tu_drops_take(), 0);
	put(s, B, 1000, 15, t);
	put(s, B, 1000, 16, t);
}

/* Push-out: B5 pushes out β's oldest, A7 (not the arriving session's own
 * B4); B6 pushes out B4.  β {A8, B5, B6}; B was redirected last, so B5,
 * B6, then A8 after α. */
static void test_pushout_oldest_across_sessions(void **state)
{
	static const uint32_t order[] = { 1, 2, 3, 4, 5, 6, 11, 12, 13,
					  15, 16, 8 };
	struct sched s;

	(void)state;
	overflow_script(&s, "");
	assert_int_equal(tu_drops(DROP_PUSHOUT), 2);
	assert_int_equal(stat(&s, "pushed_out"), 2);
	assert_int_equal(stat(&s, "beta_bytes"), 3000);
	expect_order(&s, order, TU_LEN(order), NS_PER_SEC);
	assert_int_equal(tu_drops_take(), 2);
	sched_destroy(&s);
}

/* Without push-out B5 and B6 are refused (DROP_SCHED_LIMIT), β keeps
 * {A7, B4, A8}: B4, then A7, A8. */
static void test_newcomer_drop(void **state)
{
	static const uint32_t order[] = { 1, 2, 3, 4, 5, 6, 11, 12, 13,
					  14, 7, 8 };
	struct sched s;

	(void)state;
	overflow_script(&s, "pushout = false;");
	assert_int_equal(tu_drops(DROP_SCHED_LIMIT), 2);
	assert_int_equal(tu_drops(DROP_PUSHOUT), 0);
	assert_int_equal(stat(&s, "beta_full"), 2);
	expect_order(&s, order, TU_LEN(order), NS_PER_SEC);
	assert_int_equal(tu_drops_take(), 2);
	sched_destroy(&s);
}

/* t_expire = 100 ms, L = 9000.  At t0: A1..A6 (α, 6000 = T1), A7 (7000 >
 * T1, A has 6 > θ_1 = 5: A redirected) and A8 to β; at t0 + 1 ms A9 to β
 * and A1..A5 leave.  At t0 + 50 ms B1..B3 join A6 in α (4000 < T1).
 *  - t0 + 100 ms: A6 leaves: it waited exactly t_expire, not longer;
 *  - t0 + 100 ms + 1 ns: A7 and A8 expire in β, A9 not; α's head B1 is
 *    young: B1 leaves;
 *  - t0 + 101 ms + 1 ns: A9 expires, A is no longer redirected (its next
 *    packet, A10, goes to α); B2 leaves;
 *  - α expires too (the link may stop: a trace at rate 0): C1 and C2
 *    enter α at t0 + 200 and 201 ms, behind B3 and A10.  At t0 + 300 ms
 *    B3 and A10 (older than 100 ms) are dropped from α's head, C1 (exactly
 *    t_expire) leaves; at t0 + 301 ms + 1 ns C2 is dropped and nothing is
 *    left.  peek() foresees every one of these dequeues.
 * Without α expiry B3, A10 and C2 would be sent at any age. */
static void test_expiry(void **state)
{
	struct sched s;
	tstamp_ns t = NS_PER_SEC;
	uint32_t i;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; "
			"t_expire = \"100ms\";", &env);
	for (i = 1; i <= 8; i++)
		put(&s, A, 1000, i, t);
	put(&s, A, 1000, 9, t + NS_PER_MS);
	assert_int_equal(stat(&s, "beta_pkts"), 3);
	for (i = 1; i <= 5; i++)
		take(&s, i, t + NS_PER_MS);
	for (i = 11; i <= 13; i++)
		put(&s, B, 1000, i, t + 50 * NS_PER_MS);
	assert_int_equal(stat(&s, "beta_pkts"), 3);
	take(&s, 6, t + 100 * NS_PER_MS);
	assert_int_equal(tu_drops(DROP_EXPIRED), 0);
	assert_int_equal(peek(&s, t + 100 * NS_PER_MS + 1)->seq, 11);
	take(&s, 11, t + 100 * NS_PER_MS + 1);
	assert_int_equal(tu_drops(DROP_EXPIRED), 2);
	assert_int_equal(stat(&s, "beta_pkts"), 1);
	take(&s, 12, t + 101 * NS_PER_MS + 1);
	assert_int_equal(tu_drops(DROP_EXPIRED), 3);
	assert_int_equal(stat(&s, "redirected"), 0);
	put(&s, A, 1000, 10, t + 102 * NS_PER_MS);
	assert_int_equal(stat(&s, "beta_in"), 3);       /* 10 went to α */
	assert_int_equal(stat(&s, "alpha_expired"), 0);

	put(&s, C, 1000, 21, t + 200 * NS_PER_MS);
	put(&s, C, 1000, 22, t + 201 * NS_PER_MS);
	assert_int_equal(peek(&s, t + 300 * NS_PER_MS)->seq, 21);
	take(&s, 21, t + 300 * NS_PER_MS);
	assert_int_equal(tu_drops(DROP_EXPIRED), 5);    /* B3, A10 */
	assert_null(peek(&s, t + 301 * NS_PER_MS + 1));
	assert_null(sched_dequeue(&s, t + 301 * NS_PER_MS + 1));
	assert_int_equal(tu_drops(DROP_EXPIRED), 6);    /* C2 */
	assert_int_equal(stat(&s, "expired"), 6);
	assert_int_equal(stat(&s, "alpha_expired"), 3);
	assert_int_equal(stat(&s, "sessions"), 0);
	assert_int_equal(tu_drops_take(), 6);
	sched_destroy(&s);
}

/* The link stops: C = 8 Mbit/s, then 0 from 2 s to 5 s (a capacity trace
 * at rate 0 for longer than t_expire = 1 s), then 8 Mbit/s again.  Two
 * sessions send 1000-byte packets at 3 Mbit/s each from 0 to 6 s: under
 * C, α stays short until the link stops; then α fills up to the onset
 * thresholds and both sessions end up in β.  The test plays the link
 * itself: a packet starts when the link is free and running, at the
 * earliest at 5 s during the outage; peek() must announce each dequeue.
 * The packets in α at 2.5 s cannot leave before 5 s, so each must
 * expire: no packet that leaves has waited more than t_expire, and
 * alpha_expired is at least α's count at 2.5 s.  Without α expiry they
 * would leave at 5 s after 2.5 s or more in α. */
static void test_alpha_expiry_link_collapse(void **state)
{
	const tstamp_ns gap = 2666 * NS_PER_US, end = 6 * NS_PER_SEC;
	const tstamp_ns stop = 2 * NS_PER_SEC, resume = 5 * NS_PER_SEC;
	tstamp_ns ta = 0, free_at = 0, max_wait = 0, first_after = TS_NEVER;
	uint32_t n_in = 0, n_out = 0, n_after = 0;
	uint64_t alpha_at_stop = UINT64_MAX;
	struct sched s;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "buffer = 200000; "
			"t_expire = \"1s\";", &env);
	assert_int_equal(stat(&s, "alpha_limit_bytes"), 50000);
	for (;;) {
		tstamp_ns ts = free_at >= stop && free_at < resume ? resume
								   : free_at;
		const struct pkt *pk;
		struct pkt *p;

		if (ta >= stop + stop / 4 && alpha_at_stop == UINT64_MAX)
			alpha_at_stop = stat(&s, "alpha_pkts");
		pk = peek(&s, ts);
		if (ta < end && (!pk || ta <= ts)) {    /* the next arrival */
			put(&s, n_in % 2 ? A : B, 1000, n_in, ta);
			n_in++;
			if (free_at < ta)
				free_at = ta;
			ta = (tstamp_ns)(n_in / 2) * gap + (n_in % 2) * gap / 2;
			continue;
		}
		p = sched_dequeue(&s, ts);
		assert_ptr_equal(p, pk);
		if (!p)
			break;
		if (ts - p->enq_ns > max_wait)
			max_wait = ts - p->enq_ns;
		if (ts >= resume && n_after++ == 0)
			first_after = ts - p->enq_ns;
		n_out++;
		free_at = ts + 1000 * NS_PER_US;        /* 1000 bytes at C */
		pkt_free(p);
	}
	fprintf(stderr, "link at 0 for 3 s, t_expire 1 s: %u arrivals, %u sent "
		"(%u after the outage, the first after %.3f ms), %u expired "
		"(%llu from α, which held %llu at 2.5 s), "
		"largest wait %.3f ms, redirections %llu\n",
		n_in, n_out, n_after, (double)first_after / 1e6,
		tu_drops(DROP_EXPIRED),
		(unsigned long long)stat(&s, "alpha_expired"),
		(unsigned long long)alpha_at_stop,
		(double)max_wait / 1e6,
		(unsigned long long)stat(&s, "redirections"));
	assert_true(max_wait <= NS_PER_SEC);
	assert_true(alpha_at_stop >= 20 && alpha_at_stop <= 50);
	assert_true(stat(&s, "alpha_expired") >= alpha_at_stop);
	assert_true(n_after > 100 && first_after <= NS_PER_SEC);
	assert_true(stat(&s, "redirections") > 0);
	assert_int_equal(n_out + tu_drops_take(), n_in);
	sched_destroy(&s);
}

/* ---- sessions beyond the flow table ---------------------------------------- */

/* sessions = 2.  A and B get entries; C and D find the table full and
 * share the overflow session.  A leaves (its entry goes); E arrives while
 * the overflow session still holds C and D, so E joins it although the
 * table has room (E could otherwise overtake its own packets later).
 * Once the overflow session is empty, F gets an entry.
 * Then the overflow session is selected as one: sessions = 1, G holds the
 * entry; C and D (overflow) fill α to 6000 = T1, D's next (7000, j=1:
 * the overflow session has 5 > θ_1 = 2) redirects the overflow session,
 * and C's next packet goes to β with it, while G's goes to α. */
static void test_sessions_beyond_table(void **state)
{
	struct sched s;
	tstamp_ns t = NS_PER_SEC;
	uint32_t i;

	(void)state;
	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; "
			"sessions = 2;", &env);
	put(&s, A, 100, 1, t);
	put(&s, B, 100, 2, t);
	put(&s, C, 100, 3, t);
	put(&s, D, 100, 4, t);
	assert_int_equal(stat(&s, "overflow_pkts"), 2);
	assert_int_equal(stat(&s, "sessions"), 2);
	take(&s, 1, t);
	assert_int_equal(stat(&s, "sessions"), 1);
	put(&s, E, 100, 5, t);
	assert_int_equal(stat(&s, "overflow_pkts"), 3);
	assert_int_equal(stat(&s, "sessions"), 1);
	for (i = 2; i <= 4; i++) {      /* B, C, D; E's 5 is left */
		take(&s, i, t);
	}
	put(&s, F, 100, 6, t);          /* overflow still holds E's 5 */
	assert_int_equal(stat(&s, "overflow_pkts"), 4);
	take(&s, 5, t);
	take(&s, 6, t);
	put(&s, F, 100, 7, t);          /* overflow empty: an entry */
	assert_int_equal(stat(&s, "overflow_pkts"), 4);
	assert_int_equal(stat(&s, "sessions"), 1);
	take(&s, 7, t);
	sched_destroy(&s);

	tu_sched_create(&s, &sched_dq_ops, "alpha_delay = \"9ms\"; "
			"sessions = 1; theta = 2;", &env);
	put(&s, 7, 1000, 100, t);       /* G: the entry */
	for (i = 0; i < 5; i++)
		put(&s, i % 2 ? D : C, 1000, 101 + i, t);
	assert_int_equal(stat(&s, "redirections"), 0);
	put(&s, D, 1000, 106, t);
	assert_int_equal(stat(&s, "redirections"), 1);
	put(&s, C, 1000, 107, t);
	put(&s, 7, 500, 108, t);
	assert_int_equal(stat(&s, "beta_in"), 2);
	assert_int_equal(stat(&s, "alpha_bytes"), 6500);
	{
		static const uint32_t order[] = { 100, 101, 102, 103, 104,
						  105, 108, 106, 107 };

		expect_order(&s, order, TU_LEN(order), t);
	}
	sched_destroy(&s);
}

/* ---- long runs on a link ---------------------------------------------------- */

/* One arrival of a generated load. */
struct arrival {
	tstamp_ns t;
	uint32_t  flow;
	uint32_t  len_bytes;
};

static int by_time(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/* Serialisation time of len bytes at rate_bps. */
static tstamp_ns tx_ns(uint32_t len_bytes, uint64_t rate_bps)
{
	return (tstamp_ns)len_bytes * 8u * NS_PER_SEC / rate_bps;
}

/* A discipline under test: dq through its ops, or the test's own FIFO
 * with a byte limit and tail drop. */
struct disc {
	struct sched s;
	int fifo;
	struct pktq q;
	uint64_t limit_bytes;
};

#define MAX_FLOWS 64u
#define FLOW0     0x2000u       /* flow_hash of flow 0 in the long runs */

static uint8_t lost[MAX_FLOWS];         /* a packet of the flow was dropped */

/* env.drop of the long runs: notes the flow, then counts as tu_drop. */
static void drop_note(void *owner, struct pkt *p, enum drop_reason why)
{
	lost[p->flow_hash - FLOW0] = 1;
	tu_drop(owner, p, why);
}

static void disc_enqueue(struct disc *d, struct pkt *p, tstamp_ns now)
{
	if (!d->fifo)
		sched_enqueue(&d->s, p, now);
	else if (d->q.len_bytes + p->len_bytes > d->limit_bytes)
		drop_note(NULL, p, DROP_SCHED_LIMIT);
	else
		pktq_push(&d->q, p);
}

static int disc_held(struct disc *d, tstamp_ns now)
{
	return d->fifo ? d->q.len_pkts != 0 :
			 d->s.ops->peek(d->s.priv, now) != NULL;
}

static struct pkt *disc_dequeue(struct disc *d, tstamp_ns now)
{
	return d->fifo ? pktq_pop(&d->q) : sched_dequeue(&d->s, now);
}

/* What a run measured. */
struct result {
	uint64_t  alpha_checked;        /* dq: departures via α only */
	tstamp_ns alpha_max_ns;         /* their largest wait */
	double    alpha_worst;          /* their largest wait / own bound */
	unsigned  degraded;             /* sessions with a packet late or lost */
};

/* Runs arrivals a[n] through d on a link of rate_bps that starts a packet
 * whenever it is free and something is held (arrivals at or before that
 * moment first).  A packet's wait is its start minus its arrival.  With
 * alpha_bytes (dq's L) non-zero, every packet whose enqueue left dq's
 * beta_in unchanged (it went to α) must start within (L - len + 1500)
 * bytes of link time of its arrival: at most L - len bytes ahead of it in
 * α, plus the packet on the link.  A session is degraded when a packet of
 * it waits more than 120 ms or is dropped. */
static void run_link(struct disc *d, const struct arrival *a, size_t n,
		     uint64_t rate_bps, uint64_t alpha_bytes, struct result *r)
{
	static uint8_t via_beta[1u << 20];
	uint8_t late[MAX_FLOWS] = { 0 };
	uint64_t beta_in = 0;
	tstamp_ns free_at = 0;
	size_t i = 0;
	unsigned f;

	assert_true(n <= sizeof(via_beta));
	memset(r, 0, sizeof(*r));
	memset(lost, 0, sizeof(lost));
	for (;;) {
		int held = disc_held(d, free_at);
		struct pkt *p;
		tstamp_ns wait;

		if (i < n && (!held || a[i].t <= free_at)) {
			assert_true(a[i].flow < MAX_FLOWS);
			p = tu_pkt(CLS_AF, a[i].len_bytes, (uint32_t)i);
			p->flow_hash = FLOW0 + a[i].flow;
			p->enq_ns = a[i].t;
			if (free_at < a[i].t)
				free_at = a[i].t;       /* the link was idle */
			disc_enqueue(d, p, a[i].t);
			if (alpha_bytes) {
				uint64_t bi = stat(&d->s, "beta_in");

				via_beta[i] = bi != beta_in;
				beta_in = bi;
			}
			i++;
			continue;
		}
		if (!held)
			break;
		p = disc_dequeue(d, free_at);
		assert_non_null(p);
		wait = free_at - p->enq_ns;
		if (wait > 120 * NS_PER_MS)
			late[p->flow_hash - FLOW0] = 1;
		if (alpha_bytes && !via_beta[p->seq]) {
			tstamp_ns bound = tx_ns((uint32_t)(alpha_bytes -
							   p->len_bytes + 1500),
						rate_bps);

			r->alpha_checked++;
			if (wait > r->alpha_max_ns)
				r->alpha_max_ns = wait;
			if ((double)wait / (double)bound > r->alpha_worst)
				r->alpha_worst = (double)wait / (double)bound;
		}
		free_at += tx_ns(p->len_bytes, rate_bps);
		pkt_free(p);
	}
	for (f = 0; f < MAX_FLOWS; f++)
		r->degraded += late[f] | lost[f];
}

/* α's delay bound under a long random overload: 40 on/off sessions on
 * 10 Mbit/s, each sending Poisson packets at 2 Mbit/s while on (on for
 * 0.5 s, off for 2 s on average, both exponential): 16 Mbit/s offered on
 * average, so sessions keep entering and leaving β.  Sizes 200..1500
 * bytes, 60 s.  Every packet that went through α only starts within its
 * bound, and α is really filled (its largest wait is above 90 % of L/C,
 * 45 ms). */
static void alpha_bound_run(const char *conf_text)
{
	enum { NFLOW = 40 };
	const uint64_t rate_bps = 10000000, L = 62500;  /* 50 ms */
	const double horizon_s = 60, on_bps = 2e6, mean_len = 850;
	size_t cap = 300000, n = 0;
	struct arrival *a = calloc(cap, sizeof(*a));
	uint64_t rng = 0xd0a1;
	struct disc d;
	struct result r;
	unsigned f;

	assert_non_null(a);
	for (f = 0; f < NFLOW; f++) {
		double t = 0, off_until = 0, on_until = 0;

		while (t < horizon_s) {
			if (t >= on_until) {    /* a new off, then on, period */
				off_until = t - 2.0 * log1p(-rng_u01(&rng));
				on_until = off_until -
					   0.5 * log1p(-rng_u01(&rng));
				t = off_until;
			}
			t -= mean_len * 8 / on_bps * log1p(-rng_u01(&rng));
			if (t >= on_until || t >= horizon_s)
				continue;
			assert_true(n < cap);
			a[n].t = NS_PER_SEC + (tstamp_ns)(t * 1e9);
			a[n].flow = f;
			a[n].len_bytes = 200 +
					 (uint32_t)(rng_u01(&rng) * 1301);
			n++;
		}
	}
	qsort(a, n, sizeof(*a), by_time);
	memset(&d, 0, sizeof(d));
	tu_sched_env(&env, rate_bps);
	env.drop = drop_note;
	tu_sched_create(&d.s, &sched_dq_ops, conf_text, &env);
	assert_int_equal(stat(&d.s, "alpha_limit_bytes"), L);
	run_link(&d, a, n, rate_bps, L, &r);
	print_message("alpha bound (%s): %zu arrivals, %llu via α only, max wait "
		      "%.3f ms (L/C = 50 ms), worst wait/bound %.4f, "
		      "redirections %llu (forced %llu), transfers %llu, "
		      "pushed out %llu, expired %llu\n", conf_text,
		      n, (unsigned long long)r.alpha_checked,
		      (double)r.alpha_max_ns / 1e6, r.alpha_worst,
		      (unsigned long long)stat(&d.s, "redirections"),
		      (unsigned long long)stat(&d.s, "forced"),
		      (unsigned long long)stat(&d.s, "transfers"),
		      (unsigned long long)stat(&d.s, "pushed_out"),
		      (unsigned long long)stat(&d.s, "expired"));
	assert_true(r.alpha_worst <= 1.0);
	assert_true(r.alpha_max_ns > 45 * NS_PER_MS);
	assert_true(r.alpha_checked > n / 2);
	assert_true(stat(&d.s, "redirections") > 100);
	tu_drops_take();
	sched_destroy(&d.s);
	free(a);
}

/* The paper's parameters: the busy-source test does the redirecting. */
static void test_alpha_bound_overload(void **state)
{
	(void)state;
	alpha_bound_run("buffer = 1000000;");
}

/* A lenient busy test (θ = 64: a session needs more than 64 packets in
 * α) lets α fill up, so that the forced redirection keeps the bound; and
 * T_abate = 20000 bytes moves β packets into a non-empty α, only as far as
 * they fit. */
static void test_alpha_bound_forced(void **state)
{
	(void)state;
	alpha_bound_run("buffer = 1000000; theta = 64; t_abate = 20000;");
}

/* Fig. 4: a transient congestion episode.  2 Mbit/s, 500000 bytes of
 * buffer (Table 1), 50 sessions: 45 light ones sending 500 bytes every
 * 200 ms (20 kbit/s each, 0.9 Mbit/s in all) for 20 s, and 5 greedy ones
 * sending 1500 bytes every 20 ms (600 kbit/s each) from 5 s to 10 s: 3.9
 * Mbit/s offered for 5 s.  A session is degraded when a packet of it
 * waits more than 120 ms or is lost.  The FIFO of the same total buffer
 * delays everybody; dq should degrade only the few that caused it, and so
 * should each of its mechanisms alone (the ablation keys). */
static void test_degraded_sessions_vs_fifo(void **state)
{
	static const char *const variants[] = {
		"buffer = 500000;",
		"buffer = 500000; forced_redirect = false;",
		"buffer = 500000; busy_test = false;",
	};
	size_t i;
	enum { NLIGHT = 45, NGREEDY = 5 };
	const uint64_t rate_bps = 2000000;
	size_t n = 0, cap = 20000;
	struct arrival *a = calloc(cap, sizeof(*a));
	uint64_t rng = 0xf164;
	struct disc dq, fifo;
	struct result rd, rf;
	unsigned f;
	tstamp_ns t;

	(void)state;
	assert_non_null(a);
	for (f = 0; f < NLIGHT + NGREEDY; f++) {
		int greedy = f >= NLIGHT;
		tstamp_ns gap = greedy ? 20 * NS_PER_MS : 200 * NS_PER_MS;
		tstamp_ns phase = (tstamp_ns)(rng_u01(&rng) * (double)gap);
		tstamp_ns from = greedy ? 5 * NS_PER_SEC : 0;
		tstamp_ns to = greedy ? 10 * NS_PER_SEC : 20 * NS_PER_SEC;

		for (t = from + phase; t < to; t += gap) {
			assert_true(n < cap);
			a[n].t = NS_PER_SEC + t;
			a[n].flow = f;
			a[n].len_bytes = greedy ? 1500 : 500;
			n++;
		}
	}
	qsort(a, n, sizeof(*a), by_time);

	memset(&fifo, 0, sizeof(fifo));
	fifo.fifo = 1;
	pktq_init(&fifo.q);
	fifo.limit_bytes = 500000;
	run_link(&fifo, a, n, rate_bps, 0, &rf);
	tu_drops_take();

	print_message("degraded sessions of %u (wait > 120 ms or lost): "
		      "fifo %u\n", NLIGHT + NGREEDY, rf.degraded);
	/* FIFO delays every session: the premise of the claim */
	assert_int_equal(rf.degraded, NLIGHT + NGREEDY);
	for (i = 0; i < TU_LEN(variants); i++) {
		memset(&dq, 0, sizeof(dq));
		tu_sched_env(&env, rate_bps);
		env.drop = drop_note;
		tu_sched_create(&dq.s, &sched_dq_ops, variants[i], &env);
		run_link(&dq, a, n, rate_bps, 0, &rd);
		print_message("  dq (%s): %u (redirections %llu, forced %llu, "
			      "transfers %llu, pushed out %llu, alpha_full "
			      "%llu)\n", variants[i], rd.degraded,
			      (unsigned long long)stat(&dq.s, "redirections"),
			      (unsigned long long)stat(&dq.s, "forced"),
			      (unsigned long long)stat(&dq.s, "transfers"),
			      (unsigned long long)stat(&dq.s, "pushed_out"),
			      (unsigned long long)stat(&dq.s, "alpha_full"));
		/* at most twice the 5 that caused the episode, not 49 of
		 * 50 */
		assert_true(rd.degraded <= 2 * NGREEDY);
		tu_drops_take();
		sched_destroy(&dq.s);
	}
	free(a);
}

/* ---- configuration ---------------------------------------------------------- */

/* The example configs load, and their α and β are what their comments
 * say: 20 Mbit/s x 50 ms = 125000 bytes, β = 5000000 - 125000. */
static void test_conf_examples(void **state)
{
	static const char *const files[] = { "../../conf/dq-sender.conf",
					     "../../conf/dq-receiver.conf" };
	struct sched_env e;
	struct sched s;
	struct conf c;
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(files); i++) {
		tu_conf_load_ok(files[i], &c);
		assert_ptr_equal(c.sched, &sched_dq_ops);
		conf_sched_env(&c, &e);
		assert_int_equal(sched_create(&s, c.sched, c.sched_params, &e),
				 0);
		assert_int_equal(stat(&s, "alpha_limit_bytes"), 125000);
		assert_int_equal(stat(&s, "beta_limit_bytes"), 4875000);
		sched_destroy(&s);
		conf_free(&c);
	}
}

/* The rules between keys, each with its message at the value's line: a
 * buffer that leaves no β, T_abate above T_onset,1, no capacity on an
 * unlimited link (at the group's line, or without a line when dq is
 * selected without a group). */
static void test_conf_errors(void **state)
{
	static const struct {
		const char *text, *diag;
	} cases[] = {
		{ "link = { rate = \"20Mbit\"; };\n"
		  "scheduler = { name = \"dq\";\n"
		  "  dq = { buffer = 125000; }; };\n",
		  "t.conf:3: scheduler.dq.buffer: 125000 bytes leaves no "
		  "\u03b2 queue (accepted: more than L = 125000 bytes, "
		  "capacity x alpha_delay, and at most 100000000000)\n" },
		{ "link = { rate = \"20Mbit\"; };\n"
		  "scheduler = { name = \"dq\";\n"
		  "  dq = { t_abate = 83334; }; };\n",
		  "t.conf:3: scheduler.dq.t_abate: 83334 is above the first "
		  "onset threshold T_onset,1 = L - L/3 (accepted: at most "
		  "83333 bytes, L = 125000)\n" },
		{ "link = { rate = \"unlimited\"; };\n"
		  "scheduler = { name = \"dq\";\n"
		  "  dq = { theta = 3; }; };\n",
		  "t.conf:3: scheduler.dq.capacity: missing while the link is "
		  "unlimited (accepted: a rate, e.g. \"20Mbit\", that sizes "
		  "the \u03b1 queue)\n" },
	};
	struct conf c;
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++) {
		assert_int_equal(tu_conf_load_text(cases[i].text, "t.conf", &c),
				 1);
		assert_string_equal(tu_conf_diag(), cases[i].diag);
	}
	/* 83333 <= T_onset,1 = 83333.3: accepted */
	assert_int_equal(tu_conf_load_text(
		"link = { rate = \"20Mbit\"; };\n"
		"scheduler = { name = \"dq\"; dq = { t_abate = 83333; }; };\n",
		"t.conf", &c), 0);
	conf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_thresholds_theta_lifo,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_theta_floor_and_reset,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_abate_moves_what_fits,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_busy_test_off, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_forced_redirect_off, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(
			test_pushout_oldest_across_sessions, setup,
			tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_newcomer_drop, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_expiry, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_alpha_expiry_link_collapse,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_sessions_beyond_table,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_alpha_bound_overload,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_conf_examples, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_conf_errors, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_alpha_bound_forced,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(
			test_degraded_sessions_vs_fifo, setup,
			tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
