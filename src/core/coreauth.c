/* coreauth.c - the authenticated tunnel in the core (tunnel.key_file;
 * sec/auth.h has the wire format and the rules, docs/security.md the
 * operator's view): the state's life, sealing on send, opening on
 * receive, the re-key on SIGHUP and the stats line's "auth" object.
 *
 * Both daemons of a pair must run the same version: a keyed daemon drops
 * every version 1 datagram (rx_unauth) and an unkeyed one every version 2
 * datagram (rx_keyed).  There is no negotiation on purpose: a daemon that
 * fell back to version 1 when its peer did would let an attacker on the
 * underlay switch authentication off by sending version 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coreauth.h"
#include "corelog.h"
#include "util/log.h"

_Static_assert(TUN_HDR_V2_BYTES == AUTH_HDR_BYTES &&
	       TUN_TAG_BYTES == AUTH_TAG_BYTES &&
	       TUN_VERSION_AUTH == AUTH_VERSION,
	       "pkt/tunnel.h frames the datagrams sec/auth.h seals");

int core_auth_init(struct core *c)
{
	c->lay = tun_layout_v1;
	warn_once_init(&c->warn_unauth, "receive: the peer sends version 1 "
		       "(no key); set the same tunnel.key_file on both daemons",
		       "dropped, counted in drops.rx_unauth");
	warn_once_init(&c->warn_keyed, "receive: the peer sends version 2 "
		       "(authenticated) and this daemon has no tunnel.key_file",
		       "dropped, counted in drops.rx_keyed");
	warn_once_init(&c->warn_bad_auth, "receive: datagrams of the peer's "
		       "address that no accepted key verifies (a different "
		       "key, or forged)", "dropped, counted in drops.rx_bad_auth");
	warn_once_init(&c->warn_stale, "receive: a session of the peer older "
		       "than the one followed (a replay, or the peer restarted "
		       "with its clock stepped back: then restart this daemon too)",
		       "dropped, counted in drops.rx_stale_session");
	/* 2^64 - 8192 datagrams in one session: centuries at any rate, so
	 * a restart (a new session) is the remedy. */
	warn_once_init(&c->warn_tx_limit, "send: this session's datagram "
		       "counter is used up; restart the daemon (a new session)",
		       "not sent, counted in drops.tx_counter_limit");
	if (!c->conf.has_key)
		return 0;
	/* Not on the packet path: once per start. */
	c->auth = malloc(sizeof(*c->auth));
	if (!c->auth) {
		log_err("tunnel.key_file: out of memory for the tunnel's state");
		return -1;
	}
	if (auth_init(c->auth, &c->conf.key, c->conf.encrypt,
		      c->io.session_epoch_ns, c->io.session_salt)) {
		log_err("tunnel.key_file: libsodium cannot initialise");
		free(c->auth);
		c->auth = NULL;
		return -1;
	}
	c->lay = tun_layout_v2;
	return 0;
}

void core_auth_destroy(struct core *c)
{
	if (c->auth) {
		auth_wipe(c->auth);
		free(c->auth);
		c->auth = NULL;
	}
}

int core_auth_seal(struct core *c, struct pkt *p, tstamp_ns now)
{
	if (!auth_seal(c->auth, p->data - TUN_HDR_V2_BYTES, p->len_bytes, now)) {
		c->st.tx_counter_limit++;
		core_log(c, PLOG_DROP, p, NULL, "tx_counter_limit");
		warn_once_fail(&c->warn_tx_limit, 0, now);
		pkt_free(p);
		return -1;
	}
	return 0;
}

int core_auth_version(struct core *c, const struct tun_hdr *h,
		      size_t dgram_len, tstamp_ns now)
{
	if (c->auth && h->version != TUN_VERSION_AUTH) {
		c->st.rx_unauth++;
		core_log_drop_bare(c, h->cls, (uint32_t)dgram_len, NULL, "rx_unauth");
		warn_once_fail(&c->warn_unauth, 0, now);
		return -1;
	}
	if (!c->auth && h->version != TUN_VERSION) {
		c->st.rx_keyed++;
		core_log_drop_bare(c, h->cls, (uint32_t)dgram_len, NULL, "rx_keyed");
		warn_once_fail(&c->warn_keyed, 0, now);
		return -1;
	}
	return 0;
}

int core_auth_open(struct core *c, uint8_t *dg, size_t dgram_len,
		   const struct tun_hdr *h, tstamp_ns now)
{
	enum auth_verdict v = auth_open(c->auth, dg, dgram_len, now);

	if (v == AUTH_OK)
		return 0;
	/* tun_hdr_decode() refused every datagram too short for a header
	 * and a tag; should one reach here, it is counted as such. */
	if (v == AUTH_SHORT) {
		c->st.rx_bad[TUN_SHORT]++;
		core_log_drop_bare(c, h->cls, (uint32_t)dgram_len, "rx_",
				   tun_verdict_name[TUN_SHORT]);
		return -1;
	}
	c->st.rx_auth[v]++;
	core_log_drop_bare(c, h->cls, (uint32_t)dgram_len, "rx_",
			   auth_verdict_name[v]);
	if (v == AUTH_BAD_TAG)
		warn_once_fail(&c->warn_bad_auth, 0, now);
	else if (v == AUTH_STALE_SESSION)
		warn_once_fail(&c->warn_stale, 0, now);
	return -1;
}

void core_auth_reconfigure(struct core *c, struct conf *n, tstamp_ns now)
{
	if (n->has_key != c->conf.has_key || n->encrypt != c->conf.encrypt) {
		log_warn("reload: tunnel.key_file or tunnel.encrypt %s; both "
			 "daemons need a restart for that; kept the running %s",
			 n->has_key != c->conf.has_key ?
			 (n->has_key ? "added" : "removed") : "changed",
			 c->conf.has_key ? "key" : "unauthenticated tunnel");
		n->has_key = c->conf.has_key;
		n->encrypt = c->conf.encrypt;
		n->key = c->conf.key;
		memcpy(n->key_file, c->conf.key_file, sizeof(n->key_file));
		return;
	}
	if (!c->auth || !memcmp(&n->key, &c->conf.key, sizeof(n->key)))
		return;
	auth_rekey(c->auth, &n->key, now, n->key_grace_ns);
	log_info("reload: a new key from %s; the previous one stays accepted "
		 "for %.0f s (tunnel.key_grace): re-key the peer within it",
		 n->key_file, (double)n->key_grace_ns / 1e9);
}

void core_auth_gauges(struct core *c, struct stats_gauges *g)
{
	const struct auth *a = c->auth;

	if (!a)
		return;
	g->auth_on = 1;
	g->auth_sessions = a->rx_sessions - c->auth_prev[0];
	g->auth_prev_key = a->rx_prev_key - c->auth_prev[1];
	g->auth_switches = a->tx_switches - c->auth_prev[2];
	g->auth_late_max = a->win.late_max;
	g->auth_rekey_pending = !a->tx_cur;
	c->auth_prev[0] = a->rx_sessions;
	c->auth_prev[1] = a->rx_prev_key;
	c->auth_prev[2] = a->tx_switches;
}

void core_auth_warn_poll(struct core *c, tstamp_ns now)
{
	warn_once_poll(&c->warn_unauth, now);
	warn_once_poll(&c->warn_keyed, now);
	warn_once_poll(&c->warn_bad_auth, now);
	warn_once_poll(&c->warn_stale, now);
	warn_once_poll(&c->warn_tx_limit, now);
}
