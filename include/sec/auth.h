/* auth.h - authenticated, optionally encrypted tunnel datagrams (tunnel
 * header version 2), with sessions, an anti-replay window and a re-key
 * that loses nothing when the two daemons change keys one at a time.
 *
 * Wire format, version 2 (network byte order; offsets in bytes):
 *   0..20   the version 1 fields of pkt/tunnel.h, version = 2, and in
 *           flags: AUTH_F_SEALED (the inner packet is encrypted) and
 *           AUTH_F_NEWKEY (the sender holds a new key it accepts and will
 *           send with once the peer does; see auth_rekey)
 *  20       8   epoch_ns  the sender's session: CLOCK_REALTIME ns when it
 *                         started; a later session replaces an earlier one
 *  28       8   salt      random, drawn with the epoch: two sessions with
 *                         one key never share a nonce
 *  36       8   counter   0, 1, 2, ... within the session; never reused
 *  44       len inner packet (encrypted when AUTH_F_SEALED)
 *  44+len  16   tag       Poly1305 tag of XChaCha20-Poly1305 (IETF)
 *
 * The nonce is bytes 20..44 (epoch, salt, counter: 24 bytes, unique per
 * key).  The associated data is bytes 0..44, and with authentication only
 * (no AUTH_F_SEALED) the inner packet too, so every byte of the datagram
 * is covered either way.  A receiver accepts a datagram of the current
 * session whose counter its window has not seen (sec/replay.h), or the
 * first authentic datagram of a later session (epoch above the current
 * one's), which resets the window.  Earlier sessions are stale: replaying
 * a captured session never re-opens it.  The MAC is checked before any
 * state changes.
 *
 * Keys: the current one, and during a re-key's grace period the previous
 * one, are accepted.  See auth_rekey for when the sender switches.
 *
 * No clock here, and no randomness but auth_salt_draw() (which the loop
 * calls once): the caller passes now, the epoch and the salt (the tests
 * pass fixed ones).
 */
#ifndef SCHEDTUN_SEC_AUTH_H
#define SCHEDTUN_SEC_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "sec/replay.h"
#include "util/tstamp.h"

#define AUTH_KEY_BYTES   32u
#define AUTH_HDR_BYTES   44u            /* the v1 fields + epoch, salt, counter */
#define AUTH_TAG_BYTES   16u
#define AUTH_OVERHEAD_BYTES (AUTH_HDR_BYTES + AUTH_TAG_BYTES)   /* 60 */
#define AUTH_VERSION     2u
/* The longest inner packet: the tunnel's length field is 16 bits. */
#define AUTH_INNER_MAX_BYTES 65535u

#define AUTH_F_SEALED    0x0001u
#define AUTH_F_NEWKEY    0x0002u

struct auth_key {
	uint8_t b[AUTH_KEY_BYTES];
};

enum auth_verdict {
	AUTH_OK = 0,
	AUTH_SHORT,             /* shorter than header + tag */
	AUTH_BAD_TAG,           /* no accepted key verifies it */
	AUTH_REPLAY,            /* its counter was accepted before */
	AUTH_TOO_OLD,           /* REPLAY_WINDOW or more behind the newest */
	AUTH_STALE_SESSION,     /* an earlier session than the current one */
	AUTH_MODE_MISMATCH,     /* encrypted here but not there, or back */
	AUTH_COUNTER_LIMIT,     /* counter at or past REPLAY_CTR_LIMIT */
	AUTH_VERDICT_MAX
};

extern const char *const auth_verdict_name[AUTH_VERDICT_MAX];

struct auth {
	struct auth_key cur;            /* accepted; sent with once tx_cur */
	struct auth_key prev;           /* accepted while has_prev */
	int has_prev;
	tstamp_ns prev_until_ns;        /* end of the grace period (monotonic) */
	int tx_cur;                     /* 0: a re-key is pending, send with prev */
	int encrypt;                    /* seal the inner packets (tunnel.encrypt) */

	uint8_t tx_nonce[24];           /* epoch | salt | counter of the next datagram */
	uint64_t tx_ctr;                /* next counter to send */

	int rx_any;                     /* a session is open */
	uint64_t rx_epoch_ns, rx_salt;  /* the peer's current session */
	struct replay_win win;

	/* counters, read into the statistics */
	uint64_t rx_sessions;           /* sessions opened (peer restarts + 1) */
	uint64_t rx_prev_key;           /* accepted under the previous key */
	uint64_t tx_switches;           /* re-keys completed on the send side */

	uint8_t scratch[AUTH_INNER_MAX_BYTES];  /* sealed inner, during a grace period */
};

/* A fresh state: key k, sealing if encrypt, this process's session
 * (epoch_ns, salt), counters at 0, no peer session yet.  0, or -1 when
 * libsodium cannot initialise (then nothing else here may be called). */
int auth_init(struct auth *a, const struct auth_key *k, int encrypt,
	      uint64_t epoch_ns, uint64_t salt);

/* A new key k at now, to be accepted at once beside the current one,
 * which stays accepted for grace_ns.  Sending stays on the old key (with
 * AUTH_F_NEWKEY set) until the first of: a datagram from the peer that
 * verifies under k; a datagram from the peer with AUTH_F_NEWKEY (it holds
 * a new key too, assumed k); the end of the grace period.  So the daemon
 * re-keyed second switches on the first datagram it gets, the first one
 * switches on the second's answer, and nothing sent is refused.  The same
 * key as the current one changes nothing.  Encryption stays as it is: the
 * two ends must agree on it at every moment, so changing it means
 * restarting both. */
void auth_rekey(struct auth *a, const struct auth_key *k, tstamp_ns now,
		tstamp_ns grace_ns);

/* Seals the datagram at dg: the caller wrote the 20 bytes of the v1
 * header (any version) and inner_bytes of inner packet at dg + 44, and
 * dg has room for AUTH_TAG_BYTES after it.  Sets version 2 and the flags,
 * writes epoch, salt and counter, encrypts when asked, appends the tag.
 * Returns the datagram's length, or 0 when the session's counters are
 * used up (REPLAY_CTR_LIMIT: the caller starts a new session, auth_init). */
size_t auth_seal(struct auth *a, uint8_t *dg, size_t inner_bytes, tstamp_ns now);

/* Opens a version 2 datagram of dg_bytes at dg in place: on AUTH_OK the
 * inner packet (decrypted) is at dg + AUTH_HDR_BYTES, dg_bytes -
 * AUTH_OVERHEAD_BYTES long.  On any other verdict a's state is as it was
 * (but for the end of a grace period, applied either way) and dg's inner
 * bytes are unspecified.  The caller has checked the v1 fields (magic,
 * version 2, class, length). */
enum auth_verdict auth_open(struct auth *a, uint8_t *dg, size_t dg_bytes,
			    tstamp_ns now);

/* Zeroes every byte of a (keys, scratch) in a way the compiler keeps. */
void auth_wipe(struct auth *a);

#define AUTH_KEY_B64_BYTES 45u          /* 44 base64 characters and a NUL */

/* The key file's text (len bytes, not NUL-terminated) into k: the
 * standard base64 of exactly 32 bytes, as `wg genkey` and `schedtun
 * genkey` write it, surrounding white space allowed.  0, or -1 with a
 * message in err saying what is wrong (never quoting the text: it may be
 * a real key with a typo). */
int auth_key_parse(const char *text, size_t len, struct auth_key *k,
		   char *err, size_t err_bytes);

/* k in standard base64 into out. */
void auth_key_format(const struct auth_key *k, char out[AUTH_KEY_B64_BYTES]);

/* Zeroes k in a way the compiler keeps. */
void auth_key_wipe(struct auth_key *k);

/* A random 64-bit value from the kernel's random source: a session's
 * salt, the flow hash's key (the loop draws them at start-up; nothing
 * below the loop draws randomness).  0, or -1 when libsodium cannot
 * initialise. */
int auth_salt_draw(uint64_t *salt);

#endif
