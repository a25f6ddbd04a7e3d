/* fuzz_udpgro.c - target 7: one UDP_GRO receive split back into datagrams
 * by the real udpgro_split() (src/pkt/udpgso.c), as the loop does before
 * core_udp_input() checks each datagram.
 *
 * Input: bytes 0-1 the gso_size of the control message as a signed
 * big-endian 16-bit value (0 or negative: no control message); byte 2
 * bit 0: MSG_TRUNC (the kernel cut the buffer), bit 1: the callee holds
 * every packet until the split ends, so that the pool (POOL_PKTS) runs
 * out; the rest is the receive buffer, copied to a buffer of exactly its
 * size so that ASan sees any read past it.
 *
 * Oracle: the split rule of udpgso.h written again here, independently
 * (expect_segments): no control message, or gso_size >= the buffer, gives
 * one datagram (an empty buffer too); otherwise ceil(n / gso_size)
 * datagrams of gso_size bytes, the last 1..gso_size, whose lengths add up
 * to the buffer's.  Asserts: the return value and the deliveries are
 * that many, in order; datagram i is the buffer's slice i byte for byte
 * at p->data - TUN_HDR_BYTES with its length; the only two refusals are
 * the documented ones - a slice longer than a pool packet's room
 * (TUN_HDR_BYTES + the pool's capacity), or the last slice of a cut
 * buffer, reported as room + 1 bytes with the first min(slice, room)
 * bytes copied - and a NULL packet only when the pool is really empty,
 * with the slice's true length.  Every packet goes back to the pool.
 */
#include <stdlib.h>
#include <string.h>
#include "pkt/pkt.h"
#include "pkt/tunnel.h"
#include "pkt/udpgso.h"
#include "fuzz_common.h"

#define POOL_PKTS 64u
#define CAP_BYTES 1400u         /* the default inner MTU */
#define MAX_SEGS  8192u         /* > the 4096-byte input cap */

struct seg {
	size_t off, len;
};

struct split_ctx {
	const uint8_t *buf;
	size_t         nseg, got;
	const struct seg *want;
	int            truncated, hold;
	struct pkt    *held[MAX_SEGS];
	size_t         nheld;
};

/* The rule of udpgso.h, independently of udpgso.c: fills want[] with the
 * slices and returns their count. */
static size_t expect_segments(size_t n, int gso, struct seg *want)
{
	size_t k = 0, off;

	if (gso <= 0 || (size_t)gso >= n) {
		want[0].off = 0;
		want[0].len = n;
		return 1;
	}
	for (off = 0; off < n; off += (size_t)gso) {
		want[k].off = off;
		want[k].len = n - off < (size_t)gso ? n - off : (size_t)gso;
		k++;
	}
	return k;
}

static void deliver(void *vctx, struct pkt *p, size_t dgram_bytes)
{
	struct split_ctx *x = vctx;
	size_t i = x->got++, room = TUN_HDR_BYTES + pkt_pool_cap_bytes(), copied;
	const struct seg *w;
	int cut;

	FZ_CHECK(i < x->nseg, "delivery %zu of %zu expected", i + 1, x->nseg);
	w = &x->want[i];
	cut = x->truncated && i == x->nseg - 1;
	if (!p) {
		FZ_CHECK(pkt_pool_in_use() == pkt_pool_size(),
			 "datagram %zu: NULL packet with %u of %u in use", i,
			 pkt_pool_in_use(), pkt_pool_size());
		FZ_CHECK(dgram_bytes == w->len, "datagram %zu: lost with length "
			 "%zu, slice %zu", i, dgram_bytes, w->len);
		return;
	}
	if (w->len > room || cut) {
		FZ_CHECK(dgram_bytes == room + 1, "datagram %zu (%zu bytes, cut "
			 "%d): reported %zu, room %zu", i, w->len, cut,
			 dgram_bytes, room);
		copied = w->len < room ? w->len : room;
	} else {
		FZ_CHECK(dgram_bytes == w->len, "datagram %zu: %zu bytes, slice "
			 "%zu at %zu", i, dgram_bytes, w->len, w->off);
		copied = w->len;
	}
	FZ_CHECK(!memcmp(p->data - TUN_HDR_BYTES, x->buf + w->off, copied),
		 "datagram %zu: bytes differ from the slice at %zu", i, w->off);
	if (x->hold)
		x->held[x->nheld++] = p;
	else
		pkt_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seg want[MAX_SEGS];
	static struct split_ctx x;
	size_t n, total = 0, i, r;
	uint8_t *buf;
	int gso;

	if (size < 3)
		return 0;
	fz_pool(POOL_PKTS, CAP_BYTES);
	gso = (int16_t)((uint16_t)data[0] << 8 | data[1]);
	n = size - 3;
	/* Exactly n bytes, so ASan flags a read past the buffer (an empty
	 * buffer gets 1 byte: malloc(0) may return NULL; never read). */
	buf = malloc(n ? n : 1);
	FZ_CHECK(buf, "malloc %zu", n);
	memcpy(buf, data + 3, n);
	memset(&x, 0, sizeof(x));
	x.buf = buf;
	x.truncated = data[2] & 1;
	x.hold = data[2] >> 1 & 1;
	x.want = want;
	x.nseg = expect_segments(n, gso, want);
	for (i = 0; i < x.nseg; i++) {
		FZ_CHECK(want[i].len > 0 || x.nseg == 1, "oracle: empty slice");
		total += want[i].len;
	}
	FZ_CHECK(total == n, "oracle: slices add to %zu of %zu", total, n);
	r = udpgro_split(buf, n, gso, x.truncated, &tun_layout_v1, deliver, &x);
	FZ_CHECK(r == x.nseg && x.got == x.nseg, "gso %d over %zu bytes: "
		 "returned %zu, delivered %zu, expected %zu", gso, n, r, x.got,
		 x.nseg);
	for (i = 0; i < x.nheld; i++)
		pkt_free(x.held[i]);
	FZ_CHECK(pkt_pool_in_use() == 0, "%u packets not returned",
		 pkt_pool_in_use());
	free(buf);
	return 0;
}
