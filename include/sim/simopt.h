/* simopt.h - the values of schedtun-sim's own options (docs/simulator.md),
 * parsed through the value layer (cfgval.h, units.c) so that they read
 * and fail like the configuration file's:
 *
 *   --duration: '5x' is not a duration (accepted: ...)
 *   --ef 'cbr:5x': RATE: '5x' is not a rate (accepted: ...)
 *
 * Messages are returned without the program name.
 */
#ifndef SCHEDTUN_SIMOPT_H
#define SCHEDTUN_SIMOPT_H

#include <stddef.h>

#include "sim/sim.h"

#define SIMOPT_DURATION_MAX_S 1000000u  /* --duration, --warmup, --sample */
#define SIMOPT_PKT_MIN_BYTES  28u       /* PKT_BYTES: an IPv4 UDP header */
#define SIMOPT_PKT_MAX_BYTES  9000u
#define SIMOPT_BACKLOG_MAX    1000000u
#define SIMOPT_PERIOD_MAX_S   86400u
#define SIMOPT_MEAN_SIZE_MAX_BYTES (1ULL << 40)

#define SIMOPT_SPEC_ACCEPTED \
	"none | [N*]greedy[:PKT_BYTES[:BACKLOG_PKTS]] | " \
	"[N*]cbr:RATE[:PKT_BYTES[:AMPLITUDE:PERIOD]] | " \
	"[N*]onoff:PEAK:ON:OFF[:PKT_BYTES] | " \
	"[N*]pareto:ALPHA:MEAN_SIZE:ARRIVALS[:FLOW_RATE[:PKT_BYTES" \
	"[:ARRIVAL_ALPHA[:MAX_SIZE]]]] | " \
	"[N*]tfrc:RATE:RTT[:PKT_BYTES[:PROFILE[:RTT_MAX]]] | " \
	"[N*]web:ALPHA:MEAN_SIZE:THINK:ACCESS_RATE[:PKT_BYTES]"

/* Sets run option `name` ("duration", "warmup", "sample" or "seed") of
 * sc from text ("100", "500ms", "42").  0, or -1 with "--NAME: 'TEXT' problem
 * (accepted: ...)" in err. */
int simopt_set_run(struct sim_config *sc, const char *name, const char *text,
		   char *err, size_t errlen);

/* The run options together: warmup < duration, and a sample interval
 * when stats are asked for (has_stats).  0, or -1 with the message. */
int simopt_check_run(const struct sim_config *sc, int has_stats, char *err,
		     size_t errlen);

/* Parses the source SPEC of option opt ("--ef") into *src (zeroed
 * first; pkt_bytes 0 means the configuration's MTU).  "N*SPEC" gives N
 * flows (pareto: at most N flows arrive); pareto's FLOW_RATE
 * "unlimited" is a greedy flow (peak_bps 0).  0, or -1 with
 * "OPT 'SPEC': PIECE: 'VALUE' problem (accepted: ...)" in err, or
 * "OPT 'SPEC' is not a source (accepted: ...)" for its shape. */
int simopt_source(const char *opt, const char *spec, struct sim_source *src,
		  char *err, size_t errlen);

#endif
