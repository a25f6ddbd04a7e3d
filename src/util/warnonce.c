/* warnonce.c - log a repeating failure once per episode (see warnonce.h). */
#include <string.h>
#include "util/log.h"
#include "util/warnonce.h"

void warn_once_init(struct warn_once *w, const char *what, const char *then)
{
	memset(w, 0, sizeof(*w));
	w->what = what;
	w->then = then;
}

void warn_once_fail(struct warn_once *w, int err, tstamp_ns now)
{
	w->last_ns = now;
	w->episode_fails++;
	if (w->active)
		return;
	w->active = 1;
	log_warn("%s: %s; %s (not logged again until %llu s pass "
		 "without a failure)", w->what, err ? strerror(err) : "failed",
		 w->then, (unsigned long long)(WARN_QUIET_NS / NS_PER_SEC));
}

void warn_once_poll(struct warn_once *w, tstamp_ns now)
{
	/* now < last_ns: callers' clocks read a moment apart; not quiet. */
	if (!w->active || now < w->last_ns || now - w->last_ns < WARN_QUIET_NS)
		return;
	log_info("%s: works again after %llu failure%s", w->what,
		 (unsigned long long)w->episode_fails,
		 w->episode_fails == 1 ? "" : "s");
	w->active = 0;
	w->episode_fails = 0;
}
