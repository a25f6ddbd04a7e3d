/* log.c - one line per message on stderr: "schedtun[pid]: level: text". */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "util/log.h"

static enum log_level log_threshold = LOG_INFO;
static FILE *log_out;                   /* NULL: stderr */

static const char *const log_tag[] = { "error", "warning", "info", "debug" };

void log_set_level(enum log_level lvl)
{
	log_threshold = lvl;
}

void log_set_output(FILE *f)
{
	log_out = f;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (lvl > log_threshold)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One fprintf so concurrent daemons sharing a terminal do not interleave
	 * inside a line. */
	fprintf(log_out ? log_out : stderr, "schedtun[%d]: %s: %s\n", (int)getpid(), log_tag[lvl], line);
}
