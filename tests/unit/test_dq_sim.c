/* test_dq_sim.c - the dq scheduler against the paper's TCP experiments
 * (Hayes, Rumsewicz, Andrew 1999, Table 1, Figs. 4 and 5), in the
 * simulator: the daemon's own packet path (core.c) on a virtual clock,
 * with the `web` source (simweb.c) standing for the paper's WWW users.
 *
 * Every run is deterministic (a fixed seed per run).  The same seed gives
 * every discipline the same users: each flow's stream draws its think
 * times and session sizes in the same order whatever the scheduler, so
 * the disciplines are compared on the same sessions (common random
 * numbers), which is what lets a few runs separate them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "conf/conf.h"
#include "pkt/pkt.h"
#include "sim/sim.h"
#include "sim/simopt.h"
#include "testutil.h"

/* Table 1, experiment 1 */
#define T1_NODE_BPS     2000000u
#define T1_ACCESS_BPS   500000u
#define T1_SOURCES      50u
#define T1_BUFFER_BYTES 500000u
#define T1_MEAN_BYTES   30000u          /* Pareto a = 6923, c = 1.3 */
#define T1_ALPHA        1.3
#define T1_RTT_NS       (500 * NS_PER_MS)       /* §4.2's return path */
#define PKT_BYTES       1500u
#define POOL_PKTS       2048u

/* The users' sessions together: eq. 2 and what explains it. */
struct web_sum {
	uint64_t  sessions, done, cuts, in_pkts, drop_pkts, expired;
	double    bytes, secs;          /* eq. 2's sums */
	double    link_bps;             /* carried after the warm-up */
	tstamp_ns delay_max_ns, delay_p99_ns;   /* in the scheduler */
};

static void web_collect(void *ctx, const struct sim_flow *f)
{
	struct web_sum *w = ctx;

	w->sessions += f->sessions;
	w->done += f->sessions_done;
	w->cuts += f->cuts;
	w->in_pkts += f->in_pkts;
	w->drop_pkts += f->drop_pkts;
	w->expired += f->drop_by[DROP_EXPIRED];
	w->bytes += (double)f->session_bytes;
	w->secs += (double)f->session_ns / 1e9;
}

/* Eq. 2: Σ valid bits received / Σ session times, bit/s. */
static double eq2_bps(const struct web_sum *w)
{
	return w->secs > 0 ? w->bytes * 8.0 / w->secs : 0.0;
}

/* A discipline of the comparison: the scheduler, its keys, and the cs0
 * class limit (FIFO's whole buffer is the core's class limit). */
struct disc {
	const char *name, *sched, *keys;
	uint32_t    cs0_limit_pkts;
};

/* The paper's three, with the same total buffer (§5): 500000 bytes, i.e.
 * 333 packets of 1500 bytes for the packet-counting ones.  DRRexp is
 * per-flow DRR with old-packet discard after t_expire = 5 s (§5,
 * docs/instruments.md). */
static const struct disc discs[] = {
	{ "FIFO", "fifo", NULL, T1_BUFFER_BYTES / PKT_BYTES },
	{ "DRRexp", "pdrr", "priority = false; t_expire = \"5s\"; "
	  "buffer = 333;", 1000 },
	{ "DQ",   "dq",   "buffer = 500000;", 1000 },
};
enum { D_FIFO, D_DRREXP, D_DQ, NDISC };

/* The users' source: n web users of mean think time think_ns. */
static void web_source(struct sim_source *x, uint32_t n, tstamp_ns think_ns,
		       uint64_t mean_bytes, double alpha)
{
	tu_sim_src(x, SIM_SRC_WEB, PKT_BYTES, n);
	x->alpha = alpha;
	x->mean_bytes = mean_bytes;
	x->off_ns = think_ns;
	x->peak_bps = T1_ACCESS_BPS;
}

/* Runs sc (its conf and cs0 source set) for dur_ns of which warm_ns
 * warm-up, with seed, summing the users into *w.  The pool ends empty. */
static void run_sum(struct sim_config *sc, tstamp_ns dur_ns, tstamp_ns warm_ns,
		    uint64_t seed, struct web_sum *w)
{
	struct sim_result r;

	memset(w, 0, sizeof(*w));
	sc->duration_ns = dur_ns;
	sc->warmup_ns = warm_ns;
	sc->seed = seed;
	sc->flow_cb = web_collect;
	sc->flow_ctx = w;
	assert_int_equal(sim_run(sc, &r), 0);
	assert_int_equal(pkt_pool_in_use(), 0);
	assert_int_equal(r.pool_empty_pkts, 0);
	w->link_bps = r.mean_bps[CLS_CS0];
	w->delay_max_ns = r.flows[CLS_CS0].delay_max_ns;
	w->delay_p99_ns = r.flows[CLS_CS0].delay_p99_ns;
}

/* *sc: Table 1 experiment 1 under discipline d, T1_SOURCES users of
 * mean think time think_ns on T1_NODE_BPS with a T1_RTT_NS return path
 * (duration, warm-up, seed and callbacks left to the caller). */
static void table1_config(struct sim_config *sc, const struct disc *d,
			  tstamp_ns think_ns)
{
	struct sched_env env;

	tu_sim_config(sc, T1_NODE_BPS, T1_RTT_NS, d->sched, 0, 0);
	sc->conf.limit_pkts[CLS_CS0] = d->cs0_limit_pkts;
	conf_sched_env(&sc->conf, &env);
	if (d->keys)
		tu_sched_params(sc->conf.sched, d->keys, &env,
				sc->conf.sched_params);
	web_source(&sc->src[CLS_CS0], T1_SOURCES, think_ns, T1_MEAN_BYTES,
		   T1_ALPHA);
}

/* Table 1 experiment 1 under d (table1_config()) for dur_ns of which
 * warm_ns warm-up, with seed, summed into *w. */
static void run_table1(const struct disc *d, tstamp_ns think_ns,
		       tstamp_ns dur_ns, tstamp_ns warm_ns, uint64_t seed,
		       struct web_sum *w)
{
	struct sim_config sc;

	table1_config(&sc, d, think_ns);
	run_sum(&sc, dur_ns, warm_ns, seed, w);
}

static int setup(void **state)
{
	(void)state;
	return tu_pool_init(POOL_PKTS, PKT_BYTES);
}

/* conf/dq-table1.conf is the configuration of these tests: the file's
 * DQ run and run_table1()'s give the same sessions, bit for bit (60 s,
 * 0.5 s silences). */
static void test_table1_conf(void **state)
{
	struct sim_config sc;
	struct web_sum from_file, by_hand;

	(void)state;
	memset(&sc, 0, sizeof(sc));
	tu_conf_load_ok("../../conf/dq-table1.conf", &sc.conf);
	assert_int_equal(sc.conf.link.rate_bps, T1_NODE_BPS);
	assert_int_equal(sc.conf.delay_ns, T1_RTT_NS);
	assert_string_equal(sc.conf.sched->name, "dq");
	web_source(&sc.src[CLS_CS0], T1_SOURCES, 500 * NS_PER_MS,
		   T1_MEAN_BYTES, T1_ALPHA);
	run_sum(&sc, 60 * NS_PER_SEC, 10 * NS_PER_SEC, 1, &from_file);
	conf_free(&sc.conf);
	run_table1(&discs[D_DQ], 500 * NS_PER_MS, 60 * NS_PER_SEC,
		   10 * NS_PER_SEC, 1, &by_hand);
	fprintf(stderr, "conf/dq-table1.conf: eq.2 %.1f kbit/s, %llu "
		"sessions; by hand %.1f kbit/s, %llu sessions\n",
		eq2_bps(&from_file) / 1e3,
		(unsigned long long)from_file.sessions,
		eq2_bps(&by_hand) / 1e3, (unsigned long long)by_hand.sessions);
	assert_true(from_file.sessions > 100);
	assert_int_equal(from_file.sessions, by_hand.sessions);
	assert_true(from_file.bytes == by_hand.bytes &&
		    from_file.secs == by_hand.secs);
}

/* ---- the web source itself ---------------------------------------------- */

/* One user alone on a 10 Mbit/s FIFO link (no queue, no loss), 500 ms
 * return path, think 1 s, sessions of 10 or 11 packets (Pareto shape 100,
 * mean 15000 bytes: sizes from 14850 bytes, above 16500 with probability
 * 3e-5).  Slow start from cwnd = 1 sends 1, 2, 4, then the rest: four
 * rounds, so a session lasts at least 3 RTT = 1.5 s, and at most 3 RTT
 * plus its packets paced at the 500 kbit/s access rate (24 ms each) and
 * serialised (1.2 ms each): 1.5 + 11 x 0.0252 = 1.78 s.  The next think
 * time starts when the last packet's ACK arrives, 0.5 s after the session
 * ends, so a cycle lasts about 1 + 1.6 + 0.5 = 3.1 s: 98 sessions in
 * 300 s, asserted within +-25 % (the sum of ~98 exponential think times
 * has a 10 % standard deviation: 2.5 sigma). */
static void test_web_one_user(void **state)
{
	struct sim_config sc;
	struct web_sum w;
	double per_s;

	(void)state;
	tu_sim_config(&sc, 10000000, T1_RTT_NS, "fifo", 0, 0);
	web_source(&sc.src[CLS_CS0], 1, NS_PER_SEC, 15000, 100.0);
	run_sum(&sc, 300 * NS_PER_SEC, 0, 7, &w);
	per_s = w.secs / (double)w.done;
	fprintf(stderr, "web, one user: %llu sessions, %llu done, mean size "
		"%.0f bytes, mean session %.3f s, eq.2 %.1f kbit/s, %llu "
		"drops\n", (unsigned long long)w.sessions,
		(unsigned long long)w.done, w.bytes / (double)w.sessions,
		per_s, eq2_bps(&w) / 1e3, (unsigned long long)w.drop_pkts);
	assert_int_equal(w.drop_pkts, 0);
	assert_int_equal(w.cuts, 0);
	assert_true(w.done + 1 >= w.sessions);
	assert_true(w.sessions > 73 && w.sessions < 123);
	assert_true(per_s >= 1.5 && per_s <= 1.78);
	assert_true(w.bytes / (double)w.sessions >= 14850.0 &&
		    w.bytes / (double)w.sessions <= 16500.0);
}

/* The loss reaction: 10 users of large sessions (Pareto 1.3, mean 300 kB)
 * with 0.1 s of think time behind a 20-packet FIFO on 2 Mbit/s: the
 * windows overflow the queue.  Losses are noticed and cut the windows
 * (cuts), the lost packets are sent again (every session that ended
 * received its whole size: its bytes count in eq. 2 as received, which
 * sim_web_carried only does once all its packets arrived), the link stays
 * busy (> 85 % of C) and the loss stays moderate (< 8 %: windows that
 * never shrink would reach the 43-packet receive window, 430 packets in
 * flight for 83 + 20 that the path holds, and an unresponsive source at
 * 10 x 500 kbit/s would lose 60 %). */
static void test_web_losses(void **state)
{
	struct sim_config sc;
	struct web_sum w;
	double loss;

	(void)state;
	tu_sim_config(&sc, T1_NODE_BPS, T1_RTT_NS, "fifo", 0, 0);
	sc.conf.limit_pkts[CLS_CS0] = 20;
	web_source(&sc.src[CLS_CS0], 10, 100 * NS_PER_MS, 300000, 1.3);
	run_sum(&sc, 300 * NS_PER_SEC, 20 * NS_PER_SEC, 3, &w);
	loss = (double)w.drop_pkts / (double)w.in_pkts;
	fprintf(stderr, "web, 10 users on a 20-packet FIFO: %llu sessions, "
		"%llu done, loss %.2f %%, %llu cuts, link %.3f Mbit/s, eq.2 "
		"%.1f kbit/s\n", (unsigned long long)w.sessions,
		(unsigned long long)w.done, 100.0 * loss,
		(unsigned long long)w.cuts, w.link_bps / 1e6,
		eq2_bps(&w) / 1e3);
	assert_true(w.drop_pkts > 0 && w.cuts > 0);
	assert_true(loss < 0.08);
	assert_true(w.link_bps > 0.85 * T1_NODE_BPS);
	assert_true(w.done + 10 >= w.sessions && w.done > 20);
}

/* The SPEC of the command line: web:ALPHA:MEAN_SIZE:THINK:ACCESS_RATE
 * [:PKT_BYTES] fills the fields run_table1 sets by hand, and a source
 * without an access rate is refused. */
static void test_web_spec(void **state)
{
	struct sim_source x;
	char err[1024] = "";

	(void)state;
	assert_int_equal(simopt_source("--cs0", "50*web:1.3:30000:2.5s:"
				       "500kbit:1500", &x, err, sizeof(err)), 0);
	assert_int_equal(x.kind, SIM_SRC_WEB);
	assert_int_equal(x.flows, 50);
	assert_true(x.alpha == 1.3);
	assert_int_equal(x.mean_bytes, 30000);
	assert_int_equal(x.off_ns, 2500 * NS_PER_MS);
	assert_int_equal(x.peak_bps, 500000);
	assert_int_equal(x.pkt_bytes, 1500);
	assert_int_equal(simopt_source("--cs0", "web:1.3:30000:2.5s", &x, err,
				       sizeof(err)), -1);
	assert_non_null(strstr(err, "web:ALPHA:MEAN_SIZE:THINK:ACCESS_RATE"));
}

/* ---- Fig. 5 ----------------------------------------------------------------- */

#define FIG5_SEEDS      4u
#define FIG5_DUR_NS     (320 * NS_PER_SEC)
#define FIG5_WARM_NS    (20 * NS_PER_SEC)

/* Fig. 5: eq. 2's mean session rate against the mean silence time, for
 * FIFO, DRRexp and DQ with the same 500000-byte buffer (Table 1 exp. 1).
 * The paper: DQ above DRRexp and FIFO, most at high load (short silence),
 * and DQ above the others in every one of its runs.  Here 5 of the 10
 * silence times, FIG5_SEEDS runs of 300 s (after 20 s of warm-up) each
 * instead of 20, the same users for every discipline.  Asserted:
 *  - short silence (0.5 s) is a high load (the link carries > 90 % of C)
 *    and 12.5 s a light one (< 40 %);
 *  - at 0.5 s DQ's rate is above FIFO's and DRRexp's in every run;
 *  - at 12.5 s the three are within 2 % of each other (the buffer is
 *    rarely used, so the discipline hardly matters);
 *  - DQ's gain over FIFO is larger at 0.5 s than at 12.5 s. */
static void test_fig5_session_rate(void **state)
{
	static const double think_s[] = { 0.5, 1.0, 2.5, 5.0, 12.5 };
	enum { NT = TU_LEN(think_s) };
	double rate[NT][NDISC], run_rate[FIG5_SEEDS][NDISC], util[NT];
	size_t i, j;
	uint64_t k;

	(void)state;
	for (i = 0; i < NT; i++) {
		for (j = 0; j < NDISC; j++) {
			struct web_sum all, one;

			memset(&all, 0, sizeof(all));
			for (k = 0; k < FIG5_SEEDS; k++) {
				run_table1(&discs[j],
					   (tstamp_ns)(think_s[i] * 1e9),
					   FIG5_DUR_NS, FIG5_WARM_NS, k + 1, &one);
				run_rate[k][j] = eq2_bps(&one);
				all.sessions += one.sessions;
				all.done += one.done;
				all.cuts += one.cuts;
				all.in_pkts += one.in_pkts;
				all.drop_pkts += one.drop_pkts;
				all.expired += one.expired;
				all.bytes += one.bytes;
				all.secs += one.secs;
				all.link_bps += one.link_bps / FIG5_SEEDS;
				if (one.delay_max_ns > all.delay_max_ns)
					all.delay_max_ns = one.delay_max_ns;
			}
			rate[i][j] = eq2_bps(&all);
			if (j == D_FIFO)
				util[i] = all.link_bps / T1_NODE_BPS;
			fprintf(stderr, "fig5 silence %4.1f s %-6s eq.2 %6.1f "
				"kbit/s (runs %5.1f %5.1f %5.1f %5.1f)  link "
				"%.3f Mbit/s  %5llu sessions  loss %5.2f %% "
				"(%llu expired)  %4llu cuts  max wait %.2f s\n",
				think_s[i], discs[j].name, rate[i][j] / 1e3,
				run_rate[0][j] / 1e3, run_rate[1][j] / 1e3,
				run_rate[2][j] / 1e3, run_rate[3][j] / 1e3,
				all.link_bps / 1e6,
				(unsigned long long)all.sessions,
				100.0 * (double)all.drop_pkts /
				(double)(all.in_pkts ? all.in_pkts : 1),
				(unsigned long long)all.expired,
				(unsigned long long)all.cuts,
				(double)all.delay_max_ns / 1e9);
		}
		if (i == 0)
			for (k = 0; k < FIG5_SEEDS; k++) {
				assert_true(run_rate[k][D_DQ] > run_rate[k][D_FIFO]);
				assert_true(run_rate[k][D_DQ] >
					    run_rate[k][D_DRREXP]);
			}
	}
	fprintf(stderr, "fig5 table (kbit/s)   silence:");
	for (i = 0; i < NT; i++)
		fprintf(stderr, " %6.1f", think_s[i]);
	for (j = 0; j < NDISC; j++) {
		fprintf(stderr, "\nfig5 table %-6s            ", discs[j].name);
		for (i = 0; i < NT; i++)
			fprintf(stderr, " %6.1f", rate[i][j] / 1e3);
	}
	fprintf(stderr, "\nfig5 DQ/FIFO                ");
	for (i = 0; i < NT; i++)
		fprintf(stderr, " %6.3f", rate[i][D_DQ] / rate[i][D_FIFO]);
	fprintf(stderr, "\n");
	assert_true(util[0] > 0.9 && util[NT - 1] < 0.4);
	for (j = 0; j < NDISC; j++)
		assert_true(fabs(rate[NT - 1][j] / rate[NT - 1][D_DQ] - 1.0) <
			    0.02);
	assert_true(rate[0][D_DQ] / rate[0][D_FIFO] >
		    rate[NT - 1][D_DQ] / rate[NT - 1][D_FIFO]);
}

/* ---- degraded sessions (Fig. 4, §5.1) ---------------------------------- */

#define DEG_WARM_NS     (20 * NS_PER_SEC)
#define DEG_PERIOD_NS   (2 * NS_PER_SEC)
#define DEG_LATE_NS     (120 * NS_PER_MS)

/* Degraded user-periods: of the users active in a measurement period
 * (a packet of theirs left the scheduler or was dropped in it), those
 * with a packet that waited more than DEG_LATE_NS or was lost. */
struct deg_count {
	uint64_t active, degraded, lost;
	uint64_t in_pkts, limit_drops;  /* in the period: DROP_SCHED_LIMIT */
};

static double deg_frac(const struct deg_count *c)
{
	return c->active ? (double)c->degraded / (double)c->active : 0.0;
}

/* Adds to *c one DEG_PERIOD_NS measurement period after DEG_WARM_NS of
 * warm-up under d at think_ns with seed.  The simulator reports per flow
 * the largest wait over the measured window, but its drops over the whole
 * run: the drops of the period are those of a run to its end minus those
 * of the same run (same seed, the same sample path) to its start. */
static void deg_period(const struct disc *d, tstamp_ns think_ns,
		       uint64_t seed, struct deg_count *c)
{
	static struct sim_flow before[T1_SOURCES], after[T1_SOURCES];
	struct tu_flows fb, fa;
	struct sim_config sc;
	struct sim_result r;
	unsigned i;

	table1_config(&sc, d, think_ns);
	sc.seed = seed;
	sc.duration_ns = DEG_WARM_NS;
	tu_flows_collect(&sc, &fb, before, T1_SOURCES);
	assert_int_equal(sim_run(&sc, &r), 0);
	table1_config(&sc, d, think_ns);
	sc.seed = seed;
	sc.duration_ns = DEG_WARM_NS + DEG_PERIOD_NS;
	sc.warmup_ns = DEG_WARM_NS;
	tu_flows_collect(&sc, &fa, after, T1_SOURCES);
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(pkt_pool_in_use(), 0);
	assert_int_equal(r.pool_empty_pkts, 0);
	assert_int_equal(fa.n, T1_SOURCES);
	assert_int_equal(fb.n, T1_SOURCES);
	for (i = 0; i < T1_SOURCES; i++) {
		uint64_t lost;

		assert_int_equal(after[i].flow_hash, before[i].flow_hash);
		assert_true(after[i].drop_pkts >= before[i].drop_pkts);
		lost = after[i].drop_pkts - before[i].drop_pkts;
		c->in_pkts += after[i].in_pkts - before[i].in_pkts;
		c->limit_drops += after[i].drop_by[DROP_SCHED_LIMIT] -
				  before[i].drop_by[DROP_SCHED_LIMIT];
		if (after[i].delay_pkts == 0 && lost == 0)
			continue;
		c->active++;
		c->lost += lost != 0;
		c->degraded += lost != 0 ||
			       after[i].delay_max_ns > DEG_LATE_NS;
	}
}

/* The ablations of DQ next to the comparison (docs/dq.md). */
static const struct disc dq_ablations[] = {
	{ "DQ-paper", "dq", "buffer = 500000; forced_redirect = false;",
	  1000 },
	{ "DQ-forced", "dq", "buffer = 500000; busy_test = false;", 1000 },
};

#define DEG_SEEDS       30u
#define DEG_MARGIN      0.6     /* DQ's fraction below 0.6 x the others' */
#define DEG_OVERFLOW    0.01    /* DQ-paper: α overflow below 1 % */

/* Fig. 4's claim on the paper's load: DQ degrades fewer sessions than
 * FIFO and DRRexp (§5.1; good service: every packet within 120 ms, §4.3).
 * Table 1 experiment 1 (50 web users: Pareto sessions, exponential think
 * times) at think times 0.5 s (saturated) and 3 s (Fig. 4's load); a
 * measurement period is DEG_PERIOD_NS after DEG_WARM_NS, one per seed,
 * DEG_SEEDS seeds (deg_period()).  A lost packet degrades its user too.
 * Next to DQ, its two mechanisms alone (dq's ablation keys):
 *  - DQ-paper, §4.3's onset thresholds and busy-source test alone
 *    (forced_redirect = false: α is a finite queue of L bytes and a
 *    packet that does not fit is lost);
 *  - DQ-forced, our "α full => redirect" rule alone (busy_test = false).
 * Asserted, at each think time: DQ and each ablation below DEG_MARGIN
 * times the lesser of FIFO's and DRRexp's fraction (measured: FIFO 99 %
 * and 51 %, DRRexp 100 % and 32 %, DQ 36 % and 12 %, DQ-paper 33 % and
 * 13 %, DQ-forced 37 % and 14 %: each mechanism alone gives the whole
 * gain, together they give no more); FIFO at 0.5 s degrades more than
 * 90 % (the load is a congestion, or the claim is empty); under DQ-paper
 * α overflows (drops with reason sched_limit) for less than DEG_OVERFLOW
 * of the packets: the onset thresholds redirect the busy sessions before
 * α is full (measured 0.42 % and 0.15 %; thresholds moved to L give
 * 2.8 % and 2.0 %).  Breakages each assertion caught: docs/dq.md. */
static void test_degraded_sessions(void **state)
{
	static const double think_s[] = { 0.5, 3.0 };
	double frac[NDISC + TU_LEN(dq_ablations)], ref, overflow = 0;
	size_t i, j;
	uint64_t k;

	(void)state;
	for (i = 0; i < TU_LEN(think_s); i++) {
		for (j = 0; j < NDISC + TU_LEN(dq_ablations); j++) {
			const struct disc *d = j < NDISC ? &discs[j] :
					       &dq_ablations[j - NDISC];
			struct deg_count c = { 0 };

			for (k = 0; k < DEG_SEEDS; k++)
				deg_period(d, (tstamp_ns)(think_s[i] * 1e9),
					   k + 1, &c);
			fprintf(stderr, "degraded think %.1f s %-9s %5.1f %% "
				"of %llu active user-periods (%llu with a "
				"loss), sched_limit drops %.2f %% of packets\n",
				think_s[i], d->name, 100.0 * deg_frac(&c),
				(unsigned long long)c.active,
				(unsigned long long)c.lost,
				100.0 * (double)c.limit_drops /
				(double)c.in_pkts);
			frac[j] = deg_frac(&c);
			if (j == NDISC)
				overflow = (double)c.limit_drops /
					   (double)c.in_pkts;
		}
		if (i == 0)
			assert_true(frac[D_FIFO] > 0.9);
		assert_true(overflow < DEG_OVERFLOW);
		ref = fmin(frac[D_FIFO], frac[D_DRREXP]);
		assert_true(frac[D_DQ] < DEG_MARGIN * ref);
		assert_true(frac[NDISC] < DEG_MARGIN * ref);
		assert_true(frac[NDISC + 1] < DEG_MARGIN * ref);
	}
}

/* Fig. 6 (§5.2, Table 1 experiment 2) is not tested here.  Its claim, that
 * DQ breaks the window synchronisation FIFO causes, needs the premise that
 * FIFO synchronises the windows, and in this model it does not: with AIMD
 * sources that notice a loss one base RTT after it and never time out,
 * FIFO's windows came out independent (mean pairwise cwnd correlation
 * -0.009 .. -0.002 over seeds 1-4), so a test that DQ's are "less
 * synchronised" passed without its premise.  Real TCP (retransmission
 * timeouts, tail drops noticed after the queue drained) is where it can be
 * checked: the Mininet experiment of issue 22 (docs/dq.md). */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_web_spec),
		cmocka_unit_test_setup_teardown(test_table1_conf, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_web_one_user, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_web_losses, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_degraded_sessions, setup,
						tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_fig5_session_rate, setup,
						tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
