/* SPDX-License-Identifier: MIT */
/*
 * bench-load.c - the floor under every analysis of a .gpz and its scaling
 * with threads (docs/performance.md, "Threads"): "read" opens the file and
 * takes every chunk from gpt_reader_next (read, inflate, CRC, decode; no
 * model), "load" builds the model (gpa_model_load) and releases it.
 *
 * usage: bench-load read|load TRACE THREADS [REPS]
 *
 * Prints the best wall time of REPS runs (default 3) and that run's process
 * CPU time (all threads), with the records read.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "trace/trace.h"

#include <time.h>

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int read_all(const char *path, unsigned threads, uint64_t *records)
{
	struct gpt_reader *r;
	struct gpt_chunk ch;
	int ret = gpt_reader_open(path, &r);

	if (!ret) {
		ret = gpt_reader_set_threads(r, threads);
	}
	while (!ret && (ret = gpt_reader_next(r, &ch)) > 0) {
		*records += ch.count;
		ret = 0;
	}
	if (ret < 0) {
		fprintf(stderr, "bench-load: %s: %s\n", path, r ? gpt_reader_last_error(r) : "");
	}
	gpt_reader_free(r);
	return ret;
}

static int load_all(const char *path, unsigned threads, uint64_t *records)
{
	struct gpa_model m;
	struct gpa_load_opts lo = {.threads = threads};
	char err[512];
	int ret = gpa_model_load(&m, &path, 1, &lo, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "bench-load: %s\n", err);
		return ret;
	}
	*records = m.kern.n + m.api.n + m.copy.n + m.set.n + m.sync.n + m.nvtx.n + m.ovh.n;
	gpa_model_release(&m);
	return 0;
}

int main(int argc, char **argv)
{
	double best = 0, best_cpu = 0;
	uint64_t records = 0;

	if (argc < 4 || (strcmp(argv[1], "read") && strcmp(argv[1], "load"))) {
		fprintf(stderr, "usage: bench-load read|load TRACE THREADS [REPS]\n");
		return 2;
	}
	unsigned threads = (unsigned)atoi(argv[3]);
	int reps = argc > 4 ? atoi(argv[4]) : 3;
	for (int i = 0; i < reps; i++) {
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		records = 0;
		int ret = argv[1][0] == 'r' ? read_all(argv[2], threads, &records)
					    : load_all(argv[2], threads, &records);
		if (ret) {
			return 1;
		}
		double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (!i || w < best) {
			best = w;
			best_cpu = c;
		}
	}
	printf("%s %u thread%s: best of %d %.3f s wall, %.3f s cpu, %" PRIu64 " records\n",
	       argv[1], threads, threads == 1 ? "" : "s", reps, best, best_cpu, records);
	return 0;
}
