/* plogwriter.h - the per-packet log's destination: a writer process.
 *
 * A write(2) to a regular file blocks (O_NONBLOCK means nothing to a disk),
 * and the daemon's single thread must never wait for a disk.  So the
 * daemon forks, before anything else is opened, a writer process that
 * reads the log's lines from a pipe and writes them to the file with
 * blocking writes; the daemon's side of the pipe is non-blocking (plog.h
 * keeps what the pipe does not take, and refuses records when its buffer
 * is full: counted, never waited for).
 *
 * A failing disk (ENOSPC, EIO) is the writer's to handle: it cuts the file
 * back to its last whole line (a reader never meets half a record), counts
 * the records it could not write, says so once per episode on stderr, and
 * sends the count to the daemon on a second pipe; the daemon adds it to
 * the stats line's log.lost.  The writer ignores SIGINT, SIGTERM and
 * SIGHUP (a terminal's ^C reaches the whole process group) and ends when
 * the daemon closes the pipe, after writing everything it was given.
 */
#ifndef SCHEDTUN_PLOGWRITER_H
#define SCHEDTUN_PLOGWRITER_H

#include <stdint.h>
#include <sys/types.h>
#include "plog/plog.h"

#define PLOGW_BUF_BYTES  (256u * 1024)  /* the daemon's record buffer */
#define PLOGW_PIPE_BYTES (1u << 20)     /* asked of F_SETPIPE_SZ */

struct plogw {
	pid_t       pid;                /* the writer, 0: none */
	int         fd;                 /* the pipe's write end, non-blocking */
	int         status_fd;          /* reports from the writer, non-blocking */
	uint64_t    lost_seen;          /* the writer's count at the last poll */
	struct plog log;
	char        path[512];
};

struct priv_req;

/* Opens path (created 0644, truncated), the pipes, forks the writer and
 * sets up the record buffer.  With drop, the writer gives up its
 * privileges (priv_drop()); then it enters its sandbox in sandbox_mode
 * (a CONF_SANDBOX_*); both before it reads a record.  A writer that
 * cannot exits at once, and its records are counted lost.  0, or -1 with
 * a message in err ("packet log PATH: Permission denied"). */
int  plogw_start(struct plogw *w, const char *path, const struct priv_req *drop,
		 int sandbox_mode, char *err, size_t errlen);

/* Records the writer has lost since the previous call (non-blocking). */
uint64_t plogw_poll(struct plogw *w);

/* Hands everything buffered to the writer (now blocking: nothing is being
 * forwarded any more), closes the pipe and waits up to timeout_ms for the
 * writer to finish.  Adds the writer's last count of lost records to
 * *lost.  Safe on a writer that was never started. */
void plogw_stop(struct plogw *w, unsigned timeout_ms, uint64_t *lost);

/* The writer's loop (exposed for the tests): copies whole lines from in_fd
 * to out_fd until EOF; returns the records it could not write (the first
 * line, the header, is not counted) and sends each new count to status_fd
 * (-1: none). */
uint64_t plogw_copy(int in_fd, int out_fd, int status_fd, const char *path);

#endif
