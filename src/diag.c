/* diag.c - configuration diagnostics: "FILE:LINE: key: problem". */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

/* Starts a fresh count.  out may be NULL (count only, e.g. in tests or
 * when a caller only wants a yes/no answer). */
void diag_init(struct diag *d, FILE *out, const char *file)
{
	d->out = out;
	d->file = file;
	d->nerr = 0;
}

/* Counts one error and prints it as one line.  line <= 0 omits the line
 * number, a NULL or empty key omits the key (libconfig syntax errors have
 * none). */
void diag_error(struct diag *d, int line, const char *key, const char *fmt, ...)
{
	const char *file = d->file ? d->file : "(config)";
	va_list ap;

	d->nerr++;
	if (!d->out)
		return;
	if (line > 0)
		fprintf(d->out, "%s:%d: ", file, line);
	else
		fprintf(d->out, "%s: ", file);
	if (key && *key)
		fprintf(d->out, "%s: ", key);
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->out);
	fflush(d->out);
}
