/* SPDX-License-Identifier: MIT */
/*
 * report.c - the analyses `gpuprof report` shows, in one call (report.h).
 *
 * Order and threads, the same output on any number of them:
 *  1. the communication classification on a thread while the steps are
 *     found (the steps' error first when both fail);
 *  2. the verdict (the critical path of the steps, or of the whole trace in
 *     one window when the steps cover less than GPA_VERDICT_COVER_BP of it)
 *     on a thread of its own (the later half of the steps on another), and the side analyses that read only the
 *     model and the steps (kernel summary, launches, memory, occupancy,
 *     MFU, operators) on another, while the calling thread finds the gaps,
 *     the overview and the communication;
 *  3. the findings from all of them; for the HTML page, its shaded gaps,
 *     flame graph, critical path and roofline.
 * Each analysis reads the model and writes only its own result; errors are
 * taken after every thread is done, in the order one thread meets them.
 */
#include "base/compat.h"
#include "analyze/report.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ERRLEN 512

void gpa_report_opts_init(struct gpa_report_opts *o)
{
	memset(o, 0, sizeof(*o));
	gpa_gaps_opts_init(&o->gaps);
	o->kname = GPA_KNAME_DEMANGLED;
	o->threads = 1;
}

/* An error as the command says it: the callee's detail, else what ret means. */
static int fail(int ret, const char *err, char *errbuf, size_t errlen)
{
	/* out of memory, a callee may leave err unwritten: its detail only when it says so */
	if (ret == -GP_ERR_NOMEM && !strstr(err, "out of memory")) {
		err = "";
	}
	snprintf(errbuf, errlen, "%s", err[0] ? err : gp_err_str(ret));
	return ret;
}

/* Runs fn(arg) on a thread when threads > 1 (true), else at once (false). */
static bool start(unsigned threads, pthread_t *th, void *(*fn)(void *), void *arg)
{
	if (threads > 1 && pthread_create(th, NULL, fn, arg) == 0) {
		return true;
	}
	fn(arg);
	return false;
}

struct job {
	const struct gpa_model *m;
	const struct gpa_report_opts *o;
	struct gpa_report *r;
	int ret;
	bool nomem;
	char err[ERRLEN];
};

static void *commclass_main(void *arg)
{
	struct job *j = arg;
	struct gpa_commclass_opts co = {j->o->comm_rules, j->o->ncomm_rules};

	j->err[0] = '\0';
	j->ret = gpa_commclass_compute(j->m, &co, &j->r->cc, j->err, sizeof(j->err));
	return NULL;
}

/* The steps, and the communication classification beside them. */
static int steps_and_classes(const struct gpa_model *m, const struct gpa_report_opts *o,
			     struct gpa_report *r, char *errbuf, size_t errlen)
{
	struct job cj = {.m = m, .o = o, .r = r};
	char err[ERRLEN] = "";
	pthread_t th;
	bool threaded = start(o->threads, &th, commclass_main, &cj);
	int ret = gpa_steps_find(m, o->step_regex, &r->steps, err, sizeof(err));

	if (threaded) {
		pthread_join(th, NULL);
	}
	if (ret) {
		return fail(ret, err, errbuf, errlen);
	}
	return cj.ret ? fail(cj.ret, cj.err, errbuf, errlen) : 0;
}

/*
 * The verdict: what bounds the steps, from their critical path (the copies'
 * directions read the path's events). Steps that leave much of the trace
 * out: the whole trace is the unit judged.
 */
static void *verdict_main(void *arg)
{
	struct job *j = arg;
	struct gpa_report *r = j->r;
	struct gpa_critpath_opts cpo = {.comm = &r->cc, .data_regex = j->o->gaps.data_regex,
					.threads = j->o->threads};
	struct gpa_critpath cp = {0};
	struct gpa_bound_verdict *vd = &r->verdict;
	int ret = gpa_critpath_analyze(j->m, &r->steps, &cpo, &cp, j->err, sizeof(j->err));

	if (!ret) {
		ret = gpa_verdict_build(j->m, &r->steps, &cp, vd);
		snprintf(j->err, sizeof(j->err), "out of memory");
	}
	if (!ret && !vd->whole && vd->cover_bp < GPA_VERDICT_COVER_BP) {
		uint32_t cover = vd->cover_bp;
		cpo.window = true;
		cpo.win_start = j->m->t0;
		cpo.win_end = UINT64_MAX;
		gpa_critpath_release(&cp);
		ret = gpa_critpath_analyze(j->m, &r->steps, &cpo, &cp, j->err, sizeof(j->err));
		if (!ret) {
			ret = gpa_verdict_build(j->m, NULL, &cp, vd);
			snprintf(j->err, sizeof(j->err), "out of memory");
			vd->cover_bp = cover;
		}
	}
	gpa_critpath_release(&cp);
	j->ret = ret;
	return NULL;
}

/* --device NAME also stands for devices the trace does not describe (occupancy). */
static void occ_gpu(const struct gpa_mfu_opts *mfu, struct gpa_occ_opts *occ_opts)
{
	const struct gpa_peak_opts *p = &mfu->peaks;
	const struct gpa_devrow *gpu = p->device ? gpa_device_find(p->device, p->user, p->nuser)
						 : NULL;
	if (gpu) {
		occ_opts->gpu_cc_major = gpu->cc_major;
		occ_opts->gpu_cc_minor = gpu->cc_minor;
		occ_opts->gpu_sms = gpu->sms;
	}
}

/* The GPU memory section and memory findings; the Launches section (the commands' defaults). */
static bool memory_and_launches(const struct gpa_model *m, struct gpa_report *r)
{
	struct gpa_memory_opts mo;
	struct gpa_launches_opts lo;
	char err[128];

	gpa_launches_opts_init(&lo);
	lo.brief = true;
	gpa_memory_opts_init(&mo);
	mo.steps = &r->steps;
	return gpa_launches_analyze(m, &lo, &r->launches, err, sizeof(err)) ||
	       gpa_memory_analyze(m, &mo, &r->memory, err, sizeof(err));
}

/* The analyses that read only the model and the steps. */
static void *side_main(void *arg)
{
	struct job *j = arg;
	struct gpa_report *r = j->r;
	const struct gpa_mfu_opts *mfu = j->o->mfu;
	struct gpa_occ_opts occ_opts = {.device = -1};
	struct gpa_ops_opts opo = {.top = 5, .peaks = mfu->peaks};

	j->err[0] = '\0';
	j->nomem = gpa_stats_compute(j->m, GPA_STATS_KERN_SUM, j->o->kname, &r->kernels) ||
		   memory_and_launches(j->m, r);
	if (j->nomem) {
		return NULL;
	}
	occ_gpu(mfu, &occ_opts);
	j->ret = gpa_occupancy_analyze(j->m, &r->steps, &occ_opts, &r->occ, j->err, sizeof(j->err));
	if (!j->ret) {
		j->ret = gpa_mfu_analyze(j->m, &r->steps, mfu, &r->mfu, j->err, sizeof(j->err));
	}
	if (!j->ret) {
		j->ret = gpa_ops_analyze(j->m, &opo, &r->ops, j->err, sizeof(j->err));
	}
	return NULL;
}

/*
 * Operators faster than the device's peak (gpa_ops_implausible_sentence)
 * join the overview's warnings once both are built: the report's warnings
 * section, in every format, says what `ops` says.
 */
static int implausible_ops(struct gpa_report *r)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	int ret;

	if (!r->ops.implausible) {
		return 0;
	}
	ret = gpa_ops_implausible_sentence(&sb, &r->ops);
	if (!ret) {
		ret = gpa_overview_warn(&r->ov, sb.buf);
	}
	gp_strbuf_release(&sb);
	return ret;
}

/* Gaps, overview and communication on the calling thread, the verdict and side beside them. */
static int middle(const struct gpa_model *m, const struct gpa_report_opts *o,
		  const struct gpa_gaps_opts *go, struct gpa_report *r, char *errbuf, size_t errlen)
{
	struct gpa_mfu_opts mfu_defaults = {0};
	struct gpa_report_opts so = *o;
	struct job vj = {.m = m, .o = o, .r = r}, sj = {.m = m, .o = &so, .r = r};
	struct gpa_comm_opts co;
	char err[ERRLEN] = "", cerr[ERRLEN] = "";
	pthread_t vth, sth;
	int ret, cret = 0;
	bool ov_nomem;

	so.mfu = o->mfu ? o->mfu : &mfu_defaults;
	bool vthreaded = start(o->threads, &vth, verdict_main, &vj);
	bool sthreaded = start(o->threads, &sth, side_main, &sj);
	gpa_comm_opts_init(&co);
	co.steps = &r->steps;
	co.comm = &r->cc;
	ret = gpa_gaps_analyze(m, &r->steps, go, &r->gaps, err, sizeof(err));
	ov_nomem = !ret && gpa_overview_build(m, &r->steps, &r->ov);
	if (!ret && !ov_nomem) {
		cret = gpa_comm_analyze(m, &co, &r->comm, cerr, sizeof(cerr));
	}
	if (sthreaded) {
		pthread_join(sth, NULL);
	}
	if (vthreaded) {
		pthread_join(vth, NULL);
	}
	if (ret) {
		return fail(ret, err, errbuf, errlen);
	}
	if (ov_nomem || sj.nomem) {
		return fail(-GP_ERR_NOMEM, "out of memory", errbuf, errlen);
	}
	if (sj.ret) {
		return fail(sj.ret, sj.err, errbuf, errlen);
	}
	if (cret) {
		return fail(cret, cerr, errbuf, errlen);
	}
	if (vj.ret) {
		snprintf(errbuf, errlen, "%s", vj.err);
		return vj.ret;
	}
	return implausible_ops(r) ? fail(-GP_ERR_NOMEM, "out of memory", errbuf, errlen) : 0;
}

/* One rank of the job report: each analysis after the other on the calling thread. */
static int rank_parts(const struct gpa_model *m, const struct gpa_gaps_opts *go,
		      struct gpa_report *r, char *errbuf, size_t errlen)
{
	struct gpa_comm_opts co;
	char err[ERRLEN] = "";
	int ret = gpa_gaps_analyze(m, &r->steps, go, &r->gaps, err, sizeof(err));

	gpa_comm_opts_init(&co);
	co.steps = &r->steps;
	co.comm = &r->cc;
	if (!ret) {
		ret = gpa_comm_analyze(m, &co, &r->comm, err, sizeof(err));
	}
	return ret ? fail(ret, err, errbuf, errlen) : 0;
}

/* The HTML page's parts: shaded gaps, flame graph, critical path, the roofline's operators. */
static int page_parts(struct gpa_model *m, const struct gpa_report_opts *o,
		      const struct gpa_gaps_opts *go, struct gpa_report *r, char *errbuf,
		      size_t errlen)
{
	struct gpa_gaps_opts so = *go;
	struct gpa_flame_opts fo;
	struct gpa_critpath_opts cpo = {.comm = &r->cc, .top = 5, .threads = o->threads};
	struct gpa_ops_opts opo = {.top = 0};
	char err[ERRLEN] = "";
	int ret;

	/* every gap of at least 1 us, up to a bound */
	so.min_gap_ns = 1000;
	so.top = 4 * o->page_events;
	gpa_flame_opts_init(&fo);
	fo.comm = &r->cc;
	fo.data_regex = o->gaps.data_regex;
	if (!o->keep_layers) {
		fo.flags |= GPA_FLAME_MERGE_LAYERS; /* 36 decoder layers as one frame */
	}
	if (o->mfu) {
		opo.peaks = o->mfu->peaks;
	}
	ret = gpa_gaps_analyze(m, &r->steps, &so, &r->shade, err, sizeof(err));
	if (!ret) {
		ret = gpa_flame_build(m, &fo, &r->flame, err, sizeof(err));
	}
	if (!ret) {
		ret = gpa_critpath_analyze(m, &r->steps, &cpo, &r->critpath, err, sizeof(err));
	}
	/* the roofline draws every input set, the report's tables the top ones */
	if (!ret && r->ops.cpu_ops_shaped) {
		ret = gpa_ops_analyze(m, &opo, &r->roofline, err, sizeof(err));
		r->has_roofline = !ret;
	}
	return ret ? fail(ret, err, errbuf, errlen) : 0;
}

/* The gaps the report lists, and the view of them it shows. */
static void gaps_shown(const struct gpa_report_opts *o, struct gpa_report *r)
{
	r->shown = r->gaps;
	r->shown.top_n = o->gaps.top;
	if (r->shown.top.n > o->gaps.top) {
		r->shown.top.n = o->gaps.top;
	}
}

static int build(struct gpa_model *m, const struct gpa_report_opts *o, struct gpa_report *r,
		 char *errbuf, size_t errlen)
{
	struct gpa_gaps_opts go = o->gaps;
	struct gpa_findings_in fin = {.m = m, .steps = &r->steps, .gaps = &r->gaps,
				      .comm = &r->comm};
	int ret = steps_and_classes(m, o, r, errbuf, errlen);

	if (ret) {
		return ret;
	}
	go.comm = &r->cc;
	if (o->kind == GPA_REPORT_RANK) {
		ret = rank_parts(m, &go, r, errbuf, errlen);
	} else {
		/* the findings' evidence draws on more of the longest gaps than the report lists */
		go.top = go.top < GPA_REPORT_FINDING_GAPS ? GPA_REPORT_FINDING_GAPS : go.top;
		ret = middle(m, o, &go, r, errbuf, errlen);
		fin.occ = &r->occ;
		fin.mfu = &r->mfu;
		fin.memory = &r->memory;
		fin.verdict = &r->verdict;
	}
	if (ret) {
		return ret;
	}
	if (gpa_findings_build(&fin, &r->findings)) {
		return fail(-GP_ERR_NOMEM, "out of memory", errbuf, errlen);
	}
	gaps_shown(o, r);
	return o->kind == GPA_REPORT_PAGE ? page_parts(m, o, &go, r, errbuf, errlen) : 0;
}

int gpa_report_build(struct gpa_model *m, const struct gpa_report_opts *o,
		     struct gpa_report **out, char *errbuf, size_t errlen)
{
	struct gpa_report *r;
	int ret;

	*out = NULL;
	if (!m || !o || o->kind > GPA_REPORT_RANK) {
		snprintf(errbuf, errlen, "report: bad arguments");
		return -GP_ERR_API;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		return fail(-GP_ERR_NOMEM, "out of memory", errbuf, errlen);
	}
	ret = build(m, o, r, errbuf, errlen);
	if (ret) {
		gpa_report_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void gpa_report_free(struct gpa_report *r)
{
	if (!r) {
		return;
	}
	gpa_ops_release(&r->roofline);
	gpa_critpath_release(&r->critpath);
	gpa_flame_release(&r->flame);
	gpa_gaps_release(&r->shade);
	gpa_ops_release(&r->ops);
	gpa_memory_release(&r->memory);
	gpa_launches_release(&r->launches);
	gpa_findings_release(&r->findings);
	gpa_mfu_release(&r->mfu);
	gpa_occupancy_release(&r->occ);
	gpa_stats_release(&r->kernels);
	gpa_comm_release(&r->comm);
	gpa_commclass_release(&r->cc);
	gpa_overview_release(&r->ov);
	gpa_gaps_release(&r->gaps);
	gpa_steps_release(&r->steps);
	free(r);
}
