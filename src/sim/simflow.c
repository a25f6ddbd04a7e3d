/* simflow.c - the simulator's per-flow accounting (sim_int.h): which flow
 * a packet belongs to, what happened to it (dequeued after how long,
 * dropped and why, carried by the link), and at the end each flow's
 * account, its class's aggregate, the flows CSV and the callbacks.
 *
 * A flow's 5-tuple is UDP 10.10.Q.1:SPORT -> 10.10.0.2:5201 with, for
 * flow j of class k, Q = j / 1000 and SPORT = 40000 + 1000 k + j % 1000:
 * flow 0 of every class keeps the address and port of the single-flow
 * simulator, and the flow is found again from the packet bytes alone.
 */
#include <math.h>
#include <string.h>

#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "util/log.h"
#include "sim_int.h"

/* ---- identity --------------------------------------------------------- */

/* See sim_int.h.  The header: IPv4 with a valid checksum, DF, TTL 64, UDP
 * checksum 0 (none, as IPv4 allows). */
void sim_flow_init(struct sim_fl *fl, unsigned k, uint32_t j,
		   uint32_t pkt_bytes, uint8_t dscp)
{
	uint8_t *h = fl->hdr, probe[SIM_HDR_BYTES];
	uint16_t sport = (uint16_t)(SIM_SPORT_BASE + k * SIM_SPORT_SPAN +
				    j % SIM_SPORT_SPAN);
	struct ip_info ii;

	memset(fl, 0, sizeof(*fl));
	fl->a.cls = (uint8_t)k;
	fl->a.index = j;
	fl->a.saddr[0] = 10;
	fl->a.saddr[1] = 10;
	fl->a.saddr[2] = (uint8_t)(j / SIM_SPORT_SPAN);
	fl->a.saddr[3] = 1;
	fl->a.sport = sport;
	h[0] = 0x45;
	h[1] = (uint8_t)(dscp << 2);
	h[2] = (uint8_t)(pkt_bytes >> 8);
	h[3] = (uint8_t)pkt_bytes;
	h[6] = 0x40;                    /* DF */
	h[8] = 64;
	h[9] = 17;
	memcpy(h + 12, fl->a.saddr, 4);
	h[16] = 10; h[17] = 10; h[18] = 0; h[19] = 2;
	ipv4_set_checksum(h);
	h[20] = (uint8_t)(sport >> 8);
	h[21] = (uint8_t)sport;
	h[22] = (uint8_t)(SIM_DPORT >> 8);
	h[23] = (uint8_t)SIM_DPORT;
	h[24] = (uint8_t)((pkt_bytes - 20) >> 8);
	h[25] = (uint8_t)(pkt_bytes - 20);
	/* the classifier's hash of the header alone (lengths are not in it) */
	memcpy(probe, h, sizeof(probe));
	probe[2] = 0;
	probe[3] = SIM_HDR_BYTES;
	ipv4_set_checksum(probe);
	fl->a.flow_hash = ip_inspect(probe, sizeof(probe), &ii) == IP_OK ?
			  ii.flow_hash : 0;
}

/* See sim_int.h. */
void sim_flow_init_marked(uint8_t *hdr_out, const uint8_t *hdr, uint8_t dscp)
{
	memcpy(hdr_out, hdr, SIM_HDR_BYTES);
	hdr_out[1] = (uint8_t)(dscp << 2);
	ipv4_set_checksum(hdr_out);
}

/* See sim_int.h. */
struct sim_fl *sim_flow_of(struct sim *s, const uint8_t *ip, size_t len,
			   unsigned k)
{
	uint32_t lo, sport, j;

	if (len < 22 || k >= NCLASS) {
		s->unknown_pkts++;
		return NULL;
	}
	sport = (uint32_t)ip[20] << 8 | ip[21];
	/* the record's class is the port's: a TFRC flow with a profile sends
	 * its EF-marked part under its own 5-tuple */
	if (sport >= SIM_SPORT_BASE &&
	    sport < SIM_SPORT_BASE + NCLASS * SIM_SPORT_SPAN)
		k = (sport - SIM_SPORT_BASE) / SIM_SPORT_SPAN;
	lo = SIM_SPORT_BASE + k * SIM_SPORT_SPAN;
	j = (uint32_t)ip[14] * SIM_SPORT_SPAN + (sport - lo);
	if (sport < lo || sport >= lo + SIM_SPORT_SPAN ||
	    j >= s->cls[k].nflows) {
		s->unknown_pkts++;
		return NULL;
	}
	return &s->fl[s->cls[k].base + j];
}

/* ---- the delay histogram ------------------------------------------------ */

/* Bucket of v ns (sim_int.h: 0 below 2^10 ns, then 8 per octave). */
static unsigned dh_index(uint64_t v)
{
	unsigned top, oct;

	if (v < (1ULL << SIM_DH_MIN_OCT))
		return 0;
	top = 63u - (unsigned)__builtin_clzll(v);
	oct = top - SIM_DH_MIN_OCT;
	if (oct >= SIM_DH_OCTAVES)
		return SIM_DH_BUCKETS - 1;
	return 1 + oct * SIM_DH_SUB +
	       (unsigned)((v >> (top - SIM_DH_SUB_BITS)) & (SIM_DH_SUB - 1));
}

/* The largest value of bucket i. */
static uint64_t dh_upper(unsigned i)
{
	unsigned shift;

	if (i == 0)
		return (1ULL << SIM_DH_MIN_OCT) - 1;
	shift = (i - 1) / SIM_DH_SUB + SIM_DH_MIN_OCT - SIM_DH_SUB_BITS;
	return (((uint64_t)SIM_DH_SUB + (i - 1) % SIM_DH_SUB) << shift) +
	       ((1ULL << shift) - 1);
}

/* The q-quantile (0 < q <= 1) of fl's delays: the upper edge of the
 * bucket holding rank ceil(q n), clamped to the maximum; 0 when none. */
static tstamp_ns dh_quantile(const struct sim_fl *fl, double q)
{
	uint64_t n = fl->a.delay_pkts, rank, seen = 0;
	unsigned i;

	if (!n)
		return 0;
	rank = (uint64_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < SIM_DH_BUCKETS; i++) {
		seen += fl->bucket[i];
		if (seen >= rank)
			break;
	}
	return i < SIM_DH_BUCKETS && dh_upper(i) < fl->a.delay_max_ns ?
	       dh_upper(i) : fl->a.delay_max_ns;
}

const char *const sim_src_kind_name[SIM_SRC_KINDS] = {
	[SIM_SRC_NONE]   = "none",
	[SIM_SRC_GREEDY] = "greedy",
	[SIM_SRC_CBR]    = "cbr",
	[SIM_SRC_ONOFF]  = "onoff",
	[SIM_SRC_PARETO] = "pareto",
	[SIM_SRC_TFRC]   = "tfrc",
	[SIM_SRC_WEB]    = "web",
};

/* ---- a packet in ---------------------------------------------------------- */

/* The flow emitted its last packet at now. */
static void flow_ends(struct sim_fl *fl, tstamp_ns now)
{
	fl->active = 0;
	fl->a.end_ns = now;
	fl->next_ns = TS_NEVER;
}

/* See sim_int.h.  The class limit is core.c's rule, applied here first
 * so that the loss is the flow's. */
int sim_flow_inject(struct sim *s, struct sim_fl *fl, tstamp_ns now,
		    void (*lost)(struct sim *, struct sim_fl *, tstamp_ns))
{
	unsigned k = fl->mark_ef ? CLS_EF : fl->a.cls;
	struct sim_cls *c = &s->cls[fl->a.cls];
	struct pkt *p;

	fl->a.in_pkts++;
	fl->a.in_bytes += c->cfg.pkt_bytes;
	if (c->cfg.kind == SIM_SRC_PARETO && fl->left_pkts && --fl->left_pkts == 0)
		flow_ends(fl, now);
	p = pkt_alloc();
	if (!p) {
		s->pool_empty++;
		s->drop_pkts[k]++;
		sim_flow_lost_early(fl, SIM_DROP_POOL);
		lost(s, fl, now);
		return -1;
	}
	memcpy(p->data, fl->mark_ef ? fl->hdr_ef : fl->hdr, SIM_HDR_BYTES);
	p->len_bytes = c->cfg.pkt_bytes;
	if (s->core.qlen_pkts[k] >= s->core.conf.limit_pkts[k]) {
		sim_flow_lost_early(fl, DROP_CLASS_LIMIT);
		lost(s, fl, now);
	} else {
		fl->backlog_pkts++;     /* before: the scheduler may drop it */
	}
	sim_core_input(s, p, now);
	return 0;
}

/* ---- observers ------------------------------------------------------------ */

/* See sim_int.h.  The delay counts for dequeues in [warmup, duration),
 * the window of the means. */
struct sim_fl *sim_flow_dequeued(struct sim *s, const struct pkt *p,
				 tstamp_ns now)
{
	struct sim_fl *fl = sim_flow_of(s, p->data, p->len_bytes, p->cls);
	tstamp_ns d;

	if (!fl)
		return NULL;
	fl->a.out_pkts++;
	if (now >= s->warm_ns && now < s->dur_ns) {
		d = now > p->enq_ns ? now - p->enq_ns : 0;
		fl->bucket[dh_index(d)]++;
		fl->a.delay_pkts++;
		fl->delay_sum_ns += (double)d;
		if (d > fl->a.delay_max_ns)
			fl->a.delay_max_ns = d;
		hist_add(&s->cls[p->cls].delay, d);
	}
	return fl;
}

/* See sim_int.h. */
struct sim_fl *sim_flow_dropped(struct sim *s, const struct pkt *p,
				enum drop_reason why, tstamp_ns now)
{
	struct sim_fl *fl = sim_flow_of(s, p->data, p->len_bytes, p->cls);

	if (!fl)
		return NULL;
	fl->a.drop_by[why < DROP_REASON_MAX ? why : DROP_SCHED_LIMIT]++;
	fl->a.drop_pkts++;
	/* A greedy flow whose packet was dropped waits for the next instant,
	 * also when the drop is another flow's doing (push-out, expiry):
	 * refilled at once, its new packet could push out a third flow's,
	 * and so on without end at one instant. */
	fl->stalled_ns = now;
	return fl;
}

/* See sim_int.h. */
void sim_flow_lost_early(struct sim_fl *fl, unsigned reason)
{
	fl->a.drop_by[reason]++;
	fl->a.drop_pkts++;
}

/* See sim_int.h.  Only what finishes before the end counts, as for the
 * classes. */
void sim_flow_carried(struct sim *s, struct sim_fl *fl, uint32_t len_bytes,
		      tstamp_ns fin)
{
	fl->carried_pkts++;
	fl->a.last_fin_ns = fin;
	if (fin >= s->warm_ns)
		fl->a.win_bytes += len_bytes;
}

/* ---- the end ---------------------------------------------------------- */

/* Completes fl's account at the end of a run of window win_s. */
static void flow_close(struct sim_fl *fl, double win_s)
{
	struct sim_flow *a = &fl->a;

	a->rate_bps = (double)a->win_bytes * 8.0 / win_s;
	a->delay_p50_ns = dh_quantile(fl, 0.5);
	a->delay_p99_ns = dh_quantile(fl, 0.99);
	a->delay_mean_ns = a->delay_pkts ? fl->delay_sum_ns /
					   (double)a->delay_pkts : 0.0;
	if (a->kind == SIM_SRC_PARETO && a->end_ns != TS_NEVER &&
	    fl->carried_pkts == a->in_pkts)
		a->fct_ns = a->last_fin_ns - a->start_ns;
}

/* Adds fl to its class's aggregate g (rates summed; finished later). */
static void class_add(struct sim_class_flows *g, const struct sim_flow *a,
		      double *sum_sq)
{
	unsigned r;

	if (g->flows == 0 || a->rate_bps < g->rate_min_bps)
		g->rate_min_bps = a->rate_bps;
	if (a->rate_bps > g->rate_max_bps)
		g->rate_max_bps = a->rate_bps;
	g->rate_mean_bps += a->rate_bps;
	*sum_sq += a->rate_bps * a->rate_bps;
	g->flows++;
	g->in_pkts += a->in_pkts;
	g->out_pkts += a->out_pkts;
	g->drop_pkts += a->drop_pkts;
	g->queued_pkts += a->queued_pkts;
	g->sessions += a->sessions;
	g->sessions_done += a->sessions_done;
	g->session_bytes += a->session_bytes;
	g->session_ns += a->session_ns;
	for (r = 0; r < SIM_DROP_KINDS; r++)
		g->drop_by[r] += a->drop_by[r];
}

/* The CSV header of the flows table. */
static void csv_header(FILE *f)
{
	unsigned r;

	fprintf(f, "class,flow,kind,saddr,sport,flow_hash,start_s,end_s,"
		"size_bytes,in_pkts,out_pkts,drop_pkts,queued_pkts,rate_bps,"
		"delay_p50_ms,delay_p99_ms,delay_max_ms,delay_mean_ms,fct_s,"
		"on_s,cuts,tfrc_rate_bps");
	for (r = 0; r < DROP_REASON_MAX; r++)
		fprintf(f, ",drop_%s", drop_reason_name[r]);
	fprintf(f, ",drop_pool_empty\n");
}

/* One flow's CSV row: times in s or ms, empty cells for "not yet"
 * (end_s of a flow still sending, fct_s of an unfinished one). */
static void csv_row(FILE *f, const struct sim_flow *a)
{
	unsigned r;

	fprintf(f, "%s,%u,%s,%u.%u.%u.%u,%u,%08x,%.9g,", cls_name[a->cls],
		a->index, sim_src_kind_name[a->kind], a->saddr[0], a->saddr[1],
		a->saddr[2], a->saddr[3], a->sport, a->flow_hash,
		(double)a->start_ns / 1e9);
	if (a->end_ns != TS_NEVER)
		fprintf(f, "%.9g", (double)a->end_ns / 1e9);
	fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%.0f,%.6f,%.6f,%.6f,%.6f,",
		(unsigned long long)a->size_bytes,
		(unsigned long long)a->in_pkts, (unsigned long long)a->out_pkts,
		(unsigned long long)a->drop_pkts,
		(unsigned long long)a->queued_pkts, a->rate_bps,
		(double)a->delay_p50_ns / 1e6, (double)a->delay_p99_ns / 1e6,
		(double)a->delay_max_ns / 1e6, a->delay_mean_ns / 1e6);
	if (a->fct_ns)
		fprintf(f, "%.9g", (double)a->fct_ns / 1e9);
	fprintf(f, ",%.9g,%u,%llu", (double)a->on_time_ns / 1e9, a->cuts,
		(unsigned long long)a->tfrc_rate_bps);
	for (r = 0; r < SIM_DROP_KINDS; r++)
		fprintf(f, ",%llu", (unsigned long long)a->drop_by[r]);
	fputc('\n', f);
}

/* See sim_int.h. */
void sim_flows_finish(struct sim *s, const struct sim_config *cfg,
		      struct sim_result *res)
{
	double win_s = (double)(s->dur_ns - s->warm_ns) / 1e9;
	struct pkt *p;
	unsigned k;
	uint32_t j;

	/* what is still queued, counted by taking it out */
	while (s->inner.ops && (p = s->inner.ops->drain(s->inner.priv))) {
		struct sim_fl *fl = sim_flow_of(s, p->data, p->len_bytes,
						p->cls);

		if (fl)
			fl->a.queued_pkts++;
		s->core.qlen_pkts[p->cls]--;
		s->core.qlen_bytes[p->cls] -= p->len_bytes;
		pkt_free(p);
	}
	if (cfg->flows_csv)
		csv_header(cfg->flows_csv);
	for (k = 0; k < NCLASS; k++) {
		struct sim_cls *c = &s->cls[k];
		struct sim_class_flows g;
		double sum_sq = 0.0;

		memset(&g, 0, sizeof(g));
		for (j = 0; j < c->nflows; j++) {
			struct sim_fl *fl = &s->fl[c->base + j];

			flow_close(fl, win_s);
			class_add(&g, &fl->a, &sum_sq);
			if (cfg->flows_csv)
				csv_row(cfg->flows_csv, &fl->a);
			if (cfg->flow_cb)
				cfg->flow_cb(cfg->flow_ctx, &fl->a);
		}
		g.refused = c->refused;
		if (c->refused)
			log_warn("sim: %s: %u flow arrivals refused: the flow "
				 "table holds %u (accepted: a larger flows "
				 "count)", cls_name[k], c->refused, c->cap);
		if (g.flows) {
			g.jain = sum_sq > 0.0 ? g.rate_mean_bps * g.rate_mean_bps /
					       ((double)g.flows * sum_sq) : 0.0;
			g.rate_mean_bps /= (double)g.flows;
		}
		g.delay_pkts = c->delay.count;
		g.delay_p50_ns = hist_quantile_ns(&c->delay, 0.5);
		g.delay_p99_ns = hist_quantile_ns(&c->delay, 0.99);
		g.delay_max_ns = c->delay.max_ns;
		g.delay_mean_ns = hist_avg_ns(&c->delay);
		if (res)
			res->flows[k] = g;
	}
	if (s->unknown_pkts)
		log_warn("sim: %llu packets matched no flow (a bug)",
			 (unsigned long long)s->unknown_pkts);
}
