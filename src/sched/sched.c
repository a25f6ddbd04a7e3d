/* sched.c - the scheduler registry lookup and instance life cycle.
 *
 * Instances are created only at start-up and on SIGHUP, never on the
 * packet path, so allocating the private state here is fine.
 */
#include <libconfig.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "sched/sched.h"
#include "util/diag.h"

const char *const drop_reason_name[DROP_REASON_MAX] = {
	[DROP_CLASS_LIMIT] = "class_limit",
	[DROP_SCHED_LIMIT] = "sched_limit",
	[DROP_PUSHOUT]     = "pushout",
	[DROP_EXPIRED]     = "expired",
	[DROP_ADMISSION]   = "admission",
	[DROP_LATE]        = "late",
	[DROP_ORDER]       = "out_of_order",
	[DROP_RECONF]      = "reconf",
};

/* Exact, case-sensitive match against the registry; NULL if unknown. */
const struct sched_ops *sched_lookup(const char *name)
{
	const struct sched_ops *const *o;

	if (!name)
		return NULL;
	for (o = sched_registry; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}

/* Joins the registered names with " | " into buf.  When len > 0 the
 * result is always terminated; names that do not fit are left out whole.
 * Returns buf. */
const char *sched_names(char *buf, size_t len)
{
	const struct sched_ops *const *o;
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (o = sched_registry; *o; o++) {
		int n = snprintf(buf + used, len - used, "%s%s",
				 o == sched_registry ? "" : " | ", (*o)->name);

		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0';      /* no partial name */
			break;
		}
		used += (size_t)n;
	}
	return buf;
}

static const struct cfg_key no_keys[] = { { .name = NULL } };

int sched_parse(const struct sched_ops *ops,
		const struct config_setting_t *grp, void *params,
		struct diag *d)
{
	struct cfg_status st;
	struct diag quiet;
	int nerr;

	if (!d) {
		diag_init(&quiet, NULL, NULL);
		d = &quiet;
	}
	nerr = cfg_parse_keys(grp, ops->keys ? ops->keys : no_keys, params,
			      &st, d);
	if (ops->check)
		nerr += ops->check(grp, params, &st, d);
	return nerr;
}

/* See sched.h.  The groups of schedulers not selected are checked too (a
 * typo there would otherwise surface only on the day it is selected), into
 * scratch parameters that are thrown away. */
void sched_parse_section(const struct config_setting_t *g,
			 const struct sched_ops **sel,
			 const struct sched_env *env, void *params,
			 struct diag *d)
{
	const char *allowed[64];
	alignas(16) unsigned char scratch[SCHED_PARAMS_MAX];
	const config_setting_t *name_s = cfg_lookup(g, "name");
	char name[64], list[512];
	int i, n = 0;

	allowed[n++] = "name";
	for (i = 0; sched_registry[i] && n < 63; i++)
		allowed[n++] = sched_registry[i]->name;
	allowed[n] = NULL;
	cfg_check_keys(g, allowed, d);

	if (name_s && cfg_get_string(name_s, name, sizeof(name), d) > 0) {
		*sel = sched_lookup(name);
		if (!*sel)
			cfg_report(d, name_s, NULL, "'%s' is not a scheduler "
				   "(accepted: %s)", name,
				   sched_names(list, sizeof(list)));
	} else if (name_s) {
		*sel = NULL;
	}

	for (i = 0; sched_registry[i]; i++) {
		const struct sched_ops *ops = sched_registry[i];
		const config_setting_t *sg = cfg_lookup(g, ops->name);
		unsigned char *pp = ops == *sel ? params : scratch;
		int before = d->nerr;
		char vb[64];

		if (!sg && ops != *sel)
			continue;
		if (sg && !config_setting_is_group(sg)) {
			cfg_report(d, sg, NULL, "%s is not a group (accepted: "
				   "{ the keys of scheduler %s })",
				   cfg_describe(sg, vb, sizeof(vb)), ops->name);
			sg = NULL;
			if (ops != *sel)
				continue;
		}
		if (ops->params_size > SCHED_PARAMS_MAX) {
			cfg_report(d, sg ? sg : g, NULL, "scheduler %s needs %zu "
				   "bytes of parameters (accepted: at most %d; "
				   "a build problem)", ops->name,
				   ops->params_size, SCHED_PARAMS_MAX);
			continue;
		}
		memset(pp, 0, SCHED_PARAMS_MAX);
		if (ops->defaults)
			ops->defaults(pp, env);
		/* Without its group, what the scheduler cannot accept (no
		 * capacity on an unlimited link) is reported at the line
		 * that selected it: --check promises FILE:LINE:. */
		if (!sg)
			d->implied_line = config_setting_source_line(name_s ? name_s : g);
		if (sched_parse(ops, sg, pp, d) > 0 && d->nerr == before)
			cfg_report(d, sg ? sg : g, NULL, "rejected by scheduler "
				   "%s (accepted: see its documentation)",
				   ops->name);
		d->implied_line = 0;
	}
}

void sched_print_keys(FILE *f, const struct sched_ops *ops,
		      enum cfg_ref_fmt fmt)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "scheduler.%s", ops->name);
	if (!ops->keys || !ops->keys->name) {
		if (fmt != CFG_REF_TSV)         /* a generator wants no prose */
			fprintf(f, fmt == CFG_REF_MD ? "No keys of its own.\n" :
				"  (no keys of its own)\n");
	} else {
		cfg_print_keys(f, prefix, ops->keys, fmt);
	}
}

/* Zero-allocates ops->priv_size bytes and runs ops->init.  On failure
 * returns -1 with nothing allocated and *s cleared. */
int sched_create(struct sched *s, const struct sched_ops *ops,
		 const void *params, const struct sched_env *env)
{
	void *priv;

	s->ops = NULL;
	s->priv = NULL;
	/* calloc(1, 0) may return NULL, which would read as a failure */
	priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (!priv)
		return -1;
	if (ops->init(priv, params, env) < 0) {
		free(priv);
		return -1;
	}
	s->ops = ops;
	s->priv = priv;
	return 0;
}

/* Returns every held packet to the pool and frees the instance.  Safe on
 * a cleared or already destroyed struct sched. */
void sched_destroy(struct sched *s)
{
	if (!s->ops || !s->priv)
		return;
	s->ops->destroy(s->priv);
	free(s->priv);
	s->ops = NULL;
	s->priv = NULL;
}
