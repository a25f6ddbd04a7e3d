/* stock.h - stock operations shared by the schedulers, so that the same
 * few lines are not written out in every scheduler file.
 *
 * Contract:
 *  - stock_next_event_never: the next_event of a work-conserving
 *    scheduler.  Such a scheduler's dequeue() returns NULL only when it
 *    holds nothing, so only an arrival can change that: TS_NEVER.  The
 *    conformance suite recognises a work-conserving scheduler by this very
 *    function in its ops table, and then checks that dequeue never returns
 *    NULL while a packet is held.  A scheduler that may hold packets it
 *    cannot send yet must supply its own next_event.
 *  - stock_defaults_none: the defaults of a scheduler without parameters
 *    (params_size 0): nothing to fill.  Its ops have `keys = NULL`: an
 *    absent group is fine, a present one must be empty (each key in it is
 *    reported as unknown, the accepted ones "none").
 *  - stock_cls: the queue index for a packet's class; a class outside the
 *    enum (a core bug) is served as best effort instead of indexing out of
 *    bounds.  p->cls itself is the core's accounting index: left alone.
 */
#ifndef SCHEDTUN_SCHED_STOCK_H
#define SCHEDTUN_SCHED_STOCK_H

#include "sched/sched.h"

tstamp_ns stock_next_event_never(void *priv, tstamp_ns now);
void stock_defaults_none(void *params, const struct sched_env *env);

static inline unsigned int stock_cls(const struct pkt *p)
{
	return p->cls < NCLASS ? p->cls : CLS_CS0;
}

#endif
