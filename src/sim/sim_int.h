/* sim_int.h - what the simulator's files share (not an API).  Each file
 * calls only the ones listed after it, so that no two call each other
 * (tests/layering.py):
 *
 *   sim.c      the core on a virtual clock: the fake io, the scheduler seen
 *              through a wrapper, the event loop, set-up and the run; it
 *              tells a flow's source what became of its packets
 *   simsrc.c   the sources: one process per flow (greedy, CBR, on-off,
 *              Pareto arrivals, TFRC-like), the timed events
 *   simweb.c   the `web` source: users with think times and TCP-like
 *              finite sessions, and eq. 2's session accounting
 *   simflow.c  per-flow accounting: a packet's flow from its 5-tuple, a
 *              flow's packet into the core, the counters, the delay
 *              histograms, the report at the end
 *   simcost.c  the wall time of the scheduler's ops and the packet path
 *
 * A flow is one record of s->fl, allocated at set-up (each class gets
 * `cap` records from `base` on); its packets carry its 5-tuple, so every
 * observation point (dequeue, drop, the link) finds it again from the
 * packet bytes alone, as a flow-based scheduler would.
 */
#ifndef SCHEDTUN_SIM_INT_H
#define SCHEDTUN_SIM_INT_H

#include <stdint.h>

#include "core/core.h"
#include "sim/sim.h"
#include "util/clock.h"
#include "util/hist.h"

#define SIM_HDR_BYTES        28u        /* IPv4 + UDP of a synthetic packet */
#define SIM_PKT_MAX_BYTES    9000u      /* the daemon's largest MTU */
#define SIM_BACKLOG_DEFAULT  4u
#define SIM_SPORT_BASE       40000u     /* source port of flow 0, class 0 */
#define SIM_SPORT_SPAN       1000u      /* flows of a class per address */
#define SIM_DPORT            5201u      /* iperf3's */

/* Per-flow delay histogram: bucket 0 below 1.024 us, then 8 buckets per
 * octave up to 2^38 ns (275 s; longer waits land in the last bucket, the
 * maximum is kept exactly).  900 bytes a flow instead of hist.h's 4 KiB. */
#define SIM_DH_SUB_BITS      3u
#define SIM_DH_SUB           (1u << SIM_DH_SUB_BITS)
#define SIM_DH_MIN_OCT       10u
#define SIM_DH_OCTAVES       28u
#define SIM_DH_BUCKETS       (1u + SIM_DH_OCTAVES * SIM_DH_SUB)

/* One flow: its public account and its source process's state. */
struct sim_fl {
	struct sim_flow a;
	uint32_t  bucket[SIM_DH_BUCKETS];   /* delays, see above */
	double    delay_sum_ns;
	uint32_t  backlog_pkts;         /* in the scheduler now */
	uint64_t  carried_pkts;         /* finished on the link before the end */
	uint64_t  rng;                  /* its own random stream */
	uint8_t   hdr[SIM_HDR_BYTES];   /* IPv4 + UDP template */
	uint8_t   active;               /* still sending */
	uint8_t   in_ring;              /* waiting in its class's top-up ring */
	uint32_t  ring_next;            /* the next in that ring (class index) */
	uint32_t  run_last, run_len;    /* a stalled run starts here (below) */
	tstamp_ns run_ns;               /* ... valid at this instant only */
	uint8_t   on;                   /* ONOFF: in an on period */
	tstamp_ns stalled_ns;           /* greedy: refused a packet then */
	tstamp_ns next_ns;              /* its timed event (TS_NEVER: none) */
	uint64_t  next_k;               /* CBR: its next packet's number */
	double    phase_bits;           /* CBR: its offset on the rate curve */
	tstamp_ns phase_end_ns;         /* ONOFF: end of the current period */
	tstamp_ns on_start_ns;          /* ONOFF: start of the on period */
	tstamp_ns carry_ns;             /* ONOFF: on-time owed to the next packet */
	uint64_t  left_pkts;            /* PARETO: packets still to send */
	tstamp_ns gap_ns;               /* PARETO (paced), TFRC: packet spacing */
	double    rate_bps;             /* TFRC: current rate */
	tstamp_ns loss_event_ns;        /* TFRC: first loss of the last event */
	tstamp_ns cut_ns;               /* TFRC: when that event is felt */
	tstamp_ns ai_ns;                /* TFRC: next additive increase */
	tstamp_ns rtt_ns;               /* TFRC: this flow's RTT */
	uint8_t   hdr_ef[SIM_HDR_BYTES];/* TFRC profile: hdr marked EF */
	uint8_t   mark_ef;              /* TFRC profile: the packet being
					 * injected is conforming */
	double    tokens_bits;          /* TFRC profile: the token bucket */
	tstamp_ns tokens_ns;            /* when it was last filled */
};

/* One class's source: its options, its records, its arrival process. */
struct sim_cls {
	struct sim_source cfg;          /* defaults resolved */
	struct link_profile curve;      /* CBR: each flow's cumulative bits */
	double    pkt_bits;
	uint32_t  base, cap;            /* its records in s->fl */
	uint32_t  nflows;               /* started */
	uint32_t  refused;              /* PARETO: arrivals beyond cap */
	uint32_t  want_pkts;            /* greedy: backlog aimed at per flow */
	uint8_t   ef_dscp;              /* TFRC profile: the conforming mark */
	uint64_t  rng;                  /* PARETO: the arrival process */
	tstamp_ns next_arrival_ns;
	/* greedy flows to top up, in order: a list through ring_next, of
	 * class indices.  A flow at the head whose run_ns is now heads a
	 * run of run_len flows ending at run_last that were all stalled at
	 * now (found the class full): the run moves to the tail at once,
	 * as each of its flows would have one by one (simsrc.c). */
	uint32_t  ring_first, ring_last, ring_len;
	struct hist delay;              /* every packet of the class */
};

/* The raw sums behind struct sim_cost (simcost.c), while `on`. */
struct sim_cost_acc {
	int       on;
	uint64_t  sched_raw_ns, drop_raw_ns, path_raw_ns, loop_raw_ns;
	uint64_t  sched_calls, drop_calls, path_calls;
	uint64_t  enq_pkts, deq_pkts;
	double    clock_ns;
};

/* A timed source event: flow `id` (or arrival process id - nfl). */
struct sim_ev {
	tstamp_ns t;
	uint32_t  id;
};

struct sim {
	struct core core;               /* first: never moves (the pacer
					 * points into it), and the drop
					 * callback's owner is the sim too */
	struct sched inner;             /* the real scheduler instance */
	struct sched_ops wrap_ops;      /* its ops with observers around */
	void (*core_drop)(void *owner, struct pkt *p, enum drop_reason why);
	struct sim_cls cls[NCLASS];
	struct sim_fl *fl;              /* every class's records */
	uint32_t  nfl;
	struct sim_ev *heap;            /* min-heap on (t, id) */
	uint32_t  nheap, heap_cap;
	uint64_t  seed;
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
	uint64_t  unknown_pkts;         /* packets with no flow record (a bug) */
	struct sim_web *web;            /* simweb.c's state, NULL: no web source */
	struct sim_cost_acc cost;       /* --cost */
};

/* ---- simsrc.c ---------------------------------------------------------- */

/* Checks class k's source of cfg and resolves its defaults into s->cls[k]
 * (records not yet allocated: sets cap).  0 or -1 with a message. */
int  sim_src_setup(struct sim *s, const struct sim_source *in,
		   const struct conf *conf, unsigned k);
/* Allocates the records and event heap for the caps, and starts
 * every lasting flow and arrival process at t = 0.  0 or -1 (message). */
int  sim_src_start(struct sim *s);
/* Frees what sim_src_start allocated (safe on a zeroed sim). */
void sim_src_free(struct sim *s);
/* When the next timed source event is due (TS_NEVER: none). */
tstamp_ns sim_src_next_ns(const struct sim *s);
/* Runs every timed source event due at now, in (time, id) order. */
void sim_src_emit(struct sim *s, tstamp_ns now);
/* Tops every greedy flow's backlog up (see simsrc.c).  Returns the number
 * of packets handed to the core. */
unsigned sim_src_topup(struct sim *s, tstamp_ns now);
/* A packet of fl left the scheduler (dequeued or dropped) at now. */
void sim_src_left(struct sim *s, struct sim_fl *fl, tstamp_ns now);
/* A packet of fl was lost at now (any reason): the TFRC-like reaction. */
void sim_src_lost(struct sim *s, struct sim_fl *fl, tstamp_ns now);

/* A packet of fl finished on the link at fin (sim_flow_carried's): the
 * web source's ACK clock. */
void sim_src_carried(struct sim *s, struct sim_fl *fl, tstamp_ns fin);
/* At the end of a run, before sim_flows_finish: each source completes its
 * flows' accounts (on time, TFRC rate, web sessions still going). */
void sim_src_finish(struct sim *s);

/* ---- simweb.c ------------------------------------------------------------ */

/* Checks a web source's pieces.  0 or -1 with a message. */
int  sim_web_setup(const struct sim_source *in, unsigned k);
/* Starts class k's web flows (their records are open): each thinks
 * first.  0 or -1 (message). */
int  sim_web_start(struct sim *s, unsigned k);
/* Frees what sim_web_start allocated (safe when nothing was). */
void sim_web_free(struct sim *s);
/* When the next web event is due (TS_NEVER: none). */
tstamp_ns sim_web_next_ns(const struct sim *s);
/* Runs every web event due at now. */
void sim_web_emit(struct sim *s, tstamp_ns now);
/* A packet of web flow fl was lost at now. */
void sim_web_lost(struct sim *s, struct sim_fl *fl, tstamp_ns now);
/* A packet of web flow fl was received at fin; its ACK arrives now. */
void sim_web_carried(struct sim *s, struct sim_fl *fl, tstamp_ns fin);
/* At the end of the run: a session still going adds what it received. */
void sim_web_close(struct sim *s, struct sim_fl *fl);

/* ---- simflow.c ---------------------------------------------------------- */

/* Gives record fl (index j of class k) its 5-tuple and header template
 * for pkt_bytes packets marked dscp, and its flow hash as classify.c
 * computes it. */
void sim_flow_init(struct sim_fl *fl, unsigned k, uint32_t j,
		   uint32_t pkt_bytes, uint8_t dscp);
/* hdr_out = the header template hdr (sim_flow_init's) marked dscp
 * instead, checksum valid; the 5-tuple, hence the flow hash, is the
 * same. */
void sim_flow_init_marked(uint8_t *hdr_out, const uint8_t *hdr,
			  uint8_t dscp);
/* The record of an inner IP packet built by sim_flow_init, found by its
 * source port (whose range names the record's class, which may differ
 * from the packet's class k: a TFRC flow's EF-marked part), or NULL
 * (counted in s->unknown_pkts). */
struct sim_fl *sim_flow_of(struct sim *s, const uint8_t *ip, size_t len,
			   unsigned k);
/* Hands one packet of fl to the core at now: 0, or -1 when the pool is
 * empty.  A packet lost before the scheduler sees it (empty pool, class
 * limit) is counted and reported to the flow's source through lost(),
 * before the core runs. */
int  sim_flow_inject(struct sim *s, struct sim_fl *fl, tstamp_ns now,
		     void (*lost)(struct sim *, struct sim_fl *, tstamp_ns));
/* Observers: p was dequeued at now (the link start time); p is being
 * dropped for why at now; len_bytes of fl finished on the link at fin.
 * The first two return the packet's flow (NULL: none), whose source the
 * caller tells next (sim_src_left, sim_src_lost). */
struct sim_fl *sim_flow_dequeued(struct sim *s, const struct pkt *p,
				 tstamp_ns now);
struct sim_fl *sim_flow_dropped(struct sim *s, const struct pkt *p,
				enum drop_reason why, tstamp_ns now);
void sim_flow_carried(struct sim *s, struct sim_fl *fl, uint32_t len_bytes,
		      tstamp_ns fin);
/* A drop before the scheduler saw the packet (class limit, empty pool). */
void sim_flow_lost_early(struct sim_fl *fl, unsigned reason);
/* Counts the packets still in the scheduler, per flow, by draining it
 * (the packets are freed); then the percentiles, rates and aggregates
 * into res (may be NULL), the flows CSV and the callbacks of cfg. */
void sim_flows_finish(struct sim *s, const struct sim_config *cfg,
		      struct sim_result *res);

/* ---- simcost.c ---------------------------------------------------------- */

/* A wall-clock reading for s->cost, or 0 when cost is off (no read). */
static inline uint64_t sim_cost_t0(const struct sim *s)
{
	return s->cost.on ? clock_mono_ns() : 0;
}

/* Ends a scheduler op call timed from t0 (cost on or off). */
static inline void sim_cost_sched(struct sim *s, uint64_t t0)
{
	if (s->cost.on) {
		s->cost.sched_raw_ns += clock_mono_ns() - t0;
		s->cost.sched_calls++;
	}
}

/* Ends a drop observer call timed from t0 (it nests in an op). */
static inline void sim_cost_drop(struct sim *s, uint64_t t0)
{
	if (s->cost.on) {
		s->cost.drop_raw_ns += clock_mono_ns() - t0;
		s->cost.drop_calls++;
	}
}

/* Measures the clock's own cost and starts counting (cfg->cost). */
void sim_cost_start(struct sim *s);
/* Stops counting; the net numbers into out. */
void sim_cost_stop(struct sim *s, struct sim_cost *out);
/* core_tun_input() and core_run(), timed as the packet path when cost is
 * on; the simulator calls the core only through these. */
void sim_core_input(struct sim *s, struct pkt *p, tstamp_ns now);
tstamp_ns sim_core_run(struct sim *s, tstamp_ns now);

#endif
