/* SPDX-License-Identifier: MIT */
/*
 * gpuprof mfu - step MFU/HFU/MBU against the device peak, copy bandwidth
 * against the link; gpuprof devices - the peak table. The MFU options are
 * shared with gpuprof report (cli_mfu_option).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/mfu.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MFU_OPTIONS_HELP                                                                           \
	"MFU options (docs/mfu.md):\n"                                                             \
	"      --flops-per-step F    model FLOPs of one step, all GPUs together\n"                \
	"      --params N            non-embedding (active) parameters; with\n"                   \
	"      --tokens-per-step T   tokens per step, all GPUs together\n"                        \
	"      --attention           add 12 x layers x hidden x seq-len FLOPs per token\n"        \
	"      --layers L --hidden H --seq-len S   for the attention term\n"                     \
	"      --inference           forward only (2N + 4LhS per token)\n"                        \
	"      --recompute           full activation recomputation (HFU adds a forward)\n"        \
	"      --bytes-per-step B    bytes moved per step (MBU), all GPUs together\n"             \
	"      --gpus N              GPUs the step runs on (default: traced devices)\n"           \
	"      --dtype T             fp64, fp64-tc, tf32, bf16 (default), fp16, fp8, int8, fp4\n" \
	"      --device NAME         use this table row ('gpuprof devices')\n"                   \
	"      --device-file FILE    more devices, tried before the table\n"                     \
	"      --peak-tflops P       peak TFLOP/s per GPU for --dtype\n"                          \
	"      --peak-bw GBPS        peak memory bandwidth per GPU, GB/s\n"                        \
	"      --roofline FILE       FLOP and byte formulas per kernel pattern: roofline\n"

const char cmd_mfu_help[] =
	"usage: gpuprof mfu [--format FORMAT] [--step REGEX] [MFU options] TRACE...\n"
	"\n"
	"Model and hardware FLOPs utilization (MFU, HFU) of every step from FLOPs per\n"
	"step or a model description, memory bandwidth utilization (MBU) from bytes\n"
	"per step, against the device's dense peak for the datatype (the device is\n"
	"matched to the peak table by name, compute capability, SMs and memory; an\n"
	"unknown part gets an estimate from SMs x clock, said so). Also the achieved\n"
	"bandwidth of copies per kind against the link (PCIe, NVLink, memory) and the\n"
	"slowest copies with the likely reason (pageable memory, small transfers).\n"
	"\n"
	"options:\n"
	"  -f, --format FORMAT   text (default), json, csv, markdown\n"
	"      --step REGEX      NVTX ranges that are steps\n"
	"  -h, --help            this text\n" MFU_OPTIONS_HELP
	"\n"
	"Exit status: 0 ok, 1 a trace or device file could not be read, 2 usage.\n";

const char cmd_devices_help[] =
	"usage: gpuprof devices [--format FORMAT] [--device-file FILE]\n"
	"\n"
	"Lists the GPU peak table: SMs, dense TFLOP/s per datatype, memory, NVLink and\n"
	"PCIe; rows marked 'verify' have figures whose sources disagree. With\n"
	"--device-file, the file's rows come first. See docs/mfu.md.\n";

const struct option cli_mfu_longopts[] = {
	{"flops-per-step", required_argument, NULL, 1001},
	{"params", required_argument, NULL, 1002},
	{"tokens-per-step", required_argument, NULL, 1003},
	{"attention", no_argument, NULL, 1004},
	{"layers", required_argument, NULL, 1005},
	{"hidden", required_argument, NULL, 1006},
	{"seq-len", required_argument, NULL, 1007},
	{"inference", no_argument, NULL, 1008},
	{"recompute", no_argument, NULL, 1009},
	{"bytes-per-step", required_argument, NULL, 1010},
	{"gpus", required_argument, NULL, 1011},
	{"dtype", required_argument, NULL, 1012},
	{"device", required_argument, NULL, 1013},
	{"device-file", required_argument, NULL, 1014},
	{"peak-tflops", required_argument, NULL, 1015},
	{"peak-bw", required_argument, NULL, 1016},
	{"roofline", required_argument, NULL, 1017},
};
const size_t cli_mfu_nlongopts = GP_ARRAY_SIZE(cli_mfu_longopts);

/* A number > 0, finite, at most max ("1e12", "6.7e9", "1_000" not accepted). */
static bool positive(const char *s, double max, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > max) {
		return false;
	}
	*out = v;
	return true;
}

int cli_mfu_option(int c, const char *arg, const char *help, struct cli_mfu *o)
{
	static const struct {
		int c;
		const char *name;
		double max;
		size_t off;
	} nums[] = {
		{1001, "--flops-per-step", 1e24, offsetof(struct gpa_mfu_opts, flops_per_step)},
		{1002, "--params", 1e14, offsetof(struct gpa_mfu_opts, params)},
		{1003, "--tokens-per-step", 1e13, offsetof(struct gpa_mfu_opts, tokens_per_step)},
		{1005, "--layers", 1e5, offsetof(struct gpa_mfu_opts, layers)},
		{1006, "--hidden", 1e7, offsetof(struct gpa_mfu_opts, hidden)},
		{1007, "--seq-len", 1e8, offsetof(struct gpa_mfu_opts, seq_len)},
		{1010, "--bytes-per-step", 1e18, offsetof(struct gpa_mfu_opts, bytes_per_step)},
	};
	double v;

	for (size_t i = 0; i < GP_ARRAY_SIZE(nums); i++) {
		if (nums[i].c == c) {
			if (!positive(arg, nums[i].max, &v)) {
				return cli_usage_error(help,
						       "%s must be a number > 0 and <= %g, got '%s'",
						       nums[i].name, nums[i].max, arg);
			}
			*(double *)((char *)&o->a + nums[i].off) = v;
			o->given = true;
			return 0;
		}
	}
	switch (c) {
	case 1004:
		o->a.attention = true;
		return 0;
	case 1008:
		o->a.inference = true;
		return 0;
	case 1009:
		o->a.recompute = true;
		return 0;
	case 1011:
		if (!positive(arg, 1e6, &v) || v != floor(v)) {
			return cli_usage_error(help, "--gpus must be a whole number in 1..1000000, got '%s'",
					       arg);
		}
		o->a.gpus = (uint32_t)v;
		return 0;
	case 1012: {
		int dt = gpa_dtype_parse(arg);
		if (dt < 0) {
			return cli_usage_error(help, "unknown datatype '%s'", arg);
		}
		o->a.dtype = (enum gpa_dtype)dt;
		o->a.peaks.dtype = (enum gpa_dtype)dt;
		return 0;
	}
	case 1013:
		o->a.peaks.device = arg;
		return 0;
	case 1014:
		o->device_file = arg;
		return 0;
	case 1017:
		o->roofline_file = arg;
		return 0;
	case 1015:
		if (!positive(arg, 1e6, &v)) {
			return cli_usage_error(help, "--peak-tflops must be a number > 0 and <= 1e6, got '%s'",
					       arg);
		}
		o->a.peaks.peak_tflops = v;
		return 0;
	case 1016:
		if (!positive(arg, 1e6, &v)) {
			return cli_usage_error(help, "--peak-bw must be a number > 0 and <= 1e6 (GB/s), got '%s'",
					       arg);
		}
		o->a.peaks.peak_gbps = v;
		return 0;
	default:
		return -1;
	}
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

	f = fopen(path, "rb");
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
	struct option longopts[32] = {
		{"format", required_argument, NULL, 'f'},
		{"step", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
	};
	struct cli_mfu o;
	enum gpr_format format = GPR_FORMAT_TEXT;
	const char *step_regex = NULL;
	int c, v;

	memcpy(longopts + 3, cli_mfu_longopts, sizeof(cli_mfu_longopts));
	cli_mfu_init(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_mfu_help, "unknown format '%s'", optarg);
			}
			format = (enum gpr_format)v;
			break;
		case 's':
			step_regex = optarg;
			break;
		case 'h':
			fputs(cmd_mfu_help, stdout);
			return CMD_OK;
		default:
			v = c == '?' ? -1 : cli_mfu_option(c, optarg, cmd_mfu_help, &o);
			if (v > 0) {
				return v;
			}
			if (v < 0) {
				return cli_usage_error(cmd_mfu_help,
						       "unknown option or missing value: '%s'",
						       argv[optind - 1]);
			}
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_mfu_help, "no trace file given");
	}
	if (cli_mfu_load_file(&o)) {
		return CMD_ERROR;
	}
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_mfu u;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	status = cli_load_steps(&m, argv + optind, (size_t)(argc - optind), step_regex, &steps);
	if (status != CMD_OK) {
		cli_mfu_release(&o);
		return status;
	}
	status = CMD_ERROR;
	ret = gpa_mfu_analyze(&m, &steps, &o.a, &u, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = ret == -GP_ERR_API || ret == -GP_ERR_NOTFOUND ? CMD_USAGE : CMD_ERROR;
		goto out_steps;
	}
	if (gpr_mfu_render(&out, format, &m, &steps, &u, o.a.dtype)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
	gpa_mfu_release(&u);
out_steps:
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	gp_strbuf_release(&out);
	cli_mfu_release(&o);
	return status;
}

int cmd_devices(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"device-file", required_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum gpr_format format = GPR_FORMAT_TEXT;
	struct cli_mfu o;
	int c, v, status = CMD_ERROR;

	cli_mfu_init(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_devices_help, "unknown format '%s'",
						       optarg);
			}
			format = (enum gpr_format)v;
			break;
		case 'F':
			o.device_file = optarg;
			break;
		case 'h':
			fputs(cmd_devices_help, stdout);
			return CMD_OK;
		default:
			return cli_usage_error(cmd_devices_help, "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc) {
		return cli_usage_error(cmd_devices_help, "unexpected argument '%s'", argv[optind]);
	}
	if (cli_mfu_load_file(&o)) {
		return CMD_ERROR;
	}
	size_t nb;
	const struct gpa_devrow *b = gpa_devices_builtin(&nb);
	struct gpa_devrow *all = calloc(nb + o.nrows, sizeof(*all));
	struct gp_strbuf out = GP_STRBUF_INIT;
	struct gpr_table t;
	if (all) {
		if (o.nrows) {
			memcpy(all, o.rows, o.nrows * sizeof(*all));
		}
		memcpy(all + o.nrows, b, nb * sizeof(*all));
		if (format == GPR_FORMAT_JSON) {
			gp_strbuf_adds(&out, "{\"schema\":\"gpuprof-devices/1\"");
		}
		if (!gpr_devices_table(&t, all, nb + o.nrows) &&
		    !gpr_table_section(&t, format, "GPU peak table (dense TFLOP/s; INT8 TOPS)",
				       "devices", true, &out)) {
			if (format == GPR_FORMAT_JSON) {
				gp_strbuf_adds(&out, "}\n");
			}
			if (!out.failed && cli_write_stdout(out.buf, out.len)) {
				status = CMD_OK;
			}
		} else {
			cli_error("out of memory");
		}
	} else {
		cli_error("out of memory");
	}
	free(all);
	gp_strbuf_release(&out);
	cli_mfu_release(&o);
	return status;
}
