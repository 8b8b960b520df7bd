/* SPDX-License-Identifier: MIT */
/*
 * gpuprof ops - GPU work by the PyTorch operator that launched it, with
 * FLOPs and bytes from the operators' recorded inputs (docs/ops.md).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/ops.h"
#include "cli/cli.h"
#include "report/ops.h"
#include "report/report.h"

#include <string.h>

struct ops_opts {
	enum gpr_format format;
	unsigned tables;
	struct gpa_ops_opts a;
};

static int ops_table_parse(const char *s)
{
	return !strcmp(s, "names") ? GPR_OPS_NAMES : !strcmp(s, "inputs") ? GPR_OPS_ARGS : -1;
}

static const struct cli_option ops_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct ops_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "rows per table, most GPU time first (20)",
	 CLI_FIELD_(struct ops_opts, a.top), .flags = CLI_OPTF_ALL, .err = "bad --top '%s'"},
	CLI_OPT_ENUMP(0, "table", "NAME", struct ops_opts, tables, ops_table_parse,
		      "unknown table '%s'", "print one table only: names, inputs"),
	CLI_OPT_STR(0, "device", "NAME", struct ops_opts, a.peaks.device,
		    "use this table row for the peaks ('gpuprof devices')"),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_ops_opts = {
	.usage =
	"usage: gpuprof ops [--format FORMAT] [--top N|all] [--table NAME]\n"
	"                   [--device NAME] TRACE...\n"
	"\n"
	"GPU work by the CPU operator that launched it: each kernel, copy and\n"
	"memset goes to the innermost PyTorch operator (cpu_op) enclosing its\n"
	"launch call, so aten::linear over aten::addmm counts once, as\n"
	"aten::addmm. Operators are summarised by name and by unique recorded\n"
	"inputs (shapes, types, strides, scalars: profile with\n"
	"record_shapes=True). Where a performance model applies (GEMM,\n"
	"convolution, attention, norms, softmax, embedding, elementwise,\n"
	"reductions): FLOPs, minimum bytes moved, FLOPs/byte, achieved TFLOP/s\n"
	"and TB/s, the device peak for the data type, compute- or memory-bound\n"
	"by the ridge point and % of the roofline. Other operators: time only.\n"
	"See docs/ops.md.\n"
	"\n",
	.options = ops_options,
};

static int run(const struct ops_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_ops r;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status, ret;

	if (cli_load_model(cm, &m, args, nargs)) {
		return CMD_ERROR; /* said; a negative error is not an exit status */
	}
	status = CMD_ERROR;
	ret = gpa_ops_analyze(&m, &o->a, &r, err, sizeof(err));
	if (ret) {
		cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
		gpa_model_release(&m);
		return cli_exit_code(ret, 0);
	}
	if (r.implausible) {
		struct gp_strbuf w = GP_STRBUF_INIT;
		gpr_ops_implausible(&w, &r);
		cli_warn("%s", w.buf ? w.buf : "implausible data");
		gp_strbuf_release(&w);
	}
	if (gpr_ops_render(&out, o->format, &cm->display, o->tables, &r) ||
	    gpr_sanity_append(&out, o->format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gp_strbuf_release(&out);
	gpa_ops_release(&r);
	gpa_model_release(&m);
	return status;
}

int cmd_ops(int argc, char **argv)
{
	struct cli_common common = {0};
	struct ops_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_OPS_ALL, .a.top = 20};
	int nargs, status;

	status = cli_parse_options(&cmd_ops_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_ops_opts, "no trace file given");
	}
	return run(&opts, &common, argv, (size_t)nargs);
}
