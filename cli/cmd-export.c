/* SPDX-License-Identifier: MIT */
/*
 * gpuprof export - write the traces in another tool's format. Each format
 * is one entry in 'formats': its option and its writer.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

const char cmd_export_help[] =
	"usage: gpuprof export [--sqlite OUT.sqlite] [--perfetto OUT.json] [--force] TRACE...\n"
	"\n"
	"Writes the traces (.gpz files, directories of them, Kineto JSON or nsys\n"
	"SQLite exports) in another tool's format.\n"
	"\n"
	"  --sqlite OUT  an Nsight Systems-compatible SQLite export: the tables and\n"
	"                columns user SQL and nsys-style reports read, times in ns\n"
	"                from the first event (docs/export.md)\n"
	"  --perfetto OUT  Chrome trace event JSON for ui.perfetto.dev and\n"
	"                chrome://tracing: threads, streams as tracks, NVTX ranges,\n"
	"                arrows from launches to kernels, records lost (docs/perfetto.md);\n"
	"                OUT '-' is standard output\n"
	"  --force       replace OUT if it exists\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read or OUT written, 2 usage.\n";

typedef int (*export_fn)(const struct gpa_model *m, const char *path, unsigned flags,
			 char *errbuf, size_t errlen);

static int export_perfetto(const struct gpa_model *m, const char *path, unsigned flags,
			   char *errbuf, size_t errlen)
{
	(void)flags; /* --force is checked before loading; the writer always replaces */
	return gpr_export_perfetto(m, path, errbuf, errlen);
}

static const struct {
	const char *option;
	export_fn fn;
} formats[] = {
	{"sqlite", gpr_export_sqlite},
	{"perfetto", export_perfetto},
};

int cmd_export(int argc, char **argv)
{
	enum { OPT_FORCE = 256, OPT_FORMAT = 257 };
	static const struct option longopts[] = {
		{"sqlite", required_argument, NULL, OPT_FORMAT + 0},
		{"perfetto", required_argument, NULL, OPT_FORMAT + 1},
		{"force", no_argument, NULL, OPT_FORCE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out[GP_ARRAY_SIZE(formats)] = {NULL};
	struct gpa_model m;
	unsigned flags = 0;
	bool any = false;
	char err[1024];
	int c, status = CMD_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cmd_export_help, stdout);
			return CMD_OK;
		} else if (c == OPT_FORCE) {
			flags |= GPR_EXPORT_FORCE;
		} else if (c >= OPT_FORMAT && c < OPT_FORMAT + (int)GP_ARRAY_SIZE(formats)) {
			out[c - OPT_FORMAT] = optarg;
			any = true;
		} else if (optopt) {
			return cli_usage_error(cmd_export_help, "option '%s' needs a value",
					       argv[optind - 1]);
		} else {
			return cli_usage_error(cmd_export_help, "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (!any) {
		return cli_usage_error(cmd_export_help, "export needs an output format (--sqlite or --perfetto)");
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_export_help, "export needs at least one trace");
	}
	/* Refuse before the (maybe long) load; the writer checks again without a race. */
	for (size_t i = 0; i < GP_ARRAY_SIZE(formats); i++) {
		if (out[i] && !(flags & GPR_EXPORT_FORCE) && access(out[i], F_OK) == 0) {
			cli_error("'%s' already exists (use --force to replace it)", out[i]);
			return CMD_ERROR;
		}
	}
	if (cli_load_model(&m, argv + optind, (size_t)(argc - optind))) {
		return CMD_ERROR;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(formats) && status == CMD_OK; i++) {
		if (out[i] && formats[i].fn(&m, out[i], flags, err, sizeof(err))) {
			cli_error("%s", err);
			status = CMD_ERROR;
		}
	}
	gpa_model_release(&m);
	return status;
}
