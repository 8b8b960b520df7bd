/* SPDX-License-Identifier: MIT */
/*
 * queue.h - a bounded multi-producer single-consumer queue of fixed-size
 * entries, lock-free: what application threads hand the writer thread
 * (cuBLAS calls, gemm.c; NCCL events, nccl.c).
 *
 * A ring with a sequence number per cell [Vyukov's bounded MPMC queue, one
 * consumer]: a producer claims the cell at the tail with one compare-and-swap
 * and publishes it by storing the cell's sequence number (release); the
 * consumer, the writer thread alone, takes the cell at the head once its
 * number says it is published, and frees it for the next lap. A full queue
 * drops the entry and counts it; nothing blocks, allocates or calls into libc
 * but memcpy, so a push is safe on the application's hot path (STYLE.md
 * section 8).
 *
 * The owner gives the storage, static and zero-filled: cell i's sequence
 * number is kept minus i, so all zero is the empty queue and needs no set-up.
 *
 *   static _Atomic uint64_t seqs[4096];       (a power of two)
 *   static struct my_ev evs[4096];
 *   static struct gpi_queue_ends ends;
 *   static const struct gpi_queue q = GPI_QUEUE_INIT(seqs, evs, &ends);
 */
#ifndef GPI_QUEUE_H
#define GPI_QUEUE_H

#include "base/compat.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What the producers and the consumer move: the owner's, zero-filled. */
struct gpi_queue_ends {
	_Atomic uint64_t tail;
	_Atomic uint64_t head; /* written by the consumer only */
	_Atomic uint64_t dropped;
};

/* Where the queue lives: const, so that an inline push knows its size and capacity. */
struct gpi_queue {
	_Atomic uint64_t *seq; /* cap cells' sequence numbers, each minus its index */
	unsigned char *ent;    /* cap entries of size bytes */
	uint64_t cap;          /* a power of two */
	size_t size;
	struct gpi_queue_ends *ends;
};

#define GPI_QUEUE_INIT(seqs, ents, ends_)                                                          \
	{                                                                                          \
		.seq = (seqs), .ent = (unsigned char *)(ents),                                     \
		.cap = sizeof(seqs) / sizeof((seqs)[0]), .size = sizeof((ents)[0]),               \
		.ends = (ends_),                                                                   \
	}

enum gpi_queue_push {
	GPI_QUEUE_FULL = 0,   /* dropped and counted */
	GPI_QUEUE_PUSHED = 1, /* queued */
	GPI_QUEUE_WAKE = 2,   /* queued, and the queue is past half full: wake the consumer
				 (said at most once per 512 entries) */
};

static inline uint64_t gpi_queue_cell_seq_(const struct gpi_queue *q, uint64_t pos,
					   memory_order mo)
{
	uint64_t i = pos & (q->cap - 1);

	return atomic_load_explicit(&q->seq[i], mo) + i;
}

static inline void gpi_queue_cell_set_(const struct gpi_queue *q, uint64_t pos, uint64_t seq)
{
	uint64_t i = pos & (q->cap - 1);

	atomic_store_explicit(&q->seq[i], seq - i, memory_order_release);
}

/* Counts one entry dropped, full or before it reached the queue. */
static inline void gpi_queue_drop(const struct gpi_queue *q)
{
	atomic_fetch_add_explicit(&q->ends->dropped, 1, memory_order_relaxed);
}

/* Producers, any thread: queues a copy of the entry at e (size bytes). Inline, so that
 * the copy is of a size known where it is called. */
static inline enum gpi_queue_push gpi_queue_push(const struct gpi_queue *q, const void *e)
{
	struct gpi_queue_ends *x = q->ends;
	uint64_t pos = atomic_load_explicit(&x->tail, memory_order_relaxed);

	for (;;) {
		int64_t dif = (int64_t)(gpi_queue_cell_seq_(q, pos, memory_order_acquire) - pos);
		if (dif < 0) {
			gpi_queue_drop(q);
			return GPI_QUEUE_FULL;
		}
		if (dif > 0) {
			pos = atomic_load_explicit(&x->tail, memory_order_relaxed);
		} else if (atomic_compare_exchange_weak_explicit(&x->tail, &pos, pos + 1,
								 memory_order_relaxed,
								 memory_order_relaxed)) {
			memcpy(q->ent + (pos & (q->cap - 1)) * q->size, e, q->size);
			gpi_queue_cell_set_(q, pos, pos + 1);
			/* past half full: one wake-up per 512 entries */
			if (!(pos & 511) &&
			    pos - atomic_load_explicit(&x->head, memory_order_relaxed) > q->cap / 2) {
				return GPI_QUEUE_WAKE;
			}
			return GPI_QUEUE_PUSHED;
		}
	}
}

/* The consumer: the oldest entry copied to e (unless NULL) and freed; false when none is
 * published. */
static inline bool gpi_queue_pop(const struct gpi_queue *q, void *e)
{
	struct gpi_queue_ends *x = q->ends;
	uint64_t h = atomic_load_explicit(&x->head, memory_order_relaxed);

	if (gpi_queue_cell_seq_(q, h, memory_order_acquire) != h + 1) {
		return false;
	}
	if (e) {
		memcpy(e, q->ent + (h & (q->cap - 1)) * q->size, q->size);
	}
	gpi_queue_cell_set_(q, h, h + q->cap);
	atomic_store_explicit(&x->head, h + 1, memory_order_relaxed);
	return true;
}

bool gpi_queue_has_data(const struct gpi_queue *q);
/* Entries dropped since the last call. */
uint64_t gpi_queue_take_dropped(const struct gpi_queue *q);
/* A forked child's only thread: the parent's entries are forgotten, and the ring starts
 * afresh when a parent thread was inside a push; the count of drops is zeroed. */
void gpi_queue_atfork_child(const struct gpi_queue *q);

#endif
