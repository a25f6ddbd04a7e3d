/* cfgval.c - the configuration value layer (cfgval.h): typed access to
 * libconfig settings, the one error reporter, and key tables.
 *
 * Every message reads "FILE:LINE: dotted.key: 'value' problem (accepted:
 * ...)".  Numbers and strings go through one parser (units.c) and one set
 * of messages, so a rate or a duration means the same in every section and
 * in every scheduler's group.
 */
#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval.h"
#include "units.h"

#define CFG_PATH_MAX 512                /* as CONF_PATH_MAX */
/* ---- messages ----------------------------------------------------------- */

/* The file a setting was read from when it is not the main file (an
 * @include) into buf, or NULL for the main file, whose name the caller
 * chose.  libconfig records an include by the name written in the file,
 * so the include directory (the main file's) is put back in front. */
static const char *included_file(const config_setting_t *s, char *buf,
				 size_t len)
{
	const config_t *cfg = s->config;
	const char *dir;

	if (!s->file || !cfg || cfg->num_filenames == 0 || !cfg->filenames[0]
	    || strcmp(s->file, cfg->filenames[0]) == 0)
		return NULL;
	dir = config_get_include_dir(cfg);
	if (s->file[0] == '/' || !dir || !dir[0])
		snprintf(buf, len, "%s", s->file);
	else
		snprintf(buf, len, "%s/%s", dir, s->file);
	return buf;
}

/* Reports a problem with setting s (key path and line taken from it); when
 * `member` is given the key is that (absent) member of group s. */
static void vreport(struct diag *d, const config_setting_t *s,
		    const char *member, const char *fmt, va_list ap)
{
	char path[256], msg[1024], incbuf[CFG_PATH_MAX + 64];
	const char *saved = d->file;
	const char *inc = included_file(s, incbuf, sizeof(incbuf));
	size_t n;

	cfg_path(s, path, sizeof(path));
	if (member) {
		n = strlen(path);
		snprintf(path + n, sizeof(path) - n, "%s%s", n ? "." : "",
			 member);
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (inc)
		d->file = inc;
	diag_error(d, (int)config_setting_source_line(s), path, "%s", msg);
	d->file = saved;
}

/* See cfgval.h: member == NULL reports s itself; otherwise the (absent)
 * member of group s, at the group's line. */
void cfg_report(struct diag *d, const config_setting_t *s, const char *member,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(d, s, member, fmt, ap);
	va_end(ap);
}

/* How a value is quoted in messages: numbers bare, strings in quotes,
 * aggregates by kind (their contents would not fit on one line). */
const char *cfg_describe(const struct config_setting_t *s, char *buf, size_t len)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		snprintf(buf, len, "%d", config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, len, "%lld", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, len, "%g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_STRING:
		snprintf(buf, len, "'%s'", config_setting_get_string(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, len, "%s",
			 config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_GROUP:
		snprintf(buf, len, "a group");
		break;
	case CONFIG_TYPE_ARRAY:
		snprintf(buf, len, "an array");
		break;
	case CONFIG_TYPE_LIST:
		snprintf(buf, len, "a list");
		break;
	default:
		snprintf(buf, len, "a value");
		break;
	}
	return buf;
}

/* "a, b, c" from a NULL-terminated list. */
const char *cfg_join(const char *const list[], char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; list[i]; i++) {
		int w = snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				 list[i]);

		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	if (i == 0)
		snprintf(buf, len, "none");
	return buf;
}

/* Full dotted path of s: "scheduler.pss.bw", "classes.ef.dscp[1]"; the
 * root is "". */
const char *cfg_path(const struct config_setting_t *s, char *buf, size_t len)
{
	const config_setting_t *chain[32];
	int depth = 0, i;
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (; s && !config_setting_is_root(s); s = config_setting_parent(s)) {
		if (depth == (int)(sizeof(chain) / sizeof(chain[0])))
			break;
		chain[depth++] = s;
	}
	for (i = depth - 1; i >= 0 && n < len; i--) {
		const char *name = config_setting_name(chain[i]);
		int w;

		if (name)
			w = snprintf(buf + n, len - n, "%s%s",
				     n ? "." : "", name);
		else
			w = snprintf(buf + n, len - n, "[%d]",
				     config_setting_index(chain[i]));
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

/* ---- value access ------------------------------------------------------- */

/* Member lookup that tolerates a NULL or non-group parent and follows a
 * dotted key ("quantum.af") through nested groups. */
const config_setting_t *cfg_lookup(const config_setting_t *grp,
				      const char *key)
{
	char part[128];
	const char *dot;

	while (grp && config_setting_is_group(grp)) {
		dot = strchr(key, '.');
		if (!dot)
			return config_setting_get_member(grp, key);
		if ((size_t)(dot - key) >= sizeof(part))
			return NULL;
		memcpy(part, key, (size_t)(dot - key));
		part[dot - key] = '\0';
		grp = config_setting_get_member(grp, part);
		key = dot + 1;
	}
	return NULL;
}

/* An integer from an int, int64 or integral float setting.  0 or -1. */
int cfg_int_value(const config_setting_t *s, long long *out)
{
	double f;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		*out = config_setting_get_int(s);
		return 0;
	case CONFIG_TYPE_INT64:
		*out = config_setting_get_int64(s);
		return 0;
	case CONFIG_TYPE_FLOAT:
		f = config_setting_get_float(s);
		/* 9.2e18 is the largest double below 2^63 in magnitude terms */
		if (f != floor(f) || f < -9.2e18 || f > 9.2e18)
			return -1;
		*out = (long long)f;
		return 0;
	default:
		return -1;
	}
}

/* ---- values, from a setting or from text --------------------------------
 * A value to check is described once, whatever it came from, so that the
 * file and the command line get the same ranges and the same words: its
 * kind, its number, the text units.c parses, and how messages quote it. */

enum cval_kind { CV_INT, CV_FLOAT, CV_STR, CV_BOOL, CV_OTHER };

struct cval {
	enum cval_kind kind;
	long long i;            /* CV_INT, CV_BOOL (0/1), integral CV_FLOAT */
	int       integral;     /* i holds the value exactly */
	double    f;            /* CV_INT, CV_FLOAT */
	const char *text;       /* for units.c: the string, or the number
				 * written out; NULL for CV_BOOL/CV_OTHER */
	char      tbuf[64];
	char      desc[160];    /* as messages quote it */
};

/* The shortest text that reads back as the same double, so that messages
 * quote 0.3 rather than 0.29999999999999999. */
static void fmt_double(double f, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", f);
	if (strtod(buf, NULL) != f)
		snprintf(buf, len, "%.17g", f);
}

static void cval_from_setting(const config_setting_t *s, struct cval *v)
{
	memset(v, 0, sizeof(*v));
	cfg_describe(s, v->desc, sizeof(v->desc));
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v->kind = CV_INT;
		cfg_int_value(s, &v->i);
		v->integral = 1;
		v->f = (double)v->i;
		snprintf(v->tbuf, sizeof(v->tbuf), "%lld", v->i);
		v->text = v->tbuf;
		break;
	case CONFIG_TYPE_FLOAT:
		v->kind = CV_FLOAT;
		v->f = config_setting_get_float(s);
		v->integral = cfg_int_value(s, &v->i) == 0;
		fmt_double(v->f, v->tbuf, sizeof(v->tbuf));
		v->text = v->tbuf;
		break;
	case CONFIG_TYPE_STRING:
		v->kind = CV_STR;
		v->text = config_setting_get_string(s);
		break;
	case CONFIG_TYPE_BOOL:
		v->kind = CV_BOOL;
		v->i = config_setting_get_bool(s) ? 1 : 0;
		break;
	default:
		v->kind = CV_OTHER;
		break;
	}
}

/* Text from a command line, read the way libconfig would read it as a
 * value: an integer, a real, true/false, or else a string. */
static void cval_from_text(const char *t, struct cval *v)
{
	char *end;

	memset(v, 0, sizeof(*v));
	v->text = t;
	snprintf(v->desc, sizeof(v->desc), "'%s'", t);
	if (strcmp(t, "true") == 0 || strcmp(t, "false") == 0) {
		v->kind = CV_BOOL;
		v->i = t[0] == 't';
		v->text = NULL;
		return;
	}
	errno = 0;
	v->i = strtoll(t, &end, 10);
	if (*t && !*end && errno == 0) {
		v->kind = CV_INT;
		v->integral = 1;
		v->f = (double)v->i;
		return;
	}
	v->f = strtod(t, &end);
	if (*t && !*end && isfinite(v->f)) {
		v->kind = CV_FLOAT;
		v->integral = v->f == floor(v->f) && fabs(v->f) <= 9.2e18;
		if (v->integral)
			v->i = (long long)v->f;
		return;
	}
	v->kind = CV_STR;
}

/* A number from an int, int64 or float setting.  0 or -1. */
int cfg_num_value(const config_setting_t *s, double *out)
{
	struct cval v;

	cval_from_setting(s, &v);
	if (v.kind != CV_INT && v.kind != CV_FLOAT)
		return -1;
	*out = v.f;
	return 0;
}

/* The "(accepted: ...)" tail of a units.c message, for values of a type
 * units.c never sees (a boolean, a group). */
static const char *accepted_tail(const char *err)
{
	const char *a = strstr(err, "(accepted:");

	return a ? a : "";
}

/* Each check_* returns 0 and stores the value, or -1 with the message
 * (without the key) in err. */

/* `accepted`, when given, replaces the generated "lo..hi" text (a key
 * whose table range is wider than what it accepts, to let its owner
 * explain a value). */
static int check_uint(const struct cval *v, uint64_t lo, uint64_t hi,
		      const char *unit, const char *accepted, uint64_t *out,
		      char *err, size_t len)
{
	int isint = (v->kind == CV_INT || v->kind == CV_FLOAT) && v->integral;
	const char *what = isint ? "out of range" : "not an integer";

	if (!isint || v->i < 0 || (uint64_t)v->i < lo || (uint64_t)v->i > hi) {
		if (accepted)
			snprintf(err, len, "%s is %s (accepted: %s)", v->desc,
				 what, accepted);
		else
			snprintf(err, len, "%s is %s (accepted: %llu..%llu%s)",
				 v->desc, what, (unsigned long long)lo,
				 (unsigned long long)hi, unit);
		return -1;
	}
	*out = (uint64_t)v->i;
	return 0;
}

/* lo..hi when both ends are closed (as the file has always printed
 * them), else "lo < name < hi" with the ends as open as they are. */
static void number_accepted(const char *name, double lo, double hi,
			    unsigned flags, const char *unit, char *buf,
			    size_t len)
{
	if (!(flags & (CFG_F_LO_OPEN | CFG_F_HI_OPEN)))
		snprintf(buf, len, "%g..%g", lo, hi);
	else
		snprintf(buf, len, "%g %s %s %s %g%s%s", lo,
			 flags & CFG_F_LO_OPEN ? "<" : "<=", name,
			 flags & CFG_F_HI_OPEN ? "<" : "<=", hi,
			 unit ? ", " : "", unit ? unit : "");
}

static int check_number(const struct cval *v, double lo, double hi,
			unsigned flags, const char *accepted, double *out,
			char *err, size_t len)
{
	int isnum = v->kind == CV_INT || v->kind == CV_FLOAT;
	int lo_ok = flags & CFG_F_LO_OPEN ? v->f > lo : v->f >= lo;
	int hi_ok = flags & CFG_F_HI_OPEN ? v->f < hi : v->f <= hi;

	if (!isnum || !(lo_ok && hi_ok)) {
		snprintf(err, len, "%s is %s (accepted: %s)", v->desc,
			 isnum ? "out of range" : "not a number", accepted);
		return -1;
	}
	*out = v->f;
	return 0;
}

/* true/false; 0 and 1 are taken as the same. */
static int check_bool(const struct cval *v, int *out, char *err, size_t len)
{
	if (v->kind == CV_BOOL || (v->kind == CV_INT && (v->i == 0 ||
							  v->i == 1))) {
		*out = (int)v->i;
		return 0;
	}
	snprintf(err, len, "%s is not a boolean (accepted: true, false)",
		 v->desc);
	return -1;
}

static int check_rate(const struct cval *v, int allow_unlimited,
		      uint64_t *out_bps, char *err, size_t len)
{
	char e[512];

	if (!v->text) {
		parse_rate_bps("", allow_unlimited, out_bps, e, sizeof(e));
		snprintf(err, len, "%s is not a rate %s", v->desc,
			 accepted_tail(e));
		return -1;
	}
	return parse_rate_bps(v->text, allow_unlimited, out_bps, err, len);
}

/* A duration without range check: a string with units, or seconds. */
static int check_duration(const struct cval *v, uint64_t *out_ns, char *err,
			  size_t len)
{
	char e[512];

	if (!v->text) {
		parse_duration_ns("", out_ns, e, sizeof(e));
		snprintf(err, len, "%s is not a duration %s", v->desc,
			 accepted_tail(e));
		return -1;
	}
	return parse_duration_ns(v->text, out_ns, err, len);
}

static int check_duration_range(const struct cval *v, uint64_t lo_ns,
				uint64_t hi_ns, uint64_t *out_ns, char *err,
				size_t len)
{
	char lb[32], hb[32];
	uint64_t ns;

	if (check_duration(v, &ns, err, len) < 0)
		return -1;
	if (ns < lo_ns || ns > hi_ns) {
		snprintf(err, len, "%s is out of range (accepted: %s..%s)",
			 v->desc, fmt_duration(lo_ns, lb, sizeof(lb)),
			 fmt_duration(hi_ns, hb, sizeof(hb)));
		return -1;
	}
	*out_ns = ns;
	return 0;
}

/* A string that fits out[outlen] with its terminator. */
static int check_string(const struct cval *v, char *out, size_t outlen,
			char *err, size_t len)
{
	size_t max = outlen ? outlen - 1 : 0;

	if (v->kind != CV_STR) {
		snprintf(err, len, "%s is not a string (accepted: a quoted "
			 "string of at most %zu characters)", v->desc, max);
		return -1;
	}
	if (strlen(v->text) > max) {
		snprintf(err, len, "'%s' is too long (accepted: at most %zu "
			 "characters)", v->text, max);
		return -1;
	}
	memcpy(out, v->text, strlen(v->text) + 1);
	return 0;
}

/* 1, or -1 after reporting err against s. */
static int verdict(struct diag *d, const config_setting_t *s, int r,
		   const char *err)
{
	if (r == 0)
		return 1;
	cfg_report(d, s, NULL, "%s", err);
	return -1;
}

/* ---- typed access (cfgval.h) ---------------------------------------------- */

int cfg_get_uint(const config_setting_t *s, uint64_t lo, uint64_t hi,
		 const char *unit, uint64_t *out, struct diag *d)
{
	char err[512];
	struct cval v;

	cval_from_setting(s, &v);
	return verdict(d, s, check_uint(&v, lo, hi, unit, NULL, out, err,
					sizeof(err)), err);
}

int cfg_get_duration(const config_setting_t *s, uint64_t *out_ns,
		     struct diag *d)
{
	char err[512];
	struct cval v;

	cval_from_setting(s, &v);
	return verdict(d, s, check_duration(&v, out_ns, err, sizeof(err)),
		       err);
}

int cfg_get_rate(const config_setting_t *s, int allow_unlimited,
		 uint64_t *out_bps, struct diag *d)
{
	char err[512];
	struct cval v;

	cval_from_setting(s, &v);
	return verdict(d, s, check_rate(&v, allow_unlimited, out_bps, err,
					sizeof(err)), err);
}

int cfg_get_string(const config_setting_t *s, char *out, size_t outlen,
		   struct diag *d)
{
	char err[1024];
	struct cval v;

	cval_from_setting(s, &v);
	return verdict(d, s, check_string(&v, out, outlen, err, sizeof(err)),
		       err);
}

/* A number in [lo, hi]; ints are fine ("bw = 1"). */
int cfg_fraction(const struct config_setting_t *grp, const char *key,
		 double lo, double hi, double *out, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);
	char acc[64], err[512];
	struct cval v;

	if (!s)
		return 0;
	cval_from_setting(s, &v);
	number_accepted(key, lo, hi, 0, NULL, acc, sizeof(acc));
	return verdict(d, s, check_number(&v, lo, hi, 0, acc, out, err,
					  sizeof(err)), err);
}

/* A byte count in [lo, hi]: int, int64 or an integral float. */
int cfg_bytes(const struct config_setting_t *grp, const char *key,
	      uint64_t lo, uint64_t hi, uint64_t *out, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);

	return s ? cfg_get_uint(s, lo, hi, " bytes", out, d) : 0;
}

/* A count in [lo, hi]: int, int64 or an integral float. */
int cfg_uint(const struct config_setting_t *grp, const char *key,
	     uint64_t lo, uint64_t hi, uint64_t *out, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);

	return s ? cfg_get_uint(s, lo, hi, "", out, d) : 0;
}

int cfg_bool(const struct config_setting_t *grp, const char *key,
	     int *out, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);
	char err[512];
	struct cval v;

	if (!s)
		return 0;
	cval_from_setting(s, &v);
	return verdict(d, s, check_bool(&v, out, err, sizeof(err)), err);
}

/* A rate string ("20Mbit") or a number of bit/s. */
int cfg_rate(const struct config_setting_t *grp, const char *key,
	     int allow_unlimited, uint64_t *out_bps, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);

	return s ? cfg_get_rate(s, allow_unlimited, out_bps, d) : 0;
}

/* A duration string ("250ms") or a number of seconds, in [lo_ns, hi_ns]. */
int cfg_duration(const struct config_setting_t *grp, const char *key,
		 uint64_t lo_ns, uint64_t hi_ns, uint64_t *out_ns,
		 struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);
	char err[512];
	struct cval v;

	if (!s)
		return 0;
	cval_from_setting(s, &v);
	return verdict(d, s, check_duration_range(&v, lo_ns, hi_ns, out_ns,
						  err, sizeof(err)), err);
}

int cfg_string(const struct config_setting_t *grp, const char *key,
	       char *out, size_t outlen, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, key);

	return s ? cfg_get_string(s, out, outlen, d) : 0;
}

/* Every member not in `allowed` is an error naming the accepted keys; a
 * grp that is not a group at all is one error. */
int cfg_check_keys(const struct config_setting_t *grp,
		   const char *const allowed[], struct diag *d)
{
	char list[512], vb[128];
	int i, j, n, nerr = 0;

	if (!grp)
		return 0;
	if (!config_setting_is_group(grp)) {
		cfg_report(d, grp, NULL, "%s is not a group (accepted: { %s })",
		       cfg_describe(grp, vb, sizeof(vb)),
		       cfg_join(allowed, list, sizeof(list)));
		return 1;
	}
	n = config_setting_length(grp);
	for (i = 0; i < n; i++) {
		const config_setting_t *m = config_setting_get_elem(grp, i);
		const char *name = config_setting_name(m);

		for (j = 0; allowed[j]; j++)
			if (name && strcmp(name, allowed[j]) == 0)
				break;
		if (allowed[j])
			continue;
		cfg_report(d, m, NULL, "unknown key (accepted: %s)",
		       cfg_join(allowed, list, sizeof(list)));
		nerr++;
	}
	return nerr;
}

/* ---- key tables ------------------------------------------------------------ */

const struct cfg_key *cfg_find_key(const struct cfg_key *keys,
				   const char *name)
{
	for (; keys && keys->name; keys++)
		if (strcmp(keys->name, name) == 0)
			return keys;
	return NULL;
}

int cfg_status_of(const struct cfg_status *s, const char *name)
{
	const struct cfg_key *k = cfg_find_key(s->keys, name);

	return k && k - s->keys < CFG_KEYS_MAX ? s->st[k - s->keys] : 0;
}

/* The last component of a dotted name: what messages call the key. */
static const char *leaf(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

/* The direct members of group `parent` ("" for the table's top level):
 * the leaf names of the entries one level below it, into list[] (NULL
 * terminated). */
static void members_of(const struct cfg_key *keys, const char *parent,
		       const char *list[], size_t max)
{
	size_t plen = strlen(parent), n = 0;

	for (; keys->name && n + 1 < max; keys++) {
		const char *rest = keys->name;

		if (plen) {
			if (strncmp(rest, parent, plen) || rest[plen] != '.')
				continue;
			rest += plen + 1;
		}
		if (!strchr(rest, '.'))
			list[n++] = rest;
	}
	list[n] = NULL;
}

int cfg_check_table(const struct config_setting_t *grp,
		    const struct cfg_key *keys, struct diag *d)
{
	const char *list[CFG_KEYS_MAX + 1];

	members_of(keys, "", list, CFG_KEYS_MAX + 1);
	return cfg_check_keys(grp, list, d);
}

/* Stores an unsigned value in a field of 1, 2, 4 or 8 bytes (the table
 * says which); the range check has already bounded it. */
static void store_uint(void *field, size_t size, uint64_t v)
{
	switch (size) {
	case 1: *(uint8_t *)field = (uint8_t)v; break;
	case 2: *(uint16_t *)field = (uint16_t)v; break;
	case 4: *(uint32_t *)field = (uint32_t)v; break;
	default: *(uint64_t *)field = v; break;
	}
}

/* One table entry against one value: 0 and the field set, or -1 with the
 * message in err.  Groups and custom entries are not values. */
static int check_key(const struct cfg_key *k, const struct cval *v,
		     void *params, char *err, size_t len)
{
	void *field = (char *)params + k->offset;
	char acc[256];
	uint64_t u;
	double f;
	int b;

	switch (k->type) {
	case CFG_T_UINT:
	case CFG_T_BYTES:
		if (check_uint(v, k->min, k->max, k->type == CFG_T_BYTES ?
			       " bytes" : "", k->accepted, &u, err, len) < 0)
			return -1;
		store_uint(field, k->size, u);
		return 0;
	case CFG_T_NUMBER:
		if (k->accepted)
			snprintf(acc, sizeof(acc), "%s", k->accepted);
		else
			number_accepted(leaf(k->name), k->lo, k->hi, k->flags,
					k->unit, acc, sizeof(acc));
		if (check_number(v, k->lo, k->hi, k->flags, acc, &f, err,
				 len) < 0)
			return -1;
		*(double *)field = f;
		return 0;
	case CFG_T_BOOL:
		if (check_bool(v, &b, err, len) < 0)
			return -1;
		*(int *)field = b;
		return 0;
	case CFG_T_RATE:
		if (check_rate(v, !!(k->flags & CFG_F_UNLIMITED), &u, err,
			       len) < 0)
			return -1;
		*(uint64_t *)field = u;
		return 0;
	case CFG_T_DURATION:
		if (check_duration_range(v, k->min, k->max, &u, err, len) < 0)
			return -1;
		*(uint64_t *)field = u;
		return 0;
	case CFG_T_STRING:
		return check_string(v, field, k->size, err, len);
	default:
		snprintf(err, len, "%s is not settable as one value", v->desc);
		return -1;
	}
}

int cfg_parse_key(const struct config_setting_t *grp, const struct cfg_key *k,
		  void *params, struct diag *d)
{
	const config_setting_t *s = cfg_lookup(grp, k->name);
	char err[1024];
	struct cval v;

	if (!s)
		return 0;
	if (k->type == CFG_T_GROUP || k->type == CFG_T_CUSTOM)
		return 1;       /* the group walk or the owner checks it */
	cval_from_setting(s, &v);
	return verdict(d, s, check_key(k, &v, params, err, sizeof(err)), err);
}

/* The excludes/needs relations of every present entry, in table order;
 * a relation is a mistake of the file's shape, so it comes before any
 * value. */
static void check_relations(const config_setting_t *grp,
			    const struct cfg_key *keys, struct diag *d)
{
	const struct cfg_key *k;

	for (k = keys; k->name; k++) {
		const config_setting_t *s = cfg_lookup(grp, k->name), *o;

		if (!s)
			continue;
		if (k->excludes && (o = cfg_lookup(grp, k->excludes)))
			cfg_report(d, s, NULL, "given together with %s "
				   "(line %d) (accepted: %s)", k->excludes,
				   config_setting_source_line(o),
				   k->accepted ? k->accepted : "one of them");
		if (k->needs && !cfg_lookup(grp, k->needs))
			cfg_report(d, s, NULL, "has no effect without %s "
				   "(accepted: %s)", k->needs, k->accepted ?
				   k->accepted : "both together");
	}
}

int cfg_parse_keys(const struct config_setting_t *grp,
		   const struct cfg_key *keys, void *params,
		   struct cfg_status *st, struct diag *d)
{
	const char *list[CFG_KEYS_MAX + 1];
	const struct cfg_key *k;
	struct diag quiet;
	int start, i, r;

	if (!d) {
		diag_init(&quiet, NULL, NULL);
		d = &quiet;
	}
	if (st) {
		st->keys = keys;
		memset(st->st, 0, sizeof(st->st));
	}
	if (!grp)
		return 0;
	start = d->nerr;
	members_of(keys, "", list, CFG_KEYS_MAX + 1);
	if (cfg_check_keys(grp, list, d) && !config_setting_is_group(grp))
		return d->nerr - start;
	check_relations(grp, keys, d);
	for (k = keys, i = 0; k->name && i < CFG_KEYS_MAX; k++, i++) {
		const config_setting_t *s;

		if (k->type != CFG_T_GROUP) {
			r = cfg_parse_key(grp, k, params, d);
		} else if ((s = cfg_lookup(grp, k->name))) {
			/* unknown members, or "is not a group" */
			members_of(keys, k->name, list, CFG_KEYS_MAX + 1);
			r = cfg_check_keys(s, list, d) ? -1 : 1;
		} else {
			r = 0;
		}
		if (st)
			st->st[i] = (signed char)r;
	}
	return d->nerr - start;
}

int cfg_set_key(const struct cfg_key *keys, void *params, const char *name,
		const char *text, char *err, size_t errlen)
{
	const struct cfg_key *k = cfg_find_key(keys, name);
	struct cval v;

	if (!k) {
		snprintf(err, errlen, "'%s' is not a key", name);
		return -1;
	}
	cval_from_text(text, &v);
	return check_key(k, &v, params, err, errlen);
}

/* ---- the reference ------------------------------------------------------- */

/* "1..1000000 bytes", "0 < bw < 1", "{ af, cs0 }": what a key accepts. */
static const char *key_range(const struct cfg_key *keys,
			     const struct cfg_key *k, char *buf, size_t len)
{
	const char *list[CFG_KEYS_MAX + 1];
	char lb[32], hb[32], names[256];

	switch (k->type) {
	case CFG_T_UINT:
	case CFG_T_BYTES:
		snprintf(buf, len, "%llu..%llu%s%s",
			 (unsigned long long)k->min, (unsigned long long)k->max,
			 k->unit ? " " : "", k->unit ? k->unit : "");
		break;
	case CFG_T_NUMBER:
		number_accepted(leaf(k->name), k->lo, k->hi, k->flags, k->unit,
				buf, len);
		break;
	case CFG_T_BOOL:
		snprintf(buf, len, "true, false");
		break;
	case CFG_T_RATE:
		snprintf(buf, len, "a rate (\"20Mbit\")%s",
			 k->flags & CFG_F_UNLIMITED ? " or \"unlimited\"" : "");
		break;
	case CFG_T_DURATION:
		snprintf(buf, len, "%s..%s", fmt_duration(k->min, lb,
							   sizeof(lb)),
			 fmt_duration(k->max, hb, sizeof(hb)));
		break;
	case CFG_T_STRING:
		snprintf(buf, len, "a string of at most %zu characters",
			 k->size ? k->size - 1 : 0);
		break;
	case CFG_T_GROUP:
		members_of(keys, k->name, list, CFG_KEYS_MAX + 1);
		snprintf(buf, len, "{ %s }", cfg_join(list, names,
						       sizeof(names)));
		break;
	default:
		snprintf(buf, len, "see the meaning");
		break;
	}
	return buf;
}

static void print_key(FILE *f, const char *prefix, const struct cfg_key *keys,
		      const struct cfg_key *k, int markdown)
{
	char name[160], range[256];

	snprintf(name, sizeof(name), "%s%s%s", prefix ? prefix : "",
		 prefix && *prefix ? "." : "", k->name);
	key_range(keys, k, range, sizeof(range));
	if (markdown)
		fprintf(f, "| `%s` | %s | %s | %s |\n", name, range,
			k->def ? k->def : "", k->help ? k->help : "");
	else
		fprintf(f, "  %s: %s%s%s%s\n      %s\n", name, range,
			k->def ? " (default " : "", k->def ? k->def : "",
			k->def ? ")" : "", k->help ? k->help : "");
}

void cfg_print_keys(FILE *f, const char *prefix, const struct cfg_key *keys,
		    int markdown)
{
	const struct cfg_key *k;

	if (markdown)
		fprintf(f, "| key | accepted | default | meaning |\n"
			   "|---|---|---|---|\n");
	for (k = keys; k && k->name; k++) {
		print_key(f, prefix, keys, k, markdown);
		if (k->type == CFG_T_CUSTOM && k->sub) {
			const struct cfg_key *m;
			char sub[160];

			snprintf(sub, sizeof(sub), "%s%s%s.<%s>",
				 prefix ? prefix : "",
				 prefix && *prefix ? "." : "", k->name,
				 k->sub_name ? k->sub_name : "member");
			for (m = k->sub; m->name; m++)
				print_key(f, sub, k->sub, m, markdown);
		}
	}
}
