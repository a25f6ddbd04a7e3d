/* dwrr.c - EF strict priority above a Deficit Weighted Round Robin
 * between AF and CS0.
 *
 * The RFC 5865 architecture as the PSS paper reads it (Finzi et al. 2023,
 * §2.4: priority for the admitted real-time class above a WRR variant that
 * shares the rest between AF and CS0), and the paper's comparison point
 * (§4.1, Fig. 5).
 * EF is served whenever it holds a packet; the residual capacity C - R_EF
 * is shared by Deficit Round Robin (M. Shreedhar, G. Varghese, "Efficient
 * fair queueing using deficit round robin", SIGCOMM 1995) with one byte
 * quantum per class.  With both classes backlogged AF receives
 *
 *   K_AF = Q_AF / (Q_AF + Q_CS0)                      of C - R_EF
 *
 * which is eq. 2 of the paper when the quanta are given as packet weights
 * times packet sizes, Q_i = W_i * L_i (the `weights` form of the config).
 *
 * DRR invariants kept here (Shreedhar & Varghese's algorithm):
 *  - a class is on the active list iff its queue is non-empty;
 *  - a class joins at the tail of the list with deficit 0;
 *  - a class receives its quantum once at the start of each of its turns
 *    (when it reaches the head of the list), then sends head packets while
 *    the head packet fits in its deficit; the first that does not ends the
 *    turn and the class moves to the tail, keeping its deficit
 *    (0 <= deficit < size of its head packet after the turn);
 *  - a class whose queue empties leaves the list and its deficit is reset
 *    to 0, so an idle class does not hoard credit;
 *  - only the head of the list can be in the middle of a turn.
 *
 * A packet larger than the quantum still makes progress: its class gains a
 * quantum per turn until the packet fits.  The textbook loop would spend
 * ceil(len / quantum) turns doing nothing (up to 141 with a 64-byte
 * quantum and a 9000-byte MTU); dwrr_pick() computes in one pass over the
 * (at most two) active classes how many turns each needs, so the cost per
 * packet is O(1) whatever the quanta.  The result is exactly the textbook
 * order (the unit test compares the two).
 *
 * Work-conserving: dequeue never returns NULL while a packet is held.
 * The per-class limits are enforced by the core before enqueue, so this
 * scheduler never drops.
 *
 * Configuration, group scheduler.dwrr (all optional):
 *   quantum = { af = 4500; cs0 = 3000; };         bytes per turn, 64..1000000
 * or
 *   weights = { af = 9; cs0 = 2; };               packets per turn, 1..10000
 *   packet_size = 1500;                           bytes, 64..65535, or per
 *   packet_size = { af = 1500; cs0 = 500; };      class as in eq. 2
 * (quantum = weight * packet_size).  quantum and weights together are an
 * error; so is packet_size without weights.
 *
 * Stats ("sched" member of the stats line), per DRR class "af", "cs0":
 * "deficit" bytes now, "rounds" quanta received since the previous stats
 * line (a delta, like the line's other counters), "quantum" bytes.
 */
#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "classify.h"
#include "cfgval.h"
#include "diag.h"
#include "jw.h"
#include "sched.h"

#define DWRR_NCLASS             2       /* AF, CS0 share by DRR */
#define DWRR_QUANTUM_MIN_BYTES  64u
#define DWRR_QUANTUM_MAX_BYTES  1000000u
#define DWRR_WEIGHT_MIN         1u
#define DWRR_WEIGHT_MAX         10000u
#define DWRR_PKT_MIN_BYTES      64u
#define DWRR_PKT_MAX_BYTES      65535u  /* largest IP packet */
#define DWRR_PKT_DEF_BYTES      1500u

/* DRR slot -> traffic class. */
static const enum pkt_class dwrr_cls[DWRR_NCLASS] = { CLS_AF, CLS_CS0 };

/* DESIGN §2 defaults; the weights form's defaults (3 and 2 packets of
 * 1500 bytes) give the same quanta, so a partly given group is consistent. */
static const uint64_t dwrr_def_quantum_bytes[DWRR_NCLASS] = { 4500, 3000 };
static const uint64_t dwrr_def_weight[DWRR_NCLASS] = { 3, 2 };

struct dwrr_params {
	uint64_t quantum_bytes[DWRR_NCLASS];    /* what the DRR runs with */
	uint64_t weight[DWRR_NCLASS];           /* the weights form, in
						 * packets per turn */
};

struct dwrr_class {
	struct pktq q;
	uint64_t quantum_bytes;
	uint64_t deficit_bytes;
	uint64_t rounds;        /* quanta received since the last stats line */
};

struct dwrr_sched {
	struct pktq ef;                                 /* strict priority */
	struct dwrr_class cl[DWRR_NCLASS];              /* by DRR slot */
	/* The active list in round order, active[0] the head.  Two entries
	 * at most, so an array is cheaper than a linked list. */
	struct dwrr_class *active[DWRR_NCLASS];
	unsigned int nactive;
	int head_in_turn;       /* active[0] already got this turn's quantum */
};

/* The decision of the next DRR transmission (see dwrr_pick()). */
struct dwrr_pick {
	unsigned int pos;       /* winner's index in the active list */
	uint64_t turns;         /* winner's turns before the one it sends in */
};

/* DRR slot of a non-EF packet; anything but AF is best effort. */
static unsigned int dwrr_slot(const struct pkt *p)
{
	return p->cls == CLS_AF ? 0 : 1;
}

/* Appends cl at the tail of the round; its deficit is already 0. */
static void dwrr_activate(struct dwrr_sched *q, struct dwrr_class *cl)
{
	q->active[q->nactive++] = cl;
}

/* Removes the class at list position pos (its queue just emptied) and
 * resets its deficit.  The head leaving ends its turn. */
static void dwrr_deactivate(struct dwrr_sched *q, unsigned int pos)
{
	unsigned int i;

	q->active[pos]->deficit_bytes = 0;
	for (i = pos; i + 1 < q->nactive; i++)
		q->active[i] = q->active[i + 1];
	q->nactive--;
	if (pos == 0)
		q->head_in_turn = 0;
}

/* Which active class sends the next DRR packet, without changing state.
 * Class i (list position) has credit c_i on its coming turn (for the
 * head already in its turn, the current one): its deficit, plus its
 * quantum unless it is that head; on each later turn one more quantum.  It sends on turn k_i = ceil((len - c_i) /
 * quantum) (0 if the head packet fits now).  Turns go head first, so the
 * winner is the smallest k_i, the earliest list position on ties.
 * Returns 0 with an empty list. */
static int dwrr_pick(const struct dwrr_sched *q, struct dwrr_pick *pk)
{
	uint64_t best = UINT64_MAX;
	unsigned int i;

	/* Defined even for an empty list: some -O levels cannot see that
	 * callers only read *pk after a non-zero return. */
	pk->pos = 0;
	pk->turns = 0;
	for (i = 0; i < q->nactive; i++) {
		const struct dwrr_class *cl = q->active[i];
		uint64_t len = cl->q.head->len_bytes;
		uint64_t credit = cl->deficit_bytes;
		uint64_t k;

		if (!(i == 0 && q->head_in_turn))
			credit += cl->quantum_bytes;
		k = len <= credit ? 0 :
		    (len - credit + cl->quantum_bytes - 1) / cl->quantum_bytes;
		if (k < best) {
			best = k;
			pk->pos = i;
			pk->turns = k;
		}
	}
	return q->nactive > 0;
}

/* Plays the turns dwrr_pick() skipped over: every class before the winner
 * in the list (and the winner) starts turns + 1 turns, every class after
 * it turns, except that the head already in its turn does not get its
 * current turn's quantum again.  The winner then heads the list, in turn. */
static void dwrr_advance(struct dwrr_sched *q, const struct dwrr_pick *pk)
{
	struct dwrr_class *rot[DWRR_NCLASS];
	unsigned int i, n = q->nactive;

	for (i = 0; i < n; i++) {
		struct dwrr_class *cl = q->active[i];
		uint64_t quanta = pk->turns + (i <= pk->pos ? 1 : 0);

		if (i == 0 && q->head_in_turn)
			quanta--;
		cl->deficit_bytes += quanta * cl->quantum_bytes;
		cl->rounds += quanta;
	}
	for (i = 0; i < n; i++)
		rot[i] = q->active[(pk->pos + i) % n];
	memcpy(q->active, rot, n * sizeof(rot[0]));
	q->head_in_turn = 1;
}

/* Takes ownership.  A class outside the enum (a core bug) is served as
 * best effort (dwrr_slot()); p->cls itself is the core's accounting index
 * and left alone, like enq_ns. */
static void dwrr_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct dwrr_sched *q = priv;
	struct dwrr_class *cl;

	(void)now;
	if (p->cls == CLS_EF) {
		pktq_push(&q->ef, p);
		return;
	}
	cl = &q->cl[dwrr_slot(p)];
	if (!cl->q.head)
		dwrr_activate(q, cl);
	pktq_push(&cl->q, p);
}

/* EF first; otherwise the DRR winner, charged to its deficit.  NULL only
 * when nothing is queued. */
static struct pkt *dwrr_dequeue(void *priv, tstamp_ns now)
{
	struct dwrr_sched *q = priv;
	struct dwrr_pick pk;
	struct dwrr_class *cl;
	struct pkt *p;

	(void)now;
	if (q->ef.head)
		return pktq_pop(&q->ef);
	if (!dwrr_pick(q, &pk))
		return NULL;
	dwrr_advance(q, &pk);
	cl = q->active[0];
	p = pktq_pop(&cl->q);
	cl->deficit_bytes -= p->len_bytes;      /* fits: dwrr_pick said so */
	if (!cl->q.head)
		dwrr_deactivate(q, 0);
	return p;
}

/* The packet dequeue() would return now; no state changes. */
static const struct pkt *dwrr_peek(void *priv, tstamp_ns now)
{
	struct dwrr_sched *q = priv;
	struct dwrr_pick pk;

	(void)now;
	if (q->ef.head)
		return q->ef.head;
	return dwrr_pick(q, &pk) ? q->active[pk.pos]->q.head : NULL;
}

/* Work-conserving: when dequeue returned NULL only an arrival helps. */
static tstamp_ns dwrr_next_event(void *priv, tstamp_ns now)
{
	(void)priv;
	(void)now;
	return TS_NEVER;
}

/* EF, then AF, then CS0, each in arrival order, so a new scheduler gets
 * every class's packets in their original relative order.  The list is
 * kept consistent although the instance is about to be destroyed. */
static struct pkt *dwrr_drain(void *priv)
{
	struct dwrr_sched *q = priv;
	struct pkt *p;
	unsigned int i, pos;

	if (q->ef.head)
		return pktq_pop(&q->ef);
	for (i = 0; i < DWRR_NCLASS; i++) {
		struct dwrr_class *cl = &q->cl[i];

		if (!cl->q.head)
			continue;
		p = pktq_pop(&cl->q);
		if (!cl->q.head) {
			for (pos = 0; q->active[pos] != cl; pos++)
				;
			dwrr_deactivate(q, pos);
		}
		return p;
	}
	return NULL;
}

static void dwrr_destroy(void *priv)
{
	struct dwrr_sched *q = priv;
	unsigned int i;

	pktq_purge(&q->ef);
	for (i = 0; i < DWRR_NCLASS; i++)
		pktq_purge(&q->cl[i].q);
	q->nactive = 0;
	q->head_in_turn = 0;
}

/* priv arrives zeroed.  -1 for quanta outside the accepted range (params
 * that did not come from defaults()/parse()): a zero quantum would divide
 * by zero in dwrr_pick(). */
static int dwrr_init(void *priv, const void *params,
		     const struct sched_env *env)
{
	const struct dwrr_params *pp = params;
	struct dwrr_sched *q = priv;
	unsigned int i;

	(void)env;
	pktq_init(&q->ef);
	for (i = 0; i < DWRR_NCLASS; i++) {
		uint64_t qb = pp->quantum_bytes[i];

		if (qb < DWRR_QUANTUM_MIN_BYTES || qb > DWRR_QUANTUM_MAX_BYTES)
			return -1;
		pktq_init(&q->cl[i].q);
		q->cl[i].quantum_bytes = qb;
		q->cl[i].deficit_bytes = 0;
		q->cl[i].rounds = 0;
	}
	q->nactive = 0;
	q->head_in_turn = 0;
	return 0;
}

/* ---- configuration ------------------------------------------------------ */

#define DWRR_PAIR_ACCEPTED "either quantum = { af, cs0 } in bytes, or " \
			   "weights = { af, cs0 } with packet_size"

static const struct cfg_key dwrr_keys[] = {
	{ .name = "quantum", .type = CFG_T_GROUP,
	  .help = "bytes per turn of each class (DRR quantum)" },
	{ .name = "quantum.af", .type = CFG_T_BYTES,
	  .min = DWRR_QUANTUM_MIN_BYTES, .max = DWRR_QUANTUM_MAX_BYTES,
	  CFG_FIELD(struct dwrr_params, quantum_bytes[0]), .def = "4500",
	  .unit = "bytes", .help = "AF's quantum" },
	{ .name = "quantum.cs0", .type = CFG_T_BYTES,
	  .min = DWRR_QUANTUM_MIN_BYTES, .max = DWRR_QUANTUM_MAX_BYTES,
	  CFG_FIELD(struct dwrr_params, quantum_bytes[1]), .def = "3000",
	  .unit = "bytes", .help = "CS0's quantum" },
	{ .name = "weights", .type = CFG_T_GROUP, .excludes = "quantum",
	  .accepted = DWRR_PAIR_ACCEPTED,
	  .help = "packets per turn instead of quantum: quantum = weight x "
		  "packet_size (eq. 2 of the PSS paper)" },
	{ .name = "weights.af", .type = CFG_T_UINT,
	  .min = DWRR_WEIGHT_MIN, .max = DWRR_WEIGHT_MAX,
	  CFG_FIELD(struct dwrr_params, weight[0]), .def = "3",
	  .unit = "packets", .help = "W_AF" },
	{ .name = "weights.cs0", .type = CFG_T_UINT,
	  .min = DWRR_WEIGHT_MIN, .max = DWRR_WEIGHT_MAX,
	  CFG_FIELD(struct dwrr_params, weight[1]), .def = "2",
	  .unit = "packets", .help = "W_CS0" },
	{ .name = "packet_size", .type = CFG_T_CUSTOM, .needs = "weights",
	  .accepted = "packet_size together with weights = { af, cs0 }",
	  .def = "1500", .unit = "bytes",
	  .help = "64..65535, or { af = ..; cs0 = ..; }: the average packet "
		  "of each class (L_i of eq. 2)" },
	{ .name = NULL },
};

/* packet_size: one size for both classes, or a group { af, cs0 }, into
 * len[] (untouched members keep the default).  Returns the error count. */
static int dwrr_parse_sizes(const config_setting_t *grp,
			    uint64_t len[DWRR_NCLASS], struct diag *d)
{
	static const char *const keys[] = { "af", "cs0", NULL };
	const config_setting_t *ps = cfg_lookup(grp, "packet_size");
	unsigned int i;
	uint64_t v;
	int nerr;

	if (!ps)
		return 0;
	if (!config_setting_is_group(ps)) {
		if (cfg_bytes(grp, "packet_size", DWRR_PKT_MIN_BYTES,
			      DWRR_PKT_MAX_BYTES, &v, d) < 0)
			return 1;
		for (i = 0; i < DWRR_NCLASS; i++)
			len[i] = v;
		return 0;
	}
	nerr = cfg_check_keys(ps, keys, d);
	for (i = 0; i < DWRR_NCLASS; i++)
		nerr += cfg_bytes(ps, cls_name[dwrr_cls[i]], DWRR_PKT_MIN_BYTES,
				  DWRR_PKT_MAX_BYTES, &len[i], d) < 0;
	return nerr;
}

/* With weights given, the quanta are Q_i = W_i * L_i (eq. 2's numerator
 * terms), computed only when every factor is valid: a product of bad
 * factors says nothing new.  Returns the error count. */
static int dwrr_check(const struct config_setting_t *grp, void *params,
		      const struct cfg_status *st, struct diag *d)
{
	struct dwrr_params *pp = params;
	const config_setting_t *ws = cfg_lookup(grp, "weights");
	uint64_t len[DWRR_NCLASS];
	unsigned int i;
	int nerr;

	if (!ws)
		return 0;
	for (i = 0; i < DWRR_NCLASS; i++)
		len[i] = DWRR_PKT_DEF_BYTES;
	nerr = dwrr_parse_sizes(grp, len, d);
	if (nerr || cfg_status_of(st, "weights") < 0 ||
	    cfg_status_of(st, "weights.af") < 0 ||
	    cfg_status_of(st, "weights.cs0") < 0)
		return nerr;
	for (i = 0; i < DWRR_NCLASS; i++) {
		const config_setting_t *s =
			cfg_lookup(ws, cls_name[dwrr_cls[i]]);
		uint64_t qb = pp->weight[i] * len[i];  /* <= 10000 * 65535 */

		if (qb > DWRR_QUANTUM_MAX_BYTES) {
			cfg_report(d, s ? s : ws, NULL, "weight %llu x "
				   "packet_size %llu = %llu bytes per turn is "
				   "too large (accepted: weight x packet_size "
				   "<= %u bytes)",
				   (unsigned long long)pp->weight[i],
				   (unsigned long long)len[i],
				   (unsigned long long)qb,
				   DWRR_QUANTUM_MAX_BYTES);
			nerr++;
			continue;
		}
		/* >= 1 * 64 bytes: the lower bound holds by construction */
		pp->quantum_bytes[i] = qb;
	}
	return nerr;
}

static void dwrr_defaults(void *params, const struct sched_env *env)
{
	struct dwrr_params *pp = params;
	unsigned int i;

	(void)env;
	for (i = 0; i < DWRR_NCLASS; i++) {
		pp->quantum_bytes[i] = dwrr_def_quantum_bytes[i];
		pp->weight[i] = dwrr_def_weight[i];
	}
}

/* Per DRR class: "deficit" (bytes now), "rounds" (quanta received since
 * the previous call, i.e. a delta over the stats interval like the other
 * counters of the line; the call resets it), "quantum" (bytes). */
static void dwrr_dump_stats(void *priv, struct jw *w)
{
	struct dwrr_sched *q = priv;
	unsigned int i;

	for (i = 0; i < DWRR_NCLASS; i++) {
		struct dwrr_class *cl = &q->cl[i];

		jw_obj_begin(w, cls_name[dwrr_cls[i]]);
		jw_u64(w, "deficit", cl->deficit_bytes);
		jw_u64(w, "rounds", cl->rounds);
		jw_u64(w, "quantum", cl->quantum_bytes);
		jw_obj_end(w);
		cl->rounds = 0;
	}
}

const struct sched_ops sched_dwrr_ops = {
	.name        = "dwrr",
	.summary     = "EF strict priority, deficit round robin AF/CS0 "
		       "by byte quanta",
	.params_size = sizeof(struct dwrr_params),
	.priv_size   = sizeof(struct dwrr_sched),
	.defaults    = dwrr_defaults,
	.keys        = dwrr_keys,
	.check       = dwrr_check,
	.init        = dwrr_init,
	.destroy     = dwrr_destroy,
	.enqueue     = dwrr_enqueue,
	.dequeue     = dwrr_dequeue,
	.peek        = dwrr_peek,
	.next_event  = dwrr_next_event,
	.drain       = dwrr_drain,
	.dump_stats  = dwrr_dump_stats,
};
