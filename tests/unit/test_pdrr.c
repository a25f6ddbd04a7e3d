/* test_pdrr.c - PDRR (src/sched/pdrr.c): the traps of Table 1 as scripted
 * scenarios with their exact orders (worked out by hand in the comments),
 * max-min fairness, the priority queue's latency against plain DRR on the
 * same arrivals, admission control, the buffer-full push-out, the AFL
 * bound, expiry (DRRexp: `priority = false` with `t_expire`) and the cost
 * per packet with 10,000 flows.  Virtual clock,
 * deterministic; every test ends with the pool empty. */
#include <libconfig.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf/conf.h"
#include "pkt/pkt.h"
#include "sched/drr.h"
#include "sched/sched.h"
#include "util/jw.h"
#include "testutil.h"

#define LINK_BPS 10000000u

static struct sched_env env;

static int setup(void **state)
{
	(void)state;
	tu_sched_env(&env, LINK_BPS);
	return tu_pool_init(2048, 1500);
}

#define PDRR_TEST(f) cmocka_unit_test_setup_teardown(f, setup, \
						      tu_pool_teardown)

/* ---- helpers ------------------------------------------------------------ */

static void make(struct sched *s, const char *text)
{
	tu_sched_create(s, &sched_pdrr_ops, text, &env);
}

/* A best-effort packet of flow `flow` (its hash), id in seq. */
static void put(struct sched *s, uint32_t flow, uint32_t id, uint32_t len,
		tstamp_ns now)
{
	struct pkt *p = tu_pkt(CLS_CS0, len, id);

	p->flow_hash = flow;
	p->enq_ns = now;
	sched_enqueue(s, p, now);
}

/* One arrival of a script: flow, id, bytes. */
struct arr {
	uint32_t flow, id, len;
};

/* Enqueues a script's arrivals at time 0, in order. */
static void put_all(struct sched *s, const struct arr *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(s, a[i].flow, a[i].id, a[i].len, 0);
}

/* Dequeues at now, checks peek announced it, returns its id (frees it);
 * NONE when nothing came. */
#define NONE UINT32_MAX
static uint32_t next_id(struct sched *s, tstamp_ns now)
{
	const struct pkt *pk = s->ops->peek(s->priv, now);
	struct pkt *p = sched_dequeue(s, now);
	uint32_t id;

	assert_ptr_equal(pk, p);
	if (!p)
		return NONE;
	id = p->seq;
	pkt_free(p);
	return id;
}

/* Dequeues n packets at now and checks they are want[0..n-1], then that
 * nothing is left when `empty`. */
static void expect(struct sched *s, tstamp_ns now, const uint32_t *want,
		   size_t n, int empty)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t got = next_id(s, now);

		if (got != want[i])
			fail_msg("packet %zu: got %u, expected %u", i, got,
				 want[i]);
	}
	if (empty)
		assert_int_equal(next_id(s, now), NONE);
}

/* A member of the stats object: the number after "key": ("grp.key": in
 * group grp); counters are cumulative here (no memo). */
static double stat(struct sched *s, const char *key)
{
	const char *line = tu_sched_stats(s), *dot = strchr(key, '.');
	char pat[64];
	const char *at = line;

	if (dot) {
		snprintf(pat, sizeof(pat), "\"%.*s\":", (int)(dot - key), key);
		at = strstr(line, pat);
		if (!at)
			fail_msg("no %s in %s", key, line);
		key = dot + 1;
	}
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(at, pat);
	if (!at)
		fail_msg("no %s in %s", key, line);
	return strtod(at + strlen(pat), NULL);
}

static tstamp_ns tx_ns(uint32_t len_bytes)
{
	return (tstamp_ns)len_bytes * 8u * NS_PER_SEC / LINK_BPS;
}

/* ---- the traps, scripted ----------------------------------------------- */

/* Trap 1: PQ is served only between visits.  Q = 1500.  A: a1..a6 of 500
 * bytes; a1-a3 go to PQ (ByteCount 500, 1000, 1500 <= Q), a4-a6 to
 * Queue_A.  PQ sends a1-a3 (DC_A = -1500).  A's first turn gives DC 0,
 * nothing fits; its second 1500: a4 (1000 left).  Now b1 arrives, a new
 * flow, into PQ: A's visit goes on (a5, a6: DC 0, A empties and leaves),
 * and only then PQ sends b1.  Serving PQ before every packet would give
 * a4 b1 a5 a6. */
static void test_trap_pq_between_visits(void **state)
{
	static const uint32_t first[] = { 1, 2, 3, 4 };
	static const uint32_t rest[] = { 5, 6, 101 };
	struct sched s;
	uint32_t i;

	(void)state;
	make(&s, "quantum = 1500;");
	for (i = 1; i <= 6; i++)
		put(&s, 0xA, i, 500, 0);
	expect(&s, 0, first, TU_LEN(first), 0);
	put(&s, 0xB, 101, 500, 0);
	expect(&s, 0, rest, TU_LEN(rest), 1);
	sched_destroy(&s);
}

/* Trap 2: line 32 removes a flow whose own queue is empty even while a
 * packet of it waits in PQ.  buffer = 3, Q = 1500.  X: x1-x3 (500) via PQ,
 * x4, x5 queued; PQ sends x1-x3 (DC_X -1500), X's turns give 1500: x4, X
 * stays in its visit with x5 queued.  A: a1 (500, new: PQ), a2 (1500:
 * ByteCount 2000 > Q, Queue_A).  The buffer holds x5, a1, a2: y1 pushes
 * out the head of a longest flow queue (one packet each; A reached that
 * length last): a2.  Queue_A is empty: A leaves the AFL although a1 is
 * still in PQ (flows: X and Y).  X's visit goes on (x5), then PQ: a1, y1.
 * a3 (1500) then finds A out of the AFL: a new insertion, PQ, not
 * Queue_A (a flow kept in the AFL would have ByteCount 3500 > Q). */
static void test_trap_leave_with_pq_pending(void **state)
{
	static const uint32_t first[] = { 1, 2, 3 };
	static const uint32_t mid[] = { 5, 201, 301 };
	static const uint32_t last[] = { 203 };
	struct sched s;
	uint32_t i;

	(void)state;
	make(&s, "quantum = 1500; buffer = 3;");
	for (i = 1; i <= 3; i++)
		put(&s, 0xC, i, 500, 0);
	expect(&s, 0, first, TU_LEN(first), 0);
	put(&s, 0xC, 4, 500, 0);
	put(&s, 0xC, 5, 500, 0);
	assert_int_equal(next_id(&s, 0), 4);
	put(&s, 0xA, 201, 500, 0);
	put(&s, 0xA, 202, 1500, 0);     /* pushed out below */
	assert_int_equal(stat(&s, "flows"), 2);
	put(&s, 0xB, 301, 500, 0);
	assert_int_equal(tu_drops(DROP_PUSHOUT), 1);
	assert_int_equal(stat(&s, "flows"), 2);         /* X, Y: not A */
	assert_int_equal(stat(&s, "pq_pkts"), 2);       /* a1, y1 */
	expect(&s, 0, mid, TU_LEN(mid), 0);
	assert_int_equal(stat(&s, "pq_out_pkts"), 5);
	put(&s, 0xA, 203, 1500, 0);
	assert_int_equal(stat(&s, "pq_pkts"), 1);       /* PQ, not Queue_A */
	expect(&s, 0, last, TU_LEN(last), 1);
	assert_int_equal(tu_drops_take(), 1);
	sched_destroy(&s);
}

/* Trap 3: the deficit may go negative through line 21 and is reset only
 * on insertion.  Q = 1500.  X: x1 (1000) to PQ, x2-x4 (1000) queued; A:
 * a1 (1500) to PQ, a2, a3 (1500) queued.  PQ: x1 (DC_X -1000), a1 (DC_A
 * -1500).  X's turn: 500, x2 does not fit; A's: 0, nothing; X's: 2000:
 * x2, x3; A's: 1500: a2; X's: 1500: x4, empty, leaves; A's: a3.  With
 * the charge clamped or skipped X would alternate with A: x1 a1 x2 a2 x3
 * x4 a3. */
static void test_trap_negative_deficit(void **state)
{
	static const struct arr in[] = {
		{ 0xC, 1, 1000 }, { 0xC, 2, 1000 }, { 0xC, 3, 1000 },
		{ 0xC, 4, 1000 }, { 0xA, 101, 1500 }, { 0xA, 102, 1500 },
		{ 0xA, 103, 1500 },
	};
	static const uint32_t want[] = { 1, 101, 2, 3, 102, 4, 103 };
	struct sched s;

	(void)state;
	make(&s, "quantum = 1500;");
	put_all(&s, in, TU_LEN(in));
	expect(&s, 0, want, TU_LEN(want), 1);
	sched_destroy(&s);
}

/* Trap 4: a new flow's first packet always goes to PQ, whatever its size;
 * later ones while ByteCount <= Q.  Q = 1000.  A: a1 (1400 > Q) to PQ,
 * a2 (500) queued.  B: b1, b2 (500 each: ByteCount 1000 <= Q) to PQ, b3
 * (100) queued.  PQ: a1, b1, b2 (three PQ packets; with `<` b2 would be
 * queued).  Then A (DC -1400 + 2 quanta = 600): a2; B (0 + 1000): b3. */
static void test_trap_first_packet_and_le(void **state)
{
	static const struct arr in[] = {
		{ 0xA, 1, 1400 }, { 0xA, 2, 500 }, { 0xB, 101, 500 },
		{ 0xB, 102, 500 }, { 0xB, 103, 100 },
	};
	static const uint32_t want[] = { 1, 101, 102, 2, 103 };
	struct sched s;

	(void)state;
	make(&s, "quantum = 1000;");
	put_all(&s, in, TU_LEN(in));
	assert_int_equal(stat(&s, "pq_pkts"), 3);
	expect(&s, 0, want, TU_LEN(want), 1);
	assert_int_equal(stat(&s, "pq_out_pkts"), 3);
	sched_destroy(&s);
}

/* Trap 5: a flow served only through PQ has its turn and leaves, once per
 * round, so its ByteCount restarts.  X is backlogged (1500-byte packets,
 * one per turn); A sends two 500-byte packets per round, always fewer
 * than Q = 1500 bytes per round, so every A packet must go through PQ and
 * leave right after the visit in progress.  Had A stayed in the AFL, its
 * ByteCount would pass Q at its fourth packet and A would queue.  The
 * cycle looks at the empty members (A, F the fictitious flow) once per
 * round each: `examined` per round is exactly X + A + F = 3 (X is the
 * head, in turn, looked at once more when its visit ends). */
static void test_trap_pq_only_flow_leaves(void **state)
{
	struct sched s;
	uint32_t r, id = 1000, x = 1;
	double ex0;

	(void)state;
	make(&s, "quantum = 1500;");
	put(&s, 0xC, x++, 1500, 0);
	put(&s, 0xC, x++, 1500, 0);
	put(&s, 0xC, x++, 1500, 0);
	assert_int_equal(next_id(&s, 0), 1);            /* PQ */
	assert_int_equal(next_id(&s, 0), 2);            /* X's turns */
	ex0 = stat(&s, "examined");
	for (r = 0; r < 50; r++) {
		uint32_t a = id;

		put(&s, 0xA, id++, 500, 0);
		put(&s, 0xA, id++, 500, 0);
		put(&s, 0xC, x++, 1500, 0);
		/* X's turn ended with its packet: PQ first, then X */
		assert_int_equal(next_id(&s, 0), a);
		assert_int_equal(next_id(&s, 0), a + 1);
		assert_true(next_id(&s, 0) < 1000);
		assert_int_equal(stat(&s, "flows"), 1); /* A has left */
	}
	assert_int_equal(stat(&s, "pq_out_pkts"), 1 + 100);
	print_message("examined per round %.2f\n",
		      (stat(&s, "examined") - ex0) / 50);
	assert_int_equal(stat(&s, "examined") - ex0, 3 * 50);
	assert_int_equal(next_id(&s, 0), x - 1);
	assert_int_equal(next_id(&s, 0), NONE);
	sched_destroy(&s);
}

/* ---- a link on a virtual clock ------------------------------------------ */

#define SIM_FLOWS 32

/* Sources: `backlog` keeps that many packets of the flow in the scheduler
 * (refilled as they leave); `period_ns` sends one packet per period
 * (first at `start_ns`); both stop at `stop_ns` (0: never). */
struct src {
	uint32_t  flow, len_bytes, backlog;
	tstamp_ns period_ns, start_ns, stop_ns;
	/* results */
	uint64_t  out_bytes, out_pkts, in_pkts;
	uint64_t  waited_pkts;          /* left with a wait > 0 */
	tstamp_ns next_ns, delay_sum_ns, delay_max_ns;
	uint32_t  queued;
};

/* What the link serves: a scheduler, or plain DRR (the reference). */
struct served {
	tstamp_ns now;          /* where the last run stopped */
	struct sched *s;        /* pdrr, or NULL: drr below */
	struct drr *d;
	struct drr_q *q;        /* per source */
	uint32_t nsrc;
};

static uint32_t src_of(const struct src *src, uint32_t n, uint32_t flow)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (src[i].flow == flow)
			return i;
	fail_msg("unknown flow %u", flow);
	return 0;
}

static uint32_t seqno;

static void sim_put(struct served *sv, struct src *sr, uint32_t i,
		    tstamp_ns now)
{
	struct pkt *p = tu_pkt(CLS_CS0, sr[i].len_bytes, seqno++);

	p->flow_hash = sr[i].flow;
	p->enq_ns = now;
	sr[i].in_pkts++;
	sr[i].queued++;
	if (sv->s)
		sched_enqueue(sv->s, p, now);
	else
		drr_enqueue(sv->d, &sv->q[i], p);
}

/* The source whose next arrival comes first, at or before now (its time
 * in *t_ns), or NONE.  A periodic source arrives at next_ns; a
 * backlogged one, short of its backlog, at next_ns too: the instant one
 * of its packets left the scheduler, its start, or its retry time. */
static uint32_t sim_due(const struct src *sr, uint32_t n, tstamp_ns now,
			tstamp_ns *t_ns)
{
	uint32_t i, first = NONE;

	for (i = 0; i < n; i++) {
		tstamp_ns t = sr[i].next_ns;

		if (t > now || (sr[i].stop_ns && t >= sr[i].stop_ns) ||
		    (sr[i].backlog && sr[i].queued >= sr[i].backlog))
			continue;
		if (first == NONE || t < *t_ns) {
			first = i;
			*t_ns = t;
		}
	}
	return first;
}

/* Source i's packet arrives at t_ns: stamped and enqueued at that time,
 * so that what it waits is measured from its own arrival.  A refused
 * (admission) packet is not held: a backlogged source tries again 1 ms
 * later, a periodic one goes on with its period. */
static void sim_arrive(struct served *sv, struct src *sr, uint32_t i,
		       tstamp_ns t_ns)
{
	unsigned before = tu_drops(DROP_ADMISSION);

	sim_put(sv, sr, i, t_ns);
	if (tu_drops(DROP_ADMISSION) != before)
		sr[i].queued--;
	if (!sr[i].backlog)
		sr[i].next_ns += sr[i].period_ns;
	else if (tu_drops(DROP_ADMISSION) != before)
		sr[i].next_ns = t_ns + NS_PER_MS;
}

/* Runs the link from where it stopped (0 at first) to end_ns, events in
 * time order: every arrival up to the instant the link is free (each at
 * its own time, also while a packet is on the link), then the scheduler's
 * dequeue at that instant; an idle link waits for the next arrival.  The
 * results per source in sr, cumulative; the wait of a packet is its
 * dequeue instant minus its arrival.  Drops (admission) are counted by
 * tu_drop. */
static void sim_run(struct served *sv, struct src *sr, uint32_t n,
		    tstamp_ns end_ns)
{
	tstamp_ns now = sv->now, t;
	uint32_t i;

	for (i = 0; i < n && !now; i++)
		sr[i].next_ns = sr[i].start_ns;
	while (now < end_ns) {
		struct pkt *p;

		while ((i = sim_due(sr, n, now, &t)) != NONE)
			sim_arrive(sv, sr, i, t);
		p = sv->s ? sched_dequeue(sv->s, now)
			  : drr_dequeue(sv->d, NULL);
		if (!p) {
			now = sim_due(sr, n, end_ns, &t) != NONE ? t : end_ns;
			continue;
		}
		i = src_of(sr, n, p->flow_hash);
		sr[i].queued--;
		if (sr[i].backlog && sr[i].next_ns < now)
			sr[i].next_ns = now;
		sr[i].out_pkts++;
		sr[i].out_bytes += p->len_bytes;
		sr[i].delay_sum_ns += now - p->enq_ns;
		sr[i].waited_pkts += (uint64_t)(now > p->enq_ns);
		if (now - p->enq_ns > sr[i].delay_max_ns)
			sr[i].delay_max_ns = now - p->enq_ns;
		now += tx_ns(p->len_bytes);
		pkt_free(p);
	}
	sv->now = now;
}

/* Empties what the run left. */
static void sim_flush(struct served *sv)
{
	struct pkt *p;

	if (sv->s) {
		while ((p = sv->s->ops->drain(sv->s->priv)))
			pkt_free(p);
		sched_destroy(sv->s);
	} else {
		drr_purge(sv->d);
	}
}

/* ---- properties --------------------------------------------------------- */

/* Max-min fairness: four backlogged flows with packets of 100, 576, 1000
 * and 1500 bytes and a 500 kbit/s CBR flow under its fair share: the CBR
 * flow gets all it sends, the four share the rest, 2.375 Mbit/s each, in
 * bytes (packet round robin would give them 15:1), within 5 % over 20 s. */
static void test_max_min_fair(void **state)
{
	static const uint32_t lens[] = { 100, 576, 1000, 1500 };
	struct src sr[5];
	struct sched s;
	struct served sv = { .s = &s };
	const double t_s = 20.0;
	double share = (LINK_BPS - 500000.0) / 4;
	uint32_t i;

	(void)state;
	memset(sr, 0, sizeof(sr));
	for (i = 0; i < 4; i++) {
		sr[i].flow = 10 + i;
		sr[i].len_bytes = lens[i];
		sr[i].backlog = 20;
	}
	sr[4].flow = 99;
	sr[4].len_bytes = 500;
	sr[4].period_ns = tx_ns(500) * 20;      /* 500 kbit/s */
	make(&s, NULL);
	sim_run(&sv, sr, 5, (tstamp_ns)(t_s * NS_PER_SEC));
	for (i = 0; i < 4; i++) {
		double bps = sr[i].out_bytes * 8.0 / t_s;

		print_message("flow of %4u-byte packets: %.0f bit/s (%.2f %% "
			      "of the fair share)\n", lens[i], bps,
			      100 * bps / share);
		assert_true(bps > 0.95 * share && bps < 1.05 * share);
	}
	print_message("CBR 500 kbit/s: sent %llu of %llu\n",
		      (unsigned long long)sr[4].out_pkts,
		      (unsigned long long)sr[4].in_pkts);
	assert_true(sr[4].in_pkts - sr[4].out_pkts <= 1);
	/* §3.2: what a backlogged flow gets; the CBR flow is all PQ */
	print_message("fair rate %.0f bit/s (sample %.0f), priority load "
		      "%.4f\n", stat(&s, "fair_rate_bps"),
		      stat(&s, "fair_sample_bps"), stat(&s, "prio_load"));
	assert_true(stat(&s, "fair_rate_bps") > 0.99 * share &&
		    stat(&s, "fair_rate_bps") < 1.01 * share);
	assert_true(stat(&s, "prio_load") > 0.049 &&
		    stat(&s, "prio_load") < 0.051);
	sim_flush(&sv);
}

/* The point of PQ (§3.1, §4.3): packets of flows that emit less than a
 * quantum per round see next to no delay.  C = 10 Mbit/s, Q = 1500, 20
 * backlogged flows of 1500-byte packets and two CBR flows of 200-byte
 * packets under the fair rate (about 484 kbit/s): L at 64 kbit/s (one
 * packet per 25 ms, about a round) and M at 256 kbit/s (about four a
 * round, 800 bytes: below Q, so all of them go through PQ only if line
 * 12's test counts the round's bytes against Q; L's single packet a
 * round would not see that).  Each CBR packet arrives at its own time,
 * mostly while a 1500-byte packet is on the link.
 *
 * PDRR: PQ is served between visits, and a visit is one 1500-byte packet
 * here, so a CBR packet waits for the rest of the packet on the link and
 * for the PQ packet of the other CBR flow ahead of it, if any:
 *   bound  W <= tx(1500) + tx(200) = 1.36 ms  (every packet);
 *   mean   the M/G/1 non-preemptive priority wait (Cobham),
 *          E[W] = R / (1 - rho), R = sum over the link's packets of
 *          lambda_k tx_k^2 / 2, rho = the PQ's load, from the run's
 *          counts: about 0.60 ms.  CBR is not Poisson, but the arrival
 *          phases sweep the 1.2 ms packet grid, so within 15 %.
 * Plain DRR (the engine alone, same arrivals): a CBR flow empties at each
 * turn, rejoins at the tail and waits for the round, up to 20 packets
 * (24 ms): its mean at least 10x PDRR's, its max above 19 packet times.
 * Arrivals stamped at the link's next free instant instead (the old
 * version of this test) make PDRR's waits 0, below Cobham's mean. */
#define LAT_BULK 20
#define LAT_N    (LAT_BULK + 2)
static void test_low_rate_latency_vs_drr(void **state)
{
	static const char *const name[] = { "L  64 kbit/s", "M 256 kbit/s" };
	struct src sr[2][LAT_N];
	struct drr_q dq[LAT_N];
	struct drr d;
	struct sched s;
	struct served pd = { .s = &s }, ref = { .d = &d, .q = dq };
	const tstamp_ns end_ns = 10 * NS_PER_SEC;
	double avg_ms[2][2], t_s, r_ns = 0, rho = 0, cobham_ms;
	uint32_t k, i, j;

	(void)state;
	for (k = 0; k < 2; k++) {
		memset(sr[k], 0, sizeof(sr[k]));
		for (i = 0; i < LAT_BULK; i++) {
			sr[k][i].flow = 10 + i;
			sr[k][i].len_bytes = 1500;
			sr[k][i].backlog = 3;
		}
		for (j = 0; j < 2; j++) {
			sr[k][LAT_BULK + j].flow = 98 + j;
			sr[k][LAT_BULK + j].len_bytes = 200;
			/* after the bulk flows' first packets (PQ) left */
			sr[k][LAT_BULK + j].start_ns = (107 - 4 * j) * NS_PER_MS;
		}
		sr[k][LAT_BULK].period_ns = 25 * NS_PER_MS;
		sr[k][LAT_BULK + 1].period_ns = 6250 * NS_PER_US;
	}
	make(&s, "quantum = 1500;");
	sim_run(&pd, sr[0], LAT_N, end_ns);
	sim_flush(&pd);
	drr_init(&d);
	for (i = 0; i < LAT_N; i++)
		drr_q_init(&dq[i], 1500);
	sim_run(&ref, sr[1], LAT_N, end_ns);
	sim_flush(&ref);
	/* Cobham's R and rho from what the PDRR run's link carried */
	t_s = (double)pd.now / NS_PER_SEC;
	for (i = 0; i < LAT_N; i++) {
		double tx = (double)tx_ns(sr[0][i].len_bytes);

		r_ns += (double)sr[0][i].out_pkts / t_s * tx * tx / 2 / 1e9;
		if (i >= LAT_BULK)
			rho += (double)sr[0][i].out_bytes * 8 / LINK_BPS / t_s;
	}
	cobham_ms = r_ns / (1 - rho) / NS_PER_MS;
	print_message("PQ load %.4f; M/G/1 non-preemptive priority mean wait "
		      "%.3f ms; bound %.3f ms\n", rho, cobham_ms,
		      (double)(tx_ns(1500) + tx_ns(200)) / NS_PER_MS);
	for (j = 0; j < 2; j++) {
		for (k = 0; k < 2; k++) {
			const struct src *c = &sr[k][LAT_BULK + j];

			avg_ms[k][j] = (double)c->delay_sum_ns /
				       (double)c->out_pkts / NS_PER_MS;
			print_message("%s %s: %llu of %llu packets sent, "
				      "%llu waited; wait avg %.3f ms, max "
				      "%.3f ms\n", k ? "DRR " : "PDRR",
				      name[j],
				      (unsigned long long)c->out_pkts,
				      (unsigned long long)c->in_pkts,
				      (unsigned long long)c->waited_pkts,
				      avg_ms[k][j],
				      (double)c->delay_max_ns / NS_PER_MS);
		}
		/* below the fair rate: PDRR leaves none behind (one may be
		 * arriving at the end) */
		assert_true(sr[0][LAT_BULK + j].in_pkts -
			    sr[0][LAT_BULK + j].out_pkts <= 1);
		assert_true(sr[0][LAT_BULK + j].delay_max_ns <=
			    tx_ns(1500) + tx_ns(200));
		assert_true(fabs(avg_ms[0][j] / cobham_ms - 1) < 0.15);
		assert_true(avg_ms[1][j] > 10 * avg_ms[0][j]);
		assert_true(sr[1][LAT_BULK + j].delay_max_ns >
			    (LAT_BULK - 1) * tx_ns(1500));
	}
}

/* §5: admit_rate 3 Mbit/s.  Four backlogged flows hold the fair rate at
 * C/4 = 2.5 Mbit/s (smoothed from C: under 3 Mbit/s after 2.6 s).  A new
 * CBR flow (100 kbit/s) from t = 4 s is refused; at t = 6 s one
 * backlogged flow stops, the fair rate climbs to about (C - 0.1 Mbit/s)/3
 * = 3.3 Mbit/s and the new flow gets in (once: rejected_flows counts it once).  The flows
 * in progress never lose a packet.  Without admission: nothing refused. */
static void test_admission(void **state)
{
	struct src sr[5];
	struct sched s;
	struct served sv;
	uint32_t i, k;
	unsigned drops[2];

	(void)state;
	for (k = 0; k < 2; k++) {
		memset(sr, 0, sizeof(sr));
		memset(&sv, 0, sizeof(sv));
		sv.s = &s;
		for (i = 0; i < 4; i++) {
			sr[i].flow = 10 + i;
			sr[i].len_bytes = 1500;
			sr[i].backlog = 4;
		}
		sr[3].stop_ns = 6 * NS_PER_SEC;
		sr[4].flow = 99;
		sr[4].len_bytes = 125;
		sr[4].period_ns = 10 * NS_PER_MS;
		sr[4].start_ns = 4 * NS_PER_SEC;
		make(&s, k ? "admit_rate = \"3Mbit\";"
			   : "admission = true; admit_rate = \"3Mbit\";");
		sim_run(&sv, sr, 5, 4 * NS_PER_SEC);
		print_message("admission %s: at 4 s fair rate %.0f bit/s\n",
			      k ? "off" : "on", stat(&s, "fair_rate_bps"));
		assert_true(stat(&s, "fair_rate_bps") < 3000000);
		sim_run(&sv, sr, 5, 6 * NS_PER_SEC);
		drops[k] = tu_drops(DROP_ADMISSION);
		sim_run(&sv, sr, 5, 10 * NS_PER_SEC);
		print_message("  refused %u packets by 6 s, %u by 10 s; new "
			      "flow sent %llu of %llu; rejected flows %.0f; "
			      "fair rate at 10 s %.0f bit/s\n", drops[k],
			      tu_drops(DROP_ADMISSION),
			      (unsigned long long)sr[4].out_pkts,
			      (unsigned long long)sr[4].in_pkts,
			      stat(&s, "rejected_flows"),
			      stat(&s, "fair_rate_bps"));
		for (i = 0; i < 4; i++)
			assert_int_equal(sr[i].in_pkts - sr[i].out_pkts,
					 sr[i].queued);
		if (k) {
			assert_int_equal(tu_drops_take(), 0);
			assert_int_equal(sr[4].out_pkts, 600);
		} else {
			/* refused from 4 s to 6 s (200 packets), admitted
			 * within a second of the recovery and never
			 * refused again: the last 300 all went out */
			assert_int_equal(drops[0], 200);
			assert_true(tu_drops(DROP_ADMISSION) < 300);
			assert_int_equal(sr[4].out_pkts + tu_drops(DROP_ADMISSION),
					 600);
			assert_int_equal(stat(&s, "rejected_flows"), 1);
			assert_int_equal(stat(&s, "drops.admission"),
					 tu_drops(DROP_ADMISSION));
			tu_drops_take();
		}
		/* (C - 100 kbit/s) / 3, within 2 %: a sample counts
		 * whole rounds, 120 kbit/s each */
		assert_true(stat(&s, "fair_rate_bps") > 0.98 * 3300000 &&
			    stat(&s, "fair_rate_bps") < 1.02 * 3300000);
		sim_flush(&sv);
	}
}

/* §2.2's second criterion: admit_load 0.3, admit_rate 1 kbit/s (so the
 * fair rate, about C - PQ rate with one backlogged flow, never refuses).
 * Eight 500 kbit/s CBR flows of 200-byte packets (each under a quantum per
 * round: all through PQ) make a priority load of 0.4 from t = 0; the
 * smoothed load passes 0.3 at about 1.3 s (0.4 (1 - 0.9^n)).  A new
 * 100 kbit/s flow from 3 s is refused; four CBR flows stop at 5 s, the
 * load falls to 0.2 and its average under 0.3 after
 * n = ln(0.1 / (L5 - 0.2)) / ln 0.9 samples (about 6: 0.6 s), when the
 * new flow gets in.  Flows in progress (admitted while the load was low)
 * lose nothing.  Without admit_load the same run refuses nothing. */
static void test_admission_prio_load(void **state)
{
	struct src sr[10];
	struct sched s;
	struct served sv;
	uint32_t i, k;
	double load5 = 0, want_s = 0;
	tstamp_ns t, in_ns = 0;

	(void)state;
	for (k = 0; k < 2; k++) {
		memset(sr, 0, sizeof(sr));
		memset(&sv, 0, sizeof(sv));
		sv.s = &s;
		sr[0].flow = 10;
		sr[0].len_bytes = 1500;
		sr[0].backlog = 4;
		for (i = 1; i <= 8; i++) {
			sr[i].flow = 20 + i;
			sr[i].len_bytes = 200;
			sr[i].period_ns = 3200 * NS_PER_US;  /* 500 kbit/s */
			sr[i].start_ns = i * 400 * NS_PER_US;
			if (i > 4)
				sr[i].stop_ns = 5 * NS_PER_SEC;
		}
		sr[9].flow = 99;
		sr[9].len_bytes = 125;
		sr[9].period_ns = 10 * NS_PER_MS;          /* 100 kbit/s */
		sr[9].start_ns = 3 * NS_PER_SEC;
		make(&s, k ? "admission = true; admit_rate = \"1kbit\";"
			   : "admission = true; admit_rate = \"1kbit\"; "
			     "admit_load = 0.3;");
		sim_run(&sv, sr, 10, 3 * NS_PER_SEC);
		print_message("admit_load %s: at 3 s priority load %.4f, fair "
			      "rate %.0f bit/s\n", k ? "off" : "0.3",
			      stat(&s, "prio_load"), stat(&s, "fair_rate_bps"));
		assert_true(stat(&s, "prio_load") > 0.37);
		sim_run(&sv, sr, 10, 5 * NS_PER_SEC);
		load5 = stat(&s, "prio_load");
		if (!k)
			assert_int_equal(tu_drops(DROP_ADMISSION), 200);
		/* the first 10 ms step without a refusal: admitted */
		for (t = 5 * NS_PER_SEC; t < 10 * NS_PER_SEC;
		     t += 10 * NS_PER_MS) {
			unsigned before = tu_drops(DROP_ADMISSION);

			sim_run(&sv, sr, 10, t + 10 * NS_PER_MS);
			if (!in_ns && k == 0 && before == tu_drops(DROP_ADMISSION))
				in_ns = t;
		}
		print_message("  load at 5 s %.4f, at 10 s %.4f; refused %u "
			      "packets; refused_by fair_rate %.0f prio_load "
			      "%.0f; rejected flows %.0f; new flow sent %llu of "
			      "%llu\n", load5, stat(&s, "prio_load"),
			      tu_drops(DROP_ADMISSION),
			      stat(&s, "refused_by.fair_rate"),
			      stat(&s, "refused_by.prio_load"),
			      stat(&s, "rejected_flows"),
			      (unsigned long long)sr[9].out_pkts,
			      (unsigned long long)sr[9].in_pkts);
		for (i = 0; i < 9; i++) /* in progress: nothing lost */
			assert_int_equal(sr[i].in_pkts - sr[i].out_pkts,
					 sr[i].queued);
		assert_int_equal(stat(&s, "refused_by.fair_rate"), 0);
		if (k) {
			assert_int_equal(tu_drops_take(), 0);
			assert_int_equal(sr[9].out_pkts, 700);
			assert_int_equal(stat(&s, "rejected_flows"), 0);
		} else {
			want_s = 5 + 0.1 * ceil(log(0.1 / (load5 - 0.2)) /
						log(0.9));
			print_message("  admitted at %.2f s, the EWMA predicts "
				      "%.2f s (+ one 100 ms sample)\n",
				      (double)in_ns / NS_PER_SEC, want_s);
			assert_true(in_ns >= (tstamp_ns)((want_s - 0.1) *
							 NS_PER_SEC));
			assert_true(in_ns <= (tstamp_ns)((want_s + 0.1) *
							 NS_PER_SEC));
			assert_int_equal(stat(&s, "rejected_flows"), 1);
			assert_int_equal(stat(&s, "refused_by.prio_load"),
					 tu_drops(DROP_ADMISSION));
			assert_int_equal(sr[9].out_pkts + tu_drops_take(), 700);
		}
		assert_true(stat(&s, "prio_load") < 0.3);
		sim_flush(&sv);
	}
}

/* Footnote 1: buffer = 10, Q = 1500, 1000-byte packets.  A: a1 (PQ),
 * a2-a6 queued; B: b1 (PQ), b2, b3 queued; C: c1 (PQ): 10 held.  New
 * flows D-H, one packet each (PQ), each push out the head of the longest
 * flow queue: a2, a3, a4 (A: 5, 4, 3 against B's 2), a5 (2 against 2: A
 * reached that length last), b2 (A 1, B 2).  What is left leaves: PQ a1
 * b1 c1 d1-h1, then A's turn (DC -1000 + 2 quanta): a6, B's: b3.  With
 * every held packet in PQ, the arrival itself is refused. */
static void test_pushout_longest(void **state)
{
	static const uint32_t want[] = { 1, 101, 201, 301, 302, 303, 304,
					 305, 6, 103 };
	struct sched s;
	uint32_t i;

	(void)state;
	make(&s, "quantum = 1500; buffer = 10;");
	for (i = 1; i <= 6; i++)
		put(&s, 0xA, i, 1000, 0);
	for (i = 101; i <= 103; i++)
		put(&s, 0xB, i, 1000, 0);
	put(&s, 0xC, 201, 1000, 0);
	for (i = 0; i < 5; i++) {
		put(&s, 0xD0 + i, 301 + i, 1000, 0);
		assert_int_equal(tu_drops(DROP_PUSHOUT), i + 1);
	}
	expect(&s, 0, want, TU_LEN(want), 1);
	assert_int_equal(stat(&s, "drops.pushout"), 5);
	assert_int_equal(tu_drops_take(), 5);
	sched_destroy(&s);

	make(&s, "buffer = 3;");
	for (i = 0; i < 4; i++)
		put(&s, 0x10 + i, i, 100, 0);
	assert_int_equal(tu_drops(DROP_SCHED_LIMIT), 1);
	assert_int_equal(stat(&s, "drops.sched_limit"), 1);
	assert_int_equal(tu_drops_take(), 1);
	sched_destroy(&s);
}

/* EF strict on (default): an EF packet leaves before the rest of the
 * visit in progress and before PQ.  Off: EF is a flow like another, its
 * first packet in PQ behind B's, after the visit (trap 1's scenario). */
static void test_ef_strict(void **state)
{
	static const uint32_t on[] = { 900, 5, 6, 101 };
	static const uint32_t off[] = { 5, 6, 101, 900 };
	struct sched s;
	struct pkt *p;
	uint32_t i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		make(&s, k ? "quantum = 1500; ef_strict = false;"
			   : "quantum = 1500;");
		for (i = 1; i <= 6; i++)
			put(&s, 0xA, i, 500, 0);
		for (i = 1; i <= 4; i++)
			assert_int_equal(next_id(&s, 0), i);
		put(&s, 0xB, 101, 500, 0);
		p = tu_pkt(CLS_EF, 200, 900);
		p->flow_hash = 0xEF;
		sched_enqueue(&s, p, 0);
		expect(&s, 0, k ? off : on, 4, 1);
		sched_destroy(&s);
	}
}

/* §4.2: max_flows = 2.  A and B fill the AFL; C's packets, beyond it,
 * go through PQ (all of them, although they exceed a quantum) and are
 * counted; after A and B have left, C joins like any new flow. */
static void test_afl_bound(void **state)
{
	static const struct arr in[] = {
		{ 0xA, 1, 1500 }, { 0xA, 2, 1500 }, { 0xB, 101, 1500 },
		{ 0xB, 102, 1500 }, { 0xC, 201, 1500 }, { 0xC, 202, 1500 },
	};
	static const uint32_t want[] = { 1, 101, 201, 202, 2, 102 };
	struct sched s;

	(void)state;
	make(&s, "quantum = 1500; max_flows = 2;");
	put_all(&s, in, TU_LEN(in));
	assert_int_equal(stat(&s, "flows"), 2);
	assert_int_equal(stat(&s, "afl_full_pkts"), 2);
	expect(&s, 0, want, TU_LEN(want), 1);
	put(&s, 0xC, 203, 1500, 0);
	put(&s, 0xC, 204, 1500, 0);
	assert_int_equal(stat(&s, "flows"), 1);
	assert_int_equal(stat(&s, "pq_pkts"), 1);       /* 204 queued */
	assert_int_equal(stat(&s, "afl_full_pkts"), 2);
	assert_int_equal(next_id(&s, 0), 203);
	assert_int_equal(next_id(&s, 0), 204);
	assert_int_equal(next_id(&s, 0), NONE);
	sched_destroy(&s);
}

/* DRRexp (the Dual Queue paper's DRR with old-packet discard):
 * priority = false, Q = 1500, t_expire = 1 s, 1000-byte packets.  A:
 * a1-a3 at 0; B: b1, b2 at 0.5 s.
 *  - 0.2 s: A's turn (DC 1500): a1, DC 500;
 *  - 1.0 s: a2 has waited exactly t_expire: not expired (strictly
 *    longer is).  It does not fit A's 500, so B's turn: b1 (DC 500);
 *  - 1.0 s + 1 ns: B in its turn, b2 does not fit; the scan passes A,
 *    whose a2 and a3 have now waited longer: both discarded, A empties
 *    and leaves; B's next turn sends b2.  Nothing is left. */
static void test_drrexp(void **state)
{
	static const struct arr a[] = {
		{ 0xA, 1, 1000 }, { 0xA, 2, 1000 }, { 0xA, 3, 1000 },
	};
	struct sched s;

	(void)state;
	make(&s, "priority = false; quantum = 1500; t_expire = \"1s\";");
	put_all(&s, a, TU_LEN(a));
	put(&s, 0xB, 101, 1000, NS_PER_SEC / 2);
	put(&s, 0xB, 102, 1000, NS_PER_SEC / 2);
	assert_int_equal(next_id(&s, NS_PER_SEC / 5), 1);
	assert_int_equal(next_id(&s, NS_PER_SEC), 101);
	assert_int_equal(stat(&s, "drops.expired"), 0);
	assert_int_equal(next_id(&s, NS_PER_SEC + 1), 102);
	assert_int_equal(stat(&s, "drops.expired"), 2);
	assert_int_equal(tu_drops(DROP_EXPIRED), 2);
	assert_int_equal(stat(&s, "flows"), 0);
	assert_int_equal(next_id(&s, NS_PER_SEC + 1), NONE);
	assert_int_equal(tu_drops_take(), 2);
	sched_destroy(&s);
}

/* Expiry with the priority queue (t_expire = 1 s, Q = 1500): a1 (new
 * flow: PQ) and a2 (ByteCount 2000 > Q: Queue_A) at 0, b1 (new: PQ) at
 * 0.5 s.  At 1.5 s a1 and a2 have waited 1.5 s, b1 exactly 1 s: a1 is
 * discarded from PQ's head, a2 from A's queue (A leaves the AFL, its
 * entry goes), and PQ sends b1.  Without t_expire the same arrivals
 * send all three. */
static void test_expire_pq(void **state)
{
	struct sched s;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		make(&s, k ? "quantum = 1500;"
			   : "quantum = 1500; t_expire = \"1s\";");
		put(&s, 0xA, 1, 1000, 0);
		put(&s, 0xA, 2, 1000, 0);
		put(&s, 0xB, 101, 1000, NS_PER_SEC / 2);
		assert_int_equal(stat(&s, "pq_pkts"), 2);
		if (!k) {
			assert_int_equal(next_id(&s, NS_PER_SEC * 3 / 2), 101);
			assert_int_equal(stat(&s, "drops.expired"), 2);
			assert_int_equal(tu_drops(DROP_EXPIRED), 2);
			assert_int_equal(tu_drops_take(), 2);
		} else {
			static const uint32_t all[] = { 1, 101, 2 };

			expect(&s, NS_PER_SEC * 3 / 2, all, TU_LEN(all), 0);
			assert_int_equal(stat(&s, "drops.expired"), 0);
		}
		assert_int_equal(next_id(&s, NS_PER_SEC * 3 / 2), NONE);
		assert_int_equal(stat(&s, "flows"), 0);
		sched_destroy(&s);
	}
}

static int setup_big(void **state)
{
	(void)state;
	tu_sched_env(&env, LINK_BPS);
	return tu_pool_init(32000, 300);
}

/* 10,000 active flows, each kept backlogged (300-byte packets, Q = 500:
 * the first packet of each in PQ, then two queued, refilled as they
 * leave), 200,000 packets: the table holds them all, and the cost is
 * O(1): members examined by the engine per packet, printed.  A flow
 * beyond max_flows is served through PQ. */
static void test_10k_flows(void **state)
{
	const uint32_t nflows = 10000, npkts = 200000;
	struct sched s;
	uint32_t f, i, id = 0;
	double ex0;

	(void)state;
	make(&s, "quantum = 500; max_flows = 10000; buffer = 40000;");
	for (f = 0; f < nflows; f++)
		for (i = 0; i < 3; i++)
			put(&s, 0x10000 + f * 7919u, id++, 300, 0);
	assert_int_equal(stat(&s, "flows"), nflows);
	assert_int_equal(stat(&s, "pq_pkts"), nflows);
	put(&s, 0xFFFFFFFFu, id++, 300, 0);
	assert_int_equal(stat(&s, "afl_full_pkts"), 1);
	ex0 = stat(&s, "examined");
	for (i = 0; i < npkts; i++) {
		struct pkt *p = sched_dequeue(&s, 0);

		assert_non_null(p);
		if (p->flow_hash != 0xFFFFFFFFu)
			put(&s, p->flow_hash, id++, 300, 0);
		pkt_free(p);
	}
	print_message("10000 flows: %.3f members examined per packet\n",
		      (stat(&s, "examined") - ex0) / npkts);
	assert_true(stat(&s, "examined") - ex0 < 2.0 * npkts);
	assert_int_equal(stat(&s, "flows"), nflows);
	while ((i = next_id(&s, 0)) != NONE)
		;
	sched_destroy(&s);
}

/* The keys' meaning together: admission measures against the link's
 * capacity, which an unlimited link does not have; a quantum under 64
 * bytes is out of the table's range.  Both named with file and line. */
static void test_config_errors(void **state)
{
	struct conf c;

	(void)state;
	assert_int_equal(tu_conf_load_text(
		"link = { rate = \"unlimited\"; };\n"
		"scheduler = { name = \"pdrr\";\n"
		"  pdrr = { admission = true;\n"
		"           quantum = 20; }; };\n", "x.conf", &c), 2);
	assert_string_equal(tu_conf_diag(),
		"x.conf:4: scheduler.pdrr.quantum: 20 is out of range "
		"(accepted: 64..1000000 bytes)\n"
		"x.conf:3: scheduler.pdrr.admission: true needs a link "
		"capacity: the link is unlimited (accepted: false, or a rate "
		"in link.rate)\n");
	assert_int_equal(tu_conf_load_text(
		"link = { rate = \"10Mbit\"; };\n"
		"scheduler = { name = \"pdrr\";\n"
		"  pdrr = { admit_load = 0.25; }; };\n", "y.conf", &c), 1);
	assert_string_equal(tu_conf_diag(),
		"y.conf:3: scheduler.pdrr.admit_load: has no effect without "
		"admission (accepted: both together)\n");
	assert_int_equal(tu_conf_load_text(
		"link = { rate = \"10Mbit\"; };\n"
		"scheduler = { name = \"pdrr\";\n"
		"  pdrr = { admission = true; admit_load = 0; }; };\n",
		"z.conf", &c), 1);
	assert_string_equal(tu_conf_diag(), "z.conf:3: "
			    "scheduler.pdrr.admit_load: 0 is out of range "
			    "(accepted: 0 < admit_load <= 1, a fraction of the "
			    "capacity)\n");
	assert_int_equal(tu_conf_load_text(
		"scheduler = { name = \"pdrr\";\n"
		"  pdrr = { t_expire = \"0s\"; }; };\n", "e.conf", &c), 1);
	assert_string_equal(tu_conf_diag(), "e.conf:2: "
			    "scheduler.pdrr.t_expire: '0s' is out of range "
			    "(accepted: 1ms..3600s)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		PDRR_TEST(test_trap_pq_between_visits),
		PDRR_TEST(test_trap_leave_with_pq_pending),
		PDRR_TEST(test_trap_negative_deficit),
		PDRR_TEST(test_trap_first_packet_and_le),
		PDRR_TEST(test_trap_pq_only_flow_leaves),
		PDRR_TEST(test_max_min_fair),
		PDRR_TEST(test_low_rate_latency_vs_drr),
		PDRR_TEST(test_admission),
		PDRR_TEST(test_admission_prio_load),
		PDRR_TEST(test_pushout_longest),
		PDRR_TEST(test_ef_strict),
		PDRR_TEST(test_afl_bound),
		PDRR_TEST(test_drrexp),
		PDRR_TEST(test_expire_pq),
		PDRR_TEST(test_config_errors),
		cmocka_unit_test_setup_teardown(test_10k_flows, setup_big,
						tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
