/* test_confkey.c - tunnel.key_file, tunnel.encrypt and tunnel.key_grace
 * (src/conf/confkey.c): a key file of mode 0600 or 0400 is read, relative
 * to the configuration file's directory or absolute; a file others may
 * read, a missing file, a directory, a file that is not a key are each
 * one error naming the path and never quoting the file's text; encrypt
 * and key_grace without a key are errors; --check --json shows the path,
 * never the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "conf/conf.h"
#include "util/jw.h"
#include "testutil.h"

/* "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=" is bytes 1..32 */
#define KEY_TEXT "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=\n"

static char dir[256];
static struct conf g_conf;

static void put_file(const char *name, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/schedtun-key-XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Loads the configuration `body` written as dir/name; the error count. */
static int load(const char *name, const char *body)
{
	char path[512];

	put_file(name, body, 0644);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return tu_conf_load(path, &g_conf);
}

static void test_key_relative_and_absolute(void **state)
{
	char body[800];

	(void)state;
	put_file("a.key", KEY_TEXT, 0600);
	assert_int_equal(load("rel.conf", "tunnel = { key_file = \"a.key\"; "
			      "encrypt = true; key_grace = \"5s\"; };\n"), 0);
	assert_true(g_conf.has_key);
	assert_true(g_conf.encrypt);
	assert_int_equal(g_conf.key_grace_ns, 5 * NS_PER_SEC);
	for (int i = 0; i < 32; i++)
		assert_int_equal(g_conf.key.b[i], i + 1);
	assert_non_null(strstr(g_conf.key_file, "/a.key"));
	assert_int_equal(strncmp(g_conf.key_file, dir, strlen(dir)), 0);
	conf_free(&g_conf);

	put_file("b.key", KEY_TEXT, 0400);
	snprintf(body, sizeof(body), "tunnel = { key_file = \"%s/b.key\"; };\n", dir);
	assert_int_equal(load("abs.conf", body), 0);
	assert_true(g_conf.has_key);
	assert_false(g_conf.encrypt);
	assert_int_equal(g_conf.key_grace_ns, 60 * NS_PER_SEC);
	conf_free(&g_conf);

	/* no key: the defaults */
	assert_int_equal(load("none.conf", "tunnel = { mtu = 1400; };\n"), 0);
	assert_false(g_conf.has_key);
	assert_int_equal(g_conf.key_file[0], 0);
	conf_free(&g_conf);
}

static void test_key_refusals(void **state)
{
	(void)state;
	put_file("open.key", KEY_TEXT, 0644);
	assert_int_equal(load("c1.conf", "tunnel = { key_file = \"open.key\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "c1.conf:1: tunnel.key_file: '"));
	assert_non_null(strstr(tu_conf_diag(), "/open.key': group or others may read "
			       "or write it (mode 0644) (accepted: mode 0600 or 0400"));
	conf_free(&g_conf);

	put_file("grp.key", KEY_TEXT, 0620);
	assert_int_equal(load("c2.conf", "tunnel = { key_file = \"grp.key\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "(mode 0620)"));
	conf_free(&g_conf);

	assert_int_equal(load("c3.conf", "tunnel = { key_file = \"nope.key\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "/nope.key': cannot open: No such file"));
	conf_free(&g_conf);

	assert_int_equal(load("c4.conf", "tunnel = { key_file = \".\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "not a regular file"));
	conf_free(&g_conf);

	/* a key with one character changed: refused, its text never shown */
	put_file("typo.key", "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eH!A=\n", 0600);
	assert_int_equal(load("c5.conf", "tunnel = { key_file = \"typo.key\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "not base64 of 32 bytes"));
	assert_null(strstr(tu_conf_diag(), "AQIDBAUG"));
	conf_free(&g_conf);

	put_file("short.key", "AQIDBAUG\n", 0600);
	assert_int_equal(load("c6.conf", "tunnel = { key_file = \"short.key\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "8 characters (accepted: 44"));
	assert_null(strstr(tu_conf_diag(), "AQIDBAUG"));
	conf_free(&g_conf);

	assert_int_equal(load("c7.conf", "tunnel = { key_file = \"\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "'': empty"));
	conf_free(&g_conf);

	/* both relations, both reported */
	assert_int_equal(load("c8.conf", "tunnel = { encrypt = true;\n"
			      "key_grace = \"10s\"; };\n"), 2);
	assert_non_null(strstr(tu_conf_diag(), "c8.conf:1: tunnel.encrypt: has no "
			       "effect without key_file (accepted: key_file with "
			       "it, or neither"));
	assert_non_null(strstr(tu_conf_diag(), "c8.conf:2: tunnel.key_grace: has no "
			       "effect without key_file"));
	conf_free(&g_conf);

	put_file("c.key", KEY_TEXT, 0600);
	assert_int_equal(load("c9.conf", "tunnel = { key_file = \"c.key\"; "
			      "key_grace = \"2h\"; };\n"), 1);
	assert_non_null(strstr(tu_conf_diag(), "tunnel.key_grace"));
	conf_free(&g_conf);
}

/* The effective configuration names the file, never the key. */
static void test_key_json(void **state)
{
	char path[512];
	const char *buf;

	(void)state;
	put_file("j.key", KEY_TEXT, 0600);
	put_file("j.conf", "tunnel = { key_file = \"j.key\"; };\n", 0644);
	snprintf(path, sizeof(path), "%s/j.conf", dir);
	buf = tu_conf_json(path, &g_conf);
	assert_non_null(strstr(buf, "\"key_file\": \""));
	assert_non_null(strstr(buf, "/j.key\""));
	assert_non_null(strstr(buf, "\"encrypt\": false"));
	assert_non_null(strstr(buf, "\"key_grace\": 60000000000"));
	assert_null(strstr(buf, "AQIDBAUG"));
	conf_free(&g_conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_relative_and_absolute),
		cmocka_unit_test(test_key_refusals),
		cmocka_unit_test(test_key_json),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
