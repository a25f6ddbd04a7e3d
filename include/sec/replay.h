/* replay.h - the receiver's anti-replay window over a 64-bit datagram
 * counter (RFC 6479's block bitmap; the acceptance rule of RFC 4303
 * §3.4.3 and of WireGuard).
 *
 * A sender numbers its authenticated datagrams 0, 1, 2, ... and never
 * sends REPLAY_CTR_LIMIT or above (its counter does not wrap: past the
 * limit it must change session, see sec/auth.h).  The receiver accepts a
 * counter once, if it is above the highest accepted so far or at most
 * REPLAY_WINDOW - 1 below it.  Each check is O(1); moving the window
 * clears at most REPLAY_BLOCKS words.
 *
 * The caller checks first (replay_check: cheap, before the MAC), verifies
 * the datagram, and only then commits (replay_commit): a forged counter
 * must never move the window.
 */
#ifndef SCHEDTUN_SEC_REPLAY_H
#define SCHEDTUN_SEC_REPLAY_H

#include <stdint.h>

#define REPLAY_BLOCK_BITS 64u
#define REPLAY_BLOCKS     128u          /* a power of two */
/* The accepted distance below the highest counter: one block is kept
 * spare so that moving the top never clears a bit still inside. */
#define REPLAY_WINDOW     ((REPLAY_BLOCKS - 1u) * REPLAY_BLOCK_BITS)   /* 8128 */
/* The first counter refused: the window arithmetic never wraps below it. */
#define REPLAY_CTR_LIMIT  (UINT64_MAX - (uint64_t)REPLAY_BLOCKS * REPLAY_BLOCK_BITS)

enum replay_verdict {
	REPLAY_OK = 0,
	REPLAY_DUPLICATE,       /* accepted before */
	REPLAY_TOO_OLD,         /* REPLAY_WINDOW or more below the highest */
	REPLAY_LIMIT,           /* counter >= REPLAY_CTR_LIMIT */
	REPLAY_VERDICT_MAX
};

extern const char *const replay_verdict_name[REPLAY_VERDICT_MAX];

struct replay_win {
	uint64_t top;           /* highest counter accepted; valid if any */
	int any;                /* 0 until the first commit */
	uint64_t bits[REPLAY_BLOCKS];   /* bit c % (BLOCKS*64) set: c accepted */
	uint64_t late_max;      /* largest top - c ever accepted below the top */
};

/* An empty window: every counter below the limit is acceptable. */
void replay_init(struct replay_win *w);

/* Would ctr be accepted now?  Changes nothing. */
enum replay_verdict replay_check(const struct replay_win *w, uint64_t ctr);

/* replay_check, and on REPLAY_OK marks ctr accepted (moving the window
 * when ctr is above the top).  Call after the datagram proved authentic. */
enum replay_verdict replay_commit(struct replay_win *w, uint64_t ctr);

#endif
