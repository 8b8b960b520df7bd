/* SPDX-License-Identifier: MIT */
/*
 * gpuprof stats - the nsys `stats` reports (cuda_gpu_kern_sum and friends)
 * on one or more traces, with nsys's columns, in four formats.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/stats.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/stats.h"

struct stats_opts {
	GP_VEC(enum gpa_stats_report) reports;
	enum gpr_format format;
	enum gpr_time_unit unit;
	enum gpa_kernel_name kname;
};

static int add_reports(struct cli_ctx *ctx, const struct cli_option *opt, const char *list);

/* "base" is nsys's word for short. */
static const struct cli_enum_value knames[] = {
	{"demangled", GPA_KNAME_DEMANGLED}, {"short", GPA_KNAME_SHORT},
	{"base", GPA_KNAME_SHORT},          {"mangled", GPA_KNAME_MANGLED},
	{NULL, 0},
};

static const struct cli_option stats_options[] = {
	CLI_OPT_GROUP("options:\n", 27, 6),
	CLI_OPT_CB('r', "report", "NAMES", add_reports,
		   "reports to print, comma-separated; may repeat"),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct stats_opts, format, gpr_format_parse,
		      "unknown format '%s'",
		      "table (aligned text, the default), csv, json, markdown"),
	CLI_OPT_ENUMP(0, "timeunit", "UNIT", struct stats_opts, unit, gpr_time_unit_parse,
		      "unknown time unit '%s'; use auto, ns, us, ms or s (or nsec, usec, msec, sec)",
		      "auto (default: text and Markdown in 3-4 digits\n"
		      "of ns, us, ms or s; CSV and JSON in nsec),\n"
		      "nsec, usec, msec or sec (also: ns, us, ms, s)"),
	CLI_OPT_ENUMV(0, "kernel-name", "MODE", struct stats_opts, kname, knames,
		      "unknown kernel-name mode '%s'; use demangled, short or mangled",
		      "demangled (default; the recorded name if none),\n"
		      "short (the function name alone; also: base), mangled"),
	{.type = CLI_OPT_SUBTABLE, .sub = cli_wide_options},
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_stats_opts = {
	.usage =
	"usage: gpuprof stats [--report NAME[,NAME...]] [--format FORMAT] [--timeunit UNIT]\n"
	"                     [--kernel-name MODE] TRACE...\n"
	"\n"
	"Prints nsys's `stats` reports, with the same columns and headers, for the\n"
	"traces given (files or directories of .gpz files; several processes load\n"
	"onto one timeline). Reports, in the order asked for:\n"
	"\n"
	"  cuda_gpu_kern_sum      kernels by name: total, count, avg, median, min, max, stddev\n"
	"  cuda_gpu_mem_time_sum  memcpy and memset by operation, by time\n"
	"  cuda_gpu_mem_size_sum  memcpy and memset by operation, by size (MB = 10^6 bytes)\n"
	"  cuda_api_sum           CUDA runtime and driver calls by name\n"
	"  nvtx_sum               NVTX push/pop and start/end ranges by name and style\n"
	"  nvtx_gpu_proj_sum      NVTX ranges projected onto the GPU ops they launched\n"
	"  cuda_gpu_trace         every GPU op by start time (relative to the first event)\n"
	"\n"
	"Without --report: nvtx_sum, cuda_api_sum, cuda_gpu_kern_sum,\n"
	"cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum (nsys's --stats=true set).\n"
	"Summaries are sorted by total time (size), largest first; \"Time (%)\" is the\n"
	"share of the rows listed. Values are exact: see docs/stats.md.\n"
	"\n",
	.options = stats_options,
	.flags = CLI_PERMUTE,
};

/* Appends the reports named in a comma-separated list. */
static int add_reports(struct cli_ctx *ctx, const struct cli_option *opt, const char *list)
{
	struct stats_opts *o = ctx->base;
	char *copy = strdup(list), *save = NULL;
	int status = 0;

	(void)opt;
	if (!copy) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int r = gpa_stats_report_parse(tok);
		if (r < 0) {
			status = cli_opt_usage_error(ctx, "unknown report '%s'", tok);
			break;
		}
		if (gp_vec_push(&o->reports, (enum gpa_stats_report)r)) {
			cli_error("out of memory");
			status = CMD_ERROR;
			break;
		}
	}
	free(copy);
	return status;
}

/* Computes and prints each report, writing output as it comes. */
static int run(const struct stats_opts *o, const struct gpr_display *d, const struct gpa_model *m)
{
	struct gpr_stats_writer *w = NULL;
	struct gp_strbuf out = GP_STRBUF_INIT;
	int status = CMD_OK, ret;

	if (gpr_stats_writer_new(o->format, d, o->unit, &w)) {
		cli_error("out of memory");
		return CMD_ERROR;
	}
	for (size_t i = 0; i < o->reports.n && status == CMD_OK; i++) {
		struct gpa_stats st;
		ret = gpa_stats_compute(m, o->reports.v[i], o->kname, &st);
		if (!ret) {
			ret = gpr_stats_writer_start(w, m, &st);
		}
		while (!ret && (ret = gpr_stats_writer_next(w, &out)) > 0) {
			if (!cli_write_stdout(out.buf, out.len)) {
				status = CMD_ERROR;
				break;
			}
			gp_strbuf_reset(&out);
			ret = 0;
		}
		if (ret < 0) {
			cli_error("%s: %s", gpa_stats_report_name(o->reports.v[i]),
				  gp_err_str(ret));
			status = CMD_ERROR;
		}
		if (status == CMD_OK && !cli_write_stdout(out.buf, out.len)) {
			status = CMD_ERROR;
		}
		gp_strbuf_reset(&out);
		gpa_stats_release(&st);
	}
	if (status == CMD_OK) {
		if (gpr_stats_writer_finish(w, &out) ||
		    gpr_sanity_append_end(&out, (enum gpr_format)o->format, m)) {
			cli_error("out of memory");
			status = CMD_ERROR;
		} else if (!cli_write_stdout(out.buf, out.len)) {
			status = CMD_ERROR;
		}
	}
	gp_strbuf_release(&out);
	gpr_stats_writer_free(w);
	return status;
}

int cmd_stats(int argc, char **argv)
{
	struct cli_common common = {0};
	static const enum gpa_stats_report defaults[] = {
		GPA_STATS_NVTX_SUM, GPA_STATS_API_SUM, GPA_STATS_KERN_SUM,
		GPA_STATS_MEM_TIME_SUM, GPA_STATS_MEM_SIZE_SUM,
	};
	struct stats_opts opts = {.format = GPR_FORMAT_TEXT, .unit = GPR_TIME_AUTO,
				  .kname = GPA_KNAME_DEMANGLED};
	struct gpa_model m;
	int nargs, status;

	status = cli_parse_options(&cmd_stats_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		goto out;
	}
	if (!nargs) {
		status = cli_cmd_usage_error(&cmd_stats_opts, "no trace file given");
		goto out;
	}
	if (!opts.reports.n) {
		for (size_t i = 0; i < GP_ARRAY_SIZE(defaults); i++) {
			if (gp_vec_push(&opts.reports, defaults[i])) {
				cli_error("out of memory");
				status = CMD_ERROR;
				goto out;
			}
		}
	}
	status = CMD_ERROR;
	if (cli_load_model(&common, &m, argv, (size_t)nargs)) {
		goto out;
	}
	status = run(&opts, &common.display, &m);
	gpa_model_release(&m);
out:
	gp_vec_free(&opts.reports);
	return status;
}
