/* tungro.h - coalescing the inner TCP packets the receiving daemon writes
 * to an offloading tun into GSO super-packets (issue 10's receive side).
 *
 * With tunnel.offload the tun is opened with IFF_VNET_HDR, so every write
 * starts with a struct virtio_net_hdr; a write whose header says GSO
 * (NEEDS_CSUM, gso_type TCPV4/TCPV6, gso_size) is taken by the kernel as
 * one skb of many segments (drivers/net/tun.c tun_get_user,
 * include/linux/virtio_net.h virtio_net_hdr_to_skb) and goes up the local
 * TCP stack whole, as if the NIC's GRO had built it: one write instead of
 * ~45, and one pass through the stack.  wireguard-go does the same on
 * Linux (tun/offload_linux.go, tcpGRO/handleGRO).
 *
 * What may be merged follows the kernel's tcp_gro_receive()
 * (net/ipv4/tcp_offload.c) and inet_gro_receive()/ipv6_gro_receive(),
 * made strict enough that splitting the super-packet again (tso.c, the
 * kernel's tcp_gso_segment) gives back the packets byte for byte:
 *
 *   - only packets adjacent in arrival order: a packet that does not
 *     continue the pending super-packet ends it (never a reorder);
 *   - IPv4 without options and not a fragment, or IPv6 with TCP directly
 *     after the fixed header; the same version, addresses, TOS/traffic
 *     class, flow label, TTL/hop limit, DF; IPv4 IDs consecutive (the
 *     kernel's segmentation re-creates them so);
 *   - TCP: the same ports, ack, window, urgent pointer, data offset and
 *     option bytes; the sequence number continuing the pending payload;
 *     flags exactly ACK or ACK|PSH, PSH closing the super-packet (as
 *     tcp_gro_receive flushes on it); a payload; every packet but the last
 *     exactly gso_size (the first one's payload) bytes, a shorter one
 *     closing; a TCP checksum that verifies (the kernel does not check a
 *     NEEDS_CSUM packet, so a corrupt one must reach it on its own);
 *   - at most 65535 bytes of IPv4 total length / IPv6 payload length and
 *     TUNGRO_PKTS_MAX packets.
 *
 * The super-packet has the first packet's headers, the payloads one after
 * the other, the IPv4 total length and header checksum recomputed, PSH if
 * the last one had it, and in the TCP checksum field the pseudo-header sum
 * over the whole TCP length, folded and not complemented (what
 * NEEDS_CSUM means: tcp_v4_send_check, the inverse of tso.c's
 * completion).  A "super-packet" of one packet is the packet unmodified
 * behind an all-zero header, as the daemon always wrote it.
 *
 * Pure: no system calls; the buffer is allocated once by tungro_init().
 */
#ifndef SCHEDTUN_TUNGRO_H
#define SCHEDTUN_TUNGRO_H

#include <stddef.h>
#include <stdint.h>
#include "pkt/tso.h"

/* Packets per super-packet.  UDP GRO hands over up to 64 datagrams per
 * receive, and 64 KiB holds 48 segments of a 1400-byte MTU: the cap only
 * bounds degenerate tiny segments (the kernel's own GRO stops at
 * MAX_SKB_FRAGS fragments for the same reason), and keeps a super-packet
 * well within tso.c's TSO_SEGS_MAX for the fallback's re-split. */
#define TUNGRO_PKTS_MAX 64u

/* A coalescer.  Read-only for the caller except through the functions. */
struct tungro {
	uint8_t *buf;                   /* TSO_READ_BYTES: virtio header + the
					 * pending super-packet */
	uint32_t ip_bytes;              /* pending IP bytes; 0: nothing pending */
	uint32_t pkts;                  /* packets in it */
	uint32_t hdr_bytes;             /* IP + TCP headers */
	uint32_t gso_bytes;             /* the first packet's payload */
	uint32_t next_seq;              /* the sequence number that continues it */
	uint8_t  v6;
	uint8_t  closed;                /* ended by PSH or a short payload */
};

enum tungro_verdict {
	TUNGRO_HELD,    /* copied into the pending super-packet */
	TUNGRO_FLUSH,   /* does not continue the pending one: flush, add again */
	TUNGRO_ALONE,   /* can never be merged: flush, then write it as it is */
};

/* Allocates g's buffer (once, at set-up).  0, or -1 when out of memory. */
int  tungro_init(struct tungro *g);
void tungro_free(struct tungro *g);

/* Offers the inner IP packet pkt (len bytes, as it is to be written to
 * the tun).  HELD: it is in the pending super-packet (copied; pkt may be
 * reused).  FLUSH: something is pending that pkt does not continue; call
 * tungro_flush() and offer pkt again (it then starts a new one or is
 * ALONE).  ALONE: pkt never coalesces (see the rules above); flush what is
 * pending first, then write pkt unmodified behind an all-zero header.
 * Never FLUSH when nothing is pending. */
enum tungro_verdict tungro_add(struct tungro *g, const uint8_t *pkt, size_t len);

/* Finishes the pending super-packet and empties g: *out is set to one
 * write for the tun (the virtio_net_hdr, TSO_VNET_HDR_BYTES, then the IP
 * packet), valid until the next tungro_add(); *out_bytes its length.
 * Returns the number of inner packets it holds (0: nothing pending, *out
 * untouched).  One packet: all-zero header, the packet unmodified. */
uint32_t tungro_flush(struct tungro *g, const uint8_t **out, size_t *out_bytes);

#endif
