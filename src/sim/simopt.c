/* simopt.c - schedtun-sim's own option values (simopt.h): the run's
 * durations and the pieces of the source SPECs, declared once in key
 * tables and parsed by the value layer, so that ranges, units and
 * messages are the configuration file's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "sim/simopt.h"
#include "util/tstamp.h"
#include "util/units.h"

#define SPEC_PARTS_MAX 8                /* pareto and its seven pieces */
#define SPEC_TEXT_MAX  256

static const struct cfg_key run_keys[] = {
	{ .name = "duration", .type = CFG_T_DURATION, .min = 1,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct sim_config, duration_ns) },
	{ .name = "warmup", .type = CFG_T_DURATION, .min = 0,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct sim_config, warmup_ns) },
	{ .name = "sample", .type = CFG_T_DURATION, .min = 0,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct sim_config, sample_ns) },
	/* the value layer reads integers as int64 */
	{ .name = "seed", .type = CFG_T_UINT, .min = 0, .max = INT64_MAX,
	  .accepted = "an integer 0..9223372036854775807",
	  CFG_FIELD(struct sim_config, seed) },
	{ .name = NULL },
};

/* What a SPEC's pieces are parsed into. */
struct spec_vals {
	struct sim_source src;
	uint64_t period_ns;             /* PERIOD, then src.period_s */
};

_Static_assert(SIMOPT_BACKLOG_MAX == 1000000u, "BACKLOG_PKTS' accepted text");

/* The pieces, named as the usage text names them. */
static const struct cfg_key spec_keys[] = {
	{ .name = "PKT_BYTES", .type = CFG_T_BYTES,
	  .min = SIMOPT_PKT_MIN_BYTES, .max = SIMOPT_PKT_MAX_BYTES,
	  CFG_FIELD(struct spec_vals, src.pkt_bytes) },
	{ .name = "BACKLOG_PKTS", .type = CFG_T_UINT, .min = 1,
	  .max = SIMOPT_BACKLOG_MAX, .accepted = "1..1000000 packets",
	  CFG_FIELD(struct spec_vals, src.backlog_pkts) },
	{ .name = "RATE", .type = CFG_T_RATE,
	  CFG_FIELD(struct spec_vals, src.rate_bps) },
	{ .name = "AMPLITUDE", .type = CFG_T_NUMBER, .lo = 0.0, .hi = 1.0,
	  .flags = CFG_F_HI_OPEN, CFG_FIELD(struct spec_vals, src.amplitude) },
	{ .name = "PERIOD", .type = CFG_T_DURATION, .min = 1,
	  .max = SIMOPT_PERIOD_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct spec_vals, period_ns) },
	{ .name = "N", .type = CFG_T_UINT, .min = 1, .max = SIM_CLASS_FLOWS_MAX,
	  .accepted = "1..50000 flows", CFG_FIELD(struct spec_vals, src.flows) },
	{ .name = "PEAK", .type = CFG_T_RATE,
	  CFG_FIELD(struct spec_vals, src.peak_bps) },
	{ .name = "ON", .type = CFG_T_DURATION, .min = 1,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct spec_vals, src.on_ns) },
	{ .name = "OFF", .type = CFG_T_DURATION, .min = 1,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct spec_vals, src.off_ns) },
	{ .name = "ALPHA", .type = CFG_T_NUMBER, .lo = 1.0, .hi = 100.0,
	  .flags = CFG_F_LO_OPEN, CFG_FIELD(struct spec_vals, src.alpha) },
	{ .name = "MEAN_SIZE", .type = CFG_T_BYTES, .min = 1,
	  .max = SIMOPT_MEAN_SIZE_MAX_BYTES,
	  CFG_FIELD(struct spec_vals, src.mean_bytes) },
	{ .name = "ARRIVALS", .type = CFG_T_NUMBER, .lo = 0.0, .hi = 1e6,
	  .flags = CFG_F_LO_OPEN,
	  .accepted = "0 < ARRIVALS <= 1000000 flows/s",
	  CFG_FIELD(struct spec_vals, src.arrivals_per_s) },
	{ .name = "FLOW_RATE", .type = CFG_T_RATE, .flags = CFG_F_UNLIMITED,
	  CFG_FIELD(struct spec_vals, src.peak_bps) },
	{ .name = "ARRIVAL_ALPHA", .type = CFG_T_NUMBER, .lo = 1.0,
	  .hi = 100.0, .flags = CFG_F_LO_OPEN,
	  CFG_FIELD(struct spec_vals, src.arrival_alpha) },
	{ .name = "THINK", .type = CFG_T_DURATION, .min = 1,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct spec_vals, src.off_ns) },
	{ .name = "ACCESS_RATE", .type = CFG_T_RATE,
	  CFG_FIELD(struct spec_vals, src.peak_bps) },
	{ .name = "MAX_SIZE", .type = CFG_T_BYTES, .min = 1,
	  .max = SIMOPT_MEAN_SIZE_MAX_BYTES,
	  CFG_FIELD(struct spec_vals, src.max_bytes) },
	{ .name = "RTT", .type = CFG_T_DURATION, .min = 1,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct spec_vals, src.rtt_ns) },
	{ .name = "PROFILE", .type = CFG_T_RATE,
	  CFG_FIELD(struct spec_vals, src.profile_bps) },
	{ .name = "RTT_MAX", .type = CFG_T_DURATION, .min = 0,
	  .max = SIMOPT_DURATION_MAX_S * NS_PER_SEC,
	  CFG_FIELD(struct spec_vals, src.rtt_max_ns) },
	{ .name = NULL },
};

/* A source kind: its name, and the pieces that may follow it in order. */
struct spec_kind {
	const char       *name;
	enum sim_src_kind kind;
	int               min_parts, max_parts;  /* with the name */
	int               refused_parts;         /* a count it refuses (cbr:
						  * AMPLITUDE without PERIOD) */
	const char       *piece[SPEC_PARTS_MAX - 1];
};

static const struct spec_kind spec_kinds[] = {
	{ "none",   SIM_SRC_NONE,   1, 1, 0, { NULL } },
	{ "greedy", SIM_SRC_GREEDY, 1, 3, 0, { "PKT_BYTES", "BACKLOG_PKTS" } },
	{ "cbr",    SIM_SRC_CBR,    2, 5, 4,
	  { "RATE", "PKT_BYTES", "AMPLITUDE", "PERIOD" } },
	{ "onoff",  SIM_SRC_ONOFF,  4, 5, 0,
	  { "PEAK", "ON", "OFF", "PKT_BYTES" } },
	{ "pareto", SIM_SRC_PARETO, 4, 8, 0,
	  { "ALPHA", "MEAN_SIZE", "ARRIVALS", "FLOW_RATE", "PKT_BYTES",
	    "ARRIVAL_ALPHA", "MAX_SIZE" } },
	{ "tfrc",   SIM_SRC_TFRC,   3, 6, 0,
	  { "RATE", "RTT", "PKT_BYTES", "PROFILE", "RTT_MAX" } },
	{ "web",    SIM_SRC_WEB,    5, 6, 0,
	  { "ALPHA", "MEAN_SIZE", "THINK", "ACCESS_RATE", "PKT_BYTES" } },
};

/* See simopt.h. */
int simopt_set_run(struct sim_config *sc, const char *name, const char *text,
		   char *err, size_t errlen)
{
	char msg[512];

	if (cfg_set_key(run_keys, sc, name, text, msg, sizeof(msg)) == 0)
		return 0;
	snprintf(err, errlen, "--%s: %s", name, msg);
	return -1;
}

/* See simopt.h. */
int simopt_check_run(const struct sim_config *sc, int has_stats, char *err,
		     size_t errlen)
{
	char w[32], d[32];

	if (sc->warmup_ns >= sc->duration_ns) {
		snprintf(err, errlen, "--warmup: '%s' is not shorter than "
			 "--duration %s (accepted: 0 <= warmup < duration)",
			 fmt_duration(sc->warmup_ns, w, sizeof(w)),
			 fmt_duration(sc->duration_ns, d, sizeof(d)));
		return -1;
	}
	if (has_stats && sc->sample_ns == 0) {
		snprintf(err, errlen, "--stats needs a sample interval "
			 "(accepted: --sample D with D > 0)");
		return -1;
	}
	return 0;
}

/* Splits buf at every ':' (empty pieces kept: "cbr::1400" has an empty
 * RATE) into part[].  Returns the count, or -1 above SPEC_PARTS_MAX. */
static int split_spec(char *buf, char *part[SPEC_PARTS_MAX])
{
	int n = 0;

	for (;;) {
		char *colon = strchr(buf, ':');

		if (n == SPEC_PARTS_MAX)
			return -1;
		part[n++] = buf;
		if (!colon)
			return n;
		*colon = '\0';
		buf = colon + 1;
	}
}

/* The kind named part[0] that takes n parts, or NULL. */
static const struct spec_kind *spec_kind_of(const char *name, int n)
{
	size_t i;

	for (i = 0; i < sizeof(spec_kinds) / sizeof(spec_kinds[0]); i++) {
		const struct spec_kind *k = &spec_kinds[i];

		if (strcmp(name, k->name) == 0)
			return n >= k->min_parts && n <= k->max_parts &&
			       n != k->refused_parts ? k : NULL;
	}
	return NULL;
}

/* See simopt.h. */
int simopt_source(const char *opt, const char *spec, struct sim_source *src,
		  char *err, size_t errlen)
{
	char buf[SPEC_TEXT_MAX], msg[512], *part[SPEC_PARTS_MAX], *star;
	const struct spec_kind *k = NULL;
	struct spec_vals v;
	int n = -1, i;

	memset(&v, 0, sizeof(v));
	if (strlen(spec) < sizeof(buf)) {
		memcpy(buf, spec, strlen(spec) + 1);
		n = split_spec(buf, part);
	}
	/* N*KIND: N flows (the '*' in the kind's piece) */
	star = n > 0 ? strchr(part[0], '*') : NULL;
	if (star) {
		*star = '\0';
		if (cfg_set_key(spec_keys, &v, "N", part[0], msg,
				sizeof(msg)) < 0) {
			snprintf(err, errlen, "%s '%s': N: %s", opt, spec, msg);
			return -1;
		}
		part[0] = star + 1;
	}
	if (n > 0)
		k = spec_kind_of(part[0], n);
	if (k && star && k->kind == SIM_SRC_NONE)
		k = NULL;
	if (!k) {
		snprintf(err, errlen, "%s '%s' is not a source (accepted: "
			 SIMOPT_SPEC_ACCEPTED ")", opt, spec);
		return -1;
	}
	v.src.kind = k->kind;
	for (i = 1; i < n; i++) {
		/* an empty optional piece keeps its default, so that a later
		 * one can be given ("pareto:...:1000::1000000"); but not
		 * the last piece of a kind that refuses a count (cbr's
		 * PERIOD, which AMPLITUDE needs: empty, it would leave the
		 * period 0 for the simulator to refuse far from here) */
		if ((i >= k->min_parts && !*part[i] &&
		     !(k->refused_parts && i == k->max_parts - 1)) ||
		    /* tfrc's PROFILE "none": no conforming part, RTT_MAX may
		     * follow */
		    (strcmp(k->piece[i - 1], "PROFILE") == 0 &&
		     strcmp(part[i], "none") == 0))
			continue;
		if (cfg_set_key(spec_keys, &v, k->piece[i - 1], part[i], msg,
				sizeof(msg)) < 0) {
			snprintf(err, errlen, "%s '%s': %s: %s", opt, spec,
				 k->piece[i - 1], msg);
			return -1;
		}
	}
	v.src.period_s = (double)v.period_ns / 1e9;
	if (v.src.kind == SIM_SRC_PARETO && v.src.peak_bps == RATE_UNLIMITED)
		v.src.peak_bps = 0;             /* greedy */
	*src = v.src;
	return 0;
}
