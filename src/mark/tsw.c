/* tsw.c - RFC 2859's Time Sliding Window meter and marker (contract, the
 * RFC's equations and the decisions it leaves open: include/mark/tsw.h). */
#include <stddef.h>

#include "mark/tsw.h"
#include "util/rng.h"

const char *const tsw_colour_name[TSW_NCOLOUR] = {
	[TSW_GREEN] = "green", [TSW_YELLOW] = "yellow", [TSW_RED] = "red",
};

const char *tsw_params_problem(const struct tsw_params *p)
{
	if (!p->committed_bps)
		return "the committed rate is 0";
	if (p->peak_bps && p->peak_bps <= p->committed_bps)
		return "the peak rate is not above the committed rate";
	if (!p->window_ns)
		return "the window is 0";
	return NULL;
}

void tsw_meter_init(struct tsw_meter *m, const struct tsw_params *p,
		    tstamp_ns t0_ns)
{
	m->avg_rate_bytes_per_s = (double)p->committed_bps / 8.0;
	m->t_front_ns = t0_ns;
}

double tsw_meter_update(struct tsw_meter *m, const struct tsw_params *p,
			uint32_t len_bytes, tstamp_ns now)
{
	double win_s = (double)p->window_ns / (double)NS_PER_SEC;
	double gap_s = 0;
	double bytes_in_win, new_bytes;

	if (now > m->t_front_ns)
		gap_s = (double)(now - m->t_front_ns) / (double)NS_PER_SEC;
	bytes_in_win = m->avg_rate_bytes_per_s * win_s;
	new_bytes = bytes_in_win + (double)len_bytes;
	m->avg_rate_bytes_per_s = new_bytes / (gap_s + win_s);
	if (now > m->t_front_ns)
		m->t_front_ns = now;
	return m->avg_rate_bytes_per_s * 8.0;
}

void tsw_probabilities(const struct tsw_params *p, double avg_bps,
		       double prob[TSW_NCOLOUR])
{
	double ctr = (double)p->committed_bps, ptr = (double)p->peak_bps;

	prob[TSW_GREEN] = 1;
	prob[TSW_YELLOW] = 0;
	prob[TSW_RED] = 0;
	if (avg_bps <= ctr)
		return;
	if (!p->peak_bps || avg_bps <= ptr) {
		prob[TSW_YELLOW] = (avg_bps - ctr) / avg_bps;
	} else {
		prob[TSW_RED] = (avg_bps - ptr) / avg_bps;
		prob[TSW_YELLOW] = (ptr - ctr) / avg_bps;
	}
	prob[TSW_GREEN] = 1 - prob[TSW_YELLOW] - prob[TSW_RED];
}

enum tsw_colour tsw_colour_of(const struct tsw_params *p, double avg_bps,
			      uint64_t *rng)
{
	double prob[TSW_NCOLOUR], u;

	tsw_probabilities(p, avg_bps, prob);
	if (prob[TSW_GREEN] >= 1)
		return TSW_GREEN;
	u = rng_u01(rng);
	if (u < prob[TSW_RED])
		return TSW_RED;
	if (u < prob[TSW_RED] + prob[TSW_YELLOW])
		return TSW_YELLOW;
	return TSW_GREEN;
}
