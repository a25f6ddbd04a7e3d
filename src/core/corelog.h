/* corelog.h - where the core writes per-packet log records (plog.h).
 * Private to src/core.  Each call costs one branch when the log is off. */
#ifndef SCHEDTUN_CORELOG_H
#define SCHEDTUN_CORELOG_H

#include "core/core.h"
#include "plog/plog.h"

void core_log_rec(struct core *c, enum plog_event ev, const struct pkt *p,
		  const char *prefix, const char *reason);
void core_log_bare(struct core *c, uint8_t cls, uint32_t len_bytes,
		   const char *prefix, const char *reason);
void core_log_arr(struct core *c, const struct pkt *p, uint8_t cls,
		  uint32_t len_bytes, uint32_t seq, int64_t owd_ns);

/* A packet event: enq, dep (p->start_ns and p->seq set), or a drop of a
 * classified packet with the stats counter it moved (prefix + reason). */
static inline void core_log(struct core *c, enum plog_event ev,
			    const struct pkt *p, const char *prefix,
			    const char *reason)
{
	if (c->plog)
		core_log_rec(c, ev, p, prefix, reason);
}

/* A drop with no valid inner packet to describe: cls PLOG_NO_CLASS when
 * unknown, len_bytes 0 when there is no length. */
static inline void core_log_drop_bare(struct core *c, uint8_t cls,
				      uint32_t len_bytes, const char *prefix,
				      const char *reason)
{
	if (c->plog)
		core_log_bare(c, cls, len_bytes, prefix, reason);
}

#endif
