/* SPDX-License-Identifier: MIT */
/*
 * Messages of the gpuprof command ("gpuprof: error: ...") and the exit
 * status for a library error.
 */
#include "base/compat.h"
#include "cli/cli.h"

static __thread struct gp_strbuf *capture;

void cli_capture_messages(struct gp_strbuf *sb)
{
	capture = sb;
}

bool cli_capturing(void)
{
	return capture != NULL;
}

/*
 * One line in one write where it fits: under mpirun the processes share
 * standard error, and a line written in pieces mixes with another's.
 */
static void vmsg(const char *level, const char *fmt, va_list ap)
{
	char line[4096];
	int a = snprintf(line, sizeof(line), "gpuprof: %s: ", level), b;
	va_list aq;

	va_copy(aq, ap);
	b = vsnprintf(line + a, sizeof(line) - (size_t)a, fmt, aq);
	va_end(aq);
	if (capture) {
		gp_strbuf_addf(capture, "gpuprof: %s: ", level);
		gp_strbuf_vaddf(capture, fmt, ap);
		gp_strbuf_addch(capture, '\n');
		return;
	}
	if (b >= 0 && (size_t)a + (size_t)b + 1 < sizeof(line)) {
		line[a + b] = '\n';
		fwrite(line, 1, (size_t)a + (size_t)b + 1, stderr);
		return;
	}
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

void cli_error_ret(int ret, const char *err)
{
	/*
	 * Out of memory, a callee may not have written err at all (it may be
	 * the caller's uninitialized buffer): its detail is used only when it
	 * says so.
	 */
	if (ret == -GP_ERR_NOMEM && !(err && strstr(err, "out of memory"))) {
		err = NULL;
	}
	cli_error("%s", err && err[0] ? err : gp_err_str(ret));
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
