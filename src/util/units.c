/* units.c - rates and durations as tc users write them.
 *
 * Numbers are scanned by hand rather than with strtod(): strtod accepts
 * hex, "inf", "nan" and locale-dependent radix characters, and a double
 * cannot hold every 64-bit integer, so "9223372036854775809" would round
 * into range.  The integer part is accumulated exactly; only the fraction
 * (which is below one unit, so at most 8*2^40 bit/s) goes through a double.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/units.h"

/* Largest value either parser accepts: 2^63 (bit/s or ns). */
#define UNITS_MAX ((uint64_t)1 << 63)

/* The significant digits we keep for the fraction; the rest cannot change
 * the result by more than a rounding step. */
#define FRAC_DIGITS_MAX 17

struct suffix {
	const char *name;
	uint64_t    mult;
};

static const struct suffix rate_suffixes[] = {
	{ "",      1 },
	{ "bit",   1 },
	{ "kbit",  1000ULL },
	{ "mbit",  1000000ULL },
	{ "gbit",  1000000000ULL },
	{ "tbit",  1000000000000ULL },
	{ "kibit", 1024ULL },
	{ "mibit", 1024ULL * 1024 },
	{ "gibit", 1024ULL * 1024 * 1024 },
	{ "tibit", 1024ULL * 1024 * 1024 * 1024 },
	/* tc(8): "bps" is bytes per second */
	{ "bps",   8ULL },
	{ "kbps",  8ULL * 1000 },
	{ "mbps",  8ULL * 1000000 },
	{ "gbps",  8ULL * 1000000000 },
	{ "tbps",  8ULL * 1000000000000 },
	{ "kibps", 8ULL * 1024 },
	{ "mibps", 8ULL * 1024 * 1024 },
	{ "gibps", 8ULL * 1024 * 1024 * 1024 },
	{ "tibps", 8ULL * 1024 * 1024 * 1024 * 1024 },
	{ NULL, 0 }
};

static const struct suffix duration_suffixes[] = {
	{ "",      1000000000ULL },
	{ "s",     1000000000ULL },
	{ "sec",   1000000000ULL },
	{ "secs",  1000000000ULL },
	{ "ms",    1000000ULL },
	{ "msec",  1000000ULL },
	{ "msecs", 1000000ULL },
	{ "us",    1000ULL },
	{ "usec",  1000ULL },
	{ "usecs", 1000ULL },
	{ "ns",    1ULL },
	{ "nsec",  1ULL },
	{ "nsecs", 1ULL },
	{ NULL, 0 }
};

#define RATE_ACCEPTED \
	"a number > 0 with bit, kbit, mbit, gbit, tbit, kibit..tibit, " \
	"or bps, kbps, mbps, gbps, tbps, kibps..tibps = bytes/s as in tc; " \
	"a plain number is bit/s"
#define DURATION_ACCEPTED \
	"a number >= 0 with ns, us, ms, s (also nsec, usec, msec, sec, secs); " \
	"a plain number is seconds"

/* A refused value is quoted up to this many characters and "...": the
 * accepted list after it must survive the callers' message buffers (a
 * 1000-character value in a csv line pushed it out; fuzz_efgen). */
#define VAL_QUOTE_MAX 80

/* The "..." that follows a value cut to VAL_QUOTE_MAX. */
static const char *cut_mark(const char *s)
{
	return strlen(s) > VAL_QUOTE_MAX ? "..." : "";
}

enum scan_result { SCAN_OK = 0, SCAN_SYNTAX, SCAN_OVERFLOW };

/* Scans "DIGITS[.DIGITS][e[+-]DIGITS]" at *sp, then optional blanks and a
 * suffix from `tab` that must end the string (trailing blanks allowed).
 * On SCAN_OK *out = round(number * multiplier).  Values above UNITS_MAX
 * are SCAN_OVERFLOW. */
static enum scan_result scan_number(const char *s, const struct suffix *tab,
				    uint64_t *out)
{
	char digits[64];        /* significant digits, leading zeros dropped */
	size_t ndig = 0;
	long point = 0;         /* digits before the decimal point */
	int seen_digit = 0, seen_point = 0;
	long exp10 = 0;
	const char *p = s;
	const struct suffix *suf;
	size_t sl;
	uint64_t ipart = 0, mult;
	double frac = 0.0, scale = 0.1, rounded;
	long i;

	while (isspace((unsigned char)*p))
		p++;
	for (;; p++) {
		if (*p == '.' && !seen_point) {
			seen_point = 1;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			break;
		seen_digit = 1;
		if (ndig == 0 && *p == '0') {
			/* leading zero: only moves the point */
			if (seen_point)
				point--;
			continue;
		}
		if (ndig < sizeof(digits)) {
			digits[ndig++] = *p;
			if (!seen_point)
				point++;
		} else if (!seen_point) {
			/* beyond 64 significant digits only the magnitude
			 * matters: it is an overflow anyway */
			point++;
		}
	}
	if (!seen_digit)
		return SCAN_SYNTAX;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		int neg = 0;

		p++;
		if (*p == '+' || *p == '-')
			neg = *p++ == '-';
		while (isdigit((unsigned char)*p)) {
			if (exp10 < 100000)
				exp10 = exp10 * 10 + (*p - '0');
			p++;
		}
		point += neg ? -exp10 : exp10;
	}
	while (isspace((unsigned char)*p))
		p++;
	sl = strlen(p);
	while (sl > 0 && isspace((unsigned char)p[sl - 1]))
		sl--;
	for (suf = tab; suf->name; suf++)
		if (strlen(suf->name) == sl && strncasecmp(p, suf->name, sl) == 0)
			break;
	if (!suf->name)
		return SCAN_SYNTAX;
	mult = suf->mult;

	/* integer part: digits[0 .. point) with zeros past ndig */
	if (point > 20)
		return SCAN_OVERFLOW;
	for (i = 0; i < point; i++) {
		unsigned d = i < (long)ndig ? (unsigned)(digits[i] - '0') : 0;

		if (ipart > (UINT64_MAX - d) / 10)
			return SCAN_OVERFLOW;
		ipart = ipart * 10 + d;
	}
	if (ipart != 0 && mult > UNITS_MAX / ipart)
		return SCAN_OVERFLOW;
	ipart *= mult;
	if (ipart > UNITS_MAX)
		return SCAN_OVERFLOW;

	/* fraction: digits[point ..), preceded by -point zeros if point < 0 */
	if (point < 0) {
		for (i = 0; i < -point && scale > 0.0; i++)
			scale /= 10.0;
	}
	for (i = point < 0 ? 0 : point;
	     i < (long)ndig && i - (point < 0 ? 0 : point) < FRAC_DIGITS_MAX;
	     i++) {
		frac += (digits[i] - '0') * scale;
		scale /= 10.0;
	}
	rounded = round(frac * (double)mult);
	if ((double)(UNITS_MAX - ipart) < rounded)
		return SCAN_OVERFLOW;
	*out = ipart + (uint64_t)rounded;
	return SCAN_OK;
}

/* Parses a rate into bit/s.  "unlimited" (any case) gives RATE_UNLIMITED
 * when allow_unlimited; zero, negative, malformed and > 2^63 bit/s are
 * refused with "'VALUE' is not a rate..." in err. */
int parse_rate_bps(const char *s, int allow_unlimited, uint64_t *out_bps,
		   char *err, size_t errlen)
{
	const char *alt = allow_unlimited ? "; or \"unlimited\"" : "";
	const char *why = "";
	uint64_t v = 0;
	const char *p = s ? s : "";

	while (isspace((unsigned char)*p))
		p++;
	if (strncasecmp(p, "unlimited", 9) == 0) {
		const char *q = p + 9;

		while (isspace((unsigned char)*q))
			q++;
		if (*q == '\0') {
			if (allow_unlimited) {
				*out_bps = RATE_UNLIMITED;
				return 0;
			}
			why = ": \"unlimited\" is not allowed here";
			goto bad;
		}
	}
	switch (scan_number(p, rate_suffixes, &v)) {
	case SCAN_OK:
		if (v == 0) {
			why = ": it must be above 0";
			goto bad;
		}
		*out_bps = v;
		return 0;
	case SCAN_OVERFLOW:
		why = ": larger than 2^63 bit/s";
		break;
	case SCAN_SYNTAX:
		break;
	}
bad:
	if (err && errlen)
		snprintf(err, errlen, "'%.*s%s' is not a rate%s (accepted: "
			 "%s%s)", VAL_QUOTE_MAX, s ? s : "", cut_mark(s ? s : ""),
			 why, RATE_ACCEPTED, alt);
	return -1;
}

/* Parses a duration into ns.  Zero is a valid duration; negative,
 * malformed and > 2^63 ns are refused. */
int parse_duration_ns(const char *s, uint64_t *out_ns, char *err, size_t errlen)
{
	const char *why = "";
	uint64_t v = 0;

	switch (scan_number(s ? s : "", duration_suffixes, &v)) {
	case SCAN_OK:
		*out_ns = v;
		return 0;
	case SCAN_OVERFLOW:
		why = ": larger than 2^63 ns";
		break;
	case SCAN_SYNTAX:
		break;
	}
	if (err && errlen)
		snprintf(err, errlen, "'%.*s%s' is not a duration%s (accepted: "
			 "%s)", VAL_QUOTE_MAX, s ? s : "", cut_mark(s ? s : ""),
			 why, DURATION_ACCEPTED);
	return -1;
}

/* Prints v/unit with up to three decimals, trailing zeros removed. */
static const char *fmt_scaled(uint64_t v, uint64_t unit, const char *name,
			      char *buf, size_t len)
{
	char num[48];
	char *e;

	if (v % unit == 0) {
		snprintf(buf, len, "%llu%s",
			 (unsigned long long)(v / unit), name);
		return buf;
	}
	if (v > UNITS_MAX - unit / 1000) {
		/* "%.3f" rounds, and near the largest value the parsers
		 * accept rounding up prints one they refuse as too large
		 * (9223372.037Tbit): there the decimals are truncated. */
		snprintf(num, sizeof(num), "%llu.%03llu",
			 (unsigned long long)(v / unit),
			 (unsigned long long)(v % unit / (unit / 1000)));
	} else {
		snprintf(num, sizeof(num), "%.3f", (double)v / (double)unit);
	}
	e = num + strlen(num);
	while (e > num && e[-1] == '0')
		*--e = '\0';
	if (e > num && e[-1] == '.')
		*--e = '\0';
	snprintf(buf, len, "%s%s", num, name);
	return buf;
}

/* "20Mbit", "1.5Mbit", "12.032Mbit", "unlimited": the largest SI unit
 * not above the value; parse_rate_bps() reads every output back. */
const char *fmt_rate(uint64_t bps, char *buf, size_t len)
{
	if (bps == RATE_UNLIMITED) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	if (bps >= 1000000000000ULL)
		return fmt_scaled(bps, 1000000000000ULL, "Tbit", buf, len);
	if (bps >= 1000000000ULL)
		return fmt_scaled(bps, 1000000000ULL, "Gbit", buf, len);
	if (bps >= 1000000ULL)
		return fmt_scaled(bps, 1000000ULL, "Mbit", buf, len);
	if (bps >= 1000ULL)
		return fmt_scaled(bps, 1000ULL, "Kbit", buf, len);
	return fmt_scaled(bps, 1, "bit", buf, len);
}

/* "250ms", "1.5s", "100us", "0s"; TS_NEVER-like UINT64_MAX is "never". */
const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns == UINT64_MAX) {
		snprintf(buf, len, "never");
		return buf;
	}
	if (ns == 0 || ns >= 1000000000ULL)
		return fmt_scaled(ns, 1000000000ULL, "s", buf, len);
	if (ns >= 1000000ULL)
		return fmt_scaled(ns, 1000000ULL, "ms", buf, len);
	if (ns >= 1000ULL)
		return fmt_scaled(ns, 1000ULL, "us", buf, len);
	return fmt_scaled(ns, 1, "ns", buf, len);
}
