/* fuzz_conf.c - target 3: a configuration file through conf_load(), the
 * loader behind `schedtun --check -f FILE` and SIGHUP (libconfig, every
 * section, the link profiles with their trace files, every scheduler's
 * group through the registry).
 *
 * The input is the file.  Its directory also holds trace.csv and
 * mm.trace, valid traces that `link.profile.file` may name.
 *
 * Asserts: the returned count equals the errors reported; with no error,
 * nothing was printed and the struct keeps the validator's promises
 * (scheduler from the registry, MTU, pool, limits, delay, stats interval
 * and profile in range, every DSCP mapped to a class) and the daemon
 * starts on it (core_init, as after `--check` says OK); with errors, at
 * least one line reads "FILE:LINE: " with LINE >= 1 (the file exists, so
 * a problem is somewhere in it), or "FILE: key: " for a value the file
 * lacks (diag.h).  No crash, no leak (ASan).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pkt/pkt.h"
#include "fuzz_common.h"

static const char trace_csv[] = "time_s,rate_bps\n0,1000000\n0.5,2000000\n";
static const char mm_trace[] = "1\n2\n2\n5\n";

/* Some line of out has "X:N: " with N >= 1 after a file name X. */
static int has_file_line(const char *out)
{
	const char *s;

	for (s = out; (s = strchr(s, ':')); s++) {
		const char *q = s + 1;

		if (*q < '1' || *q > '9' || s == out || s[-1] == '\n')
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (q[0] == ':' && q[1] == ' ')
			return 1;
	}
	return 0;
}

static void check_valid(const struct conf *c)
{
	int k;

	FZ_CHECK(c->sched && sched_lookup(c->sched->name) == c->sched,
		 "scheduler not from the registry");
	FZ_CHECK(c->mtu_bytes >= 576 && c->mtu_bytes <= 9000, "mtu %u", c->mtu_bytes);
	FZ_CHECK(c->pool_pkts >= 256 && c->pool_pkts <= 1048576, "pool %u", c->pool_pkts);
	for (k = 0; k < NCLASS; k++)
		FZ_CHECK(c->limit_pkts[k] >= 1 && c->limit_pkts[k] <= 1000000,
			 "limit[%d] %u", k, c->limit_pkts[k]);
	for (k = 0; k < 64; k++)
		FZ_CHECK(c->dscp.cls_of[k] < NCLASS, "dscp %d -> %u", k, c->dscp.cls_of[k]);
	FZ_CHECK(c->delay_ns <= 10 * NS_PER_SEC, "delay %llu",
		 (unsigned long long)c->delay_ns);
	FZ_CHECK(c->stats_interval_ns == 0 ||
		 (c->stats_interval_ns >= 10 * NS_PER_MS &&
		  c->stats_interval_ns <= 3600 * NS_PER_SEC), "stats interval");
	switch (c->link.kind) {
	case LINK_UNLIMITED:
		break;
	case LINK_CONSTANT:
		FZ_CHECK(c->link.rate_bps > 0, "constant rate 0");
		break;
	case LINK_COSINE:
		FZ_CHECK(c->link.mean_bps > 0 && c->link.amplitude >= 0 &&
			 c->link.amplitude < 1 && c->link.period_s > 0,
			 "cosine %llu %g %g", (unsigned long long)c->link.mean_bps,
			 c->link.amplitude, c->link.period_s);
		break;
	case LINK_TRACE:
		FZ_CHECK(c->link.npts > 0 && c->link.pts[0].t_ns == 0, "trace");
		break;
	case LINK_MAHIMAHI:
		FZ_CHECK(c->link.nopps > 0 && c->link.mm_period_ms > 0, "mahimahi");
		break;
	default:
		FZ_CHECK(0, "link kind %d", (int)c->link.kind);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int traces_written;
	const char *path;
	char *out = NULL;
	size_t outlen = 0;
	struct conf conf;
	struct diag d;
	struct core c;
	FILE *f;
	int errs;

	fz_pool(256, 1500);
	if (!traces_written) {
		fz_write_file("trace.csv", (const uint8_t *)trace_csv, strlen(trace_csv));
		fz_write_file("mm.trace", (const uint8_t *)mm_trace, strlen(mm_trace));
		traces_written = 1;
	}
	path = fz_write_file("fuzz.conf", data, size);
	f = open_memstream(&out, &outlen);
	FZ_CHECK(f, "open_memstream");
	diag_init(&d, f, path);
	errs = conf_load(path, &conf, &d);
	fclose(f);
	FZ_CHECK(errs == d.nerr, "returned %d, reported %d", errs, d.nerr);
	if (errs) {
		/* diag.h's one exception: a value the file lacks (pss selected
		 * with no group on an unlimited link) has no line to name and
		 * reads "FILE: key: ...". */
		FZ_CHECK(has_file_line(out) ||
			 (!strncmp(out, path, strlen(path)) &&
			  !strncmp(out + strlen(path), ": ", 2)),
			 "%d errors, none with FILE:LINE: or FILE: key:\n%s",
			 errs, out);
	} else {
		FZ_CHECK(outlen == 0, "no error but output:\n%s", out);
		check_valid(&conf);
		FZ_CHECK(core_init(&c, &conf, &fz_core_io, 0) == 0,
			 "valid configuration, scheduler %s fails to start",
			 conf.sched->name);
		core_destroy(&c);
	}
	free(out);
	return 0;
}
