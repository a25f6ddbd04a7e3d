/* test_conformance.c - every registered scheduler against the contract of
 * sched.h, as tc-testing runs one suite over every qdisc: a scheduler
 * gets all of this by being in sched_list.h.
 *
 * Each scheduler runs with its defaults and with the parameter sets of
 * param_sets[] below, on a virtual clock, under a long random load
 * (mixed classes and flows, sizes 40..1500 bytes, bursts that overrun
 * the class limits, >= 100k packets, fixed seed) fed by a link emulation
 * shaped like the core's pacer.  The core's role is played as core.c
 * plays it: the per-class limits are enforced before enqueue (a packet
 * over the limit is dropped and never reaches the scheduler) and
 * env->drop accounts a scheduler drop.  What is checked:
 *  - enqueue always consumes: every packet handed to the scheduler is
 *    later returned by dequeue or drain, or handed to env->drop, exactly
 *    once, unchanged (class, length, the core's enqueue stamp);
 *  - peek(now) returns the very pointer the following dequeue(now)
 *    returns (NULL included);
 *  - dequeue(now) == NULL while packets are held: if the scheduler's
 *    next_event is stock_next_event_never (it declares itself
 *    work-conserving) this is a failure; otherwise next_event(now) must
 *    be strictly after now and not TS_NEVER (a held packet must not be
 *    stranded), and a dequeue at that time, with no arrival in between,
 *    must return a packet.  With nothing held, dequeue and peek are NULL.
 *    (No registered scheduler holds packets yet; a test-local one,
 *    "hold", exercises this rule.)
 *  - dump_stats, peek and next_event change nothing: one instance is
 *    dumped (twice in a row, byte-identical), peeked and asked for its
 *    next event at random moments, its twin fed the same load is only
 *    dequeued (and asked for its next event when the other must be);
 *    both must dequeue and drop the same packets in the same order, and
 *    dump the same bytes at the end;
 *  - per class, throughout, the packets given to the scheduler are, each
 *    by its id, the ones it returned, dropped through env->drop or still
 *    holds, and the pool's packets in use are exactly the held ones (a
 *    packet freed silently or made up shows), held being what drain()
 *    then returns; drain returns every held packet, each flow's
 *    packets in arrival order (the SIGHUP swap must not reorder a flow),
 *    and leaves the instance empty and usable;
 *  - destroy returns every packet still held: the pool ends empty.
 */
#include <libconfig.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pkt/pkt.h"
#include "sched/sched.h"
#include "sched/stock.h"
#include "util/diag.h"
#include "util/jw.h"
#include "testutil.h"

#define N_PKTS      100000u     /* offered per run */
#define POOL_PKTS   6000u       /* two instances at their class limits */
#define LINK_BPS    10000000u
#define CATCHUP_NS  (50 * NS_PER_MS)    /* the pacer's catch-up window */
#define NFLOWS      12u         /* per class */
#define DUMP_BYTES  4096

/* Parameter sets beyond the defaults, per scheduler name: the body of its
 * scheduler.<name> group, libconfig syntax.  A scheduler not listed runs
 * with its defaults only. */
static const struct {
	const char *name;
	const char *text;
} param_sets[] = {
	{ "pss", "bw = 0.3; lm = 4000; lr = 0;" },
	{ "pss", "bw = 0.7; lm = 20000; lr = 3000; credit_init = 3000; "
		 "idle_credit = false;" },
	{ "pss", "capacity = \"4Mbit\"; bw = 0.5; lm = 1500;" },
	{ "pss", "queues = { af = { prio = 2; }; "
		 "cs0 = { p_high = 1; p_low = 3; }; };" },
	{ "dwrr", "quantum = { af = 64; cs0 = 64; };" },
	{ "dwrr", "weights = { af = 9; cs0 = 2; }; packet_size = 1500;" },
	{ "dwrr", "quantum = { af = 1500; cs0 = 9000; };" },
	{ "pdrr", "quantum = 300; buffer = 200; max_flows = 8;" },
	{ "pdrr", "ef_strict = false; admission = true; "
		  "admit_rate = \"4Mbit\"; interval = \"10ms\"; "
		  "progress_timeout = \"50ms\"; progress_flows = 16;" },
	{ "pdrr", "quantum = 9000; buffer = 50; max_flows = 1;" },
	{ "pdrr", "priority = false; quantum = 500; buffer = 100;" },
	/* DRRexp, and expiry with PQ: discards under the random load */
	{ "pdrr", "priority = false; t_expire = \"20ms\"; buffer = 400;" },
	{ "pdrr", "t_expire = \"5ms\"; quantum = 300; max_flows = 4;" },
	/* small α and β: redirections, transfers, push-out and expiry all
	 * happen under the random load */
	{ "dq", "alpha_delay = \"5ms\"; buffer = 40000; t_expire = \"30ms\"; "
		"theta = 2;" },
	{ "dq", "alpha_delay = \"10ms\"; buffer = 30000; pushout = false; "
		"t_abate = 4000; theta = 1; ef_strict = false;" },
	{ "dq", "alpha_delay = \"3ms\"; buffer = 60000; sessions = 4; "
		"t_expire = \"100ms\";" },
	{ "ticket", "d = \"20ms\"; n_eb = 64;" },
	{ "ticket", "d = \"3ms\"; n_eb = 1000; n_q = 4000; "
		    "capacity = \"4Mbit\";" },
	{ "ticket", "variant = \"naive\"; d = \"50ms\"; n_eb = 2000;" },
	{ "ticket", "order = \"flow\"; flows = 4; d = \"5ms\"; n_eb = 128;" },
};

static struct sched_env env;

/* ---- the one place that knows how parameters are made ------------------ */

/* ---- the core's role ---------------------------------------------------- */

/* A packet's fate: never offered; over its class limit, so never given
 * to the scheduler (the core's drop); held by the scheduler; returned by
 * dequeue; handed to env->drop; returned by drain. */
enum fate { F_NONE = 0, F_LIMITED, F_HELD, F_OUT, F_DROPPED, F_DRAINED,
	    F_MAX };

/* What was offered, by packet id (both instances get the same load). */
static struct {
	uint8_t   cls;
	uint8_t   flow;
	uint16_t  len_bytes;
	tstamp_ns enq_ns;
} offered[N_PKTS + 64];

/* One instance and the core-side accounting around it. */
struct inst {
	struct sched s;
	uint8_t  fate[N_PKTS + 64];
	uint32_t qlen_pkts[NCLASS];
	uint64_t in[NCLASS], out[NCLASS], drops[NCLASS];
	uint32_t next_seq[NCLASS][NFLOWS];      /* drain order per flow */
};

static struct inst twins[2];    /* [0] observed, [1] left alone */
static unsigned long npromises; /* NULL dequeues with a next event */

static unsigned int cls_of(const struct pkt *p)
{
	assert_true(p->cls < NCLASS);
	return p->cls;
}

/* A packet leaves the instance: it must be one it held, unchanged. */
static void leave(struct inst *in, const struct pkt *p, enum fate f)
{
	unsigned int c = cls_of(p);

	assert_true(p->seq < N_PKTS + 64);
	if (in->fate[p->seq] != F_HELD)
		fail_msg("packet %u leaves twice or was never held", p->seq);
	assert_int_equal(c, offered[p->seq].cls);
	assert_int_equal(p->len_bytes, offered[p->seq].len_bytes);
	assert_true(p->enq_ns == offered[p->seq].enq_ns);
	in->fate[p->seq] = (uint8_t)f;
	in->qlen_pkts[c]--;
}

/* env->drop, as core_sched_drop(): the packet leaves its class queue. */
static void sched_drop(void *owner, struct pkt *p, enum drop_reason why)
{
	struct inst *in = owner;

	assert_true(why < DROP_REASON_MAX);
	leave(in, p, F_DROPPED);
	in->drops[p->cls]++;
	pkt_free(p);
}

/* core_tun_input(): the class limit first, then the scheduler. */
static void offer(struct inst *in, uint32_t id, tstamp_ns now)
{
	unsigned int c = offered[id].cls;
	struct pkt *p;

	in->in[c]++;
	if (in->qlen_pkts[c] >= env.limit_pkts[c]) {
		in->fate[id] = F_LIMITED;
		in->drops[c]++;
		return;
	}
	p = pkt_alloc();
	assert_non_null(p);
	p->cls = (uint8_t)c;
	p->dscp = c == CLS_EF ? 46 : c == CLS_AF ? 10 : 0;
	p->flow_hash = 0x9e3779b9u * (c * NFLOWS + offered[id].flow + 1);
	p->seq = id;
	p->len_bytes = offered[id].len_bytes;
	p->enq_ns = now;
	offered[id].enq_ns = now;
	in->fate[id] = F_HELD;
	in->qlen_pkts[c]++;
	sched_enqueue(&in->s, p, now);
}

static uint32_t held(const struct inst *in)
{
	return in->qlen_pkts[0] + in->qlen_pkts[1] + in->qlen_pkts[2];
}

/* The pool's packets in use are exactly those the two instances hold: a
 * packet a scheduler freed without env->drop, or one it made, shows here
 * at once (checked after every arrival). */
static void check_pool(void)
{
	if (pkt_pool_in_use() != held(&twins[0]) + held(&twins[1]))
		fail_msg("%s: %u pool packets in use, but the two instances "
			 "hold %u and %u", twins[0].s.ops->name,
			 pkt_pool_in_use(), held(&twins[0]), held(&twins[1]));
}

/* The scheduler's ledger, from what it did to each packet rather than
 * from the counters above: of the packets with ids below n_ids, per
 * class, those given to it are the ones it returned (dequeue), handed to
 * env->drop or still holds, each once (leave() refuses a second exit);
 * every offered id has a fate; and check_pool(). */
static void check_conservation(uint32_t n_ids)
{
	uint64_t n[2][NCLASS][F_MAX];
	unsigned int c, k;
	uint32_t id;

	memset(n, 0, sizeof(n));
	for (k = 0; k < 2; k++)
		for (id = 0; id < n_ids; id++) {
			uint8_t f = twins[k].fate[id];

			if (f == F_NONE || f >= F_MAX)
				fail_msg("packet %u: offered, fate %u", id, f);
			n[k][offered[id].cls][f]++;
		}
	for (k = 0; k < 2; k++)
		for (c = 0; c < NCLASS; c++) {
			const struct inst *in = &twins[k];
			uint64_t given = in->in[c] - n[k][c][F_LIMITED];

			if (given != n[k][c][F_OUT] + n[k][c][F_DROPPED] +
				     n[k][c][F_DRAINED] + n[k][c][F_HELD] ||
			    n[k][c][F_HELD] != in->qlen_pkts[c] ||
			    n[k][c][F_OUT] != in->out[c])
				fail_msg("%s (%s) class %u: given %llu, "
					 "returned %llu, dropped %llu, drained "
					 "%llu, held %llu (queued by the count "
					 "%u)", in->s.ops->name,
					 k ? "twin" : "observed", c,
					 (unsigned long long)given,
					 (unsigned long long)n[k][c][F_OUT],
					 (unsigned long long)n[k][c][F_DROPPED],
					 (unsigned long long)n[k][c][F_DRAINED],
					 (unsigned long long)n[k][c][F_HELD],
					 in->qlen_pkts[c]);
		}
	check_pool();
}

/* ---- observing without touching ----------------------------------------- */

static void dump(const struct inst *in, char *buf)
{
	struct jw w;

	jw_init(&w, buf, DUMP_BYTES);
	jw_obj_begin(&w, NULL);
	in->s.ops->dump_stats(in->s.priv, &w);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
}

/* Two dumps in a row say the same. */
static void dump_twice(const struct inst *in)
{
	static char a[DUMP_BYTES], b[DUMP_BYTES];

	dump(in, a);
	dump(in, b);
	assert_string_equal(a, b);
}

/* ---- the link ----------------------------------------------------------- */

static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((lcg_state >> 33) % n);
}

static tstamp_ns tx_ns(uint32_t len_bytes)
{
	return (tstamp_ns)len_bytes * 8u * NS_PER_SEC / LINK_BPS;
}

/* The link state of the pair; both twins see the same times. */
struct link {
	tstamp_ns busy_until;   /* next packet may start then; 0: idle */
	tstamp_ns last_deq;     /* dequeue times never go back */
	tstamp_ns wake;         /* a non-work-conserving promise, or 0 */
	int arrived;            /* since the promise */
};

/* One dequeue of the pair at now, observed instance first: peek, then
 * dequeue; the twin must return the same packet.  Returns the packet's
 * length, 0 when nothing was sent (*ne then says when to come back). */
static uint32_t serve_one(struct link *lk, tstamp_ns now, tstamp_ns *ne)
{
	struct inst *a = &twins[0], *b = &twins[1];
	const struct pkt *pk = a->s.ops->peek(a->s.priv, now);
	struct pkt *pa = sched_dequeue(&a->s, now);
	struct pkt *pb = sched_dequeue(&b->s, now);
	uint32_t len;

	assert_ptr_equal(pk, pa);
	assert_true((pa == NULL) == (pb == NULL));
	if (lk->wake && now >= lk->wake && !lk->arrived && held(a))
		assert_non_null(pa);    /* the promised time has come */
	lk->wake = 0;
	if (!pa) {
		if (!held(a))
			return 0;
		if (a->s.ops->next_event == stock_next_event_never)
			fail_msg("%s: dequeue NULL with %u packets held, but "
				 "work-conserving", a->s.ops->name, held(a));
		*ne = sched_next_event(&a->s, now);
		assert_true(*ne > now && *ne != TS_NEVER);
		assert_true(sched_next_event(&b->s, now) == *ne);
		lk->wake = *ne;
		lk->arrived = 0;
		npromises++;
		return 0;
	}
	assert_int_equal(pa->seq, pb->seq);
	leave(a, pa, F_OUT);
	leave(b, pb, F_OUT);
	a->out[pa->cls]++;
	b->out[pb->cls]++;
	len = pa->len_bytes;
	pkt_free(pa);
	pkt_free(pb);
	return len;
}

/* Sends while the link is free up to `until`, at the link's times (which
 * may lag the latest arrival by up to the catch-up window, as after a
 * late wake-up of the loop). */
static void serve_until(struct link *lk, tstamp_ns until)
{
	struct inst *a = &twins[0];

	if (!lk->busy_until)    /* idle: no credit for the gap */
		lk->busy_until = until;
	while (lk->busy_until <= until) {
		tstamp_ns now = lk->busy_until, ne = TS_NEVER;
		uint32_t len;

		if (now + CATCHUP_NS < until)
			now = until - CATCHUP_NS;
		if (now < lk->last_deq)
			now = lk->last_deq;
		lk->last_deq = now;
		if (lcg(64) == 0)       /* observers at random moments */
			(void)sched_next_event(&a->s, now);
		if (lcg(256) == 0)
			dump_twice(a);
		len = serve_one(lk, now, &ne);
		if (len) {
			lk->busy_until = now + tx_ns(len);
		} else if (ne != TS_NEVER) {
			lk->busy_until = ne;
		} else {
			lk->busy_until = 0;     /* idle until an arrival */
			break;
		}
	}
}

/* ---- the run ------------------------------------------------------------ */

/* The offered load: mostly a moderate mix, with bursts well above the
 * link rate that fill the class queues to their limits. */
static void make_load(void)
{
	uint32_t id;

	for (id = 0; id < N_PKTS + 64; id++) {
		uint32_t r = lcg(20);

		offered[id].cls = (uint8_t)(r < 3 ? CLS_EF :
					    r < 12 ? CLS_AF : CLS_CS0);
		offered[id].flow = (uint8_t)lcg(NFLOWS);
		offered[id].len_bytes = (uint16_t)(40 + lcg(1461));
	}
}

static void start(struct inst *in, const struct sched_ops *ops,
		  const void *params)
{
	memset(in, 0, sizeof(*in));
	env.owner = in;
	assert_int_equal(sched_create(&in->s, ops, params, &env), 0);
}

/* Drains the observed instance: every held packet, each flow in arrival
 * order, then nothing. */
static void check_drain(struct inst *in)
{
	uint32_t want = held(in), got = 0;
	struct pkt *p;

	memset(in->next_seq, 0, sizeof(in->next_seq));
	while ((p = in->s.ops->drain(in->s.priv))) {
		unsigned int c = cls_of(p), f = offered[p->seq].flow;

		if (p->seq < in->next_seq[c][f])
			fail_msg("%s: drain reorders flow %u of class %u",
				 in->s.ops->name, f, c);
		in->next_seq[c][f] = p->seq;
		leave(in, p, F_DRAINED);
		pkt_free(p);
		got++;
	}
	assert_int_equal(got, want);
	assert_int_equal(held(in), 0);
	assert_null(in->s.ops->peek(in->s.priv, TS_NEVER - 1));
	assert_null(sched_dequeue(&in->s, TS_NEVER - 1));
}

static void run(const struct sched_ops *ops, const char *text, uint64_t seed)
{
	alignas(16) static unsigned char params[SCHED_PARAMS_MAX];
	static char da[DUMP_BYTES], db[DUMP_BYTES];
	struct link lk = { 0 };
	tstamp_ns t = NS_PER_SEC;
	uint32_t id, burst = 0, c;
	uint64_t drops = 0, outs = 0;

	print_message("%s %s\n", ops->name, text ? text : "(defaults)");
	lcg_state = seed;
	make_load();
	tu_sched_params(ops, text, &env, params);
	start(&twins[0], ops, params);
	start(&twins[1], ops, params);
	for (id = 0; id < N_PKTS; id++) {
		if (burst) {
			burst--;
			t += lcg(20) * NS_PER_US;
		} else if (lcg(400) == 0) {
			burst = 50 + lcg(700);
		} else {
			t += lcg(2400) * NS_PER_US;     /* half the link */
		}
		/* the loop sometimes wakes late and catches up afterwards */
		if (lcg(8))
			serve_until(&lk, t);
		offer(&twins[0], id, t);
		offer(&twins[1], id, t);
		lk.arrived = 1;
		check_pool();
		for (c = 0; c < NCLASS; c++)
			assert_int_equal(twins[0].qlen_pkts[c],
					 twins[1].qlen_pkts[c]);
		if (id % 4999 == 0)
			check_conservation(id + 1);
	}
	check_conservation(N_PKTS);
	for (c = 0; c < NCLASS; c++) {
		assert_true(twins[0].drops[c] == twins[1].drops[c]);
		drops += twins[0].drops[c];
		outs += twins[0].out[c];
	}
	/* the load did overrun the limits, kept the link busy, and left a
	 * queue for drain and destroy to deal with */
	print_message("  sent %llu, dropped %llu, held %u\n",
		      (unsigned long long)outs, (unsigned long long)drops,
		      held(&twins[0]));
	assert_true(drops > 1000);
	assert_true(outs > N_PKTS / 2);
	dump(&twins[0], da);
	dump(&twins[1], db);
	assert_string_equal(da, db);
	assert_true(held(&twins[0]) > 0);

	check_drain(&twins[0]);
	check_conservation(N_PKTS);
	/* drained, the instance still schedules */
	offer(&twins[0], N_PKTS, t);
	offer(&twins[0], N_PKTS + 1, t);
	for (id = N_PKTS; id < N_PKTS + 2; id++) {
		const struct pkt *pk = twins[0].s.ops->peek(twins[0].s.priv, t);
		struct pkt *p = sched_dequeue(&twins[0].s, t);

		if (!p && twins[0].s.ops->next_event != stock_next_event_never)
			break;  /* may have to wait: destroy frees it */
		assert_ptr_equal(pk, p);
		assert_non_null(p);
		leave(&twins[0], p, F_OUT);
		pkt_free(p);
	}
	offer(&twins[0], N_PKTS + 2, t);
	sched_destroy(&twins[0].s);
	/* the twin still holds its queue: destroy must free it all */
	assert_int_equal(pkt_pool_in_use(), held(&twins[1]));
	sched_destroy(&twins[1].s);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_every_scheduler(void **state)
{
	const struct sched_ops *const *o;
	uint64_t seed = 1;
	size_t k;

	(void)state;
	for (o = sched_registry; *o; o++) {
		run(*o, NULL, seed++);
		for (k = 0; k < sizeof(param_sets) / sizeof(param_sets[0]); k++)
			if (strcmp(param_sets[k].name, (*o)->name) == 0)
				run(*o, param_sets[k].text, seed++);
	}
}

/* ---- the suite's own check: a scheduler that is not work-conserving --- */

/* A FIFO that lets a packet go only HOLD_NS after its enqueue stamp: it
 * holds packets it cannot send yet, as TICKET or a shaper would, so the
 * next_event rule above is exercised before such a scheduler exists. */
#define HOLD_NS (300 * NS_PER_US)

struct hold_sched {
	struct pktq q;
};

static void hold_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	(void)now;
	pktq_push(&((struct hold_sched *)priv)->q, p);
}

static const struct pkt *hold_peek(void *priv, tstamp_ns now)
{
	const struct pkt *p = ((struct hold_sched *)priv)->q.head;

	return p && now >= p->enq_ns + HOLD_NS ? p : NULL;
}

static struct pkt *hold_dequeue(void *priv, tstamp_ns now)
{
	return hold_peek(priv, now) ? pktq_pop(&((struct hold_sched *)priv)->q)
				    : NULL;
}

static tstamp_ns hold_next_event(void *priv, tstamp_ns now)
{
	const struct pkt *p = ((struct hold_sched *)priv)->q.head;

	(void)now;
	return p ? p->enq_ns + HOLD_NS : TS_NEVER;
}

static struct pkt *hold_drain(void *priv)
{
	return pktq_pop(&((struct hold_sched *)priv)->q);
}

static void hold_destroy(void *priv)
{
	pktq_purge(&((struct hold_sched *)priv)->q);
}

static int hold_init(void *priv, const void *params,
		     const struct sched_env *e)
{
	(void)params;
	(void)e;
	pktq_init(&((struct hold_sched *)priv)->q);
	return 0;
}

static void hold_dump_stats(void *priv, struct jw *w)
{
	jw_u64(w, "qlen_pkts", ((struct hold_sched *)priv)->q.len_pkts);
}

static const struct sched_ops hold_ops = {
	.name = "hold", .summary = "test: FIFO with a fixed holding time",
	.params_size = 0, .priv_size = sizeof(struct hold_sched),
	.defaults = stock_defaults_none, .keys = NULL,
	.init = hold_init, .destroy = hold_destroy,
	.enqueue = hold_enqueue, .dequeue = hold_dequeue, .peek = hold_peek,
	.next_event = hold_next_event, .drain = hold_drain,
	.dump_stats = hold_dump_stats,
};

static void test_not_work_conserving(void **state)
{
	(void)state;
	npromises = 0;
	run(&hold_ops, NULL, 77);
	assert_true(npromises > 500);
}

/* Every parameter set names a registered scheduler (a renamed one would
 * silently lose its sets). */
static void test_param_sets_registered(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(param_sets) / sizeof(param_sets[0]); k++)
		assert_non_null(sched_lookup(param_sets[k].name));
}

/* The core's defaults (tu_sched_env), with this file's drop accounting. */
static int setup(void **state)
{
	(void)state;
	tu_sched_env(&env, LINK_BPS);
	env.drop = sched_drop;
	return tu_pool_init(POOL_PKTS, 1500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_param_sets_registered),
		cmocka_unit_test_setup_teardown(test_every_scheduler,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_not_work_conserving,
						setup, tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
