/* fuzz_efgen.c - target 8: what schedtun-efgen reads from outside: the
 * sink's datagrams (efgen_payload_read() into the efsink accounting, as
 * sink_drain() in src/tools/schedtun-efgen.c feeds it), the --rate SPEC
 * (efgen_profile_parse()) and its csv:FILE profile (efgen_csv_load()
 * through "csv:PATH").
 *
 * Input: byte 0 modulo 3 picks the parser, the rest is its input:
 *   0 datagrams: records [len][len bytes] (len one byte, cut to the
 *     input left), each one receive of the sink, received at RX_NS
 *   1 a SPEC, a C string cut at the first NUL ("csv:" ones are skipped:
 *     they would read any file named; mode 2 feeds that form)
 *   2 a csv profile file, loaded as the SPEC "csv:PATH"
 *
 * Oracles:
 *   0: a datagram is refused iff it is shorter than 16 bytes; an accepted
 *      one's sequence number and send time are its first two 8-byte words
 *      big-endian, decoded here; efgen_payload_write() with them (same
 *      length) gives those 16 bytes back and zeros after, and reads back
 *      the same.  The sink's totals against a model kept here: packets and
 *      IP bytes (datagram + 28) received, the highest sequence number;
 *      while every number stays inside the sink's window (below
 *      EFSINK_WINDOW) duplicates, reordered and lost (highest + 1 -
 *      distinct) exactly; the one-way delay's maximum exactly (negative:
 *      0), its interval p50/p99 the exact nearest-rank values and the
 *      whole run's not below them and above by less than 1/1024.
 *   1, 2: refused with a message naming what is accepted ("accepted:"),
 *      and no partial state (the profile still zero, nothing allocated);
 *      accepted: the kind's documented ranges (rates <= 2^53 bit/s, above
 *      0 for a constant and a cosine's AVG; 0 <= AMPLITUDE <= 1; PERIOD
 *      in (0, 10^6] s; step/csv: points from t = 0, strictly increasing,
 *      times <= 10^9 s, each point's cumulative bits the sum of the
 *      segments before it, computed here); the profile written back as a
 *      canonical SPEC or csv file (rates in bit/s, times in ns) parses to
 *      the same profile field by field; a csv file has as many points as
 *      it has data lines (counted here: not blank, not only a comment, not
 *      the first line's "t_s,rate" header); S(t) never decreases and
 *      packet k's due time is where S reaches k packets.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "efgen/efgen.h"
#include "efgen/efsink.h"
#include "util/units.h"
#include "fuzz_common.h"

#define RX_NS     ((uint64_t)1 << 62)   /* the sink's receive clock */
#define MAX_DGRAMS 4096
#define PKT_BYTES 1250u                 /* for the due-time checks */

/* ---- mode 0: the sink's datagrams ------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* One datagram of n bytes: refusal iff short; the fields decoded here;
 * the writer's round trip.  1 with *seq, *ts when accepted. */
static int read_one(const uint8_t *data, size_t n, uint64_t *seq,
		    uint64_t *ts)
{
	uint8_t *buf = malloc(n ? n : 1), *back;
	uint64_t s2, t2;
	size_t i;
	int r;

	FZ_CHECK(buf, "malloc");
	memcpy(buf, data, n);   /* exactly n bytes: ASan sees an over-read */
	r = efgen_payload_read(buf, n, seq, ts);
	FZ_CHECK(r == (n < EFGEN_PAYLOAD_MIN_BYTES ? -1 : 0),
		 "%zu-byte datagram: read returned %d", n, r);
	if (r < 0) {
		free(buf);
		return 0;
	}
	FZ_CHECK(*seq == fz_be64(buf) && *ts == fz_be64(buf + 8),
		 "seq %llu ts %llu, bytes say %llu %llu",
		 (unsigned long long)*seq, (unsigned long long)*ts,
		 (unsigned long long)fz_be64(buf),
		 (unsigned long long)fz_be64(buf + 8));
	back = malloc(n);
	FZ_CHECK(back, "malloc");
	memset(back, 0xa5, n);
	efgen_payload_write(back, n, *seq, *ts);
	FZ_CHECK(!memcmp(back, buf, 16), "written header differs");
	for (i = 16; i < n; i++)
		FZ_CHECK(back[i] == 0, "written byte %zu = %02x", i, back[i]);
	FZ_CHECK(efgen_payload_read(back, n, &s2, &t2) == 0 && s2 == *seq &&
		 t2 == *ts, "written payload reads back %llu %llu",
		 (unsigned long long)s2, (unsigned long long)t2);
	free(back);
	free(buf);
	return 1;
}

/* The nearest-rank q-quantile of n sorted values (the sink's rule). */
static uint64_t nearest_rank(const uint64_t *v, size_t n, double q)
{
	double r = q * (double)n;
	size_t k = (size_t)r;

	if ((double)k < r)
		k++;
	return v[k ? k - 1 : 0];
}

static void sink(const uint8_t *data, size_t size)
{
	static uint64_t owd[MAX_DGRAMS];
	static uint8_t seen[EFSINK_WINDOW / 8];
	static struct efsink k;
	struct efsink_interval iv;
	struct efsink_summary s;
	uint64_t pkts = 0, bytes = 0, hi = 0, seq, ts, dups = 0, reord = 0;
	uint64_t distinct = 0, exact, q[2];
	int small = 1, i;
	size_t at = 0, n;

	efsink_init(&k);
	memset(seen, 0, sizeof(seen));
	while (at < size) {
		n = data[at++];
		if (n > size - at)
			n = size - at;
		if (read_one(data + at, n, &seq, &ts)) {
			/* sink_drain: receive - send time, as int64 */
			int64_t d = (int64_t)(RX_NS - ts);

			FZ_CHECK(efsink_add(&k, seq, n + EFGEN_IP4_UDP_BYTES, d) == 0,
				 "efsink_add");
			owd[pkts] = d > 0 ? (uint64_t)d : 0;
			small &= seq < EFSINK_WINDOW;
			if (small) {
				if (seen[seq / 8] >> (seq % 8) & 1) {
					dups++;
				} else {
					seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
					distinct++;
					reord += pkts > 0 && seq < hi;
				}
			}
			hi = pkts == 0 || seq > hi ? seq : hi;
			pkts++;
			bytes += n + EFGEN_IP4_UDP_BYTES;
		}
		at += n;
	}
	efsink_summary(&k, NS_PER_SEC, &s);
	efsink_interval_close(&k, NS_PER_SEC, &iv);
	FZ_CHECK(s.rcvd_pkts == pkts && iv.rcvd_pkts == pkts &&
		 s.rcvd_bytes == bytes && s.highest_seq == hi,
		 "sink: %llu pkts %llu bytes highest %llu, fed %llu %llu %llu",
		 (unsigned long long)s.rcvd_pkts, (unsigned long long)s.rcvd_bytes,
		 (unsigned long long)s.highest_seq, (unsigned long long)pkts,
		 (unsigned long long)bytes, (unsigned long long)hi);
	if (pkts && small)
		FZ_CHECK(s.dup_pkts == dups && s.reordered_pkts == reord &&
			 s.lost_pkts == (int64_t)(hi + 1 - distinct) &&
			 iv.lost_pkts == s.lost_pkts,
			 "sink: dup %llu reord %llu lost %lld, model %llu %llu %llu",
			 (unsigned long long)s.dup_pkts,
			 (unsigned long long)s.reordered_pkts,
			 (long long)s.lost_pkts, (unsigned long long)dups,
			 (unsigned long long)reord,
			 (unsigned long long)(hi + 1 - distinct));
	if (pkts) {
		qsort(owd, pkts, sizeof(owd[0]), cmp_u64);
		FZ_CHECK(s.owd_ms.max == (double)owd[pkts - 1] / 1e6 &&
			 iv.owd_ms.max == s.owd_ms.max, "owd max %g, %g, fed %llu",
			 s.owd_ms.max, iv.owd_ms.max,
			 (unsigned long long)owd[pkts - 1]);
		q[0] = nearest_rank(owd, pkts, 0.5);
		q[1] = nearest_rank(owd, pkts, 0.99);
		for (i = 0; i < 2; i++) {
			double run = i ? s.owd_ms.p99 : s.owd_ms.p50;
			double ivq = i ? iv.owd_ms.p99 : iv.owd_ms.p50;

			exact = q[i];
			FZ_CHECK(ivq == (double)exact / 1e6, "interval p%d %g, "
				 "exact %llu ns", i ? 99 : 50, ivq,
				 (unsigned long long)exact);
			/* below 1/1024 above, give or take the rounding of
			 * the ns -> ms doubles (at 2^62 ns + 1 the bucket's
			 * edge is 2^52 - 1 ns above: 1/1024 less a hair) */
			FZ_CHECK(run >= (double)exact / 1e6 * (1 - 1e-12) &&
				 run <= (double)exact / 1e6 *
					(1 + 1.0 / HIST_FINE_SUB) * (1 + 1e-12) + 1e-9 &&
				 run <= s.owd_ms.max, "run p%d %.17g, exact %llu ns, "
				 "max %.17g", i ? 99 : 50, run,
				 (unsigned long long)exact, s.owd_ms.max);
		}
	}
	efsink_free(&k);
}

/* ---- modes 1, 2: the rate profile -------------------------------------- */

/* A refusal: a message saying what is accepted, no partial state. */
static void check_refused(const struct efgen_profile *p, const char *err,
			  const char *what)
{
	static const struct efgen_profile zero;

	FZ_CHECK(strstr(err, "accepted") || !strcmp(err, "out of memory") ||
		 strstr(err, ": out of memory"),
		 "'%.100s' refused with '%s'", what, err);
	FZ_CHECK(!memcmp(p, &zero, sizeof(zero)), "'%.100s' refused, profile "
		 "not left empty", what);
}

/* The documented ranges of an accepted profile, the points' bits summed
 * here, S(t) and the due times. */
static void check_profile(const struct efgen_profile *p, const char *what)
{
	const struct link_profile *c = &p->curve;
	double bits = 0, prev = 0, s;
	tstamp_ns t[] = { 0, 1, NS_PER_MS, NS_PER_SEC, 7 * NS_PER_SEC + 3,
			  1000 * NS_PER_SEC }, due, hint = 0;
	uint32_t i;
	uint64_t kk;

	switch (p->kind) {
	case EFGEN_CONSTANT:
		FZ_CHECK(c->kind == LINK_CONSTANT && c->rate_bps >= 1 &&
			 c->rate_bps <= EFGEN_RATE_MAX_BPS, "'%s': constant %llu",
			 what, (unsigned long long)c->rate_bps);
		break;
	case EFGEN_COSINE:
		FZ_CHECK(c->kind == LINK_COSINE && c->mean_bps >= 1 &&
			 c->mean_bps <= EFGEN_RATE_MAX_BPS &&
			 c->amplitude >= 0 && c->amplitude <= 1 &&
			 c->period_s > 0 && c->period_s <= 1e6,
			 "'%s': cosine %llu %g %g", what,
			 (unsigned long long)c->mean_bps, c->amplitude, c->period_s);
		break;
	case EFGEN_STEP:
	case EFGEN_CSV:
		FZ_CHECK(c->kind == LINK_TRACE && c->npts >= 1 && c->pts &&
			 c->pts[0].t_ns == 0 && c->pts[0].cum_bits == 0 &&
			 (p->kind == EFGEN_CSV ? c->npts <= EFGEN_CSV_MAX_POINTS
					       : c->npts <= 2),
			 "'%s': trace of %u points", what, c->npts);
		for (i = 0; i < c->npts; i++) {
			const struct trace_pt *pt = &c->pts[i];

			FZ_CHECK(pt->rate_bps <= EFGEN_RATE_MAX_BPS &&
				 pt->t_ns <= 1000000000ull * NS_PER_SEC &&
				 (i == 0 || pt->t_ns > c->pts[i - 1].t_ns),
				 "'%s': point %u (%llu ns, %llu bit/s)", what, i,
				 (unsigned long long)pt->t_ns,
				 (unsigned long long)pt->rate_bps);
			if (i > 0)
				bits += (double)c->pts[i - 1].rate_bps *
					(double)(pt->t_ns - c->pts[i - 1].t_ns) / 1e9;
			FZ_CHECK(fabs(pt->cum_bits - bits) <= 1e-9 * bits + 1e-6,
				 "'%s': point %u cumulative %.3f, summed %.3f",
				 what, i, pt->cum_bits, bits);
		}
		break;
	default:
		fz_fail(__FILE__, __LINE__, "kind", "'%s': kind %d", what, p->kind);
	}
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s = efgen_bits(p, t[i]);
		FZ_CHECK(isfinite(s) && s >= prev, "'%s': S(%llu) = %g after %g",
			 what, (unsigned long long)t[i], s, prev);
		prev = s;
	}
	for (kk = 1; kk <= 3; kk++) {
		due = efgen_due_ns(p, kk, PKT_BYTES, hint);
		if (due == TS_NEVER)
			break;
		FZ_CHECK(due >= hint && efgen_bits(p, due) >=
			 (double)kk * PKT_BYTES * 8 * (1 - 1e-12),
			 "'%s': packet %llu due at %llu, S = %g", what,
			 (unsigned long long)kk, (unsigned long long)due,
			 efgen_bits(p, due));
		hint = due;
	}
}

/* Field by field: what the canonical form of a must parse to. */
static void check_same(const struct efgen_profile *a,
		       const struct efgen_profile *b, const char *canon)
{
	const struct link_profile *x = &a->curve, *y = &b->curve;
	uint32_t i;

	FZ_CHECK(a->kind == b->kind && x->kind == y->kind &&
		 x->rate_bps == y->rate_bps && x->mean_bps == y->mean_bps &&
		 x->amplitude == y->amplitude && x->period_s == y->period_s &&
		 x->npts == y->npts, "'%.200s' parses to another profile "
		 "(kind %d/%d rate %llu/%llu mean %llu/%llu a %g/%g P %.17g/%.17g "
		 "npts %u/%u)", canon, a->kind, b->kind,
		 (unsigned long long)x->rate_bps, (unsigned long long)y->rate_bps,
		 (unsigned long long)x->mean_bps, (unsigned long long)y->mean_bps,
		 x->amplitude, y->amplitude, x->period_s, y->period_s, x->npts,
		 y->npts);
	for (i = 0; i < x->npts; i++)
		FZ_CHECK(x->pts[i].t_ns == y->pts[i].t_ns &&
			 x->pts[i].rate_bps == y->pts[i].rate_bps &&
			 x->pts[i].cum_bits == y->pts[i].cum_bits,
			 "'%.200s': point %u differs", canon, i);
}

/* Writes p as a csv file with exact values (ns times, bit/s rates). */
static const char *write_csv(const struct efgen_profile *p)
{
	size_t cap = 64 + (size_t)p->curve.npts * 48, n = 0;
	char *text = malloc(cap);
	const char *path;
	uint32_t i;

	FZ_CHECK(text, "malloc");
	n += (size_t)snprintf(text + n, cap - n, "t_s,rate\n");
	for (i = 0; i < p->curve.npts; i++)
		n += (size_t)snprintf(text + n, cap - n, "%lluns,%llu\n",
				      (unsigned long long)p->curve.pts[i].t_ns,
				      (unsigned long long)p->curve.pts[i].rate_bps);
	path = fz_write_file("canon.csv", (const uint8_t *)text, n);
	free(text);
	return path;
}

/* The canonical SPEC of p into buf: the same profile in exact units. */
static void canonical(const struct efgen_profile *p, char *buf, size_t len)
{
	const struct link_profile *c = &p->curve;

	switch (p->kind) {
	case EFGEN_CONSTANT:
		snprintf(buf, len, "%llu", (unsigned long long)c->rate_bps);
		break;
	case EFGEN_COSINE:
		snprintf(buf, len, "cosine:%llu:%.17g:%lluns",
			 (unsigned long long)c->mean_bps, c->amplitude,
			 (unsigned long long)llround(c->period_s * 1e9));
		break;
	case EFGEN_STEP:
		/* one point: a step at 0 to R2 (R1 never holds) */
		snprintf(buf, len, "step:%llu:%lluns:%llu",
			 (unsigned long long)c->pts[0].rate_bps,
			 (unsigned long long)c->pts[c->npts - 1].t_ns,
			 (unsigned long long)c->pts[c->npts - 1].rate_bps);
		break;
	default:
		snprintf(buf, len, "csv:%s", write_csv(p));
	}
}

/* Parses spec; checks a refusal or the profile and its round trip. */
static void profile(const char *spec)
{
	struct efgen_profile p, q;
	char err[1024], canon[1200], err2[1024];

	err[0] = '\0';
	memset(&p, 0x5a, sizeof(p));    /* the parser must clear it */
	if (efgen_profile_parse(spec, &p, err, sizeof(err)) < 0) {
		check_refused(&p, err, spec);
		return;
	}
	check_profile(&p, spec);
	canonical(&p, canon, sizeof(canon));
	err2[0] = '\0';
	FZ_CHECK(efgen_profile_parse(canon, &q, err2, sizeof(err2)) == 0,
		 "'%.200s' accepted, its canonical form '%s' refused: %s", spec,
		 canon, err2);
	check_same(&p, &q, canon);
	efgen_profile_free(&q);
	efgen_profile_free(&p);
}

/* The data lines of a csv file, counted by the format of efgen.h: a line
 * cut at '#' and trimmed is data unless empty, or the first non-empty
 * line and a "t_s,rate" / "t_s, rate" header.  A NUL ends a line's text
 * as getline() leaves it to the C string functions. */
static uint32_t csv_data_lines(const uint8_t *d, size_t n)
{
	uint32_t count = 0;
	int first = 1;
	size_t at = 0, e, a, b;
	char line[64];

	while (at < n) {
		for (e = at; e < n && d[e] != '\n'; e++)
			;
		for (b = at; b < e && d[b] && d[b] != '#'; b++)
			;
		for (a = at; a < b && isspace(d[a]); a++)
			;
		while (b > a && isspace(d[b - 1]))
			b--;
		if (b > a) {
			snprintf(line, sizeof(line), "%.*s", (int)(b - a),
				 (const char *)d + a);
			if (!(first && (!strcasecmp(line, "t_s,rate") ||
					!strcasecmp(line, "t_s, rate"))))
				count++;
			first = 0;
		}
		at = e + 1;
	}
	return count;
}

static void csv(const uint8_t *data, size_t size)
{
	struct efgen_profile p;
	char spec[300], err[1024];
	const char *path = fz_write_file("profile.csv", data, size);
	uint32_t lines;

	snprintf(spec, sizeof(spec), "csv:%s", path);
	err[0] = '\0';
	memset(&p, 0x5a, sizeof(p));
	if (efgen_profile_parse(spec, &p, err, sizeof(err)) < 0) {
		size_t n = strlen(path);

		/* "PATH:LINE: " with a line number */
		FZ_CHECK(!strncmp(err, path, n) && err[n] == ':' &&
			 err[n + 1] >= '1' && err[n + 1] <= '9',
			 "csv refused with '%s'", err);
		check_refused(&p, err, spec);
		return;
	}
	FZ_CHECK(p.kind == EFGEN_CSV, "csv: kind %d", p.kind);
	lines = csv_data_lines(data, size);
	FZ_CHECK(p.curve.npts == lines, "csv: %u points from %u data lines",
		 p.curve.npts, lines);
	efgen_profile_free(&p);
	profile(spec);          /* the range checks and the round trip */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[1024];
	size_t n;

	if (size < 1)
		return 0;
	fz_dir();
	switch (data[0] % 3) {
	case 0:
		sink(data + 1, size - 1);
		break;
	case 1:
		n = size - 1 < sizeof(s) - 1 ? size - 1 : sizeof(s) - 1;
		memcpy(s, data + 1, n);
		s[n] = '\0';
		if (strncasecmp(s, "csv:", 4))
			profile(s);
		break;
	default:
		csv(data + 1, size - 1);
	}
	return 0;
}
