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
 *   eq. 1, 6, 7, 8 the output rates.
 * Measured numbers are printed next to their theory in every test.
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
#include <cmocka.h>

#include "conf.h"
#include "diag.h"
#include "pkt.h"
#include "sim.h"

#define MBIT       1e6
#define C_BPS      20000000ull
#define C          ((double)C_BPS)
#define C_BYTES_S  (C / 8.0)
#define L_BYTES    1500u

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
	sc->src[CLS_EF].kind = SIM_SRC_CBR;
	sc->src[CLS_EF].rate_bps = (uint64_t)llround(ef_bps);
	sc->src[CLS_EF].pkt_bytes = L_BYTES;
	sc->src[CLS_EF].amplitude = ef_a;
	sc->src[CLS_EF].period_s = EF_PERIOD_S;
	sc->src[CLS_AF].kind = SIM_SRC_GREEDY;
	sc->src[CLS_AF].pkt_bytes = L_BYTES;
	sc->src[CLS_CS0].kind = SIM_SRC_GREEDY;
	sc->src[CLS_CS0].pkt_bytes = L_BYTES;
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

/* PSS for weights W_AF:W_CS0 and an expected EF rate, fixed capacity
 * (LR = 0, §2.4), or with memory LR (LM = eq. 5 + LR, credit_init = LR so
 * that the run does not open with LR/(C BW) seconds of CS0 starvation). */
static double set_pss(struct sim_config *sc, double w_af, double w_cs0,
		      double ef_exp_bps, double lr_bytes, int idle_credit)
{
	double bw = b_eq4(w_af, w_cs0) * (C - ef_exp_bps) / C;
	char text[256];

	snprintf(text, sizeof(text), "bw = %.12f; lm = %.0fL; lr = %.0fL; "
		 "credit_init = %.0fL; idle_credit = %s;", bw,
		 lm_eq5_bytes(w_af, bw) + lr_bytes, lr_bytes, lr_bytes,
		 idle_credit ? "true" : "false");
	set_sched(sc, "pss", text);
	return bw;
}

static void run(struct sim_config *sc, struct sim_result *r)
{
	assert_int_equal(sim_run(sc, r), 0);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* |got - want| <= tol * ref, printed either way. */
static void check(const char *what, double got, double want, double tol,
		  double ref)
{
	double err = fabs(got - want) / ref;

	print_message("  %-40s %8.4f Mbit/s, theory %8.4f (%+.2f %% of "
		      "%.2f Mbit/s, tolerance %.1f %%)\n", what, got / MBIT,
		      want / MBIT, 100 * (got - want) / ref, ref / MBIT,
		      100 * tol);
	assert_true(err <= tol);
}

/* ---- Fig. 5: DWRR shares the residual capacity by eq. 1, 2 and 6 ---- */

/* DWRR with quanta W_i L (weights 9:2): AF gets K_AF (C - R_EF) (eq. 1),
 * CS0 (1 - K_AF)(C - R_EF) (eq. 6), for R_EF = 0.25, 0.5, 0.75 C.  DRR
 * gives the backlogged classes exactly their quanta every round, so the
 * error is the window edge (a packet in 90 s, < 0.01 %); 2 % is the
 * issue's tolerance, taken relative to each rate. */
static void test_dwrr_eq1_eq6(void **state)
{
	static const double ef_frac[] = { 0.25, 0.5, 0.75 };
	double k = k_af(9, 2);
	unsigned i;

	(void)state;
	print_message("  DWRR 9:2, K_AF = %.4f\n", k);
	for (i = 0; i < 3; i++) {
		struct sim_config sc;
		struct sim_result r;
		double ef = ef_frac[i] * C, af_th = k * (C - ef);
		double cs0_th = (1 - k) * (C - ef);
		char what[64];

		base_cfg(&sc, ef, 0);
		set_sched(&sc, "dwrr", "weights = { af = 9; cs0 = 2; }; "
			  "packet_size = 1500;");
		run(&sc, &r);
		snprintf(what, sizeof(what), "R_EF = %.2f C: EF", ef_frac[i]);
		check(what, r.mean_bps[CLS_EF], ef, 0.005, ef);
		snprintf(what, sizeof(what), "R_EF = %.2f C: AF (eq. 1)", ef_frac[i]);
		check(what, r.mean_bps[CLS_AF], af_th, 0.02, af_th);
		snprintf(what, sizeof(what), "R_EF = %.2f C: CS0 (eq. 6)", ef_frac[i]);
		check(what, r.mean_bps[CLS_CS0], cs0_th, 0.02, cs0_th);
	}
}

/* ---- Fig. 6: PSS with R_EF^exp = 0.5 C, eq. 7 and 8 ----------------- */

/* PSS set for R_EF^exp = 0.5 C from weights 9:2 (B = 8/9 = 0.889,
 * K_AF = 9/11 = 0.818, BW = 0.444, LM = 6667 bytes, LR = 0).
 *  - While C - R_EF leaves room (R_EF = 0.25 C and 0.5 C), AF's output
 *    does not follow R_EF: the two rates agree within 2 % (the issue's
 *    tolerance; a DWRR would move by K_AF x 0.25 C = 4.1 Mbit/s, 50 %).
 *  - When it does not (R_EF = 0.75 C: K_AF (C - R_EF^exp) = 8.2 >
 *    C - R_EF = 5 Mbit/s), AF gets C - R_EF, eq. 7's min (2 % of C).
 *  - CS0 takes the rest, eq. 8: C - R_EF - R_AF (2 % of C).
 * Where AF sits between: eq. 7 predicts K_AF (C - R_EF^exp) = 8.18, the
 * credit's own balance BW C = 8.89 Mbit/s.  Algorithm 1 counts every
 * packet another class sends while AF waits, EF's included, as idle time
 * (lines 2-5), which eq. 7's derivation (hypothesis 1 of §2.4: "the
 * presence of EF traffic is not considered when computing the windows")
 * leaves out; so the measured rate lies between the two, and is checked
 * to (with 2 % of slack on each side). */
static void test_pss_eq7_eq8(void **state)
{
	static const double ef_frac[] = { 0.25, 0.5, 0.75 };
	double k = k_af(9, 2), ef_exp = 0.5 * C, bw = 0, af[3];
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct sim_config sc;
		struct sim_result r;
		double ef = ef_frac[i] * C;
		double af7 = fmin(k * (C - ef_exp), C - ef);
		char what[80];

		base_cfg(&sc, ef, 0);
		bw = set_pss(&sc, 9, 2, ef_exp, 0, 1);
		run(&sc, &r);
		af[i] = r.mean_bps[CLS_AF];
		print_message("  R_EF = %.2f C: AF %.4f Mbit/s; eq. 7 K_AF (C - "
			      "R_EF^exp) = %.4f, C - R_EF = %.4f, BW C = %.4f "
			      "(B = %.4f, K_AF = %.4f, BW = %.4f, LM = %.0f)\n",
			      ef_frac[i], af[i] / MBIT, k * (C - ef_exp) / MBIT,
			      (C - ef) / MBIT, bw * C / MBIT, b_eq4(9, 2), k, bw,
			      lm_eq5_bytes(9, bw));
		snprintf(what, sizeof(what), "R_EF = %.2f C: EF", ef_frac[i]);
		check(what, r.mean_bps[CLS_EF], ef, 0.005, ef);
		if (i == 2) {
			snprintf(what, sizeof(what), "R_EF = %.2f C: AF = C - R_EF "
				 "(eq. 7)", ef_frac[i]);
			check(what, af[i], af7, 0.02, C);
		} else {
			assert_true(af[i] >= 0.98 * k * (C - ef_exp));
			assert_true(af[i] <= 1.02 * bw * C);
		}
		snprintf(what, sizeof(what), "R_EF = %.2f C: CS0 (eq. 8)", ef_frac[i]);
		check(what, r.mean_bps[CLS_CS0], fmax(C - ef - af[i], 0), 0.02, C);
	}
	check("AF at R_EF = 0.25 C vs at 0.5 C", af[0], af[1], 0.02, af[1]);
}

/* ---- Fig. 7/8: variable capacity and the LR memory -------------------- */

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
	double ef_avg = 0.75 * C, bw, lr, target;

	(void)state;
	base_cfg(&sc, ef_avg, 0.6);
	cosine_link(&sc);
	bw = b_eq4(81, 19) * (C - ef_avg) / C;
	lr = round(C_PERIOD_S * C_BYTES_S * bw);
	target = bw * C;
	set_pss(&sc, 81, 19, ef_avg, lr, 1);
	run(&sc, &with);
	set_pss(&sc, 81, 19, ef_avg, 0, 1);
	run(&sc, &without);
	print_message("  Fig. 8: BW = %.4f, LR = %.0f bytes, LM = %.0f bytes, "
		      "target BW C_avg = %.4f Mbit/s, eq. 7 K_AF (C - EF_avg) "
		      "= %.4f\n", bw, lr, lm_eq5_bytes(81, bw) + lr, target / MBIT,
		      k_af(81, 19) * (C - ef_avg) / MBIT);
	print_message("  Fig. 8: EF carried %.4f, CS0 with memory %.4f, "
		      "without %.4f Mbit/s\n", with.mean_bps[CLS_EF] / MBIT,
		      with.mean_bps[CLS_CS0] / MBIT,
		      without.mean_bps[CLS_CS0] / MBIT);
	check("AF long-run, with LR memory", with.mean_bps[CLS_AF], target,
	      0.02, target);
	print_message("  AF long-run, without memory: %.4f Mbit/s = %.1f %% "
		      "of the target (must be < 90 %%)\n",
		      without.mean_bps[CLS_AF] / MBIT,
		      100 * without.mean_bps[CLS_AF] / target);
	assert_true(without.mean_bps[CLS_AF] < 0.9 * target);
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
	double bw, lr;

	memset(&acc, 0, sizeof(acc));
	acc.stats = tmpfile();
	assert_non_null(acc.stats);
	base_cfg(&sc, ef_avg, 0.6);
	cosine_link(&sc);
	bw = b_eq4(81, 19) * (C - ef_avg) / C;
	lr = round(C_PERIOD_S * C_BYTES_S * bw);
	set_pss(&sc, 81, 19, ef_avg, lr, idle_credit);
	acc.lr_bytes = lr;
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
	*bw_out = bw;
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
	check("regained, C > C_avg, with dtime < 0", g_on, bw * C, 0.02, bw * C);
	check("long-run, with dtime < 0", m_on, bw * C, 0.02, bw * C);
	print_message("  regained, C > C_avg, without dtime < 0: %+.1f %% of "
		      "the target (must be > +5 %%)\n",
		      100 * (g_off - bw * C) / (bw * C));
	assert_true(g_off > 1.05 * bw * C);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwrr_eq1_eq6),
		cmocka_unit_test(test_pss_eq7_eq8),
		cmocka_unit_test(test_pss_lr_memory),
		cmocka_unit_test(test_pss_idle_credit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
