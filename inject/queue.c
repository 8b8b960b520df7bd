/* SPDX-License-Identifier: MIT */
/*
 * queue.c - the bounded lock-free queue of queue.h: what is not on a hot path.
 */
#include "base/compat.h"
#include "inject/queue.h"

bool gpi_queue_has_data(const struct gpi_queue *q)
{
	uint64_t h = atomic_load_explicit(&q->ends->head, memory_order_relaxed);

	return gpi_queue_cell_seq_(q, h, memory_order_acquire) == h + 1;
}

uint64_t gpi_queue_take_dropped(const struct gpi_queue *q)
{
	return atomic_exchange(&q->ends->dropped, 0);
}

void gpi_queue_atfork_child(const struct gpi_queue *q)
{
	struct gpi_queue_ends *x = q->ends;

	while (gpi_queue_pop(q, NULL)) {
	}
	if (atomic_load(&x->tail) != atomic_load(&x->head)) {
		/* a parent thread was inside a push: start the ring afresh (one thread lives) */
		for (uint64_t i = 0; i < q->cap; i++) {
			atomic_store_explicit(&q->seq[i], 0, memory_order_relaxed);
		}
		atomic_store(&x->tail, 0);
		atomic_store(&x->head, 0);
	}
	atomic_store(&x->dropped, 0);
}
