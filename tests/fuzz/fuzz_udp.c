/* fuzz_udp.c - target 1: a datagram from the underlay through the real
 * receive path, core_udp_input(): tunnel-header check, peer check,
 * inner-packet check, peer pinning, up to the tun write (fake I/O).
 *
 * Input: byte 0 chooses the set-up, the rest is the datagram.
 *   bit 0     a peer is configured (else the first valid sender is pinned)
 *   bits 1-2  the first delivery's source (see src_of())
 *   bit 3     deliver the same datagram a second time
 *   bits 4-5  the second delivery's source
 *   bit 6     tunnel.mtu 576 instead of 1400
 *   bit 7     a daemon with a key (tunnel.key_file): byte 1 then says
 *             bit 0  the daemon encrypts (tunnel.encrypt)
 *             bit 1  the rest is sealed first, as the peer would: its
 *                    first 20 bytes the header (length set to the
 *                    inner's), the others the inner packet
 *             bit 2  the peer encrypts when it seals
 *             bit 3  after sealing, bit (byte 2 % 8) of byte (byte 3 %
 *                    length) is flipped
 *             and the datagram starts at byte 4.
 * A datagram longer than the receive buffer is cut to the buffer and
 * handed over with its true length, as recvmmsg() reports it.
 *
 * Asserts, for each delivery: exactly one outcome (one drop-reason
 * counter moved by one, or one tun write); what reaches the tun is a
 * well-formed IPv4/IPv6 packet whose length field matches, no longer than
 * the MTU, the datagram's bytes after the header, and the datagram's
 * length is header + inner; a refused datagram leaves the peer as it was
 * (garbage cannot capture the tunnel); an accepted one from an unknown
 * peer pins exactly that sender; every packet goes back to the pool.
 * With a key, besides: only a datagram the peer sealed and nobody altered
 * reaches the tun, decrypted to the bytes sealed, and only once (the
 * second delivery is a replay).
 */
#include <arpa/inet.h>
#include <string.h>
#include "pkt/pkt.h"
#include "pkt/tunnel.h"
#include "sec/auth.h"
#include "util/bytes.h"
#include "fuzz_common.h"

#define CAP_BYTES 1400u

static const struct auth_key KEY = {{7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0, 4,
				     5, 2, 3, 5, 3, 6, 0, 2, 8, 7, 4, 7, 1, 3,
				     5, 2, 6, 6}};
static struct auth peer;                        /* the sealing side */
static uint8_t sealed[AUTH_OVERHEAD_BYTES + 2 * CAP_BYTES];

static const uint8_t *expect_inner;     /* the inner packet as sent */
static size_t expect_dgram_len;
static size_t expect_overhead;          /* header (+ tag) bytes */
static uint32_t expect_mtu;

static uint16_t be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* The oracle, written from RFC 791/8200 rather than from classify.c:
 * version, header length, total/payload length = buffer, IPv4 header
 * checksum. */
static int well_formed(const uint8_t *b, size_t len)
{
	if (len >= 20 && b[0] >> 4 == 4) {
		size_t ihl = (size_t)(b[0] & 0x0f) * 4;
		uint32_t sum = 0;
		size_t i;

		if (ihl < 20 || ihl > len || be16(b + 2) != len)
			return 0;
		for (i = 0; i < ihl; i += 2)
			sum += be16(b + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		return sum == 0xffff;
	}
	if (len >= 40 && b[0] >> 4 == 6)
		return (size_t)be16(b + 4) + 40 == len;
	return 0;
}

static void on_tun(const uint8_t *buf, size_t len)
{
	FZ_CHECK(expect_inner, "a datagram the peer did not seal, or "
		 "altered, or replayed, reached the tun");
	FZ_CHECK(well_formed(buf, len), "malformed packet of %zu bytes to the tun", len);
	FZ_CHECK(len <= expect_mtu, "%zu bytes > mtu %u", len, expect_mtu);
	FZ_CHECK(expect_dgram_len == expect_overhead + len,
		 "datagram of %zu bytes, inner %zu", expect_dgram_len, len);
	FZ_CHECK(!memcmp(buf, expect_inner, len), "inner bytes changed");
}

/* 0: the configured peer 10.0.0.2:5000; 1: its address, another port;
 * 2: [2001:db8::2]:5000; 3: an IPv4 address one byte short. */
static socklen_t src_of(unsigned which, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (which == 2) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(5000);
		inet_pton(AF_INET6, "2001:db8::2", &v6->sin6_addr);
		return sizeof(*v6);
	}
	v4->sin_family = AF_INET;
	v4->sin_port = htons(which == 1 ? 5001 : 5000);
	v4->sin_addr.s_addr = htonl(0x0a000002);
	return which == 3 ? sizeof(*v4) - 1 : sizeof(*v4);
}

static uint64_t rejections(const struct stats *st)
{
	uint64_t n = st->rx_unknown_peer + st->rx_not_allowed + st->rx_unauth +
		     st->rx_keyed;
	int i;

	for (i = 0; i < TUN_VERDICT_MAX; i++)
		n += st->rx_bad[i];
	for (i = 0; i < AUTH_VERDICT_MAX; i++)
		n += st->rx_auth[i];
	for (i = 0; i < IP_VERDICT_MAX; i++)
		n += st->rx_inner_bad[i];
	return n;
}

/* inner: the bytes the tun must get if it is accepted (NULL: it must
 * not be). */
static void deliver(struct core *c, const uint8_t *dg, size_t len,
		    const uint8_t *inner, unsigned which)
{
	struct sockaddr_storage src;
	socklen_t srclen = src_of(which, &src);
	struct conf_addr peer_before = c->peer;
	int known_before = c->peer_known;
	uint64_t rej = rejections(&c->st), wr = fz_io.tun_writes;
	size_t room = c->lay.hdr_bytes + pkt_pool_cap_bytes() + c->lay.tag_bytes;
	struct pkt *p = pkt_alloc();

	FZ_CHECK(p, "pool empty with nothing in flight");
	memcpy(p->data - c->lay.hdr_bytes, dg, len < room ? len : room);
	expect_inner = inner;
	expect_dgram_len = len;
	expect_overhead = c->lay.hdr_bytes + c->lay.tag_bytes;
	core_udp_input(c, p, len, (const struct sockaddr *)&src, srclen, 0);
	FZ_CHECK(inner || fz_io.tun_writes == wr,
		 "a datagram the peer did not seal, or altered, reached the tun");

	FZ_CHECK(rejections(&c->st) - rej + (fz_io.tun_writes - wr) == 1,
		 "%llu rejections and %llu writes for one datagram",
		 (unsigned long long)(rejections(&c->st) - rej),
		 (unsigned long long)(fz_io.tun_writes - wr));
	if (fz_io.tun_writes == wr || known_before) {
		FZ_CHECK(c->peer_known == known_before &&
			 !memcmp(&c->peer, &peer_before, sizeof(peer_before)),
			 "the peer changed (accepted: %d)", fz_io.tun_writes != wr);
	} else if (srclen <= sizeof(c->peer.ss)) {
		FZ_CHECK(c->peer_known && c->peer.len == srclen &&
			 !memcmp(&c->peer.ss, &src, srclen), "pinned another sender");
	}
	FZ_CHECK(pkt_pool_in_use() == 0, "%u packets not returned", pkt_pool_in_use());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Seals dg[0..len) as the peer would (header, then inner packet) into
 * `sealed`; *inner is the plaintext's place in dg.  The datagram's
 * length, or 0 when dg is shorter than a header or too long. */
static size_t seal(const uint8_t *dg, size_t len, int encrypt, uint8_t flip_bit,
		   size_t flip_at, int flip, const uint8_t **inner)
{
	size_t n, inner_bytes;

	if (len < TUN_HDR_BYTES || len - TUN_HDR_BYTES > 2 * CAP_BYTES)
		return 0;
	inner_bytes = len - TUN_HDR_BYTES;
	FZ_CHECK(auth_init(&peer, &KEY, encrypt, 1, 2) == 0, "auth_init");
	memcpy(sealed, dg, TUN_HDR_BYTES);
	be16_put(sealed + 4, (uint16_t)inner_bytes);
	memcpy(sealed + AUTH_HDR_BYTES, dg + TUN_HDR_BYTES, inner_bytes);
	n = auth_seal(&peer, sealed, inner_bytes, 0);
	FZ_CHECK(n == inner_bytes + AUTH_OVERHEAD_BYTES, "sealed %zu bytes", n);
	*inner = dg + TUN_HDR_BYTES;
	if (flip) {
		sealed[flip_at % n] ^= (uint8_t)(1u << (flip_bit % 8));
		*inner = NULL;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf conf;
	struct core c;
	struct core_io io = fz_core_io;
	const uint8_t *dg = data + 1, *inner;
	size_t len = size - 1;
	uint64_t writes;
	unsigned ctl, kctl = 0;

	if (size < 1)
		return 0;
	fz_pool(4, CAP_BYTES);
	ctl = data[0];
	fz_conf(&conf, sched_lookup("fifo"), 20000000);
	conf.has_peer = ctl & 1;
	conf.mtu_bytes = ctl & 0x40 ? 576 : CAP_BYTES;
	expect_mtu = conf.mtu_bytes;
	fz_io.on_tun = on_tun;
	inner = dg + TUN_HDR_BYTES;
	if (ctl & 0x80) {
		if (size < 4)
			return 0;
		kctl = data[1];
		conf.has_key = 1;
		conf.key = KEY;
		conf.encrypt = kctl & 1;
		conf.key_grace_ns = 0;
		io.session_epoch_ns = 5;
		io.session_salt = 6;
		dg = data + 4;
		len = size - 4;
		/* unsealed bytes: with a key, nothing may get through */
		inner = NULL;
		if (kctl & 2) {
			len = seal(dg, len, kctl & 4, data[2], data[3], kctl & 8,
				   &inner);
			if (!len)
				return 0;
			dg = sealed;
		}
	}
	FZ_CHECK(core_init(&c, &conf, &io, 0) == 0, "core_init");
	writes = fz_io.tun_writes;
	deliver(&c, dg, len, inner, (ctl >> 1) & 3);
	/* the same again: with a key, once accepted it is a replay */
	if (ctl & 8)
		deliver(&c, dg, len, ctl & 0x80 && fz_io.tun_writes != writes ?
			NULL : inner, (ctl >> 4) & 3);
	core_destroy(&c);
	return 0;
}
