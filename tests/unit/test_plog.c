/* test_plog.c - the per-packet log (src/plog, src/daemon/plogwriter.c):
 * the encoder's lines for every event against lines written by hand
 * (IPv4 and IPv6, ports, a non-first fragment, an invalid packet), the
 * column count of any record, the buffer against a writer that takes a
 * few bytes at a time, one that is full (records refused and counted, a
 * system call only every PLOG_STALL_SKIP records) and one that fails
 * (records discarded and counted), and the writer process's copy loop:
 * an exact copy, a record cut by the daemon's death, /dev/full, and a
 * file that reaches its size limit mid-record (cut back to whole lines).
 * The golden lines here are also tests/unit/test_pktlog.py's input, so the
 * reader is tested on what this encoder writes. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "daemon/plogwriter.h"
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "plog/plog.h"
#include "util/rng.h"

/* A UDP/IPv4 packet 10.0.0.1:5001 -> 10.0.0.2:6000, DSCP 46, 100 bytes. */
static void udp4(uint8_t *b, uint32_t len, uint8_t dscp)
{
	memset(b, 0, len);
	b[0] = 0x45;
	b[1] = (uint8_t)(dscp << 2);
	b[2] = (uint8_t)(len >> 8);
	b[3] = (uint8_t)len;
	b[8] = 64;
	b[9] = 17;
	b[12] = 10; b[15] = 1;
	b[16] = 10; b[19] = 2;
	b[20] = 5001 >> 8; b[21] = 5001 & 0xff;
	b[22] = 6000 >> 8; b[23] = 6000 & 0xff;
	ipv4_set_checksum(b);
}

/* TCP/IPv6 2001:db8::1:443 -> 2001:db8::2:50000, DSCP 10, 60 bytes. */
static void tcp6(uint8_t *b)
{
	memset(b, 0, 60);
	b[0] = 0x60 | (10 >> 2);
	b[1] = (uint8_t)((10 & 3) << 6);
	b[5] = 20;
	b[6] = 6;
	b[7] = 64;
	b[8] = 0x20; b[9] = 0x01; b[10] = 0x0d; b[11] = 0xb8; b[23] = 1;
	b[24] = 0x20; b[25] = 0x01; b[26] = 0x0d; b[27] = 0xb8; b[39] = 2;
	b[40] = 443 >> 8; b[41] = 443 & 0xff;
	b[42] = 50000 >> 8; b[43] = 50000 & 0xff;
}

static void expect_line(const struct plog_rec *r, const char *want)
{
	char out[PLOG_LINE_MAX];
	size_t n = plog_format(r, out);

	assert_true(n < PLOG_LINE_MAX);
	out[n] = '\0';
	assert_string_equal(out, want);
}

static void test_header(void **state)
{
	(void)state;
	assert_string_equal(plog_header,
			    "t_ns,event,class,dscp,proto,src,sport,dst,dport,len_bytes,"
			    "seq,sojourn_ns,start_ns,owd_ns,verdict,reason\n");
}

static void test_lines_v4(void **state)
{
	uint8_t b[100];
	struct plog_rec r = {
		.t_ns = 1700000000123456789LL, .event = PLOG_ENQ, .cls = CLS_EF,
		.has = PLOG_HAS_LEN, .ip = b, .len_bytes = sizeof(b),
	};

	(void)state;
	udp4(b, sizeof(b), 46);
	expect_line(&r, "1700000000123456789,enq,ef,46,17,10.0.0.1,5001,10.0.0.2,6000,"
			"100,,,,,,\n");
	r.event = PLOG_DEP;
	r.has |= PLOG_HAS_SEQ | PLOG_HAS_SOJOURN | PLOG_HAS_START;
	r.seq = 4294967295u;
	r.sojourn_ns = 2500000;
	r.start_ns = 1700000000120000000LL;
	r.verdict = PKT_V_PQ;
	expect_line(&r, "1700000000123456789,dep,ef,46,17,10.0.0.1,5001,10.0.0.2,6000,"
			"100,4294967295,2500000,1700000000120000000,,pq,\n");
	r.event = PLOG_DROP;
	r.has = PLOG_HAS_LEN | PLOG_HAS_SOJOURN;
	r.sojourn_ns = 0;
	r.verdict = PKT_V_BETA;
	r.reason = "expired";
	expect_line(&r, "1700000000123456789,drop,ef,46,17,10.0.0.1,5001,10.0.0.2,6000,"
			"100,,0,,,beta,expired\n");
	r.event = PLOG_ARR;
	r.cls = CLS_AF;
	r.has = PLOG_HAS_LEN | PLOG_HAS_SEQ | PLOG_HAS_OWD;
	r.seq = 0;
	r.owd_ns = 250123456;
	r.verdict = PKT_V_NONE;
	r.reason = NULL;
	expect_line(&r, "1700000000123456789,arr,af,46,17,10.0.0.1,5001,10.0.0.2,6000,"
			"100,0,,,250123456,,\n");
}

static void test_lines_v6_frag_bad(void **state)
{
	uint8_t b[100];
	struct plog_rec r = {
		.t_ns = 5, .event = PLOG_ENQ, .cls = CLS_AF, .has = PLOG_HAS_LEN,
		.ip = b, .len_bytes = 60,
	};

	(void)state;
	tcp6(b);
	expect_line(&r, "5,enq,af,10,6,2001:db8::1,443,2001:db8::2,50000,60,,,,,,\n");

	/* A non-first IPv4 fragment: no ports read. */
	udp4(b, 100, 0);
	b[7] = 10;              /* fragment offset 80 bytes */
	ipv4_set_checksum(b);
	r.cls = CLS_CS0;
	r.len_bytes = 100;
	expect_line(&r, "5,enq,cs0,0,17,10.0.0.1,,10.0.0.2,,100,,,,,,\n");

	/* A bad checksum: the packet's own columns stay empty. */
	b[10] ^= 0xff;
	r.event = PLOG_DROP;
	r.cls = PLOG_NO_CLASS;
	r.reason_prefix = "tun_";
	r.reason = ip_verdict_name[IP_BAD_CHECKSUM];
	expect_line(&r, "5,drop,,,,,,,,100,,,,,,tun_bad_checksum\n");

	/* No packet, no length (pool_empty). */
	r.ip = NULL;
	r.has = 0;
	r.reason_prefix = NULL;
	r.reason = "pool_empty";
	expect_line(&r, "5,drop,,,,,,,,,,,,,,pool_empty\n");
}

static unsigned commas(const char *s, size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == ',';
	return k;
}

/* Any record, garbage packet bytes included, is one line of 16 columns. */
static void test_columns_always_16(void **state)
{
	uint64_t g = 21;
	uint8_t b[200];
	char out[PLOG_LINE_MAX];

	(void)state;
	for (int i = 0; i < 20000; i++) {
		struct plog_rec r;
		size_t n;

		for (size_t j = 0; j < sizeof(b); j++)
			b[j] = (uint8_t)rng_next(&g);
		if (i % 3 == 0)
			udp4(b, 100, (uint8_t)(rng_next(&g) & 63));
		else if (i % 3 == 1)
			tcp6(b);
		memset(&r, 0, sizeof(r));
		r.t_ns = (int64_t)rng_next(&g);
		r.event = (uint8_t)(rng_next(&g) % (PLOG_EVENT_MAX + 1));
		r.cls = (uint8_t)(rng_next(&g) % 5);
		r.verdict = (uint8_t)(rng_next(&g) % (PKT_V_MAX + 1));
		r.has = (uint8_t)rng_next(&g);
		r.ip = rng_next(&g) & 1 ? b : NULL;
		r.len_bytes = (uint32_t)(rng_next(&g) % (sizeof(b) + 1));
		r.seq = (uint32_t)rng_next(&g);
		r.sojourn_ns = (int64_t)rng_next(&g);
		r.start_ns = (int64_t)rng_next(&g);
		r.owd_ns = INT64_MIN;
		r.reason_prefix = "rx_inner_";
		r.reason = "a_reason_name_longer_than_the_limit_of_31_bytes";
		n = plog_format(&r, out);
		assert_true(n <= PLOG_LINE_MAX);
		assert_int_equal(out[n - 1], '\n');
		assert_null(memchr(out, '\n', n - 1));
		assert_int_equal(commas(out, n), 15);
	}
}

/* ---- the buffer ----------------------------------------------------------- */

struct sink {
	char    *got;
	size_t   len, cap;
	size_t   take;          /* bytes per call at most */
	int      full;          /* answer -EAGAIN */
	int      fail;          /* answer -EPIPE */
	unsigned calls;
};

static ssize_t sink_write(void *ctx, const void *buf, size_t len)
{
	struct sink *s = ctx;

	s->calls++;
	if (s->fail)
		return -EPIPE;
	if (s->full)
		return -EAGAIN;
	if (len > s->take)
		len = s->take;
	if (s->len + len > s->cap) {
		s->cap = (s->len + len) * 2;
		s->got = realloc(s->got, s->cap);
		assert_non_null(s->got);
	}
	memcpy(s->got + s->len, buf, len);
	s->len += len;
	return (ssize_t)len;
}

static void rec_n(struct plog_rec *r, uint32_t i)
{
	memset(r, 0, sizeof(*r));
	r->t_ns = 1000000 + i;
	r->event = PLOG_DROP;
	r->cls = CLS_CS0;
	r->has = PLOG_HAS_SEQ;
	r->seq = i;
	r->reason = "class_limit";
}

/* The sink's bytes are exactly the header and records 0..n-1 in order. */
static void expect_records(const struct sink *s, uint32_t n)
{
	size_t off = strlen(plog_header);
	char line[PLOG_LINE_MAX];

	assert_true(s->len >= off);
	assert_memory_equal(s->got, plog_header, off);
	for (uint32_t i = 0; i < n; i++) {
		struct plog_rec r;
		size_t k;

		rec_n(&r, i);
		k = plog_format(&r, line);
		assert_true(off + k <= s->len);
		assert_memory_equal(s->got + off, line, k);
		off += k;
	}
	assert_int_equal(off, s->len);
}

static void test_buffer_partial_writes(void **state)
{
	struct sink s = { .take = 7 };
	struct plog l;
	struct plog_rec r;

	(void)state;
	assert_int_equal(plog_init(&l, 4 * PLOG_LINE_MAX, sink_write, &s), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		rec_n(&r, i);
		plog_add(&l, &r);
		if (i % 3 == 0)
			plog_flush(&l);
	}
	while (plog_flush(&l))
		;
	assert_int_equal(l.records, 5000);
	assert_int_equal(l.dropped, 0);
	expect_records(&s, 5000);
	plog_destroy(&l);
	free(s.got);
}

static void test_buffer_full_drops_whole_records(void **state)
{
	struct sink s = { .take = SIZE_MAX, .full = 1 };
	struct plog l;
	struct plog_rec r;
	uint32_t i, kept;

	(void)state;
	assert_int_equal(plog_init(&l, 16 * PLOG_LINE_MAX, sink_write, &s), 0);
	for (i = 0; i < 10000; i++) {
		rec_n(&r, i);
		plog_add(&l, &r);
	}
	kept = (uint32_t)l.records;
	assert_true(kept > 0 && kept < 10000);
	assert_int_equal(l.records + l.dropped, 10000);
	/* A full destination costs a try every PLOG_STALL_SKIP records,
	 * not one per record. */
	assert_true(s.calls <= 2 + 10000 / PLOG_STALL_SKIP);
	s.full = 0;
	while (plog_flush(&l))
		;
	expect_records(&s, kept);       /* the first `kept`, whole, in order */
	/* Writing resumes once the destination has room. */
	rec_n(&r, kept);
	plog_add(&l, &r);
	plog_flush(&l);
	expect_records(&s, kept + 1);
	plog_destroy(&l);
	free(s.got);
}

static void test_buffer_write_error(void **state)
{
	struct sink s = { .take = SIZE_MAX, .fail = 1 };
	struct plog l;
	struct plog_rec r;

	(void)state;
	assert_int_equal(plog_init(&l, 16 * PLOG_LINE_MAX, sink_write, &s), 0);
	for (uint32_t i = 0; i < 3; i++) {
		rec_n(&r, i);
		plog_add(&l, &r);
	}
	assert_int_equal(plog_flush(&l), 0);
	assert_int_equal(l.write_errors, 1);
	assert_int_equal(l.last_err, EPIPE);
	assert_int_equal(l.discarded, 3);       /* the header is no record */
	assert_int_equal(l.records, 3);
	plog_destroy(&l);
	assert_int_equal(plog_init(&l, 100, sink_write, &s), -1);
	assert_int_equal(errno, EINVAL);
}

/* ---- the writer's copy loop ----------------------------------------------- */

static char tmpl[] = "/tmp/test_plog.XXXXXX";

static size_t slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

/* Feeds `in` to plogw_copy() through a pipe from a child process, the
 * output going to out_fd; returns the lost count. */
static uint64_t copy_through_pipe(const char *in, size_t n, int out_fd)
{
	int pfd[2];
	pid_t pid;
	uint64_t lost;
	int st;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t off = 0;

		close(pfd[0]);
		while (off < n) {
			ssize_t k = write(pfd[1], in + off, n - off > 1000 ? 1000 : n - off);

			if (k <= 0)
				_exit(1);
			off += (size_t)k;
		}
		_exit(0);
	}
	close(pfd[1]);
	lost = plogw_copy(pfd[0], out_fd, -1, "test");
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return lost;
}

static char *lines(uint32_t n, size_t *len)
{
	char *b = malloc((size_t)n * 64 + 1);
	size_t off = 0;

	assert_non_null(b);
	for (uint32_t i = 0; i < n; i++)
		off += (size_t)sprintf(b + off, "%u,record,%0*u\n", i, (int)(i % 40), i);
	*len = off;
	return b;
}

static void test_copy_exact_and_cut_record(void **state)
{
	char path[sizeof(tmpl)];
	size_t n, got;
	char *in = lines(20000, &n), *back = malloc(n + 64);
	int fd;

	(void)state;
	memcpy(path, tmpl, sizeof(tmpl));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(copy_through_pipe(in, n, fd), 0);
	got = slurp(path, back, n + 64);
	assert_int_equal(got, n);
	assert_memory_equal(back, in, n);

	/* The daemon died in the middle of its last record. */
	assert_int_equal(ftruncate(fd, 0), 0);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(copy_through_pipe(in, n - 3, fd), 1);
	got = slurp(path, back, n + 64);
	assert_true(got > 0 && back[got - 1] == '\n');
	assert_int_equal(got, (size_t)((char *)memrchr(in, '\n', n - 3) - in) + 1);
	close(fd);
	unlink(path);
	free(in);
	free(back);
}

static void test_copy_dev_full(void **state)
{
	size_t n;
	char *in = lines(3000, &n);
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	assert_true(fd >= 0);
	/* every line but the first, the header, is a record */
	assert_int_equal(copy_through_pipe(in, n, fd), 2999);
	close(fd);
	free(in);
}

/* A file that cannot grow past `limit` bytes (RLIMIT_FSIZE, the way a full
 * disk looks to write(2): a short write, then an error).  The writer cuts
 * the file back to its last whole line after each failure, and a later,
 * smaller write may fit again: so the file holds whole input lines, in
 * order, some missing, and lines written + lines lost = lines given. */
static void test_copy_file_limit(void **state)
{
	char path[sizeof(tmpl)];
	const rlim_t limit = 100000;
	size_t n, got, written_lines = 0;
	char *in = lines(20000, &n), *back = malloc(n);
	int fd, rp[2], st;
	uint64_t lost = 0;
	pid_t pid;

	(void)state;
	memcpy(path, tmpl, sizeof(tmpl));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(pipe(rp), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {         /* the limit must not reach the test runner */
		struct rlimit rl = { limit, limit };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		lost = copy_through_pipe(in, n, fd);
		if (write(rp[1], &lost, sizeof(lost)) != sizeof(lost))
			_exit(3);
		_exit(0);
	}
	close(rp[1]);
	assert_int_equal(read(rp[0], &lost, sizeof(lost)), sizeof(lost));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	got = slurp(path, back, n);
	assert_true(got > 0 && got <= limit);
	assert_int_equal(back[got - 1], '\n');
	for (size_t off = 0, next = 0; off < got; ) {
		char *nl = memchr(back + off, '\n', got - off);
		char want[64];
		unsigned i;

		assert_non_null(nl);
		assert_int_equal(sscanf(back + off, "%u,", &i), 1);
		assert_true(i >= next);         /* in order, none twice */
		snprintf(want, sizeof(want), "%u,record,%0*u\n", i, (int)(i % 40), i);
		assert_int_equal((size_t)(nl + 1 - (back + off)), strlen(want));
		assert_memory_equal(back + off, want, strlen(want));
		written_lines++;
		next = i + 1;
		off = (size_t)(nl + 1 - back);
	}
	assert_true(lost > 0);
	assert_int_equal(written_lines + lost, 20000);
	close(rp[0]);
	close(fd);
	unlink(path);
	free(in);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_lines_v4),
		cmocka_unit_test(test_lines_v6_frag_bad),
		cmocka_unit_test(test_columns_always_16),
		cmocka_unit_test(test_buffer_partial_writes),
		cmocka_unit_test(test_buffer_full_drops_whole_records),
		cmocka_unit_test(test_buffer_write_error),
		cmocka_unit_test(test_copy_exact_and_cut_record),
		cmocka_unit_test(test_copy_dev_full),
		cmocka_unit_test(test_copy_file_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
