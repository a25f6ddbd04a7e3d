/* test_exhaust.c - the exhaustion paths (issue 11): a socket that refuses
 * (ENOBUFS, ECONNREFUSED) or is full (EAGAIN), a tun write that fails, an
 * empty packet pool, a stats file that cannot be written (/dev/full, a
 * short write, a removed directory).  Each is counted, the daemon's core
 * carries on, and the log says so once per episode, never once per packet
 * (warnonce.h).  The real core on a virtual clock with fake I/O whose
 * failures the test switches on; the stats output on real files. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "core/core.h"
#include "daemon/statsout.h"
#include "pkt/tunnel.h"
#include "util/log.h"
#include "testutil.h"

#define MS NS_PER_MS
#define NFAIL 1000      /* failures per episode: far more than one log line */

/* The fake I/O: every call succeeds unless its error is set (a -errno). */
static struct {
	int send_err, tun_err;
	unsigned sent, tun_written;
} io;

static int fake_send(void *ctx, const uint8_t *buf, size_t len,
		     const struct conf_addr *to)
{
	(void)ctx, (void)buf, (void)len, (void)to;
	if (io.send_err)
		return io.send_err;
	io.sent++;
	return 0;
}

static int fake_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx, (void)buf, (void)len;
	if (io.tun_err)
		return io.tun_err;
	io.tun_written++;
	return 0;
}

/* The daemon's log, captured: each test counts the lines it caused. */
static FILE *logf_;

static int log_setup(void **state)
{
	logf_ = tmpfile();
	assert_non_null(logf_);
	log_set_output(logf_);
	return tu_pool_setup(state);
}

static int log_teardown(void **state)
{
	log_set_output(NULL);
	fclose(logf_);
	return tu_pool_teardown(state);
}

/* Lines logged since the previous call that contain `needle`; all the
 * lines logged meanwhile are returned in *all (if not NULL). */
static int log_lines(const char *needle, int *all)
{
	char *text = tu_read_stream(logf_), *s;
	int n = 0, lines = 0;

	for (s = text; *s; ) {
		char *nl = strchr(s, '\n');

		if (nl)
			*nl = '\0';
		lines++;
		if (strstr(s, needle))
			n++;
		s = nl ? nl + 1 : s + strlen(s);
	}
	free(text);
	if (all)
		*all = lines;
	assert_int_equal(ftruncate(fileno(logf_), 0), 0);
	rewind(logf_);
	return n;
}

/* 8 Mbit/s, no delay, fifo, peer 10.0.0.2:5000: a 1000-byte packet is on
 * the link for exactly 1 ms. */
static void core_up(struct core *c)
{
	struct conf conf;
	const struct core_io fake = { .send = fake_send,
				      .tun_write = fake_tun_write };

	tu_core_conf(&conf, 8000000, 0, "fifo");
	memset(&io, 0, sizeof(io));
	tu_core_init(c, &conf, &fake);
}

/* One CS0 packet of 1000 bytes from the tun at now, on the link from now
 * to now + 1 ms and sent then (callers step time by >= 1 ms). */
static void one_packet(struct core *c, tstamp_ns now)
{
	const struct tu_ip ip = { .version = 4, .proto = 17, .len_bytes = 1000 };

	core_tun_input(c, tu_pkt_ip(&ip), now);
	core_run(c, now);
	core_run(c, now + MS);
}

/* A datagram from the peer carrying a 100-byte IPv4 packet, at now. */
static void one_datagram(struct core *c, uint32_t seq, tstamp_ns now)
{
	const struct tu_ip ip = { .version = 4, .proto = 17, .len_bytes = 100 };
	struct tun_hdr h = { .cls = CLS_CS0, .len_bytes = 100, .seq = seq };
	struct pkt *p = tu_pkt_ip(&ip);

	tun_hdr_encode(p->data - TUN_HDR_BYTES, &h);
	core_udp_input(c, p, 100 + TUN_HDR_BYTES,
		       (const struct sockaddr *)&c->conf.peer.ss,
		       c->conf.peer.len, now);
}

/* ENOBUFS on every send for NFAIL packets: each lost and counted, one
 * warning; the link keeps its pace.  A stats tick within WARN_QUIET_NS
 * of the last failure says nothing; the first after it says "works
 * again" once; a new failure then starts a new episode (one more line). */
static void test_send_enobufs_said_once(void **state)
{
	struct core c;
	char line[8192];
	tstamp_ns t = 0;
	int i, all;

	(void)state;
	core_up(&c);
	io.send_err = -ENOBUFS;
	for (i = 0; i < NFAIL; i++, t += MS)
		one_packet(&c, t);
	assert_int_equal(c.st.send_error, NFAIL);
	assert_int_equal(c.st.cls[CLS_CS0].out_pkts, NFAIL);
	assert_int_equal(io.sent, 0);
	assert_int_equal(log_lines("send to the peer: No buffer space available; "
				   "the datagram is lost, counted in drops.send_error", &all), 1);
	assert_int_equal(all, 1);

	io.send_err = 0;
	one_packet(&c, t);
	assert_int_equal(io.sent, 1);
	assert_true(core_stats_line(&c, t + WARN_QUIET_NS - 2 * MS, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "\"send_error\": 1000,"));
	assert_int_equal(log_lines("", NULL), 0);       /* not quiet long enough */
	assert_true(core_stats_line(&c, t + WARN_QUIET_NS, line, sizeof(line)) > 0);
	assert_int_equal(log_lines("send to the peer: works again after 1000 failures", &all), 1);
	assert_int_equal(all, 1);
	assert_true(core_stats_line(&c, t + 2 * WARN_QUIET_NS, line, sizeof(line)) > 0);
	assert_int_equal(log_lines("", NULL), 0);

	t += 2 * WARN_QUIET_NS;
	io.send_err = -ECONNREFUSED;
	for (i = 0; i < 10; i++, t += MS)
		one_packet(&c, t);
	assert_int_equal(log_lines("send to the peer: Connection refused", &all), 1);
	assert_int_equal(all, 1);
	core_destroy(&c);
}

/* EAGAIN is back-pressure, not a failure: the packet waits in the delay
 * line, io.tx_blocked counts the event, nothing is lost or logged. */
static void test_send_eagain_held_not_logged(void **state)
{
	struct core c;
	char line[8192];

	(void)state;
	core_up(&c);
	io.send_err = -EAGAIN;
	one_packet(&c, 0);
	assert_true(c.blocked);
	assert_int_equal(c.dl.q.len_pkts, 1);
	io.send_err = 0;
	core_writable(&c);
	core_run(&c, 2 * MS);
	assert_int_equal(io.sent, 1);
	assert_int_equal(c.st.send_error, 0);
	assert_true(core_stats_line(&c, 3 * MS, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "\"io\": {\"tx_blocked\": 1, \"stats_write_error\": 0, "));
	assert_int_equal(log_lines("", NULL), 0);
	core_destroy(&c);
}

/* A tun that refuses writes (EIO: the interface went down) for NFAIL
 * datagrams: each counted in drops.tun_write_error and still accounted
 * as received; one warning. */
static void test_tun_write_fails_said_once(void **state)
{
	struct core c;
	int i, all;

	(void)state;
	core_up(&c);
	io.tun_err = -EIO;
	for (i = 0; i < NFAIL; i++)
		one_datagram(&c, (uint32_t)i, (tstamp_ns)i * MS);
	assert_int_equal(c.st.tun_write_error, NFAIL);
	assert_int_equal(c.st.rx[CLS_CS0].pkts, NFAIL);
	assert_int_equal(c.st.rx[CLS_CS0].lost, 0);
	assert_int_equal(log_lines("write to the tun: Input/output error; the packet "
				   "is lost, counted in drops.tun_write_error", &all), 1);
	assert_int_equal(all, 1);
	io.tun_err = 0;
	one_datagram(&c, NFAIL, NFAIL * MS);
	assert_int_equal(io.tun_written, 1);
	core_destroy(&c);
}

/* The pool runs dry: what the loop then does with a packet it has no
 * buffer for (core_pool_empty: count, say once), NFAIL times, while the
 * buffers are all held; the core forwards again once they come back. */
static void test_pool_empty_said_once(void **state)
{
	struct core c;
	struct pkt *held[TU_POOL_PKTS], *p;
	unsigned n = 0;
	int i, all;

	(void)state;
	core_up(&c);
	while ((p = pkt_alloc()))
		held[n++] = p;
	assert_int_equal(n, TU_POOL_PKTS);
	for (i = 0; i < NFAIL; i++)
		core_pool_empty(&c, (tstamp_ns)i * MS);
	assert_int_equal(c.st.pool_empty, NFAIL);
	assert_int_equal(log_lines("packet pool (tunnel.pool): No buffer space available; "
				   "the packet read is discarded, counted in drops.pool_empty",
				   &all), 1);
	assert_int_equal(all, 1);
	while (n)
		pkt_free(held[--n]);
	one_packet(&c, NFAIL * MS);
	assert_int_equal(io.sent, 1);
	core_destroy(&c);
}

/* Counts of in_pkts for CS0 in a stats line. */
static unsigned long cs0_in(const char *line)
{
	const char *s = strstr(line, "\"cs0\": {\"in_pkts\": ");

	assert_non_null(s);
	return strtoul(s + strlen("\"cs0\": {\"in_pkts\": "), NULL, 10);
}

/* The last line of the file at path. */
static char *last_line(const char *path)
{
	char *text = tu_read_file(path), *end, *start;

	end = text + strlen(text);
	assert_true(end > text && end[-1] == '\n');
	end[-1] = '\0';
	start = strrchr(text, '\n');
	start = start ? start + 1 : text;
	memmove(text, start, strlen(start) + 1);
	return text;
}

/* Disk full (/dev/full: every write ENOSPC) for NFAIL stats lines while
 * packets flow: one warning; the daemon's core keeps forwarding; when the
 * output moves to a writable file (a SIGHUP with a new stats.file), its
 * first line carries every interval's counts (in_pkts over the missed
 * lines) and io.stats_write_error = NFAIL, and the episode's end is said
 * once. */
static void test_stats_disk_full(void **state)
{
	struct core c;
	struct statsout o;
	char path[] = "/tmp/test_exhaust.XXXXXX";
	char *line;
	tstamp_ns t = 0;
	int i, all, fd;

	(void)state;
	if (access("/dev/full", W_OK))
		tu_cannot_run("test_exhaust: stats to a full disk",
			      "/dev/full, the kernel's always-full device, is "
			      "not writable here");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	core_up(&c);
	statsout_init(&o);
	assert_int_equal(statsout_open(&o, "/dev/full"), 0);
	for (i = 0; i < NFAIL; i++, t += MS) {
		one_packet(&c, t);
		assert_int_equal(statsout_emit(&o, &c, t), -1);
	}
	assert_int_equal(io.sent, NFAIL);
	assert_int_equal(log_lines("stats file /dev/full: No space left on device; "
				   "the line's counts go into the next line written, "
				   "counted in io.stats_write_error", &all), 1);
	assert_int_equal(all, 1);

	assert_int_equal(statsout_open(&o, path), 0);
	assert_int_equal(log_lines("stats file /dev/full: replaced by", &all), 1);
	assert_int_equal(all, 1);
	assert_int_equal(statsout_emit(&o, &c, t), 0);
	line = last_line(path);
	assert_int_equal(cs0_in(line), NFAIL);
	assert_non_null(strstr(line, "\"stats_write_error\": 1000, "));
	free(line);
	assert_int_equal(statsout_emit(&o, &c, t + MS), 0);
	line = last_line(path);
	assert_int_equal(cs0_in(line), 0);
	assert_non_null(strstr(line, "\"stats_write_error\": 0, "));
	free(line);
	assert_int_equal(log_lines("", NULL), 0);
	statsout_close(&o);
	unlink(path);
	core_destroy(&c);
}

/* A file system that fills in the middle of a line (RLIMIT_FSIZE stands
 * in for it: the write comes back short): the partial line is cut off
 * again, so the file holds whole lines only; the next line that fits
 * carries the missed counts.  Then the episode ends quietly ("works
 * again" once). */
static void test_stats_short_write(void **state)
{
	struct core c;
	struct statsout o;
	struct rlimit old, lim;
	struct stat sb;
	char path[] = "/tmp/test_exhaust.XXXXXX";
	char *text;
	off_t size1;
	int fd, all;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	core_up(&c);
	statsout_init(&o);
	assert_int_equal(statsout_open(&o, path), 0);
	one_packet(&c, 0);
	assert_int_equal(statsout_emit(&o, &c, 1 * MS), 0);
	assert_int_equal(stat(path, &sb), 0);
	size1 = sb.st_size;

	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)size1 + 100;     /* room for 100 bytes more */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	one_packet(&c, 2 * MS);
	assert_int_equal(statsout_emit(&o, &c, 3 * MS), -1);
	one_packet(&c, 4 * MS);
	assert_int_equal(statsout_emit(&o, &c, 5 * MS), -1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, size1);    /* no partial line left */
	assert_int_equal(log_lines("No space left on device", &all), 1);
	assert_int_equal(all, 1);

	assert_int_equal(statsout_emit(&o, &c, 6 * MS), 0);
	text = last_line(path);
	assert_int_equal(cs0_in(text), 2);
	assert_non_null(strstr(text, "\"stats_write_error\": 2, "));
	free(text);
	assert_int_equal(statsout_emit(&o, &c, 5 * MS + WARN_QUIET_NS), 0);
	assert_int_equal(log_lines("works again after 2 failures", &all), 1);
	assert_int_equal(all, 1);
	statsout_close(&o);
	unlink(path);
	core_destroy(&c);
}

/* The stats file's directory is removed under the daemon: the open file
 * lives on (Unix semantics), so lines keep being written and nothing is
 * logged; a reload naming a file in the removed directory fails once,
 * logged, and the old output is kept. */
static void test_stats_removed_directory(void **state)
{
	struct core c;
	struct statsout o;
	char dir[] = "/tmp/test_exhaust.XXXXXX", path[64], path2[80];
	int all;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.jsonl", dir);
	snprintf(path2, sizeof(path2), "%s/b.jsonl", dir);
	core_up(&c);
	statsout_init(&o);
	assert_int_equal(statsout_open(&o, path), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	one_packet(&c, 0);
	assert_int_equal(statsout_emit(&o, &c, 1 * MS), 0);
	assert_int_equal(statsout_open(&o, path2), -1);
	assert_int_equal(log_lines("No such file or directory", &all), 1);
	assert_int_equal(all, 1);
	assert_string_equal(o.path, path);
	assert_int_equal(statsout_emit(&o, &c, 2 * MS), 0);
	statsout_close(&o);
	core_destroy(&c);
}

#define EXHAUST_TEST(f) cmocka_unit_test_setup_teardown(f, log_setup, log_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		EXHAUST_TEST(test_send_enobufs_said_once),
		EXHAUST_TEST(test_send_eagain_held_not_logged),
		EXHAUST_TEST(test_tun_write_fails_said_once),
		EXHAUST_TEST(test_pool_empty_said_once),
		EXHAUST_TEST(test_stats_disk_full),
		EXHAUST_TEST(test_stats_short_write),
		EXHAUST_TEST(test_stats_removed_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
