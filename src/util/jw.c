/* jw.c - JSON writer for the stats lines (see jw.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/jw.h"

void jw_init(struct jw *w, char *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->depth = 0;
	w->overflow = cap < 2;
	memset(w->first, 1, sizeof(w->first));
	memset(w->key, 0, sizeof(w->key));
	w->memo = NULL;
}

static void jw_put(struct jw *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void jw_put(struct jw *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
	va_end(ap);
	/* Keep one byte spare for the newline jw_finish() appends. */
	if (n < 0 || (size_t)n + 1 >= w->cap - w->len)
		w->overflow = 1;
	else
		w->len += (size_t)n;
}

/* Emits the separator and the key for a new member at the current depth.
 * Keys are our own identifiers: no escaping needed. */
static void jw_key(struct jw *w, const char *key)
{
	if (w->depth > 0 && !w->first[w->depth])
		jw_put(w, ", ");
	w->first[w->depth] = 0;
	if (key)
		jw_put(w, "\"%s\": ", key);
}

/* Opens an object or an array ("{" or "["): one more depth, whose
 * members or elements start without a separator. */
static void jw_open(struct jw *w, const char *key, const char *bracket)
{
	jw_key(w, key);
	jw_put(w, "%s", bracket);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->overflow = 1;
		return;
	}
	w->depth++;
	w->first[w->depth] = 1;
	w->key[w->depth] = key;
}

static void jw_close(struct jw *w, const char *bracket)
{
	jw_put(w, "%s", bracket);
	if (w->depth > 0)
		w->depth--;
}

void jw_obj_begin(struct jw *w, const char *key)
{
	jw_open(w, key, "{");
}

void jw_obj_end(struct jw *w)
{
	jw_close(w, "}");
}

/* An array element is a member without a key. */
void jw_arr_begin(struct jw *w, const char *key)
{
	jw_open(w, key, "[");
}

void jw_arr_end(struct jw *w)
{
	jw_close(w, "]");
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_put(w, "%llu", (unsigned long long)v);
}

void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_put(w, "%lld", (long long)v);
}

void jw_double(struct jw *w, const char *key, double v, int decimals)
{
	jw_key(w, key);
	if (!isfinite(v))
		jw_put(w, "null");
	else
		jw_put(w, "%.*f", decimals, v);
}

/* 15 significant digits first, so that 0.3 reads "0.3", not
 * "0.29999999999999999"; 17 always read back exactly. */
void jw_real(struct jw *w, const char *key, double v)
{
	char num[40];
	int prec;

	jw_key(w, key);
	if (!isfinite(v)) {
		jw_put(w, "null");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(num, sizeof(num), "%.*g", prec, v);
		if (strtod(num, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(num, sizeof(num), "%.17g", v);
	jw_put(w, "%s", num);
}

void jw_bool(struct jw *w, const char *key, int v)
{
	jw_key(w, key);
	jw_put(w, "%s", v ? "true" : "false");
}

void jw_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_put(w, "null");
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_put(w, "\"");
	for (; *s && !w->overflow; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			jw_put(w, "\\%c", c);
		else if (c < 0x20)
			jw_put(w, "\\u%04x", c);
		else
			jw_put(w, "%c", c);
	}
	jw_put(w, "\"");
}

/* The dotted path of member `key` at the current depth into path
 * (JW_MEMO_PATH_MAX bytes).  0, or -1 if it does not fit. */
static int jw_path(const struct jw *w, const char *key, char *path)
{
	size_t used = 0;
	int d, n;

	path[0] = '\0';
	for (d = 1; d <= w->depth + 1; d++) {
		const char *k = d <= w->depth ? w->key[d] : key;

		if (!k)
			continue;
		n = snprintf(path + used, JW_MEMO_PATH_MAX - used, "%s%s",
			     used ? "." : "", k);
		if (n < 0 || (size_t)n >= JW_MEMO_PATH_MAX - used)
			return -1;
		used += (size_t)n;
	}
	return 0;
}

void jw_counter(struct jw *w, const char *key, uint64_t cumulative)
{
	struct jw_memo *m = w->memo;
	char path[JW_MEMO_PATH_MAX];
	uint64_t base = 0;
	unsigned int i;

	if (!m) {
		jw_u64(w, key, cumulative);
		return;
	}
	if (jw_path(w, key, path) < 0 || m->nnext >= JW_MEMO_MAX) {
		jw_key(w, key);
		jw_put(w, "null");
		return;
	}
	for (i = 0; i < m->nprev; i++) {
		if (strcmp(m->prev[i].path, path) == 0) {
			/* below it: a new instance counting from 0 */
			if (m->prev[i].value <= cumulative)
				base = m->prev[i].value;
			break;
		}
	}
	memcpy(m->next[m->nnext].path, path, sizeof(path));
	m->next[m->nnext].value = cumulative;
	m->nnext++;
	jw_u64(w, key, cumulative - base);
}

void jw_memo_reset(struct jw_memo *m)
{
	m->nprev = 0;
	m->nnext = 0;
}

void jw_use_memo(struct jw *w, struct jw_memo *m)
{
	m->nnext = 0;
	w->memo = m;
}

void jw_memo_commit(struct jw_memo *m)
{
	memcpy(m->prev, m->next, m->nnext * sizeof(m->next[0]));
	m->nprev = m->nnext;
	m->nnext = 0;
}

int jw_finish(struct jw *w)
{
	if (w->overflow || w->depth != 0)
		return -1;
	w->buf[w->len++] = '\n';
	w->buf[w->len] = '\0';
	return (int)w->len;
}
