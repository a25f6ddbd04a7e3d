/* replay.c - the anti-replay window (contract in sec/replay.h).
 *
 * RFC 6479: the bitmap is a ring of 64-bit blocks indexed by ctr / 64;
 * moving the top by k blocks zeroes just those k blocks (all of them at
 * most), so no bit shifting across words, and one spare block keeps the
 * bits of the lowest acceptable counters alive while the top's block is
 * reused.  Counters at or above REPLAY_CTR_LIMIT are refused before any
 * arithmetic, so top + anything never wraps.
 */
#include <string.h>

#include "sec/replay.h"

const char *const replay_verdict_name[REPLAY_VERDICT_MAX] = {
	[REPLAY_OK]        = "ok",
	[REPLAY_DUPLICATE] = "duplicate",
	[REPLAY_TOO_OLD]   = "too_old",
	[REPLAY_LIMIT]     = "counter_limit",
};

void replay_init(struct replay_win *w)
{
	memset(w, 0, sizeof(*w));
}

static inline uint64_t bit_of(uint64_t ctr)
{
	return (uint64_t)1 << (ctr % REPLAY_BLOCK_BITS);
}

static inline uint64_t *block_of(struct replay_win *w, uint64_t ctr)
{
	return &w->bits[(ctr / REPLAY_BLOCK_BITS) % REPLAY_BLOCKS];
}

enum replay_verdict replay_check(const struct replay_win *w, uint64_t ctr)
{
	if (ctr >= REPLAY_CTR_LIMIT)
		return REPLAY_LIMIT;
	if (!w->any || ctr > w->top)
		return REPLAY_OK;
	if (w->top - ctr >= REPLAY_WINDOW)
		return REPLAY_TOO_OLD;
	if (w->bits[(ctr / REPLAY_BLOCK_BITS) % REPLAY_BLOCKS] & bit_of(ctr))
		return REPLAY_DUPLICATE;
	return REPLAY_OK;
}

enum replay_verdict replay_commit(struct replay_win *w, uint64_t ctr)
{
	enum replay_verdict v = replay_check(w, ctr);

	if (v != REPLAY_OK)
		return v;
	if (!w->any) {
		w->any = 1;
		w->top = ctr;
	} else if (ctr > w->top) {
		uint64_t from = w->top / REPLAY_BLOCK_BITS;
		uint64_t moved = ctr / REPLAY_BLOCK_BITS - from;

		if (moved > REPLAY_BLOCKS)
			moved = REPLAY_BLOCKS;
		for (uint64_t i = 1; i <= moved; i++)
			w->bits[(from + i) % REPLAY_BLOCKS] = 0;
		w->top = ctr;
	} else if (w->top - ctr > w->late_max) {
		w->late_max = w->top - ctr;
	}
	*block_of(w, ctr) |= bit_of(ctr);
	return REPLAY_OK;
}
