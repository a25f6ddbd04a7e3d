/* statsout.h - where the stats lines go, and what happens when they
 * cannot go there (disk full, file system gone read-only, a closed pipe).
 *
 * A line is written whole or not at all: a short write to a regular file
 * is truncated away, so a reader never meets half a line in the middle of
 * a file.  A line that could not be written gives its counts back to the
 * core (the deltas of that interval go into the next line that is
 * written), so sum(in) = sum(out) + sum(drop) + qlen still holds over the
 * file; io.stats_write_error on that next line says how many lines were
 * missed.  The failure is logged once per episode (warnonce.h).  The
 * daemon keeps forwarding whatever happens here.
 */
#ifndef SCHEDTUN_STATSOUT_H
#define SCHEDTUN_STATSOUT_H

#include "conf/conf.h"
#include "core/core.h"
#include "util/warnonce.h"

struct statsout {
	int    fd;                      /* -1: not open */
	char   path[CONF_PATH_MAX];     /* as configured; "" or "-": stdout */
	char   what[CONF_PATH_MAX + 16];        /* "stats file PATH", for the log */
	struct warn_once warn;
	struct stats saved;             /* the core's counters before a line */
};

/* Nothing open yet. */
void statsout_init(struct statsout *o);

/* Opens path for appending ("" or "-": stdout) and makes it the output,
 * closing the previous one (ending its failure episode with a line).
 * 0; or -1 with the error logged and the previous output kept. */
int  statsout_open(struct statsout *o, const char *path);

/* At a SIGHUP: statsout_open() unless path is the file open already (the
 * same name and the same inode): a file moved away (rotated) or a new
 * name is opened, or created; one left in place is kept as it is, so
 * that a daemon that gave up root (privdrop.h) need not open root's file
 * again.  0, or -1 as statsout_open(), the old file kept. */
int  statsout_reopen(struct statsout *o, const char *path);

/* Closes the output (stdout is left open). */
void statsout_close(struct statsout *o);

/* Formats the core's line for the interval ending now and writes it (see
 * the top of this file for a failure).  0, or -1 when it was not written. */
int  statsout_emit(struct statsout *o, struct core *c, tstamp_ns now);

#endif
