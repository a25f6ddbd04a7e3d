/* diag.c - configuration diagnostics: "FILE:LINE: key: problem". */
#include <stdarg.h>
#include <stdio.h>

#include "util/diag.h"

/* A longer message is cut (ours stay far below: values are quoted short). */
#define DIAG_MSG_MAX 4096

/* Starts a fresh count.  out may be NULL (count only, e.g. in tests or
 * when a caller only wants a yes/no answer). */
void diag_init(struct diag *d, FILE *out, const char *file)
{
	d->out = out;
	d->file = file;
	d->nerr = 0;
	d->implied_line = 0;
	d->check_only = 0;
}

/* Prints one line: "FILE:LINE: key: [warning: ]message".  line <= 0
 * takes the implied line, or omits the number when there is none; a NULL
 * or empty key omits the key (libconfig syntax errors have none). */
static void emit(struct diag *d, int line, const char *key, const char *tag,
		 const char *fmt, va_list ap)
{
	const char *file = d->file ? d->file : "(config)";
	char msg[DIAG_MSG_MAX];
	const char *m;

	if (!d->out)
		return;
	if (line <= 0)
		line = d->implied_line;
	if (line > 0)
		fprintf(d->out, "%s:%d: ", file, line);
	else
		fprintf(d->out, "%s: ", file);
	if (key && *key)
		fprintf(d->out, "%s: ", key);
	fputs(tag, d->out);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Values are quoted from the file: a newline in a string must not
	 * start a line of its own (one that could pass for another
	 * FILE:LINE: message), so control characters are escaped. */
	for (m = msg; *m; m++) {
		unsigned char ch = (unsigned char)*m;

		if (ch == '\n')
			fputs("\\n", d->out);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(d->out, "\\x%02x", ch);
		else
			fputc(ch, d->out);
	}
	fputc('\n', d->out);
	fflush(d->out);
}

/* Counts one error and prints it as one line (emit()). */
void diag_error(struct diag *d, int line, const char *key, const char *fmt, ...)
{
	va_list ap;

	d->nerr++;
	va_start(ap, fmt);
	emit(d, line, key, "", fmt, ap);
	va_end(ap);
}

void diag_warn(struct diag *d, int line, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(d, line, key, "warning: ", fmt, ap);
	va_end(ap);
}
