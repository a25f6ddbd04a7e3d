/* key.c - the tunnel key's text form: standard base64 of 32 bytes, one
 * line, as `wg genkey` writes it (contract in sec/auth.h).
 *
 * Error messages never quote the text: a key with a typo is still most
 * of a secret, and messages end up in journals.
 */
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>

#include "sec/auth.h"

int auth_key_parse(const char *text, size_t len, struct auth_key *k,
		   char *err, size_t err_bytes)
{
	size_t got = 0;
	const char *end = NULL;

	while (len > 0 && isspace((unsigned char)*text)) {
		text++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len != AUTH_KEY_B64_BYTES - 1) {
		snprintf(err, err_bytes, "%zu characters (accepted: %u characters of "
			 "base64, a 32-byte key as `schedtun genkey` writes it)",
			 len, AUTH_KEY_B64_BYTES - 1);
		return -1;
	}
	if (sodium_base642bin(k->b, sizeof(k->b), text, len, NULL, &got, &end,
			      sodium_base64_VARIANT_ORIGINAL) != 0 ||
	    got != AUTH_KEY_BYTES || end != text + len) {
		sodium_memzero(k, sizeof(*k));
		snprintf(err, err_bytes, "not base64 of 32 bytes (accepted: %u "
			 "characters of standard base64 ending in '=', as `schedtun "
			 "genkey` writes them)", AUTH_KEY_B64_BYTES - 1);
		return -1;
	}
	return 0;
}

void auth_key_format(const struct auth_key *k, char out[AUTH_KEY_B64_BYTES])
{
	sodium_bin2base64(out, AUTH_KEY_B64_BYTES, k->b, sizeof(k->b),
			  sodium_base64_VARIANT_ORIGINAL);
}

void auth_key_wipe(struct auth_key *k)
{
	sodium_memzero(k, sizeof(*k));
}

/* From the kernel's random source, as the keys: a salt that repeated
 * across two sessions of one key would need their epochs to repeat too,
 * so even a weak draw only weakens a second line of defence. */
int auth_salt_draw(uint64_t *salt)
{
	if (sodium_init() < 0)
		return -1;
	randombytes_buf(salt, sizeof(*salt));
	return 0;
}
