/* sandbox.h - the daemon's seccomp sandbox (tunnel.sandbox;
 * docs/security.md "Sandbox").
 *
 * Entered once, last in set-up (after the privilege drop), by the loop
 * and by the packet log's writer: from then on the kernel allows only
 * the system calls of that process's list (sandbox.c has both, each
 * call with the reason it is there); any other kills the process with
 * SIGSYS after one log line that names the call, so that an exploited
 * daemon cannot open a socket, run a program or trace another process. */
#ifndef SCHEDTUN_SANDBOX_H
#define SCHEDTUN_SANDBOX_H

#include <stddef.h>
#include "conf/conf.h"      /* CONF_SANDBOX_*: tunnel.sandbox's modes */

enum sandbox_list {
	SANDBOX_LOOP,           /* the daemon: forwarding, stats, SIGHUP, exit */
	SANDBOX_PLOG_WRITER,    /* the packet log's writer: a pipe to a file */
};

/* Loads the filter of `list` in `mode`, a CONF_SANDBOX_*: OFF does
 * nothing (tunnel.sandbox = false, to debug); ON (the default) refuses
 * a stray call: the SIGSYS handler logs it and the process dies; LOG
 * ("log") allows it and the kernel's audit logs it (type 1326), to find
 * what a list misses.  Sets
 * no_new_privs (which seccomp needs without CAP_SYS_ADMIN).  0, or -1
 * with err holding "sandbox: step: reason" (the caller must not go on
 * unsandboxed when the file asked for it). */
int sandbox_enter(enum sandbox_list list, int mode, char *err, size_t len);

#endif
