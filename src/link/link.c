/* link.c - capacity profiles, their service curves S(t) and inverses.
 *
 * Conventions shared by every profile:
 *  - S(t) is non-decreasing in t, evaluated at integer nanoseconds.  The
 *    inverse returns the smallest integer t with S(t) >= bits, so that
 *    S(t) >= bits and S(t - 1ns) < bits hold exactly for the very function
 *    link_service_bits() computes (callers compare against it).
 *  - For the constant and trace profiles rate * dt is computed exactly in
 *    128-bit integers before the single division by 1e9: integral bit
 *    counts stay exact, so a hand-computed finish time is met to the ns.
 *  - Mahimahi: S(t) counts an opportunity at offset m ms when m * 1e6 <= t,
 *    i.e. an opportunity at exactly t has already happened at t.  This is
 *    Mahimahi's order of events (rationalize() runs before a packet that
 *    arrives in the same ms is queued): an idle link wastes it.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "link/link.h"

#define TRACE_MAX_POINTS      1000000u
#define TRACE_MAX_RATE_BPS    (1ULL << 53)
#define TRACE_MAX_TIME_S      1000000000ULL
#define MM_MAX_OPPS           10000000u
#define MM_OPP_BITS           ((uint64_t)MAHIMAHI_OPP_BYTES * 8u)
/* Beyond ~292 years a finish time is as good as never; keeps t + step
 * arithmetic far from wrapping. */
#define TS_FAR_NS             (1ULL << 63)
#define MSG_VAL_MAX           80

__extension__ typedef unsigned __int128 u128;

const char *const link_kind_name[] = {
	[LINK_UNLIMITED] = "unlimited",
	[LINK_CONSTANT]  = "constant",
	[LINK_COSINE]    = "cosine",
	[LINK_TRACE]     = "trace",
	[LINK_MAHIMAHI]  = "mahimahi",
};

/* ---------------------------------------------------------------------
 * exact arithmetic helpers
 */

/* rate_bps * dt_ns / 1e9 in bits: the integer part is exact (up to 2^53),
 * only the sub-bit fraction is rounded.  Monotone in dt_ns. */
static double rate_bits(uint64_t rate_bps, uint64_t dt_ns)
{
	u128 prod = (u128)rate_bps * dt_ns;
	u128 q = prod / NS_PER_SEC;
	uint64_t r = (uint64_t)(prod % NS_PER_SEC);

	return (double)q + (double)r / (double)NS_PER_SEC;
}

/* Rounded-to-nearest a * b / c for the mean-rate reports. */
static uint64_t muldiv_round(uint64_t a, uint64_t b, uint64_t c)
{
	u128 prod = (u128)a * b + c / 2;
	u128 q = prod / c;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Converts a time estimate in ns (double) to an integer guess, or
 * TS_NEVER when it is beyond any useful horizon. */
static tstamp_ns guess_ns(double t_ns)
{
	if (!(t_ns < (double)TS_FAR_NS))
		return TS_NEVER;
	if (t_ns <= 0.0)
		return 0;
	return (tstamp_ns)ceil(t_ns);
}

/* ---------------------------------------------------------------------
 * service curves
 */

static double cosine_bits(const struct link_profile *p, tstamp_ns t_ns)
{
	double m = (double)p->mean_bps;
	double t_s = (double)t_ns / (double)NS_PER_SEC;
	double w;

	if (p->period_s <= 0.0 || p->amplitude == 0.0)
		return rate_bits(p->mean_bps, t_ns);
	w = 2.0 * M_PI / p->period_s;
	return m * t_s + m * p->amplitude / w * sin(w * t_s);
}

/* Index of the segment containing t: the largest i with pts[i].t_ns <= t. */
static uint32_t trace_seg(const struct link_profile *p, tstamp_ns t_ns)
{
	uint32_t lo = 0, hi = p->npts;          /* pts[lo].t_ns <= t < pts[hi] */

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->pts[mid].t_ns <= t_ns)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static double trace_bits(const struct link_profile *p, tstamp_ns t_ns)
{
	const struct trace_pt *s = &p->pts[trace_seg(p, t_ns)];

	return s->cum_bits + rate_bits(s->rate_bps, t_ns - s->t_ns);
}

/* Number of offsets <= r_ms in the (sorted) period table. */
static uint32_t mm_count_le(const struct link_profile *p, uint64_t r_ms)
{
	uint32_t lo = 0, hi = p->nopps;         /* answer in [lo, hi] */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->opp_ms[mid] <= r_ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Opportunities at times j*P + off[i] ms with j >= 0, counted when the time
 * is <= t.  With M = floor(t / 1ms) = jf*P + r (0 <= r < P), every copy of
 * periods j < jf is in (off[i] <= P <= P + r), period jf contributes the
 * offsets <= r, and later periods none (P + off >= P > r). */
static double mm_opps_upto(const struct link_profile *p, tstamp_ns t_ns)
{
	uint64_t m_ms = t_ns / NS_PER_MS;
	uint64_t jf = m_ms / p->mm_period_ms;
	uint64_t r = m_ms % p->mm_period_ms;

	/* exact while the count stays below 2^53, i.e. for any sane t */
	return (double)jf * p->nopps + mm_count_le(p, r);
}

double link_service_bits(const struct link_profile *p, tstamp_ns t_ns)
{
	switch (p->kind) {
	case LINK_CONSTANT:
		return rate_bits(p->rate_bps, t_ns);
	case LINK_COSINE:
		return cosine_bits(p, t_ns);
	case LINK_TRACE:
		return trace_bits(p, t_ns);
	case LINK_MAHIMAHI:
		return mm_opps_upto(p, t_ns) * (double)MM_OPP_BITS;
	case LINK_UNLIMITED:
	default:
		return 0.0;
	}
}

/* ---------------------------------------------------------------------
 * inverse
 */

/* Smallest integer t with S(t) >= bits, searched around `guess`: doubling
 * steps find a bracket S(lo) < bits <= S(hi), then bisection.  The profile
 * estimates are within a few ns, so this usually costs two evaluations of
 * S; it exists so that the answer is exact for the S actually computed,
 * rounding included. */
static tstamp_ns refine_ns(const struct link_profile *p, double bits,
			   tstamp_ns guess)
{
	tstamp_ns lo, hi, step = 1;

	if (link_service_bits(p, guess) >= bits) {
		hi = guess;
		for (;;) {
			if (hi == 0)
				return 0;
			lo = hi > step ? hi - step : 0;
			if (link_service_bits(p, lo) < bits)
				break;
			hi = lo;
			step *= 2;
		}
	} else {
		lo = guess;
		for (;;) {
			if (lo >= TS_FAR_NS)
				return TS_NEVER;
			hi = lo + step;
			if (link_service_bits(p, hi) >= bits)
				break;
			lo = hi;
			step *= 2;
		}
	}
	while (hi - lo > 1) {
		tstamp_ns mid = lo + (hi - lo) / 2;

		if (link_service_bits(p, mid) >= bits)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Solves S(t) = bits in seconds by Newton steps kept inside a bracket:
 * m t - A <= S(t) <= m t + A with A = m a P / (2 pi) bounds the root, and a
 * step leaving the bracket (C(t) near 0 when a is close to 1) falls back
 * to bisection. */
static double cosine_solve_s(const struct link_profile *p, double bits)
{
	double m = (double)p->mean_bps, a = p->amplitude, per = p->period_s;
	double w = 2.0 * M_PI / per;
	double amp_bits = m * a / w;
	double lo = (bits - amp_bits) / m, hi = (bits + amp_bits) / m;
	double x = bits / m;
	int i;

	if (lo < 0.0)
		lo = 0.0;
	for (i = 0; i < 200 && hi - lo > 1e-12 * (1.0 + hi); i++) {
		double f = m * x + amp_bits * sin(w * x) - bits;
		double df = m * (1.0 + a * cos(w * x));
		double nx;

		if (f >= 0.0)
			hi = x;
		else
			lo = x;
		if (f == 0.0)
			break;
		nx = df > 0.0 ? x - f / df : lo - 1.0;
		if (!(nx > lo && nx < hi))
			nx = lo + (hi - lo) / 2;
		if (nx == x)
			break;
		x = nx;
	}
	return x;
}

static tstamp_ns cosine_time_for_bits(const struct link_profile *p,
				      double bits)
{
	tstamp_ns g;

	if (p->mean_bps == 0)
		return TS_NEVER;
	if (p->period_s <= 0.0 || p->amplitude == 0.0)
		g = guess_ns(bits / (double)p->mean_bps * (double)NS_PER_SEC);
	else
		g = guess_ns(cosine_solve_s(p, bits) * (double)NS_PER_SEC);
	return g == TS_NEVER ? TS_NEVER : refine_ns(p, bits, g);
}

/* The segment holding the answer is the last one whose start is below
 * `bits`; zero-rate segments have cum equal to their successor's, so they
 * are never chosen unless they are the last. */
static tstamp_ns trace_time_for_bits(const struct link_profile *p,
				     double bits)
{
	uint32_t lo = 0, hi = p->npts;          /* cum[lo] < bits <= cum[hi] */
	const struct trace_pt *s;
	tstamp_ns g;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->pts[mid].cum_bits < bits)
			lo = mid;
		else
			hi = mid;
	}
	s = &p->pts[lo];
	if (s->rate_bps == 0)
		return TS_NEVER;        /* only possible for the last segment */
	g = guess_ns((bits - s->cum_bits) * (double)NS_PER_SEC /
		     (double)s->rate_bps);
	if (g == TS_NEVER || g >= TS_FAR_NS - s->t_ns)
		return TS_NEVER;
	g += s->t_ns;
	if (lo + 1 < p->npts && g > p->pts[lo + 1].t_ns)
		g = p->pts[lo + 1].t_ns;
	return refine_ns(p, bits, g);
}

/* The k-th opportunity (k >= 1) of the infinite sequence is period
 * (k-1)/n at offset (k-1)%n: the sequence j*P + off[i] is sorted because
 * off[n-1] = P <= P + off[0]. */
static tstamp_ns mm_time_for_bits(const struct link_profile *p, double bits)
{
	double kd = ceil(bits / (double)MM_OPP_BITS);
	uint64_t k, j, t_ms;

	if (!(kd < 9.0e15))
		return TS_NEVER;
	k = (uint64_t)kd;
	/* the double division may be one off at exact multiples */
	while (k > 0 && (double)(k - 1) * (double)MM_OPP_BITS >= bits)
		k--;
	while ((double)k * (double)MM_OPP_BITS < bits)
		k++;
	if (k == 0)
		return 0;
	j = (k - 1) / p->nopps;
	if (j > (TS_FAR_NS / NS_PER_MS) / p->mm_period_ms)
		return TS_NEVER;
	t_ms = j * p->mm_period_ms + p->opp_ms[(k - 1) % p->nopps];
	return t_ms * NS_PER_MS;
}

tstamp_ns link_time_for_bits(const struct link_profile *p, double bits,
			     tstamp_ns hint_ns)
{
	tstamp_ns t;

	if (bits <= 0.0 || p->kind == LINK_UNLIMITED)
		return hint_ns;
	switch (p->kind) {
	case LINK_CONSTANT:
		if (p->rate_bps == 0)
			return TS_NEVER;
		t = guess_ns(bits / (double)p->rate_bps * (double)NS_PER_SEC);
		if (t != TS_NEVER)
			t = refine_ns(p, bits, t);
		break;
	case LINK_COSINE:
		t = cosine_time_for_bits(p, bits);
		break;
	case LINK_TRACE:
		t = trace_time_for_bits(p, bits);
		break;
	case LINK_MAHIMAHI:
		t = mm_time_for_bits(p, bits);
		break;
	default:
		return hint_ns;
	}
	return t > hint_ns ? t : hint_ns;
}

/* ---------------------------------------------------------------------
 * rates
 */

static uint64_t mm_mean_bps(const struct link_profile *p)
{
	return muldiv_round((uint64_t)p->nopps * MM_OPP_BITS, 1000,
			    p->mm_period_ms);
}

uint64_t link_rate_at(const struct link_profile *p, tstamp_ns t_ns)
{
	double c;

	switch (p->kind) {
	case LINK_CONSTANT:
		return p->rate_bps;
	case LINK_COSINE:
		if (p->period_s <= 0.0)
			return p->mean_bps;
		c = (double)p->mean_bps * (1.0 + p->amplitude *
		     cos(2.0 * M_PI * ((double)t_ns / (double)NS_PER_SEC) /
			 p->period_s));
		return c <= 0.0 ? 0 : (uint64_t)llround(c);
	case LINK_TRACE:
		return p->pts[trace_seg(p, t_ns)].rate_bps;
	case LINK_MAHIMAHI:
		return mm_mean_bps(p);
	case LINK_UNLIMITED:
	default:
		return UINT64_MAX;      /* RATE_UNLIMITED in units.h */
	}
}

uint64_t link_mean_bps(const struct link_profile *p)
{
	const struct trace_pt *last;
	double mean;

	switch (p->kind) {
	case LINK_CONSTANT:
		return p->rate_bps;
	case LINK_COSINE:
		return p->mean_bps;
	case LINK_TRACE:
		last = &p->pts[p->npts - 1];
		if (p->npts == 1)
			return last->rate_bps;
		mean = last->cum_bits * (double)NS_PER_SEC / (double)last->t_ns;
		return (uint64_t)llround(mean);
	case LINK_MAHIMAHI:
		return mm_mean_bps(p);
	case LINK_UNLIMITED:
	default:
		return UINT64_MAX;
	}
}

/* ---------------------------------------------------------------------
 * profile life cycle
 */

void link_profile_free(struct link_profile *p)
{
	free(p->pts);
	free(p->opp_ms);
	memset(p, 0, sizeof(*p));
	p->kind = LINK_UNLIMITED;
}

int link_profile_copy(struct link_profile *dst, const struct link_profile *src)
{
	struct trace_pt *pts = NULL;
	uint32_t *opps = NULL;

	if (src->pts && src->npts) {
		pts = malloc(sizeof(*pts) * src->npts);
		if (!pts)
			goto nomem;
		memcpy(pts, src->pts, sizeof(*pts) * src->npts);
	}
	if (src->opp_ms && src->nopps) {
		opps = malloc(sizeof(*opps) * src->nopps);
		if (!opps)
			goto nomem;
		memcpy(opps, src->opp_ms, sizeof(*opps) * src->nopps);
	}
	*dst = *src;
	dst->pts = pts;
	dst->opp_ms = opps;
	return 0;
nomem:
	free(pts);
	errno = ENOMEM;
	return -1;
}

/* ---------------------------------------------------------------------
 * loaders
 */

struct line_reader {
	FILE     *f;
	const char *path;
	char     *buf;
	size_t    cap;
	unsigned  lineno;
};

/* Next line with surrounding blanks stripped, skipping blank lines and
 * '#' comments.  Returns NULL at end of file (or on a read error, which
 * the caller tells apart with ferror). */
static char *next_line(struct line_reader *lr)
{
	ssize_t n;

	while ((n = getline(&lr->buf, &lr->cap, lr->f)) >= 0) {
		char *s = lr->buf, *e;

		lr->lineno++;
		e = s + n;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		*e = '\0';
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		return s;
	}
	return NULL;
}

static void trim(char **s)
{
	char *b = *s, *e = b + strlen(b);

	while (isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	*s = b;
}

/* Parses a plain decimal "123", "1.5", ".5", "2." (no sign, exponent or
 * unit) as value * 10^scale_digits rounded half up.  Fails on bad syntax
 * or when the scaled value exceeds max_scaled. */
static int parse_decimal(const char *s, unsigned scale_digits,
			 uint64_t max_scaled, uint64_t *out)
{
	uint64_t ip = 0, frac = 0, mult = 1;
	unsigned nd = 0, i;
	int round_up = 0;
	u128 v;

	for (i = 0; i < scale_digits; i++)
		mult *= 10;
	for (; isdigit((unsigned char)*s); s++, nd++) {
		if (ip > max_scaled)    /* keeps going only to check syntax */
			continue;
		ip = ip * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		unsigned fd = 0;

		for (s++; isdigit((unsigned char)*s); s++, nd++, fd++) {
			if (fd < scale_digits)
				frac = frac * 10 + (uint64_t)(*s - '0');
			else if (fd == scale_digits)
				round_up = *s >= '5';
		}
		for (; fd < scale_digits; fd++)
			frac *= 10;
	}
	if (*s != '\0' || nd == 0 || ip > max_scaled)
		return -1;
	v = (u128)ip * mult + frac + (unsigned)round_up;
	if (v > max_scaled)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int reader_open(struct line_reader *lr, const char *path,
		       char *err, size_t errlen)
{
	memset(lr, 0, sizeof(*lr));
	lr->path = path;
	lr->f = fopen(path, "r");
	if (!lr->f) {
		snprintf(err, errlen, "%s: cannot open: %s (accepted: a readable file)",
			 path, strerror(errno));
		return -1;
	}
	return 0;
}

static void reader_close(struct line_reader *lr)
{
	if (lr->f)
		fclose(lr->f);
	free(lr->buf);
}

/* After next_line() returned NULL: reports a read error, if any. */
static int reader_failed(struct line_reader *lr, char *err, size_t errlen)
{
	if (!ferror(lr->f))
		return 0;
	snprintf(err, errlen, "%s:%u: read error: %s", lr->path,
		 lr->lineno + 1, strerror(errno));
	return 1;
}

static void set_source(struct link_profile *p, const char *path)
{
	snprintf(p->source, sizeof(p->source), "%s", path);
}

#define ACC_LINE  "lines \"time_s,rate_bps\", '#' comments, blank lines"
#define ACC_TIME  "seconds as a plain non-negative decimal number, at most 1000000000"
#define ACC_RATE  "bit/s as a plain non-negative decimal number without unit, at most 9007199254740992"

/* Rates with a fraction are rounded to the nearest bit/s (the profile
 * stores integers). */
int link_load_trace(struct link_profile *p, const char *path,
		    char *err, size_t errlen)
{
	struct line_reader lr;
	struct trace_pt *pts = NULL;
	uint32_t n = 0, cap = 0;
	char prev_time[MSG_VAL_MAX + 1] = "";
	unsigned prev_line = 0;
	char *line;
	int first = 1;

	if (reader_open(&lr, path, err, errlen) < 0)
		return -1;
	while ((line = next_line(&lr))) {
		char *ts, *rs, *comma = strchr(line, ',');
		uint64_t t_ns, rate;

		if (!comma || strchr(comma + 1, ',')) {
			snprintf(err, errlen, "%s:%u: expected time_s,rate_bps, got '%.*s' (accepted: %s)",
				 path, lr.lineno, MSG_VAL_MAX, line, ACC_LINE);
			goto fail;
		}
		*comma = '\0';
		ts = line;
		rs = comma + 1;
		trim(&ts);
		trim(&rs);
		if (first && n == 0 && !strcasecmp(ts, "time_s") &&
		    !strcasecmp(rs, "rate_bps")) {
			first = 0;
			continue;
		}
		first = 0;
		if (parse_decimal(ts, 9, TRACE_MAX_TIME_S * NS_PER_SEC,
				  &t_ns) < 0) {
			snprintf(err, errlen, "%s:%u: invalid time '%.*s' (accepted: %s)",
				 path, lr.lineno, MSG_VAL_MAX, ts, ACC_TIME);
			goto fail;
		}
		if (parse_decimal(rs, 0, TRACE_MAX_RATE_BPS, &rate) < 0) {
			snprintf(err, errlen, "%s:%u: invalid rate '%.*s' (accepted: %s)",
				 path, lr.lineno, MSG_VAL_MAX, rs, ACC_RATE);
			goto fail;
		}
		if (n == 0 && t_ns != 0) {
			snprintf(err, errlen, "%s:%u: first time '%.*s' is not 0 (accepted: a trace starting at time 0)",
				 path, lr.lineno, MSG_VAL_MAX, ts);
			goto fail;
		}
		if (n > 0 && t_ns <= pts[n - 1].t_ns) {
			snprintf(err, errlen, "%s:%u: time '%.*s' does not increase (accepted: times strictly increasing, after '%s' on line %u)",
				 path, lr.lineno, MSG_VAL_MAX, ts, prev_time,
				 prev_line);
			goto fail;
		}
		if (n == TRACE_MAX_POINTS) {
			snprintf(err, errlen, "%s:%u: too many points at time '%.*s' (accepted: at most %u points)",
				 path, lr.lineno, MSG_VAL_MAX, ts,
				 TRACE_MAX_POINTS);
			goto fail;
		}
		if (n == cap) {
			uint32_t ncap = cap ? cap * 2 : 64;
			struct trace_pt *np;

			if (ncap > TRACE_MAX_POINTS)
				ncap = TRACE_MAX_POINTS;
			np = realloc(pts, sizeof(*pts) * ncap);
			if (!np) {
				snprintf(err, errlen, "%s:%u: out of memory",
					 path, lr.lineno);
				goto fail;
			}
			pts = np;
			cap = ncap;
		}
		pts[n].t_ns = t_ns;
		pts[n].rate_bps = rate;
		/* the same expression S() uses, so S is continuous at t_ns */
		pts[n].cum_bits = n == 0 ? 0.0 :
			pts[n - 1].cum_bits + rate_bits(pts[n - 1].rate_bps,
							t_ns - pts[n - 1].t_ns);
		n++;
		snprintf(prev_time, sizeof(prev_time), "%s", ts);
		prev_line = lr.lineno;
	}
	if (reader_failed(&lr, err, errlen))
		goto fail;
	if (n == 0) {
		snprintf(err, errlen, "%s:%u: no data point (accepted: at least one line time_s,rate_bps, the first at time 0)",
			 path, lr.lineno ? lr.lineno : 1);
		goto fail;
	}
	reader_close(&lr);
	p->kind = LINK_TRACE;
	p->pts = pts;
	p->npts = n;
	set_source(p, path);
	return 0;
fail:
	reader_close(&lr);
	free(pts);
	return -1;
}

#define ACC_MM "one non-negative integer of milliseconds per line, at most 4294967295"

int link_load_mahimahi(struct link_profile *p, const char *path,
		       char *err, size_t errlen)
{
	struct line_reader lr;
	uint32_t *opps = NULL;
	uint32_t n = 0, cap = 0;
	unsigned last_line = 0;
	char *line;

	if (reader_open(&lr, path, err, errlen) < 0)
		return -1;
	while ((line = next_line(&lr))) {
		uint64_t ms;

		/* parse_decimal() takes fractions; offsets are integers */
		if (strchr(line, '.') ||
		    parse_decimal(line, 0, UINT32_MAX, &ms) < 0) {
			snprintf(err, errlen, "%s:%u: invalid offset '%.*s' (accepted: %s)",
				 path, lr.lineno, MSG_VAL_MAX, line, ACC_MM);
			goto fail;
		}
		if (n > 0 && ms < opps[n - 1]) {
			snprintf(err, errlen, "%s:%u: offset '%.*s' is below the previous one (accepted: non-decreasing offsets, at least %u)",
				 path, lr.lineno, MSG_VAL_MAX, line,
				 opps[n - 1]);
			goto fail;
		}
		if (n == MM_MAX_OPPS) {
			snprintf(err, errlen, "%s:%u: too many opportunities at offset '%.*s' (accepted: at most %u lines)",
				 path, lr.lineno, MSG_VAL_MAX, line,
				 MM_MAX_OPPS);
			goto fail;
		}
		if (n == cap) {
			uint32_t ncap = cap ? cap * 2 : 256;
			uint32_t *np;

			if (ncap > MM_MAX_OPPS)
				ncap = MM_MAX_OPPS;
			np = realloc(opps, sizeof(*opps) * ncap);
			if (!np) {
				snprintf(err, errlen, "%s:%u: out of memory",
					 path, lr.lineno);
				goto fail;
			}
			opps = np;
			cap = ncap;
		}
		opps[n++] = (uint32_t)ms;
		last_line = lr.lineno;
	}
	if (reader_failed(&lr, err, errlen))
		goto fail;
	if (n == 0) {
		snprintf(err, errlen, "%s:%u: no delivery opportunity (accepted: at least one line with a ms offset)",
			 path, lr.lineno ? lr.lineno : 1);
		goto fail;
	}
	if (opps[n - 1] == 0) {
		snprintf(err, errlen, "%s:%u: last offset '0' makes a zero period (accepted: a last offset > 0, the period in ms)",
			 path, last_line);
		goto fail;
	}
	reader_close(&lr);
	p->kind = LINK_MAHIMAHI;
	p->opp_ms = opps;
	p->nopps = n;
	p->mm_period_ms = opps[n - 1];
	set_source(p, path);
	return 0;
fail:
	reader_close(&lr);
	free(opps);
	return -1;
}
