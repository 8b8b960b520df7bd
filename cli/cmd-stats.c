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

#include <getopt.h>

const char cmd_stats_help[] =
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
	"\n"
	"options:\n"
	"  -r, --report NAMES       reports to print, comma-separated; may repeat\n"
	"  -f, --format FORMAT      table (aligned text, the default), csv, json, markdown\n"
	"      --timeunit UNIT      nsec (default), usec, msec or sec\n"
	"      --kernel-name MODE   demangled (default; the recorded name if none),\n"
	"                           short (the function name alone; also: base), mangled\n"
	"  -h, --help               this text\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n";

struct stats_opts {
	GP_VEC(enum gpa_stats_report) reports;
	enum gpr_format format;
	enum gpr_time_unit unit;
	enum gpa_kernel_name kname;
};

/* Appends the reports named in a comma-separated list; false on an unknown one. */
static bool add_reports(struct stats_opts *o, const char *list, bool *nomem)
{
	char *copy = strdup(list), *save = NULL;
	bool ok = true;

	if (!copy) {
		*nomem = true;
		return false;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int r = gpa_stats_report_parse(tok);
		if (r < 0) {
			cli_usage_error(cmd_stats_help, "unknown report '%s'", tok);
			ok = false;
			break;
		}
		if (gp_vec_push(&o->reports, (enum gpa_stats_report)r)) {
			*nomem = true;
			ok = false;
			break;
		}
	}
	free(copy);
	return ok;
}

/* Computes and prints each report, writing output as it comes. */
static int run(const struct stats_opts *o, const struct gpa_model *m)
{
	struct gpr_stats_writer *w = NULL;
	struct gp_strbuf out = GP_STRBUF_INIT;
	int status = CMD_OK, ret;

	if (gpr_stats_writer_new(o->format, o->unit, &w)) {
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
		if (gpr_stats_writer_finish(w, &out)) {
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
	static const struct option longopts[] = {
		{"report", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'},
		{"timeunit", required_argument, NULL, 'u'},
		{"kernel-name", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	/* "base" is nsys's word for short. */
	static const struct {
		const char *name;
		enum gpa_kernel_name mode;
	} knames[] = {{"demangled", GPA_KNAME_DEMANGLED}, {"short", GPA_KNAME_SHORT},
		      {"base", GPA_KNAME_SHORT}, {"mangled", GPA_KNAME_MANGLED}};
	static const enum gpa_stats_report defaults[] = {
		GPA_STATS_NVTX_SUM, GPA_STATS_API_SUM, GPA_STATS_KERN_SUM,
		GPA_STATS_MEM_TIME_SUM, GPA_STATS_MEM_SIZE_SUM,
	};
	struct stats_opts opts = {.format = GPR_FORMAT_TEXT, .unit = GPR_TIME_NS,
				  .kname = GPA_KNAME_DEMANGLED};
	struct gpa_model m;
	bool nomem = false;
	int c, v, status = CMD_USAGE;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "r:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!add_reports(&opts, optarg, &nomem)) {
				goto out;
			}
			break;
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				status = cli_usage_error(cmd_stats_help, "unknown format '%s'",
							 optarg);
				goto out;
			}
			opts.format = (enum gpr_format)v;
			break;
		case 'u':
			v = gpr_time_unit_parse(optarg);
			if (v < 0) {
				status = cli_usage_error(cmd_stats_help,
							 "unknown time unit '%s'; use nsec, usec, "
							 "msec or sec",
							 optarg);
				goto out;
			}
			opts.unit = (enum gpr_time_unit)v;
			break;
		case 'k':
			v = -1;
			for (size_t i = 0; i < GP_ARRAY_SIZE(knames); i++) {
				if (!strcmp(optarg, knames[i].name)) {
					v = (int)knames[i].mode;
				}
			}
			if (v < 0) {
				status = cli_usage_error(cmd_stats_help,
							 "unknown kernel-name mode '%s'; use "
							 "demangled, short or mangled",
							 optarg);
				goto out;
			}
			opts.kname = (enum gpa_kernel_name)v;
			break;
		case 'h':
			fputs(cmd_stats_help, stdout);
			status = CMD_OK;
			goto out;
		default:
			if (optopt && strchr("rfuk", optopt)) {
				status = cli_usage_error(cmd_stats_help,
							 "option '%s' needs a value",
							 argv[optind - 1]);
			} else {
				status = cli_usage_error(cmd_stats_help, "unknown option '%s'",
							 argv[optind - 1]);
			}
			goto out;
		}
	}
	if (optind >= argc) {
		status = cli_usage_error(cmd_stats_help, "no trace file given");
		goto out;
	}
	if (!opts.reports.n) {
		for (size_t i = 0; i < GP_ARRAY_SIZE(defaults); i++) {
			if (gp_vec_push(&opts.reports, defaults[i])) {
				nomem = true;
				goto out;
			}
		}
	}
	status = CMD_ERROR;
	if (cli_load_model(&m, argv + optind, (size_t)(argc - optind))) {
		goto out;
	}
	status = run(&opts, &m);
	gpa_model_release(&m);
out:
	if (nomem) {
		cli_error("out of memory");
		status = CMD_ERROR;
	}
	gp_vec_free(&opts.reports);
	return status;
}
