/* SPDX-License-Identifier: MIT */
/*
 * gpuprof gaps - when each GPU was idle and why: busy %, idle by cause,
 * gap lengths, the longest gaps with their evidence, per-step stretches.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/commclass.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/gaps.h"

struct gaps_opts {
	enum gpr_format format;
	unsigned tables;
	const char *step_regex;
	bool per_step;
	struct gpa_gaps_opts a;
	struct cli_comm_rules comm;
};

static const struct cli_option gaps_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct gaps_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "list the N longest gaps (10); 0 lists none",
	 CLI_FIELD_(struct gaps_opts, a.top), .flags = CLI_OPTF_ALL,
	 .err = "bad --top '%s'"},
	CLI_OPT_DUR(0, "min-gap", "DURATION", struct gaps_opts, a.min_gap_ns, 0,
		    "list gaps at least this long (10us); units ns, us,\n"
		    "ms, s; a bare number is nanoseconds"),
	CLI_OPT_RE(0, "step", "REGEX", struct gaps_opts, step_regex, "step pattern",
		   "NVTX ranges that are steps (default: ProfilerStep#N,\n"
		   "else annotations that repeat around GPU work)"),
	CLI_OPT_UINTV('d', "gpu", "N", struct gaps_opts, a.device, 0, INT32_MAX,
		      "bad GPU '%s'", "only CUDA device N (in every process)"),
	/* The earlier spelling, kept working: --device names a peak-table row elsewhere. */
	{.type = CLI_OPT_UINT, 0, "device", "N", NULL, CLI_FIELD_(struct gaps_opts, a.device),
	 .umax = INT32_MAX, .err = "bad GPU '%s'", .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_BOOL(0, "per-step", struct gaps_opts, per_step, "add the per-step table"),
	CLI_OPT_ENUMP(0, "table", "NAME", struct gaps_opts, tables, gpr_gaps_table_parse,
		      "unknown table '%s'",
		      "print one table only: devices, causes, histogram,\n"
		      "gaps, steps"),
	CLI_OPT_RE(0, "data-loader", "REGEX", struct gaps_opts, a.data_regex, "data-loader pattern",
		   "NVTX names that are data loading (PCRE2; default\n"
		   "enumerate(DataLoader), torch/utils/data/,\n"
		   "data.?load, load/fetch/next/get.?batch;\n"
		   "case-insensitive)"),
	CLI_OPT_DUR(0, "latency", "DURATION", struct gaps_opts, a.latency_ns, 0,
		    "queued gaps shorter than this are launch latency,\n"
		    "longer ones a dependency (30us)"),
	CLI_OPT_SUB(cli_comm_options, struct gaps_opts, comm, 0),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_gaps_opts = {
	.usage =
	"usage: gpuprof gaps [--format FORMAT] [--top N|all] [--min-gap DURATION] [--step REGEX]\n"
	"                    [--gpu N] [--per-step] [--table NAME] [--data-loader REGEX]\n"
	"                    [--latency DURATION] TRACE...\n"
	"\n"
	"Finds the idle gaps of every GPU in the traces (files or directories of .gpz\n"
	"files) and says why each one happened. Per device the window runs from the\n"
	"first GPU op's start to the last one's end; busy is the union of kernels,\n"
	"memcpys and memsets (synchronization records are not GPU work); every gap\n"
	"between them gets one cause with its evidence: profiler overhead, host\n"
	"synchronization, data loading, memory management, JIT/module load, launch\n"
	"overhead, CPU-bound, communication wait, stream/event dependency, unknown.\n"
	"\n"
	"Prints busy %, idle by cause, a gap-length histogram and the longest gaps\n"
	"with their step and NVTX context. Totals count every gap, however short;\n"
	"the list shows gaps of at least --min-gap. Starts count from the first\n"
	"event; text shows times in 3-4 digits (exact ns with --timeunit ns, in CSV\n"
	"and JSON; docs/units.md). See docs/gaps.md.\n"
	"\n",
	.options = gaps_options,
};

static int run(const struct gaps_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_gaps g;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	status = cli_load_steps(cm, &m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	struct gpa_commclass cc = {0};
	struct gpa_gaps_opts go = o->a;
	memset(&g, 0, sizeof(g));
	status = cli_commclass(&m, &o->comm, &cc);
	if (status != CMD_OK) {
		goto out;
	}
	status = CMD_ERROR;
	go.comm = &cc;
	ret = gpa_gaps_analyze(&m, &steps, &go, &g, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = cli_exit_code(ret, 0);
		goto out;
	}
	if (!g.devs.n && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no GPU activity in the trace%s", m.procs.n == 1 ? "" : "s");
	}
	if (gpr_gaps_render(&out, o->format, &cm->display, o->tables, &m, &steps, &g) ||
	    gpr_sanity_append(&out, o->format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gp_strbuf_release(&out);
	gpa_commclass_release(&cc);
	gpa_gaps_release(&g);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

int cmd_gaps(int argc, char **argv)
{
	struct cli_common common = {0};
	struct gaps_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_GAPS_DEFAULT};
	int nargs, status;

	gpa_gaps_opts_init(&opts.a);
	status = cli_parse_options(&cmd_gaps_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_gaps_opts, "no trace file given");
	}
	if (opts.per_step && opts.tables == GPR_GAPS_DEFAULT) {
		opts.tables |= GPR_GAPS_STEPS;
	}
	return run(&opts, &common, argv, (size_t)nargs);
}
