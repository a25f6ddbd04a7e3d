/* netdev.h - opening the tun device and the UDP socket.  Each function
 * returns a non-blocking fd or -1 with a message naming the object and the
 * OS error in err. */
#ifndef SCHEDTUN_NETDEV_H
#define SCHEDTUN_NETDEV_H

#include <stddef.h>
#include "conf.h"

/* Creates tun `name` (or attaches to an existing persistent one),
 * IFF_TUN | IFF_NO_PI. */
int tun_open(const char *name, char *err, size_t errlen);

/* Sets the MTU, the address (if the config has one) and brings the link
 * up.  0 or -1. */
int tun_setup(const struct conf *c, char *err, size_t errlen);

/* Binds a UDP socket to the listen address, with large socket buffers. */
int udp_open(const struct conf_addr *listen, char *err, size_t errlen);

#endif
