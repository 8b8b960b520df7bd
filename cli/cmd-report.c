/* SPDX-License-Identifier: MIT */
/*
 * gpuprof report - the one-stop answer: what was traced, step times, GPU
 * busy and idle by cause, top kernels, memory traffic, the longest gaps,
 * warnings.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/flame.h"
#include "analyze/gaps.h"
#include "analyze/mfu.h"
#include "analyze/occupancy.h"
#include "analyze/overview.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>

const char cmd_report_help[] =
	"usage: gpuprof report [--format text|json|markdown|html] [-o FILE] [--step REGEX]\n"
	"                      [--top N] [--max-steps N] [--min-gap DURATION] TRACE...\n"
	"\n"
	"Reads traces (files, or directories of .gpz files: many processes and ranks\n"
	"go on one timeline) and prints, in order: what was traced (processes,\n"
	"devices, span, losses); the step table with its distribution (median, p90,\n"
	"min, max); GPU busy and idle by cause; the top kernels by GPU time with\n"
	"their share; memory traffic; the longest idle gaps with their cause, step\n"
	"and NVTX context; warnings (records lost, files cut short, steps missing).\n"
	"Times are exact nanoseconds. The JSON schema is in docs/report.md.\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT     text (default), json, markdown, or html: one\n"
	"                          self-contained page (docs/html-report.md)\n"
	"  -o, --output FILE       write there instead of standard output\n"
	"      --html-events N     timeline events the HTML page embeds (200000)\n"
	"      --step REGEX        NVTX ranges that are steps (PCRE2; default\n"
	"                          ProfilerStep#N, else names like step/iteration)\n"
	"  -n, --top N             kernels and gaps listed (10)\n"
	"      --max-steps N       step rows in text and Markdown (50); JSON has all\n"
	"      --min-gap DURATION  gaps listed are at least this long (10us)\n"
	"      --kernel-name MODE  short, demangled (default) or mangled\n"
	"  -h, --help              this text\n"
	"\n"
	"Kernel efficiency: a \"Theoretical occupancy\" section (docs/occupancy.md)\n"
	"and copy bandwidth against the link always; a \"Utilization\" section (MFU,\n"
	"HFU, MBU) when FLOPs, a model or bytes per step are given with the options\n"
	"of 'gpuprof mfu' (--flops-per-step, --params, --tokens-per-step, --attention,\n"
	"--layers, --hidden, --seq-len, --inference, --recompute, --bytes-per-step,\n"
	"--gpus, --dtype, --device, --device-file, --peak-tflops, --peak-bw), and a\n"
	"\"Roofline\" section with --roofline FILE (FLOP and byte formulas per kernel;\n"
	"docs/mfu.md).\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n";

struct report_opts {
	enum gpr_format format;
	bool html;
	const char *output;
	size_t html_events;
	const char *step_regex;
	size_t top, max_steps;
	enum gpa_kernel_name kname;
	struct gpa_gaps_opts gaps;
	struct cli_mfu mfu;
};

static int run(const struct report_opts *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps = {0};
	struct gpa_gaps gaps = {0}, shade = {0};
	struct gpa_flame flame = {0};
	struct gp_strbuf flame_svg = GP_STRBUF_INIT;
	struct gpa_overview ov = {0};
	struct gpa_stats kern = {0};
	struct gpa_occupancy occ = {0};
	struct gpa_mfu mfu = {0};
	struct gpa_occ_opts occ_opts = {.device = -1};
	struct gpa_comm comm = {0};
	struct gpa_comm_opts comm_opts;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int ret, status = CMD_ERROR;

	if (cli_load_model(&m, args, nargs)) {
		return CMD_ERROR;
	}
	ret = gpa_steps_find(&m, o->step_regex, &steps, err, sizeof(err));
	if (!ret) {
		ret = gpa_gaps_analyze(&m, &steps, &o->gaps, &gaps, err, sizeof(err));
	}
	if (ret) {
		cli_error("%s", err);
		status = ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
		goto out;
	}
	if (gpa_overview_build(&m, &steps, &ov) ||
	    gpa_stats_compute(&m, GPA_STATS_KERN_SUM, o->kname, &kern)) {
		cli_error("out of memory");
		goto out;
	}
	ret = gpa_occupancy_analyze(&m, &steps, &occ_opts, &occ, err, sizeof(err));
	if (!ret) {
		ret = gpa_mfu_analyze(&m, &steps, &o->mfu.a, &mfu, err, sizeof(err));
	}
	if (ret) {
		cli_error("%s", err);
		status = ret == -GP_ERR_API || ret == -GP_ERR_NOTFOUND ? CMD_USAGE : CMD_ERROR;
		goto out;
	}
	gpa_comm_opts_init(&comm_opts);
	comm_opts.steps = &steps;
	if (gpa_comm_analyze(&m, &comm_opts, &comm, err, sizeof(err))) {
		cli_error("%s", err);
		goto out;
	}
	struct gpr_report_parts parts = {
		.m = &m,
		.steps = &steps,
		.ov = &ov,
		.gaps = &gaps,
		.kernels = &kern,
		.top_kernels = o->top,
		.max_steps = o->max_steps,
		.occ = &occ,
		.mfu = &mfu,
		.mfu_dtype = o->mfu.a.dtype,
		.comm = &comm,
	};
	if (o->html) {
		struct gpr_html_opts ho;
		struct gpa_gaps_opts so = o->gaps;

		/* The gaps the timeline shades: every one of at least 1 us, up to a bound. */
		so.min_gap_ns = 1000;
		so.top = 4 * o->html_events;
		struct gpa_flame_opts fo;
		struct gpr_flame_svg_opts svo;

		gpr_html_opts_init(&ho);
		ho.max_events = o->html_events;
		ho.shade = &shade;
		gpa_flame_opts_init(&fo);
		gpr_flame_svg_opts_init(&svo);
		if (gpa_gaps_analyze(&m, &steps, &so, &shade, err, sizeof(err)) ||
		    gpa_flame_build(&m, &fo, &flame, err, sizeof(err)) ||
		    (flame.ops && gpr_flame_svg(&flame_svg, &flame, &svo, err, sizeof(err)))) {
			cli_error("%s", err);
			goto out;
		}
		ho.flame_svg = flame_svg.buf;
		ho.flame_svg_len = flame_svg.len;
		if (gpr_html_render(&out, &parts, &ho, err, sizeof(err))) {
			cli_error("%s", err);
			goto out;
		}
	} else if (gpr_report_render(&out, o->format, &parts)) {
		cli_error("out of memory");
		goto out;
	}
	if (o->output ? cli_write_file(o->output, out.buf, out.len)
		      : cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gpa_mfu_release(&mfu);
	gpa_occupancy_release(&occ);
	gpa_gaps_release(&shade);
	gpa_flame_release(&flame);
	gp_strbuf_release(&flame_svg);
	gp_strbuf_release(&out);
	gpa_stats_release(&kern);
	gpa_comm_release(&comm);
	gpa_overview_release(&ov);
	gpa_gaps_release(&gaps);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

static bool parse_count(const char *s, size_t *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > 1000000000ULL) {
		return false;
	}
	*out = (size_t)v;
	return true;
}

int cmd_report(int argc, char **argv)
{
	struct option longopts[40] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"html-events", required_argument, NULL, 'E'},
		{"step", required_argument, NULL, 's'},
		{"top", required_argument, NULL, 'n'},
		{"max-steps", required_argument, NULL, 'S'},
		{"min-gap", required_argument, NULL, 'm'},
		{"kernel-name", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
	};
	struct report_opts o = {.format = GPR_FORMAT_TEXT, .top = 10, .max_steps = 50,
				.kname = GPA_KNAME_DEMANGLED, .html_events = 200000};
	int c, v, status;

	/* The MFU options of gpuprof mfu (cli/cmd-mfu.c) follow the report's own. */
	memcpy(longopts + 9, cli_mfu_longopts, cli_mfu_nlongopts * sizeof(*longopts));
	cli_mfu_init(&o.mfu);

	gpa_gaps_opts_init(&o.gaps);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:o:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.html = !strcmp(optarg, "html");
			if (o.html) {
				o.format = GPR_FORMAT_JSON;
				break;
			}
			v = gpr_format_parse(optarg);
			if (v != GPR_FORMAT_TEXT && v != GPR_FORMAT_JSON && v != GPR_FORMAT_MARKDOWN) {
				return cli_usage_error(cmd_report_help, "unknown format '%s'", optarg);
			}
			o.format = (enum gpr_format)v;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'E':
			if (!parse_count(optarg, &o.html_events) || !o.html_events) {
				return cli_usage_error(cmd_report_help, "bad count '%s'", optarg);
			}
			break;
		case 's':
			o.step_regex = optarg;
			break;
		case 'n':
			if (!parse_count(optarg, &o.top)) {
				return cli_usage_error(cmd_report_help, "bad count '%s'", optarg);
			}
			o.gaps.top = o.top;
			break;
		case 'S':
			if (!parse_count(optarg, &o.max_steps)) {
				return cli_usage_error(cmd_report_help, "bad count '%s'", optarg);
			}
			break;
		case 'm':
			if (!cli_parse_duration(optarg, &o.gaps.min_gap_ns)) {
				return cli_usage_error(cmd_report_help, "bad duration '%s'", optarg);
			}
			break;
		case 'k':
			if (!strcmp(optarg, "short")) {
				o.kname = GPA_KNAME_SHORT;
			} else if (!strcmp(optarg, "demangled")) {
				o.kname = GPA_KNAME_DEMANGLED;
			} else if (!strcmp(optarg, "mangled")) {
				o.kname = GPA_KNAME_MANGLED;
			} else {
				return cli_usage_error(cmd_report_help, "unknown kernel-name mode '%s'",
						       optarg);
			}
			break;
		case 'h':
			fputs(cmd_report_help, stdout);
			return CMD_OK;
		default:
			v = c == '?' ? -1 : cli_mfu_option(c, optarg, cmd_report_help, &o.mfu);
			if (v > 0) {
				return v;
			}
			if (v < 0) {
				return cli_usage_error(cmd_report_help,
						       "unknown option or missing value '%s'",
						       argv[optind - 1]);
			}
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_report_help, "no trace given");
	}
	if (cli_mfu_load_file(&o.mfu)) {
		return CMD_ERROR;
	}
	status = run(&o, argv + optind, (size_t)(argc - optind));
	cli_mfu_release(&o.mfu);
	return status;
}
