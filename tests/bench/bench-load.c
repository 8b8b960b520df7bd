/* SPDX-License-Identifier: MIT */
/*
 * bench-load.c - the floor under every analysis of a .gpz and its scaling
 * with threads (docs/performance.md, "Threads"): "read" opens the file and
 * takes every chunk from gpt_reader_next (read, inflate, CRC, decode; no
 * model), "load" builds the model (gpa_model_load) and releases it; "bytes"
 * loads it once and prints the bytes of every column of its tables, the
 * strings, and the peak resident set of the process after the load.
 *
 * usage: bench-load read|load|bytes TRACE THREADS [REPS]
 *        bench-load bytes TRACE THREADS report|flame
 *
 * The second form loads as that command does, without the columns it
 * leaves out (gpa_load_opts.drop).
 *
 * Prints the best wall time of REPS runs (default 3) and that run's process
 * CPU time (all threads), with the records read.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "trace/trace.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
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

/* "bytes": where the model's memory goes, per column, and the peak of the load. */
/* Columns a load left out (gpa_load_opts.drop) are NULL and count nothing. */
#define ROW_BYTES_(type, col) + (t_->col ? sizeof(type) : 0)
#define COL_LINE_(type, col)                                                                       \
	if (t_->col)                                                                               \
		printf("  %-12s %-10s %2zu B %10.1f MiB %5.2f B/event\n", name_, #col, sizeof(type),      \
	       (double)(t_->n * sizeof(type)) / 1048576.0,                                         \
	       events_ ? (double)(t_->n * sizeof(type)) / (double)events_ : 0.0);
#define OPT_LINE_(type, col)                                                                       \
	if (t_->col) {                                                                             \
		COL_LINE_(type, col)                                                               \
		total_ += t_->n * sizeof(type);                                                    \
	}
/* One table of gpa_model m (GPA_TABLES): its rows, and the bytes of each column. */
#define TABLE_(tname, field, COLS, OPT)                                                            \
	{                                                                                          \
		const char *name_ = #field;                                                        \
		const struct tname *t_ = &m.field;                                                 \
		size_t row_ = 0 COLS(ROW_BYTES_);                                                  \
		printf("%-12s %10zu rows x %2zu B = %8.1f MiB\n", name_, t_->n, row_,            \
		       (double)(t_->n * row_) / 1048576.0);                                       \
		total_ += t_->n * row_;                                                            \
		COLS(COL_LINE_)                                                                    \
		OPT(OPT_LINE_)                                                                     \
	}

static int bytes(const char *path, unsigned threads, const char *as)
{
	struct gpa_model m;
	struct gpa_load_opts lo = {.threads = threads};
	if (as && !strcmp(as, "report")) {
		lo.drop = GPA_DROP_API_IDS | GPA_DROP_CORR;
	} else if (as && !strcmp(as, "flame")) {
		lo.drop = GPA_DROP_API_IDS | GPA_DROP_CORR | GPA_DROP_SHAPES;
	}
	struct rusage ru;
	char err[512];
	int ret = gpa_model_load(&m, &path, 1, &lo, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "bench-load: %s\n", err);
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	uint64_t events_ = m.kern.n + m.api.n + m.copy.n + m.set.n + m.sync.n + m.nvtx.n + m.ovh.n;
	size_t total_ = 0;
	printf("%s: %" PRIu64 " records in the tables\n", path, events_);
	GPA_TABLES(TABLE_)
	size_t strs = m.strs.text.alloc + m.strs.off.cap * sizeof(uint32_t) +
		      m.strs.nslots * sizeof(uint32_t);
	size_t sites = m.ksites.cap * sizeof(*m.ksites.v) + m.asites.cap * sizeof(*m.asites.v);
	printf("strings      %8.1f MiB; funcs %zu, shapes %zu, threads %zu\n",
	       (double)strs / 1048576.0, m.funcs.n, m.shapes.n, m.threads.n);
	printf("sites        %8.1f MiB; kernel sites %zu, API sites %zu\n",
	       (double)sites / 1048576.0, m.ksites.n, m.asites.n);
	total_ += strs + sites;
	printf("tables and strings: %.1f MiB, %.2f B/event; peak resident set of the load: "
	       "%.1f MiB, %.2f B/event\n",
	       (double)total_ / 1048576.0, events_ ? (double)total_ / (double)events_ : 0.0,
	       (double)ru.ru_maxrss / 1024.0,
	       events_ ? (double)ru.ru_maxrss * 1024.0 / (double)events_ : 0.0);
	gpa_model_release(&m);
	return 0;
}

int main(int argc, char **argv)
{
	double best = 0, best_cpu = 0;
	uint64_t records = 0;

	if (argc < 4 || (strcmp(argv[1], "read") && strcmp(argv[1], "load") &&
			 strcmp(argv[1], "bytes"))) {
		fprintf(stderr, "usage: bench-load read|load|bytes TRACE THREADS [REPS]\n");
		return 2;
	}
	unsigned threads = (unsigned)atoi(argv[3]);
	if (!strcmp(argv[1], "bytes")) {
		return bytes(argv[2], threads, argc > 4 ? argv[4] : NULL);
	}
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
