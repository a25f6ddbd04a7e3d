/* testutil.h - what the unit tests share, so that no test copies a fixture.
 *
 *   pool     a packet pool per test that must end empty, and a drop counter
 *            to plug into sched_env.drop (tu_pool_*, tu_drop*, tu_sched_env)
 *   packets  pool packets and IPv4/IPv6 packets with a DSCP and a 5-tuple,
 *            header checksum valid (tu_pkt*, tu_ip_build, struct tu_ip)
 *   config   conf_load() of a file or of text with the diagnostics kept,
 *            a scheduler's group parsed from text, a plain conf
 *            (tu_diag_*, tu_conf_*, tu_sched_*)
 *   misc     whole-file reads, name tables, a program's run with its
 *            output (tu_read_*, tu_assert_names, tu_run)
 *   sim      a simulator run's config and sources, its teardown
 *            (tu_sim_*, with sim/sim.h included first)
 *   numbers  absolute and relative tolerances with the values in the
 *            failure message (tu_assert_near, tu_assert_rel)
 *
 * Random numbers come from the product's own util/rng.h (rng_next,
 * rng_u01), included here.
 *
 * Every function fails the running cmocka test (assert_* / fail_msg) when
 * its own set-up goes wrong, so a test never checks their results for
 * errors unless the contract below says it returns one.  Include after
 * <cmocka.h>'s prerequisites (setjmp.h, stdarg.h, stddef.h).
 */
#ifndef SCHEDTUN_TESTUTIL_H
#define SCHEDTUN_TESTUTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "conf/conf.h"
#include "core/core.h"
#include "pkt/pkt.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/rng.h"

/* Elements of an array (not of a pointer). */
#define TU_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- packet pool and drops ------------------------------------------- */

#define TU_POOL_PKTS      512u
#define TU_POOL_CAP_BYTES 1500u

/* Creates the pool (count buffers of cap_bytes) and zeroes the drop
 * counters.  0, or -1 as pkt_pool_init(): usable as a setup's result. */
int tu_pool_init(uint32_t count, uint32_t cap_bytes);

/* cmocka setup: tu_pool_init(TU_POOL_PKTS, TU_POOL_CAP_BYTES). */
int tu_pool_setup(void **state);

/* cmocka teardown: destroys the pool, then fails the test if a packet was
 * still in use or a drop was counted that the test did not take with
 * tu_drops_take().  The pool goes first so that one failed test does not
 * make every later setup fail too. */
int tu_pool_teardown(void **state);

/* A cmocka test run between tu_pool_setup and tu_pool_teardown. */
#define TU_POOL_TEST(f) \
	cmocka_unit_test_setup_teardown(f, tu_pool_setup, tu_pool_teardown)

/* A sched_env.drop callback: counts the drop under its reason and returns
 * the packet to the pool.  owner is ignored. */
void tu_drop(void *owner, struct pkt *p, enum drop_reason why);

/* Drops counted under `why` since the last tu_pool_init/tu_drops_take. */
unsigned tu_drops(enum drop_reason why);

/* All drops counted since the last tu_pool_init/tu_drops_take; zeroes the
 * counters (the teardown then knows they were expected). */
unsigned tu_drops_take(void);

/* A scheduler env as conf_sched_env() gives for the default config (MTU
 * 1500, limits EF 100, AF 1000, CS0 1000) with capacity_bps and tu_drop
 * as the drop callback; no owner, no trace. */
void tu_sched_env(struct sched_env *env, uint64_t capacity_bps);

/* What s->ops->dump_stats writes, as one JSON object line "{...}\n" in
 * a static buffer (4 KiB; overflow fails the test), valid until the next
 * call.  Dumping may reset the scheduler's per-interval counters. */
const char *tu_sched_stats(struct sched *s);

/* ---- packets ----------------------------------------------------------- */

/* A pool packet of class cls and len_bytes, with seq (an id the test
 * reads back); its data and other fields as pkt_alloc() left them.  Fails
 * the test when the pool is empty. */
struct pkt *tu_pkt(enum pkt_class cls, uint32_t len_bytes, uint32_t seq);

/* An IP packet to build.  Fields left 0 give: no ECN, protocol 0, the
 * addresses tu_v4_src/tu_v4_dst (tu_v6_* for version 6), ports 0, no IPv4
 * options, no IPv6 extension headers. */
struct tu_ip {
	uint8_t        version;         /* 4 or 6 */
	uint8_t        dscp;            /* 0..63, the top of TOS / traffic class */
	uint8_t        ecn;             /* 0..3, the bottom two bits */
	uint8_t        proto;           /* IPv4 protocol / IPv6 fixed header's next header */
	const uint8_t *src, *dst;       /* 4 or 16 bytes, NULL for the defaults */
	uint16_t       sport, dport;    /* the first 4 L4 bytes, when there are 4 */
	uint32_t       len_bytes;       /* the whole packet, >= its headers */
	unsigned       opt_words;       /* IPv4: 4-byte words of NOP options */
	const uint8_t *ext;             /* IPv6: extension headers, copied */
	size_t         ext_bytes;       /* after the fixed header */
};

extern const uint8_t tu_v4_src[4], tu_v4_dst[4];     /* 10.10.0.1, .2 */
extern const uint8_t tu_v6_src[16], tu_v6_dst[16];   /* 2001:db8::1, ::2 */

/* Writes the packet ip describes into buf (cap_bytes): IPv4 with id
 * 0x1234, DF, TTL 64 and a valid header checksum (computed here, not by
 * the code under test); IPv6 with flow label 0xabcde and hop limit 64;
 * length fields matching len_bytes; L4 bytes after the ports a fixed
 * pattern; no L4 checksum (nothing under test reads one).  Returns
 * len_bytes; fails the test when the headers do not fit. */
size_t tu_ip_build(uint8_t *buf, size_t cap_bytes, const struct tu_ip *ip);

/* A pool packet holding tu_ip_build(ip): data and len_bytes set, the
 * other fields as pkt_alloc() left them (classifying is the code's job). */
struct pkt *tu_pkt_ip(const struct tu_ip *ip);

/* Recomputes the IPv4 header checksum of hdr (IHL from hdr[0]) after a
 * test edited the header (RFC 1071, independent of classify.c). */
void tu_ipv4_fix_checksum(uint8_t *hdr);

/* Stores v big-endian at b[0..1]. */
void tu_put16(uint8_t *b, uint16_t v);

/* Network-order fields, and b[0..3] = v. */
uint16_t tu_get16(const uint8_t *b);
uint32_t tu_get32(const uint8_t *b);
void tu_put32(uint8_t *b, uint32_t v);

/* The checksum oracle of the packet-rewriting tests, written from RFC 1071
 * one byte at a time, independent of include/util/csum.h: sum + the 16-bit
 * big-endian words of b[0..n) (a last odd byte padded), and a sum folded
 * to 16 bits with end-around carry (not complemented). */
uint32_t tu_csum_sum(uint32_t sum, const uint8_t *b, size_t n);
uint16_t tu_csum_fold(uint32_t sum);

/* The IP header length of IPv4/IPv6 packet p (IHL; 40 for IPv6), and the
 * TCP pseudo-header sum of p (len bytes, TCP right after that header). */
size_t   tu_l4_off(const uint8_t *p);
uint32_t tu_tcp_pseudo(const uint8_t *p, size_t len);

/* The pseudo-header sum (RFC 793 / RFC 8200 8.1) of IPv4/IPv6 packet p
 * (version from p[0]) for protocol proto and l4_len bytes of L4, not
 * folded: the addresses' words + proto + l4_len's two halves. */
uint32_t tu_l4_pseudo(const uint8_t *p, uint8_t proto, uint32_t l4_len);

/* Fails the test unless the L4 checksum of IP packet p (len bytes, L4 at
 * l4_off, protocol from the IPv4 header / IPv6 next header) verifies:
 * the fold of pseudo-header + L4 bytes is 0xffff. */
void tu_assert_l4_csum(const uint8_t *p, size_t len, size_t l4_off);

/* Makes p's IPv4 header checksum and TCP checksum right again after a
 * test edited it (p is IPv4 or IPv6, TCP right after the IP header). */
void tu_tcp_fix(uint8_t *p, size_t len);

/* One TCP flow's data as the sender's kernel hands it to a tun: a GSO
 * super-packet cut by tso.c into segments (IPv4 IDs from id, sequence
 * numbers from seq, PSH/FIN only on the last segment; ack 0x0a0b0c0d,
 * window 1024, opt_words of options NOP NOP then bytes i * 3, a random
 * payload; addresses and DSCP 10 as tu_ip_build). */
struct tu_flow {
	int      v6;
	uint32_t seq;
	uint16_t id;                    /* IPv4 ID of the first segment */
	uint16_t mss;
	uint32_t payload_bytes;
	uint8_t  last_flags;            /* flags of the super-packet (the last
					 * segment keeps PSH/FIN) */
	unsigned opt_words;             /* TCP options (timestamp-like) */
	uint16_t sport;                 /* 0: 40000; the port is 5201 */
};

/* Appends f's segments as pool packets to seg[*n..], failing the test
 * beyond max in all or when the pool is dry. */
void tu_tcp_flow(const struct tu_flow *f, struct pkt **seg, unsigned *n,
		 unsigned max);

/* ---- configuration ------------------------------------------------------ */

/* A diag whose lines are kept in memory instead of printed. */
struct tu_diag {
	struct diag d;                  /* pass &t.d to the code under test */
	FILE  *f;
	char  *text, *taken;
	size_t len;
};

/* Starts capturing; `file` names the lines (FILE:LINE: ...). */
void tu_diag_open(struct tu_diag *t, const char *file);

/* The lines reported since tu_diag_open or the previous take ("" if
 * none), then captures afresh; d.nerr keeps counting.  The string lives
 * until the next take or tu_diag_close. */
const char *tu_diag_take(struct tu_diag *t);

/* Frees what the capture holds. */
void tu_diag_close(struct tu_diag *t);

/* conf_load(path) into *c with the diagnostics captured (tu_conf_diag).
 * Fails the test unless the returned count equals the diag's count and
 * the number of lines printed.  Returns the count; with 0 the caller
 * conf_free()s c. */
int tu_conf_load(const char *path, struct conf *c);

/* The same for `text` written to a temporary file (removed again); the
 * lines are named `name`.  Relative file names in text resolve against
 * the temporary file's directory ($TMPDIR or /tmp): use absolute ones. */
int tu_conf_load_text(const char *text, const char *name, struct conf *c);

/* conf_load_json(path) into *c, which must hold no error: the effective
 * configuration as `{"conf": ...}`, in a static buffer valid until the
 * next call.  The caller conf_free()s c. */
const char *tu_conf_json(const char *path, struct conf *c);

/* The diagnostics of the last tu_conf_load* ("" when clean); lives until
 * the next load. */
const char *tu_conf_diag(void);

/* A file that must load without an error (the caller conf_free()s c);
 * on errors the test fails showing them. */
void tu_conf_load_ok(const char *path, struct conf *c);

/* A file that loads into *c with diagnostics exactly `expected`, nerr
 * lines; a failed load must leave no trace or Mahimahi table in c.  With
 * nerr 0 the caller conf_free()s c. */
void tu_conf_expect(const char *path, struct conf *c, int nerr,
		    const char *expected);

/* tu_conf_expect() with the expected diagnostics read from the golden
 * file `path`.err (exactly the lines, each ending in a newline). */
void tu_conf_expect_file(const char *path, struct conf *c, int nerr);

/* conf_defaults(), then a constant link of rate_bps (mean too), delay_ns,
 * and the registry's scheduler `sched` with its defaults for the env this
 * conf gives; fails the test on an unknown name. */
void tu_conf_basic(struct conf *c, uint64_t rate_bps, tstamp_ns delay_ns,
		   const char *sched);

/* c's peer: IPv4 ip:port (host byte order), has_peer set. */
void tu_conf_peer_v4(struct conf *c, uint32_t ip, uint16_t port);

/* The core tests' configuration: tu_conf_basic(c, rate_bps, delay_ns,
 * sched) with the IPv4 peer 10.0.0.2:5000 (tu_conf_peer_v4). */
void tu_core_conf(struct conf *c, uint64_t rate_bps, tstamp_ns delay_ns,
		  const char *sched);

/* core_init(core, c, io, 0), which must succeed (core takes c's
 * resources: the caller neither uses nor frees c afterwards), with
 * real_minus_mono_ns 0 so that the stamps it sends are the virtual
 * clock's.  The packet pool must exist; core_destroy() is the caller's. */
void tu_core_init(struct core *core, struct conf *c,
		  const struct core_io *io);

/* ops's defaults for env into params (SCHED_PARAMS_MAX bytes, aligned
 * 16), then sched_parse() of `body`, the inside of scheduler.<name> in
 * libconfig syntax ("bw = 0.25; lm = 1500;"); NULL parses an absent
 * group.  Any error fails the test, printing it. */
void tu_sched_params(const struct sched_ops *ops, const char *body,
		     const struct sched_env *env, void *params);

/* tu_sched_params() then sched_create() of s, which must succeed. */
void tu_sched_create(struct sched *s, const struct sched_ops *ops,
		     const char *body, const struct sched_env *env);

/* ---- simulator ------------------------------------------------------------ */

/* Declared for the tests that include sim/sim.h before this header (not
 * for all: sim.h's names, sim_run among them, would clash with tests'
 * own). */
#ifdef SCHEDTUN_SIM_H

/* *sc zeroed, then tu_conf_basic(&sc->conf, rate_bps, delay_ns, sched)
 * and the run's duration and warm-up: no sources, seed 0, no flow or
 * sample callback, no CSV.  The caller conf_free()s sc->conf after
 * sim_run. */
void tu_sim_config(struct sim_config *sc, uint64_t rate_bps,
		   tstamp_ns delay_ns, const char *sched,
		   tstamp_ns duration_ns, tstamp_ns warmup_ns);

/* Source x (a class's sc->src[cls]) zeroed, then its kind, packet size
 * and flow count set (0: the simulator's default); the caller fills the
 * kind's own fields (rate, on/off times, sizes, ...).  Returns x. */
struct sim_source *tu_sim_src(struct sim_source *x, enum sim_src_kind kind,
			      uint32_t pkt_bytes, uint32_t flows);

/* cmocka teardown of the simulator tests: sim_run() makes and destroys
 * its own pool, so none may be left (pkt_pool_size() and
 * pkt_pool_in_use() both 0). */
int tu_sim_teardown(void **state);

/* The flows' accounts a run reports, kept in order: f[0..n) of the
 * caller's array of cap. */
struct tu_flows {
	struct sim_flow *f;
	unsigned         n, cap;
};

/* Points sc's flow callback at tu_flows_keep with fs (n zeroed) as its
 * context, keeping into f[0..cap). */
void tu_flows_collect(struct sim_config *sc, struct tu_flows *fs,
		      struct sim_flow *f, unsigned cap);

/* A sim_config.flow_cb: appends *f to the struct tu_flows ctx; fails the
 * test beyond its cap. */
void tu_flows_keep(void *ctx, const struct sim_flow *f);
#endif

/* ---- misc ---------------------------------------------------------------- */

/* The whole of stream f, from its start, as a malloc'd C string. */
char *tu_read_stream(FILE *f);

/* The whole file at path as a malloc'd C string. */
char *tu_read_file(const char *path);

/* Runs the program argv[0] (a path) with argv (NULL-terminated), stdin
 * /dev/null, and waits for it.  Returns its exit code (128 + the signal
 * if one killed it); *out and *err are what it wrote on stdout and
 * stderr, malloc'd C strings the caller frees. */
int tu_run(const char *const argv[], char **out, char **err);

/* One expected entry of a name table: table[value] must be name. */
struct tu_name {
	int         value;
	const char *name;
};

/* ---- what cannot run here ----------------------------------------------- */

/* The one skip rule of the suite (scripts/netns-lib.sh's st_skip, in C):
 * a case that cannot run on this machine fails, naming `test` and `why`
 * and how to make it run, unless SCHEDTUN_TEST_ALLOW_SKIP is set to a
 * reason; then it prints "SKIP: test: why; allowed by ..." (which
 * scripts/test-skips.py lists) and skips the case.  Does not return. */
void tu_cannot_run(const char *test, const char *why);

/* Checks table[want[i].value] equals want[i].name for each of the n. */
void tu_assert_names(const char *const *table, const struct tu_name *want,
		     size_t n);

/* ---- numbers ------------------------------------------------------------ */

/* Fails the test unless |a - b| <= tol (a NaN fails), naming the
 * expression a and printing both values and tol.  Each argument is
 * evaluated once, as double. */
#define tu_assert_near(a, b, tol) do {                                     \
	double tu_a_ = (a), tu_b_ = (b), tu_t_ = (tol);                   \
	if (!(fabs(tu_a_ - tu_b_) <= tu_t_))                               \
		fail_msg("%s = %.12g, want %.12g +- %g", #a, tu_a_, tu_b_, \
			 tu_t_);                                           \
} while (0)

/* Prints "what got, expected want (error %, tolerance %)" (print_message,
 * so the run shows every measured value), then fails the test unless
 * |got - want| <= tol * |want| (a NaN, or want 0 with got != want,
 * fails), repeating the line. */
void tu_assert_rel(const char *what, double got, double want, double tol);

#endif
