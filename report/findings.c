/* SPDX-License-Identifier: MIT */
/*
 * findings.c - the report's Findings section (docs/report.md): text,
 * Markdown, JSON, and one sentence per line for the HTML page.
 */
#include "base/compat.h"
#include "analyze/comm.h"
#include "analyze/findings.h"
#include "analyze/memory.h"
#include "analyze/gaps.h"
#include "analyze/model.h"
#include "analyze/occupancy.h"
#include "analyze/overview.h"
#include "analyze/steps.h"
#include "report/memory.h"
#include "report/report.h"
#include "report/gaps.h"
#include "report/summary.h"

#include <string.h>

/* Kernel names in sentences: at most this many columns (gpr_fmt_name_fit). */
#define NAME_MAX_TEXT 56

/*
 * How a sentence reads: for JSON (full: exact seconds and nanoseconds, names
 * whole, plain counts) or for people, as the display d says.
 */
struct say {
	bool full;
	const struct gpr_display *d;
};

static const struct say json = {.full = true};

static void add_name(struct gp_strbuf *sb, const char *s, const struct say *w)
{
	if (w->full) {
		gp_strbuf_adds(sb, s);
		return;
	}
	gpr_fmt_name_fit(sb, s, gpr_display_or_default(w->d)->wide ? 0 : NAME_MAX_TEXT);
}

static void add_func(struct gp_strbuf *sb, const struct gpa_model *m, uint32_t func,
		     const struct say *w)
{
	const struct gpa_func *f = &m->funcs.v[func];

	add_name(sb, gpa_model_str(m, f->demangled ? f->demangled : f->name), w);
}

static void add_step(struct gp_strbuf *sb, const struct gpa_model *m, const struct gpa_steps *s,
		     uint32_t step)
{
	if (!s || step == GPA_NONE || step >= s->v.n) {
		return;
	}
	if (s->v.v[step].name) {
		gp_strbuf_addf(sb, " (step %s)", gpa_model_str(m, s->v.v[step].name));
	} else {
		gp_strbuf_addf(sb, " (step #%" PRId64 ")", s->v.v[step].number);
	}
}

/* "idle: CPU-bound", "exposed communication", ... */
/* "rank R", or "pid P" where the traces do not say the rank. */
static void rank_name(struct gp_strbuf *sb, const struct gpr_report_parts *p,
		      const struct gpa_comm_rank *r)
{
	if (r->rank >= 0) {
		gp_strbuf_addf(sb, "rank %" PRId32, r->rank);
	} else {
		gp_strbuf_addf(sb, "pid %" PRIu32, p->m->procs.v[r->proc].pid);
	}
}

static void add_title(struct gp_strbuf *sb, const struct gpr_report_parts *p,
		      const struct gpa_finding *f)
{
	switch (f->cat) {
	case GPA_FIND_IDLE:
		gp_strbuf_addf(sb, "GPU idle: %s", gpr_gap_cause_label(f->cause));
		break;
	case GPA_FIND_COMM:
		gp_strbuf_adds(sb, "Exposed communication");
		break;
	case GPA_FIND_STRAGGLER: {
		gp_strbuf_adds(sb, "Straggler: ");
		rank_name(sb, p, &p->comm->ranks.v[f->ev[0].row]);
		break;
	}
	case GPA_FIND_LAUNCH:
		gp_strbuf_adds(sb, "Launch-bound: idle between kernels launched one by one");
		break;
	case GPA_FIND_OCCUPANCY:
		gp_strbuf_adds(sb, "Low theoretical occupancy on hot kernels");
		break;
	case GPA_FIND_COPIES:
		gp_strbuf_adds(sb, "Pageable or small host copies");
		break;
	case GPA_FIND_MEMORY:
		gp_strbuf_adds(sb, "Memory-bound kernels below the roofline");
		break;
	case GPA_FIND_PROFILER:
		gp_strbuf_adds(sb, "Profiler overhead");
		break;
	case GPA_FIND_COPY_BOUND:
		gp_strbuf_adds(sb, "Copy-bound: copies are the step's critical path");
		break;
	case GPA_FIND_PRELUDE:
		gp_strbuf_adds(sb, "Host work before each step's first GPU operation");
		break;
	case GPA_FIND_WARMUP:
		gp_strbuf_adds(sb, "Warm-up: one-off start-up on the critical path");
		break;
	case GPA_FIND_OLD_ARCH:
		gp_strbuf_adds(sb, "Kernels built for a GPU two generations older");
		break;
	default:
		gp_strbuf_adds(sb, "unknown");
	}
}

/* A duration: exact seconds for JSON (full), as the display wants for people. */
static void dur(struct gp_strbuf *sb, uint64_t ns, const struct say *w)
{
	if (w->full) {
		gpr_fmt_secs(sb, ns);
	} else {
		gpr_fmt_ns(sb, w->d, ns);
	}
}

/* An offset from the trace's start: "+123 ns" for JSON (full), else "+1.234 ms". */
static void offset(struct gp_strbuf *sb, uint64_t ns, const struct say *w)
{
	gp_strbuf_addch(sb, '+');
	if (w->full) {
		gp_strbuf_addf(sb, "%" PRIu64 " ns", ns);
	} else {
		gpr_fmt_ns(sb, w->d, ns);
	}
}

/* A count in a sentence: with thousands separators for people, plain when full (JSON). */
static void cnt(struct gp_strbuf *sb, uint64_t n, const struct say *w)
{
	if (w->full) {
		gp_strbuf_addf(sb, "%" PRIu64, n);
	} else {
		gpr_fmt_count(sb, n);
	}
}

/* The counts behind a finding, one sentence without a full stop. */
static void add_counts(struct gp_strbuf *sb, const struct gpa_finding *f, const struct say *w)
{
	switch (f->cat) {
	case GPA_FIND_IDLE:
	case GPA_FIND_PROFILER:
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, f->count == 1 ? " gap" : " gaps");
		break;
	case GPA_FIND_LAUNCH:
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, " kernels launched one by one (");
		cnt(sb, f->aux, w);
		gp_strbuf_addf(sb, " shorter than %u \xc2\xb5s), ", GPA_FINDING_SMALL_KERNEL_NS / 1000);
		cnt(sb, f->aux2, w);
		gp_strbuf_adds(sb, " run by graph launches");
		break;
	case GPA_FIND_COMM:
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, " communication kernels, ");
		dur(sb, f->count_ns, w);
		gp_strbuf_adds(sb, " of communication, ");
		dur(sb, f->aux, w);
		gp_strbuf_adds(sb, " of it under compute");
		break;
	case GPA_FIND_STRAGGLER:
		gp_strbuf_adds(sb, "last to arrive in ");
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, " of ");
		cnt(sb, f->aux2, w);
		gp_strbuf_adds(sb, " operations matched across ranks");
		break;
	case GPA_FIND_OCCUPANCY:
	case GPA_FIND_MEMORY:
	case GPA_FIND_OLD_ARCH:
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, " launches, ");
		dur(sb, f->count_ns, w);
		gp_strbuf_adds(sb, " of kernel time");
		break;
	case GPA_FIND_COPIES:
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, " copies (");
		cnt(sb, f->aux, w);
		gp_strbuf_adds(sb, " from or to pageable memory, ");
		cnt(sb, f->aux2, w);
		gp_strbuf_addf(sb, " under %u KiB)", GPA_FINDING_SMALL_COPY_BYTES / 1024);
		break;
	case GPA_FIND_COPY_BOUND:
		cnt(sb, f->count, w);
		gp_strbuf_adds(sb, " copies and memsets; ");
		dur(sb, f->count_ns, w);
		gp_strbuf_adds(sb, " of copies on the path, ");
		dur(sb, f->aux, w);
		gp_strbuf_adds(sb, " of them host-to-device, ");
		dur(sb, f->aux2, w);
		gp_strbuf_adds(sb, " from or to pageable memory (pinned memory copies faster and can "
				   "overlap compute)");
		break;
	case GPA_FIND_PRELUDE:
		dur(sb, f->cost_ns, w);
		gp_strbuf_adds(sb, " of host time before the first GPU operation of the steps, of ");
		dur(sb, f->count_ns, w);
		gp_strbuf_adds(sb, " of step time (prefetch or overlap it with the previous step)");
		break;
	case GPA_FIND_WARMUP:
		gp_strbuf_addf(sb, "%" PRIu64 " warm-up step%s and start-up calls, left out of the "
			       "steady-state verdict", f->count, f->count == 1 ? "" : "s");
		break;
	default:
		break;
	}
	if (f->off_path) {
		gp_strbuf_adds(sb, "; ");
		dur(sb, f->unbound_ns, w);
		gp_strbuf_adds(sb, " estimated, none of it on the critical path");
	} else if (f->unbound_ns) {
		gp_strbuf_adds(sb, "; bounded by its time on the critical path (");
		dur(sb, f->unbound_ns, w);
		gp_strbuf_adds(sb, " estimated)");
	}
}

/* One evidence event in words; full: kernel names untruncated (JSON). */
static void add_event(struct gp_strbuf *sb, const struct gpr_report_parts *p,
		      const struct gpa_finding_event *e, const struct say *w)
{
	const struct gpa_model *m = p->m;

	switch (e->kind) {
	case GPA_FEV_GAP: {
		const struct gpa_gap *g = &p->findings->gaps->top.v[e->row];
		dur(sb, e->ns, w);
		gp_strbuf_adds(sb, " idle on device ");
		gpr_gap_device_label(sb, m, e->dev);
		gp_strbuf_adds(sb, " at ");
		offset(sb, e->start - m->t0, w);
		add_step(sb, m, p->steps, e->step);
		gp_strbuf_adds(sb, ": ");
		gpr_gap_evidence(sb, m, g);
		break;
	}
	case GPA_FEV_DEVICE:
		gp_strbuf_adds(sb, "device ");
		gpr_gap_device_label(sb, m, e->dev);
		gp_strbuf_adds(sb, ": ");
		dur(sb, e->ns, w);
		gp_strbuf_addf(sb, " exposed over %" PRIu64 " kernels", e->count);
		break;
	case GPA_FEV_RANK: {
		const struct gpa_comm_rank *r = &p->comm->ranks.v[e->row];
		rank_name(sb, p, r);
		gp_strbuf_adds(sb, ": the others waited ");
		dur(sb, r->caused, w);
		gp_strbuf_adds(sb, " for it; mean lateness ");
		dur(sb, r->matched ? r->late_sum / r->matched : 0, w);
		break;
	}
	case GPA_FEV_ARCH:
		add_func(sb, m, e->row, w);
		gp_strbuf_adds(sb, ": ");
		dur(sb, e->ns, w);
		gp_strbuf_addf(sb, " over %" PRIu64 " launches, built for sm%u on an sm%u device",
			       e->count, e->value_bp / 1000, e->value_bp % 1000);
		break;
	case GPA_FEV_KERNEL:
		if (e->func_only) {
			add_func(sb, m, e->row, w);
			gp_strbuf_adds(sb, ": ");
			dur(sb, e->ns, w);
			gp_strbuf_addf(sb, " over %" PRIu64 " launches at ", e->count);
			gpr_fmt_pct(sb, e->value_bp, 10000);
			gp_strbuf_adds(sb, "% of the roofline");
		} else {
			add_func(sb, m, p->occ->groups.v[e->row].func, w);
			gp_strbuf_adds(sb, " on device ");
			gpr_gap_device_label(sb, m, e->dev);
			gp_strbuf_adds(sb, ": ");
			dur(sb, e->ns, w);
			gp_strbuf_addf(sb, " over %" PRIu64 " launches, occupancy ", e->count);
			gpr_fmt_pct(sb, e->value_bp, 10000);
			gp_strbuf_adds(sb, "%");
		}
		break;
	case GPA_FEV_COPY:
		dur(sb, e->ns, w);
		gp_strbuf_addf(sb, " %s copy of %" PRIu64 " bytes on device ",
			       gpa_copy_kind_name(gpa_copy_copy_kind(m, e->row)),
			       gpa_copy_bytes(m, e->row));
		gpr_gap_device_label(sb, m, e->dev);
		gp_strbuf_adds(sb, " at ");
		offset(sb, e->start - m->t0, w);
		break;
	default:
		break;
	}
}

static void add_cost(struct gp_strbuf *sb, const struct gpr_display *d,
		     const struct gpa_findings *fs, const struct gpa_finding *f)
{
	gp_strbuf_adds(sb, "up to ");
	gpr_fmt_ns(sb, d, f->cost_ns);
	gp_strbuf_adds(sb, " (");
	gpr_fmt_pct(sb, f->cost_ns, fs->basis_ns);
	gp_strbuf_adds(sb, "% of GPU time)");
}

/* The verdict line when nothing is material. */
static void add_verdict(struct gp_strbuf *sb, const struct gpa_findings *fs, const struct say *w)
{
	if (fs->verdict == GPA_VERDICT_NO_GPU) {
		gp_strbuf_adds(sb, "No GPU work in the trace: nothing to judge.");
		return;
	}
	if (fs->verdict == GPA_VERDICT_MATERIAL) {
		gp_strbuf_adds(sb, "Recoverable: up to ");
		dur(sb, fs->total_ns, w);
		gp_strbuf_adds(sb, " (");
		gpr_fmt_pct(sb, fs->total_ns, fs->basis_ns);
		gp_strbuf_adds(sb, "% of GPU time; bounds may overlap).");
		return;
	}
	if (fs->capture_idle_ns) {
		gp_strbuf_adds(sb, "No material bottleneck: ");
		gpr_fmt_pct(sb, fs->capture_idle_ns, fs->gaps->all.idle);
		gp_strbuf_adds(sb, "% of the GPU idle time lies inside stream captures, where launches "
				   "are recorded into a graph and run nothing: set-up, not run time "
				   "(profile the replays).");
		return;
	}
	gp_strbuf_adds(sb, "No material bottleneck: every finding's bound is under ");
	gpr_fmt_pct(sb, fs->threshold_bp, 10000);
	gp_strbuf_adds(sb, "% of GPU time (together ");
	dur(sb, fs->minor_ns, w);
	gp_strbuf_adds(sb, ", ");
	gpr_fmt_pct(sb, fs->minor_ns, fs->basis_ns);
	gp_strbuf_adds(sb, "%).");
}

void gpr_findings_verdict(struct gp_strbuf *sb, const struct gpr_report_parts *p)
{
	if (p->findings) {
		const struct say people = {.d = p->display};
		add_verdict(sb, p->findings, &people);
	}
}

static void json_sb(struct gp_strbuf *o, struct gp_strbuf *tmp);

/* One memory finding in words, without a full stop. */
static void mem_sentence(struct gp_strbuf *o, const struct gpr_report_parts *p,
			 const struct gpa_mem_finding *f)
{
	const struct gpa_mem_pool *pool = &p->findings->memory->pools.v[f->pool];

	switch (f->kind) {
	case GPA_MEMF_PEAK:
		gp_strbuf_adds(o, "peak at ");
		gpr_fmt_bytes(o, f->bytes);
		gp_strbuf_adds(o, " of ");
		gpr_fmt_bytes(o, f->of);
		gp_strbuf_adds(o, " on ");
		gpr_memory_device_name(o, p->m, pool);
		gp_strbuf_adds(o, " (");
		gpr_fmt_pct(o, f->bytes, f->of);
		gp_strbuf_adds(o, "%)");
		if (f->phase) {
			gp_strbuf_addf(o, ", in %s", gpa_mem_phase_name(f->phase));
		}
		if (f->owner) {
			gp_strbuf_addf(o, ", driven by %s (", gpa_model_str(p->m, f->owner));
			gpr_fmt_pct(o, f->owner_bytes, f->bytes);
			gp_strbuf_adds(o, "% of it)");
		}
		break;
	case GPA_MEMF_LEAK:
		gp_strbuf_adds(o, "leak of ");
		gpr_fmt_bytes(o, f->bytes);
		gp_strbuf_adds(o, " per step on ");
		gpr_memory_device_name(o, p->m, pool);
		gp_strbuf_addf(o, ": bytes live at step end rose at every step (%" PRIu64 " steps)",
			       f->of);
		if (f->owner) {
			gp_strbuf_addf(o, ", most still held by what %s allocated",
				       gpa_model_str(p->m, f->owner));
		}
		break;
	case GPA_MEMF_FRAG:
		gp_strbuf_adds(o, "fragmentation on ");
		gpr_memory_device_name(o, p->m, pool);
		gp_strbuf_adds(o, ": ");
		gpr_fmt_bytes(o, f->bytes);
		gp_strbuf_adds(o, " reserved but not allocated at the peak (");
		gpr_fmt_pct(o, f->bytes, f->of);
		gp_strbuf_adds(o, "% of ");
		gpr_fmt_bytes(o, f->of);
		gp_strbuf_adds(o, " reserved)");
		break;
	default:
		break;
	}
}

/* The memory findings, after the time findings: text lines or a JSON array. */
static void mem_text(struct gp_strbuf *o, bool md, const struct gpr_report_parts *p)
{
	const struct gpa_findings *fs = p->findings;

	if (!fs->mem.n) {
		return;
	}
	gp_strbuf_adds(o, md ? "Memory:\n\n" : "  Memory:\n");
	for (size_t i = 0; i < fs->mem.n; i++) {
		size_t from = o->len;
		gp_strbuf_adds(o, md ? "- " : "  - ");
		mem_sentence(o, p, &fs->mem.v[i]);
		gp_strbuf_adds(o, ".");
		if (!md) {
			gpr_text_wrap(o, p->display, from, 4);
		}
		gp_strbuf_addch(o, '\n');
	}
	gp_strbuf_addch(o, '\n');
}

static void mem_json(struct gp_strbuf *o, struct gp_strbuf *tmp, const struct gpr_report_parts *p)
{
	static const char *const kinds[] = {"", "memory-peak", "memory-leak", "fragmentation"};
	const struct gpa_findings *fs = p->findings;

	gp_strbuf_adds(o, ",\"memory_findings\":[");
	for (size_t i = 0; i < fs->mem.n; i++) {
		const struct gpa_mem_finding *f = &fs->mem.v[i];
		gp_strbuf_addf(o, "%s{\"category\":\"%s\",\"device\":", i ? "," : "",
			       kinds[f->kind < 4 ? f->kind : 0]);
		gp_strbuf_reset(tmp);
		gpr_memory_device_name(tmp, p->m, &fs->memory->pools.v[f->pool]);
		json_sb(o, tmp);
		gp_strbuf_addf(o, ",\"bytes\":%" PRIu64 ",\"of\":%" PRIu64 ",\"text\":", f->bytes,
			       f->of);
		gp_strbuf_reset(tmp);
		mem_sentence(tmp, p, f);
		json_sb(o, tmp);
		gp_strbuf_addch(o, '}');
	}
	gp_strbuf_addch(o, ']');
}

int gpr_findings_text(struct gp_strbuf *o, bool md, const struct gpr_report_parts *p)
{
	const struct gpa_findings *fs = p->findings;
	const struct gpr_display *d = p->display;
	const struct say people = {.d = d};

	if (!fs) {
		return 0;
	}
	gp_strbuf_adds(o, md ? "## Findings\n\n" : "Findings\n\n");
	size_t from = o->len;
	if (!md) {
		gp_strbuf_adds(o, "  ");
	}
	add_verdict(o, fs, &people);
	if (!md) {
		gpr_text_wrap(o, d, from, 2);
	}
	gp_strbuf_adds(o, "\n\n");
	for (size_t i = 0; i < fs->v.n; i++) {
		const struct gpa_finding *f = &fs->v.v[i];
		const char *ind = md ? "   - " : "     ";
		from = o->len;
		gp_strbuf_addf(o, md ? "%zu. **" : "  %zu. ", i + 1);
		add_title(o, p, f);
		gp_strbuf_adds(o, md ? "**: " : ": ");
		add_cost(o, d, fs, f);
		gp_strbuf_addf(o, "; %s; confidence %s", f->major ? "major" : "material",
			       gpa_confidence_name(f->conf));
		if (!md) {
			gpr_text_wrap(o, d, from, strlen(ind));
		}
		gp_strbuf_addch(o, '\n');
		from = o->len;
		gp_strbuf_addf(o, "%sevidence: ", ind);
		add_counts(o, f, &people);
		if (!md) {
			gpr_text_wrap(o, d, from, strlen(ind) + 2);
		}
		gp_strbuf_addch(o, '\n');
		for (size_t e = 0; e < f->nev; e++) {
			size_t from = o->len;
			gp_strbuf_addf(o, "%s%s", ind, md ? "" : "  ");
			add_event(o, p, &f->ev[e], &people);
			if (!md) {
				gpr_text_wrap(o, d, from, strlen(ind) + 4);
			}
			gp_strbuf_addch(o, '\n');
		}
		from = o->len;
		gp_strbuf_addf(o, "%sconfidence %s: %s", ind, gpa_confidence_name(f->conf),
			       f->conf_reason);
		if (!md) {
			gpr_text_wrap(o, d, from, strlen(ind) + 2);
		}
		from = o->len;
		gp_strbuf_addf(o, md ? "\n%snext: `%s`" : "\n%snext: %s", ind, f->next);
		if (!md) {
			gpr_text_wrap(o, d, from + 1, strlen(ind) + 2);
		}
		gp_strbuf_addch(o, '\n');
	}
	if (fs->v.n) {
		gp_strbuf_addch(o, '\n');
	}
	mem_text(o, md, p);
	return o->failed ? -GP_ERR_NOMEM : 0;
}

static void json_sb(struct gp_strbuf *o, struct gp_strbuf *tmp)
{
	gp_strbuf_add_json_str(o, tmp->buf ? tmp->buf : "", tmp->len);
	gp_strbuf_reset(tmp);
}

static void json_pct(struct gp_strbuf *o, uint64_t num, uint64_t den)
{
	if (den) {
		gpr_fmt_pct(o, num, den);
	} else {
		gp_strbuf_adds(o, "null");
	}
}

static void json_finding(struct gp_strbuf *o, struct gp_strbuf *tmp,
			 const struct gpr_report_parts *p, const struct gpa_finding *f, size_t rank)
{
	const struct gpa_findings *fs = p->findings;

	gp_strbuf_addf(o, "{\"rank\":%zu,\"category\":\"%s\",\"cause\":", rank,
		       gpa_finding_cat_name(f->cat));
	if (f->cat == GPA_FIND_IDLE || f->cat == GPA_FIND_LAUNCH || f->cat == GPA_FIND_PROFILER) {
		gp_strbuf_addf(o, "\"%s\"", gpa_gap_cause_name(f->cause));
	} else {
		gp_strbuf_adds(o, "null");
	}
	gp_strbuf_adds(o, ",\"title\":");
	add_title(tmp, p, f);
	json_sb(o, tmp);
	gp_strbuf_addf(o, ",\"severity\":\"%s\",\"recoverable_ns\":%" PRIu64 ",\"share_pct\":",
		       f->major ? "major" : f->material ? "material" : "minor", f->cost_ns);
	json_pct(o, f->cost_ns, fs->basis_ns);
	gp_strbuf_addf(o, ",\"confidence\":\"%s\",\"confidence_reason\":",
		       gpa_confidence_name(f->conf));
	gp_strbuf_add_json_str(o, f->conf_reason, strlen(f->conf_reason));
	gp_strbuf_addf(o, ",\"count\":%" PRIu64 ",\"count_ns\":%" PRIu64 ",\"summary\":", f->count,
		       f->count_ns);
	add_counts(tmp, f, &json);
	json_sb(o, tmp);
	gp_strbuf_adds(o, ",\"evidence\":[");
	for (size_t e = 0; e < f->nev; e++) {
		const struct gpa_finding_event *ev = &f->ev[e];
		gp_strbuf_addf(o, "%s{\"ns\":%" PRIu64 ",\"start_ns\":", e ? "," : "", ev->ns);
		if (ev->start) {
			gp_strbuf_addf(o, "%" PRIu64, ev->start - p->m->t0);
		} else {
			gp_strbuf_adds(o, "null");
		}
		gp_strbuf_adds(o, ",\"what\":");
		add_event(tmp, p, ev, &json);
		json_sb(o, tmp);
		gp_strbuf_addch(o, '}');
	}
	gp_strbuf_adds(o, "],\"next\":");
	gp_strbuf_add_json_str(o, f->next, strlen(f->next));
	gp_strbuf_addch(o, '}');
}

int gpr_findings_json(struct gp_strbuf *o, const struct gpr_report_parts *p)
{
	const struct gpa_findings *fs = p->findings;
	struct gp_strbuf tmp = GP_STRBUF_INIT;
	static const char *const verdicts[] = {"no-gpu-work", "none-material", "material"};

	if (!fs) {
		return 0;
	}
	gp_strbuf_addf(o, ",\"findings_summary\":{\"verdict\":\"%s\",\"basis_ns\":%" PRIu64
			  ",\"recoverable_ns\":%" PRIu64 ",\"recoverable_pct\":",
		       verdicts[fs->verdict < 3 ? fs->verdict : 0], fs->basis_ns, fs->total_ns);
	json_pct(o, fs->total_ns, fs->basis_ns);
	gp_strbuf_adds(o, ",\"threshold_pct\":");
	gpr_fmt_pct(o, fs->threshold_bp, 10000);
	gp_strbuf_adds(o, ",\"text\":");
	add_verdict(&tmp, fs, &json);
	json_sb(o, &tmp);
	gp_strbuf_adds(o, ",\"minor\":[");
	for (size_t i = 0; i < fs->minor.n; i++) {
		json_finding(o, &tmp, p, &fs->minor.v[i], 0);
		if (i + 1 < fs->minor.n) {
			gp_strbuf_addch(o, ',');
		}
	}
	gp_strbuf_adds(o, "]},\"findings\":[");
	for (size_t i = 0; i < fs->v.n; i++) {
		json_finding(o, &tmp, p, &fs->v.v[i], i + 1);
		if (i + 1 < fs->v.n) {
			gp_strbuf_addch(o, ',');
		}
	}
	gp_strbuf_addch(o, ']');
	if (fs->mem.n) {
		mem_json(o, &tmp, p);
	}
	gp_strbuf_release(&tmp);
	return o->failed || tmp.failed ? -GP_ERR_NOMEM : 0;
}

int gpr_findings_each(const struct gpr_report_parts *p,
		      int (*fn)(void *data, const char *head, const char *const *lines,
				size_t nlines),
		      void *data)
{
	const struct gpa_findings *fs = p->findings;
	const struct say people = {.d = p->display};
	struct gp_strbuf sb[GPA_FINDING_EVENTS + 4];
	int ret = 0;

	if (!fs) {
		return 0;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(sb); i++) {
		gp_strbuf_init(&sb[i]);
	}
	for (size_t i = 0; i < fs->v.n && !ret; i++) {
		const struct gpa_finding *f = &fs->v.v[i];
		const char *lines[GP_ARRAY_SIZE(sb) - 1];
		size_t n = 0;
		for (size_t j = 0; j < GP_ARRAY_SIZE(sb); j++) {
			gp_strbuf_reset(&sb[j]);
		}
		add_title(&sb[0], p, f);
		gp_strbuf_adds(&sb[0], ": ");
		add_cost(&sb[0], p->display, fs, f);
		gp_strbuf_addf(&sb[0], "; %s; confidence %s", f->major ? "major" : "material",
			       gpa_confidence_name(f->conf));
		gp_strbuf_adds(&sb[1], "evidence: ");
		add_counts(&sb[1], f, &people);
		lines[n++] = sb[1].buf;
		for (size_t e = 0; e < f->nev; e++) {
			add_event(&sb[2 + e], p, &f->ev[e], &people);
			lines[n++] = sb[2 + e].buf;
		}
		gp_strbuf_addf(&sb[2 + f->nev], "confidence %s: %s; next: %s",
			       gpa_confidence_name(f->conf), f->conf_reason, f->next);
		lines[n++] = sb[2 + f->nev].buf;
		for (size_t j = 0; j < GP_ARRAY_SIZE(sb); j++) {
			ret = sb[j].failed ? -GP_ERR_NOMEM : ret;
		}
		if (!ret) {
			ret = fn(data, sb[0].buf, lines, n);
		}
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(sb); i++) {
		gp_strbuf_release(&sb[i]);
	}
	return ret;
}
