/* test_slack.c - link.slack (issue 10, "fewer wake-ups") on the virtual
 * clock: a wake-up at `now` serves every pacer start and delay-line release
 * due by now + S.  Checked: the key's parsing and range; at 1 Gbit/s with
 * a backlog, the wake-ups per packet fall to about packet time / S, no
 * packet leaves more than S early, the pacer's charge and the carried bits
 * are exact, also with arrivals running the core between wake-ups and
 * the timer kept by loop_kick()'s own rule (lp_core_timer(), loopplan.h);
 * S = 0 sends nothing early; the
 * delay line releases a batch;
 * SIGHUP changes S both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "core/core.h"
#include "daemon/loopplan.h"
#include "pkt/tunnel.h"
#include "testutil.h"

#define MS NS_PER_MS
#define US NS_PER_US

/* The fake socket: counts datagrams, remembers the send time of each
 * sequence number (one class only, so seq = the packet's index). */
#define MAX_SEQ 120000
static struct {
	tstamp_ns now;
	int nsent;
	uint64_t sent_bytes;
	tstamp_ns sent_at[MAX_SEQ];
} io;

static int count_send(void *ctx, const uint8_t *buf, size_t len,
		      const struct conf_addr *to)
{
	struct tun_hdr h;

	(void)ctx;
	(void)to;
	assert_int_equal(tun_hdr_decode(buf, len, 1500, &h), TUN_OK);
	assert_true(h.seq < MAX_SEQ);
	io.sent_at[h.seq] = io.now;
	io.nsent++;
	io.sent_bytes += h.len_bytes;
	return 0;
}

static int no_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static const struct core_io count_io = { .send = count_send,
					 .tun_write = no_tun_write };

static void tun_in(struct core *c, size_t len, tstamp_ns now)
{
	const struct tu_ip ip = { .version = 4, .dscp = 0, .proto = 17,
				  .sport = 1000, .dport = 9,
				  .len_bytes = (uint32_t)len };

	core_tun_input(c, tu_pkt_ip(&ip), now);
}

static void setup(struct core *c, uint64_t rate_bps, tstamp_ns delay_ns,
		  tstamp_ns slack_ns)
{
	struct conf conf;

	tu_core_conf(&conf, rate_bps, delay_ns, "fifo");
	conf.slack_ns = slack_ns;
	memset(&io, 0, sizeof(io));
	tu_core_init(c, &conf, &count_io);
}

static tstamp_ns run_at(struct core *c, tstamp_ns now)
{
	io.now = now;
	return core_run(c, now);
}

/* Runs a link of rate_bps kept backlogged with 1400-byte packets (topped
 * up to 64 queued before every wake-up) on a timer that fires exactly at
 * the deadline core_run() returned, from 0 until the first wake-up after
 * until_ns; then stops the sources and drains.  Returns the wake-ups
 * taken up to until_ns. */
static long run_backlogged(struct core *c, tstamp_ns until_ns)
{
	tstamp_ns now = 0, wake;
	long wakeups = 0;

	for (;;) {
		while (c->qlen_pkts[CLS_CS0] < 64)
			tun_in(c, 1400, now);
		wake = run_at(c, now);
		wakeups++;
		assert_true(wake > now && wake != TS_NEVER);
		if (wake > until_ns)
			break;
		now = wake;
	}
	/* drain: no more arrivals */
	while (wake != TS_NEVER)
		wake = run_at(c, wake);
	return wakeups;
}

/* Packets arriving between the timer's wake-ups run the core too (as
 * loop.c's on_tun() does): 1400-byte packets every 7 us (the queue kept
 * at most 64 long), and a timer set as loop_kick() sets it, by
 * lp_core_timer() (no spin): it stays armed at A while A lies in
 * [wake - S, wake] for the wake-up the core asks for.
 * Returns how often the timer was set (loop.c's timerfd_settime() calls)
 * up to until_ns; then drains. */
static long run_with_arrivals(struct core *c, tstamp_ns until_ns)
{
	tstamp_ns now, armed = TS_NEVER, arrival = 0, wake;
	long rearms = 0;

	for (;;) {
		if (arrival > until_ns && armed > until_ns)
			break;
		if (arrival <= armed) {
			now = arrival;
			arrival += 7 * US;
			if (c->qlen_pkts[CLS_CS0] < 64)
				tun_in(c, 1400, now);
		} else {
			now = armed;
			armed = TS_NEVER;
		}
		wake = run_at(c, now);
		if (lp_core_timer(now, wake, armed, 0, c->conf.slack_ns) ==
		    LP_ARM) {
			armed = wake;
			rearms++;
		}
	}
	for (wake = armed; wake != TS_NEVER; )
		wake = run_at(c, wake);
	return rearms;
}

/* 1400 bytes at 1 Gbit/s: 11.2 us on the link. */
#define PKT_NS 11200u

static void check_gbit(tstamp_ns slack_ns, int arrivals, long *wakeups_out)
{
	struct core c;
	uint64_t k, n_due, n_by;
	long wakeups;

	setup(&c, 1000000000, 0, slack_ns);
	wakeups = arrivals ? run_with_arrivals(&c, NS_PER_SEC)
			   : run_backlogged(&c, NS_PER_SEC);
	/* The pacer's charge is unchanged by the slack: the k-th packet
	 * finishes at k x 11.2 us, so the link's last finish is exactly
	 * (packets) x 11.2 us (to the nanosecond rounding of 1 Gbit/s). */
	assert_true(c.pacer.busy_until_ns + 1 >=
		    c.st.link_out_pkts * (uint64_t)PKT_NS);
	assert_true(c.pacer.busy_until_ns <=
		    c.st.link_out_pkts * (uint64_t)PKT_NS + 1);
	/* Delay 0: packet k's planned departure is its finish, (k+1) x
	 * 11.2 us.  None leaves more than S early, none late (the timer
	 * here is exact); so over 1 s the link carried exactly the packets
	 * due in that second: the rate within one packet. */
	n_due = NS_PER_SEC / PKT_NS;
	assert_true((uint64_t)io.nsent > n_due);
	n_by = 0;
	for (k = 0; k < (uint64_t)io.nsent; k++) {
		tstamp_ns planned = (k + 1) * PKT_NS;

		assert_true(io.sent_at[k] + slack_ns + 1 >= planned);
		assert_true(io.sent_at[k] <= planned + 1);
		n_by += io.sent_at[k] <= NS_PER_SEC;
	}
	/* sent by 1 s: every packet due by then, plus at most S early */
	assert_true(n_by >= n_due);
	assert_true(n_by <= n_due + slack_ns / PKT_NS + 1);
	assert_true(c.st.late.max_ns <= slack_ns + 1);
	*wakeups_out = wakeups;
	core_destroy(&c);
}

/* S = 0: one wake-up per packet on an exact timer, nothing early.
 * S = 100 us: every wake-up serves everything due within 100 us, and the
 * next deadline lies beyond that, so wake-ups are at least S apart: at
 * most 1 s / S + 1 of them, i.e. per packet at most 11.2 us / 100 us
 * (+ one). */
static void test_gbit_wakeups(void **state)
{
	long w0, w100;
	uint64_t pkts = NS_PER_SEC / PKT_NS;

	(void)state;
	check_gbit(0, 0, &w0);
	assert_true((uint64_t)w0 >= pkts);
	check_gbit(100 * US, 0, &w100);
	assert_true((uint64_t)w100 <= NS_PER_SEC / (100 * US) + 1);
	print_message("1 Gbit/s backlog over 1 s: %ld wake-ups at S = 0, "
		      "%ld at S = 100 us (%lu packets)\n", w0, w100,
		      (unsigned long)pkts);
}

/* The same with arrivals running the core between wake-ups: nothing
 * late, nothing more than S early, the rate exact.  The timer, kept while
 * it still serves the next deadline, is set again only once the next
 * deadline lies S beyond it: each re-arm at `now` sets it past now + S,
 * and the next deadline after a later now' + S is at most a packet time
 * further, so re-arms are at least S - 11.2 us apart.  At S = 0 it is set
 * for every packet. */
static void test_gbit_arrivals_between_wakeups(void **state)
{
	long r0, r100;

	(void)state;
	check_gbit(0, 1, &r0);
	assert_true((uint64_t)r0 >= NS_PER_SEC / PKT_NS);
	check_gbit(100 * US, 1, &r100);
	assert_true((uint64_t)r100 <= NS_PER_SEC / (100 * US - PKT_NS) + 1);
	print_message("with arrivals every 7 us: %ld timer settings at S = 0, "
		      "%ld at S = 100 us\n", r0, r100);
}

/* 8 Mbit/s: a 1000-byte packet takes 1 ms.  With S = 2.5 ms and 10 ms of
 * delay, the first wake-up starts the packets due at 0, 1 and 2 ms and
 * asks for 3 ms (the first deadline it did not serve); once all are
 * serialised, the wake-up at the first release (11 ms) sends those due at
 * 11, 12 and 13 ms in one go, 0, 1 and 2 ms early, and asks for 14 ms. */
static void test_delay_line_batch(void **state)
{
	struct core c;
	tstamp_ns wake;
	int i;

	(void)state;
	setup(&c, 8000000, 10 * MS, 2500 * US);
	for (i = 0; i < 6; i++)
		tun_in(&c, 1000, 0);
	wake = run_at(&c, 0);
	assert_int_equal(c.st.link_out_pkts, 3);
	assert_int_equal(wake, 3 * MS);
	wake = run_at(&c, 3 * MS);
	assert_int_equal(c.st.link_out_pkts, 6);
	assert_int_equal(wake, 11 * MS);        /* first release */
	assert_int_equal(io.nsent, 0);
	wake = run_at(&c, 11 * MS);
	assert_int_equal(io.nsent, 3);
	assert_int_equal(io.sent_at[2], 11 * MS);
	assert_int_equal(wake, 14 * MS);
	assert_int_equal(c.st.late.max_ns, 2 * MS);     /* early, counted */
	wake = run_at(&c, 14 * MS);
	assert_int_equal(io.nsent, 6);
	assert_int_equal(wake, TS_NEVER);
	core_destroy(&c);
}

/* The same with S = 0: one packet per wake-up, nothing early. */
static void test_zero_slack_nothing_early(void **state)
{
	struct core c;
	tstamp_ns wake;
	int i, runs = 0;

	(void)state;
	setup(&c, 8000000, 10 * MS, 0);
	for (i = 0; i < 6; i++)
		tun_in(&c, 1000, 0);
	for (wake = 0; wake != TS_NEVER; runs++) {
		int before = io.nsent;

		wake = run_at(&c, wake);
		assert_true(io.nsent - before <= 1);
	}
	assert_int_equal(io.nsent, 6);
	assert_int_equal(runs, 6 + 6);  /* 6 starts, then 6 releases */
	for (i = 0; i < 6; i++)
		assert_int_equal(io.sent_at[i], (tstamp_ns)(11 + i) * MS);
	assert_int_equal(c.st.late.max_ns, 0);
	core_destroy(&c);
}

static void reconfigure_slack(struct core *c, tstamp_ns slack_ns, tstamp_ns now)
{
	struct conf n;

	tu_conf_basic(&n, 8000000, 0, "fifo");
	n.has_peer = c->conf.has_peer;
	n.peer = c->conf.peer;
	n.slack_ns = slack_ns;
	assert_int_equal(core_reconfigure(c, &n, now), 0);
	assert_int_equal(c->conf.slack_ns, slack_ns);
}

/* SIGHUP sets S and takes it away again (on an idle link). */
static void test_sighup_changes_slack(void **state)
{
	struct core c;
	tstamp_ns wake;
	int i;

	(void)state;
	setup(&c, 8000000, 0, 0);
	reconfigure_slack(&c, 2500 * US, 0);
	for (i = 0; i < 3; i++)
		tun_in(&c, 1000, 0);
	wake = run_at(&c, 0);
	/* starts at 0, 1, 2 ms; the first two finish by 2.5 ms and leave */
	assert_int_equal(c.st.link_out_pkts, 3);
	assert_int_equal(io.nsent, 2);
	assert_int_equal(wake, 3 * MS);
	wake = run_at(&c, wake);
	assert_int_equal(io.nsent, 3);
	assert_int_equal(wake, TS_NEVER);

	reconfigure_slack(&c, 0, 20 * MS);
	for (i = 0; i < 3; i++)
		tun_in(&c, 1000, 20 * MS);
	wake = run_at(&c, 20 * MS);
	assert_int_equal(c.st.link_out_pkts, 4);
	assert_int_equal(io.nsent, 3);
	assert_int_equal(wake, 21 * MS);
	while (wake != TS_NEVER)
		wake = run_at(&c, wake);
	assert_int_equal(io.nsent, 6);
	assert_int_equal(io.sent_at[5], 23 * MS);
	core_destroy(&c);
}

/* The key: a duration like link.delay, default 0, 0..10 ms. */
static void test_conf_key(void **state)
{
	struct conf c;

	(void)state;
	assert_int_equal(tu_conf_load_text("link = { rate = \"1Gbit\"; "
					   "slack = \"100us\"; };\n",
					   "s.conf", &c), 0);
	assert_int_equal(c.slack_ns, 100 * US);
	conf_free(&c);
	assert_int_equal(tu_conf_load_text("link = { rate = \"1Gbit\"; "
					   "slack = \"10ms\"; };\n",
					   "s.conf", &c), 0);
	assert_int_equal(c.slack_ns, 10 * MS);
	conf_free(&c);
	assert_int_equal(tu_conf_load_text("link = { rate = \"1Gbit\"; };\n",
					   "s.conf", &c), 0);
	assert_int_equal(c.slack_ns, 0);
	conf_free(&c);
	assert_int_equal(tu_conf_load_text("link = {\n  slack = \"11ms\";\n};\n",
					   "s.conf", &c), 1);
	assert_string_equal(tu_conf_diag(), "s.conf:2: link.slack: '11ms' is "
			    "out of range (accepted: 0s..10ms)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_POOL_TEST(test_gbit_wakeups),
		TU_POOL_TEST(test_gbit_arrivals_between_wakeups),
		TU_POOL_TEST(test_delay_line_batch),
		TU_POOL_TEST(test_zero_slack_nothing_early),
		TU_POOL_TEST(test_sighup_changes_slack),
		TU_POOL_TEST(test_conf_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
