/* SPDX-License-Identifier: MIT */
/*
 * gpuprof export - write the traces in another tool's format. Each format
 * is one entry in 'formats': its option and its writer.
 */
#include "base/compat.h"
#include "base/outfile.h"
#include "analyze/model.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/export.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int (*export_fn)(const struct gpa_model *m, const char *path, unsigned flags,
			 char *errbuf, size_t errlen);

/* Flags of this file beside enum gpr_export_flags. */
#define EXPORT_PROTO (1u << 16) /* --perfetto writes Perfetto's protobuf format */
#define EXPORT_CRITPATH (1u << 17) /* --critical-path: the path as flows */
#define EXPORT_QUIET (1u << 18)    /* --quiet: no progress line */

/* Each step's critical path (gpuprof critical-path's defaults), every event kept. */
static int critpath_of(const struct gpa_model *m, struct gpa_critpath *cp, char *errbuf,
		       size_t errlen)
{
	struct gpa_steps steps = {0};
	struct gpa_commclass cc = {0};
	struct gpa_critpath_opts o = {.top = 0, .keep_path = true};
	int ret = gpa_steps_find(m, NULL, &steps, errbuf, errlen);

	if (!ret) {
		ret = gpa_commclass_compute(m, NULL, &cc, errbuf, errlen);
	}
	if (!ret) {
		o.comm = &cc;
		ret = gpa_critpath_analyze(m, &steps, &o, cp, errbuf, errlen);
	}
	gpa_commclass_release(&cc);
	gpa_steps_release(&steps);
	return ret;
}

static int export_perfetto(const struct gpa_model *m, const char *path, unsigned flags,
			   char *errbuf, size_t errlen)
{
	struct cli_progress pr;
	struct gp_progress_cb cb = {cli_progress_fn, &pr};
	struct gpa_critpath cp = {0};
	int ret = 0;

	if (flags & EXPORT_CRITPATH) {
		ret = critpath_of(m, &cp, errbuf, errlen);
	}
	/* --force is checked before loading; the writers replace a regular file at the end. */
	cli_progress_start(&pr, flags & EXPORT_QUIET);
	if (!ret) {
		ret = flags & EXPORT_PROTO
			      ? gpr_export_pftrace(m, path, &cb, errbuf, errlen)
			      : gpr_export_perfetto_path(m, path, &cb,
							 flags & EXPORT_CRITPATH ? &cp : NULL,
							 errbuf, errlen);
	}
	cli_progress_end(&pr);
	gpa_critpath_release(&cp);
	return ret;
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
	const char *perfetto_format;             /* "proto", "json" or NULL: by extension */
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
		    "a trace for ui.perfetto.dev: threads, streams as tracks,\n"
		    "NVTX ranges, arrows from launches to kernels, records lost;\n"
		    "Perfetto's protobuf format when OUT ends in .pftrace or\n"
		    ".perfetto-trace, else Chrome trace event JSON (also read by\n"
		    "chrome://tracing; docs/perfetto.md); OUT '-' is standard output"),
	CLI_OPT_STR(0, "perfetto-format", "FMT", struct export_opts, perfetto_format,
		    "proto or json: the format of --perfetto whatever OUT's name"),
	CLI_OPT_BITV(0, "critical-path", struct export_opts, flags, EXPORT_CRITPATH,
		     "with a JSON --perfetto: each step's critical path\n"
		     "(gpuprof critical-path) as flows of the category\n"
		     "critical_path"),
	CLI_OPT_BITV(0, "force", struct export_opts, flags, GPR_EXPORT_FORCE,
		     "replace OUT if it is an existing file (a device or\n"
		     "FIFO is written without it; docs/reliability.md),\n"
		     "or write it into an input directory (never over an\n"
		     "input)"),
	CLI_OPT_HELP(CLI_OPTF_HIDDEN),
	CLI_OPT_END(),
};

const struct cli_command cmd_export_opts = {
	.usage =
	"usage: gpuprof export [--sqlite OUT.sqlite] [--perfetto OUT.pftrace|OUT.json]\n"
	"                      [--perfetto-format proto|json] [--critical-path] [--force]\n"
	"                      [--quiet] TRACE...\n"
	"\n"
	"Writes the traces (.gpz files, directories of them, Kineto JSON or nsys\n"
	"SQLite exports) in another tool's format. Long loads and exports show their\n"
	"progress on stderr when that is a terminal; --quiet turns it off.\n"
	"\n",
	.options = export_options,
};

/* Whether an output name asks for Perfetto's protobuf format. */
static bool is_pftrace_name(const char *path)
{
	static const char *const ext[] = {".pftrace", ".perfetto-trace"};
	size_t n = path ? strlen(path) : 0;

	for (size_t i = 0; i < GP_ARRAY_SIZE(ext); i++) {
		size_t k = strlen(ext[i]);

		if (n > k && !strcmp(path + n - k, ext[i])) {
			return true;
		}
	}
	return false;
}

int cmd_export(int argc, char **argv)
{
	struct cli_common common = {0};
	struct export_opts o = {.flags = 0};
	struct gpa_model m;
	bool any = false;
	char err[1024];
	int nargs, status;

	status = cli_parse_options(&cmd_export_opts, &o, &common, argc, argv, &nargs);
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
	if (o.perfetto_format && strcmp(o.perfetto_format, "proto") &&
	    strcmp(o.perfetto_format, "json")) {
		return cli_cmd_usage_error(&cmd_export_opts,
					   "--perfetto-format must be proto or json, not '%s'",
					   o.perfetto_format);
	}
	if (o.perfetto_format ? !strcmp(o.perfetto_format, "proto") : is_pftrace_name(o.out[1])) {
		o.flags |= EXPORT_PROTO;
	}
	if ((o.flags & EXPORT_CRITPATH) && (!o.out[1] || (o.flags & EXPORT_PROTO))) {
		return cli_cmd_usage_error(&cmd_export_opts,
					   "--critical-path needs a JSON --perfetto output");
	}
	status = cli_check_outputs(&cmd_export_opts, o.out, GP_ARRAY_SIZE(o.out), argv,
				   (size_t)nargs, o.flags & GPR_EXPORT_FORCE);
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
	if (cli_load_model(&common, &m, argv, (size_t)nargs)) {
		return CMD_ERROR;
	}
	o.flags |= common.quiet ? EXPORT_QUIET : 0;
	for (size_t i = 0; i < GP_ARRAY_SIZE(formats) && status == CMD_OK; i++) {
		if (o.out[i] && formats[i].fn(&m, o.out[i], o.flags, err, sizeof(err))) {
			cli_error("%s", err);
			status = CMD_ERROR;
		}
	}
	gpa_model_release(&m);
	return status;
}
