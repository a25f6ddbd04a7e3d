/* dwrr.c - EF strict priority above a Deficit Weighted Round Robin
 * between AF and CS0.
 *
 * The RFC 5865 architecture as the PSS paper reads it (Finzi et al. 2023,
 * §2.4: priority for the admitted real-time class above a WRR variant that
 * shares the rest between AF and CS0), and the paper's comparison point
 * (§4.1, Fig. 5).
 * EF is served whenever it holds a packet; the residual capacity C - R_EF
 * is shared by Deficit Round Robin (M. Shreedhar, G. Varghese, "Efficient
 * fair queueing using deficit round robin", SIGCOMM 1995) with one byte
 * quantum per class.  With both classes backlogged AF receives
 *
 *   K_AF = Q_AF / (Q_AF + Q_CS0)                      of C - R_EF
 *
 * which is eq. 2 of the paper when the quanta are given as packet weights
 * times packet sizes, Q_i = W_i * L_i (the `weights` form of the config).
 *
 * The EF layer is efstrict.h; the round is the DRR engine of drr.h with
 * one queue per class, which keeps Shreedhar & Varghese's rules (a class
 * joins at the tail with deficit 0, receives its quantum at the start of
 * each turn, sends while its head packet fits, leaves with its deficit
 * reset when it empties) and plays the idle turns of packets larger than
 * the quantum in one pass: O(1) per packet with two classes, whatever the
 * quanta, in exactly the textbook order (the unit test compares the two).
 *
 * Work-conserving: dequeue never returns NULL while a packet is held.
 * The per-class limits are enforced by the core before enqueue, so this
 * scheduler never drops.
 *
 * Configuration, group scheduler.dwrr (all optional):
 *   quantum = { af = 4500; cs0 = 3000; };         bytes per turn, 64..1000000
 * or
 *   weights = { af = 9; cs0 = 2; };               packets per turn, 1..10000
 *   packet_size = 1500;                           bytes, 64..65535, or per
 *   packet_size = { af = 1500; cs0 = 500; };      class as in eq. 2
 * (quantum = weight * packet_size).  quantum and weights together are an
 * error; so is packet_size without weights.
 *
 * Stats ("sched" member of the stats line), per DRR class "af", "cs0":
 * "deficit" bytes now, "rounds" quanta received since the previous stats
 * line (a delta, like the line's other counters: the engine counts them
 * cumulatively and the stats writer subtracts the previous line's value),
 * "quantum" bytes.
 */
#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cfgval/cfgval.h"
#include "pkt/classify.h"
#include "sched/sched.h"
#include "util/diag.h"
#include "util/jw.h"
#include "drr.h"
#include "efstrict.h"
#include "stock.h"

#define DWRR_NCLASS             2       /* AF, CS0 share by DRR */
#define DWRR_QUANTUM_MIN_BYTES  64u
#define DWRR_QUANTUM_MAX_BYTES  1000000u
#define DWRR_WEIGHT_MIN         1u
#define DWRR_WEIGHT_MAX         10000u
#define DWRR_PKT_MIN_BYTES      64u
#define DWRR_PKT_MAX_BYTES      65535u  /* largest IP packet */
#define DWRR_PKT_DEF_BYTES      1500u

/* DRR slot -> traffic class. */
static const enum pkt_class dwrr_cls[DWRR_NCLASS] = { CLS_AF, CLS_CS0 };

/* DESIGN §2 defaults; the weights form's defaults (3 and 2 packets of
 * 1500 bytes) give the same quanta, so a partly given group is consistent. */
static const uint64_t dwrr_def_quantum_bytes[DWRR_NCLASS] = { 4500, 3000 };
static const uint64_t dwrr_def_weight[DWRR_NCLASS] = { 3, 2 };

struct dwrr_params {
	uint64_t quantum_bytes[DWRR_NCLASS];    /* what the DRR runs with */
	uint64_t weight[DWRR_NCLASS];           /* the weights form, in
						 * packets per turn */
};

struct dwrr_sched {
	struct efstrict ef;                             /* EF above DRR */
	struct drr drr;
	struct drr_q cl[DWRR_NCLASS];                   /* by DRR slot */
};

/* DRR slot of a non-EF packet; anything but AF is best effort. */
static unsigned int dwrr_slot(const struct pkt *p)
{
	return p->cls == CLS_AF ? 0 : 1;
}

/* Takes ownership.  A class outside the enum (a core bug) is served as
 * best effort (dwrr_slot()); p->cls itself is the core's accounting index
 * and left alone, like enq_ns. */
static void dwrr_enqueue(void *priv, struct pkt *p, tstamp_ns now)
{
	struct dwrr_sched *q = priv;

	(void)now;
	if (efstrict_enqueue(&q->ef, p))
		return;
	drr_enqueue(&q->drr, &q->cl[dwrr_slot(p)], p);
}

/* EF first; otherwise the DRR winner, charged to its deficit.  NULL only
 * when nothing is queued. */
static struct pkt *dwrr_dequeue(void *priv, tstamp_ns now)
{
	struct dwrr_sched *q = priv;
	struct pkt *p;

	(void)now;
	if ((p = efstrict_dequeue(&q->ef)))
		return p;
	return drr_dequeue(&q->drr, NULL);
}

/* The packet dequeue() would return now; no state changes. */
static const struct pkt *dwrr_peek(void *priv, tstamp_ns now)
{
	const struct dwrr_sched *q = priv;
	const struct pkt *p;

	(void)now;
	if ((p = efstrict_peek(&q->ef)))
		return p;
	return drr_peek(&q->drr);
}

/* EF, then AF, then CS0, each in arrival order, so a new scheduler gets
 * every class's packets in their original relative order.  The round is
 * kept consistent although the instance is about to be destroyed. */
static struct pkt *dwrr_drain(void *priv)
{
	struct dwrr_sched *q = priv;
	struct pkt *p;
	unsigned int i;

	if ((p = efstrict_drain(&q->ef)))
		return p;
	for (i = 0; i < DWRR_NCLASS; i++)
		if ((p = drr_remove_head(&q->drr, &q->cl[i])))
			return p;
	return NULL;
}

static void dwrr_destroy(void *priv)
{
	struct dwrr_sched *q = priv;

	efstrict_destroy(&q->ef);
	drr_purge(&q->drr);
}

/* priv arrives zeroed.  -1 for quanta outside the accepted range (params
 * that did not come from defaults()/parse()): a zero quantum would never
 * let a packet fit. */
static int dwrr_init(void *priv, const void *params,
		     const struct sched_env *env)
{
	const struct dwrr_params *pp = params;
	struct dwrr_sched *q = priv;
	unsigned int i;

	(void)env;
	efstrict_init(&q->ef, 1);
	drr_init(&q->drr);
	for (i = 0; i < DWRR_NCLASS; i++) {
		uint64_t qb = pp->quantum_bytes[i];

		if (qb < DWRR_QUANTUM_MIN_BYTES || qb > DWRR_QUANTUM_MAX_BYTES)
			return -1;
		drr_q_init(&q->cl[i], (uint32_t)qb);
	}
	return 0;
}

/* ---- configuration ------------------------------------------------------ */

#define DWRR_PAIR_ACCEPTED "either quantum = { af, cs0 } in bytes, or " \
			   "weights = { af, cs0 } with packet_size"

static const struct cfg_key dwrr_keys[] = {
	{ .name = "quantum", .type = CFG_T_GROUP,
	  .help = "bytes per turn of each class (DRR quantum)" },
	{ .name = "quantum.af", .type = CFG_T_BYTES,
	  .min = DWRR_QUANTUM_MIN_BYTES, .max = DWRR_QUANTUM_MAX_BYTES,
	  CFG_FIELD(struct dwrr_params, quantum_bytes[0]), .def = "4500",
	  .unit = "bytes", .help = "AF's quantum" },
	{ .name = "quantum.cs0", .type = CFG_T_BYTES,
	  .min = DWRR_QUANTUM_MIN_BYTES, .max = DWRR_QUANTUM_MAX_BYTES,
	  CFG_FIELD(struct dwrr_params, quantum_bytes[1]), .def = "3000",
	  .unit = "bytes", .help = "CS0's quantum" },
	{ .name = "weights", .type = CFG_T_GROUP, .excludes = "quantum",
	  .accepted = DWRR_PAIR_ACCEPTED,
	  .help = "packets per turn instead of quantum: quantum = weight x "
		  "packet_size (eq. 2 of the PSS paper)" },
	{ .name = "weights.af", .type = CFG_T_UINT,
	  .min = DWRR_WEIGHT_MIN, .max = DWRR_WEIGHT_MAX,
	  CFG_FIELD(struct dwrr_params, weight[0]), .def = "3",
	  .unit = "packets", .help = "W_AF" },
	{ .name = "weights.cs0", .type = CFG_T_UINT,
	  .min = DWRR_WEIGHT_MIN, .max = DWRR_WEIGHT_MAX,
	  CFG_FIELD(struct dwrr_params, weight[1]), .def = "2",
	  .unit = "packets", .help = "W_CS0" },
	{ .name = "packet_size", .type = CFG_T_CUSTOM, .needs = "weights",
	  .accepted = "packet_size together with weights = { af, cs0 }",
	  .def = "1500", .unit = "bytes",
	  .help = "64..65535, or { af = ..; cs0 = ..; }: the average packet "
		  "of each class (L_i of eq. 2)" },
	{ .name = NULL },
};

/* packet_size: one size for both classes, or a group { af, cs0 }, into
 * len[] (untouched members keep the default).  Returns the error count. */
static int dwrr_parse_sizes(const config_setting_t *grp,
			    uint64_t len[DWRR_NCLASS], struct diag *d)
{
	static const char *const keys[] = { "af", "cs0", NULL };
	const config_setting_t *ps = cfg_lookup(grp, "packet_size");
	unsigned int i;
	uint64_t v;
	int nerr;

	if (!ps)
		return 0;
	if (!config_setting_is_group(ps)) {
		if (cfg_bytes(grp, "packet_size", DWRR_PKT_MIN_BYTES,
			      DWRR_PKT_MAX_BYTES, &v, d) < 0)
			return 1;
		for (i = 0; i < DWRR_NCLASS; i++)
			len[i] = v;
		return 0;
	}
	nerr = cfg_check_keys(ps, keys, d);
	for (i = 0; i < DWRR_NCLASS; i++)
		nerr += cfg_bytes(ps, cls_name[dwrr_cls[i]], DWRR_PKT_MIN_BYTES,
				  DWRR_PKT_MAX_BYTES, &len[i], d) < 0;
	return nerr;
}

/* With weights given, the quanta are Q_i = W_i * L_i (eq. 2's numerator
 * terms), computed only when every factor is valid: a product of bad
 * factors says nothing new.  Returns the error count. */
static int dwrr_check(const struct config_setting_t *grp, void *params,
		      const struct cfg_status *st, struct diag *d)
{
	struct dwrr_params *pp = params;
	const config_setting_t *ws = cfg_lookup(grp, "weights");
	uint64_t len[DWRR_NCLASS];
	unsigned int i;
	int nerr;

	if (!ws)
		return 0;
	for (i = 0; i < DWRR_NCLASS; i++)
		len[i] = DWRR_PKT_DEF_BYTES;
	nerr = dwrr_parse_sizes(grp, len, d);
	if (nerr || cfg_status_of(st, "weights") < 0 ||
	    cfg_status_of(st, "weights.af") < 0 ||
	    cfg_status_of(st, "weights.cs0") < 0)
		return nerr;
	for (i = 0; i < DWRR_NCLASS; i++) {
		const config_setting_t *s =
			cfg_lookup(ws, cls_name[dwrr_cls[i]]);
		uint64_t qb = pp->weight[i] * len[i];  /* <= 10000 * 65535 */

		if (qb > DWRR_QUANTUM_MAX_BYTES) {
			cfg_report(d, s ? s : ws, NULL, "weight %llu x "
				   "packet_size %llu = %llu bytes per turn is "
				   "too large (accepted: weight x packet_size "
				   "<= %u bytes)",
				   (unsigned long long)pp->weight[i],
				   (unsigned long long)len[i],
				   (unsigned long long)qb,
				   DWRR_QUANTUM_MAX_BYTES);
			nerr++;
			continue;
		}
		/* >= 1 * 64 bytes: the lower bound holds by construction */
		pp->quantum_bytes[i] = qb;
	}
	return nerr;
}

static void dwrr_defaults(void *params, const struct sched_env *env)
{
	struct dwrr_params *pp = params;
	unsigned int i;

	(void)env;
	for (i = 0; i < DWRR_NCLASS; i++) {
		pp->quantum_bytes[i] = dwrr_def_quantum_bytes[i];
		pp->weight[i] = dwrr_def_weight[i];
	}
}

/* Per DRR class: "deficit" (bytes now), "rounds" (quanta received: a
 * counter, which the stats line turns into a delta since the previous
 * line), "quantum" (bytes).  Changes nothing. */
static void dwrr_dump_stats(void *priv, struct jw *w)
{
	const struct dwrr_sched *q = priv;
	unsigned int i;

	for (i = 0; i < DWRR_NCLASS; i++) {
		const struct drr_q *cl = &q->cl[i];

		jw_obj_begin(w, cls_name[dwrr_cls[i]]);
		jw_i64(w, "deficit", cl->deficit_bytes);
		jw_counter(w, "rounds", cl->rounds);
		jw_u64(w, "quantum", cl->quantum_bytes);
		jw_obj_end(w);
	}
}

const struct sched_ops sched_dwrr_ops = {
	.name        = "dwrr",
	.summary     = "EF strict priority, deficit round robin AF/CS0 "
		       "by byte quanta",
	.params_size = sizeof(struct dwrr_params),
	.priv_size   = sizeof(struct dwrr_sched),
	.defaults    = dwrr_defaults,
	.keys        = dwrr_keys,
	.check       = dwrr_check,
	.init        = dwrr_init,
	.destroy     = dwrr_destroy,
	.enqueue     = dwrr_enqueue,
	.dequeue     = dwrr_dequeue,
	.peek        = dwrr_peek,
	.next_event  = stock_next_event_never,
	.drain       = dwrr_drain,
	.dump_stats  = dwrr_dump_stats,
};
