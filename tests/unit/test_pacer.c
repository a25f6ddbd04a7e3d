/* test_pacer.c - departure times of a saturated sender on a virtual clock.
 *
 * The loop under test is modelled as: while the pacer is ready, send one
 * packet; then sleep until busy_until (+ jitter from a fixed-seed PRNG).
 * Served bytes are compared with the integral of C(t), computed here from
 * the closed forms (or, for traces, from the table written in this file,
 * or by enumerating Mahimahi opportunities one by one), in long double.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "link/link.h"
#include "link/pacer.h"
#include "testutil.h"

#define PKT_BYTES  1400u
#define OPP_BYTES  1504u
#define MS         NS_PER_MS
#define US         NS_PER_US
#define SEC        NS_PER_SEC

/* ------------------------------------------------------------------
 * independent references for S(t), in bits
 */

struct ref {
	enum link_kind kind;
	long double rate, mean, amp, per_s;
	const long double (*tab)[2];    /* trace: {t_s, rate} rows */
	unsigned ntab;
	const tstamp_ns *opp_ns;        /* mahimahi: every opportunity, sorted */
	size_t nopp;
};

/* How many of the sorted times v[0..n) are <= t. */
static size_t count_le(const tstamp_ns *v, size_t n, tstamp_ns t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Appends x to the malloc'd array *v of *n elements (room for *cap). */
static void push_ts(tstamp_ns **v, size_t *n, size_t *cap, tstamp_ns x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		*v = realloc(*v, *cap * sizeof(**v));
		assert_non_null(*v);
	}
	(*v)[(*n)++] = x;
}

static long double ref_bits(const struct ref *r, tstamp_ns t)
{
	long double ts = (long double)t / 1e9L, s = 0;
	unsigned i;

	switch (r->kind) {
	case LINK_CONSTANT:
		return r->rate * ts;
	case LINK_COSINE:
		return r->mean * ts + r->mean * r->amp * r->per_s /
		       (2 * 3.14159265358979323846264338327950288L) *
		       sinl(2 * 3.14159265358979323846264338327950288L * ts /
			    r->per_s);
	case LINK_TRACE:
		for (i = 0; i < r->ntab; i++) {
			long double a = r->tab[i][0];
			long double b = i + 1 < r->ntab ? r->tab[i + 1][0] : ts;

			if (ts <= a)
				break;
			s += r->tab[i][1] * ((ts < b ? ts : b) - a);
		}
		return s;
	case LINK_MAHIMAHI:
		/* opportunities at times <= t */
		return (long double)count_le(r->opp_ns, r->nopp, t) * OPP_BYTES * 8;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------
 * saturated sender
 */

struct run {
	tstamp_ns *fin;         /* finish time of each packet, in send order */
	size_t     n;
	uint32_t   len_bytes;
};

/* Sends len_bytes packets back to back until the loop's clock passes
 * horizon; the loop wakes at busy_until + U(0, jitter_ns). */
static void run_saturated(struct run *r, const struct link_profile *prof,
			  uint32_t len_bytes, tstamp_ns horizon,
			  uint64_t jitter_ns, uint64_t seed)
{
	struct pacer pc;
	tstamp_ns now = 0;
	size_t cap = 0;
	uint64_t rng = seed;            /* splitmix64: the same jitter every run */

	r->fin = NULL;
	r->n = 0;
	r->len_bytes = len_bytes;
	pacer_init(&pc, prof, 0);
	while (now < horizon) {
		while (pacer_ready(&pc, now)) {
			tstamp_ns f = pacer_send(&pc, len_bytes, now);

			/* finishing order is sending order */
			assert_true(r->n == 0 || f >= r->fin[r->n - 1]);
			push_ts(&r->fin, &r->n, &cap, f);
		}
		if (pc.busy_until_ns == TS_NEVER)
			break;
		now = pc.busy_until_ns > now ? pc.busy_until_ns : now;
		if (jitter_ns)
			now += rng_next(&rng) % (jitter_ns + 1);
	}
}

/* Packets whose last bit left at or before t. */
static size_t finished_by(const struct run *r, tstamp_ns t)
{
	return count_le(r->fin, r->n, t);
}

/* Bytes finished in (t1, t2] minus the link's integral over it. */
static long double window_err(const struct run *r, const struct ref *ref,
			      tstamp_ns t1, tstamp_ns t2)
{
	long double served = (long double)(finished_by(r, t2) -
					   finished_by(r, t1)) * r->len_bytes;

	return served - (ref_bits(ref, t2) - ref_bits(ref, t1)) / 8;
}

/* Checks a grid of windows and random ones inside [0, limit]; every one
 * must be within tol_bytes.  Returns the worst |error|. */
static long double check_windows(const struct run *r, const struct ref *ref,
				 tstamp_ns limit, long double tol_bytes)
{
	static const tstamp_ns lens[] = { 1 * MS, 10 * MS, 100 * MS, 1 * SEC,
					  7300 * MS, 50 * SEC };
	long double worst = 0;
	uint64_t rng = 99;
	tstamp_ns t1;
	unsigned i, k;

	for (t1 = 0; t1 < limit; t1 += 370 * MS + 12345) {
		for (i = 0; i < TU_LEN(lens); i++) {
			long double e;

			if (t1 + lens[i] > limit)
				continue;
			e = fabsl(window_err(r, ref, t1, t1 + lens[i]));
			if (e > worst)
				worst = e;
			if (e > tol_bytes)
				print_error("window (%.9f, %.9f]: error %.1Lf bytes\n",
					    t1 / 1e9, (t1 + lens[i]) / 1e9, e);
			assert_true(e <= tol_bytes);
		}
	}
	for (k = 0; k < 20000; k++) {
		tstamp_ns a = rng_next(&rng) % limit;
		tstamp_ns b = rng_next(&rng) % limit;
		long double e;

		if (a > b) {
			tstamp_ns x = a;

			a = b;
			b = x;
		}
		e = fabsl(window_err(r, ref, a, b));
		if (e > worst)
			worst = e;
		assert_true(e <= tol_bytes);
	}
	return worst;
}

/* Total served by t minus S(t)/8. */
static long double longrun_err(const struct run *r, const struct ref *ref,
			       tstamp_ns t)
{
	return (long double)finished_by(r, t) * r->len_bytes -
	       ref_bits(ref, t) / 8;
}

static void report(const char *what, long double worst, long double lr)
{
	printf("    %-44s worst window %7.1Lf B, long-run %8.1Lf B\n", what,
	       worst, lr);
}

/* ------------------------------------------------------------------
 * constant, cosine, trace: saturated sender with and without jitter
 */

static void saturated_case(const char *name, const struct link_profile *prof,
			   const struct ref *ref, uint64_t jitter_ns)
{
	struct run r;
	long double worst, lr;

	/* 101 s so that every packet finishing by 100 s has been sent */
	run_saturated(&r, prof, PKT_BYTES, 101 * SEC, jitter_ns, 1234);
	worst = check_windows(&r, ref, 100 * SEC, PKT_BYTES);
	lr = longrun_err(&r, ref, 100 * SEC);
	assert_true(fabsl(lr) < PKT_BYTES);
	report(name, worst, lr);
	free(r.fin);
}

static void test_constant_saturated(void **state)
{
	struct link_profile p = { .kind = LINK_CONSTANT, .rate_bps = 20000000 };
	struct ref ref = { .kind = LINK_CONSTANT, .rate = 2e7L };
	struct run r;
	size_t k;

	(void)state;
	saturated_case("constant 20 Mbit/s, exact wake-ups", &p, &ref, 0);
	saturated_case("constant 20 Mbit/s, jitter 0..200 us", &p, &ref, 200 * US);
	/* coarse timers (up to 20 ms late) are still caught up in full */
	saturated_case("constant 20 Mbit/s, jitter 0..20 ms", &p, &ref, 20 * MS);
	/* 1400 bytes at 20 Mbit/s take exactly 560 us: the k-th packet
	 * finishes at k * 560 us whatever the jitter */
	run_saturated(&r, &p, PKT_BYTES, 2 * SEC, 200 * US, 5);
	for (k = 0; k < r.n; k++)
		assert_int_equal(r.fin[k], (k + 1) * 560 * US);
	free(r.fin);
}

static void test_cosine_saturated(void **state)
{
	struct link_profile p = { .kind = LINK_COSINE, .mean_bps = 20000000,
				  .amplitude = 0.3, .period_s = 15.0 };
	struct ref ref = { .kind = LINK_COSINE, .mean = 2e7L, .amp = 0.3L,
			   .per_s = 15.0L };

	(void)state;
	saturated_case("cosine 20 Mbit/s a=0.3 P=15 s, exact", &p, &ref, 0);
	saturated_case("cosine 20 Mbit/s a=0.3 P=15 s, jitter", &p, &ref,
		       200 * US);
}

/* data/link/pacer.csv, written out again here as the reference. */
static const long double pacer_tab[][2] = {
	{ 0, 20000000 }, { 10, 5000000 }, { 20, 0 }, { 25, 12500000 },
	{ 40, 30000000 }, { 60, 1000000 }, { 61, 20000000 },
};

static void test_trace_saturated(void **state)
{
	struct link_profile p = { 0 };
	struct ref ref = { .kind = LINK_TRACE, .tab = pacer_tab,
			   .ntab = TU_LEN(pacer_tab) };
	char err[256];
	struct run r;

	(void)state;
	assert_int_equal(link_load_trace(&p, "data/link/pacer.csv", err,
					 sizeof(err)), 0);
	saturated_case("trace (with a 5 s outage), exact", &p, &ref, 0);
	saturated_case("trace (with a 5 s outage), jitter", &p, &ref, 200 * US);

	/* nothing finishes inside the outage (20 s, 25 s]: the packet on the
	 * wire at 20 s completes after 25 s */
	run_saturated(&r, &p, PKT_BYTES, 30 * SEC, 200 * US, 77);
	assert_int_equal(finished_by(&r, 25 * SEC), finished_by(&r, 20 * SEC));
	/* 20 Mbit/s * 10 s + 5 Mbit/s * 10 s = 250e6 bits = 31250000 bytes:
	 * 22321 whole packets (31249400 bytes), the next one straddles 20 s */
	assert_int_equal(finished_by(&r, 20 * SEC), 22321);
	free(r.fin);
	link_profile_free(&p);
}

/* ------------------------------------------------------------------
 * idle gaps and late wake-ups, constant 20 Mbit/s (560 us per packet)
 */

static const struct link_profile c20 = { .kind = LINK_CONSTANT,
					 .rate_bps = 20000000 };

/* Sends n packets with exact wake-ups from t=0; returns busy_until. */
static tstamp_ns prime(struct pacer *pc, unsigned n)
{
	tstamp_ns now = 0;
	unsigned k;

	pacer_init(pc, &c20, 0);
	for (k = 1; k <= n; k++) {
		assert_true(pacer_ready(pc, now));
		assert_int_equal(pacer_send(pc, PKT_BYTES, now), k * 560 * US);
		now = pc->busy_until_ns;
	}
	return now;
}

static void test_idle_gap_loses_capacity(void **state)
{
	struct pacer pc;
	tstamp_ns b = prime(&pc, 1000), now;
	unsigned k;

	(void)state;
	assert_int_equal(b, 560 * MS);
	/* the queue runs dry when the last packet finishes */
	pacer_mark_idle(&pc, b);
	/* a packet at 2 s goes out at the link rate, not in a burst making up
	 * for 1.44 s of silence */
	now = 2 * SEC;
	for (k = 1; k <= 10; k++) {
		assert_true(pacer_ready(&pc, now));
		assert_int_equal(pacer_send(&pc, PKT_BYTES, now),
				 2 * SEC + k * 560 * US);
		now = pc.busy_until_ns;
	}
	/* backlogged again and waking 30 ms late: caught up from 2.0056 s */
	now += 30 * MS;
	assert_int_equal(pacer_send(&pc, PKT_BYTES, now), 2 * SEC + 11 * 560 * US);
}

static void test_idle_while_busy_keeps_position(void **state)
{
	struct pacer pc;
	tstamp_ns b = prime(&pc, 10);

	(void)state;
	/* the queue empties while packet 10 is still on the wire; packet 11
	 * arrives before it has finished and starts right behind it */
	pacer_mark_idle(&pc, b - 100 * US);
	assert_false(pacer_ready(&pc, b - 50 * US));
	assert_int_equal(pacer_send(&pc, PKT_BYTES, b), b + 560 * US);
}

/* Sends while the pacer is ready at `now` (a late wake-up): the k-th
 * packet must finish at start + k * 560 us, back to back.  Returns how
 * many were sent. */
static unsigned catch_up(struct pacer *pc, tstamp_ns now, tstamp_ns start)
{
	unsigned sent = 0;

	while (pacer_ready(pc, now)) {
		sent++;
		assert_int_equal(pacer_send(pc, PKT_BYTES, now),
				 start + sent * 560 * US);
	}
	return sent;
}

static void test_catchup_10ms(void **state)
{
	struct pacer pc;
	tstamp_ns b = prime(&pc, 100);

	(void)state;
	assert_int_equal(b, 56 * MS);
	/* the loop wakes 10 ms late: packets 101.. go back to back with the
	 * finish times they would have had, (100 + k) * 560 us;
	 * 17 * 560 us = 9.52 ms <= 10 ms, 18 * 560 us = 10.08 ms > 10 ms:
	 * 18 of them leave at this wake-up */
	assert_int_equal(catch_up(&pc, b + 10 * MS, b), 18);
	/* and the schedule carries on exactly */
	assert_int_equal(pacer_send(&pc, PKT_BYTES, pc.busy_until_ns),
			 119 * 560 * US);
}

static void test_catchup_exactly_50ms(void **state)
{
	struct pacer pc;
	tstamp_ns b = prime(&pc, 100);

	(void)state;
	/* 50 ms is still caught up in full: 89 * 560 us = 49.84 ms, so 90 */
	assert_int_equal(catch_up(&pc, b + 50 * MS, b), 90);
}

static void test_lateness_beyond_50ms_forgiven(void **state)
{
	struct pacer pc;
	tstamp_ns b = prime(&pc, 100);

	(void)state;
	/* 80 ms late: only the last 50 ms are replayed, so the first packet
	 * starts at b + 30 ms and finishes 560 us later; packets follow back
	 * to back until one finishes after now (90 of them, as above) */
	assert_int_equal(catch_up(&pc, b + 80 * MS, b + 30 * MS), 90);
	/* 30 ms of capacity, 75000 bytes, are lost for good */
	assert_int_equal(pc.busy_until_ns, b + 30 * MS + 90 * 560 * US);
}

static void test_idle_cosine(void **state)
{
	struct link_profile p = { .kind = LINK_COSINE, .mean_bps = 20000000,
				  .amplitude = 0.3, .period_s = 15.0 };
	struct ref ref = { .kind = LINK_COSINE, .mean = 2e7L, .amp = 0.3L,
			   .per_s = 15.0L };
	struct pacer pc;
	tstamp_ns f;

	(void)state;
	pacer_init(&pc, &p, 0);
	assert_true(pacer_send(&pc, PKT_BYTES, 0) > 0);
	pacer_mark_idle(&pc, pc.busy_until_ns);
	/* after idling until 3.75 s (C = 20 Mbit/s, rising S by the formula)
	 * a packet needs 11200 bits beyond S(3.75 s), not beyond the old
	 * position */
	f = pacer_send(&pc, PKT_BYTES, 3750 * MS);
	assert_true(ref_bits(&ref, f) - ref_bits(&ref, 3750 * MS) >= 11200 - 1e-3L);
	assert_true(ref_bits(&ref, f - 1) - ref_bits(&ref, 3750 * MS) < 11200 + 1e-3L);
	/* near C(3.75 s) = 20 Mbit/s: about 560 us */
	assert_true(f > 3750 * MS + 550 * US && f < 3750 * MS + 570 * US);
}

static void test_unlimited(void **state)
{
	struct link_profile p = { .kind = LINK_UNLIMITED };
	struct pacer pc;

	(void)state;
	pacer_init(&pc, &p, 5);
	assert_int_equal(pacer_send(&pc, 1500, 10), 10);
	assert_int_equal(pacer_send(&pc, 1500, 10), 10);
	assert_true(pacer_ready(&pc, 10));
}

static void test_set_profile(void **state)
{
	struct link_profile slow = { .kind = LINK_CONSTANT, .rate_bps = 1000000 };
	struct pacer pc;
	tstamp_ns b = prime(&pc, 10);

	(void)state;
	/* swap at b - 100 us while packet 10 is on the wire: it keeps its
	 * finish, the next starts at 1 Mbit/s: 11200 bits take 11.2 ms */
	pacer_set_profile(&pc, &slow, b - 100 * US);
	assert_false(pacer_ready(&pc, b - 1));
	assert_int_equal(pacer_send(&pc, PKT_BYTES, b), b + 11200 * US);
}

/* A packet that was waiting before the swap (avail_ns known, as the
 * core passes backlog_since) must not start until the one on the wire
 * has finished: neither when the loop wakes on time nor when it wakes
 * late and catches up. */
static void test_set_profile_keeps_link_busy(void **state)
{
	struct link_profile slow = { .kind = LINK_CONSTANT, .rate_bps = 1000000 };
	struct pacer pc;
	tstamp_ns b = prime(&pc, 10);

	(void)state;
	pacer_set_profile(&pc, &slow, b - 100 * US);
	assert_int_equal(pacer_start_time(&pc, b, 0), b);
	assert_int_equal(pacer_send_at(&pc, PKT_BYTES, b, 0), b + 11200 * US);

	b = prime(&pc, 10);
	pacer_set_profile(&pc, &slow, b - 100 * US);
	/* woken 300 us late: caught up from b, not from the swap */
	assert_int_equal(pacer_start_time(&pc, b + 300 * US, 0), b);
	assert_int_equal(pacer_send_at(&pc, PKT_BYTES, b + 300 * US, 0),
			 b + 11200 * US);
	/* and the one after continues at 1 Mbit/s */
	assert_int_equal(pacer_send_at(&pc, PKT_BYTES, b + 11200 * US, 0),
			 b + 22400 * US);
}

/* A swap on an idle link starts the new profile at the swap. */
static void test_set_profile_idle(void **state)
{
	struct link_profile slow = { .kind = LINK_CONSTANT, .rate_bps = 1000000 };
	struct pacer pc;
	tstamp_ns b = prime(&pc, 10);

	(void)state;
	pacer_mark_idle(&pc, b);
	pacer_set_profile(&pc, &slow, b + 5 * MS);
	assert_int_equal(pacer_send_at(&pc, PKT_BYTES, b + 6 * MS, 0),
			 b + 5 * MS + 11200 * US);
}

static void test_trace_ending_at_zero(void **state)
{
	struct link_profile p = { 0 };
	struct pacer pc;
	char err[256];

	(void)state;
	/* 8 Mbit/s for 1.5 s = 1500000 bytes: 1071 packets fit (1499400
	 * bytes), the 1072nd never finishes */
	assert_int_equal(link_load_trace(&p, "data/link/ends_zero.csv", err,
					 sizeof(err)), 0);
	pacer_init(&pc, &p, 0);
	while (pacer_ready(&pc, pc.busy_until_ns))
		if (pacer_send(&pc, PKT_BYTES, pc.busy_until_ns) == TS_NEVER)
			break;
	assert_int_equal(pc.busy_until_ns, TS_NEVER);
	assert_true(pc.pos_bits == 1072.0 * 11200);
	link_profile_free(&p);
}

/* ------------------------------------------------------------------
 * Mahimahi
 */

/* Every opportunity up to horizon, by walking the periods of the file's
 * offsets one by one. */
static tstamp_ns *enumerate_opps(const uint32_t *off, unsigned n,
				 tstamp_ns horizon, size_t *count)
{
	uint64_t per_ms = off[n - 1], j;
	size_t cap = 0;
	tstamp_ns *v = NULL;
	unsigned i;

	*count = 0;
	for (j = 0; j * per_ms * MS <= horizon; j++)
		for (i = 0; i < n; i++)
			push_ts(&v, count, &cap, (j * per_ms + off[i]) * MS);
	return v;
}

/* A Mahimahi file, its offsets written out again, and its known mean. */
struct mm_file {
	const char     *label;
	const char     *file;
	const uint32_t *off;
	unsigned        noff;
	uint64_t        mean_bps;
};

static void mm_saturated_case(const struct mm_file *mm, uint32_t len_bytes,
			      tstamp_ns horizon)
{
	struct link_profile p = { 0 };
	struct ref ref = { .kind = LINK_MAHIMAHI };
	tstamp_ns *opps;
	char err[256], name[128];
	struct run r;
	long double worst, lr;
	tstamp_ns lim = horizon - SEC;

	assert_int_equal(link_load_mahimahi(&p, mm->file, err, sizeof(err)), 0);
	assert_int_equal(link_mean_bps(&p), mm->mean_bps);
	opps = enumerate_opps(mm->off, mm->noff, horizon, &ref.nopp);
	ref.opp_ns = opps;
	run_saturated(&r, &p, len_bytes, horizon, 200 * US, 4321);
	/* one opportunity, or one packet when packets are larger */
	worst = check_windows(&r, &ref, lim,
			      len_bytes > OPP_BYTES ? len_bytes : OPP_BYTES);
	lr = longrun_err(&r, &ref, lim);
	assert_true(fabsl(lr) <= OPP_BYTES);
	/* the known mean: bytes served by lim against mean * lim */
	assert_true(fabsl((long double)finished_by(&r, lim) * len_bytes -
			  (long double)mm->mean_bps * (lim / SEC) / 8) <=
		    OPP_BYTES);
	snprintf(name, sizeof(name), "mahimahi %s, %u B", mm->label, len_bytes);
	report(name, worst, lr);
	free(r.fin);
	free(opps);
	link_profile_free(&p);
}

static void test_mahimahi_saturated_mean(void **state)
{
	static const uint32_t tiny_off[] = { 2, 2, 5, 10 };
	static uint32_t m12_off[1000];
	/* 1000 opportunities per 1000 ms: 1000 * 1504 * 8 bit/s */
	static const struct mm_file m12 = {
		"12 Mbit/s (1 opp/ms)", "data/link/mm_12mbit.trace", m12_off,
		1000, 12032000,
	};
	/* 4 opportunities per 10 ms: 4 * 1504 * 8 * 100 bit/s */
	static const struct mm_file tiny = {
		"tiny (2,2,5,10)", "data/link/mm_tiny.trace", tiny_off, 4,
		4812800,
	};
	unsigned i;

	(void)state;
	for (i = 0; i < 1000; i++)
		m12_off[i] = i + 1;
	mm_saturated_case(&m12, PKT_BYTES, 31 * SEC);
	mm_saturated_case(&m12, 100, 11 * SEC);
	mm_saturated_case(&tiny, PKT_BYTES, 31 * SEC);
	mm_saturated_case(&tiny, 3000, 31 * SEC);
}

static void load_12mbit(struct link_profile *p)
{
	char err[256];

	assert_int_equal(link_load_mahimahi(p, "data/link/mm_12mbit.trace",
					    err, sizeof(err)), 0);
}

static void test_mahimahi_packet_sizes(void **state)
{
	struct link_profile p = { 0 };
	struct pacer pc;
	tstamp_ns now;
	unsigned k;

	(void)state;
	load_12mbit(&p);            /* opportunities at 1, 2, 3, ... ms */

	/* 1504 bytes fill one opportunity exactly: one per ms */
	pacer_init(&pc, &p, 0);
	now = 500 * US;
	for (k = 1; k <= 3000; k++) {
		assert_int_equal(pacer_send(&pc, OPP_BYTES, now), k * MS);
		now = pc.busy_until_ns;
	}

	/* 3000 bytes need two: on an idle link at 0.5 ms, opportunities 1
	 * and 2 ms; idle again, a new one at 2.5 ms takes 3 and 4 ms */
	pacer_init(&pc, &p, 0);
	assert_int_equal(pacer_send(&pc, 3000, 500 * US), 2 * MS);
	pacer_mark_idle(&pc, 2 * MS);
	assert_int_equal(pacer_send(&pc, 3000, 2500 * US), 4 * MS);

	/* 100-byte packets while backlogged share an opportunity: packet k
	 * finishes at opportunity ceil(100 k / 1504): k = 1..15 at 1 ms, the
	 * 16th spills 96 bytes into 2 ms, 16..30 at 2 ms, 31 at 3 ms */
	pacer_init(&pc, &p, 0);
	now = 500 * US;
	for (k = 1; k <= 31; k++) {
		tstamp_ns want = (tstamp_ns)((100 * k + OPP_BYTES - 1) /
					     OPP_BYTES) * MS;

		assert_true(pacer_ready(&pc, now));
		assert_int_equal(pacer_send(&pc, 100, now), want);
		now = pc.busy_until_ns;
	}
	assert_int_equal(now, 3 * MS);
	link_profile_free(&p);
}

static void test_mahimahi_idle_wastes(void **state)
{
	struct link_profile p = { 0 };
	struct pacer pc;

	(void)state;
	load_12mbit(&p);
	pacer_init(&pc, &p, 0);
	/* 100 bytes at 0.5 ms ride the 1 ms opportunity */
	assert_int_equal(pacer_send(&pc, 100, 500 * US), 1 * MS);
	/* a packet arriving while that one waits shares the opportunity */
	assert_false(pacer_ready(&pc, 700 * US));
	assert_int_equal(pacer_send(&pc, 100, 1 * MS), 1 * MS);
	/* then the queue is empty at 1 ms: the 1304 bytes left are lost */
	pacer_mark_idle(&pc, 1 * MS);
	assert_int_equal(pacer_send(&pc, 100, 1500 * US), 2 * MS);
	/* empty again at 2 ms; a packet arriving in that very ms is too late
	 * for the 2 ms opportunity (Mahimahi runs its opportunities before
	 * queueing the arrival) */
	pacer_mark_idle(&pc, 2 * MS);
	assert_int_equal(pacer_send(&pc, 100, 2 * MS), 3 * MS);
	/* a long idle spell wastes every opportunity in it */
	pacer_mark_idle(&pc, 3 * MS);
	assert_int_equal(pacer_send(&pc, 1504, 1000 * MS + 1), 1001 * MS);
	link_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant_saturated),
		cmocka_unit_test(test_cosine_saturated),
		cmocka_unit_test(test_trace_saturated),
		cmocka_unit_test(test_idle_gap_loses_capacity),
		cmocka_unit_test(test_idle_while_busy_keeps_position),
		cmocka_unit_test(test_catchup_10ms),
		cmocka_unit_test(test_catchup_exactly_50ms),
		cmocka_unit_test(test_lateness_beyond_50ms_forgiven),
		cmocka_unit_test(test_idle_cosine),
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_set_profile),
		cmocka_unit_test(test_set_profile_keeps_link_busy),
		cmocka_unit_test(test_set_profile_idle),
		cmocka_unit_test(test_trace_ending_at_zero),
		cmocka_unit_test(test_mahimahi_saturated_mean),
		cmocka_unit_test(test_mahimahi_packet_sizes),
		cmocka_unit_test(test_mahimahi_idle_wastes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
