/* test_units.c - rate and duration parsing (tc semantics) and formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/units.h"
#include "testutil.h"

#define RATE_ACC "(accepted: a number > 0 with bit, kbit, mbit, gbit, " \
	"tbit, kibit..tibit, or bps, kbps, mbps, gbps, tbps, kibps..tibps = " \
	"bytes/s as in tc; a plain number is bit/s"
#define DUR_ACC "(accepted: a number >= 0 with ns, us, ms, s (also nsec, " \
	"usec, msec, sec, secs); a plain number is seconds)"

/* What a case parses. */
enum kind {
	RATE,           /* parse_rate_bps, "unlimited" refused */
	RATE_UNL,       /* parse_rate_bps, "unlimited" allowed */
	DUR,            /* parse_duration_ns */
};

/* Parses s as kind; returns parse's result, the value in *v and the
 * message in err. */
static int parse(enum kind k, const char *s, uint64_t *v, char *err,
		 size_t len)
{
	if (k == DUR)
		return parse_duration_ns(s, v, err, len);
	return parse_rate_bps(s, k == RATE_UNL, v, err, len);
}

/* Input accepted, and its value.  Fractions of a bit/s round to the
 * nearest; blanks around the number and before the unit are tolerated;
 * 2^63 bit/s is the largest rate (8 * 2^40 * 2^20 = 2^63 exactly too);
 * where "unlimited" is allowed a number is still a number. */
static const struct ok_case {
	enum kind   k;
	const char *in;
	uint64_t    want;
} accepted[] = {
	{ RATE, "20Mbit", 20000000ULL },	/* rates, SI suffixes */
	{ RATE, "20mbit", 20000000ULL },
	{ RATE, "20MBIT", 20000000ULL },
	{ RATE, "1bit", 1ULL },
	{ RATE, "7", 7ULL },
	{ RATE, "64kbit", 64000ULL },
	{ RATE, "64Kbit", 64000ULL },
	{ RATE, "3gbit", 3000000000ULL },
	{ RATE, "2Tbit", 2000000000000ULL },
	{ RATE, "1kibit", 1024ULL },	/* IEC suffixes */
	{ RATE, "1KiBit", 1024ULL },
	{ RATE, "2mibit", 2ULL * 1048576 },
	{ RATE, "3gibit", 3ULL * 1073741824 },
	{ RATE, "1tibit", 1099511627776ULL },
	{ RATE, "20mbps", 160000000ULL },	/* tc(8): bytes/s */
	{ RATE, "20MBps", 160000000ULL },
	{ RATE, "1bps", 8ULL },
	{ RATE, "100kbps", 800000ULL },
	{ RATE, "1gbps", 8000000000ULL },
	{ RATE, "1tbps", 8000000000000ULL },
	{ RATE, "1kibps", 8192ULL },
	{ RATE, "1mibps", 8ULL * 1048576 },
	{ RATE, "1gibps", 8ULL * 1073741824 },
	{ RATE, "1tibps", 8ULL * 1099511627776ULL },
	{ RATE, "1.5Mbit", 1500000ULL },	/* decimals */
	{ RATE, "0.5kbit", 500ULL },
	{ RATE, ".25mbit", 250000ULL },
	{ RATE, "12.032Mbit", 12032000ULL },
	{ RATE, "0.1kbit", 100ULL },
	{ RATE, "2.5kibit", 2560ULL },
	{ RATE, "1.5tibps", 12ULL * 1099511627776ULL },
	{ RATE, "0000020mbit", 20000000ULL },
	{ RATE, "1e6", 1000000ULL },
	{ RATE, "2.5e3kbit", 2500000ULL },
	{ RATE, "1.5", 2ULL },	/* rounded to the nearest */
	{ RATE, "1.4bit", 1ULL },
	{ RATE, " 20 Mbit ", 20000000ULL },	/* blanks around */
	{ RATE, "9223372036854775808", 1ULL << 63 },	/* 2^63: the largest */
	{ RATE, "1048576tibps", 1ULL << 63 },
	{ RATE_UNL, "unlimited", RATE_UNLIMITED },	/* where allowed */
	{ RATE_UNL, "Unlimited", RATE_UNLIMITED },
	{ RATE_UNL, "20mbit", 20000000ULL },
	{ DUR, "250ms", 250000000ULL },	/* durations */
	{ DUR, "250MS", 250000000ULL },
	{ DUR, "250msec", 250000000ULL },
	{ DUR, "250msecs", 250000000ULL },
	{ DUR, "1s", 1000000000ULL },
	{ DUR, "2sec", 2000000000ULL },
	{ DUR, "3secs", 3000000000ULL },
	{ DUR, "3SECS", 3000000000ULL },
	{ DUR, "100us", 100000ULL },
	{ DUR, "100usec", 100000ULL },
	{ DUR, "100usecs", 100000ULL },
	{ DUR, "42ns", 42ULL },
	{ DUR, "42nsec", 42ULL },
	{ DUR, "42nsecs", 42ULL },
	{ DUR, "15", 15000000000ULL },	/* a plain number is seconds */
	{ DUR, "0.25", 250000000ULL },
	{ DUR, "1.5ms", 1500000ULL },
	{ DUR, "0", 0ULL },
	{ DUR, "0ms", 0ULL },
	{ DUR, "1e-3", 1000000ULL },
	{ DUR, "0.000000001", 1ULL },
	{ DUR, "1.5ns", 2ULL },
	{ DUR, " 250 ms ", 250000000ULL },
	{ DUR, "9223372036854775808ns", 1ULL << 63 },	/* 2^63 ns is the largest */
};

/* Input refused: the message is "'IN' is not a rate|duration" + why + the
 * accepted list of its kind. */
static const struct bad_case {
	enum kind   k;
	const char *in;
	const char *why;
} refused[] = {
	{ RATE, "9223372036854775809", ": larger than 2^63 bit/s" },	/* 2^63 + 1 */
	{ RATE, "18446744073709551616", ": larger than 2^63 bit/s" },
	{ RATE, "99999999999999999999999999tbit", ": larger than 2^63 bit/s" },
	{ RATE, "10000000tbps", ": larger than 2^63 bit/s" },
	{ RATE, "1e30", ": larger than 2^63 bit/s" },
	{ RATE, "1048577tibps", ": larger than 2^63 bit/s" },
	{ RATE, "20 furlongs", "" },
	{ RATE_UNL, "20 furlongs", "" },
	{ RATE, "0", ": it must be above 0" },
	{ RATE, "0mbit", ": it must be above 0" },
	{ RATE, "0.0001bit", ": it must be above 0" },
	{ RATE, "-5mbit", "" },
	{ RATE, "+5mbit", "" },
	{ RATE, "", "" },
	{ RATE, "mbit", "" },
	{ RATE, ".", "" },
	{ RATE, "1..5mbit", "" },
	{ RATE, "0x10", "" },
	{ RATE, "inf", "" },
	{ RATE, "nan", "" },
	{ RATE, "20mbitx", "" },
	{ RATE, "20m", "" },
	{ RATE, "1e", "" },
	{ RATE, "unlimited", ": \"unlimited\" is not allowed here" },
	{ RATE_UNL, "unlimitedx", "" },
	{ DUR, "5 fortnights", "" },
	{ DUR, "-1ms", "" },
	{ DUR, "", "" },
	{ DUR, "ms", "" },
	{ DUR, "10m", "" },
	{ DUR, "1min", "" },
	{ DUR, "9223372036854775809ns", ": larger than 2^63 ns" },	/* 1e10 s is above 2^63 ns */
	{ DUR, "10000000000", ": larger than 2^63 ns" },
};

static void test_accepted(void **state)
{
	(void)state;
	for (size_t i = 0; i < TU_LEN(accepted); i++) {
		const struct ok_case *c = &accepted[i];
		char err[512] = "";
		uint64_t v = 0;

		if (parse(c->k, c->in, &v, err, sizeof(err)) != 0)
			fail_msg("'%s' refused: %s", c->in, err);
		if (v != c->want)
			fail_msg("'%s': %llu, expected %llu", c->in,
				 (unsigned long long)v,
				 (unsigned long long)c->want);
	}
}

/* -1, the exact message, and the value left untouched. */
static void test_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < TU_LEN(refused); i++) {
		const struct bad_case *c = &refused[i];
		char err[512] = "", want[512];
		uint64_t v = 12345;

		if (c->k == DUR)
			snprintf(want, sizeof(want), "'%s' is not a duration%s "
				 DUR_ACC, c->in, c->why);
		else
			snprintf(want, sizeof(want), "'%s' is not a rate%s "
				 RATE_ACC "%s", c->in, c->why,
				 c->k == RATE_UNL ? "; or \"unlimited\")" : ")");
		assert_int_equal(parse(c->k, c->in, &v, err, sizeof(err)), -1);
		assert_string_equal(err, want);
		assert_int_equal(v, 12345);
	}
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

/* Printed values, and whether the text parses back to the value. */
static const struct fmt_case {
	enum kind   k;
	uint64_t    v;
	const char *text;
	int         reads_back;
} printed[] = {
	{ RATE, 20000000, "20Mbit", 0 },
	{ RATE, 1500000, "1.5Mbit", 0 },
	{ RATE, 12032000, "12.032Mbit", 1 },
	{ RATE, 64000, "64Kbit", 1 },
	{ RATE, 999, "999bit", 0 },
	{ RATE, 0, "0bit", 0 },
	{ RATE, 10000000000ULL, "10Gbit", 0 },
	{ RATE, 2000000000000ULL, "2Tbit", 0 },
	{ RATE, RATE_UNLIMITED, "unlimited", 0 },
	{ DUR, 250000000, "250ms", 0 },
	{ DUR, 1000000000, "1s", 0 },
	{ DUR, 1500000000, "1.5s", 0 },
	{ DUR, 100000, "100us", 0 },
	{ DUR, 42, "42ns", 0 },
	{ DUR, 0, "0s", 0 },
	{ DUR, 10000000000ULL, "10s", 0 },
	{ DUR, UINT64_MAX, "never", 0 },
	{ DUR, 1500000, "1.5ms", 1 },
};

static void test_fmt(void **state)
{
	(void)state;
	for (size_t i = 0; i < TU_LEN(printed); i++) {
		const struct fmt_case *c = &printed[i];
		char b[32], err[512] = "";
		uint64_t v = 0;

		if (c->k == DUR)
			assert_string_equal(fmt_duration(c->v, b, sizeof(b)),
					    c->text);
		else
			assert_string_equal(fmt_rate(c->v, b, sizeof(b)), c->text);
		if (!c->reads_back)
			continue;
		if (parse(c->k, b, &v, err, sizeof(err)) != 0)
			fail_msg("'%s' refused: %s", b, err);
		assert_int_equal(v, c->v);
	}
}

/* Found by fuzz_trace: the largest rate and duration the parsers accept
 * (2^63) printed rounded up ("9223372.037Tbit"), which they refuse. */
static void test_fmt_largest_reads_back(void **state)
{
	static const struct { int k; const char *text; } big[] = {
		{ RATE, "9223372.036Tbit" }, { DUR, "9223372036.854s" },
	};
	const uint64_t max = (uint64_t)1 << 63;

	(void)state;
	for (size_t i = 0; i < TU_LEN(big); i++) {
		char b[32], err[512] = "";
		uint64_t v = 0;

		if (big[i].k == DUR)
			fmt_duration(max, b, sizeof(b));
		else
			fmt_rate(max, b, sizeof(b));
		assert_string_equal(b, big[i].text);
		if (parse(big[i].k, b, &v, err, sizeof(err)) != 0)
			fail_msg("'%s' refused: %s", b, err);
		assert_true(v <= max && max - v < (big[i].k == DUR ? 1000000u
						      : 1000000000u));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_rate_small_err_buffer),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_fmt_largest_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
