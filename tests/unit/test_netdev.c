/* test_netdev.c - the tun's set-up (daemon/netdev.h) on real tun devices,
 * in a network namespace of this test's own (unshare(CLONE_NEWNET) at
 * start: nothing of the machine's is touched, and the namespace goes with
 * the process).  Checked through the kernel's own view (ioctls,
 * getifaddrs): tun_open() gives a non-blocking fd on a tun of that name,
 * with the offloads asked for (checksum, TSO4/6, USO4/6 on kernels from
 * 6.2); tun_setup() sets the MTU, the IPv4 address and netmask or the
 * IPv6 address with its prefix, and brings the link up; failures name
 * the tun, the step and the OS error.  Skipped where the test may not
 * make a namespace or a tun (not root, no /dev/net/tun).
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "daemon/netdev.h"
#include "pkt/tso.h"
#include "testutil.h"

static int can_run;     /* the namespace is ours and /dev/net/tun opens */

static void need_tun(void)
{
	if (!can_run)
		tu_cannot_run("test_netdev", "no network namespace or "
			      "/dev/net/tun of our own (needs root)");
}

/* ifr for `name`, filled by ioctl req on an AF_INET socket. */
static struct ifreq if_get(const char *name, unsigned long req)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(s, req, &ifr) < 0)
		fail_msg("%s: ioctl %#lx: %s", name, req, strerror(errno));
	close(s);
	return ifr;
}

/* A plain tun: the device exists under its name, the fd is non-blocking,
 * no offload flags; closing it removes the device (not persistent). */
static void test_open_plain(void **state)
{
	char err[256] = "";
	unsigned flags = 99;
	int fd;

	(void)state;
	need_tun();
	fd = tun_open("stt0", 0, &flags, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(flags, 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	assert_true(if_nametoindex("stt0") > 0);
	close(fd);
	assert_int_equal(if_nametoindex("stt0"), 0);
}

/* With offload: checksum, TSO4/6 and, on this kernel, USO4/6 (6.2+);
 * the tun then takes a virtio header (TUNGETVNETHDRSZ says its size). */
static void test_open_offload(void **state)
{
	const unsigned base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	char err[256] = "";
	unsigned flags = 0;
	int fd, hdr = 0;

	(void)state;
	need_tun();
	fd = tun_open("stt1", 1, &flags, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(flags & base, base);
	print_message("offload flags %#x (USO %s)\n", flags,
		      flags & TSO_TUN_F_USO4 ? "on" : "off");
	assert_int_equal(flags & ~(base | TSO_TUN_F_USO4 | TSO_TUN_F_USO6), 0);
	assert_int_equal(ioctl(fd, TUNGETVNETHDRSZ, &hdr), 0);
	assert_int_equal(hdr, TSO_VNET_HDR_BYTES);
	close(fd);
}

static void conf_tun(struct conf *c, const char *name, int family,
		     const char *addr, unsigned prefix, uint32_t mtu)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->tun_name, sizeof(c->tun_name), "%s", name);
	c->mtu_bytes = mtu;
	if (addr) {
		c->has_address = 1;
		c->addr_family = family;
		assert_int_equal(inet_pton(family, addr, c->addr), 1);
		c->addr_prefix = (uint8_t)prefix;
	}
}

/* A plain tun `name` opened and set up as conf_tun() says; its fd. */
static int tun_up(const char *name, int family, const char *addr,
		  unsigned prefix, uint32_t mtu)
{
	struct conf c;
	char err[256] = "";
	unsigned flags;
	int fd = tun_open(name, 0, &flags, err, sizeof(err));

	if (fd < 0)
		fail_msg("tun_open: %s", err);
	conf_tun(&c, name, family, addr, prefix, mtu);
	if (tun_setup(&c, err, sizeof(err)))
		fail_msg("tun_setup: %s", err);
	return fd;
}

/* IPv4: MTU, address, netmask of the prefix, link up. */
static void test_setup_v4(void **state)
{
	struct ifreq ifr;
	char a[INET_ADDRSTRLEN];
	int fd;

	(void)state;
	need_tun();
	fd = tun_up("stt2", AF_INET, "10.10.0.1", 22, 1380);
	assert_int_equal(if_get("stt2", SIOCGIFMTU).ifr_mtu, 1380);
	assert_true(if_get("stt2", SIOCGIFFLAGS).ifr_flags & IFF_UP);
	ifr = if_get("stt2", SIOCGIFADDR);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr,
		  a, sizeof(a));
	assert_string_equal(a, "10.10.0.1");
	ifr = if_get("stt2", SIOCGIFNETMASK);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr,
		  a, sizeof(a));
	assert_string_equal(a, "255.255.252.0");
	close(fd);
}

/* IPv6: the address with its prefix (after the link is up), and no
 * address at all leaves only the MTU and the link. */
static void test_setup_v6(void **state)
{
	struct ifaddrs *ifa, *i;
	char a[INET6_ADDRSTRLEN];
	int fd, found = 0;

	(void)state;
	need_tun();
	fd = tun_up("stt3", AF_INET6, "2001:db8:5::1", 64, 1400);
	assert_int_equal(getifaddrs(&ifa), 0);
	for (i = ifa; i; i = i->ifa_next) {
		const struct sockaddr_in6 *s6 = (const void *)i->ifa_addr;
		const struct sockaddr_in6 *m6 = (const void *)i->ifa_netmask;

		if (!s6 || s6->sin6_family != AF_INET6 ||
		    strcmp(i->ifa_name, "stt3"))
			continue;
		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		if (strcmp(a, "2001:db8:5::1"))
			continue;       /* the link-local one */
		found = 1;
		inet_ntop(AF_INET6, &m6->sin6_addr, a, sizeof(a));
		assert_string_equal(a, "ffff:ffff:ffff:ffff::");
	}
	freeifaddrs(ifa);
	assert_true(found);
	assert_true(if_get("stt3", SIOCGIFFLAGS).ifr_flags & IFF_UP);
	close(fd);

	fd = tun_up("stt4", 0, NULL, 0, 9000);
	assert_int_equal(if_get("stt4", SIOCGIFMTU).ifr_mtu, 9000);
	assert_true(if_get("stt4", SIOCGIFFLAGS).ifr_flags & IFF_UP);
	close(fd);
}

/* Failures name the tun, the step and the OS error: no such device; an
 * MTU above the tun's 65535 (the MTU step fails before the address). */
static void test_errors(void **state)
{
	struct conf c;
	char err[256] = "", want[256];
	unsigned flags;
	int fd;

	(void)state;
	need_tun();
	conf_tun(&c, "stt9", 0, NULL, 0, 1400);
	assert_int_equal(tun_setup(&c, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "tun stt9: set MTU: %s",
		 strerror(ENODEV));
	assert_string_equal(err, want);
	fd = tun_open("stt5", 0, &flags, err, sizeof(err));
	assert_true(fd >= 0);
	conf_tun(&c, "stt5", AF_INET, "10.1.0.1", 24, 70000);
	assert_int_equal(tun_setup(&c, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "tun stt5: set MTU: %s", strerror(EINVAL));
	assert_string_equal(err, want);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_plain),
		cmocka_unit_test(test_open_offload),
		cmocka_unit_test(test_setup_v4),
		cmocka_unit_test(test_setup_v6),
		cmocka_unit_test(test_errors),
	};

	if (unshare(CLONE_NEWNET) == 0) {
		int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

		can_run = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
