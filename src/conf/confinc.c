/* confinc.c - @include targets checked before libconfig opens them.
 *
 * libconfig 1.5 (Debian 12) fopen()s an included name and feeds it to its
 * flex scanner.  A directory makes the scanner call exit() ("input in
 * flex scanner failed", libconfig issue #292): `@include "."` would end
 * `schedtun --check` without a diagnostic and end a running daemon on
 * SIGHUP.  A FIFO or a device would block or never end.  So every target
 * that exists must be a regular file; the rest (missing files, syntax,
 * nesting too deep) stays libconfig's to report.  Found by fuzz_conf.
 *
 * The name must be the one libconfig will open, byte for byte, or the
 * check can be walked around (fuzz_conf did, twice).  libconfig 1.5's
 * scanner, as measured with strace on Debian 12's build:
 *   - an include starts at the beginning of a line: `[ \t]*@include[ \t]+"`;
 *   - the name runs to the next unescaped '"', across newlines;
 *   - `\\` is '\' and `\"` is '"'; any other backslash is dropped (flex's
 *     default rule echoes it): "a\x2e" opens "ax2e";
 *   - a NUL byte ends the run of plain bytes it is in (the run is
 *     appended as a C string), not the name: "a\0b\\c" opens "a\c";
 *   - with an include directory the name is always appended to it, an
 *     absolute one too ("DIR//etc/x").
 * Every line start that matches is checked, also one inside a comment or
 * a string, where libconfig would not include anything: refusing a
 * commented-out `@include "."` is the price of never missing a real one.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf/confinc.h"

#define INCLUDE_DEPTH_MAX 10            /* libconfig's own limit */
#define INCLUDE_FILE_MAX  (16u << 20)   /* bytes read of one file */

/* Decodes the include name that starts at p (after its opening quote)
 * into out (cap bytes) as libconfig 1.5 does (see the top).  Returns 0
 * when a closing quote ends it, -1 at the end of the text (libconfig
 * includes nothing then) or when it does not fit in out (no such file
 * can exist: libconfig's open fails and it says so). */
static int decode_name(const char *p, const char *end, char *out, size_t cap)
{
	size_t n = 0, run;
	const char *q;

	while (p < end && *p != '"') {
		if (*p == '\\') {
			if (end - p >= 2 && (p[1] == '\\' || p[1] == '"')) {
				if (n + 1 >= cap)
					return -1;
				out[n++] = p[1];
				p += 2;
			} else {
				p++;
			}
			continue;
		}
		for (q = p; q < end && *q != '"' && *q != '\\'; q++)
			;
		run = strnlen(p, (size_t)(q - p));
		if (n + run >= cap)
			return -1;
		memcpy(out + n, p, run);
		n += run;
		p = q;
	}
	if (p == end)
		return -1;
	out[n] = '\0';
	return 0;
}

/* The text just after `[ \t]*@include[ \t]+"` when the line starting at
 * p opens with it, else NULL. */
static const char *include_open(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 9 || memcmp(p, "@include", 8) || (p[8] != ' ' &&
							p[8] != '\t'))
		return NULL;
	for (p += 8; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	return p < end && *p == '"' ? p + 1 : NULL;
}

/* The whole of a regular file, NUL bytes included; NULL for anything
 * else (libconfig reports what it cannot read). */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size <= INCLUDE_FILE_MAX &&
	    (buf = malloc((size_t)st.st_size + 1)))
		*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

static int check_file(const char *path, const char *dir, struct diag *d,
		      int depth)
{
	const char *saved = d->file, *p, *end, *name_at;
	char name[PATH_MAX], target[PATH_MAX];
	size_t len = 0;
	int lineno = 1, nerr = 0, n;
	struct stat st;
	char *text;

	if (depth > INCLUDE_DEPTH_MAX || !(text = slurp(path, &len)))
		return 0;
	d->file = path;         /* errors name the file holding the line */
	end = text + len;
	for (p = text; p < end; lineno++) {
		name_at = include_open(p, end);
		if (name_at && !decode_name(name_at, end, name, sizeof(name))) {
			if (dir && dir[0])
				n = snprintf(target, sizeof(target), "%s/%s", dir,
					     name);
			else
				n = snprintf(target, sizeof(target), "%s", name);
			if (n >= 0 && (size_t)n < sizeof(target) &&
			    !stat(target, &st)) {
				if (!S_ISREG(st.st_mode)) {
					diag_error(d, lineno, NULL, "@include \"%s\": "
						   "not a regular file (accepted: "
						   "a file name, relative to this "
						   "file's directory)", name);
					nerr++;
				} else {
					nerr += check_file(target, dir, d,
							   depth + 1);
				}
			}
		}
		if (!(p = memchr(p, '\n', (size_t)(end - p))))
			break;
		p++;
	}
	d->file = saved;
	free(text);
	return nerr;
}

int conf_check_includes(const char *path, const char *dir, struct diag *d)
{
	return check_file(path, dir, d, 1);
}
