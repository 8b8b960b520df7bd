/* SPDX-License-Identifier: MIT */
/*
 * gpuprof comm - communication: NCCL collectives by type and size with
 * algbw/busbw, exposed communication per device and step, and the same
 * operation matched across ranks (skew, straggler, waiting).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>

const char cmd_comm_help[] =
	"usage: gpuprof comm [--format FORMAT] [--table NAME] [--step REGEX]\n"
	"                    [--comm-kernel REGEX]... TRACE...\n"
	"\n"
	"Analyses the communication in the traces (files or directories of .gpz\n"
	"files; Kineto JSON and nsys SQLite are imported), one file per rank:\n"
	"\n"
	"  collectives   NCCL operations by collective and message size: count,\n"
	"                time, bytes, algbw = S/t and busbw = algbw x f(n) with the\n"
	"                nccl-tests data size S and bus factor f; t is the GPU time\n"
	"                (the fastest rank's when matched across ranks), else the\n"
	"                host time; compared with the link peak when it is known\n"
	"  exposed       per device and step: communication kernel time, the part\n"
	"                overlapped by compute kernels, the exposed rest, overlap %\n"
	"  ranks         the same operation on every rank (communicator hash and\n"
	"                sequence number): arrival skew, how often each rank came\n"
	"                last, the time the others waited for it\n"
	"\n"
	"Communication kernels are the kernels linked to NCCL records (external\n"
	"correlation); name rules (NCCL, NVSHMEM, DeepEP-style, custom all-reduce,\n"
	"and --comm-kernel) name the rest, but in a process whose kernels link to\n"
	"NCCL records an NCCL-named kernel counts only when linked. Times are exact\n"
	"nanoseconds; bandwidths GB/s (1e9 bytes per second). See docs/comm.md.\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT     text (default), json, csv, markdown\n"
	"      --table NAME        one table only: collectives, exposed, ranks\n"
	"      --step REGEX        NVTX ranges that are steps (default: ProfilerStep#N,\n"
	"                          else names like step/iteration)\n"
	"      --comm-kernel REGEX kernels matching this PCRE2 pattern communicate\n"
	"                          (repeatable; checked before the built-in rules)\n"
	"  -h, --help              this text\n";

#define MAX_RULES 32

struct comm_opts {
	enum gpr_format format;
	unsigned tables;
	const char *step_regex;
	const char *rules[MAX_RULES];
	size_t nrules;
};

static int run(const struct comm_opts *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_comm c;
	struct gpa_comm_opts co;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	status = cli_load_steps(&m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	status = CMD_ERROR;
	gpa_comm_opts_init(&co);
	co.steps = &steps;
	co.kernel_rules = o->rules;
	co.nkernel_rules = o->nrules;
	ret = gpa_comm_analyze(&m, &co, &c, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
		goto out_steps;
	}
	if (!gpr_comm_has_data(&c) && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no NCCL operations or communication kernels in the trace%s",
			 m.procs.n == 1 ? "" : "s");
	}
	if (gpr_comm_render(&out, o->format, o->tables, &m, &steps, &c)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gp_strbuf_release(&out);
	gpa_comm_release(&c);
out_steps:
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

int cmd_comm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"table", required_argument, NULL, 't'},
		{"step", required_argument, NULL, 's'},
		{"comm-kernel", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct comm_opts o = {.format = GPR_FORMAT_TEXT, .tables = GPR_COMM_ALL};
	int c, v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_comm_help, "unknown format '%s'", optarg);
			}
			o.format = (enum gpr_format)v;
			break;
		case 't':
			if (!strcmp(optarg, "collectives")) {
				o.tables = GPR_COMM_COLLS;
			} else if (!strcmp(optarg, "exposed")) {
				o.tables = GPR_COMM_EXPOSED;
			} else if (!strcmp(optarg, "ranks")) {
				o.tables = GPR_COMM_RANKS;
			} else {
				return cli_usage_error(cmd_comm_help, "unknown table '%s'", optarg);
			}
			break;
		case 's':
			o.step_regex = optarg;
			break;
		case 'k':
			if (o.nrules == MAX_RULES) {
				return cli_usage_error(cmd_comm_help, "more than %d --comm-kernel rules",
						       MAX_RULES);
			}
			o.rules[o.nrules++] = optarg;
			break;
		case 'h':
			fputs(cmd_comm_help, stdout);
			return CMD_OK;
		default:
			if (optopt == 'f') {
				return cli_usage_error(cmd_comm_help, "option '-f' needs a value");
			}
			if (optopt) {
				return cli_usage_error(cmd_comm_help, "unknown option '-%c'", optopt);
			}
			return cli_usage_error(cmd_comm_help, "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_comm_help, "no trace file given");
	}
	return run(&o, argv + optind, (size_t)(argc - optind));
}
