/* confuser.h - internal to src/conf: tunnel.user and tunnel.group
 * (confuser.c). */
#ifndef SCHEDTUN_CONFUSER_H
#define SCHEDTUN_CONFUSER_H

struct config_setting_t;
struct diag;

/* tunnel.user: a user name or a numeric uid, other than root's, into
 * params' (a struct conf) user, uid and gid (the user's primary group).
 * 1 valid, -1 reported. */
int conf_tunnel_user(const struct config_setting_t *s, void *params,
		     struct diag *d);

/* tunnel.group: a group name or a numeric gid, other than root's, into
 * params' group and gid.  1 valid, -1 reported. */
int conf_tunnel_group(const struct config_setting_t *s, void *params,
		      struct diag *d);

/* tunnel.sandbox: true, false or "log" into params' sandbox
 * (CONF_SANDBOX_*).  1 valid, -1 reported. */
int conf_tunnel_sandbox(const struct config_setting_t *s, void *params,
			struct diag *d);

/* After the tunnel table: a tunnel.user without a passwd entry needs
 * tunnel.group; and after conf_ids_freeze(), a tunnel.user or
 * tunnel.group the running daemon has and the file (its group tunnel,
 * may be NULL) leaves out is reported (one that differs already was,
 * by the parsers above).  0, or -1 reported. */
struct conf;
int conf_ids_check(const struct conf *c, const struct config_setting_t *tunnel,
		   struct diag *d);

#endif
