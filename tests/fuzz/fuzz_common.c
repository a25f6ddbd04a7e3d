/* fuzz_common.c - see fuzz_common.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pkt/pkt.h"
#include "util/log.h"
#include "fuzz_common.h"

struct fz_io fz_io;

void fz_fail(const char *file, int line, const char *cond,
	     const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant violated: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static char scratch[64];

/* Best effort at exit: the directory holds only the files we wrote. */
static void fz_dir_remove(void)
{
	char path[sizeof(scratch) + 300];
	struct dirent *e;
	DIR *d = opendir(scratch);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", scratch, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(scratch);
}

const char *fz_dir(void)
{
	if (!scratch[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(scratch, sizeof(scratch), "%s/schedtun-fuzz.XXXXXX",
			 t && t[0] && strlen(t) < 32 ? t : "/tmp");
		if (!mkdtemp(scratch))
			fz_fail(__FILE__, __LINE__, "mkdtemp", "%s", scratch);
		atexit(fz_dir_remove);
		/* The daemon's info lines (peer pinned, reload) would be
		 * printed for every input. */
		log_set_level(LOG_ERR);
	}
	return scratch;
}

const char *fz_write_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[sizeof(scratch) + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fz_dir(), name);
	f = fopen(path, "wb");
	FZ_CHECK(f, "cannot create %s", path);
	FZ_CHECK(fwrite(data, 1, size, f) == size && fclose(f) == 0,
		 "cannot write %s", path);
	return path;
}

void fz_conf(struct conf *c, const struct sched_ops *ops, uint64_t rate_bps)
{
	struct sockaddr_in *peer = (struct sockaddr_in *)&c->peer.ss;

	conf_defaults(c);       /* a constant link */
	c->link.rate_bps = c->link.mean_bps = rate_bps;
	conf_use_sched(c, ops);
	c->has_peer = 1;
	memset(&c->peer, 0, sizeof(c->peer));
	peer->sin_family = AF_INET;
	peer->sin_port = htons(5000);
	peer->sin_addr.s_addr = htonl(0x0a000002);
	c->peer.len = sizeof(*peer);
}

static int fz_send(void *ctx, const uint8_t *buf, size_t len,
		   const struct conf_addr *to)
{
	(void)ctx;
	(void)to;
	fz_io.sent++;
	if (fz_io.on_send)
		fz_io.on_send(buf, len);
	return 0;
}

static int fz_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	fz_io.tun_writes++;
	if (fz_io.on_tun)
		fz_io.on_tun(buf, len);
	return 0;
}

const struct core_io fz_core_io = { .send = fz_send,
				    .tun_write = fz_tun_write };

void fz_pool(uint32_t count, uint32_t cap_bytes)
{
	if (pkt_pool_size())
		return;
	fz_dir();       /* quiet logging from the first input on */
	FZ_CHECK(pkt_pool_init(count, cap_bytes) == 0, "pool of %u", count);
}

uint32_t fz_be16(const uint8_t *b)
{
	return (uint32_t)b[0] << 8 | b[1];
}

uint32_t fz_be32(const uint8_t *b)
{
	return fz_be16(b) << 16 | fz_be16(b + 2);
}

uint64_t fz_be64(const uint8_t *b)
{
	return (uint64_t)fz_be32(b) << 32 | fz_be32(b + 4);
}

uint32_t fz_csum_sum(uint32_t sum, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += fz_be16(b + i);
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	return sum;
}

uint16_t fz_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint32_t fz_csum_pseudo(const uint8_t *p, int v6, uint8_t proto,
			uint32_t l4_len)
{
	uint32_t sum = v6 ? fz_csum_sum(0, p + 8, 32) : fz_csum_sum(0, p + 12, 8);

	return sum + proto + (l4_len >> 16) + (l4_len & 0xffff);
}

/* ---- JSON (RFC 8259), for checking what the product writes ------------ */

#define FZ_JSON_DEPTH 64

struct jp {
	const char *s;
	size_t      len, at;
	char       *err;
	size_t      errlen;
	int         failed;
};

static int jp_fail(struct jp *j, const char *why)
{
	if (!j->failed)
		snprintf(j->err, j->errlen, "%s at byte %zu", why, j->at);
	j->failed = 1;
	return -1;
}

static void jp_ws(struct jp *j)
{
	while (j->at < j->len && strchr(" \t\r\n", j->s[j->at]) && j->s[j->at])
		j->at++;
}

static int jp_peek(const struct jp *j)
{
	return j->at < j->len ? (unsigned char)j->s[j->at] : -1;
}

static int jp_lit(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if (j->len - j->at < n || memcmp(j->s + j->at, word, n))
		return jp_fail(j, "bad literal");
	j->at += n;
	return 0;
}

/* A string at j->at (its opening quote), decoded into a new buffer. */
static char *jp_string(struct jp *j)
{
	char *out = malloc(j->len - j->at + 1);
	size_t n = 0;
	int c, k;

	FZ_CHECK(out, "malloc");
	j->at++;
	for (;;) {
		c = jp_peek(j);
		if (c < 0 || c < 0x20) {
			free(out);
			jp_fail(j, c < 0 ? "unterminated string"
					 : "control character in a string");
			return NULL;
		}
		j->at++;
		if (c == '"')
			break;
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		c = jp_peek(j);
		j->at++;
		switch (c) {
		case '"': case '\\': case '/': out[n++] = (char)c; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u':
			for (k = 0; k < 4; k++, j->at++)
				if (jp_peek(j) < 0 || !isxdigit(jp_peek(j))) {
					free(out);
					jp_fail(j, "bad \\u escape");
					return NULL;
				}
			out[n++] = '?';
			break;
		default:
			free(out);
			jp_fail(j, "bad escape");
			return NULL;
		}
	}
	out[n] = '\0';
	return out;
}

static int jp_digits(struct jp *j)
{
	size_t from = j->at;

	while (jp_peek(j) >= '0' && jp_peek(j) <= '9')
		j->at++;
	return j->at > from ? 0 : jp_fail(j, "digit expected");
}

static int jp_number(struct jp *j, struct fz_json *v)
{
	size_t from = j->at;
	int plain = 1;
	char tmp[400];

	if (jp_peek(j) == '-') {
		plain = 0;
		j->at++;
	}
	if (jp_peek(j) == '0')
		j->at++;        /* a leading zero stands alone */
	else if (jp_digits(j) < 0)
		return -1;
	if (jp_peek(j) == '.') {
		plain = 0;
		j->at++;
		if (jp_digits(j) < 0)
			return -1;
	}
	if (jp_peek(j) == 'e' || jp_peek(j) == 'E') {
		plain = 0;
		j->at++;
		if (jp_peek(j) == '+' || jp_peek(j) == '-')
			j->at++;
		if (jp_digits(j) < 0)
			return -1;
	}
	if (j->at - from >= sizeof(tmp))
		return jp_fail(j, "number too long");
	memcpy(tmp, j->s + from, j->at - from);
	tmp[j->at - from] = '\0';
	v->type = FZ_JSON_NUM;
	v->num = strtod(tmp, NULL);
	if (plain && j->at - from <= 20) {
		unsigned long long u = strtoull(tmp, NULL, 10);

		/* 20 digits may exceed 2^64 - 1: strtoull says ULLONG_MAX */
		v->is_uint = !(j->at - from == 20 && strcmp(tmp, "18446744073709551615") > 0);
		v->uint = u;
	}
	return 0;
}

static struct fz_json *jp_value(struct jp *j, int depth);

/* The members of an array or object after its opening bracket. */
static int jp_members(struct jp *j, struct fz_json *v, int depth, int obj)
{
	struct fz_json **tail = &v->child, *m, *o;
	char *key = NULL;
	int close = obj ? '}' : ']';

	j->at++;
	jp_ws(j);
	if (jp_peek(j) == close) {
		j->at++;
		return 0;
	}
	for (;;) {
		jp_ws(j);
		if (obj) {
			if (jp_peek(j) != '"')
				return jp_fail(j, "key expected");
			if (!(key = jp_string(j)))
				return -1;
			for (o = v->child; o; o = o->next)
				if (!strcmp(o->key, key)) {
					free(key);
					return jp_fail(j, "duplicate key");
				}
			jp_ws(j);
			if (jp_peek(j) != ':') {
				free(key);
				return jp_fail(j, "':' expected");
			}
			j->at++;
		}
		if (!(m = jp_value(j, depth + 1))) {
			free(key);
			return -1;
		}
		m->key = key;
		key = NULL;
		*tail = m;
		tail = &m->next;
		jp_ws(j);
		if (jp_peek(j) == close) {
			j->at++;
			return 0;
		}
		if (jp_peek(j) != ',')
			return jp_fail(j, "',' or end expected");
		j->at++;
	}
}

static struct fz_json *jp_value(struct jp *j, int depth)
{
	struct fz_json *v = calloc(1, sizeof(*v));
	int c, r = 0;

	FZ_CHECK(v, "calloc");
	jp_ws(j);
	c = jp_peek(j);
	if (depth > FZ_JSON_DEPTH)
		r = jp_fail(j, "nested too deep");
	else if (c == '{' || c == '[') {
		v->type = c == '{' ? FZ_JSON_OBJ : FZ_JSON_ARR;
		r = jp_members(j, v, depth, c == '{');
	} else if (c == '"') {
		v->type = FZ_JSON_STR;
		r = (v->str = jp_string(j)) ? 0 : -1;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		r = jp_number(j, v);
	} else if (c == 't' || c == 'f') {
		v->type = FZ_JSON_BOOL;
		v->num = c == 't';
		r = jp_lit(j, c == 't' ? "true" : "false");
	} else if (c == 'n') {
		r = jp_lit(j, "null");
	} else {
		r = jp_fail(j, "value expected");
	}
	if (r < 0) {
		fz_json_free(v);
		return NULL;
	}
	return v;
}

struct fz_json *fz_json_parse(const char *text, size_t len, char *err,
			      size_t errlen)
{
	struct jp j = { text, len, 0, err, errlen, 0 };
	struct fz_json *v = jp_value(&j, 0);

	if (!v)
		return NULL;
	jp_ws(&j);
	if (j.at != len) {
		jp_fail(&j, "text after the value");
		fz_json_free(v);
		return NULL;
	}
	return v;
}

void fz_json_free(struct fz_json *v)
{
	while (v) {
		struct fz_json *next = v->next;

		fz_json_free(v->child);
		free(v->key);
		free(v->str);
		free(v);
		v = next;
	}
}

const struct fz_json *fz_json_get(const struct fz_json *obj, const char *key)
{
	const struct fz_json *m;

	if (!obj || obj->type != FZ_JSON_OBJ)
		return NULL;
	for (m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

const struct fz_json *fz_json_path(const struct fz_json *obj, const char *path)
{
	char part[128];
	const char *dot;

	while (obj && *path) {
		dot = strchr(path, '.');
		snprintf(part, sizeof(part), "%.*s",
			 (int)(dot ? (size_t)(dot - path) : strlen(path)), path);
		obj = fz_json_get(obj, part);
		path = dot ? dot + 1 : "";
	}
	return obj;
}

uint64_t fz_json_uint(const struct fz_json *obj, const char *path)
{
	const struct fz_json *v = fz_json_path(obj, path);

	FZ_CHECK(v && v->type == FZ_JSON_NUM && v->is_uint,
		 "JSON %s: %s", path, v ? "not a plain integer >= 0" : "missing");
	return v->uint;
}

double fz_json_num(const struct fz_json *obj, const char *path)
{
	const struct fz_json *v = fz_json_path(obj, path);

	FZ_CHECK(v && v->type == FZ_JSON_NUM && isfinite(v->num),
		 "JSON %s: %s", path, v ? "not a finite number" : "missing");
	return v->num;
}

void fz_json_selftest(void)
{
	static const char *const bad[] = {
		"", "{", "{\"a\": 1,}", "{\"a\" 1}", "[01]", "[1.]", "[.5]",
		"{\"a\": 1} x", "{\"a\": 1, \"a\": 2}", "\"\x01\"", "{\"a\": NaN}",
		"[1 2]", "\"\\x\"", "\"\\u12G4\"", "tru", "{1: 2}", "[-]",
	};
	const char *good = " {\"a\": [0, -2.5e3, 1E+2, true, false, null, "
			   "\"x\\n\\u00e9\\\"\"], \"b\": {}, \"c\": []} ";
	char err[128];
	struct fz_json *j;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = fz_json_parse(bad[i], strlen(bad[i]), err, sizeof(err));
		FZ_CHECK(!j, "JSON self-test: '%s' accepted", bad[i]);
	}
	j = fz_json_parse(good, strlen(good), err, sizeof(err));
	FZ_CHECK(j && fz_json_path(j, "b") && fz_json_path(j, "c") &&
		 fz_json_get(j, "a")->child->is_uint &&
		 fz_json_get(j, "a")->child->next->num == -2500 &&
		 !strcmp(fz_json_get(j, "a")->child->next->next->next->next->next->next->str,
			 "x\n?\""), "JSON self-test: %s", j ? "values" : err);
	fz_json_free(j);
	j = fz_json_parse("[18446744073709551615, 18446744073709551616]", 44,
			  err, sizeof(err));
	FZ_CHECK(j && j->child->is_uint && j->child->uint == UINT64_MAX &&
		 !j->child->next->is_uint, "JSON self-test: 2^64 - 1 and 2^64");
	fz_json_free(j);
}
