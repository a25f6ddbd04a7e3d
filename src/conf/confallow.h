/* confallow.h - internal to src/conf: tunnel.allow (confallow.c). */
#ifndef SCHEDTUN_CONFALLOW_H
#define SCHEDTUN_CONFALLOW_H

struct config_setting_t;
struct conf_prefix;
struct diag;

/* "A.B.C.D/N" or "IPv6/N" into *p (the address as written; with
 * host_bits 0, one with bits set after its length is refused).  0, or
 * -1 with the reason in *why ("is not a prefix", "has host bits set"). */
int conf_prefix_parse(const char *str, int host_bits, struct conf_prefix *p,
		      const char **why);

/* tunnel.allow: one prefix (a string) or a list of 1..CONF_ALLOW_MAX
 * into params' (a struct conf) allow[].  1 valid, -1 reported (each bad
 * element at its own line). */
int conf_tunnel_allow(const struct config_setting_t *s, void *params,
		      struct diag *d);

#endif
