/* stats.c - counters and the stats line (see stats.h). */
#include <string.h>
#include "core/stats.h"
#include "util/jw.h"

void stats_init(struct stats *s)
{
	memset(s, 0, sizeof(*s));
}

void stats_rx_seq(struct rx_stats *r, uint32_t seq)
{
	/* Serial-number arithmetic: a difference below 2^31 is "ahead". */
	uint32_t ahead = seq - r->next_seq;

	if (r->seq_valid && ahead < (1u << 31))
		r->lost += ahead;
	r->next_seq = seq + 1;
	r->seq_valid = 1;
}

static void put_ms3(struct jw *w, const char *key, const struct hist *h,
		    int with_max)
{
	jw_obj_begin(w, key);
	jw_double(w, "avg", hist_avg_ns(h) / 1e6, 3);
	jw_double(w, "p99", (double)hist_quantile_ns(h, 0.99) / 1e6, 3);
	if (with_max)
		jw_double(w, "max", (double)h->max_ns / 1e6, 3);
	jw_obj_end(w);
}

static void put_drops(struct jw *w, const struct stats *s)
{
	char key[64];
	int i;

	jw_obj_begin(w, "drops");
	for (i = 1; i < IP_VERDICT_MAX; i++) {
		snprintf(key, sizeof(key), "tun_%s", ip_verdict_name[i]);
		jw_u64(w, key, s->tun_bad[i]);
	}
	for (i = 1; i < TSO_VERDICT_MAX; i++) {
		snprintf(key, sizeof(key), "tso_%s", tso_verdict_name[i]);
		jw_u64(w, key, s->tso_bad[i]);
	}
	for (i = 1; i < TUN_VERDICT_MAX; i++) {
		snprintf(key, sizeof(key), "rx_%s", tun_verdict_name[i]);
		jw_u64(w, key, s->rx_bad[i]);
	}
	jw_u64(w, "rx_unknown_peer", s->rx_unknown_peer);
	jw_u64(w, "rx_not_allowed", s->rx_not_allowed);
	jw_u64(w, "rx_unauth", s->rx_unauth);
	jw_u64(w, "rx_keyed", s->rx_keyed);
	/* AUTH_SHORT cannot pass the header check: counted as rx_short */
	for (i = AUTH_SHORT + 1; i < AUTH_VERDICT_MAX; i++) {
		snprintf(key, sizeof(key), "rx_%s", auth_verdict_name[i]);
		jw_u64(w, key, s->rx_auth[i]);
	}
	for (i = 1; i < IP_VERDICT_MAX; i++) {
		snprintf(key, sizeof(key), "rx_inner_%s", ip_verdict_name[i]);
		jw_u64(w, key, s->rx_inner_bad[i]);
	}
	jw_u64(w, "pool_empty", s->pool_empty);
	jw_u64(w, "send_error", s->send_error);
	jw_u64(w, "tx_counter_limit", s->tx_counter_limit);
	jw_u64(w, "tun_write_error", s->tun_write_error);
	for (i = 0; i < DROP_REASON_MAX; i++)
		jw_u64(w, drop_reason_name[i], s->sched_drop[i]);
	jw_obj_end(w);
}

void stats_sched_swapped(struct stats *s)
{
	jw_memo_reset(&s->sched_memo);
}

/* Zeroes every delta; keeps what is state rather than a delta: the
 * expected sequence numbers and the scheduler counters' memo. */
static void reset_deltas(struct stats *s)
{
	struct rx_stats rx_keep[NCLASS];
	struct jw_memo memo_keep = s->sched_memo;
	int c;

	for (c = 0; c < NCLASS; c++)
		rx_keep[c] = s->rx[c];
	memset(s, 0, sizeof(*s));
	s->sched_memo = memo_keep;
	for (c = 0; c < NCLASS; c++) {
		s->rx[c].next_seq = rx_keep[c].next_seq;
		s->rx[c].seq_valid = rx_keep[c].seq_valid;
	}
}

int stats_format(struct stats *s, const struct stats_gauges *g,
		 struct sched *sch, char *buf, size_t len)
{
	struct jw w;
	int c, n;

	jw_init(&w, buf, len);
	jw_obj_begin(&w, NULL);
	jw_double(&w, "t", g->t_s, 3);
	jw_double(&w, "wall", g->wall_s, 6);

	jw_obj_begin(&w, "link");
	jw_u64(&w, "rate_bps", g->rate_bps);
	jw_u64(&w, "out_pkts", s->link_out_pkts);
	jw_u64(&w, "out_bytes", s->link_out_bytes);
	jw_u64(&w, "inflight_pkts", g->inflight_pkts);
	jw_obj_begin(&w, "late_us");
	jw_double(&w, "p50", (double)hist_quantile_ns(&s->late, 0.5) / 1e3, 1);
	jw_double(&w, "p99", (double)hist_quantile_ns(&s->late, 0.99) / 1e3, 1);
	jw_double(&w, "max", (double)s->late.max_ns / 1e3, 1);
	jw_obj_end(&w);
	jw_obj_end(&w);

	jw_obj_begin(&w, "classes");
	for (c = 0; c < NCLASS; c++) {
		const struct cls_stats *k = &s->cls[c];

		jw_obj_begin(&w, cls_name[c]);
		jw_u64(&w, "in_pkts", k->in_pkts);
		jw_u64(&w, "in_bytes", k->in_bytes);
		jw_u64(&w, "out_pkts", k->out_pkts);
		jw_u64(&w, "out_bytes", k->out_bytes);
		jw_u64(&w, "drop_pkts", k->drop_pkts);
		jw_u64(&w, "drop_bytes", k->drop_bytes);
		jw_u64(&w, "qlen_pkts", g->qlen_pkts[c]);
		jw_u64(&w, "qlen_bytes", g->qlen_bytes[c]);
		put_ms3(&w, "delay_ms", &k->sojourn, 1);
		jw_obj_end(&w);
	}
	jw_obj_end(&w);

	jw_obj_begin(&w, "rx");
	for (c = 0; c < NCLASS; c++) {
		const struct rx_stats *r = &s->rx[c];

		jw_obj_begin(&w, cls_name[c]);
		jw_u64(&w, "pkts", r->pkts);
		jw_u64(&w, "bytes", r->bytes);
		jw_u64(&w, "lost", r->lost);
		put_ms3(&w, "owd_ms", &r->owd, 1);
		jw_obj_end(&w);
	}
	jw_obj_end(&w);

	put_drops(&w, s);

	/* Not drops: events that lost no packet. */
	jw_obj_begin(&w, "io");
	jw_u64(&w, "tx_blocked", s->tx_blocked);
	jw_u64(&w, "stats_write_error", s->stats_write_error);
	jw_u64(&w, "tun_super_reads", s->tun_super_reads);
	jw_u64(&w, "tun_segments", s->tun_segments);
	jw_u64(&w, "gso_sends", s->gso_sends);
	jw_u64(&w, "gso_segments", s->gso_segments);
	jw_u64(&w, "gro_reads", s->gro_reads);
	jw_u64(&w, "gro_segments", s->gro_segments);
	jw_u64(&w, "gso_fallback", s->gso_fallback);
	jw_u64(&w, "tun_gro_writes", s->tun_gro_writes);
	jw_u64(&w, "tun_gro_segments", s->tun_gro_segments);
	jw_u64(&w, "tun_gro_fallback", s->tun_gro_fallback);
	jw_obj_end(&w);

	if (g->mark_on[CLS_EF] || g->mark_on[CLS_AF] || g->mark_on[CLS_CS0]) {
		jw_obj_begin(&w, "marker");
		for (c = 0; c < NCLASS; c++) {
			if (!g->mark_on[c])
				continue;
			jw_obj_begin(&w, cls_name[c]);
			jw_u64(&w, "green", g->mark_pkts[c][0]);
			jw_u64(&w, "yellow", g->mark_pkts[c][1]);
			jw_u64(&w, "red", g->mark_pkts[c][2]);
			jw_u64(&w, "shared", g->mark_shared[c]);
			jw_u64(&w, "flows", g->mark_flows[c]);
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
	}

	if (g->auth_on) {
		jw_obj_begin(&w, "auth");
		jw_u64(&w, "sessions", g->auth_sessions);
		jw_u64(&w, "prev_key", g->auth_prev_key);
		jw_u64(&w, "switches", g->auth_switches);
		jw_u64(&w, "late_max", g->auth_late_max);
		jw_bool(&w, "rekey_pending", g->auth_rekey_pending);
		jw_obj_end(&w);
	}

	if (g->log_on) {
		jw_obj_begin(&w, "log");
		jw_u64(&w, "records", g->log_records);
		jw_u64(&w, "lost", g->log_lost);
		jw_u64(&w, "buffered_bytes", g->log_buffered_bytes);
		jw_obj_end(&w);
	}

	jw_obj_begin(&w, "sched");
	jw_str(&w, "name", sch->ops->name);
	jw_use_memo(&w, &s->sched_memo);
	if (sch->ops->dump_stats)
		sch->ops->dump_stats(sch->priv, &w);
	jw_obj_end(&w);

	jw_obj_end(&w);
	n = jw_finish(&w);
	if (n >= 0) {
		jw_memo_commit(&s->sched_memo);
		reset_deltas(s);
	}
	return n;
}
