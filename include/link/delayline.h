/* delayline.h - the one-way propagation delay, as a FIFO of packets each
 * carrying its release time in pkt->depart_ns.  Release times are kept
 * non-decreasing so a reconfigured (shorter) delay never reorders packets. */
#ifndef SCHEDTUN_DELAYLINE_H
#define SCHEDTUN_DELAYLINE_H

#include "pkt/pkt.h"

struct delayline {
	struct pktq q;
	tstamp_ns   delay_ns;
};

void delayline_init(struct delayline *d, tstamp_ns delay_ns);

/* Queues p for release at finish_ns + delay (never before the tail). */
void delayline_push(struct delayline *d, struct pkt *p, tstamp_ns finish_ns);

/* The head if its release time has come, else NULL (the head stays). */
struct pkt *delayline_pop_due(struct delayline *d, tstamp_ns now);

/* Puts back a packet that could not be sent (EAGAIN) at the head. */
void delayline_unpop(struct delayline *d, struct pkt *p);

/* Release time of the head, or TS_NEVER when empty. */
tstamp_ns delayline_next_ns(const struct delayline *d);

#endif
