/* schedtun-sim.c - the offline simulator's command line (docs/simulator.md).
 *
 *   schedtun-sim -f FILE [--ef SPEC] [--af SPEC] [--cs0 SPEC] [options]
 *
 * Loads FILE exactly as the daemon does, optionally overrides the
 * scheduler (--sched, --set scheduler.NAME.KEY=VALUE), runs sim_run() and
 * prints the per-interval CSV (stdout by default) and a summary table of
 * mean rates on stderr.  Exit codes: 0 done, 1 usage or configuration
 * error, 2 run-time error (cannot write a file, simulation failed).
 */
#include <errno.h>
#include <getopt.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "diag.h"
#include "log.h"
#include "sched.h"
#include "sim.h"
#include "units.h"

#define PROG          "schedtun-sim"
#define SETS_MAX      64
#define SPEC_PARTS    5
#define KEY_PART_MAX  128

#define SPEC_ACCEPTED \
	"none | greedy[:PKT_BYTES[:BACKLOG_PKTS]] | " \
	"cbr:RATE[:PKT_BYTES[:AMPLITUDE:PERIOD]]"

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
		"      PKT_BYTES: IP packet size, 28..9000, default FILE's tunnel.mtu\n"
		"      RATE: as in the config file (\"5Mbit\", \"500kbit\", bit/s)\n"
		"run (durations: \"100\" = 100 s, \"500ms\", ...):\n"
		"  -d, --duration D   simulated time (default 100s)\n"
		"  -w, --warmup D     excluded from the means (default 10s)\n"
		"  -s, --sample D     CSV row interval (default 1s; 0: no CSV)\n"
		"  -o, --csv FILE     CSV output (default stdout, \"-\")\n"
		"      --stats FILE   daemon-format JSON stats lines every --sample\n"
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

/* ---- option values ----------------------------------------------------- */

struct src_opt {
	const char *spec;               /* as given, for messages */
	struct sim_source src;          /* pkt_bytes 0: the config's MTU */
};

/* Unsigned decimal integer in [lo, hi], the whole string.  0 or -1. */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Parses --ef/--af/--cs0 SPEC into o.  0, or -1 with the message. */
static int parse_spec(const char *opt, const char *spec, struct src_opt *o)
{
	char buf[256], err[512], *part[SPEC_PARTS], *tok;
	int n = 0;
	unsigned long v;
	uint64_t ns;

	memset(o, 0, sizeof(*o));
	o->spec = spec;
	if (strlen(spec) >= sizeof(buf))
		goto bad;
	memcpy(buf, spec, strlen(spec) + 1);
	/* strtok_r would merge empty fields ("cbr::1400"): split by hand */
	tok = buf;
	for (;;) {
		char *colon = strchr(tok, ':');

		if (n == SPEC_PARTS)
			goto bad;
		part[n++] = tok;
		if (!colon)
			break;
		*colon = '\0';
		tok = colon + 1;
	}

	if (!strcmp(part[0], "none")) {
		if (n != 1)
			goto bad;
		o->src.kind = SIM_SRC_NONE;
		return 0;
	}
	if (!strcmp(part[0], "greedy")) {
		if (n > 3)
			goto bad;
		o->src.kind = SIM_SRC_GREEDY;
		if (n >= 2) {
			if (parse_uint(part[1], 28, 9000, &v) < 0) {
				fprintf(stderr, PROG ": %s '%s': packet size "
					"'%s' is not an integer in 28..9000 "
					"(bytes)\n", opt, spec, part[1]);
				return -1;
			}
			o->src.pkt_bytes = (uint32_t)v;
		}
		if (n == 3) {
			if (parse_uint(part[2], 1, 1000000, &v) < 0) {
				fprintf(stderr, PROG ": %s '%s': backlog '%s' is "
					"not an integer in 1..1000000 "
					"(packets)\n", opt, spec, part[2]);
				return -1;
			}
			o->src.backlog_pkts = (uint32_t)v;
		}
		return 0;
	}
	if (!strcmp(part[0], "cbr")) {
		if (n < 2 || n == 4)
			goto bad;
		o->src.kind = SIM_SRC_CBR;
		if (parse_rate_bps(part[1], 0, &o->src.rate_bps, err,
				   sizeof(err)) < 0) {
			fprintf(stderr, PROG ": %s '%s': %s\n", opt, spec, err);
			return -1;
		}
		if (o->src.rate_bps == 0) {
			fprintf(stderr, PROG ": %s '%s': rate '%s' is zero "
				"(accepted: a rate > 0; use 'none' for no "
				"source)\n", opt, spec, part[1]);
			return -1;
		}
		if (n >= 3 && parse_uint(part[2], 28, 9000, &v) < 0) {
			fprintf(stderr, PROG ": %s '%s': packet size '%s' is "
				"not an integer in 28..9000 (bytes)\n", opt,
				spec, part[2]);
			return -1;
		}
		if (n >= 3)
			o->src.pkt_bytes = (uint32_t)v;
		if (n == 5) {
			char *end;
			double a;

			errno = 0;
			a = strtod(part[3], &end);
			if (!*part[3] || *end || errno || !(a >= 0.0 && a < 1.0)) {
				fprintf(stderr, PROG ": %s '%s': amplitude '%s' "
					"(accepted: a number, 0 <= a < 1)\n",
					opt, spec, part[3]);
				return -1;
			}
			if (parse_duration_ns(part[4], &ns, err, sizeof(err)) < 0) {
				fprintf(stderr, PROG ": %s '%s': period: %s\n",
					opt, spec, err);
				return -1;
			}
			if (ns == 0 || ns > 86400 * NS_PER_SEC) {
				fprintf(stderr, PROG ": %s '%s': period '%s' "
					"(accepted: 0 < period <= 86400s)\n",
					opt, spec, part[4]);
				return -1;
			}
			o->src.amplitude = a;
			o->src.period_s = (double)ns / 1e9;
		}
		return 0;
	}
bad:
	fprintf(stderr, PROG ": %s '%s' is not a source (accepted: "
		SPEC_ACCEPTED ")\n", opt, spec);
	return -1;
}

static int parse_dur(const char *opt, const char *s, tstamp_ns *out)
{
	char err[512];
	uint64_t ns;

	if (parse_duration_ns(s, &ns, err, sizeof(err)) < 0) {
		fprintf(stderr, PROG ": %s: %s\n", opt, err);
		return -1;
	}
	*out = ns;
	return 0;
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
			   const char *sched, char *const sets[], int nsets)
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

static const char *describe_src(const struct sim_source *s, char *buf,
				size_t len)
{
	char r[32], per[32];

	switch (s->kind) {
	case SIM_SRC_GREEDY:
		snprintf(buf, len, "greedy %uB x%u", s->pkt_bytes,
			 s->backlog_pkts ? s->backlog_pkts : 4);
		break;
	case SIM_SRC_CBR:
		fmt_rate(s->rate_bps, r, sizeof(r));
		if (s->amplitude > 0.0) {
			fmt_duration((uint64_t)(s->period_s * 1e9 + 0.5), per,
				     sizeof(per));
			snprintf(buf, len, "cbr %s %uB a=%g T=%s", r,
				 s->pkt_bytes, s->amplitude, per);
		} else {
			snprintf(buf, len, "cbr %s %uB", r, s->pkt_bytes);
		}
		break;
	default:
		snprintf(buf, len, "none");
	}
	return buf;
}

static void summary(const struct sim_config *sc, const struct sim_result *r,
		    const char *path)
{
	char rate[32], dl[32], sb[96];
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
			describe_src(&sc->src[k], sb, sizeof(sb)),
			r->mean_bps[k] / 1e6, c > 0 ? 100.0 * r->mean_bps[k] / c : 0.0,
			(unsigned long long)r->drop_pkts[k]);
	}
	fprintf(stderr, "%-5s %-34s %12.4f %9.2f%%\n", "link", "all classes",
		total / 1e6, c > 0 ? 100.0 * total / c : 0.0);
	fprintf(stderr, "%-5s %-34s %12.4f\n", "C", "mean capacity", c / 1e6);
}

/* ---- main ---------------------------------------------------------------- */

enum { OPT_EF = 256, OPT_AF, OPT_CS0, OPT_STATS, OPT_SCHED, OPT_SET,
       OPT_VERSION };

int main(int argc, char **argv)
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
		{ "sched",    required_argument, NULL, OPT_SCHED },
		{ "set",      required_argument, NULL, OPT_SET },
		{ "quiet",    no_argument,       NULL, 'q' },
		{ "version",  no_argument,       NULL, OPT_VERSION },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct sim_config sc;    /* large: keep it off the stack */
	struct src_opt src[NCLASS];
	struct sim_result res;
	const char *path = NULL, *csv_path = "-", *stats_path = NULL;
	const char *sched = NULL;
	char *sets[SETS_MAX];
	int nsets = 0, quiet = 0, opt, bad = 0, k, rc;
	FILE *csv = NULL, *stats = NULL;
	struct diag d;

	memset(src, 0, sizeof(src));
	sc.duration_ns = 100 * NS_PER_SEC;
	sc.warmup_ns = 10 * NS_PER_SEC;
	sc.sample_ns = NS_PER_SEC;
	while ((opt = getopt_long(argc, argv, "f:d:w:s:o:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case OPT_EF:  bad |= parse_spec("--ef", optarg, &src[CLS_EF]); break;
		case OPT_AF:  bad |= parse_spec("--af", optarg, &src[CLS_AF]); break;
		case OPT_CS0: bad |= parse_spec("--cs0", optarg, &src[CLS_CS0]); break;
		case 'd': bad |= parse_dur("--duration", optarg, &sc.duration_ns); break;
		case 'w': bad |= parse_dur("--warmup", optarg, &sc.warmup_ns); break;
		case 's': bad |= parse_dur("--sample", optarg, &sc.sample_ns); break;
		case 'o': csv_path = optarg; break;
		case OPT_STATS: stats_path = optarg; break;
		case OPT_SCHED: sched = optarg; break;
		case OPT_SET:
			if (nsets == SETS_MAX) {
				fprintf(stderr, PROG ": more than %d --set options\n",
					SETS_MAX);
				return 1;
			}
			sets[nsets++] = optarg;
			break;
		case 'q': quiet = 1; break;
		case OPT_VERSION: printf(PROG " %s\n", SCHEDTUN_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default:  usage(stderr); return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return 1;
	}
	if (bad)
		return 1;
	if (!path) {
		fprintf(stderr, PROG ": no configuration file (accepted: -f FILE, "
			"the daemon's configuration)\n");
		usage(stderr);
		return 1;
	}
	if (sc.duration_ns == 0 || sc.duration_ns > 1000000 * NS_PER_SEC) {
		fprintf(stderr, PROG ": --duration %.9g s (accepted: 0 < D <= "
			"1000000s)\n", (double)sc.duration_ns / 1e9);
		return 1;
	}
	if (sc.warmup_ns >= sc.duration_ns) {
		fprintf(stderr, PROG ": --warmup %.9g s is not shorter than "
			"--duration %.9g s (accepted: 0 <= warmup < duration)\n",
			(double)sc.warmup_ns / 1e9, (double)sc.duration_ns / 1e9);
		return 1;
	}
	if (stats_path && sc.sample_ns == 0) {
		fprintf(stderr, PROG ": --stats needs a sample interval "
			"(accepted: --sample D with D > 0)\n");
		return 1;
	}

	diag_init(&d, stderr, path);
	if (conf_load(path, &sc.conf, &d) > 0)
		return 1;
	if ((sched || nsets) &&
	    sched_overrides(&sc.conf, path, sched, sets, nsets) > 0) {
		conf_free(&sc.conf);
		return 1;
	}
	if (sc.conf.link.kind == LINK_UNLIMITED) {
		fprintf(stderr, PROG ": %s: link.rate 'unlimited' cannot be "
			"simulated (accepted: a rate or a profile)\n", path);
		conf_free(&sc.conf);
		return 1;
	}
	for (k = 0; k < NCLASS; k++) {
		sc.src[k] = src[k].src;
		if (sc.src[k].kind != SIM_SRC_NONE && !sc.src[k].pkt_bytes)
			sc.src[k].pkt_bytes = sc.conf.mtu_bytes;
	}

	rc = 2;
	if (sc.sample_ns) {
		csv = strcmp(csv_path, "-") ? fopen(csv_path, "w") : stdout;
		if (!csv) {
			fprintf(stderr, PROG ": --csv %s: %s\n", csv_path,
				strerror(errno));
			goto out;
		}
	}
	if (stats_path) {
		stats = strcmp(stats_path, "-") ? fopen(stats_path, "w") : stdout;
		if (!stats) {
			fprintf(stderr, PROG ": --stats %s: %s\n", stats_path,
				strerror(errno));
			goto out;
		}
	}
	sc.csv = csv;
	sc.stats = stats;
	if (sim_run(&sc, &res) == 0) {
		rc = 0;
		if (!quiet)
			summary(&sc, &res, path);
	}
out:
	if (csv && csv != stdout && fclose(csv) && rc == 0) {
		fprintf(stderr, PROG ": --csv %s: %s\n", csv_path, strerror(errno));
		rc = 2;
	}
	if (stats && stats != stdout && fclose(stats) && rc == 0) {
		fprintf(stderr, PROG ": --stats %s: %s\n", stats_path, strerror(errno));
		rc = 2;
	}
	if (fflush(stdout) && rc == 0)
		rc = 2;
	conf_free(&sc.conf);
	return rc;
}
