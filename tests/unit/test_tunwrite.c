/* test_tunwrite.c - the tun's write side (src/daemon/tunwrite.c): holding,
 * flushing, the counters and the fallback, on real file descriptors.
 *
 * The "tun" is one end of an AF_UNIX SOCK_SEQPACKET pair, which keeps
 * each write a message, so the test reads back exactly what each write()
 * or writev() gave; for the kernel refusing a write with EINVAL it is an
 * eventfd, which refuses any write that is not 8 bytes with EINVAL.  The
 * packets are real TCP segments (tu_tcp_flow). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "daemon/tunwrite.h"
#include "pkt/pkt.h"
#include "testutil.h"

#define VH TSO_VNET_HDR_BYTES

static struct pkt *seg[64];
static unsigned nseg;
static struct core c;
static int sv[2];
static uint8_t msg[TSO_READ_BYTES + 16];

static int no_send(void *ctx, const uint8_t *buf, size_t len,
		   const struct conf_addr *to)
{
	(void)ctx, (void)buf, (void)len, (void)to;
	return 0;
}

static int no_tun(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx, (void)buf, (void)len;
	return 0;
}

static int setup(void **state)
{
	static const struct core_io io = { .send = no_send, .tun_write = no_tun };
	struct conf conf;

	nseg = 0;
	assert_int_equal(tu_pool_setup(state), 0);
	tu_conf_basic(&conf, 8000000, 0, "fifo");
	tu_core_init(&c, &conf, &io);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	return 0;
}

static int teardown(void **state)
{
	for (unsigned i = 0; i < nseg; i++)
		pkt_free(seg[i]);
	nseg = 0;
	close(sv[0]);
	close(sv[1]);
	core_destroy(&c);
	return tu_pool_teardown(state);
}

/* 8 segments of one IPv4 flow: 7 x 1000 bytes and 500 with PSH. */
static void flow8(void)
{
	struct tu_flow f = { .seq = 77, .id = 9, .mss = 1000, .payload_bytes = 7500,
			     .last_flags = 0x18, .opt_words = 3 };

	tu_tcp_flow(&f, seg, &nseg, 64);
}

/* The next message on the tun's other end: its length, or -1 if none. */
static ssize_t next_msg(void)
{
	return recv(sv[1], msg, sizeof(msg), 0);
}

/* Coalesced while offered, written on flush, one message; a packet that
 * never coalesces goes out at once, after what was pending. */
static void test_hold_flush_order(void **state)
{
	struct tun_writer w;
	static const uint8_t zero[VH];
	ssize_t n;

	(void)state;
	assert_int_equal(tunw_init(&w, sv[0], 1, 1, &c), 0);
	flow8();
	for (unsigned i = 0; i < 7; i++)
		assert_int_equal(tunw_write(&w, seg[i]->data, seg[i]->len_bytes), 0);
	assert_int_equal(next_msg(), -1);               /* held, not written */
	assert_int_equal(errno, EAGAIN);
	/* The last segment has PSH: held too, as the end of the run. */
	assert_int_equal(tunw_write(&w, seg[7]->data, seg[7]->len_bytes), 0);
	tunw_flush(&w);
	n = next_msg();
	assert_int_equal(n, VH + 52 + 7500);
	assert_int_equal(msg[0], TSO_F_NEEDS_CSUM);
	assert_int_equal(msg[1], TSO_GSO_TCPV4);
	assert_int_equal(c.st.tun_gro_writes, 1);
	assert_int_equal(c.st.tun_gro_segments, 8);
	/* A run of two, then a packet that cannot join (SYN): the run is
	 * written first, then the packet alone behind a zero header. */
	assert_int_equal(tunw_write(&w, seg[0]->data, seg[0]->len_bytes), 0);
	assert_int_equal(tunw_write(&w, seg[1]->data, seg[1]->len_bytes), 0);
	seg[2]->data[20 + 13] |= 0x02;
	tu_tcp_fix(seg[2]->data, seg[2]->len_bytes);
	assert_int_equal(tunw_write(&w, seg[2]->data, seg[2]->len_bytes), 0);
	assert_int_equal(next_msg(), VH + 52 + 2000);
	assert_int_equal(next_msg(), VH + seg[2]->len_bytes);
	assert_memory_equal(msg, zero, VH);
	assert_memory_equal(msg + VH, seg[2]->data, seg[2]->len_bytes);
	assert_int_equal(c.st.tun_gro_writes, 2);
	assert_int_equal(c.st.tun_gro_segments, 10);
	tunw_flush(&w);                                 /* nothing pending */
	assert_int_equal(next_msg(), -1);
	assert_int_equal(c.st.tun_write_error, 0);
	tunw_free(&w);
}

/* tunnel.tun_gro off, or no offload: one write per packet, at once. */
static void test_off(void **state)
{
	static const uint8_t zero[VH];
	struct tun_writer w;

	(void)state;
	flow8();
	for (int offload = 0; offload < 2; offload++) {
		assert_int_equal(tunw_init(&w, sv[0], (unsigned)offload, !offload,
					   &c), 0);
		for (unsigned i = 0; i < nseg; i++) {
			assert_int_equal(tunw_write(&w, seg[i]->data,
						    seg[i]->len_bytes), 0);
			assert_int_equal(next_msg(), (offload ? VH : 0) +
					 seg[i]->len_bytes);
			/* unmodified, behind an all-zero header with offload */
			if (offload)
				assert_memory_equal(msg, zero, VH);
			assert_memory_equal(msg + (offload ? VH : 0),
					    seg[i]->data, seg[i]->len_bytes);
		}
		tunw_flush(&w);
		assert_int_equal(next_msg(), -1);
		tunw_free(&w);
	}
	assert_int_equal(c.st.tun_gro_writes, 0);
}

/* The first GSO write refused with EINVAL: coalescing off for good,
 * counted once, and the packets written one by one (here refused too:
 * one tun_write_error each, none lost from the count). */
static void test_fallback(void **state)
{
	struct tun_writer w;
	int efd = eventfd(0, EFD_NONBLOCK);

	(void)state;
	assert_true(efd >= 0);
	assert_int_equal(tunw_init(&w, efd, 1, 1, &c), 0);
	flow8();
	for (unsigned i = 0; i < nseg; i++)
		assert_int_equal(tunw_write(&w, seg[i]->data, seg[i]->len_bytes), 0);
	tunw_flush(&w);
	assert_int_equal(c.st.tun_gro_fallback, 1);
	assert_int_equal(c.st.tun_write_error, 8);
	assert_int_equal(c.st.tun_gro_writes, 0);
	assert_int_equal(w.gro_on, 0);
	/* From now on each packet is written at once, its error returned. */
	assert_int_equal(tunw_write(&w, seg[0]->data, seg[0]->len_bytes), -EINVAL);
	tunw_flush(&w);
	assert_int_equal(c.st.tun_gro_fallback, 1);
	tunw_free(&w);
	close(efd);
}

/* After a GSO write was taken, a refusal is the packets' own: each one
 * counted as a tun_write_error, coalescing stays on. */
static void test_refused_later(void **state)
{
	struct tun_writer w;
	int efd = eventfd(0, EFD_NONBLOCK);

	(void)state;
	assert_true(efd >= 0);
	assert_int_equal(tunw_init(&w, sv[0], 1, 1, &c), 0);
	flow8();
	for (unsigned i = 0; i < nseg; i++)
		assert_int_equal(tunw_write(&w, seg[i]->data, seg[i]->len_bytes), 0);
	tunw_flush(&w);
	assert_int_equal(c.st.tun_gro_writes, 1);
	w.fd = efd;
	for (unsigned i = 0; i < nseg; i++)
		assert_int_equal(tunw_write(&w, seg[i]->data, seg[i]->len_bytes), 0);
	tunw_flush(&w);
	assert_int_equal(c.st.tun_write_error, 8);
	assert_int_equal(c.st.tun_gro_fallback, 0);
	assert_int_equal(w.gro_on, 1);
	tunw_free(&w);
	close(efd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hold_flush_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_later, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
