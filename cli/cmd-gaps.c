/* SPDX-License-Identifier: MIT */
/*
 * gpuprof gaps - when each GPU was idle and why: busy %, idle by cause,
 * gap lengths, the longest gaps with their evidence, per-step stretches.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>

const char cmd_gaps_help[] =
	"usage: gpuprof gaps [--format FORMAT] [--top N|all] [--min-gap DURATION] [--step REGEX]\n"
	"                    [--device N] [--per-step] [--table NAME] [--data-loader REGEX]\n"
	"                    [--latency DURATION] TRACE...\n"
	"\n"
	"Finds the idle gaps of every GPU in the traces (files or directories of .gpz\n"
	"files) and says why each one happened. Per device the window runs from the\n"
	"first GPU op's start to the last one's end; busy is the union of kernels,\n"
	"memcpys and memsets (synchronization records are not GPU work); every gap\n"
	"between them gets one cause with its evidence: profiler overhead, host\n"
	"synchronization, data loading, memory management, JIT/module load, launch\n"
	"overhead, CPU-bound, communication wait, stream/event dependency, unknown.\n"
	"\n"
	"Prints busy %, idle by cause, a gap-length histogram and the longest gaps\n"
	"with their step and NVTX context. Totals count every gap, however short;\n"
	"the list shows gaps of at least --min-gap. Times are exact nanoseconds,\n"
	"starts counted from the first event. See docs/gaps.md.\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT       text (default), json, csv, markdown\n"
	"  -n, --top N|all           list the N longest gaps (10); 0 lists none\n"
	"      --min-gap DURATION    list gaps at least this long (10us); units ns, us,\n"
	"                            ms, s; a bare number is nanoseconds\n"
	"      --step REGEX          NVTX ranges that are steps (default: ProfilerStep#N,\n"
	"                            else names like step/iteration)\n"
	"  -d, --device N            only CUDA device N (in every process)\n"
	"      --per-step            add the per-step table\n"
	"      --table NAME          print one table only: devices, causes, histogram,\n"
	"                            gaps, steps\n"
	"      --data-loader REGEX   NVTX names that are data loading (PCRE2; default\n"
	"                            data.?loader, __next__, fetch, collate, prefetch,\n"
	"                            input, case-insensitive)\n"
	"      --latency DURATION    queued gaps shorter than this are launch latency,\n"
	"                            longer ones a dependency (30us)\n"
	"  -h, --help                this text\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n";

struct gaps_opts {
	enum gpr_format format;
	unsigned tables;
	const char *step_regex;
	struct gpa_gaps_opts a;
};

static int run(const struct gaps_opts *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_gaps g;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	status = cli_load_steps(&m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	status = CMD_ERROR;
	ret = gpa_gaps_analyze(&m, &steps, &o->a, &g, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
		goto out;
	}
	if (!g.devs.n && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no GPU activity in the trace%s", m.procs.n == 1 ? "" : "s");
	}
	if (gpr_gaps_render(&out, o->format, o->tables, &m, &steps, &g)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gp_strbuf_release(&out);
	gpa_gaps_release(&g);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

int cmd_gaps(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"top", required_argument, NULL, 'n'},
		{"min-gap", required_argument, NULL, 'm'},
		{"step", required_argument, NULL, 's'},
		{"device", required_argument, NULL, 'd'},
		{"per-step", no_argument, NULL, 'p'},
		{"table", required_argument, NULL, 't'},
		{"data-loader", required_argument, NULL, 'l'},
		{"latency", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct gaps_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_GAPS_DEFAULT};
	char *end;
	int c, v;
	bool per_step = false;
	unsigned long long n;

	gpa_gaps_opts_init(&opts.a);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:n:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_gaps_help, "unknown format '%s'",
						       optarg);
			}
			opts.format = (enum gpr_format)v;
			break;
		case 'n':
			if (!strcmp(optarg, "all")) {
				opts.a.top = SIZE_MAX;
				break;
			}
			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || n >= SIZE_MAX) {
				return cli_usage_error(cmd_gaps_help, "bad --top '%s'", optarg);
			}
			opts.a.top = (size_t)n;
			break;
		case 'm':
			if (!cli_parse_duration(optarg, &opts.a.min_gap_ns)) {
				return cli_usage_error(cmd_gaps_help, "bad duration '%s'", optarg);
			}
			break;
		case 'L':
			if (!cli_parse_duration(optarg, &opts.a.latency_ns)) {
				return cli_usage_error(cmd_gaps_help, "bad duration '%s'", optarg);
			}
			break;
		case 's':
			opts.step_regex = optarg;
			break;
		case 'd':
			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || n > INT32_MAX) {
				return cli_usage_error(cmd_gaps_help, "bad device '%s'", optarg);
			}
			opts.a.device = (int64_t)n;
			break;
		case 'p':
			per_step = true;
			break;
		case 't':
			v = gpr_gaps_table_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_gaps_help, "unknown table '%s'", optarg);
			}
			opts.tables = (unsigned)v;
			break;
		case 'l':
			opts.a.data_regex = optarg;
			break;
		case 'h':
			fputs(cmd_gaps_help, stdout);
			return CMD_OK;
		default:
			if (optopt && strchr("fnd", optopt)) {
				return cli_usage_error(cmd_gaps_help, "option '-%c' needs a value",
						       optopt);
			}
			if (optopt) {
				return cli_usage_error(cmd_gaps_help, "unknown option '-%c'",
						       optopt);
			}
			return cli_usage_error(cmd_gaps_help,
					       "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_gaps_help, "no trace file given");
	}
	if (per_step && opts.tables == GPR_GAPS_DEFAULT) {
		opts.tables |= GPR_GAPS_STEPS;
	}
	return run(&opts, argv + optind, (size_t)(argc - optind));
}
