/* cfgkeys.c - key tables (cfgval.h): a group parsed, range-checked and
 * reported from its table, values set from text by key name, and the
 * reference printed from the same table (--help-sched, schedtun.conf(5), docs/).
 */
#include <libconfig.h>
#include <stdio.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "util/units.h"
#include "cfgcheck.h"

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

	if (!s && k->missing) {
		cfg_report(d, grp, k->name, "missing (accepted: %s)",
			   k->missing);
		return -1;
	}
	if (!s)
		return 0;
	if (k->type == CFG_T_CUSTOM && k->parse)
		return k->parse(s, params, d) < 0 ? -1 : 1;
	if (k->type == CFG_T_GROUP || k->type == CFG_T_CUSTOM)
		return 1;       /* the group walk or the owner checks it */
	cval_from_setting(s, &v);
	return cfg_verdict(d, s, check_key(k, &v, params, err, sizeof(err)), err);
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

/* See cfgcheck.h: "1..1000000 bytes", "0 < bw < 1", "{ af, cs0 }". */
const char *cfg_key_range(const struct cfg_key *keys,
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
		snprintf(buf, len, "%s", k->range ? k->range : "see the meaning");
		break;
	}
	return buf;
}

/* See cfgcheck.h. */
const char *cfg_sub_prefix(const char *prefix, const struct cfg_key *k,
			   char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s.<%s>", prefix ? prefix : "",
		 prefix && *prefix ? "." : "", k->name,
		 k->sub_name ? k->sub_name : "member");
	return buf;
}

/* s for a Markdown table cell: a '|' would end the cell. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void print_key(FILE *f, const char *prefix, const struct cfg_key *keys,
		      const struct cfg_key *k, enum cfg_ref_fmt fmt)
{
	const char *pfx = prefix ? prefix : "", *dot = *pfx ? "." : "";
	char range[256];

	cfg_key_range(keys, k, range, sizeof(range));
	if (fmt == CFG_REF_TSV) {
		fprintf(f, "%s%s%s\t%s\t%s\t%s\n", pfx, dot, k->name, range,
			k->def ? k->def : "", k->help ? k->help : "");
	} else if (fmt == CFG_REF_MD) {
		fprintf(f, "| `%s%s%s` | ", pfx, dot, k->name);
		md_cell(f, range);
		fputs(" | ", f);
		md_cell(f, k->def ? k->def : "");
		fputs(" | ", f);
		md_cell(f, k->help ? k->help : "");
		fputs(" |\n", f);
	} else {
		fprintf(f, "  %s%s%s: %s%s%s%s\n      %s\n", pfx, dot, k->name,
			range,
			k->def ? " (default " : "", k->def ? k->def : "",
			k->def ? ")" : "", k->help ? k->help : "");
	}
}

void cfg_print_keys(FILE *f, const char *prefix, const struct cfg_key *keys,
		    enum cfg_ref_fmt fmt)
{
	const struct cfg_key *k;

	if (fmt == CFG_REF_MD)
		fprintf(f, "| key | accepted | default | meaning |\n"
			   "|---|---|---|---|\n");
	for (k = keys; k && k->name; k++) {
		print_key(f, prefix, keys, k, fmt);
		if (k->type == CFG_T_CUSTOM && k->sub) {
			const struct cfg_key *m;
			char sub[160];

			cfg_sub_prefix(prefix, k, sub, sizeof(sub));
			for (m = k->sub; m->name; m++)
				print_key(f, sub, k->sub, m, fmt);
		}
	}
}

