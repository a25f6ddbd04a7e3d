/* fifo.c - one first-in first-out queue shared by every class.
 *
 * The no-differentiation baseline of DESIGN §3: packets leave in arrival
 * order whatever their class.  The per-class limits are enforced by the
 * core before enqueue, so this scheduler never drops.  It is
 * work-conserving: dequeue returns a packet whenever one is queued.
 * No configuration keys of its own (stock.h's defaults and parse).
 */
#include <stddef.h>

#include "sched/sched.h"
#include "util/jw.h"
#include "stock.h"

struct fifo_sched {
	struct pktq q;
};

/* Takes ownership.  enq_ns is left alone: the core stamps it, and keeps
 * it across a SIGHUP swap so that sojourn times stay honest. */
static void fifo_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct fifo_sched *f = priv;

	(void)now;
	pktq_push(&f->q, p);
}

static struct pkt *fifo_dequeue(void *priv, tstamp_ns now)
{
	struct fifo_sched *f = priv;

	(void)now;
	return pktq_pop(&f->q);
}

static const struct pkt *fifo_peek(void *priv, tstamp_ns now)
{
	struct fifo_sched *f = priv;

	(void)now;
	return f->q.head;
}

static struct pkt *fifo_drain(void *priv)
{
	struct fifo_sched *f = priv;

	return pktq_pop(&f->q);
}

static void fifo_destroy(void *priv)
{
	struct fifo_sched *f = priv;

	pktq_purge(&f->q);
}

/* No parameters; priv arrives zeroed, params and env are not needed. */
static int fifo_init(void *priv, const void *params,
		     const struct sched_env *env)
{
	struct fifo_sched *f = priv;

	(void)params;
	(void)env;
	pktq_init(&f->q);
	return 0;
}

static void fifo_dump_stats(void *priv, struct jw *w)
{
	struct fifo_sched *f = priv;

	jw_u64(w, "qlen_pkts", f->q.len_pkts);
	jw_u64(w, "qlen_bytes", f->q.len_bytes);
}

const struct sched_ops sched_fifo_ops = {
	.name        = "fifo",
	.summary     = "one FIFO for every class, no differentiation (baseline)",
	.params_size = 0,
	.priv_size   = sizeof(struct fifo_sched),
	.defaults    = stock_defaults_none,
	.keys        = NULL,          /* no keys of its own */
	.init        = fifo_init,
	.destroy     = fifo_destroy,
	.enqueue     = fifo_enqueue,
	.dequeue     = fifo_dequeue,
	.peek        = fifo_peek,
	.next_event  = stock_next_event_never,
	.drain       = fifo_drain,
	.dump_stats  = fifo_dump_stats,
};
