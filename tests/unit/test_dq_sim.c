/* test_dq_sim.c - the dq scheduler against the paper's TCP experiments
 * (Hayes, Rumsewicz, Andrew 1999, Table 1, Fig. 5), in the simulator: the
 * daemon's own packet path (core.c) on a virtual clock, with the `web`
 * source (simweb.c) standing for the paper's WWW users.
 *
 * Every run is deterministic (a fixed seed per run).  The same seed gives
 * every discipline the same users: each flow's stream draws its think
 * times and session sizes in the same order whatever the scheduler, so
 * the disciplines are compared on the same sessions (common random
 * numbers), which is what lets a few runs separate them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "pkt.h"
#include "sim.h"
#include "testutil.h"

/* Table 1, experiment 1 */
#define T1_NODE_BPS     2000000u
#define T1_ACCESS_BPS   500000u
#define T1_SOURCES      50u
#define T1_BUFFER_BYTES 500000u
#define T1_MEAN_BYTES   30000u          /* Pareto a = 6923, c = 1.3 */
#define T1_ALPHA        1.3
#define T1_RTT_NS       (500 * NS_PER_MS)       /* §4.2's return path */
#define PKT_BYTES       1500u
#define POOL_PKTS       2048u

/* The users' sessions together: eq. 2 and what explains it. */
struct web_sum {
	uint64_t sessions, done, cuts, in_pkts, drop_pkts, expired;
	double   bytes, secs;
};

static void web_collect(void *ctx, const struct sim_flow *f)
{
	struct web_sum *w = ctx;

	w->sessions += f->sessions;
	w->done += f->sessions_done;
	w->cuts += f->cuts;
	w->in_pkts += f->in_pkts;
	w->drop_pkts += f->drop_pkts;
	w->expired += f->drop_by[DROP_EXPIRED];
	w->bytes += (double)f->session_bytes;
	w->secs += (double)f->session_ns / 1e9;
}

/* Eq. 2: Σ valid bits received / Σ session times, bit/s. */
static double eq2_bps(const struct web_sum *w)
{
	return w->secs > 0 ? w->bytes * 8.0 / w->secs : 0.0;
}

/* A discipline of the comparison: the scheduler, its keys, and the cs0
 * class limit (FIFO's whole buffer is the core's class limit). */
struct disc {
	const char *name, *sched, *keys;
	uint32_t    cs0_limit_pkts;
};

/* The same total buffer for all three (§5): 500000 bytes, i.e. 333
 * packets of 1500 bytes for the packet-counting ones. */
static const struct disc discs[] = {
	{ "FIFO", "fifo", NULL, T1_BUFFER_BYTES / PKT_BYTES },
	{ "DRR",  "pdrr", "priority = false; buffer = 333;", 1000 },
	{ "DQ",   "dq",   "buffer = 500000;", 1000 },
};

/* One run of `d` with T1_SOURCES web users of mean think time think_ns,
 * link T1_NODE_BPS with a T1_RTT_NS return path, dur_ns of which warm_ns
 * warm-up, seed; sums the users into *w.  The pool must end empty. */
static void run_web(const struct disc *d, tstamp_ns think_ns,
		    tstamp_ns dur_ns, tstamp_ns warm_ns, uint64_t seed,
		    struct web_sum *w)
{
	struct sim_config sc;
	struct sim_source *x = &sc.src[CLS_CS0];
	struct sim_result r;
	struct sched_env env;

	memset(&sc, 0, sizeof(sc));
	memset(w, 0, sizeof(*w));
	tu_conf_basic(&sc.conf, T1_NODE_BPS, T1_RTT_NS, d->sched);
	sc.conf.limit_pkts[CLS_CS0] = d->cs0_limit_pkts;
	conf_sched_env(&sc.conf, &env);
	if (d->keys)
		tu_sched_params(sc.conf.sched, d->keys, &env,
				sc.conf.sched_params);
	sc.duration_ns = dur_ns;
	sc.warmup_ns = warm_ns;
	sc.seed = seed;
	sc.flow_cb = web_collect;
	sc.flow_ctx = w;
	x->kind = SIM_SRC_WEB;
	x->pkt_bytes = PKT_BYTES;
	x->flows = T1_SOURCES;
	x->alpha = T1_ALPHA;
	x->mean_bytes = T1_MEAN_BYTES;
	x->off_ns = think_ns;
	x->peak_bps = T1_ACCESS_BPS;
	assert_int_equal(sim_run(&sc, &r), 0);
	assert_int_equal(pkt_pool_in_use(), 0);
	assert_int_equal(r.pool_empty_pkts, 0);
}

static int setup(void **state)
{
	(void)state;
	return tu_pool_init(POOL_PKTS, PKT_BYTES);
}

/* ---- Fig. 5 ----------------------------------------------------------------- */

#define FIG5_SEEDS      2u
#define FIG5_DUR_NS     (320 * NS_PER_SEC)
#define FIG5_WARM_NS    (20 * NS_PER_SEC)

static void test_fig5_session_rate(void **state)
{
	static const double think_s[] = { 0.5, 2.5, 12.5 };
	double rate[TU_LEN(think_s)][TU_LEN(discs)];
	size_t i, j;
	uint64_t seed;

	(void)state;
	for (i = 0; i < TU_LEN(think_s); i++) {
		for (j = 0; j < TU_LEN(discs); j++) {
			struct web_sum all, one;

			memset(&all, 0, sizeof(all));
			for (seed = 1; seed <= FIG5_SEEDS; seed++) {
				run_web(&discs[j], (tstamp_ns)(think_s[i] * 1e9),
					FIG5_DUR_NS, FIG5_WARM_NS, seed, &one);
				all.sessions += one.sessions;
				all.done += one.done;
				all.cuts += one.cuts;
				all.in_pkts += one.in_pkts;
				all.drop_pkts += one.drop_pkts;
				all.expired += one.expired;
				all.bytes += one.bytes;
				all.secs += one.secs;
			}
			rate[i][j] = eq2_bps(&all);
			fprintf(stderr, "fig5 think %5.1f s %-4s: eq.2 %7.1f kbit/s, "
				"%llu sessions (%llu done), goodput %.3f Mbit/s, "
				"loss %.2f %% (%llu expired), %llu cuts\n",
				think_s[i], discs[j].name, rate[i][j] / 1e3,
				(unsigned long long)all.sessions,
				(unsigned long long)all.done,
				all.bytes * 8.0 / all.secs * 0 +
				all.bytes * 8.0 / (FIG5_SEEDS *
				(double)(FIG5_DUR_NS - FIG5_WARM_NS) / 1e9) / 1e6,
				100.0 * (double)all.drop_pkts /
				(double)(all.in_pkts ? all.in_pkts : 1),
				(unsigned long long)all.expired,
				(unsigned long long)all.cuts);
		}
	}
	(void)rate;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fig5_session_rate, setup,
						tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
