/* registry.c - the configuration names of the schedulers.  Order is the
 * order of `sched_names()` in --help and error messages. */
#include <stddef.h>

#include "sched.h"

extern const struct sched_ops sched_fifo_ops;
extern const struct sched_ops sched_prio_ops;
extern const struct sched_ops sched_pss_ops;
extern const struct sched_ops sched_dwrr_ops;

const struct sched_ops *const sched_registry[] = {
	&sched_fifo_ops,
	&sched_prio_ops,
	&sched_pss_ops,
	&sched_dwrr_ops,
	NULL,
};
