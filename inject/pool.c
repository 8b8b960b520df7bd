/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the bounded buffer pool (STYLE.md section 8.2).
 *
 * One anonymous mapping of GPUPROF_BUFFER_MB is cut into CUPTI activity
 * buffers (three quarters) and NVTX blocks (one quarter, chained into
 * per-thread buffers by nvtx.c as each thread needs them). Pages are committed only when touched, so a large pool costs
 * nothing until it is used.
 *
 * CUPTI buffers move FREE -> CUPTI (bufferRequested, any thread) -> FULL
 * (bufferCompleted, any thread) -> BUSY (the writer) -> FREE. Transitions
 * out of FREE use compare-and-swap; the others have a single owner. No
 * locks, no allocation: the callbacks may run on application threads.
 *
 * When no buffer is free the request is refused (CUPTI then drops records
 * and counts them; CUPTI API versions from 27 on handle a NULL buffer, and
 * every libcupti.so.13 is newer than that). The refusals are counted so the
 * writer can attribute CUPTI's dropped count to the pool.
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <sys/mman.h>

struct gpi_pool gpi_pool;
static _Atomic uint32_t hint;

static size_t clamp_size(size_t v, size_t lo, size_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int gpi_pool_init(uint64_t bytes)
{
	struct gpi_pool *p = &gpi_pool;
	size_t cupti_share, nvtx_share;
	uint8_t *base;

	if (p->base) {
		return 0;
	}
	bytes = (bytes + 4095) & ~(uint64_t)4095;
	cupti_share = (size_t)(bytes / 4 * 3);
	nvtx_share = (size_t)bytes - cupti_share;

	p->slot_bytes = clamp_size(cupti_share / 8, 8u << 10, 4u << 20) & ~(size_t)4095;
	p->nslots = (uint32_t)(cupti_share / p->slot_bytes);
	if (p->nslots < 2) {
		p->nslots = 2;
	}
	if (p->nslots > 4096) {
		p->nslots = 4096;
	}
	size_t nb = clamp_size(nvtx_share / 32, 4u << 10, 128u << 10);
	/* a power of two */
	size_t pow = 4096;
	while (pow * 2 <= nb) {
		pow *= 2;
	}
	p->nvtx_buf_bytes = pow;
	p->nvtx_nbuf = (uint32_t)(nvtx_share / pow);
	if (p->nvtx_nbuf < 2) {
		p->nvtx_nbuf = 2;
	}
	if (p->nvtx_nbuf > 4096) {
		p->nvtx_nbuf = 4096;
	}

	size_t total = (size_t)p->nslots * p->slot_bytes + (size_t)p->nvtx_nbuf * p->nvtx_buf_bytes;
	base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		return -GP_ERR_NOMEM;
	}
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	if (!p->slots) {
		munmap(base, total);
		return -GP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < p->nslots; i++) {
		p->slots[i].mem = base + (size_t)i * p->slot_bytes;
		atomic_init(&p->slots[i].state, GPI_SLOT_FREE);
	}
	p->nvtx_base = base + (size_t)p->nslots * p->slot_bytes;
	p->bytes = total;
	p->base = base;
	gpi_dbg("pool: %u CUPTI buffers of %zu KiB, %u NVTX buffers of %zu KiB", p->nslots,
		p->slot_bytes >> 10, p->nvtx_nbuf, p->nvtx_buf_bytes >> 10);
	return 0;
}

uint8_t *gpi_pool_get(size_t *size)
{
	struct gpi_pool *p = &gpi_pool;
	uint32_t start;

	if (!p->base) {
		*size = 0;
		return NULL;
	}
	start = atomic_fetch_add_explicit(&hint, 1, memory_order_relaxed);
	for (uint32_t k = 0; k < p->nslots; k++) {
		struct gpi_slot *s = &p->slots[(start + k) % p->nslots];
		int expect = GPI_SLOT_FREE;
		if (atomic_load_explicit(&s->state, memory_order_relaxed) == GPI_SLOT_FREE &&
		    atomic_compare_exchange_strong_explicit(&s->state, &expect, GPI_SLOT_CUPTI,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			*size = p->slot_bytes;
			return s->mem;
		}
	}
	atomic_fetch_add_explicit(&p->refused, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->refused_bytes, p->slot_bytes, memory_order_relaxed);
	*size = 0;
	return NULL;
}

bool gpi_pool_complete(uint8_t *buf, size_t valid)
{
	struct gpi_pool *p = &gpi_pool;
	size_t off, idx;

	if (!p->base || buf < p->base || buf >= p->nvtx_base) {
		return false;
	}
	off = (size_t)(buf - p->base);
	idx = off / p->slot_bytes;
	if (off % p->slot_bytes || idx >= p->nslots) {
		return false;
	}
	struct gpi_slot *s = &p->slots[idx];
	s->valid = valid > p->slot_bytes ? p->slot_bytes : valid;
	s->seq = atomic_fetch_add_explicit(&p->seq, 1, memory_order_relaxed);
	atomic_store_explicit(&s->state, GPI_SLOT_FULL, memory_order_release);
	return true;
}

uint32_t gpi_pool_collect(struct gpi_slot **out, uint32_t max)
{
	struct gpi_pool *p = &gpi_pool;
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nslots && n < max; i++) {
		struct gpi_slot *s = &p->slots[i];
		if (atomic_load_explicit(&s->state, memory_order_acquire) == GPI_SLOT_FULL) {
			atomic_store_explicit(&s->state, GPI_SLOT_BUSY, memory_order_relaxed);
			/* insertion sort by completion order */
			uint32_t j = n++;
			while (j > 0 && out[j - 1]->seq > s->seq) {
				out[j] = out[j - 1];
				j--;
			}
			out[j] = s;
		}
	}
	return n;
}

void gpi_pool_release(struct gpi_slot *s)
{
	/*
	 * CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER: we hand out zeroed
	 * buffers, so CUPTI does not zero them on an application thread. CUPTI
	 * fills a buffer from its start and validSize covers every record it
	 * wrote; a page beyond is cleared too. Untouched pages stay uncommitted.
	 */
	size_t dirty = ((s->valid + 4095) & ~(size_t)4095) + 4096;
	if (dirty > s->dirty) {
		s->dirty = dirty;
	}
	/* everything this slot ever held, not only what the last use reported */
	memset(s->mem, 0, s->dirty < gpi_pool.slot_bytes ? s->dirty : gpi_pool.slot_bytes);
	s->valid = 0;
	atomic_store_explicit(&s->state, GPI_SLOT_FREE, memory_order_release);
}

void gpi_pool_atfork_child(void)
{
	/*
	 * Buffers the parent's CUPTI holds, or handed back to the parent's
	 * writer, are the parent's: it writes their records. Counted here they
	 * would be lost at the child's exit (a "flush deadline" loss the child
	 * never had) or written twice.
	 */
	for (uint32_t i = 0; i < gpi_pool.nslots; i++) {
		atomic_store_explicit(&gpi_pool.slots[i].state, GPI_SLOT_FREE,
				      memory_order_relaxed);
	}
}

uint32_t gpi_pool_outstanding(void)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < gpi_pool.nslots; i++) {
		if (atomic_load_explicit(&gpi_pool.slots[i].state, memory_order_relaxed) ==
		    GPI_SLOT_CUPTI) {
			n++;
		}
	}
	return n;
}
