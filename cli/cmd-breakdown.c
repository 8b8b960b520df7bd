/* SPDX-License-Identifier: MIT */
/*
 * gpuprof breakdown - HTA's temporal breakdown, idle time breakdown,
 * kernel-type shares and communication-computation overlap, exact by
 * default or with HTA's numbers under --compat hta.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/breakdown.h"
#include "analyze/commclass.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/breakdown.h"

struct breakdown_opts {
	enum gpr_format format;
	unsigned tables;
	bool epoch_doubles;
	struct gpa_breakdown_opts a;
	struct cli_comm_rules comm;
};

static int parse_compat(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

static const struct cli_option breakdown_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_CB(0, "compat", "MODE", parse_compat,
		   "none (default), hta, hta-noround (HTA run with\n"
		   "HTA_DISABLE_NS_ROUNDING=1), or single quirks,\n"
		   "comma-separated: round, last-step, sync-busy,\n"
		   "name-only, int-dur"),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct breakdown_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	CLI_OPT_ENUMP(0, "table", "NAME", struct breakdown_opts, tables, gpr_bd_table_parse,
		      "unknown table '%s'",
		      "print one table only: temporal, idle, types,\n"
		      "overlap"),
	CLI_OPT_DUR(0, "kernel-wait", "DURATION", struct breakdown_opts, a.kernel_wait_ns,
		    INT64_MAX,
		    "idle gaps shorter than this are kernel wait\n"
		    "(30us); units ns, us, ms, s"),
	CLI_OPT_BOOL(0, "epoch-doubles", struct breakdown_opts, epoch_doubles,
		     "with --compat hta, round every trace's times as HTA's\n"
		     "doubles hold them (automatic for Kineto traces of\n"
		     "epoch microseconds with decimals and no\n"
		     "baseTimeNanoseconds, early 2024)"),
	CLI_OPT_SUB(cli_comm_options, struct breakdown_opts, comm, 0),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_breakdown_opts = {
	.usage =
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
	"\n",
	.options = breakdown_options,
};

static int run(const struct breakdown_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_breakdown b = {0};
	struct gpa_breakdown_opts bo = o->a;
	struct gpa_commclass cc = {0};
	struct gp_strbuf out = GP_STRBUF_INIT;
	int status = CMD_ERROR;

	if (cli_load_model(cm, &m, args, nargs)) {
		return CMD_ERROR;
	}
	status = cli_commclass(&m, &o->comm, &cc);
	if (status != CMD_OK) {
		goto out;
	}
	status = CMD_ERROR;
	bo.comm = &cc;
	if (gpa_breakdown_compute(&m, &bo, &b)) {
		cli_error("out of memory");
		goto out;
	}
	if (!b.ranks.n && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no GPU activity in the trace%s", m.procs.n == 1 ? "" : "s");
	}
	if (gpr_breakdown_render(&out, o->format, &cm->display, o->tables, &b) ||
	    gpr_sanity_append(&out, o->format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gp_strbuf_release(&out);
	gpa_commclass_release(&cc);
	gpa_breakdown_release(&b);
	gpa_model_release(&m);
	return status;
}

/* "hta", "hta-noround", "none", or a comma-separated list of single quirks. */
static int parse_compat(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	unsigned *flags = &((struct breakdown_opts *)ctx->base)->a.flags;

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

	(void)opt;
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
			return cli_opt_usage_error(ctx, "unknown compat mode '%s'", arg);
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

int cmd_breakdown(int argc, char **argv)
{
	struct cli_common common = {0};
	struct breakdown_opts opts = {.format = GPR_FORMAT_TEXT, .tables = GPR_BD_ALL};
	int nargs, status;

	gpa_breakdown_opts_init(&opts.a);
	status = cli_parse_options(&cmd_breakdown_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_breakdown_opts, "no trace file given");
	}
	if (opts.epoch_doubles) {
		if (!(opts.a.flags & GPA_BD_ROUND_US)) {
			return cli_cmd_usage_error(&cmd_breakdown_opts,
						   "--epoch-doubles needs --compat hta");
		}
		opts.a.flags |= GPA_BD_F64_TS;
	}
	return run(&opts, &common, argv, (size_t)nargs);
}
