/* conf.c - the configuration file: libconfig into struct conf.
 *
 * One parser per key; every value is read and every problem reported
 * through the value layer (cfgval.h), so that each line reads
 * "FILE:LINE: dotted.key: 'value' problem (accepted: ...)".  Each
 * scheduler's group is parsed by the registry from its key table.
 * Parsing never stops at the first error: a user fixing a file wants the
 * whole list at once, and SIGHUP must not half-apply anything, so the
 * caller only uses the result when the count is zero.
 *
 * libconfig 1.5 note: an integer literal beyond 32 bits without the L
 * suffix is silently truncated by the library's scanner, so large rates
 * are best written as strings ("10Gbit"); the example files say so.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf/conf.h"
#include "conf/confinc.h"
#include "confallow.h"
#include "confjson.h"
#include "confkey.h"
#include "confuser.h"
#include "confmark.h"
#include "util/jw.h"
#include "util/rt.h"
#include "util/units.h"

#define DEFAULT_TUN        "tun0"
#define DEFAULT_MTU        1400
#define DEFAULT_PORT       5000
#define DEFAULT_POOL       16384
#define DEFAULT_RATE_BPS   20000000ull
#define DEFAULT_SCHED      "prio"
#define MIN_MTU            576
#define MIN_MTU_IPV6       1280
#define MAX_MTU            9000
#define MIN_POOL           256u
#define MAX_POOL           1048576u
#define MAX_LIMIT_PKTS     1000000u
#define MAX_DELAY_NS       (10 * NS_PER_SEC)
/* link.slack is meant to be of the order of the machine's timer lateness
 * (tens to hundreds of microseconds).  10 ms bounds the burst it may
 * release at once (17 packets of 1500 B at 20 Mbit/s) and keeps it well
 * inside the pacer's 50 ms catch-up window (PACER_CATCHUP_MAX_NS), so the
 * emulated link still looks like a paced link, not like a token bucket. */
#define MAX_SLACK_NS       (10 * NS_PER_MS)
/* link.spin polls for a departure due sooner than this instead of sleeping
 * on the timer.  Worth it only below the machine's wake-up latency (tens
 * of microseconds on our VMs); 1 ms of polling per packet would already
 * burn a core at 1000 packets/s. */
#define MAX_SPIN_NS        NS_PER_MS
#define DEFAULT_SPIN_NS    (20 * NS_PER_US)
#define MIN_STATS_NS       (10 * NS_PER_MS)
#define MAX_STATS_NS       (3600 * NS_PER_SEC)
#define MAX_PERIOD_NS      (86400 * NS_PER_SEC)
#define DEFAULT_KEY_GRACE  "60s"
#define DEFAULT_KEY_GRACE_NS (60 * NS_PER_SEC)
#define MAX_KEY_GRACE_NS   (3600 * NS_PER_SEC)
#define NDSCP              64

/* A number as the reference writes it, from the one definition. */
#define XSTR(x)            STR(x)
#define STR(x)             #x

static const uint32_t default_limit_pkts[NCLASS] = { 100, 1000, 1000 };


/* ---- the loader --------------------------------------------------------- */

struct loader {
	struct conf *c;
	struct diag *d;
	char dir[CONF_PATH_MAX];        /* of the config file; "" = cwd */
};

/* Member `key` of parent if it is a group; NULL when absent or, after
 * reporting (with the keys of table `keys`), of another type.  The caller
 * checks the members. */
static const config_setting_t *subgroup(const config_setting_t *parent,
					const char *key,
					const struct cfg_key *keys,
					struct diag *d)
{
	const config_setting_t *g = cfg_lookup(parent, key);

	if (!g)
		return NULL;
	if (!config_setting_is_group(g)) {
		cfg_check_table(g, keys, d);    /* reports the type */
		return NULL;
	}
	return g;
}

/* ---- tunnel ---- */

/* What the kernel's dev_valid_name() accepts, so that the error comes from
 * --check rather than from TUNSETIFF at start-up. */
static int valid_ifname(const char *n)
{
	if (!*n || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		return 0;
	for (; *n; n++)
		if (*n == '/' || *n == ':' || isspace((unsigned char)*n))
			return 0;
	return 1;
}

/* "A.B.C.D/N" or "x::y/N" (the prefix is required: a tunnel address
 * without one would silently become a /32 or /128 host route). */
static int parse_prefix(const char *str, struct conf *c)
{
	struct conf_prefix p;
	const char *why;

	if (conf_prefix_parse(str, 1, &p, &why) < 0)
		return -1;
	c->addr_family = p.family;
	memcpy(c->addr, p.addr, sizeof(c->addr));
	c->addr_prefix = p.len;
	return 0;
}

/* See conf.h.  Numeric only: a daemon that re-reads its file on SIGHUP
 * must not block on a resolver. */
int conf_parse_hostport(const char *str, unsigned min_port,
			struct conf_addr *a)
{
	char host[INET6_ADDRSTRLEN + IFNAMSIZ + 2];
	const char *colon, *p, *hs = str;
	size_t hl;
	unsigned long port = 0;
	struct addrinfo hints, *res = NULL;

	if (*str == '[') {
		const char *rb = strchr(str, ']');

		if (!rb || rb[1] != ':')
			return -1;
		hs = str + 1;
		hl = (size_t)(rb - hs);
		colon = rb + 1;
	} else {
		colon = strrchr(str, ':');
		if (!colon)
			return -1;
		hl = (size_t)(colon - str);
		if (memchr(str, ':', hl))
			return -1;      /* IPv6 needs brackets */
	}
	if (hl == 0 || hl >= sizeof(host) || !colon[1])
		return -1;
	memcpy(host, hs, hl);
	host[hl] = '\0';
	for (p = colon + 1; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		port = port * 10 + (unsigned long)(*p - '0');
		if (port > 65535)
			return -1;
	}
	if (port < min_port)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = *str == '[' ? AF_INET6 : AF_INET;
	hints.ai_flags = AI_NUMERICHOST;
	hints.ai_socktype = SOCK_DGRAM;
	if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
		return -1;
	if (res->ai_addrlen > sizeof(a->ss)) {
		freeaddrinfo(res);
		return -1;
	}
	memset(a, 0, sizeof(*a));
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = (socklen_t)res->ai_addrlen;
	freeaddrinfo(res);
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)&a->ss)->sin6_port =
			htons((uint16_t)port);
	return 0;
}

static void set_wildcard(struct conf_addr *a, int family, unsigned port)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons((uint16_t)port);
		a->len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons((uint16_t)port);
		a->len = sizeof(*s4);
	}
}

/* An endpoint string into a; min_port 1 for a peer (port 0 is "any"). */
static int parse_endpoint(const config_setting_t *s, unsigned min_port,
			  struct conf_addr *a, struct diag *d)
{
	char buf[256];

	if (cfg_get_string(s, buf, sizeof(buf), d) < 0)
		return -1;
	if (conf_parse_hostport(buf, min_port, a) < 0) {
		cfg_report(d, s, NULL, "'%s' is not an address:port (accepted: "
			   "A.B.C.D:PORT or [IPv6]:PORT, numeric, port %u..65535)",
			   buf, min_port);
		return -1;
	}
	return 1;
}

/* The tunnel keys' custom parsers (cfg_key.parse): params is the conf. */

static int tunnel_tun(const config_setting_t *s, void *params, struct diag *d)
{
	struct conf *c = params;
	char buf[IFNAMSIZ];

	if (cfg_get_string(s, buf, sizeof(buf), d) < 0)
		return -1;
	if (!valid_ifname(buf)) {
		cfg_report(d, s, NULL, "'%s' is not an interface name (accepted: "
			   "1..%d characters, none of '/', ':' or blanks)",
			   buf, IFNAMSIZ - 1);
		return -1;
	}
	memcpy(c->tun_name, buf, strlen(buf) + 1);
	return 1;
}

static int tunnel_address(const config_setting_t *s, void *params,
			  struct diag *d)
{
	struct conf *c = params;
	char buf[256];

	if (cfg_get_string(s, buf, sizeof(buf), d) < 0)
		return -1;
	if (parse_prefix(buf, c) < 0) {
		cfg_report(d, s, NULL, "'%s' is not an address/prefix (accepted: "
			   "A.B.C.D/0..32 or IPv6/0..128)", buf);
		return -1;
	}
	c->has_address = 1;
	return 1;
}

/* After `address` in the table: the kernel disables IPv6 on a link below
 * 1280 bytes, so an IPv6 address raises the floor. */
static int tunnel_mtu(const config_setting_t *s, void *params, struct diag *d)
{
	struct conf *c = params;
	char vb[64];
	uint64_t v;

	if (cfg_get_uint(s, MIN_MTU, MAX_MTU, "", &v, d) < 0)
		return -1;
	c->mtu_bytes = (uint32_t)v;
	if (c->has_address && c->addr_family == AF_INET6 && v < MIN_MTU_IPV6) {
		cfg_report(d, s, NULL, "%s is too small for an IPv6 address "
			   "(accepted: %u..%u)", cfg_describe(s, vb, sizeof(vb)),
			   MIN_MTU_IPV6, MAX_MTU);
		return -1;
	}
	return 1;
}

static int tunnel_listen(const config_setting_t *s, void *params,
			 struct diag *d)
{
	return parse_endpoint(s, 0, &((struct conf *)params)->listen, d);
}

/* After `listen` in the table.  Without a (valid) listen address the
 * socket follows the peer's family: a v6 peer needs a v6 socket. */
static int tunnel_peer(const config_setting_t *s, void *params,
		       struct diag *d)
{
	struct conf *c = params;
	const config_setting_t *ls = cfg_lookup(config_setting_parent(s),
						"listen");
	struct conf_addr probe;
	int listen_ok = ls && config_setting_type(ls) == CONFIG_TYPE_STRING &&
			conf_parse_hostport(config_setting_get_string(ls), 0,
				       &probe) == 0;

	if (parse_endpoint(s, 1, &c->peer, d) < 0)
		return -1;
	c->has_peer = 1;
	if (!listen_ok) {
		set_wildcard(&c->listen, c->peer.ss.ss_family, DEFAULT_PORT);
	} else if (c->listen.ss.ss_family != c->peer.ss.ss_family) {
		cfg_report(d, s, NULL, "'%s' is %s but tunnel.listen is %s "
			   "(accepted: an address of the listen family)",
			   config_setting_get_string(s),
			   c->peer.ss.ss_family == AF_INET6 ? "IPv6" : "IPv4",
			   c->listen.ss.ss_family == AF_INET6 ? "IPv6" : "IPv4");
		return -1;
	}
	return 1;
}

/* The tunnel section, in the order its keys are checked (address before
 * mtu, listen before peer: each later one looks at the earlier). */
static const struct cfg_key tunnel_keys[] = {
	/* IFNAMSIZ - 1 characters: the kernel's limit, asserted below */
	{ .name = "tun", .type = CFG_T_CUSTOM, .parse = tunnel_tun,
	  .range = "an interface name, 1..15 characters, none of '/', ':' "
		   "or blanks",
	  .def = DEFAULT_TUN,
	  .help = "the tun device; created if absent, a persistent one is "
		  "attached" },
	{ .name = "address", .type = CFG_T_CUSTOM, .parse = tunnel_address,
	  .range = "A.B.C.D/0..32 or IPv6/0..128", .def = "none",
	  .help = "an address for the tun (the daemon sets the MTU and "
		  "brings the link up in any case)" },
	{ .name = "mtu", .type = CFG_T_CUSTOM, .parse = tunnel_mtu,
	  .range = XSTR(MIN_MTU) ".." XSTR(MAX_MTU) " bytes ("
		   XSTR(MIN_MTU_IPV6) ".. with an IPv6 address)",
	  .def = XSTR(DEFAULT_MTU),
	  .help = "the inner MTU; the underlay must carry it plus the "
		  "IP, UDP and tunnel headers" },
	{ .name = "listen", .type = CFG_T_CUSTOM, .parse = tunnel_listen,
	  .range = "A.B.C.D:PORT or [IPv6]:PORT, numeric, port 0..65535",
	  .def = "0.0.0.0:" XSTR(DEFAULT_PORT),
	  .help = "the UDP address the daemon receives its peer's "
		  "datagrams on" },
	{ .name = "peer", .type = CFG_T_CUSTOM, .parse = tunnel_peer,
	  .range = "A.B.C.D:PORT or [IPv6]:PORT, numeric, port 1..65535, "
		   "of listen's family",
	  .def = "none",
	  .help = "where to send; without it the daemon waits and pins the "
		  "first peer that sends it a valid datagram" },
	{ .name = "allow", .type = CFG_T_CUSTOM, .parse = conf_tunnel_allow,
	  .range = "a prefix \"A.B.C.D/N\" or \"IPv6/N\", or a list of 1..16",
	  .def = "any", .excludes = "peer",
	  .accepted = "peer to fix the sender, or allow to narrow who may be pinned",
	  .help = "without peer: only a sender inside one of these prefixes "
		  "may become the pinned peer (docs/security.md)" },
	{ .name = "pool", .type = CFG_T_UINT, .min = MIN_POOL, .max = MAX_POOL,
	  CFG_FIELD(struct conf, pool_pkts), .def = XSTR(DEFAULT_POOL),
	  .unit = "packets",
	  .help = "packet buffers, allocated once at start-up" },
	{ .name = "offload", .type = CFG_T_BOOL, CFG_FIELD(struct conf, offload),
	  .def = "true",
	  .help = "tun segmentation offload: read TCP super-packets and cut "
		  "them into MTU packets in the daemon" },
	{ .name = "tun_gro", .type = CFG_T_BOOL, CFG_FIELD(struct conf, tun_gro),
	  .def = "true",
	  .help = "coalesce received TCP segments into GSO writes to the "
		  "tun (with offload)" },
	/* 0 = off; 1..99 = SCHED_FIFO priority (rt.h).  Applied on SIGHUP. */
	{ .name = "realtime", .type = CFG_T_UINT, .min = 0, .max = RT_PRIO_MAX,
	  .accepted = "0 = off, or 1..99 = SCHED_FIFO priority",
	  CFG_FIELD(struct conf, realtime_prio), .def = "0",
	  .help = "0 = off; 1..99: run under SCHED_FIFO at this priority "
		  "with memory locked (needs CAP_SYS_NICE or ulimit -r, and "
		  "CAP_IPC_LOCK or ulimit -l)" },
	{ .name = "key_file", .type = CFG_T_CUSTOM, .parse = conf_tunnel_key_file,
	  .range = "a file name, relative to this file's directory; the file "
		   "of mode 0600 or 0400 holding a key in base64 (schedtun genkey)",
	  .def = "none",
	  .help = "authenticate every datagram with this key (docs/security.md); "
		  "both daemons of a pair need the same" },
	{ .name = "encrypt", .type = CFG_T_BOOL, CFG_FIELD(struct conf, encrypt),
	  .def = "false", .needs = "key_file",
	  .accepted = "key_file with it, or neither: encryption needs a key",
	  .help = "with key_file: encrypt the inner packets too; both daemons "
		  "of a pair must agree" },
	{ .name = "key_grace", .type = CFG_T_DURATION, .min = 0,
	  .max = MAX_KEY_GRACE_NS, CFG_FIELD(struct conf, key_grace_ns),
	  .def = DEFAULT_KEY_GRACE, .needs = "key_file",
	  .accepted = "key_file with it, or neither",
	  .help = "after a new key_file is read on SIGHUP, how long the previous "
		  "key is still accepted: re-key the peer within it" },
	/* user before group: group overrides the user's primary group */
	{ .name = "user", .type = CFG_T_CUSTOM, .parse = conf_tunnel_user,
	  .range = "a user name or a numeric uid, other than root's",
	  .def = "none",
	  .help = "after set-up, run as this user with no capabilities "
		  "(docs/security.md); needs the daemon started as root" },
	{ .name = "group", .type = CFG_T_CUSTOM, .parse = conf_tunnel_group,
	  .range = "a group name or a numeric gid, other than root's",
	  .def = "the user's", .needs = "user",
	  .accepted = "user with it, or neither",
	  .help = "the group to run as after set-up (the only one: "
		  "supplementary groups are dropped)" },
	{ .name = "sandbox", .type = CFG_T_CUSTOM, .parse = conf_tunnel_sandbox,
	  .range = "true, false, or \"log\"", .def = "true",
	  .help = "after set-up, allow only the system calls the daemon needs "
		  "(seccomp; docs/security.md); false: off, to debug; \"log\": "
		  "allow and log the others (kernel audit)" },
	{ .name = NULL },
};
_Static_assert(IFNAMSIZ == 16, "tunnel.tun's reference says 15 characters");

/* ---- link ---- */

static void parse_profile_file(struct loader *L, const config_setting_t *pg,
			       enum link_kind kind)
{
	struct diag *d = L->d;
	const config_setting_t *s = cfg_lookup(pg, "file");
	char file[CONF_PATH_MAX], path[2 * CONF_PATH_MAX], err[512];
	struct link_profile tmp;
	int r;

	if (!s) {
		cfg_report(d, pg, "file", "missing (accepted: a file "
			       "name, relative to this file's directory)");
		return;
	}
	if (cfg_get_string(s, file, sizeof(file), d) < 0)
		return;
	if (!file[0] || conf_resolve_path(L->c, file, path, sizeof(path)) < 0) {
		cfg_report(d, s, NULL, "'%s' is not a usable file name (accepted: a file "
		       "name, relative to this file's directory)", file);
		return;
	}
	memset(&tmp, 0, sizeof(tmp));
	err[0] = '\0';
	if (kind == LINK_TRACE)
		r = link_load_trace(&tmp, path, err, sizeof(err));
	else
		r = link_load_mahimahi(&tmp, path, err, sizeof(err));
	if (r < 0) {
		link_profile_free(&tmp);
		cfg_report(d, s, NULL, "%s", err[0] ? err : "cannot be loaded");
		return;
	}
	tmp.kind = kind;
	if (!tmp.source[0]) {
		/* messages name the tail if the path is very long */
		size_t n = strlen(path), keep = sizeof(tmp.source) - 1;

		memcpy(tmp.source, n > keep ? path + n - keep : path,
		       (n > keep ? keep : n) + 1);
	}
	link_profile_free(&L->c->link);
	L->c->link = tmp;
}

/* kind = "cosine": C(t) = mean (1 + amplitude cos(2 pi t / period)). */
struct cosine_params {
	uint64_t mean_bps;
	double   amplitude;
	uint64_t period_ns;
};

static const struct cfg_key cosine_keys[] = {
	{ .name = "kind", .type = CFG_T_CUSTOM,        /* parse_profile's */
	  .range = "\"cosine\"", .def = "required",
	  .help = "C(t) = mean (1 + amplitude cos(2 pi t / period))" },
	{ .name = "mean", .type = CFG_T_RATE,
	  CFG_FIELD(struct cosine_params, mean_bps),
	  .missing = "a rate, e.g. \"20Mbit\"", .def = "required",
	  .help = "the mean capacity C_avg" },
	/* a = 1 would stop the link at each trough */
	{ .name = "amplitude", .type = CFG_T_NUMBER, .lo = 0, .hi = 1,
	  .flags = CFG_F_HI_OPEN, CFG_FIELD(struct cosine_params, amplitude),
	  .missing = "a number, 0 <= amplitude < 1", .def = "required",
	  .help = "the swing, a fraction of the mean" },
	{ .name = "period", .type = CFG_T_DURATION, .min = 1,
	  .max = MAX_PERIOD_NS, CFG_FIELD(struct cosine_params, period_ns),
	  .missing = "a duration > 0, e.g. \"15s\"", .def = "required",
	  .help = "the period of the cosine" },
	{ .name = NULL },
};

/* kind = "trace" or "mahimahi": the capacity read from a file. */
static const struct cfg_key profile_file_keys[] = {
	{ .name = "kind", .type = CFG_T_CUSTOM,        /* parse_profile's */
	  .range = "\"trace\" or \"mahimahi\"", .def = "required",
	  .help = "trace: lines time_s,rate_bps, a step function from time "
		  "0; mahimahi: a Mahimahi trace, one delivery opportunity "
		  "(a full-size packet) per line, in integer ms" },
	{ .name = "file", .type = CFG_T_CUSTOM,        /* parse_profile_file's */
	  .range = "a file name, relative to this file's directory",
	  .def = "required", .help = "the trace; read once, at load time" },
	{ .name = NULL },
};

static void parse_cosine(struct loader *L, const config_setting_t *pg)
{
	struct link_profile *lp = &L->c->link;
	struct cosine_params cp;

	memset(&cp, 0, sizeof(cp));
	if (cfg_parse_keys(pg, cosine_keys, &cp, NULL, L->d))
		return;
	link_profile_free(lp);
	memset(lp, 0, sizeof(*lp));
	lp->kind = LINK_COSINE;
	lp->mean_bps = cp.mean_bps;
	lp->amplitude = cp.amplitude;
	lp->period_s = (double)cp.period_ns / (double)NS_PER_SEC;
}

/* The members any profile kind accepts: cosine's, then the file kinds'
 * not already listed, NULL-terminated into list[max]. */
static const char *const *profile_any_keys(const char **list, size_t max)
{
	const struct cfg_key *tables[] = { cosine_keys, profile_file_keys };
	size_t n = 0, t, i;
	const struct cfg_key *k;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (k = tables[t]; k->name && n + 1 < max; k++) {
			for (i = 0; i < n && strcmp(list[i], k->name); i++)
				;
			if (i == n)
				list[n++] = k->name;
		}
	list[n] = NULL;
	return list;
}

static void parse_profile(struct loader *L, const config_setting_t *pg)
{
	const char *anyb[2 * CFG_KEYS_MAX + 1];
	const char *const *any_keys = profile_any_keys(anyb, 2 * CFG_KEYS_MAX + 1);
	struct diag *d = L->d;
	const config_setting_t *s = cfg_lookup(pg, "kind");
	char kind[32];

	if (!s) {
		cfg_check_keys(pg, any_keys, d);
		cfg_report(d, pg, "kind", "missing (accepted: \"cosine\", "
			       "\"trace\", \"mahimahi\")");
		return;
	}
	if (cfg_get_string(s, kind, sizeof(kind), d) < 0) {
		cfg_check_keys(pg, any_keys, d);
		return;
	}
	if (strcmp(kind, "cosine") == 0) {
		parse_cosine(L, pg);    /* its unknown keys too */
	} else if (strcmp(kind, "trace") == 0) {
		cfg_check_table(pg, profile_file_keys, d);
		parse_profile_file(L, pg, LINK_TRACE);
	} else if (strcmp(kind, "mahimahi") == 0) {
		cfg_check_table(pg, profile_file_keys, d);
		parse_profile_file(L, pg, LINK_MAHIMAHI);
	} else {
		cfg_check_keys(pg, any_keys, d);
		cfg_report(d, s, NULL, "'%s' is not a profile kind (accepted: \"cosine\", "
		       "\"trace\", \"mahimahi\")", kind);
	}
}

/* link.rate as read, before parse_link makes it a profile. */
struct link_in {
	uint64_t rate_bps;
};

/* link: each entry is parsed on its own by parse_link, rate into a
 * struct link_in, the durations straight into struct conf, profile by
 * parse_profile. */
static const struct cfg_key link_keys[] = {
	{ .name = "rate", .type = CFG_T_RATE, .flags = CFG_F_UNLIMITED,
	  CFG_FIELD(struct link_in, rate_bps), .def = "20Mbit",
	  .help = "a constant capacity C (\"unlimited\": no pacing); or a "
		  "profile instead" },
	{ .name = "profile", .type = CFG_T_CUSTOM,
	  .range = "a group: kind = \"cosine\", \"trace\" or \"mahimahi\" "
		   "(below)",
	  .def = "none", .help = "a capacity C(t) that varies in time, "
				"instead of rate" },
	{ .name = "delay", .type = CFG_T_DURATION, .min = 0,
	  .max = MAX_DELAY_NS, CFG_FIELD(struct conf, delay_ns), .def = "0",
	  .help = "one-way propagation delay added after serialisation "
		  "(GEO: 250ms each way)" },
	{ .name = "slack", .type = CFG_T_DURATION, .min = 0,
	  .max = MAX_SLACK_NS, CFG_FIELD(struct conf, slack_ns), .def = "0",
	  .help = "one wake-up serves every departure due within this; 0: "
		  "exact per-packet departures" },
	{ .name = "spin", .type = CFG_T_DURATION, .min = 0,
	  .max = MAX_SPIN_NS, CFG_FIELD(struct conf, spin_ns), .def = "20us",
	  .help = "poll rather than sleep for a departure due sooner than "
		  "this; 0: always sleep" },
	{ .name = NULL },
};

static void parse_link(struct loader *L, const config_setting_t *g)
{
	struct conf *c = L->c;
	struct diag *d = L->d;
	const config_setting_t *rate_s = cfg_lookup(g, "rate");
	const config_setting_t *prof_s = cfg_lookup(g, "profile");
	struct link_in in;
	const char *anyb[2 * CFG_KEYS_MAX + 1];

	cfg_check_table(g, link_keys, d);
	if (cfg_parse_key(g, cfg_find_key(link_keys, "rate"), &in, d) > 0) {
		link_profile_free(&c->link);
		memset(&c->link, 0, sizeof(c->link));
		if (in.rate_bps == RATE_UNLIMITED) {
			c->link.kind = LINK_UNLIMITED;
		} else {
			c->link.kind = LINK_CONSTANT;
			c->link.rate_bps = in.rate_bps;
			c->link.mean_bps = in.rate_bps;
		}
	}
	if (prof_s) {
		if (rate_s)
			cfg_report(d, prof_s, NULL, "given together with link.rate "
			       "(accepted: either rate or profile)");
		if (config_setting_is_group(prof_s))
			parse_profile(L, prof_s);
		else
			cfg_check_keys(prof_s, profile_any_keys(anyb,
				       2 * CFG_KEYS_MAX + 1), d);
	}
	cfg_parse_key(g, cfg_find_key(link_keys, "delay"), c, d);
	cfg_parse_key(g, cfg_find_key(link_keys, "slack"), c, d);
	cfg_parse_key(g, cfg_find_key(link_keys, "spin"), c, d);
}

/* ---- classes ---- */

struct dscp_claims {
	const config_setting_t *by[NDSCP];      /* the list element */
	int cls[NDSCP];                         /* -1: not listed */
	int list_given[NCLASS];
};

static void parse_dscp_elem(struct loader *L, const config_setting_t *e,
			    int cls, struct dscp_claims *cl)
{
	char vb[128], where[256];
	long long v;

	if (cfg_int_value(e, &v) < 0 || config_setting_type(e) ==
	    CONFIG_TYPE_FLOAT) {
		cfg_report(L->d, e, NULL, "%s is not a DSCP code point (accepted: "
		       "integers 0..63)", cfg_describe(e, vb, sizeof(vb)));
		return;
	}
	if (v < 0 || v >= NDSCP) {
		cfg_report(L->d, e, NULL, "%s is out of range (accepted: 0..63)",
		       cfg_describe(e, vb, sizeof(vb)));
		return;
	}
	if (cl->by[v]) {
		cfg_report(L->d, e, NULL, "%lld is already listed at %s (accepted: "
		       "each code point in one class only)", v,
		       cfg_path(cl->by[v], where, sizeof(where)));
		return;
	}
	cl->by[v] = e;
	cl->cls[v] = cls;
}

static void parse_dscp_list(struct loader *L, const config_setting_t *s,
			    int cls, struct dscp_claims *cl)
{
	char vb[128];
	int i, n;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
		cl->list_given[cls] = 1;
		n = config_setting_length(s);
		for (i = 0; i < n; i++)
			parse_dscp_elem(L, config_setting_get_elem(s, i), cls,
					cl);
		break;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		cl->list_given[cls] = 1;
		parse_dscp_elem(L, s, cls, cl);
		break;
	default:
		cfg_report(L->d, s, NULL, "%s is not a list of code points (accepted: "
		       "[0..63, ...])", cfg_describe(s, vb, sizeof(vb)));
		break;
	}
}

/* The class groups, in class order (cls_name[]). */
static const struct cfg_key classes_keys[] = {
	{ .name = "ef", .type = CFG_T_CUSTOM, .range = "a group (below)",
	  .help = "Expedited Forwarding" },
	{ .name = "af", .type = CFG_T_CUSTOM, .range = "a group (below)",
	  .help = "Assured Forwarding" },
	{ .name = "cs0", .type = CFG_T_CUSTOM, .range = "a group (below)",
	  .help = "best effort: every code point no class lists" },
	{ .name = NULL },
};

/* One class's group; limit is read into a struct class_in, dscp by
 * parse_dscp_list. */
struct class_in {
	uint32_t limit_pkts;
};

static const struct cfg_key class_keys[] = {
	{ .name = "dscp", .type = CFG_T_CUSTOM, .range = "[0..63, ...]",
	  .def = "ef: [46, 44]; af: the twelve AFxy; cs0: the rest",
	  .help = "the code points of the class; a list given replaces the "
		  "class's defaults, which then fall to cs0 unless listed "
		  "elsewhere" },
	{ .name = "limit", .type = CFG_T_UINT, .min = 1, .max = MAX_LIMIT_PKTS,
	  CFG_FIELD(struct class_in, limit_pkts), .unit = "packets",
	  .def = "ef: 100; af, cs0: 1000",
	  .help = "the class queue's length; a packet beyond it is dropped "
		  "(class_limit)" },
	{ .name = NULL },
};

/* A given list replaces that class's defaults: defaults nobody lists any
 * more fall back to CS0; listed code points go where they are listed. */
static void parse_classes(struct loader *L, const config_setting_t *g)
{
	struct conf *c = L->c;
	struct dscp_claims cl;
	struct dscp_map def;
	struct class_in in;
	int k, cp;

	memset(&cl, 0, sizeof(cl));
	for (cp = 0; cp < NDSCP; cp++)
		cl.cls[cp] = -1;
	cfg_check_table(g, classes_keys, L->d);
	for (k = 0; k < NCLASS; k++) {
		const config_setting_t *cg, *s;

		cg = subgroup(g, cls_name[k], class_keys, L->d);
		if (!cg)
			continue;
		cfg_check_table(cg, class_keys, L->d);
		if (cfg_parse_key(cg, cfg_find_key(class_keys, "limit"), &in,
				  L->d) > 0)
			c->limit_pkts[k] = in.limit_pkts;
		s = cfg_lookup(cg, "dscp");
		if (s)
			parse_dscp_list(L, s, k, &cl);
	}

	dscp_map_default(&def);
	for (cp = 0; cp < NDSCP; cp++) {
		int dc = def.cls_of[cp];

		if (cl.cls[cp] >= 0)
			c->dscp.cls_of[cp] = (uint8_t)cl.cls[cp];
		else if (dc < NCLASS && cl.list_given[dc])
			c->dscp.cls_of[cp] = CLS_CS0;
		else
			c->dscp.cls_of[cp] = (uint8_t)dc;
	}
}

/* ---- scheduler ---- */

/* For the reference and for a `scheduler` that is not a group; the
 * members themselves are checked by sched_parse_section(). */
static const struct cfg_key scheduler_keys[] = {
	{ .name = "name", .type = CFG_T_CUSTOM,
	  .range = "a built-in scheduler's name (below)", .def = DEFAULT_SCHED,
	  .help = "the scheduler; SIGHUP may change it, queued packets move "
		  "to the new one" },
	{ .name = "<scheduler>", .type = CFG_T_CUSTOM,
	  .range = "a group (below)", .def = "the scheduler's defaults",
	  .help = "scheduler.NAME = { ... }: the parameters of scheduler "
		  "NAME; groups of other schedulers may stay in the file" },
	{ .name = NULL },
};

static void parse_scheduler(struct loader *L, const config_setting_t *g)
{
	struct sched_env env;

	conf_sched_env(L->c, &env);
	sched_parse_section(g, &L->c->sched, &env, L->c->sched_params, L->d);
}

void conf_use_sched(struct conf *c, const struct sched_ops *ops)
{
	struct sched_env env;

	c->sched = ops;
	memset(c->sched_params, 0, sizeof(c->sched_params));
	if (!ops || ops->params_size > SCHED_PARAMS_MAX)
		return;
	conf_sched_env(c, &env);
	if (ops->defaults)
		ops->defaults(c->sched_params, &env);
}

/* A file without a scheduler group still gets the default's parameters. */
static void default_scheduler(struct conf *c)
{
	conf_use_sched(c, c->sched);
}

/* ---- stats ---- */

/* 0 turns the lines off; otherwise 10 ms .. 1 h. */
static int stats_interval(const config_setting_t *s, void *params,
			  struct diag *d)
{
	char vb[128];
	uint64_t v;

	if (cfg_get_duration(s, &v, d) < 0)
		return -1;
	if (v != 0 && (v < MIN_STATS_NS || v > MAX_STATS_NS)) {
		cfg_report(d, s, NULL, "%s is out of range (accepted: 0 = off, "
			   "or 10ms..3600s)", cfg_describe(s, vb, sizeof(vb)));
		return -1;
	}
	((struct conf *)params)->stats_interval_ns = v;
	return 1;
}

static const struct cfg_key stats_keys[] = {
	{ .name = "interval", .type = CFG_T_CUSTOM, .parse = stats_interval,
	  .range = "0 = off, or 10ms..3600s", .def = "1s",
	  .help = "one JSON line per interval, counters as deltas over it" },
	{ .name = "file", .type = CFG_T_STRING,
	  CFG_FIELD(struct conf, stats_file), .def = "standard output",
	  .help = "where the lines are appended (\"-\": standard output); "
		  "a SIGHUP that changes it opens the new file" },
	{ .name = "packet_log", .type = CFG_T_STRING,
	  CFG_FIELD(struct conf, packet_log), .def = "off",
	  .help = "a CSV file of one line per packet event (enq, dep, drop, "
		  "arr: docs/pktlog.md), truncated at start; changing it "
		  "needs a restart" },
	{ .name = NULL },
};

/* ---- entry points ------------------------------------------------------- */

/* Defaults of DESIGN §2: tun0, mtu 1400, 0.0.0.0:5000, 16384 buffers,
 * constant 20Mbit, no delay, default DSCP map, limits 100/1000/1000, prio,
 * stats every second to stdout. */
void conf_defaults(struct conf *c)
{
	int k;

	memset(c, 0, sizeof(*c));
	snprintf(c->tun_name, sizeof(c->tun_name), "%s", DEFAULT_TUN);
	c->mtu_bytes = DEFAULT_MTU;
	set_wildcard(&c->listen, AF_INET, DEFAULT_PORT);
	c->pool_pkts = DEFAULT_POOL;
	c->offload = 1;
	c->tun_gro = 1;
	c->realtime_prio = 0;
	c->key_grace_ns = DEFAULT_KEY_GRACE_NS;
	c->sandbox = CONF_SANDBOX_ON;
	c->link.kind = LINK_CONSTANT;
	c->link.rate_bps = DEFAULT_RATE_BPS;
	c->link.mean_bps = DEFAULT_RATE_BPS;
	c->delay_ns = 0;
	c->slack_ns = 0;
	c->spin_ns = DEFAULT_SPIN_NS;
	dscp_map_default(&c->dscp);
	for (k = 0; k < NCLASS; k++)
		c->limit_pkts[k] = default_limit_pkts[k];
	c->sched = sched_lookup(DEFAULT_SCHED);
	default_scheduler(c);
	c->stats_interval_ns = NS_PER_SEC;
	c->stats_file[0] = '\0';
	conf_marker_defaults(&c->marker);
}

/* Reports the file's own problems (cannot read, syntax) in the same shape
 * as key errors; returns nonzero when there is nothing to walk. */
static int read_file(config_t *cfg, const char *path, struct diag *d)
{
	const char *saved = d->file, *ef, *dir;
	char efbuf[CONF_PATH_MAX + 64];
	struct stat st;
	FILE *f = fopen(path, "r");

	if (!f) {
		diag_error(d, 0, NULL, "cannot read: %s", strerror(errno));
		return -1;
	}
	/* fopen() accepts a directory; libconfig then only says "I/O" */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		diag_error(d, 0, NULL, "cannot read: %s", strerror(EISDIR));
		return -1;
	}
	fclose(f);
	if (conf_check_includes(path, config_get_include_dir(cfg), d) > 0)
		return -1;
	if (config_read_file(cfg, path) == CONFIG_TRUE)
		return 0;
	if (config_error_type(cfg) == CONFIG_ERR_FILE_IO) {
		diag_error(d, 0, NULL, "cannot read: %s", strerror(EIO));
		return -1;
	}
	ef = config_error_file(cfg);
	dir = config_get_include_dir(cfg);
	if (ef && strcmp(ef, path) != 0) {
		/* the error is in an @include'd file, named as written */
		if (ef[0] != '/' && dir && dir[0])
			snprintf(efbuf, sizeof(efbuf), "%s/%s", dir, ef);
		else
			snprintf(efbuf, sizeof(efbuf), "%s", ef);
		d->file = efbuf;
	}
	diag_error(d, config_error_line(cfg), NULL, "%s",
		   config_error_text(cfg));
	d->file = saved;
	return -1;
}

/* The file's sections, in the order conf_load() reads them. */
static const struct cfg_key root_keys[] = {
	{ .name = "tunnel", .type = CFG_T_CUSTOM, .range = "a group",
	  .help = "the tun device and the UDP underlay" },
	{ .name = "link", .type = CFG_T_CUSTOM, .range = "a group",
	  .help = "the emulated link: capacity and delay" },
	{ .name = "classes", .type = CFG_T_CUSTOM, .range = "a group",
	  .help = "the DSCP classes EF, AF, CS0 and their queue limits" },
	{ .name = "scheduler", .type = CFG_T_CUSTOM, .range = "a group",
	  .help = "which scheduler, and its parameters" },
	{ .name = "stats", .type = CFG_T_CUSTOM, .range = "a group",
	  .help = "the statistics lines" },
	{ .name = "marker", .type = CFG_T_CUSTOM, .range = "a group",
	  .help = "the edge marker: each flow of a class metered (RFC 2859 "
		  "TSW), its packets above the profile re-marked to a lower "
		  "class" },
	{ .name = NULL },
};

/* Loads and checks the whole file; see conf.h.  The order of the sections
 * matters only for the scheduler, whose defaults depend on the link rate,
 * the MTU and the class limits.  With w, a valid file's effective values
 * are written into it before the settings are released. */
static int load(const char *path, struct conf *c, struct diag *d,
		struct jw *w)
{
	struct diag local;
	struct loader L;
	config_t cfg;
	const config_setting_t *root, *g;
	const char *slash;
	int start;

	if (!d) {
		diag_init(&local, NULL, path);
		d = &local;
	}
	start = d->nerr;
	conf_defaults(c);
	memset(&L, 0, sizeof(L));
	L.c = c;
	L.d = d;

	if (!path || strlen(path) >= sizeof(c->path)) {
		diag_error(d, 0, NULL, "file name too long (accepted: at most "
			   "%d characters)", CONF_PATH_MAX - 1);
		return d->nerr - start;
	}
	memcpy(c->path, path, strlen(path) + 1);
	slash = strrchr(path, '/');
	if (slash == path)
		snprintf(L.dir, sizeof(L.dir), "/");
	else if (slash)
		snprintf(L.dir, sizeof(L.dir), "%.*s", (int)(slash - path),
			 path);

	config_init(&cfg);
	if (L.dir[0])
		config_set_include_dir(&cfg, L.dir);
	if (read_file(&cfg, path, d) < 0) {
		config_destroy(&cfg);
		conf_free(c);
		return d->nerr - start;
	}
	root = config_root_setting(&cfg);
	cfg_check_table(root, root_keys, d);

	g = cfg_lookup(root, "tunnel");
	cfg_parse_keys(g, tunnel_keys, c, NULL, d);
	conf_ids_check(c, g, d);
	g = subgroup(root, "link", link_keys, d);
	if (g)
		parse_link(&L, g);
	g = subgroup(root, "classes", classes_keys, d);
	if (g)
		parse_classes(&L, g);
	g = subgroup(root, "scheduler", scheduler_keys, d);
	if (g)
		parse_scheduler(&L, g);
	else    /* the link or limits may differ from conf_defaults()'s */
		default_scheduler(c);
	if (!c->sched && d->nerr == start) {
		char list[512];

		diag_error(d, 0, "scheduler.name", "'%s' is not built in "
			   "(accepted: %s)", DEFAULT_SCHED,
			   sched_names(list, sizeof(list)));
	}
	cfg_parse_keys(cfg_lookup(root, "stats"), stats_keys, c, NULL, d);
	conf_parse_marker(cfg_lookup(root, "marker"), c, d);

	if (w && d->nerr == start)
		conf_json_write(w, c, root);
	config_destroy(&cfg);
	if (d->nerr > start)
		conf_free(c);
	return d->nerr - start;
}

int conf_load(const char *path, struct conf *c, struct diag *d)
{
	return load(path, c, d, NULL);
}

int conf_load_json(const char *path, struct conf *c, struct diag *d,
		   struct jw *w)
{
	return load(path, c, d, w);
}

/* ---- the reference -------------------------------------------------------- */

/* A section's heading: "tunnel: the tun device ..." for a terminal, a
 * Markdown heading, or "@section<TAB>NAME<TAB>TITLE" for the man pages'
 * generator. */
static void ref_section(FILE *f, enum cfg_ref_fmt fmt, const char *name,
			const char *title)
{
	if (fmt == CFG_REF_TSV)
		fprintf(f, "@section\t%s\t%s\n", name, title);
	else if (fmt == CFG_REF_MD)
		fprintf(f, "\n### `%s`: %s\n\n", name, title);
	else
		fprintf(f, "\n%s: %s\n", name, title);
}

/* One section of the reference: its heading and its keys (ops: a
 * scheduler's section, whose keys the registry prints). */
struct ref_sec {
	const char *name, *title, *prefix;
	const struct cfg_key *keys;
	const struct sched_ops *ops;
};

typedef void (*ref_visit_fn)(const struct ref_sec *sec, void *ctx);

/* The title of section `name` of the file: its help in root_keys. */
static const char *section_help(const char *name)
{
	return cfg_find_key(root_keys, name)->help;
}

/* Hands visit() the section of table `keys`. */
static void ref_visit(ref_visit_fn visit, void *ctx, const char *name,
		      const char *title, const char *prefix,
		      const struct cfg_key *keys)
{
	struct ref_sec sec = { .name = name, .title = title, .prefix = prefix,
			       .keys = keys };

	visit(&sec, ctx);
}

/* Every section the file accepts, from the tables that parse them: the
 * file's sections (root_keys' order), then each scheduler's when
 * `schedulers`, then stats. */
static void ref_walk(int schedulers, ref_visit_fn visit, void *ctx)
{
	struct cfg_key sched_keys[sizeof(scheduler_keys) /
				  sizeof(scheduler_keys[0])];
	char names[512], title[256], name[64];
	struct ref_sec sec;
	struct cfg_key *k;
	int i;

	ref_visit(visit, ctx, "(top level)", "the file's sections", NULL,
		  root_keys);
	ref_visit(visit, ctx, "tunnel", section_help("tunnel"), "tunnel",
		  tunnel_keys);
	ref_visit(visit, ctx, "link", section_help("link"), "link",
		  link_keys);
	ref_visit(visit, ctx, "link.profile", "kind = \"cosine\"",
		  "link.profile", cosine_keys);
	ref_visit(visit, ctx, "link.profile", "kind = \"trace\" or "
		  "\"mahimahi\"", "link.profile", profile_file_keys);
	ref_visit(visit, ctx, "classes", section_help("classes"), "classes",
		  classes_keys);
	ref_visit(visit, ctx, "classes.<class>", "each of ef, af and cs0",
		  "classes.<class>", class_keys);
	/* name's range is the registry, known only at run time */
	memcpy(sched_keys, scheduler_keys, sizeof(sched_keys));
	snprintf(title, sizeof(title), "%s", sched_names(names, sizeof(names)));
	for (k = sched_keys; k->name; k++)
		if (strcmp(k->name, "name") == 0)
			k->range = title;
	ref_visit(visit, ctx, "scheduler", section_help("scheduler"),
		  "scheduler", sched_keys);
	for (i = 0; schedulers && sched_registry[i]; i++) {
		snprintf(name, sizeof(name), "scheduler.%s",
			 sched_registry[i]->name);
		sec = (struct ref_sec){ .name = name,
			.title = sched_registry[i]->summary, .prefix = name,
			.keys = sched_registry[i]->keys,
			.ops = sched_registry[i] };
		visit(&sec, ctx);
	}
	ref_visit(visit, ctx, "stats", section_help("stats"), "stats",
		  stats_keys);
	ref_visit(visit, ctx, "marker", section_help("marker"), "marker",
		  marker_keys);
	ref_visit(visit, ctx, "marker.<class>", "each of ef and af",
		  "marker.<class>", marker_cls_keys);
}

struct ref_print {
	FILE *f;
	enum cfg_ref_fmt fmt;
};

static void ref_print_sec(const struct ref_sec *sec, void *ctx)
{
	const struct ref_print *rp = ctx;

	ref_section(rp->f, rp->fmt, sec->name, sec->title);
	if (sec->ops)
		sched_print_keys(rp->f, sec->ops, rp->fmt);
	else
		cfg_print_keys(rp->f, sec->prefix, sec->keys, rp->fmt);
}

/* See conf.h. */
void conf_print_reference(FILE *f, enum cfg_ref_fmt fmt, int schedulers)
{
	struct ref_print rp = { .f = f, .fmt = fmt };

	ref_walk(schedulers, ref_print_sec, &rp);
}

/* A section as an element of the array open in w. */
static void ref_json_sec(const struct ref_sec *sec, void *ctx)
{
	struct jw *w = ctx;

	jw_obj_begin(w, NULL);
	jw_str(w, "section", sec->name);
	jw_str(w, "title", sec->title);
	jw_arr_begin(w, "keys");
	cfg_json_reference(w, sec->prefix, sec->keys);
	jw_arr_end(w);
	jw_obj_end(w);
}

/* See conf.h. */
void conf_json_reference(struct jw *w)
{
	jw_arr_begin(w, "sections");
	ref_walk(1, ref_json_sec, w);
	jw_arr_end(w);
}

/* Safe on a conf from conf_defaults() and after a failed conf_load(). */
void conf_free(struct conf *c)
{
	link_profile_free(&c->link);
	auth_key_wipe(&c->key);
}

/* capacity_bps is 0 for an unlimited link: nothing to take a share of. */
void conf_sched_env(const struct conf *c, struct sched_env *env)
{
	int k;

	memset(env, 0, sizeof(*env));
	env->capacity_bps = c->link.kind == LINK_UNLIMITED ? 0 :
			    link_mean_bps(&c->link);
	env->mtu_bytes = c->mtu_bytes;
	for (k = 0; k < NCLASS; k++)
		env->limit_pkts[k] = c->limit_pkts[k];
	env->drop = NULL;
	env->owner = NULL;
	env->trace = NULL;
}
