/* schedtun.c - the daemon's command line (DESIGN §2): run, --check,
 * --version, --help, --help-sched, and the `params` calculator.
 * Exit codes: 0 clean stop, 1 configuration or usage error, 2 run-time
 * set-up error. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "conf/conf.h"
#include "daemon/loop.h"
#include "params/params.h"
#include "sched/sched.h"
#include "util/log.h"

static void usage(FILE *out)
{
	char names[256];

	fprintf(out,
		"usage: schedtun -f FILE          run the daemon in the foreground\n"
		"       schedtun --check -f FILE  validate FILE and exit (0 valid, 1 invalid)\n"
		"       schedtun params pss ...   compute PSS parameters from WRR weights\n"
		"                                 (schedtun params --help)\n"
		"       schedtun --help-sched NAME  the keys of scheduler NAME\n"
		"                                 (--help-sched-md: as a Markdown table)\n"
		"       schedtun --help-conf      every key of FILE, with its range,\n"
		"                                 default and meaning (--help-conf-tsv:\n"
		"                                 tab-separated; --help-conf-md: the\n"
		"                                 file's sections as Markdown tables)\n"
		"       schedtun --version | --help\n"
		"options:\n"
		"  -f, --config FILE  configuration file (libconfig syntax; schedtun.conf(5))\n"
		"  -c, --check        only validate the configuration\n"
		"  -v, --verbose      debug messages\n"
		"  -q, --quiet        errors and warnings only\n"
		"schedulers: %s\n"
		"signals: SIGHUP re-reads FILE and applies it without restarting the tunnel;\n"
		"         SIGINT/SIGTERM stop after writing a last stats line.\n",
		sched_names(names, sizeof(names)));
}

/* `--help-sched NAME`: the reference of a scheduler's keys, printed from
 * the same table that parses them. */
static int help_sched(const char *name, int markdown)
{
	const struct sched_ops *ops = sched_lookup(name);
	char names[256];

	if (!ops) {
		fprintf(stderr, "schedtun: --help-sched: '%s' is not a scheduler "
			"(accepted: %s)\n", name, sched_names(names, sizeof(names)));
		return 1;
	}
	if (!markdown)
		printf("scheduler %s: %s\n", ops->name, ops->summary);
	sched_print_keys(stdout, ops, markdown);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config",  required_argument, NULL, 'f' },
		{ "check",   no_argument,       NULL, 'c' },
		{ "verbose", no_argument,       NULL, 'v' },
		{ "quiet",   no_argument,       NULL, 'q' },
		{ "version", no_argument,       NULL, 'V' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "help-sched",    required_argument, NULL, 'S' },
		{ "help-sched-md", required_argument, NULL, 'M' },
		{ "help-conf",     no_argument,       NULL, 'C' },
		{ "help-conf-md",  no_argument,       NULL, 'D' },
		{ "help-conf-tsv", no_argument,       NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = NULL;
	int check = 0, opt, errs;
	struct conf conf;
	struct diag d;

	if (argc > 1 && strcmp(argv[1], "params") == 0)
		return params_main(argc - 1, argv + 1);
	while ((opt = getopt_long(argc, argv, "f:cvqVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f': path = optarg; break;
		case 'c': check = 1; break;
		case 'v': log_set_level(LOG_DEBUG); break;
		case 'q': log_set_level(LOG_WARN); break;
		case 'V': printf("schedtun %s\n", SCHEDTUN_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		case 'S': return help_sched(optarg, 0);
		case 'M': return help_sched(optarg, 1);
		case 'C': conf_print_reference(stdout, CFG_REF_TEXT, 1); return 0;
		case 'D': conf_print_reference(stdout, CFG_REF_MD, 0); return 0;
		case 'T': conf_print_reference(stdout, CFG_REF_TSV, 1); return 0;
		default:  usage(stderr); return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "schedtun: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	if (!path) {
		fprintf(stderr, "schedtun: no configuration file (accepted: -f FILE)\n");
		usage(stderr);
		return 1;
	}
	diag_init(&d, stderr, path);
	errs = conf_load(path, &conf, &d);
	if (errs) {
		fprintf(stderr, "schedtun: %s: %d error%s\n", path, errs, errs > 1 ? "s" : "");
		return 1;
	}
	if (check) {
		printf("%s: OK (scheduler %s)\n", path, conf.sched->name);
		conf_free(&conf);
		return 0;
	}
	return loop_run(&conf);
}
