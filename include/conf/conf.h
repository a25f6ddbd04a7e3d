/* conf.h - the configuration file (libconfig syntax; schedtun.conf(5), docs/configuration.md).
 *
 * conf_load() parses into a fresh struct and reports every error; the
 * caller swaps it in only when the error count is zero (start-up and SIGHUP
 * alike).  Values are read and reported through the value layer
 * (cfgval.h); each scheduler's group through the registry (sched.h).
 */
#ifndef SCHEDTUN_CONF_H
#define SCHEDTUN_CONF_H

#include <stdalign.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <net/if.h>
#include "cfgval/cfgval.h"
#include "link/link.h"
#include "mark/marker.h"
#include "pkt/classify.h"
#include "sched/sched.h"
#include "sec/auth.h"
#include "util/diag.h"

#define CONF_PATH_MAX 512
#define CONF_NAME_MAX 64        /* tunnel.user, tunnel.group: characters + 1 */
#define CONF_ALLOW_MAX 16       /* tunnel.allow: prefixes, at most */

/* A network prefix: family AF_INET or AF_INET6, addr's first len bits
 * (the rest zero). */
struct conf_prefix {
	int      family;
	uint8_t  addr[16];
	uint8_t  len;
};

struct jw;

struct conf_addr {                      /* host:port, IPv4 or [IPv6] */
	struct sockaddr_storage ss;
	socklen_t len;
};

/* tunnel.sandbox (src/daemon/sandbox.h has what each does) */
enum { CONF_SANDBOX_OFF, CONF_SANDBOX_ON, CONF_SANDBOX_LOG };

struct conf {
	char path[CONF_PATH_MAX];

	/* tunnel */
	char     tun_name[IFNAMSIZ];
	int      has_address;
	int      addr_family;            /* AF_INET / AF_INET6 */
	uint8_t  addr[16];               /* interface address */
	uint8_t  addr_prefix;            /* /24 ... */
	uint32_t mtu_bytes;              /* inner MTU, default 1400 */
	struct conf_addr listen;         /* default 0.0.0.0:5000 */
	int      has_peer;
	struct conf_addr peer;
	uint32_t pool_pkts;              /* packet buffers, default 16384 */
	int      offload;                /* tun segmentation offload, default 1 */
	int      tun_gro;                /* coalesced GSO tun writes, default 1 */
	uint32_t realtime_prio;          /* SCHED_FIFO priority, 0 = off (rt.h) */
	uint32_t n_allow;                /* tunnel.allow: 0 = any sender may be pinned */
	struct conf_prefix allow[CONF_ALLOW_MAX];
	int      has_key;                /* tunnel.key_file: authenticated datagrams */
	char     key_file[CONF_PATH_MAX];   /* resolved path, "" without a key */
	struct auth_key key;             /* its 32 bytes (sec/auth.h) */
	int      encrypt;                /* seal the inner packets, default 0 */
	tstamp_ns key_grace_ns;          /* previous key accepted after a re-key */
	int      has_user;               /* tunnel.user: give up root after set-up */
	char     user[CONF_NAME_MAX];    /* as written, "" without one */
	char     group[CONF_NAME_MAX];   /* as written, "" = the user's own */
	uint32_t uid;                    /* tunnel.user's */
	uint32_t user_gid;               /* its primary group, UINT32_MAX: none */
	uint32_t gid;                    /* the group to run as */
	int      sandbox;                /* CONF_SANDBOX_*, default ON */

	/* link */
	struct link_profile link;        /* default: constant 20Mbit */
	tstamp_ns delay_ns;              /* default 0 */
	tstamp_ns slack_ns;              /* departure slack, default 0 (core.c) */
	tstamp_ns spin_ns;               /* poll, not sleep, for a deadline this
					  * close (loop.c); 0: always sleep */

	/* classes */
	struct dscp_map dscp;
	uint32_t limit_pkts[NCLASS];     /* defaults 100, 1000, 1000 */

	/* scheduler */
	const struct sched_ops *sched;   /* default prio */
	alignas(16) unsigned char sched_params[SCHED_PARAMS_MAX];

	/* stats */
	tstamp_ns stats_interval_ns;     /* default 1 s; 0 disables */
	char      stats_file[CONF_PATH_MAX];  /* "" = stdout, "-" = stdout */
	char      packet_log[CONF_PATH_MAX];  /* "" = off (docs/pktlog.md) */

	/* marker */
	struct marker_params marker;     /* default: no class marked */
};

/* Fills every default (no file involved). */
void conf_defaults(struct conf *c);

/* "A.B.C.D:PORT" or "[IPv6]:PORT", numeric hosts only, PORT in
 * min_port..65535, into *a.  0, or -1 (and *a unspecified). */
int  conf_parse_hostport(const char *str, unsigned min_port,
			 struct conf_addr *a);

/* Loads `path` into *c (which it initialises).  Returns the number of
 * errors, each reported through d; on > 0 *c holds no resources. */
int  conf_load(const char *path, struct conf *c, struct diag *d);

/* conf_load(), and when the file is valid, its effective configuration
 * as member "conf" of the object open in w: one member per section, one
 * per key under its name in the file, in base units (bit/s, ns, bytes);
 * docs/configuration.md "Machine-readable check" has the contract. */
int  conf_load_json(const char *path, struct conf *c, struct diag *d,
		    struct jw *w);

/* After the privilege drop (src/daemon/privdrop.c): later loads take
 * tunnel.user's and tunnel.group's ids from c's, without asking the name
 * service, and refuse any other name (confuser.c says why). */
void conf_ids_freeze(const struct conf *c);

/* tunnel.allow (confallow.c): 1 when the sender at sa may be pinned,
 * i.e. c has no allow list or sa's address is inside one of its
 * prefixes (an IPv4 address mapped into IPv6, as a dual-stack socket
 * reports it, counts as the IPv4 address); else 0. */
int  conf_allows(const struct conf *c, const struct sockaddr *sa, socklen_t len);

/* Releases what a successful conf_load allocated (trace arrays). */
void conf_free(struct conf *c);

/* Selects scheduler ops (NULL: none) with its default parameters for
 * c's link, MTU and limits, as a file naming it without its group does;
 * for code that builds a conf by hand (tests, fuzz targets). */
void conf_use_sched(struct conf *c, const struct sched_ops *ops);
/* The reference of every key of the file, and with `schedulers` of every
 * scheduler, from the tables that parse them, in format fmt (cfgval.h):
 * schedtun --help-conf, schedtun.conf(5) and docs/configuration.md are
 * printed from it. */
void conf_print_reference(FILE *f, enum cfg_ref_fmt fmt, int schedulers);
/* The same reference, every scheduler's included, as member "sections"
 * of the object open in w: an array of { section, title, keys }, keys as
 * cfg_json_reference() writes them (schedtun --help-conf-json). */
void conf_json_reference(struct jw *w);
/* The scheduler env the core derives from a conf (limits, capacity). */
void conf_sched_env(const struct conf *c, struct sched_env *env);

#endif
