/* SPDX-License-Identifier: MIT */
/*
 * display.c - how text output reads, set once per run: the terminal's width
 * and the --timeunit and --wide options every command that prints times or
 * names takes (docs/units.md). report/format.c does the formatting.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "report/report.h"

#include <sys/ioctl.h>
#include <unistd.h>

/* Text fits this many columns when standard output is not a terminal. */
#define DEFAULT_WIDTH 120

void cli_display_init(void)
{
	struct gpr_display d = *gpr_display_get();
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	uint64_t n;

	d.width = DEFAULT_WIDTH;
	if (cols && cli_parse_uint(cols, 100000, &n) && n >= 40) {
		d.width = (unsigned)n;
	} else if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
		   ws.ws_col >= 40) {
		d.width = ws.ws_col;
	}
	gpr_display_set(&d);
}

static int opt_timeunit(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct gpr_display d = *gpr_display_get();

	(void)opt;
	if (!strcmp(arg, "ns") || !strcmp(arg, "nsec")) {
		d.exact = true;
	} else if (!strcmp(arg, "auto")) {
		d.exact = false;
	} else {
		return ctx->prescan ? 0 : cli_opt_usage_error(ctx, "unknown time unit '%s'", arg);
	}
	gpr_display_set(&d);
	return 0;
}

static int opt_wide(struct cli_ctx *ctx, const struct cli_option *opt, const char *arg)
{
	struct gpr_display d = *gpr_display_get();

	(void)ctx;
	(void)opt;
	(void)arg;
	d.wide = true;
	gpr_display_set(&d);
	return 0;
}

const struct cli_option cli_display_options[] = {
	CLI_OPT_CB(0, "timeunit", "UNIT", opt_timeunit,
		   "auto (default: 3-4 digits in ns, us, ms or s)\n"
		   "or ns (exact integer nanoseconds)"),
	{.type = CLI_OPT_CALLBACK, 0, "wide", NULL, "kernel names whole in text tables",
	 .cb = opt_wide},
	CLI_OPT_END(),
};

const struct cli_option cli_wide_options[] = {
	{.type = CLI_OPT_CALLBACK, 0, "wide", NULL, "kernel names whole in text tables",
	 .cb = opt_wide},
	CLI_OPT_END(),
};
