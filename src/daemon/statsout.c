/* statsout.c - the stats lines' output (see statsout.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "daemon/statsout.h"
#include "util/log.h"

#define STATS_LINE_MAX 8192

void statsout_init(struct statsout *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	warn_once_init(&o->warn, o->what,
		       "the line's counts go into the next line written, "
		       "counted in io.stats_write_error");
}

static int is_stdout(const char *path)
{
	return !path[0] || !strcmp(path, "-");
}

void statsout_close(struct statsout *o)
{
	if (o->fd > STDERR_FILENO)
		close(o->fd);
	o->fd = -1;
}

int statsout_reopen(struct statsout *o, const char *path)
{
	struct stat at_path, open_st;

	if (!strcmp(path, o->path) && !is_stdout(path) && o->fd >= 0 &&
	    stat(path, &at_path) == 0 && fstat(o->fd, &open_st) == 0 &&
	    at_path.st_dev == open_st.st_dev && at_path.st_ino == open_st.st_ino)
		return 0;
	return statsout_open(o, path);
}

int statsout_open(struct statsout *o, const char *path)
{
	int fd = STDOUT_FILENO;

	if (!is_stdout(path)) {
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			log_err("stats.file %s: %s", path, strerror(errno));
			return -1;
		}
	}
	if (o->warn.active)
		log_info("%s: replaced by %s after %llu failed line%s", o->what,
			 is_stdout(path) ? "stdout" : path,
			 (unsigned long long)o->warn.episode_fails,
			 o->warn.episode_fails == 1 ? "" : "s");
	statsout_close(o);
	o->fd = fd;
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->what, sizeof(o->what), "stats file %s",
		 is_stdout(path) ? "stdout" : path);
	o->warn.active = 0;
	o->warn.episode_fails = 0;
	return 0;
}

/* write() of the whole line, or -errno with nothing of it left in a
 * regular file: O_APPEND leaves the offset at the end of what was
 * written, so a short write is cut off again there. */
static int write_line(int fd, const char *line, size_t n)
{
	ssize_t k = write(fd, line, n);
	off_t end;

	if (k == (ssize_t)n)
		return 0;
	if (k < 0)
		return -errno;
	end = lseek(fd, 0, SEEK_CUR);
	if (end >= k && ftruncate(fd, end - k) < 0)
		log_debug("stats file: cannot cut a partial line: %s", strerror(errno));
	return -ENOSPC;         /* a short write on a file: no room for the rest */
}

int statsout_emit(struct statsout *o, struct core *c, tstamp_ns now)
{
	char line[STATS_LINE_MAX];
	int n, err;

	o->saved = c->st;
	n = core_stats_line(c, now, line, sizeof(line));
	if (n < 0) {
		log_err("stats line longer than %d bytes; not written", STATS_LINE_MAX);
		return -1;
	}
	if (o->fd < 0)
		return 0;
	err = write_line(o->fd, line, (size_t)n);
	if (!err) {
		warn_once_poll(&o->warn, now);
		return 0;
	}
	c->st = o->saved;
	c->st.stats_write_error++;
	warn_once_fail(&o->warn, -err, now);
	return -1;
}
