/* confkey.h - internal to src/conf: tunnel.key_file, and the path of a
 * file named relative to the configuration (confkey.c). */
#ifndef SCHEDTUN_CONFKEY_H
#define SCHEDTUN_CONFKEY_H

#include <stddef.h>

struct conf;
struct config_setting_t;
struct diag;

/* file relative to the directory of c->path (the configuration file's),
 * an absolute one as it is, into out: link.profile files and the key
 * file.  0, or -1 when it does not fit in len bytes. */
int conf_resolve_path(const struct conf *c, const char *file, char *out,
		      size_t len);

/* tunnel.key_file: reads and checks the key file (relative to the
 * configuration file's directory) into params' (a struct conf) key.  1
 * valid, -1 reported (the key never quoted). */
int conf_tunnel_key_file(const struct config_setting_t *s, void *params,
			 struct diag *d);

#endif
