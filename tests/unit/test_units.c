/* test_units.c - rate and duration parsing (tc semantics) and formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "units.h"

#define RATE_ACC "(accepted: a number > 0 with bit, kbit, mbit, gbit, " \
	"tbit, kibit..tibit, or bps, kbps, mbps, gbps, tbps, kibps..tibps = " \
	"bytes/s as in tc; a plain number is bit/s"
#define DUR_ACC "(accepted: a number >= 0 with ns, us, ms, s (also nsec, " \
	"usec, msec, sec, secs); a plain number is seconds)"

static uint64_t rate_ok(const char *s)
{
	char err[512] = "";
	uint64_t v = 0;

	if (parse_rate_bps(s, 0, &v, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", s, err);
	return v;
}

static uint64_t dur_ok(const char *s)
{
	char err[512] = "";
	uint64_t v = 0;

	if (parse_duration_ns(s, &v, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", s, err);
	return v;
}

/* Returns the message; asserts the value was left untouched. */
static const char *rate_bad(const char *s, int allow_unlimited)
{
	static char err[512];
	uint64_t v = 12345;

	err[0] = '\0';
	assert_int_equal(parse_rate_bps(s, allow_unlimited, &v, err,
					sizeof(err)), -1);
	assert_int_equal(v, 12345);
	return err;
}

static const char *dur_bad(const char *s)
{
	static char err[512];
	uint64_t v = 12345;

	err[0] = '\0';
	assert_int_equal(parse_duration_ns(s, &v, err, sizeof(err)), -1);
	assert_int_equal(v, 12345);
	return err;
}

static void test_rate_si_suffixes(void **state)
{
	(void)state;
	assert_int_equal(rate_ok("20Mbit"), 20000000ULL);
	assert_int_equal(rate_ok("20mbit"), 20000000ULL);
	assert_int_equal(rate_ok("20MBIT"), 20000000ULL);
	assert_int_equal(rate_ok("1bit"), 1ULL);
	assert_int_equal(rate_ok("7"), 7ULL);
	assert_int_equal(rate_ok("64kbit"), 64000ULL);
	assert_int_equal(rate_ok("64Kbit"), 64000ULL);
	assert_int_equal(rate_ok("3gbit"), 3000000000ULL);
	assert_int_equal(rate_ok("2Tbit"), 2000000000000ULL);
}

static void test_rate_iec_suffixes(void **state)
{
	(void)state;
	assert_int_equal(rate_ok("1kibit"), 1024ULL);
	assert_int_equal(rate_ok("1KiBit"), 1024ULL);
	assert_int_equal(rate_ok("2mibit"), 2ULL * 1048576);
	assert_int_equal(rate_ok("3gibit"), 3ULL * 1073741824);
	assert_int_equal(rate_ok("1tibit"), 1099511627776ULL);
}

/* tc(8): "bps" is bytes per second. */
static void test_rate_bytes_suffixes(void **state)
{
	(void)state;
	assert_int_equal(rate_ok("20mbps"), 160000000ULL);
	assert_int_equal(rate_ok("20MBps"), 160000000ULL);
	assert_int_equal(rate_ok("1bps"), 8ULL);
	assert_int_equal(rate_ok("100kbps"), 800000ULL);
	assert_int_equal(rate_ok("1gbps"), 8000000000ULL);
	assert_int_equal(rate_ok("1tbps"), 8000000000000ULL);
	assert_int_equal(rate_ok("1kibps"), 8192ULL);
	assert_int_equal(rate_ok("1mibps"), 8ULL * 1048576);
	assert_int_equal(rate_ok("1gibps"), 8ULL * 1073741824);
	assert_int_equal(rate_ok("1tibps"), 8ULL * 1099511627776ULL);
}

static void test_rate_decimals(void **state)
{
	(void)state;
	assert_int_equal(rate_ok("1.5Mbit"), 1500000ULL);
	assert_int_equal(rate_ok("0.5kbit"), 500ULL);
	assert_int_equal(rate_ok(".25mbit"), 250000ULL);
	assert_int_equal(rate_ok("12.032Mbit"), 12032000ULL);
	assert_int_equal(rate_ok("0.1kbit"), 100ULL);
	assert_int_equal(rate_ok("2.5kibit"), 2560ULL);
	assert_int_equal(rate_ok("1.5tibps"), 12ULL * 1099511627776ULL);
	assert_int_equal(rate_ok("0000020mbit"), 20000000ULL);
	assert_int_equal(rate_ok("1e6"), 1000000ULL);
	assert_int_equal(rate_ok("2.5e3kbit"), 2500000ULL);
	/* fractions of a bit/s round to the nearest */
	assert_int_equal(rate_ok("1.5"), 2ULL);
	assert_int_equal(rate_ok("1.4bit"), 1ULL);
	/* blanks around the number and before the unit are tolerated */
	assert_int_equal(rate_ok(" 20 Mbit "), 20000000ULL);
}

static void test_rate_limits(void **state)
{
	(void)state;
	/* 2^63 is the largest rate; one more overflows */
	assert_int_equal(rate_ok("9223372036854775808"), 1ULL << 63);
	assert_string_equal(rate_bad("9223372036854775809", 0),
		"'9223372036854775809' is not a rate: larger than 2^63 bit/s "
		RATE_ACC ")");
	assert_string_equal(rate_bad("18446744073709551616", 0),
		"'18446744073709551616' is not a rate: larger than 2^63 bit/s "
		RATE_ACC ")");
	assert_string_equal(rate_bad("99999999999999999999999999tbit", 0),
		"'99999999999999999999999999tbit' is not a rate: larger than "
		"2^63 bit/s " RATE_ACC ")");
	assert_string_equal(rate_bad("10000000tbps", 0),
		"'10000000tbps' is not a rate: larger than 2^63 bit/s "
		RATE_ACC ")");
	assert_string_equal(rate_bad("1e30", 0),
		"'1e30' is not a rate: larger than 2^63 bit/s " RATE_ACC ")");
	/* 8 * 2^40 * 2^20 = 2^63 exactly, still fine */
	assert_int_equal(rate_ok("1048576tibps"), 1ULL << 63);
	assert_string_equal(rate_bad("1048577tibps", 0),
		"'1048577tibps' is not a rate: larger than 2^63 bit/s "
		RATE_ACC ")");
}

static void test_rate_rejects(void **state)
{
	(void)state;
	assert_string_equal(rate_bad("20 furlongs", 0),
		"'20 furlongs' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("20 furlongs", 1),
		"'20 furlongs' is not a rate " RATE_ACC "; or \"unlimited\")");
	assert_string_equal(rate_bad("0", 0),
		"'0' is not a rate: it must be above 0 " RATE_ACC ")");
	assert_string_equal(rate_bad("0mbit", 0),
		"'0mbit' is not a rate: it must be above 0 " RATE_ACC ")");
	assert_string_equal(rate_bad("0.0001bit", 0),
		"'0.0001bit' is not a rate: it must be above 0 " RATE_ACC ")");
	assert_string_equal(rate_bad("-5mbit", 0),
		"'-5mbit' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("+5mbit", 0),
		"'+5mbit' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("", 0), "'' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("mbit", 0),
		"'mbit' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad(".", 0), "'.' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("1..5mbit", 0),
		"'1..5mbit' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("0x10", 0),
		"'0x10' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("inf", 0), "'inf' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("nan", 0), "'nan' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("20mbitx", 0),
		"'20mbitx' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("20m", 0), "'20m' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("1e", 0), "'1e' is not a rate " RATE_ACC ")");
	assert_string_equal(rate_bad("unlimited", 0),
		"'unlimited' is not a rate: \"unlimited\" is not allowed here "
		RATE_ACC ")");
}

static void test_rate_unlimited(void **state)
{
	char err[64];
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_rate_bps("unlimited", 1, &v, err, sizeof(err)), 0);
	assert_true(v == RATE_UNLIMITED);
	v = 0;
	assert_int_equal(parse_rate_bps("Unlimited", 1, &v, err, sizeof(err)), 0);
	assert_true(v == RATE_UNLIMITED);
	/* a number is still a number where unlimited is allowed */
	assert_int_equal(parse_rate_bps("20mbit", 1, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 20000000ULL);
	assert_string_equal(rate_bad("unlimitedx", 1),
		"'unlimitedx' is not a rate " RATE_ACC "; or \"unlimited\")");
}

/* A short buffer truncates the message but never overflows. */
static void test_rate_small_err_buffer(void **state)
{
	char err[8];
	uint64_t v = 0;

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(parse_rate_bps("bogus", 0, &v, err, sizeof(err)), -1);
	assert_string_equal(err, "'bogus'");
	assert_int_equal(parse_rate_bps("bogus", 0, &v, NULL, 0), -1);
}

static void test_duration_suffixes(void **state)
{
	(void)state;
	assert_int_equal(dur_ok("250ms"), 250000000ULL);
	assert_int_equal(dur_ok("250MS"), 250000000ULL);
	assert_int_equal(dur_ok("250msec"), 250000000ULL);
	assert_int_equal(dur_ok("250msecs"), 250000000ULL);
	assert_int_equal(dur_ok("1s"), 1000000000ULL);
	assert_int_equal(dur_ok("2sec"), 2000000000ULL);
	assert_int_equal(dur_ok("3secs"), 3000000000ULL);
	assert_int_equal(dur_ok("3SECS"), 3000000000ULL);
	assert_int_equal(dur_ok("100us"), 100000ULL);
	assert_int_equal(dur_ok("100usec"), 100000ULL);
	assert_int_equal(dur_ok("100usecs"), 100000ULL);
	assert_int_equal(dur_ok("42ns"), 42ULL);
	assert_int_equal(dur_ok("42nsec"), 42ULL);
	assert_int_equal(dur_ok("42nsecs"), 42ULL);
	/* a plain number is seconds */
	assert_int_equal(dur_ok("15"), 15000000000ULL);
	assert_int_equal(dur_ok("0.25"), 250000000ULL);
	assert_int_equal(dur_ok("1.5ms"), 1500000ULL);
	assert_int_equal(dur_ok("0"), 0ULL);
	assert_int_equal(dur_ok("0ms"), 0ULL);
	assert_int_equal(dur_ok("1e-3"), 1000000ULL);
	assert_int_equal(dur_ok("0.000000001"), 1ULL);
	assert_int_equal(dur_ok("1.5ns"), 2ULL);
	assert_int_equal(dur_ok(" 250 ms "), 250000000ULL);
}

static void test_duration_rejects(void **state)
{
	(void)state;
	assert_string_equal(dur_bad("5 fortnights"),
		"'5 fortnights' is not a duration " DUR_ACC);
	assert_string_equal(dur_bad("-1ms"), "'-1ms' is not a duration " DUR_ACC);
	assert_string_equal(dur_bad(""), "'' is not a duration " DUR_ACC);
	assert_string_equal(dur_bad("ms"), "'ms' is not a duration " DUR_ACC);
	assert_string_equal(dur_bad("10m"), "'10m' is not a duration " DUR_ACC);
	assert_string_equal(dur_bad("1min"), "'1min' is not a duration " DUR_ACC);
	/* 2^63 ns is the largest; 1e10 s is above it */
	assert_int_equal(dur_ok("9223372036854775808ns"), 1ULL << 63);
	assert_string_equal(dur_bad("9223372036854775809ns"),
		"'9223372036854775809ns' is not a duration: larger than 2^63 "
		"ns " DUR_ACC);
	assert_string_equal(dur_bad("10000000000"),
		"'10000000000' is not a duration: larger than 2^63 ns " DUR_ACC);
}

static void test_fmt_rate(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_rate(20000000, b, sizeof(b)), "20Mbit");
	assert_string_equal(fmt_rate(1500000, b, sizeof(b)), "1.5Mbit");
	assert_string_equal(fmt_rate(12032000, b, sizeof(b)), "12.032Mbit");
	assert_string_equal(fmt_rate(64000, b, sizeof(b)), "64Kbit");
	assert_string_equal(fmt_rate(999, b, sizeof(b)), "999bit");
	assert_string_equal(fmt_rate(0, b, sizeof(b)), "0bit");
	assert_string_equal(fmt_rate(10000000000ULL, b, sizeof(b)), "10Gbit");
	assert_string_equal(fmt_rate(2000000000000ULL, b, sizeof(b)), "2Tbit");
	assert_string_equal(fmt_rate(RATE_UNLIMITED, b, sizeof(b)), "unlimited");
	/* what is printed reads back */
	assert_int_equal(rate_ok(fmt_rate(12032000, b, sizeof(b))), 12032000ULL);
	assert_int_equal(rate_ok(fmt_rate(64000, b, sizeof(b))), 64000ULL);
}

static void test_fmt_duration(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_duration(250000000, b, sizeof(b)), "250ms");
	assert_string_equal(fmt_duration(1000000000, b, sizeof(b)), "1s");
	assert_string_equal(fmt_duration(1500000000, b, sizeof(b)), "1.5s");
	assert_string_equal(fmt_duration(100000, b, sizeof(b)), "100us");
	assert_string_equal(fmt_duration(42, b, sizeof(b)), "42ns");
	assert_string_equal(fmt_duration(0, b, sizeof(b)), "0s");
	assert_string_equal(fmt_duration(10000000000ULL, b, sizeof(b)), "10s");
	assert_string_equal(fmt_duration(UINT64_MAX, b, sizeof(b)), "never");
	assert_int_equal(dur_ok(fmt_duration(1500000, b, sizeof(b))), 1500000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_si_suffixes),
		cmocka_unit_test(test_rate_iec_suffixes),
		cmocka_unit_test(test_rate_bytes_suffixes),
		cmocka_unit_test(test_rate_decimals),
		cmocka_unit_test(test_rate_limits),
		cmocka_unit_test(test_rate_rejects),
		cmocka_unit_test(test_rate_unlimited),
		cmocka_unit_test(test_rate_small_err_buffer),
		cmocka_unit_test(test_duration_suffixes),
		cmocka_unit_test(test_duration_rejects),
		cmocka_unit_test(test_fmt_rate),
		cmocka_unit_test(test_fmt_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
