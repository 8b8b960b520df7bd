/* SPDX-License-Identifier: MIT */
/*
 * gpuprof launches - launch and queue analytics: the CPU time of each launch
 * call, the delay until its op started, queue length per stream, copy
 * bandwidth per kind, idle intervals per stream, GPU user annotations.
 */
#include "base/compat.h"
#include "analyze/launches.h"
#include "analyze/model.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/launches.h"

struct launches_opts {
	enum gpr_format format;
	unsigned tables;
	struct gpa_launches_opts a;
};

static const struct cli_option launches_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct launches_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "kernel names listed, most launched first (10)",
	 CLI_FIELD_(struct launches_opts, a.top), .flags = CLI_OPTF_ALL, .err = "bad --top '%s'"},
	CLI_OPT_ENUMP(0, "table", "NAME", struct launches_opts, tables, gpr_launches_table_parse,
		      "unknown table '%s'",
		      "print one table only: summary, kernels, queues,\n"
		      "copies, idle, annotations"),
	CLI_OPT_DUR(0, "runtime-cutoff", "DURATION", struct launches_opts, a.runtime_cutoff_ns, 0,
		    "launch calls longer are outliers; short kernels\n"
		    "have a call at most this long (50us)"),
	CLI_OPT_DUR(0, "delay-cutoff", "DURATION", struct launches_opts, a.delay_cutoff_ns, 0,
		    "launch delays longer are outliers (100us)"),
	CLI_OPT_DUR(0, "kernel-wait", "DURATION", struct launches_opts, a.kernel_wait_ns, 0,
		    "idle intervals of queued work shorter than this are\n"
		    "kernel waits, longer ones other (30us)"),
	CLI_OPT_UINTV(0, "max-queue", "N", struct launches_opts, a.max_queue, 1, INT32_MAX,
		      "bad --max-queue '%s'",
		      "queue length at which a stream's launch queue is\n"
		      "full (1024, CUDA's)"),
	CLI_OPT_RE(0, "launch-api", "REGEX", struct launches_opts, a.api_regex,
		   "launch-call pattern",
		   "count only ops launched by calls so named in the\n"
		   "per-launch figures and the queues (PCRE2; default\n"
		   "every call)"),
	CLI_OPT_BOOL(0, "hta-last-step", struct launches_opts, a.last_step,
		     "leave out what HTA leaves out by default: with two\n"
		     "or more ProfilerStep#N, ops launched in the last\n"
		     "step or later and ops without a launch call"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_launches_opts = {
	.usage =
	"usage: gpuprof launches [--format FORMAT] [--top N|all] [--table NAME]\n"
	"                        [--runtime-cutoff DURATION] [--delay-cutoff DURATION]\n"
	"                        [--kernel-wait DURATION] [--max-queue N]\n"
	"                        [--launch-api REGEX] [--hta-last-step] TRACE...\n"
	"\n"
	"Launch and queue analytics of the traces (files or directories of .gpz\n"
	"files). For every kernel, copy and memset launched by a recorded API call:\n"
	"the call's CPU time and the launch delay (op start - call end, 0 when the\n"
	"op started first), as distributions overall and per kernel name, outliers,\n"
	"and the short kernels whose launch call took longer than they ran. Per\n"
	"stream: queue length (launched, not yet started) and the time spent at a\n"
	"full queue; idle intervals by category. Copy bandwidth per copy kind, and\n"
	"the GPU-side user annotations. Times are exact nanoseconds. See\n"
	"docs/launches.md.\n"
	"\n",
	.options = launches_options,
};

static int run(const struct launches_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_launches l;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status, ret;

	if (cli_load_model(cm, &m, args, nargs)) {
		return CMD_ERROR; /* said; a negative error is not an exit status */
	}
	status = CMD_ERROR;
	ret = gpa_launches_analyze(&m, &o->a, &l, err, sizeof(err));
	if (ret) {
		cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
		gpa_model_release(&m);
		return cli_exit_code(ret, 0);
	}
	if (!gpa_gpu_rows(&m) && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no GPU activity in the trace%s", m.procs.n == 1 ? "" : "s");
	}
	if (gpr_launches_render(&out, o->format, &cm->display, o->tables, &m, &l) ||
	    gpr_sanity_append(&out, o->format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gp_strbuf_release(&out);
	gpa_launches_release(&l);
	gpa_model_release(&m);
	return status;
}

int cmd_launches(int argc, char **argv)
{
	struct cli_common common = {0};
	struct launches_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_LAUNCH_ALL};
	int nargs, status;

	gpa_launches_opts_init(&opts.a);
	status = cli_parse_options(&cmd_launches_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_launches_opts, "no trace file given");
	}
	return run(&opts, &common, argv, (size_t)nargs);
}
