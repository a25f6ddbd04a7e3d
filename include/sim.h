/* sim.h - the offline simulator: the daemon's own packet path (core.c:
 * classification, class limits, the scheduler, the pacer, the delay line)
 * driven on a virtual clock by synthetic sources, with no network and no
 * root.  Used by schedtun-sim, by the parameter calculator and by the
 * algorithm tests.  Deterministic: the same config gives the same result. */
#ifndef SCHEDTUN_SIM_H
#define SCHEDTUN_SIM_H

#include <stdio.h>
#include "conf.h"

enum sim_src_kind {
	SIM_SRC_NONE = 0,
	SIM_SRC_GREEDY,         /* saturating aggregate: keeps its class queue
				 * at least `backlog_pkts` deep ("TCP-like"
				 * in the paper's sense: always has data) */
	SIM_SRC_CBR,            /* rate(t) = rate_bps (1 + amplitude cos(2 pi t / period_s)) */
};

struct sim_source {
	enum sim_src_kind kind;
	uint32_t pkt_bytes;             /* IP packet size */
	uint64_t rate_bps;              /* CBR: mean rate */
	double   amplitude;             /* CBR: 0 <= a < 1 (0: constant) */
	double   period_s;              /* CBR: period of the cosine */
	uint32_t backlog_pkts;          /* GREEDY: minimum queue depth, default 4 */
	uint8_t  dscp;                  /* marking; default: the class's first code point */
	uint32_t flows;                 /* distinct 5-tuples (UDP source ports) the
					 * packets cycle through, for the flow-based
					 * schedulers; 0 or 1: one flow */
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
};

struct sim_result {
	double   mean_bps[NCLASS];      /* out rate after warm-up */
	double   link_mean_bps;         /* mean C(t) over the same window */
	uint64_t out_bytes[NCLASS];     /* carried by the link in [0, duration) */
	uint64_t drop_pkts[NCLASS];     /* every drop of the run, any reason */
	uint64_t events;                /* packets dequeued (carried in [0, duration)) */
	uint64_t pool_empty_pkts;       /* source packets lost for want of a
					 * buffer (also in drop_pkts) */
};

/* Runs the simulation.  cfg->conf is only read (the simulator works on a
 * copy).  0, or -1 with a message on stderr. */
int sim_run(const struct sim_config *cfg, struct sim_result *res);

#endif
