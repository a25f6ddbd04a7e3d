/* test_drr.c - the DRR engine (src/sched/drr.h) against a literal
 * transcription of Shreedhar & Varghese's loop, on random loads with many
 * queues and quanta both larger and smaller than the packets; plus the
 * cost bound, the PDRR helpers (empty members, charges, turn ends) and
 * expiry (DRRexp: the textbook loop discarding a queue's expired head
 * packets when it visits it, on a virtual clock).  Deterministic (fixed
 * seeds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/pkt.h"
#include "sched/drr.h"

#define POOL_PKTS 8192u
#define NQ_MAX    64u
#define RQ_LEN    POOL_PKTS
#define NONE      UINT32_MAX

static int setup(void **state)
{
	(void)state;
	return pkt_pool_init(POOL_PKTS, 1500);
}

/* The pool goes first, so that one failed test does not make every
 * later setup fail too. */
static int teardown(void **state)
{
	uint32_t in_use = pkt_pool_in_use();

	(void)state;
	pkt_pool_destroy();
	assert_int_equal(in_use, 0);
	return 0;
}

/* A deterministic pseudo-random sequence (64-bit LCG, high bits). */
static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((lcg_state >> 33) % n);
}

static struct pkt *mk(uint32_t id, uint32_t len)
{
	struct pkt *p = pkt_alloc();

	assert_non_null(p);
	p->seq = id;
	p->len_bytes = len;
	return p;
}

/* ---- the textbook ------------------------------------------------------- */

/* The ActiveList of the paper: the head gets its quantum when its turn
 * starts, sends while the head packet fits, goes to the tail when it does
 * not, leaves with deficit 0 when it empties (also when it is found empty
 * at the start of its turn: a member that joined empty).  The turn ends
 * when the next dequeue finds that the head packet does not fit. */
struct ref_q {
	uint32_t id[RQ_LEN], len[RQ_LEN];
	tstamp_ns enq[RQ_LEN];
	unsigned int head, n;
	uint32_t quantum;
	int64_t deficit;
	uint64_t rounds;
	int member;
};

struct ref {
	struct ref_q q[NQ_MAX];
	unsigned int list[NQ_MAX], nlist;
	int in_turn;
	tstamp_ns expire;       /* 0: no expiry */
	uint64_t expired;       /* packets discarded */
};

static void ref_append(struct ref *r, unsigned int c)
{
	if (r->q[c].member)
		return;
	r->q[c].member = 1;
	r->q[c].deficit = 0;
	r->list[r->nlist++] = c;
}

/* Queue c leaves the list (wherever it is). */
static void ref_leave(struct ref *r, unsigned int c)
{
	unsigned int i = 0;

	while (r->list[i] != c)
		i++;
	if (i == 0)
		r->in_turn = 0;
	memmove(&r->list[i], &r->list[i + 1],
		(r->nlist - i - 1) * sizeof(r->list[0]));
	r->nlist--;
	r->q[c].member = 0;
	r->q[c].deficit = 0;
}

static void ref_to_tail(struct ref *r)
{
	unsigned int c = r->list[0];

	memmove(&r->list[0], &r->list[1], (r->nlist - 1) * sizeof(r->list[0]));
	r->list[r->nlist - 1] = c;
	r->in_turn = 0;
}

static void ref_push(struct ref *r, unsigned int c, uint32_t id,
		     uint32_t len, tstamp_ns enq)
{
	struct ref_q *q = &r->q[c];

	assert_true(q->n < RQ_LEN);
	ref_append(r, c);
	q->id[(q->head + q->n) % RQ_LEN] = id;
	q->len[(q->head + q->n) % RQ_LEN] = len;
	q->enq[(q->head + q->n) % RQ_LEN] = enq;
	q->n++;
}

static uint32_t ref_pop(struct ref_q *q)
{
	uint32_t id = q->id[q->head];

	q->head = (q->head + 1) % RQ_LEN;
	q->n--;
	return id;
}

static int ref_fits(const struct ref_q *q)
{
	return q->n && (int64_t)q->len[q->head] <= q->deficit;
}

/* Whether the packet at ring index i has waited longer than t_expire at
 * now (strictly). */
static int ref_expired(const struct ref *r, const struct ref_q *q,
		       unsigned int i, tstamp_ns now)
{
	return r->expire && now > q->enq[i] && now - q->enq[i] > r->expire;
}

/* The visit's first step under expiry: queue c's expired head packets
 * are discarded; emptied so, it leaves (no turn).  1 when it left. */
static int ref_expire_q(struct ref *r, unsigned int c, tstamp_ns now)
{
	struct ref_q *q = &r->q[c];
	int taken = 0;

	while (q->n && ref_expired(r, q, q->head, now)) {
		ref_pop(q);
		r->expired++;
		taken = 1;
	}
	if (taken && !q->n) {
		ref_leave(r, c);
		return 1;
	}
	return 0;
}

/* The id of the next packet at now and its queue in *qc, or NONE. */
static uint32_t ref_dequeue(struct ref *r, unsigned int *qc, tstamp_ns now)
{
	while (r->nlist) {
		unsigned int c = r->list[0];
		struct ref_q *q = &r->q[c];
		uint32_t id, len;

		if (ref_expire_q(r, c, now))
			continue;
		if (!r->in_turn) {
			q->deficit += q->quantum;
			q->rounds++;
			r->in_turn = 1;
		}
		if (ref_fits(q)) {
			len = q->len[q->head];
			id = ref_pop(q);
			q->deficit -= len;
			if (!q->n)
				ref_leave(r, c);
			*qc = c;
			return id;
		}
		if (!q->n)
			ref_leave(r, c);
		else
			ref_to_tail(r);
	}
	return NONE;
}

static int ref_in_turn(const struct ref *r)
{
	return r->in_turn && ref_fits(&r->q[r->list[0]]);
}

/* ref_in_turn() once the head's visit has discarded its expired packets
 * at now (a head left empty so would have left: no turn). */
static int ref_in_turn_at(const struct ref *r, tstamp_ns now)
{
	const struct ref_q *q;
	unsigned int i, k;

	if (!r->in_turn)
		return 0;
	q = &r->q[r->list[0]];
	for (k = 0, i = q->head; k < q->n; k++, i = (i + 1) % RQ_LEN)
		if (!ref_expired(r, q, i, now))
			return (int64_t)q->len[i] <= q->deficit;
	return 0;
}

static void ref_end_turn(struct ref *r)
{
	if (r->in_turn && !ref_in_turn(r))
		ref_to_tail(r);
}

static uint32_t ref_remove_head(struct ref *r, unsigned int c)
{
	struct ref_q *q = &r->q[c];
	uint32_t id;

	if (!q->n)
		return NONE;
	id = ref_pop(q);
	if (!q->n && q->member)
		ref_leave(r, c);
	return id;
}

/* ---- the engine under test ---------------------------------------------- */

struct tq {
	struct drr_q dq;
	unsigned int idx;
};

static struct tq tqs[NQ_MAX];

static unsigned int idx_of(const struct drr_q *q)
{
	return ((const struct tq *)((const char *)q -
				    offsetof(struct tq, dq)))->idx;
}

/* Every queue's deficit, rounds and membership agree, and the engine's
 * list is the reference's, in order. */
static void compare_state(const struct drr *d, const struct ref *r,
			  unsigned int nq)
{
	const struct drr_q *c = d->head;
	unsigned int i;

	for (i = 0; i < nq; i++) {
		const struct drr_q *q = &tqs[i].dq;

		assert_int_equal(q->deficit_bytes, r->q[i].deficit);
		assert_int_equal(q->rounds, r->q[i].rounds);
		assert_int_equal(q->active, r->q[i].member);
		assert_int_equal(q->q.len_pkts, r->q[i].n);
	}
	assert_int_equal(d->nactive, r->nlist);
	for (i = 0; i < r->nlist; i++, c = c->next)
		assert_int_equal(idx_of(c), r->list[i]);
	assert_int_equal(d->in_turn, r->in_turn);
}

/* The engine's expiry callback: counts and frees. */
static void on_expire(struct drr_q *q, struct pkt *p, void *arg)
{
	assert_true(q->active);
	(*(uint64_t *)arg)++;
	pkt_free(p);
}

/* One dequeue from both at now, peek first; they must agree, and so must
 * the packets discarded as expired.  Without expiry (now ignored) the
 * engine's drr_peek() and drr_in_turn() are the ones asked. */
static void step_dequeue(struct drr *d, struct ref *r, int step,
			 tstamp_ns now)
{
	const struct pkt *pk = r->expire ? drr_peek_at(d, now) : drr_peek(d);
	struct drr_q *q = NULL;
	struct pkt *p;
	unsigned int rc = 0;
	uint32_t rid;

	if (r->expire) {
		assert_int_equal(drr_in_turn_at(d, now), ref_in_turn_at(r, now));
		drr_expire(d, now);
	} else {
		assert_int_equal(drr_in_turn(d), ref_in_turn(r));
	}
	p = drr_dequeue(d, &q);
	rid = ref_dequeue(r, &rc, now);
	assert_ptr_equal(pk, p);
	if (d->expired != r->expired)
		fail_msg("step %d: engine discarded %llu, textbook %llu", step,
			 (unsigned long long)d->expired,
			 (unsigned long long)r->expired);
	if (p)
		assert_false(drr_is_expired(d, p, now));
	if (rid == NONE) {
		assert_null(p);
		return;
	}
	assert_non_null(p);
	if (p->seq != rid || idx_of(q) != rc)
		fail_msg("step %d: engine %u (queue %u), textbook %u (queue "
			 "%u)", step, p->seq, idx_of(q), rid, rc);
	pkt_free(p);
}

struct load {
	unsigned int nq;
	uint32_t quantum_lo, quantum_hi;        /* drawn per queue */
	int pdrr_ops;           /* also joins, charges, turn ends */
	int steps;
	tstamp_ns expire_ns;    /* t_expire; 0: no expiry */
};

/* Random arrivals (phases of more and fewer, so that queues drain and
 * restart), departures, policy-free removals, and with pdrr_ops the PDRR
 * helpers; the engine and the textbook must agree at every step. */
static void run_load(const struct load *ld, uint64_t seed)
{
	static struct ref r;
	struct drr d;
	uint32_t id = 0, most_active = 0;
	uint64_t freed = 0;
	tstamp_ns now = 1;
	unsigned int i;
	int step;

	memset(&r, 0, sizeof(r));
	lcg_state = seed;
	drr_init(&d);
	r.expire = ld->expire_ns;
	if (ld->expire_ns)
		drr_set_expiry(&d, ld->expire_ns, on_expire, &freed);
	for (i = 0; i < ld->nq; i++) {
		uint32_t qb = ld->quantum_lo +
			      lcg(ld->quantum_hi - ld->quantum_lo + 1);

		tqs[i].idx = i;
		drr_q_init(&tqs[i].dq, qb);
		r.q[i].quantum = qb;
	}
	for (step = 0; step < ld->steps; step++) {
		uint32_t op = lcg(100);
		unsigned int c = lcg(ld->nq);
		int busy = step % 4000 < 2000;

		if (ld->expire_ns)      /* the older loads keep their draws */
			now += lcg(5);  /* ties included: "strictly" matters */
		if (op < (busy ? 60u : 35u)) {
			uint32_t len = 40 + lcg(1461);
			struct pkt *p;

			if (pkt_pool_in_use() >= POOL_PKTS)
				continue;
			p = mk(id, len);
			p->enq_ns = now;
			drr_enqueue(&d, &tqs[c].dq, p);
			ref_push(&r, c, id, len, now);
			id++;
		} else if (op < 92) {
			step_dequeue(&d, &r, step, now);
		} else if (op < 95) {
			struct pkt *p = drr_remove_head(&d, &tqs[c].dq);
			uint32_t rid = ref_remove_head(&r, c);

			if (rid == NONE) {
				assert_null(p);
			} else {
				assert_non_null(p);
				assert_int_equal(p->seq, rid);
				pkt_free(p);
			}
		} else if (!ld->pdrr_ops) {
			step_dequeue(&d, &r, step, now);
		} else if (op < 97) {
			drr_join(&d, &tqs[c].dq);
			ref_append(&r, c);
		} else if (op < 99) {
			uint32_t b = lcg(1501);

			drr_charge(&tqs[c].dq, b);
			r.q[c].deficit -= b;
		} else {
			drr_end_turn(&d);
			ref_end_turn(&r);
		}
		if (step % 101 == 0)
			compare_state(&d, &r, ld->nq);
		if (d.nactive > most_active)
			most_active = d.nactive;
	}
	/* the load did build up a round over most queues */
	assert_true(most_active * 4 >= ld->nq * 3);
	/* expiry was exercised, and told the owner of each discard */
	assert_int_equal(freed, d.expired);
	if (ld->expire_ns)
		assert_true(d.expired >= 100);
	compare_state(&d, &r, ld->nq);
	drr_purge(&d);
	assert_null(d.head);
	assert_int_equal(d.nactive, 0);
	for (i = 0; i < ld->nq; i++) {
		assert_int_equal(tqs[i].dq.q.len_pkts, 0);
		assert_false(tqs[i].dq.active);
		/* a member leaves with deficit 0; a charge to a queue off
		 * the list waits for its next join to be forgotten */
		if (r.q[i].member)
			assert_int_equal(tqs[i].dq.deficit_bytes, 0);
	}
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* Two queues (dwrr's case), a few dozen, the maximum; quanta above the
 * packets, below them (16 bytes: a 1500-byte packet needs 94 turns), and
 * straddling them; without, then with the PDRR helpers (empty members,
 * charges making deficits negative, turns ended early). */
static void test_matches_textbook(void **state)
{
	static const struct load loads[] = {
		{ 2, 1500, 3000, 0, 40000, 0 },
		{ 2, 16, 200, 0, 40000, 0 },
		{ 7, 64, 3000, 0, 40000, 0 },
		{ 40, 16, 3000, 0, 40000, 0 },
		{ NQ_MAX, 1500, 9000, 0, 40000, 0 },
		{ NQ_MAX, 16, 1000, 0, 40000, 0 },
		{ 2, 1500, 3000, 1, 40000, 0 },
		{ 12, 16, 3000, 1, 40000, 0 },
		{ NQ_MAX, 500, 2000, 1, 40000, 0 },
		{ NQ_MAX, 16, 300, 1, 40000, 0 },
		/* expiry: 2 ticks a step on average, so a packet expires
		 * behind 150 to 1000 steps of queueing */
		{ 2, 1500, 3000, 0, 40000, 300 },
		{ 7, 64, 3000, 0, 40000, 600 },
		{ 40, 16, 3000, 0, 40000, 2000 },
		{ 12, 16, 3000, 1, 40000, 600 },
		{ NQ_MAX, 500, 2000, 1, 40000, 1000 },
		{ NQ_MAX, 16, 300, 1, 40000, 2000 },
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(loads) / sizeof(loads[0]); k++)
		run_load(&loads[k], 1000 + k);
}

/* ---- cost --------------------------------------------------------------- */

/* Quanta >= every packet: a dequeue looks at two queues at most (the head
 * in its turn, then the next one, whose quantum covers its head packet),
 * however many are active. */
static void test_constant_cost(void **state)
{
	enum { NQ = 1000, DEQ = 100000 };
	static struct drr_q qs[NQ];
	struct drr d;
	uint64_t before;
	uint32_t id = 0;
	int i, j;

	(void)state;
	lcg_state = 7;
	drr_init(&d);
	for (i = 0; i < NQ; i++) {
		drr_q_init(&qs[i], 1500 + lcg(3000));
		for (j = 0; j < 3; j++)
			drr_enqueue(&d, &qs[i], mk(id++, 40 + lcg(1461)));
	}
	before = d.examined;
	for (i = 0; i < DEQ; i++) {
		struct drr_q *q;
		struct pkt *p = drr_dequeue(&d, &q);

		assert_non_null(p);
		/* keep every queue backlogged */
		drr_enqueue(&d, q, mk(id++, p->len_bytes));
		pkt_free(p);
	}
	assert_true(d.examined - before <= 2ull * DEQ);
	assert_int_equal(d.nactive, NQ);
	drr_purge(&d);

	/* quanta far below the packets: one pass over the active queues
	 * per dequeue, not one per skipped turn */
	drr_init(&d);
	for (i = 0; i < 10; i++) {
		drr_q_init(&qs[i], 16);
		drr_enqueue(&d, &qs[i], mk(id++, 1500));
	}
	for (i = 0; i < 10; i++) {
		struct pkt *p = drr_dequeue(&d, NULL);

		assert_non_null(p);
		pkt_free(p);
	}
	assert_true(d.examined <= 10 * 10);
	/* 94 turns for 1500 bytes at 16 per turn, for every queue */
	for (i = 0; i < 10; i++)
		assert_int_equal(qs[i].rounds, 94);
}

/* ---- scripted ------------------------------------------------------------ */

static uint32_t next_id(struct drr *d)
{
	struct pkt *p = drr_dequeue(d, NULL);
	uint32_t id;

	assert_non_null(p);
	id = p->seq;
	pkt_free(p);
	return id;
}

/* Quanta 1000, A = a1 a2 (600 each).  a1 leaves A 400 short of a2: its
 * turn is over, but ends lazily.  Textbook: B joining now lands behind A
 * (still in turn), A then moves behind B: a1 b1 a2.  PDRR ends the visit
 * first (drr_end_turn()), so B lands behind A: a1 a2 b1. */
static void test_turn_end_lazy_or_explicit(void **state)
{
	struct drr_q a, b;
	struct drr d;
	int pdrr;

	(void)state;
	for (pdrr = 0; pdrr < 2; pdrr++) {
		drr_init(&d);
		drr_q_init(&a, 1000);
		drr_q_init(&b, 1000);
		drr_enqueue(&d, &a, mk(1, 600));
		drr_enqueue(&d, &a, mk(2, 600));
		assert_false(drr_in_turn(&d));  /* no turn started yet */
		assert_int_equal(next_id(&d), 1);
		assert_int_equal(a.deficit_bytes, 400);
		assert_true(d.in_turn);
		assert_false(drr_in_turn(&d));  /* a2 does not fit */
		if (pdrr)
			drr_end_turn(&d);
		drr_enqueue(&d, &b, mk(101, 600));
		assert_int_equal(drr_peek(&d)->seq, pdrr ? 2 : 101);
		if (pdrr) {
			assert_int_equal(next_id(&d), 2);
			assert_int_equal(next_id(&d), 101);
		} else {
			assert_int_equal(next_id(&d), 101);
			assert_int_equal(next_id(&d), 2);
		}
		assert_null(drr_dequeue(&d, NULL));
		assert_int_equal(a.rounds, 2);
		assert_int_equal(b.rounds, 1);
	}
}

/* An empty member (PDRR: the flow sent to the priority queue) keeps its
 * place: A joins empty, B with b1.  A's turn comes first: a quantum,
 * nothing to send, it leaves.  Had a1 arrived meanwhile, A would have sent
 * it before B.  A charged member's deficit goes below 0 and delays it. */
static void test_empty_member_and_charge(void **state)
{
	struct drr_q a, b;
	struct drr d;

	(void)state;
	drr_init(&d);
	drr_q_init(&a, 1000);
	drr_q_init(&b, 1000);
	drr_join(&d, &a);
	drr_enqueue(&d, &b, mk(101, 500));
	assert_int_equal(d.nactive, 2);
	assert_int_equal(drr_peek(&d)->seq, 101);
	assert_int_equal(next_id(&d), 101);
	assert_false(a.active);
	assert_int_equal(a.rounds, 1);
	assert_int_equal(a.deficit_bytes, 0);

	drr_join(&d, &a);
	drr_enqueue(&d, &b, mk(102, 500));
	drr_enqueue(&d, &a, mk(1, 500));        /* keeps A's place */
	assert_int_equal(next_id(&d), 1);
	assert_int_equal(next_id(&d), 102);

	/* charged 2500 while empty in the list: -2500 + 1000 per turn, so
	 * A's 500 bytes wait for its third turn; B's turns alternate with
	 * A's and send one 1000-byte packet each */
	drr_join(&d, &a);
	drr_charge(&a, 2500);
	drr_enqueue(&d, &b, mk(103, 1000));
	drr_enqueue(&d, &b, mk(104, 1000));
	drr_enqueue(&d, &b, mk(105, 1000));
	drr_enqueue(&d, &a, mk(2, 500));
	drr_enqueue(&d, &b, mk(106, 1000));
	assert_int_equal(next_id(&d), 103);
	assert_int_equal(a.deficit_bytes, -1500);
	assert_int_equal(next_id(&d), 104);
	assert_int_equal(next_id(&d), 2);
	assert_int_equal(a.rounds, 5);          /* 1 + 1 + its 3 now */
	assert_int_equal(next_id(&d), 105);
	assert_int_equal(next_id(&d), 106);
	assert_null(drr_dequeue(&d, NULL));

	/* only empty members: they have their turns and leave */
	drr_join(&d, &a);
	drr_join(&d, &b);
	assert_null(drr_peek(&d));
	assert_int_equal(d.nactive, 2);
	assert_null(drr_dequeue(&d, NULL));
	assert_int_equal(d.nactive, 0);
}

/* Removal without policy from the queue in turn, one behind, the last
 * packet of a queue; the round stays consistent. */
static void test_remove_head(void **state)
{
	struct drr_q a, b;
	struct drr d;
	struct pkt *p;

	(void)state;
	drr_init(&d);
	drr_q_init(&a, 1500);
	drr_q_init(&b, 1500);
	drr_enqueue(&d, &a, mk(1, 1000));
	drr_enqueue(&d, &a, mk(2, 1000));
	drr_enqueue(&d, &a, mk(3, 400));
	drr_enqueue(&d, &b, mk(101, 1000));
	assert_int_equal(next_id(&d), 1);       /* A in turn, 500 left */
	p = drr_remove_head(&d, &a);            /* a2: a3 fits now */
	assert_int_equal(p->seq, 2);
	pkt_free(p);
	assert_true(drr_in_turn(&d));
	assert_int_equal(a.deficit_bytes, 500); /* removal charges nothing */
	p = drr_remove_head(&d, &b);            /* B's only packet */
	assert_int_equal(p->seq, 101);
	pkt_free(p);
	assert_false(b.active);
	assert_int_equal(d.nactive, 1);
	assert_null(drr_remove_head(&d, &b));
	assert_int_equal(next_id(&d), 3);
	assert_null(drr_dequeue(&d, NULL));
	assert_false(a.active);
	assert_int_equal(a.deficit_bytes, 0);
}

/* The leave callback: told once for each queue that leaves, by every
 * way out (emptied by a dequeue, an empty member's turn inside the scan,
 * drr_remove_head(), purge), after the queue is off the list; never for
 * a queue that stays. */
static struct drr_q *left[8];
static unsigned int nleft;

static void on_leave(struct drr_q *q, void *arg)
{
	assert_ptr_equal(arg, &nleft);
	assert_false(q->active);
	assert_null(q->q.head);
	assert_int_equal(q->deficit_bytes, 0);
	assert_true(nleft < 8);
	left[nleft++] = q;
}

static void test_on_leave(void **state)
{
	struct drr_q a, b, c;
	struct drr d;
	struct pkt *p;

	(void)state;
	nleft = 0;
	drr_init(&d);
	drr_set_on_leave(&d, on_leave, &nleft);
	drr_q_init(&a, 1500);
	drr_q_init(&b, 1500);
	drr_q_init(&c, 1500);
	drr_join(&d, &a);                       /* empty member, first */
	drr_enqueue(&d, &b, mk(101, 1000));
	drr_enqueue(&d, &b, mk(102, 1000));
	drr_enqueue(&d, &c, mk(201, 1000));
	assert_int_equal(next_id(&d), 101);     /* A's turn in the scan */
	assert_int_equal(nleft, 1);
	assert_ptr_equal(left[0], &a);
	assert_int_equal(next_id(&d), 201);     /* C empties */
	assert_int_equal(nleft, 2);
	assert_ptr_equal(left[1], &c);
	p = drr_remove_head(&d, &b);            /* B empties by removal */
	assert_int_equal(p->seq, 102);
	pkt_free(p);
	assert_int_equal(nleft, 3);
	assert_ptr_equal(left[2], &b);
	drr_enqueue(&d, &a, mk(1, 100));
	drr_enqueue(&d, &a, mk(2, 100));
	assert_int_equal(next_id(&d), 1);       /* A stays: not told */
	assert_int_equal(nleft, 3);
	drr_purge(&d);
	assert_int_equal(nleft, 4);
	assert_ptr_equal(left[3], &a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_matches_textbook,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_constant_cost,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_turn_end_lazy_or_explicit,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_member_and_charge,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_head,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_on_leave,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
