/* cfgcheck.h - internal to the value layer (cfgval.c, cfgkeys.c): a value
 * to check, described once whatever it came from (a setting or command-line
 * text), and the checks of each type.  Each check_* returns 0 and stores
 * the value, or -1 with the message, without the key, in err. */
#ifndef SCHEDTUN_CFGCHECK_H
#define SCHEDTUN_CFGCHECK_H

#include <stddef.h>
#include <stdint.h>

struct config_setting_t;

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

void cval_from_setting(const struct config_setting_t *s, struct cval *v);
/* Read the way libconfig would read it as a value: an integer, a real,
 * true/false, or else a string. */
void cval_from_text(const char *t, struct cval *v);

/* `unit` ("" or " bytes") follows the range in the message; `accepted`,
 * when given, replaces the generated "lo..hi" text (a key whose range is
 * wider than what it accepts, so that its owner can explain a value). */
int check_uint(const struct cval *v, uint64_t lo, uint64_t hi,
	       const char *unit, const char *accepted, uint64_t *out,
	       char *err, size_t len);
/* "lo..hi" when both ends are closed, else "lo < name < hi[, unit]". */
void number_accepted(const char *name, double lo, double hi, unsigned flags,
		     const char *unit, char *buf, size_t len);
int check_number(const struct cval *v, double lo, double hi, unsigned flags,
		 const char *accepted, double *out, char *err, size_t len);
int check_bool(const struct cval *v, int *out, char *err, size_t len);
int check_rate(const struct cval *v, int allow_unlimited, uint64_t *out_bps,
	       char *err, size_t len);
int check_duration(const struct cval *v, uint64_t *out_ns, char *err,
		   size_t len);
int check_duration_range(const struct cval *v, uint64_t lo_ns,
			 uint64_t hi_ns, uint64_t *out_ns, char *err,
			 size_t len);
int check_string(const struct cval *v, char *out, size_t outlen, char *err,
		 size_t len);

struct cfg_key;

/* What entry k of table `keys` accepts, as the reference prints it:
 * "1..1000000 bytes", "0 < bw < 1", "{ af, cs0 }".  Returns buf. */
const char *cfg_key_range(const struct cfg_key *keys,
			  const struct cfg_key *k, char *buf, size_t len);
/* "PREFIX.NAME.<sub_name>": the prefix of the members of CUSTOM entry k's
 * sub-table in the reference.  Returns buf. */
const char *cfg_sub_prefix(const char *prefix, const struct cfg_key *k,
			   char *buf, size_t len);

#endif
