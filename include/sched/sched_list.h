/* sched_list.h - the one list of schedulers, in registry order.
 *
 * An X-macro: the includer defines SCHED(name) before including this file
 * (no include guard, on purpose).  include/sched/sched.h turns each line into
 * the declaration of `sched_<name>_ops`, registry.c into a registry entry,
 * so adding a scheduler is its file plus one line here.  The order is the
 * order of sched_names() in --help and in error messages.
 */
SCHED(fifo)
SCHED(prio)
SCHED(pss)
SCHED(dwrr)
SCHED(pdrr)
SCHED(dq)
SCHED(ticket)
