/* simweb.c - the simulator's `web` source (sim_int.h): WWW-like users,
 * each a closed loop of finite transfers separated by think times, sent
 * by a TCP-like window (Hayes et al. 1999, §4.1-4.2, Table 1 exp. 1).
 *
 * One flow is one user (one 5-tuple, as the paper's 50 sources):
 *   think    exponential, mean THINK (cfg.off_ns), before every session,
 *            the first one included (so users start staggered);
 *   session  a Pareto size (shape ALPHA = cfg.alpha, mean MEAN_SIZE =
 *            cfg.mean_bytes), sent in ceil(size / PKT_BYTES) full packets,
 *            at most one packet per packet time of ACCESS_RATE
 *            (cfg.peak_bps: the access link), and at most cwnd packets in
 *            flight;
 *   window   slow start from cwnd = 1 at each session (§4.2: "whenever
 *            the link has been idle"), +1 per ACK below ssthresh, +1/cwnd
 *            above; capped by a 64 KiB receive window; ssthresh starts at
 *            that cap;
 *   ACKs     the configuration's delay line is the return path (§4.2: a
 *            fixed 500 ms sink-to-source delay): a packet is received
 *            when its last bit leaves the link (fin) and acknowledged
 *            when it leaves the delay line (fin + delay), one ACK each;
 *   losses   any drop of the flow's packets (class limit, the
 *            scheduler's drops, expiry, push-out, empty pool) is noticed
 *            one base RTT (the delay) after it, as by duplicate ACKs (a
 *            drop while a notice is pending is noticed with it); the
 *            lost packets leave the window and are sent again; at most
 *            one cut per base RTT halves cwnd (floor 2) into ssthresh.
 * What it leaves out, on purpose (docs/simulator.md): retransmission
 * timeouts and hence duplicate deliveries (every received bit is valid),
 * delayed ACKs, the receiver's buffer, and the RTT growth of loss
 * detection behind a long queue (a loss is noticed one base RTT after the
 * drop, however long the queue the dropped packet was behind).
 *
 * Eq. 2 of the paper, Σ valid bits received / Σ session times, is kept
 * per flow (struct sim_flow: sessions, session_bytes, session_ns) over
 * the sessions that start in [warmup, duration): a session's time runs
 * from its first packet to the reception of its last one, or to the end
 * of the run for one still going (counted with what it received).
 *
 * Windows over time (Fig. 6): after the warm-up, every WEB_SAMPLE_NS,
 * each web flow's cwnd (0 while it thinks) is sampled with the sum W of
 * all of them; per flow the mean, the variance and the covariance with W
 * go to struct sim_flow (cwnd_mean, cwnd_var, cwnd_cov).  Var(W) is the
 * sum of the covariances, so a caller can tell windows that move
 * together (Var(W) far above the sum of the variances) from independent
 * ones.
 *
 * Events: each web flow has at most one timed event (the end of its
 * think time, its next paced packet, or the moment its losses are
 * noticed) in a min-heap of its own with positions, because ACKs and
 * losses arrive from the core's callbacks and may bring an event earlier.
 */
#include <math.h>
#include <stdlib.h>

#include "util/log.h"
#include "util/rng.h"
#include "util/units.h"
#include "sim_int.h"

#define WEB_RWND_BYTES  65535u          /* the receive window's cap */
#define WEB_NONE        UINT32_MAX      /* not in the heap */
#define WEB_SAMPLE_NS   (100 * NS_PER_MS)       /* cwnd sampling period */

/* One web flow's transfer state. */
struct web_fl {
	tstamp_ns ev_ns;                /* its timed event (TS_NEVER: none) */
	uint32_t  hpos;                 /* its heap slot, WEB_NONE */
	int       in_session;
	tstamp_ns start_ns;             /* the session's first packet */
	uint64_t  size_bytes;
	uint32_t  npkts, sent_new, acked, in_flight, retx, lost_pending;
	double    cwnd, ssthresh;
	tstamp_ns last_send_ns;         /* TS_NEVER: none this session */
	tstamp_ns notice_ns;            /* pending losses noticed then */
	tstamp_ns last_cut_ns;          /* TS_NEVER: none yet */
	double    sw, sww, swW;         /* Σ cwnd, Σ cwnd², Σ cwnd·W */
};

struct sim_web {
	struct web_fl *w;               /* by record index (s->fl) */
	uint32_t      *heap;            /* record indices, by ev_ns */
	uint32_t       nheap;
	tstamp_ns      sample_at_ns;    /* the next cwnd sample */
	uint64_t       nsamples;
	double         sW;              /* Σ W over the samples */
};

/* ---- the event heap ------------------------------------------------------ */

static int web_before(const struct sim_web *wb, uint32_t a, uint32_t b)
{
	tstamp_ns ta = wb->w[a].ev_ns, tb = wb->w[b].ev_ns;

	return ta < tb || (ta == tb && a < b);
}

static void web_swap(struct sim_web *wb, uint32_t i, uint32_t j)
{
	uint32_t t = wb->heap[i];

	wb->heap[i] = wb->heap[j];
	wb->heap[j] = t;
	wb->w[wb->heap[i]].hpos = i;
	wb->w[wb->heap[j]].hpos = j;
}

/* Restores the heap around slot i after its key changed. */
static void web_fix(struct sim_web *wb, uint32_t i)
{
	while (i > 0 && web_before(wb, wb->heap[i], wb->heap[(i - 1) / 2])) {
		web_swap(wb, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < wb->nheap && web_before(wb, wb->heap[l], wb->heap[m]))
			m = l;
		if (r < wb->nheap && web_before(wb, wb->heap[r], wb->heap[m]))
			m = r;
		if (m == i)
			return;
		web_swap(wb, i, m);
		i = m;
	}
}

/* Gives record id the event time t (TS_NEVER, or at or after the end of
 * the run: none), in, out of or moved within the heap. */
static void web_at(struct sim *s, uint32_t id, tstamp_ns t)
{
	struct sim_web *wb = s->web;
	struct web_fl *w = &wb->w[id];
	uint32_t i = w->hpos;

	w->ev_ns = t < s->dur_ns ? t : TS_NEVER;
	if (w->ev_ns == TS_NEVER) {
		if (i == WEB_NONE)
			return;
		w->hpos = WEB_NONE;
		if (i != --wb->nheap) {
			wb->heap[i] = wb->heap[wb->nheap];
			wb->w[wb->heap[i]].hpos = i;
			web_fix(wb, i);
		}
		return;
	}
	if (i == WEB_NONE) {
		i = wb->nheap++;
		wb->heap[i] = id;
		w->hpos = i;
	}
	web_fix(wb, i);
}

/* ---- the transfer --------------------------------------------------------- */

/* Packet spacing of the access link, ns. */
static tstamp_ns web_gap_ns(const struct sim_cls *c)
{
	double g = c->pkt_bits * 1e9 / (double)c->cfg.peak_bps;

	return g < 1.0 ? 1 : (tstamp_ns)llround(g);
}

/* 1 when the session may send a packet (ignoring the pacing). */
static int web_window_open(const struct web_fl *w)
{
	return w->in_session && w->in_flight < (uint32_t)w->cwnd &&
	       (w->retx || w->sent_new < w->npkts);
}

/* Record id's next event from its state: the pending loss notice, or its
 * next paced packet while the window is open. */
static void web_reschedule(struct sim *s, uint32_t id)
{
	struct web_fl *w = &s->web->w[id];
	const struct sim_cls *c = &s->cls[s->fl[id].a.cls];
	tstamp_ns t = w->notice_ns;

	if (!w->in_session)
		return;                 /* thinking: its event stays */
	if (web_window_open(w)) {
		tstamp_ns send = w->last_send_ns == TS_NEVER ? 0 :
				 w->last_send_ns + web_gap_ns(c);

		if (send < t)
			t = send;
	}
	if (t < s->now_ns)
		t = s->now_ns;
	web_at(s, id, t);
}

/* Starts a think time at now. */
static void web_think(struct sim *s, uint32_t id, tstamp_ns now)
{
	struct sim_fl *fl = &s->fl[id];

	s->web->w[id].in_session = 0;
	web_at(s, id, now + rng_exp_ns(&fl->rng, s->cls[fl->a.cls].cfg.off_ns));
}

/* Starts a session at now: a Pareto size, slow start. */
static void web_session(struct sim *s, uint32_t id, tstamp_ns now)
{
	struct sim_fl *fl = &s->fl[id];
	const struct sim_cls *c = &s->cls[fl->a.cls];
	struct web_fl *w = &s->web->w[id];
	uint32_t rwnd = WEB_RWND_BYTES / c->cfg.pkt_bytes;
	double size = ceil(rng_pareto(&fl->rng, c->cfg.alpha,
					  (double)c->cfg.mean_bytes));

	w->in_session = 1;
	w->start_ns = now;
	w->size_bytes = size < 1.0 ? 1 : (uint64_t)size;
	w->npkts = (uint32_t)((w->size_bytes + c->cfg.pkt_bytes - 1) /
			      c->cfg.pkt_bytes);
	w->sent_new = w->acked = w->in_flight = w->retx = 0;
	w->lost_pending = 0;
	w->cwnd = 1.0;
	w->ssthresh = rwnd < 2 ? 2.0 : (double)rwnd;
	w->last_send_ns = TS_NEVER;
	w->notice_ns = TS_NEVER;
	w->last_cut_ns = TS_NEVER;
	if (now >= s->warm_ns)
		fl->a.sessions++;
}

/* Adds the session's eq. 2 terms: rx_bytes received over [start, until). */
static void web_account(struct sim *s, uint32_t id, uint64_t rx_bytes,
			tstamp_ns until)
{
	struct sim_flow *a = &s->fl[id].a;
	const struct web_fl *w = &s->web->w[id];

	if (w->start_ns < s->warm_ns)
		return;
	a->session_bytes += rx_bytes;
	a->session_ns += until - w->start_ns;
}

/* The losses noticed now leave the window and are sent again; a new loss
 * event (one base RTT after the last cut) halves cwnd. */
static void web_notice(struct sim *s, uint32_t id, tstamp_ns now)
{
	struct web_fl *w = &s->web->w[id];

	w->in_flight -= w->lost_pending;
	w->retx += w->lost_pending;
	w->lost_pending = 0;
	w->notice_ns = TS_NEVER;
	if (w->last_cut_ns == TS_NEVER || now >= w->last_cut_ns + s->delay_ns) {
		w->ssthresh = w->cwnd / 2.0 < 2.0 ? 2.0 : w->cwnd / 2.0;
		w->cwnd = w->ssthresh;
		w->last_cut_ns = now;
		s->fl[id].a.cuts++;
	}
}

/* Record id's timed event at now. */
static void web_event(struct sim *s, uint32_t id, tstamp_ns now)
{
	struct web_fl *w = &s->web->w[id];

	if (!w->in_session)
		web_session(s, id, now);
	if (w->notice_ns <= now)
		web_notice(s, id, now);
	web_at(s, id, TS_NEVER);        /* the packet below may reschedule */
	if (web_window_open(w) &&
	    (w->last_send_ns == TS_NEVER ||
	     now >= w->last_send_ns + web_gap_ns(&s->cls[s->fl[id].a.cls]))) {
		if (w->retx)
			w->retx--;
		else
			w->sent_new++;
		w->in_flight++;
		w->last_send_ns = now;
		sim_flow_inject(s, &s->fl[id], now, sim_web_lost);
	}
	web_reschedule(s, id);
}

/* Samples every web flow's cwnd and their sum W (see the header). */
static void web_sample(struct sim *s)
{
	struct sim_web *wb = s->web;
	double W = 0.0;
	uint32_t i;

	for (i = 0; i < s->nfl; i++)
		if (s->fl[i].a.kind == SIM_SRC_WEB && wb->w[i].in_session)
			W += wb->w[i].cwnd;
	for (i = 0; i < s->nfl; i++) {
		struct web_fl *w = &wb->w[i];
		double c = w->in_session ? w->cwnd : 0.0;

		if (s->fl[i].a.kind != SIM_SRC_WEB)
			continue;
		w->sw += c;
		w->sww += c * c;
		w->swW += c * W;
	}
	wb->sW += W;
	wb->nsamples++;
}

/* ---- the simulator's side (sim_int.h) ------------------------------------- */

/* See sim_int.h. */
int sim_web_setup(const struct sim_source *in, unsigned k)
{
	if (!(in->alpha > 1.0 && in->alpha <= 100.0) || in->mean_bytes == 0 ||
	    in->off_ns == 0 || in->peak_bps == 0 ||
	    in->peak_bps == RATE_UNLIMITED) {
		log_err("sim: %s source: web needs 1 < ALPHA <= 100, MEAN_SIZE "
			">= 1 byte, THINK > 0 and a finite ACCESS_RATE > 0 "
			"(got %g, %llu, %llu ns, %llu bit/s)", cls_name[k],
			in->alpha, (unsigned long long)in->mean_bytes,
			(unsigned long long)in->off_ns,
			(unsigned long long)in->peak_bps);
		return -1;
	}
	return 0;
}

/* See sim_int.h. */
int sim_web_start(struct sim *s, unsigned k)
{
	const struct sim_cls *c = &s->cls[k];
	uint32_t j;

	if (!s->web) {
		s->web = calloc(1, sizeof(*s->web));
		if (s->web) {
			s->web->w = calloc(s->nfl, sizeof(*s->web->w));
			s->web->heap = calloc(s->nfl, sizeof(*s->web->heap));
		}
		if (!s->web || !s->web->w || !s->web->heap) {
			log_err("sim: out of memory for %u web flows", s->nfl);
			return -1;
		}
		for (j = 0; j < s->nfl; j++)
			s->web->w[j].hpos = WEB_NONE;
		s->web->sample_at_ns = s->warm_ns;
	}
	for (j = 0; j < c->cap; j++)
		web_think(s, c->base + j, 0);
	return 0;
}

/* See sim_int.h. */
void sim_web_free(struct sim *s)
{
	if (!s->web)
		return;
	free(s->web->w);
	free(s->web->heap);
	free(s->web);
	s->web = NULL;
}

/* See sim_int.h. */
tstamp_ns sim_web_next_ns(const struct sim *s)
{
	tstamp_ns t;

	if (!s->web)
		return TS_NEVER;
	t = s->web->nheap ? s->web->w[s->web->heap[0]].ev_ns : TS_NEVER;
	return s->web->sample_at_ns < t ? s->web->sample_at_ns : t;
}

/* See sim_int.h. */
void sim_web_emit(struct sim *s, tstamp_ns now)
{
	if (s->web && s->web->sample_at_ns <= now) {
		web_sample(s);
		s->web->sample_at_ns += WEB_SAMPLE_NS;
		if (s->web->sample_at_ns >= s->dur_ns)
			s->web->sample_at_ns = TS_NEVER;
	}
	while (s->web && s->web->nheap &&
	       s->web->w[s->web->heap[0]].ev_ns <= now)
		web_event(s, s->web->heap[0], now);
}

/* See sim_int.h. */
void sim_web_lost(struct sim *s, struct sim_fl *fl, tstamp_ns now)
{
	uint32_t id = (uint32_t)(fl - s->fl);
	struct web_fl *w = &s->web->w[id];

	if (!w->in_session)
		return;
	w->lost_pending++;
	if (w->notice_ns == TS_NEVER)
		w->notice_ns = now + s->delay_ns;
	web_reschedule(s, id);
}

/* See sim_int.h.  The ACK arrives now (fin + delay). */
void sim_web_carried(struct sim *s, struct sim_fl *fl, tstamp_ns fin)
{
	uint32_t id = (uint32_t)(fl - s->fl);
	struct web_fl *w = &s->web->w[id];
	uint32_t rwnd = WEB_RWND_BYTES / s->cls[fl->a.cls].cfg.pkt_bytes;

	if (!w->in_session)
		return;
	w->acked++;
	w->in_flight--;
	w->cwnd += w->cwnd < w->ssthresh ? 1.0 : 1.0 / w->cwnd;
	if (w->cwnd > (double)rwnd && rwnd >= 2)
		w->cwnd = (double)rwnd;
	if (w->acked < w->npkts) {
		web_reschedule(s, id);
		return;
	}
	web_account(s, id, w->size_bytes, fin);
	if (w->start_ns >= s->warm_ns)
		fl->a.sessions_done++;
	web_think(s, id, s->now_ns);
}

/* See sim_int.h. */
void sim_web_close(struct sim *s, struct sim_fl *fl)
{
	uint32_t id = (uint32_t)(fl - s->fl);
	const struct web_fl *w = &s->web->w[id];
	uint64_t rx = (uint64_t)w->acked * s->cls[fl->a.cls].cfg.pkt_bytes;
	double n = (double)s->web->nsamples;

	if (n > 0) {
		fl->a.cwnd_mean = w->sw / n;
		fl->a.cwnd_var = w->sww / n - fl->a.cwnd_mean * fl->a.cwnd_mean;
		fl->a.cwnd_cov = w->swW / n - fl->a.cwnd_mean * s->web->sW / n;
	}
	if (w->in_session && w->start_ns < s->dur_ns)
		web_account(s, id, rx < w->size_bytes ? rx : w->size_bytes,
			    s->dur_ns);
}
