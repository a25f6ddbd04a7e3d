/* test_pdrr_sim.c - PDRR (src/sched/pdrr.c) against the paper's own
 * experiments (Kortebi, Oueslati, Roberts 2005), on the simulator: the
 * daemon's packet path on a virtual clock (sim.h), fixed seed.
 *
 *   Fig. 3 (left)  UDP packets' queueing delay, PDRR against plain DRR on
 *                  the same arrivals, and the M/M/1 model of the PQ delay;
 *   §5             overload (11 Mbit/s offered on 10), with and without
 *                  admission control.
 *
 * The traffic of §4.3 / Fig. 3, as this file builds it (docs/pdrr.md
 * lists the interpretations):
 *   TCP  class CS0, Poisson flow arrivals, each a truncated Pareto number
 *        of 1000-byte packets (shape 1.5, 8 to 1000 packets: the
 *        simulator's pareto MAX_SIZE), sent greedily with 4 packets kept in
 *        the scheduler (open loop: no congestion control), 80 % of the
 *        offered load;
 *   UDP  class AF, a fixed population of on-off flows (64 kbit/s peak,
 *        exponential on and off periods of mean 500 ms, 200-byte packets,
 *        32 kbit/s mean each) making the other 20 %;
 *   PDRR quantum = 1000 bytes (= the largest packet, §4), EF strict (no
 *        EF traffic).
 *
 * What a packet waits is observed by wrapping the scheduler's ops: the
 * simulator runs whatever conf.sched points to, so obs_ops is
 * sched_pdrr_ops with a dequeue that records each packet's time in the
 * scheduler (dequeue - enq_ns: the wait before its transmission starts,
 * the W of queueing theory) by class, and samples PDRR's own stats once
 * per simulated second.  No change to the simulator.
 *
 * Seed 1, the one the tolerances were set on; PDRR_SIM_SEED=N (decimal)
 * in the environment runs another (docs/pdrr.md quotes seeds 2 and 3),
 * to see which numbers move and by how much.
 *
 * What this file cannot check: §5's collapse without admission control.
 * The paper's AFL saturates (500 flows at about 210 s), PQ never empties,
 * UDP packets wait more than 400 ms and TCP throughput tends to zero,
 * because its TCP flows slow down and retransmit, so that they never
 * finish and pile up.  The simulator's flows are open loop: they neither
 * slow down nor retransmit, the push-out discards the excess for good,
 * flows finish, and the AFL levels off under 300.  The test asserts that
 * (what the simulator shows, with a tolerance), not the paper's numbers;
 * the collapse is checked on real TCP by issue 22's Mininet experiment
 * (`scripts/reproduce.sh pdrr`).
 */
#include <errno.h>
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
#include "sched/sched.h"
#include "sim/sim.h"
#include "util/jw.h"
#include "testutil.h"

#define C_BPS          10000000ull
#define TCP_BYTES      1000u
#define UDP_BYTES      200u
#define TCP_ALPHA      1.5
#define TCP_MIN_PKTS   8.0
#define TCP_MAX_PKTS   1000.0
#define UDP_PEAK_BPS   64000u
#define UDP_ON_NS      (500 * NS_PER_MS)
#define UDP_MEAN_BPS   (UDP_PEAK_BPS / 2.0)
#define TCP_SHARE      0.8
#define SEED           1
#define SEED_ENV       "PDRR_SIM_SEED"

/* Delay histogram: 10 us bins up to 5.2 s (beyond: the last bin). */
#define BIN_NS         (10 * NS_PER_US)
#define NBINS          (1u << 19)
#define NPROBES        1024u    /* one per simulated second */

/* What the wrapped scheduler saw. */
struct obs {
	tstamp_ns warmup_ns;
	uint32_t  bin[NCLASS][NBINS];   /* dequeued after warmup_ns */
	uint64_t  n[NCLASS], zero[NCLASS];  /* waits, waits of 0 */
	double    sum_ns[NCLASS];
	tstamp_ns next_probe_ns;
	unsigned  nprobe;
	double    fair_bps[NPROBES], afl[NPROBES], load[NPROBES];
	double    pq_bytes_warm, pq_pkts_warm;  /* at warmup_ns */
	double    pq_bytes_end, pq_pkts_end, rejected_end;
	int       warm_taken;
};

static struct obs ob;
static struct sched_ops obs_ops;

/* The measured numbers, on stderr: they land in the ctest log. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The number after "key": in PDRR's stats (cumulative counters), its
 * first occurrence: the top-level "prio_load" precedes refused_by's. */
static double obs_stat(void *priv, const char *key)
{
	struct sched s = { &sched_pdrr_ops, priv };
	const char *line = tu_sched_stats(&s), *at;
	char pat[64];

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(line, pat);
	if (!at)
		fail_msg("no %s in %s", key, line);
	return strtod(at + strlen(pat), NULL);
}

/* Records the packet's wait; samples the stats at each whole second. */
static struct pkt *obs_dequeue(void *priv, tstamp_ns now)
{
	struct pkt *p = sched_pdrr_ops.dequeue(priv, now);

	if (p && now >= ob.warmup_ns) {
		tstamp_ns w = now - p->enq_ns;
		uint64_t b = w / BIN_NS;

		ob.bin[p->cls][b < NBINS ? b : NBINS - 1]++;
		ob.n[p->cls]++;
		ob.zero[p->cls] += (uint64_t)(w == 0);
		ob.sum_ns[p->cls] += (double)w;
	}
	if (now >= ob.warmup_ns && !ob.warm_taken) {
		ob.warm_taken = 1;
		ob.pq_bytes_warm = obs_stat(priv, "pq_out_bytes");
		ob.pq_pkts_warm = obs_stat(priv, "pq_out_pkts");
	}
	while (now >= ob.next_probe_ns && ob.nprobe < NPROBES) {
		ob.fair_bps[ob.nprobe] = obs_stat(priv, "fair_rate_bps");
		ob.afl[ob.nprobe] = obs_stat(priv, "flows");
		ob.load[ob.nprobe] = obs_stat(priv, "prio_load");
		ob.nprobe++;
		ob.next_probe_ns += NS_PER_SEC;
	}
	return p;
}

/* The final counters, then PDRR's own destroy. */
static void obs_destroy(void *priv)
{
	ob.pq_bytes_end = obs_stat(priv, "pq_out_bytes");
	ob.pq_pkts_end = obs_stat(priv, "pq_out_pkts");
	ob.rejected_end = obs_stat(priv, "rejected_flows");
	sched_pdrr_ops.destroy(priv);
}

/* P(W > t) of class k's packets after the warm-up; t a multiple of
 * BIN_NS (0: the packets that waited at all). */
static double ccdf(unsigned k, double t_ns)
{
	uint64_t above = 0, b;

	if (t_ns <= 0)
		above = ob.n[k] - ob.zero[k];
	for (b = (uint64_t)llround(t_ns / BIN_NS); t_ns > 0 && b < NBINS; b++)
		above += ob.bin[k][b];
	return ob.n[k] ? (double)above / (double)ob.n[k] : 0;
}

/* The q-quantile of class k's waits (upper edge of its 10 us bin). */
static double quantile_ns(unsigned k, double q)
{
	uint64_t seen = 0, b;

	for (b = 0; b < NBINS; b++) {
		seen += ob.bin[k][b];
		if ((double)seen >= q * (double)ob.n[k])
			return (double)(b + 1) * BIN_NS;
	}
	return (double)NBINS * BIN_NS;
}

static double mean_ns(unsigned k)
{
	return ob.n[k] ? ob.sum_ns[k] / (double)ob.n[k] : 0;
}

/* E[ceil(Y)], Y the truncated Pareto of TCP_ALPHA on [8, 1000] packets:
 * the sum over k of P(Y > k).  A flow's packet count is the ceiling of
 * its size in packets (the simulator sends ceil(size / PKT_BYTES)). */
static double tcp_mean_pkts(void)
{
	double tail = pow(TCP_MIN_PKTS / TCP_MAX_PKTS, TCP_ALPHA), m = 0;
	int k;

	for (k = 0; k < (int)TCP_MAX_PKTS; k++)
		m += k < TCP_MIN_PKTS ? 1.0 :
		     (pow(TCP_MIN_PKTS / k, TCP_ALPHA) - tail) / (1 - tail);
	return m;
}

/* SEED, or the decimal number in $PDRR_SIM_SEED; a malformed one fails
 * the test with what was accepted. */
static uint64_t run_seed(void)
{
	const char *v = getenv(SEED_ENV);
	char *end;
	unsigned long long n;

	if (!v)
		return SEED;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || errno || *v == '-' || n > INT64_MAX)
		fail_msg("test_pdrr_sim: %s '%s': not a seed (accepted: a "
			 "decimal number, 0..2^63-1)", SEED_ENV, v);
	return n;
}

/* The flows at the end: TCP (class CS0) sizes, admission refusals,
 * per-flow throughput of the completed ones. */
struct flows {
	uint64_t tcp, tcp_refused, tcp_done, udp, udp_refused;
	double   pkts_sum, size_min, size_max, tput_sum_bps;
	double   in_bits;                    /* offered, every flow */
	uint64_t drop_adm, drop_push;        /* packets, every flow */
	tstamp_ns warmup_ns;
};

static void collect(void *ctx, const struct sim_flow *f)
{
	struct flows *fs = ctx;
	int refused = f->drop_by[DROP_ADMISSION] > 0;

	fs->in_bits += 8.0 * (double)f->in_bytes;
	fs->drop_adm += f->drop_by[DROP_ADMISSION];
	fs->drop_push += f->drop_by[DROP_PUSHOUT];
	if (f->cls != CLS_CS0) {
		fs->udp++;
		fs->udp_refused += (uint64_t)refused;
		return;
	}
	if (!fs->tcp || (double)f->size_bytes < fs->size_min)
		fs->size_min = (double)f->size_bytes;
	if ((double)f->size_bytes > fs->size_max)
		fs->size_max = (double)f->size_bytes;
	fs->tcp++;
	fs->tcp_refused += (uint64_t)refused;
	fs->pkts_sum += ceil((double)f->size_bytes / TCP_BYTES);
	if (f->fct_ns && f->start_ns >= fs->warmup_ns) {
		fs->tcp_done++;
		fs->tput_sum_bps += 8.0 * (double)f->size_bytes /
				    ((double)f->fct_ns / NS_PER_SEC);
	}
}

/* The Fig. 3 / §5 mix at offered_bps on a 10 Mbit/s link, PDRR with
 * `body` (its group in libconfig syntax) behind the observer. */
static void mix_cfg(struct sim_config *sc, struct flows *fs,
		    double offered_bps, const char *body,
		    tstamp_ns dur_ns, tstamp_ns warm_ns)
{
	struct sched_env env;
	struct sim_source *u = &sc->src[CLS_AF], *t = &sc->src[CLS_CS0];

	tu_sim_config(sc, C_BPS, NS_PER_MS, "pdrr", dur_ns, warm_ns);
	memset(fs, 0, sizeof(*fs));
	memset(&ob, 0, sizeof(ob));
	conf_sched_env(&sc->conf, &env);
	tu_sched_params(&sched_pdrr_ops, body, &env, sc->conf.sched_params);
	obs_ops = sched_pdrr_ops;
	obs_ops.dequeue = obs_dequeue;
	obs_ops.destroy = obs_destroy;
	sc->conf.sched = &obs_ops;
	tu_sim_src(u, SIM_SRC_ONOFF, UDP_BYTES,
		   (uint32_t)lround((1 - TCP_SHARE) * offered_bps / UDP_MEAN_BPS));
	u->peak_bps = UDP_PEAK_BPS;
	u->on_ns = u->off_ns = UDP_ON_NS;
	tu_sim_src(t, SIM_SRC_PARETO, TCP_BYTES, 0);
	t->alpha = TCP_ALPHA;
	/* untruncated mean k alpha / (alpha - 1): minimum k = 8 packets */
	t->mean_bytes = (uint64_t)(TCP_MIN_PKTS * TCP_BYTES * TCP_ALPHA /
				   (TCP_ALPHA - 1));
	t->max_bytes = (uint64_t)(TCP_MAX_PKTS * TCP_BYTES);
	t->arrivals_per_s = TCP_SHARE * offered_bps /
			    (8.0 * TCP_BYTES * tcp_mean_pkts());
	sc->seed = run_seed();
	say("offered %.1f Mbit/s: TCP flows arrive at %.1f /s, UDP %u "
	    "on-off flows\n", offered_bps / 1e6, t->arrivals_per_s,
	    (unsigned)u->flows);
	sc->flow_cb = collect;
	sc->flow_ctx = fs;
	fs->warmup_ns = warm_ns;
	ob.warmup_ns = warm_ns;
}

/* ---- Fig. 3 (left) --------------------------------------------------- */

#define F3_DUR_NS   (400 * NS_PER_SEC)
#define F3_WARM_NS  (20 * NS_PER_SEC)

/* One UDP delay summary. */
#define NT 14
struct udp_delay {
	double mean_ns, p99_ns, max_ns, ccdf[NT];
};

static const double f3_t_ms[NT] = { 0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2,
				    1.6, 2.0, 3.2, 6.4, 12.8, 25.6 };
#define T_1MS   6               /* f3_t_ms[T_1MS] = 1.0, [T_1_6MS] = 1.6 */
#define T_1_6MS 8

/* Fig. 3 (left): the UDP packets' queueing delay under PDRR is far below
 * DRR's on the same arrivals (same seed: the sources do not depend on the
 * scheduler, no packet is lost).  Then the M/M/1 model of the paper's
 * dotted lines, P(W > t) = rho exp(-(1 - rho) t C / (8 s)), rho and s
 * (mean PQ packet size) measured in the PDRR run, against the measured
 * CCDF of the UDP packets (the PQ's traffic but for the TCP flows' first
 * packets; PQ is FIFO, so these see the PQ's waiting time distribution),
 * and against the M/G/1 non-preemptive priority model (Cobham): PQ is
 * served only between visits, and a visit is one packet here (Q = 1000
 * bytes = the TCP packet), so a PQ packet also waits for the residual of
 * the packet on the link, whatever its class:
 *   E[W] = R / (1 - rho),  R = sum over all packets sent of S^2 / (2 T).
 * What is asserted of the models (docs/pdrr.md, "Measured against the
 * paper"): Cobham's mean within 10 % (exact for Poisson arrivals; ours
 * are 56 on-off flows and the TCP arrivals' first packets); M/M/1 below
 * the measured CCDF by at least 3x up to one TCP packet time (0.8 ms: the
 * residual it leaves out), and its decay rate (1 - rho) mu within 35 % of
 * the measured tail's between 1 and 1.6 ms (where the residual is over
 * and the PQ's own backlog drains). */
static void test_fig3_udp_delay(void **state)
{
	struct sim_config sc;
	struct sim_result r;
	struct flows fs;
	struct udp_delay d[2];
	double rho = 0, s_bytes = 0, mu = 0, win_s, off_bps = 0, r_ns = 0;
	double mm1, mean_pkts = tcp_mean_pkts(), decay, cobham_ns;
	double pq_pkts = 0, udp_pkts = 0;
	unsigned k, i;

	(void)state;
	for (k = 0; k < 2; k++) {
		mix_cfg(&sc, &fs, 9e6, k ? "quantum = 1000; priority = false;"
					 : "quantum = 1000;",
			F3_DUR_NS, F3_WARM_NS);
		assert_int_equal(sim_run(&sc, &r), 0);
		d[k].mean_ns = mean_ns(CLS_AF);
		d[k].p99_ns = quantile_ns(CLS_AF, 0.99);
		d[k].max_ns = quantile_ns(CLS_AF, 1.0);
		for (i = 0; i < NT; i++)
			d[k].ccdf[i] = ccdf(CLS_AF, f3_t_ms[i] * NS_PER_MS);
		win_s = (double)(F3_DUR_NS - F3_WARM_NS) / NS_PER_SEC;
		off_bps = fs.in_bits / ((double)F3_DUR_NS / NS_PER_SEC);
		say("%s (seed %llu): offered %.3f Mbit/s (load %.3f), carried "
		    "%.3f; %llu UDP flows, %llu TCP flows (mean %.2f "
		    "packets, expected %.2f; sizes %.0f..%.0f bytes); "
		    "drops %llu\n", k ? "DRR " : "PDRR",
		    (unsigned long long)sc.seed,
		    off_bps / 1e6, off_bps / C_BPS,
		    (r.mean_bps[CLS_AF] + r.mean_bps[CLS_CS0]) / 1e6,
		    (unsigned long long)fs.udp,
		    (unsigned long long)fs.tcp,
		    fs.pkts_sum / (double)fs.tcp, mean_pkts,
		    fs.size_min, fs.size_max,
		    (unsigned long long)(r.drop_pkts[CLS_AF] +
					 r.drop_pkts[CLS_CS0]));
		say("  UDP wait: mean %.3f ms, p99 %.3f ms, max %.3f "
		    "ms over %llu packets; TCP mean %.3f ms\n",
		    d[k].mean_ns / 1e6, d[k].p99_ns / 1e6,
		    d[k].max_ns / 1e6,
		    (unsigned long long)ob.n[CLS_AF],
		    mean_ns(CLS_CS0) / 1e6);
		/* the traffic is the paper's: sizes within the truncation,
		 * their mean within 5 % (3 standard errors for ~16 000
		 * flows), load 0.9 within 5 % (a heavy tail over 400 s) */
		assert_true(fs.size_min >= TCP_MIN_PKTS * TCP_BYTES);
		assert_true(fs.size_max <= TCP_MAX_PKTS * TCP_BYTES);
		assert_true(fabs(fs.pkts_sum / (double)fs.tcp / mean_pkts - 1)
			    < 0.05);
		assert_true(fabs(off_bps / 9e6 - 1) < 0.05);
		assert_int_equal(r.drop_pkts[CLS_AF] + r.drop_pkts[CLS_CS0], 0);
		if (k)
			continue;
		rho = (ob.pq_bytes_end - ob.pq_bytes_warm) * 8.0 /
		      ((double)C_BPS * win_s);
		s_bytes = (ob.pq_bytes_end - ob.pq_bytes_warm) /
			  (ob.pq_pkts_end - ob.pq_pkts_warm);
		mu = (double)C_BPS / (8.0 * s_bytes);
		pq_pkts = ob.pq_pkts_end - ob.pq_pkts_warm;
		udp_pkts = (double)ob.n[CLS_AF];
		/* R over the window: each class's packets at their size */
		r_ns = (r.mean_bps[CLS_AF] / (8.0 * UDP_BYTES) *
			pow(UDP_BYTES * 8.0 / C_BPS, 2) +
			r.mean_bps[CLS_CS0] / (8.0 * TCP_BYTES) *
			pow(TCP_BYTES * 8.0 / C_BPS, 2)) / 2 * 1e9;
	}
	cobham_ns = r_ns / (1 - rho);
	decay = log(d[0].ccdf[T_1MS] / d[0].ccdf[T_1_6MS]) /
		((f3_t_ms[T_1_6MS] - f3_t_ms[T_1MS]) / 1e3);
	say("UDP wait PDRR vs DRR: mean %.3f vs %.3f ms (DRR/PDRR "
	    "%.1f), p99 %.3f vs %.3f ms (%.1f)\n",
	    d[0].mean_ns / 1e6, d[1].mean_ns / 1e6,
	    d[1].mean_ns / d[0].mean_ns, d[0].p99_ns / 1e6,
	    d[1].p99_ns / 1e6, d[1].p99_ns / d[0].p99_ns);
	say("PQ: %.0f packets (UDP: %.0f sent), load rho %.4f, mean "
	    "packet %.1f bytes (mu %.0f packets/s).  Mean wait: M/M/1 %.4f ms, M/G/1 "
	    "non-preemptive priority %.4f ms, measured %.4f ms.  Tail "
	    "decay 1..1.6 ms: measured %.0f /s, M/M/1 (1 - rho) mu "
	    "%.0f /s\n", pq_pkts, udp_pkts, rho, s_bytes, mu,
	    rho / (mu * (1 - rho)) * 1e3, cobham_ns / 1e6,
	    d[0].mean_ns / 1e6, decay, (1 - rho) * mu);
	say("   t ms   PDRR P(W>t)    M/M/1  PDRR/MM1   DRR P(W>t)\n");
	for (i = 0; i < NT; i++) {
		mm1 = rho * exp(-(1 - rho) * f3_t_ms[i] / 1e3 * mu);
		say("  %5.1f   %10.5f  %9.5f  %8.2f   %10.5f\n",
		    f3_t_ms[i], d[0].ccdf[i], mm1,
		    mm1 > 0 ? d[0].ccdf[i] / mm1 : 0, d[1].ccdf[i]);
		if (f3_t_ms[i] <= 0.8)
			assert_true(d[0].ccdf[i] >= 3 * mm1);
	}
	/* PDRR: the UDP packets wait about one TCP packet time at most
	 * (0.8 ms, the visit in progress), DRR a round of the AFL */
	assert_true(d[0].mean_ns < 0.5 * NS_PER_MS);
	assert_true(d[1].mean_ns > 8 * d[0].mean_ns);
	assert_true(d[1].p99_ns > 10 * d[0].p99_ns);
	assert_true(fabs(d[0].mean_ns / cobham_ns - 1) < 0.10);
	assert_true(fabs(decay / ((1 - rho) * mu) - 1) < 0.35);
}

/* ---- §5: overload ------------------------------------------------------ */

#define S5_DUR_NS   (300 * NS_PER_SEC)
#define S5_WARM_NS  (10 * NS_PER_SEC)
#define S5_ADMIT_BPS 100000.0

/* §5: 11 Mbit/s offered on 10 Mbit/s, buffer 1000 packets, AFL of 500,
 * starting empty, 300 s; admission at 100 kbit/s (1 % of C) or none.
 * The two runs are identical until the smoothed fair rate first falls
 * under 100 kbit/s (paper: 60 s).  Asserted, from 10 s after that first
 * fall:
 *   on:  the fair rate never under 0.8 x the threshold and its mean
 *        within 1..2 x it ("maintained close to the threshold"); PQ load
 *        0.2..0.3 (paper: about 0.25); UDP mean wait under 1 ms (paper
 *        0.69 ms); 1..20 % of the TCP flows refused (paper: blocking
 *        about 10 %); the link full (>= 99 %); the AFL under half its
 *        bound;
 *   off: the fair rate under half the threshold at some point, the UDP
 *        flows (64 kbit/s peak, above that fair rate) queued: their mean
 *        wait 50 x the admission run's; the AFL more than twice as long.
 * Without admission the simulator does NOT reproduce the paper's
 * collapse (AFL saturated at about 210 s, PQ never empty, UDP delay above
 * 400 ms, TCP throughput tending to zero): its open-loop flows do not
 * retransmit (see the file comment).  What it shows instead is asserted
 * as such, each within a tolerance around the seed-1 value that covers
 * seeds 2 and 3 (docs/pdrr.md): the AFL never reaches 500 and peaks at
 * 291 (+-15 %); the fair rate's mean 40.6 kbit/s (+-25 %); the UDP mean
 * wait 118.6 ms (+-25 %, so under the paper's 400); 84,756 packets
 * pushed out (+-40 %: they follow the offered excess, which the heavy
 * tail moves by seed: +28 and +31 % for seeds 2 and 3); completed TCP
 * flows at 51 kbit/s (+-30 %; 41 for seeds 2 and 3).  A change that made
 * the collapse appear (or the overload vanish) fails here, and the docs'
 * account with it. */
static void test_overload_admission(void **state)
{
	struct sim_config sc;
	struct sim_result r;
	struct flows fs;
	unsigned k, i, t_low, t_sat, nf, nl, t_sat_k[2];
	double fmin, fsum, aflmax, load_sum, udp_ms[2], aflmax_k[2], fmin_k[2];
	double fmean_k[2], tput_k[2], push_k[2];

	(void)state;
	for (k = 0; k < 2; k++) {
		mix_cfg(&sc, &fs, 11e6, k ? "quantum = 1000; buffer = 1000; "
					    "max_flows = 500;"
					  : "quantum = 1000; buffer = 1000; "
					    "max_flows = 500; admission = true; "
					    "admit_rate = \"100kbit\";",
			S5_DUR_NS, S5_WARM_NS);
		assert_int_equal(sim_run(&sc, &r), 0);
		t_low = t_sat = 0;
		fmin = 1e12;
		aflmax = load_sum = fsum = 0;
		nf = nl = 0;
		for (i = 0; i < ob.nprobe; i++) {
			if (!t_low && ob.fair_bps[i] < S5_ADMIT_BPS)
				t_low = i;
			if (!t_sat && ob.afl[i] >= 500)
				t_sat = i;
			if (t_low && i >= t_low + 10) {
				if (ob.fair_bps[i] < fmin)
					fmin = ob.fair_bps[i];
				fsum += ob.fair_bps[i];
				nf++;
			}
			if (ob.afl[i] > aflmax)
				aflmax = ob.afl[i];
			if (i >= S5_WARM_NS / NS_PER_SEC) {
				load_sum += ob.load[i];
				nl++;
			}
		}
		assert_true(t_low > 0 && nf > 0 && nl > 0);
		udp_ms[k] = mean_ns(CLS_AF) / 1e6;
		aflmax_k[k] = aflmax;
		fmin_k[k] = fmin;
		fmean_k[k] = fsum / nf;
		t_sat_k[k] = t_sat;
		push_k[k] = (double)fs.drop_push;
		tput_k[k] = fs.tcp_done ? fs.tput_sum_bps / fs.tcp_done : 0;
		say("admission %s (seed %llu): fair rate first under 100 kbit/s "
		    "at %u s, then min %.0f mean %.0f bit/s; AFL max "
		    "%.0f (reached 500: %s); mean PQ load %.3f; UDP "
		    "wait mean %.3f ms p99 %.3f ms; TCP wait mean %.1f "
		    "ms\n", k ? "off" : "on", (unsigned long long)sc.seed, t_low, fmin, fsum / nf,
		    aflmax, t_sat ? "yes" : "no", load_sum / nl,
		    udp_ms[k], quantile_ns(CLS_AF, 0.99) / 1e6,
		    mean_ns(CLS_CS0) / 1e6);
		say("  offered %.3f Mbit/s, carried %.3f; TCP flows "
		    "%llu, refused "
		    "%llu (%.1f %%), completed %llu at %.0f kbit/s "
		    "mean; UDP flows refused %llu of %llu; "
		    "rejected_flows %.0f; drops %llu (admission "
		    "%llu, push-out %llu)\n",
		    fs.in_bits / ((double)S5_DUR_NS / NS_PER_SEC) / 1e6,
		    (r.mean_bps[CLS_AF] + r.mean_bps[CLS_CS0]) / 1e6,
		    (unsigned long long)fs.tcp,
		    (unsigned long long)fs.tcp_refused,
		    100.0 * fs.tcp_refused / fs.tcp,
		    (unsigned long long)fs.tcp_done,
		    tput_k[k] / 1e3,
		    (unsigned long long)fs.udp_refused,
		    (unsigned long long)fs.udp, ob.rejected_end,
		    (unsigned long long)(r.drop_pkts[CLS_AF] +
					 r.drop_pkts[CLS_CS0]),
		    (unsigned long long)fs.drop_adm,
		    (unsigned long long)fs.drop_push);
		for (i = 0; i < ob.nprobe; i += 30)
			say("    t %3u s  fair %8.0f bit/s  AFL %4.0f  "
			    "PQ load %.3f\n", i, ob.fair_bps[i],
			    ob.afl[i], ob.load[i]);
		if (k)
			continue;
		assert_true(fmin >= 0.8 * S5_ADMIT_BPS);
		assert_true(fsum / nf >= S5_ADMIT_BPS &&
			    fsum / nf <= 2 * S5_ADMIT_BPS);
		assert_true(load_sum / nl > 0.2 && load_sum / nl < 0.3);
		assert_true(udp_ms[0] < 1.0);
		assert_true(fs.tcp_refused > fs.tcp / 100 &&
			    fs.tcp_refused < fs.tcp / 5);
		assert_true(r.mean_bps[CLS_AF] + r.mean_bps[CLS_CS0] >=
			    0.99 * C_BPS);
		assert_true(aflmax < 250);
	}
	assert_true(fmin_k[1] < 0.5 * S5_ADMIT_BPS);
	assert_true(udp_ms[1] > 50 * udp_ms[0]);
	assert_true(aflmax_k[1] > 2 * aflmax_k[0]);
	/* what the open-loop simulator shows instead of the collapse */
	assert_int_equal(t_sat_k[1], 0);
	assert_true(fabs(aflmax_k[1] / 291 - 1) < 0.15);
	assert_true(fabs(fmean_k[1] / 40.6e3 - 1) < 0.25);
	assert_true(fabs(udp_ms[1] / 118.6 - 1) < 0.25);
	assert_true(fabs(push_k[1] / 84756 - 1) < 0.40);
	assert_true(fabs(tput_k[1] / 51e3 - 1) < 0.30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fig3_udp_delay, tu_sim_teardown),
		cmocka_unit_test_teardown(test_overload_admission, tu_sim_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
