/* plog.h - the per-packet log: one CSV line per packet event.
 *
 * Why CSV (docs/pktlog.md): pandas, R, awk, sqlite's .import and a
 * spreadsheet read it as it is, with no code of ours; pcapng would carry
 * our fields only as comments that every tool would have to parse again,
 * and a binary format needs our converter before anything can look at it.
 * What a line weighs and what the log costs at 20 Mbit/s and 1 Gbit/s is
 * measured by scripts/plog-bench.sh (docs/pktlog.md).
 *
 * The columns, in this order (the header line names them):
 *   t_ns        CLOCK_REALTIME of the event, ns since the epoch (the clock
 *               of the tunnel header's timestamp, shared by the network
 *               namespaces of a host: sender, receiver and traffic
 *               sources' records line up)
 *   event       enq | dep | drop | arr
 *   class       ef | af | cs0 (empty: not classified)
 *   dscp, proto, src, sport, dst, dport
 *               from the inner IP header (empty when it was not a valid
 *               IP packet; ports empty when the protocol has none or the
 *               packet is a non-first fragment)
 *   len_bytes   inner packet (a datagram refused before decapsulation:
 *               its length; pool_empty: empty)
 *   seq         the tunnel's per-class sequence number (dep, arr)
 *   sojourn_ns  time in the scheduler: link start - enqueue (dep; a drop
 *               of a packet the scheduler held: now - enqueue)
 *   start_ns    when it started on the emulated link, CLOCK_REALTIME (dep)
 *   owd_ns      one-way delay from the peer's timestamp (arr)
 *   verdict     the scheduler's decision (enum pkt_verdict: pq, flow,
 *               alpha, beta, conforming, excess, background), if any
 *   reason      drop: the name of the stats line's drops counter it moved
 *               (class_limit, expired, tun_bad_checksum, send_error, ...)
 *
 * Never blocking, never allocating per packet.  Records are formatted into
 * a buffer allocated once; the buffer is handed to a write function (the
 * daemon's: a non-blocking pipe to a writer process) when it is half full
 * and on plog_flush().  A write that takes only part of the buffer keeps the
 * rest for the next one, so a record is never split or lost between the
 * buffer and the writer.  When the buffer has no room for a record even
 * after a flush, the record is refused and counted (`dropped`): under
 * pressure the log loses whole records, forwarding loses nothing.
 */
#ifndef SCHEDTUN_PLOG_H
#define SCHEDTUN_PLOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum plog_event { PLOG_ENQ = 0, PLOG_DEP, PLOG_DROP, PLOG_ARR, PLOG_EVENT_MAX };

extern const char *const plog_event_name[PLOG_EVENT_MAX];
extern const char plog_header[];        /* the CSV header line, with '\n' */

#define PLOG_NO_CLASS   0xff
#define PLOG_HAS_SEQ     0x01u
#define PLOG_HAS_SOJOURN 0x02u
#define PLOG_HAS_START   0x04u
#define PLOG_HAS_OWD     0x08u
#define PLOG_HAS_LEN     0x10u
#define PLOG_LINE_MAX    320            /* longest line, '\n' included */

struct plog_rec {
	int64_t        t_ns;            /* CLOCK_REALTIME */
	uint8_t        event;           /* enum plog_event */
	uint8_t        cls;             /* enum pkt_class or PLOG_NO_CLASS */
	uint8_t        verdict;         /* enum pkt_verdict */
	uint8_t        has;             /* PLOG_HAS_*: which optional fields */
	const uint8_t *ip;              /* inner packet, or NULL */
	uint32_t       len_bytes;       /* of ip (also the len column) */
	uint32_t       seq;
	int64_t        sojourn_ns;
	int64_t        start_ns;        /* CLOCK_REALTIME */
	int64_t        owd_ns;
	const char    *reason_prefix;   /* written before reason, or NULL */
	const char    *reason;          /* drops; NULL otherwise */
};

/* Formats r as one line into out (at least PLOG_LINE_MAX bytes).  The
 * inner packet, when given, is validated again (ip_inspect): an invalid one
 * leaves its columns empty, it is never read past len_bytes.  Returns the
 * line's length, '\n' included. */
size_t plog_format(const struct plog_rec *r, char *out);

/* Hands up to len bytes to the log's destination without blocking: the
 * number of bytes taken (>= 0), or -errno (-EAGAIN: nothing now). */
typedef ssize_t (*plog_write_fn)(void *ctx, const void *buf, size_t len);

struct plog {
	char         *buf;
	size_t        len_bytes;        /* formatted, not yet written */
	size_t        cap_bytes;
	plog_write_fn write;
	void         *ctx;
	/* cumulative counts */
	uint64_t      records;          /* accepted into the buffer */
	uint64_t      dropped;          /* refused: no room (pressure) */
	uint64_t      write_errors;     /* writes that failed (not EAGAIN) */
	uint64_t      discarded;        /* records lost with a failed write */
	uint64_t      out_bytes;        /* handed to the write function */
	int           last_err;         /* errno of the latest failed write */
	unsigned      stalled;          /* > 0: the last write met EAGAIN;
					 * records until the next try */
};

#define PLOG_STALL_SKIP 64              /* records between tries when full */

/* Allocates a buffer of cap_bytes (>= 4 * PLOG_LINE_MAX) and puts the
 * header line in it.  0, or -1 (ENOMEM, EINVAL). */
int  plog_init(struct plog *l, size_t cap_bytes, plog_write_fn w, void *ctx);
void plog_destroy(struct plog *l);

/* Formats and queues one record; flushes when the buffer is half full
 * (while the destination is full, every PLOG_STALL_SKIP records). */
void plog_add(struct plog *l, const struct plog_rec *r);

/* Hands the buffer to the write function until it takes no more.  A write
 * that fails with anything but EAGAIN discards what was buffered (counted
 * in write_errors and discarded, by records).  Returns the bytes still
 * buffered. */
size_t plog_flush(struct plog *l);

#endif
