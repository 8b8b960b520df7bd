/* SPDX-License-Identifier: MIT */
/*
 * gpuprof occupancy - theoretical occupancy of every kernel launch: per
 * kernel and configuration, the limiting resource, what would reach the
 * next level, waves and tail; time-weighted per step.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"
#include "analyze/occupancy.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/occupancy.h"

struct occ_cli {
	enum gpr_format format;
	size_t top;
	const char *step_regex;
	const char *gpu;
	struct gpa_occ_opts a;
};

/*
 * --device NAME, and --gpu N: before the one vocabulary, --device N was the
 * GPU index and --gpu NAME the table row here; a value of digits alone is an
 * index (no row's name is a number), so both earlier spellings keep working.
 */
static int opt_device(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct occ_cli *o = ctx->base;
	uint64_t n;

	(void)opt;
	if (arg[0] >= '0' && arg[0] <= '9') {
		if (!cli_parse_uint(arg, INT32_MAX, &n)) {
			return cli_opt_usage_error(ctx, "bad GPU '%s'", arg);
		}
		o->a.device = (int64_t)n;
	} else {
		o->gpu = arg;
	}
	return 0;
}

static const struct cli_option occupancy_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct occ_cli, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	CLI_OPT_RE('k', "kernel", "REGEX", struct occ_cli, a.kernel_regex, "kernel pattern",
		   "only kernels whose (demangled) name matches (PCRE2)"),
	CLI_OPT_CB('d', "gpu", "N", opt_device, "only CUDA device N (in every process)"),
	CLI_OPT_CB(0, "device", "NAME", opt_device,
		   "the device (a row of 'gpuprof devices') for GPUs the\n"
		   "trace does not describe"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "kernel groups shown (20)",
	 CLI_FIELD_(struct occ_cli, top), .flags = CLI_OPTF_ALL, .err = "bad --top '%s'"},
	CLI_OPT_RE(0, "step", "REGEX", struct occ_cli, step_regex, "step pattern",
		   "NVTX ranges that are steps"),
	CLI_OPT_SETV(0, "no-whatif", struct occ_cli, a.whatif, 0, "skip the what-if column"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_occupancy_opts = {
	.usage =
	"usage: gpuprof occupancy [--format FORMAT] [--kernel REGEX] [--gpu N] [--device NAME] [--top N|all]\n"
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
	"\n",
	.options = occupancy_options,
};

static int run(const struct occ_cli *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_occupancy occ;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	struct gpa_occ_opts a = o->a;
	if (o->gpu) {
		const struct gpa_devrow *r = gpa_device_find(o->gpu, NULL, 0);
		if (!r) {
			return cli_cmd_usage_error(&cmd_occupancy_opts,
						   "unknown device '%s' ('gpuprof devices' lists them)",
						   o->gpu);
		}
		a.gpu_cc_major = r->cc_major;
		a.gpu_cc_minor = r->cc_minor;
		a.gpu_sms = r->sms;
	}
	status = cli_load_steps(cm, &m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	status = CMD_ERROR;
	ret = gpa_occupancy_analyze(&m, &steps, &a, &occ, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = cli_exit_code(ret, 0);
		goto out;
	}
	if (!occ.launches && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no kernel launches%s", o->a.kernel_regex ? " match" : " in the traces");
	}
	if (gpr_occupancy_render(&out, o->format, &cm->display, &m, &steps, &occ, o->top) ||
	    gpr_sanity_append(&out, o->format, &m)) {
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
	struct cli_common common = {0};
	struct occ_cli o = {.format = GPR_FORMAT_TEXT, .top = 20,
			    .a = {.device = -1, .whatif = true}};
	int nargs, status;

	status = cli_parse_options(&cmd_occupancy_opts, &o, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_occupancy_opts, "no trace file given");
	}
	return run(&o, &common, argv, (size_t)nargs);
}
