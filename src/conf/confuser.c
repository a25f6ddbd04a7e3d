/* confuser.c - tunnel.user and tunnel.group: whom the daemon becomes
 * after set-up (src/daemon/privdrop.c, docs/security.md); and
 * tunnel.sandbox, what it may do then (src/daemon/sandbox.c).
 *
 * The names are resolved at load, so that --check (as any user) says
 * "no such user" before a start does.  After the drop they are not
 * resolved again (conf_ids_freeze()): the name service may read files
 * the daemon can no longer open, load modules or connect to a daemon,
 * none of which a sandbox would allow; and changing the user needs the
 * privileges the daemon gave up.  So a reload that names the running
 * user and group gets their ids from the freeze, and one that names
 * others is refused with the reason.
 */
#include <errno.h>
#include <grp.h>
#include <libconfig.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "conf/conf.h"
#include "confuser.h"

/* getpwnam_r()'s and getgrnam_r()'s buffer: a passwd or group entry's
 * strings; a group with thousands of members may need more (ERANGE is
 * reported, not truncated). */
#define NSS_BUF_BYTES 16384

static struct {
	int      on;
	char     user[CONF_NAME_MAX], group[CONF_NAME_MAX];
	uint32_t uid, user_gid, gid;
} frozen;

void conf_ids_freeze(const struct conf *c)
{
	frozen.on = 1;
	snprintf(frozen.user, sizeof(frozen.user), "%s", c->user);
	snprintf(frozen.group, sizeof(frozen.group), "%s", c->group);
	frozen.uid = c->uid;
	frozen.user_gid = c->user_gid;
	frozen.gid = c->gid;
}

/* "123" -> 123; -1 for anything but 1..10 decimal digits below 2^32 - 1
 * ((uid_t)-1 means "unchanged" to setresuid()). */
static long long numeric_id(const char *s)
{
	char *end;
	unsigned long long v;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || v >= 0xffffffffULL ? -1 : (long long)v;
}

static int get_name(const config_setting_t *s, char *out, struct diag *d)
{
	if (cfg_get_string(s, out, CONF_NAME_MAX, d) < 0)
		return -1;
	if (!out[0]) {
		cfg_report(d, s, NULL, "empty (accepted: a name or a numeric id)");
		return -1;
	}
	return 0;
}

/* A reload after the drop: only the running name is known. */
static int frozen_only(const config_setting_t *s, const char *key,
		       const char *name, const char *running, struct diag *d)
{
	if (!strcmp(name, running))
		return 0;
	cfg_report(d, s, NULL, "'%s': the daemon gave up the privileges to "
		   "change its %s at start-up (accepted: '%s', the running one; "
		   "restart the daemon to change it)", name, key,
		   running[0] ? running : "the user's own group");
	return -1;
}

int conf_tunnel_user(const config_setting_t *s, void *params, struct diag *d)
{
	struct conf *c = params;
	char name[CONF_NAME_MAX], buf[NSS_BUF_BYTES];
	struct passwd pw, *res = NULL;
	long long num;
	int e;

	if (get_name(s, name, d) < 0)
		return -1;
	if (frozen.on) {
		if (frozen_only(s, "user", name, frozen.user, d) < 0)
			return -1;
		c->uid = frozen.uid;
		c->user_gid = frozen.user_gid;
		c->gid = frozen.user_gid;
		goto done;
	}
	e = getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	num = numeric_id(name);
	if (!res && !e && num >= 0)
		e = getpwuid_r((uid_t)num, &pw, buf, sizeof(buf), &res);
	if (e) {
		cfg_report(d, s, NULL, "'%s': cannot look it up: %s (accepted: a "
			   "user name or a numeric uid)", name, strerror(e));
		return -1;
	}
	if (!res && num < 0) {
		cfg_report(d, s, NULL, "'%s': no such user (accepted: a user name "
			   "or a numeric uid, other than root's; e.g. adduser "
			   "--system --group schedtun)", name);
		return -1;
	}
	c->uid = res ? (uint32_t)res->pw_uid : (uint32_t)num;
	/* A uid without a passwd entry has no group of its own: tunnel.group
	 * gives one (checked after the table, conf.c), or it is refused. */
	c->user_gid = res ? (uint32_t)res->pw_gid : UINT32_MAX;
	c->gid = c->user_gid;
	if (c->uid == 0) {
		cfg_report(d, s, NULL, "'%s' is uid 0: the daemon would keep "
			   "root (accepted: an unprivileged user, e.g. a system "
			   "user of its own: adduser --system --group schedtun)",
			   name);
		return -1;
	}
done:
	snprintf(c->user, sizeof(c->user), "%s", name);
	c->has_user = 1;
	return 1;
}

int conf_ids_frozen_check(const struct conf *c, int user_key, int group_key,
			  struct diag *d)
{
	if (!frozen.on)
		return 0;
	if (!user_key && frozen.user[0]) {
		diag_error(d, 0, "tunnel.user", "absent: the daemon gave up the "
			   "privileges to change its user at start-up (accepted: "
			   "'%s', the running one; restart the daemon to change it)",
			   frozen.user);
		return -1;
	}
	if (user_key && !group_key && frozen.group[0]) {
		diag_error(d, 0, "tunnel.group", "absent: the daemon gave up the "
			   "privileges to change its group at start-up (accepted: "
			   "'%s', the running one; restart the daemon to change it)",
			   frozen.group);
		return -1;
	}
	(void)c;
	return 0;
}

int conf_tunnel_group(const config_setting_t *s, void *params, struct diag *d)
{
	struct conf *c = params;
	char name[CONF_NAME_MAX], buf[NSS_BUF_BYTES];
	struct group gr, *res = NULL;
	long long num;
	int e;

	if (get_name(s, name, d) < 0)
		return -1;
	if (frozen.on) {
		if (frozen_only(s, "group", name, frozen.group, d) < 0)
			return -1;
		c->gid = frozen.gid;
		goto done;
	}
	e = getgrnam_r(name, &gr, buf, sizeof(buf), &res);
	num = numeric_id(name);
	if (!res && !e && num >= 0)
		e = getgrgid_r((gid_t)num, &gr, buf, sizeof(buf), &res);
	if (e) {
		cfg_report(d, s, NULL, "'%s': cannot look it up: %s (accepted: a "
			   "group name or a numeric gid)", name, strerror(e));
		return -1;
	}
	if (!res && num < 0) {
		cfg_report(d, s, NULL, "'%s': no such group (accepted: a group "
			   "name or a numeric gid, other than root's)", name);
		return -1;
	}
	c->gid = res ? (uint32_t)res->gr_gid : (uint32_t)num;
	if (c->gid == 0) {
		cfg_report(d, s, NULL, "'%s' is gid 0: root's group can read "
			   "and write what root's group owns (accepted: another "
			   "group, e.g. the user's own: leave tunnel.group out)",
			   name);
		return -1;
	}
done:
	snprintf(c->group, sizeof(c->group), "%s", name);
	return 1;
}

int conf_tunnel_sandbox(const config_setting_t *s, void *params, struct diag *d)
{
	struct conf *c = params;
	const char *v;

	if (config_setting_type(s) == CONFIG_TYPE_BOOL) {
		c->sandbox = config_setting_get_bool(s) ? CONF_SANDBOX_ON
							: CONF_SANDBOX_OFF;
		return 1;
	}
	v = config_setting_type(s) == CONFIG_TYPE_STRING ?
	    config_setting_get_string(s) : NULL;
	if (v && !strcmp(v, "log")) {
		c->sandbox = CONF_SANDBOX_LOG;
		return 1;
	}
	cfg_report(d, s, NULL, "%s%s%s is not a sandbox mode (accepted: true, "
		   "false, or \"log\" to log what the sandbox would refuse)",
		   v ? "'" : "", v ? v : "the value", v ? "'" : "");
	return -1;
}
