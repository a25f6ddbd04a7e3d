/* fuzz_simspec.c - target 9: the source SPEC of schedtun-sim's --ef, --af
 * and --cs0 through the real simopt_source() (src/sim/simopt.c).
 *
 * Input: byte 0 modulo 3 picks the option (--ef, --af, --cs0); the rest,
 * cut at the first NUL, is the SPEC.
 *
 * Oracles, from the grammar of simopt.h (SIMOPT_SPEC_ACCEPTED) written
 * again here as a table (kinds[]): a refusal is -1 with a message that
 * starts "OPT 'SPEC'" and says what is accepted, and leaves *src as it
 * was (no partial state).  An acceptance is 0 with the kind named by the
 * SPEC (after an optional "N*"), a piece count that kind takes (counted
 * here: cbr never with AMPLITUDE and no PERIOD), every value in the
 * range the grammar and simopt.h give (PKT_BYTES 28..9000 or 0, N
 * 1..50000 or 0, 0 <= AMPLITUDE < 1, PERIOD up to 86400 s, ALPHA in
 * (1, 100], ...), its required values set, and no field of another kind
 * set.  The accepted source written back as a canonical SPEC (exact
 * units: bytes, bit/s, ns, %.17g; defaults as empty pieces) is accepted
 * too and gives the same source field by field.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sim/simopt.h"
#include "util/units.h"
#include "fuzz_common.h"

#define MAX_S ((uint64_t)SIMOPT_DURATION_MAX_S * NS_PER_SEC)

/* A piece: how it is written back, and which field it fills. */
enum piece { P_PKT, P_BACKLOG, P_RATE, P_AMP, P_PERIOD, P_PEAK, P_ON,
	     P_OFF, P_ALPHA, P_MEAN, P_ARRIVALS, P_FLOWRATE, P_AALPHA,
	     P_THINK, P_ACCESS, P_MAXSIZE, P_RTT, P_PROFILE, P_RTTMAX,
	     P_END };

static const struct {
	const char       *name;
	enum sim_src_kind kind;
	int               required;     /* pieces after the name */
	enum piece        piece[7];     /* P_END-terminated */
} kinds[] = {
	{ "none",   SIM_SRC_NONE,   0, { P_END } },
	{ "greedy", SIM_SRC_GREEDY, 0, { P_PKT, P_BACKLOG, P_END } },
	{ "cbr",    SIM_SRC_CBR,    1, { P_RATE, P_PKT, P_AMP, P_PERIOD, P_END } },
	{ "onoff",  SIM_SRC_ONOFF,  3, { P_PEAK, P_ON, P_OFF, P_PKT, P_END } },
	{ "pareto", SIM_SRC_PARETO, 3, { P_ALPHA, P_MEAN, P_ARRIVALS,
					 P_FLOWRATE, P_PKT, P_AALPHA,
					 P_MAXSIZE } },
	{ "tfrc",   SIM_SRC_TFRC,   2, { P_RATE, P_RTT, P_PKT, P_PROFILE,
					 P_RTTMAX, P_END } },
	{ "web",    SIM_SRC_WEB,    4, { P_ALPHA, P_MEAN, P_THINK, P_ACCESS,
					 P_PKT, P_END } },
};
#define NKINDS (int)(sizeof(kinds) / sizeof(kinds[0]))

static int npieces(int k)
{
	int n = 0;

	while (n < 7 && kinds[k].piece[n] != P_END)
		n++;
	return n;
}

/* The kind index of a SPEC's first piece (after "N*"), or -1. */
static int kind_of(const char *spec, int *pieces)
{
	const char *colon = strchr(spec, ':'), *star = strchr(spec, '*');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *name = spec;
	int k;

	if (star && (!colon || star < colon)) {
		len -= (size_t)(star + 1 - spec);
		name = star + 1;
	}
	for (*pieces = 0; (colon = strchr(spec, ':')); spec = colon + 1)
		++*pieces;
	for (k = 0; k < NKINDS; k++)
		if (strlen(kinds[k].name) == len &&
		    !strncmp(kinds[k].name, name, len))
			return k;
	return -1;
}

/* Where a piece lands in struct sim_source and how it is written. */
enum form { F_U32, F_U64, F_NS, F_DBL, F_PERIOD };

#define AT(field, form) { offsetof(struct sim_source, field), form }
static const struct {
	size_t    off;
	enum form form;
} where[P_END] = {
	[P_PKT] = AT(pkt_bytes, F_U32),       [P_BACKLOG] = AT(backlog_pkts, F_U32),
	[P_RATE] = AT(rate_bps, F_U64),       [P_AMP] = AT(amplitude, F_DBL),
	[P_PERIOD] = AT(period_s, F_PERIOD),  [P_PEAK] = AT(peak_bps, F_U64),
	[P_ON] = AT(on_ns, F_NS),             [P_OFF] = AT(off_ns, F_NS),
	[P_ALPHA] = AT(alpha, F_DBL),         [P_MEAN] = AT(mean_bytes, F_U64),
	[P_ARRIVALS] = AT(arrivals_per_s, F_DBL),
	[P_FLOWRATE] = AT(peak_bps, F_U64),   [P_AALPHA] = AT(arrival_alpha, F_DBL),
	[P_THINK] = AT(off_ns, F_NS),         [P_ACCESS] = AT(peak_bps, F_U64),
	[P_MAXSIZE] = AT(max_bytes, F_U64),   [P_RTT] = AT(rtt_ns, F_NS),
	[P_PROFILE] = AT(profile_bps, F_U64), [P_RTTMAX] = AT(rtt_max_ns, F_NS),
};

static size_t form_size(enum form f)
{
	return f == F_U32 ? sizeof(uint32_t) : 8;       /* uint64_t, double */
}

/* The ranges; the kind's required values set, no other kind's. */
static void check_source(const struct sim_source *s, int k, const char *spec)
{
	static const uint8_t zero[8];
	struct sim_source z;
	int i;

	FZ_CHECK(s->pkt_bytes == 0 || (s->pkt_bytes >= SIMOPT_PKT_MIN_BYTES &&
		 s->pkt_bytes <= SIMOPT_PKT_MAX_BYTES), "'%s': PKT_BYTES %u",
		 spec, s->pkt_bytes);
	FZ_CHECK(s->flows <= SIM_CLASS_FLOWS_MAX, "'%s': N %u", spec, s->flows);
	FZ_CHECK(s->backlog_pkts <= SIMOPT_BACKLOG_MAX, "'%s': backlog %u",
		 spec, s->backlog_pkts);
	FZ_CHECK(s->amplitude >= 0 && s->amplitude < 1 && s->period_s >= 0 &&
		 s->period_s <= SIMOPT_PERIOD_MAX_S, "'%s': amplitude %g period %g",
		 spec, s->amplitude, s->period_s);
	FZ_CHECK(s->on_ns <= MAX_S && s->off_ns <= MAX_S && s->rtt_ns <= MAX_S &&
		 s->rtt_max_ns <= MAX_S, "'%s': a duration above %u s", spec,
		 SIMOPT_DURATION_MAX_S);
	FZ_CHECK(s->alpha == 0 || (s->alpha > 1 && s->alpha <= 100),
		 "'%s': ALPHA %g", spec, s->alpha);
	FZ_CHECK(s->arrival_alpha == 0 || (s->arrival_alpha > 1 &&
		 s->arrival_alpha <= 100), "'%s': ARRIVAL_ALPHA %g", spec,
		 s->arrival_alpha);
	FZ_CHECK(s->arrivals_per_s >= 0 && s->arrivals_per_s <= 1e6,
		 "'%s': ARRIVALS %g", spec, s->arrivals_per_s);
	FZ_CHECK(s->mean_bytes <= SIMOPT_MEAN_SIZE_MAX_BYTES &&
		 s->max_bytes <= SIMOPT_MEAN_SIZE_MAX_BYTES, "'%s': sizes", spec);
	FZ_CHECK(s->rate_bps != RATE_UNLIMITED && s->peak_bps != RATE_UNLIMITED &&
		 s->profile_bps != RATE_UNLIMITED, "'%s': unlimited left", spec);
	/* The source as only this kind's pieces (and N) would make it. */
	memset(&z, 0, sizeof(z));
	z.kind = kinds[k].kind;
	z.flows = s->flows;
	for (i = 0; i < npieces(k); i++) {
		enum piece p = kinds[k].piece[i];
		size_t off = where[p].off, n = form_size(where[p].form);

		FZ_CHECK(i >= kinds[k].required ||
			 memcmp((const char *)s + off, zero, n),
			 "'%s': required piece %d is 0", spec, i + 1);
		memcpy((char *)&z + off, (const char *)s + off, n);
	}
	FZ_CHECK(!memcmp(&z, s, sizeof(z)), "'%s': a field of another kind "
		 "is set", spec);
}

/* Appends ":VALUE" of piece p of s (empty: 0, the default) to buf. */
static void put_piece(char *buf, size_t len, enum piece p,
		      const struct sim_source *s)
{
	const char *f = (const char *)s + where[p].off;
	size_t n = strlen(buf);
	unsigned long long u = 0;
	uint32_t u32;
	uint64_t u64;
	double d;

	switch (where[p].form) {
	case F_U32:
		memcpy(&u32, f, sizeof(u32));
		u = u32;
		break;
	case F_DBL:
		memcpy(&d, f, sizeof(d));
		snprintf(buf + n, len - n, d != 0 ? ":%.17g" : ":", d);
		return;
	case F_PERIOD:
		memcpy(&d, f, sizeof(d));
		u = (unsigned long long)llround(d * 1e9);
		break;
	default:
		memcpy(&u64, f, sizeof(u64));
		u = u64;
	}
	if (!u)
		snprintf(buf + n, len - n, ":");
	else
		snprintf(buf + n, len - n, where[p].form == F_U32 ||
			 where[p].form == F_U64 ? ":%llu" : ":%lluns", u);
}

/* Field by field (doubles by value: -0 is 0). */
static int same_source(const struct sim_source *a, const struct sim_source *b)
{
	int p;
	double x, y;

	if (a->kind != b->kind || a->flows != b->flows || a->dscp != b->dscp)
		return 0;
	for (p = 0; p < P_END; p++) {
		const char *fa = (const char *)a + where[p].off;
		const char *fb = (const char *)b + where[p].off;

		if (where[p].form == F_DBL || where[p].form == F_PERIOD) {
			memcpy(&x, fa, sizeof(x));
			memcpy(&y, fb, sizeof(y));
			if (x != y)
				return 0;
		} else if (memcmp(fa, fb, form_size(where[p].form))) {
			return 0;
		}
	}
	return 1;
}

static void canonical(const struct sim_source *s, int k, int pieces,
		      char *buf, size_t len)
{
	int i, n = npieces(k);

	/* as many pieces as were given (cbr takes 1, 2 or 4), defaults
	 * written as empty pieces */
	if (pieces > n)
		pieces = n;
	buf[0] = '\0';
	if (s->flows)
		snprintf(buf, len, "%u*", s->flows);
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", kinds[k].name);
	for (i = 0; i < pieces; i++)
		put_piece(buf, len, kinds[k].piece[i], s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const opts[] = { "--ef", "--af", "--cs0" };
	char spec[1024], err[4096], prefix[1100], canon[512], err2[4096];
	struct sim_source src, sentinel, back;
	const char *opt;
	size_t n;
	int r, k, pieces;

	if (size < 1)
		return 0;
	opt = opts[data[0] % 3];
	n = size - 1 < sizeof(spec) - 1 ? size - 1 : sizeof(spec) - 1;
	memcpy(spec, data + 1, n);
	spec[n] = '\0';
	memset(&sentinel, 0x5a, sizeof(sentinel));
	src = sentinel;
	err[0] = '\0';
	r = simopt_source(opt, spec, &src, err, sizeof(err));
	snprintf(prefix, sizeof(prefix), "%s '%s'", opt, spec);
	if (r < 0) {
		FZ_CHECK(!strncmp(err, prefix, strlen(prefix)) &&
			 strstr(err + strlen(prefix), "(accepted: "),
			 "'%s' refused with '%s'", spec, err);
		FZ_CHECK(!memcmp(&src, &sentinel, sizeof(src)),
			 "'%s' refused, source changed", spec);
		return 0;
	}
	FZ_CHECK(r == 0, "'%s': returned %d", spec, r);
	k = kind_of(spec, &pieces);
	FZ_CHECK(k >= 0 && src.kind == kinds[k].kind, "'%s' accepted as kind "
		 "%d, named %d", spec, src.kind, k < 0 ? -1 : (int)kinds[k].kind);
	FZ_CHECK(pieces >= kinds[k].required && pieces <= npieces(k) &&
		 !(src.kind == SIM_SRC_CBR && pieces == 3) &&
		 !(src.kind == SIM_SRC_NONE && src.flows),
		 "'%s': %d pieces after %s", spec, pieces, kinds[k].name);
	check_source(&src, k, spec);
	canonical(&src, k, pieces, canon, sizeof(canon));
	err2[0] = '\0';
	FZ_CHECK(simopt_source(opt, canon, &back, err2, sizeof(err2)) == 0,
		 "'%s' accepted, its canonical '%s' refused: %s", spec, canon,
		 err2);
	FZ_CHECK(same_source(&back, &src), "'%s' and its canonical '%s' give "
		 "different sources", spec, canon);
	return 0;
}
