/* efgen.c - the EF generator's rate profiles, pacing and payload (efgen.h).
 *
 * The profiles are link.h service curves, so S(t) and its inverse are the
 * daemon's own exact arithmetic: a step or csv profile is a trace with
 * its cumulative bits computed by link_service_bits() on the points
 * already loaded, the same expression S() evaluates later, so S is
 * continuous at each point.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "efgen/efgen.h"
#include "util/bytes.h"
#include "util/units.h"

#define SPEC_MAX          512
#define VAL_MAX           80            /* of a value quoted in a message */
#define PERIOD_MAX_S      1000000ULL
#define TIME_MAX_S        1000000000ULL

const char *const efgen_kind_name[] = {
	[EFGEN_CONSTANT] = "constant",
	[EFGEN_COSINE]   = "cosine",
	[EFGEN_STEP]     = "step",
	[EFGEN_CSV]      = "csv",
};

/* ---- values ------------------------------------------------------------ */

/* A rate that may be 0: "0", "0.0", "0Mbit" are 0 (a silent period, which
 * parse_rate_bps refuses); anything else goes through parse_rate_bps and
 * must stay at most EFGEN_RATE_MAX_BPS (exact in the curve's doubles).
 * 0 or -1 with "'V' is not a rate (accepted: ...)" in err. */
static int parse_rate0(const char *s, int allow_zero, uint64_t *out,
		       char *err, size_t errlen)
{
	const char *p = s;
	int zero_digit = 0, dots = 0;
	char one[64];

	while (isspace((unsigned char)*p))
		p++;
	for (; *p == '0' || *p == '.'; p++) {
		zero_digit |= *p == '0';
		dots += *p == '.';
	}
	if (allow_zero && zero_digit && dots <= 1 &&
	    !isdigit((unsigned char)*p) &&
	    strlen(p) < sizeof(one) - 1) {
		/* the unit must still be a rate unit: "1" + unit parses */
		snprintf(one, sizeof(one), "1%s", p);
		if (parse_rate_bps(one, 0, out, NULL, 0) == 0) {
			*out = 0;
			return 0;
		}
	}
	if (parse_rate_bps(s, 0, out, err, errlen) < 0) {
		if (allow_zero) {
			size_t n = strlen(err);

			/* the accepted list ends with ')': add 0 before it */
			if (n > 0 && err[n - 1] == ')' && n + 16 < errlen)
				snprintf(err + n - 1, errlen - n + 1,
					 "; or 0)");
		}
		return -1;
	}
	if (*out > EFGEN_RATE_MAX_BPS) {
		snprintf(err, errlen, "'%.*s' is above 2^53 bit/s (accepted: "
			 "at most 9007199254740992 bit/s)", VAL_MAX, s);
		return -1;
	}
	return 0;
}

/* A duration in (0 or 1) .. max_s seconds.  0 or -1 with the message. */
static int parse_dur(const char *s, int allow_zero, uint64_t max_s,
		     uint64_t *out_ns, char *err, size_t errlen)
{
	if (parse_duration_ns(s, out_ns, err, errlen) < 0)
		return -1;
	if ((*out_ns == 0 && !allow_zero) || *out_ns > max_s * NS_PER_SEC) {
		snprintf(err, errlen, "'%.*s' is out of range (accepted: a "
			 "duration %s 0 and at most %llu s)", VAL_MAX, s,
			 allow_zero ? ">=" : ">", (unsigned long long)max_s);
		return -1;
	}
	return 0;
}

/* A plain decimal number in [0, 1] (no hex, inf or nan).  0 or -1. */
static int parse_amplitude(const char *s, double *out, char *err,
			   size_t errlen)
{
	const char *p;
	char *end;
	double v;

	for (p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr(".eE+-", *p))
			break;
	errno = 0;
	v = *s && !*p ? strtod(s, &end) : NAN;
	if (isnan(v) || errno || *end || v < 0.0 || v > 1.0) {
		snprintf(err, errlen, "'%.*s' is not a number in [0, 1] "
			 "(accepted: 0 <= AMPLITUDE <= 1, e.g. 0.6)",
			 VAL_MAX, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* ---- trace points ------------------------------------------------------ */

/* Appends (t_ns, rate_bps) to the trace c, growing pts (*cap).  Its
 * cumulative bits are S(t_ns) of the points so far.  0 or -1 (ENOMEM). */
static int add_point(struct link_profile *c, uint32_t *cap, tstamp_ns t_ns,
		     uint64_t rate_bps)
{
	struct trace_pt *pt;

	if (c->npts == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 16;
		struct trace_pt *np = realloc(c->pts, sizeof(*np) * ncap);

		if (!np)
			return -1;
		c->pts = np;
		*cap = ncap;
	}
	pt = &c->pts[c->npts];
	pt->t_ns = t_ns;
	pt->rate_bps = rate_bps;
	pt->cum_bits = c->npts ? link_service_bits(c, t_ns) : 0.0;
	c->npts++;
	return 0;
}

/* ---- csv --------------------------------------------------------------- */

/* Cuts a '#' comment and surrounding blanks off line, in place. */
static char *strip(char *line)
{
	char *e, *h = strchr(line, '#');

	if (h)
		*h = '\0';
	while (isspace((unsigned char)*line))
		line++;
	e = line + strlen(line);
	while (e > line && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return line;
}

#define CSV_ACC_LINE "lines \"t_s,rate\", '#' comments, blank lines"

/* One data line "t_s,rate" of file:lineno into c.  prev_ns: the previous
 * time (ignored for the first point).  0 or -1 with the message. */
static int csv_line(char *line, const char *path, unsigned lineno,
		    struct link_profile *c, uint32_t *cap, char *err,
		    size_t errlen)
{
	char *comma = strchr(line, ','), *ts, *rs, msg[512];
	uint64_t t_ns, rate;

	if (!comma || strchr(comma + 1, ',')) {
		snprintf(err, errlen, "%s:%u: expected t_s,rate, got '%.*s' "
			 "(accepted: " CSV_ACC_LINE ")", path, lineno, VAL_MAX,
			 line);
		return -1;
	}
	*comma = '\0';
	ts = strip(line);
	rs = strip(comma + 1);
	if (parse_dur(ts, 1, TIME_MAX_S, &t_ns, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "%s:%u: t_s: %s", path, lineno, msg);
		return -1;
	}
	if (parse_rate0(rs, 1, &rate, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "%s:%u: rate: %s", path, lineno, msg);
		return -1;
	}
	if (c->npts == 0 && t_ns != 0) {
		snprintf(err, errlen, "%s:%u: first t_s '%.*s' is not 0 "
			 "(accepted: a profile starting at t_s 0)", path,
			 lineno, VAL_MAX, ts);
		return -1;
	}
	if (c->npts > 0 && t_ns <= c->pts[c->npts - 1].t_ns) {
		snprintf(err, errlen, "%s:%u: t_s '%.*s' does not increase "
			 "(accepted: t_s strictly increasing)", path, lineno,
			 VAL_MAX, ts);
		return -1;
	}
	if (c->npts == EFGEN_CSV_MAX_POINTS) {
		snprintf(err, errlen, "%s:%u: too many lines (accepted: at "
			 "most %u points)", path, lineno, EFGEN_CSV_MAX_POINTS);
		return -1;
	}
	if (add_point(c, cap, t_ns, rate) < 0) {
		snprintf(err, errlen, "%s:%u: out of memory", path, lineno);
		return -1;
	}
	return 0;
}

int efgen_csv_load(const char *path, struct efgen_profile *p,
		   char *err, size_t errlen)
{
	struct link_profile c;
	uint32_t cap = 0;
	unsigned lineno = 0;
	char *buf = NULL, *line;
	size_t bufcap = 0;
	FILE *f = fopen(path, "r");
	int rc = -1, header_ok = 1;

	memset(&c, 0, sizeof(c));
	c.kind = LINK_TRACE;
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s (accepted: a "
			 "readable file of " CSV_ACC_LINE ")", path,
			 strerror(errno));
		return -1;
	}
	while (getline(&buf, &bufcap, f) >= 0) {
		lineno++;
		line = strip(buf);
		if (!*line)
			continue;
		if (header_ok && isalpha((unsigned char)*line) &&
		    (!strcasecmp(line, "t_s,rate") ||
		     !strcasecmp(line, "t_s, rate"))) {
			header_ok = 0;
			continue;
		}
		header_ok = 0;
		if (csv_line(line, path, lineno, &c, &cap, err, errlen) < 0)
			goto out;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s:%u: read error: %s", path,
			 lineno + 1, strerror(errno));
		goto out;
	}
	if (c.npts == 0) {
		snprintf(err, errlen, "%s:%u: no data line (accepted: at least "
			 "one line t_s,rate, the first at t_s 0)", path,
			 lineno ? lineno : 1);
		goto out;
	}
	snprintf(c.source, sizeof(c.source), "%s", path);
	p->kind = EFGEN_CSV;
	p->curve = c;
	c.pts = NULL;
	rc = 0;
out:
	free(c.pts);
	free(buf);
	fclose(f);
	return rc;
}

/* ---- spec -------------------------------------------------------------- */

/* Splits s (a copy) at ':' into at most max fields.  The field count. */
static int split(char *s, char **f, int max)
{
	int n = 0;

	f[n++] = s;
	for (; *s; s++) {
		if (*s != ':')
			continue;
		if (n == max)
			return max + 1;
		*s = '\0';
		f[n++] = s + 1;
	}
	return n;
}

/* Prefixes err's message with "NAME: " (the field that failed). */
static int field_err(const char *name, char *err, size_t errlen)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), "%s", err);
	snprintf(err, errlen, "%s: %s", name, msg);
	return -1;
}

static int parse_cosine(char **f, struct efgen_profile *p, char *err,
			size_t errlen)
{
	struct link_profile *c = &p->curve;
	uint64_t per_ns;

	if (parse_rate0(f[0], 0, &c->mean_bps, err, errlen) < 0)
		return field_err("AVG", err, errlen);
	if (parse_amplitude(f[1], &c->amplitude, err, errlen) < 0)
		return field_err("AMPLITUDE", err, errlen);
	if (parse_dur(f[2], 0, PERIOD_MAX_S, &per_ns, err, errlen) < 0)
		return field_err("PERIOD", err, errlen);
	c->kind = LINK_COSINE;
	c->period_s = (double)per_ns / (double)NS_PER_SEC;
	p->kind = EFGEN_COSINE;
	return 0;
}

static int parse_step(char **f, struct efgen_profile *p, char *err,
		      size_t errlen)
{
	struct link_profile *c = &p->curve;
	uint64_t r1, r2, t_ns;
	uint32_t cap = 0;

	if (parse_rate0(f[0], 1, &r1, err, errlen) < 0)
		return field_err("R1", err, errlen);
	if (parse_dur(f[1], 1, TIME_MAX_S, &t_ns, err, errlen) < 0)
		return field_err("T", err, errlen);
	if (parse_rate0(f[2], 1, &r2, err, errlen) < 0)
		return field_err("R2", err, errlen);
	c->kind = LINK_TRACE;
	if ((t_ns > 0 && add_point(c, &cap, 0, r1) < 0) ||
	    add_point(c, &cap, t_ns, r2) < 0) {
		free(c->pts);
		memset(c, 0, sizeof(*c));
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->kind = EFGEN_STEP;
	return 0;
}

/* efgen_profile_parse() but for clearing p on failure: a field parsed
 * before the one that failed is left in it. */
static int profile_parse(const char *spec, struct efgen_profile *p,
			 char *err, size_t errlen)
{
	static const struct {
		const char *prefix, *form;
		int nfields;
		int (*parse)(char **f, struct efgen_profile *p, char *err,
			     size_t errlen);
	} forms[] = {
		{ "cosine:", "cosine:AVG:AMPLITUDE:PERIOD", 3, parse_cosine },
		{ "step:",   "step:R1:T:R2",                3, parse_step },
	};
	char buf[SPEC_MAX], *f[4];
	size_t i;
	int n;

	memset(p, 0, sizeof(*p));
	if (!strncasecmp(spec, "csv:", 4)) {
		if (!spec[4]) {
			snprintf(err, errlen, "no FILE after 'csv:' (accepted: "
				 "csv:FILE)");
			return -1;
		}
		return efgen_csv_load(spec + 4, p, err, errlen);
	}
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t pl = strlen(forms[i].prefix);

		if (strncasecmp(spec, forms[i].prefix, pl))
			continue;
		if (strlen(spec + pl) >= sizeof(buf)) {
			snprintf(err, errlen, "too long (accepted: %s, at most "
				 "%d characters)", forms[i].form, SPEC_MAX - 1);
			return -1;
		}
		snprintf(buf, sizeof(buf), "%s", spec + pl);
		n = split(buf, f, 3);
		if (n != forms[i].nfields) {
			snprintf(err, errlen, "%s fields after '%.*s' "
				 "(accepted: %s)", n < forms[i].nfields ?
				 "too few" : "too many", (int)pl - 1,
				 forms[i].prefix, forms[i].form);
			return -1;
		}
		return forms[i].parse(f, p, err, errlen);
	}
	if (strchr(spec, ':') ||
	    parse_rate0(spec, 0, &p->curve.rate_bps, err, errlen) < 0) {
		snprintf(err, errlen, "neither a rate nor a profile (accepted: "
			 EFGEN_SPEC_ACCEPTED ")");
		return -1;
	}
	p->curve.kind = LINK_CONSTANT;
	p->kind = EFGEN_CONSTANT;
	return 0;
}

int efgen_profile_parse(const char *spec, struct efgen_profile *p,
			char *err, size_t errlen)
{
	/* A refused SPEC leaves no partial profile behind (e.g. the AVG of
	 * a cosine whose AMPLITUDE failed, or a rate above 2^53): nothing
	 * is allocated by then (the csv and step paths free what they
	 * made), so zeroing is all it takes. */
	if (profile_parse(spec, p, err, errlen) < 0) {
		memset(p, 0, sizeof(*p));
		return -1;
	}
	return 0;
}

void efgen_profile_free(struct efgen_profile *p)
{
	link_profile_free(&p->curve);
}

double efgen_bits(const struct efgen_profile *p, tstamp_ns t_ns)
{
	return link_service_bits(&p->curve, t_ns);
}

/* Packet 0 waits for the first instant the rate is above 0, so that a
 * profile starting silent sends nothing while it is.  Only step and csv
 * profiles (traces) can start at 0. */
static tstamp_ns first_due_ns(const struct efgen_profile *p)
{
	uint32_t i;

	if (p->curve.kind != LINK_TRACE)
		return 0;
	for (i = 0; i < p->curve.npts; i++)
		if (p->curve.pts[i].rate_bps > 0)
			return p->curve.pts[i].t_ns;
	return TS_NEVER;
}

tstamp_ns efgen_due_ns(const struct efgen_profile *p, uint64_t k,
		       uint32_t size_bytes, tstamp_ns hint_ns)
{
	double bits = (double)k * (double)size_bytes * 8.0;

	if (k == 0)
		return first_due_ns(p);
	return link_time_for_bits(&p->curve, bits, hint_ns);
}

/* ---- run --------------------------------------------------------------- */

void efgen_run_init(struct efgen_run *r, const struct efgen_profile *p,
		    uint32_t size_bytes, tstamp_ns duration_ns,
		    tstamp_ns interval_ns)
{
	memset(r, 0, sizeof(*r));
	r->prof = p;
	r->size_bytes = size_bytes;
	r->end_ns = duration_ns;
	r->interval_ns = interval_ns;
	r->next_due_ns = efgen_due_ns(p, 0, size_bytes, 0);
}

/* Reports [ival_start, to) and opens the next interval at `to`. */
static void report(struct efgen_run *r, tstamp_ns to,
		   const struct efgen_io *io)
{
	struct efgen_interval iv;
	double len_s = (double)(to - r->ival_start_ns) / (double)NS_PER_SEC;

	iv.t_s = (double)to / (double)NS_PER_SEC;
	iv.target_bps = (efgen_bits(r->prof, to) -
			 efgen_bits(r->prof, r->ival_start_ns)) / len_s;
	iv.sent_bps = (double)r->ival_pkts * r->size_bytes * 8.0 / len_s;
	iv.sent_pkts = r->ival_pkts;
	iv.send_errors = r->ival_errors;
	io->report(io->ctx, &iv);
	r->ival_start_ns = to;
	r->ival_pkts = 0;
	r->ival_errors = 0;
}

/* Reports every full interval ending at or before t. */
static void close_intervals(struct efgen_run *r, tstamp_ns t,
			    const struct efgen_io *io)
{
	while (r->ival_start_ns + r->interval_ns <= t)
		report(r, r->ival_start_ns + r->interval_ns, io);
}

/* Sends every packet due at or before t and before the end. */
static void send_due(struct efgen_run *r, tstamp_ns t,
		     const struct efgen_io *io)
{
	while (r->next_due_ns <= t && r->next_due_ns < r->end_ns) {
		if (io->send(io->ctx, r->next_seq) == 0) {
			r->ival_pkts++;
			r->sent_pkts++;
		} else {
			r->ival_errors++;
			r->send_errors++;
		}
		r->next_seq++;
		r->next_due_ns = efgen_due_ns(r->prof, r->next_seq,
					      r->size_bytes, r->next_due_ns);
	}
}

tstamp_ns efgen_run_step(struct efgen_run *r, tstamp_ns now_ns,
			 const struct efgen_io *io)
{
	tstamp_ns wake;

	if (r->done)
		return TS_NEVER;
	if (now_ns < r->end_ns) {
		close_intervals(r, now_ns, io);
		send_due(r, now_ns, io);
		wake = r->ival_start_ns + r->interval_ns;
		if (r->next_due_ns < wake)
			wake = r->next_due_ns;
		return wake < r->end_ns ? wake : r->end_ns;
	}
	/* the end: what was due before it, counted in the open interval */
	send_due(r, r->end_ns, io);
	close_intervals(r, r->end_ns, io);
	if (r->ival_start_ns < r->end_ns)
		report(r, r->end_ns, io);
	r->done = 1;
	return TS_NEVER;
}

void efgen_run_stop(struct efgen_run *r, tstamp_ns now_ns,
		    const struct efgen_io *io)
{
	if (!r->done && now_ns < r->end_ns)
		r->end_ns = now_ns;
	efgen_run_step(r, now_ns, io);
}

void efgen_run_summary(const struct efgen_run *r, struct efgen_summary *s)
{
	s->duration_s = (double)r->end_ns / (double)NS_PER_SEC;
	s->sent_pkts = r->sent_pkts;
	s->sent_bytes = r->sent_pkts * r->size_bytes;
	s->target_bits = efgen_bits(r->prof, r->end_ns);
	s->sent_bits = (double)s->sent_bytes * 8.0;
	s->error_pct = s->target_bits > 0.0 ?
		100.0 * (s->sent_bits - s->target_bits) / s->target_bits : 0.0;
	s->send_errors = r->send_errors;
}

/* ---- payload ----------------------------------------------------------- */

void efgen_payload_write(uint8_t *buf, size_t len, uint64_t seq,
			 uint64_t real_ns)
{
	be64_put(buf, seq);
	be64_put(buf + 8, real_ns);
	memset(buf + EFGEN_PAYLOAD_MIN_BYTES, 0,
	       len - EFGEN_PAYLOAD_MIN_BYTES);
}

int efgen_payload_read(const uint8_t *buf, size_t len, uint64_t *seq,
		       uint64_t *real_ns)
{
	if (len < EFGEN_PAYLOAD_MIN_BYTES)
		return -1;
	*seq = be64_get(buf);
	*real_ns = be64_get(buf + 8);
	return 0;
}
