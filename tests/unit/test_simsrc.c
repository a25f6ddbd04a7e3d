/* test_simsrc.c - the simulator's per-flow sources and accounting
 * (simsrc.c, simflow.c): distinct 5-tuples and flow hashes, per-flow
 * conservation, each source kind's statistics against its distribution,
 * and determinism under a seed.  Every run is deterministic (a virtual
 * clock and seeded streams), so a test passes or fails the same way on
 * every machine; the statistical tolerances are a few standard
 * deviations of the estimate, derived where they are stated, so that
 * they hold for the seed used and would catch a wrong distribution. */
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
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "sim/sim.h"
#include "util/units.h"
#include "testutil.h"

#define C_BPS      20000000ull

/* Every flow's account, collected through the callback (one test at a
 * time). */
static struct sim_flow flow_store[6000];

/* Link C_BPS, 10 ms delay line, scheduler `sched` with its defaults; no
 * sources; 100 s, 10 s warm-up, no CSV; flows collected into fs. */
static void base_cfg(struct sim_config *sc, const char *sched,
		     struct tu_flows *fs)
{
	tu_sim_config(sc, C_BPS, 10 * NS_PER_MS, sched, 100 * NS_PER_SEC,
		      10 * NS_PER_SEC);
	tu_flows_collect(sc, fs, flow_store, TU_LEN(flow_store));
}

/* Per-flow conservation, in = out + drops + queued, exactly, and the
 * flows add up to their class (drops, carried bytes in the window). */
static void assert_conserved(const struct tu_flows *fs, const struct sim_result *r,
			     unsigned k, double win_s)
{
	uint64_t drops = 0, win = 0, in = 0, queued = 0;
	unsigned i, why;

	for (i = 0; i < fs->n; i++) {
		const struct sim_flow *f = &fs->f[i];
		uint64_t by = 0;

		if (f->cls != k)
			continue;
		for (why = 0; why < SIM_DROP_KINDS; why++)
			by += f->drop_by[why];
		assert_true(by == f->drop_pkts);
		assert_true(f->in_pkts == f->out_pkts + f->drop_pkts +
			    f->queued_pkts);
		drops += f->drop_pkts;
		win += f->win_bytes;
		in += f->in_pkts;
		queued += f->queued_pkts;
	}
	assert_true(drops == r->drop_pkts[k]);
	assert_true(drops == r->flows[k].drop_pkts);
	assert_true(in == r->flows[k].in_pkts);
	assert_true(queued == r->flows[k].queued_pkts);
	tu_assert_rel("flows' window rate = class mean",
		   (double)win * 8 / win_s, r->mean_bps[k], 1e-12);
}

/* 1500 CBR flows of one class: every 5-tuple distinct (the 1000th flow
 * moves to the next source address), every flow hash the classifier's
 * for that 5-tuple built independently here, and all hashes distinct
 * (1500 random 32-bit values collide with probability 2.6e-4; these
 * are fixed values, checked once). */
static void test_flow_hashes(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	unsigned i, j;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	sc.duration_ns = NS_PER_SEC;
	sc.warmup_ns = 0;
	x = tu_sim_src(&sc.src[CLS_AF], SIM_SRC_CBR, 100, 1500);
	x->rate_bps = 10000;
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(fs.n, 1500);
	for (i = 0; i < fs.n; i++) {
		const struct sim_flow *f = &fs.f[i];
		uint8_t buf[100];
		struct tu_ip ip = { .version = 4, .dscp = 10, .proto = 17,
				    .src = f->saddr, .sport = f->sport,
				    .dport = 5201, .len_bytes = 100 };
		struct ip_info ii;

		assert_int_equal(f->index, i);
		assert_int_equal(f->sport, 41000 + i % 1000);
		assert_int_equal(f->saddr[2], i / 1000);
		tu_ip_build(buf, sizeof(buf), &ip);
		assert_int_equal(ip_inspect(buf, 100, &ii), IP_OK);
		assert_int_equal(f->flow_hash, ii.flow_hash);
		assert_true(f->in_pkts > 0);
		for (j = 0; j < i; j++)
			assert_true(fs.f[j].flow_hash != f->flow_hash);
	}
	assert_conserved(&fs, &r, CLS_AF, 1.0);
}

/* Conservation under loss: 20 CBR flows of 1.5 Mbit/s (30 Mbit/s) into
 * the 20 Mbit/s link through one FIFO (AF limit 1000): about a third is
 * lost at the class limit, the queue is full at the end, and every flow's
 * packets are accounted for exactly: in = dequeued + dropped + queued,
 * the queued ones counted by draining the scheduler at the end.  The
 * FIFO shares the link by arrival, so each flow gets C/20 = 1 Mbit/s
 * (+-1 %: one packet of a flow is 0.013 % of its window). */
static void test_conservation(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	unsigned i;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	x = tu_sim_src(&sc.src[CLS_AF], SIM_SRC_CBR, 1500, 20);
	x->rate_bps = 1500000;
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(fs.n, 20);
	/* full at 100 s, then the link takes one every 0.6 ms until the
	 * delay line's 10 ms are over: 17 (at 100.0, 100.0006, ...
	 * 100.0096 s) */
	assert_true(r.flows[CLS_AF].queued_pkts == 1000 - 17);
	assert_true(r.flows[CLS_AF].drop_by[DROP_CLASS_LIMIT] ==
		    r.flows[CLS_AF].drop_pkts);
	/* emitted: 20 x 12 500 in [0, 100 s); dequeued: one every 0.6 ms
	 * from 0 until 100.01 s, 166 684; the rest lost at the limit */
	assert_true(r.flows[CLS_AF].in_pkts == 250000);
	assert_true(r.flows[CLS_AF].out_pkts == 166684);
	assert_true(r.flows[CLS_AF].drop_pkts == 250000 - 166684 - 983);
	for (i = 0; i < fs.n; i++)
		tu_assert_rel("flow rate", fs.f[i].rate_bps, 1e6, 0.01);
	assert_true(r.flows[CLS_AF].jain > 0.9999);
	/* the FIFO at 1000 packets: 0.6 s in the queue, p50 and p99 its
	 * bucket's upper edge, at most 1/8 above */
	assert_true(r.flows[CLS_AF].delay_max_ns <= 600 * NS_PER_MS + 1);
	assert_true(fs.f[0].delay_p50_ns >= 599 * NS_PER_MS);
	assert_conserved(&fs, &r, CLS_AF, 90.0);
}

/* Greedy per flow: 4 greedy flows in one FIFO, each topped up to its own
 * backlog of 4: they alternate, so each gets C/4 to within a packet
 * (0.01 % of 5 Mbit/s over 90 s), Jain's index 1 to 1e-6; nothing is
 * lost, and at the end each flow has exactly its backlog queued. */
static void test_greedy_flows(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_result r;
	unsigned i;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	tu_sim_src(&sc.src[CLS_AF], SIM_SRC_GREEDY, 1500, 4);
	assert_int_equal(sim_run(&sc, &r), 0);
	for (i = 0; i < 4; i++) {
		tu_assert_rel("greedy flow rate", fs.f[i].rate_bps, 5e6, 0.001);
		assert_true(fs.f[i].drop_pkts == 0);
	}
	assert_true(r.flows[CLS_AF].jain > 1 - 1e-6);
	assert_conserved(&fs, &r, CLS_AF, 90.0);
}

/* Many greedy flows behind a class limit: 2000 flows of backlog 4 share
 * an AF limit of 50 packets, so at every instant all but a dozen wait in
 * the top-up ring, and the class is full after each top-up (the stalled
 * runs of simsrc.c).  The ring serves them in a fixed rotation, each up
 * to its backlog, so every flow is served and no flow gets more than one
 * backlog (4) plus the packet at a cut more than another: out_pkts
 * spread <= 5 packets of about 17.  Greedy flows never cause a
 * class-limit drop, and the whole class keeps the link busy. */
static void test_greedy_class_limit(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_result r;
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned i;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	sc.duration_ns = 20 * NS_PER_SEC;
	sc.warmup_ns = NS_PER_SEC;
	sc.conf.limit_pkts[CLS_AF] = 50;
	tu_sim_src(&sc.src[CLS_AF], SIM_SRC_GREEDY, 1500, 2000);
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(fs.n, 2000);
	for (i = 0; i < fs.n; i++) {
		lo = fs.f[i].out_pkts < lo ? fs.f[i].out_pkts : lo;
		hi = fs.f[i].out_pkts > hi ? fs.f[i].out_pkts : hi;
		assert_true(fs.f[i].drop_pkts == 0);
	}
	print_message("  2000 flows behind 50 packets: out_pkts %llu..%llu\n",
		      (unsigned long long)lo, (unsigned long long)hi);
	assert_true(lo > 0 && hi - lo <= 5);
	assert_true(r.drop_pkts[CLS_AF] == 0);
	tu_assert_rel("class rate", r.mean_bps[CLS_AF], (double)C_BPS, 0.001);
	assert_conserved(&fs, &r, CLS_AF, 19.0);
}

/* Greedy flows under a scheduler that pushes out other flows' packets
 * (dq: a full beta pushes out its oldest packet, whoever's; 100 flows of
 * 4 packets each, 30 kB of buffer): an admitted packet pushes out
 * another flow's.  The victim waits for
 * the next instant like a flow whose own packet was refused; refilled at
 * once it would push out a third flow's, and so on: the run used to stop
 * with "makes no progress" after a million spins at one instant. */
static void test_greedy_pushout_progress(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_result r;
	struct sched_env env;
	uint64_t pushed = 0, out = 0;
	unsigned i;

	(void)state;
	base_cfg(&sc, "dq", &fs);
	sc.duration_ns = 5 * NS_PER_SEC;
	sc.warmup_ns = NS_PER_SEC;
	conf_sched_env(&sc.conf, &env);
	tu_sched_params(&sched_dq_ops, "alpha_delay = \"5ms\"; buffer = 30000;",
			&env,
			sc.conf.sched_params);
	tu_sim_src(&sc.src[CLS_AF], SIM_SRC_GREEDY, 1500, 100);
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(fs.n, 100);
	for (i = 0; i < fs.n; i++) {
		pushed += fs.f[i].drop_by[DROP_PUSHOUT];
		out += fs.f[i].out_pkts;
	}
	print_message("  100 greedy flows, dq buffer 30 kB: %llu out, %llu "
		      "pushed out\n", (unsigned long long)out,
		      (unsigned long long)pushed);
	assert_true(pushed > 0);
	tu_assert_rel("class rate", r.mean_bps[CLS_AF], (double)C_BPS, 0.001);
	assert_conserved(&fs, &r, CLS_AF, 4.0);
}

/* On-off (PDRR §4.3): 100 flows of 64 kbit/s peak, 200-byte packets,
 * exponential on and off periods of mean 500 ms, on a link they never
 * load (peak sum 6.4 of 20 Mbit/s).  The fraction of time on is the
 * duty cycle 0.5: for an alternating renewal process of exponential
 * periods (mean m, sd m) the fraction over T has variance
 * 2 m^2 m^2 / (2m)^3 / T = m / (4 T) = 1.25e-3 at T = 100 s, over 100
 * flows 1.25e-5: sd 0.0035, i.e. 0.71 % of 0.5, and 3 % is 4.2 sd.  The
 * sent rate is PEAK times each flow's own on-time to within a packet
 * per flow (the on-clock carries the rest of a period over): 1600 bit
 * per 100 s against 3200 kbit/s in all, 0.5 %.  The class mean over
 * [10, 100) s is the same process's: 3 %. */
static void test_onoff(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	double on_s = 0, in_bits = 0;
	unsigned i;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	sc.seed = 1;
	x = tu_sim_src(&sc.src[CLS_AF], SIM_SRC_ONOFF, 200, 100);
	x->peak_bps = 64000;
	x->on_ns = 500 * NS_PER_MS;
	x->off_ns = 500 * NS_PER_MS;
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(fs.n, 100);
	for (i = 0; i < fs.n; i++) {
		on_s += (double)fs.f[i].on_time_ns / 1e9;
		in_bits += (double)fs.f[i].in_bytes * 8;
		assert_true(fs.f[i].drop_pkts == 0);
	}
	tu_assert_rel("on-off duty cycle", on_s / (100 * 100.0), 0.5, 0.03);
	tu_assert_rel("on-off sent = peak x on-time", in_bits, 64000 * on_s, 0.005);
	tu_assert_rel("on-off class mean", r.mean_bps[CLS_AF], 100 * 32000.0, 0.03);
	assert_conserved(&fs, &r, CLS_AF, 90.0);
}

/* Pareto sizes and Poisson arrivals (PDRR §5, DQ Table 1): 50 flows/s for
 * 100 s, sent greedily.  Arrivals: a Poisson count of mean 5000 has sd
 * 70.7; 4 sd is 5.7 %.  Sizes, shape 2.5, mean 30 kB: the coefficient
 * of variation is 1/sqrt(a (a - 2)) = 0.894, so the sample mean of 5000
 * has a relative sd of 1.26 % and 5 % is 4 sd (seed 7 gives +3.6 %, the
 * right-skewed tail; seeds 1..8 spread over -0.8..+3.6 %, no bias).  A finished flow sent
 * ceil(size / PKT_BYTES) packets and has a completion time. */
static void test_pareto_sizes(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	double sum = 0;
	unsigned i, done = 0;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	sc.seed = 7;
	x = tu_sim_src(&sc.src[CLS_AF], SIM_SRC_PARETO, 1000, 0);
	x->alpha = 2.5;
	x->mean_bytes = 30000;
	x->arrivals_per_s = 50;
	assert_int_equal(sim_run(&sc, &r), 0);
	print_message("  %u flows arrived\n", fs.n);
	assert_true(fabs((double)fs.n - 5000.0) <= 4 * sqrt(5000.0));
	assert_int_equal(r.flows[CLS_AF].refused, 0);
	for (i = 0; i < fs.n; i++) {
		const struct sim_flow *f = &fs.f[i];

		sum += (double)f->size_bytes;
		assert_true(f->start_ns < sc.duration_ns);
		if (f->end_ns != TS_NEVER) {
			assert_true(f->in_pkts == (f->size_bytes + 999) / 1000);
			if (f->fct_ns) {
				/* at least its own serialisation,
				 * 400 us a packet at C */
				done++;
				assert_true(f->fct_ns >= f->in_pkts * 400 * NS_PER_US);
			}
		}
	}
	tu_assert_rel("Pareto mean size", sum / fs.n, 30000, 0.05);
	assert_true(done > fs.n * 0.95);
	assert_conserved(&fs, &r, CLS_AF, 90.0);
}

/* Heavy tail, shape 1.2 (infinite variance: the mean converges too
 * slowly to test), paced at 1 Mbit/s: the median is the scale times
 * 2^(1/a), and the sample median of n has a relative sd of
 * 1/(a sqrt(n)) (density at the median a 2^-(1+1/a) / scale):
 * 1.18 % for 5000, so 5 % is 4.2 sd.  Pareto gaps of shape 2.5 keep the
 * mean arrival rate: the count within 4 of its sd, that of a renewal
 * count, sqrt(n) cv = 70.7 x 0.894 (the gaps' cv). */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_pareto_heavy(void **state)
{
	static struct tu_flows fs;
	static uint64_t size[6000];
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	double scale = 30000.0 * 0.2 / 1.2;
	unsigned i;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	sc.seed = 11;
	x = tu_sim_src(&sc.src[CLS_CS0], SIM_SRC_PARETO, 1000, 0);
	x->alpha = 1.2;
	x->mean_bytes = 30000;
	x->arrivals_per_s = 50;
	x->arrival_alpha = 2.5;
	x->peak_bps = 1000000;
	assert_int_equal(sim_run(&sc, &r), 0);
	print_message("  %u flows arrived\n", fs.n);
	assert_true(fabs((double)fs.n - 5000.0) <= 4 * sqrt(5000.0) * 0.894);
	for (i = 0; i < fs.n; i++)
		size[i] = fs.f[i].size_bytes;
	qsort(size, fs.n, sizeof(size[0]), cmp_u64);
	tu_assert_rel("Pareto median size", (double)size[fs.n / 2],
		   scale * pow(2.0, 1 / 1.2), 0.05);
	assert_conserved(&fs, &r, CLS_CS0, 90.0);
}

/* TFRC-like: below the link it is a CBR (no loss, no cut, its rate);
 * one flow asking 30 Mbit/s of the 20 Mbit/s link, RTT 50 ms, behind a
 * FIFO of 1000 packets: losses cut it (at most one cut per 2 RTT:
 * the event's RTT plus the feedback RTT, so at most 1000 in 100 s), it
 * grows by 240 kbit/s per RTT after each.  Without a buffer, AIMD's
 * sawtooth between C/2 and C averages 3/4 C; the buffer can only fill
 * the dips, so the class mean is in [0.75 C, C] (measured 0.948 C with
 * 42 cuts).  An unresponsive 30 Mbit/s source would lose a third of its
 * packets; this one loses only the overshoot of one RTT per event:
 * under 2 % (measured 0.57 %). */
static void test_tfrc(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	double loss;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	x = tu_sim_src(&sc.src[CLS_AF], SIM_SRC_TFRC, 1500, 0);
	x->rate_bps = 5000000;
	x->rtt_ns = 50 * NS_PER_MS;
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(fs.f[0].cuts, 0);
	assert_true(fs.f[0].drop_pkts == 0);
	assert_true(fs.f[0].tfrc_rate_bps == 5000000);
	tu_assert_rel("TFRC under the link", r.mean_bps[CLS_AF], 5e6, 0.001);

	sc.src[CLS_AF].rate_bps = 30000000;
	fs.n = 0;
	assert_int_equal(sim_run(&sc, &r), 0);
	loss = (double)fs.f[0].drop_pkts / (double)fs.f[0].in_pkts;
	print_message("  TFRC at 30 Mbit/s: %u cuts, loss %.4f, rate %.0f\n",
		      fs.f[0].cuts, loss, r.mean_bps[CLS_AF]);
	assert_true(fs.f[0].cuts >= 2 && fs.f[0].cuts <= 1000);
	assert_true(loss < 0.02);
	assert_true(r.mean_bps[CLS_AF] >= 0.75 * 2e7 &&
		    r.mean_bps[CLS_AF] <= 2e7 * 1.0001);
	assert_conserved(&fs, &r, CLS_AF, 90.0);
}

/* The same seed gives the same flows CSV, byte for byte; another seed
 * another one.  A mix of every random kind. */
static char *flows_csv(uint64_t seed)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source *x;
	struct sim_result r;
	FILE *f = tmpfile();
	char *text;

	assert_non_null(f);
	base_cfg(&sc, "prio", &fs);
	sc.duration_ns = 20 * NS_PER_SEC;
	sc.warmup_ns = NS_PER_SEC;
	sc.seed = seed;
	sc.flows_csv = f;
	x = tu_sim_src(&sc.src[CLS_EF], SIM_SRC_ONOFF, 200, 10);
	x->peak_bps = 64000;
	x->on_ns = 500 * NS_PER_MS;
	x->off_ns = 500 * NS_PER_MS;
	x = tu_sim_src(&sc.src[CLS_AF], SIM_SRC_PARETO, 1500, 0);
	x->alpha = 1.5;
	x->mean_bytes = 100000;
	x->arrivals_per_s = 10;
	x = tu_sim_src(&sc.src[CLS_CS0], SIM_SRC_TFRC, 1500, 3);
	x->rate_bps = 20000000;
	x->rtt_ns = 100 * NS_PER_MS;
	assert_int_equal(sim_run(&sc, &r), 0);
	text = tu_read_stream(f);
	fclose(f);
	return text;
}

static void test_seed(void **state)
{
	char *a = flows_csv(3), *b = flows_csv(3), *c = flows_csv(4);

	(void)state;
	assert_true(strlen(a) > 1000);
	assert_string_equal(a, b);
	assert_true(strcmp(a, c) != 0);
	assert_non_null(strstr(a, "class,flow,kind,saddr,sport,flow_hash,"));
	free(a);
	free(b);
	free(c);
}

/* Refusals: a valid source of each kind runs; the same with one piece
 * out of range is refused. */
static void run_pair(struct sim_config *sc, const struct sim_source *ok,
		     const struct sim_source *bad)
{
	struct sim_result r;

	sc->src[CLS_AF] = *ok;
	assert_int_equal(sim_run(sc, &r), 0);
	sc->src[CLS_AF] = *bad;
	assert_int_equal(sim_run(sc, &r), -1);
}

static void test_src_rejects(void **state)
{
	static struct tu_flows fs;
	struct sim_config sc;
	struct sim_source ok, bad;

	(void)state;
	base_cfg(&sc, "fifo", &fs);
	sc.duration_ns = NS_PER_SEC;
	sc.warmup_ns = 0;
	ok = *tu_sim_src(&sc.src[CLS_AF], SIM_SRC_ONOFF, 200, 2);
	ok.on_ns = ok.off_ns = 100 * NS_PER_MS;
	ok.peak_bps = 64000;
	bad = ok;
	bad.peak_bps = 0;
	run_pair(&sc, &ok, &bad);
	bad = ok;
	bad.off_ns = 0;
	run_pair(&sc, &ok, &bad);
	ok = *tu_sim_src(&sc.src[CLS_AF], SIM_SRC_PARETO, 1000, 0);
	ok.alpha = 1.5;
	ok.mean_bytes = 1000;
	ok.arrivals_per_s = 10;
	bad = ok;
	bad.alpha = 1.0;                                /* infinite mean */
	run_pair(&sc, &ok, &bad);
	bad = ok;
	bad.arrival_alpha = 1.0;
	run_pair(&sc, &ok, &bad);
	bad = ok;
	bad.flows = SIM_CLASS_FLOWS_MAX + 1;
	run_pair(&sc, &ok, &bad);
	ok = *tu_sim_src(&sc.src[CLS_AF], SIM_SRC_TFRC, 1000, 0);
	ok.rate_bps = 1000000;
	ok.rtt_ns = 100 * NS_PER_MS;
	bad = ok;
	bad.rtt_ns = 0;
	run_pair(&sc, &ok, &bad);
	bad = ok;
	bad.kind = SIM_SRC_KINDS;
	run_pair(&sc, &ok, &bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_flow_hashes, tu_sim_teardown),
		cmocka_unit_test_teardown(test_conservation, tu_sim_teardown),
		cmocka_unit_test_teardown(test_greedy_flows, tu_sim_teardown),
		cmocka_unit_test_teardown(test_greedy_class_limit, tu_sim_teardown),
		cmocka_unit_test_teardown(test_greedy_pushout_progress, tu_sim_teardown),
		cmocka_unit_test_teardown(test_onoff, tu_sim_teardown),
		cmocka_unit_test_teardown(test_pareto_sizes, tu_sim_teardown),
		cmocka_unit_test_teardown(test_pareto_heavy, tu_sim_teardown),
		cmocka_unit_test_teardown(test_tfrc, tu_sim_teardown),
		cmocka_unit_test_teardown(test_seed, tu_sim_teardown),
		cmocka_unit_test_teardown(test_src_rejects, tu_sim_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
