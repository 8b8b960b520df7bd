/* SPDX-License-Identifier: MIT */
/*
 * launches.c - rendering of the launch and queue analytics
 * (analyze/launches.c, docs/launches.md).
 */
#include "base/compat.h"
#include "analyze/launches.h"
#include "report/report.h"
#include "report/launches.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned bit;
	const char *title;
} tables[] = {
	{"summary", GPR_LAUNCH_SUMMARY, "Launch calls and delays"},
	{"kernels", GPR_LAUNCH_NAMES, "Launches per kernel"},
	{"queues", GPR_LAUNCH_QUEUES, "Queue length per stream"},
	{"copies", GPR_LAUNCH_COPIES, "Copy bandwidth per kind"},
	{"idle", GPR_LAUNCH_IDLE, "Idle intervals per stream"},
	{"annotations", GPR_LAUNCH_ANNOTS, "GPU user annotations"},
};

int gpr_launches_table_parse(const char *name)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables); i++) {
		if (!strcmp(name, tables[i].name)) {
			return (int)tables[i].bit;
		}
	}
	return -1;
}

/* A number of ns (or GB/s): whole when it is, else three decimals. */
static void cell_num(struct gpr_table *t, double x)
{
	if (x == floor(x) && fabs(x) < 1e18) {
		gpr_table_cellf(t, "%.0f", x);
	} else {
		gpr_table_cellf(t, "%.3f", x);
	}
}

static void cell_u64(struct gpr_table *t, uint64_t v)
{
	gpr_table_cellf(t, "%" PRIu64, v);
}

static const struct gpr_col sum_cols[] = {
	{"Quantity", 0, "quantity"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Mean (ns)", GPR_COL_NUM, "mean_ns"},
	{"P50 (ns)", GPR_COL_NUM, "p50_ns"},
	{"P90 (ns)", GPR_COL_NUM, "p90_ns"},
	{"Max (ns)", GPR_COL_NUM, "max_ns"},
};

static void sum_row(struct gpr_table *t, const char *name, const struct gpa_launch_dist *d)
{
	gpr_table_cell(t, name);
	cell_u64(t, d->n);
	if (!d->n) {
		for (int i = 0; i < 4; i++) {
			gpr_table_cell(t, "");
		}
		return;
	}
	cell_num(t, d->mean);
	cell_num(t, d->p50);
	cell_num(t, d->p90);
	cell_num(t, d->max);
}

static void count_row(struct gpr_table *t, const char *name, uint64_t n)
{
	gpr_table_cell(t, name);
	cell_u64(t, n);
	for (int i = 0; i < 4; i++) {
		gpr_table_cell(t, "");
	}
}

/* A count row whose label names a duration cutoff in readable units ("50 µs"). */
static void cutoff_row(struct gpr_table *t, const struct gpr_display *d, const char *pre,
		       uint64_t ns, const char *post, uint64_t n)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gp_strbuf_adds(&sb, pre);
	gpr_fmt_ns(&sb, d, ns);
	gp_strbuf_adds(&sb, post);
	count_row(t, sb.failed ? pre : sb.buf, n);
	t->failed |= sb.failed; /* out of memory: never the label cut short */
	gp_strbuf_release(&sb);
}

static void fill_summary(struct gpr_table *t, const struct gpr_display *d,
			 const struct gpa_launches *l, bool brief)
{
	gpr_table_init(t, sum_cols, GP_ARRAY_SIZE(sum_cols));
	sum_row(t, "launch call (CPU)", &l->cpu);
	sum_row(t, "launch delay (GPU start - call end)", &l->delay);
	if (!brief) {
		sum_row(t, "GPU duration", &l->gpu);
	}
	cutoff_row(t, d, "short kernels: call <= ", l->opts.runtime_cutoff_ns,
		   " and longer than the op", l->short_kernels);
	if (brief) {
		return;
	}
	cutoff_row(t, d, "calls longer than ", l->opts.runtime_cutoff_ns, "", l->cpu_outliers);
	cutoff_row(t, d, "delays longer than ", l->opts.delay_cutoff_ns, "", l->delay_outliers);
	count_row(t, "ops run by a graph launch (not counted above)", l->graph_ops);
	count_row(t, "ops without a launch call (not counted above)", l->unlinked);
	if (l->opts.last_step) {
		count_row(t, "ops left out by the last-step filter", l->dropped);
	}
	if (l->opts.api_regex) {
		count_row(t, "ops of other launch calls (not counted above)", l->other_api);
	}
}

static const struct gpr_col name_cols[] = {
	{"Launches", GPR_COL_NUM | GPR_COL_COUNT, "launches"},
	{"Short", GPR_COL_NUM | GPR_COL_COUNT, "short_launches"},
	{"Call Mean (ns)", GPR_COL_NUM, "call_mean_ns"},
	{"Call P50 (ns)", GPR_COL_NUM, "call_p50_ns"},
	{"Call P90 (ns)", GPR_COL_NUM, "call_p90_ns"},
	{"Call Max (ns)", GPR_COL_NUM, "call_max_ns"},
	{"Delay Mean (ns)", GPR_COL_NUM, "delay_mean_ns"},
	{"Delay P50 (ns)", GPR_COL_NUM, "delay_p50_ns"},
	{"Delay P90 (ns)", GPR_COL_NUM, "delay_p90_ns"},
	{"Delay Max (ns)", GPR_COL_NUM, "delay_max_ns"},
	{"GPU Mean (ns)", GPR_COL_NUM, "gpu_mean_ns"},
	{"Name", GPR_COL_LEFT | GPR_COL_NAME, "name"},
};

static void fill_names(struct gpr_table *t, const struct gpa_launches *l)
{
	gpr_table_init(t, name_cols, GP_ARRAY_SIZE(name_cols));
	for (size_t i = 0; i < l->names.n; i++) {
		const struct gpa_launch_name *r = &l->names.v[i];
		cell_u64(t, r->cpu.n);
		cell_u64(t, r->short_kernels);
		cell_num(t, r->cpu.mean);
		cell_num(t, r->cpu.p50);
		cell_num(t, r->cpu.p90);
		cell_num(t, r->cpu.max);
		cell_num(t, r->delay.mean);
		cell_num(t, r->delay.p50);
		cell_num(t, r->delay.p90);
		cell_num(t, r->delay.max);
		cell_num(t, r->gpu.mean);
		gpr_table_cell(t, r->name);
	}
}

static void cell_proc(struct gpr_table *t, const struct gpa_model *m, uint32_t proc,
		      uint16_t dev, uint32_t stream)
{
	const struct gpa_proc *p = &m->procs.v[proc];

	if (p->rank >= 0) {
		gpr_table_cellf(t, "%" PRId32, p->rank);
	} else {
		gpr_table_cell(t, "");
	}
	cell_u64(t, p->pid);
	cell_u64(t, m->devs.v[dev].id);
	cell_u64(t, stream);
}

/* A count, then mean, std, min, quartiles, max (mean and std with digits decimals). */
static void cells_dist(struct gpr_table *t, const struct gpa_launch_dist *d, int digits)
{
	cell_u64(t, d->n);
	if (!d->n) {
		for (int i = 0; i < 7; i++) {
			gpr_table_cell(t, "");
		}
		return;
	}
	gpr_table_cellf(t, "%.*f", digits, d->mean);
	gpr_table_cellf(t, "%.*f", digits, d->std);
	cell_num(t, d->min);
	cell_num(t, d->p25);
	cell_num(t, d->p50);
	cell_num(t, d->p75);
	cell_num(t, d->max);
}

static const struct gpr_col queue_cols[] = {
	{"Rank", GPR_COL_NUM, "rank"},
	{"PID", GPR_COL_NUM, "pid"},
	{"Device", GPR_COL_NUM, "device"},
	{"Stream", GPR_COL_NUM, "stream"},
	{"Points", GPR_COL_NUM | GPR_COL_COUNT, "points"},
	{"Mean", GPR_COL_NUM, "mean"},
	{"Std", GPR_COL_NUM, "std"},
	{"Min", GPR_COL_NUM, "min"},
	{"P25", GPR_COL_NUM, "p25"},
	{"P50", GPR_COL_NUM, "p50"},
	{"P75", GPR_COL_NUM, "p75"},
	{"Max", GPR_COL_NUM, "max"},
	{"Time Mean", GPR_COL_NUM, "time_weighted_mean"},
	{"Blocked (ns)", GPR_COL_NUM, "blocked_ns"},
	{"Blocked (%)", GPR_COL_NUM, "blocked_pct"},
};

static void fill_queues(struct gpr_table *t, const struct gpa_model *m,
			const struct gpa_launches *l)
{
	gpr_table_init(t, queue_cols, GP_ARRAY_SIZE(queue_cols));
	for (size_t i = 0; i < l->queues.n; i++) {
		const struct gpa_launch_queue *q = &l->queues.v[i];
		cell_proc(t, m, q->proc, q->dev, q->stream);
		cells_dist(t, &q->len, 6);
		if (q->span_ns) {
			gpr_table_cellf(t, "%.3f", (double)q->weighted_sum / (double)q->span_ns);
		} else {
			gpr_table_cell(t, "");
		}
		cell_u64(t, q->blocked_ns);
		gpr_table_cell_pct(t, q->blocked_ns, q->window_ns);
	}
}

static const struct gpr_col copy_cols[] = {
	{"Kind", 0, "kind"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"Mean (GB/s)", GPR_COL_NUM, "mean_gb_per_s"},
	{"P50 (GB/s)", GPR_COL_NUM, "p50_gb_per_s"},
	{"Max (GB/s)", GPR_COL_NUM, "max_gb_per_s"},
	{"Zero-length", GPR_COL_NUM, "zero_length"},
};

static void fill_copies(struct gpr_table *t, const struct gpa_launches *l)
{
	gpr_table_init(t, copy_cols, GP_ARRAY_SIZE(copy_cols));
	for (size_t i = 0; i < l->copies.n; i++) {
		const struct gpa_launch_copy *c = &l->copies.v[i];
		gpr_table_cell(t, c->kind);
		cell_u64(t, c->gbps.n);
		cell_u64(t, c->bytes);
		if (c->gbps.n) {
			gpr_table_cellf(t, "%.6f", c->gbps.mean);
			gpr_table_cellf(t, "%.6f", c->gbps.p50);
			gpr_table_cellf(t, "%.6f", c->gbps.max);
		} else {
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
			gpr_table_cell(t, "");
		}
		cell_u64(t, c->zero_dur);
	}
}

static const struct gpr_col idle_cols[] = {
	{"Rank", GPR_COL_NUM, "rank"},
	{"PID", GPR_COL_NUM, "pid"},
	{"Device", GPR_COL_NUM, "device"},
	{"Stream", GPR_COL_NUM, "stream"},
	{"Category", 0, "category"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Mean (ns)", GPR_COL_NUM, "mean_ns"},
	{"Std (ns)", GPR_COL_NUM, "std_ns"},
	{"Min (ns)", GPR_COL_NUM, "min_ns"},
	{"P25 (ns)", GPR_COL_NUM, "p25_ns"},
	{"P50 (ns)", GPR_COL_NUM, "p50_ns"},
	{"P75 (ns)", GPR_COL_NUM, "p75_ns"},
	{"Max (ns)", GPR_COL_NUM, "max_ns"},
};

static void fill_idle(struct gpr_table *t, const struct gpa_model *m,
		      const struct gpa_launches *l)
{
	gpr_table_init(t, idle_cols, GP_ARRAY_SIZE(idle_cols));
	for (size_t i = 0; i < l->idle.n; i++) {
		const struct gpa_launch_idle *r = &l->idle.v[i];
		cell_proc(t, m, r->proc, r->dev, r->stream);
		gpr_table_cell(t, gpa_idle_cat_name(r->cat));
		cells_dist(t, &r->gap, 3);
	}
}

static const struct gpr_col annot_cols[] = {
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Total (ns)", GPR_COL_NUM, "total_ns"},
	{"Mean (ns)", GPR_COL_NUM, "mean_ns"},
	{"Min (ns)", GPR_COL_NUM, "min_ns"},
	{"Max (ns)", GPR_COL_NUM, "max_ns"},
	{"Std (ns)", GPR_COL_NUM, "std_ns"},
	{"Name", GPR_COL_LEFT | GPR_COL_ELIDE, "name"},
};

static void fill_annots(struct gpr_table *t, const struct gpa_launches *l)
{
	gpr_table_init(t, annot_cols, GP_ARRAY_SIZE(annot_cols));
	for (size_t i = 0; i < l->annots.n; i++) {
		const struct gpa_launch_annot *a = &l->annots.v[i];
		cell_u64(t, a->dur.n);
		cell_u64(t, a->dur.sum);
		cell_num(t, a->dur.mean);
		cell_num(t, a->dur.min);
		cell_num(t, a->dur.max);
		cell_num(t, a->dur.std);
		gpr_table_cell(t, a->name);
	}
}

int gpr_launches_table(struct gpr_table *t, const struct gpr_display *d, unsigned table,
		       const struct gpa_model *m, const struct gpa_launches *l)
{
	switch (table) {
	case GPR_LAUNCH_SUMMARY:
		fill_summary(t, d, l, false);
		break;
	case GPR_LAUNCH_BRIEF:
		fill_summary(t, d, l, true);
		break;
	case GPR_LAUNCH_NAMES:
		fill_names(t, l);
		break;
	case GPR_LAUNCH_QUEUES:
		fill_queues(t, m, l);
		break;
	case GPR_LAUNCH_COPIES:
		fill_copies(t, l);
		break;
	case GPR_LAUNCH_IDLE:
		fill_idle(t, m, l);
		break;
	case GPR_LAUNCH_ANNOTS:
		fill_annots(t, l);
		break;
	default:
		return -GP_ERR_API;
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

int gpr_launches_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
			unsigned mask, const struct gpa_model *m, const struct gpa_launches *l)
{
	bool first = true;
	int ret = 0;

	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_addf(out, "{\"schema\":\"gpuprof-launches/2\",\"options\":{"
				    "\"runtime_cutoff_ns\":%" PRIu64 ",\"delay_cutoff_ns\":%" PRIu64
				    ",\"kernel_wait_ns\":%" PRIu64 ",\"max_queue\":%" PRIu64
				    ",\"names_total\":%" PRIu64 "}",
			       l->opts.runtime_cutoff_ns, l->opts.delay_cutoff_ns,
			       l->opts.kernel_wait_ns, l->opts.max_queue, l->names_total);
		gp_strbuf_addf(out, ",\"totals\":{\"launches\":%" PRIu64 ",\"short_kernels\":%" PRIu64
				    ",\"cpu_outliers\":%" PRIu64 ",\"delay_outliers\":%" PRIu64
				    ",\"graph_ops\":%" PRIu64 ",\"unlinked\":%" PRIu64
				    ",\"other_api\":%" PRIu64 ",\"dropped\":%" PRIu64 "}",
			       l->cpu.n, l->short_kernels, l->cpu_outliers, l->delay_outliers,
			       l->graph_ops, l->unlinked, l->other_api, l->dropped);
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables) && !ret; i++) {
		struct gpr_table t;
		if (!(mask & tables[i].bit)) {
			continue;
		}
		ret = gpr_launches_table(&t, d, tables[i].bit, m, l);
		if (ret) {
			gpr_table_release(&t);
			break;
		}
		if (fmt == GPR_FORMAT_TEXT && first) {
			gp_strbuf_addf(out, "%s\n\n", tables[i].title);
			ret = gpr_table_render(&t, fmt, d, out);
			gpr_table_release(&t);
		} else if (fmt == GPR_FORMAT_MARKDOWN && first) {
			gp_strbuf_addf(out, "### %s\n\n", tables[i].title);
			ret = gpr_table_render(&t, fmt, d, out);
			gpr_table_release(&t);
		} else {
			ret = gpr_table_section(&t, fmt, d, tables[i].title, tables[i].name, first,
						out);
		}
		first = false;
	}
	if (fmt == GPR_FORMAT_JSON) {
		gp_strbuf_adds(out, "}\n");
	}
	return ret ? ret : (out->failed ? -GP_ERR_NOMEM : 0);
}
