/* test_coreauth.c - the authenticated tunnel in the core (tunnel.key_file,
 * src/core/coreauth.c): two cores on a virtual clock, the datagrams of one
 * handed to the other as the loop would (at p->data - c->lay.hdr_bytes).
 * Round trips with and without encryption, byte for byte; every byte of a
 * datagram altered, dropped, counted, never written to the tun and the
 * original still accepted after; 1,000 replays reach the tun once; a
 * peer of the other version refused both ways and never pinned; a mode
 * mismatch; a full socket re-sends the sealed datagram as it was; the
 * session's last counter sent and nothing after it; a
 * re-key on reload one side at a time losing nothing; adding a key at a
 * reload refused; the stats line's counters and "auth" object. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "core/core.h"
#include "pkt/tunnel.h"
#include "testutil.h"

#define MS NS_PER_MS
#define NDG 64

static const struct auth_key K1 = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				    14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
				    25, 26, 27, 28, 29, 30, 31, 32}};
static const struct auth_key K2 = {{0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6,
				    0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd,
				    0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4,
				    0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb,
				    0xdc, 0xdd, 0xde, 0xdf}};

struct dg {
	uint8_t  b[2048];
	size_t   len;
};

/* What one core sent and wrote to its tun. */
struct side {
	struct dg sent[NDG];
	int nsent;
	int eagain;             /* the next send returns -EAGAIN */
	struct dg tun[NDG];
	int ntun;
};

static struct side sa, sb;
/* the cores hold a 64 KB scratch each: static, not on the stack */
static struct core A, B;

static int side_send(void *ctx, const uint8_t *buf, size_t len,
		     const struct conf_addr *to)
{
	struct side *s = ctx;

	(void)to;
	if (s->eagain) {
		s->eagain = 0;
		return -EAGAIN;
	}
	assert_true(s->nsent < NDG);
	assert_true(len <= sizeof(s->sent[0].b));
	memcpy(s->sent[s->nsent].b, buf, len);
	s->sent[s->nsent++].len = len;
	return 0;
}

static int side_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	struct side *s = ctx;

	assert_true(s->ntun < NDG);
	memcpy(s->tun[s->ntun].b, buf, len);
	s->tun[s->ntun++].len = len;
	return 0;
}

/* A core at 8 Mbit/s without delay, peer 10.0.0.2:5000; keyed with *k
 * (NULL: no key), sealing if encrypt; session (epoch, salt). */
static void setup(struct core *c, struct side *s, const struct auth_key *k,
		  int encrypt, uint64_t epoch, uint64_t salt)
{
	struct conf conf;
	struct core_io io = { .send = side_send, .tun_write = side_tun_write,
			      .ctx = s, .session_epoch_ns = epoch,
			      .session_salt = salt };

	tu_core_conf(&conf, 8000000, 0, "fifo");
	if (k) {
		conf.has_key = 1;
		conf.key = *k;
		conf.encrypt = encrypt;
		conf.key_grace_ns = 60 * NS_PER_SEC;
		snprintf(conf.key_file, sizeof(conf.key_file), "test.key");
	}
	memset(s, 0, sizeof(*s));
	tu_core_init(c, &conf, &io);
}

/* A well-formed IPv4/UDP packet of len bytes from source port sport. */
static void make_ip(uint8_t *b, size_t len, uint16_t sport)
{
	const struct tu_ip ip = { .version = 4, .dscp = 0, .proto = 17,
				  .sport = sport, .dport = 9,
				  .len_bytes = (uint32_t)len };

	tu_ip_build(b, len, &ip);
}

/* n packets of len bytes into c's tun at now, all sent by now + 10 ms. */
static void send_n(struct core *c, int n, size_t len, tstamp_ns now)
{
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkt_alloc();

		assert_non_null(p);
		make_ip(p->data, len, (uint16_t)(1000 + i));
		p->len_bytes = (uint32_t)len;
		core_tun_input(c, p, now);
	}
	for (tstamp_ns t = now; t <= now + 10 * MS; t += MS)
		core_run(c, t);
}

/* Hands datagram d to c as the loop does, from 10.0.0.2:5000 or, with
 * stranger, from 10.0.0.9:5000. */
static void deliver(struct core *c, const struct dg *d, int stranger,
		    tstamp_ns now)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = htons(5000) };
	struct pkt *p = pkt_alloc();

	assert_non_null(p);
	src.sin_addr.s_addr = htonl(stranger ? 0x0a000009 : 0x0a000002);
	assert_true(d->len <= c->lay.hdr_bytes + pkt_pool_cap_bytes() +
			      c->lay.tag_bytes);
	memcpy(p->data - c->lay.hdr_bytes, d->b, d->len);
	core_udp_input(c, p, d->len, (const struct sockaddr *)&src, sizeof(src),
		       now);
}

/* The sum of every drops counter of c's receive path. */
static uint64_t rx_drops(const struct core *c)
{
	uint64_t n = c->st.rx_unknown_peer + c->st.rx_not_allowed +
		     c->st.rx_unauth + c->st.rx_keyed;

	for (int i = 0; i < TUN_VERDICT_MAX; i++)
		n += c->st.rx_bad[i];
	for (int i = 0; i < AUTH_VERDICT_MAX; i++)
		n += c->st.rx_auth[i];
	for (int i = 0; i < IP_VERDICT_MAX; i++)
		n += c->st.rx_inner_bad[i];
	return n;
}

static void teardown_pair(void)
{
	core_destroy(&A);
	core_destroy(&B);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* Version 2 both ways, with and without encryption: the wire carries
 * header + 24 + inner + 16 bytes, the inner packet in clear only without
 * encryption, and the receiver's tun gets exactly the sender's packets. */
static void round_trip(int encrypt)
{
	uint8_t plain[NDG][600];

	setup(&A, &sa, &K1, encrypt, 1000, 11);
	setup(&B, &sb, &K1, encrypt, 2000, 22);
	assert_int_equal(A.lay.hdr_bytes, TUN_HDR_V2_BYTES);
	send_n(&A, 5, 600, 0);
	assert_int_equal(sa.nsent, 5);
	for (int i = 0; i < 5; i++) {
		struct tun_hdr h;

		make_ip(plain[i], 600, (uint16_t)(1000 + i));
		assert_int_equal(sa.sent[i].len, 600 + AUTH_OVERHEAD_BYTES);
		assert_int_equal(tun_hdr_decode(sa.sent[i].b, sa.sent[i].len, 1500, &h),
				 TUN_OK);
		assert_int_equal(h.version, TUN_VERSION_AUTH);
		assert_int_equal(h.seq, i);
		assert_int_equal(!!(h.flags & AUTH_F_SEALED), encrypt);
		assert_int_equal(!memcmp(sa.sent[i].b + TUN_HDR_V2_BYTES, plain[i], 600),
				 !encrypt);
		deliver(&B, &sa.sent[i], 0, 20 * MS);
	}
	assert_int_equal(sb.ntun, 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(sb.tun[i].len, 600);
		assert_memory_equal(sb.tun[i].b, plain[i], 600);
	}
	assert_int_equal(rx_drops(&B), 0);
	assert_int_equal(B.st.rx[CLS_CS0].pkts, 5);
	assert_int_equal(B.st.rx[CLS_CS0].lost, 0);
	assert_int_equal(B.auth->rx_sessions, 1);
	teardown_pair();
}

static void test_round_trip_mac(void **state)
{
	(void)state;
	round_trip(0);
}

static void test_round_trip_encrypt(void **state)
{
	(void)state;
	round_trip(1);
}

/* Every byte of a datagram changed (xor 0x01, then 0x80): each is dropped
 * by one receive-path counter and never reaches the tun; afterwards the
 * original is accepted, so no forgery moved the window.  Also from an
 * address the receiver does not know, at an unpinned receiver: refused,
 * and the peer stays unpinned. */
static void test_forgeries(void **state)
{
	struct dg d;
	uint64_t before;

	(void)state;
	setup(&A, &sa, &K1, 1, 1000, 11);
	setup(&B, &sb, &K1, 1, 2000, 22);
	send_n(&A, 1, 200, 0);
	assert_int_equal(sa.nsent, 1);
	for (size_t i = 0; i < sa.sent[0].len; i++) {
		for (int bit = 0; bit < 2; bit++) {
			d = sa.sent[0];
			d.b[i] ^= bit ? 0x80 : 0x01;
			before = rx_drops(&B);
			deliver(&B, &d, 0, MS);
			assert_int_equal(rx_drops(&B), before + 1);
		}
	}
	assert_int_equal(sb.ntun, 0);
	assert_int_equal(B.auth->rx_sessions, 0);
	assert_true(B.st.rx_auth[AUTH_BAD_TAG] > 0);
	deliver(&B, &sa.sent[0], 0, MS);
	assert_int_equal(sb.ntun, 1);
	teardown_pair();

	/* unpinned receiver: a forged datagram from a stranger pins nothing */
	setup(&A, &sa, &K1, 0, 1000, 11);
	setup(&B, &sb, &K1, 0, 2000, 22);
	B.peer_known = 0;
	send_n(&A, 1, 200, 0);
	d = sa.sent[0];
	d.b[TUN_HDR_V2_BYTES + 30] ^= 1;
	deliver(&B, &d, 1, MS);
	assert_int_equal(B.st.rx_auth[AUTH_BAD_TAG], 1);
	assert_false(B.peer_known);
	deliver(&B, &sa.sent[0], 1, MS);        /* authentic: pins */
	assert_true(B.peer_known);
	assert_int_equal(sb.ntun, 1);
	teardown_pair();
}

/* One captured datagram delivered 1,000 times reaches the tun once. */
static void test_replays(void **state)
{
	(void)state;
	setup(&A, &sa, &K1, 0, 1000, 11);
	setup(&B, &sb, &K1, 0, 2000, 22);
	send_n(&A, 2, 300, 0);
	for (int i = 0; i < 1000; i++)
		deliver(&B, &sa.sent[1], 0, MS + (tstamp_ns)i);
	assert_int_equal(sb.ntun, 1);
	assert_int_equal(B.st.rx_auth[AUTH_REPLAY], 999);
	/* the earlier one is still inside the window: accepted once */
	deliver(&B, &sa.sent[0], 0, 2 * MS);
	deliver(&B, &sa.sent[0], 0, 2 * MS);
	assert_int_equal(sb.ntun, 2);
	assert_int_equal(B.st.rx_auth[AUTH_REPLAY], 1000);
	teardown_pair();
}

/* A version 1 peer at a keyed daemon and a version 2 peer at an unkeyed
 * one: refused with their own counters, not written, never pinned. */
static void test_version_mismatch(void **state)
{
	(void)state;
	setup(&A, &sa, NULL, 0, 0, 0);
	setup(&B, &sb, &K1, 0, 2000, 22);
	B.peer_known = 0;
	send_n(&A, 3, 100, 0);
	assert_int_equal(sa.sent[0].len, 100 + TUN_HDR_BYTES);
	for (int i = 0; i < 3; i++)
		deliver(&B, &sa.sent[i], 0, MS);
	assert_int_equal(B.st.rx_unauth, 3);
	assert_int_equal(rx_drops(&B), 3);
	assert_int_equal(sb.ntun, 0);
	assert_false(B.peer_known);
	teardown_pair();

	setup(&A, &sa, &K1, 0, 1000, 11);
	setup(&B, &sb, NULL, 0, 0, 0);
	B.peer_known = 0;
	send_n(&A, 3, 100, 0);
	for (int i = 0; i < 3; i++)
		deliver(&B, &sa.sent[i], 0, MS);
	assert_int_equal(B.st.rx_keyed, 3);
	assert_int_equal(rx_drops(&B), 3);
	assert_int_equal(sb.ntun, 0);
	assert_false(B.peer_known);
	teardown_pair();
}

/* Encrypting towards a daemon that only authenticates, and back. */
static void test_mode_mismatch(void **state)
{
	(void)state;
	setup(&A, &sa, &K1, 1, 1000, 11);
	setup(&B, &sb, &K1, 0, 2000, 22);
	send_n(&A, 2, 100, 0);
	send_n(&B, 2, 100, 0);
	for (int i = 0; i < 2; i++) {
		deliver(&B, &sa.sent[i], 0, 20 * MS);
		deliver(&A, &sb.sent[i], 0, 20 * MS);
	}
	assert_int_equal(B.st.rx_auth[AUTH_MODE_MISMATCH], 2);
	assert_int_equal(A.st.rx_auth[AUTH_MODE_MISMATCH], 2);
	assert_int_equal(sa.ntun + sb.ntun, 0);
	teardown_pair();
}

/* A full socket: the datagram goes back to the delay line sealed, and is
 * re-sent byte for byte as it was, not sealed a second time (which would
 * encrypt the ciphertext and spend a counter). */
static void test_eagain_resends_sealed(void **state)
{
	(void)state;
	setup(&A, &sa, &K1, 1, 1000, 11);
	setup(&B, &sb, &K1, 1, 2000, 22);
	sa.eagain = 1;
	send_n(&A, 1, 400, 0);
	assert_int_equal(sa.nsent, 0);
	assert_true(A.blocked);
	assert_int_equal(A.auth->tx_ctr, 1);
	core_writable(&A);
	core_run(&A, 20 * MS);
	send_n(&A, 1, 400, 20 * MS);
	assert_int_equal(sa.nsent, 2);
	assert_int_equal(A.auth->tx_ctr, 2);
	deliver(&B, &sa.sent[0], 0, 40 * MS);
	deliver(&B, &sa.sent[1], 0, 40 * MS);
	assert_int_equal(sb.ntun, 2);
	assert_int_equal(rx_drops(&B), 0);
	assert_int_equal(B.st.rx[CLS_CS0].lost, 0);
	teardown_pair();
}

/* The last counter of a session is sent; past it nothing is: each packet
 * is counted in drops.tx_counter_limit and freed, none sealed twice. */
static void test_counter_limit(void **state)
{
	(void)state;
	setup(&A, &sa, &K1, 1, 1000, 11);
	setup(&B, &sb, &K1, 1, 2000, 22);
	A.auth->tx_ctr = REPLAY_CTR_LIMIT - 1;
	send_n(&A, 3, 100, 0);
	assert_int_equal(sa.nsent, 1);
	assert_int_equal(A.st.tx_counter_limit, 2);
	assert_int_equal(A.st.link_out_pkts, 3);
	assert_true(A.warn_tx_limit.active);
	deliver(&B, &sa.sent[0], 0, 20 * MS);
	/* the last counter below the limit is the peer's to accept */
	assert_int_equal(B.st.rx_auth[AUTH_COUNTER_LIMIT], 0);
	assert_int_equal(sb.ntun, 1);
	teardown_pair();
}

/* A reload configuration equal to the running one but for the key. */
static void reload_conf(struct conf *n, const struct core *c,
			const struct auth_key *k, int has_key, int encrypt)
{
	tu_core_conf(n, 8000000, 0, "fifo");
	n->has_key = has_key;
	if (has_key)
		n->key = *k;
	n->encrypt = encrypt;
	n->key_grace_ns = 60 * NS_PER_SEC;
	snprintf(n->key_file, sizeof(n->key_file), "%s", c->conf.key_file);
}

/* Both cores exchange one datagram each way at t; everything delivered
 * must be accepted. */
static void exchange(tstamp_ns t)
{
	int a0 = sa.nsent, b0 = sb.nsent, ta = sa.ntun, tb = sb.ntun;

	send_n(&A, 1, 120, t);
	send_n(&B, 1, 120, t);
	assert_int_equal(sa.nsent, a0 + 1);
	assert_int_equal(sb.nsent, b0 + 1);
	deliver(&B, &sa.sent[a0], 0, t + 10 * MS);
	deliver(&A, &sb.sent[b0], 0, t + 10 * MS);
	assert_int_equal(sb.ntun, tb + 1);
	assert_int_equal(sa.ntun, ta + 1);
}

/* SIGHUP with a new key on A, traffic, then on B: nothing is refused,
 * from B's re-key on both send under the new key, and after the grace
 * period both have forgotten the old one. */
static void test_reload_rekey(void **state)
{
	struct conf n;
	tstamp_ns t = 0;

	(void)state;
	setup(&A, &sa, &K1, 1, 1000, 11);
	setup(&B, &sb, &K1, 1, 2000, 22);
	exchange(t += 20 * MS);
	reload_conf(&n, &A, &K2, 1, 1);
	assert_int_equal(core_reconfigure(&A, &n, t), 0);
	assert_true(A.auth->has_prev);
	for (int i = 0; i < 3; i++)
		exchange(t += 20 * MS);
	assert_false(A.auth->tx_cur);           /* B has not got K2 yet */
	reload_conf(&n, &B, &K2, 1, 1);
	assert_int_equal(core_reconfigure(&B, &n, t), 0);
	for (int i = 0; i < 3; i++)
		exchange(t += 20 * MS);
	assert_true(A.auth->tx_cur);
	assert_true(B.auth->tx_cur);
	assert_int_equal(A.auth->tx_switches, 1);
	assert_int_equal(B.auth->tx_switches, 1);
	assert_int_equal(rx_drops(&A) + rx_drops(&B), 0);
	/* past the grace period, K1 is gone on both sides */
	t += 61 * NS_PER_SEC;
	exchange(t);
	assert_false(A.auth->has_prev);
	assert_false(B.auth->has_prev);
	teardown_pair();
}

/* Adding a key, removing it or changing encryption at a reload is
 * refused: the running tunnel keeps its mode and key. */
static void test_reload_refuses_mode_changes(void **state)
{
	struct conf n;

	(void)state;
	setup(&A, &sa, NULL, 0, 0, 0);
	reload_conf(&n, &A, &K1, 1, 0);
	assert_int_equal(core_reconfigure(&A, &n, MS), 0);
	assert_null(A.auth);
	assert_false(A.conf.has_key);
	assert_int_equal(A.lay.hdr_bytes, TUN_HDR_BYTES);
	core_destroy(&A);

	setup(&A, &sa, &K1, 0, 1000, 11);
	reload_conf(&n, &A, &K2, 1, 1);        /* encrypt changed */
	assert_int_equal(core_reconfigure(&A, &n, MS), 0);
	assert_false(A.conf.encrypt);
	assert_memory_equal(&A.conf.key, &K1, sizeof(K1));
	assert_false(A.auth->has_prev);         /* no re-key either */
	reload_conf(&n, &A, NULL, 0, 0);        /* key removed */
	assert_int_equal(core_reconfigure(&A, &n, MS), 0);
	assert_true(A.conf.has_key);
	assert_non_null(A.auth);
	core_destroy(&A);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* The stats line: the new drops keys always, the "auth" object only with
 * a key, its counters as deltas. */
static void test_stats_line(void **state)
{
	static char line[16384];

	(void)state;
	setup(&A, &sa, &K1, 0, 1000, 11);
	setup(&B, &sb, &K1, 0, 2000, 22);
	send_n(&A, 2, 100, 0);
	deliver(&B, &sa.sent[0], 0, MS);
	deliver(&B, &sa.sent[0], 0, MS);
	assert_true(core_stats_line(&B, 2 * MS, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "\"rx_replay\": 1,"));
	assert_non_null(strstr(line, "\"rx_bad_auth\": 0,"));
	assert_non_null(strstr(line, "\"rx_unauth\": 0,"));
	assert_non_null(strstr(line, "\"rx_keyed\": 0,"));
	assert_non_null(strstr(line, "\"tx_counter_limit\": 0,"));
	assert_non_null(strstr(line, "\"auth\": {\"sessions\": 1, \"prev_key\": 0, "
				     "\"switches\": 0, \"late_max\": 0, "
				     "\"rekey_pending\": false}"));
	deliver(&B, &sa.sent[1], 0, 3 * MS);
	assert_true(core_stats_line(&B, 4 * MS, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "\"auth\": {\"sessions\": 0,"));
	assert_non_null(strstr(line, "\"rx_replay\": 0,"));
	teardown_pair();

	setup(&A, &sa, NULL, 0, 0, 0);
	assert_true(core_stats_line(&A, MS, line, sizeof(line)) > 0);
	assert_null(strstr(line, "\"auth\""));
	assert_non_null(strstr(line, "\"rx_bad_auth\": 0,"));
	core_destroy(&A);
	assert_int_equal(pkt_pool_in_use(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_POOL_TEST(test_round_trip_mac),
		TU_POOL_TEST(test_round_trip_encrypt),
		TU_POOL_TEST(test_forgeries),
		TU_POOL_TEST(test_replays),
		TU_POOL_TEST(test_version_mismatch),
		TU_POOL_TEST(test_mode_mismatch),
		TU_POOL_TEST(test_eagain_resends_sealed),
		TU_POOL_TEST(test_counter_limit),
		TU_POOL_TEST(test_reload_rekey),
		TU_POOL_TEST(test_reload_refuses_mode_changes),
		TU_POOL_TEST(test_stats_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
