/* fuzz_common.c - see fuzz_common.h. */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pkt/pkt.h"
#include "util/log.h"
#include "fuzz_common.h"

struct fz_io fz_io;

void fz_fail(const char *file, int line, const char *cond,
	     const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant violated: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static char scratch[64];

/* Best effort at exit: the directory holds only the files we wrote. */
static void fz_dir_remove(void)
{
	char path[sizeof(scratch) + 300];
	struct dirent *e;
	DIR *d = opendir(scratch);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", scratch, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(scratch);
}

const char *fz_dir(void)
{
	if (!scratch[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(scratch, sizeof(scratch), "%s/schedtun-fuzz.XXXXXX",
			 t && t[0] && strlen(t) < 32 ? t : "/tmp");
		if (!mkdtemp(scratch))
			fz_fail(__FILE__, __LINE__, "mkdtemp", "%s", scratch);
		atexit(fz_dir_remove);
		/* The daemon's info lines (peer pinned, reload) would be
		 * printed for every input. */
		log_set_level(LOG_ERR);
	}
	return scratch;
}

const char *fz_write_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[sizeof(scratch) + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fz_dir(), name);
	f = fopen(path, "wb");
	FZ_CHECK(f, "cannot create %s", path);
	FZ_CHECK(fwrite(data, 1, size, f) == size && fclose(f) == 0,
		 "cannot write %s", path);
	return path;
}

void fz_conf(struct conf *c, const struct sched_ops *ops, uint64_t rate_bps)
{
	struct sockaddr_in *peer = (struct sockaddr_in *)&c->peer.ss;

	conf_defaults(c);       /* a constant link */
	c->link.rate_bps = c->link.mean_bps = rate_bps;
	conf_use_sched(c, ops);
	c->has_peer = 1;
	memset(&c->peer, 0, sizeof(c->peer));
	peer->sin_family = AF_INET;
	peer->sin_port = htons(5000);
	peer->sin_addr.s_addr = htonl(0x0a000002);
	c->peer.len = sizeof(*peer);
}

static int fz_send(void *ctx, const uint8_t *buf, size_t len,
		   const struct conf_addr *to)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)to;
	fz_io.sent++;
	return 0;
}

static int fz_tun_write(void *ctx, const uint8_t *buf, size_t len)
{
	(void)ctx;
	fz_io.tun_writes++;
	if (fz_io.on_tun)
		fz_io.on_tun(buf, len);
	return 0;
}

const struct core_io fz_core_io = { .send = fz_send,
				    .tun_write = fz_tun_write };

void fz_pool(uint32_t count, uint32_t cap_bytes)
{
	if (pkt_pool_size())
		return;
	fz_dir();       /* quiet logging from the first input on */
	FZ_CHECK(pkt_pool_init(count, cap_bytes) == 0, "pool of %u", count);
}
