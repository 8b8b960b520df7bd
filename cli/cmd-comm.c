/* SPDX-License-Identifier: MIT */
/*
 * gpuprof comm - communication: NCCL collectives by type and size with
 * algbw/busbw, exposed communication per device and step, and the same
 * collective matched across ranks (skew, straggler, waiting), as the job
 * report matches them (analyze/coll-match.c).
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/comm.h"
#include "analyze/gaps.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/comm.h"
#include "report/job.h"

#define MAX_RULES 32

struct comm_opts {
	enum gpr_format format;
	unsigned tables;
	const char *step_regex;
	const char *rules[MAX_RULES];
	size_t nrules;
	bool job, mpi; /* the job report's communication part (cli/job.c) */
};

static int add_rule(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

static const struct cli_enum_value tables[] = {
	{"collectives", GPR_COMM_COLLS},
	{"exposed", GPR_COMM_EXPOSED},
	{"ranks", GPR_COMM_RANKS},
	{NULL, 0},
};

static const struct cli_option comm_options[] = {
	CLI_OPT_GROUP("options:\n", 26, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct comm_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	CLI_OPT_ENUMV(0, "table", "NAME", struct comm_opts, tables, tables, "unknown table '%s'",
		      "one table only: collectives, exposed, ranks"),
	CLI_OPT_RE(0, "step", "REGEX", struct comm_opts, step_regex, "step pattern",
		   "NVTX ranges that are steps (default: ProfilerStep#N,\n"
		   "else annotations that repeat around GPU work)"),
	{.type = CLI_OPT_REGEX, 0, "comm-kernel", "REGEX",
	 "kernels matching this PCRE2 pattern communicate\n"
	 "(repeatable; checked before the built-in rules)",
	 .flags = CLI_OPTF_REASON_FIRST, .err = "kernel rule", .cb = add_rule},
	CLI_OPT_BOOL(0, "job", struct comm_opts, job,
		     "stragglers and skew of the job: each trace\n"
		     "analysed alone (docs/cluster.md)"),
	CLI_OPT_BOOL(0, "mpi", struct comm_opts, mpi,
		     "the same under mpirun or srun: the MPI processes\n"
		     "share the traces (docs/cluster.md)"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_comm_opts = {
	.usage =
	"usage: gpuprof comm [--format FORMAT] [--table NAME] [--step REGEX]\n"
	"                    [--comm-kernel REGEX]... [--job|--mpi] TRACE...\n"
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
	"  ranks         the same collective on every rank (each process a rank;\n"
	"                by sequence number, else by order per communicator or per\n"
	"                stream, as --job matches them): arrival skew, how often\n"
	"                each rank came last, the time the others waited for it;\n"
	"                the straggler, the clock check, or why nothing matched\n"
	"\n"
	"Communication kernels are the kernels linked to NCCL records (external\n"
	"correlation); name rules (NCCL, NVSHMEM, DeepEP-style, custom all-reduce,\n"
	"and --comm-kernel) name the rest, but in a process whose kernels link to\n"
	"NCCL records an NCCL-named kernel counts only when linked. Times are exact\n"
	"nanoseconds; bandwidths GB/s (1e9 bytes per second). See docs/comm.md.\n"
	"\n",
	.options = comm_options,
};

static int add_rule(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct comm_opts *o = ctx->base;

	(void)opt;
	if (o->nrules == MAX_RULES) {
		return cli_opt_usage_error(ctx, "more than %d --comm-kernel rules", MAX_RULES);
	}
	o->rules[o->nrules++] = arg;
	return 0;
}

static int run(const struct comm_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_comm c;
	struct gpa_comm_opts co;
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status = CMD_ERROR, ret;

	status = cli_load_steps(cm, &m, args, nargs, o->step_regex, &steps);
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
		status = cli_exit_code(ret, 0);
		goto out_steps;
	}
	if (!gpr_comm_has_data(&c) && o->format == GPR_FORMAT_TEXT) {
		cli_warn("no NCCL operations or communication kernels in the trace%s",
			 m.procs.n == 1 ? "" : "s");
	}
	if (gpr_comm_render(&out, o->format, &cm->display, o->tables, &m, &steps, &c) ||
	    gpr_sanity_append(&out, o->format, &m)) {
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
	struct cli_common common = {0};
	struct comm_opts o = {.format = GPR_FORMAT_TEXT, .tables = GPR_COMM_ALL};
	int nargs, status;

	status = cli_parse_options(&cmd_comm_opts, &o, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_comm_opts, "no trace file given");
	}
	if (o.job || o.mpi) {
		struct cli_comm_rules rules = {.n = o.nrules};
		struct gpa_gaps_opts go;
		memcpy(rules.rules, o.rules, o.nrules * sizeof(*o.rules));
		gpa_gaps_opts_init(&go);
		struct cli_job j = {.common = &common, .mpi = o.mpi, .format = o.format, .parts = GPR_JOB_COMM,
				    .step_regex = o.step_regex, .comm = &rules, .gaps = &go};
		if (o.format == GPR_FORMAT_CSV) {
			return cli_cmd_usage_error(&cmd_comm_opts, "--job and --mpi write text, json "
								   "or markdown");
		}
		return cli_job_run(&j, argv, (size_t)nargs);
	}
	return run(&o, &common, argv, (size_t)nargs);
}
