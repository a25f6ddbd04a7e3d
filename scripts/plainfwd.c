/* plainfwd.c - the plainest tun <-> UDP forwarder: the benchmark's baseline.
 *
 *   plainfwd TUNNAME LISTEN_IP:PORT PEER_IP:PORT
 *
 * Opens (or creates) the tun TUNNAME with IFF_TUN | IFF_NO_PI, binds a UDP
 * socket to LISTEN, and then, in one poll() loop:
 *   - tun readable:    one read()     + one sendto(PEER) per packet;
 *   - socket readable: one recvfrom() + one write(tun)   per datagram.
 * No header, no classification, no pacing, no batching.  Addresses, MTU and
 * link state of the tun are set from outside with `ip`.  IPv6 addresses are
 * written in brackets: [::1]:5000.
 *
 * SIGINT/SIGTERM stop it (exit 0) after printing its counters on stderr.
 * Exit 1: bad arguments; exit 2: set-up error (open tun, socket, bind).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_SIZE 65536

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* "IP:PORT" or "[IPv6]:PORT" -> sockaddr.  Returns 0 on success. */
static int parse_addr(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *port;
	size_t hlen;

	if (arg[0] == '[') {
		const char *end = strchr(arg, ']');
		if (!end || end[1] != ':')
			return -1;
		hlen = (size_t)(end - arg - 1);
		if (hlen == 0 || hlen >= sizeof(host))
			return -1;
		memcpy(host, arg + 1, hlen);
		port = end + 2;
	} else {
		const char *colon = strrchr(arg, ':');
		if (!colon)
			return -1;
		hlen = (size_t)(colon - arg);
		if (hlen == 0 || hlen >= sizeof(host))
			return -1;
		memcpy(host, arg, hlen);
		port = colon + 1;
	}
	host[hlen] = '\0';
	if (*port == '\0')
		return -1;

	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, &res) != 0 || !res)
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int open_tun(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "plainfwd: open /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "plainfwd: TUNSETIFF %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage listen_ss, peer_ss;
	socklen_t listen_len, peer_len;

	if (argc != 4 || strlen(argv[1]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: plainfwd TUNNAME LISTEN_IP:PORT PEER_IP:PORT\n");
		return 1;
	}
	if (parse_addr(argv[2], &listen_ss, &listen_len) != 0) {
		fprintf(stderr, "plainfwd: bad listen address '%s' (want IP:PORT or [IPv6]:PORT)\n", argv[2]);
		return 1;
	}
	if (parse_addr(argv[3], &peer_ss, &peer_len) != 0) {
		fprintf(stderr, "plainfwd: bad peer address '%s' (want IP:PORT or [IPv6]:PORT)\n", argv[3]);
		return 1;
	}

	int tun = open_tun(argv[1]);
	if (tun < 0)
		return 2;

	int sock = socket(listen_ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		fprintf(stderr, "plainfwd: socket: %s\n", strerror(errno));
		return 2;
	}
	if (bind(sock, (struct sockaddr *)&listen_ss, listen_len) < 0) {
		fprintf(stderr, "plainfwd: bind %s: %s\n", argv[2], strerror(errno));
		return 2;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;          /* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	static unsigned char buf[BUF_SIZE];
	uint64_t tun_rx = 0, udp_tx = 0, udp_rx = 0, tun_tx = 0;
	uint64_t send_err = 0, write_err = 0;
	struct pollfd pfd[2] = {
		{ .fd = tun,  .events = POLLIN },
		{ .fd = sock, .events = POLLIN },
	};

	fprintf(stderr, "plainfwd: %s <-> %s -> %s\n", argv[1], argv[2], argv[3]);
	while (!stop_flag) {
		int n = poll(pfd, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "plainfwd: poll: %s\n", strerror(errno));
			return 2;
		}
		if (pfd[0].revents & POLLIN) {
			ssize_t r = read(tun, buf, sizeof(buf));
			if (r > 0) {
				tun_rx++;
				if (sendto(sock, buf, (size_t)r, 0,
				           (struct sockaddr *)&peer_ss, peer_len) == r)
					udp_tx++;
				else
					send_err++;
			} else if (r < 0 && errno != EINTR && errno != EAGAIN) {
				fprintf(stderr, "plainfwd: read tun: %s\n", strerror(errno));
				return 2;
			}
		} else if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			fprintf(stderr, "plainfwd: tun fd error\n");
			return 2;
		}
		if (pfd[1].revents & POLLIN) {
			ssize_t r = recvfrom(sock, buf, sizeof(buf), 0, NULL, NULL);
			if (r > 0) {
				udp_rx++;
				if (write(tun, buf, (size_t)r) == r)
					tun_tx++;
				else
					write_err++;
			}
			/* r < 0: ECONNREFUSED from an earlier sendto, EINTR: ignore */
		}
	}

	fprintf(stderr,
	        "plainfwd: stop: tun_rx=%" PRIu64 " udp_tx=%" PRIu64 " send_err=%" PRIu64
	        " udp_rx=%" PRIu64 " tun_tx=%" PRIu64 " write_err=%" PRIu64 "\n",
	        tun_rx, udp_tx, send_err, udp_rx, tun_tx, write_err);
	close(sock);
	close(tun);
	return 0;
}
