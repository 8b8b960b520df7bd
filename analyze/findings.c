/* SPDX-License-Identifier: MIT */
/*
 * findings.c - ranked findings from the other analyses' results
 * (docs/report.md, "Findings").
 *
 *   The basis is the GPU window summed over the devices with work (the
 *   stretches of every step partition it, so a share of it is a share of
 *   step time). Each finding's cost is an upper bound of the device time
 *   that fixing it could give back:
 *     idle by cause        the idle time the gap analysis gives that cause
 *     profiler overhead    idle caused by profiler records
 *     launch-bound         idle of cause launch overhead, less the idle
 *                          between kernels of one graph launch (a replay
 *                          is not launch-bound per kernel)
 *     exposed comm.        communication kernel time not under compute
 *     straggler            the time the other ranks waited for the rank
 *                          that arrived last most often
 *     low occupancy        hot kernels' time x (1 - occupancy / 25 %)
 *     copies               the time of pageable and small host copies
 *     memory-bound         roofline kernels' time x (1 - efficiency)
 *   A finding is material from 5 % of the basis, major from 20 %.
 */
#include "base/compat.h"
#include "analyze/findings.h"
#include "analyze/memory.h"
#include "analyze/comm.h"
#include "analyze/gaps.h"
#include "analyze/mfu.h"
#include "analyze/model.h"
#include "analyze/occupancy.h"
#include "analyze/steps.h"
#include "analyze/verdict.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *gpa_finding_cat_name(unsigned cat)
{
	static const char *const names[GPA_FIND__COUNT] = {
		[GPA_FIND_IDLE] = "idle",
		[GPA_FIND_COMM] = "exposed-communication",
		[GPA_FIND_STRAGGLER] = "straggler",
		[GPA_FIND_LAUNCH] = "launch-bound",
		[GPA_FIND_OCCUPANCY] = "low-occupancy",
		[GPA_FIND_COPIES] = "copies",
		[GPA_FIND_MEMORY] = "memory-bound",
		[GPA_FIND_PROFILER] = "profiler-overhead",
		[GPA_FIND_COPY_BOUND] = "copy-bound",
		[GPA_FIND_PRELUDE] = "host-prelude",
		[GPA_FIND_WARMUP] = "warm-up",
		[GPA_FIND_OLD_ARCH] = "old-arch-kernel",
	};

	return cat < GPA_FIND__COUNT ? names[cat] : "unknown";
}

const char *gpa_confidence_name(unsigned c)
{
	return c == GPA_CONF_HIGH ? "high" : c == GPA_CONF_MEDIUM ? "medium" : "low";
}

/*
 * A kernel run by a graph: its record carries a graph id, or its launching
 * call is a graph launch (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch, any
 * version suffix: the model's GPA_API_GRAPH_LAUNCH flag, analyze/graphs.c).
 */
bool gpa_kernel_graph_launched(const struct gpa_model *m, uint32_t k)
{
	uint32_t a = gpa_kern_api(m, k);

	return gpa_kern_graph(m, k) ||
	       (a != GPA_NONE && (gpa_api_flags(m, a) & GPA_API_GRAPH_LAUNCH));
}

static bool is_material(uint64_t cost, uint64_t basis, uint32_t bp)
{
	return basis && (double)cost * 10000.0 >= (double)basis * bp;
}

/* ---- idle by cause, profiler overhead */

static const struct {
	uint8_t conf;
	const char *reason;
} idle_conf[GPA_GAP__COUNT] = {
	[GPA_GAP_PROFILER] = {GPA_CONF_HIGH, "profiler overhead records cover the gaps"},
	[GPA_GAP_SYNC] = {GPA_CONF_HIGH, "recorded synchronizing calls cover the gaps"},
	[GPA_GAP_DATA] = {GPA_CONF_MEDIUM, "ranges named as data loading cover the gaps"},
	[GPA_GAP_MEMORY] = {GPA_CONF_HIGH, "recorded memory-management calls cover the gaps"},
	[GPA_GAP_JIT] = {GPA_CONF_HIGH, "recorded module-load or JIT calls cover the gaps"},
	[GPA_GAP_LAUNCH] = {GPA_CONF_MEDIUM,
			    "launch calls or queue latency cover the gaps; graph replays excluded"},
	[GPA_GAP_CPU] = {GPA_CONF_MEDIUM,
			 "the launching thread was outside CUDA calls; what it ran is not recorded"},
	[GPA_GAP_COMM] = {GPA_CONF_MEDIUM, "queued work waited on a communication kernel"},
	[GPA_GAP_DEPENDENCY] = {GPA_CONF_HIGH, "recorded stream waits or events order the work"},
	[GPA_GAP_STRAGGLER] = {GPA_CONF_MEDIUM, "work waited on a slower rank"},
	[GPA_GAP_UNKNOWN] = {GPA_CONF_LOW, "the work after the gaps has no recorded launch call"},
};

/* The longest listed gaps of a cause as evidence. */
static void gap_events(struct gpa_finding *f, const struct gpa_gaps *g, unsigned cause)
{
	for (size_t i = 0; i < g->top.n && f->nev < GPA_FINDING_EVENTS; i++) {
		const struct gpa_gap *gp = &g->top.v[i];
		if (gp->cause != cause) {
			continue;
		}
		f->ev[f->nev++] = (struct gpa_finding_event){
			.kind = GPA_FEV_GAP, .dev = gp->dev, .row = (uint32_t)i, .step = gp->step,
			.start = gp->start, .ns = gp->end - gp->start};
	}
}

static void idle_finding(struct gpa_finding *f, const struct gpa_gaps *g, unsigned c)
{
	*f = (struct gpa_finding){
		.cat = c == GPA_GAP_PROFILER ? GPA_FIND_PROFILER
		       : c == GPA_GAP_LAUNCH ? GPA_FIND_LAUNCH : GPA_FIND_IDLE,
		.cause = (uint8_t)c,
		.conf = idle_conf[c].conf,
		.conf_reason = idle_conf[c].reason,
		.cost_ns = g->all.cause_ns[c],
		.count = g->all.cause_n[c],
		.count_ns = g->all.cause_ns[c],
		.next = "gpuprof gaps --top 20 TRACE",
	};
	gap_events(f, g, c);
}

/* ---- launch-bound */

struct launch_scan {
	uint64_t single, single_ns, small, graph, graph_idle;
};

/*
 * Kernels launched one by one (how many, their time, how many are small)
 * and graph-launched, and the idle between two ops of the same graph launch.
 */
static void scan_launches(const struct gpa_model *m, struct launch_scan *s)
{
	uint64_t busy_end = 0;
	uint32_t prev_api = GPA_NONE;
	uint16_t dev = UINT16_MAX;

	for (size_t i = 0; i < gpa_gpu_rows(m); i++) {
		uint32_t api = GPA_NONE;
		bool graph = false;
		if (gpa_gpu_dev(m, i) != dev) {
			dev = gpa_gpu_dev(m, i);
			busy_end = gpa_gpu_start(m, i);
			prev_api = GPA_NONE;
		}
		if (gpa_gpu_kind(m, i) == GPA_GPU_KERNEL) {
			uint32_t k = gpa_gpu_row(m, i);
			api = gpa_kern_api(m, k);
			graph = gpa_kernel_graph_launched(m, k);
			uint64_t d = gpa_kern_dur(m, k);
			if (graph) {
				s->graph++;
			} else {
				s->single++;
				s->single_ns += d;
				s->small += d < GPA_FINDING_SMALL_KERNEL_NS;
			}
		}
		if (graph && api == prev_api && gpa_gpu_start(m, i) > busy_end) {
			s->graph_idle += gpa_gpu_start(m, i) - busy_end;
		}
		if (gpa_gpu_end(m, i) > busy_end) {
			busy_end = gpa_gpu_end(m, i);
		}
		prev_api = api;
	}
}

static void launch_finding(struct gpa_finding *f, const struct gpa_model *m,
			   const struct gpa_gaps *g)
{
	struct launch_scan s = {0};

	idle_finding(f, g, GPA_GAP_LAUNCH);
	/*
	 * Launch-bound means many short gaps, each about one launch; a few long
	 * launch calls (first launches, lazy loading) are idle of that cause.
	 */
	if (f->count < GPA_FINDING_LAUNCH_GAPS ||
	    f->cost_ns / f->count > GPA_FINDING_LAUNCH_GAP_NS) {
		f->cat = GPA_FIND_IDLE;
		f->conf_reason = "launch calls cover the gaps, but too few or too long for a "
				 "launch-bound loop";
		return;
	}
	scan_launches(m, &s);
	f->cost_ns = f->cost_ns > s.graph_idle ? f->cost_ns - s.graph_idle : 0;
	f->count = s.single;
	f->count_ns = s.single_ns;
	f->aux = s.small;
	f->aux2 = s.graph;
	f->next = "gpuprof stats --report cuda_gpu_kern_sum TRACE";
	if (s.graph > s.single) {
		f->conf = GPA_CONF_LOW;
		f->conf_reason = "most kernels run from graph launches; the rest may be device "
				 "latency";
	}
}

/* ---- communication */

/* Keeps e among the GPA_FINDING_EVENTS events with the most time, most first. */
static void insert_event(struct gpa_finding *f, const struct gpa_finding_event *e)
{
	size_t j = f->nev < GPA_FINDING_EVENTS ? f->nev++ : GPA_FINDING_EVENTS;

	while (j > 0 && f->ev[j - 1].ns < e->ns) {
		if (j < GPA_FINDING_EVENTS) {
			f->ev[j] = f->ev[j - 1];
		}
		j--;
	}
	if (j < GPA_FINDING_EVENTS) {
		f->ev[j] = *e;
	}
}

static void comm_finding(struct gpa_finding *f, const struct gpa_comm *c)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_COMM,
		.conf = c->ident == GPA_COMM_BY_NAMES ? GPA_CONF_MEDIUM : GPA_CONF_HIGH,
		.conf_reason = c->ident == GPA_COMM_BY_NAMES
				       ? "communication kernels told apart by name rules only"
				       : "communication kernels linked to NCCL records",
		.next = "gpuprof comm --table exposed TRACE",
	};
	for (size_t i = 0; i < c->devs.n; i++) {
		const struct gpa_comm_dev *d = &c->devs.v[i];
		if (d->step != GPA_NONE) {
			continue;
		}
		f->cost_ns += d->exposed;
		f->count += d->kernels;
		f->count_ns += d->comm;
		f->aux += d->overlap;
		struct gpa_finding_event e = {.kind = GPA_FEV_DEVICE, .dev = (uint16_t)d->dev,
					      .row = d->dev, .step = GPA_NONE, .ns = d->exposed,
					      .count = d->kernels};
		insert_event(f, &e);
	}
}

static void straggler_finding(struct gpa_finding *f, const struct gpa_comm *c)
{
	const struct gpa_comm_rank *r = &c->ranks.v[c->straggler];

	*f = (struct gpa_finding){
		.cat = GPA_FIND_STRAGGLER,
		.conf = c->groups >= 10 ? GPA_CONF_MEDIUM : GPA_CONF_LOW,
		.conf_reason = c->groups < 10 ? "fewer than 10 operations matched across ranks"
			       : c->match.by == GPA_COLL_SEQ
				       ? "host arrival times of operations matched across ranks"
				       : "GPU start times of collectives matched across ranks by order",
		.cost_ns = r->caused,
		.count = r->last,
		.count_ns = r->caused,
		.aux = r->matched,
		.aux2 = c->groups,
		.next = "gpuprof comm --table ranks TRACE",
	};
	f->ev[f->nev++] = (struct gpa_finding_event){
		.kind = GPA_FEV_RANK, .row = c->straggler, .step = GPA_NONE, .ns = r->caused,
		.count = r->last};
}

/* ---- kernels */

static void occupancy_finding(struct gpa_finding *f, const struct gpa_occupancy *occ)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_OCCUPANCY,
		.conf = GPA_CONF_LOW,
		.conf_reason = "theoretical occupancy only; many fast kernels run at low occupancy "
			       "by design",
		.next = "gpuprof occupancy TRACE",
	};
	for (size_t i = 0; i < occ->groups.n; i++) {
		const struct gpa_occ_group *gr = &occ->groups.v[i];
		if (gr->status || gr->bp >= GPA_FINDING_LOW_OCC_BP ||
		    (double)gr->gpu_ns * 10000.0 < (double)occ->gpu_ns * GPA_FINDING_HOT_BP) {
			continue;
		}
		uint64_t cost = (uint64_t)((double)gr->gpu_ns *
					   (1.0 - (double)gr->bp / GPA_FINDING_LOW_OCC_BP));
		f->cost_ns += cost;
		f->count += gr->launches;
		f->count_ns += gr->gpu_ns;
		if (f->nev < GPA_FINDING_EVENTS) {
			f->ev[f->nev++] = (struct gpa_finding_event){
				.kind = GPA_FEV_KERNEL, .dev = gr->dev, .row = (uint32_t)i,
				.step = GPA_NONE, .ns = gr->gpu_ns, .count = gr->launches,
				.value_bp = gr->bp};
		}
	}
}

static void memory_finding(struct gpa_finding *f, const struct gpa_roofline *r)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_MEMORY,
		.conf = GPA_CONF_MEDIUM,
		.conf_reason = "bytes and FLOPs from the roofline file's formulas",
		.next = "gpuprof mfu --roofline FILE TRACE",
	};
	for (size_t i = 0; i < r->rows.n; i++) {
		const struct gpa_roof_row *row = &r->rows.v[i];
		if (row->bound != GPA_ROOF_MEMORY) {
			continue;
		}
		double eff = row->efficiency < 0 ? 0 : row->efficiency > 1 ? 1 : row->efficiency;
		f->cost_ns += (uint64_t)((double)row->gpu_ns * (1.0 - eff));
		f->count += row->launches;
		f->count_ns += row->gpu_ns;
		if (f->nev < GPA_FINDING_EVENTS) {
			f->ev[f->nev++] = (struct gpa_finding_event){
				.kind = GPA_FEV_KERNEL, .func_only = true, .row = row->func,
				.step = GPA_NONE, .ns = row->gpu_ns, .count = row->launches,
				.value_bp = (uint32_t)(eff * 10000.0 + 0.5)};
		}
	}
}

/* ---- copies */

enum { MEM_PAGEABLE = 1 }; /* CUpti_ActivityMemoryKind */

static void copy_finding(struct gpa_finding *f, const struct gpa_model *m)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_COPIES,
		.conf = GPA_CONF_MEDIUM,
		.conf_reason = "copy durations; a copy costs step time only when nothing overlaps it",
		.next = "gpuprof mfu TRACE",
	};
	for (size_t i = 0; i < gpa_copy_rows(m); i++) {
		uint8_t kind = gpa_copy_copy_kind(m, i);
		bool host = kind == 1 || kind == 2;
		bool pageable = gpa_copy_src_kind(m, i) == MEM_PAGEABLE ||
				gpa_copy_dst_kind(m, i) == MEM_PAGEABLE;
		bool small = host && gpa_copy_bytes(m, i) < GPA_FINDING_SMALL_COPY_BYTES;
		if (!pageable && !small) {
			continue;
		}
		uint64_t d = gpa_copy_end(m, i) - gpa_copy_start(m, i);
		f->cost_ns += d;
		f->count++;
		f->aux += pageable;
		f->aux2 += small;
		struct gpa_finding_event e = {.kind = GPA_FEV_COPY, .dev = gpa_copy_dev(m, i),
					      .row = (uint32_t)i, .step = GPA_NONE,
					      .start = gpa_copy_start(m, i), .ns = d, .count = 0};
		insert_event(f, &e);
	}
	f->count_ns = f->cost_ns;
	if (f->aux && f->aux == f->count) {
		f->conf = GPA_CONF_HIGH;
		f->conf_reason = "the copies' host memory is recorded as pageable";
	}
}

/* ---- bounded by the critical path */

#define CPB(c) (1u << (c))
#define HOST_CATS (CPB(GPA_CP_CPU) | CPB(GPA_CP_SYNC) | CPB(GPA_CP_LAUNCH) | CPB(GPA_CP_DATA))

/* The critical-path categories where a finding's cause shows, as a bit set. */
static unsigned path_cats(const struct gpa_finding *f)
{
	static const unsigned idle[GPA_GAP__COUNT] = {
		[GPA_GAP_PROFILER] = HOST_CATS,
		[GPA_GAP_SYNC] = CPB(GPA_CP_SYNC) | CPB(GPA_CP_CPU),
		[GPA_GAP_DATA] = CPB(GPA_CP_DATA),
		[GPA_GAP_MEMORY] = CPB(GPA_CP_CPU) | CPB(GPA_CP_SYNC) | CPB(GPA_CP_WARMUP),
		[GPA_GAP_JIT] = CPB(GPA_CP_WARMUP) | CPB(GPA_CP_CPU),
		[GPA_GAP_LAUNCH] = CPB(GPA_CP_LAUNCH) | CPB(GPA_CP_CPU),
		[GPA_GAP_CPU] = CPB(GPA_CP_CPU),
		[GPA_GAP_COMM] = CPB(GPA_CP_COMM) | CPB(GPA_CP_WAIT_RANK),
		[GPA_GAP_DEPENDENCY] = CPB(GPA_CP_WAIT_STREAM) | CPB(GPA_CP_IDLE),
		[GPA_GAP_STRAGGLER] = CPB(GPA_CP_WAIT_RANK),
		[GPA_GAP_UNKNOWN] = HOST_CATS | CPB(GPA_CP_IDLE),
	};

	switch (f->cat) {
	case GPA_FIND_IDLE:
	case GPA_FIND_PROFILER:
		return f->cause < GPA_GAP__COUNT ? idle[f->cause] : HOST_CATS;
	case GPA_FIND_LAUNCH:
		return CPB(GPA_CP_LAUNCH) | CPB(GPA_CP_CPU);
	case GPA_FIND_COMM:
		return CPB(GPA_CP_COMM);
	case GPA_FIND_STRAGGLER:
		return CPB(GPA_CP_WAIT_RANK);
	case GPA_FIND_OCCUPANCY:
	case GPA_FIND_MEMORY:
	case GPA_FIND_OLD_ARCH:
		return CPB(GPA_CP_KERNEL);
	case GPA_FIND_COPIES:
	case GPA_FIND_COPY_BOUND:
		return CPB(GPA_CP_COPY);
	case GPA_FIND_PRELUDE:
		return CPB(GPA_CP_CPU) | CPB(GPA_CP_DATA);
	default:
		return CPB(GPA_CP_WARMUP);
	}
}

/*
 * A finding's bound is at most its cause's time on the critical path: what
 * fixing it can recover from the steps. Off the path, nothing.
 */
static void path_bound(const struct gpa_findings *out, struct gpa_finding *f)
{
	unsigned cats = path_cats(f);
	uint64_t cap = 0;

	if (!out->on_path) {
		return;
	}
	for (unsigned k = 0; k < GPA_CP__COUNT; k++) {
		cap += (cats & CPB(k)) ? out->path_ns[k] : 0;
	}
	if (f->cost_ns > cap) {
		f->unbound_ns = f->cost_ns;
		f->cost_ns = cap;
		f->off_path = !cap;
	}
}

/* ---- from the verdict: copy-bound, host work before the GPU's, warm-up */

static void copy_bound_finding(struct gpa_finding *f, const struct gpa_model *m,
			       const struct gpa_bound_verdict *v)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_COPY_BOUND,
		.conf = GPA_CONF_HIGH,
		.conf_reason = "copies on the critical path of the steps",
		.next = "gpuprof critical-path TRACE",
	};
	if (v->bound != GPA_BOUND_COPY) {
		return;
	}
	f->cost_ns = v->cat_ns[GPA_CP_COPY];
	f->count = gpa_copy_rows(m) + gpa_set_rows(m);
	f->count_ns = v->cat_ns[GPA_CP_COPY];
	f->aux = v->copy_ns[GPA_CDIR_H2D];
	f->aux2 = v->copy_pageable_ns;
	for (size_t i = 0; i < gpa_copy_rows(m); i++) {
		uint64_t d = gpa_copy_end(m, i) - gpa_copy_start(m, i);
		struct gpa_finding_event e = {.kind = GPA_FEV_COPY, .dev = gpa_copy_dev(m, i),
					      .row = (uint32_t)i, .step = GPA_NONE,
					      .start = gpa_copy_start(m, i), .ns = d};
		insert_event(f, &e);
	}
}

/*
 * Host work before each step's first GPU op: with steps and enough GPU work,
 * at least GPA_FINDING_PRELUDE_PCT % of the steps' wall time.
 */
static void prelude_finding(struct gpa_finding *f, const struct gpa_bound_verdict *v)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_PRELUDE,
		.conf = GPA_CONF_MEDIUM,
		.conf_reason = "the host's time from each step's start to its first GPU op",
		.count_ns = v->wall_ns,
		.next = "gpuprof critical-path TRACE",
	};
	if (!v->whole && v->gpu_ops >= GPA_VERDICT_FEW_OPS &&
	    v->prelude_ns * 100 >= v->wall_ns * (uint64_t)GPA_FINDING_PRELUDE_PCT) {
		f->cost_ns = v->prelude_ns;
	}
}

static void warmup_finding(struct gpa_finding *f, const struct gpa_bound_verdict *v)
{
	*f = (struct gpa_finding){
		.cat = GPA_FIND_WARMUP,
		.conf = GPA_CONF_MEDIUM,
		.conf_reason = "one-off start-up: context, modules, first calls, first steps",
		.cost_ns = v->warm_ns,
		.count = v->warm_steps,
		.next = "gpuprof critical-path TRACE",
	};
}

static int keep(struct gpa_findings *out, struct gpa_finding *f);
static int keep_minor(struct gpa_findings *out, struct gpa_finding *f);

/* The verdict's own findings; warm-up is one-off, never material while steady steps run. */
static int verdict_findings(const struct gpa_findings_in *in, struct gpa_findings *out)
{
	struct gpa_finding f;
	int ret;

	copy_bound_finding(&f, in->m, in->verdict);
	ret = keep(out, &f);
	if (!ret) {
		prelude_finding(&f, in->verdict);
		ret = keep(out, &f);
	}
	if (!ret) {
		warmup_finding(&f, in->verdict);
		ret = in->verdict->bound == GPA_BOUND_WARMUP ? keep(out, &f) : keep_minor(out, &f);
	}
	return ret;
}

/* ---- kernels built for an older GPU */

/*
 * The architecture a kernel's name says it was built for (cuBLAS, cuDNN and
 * CUTLASS name their kernels so: "sm75_xmma_gemm_...", "sm80_...",
 * "volta_h884gemm_...", "turing_...", "ampere_..."), as major x 10 + minor;
 * 0 when the name says none.
 */
static unsigned name_arch(const char *s)
{
	static const struct {
		const char *prefix;
		unsigned arch;
	} families[] = {{"volta_", 70}, {"turing_", 75}, {"ampere_", 80}};

	for (size_t i = 0; i < GP_ARRAY_SIZE(families); i++) {
		if (!strncmp(s, families[i].prefix, strlen(families[i].prefix))) {
			return families[i].arch;
		}
	}
	for (const char *p = s; (p = strstr(p, "sm")); p += 2) {
		const char *d = p + 2 + (p[2] == '_');
		unsigned v = 0, n = 0;
		if (p > s && (isalnum((unsigned char)p[-1]))) {
			continue;
		}
		while (isdigit((unsigned char)d[n]) && n < 4) {
			v = v * 10 + (unsigned)(d[n++] - '0');
		}
		if ((n == 2 || n == 3) && (d[n] == '_' || (isalpha((unsigned char)d[n]) && d[n + 1] == '_'))) {
			return v;
		}
	}
	return 0;
}

/* The architecture of func f, looked up once (arch[f]: 0 not yet, 1 none, else the arch). */
static unsigned func_arch(const struct gpa_model *m, uint32_t f, uint16_t *arch)
{
	if (!arch[f]) {
		const struct gpa_func *fn = &m->funcs.v[f];
		unsigned a = name_arch(gpa_model_str(m, fn->demangled ? fn->demangled : fn->name));
		arch[f] = (uint16_t)(a ? a : 1);
	}
	return arch[f] > 1 ? arch[f] : 0;
}

/* Inserts func f with its time into the finding's evidence, longest first. */
static void arch_event(struct gpa_finding *f, const struct gpa_model *m, uint32_t fn, uint16_t dev,
		       uint64_t ns, uint64_t n, unsigned arch)
{
	const struct gpa_dev *d = &m->devs.v[dev];
	struct gpa_finding_event e = {.kind = GPA_FEV_ARCH, .func_only = true, .dev = dev,
				      .row = fn, .step = GPA_NONE, .ns = ns, .count = n,
				      .value_bp = arch * 1000 + d->cc_major * 10u + d->cc_minor};
	insert_event(f, &e);
}

/*
 * Kernels whose name says they were built for an architecture at least two
 * major generations older than the device that ran them (an sm75 tensor-op
 * GEMM on sm90): they cannot use the newer units. Bound: their time.
 */
static int old_arch_finding(struct gpa_finding *f, const struct gpa_model *m)
{
	uint16_t *arch = calloc(m->funcs.n + 1, sizeof(uint16_t));
	uint64_t *ns = calloc(m->funcs.n + 1, sizeof(uint64_t));
	uint64_t *cnt = calloc(m->funcs.n + 1, sizeof(uint64_t));
	uint16_t *dev = calloc(m->funcs.n + 1, sizeof(uint16_t));

	*f = (struct gpa_finding){
		.cat = GPA_FIND_OLD_ARCH,
		.conf = GPA_CONF_MEDIUM,
		.conf_reason = "the architecture is read from the kernel's name, the device's from "
			       "the trace",
		.next = "gpuprof stats --report cuda_gpu_kern_sum TRACE",
	};
	if (!arch || !ns || !cnt || !dev) {
		free(arch), free(ns), free(cnt), free(dev);
		return -GP_ERR_NOMEM;
	}
	for (size_t k = 0; k < gpa_kern_rows(m); k++) {
		uint32_t fn = gpa_kern_func(m, k);
		uint16_t d = gpa_kern_dev(m, k);
		unsigned a = fn < m->funcs.n ? func_arch(m, fn, arch) : 0;
		if (!a || d >= m->devs.n || !m->devs.v[d].cc_major ||
		    a / 10 + 2 > m->devs.v[d].cc_major) {
			continue;
		}
		ns[fn] += gpa_kern_dur(m, k);
		cnt[fn]++;
		dev[fn] = d;
	}
	for (uint32_t fn = 0; fn < m->funcs.n; fn++) {
		if (cnt[fn]) {
			f->cost_ns += ns[fn];
			f->count += cnt[fn];
			arch_event(f, m, fn, dev[fn], ns[fn], cnt[fn], arch[fn]);
		}
	}
	f->count_ns = f->cost_ns;
	free(arch), free(ns), free(cnt), free(dev);
	return 0;
}

/* ---- ranking */

static int cmp_cost(const void *x, const void *y)
{
	const struct gpa_finding *a = x, *b = y;

	if (a->cost_ns != b->cost_ns) {
		return a->cost_ns > b->cost_ns ? -1 : 1;
	}
	return (int)a->cat - (int)b->cat;
}

static int keep(struct gpa_findings *out, struct gpa_finding *f)
{
	path_bound(out, f);
	if (f->off_path) {
		f->material = f->major = false;
		return gp_vec_push(&out->minor, *f);
	}
	if (!f->cost_ns) {
		return 0;
	}
	f->material = is_material(f->cost_ns, out->basis_ns, GPA_FINDING_MATERIAL_BP);
	f->major = is_material(f->cost_ns, out->basis_ns, GPA_FINDING_MAJOR_BP);
	return f->material ? gp_vec_push(&out->v, *f) : gp_vec_push(&out->minor, *f);
}

/* Keeps f among the minor findings whatever its size (f->material stays false). */
static int keep_minor(struct gpa_findings *out, struct gpa_finding *f)
{
	path_bound(out, f);
	if (!f->cost_ns && !f->off_path) {
		return 0;
	}
	f->material = f->major = false;
	return gp_vec_push(&out->minor, *f);
}

/*
 * A trace that mostly recorded a graph: at least GPA_FINDING_CAPTURE_PCT % of
 * the GPU idle time lies inside stream captures (launches under capture run
 * nothing), and the idle outside them is not material. Sets
 * out->capture_idle_ns then.
 */
static int capture_rule(const struct gpa_findings_in *in, struct gpa_findings *out)
{
	uint64_t ns, idle = in->gaps ? in->gaps->all.idle : 0;
	int ret = gpa_capture_idle(in->m, &ns);

	if (ret || !idle || !ns) {
		return ret;
	}
	ns = ns < idle ? ns : idle;
	if (ns * 100 >= idle * (uint64_t)GPA_FINDING_CAPTURE_PCT &&
	    !is_material(idle - ns, out->basis_ns, GPA_FINDING_MATERIAL_BP)) {
		out->capture_idle_ns = ns;
	}
	return 0;
}

static int collect(const struct gpa_findings_in *in, struct gpa_findings *out)
{
	struct gpa_finding f;
	int ret = 0;

	if (in->gaps) {
		for (unsigned c = 0; c < GPA_GAP__COUNT && !ret; c++) {
			if (c == GPA_GAP_LAUNCH) {
				launch_finding(&f, in->m, in->gaps);
			} else {
				idle_finding(&f, in->gaps, c);
			}
			/* Idle that is mostly capture time is set-up, not a bottleneck. */
			ret = out->capture_idle_ns ? keep_minor(out, &f) : keep(out, &f);
		}
	}
	if (!ret && in->comm) {
		comm_finding(&f, in->comm);
		ret = keep(out, &f);
		if (!ret && in->comm->straggler != GPA_NONE &&
		    in->comm->straggler < in->comm->ranks.n) {
			straggler_finding(&f, in->comm);
			ret = keep(out, &f);
		}
	}
	if (!ret && in->occ) {
		/* theoretical occupancy alone is no evidence that a kernel underperforms */
		occupancy_finding(&f, in->occ);
		ret = keep_minor(out, &f);
	}
	if (!ret && in->mfu && in->mfu->roof.rows.n) {
		memory_finding(&f, &in->mfu->roof);
		ret = keep(out, &f);
	}
	if (!ret) {
		copy_finding(&f, in->m);
		ret = keep(out, &f);
	}
	if (!ret) {
		ret = old_arch_finding(&f, in->m);
		ret = ret ? ret : keep(out, &f);
	}
	if (!ret && in->verdict) {
		ret = verdict_findings(in, out);
	}
	return ret;
}

/* The memory findings of one pool, when its evidence reaches the thresholds. */
static int mem_pool_findings(const struct gpa_memory *r, uint32_t pi, struct gpa_findings *out)
{
	const struct gpa_mem_pool *p = &r->pools.v[pi];
	const struct gpa_mem_owner *top = p->owners.n ? &p->owners.v[0] : NULL;
	uint64_t frag = p->peak_reserved > p->peak ? p->peak_reserved - p->peak : 0;

	if (p->host) {
		return 0;
	}
	if (p->capacity && p->peak >= p->capacity / 100 * GPA_FINDING_MEM_PEAK_PCT) {
		struct gpa_mem_finding f = {.kind = GPA_MEMF_PEAK, .pool = pi, .bytes = p->peak,
					    .of = p->capacity, .phase = p->peak_phase};
		if (top) {
			f.owner = top->name;
			f.owner_bytes = top->bytes;
		}
		if (gp_vec_push(&out->mem, f)) {
			return -GP_ERR_NOMEM;
		}
	}
	if (p->leak && p->leak_per_step >= GPA_FINDING_MEM_LEAK_BYTES) {
		struct gpa_mem_finding f = {.kind = GPA_MEMF_LEAK, .pool = pi,
					    .bytes = p->leak_per_step, .of = p->steps.n};
		if (p->leak_sites.n) {
			f.owner = p->leak_sites.v[0].name;
			f.owner_bytes = p->leak_sites.v[0].bytes;
		}
		if (gp_vec_push(&out->mem, f)) {
			return -GP_ERR_NOMEM;
		}
	}
	if (p->has_reserved && frag >= GPA_FINDING_MEM_FRAG_BYTES &&
	    frag >= p->peak_reserved / 100 * GPA_FINDING_MEM_FRAG_PCT) {
		struct gpa_mem_finding f = {.kind = GPA_MEMF_FRAG, .pool = pi, .bytes = frag,
					    .of = p->peak_reserved};
		if (gp_vec_push(&out->mem, f)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

static int mem_findings(const struct gpa_findings_in *in, struct gpa_findings *out)
{
	out->memory = in->memory;
	for (uint32_t i = 0; in->memory && i < in->memory->pools.n; i++) {
		if (mem_pool_findings(in->memory, i, out)) {
			return -GP_ERR_NOMEM;
		}
	}
	return 0;
}

int gpa_findings_build(const struct gpa_findings_in *in, struct gpa_findings *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->threshold_bp = GPA_FINDING_MATERIAL_BP;
	if (mem_findings(in, out)) {
		return -GP_ERR_NOMEM;
	}
	out->gaps = in->gaps;
	out->basis_ns = in->gaps ? in->gaps->all.window : 0;
	if (!out->basis_ns) {
		out->verdict = GPA_VERDICT_NO_GPU;
		return 0;
	}
	/*
	 * The paths cover the steps: GPU work outside every step, or steps that
	 * leave much of the trace out, keep the estimated bounds.
	 */
	if (in->verdict && (in->verdict->whole || ((!in->steps || !in->steps->unassigned_ops) &&
						   in->verdict->cover_bp >= GPA_VERDICT_COVER_BP))) {
		out->on_path = true;
		memcpy(out->path_ns, in->verdict->all_ns, sizeof(out->path_ns));
	}
	ret = capture_rule(in, out);
	if (!ret) {
		ret = collect(in, out);
	}
	if (ret) {
		return ret;
	}
	gp_qsort(out->v.v, out->v.n, sizeof(*out->v.v), cmp_cost);
	gp_qsort(out->minor.v, out->minor.n, sizeof(*out->minor.v), cmp_cost);
	for (size_t i = 0; i < out->v.n; i++) {
		out->total_ns += out->v.v[i].cost_ns;
	}
	for (size_t i = 0; i < out->minor.n; i++) {
		out->minor_ns += out->minor.v[i].cost_ns;
	}
	if (out->total_ns > out->basis_ns) {
		out->total_ns = out->basis_ns;
	}
	out->verdict = out->v.n ? GPA_VERDICT_MATERIAL : GPA_VERDICT_NONE;
	if (gpa_gpu_rows(in->m) < GPA_FINDING_FEW_OPS) {
		for (size_t i = 0; i < out->v.n; i++) {
			out->v.v[i].conf = GPA_CONF_LOW;
			out->v.v[i].conf_reason = "too few GPU operations in the trace to judge";
		}
	}
	return 0;
}

void gpa_findings_release(struct gpa_findings *f)
{
	if (!f) {
		return;
	}
	gp_vec_free(&f->v);
	gp_vec_free(&f->minor);
	gp_vec_free(&f->mem);
}
