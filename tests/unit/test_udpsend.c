/* test_udpsend.c - the daemon's underlay sends (daemon/udpsend.h) and the
 * UDP socket's set-up (daemon/netdev.h) on real sockets on 127.0.0.1:
 * every datagram arrives once, in order, byte for byte; runs of equal
 * sizes go as UDP_SEGMENT messages (counted); a kernel that refuses GSO
 * (SO_NO_CHECK makes it refuse a segmented send with EINVAL) turns it off
 * once and loses nothing; a partial sendmmsg() is reported on the first
 * unsent datagram with its error (EAGAIN, ENOBUFS), or carried on when
 * the lone retry passes; a receiver with UDP_GRO gets a run as one
 * receive whose segment size udp_gro_size() reads.  The partial sends are injected: the linker
 * routes udpsend.c's sendmmsg()/sendmsg() through __wrap_ functions here
 * (CMakeLists.txt, -Wl,--wrap), which pass every call on to the real one
 * unless a fault is armed.  No sleeps: a receive waits in poll() for a
 * datagram the kernel already holds (loopback delivers during the send).
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "core/core.h"
#include "core/stats.h"
#include "daemon/netdev.h"
#include "daemon/udpsend.h"
#include "testutil.h"

/* ---- the fault injector ------------------------------------------------ */

int __real_sendmmsg(int fd, struct mmsghdr *msg, unsigned int n, int flags);
ssize_t __real_sendmsg(int fd, const struct msghdr *msg, int flags);

/* One armed fault, for the next sendmmsg() call only: it sends the first
 * stop_at messages for real and stops there (-1 with mmsg_errno when
 * stop_at is 0, as the kernel reports a failure of the first message);
 * the next sendmsg() then fails with msg_errno, or passes when it is 0. */
static struct fault {
	int      armed;
	unsigned stop_at;
	int      mmsg_errno, msg_errno;
	int      msg_pending;           /* the sendmsg() fault is still due */
	unsigned mmsg_calls, msg_calls; /* all calls, faulty or not */
	unsigned msgs_seen;             /* messages handed to sendmmsg() */
} fault;

int __wrap_sendmmsg(int fd, struct mmsghdr *msg, unsigned int n, int flags);
int __wrap_sendmmsg(int fd, struct mmsghdr *msg, unsigned int n, int flags)
{
	fault.mmsg_calls++;
	fault.msgs_seen += n;
	if (!fault.armed || fault.stop_at >= n)
		return __real_sendmmsg(fd, msg, n, flags);
	fault.armed = 0;
	fault.msg_pending = 1;
	if (!fault.stop_at) {
		errno = fault.mmsg_errno;
		return -1;
	}
	return __real_sendmmsg(fd, msg, fault.stop_at, flags);
}

ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	fault.msg_calls++;
	if (fault.msg_pending) {
		fault.msg_pending = 0;
		if (fault.msg_errno) {
			errno = fault.msg_errno;
			return -1;
		}
	}
	return __real_sendmsg(fd, msg, flags);
}

/* ---- sockets ------------------------------------------------------------- */

static struct conf_addr loopback(uint16_t port)
{
	struct conf_addr a;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a.ss;

	memset(&a, 0, sizeof(a));
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.len = sizeof(*s4);
	return a;
}

/* The pair under test: rx, bound by udp_open() on an ephemeral port
 * (without GRO: one datagram per receive); tx, the daemon's socket, with
 * udp_offload_setup() and the udpsend state around it. */
static struct {
	int rx;
	struct conf_addr to;
	struct stats st;
	struct udpsend u;
} k;

static int setup(void **state)
{
	struct conf_addr any = loopback(0);
	struct udp_offload o;
	char err[256];

	(void)state;
	memset(&k, 0, sizeof(k));
	memset(&fault, 0, sizeof(fault));
	k.rx = udp_open(&any, err, sizeof(err));
	assert_true(k.rx >= 0);
	k.to.len = sizeof(k.to.ss);
	assert_int_equal(getsockname(k.rx, (struct sockaddr *)&k.to.ss,
				     &k.to.len), 0);
	k.u.fd = udp_open(&any, err, sizeof(err));
	assert_true(k.u.fd >= 0);
	udp_offload_setup(k.u.fd, &o);
	assert_int_equal(o.gso, 1);     /* Linux >= 4.18 on loopback */
	assert_int_equal(o.gro, 1);
	k.u.gso_on = o.gso;
	k.u.st = &k.st;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(k.rx);
	close(k.u.fd);
	return 0;
}

/* Datagram i of a burst: i's bytes, then a pattern of i and the offset. */
static uint8_t data[CORE_TX_BATCH][2000];

static void fill(int i, size_t len)
{
	size_t j;

	for (j = 0; j < len; j++)
		data[i][j] = (uint8_t)(i * 31 + j * 7 + (j >> 8));
}

/* Sends a burst of the n lengths len[] with udpsend_many(); returns its
 * count, *err its error. */
static int burst(const size_t *len, int n, int *err)
{
	const uint8_t *buf[CORE_TX_BATCH];
	int i;

	assert_true(n <= CORE_TX_BATCH);
	for (i = 0; i < n; i++) {
		fill(i, len[i]);
		buf[i] = data[i];
	}
	*err = 12345;
	return udpsend_many(&k.u, buf, len, n, &k.to, err);
}

/* The next datagram rx holds must be datagram i of the burst, whole. */
static void expect(int i, size_t len)
{
	static uint8_t got[70000];
	struct pollfd p = { .fd = k.rx, .events = POLLIN };
	ssize_t n;

	assert_int_equal(poll(&p, 1, 2000), 1);
	n = recv(k.rx, got, sizeof(got), MSG_DONTWAIT);
	if (n != (ssize_t)len || memcmp(got, data[i], len))
		fail_msg("datagram %d: got %zd bytes, want %zu%s", i, n, len,
			 n == (ssize_t)len ? " (other bytes)" : "");
}

/* Nothing more arrived. */
static void expect_none(void)
{
	uint8_t b[16];

	assert_int_equal(recv(k.rx, b, sizeof(b), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

/* ---- the tests ----------------------------------------------------------- */

/* One datagram; one too large for UDP is refused with -EMSGSIZE. */
static void test_one(void **state)
{
	static uint8_t big[65508];

	(void)state;
	fill(0, 300);
	assert_int_equal(udpsend_one(&k.u, data[0], 300, &k.to), 0);
	expect(0, 300);
	assert_int_equal(udpsend_one(&k.u, big, sizeof(big), &k.to), -EMSGSIZE);
	expect_none();
}

/* 5 x 1000 closed by a 600, 3 x 1000, then a 1400 alone: two GSO
 * messages (6 and 3 datagrams) and a plain one, in one sendmmsg(); the
 * receiver, without GRO, gets the ten datagrams in order. */
static void test_gso_runs(void **state)
{
	static const size_t len[] = { 1000, 1000, 1000, 1000, 1000, 600,
				      1000, 1000, 1000, 1400 };
	int i, err, n = (int)TU_LEN(len);

	(void)state;
	assert_int_equal(burst(len, n, &err), n);
	assert_int_equal(err, 0);
	for (i = 0; i < n; i++)
		expect(i, len[i]);
	expect_none();
	assert_int_equal(fault.mmsg_calls, 1);
	assert_int_equal(fault.msgs_seen, 3);
	assert_int_equal(fault.msg_calls, 0);
	assert_int_equal(k.st.gso_sends, 2);
	assert_int_equal(k.st.gso_segments, 9);
	assert_int_equal(k.st.gso_fallback, 0);
	assert_int_equal(k.u.gso_on, 1);
}

/* The kernel refuses segmented sends on a socket without UDP checksums
 * (SO_NO_CHECK: EINVAL): GSO goes off, once, counted, and the burst
 * still arrives whole and in order, one datagram per message; the next
 * burst does not try GSO again. */
static void test_gso_refused(void **state)
{
	static const size_t len[] = { 800, 800, 800, 800, 200, 1200 };
	int one = 1, i, err, n = (int)TU_LEN(len);

	(void)state;
	assert_int_equal(setsockopt(k.u.fd, SOL_SOCKET, SO_NO_CHECK, &one,
				    sizeof(one)), 0);
	assert_int_equal(burst(len, n, &err), n);
	assert_int_equal(err, 0);
	for (i = 0; i < n; i++)
		expect(i, len[i]);
	expect_none();
	assert_int_equal(k.u.gso_on, 0);
	assert_int_equal(k.st.gso_fallback, 1);
	assert_int_equal(k.st.gso_sends, 0);
	assert_int_equal(k.st.gso_segments, 0);
	fault.msgs_seen = 0;
	assert_int_equal(burst(len, n, &err), n);
	assert_int_equal(err, 0);
	for (i = 0; i < n; i++)
		expect(i, len[i]);
	assert_int_equal(fault.msgs_seen, (unsigned)n); /* one per message */
	assert_int_equal(k.st.gso_fallback, 1);
}

/* sendmmsg() stops after 2 of 5 plain messages and the lone retry of the
 * third fails with EAGAIN: 2 sent, *err -EAGAIN, and only those 2 left. */
static void test_partial_eagain(void **state)
{
	static const size_t len[] = { 100, 200, 300, 400, 500 };
	int err;

	(void)state;
	k.u.gso_on = 0;
	fault = (struct fault){ .armed = 1, .stop_at = 2, .msg_errno = EAGAIN };
	assert_int_equal(burst(len, 5, &err), 2);
	assert_int_equal(err, -EAGAIN);
	expect(0, 100);
	expect(1, 200);
	expect_none();
	assert_int_equal(fault.msg_calls, 1);
}

/* sendmmsg() fails on its first message with ENOBUFS, and so does the
 * retry: nothing sent, *err -ENOBUFS; GSO stays on (not a refusal of GSO
 * as such). */
static void test_enobufs_first(void **state)
{
	static const size_t len[] = { 700, 700, 700 };
	int err;

	(void)state;
	fault = (struct fault){ .armed = 1, .stop_at = 0,
				 .mmsg_errno = ENOBUFS, .msg_errno = ENOBUFS };
	assert_int_equal(burst(len, 3, &err), 0);
	assert_int_equal(err, -ENOBUFS);
	expect_none();
	assert_int_equal(k.u.gso_on, 1);
	assert_int_equal(k.st.gso_fallback, 0);
	assert_int_equal(k.st.gso_sends, 0);
}

/* A GSO burst: a run of 4 x 900 sent, then sendmmsg() stops at the
 * second run (3 x 1200: longer, so not closing the first) and its retry
 * fails with ENOBUFS: the count is the
 * first run's 4 (a GSO message fails as a whole, reported on its first
 * datagram), *err -ENOBUFS, GSO still on. */
static void test_partial_gso_enobufs(void **state)
{
	static const size_t len[] = { 900, 900, 900, 900, 1200, 1200, 1200 };
	int i, err;

	(void)state;
	fault = (struct fault){ .armed = 1, .stop_at = 1,
				 .msg_errno = ENOBUFS };
	assert_int_equal(burst(len, 7, &err), 4);
	assert_int_equal(err, -ENOBUFS);
	for (i = 0; i < 4; i++)
		expect(i, len[i]);
	expect_none();
	assert_int_equal(k.st.gso_sends, 1);
	assert_int_equal(k.st.gso_segments, 4);
	assert_int_equal(k.u.gso_on, 1);
}

/* sendmmsg() stops after the first of 4 plain messages but the lone
 * retry of the second passes (the buffer had drained): the rest goes in
 * another sendmmsg(), all 4 arrive in order, *err 0. */
static void test_partial_then_through(void **state)
{
	static const size_t len[] = { 150, 250, 350, 450 };
	int i, err;

	(void)state;
	k.u.gso_on = 0;
	fault = (struct fault){ .armed = 1, .stop_at = 1, .msg_errno = 0 };
	assert_int_equal(burst(len, 4, &err), 4);
	assert_int_equal(err, 0);
	for (i = 0; i < 4; i++)
		expect(i, len[i]);
	expect_none();
	assert_int_equal(fault.mmsg_calls, 2);
	assert_int_equal(fault.msg_calls, 1);
}

/* A burst longer than CORE_TX_BATCH is cut to it. */
static void test_batch_cap(void **state)
{
	size_t len[CORE_TX_BATCH + 4];
	const uint8_t *buf[CORE_TX_BATCH + 4];
	int i, err;

	(void)state;
	k.u.gso_on = 0;
	for (i = 0; i < CORE_TX_BATCH + 4; i++) {
		len[i] = 64 + (size_t)i;
		buf[i] = data[i % CORE_TX_BATCH];
	}
	for (i = 0; i < CORE_TX_BATCH; i++)
		fill(i, len[i]);
	assert_int_equal(udpsend_many(&k.u, buf, len, CORE_TX_BATCH + 4,
				      &k.to, &err), CORE_TX_BATCH);
	assert_int_equal(err, 0);
	for (i = 0; i < CORE_TX_BATCH; i++)
		expect(i, len[i]);
	expect_none();
}

/* One receive on rx into buf (cap bytes) with room for a UDP_GRO
 * control message: the bytes, and udp_gro_size() of it in *seg. */
static ssize_t recv_gro(uint8_t *buf, size_t cap, int *seg)
{
	union {
		char           buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { buf, cap };
	struct msghdr h;
	struct pollfd p = { .fd = k.rx, .events = POLLIN };
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.msg_iov = &iov;
	h.msg_iovlen = 1;
	h.msg_control = ctl.buf;
	h.msg_controllen = sizeof(ctl.buf);
	assert_int_equal(poll(&p, 1, 2000), 1);
	n = recvmsg(k.rx, &h, MSG_DONTWAIT);
	*seg = udp_gro_size(&h);
	return n;
}

/* The receive side of GSO (udp_gro_size(), what on_udp() splits by): a
 * receiver with UDP_GRO on gets a run of 4 x 1000 as one 4000-byte
 * receive with segment size 1000, the datagrams' bytes back to back; a
 * lone datagram comes with no control message, size 0. */
static void test_gro_receive(void **state)
{
	static const size_t len[] = { 1000, 1000, 1000, 1000 };
	static uint8_t got[70000];
	int i, err, seg = -1, on = 1;

	(void)state;
	assert_int_equal(setsockopt(k.rx, SOL_UDP, UDP_GRO, &on, sizeof(on)),
			 0);
	assert_int_equal(burst(len, 4, &err), 4);
	assert_int_equal(k.st.gso_sends, 1);
	assert_int_equal(recv_gro(got, sizeof(got), &seg), 4000);
	assert_int_equal(seg, 1000);
	for (i = 0; i < 4; i++)
		assert_memory_equal(got + 1000 * i, data[i], 1000);
	fill(0, 300);
	assert_int_equal(udpsend_one(&k.u, data[0], 300, &k.to), 0);
	assert_int_equal(recv_gro(got, sizeof(got), &seg), 300);
	assert_int_equal(seg, 0);
	assert_memory_equal(got, data[0], 300);
}

/* udp_open() names the address and the OS error when it cannot bind. */
static void test_udp_open_in_use(void **state)
{
	char err[256] = "", want[256];
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&k.to.ss;

	(void)state;
	assert_int_equal(udp_open(&k.to, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "bind 127.0.0.1:%u: %s",
		 ntohs(s4->sin_port), strerror(EADDRINUSE));
	assert_string_equal(err, want);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_one),
		T(test_gso_runs),
		T(test_gso_refused),
		T(test_partial_eagain),
		T(test_enobufs_first),
		T(test_partial_gso_enobufs),
		T(test_partial_then_through),
		T(test_batch_cap),
		T(test_gro_receive),
		T(test_udp_open_in_use),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
