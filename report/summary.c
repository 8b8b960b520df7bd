/* SPDX-License-Identifier: MIT */
/*
 * summary.c - `gpuprof report`: one document from the overview, steps,
 * gaps and kernel summary. Formats only; every number comes computed.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/findings.h"
#include "analyze/gaps.h"
#include "analyze/launches.h"
#include "analyze/ops.h"
#include "analyze/memory.h"
#include "analyze/occupancy.h"
#include "analyze/overview.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "report/memory.h"
#include "report/ops.h"
#include "report/report.h"
#include "report/comm.h"
#include "report/flight.h"
#include "report/gaps.h"
#include "report/launches.h"
#include "report/mfu.h"
#include "report/occupancy.h"
#include "report/summary.h"
#include "report/verdict.h"

/* ---- the tables */

static const struct gpr_col proc_cols[] = {
	{"File", GPR_COL_ELIDE, "file"}, {"PID", GPR_COL_NUM, "pid"},    {"Host", 0, "host"},
	{"Rank", GPR_COL_NUM, "rank"},
	{"Devices", 0, "devices"},
	{"Events", GPR_COL_NUM | GPR_COL_COUNT, "events"},
	{"Lost", GPR_COL_NUM | GPR_COL_COUNT, "lost"}, {"Status", 0, "status"},
};

static void fill_procs(struct gpr_table *t, const struct gpa_model *m)
{
	gpr_table_init(t, proc_cols, GP_ARRAY_SIZE(proc_cols));
	for (size_t i = 0; i < m->procs.n; i++) {
		const struct gpa_proc *p = &m->procs.v[i];
		struct gp_strbuf devs = GP_STRBUF_INIT;
		uint64_t lost = 0;

		for (unsigned c = 0; c < GPT_LOSS__MAX; c++) {
			lost += p->losses[c];
		}
		/* The devices that did work: a device the trace only describes is not listed. */
		for (size_t d = 0; d < m->devs.n; d++) {
			if (m->devs.v[d].proc != i || !m->devs.v[d].gpu_count) {
				continue;
			}
			const char *name = gpa_model_str(m, m->devs.v[d].name);
			gp_strbuf_addf(&devs, "%s%" PRIu32 ": %s", devs.len ? ", " : "", m->devs.v[d].id,
				       *name ? name : "unknown");
		}
		gpr_table_cell(t, p->path);
		gpr_table_cellf(t, "%" PRIu32, p->pid);
		gpr_table_cell(t, gpa_model_str(m, p->host));
		if (p->rank >= 0) {
			gpr_table_cellf(t, "%" PRId32, p->rank);
		} else {
			gpr_table_cell(t, "");
		}
		gpr_table_cell(t, devs.len ? devs.buf : "none");
		gpr_table_cellf(t, "%" PRIu64, p->events);
		gpr_table_cellf(t, "%" PRIu64, lost);
		gpr_table_cell(t, p->corrupt_chunks ? "corrupt chunks skipped"
				  : p->truncated     ? "cut short"
				  : p->has_footer    ? "complete"
						     : "no footer");
		if (devs.failed) {
			t->failed = true;
		}
		gp_strbuf_release(&devs);
	}
}

static const struct gpr_col step_cols[] = {
	{"Step", GPR_COL_NUM, "step"},     {"Name", 0, "name"},  {"Rank", GPR_COL_NUM, "rank"},
	{"Wall (ns)", GPR_COL_NUM, "wall_ns"}, {"GPU busy (ns)", GPR_COL_NUM, "gpu_busy_ns"},
	{"Busy (%)", GPR_COL_NUM, "busy_pct"}, {"GPU ops", GPR_COL_NUM | GPR_COL_COUNT, "gpu_ops"},
};

static void step_row(struct gpr_table *t, const struct gpa_model *m, const struct gpa_step *st)
{
	const struct gpa_proc *p = &m->procs.v[st->proc];
	uint64_t wall = st->end - st->start;

	gpr_table_cellf(t, "%" PRId64, st->number);
	gpr_table_cell(t, st->name ? gpa_model_str(m, st->name) : "whole trace");
	if (p->rank >= 0) {
		gpr_table_cellf(t, "%" PRId32, p->rank);
	} else {
		gpr_table_cell(t, "");
	}
	gpr_table_cellf(t, "%" PRIu64, wall);
	gpr_table_cellf(t, "%" PRIu64, st->gpu_busy);
	gpr_table_cell_pct(t, st->gpu_busy, gpa_step_busy_basis(st));
	gpr_table_cellf(t, "%" PRIu32, st->gpu_ops);
}

static void fill_steps(struct gpr_table *t, const struct gpa_model *m, const struct gpa_steps *s,
		       size_t max)
{
	gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols));
	for (size_t i = 0; i < s->v.n && i < max; i++) {
		step_row(t, m, &s->v.v[i]);
	}
}

/* Text and Markdown summarise a step table longer than this ... */
#define LONG_STEPS 10
/* ... by the distribution and this many slowest steps, the whole table last. */
#define SLOWEST_STEPS 5

static bool steps_long(const struct gpa_steps *s)
{
	return s->v.n > LONG_STEPS;
}

/* The slowest steps by wall time, slowest first; equal walls in step order. */
static void fill_slowest(struct gpr_table *t, const struct gpa_model *m, const struct gpa_steps *s)
{
	size_t pick[SLOWEST_STEPS];
	size_t n = 0;

	gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols));
	while (n < SLOWEST_STEPS && n < s->v.n) {
		size_t best = SIZE_MAX;
		uint64_t best_wall = 0;
		for (size_t i = 0; i < s->v.n; i++) {
			uint64_t wall = s->v.v[i].end - s->v.v[i].start;
			bool taken = false;
			for (size_t k = 0; k < n; k++) {
				taken = taken || pick[k] == i;
			}
			if (!taken && (best == SIZE_MAX || wall > best_wall)) {
				best = i;
				best_wall = wall;
			}
		}
		pick[n++] = best;
		step_row(t, m, &s->v.v[best]);
	}
}

static const struct gpr_col dist_cols[] = {
	{"Quantity", 0, "quantity"},
	{"Median (ns)", GPR_COL_NUM, "median_ns"},
	{"P90 (ns)", GPR_COL_NUM, "p90_ns"},
	{"Min (ns)", GPR_COL_NUM, "min_ns"},
	{"Max (ns)", GPR_COL_NUM, "max_ns"},
	{"Total (ns)", GPR_COL_NUM, "total_ns"},
};

static void dist_row(struct gpr_table *t, const char *name, const struct gpa_dist *d)
{
	gpr_table_cell(t, name);
	gpr_table_cellf(t, "%" PRIu64, d->median);
	gpr_table_cellf(t, "%" PRIu64, d->p90);
	gpr_table_cellf(t, "%" PRIu64, d->min);
	gpr_table_cellf(t, "%" PRIu64, d->max);
	gpr_table_cellf(t, "%" PRIu64, d->sum);
}

static void fill_dist(struct gpr_table *t, const struct gpa_steps *s)
{
	gpr_table_init(t, dist_cols, GP_ARRAY_SIZE(dist_cols));
	if (!s->v.n) {
		return;
	}
	dist_row(t, "step wall time", &s->wall);
	dist_row(t, "step GPU busy", &s->busy);
}

static const struct gpr_col kern_cols[] = {
	{"Time (%)", GPR_COL_NUM, "time_pct"},
	{"Total Time (ns)", GPR_COL_NUM, "total_time_ns"},
	{"Instances", GPR_COL_NUM | GPR_COL_COUNT, "instances"},
	{"Avg (ns)", GPR_COL_NUM, "avg_ns"},
	{"Max (ns)", GPR_COL_NUM, "max_ns"},
	{"Name", GPR_COL_NAME, "name"},
};

static void fill_kernels(struct gpr_table *t, const struct gpa_stats *k, size_t top)
{
	gpr_table_init(t, kern_cols, GP_ARRAY_SIZE(kern_cols));
	for (size_t i = 0; k && i < k->rows.n && i < top; i++) {
		const struct gpa_stats_row *r = &k->rows.v[i];
		gpr_table_cell_pct(t, r->s.total, k->grand_total);
		gpr_table_cellf(t, "%" PRIu64, r->s.total);
		gpr_table_cellf(t, "%" PRIu64, r->s.count);
		/* Exact to 0.1 ns: the average of integers. */
		uint64_t tenths = r->s.count ? (r->s.total * 10 + r->s.count / 2) / r->s.count : 0;
		gpr_table_cellf(t, "%" PRIu64 ".%" PRIu64, tenths / 10, tenths % 10);
		gpr_table_cellf(t, "%" PRIu64, r->s.max);
		gpr_table_cell(t, r->name);
	}
}

static const struct gpr_col mem_cols[] = {
	{"Operation", 0, "operation"},
	{"Count", GPR_COL_NUM | GPR_COL_COUNT, "count"},
	{"Bytes", GPR_COL_NUM | GPR_COL_BYTES, "bytes"},
	{"Time (ns)", GPR_COL_NUM, "time_ns"},
	{"Throughput (GB/s)", GPR_COL_NUM, "throughput_gb_per_s"},
};

static void fill_memory(struct gpr_table *t, const struct gpa_overview *ov)
{
	gpr_table_init(t, mem_cols, GP_ARRAY_SIZE(mem_cols));
	for (size_t i = 0; i < ov->traffic.n; i++) {
		const struct gpa_traffic *tr = &ov->traffic.v[i];
		gpr_table_cell(t, gpa_copy_kind_name(tr->copy_kind));
		gpr_table_cellf(t, "%" PRIu64, tr->count);
		gpr_table_cellf(t, "%" PRIu64, tr->bytes);
		gpr_table_cellf(t, "%" PRIu64, tr->time_ns);
		if (tr->time_ns) {
			/* bytes per ns is GB/s */
			gpr_table_cellf(t, "%.3f", (double)tr->bytes / (double)tr->time_ns);
		} else {
			gpr_table_cell(t, "");
		}
	}
}

/* ---- the document */

enum section_id {
	SEC_PROCS,
	SEC_STEPS,
	SEC_DIST,
	SEC_DEVICES,
	SEC_CAUSES,
	SEC_KERNELS,
	SEC_MEMORY,
	SEC_GAPS,
	SEC_LAUNCHES,
	SEC_OPS,
	SEC_GPU_MEMORY,
	SEC_OCCUPANCY,
	SEC_UTIL,
	SEC_COPY_BW,
	SEC_ROOFLINE,
	SEC_COMM,
	SEC_COMM_EXPOSED,
	SEC_SLOWEST, /* text and Markdown only, for a long step table */
	SEC__COUNT,
};

static const struct {
	const char *title; /* text and Markdown */
	const char *key;   /* JSON */
} sections[SEC__COUNT] = {
	[SEC_PROCS] = {"What was traced", "processes"},
	[SEC_STEPS] = {"Steps", "steps"},
	[SEC_DIST] = {"Step time distribution", "step_distribution"},
	[SEC_DEVICES] = {"GPU busy and idle", "devices"},
	[SEC_CAUSES] = {"GPU idle by cause", "idle_by_cause"},
	[SEC_KERNELS] = {"Top kernels by GPU time", "kernels"},
	[SEC_MEMORY] = {"Memory traffic", "memory"},
	[SEC_GAPS] = {"Longest gaps", "longest_gaps"},
	[SEC_LAUNCHES] = {"Launches", "launches"},
	[SEC_OPS] = {"Top operators by GPU time", "operators"},
	[SEC_GPU_MEMORY] = {"GPU memory", "gpu_memory"},
	[SEC_OCCUPANCY] = {"Theoretical occupancy", "occupancy"},
	[SEC_UTIL] = {"Utilization", "utilization"},
	[SEC_COPY_BW] = {"Copy bandwidth", "copy_bandwidth"},
	[SEC_ROOFLINE] = {"Roofline", "roofline"},
	[SEC_COMM] = {"Communication", "communication"},
	[SEC_COMM_EXPOSED] = {"Exposed communication", "exposed_communication"},
	[SEC_SLOWEST] = {"Slowest steps", NULL},
};

/*
 * Kernel-efficiency sections appear only when their inputs exist; the
 * Communication sections only when the traces hold NCCL operations.
 */
static bool present(enum section_id s, const struct gpr_report_parts *p)
{
	switch (s) {
	case SEC_LAUNCHES:
		return p->launches && p->launches->cpu.n;
	case SEC_OPS:
		return p->ops && p->ops->cpu_ops_shaped && p->ops->by_name.n;
	case SEC_GPU_MEMORY:
		return p->memory && p->memory->pools.n;
	case SEC_OCCUPANCY:
		return p->occ && p->occ->groups.n;
	case SEC_UTIL:
		return p->mfu && (p->mfu->has_flops || p->mfu->has_bytes);
	case SEC_COPY_BW:
		return p->mfu && p->mfu->copies.n;
	case SEC_ROOFLINE:
		return p->mfu && p->mfu->roof.rows.n;
	case SEC_COMM:
	case SEC_COMM_EXPOSED:
		return p->comm && p->comm->ops;
	case SEC_SLOWEST:
		return steps_long(p->steps);
	default:
		return true;
	}
}

static int fill(struct gpr_table *t, enum section_id s, const struct gpr_report_parts *p,
		enum gpr_format fmt)
{
	switch (s) {
	case SEC_PROCS:
		fill_procs(t, p->m);
		return 0;
	case SEC_STEPS:
		fill_steps(t, p->m, p->steps, fmt == GPR_FORMAT_JSON ? SIZE_MAX : p->max_steps);
		return 0;
	case SEC_DIST:
		fill_dist(t, p->steps);
		return 0;
	case SEC_SLOWEST:
		fill_slowest(t, p->m, p->steps);
		return 0;
	case SEC_DEVICES:
		return gpr_gaps_table(t, GPR_GAPS_DEVICES, p->m, p->steps, p->gaps);
	case SEC_CAUSES:
		return gpr_gaps_table(t, GPR_GAPS_CAUSES, p->m, p->steps, p->gaps);
	case SEC_KERNELS:
		fill_kernels(t, p->kernels, p->top_kernels);
		return 0;
	case SEC_MEMORY:
		fill_memory(t, p->ov);
		return 0;
	case SEC_GAPS:
		return gpr_gaps_table(t, GPR_GAPS_LONGEST, p->m, p->steps, p->gaps);
	case SEC_LAUNCHES:
		return gpr_launches_table(t, p->display, GPR_LAUNCH_BRIEF, p->m, p->launches);
	case SEC_OPS:
		return gpr_ops_table(t, GPR_OPS_BRIEF, p->ops);
	case SEC_GPU_MEMORY:
		return gpr_memory_table(t, GPR_MEM_DEVICES, p->m, p->memory);
	case SEC_OCCUPANCY:
		return gpr_occupancy_table(t, GPR_OCC_KERNELS, p->m, p->steps, p->occ,
					   p->top_kernels);
	case SEC_UTIL:
		return gpr_mfu_table(t, GPR_MFU_SUMMARY, p->m, p->steps, p->mfu, p->mfu_dtype);
	case SEC_COPY_BW:
		return gpr_mfu_table(t, GPR_MFU_COPIES, p->m, p->steps, p->mfu, p->mfu_dtype);
	case SEC_ROOFLINE:
		return gpr_mfu_table(t, GPR_MFU_ROOFLINE, p->m, p->steps, p->mfu, p->mfu_dtype);
	case SEC_COMM:
		return gpr_comm_table(t, GPR_COMM_COLLS, p->m, p->steps, p->comm, true);
	case SEC_COMM_EXPOSED:
		return gpr_comm_table(t, GPR_COMM_EXPOSED, p->m, p->steps, p->comm, true);
	default:
		return -GP_ERR_API;
	}
}

static const char *source_name(enum gpa_step_source s)
{
	switch (s) {
	case GPA_STEPS_NVTX:
		return "nvtx";
	case GPA_STEPS_PROFILER:
		return "profiler-range";
	case GPA_STEPS_REPEAT:
		return "repeating-range";
	case GPA_STEPS_LOOP:
		return "training-loop";
	default:
		return "whole-trace";
	}
}

/* One clause per kind of communication evidence, for the headline; false when none. */
static bool comm_line(struct gp_strbuf *o, const struct gpa_model *m, const struct gpa_comm *c)
{
	const char *sep = "Communication: ";

	if (!gpa_comm_present(c)) {
		return false;
	}
	if (c->ops) {
		gp_strbuf_adds(o, sep);
		gpr_fmt_counted(o, c->ops, "NCCL/RCCL operation", "NCCL/RCCL operations");
		sep = ", ";
	}
	if (c->comm_kernels) {
		gp_strbuf_adds(o, sep);
		gpr_fmt_counted(o, c->comm_kernels, "communication kernel", "communication kernels");
		sep = ", ";
	}
	if (c->peer_copies) {
		gp_strbuf_adds(o, sep);
		gpr_fmt_counted(o, c->peer_copies, "peer copy", "peer copies");
		sep = ", ";
	}
	if (c->host_colls) {
		gp_strbuf_adds(o, sep);
		gpr_fmt_counted(o, c->host_colls, "collective call", "collective calls");
		gp_strbuf_addf(o, " recorded on the host ('%s'%s)", gpa_model_str(m, c->host_name),
			       c->host_colls == 1 ? "" : ", ...");
	}
	if (!c->comm_kernels && !c->peer_copies) {
		gp_strbuf_adds(o, "; no GPU communication time");
	}
	gp_strbuf_adds(o, ".\n");
	return true;
}

/* Whether a material finding is about idle time (idle by cause, launch-bound, profiler). */
static bool idle_material(const struct gpa_findings *fs)
{
	for (size_t i = 0; fs && i < fs->v.n; i++) {
		uint8_t c = fs->v.v[i].cat;
		if (c == GPA_FIND_IDLE || c == GPA_FIND_LAUNCH || c == GPA_FIND_PROFILER) {
			return true;
		}
	}
	return !fs;
}

/* The idle clause: the main cause when idle is material, else plainly nothing material. */
static void idle_clause(struct gp_strbuf *o, const struct gpr_report_parts *p)
{
	const struct gpa_gaps *g = p->gaps;
	const struct gpa_findings *fs = p->findings;
	unsigned top = 0;

	const struct gpa_bound_verdict *v = p->verdict;
	gp_strbuf_adds(o, "GPU busy ");
	if (v && !v->whole && v->busy_basis_ns) {
		/* per step, as the step table: a step's host time before its first GPU op counts */
		gpr_fmt_pct(o, v->busy_ns, v->busy_basis_ns);
		gp_strbuf_adds(o, "% of step time (");
		gpr_fmt_pct(o, g->all.busy, g->all.window);
		gp_strbuf_adds(o, "% of the GPU's own window); idle ");
	} else {
		gpr_fmt_pct(o, g->all.busy, g->all.window);
		gp_strbuf_adds(o, "% of its window; idle ");
	}
	gpr_fmt_ns(o, p->display, g->all.idle);
	if (!g->all.idle) {
		gp_strbuf_adds(o, ".\n");
		return;
	}
	if (fs && fs->capture_idle_ns) {
		gp_strbuf_adds(o, ", mostly while the host recorded a graph (stream capture, ");
		gpr_fmt_pct(o, fs->capture_idle_ns, g->all.idle);
		gp_strbuf_adds(o, "% of idle): set-up, not run time.\n");
		return;
	}
	if (!idle_material(fs)) {
		gp_strbuf_adds(o, " (");
		gpr_fmt_pct(o, g->all.idle, g->all.window);
		gp_strbuf_adds(o, "% of GPU time): idle is not material.\n");
		return;
	}
	for (unsigned c = 1; c < GPA_GAP__COUNT; c++) {
		if (g->all.cause_ns[c] > g->all.cause_ns[top]) {
			top = c;
		}
	}
	if (g->all.cause_ns[top]) {
		gp_strbuf_addf(o, ", mostly %s (", gpr_gap_cause_label(top));
		gpr_fmt_pct(o, g->all.cause_ns[top], g->all.idle);
		gp_strbuf_adds(o, "% of idle)");
		if (top == GPA_GAP_DATA && g->data_conflict) {
			gp_strbuf_adds(o, ", but a GPU was busy ");
			gpr_fmt_pct(o, g->data_gpu_busy_ns, g->data_range_ns);
			gp_strbuf_adds(o, "% of the data-loading time: low confidence");
		}
	}
	gp_strbuf_adds(o, ".\n");
}

/* Before the idle-by-cause table when idle is not a bottleneck: what the findings concluded. */
static void idle_note(struct gp_strbuf *o, const struct gpr_report_parts *p, bool md)
{
	const struct gpa_gaps *g = p->gaps;
	const struct gpa_findings *fs = p->findings;

	if (!g->all.idle || idle_material(fs)) {
		return;
	}
	size_t from = o->len;
	gp_strbuf_adds(o, md ? "" : "  ");
	if (fs->capture_idle_ns) {
		gp_strbuf_adds(o, "Nothing material: ");
		gpr_fmt_pct(o, fs->capture_idle_ns, g->all.idle);
		gp_strbuf_adds(o, "% of the idle time lies inside stream captures, where launches are "
				  "recorded into a graph and run nothing; the replays run the work.");
	} else {
		gp_strbuf_adds(o, "Nothing material: idle is ");
		gpr_fmt_pct(o, g->all.idle, g->all.window);
		gp_strbuf_adds(o, "% of GPU time and no cause of it reaches the ");
		gpr_fmt_pct(o, fs->threshold_bp, 10000);
		gp_strbuf_adds(o, "% threshold on the critical path; the causes are shown for detail.");
	}
	if (!md) {
		gpr_text_wrap(o, p->display, from, 2);
	}
	gp_strbuf_adds(o, "\n\n");
}

static void headline(struct gp_strbuf *o, const struct gpr_report_parts *p, bool md)
{
	const struct gpa_overview *ov = p->ov;
	const struct gpa_gaps *g = p->gaps;

	gp_strbuf_adds(o, md ? "# gpuprof report\n\n" : "gpuprof report\n\n");
	size_t start = o->len;
	uint32_t ndev = gpa_model_work_devices(p->m, NULL);
	gp_strbuf_addf(o, "%zu process%s, %" PRIu32 " device%s, ", p->m->procs.n,
		       p->m->procs.n == 1 ? "" : "es", ndev, ndev == 1 ? "" : "s");
	gpr_fmt_count(o, ov->events);
	gp_strbuf_adds(o, ov->events == 1 ? " event over " : " events over ");
	gpr_fmt_ns(o, p->display, ov->last_ns - ov->first_ns);
	gp_strbuf_adds(o, "; ");
	gpr_fmt_count(o, ov->kernels);
	gp_strbuf_adds(o, ov->kernels == 1 ? " kernel, " : " kernels, ");
	gpr_fmt_count(o, ov->copies);
	gp_strbuf_adds(o, ov->copies == 1 ? " copy, " : " copies, ");
	gpr_fmt_count(o, ov->sets);
	gp_strbuf_adds(o, ov->sets == 1 ? " memset.\n" : " memsets.\n");
	if (p->verdict) {
		gpr_verdict_sentence(o, p->display, p->verdict, false);
		gp_strbuf_addch(o, '\n');
	}
	if (g->all.window) {
		idle_clause(o, p);
	}
	comm_line(o, p->m, p->comm);
	if (p->steps->source == GPA_STEPS_WHOLE) {
		size_t from = o->len;
		gp_strbuf_adds(o, "No steps were found (no ProfilerStep#N, no training-loop annotations, "
				  "no annotation that repeats and holds most GPU work): the whole "
				  "trace is analyzed as one; "
				  "name the step ranges with --step REGEX.");
		if (!md) {
			gpr_text_wrap(o, p->display, from, 0);
		}
		gp_strbuf_addch(o, '\n');
	} else if (p->steps->v.n) {
		gp_strbuf_addf(o, "%zu step%s (%s", p->steps->v.n, p->steps->v.n == 1 ? "" : "s",
			       source_name(p->steps->source));
		if (p->steps->source == GPA_STEPS_REPEAT || p->steps->source == GPA_STEPS_LOOP) {
			gp_strbuf_addf(o, " '%s'", gpa_model_str(p->m, p->steps->v.v[0].name));
		}
		if (p->steps->pattern) {
			gp_strbuf_addf(o, " /%s/", p->steps->pattern);
		}
		gp_strbuf_adds(o, "): median wall ");
		gpr_fmt_ns(o, p->display, p->steps->wall.median);
		gp_strbuf_adds(o, ", p90 ");
		gpr_fmt_ns(o, p->display, p->steps->wall.p90);
		gp_strbuf_adds(o, ".\n");
	}
	if (!md) {
		gpr_text_wrap_lines(o, p->display, start, 2); /* each line to the display's width */
	}
	gp_strbuf_addch(o, '\n');
}

/*
 * The order a person reads: what to do (findings), where the GPU waits, what
 * it runs, then the steps; a long step table gives its distribution and
 * slowest steps here and comes whole after everything else.
 */
static size_t text_order(const struct gpr_report_parts *p, enum section_id *out)
{
	static const enum section_id head[] = {SEC_CAUSES, SEC_KERNELS, SEC_OPS};
	static const enum section_id tail[] = {
		SEC_PROCS,    SEC_DEVICES, SEC_MEMORY,  SEC_GAPS, SEC_LAUNCHES, SEC_GPU_MEMORY,
		SEC_OCCUPANCY,
		SEC_UTIL,     SEC_COPY_BW, SEC_ROOFLINE, SEC_COMM, SEC_COMM_EXPOSED,
	};
	bool lng = steps_long(p->steps);
	size_t n = 0;

	for (size_t i = 0; i < GP_ARRAY_SIZE(head); i++) {
		out[n++] = head[i];
	}
	if (lng) {
		out[n++] = SEC_DIST;
		out[n++] = SEC_SLOWEST;
	} else {
		out[n++] = SEC_STEPS;
		out[n++] = SEC_DIST;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(tail); i++) {
		out[n++] = tail[i];
	}
	if (lng) {
		out[n++] = SEC_STEPS;
	}
	return n;
}

static void text_section_note(struct gp_strbuf *o, enum section_id s,
			      const struct gpr_report_parts *p, bool md)
{
	if (s == SEC_STEPS && p->steps->v.n > p->max_steps) {
		gp_strbuf_addf(o, "%s(%zu more steps; JSON lists all)\n", md ? "\n" : "",
			       p->steps->v.n - p->max_steps);
	}
	if (s == SEC_SLOWEST) {
		gp_strbuf_addf(o, "%s(the %d slowest of %zu steps; the table \"%s\" at the end lists "
			       "them in order)\n", md ? "\n" : "", SLOWEST_STEPS, p->steps->v.n,
			       sections[SEC_STEPS].title);
	}
}

static int render_text_md(struct gp_strbuf *o, enum gpr_format fmt,
			  const struct gpr_report_parts *p)
{
	bool md = fmt == GPR_FORMAT_MARKDOWN;
	enum section_id order[SEC__COUNT];
	size_t n = text_order(p, order);
	int ret = 0;

	headline(o, p, md);
	ret = gpr_findings_text(o, md, p);
	for (size_t i = 0; i < n && !ret; i++) {
		enum section_id s = order[i];
		struct gpr_table t;
		if (!present(s, p)) {
			continue;
		}
		ret = fill(&t, s, p, fmt);
		if (!ret && t.failed) {
			ret = -GP_ERR_NOMEM; /* rows missing: never "none" for them */
		}
		if (!ret) {
			if (md) {
				gp_strbuf_addf(o, "## %s\n\n", sections[s].title);
			} else {
				gp_strbuf_addf(o, "%s\n\n", sections[s].title);
			}
			if (s == SEC_CAUSES) {
				idle_note(o, p, md);
			}
			if (!gpr_table_rows(&t)) {
				gp_strbuf_adds(o, md ? "_none_\n\n" : "  none\n\n");
			} else {
				ret = gpr_table_render(&t, fmt, p->display, o);
				text_section_note(o, s, p, md);
				gp_strbuf_addch(o, '\n');
			}
		}
		gpr_table_release(&t);
	}
	char est[GPR_ESTIMATES_MAX][256];
	size_t nest = gpr_report_estimates(p, est);

	gp_strbuf_addf(o, md ? "## Warnings\n\n" : "Warnings\n\n");
	if (!p->ov->warnings.n && !nest) {
		gp_strbuf_adds(o, md ? "_none_\n" : "  none\n");
	}
	for (size_t i = 0; i < p->ov->warnings.n + nest; i++) {
		size_t from = o->len;
		const char *w = i < p->ov->warnings.n ? p->ov->warnings.v[i]
						      : est[i - p->ov->warnings.n];

		gp_strbuf_addf(o, md ? "- %s" : "  - %s", w);
		if (!md) {
			gpr_text_wrap(o, p->display, from, 4);
		}
		gp_strbuf_addch(o, '\n');
	}
	return ret ? ret : (o->failed ? -GP_ERR_NOMEM : 0);
}

static int render_json(struct gp_strbuf *o, const struct gpr_report_parts *p)
{
	const struct gpa_overview *ov = p->ov;
	int ret = 0;

	gp_strbuf_adds(o, "{\"schema\":\"gpuprof-report/2\"");
	gpr_flight_json(o, p->flight, p->flight_cmp, p->m, p->steps);
	ret = gpr_findings_json(o, p);
	if (p->verdict) {
		gpr_verdict_json(o, p->verdict);
	}
	gp_strbuf_addf(o, ",\"traced\":{\"first_ns\":%" PRIu64
			  ",\"last_ns\":%" PRIu64 ",\"span_ns\":%" PRIu64 ",\"events\":%" PRIu64
			  ",\"kernels\":%" PRIu64 ",\"copies\":%" PRIu64 ",\"memsets\":%" PRIu64
			  ",\"api_calls\":%" PRIu64 ",\"nvtx_ranges\":%" PRIu64
			  ",\"kernel_time_ns\":%" PRIu64 ",\"aligned\":%s},",
		       ov->first_ns, ov->last_ns, ov->last_ns - ov->first_ns, ov->events, ov->kernels,
		       ov->copies, ov->sets, ov->api_calls, ov->nvtx_ranges, ov->kernel_time_ns,
		       p->m->aligned ? "true" : "false");
	gp_strbuf_addf(o, "\"step_source\":\"%s\",\"step_pattern\":",
		       source_name(p->steps->source));
	if (p->steps->pattern) {
		gp_strbuf_add_json_str(o, p->steps->pattern, strlen(p->steps->pattern));
	} else {
		gp_strbuf_adds(o, "null");
	}
	gp_strbuf_addf(o, ",\"gpu\":{\"window_ns\":%" PRIu64 ",\"busy_ns\":%" PRIu64
			  ",\"idle_ns\":%" PRIu64 ",\"gaps\":%" PRIu64 ",\"idle_material\":%s"
			  ",\"capture_idle_ns\":%" PRIu64 "}",
		       p->gaps->all.window, p->gaps->all.busy, p->gaps->all.idle, p->gaps->all.gaps,
		       idle_material(p->findings) && p->gaps->all.idle ? "true" : "false",
		       p->findings ? p->findings->capture_idle_ns : 0);
	const struct gpa_comm *c = p->comm;
	gp_strbuf_addf(o, ",\"communication_summary\":{\"present\":%s,\"nccl_ops\":%" PRIu64
			  ",\"kernels\":%" PRIu64 ",\"peer_copies\":%" PRIu64
			  ",\"host_collectives\":%" PRIu64 "}",
		       gpa_comm_present(c) ? "true" : "false", c ? c->ops : 0,
		       c ? c->comm_kernels : 0, c ? c->peer_copies : 0, c ? c->host_colls : 0);
	for (unsigned s = 0; s < SEC__COUNT && !ret; s++) {
		struct gpr_table t;
		if (s == SEC_SLOWEST || !present((enum section_id)s, p)) {
			continue;
		}
		ret = fill(&t, (enum section_id)s, p, GPR_FORMAT_JSON);
		if (!ret) {
			gp_strbuf_addf(o, ",\"%s\":", sections[s].key);
			ret = gpr_table_render(&t, GPR_FORMAT_JSON, p->display, o);
		}
		gpr_table_release(&t);
	}
	gp_strbuf_addch(o, ',');
	gpr_sanity_json(o, &ov->sanity);
	char est[GPR_ESTIMATES_MAX][256];
	size_t nest = gpr_report_estimates(p, est);

	gp_strbuf_adds(o, ",\"warnings\":[");
	for (size_t i = 0; i < ov->warnings.n + nest; i++) {
		const char *w = i < ov->warnings.n ? ov->warnings.v[i] : est[i - ov->warnings.n];

		if (i) {
			gp_strbuf_addch(o, ',');
		}
		gp_strbuf_add_json_str(o, w, strlen(w));
	}
	gp_strbuf_adds(o, "]}\n");
	return ret ? ret : (o->failed ? -GP_ERR_NOMEM : 0);
}

int gpr_report_each_table(const struct gpr_report_parts *p, enum gpr_format fmt,
			  int (*fn)(void *data, const char *title, const char *key,
				    const struct gpr_table *t),
			  void *data)
{
	int ret = 0;

	for (unsigned s = 0; s < SEC__COUNT && !ret; s++) {
		struct gpr_table t;
		if (s == SEC_SLOWEST || !present((enum section_id)s, p)) {
			continue;
		}
		ret = fill(&t, (enum section_id)s, p, fmt);
		if (!ret) {
			ret = t.failed ? -GP_ERR_NOMEM : fn(data, sections[s].title, sections[s].key, &t);
		}
		gpr_table_release(&t);
	}
	return ret;
}

void gpr_report_headline(struct gp_strbuf *out, const struct gpr_report_parts *p)
{
	headline(out, p, false);
}

int gpr_report_render(struct gp_strbuf *out, enum gpr_format fmt,
		      const struct gpr_report_parts *p)
{
	switch (fmt) {
	case GPR_FORMAT_TEXT:
	case GPR_FORMAT_MARKDOWN:
		if (p->flight && gpr_flight_render(out, fmt, p->display, p->flight, p->flight_cmp,
						   p->m, p->steps)) {
			return -GP_ERR_NOMEM;
		}
		return render_text_md(out, fmt, p);
	case GPR_FORMAT_JSON:
		return render_json(out, p);
	default:
		return -GP_ERR_API;
	}
}
