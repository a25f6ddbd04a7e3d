/* drr.h - a Deficit Round Robin engine over any number of queues.
 *
 * M. Shreedhar, G. Varghese, "Efficient fair queueing using deficit round
 * robin", SIGCOMM 1995, shaped like Linux's sch_drr.c: the owner embeds a
 * struct drr_q in each of its per-queue structs (a class, a flow) and one
 * struct drr per instance; the engine links the queues that take part in
 * the round into its active list.  No allocation, no clock.
 *
 * The rules (the textbook's, which dwrr has always followed):
 *  - a queue joins the active list at its tail, with deficit 0, when a
 *    packet arrives to it while it is not on the list;
 *  - the queue at the head of the list receives its quantum once, at the
 *    start of its turn, then sends head packets while the head packet fits
 *    in its deficit; the first one that does not ends the turn and the
 *    queue moves to the tail, keeping its deficit;
 *  - a queue that empties (by dequeue or by drr_remove_head()) leaves the
 *    list and its deficit is reset to 0: an idle queue hoards no credit;
 *  - a turn ends lazily: the head stays "in turn" after its last packet of
 *    the turn until the next drr_dequeue() (or drr_end_turn()) finds that
 *    its head packet does not fit.  This is the textbook's order when
 *    queues join in between (they land behind the queue in turn, which
 *    then moves behind them).
 * `rounds` counts the quanta a queue received, cumulatively (never reset:
 * the stats writer turns it into a per-interval delta).
 *
 * Cost.  The textbook loop spends ceil(len / quantum) idle turns on a
 * packet larger than the quantum.  drr_dequeue() plays them in one pass
 * instead: for each queue it computes on which of its coming turns its
 * head packet fits, and the earliest (turn, list position) wins; every
 * queue is then credited the quanta of the turns skipped.  The scan
 * starts at the list head and stops at the first queue whose head packet
 * fits on its coming turn (no turn can come earlier), so it costs O(1)
 * per packet whenever every quantum >= the packet at the head of its
 * queue (and no deficit is negative): at most the head in turn and the
 * next non-empty queue are examined.  When quanta are smaller than
 * packets a dequeue may cost O(active queues); so may one that skips
 * empty members (drr_join(), below).  `examined` counts the queues looked
 * at, for tests and benchmarks.
 *
 * For PDRR (Kortebi 2005, Table 1) the engine offers what plain DRR does
 * not need:
 *  - drr_join(): puts a queue on the list although it is empty (the flow
 *    entered the active flow list by sending to the priority queue, lines
 *    5-9).  An empty member stays on the list; when its turn comes it
 *    receives its quantum (line 24), sends nothing and leaves with its
 *    deficit reset (lines 32-34, its Queue_i empty).  A packet arriving
 *    to it in the meantime keeps its place in the round.
 *  - drr_charge(): DC_i -= size for a packet of queue i sent by the owner
 *    outside the round (the priority queue, line 21).  Deficits are
 *    signed; a negative one only delays the queue's next send.
 *  - serving the priority queue only between visits (lines 17-21): the
 *    owner's dequeue asks drr_in_turn(); true means the next drr_dequeue()
 *    continues the current visit and the priority queue must wait.  False
 *    means a new visit starts: the owner first calls drr_end_turn() (so
 *    the queue whose visit is over goes to the tail now, lines 32-34,
 *    before any flow that joins while the priority queue is served), then
 *    serves its priority queue if that is not empty, else drr_dequeue().
 *    Sketch:
 *        if (!drr_in_turn(&s->drr)) {
 *                drr_end_turn(&s->drr);
 *                if ((p = pktq_pop(&s->pq))) {
 *                        drr_charge(flow_of(p), p->len_bytes);
 *                        return p;
 *                }
 *        }
 *        return drr_dequeue(&s->drr, NULL);
 *    and peek the same way without drr_end_turn(), which does not change
 *    what drr_peek() returns.
 *  - drr_remove_head(): policy-free removal from any queue (drain,
 *    push-out, "drop the head of the longest flow"); q->q.len_pkts and
 *    len_bytes are there for the owner's choice.
 *  - drr_set_on_leave(): tells the owner when a queue leaves the list,
 *    including an empty member whose turn drr_dequeue() played inside
 *    its scan: a per-flow owner frees the flow's state then (PDRR's flow
 *    table entry lives while the flow is on the list).
 *
 * Expiry (DRRexp, the per-flow DRR the Dual Queue paper compares with,
 * Hayes 1999 §5: "packets that have been in the queue longer than
 * t_expire are discarded").  drr_set_expiry() turns it on: a packet
 * whose queue time (now - enq_ns) exceeds expire_ns is never sent.
 * Expired packets are discarded lazily, where the round looks:
 * drr_expire(d, now), which the owner calls before drr_in_turn() and
 * drr_dequeue(), walks the list from the head as drr_dequeue()'s scan
 * would, drops the expired head packets of every member it passes
 * (through the owner's callback, counted in `expired`; a member emptied
 * so leaves, as any queue that empties) and stops at the first member
 * whose (fresh) head packet fits its coming turn, the one the scan
 * would stop at.  So the scan that follows meets no expired packet, at
 * the cost of the scan itself plus one step per discarded packet.
 * Expired packets deeper in the list wait until the round reaches them:
 * they hold buffer space until then, but none is ever sent.  The order
 * is the textbook loop's in which a queue, when its turn comes, first
 * discards its expired head packets and leaves if that empties it (no
 * quantum); a queue whose packets all expired before its turn keeps its
 * place and deficit if a fresh packet joins it first (tests/unit/
 * test_drr.c runs the engine against that loop).  A queue's expired
 * packets are its head (FIFO, enq_ns from one clock), and removing them
 * changes no deficit and no other member's place, so drr_peek_at() and
 * drr_in_turn_at() can answer for the state drr_expire() will leave
 * without changing anything: they read each member's first fresh packet
 * as its head, a member with none as empty.
 */
#ifndef SCHEDTUN_SCHED_DRR_H
#define SCHEDTUN_SCHED_DRR_H

#include <stdint.h>
#include "pkt/pkt.h"

/* One queue of the round, embedded in the owner's per-queue struct.  The
 * owner reads q, quantum_bytes, deficit_bytes and rounds; only the engine
 * writes them, except quantum_bytes, which the owner may change between
 * calls (it applies from the queue's next turn). */
struct drr_q {
	struct pktq   q;                /* the queue's packets, FIFO */
	struct drr_q *next, *prev;      /* active list, circular */
	uint32_t      quantum_bytes;    /* > 0 */
	int           active;           /* on the active list */
	int64_t       deficit_bytes;
	uint64_t      rounds;           /* quanta received, cumulative */
};

/* Called with a queue that has just left the list (off it, deficit 0,
 * no packet): the engine does not touch q again in that call.  It must not
 * call into the engine; it may free the memory q lives in. */
typedef void (*drr_leave_fn)(struct drr_q *q, void *arg);

/* Called with an expired packet p just taken from the head of q (q still
 * on the list; it leaves after the call if p was its last packet): the
 * owner drops p (ownership moves to it).  It must not call into the
 * engine. */
typedef void (*drr_expire_fn)(struct drr_q *q, struct pkt *p, void *arg);

struct drr {
	struct drr_q *head;             /* active list in round order */
	uint32_t      nactive;
	int           in_turn;          /* head received this turn's quantum */
	uint64_t      examined;         /* queues looked at by dequeues */
	drr_leave_fn  on_leave;         /* NULL: nobody is told */
	void         *leave_arg;
	tstamp_ns     expire_ns;        /* t_expire; 0: no expiry */
	drr_expire_fn on_expire;
	void         *expire_arg;
	uint64_t      expired;          /* packets discarded, cumulative */
};

/* An empty engine, with no leave callback. */
void drr_init(struct drr *d);

/* fn(q, arg) is called for each queue that leaves the list from now on
 * (NULL: none). */
void drr_set_on_leave(struct drr *d, drr_leave_fn fn, void *arg);

/* Expiry on (expire_ns > 0; fn non-NULL) or off (0): see above. */
void drr_set_expiry(struct drr *d, tstamp_ns expire_ns, drr_expire_fn fn,
		    void *arg);

/* 1 when p has been queued longer than t_expire at now (strictly; never
 * when expiry is off, nor when now is not after p->enq_ns), for the
 * owner's own queues (PDRR's priority queue) to follow the same rule. */
int drr_is_expired(const struct drr *d, const struct pkt *p, tstamp_ns now);

/* Discards, at now, the expired packets drr_dequeue()'s coming scan would
 * meet (see above).  No-op with expiry off. */
void drr_expire(struct drr *d, tstamp_ns now);

/* An empty queue, off the list, deficit 0.  quantum_bytes must be > 0. */
void drr_q_init(struct drr_q *q, uint32_t quantum_bytes);

/* Appends p (ownership moves to q) and puts q on the list if it is not. */
void drr_enqueue(struct drr *d, struct drr_q *q, struct pkt *p);

/* Puts q on the list, even empty, if it is not; see PDRR above. */
void drr_join(struct drr *d, struct drr_q *q);

/* The next packet of the round, removed and charged to its queue's
 * deficit; *qp (if qp) its queue.  NULL when no member holds a packet;
 * the empty members have then had their turns and left.  With expiry on,
 * call drr_expire() at the same now first. */
struct pkt *drr_dequeue(struct drr *d, struct drr_q **qp);

/* What drr_dequeue() would return now; changes nothing. */
const struct pkt *drr_peek(const struct drr *d);

/* What drr_expire(d, now) then drr_dequeue() would return; changes
 * nothing.  drr_peek() when expiry is off. */
const struct pkt *drr_peek_at(const struct drr *d, tstamp_ns now);

/* True when the next drr_dequeue() continues the head's current turn
 * (the head is in its turn and its head packet fits its deficit). */
int drr_in_turn(const struct drr *d);

/* drr_in_turn() as it will be after drr_expire(d, now); changes
 * nothing. */
int drr_in_turn_at(const struct drr *d, tstamp_ns now);

/* Ends the head's turn now if it cannot go on (drr_in_turn() false): the
 * step drr_dequeue() would take first.  No-op otherwise. */
void drr_end_turn(struct drr *d);

/* deficit -= bytes for a packet of q sent outside the round.  On a queue
 * off the list it is forgotten when the queue joins (deficit 0). */
void drr_charge(struct drr_q *q, uint32_t bytes);

/* Removes q's head packet without policy or charge (NULL if q is empty);
 * q leaves the list if that empties it. */
struct pkt *drr_remove_head(struct drr *d, struct drr_q *q);

/* Returns every packet of every member to the pool; the list ends empty,
 * deficits 0, rounds kept.  (A queue off the list holds no packet.) */
void drr_purge(struct drr *d);

#endif
