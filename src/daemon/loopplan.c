/* loopplan.c - the event loop's decisions (loopplan.h): the core timer's
 * spin, keep and arm rules, the tun's burst reads, the receive buffers
 * and the stats grid.  No clock, no system call: loop.c applies them. */
#include "daemon/loopplan.h"

/* loopplan.h.  The spin test first: a deadline that close is polled
 * whatever the timer holds. */
enum lp_timer lp_core_timer(tstamp_ns now, tstamp_ns wake, tstamp_ns armed_ns,
			    tstamp_ns spin_ns, tstamp_ns slack_ns)
{
	if (spin_ns && wake != TS_NEVER && wake <= now + spin_ns)
		return LP_SPIN;
	if (wake == armed_ns)
		return LP_KEEP;
	if (armed_ns != TS_NEVER && wake != TS_NEVER && armed_ns <= wake &&
	    wake - armed_ns <= slack_ns)
		return LP_KEEP;
	return LP_ARM;
}

struct timespec lp_timer_value(tstamp_ns at_ns)
{
	struct timespec ts = { 0, 0 };

	if (at_ns != TS_NEVER) {
		ts.tv_sec = (time_t)(at_ns / NS_PER_SEC);
		ts.tv_nsec = (long)(at_ns % NS_PER_SEC);
		if (!at_ns)
			ts.tv_nsec = 1;
	}
	return ts;
}

int lp_tun_reads(struct lp_tun_burst *b, tstamp_ns now)
{
	if (now - b->last_ns >= LP_TUN_BURST_NS)
		b->quick = 0;
	else if (b->quick < 2)
		b->quick++;
	return b->quick == 2 ? LP_TUN_BATCH : 1;
}

int lp_rx_buffers(uint32_t free_pkts, int batch)
{
	int want = free_pkts < (uint32_t)batch ? (int)free_pkts : batch;

	return want ? want : 1;
}

tstamp_ns lp_stats_next(tstamp_ns next_ns, tstamp_ns interval_ns,
			tstamp_ns now)
{
	if (!interval_ns)
		return TS_NEVER;
	do
		next_ns += interval_ns;
	while (next_ns <= now);
	return next_ns;
}
