/* sim.h - the offline simulator: the daemon's own packet path (core.c:
 * classification, class limits, the scheduler, the pacer, the delay line)
 * driven on a virtual clock by synthetic sources, with no network and no
 * root.  Used by schedtun-sim, by the parameter calculator and by the
 * algorithm tests.  Deterministic: the same config (seed included) gives
 * the same result.  Every source is a set of flows with distinct 5-tuples,
 * each accounted for separately (struct sim_flow). */
#ifndef SCHEDTUN_SIM_H
#define SCHEDTUN_SIM_H

#include <stdio.h>
#include "conf/conf.h"
#include "sched/sched.h"

enum sim_src_kind {
	SIM_SRC_NONE = 0,
	SIM_SRC_GREEDY,         /* saturating: each flow keeps its own backlog
				 * in the scheduler at least `backlog_pkts`
				 * deep ("TCP-like" in the paper's sense:
				 * always has data) */
	SIM_SRC_CBR,            /* each flow at rate_bps (1 + amplitude
				 * cos(2 pi t / period_s)) */
	SIM_SRC_ONOFF,          /* each flow: exponential on and off periods
				 * (means on_ns, off_ns), peak_bps while on */
	SIM_SRC_PARETO,         /* flows arrive (Poisson, or Pareto gaps of
				 * shape arrival_alpha), each sends a Pareto
				 * size (shape alpha, mean mean_bytes) at
				 * peak_bps or greedily, and leaves */
	SIM_SRC_TFRC,           /* policed CBR: each flow starts at rate_bps,
				 * halves its rate on a loss event seen one
				 * rtt_ns later, adds one packet per RTT per
				 * RTT up to rate_bps (docs/simulator.md) */
	SIM_SRC_WEB,            /* WWW-like users (simweb.c): think times of
				 * mean off_ns, then a Pareto size (alpha,
				 * mean_bytes) sent by a TCP-like window at
				 * most at peak_bps (the access rate) */
	SIM_SRC_KINDS
};

extern const char *const sim_src_kind_name[SIM_SRC_KINDS];

#define SIM_CLASS_FLOWS_MAX  50000u     /* flows of one class in one run */

struct sim_source {
	enum sim_src_kind kind;
	uint32_t pkt_bytes;             /* IP packet size */
	uint64_t rate_bps;              /* CBR: mean rate of each flow; TFRC:
					 * its start and ceiling */
	double   amplitude;             /* CBR: 0 <= a < 1 (0: constant) */
	double   period_s;              /* CBR: period of the cosine */
	uint32_t backlog_pkts;          /* GREEDY, greedy PARETO flows: minimum
					 * backlog of each flow, default 4 */
	uint8_t  dscp;                  /* marking; default: the class's first code point */
	uint32_t flows;                 /* GREEDY, CBR, ONOFF, TFRC: this many
					 * flows, each its own source process
					 * with its own 5-tuple (0 or 1: one);
					 * PARETO: the most flows that may
					 * arrive (0: from the arrival rate) */
	uint64_t peak_bps;              /* ONOFF: rate while on; PARETO: rate of
					 * each flow (0 or RATE_UNLIMITED:
					 * greedy) */
	tstamp_ns on_ns, off_ns;        /* ONOFF: mean on and off durations */
	double   alpha;                 /* PARETO: shape of the sizes, > 1 */
	uint64_t mean_bytes;            /* PARETO: mean size */
	double   arrivals_per_s;        /* PARETO: mean flow arrival rate */
	double   arrival_alpha;         /* PARETO: 0 Poisson arrivals, > 1 the
					 * shape of Pareto inter-arrival gaps */
	uint64_t max_bytes;             /* PARETO: 0, or sizes drawn from the
					 * Pareto truncated at this (its
					 * minimum stays mean (alpha-1)/alpha,
					 * so the mean drops below mean_bytes) */
	tstamp_ns rtt_ns;               /* TFRC: feedback delay and AI period */
	/* TFRC, optional: each flow's packets within a token bucket of
	 * profile_bps (two packets deep) are marked with EF's code point,
	 * under the flow's own 5-tuple (the In-Time conforming part; the
	 * rest, the excess, keeps the class's marking); 0: none */
	uint64_t profile_bps;
	/* TFRC, optional: flow f of N has the RTT rtt_ns + (rtt_max_ns -
	 * rtt_ns) f / (N - 1) (a spread of RTTs); 0: rtt_ns for all */
	tstamp_ns rtt_max_ns;
};

/* Where a flow's packets were lost: the scheduler's reasons (sched.h,
 * DROP_CLASS_LIMIT being the core's class limit), then the simulator's
 * own empty packet pool. */
struct jw;

#define SIM_DROP_POOL   DROP_REASON_MAX
#define SIM_DROP_KINDS  (DROP_REASON_MAX + 1)

/* One flow's account at the end of a run.  Conservation, exactly:
 * in_pkts = out_pkts + drop_pkts + queued_pkts. */
struct sim_flow {
	uint8_t   cls;
	uint8_t   kind;                 /* enum sim_src_kind */
	uint32_t  index;                /* within its class, in start order */
	uint32_t  flow_hash;            /* as the classifier computes it */
	uint8_t   saddr[4];             /* its 5-tuple: UDP saddr:sport -> */
	uint16_t  sport;                /* 10.10.0.2:5201 */
	tstamp_ns start_ns;             /* arrival (0 for lasting flows) */
	tstamp_ns end_ns;               /* its last packet was emitted
					 * (TS_NEVER: still sending) */
	uint64_t  size_bytes;           /* PARETO: the size drawn */
	uint64_t  in_pkts, in_bytes;    /* handed to the core */
	uint64_t  out_pkts;             /* dequeued by the scheduler */
	uint64_t  drop_pkts;            /* the sum of drop_by */
	uint64_t  drop_by[SIM_DROP_KINDS];
	uint64_t  queued_pkts;          /* still in the scheduler at the end */
	uint64_t  win_bytes;            /* whose last bit left the link in
					 * [warmup, duration) */
	double    rate_bps;             /* win_bytes over that window */
	/* time in the scheduler (enq_ns to dequeue) of its packets dequeued
	 * in [warmup, duration): log buckets 1/8 octave wide above 1 us, so
	 * the percentiles are bucket upper edges, at most 12.5 % high,
	 * clamped to the exact maximum */
	uint64_t  delay_pkts;
	tstamp_ns delay_p50_ns, delay_p99_ns, delay_max_ns;
	double    delay_mean_ns;
	tstamp_ns last_fin_ns;          /* its last carried bit left the link
					 * (0: none carried) */
	tstamp_ns fct_ns;               /* PARETO: start to last_fin when the
					 * whole size was carried, else 0 */
	tstamp_ns on_time_ns;           /* ONOFF: time on within [0, duration) */
	uint32_t  cuts;                 /* TFRC, WEB: loss events that halved it */
	/* WEB, the sessions that started in [warmup, duration): eq. 2 of
	 * Hayes et al. 1999 is sum(session_bytes) * 8 / sum(session_ns) */
	uint32_t  sessions, sessions_done;      /* started, completed */
	uint64_t  session_bytes;        /* received (a running one: so far) */
	tstamp_ns session_ns;           /* first packet to last received (a
					 * running one: to the end) */
	/* WEB: its cwnd (packets, 0 while thinking) sampled every 100 ms
	 * after the warm-up: mean, variance, and covariance with W, the sum
	 * of every web flow's cwnd (Var(W) = the sum of the covariances) */
	double    cwnd_mean, cwnd_var, cwnd_cov;
	uint64_t  tfrc_rate_bps;        /* TFRC: its rate at the end */
	uint64_t  conf_pkts;            /* TFRC with a profile: of in_pkts,
					 * those marked EF (their drops, if
					 * any, are in drop_pkts too) */
};

/* The flows of one class together. */
struct sim_class_flows {
	uint32_t  flows;                /* that started */
	uint32_t  refused;              /* PARETO arrivals beyond the table */
	uint64_t  in_pkts, out_pkts, drop_pkts, queued_pkts;
	uint64_t  drop_by[SIM_DROP_KINDS];
	uint64_t  delay_pkts;           /* over every packet of the class, */
	tstamp_ns delay_p50_ns, delay_p99_ns, delay_max_ns;  /* hist.h's
					 * 1/16-octave buckets */
	double    delay_mean_ns;
	double    rate_min_bps, rate_mean_bps, rate_max_bps;  /* over flows */
	double    jain;                 /* Jain's index of the flows' rate_bps
					 * (1: equal; 0 when all are 0) */
	uint64_t  sessions, sessions_done;      /* WEB: the flows' sums */
	uint64_t  session_bytes;
	tstamp_ns session_ns;
};

/* One CSV row: rates measured at the link over [t_s - dt_s, t_s). */
struct sim_sample {
	double t_s;                     /* end of the interval */
	double dt_s;                    /* its length (the last may be shorter) */
	double bps[NCLASS];             /* bits whose serialisation ended in it */
	double link_bps;                /* all classes */
	double capacity_bps;            /* mean C(t) over the interval */
};

struct sim_config {
	struct conf conf;               /* link profile, delay, classes, scheduler
					 * and its params (tunnel keys unused) */
	struct sim_source src[NCLASS];
	tstamp_ns duration_ns;
	tstamp_ns warmup_ns;            /* excluded from the means */
	tstamp_ns sample_ns;            /* CSV row interval (0: no CSV) */
	FILE     *csv;                  /* rows: t_s,ef_bps,af_bps,cs0_bps,link_bps,capacity_bps
					 * (NULL: none) */
	FILE     *stats;                /* optional: daemon-format stats lines every sample_ns */
	/* optional: called with every row (the same numbers as the CSV), in
	 * time order, after the run */
	void    (*sample_cb)(void *ctx, const struct sim_sample *s);
	void     *sample_ctx;
	uint64_t  seed;                 /* of every random source (splitmix64
					 * streams, one per flow and per
					 * arrival process); 0 is a seed too */
	FILE     *flows_csv;            /* optional: one row per flow at the end */
	/* optional: called with every flow's account at the end, class by
	 * class, in start order (the same numbers as the flows CSV) */
	void    (*flow_cb)(void *ctx, const struct sim_flow *f);
	void     *flow_ctx;
	int       cost;                 /* measure struct sim_cost (wall
					 * clock, never the virtual one) */
	/* optional: at the end of the run, the scheduler's cumulative
	 * counters (its dump_stats, as the stats lines' "sched" member
	 * without deltas) as member "sched" of the object open in it */
	struct jw *sched_json;
};

/* With cfg->cost: where the wall time of the run loop went, to compare
 * the schedulers' cost per packet (docs/simulator.md "Cost").  The
 * counts are the simulator's own and exact; the times are wall-clock
 * nanoseconds, each timed interval minus the measured cost of reading
 * the clock (clock_ns), so they depend on the machine and its load. */
struct sim_cost {
	uint64_t enq_pkts;              /* packets the scheduler's enqueue took */
	uint64_t deq_pkts;              /* packets its dequeue returned */
	uint64_t sched_calls;           /* calls of its ops in the run loop */
	uint64_t path_calls;            /* core_tun_input() and core_run() calls */
	double   sched_ns;              /* inside the scheduler's ops (the
					 * simulator's drop observer taken out) */
	double   path_ns;               /* inside core_tun_input() and
					 * core_run(): the daemon's packet path
					 * with the fake send and the observers */
	double   loop_ns;               /* the whole run loop, sources included */
	double   clock_ns;              /* one clock read: the mean of a
					 * calibration at the start */
};

struct sim_result {
	double   mean_bps[NCLASS];      /* out rate after warm-up */
	double   link_mean_bps;         /* mean C(t) over the same window */
	uint64_t out_bytes[NCLASS];     /* carried by the link in [0, duration) */
	uint64_t drop_pkts[NCLASS];     /* every drop of the run, any reason */
	uint64_t events;                /* packets dequeued (carried in [0, duration)) */
	uint64_t pool_empty_pkts;       /* source packets lost for want of a
					 * buffer (also in drop_pkts) */
	struct sim_class_flows flows[NCLASS];
	struct sim_cost cost;           /* with cfg->cost, else zeros */
};

/* The end-of-run summary as members of the object open in w: the run,
 * the link, each class's source, mean rate, share of C, packets, drops
 * by reason and time in the scheduler (simjson.c; docs/json-output.md).
 * cfg->sched_json's "sched" comes from the run itself. */
void sim_json_summary(struct jw *w, const struct sim_config *cfg,
		      const struct sim_result *r);
/* A source as the summary table shows it ("cbr 5Mbit 1500B") into buf;
 * returns buf (simjson.c). */
const char *sim_source_text(const struct sim_source *s, char *buf,
			    size_t len);

/* Runs the simulation.  cfg->conf is only read (the simulator works on a
 * copy).  0, or -1 with a message on stderr. */
int sim_run(const struct sim_config *cfg, struct sim_result *res);

#endif
