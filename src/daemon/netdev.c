/* netdev.c - tun and UDP set-up through ioctl/setsockopt (see netdev.h).
 * No external `ip` command: the daemon must work where iproute2 is absent. */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <linux/ipv6.h>
#include <sys/ioctl.h>
#include "daemon/netdev.h"
#include "pkt/tso.h"
#include "util/log.h"

/* open + TUNSETIFF with flags.  The fd, or -1 with err set. */
static int tun_attach(const char *name, short flags, char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "open /dev/net/tun: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errlen, "tun %s: TUNSETIFF: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* 1 on a little-endian host, where the tun's native virtio byte order is
 * already the one tso.c reads. */
static int host_is_little_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

/* Sets up the virtio header on an IFF_VNET_HDR fd: its size, little-endian
 * (tso.c decodes it so; native order is the default, which TUNSETVNETLE
 * makes explicit where the kernel has it), then the offloads, USO first
 * and without it when the kernel refuses (TUN_F_USO4/6 exist from 6.2).
 * The offload flags set, or 0 with err set. */
static unsigned tun_vnet_setup(int fd, const char *name, char *err, size_t errlen)
{
	int hdr_bytes = TSO_VNET_HDR_BYTES, le = 1;
	unsigned long base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	unsigned long uso = TSO_TUN_F_USO4 | TSO_TUN_F_USO6;

	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_bytes) < 0) {
		snprintf(err, errlen, "tun %s: TUNSETVNETHDRSZ: %s", name, strerror(errno));
		return 0;
	}
	if (ioctl(fd, TUNSETVNETLE, &le) < 0 && !host_is_little_endian()) {
		snprintf(err, errlen, "tun %s: TUNSETVNETLE: %s", name, strerror(errno));
		return 0;
	}
	if (ioctl(fd, TUNSETOFFLOAD, base | uso) == 0)
		return (unsigned)(base | uso);
	if (ioctl(fd, TUNSETOFFLOAD, base) == 0)
		return (unsigned)base;
	snprintf(err, errlen, "tun %s: TUNSETOFFLOAD: %s", name, strerror(errno));
	return 0;
}

/* See netdev.h. */
int tun_open(const char *name, int offload, unsigned *offload_flags,
	     char *err, size_t errlen)
{
	*offload_flags = 0;
	if (offload) {
		int fd = tun_attach(name, IFF_TUN | IFF_NO_PI | IFF_VNET_HDR, err, errlen);

		if (fd >= 0) {
			*offload_flags = tun_vnet_setup(fd, name, err, errlen);
			if (*offload_flags)
				return fd;
			close(fd);
		}
		/* An fd's IFF_VNET_HDR cannot be cleared: start again. */
		log_warn("%s; segmentation offload off, one packet per read", err);
	}
	return tun_attach(name, IFF_TUN | IFF_NO_PI, err, errlen);
}

static int ifreq_ioctl(int sock, unsigned long req, struct ifreq *ifr,
		       const char *what, char *err, size_t errlen)
{
	if (ioctl(sock, req, ifr) < 0) {
		snprintf(err, errlen, "tun %s: %s: %s", ifr->ifr_name, what,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int tun_addr4(int sock, const struct conf *c, char *err, size_t errlen)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	uint32_t mask = c->addr_prefix ? ~0u << (32 - c->addr_prefix) : 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->tun_name);
	sin->sin_family = AF_INET;
	memcpy(&sin->sin_addr, c->addr, 4);
	if (ifreq_ioctl(sock, SIOCSIFADDR, &ifr, "set address", err, errlen))
		return -1;
	sin->sin_addr.s_addr = htonl(mask);
	return ifreq_ioctl(sock, SIOCSIFNETMASK, &ifr, "set netmask", err, errlen);
}

static int tun_addr6(const struct conf *c, char *err, size_t errlen)
{
	struct in6_ifreq r6;
	struct ifreq ifr;
	int sock = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = -1;

	if (sock < 0) {
		snprintf(err, errlen, "IPv6 socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->tun_name);
	if (ifreq_ioctl(sock, SIOCGIFINDEX, &ifr, "get index", err, errlen))
		goto out;
	memset(&r6, 0, sizeof(r6));
	memcpy(&r6.ifr6_addr, c->addr, 16);
	r6.ifr6_prefixlen = c->addr_prefix;
	r6.ifr6_ifindex = ifr.ifr_ifindex;
	if (ioctl(sock, SIOCSIFADDR, &r6) < 0) {
		snprintf(err, errlen, "tun %s: set IPv6 address: %s", c->tun_name,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	close(sock);
	return rc;
}

int tun_setup(const struct conf *c, char *err, size_t errlen)
{
	struct ifreq ifr;
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = -1;

	if (sock < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->tun_name);
	ifr.ifr_mtu = (int)c->mtu_bytes;
	if (ifreq_ioctl(sock, SIOCSIFMTU, &ifr, "set MTU", err, errlen))
		goto out;
	if (c->has_address && c->addr_family == AF_INET &&
	    tun_addr4(sock, c, err, errlen))
		goto out;
	if (ifreq_ioctl(sock, SIOCGIFFLAGS, &ifr, "get flags", err, errlen))
		goto out;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (ifreq_ioctl(sock, SIOCSIFFLAGS, &ifr, "bring up", err, errlen))
		goto out;
	/* IPv6 addresses can only be added once the link is up. */
	if (c->has_address && c->addr_family == AF_INET6 && tun_addr6(c, err, errlen))
		goto out;
	rc = 0;
out:
	close(sock);
	return rc;
}

int udp_open(const struct conf_addr *listen, char *err, size_t errlen)
{
	const struct sockaddr *sa = (const struct sockaddr *)&listen->ss;
	int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int buf_bytes = 4 << 20;
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
	}
	if (fd < 0) {
		snprintf(err, errlen, "UDP socket: %s", strerror(errno));
		return -1;
	}
	/* Large buffers absorb the bursts of a catching-up pacer; failures
	 * only cost performance, so they are not fatal. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf_bytes, sizeof(buf_bytes));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf_bytes, sizeof(buf_bytes));
	if (bind(fd, sa, listen->len) < 0) {
		snprintf(err, errlen, "bind %s:%u: %s", host, port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

void udp_offload_setup(int fd, struct udp_offload *o)
{
	int none = 0, on = 1;

	memset(o, 0, sizeof(*o));
	if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &none, sizeof(none)) == 0)
		o->gso = 1;
	else
		o->gso_errno = errno;
	if (setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on)) == 0)
		o->gro = 1;
	else
		o->gro_errno = errno;
}

/* See netdev.h. */
int udp_gro_size(struct msghdr *h)
{
	struct cmsghdr *cm;
	int size = 0;

	for (cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm))
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int)))
			memcpy(&size, CMSG_DATA(cm), sizeof(int));
	return size;
}
