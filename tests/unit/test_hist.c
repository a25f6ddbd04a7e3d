/* test_hist.c - histogram quantiles within the documented 1/16 error, and
 * the JSON writer's exact output and overflow behaviour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "util/hist.h"
#include "util/jw.h"

static struct hist h;

static void test_hist_small_exact(void **state)
{
	(void)state;
	hist_reset(&h);
	assert_int_equal(hist_quantile_ns(&h, 0.99), 0);
	hist_add(&h, 3);
	hist_add(&h, 5);
	hist_add(&h, 7);
	assert_int_equal(hist_quantile_ns(&h, 0.5), 5);   /* values < 16 exact */
	assert_int_equal(hist_quantile_ns(&h, 1.0), 7);
	assert_true(hist_avg_ns(&h) == 5.0);
}

static void test_hist_p99_bounded_error(void **state)
{
	uint64_t v, q;

	(void)state;
	hist_reset(&h);
	/* 1..10000 us: the true p99 is 9900 us */
	for (v = 1; v <= 10000; v++)
		hist_add(&h, v * 1000);
	q = hist_quantile_ns(&h, 0.99);
	assert_true(q >= 9900000);
	assert_true(q <= 9900000 + 9900000 / 16);
	assert_int_equal(h.max_ns, 10000000);
	assert_int_equal(hist_quantile_ns(&h, 1.0), 10000000);
	/* all equal: every quantile is that value */
	hist_reset(&h);
	for (v = 0; v < 100; v++)
		hist_add(&h, 250000000);
	assert_int_equal(hist_quantile_ns(&h, 0.99), 250000000);
	hist_add(&h, UINT64_MAX);       /* no overflow of the bucket index */
	assert_int_equal(hist_quantile_ns(&h, 1.0), UINT64_MAX);
}

static void test_jw_exact(void **state)
{
	char buf[256];
	struct jw w;
	int n;

	(void)state;
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_double(&w, "t", 1.5, 3);
	jw_obj_begin(&w, "a");
	jw_u64(&w, "x", 1);
	jw_i64(&w, "y", -2);
	jw_obj_end(&w);
	jw_str(&w, "s", "q\"\\\n");
	jw_double(&w, "n", 0.0 / 0.0, 1);
	jw_obj_end(&w);
	n = jw_finish(&w);
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "{\"t\": 1.500, \"a\": {\"x\": 1, \"y\": -2}, "
				 "\"s\": \"q\\\"\\\\\\u000a\", \"n\": null}\n");
}

static void test_jw_overflow(void **state)
{
	char buf[16];
	struct jw w;

	(void)state;
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_u64(&w, "abcdefghij", 12345);
	jw_obj_end(&w);
	assert_int_equal(jw_finish(&w), -1);
}

/* The fine precision: the same rule at 1/1024.  Every quantile of 1..N us
 * (N = 100000, so the ranks are exact) is within [exact, exact (1 +
 * 1/1024)); the coarse histogram of the same values is allowed 1/16, and
 * at least one of its quantiles is off by more than the fine bound, so the
 * two really differ in precision. */
static void test_hist_fine_bounded_error(void **state)
{
	static struct hist_fine f;
	static const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999 };
	const uint64_t n = 100000;
	int coarse_worse = 0;
	uint64_t v;

	(void)state;
	hist_fine_reset(&f);
	hist_reset(&h);
	assert_int_equal(hist_fine_quantile_ns(&f, 0.5), 0);
	for (v = 1; v <= n; v++) {
		hist_fine_add(&f, v * 1000);
		hist_add(&h, v * 1000);
	}
	assert_true(hist_fine_avg_ns(&f) == hist_avg_ns(&h));
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t exact = (uint64_t)(qs[i] * (double)n + 0.5) * 1000;
		uint64_t got = hist_fine_quantile_ns(&f, qs[i]);
		uint64_t coarse = hist_quantile_ns(&h, qs[i]);

		assert_true(got >= exact);
		assert_true((double)got < (double)exact * (1.0 + 1.0 / HIST_FINE_SUB));
		assert_true(coarse >= exact);
		assert_true((double)coarse < (double)exact * (1.0 + 1.0 / HIST_SUB));
		if ((double)coarse >= (double)exact * (1.0 + 1.0 / HIST_FINE_SUB))
			coarse_worse = 1;
	}
	assert_true(coarse_worse);
	assert_int_equal(hist_fine_quantile_ns(&f, 1.0), n * 1000);
	assert_int_equal(f.max_ns, n * 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_small_exact),
		cmocka_unit_test(test_hist_p99_bounded_error),
		cmocka_unit_test(test_hist_fine_bounded_error),
		cmocka_unit_test(test_jw_exact),
		cmocka_unit_test(test_jw_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
