/* stock.c - the stock scheduler operations (contract in stock.h). */
#include <stddef.h>

#include "conf.h"
#include "stock.h"

/* Work-conserving: when dequeue returned NULL only an arrival helps. */
tstamp_ns stock_next_event_never(void *priv, tstamp_ns now)
{
	(void)priv;
	(void)now;
	return TS_NEVER;
}

/* No parameters: params is params_size (0) bytes, env is not needed. */
void stock_defaults_none(void *params, const struct sched_env *env)
{
	(void)params;
	(void)env;
}

/* Accepts an absent group; a present one must be empty.  Returns the
 * number of errors reported through d. */
int stock_parse_no_keys(const struct config_setting_t *grp, void *params,
			struct diag *d)
{
	static const char *const allowed[] = { NULL };

	(void)params;
	if (!grp)
		return 0;
	return cfg_check_keys(grp, allowed, d);
}
