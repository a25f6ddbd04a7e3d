/* schedtun-efgen.c - a time-varying EF source and its sink (docs/efgen.md).
 *
 *   schedtun-efgen --dst ADDR:PORT --rate SPEC --duration D [options]
 *   schedtun-efgen --sink --listen ADDR:PORT [options]
 *
 * The sender paces UDP datagrams to the profile's integral (efgen.c) on
 * CLOCK_MONOTONIC with absolute sleeps; the sink counts them (efsink.c).
 * Both write one JSON object per interval and a summary line.  This file
 * holds only the command line, the sockets, the clock and the output.
 * Exit codes: 0 done (also after SIGINT/SIGTERM), 1 run-time error
 * (socket, bind, write), 2 bad command line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conf/conf.h"
#include "efgen/efgen.h"
#include "efgen/efsink.h"
#include "util/clock.h"
#include "util/jw.h"
#include "util/units.h"

#define PROG            "schedtun-efgen"
#define EXIT_RUNTIME    1
#define EXIT_USAGE      2
#define DEFAULT_SIZE    1250u
#define DEFAULT_TOS     0xb8u           /* DSCP 46, EF */
#define SOCKBUF_BYTES   (4 << 20)
#define DURATION_MAX_S  100000000ULL
#define RX_MAX_BYTES    65536u
/* A report line: the longest, the sink's summary, is 390 bytes with
 * every counter at its widest (2^64 - 1). */
#define REPORT_LINE_BYTES 1024u

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " PROG " --dst ADDR:PORT --rate SPEC --duration D [options]\n"
		"       " PROG " --sink --listen ADDR:PORT [options]\n"
		"A UDP source whose rate follows a profile EF(t), for EF traffic through\n"
		"schedtun, and the sink that measures it (docs/efgen.md).\n"
		"\n"
		"sender:\n"
		"  --dst ADDR:PORT   destination (IPv4, or [IPv6]:PORT)\n"
		"  --bind ADDR[:PORT]  source address (default: the kernel's choice)\n"
		"  --rate SPEC       RATE                         constant\n"
		"                    cosine:AVG:AMPLITUDE:PERIOD  AVG (1 + AMPLITUDE cos(2 pi t/PERIOD)),\n"
		"                                                 0 <= AMPLITUDE <= 1\n"
		"                    step:R1:T:R2                 R1 until T, then R2\n"
		"                    csv:FILE                     lines \"t_s,rate\", piecewise\n"
		"                                                 constant from each t_s, the first\n"
		"                                                 0; '#' comments\n"
		"                    RATE as in the config (\"5Mbit\", \"500kbit\", a plain number\n"
		"                    is bit/s; step and csv rates may be 0); PERIOD, T and\n"
		"                    durations: \"6.1s\", \"6100ms\", a plain number is seconds\n"
		"  --duration D      how long to send (required)\n"
		"  --size BYTES      IP packet size, rates count it (default %u; IPv4\n"
		"                    %u..%u, IPv6 %u..%u: headers + 16 bytes of payload)\n"
		"  --tos TOS         IP_TOS / IPV6_TCLASS byte (default 0xb8: EF, DSCP 46)\n"
		"  packet k is due when the integral of EF(t) reaches k*size*8 bits; a late\n"
		"  wake-up sends everything already due.  Payload: 8-byte sequence number,\n"
		"  8-byte CLOCK_REALTIME send time (ns), network byte order, then zeros.\n"
		"sink:\n"
		"  --sink --listen ADDR:PORT   receive there\n"
		"  --duration D      stop after D (default: at SIGINT/SIGTERM)\n"
		"both:\n"
		"  --report FILE     JSON lines (default stdout, \"-\")\n"
		"  --interval D      one line per interval (default 1s)\n"
		"  -h, --help, --version\n"
		"sender lines: {\"t\", \"target_bps\", \"sent_bps\", \"sent_pkts\", \"send_errors\"},\n"
		"  then {\"summary\": {\"duration_s\", \"sent_pkts\", \"sent_bytes\", \"target_bits\",\n"
		"  \"sent_bits\", \"error_pct\", \"send_errors\"}}\n"
		"sink lines: {\"t\", \"rcvd_bps\", \"rcvd_pkts\", \"lost_pkts\", \"reordered_pkts\",\n"
		"  \"dup_pkts\", \"owd_ms\": {\"p50\", \"p99\", \"max\"}}, then {\"summary\": {...}}\n"
		"bits are IP-level (UDP payload + 28 bytes, IPv6 48).  SIGINT/SIGTERM end\n"
		"either cleanly with the summary.  Exit: 0 done, 1 run-time error, 2 bad\n"
		"command line.\n",
		DEFAULT_SIZE,
		EFGEN_IP4_UDP_BYTES + EFGEN_PAYLOAD_MIN_BYTES, EFGEN_SIZE_MAX_BYTES,
		EFGEN_IP6_UDP_BYTES + EFGEN_PAYLOAD_MIN_BYTES, EFGEN_SIZE_MAX_BYTES);
}

/* ---- command line --------------------------------------------------- */

struct args {
	int sink;
	const char *dst, *bind, *listen, *rate, *report;
	const char *duration_s, *interval_s, *size_s, *tos_s;
	struct sockaddr_storage dst_ss, bind_ss, listen_ss;
	socklen_t dst_len, bind_len, listen_len;
	uint64_t duration_ns, interval_ns;
	uint32_t size_bytes;
	int tos;
};

/* Prints "PROG: OPT 'VALUE': msg" and returns EXIT_USAGE. */
static int bad(const char *opt, const char *val, const char *msg)
{
	fprintf(stderr, PROG ": %s '%s': %s\n", opt, val, msg);
	return EXIT_USAGE;
}

/* Prints "PROG: msg" and returns EXIT_USAGE. */
static int bad_args(const char *msg)
{
	fprintf(stderr, PROG ": %s\n", msg);
	return EXIT_USAGE;
}

#define ADDR_BAD "not an address (accepted: A.B.C.D:PORT or [IPv6]:PORT, " \
	"numeric, PORT 1..65535)"

/* "A.B.C.D:PORT" or "[V6]:PORT" with a port > 0 (need_port), or also a
 * bare address ("A.B.C.D", "V6", "[V6]") with port 0 (!need_port): the
 * daemon's own parser (conf_parse_hostport), so both accept the same
 * addresses.  0 or -1. */
static int parse_addr(const char *s, int need_port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct conf_addr a;
	char buf[INET6_ADDRSTRLEN + 8];
	int v6 = *s != '[' && strchr(s, ':') && strchr(s, ':') != strrchr(s, ':');

	if (conf_parse_hostport(s, need_port ? 1 : 0, &a) < 0) {
		if (need_port)
			return -1;
		/* a bare address: the same parse with port 0 */
		if ((size_t)snprintf(buf, sizeof(buf), "%s%s%s:0",
				     v6 ? "[" : "", s, v6 ? "]" : "") >=
		    sizeof(buf) ||
		    conf_parse_hostport(buf, 0, &a) < 0)
			return -1;
	}
	*ss = a.ss;
	*len = a.len;
	return 0;
}

/* A duration option: > 0, at most DURATION_MAX_S.  0 or EXIT_USAGE. */
static int opt_duration(const char *opt, const char *val, uint64_t *out_ns)
{
	char err[512];

	if (parse_duration_ns(val, out_ns, err, sizeof(err)) < 0)
		return bad(opt, val, err);
	if (*out_ns == 0 || *out_ns > DURATION_MAX_S * NS_PER_SEC)
		return bad(opt, val, "out of range (accepted: a duration > 0 "
			   "and at most 100000000 s, e.g. 100, 500ms)");
	return 0;
}

/* An unsigned integer in [lo, hi] (decimal, or 0x hex).  0 or -1. */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi,
		      unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return errno || !*s || *end || *s == '-' || *out < lo || *out > hi ?
		-1 : 0;
}

/* The values of a's options, checked together.  0 or EXIT_USAGE. */
static int check_args(struct args *a)
{
	unsigned long v;
	unsigned hdr;
	char msg[160];

	if (a->interval_s && opt_duration("--interval", a->interval_s,
					  &a->interval_ns))
		return EXIT_USAGE;
	if (a->duration_s && opt_duration("--duration", a->duration_s,
					  &a->duration_ns))
		return EXIT_USAGE;
	if (a->sink) {
		if (!a->listen)
			return bad_args("--sink needs --listen ADDR:PORT "
					"(accepted: e.g. --listen 0.0.0.0:6000)");
		if (parse_addr(a->listen, 1, &a->listen_ss, &a->listen_len))
			return bad("--listen", a->listen, ADDR_BAD);
		if (a->dst || a->rate || a->bind || a->size_s || a->tos_s)
			return bad_args("--sink takes --listen, --report, "
					"--interval and --duration only "
					"(accepted: the sender's options "
					"without --sink)");
		return 0;
	}
	if (a->listen)
		return bad_args("--listen is for --sink (accepted: --dst "
				"ADDR:PORT for the sender)");
	if (!a->dst || !a->rate || !a->duration_s)
		return bad_args("the sender needs --dst, --rate and "
				"--duration (accepted: see --help)");
	if (parse_addr(a->dst, 1, &a->dst_ss, &a->dst_len))
		return bad("--dst", a->dst, ADDR_BAD);
	if (a->bind && (parse_addr(a->bind, 0, &a->bind_ss, &a->bind_len) ||
			a->bind_ss.ss_family != a->dst_ss.ss_family))
		return bad("--bind", a->bind, "not an address of --dst's "
			   "family (accepted: ADDR or ADDR:PORT, [IPv6]:PORT)");
	hdr = a->dst_ss.ss_family == AF_INET6 ? EFGEN_IP6_UDP_BYTES :
						 EFGEN_IP4_UDP_BYTES;
	if (a->size_s) {
		if (parse_uint(a->size_s, hdr + EFGEN_PAYLOAD_MIN_BYTES,
			       EFGEN_SIZE_MAX_BYTES, &v)) {
			snprintf(msg, sizeof(msg), "not an IP packet size "
				 "(accepted: %u..%u bytes: %u of headers + "
				 "at least %u of payload)",
				 hdr + EFGEN_PAYLOAD_MIN_BYTES,
				 EFGEN_SIZE_MAX_BYTES, hdr,
				 EFGEN_PAYLOAD_MIN_BYTES);
			return bad("--size", a->size_s, msg);
		}
		a->size_bytes = (uint32_t)v;
	}
	if (a->tos_s) {
		if (parse_uint(a->tos_s, 0, 255, &v))
			return bad("--tos", a->tos_s, "not a TOS byte "
				   "(accepted: 0..255 or 0x00..0xff, e.g. "
				   "0xb8 = EF)");
		a->tos = (int)v;
	}
	return 0;
}

enum { OPT_DST = 256, OPT_BIND, OPT_RATE, OPT_DURATION, OPT_SIZE, OPT_TOS,
       OPT_REPORT, OPT_INTERVAL, OPT_SINK, OPT_LISTEN, OPT_VERSION };

/* Parses argv into a.  -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "dst",      required_argument, NULL, OPT_DST },
		{ "bind",     required_argument, NULL, OPT_BIND },
		{ "rate",     required_argument, NULL, OPT_RATE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "size",     required_argument, NULL, OPT_SIZE },
		{ "tos",      required_argument, NULL, OPT_TOS },
		{ "report",   required_argument, NULL, OPT_REPORT },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "sink",     no_argument,       NULL, OPT_SINK },
		{ "listen",   required_argument, NULL, OPT_LISTEN },
		{ "version",  no_argument,       NULL, OPT_VERSION },
		{ "help",     no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_DST:      a->dst = optarg; break;
		case OPT_BIND:     a->bind = optarg; break;
		case OPT_RATE:     a->rate = optarg; break;
		case OPT_DURATION: a->duration_s = optarg; break;
		case OPT_SIZE:     a->size_s = optarg; break;
		case OPT_TOS:      a->tos_s = optarg; break;
		case OPT_REPORT:   a->report = optarg; break;
		case OPT_INTERVAL: a->interval_s = optarg; break;
		case OPT_SINK:     a->sink = 1; break;
		case OPT_LISTEN:   a->listen = optarg; break;
		case OPT_VERSION:
			printf(PROG " %s\n", SCHEDTUN_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return bad("argument", argv[optind], "unexpected (accepted: "
			   "options only, see --help)");
	return check_args(a) ? EXIT_USAGE : -1;
}

/* ---- signals, output -------------------------------------------------- */

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* SIGINT/SIGTERM set stop_requested and interrupt the sleeps (no
 * SA_RESTART); SIGPIPE is ignored so a closed --report pipe is an error
 * from the write, not a silent death. */
static void signals_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Opens --report ("-" or none: stdout), line-buffered so that a reader
 * sees each line when its interval ends.  NULL after a message. */
static FILE *report_open(const char *path)
{
	FILE *f = path && strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		fprintf(stderr, PROG ": --report %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* Report lines that util/jw could not complete (never expected: see
 * REPORT_LINE_BYTES); report_close() fails the run for them, as for a
 * failed write, so that a reader never misses a line unnoticed. */
static unsigned long report_lost;

/* Ends the object that w holds and writes it to out as one line (jw's
 * format, the same as the stats lines'), or counts it in report_lost. */
static void report_put(FILE *out, struct jw *w)
{
	if (jw_finish(w) < 0)
		report_lost++;
	else
		fputs(w->buf, out);
}

/* Closes the report; rc, or EXIT_RUNTIME when a write was lost. */
static int report_close(FILE *f, const char *path, int rc)
{
	int err = ferror(f) || report_lost;

	if ((f == stdout ? fflush(f) : fclose(f)) != 0 || err) {
		fprintf(stderr, PROG ": --report %s: write failed\n",
			path ? path : "-");
		return rc ? rc : EXIT_RUNTIME;
	}
	return rc;
}

/* A UDP socket of family fam with big buffers.  -1 after a message. */
static int udp_socket(int fam)
{
	int fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0), sz = SOCKBUF_BYTES;

	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

/* ---- sender ------------------------------------------------------------ */

struct sender {
	int       fd;
	FILE     *out;
	uint8_t  *buf;
	size_t    payload_bytes;
	const struct sockaddr_storage *dst;
	socklen_t dst_len;
};

/* efgen_io.send: one datagram, non-blocking so that a full socket never
 * holds up the schedule (ENOBUFS/EAGAIN: counted by the run). */
static int sender_send(void *ctx, uint64_t seq)
{
	struct sender *s = ctx;

	efgen_payload_write(s->buf, s->payload_bytes, seq, clock_real_ns());
	return sendto(s->fd, s->buf, s->payload_bytes, MSG_DONTWAIT,
		      (const struct sockaddr *)s->dst, s->dst_len) ==
	       (ssize_t)s->payload_bytes ? 0 : -1;
}

static void sender_report(void *ctx, const struct efgen_interval *iv)
{
	struct sender *s = ctx;
	char buf[REPORT_LINE_BYTES];
	struct jw w;

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_double(&w, "t", iv->t_s, 3);
	jw_double(&w, "target_bps", iv->target_bps, 1);
	jw_double(&w, "sent_bps", iv->sent_bps, 1);
	jw_u64(&w, "sent_pkts", iv->sent_pkts);
	jw_u64(&w, "send_errors", iv->send_errors);
	jw_obj_end(&w);
	report_put(s->out, &w);
}

/* The sender's summary line, {"summary": {...}}. */
static void sender_summary(FILE *out, const struct efgen_summary *sum)
{
	char buf[REPORT_LINE_BYTES];
	struct jw w;

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_obj_begin(&w, "summary");
	jw_double(&w, "duration_s", sum->duration_s, 3);
	jw_u64(&w, "sent_pkts", sum->sent_pkts);
	jw_u64(&w, "sent_bytes", sum->sent_bytes);
	jw_double(&w, "target_bits", sum->target_bits, 1);
	jw_double(&w, "sent_bits", sum->sent_bits, 1);
	jw_double(&w, "error_pct", sum->error_pct, 4);
	jw_u64(&w, "send_errors", sum->send_errors);
	jw_obj_end(&w);
	jw_obj_end(&w);
	report_put(out, &w);
}

/* The socket: TOS set, bound if asked.  Not connected: a connected UDP
 * socket reports the ICMP port-unreachable of a sink not yet listening
 * as a failure of the next send, which would lose that packet.  -1 after
 * a message. */
static int sender_socket(const struct args *a)
{
	int fam = a->dst_ss.ss_family, fd = udp_socket(fam), tos = a->tos;

	if (fd < 0)
		return -1;
	if ((fam == AF_INET6 ?
	     setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
	     setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos))) < 0) {
		fprintf(stderr, PROG ": --tos %d: %s\n", tos, strerror(errno));
		goto fail;
	}
	if (a->bind && bind(fd, (const struct sockaddr *)&a->bind_ss,
			    a->bind_len) < 0) {
		fprintf(stderr, PROG ": --bind %s: %s\n", a->bind,
			strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* Sleeps until t_ns on CLOCK_MONOTONIC (absolute), or a signal. */
static void sleep_until(tstamp_ns t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / NS_PER_SEC),
			       .tv_nsec = (long)(t_ns % NS_PER_SEC) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The sender's loop: sleep until the next event, let the run send and
 * report, until the end or a stop request.  A signal landing between the
 * check and the sleep is seen at the next wake-up, at most one
 * --interval later. */
static int run_sender(const struct args *a, const struct efgen_profile *p,
		      FILE *out)
{
	struct sender s = { .out = out, .dst = &a->dst_ss,
			    .dst_len = a->dst_len };
	struct efgen_io io = { &s, sender_send, sender_report };
	struct efgen_run run;
	struct efgen_summary sum;
	tstamp_ns t0, wake;
	unsigned hdr = a->dst_ss.ss_family == AF_INET6 ?
		EFGEN_IP6_UDP_BYTES : EFGEN_IP4_UDP_BYTES;

	if ((s.fd = sender_socket(a)) < 0)
		return EXIT_RUNTIME;
	s.payload_bytes = a->size_bytes - hdr;
	s.buf = calloc(1, s.payload_bytes);
	if (!s.buf) {
		close(s.fd);
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_RUNTIME;
	}
	efgen_run_init(&run, p, a->size_bytes, a->duration_ns, a->interval_ns);
	t0 = clock_mono_ns();
	wake = efgen_run_step(&run, 0, &io);
	while (wake != TS_NEVER) {
		if (stop_requested) {
			efgen_run_stop(&run, clock_mono_ns() - t0, &io);
			break;
		}
		sleep_until(t0 + wake);
		wake = efgen_run_step(&run, clock_mono_ns() - t0, &io);
	}
	efgen_run_summary(&run, &sum);
	sender_summary(out, &sum);
	free(s.buf);
	close(s.fd);
	return 0;
}

/* ---- sink -------------------------------------------------------------- */

/* The "owd_ms" member of a sink line. */
static void owd_json(struct jw *w, const struct efsink_owd_ms *o)
{
	jw_obj_begin(w, "owd_ms");
	jw_double(w, "p50", o->p50, 3);
	jw_double(w, "p99", o->p99, 3);
	jw_double(w, "max", o->max, 3);
	jw_obj_end(w);
}

/* Closes the sink's interval at to_ns and writes its line. */
static void sink_line(FILE *out, struct efsink *k, tstamp_ns to_ns)
{
	struct efsink_interval iv;
	char buf[REPORT_LINE_BYTES];
	struct jw w;

	efsink_interval_close(k, to_ns, &iv);
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_double(&w, "t", iv.t_s, 3);
	jw_double(&w, "rcvd_bps", iv.rcvd_bps, 1);
	jw_u64(&w, "rcvd_pkts", iv.rcvd_pkts);
	jw_i64(&w, "lost_pkts", iv.lost_pkts);
	jw_u64(&w, "reordered_pkts", iv.reordered_pkts);
	jw_u64(&w, "dup_pkts", iv.dup_pkts);
	owd_json(&w, &iv.owd_ms);
	jw_obj_end(&w);
	report_put(out, &w);
}

/* The sink's summary line, {"summary": {...}}, over dur_ns. */
static void sink_summary(FILE *out, const struct efsink *k, tstamp_ns dur_ns)
{
	struct efsink_summary s;
	char buf[REPORT_LINE_BYTES];
	struct jw w;

	efsink_summary(k, dur_ns, &s);
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w, NULL);
	jw_obj_begin(&w, "summary");
	jw_double(&w, "duration_s", s.duration_s, 3);
	jw_u64(&w, "rcvd_pkts", s.rcvd_pkts);
	jw_u64(&w, "rcvd_bytes", s.rcvd_bytes);
	jw_double(&w, "rcvd_bits", s.rcvd_bits, 1);
	jw_i64(&w, "lost_pkts", s.lost_pkts);
	jw_u64(&w, "reordered_pkts", s.reordered_pkts);
	jw_u64(&w, "dup_pkts", s.dup_pkts);
	jw_u64(&w, "highest_seq", s.highest_seq);
	owd_json(&w, &s.owd_ms);
	jw_obj_end(&w);
	jw_obj_end(&w);
	report_put(out, &w);
}

/* The bound socket, with kernel receive timestamps (SO_TIMESTAMPNS: the
 * delay does not include the time a busy sink takes to read).  -1 after
 * a message. */
static int sink_socket(const struct args *a)
{
	int fd = udp_socket(a->listen_ss.ss_family), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&a->listen_ss,
		 a->listen_len) < 0) {
		fprintf(stderr, PROG ": --listen %s: %s\n", a->listen,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads every datagram waiting on fd into k.  0, or -1 after a message. */
static int sink_drain(int fd, unsigned hdr, struct efsink *k)
{
	static uint8_t buf[RX_MAX_BYTES];
	char ctl[CMSG_SPACE(sizeof(struct timespec))];

	for (;;) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		uint64_t seq, sent_ns, rx_ns = 0;
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return 0;
			fprintf(stderr, PROG ": recv: %s\n", strerror(errno));
			return -1;
		}
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				rx_ns = (uint64_t)ts.tv_sec * NS_PER_SEC +
					(uint64_t)ts.tv_nsec;
			}
		if (!rx_ns)
			rx_ns = clock_real_ns();
		if (efgen_payload_read(buf, (size_t)n, &seq, &sent_ns) < 0)
			continue;       /* not ours: too short to carry a stamp */
		if (efsink_add(k, seq, (uint64_t)n + hdr,
			       (int64_t)(rx_ns - sent_ns)) < 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return -1;
		}
	}
}

/* Waits for datagrams until `until` (monotonic ns) or a signal.  Signals
 * stay blocked outside ppoll, so one arriving before it interrupts it. */
static int sink_wait(int fd, tstamp_ns until, const sigset_t *unblocked)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	tstamp_ns now = clock_mono_ns(), d = until > now ? until - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(d / NS_PER_SEC),
			       .tv_nsec = (long)(d % NS_PER_SEC) };

	return ppoll(&pfd, 1, &ts, unblocked);
}

static int run_sink(const struct args *a, FILE *out)
{
	unsigned hdr = a->listen_ss.ss_family == AF_INET6 ?
		EFGEN_IP6_UDP_BYTES : EFGEN_IP4_UDP_BYTES;
	tstamp_ns t0, end, next, now;
	sigset_t block, old;
	struct efsink k;
	int fd, rc = 0;

	if ((fd = sink_socket(a)) < 0)
		return EXIT_RUNTIME;
	efsink_init(&k);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	t0 = clock_mono_ns();
	end = a->duration_ns ? t0 + a->duration_ns : TS_NEVER;
	next = t0 + a->interval_ns;
	for (;;) {
		if (sink_drain(fd, hdr, &k) < 0) {
			rc = EXIT_RUNTIME;
			break;
		}
		now = clock_mono_ns();
		while (next <= now && next <= end) {
			sink_line(out, &k, next - t0);
			next += a->interval_ns;
		}
		if (now >= end || stop_requested)
			break;
		sink_wait(fd, next < end ? next : end, &old);
	}
	now = clock_mono_ns();
	now = now > end ? end : now;
	if (now - t0 > k.ival_start_ns)
		sink_line(out, &k, now - t0);
	sink_summary(out, &k, now - t0);
	efsink_free(&k);
	close(fd);
	return rc;
}

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct args a = { .size_bytes = DEFAULT_SIZE, .tos = DEFAULT_TOS,
			  .interval_ns = NS_PER_SEC };
	struct efgen_profile prof;
	char err[1024];
	FILE *out;
	int rc = parse_args(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (!a.sink && efgen_profile_parse(a.rate, &prof, err,
					   sizeof(err)) < 0)
		return bad("--rate", a.rate, err);
	signals_setup();
	if (!(out = report_open(a.report))) {
		rc = EXIT_RUNTIME;
	} else {
		rc = a.sink ? run_sink(&a, out) : run_sender(&a, &prof, out);
		rc = report_close(out, a.report, rc);
	}
	if (!a.sink)
		efgen_profile_free(&prof);
	return rc;
}
