/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "base/base.h"

#include <stdio.h>

static const char *const err_names[GP_ERR__COUNT] = {
	[GP_OK] = "success",
	[GP_ERR_NOMEM] = "out of memory",
	[GP_ERR_IO] = "input/output error",
	[GP_ERR_FORMAT] = "invalid format",
	[GP_ERR_VERSION] = "unsupported version",
	[GP_ERR_TRUNCATED] = "truncated input",
	[GP_ERR_API] = "API misuse",
	[GP_ERR_CUPTI] = "CUPTI error",
	[GP_ERR_CHECKSUM] = "checksum mismatch",
	[GP_ERR_NOTFOUND] = "not found",
	[GP_ERR_RANGE] = "value out of range",
};

const char *gp_err_str(int err)
{
	/* Negate in unsigned arithmetic: -INT_MIN does not fit an int. */
	unsigned u = err < 0 ? 0u - (unsigned)err : (unsigned)err;

	if (u >= GP_ERR__COUNT) {
		return "unknown error";
	}
	return err_names[u];
}

void gp_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuprof: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
