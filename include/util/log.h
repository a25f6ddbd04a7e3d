/* log.h - daemon messages on stderr, one line each, with a level tag.
 * Never called per packet on the fast path. */
#ifndef SCHEDTUN_LOG_H
#define SCHEDTUN_LOG_H

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

#include <stdio.h>

void log_set_level(enum log_level lvl);
/* Where the lines go: f, or stderr when f is NULL (the default).  For tests
 * that count what the daemon says. */
void log_set_output(FILE *f);
void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)   log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
