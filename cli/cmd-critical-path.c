/* SPDX-License-Identifier: MIT */
/*
 * gpuprof critical-path - what chain of work set each step's length, and
 * what making kernels faster or removing them would buy.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/commclass.h"
#include "analyze/critpath.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/critpath.h"

#include <stdlib.h>

struct cp_opts {
	enum gpr_format format;
	const char *step_regex;
	const char *window;
	char speedup_re[1024];
	struct gpa_critpath_opts a;
	struct cli_comm_rules comm;
	bool mpi;
};

static int parse_speedup(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);
static int parse_window(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

static const struct cli_option cp_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMP('f', "format", "FORMAT", struct cp_opts, format, gpr_format_parse,
		      "unknown format '%s'", "text (default), json, csv, markdown"),
	CLI_OPT_RE(0, "step", "REGEX", struct cp_opts, step_regex, "step pattern",
		   "NVTX ranges that are steps (default: ProfilerStep#N,\n"
		   "else annotations that repeat around GPU work)"),
	CLI_OPT_CB(0, "window", "START:END", parse_window,
		   "one window instead of the steps: ns from the first\n"
		   "event (units ns, us, ms, s allowed)"),
	CLI_OPT_CB(0, "speedup", "REGEX=F", parse_speedup,
		   "what-if: kernels and CPU ops whose name matches\n"
		   "take F times less time"),
	CLI_OPT_RE(0, "remove", "REGEX", struct cp_opts, a.remove_regex, "remove pattern",
		   "what-if: kernels and CPU ops whose name matches\n"
		   "take no time"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "longest path segments listed per step (5)",
	 CLI_FIELD_(struct cp_opts, a.top), .umax = 100000, .flags = CLI_OPTF_ALL,
	 .err = "bad --top '%s'"},
	CLI_OPT_SUB(cli_comm_options, struct cp_opts, comm, 0),
	CLI_OPT_BOOL(0, "mpi", struct cp_opts, mpi,
		     "under mpirun or srun: the MPI processes share the\n"
		     "traces (one process each); not with --window\n"
		     "(docs/cluster.md)"),
	CLI_OPT_DISPLAY(),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};

const struct cli_command cmd_critical_path_opts = {
	.usage =
	"usage: gpuprof critical-path [--format FORMAT] [--step REGEX | --window START:END]\n"
	"                             [--speedup REGEX=F] [--remove REGEX] [--top N|all] [--mpi]\n"
	"                             TRACE...\n"
	"\n"
	"Builds the dependency graph of each step's work (API calls in order per\n"
	"thread, launch -> GPU op, stream order, host syncs -> the GPU work they\n"
	"waited for, GPU ops held back by another stream) and follows the longest\n"
	"path through it. Every ns of the step is counted once: cpu, launch-overhead,\n"
	"kernel, copy, communication, wait-stream or idle. With --speedup or\n"
	"--remove the graph is re-timed and the new step time and path are shown.\n"
	"See docs/critical-path.md.\n"
	"\n",
	.options = cp_options,
};

static int parse_speedup(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct cp_opts *o = ctx->base;
	const char *eq = strrchr(arg, '=');
	char *end = NULL;
	double f;

	(void)opt;
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(o->speedup_re)) {
		return cli_opt_usage_error(ctx, "bad --speedup '%s' (REGEX=FACTOR)", arg);
	}
	f = strtod(eq + 1, &end);
	if (!eq[1] || *end || !(f > 0) || f > 1e9) {
		return cli_opt_usage_error(ctx, "bad --speedup factor '%s' (a number > 0)", eq + 1);
	}
	memcpy(o->speedup_re, arg, (size_t)(eq - arg));
	o->speedup_re[eq - arg] = '\0';
	int ret = cli_check_regex(o->speedup_re, "speedup pattern", 0);
	if (ret) {
		return ret;
	}
	o->a.speedup_regex = o->speedup_re;
	o->a.speedup = f;
	return 0;
}

static int parse_window(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct cp_opts *o = ctx->base;
	const char *colon = strchr(arg, ':');
	char a[64];
	uint64_t s, e;

	(void)opt;
	if (!colon || (size_t)(colon - arg) >= sizeof(a)) {
		return cli_opt_usage_error(ctx, "bad --window '%s' (START:END)", arg);
	}
	memcpy(a, arg, (size_t)(colon - arg));
	a[colon - arg] = '\0';
	if (!cli_parse_duration(a, &s) || !cli_parse_duration(colon + 1, &e) || e <= s) {
		return cli_opt_usage_error(ctx, "bad --window '%s' (START:END, END after START)",
					   arg);
	}
	o->a.window = true;
	o->a.win_start = s;
	o->a.win_end = e;
	o->window = arg;
	return 0;
}

static int run(struct cp_opts *o, struct cli_common *cm, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_critpath cp = {0};
	struct gpa_commclass cc = {0};
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[512];
	int status, ret;

	status = cli_load_steps(cm, &m, args, nargs, o->step_regex, &steps);
	if (status != CMD_OK) {
		return status;
	}
	status = cli_commclass(&m, &o->comm, &cc);
	if (status != CMD_OK) {
		goto out;
	}
	status = CMD_ERROR;
	o->a.comm = &cc;
	if (cli_common_threads(cm, &o->a.threads)) {
		goto out;
	}
	if (o->a.window) {
		o->a.win_start += m.t0;
		o->a.win_end += m.t0;
	}
	ret = gpa_critpath_analyze(&m, &steps, &o->a, &cp, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		status = cli_exit_code(ret, 0);
		goto out;
	}
	if (gpr_critpath_render(&out, o->format, &cm->display, &m, &steps, &cp) ||
	    gpr_sanity_append(&out, o->format, &m)) {
		cli_error("out of memory");
	} else if (cli_write_stdout(out.buf, out.len)) {
		status = CMD_OK;
	}
out:
	gp_strbuf_release(&out);
	gpa_critpath_release(&cp);
	gpa_commclass_release(&cc);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return status;
}

int cmd_critical_path(int argc, char **argv)
{
	struct cli_common common = {0};
	struct cp_opts opts = {.format = GPR_FORMAT_TEXT, .a = {.top = 5}};
	int nargs, status;

	status = cli_parse_options(&cmd_critical_path_opts, &opts, &common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	if (!nargs) {
		return cli_cmd_usage_error(&cmd_critical_path_opts, "no trace file given");
	}
	if (opts.window && opts.step_regex) {
		return cli_cmd_usage_error(&cmd_critical_path_opts,
					   "options '--step' and '--window' cannot be used together");
	}
	if (opts.window && opts.mpi) {
		return cli_cmd_usage_error(&cmd_critical_path_opts,
					   "options '--window' and '--mpi' cannot be used together "
					   "(a window spans every rank's work)");
	}
	if (opts.mpi) {
		struct cli_critpath_mpi c = {.common = &common, .opts = &opts.a, .step_regex = opts.step_regex,
					     .comm = &opts.comm, .format = (int)opts.format};
		return cli_critpath_mpi_run(&c, argv, (size_t)nargs);
	}
	return run(&opts, &common, argv, (size_t)nargs);
}
