/* SPDX-License-Identifier: MIT */
/*
 * stats.c - renders the nsys `stats` reports: nsys's column names and
 * units, exact numbers, four formats, streamed.
 *
 * The table layout follows gpr_table (table.c) cell for cell, but rows are
 * formatted on demand rather than stored, because cuda_gpu_trace has one
 * row per GPU op. Text alignment needs every column's width first, so the
 * text format formats each cell twice; the others format each cell once.
 * NEEDSWORK: gpr_table could grow this streaming mode and share the code.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/stats.h"
#include "report/report.h"
#include "report/stats.h"

#define ROWS_PER_PART 4096

/* ------------------------------------------------------------ columns */

enum unit {
	U_NONE = 0, /* counts, ids, text */
	U_PCT,      /* "Time (%)" */
	U_TIME,     /* the chosen time unit */
	U_MB,       /* 10^6 bytes */
	U_MBPS,     /* MB/s */
};

enum field {
	/* summary reports */
	F_PCT,
	F_TOTAL,
	F_COUNT,
	F_AVG,
	F_MED,
	F_MIN,
	F_MAX,
	F_STDDEV,
	F_NAME,
	F_STYLE,
	F_RANGE_TOTAL,
	F_GPU_OPS,
	F_AVG_OPS,
	F_AVG_LEVEL,
	F_AVG_CHILD,
	/* cuda_gpu_trace */
	T_START,
	T_DURATION,
	T_CORR,
	T_GRID_X,
	T_GRID_Y,
	T_GRID_Z,
	T_BLOCK_X,
	T_BLOCK_Y,
	T_BLOCK_Z,
	T_REGS,
	T_STATIC_SMEM,
	T_DYNAMIC_SMEM,
	T_BYTES,
	T_THROUGHPUT,
	T_SRC_KIND,
	T_DST_KIND,
	T_DEVICE,
	T_CONTEXT,
	T_GREEN_CONTEXT,
	T_STREAM,
	T_NAME,
};

struct colspec {
	const char *name; /* header without its unit */
	enum unit unit;
	enum field field;
	unsigned flags;   /* enum gpr_col_flags */
	/* the JSON key without its unit: "total_time" + "_ns" (docs/json.md) */
	const char *json;
};

#define NUM GPR_COL_NUM
#define TXT 0

static const struct colspec kern_cols[] = {
	{"Time", U_PCT, F_PCT, NUM, "time"},
	{"Total Time", U_TIME, F_TOTAL, NUM, "total_time"},
	{"Instances", U_NONE, F_COUNT, NUM, "instances"},
	{"Avg", U_TIME, F_AVG, NUM, "avg"},
	{"Med", U_TIME, F_MED, NUM, "med"},
	{"Min", U_TIME, F_MIN, NUM, "min"},
	{"Max", U_TIME, F_MAX, NUM, "max"},
	{"StdDev", U_TIME, F_STDDEV, NUM, "stddev"},
	{"Name", U_NONE, F_NAME, TXT, "name"},
};

static const struct colspec mem_time_cols[] = {
	{"Time", U_PCT, F_PCT, NUM, "time"},
	{"Total Time", U_TIME, F_TOTAL, NUM, "total_time"},
	{"Count", U_NONE, F_COUNT, NUM, "count"},
	{"Avg", U_TIME, F_AVG, NUM, "avg"},
	{"Med", U_TIME, F_MED, NUM, "med"},
	{"Min", U_TIME, F_MIN, NUM, "min"},
	{"Max", U_TIME, F_MAX, NUM, "max"},
	{"StdDev", U_TIME, F_STDDEV, NUM, "stddev"},
	{"Operation", U_NONE, F_NAME, TXT, "operation"},
};

static const struct colspec mem_size_cols[] = {
	{"Total", U_MB, F_TOTAL, NUM, "total"},
	{"Count", U_NONE, F_COUNT, NUM, "count"},
	{"Avg", U_MB, F_AVG, NUM, "avg"},
	{"Med", U_MB, F_MED, NUM, "med"},
	{"Min", U_MB, F_MIN, NUM, "min"},
	{"Max", U_MB, F_MAX, NUM, "max"},
	{"StdDev", U_MB, F_STDDEV, NUM, "stddev"},
	{"Operation", U_NONE, F_NAME, TXT, "operation"},
};

static const struct colspec api_cols[] = {
	{"Time", U_PCT, F_PCT, NUM, "time"},
	{"Total Time", U_TIME, F_TOTAL, NUM, "total_time"},
	{"Num Calls", U_NONE, F_COUNT, NUM, "num_calls"},
	{"Avg", U_TIME, F_AVG, NUM, "avg"},
	{"Med", U_TIME, F_MED, NUM, "med"},
	{"Min", U_TIME, F_MIN, NUM, "min"},
	{"Max", U_TIME, F_MAX, NUM, "max"},
	{"StdDev", U_TIME, F_STDDEV, NUM, "stddev"},
	{"Name", U_NONE, F_NAME, TXT, "name"},
};

static const struct colspec nvtx_cols[] = {
	{"Time", U_PCT, F_PCT, NUM, "time"},
	{"Total Time", U_TIME, F_TOTAL, NUM, "total_time"},
	{"Instances", U_NONE, F_COUNT, NUM, "instances"},
	{"Avg", U_TIME, F_AVG, NUM, "avg"},
	{"Med", U_TIME, F_MED, NUM, "med"},
	{"Min", U_TIME, F_MIN, NUM, "min"},
	{"Max", U_TIME, F_MAX, NUM, "max"},
	{"StdDev", U_TIME, F_STDDEV, NUM, "stddev"},
	{"Style", U_NONE, F_STYLE, TXT, "style"},
	{"Range", U_NONE, F_NAME, TXT, "range"},
};

static const struct colspec proj_cols[] = {
	{"Range", U_NONE, F_NAME, TXT, "range"},
	{"Style", U_NONE, F_STYLE, TXT, "style"},
	{"Total Proj Time", U_TIME, F_TOTAL, NUM, "total_proj_time"},
	{"Total Range Time", U_TIME, F_RANGE_TOTAL, NUM, "total_range_time"},
	{"Range Instances", U_NONE, F_COUNT, NUM, "range_instances"},
	{"Proj Avg", U_TIME, F_AVG, NUM, "proj_avg"},
	{"Proj Med", U_TIME, F_MED, NUM, "proj_med"},
	{"Proj Min", U_TIME, F_MIN, NUM, "proj_min"},
	{"Proj Max", U_TIME, F_MAX, NUM, "proj_max"},
	{"Proj StdDev", U_TIME, F_STDDEV, NUM, "proj_stddev"},
	{"Total GPU Ops", U_NONE, F_GPU_OPS, NUM, "total_gpu_ops"},
	{"Avg GPU Ops", U_NONE, F_AVG_OPS, NUM, "avg_gpu_ops"},
	{"Avg Range Lvl", U_NONE, F_AVG_LEVEL, NUM, "avg_range_level"},
	{"Avg Num Child", U_NONE, F_AVG_CHILD, NUM, "avg_children"},
};

static const struct colspec trace_cols[] = {
	{"Start", U_TIME, T_START, NUM, "start"},
	{"Duration", U_TIME, T_DURATION, NUM, "duration"},
	{"CorrId", U_NONE, T_CORR, NUM, "correlation_id"},
	{"GrdX", U_NONE, T_GRID_X, NUM, "grid_x"},
	{"GrdY", U_NONE, T_GRID_Y, NUM, "grid_y"},
	{"GrdZ", U_NONE, T_GRID_Z, NUM, "grid_z"},
	{"BlkX", U_NONE, T_BLOCK_X, NUM, "block_x"},
	{"BlkY", U_NONE, T_BLOCK_Y, NUM, "block_y"},
	{"BlkZ", U_NONE, T_BLOCK_Z, NUM, "block_z"},
	{"Reg/Trd", U_NONE, T_REGS, NUM, "registers_per_thread"},
	{"StcSMem", U_MB, T_STATIC_SMEM, NUM, "static_smem"},
	{"DymSMem", U_MB, T_DYNAMIC_SMEM, NUM, "dynamic_smem"},
	{"Bytes", U_MB, T_BYTES, NUM, "bytes"},
	{"Throughput", U_MBPS, T_THROUGHPUT, NUM, "throughput"},
	{"SrcMemKd", U_NONE, T_SRC_KIND, TXT, "src_mem_kind"},
	{"DstMemKd", U_NONE, T_DST_KIND, TXT, "dst_mem_kind"},
	{"Device", U_NONE, T_DEVICE, TXT, "device"},
	{"Ctx", U_NONE, T_CONTEXT, NUM, "context"},
	{"GreenCtx", U_NONE, T_GREEN_CONTEXT, NUM, "green_context"},
	{"Strm", U_NONE, T_STREAM, NUM, "stream"},
	{"Name", U_NONE, T_NAME, TXT, "name"},
};

#undef NUM
#undef TXT

static const struct {
	const char *title;
	const struct colspec *cols;
	size_t ncols;
} reports[GPA_STATS__COUNT] = {
#define R_(id, title, cols) [id] = {title, cols, GP_ARRAY_SIZE(cols)}
	R_(GPA_STATS_KERN_SUM, "CUDA GPU Kernel Summary", kern_cols),
	R_(GPA_STATS_MEM_TIME_SUM, "CUDA GPU MemOps Summary (by Time)", mem_time_cols),
	R_(GPA_STATS_MEM_SIZE_SUM, "CUDA GPU MemOps Summary (by Size)", mem_size_cols),
	R_(GPA_STATS_API_SUM, "CUDA API Summary", api_cols),
	R_(GPA_STATS_NVTX_SUM, "NVTX Range Summary", nvtx_cols),
	R_(GPA_STATS_NVTX_GPU_PROJ_SUM, "NVTX GPU Projection Summary", proj_cols),
	R_(GPA_STATS_GPU_TRACE, "CUDA GPU Trace", trace_cols),
#undef R_
};

static const char *const unit_names[] = {"ns", "us", "ms", "s"};
static const unsigned unit_decimals[] = {0, 3, 6, 9}; /* of ns */

int gpr_time_unit_parse(const char *name)
{
	/* nsys's spellings and the short ones, in the order of enum gpr_time_unit. */
	static const char *const spellings[][2] = {
		{"nsec", "ns"}, {"usec", "us"}, {"msec", "ms"}, {"sec", "s"}};

	for (unsigned i = 0; i < GP_ARRAY_SIZE(spellings); i++) {
		if (!strcmp(name, spellings[i][0]) || !strcmp(name, spellings[i][1])) {
			return (int)i;
		}
	}
	if (!strcmp(name, "auto")) {
		return GPR_TIME_AUTO;
	}
	return !strcmp(name, "seconds") ? GPR_TIME_S : -1;
}

/* ------------------------------------------------------------- numbers */

typedef unsigned __int128 u128;

/* v / 10^dec with exactly dec decimals. */
static void fixed(struct gp_strbuf *sb, u128 v, unsigned dec)
{
	char digits[48], out[50];
	int n = 0, k = 0;

	if (v <= UINT64_MAX) {
		uint64_t x = (uint64_t)v; /* 64-bit division: the common, fast case */
		do {
			digits[n++] = (char)('0' + x % 10);
			x /= 10;
		} while (x || n <= (int)dec);
	} else {
		do {
			digits[n++] = (char)('0' + (unsigned)(v % 10));
			v /= 10;
		} while (v || n <= (int)dec);
	}
	while (n > 0) {
		if (n == (int)dec) {
			out[k++] = '.';
		}
		out[k++] = digits[--n];
	}
	gp_strbuf_add(sb, out, (size_t)k);
}

static void put_u64(struct gp_strbuf *sb, uint64_t v)
{
	fixed(sb, v, 0);
}

static void put_i64(struct gp_strbuf *sb, int64_t v)
{
	if (v < 0) {
		gp_strbuf_addch(sb, '-');
		fixed(sb, (u128)(-(v + 1)) + 1, 0);
	} else {
		fixed(sb, (u128)v, 0);
	}
}

/* num / den in tenths, rounded half away from zero (SQLite's round(x, 1)). */
static u128 tenths(u128 num, u128 den)
{
	return den ? (num * 20 + den) / (2 * den) : 0;
}

/* Decimals of a column's unit for values exact in its base unit (ns, bytes). */
static unsigned decimals(enum unit u, enum gpr_time_unit tu)
{
	switch (u) {
	case U_TIME:
		return unit_decimals[tu];
	case U_MB:
		return 6;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------- writer */

struct gpr_stats_writer {
	enum gpr_format fmt;
	enum gpr_time_unit unit;
	unsigned started;              /* reports started so far */
	const struct gpa_model *m;     /* the current report, borrowed */
	const struct gpa_stats *st;
	const struct colspec *cols;
	size_t ncols;
	char **headers;                /* ncols, with units; JSON: the keys */
	size_t *width;                 /* text: display width of each column */
	size_t nrows, row;             /* rows in all, next to write */
	bool begun;                    /* the current report's heading is out */
	struct gp_strbuf cell;         /* the cells of one row, each NUL-terminated */
	size_t *off;                   /* ncols: where each cell of that row starts */
	size_t cached;                 /* the row in cell, SIZE_MAX none */
	size_t fit;                    /* text: the key column's names fit this width; 0 whole */
	char **shown;                  /* nrows: the key column's fitted names when fit */
	size_t key;                    /* text: the column that leads each folded block */
	size_t *bcols, *bstart, nblk;  /* text: columns of block k: bcols[bstart[k]..bstart[k+1]) */
	size_t blk;                    /* text: the block being written */
	bool human;                    /* text, Markdown: times scaled (GPR_TIME_AUTO) */
	struct gpr_display disp;       /* text, Markdown: how they read (a copy) */
};

int gpr_stats_writer_new(enum gpr_format fmt, const struct gpr_display *d, enum gpr_time_unit unit,
			 struct gpr_stats_writer **out)
{
	struct gpr_stats_writer *w;

	*out = NULL;
	if ((unsigned)fmt > GPR_FORMAT_MARKDOWN || (unsigned)unit > GPR_TIME_AUTO) {
		return -GP_ERR_API;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		return -GP_ERR_NOMEM;
	}
	w->fmt = fmt;
	w->disp = *gpr_display_or_default(d);
	w->unit = unit == GPR_TIME_AUTO ? GPR_TIME_NS : unit;
	w->human = unit == GPR_TIME_AUTO && !w->disp.exact &&
		   (fmt == GPR_FORMAT_TEXT || fmt == GPR_FORMAT_MARKDOWN);
	w->cached = SIZE_MAX;
	gp_strbuf_init(&w->cell);
	*out = w;
	return 0;
}

static void clear_report(struct gpr_stats_writer *w)
{
	for (size_t c = 0; w->headers && c < w->ncols; c++) {
		free(w->headers[c]);
	}
	for (size_t r = 0; w->shown && r < w->nrows; r++) {
		free(w->shown[r]);
	}
	free(w->shown);
	free(w->bcols);
	free(w->bstart);
	w->shown = NULL;
	w->bcols = NULL;
	w->bstart = NULL;
	w->nblk = w->blk = 0;
	free(w->headers);
	free(w->width);
	free(w->off);
	w->headers = NULL;
	w->width = NULL;
	w->off = NULL;
	w->cached = SIZE_MAX;
	w->m = NULL;
	w->st = NULL;
}

void gpr_stats_writer_free(struct gpr_stats_writer *w)
{
	if (!w) {
		return;
	}
	clear_report(w);
	gp_strbuf_release(&w->cell);
	free(w);
}

/* Summary cells. */
static void sum_cell(const struct gpr_stats_writer *w, const struct colspec *col,
		     const struct gpa_stats_row *row, struct gp_strbuf *sb)
{
	const struct gpa_stats_summary *s = &row->s;
	unsigned dec = decimals(col->unit, w->unit);

	switch (col->field) {
	case F_PCT:
		fixed(sb, tenths((u128)s->total * 100, w->st->grand_total), 1);
		break;
	case F_TOTAL:
		fixed(sb, s->total, dec);
		break;
	case F_RANGE_TOTAL:
		fixed(sb, row->range_total, dec);
		break;
	case F_MIN:
		fixed(sb, s->min, dec);
		break;
	case F_MAX:
		fixed(sb, s->max, dec);
		break;
	case F_AVG:
		fixed(sb, tenths(s->total, s->count), dec + 1);
		break;
	case F_MED:
		fixed(sb, (u128)s->median2 * 5, dec + 1);
		break;
	case F_STDDEV:
		fixed(sb, (u128)(s->stddev * 10 + 0.5), dec + 1);
		break;
	case F_COUNT:
		put_u64(sb, s->count);
		break;
	case F_GPU_OPS:
		put_u64(sb, row->gpu_ops);
		break;
	case F_AVG_OPS:
		fixed(sb, tenths(row->gpu_ops, s->count), 1);
		break;
	case F_AVG_LEVEL:
		fixed(sb, tenths(row->level_sum, s->count), 1);
		break;
	case F_AVG_CHILD:
		fixed(sb, tenths(row->child_sum, s->count), 1);
		break;
	case F_NAME:
		gp_strbuf_adds(sb, row->name);
		break;
	case F_STYLE:
		gp_strbuf_adds(sb, row->style == GPT_NVTX_START_END ? "StartEnd" : "PushPop");
		break;
	default:
		break;
	}
}

/* What the cells of one cuda_gpu_trace row (one GPU op) are made of. */
struct op {
	uint32_t row;
	uint8_t kind;
	uint64_t start, dur, bytes;
	const struct gpa_shape *sh; /* kernels only */
	const struct gpa_dev *dev;
};

static void trace_cell(const struct gpr_stats_writer *w, const struct colspec *col,
		       const struct op *op, struct gp_strbuf *sb)
{
	const struct gpa_model *m = w->m;
	const struct gpa_shape *sh = op->sh;
	uint32_t row = op->row;
	unsigned dec = decimals(col->unit, w->unit);

	switch (col->field) {
	case T_START:
		fixed(sb, op->start - w->st->origin, dec);
		break;
	case T_DURATION:
		fixed(sb, op->dur, dec);
		break;
	case T_CORR:
		put_u64(sb, op->kind == GPA_GPU_KERNEL   ? gpa_kern_corr(m, row)
			    : op->kind == GPA_GPU_MEMCPY ? gpa_copy_corr(m, row)
							 : gpa_set_corr(m, row));
		break;
	case T_GRID_X:
	case T_GRID_Y:
	case T_GRID_Z:
	case T_BLOCK_X:
	case T_BLOCK_Y:
	case T_BLOCK_Z:
		if (sh) {
			const int32_t v[] = {sh->grid_x,  sh->grid_y,  sh->grid_z,
					     sh->block_x, sh->block_y, sh->block_z};
			put_i64(sb, v[col->field - T_GRID_X]);
		}
		break;
	case T_REGS:
		if (sh) {
			put_u64(sb, sh->regs);
		}
		break;
	case T_STATIC_SMEM:
	case T_DYNAMIC_SMEM:
		if (sh) {
			int32_t v = col->field == T_STATIC_SMEM ? sh->static_smem
								 : sh->dynamic_smem;
			fixed(sb, v > 0 ? (u128)v : 0, dec);
		}
		break;
	case T_BYTES:
		if (!sh) {
			fixed(sb, op->bytes, dec);
		}
		break;
	case T_THROUGHPUT:
		/* bytes * 10^9 / dur B/s in MB/s, to 0.001 MB/s. */
		if (!sh && op->dur) {
			fixed(sb, ((u128)op->bytes * 2000000 + op->dur) / (2 * (u128)op->dur), 3);
		}
		break;
	case T_SRC_KIND:
		if (op->kind == GPA_GPU_MEMCPY) {
			gp_strbuf_adds(sb, gpa_stats_mem_kind_name(gpa_copy_src_kind(m, row)));
		} else if (op->kind == GPA_GPU_MEMSET) {
			gp_strbuf_adds(sb, gpa_stats_mem_kind_name(gpa_set_memory_kind(m, row)));
		}
		break;
	case T_DST_KIND:
		if (op->kind == GPA_GPU_MEMCPY) {
			gp_strbuf_adds(sb, gpa_stats_mem_kind_name(gpa_copy_dst_kind(m, row)));
		}
		break;
	case T_DEVICE: {
		const char *name = gpa_model_str(m, op->dev->name);
		gp_strbuf_adds(sb, *name ? name : "unknown");
		gp_strbuf_adds(sb, " (");
		put_u64(sb, op->dev->id);
		gp_strbuf_addch(sb, ')');
		break;
	}
	case T_CONTEXT:
	case T_GREEN_CONTEXT:
		break; /* the model keeps no context ids */
	case T_STREAM:
		put_u64(sb, op->kind == GPA_GPU_KERNEL   ? gpa_kern_stream(m, row)
			    : op->kind == GPA_GPU_MEMCPY ? gpa_copy_stream(m, row)
							 : gpa_set_stream(m, row));
		break;
	case T_NAME:
		if (op->kind == GPA_GPU_KERNEL) {
			gp_strbuf_adds(sb, w->st->func_names[gpa_kern_func(m, row)]);
		} else if (op->kind == GPA_GPU_MEMCPY) {
			gp_strbuf_adds(sb, gpa_stats_memcpy_name(gpa_copy_copy_kind(m, row)));
		} else {
			gp_strbuf_adds(sb, GPA_STATS_MEMSET_NAME);
		}
		break;
	default:
		break;
	}
}

/*
 * Text for people: the cell just written from off on (nanoseconds, MB with
 * six decimals, MB/s, a count) in scaled time units, binary byte units or
 * with thousands separators (docs/units.md).
 */
static void human_cell(struct gpr_stats_writer *w, const struct colspec *col, size_t off)
{
	struct gp_strbuf h = GP_STRBUF_INIT;
	const char *v = w->cell.buf + off;
	bool done = false;

	if (col->unit == U_TIME) {
		done = gpr_fmt_cell(&h, &w->disp, v, GPR_COL_NS);
	} else if (col->unit == U_MB || col->unit == U_MBPS) {
		double b = strtod(v, NULL) * 1e6;
		gpr_fmt_bytes(&h, (uint64_t)(b + 0.5));
		gp_strbuf_adds(&h, col->unit == U_MBPS ? "/s" : "");
		done = true;
	} else if (col->field == F_COUNT || col->field == F_GPU_OPS) {
		done = gpr_fmt_cell(&h, &w->disp, v, GPR_COL_COUNT);
	}
	if (done && !h.failed) {
		w->cell.len = off;
		gp_strbuf_adds(&w->cell, h.buf);
	}
	gp_strbuf_release(&h);
}

/* Formats every cell of row r into w->cell, once. */
static void format_row(struct gpr_stats_writer *w, size_t r)
{
	const struct gpa_model *m = w->m;
	bool trace = w->st->report == GPA_STATS_GPU_TRACE;
	struct op op = {0};

	gp_strbuf_reset(&w->cell);
	if (trace) {
		uint32_t g = w->st->order[r];
		op.row = gpa_gpu_row(m, g);
		op.kind = gpa_gpu_kind(m, g);
		op.start = gpa_gpu_start(m, g);
		op.dur = gpa_gpu_end(m, g) - op.start;
		op.dev = &m->devs.v[gpa_gpu_dev(m, g)];
		if (op.kind == GPA_GPU_KERNEL) {
			op.sh = &m->shapes.v[gpa_kern_shape(m, op.row)];
		} else {
			op.bytes = op.kind == GPA_GPU_MEMCPY ? gpa_copy_bytes(m, op.row)
							     : gpa_set_bytes(m, op.row);
		}
	}
	for (size_t c = 0; c < w->ncols; c++) {
		w->off[c] = w->cell.len;
		if (trace) {
			trace_cell(w, &w->cols[c], &op, &w->cell);
		} else {
			sum_cell(w, &w->cols[c], &w->st->rows.v[r], &w->cell);
		}
		if (w->human) {
			human_cell(w, &w->cols[c], w->off[c]);
		}
		gp_strbuf_addch(&w->cell, '\0');
	}
	w->cached = w->cell.failed ? SIZE_MAX : r;
}

/* The text of cell (r, c); valid until a cell of another row is asked for. */
static const char *cell(struct gpr_stats_writer *w, size_t r, size_t c)
{
	if (w->cached != r) {
		format_row(w, r);
	}
	return w->cell.failed ? "" : w->cell.buf + w->off[c];
}

/* Display width of UTF-8 text: code points, as gpr_table counts them. */
static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		n += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return n;
}

/*
 * The narrowest a shortened name gets before the columns fold: less than
 * gpr_table's 40, so that nsys's nine columns stay in one block at 120.
 */
#define NAME_MIN_WIDTH 32

/* The key column's names fitted together (gpr_fmt_names_fit): different names read differently. */
static int fit_key_names(struct gpr_stats_writer *w)
{
	const char **names = calloc(w->nrows + 1, sizeof(*names));
	int ret = -GP_ERR_NOMEM;

	w->shown = calloc(w->nrows + 1, sizeof(*w->shown));
	if (!names || !w->shown) {
		goto out;
	}
	for (size_t r = 0; r < w->nrows; r++) {
		if (!(names[r] = strdup(cell(w, r, w->key)))) {
			goto out;
		}
	}
	ret = gpr_fmt_names_fit(w->shown, names, w->nrows, w->fit);
	w->width[w->key] = width(w->headers[w->key]);
	for (size_t r = 0; !ret && r < w->nrows; r++) {
		size_t x = width(w->shown[r]);
		w->width[w->key] = x > w->width[w->key] ? x : w->width[w->key];
	}
out:
	for (size_t r = 0; names && r < w->nrows; r++) {
		free((char *)names[r]);
	}
	free(names);
	if (ret) {
		free(w->shown); /* the strings stay with gpr_fmt_names_fit on failure */
		w->shown = NULL;
	}
	return ret;
}

/*
 * The text layout: the key column (the names, last in nsys's reports; the
 * first where the last is a number) leads every block of columns; the other
 * columns go into blocks that fit the display width with the key, one block
 * under the other (all in one when there is no width or --wide).
 */
static int plan_blocks(struct gpr_stats_writer *w)
{
	const struct gpr_display *d = &w->disp;
	bool limit = d->width && !d->wide;
	size_t k, key, keyw, n = 0, used = 0, widest = 0;

	w->key = key = (w->cols[w->ncols - 1].flags & GPR_COL_NUM) ? 0 : w->ncols - 1;
	keyw = w->width[key] < NAME_MIN_WIDTH ? w->width[key] : NAME_MIN_WIDTH;
	w->bcols = calloc(2 * w->ncols + 1, sizeof(*w->bcols));
	w->bstart = calloc(w->ncols + 2, sizeof(*w->bstart));
	if (!w->bcols || !w->bstart) {
		return -GP_ERR_NOMEM;
	}
	for (size_t c = 0; c < w->ncols; c++) {
		if (c == key) {
			continue;
		}
		if (n && limit && used + w->width[c] + 2 + keyw > d->width) {
			if (key != 0) {
				w->bcols[n++] = key; /* the names end each block */
			}
			w->bstart[++w->nblk] = n;
			used = 0;
		}
		if (key == 0 && used == 0) {
			w->bcols[n++] = key;
		}
		w->bcols[n++] = c;
		used += w->width[c] + 2;
		widest = used > widest ? used : widest;
	}
	if (key != 0 || !n) {
		w->bcols[n++] = key;
	}
	w->bstart[++w->nblk] = n;
	/* the key's names fit what the widest block leaves */
	w->fit = 0;
	if (limit && !(w->cols[key].flags & GPR_COL_NUM) && widest + w->width[key] > d->width) {
		k = d->width > widest + NAME_MIN_WIDTH ? d->width - widest : NAME_MIN_WIDTH;
		w->fit = k > width(w->headers[key]) ? k : width(w->headers[key]);
		if (w->width[key] <= w->fit) {
			w->fit = 0;
		}
	}
	return w->fit ? fit_key_names(w) : 0;
}

int gpr_stats_writer_start(struct gpr_stats_writer *w, const struct gpa_model *m,
			   const struct gpa_stats *st)
{
	if ((unsigned)st->report >= GPA_STATS__COUNT) {
		return -GP_ERR_API;
	}
	clear_report(w);
	w->m = m;
	w->st = st;
	w->cols = reports[st->report].cols;
	w->ncols = reports[st->report].ncols;
	w->nrows = st->report == GPA_STATS_GPU_TRACE ? st->norder : st->rows.n;
	w->row = 0;
	w->begun = false;
	w->headers = calloc(w->ncols, sizeof(*w->headers));
	w->width = calloc(w->ncols, sizeof(*w->width));
	w->off = calloc(w->ncols, sizeof(*w->off));
	if (!w->headers || !w->width || !w->off) {
		return -GP_ERR_NOMEM;
	}
	for (size_t c = 0; c < w->ncols; c++) {
		const struct colspec *col = &w->cols[c];
		static const char *const fixed_units[] = {[U_PCT] = "%", [U_MB] = "MB",
							  [U_MBPS] = "MB/s"};
		/* scaled cells carry their own units */
		const char *u = col->unit == U_TIME ? (w->human ? NULL : unit_names[w->unit])
			      : col->unit == U_PCT || !w->human ? fixed_units[col->unit] : NULL;
		struct gp_strbuf h = GP_STRBUF_INIT;
		if (w->fmt == GPR_FORMAT_JSON) {
			/* the key: its name and its unit, "total_time_us", "time_pct" */
			static const char *const key_units[] = {[U_PCT] = "_pct", [U_MB] = "_mb",
								[U_MBPS] = "_mb_per_s"};
			gp_strbuf_addf(&h, "%s%s%s", col->json, col->unit == U_TIME ? "_" : "",
				       col->unit == U_TIME ? unit_names[w->unit]
				       : key_units[col->unit] ? key_units[col->unit] : "");
		} else if (u) {
			gp_strbuf_addf(&h, "%s (%s)", col->name, u);
		} else {
			gp_strbuf_adds(&h, col->name);
		}
		w->headers[c] = h.failed ? NULL : gp_strbuf_detach(&h, NULL);
		gp_strbuf_release(&h);
		if (!w->headers[c]) {
			return -GP_ERR_NOMEM;
		}
		w->width[c] = width(w->headers[c]);
	}
	if (w->fmt == GPR_FORMAT_TEXT) {
		for (size_t r = 0; r < w->nrows; r++) {
			for (size_t c = 0; c < w->ncols; c++) {
				size_t x = width(cell(w, r, c));
				w->width[c] = x > w->width[c] ? x : w->width[c];
			}
		}
		if (plan_blocks(w)) {
			return -GP_ERR_NOMEM;
		}
	}
	w->started++;
	return w->cell.failed ? -GP_ERR_NOMEM : 0;
}

static void pad(struct gp_strbuf *o, size_t n)
{
	while (n--) {
		gp_strbuf_addch(o, ' ');
	}
}

/* One line of the current block of the text table: header (r == SIZE_MAX) or a row. */
static void text_line(struct gpr_stats_writer *w, size_t r, struct gp_strbuf *o)
{
	const size_t *idx = w->bcols + w->bstart[w->blk];
	size_t n = w->bstart[w->blk + 1] - w->bstart[w->blk];

	for (size_t k = 0; k < n; k++) {
		size_t c = idx[k];
		bool last = k + 1 == n;
		bool right = (w->cols[c].flags & GPR_COL_NUM) && !(w->cols[c].flags & GPR_COL_LEFT);
		const char *s = r == SIZE_MAX ? w->headers[c] : cell(w, r, c);
		if (c == w->key && w->shown && r != SIZE_MAX) {
			s = w->shown[r];
		}
		size_t x = width(s);
		if (right) {
			pad(o, w->width[c] - x);
		}
		gp_strbuf_adds(o, s);
		if (!last) {
			if (!right) {
				pad(o, w->width[c] - x);
			}
			gp_strbuf_adds(o, "  ");
		}
	}
	gp_strbuf_addch(o, '\n');
}

static void csv_cell(struct gp_strbuf *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		gp_strbuf_adds(o, s);
		return;
	}
	gp_strbuf_addch(o, '"');
	for (; *s; s++) {
		if (*s == '"') {
			gp_strbuf_addch(o, '"');
		}
		gp_strbuf_addch(o, *s);
	}
	gp_strbuf_addch(o, '"');
}

static void md_cell(struct gp_strbuf *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_' || *s == '<') {
			gp_strbuf_addch(o, '\\');
		}
		gp_strbuf_addch(o, *s == '\n' ? ' ' : *s);
	}
}

static void json_str(struct gp_strbuf *o, const char *s)
{
	gp_strbuf_add_json_str(o, s, strlen(s));
}

/* The header and rule of the current block of the text table. */
static void text_header(struct gpr_stats_writer *w, struct gp_strbuf *o)
{
	const size_t *idx = w->bcols + w->bstart[w->blk];
	size_t n = w->bstart[w->blk + 1] - w->bstart[w->blk];

	text_line(w, SIZE_MAX, o);
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < w->width[idx[k]]; i++) {
			gp_strbuf_addch(o, '-');
		}
		if (k + 1 < n) {
			gp_strbuf_adds(o, "  ");
		}
	}
	gp_strbuf_addch(o, '\n');
}

/* The report's heading and table header. */
static void begin_report(struct gpr_stats_writer *w, struct gp_strbuf *o)
{
	const char *title = reports[w->st->report].title;
	const char *name = gpa_stats_report_name(w->st->report);

	switch (w->fmt) {
	case GPR_FORMAT_TEXT:
		gp_strbuf_addf(o, "%s** %s (%s):\n\n", w->started > 1 ? "\n" : "", title, name);
		text_header(w, o);
		break;
	case GPR_FORMAT_CSV:
		if (w->started > 1) {
			gp_strbuf_addch(o, '\n');
		}
		for (size_t c = 0; c < w->ncols; c++) {
			if (c) {
				gp_strbuf_addch(o, ',');
			}
			csv_cell(o, w->headers[c]);
		}
		gp_strbuf_addch(o, '\n');
		break;
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_addf(o, "%s### %s (%s)\n\n|", w->started > 1 ? "\n" : "", title, name);
		for (size_t c = 0; c < w->ncols; c++) {
			gp_strbuf_addch(o, ' ');
			md_cell(o, w->headers[c]);
			gp_strbuf_adds(o, " |");
		}
		gp_strbuf_adds(o, "\n|");
		for (size_t c = 0; c < w->ncols; c++) {
			gp_strbuf_adds(o, (w->cols[c].flags & GPR_COL_NUM) ? " ---: |" : " --- |");
		}
		gp_strbuf_addch(o, '\n');
		break;
	case GPR_FORMAT_JSON:
		gp_strbuf_adds(o, w->started > 1
				 ? ",\n"
				 : "{\"schema\":\"gpuprof-stats/2\",\"reports\":[\n");
		gp_strbuf_adds(o, "{\"report\":");
		json_str(o, name);
		gp_strbuf_adds(o, ",\"title\":");
		json_str(o, title);
		gp_strbuf_addf(o, ",\"timeunit\":\"%s\",\"rows\":[", unit_names[w->unit]);
		break;
	}
}

static void row_out(struct gpr_stats_writer *w, size_t r, struct gp_strbuf *o)
{
	switch (w->fmt) {
	case GPR_FORMAT_TEXT:
		text_line(w, r, o);
		break;
	case GPR_FORMAT_CSV:
		for (size_t c = 0; c < w->ncols; c++) {
			if (c) {
				gp_strbuf_addch(o, ',');
			}
			csv_cell(o, cell(w, r, c));
		}
		gp_strbuf_addch(o, '\n');
		break;
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_addch(o, '|');
		for (size_t c = 0; c < w->ncols; c++) {
			gp_strbuf_addch(o, ' ');
			md_cell(o, cell(w, r, c));
			gp_strbuf_adds(o, " |");
		}
		gp_strbuf_addch(o, '\n');
		break;
	case GPR_FORMAT_JSON:
		gp_strbuf_adds(o, r ? ",\n{" : "\n{");
		for (size_t c = 0; c < w->ncols; c++) {
			const char *s = cell(w, r, c);
			if (c) {
				gp_strbuf_addch(o, ',');
			}
			json_str(o, w->headers[c]);
			gp_strbuf_addch(o, ':');
			if (w->cols[c].flags & GPR_COL_NUM) {
				gp_strbuf_adds(o, *s ? s : "null");
			} else {
				json_str(o, s);
			}
		}
		gp_strbuf_addch(o, '}');
		break;
	}
}

int gpr_stats_writer_next(struct gpr_stats_writer *w, struct gp_strbuf *out)
{
	size_t stop;

	if (!w->st) {
		return -GP_ERR_API;
	}
	if (!w->begun) {
		begin_report(w, out);
		w->begun = true;
	}
	stop = w->nrows - w->row > ROWS_PER_PART ? w->row + ROWS_PER_PART : w->nrows;
	for (; w->row < stop; w->row++) {
		row_out(w, w->row, out);
	}
	if (w->cell.failed || out->failed) {
		return -GP_ERR_NOMEM;
	}
	if (w->row < w->nrows) {
		return 1;
	}
	if (w->fmt == GPR_FORMAT_TEXT && w->blk + 1 < w->nblk) {
		/* the next block of columns, under the last */
		w->blk++;
		w->row = 0;
		gp_strbuf_addch(out, '\n');
		text_header(w, out);
		return out->failed ? -GP_ERR_NOMEM : 1;
	}
	if (w->fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, w->nrows ? "\n]}" : "]}");
	}
	clear_report(w);
	return out->failed ? -GP_ERR_NOMEM : 0;
}

int gpr_stats_writer_finish(struct gpr_stats_writer *w, struct gp_strbuf *out)
{
	if (w->fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, w->started ? "\n]}\n"
					     : "{\"schema\":\"gpuprof-stats/2\",\"reports\":[]}\n");
	}
	return out->failed ? -GP_ERR_NOMEM : 0;
}
