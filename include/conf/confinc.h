/* confinc.h - the @include directives of a configuration file, checked
 * before libconfig reads it (see src/conf/confinc.c for why). */
#ifndef SCHEDTUN_CONFINC_H
#define SCHEDTUN_CONFINC_H

#include "util/diag.h"

/* Reports, through d, every `@include "NAME"` of path (and of the files it
 * includes, down to libconfig's depth limit) whose target exists but is
 * not a regular file; NAME resolves against dir as libconfig does (NULL
 * or "": as written).  An unreadable path or a missing target is left to
 * libconfig's own message.  Returns the number of errors. */
int conf_check_includes(const char *path, const char *dir, struct diag *d);

#endif
