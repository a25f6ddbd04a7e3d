/* pss.c - PSS, the Priority Switching Scheduler (Finzi et al., 2023).
 *
 * What it does.  A strict-priority scheduler in which a "controlled" queue
 * switches between two priorities, p_high and p_low (numerically
 * p_high < p_low: a lower number is served first), driven by a credit
 * counter in the style of the TSN Burst Limiting Shaper.  While the queue
 * sends, its credit rises with the sending slope C·(1 - BW); while it does
 * not, the credit falls with the idle slope C·BW.  When the credit reaches
 * LM the queue drops to p_low; when it falls back to LR it returns to
 * p_high.  The controlled queue therefore gets about BW·C of the link when
 * the classes above it leave that much, and the sporadicity of EF is
 * absorbed by the classes below.  Fixed queues have one priority.  The
 * default layout is the paper's Fig. 2b: EF fixed at 0, AF controlled
 * 1 <-> 3, CS0 fixed at 2.  Work-conserving: a packet of the best current
 * priority is always sent, whatever the credits say.
 *
 * Paper sections followed (papers/pss-finzi-2023.txt):
 *   §2.1  the specification: credit bounds 0..LM, resume level LR, the two
 *         slopes, the switching rules, "the credit starts at 0";
 *   §2.2  Algorithm 1, the dequeuing process, implemented by pss_dequeue()
 *         (pss_age() is lines 1-17, pss_charge() lines 21-26);
 *   §2.3  the variable-capacity changes: the empty-queue floor
 *         min(credit, LR) (lines 6-7), the `dtime < 0` branch (line 14),
 *         LM = eq. 5 + LR;
 *   §2.4  the parameters from WRR weights (eqs. 2-5): not computed here
 *         (the parameter calculator does it); see conf/pss-sender.conf.
 *
 * The traps of the published pseudo-code (DESIGN §3) and what this code
 * does about each:
 *  1. `dtime[q] = currentTime` after a credit update means
 *     `timerDQ[q] = currentTime`: pss_age() sets timer_dq_ns = now.
 *  2. a transcription lost the `else` between the "queue non-empty" and
 *     "queue empty" updates (lines 5-7): here they are one if/else choosing
 *     the floor, 0 or min(credit, LR).
 *  3. the switch back to p_high is when the credit *reaches* LR: `<=`.
 *     With LR = 0 and the credit clamped at 0, `<` would never fire and
 *     the controlled queue would stay at p_low for ever (tested).
 *  4. the prose says `p_high > p_low`, the algorithm `p_high < p_low`:
 *     a controlled queue is one with two distinct priorities, and since a
 *     lower number is a higher priority that is p_high < p_low; parse
 *     refuses p_high >= p_low and points at `prio` for a fixed queue.
 *  5. the other transcription lost the outer `else` before the `dtime < 0`
 *     update (line 14): the `dtime > 0` and `dtime <= 0` updates are
 *     alternatives (if/else in pss_age()).
 *  6. the `dtime < 0` branch adds -dtime·C·BW (dtime is negative, so the
 *     credit grows at the idle slope), clamps at LM and does not test the
 *     switch back; the switch back is tested only when dtime > 0.  (It
 *     could not fire there anyway: at p_low the credit only ever falls in
 *     the dtime > 0 branch, which tests it.)  `idle_credit = false` turns
 *     the branch off, leaving the credit and timerDQ untouched, which is
 *     the paper's "without the dtime < 0 branch" variant of Fig. 10a.
 *  7. with an empty queue the floor is min(credit, LR): a credit above LR
 *     falls to LR and stops there, one already below LR stays put.
 *  8. credit is added whenever the controlled queue sends, also at p_low
 *     (when nothing of a better priority is queued): pss_charge() runs for
 *     every packet of a controlled queue, whatever p is.
 *  9. eq. 3 prints BW as a rate: the fraction is BW = B·(C - R_EF^exp)/C;
 *     with LR > 0, LM = eq. 5 + LR.  This file takes bw as a fraction and
 *     lm, lr in bytes as given; the arithmetic is in the example configs.
 * 10. units: the paper gives none.  Here credit, LM, LR and credit_init
 *     are bytes (doubles internally), BW is a fraction of C, and C is the
 *     configured nominal capacity `capacity` (default: the link's mean
 *     rate), never the instantaneous C(t): the credit measures the queue's
 *     service against BW·C_nominal, which is what §2.3 relies on.
 *
 * Decisions where the paper is silent or loose:
 *  - dtime == 0 takes the `else` branch, as in the printed algorithm
 *    (`if dtime > 0 ... else`).  It adds 0 either way; the only difference
 *    would be the switch-back test, which cannot be pending then (a queue
 *    at p_low always has credit > LR right after sending, and at any other
 *    time dtime == 0 means the test ran at this same instant).
 *  - timerDQ "initialised to zero": our clock is not zero at start, so the
 *    time origin is the first enqueue or dequeue the instance sees (a
 *    peek before either takes `now`).  Nothing can happen to a credit
 *    before a packet exists.
 *  - credit_init defaults to 0 as in the paper (the authors' code starts at
 *    LR).  A large LR started at 0 means the controlled queue is behind by
 *    LR bytes and keeps p_high until its credit first reaches LM: CS0
 *    gets next to nothing for LM / ((C - R_EF)(1 - BW) - R_EF·BW) seconds
 *    (the credit's net climb while AF sends at p_high beside EF): 120 s
 *    for weights 9:2, R_EF = 0.5·C and LR = 15 s of C·BW, not the
 *    LR / (C·BW) = 15 s a first guess gives.  credit_init = LR avoids it.  A credit_init above LR decays to LR at
 *    the first update if the queue is empty then.
 *  - bw and lm have defaults so that `name = "pss"` alone runs: bw = 0.5,
 *    lm = 3000 bytes, lr = 0.  With 1500-byte packets and R_EF^exp = 0 that
 *    is WRR with W_AF = W_CS0 = 5 (eq. 4: B = 4/8 = 0.5; eq. 5:
 *    LM = 1500·4·(1 - 0.5) = 3000).  Real experiments set them (eqs. 3-5).
 *  - the credit is updated only in dequeue, as Algorithm 1 is written.
 *    Consequence: after the whole scheduler was idle, the first dequeue
 *    that finds the controlled queue non-empty applies the non-empty floor
 *    (0) to the whole idle time.  In a busy link dequeue runs at every
 *    packet and this does not matter; kept for fidelity.
 *  - several controlled queues: each has its own credit; priority ties
 *    are broken by class order EF, AF, CS0.
 *
 * Configuration, group scheduler.pss (all optional):
 *   bw = 0.5;  lm = 3000;  lr = 0;  credit_init = 0;   the controlled
 *              queues' defaults (AF's unless `queues` overrides);
 *              0 < bw < 1, lm > 0 bytes, 0 <= lr < lm, 0 <= credit_init <= lm
 *   capacity = "20Mbit";  C of the credit slopes; default the link's mean;
 *              required when the link is unlimited
 *   idle_credit = true;   the dtime < 0 branch of §2.3
 *   trace = "/tmp/credit.csv";  one line `t_s,credit_bytes,prio` per credit
 *              update (t_s: the daemon's monotonic clock, or the virtual
 *              clock; a 4th column names the class when several queues
 *              are controlled); a path relative to the daemon's working
 *              directory, truncated when the instance is created (start,
 *              SIGHUP)
 *   queues = { ef = { prio = 0; };
 *              af = { p_high = 1; p_low = 3; bw = ..; lm = ..; lr = ..;
 *                     credit_init = ..; };
 *              cs0 = { prio = 2; }; };
 *              per class either `prio` (fixed) or `p_high` < `p_low`
 *              (controlled, with its own bw/lm/lr/credit_init, defaulting
 *              to the top-level ones); a class not listed, or listed
 *              without prio/p_high/p_low, keeps its Fig. 2b role.
 *
 * Statistics: per controlled class {"credit": bytes, "prio": p,
 * "switches": n, "sent_bytes", "low_bytes", "drain_bytes", "ahead_bytes",
 * "cut_bytes", "floor_bytes"} (switches counts both directions; all but
 * credit and prio are in the interval of the stats line: cumulative here,
 * turned into deltas by jw_counter()).  The byte counters are the terms
 * of the credit's balance (docs/pss.md, "the credit balance"), so that
 * any interval's change of credit is, to a few bytes (each counter is its
 * running total rounded),
 *   (1 - BW) sent - drain + ahead - cut + floor
 * with sent the bytes the queue started, drain the idle slope's removals
 * (dtime > 0, before the floor), ahead the dtime < 0 branch's additions
 * (before the LM clamp), cut what the LM clamps removed (Lambda) and
 * floor what the floors kept (Gamma); low_bytes is the part of sent
 * started at p_low, i.e. while every queue of a better priority (CS0 for
 * AF) was empty: what work conservation gave the queue beyond its share.
 */
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "pkt/classify.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "util/log.h"
#include "stock.h"

#define PSS_PRIO_MAX            15u
#define PSS_BYTES_MAX           1000000000000ull        /* 1 TB */
#define PSS_DEFAULT_BW          0.5
#define PSS_DEFAULT_LM_BYTES    3000u
#define PSS_TRACE_PATH_MAX      256
#define PSS_CAPACITY_MISSING    "missing while the link is unlimited " \
				"(accepted: a rate, e.g. \"20Mbit\", the " \
				"nominal C of the credit)"

/* Parameters of one class queue.  A fixed queue has p_high == p_low. */
struct pss_qparams {
	uint8_t  controlled;
	uint8_t  p_high, p_low;
	double   bw;                    /* fraction of capacity, 0 < bw < 1 */
	uint64_t lm_bytes, lr_bytes, credit_init_bytes;
};

struct pss_params {
	struct pss_qparams q[NCLASS];
	struct pss_qparams top;         /* the top-level credit keys: the
					 * default of every controlled queue */
	uint64_t capacity_bps;          /* 0: the link's mean (env) */
	uint64_t env_capacity_bps;      /* what defaults() saw, for parse */
	int      idle_credit;           /* the dtime < 0 branch */
	char     trace_path[PSS_TRACE_PATH_MAX];   /* "" = no trace */
};

_Static_assert(sizeof(struct pss_params) <= SCHED_PARAMS_MAX,
	       "pss parameters exceed SCHED_PARAMS_MAX");

/* Run-time state of one class queue. */
struct pss_queue {
	struct pktq q;
	int        controlled;
	unsigned   p, p_high, p_low;    /* current, and the two levels */
	double     credit_bytes;
	double     lm_bytes, lr_bytes;
	double     bw;
	double     idle_bps;            /* I_idle = C·BW, in bit/s */
	tstamp_ns  timer_dq_ns;         /* timerDQ[q] */
	uint64_t   switches;
	struct pss_balance {            /* running totals, in bytes */
		double sent, low;       /* started; of which at p_low */
		double drain, ahead;    /* idle slope; dtime < 0 branch */
		double cut, floor;      /* removed at LM; kept by a floor */
	} bal;
};

struct pss_sched {
	struct pss_queue q[NCLASS];     /* indexed by enum pkt_class */
	uint64_t capacity_bps;          /* nominal C */
	int      idle_credit;
	int      started;               /* timer_dq_ns has its origin */
	int      ncontrolled;
	FILE    *trace;
};

/* Outcome of the first loop of Algorithm 1 (lines 1-17) for one queue,
 * so that peek() can compute it without committing it. */
struct pss_age {
	double    credit_bytes;
	unsigned  p;
	tstamp_ns timer_dq_ns;
	int       updated;              /* a credit update ran (trace it) */
	double    drain_bytes, ahead_bytes, cut_bytes, floor_bytes;
					/* this update's balance terms */
};

/* Serialisation time of len_bytes at the nominal capacity, rounded to the
 * nearest ns (size/C of line 23). */
static tstamp_ns pss_tx_ns(const struct pss_sched *ps, uint32_t len_bytes)
{
	uint64_t bits_ns = (uint64_t)len_bytes * 8u * NS_PER_SEC;

	return (bits_ns + ps->capacity_bps / 2) / ps->capacity_bps;
}

/* The first loop of Algorithm 1 for controlled queue pq at `now`, into *a;
 * pq itself is not modified.  dtime is signed: timerDQ may lie in the
 * future when the real link ran faster than the nominal capacity. */
static void pss_age(const struct pss_sched *ps, const struct pss_queue *pq,
		    tstamp_ns now, struct pss_age *a)
{
	tstamp_ns timer = ps->started ? pq->timer_dq_ns : now;
	double dtime_ns = now >= timer ? (double)(now - timer)
				       : -(double)(timer - now);
	/* dtime·C·BW in bytes: ns · bit/s / (8 bit/byte · 1e9 ns/s) */
	double idle_bytes = dtime_ns * pq->idle_bps / (8.0 * NS_PER_SEC);

	a->credit_bytes = pq->credit_bytes;
	a->p = pq->p;
	a->timer_dq_ns = timer;
	a->updated = 0;
	a->drain_bytes = a->ahead_bytes = a->cut_bytes = a->floor_bytes = 0.0;

	if (dtime_ns > 0) {
		/* §2.3: below LR only while the queue has something to send;
		 * an empty queue keeps min(credit, LR) (trap 2, trap 7) */
		double floor_bytes = pq->q.head ? 0.0
				     : fmin(pq->credit_bytes, pq->lr_bytes);

		a->credit_bytes = fmax(pq->credit_bytes - idle_bytes,
				       floor_bytes);
		a->drain_bytes = idle_bytes;
		a->floor_bytes = a->credit_bytes -
				 (pq->credit_bytes - idle_bytes);
		a->timer_dq_ns = now;                           /* trap 1 */
		a->updated = 1;
		/* "reaches LR": <=, or LR = 0 never fires (trap 3) */
		if (a->credit_bytes <= pq->lr_bytes && pq->p == pq->p_low)
			a->p = pq->p_high;
	} else if (ps->idle_credit) {                           /* trap 5 */
		/* dtime <= 0: -dtime·C·BW >= 0 is added, clamped at LM, and
		 * no switch-back test (trap 6) */
		a->credit_bytes = fmin(pq->credit_bytes - idle_bytes,
				       pq->lm_bytes);
		a->ahead_bytes = -idle_bytes;
		a->cut_bytes = pq->credit_bytes - idle_bytes - a->credit_bytes;
		a->timer_dq_ns = now;
		a->updated = 1;
	}
}

/* The class the priority scheduler picks with the current priorities
 * prio[] (lines 19-20): the lowest number among non-empty queues, ties to
 * the lower class index.  -1 when everything is empty. */
static int pss_select(const struct pss_sched *ps, const unsigned prio[NCLASS])
{
	int c, best = -1;

	for (c = 0; c < NCLASS; c++)
		if (ps->q[c].q.head && (best < 0 || prio[c] < prio[best]))
			best = c;
	return best;
}

static void pss_trace(struct pss_sched *ps, int c, tstamp_ns now)
{
	const struct pss_queue *pq = &ps->q[c];

	if (!ps->trace)
		return;
	fprintf(ps->trace, "%llu.%09llu,%.3f,%u",
		(unsigned long long)(now / NS_PER_SEC),
		(unsigned long long)(now % NS_PER_SEC),
		pq->credit_bytes, pq->p);
	if (ps->ncontrolled > 1)
		fprintf(ps->trace, ",%s", cls_name[c]);
	fputc('\n', ps->trace);
}

static void pss_set_prio(struct pss_queue *pq, unsigned p)
{
	if (pq->p != p)
		pq->switches++;
	pq->p = p;
}

/* Lines 21-26: controlled queue c starts sending a packet of len_bytes at
 * `now`.  Runs at p_high and at p_low alike (trap 8). */
static void pss_charge(struct pss_sched *ps, int c, uint32_t len_bytes,
		       tstamp_ns now)
{
	struct pss_queue *pq = &ps->q[c];
	double raw_bytes = pq->credit_bytes + (double)len_bytes * (1.0 - pq->bw);

	pq->bal.sent += len_bytes;
	if (pq->p == pq->p_low)
		pq->bal.low += len_bytes;
	pq->credit_bytes = fmin(pq->lm_bytes, raw_bytes);
	pq->bal.cut += raw_bytes - pq->credit_bytes;
	pq->timer_dq_ns = now + pss_tx_ns(ps, len_bytes);
	if (pq->credit_bytes >= pq->lm_bytes && pq->p == pq->p_high)
		pss_set_prio(pq, pq->p_low);
	pss_trace(ps, c, now);
}

/* The first call fixes the time origin (the paper's timerDQ = 0). */
static void pss_start(struct pss_sched *ps, tstamp_ns now)
{
	int c;

	if (ps->started)
		return;
	for (c = 0; c < NCLASS; c++)
		ps->q[c].timer_dq_ns = now;
	ps->started = 1;
}

/* Takes ownership; never drops (the core enforced the class limit).  A
 * class outside the enum (a core bug) is served as CS0.  The credits are
 * not touched: Algorithm 1 updates them only when dequeuing. */
static void pss_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct pss_sched *ps = priv;

	pss_start(ps, now);
	pktq_push(&ps->q[stock_cls(p)].q, p);
}

/* Algorithm 1 at `now`, when the link is free: ages every controlled
 * credit, picks the best current priority, charges the credit of a
 * controlled sender.  NULL when every queue is empty (the credits are
 * aged all the same). */
static struct pkt *pss_dequeue(void *priv, tstamp_ns now)
{
	struct pss_sched *ps = priv;
	unsigned prio[NCLASS];
	struct pkt *p;
	int c;

	pss_start(ps, now);
	for (c = 0; c < NCLASS; c++) {
		struct pss_queue *pq = &ps->q[c];
		struct pss_age a;

		if (pq->controlled) {
			pss_age(ps, pq, now, &a);
			pq->credit_bytes = a.credit_bytes;
			pq->timer_dq_ns = a.timer_dq_ns;
			pq->bal.drain += a.drain_bytes;
			pq->bal.ahead += a.ahead_bytes;
			pq->bal.cut += a.cut_bytes;
			pq->bal.floor += a.floor_bytes;
			pss_set_prio(pq, a.p);
			if (a.updated)
				pss_trace(ps, c, now);
		}
		prio[c] = pq->p;
	}
	c = pss_select(ps, prio);
	if (c < 0)
		return NULL;
	p = pktq_pop(&ps->q[c].q);
	if (ps->q[c].controlled)
		pss_charge(ps, c, p->len_bytes, now);
	return p;
}

/* What pss_dequeue(now) would return, without changing anything: the
 * priorities are aged on copies. */
static const struct pkt *pss_peek(void *priv, tstamp_ns now)
{
	struct pss_sched *ps = priv;
	unsigned prio[NCLASS];
	int c;

	for (c = 0; c < NCLASS; c++) {
		struct pss_age a;

		prio[c] = ps->q[c].p;
		if (ps->q[c].controlled) {
			pss_age(ps, &ps->q[c], now, &a);
			prio[c] = a.p;
		}
	}
	c = pss_select(ps, prio);
	return c < 0 ? NULL : ps->q[c].q.head;
}

/* Class by class, EF first, each in arrival order; no policy. */
static struct pkt *pss_drain(void *priv)
{
	struct pss_sched *ps = priv;
	int c;

	for (c = 0; c < NCLASS; c++)
		if (ps->q[c].q.head)
			return pktq_pop(&ps->q[c].q);
	return NULL;
}

static void pss_destroy(void *priv)
{
	struct pss_sched *ps = priv;
	int c;

	for (c = 0; c < NCLASS; c++)
		pktq_purge(&ps->q[c].q);
	if (ps->trace) {
		int bad = ferror(ps->trace);

		/* fclose() flushes: its failure is a lost tail too */
		if (fclose(ps->trace) != 0 || bad)
			log_warn("pss: the credit trace is incomplete "
				 "(write error)");
		ps->trace = NULL;
	}
}

/* Sets up the queues from validated params.  Fails (-1, logged) when a
 * queue is controlled and there is no capacity (unlimited link without
 * `capacity`; parse reports that too), or the trace cannot be opened. */
static int pss_init(void *priv, const void *params,
		    const struct sched_env *env)
{
	const struct pss_params *pp = params;
	struct pss_sched *ps = priv;
	int c;

	ps->capacity_bps = pp->capacity_bps ? pp->capacity_bps
					     : env->capacity_bps;
	ps->idle_credit = pp->idle_credit;
	for (c = 0; c < NCLASS; c++) {
		const struct pss_qparams *qp = &pp->q[c];
		struct pss_queue *pq = &ps->q[c];

		pktq_init(&pq->q);
		pq->controlled = qp->controlled;
		pq->p_high = qp->p_high;
		pq->p_low = qp->p_low;
		pq->p = qp->p_high;     /* §2.2: starts at the high value */
		if (!qp->controlled)
			continue;
		ps->ncontrolled++;
		pq->bw = qp->bw;
		pq->lm_bytes = (double)qp->lm_bytes;
		pq->lr_bytes = (double)qp->lr_bytes;
		pq->credit_bytes = (double)qp->credit_init_bytes;
		pq->idle_bps = qp->bw * (double)ps->capacity_bps;
	}
	if (ps->ncontrolled && ps->capacity_bps == 0) {
		log_err("pss: the link is unlimited and scheduler.pss.capacity "
			"is not set: no capacity for the credit slopes");
		return -1;
	}
	if (pp->trace_path[0]) {
		ps->trace = fopen(pp->trace_path, "w");
		if (!ps->trace) {
			log_err("pss: trace %s: %s", pp->trace_path,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* ---- configuration ------------------------------------------------------ */

/* The credit keys of one controlled queue, at the top level (the default
 * of every controlled queue, into pss_params.top) and in queues.<class>
 * (into that queue's pss_qparams): one definition, two places. */
#define PSS_CREDIT_KEYS(T, pfx)                                              \
	{ .name = "bw", .type = CFG_T_NUMBER, .lo = 0, .hi = 1,              \
	  .flags = CFG_F_LO_OPEN | CFG_F_HI_OPEN, CFG_FIELD(T, pfx bw),   \
	  .def = "0.5", .unit = "a fraction of the capacity",                \
	  .help = "BW: the controlled queue's share of C (eq. 3)" },         \
	{ .name = "lm", .type = CFG_T_BYTES, .min = 1,                       \
	  .max = PSS_BYTES_MAX, CFG_FIELD(T, pfx lm_bytes), .def = "3000", \
	  .unit = "bytes",                                                   \
	  .help = "LM: the credit at which the queue drops to p_low (eq. 5)" }, \
	{ .name = "lr", .type = CFG_T_BYTES, .min = 0,                       \
	  .max = PSS_BYTES_MAX, CFG_FIELD(T, pfx lr_bytes), .def = "0",   \
	  .unit = "bytes", .help = "LR: the credit at which it returns to "  \
	  "p_high; below lm (2.1, 2.4, 4.2.1)" },                            \
	{ .name = "credit_init", .type = CFG_T_BYTES, .min = 0,              \
	  .max = PSS_BYTES_MAX, CFG_FIELD(T, pfx credit_init_bytes),      \
	  .def = "0", .unit = "bytes", .help = "the credit at start, at "     \
	  "most lm (the paper: 0; LR avoids the start-up starvation of CS0)" }

static const struct cfg_key pss_queue_table[] = {
	{ .name = "prio", .type = CFG_T_UINT, .min = 0, .max = PSS_PRIO_MAX,
	  .help = "a fixed priority (0 is served first); or p_high and p_low" },
	{ .name = "p_high", .type = CFG_T_UINT, .min = 0, .max = PSS_PRIO_MAX,
	  .help = "controlled: the priority while the credit is below LM" },
	{ .name = "p_low", .type = CFG_T_UINT, .min = 0, .max = PSS_PRIO_MAX,
	  .help = "controlled: the priority after LM, above p_high's number" },
	PSS_CREDIT_KEYS(struct pss_qparams, ),
	{ .name = NULL },
};

static const struct cfg_key pss_keys[] = {
	PSS_CREDIT_KEYS(struct pss_params, top.),
	{ .name = "capacity", .type = CFG_T_RATE,
	  CFG_FIELD(struct pss_params, capacity_bps), .def = "the link's mean",
	  .unit = "bit/s", .help = "C of the credit slopes (nominal, not C(t)); "
	  "required when the link is unlimited" },
	{ .name = "idle_credit", .type = CFG_T_BOOL,
	  CFG_FIELD(struct pss_params, idle_credit), .def = "true",
	  .help = "the dtime < 0 branch of 2.3 (false: Fig. 10a's variant)" },
	{ .name = "trace", .type = CFG_T_STRING,
	  CFG_FIELD(struct pss_params, trace_path), .def = "none",
	  .help = "a CSV file t_s,credit_bytes,prio, one line per credit "
	  "update, truncated at start and SIGHUP" },
	{ .name = "queues", .type = CFG_T_CUSTOM, .sub = pss_queue_table,
	  .sub_name = "class",
	  .def = "Fig. 2b", .help = "per class ef, af, cs0: prio, or p_high < "
	  "p_low with their own credit keys" },
	{ .name = NULL },
};

/* Where each credit parameter of a queue came from, for blaming the right
 * line when two of them disagree.  NULL: the built-in default. */
struct pss_origin {
	const config_setting_t *lm, *lr, *credit_init;
	int lm_local, lr_local, ci_local;       /* given in queues.<class> */
};

/* bw, lm, lr, credit_init of queues.<class> group grp into qp (values
 * present and valid replace qp's); records where they came from.  Returns
 * the error count; *bytes_bad tells whether lm, lr or credit_init was among
 * them (then their order is not checked: one mistake, one message). */
static int pss_parse_credit_keys(const config_setting_t *grp,
				 struct pss_qparams *qp,
				 struct pss_origin *o, int *bytes_bad,
				 struct diag *d)
{
	static const char *const names[] = { "lm", "lr", "credit_init" };
	const config_setting_t **where[] = { &o->lm, &o->lr, &o->credit_init };
	int *local[] = { &o->lm_local, &o->lr_local, &o->ci_local };
	int nerr, i, r;

	nerr = cfg_parse_key(grp, cfg_find_key(pss_queue_table, "bw"), qp,
			     d) < 0;
	*bytes_bad = 0;
	for (i = 0; i < 3; i++) {
		r = cfg_parse_key(grp, cfg_find_key(pss_queue_table, names[i]),
				  qp, d);
		*bytes_bad += r < 0;
		if (r != 0) {
			*where[i] = cfg_lookup(grp, names[i]);
			*local[i] = 1;
		}
	}
	return nerr + *bytes_bad;
}

/* lr < lm and credit_init <= lm for one queue.  The setting given at the
 * more specific level (queues.<class> over the top level, the top level
 * over a default) is the one blamed; between equals, lr or credit_init.
 * `top` is set for the top-level check; a per-queue check skips pairs
 * that are both top-level (already checked).  Returns the error count. */
static int pss_check_order(const struct pss_qparams *qp,
			   const struct pss_origin *o, int top,
			   struct diag *d)
{
	unsigned long long lm = qp->lm_bytes, lr = qp->lr_bytes;
	unsigned long long ci = qp->credit_init_bytes;
	int nerr = 0;

	if (lr >= lm && (top || o->lr_local || o->lm_local)) {
		if (o->lr && (o->lr_local || !o->lm_local))
			cfg_report(d, o->lr, NULL, "%llu is not below lm = "
				   "%llu (accepted: 0 <= lr < lm bytes)",
				   lr, lm);
		else
			cfg_report(d, o->lm, NULL, "%llu is not above lr = "
				   "%llu (accepted: lm > lr bytes)", lm, lr);
		nerr++;
	}
	if (ci > lm && (top || o->ci_local || o->lm_local)) {
		if (o->credit_init && (o->ci_local || !o->lm_local))
			cfg_report(d, o->credit_init, NULL, "%llu is above "
				   "lm = %llu (accepted: 0..lm bytes)", ci, lm);
		else
			cfg_report(d, o->lm, NULL, "%llu is below "
				   "credit_init = %llu (accepted: lm >= "
				   "credit_init bytes)", lm, ci);
		nerr++;
	}
	return nerr;
}

/* One member of `queues`.  qp holds the class's Fig. 2b role on entry and
 * `top` the top-level credit parameters; o the top-level origins.
 * Returns the error count. */
static int pss_parse_queue(const config_setting_t *cg,
			   struct pss_qparams *qp,
			   const struct pss_qparams *top,
			   struct pss_origin o, struct diag *d)
{
	static const char *const credit_keys[] = {
		"bw", "lm", "lr", "credit_init", NULL
	};
	const config_setting_t *ph_s, *pl_s;
	uint64_t prio = 0, ph = 0, pl = 0;
	char vb[128];
	int nerr, rp, rh, rl, i, bad = 0;

	nerr = cfg_check_table(cg, pss_queue_table, d);
	rp = cfg_uint(cg, "prio", 0, PSS_PRIO_MAX, &prio, d);
	rh = cfg_uint(cg, "p_high", 0, PSS_PRIO_MAX, &ph, d);
	rl = cfg_uint(cg, "p_low", 0, PSS_PRIO_MAX, &pl, d);
	nerr += (rp < 0) + (rh < 0) + (rl < 0);
	ph_s = config_setting_get_member(cg, "p_high");
	pl_s = config_setting_get_member(cg, "p_low");

	if (rp != 0 && (ph_s || pl_s)) {
		cfg_report(d, ph_s ? ph_s : pl_s, NULL, "%s given together "
			   "with prio (accepted: either prio, or p_high and "
			   "p_low)", cfg_describe(ph_s ? ph_s : pl_s, vb,
						  sizeof(vb)));
		return nerr + 1;
	}
	if (!ph_s != !pl_s) {
		cfg_report(d, cg, ph_s ? "p_low" : "p_high", "missing "
			   "(accepted: p_high and p_low together, "
			   "p_high < p_low)");
		return nerr + 1;
	}
	if (rp < 0 || rh < 0 || rl < 0)
		return nerr;
	if (rh > 0 && ph >= pl) {
		cfg_report(d, ph_s, NULL, "%llu is not below p_low = %llu "
			   "(accepted: p_high < p_low, a lower number is a "
			   "higher priority; prio for a fixed queue)",
			   (unsigned long long)ph, (unsigned long long)pl);
		return nerr + 1;
	}

	if (rp > 0) {
		memset(qp, 0, sizeof(*qp));
		qp->p_high = qp->p_low = (uint8_t)prio;
	} else if (rh > 0) {
		int was = qp->controlled;

		qp->controlled = 1;
		qp->p_high = (uint8_t)ph;
		qp->p_low = (uint8_t)pl;
		if (!was) {
			/* a queue made controlled starts from the top level */
			qp->bw = top->bw;
			qp->lm_bytes = top->lm_bytes;
			qp->lr_bytes = top->lr_bytes;
			qp->credit_init_bytes = top->credit_init_bytes;
		}
	}

	if (!qp->controlled) {
		for (i = 0; credit_keys[i]; i++) {
			const config_setting_t *s =
				config_setting_get_member(cg, credit_keys[i]);

			if (!s)
				continue;
			cfg_report(d, s, NULL, "%s given for a fixed-priority "
				   "queue (accepted: bw, lm, lr, credit_init "
				   "only with p_high and p_low)",
				   cfg_describe(s, vb, sizeof(vb)));
			bad++;
		}
		return nerr + bad;
	}
	nerr += pss_parse_credit_keys(cg, qp, &o, &bad, d);
	if (bad)
		return nerr;
	return nerr + pss_check_order(qp, &o, 0, d);
}

/* The `queues` group over the Fig. 2b roles in pp.  Returns the error
 * count. */
static int pss_parse_queues(const config_setting_t *qs, struct pss_params *pp,
			    const struct pss_qparams *top,
			    const struct pss_origin *o, struct diag *d)
{
	static const char *const names[] = { "ef", "af", "cs0", NULL };
	int nerr, c;

	nerr = cfg_check_keys(qs, names, d);    /* also: not a group */
	if (!config_setting_is_group(qs))
		return nerr;
	for (c = 0; c < NCLASS; c++) {
		const config_setting_t *cg =
			config_setting_get_member(qs, cls_name[c]);

		if (!cg)
			continue;
		if (!config_setting_is_group(cg))
			nerr += cfg_check_table(cg, pss_queue_table, d);
		else
			nerr += pss_parse_queue(cg, &pp->q[c], top, *o, d);
	}
	return nerr;
}

/* Fig. 2b: EF 0, AF 1 <-> 3 with the top-level credit parameters, CS0 2. */
static void pss_defaults(void *params, const struct sched_env *env)
{
	struct pss_params *pp = params;
	struct pss_qparams *af = &pp->q[CLS_AF];

	memset(pp, 0, sizeof(*pp));
	pp->q[CLS_EF].p_high = pp->q[CLS_EF].p_low = 0;
	pp->q[CLS_CS0].p_high = pp->q[CLS_CS0].p_low = 2;
	af->controlled = 1;
	af->p_high = 1;
	af->p_low = 3;
	af->bw = PSS_DEFAULT_BW;
	af->lm_bytes = PSS_DEFAULT_LM_BYTES;
	af->lr_bytes = 0;
	af->credit_init_bytes = 0;
	pp->capacity_bps = 0;
	pp->env_capacity_bps = env ? env->capacity_bps : 0;
	pp->idle_credit = 1;
	pp->trace_path[0] = '\0';
	pp->top = *af;
}

/* The meaning of scheduler.pss's keys together, after the table put the
 * top-level ones in pp->top: lr < lm and credit_init <= lm, the queues
 * group over the Fig. 2b roles (AF takes the top-level credit keys), and a
 * capacity for the credit slopes.  grp may be NULL (pss selected without
 * a group).  Returns the error count. */
static int pss_check(const struct config_setting_t *grp, void *params,
		     const struct cfg_status *st, struct diag *d)
{
	static const char *const credit[] = { "lm", "lr", "credit_init" };
	struct pss_params *pp = params;
	struct pss_origin o;
	const config_setting_t *qs;
	const config_setting_t **where[] = { &o.lm, &o.lr, &o.credit_init };
	int nerr = 0, c, i, bad = 0, controlled = 0;

	memset(&o, 0, sizeof(o));
	for (i = 0; i < 3; i++) {
		bad += cfg_status_of(st, credit[i]) < 0;
		if (cfg_status_of(st, credit[i]))
			*where[i] = cfg_lookup(grp, credit[i]);
	}
	if (grp && !bad)
		nerr += pss_check_order(&pp->top, &o, 1, d);
	pp->q[CLS_AF] = pp->top;
	qs = cfg_lookup(grp, "queues");
	if (qs)
		nerr += pss_parse_queues(qs, pp, &pp->top, &o, d);

	for (c = 0; c < NCLASS; c++)
		controlled += pp->q[c].controlled;
	if (controlled && !pp->capacity_bps && !pp->env_capacity_bps) {
		if (grp)
			cfg_report(d, grp, "capacity", PSS_CAPACITY_MISSING);
		else    /* no group: the line that selected pss (diag.h) */
			diag_error(d, 0, "scheduler.pss.capacity",
				   PSS_CAPACITY_MISSING);
		nerr++;
	}
	return nerr;
}

/* A running total of bytes as a counter: rounded to the byte, so that
 * the deltas jw_counter() prints add up to the total. */
static uint64_t pss_total(double bytes)
{
	return bytes > 0.0 ? (uint64_t)llround(bytes) : 0u;
}

/* "af": {"credit": bytes, "prio": p, "switches": n, the balance's byte
 * counters} per controlled class (the head comment). */
static void pss_dump_stats(void *priv, struct jw *w)
{
	struct pss_sched *ps = priv;
	int c;

	for (c = 0; c < NCLASS; c++) {
		const struct pss_queue *pq = &ps->q[c];

		if (!pq->controlled)
			continue;
		jw_obj_begin(w, cls_name[c]);
		jw_double(w, "credit", pq->credit_bytes, 1);
		jw_u64(w, "prio", pq->p);
		jw_counter(w, "switches", pq->switches);
		jw_counter(w, "sent_bytes", pss_total(pq->bal.sent));
		jw_counter(w, "low_bytes", pss_total(pq->bal.low));
		jw_counter(w, "drain_bytes", pss_total(pq->bal.drain));
		jw_counter(w, "ahead_bytes", pss_total(pq->bal.ahead));
		jw_counter(w, "cut_bytes", pss_total(pq->bal.cut));
		jw_counter(w, "floor_bytes", pss_total(pq->bal.floor));
		jw_obj_end(w);
	}
}

const struct sched_ops sched_pss_ops = {
	.name        = "pss",
	.summary     = "priority switching: EF 0, AF 1 <-> 3 by credit, CS0 2 "
		       "(Finzi 2023)",
	.params_size = sizeof(struct pss_params),
	.priv_size   = sizeof(struct pss_sched),
	.defaults    = pss_defaults,
	.keys        = pss_keys,
	.check       = pss_check,
	.init        = pss_init,
	.destroy     = pss_destroy,
	.enqueue     = pss_enqueue,
	.dequeue     = pss_dequeue,
	.peek        = pss_peek,
	.next_event  = stock_next_event_never,
	.drain       = pss_drain,
	.dump_stats  = pss_dump_stats,
};
