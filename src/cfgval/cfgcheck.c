/* cfgcheck.c - one value, from a libconfig setting or from command-line
 * text, checked against a type and a range with the messages of
 * cfgval.h ("'VALUE' is out of range (accepted: ...)").  The file, the key
 * tables and the command line all go through these checks, so a range is
 * worded the same wherever a value comes from.
 */
#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "util/units.h"
#include "cfgcheck.h"

/* The shortest text that reads back as the same double, so that messages
 * quote 0.3 rather than 0.29999999999999999. */
static void fmt_double(double f, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", f);
	if (strtod(buf, NULL) != f)
		snprintf(buf, len, "%.17g", f);
}

/* See cfgval.h.  How a value is quoted in messages: numbers bare,
 * strings in quotes, aggregates by kind (their contents would not fit on
 * one line).  Here, below cfgval.c, because every check quotes it. */
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

/* See cfgval.h.  An integer from an int, int64 or integral float
 * setting.  0 or -1. */
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

void cval_from_setting(const config_setting_t *s, struct cval *v)
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
void cval_from_text(const char *t, struct cval *v)
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

int check_uint(const struct cval *v, uint64_t lo, uint64_t hi,
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
void number_accepted(const char *name, double lo, double hi,
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

int check_number(const struct cval *v, double lo, double hi,
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
int check_bool(const struct cval *v, int *out, char *err, size_t len)
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

int check_rate(const struct cval *v, int allow_unlimited,
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
int check_duration(const struct cval *v, uint64_t *out_ns, char *err,
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

int check_duration_range(const struct cval *v, uint64_t lo_ns,
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
int check_string(const struct cval *v, char *out, size_t outlen,
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
