/* confmark.h - internal to src/conf: the `marker` section (confmark.c). */
#ifndef SCHEDTUN_CONFMARK_H
#define SCHEDTUN_CONFMARK_H

#include "cfgval/cfgval.h"
#include "conf/conf.h"

struct config_setting_t;
struct jw;

extern const struct cfg_key marker_keys[];      /* seed, ef, af */
extern const struct cfg_key marker_cls_keys[];  /* each class's group */

/* No class marked, seed 1. */
void conf_marker_defaults(struct marker_params *m);

/* Section g (NULL: absent) into c->marker, after c->dscp is final.
 * Errors through d; a class with an error stays unmarked. */
void conf_parse_marker(const struct config_setting_t *g, struct conf *c,
		       struct diag *d);

/* Member "marker" of the object open in w: seed, and per class its keys
 * or null. */
void conf_marker_json(struct jw *w, const struct conf *c);

#endif
