/* test_rt.c - rt_apply() (tunnel.realtime): the contract of rt.h on this
 * test's own thread.  The on/off checks need the right to SCHED_FIFO
 * (root, or CAP_SYS_NICE, or ulimit -r >= 20): without it the refusal is
 * checked, and then the test fails, saying what is missing, unless the
 * caller declared the machine unable with SCHEDTUN_TEST_ALLOW_SKIP=WHY
 * (docs/testing.md), which makes it a skip ("SKIP: test_rt: ..." and
 * cmocka's SKIPPED, both listed by scripts/test.sh).  test_realtime.sh
 * checks both on a running daemon. */
#include <errno.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/sched.h>
#include <sys/syscall.h>

#include "util/log.h"
#include "util/rt.h"
#include "testutil.h"

static int policy_now(void)
{
	return (int)syscall(SYS_sched_getscheduler, 0);
}

static int prio_now(void)
{
	int param[1] = { -1 };     /* the kernel's struct sched_param */

	assert_int_equal(syscall(SYS_sched_getparam, 0, param), 0);
	return param[0];
}

/* Out of range: refused with the range, nothing changed. */
static void test_range(void **state)
{
	struct rt_state st = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(rt_apply(&st, 100, err, sizeof(err)), -1);
	assert_string_equal(err, "realtime 100: out of range (accepted: 0..99)");
	assert_int_equal(rt_apply(&st, -1, err, sizeof(err)), -1);
	assert_string_equal(err, "realtime -1: out of range (accepted: 0..99)");
	assert_int_equal(st.prio, 0);
	assert_int_equal(st.locked, 0);
	assert_int_equal(policy_now(), SCHED_NORMAL);
}

/* 0 from 0: nothing to do, the inherited policy is left alone. */
static void test_off_is_noop(void **state)
{
	struct rt_state st = { 0 };
	char err[256] = "", desc[128];

	(void)state;
	assert_int_equal(rt_apply(&st, 0, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(policy_now(), SCHED_NORMAL);
	assert_string_equal(rt_describe(&st, desc, sizeof(desc)),
			    "off (SCHED_OTHER)");
}

/* Whether this thread may run under SCHED_FIFO at all, asked of the
 * kernel directly (and undone), so that a broken rt_apply() fails the
 * test instead of looking like a machine without the right. */
static int fifo_allowed(void)
{
	int fifo[1] = { 10 }, normal[1] = { 0 };

	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, fifo) != 0)
		return 0;
	assert_int_equal(syscall(SYS_sched_setscheduler, 0, SCHED_NORMAL,
				 normal), 0);
	return 1;
}

/* 10, 20 (a change), 20 again (a re-lock), 0: the thread's policy follows
 * and *st says what is in effect. */
static void test_on_change_off(void **state)
{
	struct rt_state st = { 0 };
	char err[512] = "", desc[160];
	char why[768];

	(void)state;
	if (!fifo_allowed()) {
		/* no right to SCHED_FIFO here: the refusal is the contract */
		assert_int_equal(rt_apply(&st, 10, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "realtime 10: "));
		assert_int_equal(st.prio, 0);
		assert_int_equal(policy_now(), SCHED_NORMAL);
		snprintf(why, sizeof(why), "SCHED_FIFO is refused to this "
			 "process (%s): the on path of tunnel.realtime is not "
			 "tested (needs root, CAP_SYS_NICE or ulimit -r 20)", err);
		tu_cannot_run("test_rt: test_on_change_off", why);
	}
	assert_int_equal(rt_apply(&st, 10, err, sizeof(err)), 0);
	assert_int_equal(policy_now(), SCHED_FIFO);
	assert_int_equal(prio_now(), 10);
	assert_int_equal(st.prio, 10);
	rt_describe(&st, desc, sizeof(desc));
	if (st.locked)
		assert_string_equal(desc, "SCHED_FIFO 10, memory locked");
	else            /* an AddressSanitizer build */
		assert_non_null(strstr(desc, "memory not locked (AddressSanitizer"));

	assert_int_equal(rt_apply(&st, 20, err, sizeof(err)), 0);
	assert_int_equal(prio_now(), 20);
	assert_int_equal(rt_apply(&st, 20, err, sizeof(err)), 0);
	assert_int_equal(prio_now(), 20);

	assert_int_equal(rt_apply(&st, 0, err, sizeof(err)), 0);
	assert_int_equal(policy_now(), SCHED_NORMAL);
	assert_int_equal(st.prio, 0);
	assert_int_equal(st.locked, 0);
	print_message("test_on_change_off: SCHED_FIFO 10, 20, 20, off: "
		      "applied and undone\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_off_is_noop),
		cmocka_unit_test(test_on_change_off),
	};

	log_set_level(LOG_WARN);        /* rt_apply's "realtime: ..." lines */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
