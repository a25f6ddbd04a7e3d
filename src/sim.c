/* sim.c - the offline simulator (sim.h).
 *
 * The daemon's own packet path (core.c) runs on a virtual clock: a fake
 * core_io whose send() records departures, synthetic IPv4/UDP packets fed
 * through core_tun_input(), and core_run() called at exactly the times it
 * asks for.  Classification, class limits, the scheduler, the pacer and the
 * delay line are therefore the daemon's code, not a model of it.
 *
 * Events, in time order: the next emission of every CBR source, the core's
 * wake-up (link free, delay-line release, scheduler event), and the stats
 * boundaries when daemon-format stats are asked for.  At one instant: the
 * stats line (closing [t0, t)), then the core (departures first, as in
 * Mahimahi), then the arrivals, then the core again until it has nothing
 * left to do now.  Greedy sources have no events of their own: they top
 * their class queue up to backlog_pkts at start and after every
 * core_run(), so the scheduler always sees them backlogged, which is the
 * PSS paper's hypothesis 2 (§2.4).
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

#include "core.h"
#include "log.h"
#include "pkt.h"
#include "sim.h"
#include "tunnel.h"

#define SIM_HDR_BYTES        28u        /* IPv4 + UDP of a synthetic packet */
#define SIM_PKT_MAX_BYTES    9000u      /* the daemon's largest MTU */
#define SIM_BACKLOG_DEFAULT  4u
#define SIM_BINS_MAX         (1u << 24) /* CSV rows kept for the end */
#define SIM_SPINS_MAX        1000000u   /* core runs at one instant: a stall */
#define SIM_POOL_SLACK       64u
#define SIM_POOL_MAX         (1u << 20)
#define SIM_STATS_LINE_MAX   8192
#define SIM_SPORT_BASE       40000u     /* source port of flow 0, class 0 */
#define SIM_DPORT            5201u      /* iperf3's */

struct sim_src {
	struct sim_source cfg;          /* defaults resolved */
	struct link_profile curve;      /* CBR: its cumulative bits B(t) */
	double    pkt_bits;
	uint64_t  next_k;               /* CBR: index of the next packet */
	tstamp_ns next_ns;              /* CBR: its emission time, or TS_NEVER */
	uint32_t  flow;                 /* next flow of the round robin */
	tstamp_ns stalled_ns;           /* GREEDY: refused a packet at this
					 * instant; no more top-ups until later */
	uint8_t   hdr[SIM_HDR_BYTES];   /* IPv4 + UDP template */
};

struct sim {
	struct core core;               /* never moves: the pacer points into it */
	struct sim_src src[NCLASS];
	tstamp_ns now_ns;               /* the virtual clock */
	tstamp_ns dur_ns, warm_ns, sample_ns, delay_ns;
	size_t    nbins;
	uint64_t *bin_bytes;            /* [nbins][NCLASS], by finish time */
	uint64_t  win_bytes[NCLASS];    /* finished in [warmup, duration) */
	uint64_t  run_bytes[NCLASS];    /* finished in [0, duration) */
	uint64_t  carried_pkts;
	uint64_t  drop_pkts[NCLASS];    /* folded from the core's deltas */
	uint64_t  pool_empty;
	uint64_t  bad_sends;            /* datagrams the fake send could not read */
};

/* ---- synthetic packets ------------------------------------------------- */

/* Writes the IPv4 + UDP header of a len_bytes packet marked dscp from
 * 10.10.0.1:sport to 10.10.0.2:5201 (valid IPv4 checksum, UDP checksum 0 =
 * none, as IPv4 allows). */
static void sim_make_hdr(uint8_t *h, uint32_t len_bytes, uint8_t dscp,
			 uint16_t sport)
{
	memset(h, 0, SIM_HDR_BYTES);
	h[0] = 0x45;
	h[1] = (uint8_t)(dscp << 2);
	h[2] = (uint8_t)(len_bytes >> 8);
	h[3] = (uint8_t)len_bytes;
	h[6] = 0x40;                    /* DF */
	h[8] = 64;
	h[9] = 17;
	h[12] = 10; h[13] = 10; h[14] = 0; h[15] = 1;
	h[16] = 10; h[17] = 10; h[18] = 0; h[19] = 2;
	ipv4_set_checksum(h);
	h[20] = (uint8_t)(sport >> 8);
	h[21] = (uint8_t)sport;
	h[22] = (uint8_t)(SIM_DPORT >> 8);
	h[23] = (uint8_t)SIM_DPORT;
	h[24] = (uint8_t)((len_bytes - 20) >> 8);
	h[25] = (uint8_t)(len_bytes - 20);
}

/* Hands one packet of class k's source to the core at `now`.  0, or -1
 * when the pool is empty (the packet is lost and counted as a drop). */
static int sim_inject(struct sim *s, unsigned k, tstamp_ns now)
{
	struct sim_src *src = &s->src[k];
	struct pkt *p = pkt_alloc();
	uint16_t sport;

	if (!p) {
		s->pool_empty++;
		s->drop_pkts[k]++;
		return -1;
	}
	memcpy(p->data, src->hdr, SIM_HDR_BYTES);
	if (src->cfg.flows > 1) {
		/* ports are outside the IPv4 header checksum */
		sport = (uint16_t)(SIM_SPORT_BASE + k * 1000u + src->flow);
		p->data[20] = (uint8_t)(sport >> 8);
		p->data[21] = (uint8_t)sport;
		if (++src->flow == src->cfg.flows)
			src->flow = 0;
	}
	p->len_bytes = src->cfg.pkt_bytes;
	core_tun_input(&s->core, p, now);
	return 0;
}

/* Emits every CBR packet due at `now` (the loop never passes a due
 * emission, so "due" means "at now").  Packet k leaves when the source's
 * cumulative bits B(t) = R t + R a T/(2 pi) sin(2 pi t/T) first reach
 * k * pkt_bits: B is the cosine link's service curve, so link.c's exact
 * inverse gives the times; emissions stop at the end of the run. */
static void sim_emit_cbr(struct sim *s, tstamp_ns now)
{
	unsigned k;

	for (k = 0; k < NCLASS; k++) {
		struct sim_src *src = &s->src[k];

		while (src->next_ns <= now) {
			tstamp_ns t;

			sim_inject(s, k, now);
			src->next_k++;
			t = link_time_for_bits(&src->curve,
					       (double)src->next_k * src->pkt_bits,
					       src->next_ns);
			src->next_ns = t >= s->dur_ns ? TS_NEVER : t;
		}
	}
}

/* Tops every greedy class queue up to its backlog (never above the class
 * limit, so a greedy source is never the cause of a class-limit drop).
 * A class whose queue did not grow on an enqueue (the scheduler dropped
 * or pushed out) is left alone for the rest of this instant, so this
 * terminates.  Returns the number of packets handed to the core. */
static unsigned sim_topup(struct sim *s, tstamp_ns now)
{
	unsigned k, n = 0;

	if (now >= s->dur_ns)
		return 0;
	for (k = 0; k < NCLASS; k++) {
		struct sim_src *src = &s->src[k];
		uint32_t want = src->cfg.backlog_pkts;

		if (src->cfg.kind != SIM_SRC_GREEDY || src->stalled_ns == now)
			continue;
		if (want > s->core.conf.limit_pkts[k])
			want = s->core.conf.limit_pkts[k];
		while (s->core.qlen_pkts[k] < want) {
			uint32_t before = s->core.qlen_pkts[k];

			if (sim_inject(s, k, now) < 0) {
				src->stalled_ns = now;
				break;
			}
			n++;
			if (s->core.qlen_pkts[k] <= before) {
				src->stalled_ns = now;
				break;
			}
		}
	}
	return n;
}

/* ---- measurement ------------------------------------------------------- */

/* The fake core_io send: the datagram left the delay line now, so its last
 * bit left the link at now - delay.  Counts it by class and finish time.
 * Always "sent". */
static int sim_send(void *ctx, const uint8_t *buf, size_t len,
		    const struct conf_addr *to)
{
	struct sim *s = ctx;
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

/* Checks source k of cfg and fills src with the defaults resolved.
 * 0 or -1 with a message. */
static int sim_src_setup(struct sim_src *src, const struct sim_source *in,
			 const struct conf *conf, unsigned k, tstamp_ns dur_ns)
{
	int d;

	memset(src, 0, sizeof(*src));
	src->cfg = *in;
	src->next_ns = TS_NEVER;
	src->stalled_ns = TS_NEVER;
	src->curve.kind = LINK_UNLIMITED;
	if (in->kind == SIM_SRC_NONE)
		return 0;
	if (in->kind != SIM_SRC_GREEDY && in->kind != SIM_SRC_CBR) {
		log_err("sim: %s source: kind %d is not a source kind "
			"(accepted: none, greedy, cbr)", cls_name[k], (int)in->kind);
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
	src->cfg.dscp = (uint8_t)d;
	if (src->cfg.flows > 1000) {
		log_err("sim: %s source: %u flows (accepted: 0..1000)",
			cls_name[k], src->cfg.flows);
		return -1;
	}
	sim_make_hdr(src->hdr, in->pkt_bytes, src->cfg.dscp,
		     (uint16_t)(SIM_SPORT_BASE + k * 1000u));
	src->pkt_bits = (double)in->pkt_bytes * 8.0;

	if (in->kind == SIM_SRC_GREEDY) {
		if (!src->cfg.backlog_pkts)
			src->cfg.backlog_pkts = SIM_BACKLOG_DEFAULT;
		return 0;
	}
	if (in->rate_bps == 0 || in->rate_bps > (1ULL << 50)) {
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
		src->curve.kind = LINK_COSINE;
		src->curve.mean_bps = in->rate_bps;
		src->curve.amplitude = in->amplitude;
		src->curve.period_s = in->period_s;
	} else {
		src->curve.kind = LINK_CONSTANT;
		src->curve.rate_bps = in->rate_bps;
	}
	src->next_ns = dur_ns > 0 ? 0 : TS_NEVER;  /* packet 0 at t = 0 */
	return 0;
}

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

/* Buffers the run can hold at once: CBR queues up to their limit, greedy
 * ones to their backlog, plus what the delay line carries at the peak
 * rate in the smallest packets, plus slack; at most SIM_POOL_MAX (beyond
 * that, pool-empty losses are counted and reported). */
static uint32_t sim_pool_pkts(const struct sim *s, const struct conf *c,
			      uint32_t min_bytes)
{
	double pkts = SIM_POOL_SLACK;
	unsigned k;

	for (k = 0; k < NCLASS; k++) {
		const struct sim_source *src = &s->src[k].cfg;

		if (src->kind == SIM_SRC_CBR)
			pkts += c->limit_pkts[k];
		else if (src->kind == SIM_SRC_GREEDY)
			pkts += src->backlog_pkts < c->limit_pkts[k] ?
				src->backlog_pkts : c->limit_pkts[k];
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
	unsigned k, spins;

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
		core_run(&s->core, now);
		sim_emit_cbr(s, now);
		sim_topup(s, now);
		for (spins = 0;; spins++) {
			if (spins == SIM_SPINS_MAX) {
				log_err("sim: scheduler %s makes no progress at "
					"t = %.9f s (it keeps asking to run at "
					"the same instant)",
					s->core.conf.sched->name, (double)now / 1e9);
				return -1;
			}
			wake = core_run(&s->core, now);
			/* wake == now: the core stopped at its burst limit */
			if (wake > now && !sim_topup(s, now))
				break;
		}
		next = wake;
		for (k = 0; k < NCLASS; k++)
			if (s->src[k].next_ns < next)
				next = s->src[k].next_ns;
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
	for (k = 0; k < NCLASS; k++) {
		if (sim_src_setup(&s->src[k], &cfg->src[k], &cfg->conf, k,
				  s->dur_ns))
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

	rc = sim_loop(s, cfg->sample_ns ? cfg->stats : NULL);
	sim_fold_drops(s);
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
	free(s->bin_bytes);
	free(s);
	return rc;
}
