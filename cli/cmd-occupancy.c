/* SPDX-License-Identifier: MIT */
/*
 * gpuprof occupancy - theoretical occupancy of every kernel launch: per
 * kernel and configuration, the limiting resource, what would reach the
 * next level, waves and tail; time-weighted per step.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/occupancy.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>

const char cmd_occupancy_help[] =
	"usage: gpuprof occupancy [--format FORMAT] [--kernel REGEX] [--device N] [--top N|all]\n"
	"                         [--step REGEX] [--no-whatif] TRACE...\n"
	"\n"
	"Computes the theoretical occupancy of every kernel launch from its recorded\n"
	"configuration (block size, registers per thread, static and dynamic shared\n"
	"memory, carve-out preference, opt-in) and the device's limits, for compute\n"
	"capabilities 7.0 to 12.x, with the same arithmetic as the CUDA occupancy API.\n"
	"Launches are grouped by kernel, configuration and device and sorted by GPU\n"
	"time. Per group: active blocks and warps per SM, occupancy, the limiting\n"
	"resource (warps, registers, shared memory, blocks, barriers), the\n"
	"grid-limited occupancy, waves (grid / (blocks per SM x SMs)) and the\n"
	"efficiency of the last wave, the source's own estimate when the trace has one\n"
	"(PyTorch profiler), and what would add a block: the register count or shared\n"
	"memory per block, or the block size with the best occupancy. Per step: the\n"
	"occupancy of its kernels weighted by their GPU time. See docs/occupancy.md.\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT   text (default), json, csv, markdown\n"
	"  -k, --kernel REGEX    only kernels whose (demangled) name matches (PCRE2)\n"
	"  -d, --device N        only CUDA device N (in every process)\n"
	"  -n, --top N|all       kernel groups shown (20)\n"
	"      --step REGEX      NVTX ranges that are steps\n"
	"      --no-whatif       skip the what-if column\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n";

struct occ_cli {
	enum gpr_format format;
	size_t top;
	const char *step_regex;
	struct gpa_occ_opts a;
};

static int run(const struct occ_cli *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_occupancy occ;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	status = cli_load_steps(&m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	status = CMD_ERROR;
	ret = gpa_occupancy_analyze(&m, &steps, &o->a, &occ, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
		goto out;
	}
	if (!occ.launches && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no kernel launches%s", o->a.kernel_regex ? " match" : " in the traces");
	}
	if (gpr_occupancy_render(&out, o->format, &m, &steps, &occ, o->top)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gpa_occupancy_release(&occ);
out:
	gp_strbuf_release(&out);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

int cmd_occupancy(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'}, {"kernel", required_argument, NULL, 'k'},
		{"device", required_argument, NULL, 'd'}, {"top", required_argument, NULL, 'n'},
		{"step", required_argument, NULL, 's'},   {"no-whatif", no_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	struct occ_cli o = {.format = GPR_FORMAT_TEXT, .top = 20, .a = {.device = -1, .whatif = true}};
	char *end;
	int c, v;
	unsigned long long n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:k:d:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_occupancy_help, "unknown format '%s'",
						       optarg);
			}
			o.format = (enum gpr_format)v;
			break;
		case 'k':
			o.a.kernel_regex = optarg;
			break;
		case 'd':
			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || n > INT32_MAX) {
				return cli_usage_error(cmd_occupancy_help, "bad device '%s'", optarg);
			}
			o.a.device = (int64_t)n;
			break;
		case 'n':
			if (!strcmp(optarg, "all")) {
				o.top = SIZE_MAX;
				break;
			}
			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' || n >= SIZE_MAX) {
				return cli_usage_error(cmd_occupancy_help, "bad --top '%s'", optarg);
			}
			o.top = (size_t)n;
			break;
		case 's':
			o.step_regex = optarg;
			break;
		case 'W':
			o.a.whatif = false;
			break;
		case 'h':
			fputs(cmd_occupancy_help, stdout);
			return CMD_OK;
		default:
			if (optopt) {
				return cli_usage_error(cmd_occupancy_help,
						       "unknown option or missing value: '-%c'", optopt);
			}
			return cli_usage_error(cmd_occupancy_help,
					       "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_occupancy_help, "no trace file given");
	}
	return run(&o, argv + optind, (size_t)(argc - optind));
}
