/* confjson.c - the effective configuration as JSON (schedtun --check
 * --json; docs/configuration.md "Machine-readable check").
 *
 * One member per section, one per key under the key's name in the file,
 * values in the units struct conf holds (bit/s, ns, bytes), defaults
 * filled in.  Keys a scheduler parses itself (CFG_T_CUSTOM: its private
 * struct is not ours to read) are written as the file gives them, or null
 * when absent.  tests/unit/test_json_cli.py checks that every key of
 * --help-conf-tsv appears here.
 */
#include <arpa/inet.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conf/conf.h"
#include "util/jw.h"
#include "util/units.h"
#include "confjson.h"
#include "confmark.h"

/* "A.B.C.D:PORT" or "[IPv6]:PORT", as the file writes an endpoint. */
static void json_endpoint(struct jw *w, const char *key,
			  const struct conf_addr *a)
{
	char host[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 16];

	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)&a->ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(buf, sizeof(buf), "[%s]:%u", host,
			 ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const void *)&a->ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(buf, sizeof(buf), "%s:%u", host, ntohs(s4->sin_port));
	}
	jw_str(w, key, buf);
}

static void json_tunnel(struct jw *w, const struct conf *c)
{
	char host[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 8];

	jw_obj_begin(w, "tunnel");
	jw_str(w, "tun", c->tun_name);
	if (c->has_address) {
		inet_ntop(c->addr_family, c->addr, host, sizeof(host));
		snprintf(buf, sizeof(buf), "%s/%u", host, c->addr_prefix);
		jw_str(w, "address", buf);
	} else {
		jw_null(w, "address");
	}
	jw_u64(w, "mtu", c->mtu_bytes);
	json_endpoint(w, "listen", &c->listen);
	if (c->has_peer)
		json_endpoint(w, "peer", &c->peer);
	else
		jw_null(w, "peer");
	jw_u64(w, "pool", c->pool_pkts);
	jw_bool(w, "offload", c->offload);
	jw_bool(w, "tun_gro", c->tun_gro);
	jw_u64(w, "realtime", c->realtime_prio);
	if (c->n_allow) {
		jw_arr_begin(w, "allow");
		for (uint32_t i = 0; i < c->n_allow; i++) {
			inet_ntop(c->allow[i].family, c->allow[i].addr, host,
				  sizeof(host));
			snprintf(buf, sizeof(buf), "%s/%u", host, c->allow[i].len);
			jw_str(w, NULL, buf);
		}
		jw_arr_end(w);
	} else {
		jw_null(w, "allow");
	}
	/* the file's path, never the key */
	if (c->has_key)
		jw_str(w, "key_file", c->key_file);
	else
		jw_null(w, "key_file");
	jw_bool(w, "encrypt", c->encrypt);
	jw_u64(w, "key_grace", c->key_grace_ns);
	if (c->has_user)
		jw_str(w, "user", c->user);
	else
		jw_null(w, "user");
	if (c->group[0])
		jw_str(w, "group", c->group);
	else
		jw_null(w, "group");
	if (c->sandbox == CONF_SANDBOX_LOG)
		jw_str(w, "sandbox", "log");
	else
		jw_bool(w, "sandbox", c->sandbox == CONF_SANDBOX_ON);
	jw_obj_end(w);
}

/* rate: bit/s, "unlimited", or null with a profile; profile: null or the
 * keys of its kind. */
static void json_link(struct jw *w, const struct conf *c)
{
	const struct link_profile *lp = &c->link;

	jw_obj_begin(w, "link");
	if (lp->kind == LINK_UNLIMITED)
		cfg_json_rate(w, "rate", RATE_UNLIMITED);
	else if (lp->kind == LINK_CONSTANT)
		jw_u64(w, "rate", lp->rate_bps);
	else
		jw_null(w, "rate");
	if (lp->kind == LINK_COSINE) {
		jw_obj_begin(w, "profile");
		jw_str(w, "kind", "cosine");
		jw_u64(w, "mean", lp->mean_bps);
		jw_real(w, "amplitude", lp->amplitude);
		/* conf.c divided the parsed ns by 1e9: this undoes it exactly
		 * for any period up to the 86400 s the file accepts */
		jw_u64(w, "period", (uint64_t)llround(lp->period_s *
						      (double)NS_PER_SEC));
		jw_obj_end(w);
	} else if (lp->kind == LINK_TRACE || lp->kind == LINK_MAHIMAHI) {
		jw_obj_begin(w, "profile");
		jw_str(w, "kind", link_kind_name[lp->kind]);
		jw_str(w, "file", lp->source);
		jw_obj_end(w);
	} else {
		jw_null(w, "profile");
	}
	jw_u64(w, "delay", c->delay_ns);
	jw_u64(w, "slack", c->slack_ns);
	jw_u64(w, "spin", c->spin_ns);
	jw_obj_end(w);
}

/* Each class's code points in ascending order and its limit. */
static void json_classes(struct jw *w, const struct conf *c)
{
	int k, cp;

	jw_obj_begin(w, "classes");
	for (k = 0; k < NCLASS; k++) {
		jw_obj_begin(w, cls_name[k]);
		jw_arr_begin(w, "dscp");
		for (cp = 0; cp < 64; cp++)
			if (c->dscp.cls_of[cp] == k)
				jw_u64(w, NULL, (uint64_t)cp);
		jw_arr_end(w);
		jw_u64(w, "limit", c->limit_pkts[k]);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/* A scheduler key the scheduler parses itself: as written, or null. */
static void json_sched_custom(struct jw *w, const struct cfg_key *k,
			      void *ctx)
{
	const config_setting_t *s = cfg_lookup(ctx, k->name);

	if (s)
		cfg_json_setting(w, k->name, s);
	else
		jw_null(w, k->name);
}

static void json_scheduler(struct jw *w, const struct conf *c,
			   const config_setting_t *root)
{
	const config_setting_t *g = cfg_lookup(cfg_lookup(root, "scheduler"),
					       c->sched->name);

	jw_obj_begin(w, "scheduler");
	jw_str(w, "name", c->sched->name);
	jw_obj_begin(w, c->sched->name);
	cfg_json_values(w, c->sched->keys, c->sched_params, json_sched_custom,
			(void *)g);
	jw_obj_end(w);
	jw_obj_end(w);
}

void conf_json_write(struct jw *w, const struct conf *c,
		     const config_setting_t *root)
{
	jw_obj_begin(w, "conf");
	json_tunnel(w, c);
	json_link(w, c);
	json_classes(w, c);
	json_scheduler(w, c, root);
	jw_obj_begin(w, "stats");
	jw_u64(w, "interval", c->stats_interval_ns);
	/* "" and "-" both mean standard output: one spelling for both */
	jw_str(w, "file", c->stats_file[0] ? c->stats_file : "-");
	jw_str(w, "packet_log", c->packet_log);
	jw_obj_end(w);
	conf_marker_json(w, c);
	jw_obj_end(w);
}
