/* SPDX-License-Identifier: MIT */
/*
 * gpuprof memory - GPU memory over time: per device the peak and what held
 * it, each step's peak, growth across steps, reserved minus allocated,
 * short-lived allocations and memory-management calls (docs/memory.md).
 */
#include "base/compat.h"
#include "analyze/gaps.h"
#include "analyze/memory.h"
#include "analyze/model.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/memory.h"
#include "report/report.h"

#include <string.h>

struct memory_opts {
	enum gpr_format format;
	unsigned tables;
	const char *step_regex;
	struct gpa_memory_opts a;
};

static const struct cli_option memory_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct memory_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "allocating ranges listed per peak (10)",
	 CLI_FIELD_(struct memory_opts, a.top), .flags = CLI_OPTF_ALL, .err = "bad --top '%s'"},
	CLI_OPT_ENUMP(0, "table", "NAME", struct memory_opts, tables, gpr_memory_table_parse,
		      "unknown table '%s'",
		      "print one table only: devices, owners, steps,\n"
		      "leaks, calls, timeline (every event: only so)"),
	CLI_OPT_RE(0, "step", "REGEX", struct memory_opts, step_regex, "step pattern",
		   "NVTX ranges that are steps (default: ProfilerStep#N,\n"
		   "else annotations that repeat around GPU work)"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_memory_opts = {
	.usage =
	"usage: gpuprof memory [--format FORMAT] [--top N|all] [--table NAME] [--step REGEX]\n"
	"                      TRACE...\n"
	"\n"
	"GPU memory over time from the allocation and release events of the traces\n"
	"(PyTorch profiler [memory] events, nsys CUDA memory usage, recorded memory\n"
	"records). Per device: the peak of allocated bytes with its time and phase\n"
	"(forward, backward, optimizer when the ranges say so), reserved bytes and\n"
	"reserved minus allocated at the peak, and what was live then grouped by\n"
	"the range that allocated it (the outermost CPU op, else the innermost NVTX\n"
	"range). Per step: the peak, bytes live at its end and allocations freed\n"
	"within it; bytes live at step end rising at every step are reported as\n"
	"growth per step with the sites still holding it. Times of memory-management\n"
	"calls (cudaMalloc, cudaFree...) and the idle GPU time blamed on them.\n"
	"Bytes and times are exact. See docs/memory.md.\n"
	"\n",
	.options = memory_options,
};

static int run(const struct memory_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_memory r;
	struct gp_strbuf out = GP_STRBUF_INIT;
	struct gpa_memory_opts ao = o->a;
	char err[512];
	int status, ret;

	status = cli_load_steps(cm, &m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	status = CMD_ERROR;
	ao.steps = &steps;
	if (o->tables & GPR_MEM_CALLS) {
		gpa_memory_opts_gaps(&ao, &m, &steps);
	}
	ret = gpa_memory_analyze(&m, &ao, &r, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		gpa_steps_release(&steps);
		gpa_model_release(&m);
		return cli_exit_code(ret, 0);
	}
	if (gpr_memory_render(&out, o->format, &cm->display, o->tables, &m, &r) ||
	    gpr_sanity_append(&out, o->format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gp_strbuf_release(&out);
	gpa_memory_release(&r);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

int cmd_memory(int argc, char **argv)
{
	struct cli_common common = {0};
	struct memory_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_MEM_DEFAULT};
	int nargs, status;

	gpa_memory_opts_init(&opts.a);
	status = cli_parse_options(&cmd_memory_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_memory_opts, "no trace file given");
	}
	return run(&opts, &common, argv, (size_t)nargs);
}
