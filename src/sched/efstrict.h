/* efstrict.h - an EF strict-priority layer above any inner discipline.
 *
 * RFC 5865's architecture, as dwrr (and later pdrr) use it: EF packets
 * wait in their own FIFO and leave before anything of the inner
 * discipline, whatever its state.  The layer is switchable per instance:
 * off, it takes nothing and every class goes to the inner discipline.
 *
 * The scheduler embeds a struct efstrict and calls the layer first in each
 * operation; each helper says whether the layer handled the call:
 *
 *   enqueue:  if (efstrict_enqueue(&s->ef, p)) return;     ... inner ...
 *   dequeue:  if ((p = efstrict_dequeue(&s->ef))) return p; ... inner ...
 *   peek:     if ((c = efstrict_peek(&s->ef))) return c;   ... inner ...
 *   drain:    if ((p = efstrict_drain(&s->ef))) return p;  ... inner ...
 *   destroy:  efstrict_destroy(&s->ef);                     ... inner ...
 *
 * EF takes no credit, deficit or turn from the inner discipline: the inner
 * one sees only its own packets and does not know EF exists.  The layer
 * never drops (the core enforces the EF class limit) and never reads a
 * clock; all calls are O(1).  efstrict_drain() hands EF back in arrival
 * order, so a scheduler's drain gives EF first, like prio's.
 */
#ifndef SCHEDTUN_SCHED_EFSTRICT_H
#define SCHEDTUN_SCHED_EFSTRICT_H

#include "pkt/pkt.h"

struct efstrict {
	struct pktq q;          /* EF, arrival order */
	int         on;         /* 0: every packet is the inner one's */
};

/* An empty layer; on != 0 puts EF above the inner discipline. */
void efstrict_init(struct efstrict *e, int on);

/* 1: p was EF and the layer took ownership; 0: the caller keeps p and
 * gives it to the inner discipline (not EF, or the layer is off). */
int efstrict_enqueue(struct efstrict *e, struct pkt *p);

/* The oldest EF packet, removed; NULL: the inner discipline's turn. */
struct pkt *efstrict_dequeue(struct efstrict *e);

/* What efstrict_dequeue() would return; no state changes. */
const struct pkt *efstrict_peek(const struct efstrict *e);

/* Policy-free removal for the SIGHUP swap; the same as a dequeue, since
 * the layer has no policy beyond FIFO.  NULL when it holds nothing. */
struct pkt *efstrict_drain(struct efstrict *e);

/* Returns every EF packet held to the pool. */
void efstrict_destroy(struct efstrict *e);

#endif
