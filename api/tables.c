/* SPDX-License-Identifier: MIT */
/*
 * tables.c - the model's tables as typed column arrays (gpuprof_table).
 * A plain column of the model is handed as it is; the tables' columns come
 * from the model's column lists (analyze/model.h), so a column added there
 * is handed here with no line written. Encoded and per-site values (kernel
 * and API starts and durations, names, devices, threads) are computed once
 * into buffers the handle owns.
 */
#define GP_LOG_TAG "api/tables"
#include "base/compat.h"
#include "api/internal.h"

#include <stdio.h>

#define MAX_COLS 40

static const char *const table_names[API_TABLES + 1] = {
	[API_KERNELS] = "kernels", [API_API] = "api",       [API_COPIES] = "copies",
	[API_MEMSETS] = "memsets", [API_NVTX] = "nvtx",     [API_SYNC] = "sync",
	[API_OVERHEADS] = "overheads", [API_MEMORY] = "memory_events", [API_STEPS] = "steps",
	[API_DEVICES] = "devices", [API_PROCESSES] = "processes", [API_THREADS] = "threads",
	[API_TABLES] = NULL,
};

const char *const *gpuprof_table_names(void)
{
	return table_names;
}

struct builder {
	struct gpuprof_trace *t;
	struct api_table_buf *tb;
	size_t rows;
	int ret;
};

static enum gpuprof_type type_of_width(size_t width)
{
	return width == 1 ? GPUPROF_U8 : width == 2 ? GPUPROF_U16 : width == 4 ? GPUPROF_U32
										: GPUPROF_U64;
}

/* A buffer of rows values of width bytes, zeroed, owned by the table; NULL failed. */
static void *own(struct builder *b, size_t width)
{
	void **v;
	void *p;

	if (b->ret) {
		return NULL;
	}
	v = realloc(b->tb->owned, (b->tb->nowned + 1) * sizeof(*v));
	p = calloc(b->rows ? b->rows : 1, width);
	if (!v || !p) {
		if (v) {
			b->tb->owned = v;
		}
		free(p);
		b->ret = -GP_ERR_NOMEM;
		return NULL;
	}
	b->tb->owned = v;
	v[b->tb->nowned++] = p;
	return p;
}

static void col(struct builder *b, const char *name, enum gpuprof_type type, const void *data)
{
	struct api_table_buf *tb = b->tb;

	if (b->ret) {
		return;
	}
	if (tb->t.ncols == MAX_COLS) { /* a column list grew past MAX_COLS */
		snprintf(b->t->err, sizeof(b->t->err), "table %s: more than %d columns",
			 tb->t.name, MAX_COLS);
		b->ret = -GP_ERR_RANGE;
		return;
	}
	tb->cols[tb->t.ncols++] = (struct gpuprof_column){name, type, b->rows ? data : NULL};
}

/* A model column as it is; an optional one (NULL) as zeros. */
static void model_col(struct builder *b, const char *name, size_t width, const void *data)
{
	col(b, name, type_of_width(width), data ? data : own(b, width));
}

/* The columns the model holds as strings ids, in the tables that hand them as they are. */
static void mark_strings(struct builder *b, const char *const *names)
{
	for (size_t i = 0; i < b->tb->t.ncols; i++) {
		for (size_t j = 0; names[j]; j++) {
			if (!strcmp(b->tb->cols[i].name, names[j])) {
				b->tb->cols[i].type = GPUPROF_STR;
			}
		}
	}
}

#define MODEL_COL_(tab, type, c) model_col(b, #c, sizeof(type), m->tab.c);
#define COPY_COL_(type, c) MODEL_COL_(copy, type, c)
#define SET_COL_(type, c) MODEL_COL_(set, type, c)
#define NVTX_COL_(type, c) MODEL_COL_(nvtx, type, c)
#define SYNC_COL_(type, c) MODEL_COL_(sync, type, c)
#define OVH_COL_(type, c) MODEL_COL_(ovh, type, c)
#define MEM_COL_(type, c) MODEL_COL_(mem, type, c)

static void plain_tables(struct builder *b, enum api_table which)
{
	const struct gpa_model *m = &b->t->m;
	static const char *const nvtx_strs[] = {"name", "domain", "args", NULL};

	switch (which) {
	case API_COPIES:
		GPA_MEMCPY_COLS(COPY_COL_)
		GPA_GRAPH_COLS_(COPY_COL_)
		break;
	case API_MEMSETS:
		GPA_MEMSET_COLS(SET_COL_)
		GPA_GRAPH_COLS_(SET_COL_)
		break;
	case API_NVTX:
		GPA_NVTX_COLS(NVTX_COL_)
		GPA_NVTX_OPT_COLS_(NVTX_COL_)
		mark_strings(b, nvtx_strs);
		break;
	case API_SYNC:
		GPA_SYNC_COLS(SYNC_COL_)
		break;
	case API_OVERHEADS:
		GPA_OVERHEAD_COLS(OVH_COL_)
		break;
	case API_MEMORY:
		GPA_MEM_COLS(MEM_COL_)
		GPA_MEM_OPT_COLS_(MEM_COL_)
		break;
	default: /* the others are built by their own functions */
		break;
	}
}

/* The start, end and duration columns of kernels and API calls, computed. */
static void time_cols(struct builder *b, const uint64_t *start, const uint64_t *end,
		      const uint64_t *dur)
{
	col(b, "start", GPUPROF_U64, start);
	col(b, "end", GPUPROF_U64, end);
	col(b, "dur", GPUPROF_U64, dur);
}

static uint32_t dev_pid(const struct gpa_model *m, uint32_t dev)
{
	return dev < m->devs.n && m->devs.v[dev].proc < m->procs.n
		       ? m->procs.v[m->devs.v[dev].proc].pid
		       : 0;
}

static void kernels(struct builder *b)
{
	const struct gpa_model *m = &b->t->m;
	uint64_t *start = own(b, 8), *end = own(b, 8), *dur = own(b, 8);
	uint32_t *name = own(b, 4), *mangled = own(b, 4), *dev = own(b, 4), *pid = own(b, 4);
	uint32_t *stream = own(b, 4), *regs = own(b, 4);
	int32_t *dims = own(b, 8 * sizeof(int32_t)); /* grid x y z, block x y z, smem s d */

	if (b->ret) {
		return;
	}
	for (size_t i = 0; i < b->rows; i++) {
		const struct gpa_func *f = &m->funcs.v[gpa_kern_func(m, i)];
		const struct gpa_shape *s = &m->shapes.v[gpa_kern_shape(m, i)];
		uint32_t d = gpa_kern_dev(m, i);
		int32_t v[8] = {s->grid_x,  s->grid_y,  s->grid_z,      s->block_x,
				s->block_y, s->block_z, s->static_smem, s->dynamic_smem};

		start[i] = gpa_kern_start(m, i);
		dur[i] = gpa_kern_dur(m, i);
		end[i] = start[i] + dur[i];
		mangled[i] = f->name;
		name[i] = f->demangled ? f->demangled : f->name;
		dev[i] = d < m->devs.n ? m->devs.v[d].id : GPA_NONE;
		pid[i] = dev_pid(m, d);
		stream[i] = gpa_kern_stream(m, i);
		regs[i] = s->regs;
		for (size_t k = 0; k < 8; k++) {
			dims[k * b->rows + i] = v[k];
		}
	}
	static const char *const dim_names[8] = {"grid_x",  "grid_y",  "grid_z",      "block_x",
						 "block_y", "block_z", "static_smem", "dynamic_smem"};
	time_cols(b, start, end, dur);
	col(b, "name", GPUPROF_STR, name);
	col(b, "mangled", GPUPROF_STR, mangled);
	col(b, "device", GPUPROF_U32, dev);
	col(b, "pid", GPUPROF_U32, pid);
	col(b, "stream", GPUPROF_U32, stream);
	for (size_t k = 0; k < 8; k++) {
		col(b, dim_names[k], GPUPROF_I32, dims + k * b->rows);
	}
	col(b, "registers", GPUPROF_U32, regs);
	model_col(b, "api", 4, gpa_kern_api_col(m));
	model_col(b, "corr", 4, gpa_kern_corr_col(m));
	model_col(b, "graph", 4, gpa_kern_graph_col(m));
}

static void api_calls(struct builder *b)
{
	const struct gpa_model *m = &b->t->m;
	uint64_t *start = own(b, 8), *end = own(b, 8), *dur = own(b, 8);
	uint32_t *name = own(b, 4), *tid = own(b, 4), *pid = own(b, 4);

	if (b->ret) {
		return;
	}
	for (size_t i = 0; i < b->rows; i++) {
		uint32_t th = gpa_api_thread(m, i);

		start[i] = gpa_api_start(m, i);
		dur[i] = gpa_api_dur(m, i);
		end[i] = start[i] + dur[i];
		name[i] = gpa_api_name(m, i);
		tid[i] = th < m->threads.n ? m->threads.v[th].tid : 0;
		pid[i] = th < m->threads.n && m->threads.v[th].proc < m->procs.n
				 ? m->procs.v[m->threads.v[th].proc].pid
				 : 0;
	}
	time_cols(b, start, end, dur);
	col(b, "name", GPUPROF_STR, name);
	col(b, "pid", GPUPROF_U32, pid);
	col(b, "tid", GPUPROF_U32, tid);
	model_col(b, "corr", 4, gpa_api_corr_col(m));
	model_col(b, "nvtx", 4, gpa_api_nvtx_col(m));
	model_col(b, "ret", 4, gpa_api_ret_col(m));
}

static void steps(struct builder *b, const struct gpa_steps *s)
{
	const struct gpa_model *m = &b->t->m;
	uint64_t *u64 = own(b, 6 * 8); /* start end dur gpu_start gpu_end gpu_busy */
	int64_t *number = own(b, 8);
	uint32_t *u32 = own(b, 4 * 4); /* pid name gpu_ops gpu_devices */
	static const char *const n64[6] = {"start", "end", "dur", "gpu_start", "gpu_end",
					   "gpu_busy"};
	static const char *const n32[4] = {"pid", "name", "gpu_ops", "gpu_devices"};
	size_t n = b->rows;

	if (b->ret) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_step *st = &s->v.v[i];
		uint64_t v64[6] = {st->start,     st->end,     st->end - st->start,
				   st->gpu_start, st->gpu_end, st->gpu_busy};
		uint32_t v32[4] = {st->proc < m->procs.n ? m->procs.v[st->proc].pid : 0, st->name,
				   st->gpu_ops, st->gpu_devices};

		number[i] = st->number;
		for (size_t k = 0; k < 6; k++) {
			u64[k * n + i] = v64[k];
		}
		for (size_t k = 0; k < 4; k++) {
			u32[k * n + i] = v32[k];
		}
	}
	col(b, "number", GPUPROF_I64, number);
	for (size_t k = 0; k < 4; k++) {
		col(b, n32[k], k == 1 ? GPUPROF_STR : GPUPROF_U32, u32 ? u32 + k * n : NULL);
	}
	for (size_t k = 0; k < 6; k++) {
		col(b, n64[k], GPUPROF_U64, u64 ? u64 + k * n : NULL);
	}
}

static void devices(struct builder *b)
{
	const struct gpa_model *m = &b->t->m;
	uint32_t *u32 = own(b, 6 * 4); /* pid id name cc_major cc_minor sms */
	uint64_t *u64 = own(b, 2 * 8); /* memory bytes, bandwidth kB/s */
	static const char *const n32[6] = {"pid", "id", "name", "cc_major", "cc_minor", "sms"};
	size_t n = b->rows;

	if (b->ret) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_dev *d = &m->devs.v[i];
		uint32_t v[6] = {dev_pid(m, (uint32_t)i), d->id, d->name, d->cc_major, d->cc_minor,
				 d->num_sms};

		for (size_t k = 0; k < 6; k++) {
			u32[k * n + i] = v[k];
		}
		u64[i] = d->global_mem_bytes;
		u64[n + i] = d->global_mem_bw_kbps;
	}
	for (size_t k = 0; k < 6; k++) {
		col(b, n32[k], k == 2 ? GPUPROF_STR : GPUPROF_U32, u32 + k * n);
	}
	col(b, "memory_bytes", GPUPROF_U64, u64);
	col(b, "memory_bw_kbps", GPUPROF_U64, u64 + n);
}

static void processes(struct builder *b)
{
	const struct gpa_model *m = &b->t->m;
	uint32_t *u32 = own(b, 3 * 4); /* pid host cmdline */
	int32_t *i32 = own(b, 2 * 4);  /* rank world_size */
	uint64_t *u64 = own(b, 2 * 8); /* records events */
	const char **path = own(b, sizeof(char *));
	size_t n = b->rows;

	if (b->ret) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_proc *p = &m->procs.v[i];

		u32[i] = p->pid;
		u32[n + i] = p->host;
		u32[2 * n + i] = p->cmdline;
		i32[i] = p->rank;
		i32[n + i] = p->world_size;
		u64[i] = p->records;
		u64[n + i] = p->events;
		path[i] = p->path ? p->path : "";
	}
	col(b, "pid", GPUPROF_U32, u32);
	col(b, "path", GPUPROF_CSTR, path);
	col(b, "host", GPUPROF_STR, u32 + n);
	col(b, "cmdline", GPUPROF_STR, u32 + 2 * n);
	col(b, "rank", GPUPROF_I32, i32);
	col(b, "world_size", GPUPROF_I32, i32 + n);
	col(b, "records", GPUPROF_U64, u64);
	col(b, "events", GPUPROF_U64, u64 + n);
}

static void threads(struct builder *b)
{
	const struct gpa_model *m = &b->t->m;
	uint32_t *u32 = own(b, 3 * 4); /* pid tid name */
	size_t n = b->rows;

	if (b->ret) {
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpa_thread *th = &m->threads.v[i];

		u32[i] = th->proc < m->procs.n ? m->procs.v[th->proc].pid : 0;
		u32[n + i] = th->tid;
		u32[2 * n + i] = th->name;
	}
	col(b, "pid", GPUPROF_U32, u32);
	col(b, "tid", GPUPROF_U32, u32 + n);
	col(b, "name", GPUPROF_STR, u32 + 2 * n);
}

/* The rows of table which; the steps found when which is API_STEPS. */
static size_t rows_of(struct gpuprof_trace *t, enum api_table which, const struct gpa_steps *s)
{
	const struct gpa_model *m = &t->m;
	const size_t rows[API_TABLES] = {
		[API_KERNELS] = gpa_kern_rows(m), [API_API] = gpa_api_rows(m),
		[API_COPIES] = gpa_copy_rows(m),  [API_MEMSETS] = gpa_set_rows(m),
		[API_NVTX] = gpa_nvtx_rows(m),    [API_SYNC] = gpa_sync_rows(m),
		[API_OVERHEADS] = gpa_ovh_rows(m), [API_MEMORY] = gpa_mem_rows(m),
		[API_STEPS] = s ? s->v.n : 0,     [API_DEVICES] = m->devs.n,
		[API_PROCESSES] = m->procs.n,     [API_THREADS] = m->threads.n,
	};

	return rows[which];
}

static int build(struct gpuprof_trace *t, enum api_table which)
{
	struct api_table_buf *tb = &t->tables[which];
	const struct gpa_steps *s = NULL;
	struct builder b = {.t = t, .tb = tb};
	int ret = 0;

	if (which == API_STEPS && !(s = api_steps(t, &ret))) {
		return ret;
	}
	tb->cols = calloc(MAX_COLS, sizeof(*tb->cols));
	if (!tb->cols) {
		return -GP_ERR_NOMEM;
	}
	b.rows = rows_of(t, which, s);
	tb->t = (struct gpuprof_table){.name = table_names[which], .rows = b.rows, .cols = tb->cols};
	switch (which) {
	case API_KERNELS:
		kernels(&b);
		break;
	case API_API:
		api_calls(&b);
		break;
	case API_STEPS:
		steps(&b, s);
		break;
	case API_DEVICES:
		devices(&b);
		break;
	case API_PROCESSES:
		processes(&b);
		break;
	case API_THREADS:
		threads(&b);
		break;
	default:
		plain_tables(&b, which);
	}
	tb->built = !b.ret;
	return b.ret;
}

static void table_release(struct api_table_buf *tb)
{
	for (size_t i = 0; i < tb->nowned; i++) {
		free(tb->owned[i]);
	}
	free(tb->owned);
	free(tb->cols);
	memset(tb, 0, sizeof(*tb));
}

void api_tables_release(struct gpuprof_trace *t)
{
	for (size_t i = 0; i < API_TABLES; i++) {
		table_release(&t->tables[i]);
	}
}

int gpuprof_table(struct gpuprof_trace *t, const char *name, const struct gpuprof_table **out)
{
	size_t i;
	int ret = 0;

	if (!t || !name || !out) {
		return -GP_ERR_API;
	}
	*out = NULL;
	for (i = 0; i < API_TABLES && strcmp(table_names[i], name); i++) {
	}
	pthread_mutex_lock(&t->lock);
	t->err[0] = '\0';
	if (i == API_TABLES) {
		snprintf(t->err, sizeof(t->err), "unknown table '%s'", name);
		ret = -GP_ERR_API;
	} else if (!t->tables[i].built) {
		table_release(&t->tables[i]);
		ret = build(t, (enum api_table)i);
		if (ret == -GP_ERR_NOMEM) {
			snprintf(t->err, sizeof(t->err), "table %s: out of memory", name);
		}
		if (ret) {
			table_release(&t->tables[i]);
		}
	}
	if (!ret) {
		*out = &t->tables[i].t;
	}
	pthread_mutex_unlock(&t->lock);
	return ret;
}

const char *gpuprof_string(struct gpuprof_trace *t, uint32_t id)
{
	return t ? gpa_model_str(&t->m, id) : "";
}

size_t gpuprof_string_count(struct gpuprof_trace *t)
{
	return t ? t->m.strs.off.n + 1 : 0;
}
