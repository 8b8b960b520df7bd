/* SPDX-License-Identifier: MIT */
/*
 * timing.h - medians of wall and process CPU time for the in-process
 * benchmarks (bench-flame, bench-occupancy).
 */
#ifndef GP_BENCH_TIMING_H
#define GP_BENCH_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

#endif
