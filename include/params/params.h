/* params.h - the PSS parameter calculator (`schedtun params pss`).
 *
 * Turns WRR/DWRR weights into PSS parameters following Finzi et al.,
 * "Priority Switching Scheduler" (2023), so that an experimenter never
 * computes them by hand:
 *
 *   eq. 2   K_AF = W_AF L_AF / (W_AF L_AF + W_CS0 L_CS0)
 *   eq. 4   B    = (W_AF-1) L_AF / ((W_AF-1) L_AF + (W_CS0-1) L_CS0)
 *   eq. 3   BW   = B (C - R_EF^exp) / C        (a fraction of C; the paper
 *                                              prints the rate B (C - R_EF))
 *   eq. 5   LM   = L_AF (W_AF-1) (1 - BW)      (+ LR when LR > 0, 2.1/2.3)
 *   LR      0 for a fixed capacity (2.4); L_max BW, the lower bound of 2.1;
 *           T C_avg BW for a capacity periodic over T (4.2.1)
 *   eq. 1   R_WRR/AF  = K_AF (C - R_EF)
 *   eq. 6   R_WRR/CS0 = (1 - K_AF) (C - R_EF)
 *   eq. 7   R_PSS/AF  = min(K_AF (C - R_EF^exp), C - R_EF)
 *   eq. 8   R_PSS/CS0 = max(C - R_EF - R_PSS/AF, 0)
 *
 * and a second parameter set, the "calibrated" rule (docs/pss.md), for
 * which Algorithm 1 as written gives eq. 7's AF rate.  Algorithm 1 gives
 * AF = BW C + (credit cut at LM - credit not taken at 0) / T over a run
 * of length T with AF and CS0 backlogged; eqs. 3-5 rely on those cuts
 * (one whole packet each per WRR round), which Algorithm 1 makes only
 * without EF and only when LM rounds up.  The calibrated rule aims BW C
 * at eq. 7 and keeps the cuts small:
 *   BW = K_AF (C - R_EF^exp) / C                 (B replaced by K_AF)
 *   LR = max(the LR chosen, ceil(2 L_max BW))     (no saturation at 0)
 *   LM = LR + max(round(eq. 5 with this BW), ceil(16 L_AF (1 - K_AF)))
 *        (at least 16 AF packets per sending window at R_EF^exp, so the
 *        cut at LM moves AF by at most (1 - BW)/16)
 *
 * L_AF, L_CS0 are average packet sizes (IP bytes); every size is in bytes,
 * every rate in bit/s, LM and LR in bytes (the daemon's units: DESIGN 3).
 * The functions below are pure; params_compute() validates a whole input
 * set with messages that name the quantity, quote the bad value and give
 * the accepted range.
 *
 * The parts: the equations (params_eq.c), the whole set (params_set.c),
 * the set as configuration and its simulation (params_conf.c), the report
 * (params_report.c), the command line (params_cli.c).
 */
#ifndef SCHEDTUN_PARAMS_H
#define SCHEDTUN_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PARAMS_W_MAX         10000u            /* weights: 2..PARAMS_W_MAX,
						 * as dwrr's `weights` */
#define PARAMS_L_MIN_BYTES   64u               /* packet sizes */
#define PARAMS_L_MAX_BYTES   65535u
#define PARAMS_BYTES_MAX     1000000000000ull  /* LR, LM: 1 TB, as pss */
#define PARAMS_PERIOD_MAX_NS (86400ull * 1000000000ull)

/* ---- the equations ------------------------------------------------------ */

/* eq. 2: the share WRR gives AF. */
double params_k_af(uint32_t w_af, uint32_t l_af_bytes,
		   uint32_t w_cs0, uint32_t l_cs0_bytes);
/* eq. 4: the same with W - 1 packets (the W-th goes out by
 * non-preemption, unseen by the credit).  Needs W_AF, W_CS0 >= 2. */
double params_b(uint32_t w_af, uint32_t l_af_bytes,
		uint32_t w_cs0, uint32_t l_cs0_bytes);
/* eq. 3 as a fraction of C: B (C - R_EF^exp) / C. */
double params_bw(double b, uint64_t capacity_bps, uint64_t ef_exp_bps);
/* eq. 5, without LR: L_AF (W_AF - 1) (1 - BW), in bytes. */
double params_lm_eq5_bytes(uint32_t l_af_bytes, uint32_t w_af, double bw);
/* 2.1: the lower bound of LR, L_max(MC(q)) BW, in bytes. */
double params_lr_bound_bytes(uint32_t l_max_bytes, double bw);
/* 4.2.1: T C_avg BW in bytes (C in bytes/s). */
double params_lr_period_bytes(uint64_t period_ns, uint64_t capacity_bps,
			      double bw);
/* The calibrated rule (docs/pss.md).  Its BW is eq. 3 with K_AF for B:
 * params_bw(k_af, C, R_EF^exp). */
#define PARAMS_CAL_WINDOW_PKTS 16u      /* AF packets per sending window,
					 * at least */
/* The LR below which the credit may saturate at 0: the packet in flight
 * when the credit reaches LR, and one EF packet served before AF's next:
 * 2 L_max BW, in bytes. */
double params_lr_floor_bytes(uint32_t l_max_bytes, double bw);
/* The smallest LM - LR that holds PARAMS_CAL_WINDOW_PKTS AF packets in a
 * sending window when EF runs at R_EF^exp and BW = K_AF (C - R_EF^exp)/C:
 * each AF packet then nets L_AF (1 - K_AF) of credit.  Bytes. */
double params_lm_window_bytes(uint32_t l_af_bytes, double k_af);
/* With EF at R_EF^exp interleaved, the credit nets L_AF (1 - BW C /
 * (C - R_EF^exp)) per AF packet of a sending window: the number of AF
 * packets a window from LR to LM holds (about); < 0 when the credit never
 * reaches LM. */
double params_window_pkts(uint64_t lm_minus_lr_bytes, uint32_t l_af_bytes,
			  double bw, uint64_t capacity_bps,
			  uint64_t ef_exp_bps);
/* The idle window: the credit falls from LM to LR at C BW; seconds.  The
 * longest AF waits at p_low. */
double params_idle_window_s(uint64_t lm_minus_lr_bytes, double bw,
			    uint64_t capacity_bps);

/* DWRR quantum for weight W and average size L: W L bytes. */
uint64_t params_quantum_bytes(uint32_t w, uint32_t l_bytes);

/* The theoretical output rates in bit/s; ef_bps is the actual EF rate. */
double params_wrr_af_bps(double k_af, uint64_t capacity_bps,
			 uint64_t ef_bps);                          /* eq. 1 */
double params_wrr_cs0_bps(double k_af, uint64_t capacity_bps,
			  uint64_t ef_bps);                         /* eq. 6 */
double params_pss_af_bps(double k_af, uint64_t capacity_bps,
			 uint64_t ef_exp_bps, uint64_t ef_bps);     /* eq. 7 */
double params_pss_cs0_bps(double pss_af_bps, uint64_t capacity_bps,
			  uint64_t ef_bps);                         /* eq. 8 */

/* ---- a whole parameter set ---------------------------------------------- */

enum params_lr_mode {
	PARAMS_LR_FIXED = 0,    /* 2.4: fixed capacity, LR = 0 (default) */
	PARAMS_LR_BOUND,        /* 2.1: LR = ceil(L_max BW) */
	PARAMS_LR_PERIOD,       /* 4.2.1: LR = round(T C BW) */
	PARAMS_LR_BYTES,        /* given by the user */
};

/* Which parameter set the main `scheduler` block gets. */
enum params_rule {
	PARAMS_RULE_PAPER = 0,  /* eqs. 3-5 as published (default) */
	PARAMS_RULE_CALIBRATED, /* the calibrated rule above */
};

struct params_in {
	uint32_t w_af, w_cs0;           /* WRR weights: packets per round */
	uint32_t l_af_bytes;            /* average AF packet (IP bytes) */
	uint32_t l_cs0_bytes;           /* average CS0 packet */
	uint32_t l_ef_bytes;            /* EF packet; 0: max(l_af, l_cs0) */
	uint32_t l_max_bytes;           /* L_max(MC(AF)); 0: max of the three */
	uint64_t capacity_bps;          /* C: nominal (mean) capacity */
	uint64_t ef_exp_bps;            /* R_EF^exp, 0 <= . < C */
	int      has_ef;                /* 0: R_EF = R_EF^exp */
	uint64_t ef_bps;                /* R_EF, the actual EF rate, 0..C */
	enum params_lr_mode lr_mode;
	uint64_t lr_period_ns;          /* PARAMS_LR_PERIOD: T */
	uint64_t lr_bytes;              /* PARAMS_LR_BYTES */
	enum params_rule rule;          /* the main block's set */
};

/* The calibrated set. */
struct params_cal {
	double   bw;                    /* K_AF (C - R_EF^exp) / C */
	double   lm_eq5_bytes;          /* eq. 5 with this BW, unrounded */
	double   lm_window_bytes;       /* 16 L_AF (1 - K_AF), unrounded */
	double   lr_floor_bytes;        /* 2 L_max BW, unrounded */
	uint64_t lr_bytes;              /* max(the LR chosen, ceil(floor)) */
	uint64_t lm_bytes;              /* LR + max(round(eq. 5),
					 * ceil(window)) */
	int      lr_raised;             /* the floor replaced the LR chosen */
	int      lm_widened;            /* the window replaced eq. 5 */
	double   startup_s;             /* as params_out.startup_s */
	double   window_pkts;           /* params_window_pkts() */
	double   idle_window_s;         /* params_idle_window_s() */
};

struct params_out {
	/* effective inputs (defaults resolved) */
	uint32_t l_ef_bytes, l_max_bytes;
	uint64_t ef_bps;

	double   k_af;                  /* eq. 2 */
	double   b;                     /* eq. 4 */
	double   bw;                    /* eq. 3, fraction of C */
	double   lm_eq5_bytes;          /* eq. 5 alone, unrounded */
	double   lr_bound_bytes;        /* 2.1 lower bound, unrounded */
	double   lr_exact_bytes;        /* LR before rounding */
	uint64_t lr_bytes;              /* as configured */
	uint64_t lm_bytes;              /* max(round(eq. 5), 1) + lr_bytes */
	uint64_t quantum_af_bytes;      /* DWRR, same weights */
	uint64_t quantum_cs0_bytes;

	double   wrr_af_bps, wrr_cs0_bps;       /* eqs. 1, 6 */
	double   pss_af_bps, pss_cs0_bps;       /* eqs. 7, 8 */
	int      eq7_limited;           /* eq. 7 took C - R_EF (EF above
					 * what AF's reservation leaves) */
	/* With the credit starting at 0 and greedy AF and CS0, the time AF
	 * holds p_high before the credit first reaches LM (CS0 gets nothing
	 * meanwhile): LM / ((C - R_EF)(1 - BW) - R_EF BW); < 0: never. */
	double   startup_s;
	double   window_pkts;           /* params_window_pkts(), eqs. 3-5 */
	double   idle_window_s;         /* params_idle_window_s(), eqs. 3-5 */

	struct params_cal cal;          /* the calibrated set */
};

/* The quantities params_compute() checks, as its messages name them. */
enum params_qty {
	PARAMS_Q_NONE = 0,
	PARAMS_Q_W_AF,          /* "W_AF" */
	PARAMS_Q_W_CS0,         /* "W_CS0" */
	PARAMS_Q_L_AF,          /* "L_AF" */
	PARAMS_Q_L_CS0,         /* "L_CS0" */
	PARAMS_Q_L_EF,          /* "L_EF" */
	PARAMS_Q_L_MAX,         /* "L_max" */
	PARAMS_Q_C,             /* "C" */
	PARAMS_Q_R_EF_EXP,      /* "R_EF^exp" */
	PARAMS_Q_R_EF,          /* "R_EF" */
	PARAMS_Q_LR,            /* "LR" (lr_mode, lr_bytes) */
	PARAMS_Q_T,             /* "T", the period of LR = T C BW */
	PARAMS_Q_LM,            /* "LM" (derived: eq. 5 + LR) */
	PARAMS_Q_RULE,          /* "rule" */
	PARAMS_Q_COUNT
};

/* The name of quantity q in messages; "?" outside the enum. */
const char *params_qty_name(enum params_qty q);

/* Validates `in` and fills `out` (both sets).  0, or -1 with one message
 * in err of the form "QUANTITY: 'value' problem (accepted: ...)": it
 * starts with params_qty_name() of the quantity at fault and ": ", quotes
 * the value and gives the accepted range.  It names no command-line
 * option (the caller may map the quantity to one). */
int params_compute(const struct params_in *in, struct params_out *out,
		   char *err, size_t errlen);

/* Writes the ready-to-paste libconfig `scheduler` block with the set
 * in->rule selects.  Groups of schedulers this build lacks are written
 * commented out when `only_registered` is set (so that the block loads in
 * this build). */
void params_write_conf(FILE *f, const struct params_in *in,
		       const struct params_out *out, int only_registered);
/* The same with the set `rule`, whatever in->rule says. */
void params_write_conf_rule(FILE *f, const struct params_in *in,
			    const struct params_out *out,
			    enum params_rule rule, int only_registered);

struct conf;
struct sim_result;
/* The configuration params_simulate() runs with the set `rule`, built
 * directly (no file): conf_defaults(), the link constant at C, an MTU
 * that fits the packets (576..9000), no stats, scheduler pss with its
 * defaults for that link, then bw, lm, lr, capacity (and credit_init = LR
 * when LR > 0, trace when trace_path is given) set through pss's key table
 * with the text the printed block holds, then pss's check, as if the file
 * had been read.  0; 1 when it cannot be built (pss not in this build, a
 * packet above 9000 bytes, a value pss refuses: the reason in why, pss's
 * own messages on err).  Either way the caller conf_free()s c. */
int params_sim_conf(const struct params_in *in, const struct params_out *out,
		    enum params_rule rule, const char *trace_path,
		    struct conf *c, FILE *err, char *why, size_t whylen);
/* Runs Algorithm 1 (the daemon's pss) in the offline simulator with the
 * set `rule`: a constant link at C, EF CBR at R_EF with L_EF packets,
 * greedy AF and CS0 with L_AF and L_CS0 packets, `dur_ns` of virtual time
 * of which the first twelfth is left out of the means; the credit starts
 * at LR.  With `trace_path`, pss writes its credit trace there
 * (`scheduler.pss.trace`).  0 and *res; 1 when it cannot run (the reason
 * in why); -1 when the simulator failed (its message on err). */
int params_simulate(const struct params_in *in, const struct params_out *out,
		    enum params_rule rule, uint64_t dur_ns,
		    const char *trace_path, struct sim_result *res, FILE *err,
		    char *why, size_t whylen);

/* The command: argv[0] is "params".  Writes the report to out, errors to
 * err.  Returns the exit code (0, or 1 for a usage or parameter error). */
int params_cli(int argc, char **argv, FILE *out, FILE *err);
/* params_cli on stdout/stderr: `schedtun params ...` */
int params_main(int argc, char **argv);

#endif
