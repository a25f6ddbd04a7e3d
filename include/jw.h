/* jw.h - a minimal JSON writer into a caller-supplied buffer, for the stats
 * lines.  No allocation; on overflow the output is marked truncated and
 * jw_finish() returns -1 so a partial line is never written. */
#ifndef SCHEDTUN_JW_H
#define SCHEDTUN_JW_H

#include <stddef.h>
#include <stdint.h>

#define JW_MAX_DEPTH 16

struct jw {
	char   *buf;
	size_t  cap, len;
	int     depth;
	int     overflow;
	uint8_t first[JW_MAX_DEPTH];    /* no member written yet at depth */
};

void jw_init(struct jw *w, char *buf, size_t cap);
/* key == NULL for the top-level object. */
void jw_obj_begin(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
void jw_u64(struct jw *w, const char *key, uint64_t v);
void jw_i64(struct jw *w, const char *key, int64_t v);
/* Fixed-point with `decimals` digits; non-finite values are written as null. */
void jw_double(struct jw *w, const char *key, double v, int decimals);
void jw_str(struct jw *w, const char *key, const char *s);
/* Terminates the line with '\n' and NUL.  Returns its length or -1. */
int  jw_finish(struct jw *w);

#endif
