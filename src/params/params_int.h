/* params_int.h - what the parts of `schedtun params` share among
 * themselves (src/params/ only; the API is include/params/params.h): the
 * simulation's limits, and a few helpers that write quantities as text.
 */
#ifndef SCHEDTUN_PARAMS_INT_H
#define SCHEDTUN_PARAMS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "params/params.h"
#include "util/tstamp.h"

#define PARAMS_SIM_DEFAULT_NS (60 * NS_PER_SEC)
#define PARAMS_SIM_MIN_NS     (10 * NS_PER_SEC)
#define PARAMS_SIM_MAX_NS     (3600 * NS_PER_SEC)
#define PARAMS_SIM_WARMUP_DIV 12        /* 5 s of 60 left out */
#define PARAMS_SIM_PKTS_MAX   20000000.0 /* ~10 s with ASan: fast links
					  * get a shorter run of as many
					  * packets */

/* One parameter set as the block writes it and the simulation runs it. */
struct params_block {
	double      bw;
	uint64_t    lm_bytes, lr_bytes;
	const char *comment;            /* after the pss line */
};

/* The set `rule` of o (params_conf.c). */
struct params_block params_block_of(const struct params_out *o,
				    enum params_rule rule);

/* Checks the block params_write_conf_rule() prints for `rule` with the
 * daemon's parser (its `scheduler` section, as conf_load() reads it);
 * errors go to diag_out as "LABEL:LINE: ...".  Returns the error count,
 * or -1 when the text could not be made (params_conf.c). */
int params_check_block(const struct params_in *in, const struct params_out *o,
		       enum params_rule rule, FILE *diag_out,
		       const char *label);

/* The report of params_cli() for a computed set (params_report.c): the
 * numbers with their arithmetic, both blocks (checked), the theoretical
 * rates. */
void params_report(FILE *out, const struct params_in *in,
		   const struct params_out *o);
/* Runs both sets in the simulator for dur_ns (fewer on fast links) and
 * prints the comparison with eq. 7; simulator messages go to err. */
void params_report_sim(FILE *out, FILE *err, const struct params_in *in,
		       const struct params_out *o, uint64_t dur_ns);

/* The virtual time a simulation of dur_ns actually runs: shortened to
 * PARAMS_SIM_PKTS_MAX packets at C on a fast link (*shortened says so;
 * params_report.c). */
uint64_t params_sim_dur_ns(const struct params_in *in,
			   const struct params_out *o, uint64_t dur_ns,
			   int *shortened);

struct jw;
/* The whole report as one JSON object into w, with the simulation of both
 * sets over sim_ns when `sim` (simulator messages on err);
 * docs/json-output.md has the members (params_json.c). */
void params_json(struct jw *w, FILE *err, const struct params_in *in,
		 const struct params_out *o, int sim, uint64_t sim_ns);

/* C, R_EF as the block and the messages write them: fmt_rate() when it
 * reads back exactly ("20Mbit"), else "20000001bit"; "0" for 0.  Returns
 * buf (params_set.c). */
const char *params_rate_text(uint64_t bps, char *buf, size_t len);

/* The largest of three sizes (params_set.c). */
uint32_t params_max3(uint32_t a, uint32_t b, uint32_t c);

#endif
