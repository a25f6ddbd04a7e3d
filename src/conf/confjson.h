/* confjson.h - internal to src/conf: the effective configuration as JSON
 * (confjson.c), written by conf_load_json() while the file's settings are
 * still in hand. */
#ifndef SCHEDTUN_CONFJSON_H
#define SCHEDTUN_CONFJSON_H

struct conf;
struct config_setting_t;
struct jw;

/* Member "conf" of the object open in w: the valid conf c, read from the
 * file whose root setting is root. */
void conf_json_write(struct jw *w, const struct conf *c,
		     const struct config_setting_t *root);

#endif
