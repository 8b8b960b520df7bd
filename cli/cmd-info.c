/* SPDX-License-Identifier: MIT */
/*
 * gpuprof info - what a trace holds: format, process, devices, record
 * counts, time span, losses, truncation and corruption.
 */
#include "base/compat.h"
#include "analyze/file-info.h"
#include "analyze/model.h"
#include "cli/cli.h"
#include "report/report.h"

struct info_opts {
	bool json;
};

static const struct cli_option info_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 2),
	CLI_OPT_ENUMV('f', "format", "FORMAT", struct info_opts, json, cli_text_json,
		      "unknown format '%s' (text or json)",
		      "text (default) or json: one document {\"files\": [...]}"),
	/* The earlier spelling of --format json, kept working. */
	{.type = CLI_OPT_SET, 0, "json", NULL, NULL, CLI_FIELD_(struct info_opts, json),
	 .value = 1, .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_info_opts = {
	.usage =
	"usage: gpuprof info [--format json] FILE...\n"
	"\n"
	"Shows what each trace file holds: format version, the traced process (pid,\n"
	"host, command line, rank), devices, the number of records of every kind,\n"
	"the time span, records lost and why, and whether the file is complete.\n"
	"A PyTorch profiler (Kineto) JSON or Nsight Systems SQLite file is imported\n"
	"first, as every analysis reads it: its source format is shown, and the\n"
	"rest describes the converted trace.\n"
	"\n"
	"A file cut short (a killed process) is read up to its last whole chunk and\n"
	"reported with a warning. Corrupt chunks are skipped and listed, and the\n"
	"command fails (status 1), as it does for a file it cannot read at all.\n"
	"\n",
	.options = info_options,
};

/*
 * A span over a day is where implausible data hides (a record years off, a
 * day-long kernel): only then is the trace read whole, so that the load says
 * what it found, as every command does.
 */
static void check_span(const struct gpa_file_info *fi, const char *path)
{
	struct gpa_load_opts lo = {.drop = GPA_DROP_API_IDS | GPA_DROP_CORR};
	struct gpa_model m;
	char err[512];

	if (!fi->has_span || fi->last_ts - fi->first_ts <= GPA_SANITY_MAX_NS) {
		return;
	}
	if (gpa_model_load(&m, &path, 1, &lo, err, sizeof(err))) {
		cli_error("%s", err);
		return;
	}
	cli_sanity_warn(&m, path);
	gpa_model_release(&m);
}

int cmd_info(int argc, char **argv)
{
	struct info_opts opts = {0};
	struct gp_strbuf out = GP_STRBUF_INIT;
	struct gpr_sink *sink = NULL;
	struct cli_common common = {0}; /* --timeunit, --wide; --threads, --quiet unused */
	int nargs, status;

	status = cli_parse_options(&cmd_info_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	status = CMD_OK;
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_info_opts, "no trace file given");
	}
	if (gpr_sink_new(opts.json ? GPR_FORMAT_JSON : GPR_FORMAT_TEXT, &common.display, &out,
			 &sink)) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	sink->ops->begin(sink);
	for (int i = 0; i < nargs; i++) {
		struct gpa_file_info fi;
		char err[512];
		int ret = gpa_file_info_read(argv[i], &fi, err, sizeof(err));

		if (ret) {
			cli_error("%s", err);
			status = CMD_ERROR;
			gpa_file_info_release(&fi);
			continue;
		}
		sink->ops->file_info(sink, &fi);
		check_span(&fi, argv[i]);
		if (fi.problem_count) {
			const struct gpa_problem *p = NULL;
			for (size_t k = 0; k < fi.problems.n && !p; k++) {
				if (fi.problems.v[k].err != -GP_ERR_TRUNCATED) {
					p = &fi.problems.v[k];
				}
			}
			if (p) {
				cli_error("%s: %" PRIu64 " corrupt chunk%s skipped; first: chunk %" PRIu32
					  " at offset %" PRIu64 ": %s",
					  fi.path, fi.problem_count, fi.problem_count == 1 ? "" : "s",
					  p->chunk_index, p->offset, p->reason);
			} else {
				cli_error("%s: %" PRIu64 " corrupt chunks skipped", fi.path,
					  fi.problem_count);
			}
			status = CMD_ERROR;
		}
		uint64_t nrec = 0;
		for (size_t k = 0; k < GP_ARRAY_SIZE(fi.records); k++) {
			nrec += fi.records[k];
		}
		if (fi.truncated && !nrec) {
			/* Damaged and nothing kept: an error, as for every other command. */
			cli_error("%s: truncated at offset %" PRIu64 "; no records could be read",
				  fi.path, fi.truncated_at);
			status = CMD_ERROR;
		} else if (fi.truncated) {
			cli_warn("%s: truncated at offset %" PRIu64
				 "; read up to the last whole chunk",
				 fi.path, fi.truncated_at);
		}
		gpa_file_info_release(&fi);
	}
	sink->ops->end(sink);
	if (out.failed) {
		cli_error("out of memory");
		status = CMD_ERROR;
	} else if (!cli_write_stdout(out.buf, out.len)) {
		status = CMD_ERROR;
	}
	gpr_sink_free(sink);
	gp_strbuf_release(&out);
	return status;
}
