/* dq.c - DQ, the Dual Queue discipline (Hayes, Rumsewicz, Andrew 1999).
 *
 * What it does.  Two queues share one buffer.  α is a short FIFO whose
 * length L (bytes) is the delay real-time traffic accepts at the link
 * rate; β, the rest of the buffer, absorbs what α cannot hold without
 * breaking that delay.  While α fills, the sessions that load it most are
 * redirected, one per onset threshold, to β: their packets wait there
 * (time-stamped, discarded after t_expire) until α drains to T_abate, and
 * then move back into α, the most recently redirected session first.  In
 * a transient overload a few sessions get poor service so that all others
 * keep the α delay (Fig. 4's claim).  A session is a 5-tuple flow
 * (pkt->flow_hash, see util/flowtab.h).  EF may stay strictly above DQ
 * (`ef_strict`, efstrict.h), as for dwrr.
 *
 * Paper sections followed (papers/dual-queue-hayes-1999.txt):
 *   §2    the discipline: α for delay, β for loss; redirection on
 *         T_onset,j; time stamps and t_expire; β overflow by push-out of
 *         the oldest or drop of the newcomer; transfer back at T_abate;
 *         sessions stay redirected while they have a packet in β;
 *   §4.3  the variant simulated there: T_onset,j = L - L/(2 + j), the
 *         busy-source test with θ_j = θ + 1 - j and its decrement/reset,
 *         LIFO by session / FIFO within a session, T_abate = 0, θ = 5,
 *         t_expire = 5 s, push-out of the oldest, α = 50 ms;
 *   §5    "all queues are given the same total buffer size": β = total - L.
 *
 * The traps of the text and what this code does about each:
 *  1. L's unit is not given.  Here L, T_onset,j, T_abate and the buffer
 *     are bytes: L = capacity · alpha_delay / 8 (§4.3 sizes α "to give a
 *     maximum packet delay of 50 ms", which is a byte count at the rate).
 *     T_onset,j is compared exactly, without rounding L/(2 + j):
 *     A > L - L/(2+j)  <=>  A·(2+j) > L·(1+j).
 *  2. "exceeds" is strict: a packet that brings α to exactly T_onset,j
 *     triggers nothing (tested).  "causes the α queue length to exceed"
 *     is read as "α with this packet is above the threshold", tested on
 *     every arrival, not only on the one that crosses it: the decrement
 *     of θ_j is there "to increase the probability that the *next* packet
 *     will cause a source to be redirected", which needs the next packet
 *     to be tested while α is still above.
 *  3. j is the rank the next redirection would have: the number of
 *     sessions redirected now, plus one (a session that leaves β frees its
 *     rank: "sources are removed from the redirection list").
 *  4. θ_j = θ + 1 - j is defined for j = 1..θ only.  Beyond θ this code
 *     uses θ_j = 0, the formula's value at θ + 1, and the decrement stops
 *     at 0 too: with θ_j < 0 the test would pick a session with no packet
 *     in α, which adds nothing to α's backlog (§2: the session must
 *     "contribute to the possibility of the α queue overflowing").  The
 *     count of the session's packets in α is taken before the arriving
 *     packet is added, and must exceed θ_j (strict).  Each level j keeps
 *     its own decremented value; a redirection at level j resets θ_j.
 *  5. The packet that triggers a redirection itself goes to β ("this
 *     packet and subsequent packets from this session ... are placed in
 *     the β queue"), as does every later packet of that session while it
 *     has a packet in β.
 *  6. "most recently placed in the β queue" is the most recently
 *     *redirected* session: the redirection list is a stack, transfer
 *     takes its top session's oldest packet (LIFO by session, FIFO within
 *     one).  A session whose last β packet leaves (transfer, expiry,
 *     push-out) is removed from the stack wherever it is.
 *  7. Push-out removes the oldest packet of β across all sessions, not
 *     the oldest of the arriving or of the top session.
 *  8. α and β share one total buffer: β holds at most buffer - L bytes.
 *
 * Decisions where the paper is silent:
 *  - When β is served.  §2 serves β only by moving its packets into α
 *    when α's length has dropped to T_abate: α has priority, β goes when
 *    α is at or below T_abate (with T_abate = 0: when α is empty).  Here
 *    the move happens whenever that state is reached (after a dequeue, and
 *    after an enqueue into β), one packet at a time while α is at most
 *    T_abate and the packet fits in α's L bytes.  So α never holds more
 *    than L bytes, an empty α always takes β's next packet, and the
 *    discipline is work-conserving (next_event is stock's TS_NEVER).
 *  - α full.  A packet of a session not redirected that does not fit in
 *    α (α non-empty and α + packet > L) goes to β with its session
 *    ("forced" redirection, counted apart), whatever the busy test said:
 *    α's delay bound is the point of α, and the session must follow its
 *    packet to β or it would be reordered.  An empty α takes any packet.
 *  - Ablations (docs/dq.md), to tell the paper's mechanism from ours:
 *    `forced_redirect = false` reads α as the paper's finite queue of L
 *    bytes, so a packet that does not fit overflows it and is dropped
 *    (DROP_SCHED_LIMIT, counted in alpha_full) instead of redirecting
 *    its session; `busy_test = false` skips the onset thresholds and the
 *    busy-source test, so only the forced rule redirects.  Both off leave
 *    a drop-tail FIFO of L bytes (β unused).
 *    Hence every packet that enters α (arrival or transfer) has at most
 *    L - its length bytes ahead of it in α: its wait in α is at most
 *    (L - len)/C plus the packet already on the link (and EF's, when EF
 *    is strict above DQ).
 *  - t_expire applies to every packet, α's too.  §2 says "all packets
 *    that have been in the queue longer than t_expire are discarded"; it
 *    time-stamps packets on redirection only because, on a fixed link, a
 *    packet in α waits at most L/C (50 ms) << t_expire (5 s).  On a link
 *    whose rate can collapse (a capacity trace at 0) that bound fails and
 *    α would send packets of any age, so α expires too.  A packet's age is
 *    counted from its arrival (enq_ns, the core's stamp), whichever queue
 *    it waited in: a packet moved from β keeps its age.  β's age order is
 *    its arrival order, so its expired packets are its head; α is a FIFO
 *    but not in age order (a moved β packet is older than the arrivals
 *    ahead of it), so only its head is tested, as CoDel tests its head:
 *    an expired packet deeper in α is caught when it reaches the head,
 *    before it is sent.  So no packet older than t_expire is ever sent,
 *    and the cost stays O(1) per expired packet.  Expiry runs at each
 *    enqueue and dequeue with their `now`; when it empties α, β refills it
 *    (β's survivors are younger than t_expire), and peek() computes the
 *    same outcome without changing anything (dq_peek).
 *  - β overflow: with `pushout` (the default, §4.3) the newcomer enters
 *    and the oldest β packets are pushed out until β fits (DROP_PUSHOUT);
 *    without it the newcomer is dropped (DROP_SCHED_LIMIT), as is a packet
 *    larger than β itself.  A session redirected by a packet that is then
 *    dropped has nothing in β and is no longer redirected.
 *  - T_abate must be below T_onset,1 = L - L/3 (hysteresis; the paper
 *    uses 0): otherwise β would refill α above the first onset threshold.
 *  - Sessions beyond the flow table.  The table holds `sessions` entries,
 *    one per session with a packet queued (an empty session has no state
 *    left and is removed at once).  A packet whose session has no entry
 *    while the table is full, or while the shared overflow session holds
 *    a packet, belongs to that one overflow session, which is selected,
 *    redirected and transferred as one session.  The second condition
 *    keeps every flow in order: a flow with packets in the overflow
 *    session cannot get an entry of its own before they are gone.
 *    Counted in "overflow_pkts".
 *
 * Cost: O(1) per packet (hash lookups are O(1) on average, every removal
 * from the age order and from the redirection stack is by link), amortised
 * over expired and pushed-out packets (each leaves once).  β's packets sit
 * in nodes allocated at init, one per packet the core may queue (the sum
 * of the class limits); nothing allocates on the packet path.
 *
 * Configuration, group scheduler.dq (all optional): see dq_keys[] and
 * docs/dq.md.  Statistics: α and β lengths and limits, sessions and
 * redirected sessions now; counters redirections, forced, transfers,
 * beta_in, expired (alpha_expired of them from α), pushed_out, beta_full,
 * overflow_pkts, alpha_full (cumulative, deltas on the stats line).
 */
#include <libconfig.h>
#include <math.h>
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
#include "efstrict.h"
#include "util/flowtab.h"
#include "stock.h"

#define DQ_THETA_MAX            64u
#define DQ_BUFFER_MAX_BYTES     100000000000ull /* 100 GB: A·(2+j) fits */
#define DQ_SESSIONS_MAX         (1u << 20)
#define DQ_DEF_DELAY_NS         (50 * NS_PER_MS)
#define DQ_DEF_EXPIRE_NS        (5 * NS_PER_SEC)
#define DQ_DEF_THETA            5u
#define DQ_DEF_SESSIONS         1024u
#define DQ_DEF_BUFFER_NS        (2 * NS_PER_SEC)        /* Table 1 */
#define DQ_NIL                  0u      /* node index: none (zeroed) */

struct dq_params {
	uint64_t alpha_delay_ns;        /* α's delay bound */
	uint64_t capacity_bps;          /* 0: the link's mean (env) */
	uint64_t env_capacity_bps;      /* what defaults() saw */
	uint64_t buffer_bytes;          /* α + β; 0: DQ_DEF_BUFFER_NS of C */
	uint64_t abate_bytes;           /* T_abate */
	uint64_t theta;                 /* θ */
	uint64_t expire_ns;             /* t_expire */
	uint64_t sessions;              /* flow table entries */
	int      pushout;               /* β overflow: push out the oldest */
	int      ef_strict;             /* EF strictly above DQ */
	int      busy_test;             /* §4.3's onset/busy-source test */
	int      forced_redirect;       /* α full => redirect (else drop) */
};

/* A session: its packets in α (counted) and in β (a FIFO of nodes), and
 * its place on the redirection stack.  Lives in a flow table entry, or is
 * the one overflow session.  All zero is an empty session. */
struct dq_sess {
	uint32_t alpha_pkts;
	uint32_t beta_pkts;
	uint32_t bhead, btail;          /* β nodes, oldest first */
	struct dq_sess *up, *down;      /* stack: up = more recent */
	int      redirected;
};

/* A packet in β: in its session's FIFO and in β's age order. */
struct dq_node {
	struct pkt     *p;
	struct dq_sess *s;
	uint32_t snext;                 /* session FIFO; free list */
	uint32_t gprev, gnext;          /* age order, oldest first */
};

struct dq_sched {
	struct efstrict ef;
	struct sched_env env;           /* a copy: the caller's may change */
	struct flowtab ft;              /* sessions with a packet queued */
	struct dq_sess overflow;        /* sessions beyond the table */

	struct pktq alpha;
	uint64_t alpha_limit_bytes;     /* L */
	uint64_t beta_limit_bytes;      /* buffer - L */
	uint64_t beta_bytes;
	uint32_t beta_pkts;
	uint64_t abate_bytes;
	uint64_t expire_ns;
	int      pushout;
	int      busy_test;
	int      forced_redirect;

	struct dq_node *node;           /* [0] unused: DQ_NIL */
	uint32_t nnodes, free_node;
	uint32_t ghead, gtail;          /* β's age order */

	struct dq_sess *top;            /* most recently redirected */
	uint32_t nredirected;
	uint32_t theta;
	uint32_t theta_cur[DQ_THETA_MAX + 1];   /* [j], j = 1..θ */

	/* cumulative counters (jw_counter) */
	uint64_t redirections, forced, transfers, beta_in;
	uint64_t expired, alpha_expired, pushed_out, beta_full, overflow_pkts;
	uint64_t alpha_full;
};

/* ---- sessions ----------------------------------------------------------- */

/* The session a new packet of flow `hash` belongs to (see "Sessions beyond
 * the flow table" above); never NULL. */
static struct dq_sess *dq_session_get(struct dq_sched *q, uint32_t hash,
				      tstamp_ns now)
{
	struct dq_sess *s = flowtab_find(&q->ft, hash, now);
	int created;

	if (s)
		return s;
	if (q->overflow.alpha_pkts == 0 && q->overflow.beta_pkts == 0) {
		s = flowtab_get(&q->ft, hash, now, &created);
		if (s) {
			flowtab_hold(&q->ft, s);        /* never idle-expired */
			return s;
		}
	}
	q->overflow_pkts++;
	return &q->overflow;
}

/* The session of packet p queued in α (its entry if it has one, else the
 * overflow session: a flow is never in both, see dq_session_get()). */
static struct dq_sess *dq_session_of(struct dq_sched *q, const struct pkt *p,
				     tstamp_ns now)
{
	struct dq_sess *s = flowtab_find(&q->ft, p->flow_hash, now);

	return s ? s : &q->overflow;
}

/* Takes s off the redirection stack. */
static void dq_unredirect(struct dq_sched *q, struct dq_sess *s)
{
	if (s->up)
		s->up->down = s->down;
	else
		q->top = s->down;
	if (s->down)
		s->down->up = s->up;
	s->up = s->down = NULL;
	s->redirected = 0;
	q->nredirected--;
}

/* After a packet of s left or was refused: a session with nothing in β is
 * no longer redirected; one with nothing at all leaves the table. */
static void dq_settle(struct dq_sched *q, struct dq_sess *s)
{
	if (s->beta_pkts == 0 && s->redirected)
		dq_unredirect(q, s);
	if (s->alpha_pkts == 0 && s->beta_pkts == 0 && s != &q->overflow)
		flowtab_remove(&q->ft, s);
}

/* Puts s on top of the redirection stack at rank j, resetting θ_j. */
static void dq_redirect(struct dq_sched *q, struct dq_sess *s, uint32_t j)
{
	s->redirected = 1;
	s->up = NULL;
	s->down = q->top;
	if (q->top)
		q->top->up = s;
	q->top = s;
	q->nredirected++;
	q->redirections++;
	if (j <= q->theta)
		q->theta_cur[j] = q->theta + 1 - j;
}

/* ---- the α queue and the onset thresholds ----------------------------- */

/* 1 when α holding alpha_bytes exceeds T_onset,j = L - L/(2 + j), compared
 * exactly (trap 1): A·(2+j) > L·(1+j). */
static int dq_onset_exceeded(const struct dq_sched *q, uint64_t alpha_bytes,
			     uint32_t j)
{
	return alpha_bytes * (2u + (uint64_t)j) >
	       q->alpha_limit_bytes * (1u + (uint64_t)j);
}

/* θ_j now: the level's own (decremented) value for j <= θ, 0 beyond
 * (trap 4). */
static uint32_t dq_theta_of(const struct dq_sched *q, uint32_t j)
{
	return j <= q->theta ? q->theta_cur[j] : 0;
}

static void dq_alpha_put(struct dq_sched *q, struct dq_sess *s, struct pkt *p)
{
	pktq_push(&q->alpha, p);
	s->alpha_pkts++;
}

/* ---- the β queue ---------------------------------------------------------- */

/* Unlinks node n, the head of its session's FIFO, from both orders and
 * frees it; returns its packet.  The session is not settled. */
static struct pkt *dq_node_take(struct dq_sched *q, uint32_t n)
{
	struct dq_node *nd = &q->node[n];
	struct dq_sess *s = nd->s;
	struct pkt *p = nd->p;

	/* only ever the session's head: β enters in arrival order, and the
	 * age order's head is the oldest packet of its session too */
	s->bhead = nd->snext;
	if (s->bhead == DQ_NIL)
		s->btail = DQ_NIL;
	s->beta_pkts--;
	if (nd->gprev != DQ_NIL)
		q->node[nd->gprev].gnext = nd->gnext;
	else
		q->ghead = nd->gnext;
	if (nd->gnext != DQ_NIL)
		q->node[nd->gnext].gprev = nd->gprev;
	else
		q->gtail = nd->gprev;
	q->beta_pkts--;
	q->beta_bytes -= p->len_bytes;
	nd->p = NULL;
	nd->s = NULL;
	nd->snext = q->free_node;
	q->free_node = n;
	return p;
}

/* Drops β's oldest packet for `why` (expiry, push-out). */
static void dq_drop_oldest(struct dq_sched *q, enum drop_reason why)
{
	struct dq_sess *s = q->node[q->ghead].s;
	struct pkt *p = dq_node_take(q, q->ghead);

	q->env.drop(q->env.owner, p, why);
	dq_settle(q, s);
}

/* 1 when p, queued since enq_ns, has waited longer than t_expire (strict)
 * at now. */
static int dq_is_expired(const struct dq_sched *q, const struct pkt *p,
			 tstamp_ns now)
{
	return now > p->enq_ns && now - p->enq_ns > q->expire_ns;
}

static void dq_refill(struct dq_sched *q);

/* Discards, at now, every β packet older than t_expire (β's age order is
 * its arrival order, so they are its head), then α's head while it is
 * older (see the header), then refills α from β if that emptied it. */
static void dq_expire(struct dq_sched *q, tstamp_ns now)
{
	struct dq_sess *s;
	struct pkt *p;
	int from_alpha = 0;

	while (q->ghead != DQ_NIL && dq_is_expired(q, q->node[q->ghead].p, now)) {
		dq_drop_oldest(q, DROP_EXPIRED);
		q->expired++;
	}
	while (q->alpha.head && dq_is_expired(q, q->alpha.head, now)) {
		p = pktq_pop(&q->alpha);
		s = dq_session_of(q, p, now);
		s->alpha_pkts--;
		q->env.drop(q->env.owner, p, DROP_EXPIRED);
		q->expired++;
		q->alpha_expired++;
		dq_settle(q, s);
		from_alpha = 1;
	}
	if (from_alpha)
		dq_refill(q);
}

/* Places p, of session s (redirected), in β; on overflow pushes out the
 * oldest β packets or drops p itself (see above). */
static void dq_beta_put(struct dq_sched *q, struct dq_sess *s, struct pkt *p)
{
	uint32_t len = p->len_bytes, n = q->free_node;
	struct dq_node *nd;

	if (n == DQ_NIL || len > q->beta_limit_bytes ||
	    (!q->pushout && q->beta_bytes + len > q->beta_limit_bytes)) {
		/* no node: the core let more packets in than its limits */
		q->beta_full++;
		q->env.drop(q->env.owner, p, DROP_SCHED_LIMIT);
		dq_settle(q, s);
		return;
	}
	nd = &q->node[n];
	q->free_node = nd->snext;
	nd->p = p;
	nd->s = s;
	nd->snext = DQ_NIL;
	if (s->btail != DQ_NIL)
		q->node[s->btail].snext = n;
	else
		s->bhead = n;
	s->btail = n;
	s->beta_pkts++;
	nd->gnext = DQ_NIL;
	nd->gprev = q->gtail;
	if (q->gtail != DQ_NIL)
		q->node[q->gtail].gnext = n;
	else
		q->ghead = n;
	q->gtail = n;
	q->beta_pkts++;
	q->beta_bytes += len;
	q->beta_in++;
	/* p is the newest and fits alone, so the loop stops before it: s
	 * keeps a packet and is not settled away under us */
	while (q->beta_bytes > q->beta_limit_bytes) {
		dq_drop_oldest(q, DROP_PUSHOUT);
		q->pushed_out++;
	}
}

/* Moves β packets into α while α is at most T_abate: the top session's
 * oldest first, each only if it fits in L (an empty α takes any). */
static void dq_refill(struct dq_sched *q)
{
	while (q->top && q->alpha.len_bytes <= q->abate_bytes) {
		struct dq_sess *s = q->top;
		const struct pkt *h = q->node[s->bhead].p;
		struct pkt *p;

		if (q->alpha.len_pkts &&
		    q->alpha.len_bytes + h->len_bytes > q->alpha_limit_bytes)
			break;
		p = dq_node_take(q, s->bhead);
		dq_alpha_put(q, s, p);
		q->transfers++;
		dq_settle(q, s);
	}
}

/* ---- operations ------------------------------------------------------------ */

/* Takes ownership.  EF to the strict layer (when on); otherwise expiry at
 * now, then the placement rules of the header, then a transfer if α is at
 * or below T_abate. */
static void dq_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct dq_sched *q = priv;
	struct dq_sess *s;
	uint64_t a_new;
	uint32_t j;

	if (efstrict_enqueue(&q->ef, p))
		return;
	dq_expire(q, now);
	s = dq_session_get(q, p->flow_hash, now);
	if (!s->redirected) {
		j = q->nredirected + 1;
		a_new = q->alpha.len_bytes + p->len_bytes;
		if (q->busy_test && dq_onset_exceeded(q, a_new, j)) {
			if (s->alpha_pkts > dq_theta_of(q, j)) {
				dq_redirect(q, s, j);
			} else if (j <= q->theta && q->theta_cur[j] > 0) {
				q->theta_cur[j]--;
			}
		}
		if (!s->redirected && q->alpha.len_pkts &&
		    a_new > q->alpha_limit_bytes) {
			if (!q->forced_redirect) {      /* α overflows */
				q->alpha_full++;
				q->env.drop(q->env.owner, p, DROP_SCHED_LIMIT);
				dq_settle(q, s);
				return;
			}
			dq_redirect(q, s, j);
			q->forced++;
		}
		if (!s->redirected) {
			p->verdict = PKT_V_ALPHA;
			dq_alpha_put(q, s, p);
			return;         /* α grew: no transfer is due */
		}
	}
	p->verdict = PKT_V_BETA;        /* on arrival; it leaves through α */
	dq_beta_put(q, s, p);
	dq_refill(q);
}

/* EF first; otherwise α's head (β leaves only through α).  NULL only when
 * nothing is queued: after every operation an empty α means an empty β. */
static struct pkt *dq_dequeue(void *priv, tstamp_ns now)
{
	struct dq_sched *q = priv;
	struct dq_sess *s;
	struct pkt *p;

	if ((p = efstrict_dequeue(&q->ef)))
		return p;
	dq_expire(q, now);      /* what dq_peek() foresaw */
	p = pktq_pop(&q->alpha);
	if (!p)
		return NULL;
	s = dq_session_of(q, p, now);
	s->alpha_pkts--;
	dq_settle(q, s);
	dq_refill(q);
	return p;
}

/* The packet dequeue() would return now; no state changes.  dq_expire()
 * would drop α's expired head packets: the answer is the first younger
 * α packet.  If there is none, expiry empties α and the refill moves the
 * oldest surviving β packet of the most recently redirected session that
 * has one (sessions left with nothing leave the stack in order).  The
 * walk covers exactly what that dequeue will drop, so it is amortised
 * O(1) when a dequeue follows at the same now. */
static const struct pkt *dq_peek(void *priv, tstamp_ns now)
{
	const struct dq_sched *q = priv;
	const struct dq_sess *s;
	const struct pkt *p;
	uint32_t n;

	if ((p = efstrict_peek(&q->ef)))
		return p;
	for (p = q->alpha.head; p; p = p->next)
		if (!dq_is_expired(q, p, now))
			return p;
	for (s = q->top; s; s = s->down)
		for (n = s->bhead; n != DQ_NIL; n = q->node[n].snext)
			if (!dq_is_expired(q, q->node[n].p, now))
				return q->node[n].p;
	return NULL;
}

/* EF, α in order, then β in age order: each flow's α packets are older
 * than its β packets, so every flow keeps its order.  No transfer. */
static struct pkt *dq_drain(void *priv)
{
	struct dq_sched *q = priv;
	struct dq_sess *s;
	struct pkt *p;

	if ((p = efstrict_drain(&q->ef)))
		return p;
	if ((p = pktq_pop(&q->alpha))) {
		s = dq_session_of(q, p, 0);     /* the table keeps its latest now */
		s->alpha_pkts--;
		dq_settle(q, s);
		return p;
	}
	if (q->ghead != DQ_NIL) {
		s = q->node[q->ghead].s;
		p = dq_node_take(q, q->ghead);
		dq_settle(q, s);
		return p;
	}
	return NULL;
}

static void dq_destroy(void *priv)
{
	struct dq_sched *q = priv;
	struct pkt *p;

	efstrict_destroy(&q->ef);
	while ((p = dq_drain(q)))
		pkt_free(p);
	flowtab_destroy(&q->ft);
	free(q->node);
	q->node = NULL;
}

/* L = C · alpha_delay in bytes (trap 1), and the capacity it uses.  0 when
 * there is no capacity (unlimited link without `capacity`). */
static uint64_t dq_alpha_bytes(const struct dq_params *pp)
{
	uint64_t c = pp->capacity_bps ? pp->capacity_bps : pp->env_capacity_bps;

	return (uint64_t)floor((double)c / 8.0 *
			       ((double)pp->alpha_delay_ns / 1e9));
}

/* The total buffer: given, or DQ_DEF_BUFFER_NS at the capacity. */
static uint64_t dq_buffer_bytes(const struct dq_params *pp)
{
	uint64_t c = pp->capacity_bps ? pp->capacity_bps : pp->env_capacity_bps;

	if (pp->buffer_bytes)
		return pp->buffer_bytes;
	return (uint64_t)floor((double)c / 8.0 *
			       ((double)DQ_DEF_BUFFER_NS / 1e9));
}

/* priv arrives zeroed.  -1 for params check() refuses (no capacity, no
 * room for β, T_abate at or above T_onset,1, θ out of range) or no
 * memory. */
static int dq_init(void *priv, const void *params, const struct sched_env *env)
{
	const struct dq_params *pp = params;
	struct dq_sched *q = priv;
	uint64_t nodes = 0, buf;
	uint32_t i, c;

	q->env = *env;
	q->alpha_limit_bytes = dq_alpha_bytes(pp);
	buf = dq_buffer_bytes(pp);
	if (q->alpha_limit_bytes == 0 || buf <= q->alpha_limit_bytes ||
	    buf > DQ_BUFFER_MAX_BYTES || pp->theta < 1 ||
	    pp->theta > DQ_THETA_MAX || pp->sessions < 1 ||
	    pp->sessions > DQ_SESSIONS_MAX ||
	    dq_onset_exceeded(q, pp->abate_bytes, 1))
		return -1;
	q->beta_limit_bytes = buf - q->alpha_limit_bytes;
	q->abate_bytes = pp->abate_bytes;
	q->expire_ns = pp->expire_ns;
	q->pushout = pp->pushout;
	q->busy_test = pp->busy_test;
	q->forced_redirect = pp->forced_redirect;
	q->theta = (uint32_t)pp->theta;
	for (i = 1; i <= q->theta; i++)
		q->theta_cur[i] = q->theta + 1 - i;
	efstrict_init(&q->ef, pp->ef_strict);
	pktq_init(&q->alpha);
	/* one node per packet the core may queue; EF's too when EF is ours */
	for (c = 0; c < NCLASS; c++)
		if (c != CLS_EF || !pp->ef_strict)
			nodes += env->limit_pkts[c];
	if (nodes >= UINT32_MAX - 1)
		return -1;
	q->nnodes = (uint32_t)nodes;
	q->node = calloc(nodes + 1, sizeof(q->node[0]));
	if (!q->node)
		return -1;
	for (i = 1; i <= q->nnodes; i++)
		q->node[i].snext = i < q->nnodes ? i + 1 : DQ_NIL;
	q->free_node = q->nnodes ? 1 : DQ_NIL;
	/* entries leave when their session empties: no idle timeout needed */
	if (flowtab_init(&q->ft, (uint32_t)pp->sessions, sizeof(struct dq_sess),
			 0, NULL, NULL) < 0) {
		free(q->node);
		q->node = NULL;
		return -1;
	}
	return 0;
}

/* ---- configuration -------------------------------------------------------- */

static const struct cfg_key dq_keys[] = {
	{ .name = "alpha_delay", .type = CFG_T_DURATION, .min = NS_PER_MS,
	  .max = NS_PER_SEC, CFG_FIELD(struct dq_params, alpha_delay_ns),
	  .def = "50ms", .unit = "a duration",
	  .help = "the α queue's delay bound: L = capacity x alpha_delay "
		  "bytes (4.3)" },
	{ .name = "capacity", .type = CFG_T_RATE,
	  CFG_FIELD(struct dq_params, capacity_bps), .def = "the link's mean",
	  .unit = "bit/s", .help = "C that sizes α (and the default buffer); "
	  "required when the link is unlimited" },
	{ .name = "buffer", .type = CFG_T_BYTES, .min = 1,
	  .max = DQ_BUFFER_MAX_BYTES, CFG_FIELD(struct dq_params, buffer_bytes),
	  .def = "2 s at capacity", .unit = "bytes",
	  .help = "α + β, shared (5); β = buffer - L, above L (the paper's "
		  "500000 bytes at 2 Mbit/s)" },
	{ .name = "t_abate", .type = CFG_T_BYTES, .min = 0,
	  .max = DQ_BUFFER_MAX_BYTES, CFG_FIELD(struct dq_params, abate_bytes),
	  .def = "0", .unit = "bytes",
	  .help = "T_abate: β moves to α while α holds at most this; at most "
		  "T_onset,1 = L - L/3" },
	{ .name = "theta", .type = CFG_T_UINT, .min = 1, .max = DQ_THETA_MAX,
	  CFG_FIELD(struct dq_params, theta), .def = "5", .unit = "packets",
	  .help = "θ of the busy-source test, θ_j = θ + 1 - j (4.3)" },
	{ .name = "t_expire", .type = CFG_T_DURATION, .min = NS_PER_MS,
	  .max = 3600 * NS_PER_SEC, CFG_FIELD(struct dq_params, expire_ns),
	  .def = "5s", .unit = "a duration",
	  .help = "t_expire: a packet older than this, in β or at α's head, "
		  "is dropped (expired)" },
	{ .name = "pushout", .type = CFG_T_BOOL,
	  CFG_FIELD(struct dq_params, pushout), .def = "true",
	  .help = "β overflow pushes out the oldest β packet; false: drops "
		  "the newcomer" },
	{ .name = "sessions", .type = CFG_T_UINT, .min = 1,
	  .max = DQ_SESSIONS_MAX, CFG_FIELD(struct dq_params, sessions),
	  .def = "1024", .unit = "sessions",
	  .help = "flow table bound; sessions beyond it share one overflow "
		  "session" },
	{ .name = "ef_strict", .type = CFG_T_BOOL,
	  CFG_FIELD(struct dq_params, ef_strict), .def = "true",
	  .help = "EF strict priority above DQ; false: EF sessions are DQ's "
		  "too" },
	{ .name = "busy_test", .type = CFG_T_BOOL,
	  CFG_FIELD(struct dq_params, busy_test), .def = "true",
	  .help = "the onset thresholds and busy-source test redirect (4.3); "
		  "false (an ablation): only a full α redirects" },
	{ .name = "forced_redirect", .type = CFG_T_BOOL,
	  CFG_FIELD(struct dq_params, forced_redirect), .def = "true",
	  .help = "a packet that does not fit in α redirects its session; "
		  "false (an ablation): it is dropped (alpha_full)" },
	{ .name = NULL },
};

static void dq_defaults(void *params, const struct sched_env *env)
{
	struct dq_params *pp = params;

	memset(pp, 0, sizeof(*pp));
	pp->alpha_delay_ns = DQ_DEF_DELAY_NS;
	pp->env_capacity_bps = env ? env->capacity_bps : 0;
	pp->abate_bytes = 0;
	pp->theta = DQ_DEF_THETA;
	pp->expire_ns = DQ_DEF_EXPIRE_NS;
	pp->sessions = DQ_DEF_SESSIONS;
	pp->pushout = 1;
	pp->ef_strict = 1;
	pp->busy_test = 1;
	pp->forced_redirect = 1;
}

/* Reports `what` against key `key` of grp or, when the group is absent
 * (dq selected without one), at the line that selected dq (diag.h). */
static void dq_report(struct diag *d, const struct config_setting_t *grp,
		      const char *key, const char *what)
{
	const config_setting_t *s = cfg_lookup(grp, key);
	char path[64];

	if (s) {
		cfg_report(d, s, NULL, "%s", what);
	} else if (grp) {
		cfg_report(d, grp, key, "%s", what);
	} else {
		snprintf(path, sizeof(path), "scheduler.dq.%s", key);
		diag_error(d, 0, path, "%s", what);
	}
}

/* The keys together: a capacity to size α, a buffer above L, T_abate
 * below T_onset,1.  Skipped when a key they need was invalid (one mistake,
 * one message).  Returns the error count. */
static int dq_check(const struct config_setting_t *grp, void *params,
		    const struct cfg_status *st, struct diag *d)
{
	struct dq_params *pp = params;
	struct dq_sched probe;
	char msg[256];
	uint64_t l, buf;

	if (cfg_status_of(st, "capacity") < 0 ||
	    cfg_status_of(st, "alpha_delay") < 0 ||
	    cfg_status_of(st, "buffer") < 0 || cfg_status_of(st, "t_abate") < 0)
		return 0;
	if (!pp->capacity_bps && !pp->env_capacity_bps) {
		dq_report(d, grp, "capacity", "missing while the link is "
			  "unlimited (accepted: a rate, e.g. \"20Mbit\", "
			  "that sizes the α queue)");
		return 1;
	}
	l = dq_alpha_bytes(pp);
	buf = dq_buffer_bytes(pp);
	if (l == 0) {
		dq_report(d, grp, "alpha_delay", "gives an α queue of 0 bytes "
			  "at this capacity (accepted: capacity x alpha_delay "
			  ">= 1 byte)");
		return 1;
	}
	if (buf <= l || buf > DQ_BUFFER_MAX_BYTES) {
		snprintf(msg, sizeof(msg), "%llu bytes leaves no β queue "
			 "(accepted: more than L = %llu bytes, capacity x "
			 "alpha_delay, and at most %llu)",
			 (unsigned long long)buf, (unsigned long long)l,
			 DQ_BUFFER_MAX_BYTES);
		dq_report(d, grp, "buffer", msg);
		return 1;
	}
	probe.alpha_limit_bytes = l;
	if (dq_onset_exceeded(&probe, pp->abate_bytes, 1)) {
		/* the largest T with 3T <= 2L, i.e. T <= L - L/3 exactly */
		snprintf(msg, sizeof(msg), "%llu is above the first onset "
			 "threshold T_onset,1 = L - L/3 (accepted: at most "
			 "%llu bytes, L = %llu)",
			 (unsigned long long)pp->abate_bytes,
			 (unsigned long long)(2 * l / 3), (unsigned long long)l);
		dq_report(d, grp, "t_abate", msg);
		return 1;
	}
	return 0;
}

/* α and β now, the sessions, and the cumulative counters.  Changes
 * nothing. */
static void dq_dump_stats(void *priv, struct jw *w)
{
	const struct dq_sched *q = priv;

	jw_u64(w, "alpha_bytes", q->alpha.len_bytes);
	jw_u64(w, "alpha_pkts", q->alpha.len_pkts);
	jw_u64(w, "alpha_limit_bytes", q->alpha_limit_bytes);
	jw_u64(w, "beta_bytes", q->beta_bytes);
	jw_u64(w, "beta_pkts", q->beta_pkts);
	jw_u64(w, "beta_limit_bytes", q->beta_limit_bytes);
	jw_u64(w, "sessions", flowtab_count(&q->ft));
	jw_u64(w, "redirected", q->nredirected);
	jw_counter(w, "redirections", q->redirections);
	jw_counter(w, "forced", q->forced);
	jw_counter(w, "transfers", q->transfers);
	jw_counter(w, "beta_in", q->beta_in);
	jw_counter(w, "expired", q->expired);
	jw_counter(w, "alpha_expired", q->alpha_expired);
	jw_counter(w, "pushed_out", q->pushed_out);
	jw_counter(w, "beta_full", q->beta_full);
	jw_counter(w, "overflow_pkts", q->overflow_pkts);
	jw_counter(w, "alpha_full", q->alpha_full);
}

const struct sched_ops sched_dq_ops = {
	.name        = "dq",
	.summary     = "Dual Queue: a delay-bounded α queue, busy sessions "
		       "redirected to β (Hayes et al. 1999)",
	.params_size = sizeof(struct dq_params),
	.priv_size   = sizeof(struct dq_sched),
	.defaults    = dq_defaults,
	.keys        = dq_keys,
	.check       = dq_check,
	.init        = dq_init,
	.destroy     = dq_destroy,
	.enqueue     = dq_enqueue,
	.dequeue     = dq_dequeue,
	.peek        = dq_peek,
	.next_event  = stock_next_event_never,
	.drain       = dq_drain,
	.dump_stats  = dq_dump_stats,
};
