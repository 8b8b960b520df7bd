/* SPDX-License-Identifier: MIT */
/*
 * gpuprof report - the one-stop answer: what was traced, step times, GPU
 * busy and idle by cause, top kernels, memory traffic, the longest gaps,
 * warnings.
 */
#include "base/compat.h"
#include "analyze/report.h"
#include "api/internal.h"
#include "cli/cli.h"
#include "analyze/flight.h"
#include "report/report.h"
#include "report/flame-graph.h"
#include "report/html.h"
#include "report/job.h"
#include "report/summary.h"

struct report_opts {
	enum gpr_format format;
	bool html;
	bool format_given;
	const char *output;
	size_t html_events;
	bool keep_layers; /* the page's flame graph: repeated layers apart */
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
/* For completion: what parse_format takes (and "table", "md"). */
static const struct cli_enum_value formats[] = {
	{"text", 0}, {"json", 0}, {"markdown", 0}, {"html", 0}, {NULL, 0}};

static const struct cli_enum_value knames[] = {
	{"short", GPA_KNAME_SHORT},
	{"demangled", GPA_KNAME_DEMANGLED},
	{"mangled", GPA_KNAME_MANGLED},
	{NULL, 0},
};

static const struct cli_option report_options[] = {
	CLI_OPT_GROUP("options:\n", 26, 6),
	{.type = CLI_OPT_CALLBACK, 'f', "format", "FORMAT", .cb = parse_format, .values = formats,
	 .help = "text (default), json, markdown, or html: one\n"
		 "self-contained page (docs/html-report.md)"},
	CLI_OPT_STR('o', "output", "FILE", struct report_opts, output,
		    "write there instead of standard output ('-' is standard\n"
		    "output; a link's target, a device or FIFO in place:\n"
		    "docs/reliability.md)"),
	CLI_OPT_UINTV(0, "html-events", "N", struct report_opts, html_events, 1, 1000000000,
		      "bad count '%s'", "timeline events the HTML page embeds (200000)"),
	CLI_OPT_BOOL(0, "keep-layers", struct report_opts, keep_layers,
		     "the HTML page's flame graph keeps repeated layers\n"
		     "apart (default: merged into one 'layers.*' frame)"),
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
	/* The MFU options of gpuprof mfu (cli/cmd-mfu.c), for the report's MFU section. */
	CLI_OPT_SUB(cli_mfu_options, struct report_opts, mfu, 0),
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
};

/* text, json, markdown, or html: a JSON report inside one page. */
static int parse_format(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct report_opts *o = ctx->base;
	int v;

	(void)opt;
	o->format_given = true;
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

/*
 * The HTML page: the report's parts plus the timeline's shaded gaps, the
 * flame graph and the Critical path section, computed with the report.
 * Returns 0, or non-zero after saying why.
 */
static int render_html(const struct report_opts *o, const struct gpa_report *r,
		       const struct gpr_report_parts *parts, struct gp_strbuf *out)
{
	struct gp_strbuf flame_svg = GP_STRBUF_INIT;
	struct gpr_html_opts ho;
	struct gpr_flame_svg_opts svo;
	char err[512];
	int ret = 0;

	gpr_html_opts_init(&ho);
	ho.max_events = o->html_events;
	ho.shade = &r->shade;
	ho.roofline = r->has_roofline ? &r->roofline : NULL;
	ho.critpath = &r->critpath;
	gpr_flame_svg_opts_init(&svo);
	if (r->flame.ops) {
		ret = gpr_flame_svg(&flame_svg, &r->flame, &svo, err, sizeof(err));
	}
	if (!ret) {
		ho.flame_svg = flame_svg.buf;
		ho.flame_svg_len = flame_svg.len;
		ret = gpr_html_render(out, parts, &ho, err, sizeof(err));
	}
	if (ret) {
		cli_error_ret(ret, err);
	}
	gp_strbuf_release(&flame_svg);
	return ret;
}

static int run(const struct report_opts *o, struct cli_common *c, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpuprof_report_args a;
	struct gpa_report *r = NULL;
	struct gpr_report_parts parts;
	struct gpa_flight_info fi = {0};
	struct gpa_flight_cmp cmp = {0};
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int ret, status = CMD_ERROR;

	/* no section names a call's callback id or a correlation id */
	if (cli_load_model_ex(c, &m, args, nargs, 0, GPA_DROP_API_IDS | GPA_DROP_CORR)) {
		return CMD_ERROR;
	}
	gpuprof_report_args_init(&a);
	a.ro.kind = o->html ? GPA_REPORT_PAGE : GPA_REPORT_FULL;
	a.ro.step_regex = o->step_regex;
	a.ro.comm_rules = o->comm.rules;
	a.ro.ncomm_rules = o->comm.n;
	a.ro.gaps = o->gaps;
	a.ro.kname = o->kname;
	a.ro.mfu = &o->mfu.a;
	a.ro.page_events = o->html_events;
	a.ro.keep_layers = o->keep_layers;
	a.top_kernels = o->top;
	a.max_steps = o->max_steps;
	a.mfu_dtype = o->mfu.a.dtype;
	if (cli_common_threads(c, &a.ro.threads)) {
		goto out;
	}
	/* the build the library's gpuprof_analyze(GPUPROF_REPORT) runs */
	ret = gpuprof_report_compute(&m, &a, &r, &parts, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = cli_exit_code(ret, CLI_NOTFOUND_IS_USAGE);
		goto out;
	}
	parts.display = &c->display;
	if (o->html) {
		if (render_html(o, r, &parts, &out)) {
			goto out;
		}
	} else {
		/* a flight recording opens with its trigger and slow step */
		if (cli_flight_compare(&m, &r->steps, &r->cc, &fi, &cmp)) {
			cli_error("out of memory");
			goto out;
		}
		parts.flight = fi.is_flight ? &fi : NULL;
		parts.flight_cmp = cmp.have ? &cmp : NULL;
		if (gpr_report_render(&out, o->format, &parts)) {
			cli_error("out of memory");
			goto out;
		}
	}
	if (o->output ? cli_write_file(o->output, out.buf, out.len)
		      : cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gp_strbuf_release(&out);
	gpa_flight_cmp_release(&cmp);
	gpa_flight_info_release(&fi);
	gpa_report_free(r);
	gpa_model_release(&m);
	return status;
}

/* --job, --mpi: the job report (cli/job.c). */
static int job(const struct report_opts *o, struct cli_common *c, char **args, size_t nargs)
{
	struct cli_job j = {.common = c, .mpi = o->mpi, .format = o->format, .parts = GPR_JOB_ALL,
			    .output = o->output, .step_regex = o->step_regex, .comm = &o->comm,
			    .gaps = &o->gaps};

	if (o->html) {
		return cli_cmd_usage_error(&cmd_report_opts, "--job and --mpi write text, json or "
							     "markdown");
	}
	return cli_job_run(&j, args, nargs);
}

/* -o's extension against --format, or the format from it when --format is not given. */
static int output_format(struct report_opts *o)
{
	enum { HTML = 99 };
	static const struct cli_out_ext exts[] = {{"json", GPR_FORMAT_JSON, "json"},
						  {"md", GPR_FORMAT_MARKDOWN, "markdown"},
						  {"html", HTML, "html"},
						  {NULL, 0, NULL}};
	int f = !o->format_given ? -1 : o->html ? HTML : (int)o->format;
	int ret = cli_output_format(&cmd_report_opts, o->output, exts, &f);

	if (ret || o->format_given || f < 0) {
		return ret;
	}
	o->html = f == HTML;
	o->format = o->html ? GPR_FORMAT_JSON : (enum gpr_format)f;
	return CMD_OK;
}

int cmd_report(int argc, char **argv)
{
	struct cli_common common = {0};
	struct report_opts o = {.format = GPR_FORMAT_TEXT, .top = 10, .max_steps = 50,
				.kname = GPA_KNAME_DEMANGLED, .html_events = 200000};
	int nargs, status;

	cli_mfu_init(&o.mfu);
	gpa_gaps_opts_init(&o.gaps);
	status = cli_parse_options(&cmd_report_opts, &o, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	o.gaps.top = o.top;
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_report_opts, "no trace given");
	}
	status = output_format(&o);
	if (status == CMD_OK) {
		status = cli_check_outputs(&cmd_report_opts, &o.output, 1, argv, (size_t)nargs,
					   o.force);
	}
	if (status != CMD_OK) {
		return status;
	}
	if (o.job || o.mpi) {
		return job(&o, &common, argv, (size_t)nargs);
	}
	if (cli_mfu_load_file(&o.mfu)) {
		return CMD_ERROR;
	}
	status = run(&o, &common, argv, (size_t)nargs);
	cli_mfu_release(&o.mfu);
	return status;
}
