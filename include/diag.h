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
};

void diag_init(struct diag *d, FILE *out, const char *file);
/* line 0 prints "FILE: key: ..." */
void diag_error(struct diag *d, int line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
