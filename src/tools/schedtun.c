/* schedtun.c - the daemon's command line (DESIGN §2): run, --check,
 * --version, --help, --help-sched, --help-conf, their JSON forms
 * (docs/json-output.md), the `params` calculator and `genkey`.
 * Exit codes: 0 clean stop, 1 configuration or usage error, 2 run-time
 * set-up error. */
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "conf/conf.h"
#include "daemon/loop.h"
#include "params/params.h"
#include "sched/sched.h"
#include "sec/auth.h"
#include "util/jw.h"
#include "util/log.h"

/* Room for any --json document of this program: the whole reference with
 * every scheduler is about 20 kB. */
#define JSON_MAX_BYTES (1u << 20)

static void usage(FILE *out)
{
	char names[256];

	fprintf(out,
		"usage: schedtun -f FILE          run the daemon in the foreground\n"
		"       schedtun --check -f FILE  validate FILE and exit (0 valid, 1 invalid)\n"
		"       schedtun params pss ...   compute PSS parameters from WRR weights\n"
		"                                 (schedtun params --help)\n"
		"       schedtun genkey           print a new random tunnel key (base64)\n"
		"       schedtun --help-sched NAME  the keys of scheduler NAME\n"
		"                                 (--help-sched-md: as a Markdown table;\n"
		"                                 --help-sched-json: as JSON)\n"
		"       schedtun --help-conf      every key of FILE, with its range,\n"
		"                                 default and meaning (--help-conf-tsv:\n"
		"                                 tab-separated; --help-conf-md: the\n"
		"                                 file's sections as Markdown tables;\n"
		"                                 --help-conf-json: as JSON)\n"
		"       schedtun --version | --help\n"
		"options:\n"
		"  -f, --config FILE  configuration file (libconfig syntax; schedtun.conf(5))\n"
		"  -c, --check        only validate the configuration\n"
		"      --json         with --check: one JSON object on stdout, the\n"
		"                     effective configuration or the errors\n"
		"  -v, --verbose      debug messages\n"
		"  -q, --quiet        errors and warnings only\n"
		"schedulers: %s\n"
		"signals: SIGHUP re-reads FILE and applies it without restarting the tunnel;\n"
		"         SIGINT/SIGTERM stop after writing a last stats line.\n",
		sched_names(names, sizeof(names)));
}

/* `genkey`: a new key from the kernel's random source, in the key file's
 * form, on stdout (`schedtun genkey > FILE`, as `wg genkey`).  Refuses a
 * stdout that others could read: the key would be readable as soon as it
 * is written. */
static int genkey(int argc)
{
	struct auth_key k;
	char text[AUTH_KEY_B64_BYTES];
	struct stat st;

	if (argc > 2) {
		fprintf(stderr, "schedtun: genkey takes no argument (accepted: "
			"schedtun genkey > FILE)\n");
		return 1;
	}
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & (S_IRWXG | S_IRWXO))) {
		fprintf(stderr, "schedtun: genkey: standard output is a file that "
			"group or others may read (mode %04o) (accepted: a file of "
			"mode 0600 or 0400: run `umask 077` first)\n",
			(unsigned)(st.st_mode & 07777));
		return 1;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "schedtun: genkey: libsodium cannot initialise\n");
		return 2;
	}
	randombytes_buf(k.b, sizeof(k.b));
	auth_key_format(&k, text);
	sodium_memzero(&k, sizeof(k));
	if (printf("%s\n", text) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "schedtun: genkey: cannot write the key\n");
		return 2;
	}
	sodium_memzero(text, sizeof(text));
	return 0;
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

/* Prints the document in w, or fails when it did not fit. */
static int json_out(struct jw *w)
{
	if (jw_finish(w) < 0) {
		fprintf(stderr, "schedtun: JSON output exceeds %u bytes\n",
			JSON_MAX_BYTES);
		return 1;
	}
	fputs(w->buf, stdout);
	return 0;
}

/* A buffer for a --json document, or NULL after saying so. */
static char *json_buf(void)
{
	char *buf = malloc(JSON_MAX_BYTES);

	if (!buf)
		fprintf(stderr, "schedtun: out of memory\n");
	return buf;
}

/* `--help-sched-json NAME`: the scheduler's key table as JSON. */
static int help_sched_json(const char *name)
{
	const struct sched_ops *ops = sched_lookup(name);
	char names[256], prefix[64], *buf;
	struct jw w;
	int r;

	if (!ops) {
		fprintf(stderr, "schedtun: --help-sched-json: '%s' is not a "
			"scheduler (accepted: %s)\n", name,
			sched_names(names, sizeof(names)));
		return 1;
	}
	if (!(buf = json_buf()))
		return 1;
	snprintf(prefix, sizeof(prefix), "scheduler.%s", ops->name);
	jw_init(&w, buf, JSON_MAX_BYTES);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "scheduler", ops->name);
	jw_str(&w, "summary", ops->summary);
	jw_arr_begin(&w, "keys");
	cfg_json_reference(&w, prefix, ops->keys);
	jw_arr_end(&w);
	jw_obj_end(&w);
	r = json_out(&w);
	free(buf);
	return r;
}

/* `--help-conf-json`: every key of the file, every scheduler's included. */
static int help_conf_json(void)
{
	char *buf = json_buf();
	struct jw w;
	int r;

	if (!buf)
		return 1;
	jw_init(&w, buf, JSON_MAX_BYTES);
	jw_obj_begin(&w, NULL);
	conf_json_reference(&w);
	jw_obj_end(&w);
	r = json_out(&w);
	free(buf);
	return r;
}

/* `--check --json -f FILE`: exit 0 and {"file", "valid": true, "scheduler",
 * "conf"}, or exit 1 and {"file", "valid": false, "errors": [...]} with
 * the lines that also go to stderr as without --json.  A valid file is
 * read twice: the verdict and the scheduler come before "conf" in the
 * object, and conf_load_json() writes "conf" while it reads. */
static int check_json(const char *path)
{
	char *buf = json_buf(), *msgs = NULL, *line, *nl;
	size_t msgs_len = 0;
	struct conf conf;
	struct diag d;
	struct jw w;
	FILE *mem;
	int errs, r;

	if (!buf)
		return 1;
	mem = open_memstream(&msgs, &msgs_len);
	if (!mem) {
		free(buf);
		fprintf(stderr, "schedtun: out of memory\n");
		return 1;
	}
	jw_init(&w, buf, JSON_MAX_BYTES);
	jw_obj_begin(&w, NULL);
	jw_str(&w, "file", path);
	diag_init(&d, mem, path);
	d.check_only = 1;
	errs = conf_load(path, &conf, &d);
	if (!errs) {
		jw_bool(&w, "valid", 1);
		jw_str(&w, "scheduler", conf.sched->name);
		conf_free(&conf);
		/* the same file again, now into w: it can only differ if it
		 * was changed in between, and then its errors count */
		errs = conf_load_json(path, &conf, &d, &w);
	}
	fclose(mem);
	fputs(msgs, stderr);
	if (errs) {
		fprintf(stderr, "schedtun: %s: %d error%s\n", path, errs,
			errs > 1 ? "s" : "");
		jw_init(&w, buf, JSON_MAX_BYTES);
		jw_obj_begin(&w, NULL);
		jw_str(&w, "file", path);
		jw_bool(&w, "valid", 0);
		jw_arr_begin(&w, "errors");
		for (line = msgs; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');  /* diag ends each line */
			if (nl)
				*nl = '\0';
			jw_str(&w, NULL, line);
		}
		jw_arr_end(&w);
	} else {
		conf_free(&conf);
	}
	jw_obj_end(&w);
	r = json_out(&w);
	free(msgs);
	free(buf);
	return r ? r : errs ? 1 : 0;
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
		{ "help-sched-json", required_argument, NULL, 'J' },
		{ "help-conf-json",  no_argument,       NULL, 'K' },
		{ "json",            no_argument,       NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = NULL;
	int check = 0, json = 0, opt, errs;
	struct conf conf;
	struct diag d;

	if (argc > 1 && strcmp(argv[1], "params") == 0)
		return params_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "genkey") == 0)
		return genkey(argc);
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
		case 'J': return help_sched_json(optarg);
		case 'K': return help_conf_json();
		case 'j': json = 1; break;
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
	if (json && !check) {
		fprintf(stderr, "schedtun: --json without --check (accepted: "
			"--check --json -f FILE)\n");
		return 1;
	}
	if (json)
		return check_json(path);
	diag_init(&d, stderr, path);
	d.check_only = check;
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
