/* sched.c - the scheduler registry lookup and instance life cycle.
 *
 * Instances are created only at start-up and on SIGHUP, never on the
 * packet path, so allocating the private state here is fine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

const char *const drop_reason_name[DROP_REASON_MAX] = {
	[DROP_CLASS_LIMIT] = "class_limit",
	[DROP_SCHED_LIMIT] = "sched_limit",
	[DROP_PUSHOUT]     = "pushout",
	[DROP_EXPIRED]     = "expired",
	[DROP_ADMISSION]   = "admission",
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
