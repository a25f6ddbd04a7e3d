/* sim.c - the offline simulator (sim.h).
 *
 * The daemon's own packet path (core.c) runs on a virtual clock: a fake
 * core_io whose send() records departures, synthetic IPv4/UDP packets fed
 * through core_tun_input(), and core_run() called at exactly the times it
 * asks for.  Classification, class limits, the scheduler, the pacer and the
 * delay line are therefore the daemon's code, not a model of it.
 *
 * Events, in time order: the sources' timed events (simsrc.c: CBR, on-off,
 * paced and TFRC-like packets, flow arrivals), the core's wake-up (link
 * free, delay-line release, scheduler event), and the stats boundaries
 * when daemon-format stats are asked for.  At one instant: the stats line
 * (closing [t0, t)), then the core (departures first, as in Mahimahi),
 * then the arrivals, then the core again until it has nothing left to do
 * now.  Greedy flows have no events of their own: they top their backlog
 * up to backlog_pkts at start and after every core_run(), so the
 * scheduler always sees them backlogged, which is the PSS paper's
 * hypothesis 2 (§2.4).
 *
 * Per-flow observation (simflow.c) without touching core.c: the core's
 * scheduler is re-created at set-up with a drop callback that sees each
 * dropped packet before the core's own, and the core is handed a copy of
 * the scheduler's ops whose dequeue sees each packet leave; the wrapper
 * forwards everything else unchanged, so the daemon's path is the same.
 *
 * Measurement point: a packet counts when its last bit leaves the emulated
 * link.  The fake send() sees it after the delay line, at release time =
 * finish + delay exactly (the core is never run late and the delay is
 * fixed), so finish = now - delay.  The run goes on until duration + delay
 * so that every packet finishing before `duration` is seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "core/core.h"
#include "pkt/pkt.h"
#include "pkt/tunnel.h"
#include "util/jw.h"
#include "util/log.h"
#include "sim_int.h"

#define SIM_BINS_MAX         (1u << 24) /* CSV rows kept for the end */
#define SIM_SPINS_MAX        1000000u   /* core runs at one instant: a stall */
#define SIM_POOL_SLACK       64u
#define SIM_POOL_MAX         (1u << 20)
#define SIM_STATS_LINE_MAX   8192

/* ---- the scheduler seen through observers --------------------------------- */

/* The sim whose core owns the drop callback (core is its first member). */
static struct sim *sim_of_core(void *owner)
{
	return (struct sim *)owner;
}

/* The env's drop: the flow learns of it, then the core counts and frees. */
static void sim_sched_drop(void *owner, struct pkt *p, enum drop_reason why)
{
	struct sim *s = sim_of_core(owner);
	uint64_t t0 = sim_cost_t0(s);
	struct sim_fl *fl = sim_flow_dropped(s, p, why, s->now_ns);

	if (fl) {
		sim_src_left(s, fl, s->now_ns);
		sim_src_lost(s, fl, s->now_ns);
	}
	sim_cost_drop(s, t0);           /* the observer is not the scheduler */
	s->core_drop(owner, p, why);
}

/* The wrappers below time each call of the real op for --cost
 * (simcost.c); the observers run outside the timed interval. */
static void w_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct sim *s = priv;
	uint64_t t0 = sim_cost_t0(s);

	s->inner.ops->enqueue(s->inner.priv, p, now);
	sim_cost_sched(s, t0);
	s->cost.enq_pkts++;
}

/* The dequeue observer: `now` is the time the packet starts on the link. */
static struct pkt *w_dequeue(void *priv, tstamp_ns now)
{
	struct sim *s = priv;
	uint64_t t0 = sim_cost_t0(s);
	struct pkt *p = s->inner.ops->dequeue(s->inner.priv, now);

	sim_cost_sched(s, t0);
	if (p) {
		struct sim_fl *fl;

		s->cost.deq_pkts++;
		fl = sim_flow_dequeued(s, p, now);
		if (fl)
			sim_src_left(s, fl, now);
	}
	return p;
}

static const struct pkt *w_peek(void *priv, tstamp_ns now)
{
	struct sim *s = priv;
	uint64_t t0 = sim_cost_t0(s);
	const struct pkt *p = s->inner.ops->peek(s->inner.priv, now);

	sim_cost_sched(s, t0);
	return p;
}

static tstamp_ns w_next_event(void *priv, tstamp_ns now)
{
	struct sim *s = priv;
	uint64_t t0 = sim_cost_t0(s);
	tstamp_ns t = s->inner.ops->next_event(s->inner.priv, now);

	sim_cost_sched(s, t0);
	return t;
}

static struct pkt *w_drain(void *priv)
{
	struct sim *s = priv;
	uint64_t t0 = sim_cost_t0(s);
	struct pkt *p = s->inner.ops->drain(s->inner.priv);

	sim_cost_sched(s, t0);
	return p;
}

static void w_dump_stats(void *priv, struct jw *w)
{
	struct sim *s = priv;
	uint64_t t0 = sim_cost_t0(s);

	if (s->inner.ops->dump_stats)
		s->inner.ops->dump_stats(s->inner.priv, w);
	sim_cost_sched(s, t0);
}

/* The scheduler's counters at the end, cumulative (a writer without a
 * memo), as member "sched" of w; nothing without w. */
static void sim_sched_json(struct sim *s, struct jw *w)
{
	if (!w)
		return;
	jw_obj_begin(w, "sched");
	jw_str(w, "name", s->inner.ops->name);
	if (s->inner.ops->dump_stats)
		s->inner.ops->dump_stats(s->inner.priv, w);
	jw_obj_end(w);
}

/* Replaces the core's fresh scheduler by an identical instance whose
 * drops go through sim_sched_drop, and puts the observers in front of
 * it.  0, or -1 with a message (the core then holds no scheduler). */
static int sim_observe(struct sim *s)
{
	struct core *c = &s->core;
	const struct sched_ops *ops = c->sched.ops;

	sched_destroy(&c->sched);
	memset(&c->sched, 0, sizeof(c->sched));
	s->core_drop = c->env.drop;
	c->env.drop = sim_sched_drop;
	if (sched_create(&s->inner, ops, c->conf.sched_params, &c->env)) {
		log_err("sim: scheduler %s: initialisation failed", ops->name);
		return -1;
	}
	s->wrap_ops = *ops;
	s->wrap_ops.enqueue = w_enqueue;
	s->wrap_ops.dequeue = w_dequeue;
	s->wrap_ops.peek = w_peek;
	s->wrap_ops.next_event = w_next_event;
	s->wrap_ops.drain = w_drain;
	s->wrap_ops.dump_stats = ops->dump_stats ? w_dump_stats : NULL;
	s->wrap_ops.destroy = NULL;     /* the core gets the real one back */
	c->sched.ops = &s->wrap_ops;
	c->sched.priv = s;
	return 0;
}

/* Gives the core its real scheduler back, for core_destroy. */
static void sim_unobserve(struct sim *s)
{
	s->core.sched = s->inner;
	memset(&s->inner, 0, sizeof(s->inner));
}

/* ---- measurement ------------------------------------------------------- */

/* The fake core_io send: the datagram left the delay line now, so its last
 * bit left the link at now - delay.  Counts it by class, flow and finish
 * time.  Always "sent". */
static int sim_send(void *ctx, const uint8_t *buf, size_t len,
		    const struct conf_addr *to)
{
	struct sim *s = ctx;
	struct sim_fl *fl;
	struct tun_hdr h;
	tstamp_ns fin;

	(void)to;
	if (tun_hdr_decode(buf, len, UINT16_MAX, &h) != TUN_OK) {
		s->bad_sends++;
		return 0;
	}
	fin = s->now_ns >= s->delay_ns ? s->now_ns - s->delay_ns : 0;
	if (fin >= s->dur_ns)
		return 0;
	fl = sim_flow_of(s, buf + TUN_HDR_BYTES, len - TUN_HDR_BYTES, h.cls);
	if (fl) {
		sim_flow_carried(s, fl, h.len_bytes, fin);
		sim_src_carried(s, fl, fin);
	}
	s->carried_pkts++;
	s->run_bytes[h.cls] += h.len_bytes;
	if (fin >= s->warm_ns)
		s->win_bytes[h.cls] += h.len_bytes;
	if (s->nbins)
		s->bin_bytes[(size_t)(fin / s->sample_ns) * NCLASS + h.cls] +=
			h.len_bytes;
	return 0;
}

/* Nothing comes back from a peer in the simulator. */
static int sim_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

/* Adds the core's drop deltas to the run totals; called exactly before
 * they are reset (a stats line) and once at the end. */
static void sim_fold_drops(struct sim *s)
{
	unsigned k;

	for (k = 0; k < NCLASS; k++)
		s->drop_pkts[k] += s->core.st.cls[k].drop_pkts;
}

/* One daemon-format stats line for the interval ending now. */
static void sim_stats_line(struct sim *s, FILE *out, tstamp_ns now)
{
	char line[SIM_STATS_LINE_MAX];
	uint64_t drops[NCLASS];
	unsigned k;
	int n;

	for (k = 0; k < NCLASS; k++)
		drops[k] = s->core.st.cls[k].drop_pkts;
	n = core_stats_line(&s->core, now, line, sizeof(line));
	if (n < 0) {            /* deltas kept: folded later */
		log_warn("sim: stats line longer than %d bytes; not written",
			 SIM_STATS_LINE_MAX);
		return;
	}
	for (k = 0; k < NCLASS; k++)
		s->drop_pkts[k] += drops[k];
	fwrite(line, 1, (size_t)n, out);
}

/* ---- set-up ------------------------------------------------------------ */

/* An upper bound on C(t) in bit/s, for sizing the delay line's share of
 * the pool; mahimahi: every opportunity of a period inside one delay. */
static double sim_peak_bps(const struct link_profile *l, tstamp_ns delay_ns)
{
	double peak_bps = 0.0;
	uint32_t i;

	switch (l->kind) {
	case LINK_CONSTANT:
		return (double)l->rate_bps;
	case LINK_COSINE:
		return (double)l->mean_bps * (1.0 + l->amplitude);
	case LINK_TRACE:
		for (i = 0; i < l->npts; i++)
			if ((double)l->pts[i].rate_bps > peak_bps)
				peak_bps = (double)l->pts[i].rate_bps;
		return peak_bps;
	case LINK_MAHIMAHI:
		/* opportunities inside any window of `delay`: at most
		 * (delay / period + 2) periods' worth */
		return ((double)delay_ns / ((double)l->mm_period_ms * 1e6) + 2.0) *
		       (double)l->nopps * MAHIMAHI_OPP_BYTES * 8.0 /
		       ((double)delay_ns / 1e9 + 1e-9);
	default:
		return 0.0;
	}
}

/* Buffers the run can hold at once: timed and Pareto sources' queues up
 * to their limit, greedy ones to their flows' backlogs, plus what the delay line carries at the peak
 * rate in the smallest packets, plus slack; at most SIM_POOL_MAX (beyond
 * that, pool-empty losses are counted and reported). */
static uint32_t sim_pool_pkts(const struct sim *s, const struct conf *c,
			      uint32_t min_bytes)
{
	double pkts = SIM_POOL_SLACK;
	unsigned k;

	for (k = 0; k < NCLASS; k++) {
		const struct sim_cls *src = &s->cls[k];
		double greedy = (double)src->want_pkts * src->cap;

		if (src->cfg.kind == SIM_SRC_GREEDY)
			pkts += greedy < c->limit_pkts[k] ? greedy : c->limit_pkts[k];
		else if (src->cfg.kind != SIM_SRC_NONE)
			pkts += c->limit_pkts[k];
	}
	if (min_bytes)
		pkts += sim_peak_bps(&c->link, s->delay_ns) *
			((double)s->delay_ns / 1e9) / (8.0 * min_bytes) * 1.01 + 2.0;
	return pkts > SIM_POOL_MAX ? SIM_POOL_MAX : (uint32_t)pkts;
}

static int sim_check(const struct sim_config *cfg)
{
	if (cfg->conf.link.kind == LINK_UNLIMITED) {
		log_err("sim: link rate 'unlimited' has no capacity to simulate "
			"(accepted: a rate or a profile)");
		return -1;
	}
	if (!cfg->conf.sched) {
		log_err("sim: no scheduler in the configuration");
		return -1;
	}
	if (cfg->duration_ns == 0 || cfg->duration_ns > 1000000 * NS_PER_SEC) {
		log_err("sim: duration %.9g s (accepted: 0 < duration <= 1e6 s)",
			(double)cfg->duration_ns / 1e9);
		return -1;
	}
	if (cfg->warmup_ns >= cfg->duration_ns) {
		log_err("sim: warm-up %.9g s leaves nothing of the %.9g s run "
			"(accepted: 0 <= warm-up < duration)",
			(double)cfg->warmup_ns / 1e9,
			(double)cfg->duration_ns / 1e9);
		return -1;
	}
	if (cfg->sample_ns &&
	    (cfg->duration_ns - 1) / cfg->sample_ns + 1 > SIM_BINS_MAX) {
		log_err("sim: sample interval %.9g s gives more than %u rows "
			"over %.9g s (accepted: a longer interval)",
			(double)cfg->sample_ns / 1e9, SIM_BINS_MAX,
			(double)cfg->duration_ns / 1e9);
		return -1;
	}
	return 0;
}

/* ---- the run ----------------------------------------------------------- */

/* Events in time order until duration + delay (see the file comment).
 * 0, or -1 when the core makes no progress at one instant. */
static int sim_loop(struct sim *s, FILE *stats)
{
	tstamp_ns end = s->dur_ns + s->delay_ns;
	tstamp_ns now = 0, wake, next, stat_ns;
	unsigned spins;

	stat_ns = !stats || !s->sample_ns ? TS_NEVER :
		  s->sample_ns < s->dur_ns ? s->sample_ns : s->dur_ns;
	for (;;) {
		s->now_ns = now;
		if (now == stat_ns) {
			/* before this instant's arrivals: [t0, t1) */
			sim_stats_line(s, stats, now);
			stat_ns = now >= s->dur_ns ? TS_NEVER :
				  (s->dur_ns - now > s->sample_ns ?
				   now + s->sample_ns : s->dur_ns);
		}
		/* departures before arrivals at one instant, Mahimahi's
		 * order (link.h): what the link owes now goes to what was
		 * queued before now; a packet arriving now competes after */
		sim_core_run(s, now);
		sim_src_emit(s, now);
		sim_src_topup(s, now);
		for (spins = 0;; spins++) {
			if (spins == SIM_SPINS_MAX) {
				log_err("sim: scheduler %s makes no progress at "
					"t = %.9f s (it keeps asking to run at "
					"the same instant)",
					s->core.conf.sched->name, (double)now / 1e9);
				return -1;
			}
			wake = sim_core_run(s, now);
			/* wake == now: the core stopped at its burst limit */
			if (wake > now && !sim_src_topup(s, now))
				break;
		}
		next = wake;
		if (sim_src_next_ns(s) < next)
			next = sim_src_next_ns(s);
		if (stat_ns < next)
			next = stat_ns;
		if (next > end)
			return 0;
		now = next;
	}
}

/* The CSV rows and callbacks, from the per-interval byte counts. */
static void sim_report(const struct sim *s, const struct sim_config *cfg)
{
	const struct link_profile *l = &cfg->conf.link;    /* the core's copy is gone */
	size_t i;
	unsigned k;

	if (cfg->csv)
		fprintf(cfg->csv, "t_s,ef_bps,af_bps,cs0_bps,link_bps,capacity_bps\n");
	for (i = 0; i < s->nbins; i++) {
		tstamp_ns t0 = (tstamp_ns)i * s->sample_ns;
		tstamp_ns t1 = t0 + s->sample_ns < s->dur_ns ? t0 + s->sample_ns
							     : s->dur_ns;
		struct sim_sample r;

		memset(&r, 0, sizeof(r));
		r.t_s = (double)t1 / 1e9;
		r.dt_s = (double)(t1 - t0) / 1e9;
		for (k = 0; k < NCLASS; k++) {
			r.bps[k] = (double)s->bin_bytes[i * NCLASS + k] * 8.0 / r.dt_s;
			r.link_bps += r.bps[k];
		}
		r.capacity_bps = (link_service_bits(l, t1) -
				  link_service_bits(l, t0)) / r.dt_s;
		if (cfg->csv)
			fprintf(cfg->csv, "%.9g,%.0f,%.0f,%.0f,%.0f,%.0f\n",
				r.t_s, r.bps[CLS_EF], r.bps[CLS_AF],
				r.bps[CLS_CS0], r.link_bps, r.capacity_bps);
		if (cfg->sample_cb)
			cfg->sample_cb(cfg->sample_ctx, &r);
	}
}

/* Sets up the core on a copy of cfg->conf with the fake io, runs, fills
 * res (which may be NULL), and returns every packet to the pool, which it
 * creates and destroys itself unless the caller already made one (then
 * its buffers must hold the largest source packet).  0, or -1 with a
 * message (log_err) and no resource held. */
int sim_run(const struct sim_config *cfg, struct sim_result *res)
{
	static const struct core_io io_tmpl = { .send = sim_send,
						.tun_write = sim_tun_write };
	struct core_io io = io_tmpl;
	struct sockaddr_in *peer;
	struct conf conf;
	struct sim *s;
	uint32_t max_bytes = 0, min_bytes = 0;
	int own_pool = 0, rc = -1;
	unsigned k;

	if (res)
		memset(res, 0, sizeof(*res));
	if (sim_check(cfg))
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s) {
		log_err("sim: out of memory");
		return -1;
	}
	s->dur_ns = cfg->duration_ns;
	s->warm_ns = cfg->warmup_ns;
	s->sample_ns = cfg->sample_ns;
	s->delay_ns = cfg->conf.delay_ns;
	s->seed = cfg->seed;
	for (k = 0; k < NCLASS; k++) {
		if (sim_src_setup(s, &cfg->src[k], &cfg->conf, k))
			goto out_free;
		if (cfg->src[k].kind == SIM_SRC_NONE)
			continue;
		if (cfg->src[k].pkt_bytes > max_bytes)
			max_bytes = cfg->src[k].pkt_bytes;
		if (!min_bytes || cfg->src[k].pkt_bytes < min_bytes)
			min_bytes = cfg->src[k].pkt_bytes;
	}
	if (s->sample_ns) {
		s->nbins = (size_t)((s->dur_ns - 1) / s->sample_ns + 1);
		s->bin_bytes = calloc(s->nbins * NCLASS, sizeof(*s->bin_bytes));
		if (!s->bin_bytes) {
			log_err("sim: out of memory for %zu rows", s->nbins);
			goto out_free;
		}
	}
	if (sim_src_start(s))
		goto out_free;

	if (pkt_pool_size() == 0) {
		if (pkt_pool_init(sim_pool_pkts(s, &cfg->conf, min_bytes),
				  max_bytes ? max_bytes : SIM_HDR_BYTES)) {
			log_err("sim: packet pool: %s", strerror(errno));
			goto out_free;
		}
		own_pool = 1;
	} else if (pkt_pool_cap_bytes() < max_bytes) {
		log_err("sim: the existing packet pool holds %u-byte packets "
			"(accepted: sources of at most that size)",
			pkt_pool_cap_bytes());
		goto out_free;
	}

	/* the copy the core will own */
	conf = cfg->conf;
	if (link_profile_copy(&conf.link, &cfg->conf.link)) {
		log_err("sim: out of memory copying the link profile");
		goto out_pool;
	}
	conf.has_peer = 1;              /* the fake send ignores it */
	memset(&conf.peer, 0, sizeof(conf.peer));
	peer = (struct sockaddr_in *)&conf.peer.ss;
	peer->sin_family = AF_INET;
	peer->sin_port = htons(5000);
	peer->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	conf.peer.len = sizeof(*peer);
	io.ctx = s;
	if (core_init(&s->core, &conf, &io, 0))
		goto out_pool;          /* core_init freed the copy */
	s->core.real_minus_mono_ns = 0;

	if (sim_observe(s) == 0) {
		struct sim_cost cost;

		if (cfg->cost)
			sim_cost_start(s);
		rc = sim_loop(s, cfg->sample_ns ? cfg->stats : NULL);
		sim_cost_stop(s, &cost);        /* before the drain's calls */
		if (res && cfg->cost)
			res->cost = cost;
		sim_fold_drops(s);
		if (rc == 0) {
			sim_src_finish(s);
			sim_flows_finish(s, cfg, res);
			sim_sched_json(s, cfg->sched_json);
		}
		sim_unobserve(s);
	}
	core_destroy(&s->core);
	if (rc == 0) {
		double win_s = (double)(s->dur_ns - s->warm_ns) / 1e9;
		const struct link_profile *l = &cfg->conf.link;

		sim_report(s, cfg);
		if (s->pool_empty)
			log_warn("sim: %llu source packets lost: the packet "
				 "pool was empty", (unsigned long long)s->pool_empty);
		if (s->bad_sends)
			log_warn("sim: %llu datagrams from the core could not "
				 "be decoded", (unsigned long long)s->bad_sends);
		if (res) {
			for (k = 0; k < NCLASS; k++) {
				res->mean_bps[k] = (double)s->win_bytes[k] * 8.0 / win_s;
				res->out_bytes[k] = s->run_bytes[k];
				res->drop_pkts[k] = s->drop_pkts[k];
			}
			res->link_mean_bps = (link_service_bits(l, s->dur_ns) -
					      link_service_bits(l, s->warm_ns)) / win_s;
			res->events = s->carried_pkts;
			res->pool_empty_pkts = s->pool_empty;
		}
	}
out_pool:
	if (own_pool) {
		if (pkt_pool_in_use())
			log_err("sim: %u packets still held at the end (a leak)",
				pkt_pool_in_use());
		pkt_pool_destroy();
	}
out_free:
	sim_src_free(s);
	free(s->bin_bytes);
	free(s);
	return rc;
}
