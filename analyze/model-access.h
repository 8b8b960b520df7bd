/* SPDX-License-Identifier: MIT */
/*
 * model-access.h - one accessor per column of the model's tables, row i:
 * gpa_copy_bytes(m, i), gpa_nvtx_parent(m, i), gpa_mem_ts(m, i)... made
 * from the column lists of analyze/model.h, so a new column has its
 * accessor with no line written here. An optional column's accessor reads
 * 0 where the column is absent. Kernels' and API calls' encoded columns
 * (start_off, dur, site) are read through gpa_kern_start, gpa_kern_dur,
 * gpa_kern_site, gpa_api_start, gpa_api_name... (model.h) instead.
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

#endif /* GPA_MODEL_ACCESS_H */
