/* loop.h - the daemon's single-threaded libevent loop. */
#ifndef SCHEDTUN_LOOP_H
#define SCHEDTUN_LOOP_H

#include "conf/conf.h"

/* Opens the tun and the socket for *conf (taking ownership of it), runs
 * until SIGINT/SIGTERM and returns the exit code: 0 clean stop, 2 set-up
 * error (already logged with the OS error).  libevent's own messages go
 * through util/log.h ("libevent: ..."); a fatal libevent error is logged
 * and aborts the process. */
int loop_run(struct conf *conf);

#endif
