/* sched.h - the scheduler plug-in interface.
 *
 * Shaped like Linux net/sched: each scheduler is one file in src/sched/
 * with a private state struct, static <name>_enqueue/_dequeue/... functions
 * and a single exported designated-initialiser ops table.  The registry maps
 * configuration names to ops.
 *
 * Rules every scheduler follows:
 *  - it never reads a clock or sleeps: `now` is passed in;
 *  - enqueue always consumes the packet: on refusal it hands it to
 *    env->drop() with a reason (the core counts and frees it);
 *  - dequeue returns NULL when nothing is eligible now; next_event() then
 *    says when something could be (TS_NEVER if only an arrival can help);
 *    dequeue's `now` is the emulated link's time at which the packet
 *    starts: non-decreasing from call to call, but up to the pacer's
 *    catch-up window (50 ms) earlier than the `now` of an enqueue that
 *    preceded it, when the loop woke up late;
 *  - it is work-conserving towards the link unless its paper says otherwise;
 *  - destroy() returns every packet it still holds to the pool, drain()
 *    removes them one at a time without policy (for the SIGHUP swap).
 * Per-class counters (in, out, drops, queue length, sojourn) live in the
 * core, outside the schedulers, like the kernel's qstats.
 */
#ifndef SCHEDTUN_SCHED_H
#define SCHEDTUN_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cfgval/cfgval.h"
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "util/tstamp.h"

struct cfg_key;
struct cfg_status;
struct config_setting_t;                /* libconfig */
struct diag;
struct jw;

#define SCHED_PARAMS_MAX 512            /* bytes for any scheduler's params */

/* Why a packet was dropped; one counter per (class, reason) in the stats. */
enum drop_reason {
	DROP_CLASS_LIMIT = 0,   /* the class queue held `limit` packets */
	DROP_SCHED_LIMIT,       /* a scheduler-internal buffer limit */
	DROP_PUSHOUT,           /* pushed out by a later packet (DQ) */
	DROP_EXPIRED,           /* waited longer than allowed (DQ, TICKET) */
	DROP_ADMISSION,         /* new flow refused (PDRR admission control) */
	DROP_LATE,              /* could not start before its deadline (TICKET) */
	DROP_ORDER,             /* would leave after a later packet of its
				 * aggregate (TICKET's excess behind a
				 * conforming packet) */
	DROP_RECONF,            /* could not be moved to a new scheduler */
	DROP_REASON_MAX
};

extern const char *const drop_reason_name[DROP_REASON_MAX];

/* What the core gives a scheduler instance. */
struct sched_env {
	uint64_t capacity_bps;          /* nominal capacity: the link's mean */
	uint32_t mtu_bytes;
	uint32_t limit_pkts[NCLASS];    /* per-class limits (enforced by core) */
	void   (*drop)(void *owner, struct pkt *p, enum drop_reason why);
	void    *owner;
	FILE    *trace;                 /* optional per-event trace, or NULL */
};

struct sched_ops {
	const char *name;
	const char *summary;            /* one line for --help and errors */
	size_t      params_size;        /* <= SCHED_PARAMS_MAX */
	size_t      priv_size;

	/* Fills params with defaults (called before the keys are parsed). */
	void (*defaults)(void *params, const struct sched_env *env);
	/* The keys of its config group scheduler.<name> (cfgval.h), NULL for
	 * none: the layer parses, range-checks and documents them. */
	const struct cfg_key *keys;
	/* Optional: the meaning of the keys together (orders, relations,
	 * CFG_T_CUSTOM members), after the table was parsed into params;
	 * grp may be NULL (group absent); st tells which keys were given and
	 * valid.  Reports each error through d; returns the error count. */
	int  (*check)(const struct config_setting_t *grp, void *params,
		      const struct cfg_status *st, struct diag *d);
	/* priv is zeroed, priv_size bytes.  0 or -1. */
	int  (*init)(void *priv, const void *params, const struct sched_env *env);
	void (*destroy)(void *priv);

	void        (*enqueue)(void *priv, struct pkt *p, tstamp_ns now);
	struct pkt *(*dequeue)(void *priv, tstamp_ns now);
	const struct pkt *(*peek)(void *priv, tstamp_ns now);
	tstamp_ns   (*next_event)(void *priv, tstamp_ns now);
	struct pkt *(*drain)(void *priv);
	void        (*dump_stats)(void *priv, struct jw *w);
};

struct sched {
	const struct sched_ops *ops;
	void *priv;
};

/* Every scheduler's ops table, `sched_<name>_ops`, one per line of
 * src/sched/sched_list.h. */
#define SCHED(name) extern const struct sched_ops sched_##name##_ops;
#include "sched/sched_list.h"
#undef SCHED

/* NULL-terminated registry in src/sched/registry.c, in list order. */
extern const struct sched_ops *const sched_registry[];

const struct sched_ops *sched_lookup(const char *name);
/* "fifo | prio | ..." into buf, for error messages. */
const char *sched_names(char *buf, size_t len);

/* Parses group grp (NULL: absent) of scheduler ops into params, which hold
 * its defaults: the key table, then ops->check.  A NULL d only counts.
 * Returns the error count. */
int  sched_parse(const struct sched_ops *ops,
		 const struct config_setting_t *grp, void *params,
		 struct diag *d);
/* The `scheduler` section g: its name (on return *sel is the scheduler it
 * selects, the one *sel held when g names none, NULL when the name is
 * bad), and the group of every scheduler, parsed with env's defaults; the
 * selected one's parameters go to params (SCHED_PARAMS_MAX bytes, aligned
 * to 16).  Errors go through d (non-NULL). */
void sched_parse_section(const struct config_setting_t *g,
			 const struct sched_ops **sel,
			 const struct sched_env *env, void *params,
			 struct diag *d);
/* The reference of scheduler ops's keys (scheduler.<name>.*) in format
 * fmt (cfgval.h). */
void sched_print_keys(FILE *f, const struct sched_ops *ops,
		      enum cfg_ref_fmt fmt);

/* Allocates and initialises an instance.  0 or -1. */
int  sched_create(struct sched *s, const struct sched_ops *ops,
		  const void *params, const struct sched_env *env);
/* Frees the instance and every packet it holds. */
void sched_destroy(struct sched *s);

static inline void sched_enqueue(struct sched *s, struct pkt *p, tstamp_ns now)
{
	s->ops->enqueue(s->priv, p, now);
}

static inline struct pkt *sched_dequeue(struct sched *s, tstamp_ns now)
{
	return s->ops->dequeue(s->priv, now);
}

static inline tstamp_ns sched_next_event(struct sched *s, tstamp_ns now)
{
	return s->ops->next_event(s->priv, now);
}

#endif
