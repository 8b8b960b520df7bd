/* SPDX-License-Identifier: MIT */
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

bool cli_write_stdout(const void *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, stdout) != len) {
		cli_error("cannot write to standard output: %s", strerror(errno));
		return false;
	}
	return true;
}
