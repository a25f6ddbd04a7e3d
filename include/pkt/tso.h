/* tso.h - splitting what an IFF_VNET_HDR tun gives into the packets the
 * kernel would have given without offload (issue 10).
 *
 * With TUNSETOFFLOAD the kernel hands the tun one "super-packet" of up to
 * 64 KiB per read: a struct virtio_net_hdr (virtio spec 1.x, 5.1.6 "Device
 * Operation", legacy layout of <linux/virtio_net.h>, little-endian once
 * TUNSETVNETLE is set) and then an IP packet whose TCP (or UDP, USO) payload
 * is to be cut into gso_size pieces, with a partial checksum to complete.
 * This module does that cutting the way the kernel's software GSO does it
 * (net/ipv4/af_inet.c inet_gso_segment, net/ipv6/ip6_offload.c
 * ipv6_gso_segment, net/ipv4/tcp_offload.c tcp_gso_segment,
 * net/ipv4/udp_offload.c __udp_gso_segment), so that the scheduler, the
 * link and the peer see exactly the MTU-sized packets they saw before:
 *
 *   - IPv4 total length, header checksum and ID per segment; the ID
 *     increments per segment (the kernel's TSO does so whatever DF says,
 *     unless the skb is SKB_GSO_TCP_FIXEDID, which never reaches a tun
 *     without NETIF_F_TSO_MANGLEID); IPv6 payload length per segment;
 *   - TCP sequence number + offset; FIN and PSH only on the last segment,
 *     CWR only on the first; every other header byte (options, URG)
 *     copied as it is;
 *   - UDP length per segment;
 *   - the L4 checksum computed from scratch over the pseudo-header and the
 *     finished segment.  Trap avoided: the partial checksum of a GSO packet
 *     is the pseudo-header sum over the *super-packet's* length, so it
 *     cannot be reused per segment.  A packet that is not GSO but carries
 *     VIRTIO_NET_HDR_F_NEEDS_CSUM is completed the kernel's way
 *     (skb_checksum_help: sum from csum_start including the partial value,
 *     fold, complement, 0 written as 0xffff).  Every packet we emit carries
 *     complete checksums: the peer's tun may have no offload at all.
 *   - Trap avoided: hdr_len is not the header length.  The kernel's
 *     virtio_net_hdr_from_skb() writes skb_headlen() there, which may
 *     include payload (wireguard-go's tun/offload_linux.go says the same);
 *     the header length is taken from csum_start/the IP header and the
 *     TCP data offset, and hdr_len is only checked to lie in the packet.
 *
 * Everything is validated before a byte is written, so a malformed buffer
 * is refused as a whole (a reason, enum tso_verdict, for the caller's drop
 * counters) and never causes an access outside [buf, buf + len).  Not
 * supported, refused: IPv4 fragments, IPv6 extension headers in a GSO
 * packet, UFO (VIRTIO_NET_HDR_GSO_UDP), more than TSO_SEGS_MAX segments.
 *
 * Pure: no system calls, no allocation.  The caller owns every buffer.
 */
#ifndef SCHEDTUN_TSO_H
#define SCHEDTUN_TSO_H

#include <stddef.h>
#include <stdint.h>

/* sizeof(struct virtio_net_hdr): what TUNSETVNETHDRSZ is set to. */
#define TSO_VNET_HDR_BYTES 10u

/* The largest IP packet a super-packet can be: an IPv6 header and a
 * 65535-byte payload (no jumbograms: a tun's gso_max_size is 64 KiB). */
#define TSO_IP_MAX_BYTES   (40u + 65535u)

/* A read buffer that can hold any super-packet whole. */
#define TSO_READ_BYTES     (TSO_VNET_HDR_BYTES + TSO_IP_MAX_BYTES)

/* Segments per super-packet.  Linux TCP never sends an MSS under 48
 * bytes (TCP_MIN_SND_MSS), so 64 KiB is at most 1366 segments; a larger
 * count means a degenerate gso_size that would turn one read into tens of
 * thousands of pool packets. */
#define TSO_SEGS_MAX       2048u

/* The two definitions <linux/virtio_net.h> and <linux/if_tun.h> of older
 * distributions lack (kernel >= 6.2 for the tun flags). */
#define TSO_GSO_UDP_L4     5u           /* VIRTIO_NET_HDR_GSO_UDP_L4 */
/* The virtio_net_hdr values tso.c reads and tungro.c writes. */
#define TSO_F_NEEDS_CSUM   0x01u        /* VIRTIO_NET_HDR_F_NEEDS_CSUM */
#define TSO_GSO_TCPV4      1u           /* VIRTIO_NET_HDR_GSO_TCPV4 */
#define TSO_GSO_TCPV6      4u           /* VIRTIO_NET_HDR_GSO_TCPV6 */
#define TSO_TUN_F_USO4     0x20u        /* TUN_F_USO4 */
#define TSO_TUN_F_USO6     0x40u        /* TUN_F_USO6 */

enum tso_verdict {
	TSO_OK = 0,
	TSO_SHORT,              /* shorter than the virtio header + an IP header */
	TSO_BAD_FLAGS,          /* virtio flags other than NEEDS_CSUM/DATA_VALID */
	TSO_BAD_GSO_TYPE,       /* not NONE/TCPV4/TCPV6/UDP_L4 (ECN bit allowed) */
	TSO_BAD_IP,             /* version, IHL, fragment, IPv4 header checksum,
				 * or an IP version the gso_type does not name */
	TSO_BAD_LENGTH,         /* IP length fields disagree with the read */
	TSO_BAD_PROTO,          /* L4 protocol not the gso_type's (IPv6: an
				 * extension header) */
	TSO_BAD_L4_HDR,         /* TCP data offset < 5 or past the end; UDP short */
	TSO_BAD_HDR_LEN,        /* virtio hdr_len past the end of the packet */
	TSO_BAD_CSUM,           /* csum_start/csum_offset outside the packet or
				 * not at the L4 checksum of a GSO packet */
	TSO_BAD_GSO_SIZE,       /* gso_size 0 in a GSO packet */
	TSO_TOO_MANY_SEGS,      /* more than TSO_SEGS_MAX segments */
	TSO_SEG_TOO_BIG,        /* a segment larger than the caller's buffers */
	TSO_VERDICT_MAX
};

/* Lower-case names, for stats keys ("tso_" + name) and logs. */
extern const char *const tso_verdict_name[TSO_VERDICT_MAX];

/* A validated buffer being split: filled by tso_begin(), advanced by
 * tso_next().  Read-only for the caller except through those. */
struct tso_split {
	const uint8_t *ip;              /* the IP packet (after the virtio header) */
	uint32_t ip_bytes;              /* its length */
	uint32_t l4_off;                /* IP header length */
	uint32_t hdr_bytes;             /* IP + L4 headers, copied per segment */
	uint32_t payload_bytes;         /* after hdr_bytes */
	uint32_t mss_bytes;             /* payload per segment (gso_size); 0:
					 * a plain packet, not a super-packet */
	uint32_t csum_start, csum_offset;       /* NEEDS_CSUM of a plain packet */
	uint16_t segs, next;            /* segments in all, the next one to write */
	uint8_t  kind;                  /* internal: plain, checksum, TCP, UDP */
	uint8_t  v6;                    /* IPv6 */
};

/* Validates buf (len bytes: a virtio_net_hdr, little-endian, then one IP
 * packet, as read from the tun) and prepares *s to write its segments,
 * each of at most seg_cap_bytes (the pool's buffer capacity, i.e. the
 * inner MTU).  TSO_OK, or the reason buf is refused as a whole (then *s
 * has no segment to give).  A plain packet (gso_type NONE) is one segment
 * and is not otherwise inspected: whether it is well-formed IP is the
 * classifier's question (ip_inspect), as it was without offload.  buf
 * must stay unchanged until the last tso_next(). */
enum tso_verdict tso_begin(struct tso_split *s, const uint8_t *buf, size_t len,
			   uint32_t seg_cap_bytes);

/* Segments not yet written. */
static inline uint32_t tso_left(const struct tso_split *s)
{
	return (uint32_t)s->segs - s->next;
}

/* Writes the next segment, complete with lengths and checksums, to out
 * (room for the seg_cap_bytes given to tso_begin) and returns its length
 * in bytes; 0 when none is left.  A caller that runs out of buffers may
 * stop at any point: the segments not written are its drops. */
uint32_t tso_next(struct tso_split *s, uint8_t *out);

#endif
