/* delayline.c - the propagation delay as a FIFO with per-packet release
 * times.  A FIFO suffices because release times are forced to be
 * non-decreasing: the packets leave in the order they were serialised,
 * as on a real wire, even right after the delay was shortened. */
#include "link/delayline.h"

void delayline_init(struct delayline *d, tstamp_ns delay_ns)
{
	pktq_init(&d->q);
	d->delay_ns = delay_ns;
}

/* Release at finish + delay, saturating at TS_NEVER, but never before the
 * tail's release so the FIFO order is the release order. */
void delayline_push(struct delayline *d, struct pkt *p, tstamp_ns finish_ns)
{
	tstamp_ns rel = finish_ns > TS_NEVER - d->delay_ns ? TS_NEVER :
			finish_ns + d->delay_ns;

	if (d->q.tail && d->q.tail->depart_ns > rel)
		rel = d->q.tail->depart_ns;
	p->depart_ns = rel;
	pktq_push(&d->q, p);
}

struct pkt *delayline_pop_due(struct delayline *d, tstamp_ns now)
{
	if (!d->q.head || d->q.head->depart_ns > now)
		return NULL;
	return pktq_pop(&d->q);
}

/* The packet keeps its release time; it was the head, so the order
 * stays sorted. */
void delayline_unpop(struct delayline *d, struct pkt *p)
{
	pktq_push_head(&d->q, p);
}

tstamp_ns delayline_next_ns(const struct delayline *d)
{
	return d->q.head ? d->q.head->depart_ns : TS_NEVER;
}
