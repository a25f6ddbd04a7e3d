/* efsink.c - the EF sink's accounting (efsink.h). */
#include <stdlib.h>
#include <string.h>

#include "efgen/efsink.h"

void efsink_init(struct efsink *s)
{
	memset(s, 0, sizeof(*s));
	hist_fine_reset(&s->owd_run);
}

void efsink_free(struct efsink *s)
{
	free(s->iv_owd_ns);
	s->iv_owd_ns = NULL;
}

static int seen_get(const struct efsink *s, uint64_t seq)
{
	uint64_t b = seq % EFSINK_WINDOW;

	return s->seen[b / 8] >> (b % 8) & 1;
}

static void seen_put(struct efsink *s, uint64_t seq, int v)
{
	uint64_t b = seq % EFSINK_WINDOW;
	uint8_t m = (uint8_t)(1u << (b % 8));

	s->seen[b / 8] = v ? (uint8_t)(s->seen[b / 8] | m) :
			     (uint8_t)(s->seen[b / 8] & ~m);
}

/* x + d, held at INT64_MAX.  The sequence numbers are the sender's (or
 * any datagram's) 64-bit words: a gap of 2^63 or more, or two that add
 * up to it, would overflow the signed counts.  x may be negative (an
 * interval that filled more gaps than it opened). */
static int64_t add_gap(int64_t x, uint64_t d)
{
	uint64_t m;

	if (d == 0)
		return x;
	if (x < 0) {
		m = (uint64_t)-(x + 1) + 1;             /* |x|, INT64_MIN too */
		if (d < m)
			return -(int64_t)(m - d);
		d -= m;
		x = 0;
	}
	return d > (uint64_t)(INT64_MAX - x) ? INT64_MAX : x + (int64_t)d;
}

/* The sequence bookkeeping of efsink.h's header comment. */
static void track_seq(struct efsink *s, uint64_t seq)
{
	uint64_t from, q;

	if (!s->started || seq > s->max_seq) {
		from = s->started ? s->max_seq + 1 : 0;
		/* the numbers skipped are gaps: forget what the window held
		 * for them (bits of numbers WINDOW lower) */
		if (seq - from >= EFSINK_WINDOW)
			memset(s->seen, 0, sizeof(s->seen));
		else
			for (q = from; q < seq; q++)
				seen_put(s, q, 0);
		s->iv_lost = add_gap(s->iv_lost, seq - from);
		s->lost = add_gap(s->lost, seq - from);
		s->started = 1;
		s->max_seq = seq;
		seen_put(s, seq, 1);
		return;
	}
	if (s->max_seq - seq < EFSINK_WINDOW && seen_get(s, seq)) {
		s->iv_dups++;
		s->dups++;
		return;
	}
	if (s->max_seq - seq < EFSINK_WINDOW)
		seen_put(s, seq, 1);
	s->iv_lost--;
	s->lost--;
	s->iv_reordered++;
	s->reordered++;
}

int efsink_add(struct efsink *s, uint64_t seq, uint64_t ip_bytes,
	       int64_t owd_ns)
{
	uint64_t d = owd_ns > 0 ? (uint64_t)owd_ns : 0;

	s->iv_pkts++;
	s->iv_bytes += ip_bytes;
	s->pkts++;
	s->bytes += ip_bytes;
	track_seq(s, seq);
	hist_fine_add(&s->owd_run, d);
	if (s->iv_n == s->iv_cap) {
		size_t ncap = s->iv_cap ? s->iv_cap * 2 : 1024;
		uint64_t *n = realloc(s->iv_owd_ns, ncap * sizeof(*n));

		if (!n)
			return -1;
		s->iv_owd_ns = n;
		s->iv_cap = ncap;
	}
	s->iv_owd_ns[s->iv_n++] = d;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the index of the q-quantile among n sorted samples. */
static size_t rank(double q, uint64_t n)
{
	double r = q * (double)n;
	uint64_t k = (uint64_t)r;

	if ((double)k < r)
		k++;
	return k ? (size_t)(k - 1) : 0;
}

void efsink_interval_close(struct efsink *s, tstamp_ns to_ns,
			   struct efsink_interval *iv)
{
	double len_s = (double)(to_ns - s->ival_start_ns) / (double)NS_PER_SEC;

	memset(iv, 0, sizeof(*iv));
	iv->t_s = (double)to_ns / (double)NS_PER_SEC;
	iv->rcvd_bps = len_s > 0.0 ? (double)s->iv_bytes * 8.0 / len_s : 0.0;
	iv->rcvd_pkts = s->iv_pkts;
	iv->lost_pkts = s->iv_lost;
	iv->reordered_pkts = s->iv_reordered;
	iv->dup_pkts = s->iv_dups;
	if (s->iv_n) {
		qsort(s->iv_owd_ns, s->iv_n, sizeof(*s->iv_owd_ns), cmp_u64);
		iv->owd_ms.p50 = (double)s->iv_owd_ns[rank(0.5, s->iv_n)] / 1e6;
		iv->owd_ms.p99 = (double)s->iv_owd_ns[rank(0.99, s->iv_n)] / 1e6;
		iv->owd_ms.max = (double)s->iv_owd_ns[s->iv_n - 1] / 1e6;
	}
	s->ival_start_ns = to_ns;
	s->iv_pkts = s->iv_bytes = s->iv_reordered = s->iv_dups = 0;
	s->iv_lost = 0;
	s->iv_n = 0;
}

void efsink_summary(const struct efsink *s, tstamp_ns duration_ns,
		    struct efsink_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->duration_s = (double)duration_ns / (double)NS_PER_SEC;
	out->rcvd_pkts = s->pkts;
	out->rcvd_bytes = s->bytes;
	out->rcvd_bits = (double)s->bytes * 8.0;
	out->lost_pkts = s->lost;
	out->reordered_pkts = s->reordered;
	out->dup_pkts = s->dups;
	out->highest_seq = s->max_seq;
	if (s->owd_run.count) {
		out->owd_ms.p50 = (double)hist_fine_quantile_ns(&s->owd_run, 0.5) / 1e6;
		out->owd_ms.p99 = (double)hist_fine_quantile_ns(&s->owd_run, 0.99) / 1e6;
		out->owd_ms.max = (double)s->owd_run.max_ns / 1e6;
	}
}
