/* privdrop.c - giving up root after set-up (privdrop.h).
 *
 * The order is OpenSSH's permanently_set_uid() and OpenBSD's daemons':
 * groups first (setgroups() needs CAP_SETGID, gone with the uid), then
 * the gid, then the uid; with setres*id() so that no saved id is left to
 * return to.  The bounding set is dropped before the uid changes, since
 * PR_CAPBSET_DROP needs CAP_SETPCAP.  Capabilities are cleared with the
 * capset() system call (the kernel's own interface; libcap would add a
 * dependency for two calls).  Then every step is checked from the
 * outside: a drop that silently did less than it says is worse than
 * none, so the process refuses to go on (Linux's setuid() could fail
 * with EAGAIN on RLIMIT_NPROC before 3.1, the bug class CVE-2006-2607
 * and friends came from).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "daemon/privdrop.h"

/* Capabilities Linux numbers up to; PR_CAPBSET_DROP says EINVAL past the
 * kernel's last one, which ends the loop. */
#define CAP_NUMBERS_MAX 64

static char dropped_as[sizeof(((struct priv_req *)0)->name)];

const char *priv_dropped_as(void)
{
	return dropped_as[0] ? dropped_as : NULL;
}

static int fail(char *err, size_t len, const char *step)
{
	snprintf(err, len, "privilege drop: %s: %s", step, strerror(errno));
	return -1;
}

static int cap_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	memset(d, 0, 2 * sizeof(*d));
	return (int)syscall(SYS_capget, &h, d);
}

static int cap_clear(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

static int drop_bounding_set(void)
{
	for (int cap = 0; cap < CAP_NUMBERS_MAX; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return errno == EINVAL ? 0 : -1;
	return 0;
}

static int switch_ids(const struct priv_req *r, char *err, size_t len)
{
	gid_t g = (gid_t)r->gid;

	if (drop_bounding_set() < 0)
		return fail(err, len, "prctl(PR_CAPBSET_DROP)");
	if (setgroups(1, &g) < 0)
		return fail(err, len, "setgroups");
	if (setresgid(g, g, g) < 0)
		return fail(err, len, "setresgid");
	if (setresuid((uid_t)r->uid, (uid_t)r->uid, (uid_t)r->uid) < 0)
		return fail(err, len, "setresuid");
	return 0;
}

/* What the kernel says now, against what was asked. */
static int verify(const struct priv_req *r, char *err, size_t len)
{
	struct __user_cap_data_struct d[2];
	uid_t ru, eu, su;
	gid_t rg, eg, sg, groups[2];
	int n;

	if (r->switch_user) {
		if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
			return fail(err, len, "getresuid");
		if (ru != r->uid || eu != r->uid || su != r->uid ||
		    rg != r->gid || eg != r->gid || sg != r->gid) {
			snprintf(err, len, "privilege drop: ids are %u/%u/%u:%u/%u/%u, "
				 "not %u:%u", ru, eu, su, rg, eg, sg, r->uid, r->gid);
			return -1;
		}
		n = getgroups(2, groups);
		if (n != 1 || groups[0] != r->gid) {
			snprintf(err, len, "privilege drop: supplementary groups "
				 "are not {%u} alone", r->gid);
			return -1;
		}
		if (setuid(0) == 0 || setgid(0) == 0) {
			snprintf(err, len, "privilege drop: root could be regained");
			return -1;
		}
	}
	if (cap_get(d) < 0)
		return fail(err, len, "capget");
	if (d[0].effective | d[0].permitted | d[0].inheritable |
	    d[1].effective | d[1].permitted | d[1].inheritable) {
		snprintf(err, len, "privilege drop: capabilities left "
			 "(permitted %08x%08x)", d[1].permitted, d[0].permitted);
		return -1;
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		snprintf(err, len, "privilege drop: no_new_privs is not set");
		return -1;
	}
	return 0;
}

int priv_drop(const struct priv_req *r, char *err, size_t len)
{
	if (r->switch_user && switch_ids(r, err, len) < 0)
		return -1;
	/* EINVAL: a kernel before 4.3 has no ambient set to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return fail(err, len, "prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
	if (cap_clear() < 0)
		return fail(err, len, "capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, len, "prctl(PR_SET_NO_NEW_PRIVS)");
	if (verify(r, err, len) < 0)
		return -1;
	if (r->switch_user)
		snprintf(dropped_as, sizeof(dropped_as), "%s", r->name);
	return 0;
}
