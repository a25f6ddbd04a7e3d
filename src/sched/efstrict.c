/* efstrict.c - the EF strict-priority layer (contract in efstrict.h). */
#include <stddef.h>

#include "pkt/classify.h"
#include "efstrict.h"

void efstrict_init(struct efstrict *e, int on)
{
	pktq_init(&e->q);
	e->on = on != 0;
}

int efstrict_enqueue(struct efstrict *e, struct pkt *p)
{
	if (!e->on || p->cls != CLS_EF)
		return 0;
	pktq_push(&e->q, p);
	return 1;
}

/* With the layer off the queue stays empty: nothing to test. */
struct pkt *efstrict_dequeue(struct efstrict *e)
{
	return pktq_pop(&e->q);
}

const struct pkt *efstrict_peek(const struct efstrict *e)
{
	return e->q.head;
}

struct pkt *efstrict_drain(struct efstrict *e)
{
	return pktq_pop(&e->q);
}

void efstrict_destroy(struct efstrict *e)
{
	pktq_purge(&e->q);
}
