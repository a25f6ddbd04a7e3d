/* cfgval.h - the configuration value layer: typed access to libconfig
 * settings, ranges, units, key tables, and the one error reporter.
 *
 * Everything that reads a configuration value goes through here: the file's
 * sections (conf.c), every scheduler's own group (through its key table),
 * `schedtun params` and `schedtun-sim` (values given as text on the command
 * line).  Every problem is reported the same way,
 *
 *   FILE:LINE: dotted.key: 'value' problem (accepted: ...)
 *
 * naming the @include'd file when the setting came from one.  Rates and
 * durations are parsed by units.c, so "20Mbit" means one thing everywhere.
 *
 * Dependencies run one way: conf -> scheduler registry -> this layer.  This
 * header knows nothing of either: schedulers declare their keys in a
 * struct cfg_key table, and the layer parses, range-checks, reports and
 * documents from that table.
 */
#ifndef SCHEDTUN_CFGVAL_H
#define SCHEDTUN_CFGVAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "util/diag.h"

struct config_setting_t;                /* libconfig */

/* ---- typed access to one member ------------------------------------------
 * `key` may be dotted ("quantum.af") to reach into nested groups; grp may
 * be NULL (then everything is absent).  Each returns 1 when the key is
 * present and valid (value stored), 0 when absent (value untouched), -1
 * when present and invalid (error reported through d). */
int cfg_fraction(const struct config_setting_t *grp, const char *key,
		 double lo, double hi, double *out, struct diag *d);
int cfg_bytes(const struct config_setting_t *grp, const char *key,
	      uint64_t lo, uint64_t hi, uint64_t *out, struct diag *d);
int cfg_uint(const struct config_setting_t *grp, const char *key,
	     uint64_t lo, uint64_t hi, uint64_t *out, struct diag *d);
int cfg_bool(const struct config_setting_t *grp, const char *key,
	     int *out, struct diag *d);
int cfg_rate(const struct config_setting_t *grp, const char *key,
	     int allow_unlimited, uint64_t *out_bps, struct diag *d);
int cfg_duration(const struct config_setting_t *grp, const char *key,
		 uint64_t lo_ns, uint64_t hi_ns, uint64_t *out_ns,
		 struct diag *d);
int cfg_string(const struct config_setting_t *grp, const char *key,
	       char *out, size_t outlen, struct diag *d);

/* The same on a setting already in hand (not a member lookup): 1 valid,
 * -1 reported.  `unit` follows the range in messages ("" or " bytes"). */
int cfg_get_uint(const struct config_setting_t *s, uint64_t lo, uint64_t hi,
		 const char *unit, uint64_t *out, struct diag *d);
int cfg_get_rate(const struct config_setting_t *s, int allow_unlimited,
		 uint64_t *out_bps, struct diag *d);
int cfg_get_duration(const struct config_setting_t *s, uint64_t *out_ns,
		     struct diag *d);
int cfg_get_string(const struct config_setting_t *s, char *out,
		   size_t outlen, struct diag *d);
/* An integer from an int, int64 or integral float setting.  0 or -1
 * (nothing reported). */
int cfg_int_value(const struct config_setting_t *s, long long *out);
/* A number from an int, int64 or float setting.  0 or -1. */
int cfg_num_value(const struct config_setting_t *s, double *out);

/* The member `key` of grp, following a dotted key ("quantum.af") through
 * nested groups (libconfig's config_setting_lookup()).  NULL when absent,
 * when grp is NULL (an absent group) or when grp is not a group. */
const struct config_setting_t *cfg_lookup(const struct config_setting_t *grp,
					  const char *key);

/* Reports every member of grp whose name is not in the NULL-terminated
 * list `allowed`, listing the accepted ones; a grp that is not a group is
 * one error.  Returns the error count. */
int cfg_check_keys(const struct config_setting_t *grp,
		   const char *const allowed[], struct diag *d);

/* ---- messages ------------------------------------------------------------ */

/* Reports a problem with setting s: its file (the @include'd one when it
 * came from one), line and dotted key; with `member`, the key is that
 * (absent) member of group s, at s's line. */
void cfg_report(struct diag *d, const struct config_setting_t *s,
		const char *member, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same as a warning: printed with "warning: ", not counted. */
void cfg_warn(struct diag *d, const struct config_setting_t *s,
	      const char *member, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* 1 when r == 0; otherwise reports err against s and returns -1.  For
 * code that checked a value itself and has the message in hand. */
int cfg_verdict(struct diag *d, const struct config_setting_t *s, int r,
		const char *err);

/* A setting's value as messages quote it: numbers bare, strings in
 * quotes, aggregates by kind ("a group").  Returns buf. */
const char *cfg_describe(const struct config_setting_t *s, char *buf,
			 size_t len);

/* Full dotted key path of a setting ("scheduler.pss.bw") into buf. */
const char *cfg_path(const struct config_setting_t *s, char *buf, size_t len);

/* "a, b, c" from a NULL-terminated list ("none" when empty).  Returns buf. */
const char *cfg_join(const char *const list[], char *buf, size_t len);

/* ---- key tables ------------------------------------------------------------
 * A scheduler (or a section of the file) declares its keys once, like the
 * kernel's nla_policy; the layer parses, range-checks, reports unknown keys
 * (listing the accepted ones) and prints the reference from the table, so
 * the docs, the man page, --help-sched and the parser cannot drift apart.
 * A table ends with an entry whose name is NULL. */
enum cfg_type {
	CFG_T_UINT = 1,         /* integer in [min, max] -> uint64_t */
	CFG_T_BYTES,            /* integer in [min, max] bytes -> uint64_t */
	CFG_T_NUMBER,           /* real in lo..hi (ends per flags) -> double */
	CFG_T_BOOL,             /* true/false (or 0/1) -> int */
	CFG_T_RATE,             /* "20Mbit" or bit/s -> uint64_t bit/s */
	CFG_T_DURATION,         /* "250ms" or seconds, [min, max] ns -> uint64_t */
	CFG_T_STRING,           /* -> char[size] */
	CFG_T_GROUP,            /* a group whose members are the dotted
				 * entries "NAME.x" that follow it */
	CFG_T_CUSTOM,           /* parsed by the owner's check(); the table
				 * only names and documents it */
};

#define CFG_F_LO_OPEN    0x01u  /* CFG_T_NUMBER: lo itself is refused */
#define CFG_F_HI_OPEN    0x02u  /* CFG_T_NUMBER: hi itself is refused */
#define CFG_F_UNLIMITED  0x04u  /* CFG_T_RATE: "unlimited" accepted */

struct cfg_key {
	const char *name;       /* member name; "grp.member" inside a group */
	enum cfg_type type;
	unsigned    flags;      /* CFG_F_* */
	uint64_t    min, max;   /* UINT, BYTES, DURATION (ns) */
	double      lo, hi;     /* NUMBER */
	size_t      offset;     /* of the field in the params struct */
	size_t      size;       /* of the field (STRING: the buffer) */
	const char *def;        /* the default, as the reference prints it */
	const char *unit;       /* what the number means: "bytes", "a
				 * fraction of the capacity"; in messages of
				 * open NUMBER ranges, and in the reference */
	const char *accepted;   /* replaces the generated "(accepted: ...)"
				 * text of NUMBER, UINT and BYTES values,
				 * also of a relation message below */
	const char *excludes;   /* another key of the table that may not be
				 * given together with this one */
	const char *needs;      /* a key without which this one does nothing */
	const char *missing;    /* required: "missing (accepted: <this>)"
				 * at the group's line when absent */
	const struct cfg_key *sub;      /* CUSTOM: the keys of its member
					 * groups, for the reference */
	const char *sub_name;   /* what those members are ("class") */
	/* CUSTOM: parses member s into params, in table order (1 valid, -1
	 * reported); NULL: the owner's check() does it afterwards. */
	int (*parse)(const struct config_setting_t *s, void *params,
		     struct diag *d);
	const char *help;       /* one line: what it means */
	const char *range;      /* CUSTOM: what it accepts, for the
				 * reference ("see the meaning" if NULL) */
};

/* Field helpers for table entries. */
#define CFG_FIELD(type, field) \
	.offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

#define CFG_KEYS_MAX 48         /* entries of one table, at most */

/* What the table parse found, per entry (by index): 1 present and valid,
 * 0 absent, -1 present and invalid (reported). */
struct cfg_status {
	const struct cfg_key *keys;
	signed char st[CFG_KEYS_MAX];
};

/* The status of entry `name` (1, 0, -1); 0 for a name not in the table. */
int cfg_status_of(const struct cfg_status *s, const char *name);

/* Parses group grp (NULL: absent, nothing to do) against `keys` into
 * `params`, in this order: unknown members (listing the accepted ones),
 * the excludes/needs relations, then every entry in table order (a group
 * entry that is not a group is reported and its members skipped).  Values
 * present and valid replace the fields; others are left as they were
 * (defaults).  Fills *st when given.  Returns the error count. */
int cfg_parse_keys(const struct config_setting_t *grp,
		   const struct cfg_key *keys, void *params,
		   struct cfg_status *st, struct diag *d);

/* cfg_check_keys() with the top-level names of a table as the accepted
 * keys.  Returns the error count. */
int cfg_check_table(const struct config_setting_t *grp,
		    const struct cfg_key *keys, struct diag *d);

/* Parses the single table entry k from group grp (a member of it, dotted
 * names followed) into params.  1, 0 absent, -1 reported. */
int cfg_parse_key(const struct config_setting_t *grp, const struct cfg_key *k,
		  void *params, struct diag *d);

/* Sets entry `name` of `keys` in params from text, as a command line gives
 * it ("0.3", "4000", "true", "20Mbit", "250ms"), with the same range checks
 * and wording as the file: on error -1 and "'VALUE' is out of range
 * (accepted: ...)" (no key, no line) in err.  Custom and group entries are
 * refused (-1, "is not settable from text").  0 on success. */
int cfg_set_key(const struct cfg_key *keys, void *params, const char *name,
		const char *text, char *err, size_t errlen);

/* The entry called `name`, or NULL. */
const struct cfg_key *cfg_find_key(const struct cfg_key *keys,
				   const char *name);

/* How the reference is written. */
enum cfg_ref_fmt {
	CFG_REF_TEXT = 0,       /* aligned for a terminal (--help-sched) */
	CFG_REF_MD = 1,         /* a Markdown table (docs/) */
	CFG_REF_TSV = 2,        /* key, accepted, default, meaning: one line
				 * each, tab-separated (the man pages) */
};

/* The reference of a table: one line per key (and per member of a CUSTOM
 * entry's sub-table) in format fmt.  `prefix` ("scheduler.pss") is put in
 * front of every key. */
void cfg_print_keys(FILE *f, const char *prefix, const struct cfg_key *keys,
		    enum cfg_ref_fmt fmt);

/* ---- JSON (the tools' --json outputs) --------------------------------------
 * Values in the units the C holds: integers for UINT and BYTES, bit/s for
 * RATE (the string "unlimited" for RATE_UNLIMITED), ns for DURATION,
 * reals for NUMBER, true/false for BOOL, strings for STRING. */
struct jw;

/* Writes a CUSTOM entry k (one member named k->name's leaf) from ctx. */
typedef void (*cfg_json_custom_fn)(struct jw *w, const struct cfg_key *k,
				   void *ctx);

/* Into the object open in w: one member per top-level entry of `keys`
 * under its own name, with its value in params; a GROUP entry as an object
 * of its members; a CUSTOM entry by custom() (NULL: null). */
void cfg_json_values(struct jw *w, const struct cfg_key *keys,
		     const void *params, cfg_json_custom_fn custom, void *ctx);
/* A rate in bit/s, or "unlimited" for RATE_UNLIMITED. */
void cfg_json_rate(struct jw *w, const char *key, uint64_t bps);
/* Setting s as written in the file: numbers, strings, booleans; groups
 * as objects, lists and arrays as arrays. */
void cfg_json_setting(struct jw *w, const char *key,
		      const struct config_setting_t *s);
/* The reference of a table as array elements of w (one object per key and
 * per member of a CUSTOM entry's sub-table, as cfg_print_keys() lists
 * them): key, type, range, default (null: none), help, and unit, min,
 * max (base units), min_open, max_open, unlimited where they apply. */
void cfg_json_reference(struct jw *w, const char *prefix,
			const struct cfg_key *keys);

#endif
