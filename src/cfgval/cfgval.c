/* cfgval.c - the configuration value layer (cfgval.h): typed access to
 * libconfig settings and the one error reporter.  The checks themselves
 * are in cfgcheck.c, the key tables in cfgkeys.c.
 *
 * Every message reads "FILE:LINE: dotted.key: 'value' problem (accepted:
 * ...)".  Numbers and strings go through one parser (units.c) and one set
 * of messages, so a rate or a duration means the same in every section and
 * in every scheduler's group.
 */
#include <libconfig.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "util/units.h"
#include "cfgcheck.h"

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
		    const char *member, int warn, const char *fmt, va_list ap)
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
	if (warn)
		diag_warn(d, (int)config_setting_source_line(s), path, "%s", msg);
	else
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
	vreport(d, s, member, 0, fmt, ap);
	va_end(ap);
}

void cfg_warn(struct diag *d, const config_setting_t *s, const char *member,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(d, s, member, 1, fmt, ap);
	va_end(ap);
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

/* libconfig's config_setting_lookup() (>= 1.5) walks the dotted key; this
 * only adds what every caller relies on and libconfig does not give: a
 * NULL parent (an absent optional group) is not dereferenced, and a parent
 * that is not a group has no members (libconfig would index a list with
 * "[n]").  Keys are names from our own tables and code, never the file's
 * text, so libconfig's further path syntax (":" and "/" as separators,
 * "[n]", an empty path naming the parent) never reaches it.  libconfig's
 * prototype lacks the const; the lookup only reads. */
const config_setting_t *cfg_lookup(const config_setting_t *grp,
				      const char *key)
{
	if (!grp || !config_setting_is_group(grp))
		return NULL;
	return config_setting_lookup((config_setting_t *)grp, key);
}

/* 1, or -1 after reporting err against s. */
int cfg_verdict(struct diag *d, const config_setting_t *s, int r,
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
	return cfg_verdict(d, s, check_uint(&v, lo, hi, unit, NULL, out, err,
					sizeof(err)), err);
}

int cfg_get_duration(const config_setting_t *s, uint64_t *out_ns,
		     struct diag *d)
{
	char err[512];
	struct cval v;

	cval_from_setting(s, &v);
	return cfg_verdict(d, s, check_duration(&v, out_ns, err, sizeof(err)),
		       err);
}

int cfg_get_rate(const config_setting_t *s, int allow_unlimited,
		 uint64_t *out_bps, struct diag *d)
{
	char err[512];
	struct cval v;

	cval_from_setting(s, &v);
	return cfg_verdict(d, s, check_rate(&v, allow_unlimited, out_bps, err,
					sizeof(err)), err);
}

int cfg_get_string(const config_setting_t *s, char *out, size_t outlen,
		   struct diag *d)
{
	char err[1024];
	struct cval v;

	cval_from_setting(s, &v);
	return cfg_verdict(d, s, check_string(&v, out, outlen, err, sizeof(err)),
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
	return cfg_verdict(d, s, check_number(&v, lo, hi, 0, acc, out, err,
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
	return cfg_verdict(d, s, check_bool(&v, out, err, sizeof(err)), err);
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
	return cfg_verdict(d, s, check_duration_range(&v, lo_ns, hi_ns, out_ns,
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

