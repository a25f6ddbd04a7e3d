/* test_pkt.c - the packet pool and the packet FIFO. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pkt/classify.h"
#include "pkt/pkt.h"
#include "testutil.h"

#define POOL_PKTS  8u
#define POOL_CAP   1500u

/* A pool this small, so that the tests can exhaust it. */
static int pool_setup(void **state)
{
	(void)state;
	return tu_pool_init(POOL_PKTS, POOL_CAP);
}

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(pkt_pool_size(), POOL_PKTS);
	assert_int_equal(pkt_pool_cap_bytes(), POOL_CAP);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* Takes every buffer of the pool: each one new, counted in use. */
static void alloc_all(struct pkt *p[POOL_PKTS])
{
	uint32_t i, j;

	for (i = 0; i < POOL_PKTS; i++) {
		p[i] = pkt_alloc();
		assert_non_null(p[i]);
		assert_int_equal(pkt_pool_in_use(), i + 1);
		for (j = 0; j < i; j++)
			assert_ptr_not_equal(p[i], p[j]);
	}
}

static void test_alloc_all_then_exhausted(void **state)
{
	struct pkt *p[POOL_PKTS];
	uint32_t i;

	(void)state;
	alloc_all(p);
	assert_null(pkt_alloc());
	assert_null(pkt_alloc());
	assert_int_equal(pkt_pool_in_use(), POOL_PKTS);

	pkt_free(p[3]);
	assert_int_equal(pkt_pool_in_use(), POOL_PKTS - 1);
	p[3] = pkt_alloc();
	assert_non_null(p[3]);
	assert_null(pkt_alloc());

	for (i = 0; i < POOL_PKTS; i++) {
		pkt_free(p[i]);
		assert_int_equal(pkt_pool_in_use(), POOL_PKTS - 1 - i);
	}
	/* the whole pool is usable again */
	for (i = 0; i < POOL_PKTS; i++)
		assert_non_null(p[i] = pkt_alloc());
	for (i = 0; i < POOL_PKTS; i++)
		pkt_free(p[i]);
}

static void assert_fresh(const struct pkt *p)
{
	assert_null(p->next);
	assert_ptr_equal(p->data, p->buf + PKT_HEADROOM_BYTES);
	assert_int_equal(p->len_bytes, 0);
	assert_int_equal(p->cls, CLS_CS0);
	assert_int_equal(p->dscp, 0);
	assert_int_equal(p->verdict, PKT_V_NONE);
	assert_int_equal(p->flow_hash, 0);
	assert_int_equal(p->seq, 0);
	assert_true(p->enq_ns == 0);
	assert_true(p->depart_ns == 0);
	assert_true(p->start_ns == 0);
}

static void test_free_resets_fields(void **state)
{
	struct pkt *p, *q;

	(void)state;
	p = pkt_alloc();
	assert_non_null(p);
	assert_fresh(p);

	p->data = p->buf + 4;           /* e.g. decapsulation moved it */
	p->len_bytes = 1234;
	p->cls = CLS_EF;
	p->dscp = 46;
	p->verdict = PKT_V_BETA;
	p->flow_hash = 0xdeadbeef;
	p->seq = 77;
	p->enq_ns = 5;
	p->depart_ns = 6;
	p->start_ns = 7;
	p->next = p;
	pkt_free(p);

	/* LIFO free list: the same slot comes back, clean */
	q = pkt_alloc();
	assert_ptr_equal(q, p);
	assert_fresh(q);
	pkt_free(q);
}

/* Every packet can hold headroom + cap + tailroom bytes without touching
 * another. */
static void test_buffers_disjoint_and_aligned(void **state)
{
	struct pkt *p[POOL_PKTS];
	uint32_t i, k;

	(void)state;
	alloc_all(p);
	for (i = 0; i < POOL_PKTS; i++) {
		assert_int_equal((uintptr_t)p[i]->data % 16, 0);
		memset(p[i]->buf, (int)(0x10 + i),
		       PKT_HEADROOM_BYTES + POOL_CAP + PKT_TAILROOM_BYTES);
	}
	for (i = 0; i < POOL_PKTS; i++) {
		for (k = 0; k < PKT_HEADROOM_BYTES + POOL_CAP + PKT_TAILROOM_BYTES; k++)
			if (p[i]->buf[k] != 0x10 + i)
				fail_msg("packet %u byte %u clobbered", i, k);
		/* header fields survived the neighbours' writes */
		assert_ptr_equal(p[i]->data, p[i]->buf + PKT_HEADROOM_BYTES);
	}
	for (i = 0; i < POOL_PKTS; i++)
		pkt_free(p[i]);
}

static void test_free_null_is_noop(void **state)
{
	(void)state;
	pkt_free(NULL);
	assert_int_equal(pkt_pool_in_use(), 0);
}

static void test_init_errors(void **state)
{
	(void)state;
	/* a pool exists (setup): a second one is refused */
	errno = 0;
	assert_int_equal(pkt_pool_init(4, 100), -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(pkt_pool_size(), POOL_PKTS);
}

static void test_no_pool(void **state)
{
	(void)state;
	assert_null(pkt_alloc());
	assert_int_equal(pkt_pool_in_use(), 0);
	assert_int_equal(pkt_pool_size(), 0);
	errno = 0;
	assert_int_equal(pkt_pool_init(0, 100), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pkt_pool_init(4, 0), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pkt_pool_init(UINT32_MAX, UINT32_MAX), -1);
	assert_int_equal(errno, ENOMEM);
	assert_null(pkt_alloc());

	/* a pool can be created again after destroy */
	assert_int_equal(pkt_pool_init(2, 64), 0);
	assert_int_equal(pkt_pool_size(), 2);
	assert_int_equal(pkt_pool_cap_bytes(), 64);
	pkt_pool_destroy();
}

static struct pkt *mk(uint32_t len_bytes, uint32_t seq)
{
	return tu_pkt(CLS_CS0, len_bytes, seq);
}

static void test_pktq_order_and_counts(void **state)
{
	struct pktq q;
	struct pkt *p;

	(void)state;
	pktq_init(&q);
	assert_null(pktq_pop(&q));
	pktq_push(&q, mk(100, 1));
	pktq_push(&q, mk(200, 2));
	pktq_push(&q, mk(300, 3));
	pktq_push_head(&q, mk(50, 0));
	assert_int_equal(q.len_pkts, 4);
	assert_int_equal(q.len_bytes, 650);

	for (uint32_t want = 0; want < 4; want++) {
		p = pktq_pop(&q);
		assert_non_null(p);
		assert_int_equal(p->seq, want);
		assert_null(p->next);
		pkt_free(p);
	}
	assert_null(pktq_pop(&q));
	assert_null(q.head);
	assert_null(q.tail);
	assert_int_equal(q.len_pkts, 0);
	assert_int_equal(q.len_bytes, 0);

	/* push_head on an empty queue sets the tail too */
	pktq_push_head(&q, mk(10, 9));
	pktq_push(&q, mk(20, 10));
	assert_ptr_equal(q.tail->next, NULL);
	for (uint32_t want = 9; want <= 10; want++) {
		p = pktq_pop(&q);
		assert_non_null(p);
		assert_int_equal(p->seq, want);
		pkt_free(p);
	}
	assert_null(q.tail);
}

static void test_pktq_purge(void **state)
{
	struct pktq q;
	uint32_t i;

	(void)state;
	pktq_init(&q);
	for (i = 0; i < POOL_PKTS; i++)
		pktq_push(&q, mk(100, i));
	assert_int_equal(pkt_pool_in_use(), POOL_PKTS);
	pktq_purge(&q);
	assert_int_equal(pkt_pool_in_use(), 0);
	assert_null(q.head);
	assert_null(q.tail);
	assert_int_equal(q.len_pkts, 0);
	assert_int_equal(q.len_bytes, 0);
	pktq_purge(&q);                 /* empty: harmless */
	/* the queue is reusable */
	pktq_push(&q, mk(1, 1));
	pktq_purge(&q);
	assert_int_equal(pkt_pool_in_use(), 0);
}

/* Runs fn in a child and reports whether it died of SIGABRT. */
static int dies_with_abort(void (*fn)(void))
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void double_free(void)
{
	struct pkt *p = pkt_alloc();

	pkt_free(p);
	pkt_free(p);
}

static void free_foreign(void)
{
	static struct {
		struct pkt p;
		uint8_t room[64];
	} fake;

	pkt_free(&fake.p);
}

static void free_interior(void)
{
	struct pkt *p = pkt_alloc();

	pkt_free((struct pkt *)(void *)((uint8_t *)p + 8));
}

static void test_misuse_aborts(void **state)
{
	(void)state;
	assert_true(dies_with_abort(double_free));
	assert_true(dies_with_abort(free_foreign));
	assert_true(dies_with_abort(free_interior));
	/* the children's damage stayed in the children */
	assert_int_equal(pkt_pool_in_use(), 0);
}

#define POOL_TEST(f) \
	cmocka_unit_test_setup_teardown(f, pool_setup, tu_pool_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		POOL_TEST(test_sizes),
		POOL_TEST(test_alloc_all_then_exhausted),
		POOL_TEST(test_free_resets_fields),
		POOL_TEST(test_buffers_disjoint_and_aligned),
		POOL_TEST(test_free_null_is_noop),
		POOL_TEST(test_init_errors),
		cmocka_unit_test(test_no_pool),
		POOL_TEST(test_pktq_order_and_counts),
		POOL_TEST(test_pktq_purge),
		POOL_TEST(test_misuse_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
