/* test_sim_cmdline.c - schedtun-sim's command line (src/tools/
 * schedtun-sim.c), the program itself run with good and bad arguments:
 * the exit codes of its header comment (0 done, 1 usage or configuration
 * error, 2 a file it cannot write), each refusal's message on stderr
 * with nothing on stdout, --help and --version on stdout, and a short run
 * whose CSV is checked row by row.  The value parsers behind the options
 * are test_sim_cli.c's; this is what main() does with them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sched/sched.h"
#include "testutil.h"

#ifndef SCHEDTUN_SIM_BIN
#error "SCHEDTUN_SIM_BIN: the schedtun-sim to run (CMakeLists.txt)"
#endif

#define SIM "schedtun-sim: "
#define USAGE_HEAD "usage: schedtun-sim -f FILE [options]\n"

/* 10 Mbit/s, 10 ms, fifo: the file every run loads. */
static char conf_path[] = "/tmp/test-sim-cmdline-XXXXXX";

static int setup(void **state)
{
	static const char text[] =
		"link = { rate = \"10Mbit\"; delay = \"10ms\"; };\n"
		"scheduler = { name = \"fifo\"; };\n";
	int fd = mkstemp(conf_path);

	(void)state;
	if (fd < 0 || write(fd, text, sizeof(text) - 1) !=
	    (ssize_t)(sizeof(text) - 1))
		return -1;
	return close(fd);
}

static int teardown(void **state)
{
	(void)state;
	return unlink(conf_path);
}

static char *out, *err;

/* Runs schedtun-sim with the arguments (NULL-terminated, after argv[0])
 * and returns its exit code; out and err hold what it wrote. */
static int sim(const char *arg, ...)
{
	const char *argv[32] = { SCHEDTUN_SIM_BIN };
	va_list ap;
	int n = 1;

	free(out);
	free(err);
	va_start(ap, arg);
	for (; arg; arg = va_arg(ap, const char *)) {
		assert_true(n < 31);
		argv[n++] = arg;
	}
	va_end(ap);
	argv[n] = NULL;
	return tu_run(argv, &out, &err);
}

/* A refusal: exit code 1, nothing on stdout, stderr exactly `msg`. */
static void refused(int rc, const char *msg)
{
	assert_int_equal(rc, 1);
	assert_string_equal(out, "");
	assert_string_equal(err, msg);
}

/* --help: the usage on stdout, every built-in scheduler named; --version. */
static void test_help_version(void **state)
{
	char names[256], line[300];

	(void)state;
	assert_int_equal(sim("--help", NULL), 0);
	assert_string_equal(err, "");
	assert_memory_equal(out, USAGE_HEAD, strlen(USAGE_HEAD));
	snprintf(line, sizeof(line), "\nschedulers: %s\n",
		 sched_names(names, sizeof(names)));
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "\nCSV columns: t_s,ef_bps,af_bps,cs0_bps,"
			       "link_bps,capacity_bps"));
	assert_int_equal(sim("-h", NULL), 0);
	assert_memory_equal(out, USAGE_HEAD, strlen(USAGE_HEAD));
	assert_int_equal(sim("--version", NULL), 0);
	assert_string_equal(out, "schedtun-sim " SCHEDTUN_VERSION "\n");
	assert_string_equal(err, "");
}

/* Usage errors: no file (the usage follows), an unknown option (getopt's
 * message, then the usage), a stray argument. */
static void test_usage_errors(void **state)
{
	(void)state;
	assert_int_equal(sim(NULL), 1);
	assert_string_equal(out, "");
	assert_memory_equal(err, SIM "no configuration file (accepted: -f "
			    "FILE, the daemon's configuration)\n" USAGE_HEAD,
			    strlen(SIM "no configuration file (accepted: -f "
				   "FILE, the daemon's configuration)\n"
				   USAGE_HEAD));
	assert_int_equal(sim("-f", conf_path, "--bogus", NULL), 1);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, ": unrecognized option '--bogus'\n"
			       USAGE_HEAD));
	refused(sim("-f", conf_path, "extra", NULL),
		SIM "unexpected argument 'extra'\n");
}

/* Option values: each refusal names the option, quotes the value and
 * says what is accepted; several are all reported. */
static void test_value_errors(void **state)
{
	(void)state;
	refused(sim("-f", conf_path, "-d", "5x", NULL),
		SIM "--duration: '5x' is not a duration (accepted: a number "
		">= 0 with ns, us, ms, s (also nsec, usec, msec, sec, secs); "
		"a plain number is seconds)\n");
	refused(sim("-f", conf_path, "--seed", "x", NULL),
		SIM "--seed: 'x' is not an integer (accepted: an integer "
		"0..9223372036854775807)\n");
	assert_int_equal(sim("-f", conf_path, "--ef", "bogus", "--cs0",
			     "cbr:0", NULL), 1);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, SIM "--ef 'bogus' is not a source "
			       "(accepted: none | "));
	assert_non_null(strstr(err, "\n" SIM "--cs0"));
	refused(sim("-f", conf_path, "-d", "1", "-w", "2", NULL),
		SIM "--warmup: '2s' is not shorter than --duration 1s "
		"(accepted: 0 <= warmup < duration)\n");
}

/* The file and the scheduler overrides: a missing file, a malformed
 * --set, an unknown --sched, a --set value out of its key's range. */
static void test_conf_errors(void **state)
{
	char names[256], msg[400];

	(void)state;
	refused(sim("-f", "/nonexistent/x.conf", NULL),
		"/nonexistent/x.conf: cannot read: No such file or "
		"directory\n");
	refused(sim("-f", conf_path, "--set", "foo=1", NULL),
		SIM "--set 'foo=1' (accepted: scheduler.NAME.KEY=VALUE or "
		"scheduler.name=NAME)\n");
	snprintf(msg, sizeof(msg), SIM "scheduler 'nope' is not built in "
		 "(accepted: %s)\n", sched_names(names, sizeof(names)));
	refused(sim("-f", conf_path, "--sched", "nope", NULL), msg);
	snprintf(msg, sizeof(msg), "%s: scheduler.pss.bw: 7 is out of range "
		 "(accepted: 0 < bw < 1, a fraction of the capacity)\n"
		 SIM "(keys given with --set are reported without a line "
		 "number)\n", conf_path);
	refused(sim("-f", conf_path, "--sched", "pss", "--set",
		    "scheduler.pss.bw=7", NULL), msg);
}

/* A CSV that cannot be written: exit code 2, the option, the file and
 * the OS error. */
static void test_unwritable(void **state)
{
	(void)state;
	assert_int_equal(sim("-f", conf_path, "-o", "/nonexistent/x.csv",
			     "-d", "1", "-w", "0", "-q", NULL), 2);
	assert_string_equal(out, "");
	assert_string_equal(err, SIM "--csv /nonexistent/x.csv: No such file "
			    "or directory\n");
}

/* A run: EF CBR 1 Mbit/s beside a greedy AF on the 10 Mbit/s fifo link,
 * 3 s sampled each second: the header and three rows, EF at its rate,
 * the link full from the second row (the first starts with an empty
 * pipe: 9.988 Mbit/s), nothing on stderr with -q; the same with
 * --sched pss and a --set accepted, and the summary without -q. */
static void test_run(void **state)
{
	(void)state;
	assert_int_equal(sim("-f", conf_path, "--ef", "cbr:1Mbit:1000",
			     "--af", "greedy:1500", "-d", "3", "-w", "1", "-q",
			     NULL), 0);
	assert_string_equal(err, "");
	assert_string_equal(out,
		"t_s,ef_bps,af_bps,cs0_bps,link_bps,capacity_bps\n"
		"1,1000000,8988000,0,9988000,10000000\n"
		"2,1000000,9000000,0,10000000,10000000\n"
		"3,1000000,9000000,0,10000000,10000000\n");
	assert_int_equal(sim("-f", conf_path, "--ef", "cbr:1Mbit:1000",
			     "--af", "greedy:1500", "--cs0", "greedy:1500",
			     "--sched", "pss", "--set", "scheduler.pss.bw=0.4",
			     "-d", "3", "-w", "1", "-s", "0", NULL), 0);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, SIM));
	assert_non_null(strstr(err, "scheduler pss"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_conf_errors),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_run),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);

	free(out);
	free(err);
	return rc;
}
