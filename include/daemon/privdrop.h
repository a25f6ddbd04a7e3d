/* privdrop.h - giving up root after set-up (tunnel.user, tunnel.group;
 * docs/security.md "Privilege drop").
 *
 * The loop calls priv_drop() once, after the tun, the socket, the stats
 * file, the real-time policy and the memory lock are in place; the
 * packet log's writer process calls it too, after opening its file.
 * What stays possible afterwards: reading and writing the descriptors
 * already open, and whatever the user itself may do (a SIGHUP reads the
 * configuration, its includes, traces and the key file, opens a new
 * stats file or PSS trace, lowers the real-time policy and locks new
 * memory); what needs privilege is refused with a reason. */
#ifndef SCHEDTUN_PRIVDROP_H
#define SCHEDTUN_PRIVDROP_H

#include <stddef.h>
#include <stdint.h>

struct priv_req {
	int      switch_user;   /* tunnel.user set: become uid:gid */
	uint32_t uid, gid;
	char     name[160];     /* "schedtun:schedtun" for messages */
};

/* With switch_user: drops the capability bounding set (while root still
 * may), sets the groups to {gid} alone, the real, effective and saved
 * gid and uid to gid and uid, in that order; without it (a daemon not
 * started as root, e.g. by the systemd unit with CAP_NET_ADMIN): keeps
 * its ids.  In both cases then clears the ambient, inheritable,
 * permitted and effective capabilities and sets no_new_privs, so that no
 * later execve() could gain any.  Verified afterwards, not assumed: the
 * ids read back, setuid(0) and setgid(0) must fail, and capget() must
 * show no capability.  A daemon started as root without tunnel.user
 * is left as it is (the caller does not call this).  0, or -1 with err
 * holding "privilege drop: step: OS error" (the process must not go
 * on: some of it may have been done). */
int priv_drop(const struct priv_req *r, char *err, size_t len);

/* "schedtun:schedtun" after a priv_drop() with switch_user in this
 * process, NULL before (for the hints of messages). */
const char *priv_dropped_as(void);

#endif
