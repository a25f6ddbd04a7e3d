/* cfgjson.c - key tables and settings as JSON (cfgval.h): the effective
 * values a table parsed (schedtun --check --json), a setting as written,
 * and the reference of a table (--help-conf-json, --help-sched-json).
 * Values are written in the units the C holds them in, so that a consumer
 * never parses "20Mbit" again: rates in bit/s, durations in ns.
 */
#include <libconfig.h>
#include <stdio.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "util/jw.h"
#include "util/units.h"
#include "cfgcheck.h"

/* The last component of a dotted name: the member's name in its group. */
static const char *leaf(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

/* An unsigned field of 1, 2, 4 or 8 bytes, as store_uint() wrote it. */
static uint64_t load_uint(const void *field, size_t size)
{
	switch (size) {
	case 1: return *(const uint8_t *)field;
	case 2: return *(const uint16_t *)field;
	case 4: return *(const uint32_t *)field;
	default: return *(const uint64_t *)field;
	}
}

void cfg_json_rate(struct jw *w, const char *key, uint64_t bps)
{
	if (bps == RATE_UNLIMITED)
		jw_str(w, key, "unlimited");
	else
		jw_u64(w, key, bps);
}

/* One valued entry k of params under its leaf name. */
static void value_of(struct jw *w, const struct cfg_key *k,
		     const void *params)
{
	const void *field = (const char *)params + k->offset;
	const char *name = leaf(k->name);

	switch (k->type) {
	case CFG_T_UINT:
	case CFG_T_BYTES:
		jw_u64(w, name, load_uint(field, k->size));
		break;
	case CFG_T_NUMBER:
		jw_real(w, name, *(const double *)field);
		break;
	case CFG_T_BOOL:
		jw_bool(w, name, *(const int *)field);
		break;
	case CFG_T_RATE:
		cfg_json_rate(w, name, *(const uint64_t *)field);
		break;
	case CFG_T_DURATION:
		jw_u64(w, name, *(const uint64_t *)field);
		break;
	case CFG_T_STRING:
		jw_str(w, name, (const char *)field);
		break;
	default:
		jw_null(w, name);
		break;
	}
}

/* The entries of `keys` directly below group `parent` ("" for the top
 * level), groups as objects of their own members. */
static void members_json(struct jw *w, const struct cfg_key *keys,
			 const struct cfg_key *all, const char *parent,
			 const void *params, cfg_json_custom_fn custom,
			 void *ctx)
{
	size_t plen = strlen(parent);
	const struct cfg_key *k;

	for (k = keys; k->name; k++) {
		const char *rest = k->name;

		if (plen) {
			if (strncmp(rest, parent, plen) || rest[plen] != '.')
				continue;
			rest += plen + 1;
		}
		if (strchr(rest, '.'))
			continue;       /* a member of a group: written in it */
		if (k->type == CFG_T_GROUP) {
			jw_obj_begin(w, rest);
			members_json(w, all, all, k->name, params, custom,
				     ctx);
			jw_obj_end(w);
		} else if (k->type == CFG_T_CUSTOM) {
			if (custom)
				custom(w, k, ctx);
			else
				jw_null(w, rest);
		} else {
			value_of(w, k, params);
		}
	}
}

void cfg_json_values(struct jw *w, const struct cfg_key *keys,
		     const void *params, cfg_json_custom_fn custom, void *ctx)
{
	if (keys)
		members_json(w, keys, keys, "", params, custom, ctx);
}

void cfg_json_setting(struct jw *w, const char *key,
		      const struct config_setting_t *s)
{
	int i, n;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		jw_i64(w, key, config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		jw_i64(w, key, config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		jw_real(w, key, config_setting_get_float(s));
		break;
	case CONFIG_TYPE_STRING:
		jw_str(w, key, config_setting_get_string(s));
		break;
	case CONFIG_TYPE_BOOL:
		jw_bool(w, key, config_setting_get_bool(s));
		break;
	case CONFIG_TYPE_GROUP:
		jw_obj_begin(w, key);
		n = config_setting_length(s);
		for (i = 0; i < n; i++) {
			const config_setting_t *m = config_setting_get_elem(s, i);

			cfg_json_setting(w, config_setting_name(m), m);
		}
		jw_obj_end(w);
		break;
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
		jw_arr_begin(w, key);
		n = config_setting_length(s);
		for (i = 0; i < n; i++)
			cfg_json_setting(w, NULL,
					 config_setting_get_elem(s, i));
		jw_arr_end(w);
		break;
	default:
		jw_null(w, key);
		break;
	}
}

static const char *const type_name[] = {
	[CFG_T_UINT] = "uint", [CFG_T_BYTES] = "bytes",
	[CFG_T_NUMBER] = "number", [CFG_T_BOOL] = "bool",
	[CFG_T_RATE] = "rate", [CFG_T_DURATION] = "duration",
	[CFG_T_STRING] = "string", [CFG_T_GROUP] = "group",
	[CFG_T_CUSTOM] = "custom",
};

/* One reference entry: what --help-conf-tsv prints, plus the type and,
 * for the typed entries, the machine-readable bounds in base units. */
static void ref_entry(struct jw *w, const char *prefix,
		      const struct cfg_key *keys, const struct cfg_key *k)
{
	char name[256], range[256];

	snprintf(name, sizeof(name), "%s%s%s", prefix ? prefix : "",
		 prefix && *prefix ? "." : "", k->name);
	cfg_key_range(keys, k, range, sizeof(range));
	jw_obj_begin(w, NULL);
	jw_str(w, "key", name);
	jw_str(w, "type", k->type < sizeof(type_name) / sizeof(type_name[0])
	       && type_name[k->type] ? type_name[k->type] : "custom");
	jw_str(w, "range", range);
	if (k->def)
		jw_str(w, "default", k->def);
	else
		jw_null(w, "default");
	jw_str(w, "help", k->help ? k->help : "");
	if (k->unit)
		jw_str(w, "unit", k->unit);
	switch (k->type) {
	case CFG_T_UINT:
	case CFG_T_BYTES:
	case CFG_T_DURATION:
		jw_u64(w, "min", k->min);
		jw_u64(w, "max", k->max);
		break;
	case CFG_T_NUMBER:
		jw_real(w, "min", k->lo);
		jw_real(w, "max", k->hi);
		jw_bool(w, "min_open", !!(k->flags & CFG_F_LO_OPEN));
		jw_bool(w, "max_open", !!(k->flags & CFG_F_HI_OPEN));
		break;
	case CFG_T_RATE:
		jw_bool(w, "unlimited", !!(k->flags & CFG_F_UNLIMITED));
		break;
	default:
		break;
	}
	jw_obj_end(w);
}

void cfg_json_reference(struct jw *w, const char *prefix,
			const struct cfg_key *keys)
{
	const struct cfg_key *k;

	for (k = keys; k && k->name; k++) {
		ref_entry(w, prefix, keys, k);
		if (k->type == CFG_T_CUSTOM && k->sub) {
			const struct cfg_key *m;
			char sub[160];

			cfg_sub_prefix(prefix, k, sub, sizeof(sub));
			for (m = k->sub; m->name; m++)
				ref_entry(w, sub, k->sub, m);
		}
	}
}
