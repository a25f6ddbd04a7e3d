/* flowtab.c - the bounded flow table (contract in flowtab.h).
 *
 * Entries live in one array; a free or unheld entry is on a doubly linked
 * list through indices (the free list, or the idle list ordered by the
 * time it became idle, which is non-decreasing because every stamp is the
 * table's latest `now`).  So the longest idle entry is the idle list's
 * head, and if that one has not expired no other has.
 */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "util/flowtab.h"

#define FLOWTAB_NIL UINT32_MAX

struct flowtab_ent {
	uint32_t  hash;
	uint32_t  refs;
	uint32_t  bnext;                /* bucket chain */
	uint32_t  lprev, lnext;         /* free or idle list */
	tstamp_ns idle_since_ns;
};

/* The payload follows the header, aligned for any type. */
#define FLOWTAB_HDR_BYTES \
	((sizeof(struct flowtab_ent) + alignof(max_align_t) - 1) / \
	 alignof(max_align_t) * alignof(max_align_t))

static struct flowtab_ent *ent_at(const struct flowtab *ft, uint32_t i)
{
	return (struct flowtab_ent *)(void *)(ft->ents + (size_t)i * ft->stride);
}

static uint32_t ent_index(const struct flowtab *ft,
			  const struct flowtab_ent *e)
{
	return (uint32_t)(((const unsigned char *)e - ft->ents) / ft->stride);
}

static struct flowtab_ent *ent_of(void *payload)
{
	return (struct flowtab_ent *)(void *)((unsigned char *)payload -
					      FLOWTAB_HDR_BYTES);
}

static void *payload_of(struct flowtab_ent *e)
{
	return (unsigned char *)e + FLOWTAB_HDR_BYTES;
}

/* Fibonacci hashing: the bucket from the hash's well-mixed high bits, so
 * that hashes differing only in their high bits do not collide. */
static uint32_t *bucket_of(const struct flowtab *ft, uint32_t hash)
{
	return &ft->bucket[(uint32_t)(hash * 2654435769u) >> ft->bucket_shift];
}

/* ---- the idle list (unheld entries, longest idle first) ---------------- */

static void idle_append(struct flowtab *ft, struct flowtab_ent *e)
{
	uint32_t i = ent_index(ft, e);

	e->lnext = FLOWTAB_NIL;
	e->lprev = ft->idle_tail;
	if (ft->idle_tail != FLOWTAB_NIL)
		ent_at(ft, ft->idle_tail)->lnext = i;
	else
		ft->idle_head = i;
	ft->idle_tail = i;
}

static void idle_unlink(struct flowtab *ft, struct flowtab_ent *e)
{
	if (e->lprev != FLOWTAB_NIL)
		ent_at(ft, e->lprev)->lnext = e->lnext;
	else
		ft->idle_head = e->lnext;
	if (e->lnext != FLOWTAB_NIL)
		ent_at(ft, e->lnext)->lprev = e->lprev;
	else
		ft->idle_tail = e->lprev;
}

/* ---- life cycle --------------------------------------------------------- */

int flowtab_init(struct flowtab *ft, uint32_t cap, size_t payload_bytes,
		 tstamp_ns idle_timeout_ns, flowtab_reclaim_fn on_reclaim,
		 void *arg)
{
	const size_t align = alignof(max_align_t);
	uint32_t i, nbuckets = 2;
	unsigned bits = 1;

	memset(ft, 0, sizeof(*ft));
	if (cap < 1 || cap > FLOWTAB_CAP_MAX || payload_bytes > (1u << 20))
		return -1;
	while (nbuckets < cap) {
		nbuckets <<= 1;
		bits++;
	}
	ft->stride = FLOWTAB_HDR_BYTES +
		     (payload_bytes + align - 1) / align * align;
	ft->ents = calloc(cap, ft->stride);
	ft->bucket = malloc(nbuckets * sizeof(ft->bucket[0]));
	if (!ft->ents || !ft->bucket) {
		free(ft->ents);
		free(ft->bucket);
		memset(ft, 0, sizeof(*ft));
		return -1;
	}
	for (i = 0; i < nbuckets; i++)
		ft->bucket[i] = FLOWTAB_NIL;
	ft->bucket_shift = 32 - bits;
	ft->payload_bytes = payload_bytes;
	ft->cap = cap;
	ft->idle_timeout_ns = idle_timeout_ns;
	ft->on_reclaim = on_reclaim;
	ft->arg = arg;
	ft->idle_head = ft->idle_tail = FLOWTAB_NIL;
	/* the free list is singly linked through lnext, lowest index first */
	for (i = 0; i < cap; i++)
		ent_at(ft, i)->lnext = i + 1 < cap ? i + 1 : FLOWTAB_NIL;
	ft->free_head = 0;
	return 0;
}

void flowtab_destroy(struct flowtab *ft)
{
	free(ft->ents);
	free(ft->bucket);
	memset(ft, 0, sizeof(*ft));
}

/* ---- entries ------------------------------------------------------------ */

static tstamp_ns flowtab_clock(struct flowtab *ft, tstamp_ns now)
{
	if (now > ft->now_ns)
		ft->now_ns = now;
	return ft->now_ns;
}

static int expired(const struct flowtab *ft, const struct flowtab_ent *e)
{
	return e->refs == 0 &&
	       ft->now_ns - e->idle_since_ns > ft->idle_timeout_ns;
}

static struct flowtab_ent *lookup(const struct flowtab *ft, uint32_t hash)
{
	uint32_t i = *bucket_of(ft, hash);

	while (i != FLOWTAB_NIL) {
		struct flowtab_ent *e = ent_at(ft, i);

		if (e->hash == hash)
			return e;
		i = e->bnext;
	}
	return NULL;
}

/* Unhooks e from its bucket and the idle list and frees its slot. */
static void drop_entry(struct flowtab *ft, struct flowtab_ent *e)
{
	uint32_t *link = bucket_of(ft, e->hash), i = ent_index(ft, e);

	while (*link != i)
		link = &ent_at(ft, *link)->bnext;
	*link = e->bnext;
	if (e->refs == 0)
		idle_unlink(ft, e);
	e->lnext = ft->free_head;
	ft->free_head = i;
	ft->count--;
}

static void reclaim(struct flowtab *ft, struct flowtab_ent *e)
{
	if (ft->on_reclaim)
		ft->on_reclaim(payload_of(e), ft->arg);
	drop_entry(ft, e);
}

uint32_t flowtab_expire(struct flowtab *ft, tstamp_ns now, uint32_t max)
{
	uint32_t n = 0;

	flowtab_clock(ft, now);
	while (n < max && ft->idle_head != FLOWTAB_NIL) {
		struct flowtab_ent *e = ent_at(ft, ft->idle_head);

		if (!expired(ft, e))
			break;          /* the longest idle: none other is */
		reclaim(ft, e);
		n++;
	}
	return n;
}

void *flowtab_find(struct flowtab *ft, uint32_t hash, tstamp_ns now)
{
	struct flowtab_ent *e;

	flowtab_clock(ft, now);
	e = lookup(ft, hash);
	if (!e)
		return NULL;
	if (expired(ft, e)) {
		reclaim(ft, e);
		return NULL;
	}
	return payload_of(e);
}

void *flowtab_get(struct flowtab *ft, uint32_t hash, tstamp_ns now,
		  int *created)
{
	struct flowtab_ent *e;
	uint32_t *head, i;

	*created = 0;
	flowtab_expire(ft, now, FLOWTAB_REAP_PER_CALL);
	e = flowtab_find(ft, hash, now);
	if (e) {
		e = ent_of(e);
		e->idle_since_ns = ft->now_ns;
		if (e->refs == 0) {
			idle_unlink(ft, e);
			idle_append(ft, e);
		}
		return payload_of(e);
	}
	/* the reap above took the longest idle entry if it had expired:
	 * with no free slot now, nothing can be reclaimed */
	if (ft->free_head == FLOWTAB_NIL)
		return NULL;
	i = ft->free_head;
	e = ent_at(ft, i);
	ft->free_head = e->lnext;
	memset(payload_of(e), 0, ft->payload_bytes);
	e->hash = hash;
	e->refs = 0;
	e->idle_since_ns = ft->now_ns;
	head = bucket_of(ft, hash);
	e->bnext = *head;
	*head = i;
	idle_append(ft, e);
	ft->count++;
	*created = 1;
	return payload_of(e);
}

uint32_t flowtab_hash_of(const void *payload)
{
	const struct flowtab_ent *e = (const void *)
		((const unsigned char *)payload - FLOWTAB_HDR_BYTES);

	return e->hash;
}

void flowtab_hold(struct flowtab *ft, void *payload)
{
	struct flowtab_ent *e = ent_of(payload);

	if (e->refs++ == 0)
		idle_unlink(ft, e);
}

void flowtab_release(struct flowtab *ft, void *payload, tstamp_ns now)
{
	struct flowtab_ent *e = ent_of(payload);

	if (--e->refs == 0) {
		e->idle_since_ns = flowtab_clock(ft, now);
		idle_append(ft, e);
	}
}

void flowtab_remove(struct flowtab *ft, void *payload)
{
	drop_entry(ft, ent_of(payload));
}
