/* params_eq.c - the equations of the PSS parameter calculator: Finzi et
 * al. 2023, eqs. 1-8, the LR rules of 2.1/2.4/4.2.1, and the terms of the
 * calibrated rule (docs/pss.md).  Pure functions of their arguments, no
 * validation (params_set.c validates a whole input set first); every
 * formula is written out in params.h beside its declaration.
 */
#include <math.h>
#include <stdint.h>

#include "params/params.h"

/* ---- the equations ------------------------------------------------------ */

/* eq. 2: AF's share of a WRR round, W_AF L_AF / (W_AF L_AF + W_CS0 L_CS0). */
double params_k_af(uint32_t w_af, uint32_t l_af_bytes,
		   uint32_t w_cs0, uint32_t l_cs0_bytes)
{
	double af = (double)w_af * l_af_bytes;
	double cs0 = (double)w_cs0 * l_cs0_bytes;

	return af / (af + cs0);
}

/* eq. 4: the same with W - 1 packets per class; needs W_AF, W_CS0 >= 2
 * (W_AF = W_CS0 = 1 divides 0 by 0). */
double params_b(uint32_t w_af, uint32_t l_af_bytes,
		uint32_t w_cs0, uint32_t l_cs0_bytes)
{
	double af = ((double)w_af - 1.0) * l_af_bytes;
	double cs0 = ((double)w_cs0 - 1.0) * l_cs0_bytes;

	return af / (af + cs0);
}

/* eq. 3 as a fraction of C: B (C - R_EF^exp) / C; C > 0. */
double params_bw(double b, uint64_t capacity_bps, uint64_t ef_exp_bps)
{
	return b * ((double)capacity_bps - (double)ef_exp_bps) /
	       (double)capacity_bps;
}

/* eq. 5 without LR: L_AF (W_AF - 1) (1 - BW), bytes, unrounded. */
double params_lm_eq5_bytes(uint32_t l_af_bytes, uint32_t w_af, double bw)
{
	return (double)l_af_bytes * ((double)w_af - 1.0) * (1.0 - bw);
}

/* 2.1: the lower bound of LR, L_max BW, bytes, unrounded. */
double params_lr_bound_bytes(uint32_t l_max_bytes, double bw)
{
	return (double)l_max_bytes * bw;
}

/* 4.2.1: T C_avg BW with C in bytes/s, bytes, unrounded. */
double params_lr_period_bytes(uint64_t period_ns, uint64_t capacity_bps,
			      double bw)
{
	return (double)period_ns / 1e9 * ((double)capacity_bps / 8.0) * bw;
}

/* The calibrated floor of LR, 2 L_max BW, bytes, unrounded. */
double params_lr_floor_bytes(uint32_t l_max_bytes, double bw)
{
	return 2.0 * (double)l_max_bytes * bw;
}

/* The calibrated window, PARAMS_CAL_WINDOW_PKTS L_AF (1 - K_AF), bytes. */
double params_lm_window_bytes(uint32_t l_af_bytes, double k_af)
{
	return (double)PARAMS_CAL_WINDOW_PKTS * (double)l_af_bytes *
	       (1.0 - k_af);
}

/* AF packets per sending window with EF at R_EF^exp interleaved; -1 when
 * an AF packet nets no credit (the credit never reaches LM). */
double params_window_pkts(uint64_t lm_minus_lr_bytes, uint32_t l_af_bytes,
			  double bw, uint64_t capacity_bps,
			  uint64_t ef_exp_bps)
{
	/* per AF packet: + L_AF (1 - BW) for itself, - L_AF R/(C - R) BW for
	 * the EF sent meanwhile (R = R_EF^exp, interleaved): in all
	 * L_AF (1 - BW C/(C - R)) */
	double net = (double)l_af_bytes *
		     (1.0 - bw * (double)capacity_bps /
		      ((double)capacity_bps - (double)ef_exp_bps));

	return net > 0.0 ? (double)lm_minus_lr_bytes / net : -1.0;
}

/* The idle window (LM - LR) / (C BW), seconds; BW > 0, C > 0. */
double params_idle_window_s(uint64_t lm_minus_lr_bytes, double bw,
			    uint64_t capacity_bps)
{
	return (double)lm_minus_lr_bytes / ((double)capacity_bps / 8.0 * bw);
}

/* The DWRR quantum of weight W at average size L: W L bytes. */
uint64_t params_quantum_bytes(uint32_t w, uint32_t l_bytes)
{
	return (uint64_t)w * l_bytes;
}

/* eq. 1: K_AF (C - R_EF), bit/s. */
double params_wrr_af_bps(double k_af, uint64_t capacity_bps, uint64_t ef_bps)
{
	return k_af * ((double)capacity_bps - (double)ef_bps);
}

/* eq. 6: (1 - K_AF) (C - R_EF), bit/s. */
double params_wrr_cs0_bps(double k_af, uint64_t capacity_bps, uint64_t ef_bps)
{
	return (1.0 - k_af) * ((double)capacity_bps - (double)ef_bps);
}

/* eq. 7: min(K_AF (C - R_EF^exp), C - R_EF), bit/s. */
double params_pss_af_bps(double k_af, uint64_t capacity_bps,
			 uint64_t ef_exp_bps, uint64_t ef_bps)
{
	return fmin(k_af * ((double)capacity_bps - (double)ef_exp_bps),
		    (double)capacity_bps - (double)ef_bps);
}

/* eq. 8: max(C - R_EF - R_PSS/AF, 0), bit/s. */
double params_pss_cs0_bps(double pss_af_bps, uint64_t capacity_bps,
			  uint64_t ef_bps)
{
	return fmax((double)capacity_bps - (double)ef_bps - pss_af_bps, 0.0);
}
