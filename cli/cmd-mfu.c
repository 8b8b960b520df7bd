/* SPDX-License-Identifier: MIT */
/*
 * gpuprof mfu - step MFU/HFU/MBU against the device peak, copy bandwidth
 * against the link. The MFU options (cli_mfu_options) are shared with
 * gpuprof report and gpuprof devices.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/mfu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int mfu_gpus(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);
static int mfu_dtype(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

/* A number > 0, finite, at most max ("1e12", "6.7e9"; "1_000" not accepted). */
#define MFU_NUM(l, a, f, hi, e, h)                                                                 \
	{.type = CLI_OPT_DOUBLE, 0, (l), (a), (h), CLI_FIELD_(struct cli_mfu, f),                  \
	 .flags = CLI_OPTF_MIN_OPEN, .min = 0, .max = (hi), .err = (e)}

const struct cli_option cli_mfu_options[] = {
	CLI_OPT_GROUP("MFU options (docs/mfu.md):\n", 28, 6),
	MFU_NUM("flops-per-step", "F", a.flops_per_step, 1e24,
		"--flops-per-step must be a number > 0 and <= 1e+24, got '%s'",
		"model FLOPs of one step, all GPUs together"),
	MFU_NUM("params", "N", a.params, 1e14,
		"--params must be a number > 0 and <= 1e+14, got '%s'",
		"non-embedding (active) parameters; with"),
	MFU_NUM("tokens-per-step", "T", a.tokens_per_step, 1e13,
		"--tokens-per-step must be a number > 0 and <= 1e+13, got '%s'",
		"tokens per step, all GPUs together"),
	CLI_OPT_BOOL(0, "attention", struct cli_mfu, a.attention,
		     "add 12 x layers x hidden x seq-len FLOPs per token"),
	CLI_OPT_TEXT("      --layers L --hidden H --seq-len S   for the attention term\n"),
	{.type = CLI_OPT_DOUBLE, 0, "layers", "L", NULL, CLI_FIELD_(struct cli_mfu, a.layers),
	 .flags = CLI_OPTF_MIN_OPEN | CLI_OPTF_HIDDEN, .max = 1e5,
	 .err = "--layers must be a number > 0 and <= 100000, got '%s'"},
	{.type = CLI_OPT_DOUBLE, 0, "hidden", "H", NULL, CLI_FIELD_(struct cli_mfu, a.hidden),
	 .flags = CLI_OPTF_MIN_OPEN | CLI_OPTF_HIDDEN, .max = 1e7,
	 .err = "--hidden must be a number > 0 and <= 1e+07, got '%s'"},
	{.type = CLI_OPT_DOUBLE, 0, "seq-len", "S", NULL, CLI_FIELD_(struct cli_mfu, a.seq_len),
	 .flags = CLI_OPTF_MIN_OPEN | CLI_OPTF_HIDDEN, .max = 1e8,
	 .err = "--seq-len must be a number > 0 and <= 1e+08, got '%s'"},
	CLI_OPT_BOOL(0, "inference", struct cli_mfu, a.inference,
		     "forward only (2N + 4LhS per token)"),
	/* recomputation is of the backward pass, which inference does not have */
	{.type = CLI_OPT_SET, 0, "recompute", NULL,
	 "full activation recomputation (HFU adds a forward)",
	 CLI_FIELD_(struct cli_mfu, a.recompute), .value = 1, .conflicts = "inference"},
	MFU_NUM("bytes-per-step", "B", a.bytes_per_step, 1e18,
		"--bytes-per-step must be a number > 0 and <= 1e+18, got '%s'",
		"bytes moved per step (MBU), all GPUs together"),
	CLI_OPT_CB(0, "gpus", "N", mfu_gpus, "GPUs the step runs on (default: GPUs that did work)"),
	CLI_OPT_CB(0, "dtype", "T", mfu_dtype,
		   "fp64, fp64-tc, tf32, bf16 (default), fp16, fp8, int8, fp4"),
	CLI_OPT_STR(0, "device", "NAME", struct cli_mfu, a.peaks.device,
		    "use this table row ('gpuprof devices')"),
	CLI_OPT_STR(0, "device-file", "FILE", struct cli_mfu, device_file,
		    "more devices, tried before the table"),
	MFU_NUM("peak-tflops", "T", a.peaks.peak_tflops, 1e6,
		"--peak-tflops must be a number > 0 and <= 1e6, got '%s'",
		"peak TFLOP/s per GPU for --dtype"),
	MFU_NUM("peak-bw", "GBPS", a.peaks.peak_gbps, 1e6,
		"--peak-bw must be a number > 0 and <= 1e6 (GB/s), got '%s'",
		"peak memory bandwidth per GPU, GB/s"),
	CLI_OPT_STR(0, "roofline", "FILE", struct cli_mfu, roofline_file,
		    "FLOP and byte formulas per kernel pattern: roofline"),
	CLI_OPT_END(),
};

struct mfu_opts {
	enum gpr_format format;
	const char *step_regex;
	struct cli_mfu mfu;
};

static const struct cli_option mfu_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct mfu_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	CLI_OPT_RE(0, "step", "REGEX", struct mfu_opts, step_regex, "step pattern",
		   "NVTX ranges that are steps"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_SUB(cli_mfu_options, struct mfu_opts, mfu, 0),
	CLI_OPT_END(),
};

const struct cli_command cmd_mfu_opts = {
	.usage =
	"usage: gpuprof mfu [--format FORMAT] [--step REGEX] [MFU options] TRACE...\n"
	"\n"
	"Model and hardware FLOPs utilization (MFU, HFU) of every step from FLOPs per\n"
	"step or a model description, memory bandwidth utilization (MBU) from bytes\n"
	"per step, against the device's dense peak for the datatype (the device is\n"
	"matched to the peak table by name, compute capability, SMs and memory; an\n"
	"unknown part gets an estimate from SMs x clock, said so). Also the achieved\n"
	"bandwidth of copies per kind against the link (PCIe, NVLink, memory) and the\n"
	"slowest copies with the likely reason (pageable memory, small transfers).\n"
	"\n",
	.options = mfu_options,
};

static int mfu_gpus(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct cli_mfu *o = ctx->base;
	char *end;
	double v;

	(void)opt;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > 1e6 || v != floor(v)) {
		return cli_opt_usage_error(ctx,
					   "--gpus must be a whole number in 1..1000000, got '%s'",
					   arg);
	}
	o->a.gpus = (uint32_t)v;
	return 0;
}

static int mfu_dtype(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct cli_mfu *o = ctx->base;
	int dt = gpa_dtype_parse(arg);

	(void)opt;
	if (dt < 0) {
		return cli_opt_usage_error(ctx, "unknown datatype '%s'", arg);
	}
	o->a.dtype = (enum gpa_dtype)dt;
	o->a.peaks.dtype = (enum gpa_dtype)dt;
	return 0;
}

void cli_mfu_init(struct cli_mfu *o)
{
	memset(o, 0, sizeof(*o));
	o->a.dtype = GPA_DT_BF16;
	o->a.peaks.dtype = GPA_DT_BF16;
}

void cli_mfu_release(struct cli_mfu *o)
{
	free(o->rows);
	o->rows = NULL;
	gpa_roof_rules_free(o->roof);
	o->roof = NULL;
}

/* Reads a small untrusted text file (at most 1 MiB) into *buf (caller frees); -1 said. */
static int read_small(const char *path, char **out, size_t *len)
{
	FILE *f;
	char *buf;
	size_t n;

	f = cli_fopen_input(path);
	if (!f) {
		cli_error("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	/* A device file is small: refuse anything over 1 MiB. */
	buf = malloc((1 << 20) + 1);
	if (!buf) {
		fclose(f);
		cli_error("out of memory");
		return -1;
	}
	n = fread(buf, 1, (1 << 20) + 1, f);
	bool bad = ferror(f);
	fclose(f);
	if (bad || n > (1 << 20)) {
		free(buf);
		cli_error("%s: %s", path, bad ? "read error" : "larger than 1 MiB");
		return -1;
	}
	*out = buf;
	*len = n;
	return 0;
}

int cli_mfu_load_file(struct cli_mfu *o)
{
	char err[512], *buf;
	size_t n;
	int ret;

	if (o->device_file) {
		if (read_small(o->device_file, &buf, &n)) {
			return -1;
		}
		ret = gpa_devices_parse(o->device_file, buf, n, &o->rows, &o->nrows, err,
					sizeof(err));
		free(buf);
		if (ret) {
			cli_error("%s", err);
			return -1;
		}
		o->a.peaks.user = o->rows;
		o->a.peaks.nuser = o->nrows;
	}
	if (o->roofline_file) {
		if (read_small(o->roofline_file, &buf, &n)) {
			return -1;
		}
		ret = gpa_roof_rules_parse(o->roofline_file, buf, n, &o->roof, err, sizeof(err));
		free(buf);
		if (ret) {
			cli_error("%s", err);
			return -1;
		}
		o->a.roofline = o->roof;
	}
	return 0;
}

int cmd_mfu(int argc, char **argv)
{
	struct cli_common common = {0};
	struct mfu_opts o = {.format = GPR_FORMAT_TEXT};
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_mfu u;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int nargs, status, ret;

	cli_mfu_init(&o.mfu);
	status = cli_parse_options(&cmd_mfu_opts, &o, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_mfu_opts, "no trace file given");
	}
	if (cli_mfu_load_file(&o.mfu)) {
		return CMD_ERROR;
	}
	status = cli_load_steps(&common, &m, argv, (size_t)nargs, o.step_regex, &steps);
	if (status != CMD_OK) {
		cli_mfu_release(&o.mfu);
		return status;
	}
	status = CMD_ERROR;
	ret = gpa_mfu_analyze(&m, &steps, &o.mfu.a, &u, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = cli_exit_code(ret, CLI_NOTFOUND_IS_USAGE);
		goto out_steps;
	}
	if (gpr_mfu_render(&out, o.format, &common.display, &m, &steps, &u, o.mfu.a.dtype) ||
	    gpr_sanity_append(&out, o.format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gpa_mfu_release(&u);
out_steps:
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	gp_strbuf_release(&out);
	cli_mfu_release(&o.mfu);
	return status;
}
