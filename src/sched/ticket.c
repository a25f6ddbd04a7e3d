/* ticket.c - the In-Time (IT) PHB group and the TICKET scheduler
 * (Karlsson, Bodin, Brodnik, Nilsson, Schelén, "Extended Expedited
 * Forwarding: the In-Time PHB group"; papers/ticket-in-time-phb-karlsson.txt).
 *
 * What it does.  Classes map to the IT PHBs: EF = IT-conforming (buffer c),
 * AF = IT-excess (buffer e), CS0 = IT-background (buffer b).  Conforming
 * and excess packets get a deadline τ = t + d (t: arrival, d: the one
 * parameter, the maximum queueing delay) and a sequence number σ from one
 * counter.  Conforming packets wait while excess and background packets
 * go, but start no later than their deadline and never after a later
 * excess packet; an excess packet that would start after its deadline
 * (late) or after a later conforming packet (out of order) is dropped.
 * Excess and background packets leave in the order of their queue
 * tickets, and an excess packet inherits the ticket of a dropped excess
 * packet, so that excess traffic gets its share of the link back after
 * late / out-of-order drops (the loss-rate fairness demand, §2.3).
 *
 * Paper sections followed:
 *   §2.2  the naive scheduler (variant = "naive"; Algorithm 1): one
 *         buffer b shared by excess and background packets;
 *   §2.3  TICKET (Algorithm 2, tk_decide()): separate buffers e and b,
 *         queue tickets, the common limit N_eb on n_e + n_b;
 *   §2.4.1 the clock offset Δ for overlapping conforming packets;
 *   §2.4.2 the separate ticket buffer q of N_q tickets;
 *   §2.4.4 per-flow out-of-order detection (order = "flow", below);
 *   §2.5  O(1) enqueue and O(1) dequeue per removed packet: every buffer
 *         is a ring allocated at init (4 N_c + 6 N_eb words and a bit).
 *
 * Work-conserving.  Dequeue returns NULL only when nothing is held: a
 * conforming packet is held back only while an excess or background packet
 * can go instead (lines 13-33), and goes at once when e and b are empty
 * (line 4); each round of the loop that does not return drops one excess
 * packet.  So next_event is stock_next_event_never.
 *
 * The traps (the text checked against the pseudo-code) and what this code
 * does about each:
 *  1. There is no enqueue pseudo-code.  Derived from §2.2-2.4 (tk_enqueue):
 *     conforming: σ = ++seq (one counter for conforming AND excess, or
 *       σ_c < σ_e and σ_e < Σ would compare unrelated numbers), τ = t + d,
 *       δ (trap 3), appended to c; c holds the class limit of EF, a
 *       packet beyond it is an overflow drop (DROP_SCHED_LIMIT);
 *     excess / background: refused (overflow, DROP_SCHED_LIMIT, counted
 *       per class) when n_e + n_b = N_eb (the common limit bounds the
 *       sum, §2.3, whatever the class); otherwise it takes the next
 *       number of one ticket counter for accepted excess and background
 *       packets ("sequence numbers for accepted excess and best-effort
 *       packets");  a background packet stores it, an excess packet gets
 *       σ and τ and its ticket is pushed to q only if q is not full
 *       (§2.4.2: "then no ticket has to be allocated") - the number is
 *       consumed either way, which changes no comparison;
 *     naive: excess and background share b, N_b = N_eb, no tickets.
 *  2. Q_e = ∞ when buffer e is empty (A.2), even though q may hold
 *     tickets: then b is served (if non-empty), never "e" by a stale
 *     ticket.  Q_b = ∞ when b is empty.  q holds at least n_e tickets
 *     (N_q >= N_eb is enforced, see the keys), so Q_e exists whenever e is
 *     non-empty.
 *  3. δ = max(τ_tail + sendTime(p_tail) - τ, 0) is computed against the
 *     tail of c only when c is non-empty (a conforming packet already on
 *     the link cannot be helped, and with d >= one MTU's time does not
 *     need it), stored with the ARRIVING (later) packet, added to Δ, and
 *     undone (Δ -= δ) when that packet leaves (§2.4.1 "stored with the
 *     arriving conforming packet so that Δ can be decreased when the
 *     packet are dequeued"), also when drain() removes it.  So Δ is the
 *     sum of δ over the queued conforming packets, and the head of c
 *     starts at the latest at τ_c - Δ.
 *  4. Every comparison is strict as printed: τ_c < t + Δ + sendTime(p),
 *     σ_c < σ_e, σ_e < Σ, τ_e < t, Q_e < Q_b.  A conforming packet may
 *     therefore start exactly at τ_c - Δ, an excess packet exactly at τ_e.
 *  5. The late test τ_e < t has no Δ: Δ moves the conforming packets'
 *     deadlines forward, not the clock the excess packets are judged by.
 *  6. d bounds the queueing delay, i.e. the START of transmission: the
 *     conforming test adds the sendTime of the packet that would go
 *     instead (p_e or p_b), never the conforming packet's own, and
 *     dequeue's `now` is the emulated link's start time.
 *  7. A conforming packet goes at once only when e and b are both empty
 *     (line 4); with either non-empty it waits for its deadline or for an
 *     excess packet of a later σ.
 *  8. The prose (A.1, A.2) cites "line 15" for the excess drop: it is
 *     line 21 of Algorithm 2 (line 21 of Algorithm 1 too), and Algorithm 2
 *     line 21 reads `drop(p_b)` where the packet tested and dropped is the
 *     excess head p_e.  Here the excess head is dropped, its ticket stays
 *     in q (only line 23, the send, removes one) and the loop starts over.
 *     A packet both out of order and late counts as DROP_ORDER (the first
 *     term of line 20); otherwise DROP_LATE.
 *
 * Decisions where the paper is silent:
 *  - sendTime(p) = len·8/C with C the configured `capacity` (default the
 *    link's mean rate); a capacity below the mean (e.g. the minimum of a
 *    varying C(t)) makes conforming packets go earlier, the safe side.
 *    An unlimited link without `capacity` has sendTime 0.
 *  - d defaults to 10 ms, our choice (the paper has no default and sweeps
 *    0-100 ms); N_eb to 256 packets, the buffer of §3.1's TICKET link;
 *    N_q to N_eb (§2.4.2: N_q = N_eb).  N_q < N_eb is refused: an excess
 *    packet could then be queued with no ticket in q and Algorithm 2 has
 *    no Q_e for it.  A larger N_q keeps more tickets of dropped excess
 *    packets (a longer jump ahead).
 *  - σ and Σ are 64-bit and start at 1 and 0: no wrap-around.
 *  - drain() returns c, then e, then b, each in arrival order; an excess
 *    packet takes one ticket with it, a conforming one its δ.
 *  - §2.4.4 is a variant the paper "considered in preliminary
 *    simulations" with "the same results": an option, order = "flow",
 *    default "aggregate" (Algorithm 2 as printed).  It changes only the
 *    drop test σ_e < Σ of line 20: Σ becomes σ of the last conforming
 *    packet sent of the excess packet's own flow (p->flow_hash, the
 *    5-tuple; two flows of one hash are one flow).  Line 16 (σ_c < σ_e:
 *    the conforming head goes before a later excess packet) stays on the
 *    aggregate σ: it never drops, and per flow it is what keeps a
 *    conforming packet ahead of its flow's later excess packets.  So the
 *    IT in-order requirement then holds per flow, not across flows.  The
 *    paper's dictionary (perfect hashing) is the bounded flow table
 *    (util/flowtab.h) of `flows` entries allocated at init, written on each
 *    conforming send and read only when the aggregate test fails (Σ_f <=
 *    Σ); an entry idle for more than d expires, safely (tk_sigma_of).  A
 *    send that finds the table full is remembered in one shared
 *    untracked Σ, by which every flow without an entry is then judged
 *    (the safe side: never sends out of order, may drop more), counted
 *    as "untracked".
 *  - a conforming packet that starts after its deadline (possible only when
 *    conforming traffic exceeds the link, or d is shorter than a packet
 *    already on the link) is sent anyway, and counted ("ef_missed").
 *
 * Configuration, group scheduler.ticket (all optional):
 *   variant = "ticket";   or "naive" (Algorithm 1, for comparison)
 *   d = "10ms";           maximum queueing delay of conforming and excess
 *   n_eb = 256;           common limit on queued excess + background packets
 *   n_q = 256;            ticket buffer, >= n_eb (default n_eb)
 *   capacity = "30Mbit";  C of sendTime (default the link's mean)
 *   order = "aggregate";  or "flow": §2.4.4's per-flow out-of-order test
 *   flows = 4096;         order = "flow": flow-table entries
 *
 * Statistics ("sched" member of the stats line): "variant", "delta_ns"
 * (Δ now), "tickets" (held in q now), "order", counters "late",
 * "out_of_order", "ef_missed", "untracked" and "overflow": {"ef", "af", "cs0"} (cumulative here,
 * deltas on the stats line through jw_counter()).
 */
#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "pkt/classify.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "util/log.h"
#include "util/flowtab.h"
#include "stock.h"

#define TK_DEF_D_NS         (10 * NS_PER_MS)
#define TK_MAX_D_NS         (10 * NS_PER_SEC)
#define TK_DEF_N_EB_PKTS    256u
#define TK_MAX_PKTS         1000000u
#define TK_TICKET_NONE      UINT64_MAX  /* Q_f = ∞ of an empty buffer */
#define TK_DEF_FLOWS        4096u

enum tk_variant { TK_TICKET = 0, TK_NAIVE = 1 };

static const char *const tk_variant_name[] = { "ticket", "naive" };

/* What Σ an excess packet is judged by: the IT aggregate's (Algorithm 2)
 * or its own flow's (§2.4.4). */
enum tk_order { TK_ORDER_AGGREGATE = 0, TK_ORDER_FLOW = 1 };

static const char *const tk_order_name[] = { "aggregate", "flow" };

struct tk_params {
	uint64_t d_ns;
	uint64_t n_eb_pkts;
	uint64_t n_q_pkts;              /* 0: n_eb */
	uint64_t capacity_bps;          /* 0: the link's mean (env) */
	uint64_t flows;                 /* order = flow: flow-table entries */
	int      variant;               /* enum tk_variant */
	int      order;                 /* enum tk_order */
};

_Static_assert(sizeof(struct tk_params) <= SCHED_PARAMS_MAX,
	       "ticket parameters exceed SCHED_PARAMS_MAX");

/* One queued packet with what §2.3's summary stores with it. */
struct tk_ent {
	struct pkt *p;
	uint64_t    seq;                /* σ: conforming and excess */
	tstamp_ns   deadline_ns;        /* τ = t + d: conforming and excess */
	tstamp_ns   delta_ns;           /* δ: conforming */
	uint64_t    ticket;             /* Q: background (TICKET) */
	int         excess;             /* naive's shared b: an excess packet */
};

/* A FIFO ring of entries, allocated at init. */
struct tk_ring {
	struct tk_ent *ent;
	uint32_t cap, head, len;
};

/* The ticket buffer q. */
struct tk_tickets {
	uint64_t *t;
	uint32_t  cap, head, len;
};

struct tk_sched {
	struct tk_ring    c, e, b;      /* naive: e unused, b shared */
	struct tk_tickets q;
	int        naive;
	tstamp_ns  d_ns;
	uint64_t   capacity_bps;        /* 0: sendTime 0 */
	uint32_t   n_eb_pkts;
	uint64_t   next_seq;            /* the σ counter (last given) */
	uint64_t   sent_seq;            /* Σ: σ of the last sent conforming */
	uint64_t   next_ticket;         /* the ticket counter (last given) */
	tstamp_ns  offset_ns;           /* Δ */
	uint64_t   late, order, ef_missed;
	uint64_t   overflow[NCLASS];
	/* order = "flow" (§2.4.4): Σ per flow, payload uint64_t; entries
	 * idle for more than d expire (see tk_sigma_of) */
	int        per_flow;
	struct flowtab ft;
	uint64_t   untracked_seq;       /* Σ of sends the full table lost */
	uint64_t   untracked;           /* how many such sends */
	void     (*drop)(void *owner, struct pkt *p, enum drop_reason why);
	void      *owner;
};

/* Which buffer dequeue serves, after dropping `ndrop` heads of the excess
 * buffer (e; naive: b, whose dropped heads are excess packets). */
enum tk_pick { TK_NONE, TK_C, TK_E, TK_B };

struct tk_choice {
	enum tk_pick pick;
	uint32_t     ndrop;
};

/* ---- buffers ------------------------------------------------------------- */

/* Slot of the i-th element of a ring of cap slots starting at head. */
static uint32_t tk_slot(uint32_t head, uint32_t i, uint32_t cap)
{
	return (uint32_t)(((uint64_t)head + i) % cap);
}

/* The i-th entry (0: the head), i < r->len. */
static struct tk_ent *tk_at(const struct tk_ring *r, uint32_t i)
{
	return &r->ent[tk_slot(r->head, i, r->cap)];
}

/* A cleared entry at the tail for p, or NULL when the ring is full. */
static struct tk_ent *tk_push(struct tk_ring *r, struct pkt *p)
{
	struct tk_ent *x;

	if (r->len == r->cap)
		return NULL;
	x = &r->ent[tk_slot(r->head, r->len, r->cap)];
	memset(x, 0, sizeof(*x));
	x->p = p;
	r->len++;
	return x;
}

/* Removes the head (r->len > 0) and returns a copy of it. */
static struct tk_ent tk_pop(struct tk_ring *r)
{
	struct tk_ent x = r->ent[r->head];

	r->head = tk_slot(r->head, 1, r->cap);
	r->len--;
	return x;
}

/* Q of the head of q; TK_TICKET_NONE when q is empty. */
static uint64_t tk_q_head(const struct tk_tickets *q)
{
	return q->len ? q->t[q->head] : TK_TICKET_NONE;
}

static void tk_q_pop(struct tk_tickets *q)
{
	if (!q->len)
		return;
	q->head = tk_slot(q->head, 1, q->cap);
	q->len--;
}

/* ---- the algorithm ------------------------------------------------------- */

/* a + b, saturating at TS_NEVER (a `now` near the end of time in a test
 * must not wrap a deadline to the past). */
static tstamp_ns tk_add(tstamp_ns a, tstamp_ns b)
{
	return a > TS_NEVER - b ? TS_NEVER : a + b;
}

/* sendTime(len_bytes) at the configured capacity, in ns (0 unlimited). */
static tstamp_ns tk_send_ns(const struct tk_sched *ts, uint32_t len_bytes)
{
	if (!ts->capacity_bps)
		return 0;
	return (tstamp_ns)len_bytes * 8u * NS_PER_SEC / ts->capacity_bps;
}

/* Must the head of c go before a packet of len_bytes would: n_c > 0 and
 * τ_c < (t + Δ) + sendTime(p)  (Alg. 2 lines 14-15 and 27, strict, no
 * sendTime of the conforming packet itself: traps 4, 6). */
static int tk_c_due(const struct tk_sched *ts, tstamp_ns now,
		    uint32_t len_bytes)
{
	const struct tk_ent *c;

	if (!ts->c.len)
		return 0;
	c = tk_at(&ts->c, 0);
	return c->deadline_ns < tk_add(tk_add(now, ts->offset_ns),
				       tk_send_ns(ts, len_bytes));
}

/* The Σ of line 20 for excess packet x at now: the aggregate's, or with
 * order = "flow" (§2.4.4) σ of the last conforming packet sent of x's
 * flow (p->flow_hash).  Conforming packets leave in σ order, so a flow's
 * Σ_f <= Σ: the table is read only when the aggregate test fails, and a
 * flow without an entry is judged by untracked_seq (the sends a full
 * table could not record; 0 if none), never more leniently than its
 * entry would have judged it.  An entry expires after more than d idle:
 * an excess packet older than that flow's last conforming send arrived
 * more than d ago and fails the late test anyway.  May reclaim an expired
 * entry (flowtab_find), which changes no decision. */
static uint64_t tk_sigma_of(struct tk_sched *ts, const struct tk_ent *x,
			    tstamp_ns now)
{
	const uint64_t *f;

	if (!ts->per_flow || x->seq >= ts->sent_seq)
		return ts->sent_seq;
	f = flowtab_find(&ts->ft, x->p->flow_hash, now);
	return f ? *f : ts->untracked_seq;
}

/* Records Σ_f = seq for the conforming packet p sent at now (order =
 * "flow"); a full table leaves it in untracked_seq instead. */
static void tk_sigma_sent(struct tk_sched *ts, const struct pkt *p,
			  uint64_t seq, tstamp_ns now)
{
	uint64_t *f;
	int created;

	if (!ts->per_flow)
		return;
	f = flowtab_get(&ts->ft, p->flow_hash, now, &created);
	if (f) {
		*f = seq;
		return;
	}
	ts->untracked_seq = seq;
	ts->untracked++;
}

/* Line 20: σ_e < Σ (DROP_ORDER; Σ per tk_sigma_of) or τ_e < t (DROP_LATE,
 * no Δ: trap 5); DROP_REASON_MAX when the excess packet x may go. */
static enum drop_reason tk_doomed(struct tk_sched *ts,
				  const struct tk_ent *x, tstamp_ns now)
{
	if (x->seq < tk_sigma_of(ts, x, now))
		return DROP_ORDER;
	if (x->deadline_ns < now)
		return DROP_LATE;
	return DROP_REASON_MAX;
}

/* The excess-or-background candidate once `k` heads of the drop ring are
 * gone: TICKET compares Q_e and Q_b (line 13; Q = ∞ for an empty buffer,
 * trap 2), naive takes b's head (Alg. 1 line 13).  NULL when e and b are
 * both empty (line 4); *pick and *excess say where it is and what. */
static const struct tk_ent *tk_candidate(const struct tk_sched *ts,
					 uint32_t k, enum tk_pick *pick,
					 int *excess)
{
	const struct tk_ent *x;
	uint64_t qe, qb;

	if (ts->naive) {
		if (ts->b.len == k)
			return NULL;
		x = tk_at(&ts->b, k);
		*pick = TK_B;
		*excess = x->excess;
		return x;
	}
	if (ts->e.len == k && !ts->b.len)
		return NULL;
	qe = ts->e.len > k ? tk_q_head(&ts->q) : TK_TICKET_NONE;
	qb = ts->b.len ? tk_at(&ts->b, 0)->ticket : TK_TICKET_NONE;
	if (qe < qb) {
		*pick = TK_E;
		*excess = 1;
		return tk_at(&ts->e, k);
	}
	*pick = TK_B;
	*excess = 0;
	return tk_at(&ts->b, 0);
}

/* One run of Algorithm 2 (naive: Algorithm 1) at link time `now`, without
 * changing anything: which buffer is served, after how many excess heads
 * are dropped (each round of the DO loop that drops, line 21).  Shared by
 * dequeue and peek, so that peek announces exactly what dequeue returns. */
static struct tk_choice tk_decide(struct tk_sched *ts, tstamp_ns now)
{
	struct tk_choice ch = { TK_NONE, 0 };

	for (;;) {
		const struct tk_ent *x;
		enum tk_pick pick = TK_NONE;
		int excess = 0;

		x = tk_candidate(ts, ch.ndrop, &pick, &excess);
		if (!x) {                               /* lines 4-11 */
			ch.pick = ts->c.len ? TK_C : TK_NONE;
			return ch;
		}
		/* lines 14-19 (excess) and 26-31 (background) */
		if (tk_c_due(ts, now, x->p->len_bytes) ||
		    (excess && ts->c.len && tk_at(&ts->c, 0)->seq < x->seq)) {
			ch.pick = TK_C;
			return ch;
		}
		if (excess && tk_doomed(ts, x, now) != DROP_REASON_MAX) {
			ch.ndrop++;                     /* lines 20-21 */
			continue;
		}
		ch.pick = pick;                         /* lines 23-24, 33 */
		return ch;
	}
}

/* The packet choice ch designates (NULL for TK_NONE). */
static struct pkt *tk_chosen(const struct tk_sched *ts, struct tk_choice ch)
{
	switch (ch.pick) {
	case TK_C:
		return tk_at(&ts->c, 0)->p;
	case TK_E:
		return tk_at(&ts->e, ch.ndrop)->p;
	case TK_B:
		return tk_at(&ts->b, ts->naive ? ch.ndrop : 0)->p;
	default:
		return NULL;
	}
}

/* Removes the head of c as a send or a drain: Δ -= δ of that packet (trap
 * 3).  Returns it. */
static struct tk_ent tk_c_remove(struct tk_sched *ts)
{
	struct tk_ent x = tk_pop(&ts->c);

	ts->offset_ns -= x.delta_ns;
	return x;
}

/* Takes ownership.  The derived enqueue of trap 1: conforming into c with
 * σ, τ and δ; excess and background under the common limit N_eb, with a
 * ticket.  Overflow drops (DROP_SCHED_LIMIT) are counted per class. */
static void tk_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct tk_sched *ts = priv;
	unsigned int cls = stock_cls(p);
	struct tk_ent *x;

	p->verdict = cls == CLS_EF ? PKT_V_CONFORMING
		   : cls == CLS_AF ? PKT_V_EXCESS : PKT_V_BACKGROUND;
	if (cls == CLS_EF) {
		const struct tk_ent *tail =
			ts->c.len ? tk_at(&ts->c, ts->c.len - 1) : NULL;
		tstamp_ns tail_end;

		x = tk_push(&ts->c, p);
		if (!x)
			goto overflow;
		x->seq = ++ts->next_seq;
		x->deadline_ns = tk_add(now, ts->d_ns);
		if (tail) {             /* §2.4.1, only against a queued tail */
			tail_end = tk_add(tail->deadline_ns,
					  tk_send_ns(ts, tail->p->len_bytes));
			if (tail_end > x->deadline_ns)
				x->delta_ns = tail_end - x->deadline_ns;
			ts->offset_ns += x->delta_ns;
		}
		return;
	}
	if (ts->e.len + ts->b.len >= ts->n_eb_pkts)
		goto overflow;
	++ts->next_ticket;
	if (cls == CLS_AF) {
		x = tk_push(ts->naive ? &ts->b : &ts->e, p);
		x->seq = ++ts->next_seq;
		x->deadline_ns = tk_add(now, ts->d_ns);
		x->excess = 1;
		if (!ts->naive && ts->q.len < ts->q.cap)        /* §2.4.2 */
			ts->q.t[tk_slot(ts->q.head, ts->q.len++, ts->q.cap)] =
				ts->next_ticket;
		return;
	}
	x = tk_push(&ts->b, p);
	x->ticket = ts->next_ticket;
	return;
overflow:
	ts->overflow[cls]++;
	ts->drop(ts->owner, p, DROP_SCHED_LIMIT);
}

/* Algorithm 2 (naive: 1) at link time `now`, the start of the packet
 * returned: drops the excess heads the loop drops (DROP_ORDER or
 * DROP_LATE, their tickets stay in q), then sends from the chosen buffer.
 * A conforming packet sets Σ and undoes its δ; an excess packet uses the
 * head ticket of q (line 23).  NULL only when nothing is held. */
static struct pkt *tk_dequeue(void *priv, tstamp_ns now)
{
	struct tk_sched *ts = priv;
	struct tk_choice ch = tk_decide(ts, now);
	struct tk_ring *dr = ts->naive ? &ts->b : &ts->e;
	struct tk_ent x;
	uint32_t i;

	for (i = 0; i < ch.ndrop; i++) {
		enum drop_reason why;

		x = tk_pop(dr);
		why = tk_doomed(ts, &x, now);
		if (why == DROP_ORDER)
			ts->order++;
		else
			ts->late++;
		ts->drop(ts->owner, x.p, why);
	}
	switch (ch.pick) {
	case TK_C:
		x = tk_c_remove(ts);
		ts->sent_seq = x.seq;                   /* Σ = σ_c */
		tk_sigma_sent(ts, x.p, x.seq, now);
		if (now > x.deadline_ns)
			ts->ef_missed++;
		return x.p;
	case TK_E:
		tk_q_pop(&ts->q);
		return tk_pop(&ts->e).p;
	case TK_B:
		return tk_pop(&ts->b).p;
	default:
		return NULL;
	}
}

/* What tk_dequeue(now) would return; no state changes (the drops it
 * would make are only counted past). */
static const struct pkt *tk_peek(void *priv, tstamp_ns now)
{
	struct tk_sched *ts = priv;

	return tk_chosen(ts, tk_decide(ts, now));
}

/* c, then e, then b, each in arrival order; no policy.  A conforming
 * packet takes its δ with it and an excess packet one ticket, so that a
 * drained instance is empty (Δ = 0) and schedules afresh. */
static struct pkt *tk_drain(void *priv)
{
	struct tk_sched *ts = priv;

	if (ts->c.len)
		return tk_c_remove(ts).p;
	if (ts->e.len) {
		tk_q_pop(&ts->q);
		return tk_pop(&ts->e).p;
	}
	if (ts->b.len)
		return tk_pop(&ts->b).p;
	return NULL;
}

/* Returns every held packet to the pool and frees the buffers.  Also
 * cleans up after a failed init (priv was zeroed). */
static void tk_destroy(void *priv)
{
	struct tk_sched *ts = priv;
	struct tk_ring *rings[] = { &ts->c, &ts->e, &ts->b };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		while (rings[i]->len)
			pkt_free(tk_pop(rings[i]).p);
		free(rings[i]->ent);
		rings[i]->ent = NULL;
	}
	free(ts->q.t);
	ts->q.t = NULL;
	if (ts->per_flow)
		flowtab_destroy(&ts->ft);
	ts->per_flow = 0;
}

/* Allocates c (the EF class limit), e and b (N_eb each; naive: b only)
 * and q (N_q).  -1 when out of memory (nothing left allocated). */
static int tk_init(void *priv, const void *params,
		   const struct sched_env *env)
{
	const struct tk_params *pp = params;
	struct tk_sched *ts = priv;
	uint32_t n_eb = (uint32_t)pp->n_eb_pkts;
	uint32_t n_c = env->limit_pkts[CLS_EF] ? env->limit_pkts[CLS_EF] : 1;
	uint32_t n_q = pp->n_q_pkts ? (uint32_t)pp->n_q_pkts : n_eb;

	ts->naive = pp->variant == TK_NAIVE;
	ts->d_ns = pp->d_ns;
	ts->capacity_bps = pp->capacity_bps ? pp->capacity_bps
					     : env->capacity_bps;
	ts->n_eb_pkts = n_eb;
	ts->drop = env->drop;
	ts->owner = env->owner;
	ts->c.cap = n_c;
	ts->b.cap = n_eb;
	ts->e.cap = ts->naive ? 0 : n_eb;
	ts->q.cap = ts->naive ? 0 : n_q;
	ts->c.ent = calloc(n_c, sizeof(struct tk_ent));
	ts->b.ent = calloc(n_eb, sizeof(struct tk_ent));
	if (!ts->naive) {
		ts->e.ent = calloc(n_eb, sizeof(struct tk_ent));
		ts->q.t = calloc(n_q, sizeof(uint64_t));
	}
	if (!ts->c.ent || !ts->b.ent ||
	    (!ts->naive && (!ts->e.ent || !ts->q.t))) {
		log_err("ticket: no memory for %u + 2 x %u packets' entries",
			n_c, n_eb);
		tk_destroy(ts);
		return -1;
	}
	if (pp->order == TK_ORDER_FLOW) {
		if (flowtab_init(&ts->ft, (uint32_t)pp->flows, sizeof(uint64_t),
				 ts->d_ns, NULL, NULL) < 0) {
			log_err("ticket: no memory for a table of %llu flows",
				(unsigned long long)pp->flows);
			tk_destroy(ts);
			return -1;
		}
		ts->per_flow = 1;
	}
	return 0;
}

/* ---- configuration ------------------------------------------------------ */

/* One of the two names of `names` (what: "a variant") into *out, by
 * index.  1 or -1 (reported with both accepted names). */
static int tk_parse_name(const struct config_setting_t *s,
			 const char *const names[2], const char *what,
			 int *out, struct diag *d)
{
	char name[16];
	int i;

	if (cfg_get_string(s, name, sizeof(name), d) < 0)
		return -1;
	for (i = 0; i < 2; i++) {
		if (strcmp(name, names[i]) == 0) {
			*out = i;
			return 1;
		}
	}
	cfg_report(d, s, NULL, "'%s' is not %s (accepted: \"%s\", \"%s\")",
		   name, what, names[0], names[1]);
	return -1;
}

/* variant: "ticket" or "naive" into tk_params.variant.  1 or -1. */
static int tk_parse_variant(const struct config_setting_t *s, void *params,
			    struct diag *d)
{
	return tk_parse_name(s, tk_variant_name, "a variant",
			     &((struct tk_params *)params)->variant, d);
}

/* order: "aggregate" or "flow" into tk_params.order.  1 or -1. */
static int tk_parse_order(const struct config_setting_t *s, void *params,
			  struct diag *d)
{
	return tk_parse_name(s, tk_order_name, "an order scope",
			     &((struct tk_params *)params)->order, d);
}

static const struct cfg_key tk_keys[] = {
	{ .name = "variant", .type = CFG_T_CUSTOM, .parse = tk_parse_variant,
	  .def = "\"ticket\"",
	  .help = "\"ticket\": Algorithm 2 (queue tickets, separate excess "
		  "buffer); \"naive\": Algorithm 1 (excess and background "
		  "share one buffer)" },
	{ .name = "d", .type = CFG_T_DURATION, .min = 0, .max = TK_MAX_D_NS,
	  CFG_FIELD(struct tk_params, d_ns), .def = "10ms",
	  .help = "maximum queueing delay of EF (conforming) and AF (excess) "
		  "packets: tau = arrival + d (our default; the paper sweeps "
		  "0-100ms)" },
	{ .name = "n_eb", .type = CFG_T_UINT, .min = 1, .max = TK_MAX_PKTS,
	  CFG_FIELD(struct tk_params, n_eb_pkts), .def = "256",
	  .unit = "packets",
	  .help = "N_eb: common limit on queued AF + CS0 packets (2.3); "
		  "256 as the paper's 3.1" },
	{ .name = "n_q", .type = CFG_T_UINT, .min = 1, .max = TK_MAX_PKTS,
	  CFG_FIELD(struct tk_params, n_q_pkts), .def = "n_eb",
	  .unit = "tickets",
	  .help = "N_q: the ticket buffer, at least n_eb (2.4.2); more keeps "
		  "more tickets of dropped AF packets" },
	{ .name = "order", .type = CFG_T_CUSTOM, .parse = tk_parse_order,
	  .def = "\"aggregate\"",
	  .help = "out-of-order test of AF packets: \"aggregate\" against "
		  "the last EF packet sent (Algorithm 2); \"flow\" against "
		  "the last EF packet of the same 5-tuple (2.4.4)" },
	{ .name = "flows", .type = CFG_T_UINT, .min = 1, .max = FLOWTAB_CAP_MAX,
	  CFG_FIELD(struct tk_params, flows), .def = "4096", .unit = "flows",
	  .help = "order = \"flow\": flows whose last EF packet left within "
		  "d that are remembered; beyond, the others share one Sigma" },
	{ .name = "capacity", .type = CFG_T_RATE,
	  CFG_FIELD(struct tk_params, capacity_bps), .def = "the link's mean",
	  .unit = "bit/s",
	  .help = "C of sendTime (len x 8 / C); below the mean is the safe "
		  "side for EF deadlines" },
	{ .name = NULL },
};

static void tk_defaults(void *params, const struct sched_env *env)
{
	struct tk_params *pp = params;

	(void)env;
	memset(pp, 0, sizeof(*pp));
	pp->d_ns = TK_DEF_D_NS;
	pp->n_eb_pkts = TK_DEF_N_EB_PKTS;
	pp->n_q_pkts = 0;
	pp->flows = TK_DEF_FLOWS;
	pp->variant = TK_TICKET;
	pp->order = TK_ORDER_AGGREGATE;
}

/* n_q >= n_eb (trap 2: every queued excess packet must find a ticket in
 * q).  The key given is blamed: n_q when given, else n_eb.  grp may be
 * NULL.  Returns the error count. */
static int tk_check(const struct config_setting_t *grp, void *params,
		    const struct cfg_status *st, struct diag *d)
{
	const struct tk_params *pp = params;

	if (cfg_status_of(st, "n_q") <= 0 || cfg_status_of(st, "n_eb") < 0 ||
	    pp->n_q_pkts >= pp->n_eb_pkts)
		return 0;
	cfg_report(d, cfg_lookup(grp, "n_q"), NULL, "%llu is below n_eb = "
		   "%llu (accepted: n_q >= n_eb tickets, one per queued AF "
		   "packet, 2.4.2)", (unsigned long long)pp->n_q_pkts,
		   (unsigned long long)pp->n_eb_pkts);
	return 1;
}

/* Read-only: the state (variant, Δ, tickets held) and the cumulative
 * counters (late, out of order, EF started after tau, overflow per
 * class). */
static void tk_dump_stats(void *priv, struct jw *w)
{
	const struct tk_sched *ts = priv;
	unsigned int c;

	jw_str(w, "variant", tk_variant_name[ts->naive]);
	jw_str(w, "order", tk_order_name[ts->per_flow]);
	jw_u64(w, "delta_ns", ts->offset_ns);
	jw_u64(w, "tickets", ts->q.len);
	jw_counter(w, "late", ts->late);
	jw_counter(w, "out_of_order", ts->order);
	jw_counter(w, "ef_missed", ts->ef_missed);
	jw_counter(w, "untracked", ts->untracked);
	jw_obj_begin(w, "overflow");
	for (c = 0; c < NCLASS; c++)
		jw_counter(w, cls_name[c], ts->overflow[c]);
	jw_obj_end(w);
}

const struct sched_ops sched_ticket_ops = {
	.name        = "ticket",
	.summary     = "In-Time PHB group: EF conforming by deadline, AF excess "
		       "in order by queue tickets, CS0 (Karlsson)",
	.params_size = sizeof(struct tk_params),
	.priv_size   = sizeof(struct tk_sched),
	.defaults    = tk_defaults,
	.keys        = tk_keys,
	.check       = tk_check,
	.init        = tk_init,
	.destroy     = tk_destroy,
	.enqueue     = tk_enqueue,
	.dequeue     = tk_dequeue,
	.peek        = tk_peek,
	.next_event  = stock_next_event_never,
	.drain       = tk_drain,
	.dump_stats  = tk_dump_stats,
};
