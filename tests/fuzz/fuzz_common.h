/* fuzz_common.h - what the libFuzzer targets (tests/fuzz/fuzz_*.c) share:
 * the failure macro, a private scratch directory for inputs that the real
 * code reads by path, a configuration for a given scheduler, and the fake
 * I/O the core writes to.  Nothing here re-implements a parser or a check:
 * the targets call the real code in schedtun_core and assert on its
 * results.
 */
#ifndef SCHEDTUN_FUZZ_COMMON_H
#define SCHEDTUN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include "conf/conf.h"
#include "core/core.h"

/* A violated invariant: prints where and why, then abort()s so that
 * libFuzzer records the input as a crash. */
#define FZ_CHECK(cond, ...)                                                 \
	do {                                                                \
		if (!(cond))                                                \
			fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);    \
	} while (0)

void fz_fail(const char *file, int line, const char *cond,
	     const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* The process's scratch directory (created on first use, removed with
 * its files at exit).  Never NULL: failure to create it abort()s. */
const char *fz_dir(void);

/* Writes data[0..size) to fz_dir()/name (replacing it) and returns the
 * full path in a static buffer valid until the next call. */
const char *fz_write_file(const char *name, const uint8_t *data, size_t size);

/* A default configuration (conf_defaults) running scheduler ops with its
 * default parameters for that configuration's link and limits, over a
 * constant link of rate_bps and a configured IPv4 peer 10.0.0.2:5000. */
void fz_conf(struct conf *c, const struct sched_ops *ops, uint64_t rate_bps);

/* The fake I/O: counts what the core sends and writes to the tun, and
 * hands each tun write to fz_io.on_tun (if set) for the target to check. */
struct fz_io {
	uint64_t sent, tun_writes;
	void   (*on_tun)(const uint8_t *buf, size_t len);
};
extern struct fz_io fz_io;
extern const struct core_io fz_core_io;

/* Makes sure the packet pool exists with count buffers of cap_bytes
 * (created once per process; the targets check it is empty after each
 * input). */
void fz_pool(uint32_t count, uint32_t cap_bytes);

#endif
