/* SPDX-License-Identifier: MIT */
/*
 * threads.c - how many threads read traces: --threads N (every command's,
 * cli/parse-options.c, kept in the command's struct cli_common), else
 * GPUPROF_THREADS, else one per core this process may run on (its CPU
 * affinity: taskset, a cgroup's cpuset, an MPI launcher's binding), else
 * one per online core; resolved once per command. The results are the
 * same whatever the count; only the time changes.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "trace/trace.h"

#include <sched.h>
#include <unistd.h>

bool cli_parse_threads(const char *s, unsigned *out)
{
	uint64_t v;

	if (!s || !cli_parse_uint(s, GPT_MAX_THREADS, &v) || v < 1) {
		return false;
	}
	*out = (unsigned)v;
	return true;
}

/* The cores this process may run on; the online cores when that cannot be asked. */
static long usable_cores(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0) {
		return CPU_COUNT(&set);
	}
	return sysconf(_SC_NPROCESSORS_ONLN);
}

static int thread_count(unsigned given, unsigned *out)
{
	const char *env = getenv("GPUPROF_THREADS");
	long cores;

	if (given) {
		*out = given;
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
	cores = usable_cores();
	*out = cores < 1 ? 1u : cores > (long)GPT_MAX_THREADS ? GPT_MAX_THREADS : (unsigned)cores;
	return 0;
}

int cli_common_threads(struct cli_common *c, unsigned *out)
{
	int ret = c->threads ? 0 : thread_count(c->threads_given, &c->threads);

	*out = c->threads;
	return ret;
}
