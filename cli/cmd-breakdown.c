/* SPDX-License-Identifier: MIT */
/*
 * gpuprof breakdown - HTA's temporal breakdown, idle time breakdown,
 * kernel-type shares and communication-computation overlap, exact by
 * default or with HTA's numbers under --compat hta.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/breakdown.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>

const char cmd_breakdown_help[] =
	"usage: gpuprof breakdown [--compat MODE] [--format FORMAT] [--table NAME]\n"
	"                         [--kernel-wait DURATION] [--epoch-doubles] TRACE...\n"
	"\n"
	"Holistic Trace Analysis' (HTA) time breakdowns of the traces (files or\n"
	"directories; Kineto JSON read directly), per rank (trace file):\n"
	"  temporal  idle, compute and non-compute time over the GPU-active span\n"
	"  idle      per stream, each gap as host wait (launched after the stream\n"
	"            drained), kernel wait (shorter than --kernel-wait) or other\n"
	"  types     busy time by the set of kernel classes running (computation,\n"
	"            communication, memory), all ranks together\n"
	"  overlap   the share of communication time under computation\n"
	"\n"
	"By default times are exact nanoseconds (printed in us), every GPU op counts,\n"
	"sync records are not GPU work, and NCCL/RCCL/NVSHMEM kernels are\n"
	"communication whatever their prefix. --compat hta reproduces HTA's default\n"
	"numbers: times shrunk to whole us, the last ProfilerStep and unlaunched ops\n"
	"dropped, cuda_sync records counted as busy, classes from names alone.\n"
	"See docs/hta-parity.md.\n"
	"\n"
	"options:\n"
	"      --compat MODE         none (default), hta, hta-noround (HTA run with\n"
	"                            HTA_DISABLE_NS_ROUNDING=1), or single quirks,\n"
	"                            comma-separated: round, last-step, sync-busy,\n"
	"                            name-only, int-dur\n"
	"  -f, --format FORMAT       text (default), json, csv, markdown\n"
	"      --table NAME          print one table only: temporal, idle, types,\n"
	"                            overlap\n"
	"      --kernel-wait DURATION  idle gaps shorter than this are kernel wait\n"
	"                            (30us); units ns, us, ms, s\n"
	"      --epoch-doubles       with --compat hta, round every trace's times as HTA's\n"
	"                            doubles hold them (automatic for Kineto traces of\n"
	"                            epoch microseconds with decimals and no\n"
	"                            baseTimeNanoseconds, early 2024)\n"
	"  -h, --help                this text\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read, 2 usage.\n";

struct breakdown_opts {
	enum gpr_format format;
	unsigned tables;
	struct gpa_breakdown_opts a;
};

static int run(const struct breakdown_opts *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_breakdown b;
	struct gp_strbuf out = GP_STRBUF_INIT;
	int status = CMD_ERROR;

	if (cli_load_model(&m, args, nargs)) {
		return CMD_ERROR;
	}
	if (gpa_breakdown_compute(&m, &o->a, &b)) {
		cli_error("out of memory");
		goto out;
	}
	if (!b.ranks.n && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no GPU activity in the trace%s", m.procs.n == 1 ? "" : "s");
	}
	if (gpr_breakdown_render(&out, o->format, o->tables, &b)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gp_strbuf_release(&out);
	gpa_breakdown_release(&b);
	gpa_model_release(&m);
	return status;
}

/* "hta", "hta-noround", "none", or a comma-separated list of single quirks. */
static int parse_compat(const char *arg, unsigned *flags)
{
	static const struct {
		const char *name;
		unsigned flags;
	} modes[] = {
		{"none", 0},
		{"hta", GPA_BD_COMPAT_HTA},
		{"hta-noround", GPA_BD_COMPAT_HTA_NOROUND},
		{"round", GPA_BD_ROUND_US},
		{"last-step", GPA_BD_LAST_STEP},
		{"sync-busy", GPA_BD_SYNC_BUSY},
		{"name-only", GPA_BD_NAME_ONLY},
		{"int-dur", GPA_BD_INT_DUR},
	};
	const char *p = arg;

	*flags = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;
		for (i = 0; i < GP_ARRAY_SIZE(modes); i++) {
			if (strlen(modes[i].name) == n && !strncmp(p, modes[i].name, n)) {
				*flags |= modes[i].flags;
				break;
			}
		}
		if (i == GP_ARRAY_SIZE(modes)) {
			return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

int cmd_breakdown(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"compat", required_argument, NULL, 'c'},
		{"format", required_argument, NULL, 'f'},
		{"table", required_argument, NULL, 't'},
		{"kernel-wait", required_argument, NULL, 'k'},
		{"epoch-doubles", no_argument, NULL, 'e'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct breakdown_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_BD_ALL};
	uint64_t ns;
	int c, v;
	bool epoch_doubles = false;

	gpa_breakdown_opts_init(&opts.a);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_compat(optarg, &opts.a.flags)) {
				return cli_usage_error(cmd_breakdown_help,
						       "unknown compat mode '%s'", optarg);
			}
			break;
		case 'f':
			v = gpr_format_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_breakdown_help, "unknown format '%s'",
						       optarg);
			}
			opts.format = (enum gpr_format)v;
			break;
		case 't':
			v = gpr_bd_table_parse(optarg);
			if (v < 0) {
				return cli_usage_error(cmd_breakdown_help, "unknown table '%s'",
						       optarg);
			}
			opts.tables = (unsigned)v;
			break;
		case 'k':
			if (!cli_parse_duration(optarg, &ns) || ns > INT64_MAX) {
				return cli_usage_error(cmd_breakdown_help, "bad duration '%s'",
						       optarg);
			}
			opts.a.kernel_wait_ns = (int64_t)ns;
			break;
		case 'e':
			epoch_doubles = true;
			break;
		case 'h':
			fputs(cmd_breakdown_help, stdout);
			return CMD_OK;
		default:
			if (optopt == 'f') {
				return cli_usage_error(cmd_breakdown_help,
						       "option '-%c' needs a value", optopt);
			}
			if (optopt) {
				return cli_usage_error(cmd_breakdown_help,
						       "unknown option '-%c'", optopt);
			}
			return cli_usage_error(cmd_breakdown_help,
					       "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_breakdown_help, "no trace file given");
	}
	if (epoch_doubles) {
		if (!(opts.a.flags & GPA_BD_ROUND_US)) {
			return cli_usage_error(cmd_breakdown_help,
					       "--epoch-doubles needs --compat hta");
		}
		opts.a.flags |= GPA_BD_F64_TS;
	}
	return run(&opts, argv + optind, (size_t)(argc - optind));
}
