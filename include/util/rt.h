/* rt.h - the opt-in real-time mode (tunnel.realtime; issue 10): the
 * daemon's thread under SCHED_FIFO and its memory locked, so that neither
 * an ordinary task on its core nor a page fault delays a departure.
 * Only the loop calls it (at start-up and on SIGHUP). */
#ifndef SCHEDTUN_RT_H
#define SCHEDTUN_RT_H

#include <stddef.h>

#define RT_PRIO_MAX 99          /* SCHED_FIFO's range on Linux is 1..99 */

/* The policy in effect.  Zeroed = what the daemon inherited: SCHED_OTHER
 * (or whatever chrt gave it), nothing locked. */
struct rt_state {
	int prio;               /* 0: not ours (SCHED_OTHER); 1..99: SCHED_FIFO */
	int locked;             /* mlockall(MCL_CURRENT) in effect */
	int lock_best_effort;   /* set after the privilege drop: a later lock
				 * that RLIMIT_MEMLOCK refuses is a warning, the
				 * policy change goes on (rt_apply()) */
};

/* Makes prio (0..RT_PRIO_MAX) the policy in effect: prio >= 1 runs the
 * calling thread (the daemon's only one) under SCHED_FIFO prio and locks
 * every page mapped so far; 0 returns to SCHED_OTHER and unlocks.  Called
 * with the prio already in effect it only locks again (pages mapped since,
 * e.g. a reloaded scheduler's state).  All or nothing: on a refusal
 * (EPERM without CAP_SYS_NICE or above RLIMIT_RTPRIO, ENOMEM under
 * RLIMIT_MEMLOCK without CAP_IPC_LOCK) the previous policy stays, *st is
 * unchanged, err holds "realtime N: call: OS error (what would allow
 * it)" and -1 is returned; but with lock_best_effort and memory locked
 * before, a refused lock is logged as a warning and the rest applies.
 * 0 on success; a change of policy is logged ("realtime: SCHED_FIFO 50,
 * memory locked"). */
int rt_apply(struct rt_state *st, int prio, char *err, size_t len);

/* "SCHED_FIFO 50, memory locked" or "off (SCHED_OTHER)". */
const char *rt_describe(const struct rt_state *st, char *buf, size_t len);

#endif
