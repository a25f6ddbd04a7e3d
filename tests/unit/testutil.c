/* testutil.c - the unit tests' shared fixtures (see testutil.h). */
#include <math.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <libconfig.h>

#include "pkt/tso.h"
#include "sim/sim.h"
#include "util/jw.h"
#include "testutil.h"

/* ---- packet pool and drops ------------------------------------------- */

static unsigned drops_by[DROP_REASON_MAX];

int tu_pool_init(uint32_t count, uint32_t cap_bytes)
{
	memset(drops_by, 0, sizeof(drops_by));
	return pkt_pool_init(count, cap_bytes);
}

int tu_pool_setup(void **state)
{
	(void)state;
	return tu_pool_init(TU_POOL_PKTS, TU_POOL_CAP_BYTES);
}

int tu_pool_teardown(void **state)
{
	uint32_t in_use = pkt_pool_in_use();
	unsigned drops = tu_drops_take();

	(void)state;
	pkt_pool_destroy();
	assert_int_equal(in_use, 0);
	assert_int_equal(drops, 0);
	return 0;
}

void tu_drop(void *owner, struct pkt *p, enum drop_reason why)
{
	(void)owner;
	assert_true(why < DROP_REASON_MAX);
	drops_by[why]++;
	pkt_free(p);
}

unsigned tu_drops(enum drop_reason why)
{
	assert_true(why < DROP_REASON_MAX);
	return drops_by[why];
}

unsigned tu_drops_take(void)
{
	unsigned n = 0;

	for (int i = 0; i < DROP_REASON_MAX; i++)
		n += drops_by[i];
	memset(drops_by, 0, sizeof(drops_by));
	return n;
}

void tu_sched_env(struct sched_env *env, uint64_t capacity_bps)
{
	memset(env, 0, sizeof(*env));
	env->capacity_bps = capacity_bps;
	env->mtu_bytes = 1500;
	env->limit_pkts[CLS_EF] = 100;
	env->limit_pkts[CLS_AF] = 1000;
	env->limit_pkts[CLS_CS0] = 1000;
	env->drop = tu_drop;
}

const char *tu_sched_stats(struct sched *s)
{
	static char buf[4096];
	struct jw w;

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	s->ops->dump_stats(s->priv, &w);
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	return buf;
}

/* ---- packets ----------------------------------------------------------- */

struct pkt *tu_pkt(enum pkt_class cls, uint32_t len_bytes, uint32_t seq)
{
	struct pkt *p = pkt_alloc();

	assert_non_null(p);
	p->cls = (uint8_t)cls;
	p->len_bytes = len_bytes;
	p->seq = seq;
	return p;
}

const uint8_t tu_v4_src[4] = { 10, 10, 0, 1 };
const uint8_t tu_v4_dst[4] = { 10, 10, 0, 2 };
const uint8_t tu_v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 1 };
const uint8_t tu_v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 2 };

void tu_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

uint16_t tu_get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

uint32_t tu_get32(const uint8_t *b)
{
	return (uint32_t)tu_get16(b) << 16 | tu_get16(b + 2);
}

void tu_put32(uint8_t *b, uint32_t v)
{
	tu_put16(b, (uint16_t)(v >> 16));
	tu_put16(b + 2, (uint16_t)v);
}

uint32_t tu_csum_sum(uint32_t sum, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sum += i % 2 ? b[i] : (uint32_t)b[i] << 8;
	return sum;
}

uint16_t tu_csum_fold(uint32_t sum)
{
	while (sum > 0xffff)
		sum = (sum >> 16) + (sum & 0xffff);
	return (uint16_t)sum;
}

size_t tu_l4_off(const uint8_t *p)
{
	return p[0] >> 4 == 6 ? 40 : (size_t)(p[0] & 15) * 4;
}

uint32_t tu_l4_pseudo(const uint8_t *p, uint8_t proto, uint32_t l4_len)
{
	uint32_t sum = p[0] >> 4 == 6 ? tu_csum_sum(0, p + 8, 32)
				       : tu_csum_sum(0, p + 12, 8);

	return sum + proto + (l4_len >> 16) + (l4_len & 0xffff);
}

uint32_t tu_tcp_pseudo(const uint8_t *p, size_t len)
{
	return tu_l4_pseudo(p, 6, (uint32_t)(len - tu_l4_off(p)));
}

void tu_assert_l4_csum(const uint8_t *p, size_t len, size_t l4_off)
{
	uint8_t proto = p[0] >> 4 == 6 ? p[6] : p[9];
	uint32_t l4_len = (uint32_t)(len - l4_off);

	assert_int_equal(tu_csum_fold(tu_csum_sum(tu_l4_pseudo(p, proto, l4_len),
						  p + l4_off, l4_len)), 0xffff);
}

void tu_tcp_fix(uint8_t *p, size_t len)
{
	size_t l4 = tu_l4_off(p);

	if (p[0] >> 4 == 4)
		tu_ipv4_fix_checksum(p);
	tu_put16(p + l4 + 16, 0);
	tu_put16(p + l4 + 16, (uint16_t)~tu_csum_fold(tu_csum_sum(
		tu_tcp_pseudo(p, len), p + l4, len - l4)));
}

void tu_tcp_flow(const struct tu_flow *f, struct pkt **seg, unsigned *n,
		 unsigned max)
{
	static uint8_t sb[TSO_READ_BYTES];
	static uint64_t rng = 77;
	uint32_t l3 = f->v6 ? 40 : 20, l4h = 20 + 4 * f->opt_words;
	struct tu_ip ip = { .version = f->v6 ? 6 : 4, .dscp = 10, .proto = 6,
			    .sport = f->sport ? f->sport : 40000, .dport = 5201,
			    .len_bytes = l3 + l4h + f->payload_bytes };
	uint8_t *p = sb + TSO_VNET_HDR_BYTES, *th = p + l3;
	struct tso_split s;

	memset(sb, 0, TSO_VNET_HDR_BYTES);
	tu_ip_build(p, sizeof(sb) - TSO_VNET_HDR_BYTES, &ip);
	if (!f->v6) {
		tu_put16(p + 4, f->id);
		tu_ipv4_fix_checksum(p);
	}
	tu_put32(th + 4, f->seq);
	tu_put32(th + 8, 0x0a0b0c0d);
	th[12] = (uint8_t)((l4h / 4) << 4);
	th[13] = f->last_flags;
	tu_put16(th + 14, 1024);
	tu_put16(th + 18, 0);
	for (uint32_t i = 20; i < l4h; i++)
		th[i] = i < 22 ? 1 : (uint8_t)(i * 3);  /* NOP NOP + "timestamps" */
	for (uint32_t i = l3 + l4h; i < ip.len_bytes; i++)
		p[i] = (uint8_t)rng_next(&rng);
	/* The virtio header a tun read would carry (tso.h). */
	sb[0] = TSO_F_NEEDS_CSUM;
	sb[1] = (uint8_t)(f->v6 ? TSO_GSO_TCPV6 : TSO_GSO_TCPV4);
	sb[2] = (uint8_t)(l3 + l4h);
	sb[4] = (uint8_t)f->mss;
	sb[5] = (uint8_t)(f->mss >> 8);
	sb[6] = (uint8_t)l3;
	sb[8] = 16;
	assert_int_equal(tso_begin(&s, sb, TSO_VNET_HDR_BYTES + ip.len_bytes,
				   pkt_pool_cap_bytes()), TSO_OK);
	while (tso_left(&s)) {
		assert_true(*n < max);
		seg[*n] = pkt_alloc();
		assert_non_null(seg[*n]);
		seg[*n]->len_bytes = tso_next(&s, seg[*n]->data);
		(*n)++;
	}
}

void tu_ipv4_fix_checksum(uint8_t *hdr)
{
	size_t hl = (size_t)(hdr[0] & 0x0f) * 4;
	uint32_t s = 0;

	tu_put16(hdr + 10, 0);
	for (size_t i = 0; i + 1 < hl; i += 2)
		s += (uint32_t)hdr[i] << 8 | hdr[i + 1];
	while (s > 0xffff)
		s = (s >> 16) + (s & 0xffff);
	tu_put16(hdr + 10, (uint16_t)~s);
}

/* The fixed IPv4 header and its options; returns the header length. */
static size_t put_v4(uint8_t *b, const struct tu_ip *ip)
{
	size_t hl = 20 + 4 * (size_t)ip->opt_words;

	assert_true(ip->opt_words <= 10);
	b[0] = (uint8_t)(0x40 | (5 + ip->opt_words));
	b[1] = (uint8_t)(ip->dscp << 2 | (ip->ecn & 3));
	tu_put16(b + 2, (uint16_t)ip->len_bytes);
	tu_put16(b + 4, 0x1234);        /* id */
	tu_put16(b + 6, 0x4000);        /* DF */
	b[8] = 64;
	b[9] = ip->proto;
	memcpy(b + 12, ip->src ? ip->src : tu_v4_src, 4);
	memcpy(b + 16, ip->dst ? ip->dst : tu_v4_dst, 4);
	for (unsigned i = 0; i < ip->opt_words; i++)
		b[20 + 4 * i] = 1;      /* NOP */
	return hl;
}

/* The fixed IPv6 header and the extension headers; returns their length. */
static size_t put_v6(uint8_t *b, const struct tu_ip *ip)
{
	uint8_t tclass = (uint8_t)(ip->dscp << 2 | (ip->ecn & 3));
	size_t hl = 40 + ip->ext_bytes;

	b[0] = (uint8_t)(0x60 | (tclass >> 4));
	b[1] = (uint8_t)((tclass << 4) | 0x0a);  /* flow label 0xabcde */
	b[2] = 0xbc;
	b[3] = 0xde;
	tu_put16(b + 4, (uint16_t)(ip->len_bytes - 40));
	b[6] = ip->proto;
	b[7] = 64;
	memcpy(b + 8, ip->src ? ip->src : tu_v6_src, 16);
	memcpy(b + 24, ip->dst ? ip->dst : tu_v6_dst, 16);
	if (ip->ext_bytes)
		memcpy(b + 40, ip->ext, ip->ext_bytes);
	return hl;
}

size_t tu_ip_build(uint8_t *buf, size_t cap_bytes, const struct tu_ip *ip)
{
	size_t hl_max = ip->version == 6 ? 40 + ip->ext_bytes
					 : 20 + 4 * (size_t)ip->opt_words;
	size_t hl;
	uint8_t *l4;

	if (ip->version != 4 && ip->version != 6)
		fail_msg("tu_ip_build: version %u", ip->version);
	if (ip->len_bytes < hl_max || ip->len_bytes > cap_bytes ||
	    ip->len_bytes > 65535)
		fail_msg("tu_ip_build: %u bytes for %zu of headers in %zu",
			 ip->len_bytes, hl_max, cap_bytes);
	memset(buf, 0, ip->len_bytes);
	hl = ip->version == 6 ? put_v6(buf, ip) : put_v4(buf, ip);
	l4 = buf + hl;
	if (ip->len_bytes - hl >= 4) {
		tu_put16(l4, ip->sport);
		tu_put16(l4 + 2, ip->dport);
	}
	for (size_t i = 4; i < ip->len_bytes - hl; i++)
		l4[i] = (uint8_t)(i * 7);
	if (ip->version == 4)
		tu_ipv4_fix_checksum(buf);
	return ip->len_bytes;
}

struct pkt *tu_pkt_ip(const struct tu_ip *ip)
{
	struct pkt *p = pkt_alloc();

	assert_non_null(p);
	p->len_bytes = (uint32_t)tu_ip_build(p->data, pkt_pool_cap_bytes(), ip);
	return p;
}

/* ---- configuration ------------------------------------------------------ */

void tu_diag_open(struct tu_diag *t, const char *file)
{
	memset(t, 0, sizeof(*t));
	t->f = open_memstream(&t->text, &t->len);
	assert_non_null(t->f);
	diag_init(&t->d, t->f, file);
}

const char *tu_diag_take(struct tu_diag *t)
{
	fclose(t->f);
	free(t->taken);
	t->taken = t->text;
	t->text = NULL;
	t->f = open_memstream(&t->text, &t->len);
	assert_non_null(t->f);
	t->d.out = t->f;
	return t->taken ? t->taken : "";
}

void tu_diag_close(struct tu_diag *t)
{
	fclose(t->f);
	free(t->text);
	free(t->taken);
	memset(t, 0, sizeof(*t));
}

/* What the last load printed: kept (reachable) until the next load. */
static char *conf_text;

const char *tu_conf_diag(void)
{
	return conf_text ? conf_text : "";
}

/* conf_load(path) with the lines named `name`. */
static int load_named(const char *path, const char *name, struct conf *c)
{
	struct tu_diag t;
	const char *p;
	int n, lines = 0;

	tu_diag_open(&t, name);
	n = conf_load(path, c, &t.d);
	assert_int_equal(n, t.d.nerr);
	free(conf_text);
	conf_text = strdup(tu_diag_take(&t));
	assert_non_null(conf_text);
	tu_diag_close(&t);
	for (p = conf_text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, n);
	return n;
}

int tu_conf_load(const char *path, struct conf *c)
{
	return load_named(path, path, c);
}

int tu_conf_load_text(const char *text, const char *name, struct conf *c)
{
	const char *dir = getenv("TMPDIR");
	char path[CONF_PATH_MAX];
	FILE *f;
	int fd, n;

	snprintf(path, sizeof(path), "%s/schedtun-tu-XXXXXX.conf",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	n = load_named(path, name, c);
	unlink(path);
	return n;
}

const char *tu_conf_json(const char *path, struct conf *c)
{
	static char buf[65536];
	struct tu_diag t;
	struct jw w;

	tu_diag_open(&t, path);
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	if (conf_load_json(path, c, &t.d, &w) != 0)
		fail_msg("%s: unexpected errors:\n%s", path, tu_diag_take(&t));
	jw_obj_end(&w);
	assert_true(jw_finish(&w) > 0);
	tu_diag_close(&t);
	return buf;
}

void tu_conf_load_ok(const char *path, struct conf *c)
{
	if (tu_conf_load(path, c) != 0)
		fail_msg("%s: unexpected errors:\n%s", path, conf_text);
}

void tu_conf_expect(const char *path, struct conf *c, int nerr,
		    const char *expected)
{
	int n = tu_conf_load(path, c);

	assert_string_equal(conf_text, expected);
	assert_int_equal(n, nerr);
	if (n == 0)
		return;
	/* a failed load holds nothing: the profile was freed */
	assert_null(c->link.pts);
	assert_null(c->link.opp_ms);
}

void tu_conf_expect_file(const char *path, struct conf *c, int nerr)
{
	char golden[CONF_PATH_MAX + 8];
	char *want;

	snprintf(golden, sizeof(golden), "%s.err", path);
	want = tu_read_file(golden);
	tu_conf_expect(path, c, nerr, want);
	free(want);
}

void tu_conf_basic(struct conf *c, uint64_t rate_bps, tstamp_ns delay_ns,
		   const char *sched)
{
	conf_defaults(c);
	c->link.kind = LINK_CONSTANT;
	c->link.rate_bps = rate_bps;
	c->link.mean_bps = rate_bps;
	c->delay_ns = delay_ns;
	if (!sched_lookup(sched))
		fail_msg("no scheduler '%s'", sched);
	conf_use_sched(c, sched_lookup(sched));
}

void tu_conf_peer_v4(struct conf *c, uint32_t ip, uint16_t port)
{
	struct sockaddr_in *peer = (struct sockaddr_in *)&c->peer.ss;

	c->has_peer = 1;
	memset(&c->peer, 0, sizeof(c->peer));
	peer->sin_family = AF_INET;
	peer->sin_port = htons(port);
	peer->sin_addr.s_addr = htonl(ip);
	c->peer.len = sizeof(*peer);
}

void tu_core_conf(struct conf *c, uint64_t rate_bps, tstamp_ns delay_ns,
		  const char *sched)
{
	tu_conf_basic(c, rate_bps, delay_ns, sched);
	tu_conf_peer_v4(c, 0x0a000002, 5000);
}

void tu_core_init(struct core *core, struct conf *c,
		  const struct core_io *io)
{
	assert_int_equal(core_init(core, c, io, 0), 0);
	core->real_minus_mono_ns = 0;
}

void tu_sched_params(const struct sched_ops *ops, const char *body,
		     const struct sched_env *env, void *params)
{
	const config_setting_t *grp = NULL;
	char text[4096], where[96];
	struct diag d;
	config_t cfg;

	assert_true(ops->params_size <= SCHED_PARAMS_MAX);
	memset(params, 0, SCHED_PARAMS_MAX);
	ops->defaults(params, env);
	/* inside its real group, so that messages name scheduler.<name>.key */
	snprintf(text, sizeof(text), "scheduler = { %s = { %s }; };",
		 ops->name, body ? body : "");
	snprintf(where, sizeof(where), "scheduler.%s", ops->name);
	config_init(&cfg);
	if (config_read_string(&cfg, text) != CONFIG_TRUE)
		fail_msg("bad test config: %s", config_error_text(&cfg));
	if (body)
		grp = config_lookup(&cfg, where);
	diag_init(&d, stderr, "(test)");
	assert_int_equal(sched_parse(ops, grp, params, &d), 0);
	assert_int_equal(d.nerr, 0);
	config_destroy(&cfg);
}

void tu_sched_create(struct sched *s, const struct sched_ops *ops,
		     const char *body, const struct sched_env *env)
{
	static alignas(16) unsigned char params[SCHED_PARAMS_MAX];

	tu_sched_params(ops, body, env, params);
	assert_int_equal(sched_create(s, ops, params, env), 0);
}

/* ---- simulator ------------------------------------------------------------ */

void tu_sim_config(struct sim_config *sc, uint64_t rate_bps,
		   tstamp_ns delay_ns, const char *sched,
		   tstamp_ns duration_ns, tstamp_ns warmup_ns)
{
	memset(sc, 0, sizeof(*sc));
	tu_conf_basic(&sc->conf, rate_bps, delay_ns, sched);
	sc->duration_ns = duration_ns;
	sc->warmup_ns = warmup_ns;
}

struct sim_source *tu_sim_src(struct sim_source *x, enum sim_src_kind kind,
			      uint32_t pkt_bytes, uint32_t flows)
{
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->pkt_bytes = pkt_bytes;
	x->flows = flows;
	return x;
}

void tu_flows_collect(struct sim_config *sc, struct tu_flows *fs,
		      struct sim_flow *f, unsigned cap)
{
	fs->f = f;
	fs->n = 0;
	fs->cap = cap;
	sc->flow_cb = tu_flows_keep;
	sc->flow_ctx = fs;
}

void tu_flows_keep(void *ctx, const struct sim_flow *f)
{
	struct tu_flows *fs = ctx;

	assert_true(fs->n < fs->cap);
	fs->f[fs->n++] = *f;
}

int tu_sim_teardown(void **state)
{
	(void)state;
	assert_int_equal(pkt_pool_size(), 0);
	assert_int_equal(pkt_pool_in_use(), 0);
	return 0;
}

/* ---- misc ---------------------------------------------------------------- */

char *tu_read_stream(FILE *f)
{
	long n;
	char *buf;

	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	return buf;
}

int tu_run(const char *const argv[], char **out, char **err)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int status;
	pid_t pid;

	assert_non_null(fo);
	assert_non_null(fe);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fileno(fo), 1) < 0 ||
		    dup2(fileno(fe), 2) < 0)
			_exit(127);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*out = tu_read_stream(fo);
	*err = tu_read_stream(fe);
	fclose(fo);
	fclose(fe);
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

char *tu_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;

	if (!f)
		fail_msg("cannot open %s", path);
	text = tu_read_stream(f);
	fclose(f);
	return text;
}

void tu_assert_names(const char *const *table, const struct tu_name *want,
		     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_non_null(table[want[i].value]);
		assert_string_equal(table[want[i].value], want[i].name);
	}
}

/* ---- numbers ------------------------------------------------------------ */

void tu_assert_rel(const char *what, double got, double want, double tol)
{
	double err = fabs(got - want) / fabs(want);

	print_message("  %-40s %16.10g, expected %16.10g (%.4f %%, tolerance "
		      "%.2f %%)\n", what, got, want, 100 * err, 100 * tol);
	if (!(err <= tol))
		fail_msg("%s = %.10g, expected %.10g: off by %.4f %%, tolerance "
			 "%.2f %%", what, got, want, 100 * err, 100 * tol);
}

void tu_cannot_run(const char *test, const char *why)
{
	const char *allow = getenv("SCHEDTUN_TEST_ALLOW_SKIP");

	if (!allow || !*allow)
		fail_msg("cannot run: %s: %s; run the suite as root on a machine "
			 "that allows it, or set SCHEDTUN_TEST_ALLOW_SKIP=REASON "
			 "to accept the skip", test, why);
	print_message("SKIP: %s: %s; allowed by SCHEDTUN_TEST_ALLOW_SKIP=%s\n",
		      test, why, allow);
	skip();
}
