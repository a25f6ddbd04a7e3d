/* test_loopplan.c - the event loop's decisions (daemon/loopplan.h), the
 * code loop.c runs, on given times: when the core timer is polled for
 * (link.spin), kept (unchanged, or serving the deadline within link.slack)
 * or set again, each rule at its edges; the timerfd value of a deadline;
 * when a tun callback reads a burst; how many receive buffers a dry pool
 * gets; the stats grid after a late tick.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/loopplan.h"
#include "util/tstamp.h"

#define US NS_PER_US
#define MS NS_PER_MS

/* link.spin W: a deadline at most W away is polled for, whatever the
 * timer holds; one W + 1 ns away is not; W = 0 never polls, nor does a
 * core with nothing to wait for. */
static void test_spin(void **state)
{
	const tstamp_ns now = 5 * MS, w = 30 * US;

	(void)state;
	assert_int_equal(lp_core_timer(now, now + w, TS_NEVER, w, 0), LP_SPIN);
	assert_int_equal(lp_core_timer(now, now, TS_NEVER, w, 0), LP_SPIN);
	assert_int_equal(lp_core_timer(now, now - 1, now - 1, w, 0), LP_SPIN);
	/* polled even where the armed timer would have served it */
	assert_int_equal(lp_core_timer(now, now + w, now + w, w, 0), LP_SPIN);
	assert_int_equal(lp_core_timer(now, now + w + 1, TS_NEVER, w, 0),
			 LP_ARM);
	assert_int_equal(lp_core_timer(now, now + 1, TS_NEVER, 0, 0), LP_ARM);
	assert_int_equal(lp_core_timer(now, TS_NEVER, TS_NEVER, w, 0),
			 LP_KEEP);
}

/* No slack: the timer is set exactly when the deadline changed, to it;
 * an expired timer (TS_NEVER) with nothing to wait for is left alone, an
 * armed one with nothing to wait for is disarmed (LP_ARM with TS_NEVER). */
static void test_arm_exact(void **state)
{
	const tstamp_ns now = 5 * MS;

	(void)state;
	assert_int_equal(lp_core_timer(now, 7 * MS, 7 * MS, 0, 0), LP_KEEP);
	assert_int_equal(lp_core_timer(now, 7 * MS, 7 * MS - 1, 0, 0), LP_ARM);
	assert_int_equal(lp_core_timer(now, 7 * MS, 7 * MS + 1, 0, 0), LP_ARM);
	assert_int_equal(lp_core_timer(now, 7 * MS, TS_NEVER, 0, 0), LP_ARM);
	assert_int_equal(lp_core_timer(now, TS_NEVER, TS_NEVER, 0, 0), LP_KEEP);
	assert_int_equal(lp_core_timer(now, TS_NEVER, 7 * MS, 0, 0), LP_ARM);
}

/* link.slack S: a timer armed at A is kept for a deadline in [A, A + S]
 * (the wake-up at A serves it, at most S early), set again for one
 * before A (A would be late) or after A + S. */
static void test_slack_window(void **state)
{
	const tstamp_ns now = 5 * MS, a = 7 * MS, s = 100 * US;

	(void)state;
	assert_int_equal(lp_core_timer(now, a, a, 0, s), LP_KEEP);
	assert_int_equal(lp_core_timer(now, a + 1, a, 0, s), LP_KEEP);
	assert_int_equal(lp_core_timer(now, a + s, a, 0, s), LP_KEEP);
	assert_int_equal(lp_core_timer(now, a + s + 1, a, 0, s), LP_ARM);
	assert_int_equal(lp_core_timer(now, a - 1, a, 0, s), LP_ARM);
	assert_int_equal(lp_core_timer(now, a + 1, TS_NEVER, 0, s), LP_ARM);
	assert_int_equal(lp_core_timer(now, TS_NEVER, a, 0, s), LP_ARM);
	/* with spin too: a close deadline is polled, a far one keeps the
	 * slack rule */
	assert_int_equal(lp_core_timer(now, now + 10 * US, a, 20 * US, s),
			 LP_SPIN);
	assert_int_equal(lp_core_timer(now, a + s, a, 20 * US, s), LP_KEEP);
}

/* The timerfd value: seconds and nanoseconds of the absolute deadline;
 * 0 becomes 1 ns (all zero disarms); TS_NEVER is all zero. */
static void test_timer_value(void **state)
{
	struct timespec ts;

	(void)state;
	ts = lp_timer_value(3 * NS_PER_SEC + 250 * MS + 7);
	assert_int_equal(ts.tv_sec, 3);
	assert_int_equal(ts.tv_nsec, 250 * MS + 7);
	ts = lp_timer_value(NS_PER_SEC);
	assert_int_equal(ts.tv_sec, 1);
	assert_int_equal(ts.tv_nsec, 0);
	ts = lp_timer_value(0);
	assert_int_equal(ts.tv_sec, 0);
	assert_int_equal(ts.tv_nsec, 1);
	ts = lp_timer_value(TS_NEVER);
	assert_int_equal(ts.tv_sec, 0);
	assert_int_equal(ts.tv_nsec, 0);
}

/* A callback reads one packet until the third in a row that came within
 * 20 us of the previous one's end, which drains up to 64; a gap of 20 us
 * or more ends the burst. */
static void test_tun_burst(void **state)
{
	struct lp_tun_burst b = { 0, 0 };
	tstamp_ns t = 10 * MS;

	(void)state;
	assert_int_equal(lp_tun_reads(&b, t), 1);       /* first, after idle */
	b.last_ns = t + 2 * US;
	t = b.last_ns + LP_TUN_BURST_NS - 1;
	assert_int_equal(lp_tun_reads(&b, t), 1);       /* second at once */
	b.last_ns = t + 2 * US;
	t = b.last_ns + 5 * US;
	assert_int_equal(lp_tun_reads(&b, t), LP_TUN_BATCH);    /* third */
	b.last_ns = t + 30 * US;
	t = b.last_ns;
	assert_int_equal(lp_tun_reads(&b, t), LP_TUN_BATCH);    /* stays */
	b.last_ns = t + 2 * US;
	t = b.last_ns + LP_TUN_BURST_NS;                /* gap: burst over */
	assert_int_equal(lp_tun_reads(&b, t), 1);
	b.last_ns = t;
	assert_int_equal(lp_tun_reads(&b, t + 1), 1);
	assert_int_equal(LP_TUN_BATCH, 64);
	assert_int_equal(LP_TUN_BURST_NS, 20 * US);
}

/* As many receive buffers as free packets, at most the batch, at least
 * one. */
static void test_rx_buffers(void **state)
{
	(void)state;
	assert_int_equal(lp_rx_buffers(0, 32), 1);
	assert_int_equal(lp_rx_buffers(1, 32), 1);
	assert_int_equal(lp_rx_buffers(5, 32), 5);
	assert_int_equal(lp_rx_buffers(32, 32), 32);
	assert_int_equal(lp_rx_buffers(4096, 32), 32);
}

/* The stats deadline stays on the grid start + k * interval: the next
 * point after the tick, the missed ones skipped after a late tick, the
 * one after `now` when the tick is exactly on a point; none without an
 * interval. */
static void test_stats_grid(void **state)
{
	const tstamp_ns iv = NS_PER_SEC, start = 123;

	(void)state;
	assert_int_equal(lp_stats_next(start, iv, start), start + iv);
	assert_int_equal(lp_stats_next(start + iv, iv, start + iv + 3 * MS),
			 start + 2 * iv);
	assert_int_equal(lp_stats_next(start + iv, iv, start + 4 * iv + 1),
			 start + 5 * iv);
	assert_int_equal(lp_stats_next(start + iv, iv, start + 4 * iv),
			 start + 5 * iv);
	assert_int_equal(lp_stats_next(start, 0, start + 5 * iv), TS_NEVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin),
		cmocka_unit_test(test_arm_exact),
		cmocka_unit_test(test_slack_window),
		cmocka_unit_test(test_timer_value),
		cmocka_unit_test(test_tun_burst),
		cmocka_unit_test(test_rx_buffers),
		cmocka_unit_test(test_stats_grid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
