/* corewarn.c - the core's say-once failure reports (core.h, warnonce.h),
 * and the drops the loop reports (no buffer, a refused super-packet):
 * kept out of core.c so that the packet path only calls warn_once_fail(). */
#include <errno.h>
#include "core/core.h"
#include "corelog.h"

void core_warn_init(struct core *c)
{
	warn_once_init(&c->warn_send, "send to the peer",
		       "the datagram is lost, counted in drops.send_error");
	warn_once_init(&c->warn_tun_write, "write to the tun",
		       "the packet is lost, counted in drops.tun_write_error");
	warn_once_init(&c->warn_pool, "packet pool (tunnel.pool)",
		       "the packet read is discarded, counted in drops.pool_empty");
}

void core_warn_poll(struct core *c, tstamp_ns now)
{
	warn_once_poll(&c->warn_send, now);
	warn_once_poll(&c->warn_tun_write, now);
	warn_once_poll(&c->warn_pool, now);
}

void core_pool_empty(struct core *c, tstamp_ns now)
{
	c->now_ns = now;
	c->st.pool_empty++;
	core_log_drop_bare(c, PLOG_NO_CLASS, 0, NULL, "pool_empty");
	warn_once_fail(&c->warn_pool, ENOBUFS, now);
}

void core_tso_refused(struct core *c, enum tso_verdict v, tstamp_ns now)
{
	c->now_ns = now;
	c->st.tso_bad[v]++;
	core_log_drop_bare(c, PLOG_NO_CLASS, 0, "tso_", tso_verdict_name[v]);
}
