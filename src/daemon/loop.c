/* loop.c - libevent glue: the only module that includes libevent and reads
 * the clock for the packet path.  Events: tun readable, UDP readable, UDP
 * writable (only while the core is blocked), the core timer, the stats
 * timer, SIGINT/SIGTERM/SIGHUP.
 *
 * The two timers are timerfds of our own, not libevent timers: with
 * EVENT_BASE_FLAG_PRECISE_TIMER (needed, since epoll_wait's own timeout is
 * in milliseconds and a 20 Mbit/s link departs a packet every 560 us)
 * libevent 2.1's epoll backend calls timerfd_settime() with a relative time
 * before every epoll_wait(), whether the earliest timer changed or not: one
 * extra system call per loop iteration (measured: as many timerfd_settime as
 * epoll_wait).  An absolute CLOCK_MONOTONIC timerfd watched as an ordinary
 * read event is set only when its deadline changes, and libevent, left
 * without timers, just calls epoll_wait(-1).  (Its one timer, ev_spin, is
 * added with a zero timeout only to poll: loop_kick(), link.spin.)  Both
 * timerfds are edge-triggered (EV_ET): an expiry is reported once without
 * reading the timerfd, and an expired core timer with nothing left to
 * wait for is left as it is rather than disarmed (the receiver arms it
 * for every ACK's serialisation time: one system call per ACK saved); the
 * stats tick has its own timerfd so that the core's is never re-armed
 * just for the next tick. */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <event2/event.h>
#ifdef SCHEDTUN_TEST_HOOKS
#include <seccomp.h>
#include <sys/syscall.h>
#endif
#include "core/core.h"
#include "daemon/loop.h"
#include "daemon/loopplan.h"
#include "daemon/netdev.h"
#include "daemon/plogwriter.h"
#include "daemon/privdrop.h"
#include "daemon/sandbox.h"
#include "daemon/statsout.h"
#include "daemon/tunwrite.h"
#include "daemon/udpsend.h"
#include "pkt/tso.h"
#include "pkt/udpgso.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/rt.h"
#include "util/units.h"

#define RX_BATCH        32      /* receives per recvmmsg() */
#define RX_BUF_BYTES    65536   /* > the largest UDP payload, 65527 */
#define TUN_BATCH       LP_TUN_BATCH    /* tun reads per wake-up in a burst */

struct loop {
	struct event_base *base;
	struct event *ev_tun, *ev_udp, *ev_udp_w, *ev_core, *ev_stats;
	struct event *ev_spin;          /* zero-timeout timer: poll (link.spin) */
	struct event *ev_sig[3];
	int        tun_fd, udp_fd, core_fd, stats_fd;   /* the last two: timerfds */
	struct core core;
	struct statsout out;            /* the stats file */
	struct plogw plw;               /* the per-packet log, if on */
	tstamp_ns  stats_next_ns;
	tstamp_ns  core_armed_ns;       /* core_fd's pending deadline, TS_NEVER:
					 * none (disarmed or expired) */
	struct lp_tun_burst tun_burst;  /* on_tun()'s burst state */
	unsigned   tun_offload;         /* TUN_F_* set on the tun, 0: plain reads */
	uint8_t   *tun_buf;             /* TSO_READ_BYTES, for super-packets */
	struct tun_writer tw;           /* the tun's write side (tunwrite.h) */
	struct udpsend us;              /* the underlay's send side */
	struct rt_state rt;             /* tunnel.realtime in effect */
	struct priv_req priv;           /* the privilege drop after set-up */
	int        priv_on;             /* 1: priv_drop() at the end of set-up */
	int        dropped;             /* 1: done; a reload cannot regain them */
#ifdef SCHEDTUN_TEST_HOOKS
	int        test_syscall_nr;     /* SCHEDTUN_TEST_SYSCALL's, -1: none */
#endif
	char       conf_path[CONF_PATH_MAX];
	uint8_t    scratch[65536];      /* sink for reads when the pool is dry */
	/* UDP receive buffers, one UDP datagram's maximum each (a UDP_GRO
	 * receive never exceeds it): 2 MiB, allocated with the loop, so that
	 * small datagrams still come RX_BATCH per recvmmsg() when the kernel
	 * does not coalesce them. */
	uint8_t    rxbuf[RX_BATCH][RX_BUF_BYTES];
	union {
		char           buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} rxctl[RX_BATCH];              /* their UDP_GRO control messages */
};

/* Sets the timerfd fd to expire at the absolute time `at` on the clock
 * clock_mono_ns() reads (so the deadline does not drift with the time spent
 * between computing and setting it; one already past expires at once), or
 * disarms it (TS_NEVER).  0 or -1 (logged). */
static int timerfd_at(int fd, tstamp_ns at)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value = lp_timer_value(at);      /* all zero: disarm */
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		log_warn("timerfd_settime: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Runs the core and sets the core timer for its next event: a system call
 * only when that deadline changed (and, with link.slack, only when the
 * armed one does not serve it), and none to disarm a timer that has
 * expired (see the top of this file).
 *
 * link.spin W: a deadline less than W away is polled for instead.  Why:
 * at Gbit/s rates the next departure is some 11 us away, less than a
 * wake-up takes, and a profile of the paced 1 Gbit/s sender
 * (docs/performance.md, "Polling close departures") put half its CPU in
 * timerfd_settime(), whose timer
 * reprogramming traps to the hypervisor on our VMs; a timer set that
 * close is late by the machine's timer floor anyway.  The spin event is
 * added with a zero timeout, so libevent's next epoll_wait() does not
 * sleep (timeout 0: the tun and the socket are served in every round)
 * and then runs on_spin(), which kicks again.  Trap avoided:
 * event_active() from inside a callback queues the event for the same
 * round of callbacks, so a spin that re-activates itself never returns to
 * epoll_wait() and starves the tun and the socket (measured: paced
 * 1 Gbit/s carried 0.54 instead of 0.90-0.99 Gbit/s).  At 20 Mbit/s
 * departures are 560 us apart and the timer is used as before.  A timer
 * still armed from before is left as it is: if it fires, the kick finds
 * nothing new (cheaper than disarming it). */
static void loop_kick(struct loop *L)
{
	static const struct timeval now_tv = { 0, 0 };
	tstamp_ns now = clock_mono_ns();
	tstamp_ns wake = core_run(&L->core, now);

	if (L->core.blocked && !event_pending(L->ev_udp_w, EV_WRITE, NULL))
		event_add(L->ev_udp_w, NULL);
	/* link.slack S: a wake-up at A serves everything due by A + S
	 * (core_run()), so a timer still armed at A in [wake - S, wake]
	 * serves `wake` too, at most S early: kept (LP_KEEP), rather than
	 * paying a timerfd_settime() each time a packet read from the tun
	 * moves the next deadline on by a packet time (loopplan.h). */
	switch (lp_core_timer(now, wake, L->core_armed_ns,
			      L->core.conf.spin_ns, L->core.conf.slack_ns)) {
	case LP_SPIN:
		event_add(L->ev_spin, &now_tv);
		break;
	case LP_KEEP:
		break;
	case LP_ARM:
		if (!timerfd_at(L->core_fd, wake))
			L->core_armed_ns = wake;
		break;
	}
}

/* One poll of link.spin: yields first, so that a process sharing this
 * core (the peer daemon, iperf3) runs rather than waits for the end of
 * our time slice while we poll. */
static void on_spin(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sched_yield();
	loop_kick(arg);
}

static int io_send(void *ctx, const uint8_t *buf, size_t len,
		   const struct conf_addr *to)
{
	return udpsend_one(&((struct loop *)ctx)->us, buf, len, to);
}

static int io_send_many(void *ctx, const uint8_t *const *buf, const size_t *len,
			int n, const struct conf_addr *to, int *err)
{
	return udpsend_many(&((struct loop *)ctx)->us, buf, len, n, to, err);
}

/* The core's tun writes go through the tun writer: with tunnel.tun_gro
 * a TCP segment may be held for the super-packet that on_udp() flushes. */
static int io_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	return tunw_write(&((struct loop *)ctx)->tw, buf, len);
}

/* One read of an offloading tun (n bytes in L->tun_buf) into the core:
 * split into pool packets of at most the inner MTU, each handed to
 * core_tun_input() like a plain read's packet.  A refused buffer is
 * counted by reason (drops.tso_*); segments the pool has no buffer for
 * are pool_empty drops.  Returns the packets made. */
static unsigned tun_split(struct loop *L, size_t n, tstamp_ns now)
{
	struct tso_split s;
	enum tso_verdict v = tso_begin(&s, L->tun_buf, n, pkt_pool_cap_bytes());
	unsigned made = 0;

	if (v != TSO_OK) {
		core_tso_refused(&L->core, v, now);
		return 0;
	}
	if (s.mss_bytes) {
		L->core.st.tun_super_reads++;
		L->core.st.tun_segments += tso_left(&s);
	}
	while (tso_left(&s)) {
		struct pkt *p = pkt_alloc();

		if (!p) {
			for (uint32_t k = tso_left(&s); k; k--)
				core_pool_empty(&L->core, now);
			break;
		}
		p->len_bytes = tso_next(&s, p->data);
		core_tun_input(&L->core, p, now);
		made++;
	}
	return made;
}

/* on_tun() without offload: up to max reads, each one packet straight
 * into a pool buffer. */
static void on_tun_plain(struct loop *L, evutil_socket_t fd, int max,
			 tstamp_ns now)
{
	int i;

	for (i = 0; i < max; i++) {
		struct pkt *p = pkt_alloc();
		ssize_t n;

		if (!p) {
			n = read(fd, L->scratch, sizeof(L->scratch));
			if (n < 0)
				break;
			core_pool_empty(&L->core, now);
			continue;
		}
		n = read(fd, p->data, pkt_pool_cap_bytes());
		if (n < 0) {
			pkt_free(p);
			if (errno != EAGAIN && errno != EINTR)
				log_warn("tun read: %s", strerror(errno));
			break;
		}
		p->len_bytes = (uint32_t)n;
		core_tun_input(&L->core, p, i ? clock_mono_ns() : now);
	}
}

/* on_tun() with offload: up to max reads, but no more than TUN_BATCH
 * packets per callback, so that one wake-up does not put thousands of
 * segments in the queues before the core has sent any (a 64-KiB read is
 * some 45 packets; class limits are in packets). */
static void on_tun_offload(struct loop *L, evutil_socket_t fd, int max,
			   tstamp_ns now)
{
	unsigned pkts = 0;
	int i;

	for (i = 0; i < max && pkts < TUN_BATCH; i++) {
		ssize_t n = read(fd, L->tun_buf, TSO_READ_BYTES);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_warn("tun read: %s", strerror(errno));
			break;
		}
		pkts += tun_split(L, (size_t)n, i ? clock_mono_ns() : now);
	}
}

/* Reads one packet from the tun, or up to TUN_BATCH in a long burst.
 * Reading until EAGAIN costs a system call that finds nothing on every
 * wake-up, and at a paced rate most wake-ups bring one packet (measured at
 * 20 Mbit/s with the EF+AF+CS0 mix: 39 % of the sender's and 50 % of the
 * receiver's tun reads returned EAGAIN).  The tun's event is level-triggered,
 * so a callback may stop after one packet: if more are queued, the next
 * epoll_wait() reports the tun again at once.  For k queued packets that
 * costs k reads and k - 1 extra epoll_wait() against k + 1 reads when
 * draining: better for k = 1, even for k = 2 (most wake-ups of the sender
 * bring one or two), worse from k = 3.  So a callback that comes within
 * LP_TUN_BURST_NS of the previous one's end (far less than a sleep and a
 * wake-up take, more than one pass of the loop) is part of a burst, and
 * from the burst's third packet on, a callback drains the tun. */
static void on_tun(evutil_socket_t fd, short what, void *arg)
{
	struct loop *L = arg;
	tstamp_ns now = clock_mono_ns();
	int max;

	(void)what;
	max = lp_tun_reads(&L->tun_burst, now);
	if (L->tun_offload)
		on_tun_offload(L, fd, max, now);
	else
		on_tun_plain(L, fd, max, now);
	loop_kick(L);
	L->tun_burst.last_ns = clock_mono_ns();
}

/* Where udpgro_split() hands each datagram of one receive. */
struct rx_ctx {
	struct loop           *L;
	const struct sockaddr *src;
	socklen_t              srclen;
	tstamp_ns              now;
};

static void rx_deliver(void *arg, struct pkt *p, size_t dgram_bytes)
{
	struct rx_ctx *x = arg;

	if (!p) {
		core_pool_empty(&x->L->core, x->now);
		return;
	}
	x->L->tw.now_ns = x->now;       /* for a held packet's failure report */
	core_udp_input(&x->L->core, p, dgram_bytes, x->src, x->srclen, x->now);
}

/* recvmmsg() into the fixed 64 KiB buffers: with UDP_GRO one buffer may
 * hold up to 64 datagrams of one flow, which are copied one by one into
 * pool packets and decoded on their own (udpgro_split()).  As many buffers
 * as the pool has free packets (at least one, whose datagrams are then
 * counted as pool_empty), so that a dry pool does not take more off the
 * socket than it must discard. */
static void on_udp(evutil_socket_t fd, short what, void *arg)
{
	struct loop *L = arg;
	struct mmsghdr msg[RX_BATCH];
	struct iovec iov[RX_BATCH];
	struct sockaddr_storage src[RX_BATCH];
	int i, n, want = lp_rx_buffers(pkt_pool_size() - pkt_pool_in_use(),
				       RX_BATCH);

	(void)what;
	for (i = 0; i < want; i++) {
		iov[i].iov_base = L->rxbuf[i];
		iov[i].iov_len = sizeof(L->rxbuf[i]);
		memset(&msg[i], 0, sizeof(msg[i]));
		msg[i].msg_hdr.msg_name = &src[i];
		msg[i].msg_hdr.msg_namelen = sizeof(src[i]);
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
		msg[i].msg_hdr.msg_control = L->rxctl[i].buf;
		msg[i].msg_hdr.msg_controllen = sizeof(L->rxctl[i].buf);
	}
	n = recvmmsg(fd, msg, (unsigned)want, MSG_DONTWAIT, NULL);
	for (i = 0; i < n; i++) {
		struct rx_ctx x = { L, (const struct sockaddr *)&src[i],
				    msg[i].msg_hdr.msg_namelen, clock_mono_ns() };
		int gso = udp_gro_size(&msg[i].msg_hdr);
		size_t k = udpgro_split(L->rxbuf[i], msg[i].msg_len, gso,
					!!(msg[i].msg_hdr.msg_flags & MSG_TRUNC),
					&L->core.lay, rx_deliver, &x);

		if (k > 1) {
			L->core.st.gro_reads++;
			L->core.st.gro_segments += k;
		}
	}
	tunw_flush(&L->tw);     /* nothing held across wake-ups */
	loop_kick(L);
}

static void on_udp_writable(evutil_socket_t fd, short what, void *arg)
{
	struct loop *L = arg;

	(void)fd;
	(void)what;
	core_writable(&L->core);
	loop_kick(L);
}

static void stats_sync_clock(struct loop *L)
{
	L->core.real_minus_mono_ns = (int64_t)clock_real_ns() - (int64_t)clock_mono_ns();
}

/* The packet log's records reach the writer at least once per stats
 * interval (and whenever its buffer is half full). */
static void stats_write(struct loop *L, tstamp_ns now)
{
	if (L->core.plog) {
		core_log_lost(&L->core, plogw_poll(&L->plw));
		plog_flush(L->core.plog);
	}
	statsout_emit(&L->out, &L->core, now);
}

static void stats_arm(struct loop *L, tstamp_ns now)
{
	/* Interval ends on the grid start + k * interval, so `t` stays
	 * round however late a tick fires; no interval: disarmed. */
	tstamp_ns next = lp_stats_next(L->stats_next_ns,
				       L->core.conf.stats_interval_ns, now);

	if (next != TS_NEVER)
		L->stats_next_ns = next;
	timerfd_at(L->stats_fd, next);
}

static void on_core_timer(evutil_socket_t fd, short what, void *arg)
{
	struct loop *L = arg;

	(void)fd;
	(void)what;
	L->core_armed_ns = TS_NEVER;    /* expired (EV_ET: reported once) */
	loop_kick(L);
}

#ifdef SCHEDTUN_TEST_HOOKS
/* A test build's daemon makes the system call SCHEDTUN_TEST_SYSCALL names
 * once, at its first stats tick (after set-up, sandbox entered): what a
 * compromised daemon would try (test_sandbox.sh).  Arguments all zero. */
static void test_syscall(struct loop *L)
{
	long r;

	if (L->test_syscall_nr < 0)
		return;
	r = syscall(L->test_syscall_nr, 0, 0, 0, 0, 0, 0);
	log_info("test hook: system call %d returned %ld (%s)", L->test_syscall_nr,
		 r, r < 0 ? strerror(errno) : "ok");
	L->test_syscall_nr = -1;
}

static void test_hook_setup(struct loop *L)
{
	const char *name = getenv("SCHEDTUN_TEST_SYSCALL");

	L->test_syscall_nr = -1;
	if (name && *name) {
		L->test_syscall_nr = seccomp_syscall_resolve_name(name);
		log_info("test hook: will call %s (%d) at the first stats tick",
			 name, L->test_syscall_nr);
	}
}
#endif

static void on_stats(evutil_socket_t fd, short what, void *arg)
{
	struct loop *L = arg;
	tstamp_ns now = clock_mono_ns();

	(void)fd;
	(void)what;
#ifdef SCHEDTUN_TEST_HOOKS
	test_syscall(L);
#endif
	stats_sync_clock(L);
	stats_write(L, now);
	stats_arm(L, now);
}

/* " (the daemon runs as U:G since start-up: why)" after a privilege
 * drop to another user, "" otherwise: the hint of a reload's failures. */
static const char *as_user(char *buf, size_t len, const char *why)
{
	if (!priv_dropped_as())
		return "";
	snprintf(buf, len, " (the daemon runs as %s since start-up: %s)",
		 priv_dropped_as(), why);
	return buf;
}

static void reload(struct loop *L)
{
	struct conf n;
	struct diag d;
	tstamp_ns now = clock_mono_ns();
	char err[512], note[256];
	int errs;

	diag_init(&d, stderr, L->conf_path);
	errs = conf_load(L->conf_path, &n, &d);
	if (errs) {
		log_err("reload: %d error%s in %s; the running configuration is kept%s",
			errs, errs > 1 ? "s" : "", L->conf_path,
			as_user(note, sizeof(note), "what a reload reads must be "
				"readable by it"));
		return;
	}
	/* Lowering is every process's right; raising is CAP_SYS_NICE's. */
	if (L->dropped && (int)n.realtime_prio > L->rt.prio) {
		log_err("reload: tunnel.realtime %u: raising the real-time priority "
			"(now %d) needs the privileges the daemon gave up after "
			"set-up; the running configuration is kept (restart the "
			"daemon to raise it)", n.realtime_prio, L->rt.prio);
		conf_free(&n);
		return;
	}
	/* The one refusal the file cannot show: checked before anything is
	 * committed, and after the swap the running file's policy again
	 * (undoes it if the swap failed; locks the new scheduler's memory). */
	if (rt_apply(&L->rt, (int)n.realtime_prio, err, sizeof(err))) {
		log_err("reload: %s; the running configuration is kept", err);
		conf_free(&n);
		return;
	}
	/* Opened again when the file was moved away (rotated) or renamed. */
	if (statsout_reopen(&L->out, n.stats_file))
		log_warn("reload: keeping stats file %s%s", L->out.path,
			 as_user(note, sizeof(note), "it must be able to create "
				 "the new file"));
	errs = core_reconfigure(&L->core, &n, now);
	if (rt_apply(&L->rt, (int)L->core.conf.realtime_prio, err, sizeof(err)))
		log_warn("reload: %s", err);
	if (errs)
		return;
	log_info("reload: %s applied (scheduler %s)", L->conf_path,
		 L->core.conf.sched->name);
	L->stats_next_ns = now;
	stats_arm(L, now);
	loop_kick(L);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct loop *L = arg;

	(void)what;
	if (sig == SIGHUP) {
		reload(L);
		return;
	}
	log_info("%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
	stats_write(L, clock_mono_ns());
	event_base_loopbreak(L->base);
}

static void log_ready(const struct loop *L)
{
	const struct conf *c = &L->core.conf;
	char rate[32], delay[32], addr[INET6_ADDRSTRLEN] = "";

	if (c->has_address)
		inet_ntop(c->addr_family, c->addr, addr, sizeof(addr));
	if (c->link.kind == LINK_CONSTANT)
		fmt_rate(c->link.rate_bps, rate, sizeof(rate));
	else
		snprintf(rate, sizeof(rate), "%s", link_kind_name[c->link.kind]);
	log_info("ready: tun %s%s%s/%u mtu %u, scheduler %s, link %s, delay %s, peer %s",
		 c->tun_name, c->has_address ? " " : "", addr,
		 c->has_address ? c->addr_prefix : 0, c->mtu_bytes, c->sched->name,
		 rate, fmt_duration(c->delay_ns, delay, sizeof(delay)),
		 c->has_peer ? "configured" : "pinned on first valid datagram");
	if (L->tun_offload)
		log_info("tun offload: checksum, TSO4/6%s; super-packets split "
			 "into mtu-sized packets%s",
			 L->tun_offload & TSO_TUN_F_USO4 ? ", USO4/6" : "",
			 L->tw.gro_on ? "; TCP segments coalesced on write" : "");
}

/* Turns UDP_GRO on and GSO sends on where the kernel offers them; a
 * refusal is said once and GSO's counted in io.gso_fallback. */
static void offload_setup(struct loop *L)
{
	struct udp_offload o;

	udp_offload_setup(L->udp_fd, &o);
	L->us.gso_on = o.gso;
	if (!o.gso) {
		L->core.st.gso_fallback++;
		log_warn("UDP GSO (UDP_SEGMENT) not available: %s; one datagram "
			 "per message, counted in io.gso_fallback",
			 strerror(o.gso_errno));
	}
	if (!o.gro)
		log_warn("UDP GRO not available: %s; one datagram per receive",
			 strerror(o.gro_errno));
}

/* What the log says of each tunnel.sandbox mode at start-up. */
static const char *const sandbox_what[] = {
	[CONF_SANDBOX_OFF] = "off (tunnel.sandbox = false)",
	[CONF_SANDBOX_ON]  = "on (seccomp: a system call outside the daemon's "
			     "list kills it)",
	[CONF_SANDBOX_LOG] = "log (seccomp: system calls outside the list are "
			     "logged by the kernel's audit, type 1326, and allowed)",
};

/* tunnel.group as written, or the name of the user's primary group (the
 * name service is asked here, before the drop), or its number. */
static const char *group_name(const struct conf *c, char *buf, size_t len)
{
	char nss[4096];
	struct group g, *res = NULL;

	if (c->group[0])
		snprintf(buf, len, "%s", c->group);
	else if (getgrgid_r((gid_t)c->gid, &g, nss, sizeof(nss), &res) == 0 && res)
		snprintf(buf, len, "%s", res->gr_name);
	else
		snprintf(buf, len, "%u", c->gid);
	return buf;
}

/* Who the daemon becomes after set-up (privdrop.h), decided before
 * anything is opened so that an impossible drop stops it at once:
 * tunnel.user: that user, if started as root (or as that user already);
 * none, not root: its own ids, without the capabilities it was given
 * (the systemd unit's CAP_NET_ADMIN); none, root: stays root. */
static int priv_plan(struct loop *L, const struct conf *c, char *err,
		     size_t len)
{
	struct priv_req *r = &L->priv;
	uid_t euid = geteuid();
	char gname[64];

	memset(r, 0, sizeof(*r));
	if (!c->has_user) {
		L->priv_on = euid != 0;
		snprintf(r->name, sizeof(r->name), "uid %u", (unsigned)euid);
		return 0;
	}
	L->priv_on = 1;
	r->uid = c->uid;
	r->gid = c->gid;
	r->switch_user = euid == 0;
	snprintf(r->name, sizeof(r->name), "%s:%s", c->user,
		 group_name(c, gname, sizeof(gname)));
	if (!r->switch_user && (getuid() != c->uid || getgid() != c->gid)) {
		snprintf(err, len, "tunnel.user '%s': becoming uid %u gid %u needs "
			 "root, and the daemon runs as uid %u (accepted: start it "
			 "as root, or as that user and group)", c->user, c->uid,
			 c->gid, (unsigned)euid);
		return -1;
	}
	return 0;
}

/* The drop, last in set-up: everything privileged is done.  With the
 * real-time mode on, the memory a later reload maps (a new scheduler's
 * state) is locked within RLIMIT_MEMLOCK only, CAP_IPC_LOCK being gone:
 * said once here when that limit is finite (raising it would need
 * CAP_SYS_RESOURCE, which the unit does not grant either). */
static int priv_apply(struct loop *L, char *err, size_t len)
{
	struct rlimit lim;

	conf_ids_freeze(&L->core.conf);
	if (!L->priv_on) {
		log_info("privileges: running as root with every capability "
			 "(tunnel.user gives them up after set-up)");
		return 0;
	}
	if (priv_drop(&L->priv, err, len))
		return -1;
	L->dropped = 1;
	L->rt.lock_best_effort = 1;
	log_info("privileges: running as %s (uid %u, gid %u), no capabilities, "
		 "no new privileges", L->priv.name, (unsigned)getuid(),
		 (unsigned)getgid());
	if (L->rt.locked && getrlimit(RLIMIT_MEMLOCK, &lim) == 0 &&
	    lim.rlim_cur != RLIM_INFINITY)
		log_warn("realtime: from now on memory is locked within ulimit -l "
			 "(%llu KiB): a reload's new memory stays unlocked unless "
			 "it is unlimited (LimitMEMLOCK=infinity, ulimit -l unlimited)",
			 (unsigned long long)(lim.rlim_cur / 1024));
	return 0;
}

static int loop_setup(struct loop *L, struct conf *conf)
{
	struct core_io io = { .send = io_send, .send_many = io_send_many,
			      .tun_write = io_tun_write, .ctx = L };
	char err[256];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	int i;

	snprintf(L->conf_path, sizeof(L->conf_path), "%s", conf->path);
#ifdef SCHEDTUN_TEST_HOOKS
	test_hook_setup(L);
#endif
	if (priv_plan(L, conf, err, sizeof(err))) {
		log_err("%s", err);
		conf_free(conf);
		return -1;
	}
	/* First: the writer process is forked before anything else is
	 * open or allocated, so it holds none of it. */
	if (conf->packet_log[0] &&
	    plogw_start(&L->plw, conf->packet_log, L->priv_on ? &L->priv : NULL,
			conf->sandbox, err, sizeof(err))) {
		log_err("%s", err);
		conf_free(conf);
		return -1;
	}
	if (pkt_pool_init(conf->pool_pkts, conf->mtu_bytes)) {
		log_err("packet pool of %u x %u bytes: %s", conf->pool_pkts,
			conf->mtu_bytes, strerror(errno));
		conf_free(conf);
		return -1;
	}
	L->tun_fd = tun_open(conf->tun_name, conf->offload, &L->tun_offload,
			     err, sizeof(err));
	if (L->tun_offload) {
		/* Once, not per packet: a super-packet is read whole. */
		L->tun_buf = malloc(TSO_READ_BYTES);
		if (!L->tun_buf) {
			log_err("tun read buffer: out of memory");
			conf_free(conf);
			return -1;
		}
	}
	if (L->tun_fd < 0 || tun_setup(conf, err, sizeof(err)) ||
	    (L->udp_fd = udp_open(&conf->listen, err, sizeof(err))) < 0) {
		log_err("%s", err);
		conf_free(conf);
		return -1;
	}
	if (statsout_open(&L->out, conf->stats_file)) {
		conf_free(conf);
		return -1;
	}
	/* A flow hash no sender can aim at (classify.h): keyed per start. */
	{
		uint64_t k0, k1;

		if (auth_salt_draw(&k0) || auth_salt_draw(&k1)) {
			log_err("flow hash key: libsodium cannot initialise");
			conf_free(conf);
			return -1;
		}
		flow_hash_set_key(k0, k1);
	}
	/* A session no earlier start of this daemon had (sec/auth.h): the
	 * peer follows the latest epoch, the salt keeps nonces apart even
	 * if the clock repeats one. */
	io.session_epoch_ns = clock_real_ns();
	if (conf->has_key && auth_salt_draw(&io.session_salt)) {
		log_err("tunnel.key_file: libsodium cannot initialise");
		conf_free(conf);
		return -1;
	}
	if (core_init(&L->core, conf, &io, clock_mono_ns()))
		return -1;
	if (L->plw.pid)
		L->core.plog = &L->plw.log;
	if (tunw_init(&L->tw, L->tun_fd, L->tun_offload, L->core.conf.tun_gro,
		      &L->core)) {
		log_err("tun write buffers: out of memory");
		return -1;
	}
	L->us.fd = L->udp_fd;
	L->us.st = &L->core.st;
	offload_setup(L);
	stats_sync_clock(L);

	L->core_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	L->stats_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (L->core_fd < 0 || L->stats_fd < 0) {
		log_err("timerfd_create: %s", strerror(errno));
		return -1;
	}
	/* No EVENT_BASE_FLAG_PRECISE_TIMER: libevent holds no timer (see the
	 * top of this file). */
	L->base = event_base_new();
	if (!L->base) {
		log_err("libevent: cannot create the event base");
		return -1;
	}
	L->ev_tun = event_new(L->base, L->tun_fd, EV_READ | EV_PERSIST, on_tun, L);
	L->ev_udp = event_new(L->base, L->udp_fd, EV_READ | EV_PERSIST, on_udp, L);
	L->ev_udp_w = event_new(L->base, L->udp_fd, EV_WRITE, on_udp_writable, L);
	L->ev_core = event_new(L->base, L->core_fd, EV_READ | EV_PERSIST | EV_ET,
			       on_core_timer, L);
	L->ev_stats = event_new(L->base, L->stats_fd, EV_READ | EV_PERSIST | EV_ET,
				on_stats, L);
	L->ev_spin = evtimer_new(L->base, on_spin, L);
	for (i = 0; i < 3; i++)
		L->ev_sig[i] = evsignal_new(L->base, sigs[i], on_signal, L);
	event_add(L->ev_tun, NULL);
	event_add(L->ev_udp, NULL);
	event_add(L->ev_core, NULL);
	event_add(L->ev_stats, NULL);
	for (i = 0; i < 3; i++)
		event_add(L->ev_sig[i], NULL);
	L->core_armed_ns = TS_NEVER;
	L->stats_next_ns = L->core.start_ns;
	stats_arm(L, L->core.start_ns);
	/* Last: everything the packet path touches is allocated (rt.c). */
	if (rt_apply(&L->rt, (int)L->core.conf.realtime_prio, err,
		     sizeof(err))) {
		log_err("%s", err);
		return -1;
	}
	if (priv_apply(L, err, sizeof(err))) {
		log_err("%s", err);
		return -1;
	}
	/* Very last: the list holds only what the loop calls from here on. */
	if (sandbox_enter(SANDBOX_LOOP, L->core.conf.sandbox, err, sizeof(err))) {
		log_err("%s", err);
		return -1;
	}
	log_info("sandbox: %s", sandbox_what[L->core.conf.sandbox]);
	return 0;
}

/* Everything the log was given reaches its file before the daemon exits
 * (a script that reads the log after the daemon is gone sees it all).
 * Packets still queued at the stop are freed, not logged (nor counted as
 * drops on the stats line). */
static void plog_teardown(struct loop *L)
{
	uint64_t lost = 0;

	if (!L->plw.pid)
		return;
	L->core.plog = NULL;
	plogw_stop(&L->plw, 10000, &lost);
	lost += L->core.log_lost + L->plw.log.dropped + L->plw.log.discarded;
	log_info("packet log %s: %llu records, %llu lost", L->plw.path,
		 (unsigned long long)L->plw.log.records, (unsigned long long)lost);
}

static void loop_teardown(struct loop *L)
{
	struct event **evs[] = { &L->ev_tun, &L->ev_udp, &L->ev_udp_w, &L->ev_core,
				 &L->ev_stats, &L->ev_spin, &L->ev_sig[0],
				 &L->ev_sig[1], &L->ev_sig[2] };
	size_t i;

	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		if (*evs[i])
			event_free(*evs[i]);
	if (L->base)
		event_base_free(L->base);
	plog_teardown(L);
	if (L->core.sched.ops)
		core_destroy(&L->core);
	statsout_close(&L->out);
	if (L->udp_fd >= 0)
		close(L->udp_fd);
	if (L->tun_fd >= 0)
		close(L->tun_fd);
	free(L->tun_buf);
	tunw_free(&L->tw);
	if (L->core_fd >= 0)
		close(L->core_fd);
	if (L->stats_fd >= 0)
		close(L->stats_fd);
	pkt_pool_destroy();
}

/* libevent's own messages (event_log_cb), which it would otherwise print
 * as "[warn] ..." on stderr past our format and our output: through
 * util/log.h, prefixed "libevent: " so that a reader knows whose they
 * are, at the matching level (debug, msg = info, warn, err).  libevent
 * forbids calling it back from here; log_msg() does not. */
static void libevent_log(int severity, const char *msg)
{
	enum log_level lvl;

	switch (severity) {
	case EVENT_LOG_DEBUG:
		lvl = LOG_DEBUG;
		break;
	case EVENT_LOG_MSG:
		lvl = LOG_INFO;
		break;
	case EVENT_LOG_WARN:
		lvl = LOG_WARN;
		break;
	default:        /* EVENT_LOG_ERR, and anything newer: never hidden */
		lvl = LOG_ERR;
		break;
	}
	log_msg(lvl, "libevent: %s", msg);
}

/* libevent's fatal internal error (event_fatal_cb): it has logged why at
 * EVENT_LOG_ERR just before, and nothing of libevent may be called any
 * more.  Without this callback it would exit(1), our exit code for a
 * configuration error; abort() instead says "crashed" (and leaves a core),
 * as libevent itself does for its failed assertions.  Never returns, as
 * libevent requires. */
static void libevent_fatal(int err) __attribute__((noreturn));
static void libevent_fatal(int err)
{
	log_err("libevent: fatal internal error (code %d), aborting", err);
	abort();
}

int loop_run(struct conf *conf)
{
	struct loop *L;
	int rc = 2;

	/* Before the first libevent call, so that all it says comes our way. */
	event_set_log_callback(libevent_log);
	event_set_fatal_callback(libevent_fatal);
	L = calloc(1, sizeof(*L));
	if (!L) {
		log_err("out of memory");
		conf_free(conf);
		return 2;
	}
	L->tun_fd = L->udp_fd = L->core_fd = L->stats_fd = -1;
	statsout_init(&L->out);
	signal(SIGPIPE, SIG_IGN);
	if (loop_setup(L, conf) == 0) {
		log_ready(L);
		event_base_dispatch(L->base);
		rc = 0;
	}
	loop_teardown(L);
	free(L);
	return rc;
}
