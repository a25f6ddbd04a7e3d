/* test_sim_theory.c - the PSS paper's theory (Finzi et al. 2023, §2.4,
 * §4) checked on the simulator, i.e. on the daemon's own DWRR and PSS code
 * driven by synthetic sources on a virtual clock.  Deterministic.
 *
 * Common setting (DESIGN §4): C = 20 Mbit/s, 250 ms one-way delay, EF one
 * CBR flow, AF and CS0 saturating aggregates (greedy sources: the paper's
 * hypothesis 2, "the AF traffic is made of aggregated flows saturating the
 * allocated bandwidth", and 3, "CS0 traffic is always available").  Every
 * packet is 1500 bytes, so L_AF = L_CS0 = L.  Expected values come from
 * the paper's equations, evaluated here:
 *   eq. 2  K_AF = W_AF L / (W_AF L + W_CS0 L)
 *   eq. 4  B    = (W_AF - 1) / ((W_AF - 1) + (W_CS0 - 1))
 *   eq. 3  BW   = B (C - R_EF^exp) / C          (as a fraction of C)
 *   eq. 5  LM   = L (W_AF - 1) (1 - BW)  (+ LR), rounded to whole bytes
 *   eq. 1  R_WRR/AF  = K_AF (C - R_EF)
 *   eq. 6  R_WRR/CS0 = (1 - K_AF) (C - R_EF)
 *   eq. 7  R_PSS/AF  = min(K_AF (C - R_EF^exp), C - R_EF)
 *   eq. 8  R_PSS/CS0 = C - R_EF - R_PSS/AF
 *
 * The constant-capacity checks (Fig. 5, Fig. 6, Algorithm 1's balance
 * at 9:2) are rows of a table (check_row()): the measured rate, the
 * paper's value, the deviation from it, the deviation the test asserts
 * ("want": 0, or one derived in docs/pss.md and rebuilt here from the
 * run), the tolerance, and two alternatives, the values another
 * mechanism would give.  Deviations are in % of the paper's value, or of
 * C - R_EF where that value is 0 (marked #).  The simulator is
 * deterministic, so a tolerance is the measured deviation plus a small
 * margin; an alternative marked x is asserted to lie more than twice the
 * tolerance, and more than SEP_MIN, from "want": the check tells the two
 * apart by more than a run's noise, however tight the tolerance (the 9:2
 * rows' 1e-6 alone would accept an alternative 2e-6 away).
 */
#include <libconfig.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf/conf.h"
#include "params/params.h"
#include "pkt/pkt.h"
#include "sim/sim.h"
#include "util/diag.h"
#include "testutil.h"

#define MBIT       1e6
#define C_BPS      20000000ull
#define C          ((double)C_BPS)
#define C_BYTES_S  (C / 8.0)
#define L_BYTES    1500u

/* Fig. 5/6: R_EF = 0.25, 0.5, 0.75 C; Fig. 6 sizes PSS for 0.5 C. */
#define NEF        3
static const double ef_frac[NEF] = { 0.25, 0.5, 0.75 };
#define EF_EXP_BPS (0.5 * C)

/* EF is strict priority and CBR: it leaves as it came, but for a packet
 * cut at each end of the window (2 x 1500 B in 90 s: 0.005 % of
 * 5 Mbit/s).  Measured: 0.0000 %. */
#define EF_TOL     0.00006

/* The two periods of Fig. 7/8/10 and a window holding whole numbers of
 * both: 915 s = 61 x 15 s = 150 x 6.1 s, after a 30 s warm-up. */
#define C_PERIOD_S    15.0
#define EF_PERIOD_S   6.1
#define VAR_WARMUP_NS (30 * NS_PER_SEC)
#define VAR_DUR_NS    (945 * NS_PER_SEC)

static double k_af(double w_af, double w_cs0)
{
	return w_af * L_BYTES / (w_af * L_BYTES + w_cs0 * L_BYTES);
}

static double b_eq4(double w_af, double w_cs0)
{
	return (w_af - 1) * L_BYTES / ((w_af - 1) * L_BYTES + (w_cs0 - 1) * L_BYTES);
}

static double lm_eq5_bytes(double w_af, double bw)
{
	return round(L_BYTES * (w_af - 1) * (1 - bw));
}

/* C = 20 Mbit/s constant (or cosine, see below), 250 ms, greedy AF and
 * CS0, EF CBR at ef_bps (amplitude ef_a over EF_PERIOD_S). */
static void base_cfg(struct sim_config *sc, double ef_bps, double ef_a)
{
	memset(sc, 0, sizeof(*sc));
	conf_defaults(&sc->conf);
	sc->conf.link.kind = LINK_CONSTANT;
	sc->conf.link.rate_bps = C_BPS;
	sc->conf.link.mean_bps = C_BPS;
	sc->conf.delay_ns = 250 * NS_PER_MS;
	tu_sim_src(&sc->src[CLS_EF], SIM_SRC_CBR, L_BYTES, 0);
	sc->src[CLS_EF].rate_bps = (uint64_t)llround(ef_bps);
	sc->src[CLS_EF].amplitude = ef_a;
	sc->src[CLS_EF].period_s = EF_PERIOD_S;
	tu_sim_src(&sc->src[CLS_AF], SIM_SRC_GREEDY, L_BYTES, 0);
	tu_sim_src(&sc->src[CLS_CS0], SIM_SRC_GREEDY, L_BYTES, 0);
	sc->duration_ns = 100 * NS_PER_SEC;
	sc->warmup_ns = 10 * NS_PER_SEC;
}

/* Fig. 7/8/10: C(t) = C_avg (1 + 0.3 cos(2 pi t / 15 s)). */
static void cosine_link(struct sim_config *sc)
{
	sc->conf.link.kind = LINK_COSINE;
	sc->conf.link.mean_bps = C_BPS;
	sc->conf.link.amplitude = 0.3;
	sc->conf.link.period_s = C_PERIOD_S;
	sc->duration_ns = VAR_DUR_NS;
	sc->warmup_ns = VAR_WARMUP_NS;
}

/* Selects scheduler `name` with its group parsed from libconfig text, the
 * way conf_load() does it (defaults, then the scheduler's own parse()). */
static void set_sched(struct sim_config *sc, const char *name,
		      const char *group_text)
{
	struct sched_env env;
	struct diag d;
	config_t cfg;

	sc->conf.sched = sched_lookup(name);
	assert_non_null(sc->conf.sched);
	conf_sched_env(&sc->conf, &env);
	memset(sc->conf.sched_params, 0, sizeof(sc->conf.sched_params));
	sc->conf.sched->defaults(sc->conf.sched_params, &env);
	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg, group_text), CONFIG_TRUE);
	diag_init(&d, stderr, name);
	assert_int_equal(sched_parse(sc->conf.sched, config_root_setting(&cfg),
					       sc->conf.sched_params, &d), 0);
	assert_int_equal(d.nerr, 0);
	config_destroy(&cfg);
}

/* A PSS parameter set. */
struct pss_set {
	char   name[24];
	double bw;                      /* a fraction of C */
	double lm_bytes, lr_bytes;
};

/* The paper's set for weights W_AF:W_CS0 and an expected EF rate, eqs.
 * 3-5 evaluated here: LR = 0 for a fixed capacity (§2.4), or a memory LR
 * with LM = eq. 5 + LR (§2.1, §2.3). */
static void paper_set(struct pss_set *s, unsigned w_af, unsigned w_cs0,
		      double ef_exp_bps, double lr_bytes)
{
	snprintf(s->name, sizeof(s->name), "paper %u:%u", w_af, w_cs0);
	s->bw = b_eq4(w_af, w_cs0) * (C - ef_exp_bps) / C;
	s->lr_bytes = lr_bytes;
	s->lm_bytes = lm_eq5_bytes(w_af, s->bw) + lr_bytes;
}

/* The calibrated set (docs/pss.md, "The calibrated rule"), as the
 * calculator computes it: BW = K_AF (C - R_EF^exp)/C, LR off the floor,
 * LM for at least 16 AF packets per sending window. */
static void calibrated_set(struct pss_set *s, unsigned w_af, unsigned w_cs0,
			   double ef_exp_bps)
{
	struct params_in in;
	struct params_out o;
	char err[256] = "";

	memset(&in, 0, sizeof(in));
	in.w_af = w_af;
	in.w_cs0 = w_cs0;
	in.l_af_bytes = L_BYTES;
	in.l_cs0_bytes = L_BYTES;
	in.capacity_bps = C_BPS;
	in.ef_exp_bps = (uint64_t)llround(ef_exp_bps);
	in.lr_mode = PARAMS_LR_FIXED;
	in.rule = PARAMS_RULE_CALIBRATED;
	if (params_compute(&in, &o, err, sizeof(err)) != 0)
		fail_msg("params_compute: %s", err);
	snprintf(s->name, sizeof(s->name), "calib. %u:%u", w_af, w_cs0);
	s->bw = o.cal.bw;
	s->lm_bytes = (double)o.cal.lm_bytes;
	s->lr_bytes = (double)o.cal.lr_bytes;
}

/* Selects PSS with set s.  The credit starts at LR (credit_init = LR), so
 * that a run with a large memory LR does not open with LR/(C BW) seconds
 * of CS0 starvation; with LR = 0 that is the paper's start at 0.  With
 * trace_path, pss writes its credit trace there. */
static void set_pss(struct sim_config *sc, const struct pss_set *s,
		    int idle_credit, const char *trace_path)
{
	char text[512];
	int n;

	n = snprintf(text, sizeof(text), "bw = %.12f; lm = %.0fL; lr = %.0fL; "
		     "credit_init = %.0fL; idle_credit = %s;", s->bw,
		     s->lm_bytes, s->lr_bytes, s->lr_bytes,
		     idle_credit ? "true" : "false");
	if (trace_path)
		snprintf(text + n, sizeof(text) - (size_t)n, " trace = \"%s\";",
			 trace_path);
	set_sched(sc, "pss", text);
}

static void run(struct sim_config *sc, struct sim_result *r)
{
	assert_int_equal(sim_run(sc, r), 0);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* Largest |EF carried - EF offered| / EF offered of the runs of a test. */
static double ef_dev_max;

/* run(), on a constant link with CBR EF, and EF carried as offered. */
static void run_ef(struct sim_config *sc, struct sim_result *r)
{
	double ef = (double)sc->src[CLS_EF].rate_bps;
	double dev;

	run(sc, r);
	dev = fabs(r->mean_bps[CLS_EF] - ef) / ef;
	ef_dev_max = fmax(ef_dev_max, dev);
	assert_true(dev <= EF_TOL);
}

static void ef_summary(void)
{
	print_message("  EF carried within %.4f %% of R_EF in every run "
		      "(tolerance %.4f %%)\n", 100 * ef_dev_max, 100 * EF_TOL);
	ef_dev_max = 0;
}

/* ---- the table ---------------------------------------------------------- */

/* The least distance of an excluded alternative from "want", in parts of
 * the reference: 0.25 %, some 50 kbit/s at 20 Mbit/s, several times a
 * run's noise (one 1500-byte packet per second is 12 kbit/s) and below
 * the smallest distance the rows rely on (the clamps' share at 9:2 and
 * 0.25 C, 0.52 %). */
#define SEP_MIN 0.0025

#define ALT0 1u                 /* row.excl: alt_bps[0] must be told apart */
#define ALT1 2u                 /* alt_bps[1] */

struct row {
	const char *set;
	double ef_frac;                 /* R_EF / C */
	const char *cls;
	double got_bps;                 /* measured */
	const char *eq;                 /* the paper's equation */
	double eq_bps;                  /* its value */
	double want_bps;                /* asserted: eq_bps, or eq_bps plus
					 * a deviation derived in docs/pss.md */
	double tol;                     /* |got - want| <= tol ref */
	double alt_bps[2];              /* what other mechanisms give */
	unsigned excl;                  /* ALT0 | ALT1: asserted outside
					 * max(2 tol, SEP_MIN) ref of want */
};

static void table_head(const char *title, const char *alt0, const char *alt1)
{
	print_message("  %s\n  (dev, want and the alternatives in %% of the "
		      "paper's value, # of C - R_EF where it is 0; x: the "
		      "alternative lies outside twice the tolerance and "
		      "%.2f %%, asserted)\n", title, 100 * SEP_MIN);
	print_message("  %-12s %-6s %-3s %8s  %-5s %8s %9s %8s %7s |"
		      " %-18s | %-18s\n", "set", "R_EF", "cls", "measured",
		      "paper", "value", "dev %", "want %", "tol %", alt0, alt1);
}

static void check_row(const struct row *r)
{
	/* % of the paper's value, or of what AF and CS0 share when it is 0 */
	double ref = r->eq_bps > 0 ? r->eq_bps : C * (1 - r->ef_frac);
	char alt[2][40];
	unsigned j;

	for (j = 0; j < 2; j++)
		snprintf(alt[j], sizeof(alt[j]), "%8.4f %+8.3f %c",
			 r->alt_bps[j] / MBIT,
			 100 * (r->alt_bps[j] - r->eq_bps) / ref,
			 r->excl & (1u << j) ? 'x' : ' ');
	print_message("  %-12s %.2f C %-3s %8.4f  %-5s %8.4f %+8.3f%c %+8.3f "
		      "%7.4f | %s | %s\n", r->set, r->ef_frac, r->cls,
		      r->got_bps / MBIT, r->eq, r->eq_bps / MBIT,
		      100 * (r->got_bps - r->eq_bps) / ref,
		      r->eq_bps > 0 ? ' ' : '#',
		      100 * (r->want_bps - r->eq_bps) / ref, 100 * r->tol,
		      alt[0], alt[1]);
	assert_true(fabs(r->got_bps - r->want_bps) <= r->tol * ref);
	for (j = 0; j < 2; j++)
		if ((r->excl & (1u << j)) &&
		    fabs(r->alt_bps[j] - r->want_bps) <=
		    fmax(2 * r->tol, SEP_MIN) * ref)
			fail_msg("%s %.2f C %s: alternative %u (%.4f Mbit/s) "
				 "lies within %.4f %% of want (%.4f Mbit/s): "
				 "the row cannot tell them apart", r->set,
				 r->ef_frac, r->cls, j, r->alt_bps[j] / MBIT,
				 100 * fmax(2 * r->tol, SEP_MIN),
				 r->want_bps / MBIT);
}

/* ---- Fig. 5: DWRR shares the residual capacity by eq. 1, 2 and 6 ---- */

/* DWRR with quanta W_i L (weights 9:2): AF gets K_AF (C - R_EF) (eq. 1),
 * CS0 (1 - K_AF)(C - R_EF) (eq. 6), for R_EF = 0.25, 0.5, 0.75 C.  DRR
 * gives the backlogged classes exactly their quanta every round, so what
 * is left is the window's edges: a round cut at each end, W_i L bytes in
 * 90 s against W_i/(W_AF + W_CS0) of the rate, at most 0.03 % at 0.75 C.
 * Measured: 0.012 % at most (CS0 at 0.75 C: 109 bit/s), 0.003 % else.
 * The alternatives: PSS's eq. 7/8 (a share that ignores R_EF: -33 % at
 * 0.25 C, +22 % at 0.75 C, equal at 0.5 C), and DRR with quanta of
 * W_i - 1 packets, i.e. eq. 4's B for K_AF (a quantum off by one
 * packet: 8.6 % for AF, 39 % for CS0). */
#define DWRR_TOL 0.00015

static void test_dwrr_eq1_eq6(void **state)
{
	double k = k_af(9, 2), b = b_eq4(9, 2);
	unsigned i;

	(void)state;
	table_head("Fig. 5: DWRR, weights 9:2 (K_AF = 0.8182), eqs. 1 and 6",
		   "PSS eq. 7/8", "W - 1 quanta");
	for (i = 0; i < NEF; i++) {
		struct sim_config sc;
		struct sim_result r;
		double share = (1 - ef_frac[i]) * C;    /* C - R_EF */
		double af7 = fmin(k * (C - EF_EXP_BPS), share);
		unsigned excl = ef_frac[i] == 0.5 ? ALT1 : ALT0 | ALT1;

		base_cfg(&sc, ef_frac[i] * C, 0);
		set_sched(&sc, "dwrr", "weights = { af = 9; cs0 = 2; }; "
			  "packet_size = 1500;");
		run_ef(&sc, &r);
		check_row(&(struct row){ "DWRR 9:2", ef_frac[i], "AF",
			r.mean_bps[CLS_AF], "eq. 1", k * share, k * share,
			DWRR_TOL, { af7, b * share }, excl });
		check_row(&(struct row){ "DWRR 9:2", ef_frac[i], "CS0",
			r.mean_bps[CLS_CS0], "eq. 6", (1 - k) * share,
			(1 - k) * share, DWRR_TOL, { share - af7,
			(1 - b) * share }, excl });
	}
	ef_summary();
}

/* ---- Fig. 6: PSS with R_EF^exp = 0.5 C, eqs. 7 and 8 ------------------ */

/* table_head() for PSS set s, with its parameters. */
static void pss_table_head(const char *what, const struct pss_set *s,
			   unsigned w_af, unsigned w_cs0, const char *alt1)
{
	char title[200];

	snprintf(title, sizeof(title), "%s: PSS %s, K_AF = %.4f, B = %.4f: "
		 "bw = %.6f, lm = %.0f, lr = %.0f (BW C = %.4f Mbit/s)", what,
		 s->name, k_af(w_af, w_cs0), b_eq4(w_af, w_cs0), s->bw,
		 s->lm_bytes, s->lr_bytes, s->bw * C / MBIT);
	table_head(title, "WRR eq. 1/6", alt1);
}

/* Runs set s at R_EF = 0.25, 0.5, 0.75 C and checks AF against eq. 7 and
 * CS0 against eq. 8 with tol[i][0] and tol[i][1]; excl[i][] names the
 * alternatives each row must tell apart: WRR's eqs. 1/6 (AF following
 * R_EF), and eqs. 7/8 with B for K_AF, where Algorithm 1 goes with the
 * paper's BW when its windows are long (docs/pss.md).
 *
 * The tolerances hold for this window (10..100 s): AF sends in windows
 * of a few hundred packets, and where the window's edges cut them is
 * worth up to the credit's change over the window, LM / 90 s = 0.08 %
 * of eq. 7 (moving the window by 1 s moves AF by up to 0.07 %). */
static void fig6(const struct pss_set *s, unsigned w_af, unsigned w_cs0,
		 const double tol[NEF][2], const unsigned excl[NEF][2])
{
	double k = k_af(w_af, w_cs0), b = b_eq4(w_af, w_cs0);
	unsigned i;

	pss_table_head("Fig. 6", s, w_af, w_cs0, "eq. 7/8, B for K");
	for (i = 0; i < NEF; i++) {
		struct sim_config sc;
		struct sim_result r;
		double share = (1 - ef_frac[i]) * C;    /* C - R_EF */
		double af7 = fmin(k * (C - EF_EXP_BPS), share);
		double af_b = fmin(b * (C - EF_EXP_BPS), share);

		base_cfg(&sc, ef_frac[i] * C, 0);
		set_pss(&sc, s, 1, NULL);
		run_ef(&sc, &r);
		check_row(&(struct row){ s->name, ef_frac[i], "AF",
			r.mean_bps[CLS_AF], "eq. 7", af7, af7, tol[i][0],
			{ k * share, af_b }, excl[i][0] });
		check_row(&(struct row){ s->name, ef_frac[i], "CS0",
			r.mean_bps[CLS_CS0], "eq. 8", share - af7, share - af7,
			tol[i][1], { (1 - k) * share, share - af_b },
			excl[i][1] });
	}
	ef_summary();
}

/* Fig. 6 with the paper's own rule (eqs. 3-5, LR = 0) at weights 81:19
 * and equal packets: K_AF = 0.81 exactly (the K_AF of Fig. 8), B = 80/98
 * = 0.8163, BW = 0.4082, LM = 71020 bytes, the credit starting at 0.
 *
 * With W_AF this large the sending windows are long (258 AF packets at
 * R_EF^exp), the two clamps weigh little, and Algorithm 1 gives AF close
 * to BW C = B (C - R_EF^exp) (docs/pss.md, "Why: the credit balance");
 * B is only 0.78 % above K_AF, so the rule meets eq. 7 within about that
 * and eq. 8 within what those 0.06 Mbit/s are of CS0's smaller rate.
 * Measured, at R_EF = 0.25, 0.5, 0.75 C: AF +1.26, +0.64, 0.00 % of
 * eq. 7; CS0 -1.48, -2.72 % of eq. 8, and 0.00 % of C - R_EF (eq. 8 is
 * 0 there: EF leaves AF less than its reservation, eq. 7's min).
 *
 * What these rows tell apart: AF not following R_EF, Fig. 6's point
 * (WRR's eq. 1 is +50 % at 0.25 C and -19 % at 0.75 C; eq. 6 -59 % and
 * +19 % of C - R_EF).  At R_EF^exp eq. 1 and eq. 7 coincide and nothing
 * within reach differs from eq. 7 by more than the tolerance.  What they
 * cannot tell apart, anywhere: eq. 7 from Algorithm 1's B (C - R_EF^exp),
 * 0.78 % above it, inside every tolerance this measurement allows (AF is
 * in fact nearer B (C - R_EF^exp) at 0.5 C).  The calibrated test below
 * and the 9:2 test separate the two. */
static void test_pss_fig6_paper(void **state)
{
	static const double tol[NEF][2] = {
		{ 0.015, 0.0175 }, { 0.0075, 0.03 }, { 0.00005, 0.00005 },
	};
	static const unsigned excl[NEF][2] = {
		{ ALT0, ALT0 }, { 0, 0 }, { ALT0, ALT0 },
	};
	struct pss_set s;

	(void)state;
	paper_set(&s, 81, 19, EF_EXP_BPS, 0);
	fig6(&s, 81, 19, tol, excl);
}

/* Fig. 6 with the calibrated rule at 81:19 (params_compute()'s out.cal):
 * BW = K_AF (C - R_EF^exp)/C = 0.405, LR = 1215, LM = 72615 bytes, the
 * credit starting at LR.  BW C is eq. 7's value by construction and LR
 * keeps the credit off the floor 0, so what is left of docs/pss.md's
 * balance is the cut at LM (upwards, largest when R_EF < R_EF^exp makes
 * the sending windows short) and the credit's change over the window (at
 * most LM / 90 s = 0.08 % of eq. 7).  Measured, at R_EF = 0.25, 0.5,
 * 0.75 C: AF +0.30, -0.03, 0.00 %; CS0 -0.35, +0.11, 0.00 %.  (The
 * calculator, which writes bw with 9 digits, gets +0.1 % at 0.5 C: the
 * lattice of docs/pss.md.)
 *
 * The tolerances are under half the distance to where the paper's B
 * would put AF (0.78 % of eq. 7, 0.92 % and 3.3 % of eq. 8), so at 0.25
 * and 0.5 C these rows tell eq. 7 from B (C - R_EF^exp), and at 0.25 and
 * 0.75 C from WRR. */
static void test_pss_fig6_calibrated(void **state)
{
	static const double tol[NEF][2] = {
		{ 0.0035, 0.004 }, { 0.0003, 0.0013 }, { 0.00005, 0.00005 },
	};
	static const unsigned excl[NEF][2] = {
		{ ALT0 | ALT1, ALT0 | ALT1 }, { ALT1, ALT1 }, { ALT0, ALT0 },
	};
	struct pss_set s;

	(void)state;
	calibrated_set(&s, 81, 19, EF_EXP_BPS);
	fig6(&s, 81, 19, tol, excl);
}

/* ---- 9:2: the paper's set against Algorithm 1's credit balance -------- */

/* What Algorithm 1's two clamps did over [from_ns, to_ns), rebuilt from
 * pss's credit trace ("t_s,credit_bytes,prio", one line per credit
 * update: the idle update at every dequeue, then, at the same instant,
 * the charge when AF was dequeued).  Between two lines the credit moves
 * by the algorithm's rules: + L (1 - BW) for an AF packet, - dtime C BW
 * for the time AF did not transmit, counted from the end of its last
 * packet (size / C after its start).  Only where a line shows the credit
 * at a bound is a difference from that rule a clamp; anywhere else it
 * stays unexplained and breaks the identity. */
struct clamps {
	double cut_bytes;               /* Lambda: cut at LM */
	double kept_bytes;              /* Gamma: kept by the floor 0 */
	double start_bytes, end_bytes;  /* the credit entering, leaving */
};

static void trace_clamps(const char *path, const struct pss_set *s,
			 tstamp_ns from_ns, tstamp_ns to_ns, struct clamps *k)
{
	/* the trace prints 3 decimals */
	const double eps = 0.001, lm = s->lm_bytes;
	const double idle_bytes_ns = s->bw * C_BYTES_S / NS_PER_SEC;
	const tstamp_ns tx_ns = L_BYTES * 8ull * NS_PER_SEC / C_BPS;
	unsigned long long sec, nsec, t_prev = 0, timer = 0;
	double credit, prev = 0;
	unsigned prio, n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	memset(k, 0, sizeof(*k));
	while (fscanf(f, "%llu.%llu,%lf,%u\n", &sec, &nsec, &credit,
		      &prio) == 4) {
		tstamp_ns t = sec * NS_PER_SEC + nsec;
		double rule;

		if (n > 0 && t == t_prev) {             /* AF's charge */
			rule = prev + L_BYTES * (1 - s->bw);
			timer = t + tx_ns;
		} else {                                /* idle update */
			if (n == 0)
				timer = t;
			rule = prev - ((double)t - (double)timer) *
			       idle_bytes_ns;
			timer = t;
		}
		n++;
		if (t < from_ns)
			k->start_bytes = credit;
		else if (t < to_ns) {
			if (credit >= lm - eps && rule > credit)
				k->cut_bytes += rule - credit;
			if (credit <= eps && rule < credit)
				k->kept_bytes += credit - rule;
			k->end_bytes = credit;
		}
		prev = credit;
		t_prev = t;
	}
	assert_true(n > 0);
	fclose(f);
}

/* The paper's set at 9:2 (B = 8/9, K_AF = 9/11, BW = 0.4444, LM = 6667
 * bytes, LR = 0), where B and K_AF are 8.6 % apart.  Eq. 7 says AF gets
 * K_AF (C - R_EF^exp) = 8.18 Mbit/s, and eq. 8 gives CS0 the rest of
 * C - R_EF.  Algorithm 1 does not (docs/pss.md, "Why: the credit balance
 * of Algorithm 1"): over a window T in which AF and CS0 are backlogged
 * the credit gains L (1 - BW) per AF packet, loses C BW for every second
 * AF does not send, EF's included, and stays within [0, LM], so
 *     R_AF = BW C + (cut at LM - kept at 0 + credit(end) - credit(start))/T
 * exactly.  Eqs. 3-5 count on one whole AF charge cut at LM and one whole
 * CS0 drain kept at 0 per WRR round of W_AF + W_CS0 packets, which turns
 * BW C into eq. 7; but EF, sent between AF's packets, drains the credit
 * too (eq. 5 sizes the window as if AF sent alone, hypothesis 1), so the
 * sending window holds about 40 AF packets instead of 9, the clamps
 * happen once per 50 ms cycle instead of once per round, and AF ends
 * near B (C - R_EF^exp), above eq. 7.
 *
 * Asserted, per R_EF: AF against that identity, the clamps measured from
 * the credit trace; CS0 against eq. 8 plus the deviation the identity
 * explains, i.e. eq. 8 - (BW C - eq. 7) - clamps / T: at 0.5 C, -38.9 %
 * of eq. 8 for B against K_AF and +4.4 % for the clamps, -34.5 % in all.
 * Neither assertion requires the paper to miss: if Algorithm 1 met eq. 7
 * the clamps would say so and both rows would follow (with the calibrated
 * set here, AF +0.65 %, they pass).  With the credit's change over the
 * window included the identity is exact: measured, the rows are within
 * 1.1 bit/s of it, so the tolerance is 1e-6 of the reference rate (2 to
 * 9 bit/s), far below the clamps' share, which "BW C, no clamps" shows
 * (-0.9 % of eq. 7 at 0.5 C), and below the credit change alone (200
 * bit/s at 0.25 C). */
static void test_pss_9_2_identity(void **state)
{
	static const double tol[NEF][2] = {
		{ 1e-6, 1e-6 }, { 1e-6, 1e-6 }, { 1e-6, 1e-6 },
	};
	/* at 0.75 C eq. 7's min puts AF at C - R_EF whatever BW C says, and
	 * "no clamps" would leave CS0 a negative rate: nothing to exclude */
	static const unsigned excl[NEF][2] = {
		{ ALT0 | ALT1, ALT0 | ALT1 }, { ALT0 | ALT1, ALT0 | ALT1 },
		{ ALT0 | ALT1, ALT0 },
	};
	double k = k_af(9, 2);
	struct pss_set s;
	unsigned i;

	(void)state;
	paper_set(&s, 9, 2, EF_EXP_BPS, 0);
	pss_table_head("Algorithm 1's balance (want: BW C + clamps / T)", &s,
		       9, 2, "BW C, no clamps");
	for (i = 0; i < NEF; i++) {
		char path[] = "/tmp/test-sim-theory-XXXXXX";
		struct sim_config sc;
		struct sim_result r;
		struct clamps cl;
		double share = (1 - ef_frac[i]) * C;    /* C - R_EF */
		double af7 = fmin(k * (C - EF_EXP_BPS), share);
		double ref8 = share - af7 > 0 ? share - af7 : share;
		double t_s, clamps_bps, af_bps;
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		close(fd);
		base_cfg(&sc, ef_frac[i] * C, 0);
		set_pss(&sc, &s, 1, path);
		run_ef(&sc, &r);
		trace_clamps(path, &s, sc.warmup_ns, sc.duration_ns, &cl);
		unlink(path);
		t_s = (double)(sc.duration_ns - sc.warmup_ns) / NS_PER_SEC;
		clamps_bps = 8 * (cl.cut_bytes - cl.kept_bytes + cl.end_bytes -
				  cl.start_bytes) / t_s;
		af_bps = s.bw * C + clamps_bps;
		check_row(&(struct row){ s.name, ef_frac[i], "AF",
			r.mean_bps[CLS_AF], "eq. 7", af7, af_bps, tol[i][0],
			{ k * share, s.bw * C }, excl[i][0] });
		check_row(&(struct row){ s.name, ef_frac[i], "CS0",
			r.mean_bps[CLS_CS0], "eq. 8", share - af7,
			share - af_bps, tol[i][1], { (1 - k) * share,
			fmax(share - s.bw * C, 0) }, excl[i][1] });
		print_message("  %21s split: BW C - eq. 7 %+.4f, cut at LM %+.4f, "
			      "kept at 0 %+.4f, credit change %+.4f Mbit/s; "
			      "CS0 %+.2f %% (BW C) %+.2f %% (clamps)\n", "",
			      (s.bw * C - af7) / MBIT,
			      8 * cl.cut_bytes / t_s / MBIT,
			      -8 * cl.kept_bytes / t_s / MBIT,
			      8 * (cl.end_bytes - cl.start_bytes) / t_s / MBIT,
			      -100 * (s.bw * C - af7) / ref8,
			      -100 * clamps_bps / ref8);
	}
	ef_summary();
}

/* ---- Fig. 7/8: variable capacity and the LR memory -------------------- */

/* The paper's set for Fig. 7/8/10 (K_AF = 0.81, R_EF^exp = EF_avg) with
 * the memory of §4.2.1, LR = T C_avg BW for T = 15 s, the capacity's
 * period (LR needs the set's BW, hence the first call). */
static void memory_set(struct pss_set *s, double ef_avg_bps)
{
	paper_set(s, 81, 19, ef_avg_bps, 0);
	paper_set(s, 81, 19, ef_avg_bps, round(C_PERIOD_S * C_BYTES_S * s->bw));
}

/* Fig. 8's setting: C(t) = C_avg (1 + 0.3 cos(2 pi t / 15 s)),
 * EF(t) = EF_avg (1 + 0.6 cos(2 pi t / 6.1 s)), EF_avg = 0.75 C_avg,
 * K_AF = 0.81 (weights 81:19, equal packets: K_AF = 81/100 exactly),
 * R_EF^exp = EF_avg.  BW = B (C - R_EF^exp)/C = (80/98) 0.25 = 0.204,
 * target BW C_avg = 4.08 Mbit/s.  With memory LR = T C_avg BW (§4.2.1,
 * T = 15 s, the capacity's period: LR = 7.65 MB) the credit remembers
 * the starvation of the low-capacity phases and AF catches up: its
 * long-run average reaches the target (2 %, the tolerance).
 * Without memory (LR = 0) what is lost is lost: AF falls short, by far
 * more than 10 % (C(t) - EF(t) is below the target for long stretches). */
static void test_pss_lr_memory(void **state)
{
	struct sim_config sc;
	struct sim_result with, without;
	struct pss_set mem, nomem;
	double ef_avg = 0.75 * C, target;

	(void)state;
	base_cfg(&sc, ef_avg, 0.6);
	cosine_link(&sc);
	paper_set(&nomem, 81, 19, ef_avg, 0);
	memory_set(&mem, ef_avg);
	target = mem.bw * C;
	set_pss(&sc, &mem, 1, NULL);
	run(&sc, &with);
	set_pss(&sc, &nomem, 1, NULL);
	run(&sc, &without);
	print_message("  Fig. 8: BW = %.4f, LR = %.0f bytes, LM = %.0f bytes, "
		      "target BW C_avg = %.4f Mbit/s, eq. 7 K_AF (C - EF_avg) "
		      "= %.4f\n", mem.bw, mem.lr_bytes, mem.lm_bytes,
		      target / MBIT, k_af(81, 19) * (C - ef_avg) / MBIT);
	print_message("  Fig. 8: EF carried %.4f, CS0 with memory %.4f, "
		      "without %.4f Mbit/s\n", with.mean_bps[CLS_EF] / MBIT,
		      with.mean_bps[CLS_CS0] / MBIT,
		      without.mean_bps[CLS_CS0] / MBIT);
	tu_assert_rel("AF long-run, with LR memory", with.mean_bps[CLS_AF],
		      target, 0.02);
	print_message("  AF long-run, without memory: %.4f Mbit/s = %.1f %% "
		      "of the target (must be < 90 %%)\n",
		      without.mean_bps[CLS_AF] / MBIT,
		      100 * without.mean_bps[CLS_AF] / target);
	assert_true(without.mean_bps[CLS_AF] < 0.9 * target);
}

/* ---- EF bursts and the credit floor -------------------------------------- */

/* EF at 10 Mbit/s on average, sent as CBR or in bursts at the link's
 * full rate (on-off, 20 Mbit/s, exponential on and off periods of mean
 * on_ms), with the paper's 9:2 set for R_EF^exp = 10 Mbit/s (LR = 0) or
 * with a memory LR, and the AF rate the run gives (AF, CS0 greedy). */
static double af_under_ef(const struct pss_set *s, int bursty, double on_ms)
{
	struct sim_config sc;
	struct sim_result r;

	base_cfg(&sc, 0.5 * C, 0);
	if (bursty) {
		tu_sim_src(&sc.src[CLS_EF], SIM_SRC_ONOFF, L_BYTES, 0);
		sc.src[CLS_EF].peak_bps = C_BPS;
		sc.src[CLS_EF].on_ns = (tstamp_ns)(on_ms * NS_PER_MS);
		sc.src[CLS_EF].off_ns = (tstamp_ns)(on_ms * NS_PER_MS);
	}
	set_pss(&sc, s, 1, NULL);
	run(&sc, &r);
	print_message("  EF %-24s %7.4f Mbit/s: AF %7.4f, CS0 %7.4f Mbit/s (%s, "
		      "LR %.0f bytes)\n", bursty ? "on-off at C, mean on/off" :
		      "CBR", r.mean_bps[CLS_EF] / MBIT, r.mean_bps[CLS_AF] / MBIT,
		      r.mean_bps[CLS_CS0] / MBIT, s->name, s->lr_bytes);
	return r.mean_bps[CLS_AF];
}

/* What the paper's claim (AF's rate does not depend on EF's) leaves out:
 * how EF arrives.  While an EF burst fills the link AF cannot send, its
 * credit falls at the idle slope down to the floor, 0 with LR = 0 (§2.1:
 * the credit is bounded below), and the time it did not get is never
 * given back.  With EF in 20-ms bursts at the full rate (the same 10
 * Mbit/s mean as the CBR EF) AF gets far less than with CBR EF: below 70
 * % of it.  A memory LR (§4.2.1: LR = T C BW, here T = 1 s, LM = eq. 5 +
 * LR) gives it back: the credit, held above the floor, remembers the
 * bursts, the same mechanism that makes up the capacity's slow variation
 * in Fig. 8 (test_pss_lr_memory).  This is why test_pss_dwrr.sh holds PSS's EF
 * dependence to a fraction of DWRR's rather than to 3 %: iperf3's EF is
 * bursty on a loaded machine (docs/pss.md, "EF bursts"). */
static void test_pss_ef_bursts(void **state)
{
	struct pss_set s, mem;
	double cbr, burst, burst_mem;

	(void)state;
	paper_set(&s, 9, 2, 0.5 * C, 0);
	paper_set(&mem, 9, 2, 0.5 * C, round(1.0 * C_BYTES_S * s.bw));
	cbr = af_under_ef(&s, 0, 0);
	burst = af_under_ef(&s, 1, 20);
	burst_mem = af_under_ef(&mem, 1, 20);
	print_message("  AF with 20-ms EF bursts: %.1f %% of AF with CBR EF; "
		      "with LR memory %.1f %%\n", 100 * burst / cbr,
		      100 * burst_mem / cbr);
	assert_true(burst < 0.7 * cbr);
	tu_assert_rel("AF with 20-ms EF bursts and LR memory", burst_mem, cbr,
		      0.05);
}

/* ---- Fig. 10: the dtime < 0 branch -------------------------------------- */

/* AF's credit at the end of every stats line of f. */
static double *read_credits(FILE *f, size_t *n)
{
	char line[8192];
	double *v = NULL;
	size_t cap = 0;

	*n = 0;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		const char *s = strstr(line, "\"sched\"");

		assert_non_null(s);
		s = strstr(s, "\"credit\": ");
		assert_non_null(s);
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[(*n)++] = strtod(s + strlen("\"credit\": "), NULL);
	}
	return v;
}

/* Per-interval AF rate where C(t) > C_avg and the credit is regained
 * (at or above LR at both ends of the interval), from the CSV rows and
 * the daemon-format stats lines, which share the sample boundaries.  The
 * rows come after the run (sim.h), when the stats file is complete. */
struct phase_acc {
	double lr_bytes;
	FILE  *stats;
	double *credit;                 /* per stats line, end of interval */
	size_t ncredit;
	size_t row;
	double af_bits, secs;           /* regained and C > C_avg */
	double warm_s;
};

static void on_row(void *ctx, const struct sim_sample *s)
{
	struct phase_acc *a = ctx;
	size_t i = a->row++;

	if (i == 0)
		a->credit = read_credits(a->stats, &a->ncredit);
	if (i == 0 || i >= a->ncredit || s->t_s - s->dt_s < a->warm_s)
		return;
	if (s->capacity_bps > C && a->credit[i - 1] >= a->lr_bytes &&
	    a->credit[i] >= a->lr_bytes) {
		a->af_bits += s->bps[CLS_AF] * s->dt_s;
		a->secs += s->dt_s;
	}
}

/* One run of the variable-capacity setting with the dtime < 0 branch on
 * or off; returns AF's long-run mean and its mean over the "regained,
 * C > C_avg" intervals (0.5 s rows). */
static void run_phase(double ef_avg, int idle_credit, double *mean_bps,
		      double *regained_bps, double *bw_out)
{
	struct sim_config sc;
	struct sim_result r;
	struct phase_acc acc;
	struct pss_set s;

	memset(&acc, 0, sizeof(acc));
	acc.stats = tmpfile();
	assert_non_null(acc.stats);
	base_cfg(&sc, ef_avg, 0.6);
	cosine_link(&sc);
	memory_set(&s, ef_avg);
	set_pss(&sc, &s, idle_credit, NULL);
	acc.lr_bytes = s.lr_bytes;
	acc.warm_s = (double)sc.warmup_ns / 1e9;
	sc.sample_ns = 500 * NS_PER_MS;
	sc.stats = acc.stats;
	sc.sample_cb = on_row;
	sc.sample_ctx = &acc;
	run(&sc, &r);
	fclose(acc.stats);
	free(acc.credit);
	assert_true(acc.secs > 60.0);
	*mean_bps = r.mean_bps[CLS_AF];
	*regained_bps = acc.af_bits / acc.secs;
	*bw_out = s.bw;
}

/* §2.3/§4.2.2, Fig. 10: with C(t) above the nominal C the controlled
 * queue's packets follow each other faster than size / C; without the
 * dtime < 0 branch that surplus is never charged to the credit and AF runs
 * above BW C_avg while C(t) > C_avg; with it AF is back at the target as
 * soon as its credit is regained.
 *
 * dtime < 0 only happens between two AF packets sent back to back, so the
 * effect needs AF to have room: in Fig. 8's load (EF_avg = 0.75 C_avg)
 * EF sits between almost every two AF packets and the branch changes
 * little (numbers printed, not asserted).  The check runs with the same
 * C(t) and EF(t) shapes at EF_avg = 0.25 C_avg (BW = 0.612), where a
 * back-to-back fluid estimate gives AF / (BW C) = 1 / ((1 - BW) +
 * BW C / C(t)), about +10 % at the mean C(t) of the high phase
 * (1.19 C_avg) without the branch, and exactly 1 with it.
 * Asserted: without the branch AF exceeds BW C_avg by more than 5 % in the
 * regained high-capacity intervals; with it AF is within 2 % of BW C_avg
 * there and in the long run. */
static void test_pss_idle_credit(void **state)
{
	double m_on, m_off, g_on, g_off, bw;

	(void)state;
	run_phase(0.75 * C, 1, &m_on, &g_on, &bw);
	run_phase(0.75 * C, 0, &m_off, &g_off, &bw);
	print_message("  EF_avg = 0.75 C (Fig. 8 load), target %.4f: long-run "
		      "AF %.4f with the branch, %.4f without; regained and "
		      "C > C_avg: %.4f with, %.4f without (Mbit/s)\n",
		      bw * C / MBIT, m_on / MBIT, m_off / MBIT, g_on / MBIT,
		      g_off / MBIT);

	run_phase(0.25 * C, 1, &m_on, &g_on, &bw);
	run_phase(0.25 * C, 0, &m_off, &g_off, &bw);
	print_message("  EF_avg = 0.25 C, target %.4f: long-run AF %.4f with "
		      "the branch, %.4f without; regained and C > C_avg: %.4f "
		      "with, %.4f without (Mbit/s)\n", bw * C / MBIT,
		      m_on / MBIT, m_off / MBIT, g_on / MBIT, g_off / MBIT);
	tu_assert_rel("regained, C > C_avg, with dtime < 0", g_on, bw * C, 0.02);
	tu_assert_rel("long-run, with dtime < 0", m_on, bw * C, 0.02);
	print_message("  regained, C > C_avg, without dtime < 0: %+.1f %% of "
		      "the target (must be > +5 %%)\n",
		      100 * (g_off - bw * C) / (bw * C));
	assert_true(g_off > 1.05 * bw * C);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwrr_eq1_eq6),
		cmocka_unit_test(test_pss_fig6_paper),
		cmocka_unit_test(test_pss_fig6_calibrated),
		cmocka_unit_test(test_pss_9_2_identity),
		cmocka_unit_test(test_pss_lr_memory),
		cmocka_unit_test(test_pss_ef_bursts),
		cmocka_unit_test(test_pss_idle_credit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
