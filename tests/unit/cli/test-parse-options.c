/* SPDX-License-Identifier: MIT */
/*
 * test-parse-options.c - the option tables of the subcommands: short, long
 * and attached forms, "--", permutation, missing values, unknown options,
 * numbers, durations, enums, regexes, callbacks, subtables and the help text.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "cli/parse-options.h"
#include "tests/unit/test.h"

#include <stdarg.h>
#include <unistd.h>

struct sub_opts {
	double ratio;
	bool deep;
};

struct t_opts {
	bool flag;
	unsigned bits;
	const char *name;
	size_t top;
	int64_t device;
	uint64_t wait_ns;
	int mode;
	const char *pattern;
	const char *opt_arg;
	int ncb;
	struct sub_opts sub;
};

static int count_cb(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct t_opts *o = ctx->base;

	(void)opt;
	if (!strcmp(arg, "fail")) {
		return cli_opt_usage_error(ctx, "callback refused '%s'", arg);
	}
	o->ncb++;
	return 0;
}

static int optarg_cb(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	(void)opt;
	((struct t_opts *)ctx->base)->opt_arg = arg ? arg : "default";
	return 0;
}

static const struct cli_enum_value modes[] = {{"one", 1}, {"two", 2}, {NULL, 0}};

static const struct cli_option sub_options[] = {
	CLI_OPT_GROUP("more:\n", 20, 6),
	{.type = CLI_OPT_DOUBLE, 0, "ratio", "R", "a ratio in (0, 10]",
	 CLI_FIELD_(struct sub_opts, ratio), .flags = CLI_OPTF_MIN_OPEN, .max = 10,
	 .err = "bad ratio '%s'"},
	CLI_OPT_BOOL(0, "deep", struct sub_opts, deep, "go deep"),
	CLI_OPT_END(),
};

static const struct cli_option t_options[] = {
	CLI_OPT_GROUP("options:\n", 24, 6),
	CLI_OPT_BOOL('q', "flag", struct t_opts, flag, "a flag"),
	CLI_OPT_BITV(0, "bit", struct t_opts, bits, 4, "or 4 in"),
	CLI_OPT_STR('o', "name", "NAME", struct t_opts, name, "a string,\nover two lines"),
	{.type = CLI_OPT_UINT, 'n', "top", "N|all", "a count", CLI_FIELD_(struct t_opts, top),
	 .flags = CLI_OPTF_ALL, .umax = 1000, .err = "bad --top '%s'"},
	CLI_OPT_UINTV('d', "device", "N", struct t_opts, device, 0, INT32_MAX, NULL, "a device"),
	CLI_OPT_DUR(0, "wait", "DURATION", struct t_opts, wait_ns, 0, "a duration"),
	CLI_OPT_ENUMV(0, "mode", "MODE", struct t_opts, mode, modes, "unknown mode '%s'",
		      "one, two"),
	CLI_OPT_RE(0, "pattern", "REGEX", struct t_opts, pattern, "test pattern", "a regex"),
	CLI_OPT_CB(0, "count", "X", count_cb, "counted"),
	{.type = CLI_OPT_CALLBACK, 0, "opt", "V", "an optional value", .flags = CLI_OPTF_OPTARG,
	 .cb = optarg_cb},
	{.type = CLI_OPT_SET, 0, "secret", NULL, NULL, CLI_FIELD_(struct t_opts, flag), .value = 1,
	 .flags = CLI_OPTF_HIDDEN},
	CLI_OPT_HELP(0),
	CLI_OPT_SUB(sub_options, struct t_opts, sub, 0),
	CLI_OPT_END(),
};

static const struct cli_command t_cmd = {
	.usage = "usage: t [options] ARGS...\n\n",
	.options = t_options,
	.footer = "\nthe end\n",
};

static const struct cli_command t_cmd_permute = {
	.usage = "usage: t [options] ARGS...\n",
	.options = t_options,
	.flags = CLI_PERMUTE,
};

static char err_text[4096];

/* Parses the NULL-terminated arguments after the command name, stderr into err_text. */
static int parse(const struct cli_command *cmd, struct t_opts *o, char **args, int *nargs,
		 const char *first, ...)
{
	va_list ap;
	int argc = 1, fd, saved, ret;
	FILE *tmp = tmpfile();

	memset(o, 0, sizeof(*o));
	args[0] = "t";
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		args[argc++] = (char *)a;
	}
	va_end(ap);
	args[argc] = NULL;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = fileno(tmp);
	dup2(fd, STDERR_FILENO);
	ret = cli_parse_options(cmd, o, NULL, argc, args, nargs);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	memset(err_text, 0, sizeof(err_text));
	rewind(tmp);
	size_t n = fread(err_text, 1, sizeof(err_text) - 1, tmp);
	err_text[n] = '\0';
	fclose(tmp);
	return ret;
}

#define P(...) parse(&t_cmd, &o, args, &nargs, __VA_ARGS__, (const char *)NULL)

TEST(short_long_attached)
{
	struct t_opts o;
	char *args[32];
	int nargs;

	CHECK_EQ_I(P("-q", "-o", "a", "--top", "5", "x"), CLI_PARSE_CONTINUE);
	CHECK(o.flag);
	CHECK_STR(o.name, "a");
	CHECK_EQ_U(o.top, 5);
	CHECK_EQ_I(nargs, 1);
	CHECK_STR(args[0], "x");

	CHECK_EQ_I(P("-oattached", "-n7", "--name=eq", "--top=all", "-qd3"), CLI_PARSE_CONTINUE);
	CHECK_STR(o.name, "eq");
	CHECK_EQ_U(o.top, SIZE_MAX);
	CHECK(o.flag);
	CHECK_EQ_I(o.device, 3);
	CHECK_EQ_I(nargs, 0);

	/* A unique abbreviation of a long name; the value may start with '-'. */
	CHECK_EQ_I(P("--dev", "2", "--name", "-x", "--bi"), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(o.device, 2);
	CHECK_STR(o.name, "-x");
	CHECK_EQ_U(o.bits, 4);
	/* Subtable options, hidden options. */
	CHECK_EQ_I(P("--ratio", "2.5", "--deep", "--secret", "a", "b"), CLI_PARSE_CONTINUE);
	CHECK(o.sub.ratio == 2.5);
	CHECK(o.sub.deep);
	CHECK(o.flag);
	CHECK_EQ_I(nargs, 2);
}

TEST(dashdash_and_order)
{
	struct t_opts o;
	char *args[32];
	int nargs;

	/* The first argument ends the options unless the command permutes. */
	CHECK_EQ_I(P("a", "-q", "--", "b"), CLI_PARSE_CONTINUE);
	CHECK(!o.flag);
	CHECK_EQ_I(nargs, 4);
	CHECK_STR(args[1], "-q");
	CHECK_STR(args[2], "--");
	/* "--" ends the options and goes. */
	CHECK_EQ_I(P("-q", "--", "-o", "x"), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(nargs, 2);
	CHECK_STR(args[0], "-o");
	CHECK(!o.name);
	/* "-" alone is an argument. */
	CHECK_EQ_I(P("-", "-q"), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(nargs, 2);

	CHECK_EQ_I(parse(&t_cmd_permute, &o, args, &nargs, "a", "-q", "b", "--", "-o", NULL),
		   CLI_PARSE_CONTINUE);
	CHECK(o.flag);
	CHECK_EQ_I(nargs, 3);
	CHECK_STR(args[0], "a");
	CHECK_STR(args[1], "b");
	CHECK_STR(args[2], "-o");
}

TEST(missing_and_unknown)
{
	struct t_opts o;
	char *args[32];
	int nargs;

	/* A missing value is told from an unknown option, and names the value wanted. */
	CHECK_EQ_I(P("-o"), CMD_USAGE);
	CHECK_STR(err_text, "gpuprof: error: option '-o' needs a value (NAME)\n"
			    "usage: t [options] ARGS...\n");
	CHECK_EQ_I(P("--name"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "option '--name' needs a value (NAME)");
	CHECK_EQ_I(P("--wait"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "option '--wait' needs a value (DURATION)");
	CHECK_EQ_I(P("-x"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "error: unknown option '-x'\n");
	CHECK_EQ_I(P("--bogus=1"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "error: unknown option '--bogus'\n");
	CHECK_EQ_I(P("--flag=1"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "option '--flag' takes no value");
	/* Ambiguous: --de is --device and --deep; both are named. */
	CHECK_EQ_I(P("--de", "1"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "ambiguous option '--de': --device, --deep\n");

	CHECK_EQ_I(parse(&t_cmd_permute, &o, args, &nargs, "a", "--wait", NULL), CMD_USAGE);
	CHECK_CONTAINS(err_text, "option '--wait' needs a value");
	CHECK_EQ_I(parse(&t_cmd_permute, &o, args, &nargs, "--bogus", NULL), CMD_USAGE);
	CHECK_CONTAINS(err_text, "unknown option '--bogus'");
}

/* An unknown option near a known one is answered with it; far from all, with none. */
TEST(did_you_mean_option)
{
	struct t_opts o;
	char *args[32];
	int nargs;

	CHECK_EQ_I(P("--nmae", "x"), CMD_USAGE); /* two letters swapped */
	CHECK_CONTAINS(err_text, "unknown option '--nmae'; did you mean '--name'?\n");
	CHECK_EQ_I(P("--pattren=x"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "unknown option '--pattren'; did you mean '--pattern'?\n");
	CHECK_EQ_I(P("--threds", "2"), CMD_USAGE); /* an option every command takes */
	CHECK_CONTAINS(err_text, "did you mean '--threads'?");
	CHECK_EQ_I(P("--secrte"), CMD_USAGE); /* hidden options are not suggested */
	CHECK(!strstr(err_text, "did you mean"));
	CHECK_EQ_I(P("--zzzzzz"), CMD_USAGE);
	CHECK(!strstr(err_text, "did you mean"));
}

TEST(suggest_distance)
{
	struct cli_suggest s;

	cli_suggest_init(&s, "reprot");
	cli_suggest_add(&s, "report");
	cli_suggest_add(&s, "record");
	CHECK_STR(cli_suggest_best(&s), "report");
	cli_suggest_init(&s, "fromat");
	cli_suggest_add(&s, "format");
	CHECK_STR(cli_suggest_best(&s), "format");
	/* Two equally near: no guess. */
	cli_suggest_init(&s, "tap");
	cli_suggest_add(&s, "top");
	cli_suggest_add(&s, "tip");
	CHECK(cli_suggest_best(&s) == NULL);
	/* Short words take one edit at most; a word is never its own whole rewrite. */
	cli_suggest_init(&s, "ab");
	cli_suggest_add(&s, "xy");
	CHECK(cli_suggest_best(&s) == NULL);
	cli_suggest_init(&s, "x");
	cli_suggest_add(&s, "y");
	CHECK(cli_suggest_best(&s) == NULL);
}

/* --threads, --quiet, --allow-unrelated follow every command's options in its help. */
TEST(common_options_in_help)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	const struct cli_command none = {.usage = "usage: t\n", .options = t_options,
					 .flags = CLI_NO_COMMON};
	struct t_opts o;
	char *args[32];
	int nargs;

	cli_options_help(&t_cmd, &sb);
	CHECK_CONTAINS(sb.buf, "\ncommon options:\n");
	CHECK_CONTAINS(sb.buf, "      --threads N");
	CHECK_CONTAINS(sb.buf, "      --quiet ");
	CHECK_CONTAINS(sb.buf, "      --allow-unrelated ");
	gp_strbuf_reset(&sb);
	cli_options_help(&none, &sb);
	CHECK(!strstr(sb.buf, "--threads"));
	gp_strbuf_release(&sb);
	/* A command without them refuses them as unknown. */
	CHECK_EQ_I(parse(&none, &o, args, &nargs, "--threads", "2", NULL), CMD_USAGE);
	CHECK_CONTAINS(err_text, "unknown option '--threads'");
}

TEST(numbers)
{
	struct t_opts o;
	char *args[32];
	int nargs;

	CHECK_EQ_I(P("--top", "1001"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "bad --top '1001'");
	CHECK_EQ_I(P("--top", "-1"), CMD_USAGE);
	CHECK_EQ_I(P("--top", "+1"), CMD_USAGE);
	CHECK_EQ_I(P("--top", ""), CMD_USAGE);
	CHECK_EQ_I(P("--top", "1x"), CMD_USAGE);
	CHECK_EQ_I(P("--device", "99999999999999999999999"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "bad --device '99999999999999999999999'");
	CHECK_EQ_I(P("--device", "2147483647"), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(o.device, INT32_MAX);
	CHECK_EQ_I(P("--ratio", "0"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "bad ratio '0'");
	CHECK_EQ_I(P("--ratio", "nan"), CMD_USAGE);
	CHECK_EQ_I(P("--ratio", "10.5"), CMD_USAGE);
	CHECK_EQ_I(P("--ratio", "1e1"), CLI_PARSE_CONTINUE);
	CHECK(o.sub.ratio == 10);

	uint64_t u;
	CHECK(cli_parse_uint("18446744073709551615", UINT64_MAX, &u) && u == UINT64_MAX);
	CHECK(!cli_parse_uint("18446744073709551616", UINT64_MAX, &u));
	CHECK(!cli_parse_uint(" 1", UINT64_MAX, &u));
}

TEST(durations)
{
	struct t_opts o;
	char *args[32];
	int nargs;
	uint64_t ns;

	CHECK(cli_parse_duration("250", &ns) && ns == 250);
	CHECK(cli_parse_duration("10ns", &ns) && ns == 10);
	CHECK(cli_parse_duration("1.5us", &ns) && ns == 1500);
	CHECK(cli_parse_duration("0.000001ms", &ns) && ns == 1);
	CHECK(cli_parse_duration("2s", &ns) && ns == 2000000000);
	CHECK(!cli_parse_duration("1.5", &ns));
	CHECK(!cli_parse_duration("0.0000001ms", &ns));
	CHECK(!cli_parse_duration("1h", &ns));
	CHECK(!cli_parse_duration(".5s", &ns));
	CHECK(!cli_parse_duration("99999999999999999999s", &ns));
	CHECK_EQ_I(P("--wait", "3ms"), CLI_PARSE_CONTINUE);
	CHECK_EQ_U(o.wait_ns, 3000000);
	CHECK_EQ_I(P("--wait", "3min"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "bad duration '3min'");
}

TEST(enums_regexes_callbacks)
{
	struct t_opts o;
	char *args[32];
	int nargs;

	CHECK_EQ_I(P("--mode", "two"), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(o.mode, 2);
	CHECK_EQ_I(P("--mode", "three"), CMD_USAGE);
	CHECK_STR(err_text, "gpuprof: error: unknown mode 'three'\nusage: t [options] ARGS...\n");

	CHECK_EQ_I(P("--pattern", "a+b"), CLI_PARSE_CONTINUE);
	CHECK_STR(o.pattern, "a+b");
	/* As the analyses say it, without the usage line. */
	CHECK_EQ_I(P("--pattern", "("), CMD_USAGE);
	CHECK_STR(err_text, "gpuprof: error: bad test pattern '(' at offset 1: missing closing "
			    "parenthesis\n");

	CHECK_EQ_I(P("--count", "a", "--count=b"), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(o.ncb, 2);
	CHECK_EQ_I(P("--count", "fail"), CMD_USAGE);
	CHECK_CONTAINS(err_text, "callback refused 'fail'");
	CHECK_EQ_I(P("--opt", "x"), CLI_PARSE_CONTINUE);
	CHECK_STR(o.opt_arg, "default");
	CHECK_EQ_I(nargs, 1);
	CHECK_EQ_I(P("--opt=v"), CLI_PARSE_CONTINUE);
	CHECK_STR(o.opt_arg, "v");
}

TEST(prescan)
{
	struct t_opts o = {0};
	char *args[] = {"t", "--bogus", "--count", "x", "-q", "--count=y",
			"a", "--count", "z", NULL};

	/* Only callbacks run, past what does not parse, up to the first argument. */
	CHECK_EQ_I(cli_prescan_options(&t_cmd, &o, 9, args), 0);
	CHECK_EQ_I(o.ncb, 2);
	CHECK(!o.flag);
	CHECK_STR(args[1], "--bogus");
}

TEST(help_text)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct t_opts o;
	char *args[32];
	int nargs;

	cli_options_help(&t_cmd, &sb);
	REQUIRE(!sb.failed);
	CHECK_STR(sb.buf, "usage: t [options] ARGS...\n"
			  "\n"
			  "options:\n"
			  "  -q, --flag            a flag\n"
			  "      --bit             or 4 in\n"
			  "  -o, --name NAME       a string,\n"
			  "                        over two lines\n"
			  "  -n, --top N|all       a count\n"
			  "  -d, --device N        a device\n"
			  "      --wait DURATION   a duration\n"
			  "      --mode MODE       one, two\n"
			  "      --pattern REGEX   a regex\n"
			  "      --count X         counted\n"
			  "      --opt[=V]         an optional value\n"
			  "  -h, --help            this text\n"
			  "more:\n"
			  "      --ratio R     a ratio in (0, 10]\n"
			  "      --deep        go deep\n"
			  "\n"
			  "common options:\n"
			  "      --threads N        threads that read traces and run analyses (default:\n"
			  "                         GPUPROF_THREADS, else one per core)\n"
			  "      --quiet            no progress line on standard error\n"
			  "      --allow-unrelated  analyse traces that are not one run together\n"
			  "\n"
			  "the end\n");
	gp_strbuf_release(&sb);
	/* --help prints it and the command is done. */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	FILE *null = fopen("/dev/null", "w");
	dup2(fileno(null), STDOUT_FILENO);
	int ret = P("--help", "--bogus");
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	fclose(null);
	CHECK_EQ_I(ret, CMD_OK);
	CHECK_STR(err_text, "");
}

TEST(exit_codes)
{
	CHECK_EQ_I(cli_exit_code(0, 0), CMD_OK);
	CHECK_EQ_I(cli_exit_code(-GP_ERR_API, 0), CMD_USAGE);
	CHECK_EQ_I(cli_exit_code(-GP_ERR_NOTFOUND, 0), CMD_ERROR);
	CHECK_EQ_I(cli_exit_code(-GP_ERR_NOTFOUND, CLI_NOTFOUND_IS_USAGE), CMD_USAGE);
	CHECK_EQ_I(cli_exit_code(-GP_ERR_IO, CLI_NOTFOUND_IS_USAGE), CMD_ERROR);
}

static int done_calls;
static const struct cli_common *done_common;

static void count_done(struct cli_common *c)
{
	done_calls++;
	done_common = c;
}

/* The settings resolved once per command: after options read whole, never after --help or an error. */
TEST(parse_done_hook)
{
	const struct cli_command cmd = {.usage = "usage: t\n", .options = t_options};
	char *ok[] = {"t", "--flag", "x", NULL};
	char *bad[] = {"t", "--bogus", NULL};
	char *help[] = {"t", "--help", NULL};
	struct cli_common c = {0};
	struct t_opts o = {0};
	int nargs, saved, fd;

	cli_set_parse_done(count_done);
	CHECK_EQ_I(cli_parse_options(&cmd, &o, &c, 3, ok, &nargs), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(done_calls, 1);
	CHECK(done_common == &c);
	fflush(stdout);
	fflush(stderr);
	saved = dup(STDOUT_FILENO);
	fd = dup(STDERR_FILENO);
	FILE *null = fopen("/dev/null", "w");
	dup2(fileno(null), STDOUT_FILENO);
	dup2(fileno(null), STDERR_FILENO);
	CHECK_EQ_I(cli_parse_options(&cmd, &o, &c, 2, bad, &nargs), CMD_USAGE);
	CHECK_EQ_I(cli_parse_options(&cmd, &o, &c, 2, help, &nargs), CMD_OK);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(saved);
	close(fd);
	fclose(null);
	CHECK_EQ_I(done_calls, 1);
	cli_set_parse_done(NULL);
}
