/* loopplan.h - the event loop's decisions, apart from libevent and the
 * clock: loop.c reads the clock, asks these functions what to do and does
 * it, so that the rules are tested on a virtual clock (test_loopplan.c,
 * test_slack.c) on the very code the daemon runs.  No state of their own,
 * no system call: every function is a function of its arguments (and of
 * the small burst state the caller keeps).
 */
#ifndef SCHEDTUN_LOOPPLAN_H
#define SCHEDTUN_LOOPPLAN_H

#include <stdint.h>
#include <time.h>
#include "util/tstamp.h"

/* ---- the core timer (loop_kick()) ------------------------------------- */

enum lp_timer {
	LP_KEEP,        /* leave the core timer as it is */
	LP_SPIN,        /* poll: run the core again at once, from the loop */
	LP_ARM          /* set the core timer to `wake` (TS_NEVER: disarm) */
};

/* What to do with the core's next deadline `wake` (TS_NEVER: none) at
 * `now`, the core timer being armed for armed_ns (TS_NEVER: disarmed or
 * expired), with link.spin spin_ns and link.slack slack_ns:
 *   - LP_SPIN when spin_ns > 0 and wake <= now + spin_ns (a deadline that
 *     close is polled for: a timer set that close is late anyway);
 *   - LP_KEEP when wake == armed_ns (nothing changed; also both TS_NEVER:
 *     an expired timer is not disarmed), or when the armed timer at A
 *     serves wake by the slack rule: A <= wake <= A + slack_ns (a wake-up
 *     at A serves everything due by A + slack_ns, so at most slack_ns
 *     early; slack_ns = 0: only wake == A);
 *   - LP_ARM otherwise, including a timer armed after wake (it would be
 *     late) and wake TS_NEVER with a timer still armed (disarm). */
enum lp_timer lp_core_timer(tstamp_ns now, tstamp_ns wake, tstamp_ns armed_ns,
			    tstamp_ns spin_ns, tstamp_ns slack_ns);

/* The itimerspec value of a timerfd set for the absolute time at_ns:
 * seconds and nanoseconds of at_ns; 0 becomes 1 ns (all zero would
 * disarm); TS_NEVER gives all zero, which disarms. */
struct timespec lp_timer_value(tstamp_ns at_ns);

/* ---- the tun's reads (on_tun()) --------------------------------------- */

#define LP_TUN_BATCH    64                      /* reads in a burst */
#define LP_TUN_BURST_NS (20 * NS_PER_US)        /* callbacks this close: a burst */

/* A tun callback's burst state: the end of the last one, and how many
 * callbacks in a row (at most 2) came within LP_TUN_BURST_NS of the
 * previous one's end.  Zeroed at start. */
struct lp_tun_burst {
	tstamp_ns last_ns;
	unsigned  quick;
};

/* How many packets the tun callback starting at `now` reads: 1, or
 * LP_TUN_BATCH from the third callback in a row that came within
 * LP_TUN_BURST_NS of the previous one's end (a callback LP_TUN_BURST_NS
 * or more after it ends the burst).  Updates b->quick; the caller sets
 * b->last_ns when the callback ends. */
int lp_tun_reads(struct lp_tun_burst *b, tstamp_ns now);

/* ---- receives and stats ----------------------------------------------- */

/* The receive buffers to offer one recvmmsg() when the pool has free_pkts
 * free packets: as many, at most batch, and at least 1 (a dry pool still
 * takes a datagram off the socket, counted as pool_empty). */
int lp_rx_buffers(uint32_t free_pkts, int batch);

/* The stats timer's next deadline after a tick at `now`, the previous
 * deadline having been next_ns: the first next_ns + k * interval_ns
 * (k >= 1) after now, so that intervals end on the grid however late a
 * tick fires; TS_NEVER when interval_ns is 0 (no stats). */
tstamp_ns lp_stats_next(tstamp_ns next_ns, tstamp_ns interval_ns,
			tstamp_ns now);

#endif
