/* test_pss.c - the PSS scheduler (src/sched/pss.c) on a virtual clock.
 *
 * Every expected credit below is computed by hand from Algorithm 1 of the
 * paper with the §2.3 changes, in the units of pss.c:
 *   the link is C = 8 Mbit/s = 1000 bytes per ms, so a 1000-byte packet
 *   takes 1 ms; with bw = 0.25
 *     idle slope  C·BW       = 250 bytes of credit lost per ms not sending,
 *     send charge size·(1-BW) = 750 bytes for a 1000-byte packet
 *                              (300 for 400 bytes, 75 for 100 bytes).
 * The "link" is the test: it calls dequeue exactly when the previous
 * packet's serialisation at C ends (or earlier, to play a faster link).
 * The credit and priority are read back through dump_stats, as the daemon
 * prints them.  Runs in tests/unit (fixtures under data/pss/).
 */
#include <libconfig.h>
#include <math.h>
#include <stdalign.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf/conf.h"
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "testutil.h"

extern const struct sched_ops sched_pss_ops;

#define D        "data/pss/"
#define MS       NS_PER_MS
#define US       NS_PER_US
#define POOL     256u
#define RATE_ACC "(accepted: a number > 0 with bit, kbit, mbit, gbit, " \
	"tbit, kibit..tibit, or bps, kbps, mbps, gbps, tbps, kibps..tibps = " \
	"bytes/s as in tc; a plain number is bit/s)"
#define BW_ACC   "(accepted: 0 < bw < 1, a fraction of the capacity)"

static struct sched_env env;
static const char *watch = "af";        /* the class whose credit we read */

/* PSS never drops (the core enforces the class limits): tu_drop counts
 * any drop and the teardown fails the test on one. */
static int setup(void **state)
{
	(void)state;
	watch = "af";
	tu_sched_env(&env, 8000000);    /* 1000 bytes = 1 ms */
	return tu_pool_init(POOL, 1500);
}

/* ---- helpers ------------------------------------------------------------ */

/* Parses `pss = { <body> }` with the real parser (no error allowed) into
 * params, after the defaults for env. */
static void make_params(const char *body, void *params)
{
	tu_sched_params(&sched_pss_ops, body, &env, params);
}

static void create(struct sched *s, const char *body)
{
	tu_sched_create(s, &sched_pss_ops, body, &env);
}

/* n packets of class cls and len bytes, enqueued at `now`. */
static void enq(struct sched *s, enum pkt_class cls, uint32_t len, int n,
		tstamp_ns now)
{
	while (n-- > 0) {
		struct pkt *p = tu_pkt(cls, len, 0);

		p->enq_ns = now;
		sched_enqueue(s, p, now);
	}
}

/* Reads class `name`'s {"credit", "prio", "switches"} from dump_stats;
 * 0 when the class is not in the stats (not controlled). */
static int state_of(struct sched *s, const char *name, double *credit,
		    unsigned *prio, unsigned *switches)
{
	const char *buf = tu_sched_stats(s), *at;
	char key[32];

	snprintf(key, sizeof(key), "\"%s\": {", name);
	at = strstr(buf, key);
	if (!at)
		return 0;
	at += strlen(key);
	if (sscanf(at, "\"credit\": %lf, \"prio\": %u, \"switches\": %u,",
		   credit, prio, switches) != 3)
		fail_msg("unexpected stats: %s", buf);
	return 1;
}

/* The watched class's state must be (credit, prio). */
static void check_state(struct sched *s, double credit, unsigned prio,
			int line)
{
	double c;
	unsigned p, sw;

	if (!state_of(s, watch, &c, &p, &sw))
		fail_msg("line %d: %s is not controlled", line, watch);
	if (fabs(c - credit) > 1e-6 || p != prio)
		fail_msg("line %d: %s credit %.3f prio %u, expected %.3f "
			 "prio %u", line, watch, c, p, credit, prio);
}
#define STATE(s, credit, prio) check_state(s, credit, prio, __LINE__)

/* Dequeues at `now`; the packet must be of class cls (-1: none) and peek
 * must have announced it; then the watched state must be (credit, prio). */
static void step(struct sched *s, tstamp_ns now, int cls, double credit,
		 unsigned prio, int line)
{
	const struct pkt *peeked = s->ops->peek(s->priv, now);
	struct pkt *p = sched_dequeue(s, now);

	if (cls < 0) {
		if (p || peeked)
			fail_msg("line %d: got a packet of class %d", line,
				 p ? p->cls : -1);
	} else {
		if (!p)
			fail_msg("line %d: no packet, expected class %d", line,
				 cls);
		if (p->cls != cls)
			fail_msg("line %d: class %d, expected %d", line, p->cls,
				 cls);
		if (peeked != p)
			fail_msg("line %d: peek announced another packet",
				 line);
		pkt_free(p);
	}
	check_state(s, credit, prio, line);
}
#define STEP(s, now, cls, credit, prio) \
	step(s, now, cls, credit, prio, __LINE__)

/* Counter `key` of class `name` in dump_stats (running totals: the test
 * dumps without a jw memo). */
static double counter_of(struct sched *s, const char *name, const char *key)
{
	const char *buf = tu_sched_stats(s), *at;
	char pat[48];
	double v;

	snprintf(pat, sizeof(pat), "\"%s\": {", name);
	at = strstr(buf, pat);
	if (!at)
		fail_msg("%s not in the stats: %s", name, buf);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	at = strstr(at, pat);
	if (!at || sscanf(at + strlen(pat), "%lf", &v) != 1)
		fail_msg("%s.%s not in the stats: %s", name, key, buf);
	return v;
}

/* The balance counters of class `name` must be the hand-worked ones, and
 * add up to the change of credit since credit0 (the head comment of
 * pss.c): (1 - bw) sent - drain + ahead - cut + floor. */
static void check_balance(struct sched *s, const char *name, double bw,
			  double credit0, const double want[6], int line)
{
	static const char *const keys[6] = { "sent_bytes", "low_bytes",
		"drain_bytes", "ahead_bytes", "cut_bytes", "floor_bytes" };
	double got[6], credit;
	unsigned prio, sw;
	int i;

	for (i = 0; i < 6; i++) {
		got[i] = counter_of(s, name, keys[i]);
		if (fabs(got[i] - want[i]) > 0.5)
			fail_msg("line %d: %s.%s = %.0f, expected %.0f", line,
				 name, keys[i], got[i], want[i]);
	}
	assert_true(state_of(s, name, &credit, &prio, &sw));
	if (fabs((1.0 - bw) * got[0] - got[2] + got[3] - got[4] + got[5] -
		 (credit - credit0)) > 3.0)
		fail_msg("line %d: %s's balance does not add up to its credit "
			 "change %.3f", line, name, credit - credit0);
}
#define BALANCE(s, name, bw, credit0, ...) do {				\
		const double want_[6] = { __VA_ARGS__ };		\
		check_balance(s, name, bw, credit0, want_, __LINE__);	\
	} while (0)

static unsigned switches_of(struct sched *s, const char *name)
{
	double c;
	unsigned p, sw;

	assert_true(state_of(s, name, &c, &p, &sw));
	return sw;
}

/* ---- 1. the switching cycle, LR = 0 ------------------------------------ */

/* AF and CS0 always backlogged, bw 0.25, LM 1500, LR 0.  AF sends while
 * its credit climbs 0 -> 750 -> 1500 = LM (switch to p_low 3), CS0 (2)
 * sends while it falls 1500 -> 1250 -> ... -> 0, and at 0 = LR the switch
 * back fires (credit <= LR; a strict < would leave AF at 3 for ever). */
static void test_cycle_lr0(void **state)
{
	struct sched s;
	int cycle;

	(void)state;
	create(&s, "bw = 0.25; lm = 1500; lr = 0;");
	STATE(&s, 0, 1);                        /* §2.1: starts at 0, p_high */
	enq(&s, CLS_AF, 1000, 20, 0);
	enq(&s, CLS_CS0, 1000, 20, 0);

	for (cycle = 0; cycle < 2; cycle++) {
		tstamp_ns t0 = (tstamp_ns)cycle * 8 * MS;

		/* t0: dtime = 0 at the origin, 0 + 750.  (In cycle 1 the
		 * packet at t0 = 8 ms was the last step of cycle 0.) */
		if (cycle == 0)
			STEP(&s, t0, CLS_AF, 750, 1);
		/* +1 ms: dtime = 0, 750 + 750 = 1500 >= LM -> p_low */
		STEP(&s, t0 + 1 * MS, CLS_AF, 1500, 3);
		/* +2 ms: dtime = 0 (AF's timerDQ = t0 + 2 ms): 1500; CS0's
		 * 2 beats AF's 3 */
		STEP(&s, t0 + 2 * MS, CLS_CS0, 1500, 3);
		/* each further ms of CS0: dtime = 1 ms, AF non-empty:
		 * max(credit - 250, 0) */
		STEP(&s, t0 + 3 * MS, CLS_CS0, 1250, 3);
		STEP(&s, t0 + 4 * MS, CLS_CS0, 1000, 3);
		STEP(&s, t0 + 5 * MS, CLS_CS0, 750, 3);
		STEP(&s, t0 + 6 * MS, CLS_CS0, 500, 3);
		STEP(&s, t0 + 7 * MS, CLS_CS0, 250, 3);
		/* +8 ms: 250 - 250 = 0 <= LR = 0 and p = p_low -> p_high 1;
		 * AF sends: 0 + 750 */
		STEP(&s, t0 + 8 * MS, CLS_AF, 750, 1);
	}
	/* t = 16 ms was the third cycle's first AF packet; finish it */
	STEP(&s, 17 * MS, CLS_AF, 1500, 3);
	/* switches: 1 ms (->3), 8 ms (->1), 9 ms (->3), 16 ms (->1),
	 * 17 ms (->3) */
	assert_int_equal(switches_of(&s, "af"), 5);
	/* AF got 2 packets in 8 ms = 0.25 of C: BW */
	/* 6 AF packets sent, none at p_low (CS0 always there); drained 6
	 * ms x 250 per cycle (3..8 ms; the 2-ms step has dtime 0) twice;
	 * nothing cut, nothing kept: 0.75 x 6000 - 3000 = 1500 = the credit */
	BALANCE(&s, "af", 0.25, 0, 6000, 0, 3000, 0, 0, 0);
	sched_destroy(&s);              /* frees the 20 + 20 - 18 left */
}

/* ---- 2. the LM clamp ----------------------------------------------------- */

static void test_lm_clamp(void **state)
{
	struct sched s;

	(void)state;
	/* bw 0.25, LM 1000: one 1500-byte AF packet alone would add
	 * 1500·0.75 = 1125 > LM.  1500 bytes take 1.5 ms at C. */
	create(&s, "bw = 0.25; lm = 1000;");
	enq(&s, CLS_AF, 1500, 4, 0);
	/* t 0: min(1000, 0 + 1125) = 1000 = LM -> p_low 3 */
	STEP(&s, 0, CLS_AF, 1000, 3);
	/* t 1.5 ms: dtime 0; AF alone, sends at p_low: min(1000, 2125) */
	STEP(&s, 1500 * US, CLS_AF, 1000, 3);
	/* t 2 ms: early (timerDQ 3 ms), dtime = -1 ms: the dtime < 0 branch
	 * adds 250, min(1250, 1000) = 1000; then the charge: 1000 again */
	STEP(&s, 2 * MS, CLS_AF, 1000, 3);
	/* t 3.5 ms = timerDQ: dtime 0 */
	STEP(&s, 3500 * US, CLS_AF, 1000, 3);
	assert_int_equal(switches_of(&s, "af"), 1);
	/* 10 ms, empty: timerDQ was 5 ms, dtime 5 ms: 1000 - 1250 below the
	 * floor min(1000, LR = 0) = 0 -> 0 <= LR: p_low -> p_high */
	STEP(&s, 10 * MS, -1, 0, 1);
	/* the balance: 4 x 1500 sent, the last 3 at p_low (AF alone);
	 * cut: 125 (t 0), 1125 (t 1.5), 250 of the dtime < 0 branch's 250
	 * and 1125 (t 2), 1125 (t 3.5); drained 5 ms x 250 = 1250 of which
	 * the floor 0 kept 250; 0.75 x 6000 - 1250 + 250 - 3750 + 250 = 0 */
	BALANCE(&s, "af", 0.25, 0, 6000, 4500, 1250, 250, 3750, 250);
	sched_destroy(&s);
}

/* ---- 3. §2.3: the empty-queue floor min(credit, LR) -------------------- */

static void test_empty_floor(void **state)
{
	struct sched s;

	(void)state;
	create(&s, "bw = 0.25; lm = 3000; lr = 1000;");
	enq(&s, CLS_AF, 1000, 4, 0);
	/* AF alone: 750, 1500, 2250, 3000 = LM -> p_low; timerDQ 4 ms */
	STEP(&s, 0, CLS_AF, 750, 1);
	STEP(&s, 1 * MS, CLS_AF, 1500, 1);
	STEP(&s, 2 * MS, CLS_AF, 2250, 1);
	STEP(&s, 3 * MS, CLS_AF, 3000, 3);
	/* 8 ms, all empty: dtime 4 ms, 3000 - 1000 = 2000 above the floor
	 * min(3000, 1000) = 1000: 2000, still above LR, stays p_low */
	STEP(&s, 8 * MS, -1, 2000, 3);
	/* 20 ms: dtime 12 ms, 2000 - 3000 = -1000 -> floor min(2000, 1000) =
	 * 1000: it falls to LR, reaches it (<=) -> p_high */
	STEP(&s, 20 * MS, -1, 1000, 1);
	/* 100 ms: dtime 80 ms (-20000) -> floor min(1000, 1000): stops at LR */
	STEP(&s, 100 * MS, -1, 1000, 1);

	/* bring it below LR: EF starves a waiting AF packet (non-empty: the
	 * floor is 0) */
	enq(&s, CLS_EF, 1000, 2, 100 * MS);
	enq(&s, CLS_AF, 100, 1, 100 * MS);
	STEP(&s, 100 * MS, CLS_EF, 1000, 1);   /* dtime 0 */
	STEP(&s, 101 * MS, CLS_EF, 750, 1);    /* 1000 - 250 */
	/* 102 ms: 750 - 250 = 500; AF's 100 bytes: 500 + 75 = 575;
	 * timerDQ = 102.1 ms */
	STEP(&s, 102 * MS, CLS_AF, 575, 1);
	/* 200 ms, AF empty: floor min(575, 1000) = 575: a credit already
	 * below LR stays where it is (not raised to LR, not lowered) */
	STEP(&s, 200 * MS, -1, 575, 1);
	STEP(&s, 250 * MS, -1, 575, 1);
	/* 300 ms, AF non-empty (EF first): dtime 50 ms, max(575 - 12500, 0)
	 * = 0: with a waiting packet the credit goes below LR, to 0 */
	enq(&s, CLS_EF, 1000, 1, 300 * MS);
	enq(&s, CLS_AF, 1000, 1, 300 * MS);
	STEP(&s, 300 * MS, CLS_EF, 0, 1);
	/* 301 ms: max(0 - 250, 0) = 0; AF sends: 750 */
	STEP(&s, 301 * MS, CLS_AF, 750, 1);
	assert_int_equal(switches_of(&s, "af"), 2);
	sched_destroy(&s);
}

/* ---- 4. the dtime < 0 branch -------------------------------------------- */

/* AF alone, 1000-byte packets, dequeued every 0.5 ms: the real link runs
 * at twice the nominal C, so each dequeue comes 0.5 ms before timerDQ.
 * dtime = -0.5 ms and credit - dtime·C·BW = credit + 0.5·250 = +125. */
static void test_negative_dtime(void **state)
{
	struct sched s;

	(void)state;
	create(&s, "bw = 0.25; lm = 3000; lr = 0;");
	enq(&s, CLS_AF, 1000, 5, 0);
	STEP(&s, 0, CLS_AF, 750, 1);           /* dtime 0: 0 + 750; timer 1 */
	STEP(&s, 500 * US, CLS_AF, 1625, 1);   /* 750 + 125 + 750; timer 1.5 */
	STEP(&s, 1000 * US, CLS_AF, 2500, 1);  /* 1625 + 125 + 750 */
	/* 2500 + 125 + 750 = 3375 -> LM 3000 -> p_low */
	STEP(&s, 1500 * US, CLS_AF, 3000, 3);
	/* dtime < 0: min(3000 + 125, LM) = 3000, the branch's clamp at LM;
	 * AF still sends (CS0 empty) */
	STEP(&s, 2000 * US, CLS_AF, 3000, 3);
	/* The branch does not test the switch back to p_high (trap 6).  That
	 * cannot be observed: at p_low the credit only falls when dtime > 0,
	 * where the test is made, so credit <= LR at p_low never meets this
	 * branch.  Covered by reading pss_age(). */
	sched_destroy(&s);

	/* idle_credit = false: the branch is off, dtime < 0 leaves the
	 * credit alone: only the charges count */
	create(&s, "bw = 0.25; lm = 3000; lr = 0; idle_credit = false;");
	enq(&s, CLS_AF, 1000, 5, 0);
	STEP(&s, 0, CLS_AF, 750, 1);
	STEP(&s, 500 * US, CLS_AF, 1500, 1);   /* 750 + 750 */
	STEP(&s, 1000 * US, CLS_AF, 2250, 1);
	STEP(&s, 1500 * US, CLS_AF, 3000, 3);  /* 3000 = LM -> p_low */
	STEP(&s, 2000 * US, CLS_AF, 3000, 3);  /* min(3750, LM) */
	/* dtime > 0 still works: the last charge set timerDQ = 2 + 1 = 3 ms;
	 * at 6.5 ms dtime 3.5 ms (875 bytes), AF empty, LR 0:
	 * max(3000 - 875, min(3000, 0)) = 2125, above LR: stays p_low */
	STEP(&s, 6500 * US, -1, 2125, 3);
	sched_destroy(&s);
}

/* ---- 5. credit is earned at p_low too ---------------------------------- */

static void test_credit_at_p_low(void **state)
{
	struct sched s;

	(void)state;
	create(&s, "bw = 0.25; lm = 1500; lr = 0;");
	enq(&s, CLS_AF, 1000, 2, 0);
	enq(&s, CLS_AF, 400, 1, 0);
	enq(&s, CLS_CS0, 1000, 2, 0);
	STEP(&s, 0, CLS_AF, 750, 1);
	STEP(&s, 1 * MS, CLS_AF, 1500, 3);     /* LM -> p_low */
	STEP(&s, 2 * MS, CLS_CS0, 1500, 3);    /* dtime 0 */
	STEP(&s, 3 * MS, CLS_CS0, 1250, 3);    /* 1500 - 250 */
	/* 4 ms: 1250 - 250 = 1000 (> LR: stays p_low); CS0 is empty, so AF
	 * sends at p_low 3, and is charged: 1000 + 400·0.75 = 1300 */
	STEP(&s, 4 * MS, CLS_AF, 1300, 3);
	/* 4.4 ms = timerDQ, dtime 0: 1300 kept; a CS0 arrival goes first */
	enq(&s, CLS_CS0, 1000, 1, 4400 * US);
	STEP(&s, 4400 * US, CLS_CS0, 1300, 3);
	assert_int_equal(switches_of(&s, "af"), 1);
	sched_destroy(&s);
}

/* ---- 6. EF first, whatever AF's priority -------------------------------- */

static void test_ef_first(void **state)
{
	struct sched s;

	(void)state;
	create(&s, "bw = 0.25; lm = 1500; lr = 0;");
	enq(&s, CLS_AF, 1000, 4, 0);
	enq(&s, CLS_CS0, 1000, 2, 0);
	enq(&s, CLS_EF, 1000, 1, 0);
	/* AF at p_high 1: EF (0) first; dtime 0, credit 0 */
	STEP(&s, 0, CLS_EF, 0, 1);
	/* dtime 1 ms, AF waiting: max(0 - 250, 0) = 0; AF: 750 */
	STEP(&s, 1 * MS, CLS_AF, 750, 1);
	STEP(&s, 2 * MS, CLS_AF, 1500, 3);
	/* AF at p_low 3: an EF packet that arrived meanwhile still goes
	 * first, before CS0 (2) */
	enq(&s, CLS_EF, 1000, 1, 2500 * US);
	STEP(&s, 3 * MS, CLS_EF, 1500, 3);     /* dtime 0 */
	STEP(&s, 4 * MS, CLS_CS0, 1250, 3);
	/* 2 AF and 1 CS0 still queued: destroy returns them to the pool */
	sched_destroy(&s);
}

/* ---- 7. credit_init, the time origin, the general form ------------------ */

static void test_credit_init_and_origin(void **state)
{
	const tstamp_ns t0 = 5 * NS_PER_SEC;    /* the clock is not 0 at start,
						 * as CLOCK_MONOTONIC is not */
	struct sched s;

	(void)state;
	create(&s, "bw = 0.25; lm = 1500; lr = 0; credit_init = 1200;");
	STATE(&s, 1200, 1);
	enq(&s, CLS_AF, 1000, 2, t0);
	enq(&s, CLS_CS0, 1000, 2, t0);
	/* the origin is the first call (t0), not 0: dtime 0, so 1200 is kept
	 * (from 0 it would have decayed 5 s worth, to 0 with AF waiting);
	 * 1200 + 750 -> LM 1500 -> p_low after one packet */
	STEP(&s, t0, CLS_AF, 1500, 3);
	STEP(&s, t0 + 1 * MS, CLS_CS0, 1500, 3);
	STEP(&s, t0 + 2 * MS, CLS_CS0, 1250, 3);
	sched_destroy(&s);
}

static struct conf g_conf;      /* big: off the stack */

static void create_from_file(struct sched *s, const char *path)
{
	struct sched_env fenv;

	tu_conf_load_ok(path, &g_conf);
	assert_ptr_equal(g_conf.sched, &sched_pss_ops);
	conf_sched_env(&g_conf, &fenv);
	assert_int_equal(fenv.capacity_bps, 8000000);
	fenv.drop = tu_drop;
	assert_int_equal(sched_create(s, g_conf.sched, g_conf.sched_params,
				      &fenv), 0);
	conf_free(&g_conf);
}

/* queues = { af = { prio = 2; }; cs0 = { p_high = 1; p_low = 3; }; }:
 * CS0 takes AF's role of test 1, AF is fixed at 2. */
static void test_general_cs0(void **state)
{
	struct sched s;
	double c;
	unsigned p, sw;

	(void)state;
	create_from_file(&s, D "general_cs0.conf");
	watch = "cs0";
	assert_false(state_of(&s, "af", &c, &p, &sw));  /* fixed: no entry */
	enq(&s, CLS_AF, 1000, 10, 0);
	enq(&s, CLS_CS0, 1000, 10, 0);
	STEP(&s, 0, CLS_CS0, 750, 1);
	STEP(&s, 1 * MS, CLS_CS0, 1500, 3);
	STEP(&s, 2 * MS, CLS_AF, 1500, 3);
	STEP(&s, 3 * MS, CLS_AF, 1250, 3);
	STEP(&s, 4 * MS, CLS_AF, 1000, 3);
	STEP(&s, 5 * MS, CLS_AF, 750, 3);
	STEP(&s, 6 * MS, CLS_AF, 500, 3);
	STEP(&s, 7 * MS, CLS_AF, 250, 3);
	STEP(&s, 8 * MS, CLS_CS0, 750, 1);     /* 0 <= LR: back to 1 */
	STEP(&s, 9 * MS, CLS_CS0, 1500, 3);
	sched_destroy(&s);
}

/* queues.af with its own bw/lm/lr (the top-level 0.5/9000/100 would give
 * other numbers) and p_high 0, tied with EF's 0: the tie goes to EF. */
static void test_general_af_own_params(void **state)
{
	struct sched s;

	(void)state;
	create_from_file(&s, D "general_af.conf");
	enq(&s, CLS_EF, 1000, 1, 0);
	enq(&s, CLS_AF, 1000, 3, 0);
	enq(&s, CLS_CS0, 1000, 2, 0);
	STEP(&s, 0, CLS_EF, 0, 0);             /* tie at 0: class order */
	STEP(&s, 1 * MS, CLS_AF, 750, 0);      /* max(0 - 250, 0) + 750 */
	STEP(&s, 2 * MS, CLS_AF, 1500, 3);     /* LM 1500 -> p_low 3 */
	STEP(&s, 3 * MS, CLS_CS0, 1500, 3);
	STEP(&s, 4 * MS, CLS_CS0, 1250, 3);
	/* CS0 empty: AF at p_low, 1250 - 250 + 750 = 1750 -> 1500 */
	STEP(&s, 5 * MS, CLS_AF, 1500, 3);
	sched_destroy(&s);
}

/* ---- drain, next_event, destroy ----------------------------------------- */

static void test_drain_next_event(void **state)
{
	static const struct { enum pkt_class cls; uint32_t len; } in[] = {
		{ CLS_CS0, 101 }, { CLS_AF, 201 }, { CLS_EF, 301 },
		{ CLS_AF, 202 }, { CLS_CS0, 102 }, { CLS_EF, 302 },
	};
	static const uint32_t out[] = { 301, 302, 201, 202, 101, 102 };
	struct sched s;
	struct pkt *p;
	size_t i;

	(void)state;
	create(&s, "");
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		enq(&s, in[i].cls, in[i].len, 1, 0);
	assert_true(sched_next_event(&s, 0) == TS_NEVER);
	/* per class in arrival order, EF first */
	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		p = s.ops->drain(s.priv);
		assert_non_null(p);
		assert_int_equal(p->len_bytes, out[i]);
		pkt_free(p);
	}
	assert_null(s.ops->drain(s.priv));
	assert_null(sched_dequeue(&s, 0));
	assert_true(sched_next_event(&s, 0) == TS_NEVER);
	/* defaults: bw 0.5, lm 3000: one 1000-byte AF packet earns 500 */
	enq(&s, CLS_AF, 1000, 1, 0);
	STEP(&s, 0, CLS_AF, 500, 1);
	sched_destroy(&s);
	sched_destroy(&s);      /* safe twice */
}

/* ---- 8. parse ----------------------------------------------------------- */

static void test_parse_keys(void **state)
{
	(void)state;
	tu_conf_expect_file(D "keys_bad.conf", &g_conf, 8);
	/* checked even when another scheduler is selected */
	tu_conf_expect_file(D "bw_bad.conf", &g_conf, 1);
	tu_conf_expect_file(D "bw_zero.conf", &g_conf, 3);
}

static void test_parse_order(void **state)
{
	(void)state;
	tu_conf_expect_file(D "order_bad.conf", &g_conf, 2);
	/* against the default lm, 3000 */
	tu_conf_expect_file(D "order_default_lm.conf", &g_conf, 2);
}

static void test_parse_queues(void **state)
{
	(void)state;
	tu_conf_expect_file(D "queues_bad.conf", &g_conf, 4);
	/* cs0 made controlled starts from the top level (lr 1000,
	 * credit_init 2000); its own lm 500 is the value blamed */
	tu_conf_expect_file(D "queues_bad2.conf", &g_conf, 4);
	tu_conf_expect_file(D "queues_bad3.conf", &g_conf, 4);
	/* classes are checked in class order EF, AF, CS0 */
	tu_conf_expect_file(D "queues_bad4.conf", &g_conf, 3);
	tu_conf_expect_file(D "queues_type.conf", &g_conf, 1);
}

static void test_parse_capacity(void **state)
{
	alignas(16) unsigned char params[SCHED_PARAMS_MAX];
	struct sched_env uenv;

	(void)state;
	tu_conf_expect_file(D "unlimited_group.conf", &g_conf, 1);
	/* no group to point at: the line of `name = "pss"` (fuzz_conf found
	 * the message without a line, against --check's FILE:LINE:) */
	tu_conf_expect_file(D "unlimited_nogroup.conf", &g_conf, 1);
	assert_int_equal(tu_conf_load(D "unlimited_ok.conf", &g_conf), 0);
	conf_free(&g_conf);
	assert_int_equal(tu_conf_load(D "unlimited_fixed.conf", &g_conf), 0);
	conf_free(&g_conf);

	/* the same through the ops with no diag (counted only), and init
	 * refuses rather than divide by zero */
	uenv = env;
	uenv.capacity_bps = 0;
	sched_pss_ops.defaults(params, &uenv);
	assert_int_equal(sched_parse(&sched_pss_ops, NULL, params, NULL), 1);
	{
		struct sched s;

		assert_int_equal(sched_create(&s, &sched_pss_ops, params,
					      &uenv), -1);
		assert_null(s.priv);
	}
	/* a capacity of the link: fine */
	sched_pss_ops.defaults(params, &env);
	assert_int_equal(sched_parse(&sched_pss_ops, NULL, params, NULL), 0);
}

/* ---- 9. the credit trace ------------------------------------------------ */

static void test_trace(void **state)
{
	char path[] = "/tmp/schedtun-pss-trace-XXXXXX";
	char body[512], *text;
	struct sched s;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);

	/* test 1's start: one line per credit update, t_s,credit,prio */
	snprintf(body, sizeof(body), "bw = 0.25; lm = 1500; trace = \"%s\";",
		 path);
	create(&s, body);
	enq(&s, CLS_AF, 1000, 2, 0);
	enq(&s, CLS_CS0, 1000, 2, 0);
	STEP(&s, 0, CLS_AF, 750, 1);
	STEP(&s, 1 * MS, CLS_AF, 1500, 3);
	STEP(&s, 2 * MS, CLS_CS0, 1500, 3);
	STEP(&s, 3 * MS, CLS_CS0, 1250, 3);
	sched_destroy(&s);              /* flushes and closes */
	text = tu_read_file(path);
	assert_string_equal(text,
		"0.000000000,0.000,1\n"         /* 0 ms: aged (dtime 0) */
		"0.000000000,750.000,1\n"       /*       charged */
		"0.001000000,750.000,1\n"       /* 1 ms: aged (dtime 0) */
		"0.001000000,1500.000,3\n"      /*       charged, -> p_low */
		"0.002000000,1500.000,3\n"      /* 2 ms: aged; CS0 sends */
		"0.003000000,1250.000,3\n");    /* 3 ms: aged 1 ms */
	free(text);

	/* two controlled queues: a 4th column names the class; AF 1 <-> 3,
	 * CS0 2 <-> 4 with the top-level bw/lm */
	snprintf(body, sizeof(body), "bw = 0.25; lm = 1500; trace = \"%s\"; "
		 "queues = { cs0 = { p_high = 2; p_low = 4; }; };", path);
	create(&s, body);
	enq(&s, CLS_AF, 1000, 1, 0);
	enq(&s, CLS_CS0, 1000, 1, 0);
	STEP(&s, 0, CLS_AF, 750, 1);
	STEP(&s, 1 * MS, CLS_CS0, 750, 1);     /* AF: dtime 0, stays */
	sched_destroy(&s);
	text = tu_read_file(path);
	assert_string_equal(text,
		"0.000000000,0.000,1,af\n"
		"0.000000000,0.000,2,cs0\n"
		"0.000000000,750.000,1,af\n"
		"0.001000000,750.000,1,af\n"
		/* CS0 waited 1 ms: max(0 - 250, 0) = 0, then 0 + 750 */
		"0.001000000,0.000,2,cs0\n"
		"0.001000000,750.000,2,cs0\n");
	free(text);
	unlink(path);

	/* a trace that cannot be opened fails the creation */
	{
		static alignas(16) unsigned char params[SCHED_PARAMS_MAX];

		make_params("trace = \"/nonexistent-dir/x.csv\";", params);
		assert_int_equal(sched_create(&s, &sched_pss_ops, params, &env),
				 -1);
	}
}

#define PSS_TEST(f) cmocka_unit_test_setup_teardown(f, setup, tu_pool_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		PSS_TEST(test_cycle_lr0),
		PSS_TEST(test_lm_clamp),
		PSS_TEST(test_empty_floor),
		PSS_TEST(test_negative_dtime),
		PSS_TEST(test_credit_at_p_low),
		PSS_TEST(test_ef_first),
		PSS_TEST(test_credit_init_and_origin),
		PSS_TEST(test_general_cs0),
		PSS_TEST(test_general_af_own_params),
		PSS_TEST(test_drain_next_event),
		PSS_TEST(test_parse_keys),
		PSS_TEST(test_parse_order),
		PSS_TEST(test_parse_queues),
		PSS_TEST(test_parse_capacity),
		PSS_TEST(test_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
