/* test_flowtab.c - the flow table (include/util/flowtab.h): capacity bound,
 * expiry exactly at the timeout, held entries never reclaimed, bounded
 * reclaim work, and a long random run over many hashes against a plain
 * model of the contract.  Virtual time only; deterministic. */
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/flowtab.h"

#define T_NS 1000u              /* idle timeout of the scripted tests */

struct flow {                   /* the owner's payload */
	uint32_t key;
	uint32_t stamp;
};

static unsigned int nreclaimed;
static uint32_t last_reclaimed;

static void on_reclaim(void *payload, void *arg)
{
	const struct flow *f = payload;

	(void)arg;
	nreclaimed++;
	last_reclaimed = f->key;
}

/* A table of cap entries, timeout T_NS, reclaims counted. */
static void open_table(struct flowtab *ft, uint32_t cap)
{
	nreclaimed = 0;
	assert_int_equal(flowtab_init(ft, cap, sizeof(struct flow), T_NS,
				      on_reclaim, NULL), 0);
}

/* get() that must create a new entry; marks it with key. */
static struct flow *create(struct flowtab *ft, uint32_t key, tstamp_ns now)
{
	int created;
	struct flow *f = flowtab_get(ft, key, now, &created);

	assert_non_null(f);
	assert_int_equal(created, 1);
	assert_int_equal(f->key, 0);            /* zeroed */
	assert_int_equal(f->stamp, 0);
	assert_true((uintptr_t)f % alignof(max_align_t) == 0);
	f->key = key;
	return f;
}

/* get() that must find key's existing entry. */
static struct flow *existing(struct flowtab *ft, uint32_t key, tstamp_ns now)
{
	int created;
	struct flow *f = flowtab_get(ft, key, now, &created);

	assert_non_null(f);
	assert_int_equal(created, 0);
	assert_int_equal(f->key, key);
	return f;
}

static void test_init_limits(void **state)
{
	struct flowtab ft;

	(void)state;
	assert_int_equal(flowtab_init(&ft, 0, 8, T_NS, NULL, NULL), -1);
	assert_int_equal(flowtab_init(&ft, FLOWTAB_CAP_MAX + 1, 8, T_NS, NULL,
				      NULL), -1);
	assert_int_equal(flowtab_init(&ft, 1, 0, T_NS, NULL, NULL), 0);
	assert_int_equal(flowtab_count(&ft), 0);
	flowtab_destroy(&ft);
	flowtab_destroy(&ft);   /* harmless twice */
}

/* Eight slots: the ninth new hash is refused while the eight live, and
 * takes the longest idle slot once that one has expired. */
static void test_capacity_bound(void **state)
{
	struct flowtab ft;
	int created;
	uint32_t k;

	(void)state;
	open_table(&ft, 8);
	for (k = 1; k <= 8; k++)
		create(&ft, k, k);
	assert_int_equal(flowtab_count(&ft), 8);
	assert_null(flowtab_get(&ft, 9, 100, &created));
	assert_int_equal(created, 0);
	for (k = 1; k <= 8; k++)
		existing(&ft, k, 100 + k);      /* all restart their idle time */
	assert_null(flowtab_get(&ft, 9, 101 + T_NS, &created));
	assert_int_equal(nreclaimed, 0);
	/* key 1, idle since 101, expires after 101 + T; the reap takes it
	 * (and key 2, idle since 102, stays: exactly T) */
	create(&ft, 9, 102 + T_NS);
	assert_int_equal(nreclaimed, 1);
	assert_int_equal(last_reclaimed, 1);
	assert_int_equal(flowtab_count(&ft), 8);
	assert_null(flowtab_find(&ft, 1, 102 + T_NS));
	assert_non_null(flowtab_find(&ft, 2, 102 + T_NS));
	assert_int_equal(flowtab_hash_of(flowtab_find(&ft, 9, 0)), 9);
	flowtab_destroy(&ft);
}

/* Idle exactly the timeout: still there; one ns more: gone, and the
 * same hash then starts a new entry. */
static void test_expiry_boundary(void **state)
{
	struct flowtab ft;
	struct flow *f;

	(void)state;
	open_table(&ft, 4);
	f = create(&ft, 42, 0);
	f->stamp = 1;
	assert_ptr_equal(flowtab_find(&ft, 42, T_NS), f);
	f = existing(&ft, 42, T_NS);            /* idle again from T */
	assert_int_equal(f->stamp, 1);
	assert_ptr_equal(flowtab_find(&ft, 42, 2 * T_NS), f);  /* find: no touch */
	assert_int_equal(nreclaimed, 0);
	assert_null(flowtab_find(&ft, 42, 2 * T_NS + 1));
	assert_int_equal(nreclaimed, 1);
	assert_int_equal(flowtab_count(&ft), 0);
	f = create(&ft, 42, 2 * T_NS + 1);
	assert_int_equal(f->stamp, 0);

	/* an earlier `now` (a dequeue behind the latest enqueue) counts as
	 * the latest: the idle time starts at 5T, not 4T */
	flowtab_hold(&ft, f);
	assert_non_null(flowtab_find(&ft, 42, 5 * T_NS));
	flowtab_release(&ft, f, 4 * T_NS);
	assert_non_null(flowtab_find(&ft, 42, 6 * T_NS));
	assert_null(flowtab_find(&ft, 42, 6 * T_NS + 1));
	flowtab_destroy(&ft);
}

/* A held entry survives any idle time and a full table; released, it
 * ages from the release. */
static void test_held_not_reclaimed(void **state)
{
	struct flowtab ft;
	struct flow *a;
	int created;

	(void)state;
	open_table(&ft, 2);
	a = create(&ft, 1, 0);
	flowtab_hold(&ft, a);
	flowtab_hold(&ft, a);                   /* two packets queued */
	create(&ft, 2, 0);
	create(&ft, 3, 10 * T_NS);              /* takes 2's slot */
	assert_int_equal(nreclaimed, 1);
	assert_int_equal(last_reclaimed, 2);
	assert_null(flowtab_get(&ft, 4, 10 * T_NS, &created));
	assert_int_equal(flowtab_expire(&ft, 100 * T_NS, 10), 1);  /* 3 */
	assert_int_equal(last_reclaimed, 3);
	assert_ptr_equal(flowtab_find(&ft, 1, 100 * T_NS), a);
	flowtab_release(&ft, a, 100 * T_NS);
	assert_ptr_equal(flowtab_find(&ft, 1, 101 * T_NS), a);  /* still 1 */
	flowtab_release(&ft, a, 101 * T_NS);
	assert_int_equal(flowtab_expire(&ft, 102 * T_NS, 10), 0);
	assert_int_equal(flowtab_expire(&ft, 102 * T_NS + 1, 10), 1);
	assert_int_equal(last_reclaimed, 1);
	assert_int_equal(flowtab_count(&ft), 0);
	flowtab_destroy(&ft);
}

/* Equal hashes are one entry; remove frees a slot without on_reclaim;
 * reclaim work per call is bounded however many entries expired. */
static void test_shared_remove_bounded(void **state)
{
	struct flowtab ft;
	struct flow *f;
	uint32_t k;

	(void)state;
	open_table(&ft, 1000);
	f = create(&ft, 7, 0);
	assert_ptr_equal(existing(&ft, 7, 0), f);       /* "another flow" */
	flowtab_remove(&ft, f);
	assert_int_equal(nreclaimed, 0);
	assert_null(flowtab_find(&ft, 7, 0));
	for (k = 1; k <= 1000; k++)
		create(&ft, k, 0);
	create(&ft, 5000, 2 * T_NS);
	/* all 1000 expired; the new hash's call reclaims a bounded few */
	assert_int_equal(nreclaimed, FLOWTAB_REAP_PER_CALL);
	assert_int_equal(flowtab_count(&ft), 1001 - nreclaimed);
	flowtab_destroy(&ft);
}

/* ---- many hashes against a model -------------------------------------- */

#define NKEYS 1200u
#define CAP   256u
#define T_RND 1000u

struct model {
	int present;
	uint32_t refs;
	tstamp_ns idle_since;
	struct flow *f;
};

static struct model m[NKEYS];
static uint32_t keys[NKEYS];
static tstamp_ns m_clock;       /* the latest `now` the table was given */
static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((lcg_state >> 33) % n);
}

/* A table call with `now` is about to happen. */
static void m_tick(tstamp_ns now)
{
	if (now > m_clock)
		m_clock = now;
}

static int m_live(uint32_t i)
{
	return m[i].present &&
	       (m[i].refs || m_clock - m[i].idle_since <= T_RND);
}

static uint32_t m_count_live(void)
{
	uint32_t j, n = 0;

	for (j = 0; j < NKEYS; j++)
		n += (uint32_t)m_live(j);
	return n;
}

/* A reclaim must hit an entry the model says has expired. */
static void model_reclaim(void *payload, void *arg)
{
	const struct flow *f = payload;

	(void)arg;
	assert_true(f->stamp < NKEYS);
	assert_int_equal(keys[f->stamp], f->key);
	assert_true(m[f->stamp].present);
	assert_false(m_live(f->stamp));
	m[f->stamp].present = 0;
	nreclaimed++;
}

/* get(): the entry the model has, or a new one unless CAP live entries
 * (unexpired or held) fill the table; at most a bounded number of
 * reclaims, each of an expired entry. */
static void m_get(struct flowtab *ft, uint32_t i, tstamp_ns now,
		  uint32_t *nfull, uint32_t *ncreated)
{
	unsigned int before = nreclaimed;
	int was_live, created;
	struct flow *f;

	m_tick(now);
	was_live = m_live(i);
	f = flowtab_get(ft, keys[i], now, &created);

	assert_true(nreclaimed - before <= FLOWTAB_REAP_PER_CALL + 1);
	if (was_live) {
		assert_ptr_equal(f, m[i].f);
		assert_int_equal(created, 0);
		m[i].idle_since = m_clock;
		return;
	}
	assert_false(m[i].present);     /* an expired one was reclaimed */
	if (m_count_live() == CAP) {
		assert_null(f);
		(*nfull)++;
		return;
	}
	assert_non_null(f);
	assert_int_equal(created, 1);
	f->key = keys[i];
	f->stamp = i;
	m[i] = (struct model){ 1, 0, m_clock, f };
	(*ncreated)++;
	if (lcg(4) == 0) {              /* the flow queues packets */
		flowtab_hold(ft, f);
		m[i].refs++;
	}
}

static void test_many_hashes(void **state)
{
	struct flowtab ft;
	uint32_t i, nfull = 0, ncreated = 0;
	int step;

	(void)state;
	memset(m, 0, sizeof(m));
	lcg_state = 99;
	for (i = 0; i < NKEYS; i++)     /* random 32-bit hashes, distinct */
		keys[i] = ((lcg(1u << 16) << 16 | lcg(1u << 16)) & ~1u) |
			  (i & 1u);
	m_clock = 0;
	nreclaimed = 0;
	assert_int_equal(flowtab_init(&ft, CAP, sizeof(struct flow), T_RND,
				      model_reclaim, NULL), 0);
	for (step = 0; step < 300000; step++) {
		/* time moves on; now and then a call comes with a `now` up
		 * to 50 ticks behind, which the table takes as its latest */
		static tstamp_ns t;
		tstamp_ns now;
		uint32_t op = lcg(100);

		t += lcg(4);
		now = lcg(20) || t < 50 ? t : t - lcg(50);
		/* a working set of flows drifting through the keys */
		i = (uint32_t)((step / 50 + lcg(CAP + CAP / 4)) % NKEYS);
		if (op < 70) {
			m_get(&ft, i, now, &nfull, &ncreated);
		} else if (op < 85) {
			if (m[i].refs) {
				m_tick(now);
				flowtab_release(&ft, m[i].f, now);
				if (--m[i].refs == 0)
					m[i].idle_since = m_clock;
			}
		} else if (op < 95) {
			struct flow *f;

			m_tick(now);
			f = flowtab_find(&ft, keys[i], now);
			assert_ptr_equal(f, m_live(i) ? m[i].f : NULL);
			if (f) {
				assert_int_equal(flowtab_hash_of(f), keys[i]);
				assert_int_equal(f->stamp, i);
			}
		} else {
			m_tick(now);
			flowtab_expire(&ft, now, 1 + lcg(3));
		}
	}
	/* the run met a full table, many creations and many expiries */
	assert_true(nfull > 100);
	assert_true(ncreated > 10000);
	assert_true(nreclaimed > 5000);
	assert_int_equal(ncreated - nreclaimed, flowtab_count(&ft));
	assert_true(flowtab_count(&ft) <= CAP);
	flowtab_destroy(&ft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_limits),
		cmocka_unit_test(test_capacity_bound),
		cmocka_unit_test(test_expiry_boundary),
		cmocka_unit_test(test_held_not_reclaimed),
		cmocka_unit_test(test_shared_remove_bounded),
		cmocka_unit_test(test_many_hashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
