/* SPDX-License-Identifier: MIT */
/*
 * analyses.c - libgpuprof's analyses: each runs as its command runs it
 * (cli/cmd-<name>.c) with the handle's options and the command's defaults,
 * and is rendered by the command's own JSON renderer, so a table's name
 * and columns come from one place.
 */
#define GP_LOG_TAG "api/analyses"
#include "base/compat.h"
#include "api/internal.h"
#include "analyze/breakdown.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/diff.h"
#include "analyze/gaps.h"
#include "analyze/memory.h"
#include "analyze/ops.h"
#include "report/breakdown.h"
#include "report/critpath.h"
#include "report/diff.h"
#include "report/gaps.h"
#include "report/memory.h"
#include "report/ops.h"
#include "report/report.h"

#include <stdio.h>

void gpuprof_report_args_init(struct gpuprof_report_args *a)
{
	memset(a, 0, sizeof(*a));
	gpa_report_opts_init(&a->ro);
	a->ro.gaps.top = 10;
	a->top_kernels = 10;
	a->max_steps = 50;
	a->mfu_dtype = GPA_DT_BF16;
}

int gpuprof_report_compute(struct gpa_model *m, const struct gpuprof_report_args *a,
			   struct gpa_report **r, struct gpr_report_parts *p, char *errbuf,
			   size_t errlen)
{
	int ret = gpa_report_build(m, &a->ro, r, errbuf, errlen);

	if (ret) {
		return ret;
	}
	*p = (struct gpr_report_parts){
		.m = m,
		.steps = &(*r)->steps,
		.ov = &(*r)->ov,
		.gaps = &(*r)->shown,
		.kernels = &(*r)->kernels,
		.top_kernels = a->top_kernels,
		.max_steps = a->max_steps,
		.occ = &(*r)->occ,
		.mfu = &(*r)->mfu,
		.mfu_dtype = a->mfu_dtype,
		.comm = &(*r)->comm,
		.findings = &(*r)->findings,
		.verdict = &(*r)->verdict,
		.launches = &(*r)->launches,
		.ops = &(*r)->ops,
		.memory = &(*r)->memory,
	};
	return 0;
}

const struct gpa_steps *api_steps(struct gpuprof_trace *t, int *ret)
{
	if (!t->has_steps) {
		*ret = gpa_steps_find(&t->m, t->step_regex, &t->steps, t->err, sizeof(t->err));
		if (*ret) {
			return NULL;
		}
		t->has_steps = true;
	}
	*ret = 0;
	return &t->steps;
}

static int oom(struct gpuprof_trace *t)
{
	snprintf(t->err, sizeof(t->err), "out of memory");
	return -GP_ERR_NOMEM;
}

static int report_json(struct gpuprof_trace *t, struct gp_strbuf *out)
{
	struct gpuprof_report_args a;
	struct gpa_mfu_opts mfu;
	struct gpa_report *r = NULL;
	struct gpr_report_parts parts;
	int ret;

	gpuprof_report_args_init(&a);
	memset(&mfu, 0, sizeof(mfu));
	mfu.dtype = GPA_DT_BF16;
	mfu.peaks.dtype = GPA_DT_BF16;
	a.ro.step_regex = t->step_regex;
	a.ro.comm_rules = (const char *const *)t->comm;
	a.ro.ncomm_rules = t->ncomm;
	a.ro.gaps.data_regex = t->data_regex;
	a.ro.mfu = &mfu;
	a.ro.threads = t->threads;
	a.top_kernels = api_top(t, a.top_kernels);
	a.ro.gaps.top = a.top_kernels;
	if (t->aopts.min_gap_ns) {
		a.ro.gaps.min_gap_ns = (uint64_t)t->aopts.min_gap_ns;
	}
	ret = gpuprof_report_compute(&t->m, &a, &r, &parts, t->err, sizeof(t->err));
	if (!ret && gpr_report_render(out, GPR_FORMAT_JSON, &parts)) {
		ret = oom(t);
	}
	gpa_report_free(r);
	return ret;
}

/* The analyses that take the steps and the communication classes. */
static int gaps_json(struct gpuprof_trace *t, const struct gpa_steps *steps,
		     const struct gpa_commclass *cc, struct gp_strbuf *out)
{
	struct gpa_gaps_opts go;
	struct gpa_gaps g;
	int ret;

	gpa_gaps_opts_init(&go);
	go.data_regex = t->data_regex;
	go.comm = cc;
	go.top = api_top(t, go.top);
	if (t->aopts.min_gap_ns) {
		go.min_gap_ns = (uint64_t)t->aopts.min_gap_ns;
	}
	ret = gpa_gaps_analyze(&t->m, steps, &go, &g, t->err, sizeof(t->err));
	if (ret) {
		return ret;
	}
	if (gpr_gaps_render(out, GPR_FORMAT_JSON, NULL, GPR_GAPS_DEFAULT, &t->m, steps, &g)) {
		ret = oom(t);
	}
	gpa_gaps_release(&g);
	return ret;
}

static int critpath_json(struct gpuprof_trace *t, const struct gpa_steps *steps,
			 const struct gpa_commclass *cc, struct gp_strbuf *out)
{
	struct gpa_critpath_opts co = {.comm = cc, .data_regex = t->data_regex,
					.top = api_top(t, 5)};
	struct gpa_critpath cp = {0};
	int ret = gpa_critpath_analyze(&t->m, steps, &co, &cp, t->err, sizeof(t->err));

	if (!ret && gpr_critpath_render(out, GPR_FORMAT_JSON, NULL, &t->m, steps, &cp)) {
		ret = oom(t);
	}
	gpa_critpath_release(&cp);
	return ret;
}

/* a: GPUPROF_BREAKDOWN, or one of its HTA modes. */
static int breakdown_json(struct gpuprof_trace *t, enum gpuprof_analysis a,
			  const struct gpa_commclass *cc, struct gp_strbuf *out)
{
	struct gpa_breakdown_opts bo;
	struct gpa_breakdown b = {0};
	int ret;

	gpa_breakdown_opts_init(&bo);
	bo.comm = cc;
	bo.flags = a == GPUPROF_BREAKDOWN_HTA		? GPA_BD_COMPAT_HTA
		   : a == GPUPROF_BREAKDOWN_HTA_NOROUND ? GPA_BD_COMPAT_HTA_NOROUND
							: 0;
	ret = gpa_breakdown_compute(&t->m, &bo, &b);
	if (ret || gpr_breakdown_render(out, GPR_FORMAT_JSON, NULL, GPR_BD_ALL, &b)) {
		ret = oom(t);
	}
	gpa_breakdown_release(&b);
	return ret;
}

static int with_comm(struct gpuprof_trace *t, enum gpuprof_analysis a, struct gp_strbuf *out)
{
	struct gpa_commclass_opts co = {(const char *const *)t->comm, t->ncomm};
	struct gpa_commclass cc = {0};
	int ret = 0;
	bool bd = a == GPUPROF_BREAKDOWN || a == GPUPROF_BREAKDOWN_HTA ||
		  a == GPUPROF_BREAKDOWN_HTA_NOROUND;
	const struct gpa_steps *steps = bd ? NULL : api_steps(t, &ret);

	if (ret) {
		return ret;
	}
	ret = gpa_commclass_compute(&t->m, &co, &cc, t->err, sizeof(t->err));
	if (!ret) {
		ret = a == GPUPROF_GAPS ? gaps_json(t, steps, &cc, out)
		      : bd		? breakdown_json(t, a, &cc, out)
					: critpath_json(t, steps, &cc, out);
	}
	gpa_commclass_release(&cc);
	return ret;
}

static int ops_json(struct gpuprof_trace *t, struct gp_strbuf *out)
{
	struct gpa_ops_opts oo = {.top = api_top(t, 20)};
	struct gpa_ops r;
	int ret = gpa_ops_analyze(&t->m, &oo, &r, t->err, sizeof(t->err));

	if (ret) {
		return ret;
	}
	if (gpr_ops_render(out, GPR_FORMAT_JSON, NULL, GPR_OPS_ALL, &r)) {
		ret = oom(t);
	}
	gpa_ops_release(&r);
	return ret;
}

static int memory_json(struct gpuprof_trace *t, struct gp_strbuf *out)
{
	struct gpa_memory_opts mo;
	struct gpa_memory r;
	int ret;
	const struct gpa_steps *steps = api_steps(t, &ret);

	if (!steps) {
		return ret;
	}
	gpa_memory_opts_init(&mo);
	mo.steps = steps;
	gpa_memory_opts_gaps(&mo, &t->m, steps);
	ret = gpa_memory_analyze(&t->m, &mo, &r, t->err, sizeof(t->err));
	if (ret) {
		return ret;
	}
	if (gpr_memory_render(out, GPR_FORMAT_JSON, NULL, GPR_MEM_DEFAULT, &t->m, &r)) {
		ret = oom(t);
	}
	gpa_memory_release(&r);
	return ret;
}

int api_diff_json(struct gpuprof_trace *a, struct gpuprof_trace *b, struct gp_strbuf *out)
{
	static const char *const gate[] = {"step.wall"}; /* the command's --fail-on */
	struct gpa_diff_opts o;
	struct gpa_diff *d = NULL;
	struct gpa_diff_result r = {0};
	int ret;

	gpa_diff_opts_init(&o);
	o.step_regex = b->step_regex;
	o.data_regex = b->data_regex;
	o.fail_on = gate;
	o.nfail_on = 1;
	o.comm_rules = (const char *const *)b->comm;
	o.ncomm_rules = b->ncomm;
	ret = gpa_diff_new(&o, &d, b->err, sizeof(b->err));
	if (!ret) {
		ret = gpa_diff_add_run(d, 0, &a->m, a->label, b->err, sizeof(b->err));
	}
	if (!ret) {
		ret = gpa_diff_add_run(d, 1, &b->m, b->label, b->err, sizeof(b->err));
	}
	if (!ret && (gpa_diff_compute(d, &r) || gpr_diff_json(out, NULL, &r))) {
		ret = oom(b);
	}
	gpa_diff_result_release(&r);
	gpa_diff_free(d);
	return ret;
}

int api_analysis_json(struct gpuprof_trace *t, enum gpuprof_analysis a, struct gp_strbuf *out)
{
	int ret;

	switch (a) {
	case GPUPROF_REPORT:
		ret = report_json(t, out);
		break;
	case GPUPROF_GAPS:
	case GPUPROF_CRITICAL_PATH:
	case GPUPROF_BREAKDOWN:
	case GPUPROF_BREAKDOWN_HTA:
	case GPUPROF_BREAKDOWN_HTA_NOROUND:
		ret = with_comm(t, a, out);
		if (!ret && gpr_sanity_append(out, GPR_FORMAT_JSON, &t->m)) {
			ret = oom(t);
		}
		break;
	case GPUPROF_OPS:
	case GPUPROF_MEMORY:
		ret = a == GPUPROF_OPS ? ops_json(t, out) : memory_json(t, out);
		if (!ret && gpr_sanity_append(out, GPR_FORMAT_JSON, &t->m)) {
			ret = oom(t);
		}
		break;
	default:
		snprintf(t->err, sizeof(t->err), "unknown analysis %d", (int)a);
		return -GP_ERR_API;
	}
	return ret;
}
