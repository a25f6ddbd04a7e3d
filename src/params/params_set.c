/* params_set.c - a whole PSS parameter set from validated inputs: checks
 * a struct params_in, then fills both sets of struct params_out (the
 * paper's eqs. 2-8 and the calibrated rule).
 *
 * Messages name the quantity, never a command-line flag: the inputs may
 * come from any caller.  Each starts with params_qty_name() and ": ",
 * quotes the value and gives the accepted range, so that the command
 * line can put its flag beside the quantity.
 *
 * Reading of the paper (DESIGN 3):
 *  - when LR > 0, LM = eq. 5 + LR (2.1, 2.3): the window between LR and
 *    LM keeps the size eq. 5 gives it.  Eq. 5 is rounded to whole bytes
 *    and LR added, so that LM - LR is exactly the rounded eq. 5;
 *  - LR: 0 for a fixed capacity (2.4, the default); L_max(MC(q)) BW is a
 *    lower bound (2.1) and is rounded up; T C_avg BW (4.2.1) with C in
 *    bytes/s.  L_max(MC(AF)) is the largest packet of the three classes,
 *    max(L_AF, L_CS0, L_EF): an EF or CS0 packet that started just
 *    before AF regained p_high is what keeps the credit falling below LR;
 *  - W_AF = 1 or W_CS0 = 1 is refused: eq. 4 counts W - 1 packets per
 *    window (the W-th is the one non-preemption lets through) and gives
 *    B = 0 or B = 1, i.e. no AF reservation at all or no CS0 share.
 *
 * The calibrated set (docs/pss.md, params.h): Algorithm 1 gives AF =
 * BW C + (Lambda - Gamma) / T over a run of length T with AF and CS0
 * backlogged (Lambda the credit cut at LM, Gamma what the floor 0 kept);
 * it puts K_AF in B's place, keeps the credit off 0 with LR >= 2 L_max BW,
 * and keeps at least PARAMS_CAL_WINDOW_PKTS AF packets in a sending
 * window so that the one cut at LM per window stays small.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "params/params.h"
#include "util/units.h"
#include "params_int.h"

static const char *const qty_names[PARAMS_Q_COUNT] = {
	[PARAMS_Q_NONE]     = "none",
	[PARAMS_Q_W_AF]     = "W_AF",
	[PARAMS_Q_W_CS0]    = "W_CS0",
	[PARAMS_Q_L_AF]     = "L_AF",
	[PARAMS_Q_L_CS0]    = "L_CS0",
	[PARAMS_Q_L_EF]     = "L_EF",
	[PARAMS_Q_L_MAX]    = "L_max",
	[PARAMS_Q_C]        = "C",
	[PARAMS_Q_R_EF_EXP] = "R_EF^exp",
	[PARAMS_Q_R_EF]     = "R_EF",
	[PARAMS_Q_LR]       = "LR",
	[PARAMS_Q_T]        = "T",
	[PARAMS_Q_LM]       = "LM",
	[PARAMS_Q_RULE]     = "rule",
};

/* The name messages give quantity q ("R_EF^exp"); "?" outside the enum. */
const char *params_qty_name(enum params_qty q)
{
	return (unsigned)q < PARAMS_Q_COUNT ? qty_names[q] : "?";
}

/* fmt_rate() when it reads back exactly ("20Mbit"), else the bit/s
 * ("20000001bit": fmt_rate keeps three decimals); "0" for 0.  Returns buf. */
const char *params_rate_text(uint64_t bps, char *buf, size_t len)
{
	uint64_t back = 0;

	if (bps == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	fmt_rate(bps, buf, len);
	if (parse_rate_bps(buf, 0, &back, NULL, 0) < 0 || back != bps)
		snprintf(buf, len, "%llubit", (unsigned long long)bps);
	return buf;
}

/* The largest of three sizes. */
uint32_t params_max3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a > b ? a : b;

	return m > c ? m : c;
}

/* Writes "NAME: " and the message of quantity q into err; returns -1, so
 * that a check can `return fail(...)`. */
static int fail(char *err, size_t errlen, enum params_qty q,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, enum params_qty q,
		const char *fmt, ...)
{
	int n = snprintf(err, errlen, "%s: ", params_qty_name(q));
	va_list ap;

	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* W_AF (is_af) or W_CS0: 2..PARAMS_W_MAX, with the reason for refusing
 * 1 (eq. 4).  0, or -1 with the message. */
static int check_weight(uint32_t w, int is_af, char *err, size_t errlen)
{
	enum params_qty q = is_af ? PARAMS_Q_W_AF : PARAMS_Q_W_CS0;

	if (w == 1 && is_af)
		return fail(err, errlen, q, "'1' is not accepted: eq. 4 counts "
			    "W_AF - 1 AF packets per window (the W-th goes "
			    "out by non-preemption, unseen by the credit), "
			    "so W_AF = 1 gives B = 0, BW = 0 and LM = 0: AF "
			    "would lose p_high after one packet and never "
			    "regain it (accepted: an integer 2..%u)",
			    PARAMS_W_MAX);
	if (w == 1)
		return fail(err, errlen, q, "'1' is not accepted: eq. 4 counts "
			    "W_CS0 - 1 CS0 packets per window (the W-th goes "
			    "out by non-preemption, unseen by the credit), "
			    "so W_CS0 = 1 gives B = 1 and BW = (C - "
			    "R_EF^exp)/C: AF would be reserved all that EF "
			    "leaves and CS0 would starve (accepted: an "
			    "integer 2..%u)", PARAMS_W_MAX);
	if (w < 1 || w > PARAMS_W_MAX)
		return fail(err, errlen, q, "'%u' is out of range (accepted: "
			    "an integer 2..%u)", w, PARAMS_W_MAX);
	return 0;
}

/* A packet size of quantity q in PARAMS_L_MIN..MAX_BYTES.  0 or -1. */
static int check_size(enum params_qty q, uint32_t l, char *err,
		      size_t errlen)
{
	if (l < PARAMS_L_MIN_BYTES || l > PARAMS_L_MAX_BYTES)
		return fail(err, errlen, q, "'%u' is out of range (accepted: "
			    "%u..%u bytes)", l, PARAMS_L_MIN_BYTES,
			    PARAMS_L_MAX_BYTES);
	return 0;
}

/* The four sizes, with the defaults of L_EF and L_max resolved into o.
 * 0 or -1. */
static int check_sizes(const struct params_in *in, struct params_out *o,
		       char *err, size_t errlen)
{
	if (check_size(PARAMS_Q_L_AF, in->l_af_bytes, err, errlen) < 0 ||
	    check_size(PARAMS_Q_L_CS0, in->l_cs0_bytes, err, errlen) < 0)
		return -1;
	o->l_ef_bytes = in->l_ef_bytes ? in->l_ef_bytes :
			params_max3(in->l_af_bytes, in->l_cs0_bytes, 0);
	if (check_size(PARAMS_Q_L_EF, o->l_ef_bytes, err, errlen) < 0)
		return -1;
	o->l_max_bytes = params_max3(in->l_af_bytes, in->l_cs0_bytes,
				     o->l_ef_bytes);
	if (!in->l_max_bytes)
		return 0;
	if (check_size(PARAMS_Q_L_MAX, in->l_max_bytes, err, errlen) < 0)
		return -1;
	if (in->l_max_bytes < o->l_max_bytes)
		return fail(err, errlen, PARAMS_Q_L_MAX, "'%u' is below "
			    "max(L_AF, L_CS0, L_EF) = %u (accepted: %u..%u "
			    "bytes: at least the largest packet of AF, CS0 "
			    "and EF)", in->l_max_bytes, o->l_max_bytes,
			    o->l_max_bytes, PARAMS_L_MAX_BYTES);
	o->l_max_bytes = in->l_max_bytes;
	return 0;
}

/* C > 0 and not unlimited, R_EF^exp < C, R_EF <= C (R_EF resolved into
 * o).  0 or -1. */
static int check_rates(const struct params_in *in, struct params_out *o,
		       char *err, size_t errlen)
{
	char r1[48], r2[48];

	if (in->capacity_bps == 0 || in->capacity_bps == RATE_UNLIMITED)
		return fail(err, errlen, PARAMS_Q_C, "'%s' is not a capacity "
			    "(accepted: a rate above 0, e.g. 20Mbit; not "
			    "unlimited: BW is a fraction of it)",
			    in->capacity_bps ? "unlimited" : "0");
	params_rate_text(in->capacity_bps, r2, sizeof(r2));
	if (in->ef_exp_bps >= in->capacity_bps)
		return fail(err, errlen, PARAMS_Q_R_EF_EXP, "'%s' is not below "
			    "C = %s: eq. 3 would leave BW <= 0 (accepted: "
			    "0 <= R_EF^exp < C)", params_rate_text(
			    in->ef_exp_bps, r1, sizeof(r1)), r2);
	o->ef_bps = in->has_ef ? in->ef_bps : in->ef_exp_bps;
	if (o->ef_bps > in->capacity_bps)
		return fail(err, errlen, PARAMS_Q_R_EF, "'%s' is above C = %s "
			    "(accepted: 0 <= R_EF <= C)",
			    params_rate_text(o->ef_bps, r1, sizeof(r1)), r2);
	return 0;
}

/* LR of the paper's set (lr_exact_bytes, lr_bytes) by in->lr_mode, from
 * o->bw and o->lr_bound_bytes.  0 or -1. */
static int compute_lr(const struct params_in *in, struct params_out *o,
		      char *err, size_t errlen)
{
	char t[48];

	switch (in->lr_mode) {
	case PARAMS_LR_FIXED:
		o->lr_exact_bytes = 0.0;
		o->lr_bytes = 0;
		return 0;
	case PARAMS_LR_BOUND:
		o->lr_exact_bytes = o->lr_bound_bytes;
		/* up, but not for a rounding error above an integer:
		 * 1500 * 0.25 may come out as 375.00000000000006 */
		o->lr_bytes = (uint64_t)ceil(o->lr_bound_bytes - 1e-6);
		return 0;
	case PARAMS_LR_PERIOD:
		fmt_duration(in->lr_period_ns, t, sizeof(t));
		if (in->lr_period_ns == 0 ||
		    in->lr_period_ns > PARAMS_PERIOD_MAX_NS)
			return fail(err, errlen, PARAMS_Q_T, "'%s' is out of "
				    "range (accepted: 0 < T <= 86400s, the "
				    "period of LR = T*C*BW)", t);
		o->lr_exact_bytes = params_lr_period_bytes(in->lr_period_ns,
							   in->capacity_bps,
							   o->bw);
		if (o->lr_exact_bytes > (double)PARAMS_BYTES_MAX)
			return fail(err, errlen, PARAMS_Q_T, "'%s' gives LR = "
				    "T*C*BW = %.0f bytes, too large (accepted: "
				    "T*C*BW <= %llu bytes; choose a shorter "
				    "T)", t, o->lr_exact_bytes,
				    (unsigned long long)PARAMS_BYTES_MAX);
		o->lr_bytes = (uint64_t)llround(o->lr_exact_bytes);
		return 0;
	case PARAMS_LR_BYTES:
		if (in->lr_bytes > PARAMS_BYTES_MAX)
			return fail(err, errlen, PARAMS_Q_LR, "'%llu' is out "
				    "of range (accepted: 0..%llu bytes)",
				    (unsigned long long)in->lr_bytes,
				    (unsigned long long)PARAMS_BYTES_MAX);
		o->lr_exact_bytes = (double)in->lr_bytes;
		o->lr_bytes = in->lr_bytes;
		return 0;
	default:
		return fail(err, errlen, PARAMS_Q_LR, "mode '%d' is unknown "
			    "(accepted: PARAMS_LR_FIXED, _BOUND, _PERIOD, "
			    "_BYTES)", (int)in->lr_mode);
	}
}

/* The start-up of a set: with the credit starting at 0 and greedy AF and
 * CS0, LM * 8 over the credit's climb while AF holds p_high (+ C (1 - BW)
 * while AF sends, - C BW while EF sends); -1 when it never climbs. */
static double startup_s(uint64_t capacity_bps, uint64_t ef_bps, double bw,
			uint64_t lm_bytes)
{
	double slope_bps = ((double)capacity_bps - (double)ef_bps) *
			   (1.0 - bw) - (double)ef_bps * bw;

	return slope_bps > 0.0 ? (double)lm_bytes * 8.0 / slope_bps : -1.0;
}

/* The paper's set (eqs. 2-5, LR) and the theoretical rates (eqs. 1,
 * 6-8) into o, from validated inputs.  0 or -1 (LR or LM too large). */
static int compute_paper(const struct params_in *in, struct params_out *o,
			 char *err, size_t errlen)
{
	double lm5;

	o->k_af = params_k_af(in->w_af, in->l_af_bytes, in->w_cs0,
			      in->l_cs0_bytes);
	o->b = params_b(in->w_af, in->l_af_bytes, in->w_cs0, in->l_cs0_bytes);
	o->bw = params_bw(o->b, in->capacity_bps, in->ef_exp_bps);
	o->lm_eq5_bytes = params_lm_eq5_bytes(in->l_af_bytes, in->w_af,
					      o->bw);
	o->lr_bound_bytes = params_lr_bound_bytes(o->l_max_bytes, o->bw);
	if (compute_lr(in, o, err, errlen) < 0)
		return -1;
	lm5 = round(o->lm_eq5_bytes);
	o->lm_bytes = (lm5 < 1.0 ? 1 : (uint64_t)lm5) + o->lr_bytes;
	if (o->lm_bytes > PARAMS_BYTES_MAX)
		return fail(err, errlen, PARAMS_Q_LM, "'%llu' (eq. 5 + LR) is "
			    "too large (accepted: LM <= %llu bytes; choose a "
			    "smaller LR)", (unsigned long long)o->lm_bytes,
			    (unsigned long long)PARAMS_BYTES_MAX);
	o->quantum_af_bytes = params_quantum_bytes(in->w_af, in->l_af_bytes);
	o->quantum_cs0_bytes = params_quantum_bytes(in->w_cs0,
						    in->l_cs0_bytes);
	o->wrr_af_bps = params_wrr_af_bps(o->k_af, in->capacity_bps, o->ef_bps);
	o->wrr_cs0_bps = params_wrr_cs0_bps(o->k_af, in->capacity_bps,
					    o->ef_bps);
	o->pss_af_bps = params_pss_af_bps(o->k_af, in->capacity_bps,
					  in->ef_exp_bps, o->ef_bps);
	o->pss_cs0_bps = params_pss_cs0_bps(o->pss_af_bps, in->capacity_bps,
					    o->ef_bps);
	o->eq7_limited = (double)in->capacity_bps - (double)o->ef_bps <
			 o->k_af * ((double)in->capacity_bps -
				    (double)in->ef_exp_bps);
	o->startup_s = startup_s(in->capacity_bps, o->ef_bps, o->bw,
				 o->lm_bytes);
	o->window_pkts = params_window_pkts(o->lm_bytes - o->lr_bytes,
					   in->l_af_bytes, o->bw,
					   in->capacity_bps, in->ef_exp_bps);
	o->idle_window_s = params_idle_window_s(o->lm_bytes - o->lr_bytes,
						o->bw, in->capacity_bps);
	return 0;
}

/* The calibrated set into o->cal, from the validated inputs and the
 * paper's LR.  0 or -1 (LM too large). */
static int compute_cal(const struct params_in *in, struct params_out *o,
		       char *err, size_t errlen)
{
	struct params_cal *k = &o->cal;
	double lm5, lmw, lr_floor;
	uint64_t core;

	k->bw = params_bw(o->k_af, in->capacity_bps, in->ef_exp_bps);
	k->lm_eq5_bytes = params_lm_eq5_bytes(in->l_af_bytes, in->w_af, k->bw);
	k->lm_window_bytes = params_lm_window_bytes(in->l_af_bytes, o->k_af);
	k->lr_floor_bytes = params_lr_floor_bytes(o->l_max_bytes, k->bw);
	/* up, but not for a rounding error above an integer */
	lr_floor = ceil(k->lr_floor_bytes - 1e-6);
	k->lr_raised = (double)o->lr_bytes < lr_floor;
	k->lr_bytes = k->lr_raised ? (uint64_t)lr_floor : o->lr_bytes;
	lm5 = round(k->lm_eq5_bytes);
	lmw = ceil(k->lm_window_bytes - 1e-6);
	k->lm_widened = lmw > lm5;
	core = (uint64_t)fmax(fmax(lm5, lmw), 1.0);
	k->lm_bytes = core + k->lr_bytes;
	if (k->lm_bytes > PARAMS_BYTES_MAX)
		return fail(err, errlen, PARAMS_Q_LM, "'%llu' (calibrated: "
			    "%llu + LR = %llu) is too large (accepted: LM <= %llu "
			    "bytes; choose a smaller LR)",
			    (unsigned long long)k->lm_bytes,
			    (unsigned long long)core,
			    (unsigned long long)k->lr_bytes,
			    (unsigned long long)PARAMS_BYTES_MAX);
	k->startup_s = startup_s(in->capacity_bps, o->ef_bps, k->bw,
				 k->lm_bytes);
	k->window_pkts = params_window_pkts(core, in->l_af_bytes, k->bw,
					    in->capacity_bps, in->ef_exp_bps);
	k->idle_window_s = params_idle_window_s(core, k->bw,
						in->capacity_bps);
	return 0;
}

/* See params.h: the inputs in the order of struct params_in, then the
 * paper's set, then the calibrated one. */
int params_compute(const struct params_in *in, struct params_out *o,
		   char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (check_weight(in->w_af, 1, err, errlen) < 0 ||
	    check_weight(in->w_cs0, 0, err, errlen) < 0 ||
	    check_sizes(in, o, err, errlen) < 0 ||
	    check_rates(in, o, err, errlen) < 0)
		return -1;
	if (in->rule != PARAMS_RULE_PAPER &&
	    in->rule != PARAMS_RULE_CALIBRATED)
		return fail(err, errlen, PARAMS_Q_RULE, "'%d' is unknown "
			    "(accepted: PARAMS_RULE_PAPER, "
			    "PARAMS_RULE_CALIBRATED)", (int)in->rule);
	if (compute_paper(in, o, err, errlen) < 0)
		return -1;
	return compute_cal(in, o, err, errlen);
}
