/* auth.c - authenticated tunnel datagrams (contract and wire format in
 * sec/auth.h).
 *
 * libsodium's XChaCha20-Poly1305 (IETF) does all the cryptography: its
 * 24-byte nonce holds epoch, salt and counter whole, so nonces never
 * repeat under one key without any state kept across restarts.  Without
 * encryption the AEAD seals an empty message with the whole datagram as
 * associated data: a Poly1305 MAC under a one-time key.
 *
 * Order of the receive checks, cheapest first, so that garbage costs at
 * most one MAC: length, session (a stale epoch needs no MAC), window
 * (a duplicate needs no MAC), mode, then the tag; state changes only
 * after the tag verified.  During a re-key's grace period an encrypted
 * datagram that fails under the current key is tried under the previous
 * one: decryption then goes through `scratch`, because a failed in-place
 * attempt would leave the ciphertext zeroed.
 */
#include <sodium.h>
#include <string.h>

#include "sec/auth.h"
#include "util/bytes.h"

#define OFF_FLAGS   6u
#define OFF_EPOCH  20u
#define OFF_SALT   28u
#define OFF_CTR    36u

const char *const auth_verdict_name[AUTH_VERDICT_MAX] = {
	[AUTH_OK]            = "ok",
	[AUTH_SHORT]         = "short",
	[AUTH_BAD_TAG]       = "bad_auth",
	[AUTH_REPLAY]        = "replay",
	[AUTH_TOO_OLD]       = "too_old",
	[AUTH_STALE_SESSION] = "stale_session",
	[AUTH_MODE_MISMATCH] = "mode_mismatch",
	[AUTH_COUNTER_LIMIT] = "counter_limit",
};

int auth_init(struct auth *a, const struct auth_key *k, int encrypt,
	      uint64_t epoch_ns, uint64_t salt)
{
	/* picks the fastest implementations for this CPU; idempotent */
	if (sodium_init() < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	a->cur = *k;
	a->tx_cur = 1;
	a->encrypt = !!encrypt;
	be64_put(a->tx_nonce, epoch_ns);
	be64_put(a->tx_nonce + 8, salt);
	replay_init(&a->win);
	return 0;
}

/* The grace period is over: the previous key is forgotten. */
static void expire_prev(struct auth *a, tstamp_ns now)
{
	if (a->has_prev && now >= a->prev_until_ns) {
		sodium_memzero(&a->prev, sizeof(a->prev));
		a->has_prev = 0;
		if (!a->tx_cur) {
			a->tx_cur = 1;
			a->tx_switches++;
		}
	}
}

void auth_rekey(struct auth *a, const struct auth_key *k, tstamp_ns now,
		tstamp_ns grace_ns)
{
	if (sodium_memcmp(k->b, a->cur.b, AUTH_KEY_BYTES) == 0)
		return;
	/* A re-key inside a grace period: the key still sent with stays
	 * the previous one, so the peer keeps verifying what we send. */
	if (a->tx_cur || !a->has_prev)
		a->prev = a->cur;
	a->cur = *k;
	a->has_prev = 1;
	a->prev_until_ns = now + grace_ns;
	a->tx_cur = 0;
	expire_prev(a, now);        /* grace 0: switch at once */
}

size_t auth_seal(struct auth *a, uint8_t *dg, size_t inner_bytes, tstamp_ns now)
{
	const struct auth_key *k;
	uint16_t flags;
	uint8_t *inner = dg + AUTH_HDR_BYTES;

	if (a->tx_ctr >= REPLAY_CTR_LIMIT)
		return 0;
	expire_prev(a, now);
	k = a->tx_cur ? &a->cur : &a->prev;
	flags = be16_get(dg + OFF_FLAGS) & (uint16_t)~(AUTH_F_SEALED | AUTH_F_NEWKEY);
	if (a->encrypt)
		flags |= AUTH_F_SEALED;
	if (!a->tx_cur)
		flags |= AUTH_F_NEWKEY;
	dg[2] = AUTH_VERSION;
	be16_put(dg + OFF_FLAGS, flags);
	be64_put(a->tx_nonce + 16, a->tx_ctr++);
	memcpy(dg + OFF_EPOCH, a->tx_nonce, sizeof(a->tx_nonce));
	if (a->encrypt)
		crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
			inner, inner + inner_bytes, NULL, inner, inner_bytes,
			dg, AUTH_HDR_BYTES, NULL, a->tx_nonce, k->b);
	else    /* an empty message: c and m are never read or written */
		crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
			inner, inner + inner_bytes, NULL, inner, 0,
			dg, AUTH_HDR_BYTES + inner_bytes, NULL, a->tx_nonce, k->b);
	return AUTH_HDR_BYTES + inner_bytes + AUTH_TAG_BYTES;
}

/* Verifies (and, sealed, decrypts in place) under key k; 0 when it holds.
 * in_place: a failure may zero the inner bytes (only with the last key
 * that will be tried). */
static int open_with(struct auth *a, uint8_t *dg, size_t inner_bytes, int sealed,
		     const struct auth_key *k, int in_place)
{
	uint8_t *inner = dg + AUTH_HDR_BYTES;
	const uint8_t *tag = inner + inner_bytes;
	const uint8_t *nonce = dg + OFF_EPOCH;

	if (!sealed)    /* the tag of an empty message over all the bytes */
		return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
			NULL, NULL, inner, 0, tag, dg, AUTH_HDR_BYTES + inner_bytes,
			nonce, k->b);
	if (in_place)
		return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
			inner, NULL, inner, inner_bytes, tag, dg, AUTH_HDR_BYTES,
			nonce, k->b);
	if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
		    a->scratch, NULL, inner, inner_bytes, tag, dg, AUTH_HDR_BYTES,
		    nonce, k->b) != 0)
		return -1;
	memcpy(inner, a->scratch, inner_bytes);
	return 0;
}

enum auth_verdict auth_open(struct auth *a, uint8_t *dg, size_t dg_bytes,
			    tstamp_ns now)
{
	uint64_t epoch, salt, ctr;
	uint16_t flags;
	size_t inner_bytes;
	int sealed, same_session, by_prev = 0;
	enum replay_verdict rv = REPLAY_OK;

	if (dg_bytes < AUTH_OVERHEAD_BYTES)
		return AUTH_SHORT;
	inner_bytes = dg_bytes - AUTH_OVERHEAD_BYTES;
	if (inner_bytes > sizeof(a->scratch))
		return AUTH_SHORT;      /* cannot be ours: no inner packet is this long */
	expire_prev(a, now);
	flags = be16_get(dg + OFF_FLAGS);
	epoch = be64_get(dg + OFF_EPOCH);
	salt = be64_get(dg + OFF_SALT);
	ctr = be64_get(dg + OFF_CTR);
	same_session = a->rx_any && epoch == a->rx_epoch_ns && salt == a->rx_salt;
	if (a->rx_any && !same_session && epoch <= a->rx_epoch_ns)
		return AUTH_STALE_SESSION;
	if (same_session)
		rv = replay_check(&a->win, ctr);
	else if (ctr >= REPLAY_CTR_LIMIT)
		rv = REPLAY_LIMIT;
	if (rv != REPLAY_OK)
		return rv == REPLAY_DUPLICATE ? AUTH_REPLAY :
		       rv == REPLAY_TOO_OLD ? AUTH_TOO_OLD : AUTH_COUNTER_LIMIT;
	sealed = !!(flags & AUTH_F_SEALED);
	if (sealed != a->encrypt)
		return AUTH_MODE_MISMATCH;
	if (open_with(a, dg, inner_bytes, sealed, &a->cur, !a->has_prev) != 0) {
		if (!a->has_prev ||
		    open_with(a, dg, inner_bytes, sealed, &a->prev, 1) != 0)
			return AUTH_BAD_TAG;
		by_prev = 1;
	}
	/* authentic from here on */
	if (!same_session) {
		a->rx_any = 1;
		a->rx_epoch_ns = epoch;
		a->rx_salt = salt;
		replay_init(&a->win);
		a->rx_sessions++;
	}
	replay_commit(&a->win, ctr);
	if (by_prev)
		a->rx_prev_key++;
	/* The peer sends with our new key, or announces a new key of its
	 * own: it accepts the new key, so send with it. */
	if (!a->tx_cur && (!by_prev || (flags & AUTH_F_NEWKEY))) {
		a->tx_cur = 1;
		a->tx_switches++;
	}
	return AUTH_OK;
}

void auth_wipe(struct auth *a)
{
	sodium_memzero(a, sizeof(*a));
}
