/* netdev.h - opening the tun device and the UDP socket.  Each function
 * returns a non-blocking fd or -1 with a message naming the object and the
 * OS error in err. */
#ifndef SCHEDTUN_NETDEV_H
#define SCHEDTUN_NETDEV_H

#include <stddef.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include "conf/conf.h"

/* Older C libraries lack them; the values are the kernel's ABI. */
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* Creates tun `name` (or attaches to an existing persistent one),
 * IFF_TUN | IFF_NO_PI.  With offload, also IFF_VNET_HDR and TUNSETOFFLOAD
 * (checksum, TSO4/6, USO4/6 where the kernel has them): *offload_flags
 * then holds the TUN_F_* set, and every read and write of the fd starts
 * with a virtio_net_hdr (tso.h); 0 when offload was not asked for or the
 * kernel refused it (logged once; the fd is a plain one then). */
int tun_open(const char *name, int offload, unsigned *offload_flags,
	     char *err, size_t errlen);

/* Sets the MTU, the address (if the config has one) and brings the link
 * up.  0 or -1. */
int tun_setup(const struct conf *c, char *err, size_t errlen);

/* Binds a UDP socket to the listen address, with large socket buffers. */
int udp_open(const struct conf_addr *listen, char *err, size_t errlen);

/* What the UDP socket's kernel offers for segmentation offload. */
struct udp_offload {
	int gso;        /* UDP_SEGMENT known: sends may carry the cmsg */
	int gro;        /* UDP_GRO on: receives may hold several datagrams */
	int gso_errno, gro_errno;       /* why not, when 0 above */
};

/* Turns UDP_GRO on for fd and checks that UDP_SEGMENT is known (by
 * setting the socket's default segment size to 0, i.e. none: each send
 * chooses its own with a cmsg).  Neither failure is fatal: the daemon
 * then sends and receives one datagram per message, as without them. */
void udp_offload_setup(int fd, struct udp_offload *o);

/* The segment size of a receive h with UDP_GRO on (the UDP_GRO control
 * message recvmsg() left in h), or 0 when it holds one datagram (no such
 * message). */
int udp_gro_size(struct msghdr *h);

#endif
