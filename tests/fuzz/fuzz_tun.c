/* fuzz_tun.c - target 2: packets read from the tun through the real
 * egress path with every registered scheduler: core_tun_input()
 * (ip_inspect: IPv4/IPv6, options, extension headers, fragments; DSCP
 * classification, class limit, sched_enqueue) and core_run() (pacer,
 * sched_dequeue, delay line, encapsulation, fake send), then a drain and
 * the stats line (core_stats_line).
 *
 * Input: byte 0 chooses the set-up, then records until the input ends:
 *   byte 0    bits 0-3: class limit for every class (0: the defaults,
 *             else 1 << (n - 1) packets); bits 4-5: the link rate
 *             (1, 8, 100 Mbit/s, 10 Gbit/s)
 *   record    [dt][len_hi][len_lo][len bytes of packet]: the clock
 *             advances dt * 50 us; an odd dt runs the core first; the
 *             length is cut to the input left and, like a tun read, to
 *             the buffer
 *
 * Asserts after every record: the packet is refused with exactly one
 * tun_* reason, or counted in exactly one class, the class its DSCP maps
 * to by the default map of the design brief (EF 46, 44; AF the twelve
 * AFxy; else CS0), read here from the bytes (IPv4 TOS, IPv6 traffic
 * class); per class in = out + drops + queued; the packets out of the
 * pool are those queued plus those in the delay line.
 * Every datagram sent is decoded here byte by byte as
 * docs/tunnel-protocol.md lays it out, without the product's decoder:
 * magic 0x5354, version 1, flags 0, length = datagram - 20, class 0..2,
 * sequence number one above the class's previous one, tx_ns the time the
 * packet was read; the inner packet is byte for byte one that was read
 * in that class at that time and not yet sent.
 * After the input the core is run until everything left: it never stalls
 * with packets queued (TS_NEVER with a backlog), every class ends with
 * in = out + drops; the stats line is one JSON object (parsed by
 * fz_json_parse, independent of the writer) with the keys of
 * docs/stats-format.md whose counters are what this target counted:
 * link out = datagrams sent, per class in/out packets and bytes, drops =
 * in - out, nothing queued, nothing received, the tun_* drops = the
 * packets refused, t = the time, the scheduler's name.  After
 * core_destroy every packet is back in the pool.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "pkt/pkt.h"
#include "fuzz_common.h"

#define POOL_PKTS  512u
#define CAP_BYTES  1500u
#define DRAIN_RUNS 200000
#define MAX_RECS   1400         /* 4096-byte inputs: at most 1365 records */

static const uint64_t rates[4] = { 1000000, 8000000, 100000000, 10000000000ull };
static const char *const cls_key[NCLASS] = { "ef", "af", "cs0" };

/* A packet read from the tun and classified: what the wire must carry. */
struct fed {
	const uint8_t *bytes;
	uint32_t       len;
	uint8_t        cls;
	int            sent;
	tstamp_ns      read_ns;
};

/* What this target counted, independently of the core's counters. */
static struct {
	const char  *sched;
	struct fed   rec[MAX_RECS];
	size_t       nrec;
	uint64_t     refused;                   /* tun_* drops */
	uint64_t     in_pkts[NCLASS], in_bytes[NCLASS];
	uint64_t     out_pkts[NCLASS], out_bytes[NCLASS];
	uint32_t     last_seq[NCLASS];
	int          seq_seen[NCLASS];
} T;

/* The class of a packet's DSCP by the design brief's default map,
 * independently of classify.c: EF 46 and 44; AF the twelve AFxy; else
 * CS0.  -1: no IP version 4/6 or too short to carry the DSCP (ip_inspect
 * must refuse those). */
static int expected_class(const uint8_t *b, uint32_t len)
{
	static const uint8_t af[] = { 10, 12, 14, 18, 20, 22, 26, 28, 30,
				      34, 36, 38 };
	unsigned dscp, i;

	if (len < 2)
		return -1;
	if (b[0] >> 4 == 4)
		dscp = b[1] >> 2;
	else if (b[0] >> 4 == 6)
		dscp = (unsigned)(b[0] & 0x0f) << 2 | b[1] >> 6;
	else
		return -1;
	if (dscp == 46 || dscp == 44)
		return CLS_EF;
	for (i = 0; i < sizeof(af); i++)
		if (dscp == af[i])
			return CLS_AF;
	return CLS_CS0;
}

/* One datagram handed to the fake send: the header of
 * docs/tunnel-protocol.md, decoded from the bytes. */
static void on_send(const uint8_t *b, size_t len)
{
	uint32_t inner, seq;
	uint64_t tx_ns;
	unsigned cls;
	size_t i, same_bytes = MAX_RECS;

	FZ_CHECK(len >= 20, "%s: datagram of %zu bytes", T.sched, len);
	FZ_CHECK(b[0] == 0x53 && b[1] == 0x54, "%s: magic %02x%02x", T.sched,
		 b[0], b[1]);
	FZ_CHECK(b[2] == 1, "%s: version %u", T.sched, b[2]);
	cls = b[3];
	FZ_CHECK(cls < NCLASS, "%s: class %u", T.sched, cls);
	inner = fz_be16(b + 4);
	FZ_CHECK(inner == len - 20, "%s: length field %u, datagram %zu",
		 T.sched, inner, len);
	FZ_CHECK(fz_be16(b + 6) == 0, "%s: flags %04x", T.sched,
		 fz_be16(b + 6));
	seq = fz_be32(b + 8);
	FZ_CHECK(!T.seq_seen[cls] || seq == T.last_seq[cls] + 1,
		 "%s: class %u sequence %u after %u", T.sched, cls, seq,
		 T.last_seq[cls]);
	T.seq_seen[cls] = 1;
	T.last_seq[cls] = seq;
	tx_ns = fz_be64(b + 12);
	/* The inner packet: one read and not yet sent, with this class and
	 * this read time; the nearest miss names what differs. */
	for (i = 0; i < T.nrec; i++) {
		struct fed *f = &T.rec[i];

		if (f->sent || f->len != inner || memcmp(f->bytes, b + 20, inner))
			continue;
		if (f->cls == cls && f->read_ns == tx_ns)
			break;
		same_bytes = i;
	}
	if (i == T.nrec) {
		FZ_CHECK(same_bytes == MAX_RECS, "%s: sent a packet with class %u "
			 "tx_ns %llu; read as class %u at %llu", T.sched, cls,
			 (unsigned long long)tx_ns, T.rec[same_bytes].cls,
			 (unsigned long long)T.rec[same_bytes].read_ns);
		fz_fail(__FILE__, __LINE__, "inner packet", "%s: sent %u bytes "
			"of class %u that were never read (or altered)", T.sched,
			inner, cls);
	}
	T.rec[i].sent = 1;
	T.out_pkts[cls]++;
	T.out_bytes[cls] += inner;
}

static void check_accounts(const struct core *c, const char *sched)
{
	uint32_t held = c->dl.q.len_pkts;
	int k;

	for (k = 0; k < NCLASS; k++) {
		const struct cls_stats *s = &c->st.cls[k];

		FZ_CHECK(s->in_pkts == s->out_pkts + s->drop_pkts + c->qlen_pkts[k],
			 "%s class %d: in %llu != out %llu + drop %llu + queued %u",
			 sched, k, (unsigned long long)s->in_pkts,
			 (unsigned long long)s->out_pkts,
			 (unsigned long long)s->drop_pkts, c->qlen_pkts[k]);
		held += c->qlen_pkts[k];
	}
	FZ_CHECK(pkt_pool_in_use() == held, "%s: %u packets out of the pool, "
		 "%u queued or in flight", sched, pkt_pool_in_use(), held);
}

static uint64_t refused_now(const struct core *c)
{
	uint64_t n = 0;
	int v;

	for (v = 1; v < IP_VERDICT_MAX; v++)
		n += c->st.tun_bad[v];
	return n;
}

/* One packet into core_tun_input: exactly one outcome, the right class. */
static void feed(struct core *c, struct pkt *p, const uint8_t *bytes,
		 tstamp_ns now)
{
	uint64_t in0[NCLASS], bad0 = refused_now(c);
	uint32_t len = p->len_bytes;
	int k, moved = -1, want = expected_class(bytes, len);

	for (k = 0; k < NCLASS; k++)
		in0[k] = c->st.cls[k].in_pkts;
	core_tun_input(c, p, now);
	for (k = 0; k < NCLASS; k++)
		if (c->st.cls[k].in_pkts != in0[k]) {
			FZ_CHECK(moved < 0 && c->st.cls[k].in_pkts == in0[k] + 1,
				 "%s: one packet moved several class counters",
				 T.sched);
			moved = k;
		}
	if (moved < 0) {
		FZ_CHECK(refused_now(c) == bad0 + 1, "%s: %u-byte packet neither "
			 "classified nor refused", T.sched, len);
		T.refused++;
		return;
	}
	FZ_CHECK(refused_now(c) == bad0, "%s: classified and refused", T.sched);
	FZ_CHECK(moved == want, "%s: DSCP of %02x %02x classified %d, expected "
		 "%d", T.sched, bytes[0], bytes[1], moved, want);
	FZ_CHECK(T.nrec < MAX_RECS, "records");
	T.rec[T.nrec++] = (struct fed){ bytes, len, (uint8_t)moved, 0, now };
	T.in_pkts[moved]++;
	T.in_bytes[moved] += len;
}

/* The stats line: one JSON object, its contract's keys, our counts. */
static void check_stats(const char *line, int n, const struct conf *conf,
			tstamp_ns now, int64_t real_minus_mono_ns)
{
	static const char *const ms3[] = { "avg", "p99", "max" };
	static const char *const late[] = { "p50", "p99", "max" };
	char err[256], key[64];
	struct fz_json *j;
	const struct fz_json *sch, *m;
	uint64_t sent = 0, sent_bytes = 0, bad = 0;
	int k, i;

	FZ_CHECK(n > 0 && line[n - 1] == '\n' && !memchr(line, '\n', (size_t)n - 1),
		 "%s: stats line of %d bytes, not one line", T.sched, n);
	j = fz_json_parse(line, (size_t)n, err, sizeof(err));
	FZ_CHECK(j && j->type == FZ_JSON_OBJ, "%s: stats line is not a JSON "
		 "object (%s): %.200s", T.sched, j ? "not an object" : err, line);
	/* t: seconds with 3 decimals, so within half a millisecond */
	FZ_CHECK(fabs(fz_json_num(j, "t") - (double)now / 1e9) <= 0.0005 + 1e-9,
		 "%s: t %g at %llu ns", T.sched, fz_json_num(j, "t"),
		 (unsigned long long)now);
	/* wall: the realtime of t, printed to the microsecond (half a us
	 * of rounding, and a double near 1.8e9 s holds 0.24 us) */
	FZ_CHECK(fabs(fz_json_num(j, "wall") -
		      (double)((int64_t)now + real_minus_mono_ns) / 1e9) <= 1e-6,
		 "%s: wall %.6f at %llu ns + %lld ns", T.sched,
		 fz_json_num(j, "wall"), (unsigned long long)now,
		 (long long)real_minus_mono_ns);
	FZ_CHECK(fz_json_uint(j, "link.rate_bps") == conf->link.rate_bps,
		 "%s: link.rate_bps", T.sched);
	for (k = 0; k < NCLASS; k++) {
		const char *c = cls_key[k];
		struct { const char *key; uint64_t want; } f[] = {
			{ "in_pkts", T.in_pkts[k] }, { "in_bytes", T.in_bytes[k] },
			{ "out_pkts", T.out_pkts[k] }, { "out_bytes", T.out_bytes[k] },
			{ "drop_pkts", T.in_pkts[k] - T.out_pkts[k] },
			{ "drop_bytes", T.in_bytes[k] - T.out_bytes[k] },
			{ "qlen_pkts", 0 }, { "qlen_bytes", 0 },
		};

		for (i = 0; i < (int)(sizeof(f) / sizeof(f[0])); i++) {
			snprintf(key, sizeof(key), "classes.%s.%s", c, f[i].key);
			FZ_CHECK(fz_json_uint(j, key) == f[i].want, "%s: %s = %llu, "
				 "counted %llu", T.sched, key,
				 (unsigned long long)fz_json_uint(j, key),
				 (unsigned long long)f[i].want);
		}
		for (i = 0; i < 3; i++) {
			double v;

			snprintf(key, sizeof(key), "classes.%s.delay_ms.%s", c, ms3[i]);
			v = fz_json_num(j, key);
			/* nobody waits longer than the run */
			FZ_CHECK(v >= 0 && v <= (double)now / 1e6 * 1.001 + 0.001,
				 "%s: %s = %g after %llu ns", T.sched, key, v,
				 (unsigned long long)now);
			snprintf(key, sizeof(key), "rx.%s.owd_ms.%s", c, ms3[i]);
			FZ_CHECK(fz_json_num(j, key) == 0, "%s: %s", T.sched, key);
		}
		snprintf(key, sizeof(key), "rx.%s.pkts", c);
		FZ_CHECK(fz_json_uint(j, key) == 0, "%s: %s", T.sched, key);
		snprintf(key, sizeof(key), "rx.%s.bytes", c);
		FZ_CHECK(fz_json_uint(j, key) == 0, "%s: %s", T.sched, key);
		snprintf(key, sizeof(key), "rx.%s.lost", c);
		FZ_CHECK(fz_json_uint(j, key) == 0, "%s: %s", T.sched, key);
		sent += T.out_pkts[k];
		sent_bytes += T.out_bytes[k];
	}
	/* The link is charged on the inner packet's bytes. */
	FZ_CHECK(fz_json_uint(j, "link.out_pkts") == sent &&
		 fz_json_uint(j, "link.out_bytes") == sent_bytes &&
		 fz_json_uint(j, "link.inflight_pkts") == 0, "%s: link out %llu "
		 "%llu, counted %llu %llu", T.sched,
		 (unsigned long long)fz_json_uint(j, "link.out_pkts"),
		 (unsigned long long)fz_json_uint(j, "link.out_bytes"),
		 (unsigned long long)sent, (unsigned long long)sent_bytes);
	for (i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "link.late_us.%s", late[i]);
		FZ_CHECK(fz_json_num(j, key) >= 0, "%s: %s", T.sched, key);
	}
	m = fz_json_get(j, "drops");
	FZ_CHECK(m && m->type == FZ_JSON_OBJ && m->child, "%s: drops", T.sched);
	for (m = m->child; m; m = m->next) {
		FZ_CHECK(m->type == FZ_JSON_NUM && m->is_uint, "%s: drops.%s",
			 T.sched, m->key);
		if (!strncmp(m->key, "tun_", 4))
			bad += m->uint;
		else if (!strncmp(m->key, "rx_", 3) ||
			 !strcmp(m->key, "tun_write_error") ||
			 !strcmp(m->key, "send_error"))
			FZ_CHECK(m->uint == 0, "%s: drops.%s = %llu", T.sched,
				 m->key, (unsigned long long)m->uint);
	}
	FZ_CHECK(bad == T.refused, "%s: drops.tun_* add to %llu, refused %llu",
		 T.sched, (unsigned long long)bad, (unsigned long long)T.refused);
	/* Keys of the contract that this path does not move: present, integers. */
	fz_json_uint(j, "drops.pool_empty");
	fz_json_uint(j, "drops.class_limit");
	fz_json_uint(j, "io.tx_blocked");
	fz_json_uint(j, "io.gso_sends");
	sch = fz_json_get(j, "sched");
	m = fz_json_get(sch, "name");
	FZ_CHECK(m && m->type == FZ_JSON_STR && !strcmp(m->str, T.sched),
		 "%s: sched.name", T.sched);
	fz_json_free(j);
}

static void run_one(const struct sched_ops *ops, const uint8_t *data,
		    size_t size)
{
	static char line[65536];
	struct conf conf;
	struct core c;
	tstamp_ns now = 0, wake;
	size_t at = 1;
	uint64_t rate;
	int k, i, n;

	memset(&T, 0, sizeof(T));
	T.sched = ops->name;
	rate = rates[(data[0] >> 4) & 3];
	fz_conf(&conf, ops, rate);
	if (data[0] & 0x0f)
		for (k = 0; k < NCLASS; k++)
			conf.limit_pkts[k] = 1u << ((data[0] & 0x0f) - 1);
	FZ_CHECK(core_init(&c, &conf, &fz_core_io, 0) == 0, "%s: core_init", ops->name);
	while (at + 3 <= size) {
		uint8_t dt = data[at];
		size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
		struct pkt *p;

		at += 3;
		if (len > size - at)
			len = size - at;
		now += dt * 50 * NS_PER_US;
		if (dt & 1)
			core_run(&c, now);
		p = pkt_alloc();
		if (p) {        /* the loop counts pool_empty and drops it */
			p->len_bytes = (uint32_t)(len < CAP_BYTES ? len : CAP_BYTES);
			memcpy(p->data, data + at, p->len_bytes);
			feed(&c, p, data + at, now);
		}
		at += len;
		check_accounts(&c, ops->name);
	}
	for (i = 0; i < DRAIN_RUNS; i++) {
		wake = core_run(&c, now);
		check_accounts(&c, ops->name);
		if (!c.dl.q.len_pkts && !c.qlen_pkts[0] && !c.qlen_pkts[1] &&
		    !c.qlen_pkts[2])
			break;
		FZ_CHECK(wake != TS_NEVER, "%s: stalled with %u+%u+%u queued, "
			 "%u in flight", ops->name, c.qlen_pkts[0],
			 c.qlen_pkts[1], c.qlen_pkts[2], c.dl.q.len_pkts);
		if (wake > now)
			now = wake;
	}
	FZ_CHECK(i < DRAIN_RUNS, "%s: not drained after %d runs", ops->name, i);
	/* After the checks: formatting resets the counters (deltas). */
	/* a realtime offset like a 2026 clock's, so wall is not t */
	c.real_minus_mono_ns = 1795795400123456000;
	n = core_stats_line(&c, now, line, sizeof(line));
	check_stats(line, n, &c.conf, now, c.real_minus_mono_ns);
	core_destroy(&c);
	FZ_CHECK(pkt_pool_in_use() == 0, "%s: %u packets not returned",
		 ops->name, pkt_pool_in_use());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sched_ops *const *ops;

	static int tested;

	if (!tested) {          /* the stats oracle's reader, once */
		fz_json_selftest();
		tested = 1;
	}
	if (size < 1)
		return 0;
	fz_pool(POOL_PKTS, CAP_BYTES);
	fz_io.on_tun = NULL;
	fz_io.on_send = on_send;
	for (ops = sched_registry; *ops; ops++)
		run_one(*ops, data, size);
	return 0;
}
