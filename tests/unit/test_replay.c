/* test_replay.c - the anti-replay window (include/sec/replay.h): in
 * order, reordered inside and beyond the window, duplicates, the window's
 * exact edge, jumps that clear the ring, the counter limit, a check that
 * never moves anything, and a long random run against a plain model of
 * the rule (a set of every accepted counter).  Deterministic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sec/replay.h"
#include "util/rng.h"

static void test_in_order(void **state)
{
	struct replay_win w;

	(void)state;
	replay_init(&w);
	for (uint64_t c = 0; c < 3 * REPLAY_WINDOW; c++)
		assert_int_equal(replay_commit(&w, c), REPLAY_OK);
	assert_int_equal(w.top, 3 * REPLAY_WINDOW - 1);
	assert_int_equal(w.late_max, 0);
	/* every one of them, once more: refused, by the right reason */
	for (uint64_t c = 0; c < 3 * REPLAY_WINDOW; c++) {
		enum replay_verdict want = 3 * REPLAY_WINDOW - 1 - c >= REPLAY_WINDOW
					   ? REPLAY_TOO_OLD : REPLAY_DUPLICATE;
		assert_int_equal(replay_commit(&w, c), want);
	}
}

/* The first counter may be anything below the limit; the ones below it
 * that are inside the window were never seen, so they are accepted. */
static void test_first_counter_anywhere(void **state)
{
	struct replay_win w;

	(void)state;
	replay_init(&w);
	assert_int_equal(replay_commit(&w, 1000000), REPLAY_OK);
	assert_int_equal(replay_commit(&w, 1000000 - 1), REPLAY_OK);
	assert_int_equal(replay_commit(&w, 1000000 - (REPLAY_WINDOW - 1)), REPLAY_OK);
	assert_int_equal(replay_commit(&w, 1000000 - REPLAY_WINDOW), REPLAY_TOO_OLD);
	assert_int_equal(w.late_max, REPLAY_WINDOW - 1);
}

/* The edge: top - ctr = WINDOW - 1 accepted, WINDOW refused, for every
 * position of the top inside its block (the spare block's reason). */
static void test_window_edge(void **state)
{
	(void)state;
	for (uint64_t off = 0; off < 2 * REPLAY_BLOCK_BITS; off++) {
		struct replay_win w;
		uint64_t top = 5 * REPLAY_WINDOW + off;

		replay_init(&w);
		for (uint64_t c = top - REPLAY_WINDOW - 70; c <= top; c += 2)
			assert_int_equal(replay_commit(&w, c), REPLAY_OK);
		if ((top - (REPLAY_WINDOW - 1)) % 2 == (top % 2)) {
			assert_int_equal(replay_check(&w, top - (REPLAY_WINDOW - 1)),
					 REPLAY_DUPLICATE);
		} else {
			assert_int_equal(replay_check(&w, top - (REPLAY_WINDOW - 1)),
					 REPLAY_OK);
		}
		assert_int_equal(replay_check(&w, top - REPLAY_WINDOW), REPLAY_TOO_OLD);
		assert_int_equal(replay_check(&w, top - 1), REPLAY_OK);  /* odd gap */
		assert_int_equal(replay_check(&w, top), REPLAY_DUPLICATE);
	}
}

/* Reordered inside the window: each accepted once, in any order. */
static void test_reordered_within(void **state)
{
	struct replay_win w;
	uint64_t st = 7;
	enum { N = 4 * REPLAY_WINDOW };
	static uint64_t order[N];

	(void)state;
	replay_init(&w);
	for (uint64_t i = 0; i < N; i++)
		order[i] = i;
	/* shuffle only within runs of 4000 (< WINDOW): all must pass */
	for (uint64_t base = 0; base < N; base += 4000) {
		uint64_t n = N - base < 4000 ? N - base : 4000;

		for (uint64_t i = n - 1; i > 0; i--) {
			uint64_t j = rng_next(&st) % (i + 1), t = order[base + i];

			order[base + i] = order[base + j];
			order[base + j] = t;
		}
	}
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(replay_commit(&w, order[i]), REPLAY_OK);
	for (uint64_t i = N - 100; i < N; i++)
		assert_int_equal(replay_commit(&w, i), REPLAY_DUPLICATE);
	assert_true(w.late_max > 0 && w.late_max < 8000);
}

/* A jump of exactly one ring, and of many: old bits must not survive as
 * false duplicates, and nothing below the new window passes. */
static void test_jumps_clear(void **state)
{
	struct replay_win w;
	uint64_t ring = (uint64_t)REPLAY_BLOCKS * REPLAY_BLOCK_BITS;

	(void)state;
	replay_init(&w);
	for (uint64_t c = 0; c < 200; c++)
		assert_int_equal(replay_commit(&w, c), REPLAY_OK);
	/* c + ring lands on the same bit as c: it must read as unseen */
	assert_int_equal(replay_commit(&w, 199 + ring), REPLAY_OK);
	for (uint64_t c = 199 + ring - (REPLAY_WINDOW - 1); c < 199 + ring; c++)
		assert_int_equal(replay_check(&w, c), REPLAY_OK);
	assert_int_equal(replay_commit(&w, 150 + ring), REPLAY_OK);
	assert_int_equal(replay_commit(&w, 150 + ring), REPLAY_DUPLICATE);
	assert_int_equal(replay_check(&w, 150), REPLAY_TOO_OLD);
	/* a jump of 2^40: the whole ring cleared once, no loop over 2^34 blocks */
	assert_int_equal(replay_commit(&w, (uint64_t)1 << 40), REPLAY_OK);
	assert_int_equal(replay_check(&w, ((uint64_t)1 << 40) - 1), REPLAY_OK);
	assert_int_equal(replay_check(&w, 150 + ring), REPLAY_TOO_OLD);
}

/* The counter never wraps: the limit and above are refused, before and
 * after the window reached the top of the range; the last counter below
 * the limit works. */
static void test_counter_limit(void **state)
{
	struct replay_win w;

	(void)state;
	replay_init(&w);
	assert_int_equal(replay_check(&w, UINT64_MAX), REPLAY_LIMIT);
	assert_int_equal(replay_commit(&w, REPLAY_CTR_LIMIT), REPLAY_LIMIT);
	assert_int_equal(w.any, 0);
	assert_int_equal(replay_commit(&w, REPLAY_CTR_LIMIT - 1), REPLAY_OK);
	assert_int_equal(replay_commit(&w, REPLAY_CTR_LIMIT - 1), REPLAY_DUPLICATE);
	assert_int_equal(replay_commit(&w, REPLAY_CTR_LIMIT - 2), REPLAY_OK);
	assert_int_equal(replay_commit(&w, 0), REPLAY_TOO_OLD);
	assert_int_equal(replay_commit(&w, UINT64_MAX), REPLAY_LIMIT);
	assert_int_equal(replay_commit(&w, REPLAY_CTR_LIMIT), REPLAY_LIMIT);
	assert_int_equal(w.top, REPLAY_CTR_LIMIT - 1);
}

/* replay_check is pure: a refused or accepted check leaves the window
 * byte for byte as it was (a forged datagram's counter moves nothing). */
static void test_check_changes_nothing(void **state)
{
	struct replay_win w, before;

	(void)state;
	replay_init(&w);
	for (uint64_t c = 10; c < 300; c += 3)
		replay_commit(&w, c);
	memcpy(&before, &w, sizeof(w));
	assert_int_equal(replay_check(&w, 1000000), REPLAY_OK);
	assert_int_equal(replay_check(&w, 11), REPLAY_OK);
	assert_int_equal(replay_check(&w, 13), REPLAY_DUPLICATE);
	assert_int_equal(replay_check(&w, UINT64_MAX), REPLAY_LIMIT);
	assert_memory_equal(&before, &w, sizeof(w));
}

/* The model: every accepted counter kept in a sorted-free bitmap over a
 * bounded range; accept iff below the limit, not accepted before, and
 * (nothing yet, or above the top, or less than WINDOW below it). */
#define MODEL_RANGE (1u << 20)
static void test_against_model(void **state)
{
	static uint8_t seen[MODEL_RANGE];
	struct replay_win w;
	uint64_t st = 12345, top = 0, center = 20000;
	int any = 0;
	unsigned accepted = 0, refused = 0;

	(void)state;
	memset(seen, 0, sizeof(seen));
	replay_init(&w);
	for (int i = 0; i < 2000000; i++) {
		/* counters near a slowly advancing center: mostly fresh, some
		 * late by up to 1.5 windows, some far ahead */
		uint64_t r = rng_next(&st) % 1000, c;

		if (r < 990)
			c = center + rng_next(&st) % 64 - 32 - (r < 100 ? rng_next(&st) %
						(REPLAY_WINDOW * 3 / 2) : 0);
		else
			c = center + rng_next(&st) % 3000;
		if (c >= MODEL_RANGE)
			break;
		center += rng_next(&st) % 3 == 0;
		int ok = !seen[c] && (!any || c > top || top - c < REPLAY_WINDOW);
		enum replay_verdict v = replay_commit(&w, c);

		assert_int_equal(v == REPLAY_OK, ok);
		if (ok) {
			seen[c] = 1;
			if (!any || c > top)
				top = c;
			any = 1;
			accepted++;
		} else {
			assert_int_equal(v, seen[c] && top - c < REPLAY_WINDOW
					    ? REPLAY_DUPLICATE : REPLAY_TOO_OLD);
			refused++;
		}
	}
	assert_int_equal(w.top, top);
	/* the run exercised both sides of the rule */
	assert_true(accepted > 100000 && refused > 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_first_counter_anywhere),
		cmocka_unit_test(test_window_edge),
		cmocka_unit_test(test_reordered_within),
		cmocka_unit_test(test_jumps_clear),
		cmocka_unit_test(test_counter_limit),
		cmocka_unit_test(test_check_changes_nothing),
		cmocka_unit_test(test_against_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
