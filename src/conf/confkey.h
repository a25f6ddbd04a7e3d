/* confkey.h - internal to src/conf: tunnel.key_file (confkey.c). */
#ifndef SCHEDTUN_CONFKEY_H
#define SCHEDTUN_CONFKEY_H

struct config_setting_t;
struct diag;

/* tunnel.key_file: reads and checks the key file (relative to the
 * configuration file's directory) into params' (a struct conf) key.  1
 * valid, -1 reported (the key never quoted). */
int conf_tunnel_key_file(const struct config_setting_t *s, void *params,
			 struct diag *d);

#endif
