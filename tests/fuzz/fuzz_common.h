/* fuzz_common.h - what the libFuzzer targets (tests/fuzz/fuzz_*.c) share:
 * the failure macro, a private scratch directory for inputs that the real
 * code reads by path, a configuration for a given scheduler, the fake
 * I/O the core writes to, and the oracles' own readers: big-endian words
 * and a JSON parser, written apart from the product's tunnel.c and jw.c
 * so that what the product writes is checked by code that shares none of
 * its mistakes.  The targets call the real code in schedtun_core and
 * assert on its results.
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
 * hands each datagram sent to fz_io.on_send and each tun write to
 * fz_io.on_tun (when set) for the target to check. */
struct fz_io {
	uint64_t sent, tun_writes;
	void   (*on_send)(const uint8_t *buf, size_t len);
	void   (*on_tun)(const uint8_t *buf, size_t len);
};
extern struct fz_io fz_io;
extern const struct core_io fz_core_io;

/* Makes sure the packet pool exists with count buffers of cap_bytes
 * (created once per process; the targets check it is empty after each
 * input). */
void fz_pool(uint32_t count, uint32_t cap_bytes);

/* Network byte order reads, independent of the product's decoders. */
uint32_t fz_be16(const uint8_t *b);
uint32_t fz_be32(const uint8_t *b);
uint64_t fz_be64(const uint8_t *b);

/* The targets' checksum oracle, written from RFC 1071 apart from the
 * product's util/csum.h (as tests/unit/testutil.c's tu_csum_*, which
 * needs cmocka and is not built with the fuzzers): sum + the 16-bit
 * big-endian words of b[0..n) (a last odd byte padded with a zero), and
 * a sum folded to 16 bits with end-around carry (not complemented).  A
 * header or segment verifies when the fold of its sum (with the
 * pseudo-header's) is 0xffff. */
uint32_t fz_csum_sum(uint32_t sum, const uint8_t *b, size_t n);
uint16_t fz_csum_fold(uint32_t sum);

/* The TCP/UDP pseudo-header sum of IPv4/IPv6 packet p (addresses at
 * 12..19 / 8..39) for protocol proto and l4_len bytes of L4 (RFC 793,
 * RFC 8200 8.1). */
uint32_t fz_csum_pseudo(const uint8_t *p, int v6, uint8_t proto,
			uint32_t l4_len);

/* A JSON value parsed by fz_json_parse(): a tree written here from
 * RFC 8259, independent of the product's writer (util/jw.c), so that a
 * stats line is checked by a reader that shares none of its code. */
enum fz_json_type { FZ_JSON_NULL, FZ_JSON_BOOL, FZ_JSON_NUM, FZ_JSON_STR,
		    FZ_JSON_ARR, FZ_JSON_OBJ };

struct fz_json {
	enum fz_json_type type;
	char    *key;                   /* member of an object: its name */
	char    *str;                   /* STR: the value (\u escapes as '?') */
	double   num;                   /* NUM (BOOL: 0 or 1) */
	int      is_uint;               /* NUM written as a plain integer >= 0 */
	uint64_t uint;                  /* ... and its exact value */
	struct fz_json *child, *next;   /* ARR/OBJ: members in order */
};

/* Parses text[0..len) as exactly one JSON value (whitespace around it
 * allowed, nothing else; RFC 8259 grammar: no trailing comma, no NaN, no
 * leading zero, no control character in a string; an object with a key
 * twice is refused too).  The tree (free with fz_json_free), or NULL
 * with the reason and byte offset in err. */
struct fz_json *fz_json_parse(const char *text, size_t len, char *err,
			      size_t errlen);
void fz_json_free(struct fz_json *v);

/* The member `key` of object obj, or NULL (also when obj is NULL or not
 * an object). */
const struct fz_json *fz_json_get(const struct fz_json *obj, const char *key);

/* The member path "a.b.c" below obj, which must be a plain non-negative
 * integer: its value, else aborts naming the path. */
uint64_t fz_json_uint(const struct fz_json *obj, const char *path);

/* The member path below obj, which must be a finite number (not null):
 * its value, else aborts naming the path. */
double fz_json_num(const struct fz_json *obj, const char *path);

/* Aborts unless fz_json_parse refuses a list of malformed texts and
 * reads a well-formed one right: the oracle's own check, run once by the
 * targets that use it. */
void fz_json_selftest(void);

/* The member path below obj (any type), or NULL. */
const struct fz_json *fz_json_path(const struct fz_json *obj, const char *path);

#endif
