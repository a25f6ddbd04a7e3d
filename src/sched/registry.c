/* registry.c - the configuration names of the schedulers, generated from
 * sched_list.h so that the registry and the ops declarations in sched.h
 * cannot disagree.  Order is the order of `sched_names()` in --help and
 * error messages. */
#include <stddef.h>

#include "sched/sched.h"

const struct sched_ops *const sched_registry[] = {
#define SCHED(name) &sched_##name##_ops,
#include "sched/sched_list.h"
#undef SCHED
	NULL,
};
