/* prio.c - strict priority EF > AF > CS0 over three FIFOs.
 *
 * The strict-priority baseline of DESIGN §3: a lower class is served only
 * while every higher one is empty, so EF can starve AF and CS0 (that is
 * the behaviour the other schedulers are compared against).  The per-class
 * limits are enforced by the core before enqueue, so this scheduler never
 * drops.  Work-conserving.  No configuration keys of its own (stock.h's
 * defaults and parse).
 */
#include <stddef.h>

#include "pkt/classify.h"
#include "sched/sched.h"
#include "util/jw.h"
#include "stock.h"

struct prio_sched {
	struct pktq q[NCLASS];          /* indexed by enum pkt_class */
};

/* enum pkt_class is already in priority order: EF = 0 is served first. */
static struct pktq *prio_first_busy(struct prio_sched *ps)
{
	int c;

	for (c = 0; c < NCLASS; c++)
		if (ps->q[c].head)
			return &ps->q[c];
	return NULL;
}

/* Takes ownership.  A class outside the enum (a core bug) is served as
 * best effort rather than indexing out of bounds.  enq_ns is the core's. */
static void prio_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct prio_sched *ps = priv;

	(void)now;
	pktq_push(&ps->q[stock_cls(p)], p);
}

static struct pkt *prio_dequeue(void *priv, tstamp_ns now)
{
	struct pktq *q = prio_first_busy(priv);

	(void)now;
	return q ? pktq_pop(q) : NULL;
}

static const struct pkt *prio_peek(void *priv, tstamp_ns now)
{
	struct pktq *q = prio_first_busy(priv);

	(void)now;
	return q ? q->head : NULL;
}

/* Highest class first, each in arrival order, so a new scheduler receives
 * every class's packets in their original relative order. */
static struct pkt *prio_drain(void *priv)
{
	struct pktq *q = prio_first_busy(priv);

	return q ? pktq_pop(q) : NULL;
}

static void prio_destroy(void *priv)
{
	struct prio_sched *ps = priv;
	int c;

	for (c = 0; c < NCLASS; c++)
		pktq_purge(&ps->q[c]);
}

static int prio_init(void *priv, const void *params,
		     const struct sched_env *env)
{
	struct prio_sched *ps = priv;
	int c;

	(void)params;
	(void)env;
	for (c = 0; c < NCLASS; c++)
		pktq_init(&ps->q[c]);
	return 0;
}

/* "qlen_pkts": {"ef": n, "af": n, "cs0": n}, and the same for bytes. */
static void prio_dump_stats(void *priv, struct jw *w)
{
	struct prio_sched *ps = priv;
	int c;

	jw_obj_begin(w, "qlen_pkts");
	for (c = 0; c < NCLASS; c++)
		jw_u64(w, cls_name[c], ps->q[c].len_pkts);
	jw_obj_end(w);
	jw_obj_begin(w, "qlen_bytes");
	for (c = 0; c < NCLASS; c++)
		jw_u64(w, cls_name[c], ps->q[c].len_bytes);
	jw_obj_end(w);
}

const struct sched_ops sched_prio_ops = {
	.name        = "prio",
	.summary     = "strict priority EF > AF > CS0 (baseline)",
	.params_size = 0,
	.priv_size   = sizeof(struct prio_sched),
	.defaults    = stock_defaults_none,
	.keys        = NULL,          /* no keys of its own */
	.init        = prio_init,
	.destroy     = prio_destroy,
	.enqueue     = prio_enqueue,
	.dequeue     = prio_dequeue,
	.peek        = prio_peek,
	.next_event  = stock_next_event_never,
	.drain       = prio_drain,
	.dump_stats  = prio_dump_stats,
};
