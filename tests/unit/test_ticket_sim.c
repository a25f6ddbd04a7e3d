/* test_ticket_sim.c - TICKET against the paper's evaluation (Karlsson et
 * al., §3), with closed-loop sources, in the simulator (sim.h: the
 * daemon's packet path on a virtual clock; deterministic, seed 1).
 *
 * The setup of §3.1 as far as the simulator reaches it:
 *   - the TICKET link: 30 Mbit/s, n_eb = 256 packets for excess and
 *     background together; EF, AF and CS0 class limits out of the way;
 *   - 27 TFRC-like flows of 320-byte packets (simsrc.c `tfrc`: AIMD on
 *     loss events seen one RTT later), RTTs spread 12..250 ms, each
 *     policed at 267 kbit/s (2.4 Mbit/s per 9 flows): the packets within
 *     a token bucket of 267 kbit/s, two packets deep, are marked EF
 *     (IT-conforming), the rest AF (IT-excess), under the flow's one
 *     5-tuple;
 *   - best effort (CS0): 24 TFRC-like flows of 1500-byte packets, RTTs
 *     100..250 ms (the paper's 12..250 ms base RTT plus the ~100 ms a
 *     full 256-packet buffer of mostly 1500-byte packets adds at 30
 *     Mbit/s: the sources here do not see queueing delay in their RTT),
 *     in place of the paper's 270 Pareto on-off TCP sources; 24 flows
 *     make the steady-state overall loss at d = 2 ms the paper's
 *     moderate overload (§3.3: 2.4 %; here 2.6 %).
 * What it is not: TFRC's equation, TSW conditioners, TCP, the reverse
 * path, per-packet RTTs that grow with the queue.
 *
 * Steady state: 60 s, warm-up 20 s (the paper's own start of
 * measurement, §3.1).  Losses, late and out-of-order drops are counted
 * per second from the simulator's stats lines and summed over [20, 60) s
 * and over its halves; delays and rates are the simulator's, over the
 * same window.  The start-up (all flows at their ceiling at once) would
 * otherwise dominate the loss comparison: the whole run's losses at
 * d = 2 ms are printed to show it.
 *
 * d is swept over 0.5, 2, 10, 35, 50, 100 ms for TICKET (order =
 * "aggregate"), TICKET with §2.4.4's order = "flow", and the naive
 * scheduler, on the same load (same seed).  Asserted on every run (see
 * check_it): no conforming packet lost, every conforming packet carried
 * (the departure rate), no excess packet waiting longer than d, no
 * conforming one longer than d (below 0.8 ms, two 1500-byte packet
 * times: d + one), and for d >= 0.8 ms no conforming packet of the whole
 * run, start-up included, sent after its deadline (ef_missed == 0);
 * conservation per class.  Then (test_d_sweep): for d >= 2 ms the loss
 * of excess and of background over each half of the window within 10 %
 * of the window's (naive: 15 %); at d = 2 ms the overall loss nearer the
 * paper's moderate overload (2.4 %) than its 0.7 or 5.1 %, the excess
 * loss 2 to 3.3 times the background's (the paper's "similar" is NOT
 * met; the loss-rate relation is), and the naive scheduler's excess loss
 * more than 4 times TICKET's; the excess rate per flow at 10 ms within
 * 5 % of 2 ms's, as §3.3's flat rate, but at 50 and 100 ms more than
 * 1.3 times it (the paper: flat for all d > 2 ms; docs/ticket.md);
 * per-flow order detection: fewer than a tenth of the aggregate's order
 * drops for d <= 35 ms, excess loss within half a point at every d.
 * test_policer_phases: the 27 policers never put more than 6 conforming
 * packets in one ms (the cause of conforming packets missing d = 2 ms at
 * start-up, fixed in simsrc.c).  docs/ticket.md's closed-loop numbers are
 * this test's output (ctest --test-dir build-test -R test_ticket_sim -V). */
#include <libconfig.h>
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
#include "util/diag.h"
#include "testutil.h"

#define LINK_BPS     30000000ull
#define IT_FLOWS     27u
#define IT_PKT_BYTES 320u
#define PROFILE_BPS  267000ull          /* 2.4 Mbit/s / 9 flows */
#define BE_FLOWS     24u
#define BE_PKT_BYTES 1500u
#define DUR_NS       (60 * NS_PER_SEC)
#define WARM_NS      (20 * NS_PER_SEC)
#define DUR_S        60u
#define WARM_S       20u
#define HALF_S       ((WARM_S + DUR_S) / 2)

/* Packet counts of one time window, by packet class (EF = the TFRC
 * flows' conforming part, AF their excess, CS0 background), from the
 * stats lines; late and order are TICKET's AF drops by reason. */
struct tk_win {
	uint64_t in[NCLASS], drop[NCLASS];
	uint64_t late, order;
};

/* Loss rates of one window, in percent. */
struct tk_loss {
	double all_pct, af_pct, cs0_pct;
};

/* One run's numbers.  Losses and drop reasons per window: [0] the
 * steady state [warm-up, duration), [1] and [2] its halves, [3] the
 * whole run (start-up included, printed to show what the warm-up
 * removes).  Rates over [warm-up, duration), class delays (exact
 * maxima) over the same window; ef_missed over the whole run. */
enum { W_STEADY, W_HALF1, W_HALF2, W_ALL, W_N };
struct tk_run {
	struct tk_loss loss[W_N];
	struct tk_win  win[W_N];
	double    ef_bps, af_bps, cs0_bps;
	double    af_per_flow_bps;      /* excess throughput per TFRC flow */
	tstamp_ns ef_max_ns, af_max_ns, cs0_p50_ns;
	uint64_t  ef_drops;             /* every EF drop of the run */
	uint64_t  conf_pkts;            /* marked EF by the policers */
	uint64_t  ef_carried_pkts;      /* EF carried by the link in [0, dur) */
	uint64_t  ef_missed;            /* EF sent after its deadline */
};

/* flow_cb: sums conf_pkts over the TFRC flows. */
static void add_conf(void *ctx, const struct sim_flow *f)
{
	*(uint64_t *)ctx += f->conf_pkts;
}

/* The number after `key` in line at or after `from` (a stats line is
 * one JSON object in a fixed member order); fails the test when the
 * member is missing. */
static uint64_t stat_u64(const char *line, const char *from, const char *key)
{
	const char *p = strstr(line, from);
	unsigned long long v;

	if (p)
		p = strstr(p, key);
	if (!p || sscanf(p + strlen(key), "%llu", &v) != 1)
		fail_msg("stats line without %s ... %s: %.80s", from, key, line);
	return (uint64_t)v;
}

/* Adds one stats line (the counts of the second ending at its "t") to
 * every window of r that second lies in; sums ef_missed over all. */
static void add_line(const char *line, struct tk_run *r)
{
	static const char *const cls_at[NCLASS] = {
		[CLS_EF] = "\"ef\": {\"in_pkts\": ",
		[CLS_AF] = "\"af\": {\"in_pkts\": ",
		[CLS_CS0] = "\"cs0\": {\"in_pkts\": ",
	};
	double t_s;
	unsigned sec, w, k;
	int in[W_N];

	if (sscanf(line, "{\"t\": %lf", &t_s) != 1)
		fail_msg("stats line without t: %.80s", line);
	sec = (unsigned)ceil(t_s) - 1;          /* the second [sec, sec+1) */
	in[W_STEADY] = sec >= WARM_S;
	in[W_HALF1] = sec >= WARM_S && sec < HALF_S;
	in[W_HALF2] = sec >= HALF_S;
	in[W_ALL] = 1;
	r->ef_missed += stat_u64(line, "\"sched\": {", "\"ef_missed\": ");
	for (w = 0; w < W_N; w++) {
		struct tk_win *x = &r->win[w];

		if (!in[w])
			continue;
		for (k = CLS_EF; k < NCLASS; k++) {
			if (!cls_at[k])
				continue;
			x->in[k] += stat_u64(line, cls_at[k], "\"in_pkts\": ");
			x->drop[k] += stat_u64(line, cls_at[k],
					       "\"drop_pkts\": ");
		}
		x->late += stat_u64(line, "\"sched\": {", "\"late\": ");
		x->order += stat_u64(line, "\"sched\": {",
				     "\"out_of_order\": ");
	}
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Runs the §3 load through ticket with `params` (the body of
 * scheduler.ticket) into *r.  Checks conservation per class, and that
 * the stats lines cover the run (their EF arrivals are the policers'
 * marks). */
static void run(const char *params, struct tk_run *r)
{
	char text[512];
	static char line[16384];
	struct sim_config sc;
	struct sim_result res;
	struct sim_source *it, *be;
	unsigned k, w, lines = 0;

	memset(r, 0, sizeof(*r));
	memset(&sc, 0, sizeof(sc));
	snprintf(text, sizeof(text),
		 "link = { rate = \"30Mbit\"; delay = \"1ms\"; };\n"
		 "classes = { ef = { limit = 1000; }; af = { limit = 1000; }; "
		 "cs0 = { limit = 1000; }; };\n"
		 "scheduler = { name = \"ticket\"; ticket = { n_eb = 256; %s }; "
		 "};\n", params);
	assert_int_equal(tu_conf_load_text(text, "ticket-sim.conf", &sc.conf),
			 0);
	it = &sc.src[CLS_AF];
	tu_sim_src(it, SIM_SRC_TFRC, IT_PKT_BYTES, IT_FLOWS);
	it->rate_bps = 3000000;
	it->rtt_ns = 12 * NS_PER_MS;
	it->rtt_max_ns = 250 * NS_PER_MS;
	it->profile_bps = PROFILE_BPS;
	be = &sc.src[CLS_CS0];
	tu_sim_src(be, SIM_SRC_TFRC, BE_PKT_BYTES, BE_FLOWS);
	be->rate_bps = 30000000;
	be->rtt_ns = 100 * NS_PER_MS;
	be->rtt_max_ns = 250 * NS_PER_MS;
	sc.duration_ns = DUR_NS;
	sc.warmup_ns = WARM_NS;
	sc.sample_ns = NS_PER_SEC;
	sc.stats = tmpfile();
	assert_non_null(sc.stats);
	sc.seed = 1;
	sc.flow_cb = add_conf;
	sc.flow_ctx = &r->conf_pkts;
	assert_int_equal(sim_run(&sc, &res), 0);
	conf_free(&sc.conf);
	rewind(sc.stats);
	while (fgets(line, sizeof(line), sc.stats)) {
		assert_non_null(strchr(line, '\n'));   /* not cut */
		add_line(line, r);
		lines++;
	}
	fclose(sc.stats);
	assert_int_equal(lines, DUR_S);
	assert_true(r->win[W_ALL].in[CLS_EF] == r->conf_pkts);

	for (k = CLS_AF; k < NCLASS; k++) {
		const struct sim_class_flows *g = &res.flows[k];

		assert_true(g->in_pkts == g->out_pkts + g->drop_pkts +
					  g->queued_pkts);
	}
	for (w = 0; w < W_N; w++) {
		const struct tk_win *x = &r->win[w];

		r->loss[w].all_pct = pct(x->drop[CLS_EF] + x->drop[CLS_AF] +
					 x->drop[CLS_CS0], x->in[CLS_EF] +
					 x->in[CLS_AF] + x->in[CLS_CS0]);
		r->loss[w].af_pct = pct(x->drop[CLS_AF], x->in[CLS_AF]);
		r->loss[w].cs0_pct = pct(x->drop[CLS_CS0], x->in[CLS_CS0]);
	}
	r->ef_drops = res.drop_pkts[CLS_EF];
	r->ef_bps = res.mean_bps[CLS_EF];
	r->af_bps = res.mean_bps[CLS_AF];
	r->cs0_bps = res.mean_bps[CLS_CS0];
	r->af_per_flow_bps = r->af_bps / IT_FLOWS;
	r->ef_max_ns = res.flows[CLS_EF].delay_max_ns;
	r->af_max_ns = res.flows[CLS_AF].delay_max_ns;
	r->cs0_p50_ns = res.flows[CLS_CS0].delay_p50_ns;
	r->ef_carried_pkts = res.out_bytes[CLS_EF] / IT_PKT_BYTES;
}

/* The IT requirements on one run at d: conforming never lost and all of
 * it carried (what is missing is at most what arrived within the last d
 * plus 2 ms, the 1 ms delay line and a margin, at 27 x 267 kbit/s: 287
 * packets at d = 100 ms); excess never waits more than d (the late test) and conforming
 * neither, once d exceeds two 1500-byte packets' time on the link: then
 * no conforming packet of the whole run starts after its deadline
 * (ef_missed, counted by the scheduler from t = 0, so the start-up is
 * judged too).  Below D_FREE_NS a conforming packet that falls due while
 * a background packet is on the link waits for it (no preemption; §2.5:
 * "no delay guarantees ... for time scales shorter the sending time of
 * an MTU sized packet"), so there it may wait up to d + that, and
 * ef_missed is not asserted. */
#define MTU_NS     (BE_PKT_BYTES * 8 * NS_PER_SEC / LINK_BPS)
#define D_FREE_NS  (2 * MTU_NS)
static void check_it(const char *what, const struct tk_run *r,
		     tstamp_ns d_ns)
{
	uint64_t tail_pkts = (uint64_t)ceil((double)(d_ns + 2 * NS_PER_MS) /
					    1e9 * IT_FLOWS * PROFILE_BPS /
					    (IT_PKT_BYTES * 8.0));
	tstamp_ns ef_bound_ns = d_ns >= D_FREE_NS ? d_ns : d_ns + MTU_NS;

	if (r->ef_drops != 0 || r->ef_carried_pkts + tail_pkts <
	    r->conf_pkts || r->ef_max_ns > ef_bound_ns || r->af_max_ns > d_ns ||
	    (d_ns >= D_FREE_NS && r->ef_missed != 0))
		fail_msg("%s: EF drops %llu, carried %llu of %llu, EF max "
			 "%.3f ms, AF max %.3f ms, EF missed %llu, d %.3f ms",
			 what, (unsigned long long)r->ef_drops,
			 (unsigned long long)r->ef_carried_pkts,
			 (unsigned long long)r->conf_pkts,
			 (double)r->ef_max_ns / 1e6, (double)r->af_max_ns / 1e6,
			 (unsigned long long)r->ef_missed, (double)d_ns / 1e6);
}

static void print_row(const char *what, double d_ms, const struct tk_run *r)
{
	const struct tk_loss *l = r->loss;

	fprintf(stderr, "%-6s %5.1f | %5.2f %5.2f %5.2f | %5.2f %5.2f | "
		"%5.2f %5.2f | %4llu %5llu | %6.3f %6.3f %6.3f | %5.1f | "
		"%6.3f %6.3f %7.2f | %4llu\n", what, d_ms,
		l[W_STEADY].all_pct, l[W_STEADY].af_pct, l[W_STEADY].cs0_pct,
		l[W_HALF1].af_pct, l[W_HALF2].af_pct,
		l[W_HALF1].cs0_pct, l[W_HALF2].cs0_pct,
		(unsigned long long)r->win[W_STEADY].late,
		(unsigned long long)r->win[W_STEADY].order,
		r->ef_bps / 1e6, r->af_bps / 1e6, r->cs0_bps / 1e6,
		r->af_per_flow_bps / 1e3, (double)r->ef_max_ns / 1e6,
		(double)r->af_max_ns / 1e6, (double)r->cs0_p50_ns / 1e6,
		(unsigned long long)r->ef_missed);
}

/* |a - b| <= tol * b */
static int within(double a, double b, double tol)
{
	return fabs(a - b) <= tol * b;
}

/* The largest relative deviation of a half's excess or background loss
 * from the steady-state window's. */
static double half_dev(const struct tk_loss *l)
{
	double dev = 0;
	int h;

	for (h = W_HALF1; h <= W_HALF2; h++) {
		dev = fmax(dev, fabs(l[h].af_pct - l[W_STEADY].af_pct) /
				l[W_STEADY].af_pct);
		dev = fmax(dev, fabs(l[h].cs0_pct - l[W_STEADY].cs0_pct) /
				l[W_STEADY].cs0_pct);
	}
	return dev;
}

static void test_d_sweep(void **state)
{
	static const double d_ms[] = { 0.5, 2, 10, 35, 50, 100 };
	static const char *const variant[] = { "ticket", "flow", "naive" };
	static const char *const extra[] = {
		"", "order = \"flow\";", "variant = \"naive\";"
	};
	struct tk_run r[TU_LEN(d_ms)][3];
	const struct tk_run *t2 = &r[1][0], *n2 = &r[1][2];
	char params[128];
	size_t i, v;

	(void)state;
	fprintf(stderr, "losses and drops over [%u, %u) s, halves [%u, %u) "
		"and [%u, %u) s\n", WARM_S, DUR_S, WARM_S, HALF_S, HALF_S,
		DUR_S);
	fprintf(stderr, "sched  d ms  | loss %%: all   AF   CS0 | AF halves "
		"| CS0 halves | AF late order | Mbit/s: EF    AF    CS0 | AF "
		"kbit/s/flow | max ms: EF AF, CS0 p50 ms | EF missed\n");
	for (i = 0; i < TU_LEN(d_ms); i++) {
		tstamp_ns d_ns = (tstamp_ns)(d_ms[i] * 1e6);

		for (v = 0; v < 3; v++) {
			snprintf(params, sizeof(params), "d = \"%gms\"; %s",
				 d_ms[i], extra[v]);
			run(params, &r[i][v]);
			print_row(variant[v], d_ms[i], &r[i][v]);
			check_it(variant[v], &r[i][v], d_ns);
		}
	}
	fprintf(stderr, "d = 2 ms over the whole run [0, %u) s, start-up "
		"included: ticket AF %.2f %% CS0 %.2f %%, naive AF %.2f %% "
		"CS0 %.2f %%\n", DUR_S, t2->loss[W_ALL].af_pct,
		t2->loss[W_ALL].cs0_pct, n2->loss[W_ALL].af_pct,
		n2->loss[W_ALL].cs0_pct);
	fprintf(stderr, "d = 2 ms steady state: AF / CS0 loss ticket %.2f, "
		"naive %.2f; excess per flow at d / at 2 ms:",
		t2->loss[W_STEADY].af_pct / t2->loss[W_STEADY].cs0_pct,
		n2->loss[W_STEADY].af_pct / n2->loss[W_STEADY].cs0_pct);
	for (i = 2; i < TU_LEN(d_ms); i++)
		fprintf(stderr, " %g ms %.3f", d_ms[i],
			r[i][0].af_per_flow_bps / t2->af_per_flow_bps);
	fprintf(stderr, "\n");

	/* The warm-up is enough: at every d >= 2 ms the excess and
	 * background loss of each half of the window is within 10 % of the
	 * whole window's for TICKET (both orders), 15 % for the naive
	 * scheduler, whose excess loss swings more (printed: the largest
	 * deviation of each); over the run with the start-up they are
	 * several times higher (printed above). */
	for (v = 0; v < 3; v++) {
		double dev = 0, tol = v == 2 ? 0.15 : 0.10;

		for (i = 1; i < TU_LEN(d_ms); i++)
			dev = fmax(dev, half_dev(r[i][v].loss));
		fprintf(stderr, "%s: halves' largest deviation from the window "
			"%.1f %% (asserted <= %.0f %%)\n", variant[v], 100 * dev,
			100 * tol);
		assert_true(dev <= tol);
	}
	/* The load is the paper's moderate overload: overall loss nearer
	 * its 2.4 % (§3.3) than its 0.7 % or 5.1 % (§3.2, §3.4). */
	assert_true(t2->loss[W_STEADY].all_pct > (0.7 + 2.4) / 2 &&
		    t2->loss[W_STEADY].all_pct < (2.4 + 5.1) / 2);
	/* §3.5 at d = 2 ms: "excess and best-effort traffic can be given
	 * similar loss-rates".  Not here: the loss-rate relation holds
	 * (excess at least background's), but excess loses 2.63 times as
	 * much (the halves 2.60 and 2.67); asserted 2 to 3.3 (+-25 %), so
	 * that a change that made them similar, or the gap wider, fails
	 * here and the finding in docs/ticket.md gets revisited. */
	assert_true(t2->loss[W_STEADY].af_pct >= 2 * t2->loss[W_STEADY].cs0_pct);
	assert_true(t2->loss[W_STEADY].af_pct <=
		    3.3 * t2->loss[W_STEADY].cs0_pct);
	/* §2.2-2.3: the naive scheduler loses far more excess than TICKET
	 * (52.6 against 6.6 %); asserted: more than 4 times */
	assert_true(n2->loss[W_STEADY].af_pct > 4 * t2->loss[W_STEADY].af_pct);
	/* §3.3: about the same excess rate per flow for every d > 2 ms.
	 * Here flat from 2 to 10 ms (+1.4 %, asserted within 5 %), then
	 * growing as d nears the background's queueing delay (+17 % at 35
	 * ms, +48 % at 50, +73 % at 100; asserted: 50 and 100 ms more than
	 * 1.3 times 2 ms's), a difference docs/ticket.md explains. */
	assert_true(within(r[2][0].af_per_flow_bps, t2->af_per_flow_bps, 0.05));
	assert_true(r[4][0].af_per_flow_bps > 1.3 * t2->af_per_flow_bps);
	assert_true(r[5][0].af_per_flow_bps > 1.3 * t2->af_per_flow_bps);
	/* §2.4.4: per-flow detection turns out-of-order drops into late
	 * ones (the excess packets a deadline-sent conforming packet
	 * overtook arrived before it, so their own deadlines are as near)
	 * and the excess loss stays within half a percentage point (measured
	 * at most 0.34) - "the same results as with the pure TICKET
	 * scheduler".  Asserted for d <= 35 ms: per flow, fewer than a
	 * tenth of the aggregate's order drops (measured at most 6 %; at 50
	 * ms 10.5 %, at 100 ms neither drops any). */
	for (i = 0; i < TU_LEN(d_ms); i++) {
		const struct tk_run *a = &r[i][0], *f = &r[i][1];

		if (d_ms[i] <= 35)
			assert_true(10 * f->win[W_STEADY].order <
				    a->win[W_STEADY].order);
		assert_true(fabs(f->loss[W_STEADY].af_pct -
				 a->loss[W_STEADY].af_pct) <= 0.5);
	}
}

/* The simulator's In-Time TFRC source on a link that never loses (prio,
 * 100 Mbit/s): 2 flows of 1 Mbit/s policed at 267 kbit/s each, RTTs 12
 * and 250 ms.  The EF-marked part is the profile, classified EF, carried
 * under the flow's own record (no EF flow of its own); no loss, so no
 * cut and the rates stay at 1 Mbit/s. */
static void test_tfrc_profile(void **state)
{
	struct sim_config sc;
	struct sim_result res;
	struct sim_source *it = &sc.src[CLS_AF];
	struct sim_flow seen[4];
	struct tu_flows fs;
	unsigned j;

	(void)state;
	tu_sim_config(&sc, 100000000, NS_PER_MS, "prio", 20 * NS_PER_SEC,
		      10 * NS_PER_SEC);
	tu_flows_collect(&sc, &fs, seen, TU_LEN(seen));
	tu_sim_src(it, SIM_SRC_TFRC, IT_PKT_BYTES, 2);
	it->rate_bps = 1000000;
	it->rtt_ns = 12 * NS_PER_MS;
	it->rtt_max_ns = 250 * NS_PER_MS;
	it->profile_bps = PROFILE_BPS;
	assert_int_equal(sim_run(&sc, &res), 0);
	conf_free(&sc.conf);
	fprintf(stderr, "profile: EF %.4f Mbit/s, AF %.4f Mbit/s; flow 0 "
		"%llu of %llu packets EF\n", res.mean_bps[CLS_EF] / 1e6,
		res.mean_bps[CLS_AF] / 1e6,
		(unsigned long long)fs.f[0].conf_pkts,
		(unsigned long long)fs.f[0].in_pkts);
	assert_int_equal(fs.n, 2);
	assert_int_equal(res.flows[CLS_EF].flows, 0);
	for (j = 0; j < 2; j++) {
		const struct sim_flow *f = &fs.f[j];

		assert_int_equal(f->cls, CLS_AF);
		assert_true(f->drop_pkts == 0 && f->cuts == 0);
		/* 267 of every 1000 kbit, to within a packet or two */
		assert_true(fabs((double)f->conf_pkts / (double)f->in_pkts -
				 0.267) < 0.002);
		assert_true(fabs(f->rate_bps - 1e6) < 3000);
	}
	assert_true(fabs(res.mean_bps[CLS_EF] - 2.0 * PROFILE_BPS) < 3000);
	assert_true(fabs(res.mean_bps[CLS_AF] - 2.0 * (1e6 - PROFILE_BPS)) <
		    3000);
}

/* The policers of N flows sending at one rate come due one after the
 * other (simsrc.c starts flow f with f/N of a packet's tokens): the §3
 * TFRC source alone, 27 flows at 3 Mbit/s, on a link that never loses
 * (prio, 100 Mbit/s, so no cut changes a flow's rate and the phases stay
 * as they start), counted per millisecond for 100 ms.  The 27 x 267
 * kbit/s profile is 2.8 conforming packets per ms on average; asserted:
 * never more than 6 in one ms.  Buckets that all start full put 54 in
 * the first 2 ms and 27 within one ms every profile period (9.6 ms),
 * which is 2.3 ms of the 30 Mbit/s TICKET link and made conforming
 * packets miss d = 2 ms in test_d_sweep. */
static void test_policer_phases(void **state)
{
	static char line[16384];
	struct sim_config sc;
	struct sim_result res;
	struct sim_source *it = &sc.src[CLS_AF];
	uint64_t n, most = 0, total = 0;
	unsigned lines = 0;

	(void)state;
	tu_sim_config(&sc, 100000000, NS_PER_MS, "prio", 100 * NS_PER_MS,
		      10 * NS_PER_MS);
	tu_sim_src(it, SIM_SRC_TFRC, IT_PKT_BYTES, IT_FLOWS);
	it->rate_bps = 3000000;
	it->rtt_ns = 12 * NS_PER_MS;
	it->rtt_max_ns = 250 * NS_PER_MS;
	it->profile_bps = PROFILE_BPS;
	sc.sample_ns = NS_PER_MS;
	sc.stats = tmpfile();
	assert_non_null(sc.stats);
	assert_int_equal(sim_run(&sc, &res), 0);
	conf_free(&sc.conf);
	rewind(sc.stats);
	while (fgets(line, sizeof(line), sc.stats)) {
		assert_non_null(strchr(line, '\n'));
		n = stat_u64(line, "\"ef\": {\"in_pkts\": ", "\"in_pkts\": ");
		most = n > most ? n : most;
		total += n;
		lines++;
	}
	fclose(sc.stats);
	fprintf(stderr, "policers: %llu conforming packets in 100 ms, at "
		"most %llu in one ms\n", (unsigned long long)total,
		(unsigned long long)most);
	assert_int_equal(lines, 100);
	assert_int_equal(res.drop_pkts[CLS_EF] + res.drop_pkts[CLS_AF], 0);
	/* 27 x 267 kbit/s for 100 ms is 282 packets, plus what the
	 * buckets hold at the start (at most 27 x 2) */
	assert_true(total >= 270 && total <= 282 + 2 * IT_FLOWS);
	assert_true(most <= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tfrc_profile),
		cmocka_unit_test(test_policer_phases),
		cmocka_unit_test(test_d_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
