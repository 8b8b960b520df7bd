/* SPDX-License-Identifier: MIT */
/*
 * model-internal.h - what the files of the model share, and no one else:
 * model.c (the tables' storage, strings, encoded starts), model-take.c (one
 * take_<kind> per record kind), model-sort.c (sorting, the device
 * timelines), model-link.c (correlation, NVTX nesting, the link steps) and
 * model-load.c (files, clocks, the order of the steps). Analyses read the
 * model through analyze/model.h and its accessors; docs/dev/model.md says
 * where a new column goes.
 */
#ifndef GPA_MODEL_INTERNAL_H
#define GPA_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "trace/trace.h"
#include "import/import.h"
#include "analyze/model.h"

/* ------------------------------------------------------------ tables */

/*
 * Columns are written once, front to back: transparent huge pages cut the
 * page faults of filling them (a fifth of load time with 4 KiB pages).
 */
#define COL_RESERVE_(type, col)                                                                    \
	{                                                                                          \
		void *p_ = realloc(t->col, ncap * sizeof(type));                                   \
		if (!p_) {                                                                         \
			return -GP_ERR_NOMEM;                                                      \
		}                                                                                  \
		t->col = p_;                                                                       \
		gp_huge_pages(p_, ncap * sizeof(type));                                            \
	}
/* An optional column grows with its table once it exists. */
#define COL_RESERVE_OPT_(type, col)                                                                \
	if (t->col) {                                                                              \
		COL_RESERVE_(type, col)                                                            \
	}
#define COL_FREE_(type, col)                                                                       \
	free(t->col);                                                                              \
	t->col = NULL;
/*
 * Gathers into scratch; an 8-byte column then trades places with scratch
 * when both hold exactly n 8-byte values (so the scratch that comes back is
 * as large as the one that went), narrower ones are copied back.
 */
#define COL_PERMUTE_(type, col)                                                                    \
	if (t->col) { /* NULL: dropped (gpa_load_opts.drop) */                                    \
		type *p_ = *scratch;                                                               \
		for (size_t i_ = 0; i_ < t->n; i_++) {                                             \
			p_[i_] = t->col[perm[i_]];                                                 \
		}                                                                                  \
		if (sizeof(type) == 8 && t->cap == t->n && t->n == *scratch_n) {                   \
			*scratch = t->col;                                                         \
			t->col = p_;                                                               \
		} else {                                                                           \
			memcpy(t->col, p_, t->n * sizeof(type));                                   \
		}                                                                                  \
	}
#define COL_PERMUTE_OPT_(type, col)                                                                \
	if (t->col) {                                                                              \
		COL_PERMUTE_(type, col)                                                            \
	}
#define COL_SHRINK_OPT_(type, col)                                                                 \
	if (t->col) {                                                                              \
		COL_SHRINK_(type, col)                                                             \
	}
#define COL_SHRINK_(type, col)                                                                     \
	if (t->col) {                                                                              \
		void *p_ = realloc(t->col, (t->n ? t->n : 1) * sizeof(type));                      \
		if (p_) {                                                                          \
			t->col = p_;                                                               \
		}                                                                                  \
	}

#define DEFINE_TABLE_FNS_(tname, field, COLS, OPT)                                                 \
	int tname##_reserve(struct tname *t, size_t want)                                   \
	{                                                                                          \
		size_t ncap;                                                                       \
		if (want <= t->cap) {                                                              \
			return 0;                                                                  \
		}                                                                                  \
		ncap = t->cap + t->cap / 2;                                                        \
		if (ncap < want) {                                                                 \
			ncap = want > 1024 ? want : 1024;                                          \
		}                                                                                  \
		COLS(COL_RESERVE_)                                                                 \
		OPT(COL_RESERVE_OPT_)                                                              \
		t->cap = ncap;                                                                     \
		return 0;                                                                          \
	}                                                                                          \
	void tname##_free(struct tname *t)                                                  \
	{                                                                                          \
		COLS(COL_FREE_)                                                                    \
		OPT(COL_FREE_)                                                                     \
		t->n = t->cap = 0;                                                                 \
	}                                                                                          \
	/* *scratch: room for *scratch_n >= n 8-byte values; may come back as another such. */ \
	void tname##_permute(struct tname *t, const uint32_t *perm, void **scratch,               \
			     size_t *scratch_n)                                                    \
	{                                                                                          \
		COLS(COL_PERMUTE_)                                                                 \
		OPT(COL_PERMUTE_OPT_)                                                              \
	}                                                                                          \
	/* Gives back the capacity beyond n (mremap for large columns: no copy). */              \
	void tname##_shrink(struct tname *t)                                                       \
	{                                                                                          \
		if (t->cap > t->n) {                                                               \
			COLS(COL_SHRINK_)                                                          \
			OPT(COL_SHRINK_OPT_)                                                       \
			t->cap = t->n;                                                             \
		}                                                                                  \
	}

/* The functions DEFINE_TABLE_FNS_ gives each table (model.c). */
#define DECLARE_TABLE_FNS_(tname)                                                                  \
	int tname##_reserve(struct tname *t, size_t want);                                         \
	void tname##_free(struct tname *t);                                                        \
	void tname##_permute(struct tname *t, const uint32_t *perm, void **scratch,               \
			     size_t *scratch_n);                                                    \
	void tname##_shrink(struct tname *t);
#define DECLARE_TABLE_FNS_OF_(tname, field, COLS, OPT) DECLARE_TABLE_FNS_(tname)
GPA_TABLES(DECLARE_TABLE_FNS_OF_)

/* Row r of optional column col of table t: allocated (rows so far 0) with the first nonzero v. */
#define SET_OPT_(t, col, r, v)                                                                     \
	do {                                                                                       \
		if (!(t)->col && (v)) {                                                            \
			(t)->col = calloc((t)->cap, sizeof(*(t)->col));                            \
			if (!(t)->col) {                                                           \
				return -GP_ERR_NOMEM;                                              \
			}                                                                          \
			gp_huge_pages((t)->col, (t)->cap * sizeof(*(t)->col));                     \
		}                                                                                  \
		if ((t)->col) {                                                                    \
			(t)->col[r] = (v);                                                         \
		}                                                                                  \
	} while (0)

/* The row stored under key, or GPA_NONE (rows are below GPA_NONE). */
static inline uint32_t gpa_map_row(const struct gp_u64map *h, uint64_t key)
{
	return (uint32_t)gp_u64map_get(h, key, GPA_NONE);
}

/*
 * Start v of row r of a table of start offsets (col), rows set in order
 * from 0: a block's base comes from its first row.
 */
static inline int gpa_starts_set(struct gpa_starts *s, uint32_t *col, size_t r, uint64_t v)
{
	size_t b = r >> GPA_START_BLOCK_SHIFT;

	if (b >= s->base.n) {
		if (gp_vec_reserve(&s->base, b + 1)) {
			return -GP_ERR_NOMEM;
		}
		while (s->base.n <= b) {
			s->base.v[s->base.n++] = v > (1ull << 31) ? v - (1ull << 31) : 0;
		}
	}
	uint64_t base = s->base.v[b];
	if (v >= base && v - base < GPA_START_FAR) {
		col[r] = (uint32_t)(v - base);
		return 0;
	}
	col[r] = GPA_START_FAR;
	struct gpa_long_dur e = {(uint32_t)r, v};
	return gp_vec_push(&s->far, e);
}

/* The starts of rows 0 .. n - 1 written anew from v (by row) into col and *s (emptied). */
int gpa_starts_encode(struct gpa_starts *s, uint32_t *col, const uint64_t *v, size_t n);
/* Every start of a table, 64 bits each (NULL: out of memory; caller frees). */
uint64_t *gpa_starts_decode(const struct gpa_starts *s, const uint32_t *col, size_t n);

/* ------------------------------------------------------ taking records */

struct fcache {
	uint32_t fn;        /* GPA_NONE: not seen yet */
	uint32_t demangled; /* file string id it was seen with */
	uint32_t shape;     /* last launch configuration, GPA_NONE */
};

/* The last sites met, by a hash of what they hold: most rows repeat a recent one. */
#define SITE_CACHE 256
struct kcache {
	struct gpa_ksite k;
	uint32_t site; /* GPA_NONE: empty */
};
struct acache {
	uint32_t name, tid; /* file string id, thread id */
	uint32_t site;      /* GPA_NONE: empty */
};

struct file_ctx {
	struct gpa_model *m;
	struct gpt_reader *r;       /* the file's reader; NULL for an input taken from its importer */
	const struct gpt_writer *w; /* that importer's writer, which holds its strings */
	uint32_t proc;
	GP_VEC(uint32_t) remap; /* file string id -> model id; GPA_NONE not yet */
	GP_VEC(struct fcache) fcache; /* by file string id of the kernel name */
	struct fcache fc_undefined;   /* for a name id above every id the file defines */
	struct gp_u64map threads;   /* tid -> model thread */
	struct gp_u64map funcs;     /* (file name id, file demangled id) -> func */
	struct gp_u64map *m_funcs;  /* (model name, model demangled) -> func, across files */
	struct gp_u64map *m_shapes; /* shape hash -> shape, across files */
	struct gp_u64map *m_ksites; /* ksite hash (+ probes) -> ksite, across files */
	struct gp_u64map *m_asites; /* (model name, model thread) -> asite, across files */
	struct kcache kc[SITE_CACHE];
	struct acache ac[SITE_CACHE];
	int64_t offset;
	unsigned drop; /* gpa_load_opts.drop */
	bool have_anchor;
	/* first rows of this file in each table, to shift times once the anchor is known */
	size_t k0, c0, s0, a0, y0, n0, o0;
};

/* Appends the records of chunk ch to the tables (model-take.c). 0 or -GP_ERR_NOMEM. */
int gpa_model_take_chunk(struct file_ctx *f, const struct gpt_chunk *ch);

/* ------------------------------------------------ sorting and linking */

/* Model-sort.c: each 0 or a negative error. */
int gpa_model_sort_tables(struct gpa_model *m);
int gpa_model_sort_memory(struct gpa_model *m);
int gpa_model_build_gpu(struct gpa_model *m);
/* t0, t1: the earliest start and latest end of any timed record. */
void gpa_model_span(struct gpa_model *m);

/*
 * What the analyses need once every file is read (model-link.c): CPU
 * operators from NVTX, the tables sorted, the links, the device timelines.
 * -GP_ERR_NOMEM or 0.
 */
int gpa_model_build_indexes(struct gpa_model *m, const struct gpa_load_opts *opts);

/* ------------------------------------------------ the loader's hooks */

/*
 * Steps of the load other files of analyze/ carry out for the model, in
 * the order model-take.c and model-link.c call them.
 */

/*
 * CPU call stacks (stacks.c keeps the tables): records of
 * process proc, string fields already model ids. Each returns 0 or
 * -GP_ERR_NOMEM. gpa_stacks_link runs once the API table is sorted.
 */
int gpa_stacks_add_node(struct gpa_model *m, uint32_t proc, const struct gpt_stack_node *r);
int gpa_stacks_add_stack(struct gpa_model *m, uint32_t proc, const struct gpt_stack *r);
int gpa_stacks_add_module(struct gpa_model *m, uint32_t proc, const struct gpt_module *r,
			  uint32_t path, uint32_t build_id);
int gpa_stacks_link(struct gpa_model *m);

/*
 * NCCL operations (nccl-model.c): records of process proc, string fields
 * already model ids. Each returns 0 or -GP_ERR_NOMEM. gpa_nccl_link runs
 * once the tables are built: times onto the model timeline, channels and
 * kernels (through CUSTOM2 external correlation) to their operations.
 */
int gpa_nccl_add_op(struct gpa_model *m, uint32_t proc, const struct gpt_nccl *r, uint32_t func,
		    uint32_t algo, uint32_t proto, uint32_t comm_name);
int gpa_nccl_add_channel(struct gpa_model *m, uint32_t proc, const struct gpt_nccl_channel *r);
int gpa_nccl_add_extcorr(struct gpa_model *m, uint32_t proc, const struct gpt_extcorr *r);
int gpa_nccl_link(struct gpa_model *m);

/*
 * CUDA/HIP graphs (graphs.c): gpa_graphs_flag_calls sets the API calls'
 * flags and the call counts once the calls are linked, then
 * gpa_graphs_count_ops (needs the timeline) counts the graphs' ops.
 */
int gpa_graphs_flag_calls(struct gpa_model *m);
void gpa_graphs_count_ops(struct gpa_model *m);

/*
 * The text of an NVTX range PyTorch pushes under emit_nvtx() (analyze/
 * ops-nvtx.c): "NAME, seq = N[, op_id = N][, sizes = [[8, 4], []]][,
 * input_op_ids = [...]]", the fields in that order, at least one of seq,
 * op_id and sizes. Returns 1 with the length of NAME in *name_len and the
 * signature of the sizes ("D=[[8,4],[]]"; "" without sizes) in sig; 0 when
 * text is not of that form (sig emptied); -GP_ERR_NOMEM.
 */
int gpa_ops_nvtx_parse(const char *text, size_t *name_len, struct gp_strbuf *sig);

/*
 * Turns the model's NVTX ranges (origin GPA_RANGE_NVTX) whose text is
 * PyTorch's emit_nvtx form into CPU operator ranges: name NAME, args the
 * signature of their sizes. Called while the model loads. 0 or -GP_ERR_NOMEM.
 */
int gpa_ops_nvtx_convert(struct gpa_model *m);

#endif /* GPA_MODEL_INTERNAL_H */
