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

#include "sim/sim.h"
#include "sim/simopt.h"
#include "util/tstamp.h"
#include "util/units.h"

#define DURATION_ACCEPTED "(accepted: a number >= 0 with ns, us, ms, s " \
	"(also nsec, usec, msec, sec, secs); a plain number is seconds)"
#define RATE_ACCEPTED "(accepted: a number > 0 with bit, kbit, mbit, " \
	"gbit, tbit, kibit..tibit, or bps, kbps, mbps, gbps, tbps, " \
	"kibps..tibps = bytes/s as in tc; a plain number is bit/s)"
#define SOURCE_ACCEPTED "(accepted: none | [N*]greedy[:PKT_BYTES" \
	"[:BACKLOG_PKTS]] | [N*]cbr:RATE[:PKT_BYTES[:AMPLITUDE:PERIOD]] | " \
	"[N*]onoff:PEAK:ON:OFF[:PKT_BYTES] | [N*]pareto:ALPHA:MEAN_SIZE:" \
	"ARRIVALS[:FLOW_RATE[:PKT_BYTES[:ARRIVAL_ALPHA[:MAX_SIZE]]]] | " \
	"[N*]tfrc:RATE:RTT[:PKT_BYTES[:PROFILE[:RTT_MAX]]] | " \
	"[N*]web:ALPHA:MEAN_SIZE:THINK:ACCESS_RATE[:PKT_BYTES])"

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
	/* an empty PERIOD is refused here, not left at 0 for the
	 * simulator to refuse later */
	source_bad("cbr:5Mbit:1500:0.5:", "--af 'cbr:5Mbit:1500:0.5:': "
		   "PERIOD: '' is not a duration " DURATION_ACCEPTED);
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

/* The per-flow kinds, N*SPEC and the seed: every piece lands in its
 * field; pareto's FLOW_RATE "unlimited" (and its absence) is greedy. */
static void test_flow_sources(void **state)
{
	struct sim_config sc;
	struct sim_source src;
	char err[1024] = "";

	(void)state;
	assert_int_equal(simopt_source("--ef", "10*onoff:64kbit:500ms:0.5:200",
				       &src, err, sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_ONOFF);
	assert_int_equal(src.flows, 10);
	assert_int_equal(src.peak_bps, 64000);
	assert_int_equal(src.on_ns, 500 * NS_PER_MS);
	assert_int_equal(src.off_ns, 500 * NS_PER_MS);
	assert_int_equal(src.pkt_bytes, 200);
	assert_int_equal(simopt_source("--af", "pareto:1.2:30000:5.5", &src,
				       err, sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_PARETO);
	assert_true(src.alpha == 1.2);
	assert_int_equal(src.mean_bytes, 30000);
	assert_true(src.arrivals_per_s == 5.5);
	assert_int_equal(src.peak_bps, 0);
	assert_int_equal(src.flows, 0);         /* from the rate */
	assert_true(src.arrival_alpha == 0.0);  /* Poisson */
	assert_int_equal(simopt_source("--af", "2000*pareto:2.5:1500:10:"
				       "unlimited:1000:1.5", &src, err,
				       sizeof(err)), 0);
	assert_int_equal(src.peak_bps, 0);
	assert_int_equal(src.flows, 2000);
	assert_int_equal(src.pkt_bytes, 1000);
	assert_true(src.arrival_alpha == 1.5);
	assert_int_equal(simopt_source("--af", "pareto:2.5:1500:10:1Mbit",
				       &src, err, sizeof(err)), 0);
	assert_int_equal(src.peak_bps, 1000000);
	assert_int_equal(simopt_source("--cs0", "3*tfrc:10Mbit:100ms:1400",
				       &src, err, sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_TFRC);
	assert_int_equal(src.flows, 3);
	assert_int_equal(src.rate_bps, 10000000);
	assert_int_equal(src.rtt_ns, 100 * NS_PER_MS);
	assert_int_equal(src.pkt_bytes, 1400);
	assert_int_equal(simopt_source("--af", "16*greedy:1500", &src, err,
				       sizeof(err)), 0);
	assert_int_equal(src.kind, SIM_SRC_GREEDY);
	assert_int_equal(src.flows, 16);

	memset(&sc, 0, sizeof(sc));
	assert_int_equal(simopt_set_run(&sc, "seed", "9223372036854775807",
					err, sizeof(err)), 0);
	assert_true(sc.seed == INT64_MAX);
	assert_int_equal(simopt_set_run(&sc, "seed", "42", err, sizeof(err)),
			 0);
	assert_true(sc.seed == 42);
	assert_int_equal(simopt_set_run(&sc, "seed", "-1", err, sizeof(err)),
			 -1);
	assert_string_equal(err, "--seed: '-1' is out of range (accepted: "
			    "an integer 0..9223372036854775807)");
}

static void test_flow_source_errors(void **state)
{
	(void)state;
	source_bad("0*greedy", "--af '0*greedy': N: '0' is out of range "
		   "(accepted: 1..50000 flows)");
	source_bad("x*cbr:1Mbit", "--af 'x*cbr:1Mbit': N: 'x' is not an "
		   "integer (accepted: 1..50000 flows)");
	source_bad("50001*greedy", "--af '50001*greedy': N: '50001' is out "
		   "of range (accepted: 1..50000 flows)");
	source_bad("2*none", "--af '2*none' is not a source " SOURCE_ACCEPTED);
	source_bad("onoff:64kbit:500ms", "--af 'onoff:64kbit:500ms' is not a "
		   "source " SOURCE_ACCEPTED);
	source_bad("onoff:0:1:1", "--af 'onoff:0:1:1': PEAK: '0' is not a "
		   "rate: it must be above 0 " RATE_ACCEPTED);
	source_bad("onoff:64kbit:0:1", "--af 'onoff:64kbit:0:1': ON: '0' is "
		   "out of range (accepted: 1ns..1000000s)");
	source_bad("onoff:64kbit:1:x", "--af 'onoff:64kbit:1:x': OFF: 'x' is "
		   "not a duration " DURATION_ACCEPTED);
	source_bad("pareto:1:1000:5", "--af 'pareto:1:1000:5': ALPHA: '1' is "
		   "out of range (accepted: 1 < ALPHA <= 100)");
	source_bad("pareto:1.5:0:5", "--af 'pareto:1.5:0:5': MEAN_SIZE: '0' "
		   "is out of range (accepted: 1..1099511627776 bytes)");
	source_bad("pareto:1.5:1000:0", "--af 'pareto:1.5:1000:0': ARRIVALS: "
		   "'0' is out of range (accepted: 0 < ARRIVALS <= 1000000 "
		   "flows/s)");
	source_bad("pareto:1.5:1000:5:fast", "--af 'pareto:1.5:1000:5:fast': "
		   "FLOW_RATE: 'fast' is not a rate (accepted: a number > 0 "
		   "with bit, kbit, mbit, gbit, tbit, kibit..tibit, or bps, "
		   "kbps, mbps, gbps, tbps, kibps..tibps = bytes/s as in tc; a "
		   "plain number is bit/s; or \"unlimited\")");
	source_bad("pareto:1.5:1000:5:unlimited:1500:1",
		   "--af 'pareto:1.5:1000:5:unlimited:1500:1': ARRIVAL_ALPHA: "
		   "'1' is out of range (accepted: 1 < ARRIVAL_ALPHA <= 100)");
	source_bad("tfrc:1Mbit", "--af 'tfrc:1Mbit' is not a source "
		   SOURCE_ACCEPTED);
	source_bad("tfrc:1Mbit:0", "--af 'tfrc:1Mbit:0': RTT: '0' is out of "
		   "range (accepted: 1ns..1000000s)");
	source_bad("tfrc:1Mbit:1s:1500:9:1s:2", "--af 'tfrc:1Mbit:1s:1500:9:1s:2' "
		   "is not a source " SOURCE_ACCEPTED);
	source_bad("tfrc:1Mbit:1s:1500:fast", "--af 'tfrc:1Mbit:1s:1500:fast': "
		   "PROFILE: 'fast' is not a rate (accepted: a number > 0 with "
		   "bit, kbit, mbit, gbit, tbit, kibit..tibit, or bps, kbps, "
		   "mbps, gbps, tbps, kibps..tibps = bytes/s as in tc; a plain "
		   "number is bit/s)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_options),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_source_errors),
		cmocka_unit_test(test_flow_sources),
		cmocka_unit_test(test_flow_source_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
