/* SPDX-License-Identifier: MIT */
/*
 * Messages of the gpuprof command ("gpuprof: error: ...") and the exit
 * status for a library error.
 */
#include "base/compat.h"
#include "cli/cli.h"

static void vmsg(const char *level, const char *fmt, va_list ap)
{
	fprintf(stderr, "gpuprof: %s: ", level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;
	const char *nl = strchr(help, '\n');

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	fprintf(stderr, "%.*s\n", nl ? (int)(nl - help) : (int)strlen(help), help);
	return CMD_USAGE;
}

int cli_exit_code(int err, unsigned flags)
{
	if (!err) {
		return CMD_OK;
	}
	/* A pattern or value the user gave that the library refused. */
	if (err == -GP_ERR_API || (err == -GP_ERR_NOTFOUND && (flags & CLI_NOTFOUND_IS_USAGE))) {
		return CMD_USAGE;
	}
	return CMD_ERROR;
}
