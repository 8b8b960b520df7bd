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

	static const uint64_t scale[] = {[GPR_TIME_US] = 1000, [GPR_TIME_MS] = 1000000,
					 [GPR_TIME_S] = 1000000000};
	int u = gpr_time_unit_parse(arg);

	(void)opt;
	if (u < 0) {
		return ctx->prescan ? 0
				    : cli_opt_usage_error(ctx,
							  "unknown time unit '%s'; use auto, ns, us, "
							  "ms or s (or nsec, usec, msec, sec)",
							  arg);
	}
	d.exact = u == GPR_TIME_NS;
	d.scale = u == GPR_TIME_AUTO || u == GPR_TIME_NS ? 0 : scale[u];
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
