/* test_sim_cli.c - schedtun-sim's option values (simopt.h): each is
 * parsed by the value layer, and each refusal names the option or the
 * SPEC piece, quotes the value and gives the accepted range, in the
 * file's words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "clock.h"
#include "sim.h"
#include "simopt.h"

#define DURATION_ACCEPTED "(accepted: a number >= 0 with ns, us, ms, s " \
	"(also nsec, usec, msec, sec, secs); a plain number is seconds)"
#define RATE_ACCEPTED "(accepted: a number > 0 with bit, kbit, mbit, " \
	"gbit, tbit, kibit..tibit, or bps, kbps, mbps, gbps, tbps, " \
	"kibps..tibps = bytes/s as in tc; a plain number is bit/s)"
#define SOURCE_ACCEPTED "(accepted: none | greedy[:PKT_BYTES" \
	"[:BACKLOG_PKTS]] | cbr:RATE[:PKT_BYTES[:AMPLITUDE:PERIOD]])"

/* simopt_source() must refuse spec with exactly `expected`. */
static void source_bad(const char *spec, const char *expected)
{
	struct sim_source src;
	char err[1024] = "";

	assert_int_equal(simopt_source("--af", spec, &src, err, sizeof(err)),
			 -1);
	assert_string_equal(err, expected);
}

static void test_run_options(void **state)
{
	struct sim_config sc;
	char err[1024] = "";

	(void)state;
	memset(&sc, 0, sizeof(sc));
	assert_int_equal(simopt_set_run(&sc, "duration", "100", err,
					sizeof(err)), 0);
	assert_int_equal(sc.duration_ns, 100 * NS_PER_SEC);
	assert_int_equal(simopt_set_run(&sc, "warmup", "500ms", err,
					sizeof(err)), 0);
	assert_int_equal(sc.warmup_ns, 500 * NS_PER_MS);
	assert_int_equal(simopt_set_run(&sc, "sample", "0", err,
					sizeof(err)), 0);
	assert_int_equal(sc.sample_ns, 0);
	assert_int_equal(simopt_check_run(&sc, 0, err, sizeof(err)), 0);

	assert_int_equal(simopt_set_run(&sc, "duration", "5x", err,
					sizeof(err)), -1);
	assert_string_equal(err, "--duration: '5x' is not a duration "
			    DURATION_ACCEPTED);
	assert_int_equal(sc.duration_ns, 100 * NS_PER_SEC);  /* untouched */
	assert_int_equal(simopt_set_run(&sc, "duration", "0", err,
					sizeof(err)), -1);
	assert_string_equal(err, "--duration: '0' is out of range (accepted: "
			    "1ns..1000000s)");
	assert_int_equal(simopt_set_run(&sc, "duration", "1000001", err,
					sizeof(err)), -1);
	assert_string_equal(err, "--duration: '1000001' is out of range "
			    "(accepted: 1ns..1000000s)");
	assert_int_equal(simopt_set_run(&sc, "sample", "-1", err,
					sizeof(err)), -1);
	assert_string_equal(err, "--sample: '-1' is not a duration "
			    DURATION_ACCEPTED);

	/* together: warmup < duration; --stats needs rows */
	assert_int_equal(simopt_set_run(&sc, "warmup", "100s", err,
					sizeof(err)), 0);
	assert_int_equal(simopt_check_run(&sc, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "--warmup: '100s' is not shorter than "
			    "--duration 100s (accepted: 0 <= warmup < "
			    "duration)");
	sc.warmup_ns = 0;
	assert_int_equal(simopt_check_run(&sc, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "--stats needs a sample interval (accepted: "
			    "--sample D with D > 0)");
}

static void test_sources(void **state)
{
	struct sim_source src;
	char err[1024] = "";

	(void)state;
	assert_int_equal(simopt_source("--ef", "cbr:5Mbit:1500:0.6:6.1", &src,
				       err, sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_CBR);
	assert_int_equal(src.rate_bps, 5000000);
	assert_int_equal(src.pkt_bytes, 1500);
	assert_true(src.amplitude == 0.6);
	assert_true(src.period_s == 6.1);
	assert_int_equal(simopt_source("--af", "greedy", &src, err,
				       sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_GREEDY);
	assert_int_equal(src.pkt_bytes, 0);     /* the file's MTU */
	assert_int_equal(src.backlog_pkts, 0);  /* the default, 4 */
	assert_int_equal(simopt_source("--af", "greedy:1400:8", &src, err,
				       sizeof(err)), 0);
	assert_int_equal(src.pkt_bytes, 1400);
	assert_int_equal(src.backlog_pkts, 8);
	assert_int_equal(simopt_source("--cs0", "none", &src, err,
				       sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_NONE);
}

static void test_source_errors(void **state)
{
	(void)state;
	source_bad("cbr:5x", "--af 'cbr:5x': RATE: '5x' is not a rate "
		   RATE_ACCEPTED);
	source_bad("cbr:0", "--af 'cbr:0': RATE: '0' is not a rate: it must "
		   "be above 0 " RATE_ACCEPTED);
	source_bad("cbr::1400", "--af 'cbr::1400': RATE: '' is not a rate "
		   RATE_ACCEPTED);
	source_bad("greedy:20", "--af 'greedy:20': PKT_BYTES: '20' is out of "
		   "range (accepted: 28..9000 bytes)");
	source_bad("greedy:abc", "--af 'greedy:abc': PKT_BYTES: 'abc' is not "
		   "an integer (accepted: 28..9000 bytes)");
	source_bad("greedy:1500:0", "--af 'greedy:1500:0': BACKLOG_PKTS: '0' "
		   "is out of range (accepted: 1..1000000 packets)");
	source_bad("cbr:5Mbit:1500:1.5:6", "--af 'cbr:5Mbit:1500:1.5:6': "
		   "AMPLITUDE: '1.5' is out of range (accepted: 0 <= "
		   "AMPLITUDE < 1)");
	source_bad("cbr:5Mbit:1500:1:6", "--af 'cbr:5Mbit:1500:1:6': "
		   "AMPLITUDE: '1' is out of range (accepted: 0 <= "
		   "AMPLITUDE < 1)");
	source_bad("cbr:5Mbit:1500:0.5:0", "--af 'cbr:5Mbit:1500:0.5:0': "
		   "PERIOD: '0' is out of range (accepted: 1ns..86400s)");
	source_bad("cbr:5Mbit:1500:0.5:xs", "--af 'cbr:5Mbit:1500:0.5:xs': "
		   "PERIOD: 'xs' is not a duration " DURATION_ACCEPTED);
	/* the shape: kinds and piece counts */
	source_bad("cbr", "--af 'cbr' is not a source " SOURCE_ACCEPTED);
	source_bad("cbr:5Mbit:1500:0.5", "--af 'cbr:5Mbit:1500:0.5' is not a "
		   "source " SOURCE_ACCEPTED);
	source_bad("greedy:1500:4:5", "--af 'greedy:1500:4:5' is not a source "
		   SOURCE_ACCEPTED);
	source_bad("none:1", "--af 'none:1' is not a source "
		   SOURCE_ACCEPTED);
	source_bad("poisson:5Mbit", "--af 'poisson:5Mbit' is not a source "
		   SOURCE_ACCEPTED);
	source_bad("cbr:1:2:3:4:5:6", "--af 'cbr:1:2:3:4:5:6' is not a source "
		   SOURCE_ACCEPTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_options),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_source_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
