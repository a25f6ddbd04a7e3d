/* coremark.c - the edge marker's life in the core (marker.h): swapped on a
 * reload whose `marker` section changed, and its counters on the stats
 * line.  The per-packet call is in core_tun_input(). */
#include <string.h>
#include "core/core.h"
#include "util/log.h"

void core_marker_reconfigure(struct core *c, struct conf *n, tstamp_ns now)
{
	struct marker fresh;
	int on = marker_params_on(&n->marker);

	if (!memcmp(&n->marker, &c->conf.marker, sizeof(n->marker)))
		return;
	/* New meters start at the reload, as at a start: the old ones
	 * measured against another profile. */
	if (on && marker_init(&fresh, &n->marker, now)) {
		log_err("reload: marker: out of memory for the flow meters; "
			"kept the running marker");
		n->marker = c->conf.marker;
		return;
	}
	if (c->mark_on)
		marker_destroy(&c->mark);
	if (on)
		c->mark = fresh;
	c->mark_on = on;
	memset(c->mark_prev, 0, sizeof(c->mark_prev));
}

void core_marker_gauges(struct core *c, struct stats_gauges *g)
{
	if (!c->mark_on)
		return;
	for (unsigned k = 0; k < NCLASS; k++) {
		uint64_t *prev = c->mark_prev[k];

		if (!c->mark.p.cls[k].on)
			continue;
		g->mark_on[k] = 1;
		for (unsigned col = 0; col < TSW_NCOLOUR; col++) {
			g->mark_pkts[k][col] = c->mark.colour_pkts[k][col] - prev[col];
			prev[col] = c->mark.colour_pkts[k][col];
		}
		g->mark_shared[k] = c->mark.shared_pkts[k] - prev[TSW_NCOLOUR];
		prev[TSW_NCOLOUR] = c->mark.shared_pkts[k];
		g->mark_flows[k] = marker_flows(&c->mark, k);
	}
}
