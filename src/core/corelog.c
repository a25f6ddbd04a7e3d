/* corelog.c - the core's per-packet log records (corelog.h, plog.h).
 *
 * Times in the log are CLOCK_REALTIME (the loop's monotonic time plus the
 * offset it measured), the clock of the tunnel header's timestamp, so that
 * the two daemons' logs and the traffic sources' records share one axis.
 * An event's time is the loop's `now` (c->now_ns) when the core handled
 * it; a departure's start on the emulated link may be earlier (the pacer's
 * catch-up) and is its own column.
 */
#include "corelog.h"

static int64_t real_ns(const struct core *c, tstamp_ns mono_ns)
{
	return (int64_t)mono_ns + c->real_minus_mono_ns;
}

void core_log_rec(struct core *c, enum plog_event ev, const struct pkt *p,
		  const char *prefix, const char *reason)
{
	struct plog_rec r = {
		.t_ns = real_ns(c, c->now_ns),
		.event = (uint8_t)ev,
		.cls = p->cls,
		.verdict = ev == PLOG_ENQ ? PKT_V_NONE : p->verdict,
		.has = PLOG_HAS_LEN,
		/* A sealed packet's bytes are ciphertext: no flow to name. */
		.ip = p->encap && c->auth && c->auth->encrypt ? NULL : p->data,
		.len_bytes = p->len_bytes,
		.reason_prefix = prefix,
		.reason = reason,
	};

	if (ev == PLOG_DEP) {
		r.has |= PLOG_HAS_SEQ | PLOG_HAS_SOJOURN | PLOG_HAS_START;
		r.seq = p->seq;
		r.start_ns = real_ns(c, p->start_ns);
		r.sojourn_ns = p->start_ns > p->enq_ns ? (int64_t)(p->start_ns - p->enq_ns) : 0;
	} else if (ev == PLOG_DROP && p->enq_ns) {
		/* dropped after it was queued: how long it had waited */
		r.has |= PLOG_HAS_SOJOURN;
		r.sojourn_ns = c->now_ns > p->enq_ns ? (int64_t)(c->now_ns - p->enq_ns) : 0;
	}
	plog_add(c->plog, &r);
}

void core_log_bare(struct core *c, uint8_t cls, uint32_t len_bytes,
		   const char *prefix, const char *reason)
{
	struct plog_rec r = {
		.t_ns = real_ns(c, c->now_ns),
		.event = PLOG_DROP,
		.cls = cls,
		.has = len_bytes ? PLOG_HAS_LEN : 0,
		.len_bytes = len_bytes,
		.reason_prefix = prefix,
		.reason = reason,
	};

	plog_add(c->plog, &r);
}

void core_log_arr(struct core *c, const struct pkt *p, uint8_t cls,
		  uint32_t len_bytes, uint32_t seq, int64_t owd_ns)
{
	struct plog_rec r = {
		.t_ns = real_ns(c, c->now_ns),
		.event = PLOG_ARR,
		.cls = cls,
		.has = PLOG_HAS_LEN | PLOG_HAS_SEQ | PLOG_HAS_OWD,
		.ip = p->data,
		.len_bytes = len_bytes,
		.seq = seq,
		.owd_ns = owd_ns,
	};

	plog_add(c->plog, &r);
}
