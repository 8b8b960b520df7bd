/* SPDX-License-Identifier: MIT */
/*
 * gpuprof report - the one-stop answer: what was traced, step times, GPU
 * busy and idle by cause, top kernels, memory traffic, the longest gaps,
 * warnings.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/commclass.h"
#include "analyze/findings.h"
#include "analyze/flame.h"
#include "analyze/gaps.h"
#include "analyze/launches.h"
#include "analyze/critpath.h"
#include "analyze/ops.h"
#include "analyze/memory.h"
#include "analyze/mfu.h"
#include "analyze/occupancy.h"
#include "analyze/overview.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "analyze/verdict.h"
#include "cli/cli.h"
#include "report/report.h"

#include <pthread.h>

struct report_opts {
	enum gpr_format format;
	bool html;
	const char *output;
	size_t html_events;
	const char *step_regex;
	size_t top, max_steps;
	enum gpa_kernel_name kname;
	struct gpa_gaps_opts gaps;
	struct cli_mfu mfu;
	struct cli_comm_rules comm;
	bool force;    /* an output may go into an input directory */
	bool job, mpi; /* the job report: --job in one process, --mpi shared among MPI processes */
};

static int parse_format(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

static const struct cli_enum_value knames[] = {
	{"short", GPA_KNAME_SHORT},
	{"demangled", GPA_KNAME_DEMANGLED},
	{"mangled", GPA_KNAME_MANGLED},
	{NULL, 0},
};

static const struct cli_option report_options[] = {
	CLI_OPT_GROUP("options:\n", 26, 6),
	CLI_OPT_CB('f', "format", "FORMAT", parse_format,
		   "text (default), json, markdown, or html: one\n"
		   "self-contained page (docs/html-report.md)"),
	CLI_OPT_STR('o', "output", "FILE", struct report_opts, output,
		    "write there instead of standard output ('-' is standard\n"
		    "output; a link's target, a device or FIFO in place:\n"
		    "docs/reliability.md)"),
	CLI_OPT_UINTV(0, "html-events", "N", struct report_opts, html_events, 1, 1000000000,
		      "bad count '%s'", "timeline events the HTML page embeds (200000)"),
	CLI_OPT_RE(0, "step", "REGEX", struct report_opts, step_regex, "step pattern",
		   "NVTX ranges that are steps (PCRE2; default\n"
		   "ProfilerStep#N, else annotations that repeat\n"
		   "around most GPU work; docs/report.md)"),
	CLI_OPT_RE(0, "data-loader", "REGEX", struct report_opts, gaps.data_regex,
		   "data-loader pattern",
		   "range names that are data loading (PCRE2; default\n"
		   "the DataLoader iterator, torch/utils/data/ frames,\n"
		   "data.?load, load/fetch/next/get.?batch;\n"
		   "docs/gaps.md)"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "kernels and gaps listed (10)",
	 CLI_FIELD_(struct report_opts, top), .flags = CLI_OPTF_ALL, .umax = 1000000000,
	 .err = "bad count '%s'"},
	CLI_OPT_UINTV(0, "max-steps", "N", struct report_opts, max_steps, 0, 1000000000,
		      "bad count '%s'", "step rows in text and Markdown (50); JSON has all"),
	CLI_OPT_DUR(0, "min-gap", "DURATION", struct report_opts, gaps.min_gap_ns, 0,
		    "gaps listed are at least this long (10us)"),
	CLI_OPT_ENUMV(0, "kernel-name", "MODE", struct report_opts, kname, knames,
		      "unknown kernel-name mode '%s'", "short, demangled (default) or mangled"),
	CLI_OPT_SUB(cli_comm_options, struct report_opts, comm, 0),
	CLI_OPT_BOOL(0, "force", struct report_opts, force,
		     "let -o write a trace-named file (.json) into an\n"
		     "input directory, where the next run reads it"),
	CLI_OPT_BOOL(0, "job", struct report_opts, job,
		     "the job report: each trace analysed alone, then\n"
		     "stragglers, skew, slow ranks (docs/cluster.md)"),
	CLI_OPT_BOOL(0, "mpi", struct report_opts, mpi,
		     "the job report under mpirun or srun: the MPI\n"
		     "processes share the traces (docs/cluster.md)"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	/* The MFU options of gpuprof mfu (cli/cmd-mfu.c), named in the text below. */
	CLI_OPT_SUB(cli_mfu_options, struct report_opts, mfu, CLI_OPTF_HIDDEN),
	CLI_OPT_END(),
};

const struct cli_command cmd_report_opts = {
	.usage =
	"usage: gpuprof report [--format text|json|markdown|html] [-o FILE] [--step REGEX]\n"
	"                      [--data-loader REGEX] [--top N|all] [--max-steps N]\n"
	"                      [--min-gap DURATION] [--comm-kernel REGEX]... TRACE...\n"
	"       gpuprof report --job|--mpi [--format text|json|markdown] [-o FILE] TRACE...\n"
	"\n"
	"Reads traces (files, or directories of .gpz files: many processes and ranks\n"
	"go on one timeline) and prints, in order: what was traced (processes,\n"
	"devices, span, losses); the step table with its distribution (median, p90,\n"
	"min, max); GPU busy and idle by cause; the top kernels by GPU time with\n"
	"their share; memory traffic; the longest idle gaps with their cause, step\n"
	"and NVTX context; warnings (records lost, files cut short, steps missing).\n"
	"Text shows times in 3-4 digits and names that fit the terminal\n"
	"(--timeunit ns, --wide; docs/units.md); JSON keeps exact nanoseconds and\n"
	"whole names. The JSON schema is in docs/report.md.\n"
	"\n",
	.options = report_options,
	.footer =
	"\n"
	"Kernel efficiency: a \"Theoretical occupancy\" section (docs/occupancy.md)\n"
	"and copy bandwidth against the link always; a \"Utilization\" section (MFU,\n"
	"HFU, MBU) when FLOPs, a model or bytes per step are given with the options\n"
	"of 'gpuprof mfu' (--flops-per-step, --params, --tokens-per-step, --attention,\n"
	"--layers, --hidden, --seq-len, --inference, --recompute, --bytes-per-step,\n"
	"--gpus, --dtype, --device, --device-file, --peak-tflops, --peak-bw), and a\n"
	"\"Roofline\" section with --roofline FILE (FLOP and byte formulas per kernel;\n"
	"docs/mfu.md).\n"
	"\n"
	"With --job or --mpi each trace is one rank, analysed alone, and the report is\n"
	"the job's: step time per rank, stragglers, collective skew, idle causes per\n"
	"rank, ranks whose kernels run slower than their peers' (docs/cluster.md); a\n"
	"trace that cannot be read is named, the others analysed, and the run fails.\n",
	.msgs = &cli_msgs_either,
};

/* text, json, markdown, or html: a JSON report inside one page. */
static int parse_format(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct report_opts *o = ctx->base;
	int v;

	(void)opt;
	o->html = !strcmp(arg, "html");
	if (o->html) {
		o->format = GPR_FORMAT_JSON;
		return 0;
	}
	v = gpr_format_parse(arg);
	if (v != GPR_FORMAT_TEXT && v != GPR_FORMAT_JSON && v != GPR_FORMAT_MARKDOWN) {
		return cli_opt_usage_error(ctx, "unknown format '%s'", arg);
	}
	o->format = (enum gpr_format)v;
	return 0;
}

/* Longest gaps the gap analysis keeps for the findings' evidence (the report lists --top). */
#define FINDING_GAPS 100

/* --device NAME also stands for devices the trace does not describe (occupancy). */
static void occ_gpu(const struct report_opts *o, struct gpa_occ_opts *occ_opts)
{
	const struct gpa_devrow *gpu =
		o->mfu.a.peaks.device ? gpa_device_find(o->mfu.a.peaks.device, o->mfu.a.peaks.user,
							o->mfu.a.peaks.nuser)
				      : NULL;
	if (gpu) {
		occ_opts->gpu_cc_major = gpu->cc_major;
		occ_opts->gpu_cc_minor = gpu->cc_minor;
		occ_opts->gpu_sms = gpu->sms;
	}
}

/* The Launches section's figures: the command's defaults (gpuprof launches). */
/* The memory analysis the report shows (GPU memory section, memory findings). */
static int memory_of(const struct gpa_model *m, const struct gpa_steps *steps,
		     struct gpa_memory *mem)
{
	struct gpa_memory_opts mo;
	char err[128];

	gpa_memory_opts_init(&mo);
	mo.steps = steps;
	return gpa_memory_analyze(m, &mo, mem, err, sizeof(err));
}

static int launches_of(const struct gpa_model *m, struct gpa_launches *l)
{
	struct gpa_launches_opts lo;
	char err[64];

	gpa_launches_opts_init(&lo);
	lo.brief = true;
	return gpa_launches_analyze(m, &lo, l, err, sizeof(err));
}

/*
 * The HTML page: the report's parts plus the timeline's shaded gaps, the
 * flame graph and the Critical path section (the commands' defaults).
 * Returns 0, or non-zero after saying why.
 */
static int render_html(const struct report_opts *o, struct gpa_model *m,
		       const struct gpa_steps *steps, const struct gpa_commclass *cc,
		       const struct gpa_gaps_opts *gaps_opts, const struct gpr_report_parts *parts,
		       struct gp_strbuf *out)
{
	struct gpa_gaps shade = {0};
	struct gpa_flame flame = {0};
	struct gpa_critpath cp = {0};
	struct gp_strbuf flame_svg = GP_STRBUF_INIT;
	struct gpr_html_opts ho;
	struct gpa_gaps_opts so = *gaps_opts;
	struct gpa_flame_opts fo;
	struct gpr_flame_svg_opts svo;
	struct gpa_critpath_opts cpo = {.comm = cc, .top = 5};
	struct gpa_ops_opts opo = {.top = 0, .peaks = o->mfu.a.peaks};
	struct gpa_ops ops = {0};
	char err[512];
	int ret;

	/* The gaps the timeline shades: every one of at least 1 us, up to a bound. */
	so.min_gap_ns = 1000;
	so.top = 4 * o->html_events;
	gpr_html_opts_init(&ho);
	ho.max_events = o->html_events;
	ho.shade = &shade;
	gpa_flame_opts_init(&fo);
	fo.comm = cc;
	fo.data_regex = o->gaps.data_regex;
	gpr_flame_svg_opts_init(&svo);
	ret = gpa_gaps_analyze(m, steps, &so, &shade, err, sizeof(err));
	if (!ret) {
		ret = gpa_flame_build(m, &fo, &flame, err, sizeof(err));
	}
	if (!ret && flame.ops) {
		ret = gpr_flame_svg(&flame_svg, &flame, &svo, err, sizeof(err));
	}
	if (!ret) {
		ret = gpa_critpath_analyze(m, steps, &cpo, &cp, err, sizeof(err));
	}
	/* the roofline draws every input set, the report's tables the top ones */
	if (!ret && parts->ops && parts->ops->cpu_ops_shaped) {
		ret = gpa_ops_analyze(m, &opo, &ops, err, sizeof(err));
		ho.roofline = ret ? NULL : &ops;
	}
	if (!ret) {
		ho.flame_svg = flame_svg.buf;
		ho.flame_svg_len = flame_svg.len;
		ho.critpath = &cp;
		ret = gpr_html_render(out, parts, &ho, err, sizeof(err));
	}
	if (ret) {
		cli_error_ret(ret, err);
	}
	gpa_critpath_release(&cp);
	gpa_ops_release(&ops);
	gpa_gaps_release(&shade);
	gpa_flame_release(&flame);
	gp_strbuf_release(&flame_svg);
	return ret;
}

/*
 * The verdict: what bounds the steps, from their critical path (the copies'
 * directions read the path's events). Returns 0, or non-zero after saying why.
 */
static int verdict_of(const struct report_opts *o, const struct gpa_model *m,
		      const struct gpa_steps *steps, const struct gpa_commclass *cc,
		      struct gpa_bound_verdict *vd)
{
	struct gpa_critpath_opts cpo = {.comm = cc, .data_regex = o->gaps.data_regex};
	struct gpa_critpath cp = {0};
	char err[512];
	int ret = gpa_critpath_analyze(m, steps, &cpo, &cp, err, sizeof(err));

	if (!ret) {
		ret = gpa_verdict_build(m, steps, &cp, vd);
		snprintf(err, sizeof(err), "out of memory");
	}
	/* Steps that leave much of the trace out: the whole trace is the unit judged. */
	if (!ret && !vd->whole && vd->cover_bp < GPA_VERDICT_COVER_BP) {
		uint32_t cover = vd->cover_bp;
		cpo.window = true;
		cpo.win_start = m->t0;
		cpo.win_end = UINT64_MAX;
		gpa_critpath_release(&cp);
		ret = gpa_critpath_analyze(m, steps, &cpo, &cp, err, sizeof(err));
		if (!ret) {
			ret = gpa_verdict_build(m, NULL, &cp, vd);
			snprintf(err, sizeof(err), "out of memory");
			vd->cover_bp = cover;
		}
	}
	if (ret) {
		cli_error("%s", err);
	}
	gpa_critpath_release(&cp);
	return ret;
}

/* verdict_of on a thread of its own, beside the other analyses (it reads only the model). */
struct verdict_job {
	const struct report_opts *o;
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	const struct gpa_commclass *cc;
	struct gpa_bound_verdict *vd;
	int ret;
	pthread_t th;
	bool threaded;
};

static void *verdict_main(void *arg)
{
	struct verdict_job *j = arg;

	j->ret = verdict_of(j->o, j->m, j->steps, j->cc, j->vd);
	return NULL;
}

/* Starts the verdict on a thread when threads > 1, else runs it at once. */
static void verdict_start(struct verdict_job *j)
{
	unsigned threads = 1;

	j->threaded = cli_thread_count(&threads) == 0 && threads > 1 &&
		      pthread_create(&j->th, NULL, verdict_main, j) == 0;
	if (!j->threaded) {
		verdict_main(j);
	}
}

/* The verdict's status once done: 0, or non-zero after it said why. */
static int verdict_finish(struct verdict_job *j)
{
	if (j->threaded) {
		pthread_join(j->th, NULL);
		j->threaded = false;
	}
	return j->ret;
}

/* The kernel-efficiency sections: occupancy, utilization, the top operators. */
static int efficiency_of(const struct gpa_model *m, const struct gpa_steps *steps,
			 const struct report_opts *o, const struct gpa_occ_opts *occ_opts,
			 struct gpa_occupancy *occ, struct gpa_mfu *mfu, struct gpa_ops *ops,
			 char *errbuf, size_t errlen)
{
	struct gpa_ops_opts opo = {.top = 5, .peaks = o->mfu.a.peaks};
	int ret = gpa_occupancy_analyze(m, steps, occ_opts, occ, errbuf, errlen);

	if (!ret) {
		ret = gpa_mfu_analyze(m, steps, &o->mfu.a, mfu, errbuf, errlen);
	}
	return ret ? ret : gpa_ops_analyze(m, &opo, ops, errbuf, errlen);
}

/*
 * The analyses that read only the model and the steps (kernel summary,
 * launches, memory, occupancy, MFU, operators): on a second thread while
 * the calling thread finds the gaps, the overview and the communication.
 * Each reads the model and writes only its own result; errors are said
 * after both are done, in the order a single thread meets them, so the
 * output is the same on any number of threads.
 */
struct side {
	const struct gpa_model *m;
	const struct gpa_steps *steps;
	const struct report_opts *o;
	const struct gpa_occ_opts *occ_opts;
	struct gpa_stats *kern;
	struct gpa_launches *lau;
	struct gpa_memory *mem;
	struct gpa_occupancy *occ;
	struct gpa_mfu *mfu;
	struct gpa_ops *ops;
	bool nomem;
	int ret;
	char err[512];
};

static void *side_main(void *arg)
{
	struct side *s = arg;

	s->nomem = gpa_stats_compute(s->m, GPA_STATS_KERN_SUM, s->o->kname, s->kern) ||
		   launches_of(s->m, s->lau) || memory_of(s->m, s->steps, s->mem);
	if (!s->nomem) {
		s->ret = efficiency_of(s->m, s->steps, s->o, s->occ_opts, s->occ, s->mfu, s->ops,
				       s->err, sizeof(s->err));
	}
	return NULL;
}

/* The side analyses started (on a thread when threads > 1, else at once); *th set when a thread. */
static bool side_start(struct side *s, pthread_t *th)
{
	unsigned threads = 1;

	if (cli_thread_count(&threads) == 0 && threads > 1 &&
	    pthread_create(th, NULL, side_main, s) == 0) {
		return true;
	}
	side_main(s);
	return false;
}

static int run(const struct report_opts *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps = {0};
	struct gpa_gaps gaps = {0};
	struct gpa_overview ov = {0};
	struct gpa_stats kern = {0};
	struct gpa_occupancy occ = {0};
	struct gpa_mfu mfu = {0};
	struct gpa_occ_opts occ_opts = {.device = -1};
	struct gpa_comm comm = {0};
	struct gpa_findings fnd = {0};
	struct gpa_bound_verdict vd;
	struct gpa_launches lau = {0};
	struct gpa_ops ops = {0};
	struct gpa_memory mem = {0};
	struct gpa_gaps_opts gaps_opts = o->gaps;
	struct gpa_gaps shown;
	struct gpa_comm_opts comm_opts;
	struct gpa_commclass cc = {0};
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int ret, status = CMD_ERROR;

	/* no section names a call's callback id or a correlation id */
	if (cli_load_model_ex(&m, args, nargs, 0, GPA_DROP_API_IDS | GPA_DROP_CORR)) {
		return CMD_ERROR;
	}
	occ_gpu(o, &occ_opts);
	/* The findings' evidence draws on more of the longest gaps than the report lists. */
	gaps_opts.top = gaps_opts.top < FINDING_GAPS ? FINDING_GAPS : gaps_opts.top;
	/* One communication classification for every part of the report, found while the steps are. */
	struct cli_commclass_job ccj;
	cli_commclass_start(&ccj, &m, &o->comm, &cc);
	ret = gpa_steps_find(&m, o->step_regex, &steps, err, sizeof(err));
	if (ret) {
		cli_error_ret(ret, err);
		cli_commclass_finish(&ccj, false);
		status = cli_exit_code(ret, 0);
		goto out;
	}
	status = cli_commclass_finish(&ccj, true);
	if (status != CMD_OK) {
		goto out;
	}
	status = CMD_ERROR;
	gaps_opts.comm = &cc;
	struct side side = {.m = &m, .steps = &steps, .o = o, .occ_opts = &occ_opts, .kern = &kern,
			    .lau = &lau, .mem = &mem, .occ = &occ, .mfu = &mfu, .ops = &ops};
	pthread_t th;
	struct verdict_job vj = {.o = o, .m = &m, .steps = &steps, .cc = &cc, .vd = &vd};
	verdict_start(&vj);
	bool threaded = side_start(&side, &th);
	gpa_comm_opts_init(&comm_opts);
	comm_opts.steps = &steps;
	comm_opts.comm = &cc;
	ret = gpa_gaps_analyze(&m, &steps, &gaps_opts, &gaps, err, sizeof(err));
	bool ov_nomem = !ret && gpa_overview_build(&m, &steps, &ov);
	char cerr[512];
	int cret = ret || ov_nomem ? 0 : gpa_comm_analyze(&m, &comm_opts, &comm, cerr, sizeof(cerr));
	if (threaded) {
		pthread_join(th, NULL);
	}
	int vret = verdict_finish(&vj);
	if (ret) {
		cli_error_ret(ret, err);
		status = cli_exit_code(ret, 0);
		goto out;
	}
	if (ov_nomem || side.nomem) {
		cli_error("out of memory");
		goto out;
	}
	if (side.ret) {
		cli_error_ret(side.ret, side.err);
		status = cli_exit_code(side.ret, CLI_NOTFOUND_IS_USAGE);
		goto out;
	}
	if (cret) {
		cli_error_ret(cret, cerr);
		goto out;
	}
	if (vret) {
		goto out;
	}
	struct gpa_findings_in fin = {.m = &m, .steps = &steps, .gaps = &gaps, .comm = &comm,
				      .occ = &occ, .mfu = &mfu, .memory = &mem, .verdict = &vd};
	if (gpa_findings_build(&fin, &fnd)) {
		cli_error("out of memory");
		goto out;
	}
	shown = gaps;
	shown.top_n = o->gaps.top;
	if (shown.top.n > o->gaps.top) {
		shown.top.n = o->gaps.top;
	}
	struct gpr_report_parts parts = {
		.m = &m,
		.steps = &steps,
		.ov = &ov,
		.gaps = &shown,
		.kernels = &kern,
		.top_kernels = o->top,
		.max_steps = o->max_steps,
		.occ = &occ,
		.mfu = &mfu,
		.mfu_dtype = o->mfu.a.dtype,
		.comm = &comm,
		.findings = &fnd,
		.verdict = &vd,
		.launches = &lau,
		.ops = &ops,
		.memory = &mem,
	};
	if (o->html) {
		if (render_html(o, &m, &steps, &cc, &gaps_opts, &parts, &out)) {
			goto out;
		}
	} else if (gpr_report_render(&out, o->format, &parts)) {
		cli_error("out of memory");
		goto out;
	}
	if (o->output ? cli_write_file(o->output, out.buf, out.len)
		      : cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gpa_ops_release(&ops);
	gpa_memory_release(&mem);
	gpa_launches_release(&lau);
	gpa_findings_release(&fnd);
	gpa_mfu_release(&mfu);
	gpa_occupancy_release(&occ);
	gp_strbuf_release(&out);
	gpa_stats_release(&kern);
	gpa_comm_release(&comm);
	gpa_commclass_release(&cc);
	gpa_overview_release(&ov);
	gpa_gaps_release(&gaps);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

/* --job, --mpi: the job report (cli/job.c). */
static int job(const struct report_opts *o, char **args, size_t nargs)
{
	struct cli_job j = {.mpi = o->mpi, .format = o->format, .parts = GPR_JOB_ALL,
			    .output = o->output, .step_regex = o->step_regex, .comm = &o->comm,
			    .gaps = &o->gaps};

	if (o->html) {
		return cli_cmd_usage_error(&cmd_report_opts, "--job and --mpi write text, json or "
							     "markdown");
	}
	return cli_job_run(&j, args, nargs);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {.format = GPR_FORMAT_TEXT, .top = 10, .max_steps = 50,
				.kname = GPA_KNAME_DEMANGLED, .html_events = 200000};
	int nargs, status;

	cli_mfu_init(&o.mfu);
	gpa_gaps_opts_init(&o.gaps);
	status = cli_parse_options(&cmd_report_opts, &o, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	o.gaps.top = o.top;
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_report_opts, "no trace given");
	}
	status = cli_check_outputs(&cmd_report_opts, &o.output, 1, argv, (size_t)nargs, o.force);
	if (status != CMD_OK) {
		return status;
	}
	if (o.job || o.mpi) {
		return job(&o, argv, (size_t)nargs);
	}
	if (cli_mfu_load_file(&o.mfu)) {
		return CMD_ERROR;
	}
	status = run(&o, argv, (size_t)nargs);
	cli_mfu_release(&o.mfu);
	return status;
}
