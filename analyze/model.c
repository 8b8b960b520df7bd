/* SPDX-License-Identifier: MIT */
/*
 * model.c - the model's storage: each table's functions (grow, free,
 * permute, shrink), the string table, the encoded columns (starts as
 * offsets from a block's base, durations too long for 32 bits), what the
 * analyses ask of the devices; and opening inputs.
 *
 * The load is in parts, one job each, sharing model-internal.h:
 * model-take.c takes each record kind into its table, model-sort.c sorts
 * the tables and builds the device timelines, model-link.c links GPU ops,
 * syncs, NVTX ranges, stacks, NCCL operations and graphs to their calls,
 * and model-load.c reads the files and runs those steps in order.
 *
 * Memory is the tables plus, while building, one index array per table
 * and a correlation hash; nothing is kept per record beyond the columns.
 */
#define GP_LOG_TAG "analyze/model"
#include "base/compat.h"
#include "analyze/model-internal.h"
#include "analyze/file-info.h"
#include "import/import.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ tables */

GPA_TABLES(DEFINE_TABLE_FNS_)

/* ------------------------------------------------------------ strings */

const char *gpa_model_str(const struct gpa_model *m, uint32_t id)
{
	if (id == 0 || id > m->strs.off.n) {
		return "";
	}
	return m->strs.text.buf + m->strs.off.v[id - 1];
}

static uint64_t str_hash(const char *s, size_t len)
{
	return gp_hash_bytes(s, len);
}

static int strtab_grow(struct gpa_strtab *st)
{
	size_t nn = st->nslots ? st->nslots * 2 : 4096;
	uint32_t *ns = calloc(nn, sizeof(*ns));

	if (!ns) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < st->nslots; i++) {
		uint32_t id = st->slots[i];
		if (id) {
			const char *s = st->text.buf + st->off.v[id - 1];
			size_t j = str_hash(s, strlen(s)) & (nn - 1);
			while (ns[j]) {
				j = (j + 1) & (nn - 1);
			}
			ns[j] = id;
		}
	}
	free(st->slots);
	st->slots = ns;
	st->nslots = nn;
	return 0;
}

uint32_t gpa_model_intern(struct gpa_model *m, const char *s)
{
	struct gpa_strtab *st = &m->strs;
	size_t len = strlen(s), j;

	if (!len) {
		return 0;
	}
	if ((st->off.n + 1) * 2 > st->nslots && strtab_grow(st)) {
		return GPA_NONE;
	}
	for (j = str_hash(s, len) & (st->nslots - 1); st->slots[j]; j = (j + 1) & (st->nslots - 1)) {
		const char *t = st->text.buf + st->off.v[st->slots[j] - 1];
		if (!strcmp(t, s)) {
			return st->slots[j];
		}
	}
	if (st->text.len + len + 1 > UINT32_MAX) {
		return GPA_NONE;
	}
	uint32_t off = (uint32_t)st->text.len;
	gp_strbuf_add(&st->text, s, len + 1); /* keeps the NUL */
	if (st->text.failed || gp_vec_push(&st->off, off)) {
		return GPA_NONE;
	}
	st->text.len = off + len + 1;
	st->slots[j] = (uint32_t)st->off.n;
	return st->slots[j];
}

int gpa_starts_encode(struct gpa_starts *s, uint32_t *col, const uint64_t *v, size_t n)
{
	s->base.n = 0;
	s->far.n = 0;
	for (size_t r = 0; r < n; r++) {
		if (gpa_starts_set(s, col, r, v[r])) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

uint64_t *gpa_starts_decode(const struct gpa_starts *s, const uint32_t *col, size_t n)
{
	uint64_t *v = gp_malloc_big((n ? n : 1) * sizeof(*v));

	for (size_t r = 0; v && r < n; r++) {
		v[r] = gpa_start_of(col, s, r);
	}
	return v;
}

uint64_t gpa_long_dur(const struct gpa_long_durs *l, size_t row)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->v[mid].row < row) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < l->n && l->v[lo].row == row ? l->v[lo].dur : 0;
}

uint32_t gpa_model_work_devices(const struct gpa_model *m, uint32_t *first)
{
	uint32_t n = 0;

	if (first) {
		*first = GPA_NONE;
	}
	for (size_t d = 0; d < m->devs.n; d++) {
		if (!m->devs.v[d].gpu_count) {
			continue;
		}
		if (first && *first == GPA_NONE) {
			*first = (uint32_t)d;
		}
		n++;
	}
	return n;
}

uint32_t gpa_gpu_stream(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i);

	switch (gpa_gpu_kind(m, i)) {
	case GPA_GPU_KERNEL:
		return gpa_kern_stream(m, r);
	case GPA_GPU_MEMCPY:
		return m->copy.stream[r];
	case GPA_GPU_MEMSET:
		return m->set.stream[r];
	default:
		GP_BUG("GPU operation %zu has kind %u", i, gpa_gpu_kind(m, i));
	}
}
