/* params_json.c - `schedtun params pss --json`: everything the text
 * report prints, as one JSON object, numbers at full precision in bit/s,
 * bytes, ns and seconds (docs/json-output.md).  Only presentation: the
 * numbers come from params_compute(), the blocks and the simulation from
 * params_conf.c, as for the text report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params/params.h"
#include "pkt/classify.h"
#include "sim/sim.h"
#include "util/jw.h"
#include "params_int.h"

static const char *const lr_mode_name[] = {
	[PARAMS_LR_FIXED] = "fixed", [PARAMS_LR_BOUND] = "bound",
	[PARAMS_LR_PERIOD] = "period", [PARAMS_LR_BYTES] = "bytes",
};

static const char *const rule_name[] = {
	[PARAMS_RULE_PAPER] = "paper", [PARAMS_RULE_CALIBRATED] = "calibrated",
};

/* The inputs, defaults resolved (L_EF, L_max, R_EF). */
static void json_inputs(struct jw *w, const struct params_in *in,
			const struct params_out *o)
{
	jw_obj_begin(w, "inputs");
	jw_u64(w, "w_af", in->w_af);
	jw_u64(w, "w_cs0", in->w_cs0);
	jw_u64(w, "l_af_bytes", in->l_af_bytes);
	jw_u64(w, "l_cs0_bytes", in->l_cs0_bytes);
	jw_u64(w, "l_ef_bytes", o->l_ef_bytes);
	jw_u64(w, "l_max_bytes", o->l_max_bytes);
	jw_u64(w, "capacity_bps", in->capacity_bps);
	jw_u64(w, "ef_exp_bps", in->ef_exp_bps);
	jw_u64(w, "ef_bps", o->ef_bps);
	jw_bool(w, "ef_given", in->has_ef);
	jw_str(w, "lr_mode", lr_mode_name[in->lr_mode]);
	if (in->lr_mode == PARAMS_LR_PERIOD)
		jw_u64(w, "lr_period_ns", in->lr_period_ns);
	else
		jw_null(w, "lr_period_ns");
	jw_str(w, "rule", rule_name[in->rule]);
	jw_obj_end(w);
}

/* A quantity that may not exist (< 0: "never"): the number, or null. */
static void real_or_null(struct jw *w, const char *key, double v, int have)
{
	if (have && v >= 0)
		jw_real(w, key, v);
	else
		jw_null(w, key);
}

/* The members both sets have: BW, LM, LR, the windows, the start-up. */
static void json_set_common(struct jw *w, double bw, uint64_t lm_bytes,
			    uint64_t lr_bytes, double window_pkts,
			    double idle_window_s, double startup_s)
{
	jw_real(w, "bw", bw);
	jw_u64(w, "lm_bytes", lm_bytes);
	jw_u64(w, "lr_bytes", lr_bytes);
	real_or_null(w, "window_pkts", window_pkts, 1);
	jw_real(w, "idle_window_s", idle_window_s);
	/* the report prints the start-up only with LR > 0 */
	real_or_null(w, "startup_s", startup_s, lr_bytes > 0);
}

static void json_paper(struct jw *w, const struct params_out *o)
{
	jw_obj_begin(w, "paper");
	json_set_common(w, o->bw, o->lm_bytes, o->lr_bytes, o->window_pkts,
			o->idle_window_s, o->startup_s);
	jw_real(w, "lm_eq5_bytes", o->lm_eq5_bytes);
	jw_real(w, "lr_exact_bytes", o->lr_exact_bytes);
	jw_obj_end(w);
}

static void json_cal(struct jw *w, const struct params_out *o)
{
	const struct params_cal *k = &o->cal;

	jw_obj_begin(w, "calibrated");
	json_set_common(w, k->bw, k->lm_bytes, k->lr_bytes, k->window_pkts,
			k->idle_window_s, k->startup_s);
	jw_real(w, "lm_eq5_bytes", k->lm_eq5_bytes);
	jw_real(w, "lm_window_bytes", k->lm_window_bytes);
	jw_real(w, "lr_floor_bytes", k->lr_floor_bytes);
	jw_bool(w, "lr_raised", k->lr_raised);
	jw_bool(w, "lm_widened", k->lm_widened);
	jw_obj_end(w);
}

/* Eqs. 1, 6, 7, 8 at R_EF, bit/s. */
static void json_theory(struct jw *w, const struct params_out *o)
{
	jw_obj_begin(w, "theory");
	jw_real(w, "wrr_af_bps", o->wrr_af_bps);
	jw_real(w, "wrr_cs0_bps", o->wrr_cs0_bps);
	jw_real(w, "pss_af_bps", o->pss_af_bps);
	jw_real(w, "pss_cs0_bps", o->pss_cs0_bps);
	jw_bool(w, "eq7_limited", o->eq7_limited);
	jw_obj_end(w);
}

/* The block of `rule` as text, and how many errors the daemon's parser
 * finds in it (0: it loads), as the text report checks it. */
static void json_block(struct jw *w, const struct params_in *in,
		       const struct params_out *o, enum params_rule rule)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	jw_obj_begin(w, rule_name[rule]);
	if (f) {
		params_write_conf_rule(f, in, o, rule, 0);
		fclose(f);
		jw_str(w, "text", text);
	} else {
		jw_null(w, "text");
	}
	free(text);
	jw_i64(w, "errors", params_check_block(in, o, rule, NULL, "block"));
	jw_obj_end(w);
}

/* One set in the simulator: the measured mean rates, or why not. */
static void json_sim_set(struct jw *w, FILE *err, const struct params_in *in,
			 const struct params_out *o, enum params_rule rule,
			 uint64_t dur_ns)
{
	struct sim_result res;
	char why[512];
	int rc;

	memset(&res, 0, sizeof(res));
	rc = params_simulate(in, o, rule, dur_ns, NULL, &res, err, why,
			     sizeof(why));
	jw_obj_begin(w, rule_name[rule]);
	if (rc == 0) {
		jw_real(w, "af_bps", res.mean_bps[CLS_AF]);
		jw_real(w, "cs0_bps", res.mean_bps[CLS_CS0]);
		jw_real(w, "ef_bps", res.mean_bps[CLS_EF]);
	} else {
		jw_str(w, "error", rc > 0 ? why :
		       "the simulator failed (its message is on stderr)");
	}
	jw_obj_end(w);
}

static void json_sim(struct jw *w, FILE *err, const struct params_in *in,
		     const struct params_out *o, uint64_t dur_ns)
{
	int shortened;

	dur_ns = params_sim_dur_ns(in, o, dur_ns, &shortened);
	jw_obj_begin(w, "sim");
	jw_u64(w, "duration_ns", dur_ns);
	jw_u64(w, "warmup_ns", dur_ns / PARAMS_SIM_WARMUP_DIV);
	jw_bool(w, "shortened", shortened);
	json_sim_set(w, err, in, o, PARAMS_RULE_PAPER, dur_ns);
	json_sim_set(w, err, in, o, PARAMS_RULE_CALIBRATED, dur_ns);
	jw_obj_end(w);
}

/* See params_int.h. */
void params_json(struct jw *w, FILE *err, const struct params_in *in,
		 const struct params_out *o, int sim, uint64_t sim_ns)
{
	jw_obj_begin(w, NULL);
	json_inputs(w, in, o);
	jw_real(w, "k_af", o->k_af);
	jw_real(w, "b", o->b);
	jw_real(w, "bw", o->bw);
	jw_u64(w, "lr_bytes", o->lr_bytes);
	jw_u64(w, "lm_bytes", o->lm_bytes);
	jw_real(w, "lr_bound_bytes", o->lr_bound_bytes);
	jw_obj_begin(w, "dwrr");
	jw_u64(w, "quantum_af_bytes", o->quantum_af_bytes);
	jw_u64(w, "quantum_cs0_bytes", o->quantum_cs0_bytes);
	jw_obj_end(w);
	json_paper(w, o);
	json_cal(w, o);
	json_theory(w, o);
	jw_obj_begin(w, "blocks");
	jw_str(w, "main", rule_name[in->rule]);
	json_block(w, in, o, PARAMS_RULE_PAPER);
	json_block(w, in, o, PARAMS_RULE_CALIBRATED);
	jw_obj_end(w);
	if (sim)
		json_sim(w, err, in, o, sim_ns);
	else
		jw_null(w, "sim");
	jw_obj_end(w);
}
