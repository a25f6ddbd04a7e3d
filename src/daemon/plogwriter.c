/* plogwriter.c - the per-packet log's writer process (plogwriter.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "daemon/plogwriter.h"
#include "daemon/privdrop.h"
#include "daemon/sandbox.h"
#include "util/log.h"

#define COPY_BUF_BYTES 65536

static uint64_t lines_in(const char *b, size_t n)
{
	uint64_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += b[i] == '\n';
	return k;
}

/* Writes all of b, or returns -errno with *done the bytes written. */
static int write_all(int fd, const char *b, size_t n, size_t *done)
{
	*done = 0;
	while (*done < n) {
		ssize_t k = write(fd, b + *done, n - *done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -ENOSPC;
		*done += (size_t)k;
	}
	return 0;
}

static void report(int status_fd, uint64_t lost)
{
	/* Non-blocking and 8 bytes (atomic in a pipe): a full status pipe
	 * loses a report, and the next one carries the whole count. */
	if (status_fd >= 0 && write(status_fd, &lost, sizeof(lost)) < 0)
		return;
}

uint64_t plogw_copy(int in_fd, int out_fd, int status_fd, const char *path)
{
	static char buf[COPY_BUF_BYTES];
	size_t have = 0, whole, done;
	off_t good = lseek(out_fd, 0, SEEK_CUR);  /* end of the last whole line */
	uint64_t lost = 0, k;
	int failing = 0, header = 1, err;  /* the first line is no record */

	for (;;) {
		ssize_t n = read(in_fd, buf + have, sizeof(buf) - have);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		nl = memrchr(buf, '\n', have);
		if (!nl) {
			if (have == sizeof(buf)) {      /* no line is this long */
				lost++;
				have = 0;
				report(status_fd, lost);
			}
			continue;
		}
		whole = (size_t)(nl - buf) + 1;
		err = write_all(out_fd, buf, whole, &done);
		if (err) {
			/* Cut back to the last whole line so that the file
			 * stays a valid CSV (not possible on a pipe or a
			 * device: then only the count tells). */
			if (good >= 0 && ftruncate(out_fd, good) == 0)
				lseek(out_fd, good, SEEK_SET);
			else
				good = -1;      /* no longer known: stop cutting */
			k = lines_in(buf, whole);
			lost += k - (k && header);
			report(status_fd, lost);
			if (!failing)
				log_warn("packet log %s: %s; records are lost until it "
					 "can be written again, counted in log.lost",
					 path, strerror(-err));
			failing = 1;
		} else {
			if (good >= 0)
				good += (off_t)whole;
			if (failing)
				log_info("packet log %s: written again (%llu records "
					 "lost so far)", path, (unsigned long long)lost);
			failing = 0;
		}
		header = 0;
		memmove(buf, buf + whole, have - whole);
		have -= whole;
	}
	if (have) {     /* the daemon died inside a record */
		lost++;
		report(status_fd, lost);
	}
	return lost;
}

static ssize_t pipe_write(void *ctx, const void *buf, size_t len)
{
	ssize_t n = write(*(int *)ctx, buf, len);

	return n < 0 ? -errno : n;
}

static void writer_main(int in_fd, int out_fd, int status_fd, const char *path,
			const struct priv_req *drop, int sandbox_mode)
{
	char err[256];

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "schedtun-plog", 0, 0, 0);
	if ((drop && priv_drop(drop, err, sizeof(err)) < 0) ||
	    sandbox_enter(SANDBOX_PLOG_WRITER, sandbox_mode, err, sizeof(err)) < 0) {
		log_err("packet log writer: %s", err);
		_exit(2);
	}
	plogw_copy(in_fd, out_fd, status_fd, path);
	if (close(out_fd) < 0)
		log_warn("packet log %s: close: %s", path, strerror(errno));
	_exit(0);
}

int plogw_start(struct plogw *w, const char *path, const struct priv_req *drop,
		int sandbox_mode, char *err, size_t errlen)
{
	int data[2], status[2], out;

	memset(w, 0, sizeof(*w));
	w->fd = w->status_fd = -1;
	snprintf(w->path, sizeof(w->path), "%s", path);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		snprintf(err, errlen, "packet log %s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe2(data, O_CLOEXEC) || pipe2(status, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, errlen, "packet log %s: pipe: %s", path, strerror(errno));
		close(out);
		return -1;
	}
	/* Room for a second or more of records at gigabit rates; a smaller
	 * pipe (pipe-max-size) only makes the daemon's buffer fill sooner. */
	if (fcntl(data[1], F_SETPIPE_SZ, (int)PLOGW_PIPE_BYTES) < 0)
		log_debug("packet log: F_SETPIPE_SZ %u: %s", PLOGW_PIPE_BYTES,
			  strerror(errno));
	fflush(NULL);   /* nothing buffered may be written twice */
	w->pid = fork();
	if (w->pid < 0) {
		snprintf(err, errlen, "packet log %s: fork: %s", path, strerror(errno));
		w->pid = 0;
		close(out);
		close(data[0]); close(data[1]); close(status[0]); close(status[1]);
		return -1;
	}
	if (w->pid == 0) {
		close(data[1]);
		close(status[0]);
		writer_main(data[0], out, status[1], path, drop, sandbox_mode);
	}
	close(out);
	close(data[0]);
	close(status[1]);
	w->fd = data[1];
	w->status_fd = status[0];
	if (fcntl(w->fd, F_SETFL, O_NONBLOCK) < 0 ||
	    plog_init(&w->log, PLOGW_BUF_BYTES, pipe_write, &w->fd)) {
		snprintf(err, errlen, "packet log %s: %s", path, strerror(errno));
		plogw_stop(w, 1000, NULL);
		return -1;
	}
	return 0;
}

uint64_t plogw_poll(struct plogw *w)
{
	uint64_t v, last = w->lost_seen, d;

	while (w->status_fd >= 0 && read(w->status_fd, &v, sizeof(v)) == sizeof(v))
		last = v;
	d = last - w->lost_seen;
	w->lost_seen = last;
	return d;
}

void plogw_stop(struct plogw *w, unsigned timeout_ms, uint64_t *lost)
{
	int st;

	if (w->fd >= 0) {
		/* Blocking now: the loop has stopped forwarding. */
		fcntl(w->fd, F_SETFL, 0);
		if (w->log.buf && plog_flush(&w->log))
			log_warn("packet log %s: %zu bytes could not be handed "
				 "to the writer", w->path, w->log.len_bytes);
		close(w->fd);
		w->fd = -1;
	}
	for (unsigned t = 0; w->pid > 0; t += 10) {
		pid_t r = waitpid(w->pid, &st, WNOHANG);

		if (r == w->pid || (r < 0 && errno != EINTR))
			w->pid = 0;
		else if (t >= timeout_ms)
			break;
		else if (r == 0)
			poll(NULL, 0, 10);
	}
	if (w->pid > 0)
		log_warn("packet log %s: the writer is still writing after %u ms; "
			 "not waiting for it", w->path, timeout_ms);
	if (lost)
		*lost += plogw_poll(w);
	if (w->status_fd >= 0)
		close(w->status_fd);
	w->status_fd = -1;
	plog_destroy(&w->log);
}
