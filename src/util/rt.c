/* rt.c - the opt-in real-time mode (tunnel.realtime): SCHED_FIFO and
 * locked memory.  See rt.h for the contract, docs/configuration.md
 * ("Real-time mode") for what it buys and costs.
 *
 * Why MCL_CURRENT and not MCL_CURRENT | MCL_FUTURE: the daemon allocates
 * everything a departure touches at set-up (the packet pool, the 2 MiB
 * receive area, the tun read buffer, libevent's base), so locking once,
 * after set-up, covers the packet path.  MCL_FUTURE would also lock every
 * later mapping, and without CAP_IPC_LOCK each one counts against
 * RLIMIT_MEMLOCK (8 MiB by default): once reached, malloc() returns NULL
 * in the middle of a SIGHUP reload (a new scheduler's state, a trace file
 * being read) and a stack that grows past the limit is a SIGSEGV, not an
 * error.  Instead, what a reload maps is locked by calling rt_apply()
 * again after the swap (MCL_CURRENT once more), where a refusal is an
 * error message, and the stack is pre-faulted before each lock so that it
 * does not grow by a page fault on the packet path.
 *
 * An AddressSanitizer build does not lock: the sanitizer intercepts
 * mlockall() and makes it do nothing (locking its terabytes of shadow
 * mapping would hang the kernel), so the daemon says so instead of
 * claiming a lock it does not have. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "util/log.h"
#include "util/rt.h"

#if defined(__SANITIZE_ADDRESS__)
#define RT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_ASAN 1
#endif
#endif
#ifndef RT_ASAN
#define RT_ASAN 0
#endif

/* The policy of the calling thread (the daemon's only one). */
static int set_policy(int policy, int prio)
{
	struct sched_param p = { .sched_priority = prio };

	return sched_setscheduler(0, policy, &p);
}

static int get_policy(int *policy, int *prio)
{
	struct sched_param p = { 0 };
	int r = sched_getscheduler(0);

	if (r < 0 || sched_getparam(0, &p) < 0)
		return -1;
	*policy = r;
	*prio = p.sched_priority;
	return 0;
}

/* Stack the packet path may use without a page fault: far above what the
 * loop's deepest call chain needs (it holds no large arrays on the stack;
 * the receive and read buffers live in struct loop), far below the 8 MiB
 * default stack limit. */
#define RT_STACK_PREFAULT_BYTES (256 * 1024)
#define RT_PAGE_BYTES           4096

/* Touches RT_STACK_PREFAULT_BYTES of stack below the caller's frame, so
 * that the stack mapping mlockall() locks already covers them. */
static void __attribute__((noinline)) prefault_stack(void)
{
	volatile unsigned char area[RT_STACK_PREFAULT_BYTES];
	size_t i;

	for (i = 0; i < sizeof(area); i += RT_PAGE_BYTES)
		area[i] = 0;
}

/* What the daemon maps, KiB (VmSize, which mlockall(MCL_CURRENT) must
 * fit under RLIMIT_MEMLOCK without CAP_IPC_LOCK); 0 if unknown. */
static unsigned long mapped_kib(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (unsigned long)(sysconf(_SC_PAGESIZE) / 1024);
}

/* A limit for messages: "8192" or "unlimited". */
static const char *limit_str(int resource, unsigned long div, char *buf,
			     size_t len)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) != 0)
		snprintf(buf, len, "unknown");
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%lu", (unsigned long)(rl.rlim_cur / div));
	return buf;
}

static int set_fifo(int prio, char *err, size_t len)
{
	char lim[32];
	int e;

	if (set_policy(SCHED_FIFO, prio) == 0)
		return 0;
	e = errno;
	if (e == EPERM)
		snprintf(err, len, "realtime %d: sched_setscheduler(SCHED_FIFO, "
			 "%d): %s (needs CAP_SYS_NICE or ulimit -r >= %d, it is "
			 "%s; a cgroup without real-time runtime refuses it too)",
			 prio, prio, strerror(e), prio,
			 limit_str(RLIMIT_RTPRIO, 1, lim, sizeof(lim)));
	else
		snprintf(err, len, "realtime %d: sched_setscheduler(SCHED_FIFO, "
			 "%d): %s", prio, prio, strerror(e));
	return -1;
}

static int lock_all(int prio, char *err, size_t len)
{
	char lim[32];
	int e;

	prefault_stack();
	if (mlockall(MCL_CURRENT) == 0)
		return 0;
	e = errno;
	if (e == ENOMEM || e == EPERM)
		snprintf(err, len, "realtime %d: mlockall(MCL_CURRENT): %s (the "
			 "daemon maps %lu KiB, ulimit -l is %s KiB: needs "
			 "CAP_IPC_LOCK or a larger ulimit -l, or a smaller "
			 "tunnel.pool)", prio, strerror(e), mapped_kib(),
			 limit_str(RLIMIT_MEMLOCK, 1024, lim, sizeof(lim)));
	else
		snprintf(err, len, "realtime %d: mlockall(MCL_CURRENT): %s",
			 prio, strerror(e));
	return -1;
}

/* A lock refused after the privilege drop (st->lock_best_effort): said,
 * not fatal, since what was locked before stays locked and nothing can
 * lock more; otherwise -1 (all or nothing). */
static int relock_failed(const struct rt_state *st, const char *err)
{
	if (!st->lock_best_effort || !st->locked)
		return -1;
	log_warn("%s; what was locked before stays locked", err);
	return 0;
}

const char *rt_describe(const struct rt_state *st, char *buf, size_t len)
{
	if (st->prio <= 0)
		snprintf(buf, len, "off (SCHED_OTHER)");
	else if (st->locked)
		snprintf(buf, len, "SCHED_FIFO %d, memory locked", st->prio);
	else
		snprintf(buf, len, "SCHED_FIFO %d, memory not locked "
			 "(AddressSanitizer build: its mlockall does nothing)",
			 st->prio);
	return buf;
}

int rt_apply(struct rt_state *st, int prio, char *err, size_t len)
{
	int old_policy, old_prio, lock = !RT_ASAN;
	char desc[128];

	if (prio < 0 || prio > RT_PRIO_MAX) {
		snprintf(err, len, "realtime %d: out of range (accepted: 0..%d)",
			 prio, RT_PRIO_MAX);
		return -1;
	}
	if (prio == 0) {
		if (st->prio == 0)
			return 0;       /* never ours: leave an outer chrt alone */
		/* Lowering is never refused. */
		set_policy(SCHED_OTHER, 0);
		if (st->locked)
			munlockall();
		st->prio = 0;
		st->locked = 0;
		log_info("realtime: %s", rt_describe(st, desc, sizeof(desc)));
		return 0;
	}
	if (prio == st->prio)   /* the same policy: lock what is new */
		return lock && lock_all(prio, err, len) ? relock_failed(st, err) : 0;

	if (get_policy(&old_policy, &old_prio)) {
		old_policy = SCHED_OTHER;
		old_prio = 0;
	}
	if (set_fifo(prio, err, len))
		return -1;
	if (lock && lock_all(prio, err, len) && relock_failed(st, err)) {
		/* all or nothing: back to the policy we came from */
		set_policy(old_policy, old_prio);
		return -1;
	}
	st->prio = prio;
	st->locked = lock;
	log_info("realtime: %s", rt_describe(st, desc, sizeof(desc)));
	return 0;
}
