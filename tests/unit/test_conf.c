/* test_conf.c - configuration loading, its diagnostics and the cfg_*
 * helpers the schedulers use.  Runs in tests/unit (fixtures under
 * data/conf/, the shipped examples under ../../conf/). */
#include <arpa/inet.h>
#include <libconfig.h>
#include <limits.h>
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
#include "link/link.h"
#include "pkt/classify.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/units.h"
#include "testutil.h"

#define D "data/conf/"

#define RATE_ACC "(accepted: a number > 0 with bit, kbit, mbit, gbit, " \
	"tbit, kibit..tibit, or bps, kbps, mbps, gbps, tbps, kibps..tibps = " \
	"bytes/s as in tc; a plain number is bit/s"
#define DUR_ACC "(accepted: a number >= 0 with ns, us, ms, s (also nsec, " \
	"usec, msec, sec, secs); a plain number is seconds)"

/* ---- helpers ------------------------------------------------------------ */

static struct conf g_conf;      /* big: keep it off the stack */

/* The loads: tu_conf_load (count), tu_conf_load_ok (a file that must load
 * cleanly; the caller conf_free()s), tu_conf_expect (a file whose
 * diagnostics must be exactly the text given). */

static const char *starts_with(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)) != 0)
		fail_msg("'%s' does not start with '%s'", s, prefix);
	return s + strlen(prefix);
}

/* a is family's ip:port, with the length of that family's sockaddr. */
static void assert_addr(const struct conf_addr *a, int family, const char *ip,
			unsigned port)
{
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&a->ss;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a->ss;
	int v6 = family == AF_INET6;
	char buf[INET6_ADDRSTRLEN];

	assert_int_equal(a->ss.ss_family, family);
	assert_int_equal(a->len, v6 ? sizeof(*s6) : sizeof(*s4));
	assert_non_null(inet_ntop(family, v6 ? (const void *)&s6->sin6_addr
					     : (const void *)&s4->sin_addr,
				  buf, sizeof(buf)));
	assert_string_equal(buf, ip);
	assert_int_equal(ntohs(v6 ? s6->sin6_port : s4->sin_port), port);
}

static void assert_default_map(const struct dscp_map *m)
{
	struct dscp_map def;

	dscp_map_default(&def);
	assert_memory_equal(m->cls_of, def.cls_of, sizeof(def.cls_of));
}

/* Everything conf_defaults() promises except path, sched_params. */
static void assert_defaults(const struct conf *c)
{
	assert_string_equal(c->tun_name, "tun0");
	assert_int_equal(c->has_address, 0);
	assert_int_equal(c->mtu_bytes, 1400);
	assert_addr(&c->listen, AF_INET, "0.0.0.0", 5000);
	assert_int_equal(c->has_peer, 0);
	assert_int_equal(c->pool_pkts, 16384);
	assert_int_equal(c->offload, 1);
	assert_int_equal(c->tun_gro, 1);
	assert_int_equal(c->realtime_prio, 0);
	assert_int_equal(c->link.kind, LINK_CONSTANT);
	assert_int_equal(c->link.rate_bps, 20000000);
	assert_int_equal(link_mean_bps(&c->link), 20000000);
	assert_int_equal(c->delay_ns, 0);
	assert_int_equal(c->slack_ns, 0);
	assert_int_equal(c->spin_ns, 20 * NS_PER_US);
	assert_default_map(&c->dscp);
	assert_int_equal(c->limit_pkts[CLS_EF], 100);
	assert_int_equal(c->limit_pkts[CLS_AF], 1000);
	assert_int_equal(c->limit_pkts[CLS_CS0], 1000);
	assert_non_null(c->sched);
	assert_ptr_equal(c->sched, sched_lookup("prio"));
	assert_int_equal(c->stats_interval_ns, 1000000000ULL);
	assert_string_equal(c->stats_file, "");
}

/* The scheduler env the core derives from c. */
static struct sched_env env_of(const struct conf *c)
{
	struct sched_env env;

	conf_sched_env(c, &env);
	return env;
}

/* ---- whole files: valid ------------------------------------------------- */

static void test_defaults(void **state)
{
	(void)state;
	conf_defaults(&g_conf);
	assert_defaults(&g_conf);
	assert_string_equal(g_conf.path, "");
	conf_free(&g_conf);
}

static void test_empty_file(void **state)
{
	(void)state;
	tu_conf_load_ok(D "empty.conf", &g_conf);
	assert_string_equal(tu_conf_diag(), "");
	assert_defaults(&g_conf);
	assert_string_equal(g_conf.path, D "empty.conf");
	conf_free(&g_conf);
}

static void test_full_round_trip(void **state)
{
	struct sched_env env;

	(void)state;
	tu_conf_load_ok(D "full.conf", &g_conf);
	assert_string_equal(g_conf.path, D "full.conf");
	assert_string_equal(g_conf.tun_name, "st0");
	assert_int_equal(g_conf.has_address, 1);
	assert_int_equal(g_conf.addr_family, AF_INET);
	assert_memory_equal(g_conf.addr, "\x0a\x0a\x00\x01", 4);
	assert_int_equal(g_conf.addr_prefix, 24);
	assert_int_equal(g_conf.mtu_bytes, 1300);
	assert_addr(&g_conf.listen, AF_INET, "127.0.0.1", 6000);
	assert_int_equal(g_conf.has_peer, 1);
	assert_addr(&g_conf.peer, AF_INET, "10.0.0.2", 5001);
	assert_int_equal(g_conf.pool_pkts, 4096);
	assert_int_equal(g_conf.offload, 0);
	assert_int_equal(g_conf.tun_gro, 0);
	assert_int_equal(g_conf.realtime_prio, 50);
	assert_int_equal(g_conf.link.kind, LINK_CONSTANT);
	assert_int_equal(g_conf.link.rate_bps, 12500000);
	assert_int_equal(g_conf.delay_ns, 250000000ULL);
	assert_int_equal(g_conf.slack_ns, 50 * NS_PER_US);
	assert_int_equal(g_conf.spin_ns, 0);
	/* the lists given are the defaults: the map is unchanged */
	assert_default_map(&g_conf.dscp);
	assert_int_equal(g_conf.limit_pkts[CLS_EF], 64);
	assert_int_equal(g_conf.limit_pkts[CLS_AF], 500);
	assert_int_equal(g_conf.limit_pkts[CLS_CS0], 700);
	assert_ptr_equal(g_conf.sched, sched_lookup("fifo"));
	assert_int_equal(g_conf.stats_interval_ns, 500000000ULL);
	assert_string_equal(g_conf.stats_file, "/tmp/schedtun-test.jsonl");

	env = env_of(&g_conf);
	assert_int_equal(env.capacity_bps, 12500000);
	assert_int_equal(env.mtu_bytes, 1300);
	assert_int_equal(env.limit_pkts[CLS_EF], 64);
	assert_int_equal(env.limit_pkts[CLS_AF], 500);
	assert_int_equal(env.limit_pkts[CLS_CS0], 700);
	assert_null(env.drop);
	assert_null(env.owner);
	assert_null(env.trace);
	conf_free(&g_conf);
}

/* Integer rate (bit/s) and float delay (seconds) are accepted too. */
static void test_numeric_rate_and_delay(void **state)
{
	(void)state;
	tu_conf_expect_file(D "unknown_root.conf", &g_conf, 1);
	/* the same keys without the typo'd group */
	{
		config_t cfg;
		uint64_t v = 0;
		struct diag d;

		config_init(&cfg);
		assert_int_equal(config_read_string(&cfg,
			"link = { rate = 10000000; delay = 0.25; };"),
			CONFIG_TRUE);
		diag_init(&d, NULL, "x");
		assert_int_equal(cfg_rate(config_lookup(&cfg, "link"), "rate", 1,
					  &v, &d), 1);
		assert_int_equal(v, 10000000);
		assert_int_equal(cfg_duration(config_lookup(&cfg, "link"),
					      "delay", 0, 10 * NS_PER_SEC,
					      &v, &d), 1);
		assert_int_equal(v, 250000000ULL);
		assert_int_equal(d.nerr, 0);
		config_destroy(&cfg);
	}
}

static void test_unlimited_link(void **state)
{
	(void)state;
	tu_conf_load_ok(D "unlimited.conf", &g_conf);
	assert_int_equal(g_conf.link.kind, LINK_UNLIMITED);
	assert_int_equal(env_of(&g_conf).capacity_bps, 0);
	assert_int_equal(env_of(&g_conf).mtu_bytes, 1400);
	conf_free(&g_conf);
}

static void test_cosine_profile(void **state)
{
	(void)state;
	tu_conf_load_ok(D "cosine.conf", &g_conf);
	assert_int_equal(g_conf.link.kind, LINK_COSINE);
	assert_int_equal(g_conf.link.mean_bps, 20000000);
	assert_true(g_conf.link.amplitude == 0.3);
	assert_true(g_conf.link.period_s == 15.0);
	assert_int_equal(g_conf.delay_ns, 250000000ULL);
	assert_int_equal(env_of(&g_conf).capacity_bps, 20000000);
	conf_free(&g_conf);
}

/* The file name is relative to the config file, not to the cwd. */
static void test_trace_profile(void **state)
{
	(void)state;
	tu_conf_load_ok(D "trace_ok.conf", &g_conf);
	assert_int_equal(g_conf.link.kind, LINK_TRACE);
	assert_int_equal(g_conf.link.npts, 3);
	assert_int_equal(g_conf.link.pts[0].t_ns, 0);
	assert_int_equal(g_conf.link.pts[0].rate_bps, 20000000);
	assert_int_equal(g_conf.link.pts[1].t_ns, 10 * NS_PER_SEC);
	assert_int_equal(g_conf.link.pts[1].rate_bps, 5000000);
	assert_int_equal(g_conf.link.pts[2].t_ns, 20 * NS_PER_SEC);
	assert_int_equal(g_conf.link.pts[2].rate_bps, 20000000);
	assert_string_equal(g_conf.link.source, D "traces/ok.csv");
	assert_int_equal(g_conf.delay_ns, 250000000ULL);
	conf_free(&g_conf);
	assert_null(g_conf.link.pts);
}

/* An absolute file name is used as it is. */
static void test_trace_absolute_path(void **state)
{
	char cwd[PATH_MAX], trace[PATH_MAX + 64], text[2 * PATH_MAX];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(trace, sizeof(trace), "%s/" D "traces/ok.csv", cwd);
	/* a file outside the tree: a relative name would not be found */
	snprintf(text, sizeof(text), "link = {\n  profile = { kind = \"trace\"; "
		 "file = \"%s\"; };\n};\n", trace);
	assert_int_equal(tu_conf_load_text(text, "abs.conf", &g_conf), 0);
	assert_int_equal(g_conf.link.kind, LINK_TRACE);
	assert_int_equal(g_conf.link.npts, 3);
	assert_string_equal(g_conf.link.source, trace);
	conf_free(&g_conf);
}

static void test_mahimahi_profile(void **state)
{
	(void)state;
	tu_conf_load_ok(D "mahimahi.conf", &g_conf);
	assert_int_equal(g_conf.link.kind, LINK_MAHIMAHI);
	assert_int_equal(g_conf.link.nopps, 1);
	assert_int_equal(g_conf.link.mm_period_ms, 1);
	/* one 1504-byte opportunity per ms */
	assert_int_equal(env_of(&g_conf).capacity_bps, 12032000);
	conf_free(&g_conf);
}

static void test_classes_remap(void **state)
{
	int cp;

	(void)state;
	tu_conf_load_ok(D "classes_ok.conf", &g_conf);
	assert_int_equal(g_conf.limit_pkts[CLS_EF], 50);
	assert_int_equal(g_conf.limit_pkts[CLS_AF], 2000);
	assert_int_equal(g_conf.limit_pkts[CLS_CS0], 3000);
	for (cp = 0; cp < 64; cp++) {
		int want = CLS_CS0;

		if (cp == 46)
			want = CLS_EF;
		else if (cp == 10 || cp == 12 || cp == 44)
			want = CLS_AF;
		/* 34 is AF41 by default but listed in cs0; 14, 18, ... were
		 * AF defaults that af's own list no longer names */
		if (g_conf.dscp.cls_of[cp] != want)
			fail_msg("dscp %d: class %d, want %d", cp,
				 g_conf.dscp.cls_of[cp], want);
	}
	conf_free(&g_conf);
}

static void test_classes_empty_list(void **state)
{
	struct dscp_map def;
	int cp;

	(void)state;
	tu_conf_load_ok(D "classes_empty.conf", &g_conf);
	dscp_map_default(&def);
	for (cp = 0; cp < 64; cp++) {
		int want = def.cls_of[cp] == CLS_EF ? CLS_CS0 : def.cls_of[cp];

		assert_int_equal(g_conf.dscp.cls_of[cp], want);
	}
	assert_int_equal(g_conf.dscp.cls_of[46], CLS_CS0);
	assert_int_equal(g_conf.dscp.cls_of[44], CLS_CS0);
	assert_int_equal(g_conf.dscp.cls_of[10], CLS_AF);
	assert_int_equal(g_conf.limit_pkts[CLS_EF], 100);
	conf_free(&g_conf);
}

static void test_sched_selected(void **state)
{
	(void)state;
	tu_conf_load_ok(D "sched_ok.conf", &g_conf);
	assert_ptr_equal(g_conf.sched, sched_lookup("fifo"));
	conf_free(&g_conf);
}

static void test_stats_off(void **state)
{
	(void)state;
	tu_conf_load_ok(D "stats_off.conf", &g_conf);
	assert_int_equal(g_conf.stats_interval_ns, 0);
	assert_string_equal(g_conf.stats_file, "-");
	conf_free(&g_conf);
}

/* The marker section: defaults (off, seed 1), and a file that marks EF
 * with two colours (yellow to AF's lowest code point, 10) and AF with
 * three (explicit code points, which decide the classes joined). */
static void test_marker(void **state)
{
	const struct marker_cls *ef, *af;

	(void)state;
	tu_conf_load_ok(D "stats_off.conf", &g_conf);
	assert_false(marker_params_on(&g_conf.marker));
	assert_int_equal(g_conf.marker.seed, 1);
	conf_free(&g_conf);

	tu_conf_load_ok(D "marker_ok.conf", &g_conf);
	ef = &g_conf.marker.cls[CLS_EF];
	af = &g_conf.marker.cls[CLS_AF];
	assert_true(marker_params_on(&g_conf.marker));
	assert_int_equal(g_conf.marker.seed, 7);
	assert_true(ef->on && af->on && !g_conf.marker.cls[CLS_CS0].on);
	assert_int_equal(ef->tsw.committed_bps, 267000);
	assert_int_equal(ef->tsw.peak_bps, 0);
	assert_int_equal(ef->tsw.window_ns, 500 * NS_PER_MS);
	assert_int_equal(ef->flows, 64);
	assert_int_equal(ef->yellow_dscp, 10);
	assert_int_equal(ef->yellow_cls, CLS_AF);
	assert_int_equal(ef->red_dscp, 0);
	assert_int_equal(ef->red_cls, CLS_CS0);
	assert_int_equal(af->tsw.committed_bps, 1000000);
	assert_int_equal(af->tsw.peak_bps, 2000000);
	assert_int_equal(af->tsw.window_ns, NS_PER_SEC);
	assert_int_equal(af->flows, 1024);
	assert_int_equal(af->yellow_dscp, 0);
	assert_int_equal(af->yellow_cls, CLS_CS0);
	assert_int_equal(af->red_dscp, 8);
	assert_int_equal(af->red_cls, CLS_CS0);
	conf_free(&g_conf);
}

/* An IPv6 peer without a listen key gets an IPv6 wildcard socket. */
static void test_ipv6(void **state)
{
	static const uint8_t fd00_1[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
					    0, 0, 0, 0, 0, 0, 0, 1 };

	(void)state;
	tu_conf_load_ok(D "ipv6.conf", &g_conf);
	assert_int_equal(g_conf.has_address, 1);
	assert_int_equal(g_conf.addr_family, AF_INET6);
	assert_memory_equal(g_conf.addr, fd00_1, 16);
	assert_int_equal(g_conf.addr_prefix, 64);
	assert_int_equal(g_conf.has_peer, 1);
	assert_addr(&g_conf.peer, AF_INET6, "fd00:1::2", 6000);
	assert_addr(&g_conf.listen, AF_INET6, "::", 5000);
	conf_free(&g_conf);
}

/* tunnel.realtime: 0..99 (SCHED_FIFO's priorities, 0 = off); the range
 * errors word by word (DESIGN §2: key, value, accepted range). */
static void test_realtime(void **state)
{
	static const struct {
		const char *value;
		int         prio;       /* -1: refused with msg */
		const char *msg;
	} cases[] = {
		{ "0", 0, NULL },
		{ "1", 1, NULL },
		{ "99", 99, NULL },
		{ "100", -1, "rt.conf:1: tunnel.realtime: 100 is out of range "
		  "(accepted: 0 = off, or 1..99 = SCHED_FIFO priority)\n" },
		{ "-1", -1, "rt.conf:1: tunnel.realtime: -1 is out of range "
		  "(accepted: 0 = off, or 1..99 = SCHED_FIFO priority)\n" },
		{ "\"50\"", -1, "rt.conf:1: tunnel.realtime: '50' is not an "
		  "integer (accepted: 0 = off, or 1..99 = SCHED_FIFO priority)\n" },
		{ "true", -1, "rt.conf:1: tunnel.realtime: true is not an "
		  "integer (accepted: 0 = off, or 1..99 = SCHED_FIFO priority)\n" },
	};
	char text[128], where[PATH_MAX + 64];
	const char *diag;

	(void)state;
	for (size_t i = 0; i < TU_LEN(cases); i++) {
		snprintf(text, sizeof(text), "tunnel = { realtime = %s; };\n",
			 cases[i].value);
		if (cases[i].prio >= 0) {
			assert_int_equal(tu_conf_load_text(text, "rt.conf",
							   &g_conf), 0);
			assert_int_equal(g_conf.realtime_prio, cases[i].prio);
			conf_free(&g_conf);
			continue;
		}
		assert_int_equal(tu_conf_load_text(text, "rt.conf", &g_conf), 1);
		/* the temporary file's directory comes first */
		diag = strstr(tu_conf_diag(), "rt.conf:");
		snprintf(where, sizeof(where), "%s", diag ? diag : tu_conf_diag());
		assert_string_equal(where, cases[i].msg);
	}
	tu_conf_expect_file(D "realtime_bad.conf", &g_conf, 1);
}

/* ---- whole files: errors ------------------------------------------------ */

/* Files and their exact diagnostics, FILE.err (golden files: the
 * messages are the contract, DESIGN §2). */
static const struct {
	const char *file;
	int         nerr;
} error_files[] = {
	{ D "bad.conf", 7 },                    /* tunnel */
	{ D "addr_bad.conf", 4 },
	{ D "offload_bad.conf", 1 },
	{ D "tun_gro_bad.conf", 1 },
	{ D "ipv6_bad.conf", 2 },
	{ D "types.conf", 11 },                 /* every type mismatch */
	{ D "link_bad.conf", 3 },
	{ D "link_both.conf", 1 },              /* rate and profile */
	{ D "cosine_bad.conf", 5 },
	{ D "profile_kind.conf", 2 },
	{ D "profile_nokind.conf", 1 },
	{ D "profile_type.conf", 1 },
	{ D "trace_nofile.conf", 2 },
	{ D "classes_bad.conf", 9 },
	{ D "sched_other_bad.conf", 1 },
	{ D "stats_bad.conf", 2 },
	{ D "stats_big.conf", 1 },
	{ D "marker_bad.conf", 6 },             /* every key of a class */
	{ D "marker_rates_bad.conf", 2 },       /* peak, red without peak */
	{ D "marker_dscp_bad.conf", 2 },        /* classes of the code points */
	{ D "syntax.conf", 1 },
	{ D "nope.conf", 1 },
	{ D "traces", 1 },                      /* a directory */
	/* errors inside an @include'd file name that file */
	{ D "include_main.conf", 1 },
	{ D "include_bad.conf", 1 },
	/* an @include'd directory made libconfig exit() (fuzz_conf) */
	{ D "include_dir.conf", 1 },
	{ D "include_dir_nested.conf", 1 },
	{ D "include_decode.conf", 4 },          /* names as libconfig decodes them */
};

static void test_error_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < TU_LEN(error_files); i++)
		tu_conf_expect_file(error_files[i].file, &g_conf,
				    error_files[i].nerr);
}

/* The loader's own "FILE:LINE: problem" follows the key, at the line of
 * the `file` key; its wording belongs to link.c, so only the prefix is
 * checked here. */
static void test_trace_errors(void **state)
{
	const char *rest;

	(void)state;
	assert_int_equal(tu_conf_load(D "trace_bad.conf", &g_conf), 1);
	rest = starts_with(tu_conf_diag(), D "trace_bad.conf:3: link.profile.file: "
			   D "traces/bad.csv:3: ");
	assert_non_null(strstr(rest, "'fast'"));
	assert_non_null(strstr(rest, "(accepted: "));
	assert_null(g_conf.link.pts);

	assert_int_equal(tu_conf_load(D "trace_missing.conf", &g_conf), 1);
	starts_with(tu_conf_diag(), D "trace_missing.conf:4: link.profile.file: "
		    D "traces/nope.csv: ");
	assert_null(g_conf.link.pts);
}

/* A loaded trace followed by another error: conf_load frees it (ASan
 * reports the leak otherwise). */
static void test_trace_then_error(void **state)
{
	(void)state;
	tu_conf_expect_file(D "trace_plus_error.conf", &g_conf, 1);
	assert_int_equal(g_conf.link.kind, LINK_UNLIMITED);
}


/* The accepted lists come from the registry, which grows as schedulers
 * are added: build them the way conf.c must. */
static void test_scheduler_errors(void **state)
{
	char keys[512] = "name", names[512], want[2048];
	int i;

	(void)state;
	for (i = 0; sched_registry[i]; i++) {
		strcat(keys, ", ");
		strcat(keys, sched_registry[i]->name);
	}
	sched_names(names, sizeof(names));
	snprintf(want, sizeof(want),
		D "sched_bad.conf:5: scheduler.cbq: unknown key (accepted: %s)\n"
		D "sched_bad.conf:2: scheduler.name: 'wfq' is not a scheduler "
		"(accepted: %s)\n"
		/* groups of schedulers not selected are still checked */
		D "sched_bad.conf:3: scheduler.fifo.quantum: unknown key "
		"(accepted: none)\n"
		D "sched_bad.conf:4: scheduler.prio: 5 is not a group (accepted: "
		"{ the keys of scheduler prio })\n", keys, names);
	tu_conf_expect(D "sched_bad.conf", &g_conf, 4, want);
}

/* Without a diag the errors are still counted. */
static void test_null_diag(void **state)
{
	(void)state;
	assert_int_equal(conf_load(D "bad.conf", &g_conf, NULL), 7);
	assert_int_equal(conf_load(D "full.conf", &g_conf, NULL), 0);
	conf_free(&g_conf);
}

/* ---- the shipped examples ----------------------------------------------- */

#define EX "../../conf/"

static void assert_geo_link(const struct conf *c)
{
	assert_int_equal(c->link.kind, LINK_CONSTANT);
	assert_int_equal(c->link.rate_bps, 20000000);
	assert_int_equal(c->delay_ns, 250 * NS_PER_MS);
}

static void assert_sender(const struct conf *c)
{
	assert_string_equal(c->tun_name, "st0");
	assert_int_equal(c->has_address, 1);
	assert_memory_equal(c->addr, "\x0a\x0a\x00\x01", 4);
	assert_int_equal(c->addr_prefix, 24);
	assert_addr(&c->listen, AF_INET, "0.0.0.0", 5000);
	assert_int_equal(c->has_peer, 1);
	assert_addr(&c->peer, AF_INET, "10.0.0.2", 5000);
}

static void assert_receiver(const struct conf *c)
{
	assert_string_equal(c->tun_name, "st0");
	assert_int_equal(c->has_address, 1);
	assert_memory_equal(c->addr, "\x0a\x0a\x00\x02", 4);
	assert_int_equal(c->addr_prefix, 24);
	assert_addr(&c->listen, AF_INET, "0.0.0.0", 5000);
	assert_int_equal(c->has_peer, 0);
}

static void test_example_pairs(void **state)
{
	static const struct {
		const char *file;
		const char *sched;
		int sender;
	} ex[] = {
		{ EX "geo-sender.conf",    "prio", 1 },
		{ EX "geo-receiver.conf",  "prio", 0 },
		{ EX "prio-sender.conf",   "prio", 1 },
		{ EX "prio-receiver.conf", "prio", 0 },
		{ EX "fifo-sender.conf",   "fifo", 1 },
		{ EX "fifo-receiver.conf", "fifo", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		tu_conf_load_ok(ex[i].file, &g_conf);
		if (ex[i].sender)
			assert_sender(&g_conf);
		else
			assert_receiver(&g_conf);
		assert_geo_link(&g_conf);
		assert_int_equal(g_conf.mtu_bytes, 1400);
		assert_int_equal(g_conf.pool_pkts, 16384);
		assert_default_map(&g_conf.dscp);
		assert_int_equal(g_conf.limit_pkts[CLS_EF], 100);
		assert_int_equal(g_conf.limit_pkts[CLS_AF], 1000);
		assert_int_equal(g_conf.limit_pkts[CLS_CS0], 1000);
		assert_ptr_equal(g_conf.sched, sched_lookup(ex[i].sched));
		assert_int_equal(g_conf.stats_interval_ns, NS_PER_SEC);
		assert_string_equal(g_conf.stats_file, "");
		conf_free(&g_conf);
	}
}

static void test_example_profiles(void **state)
{
	(void)state;
	tu_conf_load_ok(EX "cosine.conf", &g_conf);
	assert_sender(&g_conf);
	assert_int_equal(g_conf.link.kind, LINK_COSINE);
	assert_int_equal(g_conf.link.mean_bps, 20000000);
	assert_true(g_conf.link.amplitude == 0.3);
	assert_true(g_conf.link.period_s == 15.0);
	assert_int_equal(g_conf.delay_ns, 250 * NS_PER_MS);
	conf_free(&g_conf);

	tu_conf_load_ok(EX "rain-sender.conf", &g_conf);
	assert_sender(&g_conf);
	assert_int_equal(g_conf.link.kind, LINK_TRACE);
	assert_int_equal(g_conf.link.npts, 9);
	assert_int_equal(g_conf.link.pts[0].rate_bps, 20000000);
	assert_int_equal(g_conf.link.pts[4].t_ns, 40 * NS_PER_SEC);
	assert_int_equal(g_conf.link.pts[4].rate_bps, 6000000);
	assert_int_equal(g_conf.link.pts[8].rate_bps, 20000000);
	assert_string_equal(g_conf.link.source, EX "traces/geo-rain.csv");
	conf_free(&g_conf);

	tu_conf_load_ok(EX "mahimahi-sender.conf", &g_conf);
	assert_sender(&g_conf);
	assert_int_equal(g_conf.link.kind, LINK_MAHIMAHI);
	assert_int_equal(link_mean_bps(&g_conf.link), 12032000);
	assert_int_equal(g_conf.delay_ns, 20 * NS_PER_MS);
	conf_free(&g_conf);
}

/* ---- cfg_* helpers on an in-memory config -------------------------------- */

static const char helper_cfg[] =
	"grp = {\n"                                                  /* 1 */
	"  i = 42; big = 5000000000L; f = 0.3; fi = 4000.0;\n"       /* 2 */
	"  neg = -1; s = \"text\";\n"                                /* 3 */
	"  b = true; bi = 1; bs = \"yes\";\n"                        /* 4 */
	"  r = \"20Mbit\"; ri = 20000000; rf = 2e7; rbad = \"fast\";\n" /* 5 */
	"  rneg = -5; rz = 0; ru = \"unlimited\";\n"                 /* 6 */
	"  d = \"250ms\"; di = 2; df = 0.25; dbad = \"soon\";\n"     /* 7 */
	"  sub = { q = 7; };\n"                                      /* 8 */
	"  arr = [1, 2, 3];\n"                                       /* 9 */
	"  lst = ( { x = 1; }, [ 4, 5 ] );\n"                        /* 10 */
	"};\n";

struct helper_state {
	config_t cfg;
	const config_setting_t *grp;
	struct tu_diag t;               /* &t.d goes to the helpers */
};

static int helper_setup(void **state)
{
	struct helper_state *h = calloc(1, sizeof(*h));

	if (!h)
		return -1;
	config_init(&h->cfg);
	if (config_read_string(&h->cfg, helper_cfg) != CONFIG_TRUE)
		return -1;
	h->grp = config_lookup(&h->cfg, "grp");
	tu_diag_open(&h->t, "t.conf");
	*state = h;
	return 0;
}

static int helper_teardown(void **state)
{
	struct helper_state *h = *state;

	tu_diag_close(&h->t);
	config_destroy(&h->cfg);
	free(h);
	return 0;
}

/* The diagnostics since the last call. */
static const char *said(struct helper_state *h)
{
	return tu_diag_take(&h->t);
}

static void test_cfg_uint_bytes(void **state)
{
	struct helper_state *h = *state;
	uint64_t v = 99;

	assert_int_equal(cfg_uint(h->grp, "i", 0, 100, &v, &h->t.d), 1);
	assert_int_equal(v, 42);
	v = 99;
	assert_int_equal(cfg_uint(h->grp, "absent", 0, 100, &v, &h->t.d), 0);
	assert_int_equal(v, 99);
	assert_int_equal(cfg_uint(NULL, "i", 0, 100, &v, &h->t.d), 0);
	assert_int_equal(v, 99);
	assert_int_equal(cfg_uint(h->grp, "big", 0, UINT64_MAX, &v, &h->t.d), 1);
	assert_int_equal(v, 5000000000ULL);
	assert_int_equal(cfg_bytes(h->grp, "fi", 0, 100000, &v, &h->t.d), 1);
	assert_int_equal(v, 4000);
	/* a dotted key reaches into a nested group */
	assert_int_equal(cfg_uint(h->grp, "sub.q", 0, 10, &v, &h->t.d), 1);
	assert_int_equal(v, 7);
	assert_int_equal(h->t.d.nerr, 0);
	assert_string_equal(said(h), "");

	v = 99;
	assert_int_equal(cfg_uint(h->grp, "big", 0, 1000, &v, &h->t.d), -1);
	assert_int_equal(cfg_bytes(h->grp, "f", 0, 100000, &v, &h->t.d), -1);
	assert_int_equal(cfg_bytes(h->grp, "neg", 0, 100000, &v, &h->t.d), -1);
	assert_int_equal(cfg_uint(h->grp, "s", 1, 9, &v, &h->t.d), -1);
	assert_int_equal(cfg_uint(h->grp, "sub.q", 8, 9, &v, &h->t.d), -1);
	assert_int_equal(cfg_uint(h->grp, "arr", 0, 9, &v, &h->t.d), -1);
	assert_string_equal(said(h),
		"t.conf:2: grp.big: 5000000000 is out of "
		"range (accepted: 0..1000)\n"
		"t.conf:2: grp.f: 0.3 is not an integer "
		"(accepted: 0..100000 bytes)\n"
		"t.conf:3: grp.neg: -1 is out of range "
		"(accepted: 0..100000 bytes)\n"
		"t.conf:3: grp.s: 'text' is not an "
		"integer (accepted: 1..9)\n"
		"t.conf:8: grp.sub.q: 7 is out of range "
		"(accepted: 8..9)\n"
		"t.conf:9: grp.arr: an array is not an "
		"integer (accepted: 0..9)\n");
	assert_int_equal(v, 99);
	assert_int_equal(h->t.d.nerr, 6);
}

static void test_cfg_fraction(void **state)
{
	struct helper_state *h = *state;
	double v = -1;

	assert_int_equal(cfg_fraction(h->grp, "f", 0, 1, &v, &h->t.d), 1);
	assert_true(v == 0.3);
	assert_int_equal(cfg_fraction(h->grp, "bi", 0, 1, &v, &h->t.d), 1);
	assert_true(v == 1.0);
	assert_int_equal(cfg_fraction(h->grp, "absent", 0, 1, &v, &h->t.d), 0);
	assert_true(v == 1.0);
	assert_int_equal(cfg_fraction(h->grp, "i", 0, 1, &v, &h->t.d), -1);
	assert_int_equal(cfg_fraction(h->grp, "s", 0, 0.5, &v, &h->t.d), -1);
	assert_string_equal(said(h),
		"t.conf:2: grp.i: 42 is out of range "
		"(accepted: 0..1)\n"
		"t.conf:3: grp.s: 'text' is not a number "
		"(accepted: 0..0.5)\n");
	assert_int_equal(h->t.d.nerr, 2);
}

static void test_cfg_bool(void **state)
{
	struct helper_state *h = *state;
	int v = -1;

	assert_int_equal(cfg_bool(h->grp, "b", &v, &h->t.d), 1);
	assert_int_equal(v, 1);
	v = -1;
	assert_int_equal(cfg_bool(h->grp, "bi", &v, &h->t.d), 1);
	assert_int_equal(v, 1);
	assert_int_equal(cfg_bool(h->grp, "absent", &v, &h->t.d), 0);
	assert_int_equal(cfg_bool(h->grp, "bs", &v, &h->t.d), -1);
	assert_int_equal(cfg_bool(h->grp, "i", &v, &h->t.d), -1);
	assert_string_equal(said(h),
		"t.conf:4: grp.bs: 'yes' is not a boolean "
		"(accepted: true, false)\n"
		"t.conf:2: grp.i: 42 is not a boolean "
		"(accepted: true, false)\n");
	assert_int_equal(h->t.d.nerr, 2);
}

static void test_cfg_rate(void **state)
{
	struct helper_state *h = *state;
	uint64_t v = 0;

	assert_int_equal(cfg_rate(h->grp, "r", 0, &v, &h->t.d), 1);
	assert_int_equal(v, 20000000);
	v = 0;
	assert_int_equal(cfg_rate(h->grp, "ri", 0, &v, &h->t.d), 1);
	assert_int_equal(v, 20000000);
	v = 0;
	assert_int_equal(cfg_rate(h->grp, "rf", 0, &v, &h->t.d), 1);
	assert_int_equal(v, 20000000);
	assert_int_equal(cfg_rate(h->grp, "ru", 1, &v, &h->t.d), 1);
	assert_true(v == RATE_UNLIMITED);
	assert_int_equal(cfg_rate(h->grp, "absent", 0, &v, &h->t.d), 0);
	assert_string_equal(said(h), "");

	assert_int_equal(cfg_rate(h->grp, "rbad", 0, &v, &h->t.d), -1);
	assert_int_equal(cfg_rate(h->grp, "rneg", 0, &v, &h->t.d), -1);
	assert_int_equal(cfg_rate(h->grp, "rz", 0, &v, &h->t.d), -1);
	assert_int_equal(cfg_rate(h->grp, "ru", 0, &v, &h->t.d), -1);
	assert_int_equal(cfg_rate(h->grp, "b", 1, &v, &h->t.d), -1);
	assert_string_equal(said(h),
		"t.conf:5: grp.rbad: 'fast' is not a rate "
		RATE_ACC ")\n"
		"t.conf:6: grp.rneg: '-5' is not a rate "
		RATE_ACC ")\n"
		"t.conf:6: grp.rz: '0' is not a rate: it "
		"must be above 0 " RATE_ACC ")\n"
		"t.conf:6: grp.ru: 'unlimited' is not a "
		"rate: \"unlimited\" is not allowed here "
		RATE_ACC ")\n"
		"t.conf:4: grp.b: true is not a rate "
		RATE_ACC "; or \"unlimited\")\n");
	assert_true(v == RATE_UNLIMITED);
	assert_int_equal(h->t.d.nerr, 5);
}

static void test_cfg_duration(void **state)
{
	struct helper_state *h = *state;
	uint64_t v = 0;

	assert_int_equal(cfg_duration(h->grp, "d", 0, NS_PER_SEC, &v, &h->t.d), 1);
	assert_int_equal(v, 250 * NS_PER_MS);
	assert_int_equal(cfg_duration(h->grp, "di", 0, 10 * NS_PER_SEC, &v,
				      &h->t.d), 1);
	assert_int_equal(v, 2 * NS_PER_SEC);
	assert_int_equal(cfg_duration(h->grp, "df", 0, NS_PER_SEC, &v, &h->t.d), 1);
	assert_int_equal(v, 250 * NS_PER_MS);
	assert_int_equal(cfg_duration(h->grp, "absent", 0, 1, &v, &h->t.d), 0);
	assert_int_equal(v, 250 * NS_PER_MS);
	assert_string_equal(said(h), "");

	assert_int_equal(cfg_duration(h->grp, "di", 0, NS_PER_SEC, &v, &h->t.d),
			 -1);
	assert_string_equal(said(h), "t.conf:7: grp.di: 2 is out of range "
			    "(accepted: 0s..1s)\n");
	assert_int_equal(cfg_duration(h->grp, "d", NS_PER_SEC, 2 * NS_PER_SEC,
				      &v, &h->t.d), -1);
	assert_string_equal(said(h), "t.conf:7: grp.d: '250ms' is out of range "
			    "(accepted: 1s..2s)\n");
	assert_int_equal(cfg_duration(h->grp, "dbad", 0, NS_PER_SEC, &v, &h->t.d),
			 -1);
	assert_string_equal(said(h), "t.conf:7: grp.dbad: 'soon' is not a "
			    "duration " DUR_ACC "\n");
	assert_int_equal(cfg_duration(h->grp, "sub", 0, NS_PER_SEC, &v, &h->t.d),
			 -1);
	assert_string_equal(said(h), "t.conf:8: grp.sub: a group is not a "
			    "duration " DUR_ACC "\n");
	assert_int_equal(v, 250 * NS_PER_MS);
	assert_int_equal(h->t.d.nerr, 4);
}

static void test_cfg_string(void **state)
{
	struct helper_state *h = *state;
	char buf[5] = "";

	assert_int_equal(cfg_string(h->grp, "s", buf, 5, &h->t.d), 1);
	assert_string_equal(buf, "text");
	assert_int_equal(cfg_string(h->grp, "absent", buf, 5, &h->t.d), 0);
	assert_int_equal(cfg_string(h->grp, "s", buf, 4, &h->t.d), -1);
	assert_int_equal(cfg_string(h->grp, "i", buf, 5, &h->t.d), -1);
	assert_string_equal(said(h),
		"t.conf:3: grp.s: 'text' is too long "
		"(accepted: at most 3 characters)\n"
		"t.conf:2: grp.i: 42 is not a string "
		"(accepted: a quoted string of at most 4 "
		"characters)\n");
	assert_string_equal(buf, "text");
	assert_int_equal(h->t.d.nerr, 2);
}

static void test_cfg_check_keys(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const some[] = { "a", "b", NULL };
	static const char *const q[] = { "q", NULL };
	struct helper_state *h = *state;
	const config_setting_t *sub = config_setting_get_member(h->grp, "sub");
	const config_setting_t *arr = config_setting_get_member(h->grp, "arr");

	assert_int_equal(cfg_check_keys(sub, q, &h->t.d), 0);
	assert_int_equal(cfg_check_keys(NULL, q, &h->t.d), 0);
	assert_string_equal(said(h), "");
	assert_int_equal(cfg_check_keys(sub, none, &h->t.d), 1);
	assert_string_equal(said(h), "t.conf:8: grp.sub.q: unknown key "
			    "(accepted: none)\n");
	assert_int_equal(cfg_check_keys(sub, some, &h->t.d), 1);
	assert_string_equal(said(h), "t.conf:8: grp.sub.q: unknown key "
			    "(accepted: a, b)\n");
	assert_int_equal(cfg_check_keys(arr, some, &h->t.d), 1);
	assert_string_equal(said(h), "t.conf:9: grp.arr: an array is not a "
			    "group (accepted: { a, b })\n");
	/* every member of grp but "i" is unknown: 22 errors, all counted */
	assert_int_equal(cfg_check_keys(h->grp, (const char *const[]){ "i",
					NULL }, &h->t.d), 22);
	assert_int_equal(h->t.d.nerr, 25);
}

static void test_cfg_path(void **state)
{
	struct helper_state *h = *state;
	const config_setting_t *lst = config_setting_get_member(h->grp, "lst");
	const config_setting_t *arr = config_setting_get_member(h->grp, "arr");
	char buf[128];

	assert_string_equal(cfg_path(h->grp, buf, sizeof(buf)), "grp");
	assert_string_equal(cfg_path(config_root_setting(&h->cfg), buf,
				     sizeof(buf)), "");
	assert_string_equal(cfg_path(config_setting_get_elem(arr, 1), buf,
				     sizeof(buf)), "grp.arr[1]");
	assert_string_equal(cfg_path(config_setting_get_member(
				config_setting_get_elem(lst, 0), "x"),
				     buf, sizeof(buf)), "grp.lst[0].x");
	assert_string_equal(cfg_path(config_setting_get_elem(
				config_setting_get_elem(lst, 1), 1),
				     buf, sizeof(buf)), "grp.lst[1][1]");
	/* a short buffer truncates, still terminated */
	assert_string_equal(cfg_path(config_setting_get_elem(arr, 1), buf, 6),
			    "grp.a");
}

/* ---- diag --------------------------------------------------------------- */

static void test_diag_format(void **state)
{
	struct diag d;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	diag_init(&d, f, "x.conf");
	assert_int_equal(d.nerr, 0);
	diag_error(&d, 7, "tunnel.mtu", "%d is out of range (accepted: %s)",
		   99999, "576..9000");
	diag_error(&d, 0, "stats.file", "no line");
	diag_error(&d, 3, NULL, "syntax error");
	diag_error(&d, 4, "", "empty key");
	/* the line of a setting that implied an absent group */
	d.implied_line = 9;
	diag_error(&d, 0, "scheduler.pss.capacity", "implied");
	d.implied_line = 0;
	/* a value quoted from the file stays on its line (fuzz_conf) */
	diag_error(&d, 6, "tunnel.tun", "'%s' bad", "a\nx.conf:1: b\tc\x7f");
	d.file = NULL;
	diag_error(&d, 5, "k", "no file");
	fclose(f);
	assert_string_equal(text,
		"x.conf:7: tunnel.mtu: 99999 is out of range (accepted: "
		"576..9000)\n"
		"x.conf: stats.file: no line\n"
		"x.conf:3: syntax error\n"
		"x.conf:4: empty key\n"
		"x.conf:9: scheduler.pss.capacity: implied\n"
		"x.conf:6: tunnel.tun: 'a\\nx.conf:1: b\\x09c\\x7f' bad\n"
		"(config):5: k: no file\n");
	assert_int_equal(d.nerr, 7);
	free(text);

	/* no stream: count only */
	diag_init(&d, NULL, "y.conf");
	diag_error(&d, 1, "a", "b");
	diag_error(&d, 2, "c", "d");
	assert_int_equal(d.nerr, 2);
}

int main(void)
{
	const struct CMUnitTest files[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_full_round_trip),
		cmocka_unit_test(test_numeric_rate_and_delay),
		cmocka_unit_test(test_unlimited_link),
		cmocka_unit_test(test_cosine_profile),
		cmocka_unit_test(test_trace_profile),
		cmocka_unit_test(test_trace_absolute_path),
		cmocka_unit_test(test_mahimahi_profile),
		cmocka_unit_test(test_classes_remap),
		cmocka_unit_test(test_classes_empty_list),
		cmocka_unit_test(test_sched_selected),
		cmocka_unit_test(test_stats_off),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_realtime),
		cmocka_unit_test(test_error_files),
		cmocka_unit_test(test_marker),
		cmocka_unit_test(test_trace_errors),
		cmocka_unit_test(test_trace_then_error),
		cmocka_unit_test(test_scheduler_errors),
		cmocka_unit_test(test_null_diag),
		cmocka_unit_test(test_example_pairs),
		cmocka_unit_test(test_example_profiles),
		cmocka_unit_test(test_diag_format),
	};
	const struct CMUnitTest helpers[] = {
		cmocka_unit_test_setup_teardown(test_cfg_uint_bytes,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_fraction,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_bool,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_rate,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_duration,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_string,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_check_keys,
						helper_setup, helper_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_path,
						helper_setup, helper_teardown),
	};
	int fails;

	fails = cmocka_run_group_tests_name("conf files", files, NULL, NULL);
	fails += cmocka_run_group_tests_name("cfg helpers", helpers, NULL,
					     NULL);
	return fails;
}
