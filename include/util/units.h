/* units.h - rates, durations and sizes as tc users write them.
 *
 * Rates: a plain number is bit/s; suffixes are case-insensitive as in
 * iproute2: bit, kbit, mbit, gbit, tbit (SI, x1000) and kibit, mibit, gibit,
 * tibit (x1024); bps, kbps, mbps, gbps, tbps mean BYTES per second exactly as
 * in tc(8) (so "20mbps" is 160 Mbit/s).  "unlimited" is accepted only where
 * the caller allows it.
 * Durations: a plain number is seconds; suffixes ns, us, ms, s (also "sec",
 * "secs", "msec", "usec"), case-insensitive.
 */
#ifndef SCHEDTUN_UNITS_H
#define SCHEDTUN_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define RATE_UNLIMITED UINT64_MAX

/* Each parser returns 0 and stores the value, or -1 and writes a message of
 * the form "'VALUE' is not a rate (accepted: ...)" into err[errlen]; a
 * VALUE above 80 characters is quoted as its first 80 and "...". */
int parse_rate_bps(const char *s, int allow_unlimited, uint64_t *out_bps,
		   char *err, size_t errlen);
int parse_duration_ns(const char *s, uint64_t *out_ns, char *err, size_t errlen);

/* Formats for humans ("20Mbit", "250ms"); returns buf. */
const char *fmt_rate(uint64_t bps, char *buf, size_t len);
const char *fmt_duration(uint64_t ns, char *buf, size_t len);

#endif
