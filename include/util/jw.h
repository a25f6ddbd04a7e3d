/* jw.h - a minimal JSON writer into a caller-supplied buffer, for the stats
 * lines and the tools' --json outputs.  No allocation; on overflow the output is marked truncated and
 * jw_finish() returns -1 so a partial line is never written.
 *
 * Counters.  Code that dumps its state (a scheduler's dump_stats) must not
 * change it, so it writes cumulative counters with jw_counter(), and the
 * owner of the stats line turns them into deltas: it gives the writer a
 * memo (jw_use_memo()), in which jw_counter() looks up the value the same
 * member (by its dotted path, e.g. "sched.af.rounds") had on the previous
 * line and writes the difference.  The values seen are committed to the
 * memo only when the line is complete (jw_memo_commit()), so a line that
 * failed leaves the next one covering both intervals, and a dump into a
 * writer without the memo (a test, a repeated dump) changes nothing.  A
 * value below the remembered one comes from a new instance: the memo then
 * counts as 0.  Without a memo jw_counter() writes the cumulative value. */
#ifndef SCHEDTUN_JW_H
#define SCHEDTUN_JW_H

#include <stddef.h>
#include <stdint.h>

#define JW_MAX_DEPTH     16
#define JW_MEMO_MAX      32     /* counters remembered per line */
#define JW_MEMO_PATH_MAX 64     /* bytes of a dotted path, with the NUL */

struct jw_memo_ent {
	char     path[JW_MEMO_PATH_MAX];
	uint64_t value;
};

struct jw_memo {
	struct jw_memo_ent prev[JW_MEMO_MAX];   /* as of the previous line */
	struct jw_memo_ent next[JW_MEMO_MAX];   /* this line, uncommitted */
	unsigned int nprev, nnext;
};

struct jw {
	char   *buf;
	size_t  cap, len;
	int     depth;
	int     overflow;
	uint8_t first[JW_MAX_DEPTH];    /* no member written yet at depth */
	const char *key[JW_MAX_DEPTH];  /* key of the object open at depth */
	struct jw_memo *memo;           /* NULL: counters are cumulative */
};

void jw_init(struct jw *w, char *buf, size_t cap);
/* key == NULL for the top-level object. */
void jw_obj_begin(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
/* An array: its elements are written with key == NULL. */
void jw_arr_begin(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
/* Fixed-point with `decimals` digits; non-finite values are written as null. */
void jw_double(struct jw *w, const char *key, double v, int decimals);
/* The shortest decimal that reads back as the same double (machine
 * consumers: --json outputs); non-finite values are written as null. */
void jw_real(struct jw *w, const char *key, double v);
void jw_bool(struct jw *w, const char *key, int v);
void jw_null(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *key, const char *s);
/* A counter: `cumulative` minus its value on the previous line when the
 * writer has a memo, else `cumulative`.  With a memo, a counter whose
 * path is too long or that does not fit in the memo is written as null
 * (unknown) rather than as a wrong delta. */
void jw_counter(struct jw *w, const char *key, uint64_t cumulative);

/* Forgets every remembered value (a new scheduler instance). */
void jw_memo_reset(struct jw_memo *m);
/* Writes w's counters as deltas against m; starts a new line in m. */
void jw_use_memo(struct jw *w, struct jw_memo *m);
/* The line written with jw_use_memo(w, m) is complete: its counters
 * become the base of the next line's deltas. */
void jw_memo_commit(struct jw_memo *m);
/* Terminates the line with '\n' and NUL.  Returns its length or -1. */
int  jw_finish(struct jw *w);

#endif
