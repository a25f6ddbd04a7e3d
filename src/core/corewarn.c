/* corewarn.c - the core's say-once failure reports (core.h, warnonce.h):
 * kept out of core.c so that the packet path only calls warn_once_fail(). */
#include <errno.h>
#include "core/core.h"

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
	c->st.pool_empty++;
	warn_once_fail(&c->warn_pool, ENOBUFS, now);
}
