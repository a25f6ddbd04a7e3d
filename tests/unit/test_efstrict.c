/* test_efstrict.c - the EF strict-priority layer (src/sched/efstrict.h):
 * on, it takes EF only and hands it back first in arrival order; off, it
 * takes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pkt/classify.h"
#include "sched/efstrict.h"

static struct pkt *mk(enum pkt_class cls, uint32_t id)
{
	struct pkt *p = pkt_alloc();

	assert_non_null(p);
	p->cls = (uint8_t)cls;
	p->seq = id;
	p->len_bytes = 100;
	return p;
}

static void test_on_off(void **state)
{
	struct efstrict e;
	struct pkt *af, *cs0, *p;

	(void)state;
	assert_int_equal(pkt_pool_init(8, 1500), 0);
	af = mk(CLS_AF, 1);
	cs0 = mk(CLS_CS0, 2);
	efstrict_init(&e, 1);
	assert_null(efstrict_peek(&e));
	assert_null(efstrict_dequeue(&e));
	assert_int_equal(efstrict_enqueue(&e, af), 0);          /* not EF */
	assert_int_equal(efstrict_enqueue(&e, cs0), 0);
	assert_int_equal(efstrict_enqueue(&e, mk(CLS_EF, 10)), 1);
	assert_int_equal(efstrict_enqueue(&e, mk(CLS_EF, 11)), 1);
	assert_int_equal(efstrict_enqueue(&e, mk(CLS_EF, 12)), 1);
	assert_int_equal(efstrict_peek(&e)->seq, 10);
	p = efstrict_dequeue(&e);
	assert_int_equal(p->seq, 10);
	pkt_free(p);
	p = efstrict_drain(&e);
	assert_int_equal(p->seq, 11);
	pkt_free(p);
	efstrict_destroy(&e);                   /* frees 12 */
	assert_null(efstrict_peek(&e));
	assert_int_equal(pkt_pool_in_use(), 2);

	efstrict_init(&e, 0);
	p = mk(CLS_EF, 20);
	assert_int_equal(efstrict_enqueue(&e, p), 0);           /* off */
	assert_null(efstrict_dequeue(&e));
	pkt_free(p);
	pkt_free(af);
	pkt_free(cs0);
	assert_int_equal(pkt_pool_in_use(), 0);
	pkt_pool_destroy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
