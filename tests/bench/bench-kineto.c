// SPDX-License-Identifier: MIT
/*
 * bench-kineto.c - times the Kineto JSON importer alone on one file.
 *
 * usage: bench-kineto FILE [RUNS [THREADS]]   (THREADS: gpa_import_kineto_threads, default 1)
 * Each run opens a trace writer on /dev/null, imports FILE and closes the
 * writer, inside this process (no process start, no output file). The writer
 * is the one an analysis opens for its temporary .gpz (default options,
 * GPA_IMPORT_CHUNK_RECORDS records per chunk), so this is the import every
 * analysis of a Kineto file pays. Prints one
 * line per run and a summary line:
 *   FILE events=N runs=R best_wall_s=.. median_wall_s=.. best_cpu_s=.. (user+sys)
 *   maxrss_kib=.. (after all runs)
 * "events" counts every element of traceEvents (flows and instants too), as a
 * JSON event rate does; the count comes from a separate pass with the same
 * tokenizer before the timed runs.
 */
#include "base/compat.h"
#include "import/import.h"
#include "import/json-scan.h"
#include "trace/trace.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Elements of the top-level "traceEvents" array. */
static long count_events(const char *path)
{
	struct gpa_json_file *f = NULL;
	struct gpa_json_scan *s = NULL;
	struct gpa_json_tok t;
	char err[512];
	long n = -1;
	int in_events = 0;

	if (gpa_json_file_open(path, &f, err, sizeof(err)) ||
	    gpa_json_scan_new(gpa_json_file_read, f, 1u << 20, &s)) {
		goto out;
	}
	for (;;) {
		if (gpa_json_next(s, &t)) {
			n = -1;
			break;
		}
		if (t.type == GPA_JSON_EOF) {
			break;
		}
		if (t.type == GPA_JSON_KEY && gpa_json_depth(s) == 1) {
			if (t.n == 11 && memcmp(t.s, "traceEvents", 11) == 0) {
				in_events = 1;
			} else if (gpa_json_skip(s)) {
				n = -1;
				break;
			}
			continue;
		}
		if (in_events && t.type == GPA_JSON_BEGIN_ARRAY && gpa_json_depth(s) == 2) {
			n = 0;
			for (;;) {
				if (gpa_json_next(s, &t)) {
					n = -1;
					break;
				}
				if (t.type == GPA_JSON_END_ARRAY) {
					break;
				}
				n++;
				if ((t.type == GPA_JSON_BEGIN_OBJECT || t.type == GPA_JSON_BEGIN_ARRAY) &&
				    gpa_json_skip_rest(s)) {
					n = -1;
					break;
				}
			}
			in_events = 0;
		}
	}
out:
	gpa_json_scan_free(s);
	gpa_json_file_close(f);
	return n;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
	double walls[64], best_cpu = 1e30;
	long events;
	struct rusage ru;

	if (argc < 2 || runs < 1 || runs > 64) {
		fprintf(stderr, "usage: bench-kineto FILE [RUNS<=64 [THREADS]]\n");
		return 2;
	}
	events = count_events(argv[1]);
	if (events < 0) {
		fprintf(stderr, "bench-kineto: %s: cannot count events\n", argv[1]);
		return 1;
	}
	const struct gpt_writer_opts wo = {.chunk_records = GPA_IMPORT_CHUNK_RECORDS};
	for (int i = 0; i < runs; i++) {
		struct gpt_writer *w = NULL;
		char err[1024];
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		double t0, c0, t1, c1;
		int r;

		if (fd < 0 || gpt_writer_open_fd(fd, "null.gpz", &wo, &w)) {
			fprintf(stderr, "bench-kineto: cannot open a writer\n");
			return 1;
		}
		t0 = now();
		c0 = cpu();
		r = gpa_import_kineto_threads(argv[1], w, NULL, threads, err, sizeof(err));
		if (!r) {
			r = gpt_writer_close(w);
		} else {
			gpt_writer_abandon(w);
		}
		t1 = now();
		c1 = cpu();
		if (r) {
			fprintf(stderr, "bench-kineto: %s\n", err);
			return 1;
		}
		walls[i] = t1 - t0;
		if (c1 - c0 < best_cpu) {
			best_cpu = c1 - c0;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	qsort(walls, (size_t)runs, sizeof(walls[0]), cmpd);
	printf("%s events=%ld runs=%d best_wall_s=%.4f median_wall_s=%.4f best_cpu_s=%.4f "
	       "maxrss_kib=%ld\n",
	       argv[1], events, runs, walls[0], walls[runs / 2], best_cpu, ru.ru_maxrss);
	return 0;
}
