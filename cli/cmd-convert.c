/* SPDX-License-Identifier: MIT */
/*
 * gpuprof convert - write a trace from another tool as a .gpz.
 */
#include "base/compat.h"
#include "import/import.h"
#include "cli/cli.h"

static const struct cli_option convert_options[] = {
	CLI_OPT_HELP(CLI_OPTF_HIDDEN),
	CLI_OPT_END(),
};

const struct cli_command cmd_convert_opts = {
	.usage =
	"usage: gpuprof convert [--quiet] INPUT OUTPUT.gpz\n"
	"\n"
	"Reads a PyTorch profiler (Kineto) Chrome-trace JSON file (.json or .json.gz)\n"
	"or an Nsight Systems SQLite export and writes the same events as a .gpz\n"
	"trace, keeping nanosecond times. The format is told from the content. Every\n"
	"analysis also reads these inputs directly; converting saves the parse and\n"
	"the space (docs/import.md). OUTPUT '-' is standard output; a failed\n"
	"conversion leaves OUTPUT as it was (docs/reliability.md). A long conversion\n"
	"shows its progress on stderr when that is a terminal; --quiet (which every\n"
	"command takes) turns it off.\n"
	"\n"
	"Exit status: 0 ok, 1 the input could not be read or the output written,\n"
	"2 usage.\n",
	.options = convert_options,
	.msgs = &cli_msgs_plain,
};

int cmd_convert(int argc, char **argv)
{
	char err[512];
	int nargs, status, ret;
	struct cli_progress pr;
	struct gp_progress_cb cb = {cli_progress_fn, &pr};

	status = cli_parse_options(&cmd_convert_opts, NULL, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (nargs != 2) {
		return cli_cmd_usage_error(&cmd_convert_opts,
					   "convert takes an input and an output");
	}
	status = cli_check_outputs(&cmd_convert_opts, (const char *const *)&argv[1], 1, argv, 1);
	if (status != CMD_OK) {
		return status;
	}
	cli_progress_start(&pr);
	ret = gpa_convert_opts(argv[0], argv[1], &cb, err, sizeof(err));
	cli_progress_end(&pr);
	if (ret) {
		cli_error("%s", err);
		return CMD_ERROR;
	}
	return CMD_OK;
}
