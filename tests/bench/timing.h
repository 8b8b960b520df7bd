/* SPDX-License-Identifier: MIT */
/*
 * timing.h - medians of wall and process CPU time for the in-process
 * benchmarks (bench-flame, bench-occupancy), and the trace they share.
 */
#ifndef GP_BENCH_TIMING_H
#define GP_BENCH_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/tools/gen.h"

static inline double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct timing {
	double wall[16], cpu[16];
	int n;
};

/* One line: what (padded to width), median wall and CPU time, then extra. */
static inline void report_width(const char *what, int width, struct timing *t, const char *extra)
{
	qsort(t->wall, (size_t)t->n, sizeof(double), cmp_d);
	qsort(t->cpu, (size_t)t->n, sizeof(double), cmp_d);
	printf("  %-*s wall %8.3f s  cpu %8.3f s  %s\n", width, what, t->wall[t->n / 2],
	       t->cpu[t->n / 2], extra ? extra : "");
}

/* Runs stmt once and adds its wall and CPU time to *t (at most 16 runs). */
#define TIMED(t, stmt)                                                                             \
	do {                                                                                       \
		double w0_ = now(CLOCK_MONOTONIC), c0_ = now(CLOCK_PROCESS_CPUTIME_ID);           \
		stmt;                                                                              \
		(t)->wall[(t)->n] = now(CLOCK_MONOTONIC) - w0_;                                    \
		(t)->cpu[(t)->n] = now(CLOCK_PROCESS_CPUTIME_ID) - c0_;                            \
		(t)->n++;                                                                          \
	} while (0)

/*
 * The generated training trace of about `kernels` launches (steps of 10,000
 * kernels with their launch calls, no copies) that bench-flame and
 * bench-occupancy share: written once to $TMPDIR (default /tmp) as
 * gpuprof-bench-NAME-KERNELS.gpz and kept for the next run. Returns 0 with
 * its path in path, -1 (said on stderr) when it cannot be written.
 */
static inline int bench_trace(const char *name, uint64_t kernels, char *path, size_t size)
{
	struct stat sb;

	snprintf(path, size, "%s/gpuprof-bench-%s-%" PRIu64 ".gpz",
		 gp_tmpdir(), name, kernels);
	if (!stat(path, &sb)) {
		return 0;
	}
	struct gen_opts go;
	struct gen_stats gs = {0};
	struct gpt_writer *w;
	gen_opts_default(&go);
	go.kernels_per_step = 10000;
	go.steps = (uint32_t)((kernels + go.kernels_per_step - 1) / go.kernels_per_step);
	go.copies_per_step = 0;
	if (gpt_writer_open(path, NULL, &w) || gen_write(w, &go, &gs) || gpt_writer_close(w)) {
		fprintf(stderr, "bench-%s: cannot write %s\n", name, path);
		remove(path);
		return -1;
	}
	return 0;
}

#endif
