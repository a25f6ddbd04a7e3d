/* pkt.c - the packet pool: one block allocated at start-up, a LIFO free list.
 *
 * Every buffer lives in one contiguous block of fixed-size slots, so a
 * pointer can be checked for membership with a subtraction and a modulo,
 * and alloc/free are O(1) list operations.  The free list is LIFO on
 * purpose: the most recently freed buffer is the one most likely to still
 * be in the cache.
 *
 * A per-slot state byte (kept in the same block, after the slots) turns a
 * double free or a foreign pointer into an immediate abort with a message
 * instead of a silently corrupted free list, which would surface much later
 * as two owners writing into one buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/classify.h"
#include "pkt/pkt.h"

/* Slots start on a cache line so that neighbouring packets never share one
 * and the inner packet (buf + headroom) has a predictable alignment. */
#define PKT_SLOT_ALIGN 64u

enum { SLOT_FREE = 0xf5, SLOT_USED = 0xa1 };

struct pkt_pool {
	unsigned char *block;           /* slots, then the state bytes */
	uint8_t       *state;           /* SLOT_FREE / SLOT_USED per slot */
	struct pkt    *free_list;
	size_t         stride_bytes;
	uint32_t       count;
	uint32_t       cap_bytes;
	uint32_t       in_use;
};

static struct pkt_pool pool;

const char *const pkt_verdict_name[PKT_V_MAX] = {
	[PKT_V_NONE]       = "",
	[PKT_V_PQ]         = "pq",
	[PKT_V_FLOW]       = "flow",
	[PKT_V_ALPHA]      = "alpha",
	[PKT_V_BETA]       = "beta",
	[PKT_V_CONFORMING] = "conforming",
	[PKT_V_EXCESS]     = "excess",
	[PKT_V_BACKGROUND] = "background",
};

static struct pkt *slot_at(uint32_t i)
{
	return (struct pkt *)(void *)(pool.block + (size_t)i * pool.stride_bytes);
}

/* Puts a slot back to the state a fresh pkt_alloc() promises: no queue
 * link, data at the headroom, nothing classified.  An unclassified packet
 * is best effort (CS0), never accidentally EF. */
static void pkt_reset(struct pkt *p)
{
	p->next = NULL;
	p->data = p->buf + PKT_HEADROOM_BYTES;
	p->len_bytes = 0;
	p->cls = CLS_CS0;
	p->dscp = 0;
	p->verdict = PKT_V_NONE;
	p->encap = 0;
	p->flow_hash = 0;
	p->seq = 0;
	p->enq_ns = 0;
	p->depart_ns = 0;
	p->start_ns = 0;
}

/* Index of p in the pool; aborts if p is not the start of one of its
 * slots.  Always on: the cost is one division per free, the alternative is
 * memory corruption that shows up far from its cause. */
static uint32_t slot_index(const struct pkt *p, const char *who)
{
	const unsigned char *c = (const unsigned char *)p;
	size_t off;

	if (!pool.block || c < pool.block ||
	    c >= pool.block + (size_t)pool.count * pool.stride_bytes)
		goto foreign;
	off = (size_t)(c - pool.block);
	if (off % pool.stride_bytes)
		goto foreign;
	return (uint32_t)(off / pool.stride_bytes);
foreign:
	fprintf(stderr, "schedtun: %s: %p is not a packet of the pool\n",
		who, (const void *)p);
	abort();
}

/* Allocates count slots of cap_bytes inner capacity in one block.  Fails
 * with EINVAL on zero sizes, EBUSY if a pool already exists, ENOMEM when
 * the block cannot be allocated or its size would overflow. */
int pkt_pool_init(uint32_t count, uint32_t cap_bytes)
{
	size_t stride, slots_bytes, total;
	uint32_t i;

	if (count == 0 || cap_bytes == 0) {
		errno = EINVAL;
		return -1;
	}
	if (pool.block) {
		errno = EBUSY;
		return -1;
	}
	stride = sizeof(struct pkt) + PKT_HEADROOM_BYTES + (size_t)cap_bytes +
		 PKT_TAILROOM_BYTES;
	stride = (stride + PKT_SLOT_ALIGN - 1) & ~(size_t)(PKT_SLOT_ALIGN - 1);
	/* count * (stride + 1 state byte) + padding must not wrap */
	if ((size_t)count > SIZE_MAX / 2 / (stride + 1)) {
		errno = ENOMEM;
		return -1;
	}
	slots_bytes = (size_t)count * stride;
	/* aligned_alloc wants a multiple of the alignment */
	total = slots_bytes + (((size_t)count + PKT_SLOT_ALIGN - 1) &
			       ~(size_t)(PKT_SLOT_ALIGN - 1));
	pool.block = aligned_alloc(PKT_SLOT_ALIGN, total);
	if (!pool.block) {
		errno = ENOMEM;
		return -1;
	}
	memset(pool.block, 0, total);
	pool.state = pool.block + slots_bytes;
	pool.stride_bytes = stride;
	pool.count = count;
	pool.cap_bytes = cap_bytes;
	pool.in_use = 0;
	pool.free_list = NULL;
	/* built backwards so that the first allocations walk the block
	 * forwards */
	for (i = count; i-- > 0;) {
		struct pkt *p = slot_at(i);

		pkt_reset(p);
		p->next = pool.free_list;
		pool.free_list = p;
		pool.state[i] = SLOT_FREE;
	}
	return 0;
}

/* Releases the block.  Packets still held by someone become dangling: the
 * caller destroys the pool only after every owner has returned its
 * packets (tests check pkt_pool_in_use() == 0 first). */
void pkt_pool_destroy(void)
{
	free(pool.block);
	memset(&pool, 0, sizeof(pool));
}

/* O(1).  Returns a reset packet, or NULL when every slot is in use or no
 * pool exists. */
struct pkt *pkt_alloc(void)
{
	struct pkt *p = pool.free_list;

	if (!p)
		return NULL;
	pool.free_list = p->next;
	pool.state[slot_index(p, "pkt_alloc")] = SLOT_USED;
	pool.in_use++;
	p->next = NULL;
	return p;
}

/* O(1).  Accepts NULL (no-op).  Aborts on a pointer that is not a pool
 * slot or on a slot that is already free. */
void pkt_free(struct pkt *p)
{
	uint32_t i;

	if (!p)
		return;
	i = slot_index(p, "pkt_free");
	if (pool.state[i] != SLOT_USED) {
		fprintf(stderr, "schedtun: pkt_free: double free of packet %u (%p)\n",
			i, (void *)p);
		abort();
	}
	pool.state[i] = SLOT_FREE;
	pool.in_use--;
	pkt_reset(p);
	p->next = pool.free_list;
	pool.free_list = p;
}

uint32_t pkt_pool_in_use(void)
{
	return pool.in_use;
}

uint32_t pkt_pool_size(void)
{
	return pool.count;
}

uint32_t pkt_pool_cap_bytes(void)
{
	return pool.cap_bytes;
}

/* Frees every queued packet and leaves q empty and reusable. */
void pktq_purge(struct pktq *q)
{
	struct pkt *p;

	while ((p = pktq_pop(q)))
		pkt_free(p);
	pktq_init(q);
}
