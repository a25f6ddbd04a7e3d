/* params_report.c - the report of `schedtun params pss`: every number
 * of both sets with the equation and the values plugged in, the two
 * ready-to-paste blocks (each checked by the daemon's parser), the
 * theoretical rates, and Algorithm 1's measured AF rate beside eq. 7.
 * Only presentation: the numbers come from params_compute(), the blocks
 * and the simulation from params_conf.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "params/params.h"
#include "pkt/classify.h"
#include "sim/sim.h"
#include "util/units.h"
#include "params_int.h"

/* One rate unit for the whole report, chosen from C. */
struct rate_unit {
	double      div;
	const char *name;
};

/* Bit/s, kbit/s, Mbit/s or Gbit/s: the largest unit not above C. */
static struct rate_unit unit_for(uint64_t capacity_bps)
{
	struct rate_unit u = { 1.0, "bit/s" };

	if (capacity_bps >= 1000000000ull) {
		u.div = 1e9;
		u.name = "Gbit/s";
	} else if (capacity_bps >= 1000000ull) {
		u.div = 1e6;
		u.name = "Mbit/s";
	} else if (capacity_bps >= 1000ull) {
		u.div = 1e3;
		u.name = "kbit/s";
	}
	return u;
}

/* Where the paper's LR came from, with its arithmetic, into buf. */
static const char *lr_source(const struct params_in *in,
			     const struct params_out *o, char *buf,
			     size_t len)
{
	char t[48];

	switch (in->lr_mode) {
	case PARAMS_LR_BOUND:
		snprintf(buf, len, "2.1 lower bound (--lr bound): "
			 "L_max*BW = %u*%.6g = %.2f, rounded up",
			 o->l_max_bytes, o->bw, o->lr_exact_bytes);
		break;
	case PARAMS_LR_PERIOD:
		snprintf(buf, len, "4.2.1 (--lr period:%s): T*C*BW = %.6g s * "
			 "%.6g bytes/s * %.6g = %.2f, rounded",
			 fmt_duration(in->lr_period_ns, t, sizeof(t)),
			 (double)in->lr_period_ns / 1e9,
			 (double)in->capacity_bps / 8.0, o->bw,
			 o->lr_exact_bytes);
		break;
	case PARAMS_LR_BYTES:
		snprintf(buf, len, "given (--lr %llu)",
			 (unsigned long long)in->lr_bytes);
		break;
	default:
		snprintf(buf, len, "2.4: fixed capacity, LR = 0 (--lr fixed)");
		break;
	}
	return buf;
}

/* The start-up line of a set with LR > 0. */
static void report_startup(FILE *out, const struct rate_unit *u, double c,
			   double ef, double startup_s, uint64_t lm_bytes,
			   double bw)
{
	if (startup_s >= 0)
		fprintf(out, "start-up = %.*f s\n    with the credit "
			"starting at 0 (the paper's choice) AF holds "
			"p_high until it first reaches LM: LM*8 / "
			"((C - R_EF)*(1 - BW) - R_EF*BW) = %llu*8 / "
			"((%.6g - %.6g)*(1 - %.6f) - %.6g*%.6f) [%s]; "
			"CS0 gets little meanwhile\n",
			startup_s >= 1.0 ? 1 : 3, startup_s,
			(unsigned long long)lm_bytes, c, ef, bw, ef, bw,
			u->name);
	else
		fprintf(out, "start-up = never\n    with the credit "
			"starting at 0, (C - R_EF)*(1 - BW) <= "
			"R_EF*BW: the credit never reaches LM and "
			"AF keeps p_high\n");
}

/* The windows line of a set: how many AF packets a sending window holds
 * and how long an idle window lasts, with EF at R_EF^exp. */
static void report_windows(FILE *out, const struct params_in *in,
			   double bw, uint64_t lm_minus_lr, double pkts,
			   double idle_s)
{
	double net = (double)in->l_af_bytes *
		     (1.0 - bw * (double)in->capacity_bps /
		      ((double)in->capacity_bps - (double)in->ef_exp_bps));

	if (pkts < 0) {
		fprintf(out, "windows: AF never leaves p_high at R_EF^exp\n"
			"    each AF packet nets L_AF*(1 - BW*C/(C - "
			"R_EF^exp)) = %.2f bytes of credit, not > 0\n", net);
		return;
	}
	fprintf(out, "windows = about %.1f AF packets per sending window, "
		"%.2f ms per idle window\n    at R_EF^exp each AF packet of a "
		"sending window nets L_AF*(1 - BW*C/(C - R_EF^exp)) = %.2f "
		"bytes of credit (EF time counts as idle time): (LM - LR)/%.2f "
		"= %llu/%.2f; the idle window (LM - LR)/(C*BW) is the longest "
		"AF waits at p_low\n", pkts, idle_s * 1e3, net, net,
		(unsigned long long)lm_minus_lr, net);
}

/* The calibrated set, with its arithmetic. */
static void report_cal(FILE *out, const struct params_in *in,
		       const struct params_out *o)
{
	const struct params_cal *k = &o->cal;
	struct rate_unit u = unit_for(in->capacity_bps);
	double c = (double)in->capacity_bps / u.div;
	double ex = (double)in->ef_exp_bps / u.div;
	double ef = (double)o->ef_bps / u.div;

	fprintf(out, "\nCalibrated set (--rule calibrated; docs/pss.md): "
		"Algorithm 1 gives AF about BW*C, so BW*C is aimed at eq. 7\n");
	fprintf(out, "BW = %.6f (of C)\n    K_AF*(C - R_EF^exp)/C = "
		"%.6f*(%.6g - %.6g)/%.6g [%s]: eq. 3 with K_AF in place of "
		"B\n", k->bw, o->k_af, c, ex, c, u.name);
	fprintf(out, "LR = %llu bytes\n    max(the LR chosen, %u*L_max*BW) "
		"= max(%llu, %u*%u*%.6f = %.2f, rounded up): keeps the credit "
		"off 0 (the packet in flight when it reaches LR, and one EF "
		"packet before AF's next)%s\n",
		(unsigned long long)k->lr_bytes, 2u,
		(unsigned long long)o->lr_bytes, 2u, o->l_max_bytes, k->bw,
		k->lr_floor_bytes,
		k->lr_raised ? "; replaces the LR chosen" : "");
	fprintf(out, "LM = %llu bytes\n    LR + max(eq. 5 with this BW, "
		"%u*L_AF*(1 - K_AF)) = %llu + max(%u*%u*(1 - %.6f) = %.2f, "
		"%u*%u*(1 - %.6f) = %.2f), rounded (the second up): %s\n",
		(unsigned long long)k->lm_bytes, PARAMS_CAL_WINDOW_PKTS,
		(unsigned long long)k->lr_bytes, in->l_af_bytes,
		in->w_af - 1, k->bw, k->lm_eq5_bytes, PARAMS_CAL_WINDOW_PKTS,
		in->l_af_bytes, o->k_af, k->lm_window_bytes,
		k->lm_widened ? "eq. 5 would leave fewer than 16 AF packets "
		"per sending window" : "eq. 5 (at least 16 AF packets per "
		"sending window)");
	report_windows(out, in, k->bw, k->lm_bytes - k->lr_bytes,
		       k->window_pkts, k->idle_window_s);
	if (k->lr_bytes)
		report_startup(out, &u, c, ef, k->startup_s, k->lm_bytes,
			       k->bw);
}

/* The heading, the inputs, and eqs. 2-4 with their arithmetic. */
static void report_head(FILE *out, const struct params_in *in,
			const struct params_out *o, const struct rate_unit *u)
{
	double c = (double)in->capacity_bps / u->div;
	double ex = (double)in->ef_exp_bps / u->div;
	double wa1 = (double)in->w_af - 1.0, wc1 = (double)in->w_cs0 - 1.0;
	char cap[48], rx[48], re[48];

	fprintf(out, "PSS parameters for WRR weights W_AF:W_CS0 = %u:%u "
		"(Finzi et al. 2023, section 2.4)\n", in->w_af, in->w_cs0);
	fprintf(out, "  inputs: L_AF = %u, L_CS0 = %u, L_EF = %u bytes; "
		"C = %s, R_EF^exp = %s, R_EF = %s%s\n\n", in->l_af_bytes,
		in->l_cs0_bytes, o->l_ef_bytes,
		params_rate_text(in->capacity_bps, cap, sizeof(cap)),
		params_rate_text(in->ef_exp_bps, rx, sizeof(rx)),
		params_rate_text(o->ef_bps, re, sizeof(re)),
		in->has_ef ? "" : " (= R_EF^exp)");
	fprintf(out, "K_AF = %.6f\n    eq. 2: W_AF*L_AF / (W_AF*L_AF + "
		"W_CS0*L_CS0) = %u*%u / (%u*%u + %u*%u) = %.0f / %.0f\n",
		o->k_af, in->w_af, in->l_af_bytes, in->w_af, in->l_af_bytes,
		in->w_cs0, in->l_cs0_bytes,
		(double)in->w_af * in->l_af_bytes,
		(double)in->w_af * in->l_af_bytes +
		(double)in->w_cs0 * in->l_cs0_bytes);
	fprintf(out, "B = %.6f\n    eq. 4: (W_AF-1)*L_AF / ((W_AF-1)*L_AF + "
		"(W_CS0-1)*L_CS0) = %.0f*%u / (%.0f*%u + %.0f*%u) = "
		"%.0f / %.0f\n", o->b, wa1, in->l_af_bytes, wa1,
		in->l_af_bytes, wc1, in->l_cs0_bytes, wa1 * in->l_af_bytes,
		wa1 * in->l_af_bytes + wc1 * in->l_cs0_bytes);
	fprintf(out, "BW = %.6f (of C)\n    eq. 3 as a fraction of C: "
		"B*(C - R_EF^exp)/C = %.6f*(%.6g - %.6g)/%.6g [%s] "
		"(the paper prints B*(C - R_EF), a rate)\n", o->bw, o->b, c,
		ex, c, u->name);
}

/* The paper's LR, LM (eq. 5), the 2.1 bound, the DWRR quanta, the
 * windows and, with LR > 0, the start-up. */
static void report_paper(FILE *out, const struct params_in *in,
			 const struct params_out *o, const struct rate_unit *u)
{
	double c = (double)in->capacity_bps / u->div;
	double ef = (double)o->ef_bps / u->div;
	char lrs[256];

	fprintf(out, "LR = %llu bytes\n    %s\n",
		(unsigned long long)o->lr_bytes, lr_source(in, o, lrs,
							    sizeof(lrs)));
	fprintf(out, "LM = %llu bytes\n    eq. 5: L_AF*(W_AF-1)*(1 - BW) = "
		"%u*%.0f*(1 - %.6f) = %.2f, rounded%s",
		(unsigned long long)o->lm_bytes, in->l_af_bytes,
		(double)in->w_af - 1.0, o->bw, o->lm_eq5_bytes,
		o->lr_bytes ? "" : "\n");
	if (o->lr_bytes)
		fprintf(out, ", + LR = %llu (sections 2.1, 2.3)\n",
			(unsigned long long)o->lr_bytes);
	fprintf(out, "LR lower bound = %.2f bytes\n    section 2.1: "
		"L_max(MC(AF))*BW = %u*%.6f, L_max = max(L_AF, L_CS0, L_EF)%s"
		"; %s\n", o->lr_bound_bytes, o->l_max_bytes, o->bw,
		in->l_max_bytes ? " overridden by --l-max" : "",
		in->lr_mode == PARAMS_LR_FIXED ?
		"not needed with a fixed capacity (LR = 0, section 2.4)" :
		(double)o->lr_bytes + 1e-9 < o->lr_bound_bytes ?
		"LR is BELOW it: the credit will saturate at 0 during "
		"non-preempted packets" : "LR is at or above it");
	fprintf(out, "DWRR quantum AF = %llu bytes\n    W_AF*L_AF = %u*%u "
		"(DWRR with the same weights, for comparison)\n",
		(unsigned long long)o->quantum_af_bytes, in->w_af,
		in->l_af_bytes);
	fprintf(out, "DWRR quantum CS0 = %llu bytes\n    W_CS0*L_CS0 = "
		"%u*%u\n", (unsigned long long)o->quantum_cs0_bytes,
		in->w_cs0, in->l_cs0_bytes);
	report_windows(out, in, o->bw, o->lm_bytes - o->lr_bytes,
		       o->window_pkts, o->idle_window_s);
	if (o->lr_bytes)
		report_startup(out, u, c, ef, o->startup_s, o->lm_bytes,
			       o->bw);
}

/* Checks the block just printed with the daemon's parser and says so. */
static void check_block(FILE *out, const struct params_in *in,
			const struct params_out *o, enum params_rule rule)
{
	int n;

	fflush(out);
	n = params_check_block(in, o, rule, out, "  block");
	if (n == 0)
		fprintf(out, "(checked: this build loads the block as a "
			"configuration file)\n");
	else if (n < 0)
		fprintf(out, "(not checked: out of memory)\n");
	else
		fprintf(out, "(this build rejects the block: %d error%s "
			"above)\n", n, n > 1 ? "s" : "");
}

/* The main block (the set --rule chose) and the other set's block. */
static void report_blocks(FILE *out, const struct params_in *in,
			  const struct params_out *o)
{
	int cal = in->rule == PARAMS_RULE_CALIBRATED;
	enum params_rule other = cal ? PARAMS_RULE_PAPER :
				       PARAMS_RULE_CALIBRATED;

	fprintf(out, "\nConfiguration (paste into the daemon's file)%s:\n\n",
		cal ? ", calibrated parameters (--rule calibrated)" : "");
	params_write_conf(out, in, o, 0);
	check_block(out, in, o, in->rule);
	fputs(cal ? "\nOr, with the paper's parameters (eq. 3-5; --rule "
	      "paper puts them above):\n\n" : "\nOr, with the calibrated "
	      "parameters (docs/pss.md; --rule calibrated puts them "
	      "above):\n\n", out);
	params_write_conf_rule(out, in, o, other, 0);
	check_block(out, in, o, other);
}

/* Eqs. 1, 6, 7, 8 at R_EF with their arithmetic. */
static void report_rates(FILE *out, const struct params_in *in,
			 const struct params_out *o, const struct rate_unit *u)
{
	double c = (double)in->capacity_bps / u->div;
	double ex = (double)in->ef_exp_bps / u->div;
	double ef = (double)o->ef_bps / u->div;

	fprintf(out, "\nTheoretical output rates at R_EF = %.6g %s "
		"(R_EF^exp = %.6g %s)\n", ef, u->name, ex, u->name);
	fprintf(out, "DWRR AF = %.3f %s\n    eq. 1: K_AF*(C - R_EF) = "
		"%.6f*(%.6g - %.6g)\n", o->wrr_af_bps / u->div, u->name,
		o->k_af, c, ef);
	fprintf(out, "DWRR CS0 = %.3f %s\n    eq. 6: (1 - K_AF)*(C - R_EF) = "
		"%.6f*(%.6g - %.6g)\n", o->wrr_cs0_bps / u->div, u->name,
		1.0 - o->k_af, c, ef);
	fprintf(out, "PSS AF = %.3f %s\n    eq. 7: min(K_AF*(C - R_EF^exp), "
		"C - R_EF) = min(%.6f*(%.6g - %.6g), %.6g - %.6g) = "
		"min(%.6g, %.6g): %s\n", o->pss_af_bps / u->div, u->name,
		o->k_af, c, ex, c, ef,
		o->k_af * (c - ex), c - ef,
		o->eq7_limited ? "EF leaves less than AF's reservation" :
		"AF gets its reservation");
	fprintf(out, "PSS CS0 = %.3f %s\n    eq. 8: max(C - R_EF - R_PSS/AF, "
		"0) = max(%.6g - %.6g - %.6g, 0)\n", o->pss_cs0_bps / u->div,
		u->name, c, ef, o->pss_af_bps / u->div);
}

/* See params_int.h. */
void params_report(FILE *out, const struct params_in *in,
		   const struct params_out *o)
{
	struct rate_unit u = unit_for(in->capacity_bps);

	report_head(out, in, o, &u);
	report_paper(out, in, o, &u);
	report_cal(out, in, o);
	report_blocks(out, in, o);
	report_rates(out, in, o, &u);
}

/* Runs one set in the simulator and prints its line. */
static void report_sim_set(FILE *out, FILE *err, const struct params_in *in,
			   const struct params_out *o, enum params_rule rule,
			   uint64_t dur_ns)
{
	struct rate_unit u = unit_for(in->capacity_bps);
	int cal = rule == PARAMS_RULE_CALIBRATED;
	const char *name = cal ? "calibrated" : "paper (eq. 3-5)";
	double bw = cal ? o->cal.bw : o->bw;
	uint64_t lr = cal ? o->cal.lr_bytes : o->lr_bytes;
	struct sim_result res;
	char why[512];
	double af, diff;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = params_simulate(in, o, rule, dur_ns, NULL, &res, err, why,
			     sizeof(why));
	if (rc == 1) {
		fprintf(out, "simulated (Algorithm 1, faithful), %s: not "
			"available: %s\n", name, why);
		return;
	}
	if (rc < 0) {
		fprintf(out, "simulated (Algorithm 1, faithful), %s: not "
			"available: the simulator failed (see its message "
			"above)\n", name);
		return;
	}
	af = res.mean_bps[CLS_AF];
	diff = o->pss_af_bps > 0 ? (af - o->pss_af_bps) / o->pss_af_bps *
				   100.0 : 0.0;
	if (fabs(diff) < 0.05)
		diff = 0.0;     /* no "-0.0 %" */
	fprintf(out, "simulated (Algorithm 1, faithful), %s: %.3f %s (eq. 7 "
		"predicts %.3f %s; difference %+.1f %%)\n", name, af / u.div,
		u.name, o->pss_af_bps / u.div, u.name, diff);
	fprintf(out, "    CS0 %.3f %s (eq. 8: %.3f), EF %.3f %s; BW*C = "
		"%.3f %s; credit starting at %s\n",
		res.mean_bps[CLS_CS0] / u.div, u.name,
		o->pss_cs0_bps / u.div, res.mean_bps[CLS_EF] / u.div, u.name,
		bw * (double)in->capacity_bps / u.div, u.name,
		lr ? "LR (credit_init = LR: the steady state, without the "
		"start-up)" : "0 as in the paper");
}

/* See params_int.h.  A ratio of rates needs packets, not seconds: their
 * number is capped. */
uint64_t params_sim_dur_ns(const struct params_in *in,
			   const struct params_out *o, uint64_t dur_ns,
			   int *shortened)
{
	double pkt_ns = 8e9 * fmin(fmin(in->l_af_bytes, in->l_cs0_bytes),
				   o->l_ef_bytes) / (double)in->capacity_bps;

	*shortened = (double)dur_ns / pkt_ns > PARAMS_SIM_PKTS_MAX;
	return *shortened ? (uint64_t)(PARAMS_SIM_PKTS_MAX * pkt_ns) : dur_ns;
}

/* See params_int.h. */
void params_report_sim(FILE *out, FILE *err, const struct params_in *in,
		       const struct params_out *o, uint64_t dur_ns)
{
	char d1[32], d2[32];
	int shortened;

	fprintf(out, "\nPublished analysis vs Algorithm 1\n");
	dur_ns = params_sim_dur_ns(in, o, dur_ns, &shortened);
	report_sim_set(out, err, in, o, PARAMS_RULE_PAPER, dur_ns);
	fflush(out);
	report_sim_set(out, err, in, o, PARAMS_RULE_CALIBRATED, dur_ns);
	fprintf(out, "    both: constant link at C, EF CBR at R_EF, greedy AF "
		"and CS0 (L_AF = %u, L_CS0 = %u, L_EF = %u bytes), mean over "
		"%s..%s of virtual time%s\n", in->l_af_bytes, in->l_cs0_bytes,
		o->l_ef_bytes,
		fmt_duration(dur_ns / PARAMS_SIM_WARMUP_DIV, d1, sizeof(d1)),
		fmt_duration(dur_ns, d2, sizeof(d2)),
		shortened ? " (shortened: 20 million packets at C)" : "");
	fprintf(out, "    Algorithm 1 gives AF = BW*C + (credit cut at LM - "
		"credit kept by the floor 0)/T: AF's share of the link time "
		"is BW but for the clamps (docs/pss.md); eqs. 3-5 count on "
		"one whole packet cut at each end of every WRR round\n");
}

