/* plogfmt.c - one packet event as one CSV line (see plog.h).
 *
 * Hand-written formatting: snprintf interprets its format string and
 * locale rules at every call, for every one of a dozen fields, on the
 * packet path; these digit loops do only the digits (the log's measured
 * cost: docs/pktlog.md).  No field can contain a comma, a quote
 * or a newline (numbers, addresses, fixed names), so no quoting is needed
 * and every line has exactly the header's number of columns.
 */
#include <arpa/inet.h>
#include <string.h>
#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "plog/plog.h"

const char *const plog_event_name[PLOG_EVENT_MAX] = {
	[PLOG_ENQ] = "enq", [PLOG_DEP] = "dep",
	[PLOG_DROP] = "drop", [PLOG_ARR] = "arr",
};

const char plog_header[] =
	"t_ns,event,class,dscp,proto,src,sport,dst,dport,len_bytes,seq,"
	"sojourn_ns,start_ns,owd_ns,verdict,reason\n";

static char *put_u64(char *o, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*o++ = tmp[--n];
	return o;
}

static char *put_i64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		return put_u64(o, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(o, (uint64_t)v);
}

/* At most 31 bytes are copied: every name passed in is a fixed,
 * comma-free identifier, and a line stays within PLOG_LINE_MAX (the
 * reason's prefix and name are both short: "rx_inner_" + a verdict). */
static char *put_str(char *o, const char *s)
{
	size_t n = s ? strnlen(s, 31) : 0;

	memcpy(o, s ? s : "", n);
	return o + n;
}

static char *put_addr(char *o, const uint8_t *a, unsigned version)
{
	char b[INET6_ADDRSTRLEN];

	if (version == 4) {
		for (int i = 0; i < 4; i++) {
			if (i)
				*o++ = '.';
			o = put_u64(o, a[i]);
		}
		return o;
	}
	if (!inet_ntop(AF_INET6, a, b, sizeof(b)))
		return o;
	memcpy(o, b, strlen(b));
	return o + strlen(b);
}

/* dscp,proto,src,sport,dst,dport of a valid packet, or five commas. */
static char *put_tuple(char *o, const uint8_t *ip, uint32_t len)
{
	struct ip_info ii;

	if (!ip || ip_inspect(ip, len, &ii) != IP_OK)
		return put_str(o, ",,,,,");
	o = put_u64(o, ii.dscp);
	*o++ = ',';
	o = put_u64(o, ii.proto);
	*o++ = ',';
	o = put_addr(o, ip + IP_SRC_OFF(ii.version), ii.version);
	*o++ = ',';
	if (ii.l4_off)
		o = put_u64(o, (uint32_t)ip[ii.l4_off] << 8 | ip[ii.l4_off + 1]);
	*o++ = ',';
	o = put_addr(o, ip + IP_DST_OFF(ii.version), ii.version);
	*o++ = ',';
	if (ii.l4_off)
		o = put_u64(o, (uint32_t)ip[ii.l4_off + 2] << 8 | ip[ii.l4_off + 3]);
	return o;
}

size_t plog_format(const struct plog_rec *r, char *out)
{
	char *o = out;

	o = put_i64(o, r->t_ns);
	*o++ = ',';
	o = put_str(o, r->event < PLOG_EVENT_MAX ? plog_event_name[r->event] : "");
	*o++ = ',';
	if (r->cls < NCLASS)
		o = put_str(o, cls_name[r->cls]);
	*o++ = ',';
	o = put_tuple(o, r->ip, r->len_bytes);
	*o++ = ',';
	if (r->has & PLOG_HAS_LEN)
		o = put_u64(o, r->len_bytes);
	*o++ = ',';
	if (r->has & PLOG_HAS_SEQ)
		o = put_u64(o, r->seq);
	*o++ = ',';
	if (r->has & PLOG_HAS_SOJOURN)
		o = put_i64(o, r->sojourn_ns);
	*o++ = ',';
	if (r->has & PLOG_HAS_START)
		o = put_i64(o, r->start_ns);
	*o++ = ',';
	if (r->has & PLOG_HAS_OWD)
		o = put_i64(o, r->owd_ns);
	*o++ = ',';
	if (r->verdict < PKT_V_MAX)
		o = put_str(o, pkt_verdict_name[r->verdict]);
	*o++ = ',';
	o = put_str(o, r->reason_prefix);
	o = put_str(o, r->reason);
	*o++ = '\n';
	return (size_t)(o - out);
}
