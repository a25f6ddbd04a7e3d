/* confmark.c - the `marker` section: the per-flow TSW marker of each class
 * (include/mark/marker.h, docs/marker.md).  Read after `classes`, because
 * where a re-marked packet goes is the class its new code point maps to.
 *
 *   marker = { seed = 1;
 *              ef = { committed = "267kbit"; peak = "0"; window = "1s";
 *                     flows = 1024; yellow_dscp = 10; red_dscp = 0; }; };
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libconfig.h>
#include "confmark.h"
#include "util/diag.h"
#include "util/jw.h"

#define XSTR(x)             STR(x)
#define STR(x)              #x
#define MARK_WINDOW_MIN_NS  (NS_PER_SEC / 1000)         /* 1 ms */
#define MARK_WINDOW_MAX_NS  (60 * NS_PER_SEC)
#define MARK_FLOWS_DEFAULT  1024u
#define MARK_SEED_DEFAULT   1u

/* One class's group, read into this and checked as a whole. */
struct mark_in {
	uint64_t committed_bps, peak_bps, window_ns, flows;
	uint64_t yellow_dscp, red_dscp;
};

const struct cfg_key marker_cls_keys[] = {
	{ .name = "committed", .type = CFG_T_RATE, .unit = "bit/s",
	  CFG_FIELD(struct mark_in, committed_bps),
	  .missing = "a rate such as \"267kbit\"",
	  .help = "CTR: each flow's committed rate; the packets above it are "
		  "re-marked (yellow)" },
	{ .name = "peak", .type = CFG_T_RATE, .unit = "bit/s",
	  CFG_FIELD(struct mark_in, peak_bps), .def = "0: two colours",
	  .help = "PTR (> committed): above it packets are red (RFC 2859's "
		  "three colours); 0: no red" },
	{ .name = "window", .type = CFG_T_DURATION, .min = MARK_WINDOW_MIN_NS,
	  .max = MARK_WINDOW_MAX_NS, CFG_FIELD(struct mark_in, window_ns),
	  .def = "1s",
	  .help = "AVG_INTERVAL, the rate estimator's memory (our default; "
		  "RFC 2859 leaves it to the operator)" },
	{ .name = "flows", .type = CFG_T_UINT, .min = 1, .max = MARKER_FLOWS_MAX,
	  CFG_FIELD(struct mark_in, flows), .def = XSTR(MARK_FLOWS_DEFAULT),
	  .unit = "flows",
	  .help = "meters allocated at start; beyond them new flows share one "
		  "meter (counted: shared)" },
	{ .name = "yellow_dscp", .type = CFG_T_UINT, .min = 0, .max = 63,
	  CFG_FIELD(struct mark_in, yellow_dscp),
	  .def = "the lowest code point of the next class down",
	  .help = "what a yellow packet is re-marked to; it joins that code "
		  "point's class, which must be below the marked one" },
	{ .name = "red_dscp", .type = CFG_T_UINT, .min = 0, .max = 63,
	  CFG_FIELD(struct mark_in, red_dscp), .needs = "peak",
	  .def = "the lowest code point of cs0",
	  .help = "what a red packet is re-marked to (a class at or below "
		  "yellow's)" },
	{ .name = NULL },
};

struct seed_in {
	uint64_t seed;
};

const struct cfg_key marker_keys[] = {
	{ .name = "seed", .type = CFG_T_UINT, .min = 0, .max = INT64_MAX,
	  CFG_FIELD(struct seed_in, seed), .def = XSTR(MARK_SEED_DEFAULT),
	  .help = "of the colour draws: a run repeats from its seed" },
	{ .name = "ef", .type = CFG_T_CUSTOM, .range = "a group (below)",
	  .sub = marker_cls_keys, .sub_name = "class",
	  .help = "meter and mark each EF flow (In-Time conforming -> excess)" },
	{ .name = "af", .type = CFG_T_CUSTOM, .range = "a group (below)",
	  .sub = marker_cls_keys, .sub_name = "class",
	  .help = "meter and mark each AF flow" },
	{ .name = NULL },
};

void conf_marker_defaults(struct marker_params *m)
{
	memset(m, 0, sizeof(*m));
	m->seed = MARK_SEED_DEFAULT;
}

/* The lowest code point mapped to the first class at or below `from` that
 * has one; 0xff when none has. */
static uint8_t lowest_dscp(const struct dscp_map *map, unsigned from)
{
	for (unsigned k = from; k < NCLASS; k++)
		for (unsigned cp = 0; cp < 64; cp++)
			if (map->cls_of[cp] == k)
				return (uint8_t)cp;
	return 0xff;
}

/* Reports at member `name` of g: its own line when it is given, else the
 * group's, naming the member. */
static void report_at(struct diag *d, const config_setting_t *g,
		      const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void report_at(struct diag *d, const config_setting_t *g,
		      const char *name, const char *fmt, ...)
{
	const config_setting_t *s = cfg_lookup(g, name);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s)
		cfg_report(d, s, NULL, "%s", msg);
	else
		cfg_report(d, g, name, "%s", msg);
}

static void parse_marker_cls(const config_setting_t *g, unsigned k,
			     const struct dscp_map *map,
			     struct marker_cls *out, struct diag *d)
{
	struct mark_in in = { .window_ns = NS_PER_SEC,
			      .flows = MARK_FLOWS_DEFAULT };
	uint8_t y, r;
	const char *why;

	in.yellow_dscp = lowest_dscp(map, k + 1);
	in.red_dscp = lowest_dscp(map, CLS_CS0);
	if (cfg_parse_keys(g, marker_cls_keys, &in, NULL, d))
		return;
	out->tsw.committed_bps = in.committed_bps;
	out->tsw.peak_bps = in.peak_bps;
	out->tsw.window_ns = in.window_ns;
	why = tsw_params_problem(&out->tsw);
	if (why) {
		report_at(d, g, in.committed_bps ? "peak" : "committed",
			  "%s (accepted: committed > 0, and peak 0 or above "
			  "committed)", why);
		return;
	}
	y = (uint8_t)in.yellow_dscp;
	r = (uint8_t)in.red_dscp;
	if (y > 63 || r > 63) {         /* only a default can be: no code point */
		report_at(d, g, y > 63 ? "yellow_dscp" : "red_dscp",
			  "no class below %s has a code point to re-mark to "
			  "(accepted: give one explicitly, 0..63)", cls_name[k]);
		return;
	}
	if (map->cls_of[y] <= k) {
		report_at(d, g, "yellow_dscp", "%u is in class %s (accepted: a code "
			  "point of a class below %s)", y, cls_name[map->cls_of[y]],
			  cls_name[k]);
		return;
	}
	if (map->cls_of[r] < map->cls_of[y]) {
		report_at(d, g, "red_dscp", "%u is in class %s, above yellow_dscp "
			  "%u's %s (accepted: a code point of %s or below)", r,
			  cls_name[map->cls_of[r]], y, cls_name[map->cls_of[y]],
			  cls_name[map->cls_of[y]]);
		return;
	}
	out->on = 1;
	out->flows = (uint32_t)in.flows;
	out->yellow_dscp = y;
	out->red_dscp = r;
	out->yellow_cls = map->cls_of[y];
	out->red_cls = map->cls_of[r];
}

void conf_parse_marker(const config_setting_t *g, struct conf *c,
		       struct diag *d)
{
	struct seed_in sd = { .seed = MARK_SEED_DEFAULT };

	if (!g)
		return;
	if (!config_setting_is_group(g)) {
		cfg_check_table(g, marker_keys, d);     /* reports the type */
		return;
	}
	cfg_check_table(g, marker_keys, d);     /* and go on: count them all */
	if (cfg_parse_key(g, cfg_find_key(marker_keys, "seed"), &sd, d) >= 0)
		c->marker.seed = sd.seed;
	for (unsigned k = 0; k < CLS_CS0; k++) {
		const config_setting_t *cg = cfg_lookup(g, cls_name[k]);

		if (!cg)
			continue;
		if (!config_setting_is_group(cg)) {
			cfg_check_table(cg, marker_cls_keys, d);
			continue;
		}
		parse_marker_cls(cg, k, &c->dscp, &c->marker.cls[k], d);
	}
}

void conf_marker_json(struct jw *w, const struct conf *c)
{
	jw_obj_begin(w, "marker");
	jw_u64(w, "seed", c->marker.seed);
	for (unsigned k = 0; k < CLS_CS0; k++) {
		const struct marker_cls *m = &c->marker.cls[k];
		struct mark_in in = {
			.committed_bps = m->tsw.committed_bps,
			.peak_bps = m->tsw.peak_bps,
			.window_ns = m->tsw.window_ns, .flows = m->flows,
			.yellow_dscp = m->yellow_dscp, .red_dscp = m->red_dscp,
		};

		if (!m->on) {
			jw_null(w, cls_name[k]);
			continue;
		}
		jw_obj_begin(w, cls_name[k]);
		cfg_json_values(w, marker_cls_keys, &in, NULL, NULL);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}
