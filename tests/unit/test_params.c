/* test_params.c - the PSS parameter calculator (`schedtun params pss`).
 *
 * Every expected value is computed by hand from the equations of Finzi et
 * al. 2023 (the arithmetic is in the comments), not by the code under
 * test.  Rates in bit/s, sizes, LM and LR in bytes, BW a fraction of C.
 */
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

#include "conf.h"
#include "diag.h"
#include "params.h"
#include "sched.h"

#define MBIT 1000000ull

/* |a - b| <= tol, with both values in the failure message. */
#define assert_near(a, b, tol) do {                                       \
	double a_ = (a), b_ = (b);                                        \
	if (!(fabs(a_ - b_) <= (tol)))                                    \
		fail_msg("%s = %.9g, expected %.9g (+- %g)", #a, a_, b_,  \
			 (double)(tol));                                  \
} while (0)

/* ---- helpers ------------------------------------------------------------ */

/* The 9:2 example: W_AF = 9, W_CS0 = 2, L = 1500 bytes both, C = 20
 * Mbit/s, R_EF^exp = 10 Mbit/s, R_EF = R_EF^exp, LR fixed. */
static struct params_in in_9_2(void)
{
	struct params_in in;

	memset(&in, 0, sizeof(in));
	in.w_af = 9;
	in.w_cs0 = 2;
	in.l_af_bytes = 1500;
	in.l_cs0_bytes = 1500;
	in.capacity_bps = 20 * MBIT;
	in.ef_exp_bps = 10 * MBIT;
	in.lr_mode = PARAMS_LR_FIXED;
	return in;
}

static void compute_ok(const struct params_in *in, struct params_out *o)
{
	char err[1024] = "";

	if (params_compute(in, o, err, sizeof(err)) != 0)
		fail_msg("params_compute refused: %s", err);
}

/* params_compute must refuse `in` with exactly `expected`. */
static void compute_bad(const struct params_in *in, const char *expected)
{
	struct params_out o;
	char err[1024] = "";

	assert_int_equal(params_compute(in, &o, err, sizeof(err)), -1);
	assert_string_equal(err, expected);
}

static char *g_out, *g_err;     /* what the last cli() printed */

static void drop_text(void)
{
	free(g_out);
	free(g_err);
	g_out = g_err = NULL;
}

/* Runs `schedtun params <line>` (blank-separated words) through
 * params_cli, capturing stdout and stderr; returns the exit code. */
static int cli(const char *line)
{
	char *copy = strdup(line), *argv[64], *save = NULL, *w;
	size_t lo = 0, le = 0;
	FILE *out, *err;
	int argc = 0, rc;

	assert_non_null(copy);
	drop_text();
	argv[argc++] = (char *)"params";
	for (w = strtok_r(copy, " ", &save); w && argc < 63;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	out = open_memstream(&g_out, &lo);
	err = open_memstream(&g_err, &le);
	assert_non_null(out);
	assert_non_null(err);
	rc = params_cli(argc, argv, out, err);
	fclose(out);
	fclose(err);
	free(copy);
	return rc;
}

static void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' not found in:\n%s", needle, hay);
}

#define BASE_9_2 "pss --w-af 9 --w-cs0 2 --l-af 1500 --l-cs0 1500 " \
		 "--capacity 20Mbit --ef-exp 10Mbit"

/* ---- the equations, one by one ------------------------------------------ */

static void test_eqs_9_2(void **state)
{
	(void)state;
	/* eq. 2: K_AF = 9*1500 / (9*1500 + 2*1500) = 13500 / 16500
	 *             = 9/11 = 0.818181... */
	assert_near(params_k_af(9, 1500, 2, 1500), 9.0 / 11.0, 1e-12);
	/* eq. 4: B = 8*1500 / (8*1500 + 1*1500) = 12000 / 13500 = 8/9
	 *          = 0.888888... */
	assert_near(params_b(9, 1500, 2, 1500), 8.0 / 9.0, 1e-12);
	/* eq. 3 as a fraction: BW = 8/9 * (20 - 10) / 20 = 4/9 = 0.4444... */
	assert_near(params_bw(8.0 / 9.0, 20 * MBIT, 10 * MBIT), 4.0 / 9.0,
		    1e-12);
	/* eq. 5: LM = 1500 * 8 * (1 - 4/9) = 12000 * 5/9 = 6666.67 bytes */
	assert_near(params_lm_eq5_bytes(1500, 9, 4.0 / 9.0), 6666.6667, 1e-3);
	/* 2.1: LR >= L_max * BW = 1500 * 4/9 = 666.67 bytes */
	assert_near(params_lr_bound_bytes(1500, 4.0 / 9.0), 666.6667, 1e-3);
	/* 4.2.1: LR = T * C * BW = 15 s * (20e6 / 8 = 2.5e6 B/s) * 4/9
	 *           = 37.5e6 * 4/9 = 16,666,666.67 bytes */
	assert_near(params_lr_period_bytes(15 * 1000000000ull, 20 * MBIT,
					   4.0 / 9.0), 16666666.667, 1e-2);
	/* DWRR: 9 * 1500 = 13500, 2 * 1500 = 3000 */
	assert_int_equal(params_quantum_bytes(9, 1500), 13500);
	assert_int_equal(params_quantum_bytes(2, 1500), 3000);
}

static void test_compute_9_2(void **state)
{
	struct params_in in = in_9_2();
	struct params_out o;

	(void)state;
	compute_ok(&in, &o);
	assert_near(o.k_af, 0.8181818182, 1e-9);
	assert_near(o.b, 0.8888888889, 1e-9);
	assert_near(o.bw, 0.4444444444, 1e-9);
	assert_near(o.lm_eq5_bytes, 6666.6667, 1e-3);
	/* LR fixed: 0; LM = round(6666.67) = 6667 */
	assert_int_equal(o.lr_bytes, 0);
	assert_int_equal(o.lm_bytes, 6667);
	assert_int_equal(o.quantum_af_bytes, 13500);
	assert_int_equal(o.quantum_cs0_bytes, 3000);
	/* defaults: L_EF = max(1500, 1500); L_max = max of the three;
	 * R_EF = R_EF^exp */
	assert_int_equal(o.l_ef_bytes, 1500);
	assert_int_equal(o.l_max_bytes, 1500);
	assert_int_equal(o.ef_bps, 10 * MBIT);
	/* eq. 1: 9/11 * (20 - 10) = 8.181818 Mbit/s;
	 * eq. 6: 2/11 * 10 = 1.818182 Mbit/s; eq. 7 = eq. 1 and eq. 8 =
	 * eq. 6 when EF is as expected */
	assert_near(o.wrr_af_bps, 8181818.18, 0.01);
	assert_near(o.wrr_cs0_bps, 1818181.82, 0.01);
	assert_near(o.pss_af_bps, 8181818.18, 0.01);
	assert_near(o.pss_cs0_bps, 1818181.82, 0.01);
	assert_int_equal(o.eq7_limited, 0);
}

static void test_lr_choices(void **state)
{
	struct params_in in = in_9_2();
	struct params_out o;

	(void)state;
	/* bound: ceil(1500 * 4/9 = 666.67) = 667; LM = 6667 + 667 = 7334 */
	in.lr_mode = PARAMS_LR_BOUND;
	compute_ok(&in, &o);
	assert_near(o.lr_exact_bytes, 666.6667, 1e-3);
	assert_int_equal(o.lr_bytes, 667);
	assert_int_equal(o.lm_bytes, 7334);

	/* --l-max 9000: 9000 * 4/9 = 4000 exactly; LM = 6667 + 4000 */
	in.l_max_bytes = 9000;
	compute_ok(&in, &o);
	assert_int_equal(o.l_max_bytes, 9000);
	assert_int_equal(o.lr_bytes, 4000);
	assert_int_equal(o.lm_bytes, 10667);
	in.l_max_bytes = 0;

	/* L_max takes the largest of the three classes: --l-ef 9000 too */
	in.l_ef_bytes = 9000;
	compute_ok(&in, &o);
	assert_int_equal(o.l_max_bytes, 9000);
	assert_int_equal(o.lr_bytes, 4000);
	in.l_ef_bytes = 0;

	/* period 15 s: 15 * 2.5e6 * 4/9 = 16,666,666.67 -> 16,666,667;
	 * LM = 6667 + 16,666,667 = 16,673,334 (LM - LR stays eq. 5) */
	in.lr_mode = PARAMS_LR_PERIOD;
	in.lr_period_ns = 15 * 1000000000ull;
	compute_ok(&in, &o);
	assert_near(o.lr_exact_bytes, 16666666.667, 1e-2);
	assert_int_equal(o.lr_bytes, 16666667);
	assert_int_equal(o.lm_bytes, 16673334);
	/* start-up from credit 0: the credit climbs at
	 * (C - R_EF)(1 - BW) - R_EF BW = 10e6 * 5/9 - 10e6 * 4/9
	 * = 1.111e6 bit/s = 138,888.9 B/s; 16,673,334 / 138,888.9 = 120.05 s */
	assert_near(o.startup_s, 120.048, 1e-2);

	/* bytes as given: LM = 6667 + 5000 */
	in.lr_mode = PARAMS_LR_BYTES;
	in.lr_bytes = 5000;
	compute_ok(&in, &o);
	assert_int_equal(o.lr_bytes, 5000);
	assert_int_equal(o.lm_bytes, 11667);
}

static void test_unequal_sizes(void **state)
{
	struct params_in in = in_9_2();
	struct params_out o;

	(void)state;
	/* W 9:2, L_AF = 1000, L_CS0 = 500, C = 20M, R_EF^exp = 10M:
	 * K_AF = 9000 / (9000 + 1000) = 0.9
	 * B    = 8000 / (8000 + 500)  = 16/17 = 0.941176...
	 * BW   = 16/17 * 10/20 = 8/17 = 0.470588...
	 * LM   = 1000 * 8 * (1 - 8/17) = 8000 * 9/17 = 4235.29 -> 4235
	 * LR bound: L_max = max(1000, 500, L_EF = max(1000, 500)) = 1000;
	 *      1000 * 8/17 = 470.59 -> 471; LM = 4235 + 471 = 4706
	 * quanta 9 * 1000 = 9000, 2 * 500 = 1000 */
	in.l_af_bytes = 1000;
	in.l_cs0_bytes = 500;
	in.lr_mode = PARAMS_LR_BOUND;
	compute_ok(&in, &o);
	assert_near(o.k_af, 0.9, 1e-12);
	assert_near(o.b, 16.0 / 17.0, 1e-12);
	assert_near(o.bw, 8.0 / 17.0, 1e-12);
	assert_near(o.lm_eq5_bytes, 4235.294, 1e-3);
	assert_int_equal(o.l_ef_bytes, 1000);
	assert_int_equal(o.l_max_bytes, 1000);
	assert_int_equal(o.lr_bytes, 471);
	assert_int_equal(o.lm_bytes, 4706);
	assert_int_equal(o.quantum_af_bytes, 9000);
	assert_int_equal(o.quantum_cs0_bytes, 1000);

	/* W 4:3, L_AF = 500, L_CS0 = 1500, L_EF = 200, C = 20M,
	 * R_EF^exp = 5M:
	 * K_AF = 4*500 / (4*500 + 3*1500) = 2000 / 6500 = 4/13 = 0.307692
	 * B    = 3*500 / (3*500 + 2*1500) = 1500 / 4500 = 1/3
	 * BW   = 1/3 * 15/20 = 0.25
	 * LM   = 500 * 3 * 0.75 = 1125
	 * LR bound: L_max = max(500, 1500, 200) = 1500; 1500 * 0.25 = 375,
	 *      an integer: not rounded up to 376 by a rounding error;
	 *      LM = 1125 + 375 = 1500
	 * quanta 2000 and 4500 */
	in.w_af = 4;
	in.w_cs0 = 3;
	in.l_af_bytes = 500;
	in.l_cs0_bytes = 1500;
	in.l_ef_bytes = 200;
	in.ef_exp_bps = 5 * MBIT;
	compute_ok(&in, &o);
	assert_near(o.k_af, 4.0 / 13.0, 1e-12);
	assert_near(o.b, 1.0 / 3.0, 1e-12);
	assert_near(o.bw, 0.25, 1e-12);
	assert_near(o.lm_eq5_bytes, 1125.0, 1e-9);
	assert_int_equal(o.l_max_bytes, 1500);
	assert_int_equal(o.lr_bytes, 375);
	assert_int_equal(o.lm_bytes, 1500);
	assert_int_equal(o.quantum_af_bytes, 2000);
	assert_int_equal(o.quantum_cs0_bytes, 4500);
}

/* Fig. 6 of the paper: R_EF^exp = 0.5 C while R_EF = 0.25, 0.5, 0.75 C. */
static void test_eq7_eq8_branches(void **state)
{
	struct params_in in = in_9_2();
	struct params_out o;

	(void)state;
	in.has_ef = 1;

	/* R_EF = 0.25 C = 5M: eq. 7 = min(9/11 * 10, 20 - 5)
	 * = min(8.1818, 15) = 8.1818 (the reservation);
	 * eq. 8 = max(20 - 5 - 8.1818, 0) = 6.8182;
	 * eq. 1 = 9/11 * 15 = 12.2727; eq. 6 = 2/11 * 15 = 2.7273 */
	in.ef_bps = 5 * MBIT;
	compute_ok(&in, &o);
	assert_near(o.pss_af_bps, 8181818.18, 0.01);
	assert_near(o.pss_cs0_bps, 6818181.82, 0.01);
	assert_near(o.wrr_af_bps, 12272727.27, 0.01);
	assert_near(o.wrr_cs0_bps, 2727272.73, 0.01);
	assert_int_equal(o.eq7_limited, 0);

	/* R_EF = 0.5 C = 10M: min(8.1818, 10) = 8.1818; 20 - 10 - 8.1818
	 * = 1.8182; DWRR the same (9/11 * 10, 2/11 * 10) */
	in.ef_bps = 10 * MBIT;
	compute_ok(&in, &o);
	assert_near(o.pss_af_bps, 8181818.18, 0.01);
	assert_near(o.pss_cs0_bps, 1818181.82, 0.01);
	assert_near(o.wrr_af_bps, 8181818.18, 0.01);
	assert_near(o.wrr_cs0_bps, 1818181.82, 0.01);
	assert_int_equal(o.eq7_limited, 0);

	/* R_EF = 0.75 C = 15M: min(8.1818, 20 - 15 = 5) = 5 (EF-limited);
	 * eq. 8 = max(20 - 15 - 5, 0) = 0;
	 * eq. 1 = 9/11 * 5 = 4.0909; eq. 6 = 2/11 * 5 = 0.9091 */
	in.ef_bps = 15 * MBIT;
	compute_ok(&in, &o);
	assert_near(o.pss_af_bps, 5000000.0, 0.01);
	assert_near(o.pss_cs0_bps, 0.0, 0.01);
	assert_true(o.pss_cs0_bps >= 0.0);
	assert_near(o.wrr_af_bps, 4090909.09, 0.01);
	assert_near(o.wrr_cs0_bps, 909090.91, 0.01);
	assert_int_equal(o.eq7_limited, 1);

	/* the pure functions: eq. 8's max clamps a negative residue */
	assert_near(params_pss_cs0_bps(6e6, 20 * MBIT, 15 * MBIT), 0.0, 0.0);
	assert_near(params_pss_af_bps(9.0 / 11.0, 20 * MBIT, 10 * MBIT,
				      20 * MBIT), 0.0, 1e-6);
}

/* ---- rejections, exact text --------------------------------------------- */

static void test_reject_w1(void **state)
{
	struct params_in in = in_9_2();

	(void)state;
	in.w_af = 1;
	compute_bad(&in, "--w-af: 1 is not accepted: eq. 4 counts W_AF - 1 "
		    "AF packets per window (the W-th goes out by "
		    "non-preemption, unseen by the credit), so W_AF = 1 "
		    "gives B = 0, BW = 0 and LM = 0: AF would lose p_high "
		    "after one packet and never regain it (accepted: an "
		    "integer 2..10000)");
	in.w_af = 9;
	in.w_cs0 = 1;
	compute_bad(&in, "--w-cs0: 1 is not accepted: eq. 4 counts "
		    "W_CS0 - 1 CS0 packets per window (the W-th goes out by "
		    "non-preemption, unseen by the credit), so W_CS0 = 1 "
		    "gives B = 1 and BW = (C - R_EF^exp)/C: AF would be "
		    "reserved all that EF leaves and CS0 would starve "
		    "(accepted: an integer 2..10000)");
}

static void test_reject_ranges(void **state)
{
	struct params_in in = in_9_2();

	(void)state;
	in.w_af = 0;
	compute_bad(&in, "--w-af: 0 is out of range (accepted: an integer "
		    "2..10000)");
	in.w_af = 10001;
	compute_bad(&in, "--w-af: 10001 is out of range (accepted: an "
		    "integer 2..10000)");
	in = in_9_2();
	in.w_cs0 = 0;
	compute_bad(&in, "--w-cs0: 0 is out of range (accepted: an integer "
		    "2..10000)");

	in = in_9_2();
	in.l_af_bytes = 63;
	compute_bad(&in, "--l-af: 63 is out of range (accepted: 64..65535 "
		    "bytes)");
	in.l_af_bytes = 65536;
	compute_bad(&in, "--l-af: 65536 is out of range (accepted: "
		    "64..65535 bytes)");
	in = in_9_2();
	in.l_cs0_bytes = 40;
	compute_bad(&in, "--l-cs0: 40 is out of range (accepted: 64..65535 "
		    "bytes)");
	in = in_9_2();
	in.l_ef_bytes = 70000;
	compute_bad(&in, "--l-ef: 70000 is out of range (accepted: "
		    "64..65535 bytes)");
	in = in_9_2();
	in.l_max_bytes = 1000;
	compute_bad(&in, "--l-max: 1000 is below the largest packet size "
		    "given (1500) (accepted: 1500..65535 bytes: the largest "
		    "packet of AF, CS0 and EF)");

	in = in_9_2();
	in.ef_exp_bps = 20 * MBIT;
	compute_bad(&in, "--ef-exp: 20Mbit is not below --capacity 20Mbit "
		    "(accepted: 0 <= R_EF^exp < C; eq. 3 would leave BW <= 0)");
	in.ef_exp_bps = 25 * MBIT;
	compute_bad(&in, "--ef-exp: 25Mbit is not below --capacity 20Mbit "
		    "(accepted: 0 <= R_EF^exp < C; eq. 3 would leave BW <= 0)");
	in = in_9_2();
	in.has_ef = 1;
	in.ef_bps = 20 * MBIT + 1;
	compute_bad(&in, "--ef: 20000001bit is above --capacity 20Mbit "
		    "(accepted: 0 <= R_EF <= C)");
	in.ef_bps = 20 * MBIT;          /* R_EF = C is allowed: AF gets 0 */
	{
		struct params_out o;

		compute_ok(&in, &o);
		assert_near(o.pss_af_bps, 0.0, 1e-6);
		assert_near(o.wrr_af_bps, 0.0, 1e-6);
	}

	in = in_9_2();
	in.capacity_bps = 0;
	compute_bad(&in, "--capacity: 0 is not a capacity (accepted: a rate "
		    "above 0, e.g. 20Mbit; not unlimited: BW is a fraction "
		    "of it)");

	in = in_9_2();
	in.lr_mode = PARAMS_LR_PERIOD;
	in.lr_period_ns = 0;
	compute_bad(&in, "--lr: period:0s is out of range (accepted: "
		    "period:DURATION with 0 < DURATION <= 86400s)");
	in.lr_period_ns = 86401 * 1000000000ull;
	compute_bad(&in, "--lr: period:86401s is out of range (accepted: "
		    "period:DURATION with 0 < DURATION <= 86400s)");
	in = in_9_2();
	in.lr_mode = PARAMS_LR_BYTES;
	in.lr_bytes = 1000000000001ull;
	compute_bad(&in, "--lr: 1000000000001 is out of range (accepted: "
		    "0..1000000000000 bytes)");
	/* LR at the limit is fine, LM = LR + eq. 5 is not */
	in.lr_bytes = 1000000000000ull;
	compute_bad(&in, "--lr: LM = eq. 5 + LR = 1000000006667 bytes is too "
		    "large (accepted: LM <= 1000000000000 bytes; choose a "
		    "smaller LR)");
}

static void test_cli_errors(void **state)
{
	(void)state;
	assert_int_equal(cli("pss --w-af 1 --w-cs0 2 --l-af 1500 --l-cs0 1500 "
			     "--capacity 20Mbit --ef-exp 10Mbit"), 1);
	assert_contains(g_err, "schedtun params: --w-af: 1 is not accepted: "
			"eq. 4 counts W_AF - 1");
	assert_string_equal(g_out, "");

	assert_int_equal(cli(BASE_9_2 " --w-af -3"), 1);
	assert_string_equal(g_err, "schedtun params: --w-af: '-3' is not a "
			    "weight (accepted: an integer 2..10000)\n");
	assert_int_equal(cli(BASE_9_2 " --w-cs0 2x"), 1);
	assert_string_equal(g_err, "schedtun params: --w-cs0: '2x' is not a "
			    "weight (accepted: an integer 2..10000)\n");
	assert_int_equal(cli(BASE_9_2 " --l-af 1.5k"), 1);
	assert_string_equal(g_err, "schedtun params: --l-af: '1.5k' is not a "
			    "packet size (accepted: an integer 64..65535, "
			    "bytes)\n");
	assert_int_equal(cli(BASE_9_2 " --l-ef 0"), 1);
	assert_string_equal(g_err, "schedtun params: --l-ef: 0 is out of "
			    "range (accepted: 64..65535 bytes)\n");
	assert_int_equal(cli(BASE_9_2 " --lr foo"), 1);
	assert_string_equal(g_err, "schedtun params: --lr: 'foo' is not an "
			    "LR choice (accepted: fixed, bound, "
			    "period:DURATION, or a number of bytes "
			    "0..1000000000000)\n");
	assert_int_equal(cli(BASE_9_2 " --lr period:15 --no-sim"), 0);
	assert_int_equal(cli(BASE_9_2 " --lr period:fast"), 1);
	assert_string_equal(g_err, "schedtun params: --lr: 'fast' is not a "
			    "duration (accepted: a number >= 0 with ns, us, "
			    "ms, s (also nsec, usec, msec, sec, secs); a "
			    "plain number is seconds)\n");
	assert_int_equal(cli(BASE_9_2 " --ef fast"), 1);
	assert_contains(g_err, "schedtun params: --ef: 'fast' is not a rate "
			"(accepted: ");
	assert_contains(g_err, "; or 0 for no EF\n");
	assert_int_equal(cli(BASE_9_2 " --capacity unlimited"), 1);
	assert_contains(g_err, "schedtun params: --capacity: 'unlimited' is "
			"not a rate: \"unlimited\" is not allowed here");
	assert_int_equal(cli(BASE_9_2 " --sim-time 5s"), 1);
	assert_string_equal(g_err, "schedtun params: --sim-time: '5s' is out "
			    "of range (accepted: 10s..3600s)\n");

	assert_int_equal(cli("pss --w-af 9"), 1);
	assert_string_equal(g_err,
		"schedtun params: --w-cs0 is required (see schedtun params --help)\n"
		"schedtun params: --l-af is required (see schedtun params --help)\n"
		"schedtun params: --l-cs0 is required (see schedtun params --help)\n"
		"schedtun params: --capacity is required (see schedtun params --help)\n"
		"schedtun params: --ef-exp is required (see schedtun params --help)\n");
	assert_int_equal(cli(BASE_9_2 " --bogus"), 1);
	assert_string_equal(g_err, "schedtun params: unknown option '--bogus' "
			    "(see schedtun params --help)\n");
	assert_int_equal(cli(BASE_9_2 " --lr"), 1);
	assert_string_equal(g_err, "schedtun params: --lr needs a value (see "
			    "schedtun params --help)\n");
	assert_int_equal(cli(BASE_9_2 " extra"), 1);
	assert_string_equal(g_err, "schedtun params: unexpected argument "
			    "'extra' (see schedtun params --help)\n");
	assert_int_equal(cli("wrr"), 1);
	assert_contains(g_err, "schedtun params: 'wrr' is not a calculator "
			"(accepted: pss)\n");
	assert_int_equal(cli(""), 1);
	assert_contains(g_err, "schedtun params: what to compute? (accepted: "
			"pss)\n");
	drop_text();
}

static void test_cli_help(void **state)
{
	(void)state;
	assert_int_equal(cli("--help"), 0);
	assert_contains(g_out, "usage: schedtun params pss --w-af N");
	assert_contains(g_out, "--lr CHOICE");
	assert_contains(g_out, "period:DURATION");
	assert_contains(g_out, "--no-sim");
	assert_string_equal(g_err, "");
	assert_int_equal(cli("pss --help"), 0);
	assert_contains(g_out, "usage: schedtun params pss");
	drop_text();
}

/* ---- the report --------------------------------------------------------- */

static void test_cli_report_9_2(void **state)
{
	(void)state;
	assert_int_equal(cli(BASE_9_2 " --no-sim"), 0);
	assert_string_equal(g_err, "");
	assert_contains(g_out, "K_AF = 0.818182\n    eq. 2: W_AF*L_AF / "
			"(W_AF*L_AF + W_CS0*L_CS0) = 9*1500 / (9*1500 + "
			"2*1500) = 13500 / 16500\n");
	assert_contains(g_out, "B = 0.888889\n    eq. 4: (W_AF-1)*L_AF / "
			"((W_AF-1)*L_AF + (W_CS0-1)*L_CS0) = 8*1500 / "
			"(8*1500 + 1*1500) = 12000 / 13500\n");
	assert_contains(g_out, "BW = 0.444444 (of C)\n    eq. 3 as a "
			"fraction of C: B*(C - R_EF^exp)/C = "
			"0.888889*(20 - 10)/20 [Mbit/s]");
	assert_contains(g_out, "LR = 0 bytes\n    2.4: fixed capacity");
	assert_contains(g_out, "LM = 6667 bytes\n    eq. 5: L_AF*(W_AF-1)*"
			"(1 - BW) = 1500*8*(1 - 0.444444) = 6666.67, "
			"rounded\n");
	assert_contains(g_out, "DWRR quantum AF = 13500 bytes\n");
	assert_contains(g_out, "DWRR quantum CS0 = 3000 bytes\n");
	assert_contains(g_out,
		"scheduler = {\n"
		"  name = \"pss\";\n"
		"  pss  = { bw = 0.444444444; lm = 6667; lr = 0; capacity = "
		"\"20Mbit\"; };   # eq. 3-5\n"
		"  dwrr = { quantum = { af = 13500; cs0 = 3000; }; };"
		"                      # same weights\n"
		"};\n");
	assert_contains(g_out, "DWRR AF = 8.182 Mbit/s\n    eq. 1: ");
	assert_contains(g_out, "DWRR CS0 = 1.818 Mbit/s\n    eq. 6: ");
	assert_contains(g_out, "PSS AF = 8.182 Mbit/s\n    eq. 7: min(K_AF*"
			"(C - R_EF^exp), C - R_EF) = min(0.818182*(20 - 10), "
			"20 - 10) = min(8.18182, 10): AF gets its "
			"reservation\n");
	assert_contains(g_out, "PSS CS0 = 1.818 Mbit/s\n    eq. 8: ");
	assert_null(strstr(g_out, "simulated"));

	/* LR period: LM = eq. 5 + LR, and the start-up is reported */
	assert_int_equal(cli(BASE_9_2 " --lr period:15s --no-sim"), 0);
	assert_contains(g_out, "LR = 16666667 bytes\n    4.2.1 (--lr "
			"period:15s): T*C*BW = 15 s * 2.5e+06 bytes/s * "
			"0.444444 = 16666666.67, rounded\n");
	assert_contains(g_out, "LM = 16673334 bytes\n");
	assert_contains(g_out, ", + LR = 16666667 (sections 2.1, 2.3)\n");
	assert_contains(g_out, "start-up = 120.0 s\n");
	assert_contains(g_out, "lm = 16673334; lr = 16666667;");
	assert_contains(g_out, "add credit_init = 16666667;\n");

	/* --ef: eq. 7 takes C - R_EF */
	assert_int_equal(cli(BASE_9_2 " --ef 15Mbit --no-sim"), 0);
	assert_contains(g_out, "PSS AF = 5.000 Mbit/s\n");
	assert_contains(g_out, "EF leaves less than AF's reservation\n");
	assert_contains(g_out, "PSS CS0 = 0.000 Mbit/s\n");
	assert_contains(g_out, "DWRR AF = 4.091 Mbit/s\n");

	/* "0" is no EF: BW = B */
	assert_int_equal(cli("pss --w-af 9 --w-cs0 2 --l-af 1500 --l-cs0 1500 "
			     "--capacity 20Mbit --ef-exp 0 --no-sim"), 0);
	assert_contains(g_out, "BW = 0.888889 (of C)\n");
	/* LM = 1500 * 8 * (1 - 8/9) = 1333.33 -> 1333 */
	assert_contains(g_out, "LM = 1333 bytes\n");
	drop_text();
}

/* The printed block must be a configuration file this build loads. */
static void load_block(const struct params_in *in, int *loaded)
{
	static struct conf c;
	struct params_out o;
	char path[] = "/tmp/test-params-XXXXXX";
	struct diag d;
	FILE *f;
	int fd, n;

	*loaded = 0;
	compute_ok(in, &o);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	/* only_registered = 0 is the text the user sees; when dwrr is not
	 * built, its group would be an unknown key: let it be commented */
	params_write_conf(f, in, &o, sched_lookup("dwrr") == NULL);
	assert_int_equal(fclose(f), 0);
	diag_init(&d, stderr, path);
	n = conf_load(path, &c, &d);
	unlink(path);
	assert_int_equal(n, 0);
	assert_ptr_equal(c.sched, sched_lookup("pss"));
	conf_free(&c);
	*loaded = 1;
}

static void test_block_loads(void **state)
{
	struct params_in in = in_9_2();
	int loaded;

	(void)state;
	if (!sched_lookup("pss")) {
		print_message("scheduler pss is not registered in this build: "
			      "the block cannot load yet\n");
		skip();
	}
	if (!sched_lookup("dwrr"))
		print_message("dwrr is not registered: its line is tested "
			      "commented out\n");
	load_block(&in, &loaded);
	assert_true(loaded);

	/* LR > 0: lm = 16673334, lr = 16666667 */
	in.lr_mode = PARAMS_LR_PERIOD;
	in.lr_period_ns = 15 * 1000000000ull;
	load_block(&in, &loaded);

	/* above 32 bits: C = 10 Gbit/s, R_EF^exp = 5 Gbit/s, period 15 s:
	 * LR = 15 * 1.25e9 * 4/9 = 8,333,333,333 bytes, written with the
	 * L suffix libconfig needs */
	in.capacity_bps = 10000 * MBIT;
	in.ef_exp_bps = 5000 * MBIT;
	load_block(&in, &loaded);

	/* unequal sizes and a small BW */
	in = in_9_2();
	in.w_af = 2;
	in.w_cs0 = 50;
	in.l_af_bytes = 64;
	in.l_cs0_bytes = 9000;
	in.lr_mode = PARAMS_LR_BOUND;
	load_block(&in, &loaded);
}

/* Algorithm 1 in the simulator.  The published analysis (eq. 7) ignores
 * what non-preemption does to the credit; Algorithm 1 serves AF at least
 * its reservation and never more than EF leaves. */
static void test_sim(void **state)
{
	double x, y;
	const char *p;

	(void)state;
	assert_int_equal(cli(BASE_9_2), 0);
	assert_contains(g_out, "\nPublished analysis vs Algorithm 1\n");
	p = strstr(g_out, "simulated (Algorithm 1, faithful): ");
	assert_non_null(p);
	if (!sched_lookup("pss")) {
		assert_contains(p, "not available: scheduler pss is not built");
		print_message("pss is not registered: simulation not run\n");
		drop_text();
		skip();
	}
	if (sscanf(p, "simulated (Algorithm 1, faithful): %lf Mbit/s (eq. 7 "
		   "predicts %lf Mbit/s;", &x, &y) != 2)
		fail_msg("unexpected line: %.200s", p);
	assert_near(y, 8.182, 1e-9);
	if (x < 8.18 || x > 10.0)
		fail_msg("Algorithm 1 gave AF %.3f Mbit/s, outside "
			 "[eq. 7 = 8.182, C - R_EF = 10]", x);
	assert_contains(p, "; difference ");

	/* EF above the expected: both give C - R_EF = 5 Mbit/s */
	assert_int_equal(cli(BASE_9_2 " --ef 15Mbit --sim-time 20s"), 0);
	p = strstr(g_out, "simulated (Algorithm 1, faithful): ");
	assert_non_null(p);
	if (sscanf(p, "simulated (Algorithm 1, faithful): %lf Mbit/s (eq. 7 "
		   "predicts %lf Mbit/s;", &x, &y) != 2)
		fail_msg("unexpected line: %.200s", p);
	assert_near(y, 5.0, 1e-9);
	assert_near(x, 5.0, 0.05);

	/* LR > 0 runs from credit_init = LR, the steady state */
	assert_int_equal(cli(BASE_9_2 " --lr period:15s --sim-time 20s"), 0);
	assert_contains(g_out, "credit starting at LR (credit_init = LR");
	p = strstr(g_out, "simulated (Algorithm 1, faithful): ");
	assert_non_null(p);
	if (sscanf(p, "simulated (Algorithm 1, faithful): %lf", &x) != 1)
		fail_msg("unexpected line: %.200s", p);
	if (x < 8.18 || x > 9.5)
		fail_msg("with LR > 0 AF got %.3f Mbit/s: still in the "
			 "start-up?", x);
	drop_text();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eqs_9_2),
		cmocka_unit_test(test_compute_9_2),
		cmocka_unit_test(test_lr_choices),
		cmocka_unit_test(test_unequal_sizes),
		cmocka_unit_test(test_eq7_eq8_branches),
		cmocka_unit_test(test_reject_w1),
		cmocka_unit_test(test_reject_ranges),
		cmocka_unit_test(test_cli_errors),
		cmocka_unit_test(test_cli_help),
		cmocka_unit_test(test_cli_report_9_2),
		cmocka_unit_test(test_block_loads),
		cmocka_unit_test(test_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
