/* marker.c - the per-flow TSW marker of the daemon (contract and the
 * choices it makes: include/mark/marker.h). */
#include <string.h>
#include "mark/marker.h"

int marker_params_on(const struct marker_params *p)
{
	for (unsigned k = 0; k < NCLASS; k++)
		if (p->cls[k].on)
			return 1;
	return 0;
}

static tstamp_ns marker_idle_ns(const struct marker_cls *c)
{
	tstamp_ns t = c->tsw.window_ns * MARKER_IDLE_WINDOWS;

	return t > NS_PER_SEC ? t : NS_PER_SEC;
}

int marker_init(struct marker *m, const struct marker_params *p, tstamp_ns t0_ns)
{
	unsigned k;

	memset(m, 0, sizeof(*m));
	m->p = *p;
	m->t0_ns = t0_ns;
	m->rng = p->seed;               /* splitmix64: any state will do */
	for (k = 0; k < NCLASS; k++) {
		const struct marker_cls *c = &p->cls[k];

		if (!c->on)
			continue;
		tsw_meter_init(&m->shared[k], &c->tsw, t0_ns);
		if (flowtab_init(&m->ft[k], c->flows, sizeof(struct tsw_meter),
				 marker_idle_ns(c), NULL, NULL)) {
			marker_destroy(m);
			return -1;
		}
	}
	return 0;
}

void marker_destroy(struct marker *m)
{
	for (unsigned k = 0; k < NCLASS; k++)
		if (m->ft[k].ents)
			flowtab_destroy(&m->ft[k]);
	memset(m->ft, 0, sizeof(m->ft));
}

void ip_set_dscp(uint8_t *ip, uint8_t dscp)
{
	if ((ip[0] >> 4) == 4) {
		ip[1] = (uint8_t)(dscp << 2 | (ip[1] & 3));
		ipv4_set_checksum(ip);
	} else {
		/* traffic class = ip[0] low nibble . ip[1] high nibble */
		ip[0] = (uint8_t)((ip[0] & 0xf0) | dscp >> 2);
		ip[1] = (uint8_t)((dscp & 3) << 6 | (ip[1] & 0x3f));
	}
}

enum tsw_colour marker_mark(struct marker *m, struct pkt *p, tstamp_ns now)
{
	unsigned k = p->cls < NCLASS ? p->cls : CLS_CS0;
	const struct marker_cls *c = &m->p.cls[k];
	struct tsw_meter *mt;
	enum tsw_colour col;
	int created;
	double avg_bps;

	if (!c->on)
		return TSW_GREEN;
	mt = flowtab_get(&m->ft[k], p->flow_hash, now, &created);
	if (!mt) {
		mt = &m->shared[k];
		m->shared_pkts[k]++;
	} else if (created) {
		tsw_meter_init(mt, &c->tsw, m->t0_ns);
	}
	avg_bps = tsw_meter_update(mt, &c->tsw, p->len_bytes, now);
	col = tsw_colour_of(&c->tsw, avg_bps, &m->rng);
	m->colour_pkts[k][col]++;
	if (col != TSW_GREEN) {
		uint8_t dscp = col == TSW_YELLOW ? c->yellow_dscp : c->red_dscp;

		ip_set_dscp(p->data, dscp);
		p->dscp = dscp;
		p->cls = col == TSW_YELLOW ? c->yellow_cls : c->red_cls;
	}
	return col;
}

uint32_t marker_flows(const struct marker *m, unsigned k)
{
	return k < NCLASS && m->ft[k].ents ? flowtab_count(&m->ft[k]) : 0;
}
