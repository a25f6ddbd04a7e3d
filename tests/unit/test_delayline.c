/* test_delayline.c - the propagation delay FIFO on a virtual clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "link/delayline.h"
#include "testutil.h"

#define MS NS_PER_MS

/* Packets are identified by seq; the class plays no part here. */
static struct pkt *mkpkt(uint32_t seq, uint32_t len)
{
	return tu_pkt(CLS_CS0, len, seq);
}

static void expect_pop(struct delayline *d, tstamp_ns now, uint32_t seq)
{
	struct pkt *p = delayline_pop_due(d, now);

	assert_non_null(p);
	assert_int_equal(p->seq, seq);
	pkt_free(p);
}

static void test_release_at_finish_plus_delay(void **state)
{
	struct delayline d;

	(void)state;
	delayline_init(&d, 250 * MS);
	assert_int_equal(delayline_next_ns(&d), TS_NEVER);
	assert_null(delayline_pop_due(&d, TS_NEVER - 1));
	delayline_push(&d, mkpkt(1, 100), 1 * MS);
	delayline_push(&d, mkpkt(2, 200), 2 * MS);
	delayline_push(&d, mkpkt(3, 300), 2 * MS);       /* same instant */
	assert_int_equal(d.q.len_pkts, 3);
	assert_int_equal(d.q.len_bytes, 600);
	assert_int_equal(delayline_next_ns(&d), 251 * MS);
	/* one ns early: nothing, and the head stays */
	assert_null(delayline_pop_due(&d, 251 * MS - 1));
	assert_int_equal(d.q.len_pkts, 3);
	expect_pop(&d, 251 * MS, 1);
	assert_null(delayline_pop_due(&d, 251 * MS));
	assert_int_equal(delayline_next_ns(&d), 252 * MS);
	/* a late caller gets everything due, in order */
	expect_pop(&d, 300 * MS, 2);
	expect_pop(&d, 300 * MS, 3);
	assert_null(delayline_pop_due(&d, 300 * MS));
	assert_int_equal(delayline_next_ns(&d), TS_NEVER);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_shrinking_delay_keeps_order(void **state)
{
	struct delayline d;
	struct pkt *p;

	(void)state;
	delayline_init(&d, 250 * MS);
	delayline_push(&d, mkpkt(1, 100), 10 * MS);      /* 260 ms */
	d.delay_ns = 100 * MS;
	/* 20 + 100 = 120 ms would overtake packet 1: held to 260 ms */
	delayline_push(&d, mkpkt(2, 100), 20 * MS);
	/* 200 + 100 = 300 ms is already later: unchanged */
	delayline_push(&d, mkpkt(3, 100), 200 * MS);
	d.delay_ns = 500 * MS;
	delayline_push(&d, mkpkt(4, 100), 210 * MS);     /* 710 ms */

	p = d.q.head;
	assert_int_equal(p->depart_ns, 260 * MS);
	assert_int_equal(p->next->depart_ns, 260 * MS);
	assert_int_equal(p->next->next->depart_ns, 300 * MS);
	assert_int_equal(p->next->next->next->depart_ns, 710 * MS);
	assert_null(delayline_pop_due(&d, 120 * MS));
	expect_pop(&d, 260 * MS, 1);
	expect_pop(&d, 260 * MS, 2);
	assert_null(delayline_pop_due(&d, 299 * MS));
	expect_pop(&d, 300 * MS, 3);
	assert_null(delayline_pop_due(&d, 709 * MS));
	expect_pop(&d, 710 * MS, 4);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_unpop_puts_back_at_head(void **state)
{
	struct delayline d;
	struct pkt *p;

	(void)state;
	delayline_init(&d, 5 * MS);
	delayline_push(&d, mkpkt(1, 100), 0);
	delayline_push(&d, mkpkt(2, 100), 1 * MS);
	p = delayline_pop_due(&d, 10 * MS);
	assert_non_null(p);
	assert_int_equal(p->seq, 1);
	/* the socket said EAGAIN: back in front, release time unchanged */
	delayline_unpop(&d, p);
	assert_int_equal(d.q.len_pkts, 2);
	assert_int_equal(delayline_next_ns(&d), 5 * MS);
	expect_pop(&d, 10 * MS, 1);
	/* unpop onto an empty line too */
	p = delayline_pop_due(&d, 10 * MS);
	assert_int_equal(p->seq, 2);
	assert_null(d.q.head);
	delayline_unpop(&d, p);
	assert_ptr_equal(d.q.head, p);
	assert_ptr_equal(d.q.tail, p);
	/* a push after the unpop goes behind it */
	delayline_push(&d, mkpkt(3, 100), 2 * MS);
	expect_pop(&d, 10 * MS, 2);
	expect_pop(&d, 10 * MS, 3);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_saturating_release(void **state)
{
	struct delayline d;

	(void)state;
	/* a finish the link never reaches stays "never", without wrapping */
	delayline_init(&d, 250 * MS);
	delayline_push(&d, mkpkt(1, 100), TS_NEVER - 10);
	assert_int_equal(delayline_next_ns(&d), TS_NEVER);
	assert_null(delayline_pop_due(&d, TS_NEVER - 1));
	pktq_purge(&d.q);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_many_in_order(void **state)
{
	struct delayline d;
	tstamp_ns now, last = 0;
	uint32_t k, next = 0;

	(void)state;
	/* finishes every 560 us, delay 250 ms, drained by a clock ticking in
	 * 1 ms steps: each packet leaves at the first tick >= its release,
	 * in sequence */
	delayline_init(&d, 250 * MS);
	for (k = 0; k < 60; k++)
		delayline_push(&d, mkpkt(k, 1400), (k + 1) * 560 * NS_PER_US);
	for (now = 0; now <= 300 * MS; now += MS) {
		struct pkt *p;

		while ((p = delayline_pop_due(&d, now))) {
			tstamp_ns rel = (p->seq + 1) * 560 * NS_PER_US + 250 * MS;

			assert_int_equal(p->seq, next++);
			assert_int_equal(p->depart_ns, rel);
			assert_true(rel <= now && rel > now - MS);
			assert_true(p->depart_ns >= last);
			last = p->depart_ns;
			pkt_free(p);
		}
	}
	assert_int_equal(next, 60);
	assert_int_equal(pkt_pool_in_use(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_POOL_TEST(test_release_at_finish_plus_delay),
		TU_POOL_TEST(test_shrinking_delay_keeps_order),
		TU_POOL_TEST(test_unpop_puts_back_at_head),
		TU_POOL_TEST(test_saturating_release),
		TU_POOL_TEST(test_many_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
