/* SPDX-License-Identifier: MIT */
/*
 * breakdown.c - renders gpa_breakdown: HTA's temporal breakdown, idle time
 * breakdown, kernel-type shares and communication-computation overlap, with
 * HTA's column names so that its users can diff the CSVs.
 */
#include "base/compat.h"
#include "analyze/breakdown.h"
#include "report/report.h"
#include "report/breakdown.h"

#include <math.h>

static const struct {
	const char *name;
	unsigned bit;
	const char *title;
} tables[] = {
	{"temporal", GPR_BD_TEMPORAL, "Temporal breakdown (% of each rank's GPU-active span)"},
	{"idle", GPR_BD_IDLE, "Idle time breakdown per stream"},
	{"types", GPR_BD_TYPES, "Kernel-type shares of busy time (all ranks)"},
	{"overlap", GPR_BD_OVERLAP, "Communication-computation overlap"},
};

static const struct gpr_col temporal_cols[] = {
	{"rank", GPR_COL_NUM, "rank"},
	{"idle_time(us)", GPR_COL_NUM, "idle_time_us"},
	{"compute_time(us)", GPR_COL_NUM, "compute_time_us"},
	{"non_compute_time(us)", GPR_COL_NUM, "non_compute_time_us"},
	{"kernel_time(us)", GPR_COL_NUM, "kernel_time_us"},
	{"idle_time_pctg", GPR_COL_NUM, "idle_time_pct"},
	{"compute_time_pctg", GPR_COL_NUM, "compute_time_pct"},
	{"non_compute_time_pctg", GPR_COL_NUM, "non_compute_time_pct"},
};

static const struct gpr_col idle_cols[] = {
	{"rank", GPR_COL_NUM, "rank"},
	{"stream", GPR_COL_NUM, "stream"},
	{"idle_category", GPR_COL_LEFT, "idle_category"},
	{"idle_time(us)", GPR_COL_NUM, "idle_time_us"},
	{"idle_time_ratio", GPR_COL_NUM, "idle_time_ratio"},
	{"intervals", GPR_COL_NUM, "intervals"},
};

static const struct gpr_col type_cols[] = {
	{"kernel_type", GPR_COL_LEFT, "kernel_type"},
	{"sum(us)", GPR_COL_NUM, "sum_us"},
	{"percentage", GPR_COL_NUM, "pct"},
};

static const struct gpr_col overlap_cols[] = {
	{"rank", GPR_COL_NUM, "rank"},
	{"comm_time(us)", GPR_COL_NUM, "comm_time_us"},
	{"overlap_time(us)", GPR_COL_NUM, "overlap_time_us"},
	{"comp_comm_overlap_pctg", GPR_COL_NUM, "comp_comm_overlap_pct"},
};

int gpr_bd_table_parse(const char *name)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables); i++) {
		if (!strcmp(name, tables[i].name)) {
			return (int)tables[i].bit;
		}
	}
	return -1;
}

/* Signed ns as microseconds with three decimals. */
static void cell_us(struct gpr_table *t, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	gpr_table_cellf(t, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

/* round(100 * num / den, digits) as pandas/numpy round (half to even on the double). */
static void cell_pct(struct gpr_table *t, int64_t num, int64_t den, int digits)
{
	double scale = digits == 1 ? 10.0 : 100.0, x;

	if (!den) {
		gpr_table_cell(t, "");
		return;
	}
	x = nearbyint(100.0 * (double)num / (double)den * scale) / scale;
	gpr_table_cellf(t, "%.*f", digits, x == 0 ? 0.0 : x);
}

static void type_label(char *buf, size_t len, unsigned set)
{
	static const unsigned order[] = {GPA_BD_COMP, GPA_BD_COMM, GPA_BD_MEM};
	static const char *const names[] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < GP_ARRAY_SIZE(order); i++) {
		if (set & order[i]) {
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? " overlapping " : "", names[i]);
		}
	}
}

static void fill_temporal(struct gpr_table *t, const struct gpa_breakdown *b)
{
	gpr_table_init(t, temporal_cols, GP_ARRAY_SIZE(temporal_cols));
	for (size_t i = 0; i < b->ranks.n; i++) {
		const struct gpa_bd_rank *r = &b->ranks.v[i];
		gpr_table_cellf(t, "%" PRId32, r->rank);
		cell_us(t, r->idle);
		cell_us(t, r->compute);
		cell_us(t, r->non_compute);
		cell_us(t, r->span);
		cell_pct(t, r->idle, r->span, 2);
		cell_pct(t, r->compute, r->span, 2);
		cell_pct(t, r->non_compute, r->span, 2);
	}
}

static void fill_idle(struct gpr_table *t, const struct gpa_breakdown *b)
{
	gpr_table_init(t, idle_cols, GP_ARRAY_SIZE(idle_cols));
	for (size_t i = 0; i < b->streams.n; i++) {
		const struct gpa_bd_stream *s = &b->streams.v[i];
		int64_t total = 0;

		for (unsigned c = 0; c < GPA_BD_IDLE__COUNT; c++) {
			total += s->idle_ns[c];
		}
		for (unsigned c = 0; c < GPA_BD_IDLE__COUNT; c++) {
			/* as HTA: categories that occurred, and "other" always */
			if (!s->idle_n[c] && c != GPA_BD_OTHER_WAIT) {
				continue;
			}
			gpr_table_cellf(t, "%" PRId32, s->rank);
			gpr_table_cellf(t, "%" PRIu32, s->stream);
			gpr_table_cell(t, gpa_bd_idle_name(c));
			cell_us(t, s->idle_ns[c]);
			cell_pct(t, s->idle_ns[c], total * 100, 2);
			gpr_table_cellf(t, "%" PRIu64, s->idle_n[c]);
		}
	}
}

static void fill_types(struct gpr_table *t, const struct gpa_breakdown *b)
{
	unsigned order[GPA_BD_CLASSES - 1];
	int64_t total = 0;
	char label[80];

	gpr_table_init(t, type_cols, GP_ARRAY_SIZE(type_cols));
	for (unsigned c = 1; c < GPA_BD_CLASSES; c++) {
		order[c - 1] = c;
		total += b->type_ns[c];
	}
	/* largest first, as HTA sorts; ties by set */
	for (size_t i = 1; i < GP_ARRAY_SIZE(order); i++) {
		for (size_t j = i; j > 0 && b->type_ns[order[j]] > b->type_ns[order[j - 1]]; j--) {
			unsigned x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(order); i++) {
		if (!b->type_ns[order[i]]) {
			continue;
		}
		type_label(label, sizeof(label), order[i]);
		gpr_table_cell(t, label);
		cell_us(t, b->type_ns[order[i]]);
		cell_pct(t, b->type_ns[order[i]], total, 1);
	}
}

static void fill_overlap(struct gpr_table *t, const struct gpa_breakdown *b)
{
	gpr_table_init(t, overlap_cols, GP_ARRAY_SIZE(overlap_cols));
	for (size_t i = 0; i < b->ranks.n; i++) {
		const struct gpa_bd_rank *r = &b->ranks.v[i];
		gpr_table_cellf(t, "%" PRId32, r->rank);
		cell_us(t, r->comm);
		cell_us(t, r->overlap);
		cell_pct(t, r->overlap, r->comm, 2);
	}
}

int gpr_breakdown_table(struct gpr_table *t, unsigned table, const struct gpa_breakdown *b)
{
	switch (table) {
	case GPR_BD_TEMPORAL:
		fill_temporal(t, b);
		break;
	case GPR_BD_IDLE:
		fill_idle(t, b);
		break;
	case GPR_BD_TYPES:
		fill_types(t, b);
		break;
	case GPR_BD_OVERLAP:
		fill_overlap(t, b);
		break;
	default:
		gpr_table_init(t, NULL, 0);
		return -GP_ERR_API;
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

static const char *compat_name(unsigned flags)
{
	if (flags == GPA_BD_COMPAT_HTA) {
		return "hta";
	}
	if (flags == GPA_BD_COMPAT_HTA_NOROUND) {
		return "hta-noround";
	}
	return flags ? "custom" : "none";
}

int gpr_breakdown_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			 unsigned mask, const struct gpa_breakdown *b)
{
	bool first = true;
	int ret = 0;

	if ((unsigned)fmt > GPR_FORMAT_MARKDOWN) {
		return -GP_ERR_API;
	}
	switch (fmt) {
	case GPR_FORMAT_TEXT:
		gp_strbuf_addf(out, "GPU time breakdown (compat: %s); times in us\n",
			       compat_name(b->flags));
		break;
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_addf(out, "## GPU time breakdown\n\nCompat: %s. Times in us.\n",
			       compat_name(b->flags));
		break;
	case GPR_FORMAT_JSON:
		gp_strbuf_addf(out, "{\"schema\":\"gpuprof-breakdown/2\",\"compat\":\"%s\"",
			       compat_name(b->flags));
		break;
	case GPR_FORMAT_CSV:
		break;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables) && !ret; i++) {
		struct gpr_table t;
		if (!(mask & tables[i].bit)) {
			continue;
		}
		ret = gpr_breakdown_table(&t, tables[i].bit, b);
		if (ret) {
			gpr_table_release(&t);
			break;
		}
		ret = gpr_table_section(&t, fmt, d, tables[i].title, tables[i].name, first, out);
		first = false;
	}
	if (!ret && fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	if (!ret && out->failed) {
		ret = -GP_ERR_NOMEM;
	}
	return ret;
}
