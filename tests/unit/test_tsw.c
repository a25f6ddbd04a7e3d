/* test_tsw.c - RFC 2859's Time Sliding Window meter and marker
 * (src/mark/tsw.c) against the RFC's equations on a virtual clock: the
 * meter's closed form for a constant-rate stream, a stream at exactly the
 * committed rate (all green), at twice it (half yellow, green carrying
 * CTR), three colours at three times it, a burst after a silence worked
 * by hand, out-of-order time stamps, and seeds that repeat.
 * Deterministic: every draw comes from a fixed seed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mark/tsw.h"
#include "util/rng.h"

#define MBIT 1000000u

/* |got - want| within rel of |want| (or of 1 near 0). */
static void near(double got, double want, double rel, const char *what)
{
	double scale = fabs(want) > 1 ? fabs(want) : 1;

	if (!(fabs(got - want) <= rel * scale))
		fail_msg("%s: %.12g, expected %.12g (rel %.1g)", what, got,
			 want, rel);
}

static void test_params_problem(void **state)
{
	struct tsw_params p = { MBIT, 0, NS_PER_SEC };

	(void)state;
	assert_null(tsw_params_problem(&p));
	p.peak_bps = 2 * MBIT;
	assert_null(tsw_params_problem(&p));
	p.peak_bps = MBIT;
	assert_string_equal(tsw_params_problem(&p),
			    "the peak rate is not above the committed rate");
	p.peak_bps = 0;
	p.committed_bps = 0;
	assert_string_equal(tsw_params_problem(&p), "the committed rate is 0");
	p.committed_bps = MBIT;
	p.window_ns = 0;
	assert_string_equal(tsw_params_problem(&p), "the window is 0");
}

/* §2.2 for a stream of L-byte packets every gap g (rate R = L/g) from
 * AVG_RATE = A0: A_n = R + (A0 - R) q^n, q = W / (W + g).  CTR 1 Mbit/s,
 * W = 1 s, 1000-byte packets at 1, 2 and 0.5 Mbit/s (gaps of 8, 4 and
 * 16 ms, exact in ns). */
static void test_meter_closed_form(void **state)
{
	static const uint64_t rate_bps[] = { MBIT, 2 * MBIT, MBIT / 2 };
	const struct tsw_params p = { MBIT, 0, NS_PER_SEC };
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(rate_bps) / sizeof(rate_bps[0]); k++) {
		struct tsw_meter m;
		tstamp_ns gap = 1000ull * 8 * NS_PER_SEC / rate_bps[k];
		double r = (double)rate_bps[k], a0 = (double)MBIT;
		double q = 1.0 / (1.0 + (double)gap / (double)NS_PER_SEC);
		uint32_t n;

		tsw_meter_init(&m, &p, 0);
		near(m.avg_rate_bytes_per_s * 8, a0, 0, "initial AVG_RATE");
		for (n = 1; n <= 5000; n++) {
			double got = tsw_meter_update(&m, &p, 1000, n * gap);

			near(got, r + (a0 - r) * pow(q, n), 1e-9, "AVG_RATE");
			assert_int_equal(m.t_front_ns, n * gap);
		}
		/* 5000 packets are 20 to 80 windows: converged */
		near(m.avg_rate_bytes_per_s * 8, r, 1e-6, "converged");
	}
}

/* A stream at exactly CTR stays at CTR: every packet green, 100 s. */
static void test_at_committed_all_green(void **state)
{
	const struct tsw_params p = { MBIT, 0, NS_PER_SEC };
	struct tsw_meter m;
	uint64_t rng = 7;
	uint32_t n, green = 0;

	(void)state;
	tsw_meter_init(&m, &p, 0);
	for (n = 1; n <= 12500; n++) {
		double a = tsw_meter_update(&m, &p, 1000, n * 8 * NS_PER_MS);

		near(a, MBIT, 1e-12, "AVG_RATE at CTR");
		green += tsw_colour_of(&p, a, &rng) == TSW_GREEN;
	}
	assert_int_equal(green, 12500);
}

/* Counts colours of a converged constant-rate stream: rate_bps in
 * 1000-byte packets for `secs` seconds after 20 windows of warm-up. */
static void run_stream(const struct tsw_params *p, uint64_t rate_bps,
		       uint32_t secs, uint64_t seed,
		       uint64_t count[TSW_NCOLOUR])
{
	struct tsw_meter m;
	tstamp_ns gap = 1000ull * 8 * NS_PER_SEC / rate_bps;
	tstamp_ns warm = 20 * p->window_ns, end = warm + secs * NS_PER_SEC;
	tstamp_ns t;
	uint64_t rng = seed;

	count[TSW_GREEN] = count[TSW_YELLOW] = count[TSW_RED] = 0;
	tsw_meter_init(&m, p, 0);
	for (t = gap; t <= end; t += gap) {
		double a = tsw_meter_update(&m, p, 1000, t);
		enum tsw_colour c = tsw_colour_of(p, a, &rng);

		if (t > warm)
			count[c]++;
	}
}

/* Twice CTR, two colours: §2.3 gives yellow with (2C - C) / 2C = 1/2, so
 * green carries CTR.  100 s at 2 Mbit/s: 25,000 packets, binomial
 * standard deviation 0.32 % of them; tolerance 1 %. */
static void test_twice_committed(void **state)
{
	const struct tsw_params p = { MBIT, 0, NS_PER_SEC };
	uint64_t c[TSW_NCOLOUR];
	double prob[TSW_NCOLOUR], total;

	(void)state;
	tsw_probabilities(&p, 2.0 * MBIT, prob);
	near(prob[TSW_GREEN], 0.5, 1e-15, "P(green) at 2 CTR");
	near(prob[TSW_YELLOW], 0.5, 1e-15, "P(yellow) at 2 CTR");
	near(prob[TSW_RED], 0, 0, "P(red) without PTR");
	run_stream(&p, 2 * MBIT, 100, 11, c);
	total = (double)(c[TSW_GREEN] + c[TSW_YELLOW]);
	assert_int_equal(c[TSW_RED], 0);
	near(total, 25000, 1e-3, "packets in 100 s");
	near(c[TSW_YELLOW] / total, 0.5, 0.02, "yellow share");
	/* green bits per second: CTR */
	near(c[TSW_GREEN] * 8000.0 / 100, MBIT, 0.02, "green rate");
}

/* Three times CTR with PTR = 2 CTR: red (3 - 2)/3, yellow (2 - 1)/3,
 * green the rest: a third each, so green carries CTR, yellow PTR - CTR,
 * red the rest. */
static void test_three_colours(void **state)
{
	const struct tsw_params p = { MBIT, 2 * MBIT, NS_PER_SEC };
	uint64_t c[TSW_NCOLOUR];
	double prob[TSW_NCOLOUR], total;
	int k;

	(void)state;
	tsw_probabilities(&p, 3.0 * MBIT, prob);
	for (k = 0; k < TSW_NCOLOUR; k++)
		near(prob[k], 1.0 / 3, 1e-15, tsw_colour_name[k]);
	/* between CTR and PTR: no red */
	tsw_probabilities(&p, 1.5 * MBIT, prob);
	near(prob[TSW_YELLOW], 1.0 / 3, 1e-15, "P(yellow) at 1.5 CTR");
	near(prob[TSW_RED], 0, 0, "P(red) below PTR");
	run_stream(&p, 3 * MBIT, 100, 12, c);
	total = (double)(c[TSW_GREEN] + c[TSW_YELLOW] + c[TSW_RED]);
	for (k = 0; k < TSW_NCOLOUR; k++)
		near(c[k] / total, 1.0 / 3, 0.03, tsw_colour_name[k]);
}

/* A burst after a silence, by hand: CTR 1 Mbit/s (125,000 B/s), W = 1 s,
 * nothing until t = 1 s, then 100 packets of 1250 bytes at t = 1 s.  The
 * first: (125,000 x 1 + 1250) / (1 + 1) = 63,125 B/s; each next one
 * arrives with no gap and adds 1250 / W: packet k has 63,125 + 1250 k.
 * Packets 0..49 (up to 124,375 B/s) are green for certain; 50..99 are
 * yellow with (A - CTR) / A.  Over 2000 seeds the mean number of yellow
 * packets matches the sum of those probabilities (standard error about
 * 0.06 packets; tolerance 2 %). */
static void test_burst_after_silence(void **state)
{
	const struct tsw_params p = { MBIT, 0, NS_PER_SEC };
	double expect_yellow = 0, yellow = 0;
	uint64_t seed;
	int k;

	(void)state;
	for (k = 50; k < 100; k++) {
		double a = 63125.0 + 1250.0 * k;

		expect_yellow += (a - 125000.0) / a;
	}
	for (seed = 1; seed <= 2000; seed++) {
		struct tsw_meter m;
		uint64_t rng = seed;

		tsw_meter_init(&m, &p, 0);
		for (k = 0; k < 100; k++) {
			double a = tsw_meter_update(&m, &p, 1250, NS_PER_SEC);
			enum tsw_colour c = tsw_colour_of(&p, a, &rng);

			near(a / 8, 63125.0 + 1250.0 * k, 1e-12, "burst AVG_RATE");
			if (k < 50)
				assert_int_equal(c, TSW_GREEN);
			yellow += c == TSW_YELLOW;
		}
	}
	near(yellow / 2000, expect_yellow, 0.02, "mean yellow packets");
}

/* A time stamp before T_FRONT counts as T_FRONT (no gap), and T_FRONT
 * does not move back. */
static void test_out_of_order_time(void **state)
{
	const struct tsw_params p = { MBIT, 0, NS_PER_SEC };
	struct tsw_meter m;
	double a;

	(void)state;
	tsw_meter_init(&m, &p, 0);
	/* (125,000 x 1 + 1000) / (1 + 1) = 63,000 B/s */
	near(tsw_meter_update(&m, &p, 1000, NS_PER_SEC) / 8, 63000.0, 1e-12,
	     "first packet");
	a = tsw_meter_update(&m, &p, 1000, NS_PER_SEC / 2);
	near(a / 8, 63000.0 + 1000.0, 1e-12, "no gap before T_FRONT");
	assert_int_equal(m.t_front_ns, NS_PER_SEC);
}

/* The same seed colours the same packets; another seed others; a stream
 * whose colours are all certain draws nothing. */
static void test_seeds_repeat(void **state)
{
	const struct tsw_params p = { MBIT, 0, NS_PER_SEC };
	uint64_t a[TSW_NCOLOUR], b[TSW_NCOLOUR], c[TSW_NCOLOUR];
	uint64_t rng = 5;
	uint32_t n;

	(void)state;
	run_stream(&p, 2 * MBIT, 10, 3, a);
	run_stream(&p, 2 * MBIT, 10, 3, b);
	run_stream(&p, 2 * MBIT, 10, 4, c);
	assert_int_equal(a[TSW_YELLOW], b[TSW_YELLOW]);
	assert_int_equal(a[TSW_GREEN], b[TSW_GREEN]);
	assert_int_not_equal(a[TSW_YELLOW], c[TSW_YELLOW]);
	for (n = 0; n < 100; n++)
		assert_int_equal(tsw_colour_of(&p, 0.5 * MBIT, &rng),
				 TSW_GREEN);
	assert_int_equal(rng, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_problem),
		cmocka_unit_test(test_meter_closed_form),
		cmocka_unit_test(test_at_committed_all_green),
		cmocka_unit_test(test_twice_committed),
		cmocka_unit_test(test_three_colours),
		cmocka_unit_test(test_burst_after_silence),
		cmocka_unit_test(test_out_of_order_time),
		cmocka_unit_test(test_seeds_repeat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
