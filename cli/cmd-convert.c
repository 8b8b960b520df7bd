/* SPDX-License-Identifier: MIT */
/*
 * gpuprof convert - write a trace from another tool as a .gpz.
 */
#include "base/compat.h"
#include "import/import.h"
#include "cli/cli.h"

#include <getopt.h>

const char cmd_convert_help[] =
	"usage: gpuprof convert INPUT OUTPUT.gpz\n"
	"\n"
	"Reads a PyTorch profiler (Kineto) Chrome-trace JSON file (.json or .json.gz)\n"
	"or an Nsight Systems SQLite export and writes the same events as a .gpz\n"
	"trace, keeping nanosecond times. The format is told from the content. Every\n"
	"analysis also reads these inputs directly; converting saves the parse and\n"
	"the space (docs/import.md).\n"
	"\n"
	"Exit status: 0 ok, 1 the input could not be read or the output written,\n"
	"2 usage.\n";

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char err[512];
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cmd_convert_help, stdout);
			return CMD_OK;
		}
		return cli_usage_error(cmd_convert_help, "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind != 2) {
		return cli_usage_error(cmd_convert_help, "convert takes an input and an output");
	}
	if (gpa_convert(argv[optind], argv[optind + 1], err, sizeof(err))) {
		cli_error("%s", err);
		return CMD_ERROR;
	}
	return CMD_OK;
}
