/* SPDX-License-Identifier: MIT */
/*
 * threads.c - how many threads read traces: --threads N (every command's,
 * cli/parse-options.c), else GPUPROF_THREADS, else one per core. The
 * results are the same whatever the count; only the time changes.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "trace/trace.h"

#include <unistd.h>

unsigned cli_threads;

bool cli_parse_threads(const char *s, unsigned *out)
{
	uint64_t v;

	if (!s || !cli_parse_uint(s, GPT_MAX_THREADS, &v) || v < 1) {
		return false;
	}
	*out = (unsigned)v;
	return true;
}

int cli_thread_count(unsigned *out)
{
	const char *env = getenv("GPUPROF_THREADS");
	long cores;

	if (cli_threads) {
		*out = cli_threads;
		return 0;
	}
	if (env && *env) {
		if (!cli_parse_threads(env, out)) {
			cli_error("GPUPROF_THREADS: '%s' is not a number of threads from 1 to %u", env,
				  GPT_MAX_THREADS);
			return -GP_ERR_RANGE;
		}
		return 0;
	}
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	*out = cores < 1 ? 1u : cores > (long)GPT_MAX_THREADS ? GPT_MAX_THREADS : (unsigned)cores;
	return 0;
}
