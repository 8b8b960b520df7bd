/* SPDX-License-Identifier: MIT */
/*
 * bench-report - the analysis figures of docs/performance.md: `gpuprof
 * report` on a generated trace of about 10 million events, wall time and
 * peak memory (the child's maximum resident set, from wait4), as a whole
 * command run the way a user runs it.
 *
 *   bench-report GPUPROF [EVENTS_MILLIONS] [REPEATS]
 */
#include "base/compat.h"
#include "tests/tools/gen.h"

#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Runs argv with stdout to /dev/null; wall seconds and max RSS in KiB. */
static int run(char *const argv[], double *wall, long *rss_kb)
{
	fflush(stdout);
	uint64_t t0 = gp_clock_monotonic_ns();
	pid_t pid = fork();

	if (pid < 0) {
		return -1;
	}
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout)) {
			_exit(127);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		return -1;
	}
	*wall = (double)(gp_clock_monotonic_ns() - t0) / 1e9;
	*rss_kb = ru.ru_maxrss;
	return 0;
}

int main(int argc, char **argv)
{
	double millions = argc > 2 ? atof(argv[2]) : 10.0;
	int reps = argc > 3 ? atoi(argv[3]) : 3;
	char path[PATH_MAX];
	struct gen_opts o;
	struct gen_stats st;
	struct gpt_writer *w;

	if (argc < 2 || millions <= 0 || reps < 1 || reps > 50) {
		fprintf(stderr, "usage: bench-report GPUPROF [EVENTS_MILLIONS] [REPEATS]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/gpuprof-bench-report-XXXXXX", gp_tmpdir());
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	/* The realistic mix: per step 400 kernels with their launches, copies, NVTX ranges. */
	gen_opts_default(&o);
	o.seed = 3;
	o.kernels_per_step = 400;
	o.steps = (uint32_t)(millions * 1e6 / 819.7 + 0.5);
	if (gpt_writer_open_fd(fd, path, NULL, &w) || gen_write(w, &o, &st) || gpt_writer_close(w)) {
		fprintf(stderr, "bench-report: cannot write %s\n", path);
		unlink(path);
		return 1;
	}
	printf("gpuprof report on a generated trace: %" PRIu64 " events (%u steps x 400 kernels)\n",
	       st.events, o.steps);

	double walls[50];
	long rss = 0;
	char *args[] = {argv[1], "report", "--format", "json", path, NULL};
	for (int i = 0; i < reps; i++) {
		long r;
		if (run(args, &walls[i], &r)) {
			fprintf(stderr, "bench-report: gpuprof report failed\n");
			unlink(path);
			return 1;
		}
		rss = r > rss ? r : rss;
	}
	unlink(path);
	qsort(walls, (size_t)reps, sizeof(double), cmp_double);
	double med = walls[reps / 2];
	double bpe = (double)rss * 1024.0 / (double)st.events;
	printf("  wall time (median of %d)  %8.2f s     target < 5 s     %s\n", reps, med,
	       med < 5.0 ? "PASS" : "MISS");
	printf("  peak memory              %8.1f MiB   %.1f B/event (target < 64)  %s\n",
	       (double)rss / 1024.0, bpe, bpe < 64.0 ? "PASS" : "MISS");
	printf("  throughput               %8.2f M events/s\n", (double)st.events / med / 1e6);
	return 0;
}
