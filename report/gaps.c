/* SPDX-License-Identifier: MIT */
/*
 * gaps.c - renders an idle-gap analysis (analyze/gaps.c): per-device
 * summary, idle by cause, gap-length histogram, the longest gaps with their
 * evidence, per-step stretches. Formats only: every number comes from the
 * result, times as exact integer nanoseconds.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"
#include "report/report.h"
#include "report/gaps.h"

static const char *const cause_labels[GPA_GAP__COUNT] = {
	[GPA_GAP_PROFILER] = "profiler overhead",
	[GPA_GAP_SYNC] = "host synchronization",
	[GPA_GAP_DATA] = "data loading",
	[GPA_GAP_MEMORY] = "memory management",
	[GPA_GAP_JIT] = "JIT / module load",
	[GPA_GAP_LAUNCH] = "launch overhead",
	[GPA_GAP_CPU] = "CPU-bound",
	[GPA_GAP_COMM] = "communication wait",
	[GPA_GAP_DEPENDENCY] = "stream/event dependency",
	[GPA_GAP_STRAGGLER] = "straggler",
	[GPA_GAP_UNKNOWN] = "unknown",
};

static const char *const bucket_labels[GPA_GAP_BUCKETS] = {
	"<1 \xc2\xb5s", "1-10 \xc2\xb5s", "10-100 \xc2\xb5s", "100 \xc2\xb5s-1 ms", "1-10 ms", "10-100 ms",
	">=100 ms",
};

static const struct {
	const char *name;
	unsigned bit;
	const char *title;
} tables[] = {
	{"devices", GPR_GAPS_DEVICES, "Devices"},
	{"causes", GPR_GAPS_CAUSES, "Idle by cause"},
	{"histogram", GPR_GAPS_HISTOGRAM, "Gap lengths"},
	{"gaps", GPR_GAPS_LONGEST, "Longest gaps"},
	{"steps", GPR_GAPS_STEPS, "Steps"},
};

int gpr_gaps_table_parse(const char *name)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables); i++) {
		if (!strcmp(name, tables[i].name)) {
			return (int)tables[i].bit;
		}
	}
	return -1;
}

const char *gpr_gap_cause_label(unsigned cause)
{
	return cause < GPA_GAP__COUNT ? cause_labels[cause] : "unknown";
}

/* ------------------------------------------------------------ pieces */

static void cell_u64(struct gpr_table *t, uint64_t v)
{
	gpr_table_cellf(t, "%" PRIu64, v);
}

void gpr_gap_device_label(struct gp_strbuf *sb, const struct gpa_model *m, uint16_t dev)
{
	const struct gpa_dev *d = &m->devs.v[dev];
	const struct gpa_proc *p = &m->procs.v[d->proc];

	if (m->procs.n > 1) {
		if (p->rank >= 0) {
			gp_strbuf_addf(sb, "%" PRId32 ":", p->rank);
		} else {
			gp_strbuf_addf(sb, "p%" PRIu32 ":", p->pid);
		}
	}
	gp_strbuf_addf(sb, "%" PRIu32, d->id);
}

static void cell_dev(struct gpr_table *t, const struct gpa_model *m, uint16_t dev)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_gap_device_label(&sb, m, dev);
	t->failed |= sb.failed;
	gpr_table_cell(t, sb.buf);
	gp_strbuf_release(&sb);
}

static void add_thread(struct gp_strbuf *sb, const struct gpa_model *m, uint32_t th)
{
	const struct gpa_thread *t = &m->threads.v[th];

	gp_strbuf_addf(sb, "thread %" PRIu32, t->tid);
	if (t->name) {
		gp_strbuf_addf(sb, " (%s)", gpa_model_str(m, t->name));
	}
}

/* A kernel's name, short: demangled when known, no "void ", no arguments, at most 60 chars. */
static void add_kernel_name(struct gp_strbuf *sb, const struct gpa_model *m, uint32_t kern)
{
	const struct gpa_func *f = &m->funcs.v[gpa_kern_func(m, kern)];
	const char *s = gpa_model_str(m, f->demangled ? f->demangled : f->name);
	size_t n;

	if (!strncmp(s, "void ", 5)) {
		s += 5;
	}
	n = strcspn(s, "(");
	if (!n) {
		n = strlen(s);
	}
	if (n > 60) {
		gp_strbuf_add(sb, s, 57);
		gp_strbuf_adds(sb, "...");
	} else {
		gp_strbuf_add(sb, s, n);
	}
}

static void add_op_name(struct gp_strbuf *sb, const struct gpa_model *m, uint32_t op)
{
	switch (gpa_gpu_kind(m, op)) {
	case GPA_GPU_KERNEL:
		add_kernel_name(sb, m, gpa_gpu_row(m, op));
		break;
	case GPA_GPU_MEMCPY:
		gp_strbuf_adds(sb, "a memcpy");
		break;
	default:
		gp_strbuf_adds(sb, "a memset");
		break;
	}
}

static const char *overhead_name(uint32_t kind)
{
	switch (kind) {
	case 1:
		return "driver compiler";
	case 1 << 16:
		return "CUPTI buffer flush";
	case 2 << 16:
		return "CUPTI instrumentation";
	case 3 << 16:
		return "CUPTI resource";
	case 4 << 16:
		return "runtime-triggered module loading";
	case 5 << 16:
		return "lazy function loading";
	case 6 << 16:
		return "command buffer full";
	case 7 << 16:
		return "activity buffer request";
	case 8 << 16:
		return "UVM activity init";
	default:
		return "other";
	}
}

static void add_call(struct gp_strbuf *sb, const struct gpa_model *m, uint32_t api)
{
	gp_strbuf_addf(sb, "%s on ", gpa_model_str(m, gpa_api_name(m, api)));
	add_thread(sb, m, gpa_api_thread(m, api));
}

void gpr_gap_evidence(struct gp_strbuf *sb, const struct gpa_model *m, const struct gpa_gap *g)
{
	switch (g->cause) {
	case GPA_GAP_PROFILER:
	case GPA_GAP_JIT:
		if (g->ev_ovh != GPA_NONE) {
			const char *who = g->cause == GPA_GAP_JIT ? "driver" : "CUPTI overhead";
			gp_strbuf_addf(sb, "%s: %s", who,
				       overhead_name(gpa_ovh_kind(m, g->ev_ovh)));
		} else if (g->ev_api != GPA_NONE) {
			add_call(sb, m, g->ev_api);
		}
		break;
	case GPA_GAP_SYNC:
	case GPA_GAP_MEMORY:
		add_call(sb, m, g->ev_api);
		break;
	case GPA_GAP_LAUNCH:
		if (g->queued) {
			gp_strbuf_adds(sb, "queued by ");
			add_call(sb, m, g->ev_api);
			gp_strbuf_adds(sb, "; device launch latency");
		} else {
			add_call(sb, m, g->ev_api);
		}
		break;
	case GPA_GAP_DATA:
		gp_strbuf_addf(sb, "NVTX '%s' on ", gpa_model_str(m, gpa_nvtx_name(m, g->ev_nvtx)));
		add_thread(sb, m, gpa_nvtx_thread(m, g->ev_nvtx));
		break;
	case GPA_GAP_CPU:
		add_thread(sb, m, g->thread);
		gp_strbuf_adds(sb, " outside CUDA calls");
		if (g->ev_nvtx != GPA_NONE) {
			gp_strbuf_addf(sb, " in NVTX '%s'",
				       gpa_model_str(m, gpa_nvtx_name(m, g->ev_nvtx)));
		}
		break;
	case GPA_GAP_COMM:
		gp_strbuf_adds(sb, "waited on ");
		add_kernel_name(sb, m, g->ev_kernel);
		gp_strbuf_adds(sb, " (device ");
		gpr_gap_device_label(sb, m, gpa_kern_dev(m, g->ev_kernel));
		gp_strbuf_addf(sb, ", stream %" PRIu32 ")", gpa_kern_stream(m, g->ev_kernel));
		break;
	case GPA_GAP_DEPENDENCY:
		gp_strbuf_addf(sb, "stream %" PRIu32 " ", gpa_gpu_stream(m, g->op));
		if (g->ev_sync != GPA_NONE) {
			uint32_t a = gpa_sync_api(m, g->ev_sync);
			gp_strbuf_adds(sb, "waited on an event");
			if (a != GPA_NONE) {
				gp_strbuf_adds(sb, " (");
				add_call(sb, m, a);
				gp_strbuf_addch(sb, ')');
			}
		} else {
			gp_strbuf_adds(sb, "blocked after ");
			add_call(sb, m, g->ev_api);
			gp_strbuf_adds(sb, " returned");
		}
		break;
	case GPA_GAP_UNKNOWN:
	default:
		gp_strbuf_adds(sb, "no launch call recorded for ");
		add_op_name(sb, m, g->op);
		break;
	}
	if (g->drain != GPA_NONE) {
		gp_strbuf_addf(sb, "; after %s", gpa_model_str(m, gpa_api_name(m, g->drain)));
	}
}

static void cell_step(struct gpr_table *t, const struct gpa_model *m, const struct gpa_steps *s,
		      uint32_t step)
{
	if (!s || step == GPA_NONE || step >= s->v.n) {
		gpr_table_cell(t, "-");
	} else if (s->v.v[step].name) {
		gpr_table_cell(t, gpa_model_str(m, s->v.v[step].name));
	} else {
		gpr_table_cellf(t, "#%" PRId64, s->v.v[step].number);
	}
}

/* ------------------------------------------------------------ tables */

static const struct gpr_col dev_cols[] = {
	{"Device", 0, "device"},
	{"Name", 0, "name"},
	{"Window (ns)", GPR_COL_NUM, "window_ns"},
	{"Busy (ns)", GPR_COL_NUM, "busy_ns"},
	{"Idle (ns)", GPR_COL_NUM, "idle_ns"},
	{"Busy (%)", GPR_COL_NUM, "busy_pct"},
	{"GPU ops", GPR_COL_NUM | GPR_COL_COUNT, "gpu_ops"},
	{"Gaps", GPR_COL_NUM | GPR_COL_COUNT, "gaps"},
	{"Listed gaps", GPR_COL_NUM | GPR_COL_COUNT, "listed_gaps"},
	{"Listed idle (ns)", GPR_COL_NUM, "listed_idle_ns"},
	{"Longest (ns)", GPR_COL_NUM, "longest_ns"},
};

static const struct gpr_col cause_cols[] = {
	{"Cause", 0, "cause"},
	{"Description", 0, "description"},
	{"Idle (ns)", GPR_COL_NUM, "idle_ns"},
	{"Idle share (%)", GPR_COL_NUM, "idle_share_pct"},
	{"Window share (%)", GPR_COL_NUM, "window_share_pct"},
	{"Gaps", GPR_COL_NUM | GPR_COL_COUNT, "gaps"},
};

static const struct gpr_col hist_cols[] = {
	{"Gap length", 0, "gap_length"},
	{"Gaps", GPR_COL_NUM | GPR_COL_COUNT, "gaps"},
	{"Idle (ns)", GPR_COL_NUM, "idle_ns"},
	{"Idle share (%)", GPR_COL_NUM, "idle_share_pct"},
};

static const struct gpr_col gap_cols[] = {
	{"Device", 0, "device"},
	{"Start (ns)", GPR_COL_NUM, "start_ns"},
	{"Length (ns)", GPR_COL_NUM, "length_ns"},
	{"Cause", 0, "cause"},
	{"Cause time (ns)", GPR_COL_NUM, "cause_time_ns"},
	{"Evidence", GPR_COL_ELIDE, "evidence"},
	{"Step", 0, "step"},
	{"NVTX context", GPR_COL_ELIDE, "nvtx_context"},
};

static const struct gpr_col step_cols[] = {
	{"Device", 0, "device"},
	{"Step", 0, "step"},
	{"Start (ns)", GPR_COL_NUM, "start_ns"},
	{"Window (ns)", GPR_COL_NUM, "window_ns"},
	{"Busy (ns)", GPR_COL_NUM, "busy_ns"},
	{"Idle (ns)", GPR_COL_NUM, "idle_ns"},
	{"Busy (%)", GPR_COL_NUM, "busy_pct"},
	{"Gaps", GPR_COL_NUM | GPR_COL_COUNT, "gaps"},
	{"Main cause", 0, "main_cause"},
	{"Main cause idle (ns)", GPR_COL_NUM, "main_cause_idle_ns"},
};

/* The cause with the most idle time (the lowest on ties); -1 without idle time. */
static int main_cause(const struct gpa_gap_totals *t)
{
	int best = -1;

	for (int k = 0; k < GPA_GAP__COUNT; k++) {
		if (t->cause_n[k] && (best < 0 || t->cause_ns[k] > t->cause_ns[best])) {
			best = k;
		}
	}
	return best;
}

static void fill_devices(struct gpr_table *t, const struct gpa_model *m, const struct gpa_gaps *g)
{
	gpr_table_init(t, dev_cols, GP_ARRAY_SIZE(dev_cols));
	for (size_t i = 0; i < g->devs.n; i++) {
		const struct gpa_gaps_dev *d = &g->devs.v[i];
		cell_dev(t, m, d->dev);
		gpr_table_cell(t, gpa_model_str(m, m->devs.v[d->dev].name));
		cell_u64(t, d->t.window);
		cell_u64(t, d->t.busy);
		cell_u64(t, d->t.idle);
		gpr_table_cell_pct(t, d->t.busy, d->t.window);
		cell_u64(t, d->t.ops);
		cell_u64(t, d->t.gaps);
		cell_u64(t, d->t.listed);
		cell_u64(t, d->t.listed_ns);
		cell_u64(t, d->t.longest);
	}
}

static void fill_causes(struct gpr_table *t, const struct gpa_gaps *g)
{
	const struct gpa_gap_totals *a = &g->all;
	bool done[GPA_GAP__COUNT] = {false};

	gpr_table_init(t, cause_cols, GP_ARRAY_SIZE(cause_cols));
	/* Causes with gaps, by idle time (longest first), ties in cause order. */
	for (;;) {
		int best = -1;
		for (int k = 0; k < GPA_GAP__COUNT; k++) {
			if (!done[k] && a->cause_n[k] &&
			    (best < 0 || a->cause_ns[k] > a->cause_ns[best])) {
				best = k;
			}
		}
		if (best < 0) {
			break;
		}
		done[best] = true;
		gpr_table_cell(t, gpa_gap_cause_name((unsigned)best));
		gpr_table_cell(t, cause_labels[best]);
		cell_u64(t, a->cause_ns[best]);
		gpr_table_cell_pct(t, a->cause_ns[best], a->idle);
		gpr_table_cell_pct(t, a->cause_ns[best], a->window);
		cell_u64(t, a->cause_n[best]);
	}
}

static void fill_hist(struct gpr_table *t, const struct gpa_gaps *g)
{
	gpr_table_init(t, hist_cols, GP_ARRAY_SIZE(hist_cols));
	for (int b = 0; b < GPA_GAP_BUCKETS; b++) {
		gpr_table_cell(t, bucket_labels[b]);
		cell_u64(t, g->all.hist_n[b]);
		cell_u64(t, g->all.hist_ns[b]);
		gpr_table_cell_pct(t, g->all.hist_ns[b], g->all.idle);
	}
}

static void fill_longest(struct gpr_table *t, const struct gpa_model *m,
			 const struct gpa_steps *s, const struct gpa_gaps *g)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;

	gpr_table_init(t, gap_cols, GP_ARRAY_SIZE(gap_cols));
	for (size_t i = 0; i < g->top.n; i++) {
		const struct gpa_gap *gp = &g->top.v[i];
		cell_dev(t, m, gp->dev);
		cell_u64(t, gp->start - m->t0);
		cell_u64(t, gp->end - gp->start);
		gpr_table_cell(t, gpa_gap_cause_name(gp->cause));
		cell_u64(t, gp->cause_ns);
		gp_strbuf_reset(&sb);
		gpr_gap_evidence(&sb, m, gp);
		t->failed |= sb.failed;
		gpr_table_cell(t, sb.buf);
		cell_step(t, m, s, gp->step);
		gpr_table_cell(t, gp->context != GPA_NONE
					  ? gpa_model_str(m, gpa_nvtx_name(m, gp->context))
					  : "-");
	}
	gp_strbuf_release(&sb);
}

static void fill_steps(struct gpr_table *t, const struct gpa_model *m, const struct gpa_steps *s,
		       const struct gpa_gaps *g)
{
	gpr_table_init(t, step_cols, GP_ARRAY_SIZE(step_cols));
	for (size_t i = 0; i < g->steps.n; i++) {
		const struct gpa_gaps_step *st = &g->steps.v[i];
		int mc = main_cause(&st->t);
		cell_dev(t, m, st->dev);
		cell_step(t, m, s, st->step);
		cell_u64(t, st->start - m->t0);
		cell_u64(t, st->t.window);
		cell_u64(t, st->t.busy);
		cell_u64(t, st->t.idle);
		gpr_table_cell_pct(t, st->t.busy, st->t.window);
		cell_u64(t, st->t.gaps);
		gpr_table_cell(t, mc < 0 ? "-" : gpa_gap_cause_name((unsigned)mc));
		cell_u64(t, mc < 0 ? 0 : st->t.cause_ns[mc]);
	}
}

int gpr_gaps_table(struct gpr_table *t, unsigned table, const struct gpa_model *m,
		   const struct gpa_steps *steps, const struct gpa_gaps *g)
{
	switch (table) {
	case GPR_GAPS_DEVICES:
		fill_devices(t, m, g);
		break;
	case GPR_GAPS_CAUSES:
		fill_causes(t, g);
		break;
	case GPR_GAPS_HISTOGRAM:
		fill_hist(t, g);
		break;
	case GPR_GAPS_LONGEST:
		fill_longest(t, m, steps, g);
		break;
	case GPR_GAPS_STEPS:
		fill_steps(t, m, steps, g);
		break;
	default:
		gpr_table_init(t, NULL, 0);
		return -GP_ERR_API;
	}
	return t->failed ? -GP_ERR_NOMEM : 0;
}

/* ------------------------------------------------------------ document */

static void add_dur(struct gp_strbuf *sb, const struct gpr_display *d, uint64_t ns)
{
	gpr_fmt_ns(sb, d, ns);
}

/* The summary line of text and Markdown output. */
static void summary(struct gp_strbuf *o, const struct gpr_display *d, const struct gpa_gaps *g)
{
	const struct gpa_gap_totals *a = &g->all;

	gp_strbuf_addf(o, "%zu device%s, window ", g->devs.n, g->devs.n == 1 ? "" : "s");
	add_dur(o, d, a->window);
	gp_strbuf_adds(o, ", busy ");
	gpr_fmt_pct(o, a->busy, a->window);
	gp_strbuf_addf(o, "%s, idle ", a->window ? " %" : "-");
	add_dur(o, d, a->idle);
	gp_strbuf_adds(o, " in ");
	gpr_fmt_counted(o, a->gaps, "gap", "gaps");
	gp_strbuf_adds(o, " (");
	gpr_fmt_count(o, a->listed);
	gp_strbuf_adds(o, " of at least ");
	add_dur(o, d, g->min_gap_ns);
	gp_strbuf_adds(o, ")");
}

static const char *title_of(unsigned bit)
{
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables); i++) {
		if (tables[i].bit == bit) {
			return tables[i].title;
		}
	}
	return "";
}

/* The title of one section, with what it covers. */
static void section_title(struct gp_strbuf *o, const struct gpr_display *d, unsigned bit,
			  const struct gpa_gaps *g)
{
	gp_strbuf_adds(o, title_of(bit));
	if (bit == GPR_GAPS_LONGEST) {
		gp_strbuf_addf(o, " (%zu of %" PRIu64 " at least ", g->top.n, g->all.listed);
		add_dur(o, d, g->min_gap_ns);
		gp_strbuf_adds(o, ")");
	} else if (bit == GPR_GAPS_CAUSES) {
		gp_strbuf_adds(o, " (each gap counted whole under one cause)");
	} else if (bit == GPR_GAPS_STEPS) {
		gp_strbuf_adds(o, " (stretches of each device timeline)");
	}
}

static void json_options(struct gp_strbuf *o, const struct gpa_steps *s, const struct gpa_gaps *g)
{
	static const char *const sources[] = {"",      "nvtx",        "profiler",
					      "whole", "repeating-range", "training-loop"};
	const struct gpa_gap_totals *a = &g->all;

	gp_strbuf_addf(o, "{\"schema\":\"gpuprof-gaps/2\","
			  "\"options\":{\"min_gap_ns\":%" PRIu64 ",\"top\":", g->min_gap_ns);
	if (g->top_n == SIZE_MAX) {
		gp_strbuf_adds(o, "null");
	} else {
		gp_strbuf_addf(o, "%zu", g->top_n);
	}
	gp_strbuf_addf(o, ",\"latency_ns\":%" PRIu64 ",\"data_pattern\":", g->latency_ns);
	gp_strbuf_add_json_str(o, g->data_pattern, strlen(g->data_pattern));
	gp_strbuf_adds(o, ",\"step_source\":");
	if (s && (unsigned)s->source < GP_ARRAY_SIZE(sources) && s->source) {
		gp_strbuf_addf(o, "\"%s\",\"step_pattern\":", sources[s->source]);
		if (s->pattern) {
			gp_strbuf_add_json_str(o, s->pattern, strlen(s->pattern));
		} else {
			gp_strbuf_adds(o, "null");
		}
	} else {
		gp_strbuf_adds(o, "null,\"step_pattern\":null");
	}
	gp_strbuf_addf(o,
		       "},\n\"totals\":{\"devices\":%zu,\"window_ns\":%" PRIu64
		       ",\"busy_ns\":%" PRIu64 ",\"idle_ns\":%" PRIu64 ",\"busy_pct\":",
		       g->devs.n, a->window, a->busy, a->idle);
	if (a->window) {
		gpr_fmt_pct(o, a->busy, a->window);
	} else {
		gp_strbuf_adds(o, "null");
	}
	gp_strbuf_addf(o,
		       ",\"gaps\":%" PRIu64 ",\"listed_gaps\":%" PRIu64
		       ",\"listed_idle_ns\":%" PRIu64 ",\"longest_ns\":%" PRIu64 "}",
		       a->gaps, a->listed, a->listed_ns, a->longest);
}

int gpr_gaps_render(struct gp_strbuf *out, enum gpr_format fmt, const struct gpr_display *d,
		    unsigned mask, const struct gpa_model *m, const struct gpa_steps *steps,
		    const struct gpa_gaps *g)
{
	bool first = true;
	int ret = 0;

	if ((unsigned)fmt > GPR_FORMAT_MARKDOWN) {
		return -GP_ERR_API;
	}
	switch (fmt) {
	case GPR_FORMAT_TEXT: {
		size_t from = out->len;
		gp_strbuf_adds(out, "GPU idle gaps: ");
		summary(out, d, g);
		gp_strbuf_adds(out, "\nbusy = union of kernels, memcpys and memsets per device; "
				    "start times from the first event");
		gpr_text_wrap_lines(out, d, from, 2);
		gp_strbuf_addch(out, '\n');
		break;
	}
	case GPR_FORMAT_MARKDOWN:
		gp_strbuf_adds(out, "## GPU idle gaps\n\n");
		summary(out, d, g);
		gp_strbuf_adds(out, ". Busy is the union of kernels, memcpys and memsets per "
				    "device; start times from the first event.\n");
		break;
	case GPR_FORMAT_JSON:
		json_options(out, steps, g);
		break;
	case GPR_FORMAT_CSV:
		break;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(tables) && !ret; i++) {
		struct gpr_table t;
		if (!(mask & tables[i].bit)) {
			continue;
		}
		ret = gpr_gaps_table(&t, tables[i].bit, m, steps, g);
		if (ret) {
			gpr_table_release(&t);
			break;
		}
		struct gp_strbuf title = GP_STRBUF_INIT;
		section_title(&title, d, tables[i].bit, g);
		ret = title.failed ? -GP_ERR_NOMEM : 0;
		if (ret) {
			gpr_table_release(&t);
		} else {
			ret = gpr_table_section(&t, fmt, d, title.buf, tables[i].name, first, out);
		}
		gp_strbuf_release(&title);
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
