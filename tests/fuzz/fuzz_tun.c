/* fuzz_tun.c - target 2: packets read from the tun through the real
 * egress path with every registered scheduler: core_tun_input()
 * (ip_inspect: IPv4/IPv6, options, extension headers, fragments; DSCP
 * classification, class limit, sched_enqueue) and core_run() (pacer,
 * sched_dequeue, delay line, encapsulation, fake send), then a drain.
 *
 * Input: byte 0 chooses the set-up, then records until the input ends:
 *   byte 0    bits 0-3: class limit for every class (0: the defaults,
 *             else 1 << (n - 1) packets); bits 4-5: the link rate
 *             (1, 8, 100 Mbit/s, 10 Gbit/s)
 *   record    [dt][len_hi][len_lo][len bytes of packet]: the clock
 *             advances dt * 50 us; an odd dt runs the core first; the
 *             length is cut to the input left and, like a tun read, to
 *             the buffer
 *
 * Asserts after every record, per class: in = out + drops + queued; the
 * packets out of the pool are exactly those queued plus those in the
 * delay line.  After the input the core is run until everything left:
 * it never stalls with packets queued (TS_NEVER with a backlog), every
 * class ends with in = out + drops, the stats line formats, and after
 * core_destroy every packet is back in the pool.
 */
#include <string.h>
#include "pkt/pkt.h"
#include "fuzz_common.h"

#define POOL_PKTS  512u
#define CAP_BYTES  1500u
#define DRAIN_RUNS 200000

static const uint64_t rates[4] = { 1000000, 8000000, 100000000, 10000000000ull };

static void check_accounts(const struct core *c, const char *sched)
{
	uint32_t held = c->dl.q.len_pkts;
	int k;

	for (k = 0; k < NCLASS; k++) {
		const struct cls_stats *s = &c->st.cls[k];

		FZ_CHECK(s->in_pkts == s->out_pkts + s->drop_pkts + c->qlen_pkts[k],
			 "%s class %d: in %llu != out %llu + drop %llu + queued %u",
			 sched, k, (unsigned long long)s->in_pkts,
			 (unsigned long long)s->out_pkts,
			 (unsigned long long)s->drop_pkts, c->qlen_pkts[k]);
		held += c->qlen_pkts[k];
	}
	FZ_CHECK(pkt_pool_in_use() == held, "%s: %u packets out of the pool, "
		 "%u queued or in flight", sched, pkt_pool_in_use(), held);
}

static void run_one(const struct sched_ops *ops, const uint8_t *data,
		    size_t size)
{
	static char line[65536];
	struct conf conf;
	struct core c;
	tstamp_ns now = 0, wake;
	size_t at = 1;
	int k, i;

	fz_conf(&conf, ops, rates[(data[0] >> 4) & 3]);
	if (data[0] & 0x0f)
		for (k = 0; k < NCLASS; k++)
			conf.limit_pkts[k] = 1u << ((data[0] & 0x0f) - 1);
	FZ_CHECK(core_init(&c, &conf, &fz_core_io, 0) == 0, "%s: core_init", ops->name);
	while (at + 3 <= size) {
		uint8_t dt = data[at];
		size_t len = (size_t)data[at + 1] << 8 | data[at + 2];
		struct pkt *p;

		at += 3;
		if (len > size - at)
			len = size - at;
		now += dt * 50 * NS_PER_US;
		if (dt & 1)
			core_run(&c, now);
		p = pkt_alloc();
		if (p) {        /* the loop counts pool_empty and drops it */
			p->len_bytes = (uint32_t)(len < CAP_BYTES ? len : CAP_BYTES);
			memcpy(p->data, data + at, p->len_bytes);
			core_tun_input(&c, p, now);
		}
		at += len;
		check_accounts(&c, ops->name);
	}
	for (i = 0; i < DRAIN_RUNS; i++) {
		wake = core_run(&c, now);
		check_accounts(&c, ops->name);
		if (!c.dl.q.len_pkts && !c.qlen_pkts[0] && !c.qlen_pkts[1] &&
		    !c.qlen_pkts[2])
			break;
		FZ_CHECK(wake != TS_NEVER, "%s: stalled with %u+%u+%u queued, "
			 "%u in flight", ops->name, c.qlen_pkts[0],
			 c.qlen_pkts[1], c.qlen_pkts[2], c.dl.q.len_pkts);
		if (wake > now)
			now = wake;
	}
	FZ_CHECK(i < DRAIN_RUNS, "%s: not drained after %d runs", ops->name, i);
	/* After the checks: formatting resets the counters (deltas). */
	FZ_CHECK(core_stats_line(&c, now, line, sizeof(line)) > 0,
		 "%s: stats line", ops->name);
	core_destroy(&c);
	FZ_CHECK(pkt_pool_in_use() == 0, "%s: %u packets not returned",
		 ops->name, pkt_pool_in_use());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sched_ops *const *ops;

	if (size < 1)
		return 0;
	fz_pool(POOL_PKTS, CAP_BYTES);
	fz_io.on_tun = NULL;
	for (ops = sched_registry; *ops; ops++)
		run_one(*ops, data, size);
	return 0;
}
