/* test_confallow.c - tunnel.allow (src/conf/confallow.c): one prefix or
 * a list, IPv4 and IPv6, the exact prefix boundary in conf_allows();
 * each bad element reported at its line (not a prefix, host bits set, a
 * length out of range, not a string), an empty list, 17 prefixes, allow
 * together with peer; --check --json writes the list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>
#include "conf/conf.h"
#include "util/jw.h"
#include "testutil.h"

static struct conf g_conf;

static int allows4(const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(1) };

	assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
	return conf_allows(&g_conf, (struct sockaddr *)&a, sizeof(a));
}

static int allows6(const char *ip)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(1) };

	assert_int_equal(inet_pton(AF_INET6, ip, &a.sin6_addr), 1);
	return conf_allows(&g_conf, (struct sockaddr *)&a, sizeof(a));
}

static void test_allow_lists(void **state)
{
	(void)state;
	assert_int_equal(tu_conf_load_text("tunnel = { allow = \"192.0.2.0/25\"; };\n",
					   "one.conf", &g_conf), 0);
	assert_int_equal(g_conf.n_allow, 1);
	assert_true(allows4("192.0.2.0"));
	assert_true(allows4("192.0.2.127"));
	assert_false(allows4("192.0.2.128"));
	assert_false(allows4("192.0.3.1"));
	assert_false(allows6("2001:db8::1"));
	assert_true(allows6("::ffff:192.0.2.5"));
	conf_free(&g_conf);

	assert_int_equal(tu_conf_load_text("tunnel = { allow = [\"10.1.2.3/32\", "
					   "\"2001:db8:40::/42\", \"0.0.0.0/0\"]; };\n",
					   "list.conf", &g_conf), 0);
	assert_int_equal(g_conf.n_allow, 3);
	assert_true(allows6("2001:db8:40::1"));
	assert_true(allows6("2001:db8:7f:ffff::1"));   /* last of the /42 */
	assert_false(allows6("2001:db8:80::"));
	assert_true(allows4("203.0.113.9"));           /* 0.0.0.0/0 */
	conf_free(&g_conf);

	/* no list: anyone may be pinned */
	assert_int_equal(tu_conf_load_text("tunnel = { mtu = 1400; };\n", "none.conf",
					   &g_conf), 0);
	assert_int_equal(g_conf.n_allow, 0);
	assert_true(allows6("2001:db8::1"));
	conf_free(&g_conf);
}

static void test_allow_refusals(void **state)
{
	char text[2048];
	size_t n;
	int i;

	(void)state;
	/* a libconfig list ( ), which may mix types, unlike an array [ ] */
	assert_int_equal(tu_conf_load_text("tunnel = { allow = (\"10.0.0.1/24\",\n"
					   "\"10.0.0.0/33\",\n\"fe80::1/10\",\n"
					   "\"10.0.0.0\",\n7 ); };\n", "bad.conf",
					   &g_conf), 5);
	assert_non_null(strstr(tu_conf_diag(), "bad.conf:1: tunnel.allow[0]: '10.0.0.1/24' "
			       "has host bits set (accepted: a network prefix"));
	assert_non_null(strstr(tu_conf_diag(), "bad.conf:2: tunnel.allow[1]: '10.0.0.0/33' "
			       "is not a prefix"));
	assert_non_null(strstr(tu_conf_diag(), "bad.conf:3: tunnel.allow[2]: 'fe80::1/10' "
			       "has host bits set"));
	assert_non_null(strstr(tu_conf_diag(), "bad.conf:4: tunnel.allow[3]: '10.0.0.0' "
			       "is not a prefix"));
	assert_non_null(strstr(tu_conf_diag(), "bad.conf:5: tunnel.allow[4]: 7 is not a "
			       "prefix"));
	conf_free(&g_conf);

	assert_int_equal(tu_conf_load_text("tunnel = { allow = []; };\n", "empty.conf",
					   &g_conf), 1);
	assert_non_null(strstr(tu_conf_diag(), "an empty list (accepted: 1..16"));
	conf_free(&g_conf);

	n = (size_t)snprintf(text, sizeof(text), "tunnel = { allow = [");
	for (i = 0; i < CONF_ALLOW_MAX + 1; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s\"10.%d.0.0/16\"",
				      i ? ", " : "", i);
	snprintf(text + n, sizeof(text) - n, "]; };\n");
	assert_int_equal(tu_conf_load_text(text, "many.conf", &g_conf), 1);
	assert_non_null(strstr(tu_conf_diag(), "'10.16.0.0/16': more than 16 prefixes"));
	conf_free(&g_conf);

	assert_int_equal(tu_conf_load_text("tunnel = { peer = \"10.0.0.2:5000\";\n"
					   "allow = \"10.0.0.0/24\"; };\n", "both.conf",
					   &g_conf), 1);
	assert_non_null(strstr(tu_conf_diag(), "both.conf:2: tunnel.allow: given together "
			       "with peer (line 1) (accepted: peer to fix the sender"));
	conf_free(&g_conf);
}

static void test_allow_json(void **state)
{
	char path[] = "/tmp/schedtun-allow-XXXXXX.conf";
	const char *buf;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("tunnel = { allow = [\"192.0.2.0/24\", \"2001:db8::/32\"]; };\n", f);
	assert_int_equal(fclose(f), 0);
	buf = tu_conf_json(path, &g_conf);
	unlink(path);
	assert_non_null(strstr(buf, "\"allow\": [\"192.0.2.0/24\", \"2001:db8::/32\"]"));
	conf_free(&g_conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_lists),
		cmocka_unit_test(test_allow_refusals),
		cmocka_unit_test(test_allow_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
