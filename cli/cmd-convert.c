/* SPDX-License-Identifier: MIT */
/*
 * gpuprof convert - write a trace from another tool as a .gpz.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "import/import.h"
#include "cli/cli.h"

struct convert_opts {
	bool force;
};

static const struct cli_option convert_options[] = {
	CLI_OPT_BOOL(0, "force", struct convert_opts, force,
		     "replace an existing regular file OUTPUT"),
	CLI_OPT_HELP(CLI_OPTF_HIDDEN),
	CLI_OPT_END(),
};

const struct cli_command cmd_convert_opts = {
	.usage =
	"usage: gpuprof convert [--force] [--quiet] INPUT OUTPUT.gpz\n"
	"\n"
	"Reads a PyTorch profiler (Kineto) Chrome-trace JSON file (.json or .json.gz)\n"
	"or an Nsight Systems SQLite export and writes the same events as a .gpz\n"
	"trace, keeping nanosecond times. The format is told from the content. Every\n"
	"analysis also reads these inputs directly; converting saves the parse and\n"
	"the space (docs/import.md). OUTPUT '-' is standard output; a device or FIFO\n"
	"is written to; an existing regular file is replaced only with --force, as\n"
	"export does; a failed conversion leaves OUTPUT as it was\n"
	"(docs/reliability.md). A long conversion shows its progress on stderr when\n"
	"that is a terminal; --quiet (which every command takes) turns it off.\n",
	.options = convert_options,
};

int cmd_convert(int argc, char **argv)
{
	struct cli_common common = {0};
	char err[512];
	int nargs, status, ret;
	struct cli_progress pr;
	struct gp_progress_cb cb = {cli_progress_fn, &pr};
	struct convert_opts o = {0};

	status = cli_parse_options(&cmd_convert_opts, &o, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (nargs != 2) {
		return cli_cmd_usage_error(&cmd_convert_opts,
					   "convert takes an input and an output");
	}
	status = cli_check_outputs(&cmd_convert_opts, (const char *const *)&argv[1], 1, argv, 1,
				   o.force);
	if (status != CMD_OK) {
		return status;
	}
	if (!o.force && gp_out_is_regular(argv[1])) {
		cli_error("'%s' already exists (use --force to replace it)", argv[1]);
		return CMD_ERROR;
	}
	cli_progress_start(&pr, common.quiet);
	ret = gpa_convert_opts(argv[0], argv[1], &cb, err, sizeof(err));
	cli_progress_end(&pr);
	if (ret) {
		cli_error("%s", err);
		return CMD_ERROR;
	}
	return CMD_OK;
}
