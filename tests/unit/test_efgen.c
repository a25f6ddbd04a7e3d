/* test_efgen.c - the EF generator's schedule, pacing and sink accounting
 * (efgen.h, efsink.h) on a virtual clock: no sockets, no system clock.
 *
 * Pacing: every profile runs 100 s of virtual time with wake-ups late by
 * a random 0..2 ms, and 1 in 200 by 50..250 ms (a descheduled process).
 * After each wake-up every packet due is sent (catch-up), so the bits
 * sent equal S(now) within one packet; the run's total is within one
 * packet of S(100 s).  With exact wake-ups each 1 s report's sent_bps is
 * within one packet (per interval) of its target_bps.
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

#include "efgen/efgen.h"
#include "efgen/efsink.h"
#include "util/rng.h"
#include "testutil.h"

#define SIZE_BYTES  1250u
#define PKT_BITS    (SIZE_BYTES * 8.0)
#define RUN_NS      (100 * NS_PER_SEC)

/* A whole-run percentile of the sink (util/hist, efsink.h): never below
 * the exact value, above it by less than 1/HIST_FINE_SUB of it, at most the
 * maximum (all in ms). */
#define assert_hist_bound(got, exact, max) do {                          \
	double g_ = (got), e_ = (exact), m_ = (max);                      \
	if (!(g_ >= e_ && g_ < e_ * (1.0 + 1.0 / HIST_FINE_SUB) && g_ <= m_))  \
		fail_msg("%s = %.9g, want in [%.9g, %.9g) and <= %.9g",   \
			 #got, g_, e_, e_ * (1.0 + 1.0 / HIST_FINE_SUB), m_);  \
} while (0)

/* What a run's io callbacks saw. */
struct probe {
	uint64_t next_seq;              /* the next sequence number expected */
	uint64_t sent;
	int      fail_every;            /* > 0: every n-th send fails */
	struct efgen_interval iv[256];
	unsigned niv;
};

static int probe_send(void *ctx, uint64_t seq)
{
	struct probe *p = ctx;

	assert_int_equal(seq, p->next_seq);
	p->next_seq++;
	if (p->fail_every && seq % (uint64_t)p->fail_every == 0)
		return -1;
	p->sent++;
	return 0;
}

static void probe_report(void *ctx, const struct efgen_interval *iv)
{
	struct probe *p = ctx;

	assert_true(p->niv < TU_LEN(p->iv));
	p->iv[p->niv++] = *iv;
}

/* Writes text to a temporary file; its path in path[len]. */
static void write_tmp(char *path, size_t len, const char *text)
{
	int fd;

	snprintf(path, len, "%s/efgen-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void parse_ok(const char *spec, struct efgen_profile *p)
{
	char err[1024] = "";

	if (efgen_profile_parse(spec, p, err, sizeof(err)) != 0)
		fail_msg("'%s' refused: %s", spec, err);
}

/* Runs p for 100 s with jittered late wake-ups (seed) and checks the
 * bits sent against S(now) after every wake-up.  Prints the worst
 * deviation. */
static void check_pacing(const char *spec, uint64_t seed)
{
	struct efgen_profile p;
	struct efgen_run r;
	struct probe pr = { 0 };
	struct efgen_io io = { &pr, probe_send, probe_report };
	struct efgen_summary s;
	uint64_t rng = seed, wakes = 0, late = 0;
	tstamp_ns now = 0, next;
	double worst = 0.0;

	parse_ok(spec, &p);
	efgen_run_init(&r, &p, SIZE_BYTES, RUN_NS, NS_PER_SEC);
	next = efgen_run_step(&r, 0, &io);
	while (next != TS_NEVER) {
		double u = rng_u01(&rng), dev;

		assert_true(next >= now);
		now = next + (tstamp_ns)(u * 2e6);
		if (rng_u01(&rng) < 0.005) {
			now += 50 * NS_PER_MS +
			       (tstamp_ns)(rng_u01(&rng) * 200e6);
			late++;
		}
		next = efgen_run_step(&r, now, &io);
		wakes++;
		if (now >= RUN_NS)
			break;
		dev = (double)pr.sent * PKT_BITS - efgen_bits(&p, now);
		if (dev < -PKT_BITS || dev > PKT_BITS)
			fail_msg("%s: at t=%.9f s sent %.0f bits, S(t) = %.1f",
				 spec, (double)now / 1e9,
				 (double)pr.sent * PKT_BITS,
				 efgen_bits(&p, now));
		if (dev < 0 ? -dev > worst : dev > worst)
			worst = dev < 0 ? -dev : dev;
	}
	assert_int_equal(next, TS_NEVER);
	efgen_run_summary(&r, &s);
	printf("  %-28s %7llu wake-ups (%llu late 50..250 ms): worst |sent - "
	       "S(t)| %.0f bits = %.3f pkt; 100 s: target %.0f, sent %.0f "
	       "bits, error %+.5f %%\n", spec, (unsigned long long)wakes,
	       (unsigned long long)late, worst, worst / PKT_BITS,
	       s.target_bits, s.sent_bits, s.error_pct);
	assert_true(s.sent_bits - s.target_bits <= PKT_BITS);
	assert_true(s.target_bits - s.sent_bits <= PKT_BITS);
	assert_int_equal(s.sent_pkts, pr.sent);
	assert_int_equal(s.send_errors, 0);
	tu_assert_near(s.duration_s, 100.0, 1e-12);
	efgen_profile_free(&p);
}

static void test_pacing_constant(void **state)
{
	(void)state;
	check_pacing("5Mbit", 1);
	check_pacing("500kbit", 2);
}

static void test_pacing_cosine(void **state)
{
	(void)state;
	check_pacing("cosine:4Mbit:0.6:6.1s", 3);
	check_pacing("cosine:4Mbit:1:6100ms", 4);
}

static void test_pacing_step(void **state)
{
	(void)state;
	check_pacing("step:2Mbit:10:6Mbit", 5);
	check_pacing("step:0:20s:3Mbit", 6);
}

static void test_pacing_csv(void **state)
{
	char path[256], spec[300];

	(void)state;
	write_tmp(path, sizeof(path),
		  "# t_s,rate: a silence, units and plain bit/s\n"
		  "t_s,rate\n"
		  "0, 2Mbit\n"
		  "12.5,0   # silent\n"
		  "20,6000000\n"
		  "55.25,1.5Mbit\n");
	snprintf(spec, sizeof(spec), "csv:%s", path);
	check_pacing(spec, 7);
	unlink(path);
}

/* Exact wake-ups: every 1 s report within one packet of its target. */
static void test_interval_reports(void **state)
{
	static const char *const specs[] = {
		"5Mbit", "cosine:4Mbit:0.6:6.1s", "step:2Mbit:10:6Mbit",
	};
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(specs); i++) {
		struct efgen_profile p;
		struct efgen_run r;
		struct probe pr = { 0 };
		struct efgen_io io = { &pr, probe_send, probe_report };
		tstamp_ns next;
		double worst = 0.0, worst_pct = 0.0;
		unsigned k;

		parse_ok(specs[i], &p);
		efgen_run_init(&r, &p, SIZE_BYTES, RUN_NS, NS_PER_SEC);
		for (next = 0; next != TS_NEVER;)
			next = efgen_run_step(&r, next, &io);
		assert_int_equal(pr.niv, 100);
		for (k = 0; k < pr.niv; k++) {
			double d = pr.iv[k].sent_bps - pr.iv[k].target_bps;

			tu_assert_near(pr.iv[k].t_s, k + 1.0, 1e-9);
			assert_true(d <= PKT_BITS && d >= -PKT_BITS);
			if ((d < 0 ? -d : d) > worst) {
				worst = d < 0 ? -d : d;
				worst_pct = 100.0 * worst / pr.iv[k].target_bps;
			}
		}
		printf("  %-28s 100 intervals: worst |sent - target| %.0f "
		       "bit/s (%.3f %%)\n", specs[i], worst, worst_pct);
		efgen_profile_free(&p);
	}
}

/* A stop at 2.25 s: a last 0.25 s interval, a 2.25 s summary; failed
 * sends are counted, not sent, and the schedule goes on. */
static void test_stop_and_errors(void **state)
{
	struct efgen_profile p;
	struct efgen_run r;
	struct probe pr = { .fail_every = 10 };
	struct efgen_io io = { &pr, probe_send, probe_report };
	struct efgen_summary s;
	tstamp_ns next = 0;

	(void)state;
	parse_ok("1Mbit", &p);                 /* 100 packets/s */
	efgen_run_init(&r, &p, SIZE_BYTES, RUN_NS, NS_PER_SEC);
	while (next < 2250 * NS_PER_MS)
		next = efgen_run_step(&r, next, &io);
	efgen_run_stop(&r, 2250 * NS_PER_MS, &io);
	assert_int_equal(efgen_run_step(&r, 3 * NS_PER_SEC, &io), TS_NEVER);
	efgen_run_summary(&r, &s);
	assert_int_equal(pr.niv, 3);
	tu_assert_near(pr.iv[2].t_s, 2.25, 1e-12);
	tu_assert_near(pr.iv[2].target_bps, 1e6, 1e-3);
	/* packets 0..224 are due before 2.25 s; 0, 10, ..., 220 fail */
	assert_int_equal(s.sent_pkts + s.send_errors, 225);
	assert_int_equal(s.send_errors, 23);
	tu_assert_near(s.duration_s, 2.25, 1e-12);
	tu_assert_near(s.target_bits, 2.25e6, 1e-3);
	efgen_profile_free(&p);
}

/* Amplitude 0 is the constant rate, to the nanosecond. */
static void test_cosine_amplitude0(void **state)
{
	struct efgen_profile c, k;
	tstamp_ns tc = 0, tk = 0;
	uint64_t i;

	(void)state;
	parse_ok("cosine:3Mbit:0:6.1", &c);
	parse_ok("3Mbit", &k);
	for (i = 0; i < 30000; i++) {
		tc = efgen_due_ns(&c, i, SIZE_BYTES, tc);
		tk = efgen_due_ns(&k, i, SIZE_BYTES, tk);
		assert_int_equal(tc, tk);
	}
	printf("  cosine:3Mbit:0:6.1 = 3Mbit: 30000 due times equal, the "
	       "last %.9f s\n", (double)tk / 1e9);
	efgen_profile_free(&c);
	efgen_profile_free(&k);
}

/* Spec errors name the piece and the accepted forms. */
static void test_spec_errors(void **state)
{
	static const struct { const char *spec, *want; } cases[] = {
		{ "", "neither a rate nor a profile (accepted: RATE | "
		      "cosine:AVG:AMPLITUDE:PERIOD | step:R1:T:R2 | csv:FILE" },
		{ "fast", "neither a rate nor a profile (accepted: RATE |" },
		{ "0", "neither a rate nor a profile" },
		{ "5Mbit:3", "neither a rate nor a profile" },
		{ "sine:1:2:3", "neither a rate nor a profile" },
		{ "cosine:4Mbit:0.6", "too few fields after 'cosine' "
		  "(accepted: cosine:AVG:AMPLITUDE:PERIOD)" },
		{ "cosine:4Mbit:0.6:6:1", "too many fields after 'cosine'" },
		{ "cosine:0:0.6:6", "AVG: '0' is not a rate: it must be above 0" },
		{ "cosine:4Mbit:1.01:6", "AMPLITUDE: '1.01' is not a number in "
		  "[0, 1] (accepted: 0 <= AMPLITUDE <= 1" },
		{ "cosine:4Mbit:-0.1:6", "AMPLITUDE: '-0.1' is not" },
		{ "cosine:4Mbit:nan:6", "AMPLITUDE: 'nan' is not" },
		{ "cosine:4Mbit:0.5:0", "PERIOD: '0' is out of range (accepted: "
		  "a duration > 0" },
		{ "cosine:4Mbit:0.5:6x", "PERIOD: '6x' is not a duration" },
		{ "step:2Mbit:10", "too few fields after 'step' (accepted: "
		  "step:R1:T:R2)" },
		{ "step:2Mbyte:10:6Mbit", "R1: '2Mbyte' is not a rate" },
		{ "step:2Mbit:-1:6Mbit", "T: '-1' is not a duration" },
		{ "step:2Mbit:10:6Mbit/s", "R2: '6Mbit/s' is not a rate" },
		{ "csv:", "no FILE after 'csv:' (accepted: csv:FILE)" },
		{ "csv:/nonexistent/efgen.csv", "/nonexistent/efgen.csv: cannot "
		  "open: No such file or directory (accepted:" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++) {
		struct efgen_profile p;
		char err[1024] = "";

		if (efgen_profile_parse(cases[i].spec, &p, err,
					sizeof(err)) == 0)
			fail_msg("'%s' accepted", cases[i].spec);
		if (!strstr(err, cases[i].want))
			fail_msg("'%s': got \"%s\", want \"%s\"",
				 cases[i].spec, err, cases[i].want);
		printf("  '%s': %.110s%s\n", cases[i].spec, err,
		       strlen(err) > 110 ? "..." : "");
	}
}

/* csv errors: FILE:LINE: problem (accepted: ...). */
static void test_csv_errors(void **state)
{
	static const struct { const char *text, *want; unsigned line; } cases[] = {
		{ "# only a comment\n\n", "no data line (accepted: at least "
		  "one line t_s,rate", 2 },
		{ "1,5Mbit\n", "first t_s '1' is not 0 (accepted: a profile "
		  "starting at t_s 0)", 1 },
		{ "0,5Mbit\n# c\n3,1Mbit\n3,2Mbit\n", "t_s '3' does not "
		  "increase (accepted: t_s strictly increasing)", 4 },
		{ "0,5Mbit\n2 1Mbit\n", "expected t_s,rate, got '2 1Mbit' "
		  "(accepted: lines \"t_s,rate\"", 2 },
		{ "0,5Mbit,3\n", "expected t_s,rate", 1 },
		{ "0,5Mbit\n\n2,fast\n", "rate: 'fast' is not a rate", 3 },
		{ "0,5Mbit\n2,-3\n", "rate: '-3' is not a rate", 2 },
		{ "0,5Mbit\nx,3\n", "t_s: 'x' is not a duration", 2 },
		{ "t_s,rate\nt_s,rate\n", "t_s: 't_s' is not a duration", 2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++) {
		struct efgen_profile p;
		char path[256], spec[300], want[512], err[1024] = "";

		write_tmp(path, sizeof(path), cases[i].text);
		snprintf(spec, sizeof(spec), "csv:%s", path);
		snprintf(want, sizeof(want), "%s:%u: %s", path, cases[i].line,
			 cases[i].want);
		if (efgen_profile_parse(spec, &p, err, sizeof(err)) == 0)
			fail_msg("case %zu accepted", i);
		unlink(path);
		if (!strstr(err, want))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err,
				 want);
		printf("  case %zu: %.120s\n", i, err + strlen(path));
	}
}

/* The csv values: units, plain bit/s, 0, the rate in each segment. */
static void test_csv_values(void **state)
{
	struct efgen_profile p;
	char path[256], spec[300];

	(void)state;
	write_tmp(path, sizeof(path), "0,1Mbit\n2.5,0\n4, 250000 # bit/s\n");
	snprintf(spec, sizeof(spec), "csv:%s", path);
	parse_ok(spec, &p);
	unlink(path);
	assert_int_equal(p.kind, EFGEN_CSV);
	tu_assert_near(efgen_bits(&p, 2500 * NS_PER_MS), 2.5e6, 1e-6);
	tu_assert_near(efgen_bits(&p, 4 * NS_PER_SEC), 2.5e6, 1e-6);
	tu_assert_near(efgen_bits(&p, 8 * NS_PER_SEC), 3.5e6, 1e-6);
	/* packet 250 (2.5e6 bits) is due at 2.5 s, 251 once 250 kbit/s has
	 * carried 10000 more bits from 4 s */
	assert_int_equal(efgen_due_ns(&p, 250, SIZE_BYTES, 0), 2500 * NS_PER_MS);
	assert_int_equal(efgen_due_ns(&p, 251, SIZE_BYTES, 0), 4040 * NS_PER_MS);
	efgen_profile_free(&p);
}

/* A silent start sends nothing until the rate rises; a silent end never
 * sends again. */
static void test_silence(void **state)
{
	struct efgen_profile p;

	(void)state;
	parse_ok("step:0:3s:1Mbit", &p);
	assert_int_equal(efgen_due_ns(&p, 0, SIZE_BYTES, 0), 3 * NS_PER_SEC);
	assert_int_equal(efgen_due_ns(&p, 1, SIZE_BYTES, 0),
			 3 * NS_PER_SEC + 10 * NS_PER_MS);
	efgen_profile_free(&p);
	parse_ok("step:1Mbit:0.5:0", &p);
	assert_int_equal(efgen_due_ns(&p, 0, SIZE_BYTES, 0), 0);
	assert_int_equal(efgen_due_ns(&p, 50, SIZE_BYTES, 0), 500 * NS_PER_MS);
	assert_int_equal(efgen_due_ns(&p, 51, SIZE_BYTES, 0), TS_NEVER);
	efgen_profile_free(&p);
}

static void test_payload(void **state)
{
	uint8_t buf[40];
	uint64_t seq, t;

	(void)state;
	memset(buf, 0xff, sizeof(buf));
	efgen_payload_write(buf, sizeof(buf), 0x0102030405060708ULL,
			    1700000000123456789ULL);
	assert_int_equal(buf[0], 0x01);
	assert_int_equal(buf[7], 0x08);
	assert_int_equal(buf[39], 0);
	assert_int_equal(efgen_payload_read(buf, sizeof(buf), &seq, &t), 0);
	assert_int_equal(seq, 0x0102030405060708ULL);
	assert_int_equal(t, 1700000000123456789ULL);
	assert_int_equal(efgen_payload_read(buf, 15, &seq, &t), -1);
}

/* Loss, reordering and duplicates from the sequence numbers; the
 * delay percentiles of an interval and of the run. */
static void test_sink(void **state)
{
	/* 0 1 2 _ 4 5 3 5 _ _ 9 | 7: two gaps (3; 6..8), 3 fills one,
	 * 5 again is a duplicate, 7 fills one in the next interval */
	static const uint64_t seqs[] = { 0, 1, 2, 4, 5, 3, 5, 9 };
	struct efsink k;
	struct efsink_interval iv;
	struct efsink_summary s;
	size_t i;

	(void)state;
	efsink_init(&k);
	for (i = 0; i < TU_LEN(seqs); i++)
		assert_int_equal(efsink_add(&k, seqs[i], 1250,
					    (int64_t)(50 + i) * 1000000), 0);
	efsink_interval_close(&k, NS_PER_SEC / 2, &iv);
	assert_int_equal(iv.rcvd_pkts, 8);
	tu_assert_near(iv.rcvd_bps, 8 * 1250 * 8 * 2.0, 1e-6);
	assert_int_equal(iv.lost_pkts, 1 + 3 - 1);
	assert_int_equal(iv.reordered_pkts, 1);
	assert_int_equal(iv.dup_pkts, 1);
	tu_assert_near(iv.owd_ms.p50, 53.0, 1e-9);  /* rank 4 of 8 */
	tu_assert_near(iv.owd_ms.p99, 57.0, 1e-9);
	tu_assert_near(iv.owd_ms.max, 57.0, 1e-9);
	assert_int_equal(efsink_add(&k, 7, 1250, -5), 0);      /* clock skew */
	efsink_interval_close(&k, NS_PER_SEC, &iv);
	assert_int_equal(iv.lost_pkts, -1);
	assert_int_equal(iv.reordered_pkts, 1);
	tu_assert_near(iv.owd_ms.max, 0.0, 1e-12);
	efsink_summary(&k, NS_PER_SEC, &s);
	assert_int_equal(s.rcvd_pkts, 9);
	assert_int_equal(s.rcvd_bytes, 9 * 1250);
	assert_int_equal(s.lost_pkts, 2);               /* 6 and 8 */
	assert_int_equal(s.reordered_pkts, 2);
	assert_int_equal(s.dup_pkts, 1);
	assert_int_equal(s.highest_seq, 9);
	/* 0, 50..57 ms: p50 rank 5 of 9 = 53 ms (the histogram's bucket
	 * edge: 54.526 ms), p99 rank 9 = 57 ms = the maximum */
	assert_hist_bound(s.owd_ms.p50, 53.0, 57.0);
	tu_assert_near(s.owd_ms.p99, 57.0, 1e-9);
	tu_assert_near(s.owd_ms.max, 57.0, 1e-9);
	efsink_free(&k);

	/* a first packet numbered 5: 0..4 were lost; a jump beyond the
	 * window forgets it, a packet from before it is still a fill */
	efsink_init(&k);
	efsink_add(&k, 5, 100, 0);
	efsink_add(&k, 5 + 2 * EFSINK_WINDOW, 100, 0);
	efsink_add(&k, 6, 100, 0);
	efsink_summary(&k, NS_PER_SEC, &s);
	assert_int_equal(s.lost_pkts, 5 + 2 * EFSINK_WINDOW - 1 - 1);
	assert_int_equal(s.dup_pkts, 0);
	efsink_free(&k);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank q-quantile of n sorted values, in ms. */
static double exact_ms(const uint64_t *sorted, size_t n, double q)
{
	double r = q * (double)n;
	size_t k = (size_t)r;

	if ((double)k < r)
		k++;
	return (double)sorted[k ? k - 1 : 0] / 1e6;
}

/* The whole run's delay percentiles against the exact ones of the same
 * delays, sorted here: log-uniform from 1 us to 30 s (every octave the
 * sink may meet, and beyond the 10.48 s its former histogram ended at),
 * then a GEO-like run (250 ms plus exponential jitter), over several
 * report intervals; and three delays all above 10.48 s. */
static void test_sink_run_percentiles(void **state)
{
	enum { N = 20000 };
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	static uint64_t d_ns[N];
	struct efsink k;
	struct efsink_interval iv;
	struct efsink_summary s;
	uint64_t rng = 18;
	size_t i, j, n;
	int geo;

	(void)state;
	for (geo = 0; geo <= 1; geo++) {
		efsink_init(&k);
		for (i = 0; i < N; i++) {
			d_ns[i] = geo ? 250000000u + rng_exp_ns(&rng, 5000000u) :
				  (uint64_t)(1e3 * pow(3e7, rng_u01(&rng)));
			assert_int_equal(efsink_add(&k, i, 100,
						    (int64_t)d_ns[i]), 0);
			if (i % 1000 == 999)
				efsink_interval_close(&k, (i + 1) * NS_PER_SEC
						      / 1000, &iv);
		}
		efsink_summary(&k, N * NS_PER_SEC / 1000, &s);
		qsort(d_ns, N, sizeof(*d_ns), cmp_u64);
		tu_assert_near(s.owd_ms.max, (double)d_ns[N - 1] / 1e6, 1e-12);
		assert_hist_bound(s.owd_ms.p50, exact_ms(d_ns, N, 0.5),
				  s.owd_ms.max);
		assert_hist_bound(s.owd_ms.p99, exact_ms(d_ns, N, 0.99),
				  s.owd_ms.max);
		/* the quantiles the report does not print, through the same
		 * histogram the summary reads */
		for (j = 0; j < TU_LEN(qs); j++)
			assert_hist_bound(
				(double)hist_fine_quantile_ns(&k.owd_run, qs[j]) / 1e6,
				exact_ms(d_ns, N, qs[j]), s.owd_ms.max);
		efsink_free(&k);
	}

	efsink_init(&k);
	n = 0;
	for (i = 11; i <= 13; i++)
		efsink_add(&k, n++, 100, (int64_t)i * (int64_t)NS_PER_SEC);
	efsink_summary(&k, NS_PER_SEC, &s);
	assert_hist_bound(s.owd_ms.p50, 12000.0, 13000.0);
	tu_assert_near(s.owd_ms.p99, 13000.0, 1e-9);
	tu_assert_near(s.owd_ms.max, 13000.0, 1e-9);
	efsink_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pacing_constant),
		cmocka_unit_test(test_pacing_cosine),
		cmocka_unit_test(test_pacing_step),
		cmocka_unit_test(test_pacing_csv),
		cmocka_unit_test(test_interval_reports),
		cmocka_unit_test(test_stop_and_errors),
		cmocka_unit_test(test_cosine_amplitude0),
		cmocka_unit_test(test_spec_errors),
		cmocka_unit_test(test_csv_errors),
		cmocka_unit_test(test_csv_values),
		cmocka_unit_test(test_silence),
		cmocka_unit_test(test_payload),
		cmocka_unit_test(test_sink),
		cmocka_unit_test(test_sink_run_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
