/* SPDX-License-Identifier: MIT */
/*
 * model-access.h - one accessor per column of the model's tables, row i:
 * gpa_copy_bytes(m, i), gpa_nvtx_parent(m, i), gpa_mem_ts(m, i)... made
 * from the column lists of analyze/model.h, so a new column has its
 * accessor with no line written here. An optional column's accessor reads
 * 0 where the column is absent. Kernels' and API calls' encoded columns
 * (start_off, dur, site) are read through the hand-written accessors at the
 * end of this file instead: gpa_kern_start, gpa_kern_dur, gpa_kern_stream,
 * gpa_api_start, gpa_api_name..., and the device timelines through
 * gpa_gpu_start, gpa_gpu_dev...
 *
 * Analyses read the tables through these, never through the columns: a
 * column can then change its form (plain, optional, encoded, moved into a
 * site: docs/dev/model.md) by changing its accessor alone.
 *
 * Included by analyze/model.h; include that.
 */
#ifndef GPA_MODEL_ACCESS_H
#define GPA_MODEL_ACCESS_H

#include "analyze/model.h"

/*
 * For each column col of table tab (prefix: the accessors' middle word):
 *   gpa_<prefix>_<col>(m, i)   row i; an optional column reads 0 where it is absent
 *   gpa_<prefix>_<col>_col(m)  the whole column, read-only, for a loop or a search that
 *                              takes an array (NULL for an absent optional column)
 *   gpa_<prefix>_has_<col>(m)  optional columns only: whether any row has a value
 * and gpa_<prefix>_rows(m), the table's rows.
 */
#define GPA_GET_(tab, prefix, type, col)                                                           \
	static inline type gpa_##prefix##_##col(const struct gpa_model *m, size_t i)               \
	{                                                                                          \
		return m->tab.col[i];                                                              \
	}                                                                                          \
	static inline const type *gpa_##prefix##_##col##_col(const struct gpa_model *m)            \
	{                                                                                          \
		return m->tab.col;                                                                 \
	}
#define GPA_GET_OPT_(tab, prefix, type, col)                                                       \
	static inline type gpa_##prefix##_##col(const struct gpa_model *m, size_t i)               \
	{                                                                                          \
		return m->tab.col ? m->tab.col[i] : 0;                                             \
	}                                                                                          \
	static inline const type *gpa_##prefix##_##col##_col(const struct gpa_model *m)            \
	{                                                                                          \
		return m->tab.col;                                                                 \
	}                                                                                          \
	static inline bool gpa_##prefix##_has_##col(const struct gpa_model *m)                     \
	{                                                                                          \
		return m->tab.col != NULL;                                                         \
	}
#define GPA_ROWS_(tab, prefix)                                                                     \
	static inline size_t gpa_##prefix##_rows(const struct gpa_model *m)                        \
	{                                                                                          \
		return m->tab.n;                                                                   \
	}

#define GPA_COPY_GET_(type, col) GPA_GET_(copy, copy, type, col)
#define GPA_COPY_GET_OPT_(type, col) GPA_GET_OPT_(copy, copy, type, col)
GPA_MEMCPY_COLS(GPA_COPY_GET_)
GPA_MEMCPY_OPT_COLS_(GPA_COPY_GET_OPT_)
GPA_ROWS_(copy, copy)

#define GPA_SET_GET_(type, col) GPA_GET_(set, set, type, col)
#define GPA_SET_GET_OPT_(type, col) GPA_GET_OPT_(set, set, type, col)
GPA_MEMSET_COLS(GPA_SET_GET_)
GPA_MEMSET_OPT_COLS_(GPA_SET_GET_OPT_)
GPA_ROWS_(set, set)

#define GPA_SYNC_GET_(type, col) GPA_GET_(sync, sync, type, col)
#define GPA_SYNC_GET_OPT_(type, col) GPA_GET_OPT_(sync, sync, type, col)
GPA_SYNC_COLS(GPA_SYNC_GET_)
GPA_SYNC_OPT_COLS_(GPA_SYNC_GET_OPT_)
GPA_ROWS_(sync, sync)

#define GPA_NVTX_GET_(type, col) GPA_GET_(nvtx, nvtx, type, col)
#define GPA_NVTX_GET_OPT_(type, col) GPA_GET_OPT_(nvtx, nvtx, type, col)
GPA_NVTX_COLS(GPA_NVTX_GET_)
GPA_NVTX_OPT_COLS_(GPA_NVTX_GET_OPT_)
GPA_ROWS_(nvtx, nvtx)

#define GPA_OVH_GET_(type, col) GPA_GET_(ovh, ovh, type, col)
#define GPA_OVH_GET_OPT_(type, col) GPA_GET_OPT_(ovh, ovh, type, col)
GPA_OVERHEAD_COLS(GPA_OVH_GET_)
GPA_OVERHEAD_OPT_COLS_(GPA_OVH_GET_OPT_)
GPA_ROWS_(ovh, ovh)

#define GPA_MEM_GET_(type, col) GPA_GET_(mem, mem, type, col)
#define GPA_MEM_GET_OPT_(type, col) GPA_GET_OPT_(mem, mem, type, col)
GPA_MEM_COLS(GPA_MEM_GET_)
GPA_MEM_OPT_COLS_(GPA_MEM_GET_OPT_)
GPA_ROWS_(mem, mem)

#define GPA_GPU_GET_(type, col) GPA_GET_(gpu, gpu, type, col)
#define GPA_GPU_GET_OPT_(type, col) GPA_GET_OPT_(gpu, gpu, type, col)
GPA_GPU_COLS(GPA_GPU_GET_)
GPA_GPU_OPT_COLS_(GPA_GPU_GET_OPT_)
GPA_ROWS_(gpu, gpu)

/* Kernels and API calls: the columns that are not encoded (model.h). */
#define GPA_KERN_GET_(type, col) GPA_GET_(kern, kern, type, col)
#define GPA_KERN_GET_OPT_(type, col) GPA_GET_OPT_(kern, kern, type, col)
GPA_KERNEL_PLAIN_COLS_(GPA_KERN_GET_)
GPA_KERNEL_OPT_COLS_(GPA_KERN_GET_OPT_)
GPA_ROWS_(kern, kern)

/* api.corr: NULL when the load dropped it (GPA_DROP_CORR); read only when it is kept. */
#define GPA_API_GET_(type, col) GPA_GET_(api, api, type, col)
#define GPA_API_GET_OPT_(type, col) GPA_GET_OPT_(api, api, type, col)
GPA_API_PLAIN_COLS_(GPA_API_GET_)
GPA_API_OPT_COLS_(GPA_API_GET_OPT_)
GPA_ROWS_(api, api)

/*
 * Hand-written: the encoded columns (starts, durations), what kernels and
 * API calls share with their sites, and the device timelines.
 */

/* The duration stored for row `row` of a long list (0 when absent: never for a GPA_DUR_LONG row). */
uint64_t gpa_long_dur(const struct gpa_long_durs *l, size_t row);

/* Start of row i of a table whose start offsets are off. */
static inline uint64_t gpa_start_of(const uint32_t *off, const struct gpa_starts *s, size_t i)
{
	uint32_t o = off[i];

	return o != GPA_START_FAR ? s->base.v[i >> GPA_START_BLOCK_SHIFT] + o
				  : gpa_long_dur(&s->far, i);
}

/* Start of kernel row i and API row i. */
static inline uint64_t gpa_kern_start(const struct gpa_model *m, size_t i)
{
	return gpa_start_of(m->kern.start_off, &m->kern_starts, i);
}

static inline uint64_t gpa_api_start(const struct gpa_model *m, size_t i)
{
	return gpa_start_of(m->api.start_off, &m->api_starts, i);
}

/* Duration and end of kernel row i and API row i. */
static inline uint64_t gpa_kern_dur(const struct gpa_model *m, size_t i)
{
	uint32_t d = m->kern.dur[i];

	return d != GPA_DUR_LONG ? d : gpa_long_dur(&m->kern_long, i);
}

static inline uint64_t gpa_kern_end(const struct gpa_model *m, size_t i)
{
	return gpa_kern_start(m, i) + gpa_kern_dur(m, i);
}

static inline uint64_t gpa_api_dur(const struct gpa_model *m, size_t i)
{
	uint32_t d = m->api.dur[i];

	return d != GPA_DUR_LONG ? d : gpa_long_dur(&m->api_long, i);
}

static inline uint64_t gpa_api_end(const struct gpa_model *m, size_t i)
{
	return gpa_api_start(m, i) + gpa_api_dur(m, i);
}

/* What kernel row i shares with its launch site, and its parts. */
static inline const struct gpa_ksite *gpa_kern_site(const struct gpa_model *m, size_t i)
{
	return &m->ksites.v[m->kern.site[i]];
}

static inline uint32_t gpa_kern_func(const struct gpa_model *m, size_t i)
{
	return gpa_kern_site(m, i)->func;
}

static inline uint32_t gpa_kern_shape(const struct gpa_model *m, size_t i)
{
	return gpa_kern_site(m, i)->shape;
}

static inline uint32_t gpa_kern_stream(const struct gpa_model *m, size_t i)
{
	return gpa_kern_site(m, i)->stream;
}

static inline uint16_t gpa_kern_dev(const struct gpa_model *m, size_t i)
{
	return (uint16_t)gpa_kern_site(m, i)->dev;
}

/* Name (model string id) and thread (model thread index) of API row i. */
static inline uint32_t gpa_api_name(const struct gpa_model *m, size_t i)
{
	return m->asites.v[m->api.site[i]].name;
}

static inline uint32_t gpa_api_thread(const struct gpa_model *m, size_t i)
{
	return m->asites.v[m->api.site[i]].thread;
}

/* What API row i is to CUDA/HIP graphs: enum gpa_api_flags. */
static inline uint8_t gpa_api_flags(const struct gpa_model *m, size_t i)
{
	return (uint8_t)(m->asites.v[m->api.site[i]].flags | gpa_col_opt8(m->api.captured, i));
}

/* Kind (enum gpa_gpu_kind) and row in its table of GPU op row i of gpa_model.gpu. */
static inline unsigned gpa_gpu_kind(const struct gpa_model *m, size_t i)
{
	return m->gpu.op[i] >> GPA_GPU_KIND_SHIFT;
}

static inline uint32_t gpa_gpu_row(const struct gpa_model *m, size_t i)
{
	return m->gpu.op[i] & GPA_GPU_ROW_MAX;
}

/* The device of GPU op row i: the one whose rows of gpa_model.gpu hold it. */
static inline uint16_t gpa_gpu_dev(const struct gpa_model *m, size_t i)
{
	size_t lo = 0, hi = m->devs.n;

	while (lo < hi) { /* the last device whose rows start at or before i */
		size_t mid = lo + (hi - lo) / 2;
		if (m->devs.v[mid].gpu_first <= i) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return (uint16_t)(lo ? lo - 1 : 0);
}

/* Start and end of GPU op row i of gpa_model.gpu, read from its kind's table. */
static inline uint64_t gpa_gpu_start(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i);
	unsigned k = gpa_gpu_kind(m, i);

	return k == GPA_GPU_KERNEL   ? gpa_kern_start(m, r)
	       : k == GPA_GPU_MEMCPY ? m->copy.start[r]
				     : m->set.start[r];
}

static inline uint64_t gpa_gpu_end(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i);
	unsigned k = gpa_gpu_kind(m, i);

	return k == GPA_GPU_KERNEL   ? gpa_kern_end(m, r)
	       : k == GPA_GPU_MEMCPY ? m->copy.end[r]
				     : m->set.end[r];
}

/* The process of a GPU op row of a kind, via its device. */
static inline uint32_t gpa_dev_proc(const struct gpa_model *m, uint16_t dev)
{
	return m->devs.v[dev].proc;
}

/*
 * Devices that ran work (a kernel, copy or set): the devices counts, names and
 * per-GPU figures come from; a device the trace only describes is not one.
 * *first (may be NULL): the first such device index, GPA_NONE when none.
 */
uint32_t gpa_model_work_devices(const struct gpa_model *m, uint32_t *first);

/*
 * CUDA/HIP graphs. A GPU op belongs to a graph when its record carries a graph
 * id, or when the API call that launched it (by correlation, within its
 * process) is a graph launch: every kernel of a cudaGraphLaunch shares the
 * launch's correlation id, so it belongs to that launch and the launch's CPU
 * thread. API calls between a stream capture's begin and end on a thread are
 * flagged GPA_API_CAPTURED: under capture nothing runs, the replays do.
 * The load sets the flags and counts (model-internal.h).
 */
#define GPA_GRAPH_NONE UINT32_MAX
/* GPU op row i of gpa_model.gpu: its graph id; 0 for a graph launch whose id the trace lacks. */
uint32_t gpa_gpu_graph(const struct gpa_model *m, size_t i);
/* The launching API row of GPU op row i of gpa_model.gpu, GPA_NONE when unknown. */
static inline uint32_t gpa_gpu_api(const struct gpa_model *m, size_t i)
{
	uint32_t r = gpa_gpu_row(m, i);
	unsigned k = gpa_gpu_kind(m, i);

	return k == GPA_GPU_KERNEL ? m->kern.api[r] : k == GPA_GPU_MEMCPY ? m->copy.api[r] : m->set.api[r];
}
/*
 * GPU idle inside stream captures: per device with work, the time within its
 * window (first op start to last op end) while a thread of its process was
 * capturing (begin call's start to end call's end), less the device's busy
 * time then; summed over devices. Returns 0 or -GP_ERR_NOMEM.
 */
int gpa_capture_idle(const struct gpa_model *m, uint64_t *out);

/* The stream of GPU op row i of gpa_model.gpu. */
uint32_t gpa_gpu_stream(const struct gpa_model *m, size_t i);

#endif /* GPA_MODEL_ACCESS_H */
