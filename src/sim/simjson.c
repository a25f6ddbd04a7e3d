/* simjson.c - schedtun-sim's end-of-run summary: the text of a source as
 * the summary table shows it, and the summary as JSON (--json;
 * docs/json-output.md): what the table on stderr prints, at full
 * precision and in base units, plus what the run knows per class.
 */
#include <stdio.h>
#include <string.h>

#include "sched/sched.h"
#include "sim/sim.h"
#include "util/jw.h"
#include "util/units.h"

static const char *const src_kind_name[] = {
	[SIM_SRC_NONE] = "none", [SIM_SRC_GREEDY] = "greedy",
	[SIM_SRC_CBR] = "cbr", [SIM_SRC_ONOFF] = "onoff",
	[SIM_SRC_PARETO] = "pareto", [SIM_SRC_TFRC] = "tfrc",
	[SIM_SRC_WEB] = "web",
};

/* See sim.h. */
const char *sim_source_text(const struct sim_source *s, char *buf,
			    size_t len)
{
	char r[32], per[32], off[32];

	switch (s->kind) {
	case SIM_SRC_GREEDY:
		snprintf(buf, len, "greedy %uB x%u", s->pkt_bytes,
			 s->backlog_pkts ? s->backlog_pkts : 4);
		break;
	case SIM_SRC_CBR:
		fmt_rate(s->rate_bps, r, sizeof(r));
		if (s->amplitude > 0.0) {
			fmt_duration((uint64_t)(s->period_s * 1e9 + 0.5), per,
				     sizeof(per));
			snprintf(buf, len, "cbr %s %uB a=%g T=%s", r,
				 s->pkt_bytes, s->amplitude, per);
		} else {
			snprintf(buf, len, "cbr %s %uB", r, s->pkt_bytes);
		}
		break;
	case SIM_SRC_ONOFF:
		fmt_rate(s->peak_bps, r, sizeof(r));
		fmt_duration(s->on_ns, per, sizeof(per));
		fmt_duration(s->off_ns, off, sizeof(off));
		snprintf(buf, len, "onoff %s %s/%s %uB", r, per, off,
			 s->pkt_bytes);
		break;
	case SIM_SRC_PARETO:
		if (s->peak_bps)
			fmt_rate(s->peak_bps, r, sizeof(r));
		else
			snprintf(r, sizeof(r), "greedy");
		snprintf(buf, len, "pareto a=%g %lluB %g/s %s", s->alpha,
			 (unsigned long long)s->mean_bytes, s->arrivals_per_s, r);
		break;
	case SIM_SRC_TFRC:
		fmt_rate(s->rate_bps, r, sizeof(r));
		fmt_duration(s->rtt_ns, per, sizeof(per));
		snprintf(buf, len, "tfrc %s rtt %s %uB", r, per, s->pkt_bytes);
		break;
	case SIM_SRC_WEB:
		fmt_rate(s->peak_bps, r, sizeof(r));
		fmt_duration(s->off_ns, per, sizeof(per));
		snprintf(buf, len, "web a=%g %lluB think %s %s %uB", s->alpha,
			 (unsigned long long)s->mean_bytes, per, r, s->pkt_bytes);
		break;
	default:
		snprintf(buf, len, "none");
	}
	if (s->kind != SIM_SRC_NONE && s->kind != SIM_SRC_PARETO &&
	    s->flows > 1) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " *%u", s->flows);
	}
	return buf;
}

/* Class k's row: its source, mean rate and share of C as the table, then
 * its packets, drops by reason and time in the scheduler. */
static void json_class(struct jw *w, const struct sim_config *cfg,
		       const struct sim_result *r, int k)
{
	const struct sim_class_flows *g = &r->flows[k];
	const struct sim_source *src = &cfg->src[k];
	double c = r->link_mean_bps;
	char text[160];
	int why;

	jw_obj_begin(w, cls_name[k]);
	jw_str(w, "source", sim_source_text(src, text, sizeof(text)));
	jw_str(w, "kind", src->kind < sizeof(src_kind_name) /
	       sizeof(src_kind_name[0]) && src_kind_name[src->kind] ?
	       src_kind_name[src->kind] : "?");
	jw_real(w, "mean_bps", r->mean_bps[k]);
	jw_real(w, "share_of_c", c > 0 ? r->mean_bps[k] / c : 0.0);
	jw_u64(w, "out_bytes", r->out_bytes[k]);
	jw_u64(w, "drop_pkts", r->drop_pkts[k]);
	jw_u64(w, "flows", g->flows);
	jw_u64(w, "in_pkts", g->in_pkts);
	jw_u64(w, "out_pkts", g->out_pkts);
	jw_u64(w, "queued_pkts", g->queued_pkts);
	jw_obj_begin(w, "drops");
	for (why = 0; why < DROP_REASON_MAX; why++)
		jw_u64(w, drop_reason_name[why], g->drop_by[why]);
	jw_u64(w, "pool", g->drop_by[SIM_DROP_POOL]);
	jw_obj_end(w);
	jw_obj_begin(w, "sched_delay");
	jw_u64(w, "pkts", g->delay_pkts);
	jw_real(w, "mean_ns", g->delay_mean_ns);
	jw_u64(w, "p50_ns", g->delay_p50_ns);
	jw_u64(w, "p99_ns", g->delay_p99_ns);
	jw_u64(w, "max_ns", g->delay_max_ns);
	jw_obj_end(w);
	jw_obj_begin(w, "flow_rates");
	jw_real(w, "min_bps", g->rate_min_bps);
	jw_real(w, "mean_bps", g->rate_mean_bps);
	jw_real(w, "max_bps", g->rate_max_bps);
	jw_real(w, "jain", g->jain);
	jw_obj_end(w);
	if (src->kind == SIM_SRC_WEB) {
		jw_obj_begin(w, "web");
		jw_u64(w, "sessions", g->sessions);
		jw_u64(w, "sessions_done", g->sessions_done);
		jw_u64(w, "session_bytes", g->session_bytes);
		jw_u64(w, "session_ns", g->session_ns);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/* See sim.h. */
void sim_json_summary(struct jw *w, const struct sim_config *cfg,
		      const struct sim_result *r)
{
	const struct link_profile *l = &cfg->conf.link;
	double total = 0.0;
	int k;

	jw_str(w, "scheduler", cfg->conf.sched->name);
	jw_u64(w, "duration_ns", cfg->duration_ns);
	jw_u64(w, "warmup_ns", cfg->warmup_ns);
	jw_u64(w, "seed", cfg->seed);
	jw_obj_begin(w, "link");
	jw_str(w, "kind", link_kind_name[l->kind]);
	jw_u64(w, "mean_bps", link_mean_bps(l));
	jw_u64(w, "delay_ns", cfg->conf.delay_ns);
	jw_real(w, "window_capacity_bps", r->link_mean_bps);
	jw_obj_end(w);
	jw_obj_begin(w, "classes");
	for (k = 0; k < NCLASS; k++) {
		json_class(w, cfg, r, k);
		total += r->mean_bps[k];
	}
	jw_obj_end(w);
	jw_real(w, "link_mean_bps", total);
	jw_real(w, "link_share_of_c", r->link_mean_bps > 0 ?
		total / r->link_mean_bps : 0.0);
	jw_u64(w, "dequeued_pkts", r->events);
	jw_u64(w, "pool_empty_pkts", r->pool_empty_pkts);
	if (cfg->cost) {
		jw_obj_begin(w, "cost");
		jw_u64(w, "enq_pkts", r->cost.enq_pkts);
		jw_u64(w, "deq_pkts", r->cost.deq_pkts);
		jw_u64(w, "sched_calls", r->cost.sched_calls);
		jw_u64(w, "path_calls", r->cost.path_calls);
		jw_real(w, "sched_ns", r->cost.sched_ns);
		jw_real(w, "path_ns", r->cost.path_ns);
		jw_real(w, "loop_ns", r->cost.loop_ns);
		jw_real(w, "clock_ns", r->cost.clock_ns);
		jw_obj_end(w);
	} else {
		jw_null(w, "cost");
	}
}
