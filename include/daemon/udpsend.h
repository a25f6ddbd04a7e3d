/* udpsend.h - the daemon's sends on the underlay UDP socket (issue 10's
 * batching and UDP GSO), the two send callbacks of struct core_io.
 *
 * A burst goes out in one sendmmsg(); with GSO on, each run of
 * equal-size datagrams (udpgso_group()) is one UDP_SEGMENT message whose
 * iovecs are the pool buffers themselves.  Where the kernel refuses GSO
 * as such, it is turned off for the run (said once, io.gso_fallback) and
 * the same datagrams go again one per message.
 */
#ifndef SCHEDTUN_UDPSEND_H
#define SCHEDTUN_UDPSEND_H

#include <stddef.h>
#include <stdint.h>
#include "conf/conf.h"
#include "core/stats.h"

struct udpsend {
	int           fd;               /* the connected-or-not UDP socket */
	int           gso_on;           /* sends may use UDP_SEGMENT */
	struct stats *st;               /* io.gso_sends/_segments/_fallback */
};

/* One datagram to `to`: 0 or -errno (core_io.send's contract). */
int udpsend_one(struct udpsend *u, const uint8_t *buf, size_t len,
		const struct conf_addr *to);

/* Up to n (at most CORE_TX_BATCH) datagrams in order, in one system
 * call where possible.  Returns the number sent; on a short count *err
 * is the -errno of the first unsent one (core_io.send_many's contract).
 * A GSO message fails or leaves as a whole, so its failure is reported on
 * its first datagram and the core tries the rest again, each on its own
 * merits, as after a plain datagram's failure. */
int udpsend_many(struct udpsend *u, const uint8_t *const *buf,
		 const size_t *len, int n, const struct conf_addr *to, int *err);

#endif
