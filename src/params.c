/* params.c - the PSS parameter calculator (`schedtun params pss`).
 *
 * Finzi et al., "Priority Switching Scheduler" (2023), give the PSS
 * parameters equivalent to WRR weights (2.4, eqs. 2-5), the resume level
 * LR (2.1, 2.3, 2.4, 4.2.1) and the output rates of both schedulers (eqs.
 * 1, 6, 7, 8).  This module evaluates them, prints each number with the
 * equation and the values plugged in, a ready-to-paste `scheduler` block,
 * and finally runs Algorithm 1 itself (the daemon's pss, in the offline
 * simulator) to show how far the published analysis is from what the
 * algorithm gives for these parameters.
 *
 * Reading of the paper (DESIGN 3):
 *  - eq. 3 is printed as BW = B (C - R_EF), a rate; the credit's slopes
 *    use C BW, so BW is the fraction B (C - R_EF^exp) / C;
 *  - when LR > 0, LM = eq. 5 + LR (2.1, 2.3): the window between LR and
 *    LM keeps the size eq. 5 gives it.  We round eq. 5 to whole bytes and
 *    add LR, so that LM - LR is exactly the rounded eq. 5;
 *  - LR: 0 for a fixed capacity (2.4, the default); L_max(MC(q)) BW is a
 *    lower bound (2.1) and is rounded up; T C_avg BW (4.2.1) with C in
 *    bytes/s.  MC(AF) holds the queues that can preempt AF or be
 *    preempted by it; the paper's text calls L_max(MC(q)) "the maximum
 *    packet size among all the controlled queues", so we take the largest
 *    packet of the three classes, max(L_AF, L_CS0, L_EF): an EF or CS0
 *    packet that started just before AF regained p_high is what keeps the
 *    credit falling below LR;
 *  - W_AF = 1 or W_CS0 = 1 is refused: eq. 4 counts W - 1 packets per
 *    window (the W-th is the one non-preemption lets through) and gives
 *    B = 0 or B = 1, i.e. no AF reservation at all or no CS0 share.
 *
 * The calibrated set (docs/pss.md, params.h).  Over a run of length T
 * with AF and CS0 backlogged, Algorithm 1's credit gains (1 - BW) per AF
 * byte and loses BW per byte of anything else, minus what the clamps cut
 * at LM (Lambda) and plus what the floor 0 keeps (Gamma); the credit stays
 * in [0, LM], so R_AF = BW C + (Lambda - Gamma) / T.  Eqs. 3-5 need
 * Lambda and Gamma to be one whole packet per WRR round; with EF
 * interleaved in AF's sending window (EF time is idle time for AF's
 * credit) the windows are several times W_AF packets and AF tends to
 * BW C = B (C - R_EF^exp) instead of eq. 7's K_AF (C - R_EF^exp).  The
 * calibrated rule puts K_AF in B's place, keeps the credit off 0 with
 * LR >= 2 L_max BW, and keeps at least 16 AF packets in a sending window
 * so that the one cut at LM per window stays small.  Algorithm 1 itself
 * (src/sched/pss.c) is the same for both sets.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "conf.h"
#include "diag.h"
#include "params.h"
#include "sched.h"
#include "sim.h"
#include "units.h"

#define SIM_DEFAULT_NS   (60 * NS_PER_SEC)
#define SIM_WARMUP_DIV   12             /* 5 s of 60 left out */
#define SIM_PKTS_MAX     20000000.0     /* ~10 s with ASan: fast links get
					 * a shorter run of as many packets */
#define SIM_MIN_NS       (10 * NS_PER_SEC)
#define SIM_MAX_NS       (3600 * NS_PER_SEC)
#define SIM_MTU_MIN      576u           /* conf.c's tunnel.mtu range */
#define SIM_MTU_MAX      9000u
#define CONF_INT_MAX     2147483647ull  /* above: libconfig needs an L */

/* ---- the equations ------------------------------------------------------ */

double params_k_af(uint32_t w_af, uint32_t l_af_bytes,
		   uint32_t w_cs0, uint32_t l_cs0_bytes)
{
	double af = (double)w_af * l_af_bytes;
	double cs0 = (double)w_cs0 * l_cs0_bytes;

	return af / (af + cs0);
}

double params_b(uint32_t w_af, uint32_t l_af_bytes,
		uint32_t w_cs0, uint32_t l_cs0_bytes)
{
	double af = ((double)w_af - 1.0) * l_af_bytes;
	double cs0 = ((double)w_cs0 - 1.0) * l_cs0_bytes;

	return af / (af + cs0);
}

double params_bw(double b, uint64_t capacity_bps, uint64_t ef_exp_bps)
{
	return b * ((double)capacity_bps - (double)ef_exp_bps) /
	       (double)capacity_bps;
}

double params_lm_eq5_bytes(uint32_t l_af_bytes, uint32_t w_af, double bw)
{
	return (double)l_af_bytes * ((double)w_af - 1.0) * (1.0 - bw);
}

double params_lr_bound_bytes(uint32_t l_max_bytes, double bw)
{
	return (double)l_max_bytes * bw;
}

double params_lr_period_bytes(uint64_t period_ns, uint64_t capacity_bps,
			      double bw)
{
	return (double)period_ns / 1e9 * ((double)capacity_bps / 8.0) * bw;
}

double params_lr_floor_bytes(uint32_t l_max_bytes, double bw)
{
	return 2.0 * (double)l_max_bytes * bw;
}

double params_lm_window_bytes(uint32_t l_af_bytes, double k_af)
{
	return (double)PARAMS_CAL_WINDOW_PKTS * (double)l_af_bytes *
	       (1.0 - k_af);
}

double params_window_pkts(uint64_t lm_minus_lr_bytes, uint32_t l_af_bytes,
			  double bw, uint64_t capacity_bps,
			  uint64_t ef_exp_bps)
{
	/* per AF packet: + L_AF (1 - BW) for itself, - L_AF R/(C - R) BW for
	 * the EF sent meanwhile (R = R_EF^exp, interleaved): in all
	 * L_AF (1 - BW C/(C - R)) */
	double net = (double)l_af_bytes *
		     (1.0 - bw * (double)capacity_bps /
		      ((double)capacity_bps - (double)ef_exp_bps));

	return net > 0.0 ? (double)lm_minus_lr_bytes / net : -1.0;
}

double params_idle_window_s(uint64_t lm_minus_lr_bytes, double bw,
			    uint64_t capacity_bps)
{
	return (double)lm_minus_lr_bytes / ((double)capacity_bps / 8.0 * bw);
}

uint64_t params_quantum_bytes(uint32_t w, uint32_t l_bytes)
{
	return (uint64_t)w * l_bytes;
}

double params_wrr_af_bps(double k_af, uint64_t capacity_bps, uint64_t ef_bps)
{
	return k_af * ((double)capacity_bps - (double)ef_bps);
}

double params_wrr_cs0_bps(double k_af, uint64_t capacity_bps, uint64_t ef_bps)
{
	return (1.0 - k_af) * ((double)capacity_bps - (double)ef_bps);
}

double params_pss_af_bps(double k_af, uint64_t capacity_bps,
			 uint64_t ef_exp_bps, uint64_t ef_bps)
{
	return fmin(k_af * ((double)capacity_bps - (double)ef_exp_bps),
		    (double)capacity_bps - (double)ef_bps);
}

double params_pss_cs0_bps(double pss_af_bps, uint64_t capacity_bps,
			  uint64_t ef_bps)
{
	return fmax((double)capacity_bps - (double)ef_bps - pss_af_bps, 0.0);
}

/* ---- validation and the whole set --------------------------------------- */

/* fmt_rate() when it reads back exactly ("20Mbit"), else the bit/s
 * ("20000001bit": fmt_rate keeps three decimals); "0" for 0. */
static const char *rate_text(uint64_t bps, char *buf, size_t len)
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

static int check_weight(const char *opt, uint32_t w, int is_af,
			char *err, size_t errlen)
{
	if (w == 1 && is_af) {
		snprintf(err, errlen,
			 "--w-af: 1 is not accepted: eq. 4 counts W_AF - 1 "
			 "AF packets per window (the W-th goes out by "
			 "non-preemption, unseen by the credit), so W_AF = 1 "
			 "gives B = 0, BW = 0 and LM = 0: AF would lose "
			 "p_high after one packet and never regain it "
			 "(accepted: an integer 2..%u)", PARAMS_W_MAX);
		return -1;
	}
	if (w == 1) {
		snprintf(err, errlen,
			 "--w-cs0: 1 is not accepted: eq. 4 counts W_CS0 - 1 "
			 "CS0 packets per window (the W-th goes out by "
			 "non-preemption, unseen by the credit), so W_CS0 = 1 "
			 "gives B = 1 and BW = (C - R_EF^exp)/C: AF would be "
			 "reserved all that EF leaves and CS0 would starve "
			 "(accepted: an integer 2..%u)", PARAMS_W_MAX);
		return -1;
	}
	if (w < 1 || w > PARAMS_W_MAX) {
		snprintf(err, errlen, "%s: %u is out of range (accepted: an "
			 "integer 2..%u)", opt, w, PARAMS_W_MAX);
		return -1;
	}
	return 0;
}

static int check_size(const char *opt, uint32_t l, char *err, size_t errlen)
{
	if (l < PARAMS_L_MIN_BYTES || l > PARAMS_L_MAX_BYTES) {
		snprintf(err, errlen, "%s: %u is out of range (accepted: "
			 "%u..%u bytes)", opt, l, PARAMS_L_MIN_BYTES,
			 PARAMS_L_MAX_BYTES);
		return -1;
	}
	return 0;
}

static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t m = a > b ? a : b;

	return m > c ? m : c;
}

/* The calibrated set, from the validated inputs and the paper's LR. */
static int compute_cal(const struct params_in *in, struct params_out *o,
		       char *err, size_t errlen)
{
	struct params_cal *k = &o->cal;
	double lm5, lmw, lr_floor, slope_bps;
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
	if (k->lm_bytes > PARAMS_BYTES_MAX) {
		snprintf(err, errlen, "--lr: the calibrated LM = %llu + LR = "
			 "%llu bytes is too large (accepted: LM <= %llu "
			 "bytes; choose a smaller LR)",
			 (unsigned long long)core,
			 (unsigned long long)k->lr_bytes,
			 (unsigned long long)PARAMS_BYTES_MAX);
		return -1;
	}
	slope_bps = ((double)in->capacity_bps - (double)o->ef_bps) *
		    (1.0 - k->bw) - (double)o->ef_bps * k->bw;
	k->startup_s = slope_bps > 0.0 ?
		       (double)k->lm_bytes * 8.0 / slope_bps : -1.0;
	k->window_pkts = params_window_pkts(core, in->l_af_bytes, k->bw,
					    in->capacity_bps, in->ef_exp_bps);
	k->idle_window_s = params_idle_window_s(core, k->bw,
						in->capacity_bps);
	return 0;
}

int params_compute(const struct params_in *in, struct params_out *o,
		   char *err, size_t errlen)
{
	char r1[48], r2[48];
	double lm5, slope_bps;

	memset(o, 0, sizeof(*o));
	if (check_weight("--w-af", in->w_af, 1, err, errlen) < 0 ||
	    check_weight("--w-cs0", in->w_cs0, 0, err, errlen) < 0)
		return -1;
	if (check_size("--l-af", in->l_af_bytes, err, errlen) < 0 ||
	    check_size("--l-cs0", in->l_cs0_bytes, err, errlen) < 0)
		return -1;
	o->l_ef_bytes = in->l_ef_bytes ? in->l_ef_bytes :
			max3(in->l_af_bytes, in->l_cs0_bytes, 0);
	if (check_size("--l-ef", o->l_ef_bytes, err, errlen) < 0)
		return -1;
	o->l_max_bytes = max3(in->l_af_bytes, in->l_cs0_bytes, o->l_ef_bytes);
	if (in->l_max_bytes) {
		if (check_size("--l-max", in->l_max_bytes, err, errlen) < 0)
			return -1;
		if (in->l_max_bytes < o->l_max_bytes) {
			snprintf(err, errlen, "--l-max: %u is below the "
				 "largest packet size given (%u) (accepted: "
				 "%u..%u bytes: the largest packet of AF, "
				 "CS0 and EF)", in->l_max_bytes,
				 o->l_max_bytes, o->l_max_bytes,
				 PARAMS_L_MAX_BYTES);
			return -1;
		}
		o->l_max_bytes = in->l_max_bytes;
	}
	if (in->capacity_bps == 0 || in->capacity_bps == RATE_UNLIMITED) {
		snprintf(err, errlen, "--capacity: %s is not a capacity "
			 "(accepted: a rate above 0, e.g. 20Mbit; not "
			 "unlimited: BW is a fraction of it)",
			 in->capacity_bps ? "unlimited" : "0");
		return -1;
	}
	rate_text(in->capacity_bps, r2, sizeof(r2));
	if (in->ef_exp_bps >= in->capacity_bps) {
		snprintf(err, errlen, "--ef-exp: %s is not below --capacity "
			 "%s (accepted: 0 <= R_EF^exp < C; eq. 3 would leave "
			 "BW <= 0)", rate_text(in->ef_exp_bps, r1, sizeof(r1)),
			 r2);
		return -1;
	}
	o->ef_bps = in->has_ef ? in->ef_bps : in->ef_exp_bps;
	if (o->ef_bps > in->capacity_bps) {
		snprintf(err, errlen, "--ef: %s is above --capacity %s "
			 "(accepted: 0 <= R_EF <= C)",
			 rate_text(o->ef_bps, r1, sizeof(r1)), r2);
		return -1;
	}

	o->k_af = params_k_af(in->w_af, in->l_af_bytes, in->w_cs0,
			      in->l_cs0_bytes);
	o->b = params_b(in->w_af, in->l_af_bytes, in->w_cs0, in->l_cs0_bytes);
	o->bw = params_bw(o->b, in->capacity_bps, in->ef_exp_bps);
	o->lm_eq5_bytes = params_lm_eq5_bytes(in->l_af_bytes, in->w_af,
					      o->bw);
	o->lr_bound_bytes = params_lr_bound_bytes(o->l_max_bytes, o->bw);

	switch (in->lr_mode) {
	case PARAMS_LR_FIXED:
		o->lr_exact_bytes = 0.0;
		o->lr_bytes = 0;
		break;
	case PARAMS_LR_BOUND:
		o->lr_exact_bytes = o->lr_bound_bytes;
		/* up, but not for a rounding error above an integer:
		 * 1500 * 0.25 may come out as 375.00000000000006 */
		o->lr_bytes = (uint64_t)ceil(o->lr_bound_bytes - 1e-6);
		break;
	case PARAMS_LR_PERIOD:
		if (in->lr_period_ns == 0 ||
		    in->lr_period_ns > PARAMS_PERIOD_MAX_NS) {
			snprintf(err, errlen, "--lr: period:%s is out of "
				 "range (accepted: period:DURATION with "
				 "0 < DURATION <= 86400s)",
				 fmt_duration(in->lr_period_ns, r1,
					      sizeof(r1)));
			return -1;
		}
		o->lr_exact_bytes = params_lr_period_bytes(in->lr_period_ns,
							   in->capacity_bps,
							   o->bw);
		if (o->lr_exact_bytes > (double)PARAMS_BYTES_MAX) {
			snprintf(err, errlen, "--lr: period:%s gives LR = "
				 "%.0f bytes (accepted: LR <= %llu bytes; "
				 "choose a shorter period)",
				 fmt_duration(in->lr_period_ns, r1,
					      sizeof(r1)),
				 o->lr_exact_bytes,
				 (unsigned long long)PARAMS_BYTES_MAX);
			return -1;
		}
		o->lr_bytes = (uint64_t)llround(o->lr_exact_bytes);
		break;
	case PARAMS_LR_BYTES:
		if (in->lr_bytes > PARAMS_BYTES_MAX) {
			snprintf(err, errlen, "--lr: %llu is out of range "
				 "(accepted: 0..%llu bytes)",
				 (unsigned long long)in->lr_bytes,
				 (unsigned long long)PARAMS_BYTES_MAX);
			return -1;
		}
		o->lr_exact_bytes = (double)in->lr_bytes;
		o->lr_bytes = in->lr_bytes;
		break;
	default:
		snprintf(err, errlen, "--lr: mode %d is unknown (accepted: "
			 "fixed, bound, period:DURATION, BYTES)",
			 (int)in->lr_mode);
		return -1;
	}
	if (in->rule != PARAMS_RULE_PAPER &&
	    in->rule != PARAMS_RULE_CALIBRATED) {
		snprintf(err, errlen, "--rule: %d is unknown (accepted: "
			 "paper, calibrated)", (int)in->rule);
		return -1;
	}
	lm5 = round(o->lm_eq5_bytes);
	o->lm_bytes = (lm5 < 1.0 ? 1 : (uint64_t)lm5) + o->lr_bytes;
	if (o->lm_bytes > PARAMS_BYTES_MAX) {
		snprintf(err, errlen, "--lr: LM = eq. 5 + LR = %llu bytes "
			 "is too large (accepted: LM <= %llu bytes; choose a "
			 "smaller LR)", (unsigned long long)o->lm_bytes,
			 (unsigned long long)PARAMS_BYTES_MAX);
		return -1;
	}

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
	/* credit slope while AF holds p_high: + C (1 - BW) while AF sends,
	 * - C BW while EF sends (AF queue non-empty), in bit/s */
	slope_bps = ((double)in->capacity_bps - (double)o->ef_bps) *
		    (1.0 - o->bw) - (double)o->ef_bps * o->bw;
	o->startup_s = slope_bps > 0.0 ?
		       (double)o->lm_bytes * 8.0 / slope_bps : -1.0;
	o->window_pkts = params_window_pkts(o->lm_bytes - o->lr_bytes,
					   in->l_af_bytes, o->bw,
					   in->capacity_bps, in->ef_exp_bps);
	o->idle_window_s = params_idle_window_s(o->lm_bytes - o->lr_bytes,
						o->bw, in->capacity_bps);
	return compute_cal(in, o, err, errlen);
}

/* ---- output ------------------------------------------------------------- */

/* One rate unit for the whole report, chosen from C. */
struct rate_unit {
	double      div;
	const char *name;
};

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

/* A libconfig integer: with the L suffix beyond 32 bits. */
static const char *conf_int(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu%s", (unsigned long long)v,
		 v > CONF_INT_MAX ? "L" : "");
	return buf;
}

/* One parameter set as the block writes it. */
struct block_set {
	double      bw;
	uint64_t    lm_bytes, lr_bytes;
	const char *comment;            /* after the pss line */
};

static struct block_set block_set(const struct params_out *o,
				  enum params_rule rule)
{
	struct block_set b;

	if (rule == PARAMS_RULE_CALIBRATED) {
		b.bw = o->cal.bw;
		b.lm_bytes = o->cal.lm_bytes;
		b.lr_bytes = o->cal.lr_bytes;
		b.comment = "calibrated (docs/pss.md)";
	} else {
		b.bw = o->bw;
		b.lm_bytes = o->lm_bytes;
		b.lr_bytes = o->lr_bytes;
		b.comment = "eq. 3-5";
	}
	return b;
}

/* The block with the set `rule`; `sim` adds credit_init = LR (the
 * simulation measures the steady state, see params_simulate()) and the
 * credit trace when `trace` is given, and leaves dwrr out. */
static void write_block(FILE *f, const struct params_in *in,
			const struct params_out *o, enum params_rule rule,
			int only_registered, int sim, const char *trace)
{
	struct block_set b = block_set(o, rule);
	char cap[48], bw[48], lm[32], lr[32], qa[32], qc[32], ci[64] = "";
	char pss[CONF_PATH_MAX + 256], dwrr[160], tr[CONF_PATH_MAX + 16] = "";
	const char *pss_off = "", *dwrr_off = "";
	int w;

	if (only_registered && !sched_lookup("pss"))
		pss_off = "# ";
	if (only_registered && !sched_lookup("dwrr"))
		dwrr_off = "# ";
	rate_text(in->capacity_bps, cap, sizeof(cap));
	snprintf(bw, sizeof(bw), "%.9g", b.bw);
	if (!strpbrk(bw, ".e"))
		strcat(bw, ".0");
	conf_int(b.lr_bytes, lr, sizeof(lr));
	if (sim && b.lr_bytes)
		snprintf(ci, sizeof(ci), " credit_init = %s;", lr);
	if (sim && trace)
		snprintf(tr, sizeof(tr), " trace = \"%s\";", trace);
	snprintf(pss, sizeof(pss), "  %spss  = { bw = %s; lm = %s; lr = %s; "
		 "capacity = \"%s\";%s%s };", pss_off, bw,
		 conf_int(b.lm_bytes, lm, sizeof(lm)), lr, cap, ci, tr);
	snprintf(dwrr, sizeof(dwrr), "  %sdwrr = { quantum = { af = %s; "
		 "cs0 = %s; }; };", dwrr_off,
		 conf_int(o->quantum_af_bytes, qa, sizeof(qa)),
		 conf_int(o->quantum_cs0_bytes, qc, sizeof(qc)));
	/* the two comments in one column */
	w = (int)(strlen(pss) > strlen(dwrr) ? strlen(pss) : strlen(dwrr)) + 3;

	fprintf(f, "scheduler = {\n");
	fprintf(f, "  %sname = \"pss\";\n", pss_off);
	fprintf(f, "%-*s# %s\n", w, pss, b.comment);
	if (!sim && b.lr_bytes)
		fprintf(f, "  # the credit starts at credit_init (default 0, as "
			"in the paper): add credit_init = %s;\n"
			"  # to skip the start-up during which AF catches up "
			"LR bytes\n", lr);
	if (!sim)       /* the simulation runs pss only */
		fprintf(f, "%-*s# same weights\n", w, dwrr);
	fprintf(f, "};\n");
	if (*pss_off)
		fprintf(f, "# (pss is not built into this schedtun yet: "
			"its lines are commented out)\n");
	if (*dwrr_off && !sim)
		fprintf(f, "# (dwrr is not built into this schedtun yet: "
			"its line is commented out)\n");
}

void params_write_conf_rule(FILE *f, const struct params_in *in,
			    const struct params_out *o,
			    enum params_rule rule, int only_registered)
{
	write_block(f, in, o, rule, only_registered, 0, NULL);
}

void params_write_conf(FILE *f, const struct params_in *in,
		       const struct params_out *o, int only_registered)
{
	write_block(f, in, o, in->rule, only_registered, 0, NULL);
}

/* With mtu > 0: a configuration the daemon would run the simulation
 * with (the link at C, an MTU that fits the packets, the block with
 * credit_init and the trace).  With mtu == 0: the block exactly as
 * printed, alone. */
static void write_generated(FILE *f, const struct params_in *in,
			    const struct params_out *o, enum params_rule rule,
			    uint32_t mtu, const char *trace)
{
	char cap[48];

	if (!mtu) {
		write_block(f, in, o, rule, 0, 0, NULL);
		return;
	}
	fprintf(f, "tunnel = { mtu = %u; };\n", mtu);
	fprintf(f, "link = { rate = \"%s\"; };\n",
		rate_text(in->capacity_bps, cap, sizeof(cap)));
	fprintf(f, "stats = { interval = 0; };\n");
	write_block(f, in, o, rule, 1, 1, trace);
}

/* Writes that configuration to a temporary file and loads it through
 * conf_load(), exactly as `schedtun --check` would.  Returns the error
 * count (diagnostics on diag_out, the file called `label`), or -1 if no
 * file could be made.  On 0 the caller conf_free()s c. */
static int load_generated(const struct params_in *in,
			  const struct params_out *o, enum params_rule rule,
			  uint32_t mtu, const char *trace, struct conf *c,
			  FILE *diag_out, const char *label)
{
	const char *dir = getenv("TMPDIR");
	char path[CONF_PATH_MAX];
	struct diag d;
	FILE *f;
	int fd, n;

	snprintf(path, sizeof(path), "%s/schedtun-params-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return -1;
	}
	write_generated(f, in, o, rule, mtu, trace);
	if (fclose(f) != 0) {
		unlink(path);
		return -1;
	}
	diag_init(&d, diag_out, label);
	n = conf_load(path, c, &d);
	unlink(path);
	return n;
}

/* Loads the printed block as `schedtun --check` would and says so. */
static void check_block(FILE *out, const struct params_in *in,
			const struct params_out *o, enum params_rule rule)
{
	static struct conf c;           /* large: off the stack */
	int n;

	fflush(out);
	n = load_generated(in, o, rule, 0, NULL, &c, out, "  block");
	if (n == 0) {
		conf_free(&c);
		fprintf(out, "(checked: this build loads the block as a "
			"configuration file)\n");
	} else if (n < 0) {
		fprintf(out, "(not checked: cannot write a temporary file: "
			"%s)\n", strerror(errno));
	} else {
		fprintf(out, "(this build rejects the block: %d error%s "
			"above)\n", n, n > 1 ? "s" : "");
	}
}

static uint32_t sim_mtu(const struct params_in *in, const struct params_out *o)
{
	uint32_t m = max3(in->l_af_bytes, in->l_cs0_bytes, o->l_ef_bytes);

	return m < SIM_MTU_MIN ? SIM_MTU_MIN : m;
}

/* With LR > 0 the credit starts at LR (credit_init), not at 0 as in the
 * paper: from 0 AF first holds p_high for the whole start-up (LR bytes
 * behind), which can outlast the run (120 s for 9:2 with period:15s);
 * from LR the run measures the steady state at once. */
int params_simulate(const struct params_in *in, const struct params_out *o,
		    enum params_rule rule, uint64_t dur_ns,
		    const char *trace_path, struct sim_result *res, FILE *err,
		    char *why, size_t whylen)
{
	static struct sim_config sc;    /* holds a struct conf: keep it off
					 * the stack */
	char names[256];
	uint32_t mtu = sim_mtu(in, o);
	int n, rc;

	if (!sched_lookup("pss")) {
		snprintf(why, whylen, "scheduler pss is not built into this "
			 "schedtun (it has: %s)",
			 sched_names(names, sizeof(names)));
		return 1;
	}
	if (mtu > SIM_MTU_MAX) {
		snprintf(why, whylen, "a packet of %u bytes is above the "
			 "largest tunnel.mtu (%u bytes)", mtu, SIM_MTU_MAX);
		return 1;
	}
	if (trace_path && (strlen(trace_path) >= CONF_PATH_MAX ||
			   strpbrk(trace_path, "\"\\"))) {
		snprintf(why, whylen, "the trace path is too long or holds a "
			 "quote or a backslash");
		return 1;
	}
	memset(&sc, 0, sizeof(sc));
	n = load_generated(in, o, rule, mtu, trace_path, &sc.conf, err,
			   "generated simulation config");
	if (n < 0) {
		snprintf(why, whylen, "cannot write a temporary "
			 "configuration file (%s)", strerror(errno));
		return 1;
	}
	if (n > 0) {
		snprintf(why, whylen, "this build rejects the generated "
			 "configuration (see above)");
		return 1;
	}
	if (o->ef_bps > 0) {
		sc.src[CLS_EF].kind = SIM_SRC_CBR;
		sc.src[CLS_EF].pkt_bytes = o->l_ef_bytes;
		sc.src[CLS_EF].rate_bps = o->ef_bps;
	}
	sc.src[CLS_AF].kind = SIM_SRC_GREEDY;
	sc.src[CLS_AF].pkt_bytes = in->l_af_bytes;
	sc.src[CLS_CS0].kind = SIM_SRC_GREEDY;
	sc.src[CLS_CS0].pkt_bytes = in->l_cs0_bytes;
	sc.duration_ns = dur_ns;
	sc.warmup_ns = dur_ns / SIM_WARMUP_DIV;
	rc = sim_run(&sc, res);
	conf_free(&sc.conf);
	return rc < 0 ? -1 : 0;
}

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

static void report(FILE *out, const struct params_in *in,
		   const struct params_out *o)
{
	struct rate_unit u = unit_for(in->capacity_bps);
	double c = (double)in->capacity_bps / u.div;
	double ex = (double)in->ef_exp_bps / u.div;
	double ef = (double)o->ef_bps / u.div;
	double wa1 = (double)in->w_af - 1.0, wc1 = (double)in->w_cs0 - 1.0;
	char cap[48], rx[48], re[48], lrs[256];

	rate_text(in->capacity_bps, cap, sizeof(cap));
	rate_text(in->ef_exp_bps, rx, sizeof(rx));
	rate_text(o->ef_bps, re, sizeof(re));
	fprintf(out, "PSS parameters for WRR weights W_AF:W_CS0 = %u:%u "
		"(Finzi et al. 2023, section 2.4)\n", in->w_af, in->w_cs0);
	fprintf(out, "  inputs: L_AF = %u, L_CS0 = %u, L_EF = %u bytes; "
		"C = %s, R_EF^exp = %s, R_EF = %s%s\n\n", in->l_af_bytes,
		in->l_cs0_bytes, o->l_ef_bytes, cap, rx, re,
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
		ex, c, u.name);
	fprintf(out, "LR = %llu bytes\n    %s\n",
		(unsigned long long)o->lr_bytes, lr_source(in, o, lrs,
							    sizeof(lrs)));
	fprintf(out, "LM = %llu bytes\n    eq. 5: L_AF*(W_AF-1)*(1 - BW) = "
		"%u*%.0f*(1 - %.6f) = %.2f, rounded%s",
		(unsigned long long)o->lm_bytes, in->l_af_bytes, wa1, o->bw,
		o->lm_eq5_bytes, o->lr_bytes ? "" : "\n");
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
		report_startup(out, &u, c, ef, o->startup_s, o->lm_bytes,
			       o->bw);
	report_cal(out, in, o);

	fprintf(out, "\nConfiguration (paste into the daemon's file)%s:\n\n",
		in->rule == PARAMS_RULE_CALIBRATED ?
		", calibrated parameters (--rule calibrated)" : "");
	params_write_conf(out, in, o, 0);
	check_block(out, in, o, in->rule);
	if (in->rule == PARAMS_RULE_CALIBRATED) {
		fprintf(out, "\nOr, with the paper's parameters (eq. 3-5; "
			"--rule paper puts them above):\n\n");
		params_write_conf_rule(out, in, o, PARAMS_RULE_PAPER, 0);
		check_block(out, in, o, PARAMS_RULE_PAPER);
	} else {
		fprintf(out, "\nOr, with the calibrated parameters (docs/pss.md; "
			"--rule calibrated puts them above):\n\n");
		params_write_conf_rule(out, in, o, PARAMS_RULE_CALIBRATED, 0);
		check_block(out, in, o, PARAMS_RULE_CALIBRATED);
	}

	fprintf(out, "\nTheoretical output rates at R_EF = %.6g %s "
		"(R_EF^exp = %.6g %s)\n", ef, u.name, ex, u.name);
	fprintf(out, "DWRR AF = %.3f %s\n    eq. 1: K_AF*(C - R_EF) = "
		"%.6f*(%.6g - %.6g)\n", o->wrr_af_bps / u.div, u.name, o->k_af,
		c, ef);
	fprintf(out, "DWRR CS0 = %.3f %s\n    eq. 6: (1 - K_AF)*(C - R_EF) = "
		"%.6f*(%.6g - %.6g)\n", o->wrr_cs0_bps / u.div, u.name,
		1.0 - o->k_af, c, ef);
	fprintf(out, "PSS AF = %.3f %s\n    eq. 7: min(K_AF*(C - R_EF^exp), "
		"C - R_EF) = min(%.6f*(%.6g - %.6g), %.6g - %.6g) = "
		"min(%.6g, %.6g): %s\n", o->pss_af_bps / u.div, u.name,
		o->k_af, c, ex, c, ef,
		o->k_af * (c - ex), c - ef,
		o->eq7_limited ? "EF leaves less than AF's reservation" :
		"AF gets its reservation");
	fprintf(out, "PSS CS0 = %.3f %s\n    eq. 8: max(C - R_EF - R_PSS/AF, "
		"0) = max(%.6g - %.6g - %.6g, 0)\n", o->pss_cs0_bps / u.div,
		u.name, c, ef, o->pss_af_bps / u.div);
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

static void report_sim(FILE *out, FILE *err, const struct params_in *in,
		       const struct params_out *o, uint64_t dur_ns)
{
	char d1[32], d2[32];
	double pkt_ns;
	int shortened = 0;

	fprintf(out, "\nPublished analysis vs Algorithm 1\n");
	/* a ratio of rates needs packets, not seconds: cap their number */
	pkt_ns = 8e9 * fmin(fmin(in->l_af_bytes, in->l_cs0_bytes),
			    o->l_ef_bytes) / (double)in->capacity_bps;
	if ((double)dur_ns / pkt_ns > SIM_PKTS_MAX) {
		dur_ns = (uint64_t)(SIM_PKTS_MAX * pkt_ns);
		shortened = 1;
	}
	report_sim_set(out, err, in, o, PARAMS_RULE_PAPER, dur_ns);
	fflush(out);
	report_sim_set(out, err, in, o, PARAMS_RULE_CALIBRATED, dur_ns);
	fprintf(out, "    both: constant link at C, EF CBR at R_EF, greedy AF "
		"and CS0 (L_AF = %u, L_CS0 = %u, L_EF = %u bytes), mean over "
		"%s..%s of virtual time%s\n", in->l_af_bytes, in->l_cs0_bytes,
		o->l_ef_bytes,
		fmt_duration(dur_ns / SIM_WARMUP_DIV, d1, sizeof(d1)),
		fmt_duration(dur_ns, d2, sizeof(d2)),
		shortened ? " (shortened: 20 million packets at C)" : "");
	fprintf(out, "    Algorithm 1 gives AF = BW*C + (credit cut at LM - "
		"credit kept by the floor 0)/T: AF's share of the link time "
		"is BW but for the clamps (docs/pss.md); eqs. 3-5 count on "
		"one whole packet cut at each end of every WRR round\n");
}

/* ---- the command line --------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: schedtun params pss --w-af N --w-cs0 N --l-af BYTES --l-cs0 BYTES\n"
"                           --capacity RATE --ef-exp RATE [options]\n"
"       schedtun params --help\n"
"\n"
"Computes the PSS parameters BW, LM and LR that give the service of a WRR\n"
"or DWRR with the weights W_AF:W_CS0 (Finzi et al., \"Priority Switching\n"
"Scheduler\", 2023: eqs. 2-5, LR per sections 2.1, 2.4 and 4.2.1), the DWRR\n"
"quanta for the same weights, the theoretical AF and CS0 output rates of\n"
"both (eqs. 1, 6, 7, 8), a second, calibrated set for which Algorithm 1\n"
"gives eq. 7's AF rate, ready-to-paste `scheduler` blocks for both, and\n"
"the AF rate Algorithm 1 actually gives with each, measured with the\n"
"simulator.\n"
"\n"
"required:\n"
"  --w-af N            WRR weight of AF (packets per round), 2..%u\n"
"  --w-cs0 N           WRR weight of CS0, 2..%u\n"
"                      (1 is refused: eq. 4 counts W - 1 packets per window)\n"
"  --l-af BYTES        average AF packet size (IP bytes), %u..%u\n"
"  --l-cs0 BYTES       average CS0 packet size, %u..%u\n"
"  --capacity RATE     link capacity C (a variable link: its mean), e.g. 20Mbit\n"
"  --ef-exp RATE       expected EF rate R_EF^exp, 0 <= R_EF^exp < C\n"
"options:\n"
"  --ef RATE           actual EF rate R_EF, 0..C, for eqs. 1, 6, 7, 8 and the\n"
"                      simulation (default: --ef-exp)\n"
"  --l-ef BYTES        EF packet size, %u..%u (default: the larger of --l-af\n"
"                      and --l-cs0)\n"
"  --l-max BYTES       L_max(MC(AF)) for the LR bound (default: the largest of\n"
"                      --l-af, --l-cs0, --l-ef)\n"
"  --lr CHOICE         resume level LR, in bytes:\n"
"                        fixed            0: fixed capacity (section 2.4; default)\n"
"                        bound            L_max*BW rounded up, the lower bound\n"
"                                         of section 2.1\n"
"                        period:DURATION  T*C*BW (section 4.2.1) for a capacity\n"
"                                         periodic over T, e.g. period:15s\n"
"                        BYTES            this many bytes, 0..%llu\n"
"                      With LR > 0, LM = eq. 5 + LR (sections 2.1, 2.3).\n"
"  --rule RULE         the set in the main configuration block: paper\n"
"                      (eqs. 3-5 as published; default) or calibrated (BW =\n"
"                      K_AF*(C - R_EF^exp)/C, LR >= 2*L_max*BW, LM - LR >=\n"
"                      eq. 5 and 16 AF packets; docs/pss.md).  Both sets are\n"
"                      printed, simulated, and given as blocks either way.\n"
"  --no-sim            do not run Algorithm 1 in the simulator\n"
"  --sim-time DURATION virtual time simulated, 10s..3600s (default 60s; the\n"
"                      first twelfth is left out of the means; shortened\n"
"                      to 20 million packets on fast links)\n"
"  -h, --help          this text\n"
"\n"
"Units: rates as in tc (bit, kbit, Mbit, Gbit; a plain number is bit/s;\n"
"\"0\" for no EF); sizes, LM and LR in bytes; BW is a fraction of C.\n"
"Example: schedtun params pss --w-af 9 --w-cs0 2 --l-af 1500 --l-cs0 1500 \\\n"
"             --capacity 20Mbit --ef-exp 10Mbit\n",
		PARAMS_W_MAX, PARAMS_W_MAX,
		PARAMS_L_MIN_BYTES, PARAMS_L_MAX_BYTES,
		PARAMS_L_MIN_BYTES, PARAMS_L_MAX_BYTES,
		PARAMS_L_MIN_BYTES, PARAMS_L_MAX_BYTES,
		(unsigned long long)PARAMS_BYTES_MAX);
}

/* A decimal integer, nothing else (no sign, no blanks, no hex). */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int opt_weight(const char *opt, const char *s, uint32_t *out,
		      FILE *err)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v > UINT32_MAX) {
		fprintf(err, "schedtun params: %s: '%s' is not a weight "
			"(accepted: an integer 2..%u)\n", opt, s,
			PARAMS_W_MAX);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int opt_size(const char *opt, const char *s, uint32_t *out, FILE *err)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0) {
		fprintf(err, "schedtun params: %s: '%s' is not a packet size "
			"(accepted: an integer %u..%u, bytes)\n", opt, s,
			PARAMS_L_MIN_BYTES, PARAMS_L_MAX_BYTES);
		return -1;
	}
	/* the same words as params_compute(); checked here because 0 means
	 * "default" in struct params_in for --l-ef and --l-max */
	if (v < PARAMS_L_MIN_BYTES || v > PARAMS_L_MAX_BYTES) {
		fprintf(err, "schedtun params: %s: %s is out of range "
			"(accepted: %u..%u bytes)\n", opt, s,
			PARAMS_L_MIN_BYTES, PARAMS_L_MAX_BYTES);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A rate; "0" (any zero, with or without a unit) when allow_zero. */
static int opt_rate(const char *opt, const char *s, int allow_zero,
		    uint64_t *out, FILE *err)
{
	char msg[512], one[128];
	const char *p = s;
	int zero = 0;

	if (parse_rate_bps(s, 0, out, msg, sizeof(msg)) == 0)
		return 0;
	if (allow_zero) {
		/* all-zero digits: the unit is valid if "1<unit>" parses */
		while (*p == '0' || *p == '.') {
			zero |= *p == '0';
			p++;
		}
		snprintf(one, sizeof(one), "1%s", p);
		if (zero && parse_rate_bps(one, 0, out, NULL, 0) == 0) {
			*out = 0;
			return 0;
		}
	}
	fprintf(err, "schedtun params: %s: %s%s\n", opt, msg,
		allow_zero ? "; or 0 for no EF" : "");
	return -1;
}

static int opt_lr(const char *s, struct params_in *in, FILE *err)
{
	char msg[512];
	uint64_t v;

	if (strcmp(s, "fixed") == 0) {
		in->lr_mode = PARAMS_LR_FIXED;
		return 0;
	}
	if (strcmp(s, "bound") == 0) {
		in->lr_mode = PARAMS_LR_BOUND;
		return 0;
	}
	if (strncmp(s, "period:", 7) == 0) {
		if (parse_duration_ns(s + 7, &v, msg, sizeof(msg)) < 0) {
			fprintf(err, "schedtun params: --lr: %s\n", msg);
			return -1;
		}
		in->lr_mode = PARAMS_LR_PERIOD;
		in->lr_period_ns = v;
		return 0;
	}
	if (parse_u64(s, &v) == 0) {
		in->lr_mode = PARAMS_LR_BYTES;
		in->lr_bytes = v;
		return 0;
	}
	fprintf(err, "schedtun params: --lr: '%s' is not an LR choice "
		"(accepted: fixed, bound, period:DURATION, or a number of "
		"bytes 0..%llu)\n", s, (unsigned long long)PARAMS_BYTES_MAX);
	return -1;
}

enum {
	OPT_W_AF = 256, OPT_W_CS0, OPT_L_AF, OPT_L_CS0, OPT_L_EF, OPT_L_MAX,
	OPT_CAPACITY, OPT_EF_EXP, OPT_EF, OPT_LR, OPT_NO_SIM, OPT_SIM_TIME,
	OPT_RULE,
};

int params_cli(int argc, char **argv, FILE *out, FILE *err)
{
	static const struct option opts[] = {
		{ "w-af",     required_argument, NULL, OPT_W_AF },
		{ "w-cs0",    required_argument, NULL, OPT_W_CS0 },
		{ "l-af",     required_argument, NULL, OPT_L_AF },
		{ "l-cs0",    required_argument, NULL, OPT_L_CS0 },
		{ "l-ef",     required_argument, NULL, OPT_L_EF },
		{ "l-max",    required_argument, NULL, OPT_L_MAX },
		{ "capacity", required_argument, NULL, OPT_CAPACITY },
		{ "ef-exp",   required_argument, NULL, OPT_EF_EXP },
		{ "ef",       required_argument, NULL, OPT_EF },
		{ "lr",       required_argument, NULL, OPT_LR },
		{ "no-sim",   no_argument,       NULL, OPT_NO_SIM },
		{ "sim-time", required_argument, NULL, OPT_SIM_TIME },
		{ "rule",     required_argument, NULL, OPT_RULE },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const required[] = {
		"--w-af", "--w-cs0", "--l-af", "--l-cs0", "--capacity",
		"--ef-exp",
	};
	struct params_in in;
	struct params_out o;
	uint64_t sim_ns = SIM_DEFAULT_NS;
	unsigned int seen = 0;          /* bit i: required[i] given */
	char msg[1024];
	int opt, no_sim = 0, i, bad = 0;

	if (argc < 2) {
		fprintf(err, "schedtun params: what to compute? (accepted: "
			"pss)\n");
		usage(err);
		return 1;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(out);
		return 0;
	}
	if (strcmp(argv[1], "pss") != 0) {
		fprintf(err, "schedtun params: '%s' is not a calculator "
			"(accepted: pss)\n", argv[1]);
		usage(err);
		return 1;
	}

	memset(&in, 0, sizeof(in));
	argc--;
	argv++;
	optind = 0;             /* full re-initialisation (glibc) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		const char *a = optarg;

		switch (opt) {
		case OPT_W_AF:
			bad |= opt_weight("--w-af", a, &in.w_af, err);
			seen |= 1u << 0;
			break;
		case OPT_W_CS0:
			bad |= opt_weight("--w-cs0", a, &in.w_cs0, err);
			seen |= 1u << 1;
			break;
		case OPT_L_AF:
			bad |= opt_size("--l-af", a, &in.l_af_bytes, err);
			seen |= 1u << 2;
			break;
		case OPT_L_CS0:
			bad |= opt_size("--l-cs0", a, &in.l_cs0_bytes, err);
			seen |= 1u << 3;
			break;
		case OPT_CAPACITY:
			bad |= opt_rate("--capacity", a, 0, &in.capacity_bps,
					err);
			seen |= 1u << 4;
			break;
		case OPT_EF_EXP:
			bad |= opt_rate("--ef-exp", a, 1, &in.ef_exp_bps, err);
			seen |= 1u << 5;
			break;
		case OPT_L_EF:
			bad |= opt_size("--l-ef", a, &in.l_ef_bytes, err);
			break;
		case OPT_L_MAX:
			bad |= opt_size("--l-max", a, &in.l_max_bytes, err);
			break;
		case OPT_EF:
			bad |= opt_rate("--ef", a, 1, &in.ef_bps, err);
			in.has_ef = 1;
			break;
		case OPT_LR:
			bad |= opt_lr(a, &in, err);
			break;
		case OPT_NO_SIM:
			no_sim = 1;
			break;
		case OPT_SIM_TIME:
			if (parse_duration_ns(a, &sim_ns, msg,
					      sizeof(msg)) < 0) {
				fprintf(err, "schedtun params: --sim-time: "
					"%s\n", msg);
				bad = -1;
			} else if (sim_ns < SIM_MIN_NS || sim_ns > SIM_MAX_NS) {
				fprintf(err, "schedtun params: --sim-time: "
					"'%s' is out of range (accepted: "
					"10s..3600s)\n", a);
				bad = -1;
			}
			break;
		case OPT_RULE:
			if (strcmp(a, "paper") == 0) {
				in.rule = PARAMS_RULE_PAPER;
			} else if (strcmp(a, "calibrated") == 0) {
				in.rule = PARAMS_RULE_CALIBRATED;
			} else {
				fprintf(err, "schedtun params: --rule: '%s' is "
					"not a rule (accepted: paper, "
					"calibrated)\n", a);
				bad = -1;
			}
			break;
		case 'h':
			usage(out);
			return 0;
		case ':':
			fprintf(err, "schedtun params: %s needs a value (see "
				"schedtun params --help)\n", argv[optind - 1]);
			return 1;
		default:
			fprintf(err, "schedtun params: unknown option '%s' "
				"(see schedtun params --help)\n",
				argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(err, "schedtun params: unexpected argument '%s' (see "
			"schedtun params --help)\n", argv[optind]);
		return 1;
	}
	if (bad)
		return 1;
	for (i = 0; i < (int)(sizeof(required) / sizeof(required[0])); i++) {
		if (!(seen & (1u << i))) {
			fprintf(err, "schedtun params: %s is required (see "
				"schedtun params --help)\n", required[i]);
			bad = 1;
		}
	}
	if (bad)
		return 1;
	if (params_compute(&in, &o, msg, sizeof(msg)) < 0) {
		fprintf(err, "schedtun params: %s\n", msg);
		return 1;
	}
	report(out, &in, &o);
	if (!no_sim) {
		fflush(out);
		report_sim(out, err, &in, &o, sim_ns);
	}
	return 0;
}

int params_main(int argc, char **argv)
{
	return params_cli(argc, argv, stdout, stderr);
}
