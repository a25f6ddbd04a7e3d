/* diag.h - configuration diagnostics, one line each:
 *   FILE:LINE: key: problem (accepted: ...)
 * Errors are counted, never fatal on the first: the whole file is checked
 * and nothing is applied unless the count is zero. */
#ifndef SCHEDTUN_DIAG_H
#define SCHEDTUN_DIAG_H

#include <stdio.h>

struct diag {
	FILE       *out;                /* where lines go (stderr), or NULL */
	const char *file;
	int         nerr;
	/* > 0: the line of a message that has none of its own (a key of a
	 * group that is absent is reported at the setting that implied the
	 * group), so that every key error has a FILE:LINE:. */
	int         implied_line;
	/* 1: the file is only checked (--check), not run: what the
	 * checking user may not read but the daemon, started as root,
	 * would, is a warning (tunnel.key_file), not an error. */
	int         check_only;
};

void diag_init(struct diag *d, FILE *out, const char *file);
/* line 0 prints "FILE:IMPLIED_LINE: key: ...", or "FILE: key: ..."
 * without an implied line */
void diag_error(struct diag *d, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same line with "warning: " before the problem; not counted. */
void diag_warn(struct diag *d, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
