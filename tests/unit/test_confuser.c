/* test_confuser.c - tunnel.user, tunnel.group and tunnel.sandbox
 * (src/conf/confuser.c, conf.c): the sandbox's three modes, anything
 * else refused; names and numeric ids are resolved at
 * load; root's uid and gid are refused, as are unknown names, a uid
 * without a passwd entry and no group, a group without a user and empty
 * names, each with its reason; --check --json shows them; after
 * conf_ids_freeze() (the privilege drop) the running names resolve
 * without the name service and any other name is refused.  Uses the
 * passwd entries every Debian system has: nobody (65534, group nogroup
 * 65534) and daemon (1, group daemon 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "conf/conf.h"
#include "testutil.h"

static struct conf g_conf;

static int load(const char *tunnel_body)
{
	char text[512];

	snprintf(text, sizeof(text), "tunnel = {\n%s\n};\n", tunnel_body);
	return tu_conf_load_text(text, "u.conf", &g_conf);
}

static void expect_error(const char *tunnel_body, const char *msg)
{
	assert_int_equal(load(tunnel_body), 1);
	if (!strstr(tu_conf_diag(), msg))
		fail_msg("expected '%s' in: %s", msg, tu_conf_diag());
}

static void test_user_by_name_and_number(void **state)
{
	(void)state;
	assert_int_equal(load("user = \"nobody\";"), 0);
	assert_true(g_conf.has_user);
	assert_string_equal(g_conf.user, "nobody");
	assert_int_equal(g_conf.uid, 65534);
	assert_int_equal(g_conf.gid, 65534);
	assert_string_equal(g_conf.group, "");
	conf_free(&g_conf);

	assert_int_equal(load("user = \"65534\";"), 0);
	assert_int_equal(g_conf.uid, 65534);
	assert_int_equal(g_conf.gid, 65534);
	conf_free(&g_conf);

	assert_int_equal(load("user = \"nobody\";\ngroup = \"daemon\";"), 0);
	assert_int_equal(g_conf.uid, 65534);
	assert_int_equal(g_conf.gid, 1);
	assert_int_equal(g_conf.user_gid, 65534);
	assert_string_equal(g_conf.group, "daemon");
	conf_free(&g_conf);

	assert_int_equal(load("user = \"nobody\";\ngroup = \"1\";"), 0);
	assert_int_equal(g_conf.gid, 1);
	conf_free(&g_conf);

	/* without the key: nobody to become */
	assert_int_equal(load("mtu = 1400;"), 0);
	assert_false(g_conf.has_user);
	conf_free(&g_conf);
}

/* A uid no passwd entry names has no primary group. */
static void test_uid_without_entry(void **state)
{
	char body[128];
	unsigned uid = 4242;

	(void)state;
	while (getpwuid(uid))
		uid++;
	snprintf(body, sizeof(body), "user = \"%u\";", uid);
	expect_error(body, "u.conf: tunnel.user: '");
	assert_non_null(strstr(tu_conf_diag(), "' has no passwd entry, so no group "
			       "of its own (accepted: tunnel.group with it"));
	snprintf(body, sizeof(body), "user = \"%u\";\ngroup = \"nogroup\";", uid);
	assert_int_equal(load(body), 0);
	assert_int_equal(g_conf.uid, uid);
	assert_int_equal(g_conf.gid, 65534);
	conf_free(&g_conf);
}

static void test_refused(void **state)
{
	(void)state;
	expect_error("user = \"root\";", "u.conf:2: tunnel.user: 'root' is uid 0: "
		     "the daemon would keep root (accepted: an unprivileged user");
	expect_error("user = \"0\";", "tunnel.user: '0' is uid 0");
	expect_error("user = \"nobody\";\ngroup = \"root\";",
		     "u.conf:3: tunnel.group: 'root' is gid 0");
	expect_error("user = \"nobody\";\ngroup = \"0\";", "tunnel.group: '0' is gid 0");
	expect_error("user = \"no-such-user-st\";", "tunnel.user: 'no-such-user-st': "
		     "no such user (accepted: a user name or a numeric uid");
	expect_error("user = \"nobody\";\ngroup = \"no-such-group-st\";",
		     "tunnel.group: 'no-such-group-st': no such group");
	expect_error("user = \"\";", "tunnel.user: empty (accepted: a name or a numeric id)");
	expect_error("group = \"nogroup\";", "tunnel.group");
	expect_error("user = 65534;", "tunnel.user");           /* not a string */
	expect_error("user = \"4294967295\";", "no such user"); /* (uid_t)-1 */
}

static void test_sandbox_modes(void **state)
{
	(void)state;
	assert_int_equal(load("mtu = 1400;"), 0);
	assert_int_equal(g_conf.sandbox, CONF_SANDBOX_ON);     /* the default */
	conf_free(&g_conf);
	assert_int_equal(load("sandbox = true;"), 0);
	assert_int_equal(g_conf.sandbox, CONF_SANDBOX_ON);
	conf_free(&g_conf);
	assert_int_equal(load("sandbox = false;"), 0);
	assert_int_equal(g_conf.sandbox, CONF_SANDBOX_OFF);
	conf_free(&g_conf);
	assert_int_equal(load("sandbox = \"log\";"), 0);
	assert_int_equal(g_conf.sandbox, CONF_SANDBOX_LOG);
	conf_free(&g_conf);
	expect_error("sandbox = \"yes\";", "u.conf:2: tunnel.sandbox: 'yes' is not "
		     "a sandbox mode (accepted: true, false, or \"log\"");
	expect_error("sandbox = 1;", "tunnel.sandbox: 1 is not a sandbox mode");
}

static void test_json(void **state)
{
	const char *j;
	char path[256];
	FILE *f;
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(path, sizeof(path), "%s/st-confuser-%d.conf", t && *t ? t : "/tmp",
		 (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("tunnel = { user = \"nobody\"; group = \"daemon\"; "
	      "sandbox = \"log\"; };\n", f);
	assert_int_equal(fclose(f), 0);
	j = tu_conf_json(path, &g_conf);
	assert_non_null(strstr(j, "\"user\": \"nobody\""));
	assert_non_null(strstr(j, "\"group\": \"daemon\""));
	assert_non_null(strstr(j, "\"sandbox\": \"log\""));
	conf_free(&g_conf);
	remove(path);
}

/* In a child process (the freeze cannot be undone): text loaded after a
 * freeze of a daemon started without tunnel.user; 0 when its one error
 * contains want. */
static int child_frozen_without_user(const char *text, const char *want)
{
	char path[256], *msgs = NULL;
	size_t msgs_len = 0;
	struct conf c;
	struct diag d;
	FILE *f, *mem;
	const char *t = getenv("TMPDIR");
	int errs;

	conf_defaults(&c);
	conf_ids_freeze(&c);
	snprintf(path, sizeof(path), "%s/st-confuser-c%d.conf", t && *t ? t : "/tmp",
		 (int)getpid());
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return 2;
	mem = open_memstream(&msgs, &msgs_len);
	if (!mem)
		return 2;
	diag_init(&d, mem, path);
	errs = conf_load(path, &c, &d);
	fclose(mem);
	remove(path);
	fprintf(stderr, "%s", msgs);
	return errs == 1 && strstr(msgs, want) ? 0 : 1;
}

static void test_frozen_without_user(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_frozen_without_user("tunnel = { user = \"nobody\"; };\n",
			"tunnel.user: 'nobody': the daemon gave up the privileges to "
			"change its user at start-up (accepted: no tunnel.user, as at "
			"start-up; restart the daemon to change it)"));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Last: the freeze cannot be undone in this process. */
static void test_frozen_after_the_drop(void **state)
{
	(void)state;
	assert_int_equal(load("user = \"nobody\";\ngroup = \"daemon\";"), 0);
	conf_ids_freeze(&g_conf);
	conf_free(&g_conf);

	assert_int_equal(load("user = \"nobody\";\ngroup = \"daemon\";"), 0);
	assert_int_equal(g_conf.uid, 65534);
	assert_int_equal(g_conf.user_gid, 65534);
	assert_int_equal(g_conf.gid, 1);
	conf_free(&g_conf);
	expect_error("user = \"daemon\";\ngroup = \"daemon\";",
		     "tunnel.user: 'daemon': the daemon gave up the privileges to "
		     "change its user at start-up (accepted: 'nobody', the running "
		     "one; restart the daemon to change it)");
	expect_error("user = \"nobody\";", "tunnel.group: absent: the daemon gave "
		     "up the privileges to change its group at start-up (accepted: "
		     "'daemon', the running one;");
	expect_error("mtu = 1400;", "tunnel.user: absent: the daemon gave up the "
		     "privileges to change its user at start-up (accepted: "
		     "'nobody', the running one;");
	expect_error("user = \"nobody\";\ngroup = \"nogroup\";",
		     "tunnel.group: 'nogroup': the daemon gave up the privileges");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_by_name_and_number),
		cmocka_unit_test(test_uid_without_entry),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_sandbox_modes),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_frozen_without_user),
		cmocka_unit_test(test_frozen_after_the_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
