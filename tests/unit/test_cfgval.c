/* test_cfgval.c - the configuration value layer's key tables: parsing a
 * group against a table, the relations, open and closed ranges, values
 * set from command-line text, and the reference printed from the table.
 * Messages are compared whole: they are the contract (DESIGN §2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libconfig.h>

#include "cfgval/cfgval.h"
#include "util/jw.h"
#include "util/tstamp.h"
#include "util/units.h"
#include "testutil.h"

struct demo {
	uint64_t count;
	uint32_t small;         /* a 4-byte field: stored without overrun */
	uint8_t  tiny;
	uint64_t size_bytes;
	double   share;
	double   closed;
	int      flag;
	uint64_t rate_bps;
	uint64_t hold_ns;
	char     name[8];
	uint64_t a_bytes, b_bytes;
	uint64_t w;
};

static const struct cfg_key demo_keys[] = {
	{ .name = "count", .type = CFG_T_UINT, .min = 1, .max = 10,
	  CFG_FIELD(struct demo, count), .def = "1", .help = "a count" },
	{ .name = "small", .type = CFG_T_UINT, .min = 0, .max = 70000,
	  CFG_FIELD(struct demo, small) },
	{ .name = "tiny", .type = CFG_T_UINT, .min = 0, .max = 255,
	  CFG_FIELD(struct demo, tiny) },
	{ .name = "size", .type = CFG_T_BYTES, .min = 64, .max = 1500,
	  CFG_FIELD(struct demo, size_bytes), .unit = "bytes" },
	{ .name = "share", .type = CFG_T_NUMBER, .lo = 0, .hi = 1,
	  .flags = CFG_F_LO_OPEN | CFG_F_HI_OPEN,
	  CFG_FIELD(struct demo, share), .unit = "a fraction of C" },
	{ .name = "closed", .type = CFG_T_NUMBER, .lo = 0, .hi = 2,
	  CFG_FIELD(struct demo, closed) },
	{ .name = "flag", .type = CFG_T_BOOL, CFG_FIELD(struct demo, flag) },
	{ .name = "rate", .type = CFG_T_RATE, CFG_FIELD(struct demo, rate_bps) },
	{ .name = "hold", .type = CFG_T_DURATION, .min = NS_PER_MS,
	  .max = NS_PER_SEC, CFG_FIELD(struct demo, hold_ns) },
	{ .name = "name", .type = CFG_T_STRING, CFG_FIELD(struct demo, name) },
	{ .name = "pair", .type = CFG_T_GROUP },
	{ .name = "pair.a", .type = CFG_T_BYTES, .min = 1, .max = 9000,
	  CFG_FIELD(struct demo, a_bytes) },
	{ .name = "pair.b", .type = CFG_T_BYTES, .min = 1, .max = 9000,
	  CFG_FIELD(struct demo, b_bytes) },
	{ .name = "alt", .type = CFG_T_UINT, .min = 1, .max = 5,
	  CFG_FIELD(struct demo, w), .excludes = "pair",
	  .accepted = "either pair or alt" },
	{ .name = "extra", .type = CFG_T_CUSTOM, .needs = "alt",
	  .accepted = "extra with alt" },
	{ .name = NULL },
};

/* Parses `text`'s group g against demo_keys; the messages, one per line,
 * into msgs (NUL-terminated).  Returns the error count. */
static int parse(const char *text, struct demo *out, struct cfg_status *st,
		 char *msgs, size_t len)
{
	config_t cfg;
	struct diag d;
	FILE *f;
	int n;

	memset(msgs, 0, len);   /* fmemopen leaves an untouched buffer as is */
	f = fmemopen(msgs, len, "w");
	assert_non_null(f);
	memset(out, 0, sizeof(*out));
	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg, text), CONFIG_TRUE);
	diag_init(&d, f, "t.conf");
	n = cfg_parse_keys(config_lookup(&cfg, "g"), demo_keys, out, st, &d);
	assert_int_equal(n, d.nerr);
	fclose(f);
	config_destroy(&cfg);
	return n;
}

static void test_valid_values(void **state)
{
	struct demo v;
	struct cfg_status st;
	char msgs[2048];

	(void)state;
	assert_int_equal(parse("g = { count = 3; small = 65536; tiny = 255; "
			       "size = 1500; share = 0.25; closed = 2; "
			       "flag = true; rate = \"20Mbit\"; hold = \"5ms\"; "
			       "name = \"abcdefg\"; pair = { a = 1; b = 9000; }; "
			       "};", &v, &st, msgs, sizeof(msgs)), 0);
	assert_string_equal(msgs, "");
	assert_int_equal(v.count, 3);
	assert_int_equal(v.small, 65536);
	assert_int_equal(v.tiny, 255);
	assert_int_equal(v.size_bytes, 1500);
	assert_true(v.share == 0.25);
	assert_true(v.closed == 2.0);
	assert_int_equal(v.flag, 1);
	assert_int_equal(v.rate_bps, 20000000);
	assert_int_equal(v.hold_ns, 5 * NS_PER_MS);
	assert_string_equal(v.name, "abcdefg");
	assert_int_equal(v.a_bytes, 1);
	assert_int_equal(v.b_bytes, 9000);
	assert_int_equal(cfg_status_of(&st, "count"), 1);
	assert_int_equal(cfg_status_of(&st, "pair"), 1);
	assert_int_equal(cfg_status_of(&st, "alt"), 0);
	assert_int_equal(cfg_status_of(&st, "no such key"), 0);
}

/* Absent group, absent keys: nothing changes, nothing is reported. */
static void test_absent(void **state)
{
	struct demo v;
	struct cfg_status st;

	(void)state;
	memset(&v, 0x5a, sizeof(v));
	assert_int_equal(cfg_parse_keys(NULL, demo_keys, &v, &st, NULL), 0);
	assert_int_equal(v.count, 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(cfg_status_of(&st, "count"), 0);
}

static void test_messages(void **state)
{
	struct demo v;
	struct cfg_status st;
	char msgs[4096];

	(void)state;
	assert_int_equal(parse("g = {\n"
			       " count = 11;\n"
			       " share = 1;\n"
			       " closed = 2.5;\n"
			       " size = 1.5;\n"
			       " flag = 2;\n"
			       " hold = \"2s\";\n"
			       " name = \"abcdefgh\";\n"
			       " pair = 5;\n"
			       " colour = 1;\n"
			       "};", &v, &st, msgs, sizeof(msgs)), 9);
	assert_string_equal(msgs,
		"t.conf:10: g.colour: unknown key (accepted: count, small, "
		"tiny, size, share, closed, flag, rate, hold, name, pair, alt, "
		"extra)\n"
		"t.conf:2: g.count: 11 is out of range (accepted: 1..10)\n"
		"t.conf:5: g.size: 1.5 is not an integer (accepted: "
		"64..1500 bytes)\n"
		"t.conf:3: g.share: 1 is out of range (accepted: 0 < share < 1, "
		"a fraction of C)\n"
		"t.conf:4: g.closed: 2.5 is out of range (accepted: 0..2)\n"
		"t.conf:6: g.flag: 2 is not a boolean (accepted: true, false)\n"
		"t.conf:7: g.hold: '2s' is out of range (accepted: 1ms..1s)\n"
		"t.conf:8: g.name: 'abcdefgh' is too long (accepted: at most 7 "
		"characters)\n"
		"t.conf:9: g.pair: 5 is not a group (accepted: { a, b })\n");
	assert_int_equal(cfg_status_of(&st, "count"), -1);
	assert_int_equal(cfg_status_of(&st, "pair"), -1);
	assert_int_equal(cfg_status_of(&st, "rate"), 0);
}

/* The open ends are exact: 0 and 1 are refused, their neighbours taken. */
static void test_open_range_edges(void **state)
{
	struct demo v;
	char msgs[1024];

	(void)state;
	assert_int_equal(parse("g = { share = 0.0; };", &v, NULL, msgs,
			       sizeof(msgs)), 1);
	assert_int_equal(parse("g = { share = 1e-9; };", &v, NULL, msgs,
			       sizeof(msgs)), 0);
	assert_true(v.share == 1e-9);
	assert_int_equal(parse("g = { share = 0.999999; };", &v, NULL, msgs,
			       sizeof(msgs)), 0);
	assert_int_equal(parse("g = { closed = 0; };", &v, NULL, msgs,
			       sizeof(msgs)), 0);
}

/* A relation is a mistake of shape: reported before any value. */
static void test_relations(void **state)
{
	struct demo v;
	char msgs[2048];

	(void)state;
	assert_int_equal(parse("g = {\n pair = { a = 0; };\n alt = 2;\n"
			       " extra = 1;\n};", &v, NULL, msgs,
			       sizeof(msgs)), 2);
	assert_string_equal(msgs,
		"t.conf:3: g.alt: given together with pair (line 2) "
		"(accepted: either pair or alt)\n"
		"t.conf:2: g.pair.a: 0 is out of range (accepted: 1..9000 "
		"bytes)\n");
	assert_int_equal(parse("g = {\n extra = 1;\n};", &v, NULL, msgs,
			       sizeof(msgs)), 1);
	assert_string_equal(msgs, "t.conf:2: g.extra: has no effect without "
			    "alt (accepted: extra with alt)\n");
}

/* A required key: "missing" at the group's line, and nothing stored. */
static void test_required(void **state)
{
	static const struct cfg_key req[] = {
		{ .name = "count", .type = CFG_T_UINT, .min = 1, .max = 10,
		  CFG_FIELD(struct demo, count), .missing = "1..10 packets" },
		{ .name = NULL },
	};
	char msgs[512] = "";
	FILE *f = fmemopen(msgs, sizeof(msgs), "w");
	struct demo v;
	config_t cfg;
	struct diag d;

	(void)state;
	assert_non_null(f);
	memset(&v, 0, sizeof(v));
	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg, "x = 1;\ng = {\n};\n"),
			 CONFIG_TRUE);
	diag_init(&d, f, "t.conf");
	assert_int_equal(cfg_parse_keys(config_lookup(&cfg, "g"), req, &v,
					NULL, &d), 1);
	fclose(f);
	assert_string_equal(msgs, "t.conf:2: g.count: missing (accepted: "
			    "1..10 packets)\n");
	assert_int_equal(v.count, 0);
	config_destroy(&cfg);
}

/* From text as a command line gives it: the same ranges and words. */
static void test_set_from_text(void **state)
{
	static const struct { const char *key, *text, *err; } refused[] = {
		{ "share", "1", "'1' is out of range (accepted: 0 < share < 1, "
				"a fraction of C)" },
		{ "size", "4000", "'4000' is out of range (accepted: 64..1500 "
				  "bytes)" },
		{ "rate", "fast", "'fast' is not a rate (accepted: a number > 0 "
				  "with bit, " },       /* a prefix */
		{ "count", "two", "'two' is not an integer (accepted: 1..10)" },
		{ "flag", "yes", "'yes' is not a boolean (accepted: true, "
				 "false)" },
		{ "nope", "1", "'nope' is not a key" },
		{ "pair", "1", "'1' is not settable as one value" },
	};
	static const struct { const char *key, *text; } taken[] = {
		{ "share", "0.3" }, { "size", "1400" }, { "rate", "5Mbit" },
		{ "hold", "250ms" }, { "flag", "true" }, { "count", "2.0" },
	};
	struct demo v;
	char err[512];
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(refused); i++) {
		assert_int_equal(cfg_set_key(demo_keys, &v, refused[i].key,
					     refused[i].text, err,
					     sizeof(err)), -1);
		assert_memory_equal(err, refused[i].err,
				    strlen(refused[i].err));
	}
	memset(&v, 0, sizeof(v));
	for (i = 0; i < TU_LEN(taken); i++)
		assert_int_equal(cfg_set_key(demo_keys, &v, taken[i].key,
					     taken[i].text, err, sizeof(err)), 0);
	assert_true(v.share == 0.3);
	assert_int_equal(v.size_bytes, 1400);
	assert_int_equal(v.rate_bps, 5000000);
	assert_int_equal(v.hold_ns, 250 * NS_PER_MS);
	assert_int_equal(v.flag, 1);
	assert_int_equal(v.count, 2);
}

/* cfg_lookup: members and dotted paths through nested groups; NULL for
 * an absent member anywhere on the path, a NULL parent (an absent group),
 * a parent that is not a group, and a path through a scalar or a list. */
static void test_lookup(void **state)
{
	config_t cfg;
	const config_setting_t *g, *s;

	(void)state;
	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg,
		"g = { a = 1; p = { q = { r = 2; }; }; l = ( { m = 3; } ); "
		"v = [ 4, 5 ]; };"), CONFIG_TRUE);
	g = config_lookup(&cfg, "g");
	assert_non_null(g);
	assert_null(cfg_lookup(NULL, "a"));
	assert_null(cfg_lookup(NULL, "p.q"));
	s = cfg_lookup(g, "a");
	assert_non_null(s);
	assert_int_equal(config_setting_get_int(s), 1);
	s = cfg_lookup(g, "p.q.r");
	assert_non_null(s);
	assert_int_equal(config_setting_get_int(s), 2);
	assert_ptr_equal(cfg_lookup(cfg_lookup(g, "p"), "q.r"), s);
	assert_true(config_setting_is_group(cfg_lookup(g, "p.q")));
	assert_null(cfg_lookup(g, "b"));
	assert_null(cfg_lookup(g, "p.x"));
	assert_null(cfg_lookup(g, "x.q.r"));
	assert_null(cfg_lookup(g, "p.q.r.s"));         /* through a scalar */
	assert_null(cfg_lookup(g, "l.m"));             /* through a list */
	assert_null(cfg_lookup(cfg_lookup(g, "a"), "a"));
	assert_null(cfg_lookup(cfg_lookup(g, "l"), "m"));
	assert_null(cfg_lookup(cfg_lookup(g, "v"), "a"));
	assert_null(cfg_lookup(cfg_lookup(g, "l"), "[0]"));
	config_destroy(&cfg);
}

/* The reference names every key, its range and its default. */
static void test_reference(void **state)
{
	char buf[8192] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	const struct cfg_key *k;

	(void)state;
	assert_non_null(f);
	cfg_print_keys(f, "scheduler.demo", demo_keys, 1);
	fclose(f);
	for (k = demo_keys; k->name; k++) {
		char key[96];

		snprintf(key, sizeof(key), "| `scheduler.demo.%s` |", k->name);
		assert_non_null(strstr(buf, key));
	}
	assert_non_null(strstr(buf, "| `scheduler.demo.count` | 1..10 | 1 | "
				    "a count |"));
	assert_non_null(strstr(buf, "| 0 < share < 1, a fraction of C |"));
	assert_non_null(strstr(buf, "| `scheduler.demo.pair` | { a, b } |"));
}

/* The custom entry of the JSON test: its name and a marker. */
static void json_custom(struct jw *w, const struct cfg_key *k, void *ctx)
{
	jw_str(w, k->name, ctx);
}

/* A table's values as JSON: every entry under its own name, fields of
 * each size read back, a group as an object, the custom entry from its
 * callback; then a setting as written, and the reference. */
static void test_json(void **state)
{
	static char buf[8192];
	struct demo v;
	struct cfg_status st;
	char msgs[2048];
	config_t cfg;
	struct jw w;

	(void)state;
	assert_int_equal(parse("g = { count = 3; small = 65536; tiny = 255; "
			       "size = 1500; share = 0.3; closed = 2; "
			       "flag = true; rate = \"12.5Mbit\"; hold = "
			       "\"1.5ms\"; name = \"a\\\"b\"; pair = { a = 1; "
			       "b = 9000; }; };", &v, &st, msgs, sizeof(msgs)), 0);
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	cfg_json_values(&w, demo_keys, &v, json_custom, "custom");
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_string_equal(buf, "{\"count\": 3, \"small\": 65536, "
		"\"tiny\": 255, \"size\": 1500, \"share\": 0.3, "
		"\"closed\": 2, \"flag\": true, \"rate\": 12500000, "
		"\"hold\": 1500000, \"name\": \"a\\\"b\", "
		"\"pair\": {\"a\": 1, \"b\": 9000}, \"alt\": 0, "
		"\"extra\": \"custom\"}\n");
	/* no callback: a custom entry is null; an unlimited rate a word */
	v.rate_bps = RATE_UNLIMITED;
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	cfg_json_values(&w, demo_keys, &v, NULL, NULL);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_non_null(strstr(buf, "\"rate\": \"unlimited\""));
	assert_non_null(strstr(buf, "\"extra\": null}"));

	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg, "g = { l = [1, 2]; "
		"s = \"20Mbit\"; f = 0.5; b = false; big = 5000000000L; "
		"e = (); };"), CONFIG_TRUE);
	jw_init(&w, buf, sizeof(buf));
	cfg_json_setting(&w, NULL, config_lookup(&cfg, "g"));
	assert_true(jw_finish(&w) > 0);
	assert_string_equal(buf, "{\"l\": [1, 2], \"s\": \"20Mbit\", "
		"\"f\": 0.5, \"b\": false, \"big\": 5000000000, "
		"\"e\": []}\n");
	config_destroy(&cfg);

	jw_init(&w, buf, sizeof(buf));
	jw_arr_begin(&w, NULL);
	cfg_json_reference(&w, "g", demo_keys);
	jw_arr_end(&w);
	assert_true(jw_finish(&w) > 0);
	assert_non_null(strstr(buf, "{\"key\": \"g.count\", \"type\": "
		"\"uint\", \"range\": \"1..10\", \"default\": \"1\", "
		"\"help\": \"a count\", \"min\": 1, \"max\": 10}"));
	assert_non_null(strstr(buf, "{\"key\": \"g.share\", \"type\": "
		"\"number\", \"range\": \"0 < share < 1, a fraction of C\", "
		"\"default\": null, \"help\": \"\", \"unit\": "
		"\"a fraction of C\", \"min\": 0, \"max\": 1, "
		"\"min_open\": true, \"max_open\": true}"));
	assert_non_null(strstr(buf, "{\"key\": \"g.hold\", \"type\": "
		"\"duration\", \"range\": \"1ms..1s\", \"default\": null, "
		"\"help\": \"\", \"min\": 1000000, \"max\": 1000000000}"));
	assert_non_null(strstr(buf, "\"key\": \"g.pair.b\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_values),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_open_range_edges),
		cmocka_unit_test(test_relations),
		cmocka_unit_test(test_required),
		cmocka_unit_test(test_set_from_text),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
