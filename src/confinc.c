/* confinc.c - @include targets checked before libconfig opens them.
 *
 * libconfig 1.5 (Debian 12) fopen()s an included name and feeds it to its
 * flex scanner.  A directory makes the scanner call exit() ("input in
 * flex scanner failed", libconfig issue #292): `@include "."` would end
 * `schedtun --check` without a diagnostic and end a running daemon on
 * SIGHUP.  A FIFO or a device would block or never end.  So every target
 * that exists must be a regular file; the rest (missing files, syntax,
 * nesting too deep) stays libconfig's to report.  Found by fuzz_conf.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "confinc.h"

#define INCLUDE_DEPTH_MAX 10    /* libconfig's own limit */

/* NAME of a line `[blanks]@include[blanks]"NAME"...`, cut in place; NULL
 * for any other line.  The name ends at the next '"' (libconfig's escapes
 * are not expected in file names). */
static char *include_name(char *line)
{
	char *s = line + strspn(line, " \t"), *e;

	if (strncmp(s, "@include", 8) || !s[8] || !strchr(" \t", s[8]))
		return NULL;
	s += 8 + strspn(s + 8, " \t");
	if (*s != '"' || !(e = strchr(s + 1, '"')))
		return NULL;
	*e = '\0';
	return s + 1;
}

static int check_file(const char *path, const char *dir, struct diag *d,
		      int depth)
{
	const char *saved = d->file;
	char *line = NULL, *name, target[PATH_MAX];
	size_t cap = 0;
	int lineno = 0, nerr = 0, n;
	struct stat st;
	FILE *f;

	if (depth > INCLUDE_DEPTH_MAX || !(f = fopen(path, "r")))
		return 0;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		return 0;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (!(name = include_name(line)))
			continue;
		if (name[0] == '/' || !dir || !dir[0])
			n = snprintf(target, sizeof(target), "%s", name);
		else
			n = snprintf(target, sizeof(target), "%s/%s", dir, name);
		if (n < 0 || (size_t)n >= sizeof(target) || stat(target, &st))
			continue;       /* libconfig says it cannot open it */
		if (!S_ISREG(st.st_mode)) {
			d->file = path;
			diag_error(d, lineno, NULL, "@include \"%s\": not a regular "
				   "file (accepted: a file name, relative to this "
				   "file's directory)", name);
			d->file = saved;
			nerr++;
			continue;
		}
		nerr += check_file(target, dir, d, depth + 1);
	}
	free(line);
	fclose(f);
	return nerr;
}

int conf_check_includes(const char *path, const char *dir, struct diag *d)
{
	return check_file(path, dir, d, 1);
}
