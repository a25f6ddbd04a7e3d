/* classify.h - DSCP classification and IP header validation.
 *
 * The same validation is applied to packets read from the tun (before they
 * are scheduled) and to inner packets decapsulated from the peer (before
 * they are written to the tun): a packet that is not a well-formed IPv4 or
 * IPv6 header whose length field matches the buffer never goes further.
 */
#ifndef SCHEDTUN_CLASSIFY_H
#define SCHEDTUN_CLASSIFY_H

#include <stddef.h>
#include <stdint.h>

enum pkt_class { CLS_EF = 0, CLS_AF = 1, CLS_CS0 = 2, NCLASS = 3 };

extern const char *const cls_name[NCLASS];     /* "ef", "af", "cs0" */

/* Why an IP packet was refused.  The order is the order of the checks. */
enum ip_verdict {
	IP_OK = 0,
	IP_EMPTY,          /* zero-length buffer */
	IP_BAD_VERSION,    /* version nibble neither 4 nor 6 */
	IP_SHORT,          /* shorter than the fixed header */
	IP_BAD_IHL,        /* IPv4 IHL < 5 or header longer than the packet */
	IP_BAD_LENGTH,     /* total/payload length disagrees with the buffer */
	IP_BAD_CHECKSUM,   /* IPv4 header checksum wrong */
	IP_VERDICT_MAX
};

extern const char *const ip_verdict_name[IP_VERDICT_MAX];

struct dscp_map {
	uint8_t cls_of[64];             /* enum pkt_class per code point */
};

/* Fills the default map: EF = 46, 44; AF = AF11..AF43; everything else CS0. */
void dscp_map_default(struct dscp_map *m);

struct ip_info {
	uint8_t  version;               /* 4 or 6 */
	uint8_t  dscp;                  /* 0..63 */
	uint8_t  proto;                 /* L4 protocol (IPv6: after the extension headers) */
	uint16_t l4_off;                /* offset of the L4 ports, 0: none read */
	uint32_t flow_hash;             /* hash of (src, dst, proto, ports) */
};

/* Where the addresses of a validated packet are (version 4: 12 and 16,
 * 4 bytes; version 6: 8 and 24, 16 bytes). */
#define IP_SRC_OFF(v)   ((v) == 4 ? 12u : 8u)
#define IP_DST_OFF(v)   ((v) == 4 ? 16u : 24u)
#define IP_ADDR_BYTES(v) ((v) == 4 ? 4u : 16u)

/* Validates an IP packet of `len` bytes and extracts DSCP and flow hash.
 * Never reads beyond `len`.  Returns IP_OK or the first failed check. */
enum ip_verdict ip_inspect(const uint8_t *pkt, size_t len, struct ip_info *out);

/* Fills the header checksum of the IPv4 header at hdr (IHL from hdr[0]);
 * for code that builds packets (the simulator, tests). */
void ipv4_set_checksum(uint8_t *hdr);

/* Keys the flow hash (ip_info.flow_hash) with SipHash-2-4 under (k0, k1)
 * for the rest of the process: the daemon draws a random key at start.
 * Without a key (the simulator, the tests) the hash is unkeyed and the
 * same in every run.  clear: back to unkeyed (tests). */
void flow_hash_set_key(uint64_t k0, uint64_t k1);
void flow_hash_clear_key(void);

#endif
