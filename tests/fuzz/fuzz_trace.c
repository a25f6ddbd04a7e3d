/* fuzz_trace.c - target 4: the capacity-trace loaders and the unit
 * parsers: link_load_trace() (CSV), link_load_mahimahi(), and
 * parse_rate_bps() / parse_duration_ns() with fmt_rate()/fmt_duration().
 *
 * Input: byte 0 modulo 5 picks the parser, the rest is its text (a file
 * for the loaders, a C string cut at the first NUL for the parsers):
 *   0 CSV trace, 1 Mahimahi trace, 2 rate, 3 rate with "unlimited"
 *   allowed, 4 duration.
 *
 * Asserts: a loader either fails with "FILE:LINE: " at the start of its
 * message, or returns a profile as documented in link.h (CSV: points
 * from t = 0, strictly increasing times, non-decreasing finite service;
 * Mahimahi: non-decreasing offsets, the period the last one, > 0), whose
 * service curve S(t) never decreases and whose inverse
 * link_time_for_bits() finds a time where S has reached the bits asked,
 * whose C(t) (link_rate_at) is the rate of the point that holds at t (a
 * Mahimahi trace: its opportunities' mean) and whose long-run mean
 * (link_mean_bps) is the points' bits over their time, both computed
 * here from the points;
 * a parser either fails with its "'VALUE' is not a ..." message or
 * returns a value in its documented range (rates 1..2^63 bit/s or
 * RATE_UNLIMITED when allowed, durations 0..2^63 ns) that, formatted,
 * parses back to itself within 1/2000.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "link/link.h"
#include "util/units.h"
#include "fuzz_common.h"

#define UNITS_MAX ((uint64_t)1 << 63)

static void check_err(const char *err, const char *path)
{
	size_t n = strlen(path);

	FZ_CHECK(!strncmp(err, path, n) && err[n] == ':' &&
		 err[n + 1] >= '1' && err[n + 1] <= '9', "message '%s'", err);
}

/* C(t) as link.h defines it, found here without link.c's segment search:
 * a trace's rate is the one of the last point at or before t (the last
 * holding forever); a Mahimahi trace's is the mean over one period,
 * nopps opportunities of MAHIMAHI_OPP_BYTES per period (rounded). */
static void check_rate(const struct link_profile *p, tstamp_ns t)
{
	uint64_t r = link_rate_at(p, t), want;
	double mm;
	uint32_t i, seg = 0;

	if (p->kind == LINK_MAHIMAHI) {
		mm = (double)p->nopps * MAHIMAHI_OPP_BYTES * 8.0 * 1000.0 /
		     (double)p->mm_period_ms;
		FZ_CHECK(fabs((double)r - mm) <= 1.0 + mm * 1e-12,
			 "C(%llu) = %llu, mean of %u opportunities in %u ms %.1f",
			 (unsigned long long)t, (unsigned long long)r, p->nopps,
			 p->mm_period_ms, mm);
		return;
	}
	for (i = 0; i < p->npts; i++)
		if (p->pts[i].t_ns <= t)
			seg = i;
	want = p->pts[seg].rate_bps;
	FZ_CHECK(r == want, "C(%llu) = %llu, point %u says %llu",
		 (unsigned long long)t, (unsigned long long)r, seg,
		 (unsigned long long)want);
}

/* The long-run mean: a Mahimahi trace's C (check_rate); a trace's the
 * bits of its points up to the last one over that time, summed here
 * from the rates and times (one point: its rate). */
static void check_mean(const struct link_profile *p)
{
	uint64_t m = link_mean_bps(p);
	double bits = 0, want;
	uint32_t i;

	if (p->kind == LINK_MAHIMAHI) {
		FZ_CHECK(m == link_rate_at(p, 0), "mean %llu, C %llu",
			 (unsigned long long)m,
			 (unsigned long long)link_rate_at(p, 0));
		return;
	}
	if (p->npts == 1) {
		FZ_CHECK(m == p->pts[0].rate_bps, "mean %llu of one point %llu",
			 (unsigned long long)m,
			 (unsigned long long)p->pts[0].rate_bps);
		return;
	}
	for (i = 0; i + 1 < p->npts; i++)
		bits += (double)p->pts[i].rate_bps *
			(double)(p->pts[i + 1].t_ns - p->pts[i].t_ns) / 1e9;
	want = bits * 1e9 / (double)p->pts[p->npts - 1].t_ns;
	FZ_CHECK(fabs((double)m - want) <= 1.0 + want * 1e-9,
		 "mean %llu, points say %.3f", (unsigned long long)m, want);
}

/* S(t) along a few increasing times and back through its inverse. */
static void check_curve(const struct link_profile *p, tstamp_ns end)
{
	tstamp_ns t[] = { 0, 1, 999999, NS_PER_MS, end, NS_PER_SEC, 2 * end + 7 };
	double prev = 0;
	size_t i, j;

	for (i = 1; i < sizeof(t) / sizeof(t[0]); i++)   /* insertion sort */
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			tstamp_ns x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double s = link_service_bits(p, t[i]);
		tstamp_ns back;

		FZ_CHECK(isfinite(s) && s >= prev, "S(%llu) = %g after %g",
			 (unsigned long long)t[i], s, prev);
		prev = s;
		check_rate(p, t[i]);
		if (s <= 0)
			continue;
		back = link_time_for_bits(p, s, 0);
		FZ_CHECK(back != TS_NEVER && back <= t[i] + 1,
			 "S(%llu) = %g reached at %llu", (unsigned long long)t[i],
			 s, (unsigned long long)back);
		FZ_CHECK(link_service_bits(p, back) >= s * (1 - 1e-12),
			 "S(%llu) = %g < %g", (unsigned long long)back,
			 link_service_bits(p, back), s);
	}
	check_mean(p);
}

static void load(int mahimahi, const uint8_t *data, size_t size)
{
	struct link_profile p;
	char err[512];
	const char *path = fz_write_file(mahimahi ? "mm.trace" : "trace.csv",
					 data, size);
	uint32_t i;
	int r;

	memset(&p, 0, sizeof(p));
	err[0] = '\0';
	r = mahimahi ? link_load_mahimahi(&p, path, err, sizeof(err))
		     : link_load_trace(&p, path, err, sizeof(err));
	if (r < 0) {
		check_err(err, path);
	} else if (mahimahi) {
		p.kind = LINK_MAHIMAHI;
		FZ_CHECK(p.nopps > 0 && p.opp_ms && p.mm_period_ms > 0 &&
			 p.mm_period_ms == p.opp_ms[p.nopps - 1], "mahimahi shape");
		for (i = 1; i < p.nopps; i++)
			FZ_CHECK(p.opp_ms[i] >= p.opp_ms[i - 1], "offset %u", i);
		check_curve(&p, (tstamp_ns)p.mm_period_ms * NS_PER_MS);
	} else {
		p.kind = LINK_TRACE;
		FZ_CHECK(p.npts > 0 && p.pts && p.pts[0].t_ns == 0, "trace shape");
		for (i = 1; i < p.npts; i++)
			FZ_CHECK(p.pts[i].t_ns > p.pts[i - 1].t_ns &&
				 isfinite(p.pts[i].cum_bits) &&
				 p.pts[i].cum_bits >= p.pts[i - 1].cum_bits,
				 "point %u", i);
		check_curve(&p, p.pts[p.npts - 1].t_ns);
	}
	link_profile_free(&p);
}

/* What a message prints of a value must read back as that value, to the
 * 3 decimals of its unit (at most 1/2000 of it): an operator copies it
 * into the file.  Found: 2^63 - 1 printed as 9223372.037Tbit, refused. */
static void round_trip(int mode, uint64_t v, const char *text)
{
	char err[512];
	uint64_t back = 0;
	int r = mode == 4 ? parse_duration_ns(text, &back, err, sizeof(err))
			  : parse_rate_bps(text, mode == 3, &back, err, sizeof(err));
	uint64_t diff = back > v ? back - v : v - back;

	FZ_CHECK(r == 0 && (v == RATE_UNLIMITED ? back == v : diff <= v / 2000),
		 "%llu printed '%s' reads back %d %llu", (unsigned long long)v,
		 text, r, (unsigned long long)back);
}

static void parse(int mode, const uint8_t *data, size_t size)
{
	char s[256], err[512], buf[64];
	uint64_t v = 0;
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;
	int r;

	memcpy(s, data, n);
	s[n] = '\0';
	err[0] = '\0';
	if (mode == 4) {
		r = parse_duration_ns(s, &v, err, sizeof(err));
		FZ_CHECK(r < 0 ? strstr(err, "is not a duration") != NULL
			       : v <= UNITS_MAX, "'%s': %d %llu '%s'", s, r,
			 (unsigned long long)v, err);
		if (!r)
			round_trip(mode, v, fmt_duration(v, buf, sizeof(buf)));
		return;
	}
	r = parse_rate_bps(s, mode == 3, &v, err, sizeof(err));
	FZ_CHECK(r < 0 ? strstr(err, "is not a rate") != NULL
		       : (v >= 1 && v <= UNITS_MAX) ||
			 (mode == 3 && v == RATE_UNLIMITED),
		 "'%s': %d %llu '%s'", s, r, (unsigned long long)v, err);
	if (!r)
		round_trip(mode, v, fmt_rate(v, buf, sizeof(buf)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int mode;

	if (size < 1)
		return 0;
	mode = data[0] % 5;
	if (mode < 2)
		load(mode, data + 1, size - 1);
	else
		parse(mode, data + 1, size - 1);
	return 0;
}
