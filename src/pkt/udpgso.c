/* udpgso.c - grouping a send burst into GSO runs, splitting a GRO buffer
 * (see udpgso.h). */
#include <string.h>
#include "pkt/tunnel.h"
#include "pkt/udpgso.h"

int udpgso_group(const size_t *len, int n, struct udpgso_run *run)
{
	int i = 0, nrun = 0;

	while (i < n) {
		size_t seg = len[i], total = seg;
		int j = i + 1;

		/* A run only of datagrams the kernel can take as segments:
		 * none of 0 bytes, none over one datagram's payload. */
		if (seg && seg <= UDPGSO_MAX_PAYLOAD_BYTES) {
			while (j < n && j - i < UDPGSO_MAX_SEGS && len[j] == seg &&
			       total + seg <= UDPGSO_MAX_PAYLOAD_BYTES) {
				total += seg;
				j++;
			}
			/* GSO's last segment may be shorter: it ends the run. */
			if (j < n && j - i < UDPGSO_MAX_SEGS && len[j] &&
			    len[j] < seg && total + len[j] <= UDPGSO_MAX_PAYLOAD_BYTES)
				j++;
		}
		run[nrun].first = i;
		run[nrun].count = j - i;
		run[nrun].seg_bytes = (uint16_t)(seg <= UINT16_MAX ? seg : 0);
		nrun++;
		i = j;
	}
	return nrun;
}

/* Copies one datagram into a pool packet and delivers it (p NULL: pool
 * empty). */
static void deliver_one(const uint8_t *dg, size_t dg_bytes, int cut,
			const struct tun_layout *lay, udpgro_deliver_fn deliver,
			void *ctx)
{
	size_t room = lay->hdr_bytes + pkt_pool_cap_bytes() + lay->tag_bytes;
	struct pkt *p = pkt_alloc();

	if (!p) {
		deliver(ctx, NULL, dg_bytes);
		return;
	}
	/* Oversize, or cut by the kernel: the first `room` bytes still name
	 * the header's refusal reasons in the decoder's order. */
	if (dg_bytes > room || cut) {
		memcpy(p->data - lay->hdr_bytes, dg, dg_bytes < room ? dg_bytes : room);
		deliver(ctx, p, room + 1);
		return;
	}
	memcpy(p->data - lay->hdr_bytes, dg, dg_bytes);
	deliver(ctx, p, dg_bytes);
}

size_t udpgro_split(const uint8_t *buf, size_t buf_bytes, int gso_size,
		    int truncated, const struct tun_layout *lay,
		    udpgro_deliver_fn deliver, void *ctx)
{
	size_t seg, off, k = 0;

	if (gso_size <= 0 || (size_t)gso_size >= buf_bytes) {
		deliver_one(buf, buf_bytes, truncated, lay, deliver, ctx);
		return 1;
	}
	seg = (size_t)gso_size;
	for (off = 0; off < buf_bytes; off += seg, k++) {
		size_t n = buf_bytes - off < seg ? buf_bytes - off : seg;

		deliver_one(buf + off, n, truncated && off + n == buf_bytes,
			    lay, deliver, ctx);
	}
	return k;
}
