/* sandbox.c - the daemon's seccomp sandbox (sandbox.h).
 *
 * An allow-list, as OpenSSH's sandbox-seccomp-filter.c: everything not
 * named here is refused.  The lists were taken from what the daemon does
 * after set-up (strace of the integration tests, and the filter in "log"
 * mode over the whole integration label: docs/security.md), each call
 * with the reason it is needed.  What is not in them, on purpose: socket,
 * connect, bind, accept (no new endpoint), execve (nothing to run),
 * clone and fork (no new process after set-up), ptrace, ioctl (the tun
 * and the socket are configured before), setuid and friends, mount,
 * chroot, unshare, bpf, kexec...  Memory may not be mapped or made
 * executable (PROT_EXEC refused in mmap and mprotect): the daemon runs
 * no code it did not start with.  Signals may be sent to itself only
 * (abort() and raise()).
 *
 * A sanitizer build (SCHEDTUN_SANITIZED) adds what the sanitizer's own
 * runtime calls: LeakSanitizer's check at exit stops the world with a
 * tracer thread (clone, ptrace, wait4, prctl, getdents64 of /proc/self/
 * task, sigaltstack), and a report reads /proc/self/maps and the binary.
 * Those additions are never in the release build's list; test_install.sh
 * runs the release build under its own list.
 *
 * A refused call in "on" mode traps (SECCOMP_RET_TRAP): the SIGSYS
 * handler writes one line naming the call, then the process dies of that
 * same SIGSYS (the handler was reset on entry, SA_RESETHAND), so the exit
 * status and a core dump say SIGSYS as with SECCOMP_RET_KILL_PROCESS.
 * The names are resolved when the filter is built, since the handler may
 * not allocate (libseccomp's resolver does).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <seccomp.h>
#include <sys/mman.h>

#include "daemon/sandbox.h"
#include "util/log.h"

#define NAMES_MAX   600         /* system call numbers named in messages */
#define NAME_BYTES  28          /* the longest Linux name is 23 characters */

/* The loop: forwarding, the stats line, SIGHUP's reload, the exit. */
static const char *const loop_calls[] = {
	/* descriptors: the tun, the socket, the timerfds, the stats file,
	 * the packet log's pipe, files a reload reads */
	"read", "readv", "write", "writev", "close", "lseek", "ftruncate",
	"fcntl", "fstat", "newfstatat", "statx",
	/* a reload opens the file, its @includes, traces and the key file;
	 * it creates the stats file and a PSS trace */
	"open", "openat",
	/* the underlay */
	"recvmmsg", "recvmsg", "recvfrom", "sendmmsg", "sendmsg", "sendto",
	/* libevent's loop and its signal socketpair */
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl",
	"poll", "ppoll",
	/* timers and clocks (the vDSO falls back to the calls) */
	"timerfd_settime", "timerfd_gettime", "clock_gettime", "clock_getres",
	"gettimeofday", "clock_nanosleep", "nanosleep",
	/* memory: malloc (a reload builds a new scheduler), the lock of the
	 * real-time mode; mmap and mprotect below, without PROT_EXEC */
	"brk", "munmap", "mremap", "madvise", "mlockall", "munlockall",
	/* the real-time mode (rt.c; raising it is refused before) and the
	 * spin's yield */
	"sched_yield", "sched_setscheduler", "sched_getscheduler",
	"sched_getparam",
	/* signals: libevent's handlers return, raise() and abort() block */
	"rt_sigreturn", "rt_sigprocmask", "rt_sigaction",
	/* ids for log lines and messages; randomness for libsodium and malloc */
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"getrandom",
	/* the packet log's writer is reaped at the stop */
	"wait4",
	"futex", "exit", "exit_group",
	NULL
};

/* The packet log's writer: a pipe into a file. */
static const char *const writer_calls[] = {
	"read", "write", "writev", "close", "lseek", "ftruncate", "fstat",
	"newfstatat", "brk", "munmap", "madvise", "rt_sigreturn",
	"rt_sigprocmask", "getpid", "gettid", "clock_gettime", "futex",
	"exit", "exit_group",
	NULL
};

#ifdef SCHEDTUN_SANITIZED
static const char *const sanitizer_calls[] = {
	"clone", "clone3", "ptrace", "wait4", "waitid", "prctl", "getdents",
	"getdents64",
	"sigaltstack", "readlink", "readlinkat", "sched_getaffinity", "getppid",
	"process_vm_readv", "uname", "mprotect", "mmap", "getrlimit",
	"prlimit64", "open", "openat", "fstat", "newfstatat", "statx",
	"rt_sigaction", "tgkill", "kill", "setrlimit", "pipe2", "dup2", "dup3",
	"membarrier",
	NULL
};
#endif

static char names[NAMES_MAX][NAME_BYTES];
static char line_head[64];      /* "schedtun[PID]: error: sandbox: " */

static size_t put(char *b, size_t n, size_t cap, const char *s)
{
	while (*s && n + 1 < cap)
		b[n++] = *s++;
	return n;
}

/* Async-signal-safe: the line is built by hand and written in one
 * write(2); both calls are allowed in every list. */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char msg[320], num[16];
	int nr = si->si_syscall, k = (int)sizeof(num) - 1;
	unsigned v = nr < 0 ? 0u : (unsigned)nr;
	size_t n = 0;
	ssize_t w;

	(void)uc;
	num[k] = '\0';
	do
		num[--k] = (char)('0' + v % 10);
	while ((v /= 10) && k > 0);
	n = put(msg, n, sizeof(msg), line_head);
	n = put(msg, n, sizeof(msg), "system call ");
	n = put(msg, n, sizeof(msg),
		nr >= 0 && nr < NAMES_MAX && names[nr][0] ? names[nr] : "?");
	n = put(msg, n, sizeof(msg), " (");
	n = put(msg, n, sizeof(msg), num + k);
	n = put(msg, n, sizeof(msg), ") is not allowed: killed by SIGSYS "
		"(tunnel.sandbox = false turns the sandbox off; docs/security.md)\n");
	/* A lost line (stderr gone) changes nothing: the status says SIGSYS. */
	w = write(STDERR_FILENO, msg, n);
	(void)w;
	raise(sig);     /* the default action now (SA_RESETHAND) */
}

static void name_table(void)
{
	for (int nr = 0; nr < NAMES_MAX; nr++) {
		char *s = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (s)
			snprintf(names[nr], sizeof(names[nr]), "%s", s);
		free(s);
	}
}

/* Adds each name of list that this architecture has (open, for one, is
 * not on arm64); -1 with err on any other refusal. */
static int allow_all(scmp_filter_ctx ctx, const char *const *list, char *err,
		     size_t len)
{
	for (; *list; list++) {
		int nr = seccomp_syscall_resolve_name(*list), r;

		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (r < 0 && r != -EEXIST) {
			snprintf(err, len, "sandbox: allowing %s: %s", *list,
				 strerror(-r));
			return -1;
		}
	}
	return 0;
}

/* The calls allowed with conditions on their arguments. */
static int allow_conditional(scmp_filter_ctx ctx, char *err, size_t len)
{
	pid_t self = getpid();
	struct {
		const char *name;
		int r;
	} rules[] = {
		/* no executable memory */
		{ "mmap", seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
			SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) },
		{ "mprotect", seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
			SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) },
		/* signals to itself: raise(), abort() */
		{ "tgkill", seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
			SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self)) },
		{ "kill", seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
			SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self)) },
		/* getrlimit() (rt.c's messages): reading, never setting */
		{ "prlimit64", seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1,
			SCMP_A2(SCMP_CMP_EQ, 0)) },
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].r < 0 && rules[i].r != -EEXIST) {
			snprintf(err, len, "sandbox: allowing %s: %s", rules[i].name,
				 strerror(-rules[i].r));
			return -1;
		}
	return 0;
}

static int install_handler(char *err, size_t len)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0) {
		snprintf(err, len, "sandbox: sigaction(SIGSYS): %s", strerror(errno));
		return -1;
	}
	return 0;
}

int sandbox_enter(enum sandbox_list list, int mode, char *err, size_t len)
{
	scmp_filter_ctx ctx;
	int r = -1;

	if (mode == CONF_SANDBOX_OFF)
		return 0;
	ctx = seccomp_init(mode == CONF_SANDBOX_LOG ? SCMP_ACT_LOG : SCMP_ACT_TRAP);
	if (!ctx) {
		snprintf(err, len, "sandbox: seccomp_init: out of memory");
		return -1;
	}
	/* A binary tree rather than a chain of comparisons: every system
	 * call of the packet path runs the filter. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0)
		log_debug("sandbox: libseccomp cannot build a binary tree; a list");
	/* The kernel's audit records every refused call too (type 1326,
	 * code=0x30000: the trap), beside the daemon's own line: the reason
	 * stays on record if stderr is lost (kernel.seccomp.actions_logged
	 * decides; "trap" is in its default). */
	if (mode == CONF_SANDBOX_ON && seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1) < 0)
		log_debug("sandbox: the kernel will not log refused calls (no "
			  "SECCOMP_FILTER_FLAG_LOG)");
	if (allow_all(ctx, list == SANDBOX_LOOP ? loop_calls : writer_calls,
		      err, len) ||
#ifdef SCHEDTUN_SANITIZED
	    allow_all(ctx, sanitizer_calls, err, len) ||
#endif
	    allow_conditional(ctx, err, len))
		goto out;
	if (mode == CONF_SANDBOX_ON) {
		name_table();
		snprintf(line_head, sizeof(line_head), "schedtun[%d]: error: sandbox: ",
			 (int)getpid());
		if (install_handler(err, len))
			goto out;
	}
	r = seccomp_load(ctx);
	if (r < 0) {
		snprintf(err, len, "sandbox: seccomp_load: %s (a kernel without "
			 "seccomp filters, or a service manager's own filter "
			 "refusing seccomp(): tunnel.sandbox = false runs without)",
			 strerror(-r));
		r = -1;
	}
out:
	seccomp_release(ctx);
	return r;
}
