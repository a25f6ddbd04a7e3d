/* schedtun-sim.c - the offline simulator's command line (docs/simulator.md).
 *
 *   schedtun-sim -f FILE [--ef SPEC] [--af SPEC] [--cs0 SPEC] [options]
 *
 * Loads FILE exactly as the daemon does, optionally overrides the
 * scheduler (--sched, --set scheduler.NAME.KEY=VALUE), runs sim_run() and
 * prints the per-interval CSV (stdout by default) and a summary table of
 * mean rates on stderr, with a per-flow table when there are flows
 * (--flows-csv: one row per flow).  Exit codes: 0 done, 1 usage or configuration
 * error, 2 run-time error (cannot write a file, simulation failed).
 * Option values go through the value layer (simopt.c), --set values
 * through the libconfig tree and the scheduler's key table.
 */
#include <errno.h>
#include <getopt.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "sched/sched.h"
#include "sim/sim.h"
#include "sim/simopt.h"
#include "util/diag.h"
#include "util/jw.h"
#include "util/log.h"
#include "util/units.h"

#define PROG          "schedtun-sim"
#define SETS_MAX      64
#define JSON_MAX_BYTES 65536    /* the --json summary: a few kB */
#define KEY_PART_MAX  128

/* The help text: sources, run options, scheduler overrides, CSV columns. */
static void usage(FILE *out)
{
	char names[256];

	fprintf(out,
		"usage: " PROG " -f FILE [options]\n"
		"Runs the daemon's packet path for FILE (classification, class limits,\n"
		"scheduler, pacer, delay line) on a virtual clock with synthetic sources;\n"
		"prints per-class rates measured at the link as CSV, and a summary on stderr.\n"
		"\n"
		"sources (one per class, default none):\n"
		"  --ef SPEC, --af SPEC, --cs0 SPEC\n"
		"      none\n"
		"      greedy[:PKT_BYTES[:BACKLOG_PKTS]]  always backlogged: keeps the class\n"
		"                                         queue BACKLOG_PKTS deep (default 4)\n"
		"      cbr:RATE[:PKT_BYTES[:AMPLITUDE:PERIOD]]\n"
		"                 rate(t) = RATE (1 + AMPLITUDE cos(2 pi t / PERIOD)),\n"
		"                 0 <= AMPLITUDE < 1, PERIOD a duration (plain number: s)\n"
		"      onoff:PEAK:ON:OFF[:PKT_BYTES]\n"
		"                 exponential on and off periods of means ON and OFF,\n"
		"                 PEAK while on\n"
		"      pareto:ALPHA:MEAN_SIZE:ARRIVALS[:FLOW_RATE[:PKT_BYTES[:ARRIVAL_ALPHA\n"
		"             [:MAX_SIZE]]]]\n"
		"                 ARRIVALS flows/s (Poisson; Pareto gaps of shape\n"
		"                 ARRIVAL_ALPHA), each of a Pareto size (shape ALPHA > 1,\n"
		"                 mean MEAN_SIZE bytes; truncated at MAX_SIZE bytes, the\n"
		"                 minimum staying MEAN_SIZE (ALPHA-1)/ALPHA) sent at\n"
		"                 FLOW_RATE (default \"unlimited\": greedy), then gone\n"
		"      tfrc:RATE:RTT[:PKT_BYTES[:PROFILE[:RTT_MAX]]]\n"
		"                 starts at RATE, halves on a loss event seen an RTT\n"
		"                 later, + one packet per RTT every RTT up to RATE;\n"
		"                 PROFILE (or none): packets within a token bucket of\n"
		"                 PROFILE per flow are marked EF (In-Time conforming);\n"
		"                 RTT_MAX: flow f of N has RTT + (RTT_MAX-RTT) f/(N-1)\n"
		"      web:ALPHA:MEAN_SIZE:THINK:ACCESS_RATE[:PKT_BYTES]\n"
		"                 a WWW user: exponential think times (mean THINK),\n"
		"                 then a Pareto size sent by a TCP-like window (slow\n"
		"                 start, AIMD) at most at ACCESS_RATE; ACKs return\n"
		"                 through FILE's link delay\n"
		"      N*SPEC     N flows of SPEC, each with its own 5-tuple and process\n"
		"                 (pareto: at most N flows arrive)\n"
		"      PKT_BYTES: IP packet size, 28..9000, default FILE's tunnel.mtu\n"
		"      RATE: as in the config file (\"5Mbit\", \"500kbit\", bit/s)\n"
		"run (durations: \"100\" = 100 s, \"500ms\", ...):\n"
		"  -d, --duration D   simulated time (default 100s)\n"
		"  -w, --warmup D     excluded from the means (default 10s)\n"
		"  -s, --sample D     CSV row interval (default 1s; 0: no CSV)\n"
		"  -o, --csv FILE     CSV output (default stdout, \"-\")\n"
		"      --stats FILE   daemon-format JSON stats lines every --sample\n"
		"      --json FILE    the summary as one JSON object (\"-\": stdout), with\n"
		"                     drops by reason, time in the scheduler and the\n"
		"                     scheduler's counters (docs/json-output.md)\n"
		"      --flows-csv FILE  one row per flow at the end (\"-\": stdout)\n"
		"      --seed N       of the random sources (default 0)\n"
		"      --cost         measure the wall time spent in the scheduler's ops\n"
		"                     and in the packet path; one \"cost\" line on stderr\n"
		"                     (ns per packet the scheduler took; even with -q)\n"
		"scheduler:\n"
		"      --sched NAME   replaces scheduler.name\n"
		"      --set scheduler.NAME.KEY=VALUE\n"
		"                     overrides one key of FILE (repeatable); VALUE in\n"
		"                     libconfig syntax (0.4, 4000, true, [9, 2]), anything\n"
		"                     else is taken as a string (20Mbit)\n"
		"  -q, --quiet        no summary table\n"
		"  -h, --help, --version\n"
		"schedulers: %s\n"
		"CSV columns: t_s,ef_bps,af_bps,cs0_bps,link_bps,capacity_bps (bits whose\n"
		"serialisation ended in [t_s - sample, t_s); capacity = mean C(t) there).\n",
		sched_names(names, sizeof(names)));
}

/* ---- --sched / --set ----------------------------------------------------- */

/* Deep copy of `from` as member `name` of parent (name NULL inside lists
 * and arrays).  0 or -1. */
static int copy_setting(config_setting_t *parent, const char *name,
			const config_setting_t *from)
{
	int type = config_setting_type(from);
	config_setting_t *to = config_setting_add(parent, name, type);
	int i, n;

	if (!to)
		return -1;
	switch (type) {
	case CONFIG_TYPE_INT:
		return config_setting_set_int(to, config_setting_get_int(from)) ? 0 : -1;
	case CONFIG_TYPE_INT64:
		return config_setting_set_int64(to, config_setting_get_int64(from)) ? 0 : -1;
	case CONFIG_TYPE_FLOAT:
		return config_setting_set_float(to, config_setting_get_float(from)) ? 0 : -1;
	case CONFIG_TYPE_BOOL:
		return config_setting_set_bool(to, config_setting_get_bool(from)) ? 0 : -1;
	case CONFIG_TYPE_STRING:
		return config_setting_set_string(to, config_setting_get_string(from)) ? 0 : -1;
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		n = config_setting_length(from);
		for (i = 0; i < n; i++) {
			const config_setting_t *e = config_setting_get_elem(from, (unsigned)i);

			if (copy_setting(to, type == CONFIG_TYPE_GROUP ?
					 config_setting_name(e) : NULL, e))
				return -1;
		}
		return 0;
	default:
		return -1;
	}
}

/* Sets member `name` of parent to VALUE: libconfig syntax if it parses as
 * such ("0.4", "4000", "true", "[9, 2]", "\"x\""), else the text as a
 * string ("20Mbit").  Replaces an existing member.  0 or -1. */
static int set_value(config_setting_t *parent, const char *name,
		     const char *value)
{
	config_t tmp;
	char *text;
	size_t len = strlen(value) + 16;
	int rc;

	if (config_setting_get_member(parent, name) &&
	    config_setting_remove(parent, name) != CONFIG_TRUE)
		return -1;
	text = malloc(len);
	if (!text)
		return -1;
	snprintf(text, len, "v = %s;", value);
	config_init(&tmp);
	if (config_read_string(&tmp, text) == CONFIG_TRUE) {
		rc = copy_setting(parent, name, config_lookup(&tmp, "v"));
	} else {
		config_setting_t *s = config_setting_add(parent, name,
							 CONFIG_TYPE_STRING);

		rc = s && config_setting_set_string(s, value) ? 0 : -1;
	}
	config_destroy(&tmp);
	free(text);
	return rc;
}

/* Applies one "scheduler.A.B=VALUE" to the tree.  0 or -1 with a message. */
static int apply_set(config_setting_t *root, const char *arg)
{
	const char *eq = strchr(arg, '='), *key = arg, *dot;
	config_setting_t *g = root;
	char part[KEY_PART_MAX];

	if (!eq || eq == arg || strncmp(arg, "scheduler.", 10) != 0 ||
	    eq - arg <= 10) {
		fprintf(stderr, PROG ": --set '%s' (accepted: "
			"scheduler.NAME.KEY=VALUE or scheduler.name=NAME)\n", arg);
		return -1;
	}
	for (;;) {
		size_t n;

		dot = memchr(key, '.', (size_t)(eq - key));
		n = (size_t)((dot ? dot : eq) - key);
		if (n == 0 || n >= sizeof(part)) {
			fprintf(stderr, PROG ": --set '%s': empty or overlong key "
				"component (accepted: scheduler.NAME.KEY=VALUE)\n",
				arg);
			return -1;
		}
		memcpy(part, key, n);
		part[n] = '\0';
		if (!dot)
			break;
		{
			config_setting_t *m = config_setting_get_member(g, part);

			if (!m)
				m = config_setting_add(g, part, CONFIG_TYPE_GROUP);
			if (!m) {
				fprintf(stderr, PROG ": --set '%s': '%s' is not a "
					"valid key name (accepted: a letter, then "
					"letters, digits, '_', '-', '*')\n", arg, part);
				return -1;
			}
			if (!config_setting_is_group(m)) {
				fprintf(stderr, PROG ": --set '%s': '%s' is not "
					"a group in the file (accepted: a key inside "
					"groups)\n", arg, part);
				return -1;
			}
			g = m;
		}
		key = dot + 1;
	}
	if (set_value(g, part, eq + 1)) {
		fprintf(stderr, PROG ": --set '%s': '%s' is not a valid key name "
			"or value (accepted: letters, digits, '_', '-', '*')\n",
			arg, part);
		return -1;
	}
	return 0;
}

/* Re-reads FILE's scheduler group with --sched/--set applied and parses it
 * into c->sched / c->sched_params exactly as conf_load does (defaults,
 * then the scheduler's parse(); other schedulers' groups are checked too).
 * 0, or the number of errors (reported). */
static int sched_overrides(struct conf *c, const char *path,
			   const char *sched, const char *const sets[], int nsets)
{
	config_setting_t *root, *g, *name_s;
	const struct sched_ops *sel = c->sched;
	struct sched_env env;
	struct diag d;
	config_t cfg;
	char dir[CONF_PATH_MAX], names[256];
	const char *slash = strrchr(path, '/');
	int i, errs = 0;

	config_init(&cfg);
	if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
			 (int)(slash - path), path);
		config_set_include_dir(&cfg, dir);
	}
	if (config_read_file(&cfg, path) != CONFIG_TRUE) {  /* conf_load read it */
		fprintf(stderr, PROG ": %s: cannot re-read for --set/--sched\n", path);
		config_destroy(&cfg);
		return 1;
	}
	root = config_root_setting(&cfg);
	g = config_setting_get_member(root, "scheduler");
	if (!g)
		g = config_setting_add(root, "scheduler", CONFIG_TYPE_GROUP);
	for (i = 0; i < nsets; i++)
		if (apply_set(root, sets[i]))
			errs++;
	if (sched) {
		if (config_setting_get_member(g, "name"))
			config_setting_remove(g, "name");
		name_s = config_setting_add(g, "name", CONFIG_TYPE_STRING);
		config_setting_set_string(name_s, sched);
	}
	name_s = config_setting_get_member(g, "name");
	if (name_s) {
		const char *n = config_setting_get_string(name_s);

		sel = n ? sched_lookup(n) : NULL;
		if (!sel) {
			fprintf(stderr, PROG ": scheduler '%s' is not built in "
				"(accepted: %s)\n", n ? n : "(not a string)",
				sched_names(names, sizeof(names)));
			errs++;
		}
	}
	if (errs) {
		config_destroy(&cfg);
		return errs;
	}

	diag_init(&d, stderr, path);
	conf_sched_env(c, &env);
	sched_parse_section(g, &sel, &env, c->sched_params, &d);
	errs += d.nerr;
	if (d.nerr)
		fprintf(stderr, PROG ": (keys given with --set are reported "
			"without a line number)\n");
	c->sched = sel;
	config_destroy(&cfg);
	return errs;
}

/* ---- output ------------------------------------------------------------ */

/* The summary table on stderr: each class's mean after the warm-up, its
 * share of the mean capacity, its drops. */
static void summary(const struct sim_config *sc, const struct sim_result *r,
		    const char *path)
{
	char rate[32], dl[32], sb[160];
	double c = r->link_mean_bps, total = 0.0;
	const struct link_profile *l = &sc->conf.link;
	int k;

	fmt_rate(link_mean_bps(l), rate, sizeof(rate));
	fmt_duration(sc->conf.delay_ns, dl, sizeof(dl));
	fprintf(stderr, PROG ": %s: scheduler %s, link %s %s, delay %s; "
		"%.9g s run, means over [%.9g, %.9g) s\n", path,
		sc->conf.sched->name, link_kind_name[l->kind], rate, dl,
		(double)sc->duration_ns / 1e9, (double)sc->warmup_ns / 1e9,
		(double)sc->duration_ns / 1e9);
	fprintf(stderr, "%-5s %-34s %12s %10s %10s\n", "class", "source",
		"mean Mbit/s", "share of C", "drops");
	for (k = 0; k < NCLASS; k++) {
		total += r->mean_bps[k];
		fprintf(stderr, "%-5s %-34s %12.4f %9.2f%% %10llu\n", cls_name[k],
			sim_source_text(&sc->src[k], sb, sizeof(sb)),
			r->mean_bps[k] / 1e6, c > 0 ? 100.0 * r->mean_bps[k] / c : 0.0,
			(unsigned long long)r->drop_pkts[k]);
	}
	fprintf(stderr, "%-5s %-34s %12.4f %9.2f%%\n", "link", "all classes",
		total / 1e6, c > 0 ? 100.0 * total / c : 0.0);
	fprintf(stderr, "%-5s %-34s %12.4f\n", "C", "mean capacity", c / 1e6);
}

/* 1 when a class has more than one flow or a per-flow kind: then the
 * flows table follows the summary. */
static int per_flow(const struct sim_config *sc)
{
	int k;

	for (k = 0; k < NCLASS; k++)
		if (sc->src[k].flows > 1 || sc->src[k].kind >= SIM_SRC_ONOFF)
			return 1;
	return 0;
}

/* The flows of each class together: their rates (min, mean, max, Jain's
 * index), the time in the scheduler of the class's packets after the
 * warm-up, their losses.  Rows begin with "flows" so that no row reads
 * like a class row of the table above. */
static void flows_summary(const struct sim_config *sc,
			  const struct sim_result *r)
{
	int k;

	fprintf(stderr, "%-9s %6s %26s %7s %26s %9s\n", "flows", "n",
		"Mbit/s min/mean/max", "Jain", "in sched ms p50/p99/max",
		"lost");
	for (k = 0; k < NCLASS; k++) {
		const struct sim_class_flows *g = &r->flows[k];
		char rate[64], dl[64];

		if (sc->src[k].kind == SIM_SRC_NONE)
			continue;
		snprintf(rate, sizeof(rate), "%.3f/%.3f/%.3f",
			 g->rate_min_bps / 1e6, g->rate_mean_bps / 1e6,
			 g->rate_max_bps / 1e6);
		snprintf(dl, sizeof(dl), "%.2f/%.2f/%.2f",
			 (double)g->delay_p50_ns / 1e6,
			 (double)g->delay_p99_ns / 1e6,
			 (double)g->delay_max_ns / 1e6);
		fprintf(stderr, "flows %-3s %6u %26s %7.4f %26s %8.3f%%\n",
			cls_name[k], g->flows, rate, g->jain, dl,
			g->in_pkts ? 100.0 * (double)g->drop_pkts /
				     (double)g->in_pkts : 0.0);
		if (sc->src[k].kind == SIM_SRC_WEB && g->session_ns)
			fprintf(stderr, "flows %-3s web: %llu sessions after "
				"the warm-up (%llu done), mean session rate "
				"(eq. 2 of Hayes et al.) %.1f kbit/s\n",
				cls_name[k], (unsigned long long)g->sessions,
				(unsigned long long)g->sessions_done,
				(double)g->session_bytes * 8.0 /
				((double)g->session_ns / 1e9) / 1e3);
	}
}

/* The --cost line on stderr, one "name value" pair after another so that
 * scripts can pick fields by name (scripts/sched-bench.sh): nanoseconds
 * per packet the scheduler took in its ops, in the packet path and in
 * the whole loop, then the counts they are divided by. */
static void cost_line(const struct sim_cost *c)
{
	double n = c->enq_pkts ? (double)c->enq_pkts : 1.0;

	fprintf(stderr, "cost  sched_ns_per_pkt %.1f  path_ns_per_pkt %.1f  "
		"loop_ns_per_pkt %.1f  pkts %llu  deq_pkts %llu  sched_calls "
		"%llu  path_calls %llu  clock_ns %.1f\n", c->sched_ns / n,
		c->path_ns / n, c->loop_ns / n,
		(unsigned long long)c->enq_pkts,
		(unsigned long long)c->deq_pkts,
		(unsigned long long)c->sched_calls,
		(unsigned long long)c->path_calls, c->clock_ns);
}

/* ---- main ---------------------------------------------------------------- */

/* What the command line asks for, besides sc's run options. */
struct sim_args {
	const char *path, *csv_path, *stats_path, *flows_path, *sched;
	const char *json_path;
	const char *sets[SETS_MAX];
	int nsets, quiet, cost;
};

enum { OPT_EF = 256, OPT_AF, OPT_CS0, OPT_STATS, OPT_SCHED, OPT_SET,
       OPT_VERSION, OPT_FLOWS_CSV, OPT_SEED, OPT_COST, OPT_JSON };

/* Prints msg when rc < 0.  Returns 1 then, else 0 (to or into `bad`). */
static int complain(int rc, const char *msg)
{
	if (rc >= 0)
		return 0;
	fprintf(stderr, PROG ": %s\n", msg);
	return 1;
}

/* One option that takes a value, into a and sc.  Returns 1 after a
 * message, else 0; -1 for an option this does not handle. */
static int apply_opt(int opt, const char *arg, struct sim_args *a,
		     struct sim_config *sc)
{
	static const char *const src_opt[] = { "--ef", "--af", "--cs0" };
	char msg[1024];

	switch (opt) {
	case 'f': a->path = arg; return 0;
	case 'o': a->csv_path = arg; return 0;
	case OPT_STATS: a->stats_path = arg; return 0;
	case OPT_FLOWS_CSV: a->flows_path = arg; return 0;
	case OPT_JSON: a->json_path = arg; return 0;
	case OPT_SEED:
		return complain(simopt_set_run(sc, "seed", arg, msg,
					       sizeof(msg)), msg);
	case OPT_SCHED: a->sched = arg; return 0;
	case OPT_EF: case OPT_AF: case OPT_CS0:
		return complain(simopt_source(src_opt[opt - OPT_EF], arg,
					      &sc->src[opt - OPT_EF], msg,
					      sizeof(msg)), msg);
	case 'd': case 'w': case 's':
		return complain(simopt_set_run(sc, opt == 'd' ? "duration" :
					       opt == 'w' ? "warmup" : "sample",
					       arg, msg, sizeof(msg)), msg);
	case OPT_SET:
		if (a->nsets == SETS_MAX) {
			fprintf(stderr, PROG ": --set: more than %d (accepted: "
				"at most %d --set options)\n", SETS_MAX,
				SETS_MAX);
			return 1;
		}
		a->sets[a->nsets++] = arg;
		return 0;
	default:
		return -1;
	}
}

/* --json - needs standard output to itself: one JSON object is what a
 * reader of it parses.  1 after a message, else 0. */
static int json_shares_stdout(const struct sim_args *a,
			      const struct sim_config *sc)
{
	const char *other = NULL;

	if (!a->json_path || strcmp(a->json_path, "-"))
		return 0;
	if (sc->sample_ns && strcmp(a->csv_path, "-") == 0)
		other = "the CSV (-o)";
	else if (a->stats_path && strcmp(a->stats_path, "-") == 0)
		other = "--stats";
	else if (a->flows_path && strcmp(a->flows_path, "-") == 0)
		other = "--flows-csv";
	if (!other)
		return 0;
	fprintf(stderr, PROG ": --json -: standard output already carries "
		"%s (accepted: --json FILE, or %s to a file; -s 0 for no "
		"CSV)\n", other, other);
	return 1;
}

/* Parses the command line into a and sc.  -1 to go on, or the exit code
 * (0 after --help or --version). */
static int parse_args(int argc, char **argv, struct sim_args *a,
		      struct sim_config *sc)
{
	static const struct option opts[] = {
		{ "config",   required_argument, NULL, 'f' },
		{ "ef",       required_argument, NULL, OPT_EF },
		{ "af",       required_argument, NULL, OPT_AF },
		{ "cs0",      required_argument, NULL, OPT_CS0 },
		{ "duration", required_argument, NULL, 'd' },
		{ "warmup",   required_argument, NULL, 'w' },
		{ "sample",   required_argument, NULL, 's' },
		{ "csv",      required_argument, NULL, 'o' },
		{ "stats",    required_argument, NULL, OPT_STATS },
		{ "flows-csv", required_argument, NULL, OPT_FLOWS_CSV },
		{ "json",     required_argument, NULL, OPT_JSON },
		{ "seed",     required_argument, NULL, OPT_SEED },
		{ "sched",    required_argument, NULL, OPT_SCHED },
		{ "set",      required_argument, NULL, OPT_SET },
		{ "quiet",    no_argument,       NULL, 'q' },
		{ "cost",     no_argument,       NULL, OPT_COST },
		{ "version",  no_argument,       NULL, OPT_VERSION },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char msg[512];
	int opt, r, bad = 0;

	while ((opt = getopt_long(argc, argv, "f:d:w:s:o:qh", opts,
				  NULL)) != -1) {
		if ((r = apply_opt(opt, optarg, a, sc)) >= 0) {
			bad |= r;
		} else if (opt == 'q') {
			a->quiet = 1;
		} else if (opt == OPT_COST) {
			a->cost = 1;
		} else if (opt == OPT_VERSION) {
			printf(PROG " %s\n", SCHEDTUN_VERSION);
			return 0;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
			argv[optind]);
		return 1;
	}
	if (bad)
		return 1;
	if (!a->path) {
		fprintf(stderr, PROG ": no configuration file (accepted: -f "
			"FILE, the daemon's configuration)\n");
		usage(stderr);
		return 1;
	}
	if (json_shares_stdout(a, sc))
		return 1;
	return complain(simopt_check_run(sc, a->stats_path != NULL, msg,
					 sizeof(msg)), msg) ? 1 : -1;
}

/* Loads a->path into sc->conf as the daemon does, with --sched/--set
 * applied; the sources without a size get its MTU.  0, or 1 after the
 * messages (sc->conf then holds nothing). */
static int load_conf(const struct sim_args *a, struct sim_config *sc)
{
	struct diag d;
	int k;

	diag_init(&d, stderr, a->path);
	if (conf_load(a->path, &sc->conf, &d) > 0)
		return 1;
	if ((a->sched || a->nsets) &&
	    sched_overrides(&sc->conf, a->path, a->sched, a->sets,
			    a->nsets) > 0) {
		conf_free(&sc->conf);
		return 1;
	}
	if (sc->conf.link.kind == LINK_UNLIMITED) {
		fprintf(stderr, PROG ": %s: link.rate 'unlimited' cannot be "
			"simulated (accepted: a rate or a profile)\n", a->path);
		conf_free(&sc->conf);
		return 1;
	}
	for (k = 0; k < NCLASS; k++)
		if (sc->src[k].kind != SIM_SRC_NONE && !sc->src[k].pkt_bytes)
			sc->src[k].pkt_bytes = sc->conf.mtu_bytes;
	return 0;
}

/* Opens output `path` of option opt ("-": stdout).  NULL after a
 * message. */
static FILE *open_out(const char *opt, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		fprintf(stderr, PROG ": %s %s: %s\n", opt, path,
			strerror(errno));
	return f;
}

/* Closes output f of option opt unless it is stdout.  rc, or 2 when a
 * write was lost and rc was 0. */
static int close_out(FILE *f, const char *opt, const char *path, int rc)
{
	if (!f || f == stdout || fclose(f) == 0)
		return rc;
	if (rc == 0)
		fprintf(stderr, PROG ": %s %s: %s\n", opt, path,
			strerror(errno));
	return rc == 0 ? 2 : rc;
}

static int run_outputs(const struct sim_args *a, struct sim_config *sc,
		       struct sim_result *res_out);

/* The --json object in w to f, opened on path, which it closes.  0, or 2
 * after a message. */
static int write_json(FILE *f, const char *path, struct jw *w)
{
	if (jw_finish(w) < 0) {
		fprintf(stderr, PROG ": --json: the summary exceeds %d bytes\n",
			JSON_MAX_BYTES);
		return close_out(f, "--json", path, 2);
	}
	fputs(w->buf, f);
	if (f == stdout)
		return fflush(stdout) ? 2 : 0;
	return close_out(f, "--json", path, 0);
}

/* Runs the loaded sc, writing the CSV, the stats and the summary.  The
 * exit code: 0, or 2 for a file that cannot be written or a failed run. */
static int run(const struct sim_args *a, struct sim_config *sc)
{
	struct sim_result res;
	struct jw w;
	char *jbuf = NULL;
	FILE *jf = NULL;
	int rc;

	sc->sched_json = NULL;
	if (a->json_path) {
		/* opened first: a bad path must not cost a whole run */
		if (!(jf = open_out("--json", a->json_path)))
			return 2;
		if (!(jbuf = malloc(JSON_MAX_BYTES))) {
			fprintf(stderr, PROG ": out of memory\n");
			return close_out(jf, "--json", a->json_path, 2);
		}
		jw_init(&w, jbuf, JSON_MAX_BYTES);
		jw_obj_begin(&w, NULL);
		jw_str(&w, "file", a->path);
		sc->sched_json = &w;
	}
	rc = run_outputs(a, sc, &res);
	if (jf && rc == 0) {
		sim_json_summary(&w, sc, &res);
		jw_obj_end(&w);
		rc = write_json(jf, a->json_path, &w);
	} else if (jf) {
		close_out(jf, "--json", a->json_path, rc);
	}
	sc->sched_json = NULL;
	free(jbuf);
	return rc;
}

/* Runs the loaded sc with the CSV, stats and flows outputs, and prints
 * the tables; *res is the result.  The exit code, as run()'s. */
static int run_outputs(const struct sim_args *a, struct sim_config *sc,
		       struct sim_result *res_out)
{
	struct sim_result res;
	int rc = 2;

	memset(&res, 0, sizeof(res));
	sc->csv = NULL;
	sc->stats = NULL;
	if (sc->sample_ns && !(sc->csv = open_out("--csv", a->csv_path)))
		return 2;
	sc->flows_csv = NULL;
	if (a->stats_path && !(sc->stats = open_out("--stats",
						    a->stats_path)))
		return close_out(sc->csv, "--csv", a->csv_path, 2);
	if (a->flows_path && !(sc->flows_csv = open_out("--flows-csv",
							a->flows_path))) {
		close_out(sc->stats, "--stats", a->stats_path, 2);
		return close_out(sc->csv, "--csv", a->csv_path, 2);
	}
	sc->cost = a->cost;
	if (sim_run(sc, &res) == 0) {
		rc = 0;
		if (a->cost)
			cost_line(&res.cost);
		if (!a->quiet)
			summary(sc, &res, a->path);
		if (!a->quiet && (a->flows_path || per_flow(sc)))
			flows_summary(sc, &res);
	}
	rc = close_out(sc->csv, "--csv", a->csv_path, rc);
	rc = close_out(sc->stats, "--stats", a->stats_path, rc);
	rc = close_out(sc->flows_csv, "--flows-csv", a->flows_path, rc);
	if (fflush(stdout) && rc == 0)
		rc = 2;
	*res_out = res;
	return rc;
}

/* Parse, load, run; the exit code of the header comment. */
int main(int argc, char **argv)
{
	static struct sim_config sc;    /* large: keep it off the stack */
	struct sim_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.csv_path = "-";
	sc.duration_ns = 100 * NS_PER_SEC;
	sc.warmup_ns = 10 * NS_PER_SEC;
	sc.sample_ns = NS_PER_SEC;
	rc = parse_args(argc, argv, &a, &sc);
	if (rc >= 0)
		return rc;
	if (load_conf(&a, &sc))
		return 1;
	rc = run(&a, &sc);
	conf_free(&sc.conf);
	return rc;
}
