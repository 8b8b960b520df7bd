/* SPDX-License-Identifier: MIT */
/*
 * gpuprof export - write the traces in another tool's format. Each format
 * is one entry in 'formats': its option and its writer.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "analyze/model.h"
#include "cli/cli.h"
#include "report/report.h"

#include <stdio.h>
#include <unistd.h>

typedef int (*export_fn)(const struct gpa_model *m, const char *path, unsigned flags,
			 char *errbuf, size_t errlen);

static int export_perfetto(const struct gpa_model *m, const char *path, unsigned flags,
			   char *errbuf, size_t errlen)
{
	/* --force is checked before loading; the writer replaces a regular file at the end. */
	(void)flags;
	return gpr_export_perfetto(m, path, errbuf, errlen);
}

static const struct {
	const char *option;
	export_fn fn;
} formats[] = {
	{"sqlite", gpr_export_sqlite},
	{"perfetto", export_perfetto},
};

struct export_opts {
	const char *out[GP_ARRAY_SIZE(formats)]; /* per format: where, or NULL */
	unsigned flags;
};

static const struct cli_option export_options[] = {
	CLI_OPT_GROUP("", 16, 2),
	CLI_OPT_STR(0, "sqlite", "OUT", struct export_opts, out[0],
		    "an Nsight Systems-compatible SQLite export: the tables and\n"
		    "columns user SQL and nsys-style reports read, times in ns\n"
		    "from the first event (docs/export.md); OUT '-' is\n"
		    "standard output"),
	CLI_OPT_STR(0, "perfetto", "OUT", struct export_opts, out[1],
		    "Chrome trace event JSON for ui.perfetto.dev and\n"
		    "chrome://tracing: threads, streams as tracks, NVTX ranges,\n"
		    "arrows from launches to kernels, records lost (docs/perfetto.md);\n"
		    "OUT '-' is standard output"),
	CLI_OPT_BITV(0, "force", struct export_opts, flags, GPR_EXPORT_FORCE,
		     "replace OUT if it is an existing file (a device or\n"
		     "FIFO is written without it; docs/reliability.md)"),
	CLI_OPT_HELP(CLI_OPTF_HIDDEN),
	CLI_OPT_END(),
};

const struct cli_command cmd_export_opts = {
	.usage =
	"usage: gpuprof export [--sqlite OUT.sqlite] [--perfetto OUT.json] [--force] TRACE...\n"
	"\n"
	"Writes the traces (.gpz files, directories of them, Kineto JSON or nsys\n"
	"SQLite exports) in another tool's format.\n"
	"\n",
	.options = export_options,
	.footer = "\nExit status: 0 ok, 1 a trace could not be read or OUT written, 2 usage.\n",
	.msgs = &cli_msgs_needs,
};

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {.flags = 0};
	struct gpa_model m;
	bool any = false;
	char err[1024];
	int nargs, status;

	status = cli_parse_options(&cmd_export_opts, &o, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	status = CMD_OK;
	for (size_t i = 0; i < GP_ARRAY_SIZE(formats); i++) {
		any |= o.out[i] != NULL;
	}
	if (!any) {
		return cli_cmd_usage_error(
			&cmd_export_opts, "export needs an output format (--sqlite or --perfetto)");
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_export_opts, "export needs at least one trace");
	}
	status = cli_check_outputs(&cmd_export_opts, o.out, GP_ARRAY_SIZE(o.out), argv,
				   (size_t)nargs);
	if (status != CMD_OK) {
		return status;
	}
	/*
	 * Refuse before the (maybe long) load; the writer checks again without a
	 * race. Only a regular file is replaced: a device or FIFO is written to.
	 */
	for (size_t i = 0; i < GP_ARRAY_SIZE(formats); i++) {
		if (o.out[i] && !(o.flags & GPR_EXPORT_FORCE) && gp_out_is_regular(o.out[i])) {
			cli_error("'%s' already exists (use --force to replace it)", o.out[i]);
			return CMD_ERROR;
		}
	}
	if (cli_load_model(&m, argv, (size_t)nargs)) {
		return CMD_ERROR;
	}
	for (size_t i = 0; i < GP_ARRAY_SIZE(formats) && status == CMD_OK; i++) {
		if (o.out[i] && formats[i].fn(&m, o.out[i], o.flags, err, sizeof(err))) {
			cli_error("%s", err);
			status = CMD_ERROR;
		}
	}
	gpa_model_release(&m);
	return status;
}
