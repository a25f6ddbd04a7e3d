/* params_conf.c - a PSS parameter set as daemon configuration: the
 * ready-to-paste `scheduler` block, its check by the daemon's own parser,
 * and the struct conf the simulation runs, built directly (no file): the
 * conf's defaults, pss's defaults, the set's values through pss's key
 * table, then pss's check, exactly as if a file had been read.
 */
#include <libconfig.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "conf/conf.h"
#include "params/params.h"
#include "sched/sched.h"
#include "sim/sim.h"
#include "util/diag.h"
#include "params_int.h"

#define SIM_MTU_MIN      576u           /* conf.c's tunnel.mtu range */
#define SIM_MTU_MAX      9000u
#define CONF_INT_MAX     2147483647ull  /* above: libconfig needs an L */

/* See params_int.h. */
struct params_block params_block_of(const struct params_out *o,
				    enum params_rule rule)
{
	struct params_block b;

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

/* BW as the block writes it: 9 significant digits, always a real
 * ("1.0", not "1"), so that the block and the simulation run the same
 * number.  Returns buf. */
static const char *bw_text(double bw, char *buf, size_t len)
{
	snprintf(buf, len, "%.9g", bw);
	if (!strpbrk(buf, ".e") && strlen(buf) + 2 < len)
		strcat(buf, ".0");
	return buf;
}

/* A libconfig integer: with the L suffix beyond 32 bits.  Returns buf. */
static const char *conf_int(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu%s", (unsigned long long)v,
		 v > CONF_INT_MAX ? "L" : "");
	return buf;
}

/* Writes the block with the set `rule`; schedulers this build lacks are
 * commented out when only_registered is set. */
static void write_block(FILE *f, const struct params_in *in,
			const struct params_out *o, enum params_rule rule,
			int only_registered)
{
	struct params_block b = params_block_of(o, rule);
	char cap[48], bw[48], lm[32], lr[32], qa[32], qc[32];
	char pss[256], dwrr[160];
	const char *pss_off = "", *dwrr_off = "";
	int w;

	if (only_registered && !sched_lookup("pss"))
		pss_off = "# ";
	if (only_registered && !sched_lookup("dwrr"))
		dwrr_off = "# ";
	snprintf(pss, sizeof(pss), "  %spss  = { bw = %s; lm = %s; lr = %s; "
		 "capacity = \"%s\"; };", pss_off,
		 bw_text(b.bw, bw, sizeof(bw)),
		 conf_int(b.lm_bytes, lm, sizeof(lm)),
		 conf_int(b.lr_bytes, lr, sizeof(lr)),
		 params_rate_text(in->capacity_bps, cap, sizeof(cap)));
	snprintf(dwrr, sizeof(dwrr), "  %sdwrr = { quantum = { af = %s; "
		 "cs0 = %s; }; };", dwrr_off,
		 conf_int(o->quantum_af_bytes, qa, sizeof(qa)),
		 conf_int(o->quantum_cs0_bytes, qc, sizeof(qc)));
	/* the two comments in one column */
	w = (int)(strlen(pss) > strlen(dwrr) ? strlen(pss) : strlen(dwrr)) + 3;

	fprintf(f, "scheduler = {\n  %sname = \"pss\";\n", pss_off);
	fprintf(f, "%-*s# %s\n", w, pss, b.comment);
	if (b.lr_bytes)
		fprintf(f, "  # the credit starts at credit_init (default 0, "
			"as in the paper): add credit_init = %s;\n"
			"  # to skip the start-up during which AF catches "
			"up LR bytes\n", lr);
	fprintf(f, "%-*s# same weights\n", w, dwrr);
	fprintf(f, "};\n");
	if (*pss_off)
		fprintf(f, "# (pss is not built into this schedtun yet: "
			"its lines are commented out)\n");
	if (*dwrr_off)
		fprintf(f, "# (dwrr is not built into this schedtun yet: "
			"its line is commented out)\n");
}

/* See params.h. */
void params_write_conf_rule(FILE *f, const struct params_in *in,
			    const struct params_out *o,
			    enum params_rule rule, int only_registered)
{
	write_block(f, in, o, rule, only_registered);
}

/* See params.h. */
void params_write_conf(FILE *f, const struct params_in *in,
		       const struct params_out *o, int only_registered)
{
	write_block(f, in, o, in->rule, only_registered);
}

/* Parses libconfig text whose only section is `scheduler` the way
 * conf_load() parses that section (the default link, MTU and limits for
 * the scheduler's defaults).  Returns the error count; each error through
 * d. */
static int parse_scheduler_text(const char *text, struct diag *d)
{
	static const char *const root_keys[] = { "scheduler", NULL };
	alignas(16) unsigned char params[SCHED_PARAMS_MAX];
	static struct conf c;           /* large: off the stack */
	const struct sched_ops *sel;
	const config_setting_t *g;
	struct sched_env env;
	config_t cfg;
	int start = d->nerr;

	config_init(&cfg);
	if (config_read_string(&cfg, text) != CONFIG_TRUE) {
		diag_error(d, config_error_line(&cfg), NULL, "%s",
			   config_error_text(&cfg));
		config_destroy(&cfg);
		return d->nerr - start;
	}
	cfg_check_keys(config_root_setting(&cfg), root_keys, d);
	g = cfg_lookup(config_root_setting(&cfg), "scheduler");
	conf_defaults(&c);
	sel = c.sched;
	conf_sched_env(&c, &env);
	sched_parse_section(g, &sel, &env, params, d);
	conf_free(&c);
	config_destroy(&cfg);
	return d->nerr - start;
}

/* See params_int.h. */
int params_check_block(const struct params_in *in, const struct params_out *o,
		       enum params_rule rule, FILE *diag_out,
		       const char *label)
{
	char *text = NULL;
	size_t len = 0;
	struct diag d;
	FILE *f = open_memstream(&text, &len);
	int n;

	if (!f)
		return -1;
	write_block(f, in, o, rule, 0);
	if (fclose(f) != 0) {
		free(text);
		return -1;
	}
	diag_init(&d, diag_out, label);
	n = parse_scheduler_text(text, &d);
	free(text);
	return n;
}

/* The tunnel MTU of the simulation: one that fits the largest packet. */
static uint32_t sim_mtu(const struct params_in *in, const struct params_out *o)
{
	uint32_t m = params_max3(in->l_af_bytes, in->l_cs0_bytes,
				 o->l_ef_bytes);

	return m < SIM_MTU_MIN ? SIM_MTU_MIN : m;
}

/* Sets key `name` of pss (ops) in params from text, as a file would give
 * it.  0, or -1 with the reason in why. */
static int set_key(const struct sched_ops *ops, void *params,
		   const char *name, const char *text, char *why,
		   size_t whylen)
{
	char err[512];

	if (cfg_set_key(ops->keys, params, name, text, err, sizeof(err)) == 0)
		return 0;
	snprintf(why, whylen, "scheduler.%s.%s: %s", ops->name, name, err);
	return -1;
}

/* The set b's keys, capacity C, credit_init = LR when LR > 0 and the
 * trace when asked for, into pss's params.  0 or -1 (why). */
static int set_pss_keys(const struct sched_ops *ops, void *params,
			const struct params_in *in,
			const struct params_block *b, const char *trace_path,
			char *why, size_t whylen)
{
	char bw[48], lm[32], lr[32], cap[48];

	snprintf(lm, sizeof(lm), "%llu", (unsigned long long)b->lm_bytes);
	snprintf(lr, sizeof(lr), "%llu", (unsigned long long)b->lr_bytes);
	if (set_key(ops, params, "bw", bw_text(b->bw, bw, sizeof(bw)), why,
		    whylen) < 0 ||
	    set_key(ops, params, "lm", lm, why, whylen) < 0 ||
	    set_key(ops, params, "lr", lr, why, whylen) < 0 ||
	    set_key(ops, params, "capacity", params_rate_text(
			    in->capacity_bps, cap, sizeof(cap)), why,
		    whylen) < 0)
		return -1;
	if (b->lr_bytes &&
	    set_key(ops, params, "credit_init", lr, why, whylen) < 0)
		return -1;
	if (trace_path &&
	    set_key(ops, params, "trace", trace_path, why, whylen) < 0)
		return -1;
	return 0;
}

/* See params.h. */
int params_sim_conf(const struct params_in *in, const struct params_out *o,
		    enum params_rule rule, const char *trace_path,
		    struct conf *c, FILE *err, char *why, size_t whylen)
{
	const struct sched_ops *ops = sched_lookup("pss");
	struct params_block b = params_block_of(o, rule);
	uint32_t mtu = sim_mtu(in, o);
	struct sched_env env;
	char names[256];
	struct diag d;

	conf_defaults(c);
	if (!ops) {
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
	c->mtu_bytes = mtu;
	c->link.kind = LINK_CONSTANT;
	c->link.rate_bps = in->capacity_bps;
	c->link.mean_bps = in->capacity_bps;
	c->stats_interval_ns = 0;
	c->sched = ops;
	conf_sched_env(c, &env);        /* pss's defaults see this link */
	memset(c->sched_params, 0, sizeof(c->sched_params));
	ops->defaults(c->sched_params, &env);
	if (set_pss_keys(ops, c->sched_params, in, &b, trace_path, why,
			 whylen) < 0)
		return 1;
	diag_init(&d, err, "generated simulation config");
	if (sched_parse(ops, NULL, c->sched_params, &d) > 0) {
		snprintf(why, whylen, "this build rejects the generated "
			 "configuration (see above)");
		return 1;
	}
	return 0;
}

/* See params.h.  With LR > 0 the credit starts at LR (credit_init), not
 * at 0 as in the paper: from 0 AF first holds p_high for the whole
 * start-up (LR bytes behind), which can outlast the run (120 s for 9:2
 * with period:15s); from LR the run measures the steady state at once. */
int params_simulate(const struct params_in *in, const struct params_out *o,
		    enum params_rule rule, uint64_t dur_ns,
		    const char *trace_path, struct sim_result *res, FILE *err,
		    char *why, size_t whylen)
{
	static struct sim_config sc;    /* holds a struct conf: keep it off
					 * the stack */
	int rc;

	memset(&sc, 0, sizeof(sc));
	rc = params_sim_conf(in, o, rule, trace_path, &sc.conf, err, why,
			     whylen);
	if (rc != 0) {
		conf_free(&sc.conf);
		return rc;
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
	sc.warmup_ns = dur_ns / PARAMS_SIM_WARMUP_DIV;
	rc = sim_run(&sc, res);
	conf_free(&sc.conf);
	return rc < 0 ? -1 : 0;
}
