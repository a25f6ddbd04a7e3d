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
 * L_AF, L_CS0 are average packet sizes (IP bytes); every size is in bytes,
 * every rate in bit/s, LM and LR in bytes (the daemon's units: DESIGN 3).
 * The functions below are pure; params_compute() validates a whole input
 * set with messages that quote the bad value and the accepted range.
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
};

/* Validates `in` and fills `out`.  0, or -1 with one message in err that
 * names the option, quotes the value and gives the accepted range. */
int params_compute(const struct params_in *in, struct params_out *out,
		   char *err, size_t errlen);

/* Writes the ready-to-paste libconfig `scheduler` block.  Groups of
 * schedulers this build lacks are written commented out when
 * `only_registered` is set (so that the block loads in this build). */
void params_write_conf(FILE *f, const struct params_in *in,
		       const struct params_out *out, int only_registered);

/* The command: argv[0] is "params".  Writes the report to out, errors to
 * err.  Returns the exit code (0, or 1 for a usage or parameter error). */
int params_cli(int argc, char **argv, FILE *out, FILE *err);
/* params_cli on stdout/stderr: `schedtun params ...` */
int params_main(int argc, char **argv);

#endif
