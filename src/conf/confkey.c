/* confkey.c - the tunnel key's file (docs/security.md).
 *
 * The file is read at load, so that --check and a SIGHUP find a bad key
 * before anything changes, and checked the way OpenSSH checks a private
 * key: a regular file that neither group nor others may read or write
 * (a key others can read is no longer secret; one they can write is not
 * ours).  Its text is never quoted in a message: a key with a typo is
 * still most of a secret, and messages end up in journals.
 */
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfgval/cfgval.h"
#include "conf/conf.h"
#include "sec/auth.h"
#include "confkey.h"

/* A key file is one line of 44 characters; anything much longer is not one. */
#define KEY_FILE_MAX_BYTES 256

int conf_resolve_path(const struct conf *c, const char *file, char *out,
		      size_t len)
{
	const char *slash = strrchr(c->path, '/');
	int n;

	if (file[0] == '/' || !slash)
		n = snprintf(out, len, "%s", file);
	else
		n = snprintf(out, len, "%.*s/%s", (int)(slash - c->path), c->path,
			     file);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int conf_tunnel_key_file(const struct config_setting_t *s, void *params,
			 struct diag *d)
{
	struct conf *c = params;
	char file[CONF_PATH_MAX], path[CONF_PATH_MAX], text[KEY_FILE_MAX_BYTES + 1];
	char err[256];
	struct stat st;
	ssize_t n;
	int fd;

	if (cfg_get_string(s, file, sizeof(file), d) < 0)
		return -1;
	if (!file[0] || conf_resolve_path(c, file, path, sizeof(path)) < 0) {
		cfg_report(d, s, NULL, "'%s': %s (accepted: a file name, relative "
			   "to this file's directory, of at most %d characters)", file,
			   file[0] ? "too long" : "empty", CONF_PATH_MAX - 1);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	/* --check as a user who may not read root's key: what can be said
	 * is said, the rest is the daemon's at start-up (and --check needs
	 * no root).  The key stays zero: a checked file is never run. */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && d->check_only) {
		cfg_warn(d, s, NULL, "'%s': not read: %s (checked as uid %u; "
			 "the daemon, started as root, reads it)", path,
			 strerror(errno), (unsigned)geteuid());
		memcpy(c->key_file, path, strlen(path) + 1);
		c->has_key = 1;
		return 1;
	}
	if (fd < 0) {
		cfg_report(d, s, NULL, "'%s': cannot open: %s (accepted: a "
			   "readable key file, `schedtun genkey > FILE`)", path,
			   strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		cfg_report(d, s, NULL, "'%s': not a regular file (accepted: a "
			   "key file, `schedtun genkey > FILE`)", path);
		return -1;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		close(fd);
		cfg_report(d, s, NULL, "'%s': group or others may read or write "
			   "it (mode %04o) (accepted: mode 0600 or 0400: chmod 600 "
			   "'%s')", path, (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	n = read(fd, text, sizeof(text));
	close(fd);
	if (n < 0 || n > KEY_FILE_MAX_BYTES) {
		cfg_report(d, s, NULL, "'%s': %s (accepted: one line, the key in "
			   "base64)", path, n < 0 ? strerror(errno) : "too long");
		return -1;
	}
	if (auth_key_parse(text, (size_t)n, &c->key, err, sizeof(err)) < 0) {
		cfg_report(d, s, NULL, "'%s': %s", path, err);
		return -1;
	}
	memset(text, 0, sizeof(text));
	memcpy(c->key_file, path, strlen(path) + 1);
	c->has_key = 1;
	return 1;
}
