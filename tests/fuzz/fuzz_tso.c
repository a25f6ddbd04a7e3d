/* fuzz_tso.c - target 5: what an offloading tun hands over (issue 10's
 * IFF_VNET_HDR read) through the real splitter, tso_begin()/tso_next()
 * (src/pkt/tso.c), into pool-sized buffers, as on_tun() does.
 *
 * Input: byte 0 picks the segment capacity (the pool's buffer size, the
 * inner MTU): 576, 1280, 1400 or 9000 bytes; the rest is one read: a
 * virtio_net_hdr (10 bytes, little-endian) and an IP packet.
 *
 * Asserts: a refusal has a reason below TSO_VERDICT_MAX; an accepted
 * buffer yields exactly tso_left() segments, none empty, none above the
 * capacity, and nothing more after them.  A super-packet (mss_bytes > 0)
 * is cut into packets that are each well-formed by an independent check
 * written from RFC 791/8200/768/793 (version, lengths, IPv4 header
 * checksum, the L4 checksum over the pseudo-header), carry the original
 * headers' addresses, and whose payloads, put back together, are the
 * super-packet's payload byte for byte.  A plain packet comes out with
 * its length unchanged.
 */
#include <string.h>
#include "pkt/tso.h"
#include "fuzz_common.h"

static const uint32_t caps[4] = { 576, 1280, 1400, 9000 };

/* Checks one segment of a super-packet; returns its payload offset
 * (after the IP and L4 headers) or aborts. */
static size_t check_segment(const uint8_t *p, size_t len, int v6)
{
	size_t l4, l4_len, hdr;
	uint32_t sum;
	uint8_t proto;

	if (!v6) {
		FZ_CHECK(len >= 20 && p[0] >> 4 == 4, "not IPv4 (%zu bytes)", len);
		l4 = (size_t)(p[0] & 0x0f) * 4;
		FZ_CHECK(l4 >= 20 && l4 <= len && fz_be16(p + 2) == len,
			 "IPv4 lengths: ihl %zu total %u read %zu", l4, fz_be16(p + 2), len);
		FZ_CHECK(fz_csum_fold(fz_csum_sum(0, p, l4)) == 0xffff,
			 "IPv4 header checksum");
		proto = p[9];
		l4_len = len - l4;
	} else {
		FZ_CHECK(len >= 40 && p[0] >> 4 == 6, "not IPv6 (%zu bytes)", len);
		FZ_CHECK(fz_be16(p + 4) + 40 == len, "IPv6 payload length");
		l4 = 40;
		proto = p[6];
		l4_len = len - 40;
	}
	sum = fz_csum_pseudo(p, v6, proto, (uint32_t)l4_len);
	if (proto == 6) {
		FZ_CHECK(l4_len >= 20, "TCP header cut");
		hdr = (size_t)(p[l4 + 12] >> 4) * 4;
		FZ_CHECK(hdr >= 20 && hdr <= l4_len, "TCP data offset %zu", hdr);
	} else {
		FZ_CHECK(proto == 17 && l4_len >= 8, "not UDP/TCP (%u)", proto);
		FZ_CHECK(fz_be16(p + l4 + 4) == l4_len, "UDP length");
		hdr = 8;
	}
	FZ_CHECK(fz_csum_fold(fz_csum_sum(sum, p + l4, l4_len)) == 0xffff,
		 "L4 checksum");
	return l4 + hdr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t seg[9000];
	struct tso_split s;
	enum tso_verdict v;
	uint32_t cap, n, got = 0, want, payload = 0;
	size_t off;

	if (size < 1)
		return 0;
	cap = caps[data[0] & 3];
	v = tso_begin(&s, data + 1, size - 1, cap);
	FZ_CHECK(v < TSO_VERDICT_MAX, "verdict %d", (int)v);
	if (v != TSO_OK) {
		FZ_CHECK(tso_left(&s) == 0, "refused but %u segments", tso_left(&s));
		return 0;
	}
	want = tso_left(&s);
	FZ_CHECK(want > 0, "accepted with no segment");
	while ((n = tso_next(&s, seg)) > 0) {
		FZ_CHECK(n <= cap, "segment of %u bytes > %u", n, cap);
		got++;
		if (!s.mss_bytes) {
			FZ_CHECK(n == s.ip_bytes, "plain packet %u -> %u bytes",
				 s.ip_bytes, n);
			continue;
		}
		off = check_segment(seg, n, s.v6);
		FZ_CHECK(off == s.hdr_bytes, "headers %zu bytes, not %u", off,
			 s.hdr_bytes);
		FZ_CHECK(!memcmp(seg + (s.v6 ? 8 : 12), s.ip + (s.v6 ? 8 : 12),
				 s.v6 ? 32 : 8), "addresses changed");
		FZ_CHECK(payload + (n - off) <= s.payload_bytes, "more payload than sent");
		FZ_CHECK(!memcmp(seg + off, s.ip + s.hdr_bytes + payload, n - off),
			 "payload bytes at %u changed", payload);
		payload += n - (uint32_t)off;
	}
	FZ_CHECK(got == want, "%u segments written, %u announced", got, want);
	FZ_CHECK(!s.mss_bytes || payload == s.payload_bytes,
		 "payload %u of %u", payload, s.payload_bytes);
	return 0;
}
