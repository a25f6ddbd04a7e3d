/* fuzz_tungro.c - target 6: the receive side's coalescer (issue 10),
 * tungro_add()/tungro_flush() (src/pkt/tungro.c), fed as tunwrite.c feeds it
 * (FLUSH: flush and offer again; ALONE: flush, then the packet alone).
 *
 * Input: byte 0 bit 0 picks the layout.
 *   raw (0):   records [len16 big-endian][bytes], each one inner packet
 *              as the core would write it (any bytes at all);
 *   built (1): byte 1: bit 0 IPv6, bits 1-2 TCP option words, bits 3-7
 *              the TOS; bytes 2-3 the MSS (1..1400); then one control
 *              byte per packet, and the packets are built here as a
 *              sender's kernel makes consecutive segments of one flow
 *              (IDs and sequence numbers advancing, checksums right),
 *              each bent by its control byte: bits 0-1 the payload (the
 *              MSS, shorter, longer, or the next byte's worth), bit 2
 *              PSH, bit 3 the flags from the next byte, bit 4 a gap in
 *              the sequence, bit 5 a gap in the IPv4 ID, bit 6 one byte
 *              (at the next byte's offset) flipped before the checksums
 *              are made, bit 7 one flipped after (a corrupt packet).
 *
 * Asserts: no verdict outside the enum, never FLUSH with nothing pending
 * nor twice in a row; every write accounts for exactly the packets held
 * since the previous one, in order; a write of one packet is that packet
 * unmodified behind an all-zero virtio header; a super-packet is at most
 * 64 KiB of IP, TUNGRO_PKTS_MAX packets, and cut again by tso.c (as the
 * kernel would) gives back the packets that went in, byte for byte.
 */
#include <string.h>
#include "pkt/tungro.h"
#include "util/bytes.h"    /* be16_put */
#include "util/csum.h"     /* CSUM_PROTO_TCP */
#include "fuzz_common.h"

#define MAXPKTS 512
#define CAP     1500u

static struct tungro g;
static const uint8_t *held[MAXPKTS];
static size_t held_len[MAXPKTS];
static unsigned nheld;

static void flush(void)
{
	static uint8_t seg[TSO_READ_BYTES];
	const uint8_t *buf;
	size_t len;
	uint32_t k = tungro_flush(&g, &buf, &len);
	struct tso_split s;

	FZ_CHECK(k == nheld, "a write of %u packets, %u held", k, nheld);
	if (!k)
		return;
	if (k == 1) {
		static const uint8_t zero[TSO_VNET_HDR_BYTES];

		FZ_CHECK(!memcmp(buf, zero, sizeof(zero)), "header of a lone packet");
		FZ_CHECK(len == TSO_VNET_HDR_BYTES + held_len[0] &&
			 !memcmp(buf + TSO_VNET_HDR_BYTES, held[0], held_len[0]),
			 "a lone packet changed");
	} else {
		FZ_CHECK(k <= TUNGRO_PKTS_MAX, "%u packets", k);
		FZ_CHECK(len <= TSO_READ_BYTES, "%zu bytes", len);
		FZ_CHECK(tso_begin(&s, buf, len, TSO_IP_MAX_BYTES) == TSO_OK, "tso.c refuses it");
		FZ_CHECK(tso_left(&s) == k, "%u segments of %u packets", tso_left(&s), k);
		for (uint32_t j = 0; j < k; j++) {
			uint32_t n = tso_next(&s, seg);

			FZ_CHECK(n == held_len[j] && !memcmp(seg, held[j], n),
				 "segment %u of %u differs", j, k);
		}
	}
	nheld = 0;
}

static void offer(const uint8_t *p, size_t len)
{
	enum tungro_verdict v = tungro_add(&g, p, len);

	FZ_CHECK(v == TUNGRO_HELD || v == TUNGRO_FLUSH || v == TUNGRO_ALONE,
		 "verdict %d", (int)v);
	if (v == TUNGRO_FLUSH) {
		FZ_CHECK(nheld > 0, "FLUSH with nothing pending");
		flush();
		v = tungro_add(&g, p, len);
		FZ_CHECK(v != TUNGRO_FLUSH, "FLUSH twice");
	}
	if (v == TUNGRO_ALONE) {
		flush();
		return;
	}
	FZ_CHECK(nheld < MAXPKTS, "held %u", nheld);
	held[nheld] = p;
	held_len[nheld++] = len;
}

/* Makes p's checksums right: IPv4 header, TCP over the pseudo-header,
 * by the targets' own oracle (fuzz_common.h), not the util/csum.h that
 * tungro.c and tso.c check them with. */
static void fix(uint8_t *p, size_t len, int v6)
{
	size_t l4 = v6 ? 40 : 20;

	if (!v6) {
		be16_put(p + 10, 0);
		be16_put(p + 10, (uint16_t)~fz_csum_fold(fz_csum_sum(0, p, 20)));
	}
	be16_put(p + l4 + 16, 0);
	be16_put(p + l4 + 16, (uint16_t)~fz_csum_fold(fz_csum_sum(
		fz_csum_pseudo(p, v6, 6, (uint32_t)(len - l4)),
		p + l4, len - l4)));
}

/* The built layout (see the top of the file). */
static void built(const uint8_t *d, size_t n)
{
	static uint8_t arena[MAXPKTS][CAP];
	int v6;
	unsigned opt, hdr, i = 0;
	uint32_t mss, seq = 0xfffff000u;
	uint16_t id = 0xfff0;
	size_t at = 4;

	if (n < 4)
		return;
	v6 = d[1] & 1;
	opt = (d[1] >> 1) & 3;
	hdr = (v6 ? 40 : 20) + 20 + 4 * opt;
	mss = 1 + ((uint32_t)d[2] << 8 | d[3]) % (CAP - hdr - 8);
	while (at < n && i < MAXPKTS) {
		uint8_t c = d[at++], x = at < n ? d[at] : 0;
		uint32_t pay = mss, len;
		uint8_t *p = arena[i++];

		switch (c & 3) {
		case 1: pay = 1 + x % mss; break;
		case 2: pay = mss + 1; break;
		case 3: pay = x; break;
		}
		len = hdr + pay;
		if (len > CAP)
			len = CAP, pay = CAP - hdr;
		memset(p, 0, hdr);
		if (v6) {
			p[0] = (uint8_t)(0x60 | (d[1] >> 7));
			p[1] = (uint8_t)(d[1] << 1);
			be16_put(p + 4, (uint16_t)(len - 40));
			p[6] = CSUM_PROTO_TCP;
			p[7] = 64;
			p[23] = 1;
			p[39] = 2;
		} else {
			p[0] = 0x45;
			p[1] = d[1] & 0xf8;
			be16_put(p + 2, (uint16_t)len);
			be16_put(p + 4, id);
			p[6] = 0x40;
			p[8] = 64;
			p[9] = CSUM_PROTO_TCP;
			p[12] = p[16] = 10;
			p[15] = 1;
			p[19] = 2;
		}
		{
			uint8_t *th = p + (v6 ? 40 : 20);

			be16_put(th, 40000);
			be16_put(th + 2, 5201);
			be16_put(th + 4, (uint16_t)(seq >> 16));
			be16_put(th + 6, (uint16_t)seq);
			th[11] = 7;
			th[12] = (uint8_t)((5 + opt) << 4);
			th[13] = (uint8_t)(0x10 | (c & 4 ? 0x08 : 0));
			if (c & 8)
				th[13] = x;
			be16_put(th + 14, 512);
			memset(th + 20, 1, 4 * opt);
		}
		for (uint32_t b = 0; b < pay; b++)
			p[hdr + b] = (uint8_t)(b * 31 + i);
		if (c & 64)
			p[x % len] ^= 0x10;
		fix(p, len, v6);
		if (c & 128)
			p[(x * 7u) % len] ^= 0x01;
		seq += pay + (c & 16 ? 1 : 0);
		id = (uint16_t)(id + 1 + (c & 32 ? 1 : 0));
		offer(p, len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 1;

	if (size < 1)
		return 0;
	if (!g.buf)
		FZ_CHECK(tungro_init(&g) == 0, "tungro_init");
	nheld = 0;
	if (data[0] & 1) {
		built(data, size);
	} else {
		while (at + 2 <= size) {
			size_t len = (size_t)data[at] << 8 | data[at + 1];

			at += 2;
			if (len > size - at)
				len = size - at;
			offer(data + at, len);
			at += len;
		}
	}
	flush();
	return 0;
}
