/* core.c - classify, schedule, pace, delay, encapsulate; and the reverse
 * path from the underlay to the tun (see core.h). */
#include <errno.h>
#include <string.h>
#include "core/core.h"
#include "coreauth.h"
#include "corelog.h"
#include "pkt/classify.h"
#include "pkt/tunnel.h"
#include "util/log.h"

/* The scheduler's drop callback: the packet was counted in the class queue
 * when it was handed to the scheduler, so it leaves the queue here. */
static void core_sched_drop(void *owner, struct pkt *p, enum drop_reason why)
{
	struct core *c = owner;
	unsigned k = p->cls < NCLASS ? p->cls : CLS_CS0;

	if (why >= DROP_REASON_MAX)
		why = DROP_SCHED_LIMIT;
	c->qlen_pkts[k]--;
	c->qlen_bytes[k] -= p->len_bytes;
	c->st.cls[k].drop_pkts++;
	c->st.cls[k].drop_bytes += p->len_bytes;
	c->st.sched_drop[why]++;
	core_log(c, PLOG_DROP, p, NULL, drop_reason_name[why]);
	pkt_free(p);
}

static void core_make_env(struct core *c, const struct conf *conf,
			  struct sched_env *env)
{
	conf_sched_env(conf, env);
	env->drop = core_sched_drop;
	env->owner = c;
	env->trace = NULL;
}

int core_init(struct core *c, struct conf *conf, const struct core_io *io,
	      tstamp_ns now)
{
	memset(c, 0, sizeof(*c));
	c->conf = *conf;
	memset(conf, 0, sizeof(*conf));
	c->io = *io;
	c->start_ns = now;
	stats_init(&c->st);
	if (core_auth_init(c)) {
		conf_free(&c->conf);
		return -1;
	}
	core_make_env(c, &c->conf, &c->env);
	if (sched_create(&c->sched, c->conf.sched, c->conf.sched_params, &c->env)) {
		log_err("scheduler %s: initialisation failed", c->conf.sched->name);
		memset(&c->sched, 0, sizeof(c->sched));
		core_auth_destroy(c);
		conf_free(&c->conf);
		return -1;
	}
	c->mark_on = marker_params_on(&c->conf.marker);
	if (c->mark_on && marker_init(&c->mark, &c->conf.marker, now)) {
		log_err("marker: %u + %u flow meters: out of memory",
			c->conf.marker.cls[CLS_EF].flows, c->conf.marker.cls[CLS_AF].flows);
		sched_destroy(&c->sched);
		memset(&c->sched, 0, sizeof(c->sched));
		core_auth_destroy(c);
		conf_free(&c->conf);
		return -1;
	}
	/* The link's time origin is the daemon's start (cosine phase, trace t=0). */
	pacer_init(&c->pacer, &c->conf.link, 0);
	delayline_init(&c->dl, c->conf.delay_ns);
	if (c->conf.has_peer) {
		c->peer = c->conf.peer;
		c->peer_known = 1;
	}
	core_warn_init(c);
	return 0;
}

void core_destroy(struct core *c)
{
	if (c->mark_on)
		marker_destroy(&c->mark);
	c->mark_on = 0;
	sched_destroy(&c->sched);
	pktq_purge(&c->dl.q);
	core_auth_destroy(c);
	conf_free(&c->conf);
}

static void core_class_drop(struct core *c, struct pkt *p, enum drop_reason why)
{
	c->st.cls[p->cls].drop_pkts++;
	c->st.cls[p->cls].drop_bytes += p->len_bytes;
	c->st.sched_drop[why]++;
	core_log(c, PLOG_DROP, p, NULL, drop_reason_name[why]);
	pkt_free(p);
}

static uint32_t core_qlen_total(const struct core *c)
{
	return c->qlen_pkts[0] + c->qlen_pkts[1] + c->qlen_pkts[2];
}

void core_tun_input(struct core *c, struct pkt *p, tstamp_ns now)
{
	struct ip_info ii;
	enum ip_verdict v = ip_inspect(p->data, p->len_bytes, &ii);
	unsigned k;

	c->now_ns = now;
	if (v != IP_OK) {
		c->st.tun_bad[v]++;
		core_log_drop_bare(c, PLOG_NO_CLASS, p->len_bytes, "tun_",
				   ip_verdict_name[v]);
		pkt_free(p);
		return;
	}
	k = c->conf.dscp.cls_of[ii.dscp];
	p->cls = (uint8_t)k;
	p->dscp = ii.dscp;
	p->flow_hash = ii.flow_hash;
	if (c->mark_on) {
		/* counted, limited and queued in the class it is marked into */
		marker_mark(&c->mark, p, now);
		k = p->cls;
	}
	c->st.cls[k].in_pkts++;
	c->st.cls[k].in_bytes += p->len_bytes;
	if (c->qlen_pkts[k] >= c->conf.limit_pkts[k]) {
		core_class_drop(c, p, DROP_CLASS_LIMIT);
		return;
	}
	p->enq_ns = now;
	if (!core_qlen_total(c))
		c->backlog_since_ns = now;
	c->qlen_pkts[k]++;
	c->qlen_bytes[k] += p->len_bytes;
	core_log(c, PLOG_ENQ, p, NULL, NULL);
	sched_enqueue(&c->sched, p, now);
}

static int addr_equal(const struct conf_addr *a, const struct sockaddr *b,
		      socklen_t blen)
{
	const struct sockaddr *sa = (const struct sockaddr *)&a->ss;

	if (sa->sa_family != b->sa_family)
		return 0;
	if (sa->sa_family == AF_INET && blen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *x = (const void *)sa, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (sa->sa_family == AF_INET6 && blen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *x = (const void *)sa, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
	return 0;
}

void core_tun_write_failed(struct core *c, uint32_t pkts, int err, tstamp_ns now)
{
	c->now_ns = now;
	c->st.tun_write_error += pkts;
	/* Coalesced writes (tunwrite.c) no longer have the packets: the
	 * records name only the reason (their arrivals were logged). */
	for (uint32_t i = 0; c->plog && i < pkts; i++)
		core_log_drop_bare(c, PLOG_NO_CLASS, 0, NULL, "tun_write_error");
	warn_once_fail(&c->warn_tun_write, -err, now);
}

void core_udp_input(struct core *c, struct pkt *p, size_t dgram_len,
		    const struct sockaddr *src, socklen_t srclen, tstamp_ns now)
{
	uint8_t *dg = p->data - c->lay.hdr_bytes;
	struct tun_hdr h;
	struct ip_info ii;
	enum tun_verdict tv;
	enum ip_verdict iv;
	uint64_t rx_real_ns;
	int64_t owd_ns;
	int err;

	c->now_ns = now;
	tv = tun_hdr_decode(dg, dgram_len, c->conf.mtu_bytes, &h);
	if (tv != TUN_OK) {
		c->st.rx_bad[tv]++;
		core_log_drop_bare(c, PLOG_NO_CLASS, (uint32_t)dgram_len, "rx_",
				   tun_verdict_name[tv]);
		goto out;
	}
	if (core_auth_version(c, &h, dgram_len, now))
		goto out;
	if (!c->peer_known && !conf_allows(&c->conf, src, srclen)) {
		c->st.rx_not_allowed++;
		core_log_drop_bare(c, h.cls, h.len_bytes, NULL, "rx_not_allowed");
		goto out;
	}
	if (c->peer_known && !addr_equal(&c->peer, src, srclen)) {
		c->st.rx_unknown_peer++;
		core_log_drop_bare(c, h.cls, h.len_bytes, NULL, "rx_unknown_peer");
		goto out;
	}
	/* After the cheap checks, so that junk costs no MAC; before the
	 * inner packet is read, which may be encrypted. */
	if (c->auth && core_auth_open(c, dg, dgram_len, &h, now))
		goto out;
	iv = ip_inspect(p->data, h.len_bytes, &ii);
	if (iv != IP_OK) {
		c->st.rx_inner_bad[iv]++;
		core_log_drop_bare(c, h.cls, h.len_bytes, "rx_inner_",
				   ip_verdict_name[iv]);
		goto out;
	}
	if (!c->peer_known && srclen <= sizeof(c->peer.ss)) {
		/* Pin only a sender whose datagram passed every check (with
		 * a key: an authentic one), so garbage cannot capture the
		 * tunnel. */
		memcpy(&c->peer.ss, src, srclen);
		c->peer.len = srclen;
		c->peer_known = 1;
		log_info("pinned the peer that sent the first valid datagram");
	}
	stats_rx_seq(&c->st.rx[h.cls], h.seq);
	c->st.rx[h.cls].pkts++;
	c->st.rx[h.cls].bytes += h.len_bytes;
	/* tx_ns is the peer's word, any 64-bit value: compared unsigned, so
	 * a timestamp from the future (or garbage) gives 0, never a signed
	 * overflow. */
	rx_real_ns = (uint64_t)((int64_t)now + c->real_minus_mono_ns);
	owd_ns = rx_real_ns > h.tx_ns ? (int64_t)(rx_real_ns - h.tx_ns) : 0;
	hist_add(&c->st.rx[h.cls].owd, (uint64_t)owd_ns);
	if (c->plog)
		core_log_arr(c, p, h.cls, h.len_bytes, h.seq, owd_ns);
	err = c->io.tun_write(c->io.ctx, p->data, h.len_bytes);
	if (err)
		core_tun_write_failed(c, 1, err, now);
out:
	pkt_free(p);
}

/* Builds p's datagram around it (in its head- and tailroom): the tunnel
 * header with the next sequence number of its class, and with a key the
 * seal.  0, or -1 when p could not be sealed (counted and freed). */
static int core_encap(struct core *c, struct pkt *p, tstamp_ns now)
{
	struct tun_hdr h = {
		.cls = p->cls,
		.len_bytes = (uint16_t)p->len_bytes,
		.flags = 0,
		.seq = p->seq = c->tx_seq[p->cls]++,
		/* Stamped with the time the packet entered this daemon, so
		 * the receiver's owd covers queueing, serialisation and
		 * propagation: the app's view. */
		.tx_ns = (uint64_t)((int64_t)p->enq_ns + c->real_minus_mono_ns),
	};

	tun_hdr_encode(p->data - c->lay.hdr_bytes, &h);
	if (c->auth && core_auth_seal(c, p, now))
		return -1;
	p->encap = 1;
	return 0;
}

/* A packet left (or was lost by the socket with err != 0): account, free. */
static void core_sent(struct core *c, struct pkt *p, int err, tstamp_ns now)
{
	hist_add(&c->st.late, now > p->depart_ns ? now - p->depart_ns
						 : p->depart_ns - now);
	if (err) {
		c->st.send_error++;
		warn_once_fail(&c->warn_send, -err, now);
		core_log(c, PLOG_DROP, p, NULL, "send_error");
	} else {
		core_log(c, PLOG_DEP, p, NULL, NULL);
	}
	pkt_free(p);
}

/* Encapsulates and sends the delay line's due packets (release time <=
 * now + link.slack, see core_run()), up to
 * CORE_TX_BATCH per system call when the loop offers send_many.  Returns
 * 0, or -1 when the socket is full (the unsent packets go back to the
 * head of the delay line with their datagrams built, to be sent as they
 * are). */
static int core_flush(struct core *c, tstamp_ns now)
{
	struct pkt *batch[CORE_TX_BATCH];
	const uint8_t *buf[CORE_TX_BATCH];
	size_t len[CORE_TX_BATCH];
	struct pkt *p;
	int n, k, i, err;

	while (!c->blocked) {
		for (n = 0; n < CORE_TX_BATCH &&
			    (p = delayline_pop_due(&c->dl, now + c->conf.slack_ns)); ) {
			if (!c->peer_known) {
				/* Nobody to send to yet: the link carried
				 * it into the void, as a real link with no
				 * receiver would. */
				c->st.send_error++;
				core_log(c, PLOG_DROP, p, NULL, "send_error");
				pkt_free(p);
				continue;
			}
			/* A datagram that met a full socket is sent again
			 * as it was built: sealing it twice would spend a
			 * counter and encrypt the ciphertext. */
			if (!p->encap && core_encap(c, p, now))
				continue;
			batch[n] = p;
			buf[n] = p->data - c->lay.hdr_bytes;
			len[n] = p->len_bytes + c->lay.hdr_bytes + c->lay.tag_bytes;
			n++;
			if (!c->io.send_many)
				break;
		}
		if (!n)
			break;
		for (i = 0; i < n; ) {
			if (c->io.send_many) {
				k = c->io.send_many(c->io.ctx, buf + i, len + i,
						    n - i, &c->peer, &err);
			} else {
				err = c->io.send(c->io.ctx, buf[i], len[i], &c->peer);
				k = err ? 0 : 1;
			}
			while (k-- > 0) {
				core_sent(c, batch[i], 0, now);
				i++;
			}
			if (i == n)
				break;
			if (err == -EAGAIN || err == -EWOULDBLOCK) {
				/* Back in reverse so the order is kept;
				 * each keeps its datagram (p->encap). */
				for (k = n - 1; k >= i; k--)
					delayline_unpop(&c->dl, batch[k]);
				c->blocked = 1;
				c->st.tx_blocked++;
				return -1;
			}
			/* batch[i] failed for good (ECONNREFUSED, ENOBUFS…):
			 * lost and counted; the rest are tried again. */
			core_sent(c, batch[i], err ? err : -EIO, now);
			i++;
		}
	}
	return c->blocked ? -1 : 0;
}

/* link.slack S (issue 10, "fewer wake-ups"): a wake-up at `now` serves
 * every deadline due by now + S, not only those due by now.  The pacer
 * starts a packet whose start time busy_until <= now + S; its charge in
 * position space is unchanged (it still starts at busy_until, so the
 * long-run rate is exact), only its send is early.  The delay line
 * releases every packet whose release time <= now + S.  The next-event
 * time returned to the loop is unchanged: the first deadline not yet
 * served, so one timer wake-up serves all that is due within S of it,
 * instead of one wake-up per packet time when that is shorter than the
 * timer's own lateness.  An early send counts in link.late_us as
 * |actual - planned| like a late one.  A packet started early is handed
 * to the scheduler at `now` (pacer_start_time() never returns a time in
 * the future), so the scheduler's clock stays monotone with the enqueue
 * times.  S = 0 is exactly the per-packet departures of before. */
tstamp_ns core_run(struct core *c, tstamp_ns now)
{
	int unlimited = c->conf.link.kind == LINK_UNLIMITED;
	tstamp_ns rel = now - c->start_ns;       /* link time */
	tstamp_ns slack = c->conf.slack_ns;
	tstamp_ns wake, t;
	int burst, unflushed = 0;

	c->now_ns = now;
	for (burst = 0; burst < CORE_BURST_MAX; burst++) {
		struct pkt *p;
		tstamp_ns finish, start;
		unsigned k;

		/* Flush what the delay line already had first, then only every
		 * CORE_TX_BATCH packets pushed: with no delay (or a catch-up)
		 * each packet is due at once, and flushing after every one
		 * would make every send a batch of one, leaving sendmmsg and
		 * UDP GSO nothing to group.  A packet waits at most
		 * CORE_TX_BATCH dequeues (microseconds) for its batch. */
		if (!burst || unflushed >= CORE_TX_BATCH) {
			unflushed = 0;
			if (core_flush(c, now) && unlimited)
				break;  /* back-pressure: the socket decides the rate */
		}
		if (!pacer_ready(&c->pacer, rel + slack))
			break;
		/* The scheduler sees the emulated link's clock: the time this
		 * packet starts on the link, which during a catch-up is
		 * earlier than the loop's wake-up.  Otherwise timer jitter
		 * would look like idle time (or a faster link) to PSS. */
		start = c->start_ns +
			pacer_start_time(&c->pacer, rel,
					 c->backlog_since_ns - c->start_ns);
		p = sched_dequeue(&c->sched, start);
		if (!p) {
			pacer_mark_idle(&c->pacer, rel);
			break;
		}
		k = p->cls;
		p->start_ns = start;
		c->qlen_pkts[k]--;
		c->qlen_bytes[k] -= p->len_bytes;
		c->st.cls[k].out_pkts++;
		c->st.cls[k].out_bytes += p->len_bytes;
		/* Time in the scheduler on the same clock the scheduler
		 * was given: a late wake-up is the link's lateness (late_us),
		 * not queueing; a packet that arrived after its catch-up
		 * start time waited 0. */
		hist_add(&c->st.cls[k].sojourn,
			 start > p->enq_ns ? start - p->enq_ns : 0);
		c->st.link_out_pkts++;
		c->st.link_out_bytes += p->len_bytes;
		/* The link has been backlogged since backlog_since_ns: a
		 * late wake-up is caught up from then on, whichever packet
		 * the scheduler picks (a fresh EF packet must not make the
		 * link forget the AF backlog that was waiting). */
		finish = pacer_send_at(&c->pacer, p->len_bytes, rel,
				       c->backlog_since_ns - c->start_ns);
		/* TS_NEVER: a trace that ends at rate 0; the packet is held
		 * in the delay line forever rather than invented capacity. */
		delayline_push(&c->dl, p, finish == TS_NEVER ? TS_NEVER
				: finish + c->start_ns);
		unflushed++;
	}
	if (unflushed)
		core_flush(c, now);
	if (burst == CORE_BURST_MAX)
		return now;     /* more to do: come back after other events */

	wake = c->blocked ? TS_NEVER : delayline_next_ns(&c->dl);
	if (core_qlen_total(c) && !(unlimited && c->blocked)) {
		t = pacer_ready(&c->pacer, rel + slack) ? sched_next_event(&c->sched, now)
						 : c->pacer.busy_until_ns + c->start_ns;
		if (t < wake)
			wake = t;
	}
	return wake;
}

int core_reconfigure(struct core *c, struct conf *n, tstamp_ns now)
{
	struct sched old = c->sched, fresh;
	struct sched_env env;
	struct pkt *p;

	c->now_ns = now;
	if (strcmp(n->tun_name, c->conf.tun_name) || n->mtu_bytes != c->conf.mtu_bytes ||
	    n->pool_pkts != c->conf.pool_pkts || n->offload != c->conf.offload ||
	    n->tun_gro != c->conf.tun_gro ||
	    n->has_address != c->conf.has_address ||
	    memcmp(n->addr, c->conf.addr, sizeof(n->addr)) ||
	    n->addr_prefix != c->conf.addr_prefix ||
	    memcmp(&n->listen, &c->conf.listen, sizeof(n->listen)) ||
	    n->has_peer != c->conf.has_peer ||
	    memcmp(&n->peer, &c->conf.peer, sizeof(n->peer)) ||
	    n->n_allow != c->conf.n_allow ||
	    memcmp(n->allow, c->conf.allow, sizeof(n->allow)) ||
	    n->sandbox != c->conf.sandbox)
		log_warn("reload: tunnel.* changes need a restart; kept the running tunnel settings");
	if (strcmp(n->packet_log, c->conf.packet_log))
		log_warn("reload: stats.packet_log changes need a restart; kept \"%s\"",
			 c->conf.packet_log);
	memcpy(n->packet_log, c->conf.packet_log, sizeof(n->packet_log));
	memcpy(n->tun_name, c->conf.tun_name, sizeof(n->tun_name));
	n->mtu_bytes = c->conf.mtu_bytes;
	n->pool_pkts = c->conf.pool_pkts;
	n->offload = c->conf.offload;
	n->tun_gro = c->conf.tun_gro;
	n->has_address = c->conf.has_address;
	n->addr_family = c->conf.addr_family;
	memcpy(n->addr, c->conf.addr, sizeof(n->addr));
	n->addr_prefix = c->conf.addr_prefix;
	n->listen = c->conf.listen;
	n->has_peer = c->conf.has_peer;
	n->peer = c->conf.peer;
	n->n_allow = c->conf.n_allow;
	memcpy(n->allow, c->conf.allow, sizeof(n->allow));
	n->sandbox = c->conf.sandbox;   /* a filter cannot be taken back */
	/* tunnel.user and tunnel.group cannot differ here (confuser.c) */

	core_make_env(c, n, &env);
	if (sched_create(&fresh, n->sched, n->sched_params, &env)) {
		log_err("reload: scheduler %s failed to initialise; kept %s",
			n->sched->name, old.ops->name);
		conf_free(n);
		return -1;
	}
	/* Move every queued packet; queue lengths are unchanged since the
	 * packets stay queued.  Limits of the new file are not applied to
	 * packets already accepted: the swap never drops. */
	while ((p = old.ops->drain(old.priv)))
		sched_enqueue(&fresh, p, now);
	sched_destroy(&old);
	c->sched = fresh;
	c->env = env;
	stats_sched_swapped(&c->st);
	core_marker_reconfigure(c, n, now);
	core_auth_reconfigure(c, n, now);

	conf_free(&c->conf);
	c->conf = *n;
	memset(n, 0, sizeof(*n));
	pacer_set_profile(&c->pacer, &c->conf.link, now - c->start_ns);
	c->dl.delay_ns = c->conf.delay_ns;
	return 0;
}

int core_stats_line(struct core *c, tstamp_ns now, char *buf, size_t len)
{
	struct stats_gauges g;
	int k;

	core_warn_poll(c, now);
	core_auth_warn_poll(c, now);
	memset(&g, 0, sizeof(g));
	g.t_s = (double)(now - c->start_ns) / 1e9;
	g.wall_s = (double)((int64_t)now + c->real_minus_mono_ns) / 1e9;
	g.rate_bps = c->conf.link.kind == LINK_UNLIMITED ? 0
			: link_rate_at(&c->conf.link, now - c->start_ns);
	g.inflight_pkts = c->dl.q.len_pkts;
	core_marker_gauges(c, &g);
	core_auth_gauges(c, &g);
	if (c->plog) {
		uint64_t lost = c->plog->dropped + c->plog->discarded + c->log_lost;

		g.log_on = 1;
		g.log_records = c->plog->records - c->log_prev[0];
		g.log_lost = lost - c->log_prev[1];
		g.log_buffered_bytes = c->plog->len_bytes;
		c->log_prev[0] = c->plog->records;
		c->log_prev[1] = lost;
	}
	for (k = 0; k < NCLASS; k++) {
		g.qlen_pkts[k] = c->qlen_pkts[k];
		g.qlen_bytes[k] = c->qlen_bytes[k];
	}
	return stats_format(&c->st, &g, &c->sched, buf, len);
}
