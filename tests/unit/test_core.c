/* test_core.c - the daemon's packet path on a virtual clock with fake I/O:
 * classification -> class limit -> scheduler -> pacer -> delay line ->
 * encapsulation, and the receive path's checks, pinning and counters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "core/core.h"
#include "pkt/tunnel.h"
#include "util/jw.h"
#include "testutil.h"

#define MS NS_PER_MS

struct sent {
	uint8_t  buf[2048];
	size_t   len;
	tstamp_ns at;
};

static struct fake_io {
	struct sent sent[64];
	int nsent;
	int eagain;             /* next send returns -EAGAIN */
	int refuse;             /* next send returns -ECONNREFUSED */
	uint8_t tun[2048];
	size_t tun_len;
	int ntun;
	tstamp_ns now;
} io;

static int fake_send(void *ctx, const uint8_t *buf, size_t len,
		     const struct conf_addr *to)
{
	(void)ctx;
	(void)to;
	if (io.eagain) {
		io.eagain = 0;
		return -EAGAIN;
	}
	if (io.refuse) {
		io.refuse = 0;
		return -ECONNREFUSED;
	}
	assert_true(io.nsent < 64);
	memcpy(io.sent[io.nsent].buf, buf, len);
	io.sent[io.nsent].len = len;
	io.sent[io.nsent].at = io.now;
	io.nsent++;
	return 0;
}

static int fake_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	memcpy(io.tun, buf, len);
	io.tun_len = len;
	io.ntun++;
	return 0;
}

static const struct core_io fake = { .send = fake_send, .tun_write = fake_tun_write };

/* send_many: records each call's size; `many_fail_at` makes the datagram
 * at that position (counted over all calls) fail with many_err. */
static int many_calls, many_sizes[16], many_pos, many_fail_at = -1, many_err;

static int fake_send_many(void *ctx, const uint8_t *const *buf,
			  const size_t *len, int n, const struct conf_addr *to,
			  int *err)
{
	int i;

	many_sizes[many_calls++ & 15] = n;
	for (i = 0; i < n; i++, many_pos++) {
		if (many_pos == many_fail_at) {
			many_fail_at = -1;
			*err = many_err;
			many_pos++;
			return i;
		}
		assert_int_equal(fake_send(ctx, buf[i], len[i], to), 0);
	}
	*err = 0;
	return n;
}

static const struct core_io fake_many = { .send = fake_send,
					  .send_many = fake_send_many,
					  .tun_write = fake_tun_write };

/* A well-formed IPv4/UDP packet of len bytes with the given DSCP. */
static void make_ipv4(uint8_t *b, size_t len, uint8_t dscp, uint16_t sport)
{
	const struct tu_ip ip = { .version = 4, .dscp = dscp, .proto = 17,
				  .sport = sport, .dport = 9,
				  .len_bytes = (uint32_t)len };

	tu_ip_build(b, len, &ip);
}

static void tun_in(struct core *c, size_t len, uint8_t dscp, tstamp_ns now)
{
	struct pkt *p = pkt_alloc();

	assert_non_null(p);
	make_ipv4(p->data, len, dscp, 1000);
	p->len_bytes = (uint32_t)len;
	core_tun_input(c, p, now);
}

/* 8 Mbit/s: a 1000-byte packet takes exactly 1 ms on the link. */
static void setup_core(struct core *c, const char *sched, tstamp_ns delay_ns,
		       int with_peer)
{
	struct conf conf;

	tu_core_conf(&conf, 8000000, delay_ns, sched);
	conf.has_peer = with_peer;
	memset(&io, 0, sizeof(io));
	tu_core_init(c, &conf, &fake);
}

static tstamp_ns run_at(struct core *c, tstamp_ns now)
{
	io.now = now;
	return core_run(c, now);
}

static void hdr_of(int i, struct tun_hdr *h)
{
	assert_int_equal(tun_hdr_decode(io.sent[i].buf, io.sent[i].len, 1500, h),
			 TUN_OK);
}

/* Three packets queued at t=0 leave in priority order, each 1 ms apart on
 * the link and released after the 10 ms delay at the end of its
 * serialisation: 11, 12, 13 ms. */
static void test_prio_pacing_delay(void **state)
{
	struct core c;
	struct tun_hdr h;
	tstamp_ns wake;

	(void)state;
	setup_core(&c, "prio", 10 * MS, 1);
	tun_in(&c, 1000, 0, 0);         /* CS0 */
	tun_in(&c, 1000, 10, 0);        /* AF11 */
	tun_in(&c, 1000, 46, 0);        /* EF */
	wake = run_at(&c, 0);
	assert_int_equal(wake, 1 * MS);         /* link busy until 1 ms */
	wake = run_at(&c, 1 * MS);
	assert_int_equal(wake, 2 * MS);
	wake = run_at(&c, 2 * MS);
	assert_int_equal(wake, 11 * MS);        /* EF's release */
	assert_int_equal(io.nsent, 0);
	wake = run_at(&c, 11 * MS);
	assert_int_equal(io.nsent, 1);
	assert_int_equal(wake, 12 * MS);
	run_at(&c, 12 * MS);
	wake = run_at(&c, 13 * MS);
	assert_int_equal(wake, TS_NEVER);
	assert_int_equal(io.nsent, 3);
	hdr_of(0, &h);
	assert_int_equal(h.cls, CLS_EF);
	assert_int_equal(h.seq, 0);
	assert_int_equal(h.len_bytes, 1000);
	assert_int_equal(h.tx_ns, 0);         /* entered at t = 0 */
	hdr_of(1, &h);
	assert_int_equal(h.cls, CLS_AF);
	hdr_of(2, &h);
	assert_int_equal(h.cls, CLS_CS0);
	assert_int_equal(io.sent[2].len, 1000 + TUN_HDR_BYTES);
	assert_int_equal(c.st.link_out_bytes, 3000);
	/* the CS0 packet waited 2 ms in the scheduler */
	assert_int_equal(c.st.cls[CLS_CS0].sojourn.max_ns, 2 * MS);
	core_destroy(&c);
}

/* A timer that fires 3 ms late still sends the backlog at the link rate:
 * the missed slots are caught up, so the long-run rate is exact. */
static void test_late_wakeup_catches_up(void **state)
{
	struct core c;
	int i;

	(void)state;
	setup_core(&c, "fifo", 0, 1);
	for (i = 0; i < 10; i++)
		tun_in(&c, 1000, 0, 0);
	run_at(&c, 0);                  /* packet 0 on the link until 1 ms */
	run_at(&c, 4 * MS);             /* late: slots 2, 3, 4 ms are owed */
	assert_int_equal(io.nsent, 4);  /* finished at 1, 2, 3, 4 ms */
	assert_int_equal(c.pacer.busy_until_ns, 5 * MS);
	/* time in the scheduler is taken on the link's clock, as the
	 * scheduler sees it: started at 0, 1, 2, 3, 4 ms (not 0, 4, 4, 4,
	 * 4: the wake-up's lateness is the link's, reported as late_us) */
	assert_int_equal(c.st.cls[CLS_CS0].sojourn.count, 5);
	assert_true(c.st.cls[CLS_CS0].sojourn.sum_ns == 10.0 * MS);
	assert_int_equal(c.st.cls[CLS_CS0].sojourn.max_ns, 4 * MS);
	run_at(&c, 9 * MS);
	assert_int_equal(io.nsent, 9);  /* finish times 1..9 ms: rate exact */
	run_at(&c, 10 * MS);
	assert_int_equal(io.nsent, 10);
	core_destroy(&c);
}

/* A packet arriving on a link idle since busy_until starts when it
 * arrives: it must not inherit the capacity of the idle gap, even though
 * the scheduler never came back empty at a moment the link was free. */
static void test_no_credit_for_idle_gap(void **state)
{
	struct core c;
	tstamp_ns wake;

	(void)state;
	setup_core(&c, "fifo", 10 * MS, 1);
	tun_in(&c, 1000, 0, 0);
	wake = run_at(&c, 0);           /* finishes at 1 ms, released at 11 */
	assert_int_equal(wake, 11 * MS);
	tun_in(&c, 1000, 0, 30 * MS);
	wake = run_at(&c, 30 * MS);
	assert_int_equal(io.nsent, 1);
	assert_int_equal(wake, 41 * MS);        /* 30 + 1 ms + 10 ms delay */
	wake = run_at(&c, 41 * MS);
	assert_int_equal(io.nsent, 2);
	assert_int_equal(wake, TS_NEVER);
	/* a packet the loop only gets to 5 ms after its arrival starts at
	 * its arrival (50 ms), not at 41 ms nor at 55 ms */
	tun_in(&c, 1000, 0, 50 * MS);
	wake = run_at(&c, 55 * MS);
	assert_int_equal(wake, 61 * MS);
	run_at(&c, 61 * MS);
	assert_int_equal(io.nsent, 3);
	core_destroy(&c);
}

/* Due packets leave in one send_many() call; a short count with EAGAIN
 * keeps the rest (sequence numbers unused), a hard error loses exactly
 * one packet and the rest are sent. */
/* A packet that arrives during a late wake-up into a backlogged link does
 * not cost capacity even when the scheduler serves it first: the catch-up
 * runs from when the link became backlogged, not from the new packet. */
static void test_late_ef_does_not_reset_backlog(void **state)
{
	struct core c;
	struct tun_hdr h;
	int i;

	(void)state;
	setup_core(&c, "prio", 0, 1);
	for (i = 0; i < 4; i++)
		tun_in(&c, 1000, 0, 0);         /* CS0 backlog at t = 0 */
	run_at(&c, 0);                          /* CS0 #0 until 1 ms */
	tun_in(&c, 1000, 46, 2 * MS);           /* EF arrives at 2 ms ... */
	run_at(&c, 3 * MS);                     /* ... the loop wakes at 3 */
	/* CS0 #0 finished at 1; EF (picked first) takes slot 1-2 ms, CS0 #1
	 * slot 2-3 ms: nothing of the backlogged link's time is lost */
	assert_int_equal(io.nsent, 3);
	hdr_of(1, &h);
	assert_int_equal(h.cls, CLS_EF);
	assert_int_equal(c.pacer.busy_until_ns, 4 * MS);
	for (i = 4; i <= 6; i++)
		run_at(&c, (tstamp_ns)i * MS);
	assert_int_equal(io.nsent, 5);
	core_destroy(&c);
}

/* A FIFO that records the `now` of every dequeue: what clock does a
 * scheduler see? */
static tstamp_ns seen_ns[16];
static int nseen;

static void rec_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	(void)now;
	pktq_push(priv, p);
}

static struct pkt *rec_dequeue(void *priv, tstamp_ns now)
{
	struct pkt *p = pktq_pop(priv);

	if (p && nseen < 16)
		seen_ns[nseen++] = now;
	return p;
}

static tstamp_ns rec_next_event(void *priv, tstamp_ns now)
{
	(void)priv;
	(void)now;
	return TS_NEVER;
}

static struct pkt *rec_drain(void *priv)
{
	return pktq_pop(priv);
}

static void rec_destroy(void *priv)
{
	pktq_purge(priv);
}

static int rec_init(void *priv, const void *params, const struct sched_env *env)
{
	(void)params;
	(void)env;
	pktq_init(priv);
	return 0;
}

static const struct sched_ops rec_ops = {
	.name = "recorder", .priv_size = sizeof(struct pktq),
	.init = rec_init, .destroy = rec_destroy, .enqueue = rec_enqueue,
	.dequeue = rec_dequeue, .next_event = rec_next_event, .drain = rec_drain,
};

/* While a late wake-up is caught up, the scheduler is handed the link's
 * start time of each packet (1, 2, 3 ms), not the loop's wake-up (4 ms). */
static void test_scheduler_sees_link_time(void **state)
{
	struct core c;
	struct conf conf;
	int i;

	(void)state;
	tu_conf_basic(&conf, 8000000, 0, "fifo");
	conf.sched = &rec_ops;          /* no params */
	conf.has_peer = 1;
	memset(&io, 0, sizeof(io));
	nseen = 0;
	tu_core_init(&c, &conf, &fake);
	for (i = 0; i < 5; i++)
		tun_in(&c, 1000, 0, 0);
	run_at(&c, 0);
	run_at(&c, 4 * MS);
	assert_int_equal(nseen, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(seen_ns[i], (tstamp_ns)i * MS);
	/* an idle link: a new packet starts at its arrival */
	run_at(&c, 5 * MS);
	tun_in(&c, 1000, 0, 7 * MS);
	run_at(&c, 7 * MS);
	assert_int_equal(nseen, 6);
	assert_int_equal(seen_ns[5], 7 * MS);
	run_at(&c, 8 * MS);
	core_destroy(&c);
}

static void test_send_many_batches(void **state)
{
	struct core c;
	struct tun_hdr h;
	int i;

	(void)state;
	setup_core(&c, "fifo", 10 * MS, 1);
	c.io = fake_many;
	many_calls = many_pos = 0;
	for (i = 0; i < 5; i++)
		tun_in(&c, 1000, 0, 0);
	for (i = 0; i <= 5; i++)
		run_at(&c, (tstamp_ns)i * MS);  /* all serialised by 5 ms */
	assert_int_equal(io.nsent, 0);
	run_at(&c, 20 * MS);                    /* all five are due */
	assert_int_equal(many_calls, 1);
	assert_int_equal(many_sizes[0], 5);
	assert_int_equal(io.nsent, 5);
	hdr_of(4, &h);
	assert_int_equal(h.seq, 4);

	for (i = 0; i < 4; i++)
		tun_in(&c, 1000, 0, 20 * MS);
	for (i = 0; i <= 4; i++)
		run_at(&c, 20 * MS + (tstamp_ns)i * MS);
	many_fail_at = many_pos + 2;            /* the 3rd of this batch */
	many_err = -EAGAIN;
	run_at(&c, 40 * MS);
	assert_int_equal(io.nsent, 7);
	assert_true(c.blocked);
	assert_int_equal(c.dl.q.len_pkts, 2);
	core_writable(&c);
	many_fail_at = many_pos;                /* first one refused */
	many_err = -ECONNREFUSED;
	run_at(&c, 41 * MS);
	assert_int_equal(io.nsent, 8);
	assert_int_equal(c.st.send_error, 1);
	hdr_of(7, &h);
	assert_int_equal(h.seq, 8);     /* 7 was the refused one: a gap */
	hdr_of(6, &h);
	assert_int_equal(h.seq, 6);
	core_destroy(&c);
}

/* Unpaced, no delay: every packet is due the moment it is dequeued, and
 * still 40 queued packets leave in batches of CORE_TX_BATCH (32 + 8), not
 * one send per packet (which would leave sendmmsg and GSO nothing to
 * group).  A full socket in the middle of the first batch holds the rest
 * with their sequence numbers unused, and the link stops dequeuing. */
static void test_unlimited_batches(void **state)
{
	struct core c;
	struct conf conf;
	struct tun_hdr h;
	int i;

	(void)state;
	tu_core_conf(&conf, 8000000, 0, "fifo");
	conf.link.kind = LINK_UNLIMITED;
	memset(&io, 0, sizeof(io));
	tu_core_init(&c, &conf, &fake_many);
	many_calls = many_pos = 0;
	many_fail_at = -1;
	for (i = 0; i < 40; i++)
		tun_in(&c, 200, 0, 0);
	assert_int_equal(run_at(&c, 0), TS_NEVER);
	assert_int_equal(many_calls, 2);
	assert_int_equal(many_sizes[0], CORE_TX_BATCH);
	assert_int_equal(many_sizes[1], 40 - CORE_TX_BATCH);
	assert_int_equal(io.nsent, 40);
	hdr_of(39, &h);
	assert_int_equal(h.seq, 39);

	io.nsent = 0;
	for (i = 0; i < 40; i++)
		tun_in(&c, 200, 0, 1 * MS);
	many_fail_at = many_pos + 4;            /* the 5th of the first batch */
	many_err = -EAGAIN;
	assert_int_equal(run_at(&c, 1 * MS), TS_NEVER);
	assert_true(c.blocked);
	assert_int_equal(io.nsent, 4);
	assert_int_equal(c.dl.q.len_pkts, CORE_TX_BATCH - 4);
	assert_int_equal(c.qlen_pkts[CLS_CS0], 40 - CORE_TX_BATCH);
	core_writable(&c);
	run_at(&c, 2 * MS);
	assert_int_equal(io.nsent, 40);
	for (i = 0; i < 40; i++) {
		hdr_of(i, &h);
		assert_int_equal(h.seq, 40 + i);        /* no gap, in order */
	}
	assert_int_equal(c.st.send_error, 0);
	assert_int_equal(c.st.tx_blocked, 1);
	core_destroy(&c);
}

static void test_class_limit_and_conservation(void **state)
{
	struct core c;
	int i;

	(void)state;
	setup_core(&c, "prio", 0, 1);
	c.conf.limit_pkts[CLS_EF] = 2;
	for (i = 0; i < 5; i++)
		tun_in(&c, 500, 46, 0);
	assert_int_equal(c.st.cls[CLS_EF].in_pkts, 5);
	assert_int_equal(c.st.cls[CLS_EF].drop_pkts, 3);
	assert_int_equal(c.st.cls[CLS_EF].drop_bytes, 1500);
	assert_int_equal(c.st.sched_drop[DROP_CLASS_LIMIT], 3);
	assert_int_equal(c.qlen_pkts[CLS_EF], 2);
	run_at(&c, 0);
	assert_int_equal(c.st.cls[CLS_EF].in_pkts,
			 c.st.cls[CLS_EF].out_pkts + c.st.cls[CLS_EF].drop_pkts +
			 c.qlen_pkts[CLS_EF]);
	core_destroy(&c);
}

static void test_bad_tun_packets_counted(void **state)
{
	struct core c;
	struct pkt *p;

	(void)state;
	setup_core(&c, "fifo", 0, 1);
	p = pkt_alloc();
	memset(p->data, 0x60, 40);      /* IPv6 version, payload length 0x6060 */
	p->len_bytes = 40;
	core_tun_input(&c, p, 0);
	p = pkt_alloc();
	memset(p->data, 0x00, 60);      /* version 0: not IP */
	p->len_bytes = 60;
	core_tun_input(&c, p, 0);
	assert_int_equal(c.st.tun_bad[IP_BAD_LENGTH], 1);
	assert_int_equal(c.st.tun_bad[IP_BAD_VERSION], 1);
	assert_int_equal(c.qlen_pkts[CLS_CS0], 0);
	run_at(&c, 0);
	assert_int_equal(io.nsent, 0);
	core_destroy(&c);
}

static void test_eagain_keeps_packet(void **state)
{
	struct core c;
	tstamp_ns wake;

	(void)state;
	setup_core(&c, "fifo", 0, 1);
	tun_in(&c, 1000, 0, 0);
	tun_in(&c, 1000, 0, 0);
	run_at(&c, 0);
	io.eagain = 1;
	wake = run_at(&c, 1 * MS);
	assert_int_equal(io.nsent, 0);
	assert_true(c.blocked);
	/* The pacer still serialises the second packet while blocked. */
	assert_int_equal(c.dl.q.len_pkts, 2);
	assert_int_equal(wake, TS_NEVER);
	core_writable(&c);
	run_at(&c, 2 * MS);
	assert_int_equal(io.nsent, 2);
	assert_int_equal(c.st.send_error, 0);
	io.refuse = 1;
	tun_in(&c, 1000, 0, 2 * MS);
	run_at(&c, 2 * MS);
	run_at(&c, 3 * MS);
	assert_int_equal(c.st.send_error, 1);   /* ECONNREFUSED: lost, counted */
	core_destroy(&c);
}

/* A datagram as the peer would send it: header + IPv4 packet. */
static struct pkt *make_dgram(uint8_t cls, uint32_t seq, size_t inner_len,
			      uint64_t tx_ns, size_t *dlen)
{
	struct pkt *p = pkt_alloc();
	struct tun_hdr h = { .cls = cls, .len_bytes = (uint16_t)inner_len,
			     .seq = seq, .tx_ns = tx_ns };

	assert_non_null(p);
	make_ipv4(p->data, inner_len, 46, 7);
	tun_hdr_encode(p->data - TUN_HDR_BYTES, &h);
	*dlen = inner_len + TUN_HDR_BYTES;
	return p;
}

static void sin_of(struct sockaddr_in *s, uint32_t ip, uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_addr.s_addr = htonl(ip);
	s->sin_port = htons(port);
}

static void test_rx_path(void **state)
{
	struct core c;
	struct sockaddr_in peer, other;
	struct pkt *p;
	size_t len;

	(void)state;
	setup_core(&c, "fifo", 0, 0);           /* no configured peer */
	sin_of(&peer, 0x0a000002, 5000);
	sin_of(&other, 0x0a000003, 5000);

	/* garbage from `other` must not pin it */
	p = make_dgram(CLS_EF, 0, 100, 0, &len);
	*(p->data - TUN_HDR_BYTES) = 0x00;      /* bad magic */
	core_udp_input(&c, p, len, (struct sockaddr *)&other, sizeof(other), 0);
	assert_int_equal(c.st.rx_bad[TUN_BAD_MAGIC], 1);
	assert_false(c.peer_known);

	/* inner packet whose length field lies */
	p = make_dgram(CLS_EF, 0, 100, 0, &len);
	p->data[3] = 99;
	core_udp_input(&c, p, len, (struct sockaddr *)&peer, sizeof(peer), 0);
	assert_int_equal(c.st.rx_inner_bad[IP_BAD_LENGTH], 1);
	assert_false(c.peer_known);
	assert_int_equal(io.ntun, 0);

	/* first valid datagram pins the peer; OWD = now - tx */
	p = make_dgram(CLS_AF, 5, 100, 1 * MS, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&peer, sizeof(peer), 251 * MS);
	assert_true(c.peer_known);
	assert_int_equal(io.ntun, 1);
	assert_int_equal(io.tun_len, 100);
	assert_int_equal(c.st.rx[CLS_AF].pkts, 1);
	assert_int_equal(c.st.rx[CLS_AF].owd.max_ns, 250 * MS);

	/* seq 6 then 9: two lost */
	p = make_dgram(CLS_AF, 6, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&peer, sizeof(peer), 0);
	p = make_dgram(CLS_AF, 9, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&peer, sizeof(peer), 0);
	assert_int_equal(c.st.rx[CLS_AF].lost, 2);

	/* a valid datagram from anyone else is refused once pinned */
	p = make_dgram(CLS_AF, 10, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&other, sizeof(other), 0);
	assert_int_equal(c.st.rx_unknown_peer, 1);
	assert_int_equal(io.ntun, 3);

	/* truncated datagram */
	p = make_dgram(CLS_AF, 11, 100, 0, &len);
	core_udp_input(&c, p, 10, (struct sockaddr *)&peer, sizeof(peer), 0);
	assert_int_equal(c.st.rx_bad[TUN_SHORT], 1);
	assert_int_equal(io.ntun, 3);
	core_destroy(&c);
}

/* tunnel.allow: before pinning, a valid datagram from outside the
 * prefixes is refused (rx_not_allowed) and pins nothing; one from inside
 * pins; after pinning, the peer check decides (an outsider is an unknown
 * peer, not "not allowed").  IPv4 mapped into IPv6 counts as IPv4. */
static void test_rx_allow(void **state)
{
	struct core c;
	struct sockaddr_in in, out;
	struct sockaddr_in6 mapped;
	struct pkt *p;
	size_t len;

	(void)state;
	setup_core(&c, "fifo", 0, 0);
	c.conf.n_allow = 1;
	c.conf.allow[0] = (struct conf_prefix){ .family = AF_INET,
		.addr = { 10, 0, 0, 0 }, .len = 30 };   /* 10.0.0.0..3 */
	sin_of(&in, 0x0a000002, 5000);
	sin_of(&out, 0x0a000004, 5000);
	memset(&mapped, 0, sizeof(mapped));
	mapped.sin6_family = AF_INET6;
	mapped.sin6_port = htons(5000);
	inet_pton(AF_INET6, "::ffff:10.0.0.4", &mapped.sin6_addr);

	p = make_dgram(CLS_AF, 0, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&out, sizeof(out), 0);
	p = make_dgram(CLS_AF, 1, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&mapped, sizeof(mapped), 0);
	assert_int_equal(c.st.rx_not_allowed, 2);
	assert_false(c.peer_known);
	assert_int_equal(io.ntun, 0);
	inet_pton(AF_INET6, "::ffff:10.0.0.3", &mapped.sin6_addr);
	assert_true(conf_allows(&c.conf, (struct sockaddr *)&mapped, sizeof(mapped)));
	inet_pton(AF_INET6, "::a00:3", &mapped.sin6_addr);     /* not mapped */
	assert_false(conf_allows(&c.conf, (struct sockaddr *)&mapped, sizeof(mapped)));

	p = make_dgram(CLS_AF, 2, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&in, sizeof(in), 0);
	assert_true(c.peer_known);
	assert_int_equal(io.ntun, 1);
	p = make_dgram(CLS_AF, 3, 100, 0, &len);
	core_udp_input(&c, p, len, (struct sockaddr *)&out, sizeof(out), 0);
	assert_int_equal(c.st.rx_not_allowed, 2);
	assert_int_equal(c.st.rx_unknown_peer, 1);
	core_destroy(&c);
}

/* Found by fuzz_udp: a sender timestamp beyond INT64_MAX made the one-way
 * delay a signed overflow (UBSan).  Such a datagram is delivered and its
 * delay counts as 0, like any timestamp from the future. */
static void test_rx_huge_timestamp(void **state)
{
	static const uint64_t tx[] = { 0xb880000000000000ull, UINT64_MAX,
				       (uint64_t)INT64_MAX + 1 };
	struct core c;
	struct sockaddr_in peer;
	struct pkt *p;
	size_t len, i;

	(void)state;
	setup_core(&c, "fifo", 0, 1);
	sin_of(&peer, 0x0a000002, 5000);
	for (i = 0; i < TU_LEN(tx); i++) {
		p = make_dgram(CLS_EF, (uint32_t)i, 100, tx[i], &len);
		core_udp_input(&c, p, len, (struct sockaddr *)&peer,
			       sizeof(peer), 5 * MS);
	}
	assert_int_equal(io.ntun, TU_LEN(tx));
	assert_int_equal(c.st.rx[CLS_EF].pkts, TU_LEN(tx));
	assert_int_equal(c.st.rx[CLS_EF].owd.max_ns, 0);
	core_destroy(&c);
}

/* fifo -> prio with packets queued: nothing dropped, then prio order. */
/* The link of setup_core() and scheduler `sched` with its defaults,
 * applied at now as a SIGHUP would. */
static void reconfigure_to(struct core *c, const char *sched, tstamp_ns now)
{
	struct conf n;

	tu_conf_basic(&n, 8000000, 0, sched);
	n.has_peer = c->conf.has_peer;
	n.peer = c->conf.peer;
	assert_int_equal(core_reconfigure(c, &n, now), 0);
}

static void test_reconfigure_moves_packets(void **state)
{
	struct core c;
	struct tun_hdr h;
	int i;

	(void)state;
	setup_core(&c, "fifo", 0, 1);
	tun_in(&c, 1000, 0, 0);
	tun_in(&c, 1000, 10, 0);
	tun_in(&c, 1000, 46, 0);
	tun_in(&c, 1000, 0, 0);
	reconfigure_to(&c, "prio", 0);
	assert_string_equal(c.sched.ops->name, "prio");
	assert_int_equal(c.qlen_pkts[CLS_CS0] + c.qlen_pkts[CLS_AF] +
			 c.qlen_pkts[CLS_EF], 4);
	for (i = 0; i <= 4; i++)
		run_at(&c, (tstamp_ns)i * MS);
	assert_int_equal(io.nsent, 4);
	hdr_of(0, &h);
	assert_int_equal(h.cls, CLS_EF);
	hdr_of(1, &h);
	assert_int_equal(h.cls, CLS_AF);
	for (i = 0; i < DROP_REASON_MAX; i++)
		assert_int_equal(c.st.sched_drop[i], 0);
	core_destroy(&c);
}

static void test_stats_line(void **state)
{
	struct core c;
	char line[8192];
	int n;

	(void)state;
	setup_core(&c, "prio", 0, 1);
	tun_in(&c, 1000, 46, 0);
	tun_in(&c, 1000, 46, 0);
	run_at(&c, 0);
	/* wall = the realtime of t: the owd stamps' clock, to the us */
	c.real_minus_mono_ns = 1795795400123456000;
	n = core_stats_line(&c, 2 * NS_PER_SEC, line, sizeof(line));
	assert_true(n > 0);
	assert_non_null(strstr(line, "{\"t\": 2.000, \"wall\": 1795795402.123456, "
				     "\"link\": {\"rate_bps\": 8000000, "
				     "\"out_pkts\": 1, \"out_bytes\": 1000, "));
	assert_non_null(strstr(line, "\"ef\": {\"in_pkts\": 2, \"in_bytes\": 2000, "
				     "\"out_pkts\": 1, \"out_bytes\": 1000, \"drop_pkts\": 0, "
				     "\"drop_bytes\": 0, \"qlen_pkts\": 1, \"qlen_bytes\": 1000"));
	assert_non_null(strstr(line, "\"sched\": {\"name\": \"prio\""));
	assert_non_null(strstr(line, "\"rx_bad_magic\": 0"));
	assert_int_equal(line[n - 1], '\n');
	/* deltas reset: the next line counts nothing new */
	n = core_stats_line(&c, 3 * NS_PER_SEC, line, sizeof(line));
	assert_non_null(strstr(line, "\"ef\": {\"in_pkts\": 0, "));
	assert_non_null(strstr(line, "\"qlen_pkts\": 1"));
	run_at(&c, 1 * MS);
	run_at(&c, 2 * MS);
	core_destroy(&c);
}

/* Sends n 1500-byte AF packets through dwrr's default AF quantum (4500
 * bytes: exactly one round per three packets) and runs the link until
 * they have left. */
static void af_rounds(struct core *c, int n, tstamp_ns *t)
{
	int i;

	for (i = 0; i < n; i++)
		tun_in(c, 1500, 10, *t);
	for (i = 0; i <= n; i++, *t += 2 * MS)
		run_at(c, *t);
	assert_int_equal(c->qlen_pkts[CLS_AF], 0);
}

/* The member of "af" in the sched part of a stats line. */
static void expect_af_rounds(const char *line, int rounds)
{
	char want[128];

	snprintf(want, sizeof(want), "\"sched\": {\"name\": \"dwrr\", \"af\": "
		 "{\"deficit\": 0, \"rounds\": %d, ", rounds);
	if (!strstr(line, want))
		fail_msg("no %s in %s", want, line);
}

/* dwrr counts rounds cumulatively; the lines show them per interval.  A
 * dump between lines, and a line that did not fit, change nothing; a
 * new instance after a reconfiguration counts from 0. */
static void test_stats_sched_counters(void **state)
{
	struct core c;
	char line[8192], twice[2][512];
	tstamp_ns t = 0;
	int k;

	(void)state;
	setup_core(&c, "dwrr", 0, 1);
	af_rounds(&c, 9, &t);
	assert_true(core_stats_line(&c, t, line, sizeof(line)) > 0);
	expect_af_rounds(line, 3);
	af_rounds(&c, 6, &t);
	for (k = 0; k < 2; k++) {       /* a dump is read-only */
		struct jw w;

		jw_init(&w, twice[k], sizeof(twice[k]));
		jw_obj_begin(&w, NULL);
		c.sched.ops->dump_stats(c.sched.priv, &w);
		jw_obj_end(&w);
		assert_true(jw_finish(&w) > 0);
	}
	assert_string_equal(twice[0], twice[1]);
	assert_non_null(strstr(twice[0], "\"rounds\": 5,"));  /* cumulative */
	assert_int_equal(core_stats_line(&c, t, line, 100), -1);  /* too small */
	af_rounds(&c, 3, &t);
	assert_true(core_stats_line(&c, t, line, sizeof(line)) > 0);
	expect_af_rounds(line, 3);      /* 2 + 1 since the last good line */
	assert_true(core_stats_line(&c, t, line, sizeof(line)) > 0);
	expect_af_rounds(line, 0);

	reconfigure_to(&c, "dwrr", t);
	/* 7 rounds: above the 6 the old instance had, so only the reset on
	 * the swap makes them count whole */
	af_rounds(&c, 21, &t);
	assert_true(core_stats_line(&c, t, line, sizeof(line)) > 0);
	expect_af_rounds(line, 7);
	core_destroy(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_POOL_TEST(test_prio_pacing_delay),
		TU_POOL_TEST(test_late_wakeup_catches_up),
		TU_POOL_TEST(test_no_credit_for_idle_gap),
		TU_POOL_TEST(test_late_ef_does_not_reset_backlog),
		TU_POOL_TEST(test_scheduler_sees_link_time),
		TU_POOL_TEST(test_send_many_batches),
		TU_POOL_TEST(test_unlimited_batches),
		TU_POOL_TEST(test_class_limit_and_conservation),
		TU_POOL_TEST(test_bad_tun_packets_counted),
		TU_POOL_TEST(test_eagain_keeps_packet),
		TU_POOL_TEST(test_rx_path),
		TU_POOL_TEST(test_rx_allow),
		TU_POOL_TEST(test_rx_huge_timestamp),
		TU_POOL_TEST(test_reconfigure_moves_packets),
		TU_POOL_TEST(test_stats_line),
		TU_POOL_TEST(test_stats_sched_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
