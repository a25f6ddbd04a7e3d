/* drr.c - the Deficit Round Robin engine (contract and rules in drr.h).
 *
 * The active list is circular and doubly linked, so that joining at the
 * tail, leaving from anywhere and rotating (the head moving on) are O(1).
 */
#include <stddef.h>

#include "drr.h"

/* The decision of the next transmission (see drr_pick()). */
struct drr_pick {
	const struct drr_q *q;  /* the winner; NULL when nobody can send */
	const struct pkt *head; /* its head packet, the one it sends */
	uint32_t pos;           /* its position in the list, head = 0 */
	uint64_t turns;         /* its turns before the one it sends in */
	uint32_t examined;
};

void drr_init(struct drr *d)
{
	d->head = NULL;
	d->nactive = 0;
	d->in_turn = 0;
	d->examined = 0;
	d->on_leave = NULL;
	d->leave_arg = NULL;
	d->expire_ns = 0;
	d->on_expire = NULL;
	d->expire_arg = NULL;
	d->expired = 0;
}

void drr_set_expiry(struct drr *d, tstamp_ns expire_ns, drr_expire_fn fn,
		    void *arg)
{
	d->expire_ns = fn ? expire_ns : 0;
	d->on_expire = fn;
	d->expire_arg = arg;
}

int drr_is_expired(const struct drr *d, const struct pkt *p, tstamp_ns now)
{
	return d->expire_ns && now > p->enq_ns &&
	       now - p->enq_ns > d->expire_ns;
}

/* q's first packet that has not expired at now (its head when expiry is
 * off, or now is 0), NULL if none. */
static const struct pkt *drr_fresh_head(const struct drr *d,
					const struct drr_q *q, tstamp_ns now)
{
	const struct pkt *p = q->q.head;

	while (p && drr_is_expired(d, p, now))
		p = p->next;
	return p;
}

void drr_set_on_leave(struct drr *d, drr_leave_fn fn, void *arg)
{
	d->on_leave = fn;
	d->leave_arg = arg;
}

void drr_q_init(struct drr_q *q, uint32_t quantum_bytes)
{
	pktq_init(&q->q);
	q->next = q->prev = NULL;
	q->quantum_bytes = quantum_bytes;
	q->active = 0;
	q->deficit_bytes = 0;
	q->rounds = 0;
}

/* Appends q behind every member (the queue in turn included). */
static void drr_link_tail(struct drr *d, struct drr_q *q)
{
	q->deficit_bytes = 0;
	q->active = 1;
	d->nactive++;
	if (!d->head) {
		q->next = q->prev = q;
		d->head = q;
		return;
	}
	q->prev = d->head->prev;
	q->next = d->head;
	d->head->prev->next = q;
	d->head->prev = q;
}

/* q leaves the list with its deficit reset; the head leaving ends its
 * turn and the next member becomes the head. */
static void drr_leave(struct drr *d, struct drr_q *q)
{
	if (d->head == q) {
		d->head = q->next == q ? NULL : q->next;
		d->in_turn = 0;
	}
	q->prev->next = q->next;
	q->next->prev = q->prev;
	q->next = q->prev = NULL;
	q->active = 0;
	q->deficit_bytes = 0;
	d->nactive--;
	if (d->on_leave)
		d->on_leave(q, d->leave_arg);
}

void drr_enqueue(struct drr *d, struct drr_q *q, struct pkt *p)
{
	if (!q->active)
		drr_link_tail(d, q);
	pktq_push(&q->q, p);
}

void drr_join(struct drr *d, struct drr_q *q)
{
	if (!q->active)
		drr_link_tail(d, q);
}

/* Whether packet p fits in credit bytes. */
static int drr_fits(const struct pkt *p, int64_t credit)
{
	return (int64_t)p->len_bytes <= credit;
}

/* The credit q has on its coming turn: its deficit, plus its quantum
 * unless it is the head already in its turn. */
static int64_t drr_coming_credit(const struct drr *d, const struct drr_q *q)
{
	if (q == d->head && d->in_turn)
		return q->deficit_bytes;
	return q->deficit_bytes + (int64_t)q->quantum_bytes;
}

/* Which member sends next, without changing state.  Member i has credit
 * c_i on its coming turn: its deficit, plus its quantum unless it is the
 * head already in its turn (then the current turn is its coming one).
 * Each later turn adds a quantum, so it sends on turn k_i = ceil((len -
 * c_i) / quantum) of its own (0 if the head packet fits on the coming
 * one).  Turns go round the list from the head, so the winner is the
 * smallest k_i, the earliest position on ties; the scan stops at the
 * first k_i = 0.  Empty members never win.  0 when nobody can send.
 * A member's head is its first packet not expired at now (now 0: its
 * head): the pick drr_expire(d, now) would leave.  A member with no
 * fresh packet counts as empty; were it the head in its turn, it would
 * have left, and the next member's coming credit, with its quantum, is
 * what position i > 0 already gives it. */
static int drr_pick(const struct drr *d, tstamp_ns now, struct drr_pick *pk)
{
	const struct drr_q *c = d->head;
	uint64_t best = UINT64_MAX;
	uint32_t i;

	pk->q = NULL;
	pk->head = NULL;
	pk->pos = 0;
	pk->turns = 0;
	pk->examined = 0;
	for (i = 0; i < d->nactive; i++, c = c->next) {
		const struct pkt *h = drr_fresh_head(d, c, now);
		int64_t credit = c->deficit_bytes;
		int64_t need;
		uint64_t k;

		pk->examined++;
		if (!h)
			continue;
		if (!(i == 0 && d->in_turn))
			credit += c->quantum_bytes;
		need = (int64_t)h->len_bytes - credit;
		k = need <= 0 ? 0 : ((uint64_t)need + c->quantum_bytes - 1) /
				    c->quantum_bytes;
		if (k < best) {
			best = k;
			pk->q = c;
			pk->head = h;
			pk->pos = i;
			pk->turns = k;
			if (k == 0)
				break;
		}
	}
	return pk->q != NULL;
}

/* Plays the turns drr_pick() skipped: every member up to the winner's
 * position starts turns + 1 turns, every member after it turns (the head
 * already in its turn one fewer: it has had its current quantum).  An
 * empty member leaves on its first turn.  The winner then heads the list,
 * in its turn: on a circular list that rotation is moving the head. */
static void drr_advance(struct drr *d, const struct drr_pick *pk)
{
	struct drr_q *c = d->head, *next;
	uint32_t i, n = d->nactive;

	for (i = 0; i < n; i++, c = next) {
		uint64_t quanta = pk->turns + (i <= pk->pos ? 1 : 0);

		if (!quanta)
			break;          /* after the winner, nobody had a turn */
		next = c->next;
		if (i == 0 && d->in_turn)
			quanta--;
		if (!c->q.head) {
			c->rounds++;
			drr_leave(d, c);
			continue;
		}
		c->deficit_bytes += (int64_t)(quanta * c->quantum_bytes);
		c->rounds += quanta;
		if (i == pk->pos)
			d->head = c;
	}
	d->in_turn = 1;
}

/* With nobody able to send, every member is empty: each has its turn
 * (a quantum, nothing to send) and leaves, as the textbook loop would
 * before it found the list empty. */
static void drr_flush_empty(struct drr *d)
{
	while (d->head) {
		d->head->rounds++;
		drr_leave(d, d->head);
	}
}

/* Takes q's expired head packets at now to the owner; q leaves if that
 * empties it.  1 when q left. */
static int drr_expire_q(struct drr *d, struct drr_q *q, tstamp_ns now)
{
	int taken = 0;

	while (q->q.head && drr_is_expired(d, q->q.head, now)) {
		struct pkt *p = pktq_pop(&q->q);

		d->expired++;
		taken = 1;
		d->on_expire(q, p, d->expire_arg);
	}
	if (taken && !q->q.head) {
		drr_leave(d, q);
		return 1;
	}
	return 0;
}

/* The scan of drr_pick() from the head, in list order, discarding as it
 * goes; it stops where the pick will: at the first member whose head
 * fits its coming turn.  next is read before a member may leave (and
 * its memory go, in the leave callback); a member seen twice after
 * others left has nothing expired left: harmless. */
void drr_expire(struct drr *d, tstamp_ns now)
{
	struct drr_q *c, *next;
	uint32_t i, n = d->nactive;

	if (!d->expire_ns)
		return;
	for (i = 0, c = d->head; i < n && d->head; i++, c = next) {
		next = c->next;
		if (drr_expire_q(d, c, now) || !c->q.head)
			continue;
		if (drr_fits(c->q.head, drr_coming_credit(d, c)))
			break;
	}
}

struct pkt *drr_dequeue(struct drr *d, struct drr_q **qp)
{
	struct drr_pick pk;
	int found = drr_pick(d, 0, &pk);
	struct drr_q *c;
	struct pkt *p;

	d->examined += pk.examined;
	if (!found) {
		drr_flush_empty(d);
		return NULL;
	}
	drr_advance(d, &pk);
	c = d->head;
	p = pktq_pop(&c->q);
	c->deficit_bytes -= p->len_bytes;       /* fits: drr_pick said so */
	if (!c->q.head)
		drr_leave(d, c);
	if (qp)
		*qp = c;
	return p;
}

const struct pkt *drr_peek(const struct drr *d)
{
	return drr_peek_at(d, 0);
}

const struct pkt *drr_peek_at(const struct drr *d, tstamp_ns now)
{
	struct drr_pick pk;

	return drr_pick(d, now, &pk) ? pk.head : NULL;
}

int drr_in_turn(const struct drr *d)
{
	return drr_in_turn_at(d, 0);
}

/* A head in turn left with no fresh packet would leave: no turn then. */
int drr_in_turn_at(const struct drr *d, tstamp_ns now)
{
	const struct pkt *h;

	if (!d->in_turn)
		return 0;
	h = drr_fresh_head(d, d->head, now);
	return h && drr_fits(h, d->head->deficit_bytes);
}

/* The head in turn is never empty: a queue that empties leaves. */
void drr_end_turn(struct drr *d)
{
	if (!d->in_turn || drr_in_turn(d))
		return;
	d->head = d->head->next;
	d->in_turn = 0;
}

void drr_charge(struct drr_q *q, uint32_t bytes)
{
	q->deficit_bytes -= bytes;
}

struct pkt *drr_remove_head(struct drr *d, struct drr_q *q)
{
	struct pkt *p = pktq_pop(&q->q);

	if (p && q->active && !q->q.head)
		drr_leave(d, q);
	return p;
}

void drr_purge(struct drr *d)
{
	while (d->head) {
		pktq_purge(&d->head->q);
		drr_leave(d, d->head);
	}
}
