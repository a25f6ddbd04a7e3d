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

/* After the drop, key (user or group) is what it was at start-up: name,
 * or absence (name NULL), against running ("" when the daemon started
 * without it).  0 when the same; else reported, -1. */
static int frozen_only(struct diag *d, const config_setting_t *s,
		       const char *key, const char *name, const char *running)
{
	char was[CONF_NAME_MAX + 64];

	if (!strcmp(name ? name : "", running))
		return 0;
	if (running[0])
		snprintf(was, sizeof(was), "'%s', the running one", running);
	else
		snprintf(was, sizeof(was), "no tunnel.%s, as at start-up", key);
	if (name)
		cfg_report(d, s, NULL, "'%s': the daemon gave up the privileges to "
			   "change its %s at start-up (accepted: %s; restart the "
			   "daemon to change it)", name, key, was);
	else
		diag_error(d, 0, key[0] == 'u' ? "tunnel.user" : "tunnel.group",
			   "absent: the daemon gave up the privileges to change "
			   "its %s at start-up (accepted: %s; restart the daemon "
			   "to change it)", key, was);
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
		if (frozen_only(d, s, "user", name, frozen.user) < 0)
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
	 * gives one (conf_ids_check(), after the table), or it is refused. */
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

int conf_ids_check(const struct conf *c, const config_setting_t *tunnel,
		   struct diag *d)
{
	int user_key = tunnel && cfg_lookup(tunnel, "user");
	int group_key = tunnel && cfg_lookup(tunnel, "group");

	if (c->has_user && c->gid == UINT32_MAX) {
		diag_error(d, 0, "tunnel.user", "'%s' has no passwd entry, so no "
			   "group of its own (accepted: tunnel.group with it, or a "
			   "user of the passwd database)", c->user);
		return -1;
	}
	if (!frozen.on)
		return 0;
	/* a name that differs was reported by the parsers; absence here */
	if (!user_key)
		return frozen_only(d, NULL, "user", NULL, frozen.user);
	if (!group_key)
		return frozen_only(d, NULL, "group", NULL, frozen.group);
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
		if (frozen_only(d, s, "group", name, frozen.group) < 0)
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
	char desc[128];

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
	cfg_report(d, s, NULL, "%s is not a sandbox mode (accepted: true, "
		   "false, or \"log\" to log what the sandbox would refuse)",
		   cfg_describe(s, desc, sizeof(desc)));
	return -1;
}
