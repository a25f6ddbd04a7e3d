/* test_jw.c - the JSON writer's counters: deltas against a memo of the
 * previous line, committed only with a complete line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/jw.h"

static char buf[4096];

/* {"s": {"a": {"n": v}, "m": v2}} with counters n, m, and the line. */
static const char *line(struct jw_memo *m, uint64_t v, uint64_t v2,
			int commit)
{
	struct jw w;

	jw_init(&w, buf, sizeof(buf));
	if (m)
		jw_use_memo(&w, m);
	jw_obj_begin(&w, NULL);
	jw_obj_begin(&w, "s");
	jw_obj_begin(&w, "a");
	jw_counter(&w, "n", v);
	jw_obj_end(&w);
	jw_counter(&w, "m", v2);
	jw_obj_end(&w);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	if (m && commit)
		jw_memo_commit(m);
	return buf;
}

static void test_counter_deltas(void **state)
{
	static struct jw_memo m;

	(void)state;
	/* no memo: cumulative, and nothing remembered */
	assert_string_equal(line(NULL, 10, 20, 0),
			    "{\"s\": {\"a\": {\"n\": 10}, \"m\": 20}}\n");
	jw_memo_reset(&m);
	/* first line: nothing remembered yet */
	assert_string_equal(line(&m, 10, 20, 1),
			    "{\"s\": {\"a\": {\"n\": 10}, \"m\": 20}}\n");
	assert_string_equal(line(&m, 15, 20, 1),
			    "{\"s\": {\"a\": {\"n\": 5}, \"m\": 0}}\n");
	/* a line not committed (it failed further on) is not a base */
	assert_string_equal(line(&m, 18, 21, 0),
			    "{\"s\": {\"a\": {\"n\": 3}, \"m\": 1}}\n");
	assert_string_equal(line(&m, 19, 22, 1),
			    "{\"s\": {\"a\": {\"n\": 4}, \"m\": 2}}\n");
	/* below the memo: a new instance, counting from 0 */
	assert_string_equal(line(&m, 2, 30, 1),
			    "{\"s\": {\"a\": {\"n\": 2}, \"m\": 8}}\n");
	jw_memo_reset(&m);
	assert_string_equal(line(&m, 40, 50, 1),
			    "{\"s\": {\"a\": {\"n\": 40}, \"m\": 50}}\n");
}

/* A counter the memo cannot hold is written as null, never as a wrong
 * delta: a path longer than JW_MEMO_PATH_MAX, or one counter too many. */
static void test_counter_unknown(void **state)
{
	static struct jw_memo m;
	char key[JW_MEMO_PATH_MAX + 8], name[16];
	struct jw w;
	int i;

	(void)state;
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	jw_memo_reset(&m);
	jw_init(&w, buf, sizeof(buf));
	jw_use_memo(&w, &m);
	jw_obj_begin(&w, NULL);
	for (i = 0; i < JW_MEMO_MAX; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		jw_counter(&w, name, 7);
	}
	jw_counter(&w, "extra", 7);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_non_null(strstr(buf, "\"c31\": 7, \"extra\": null}"));

	jw_memo_reset(&m);
	jw_init(&w, buf, sizeof(buf));
	jw_use_memo(&w, &m);
	jw_obj_begin(&w, NULL);
	jw_counter(&w, key, 7);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_non_null(strstr(buf, "\": null}"));
}

/* Arrays, booleans, null and reals that read back exactly: what the
 * tools' --json outputs are made of. */
static void test_arrays_and_reals(void **state)
{
	struct jw w;

	(void)state;
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_arr_begin(&w, "a");
	jw_u64(&w, NULL, 46);
	jw_str(&w, NULL, "x\"y");
	jw_arr_begin(&w, NULL);
	jw_arr_end(&w);
	jw_arr_end(&w);
	jw_real(&w, "third", 1.0 / 3.0);
	jw_real(&w, "p3", 0.3);
	jw_real(&w, "big", 1e20);
	jw_real(&w, "nan", NAN);
	jw_bool(&w, "t", 1);
	jw_bool(&w, "f", 0);
	jw_null(&w, "n");
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_string_equal(buf, "{\"a\": [46, \"x\\\"y\", []], "
			    "\"third\": 0.3333333333333333, \"p3\": 0.3, "
			    "\"big\": 1e+20, \"nan\": null, \"t\": true, "
			    "\"f\": false, \"n\": null}\n");
	/* an array left open is not a complete line */
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_arr_begin(&w, "a");
	jw_obj_end(&w);
	assert_int_equal(jw_finish(&w), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_deltas),
		cmocka_unit_test(test_counter_unknown),
		cmocka_unit_test(test_arrays_and_reals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
