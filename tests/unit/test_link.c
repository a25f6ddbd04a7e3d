/* test_link.c - capacity profiles: loaders, S(t), its inverse, rates.
 *
 * Expected values are worked out by hand in the comments (or from the
 * closed forms of link.h evaluated independently in long double), never by
 * re-running the implementation.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "link/link.h"
#include "testutil.h"

#define OPP_BITS 12032.0        /* 1504 bytes */

static struct link_profile constant(uint64_t rate_bps)
{
	struct link_profile p = { .kind = LINK_CONSTANT, .rate_bps = rate_bps };

	return p;
}

static struct link_profile cosine(uint64_t mean_bps, double a, double per_s)
{
	struct link_profile p = { .kind = LINK_COSINE, .mean_bps = mean_bps,
				  .amplitude = a, .period_s = per_s };

	return p;
}

/* link_load_trace or link_load_mahimahi. */
typedef int (*loader_fn)(struct link_profile *p, const char *path, char *err,
			 size_t err_len);

/* A file that must load with `load`. */
static void load_ok(loader_fn load, struct link_profile *p, const char *path)
{
	char err[512] = "";
	int rc = load(p, path, err, sizeof(err));

	if (rc != 0)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
}

static void load_trace(struct link_profile *p, const char *path)
{
	load_ok(link_load_trace, p, path);
}

static void load_mm(struct link_profile *p, const char *path)
{
	load_ok(link_load_mahimahi, p, path);
}

/* The defining property of the inverse, at ns resolution. */
static void check_inverse(const struct link_profile *p, double bits)
{
	tstamp_ns t = link_time_for_bits(p, bits, 0);

	assert_true(t != TS_NEVER);
	assert_true(link_service_bits(p, t) >= bits);
	if (t > 0)
		assert_true(link_service_bits(p, t - 1) < bits);
}

/* ------------------------------------------------------------------ */

static void test_kind_names(void **state)
{
	static const struct tu_name kinds[] = {
		{ LINK_UNLIMITED, "unlimited" }, { LINK_CONSTANT, "constant" },
		{ LINK_COSINE, "cosine" }, { LINK_TRACE, "trace" },
		{ LINK_MAHIMAHI, "mahimahi" },
	};

	(void)state;
	tu_assert_names(link_kind_name, kinds, TU_LEN(kinds));
}

static void test_constant_exact(void **state)
{
	struct link_profile p = constant(20000000);
	struct link_profile q = constant(3000000);
	struct link_profile z = constant(0);

	(void)state;
	/* 20 Mbit/s: 1 s carries 2e7 bits; 1400 bytes take 560 us */
	assert_true(link_service_bits(&p, NS_PER_SEC) == 20000000.0);
	assert_true(link_service_bits(&p, 560000) == 11200.0);
	assert_int_equal(link_time_for_bits(&p, 11200.0, 0), 560000);
	/* one more bit costs 50 ns */
	assert_int_equal(link_time_for_bits(&p, 11201.0, 0), 560050);
	/* an hour in: 3600 s * 2e7 = 7.2e10 bits exactly */
	assert_true(link_service_bits(&p, 3600 * NS_PER_SEC) == 72000000000.0);
	assert_int_equal(link_time_for_bits(&p, 72000011200.0, 0),
			 3600 * NS_PER_SEC + 560000);
	/* 3 Mbit/s: 11200 bits take 3733333.33 ns -> 3733334 */
	assert_int_equal(link_time_for_bits(&q, 11200.0, 0), 3733334);
	assert_true(link_service_bits(&q, 3733333) < 11200.0);
	/* hint: smallest t >= hint */
	assert_int_equal(link_time_for_bits(&p, 11200.0, NS_PER_SEC), NS_PER_SEC);
	assert_int_equal(link_time_for_bits(&p, 0.0, 1234), 1234);
	assert_int_equal(link_time_for_bits(&z, 1.0, 0), TS_NEVER);
	assert_int_equal(link_rate_at(&p, 5 * NS_PER_SEC), 20000000);
	assert_int_equal(link_mean_bps(&p), 20000000);
}

static void test_cosine_closed_form(void **state)
{
	struct link_profile p = cosine(20000000, 0.3, 15.0);
	/* m a P / (2 pi) = 20e6 * 0.3 * 15 / (2 pi) = 14323944.878270581 */
	const double amp = 14323944.878270581;
	tstamp_ns t;

	(void)state;
	assert_int_equal(link_rate_at(&p, 0), 26000000);
	assert_int_equal(link_rate_at(&p, 7500 * NS_PER_MS), 14000000);
	assert_int_equal(link_rate_at(&p, 3750 * NS_PER_MS), 20000000);
	assert_int_equal(link_rate_at(&p, 15 * NS_PER_SEC), 26000000);
	assert_int_equal(link_mean_bps(&p), 20000000);
	/* S(P/4) = m P/4 + amp; S(P/2) = m P/2; S(3P/4) = 3mP/4 - amp */
	assert_float_equal(link_service_bits(&p, 3750 * NS_PER_MS),
			   75000000.0 + amp, 1e-5);
	assert_float_equal(link_service_bits(&p, 7500 * NS_PER_MS),
			   150000000.0, 1e-5);
	assert_float_equal(link_service_bits(&p, 11250 * NS_PER_MS),
			   225000000.0 - amp, 1e-5);
	assert_float_equal(link_service_bits(&p, 150 * NS_PER_SEC),
			   3000000000.0, 1e-4);
	/* the inverse lands on those instants (to the ns) */
	t = link_time_for_bits(&p, 75000000.0 + amp, 0);
	assert_true(t >= 3750 * NS_PER_MS - 1 && t <= 3750 * NS_PER_MS + 1);
	t = link_time_for_bits(&p, 150000000.0, 0);
	assert_true(t >= 7500 * NS_PER_MS - 1 && t <= 7500 * NS_PER_MS + 1);
	t = link_time_for_bits(&p, 3000000000.0, 0);
	assert_true(t >= 150 * NS_PER_SEC - 1 && t <= 150 * NS_PER_SEC + 1);
}

/* Reference cosine S in long double, straight from link.h's formula. */
static long double ref_cosine_bits(long double m, long double a,
				   long double per, tstamp_ns t)
{
	long double ts = (long double)t / 1e9L;
	long double w = 2.0L * 3.14159265358979323846264338327950288L / per;

	return m * ts + m * a / w * sinl(w * ts);
}

static void test_cosine_inverse_vs_reference(void **state)
{
	/* a close to 1 makes C(t) nearly 0 at the troughs: Newton's worst case */
	static const double amps[] = { 0.0, 0.3, 0.6, 0.95, 0.999 };
	uint64_t rng = 42;  /* splitmix64: deterministic test points */
	unsigned i, k;

	(void)state;
	for (i = 0; i < TU_LEN(amps); i++) {
		struct link_profile p = cosine(20000000, amps[i], 15.0);

		for (k = 0; k < 3000; k++) {
			double b = rng_u01(&rng) * 20000000.0 * 400.0;
			tstamp_ns t = link_time_for_bits(&p, b, 0);
			long double s1 = ref_cosine_bits(2e7L, amps[i], 15.0L, t);
			long double s0 = ref_cosine_bits(2e7L, amps[i], 15.0L, t - 1);

			/* the reference agrees within a micro-bit of rounding */
			assert_true(s1 >= (long double)b - 1e-4L);
			assert_true(s0 < (long double)b + 1e-4L);
			check_inverse(&p, b);
		}
	}
}

/* good.csv: (0 s, 20 Mbit/s) (2 s, 10 Mbit/s) (3 s, 0) (4 s, 15 Mbit/s)
 * cum: 0, 40e6, 50e6, 50e6 bits. */
static void test_trace_good(void **state)
{
	struct link_profile p = { 0 };

	(void)state;
	load_trace(&p, "data/link/good.csv");
	assert_int_equal(p.kind, LINK_TRACE);
	assert_int_equal(p.npts, 4);
	assert_string_equal(p.source, "data/link/good.csv");
	assert_int_equal(p.pts[3].t_ns, 4 * NS_PER_SEC);
	assert_int_equal(p.pts[3].rate_bps, 15000000);   /* 15000000.4 */
	assert_true(p.pts[1].cum_bits == 40000000.0);
	assert_true(p.pts[3].cum_bits == 50000000.0);

	assert_int_equal(link_rate_at(&p, 0), 20000000);
	assert_int_equal(link_rate_at(&p, 2 * NS_PER_SEC - 1), 20000000);
	assert_int_equal(link_rate_at(&p, 2 * NS_PER_SEC), 10000000);
	assert_int_equal(link_rate_at(&p, 3 * NS_PER_SEC - 1), 10000000);
	assert_int_equal(link_rate_at(&p, 3500 * NS_PER_MS), 0);
	assert_int_equal(link_rate_at(&p, 100 * NS_PER_SEC), 15000000);
	/* time-weighted mean over [0, 4 s]: 50e6 / 4 */
	assert_int_equal(link_mean_bps(&p), 12500000);

	assert_true(link_service_bits(&p, NS_PER_SEC) == 20000000.0);
	assert_true(link_service_bits(&p, 2500 * NS_PER_MS) == 45000000.0);
	assert_true(link_service_bits(&p, 3500 * NS_PER_MS) == 50000000.0);
	assert_true(link_service_bits(&p, 5 * NS_PER_SEC) == 65000000.0);

	assert_int_equal(link_time_for_bits(&p, 45000000.0, 0), 2500 * NS_PER_MS);
	/* exactly the outage's level: reached when the outage starts */
	assert_int_equal(link_time_for_bits(&p, 50000000.0, 0), 3 * NS_PER_SEC);
	/* one bit more waits for the outage to end: 1 bit at 15 Mbit/s is
	 * 66.7 ns -> 67 */
	assert_int_equal(link_time_for_bits(&p, 50000001.0, 0),
			 4 * NS_PER_SEC + 67);
	assert_int_equal(link_time_for_bits(&p, 65000000.0, 0), 5 * NS_PER_SEC);
	/* hint inside the outage */
	assert_int_equal(link_time_for_bits(&p, 50000000.0, 3500 * NS_PER_MS),
			 3500 * NS_PER_MS);
	link_profile_free(&p);
	assert_int_equal(p.kind, LINK_UNLIMITED);
	assert_null(p.pts);
}

static void test_trace_ends_zero_and_single(void **state)
{
	struct link_profile p = { 0 }, s = { 0 };

	(void)state;
	load_trace(&p, "data/link/ends_zero.csv");
	/* 8 Mbit/s for 1.5 s = 12e6 bits, then nothing ever */
	assert_int_equal(link_time_for_bits(&p, 12000000.0, 0), 1500 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 12000000.5, 0), TS_NEVER);
	assert_true(link_service_bits(&p, 1000 * NS_PER_SEC) == 12000000.0);
	assert_int_equal(link_mean_bps(&p), 8000000);
	assert_int_equal(link_rate_at(&p, 2 * NS_PER_SEC), 0);

	load_trace(&s, "data/link/single.csv");
	assert_int_equal(s.npts, 1);
	assert_int_equal(link_mean_bps(&s), 7000000);
	assert_true(link_service_bits(&s, 2 * NS_PER_SEC) == 14000000.0);
	assert_int_equal(link_time_for_bits(&s, 7000000.0, 0), NS_PER_SEC);
	link_profile_free(&p);
	link_profile_free(&s);
}

static void test_trace_decimal_rounding(void **state)
{
	struct link_profile p = { 0 };

	(void)state;
	load_trace(&p, "data/link/fraction.csv");
	assert_int_equal(p.npts, 3);
	assert_int_equal(p.pts[0].rate_bps, 1000001);      /* .5 rounds up */
	assert_int_equal(p.pts[1].t_ns, 2);                /* 1.5 ns -> 2 */
	assert_int_equal(p.pts[2].t_ns, 123456789);        /* ...94 -> down */
	link_profile_free(&p);
}

/* mm_tiny.trace: 2 2 5 10 -> period 10 ms, opportunities at
 * 2,2,5,10 | 12,12,15,20 | 22,22,25,30 ... */
static void test_mahimahi_tiny(void **state)
{
	struct link_profile p = { 0 };

	(void)state;
	load_mm(&p, "data/link/mm_tiny.trace");
	assert_int_equal(p.kind, LINK_MAHIMAHI);
	assert_int_equal(p.nopps, 4);
	assert_int_equal(p.mm_period_ms, 10);
	/* 4 * 1504 * 8 bits per 10 ms */
	assert_int_equal(link_mean_bps(&p), 4812800);
	assert_int_equal(link_rate_at(&p, 123456789), 4812800);

	assert_true(link_service_bits(&p, 0) == 0.0);
	assert_true(link_service_bits(&p, 2 * NS_PER_MS - 1) == 0.0);
	/* an opportunity at exactly t counts */
	assert_true(link_service_bits(&p, 2 * NS_PER_MS) == 2 * OPP_BITS);
	assert_true(link_service_bits(&p, 10 * NS_PER_MS - 1) == 3 * OPP_BITS);
	assert_true(link_service_bits(&p, 10 * NS_PER_MS) == 4 * OPP_BITS);
	assert_true(link_service_bits(&p, 12 * NS_PER_MS) == 6 * OPP_BITS);
	/* 1002 ms: 100 whole periods (400) + offsets <= 2 (2) */
	assert_true(link_service_bits(&p, 1002 * NS_PER_MS) == 402 * OPP_BITS);

	assert_int_equal(link_time_for_bits(&p, 1.0, 0), 2 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 2 * OPP_BITS, 0), 2 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 2 * OPP_BITS + 1, 0), 5 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 4 * OPP_BITS, 0), 10 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 4 * OPP_BITS + 1, 0), 12 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 7 * OPP_BITS, 0), 15 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 401 * OPP_BITS, 0), 1002 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 403 * OPP_BITS, 0), 1005 * NS_PER_MS);
	link_profile_free(&p);
}

static void test_mahimahi_12mbit_and_edges(void **state)
{
	struct link_profile p = { 0 }, c = { 0 }, b = { 0 };

	(void)state;
	/* 1..1000: one opportunity per ms -> 12.032 Mbit/s */
	load_mm(&p, "data/link/mm_12mbit.trace");
	assert_int_equal(p.nopps, 1000);
	assert_int_equal(p.mm_period_ms, 1000);
	assert_int_equal(link_mean_bps(&p), 12032000);
	assert_true(link_service_bits(&p, 999999) == 0.0);
	assert_true(link_service_bits(&p, NS_PER_MS) == OPP_BITS);
	assert_true(link_service_bits(&p, 2500 * NS_PER_MS + 7) == 2500 * OPP_BITS);
	assert_int_equal(link_time_for_bits(&p, 2500 * OPP_BITS, 0), 2500 * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&p, 2500 * OPP_BITS + 1, 0), 2501 * NS_PER_MS);

	/* '# comment', 0, blank, 0, 3: period 3 ms, two opportunities at 0 */
	load_mm(&c, "data/link/mm_comment.trace");
	assert_int_equal(c.nopps, 3);
	assert_int_equal(c.mm_period_ms, 3);
	assert_true(link_service_bits(&c, 0) == 2 * OPP_BITS);
	/* <= 3 ms: 0,0,3 then 3,3 of the next period */
	assert_true(link_service_bits(&c, 3 * NS_PER_MS) == 5 * OPP_BITS);
	assert_int_equal(link_time_for_bits(&c, 2 * OPP_BITS, 0), 0);
	assert_int_equal(link_time_for_bits(&c, 6 * OPP_BITS, 0), 6 * NS_PER_MS);

	/* 1, 4294967295: the largest period */
	load_mm(&b, "data/link/mm_big_ok.trace");
	assert_int_equal(b.mm_period_ms, 4294967295u);
	assert_int_equal(link_time_for_bits(&b, 2 * OPP_BITS, 0),
			 4294967295ULL * NS_PER_MS);
	assert_int_equal(link_time_for_bits(&b, 3 * OPP_BITS, 0),
			 4294967296ULL * NS_PER_MS);
	link_profile_free(&p);
	link_profile_free(&c);
	link_profile_free(&b);
}

/* S(T(b)) >= b > S(T(b) - 1) for many b, every profile. */
static void test_inverse_property_all_profiles(void **state)
{
	struct link_profile prof[8];
	uint64_t rng = 7;
	unsigned n = 0, i, k;

	(void)state;
	memset(prof, 0, sizeof(prof));
	prof[n++] = constant(20000000);
	prof[n++] = constant(3000000);
	prof[n++] = constant(1);
	prof[n++] = cosine(20000000, 0.3, 15.0);
	prof[n++] = cosine(7777777, 0.9, 0.1);
	load_trace(&prof[n++], "data/link/good.csv");
	load_mm(&prof[n++], "data/link/mm_tiny.trace");
	load_mm(&prof[n++], "data/link/mm_12mbit.trace");
	for (i = 0; i < n; i++) {
		double top = link_service_bits(&prof[i], 300 * NS_PER_SEC);

		for (k = 0; k < 5000; k++)
			check_inverse(&prof[i], rng_u01(&rng) * top);
		/* whole packets and whole opportunities: exact boundaries */
		for (k = 1; k < 2000; k++) {
			check_inverse(&prof[i], 11200.0 * k);
			check_inverse(&prof[i], OPP_BITS * k);
		}
	}
	for (i = 0; i < n; i++)
		link_profile_free(&prof[i]);
}

static void test_copy(void **state)
{
	struct link_profile a = { 0 }, b = { 0 }, m = { 0 }, n = { 0 };

	(void)state;
	load_trace(&a, "data/link/good.csv");
	assert_int_equal(link_profile_copy(&b, &a), 0);
	assert_ptr_not_equal(a.pts, b.pts);
	link_profile_free(&a);
	assert_true(link_service_bits(&b, 5 * NS_PER_SEC) == 65000000.0);
	assert_string_equal(b.source, "data/link/good.csv");
	link_profile_free(&b);

	load_mm(&m, "data/link/mm_tiny.trace");
	assert_int_equal(link_profile_copy(&n, &m), 0);
	link_profile_free(&m);
	assert_int_equal(link_time_for_bits(&n, 7 * OPP_BITS, 0), 15 * NS_PER_MS);
	link_profile_free(&n);
}

/* ------------------------------------------------------------------ */

struct err_case {
	const char *file;
	const char *msg;
};

#define ACC_LINE "(accepted: lines \"time_s,rate_bps\", '#' comments, blank lines)"
#define ACC_TIME "(accepted: seconds as a plain non-negative decimal number, at most 1000000000)"
#define ACC_RATE "(accepted: bit/s as a plain non-negative decimal number without unit, at most 9007199254740992)"
#define ACC_MM   "(accepted: one non-negative integer of milliseconds per line, at most 4294967295)"

static const struct err_case trace_errors[] = {
	{ "data/link/empty.csv",
	  "data/link/empty.csv:3: no data point (accepted: at least one line time_s,rate_bps, the first at time 0)" },
	{ "data/link/bad_first.csv",
	  "data/link/bad_first.csv:2: first time '0.5' is not 0 (accepted: a trace starting at time 0)" },
	{ "data/link/bad_order.csv",
	  "data/link/bad_order.csv:3: time '1' does not increase (accepted: times strictly increasing, after '1' on line 2)" },
	{ "data/link/bad_order2.csv",
	  "data/link/bad_order2.csv:3: time '1.5' does not increase (accepted: times strictly increasing, after '2' on line 2)" },
	{ "data/link/bad_rate_neg.csv",
	  "data/link/bad_rate_neg.csv:2: invalid rate '-5' " ACC_RATE },
	{ "data/link/bad_rate_unit.csv",
	  "data/link/bad_rate_unit.csv:2: invalid rate '20Mbit' " ACC_RATE },
	{ "data/link/bad_rate_big.csv",
	  "data/link/bad_rate_big.csv:1: invalid rate '9007199254740993' " ACC_RATE },
	{ "data/link/bad_rate_exp.csv",
	  "data/link/bad_rate_exp.csv:1: invalid rate '1e6' " ACC_RATE },
	{ "data/link/bad_rate_empty.csv",
	  "data/link/bad_rate_empty.csv:2: invalid rate '' " ACC_RATE },
	{ "data/link/bad_time.csv",
	  "data/link/bad_time.csv:2: invalid time 'abc' " ACC_TIME },
	{ "data/link/bad_time_neg.csv",
	  "data/link/bad_time_neg.csv:2: invalid time '-1' " ACC_TIME },
	{ "data/link/bad_time_big.csv",
	  "data/link/bad_time_big.csv:2: invalid time '1000000000.5' " ACC_TIME },
	{ "data/link/bad_header_late.csv",
	  "data/link/bad_header_late.csv:2: invalid time 'time_s' " ACC_TIME },
	{ "data/link/bad_fields3.csv",
	  "data/link/bad_fields3.csv:2: expected time_s,rate_bps, got '1,2000,3' " ACC_LINE },
	{ "data/link/bad_fields1.csv",
	  "data/link/bad_fields1.csv:4: expected time_s,rate_bps, got '5 1000' " ACC_LINE },
	{ "data/link/no_such_file.csv",
	  "data/link/no_such_file.csv: cannot open: No such file or directory (accepted: a readable file)" },
};

static const struct err_case mm_errors[] = {
	{ "data/link/mm_bad_text.trace",
	  "data/link/mm_bad_text.trace:3: invalid offset 'x' " ACC_MM },
	{ "data/link/mm_bad_neg.trace",
	  "data/link/mm_bad_neg.trace:2: invalid offset '-2' " ACC_MM },
	{ "data/link/mm_bad_dec.trace",
	  "data/link/mm_bad_dec.trace:2: invalid offset '2.5' " ACC_MM },
	{ "data/link/mm_bad_big.trace",
	  "data/link/mm_bad_big.trace:2: invalid offset '4294967296' " ACC_MM },
	{ "data/link/mm_bad_order.trace",
	  "data/link/mm_bad_order.trace:3: offset '6' is below the previous one (accepted: non-decreasing offsets, at least 7)" },
	{ "data/link/mm_bad_zero.trace",
	  "data/link/mm_bad_zero.trace:2: last offset '0' makes a zero period (accepted: a last offset > 0, the period in ms)" },
	{ "data/link/mm_empty.trace",
	  "data/link/mm_empty.trace:1: no delivery opportunity (accepted: at least one line with a ms offset)" },
	{ "data/link/no_such_file.trace",
	  "data/link/no_such_file.trace: cannot open: No such file or directory (accepted: a readable file)" },
};

/* Each file fails to load with its message, leaving the profile as it
 * was (no table allocated). */
static void expect_load_errors(loader_fn load, const struct err_case *c,
			       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct link_profile p = { 0 };
		char err[512] = "";

		assert_int_equal(load(&p, c[i].file, err, sizeof(err)), -1);
		assert_string_equal(err, c[i].msg);
		assert_int_equal(p.kind, LINK_UNLIMITED);
		assert_null(p.pts);
		assert_null(p.opp_ms);
	}
}

static void test_trace_errors(void **state)
{
	(void)state;
	expect_load_errors(link_load_trace, trace_errors, TU_LEN(trace_errors));
}

static void test_mahimahi_errors(void **state)
{
	(void)state;
	expect_load_errors(link_load_mahimahi, mm_errors, TU_LEN(mm_errors));
}

/* 1,000,000 points load; one more is refused on its line. */
static void test_trace_point_limit(void **state)
{
	char path[] = "/tmp/schedtun-test-link-XXXXXX";
	char err[512] = "", want[512];
	struct link_profile p = { 0 };
	FILE *f;
	int fd;
	unsigned i;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "time_s,rate_bps\n");
	for (i = 0; i < 1000000; i++)
		fprintf(f, "%u,1000\n", i);
	assert_int_equal(fflush(f), 0);
	load_trace(&p, path);
	assert_int_equal(p.npts, 1000000);
	/* 1000 bit/s over 999999 s */
	assert_true(link_service_bits(&p, 999999 * NS_PER_SEC) == 999999000.0);
	link_profile_free(&p);

	fprintf(f, "1000000,1000\n");
	fclose(f);
	assert_int_equal(link_load_trace(&p, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "%s:1000002: too many points at time '1000000' (accepted: at most 1000000 points)",
		 path);
	assert_string_equal(err, want);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_constant_exact),
		cmocka_unit_test(test_cosine_closed_form),
		cmocka_unit_test(test_cosine_inverse_vs_reference),
		cmocka_unit_test(test_trace_good),
		cmocka_unit_test(test_trace_ends_zero_and_single),
		cmocka_unit_test(test_trace_decimal_rounding),
		cmocka_unit_test(test_mahimahi_tiny),
		cmocka_unit_test(test_mahimahi_12mbit_and_edges),
		cmocka_unit_test(test_inverse_property_all_profiles),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_trace_errors),
		cmocka_unit_test(test_mahimahi_errors),
		cmocka_unit_test(test_trace_point_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
