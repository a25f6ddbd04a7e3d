/* pdrr.c - PDRR, Priority Deficit Round Robin (Kortebi, Oueslati, Roberts,
 * "Implicit Service Differentiation using Deficit Round Robin", 2005),
 * with EF strict priority above it (configurable).
 *
 * What it does.  Per-flow Deficit Round Robin over the flows identified on
 * the fly by the 5-tuple hash (pkt->flow_hash, from classify), plus a
 * priority queue PQ for the packets of flows that emit less than one
 * quantum per round: their packets see next to no queueing delay, while
 * backlogged flows share the rest max-min fairly.  The fair rate and the
 * priority load are measured (§3.2) and may drive an implicit admission
 * control (§5).  Work-conserving.
 *
 * Paper sections followed (papers/pdrr-kortebi-2005.txt):
 *   Table 1, §3.1  the enqueue (lines 1-15) and dequeue (16-34) modules:
 *         pdrr_enqueue(), pdrr_dequeue();
 *   footnote 1    buffer full: the head of the flow with the longest
 *         backlog is dropped (pdrr_push_out());
 *   §3.2  fair rate (bits a fictitious always-backlogged flow could send
 *         in t_f, divided by t_f) and priority load (pdrr_sample());
 *   §3.3  the O(1) cycle: the DRR engine's scan (drr.h);
 *   §4.2  a bounded AFL: a new flow beyond it is served through PQ until
 *         it can be added;
 *   §4 (all simulations)  quantum = the MTU;
 *   §5 and §1/§2.2  implicit admission control: new flows are refused
 *         while the fair rate, smoothed new = 0.9 old + 0.1 sample every
 *         100 ms, is under a threshold (1 % of C), or (§2.2's second
 *         criterion, optional) while the priority load smoothed the same
 *         way is above another; "new" = absent from the table of flows in
 *         progress (inactivity timeout of a few seconds).
 *   DRRexp (Hayes, "Dual Queue", 1999, §5, t_expire defined in §2;
 *         papers/dual-queue-hayes-1999.txt): the per-flow DRR with
 *         old-packet discard that the Dual Queue paper compares with is
 *         this file with `priority = false` and `t_expire` (§5: 5 s):
 *         packets queued longer than t_expire are discarded
 *         (DROP_EXPIRED), never sent.
 *
 * The data structures.  The active flow list (AFL) is the DRR engine's
 * list (drr.h); a flow's Queue_i, DC_i and Q_i are its struct drr_q;
 * ByteCount_i is pdrr_flow.bytecount_bytes.  A flow's state lives in a
 * bounded flow table (util/flowtab.h) keyed on the hash, from the packet that
 * creates it until it is off the AFL with no packet left in PQ; pdrr
 * removes the entry itself then (the engine's leave callback, or the PQ
 * dequeue of its last priority packet), so entries never expire by time.
 * The table holds max_flows + buffer entries: the AFL members plus at most
 * one off-list flow per buffered packet, so it is never full.
 *
 * The traps of Table 1, checked against the text, and what this file does:
 *  1. PQ is served only between flow visits (lines 17-21 sit at the top
 *     of the `While (TRUE)` loop, before a visit; lines 25-31 send a whole
 *     visit without looking at PQ).  Our dequeue hands out one packet per
 *     call, so the visit in progress (the current flow and its deficit)
 *     is kept between calls: drr_in_turn() true means the visit goes on
 *     and PQ waits; only when it is over does PQ go first
 *     (drr_end_turn(), then PQ, then the next visit).
 *  2. Line 32 removes the visited flow when *its own* queue is empty,
 *     even while packets of it still wait in PQ: the engine's member
 *     leaves when Queue_i empties (or on its turn with Queue_i empty);
 *     the flow's entry survives until its PQ packets are sent (they are
 *     still charged to DC_i, line 21), and its next arrival finds it out
 *     of the AFL: a new insertion, PQ again (lines 5-9).
 *  3. The deficit is reset only on insertion (line 7), never clamped: PQ
 *     packets are charged (line 21, drr_charge()) and may drive DC_i below
 *     0, which delays the flow's next sends (a flow whose first packet
 *     went through PQ does not also get a full quantum in its first
 *     turn).  A charge while the flow is off the AFL is forgotten at its
 *     next insertion, as line 7 does.
 *  4. A new flow's first packet always goes to PQ (lines 5-9, whatever its
 *     size); later ones while ByteCount_i <= Q_i (line 12 uses <=, so
 *     packets adding up to exactly one quantum all go to PQ).
 *  5. The O(1) non-empty cycle of §3.3 must not keep a PQ-only flow in
 *     the AFL for ever: such a flow is on the list although Queue_i is
 *     empty (drr_join()); when its turn comes it receives its quantum,
 *     sends nothing and leaves (lines 24, 32), so its ByteCount restarts
 *     at its next arrival.  The engine's scan skips it in the same pass
 *     in which it plays that turn, so an empty member is looked at once
 *     per round, never twice (`examined`, tested).
 *
 * Decisions where the paper is silent or loose:
 *  - Expiry (t_expire, off by default; on for DRRexp).  The DQ paper says
 *    only that old packets are discarded, not when.  Here they are
 *    discarded at dequeue, where the round looks (drr.h, "Expiry"): PQ's
 *    expired head packets, then those of the flows the engine's scan
 *    passes.  No packet older than t_expire is sent; the others leave in
 *    the order of the textbook DRR loop that discards a flow's expired
 *    packets when its turn comes; the cost stays O(1) per packet plus one
 *    step per discarded packet.  Expired packets deeper in the round hold
 *    buffer space until it reaches them (a push-out may take one first:
 *    it is then counted as pushed out).  An expired packet is not charged
 *    to its flow's deficit (line 21 charges what is sent).  EF under
 *    ef_strict is outside PDRR and never expires.
 *  - Buffer full (footnote 1): the victim is the flow whose own queue
 *    holds the most packets (kept in O(1) by lists of flows per queue
 *    length, which changes by one packet at a time); its head packet is
 *    dropped as DROP_PUSHOUT (pushed out by a later packet), and the
 *    arrival is accepted.  PQ packets are not victims (dropping inside
 *    PQ is not O(1), and they are the low-rate flows' packets); when no
 *    flow queue holds a packet (the whole buffer is PQ) the arrival is
 *    dropped as DROP_SCHED_LIMIT.  `buffer` (packets in PQ and flow
 *    queues) defaults to the sum of the core's class limits, so by
 *    default the core's per-class limits bind first; §5 used 1000.
 *  - The AFL bound (§4.2): `max_flows` members.  A flow that finds the
 *    AFL full has its packets put in PQ ("handled with priority"), not
 *    charged to a deficit that will be reset anyway, and counted
 *    (afl_full_pkts); each later arrival tries again to join.
 *  - The fair rate (§3.2, details omitted in the paper): a fictitious
 *    flow F (an always-empty engine member with the default quantum,
 *    rejoined at the tail after each of its turns, as a backlogged flow
 *    would move to the tail) counts the rounds; in a sample interval
 *    the fair rate is (rounds x Q x 8 + idle time x C) / t_f, capped at
 *    C, idle time being when the scheduler (EF included) held nothing
 *    and its last packet had left the link at the nominal C.  F sends
 *    nothing, so it changes no packet's order; it costs one examined
 *    member per round.  F's own share is not subtracted: N backlogged
 *    flows give C/N, the rate each of them receives.  Priority load:
 *    bytes sent from PQ x 8 / (t_f x C).  Both are smoothed new = 0.9 old
 *    + 0.1 sample (§5's footnote), sampled on the virtual clock at
 *    multiples of `interval` from the first call, and start at C and 0.
 *  - Admission (§5): a packet whose flow is in progress passes; one of a
 *    new flow passes while the smoothed fair rate >= admit_rate (the flow
 *    is then in progress) and is refused as DROP_ADMISSION otherwise
 *    (the flow is remembered as refused, counted once in rejected_flows,
 *    and judged again at each of its packets: it gets in when the fair
 *    rate recovers).  The progress table's inactivity timeout restarts
 *    at each packet.  When that table is full, a new flow is judged at
 *    each of its packets (each refusal then counts as a rejected flow).
 *    EF under ef_strict is outside PDRR and not subject to it.
 *  - The priority-load criterion (§2.2, `admit_load`, off by default):
 *    with admission on, a new flow is also refused while the smoothed
 *    priority load exceeds the threshold.  §3.2 mentions a separate
 *    interval t_p for it; one interval serves both here, so the two
 *    criteria are judged on the same samples.
 *
 * Cost: O(1) per packet (amortised over the round): the flow table is a
 * hash, the engine's scan stops at the first flow whose head packet fits
 * its coming turn, and every member it passes has its turn played (an
 * empty one leaves); the longest-queue lists move one step per packet.
 * No allocation after init.
 *
 * Configuration: group scheduler.pdrr, keys in pdrr_keys[] below (docs/pdrr.md,
 * `schedtun --help-sched pdrr`).
 *
 * Stats ("sched" member of the stats line): "flows" (AFL members now),
 * "pq_pkts" (in PQ now), "fair_rate_bps" (smoothed), "fair_sample_bps"
 * (the last sample), "prio_load" (smoothed fraction of C), "rounds"
 * (rounds of the fictitious flow), "pq_out_pkts", "afl_full_pkts",
 * "pq_out_bytes", "rejected_flows", "refused_by": {"fair_rate",
 * "prio_load"} (refused packets by the criterion that failed, a packet
 * failing both counted under both), "examined" (members looked at by the
 * engine), and
 * "drops": {"sched_limit", "pushout", "admission", "expired"}: counters,
 * written cumulative (jw_counter: the stats line shows deltas).
 */
#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "pkt/classify.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "drr.h"
#include "efstrict.h"
#include "util/flowtab.h"
#include "stock.h"

#define PDRR_QUANTUM_MIN_BYTES   64u
#define PDRR_QUANTUM_MAX_BYTES   1000000u
#define PDRR_BUFFER_MAX_PKTS     1000000u
#define PDRR_FLOWS_MAX           1000000u
#define PDRR_DEF_FLOWS           1024u  /* §4.2: < 550 w.h.p.; §5: 500 */
#define PDRR_DEF_INTERVAL_NS     (100 * NS_PER_MS)      /* §5 */
#define PDRR_DEF_PROGRESS_NS     (2 * NS_PER_SEC)       /* §1: a few s */
#define PDRR_DEF_PROGRESS_FLOWS  16384u
#define PDRR_EWMA_OLD            0.9    /* §5, footnote 5 */
#define PDRR_CATCHUP_SAMPLES     64u    /* 0.9^64 < 0.12 %: converged */

struct pdrr_params {
	uint64_t quantum_bytes;
	uint64_t buffer_pkts;
	uint64_t max_flows;
	int      ef_strict;
	int      priority;
	int      admission;
	uint64_t admit_bps;
	double   admit_load;            /* fraction of C, 0: criterion off */
	uint64_t interval_ns;
	uint64_t progress_ns;
	uint64_t progress_flows;
	uint64_t expire_ns;             /* t_expire; 0: off */
	uint64_t env_capacity_bps;      /* what defaults() saw, for check */
};

/* One flow: its AFL member and PQ bookkeeping, a flow table payload. */
struct pdrr_flow {
	struct drr_q dq;                /* first: Queue_i, DC_i, Q_i, links */
	uint32_t bytecount_bytes;       /* ByteCount_i since its insertion */
	uint32_t pq_pkts;               /* its packets waiting in PQ */
	uint32_t lb_len;                /* the length list it is on, 0: none */
	struct pdrr_flow *lprev, *lnext;
};

/* A flow in progress (admission control). */
struct pdrr_progress {
	int admitted;                   /* 0: refused so far */
};

struct pdrr_sched {
	struct efstrict ef;             /* EF above PDRR, or off */
	struct drr drr;                 /* the AFL */
	struct pktq pq;                 /* PQ */
	struct flowtab ft;              /* flow state */
	struct flowtab prog;            /* flows in progress */
	int admission;
	int priority;                   /* 0: plain DRR (no PQ), to compare */
	struct drr_q fict;              /* the fictitious flow F */
	struct pdrr_flow **lenb;        /* flows by own queue length */
	uint32_t max_len;               /* longest non-empty list, 0: none */
	const struct drr_q *last_left;  /* set by the leave callback */
	uint32_t quantum_bytes, buffer_pkts, max_flows;
	uint32_t nflows;                /* AFL members but F */
	uint32_t held_pkts;             /* in PQ and the flow queues */
	uint64_t capacity_bps, admit_bps;
	double admit_load;              /* 0: no priority-load criterion */
	tstamp_ns interval_ns;
	void (*drop)(void *owner, struct pkt *p, enum drop_reason why);
	void *owner;

	/* measurement */
	int started;
	tstamp_ns last_now_ns, next_sample_ns;
	int idle;                       /* nothing held, EF included */
	tstamp_ns idle_since_ns;        /* when the link went idle */
	tstamp_ns iv_idle_ns;           /* idle time in this interval */
	uint64_t iv_pq_bytes;           /* sent from PQ in this interval */
	uint64_t iv_rounds_mark;        /* F's rounds at its start */
	double fair_bps, fair_sample_bps, prio_load;

	/* counters, cumulative */
	uint64_t drops[DROP_REASON_MAX];
	uint64_t rejected_flows, afl_full_pkts, pq_out_pkts, pq_out_bytes;
	uint64_t refused_rate_pkts, refused_load_pkts;  /* by criterion */
};

/* ---- helpers ------------------------------------------------------------ */

/* Hands p to the core's drop with its reason, counted for the stats. */
static void pdrr_drop(struct pdrr_sched *s, struct pkt *p,
		      enum drop_reason why)
{
	s->drops[why]++;
	s->drop(s->owner, p, why);
}

/* Puts f on the list of flows whose own queue holds len packets (0: on
 * none), keeping max_len.  Lengths move one packet at a time (or from 1
 * to 0), so max_len moves at most one step: O(1). */
static void pdrr_lb_set(struct pdrr_sched *s, struct pdrr_flow *f,
			uint32_t len)
{
	if (f->lb_len == len)
		return;
	if (f->lb_len) {
		if (f->lprev)
			f->lprev->lnext = f->lnext;
		else
			s->lenb[f->lb_len] = f->lnext;
		if (f->lnext)
			f->lnext->lprev = f->lprev;
	}
	f->lb_len = len;
	f->lprev = f->lnext = NULL;
	if (len) {
		f->lnext = s->lenb[len];
		if (f->lnext)
			f->lnext->lprev = f;
		s->lenb[len] = f;
		if (len > s->max_len)
			s->max_len = len;
	}
	while (s->max_len && !s->lenb[s->max_len])
		s->max_len--;
}

/* The flow's entry goes once it is off the AFL with nothing in PQ: its
 * DC and ByteCount restart at its next insertion anyway (lines 7-8). */
static void pdrr_flow_maybe_free(struct pdrr_sched *s, struct pdrr_flow *f)
{
	if (!f->dq.active && !f->pq_pkts)
		flowtab_remove(&s->ft, f);
}

/* The engine's leave callback: a member left the AFL (its queue is
 * empty, line 32).  Records which, for the caller of the engine. */
static void pdrr_left(struct drr_q *q, void *arg)
{
	struct pdrr_sched *s = arg;
	struct pdrr_flow *f = (struct pdrr_flow *)(void *)q;

	s->last_left = q;
	if (q == &s->fict)
		return;
	s->nflows--;
	pdrr_lb_set(s, f, 0);
	pdrr_flow_maybe_free(s, f);
}

/* F back at the tail after its turn, while real flows are in the AFL. */
static void pdrr_fict_rejoin(struct pdrr_sched *s)
{
	if (!s->fict.active && s->nflows)
		drr_join(&s->drr, &s->fict);
}

/* Serialisation time of len_bytes at the nominal capacity (0 when the
 * link is unlimited: no idle time is then counted after a packet). */
static tstamp_ns pdrr_tx_ns(const struct pdrr_sched *s, uint32_t len_bytes)
{
	if (!s->capacity_bps)
		return 0;
	return (tstamp_ns)len_bytes * 8u * NS_PER_SEC / s->capacity_bps;
}

/* ---- measurement (§3.2, §5) -------------------------------------------- */

/* Closes the sample interval ending at end_ns. */
static void pdrr_sample(struct pdrr_sched *s, tstamp_ns end_ns)
{
	double t_s = (double)s->interval_ns / (double)NS_PER_SEC;
	double c = (double)s->capacity_bps;
	double bits, rate, load = 0;

	if (s->idle && end_ns > s->idle_since_ns) {
		s->iv_idle_ns += end_ns - s->idle_since_ns;
		s->idle_since_ns = end_ns;
	}
	bits = (double)(s->fict.rounds - s->iv_rounds_mark) *
	       s->quantum_bytes * 8.0 +
	       (double)s->iv_idle_ns / (double)NS_PER_SEC * c;
	rate = bits / t_s;
	if (c > 0 && rate > c)
		rate = c;
	if (c > 0)
		load = (double)s->iv_pq_bytes * 8.0 / (t_s * c);
	s->fair_sample_bps = rate;
	s->fair_bps = PDRR_EWMA_OLD * s->fair_bps + (1 - PDRR_EWMA_OLD) * rate;
	s->prio_load = PDRR_EWMA_OLD * s->prio_load +
		       (1 - PDRR_EWMA_OLD) * load;
	s->iv_rounds_mark = s->fict.rounds;
	s->iv_idle_ns = 0;
	s->iv_pq_bytes = 0;
}

/* Closes every interval that ended by now (the clock starts at the first
 * call).  After PDRR_CATCHUP_SAMPLES intervals without a call the average
 * has converged to their common sample (0.9^64 < 0.12 %): the whole ones
 * left are skipped, so a long silence costs O(1).  Sampling stops at the
 * end of the clock's range. */
static void pdrr_measure(struct pdrr_sched *s, tstamp_ns now)
{
	uint32_t n = 0;

	if (!s->started) {
		s->started = 1;
		s->next_sample_ns = now + s->interval_ns;
		s->idle_since_ns = now;
		s->last_now_ns = now;
		return;
	}
	if (now > s->last_now_ns)
		s->last_now_ns = now;
	while (now >= s->next_sample_ns) {
		if (n++ == PDRR_CATCHUP_SAMPLES) {
			/* next + k T <= now: no overflow */
			s->next_sample_ns += (now - s->next_sample_ns) /
					     s->interval_ns * s->interval_ns;
			if (s->idle && s->idle_since_ns + s->interval_ns <
				       s->next_sample_ns)
				s->idle_since_ns = s->next_sample_ns -
						   s->interval_ns;
		}
		pdrr_sample(s, s->next_sample_ns);
		if (s->next_sample_ns > UINT64_MAX - s->interval_ns) {
			s->next_sample_ns = UINT64_MAX;
			break;
		}
		s->next_sample_ns += s->interval_ns;
	}
}

/* A packet entered (EF or PDRR): the idle time, if any, ends now. */
static void pdrr_busy(struct pdrr_sched *s, tstamp_ns now)
{
	if (!s->idle)
		return;
	if (now > s->idle_since_ns)
		s->iv_idle_ns += now - s->idle_since_ns;
	s->idle = 0;
}

/* A packet of len_bytes left at now: if nothing is held any more, the
 * link goes idle when it has sent it. */
static void pdrr_sent(struct pdrr_sched *s, uint32_t len_bytes,
		      tstamp_ns now)
{
	if (s->held_pkts || s->ef.q.len_pkts)
		return;
	s->idle = 1;
	s->idle_since_ns = now + pdrr_tx_ns(s, len_bytes);
}

/* ---- expiry (DRRexp) ---------------------------------------------------- */

/* The engine's expiry callback: p, expired, was the head of flow q's own
 * queue (q leaves after this call if p was its last packet). */
static void pdrr_expired(struct drr_q *q, struct pkt *p, void *arg)
{
	struct pdrr_sched *s = arg;

	s->held_pkts--;
	pdrr_lb_set(s, (struct pdrr_flow *)(void *)q, q->q.len_pkts);
	pdrr_drop(s, p, DROP_EXPIRED);
}

static void pdrr_pq_left(struct pdrr_sched *s, const struct pkt *p,
			 int charge);

/* Discards at now what the coming dequeue would meet expired: PQ's head
 * packets (PQ is in arrival order), then the flows on the engine's path.
 * Nothing held any more: the link is idle from now. */
static void pdrr_expire(struct pdrr_sched *s, tstamp_ns now)
{
	struct pkt *p;

	if (!s->drr.expire_ns)
		return;
	while (s->pq.head && drr_is_expired(&s->drr, s->pq.head, now)) {
		p = pktq_pop(&s->pq);
		pdrr_pq_left(s, p, 0);
		pdrr_drop(s, p, DROP_EXPIRED);
	}
	drr_expire(&s->drr, now);
	if (!s->held_pkts && !s->ef.q.len_pkts && !s->idle) {
		s->idle = 1;
		s->idle_since_ns = now;
	}
}

/* PQ's first packet not expired at now: its head for dequeue after
 * pdrr_expire(). */
static const struct pkt *pdrr_pq_fresh(const struct pdrr_sched *s,
				       tstamp_ns now)
{
	const struct pkt *p = s->pq.head;

	while (p && drr_is_expired(&s->drr, p, now))
		p = p->next;
	return p;
}

/* ---- admission (§5) ------------------------------------------------------ */

/* 1: p may enter; 0: its flow is new (or refused so far) and the smoothed
 * fair rate is under admit_rate, or the smoothed priority load is above
 * admit_load when that is set (§2.2).  A refused packet is counted under
 * every criterion that refused it, so an operator sees which one binds. */
static int pdrr_admit(struct pdrr_sched *s, const struct pkt *p,
		      tstamp_ns now)
{
	int created, low_rate, high_load;
	struct pdrr_progress *e = flowtab_get(&s->prog, p->flow_hash, now,
					      &created);

	if (e && e->admitted)
		return 1;
	low_rate = s->fair_bps < (double)s->admit_bps;
	high_load = s->admit_load > 0 && s->prio_load > s->admit_load;
	if (!low_rate && !high_load) {
		if (e)
			e->admitted = 1;
		return 1;
	}
	s->refused_rate_pkts += (uint64_t)low_rate;
	s->refused_load_pkts += (uint64_t)high_load;
	if (!e || created)
		s->rejected_flows++;
	return 0;
}

/* ---- the scheduler ------------------------------------------------------ */

/* Footnote 1: drops the head of the longest flow queue.  0 when every
 * held packet is in PQ (nothing to push out). */
static int pdrr_push_out(struct pdrr_sched *s)
{
	struct pdrr_flow *f = s->max_len ? s->lenb[s->max_len] : NULL;
	struct pkt *v;

	if (!f)
		return 0;
	s->last_left = NULL;
	v = drr_remove_head(&s->drr, &f->dq);
	if (s->last_left != &f->dq)
		pdrr_lb_set(s, f, f->dq.q.len_pkts);
	s->held_pkts--;
	pdrr_drop(s, v, DROP_PUSHOUT);
	return 1;
}

/* p (ownership moves) to the tail of PQ, as a packet of flow f. */
static void pdrr_pq_push(struct pdrr_sched *s, struct pdrr_flow *f,
			 struct pkt *p)
{
	pktq_push(&s->pq, p);
	f->pq_pkts++;
}

/* Table 1's enqueuing module (lines 1-15), after EF and admission.
 * Always consumes p. */
static void pdrr_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct pdrr_sched *s = priv;
	struct pdrr_flow *f;
	int created, to_pq;

	pdrr_measure(s, now);
	if (efstrict_enqueue(&s->ef, p)) {
		pdrr_busy(s, now);
		return;
	}
	if (s->admission && !pdrr_admit(s, p, now)) {
		pdrr_drop(s, p, DROP_ADMISSION);
		return;
	}
	/* lines 2-3 */
	if (s->held_pkts >= s->buffer_pkts && !pdrr_push_out(s)) {
		pdrr_drop(s, p, DROP_SCHED_LIMIT);
		return;
	}
	f = flowtab_get(&s->ft, p->flow_hash, now, &created);
	if (!f) {               /* cannot happen: see the table's size */
		pdrr_drop(s, p, DROP_SCHED_LIMIT);
		return;
	}
	if (created)
		drr_q_init(&f->dq, s->quantum_bytes);
	if (!f->dq.active) {
		if (s->nflows < s->max_flows) {
			/* lines 5-9: at the tail, DC_i = 0 */
			drr_join(&s->drr, &f->dq);
			s->nflows++;
			f->bytecount_bytes = p->len_bytes;
			to_pq = s->priority;
		} else {
			s->afl_full_pkts++;     /* §4.2: not a member yet */
			to_pq = 1;
		}
	} else {
		/* lines 11-15 */
		uint64_t bc = (uint64_t)f->bytecount_bytes + p->len_bytes;

		f->bytecount_bytes = bc > UINT32_MAX ? UINT32_MAX
						     : (uint32_t)bc;
		to_pq = s->priority &&
			f->bytecount_bytes <= f->dq.quantum_bytes;
	}
	if (to_pq) {
		p->verdict = PKT_V_PQ;
		pdrr_pq_push(s, f, p);
	} else {
		p->verdict = PKT_V_FLOW;
		drr_enqueue(&s->drr, &f->dq, p);
		pdrr_lb_set(s, f, f->dq.q.len_pkts);
	}
	s->held_pkts++;
	pdrr_busy(s, now);
	pdrr_fict_rejoin(s);
}

/* Line 21 for a packet leaving PQ (dequeue or drain): charged to its flow
 * when charge, and the flow's entry freed if that was all it held. */
static void pdrr_pq_left(struct pdrr_sched *s, const struct pkt *p,
			 int charge)
{
	struct pdrr_flow *f = flowtab_find(&s->ft, p->flow_hash,
					   s->last_now_ns);

	s->held_pkts--;
	if (!f)                 /* cannot happen: PQ packets hold it */
		return;
	if (charge)
		drr_charge(&f->dq, p->len_bytes);
	f->pq_pkts--;
	pdrr_flow_maybe_free(s, f);
}

/* EF first; then, expired packets discarded, PQ between visits (lines
 * 17-21), else the visit in progress or the next one (lines 22-34).  NULL
 * only when nothing is held (after the discards). */
static struct pkt *pdrr_dequeue(void *priv, tstamp_ns now)
{
	struct pdrr_sched *s = priv;
	struct drr_q *q = NULL;
	struct pkt *p;

	pdrr_measure(s, now);
	if ((p = efstrict_dequeue(&s->ef)))
		goto out;
	pdrr_expire(s, now);
	if (!drr_in_turn(&s->drr)) {
		drr_end_turn(&s->drr);
		if ((p = pktq_pop(&s->pq))) {
			pdrr_pq_left(s, p, 1);
			s->iv_pq_bytes += p->len_bytes;
			s->pq_out_bytes += p->len_bytes;
			s->pq_out_pkts++;
			goto out;
		}
	}
	s->last_left = NULL;
	p = drr_dequeue(&s->drr, &q);
	if (p) {
		s->held_pkts--;
		if (q != s->last_left)
			pdrr_lb_set(s, (struct pdrr_flow *)(void *)q,
				    q->q.len_pkts);
	}
out:
	if (p)
		pdrr_sent(s, p->len_bytes, now);
	pdrr_fict_rejoin(s);
	return p;
}

/* What dequeue() would return now; changes nothing. */
static const struct pkt *pdrr_peek(void *priv, tstamp_ns now)
{
	const struct pdrr_sched *s = priv;
	const struct pkt *p;

	if ((p = efstrict_peek(&s->ef)))
		return p;
	if (!drr_in_turn_at(&s->drr, now) && (p = pdrr_pq_fresh(s, now)))
		return p;
	return drr_peek_at(&s->drr, now);
}

/* EF, then PQ, then the flow queues (longest first), each FIFO: a flow's
 * PQ packets are all older than those in its own queue (it queues only
 * once ByteCount_i exceeds Q_i, and re-enters PQ only after leaving the
 * AFL with an empty queue), so every flow leaves in arrival order. */
static struct pkt *pdrr_drain(void *priv)
{
	struct pdrr_sched *s = priv;
	struct pdrr_flow *f;
	struct pkt *p;

	if ((p = efstrict_drain(&s->ef)))
		goto out;
	if ((p = pktq_pop(&s->pq))) {
		pdrr_pq_left(s, p, 0);
		goto out;
	}
	if (!s->max_len)
		return NULL;
	f = s->lenb[s->max_len];
	s->last_left = NULL;
	p = drr_remove_head(&s->drr, &f->dq);
	if (s->last_left != &f->dq)
		pdrr_lb_set(s, f, f->dq.q.len_pkts);
	s->held_pkts--;
out:
	if (!s->held_pkts && !s->ef.q.len_pkts && !s->idle) {
		s->idle = 1;
		s->idle_since_ns = s->last_now_ns;
	}
	return p;
}

/* Returns every held packet to the pool and frees the tables; the leave
 * callback is off first, since the flow table it would touch goes too. */
static void pdrr_destroy(void *priv)
{
	struct pdrr_sched *s = priv;

	efstrict_destroy(&s->ef);
	pktq_purge(&s->pq);
	drr_set_on_leave(&s->drr, NULL, NULL);
	drr_purge(&s->drr);
	flowtab_destroy(&s->ft);
	if (s->admission)
		flowtab_destroy(&s->prog);
	free(s->lenb);
	s->lenb = NULL;
}

/* priv arrives zeroed.  -1 for params outside their ranges or no memory,
 * with nothing allocated. */
static int pdrr_init(void *priv, const void *params,
		     const struct sched_env *env)
{
	const struct pdrr_params *pp = params;
	struct pdrr_sched *s = priv;

	if (pp->quantum_bytes < PDRR_QUANTUM_MIN_BYTES ||
	    pp->quantum_bytes > PDRR_QUANTUM_MAX_BYTES ||
	    pp->buffer_pkts < 1 || pp->buffer_pkts > PDRR_BUFFER_MAX_PKTS ||
	    pp->max_flows < 1 || pp->max_flows > PDRR_FLOWS_MAX ||
	    pp->interval_ns < 1 ||
	    !(pp->admit_load >= 0 && pp->admit_load <= 1) ||
	    (pp->admission && (pp->progress_flows < 1 ||
			       pp->progress_flows > FLOWTAB_CAP_MAX ||
			       !pp->admit_bps || !env->capacity_bps)))
		return -1;
	s->quantum_bytes = (uint32_t)pp->quantum_bytes;
	s->buffer_pkts = (uint32_t)pp->buffer_pkts;
	s->max_flows = (uint32_t)pp->max_flows;
	s->capacity_bps = env->capacity_bps;
	s->admit_bps = pp->admit_bps;
	s->admit_load = pp->admit_load;
	s->interval_ns = pp->interval_ns;
	s->drop = env->drop;
	s->owner = env->owner;
	s->lenb = calloc((size_t)s->buffer_pkts + 1, sizeof(s->lenb[0]));
	if (!s->lenb)
		return -1;
	if (flowtab_init(&s->ft, s->max_flows + s->buffer_pkts,
			 sizeof(struct pdrr_flow), UINT64_MAX, NULL,
			 NULL) < 0) {
		free(s->lenb);
		return -1;
	}
	if (pp->admission) {
		if (flowtab_init(&s->prog, (uint32_t)pp->progress_flows,
				 sizeof(struct pdrr_progress),
				 pp->progress_ns, NULL, NULL) < 0) {
			flowtab_destroy(&s->ft);
			free(s->lenb);
			return -1;
		}
		s->admission = 1;
	}
	s->priority = pp->priority;
	efstrict_init(&s->ef, pp->ef_strict);
	drr_init(&s->drr);
	drr_set_on_leave(&s->drr, pdrr_left, s);
	if (pp->expire_ns)
		drr_set_expiry(&s->drr, pp->expire_ns, pdrr_expired, s);
	pktq_init(&s->pq);
	drr_q_init(&s->fict, s->quantum_bytes);
	s->idle = 1;
	s->fair_bps = (double)s->capacity_bps;
	return 0;
}

/* ---- configuration ------------------------------------------------------ */

static const struct cfg_key pdrr_keys[] = {
	{ .name = "quantum", .type = CFG_T_BYTES,
	  .min = PDRR_QUANTUM_MIN_BYTES, .max = PDRR_QUANTUM_MAX_BYTES,
	  CFG_FIELD(struct pdrr_params, quantum_bytes), .def = "the MTU",
	  .unit = "bytes", .help = "Q_i of every flow, bytes per round "
	  "(the paper's simulations: the MTU)" },
	{ .name = "ef_strict", .type = CFG_T_BOOL,
	  CFG_FIELD(struct pdrr_params, ef_strict), .def = "true",
	  .help = "EF strict priority above PDRR (false: EF packets are "
	  "flows like the others)" },
	{ .name = "priority", .type = CFG_T_BOOL,
	  CFG_FIELD(struct pdrr_params, priority), .def = "true",
	  .help = "the priority queue of Table 1; false: plain DRR "
	  "(Shreedhar-Varghese) on the same flows, for comparison" },
	{ .name = "buffer", .type = CFG_T_UINT, .min = 1,
	  .max = PDRR_BUFFER_MAX_PKTS,
	  CFG_FIELD(struct pdrr_params, buffer_pkts),
	  .def = "the sum of the class limits", .unit = "packets",
	  .help = "packets in PQ and the flow queues; full: the head of the "
	  "longest flow queue is pushed out (footnote 1)" },
	{ .name = "max_flows", .type = CFG_T_UINT, .min = 1,
	  .max = PDRR_FLOWS_MAX, CFG_FIELD(struct pdrr_params, max_flows),
	  .def = "1024", .unit = "flows",
	  .help = "AFL size (4.2); a new flow beyond it goes through PQ, "
	  "counted, until it can join" },
	{ .name = "interval", .type = CFG_T_DURATION, .min = NS_PER_MS,
	  .max = 10 * NS_PER_SEC, CFG_FIELD(struct pdrr_params, interval_ns),
	  .def = "100ms", .help = "t_f: fair rate and priority load sample "
	  "period, smoothed new = 0.9 old + 0.1 sample (3.2, 5)" },
	{ .name = "admission", .type = CFG_T_BOOL,
	  CFG_FIELD(struct pdrr_params, admission), .def = "false",
	  .help = "implicit admission control (5): refuse new flows while "
	  "the smoothed fair rate is under admit_rate" },
	{ .name = "admit_rate", .type = CFG_T_RATE,
	  CFG_FIELD(struct pdrr_params, admit_bps),
	  .def = "1% of the link's mean", .unit = "bit/s",
	  .help = "the fair rate threshold of admission" },
	{ .name = "admit_load", .type = CFG_T_NUMBER, .lo = 0, .hi = 1,
	  .flags = CFG_F_LO_OPEN, .needs = "admission",
	  CFG_FIELD(struct pdrr_params, admit_load), .def = "off",
	  .unit = "a fraction of the capacity",
	  .help = "2.2's second criterion: also refuse new flows while the "
	  "smoothed priority load is above this" },
	{ .name = "progress_timeout", .type = CFG_T_DURATION,
	  .min = 10 * NS_PER_MS, .max = 3600 * NS_PER_SEC,
	  CFG_FIELD(struct pdrr_params, progress_ns), .def = "2s",
	  .help = "a flow stays in progress (admitted) until silent this "
	  "long (1: a few seconds)" },
	{ .name = "progress_flows", .type = CFG_T_UINT, .min = 1,
	  .max = FLOWTAB_CAP_MAX,
	  CFG_FIELD(struct pdrr_params, progress_flows), .def = "16384",
	  .unit = "flows", .help = "flows in progress remembered; beyond, "
	  "a new flow is judged at each packet" },
	{ .name = "t_expire", .type = CFG_T_DURATION, .min = NS_PER_MS,
	  .max = 3600 * NS_PER_SEC, CFG_FIELD(struct pdrr_params, expire_ns),
	  .def = "off", .help = "packets queued longer than this are "
	  "discarded, never sent (DRRexp with priority = false: the Dual "
	  "Queue paper's 5 s)" },
	{ .name = NULL },
};

/* The defaults for env (NULL: the default config's MTU and limits). */
static void pdrr_defaults(void *params, const struct sched_env *env)
{
	struct pdrr_params *pp = params;
	uint64_t sum = 0;
	unsigned int c;

	pp->quantum_bytes = env ? env->mtu_bytes : 1500;
	if (pp->quantum_bytes < PDRR_QUANTUM_MIN_BYTES)
		pp->quantum_bytes = PDRR_QUANTUM_MIN_BYTES;
	for (c = 0; c < NCLASS; c++)
		sum += env ? env->limit_pkts[c] : 0;
	if (!sum)
		sum = 2100;     /* the default limits, 100 + 1000 + 1000 */
	pp->buffer_pkts = sum > PDRR_BUFFER_MAX_PKTS ? PDRR_BUFFER_MAX_PKTS
						     : sum;
	pp->max_flows = PDRR_DEF_FLOWS;
	pp->ef_strict = 1;
	pp->priority = 1;
	pp->admission = 0;
	pp->env_capacity_bps = env ? env->capacity_bps : 0;
	pp->admit_bps = pp->env_capacity_bps / 100;
	pp->admit_load = 0;
	pp->interval_ns = PDRR_DEF_INTERVAL_NS;
	pp->progress_ns = PDRR_DEF_PROGRESS_NS;
	pp->progress_flows = PDRR_DEF_PROGRESS_FLOWS;
	pp->expire_ns = 0;
}

#define PDRR_NO_CAPACITY "true needs a link capacity: the link is " \
			 "unlimited (accepted: false, or a rate in link.rate)"
#define PDRR_ZERO_RATE   "0 bit/s refuses nothing (accepted: a rate " \
			 "above 0, e.g. \"200kbit\")"

/* Admission needs a capacity to measure the fair rate against, and a
 * threshold above 0.  grp may be NULL.  Returns the error count. */
static int pdrr_check(const struct config_setting_t *grp, void *params,
		      const struct cfg_status *st, struct diag *d)
{
	struct pdrr_params *pp = params;
	int nerr = 0;

	(void)st;
	if (!pp->admission)
		return 0;
	if (!pp->env_capacity_bps) {
		cfg_report(d, cfg_lookup(grp, "admission"), NULL, "%s",
			   PDRR_NO_CAPACITY);
		nerr++;
	} else if (!pp->admit_bps) {
		const config_setting_t *s = cfg_lookup(grp, "admit_rate");

		if (s)
			cfg_report(d, s, NULL, "%s", PDRR_ZERO_RATE);
		else
			cfg_report(d, grp, "admit_rate", "%s",
				   PDRR_ZERO_RATE);
		nerr++;
	}
	return nerr;
}

/* Read-only: state and cumulative counters (see the header comment). */
static void pdrr_dump_stats(void *priv, struct jw *w)
{
	const struct pdrr_sched *s = priv;

	jw_u64(w, "flows", s->nflows);
	jw_u64(w, "pq_pkts", s->pq.len_pkts);
	jw_u64(w, "fair_rate_bps", (uint64_t)(s->fair_bps + 0.5));
	jw_u64(w, "fair_sample_bps", (uint64_t)(s->fair_sample_bps + 0.5));
	jw_double(w, "prio_load", s->prio_load, 4);
	jw_counter(w, "rounds", s->fict.rounds);
	jw_counter(w, "pq_out_pkts", s->pq_out_pkts);
	jw_counter(w, "pq_out_bytes", s->pq_out_bytes);
	jw_counter(w, "afl_full_pkts", s->afl_full_pkts);
	jw_counter(w, "rejected_flows", s->rejected_flows);
	jw_obj_begin(w, "refused_by");
	jw_counter(w, "fair_rate", s->refused_rate_pkts);
	jw_counter(w, "prio_load", s->refused_load_pkts);
	jw_obj_end(w);
	jw_counter(w, "examined", s->drr.examined);
	jw_obj_begin(w, "drops");
	jw_counter(w, "sched_limit", s->drops[DROP_SCHED_LIMIT]);
	jw_counter(w, "pushout", s->drops[DROP_PUSHOUT]);
	jw_counter(w, "admission", s->drops[DROP_ADMISSION]);
	jw_counter(w, "expired", s->drops[DROP_EXPIRED]);
	jw_obj_end(w);
}

const struct sched_ops sched_pdrr_ops = {
	.name        = "pdrr",
	.summary     = "EF strict priority, per-flow deficit round robin "
		       "with a priority queue for low-rate flows",
	.params_size = sizeof(struct pdrr_params),
	.priv_size   = sizeof(struct pdrr_sched),
	.defaults    = pdrr_defaults,
	.keys        = pdrr_keys,
	.check       = pdrr_check,
	.init        = pdrr_init,
	.destroy     = pdrr_destroy,
	.enqueue     = pdrr_enqueue,
	.dequeue     = pdrr_dequeue,
	.peek        = pdrr_peek,
	.next_event  = stock_next_event_never,
	.drain       = pdrr_drain,
	.dump_stats  = pdrr_dump_stats,
};
