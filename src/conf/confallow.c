/* confallow.c - tunnel.allow: the prefixes a receiver without tunnel.peer
 * may pin its peer from (docs/security.md).
 *
 * Without a peer, the first sender of a valid (with a key: authentic)
 * datagram becomes the peer; the list narrows who that may be, so that
 * a host outside it cannot capture an unkeyed tunnel by speaking first.
 * A prefix with host bits set is refused, as ip-route(8) refuses one: it
 * is a typo more often than a wish for the whole network.
 */
#include <arpa/inet.h>
#include <libconfig.h>
#include <stdio.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "conf/conf.h"
#include "confallow.h"

int conf_prefix_parse(const char *str, int host_bits, struct conf_prefix *p,
		      const char **why)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(str, '/');
	unsigned long len = 0;
	unsigned max, i;

	*why = "is not a prefix";
	if (!slash || (size_t)(slash - str) >= sizeof(host) || !slash[1])
		return -1;
	memcpy(host, str, (size_t)(slash - str));
	host[slash - str] = '\0';
	for (const char *q = slash + 1; *q; q++) {
		if (*q < '0' || *q > '9' || len > 1000)
			return -1;
		len = len * 10 + (unsigned long)(*q - '0');
	}
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, host, p->addr) == 1) {
		p->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, host, p->addr) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		return -1;
	}
	if (len > max)
		return -1;
	p->len = (uint8_t)len;
	for (i = p->len; !host_bits && i < max; i++)
		if (p->addr[i / 8] & (0x80u >> (i % 8))) {
			*why = "has host bits set";
			return -1;
		}
	return 0;
}

static int allow_one(const config_setting_t *e, struct conf *c, struct diag *d)
{
	char buf[256], vb[128];
	const char *why;

	if (config_setting_type(e) != CONFIG_TYPE_STRING) {
		cfg_report(d, e, NULL, "%s is not a prefix (accepted: \"A.B.C.D/0..32\" "
			   "or \"IPv6/0..128\", a string)", cfg_describe(e, vb, sizeof(vb)));
		return -1;
	}
	if (cfg_get_string(e, buf, sizeof(buf), d) < 0)
		return -1;
	if (c->n_allow >= CONF_ALLOW_MAX) {
		cfg_report(d, e, NULL, "'%s': more than %d prefixes (accepted: at "
			   "most %d)", buf, CONF_ALLOW_MAX, CONF_ALLOW_MAX);
		return -1;
	}
	if (conf_prefix_parse(buf, 0, &c->allow[c->n_allow], &why) < 0) {
		cfg_report(d, e, NULL, "'%s' %s (accepted: a network prefix, "
			   "A.B.C.D/0..32 or IPv6/0..128, zero after its length)",
			   buf, why);
		return -1;
	}
	c->n_allow++;
	return 1;
}

int conf_tunnel_allow(const struct config_setting_t *s, void *params,
		      struct diag *d)
{
	struct conf *c = params;
	int i, n, bad = 0;

	c->n_allow = 0;
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return allow_one(s, c, d);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(s) != CONFIG_TYPE_LIST) {
		char vb[128];

		cfg_report(d, s, NULL, "%s is not a list of prefixes (accepted: "
			   "[\"A.B.C.D/N\", \"IPv6/N\", ...], 1..%d of them)",
			   cfg_describe(s, vb, sizeof(vb)), CONF_ALLOW_MAX);
		return -1;
	}
	n = config_setting_length(s);
	if (n == 0) {
		cfg_report(d, s, NULL, "an empty list (accepted: 1..%d prefixes; "
			   "leave allow out to accept any sender)", CONF_ALLOW_MAX);
		return -1;
	}
	for (i = 0; i < n; i++)
		bad |= allow_one(config_setting_get_elem(s, i), c, d) < 0;
	return bad ? -1 : 1;
}

/* Whether the first p->len bits of a equal p's. */
static int in_prefix(const struct conf_prefix *p, const uint8_t *a)
{
	unsigned whole = p->len / 8, rest = p->len % 8;

	if (memcmp(a, p->addr, whole))
		return 0;
	return !rest || !((a[whole] ^ p->addr[whole]) & (0xffu << (8 - rest)));
}

int conf_allows(const struct conf *c, const struct sockaddr *sa, socklen_t len)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const uint8_t *a;
	int family;
	uint32_t i;

	if (!c->n_allow)
		return 1;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		family = AF_INET;
		a = (const uint8_t *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		family = AF_INET6;
		if (!memcmp(a, v4mapped, sizeof(v4mapped))) {
			family = AF_INET;
			a += sizeof(v4mapped);
		}
	} else {
		return 0;
	}
	for (i = 0; i < c->n_allow; i++)
		if (c->allow[i].family == family && in_prefix(&c->allow[i], a))
			return 1;
	return 0;
}
