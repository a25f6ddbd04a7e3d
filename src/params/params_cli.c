/* params_cli.c - the command line of `schedtun params pss`: an option
 * table (the flag, the quantity it sets, whether it is required, its
 * parser through the value layer and units.c), the help text, and the
 * run: parse, params_compute(), the report, the simulation.  Messages
 * read like the configuration file's: "--flag: 'value' problem
 * (accepted: ...)"; an error of params_compute(), which names a
 * quantity, gets the flag that sets it in front ("--ef-exp (R_EF^exp):
 * ...").
 */
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "params/params.h"
#include "util/jw.h"
#include "util/units.h"
#include "params_int.h"

#define PROG "schedtun params"

/* What the command line fills. */
struct cli {
	struct params_in in;
	uint64_t sim_ns;                /* --sim-time */
	int      no_sim;                /* --no-sim */
	int      json;                  /* --json */
};

/* Room for the --json object: two blocks of ~500 bytes and numbers. */
#define JSON_MAX_BYTES 65536

/* 1 is inside the table's range on purpose: params_compute() explains
 * why eq. 4 refuses it; the message still gives the accepted range. */
_Static_assert(PARAMS_W_MAX == 10000u, "the weights' accepted text");
#define W_ACCEPTED "an integer 2..10000"

/* The values the value layer parses for the options (ranges and words as
 * the file's): entries are named after the flag. */
static const struct cfg_key cli_keys[] = {
	{ .name = "w-af", .type = CFG_T_UINT, .min = 1, .max = PARAMS_W_MAX,
	  .accepted = W_ACCEPTED, CFG_FIELD(struct cli, in.w_af) },
	{ .name = "w-cs0", .type = CFG_T_UINT, .min = 1, .max = PARAMS_W_MAX,
	  .accepted = W_ACCEPTED, CFG_FIELD(struct cli, in.w_cs0) },
	{ .name = "l-af", .type = CFG_T_BYTES, .min = PARAMS_L_MIN_BYTES,
	  .max = PARAMS_L_MAX_BYTES, CFG_FIELD(struct cli, in.l_af_bytes) },
	{ .name = "l-cs0", .type = CFG_T_BYTES, .min = PARAMS_L_MIN_BYTES,
	  .max = PARAMS_L_MAX_BYTES, CFG_FIELD(struct cli, in.l_cs0_bytes) },
	/* checked here, not only by params_compute(): 0 is "the default" in
	 * struct params_in */
	{ .name = "l-ef", .type = CFG_T_BYTES, .min = PARAMS_L_MIN_BYTES,
	  .max = PARAMS_L_MAX_BYTES, CFG_FIELD(struct cli, in.l_ef_bytes) },
	{ .name = "l-max", .type = CFG_T_BYTES, .min = PARAMS_L_MIN_BYTES,
	  .max = PARAMS_L_MAX_BYTES, CFG_FIELD(struct cli, in.l_max_bytes) },
	{ .name = "capacity", .type = CFG_T_RATE,
	  CFG_FIELD(struct cli, in.capacity_bps) },
	{ .name = "ef-exp", .type = CFG_T_RATE,
	  CFG_FIELD(struct cli, in.ef_exp_bps) },
	{ .name = "ef", .type = CFG_T_RATE, CFG_FIELD(struct cli, in.ef_bps) },
	/* --lr BYTES and --lr period:T; T's range is params_compute()'s */
	{ .name = "lr-bytes", .type = CFG_T_BYTES, .min = 0,
	  .max = PARAMS_BYTES_MAX, CFG_FIELD(struct cli, in.lr_bytes) },
	{ .name = "lr-period", .type = CFG_T_DURATION, .min = 0,
	  .max = UINT64_MAX, CFG_FIELD(struct cli, in.lr_period_ns) },
	{ .name = "sim-time", .type = CFG_T_DURATION,
	  .min = PARAMS_SIM_MIN_NS, .max = PARAMS_SIM_MAX_NS,
	  CFG_FIELD(struct cli, sim_ns) },
	{ .name = NULL },
};

struct cli_opt;
/* An option's parser: 0, or -1 with the message (without the flag). */
typedef int cli_parse_fn(const struct cli_opt *opt, const char *arg,
			 struct cli *st, char *err, size_t errlen);

/* One option. */
struct cli_opt {
	const char      *flag;          /* without the dashes */
	enum params_qty  qty, qty2;     /* what it sets, as params_compute()
					 * names it (PARAMS_Q_NONE: none) */
	int              required;
	cli_parse_fn    *parse;         /* NULL: a flag without a value */
	size_t           flag_off;      /* such a flag: the int of struct cli
					 * it sets to 1 */
};

/* The option's entry of cli_keys, through the value layer. */
static int parse_key(const struct cli_opt *opt, const char *arg,
		     struct cli *st, char *err, size_t errlen)
{
	return cfg_set_key(cli_keys, st, opt->flag, arg, err, errlen);
}

/* A rate, or zero written with any valid unit ("0", "0Mbit"): no EF.  The
 * value layer refuses a zero rate, so zero is recognised first. */
static int parse_rate0(const struct cli_opt *opt, const char *arg,
		       struct cli *st, char *err, size_t errlen)
{
	const char *p = arg;
	char one[128];
	uint64_t v;
	int zero = 0;

	while (*p == '0' || *p == '.') {
		zero |= *p == '0';
		p++;
	}
	snprintf(one, sizeof(one), "1%s", p);
	if (zero && parse_rate_bps(one, 0, &v, NULL, 0) == 0) {
		const struct cfg_key *k = cfg_find_key(cli_keys, opt->flag);

		*(uint64_t *)(void *)((char *)st + k->offset) = 0;
		return 0;
	}
	if (cfg_set_key(cli_keys, st, opt->flag, arg, err, errlen) == 0)
		return 0;
	strncat(err, "; or 0 for no EF", errlen - strlen(err) - 1);
	return -1;
}

/* --ef: also says that R_EF was given (else it is R_EF^exp). */
static int parse_ef(const struct cli_opt *opt, const char *arg,
		    struct cli *st, char *err, size_t errlen)
{
	st->in.has_ef = 1;
	return parse_rate0(opt, arg, st, err, errlen);
}

/* The index of arg in the NULL-terminated words[], or -1. */
static int word_index(const char *arg, const char *const words[])
{
	int i;

	for (i = 0; words[i]; i++)
		if (strcmp(arg, words[i]) == 0)
			return i;
	return -1;
}

/* --lr fixed | bound | period:DURATION | BYTES. */
static int parse_lr(const struct cli_opt *opt, const char *arg,
		    struct cli *st, char *err, size_t errlen)
{
	static const char *const words[] = { "fixed", "bound", NULL };
	static const enum params_lr_mode modes[] = {
		PARAMS_LR_FIXED, PARAMS_LR_BOUND
	};
	int i = word_index(arg, words);

	(void)opt;
	if (i >= 0) {
		st->in.lr_mode = modes[i];
		return 0;
	}
	if (strncmp(arg, "period:", 7) == 0) {
		st->in.lr_mode = PARAMS_LR_PERIOD;
		return cfg_set_key(cli_keys, st, "lr-period", arg + 7, err,
				   errlen);
	}
	if (*arg >= '0' && *arg <= '9') {
		st->in.lr_mode = PARAMS_LR_BYTES;
		return cfg_set_key(cli_keys, st, "lr-bytes", arg, err, errlen);
	}
	snprintf(err, errlen, "'%s' is not an LR choice (accepted: fixed, "
		 "bound, period:DURATION, or a number of bytes 0..%llu)", arg,
		 (unsigned long long)PARAMS_BYTES_MAX);
	return -1;
}

/* --rule paper | calibrated (in the order of enum params_rule). */
static int parse_rule(const struct cli_opt *opt, const char *arg,
		      struct cli *st, char *err, size_t errlen)
{
	static const char *const words[] = { "paper", "calibrated", NULL };
	int i = word_index(arg, words);

	(void)opt;
	_Static_assert(PARAMS_RULE_PAPER == 0 && PARAMS_RULE_CALIBRATED == 1,
		       "words[] follows enum params_rule");
	if (i >= 0) {
		st->in.rule = (enum params_rule)i;
		return 0;
	}
	snprintf(err, errlen, "'%s' is not a rule (accepted: paper, "
		 "calibrated)", arg);
	return -1;
}

/* The options, required ones first: they are reported missing in this
 * order. */
static const struct cli_opt cli_opts[] = {
	{ "w-af",     PARAMS_Q_W_AF,     PARAMS_Q_NONE, 1, parse_key },
	{ "w-cs0",    PARAMS_Q_W_CS0,    PARAMS_Q_NONE, 1, parse_key },
	{ "l-af",     PARAMS_Q_L_AF,     PARAMS_Q_NONE, 1, parse_key },
	{ "l-cs0",    PARAMS_Q_L_CS0,    PARAMS_Q_NONE, 1, parse_key },
	{ "capacity", PARAMS_Q_C,        PARAMS_Q_NONE, 1, parse_key },
	{ "ef-exp",   PARAMS_Q_R_EF_EXP, PARAMS_Q_NONE, 1, parse_rate0 },
	{ "ef",       PARAMS_Q_R_EF,     PARAMS_Q_NONE, 0, parse_ef },
	{ "l-ef",     PARAMS_Q_L_EF,     PARAMS_Q_NONE, 0, parse_key },
	{ "l-max",    PARAMS_Q_L_MAX,    PARAMS_Q_NONE, 0, parse_key },
	{ "lr",       PARAMS_Q_LR,       PARAMS_Q_T,    0, parse_lr },
	{ "rule",     PARAMS_Q_RULE,     PARAMS_Q_NONE, 0, parse_rule },
	{ "sim-time", PARAMS_Q_NONE,     PARAMS_Q_NONE, 0, parse_key },
	{ "no-sim",   PARAMS_Q_NONE,     PARAMS_Q_NONE, 0, NULL,
	  offsetof(struct cli, no_sim) },
	{ "json",     PARAMS_Q_NONE,     PARAMS_Q_NONE, 0, NULL,
	  offsetof(struct cli, json) },
};

#define NOPTS ((int)(sizeof(cli_opts) / sizeof(cli_opts[0])))
#define OPT_BASE 256                    /* getopt's val: OPT_BASE + index */

/* The help text: every option, its range and its default. */
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
"  --json              everything above as one JSON object on stdout instead\n"
"                      of the report (rates in bit/s, sizes in bytes, full\n"
"                      precision; docs/json-output.md)\n"
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

/* The getopt_long() table of cli_opts (and --help) into opts[NOPTS + 2]. */
static void getopt_table(struct option *opts)
{
	int i;

	for (i = 0; i < NOPTS; i++) {
		opts[i].name = cli_opts[i].flag;
		opts[i].has_arg = cli_opts[i].parse ? required_argument :
						      no_argument;
		opts[i].flag = NULL;
		opts[i].val = OPT_BASE + i;
	}
	opts[i] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[i + 1] = (struct option){ NULL, 0, NULL, 0 };
}

/* Option i with value arg into st; the message on err.  0 or -1. */
static int apply_opt(int i, const char *arg, struct cli *st, FILE *err)
{
	const struct cli_opt *o = &cli_opts[i];
	char msg[1024];

	if (!o->parse) {
		*(int *)(void *)((char *)st + o->flag_off) = 1;
		return 0;
	}
	if (o->parse(o, arg, st, msg, sizeof(msg)) == 0)
		return 0;
	fprintf(err, PROG ": --%s: %s\n", o->flag, msg);
	return -1;
}

/* Every required option not seen, one line each.  Returns how many. */
static int report_missing(const int seen[NOPTS], FILE *err)
{
	int i, n = 0;

	for (i = 0; i < NOPTS; i++) {
		if (!cli_opts[i].required || seen[i])
			continue;
		fprintf(err, PROG ": --%s is required (see " PROG " --help)\n",
			cli_opts[i].flag);
		n++;
	}
	return n;
}

/* Parses the options after "pss" into st.  -1 to go on, or the exit code
 * (0 after --help; 1 after a message on err). */
static int parse_args(int argc, char **argv, struct cli *st, FILE *out,
		      FILE *err)
{
	struct option opts[NOPTS + 2];
	int seen[NOPTS] = { 0 };
	int opt, bad = 0;

	getopt_table(opts);
	optind = 0;             /* full re-initialisation (glibc) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		if (opt >= OPT_BASE && opt < OPT_BASE + NOPTS) {
			seen[opt - OPT_BASE] = 1;
			bad |= apply_opt(opt - OPT_BASE, optarg, st, err) < 0;
		} else if (opt == 'h') {
			usage(out);
			return 0;
		} else {
			fprintf(err, opt == ':' ? PROG ": %s needs a value "
				"(see " PROG " --help)\n" : PROG ": unknown "
				"option '%s' (see " PROG " --help)\n",
				argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(err, PROG ": unexpected argument '%s' (see " PROG
			" --help)\n", argv[optind]);
		return 1;
	}
	if (bad || report_missing(seen, err))
		return 1;
	return -1;
}

/* A message of params_compute() with the flag that sets its quantity in
 * front ("--ef-exp (R_EF^exp): ..."); as it is when no option sets it. */
static void print_compute_error(FILE *err, const char *msg)
{
	int i, k;

	for (i = 0; i < NOPTS; i++) {
		enum params_qty q[2] = { cli_opts[i].qty, cli_opts[i].qty2 };

		for (k = 0; k < 2; k++) {
			const char *name = params_qty_name(q[k]);
			size_t n = strlen(name);

			if (q[k] == PARAMS_Q_NONE ||
			    strncmp(msg, name, n) != 0 ||
			    strncmp(msg + n, ": ", 2) != 0)
				continue;
			fprintf(err, PROG ": --%s (%s)%s\n", cli_opts[i].flag,
				name, msg + n);
			return;
		}
	}
	fprintf(err, PROG ": %s\n", msg);
}

/* argv[1] must name the calculator.  -1 to go on, or the exit code. */
static int pick_calculator(int argc, char **argv, FILE *out, FILE *err)
{
	if (argc < 2) {
		fprintf(err, PROG ": what to compute? (accepted: pss)\n");
		usage(err);
		return 1;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(out);
		return 0;
	}
	if (strcmp(argv[1], "pss") != 0) {
		fprintf(err, PROG ": '%s' is not a calculator (accepted: "
			"pss)\n", argv[1]);
		usage(err);
		return 1;
	}
	return -1;
}

/* --json: the report as one JSON object on out.  The exit code. */
static int json_report(FILE *out, FILE *err, const struct cli *st,
		       const struct params_out *o)
{
	char *buf = malloc(JSON_MAX_BYTES);
	struct jw w;
	int rc = 0;

	if (!buf) {
		fprintf(err, PROG ": out of memory\n");
		return 1;
	}
	jw_init(&w, buf, JSON_MAX_BYTES);
	params_json(&w, err, &st->in, o, !st->no_sim, st->sim_ns);
	if (jw_finish(&w) < 0) {
		fprintf(err, PROG ": the JSON report exceeds %d bytes\n",
			JSON_MAX_BYTES);
		rc = 1;
	} else {
		fputs(buf, out);
	}
	free(buf);
	return rc;
}

/* See params.h. */
int params_cli(int argc, char **argv, FILE *out, FILE *err)
{
	struct params_out o;
	struct cli st;
	char msg[1024];
	int rc = pick_calculator(argc, argv, out, err);

	if (rc >= 0)
		return rc;
	memset(&st, 0, sizeof(st));
	st.sim_ns = PARAMS_SIM_DEFAULT_NS;
	rc = parse_args(argc - 1, argv + 1, &st, out, err);
	if (rc >= 0)
		return rc;
	if (params_compute(&st.in, &o, msg, sizeof(msg)) < 0) {
		print_compute_error(err, msg);
		return 1;
	}
	if (st.json)
		return json_report(out, err, &st, &o);
	params_report(out, &st.in, &o);
	if (!st.no_sim) {
		fflush(out);
		params_report_sim(out, err, &st.in, &o, st.sim_ns);
	}
	return 0;
}

/* See params.h. */
int params_main(int argc, char **argv)
{
	return params_cli(argc, argv, stdout, stderr);
}
