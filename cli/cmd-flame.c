/* SPDX-License-Identifier: MIT */
/*
 * gpuprof flame - GPU-time (or CUDA API time) flame graphs: folded stacks,
 * interactive SVG, speedscope; differential graphs between two sets of
 * traces.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "analyze/stats.h"
#include "analyze/steps.h"
#include "cli/cli.h"
#include "report/report.h"

#include <getopt.h>
#include <stdio.h>

const char cmd_flame_help[] =
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
	"\n"
	"options:\n"
	"  -f, --format FORMAT       folded (default), svg, speedscope\n"
	"  -o, --output FILE         write there instead of standard output\n"
	"      --api                 weigh CUDA API calls by their duration instead\n"
	"      --wall                weigh GPU ops by their share of busy time (each\n"
	"                            instant split among the ops running) and add idle\n"
	"                            time by cause: each device sums to its window\n"
	"      --no-nvtx             leave NVTX ranges out of the stacks\n"
	"      --cpu-stacks          add the CPU call stack captured at each launch\n"
	"      --by-step             a frame per step under the process\n"
	"      --step REGEX          NVTX ranges that are steps (default: ProfilerStep#N,\n"
	"                            else names like step/iteration)\n"
	"      --names MODE          kernel names: demangled (default), short, mangled\n"
	"  -k, --kernel REGEX        only kernels (API calls with --api) matching (PCRE2)\n"
	"      --nvtx REGEX          only ops launched inside a matching NVTX range\n"
	"  -d, --device N            only CUDA device N (in every process)\n"
	"      --rank N              only the process of rank N\n"
	"      --no-ids              name processes and threads without pid and tid\n"
	"                            (implied by --diff, so runs compare)\n"
	"      --diff                differential: BEFORE... -- AFTER...\n"
	"      --rules FILE          colour rules, 'CATEGORY REGEX' a line, before the\n"
	"                            built-in ones (gemm, attention, communication,\n"
	"                            elementwise, copy, other)\n"
	"      --title TEXT          SVG title\n"
	"      --subtitle TEXT       SVG subtitle\n"
	"      --width PX            SVG width (1200)\n"
	"      --height PX           SVG frame height (16)\n"
	"      --min-width PX|N%     leave out frames narrower than this (0.1 px)\n"
	"      --inverted            SVG icicle graph: root on top\n"
	"      --speedscope TYPE     sampled (default: one weighted profile) or evented\n"
	"                            (a timeline per device and stream)\n"
	"  -h, --help                this text\n"
	"\n"
	"Exit status: 0 ok, 1 a trace could not be read or written, 2 usage.\n";

enum flame_format {
	FLAME_FOLDED = 0,
	FLAME_SVG = 1,
	FLAME_SPEEDSCOPE = 2,
};

struct flame_opts {
	int format; /* enum flame_format, -1 until given */
	const char *output;
	const char *step_regex;
	const char *rules;
	bool diff;
	bool min_width_pct;
	double min_width;
	enum gpr_speedscope_type sstype;
	struct gpa_flame_opts a;
	struct gpr_flame_svg_opts svg;
};

/* Reads a small text file whole (rules). Caller frees. */
static char *read_text(const char *path)
{
	FILE *fp = fopen(path, "rb");
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
	bool need_steps = nsteps || (o->a.flags & GPA_FLAME_BY_STEP);
	char err[512];
	int ret;

	memset(&steps, 0, sizeof(steps));
	if (cli_load_model(m, args, nargs)) {
		return CMD_ERROR;
	}
	if (need_steps) {
		ret = gpa_steps_find(m, o->step_regex, &steps, err, sizeof(err));
		if (ret) {
			cli_error("%s", err);
			gpa_model_release(m);
			return ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
		}
		o->a.steps = &steps;
		if (nsteps) {
			*nsteps = steps.v.n ? steps.v.n : 1;
		}
	}
	ret = gpa_flame_build(m, &o->a, f, err, sizeof(err));
	o->a.steps = NULL;
	gpa_steps_release(&steps);
	if (ret) {
		cli_error("%s", err);
		gpa_flame_release(f);
		gpa_model_release(m);
		return ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
	}
	return CMD_OK;
}

static bool write_out(const char *path, const struct gp_strbuf *sb)
{
	FILE *fp;

	if (!path || !strcmp(path, "-")) {
		return cli_write_stdout(sb->buf, sb->len);
	}
	fp = fopen(path, "wb");
	if (!fp) {
		cli_error("cannot create '%s': %s", path, strerror(errno));
		return false;
	}
	if (fwrite(sb->buf, 1, sb->len, fp) != sb->len || fflush(fp)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		fclose(fp);
		remove(path);
		return false;
	}
	if (fclose(fp)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		remove(path);
		return false;
	}
	return true;
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
		return ret == -GP_ERR_API ? CMD_USAGE : CMD_ERROR;
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

static bool parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end && s[0] >= '0' && s[0] <= '9' && *out <= max;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

int cmd_flame(int argc, char **argv)
{
	enum {
		OPT_API = 256, OPT_WALL, OPT_NO_NVTX, OPT_CPU, OPT_BY_STEP, OPT_STEP, OPT_NAMES, OPT_NVTX,
		OPT_RANK, OPT_NO_IDS, OPT_DIFF, OPT_RULES, OPT_TITLE, OPT_SUBTITLE, OPT_WIDTH,
		OPT_HEIGHT, OPT_MIN_WIDTH, OPT_INVERTED, OPT_SPEEDSCOPE,
	};
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"api", no_argument, NULL, OPT_API},
		{"wall", no_argument, NULL, OPT_WALL},
		{"no-nvtx", no_argument, NULL, OPT_NO_NVTX},
		{"cpu-stacks", no_argument, NULL, OPT_CPU},
		{"by-step", no_argument, NULL, OPT_BY_STEP},
		{"step", required_argument, NULL, OPT_STEP},
		{"names", required_argument, NULL, OPT_NAMES},
		{"kernel", required_argument, NULL, 'k'},
		{"nvtx", required_argument, NULL, OPT_NVTX},
		{"device", required_argument, NULL, 'd'},
		{"rank", required_argument, NULL, OPT_RANK},
		{"no-ids", no_argument, NULL, OPT_NO_IDS},
		{"diff", no_argument, NULL, OPT_DIFF},
		{"rules", required_argument, NULL, OPT_RULES},
		{"title", required_argument, NULL, OPT_TITLE},
		{"subtitle", required_argument, NULL, OPT_SUBTITLE},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"height", required_argument, NULL, OPT_HEIGHT},
		{"min-width", required_argument, NULL, OPT_MIN_WIDTH},
		{"minwidth", required_argument, NULL, OPT_MIN_WIDTH},
		{"inverted", no_argument, NULL, OPT_INVERTED},
		{"speedscope", required_argument, NULL, OPT_SPEEDSCOPE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct flame_opts opts = {.format = -1, .min_width = 0.1};
	struct gpa_classifier *cls = NULL;
	unsigned long long n;
	char *end, err[512];
	int c, status;

	gpa_flame_opts_init(&opts.a);
	gpr_flame_svg_opts_init(&opts.svg);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:o:k:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "folded")) {
				opts.format = FLAME_FOLDED;
			} else if (!strcmp(optarg, "svg")) {
				opts.format = FLAME_SVG;
			} else if (!strcmp(optarg, "speedscope")) {
				opts.format = FLAME_SPEEDSCOPE;
			} else {
				return cli_usage_error(cmd_flame_help, "unknown format '%s'", optarg);
			}
			break;
		case 'o':
			opts.output = optarg;
			break;
		case OPT_API:
			opts.a.weight = GPA_FLAME_API_TIME;
			break;
		case OPT_WALL:
			opts.a.weight = GPA_FLAME_WALL_SHARE;
			break;
		case OPT_NO_NVTX:
			opts.a.flags |= GPA_FLAME_NO_NVTX;
			break;
		case OPT_CPU:
			opts.a.flags |= GPA_FLAME_CPU_STACKS;
			break;
		case OPT_BY_STEP:
			opts.a.flags |= GPA_FLAME_BY_STEP;
			break;
		case OPT_STEP:
			opts.step_regex = optarg;
			break;
		case OPT_NAMES:
			if (!strcmp(optarg, "demangled")) {
				opts.a.kname = GPA_KNAME_DEMANGLED;
			} else if (!strcmp(optarg, "short")) {
				opts.a.kname = GPA_KNAME_SHORT;
			} else if (!strcmp(optarg, "mangled")) {
				opts.a.kname = GPA_KNAME_MANGLED;
			} else {
				return cli_usage_error(cmd_flame_help, "unknown name mode '%s'",
						       optarg);
			}
			break;
		case 'k':
			opts.a.leaf_regex = optarg;
			break;
		case OPT_NVTX:
			opts.a.nvtx_regex = optarg;
			break;
		case 'd':
			if (!parse_uint(optarg, INT32_MAX, &n)) {
				return cli_usage_error(cmd_flame_help, "bad device '%s'", optarg);
			}
			opts.a.device = (int64_t)n;
			break;
		case OPT_RANK:
			if (!parse_uint(optarg, INT32_MAX, &n)) {
				return cli_usage_error(cmd_flame_help, "bad rank '%s'", optarg);
			}
			opts.a.rank = (int64_t)n;
			break;
		case OPT_NO_IDS:
			opts.a.flags |= GPA_FLAME_NO_IDS;
			break;
		case OPT_DIFF:
			opts.diff = true;
			break;
		case OPT_RULES:
			opts.rules = optarg;
			break;
		case OPT_TITLE:
			opts.svg.title = optarg;
			break;
		case OPT_SUBTITLE:
			opts.svg.subtitle = optarg;
			break;
		case OPT_WIDTH:
		case OPT_HEIGHT:
			if (!parse_uint(optarg, c == OPT_WIDTH ? 1000000 : 1000, &n) ||
			    n < (c == OPT_WIDTH ? 100u : 4u)) {
				return cli_usage_error(cmd_flame_help, "bad %s '%s'",
						       c == OPT_WIDTH ? "width" : "height", optarg);
			}
			if (c == OPT_WIDTH) {
				opts.svg.width = (unsigned)n;
			} else {
				opts.svg.frame_height = (unsigned)n;
			}
			break;
		case OPT_MIN_WIDTH:
			errno = 0;
			opts.min_width = strtod(optarg, &end);
			opts.min_width_pct = *end == '%';
			if (errno || end == optarg || (*end && strcmp(end, "%")) ||
			    !(opts.min_width >= 0) || opts.min_width > 1e6 ||
			    (opts.min_width_pct && opts.min_width > 100)) {
				return cli_usage_error(cmd_flame_help, "bad --min-width '%s'",
						       optarg);
			}
			break;
		case OPT_INVERTED:
			opts.svg.inverted = true;
			break;
		case OPT_SPEEDSCOPE:
			if (!strcmp(optarg, "sampled")) {
				opts.sstype = GPR_SPEEDSCOPE_SAMPLED;
			} else if (!strcmp(optarg, "evented")) {
				opts.sstype = GPR_SPEEDSCOPE_EVENTED;
			} else {
				return cli_usage_error(cmd_flame_help, "unknown speedscope type '%s'",
						       optarg);
			}
			break;
		case 'h':
			fputs(cmd_flame_help, stdout);
			return CMD_OK;
		default:
			if (optopt && strchr("fokd", optopt)) {
				return cli_usage_error(cmd_flame_help, "option '-%c' needs a value",
						       optopt);
			}
			if (optopt) {
				return cli_usage_error(cmd_flame_help, "unknown option '-%c'",
						       optopt);
			}
			return cli_usage_error(cmd_flame_help,
					       "unknown option or missing value: '%s'",
					       argv[optind - 1]);
		}
	}
	if (opts.format < 0) {
		opts.format = FLAME_FOLDED;
		if (opts.output && ends_with(opts.output, ".svg")) {
			opts.format = FLAME_SVG;
		} else if (opts.output && ends_with(opts.output, ".json")) {
			opts.format = FLAME_SPEEDSCOPE;
		}
	}
	if (optind >= argc) {
		return cli_usage_error(cmd_flame_help, "no trace file given");
	}
	char **args = argv + optind;
	size_t nargs = (size_t)(argc - optind), split = nargs;
	for (size_t i = 0; i < nargs; i++) {
		if (!strcmp(args[i], "--")) {
			split = i;
			break;
		}
	}
	if (opts.diff) {
		if (split == 0 || split >= nargs - 1) {
			return cli_usage_error(cmd_flame_help,
					       "--diff needs traces on both sides: BEFORE... -- "
					       "AFTER...");
		}
		if (opts.format == FLAME_SPEEDSCOPE) {
			return cli_usage_error(cmd_flame_help,
					       "speedscope cannot show a differential graph; use "
					       "folded or svg");
		}
	} else if (split != nargs) {
		return cli_usage_error(cmd_flame_help, "'--' separates the two sides of --diff");
	}
	if (opts.sstype == GPR_SPEEDSCOPE_EVENTED && opts.a.weight == GPA_FLAME_API_TIME) {
		return cli_usage_error(cmd_flame_help, "evented speedscope output is for GPU time");
	}
	if (opts.rules) {
		char *text = read_text(opts.rules);
		if (!text) {
			return CMD_ERROR;
		}
		int ret = gpa_classifier_new(text, opts.rules, &cls, err, sizeof(err));
		free(text);
		if (ret) {
			cli_error("%s", ret == -GP_ERR_NOMEM ? "out of memory" : err);
			return CMD_ERROR;
		}
		opts.a.classifier = cls;
	}
	if (opts.diff) {
		status = run_diff(&opts, args, split, args + split + 1, nargs - split - 1);
	} else {
		status = run(&opts, args, nargs);
	}
	gpa_classifier_free(cls);
	return status;
}
