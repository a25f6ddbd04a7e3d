/* plog.c - the per-packet log's buffer (see plog.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "plog/plog.h"

int plog_init(struct plog *l, size_t cap_bytes, plog_write_fn w, void *ctx)
{
	memset(l, 0, sizeof(*l));
	if (cap_bytes < 4 * PLOG_LINE_MAX || !w) {
		errno = EINVAL;
		return -1;
	}
	l->buf = malloc(cap_bytes);
	if (!l->buf)
		return -1;
	l->cap_bytes = cap_bytes;
	l->write = w;
	l->ctx = ctx;
	l->len_bytes = strlen(plog_header);
	memcpy(l->buf, plog_header, l->len_bytes);
	return 0;
}

void plog_destroy(struct plog *l)
{
	free(l->buf);
	l->buf = NULL;
	l->len_bytes = l->cap_bytes = 0;
}

static uint64_t count_lines(const char *b, size_t n)
{
	uint64_t k = 0;
	const char *e = b + n;

	while ((b = memchr(b, '\n', (size_t)(e - b)))) {
		k++;
		b++;
	}
	return k;
}

size_t plog_flush(struct plog *l)
{
	size_t off = 0;

	l->stalled = 0;

	while (off < l->len_bytes) {
		ssize_t n = l->write(l->ctx, l->buf + off, l->len_bytes - off);

		if (n == -EAGAIN || n == -EWOULDBLOCK || n == 0) {
			l->stalled = PLOG_STALL_SKIP;
			break;
		}
		if (n < 0) {
			/* The destination is gone or broken: what it did not
			 * take is lost, whole lines counted (a line it took
			 * part of is counted here too). */
			uint64_t k = count_lines(l->buf + off, l->len_bytes - off);

			l->write_errors++;
			l->last_err = (int)-n;
			/* the header line is not a record */
			l->discarded += k - (k && l->out_bytes + off < strlen(plog_header));
			off = l->len_bytes;
			break;
		}
		off += (size_t)n;
	}
	if (off) {
		l->out_bytes += off;
		memmove(l->buf, l->buf + off, l->len_bytes - off);
		l->len_bytes -= off;
	}
	return l->len_bytes;
}

/* While the destination is full (stalled), a record tries the write again
 * only every PLOG_STALL_SKIP records: a full pipe must not cost a system
 * call per packet. */
static int plog_try_flush(struct plog *l)
{
	if (l->stalled && --l->stalled)
		return 0;
	plog_flush(l);
	return 1;
}

void plog_add(struct plog *l, const struct plog_rec *r)
{
	if (l->cap_bytes - l->len_bytes < PLOG_LINE_MAX &&
	    (!plog_try_flush(l) || l->cap_bytes - l->len_bytes < PLOG_LINE_MAX)) {
		l->dropped++;
		return;
	}
	l->len_bytes += plog_format(r, l->buf + l->len_bytes);
	l->records++;
	if (l->len_bytes >= l->cap_bytes / 2)
		plog_try_flush(l);
}
