/* SPDX-License-Identifier: MIT */
/*
 * gpuprof flame - GPU-time (or CUDA API time) flame graphs: folded stacks,
 * interactive SVG, speedscope; differential graphs between two sets of
 * traces.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/commclass.h"
#include "analyze/flame.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"
#include "report/flame-graph.h"

#include <stdio.h>

enum flame_format {
	FLAME_FOLDED = 0,
	FLAME_SVG = 1,
	FLAME_SPEEDSCOPE = 2,
};

struct flame_opts {
	struct cli_common common; /* --threads, --quiet */
	int format; /* enum flame_format, -1 until given */
	const char *output;
	const char *step_regex;
	const char *rules;
	bool diff;
	bool force;
	bool min_width_pct;
	double min_width;
	enum gpr_speedscope_type sstype;
	struct gpa_flame_opts a;
	struct gpr_flame_svg_opts svg;
	struct cli_comm_rules comm;
};

static int parse_min_width(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg);

static const struct cli_enum_value formats[] = {
	{"folded", FLAME_FOLDED}, {"svg", FLAME_SVG}, {"speedscope", FLAME_SPEEDSCOPE}, {NULL, 0},
};
static const struct cli_enum_value names[] = {
	{"demangled", GPA_KNAME_DEMANGLED},
	{"short", GPA_KNAME_SHORT},
	{"mangled", GPA_KNAME_MANGLED},
	{NULL, 0},
};
static const struct cli_enum_value sstypes[] = {
	{"sampled", GPR_SPEEDSCOPE_SAMPLED}, {"evented", GPR_SPEEDSCOPE_EVENTED}, {NULL, 0},
};

#define FO struct flame_opts
static const struct cli_option flame_options[] = {
	CLI_OPT_GROUP("options:\n", 28, 6),
	CLI_OPT_ENUMV('f', "format", "FORMAT", FO, format, formats, "unknown format '%s'",
		      "folded (default), svg, speedscope"),
	CLI_OPT_STR('o', "output", "FILE", FO, output,
		    "write there instead of standard output ('-' is standard\n"
		    "output; a link's target, a device or FIFO in place:\n"
		    "docs/reliability.md)"),
	CLI_OPT_SETV(0, "api", FO, a.weight, GPA_FLAME_API_TIME,
		     "weigh CUDA API calls by their duration instead"),
	CLI_OPT_SETV(0, "wall", FO, a.weight, GPA_FLAME_WALL_SHARE,
		     "weigh GPU ops by their share of busy time (each\n"
		     "instant split among the ops running) and add idle\n"
		     "time by cause: each device sums to its window"),
	CLI_OPT_BITV(0, "no-nvtx", FO, a.flags, GPA_FLAME_NO_NVTX,
		     "leave NVTX ranges out of the stacks"),
	CLI_OPT_BITV(0, "cpu-stacks", FO, a.flags, GPA_FLAME_CPU_STACKS,
		     "add the CPU call stack captured at each launch"),
	CLI_OPT_BITV(0, "by-step", FO, a.flags, GPA_FLAME_BY_STEP,
		     "a frame per step under the process (default: the\n"
		     "steps merge into one frame, e.g. ProfilerStep#*)"),
	CLI_OPT_BITV(0, "merge-layers", FO, a.flags, GPA_FLAME_MERGE_LAYERS,
		     "repeated layers as one frame: frames named alike\n"
		     "but for their numbers, with stacks of one shape\n"
		     "below (the HTML report's default)"),
	/* Checked when the steps are looked for, once the trace is loaded. */
	CLI_OPT_STR(0, "step", "REGEX", FO, step_regex,
		    "NVTX ranges that are steps (default: ProfilerStep#N,\n"
		    "else annotations that repeat around GPU work)"),
	CLI_OPT_ENUMV(0, "kernel-name", "MODE", FO, a.kname, names,
		      "unknown kernel-name mode '%s'",
		      "kernel names: demangled (default), short, mangled"),
	/* The earlier spelling, kept working. */
	{.type = CLI_OPT_ENUM, 0, "names", "MODE", NULL, CLI_FIELD_(FO, a.kname), .values = names,
	 .err = "unknown kernel-name mode '%s'", .flags = CLI_OPTF_HIDDEN},
	/* Checked once the options are read: "kernel" or "API" pattern, after --api. */
	CLI_OPT_STR('k', "kernel", "REGEX", FO, a.leaf_regex,
		    "only kernels (API calls with --api) matching (PCRE2)"),
	CLI_OPT_RE(0, "nvtx", "REGEX", FO, a.nvtx_regex, "NVTX pattern",
		   "only ops launched inside a matching NVTX range"),
	CLI_OPT_RE(0, "data-loader", "REGEX", FO, a.data_regex, "data-loader pattern",
		   "with --wall: range names that are data\n"
		   "loading (PCRE2; default in docs/gaps.md)"),
	CLI_OPT_UINTV('d', "gpu", "N", FO, a.device, 0, INT32_MAX, "bad GPU '%s'",
		      "only CUDA device N (in every process)"),
	/* The earlier spelling, kept working: --device names a peak-table row elsewhere. */
	{.type = CLI_OPT_UINT, 0, "device", "N", NULL, CLI_FIELD_(FO, a.device),
	 .umax = INT32_MAX, .err = "bad GPU '%s'", .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_UINTV(0, "rank", "N", FO, a.rank, 0, INT32_MAX, "bad rank '%s'",
		      "only the process of rank N"),
	CLI_OPT_BITV(0, "no-ids", FO, a.flags, GPA_FLAME_NO_IDS,
		     "name processes and threads without pid and tid:\n"
		     "threads by role, main or side N in order of first\n"
		     "launch (implied by --diff, so runs compare)"),
	CLI_OPT_BOOL(0, "diff", FO, diff, "differential: BEFORE... -- AFTER..."),
	CLI_OPT_BOOL(0, "force", FO, force,
		     "let -o write a trace-named file (.json) into an\n"
		     "input directory, where the next run reads it"),
	CLI_OPT_STR(0, "rules", "FILE", FO, rules,
		    "colour rules, 'CATEGORY REGEX' a line, before the\n"
		    "built-in ones (gemm, attention, communication,\n"
		    "elementwise, copy, other)"),
	CLI_OPT_STR(0, "title", "TEXT", FO, svg.title, "SVG title"),
	CLI_OPT_STR(0, "subtitle", "TEXT", FO, svg.subtitle, "SVG subtitle"),
	CLI_OPT_UINTV(0, "width", "PX", FO, svg.width, 100, 1000000, "bad width '%s'",
		      "SVG width (1200)"),
	CLI_OPT_UINTV(0, "height", "PX", FO, svg.frame_height, 4, 1000, "bad height '%s'",
		      "SVG frame height (16)"),
	CLI_OPT_CB(0, "min-width", "PX|N%", parse_min_width,
		   "leave out frames narrower than this (0.1 px)"),
	{.type = CLI_OPT_CALLBACK, 0, "minwidth", "PX|N%", .cb = parse_min_width,
	 .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_BOOL(0, "inverted", FO, svg.inverted, "SVG icicle graph: root on top"),
	CLI_OPT_ENUMV(0, "speedscope", "TYPE", FO, sstype, sstypes, "unknown speedscope type '%s'",
		      "sampled (default: one weighted profile) or evented\n"
		      "(a timeline per device and stream)"),
	CLI_OPT_SUB(cli_comm_options, struct flame_opts, comm, 0),
	CLI_OPT_HELP(0),
	CLI_OPT_END(),
};
#undef FO

const struct cli_command cmd_flame_opts = {
	.usage =
	"usage: gpuprof flame [--format folded|svg|speedscope] [-o FILE] [options] TRACE...\n"
	"       gpuprof flame --diff [options] BEFORE... -- AFTER...\n"
	"\n"
	"Draws where GPU time goes as a flame graph: each kernel, memcpy and memset\n"
	"adds its duration (ns) to the stack process -> thread -> NVTX ranges open\n"
	"when it was launched (through its launch call's correlation) -> CPU call\n"
	"stack (--cpu-stacks) -> kernel. With --api the weight is CUDA API time\n"
	"instead: thread -> NVTX ranges -> API call name. Folded stacks (the input of\n"
	"flamegraph.pl and inferno) go to standard output unless -o is given; the\n"
	"format follows -o's extension (.svg, .json) unless --format says. With\n"
	"--diff the two sets of traces are compared per step: folded output has two\n"
	"counts (before after), the SVG is sized by after and red where GPU time grew,\n"
	"blue where it shrank. See docs/flame.md.\n"
	"\n",
	.options = flame_options,
};

/* "0.5" px or "1%" of the drawing's width. */
static int parse_min_width(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct flame_opts *o = ctx->base;
	char *end;

	(void)opt;
	errno = 0;
	o->min_width = strtod(arg, &end);
	o->min_width_pct = *end == '%';
	if (errno || end == arg || (*end && strcmp(end, "%")) || !(o->min_width >= 0) ||
	    o->min_width > 1e6 || (o->min_width_pct && o->min_width > 100)) {
		return cli_opt_usage_error(ctx, "bad --min-width '%s'", arg);
	}
	return 0;
}

/* Reads a small text file whole (rules). Caller frees. */
static char *read_text(const char *path)
{
	FILE *fp = cli_fopen_input(path);
	struct gp_strbuf sb = GP_STRBUF_INIT;
	char buf[4096];
	size_t n;

	if (!fp) {
		cli_error("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len < (1u << 20)) {
		gp_strbuf_add(&sb, buf, n);
	}
	if (ferror(fp) || sb.failed || sb.len >= (1u << 20) || memchr(sb.buf, '\0', sb.len)) {
		cli_error("cannot read '%s': %s", path,
			  ferror(fp) ? strerror(errno) : "not a text file of at most 1 MiB");
		fclose(fp);
		gp_strbuf_release(&sb);
		return NULL;
	}
	fclose(fp);
	return gp_strbuf_detach(&sb, NULL);
}

/* Loads a model and builds its tree; steps counted into *nsteps when asked. */
static int build(struct flame_opts *o, char **args, size_t nargs, struct gpa_model *m,
		 struct gpa_flame *f, uint64_t *nsteps)
{
	struct gpa_steps steps;
	char err[512];
	int ret;

	memset(&steps, 0, sizeof(steps));
	/* frames name no launch configuration, correlation or callback id */
	if (cli_load_model_ex(&o->common, m, args, nargs, 0,
			      GPA_DROP_API_IDS | GPA_DROP_CORR | GPA_DROP_SHAPES)) {
		return CMD_ERROR;
	}
	/* the classification on a second thread while the steps are found */
	struct gpa_commclass cc = {0};
	struct cli_commclass_job ccj;
	cli_commclass_start(&ccj, &o->common, m, &o->comm, &cc);
	/* always: step ranges merge into one frame unless --by-step keeps them apart */
	/* merged, the steps' ranges are all a flame graph needs; apart, their ops too */
	ret = o->a.flags & GPA_FLAME_BY_STEP
		      ? gpa_steps_find(m, o->step_regex, &steps, err, sizeof(err))
		      : gpa_steps_find_ranges(m, o->step_regex, &steps, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		cli_commclass_finish(&ccj, false);
		gpa_commclass_release(&cc);
		gpa_model_release(m);
		return cli_exit_code(ret, 0);
	}
	o->a.steps = &steps;
	if (nsteps) {
		*nsteps = steps.v.n ? steps.v.n : 1;
	}
	ret = cli_commclass_finish(&ccj, true);
	if (ret != CMD_OK) {
		o->a.steps = NULL;
		gpa_steps_release(&steps);
		gpa_commclass_release(&cc);
		gpa_model_release(m);
		return ret;
	}
	o->a.comm = &cc;
	ret = gpa_flame_build(m, &o->a, f, err, sizeof(err));
	o->a.steps = NULL;
	o->a.comm = NULL;
	gpa_steps_release(&steps);
	gpa_commclass_release(&cc);
	if (ret) {
		cli_error("%s", err);
		gpa_flame_release(f);
		gpa_model_release(m);
		return cli_exit_code(ret, 0);
	}
	return CMD_OK;
}

static bool write_out(const char *path, const struct gp_strbuf *sb)
{
	return path ? cli_write_file(path, sb->buf, sb->len) : cli_write_stdout(sb->buf, sb->len);
}

static int render(struct flame_opts *o, const struct gpa_flame *f, const struct gpa_model *m)
{
	struct gp_strbuf out = GP_STRBUF_INIT;
	char err[256] = "";
	int ret;

	if (!f->ops && !f->diff) {
		cli_warn("no %s %s", o->a.weight == GPA_FLAME_API_TIME ? "API calls" : "GPU activity",
			 f->filtered ? "matched the filters" : "in the traces");
	}
	switch (o->format) {
	case FLAME_SVG:
		if (o->min_width_pct) {
			o->svg.min_width = o->min_width / 100.0 * ((double)o->svg.width - 20);
		} else {
			o->svg.min_width = o->min_width;
		}
		ret = gpr_flame_svg(&out, f, &o->svg, err, sizeof(err));
		break;
	case FLAME_SPEEDSCOPE:
		ret = gpr_flame_speedscope(&out, f, m, o->sstype, o->svg.title);
		break;
	default:
		ret = gpr_flame_folded(&out, f);
		break;
	}
	if (ret) {
		cli_error("%s", err[0] ? err : "out of memory");
		gp_strbuf_release(&out);
		return cli_exit_code(ret, 0);
	}
	ret = write_out(o->output, &out) ? CMD_OK : CMD_ERROR;
	gp_strbuf_release(&out);
	return ret;
}

static int run(struct flame_opts *o, char **args, size_t nargs)
{
	struct gpa_model m;
	struct gpa_flame f;
	int status;

	if (o->format == FLAME_SPEEDSCOPE && o->sstype == GPR_SPEEDSCOPE_EVENTED) {
		o->a.flags |= GPA_FLAME_KEEP_OPS;
	}
	status = build(o, args, nargs, &m, &f, NULL);
	if (status) {
		return status;
	}
	status = render(o, &f, &m);
	gpa_flame_release(&f);
	gpa_model_release(&m);
	return status;
}

static int run_diff(struct flame_opts *o, char **a, size_t na, char **b, size_t nb)
{
	struct gpa_model ma, mb;
	struct gpa_flame fa, fb, fd;
	uint64_t sa = 1, sb = 1;
	int status;

	o->a.flags |= GPA_FLAME_NO_IDS;
	status = build(o, a, na, &ma, &fa, &sa);
	if (status) {
		return status;
	}
	/* The before model is no longer needed: its tree owns its names. */
	gpa_model_release(&ma);
	status = build(o, b, nb, &mb, &fb, &sb);
	if (status) {
		gpa_flame_release(&fa);
		return status;
	}
	gpa_model_release(&mb);
	if (gpa_flame_diff(&fa, sa, &fb, sb, &fd)) {
		cli_error("out of memory");
		status = CMD_ERROR;
	} else {
		status = render(o, &fd, NULL);
	}
	gpa_flame_release(&fd);
	gpa_flame_release(&fa);
	gpa_flame_release(&fb);
	return status;
}

/* The checks that need all the options; args split at "--" into *split. */
static int check(struct flame_opts *o, char **args, size_t nargs, size_t *split)
{
	const struct cli_command *cmd = &cmd_flame_opts;

	static const struct cli_out_ext exts[] = {{"folded", FLAME_FOLDED, "folded"},
						  {"svg", FLAME_SVG, "svg"},
						  {"json", FLAME_SPEEDSCOPE, "speedscope"},
						  {NULL, 0, NULL}};
	int ret = cli_output_format(cmd, o->output, exts, &o->format);

	if (ret) {
		return ret;
	}
	if (o->format < 0) {
		o->format = FLAME_FOLDED;
	}
	if (!nargs) {
		return cli_cmd_usage_error(cmd, "no trace file given");
	}
	*split = nargs;
	for (size_t i = 0; i < nargs; i++) {
		if (!strcmp(args[i], "--")) {
			*split = i;
			break;
		}
	}
	if (o->diff) {
		if (*split == 0 || *split >= nargs - 1) {
			return cli_cmd_usage_error(cmd, "--diff needs traces on both sides: "
							"BEFORE... -- AFTER...");
		}
		if (o->format == FLAME_SPEEDSCOPE) {
			return cli_cmd_usage_error(cmd, "speedscope cannot show a differential "
							"graph; use folded or svg");
		}
	} else if (*split != nargs) {
		return cli_cmd_usage_error(cmd, "'--' separates the two sides of --diff");
	}
	if (o->sstype == GPR_SPEEDSCOPE_EVENTED && o->a.weight == GPA_FLAME_API_TIME) {
		return cli_cmd_usage_error(cmd, "evented speedscope output is for GPU time");
	}
	return CMD_OK;
}

/* The colour rules of --rules, into *cls. */
static int load_rules(const char *path, struct gpa_classifier **cls)
{
	char err[512], *text = read_text(path);
	int ret;

	if (!text) {
		return CMD_ERROR;
	}
	ret = gpa_classifier_new(text, path, cls, err, sizeof(err));
	free(text);
	if (ret) {
		cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
		return CMD_ERROR;
	}
	return CMD_OK;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_opts opts = {.format = -1, .min_width = 0.1};
	struct gpa_classifier *cls = NULL;
	size_t split = 0;
	int nargs, status;

	gpa_flame_opts_init(&opts.a);
	gpr_flame_svg_opts_init(&opts.svg);
	status = cli_parse_options(&cmd_flame_opts, &opts, &opts.common, argc, argv, &nargs);
	if (status != CLI_PARSE_CONTINUE) {
		return status;
	}
	status = check(&opts, argv, (size_t)nargs, &split);
	if (status == CMD_OK) {
		status = cli_check_outputs(&cmd_flame_opts, &opts.output, 1, argv, (size_t)nargs,
					   opts.force);
	}
	if (status != CMD_OK) {
		return status;
	}
	if (opts.rules) {
		status = load_rules(opts.rules, &cls);
		if (status != CMD_OK) {
			return status;
		}
		opts.a.classifier = cls;
	}
	if (opts.a.leaf_regex) {
		status = cli_check_regex(opts.a.leaf_regex,
					 opts.a.weight == GPA_FLAME_API_TIME ? "API pattern"
									     : "kernel pattern",
					 0);
	}
	if (status != CMD_OK) {
		/* said */
	} else if (opts.diff) {
		status = run_diff(&opts, argv, split, argv + split + 1, (size_t)nargs - split - 1);
	} else {
		status = run(&opts, argv, (size_t)nargs);
	}
	gpa_classifier_free(cls);
	return status;
}
