/* SPDX-License-Identifier: MIT */
/*
 * display.c - how text output reads: the terminal's width, and the
 * --timeunit and --wide options every command that prints times or names
 * takes, parsed into its struct cli_common and resolved once its options are
 * read into the struct gpr_display it passes to report/ (docs/units.md).
 * report/format.c does the formatting.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "report/report.h"

#include <sys/ioctl.h>
#include <unistd.h>

/* Text fits this many columns when standard output is not a terminal. */
#define DEFAULT_WIDTH 120

/* COLUMNS, else the terminal's width, else DEFAULT_WIDTH. */
static unsigned text_width(void)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	uint64_t n;

	if (cols && cli_parse_uint(cols, 100000, &n) && n >= 40) {
		return (unsigned)n;
	}
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40) {
		return ws.ws_col;
	}
	return DEFAULT_WIDTH;
}

void cli_display_resolve(const struct cli_common *c, struct gpr_display *out)
{
	static const uint64_t scale[] = {[GPR_TIME_US] = 1000, [GPR_TIME_MS] = 1000000,
					 [GPR_TIME_S] = 1000000000};
	int u = c && c->timeunit ? c->timeunit - 1 : GPR_TIME_AUTO;

	*out = (struct gpr_display){.width = text_width(), .wide = c && c->wide};
	out->exact = u == GPR_TIME_NS;
	out->scale = u == GPR_TIME_AUTO || u == GPR_TIME_NS ? 0 : scale[u];
}

void cli_display_apply(struct cli_common *c)
{
	if (c) {
		cli_display_resolve(c, &c->display);
	}
}

/* --timeunit and --wide go into the command's struct cli_common (cli_display_resolve). */
static int opt_timeunit(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	int u = gpr_time_unit_parse(arg);

	(void)opt;
	if (u < 0) {
		return ctx->prescan ? 0
				    : cli_opt_usage_error(ctx,
							  "unknown time unit '%s'; use auto, ns, us, "
							  "ms or s (or nsec, usec, msec, sec)",
							  arg);
	}
	if (ctx->common) {
		ctx->common->timeunit = u + 1;
	}
	return 0;
}

static int opt_wide(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	if (ctx->common) {
		ctx->common->wide = true;
	}
	return 0;
}

/* For completion: the parser takes these and nsys's nsec, usec, msec, sec. */
static const struct cli_enum_value timeunits[] = {
	{"auto", 0}, {"ns", 0}, {"us", 0}, {"ms", 0}, {"s", 0}, {NULL, 0}};

const struct cli_option cli_display_options[] = {
	{.type = CLI_OPT_CALLBACK, 0, "timeunit", "UNIT", .cb = opt_timeunit, .values = timeunits,
	 .help = "auto (default: 3-4 digits in ns, us, ms or s),\n"
		 "ns (exact integers), us, ms or s (exact decimals);\n"
		 "also nsys's nsec, usec, msec, sec"},
	{.type = CLI_OPT_CALLBACK, 0, "wide", NULL, "kernel names whole in text tables",
	 .cb = opt_wide},
	CLI_OPT_END(),
};

const struct cli_option cli_wide_options[] = {
	{.type = CLI_OPT_CALLBACK, 0, "wide", NULL, "kernel names whole in text tables",
	 .cb = opt_wide},
	CLI_OPT_END(),
};
