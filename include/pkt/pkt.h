/* pkt.h - packet buffers from a fixed pool, and a FIFO of them.
 *
 * The pool is allocated once at start-up; the packet path never calls
 * malloc.  Each buffer reserves PKT_HEADROOM_BYTES in front of the inner
 * packet and PKT_TAILROOM_BYTES after its capacity, so that the tunnel
 * header (and with a key, the tag) is written in place around the inner
 * packet, and a received datagram is decapsulated without a copy.
 *
 * Ownership moves with the pointer: whoever holds a struct pkt * must either
 * pass it on or return it with pkt_free().  Tests end with pkt_pool_in_use()
 * == 0.
 */
#ifndef SCHEDTUN_PKT_H
#define SCHEDTUN_PKT_H

#include <stddef.h>
#include <stdint.h>
#include "util/tstamp.h"

#define PKT_HEADROOM_BYTES 48u  /* >= TUN_HDR_V2_BYTES (44), a multiple of 16 */
#define PKT_TAILROOM_BYTES 16u  /* >= TUN_TAG_BYTES: the tag of version 2 */

struct pkt {
	struct pkt *next;               /* queue link; owned by the holder */
	uint8_t    *data;               /* inner IP packet (buf + headroom) */
	uint32_t    len_bytes;          /* inner IP packet length */
	uint8_t     cls;                /* enum pkt_class */
	uint8_t     dscp;               /* 0..63 */
	uint8_t     verdict;            /* enum pkt_verdict: the scheduler's */
	uint8_t     encap;              /* 1: the datagram around data is built
					 * (header, and sealed with a key):
					 * a resend sends it as it is */
	uint32_t    flow_hash;          /* 5-tuple hash, 0 if not computed */
	uint32_t    seq;                /* per-class tunnel sequence number */
	tstamp_ns   enq_ns;             /* when it entered the scheduler */
	tstamp_ns   depart_ns;          /* planned release from the delay line */
	tstamp_ns   start_ns;           /* when it started on the emulated link */
	_Alignas(16) uint8_t buf[];     /* headroom + capacity + tailroom */
};

/* What a scheduler decided for a packet, where it has such a decision:
 * which of its queues took the packet on arrival (the per-packet log's
 * `verdict` column).  Set by the scheduler's enqueue; PKT_V_NONE for the
 * schedulers that only have the class. */
enum pkt_verdict {
	PKT_V_NONE = 0,
	PKT_V_PQ,               /* PDRR: the priority queue */
	PKT_V_FLOW,             /* PDRR: its flow's DRR queue */
	PKT_V_ALPHA,            /* DQ: the low-delay α queue */
	PKT_V_BETA,             /* DQ: the β queue (a redirected session) */
	PKT_V_CONFORMING,       /* TICKET: In-Time conforming (buffer c) */
	PKT_V_EXCESS,           /* TICKET: In-Time excess (buffer e) */
	PKT_V_BACKGROUND,       /* TICKET: background (buffer b) */
	PKT_V_MAX
};

extern const char *const pkt_verdict_name[PKT_V_MAX];  /* "", "pq", ... */

/* Allocates `count` buffers each able to hold `cap_bytes` of inner packet
 * (plus the head- and tailroom).
 * Returns 0, or -1 with errno set (ENOMEM).  One pool per process. */
int  pkt_pool_init(uint32_t count, uint32_t cap_bytes);
void pkt_pool_destroy(void);

/* NULL when the pool is exhausted (the caller counts a drop). */
struct pkt *pkt_alloc(void);
void        pkt_free(struct pkt *p);

uint32_t pkt_pool_in_use(void);
uint32_t pkt_pool_size(void);
uint32_t pkt_pool_cap_bytes(void);

/* A singly linked FIFO with byte and packet counts. */
struct pktq {
	struct pkt *head, *tail;
	uint32_t    len_pkts;
	uint64_t    len_bytes;
};

static inline void pktq_init(struct pktq *q)
{
	q->head = q->tail = NULL;
	q->len_pkts = 0;
	q->len_bytes = 0;
}

static inline void pktq_push(struct pktq *q, struct pkt *p)
{
	p->next = NULL;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->len_pkts++;
	q->len_bytes += p->len_bytes;
}

static inline void pktq_push_head(struct pktq *q, struct pkt *p)
{
	p->next = q->head;
	q->head = p;
	if (!q->tail)
		q->tail = p;
	q->len_pkts++;
	q->len_bytes += p->len_bytes;
}

static inline struct pkt *pktq_pop(struct pktq *q)
{
	struct pkt *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	p->next = NULL;
	q->len_pkts--;
	q->len_bytes -= p->len_bytes;
	return p;
}

/* Returns every packet of the queue to the pool. */
void pktq_purge(struct pktq *q);

#endif
