/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "base/base.h"

#include <stdio.h>
#include <string.h>

/*
 * The sink is set once by the host before any other thread runs; it is read
 * without a lock afterwards.
 */
static gp_log_sink_fn log_sink;
static void *log_sink_data;
static enum gp_log_level log_max = GP_LOG_WARN;

void gp_log_set_sink(gp_log_sink_fn fn, void *data, enum gp_log_level max_level)
{
	log_sink = fn;
	log_sink_data = data;
	log_max = max_level;
}

bool gp_log_enabled(enum gp_log_level level)
{
	return log_sink && level <= log_max;
}

void gp_log(enum gp_log_level level, const char *tag, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!gp_log_enabled(level)) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_sink(level, tag, msg, log_sink_data);
}

bool gp_log_level_parse(const char *name, enum gp_log_level *level)
{
	static const char *const names[] = {"error", "warn", "info", "debug", "trace"};

	for (size_t i = 0; i < GP_ARRAY_SIZE(names); i++) {
		if (!strcmp(name, names[i])) {
			*level = (enum gp_log_level)i;
			return true;
		}
	}
	return false;
}

void gp_log_stderr_sink(enum gp_log_level level, const char *tag, const char *msg, void *data)
{
	static const char *const names[] = {"error", "warning", "info", "debug", "trace"};

	(void)data;
	if (level >= GP_LOG_DEBUG) {
		fprintf(stderr, "%s: %s: [%s] %s\n", "gpuprof", names[level], tag, msg);
	} else {
		fprintf(stderr, "gpuprof: %s: %s\n", names[level], msg);
	}
}
