/* stock.c - the stock scheduler operations (contract in stock.h). */
#include <stddef.h>

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
