/* flowtab.h - a bounded flow table keyed on the 5-tuple hash, with idle
 * expiry on the scheduler's clock, for per-flow schedulers (PDRR's active
 * flows and flows in progress, DQ's sessions).
 *
 * Key.  pkt->flow_hash, the hash of the 5-tuple classify computes.  The
 * table never sees the tuple: two flows whose hashes are equal share one
 * entry (with a 32-bit hash and a few thousand flows this is rare, and
 * they are then scheduled as one flow).  A hash of 0 (not computed) is a
 * key like any other.
 *
 * Memory.  Capacity and payload size are fixed at init, which allocates
 * everything; destroy frees it.  Nothing allocates on the packet path.
 * Each entry carries payload_bytes of the owner's data (zeroed when the
 * entry is created, aligned for any type), identified by its pointer.
 *
 * Cost.  Lookup and insert are O(1) on average (chained buckets, at most
 * one entry per bucket on average); expiry work is bounded per call.
 *
 * Expiry.  Times are the scheduler's virtual clock, passed in; the table
 * never reads a clock.  It keeps the latest `now` it was given and uses
 * that for anything earlier (a dequeue's `now` may lag an enqueue's by the
 * pacer's catch-up window).  An entry is idle since its last
 * flowtab_get(), or since its last reference was released, whichever is
 * later; it has expired when it has no reference and has been idle for
 * MORE than idle_timeout_ns (idle exactly the timeout: still there).  An
 * expired entry is gone for every purpose: flowtab_get() of its hash
 * creates a new one, flowtab_find() does not see it.  Reclaiming it (the
 * owner's on_reclaim callback, then the slot is free) happens lazily:
 * flowtab_get() reclaims up to FLOWTAB_REAP_PER_CALL of the longest idle
 * expired entries, flowtab_find() and flowtab_get() reclaim the expired
 * entry they land on (so a call reclaims FLOWTAB_REAP_PER_CALL + 1
 * entries at most), and the owner may call flowtab_expire() with its own
 * bound (e.g. from dequeue).
 *
 * Busy entries.  The owner takes a reference (flowtab_hold()) while an
 * entry must not go, e.g. per packet it holds for the flow or once while
 * the flow's queue is non-empty, and releases it (flowtab_release()).  An
 * entry with a reference is never reclaimed and does not age.
 *
 * Full.  flowtab_get() returns NULL when the hash is new and every slot
 * holds an entry that has not expired or is held: the owner applies its
 * policy (PDRR: serve the packet without a flow entry or drop it, DQ:
 * push out).
 */
#ifndef SCHEDTUN_SCHED_FLOWTAB_H
#define SCHEDTUN_SCHED_FLOWTAB_H

#include <stddef.h>
#include <stdint.h>
#include "util/tstamp.h"

#define FLOWTAB_CAP_MAX       (1u << 24)
#define FLOWTAB_REAP_PER_CALL 2u

/* Called with an expired entry's payload just before its slot is freed;
 * it must not call back into the table. */
typedef void (*flowtab_reclaim_fn)(void *payload, void *arg);

struct flowtab {
	unsigned char *ents;            /* cap entries of `stride` bytes */
	uint32_t *bucket;               /* first entry index per bucket */
	size_t    stride;
	size_t    payload_bytes;
	uint32_t  cap, count;
	unsigned  bucket_shift;         /* 32 - log2(number of buckets) */
	uint32_t  free_head;            /* free slots, via the idle links */
	uint32_t  idle_head, idle_tail; /* unheld entries, longest idle first */
	tstamp_ns idle_timeout_ns;
	tstamp_ns now_ns;               /* latest time given */
	flowtab_reclaim_fn on_reclaim;  /* may be NULL */
	void     *arg;
};

/* Allocates a table of cap entries (1..FLOWTAB_CAP_MAX) with
 * payload_bytes of owner data each.  0, or -1 (bad size, no memory) with
 * nothing allocated. */
int  flowtab_init(struct flowtab *ft, uint32_t cap, size_t payload_bytes,
		  tstamp_ns idle_timeout_ns, flowtab_reclaim_fn on_reclaim,
		  void *arg);
/* Frees the table; on_reclaim is not called for the entries left. */
void flowtab_destroy(struct flowtab *ft);

/* The payload of hash's entry, created (zeroed, *created = 1) if there is
 * none or it has expired; the entry's idle time restarts at now.  NULL
 * when the table is full (see above). */
void *flowtab_get(struct flowtab *ft, uint32_t hash, tstamp_ns now,
		  int *created);

/* The payload of hash's entry if it exists and has not expired, else
 * NULL.  Does not restart the idle time. */
void *flowtab_find(struct flowtab *ft, uint32_t hash, tstamp_ns now);

/* The hash an entry was created for. */
uint32_t flowtab_hash_of(const void *payload);

/* Takes / drops a reference; the last release at now starts the idle
 * time.  Releases must match holds. */
void flowtab_hold(struct flowtab *ft, void *payload);
void flowtab_release(struct flowtab *ft, void *payload, tstamp_ns now);

/* Removes an entry now, held or not, without on_reclaim (the owner is
 * dropping the flow itself). */
void flowtab_remove(struct flowtab *ft, void *payload);

/* Reclaims up to max expired entries, longest idle first.  Returns how
 * many. */
uint32_t flowtab_expire(struct flowtab *ft, tstamp_ns now, uint32_t max);

/* Entries in the table, expired ones not yet reclaimed included. */
static inline uint32_t flowtab_count(const struct flowtab *ft)
{
	return ft->count;
}

#endif
