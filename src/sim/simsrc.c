/* simsrc.c - the simulator's sources (sim_int.h): every class's source
 * is a set of flows, each its own process with its own 5-tuple and its
 * own random stream, handing packets to the core.
 *
 *   greedy  each flow keeps its own backlog in the scheduler at
 *           want_pkts = min(BACKLOG_PKTS, class limit): it is topped up
 *           after every core run, in flow order, never above the class
 *           limit (so a greedy source never causes a class-limit drop)
 *   cbr     flow f of N emits packet j when its rate curve's integral
 *           reaches (j + f/N) packets: the N flows interleave evenly
 *   onoff   exponential on and off periods; while on, one packet per
 *           packet time at the peak rate, counted on the flow's on-time
 *           (the on-time left over at the end of a period is carried into
 *           the next), so the mean rate is PEAK on/(on + off) exactly in
 *           expectation; the first period is on with probability
 *           on/(on + off) and the first packet's phase is uniform
 *   pareto  flows arrive at a Poisson rate (or with Pareto gaps), draw a
 *           Pareto size (optionally truncated at a maximum), send
 *           ceil(size / PKT_BYTES) packets at the peak rate or greedily,
 *           and leave
 *   tfrc    paced at its rate r, starting at RATE; a loss (any drop of
 *           its packets) starts a loss event unless one started less
 *           than an RTT before; the event is felt one RTT later at the
 *           flow's next packet, halving r (floor: one packet per RTT);
 *           every RTT r grows by one packet per RTT, up to RATE;
 *           optionally (In-Time, Karlsson §3.1) the packets within a
 *           token bucket of PROFILE per flow, two packets deep (flow
 *           f of N starting with f/N of a packet's tokens), are
 *           marked EF under the flow's own 5-tuple (conforming), and
 *           flow f of N has the RTT RTT + (RTT_MAX - RTT) f/(N - 1)
 *
 * Random numbers: splitmix64 (util/rng.h), one stream
 * per flow and one per arrival process, each starting from splitmix64 of
 * the seed mixed with the stream's (class, index): a run is a function of
 * the seed, and a flow's draws do not depend on the other flows.
 *
 * Timed events (CBR, on-off, paced Pareto and TFRC packets, arrivals)
 * live in one min-heap on (time, id), ids in class order, so at one
 * instant the classes are served in order, as before per-flow sources.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/pkt.h"
#include "util/log.h"
#include "util/rng.h"
#include "util/units.h"
#include "sim_int.h"

#define SIM_RATE_MAX_BPS     (1ULL << 50)
#define SIM_PARETO_ALPHA_MAX 100.0
#define SIM_ARRIVALS_MAX     1e6        /* flows per second */
#define SIM_MEAN_BYTES_MAX   (1ULL << 40)
#define SIM_PERIOD_MAX_NS    (1000000ULL * NS_PER_SEC)
#define SIM_STREAM_MIX       0xd1b54a32d192ed03ULL  /* odd: a bijection */

/* ---- random numbers ------------------------------------------------------ */

/* The starting state of stream `idx` of class k under seed. */
static uint64_t rng_stream(uint64_t seed, unsigned k, uint64_t idx)
{
	uint64_t st = seed ^ ((((uint64_t)k << 32) | idx) + 1) * SIM_STREAM_MIX;

	return rng_next(&st);
}

/* ---- the event heap ------------------------------------------------------ */

static int ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->id < b->id);
}

/* Adds (t, id); t != TS_NEVER.  The heap was sized for every id. */
static void heap_push(struct sim *s, tstamp_ns t, uint32_t id)
{
	uint32_t i = s->nheap++;

	s->heap[i].t = t;
	s->heap[i].id = id;
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		struct sim_ev tmp;

		if (!ev_before(&s->heap[i], &s->heap[up]))
			break;
		tmp = s->heap[i];
		s->heap[i] = s->heap[up];
		s->heap[up] = tmp;
		i = up;
	}
}

/* Removes the root (the heap is not empty). */
static void heap_pop(struct sim *s)
{
	uint32_t i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		struct sim_ev tmp;

		if (l < s->nheap && ev_before(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->nheap && ev_before(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
}

/* ---- packets --------------------------------------------------------- */

static int src_is_greedy(const struct sim_cls *c)
{
	return c->cfg.kind == SIM_SRC_GREEDY ||
	       (c->cfg.kind == SIM_SRC_PARETO &&
		(c->cfg.peak_bps == 0 || c->cfg.peak_bps == RATE_UNLIMITED));
}

/* Queues greedy flow fl of class c for a top-up unless it is queued. */
static void ring_push(struct sim *s, struct sim_cls *c, struct sim_fl *fl)
{
	if (fl->in_ring)
		return;
	fl->in_ring = 1;
	fl->ring_next = UINT32_MAX;
	if (c->ring_len++)
		s->fl[c->base + c->ring_last].ring_next = fl->a.index;
	else
		c->ring_first = fl->a.index;
	c->ring_last = fl->a.index;
}

/* Takes the head of c's ring (not empty) out; its record. */
static struct sim_fl *ring_pop(struct sim *s, struct sim_cls *c)
{
	struct sim_fl *fl = &s->fl[c->base + c->ring_first];

	c->ring_first = fl->ring_next;
	c->ring_len--;
	fl->in_ring = 0;
	return fl;
}

/* Moves the head of c's ring up to and including flow `last` (class
 * index) to the tail, in order, in O(1): what popping and pushing back
 * each of them would do when none of them can be topped up. */
static void ring_rotate(struct sim *s, struct sim_cls *c, uint32_t last)
{
	struct sim_fl *lf = &s->fl[c->base + last];

	if (last == c->ring_last)
		return;                 /* the whole ring: order unchanged */
	s->fl[c->base + c->ring_last].ring_next = c->ring_first;
	c->ring_first = lf->ring_next;
	lf->ring_next = UINT32_MAX;
	c->ring_last = last;
}

/* ---- set-up -------------------------------------------------------------- */

/* The code point a source marks with by default: the conventional one of
 * its class (46, AF11 = 10, 0) if the map sends it there, else the lowest
 * code point of the class.  -1 when no code point maps to the class. */
static int sim_default_dscp(const struct dscp_map *m, unsigned k)
{
	static const uint8_t usual[NCLASS] = { 46, 10, 0 };
	int d;

	if (m->cls_of[usual[k]] == k)
		return usual[k];
	for (d = 0; d < 64; d++)
		if (m->cls_of[d] == k)
			return d;
	return -1;
}

/* 0 when lo <= v <= hi, else -1 with "sim: CLS source: WHAT V (accepted:
 * ...)". */
static int check_u64(unsigned k, const char *what, uint64_t v, uint64_t lo,
		     uint64_t hi, const char *unit)
{
	if (v >= lo && v <= hi)
		return 0;
	log_err("sim: %s source: %s %llu %s (accepted: %llu..%llu %s)",
		cls_name[k], what, (unsigned long long)v, unit,
		(unsigned long long)lo, (unsigned long long)hi, unit);
	return -1;
}

/* The checks of a CBR source (rate, amplitude, period) and its curve. */
static int setup_cbr(struct sim_cls *c, const struct sim_source *in,
		     unsigned k)
{
	if (in->rate_bps == 0 || in->rate_bps > SIM_RATE_MAX_BPS) {
		log_err("sim: %s source: CBR rate %llu bit/s (accepted: "
			"1..2^50 bit/s)", cls_name[k],
			(unsigned long long)in->rate_bps);
		return -1;
	}
	if (!(in->amplitude >= 0.0 && in->amplitude < 1.0)) {
		log_err("sim: %s source: amplitude %g (accepted: 0 <= a < 1)",
			cls_name[k], in->amplitude);
		return -1;
	}
	if (in->amplitude > 0.0 && !(in->period_s > 0.0 && in->period_s <= 86400.0)) {
		log_err("sim: %s source: period %g s (accepted: 0 < period <= "
			"86400 s with an amplitude)", cls_name[k], in->period_s);
		return -1;
	}
	if (in->amplitude > 0.0) {
		c->curve.kind = LINK_COSINE;
		c->curve.mean_bps = in->rate_bps;
		c->curve.amplitude = in->amplitude;
		c->curve.period_s = in->period_s;
	} else {
		c->curve.kind = LINK_CONSTANT;
		c->curve.rate_bps = in->rate_bps;
	}
	return 0;
}

/* The checks of the Pareto pieces; the record count from the arrival
 * rate when none is given: the mean count over the run plus 8 standard
 * deviations of a Poisson count, plus 16 (arrivals beyond are refused,
 * counted and reported). */
static int setup_pareto(struct sim *s, struct sim_cls *c,
			const struct sim_source *in, unsigned k)
{
	double n;

	if (!(in->alpha > 1.0 && in->alpha <= SIM_PARETO_ALPHA_MAX)) {
		log_err("sim: %s source: Pareto shape %g (accepted: 1 < alpha "
			"<= 100)", cls_name[k], in->alpha);
		return -1;
	}
	if (!(in->arrivals_per_s > 0.0 && in->arrivals_per_s <= SIM_ARRIVALS_MAX)) {
		log_err("sim: %s source: arrival rate %g flows/s (accepted: 0 < "
			"rate <= 1e6)", cls_name[k], in->arrivals_per_s);
		return -1;
	}
	if (!(in->arrival_alpha == 0.0 ||
	      (in->arrival_alpha > 1.0 && in->arrival_alpha <= SIM_PARETO_ALPHA_MAX))) {
		log_err("sim: %s source: arrival shape %g (accepted: 0 for "
			"Poisson arrivals, or 1 < shape <= 100)", cls_name[k],
			in->arrival_alpha);
		return -1;
	}
	if (check_u64(k, "mean size", in->mean_bytes, 1, SIM_MEAN_BYTES_MAX,
		      "bytes"))
		return -1;
	if (in->max_bytes && (double)in->max_bytes <
			     (double)in->mean_bytes * (in->alpha - 1.0) / in->alpha) {
		log_err("sim: %s source: maximum size %llu bytes is under the "
			"Pareto minimum %.0f bytes (accepted: MAX_SIZE >= "
			"MEAN_SIZE (ALPHA - 1) / ALPHA)", cls_name[k],
			(unsigned long long)in->max_bytes,
			(double)in->mean_bytes * (in->alpha - 1.0) / in->alpha);
		return -1;
	}
	if (in->peak_bps != RATE_UNLIMITED && in->peak_bps != 0 &&
	    check_u64(k, "peak rate", in->peak_bps, 1, SIM_RATE_MAX_BPS, "bit/s"))
		return -1;
	if (!c->cap) {
		n = in->arrivals_per_s * (double)s->dur_ns / 1e9;
		n += 8.0 * sqrt(n) + 16.0;
		c->cap = n < SIM_CLASS_FLOWS_MAX ? (uint32_t)n : SIM_CLASS_FLOWS_MAX;
	}
	return 0;
}

/* The In-Time options of a TFRC source (profile, RTT spread): checked,
 * and EF's code point resolved.  0 or -1 with a message. */
static int setup_tfrc_profile(struct sim_cls *c, const struct sim_source *in,
			      const struct conf *conf, unsigned k)
{
	int d;

	if (in->rtt_max_ns && check_u64(k, "RTT_MAX", in->rtt_max_ns,
					in->rtt_ns, SIM_PERIOD_MAX_NS, "ns"))
		return -1;
	if (!in->profile_bps)
		return 0;
	if (k == CLS_EF) {
		log_err("sim: ef source: a TFRC profile marks EF already "
			"(accepted: PROFILE on an af or cs0 source)");
		return -1;
	}
	if (check_u64(k, "PROFILE", in->profile_bps, 1, SIM_RATE_MAX_BPS,
		      "bit/s"))
		return -1;
	d = sim_default_dscp(&conf->dscp, CLS_EF);
	if (d < 0) {
		log_err("sim: %s source: PROFILE needs a code point of class "
			"ef in classes.ef.dscp", cls_name[k]);
		return -1;
	}
	c->ef_dscp = (uint8_t)d;
	return 0;
}

/* See sim_int.h. */
int sim_src_setup(struct sim *s, const struct sim_source *in,
		  const struct conf *conf, unsigned k)
{
	struct sim_cls *c = &s->cls[k];
	int d;

	memset(c, 0, sizeof(*c));
	c->cfg = *in;
	c->next_arrival_ns = TS_NEVER;
	c->curve.kind = LINK_UNLIMITED;
	hist_reset(&c->delay);
	if (in->kind == SIM_SRC_NONE)
		return 0;
	if (in->kind <= SIM_SRC_NONE || in->kind >= SIM_SRC_KINDS) {
		log_err("sim: %s source: kind %d is not a source kind "
			"(accepted: none, greedy, cbr, onoff, pareto, tfrc, web)",
			cls_name[k], (int)in->kind);
		return -1;
	}
	if (in->pkt_bytes < SIM_HDR_BYTES || in->pkt_bytes > SIM_PKT_MAX_BYTES) {
		log_err("sim: %s source: packet size %u bytes is out of range "
			"(accepted: %u..%u)", cls_name[k], in->pkt_bytes,
			SIM_HDR_BYTES, SIM_PKT_MAX_BYTES);
		return -1;
	}
	if (in->dscp > 63) {
		log_err("sim: %s source: dscp %u is out of range (accepted: 0..63)",
			cls_name[k], in->dscp);
		return -1;
	}
	d = in->dscp ? in->dscp : sim_default_dscp(&conf->dscp, k);
	if (d < 0) {
		log_err("sim: %s source: no code point maps to class %s in the "
			"configuration's classes.*.dscp (accepted: a class with "
			"at least one code point)", cls_name[k], cls_name[k]);
		return -1;
	}
	if (conf->dscp.cls_of[d] != k) {
		log_err("sim: %s source: dscp %d is classified as %s by the "
			"configuration (accepted: a code point of class %s)",
			cls_name[k], d, cls_name[conf->dscp.cls_of[d]], cls_name[k]);
		return -1;
	}
	c->cfg.dscp = (uint8_t)d;
	if (in->flows > SIM_CLASS_FLOWS_MAX) {
		log_err("sim: %s source: %u flows (accepted: 0..%u)",
			cls_name[k], in->flows, SIM_CLASS_FLOWS_MAX);
		return -1;
	}
	c->cap = in->flows ? in->flows : 1;
	c->pkt_bits = (double)in->pkt_bytes * 8.0;
	if (!c->cfg.backlog_pkts)
		c->cfg.backlog_pkts = SIM_BACKLOG_DEFAULT;
	c->want_pkts = c->cfg.backlog_pkts < conf->limit_pkts[k] ?
		       c->cfg.backlog_pkts : conf->limit_pkts[k];

	switch (in->kind) {
	case SIM_SRC_CBR:
		return setup_cbr(c, in, k);
	case SIM_SRC_ONOFF:
		if (check_u64(k, "peak rate", in->peak_bps, 1, SIM_RATE_MAX_BPS,
			      "bit/s") ||
		    check_u64(k, "mean on time", in->on_ns, 1, SIM_PERIOD_MAX_NS,
			      "ns") ||
		    check_u64(k, "mean off time", in->off_ns, 1,
			      SIM_PERIOD_MAX_NS, "ns"))
			return -1;
		return 0;
	case SIM_SRC_PARETO:
		c->cap = in->flows;
		return setup_pareto(s, c, in, k);
	case SIM_SRC_TFRC:
		if (check_u64(k, "TFRC rate", in->rate_bps, 1, SIM_RATE_MAX_BPS,
			      "bit/s") ||
		    check_u64(k, "RTT", in->rtt_ns, 1, SIM_PERIOD_MAX_NS, "ns"))
			return -1;
		return setup_tfrc_profile(c, in, conf, k);
	case SIM_SRC_WEB:
		return sim_web_setup(in, k);
	default:
		return 0;
	}
}

/* Packet spacing at rate_bps for c's packets, in ns (at least 1). */
static tstamp_ns gap_ns(const struct sim_cls *c, double rate_bps)
{
	double g = c->pkt_bits * 1e9 / rate_bps;

	return g < 1.0 ? 1 : (tstamp_ns)llround(g);
}

/* Makes record j of class k a flow starting at now: identity, stream,
 * counters; the caller starts its process. */
static struct sim_fl *flow_open(struct sim *s, unsigned k, uint32_t j,
				tstamp_ns now)
{
	struct sim_cls *c = &s->cls[k];
	struct sim_fl *fl = &s->fl[c->base + j];

	sim_flow_init(fl, k, j, c->cfg.pkt_bytes, c->cfg.dscp);
	fl->a.kind = (uint8_t)c->cfg.kind;
	fl->a.start_ns = now;
	fl->a.end_ns = TS_NEVER;
	fl->rng = rng_stream(s->seed, k, j);
	fl->active = 1;
	fl->stalled_ns = TS_NEVER;
	fl->run_ns = TS_NEVER;
	fl->next_ns = TS_NEVER;
	fl->loss_event_ns = TS_NEVER;
	fl->cut_ns = TS_NEVER;
	c->nflows = j + 1;
	return fl;
}

/* Starts lasting flow j of N = c->cap of class k at t = 0: its first
 * event (timed kinds) or its place in the top-up ring (greedy). */
static void flow_start(struct sim *s, unsigned k, uint32_t j)
{
	struct sim_cls *c = &s->cls[k];
	struct sim_fl *fl = flow_open(s, k, j, 0);
	const struct sim_source *in = &c->cfg;
	double frac = (double)j / (double)c->cap;

	switch (in->kind) {
	case SIM_SRC_GREEDY:
		ring_push(s, c, fl);
		return;
	case SIM_SRC_CBR:
		fl->phase_bits = frac * c->pkt_bits;
		fl->next_ns = j == 0 ? 0 : link_time_for_bits(&c->curve,
							      fl->phase_bits, 0);
		break;
	case SIM_SRC_ONOFF:
		fl->gap_ns = gap_ns(c, (double)in->peak_bps);
		fl->on = rng_u01_nonzero(&fl->rng) <=
			 (double)in->on_ns / (double)(in->on_ns + in->off_ns);
		fl->carry_ns = (tstamp_ns)((double)fl->gap_ns *
					   (1.0 - rng_u01_nonzero(&fl->rng)));
		fl->phase_end_ns = rng_exp_ns(&fl->rng, fl->on ? in->on_ns
							     : in->off_ns);
		fl->next_ns = fl->on && fl->carry_ns < fl->phase_end_ns ?
			      fl->carry_ns : fl->phase_end_ns;
		if (fl->on && fl->carry_ns >= fl->phase_end_ns)
			fl->carry_ns -= fl->phase_end_ns;
		break;
	case SIM_SRC_TFRC:
		fl->rate_bps = (double)in->rate_bps;
		fl->gap_ns = gap_ns(c, fl->rate_bps);
		fl->next_ns = (tstamp_ns)(frac * (double)fl->gap_ns);
		fl->rtt_ns = in->rtt_ns;
		if (in->rtt_max_ns && c->cap > 1)
			fl->rtt_ns += (tstamp_ns)llround(
				(double)(in->rtt_max_ns - in->rtt_ns) * (double)j /
				(double)(c->cap - 1));
		fl->ai_ns = fl->next_ns + fl->rtt_ns;
		if (in->profile_bps) {
			/* Flow f of N starts with f/N of a packet's tokens, so
			 * the policers come due one after the other, as the
			 * flows' first packets do.  Buckets that all start
			 * full (or all empty) mark, while the flows send at
			 * one rate, a packet of every flow within one packet
			 * gap, at the start (two each) and again every
			 * profile period: the TICKET test's 27 flows then
			 * put 2.3 to 4.6 ms of conforming packets on a 30
			 * Mbit/s link at once, and conforming packets miss
			 * d = 2 ms although the aggregate is policed to a
			 * quarter of the link.  A phase the start alone
			 * makes, not the load. */
			sim_flow_init_marked(fl->hdr_ef, fl->hdr, c->ef_dscp);
			fl->tokens_bits = frac * c->pkt_bits;
			fl->tokens_ns = 0;
		}
		break;
	default:
		return;
	}
	if (fl->next_ns >= s->dur_ns)
		fl->next_ns = TS_NEVER;
	if (fl->next_ns != TS_NEVER)
		heap_push(s, fl->next_ns, c->base + j);
}

/* See sim_int.h. */
int sim_src_start(struct sim *s)
{
	unsigned k;
	uint32_t j, n = 0;

	for (k = 0; k < NCLASS; k++) {
		s->cls[k].base = n;
		if (s->cls[k].cfg.kind != SIM_SRC_NONE)
			n += s->cls[k].cap;
	}
	s->nfl = n;
	s->heap_cap = n + NCLASS;
	s->fl = n ? calloc(n, sizeof(*s->fl)) : NULL;
	s->heap = calloc(s->heap_cap, sizeof(*s->heap));
	if ((n && !s->fl) || !s->heap) {
		log_err("sim: out of memory for %u flows", n);
		return -1;
	}
	for (k = 0; k < NCLASS; k++) {
		struct sim_cls *c = &s->cls[k];

		if (c->cfg.kind == SIM_SRC_NONE)
			continue;
		if (c->cfg.kind == SIM_SRC_PARETO) {
			c->rng = rng_stream(s->seed, k, UINT32_MAX);
			c->next_arrival_ns = 0;         /* the first at t = 0 */
			heap_push(s, 0, s->nfl + k);
			continue;
		}
		for (j = 0; j < c->cap; j++)
			flow_start(s, k, j);
		if (c->cfg.kind == SIM_SRC_WEB && sim_web_start(s, k))
			return -1;
	}
	return 0;
}

/* See sim_int.h. */
void sim_src_free(struct sim *s)
{
	sim_web_free(s);
	free(s->fl);
	free(s->heap);
	s->fl = NULL;
	s->heap = NULL;
}

/* ---- the processes -------------------------------------------------------- */

/* A CBR flow's packet at now; its next emission time. */
static tstamp_ns cbr_event(struct sim *s, struct sim_cls *c, struct sim_fl *fl,
			   tstamp_ns now)
{
	sim_flow_inject(s, fl, now, sim_src_lost);
	fl->next_k++;
	return link_time_for_bits(&c->curve, (double)fl->next_k * c->pkt_bits +
				  fl->phase_bits, now);
}

/* An on-off flow's event at now (a packet, or the end of a period); the
 * time of its next one.  The on-time is added up clipped to the run. */
static tstamp_ns onoff_event(struct sim *s, struct sim_cls *c,
			     struct sim_fl *fl, tstamp_ns now)
{
	tstamp_ns next;

	if (fl->on && now < fl->phase_end_ns) {         /* a packet */
		sim_flow_inject(s, fl, now, sim_src_lost);
		next = now + fl->gap_ns;
		if (next < fl->phase_end_ns)
			return next;
		fl->carry_ns = next - fl->phase_end_ns;
		return fl->phase_end_ns;
	}
	if (fl->on) {                                   /* on -> off */
		fl->a.on_time_ns += (now < s->dur_ns ? now : s->dur_ns) -
				    fl->on_start_ns;
		fl->on = 0;
		fl->phase_end_ns = now + rng_exp_ns(&fl->rng, c->cfg.off_ns);
		return fl->phase_end_ns;
	}
	fl->on = 1;                                     /* off -> on */
	fl->on_start_ns = now;
	fl->phase_end_ns = now + rng_exp_ns(&fl->rng, c->cfg.on_ns);
	if (now + fl->carry_ns < fl->phase_end_ns)
		return now + fl->carry_ns;
	fl->carry_ns -= fl->phase_end_ns - now;
	return fl->phase_end_ns;
}

/* A TFRC-like flow's packet at now: the increases and the cut due, then
 * the packet; its next emission time. */
static tstamp_ns tfrc_event(struct sim *s, struct sim_cls *c, struct sim_fl *fl,
			    tstamp_ns now)
{
	double rtt_s = (double)fl->rtt_ns / 1e9;
	double step_bps = c->pkt_bits / rtt_s;

	while (fl->ai_ns <= now) {
		fl->rate_bps += step_bps;
		if (fl->rate_bps > (double)c->cfg.rate_bps)
			fl->rate_bps = (double)c->cfg.rate_bps;
		fl->ai_ns += fl->rtt_ns;
	}
	if (fl->cut_ns <= now) {
		fl->rate_bps /= 2.0;
		if (fl->rate_bps < step_bps)
			fl->rate_bps = step_bps;
		fl->cut_ns = TS_NEVER;
		fl->a.cuts++;
		fl->ai_ns = now + fl->rtt_ns;
	}
	fl->gap_ns = gap_ns(c, fl->rate_bps);
	if (c->cfg.profile_bps) {               /* the policer */
		fl->tokens_bits += (double)(now - fl->tokens_ns) *
				   (double)c->cfg.profile_bps / 1e9;
		if (fl->tokens_bits > 2.0 * c->pkt_bits)
			fl->tokens_bits = 2.0 * c->pkt_bits;
		fl->tokens_ns = now;
		fl->mark_ef = fl->tokens_bits >= c->pkt_bits;
		if (fl->mark_ef) {
			fl->tokens_bits -= c->pkt_bits;
			fl->a.conf_pkts++;
		}
	}
	sim_flow_inject(s, fl, now, sim_src_lost);
	fl->mark_ef = 0;
	return now + fl->gap_ns;
}

/* A Pareto flow arrives at now (when the table has room); the time of
 * the next arrival. */
static tstamp_ns arrival_event(struct sim *s, unsigned k, tstamp_ns now)
{
	struct sim_cls *c = &s->cls[k];
	const struct sim_source *in = &c->cfg;
	double mean_gap_ns = 1e9 / in->arrivals_per_s, gap;

	if (c->nflows < c->cap) {
		struct sim_fl *fl = flow_open(s, k, c->nflows, now);
		double size = ceil(in->max_bytes ?
			rng_pareto_trunc(&fl->rng, in->alpha,
					 (double)in->mean_bytes,
					 (double)in->max_bytes) :
			rng_pareto(&fl->rng, in->alpha,
				   (double)in->mean_bytes));

		fl->a.size_bytes = size < 1.0 ? 1 : (uint64_t)size;
		fl->left_pkts = (fl->a.size_bytes + in->pkt_bytes - 1) /
				in->pkt_bytes;
		if (src_is_greedy(c)) {
			ring_push(s, c, fl);
		} else {
			fl->gap_ns = gap_ns(c, (double)in->peak_bps);
			fl->next_ns = now;
			heap_push(s, now, c->base + fl->a.index);
		}
	} else {
		c->refused++;
	}
	gap = in->arrival_alpha > 0.0 ?
	      rng_pareto(&c->rng, in->arrival_alpha, mean_gap_ns) :
	      -mean_gap_ns * log(rng_u01_nonzero(&c->rng));
	return now + (tstamp_ns)llround(gap);
}

/* See sim_int.h. */
tstamp_ns sim_src_next_ns(const struct sim *s)
{
	tstamp_ns t = s->nheap ? s->heap[0].t : TS_NEVER;

	return sim_web_next_ns(s) < t ? sim_web_next_ns(s) : t;
}

/* See sim_int.h.  The root is popped before its event runs (an arrival
 * may push a flow due now), and put back with its next time unless that
 * is at or after the end of the run. */
void sim_src_emit(struct sim *s, tstamp_ns now)
{
	sim_web_emit(s, now);
	while (s->nheap && s->heap[0].t <= now) {
		uint32_t id = s->heap[0].id;
		tstamp_ns next;

		heap_pop(s);
		if (id >= s->nfl) {
			next = arrival_event(s, id - s->nfl, now);
		} else {
			struct sim_fl *fl = &s->fl[id];
			struct sim_cls *c = &s->cls[fl->a.cls];

			switch (c->cfg.kind) {
			case SIM_SRC_CBR:
				next = cbr_event(s, c, fl, now);
				break;
			case SIM_SRC_ONOFF:
				next = onoff_event(s, c, fl, now);
				break;
			case SIM_SRC_TFRC:
				next = tfrc_event(s, c, fl, now);
				break;
			default:        /* a paced Pareto flow */
				sim_flow_inject(s, fl, now, sim_src_lost);
				next = fl->active ? now + fl->gap_ns : TS_NEVER;
				break;
			}
			fl->next_ns = next;
		}
		if (next < s->dur_ns)
			heap_push(s, next, id);
	}
}

/* Tops greedy flow fl of class c (just taken from the ring) up to
 * want_pkts, unless it was stalled at now; a flow whose backlog did not
 * grow on an enqueue (the packet was dropped), or whose class is full,
 * is stalled for the rest of this instant.  Back to the ring while
 * below want_pkts.  Returns the packets handed to the core. */
static unsigned topup_flow(struct sim *s, struct sim_cls *c,
			   struct sim_fl *fl, tstamp_ns now)
{
	unsigned k = fl->a.cls, n = 0;

	while (fl->stalled_ns != now && fl->active &&
	       fl->backlog_pkts < c->want_pkts) {
		uint32_t before = fl->backlog_pkts;

		if (s->core.qlen_pkts[k] >= s->core.conf.limit_pkts[k] ||
		    sim_flow_inject(s, fl, now, sim_src_lost) < 0) {
			fl->stalled_ns = now;
			break;
		}
		n++;
		if (fl->backlog_pkts <= before)
			fl->stalled_ns = now;
	}
	if (fl->active && fl->backlog_pkts < c->want_pkts)
		ring_push(s, c, fl);
	return n;
}

/* See sim_int.h.  Each class's ring holds its greedy flows below their
 * backlog; one call serves the entries present when it starts, in
 * order, each up to want_pkts (topup_flow), so this terminates.
 *
 * Once the class is full, every entry still to serve in this call would
 * be stalled and pushed back in order (an inactive one dropped), and
 * stays stalled for the rest of the instant: instead of visiting them,
 * the whole rest moves to the tail at once as one stalled run, marked on
 * its first flow, and a later call at the same instant moves the run
 * again without visiting it.  The order of the ring, the packets and
 * the stalls are those of visiting every entry, and a call costs O(1)
 * plus the flows it really serves, instead of O(flows in the ring) when
 * the class limit holds thousands of greedy flows back.  (An inactive
 * flow stays in a run until it reaches the head alone; it is never
 * pushed again, so that changes nothing.) */
unsigned sim_src_topup(struct sim *s, tstamp_ns now)
{
	unsigned k, n = 0;

	if (now >= s->dur_ns)
		return 0;
	for (k = 0; k < NCLASS; k++) {
		struct sim_cls *c = &s->cls[k];
		uint32_t todo = c->ring_len, last = c->ring_last;

		while (todo) {
			struct sim_fl *fl = &s->fl[c->base + c->ring_first];

			if (fl->run_ns == now && fl->run_len <= todo) {
				todo -= fl->run_len;
				ring_rotate(s, c, fl->run_last);
				continue;
			}
			if (s->core.qlen_pkts[k] >= s->core.conf.limit_pkts[k]) {
				fl->run_ns = now;       /* the rest: one run */
				fl->run_last = last;
				fl->run_len = todo;
				ring_rotate(s, c, last);
				break;
			}
			fl = ring_pop(s, c);
			todo--;
			if (fl->active)
				n += topup_flow(s, c, fl, now);
		}
	}
	return n;
}

/* See sim_int.h. */
void sim_src_left(struct sim *s, struct sim_fl *fl, tstamp_ns now)
{
	struct sim_cls *c = &s->cls[fl->a.cls];

	(void)now;
	fl->backlog_pkts--;
	if (fl->active && src_is_greedy(c) && fl->backlog_pkts < c->want_pkts)
		ring_push(s, c, fl);
}

/* See sim_int.h: at most one loss event per RTT, felt one RTT later;
 * a new event waits until the previous cut was applied. */
void sim_src_lost(struct sim *s, struct sim_fl *fl, tstamp_ns now)
{
	const struct sim_cls *c = &s->cls[fl->a.cls];

	if (c->cfg.kind == SIM_SRC_WEB) {
		sim_web_lost(s, fl, now);
		return;
	}
	if (c->cfg.kind != SIM_SRC_TFRC || fl->cut_ns != TS_NEVER)
		return;
	if (fl->loss_event_ns != TS_NEVER &&
	    now < fl->loss_event_ns + fl->rtt_ns)
		return;
	fl->loss_event_ns = now;
	fl->cut_ns = now + fl->rtt_ns;
}

/* See sim_int.h. */
void sim_src_carried(struct sim *s, struct sim_fl *fl, tstamp_ns fin)
{
	if (fl->a.kind == SIM_SRC_WEB)
		sim_web_carried(s, fl, fin);
}

/* See sim_int.h. */
void sim_src_finish(struct sim *s)
{
	unsigned k;
	uint32_t j;

	for (k = 0; k < NCLASS; k++) {
		for (j = 0; j < s->cls[k].nflows; j++) {
			struct sim_fl *fl = &s->fl[s->cls[k].base + j];
			struct sim_flow *a = &fl->a;

			if (a->kind == SIM_SRC_ONOFF && fl->on)
				a->on_time_ns += s->dur_ns - fl->on_start_ns;
			if (a->kind == SIM_SRC_TFRC)
				a->tfrc_rate_bps = (uint64_t)llround(fl->rate_bps);
			if (a->kind == SIM_SRC_WEB)
				sim_web_close(s, fl);
		}
	}
}
