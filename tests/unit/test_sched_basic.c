/* test_sched_basic.c - the registry, the instance life cycle and the two
 * baseline schedulers (fifo, prio), on a virtual clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <libconfig.h>

#include "conf/conf.h"
#include "pkt/pkt.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "testutil.h"

#define POOL_PKTS 64u

static struct sched_env env;

/* fifo and prio never drop (the core enforces the class limits): the
 * teardown fails on any drop no test took, and on a packet left over. */
static int setup(void **state)
{
	(void)state;
	tu_sched_env(&env, 20000000);
	env.mtu_bytes = 1400;
	return tu_pool_init(POOL_PKTS, 1500);
}

/* A packet of class cls, identified by id (kept in seq). */
static struct pkt *mk(enum pkt_class cls, uint32_t id)
{
	struct pkt *p = tu_pkt(cls, 100 + id, id);

	p->enq_ns = 1000 + id;
	return p;
}

/* Creates an instance the way the core does: defaults, then init. */
static void create(struct sched *s, const struct sched_ops *ops)
{
	tu_sched_create(s, ops, NULL, &env);
	assert_ptr_equal(s->ops, ops);
	assert_non_null(s->priv);
}

/* Dequeues one packet, checks it is `id` (and that peek announced it),
 * frees it. */
static void expect_next(struct sched *s, uint32_t id, tstamp_ns now)
{
	const struct pkt *peeked = s->ops->peek(s->priv, now);
	struct pkt *p = sched_dequeue(s, now);

	assert_non_null(p);
	assert_ptr_equal(peeked, p);
	assert_int_equal(p->seq, id);
	/* the scheduler leaves the core's enqueue stamp alone */
	assert_true(p->enq_ns == 1000 + id);
	pkt_free(p);
}

static void expect_empty(struct sched *s, tstamp_ns now)
{
	assert_null(s->ops->peek(s->priv, now));
	assert_null(sched_dequeue(s, now));
	assert_true(sched_next_event(s, now) == TS_NEVER);
}

static void test_lookup_and_names(void **state)
{
	char buf[256];

	(void)state;
	assert_ptr_equal(sched_lookup("fifo"), &sched_fifo_ops);
	assert_ptr_equal(sched_lookup("prio"), &sched_prio_ops);
	assert_null(sched_lookup("nope"));
	assert_null(sched_lookup("FIFO"));
	assert_null(sched_lookup(""));
	assert_null(sched_lookup(NULL));
	assert_ptr_equal(sched_registry[0], &sched_fifo_ops);
	assert_ptr_equal(sched_registry[1], &sched_prio_ops);

	assert_ptr_equal(sched_names(buf, sizeof(buf)), buf);
	/* later schedulers are appended after these two */
	assert_int_equal(strncmp(buf, "fifo | prio", 11), 0);
	assert_true(buf[11] == '\0' || strncmp(buf + 11, " | ", 3) == 0);

	/* too small a buffer: whole names only, still a C string */
	memset(buf, 'x', sizeof(buf));
	sched_names(buf, 8);
	assert_string_equal(buf, "fifo");
	memset(buf, 'x', sizeof(buf));
	sched_names(buf, 11);
	assert_string_equal(buf, "fifo");
	memset(buf, 'x', sizeof(buf));
	sched_names(buf, 3);
	assert_string_equal(buf, "");
	buf[0] = 'x';
	sched_names(buf, 0);
	assert_int_equal(buf[0], 'x');
}

static void test_drop_reason_names(void **state)
{
	(void)state;
	assert_string_equal(drop_reason_name[DROP_CLASS_LIMIT], "class_limit");
	assert_string_equal(drop_reason_name[DROP_SCHED_LIMIT], "sched_limit");
	assert_string_equal(drop_reason_name[DROP_PUSHOUT], "pushout");
	assert_string_equal(drop_reason_name[DROP_EXPIRED], "expired");
	assert_string_equal(drop_reason_name[DROP_ADMISSION], "admission");
	assert_string_equal(drop_reason_name[DROP_LATE], "late");
	assert_string_equal(drop_reason_name[DROP_ORDER], "out_of_order");
	assert_string_equal(drop_reason_name[DROP_RECONF], "reconf");
}

static void test_ops_tables_complete(void **state)
{
	const struct sched_ops *const *o;

	(void)state;
	for (o = sched_registry; *o; o++) {
		assert_non_null((*o)->name);
		assert_non_null((*o)->summary);
		assert_true((*o)->params_size <= SCHED_PARAMS_MAX);
		assert_true((*o)->priv_size > 0);
		assert_non_null((*o)->defaults);
		/* keys may be NULL: no keys of its own */
		assert_non_null((*o)->init);
		assert_non_null((*o)->destroy);
		assert_non_null((*o)->enqueue);
		assert_non_null((*o)->dequeue);
		assert_non_null((*o)->peek);
		assert_non_null((*o)->next_event);
		assert_non_null((*o)->drain);
		assert_non_null((*o)->dump_stats);
	}
}

static void test_fifo_order(void **state)
{
	static const enum pkt_class cls[] = {
		CLS_CS0, CLS_EF, CLS_AF, CLS_CS0, CLS_EF, CLS_EF, CLS_AF, CLS_CS0,
	};
	const uint32_t n = sizeof(cls) / sizeof(cls[0]);
	struct sched s;
	uint32_t i;

	(void)state;
	create(&s, &sched_fifo_ops);
	expect_empty(&s, 0);
	for (i = 0; i < n; i++)
		sched_enqueue(&s, mk(cls[i], i), 10 * i);
	assert_true(sched_next_event(&s, 100) == TS_NEVER);
	/* arrival order, whatever the class */
	for (i = 0; i < 3; i++)
		expect_next(&s, i, 100);
	sched_enqueue(&s, mk(CLS_EF, 100), 200);
	for (i = 3; i < n; i++)
		expect_next(&s, i, 300);
	expect_next(&s, 100, 300);
	expect_empty(&s, 400);
	sched_destroy(&s);
	assert_null(s.ops);
	assert_null(s.priv);
	sched_destroy(&s);              /* twice: harmless */
}

static void test_prio_order(void **state)
{
	struct sched s;

	(void)state;
	create(&s, &sched_prio_ops);
	expect_empty(&s, 0);
	/* interleaved arrivals */
	sched_enqueue(&s, mk(CLS_CS0, 0), 0);
	sched_enqueue(&s, mk(CLS_AF, 1), 1);
	sched_enqueue(&s, mk(CLS_CS0, 2), 2);
	sched_enqueue(&s, mk(CLS_EF, 3), 3);
	sched_enqueue(&s, mk(CLS_AF, 4), 4);
	sched_enqueue(&s, mk(CLS_EF, 5), 5);
	assert_true(sched_next_event(&s, 10) == TS_NEVER);

	expect_next(&s, 3, 10);         /* EF, in arrival order */
	expect_next(&s, 5, 10);
	expect_next(&s, 1, 10);         /* then AF */
	/* a late EF arrival overtakes the queued AF and CS0 */
	sched_enqueue(&s, mk(CLS_EF, 6), 11);
	expect_next(&s, 6, 12);
	expect_next(&s, 4, 12);
	sched_enqueue(&s, mk(CLS_AF, 7), 13);
	sched_enqueue(&s, mk(CLS_CS0, 8), 13);
	expect_next(&s, 7, 14);
	expect_next(&s, 0, 14);         /* CS0 last, in arrival order */
	expect_next(&s, 2, 14);
	expect_next(&s, 8, 14);
	expect_empty(&s, 15);
	sched_destroy(&s);
}

/* An out-of-range class (a core bug) is served as CS0, not out of bounds. */
static void test_prio_bad_class(void **state)
{
	struct sched s;
	struct pkt *p;

	(void)state;
	create(&s, &sched_prio_ops);
	p = mk(CLS_CS0, 0);
	p->cls = 7;
	sched_enqueue(&s, p, 0);
	sched_enqueue(&s, mk(CLS_AF, 1), 0);
	expect_next(&s, 1, 0);
	expect_next(&s, 0, 0);
	sched_destroy(&s);
}

/* drain() hands back every packet exactly once, each class in arrival
 * order, and leaves the scheduler empty. */
static void check_drain(const struct sched_ops *ops)
{
	static const enum pkt_class cls[] = {
		CLS_AF, CLS_CS0, CLS_EF, CLS_AF, CLS_CS0, CLS_CS0, CLS_EF, CLS_AF,
		CLS_EF, CLS_CS0,
	};
	const uint32_t n = sizeof(cls) / sizeof(cls[0]);
	int seen[sizeof(cls) / sizeof(cls[0])] = { 0 };
	int64_t last[NCLASS] = { -1, -1, -1 };
	struct sched s;
	struct pkt *p;
	uint32_t i, got = 0;

	create(&s, ops);
	for (i = 0; i < n; i++)
		sched_enqueue(&s, mk(cls[i], i), i);
	while ((p = s.ops->drain(s.priv))) {
		assert_true(p->seq < n);
		assert_int_equal(seen[p->seq], 0);
		seen[p->seq] = 1;
		assert_int_equal(p->cls, cls[p->seq]);
		assert_true((int64_t)p->seq > last[p->cls]);
		last[p->cls] = p->seq;
		assert_null(p->next);
		got++;
		pkt_free(p);
	}
	assert_int_equal(got, n);
	expect_empty(&s, 100);
	assert_int_equal(pkt_pool_in_use(), 0);
	sched_destroy(&s);
}

static void test_drain(void **state)
{
	(void)state;
	check_drain(&sched_fifo_ops);
	check_drain(&sched_prio_ops);
}

static void check_destroy_frees(const struct sched_ops *ops)
{
	struct sched s;
	uint32_t i;

	create(&s, ops);
	for (i = 0; i < 30; i++)
		sched_enqueue(&s, mk((enum pkt_class)(i % NCLASS), i), i);
	assert_int_equal(pkt_pool_in_use(), 30);
	sched_destroy(&s);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_destroy_frees_queued(void **state)
{
	(void)state;
	check_destroy_frees(&sched_fifo_ops);
	check_destroy_frees(&sched_prio_ops);
}

static int parse_text(const struct sched_ops *ops, const char *text)
{
	static unsigned char params[SCHED_PARAMS_MAX];
	config_t cfg;
	const config_setting_t *grp;
	struct diag d;
	int n;

	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg, text), CONFIG_TRUE);
	grp = config_lookup(&cfg, "scheduler.g");
	assert_non_null(grp);
	diag_init(&d, NULL, "test.conf");
	n = sched_parse(ops, grp, params, &d);
	assert_int_equal(n, d.nerr);
	config_destroy(&cfg);
	return n;
}

static void test_parse_rejects_keys(void **state)
{
	const struct sched_ops *ops[] = { &sched_fifo_ops, &sched_prio_ops };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct diag d;

		diag_init(&d, NULL, "test.conf");
		assert_int_equal(sched_parse(ops[i], NULL, NULL, &d), 0);
		assert_int_equal(d.nerr, 0);
		assert_int_equal(parse_text(ops[i], "scheduler = { g = { }; };"), 0);
		assert_int_equal(parse_text(ops[i],
				 "scheduler = { g = { quantum = 3; }; };"), 1);
		assert_int_equal(parse_text(ops[i],
				 "scheduler = { g = { a = 1; b = \"x\"; }; };"), 2);
	}
}

static void test_dump_stats(void **state)
{
	char buf[512];
	struct jw w;
	struct sched s;

	(void)state;
	create(&s, &sched_prio_ops);
	sched_enqueue(&s, mk(CLS_EF, 1), 0);      /* 101 bytes */
	sched_enqueue(&s, mk(CLS_CS0, 2), 0);     /* 102 bytes */
	sched_enqueue(&s, mk(CLS_CS0, 3), 0);     /* 103 bytes */
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	s.ops->dump_stats(s.priv, &w);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_string_equal(buf,
		"{\"qlen_pkts\": {\"ef\": 1, \"af\": 0, \"cs0\": 2}, "
		"\"qlen_bytes\": {\"ef\": 101, \"af\": 0, \"cs0\": 205}}\n");
	sched_destroy(&s);

	create(&s, &sched_fifo_ops);
	sched_enqueue(&s, mk(CLS_AF, 4), 0);
	sched_enqueue(&s, mk(CLS_EF, 5), 0);
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	s.ops->dump_stats(s.priv, &w);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_string_equal(buf, "{\"qlen_pkts\": 2, \"qlen_bytes\": 209}\n");
	sched_destroy(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_names),
		cmocka_unit_test(test_drop_reason_names),
		cmocka_unit_test(test_ops_tables_complete),
		cmocka_unit_test_setup_teardown(test_fifo_order, setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_prio_order, setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_prio_bad_class, setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_drain, setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_frees_queued,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_parse_rejects_keys,
						setup, tu_pool_teardown),
		cmocka_unit_test_setup_teardown(test_dump_stats, setup, tu_pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
