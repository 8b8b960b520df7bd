/* SPDX-License-Identifier: MIT */
/*
 * bench-nvtx-rate - NVTX ranges at a given rate through the injection
 * library (NVTX_INJECTION64_PATH, no GPU): nvtxRangePushA + nvtxRangePop in
 * a loop paced at 0.5, 1, 2 and 4 M ranges/s and unthrottled, on 1 and 4
 * threads (the rate is the total over the threads). For each run: the ns
 * per push+pop pair on the calling thread and the ranges lost, read back
 * from the trace (records written, losses counted as "nvtx-buffer-full").
 *
 * Every run is a child process of its own (one session, one trace). The
 * loop is paced in batches: a batch of BATCH pairs is timed, then the
 * thread spins until the schedule allows the next one, as a program with
 * work between its ranges would.
 *
 * usage: bench-nvtx-rate LIBRARY [SECONDS]
 */
#include "base/compat.h"
#include "base/base.h"
#include "trace/trace.h"

#include <nvtx3/nvToolsExt.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

struct run {
	double rate;	 /* total ranges/s; 0: unthrottled */
	unsigned nthr;	 /* threads */
	uint64_t ranges; /* per thread */
};

struct thr {
	const struct run *run;
	double ns_pair; /* mean over the timed batches */
	double p50;	/* median batch */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	const struct run *r = t->run;
	uint64_t nb = r->ranges / BATCH, busy = 0;
	double period = r->rate > 0 ? 1e9 * BATCH / (r->rate / r->nthr) : 0; /* ns per batch */
	double *v = calloc(nb ? nb : 1, sizeof(*v));
	uint64_t t0 = gp_clock_monotonic_ns();

	for (uint64_t k = 0; k < nb; k++) {
		if (period > 0) {
			uint64_t due = t0 + (uint64_t)(period * (double)k);
			uint64_t now = gp_clock_monotonic_ns();
			if (due > now + 20000) {
				/* ahead: sleep, as a program waiting on its GPU would */
				struct timespec ts = {0, (long)(due - now - 10000)};
				nanosleep(&ts, NULL);
			}
			while (gp_clock_monotonic_ns() < due) {
				/* the last few microseconds: spin */
			}
		}
		uint64_t a = gp_clock_monotonic_ns();
		for (int i = 0; i < BATCH; i++) {
			nvtxRangePushA("bench-rate");
			nvtxRangePop();
		}
		uint64_t d = gp_clock_monotonic_ns() - a;
		busy += d;
		if (v) {
			v[k] = (double)d / BATCH;
		}
	}
	t->ns_pair = nb ? (double)busy / (double)(nb * BATCH) : 0;
	if (v && nb) {
		qsort(v, nb, sizeof(*v), cmp_double);
		t->p50 = v[nb / 2];
	}
	free(v);
	return NULL;
}

/* CPU time (ns) of the library's writer thread so far, from /proc; 0 when not found. */
static uint64_t writer_cpu_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	uint64_t ns = 0;

	while (d && (de = readdir(d))) {
		char p[300], comm[64] = "", stat[1024];
		snprintf(p, sizeof(p), "/proc/self/task/%s/comm", de->d_name);
		FILE *f = fopen(p, "r");
		if (!f) {
			continue;
		}
		bool is_writer = fgets(comm, sizeof(comm), f) && !strncmp(comm, "gpuprof-writer", 14);
		fclose(f);
		snprintf(p, sizeof(p), "/proc/self/task/%s/stat", de->d_name);
		if (!is_writer || !(f = fopen(p, "r"))) {
			continue;
		}
		size_t n = fread(stat, 1, sizeof(stat) - 1, f);
		fclose(f);
		stat[n] = 0;
		/* after the ')' that ends the name: state is field 3, utime 14, stime 15 */
		char *q = strrchr(stat, ')');
		unsigned long long ut = 0, st = 0;
		if (q && sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
				&st) == 2) {
			ns = (ut + st) * (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
		}
	}
	if (d) {
		closedir(d);
	}
	return ns;
}

/*
 * The child: runs the threads, prints "MEAN P50 WALL_S WRITER_NS" (ns per
 * pair, worst thread; the writer's CPU time while they ran, which the
 * trace's end adds to in the exit handler, not counted).
 */
static int child(const struct run *r)
{
	pthread_t tid[16];
	struct thr t[16];
	double mean = 0, p50 = 0;

	/* warm up: claims nothing on the timed threads, starts the session and writer */
	nvtxRangePushA("bench-warmup");
	nvtxRangePop();
	uint64_t w0 = gp_clock_monotonic_ns(), c0 = writer_cpu_ns();
	for (unsigned i = 0; i < r->nthr; i++) {
		t[i] = (struct thr){.run = r};
		if (pthread_create(&tid[i], NULL, thr_main, &t[i])) {
			return 1;
		}
	}
	for (unsigned i = 0; i < r->nthr; i++) {
		pthread_join(tid[i], NULL);
		mean = t[i].ns_pair > mean ? t[i].ns_pair : mean;
		p50 = t[i].p50 > p50 ? t[i].p50 : p50;
	}
	double wall = (double)(gp_clock_monotonic_ns() - w0) / 1e9;
	/* give the writer a moment to catch up, so its CPU time covers the ranges */
	struct timespec ts = {0, 50000000};
	nanosleep(&ts, NULL);
	printf("%.1f %.1f %.3f %" PRIu64 "\n", mean, p50, wall, writer_cpu_ns() - c0);
	return 0;
}

/* Ranges in the trace and ranges counted lost to full NVTX buffers. */
static int read_trace(const char *path, uint64_t *kept, uint64_t *lost)
{
	struct gpt_reader *rd;
	struct gpt_chunk c;
	int ret = gpt_reader_open(path, &rd);

	*kept = *lost = 0;
	if (ret) {
		fprintf(stderr, "bench-nvtx-rate: %s: %s\n", path,
			rd ? gpt_reader_last_error(rd) : gp_err_str(ret));
		gpt_reader_free(rd);
		return -1;
	}
	while ((ret = gpt_reader_next(rd, &c)) > 0) {
		for (uint32_t i = 0; i < c.count; i++) {
			const void *rec = (const uint8_t *)c.records + (size_t)i * c.info->size;
			if (c.kind == GPT_KIND_NVTX) {
				*kept += 1;
			} else if (c.kind == GPT_KIND_LOSS) {
				const struct gpt_loss *l = rec;
				if (l->cause == GPT_LOSS_NVTX_BUFFER) {
					*lost += l->count;
				}
			}
		}
	}
	gpt_reader_free(rd);
	return ret < 0 ? -1 : 0;
}

static int one(const char *lib, const char *path, const struct run *r)
{
	int fd[2];
	char line[256] = "";
	uint64_t kept, lost;

	unlink(path); /* a trace never replaces a file: the name must be free */
	if (pipe(fd)) {
		return -1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		setenv("NVTX_INJECTION64_PATH", lib, 1);
		setenv("GPUPROF_OUTPUT", path, 1);
		exit(child(r)); /* exit, not _exit: the library finishes the trace */
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		line[0] = 0;
	}
	if (f) {
		fclose(f);
	}
	int st;
	waitpid(pid, &st, 0);
	double mean = 0, p50 = 0, wall = 0, wcpu = 0;
	if (sscanf(line, "%lf %lf %lf %lf", &mean, &p50, &wall, &wcpu) != 4 || read_trace(path, &kept, &lost)) {
		printf("  %u thread(s) %6.1f M/s: failed\n", r->nthr, r->rate / 1e6);
		return -1;
	}
	uint64_t total = r->ranges / BATCH * BATCH * r->nthr;
	char rate[32];
	if (r->rate > 0) {
		snprintf(rate, sizeof(rate), "%.1f M/s", r->rate / 1e6);
	} else {
		snprintf(rate, sizeof(rate), "unthrottled");
	}
	/* the achieved rate: the pacing cannot be kept when the CPUs are busy */
	/* kept counts the warm-up range too; lost counts events (a push or a pop) */
	uint64_t missing = kept > total + 1 ? 0 : total + 1 - kept;
	printf("  %u   %-12s %7.1f  %7.1f  %6.2f  %6.0f  %10" PRIu64 "  %10" PRIu64 "  %10" PRIu64
	       "  %6.2f %%\n",
	       r->nthr, rate, mean, p50, (double)total / wall / 1e6,
	       kept > 1 ? wcpu / (double)(kept - 1) : 0, total, lost, missing,
	       100.0 * (double)missing / (double)total);
	if (kept > total + 1 || (missing && !lost)) {
		printf("      ranges unaccounted for: %" PRIu64 " in the trace, %" PRIu64
		       " events counted lost, %" PRIu64 " called\n",
		       kept - 1, lost, total);
	}
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 0.5;
	static const double rates[] = {0.5e6, 1e6, 2e6, 4e6, 0};
	static const unsigned threads[] = {1, 4};
	char path[512];
	int bad = 0;

	if (argc < 2 || secs <= 0) {
		fprintf(stderr, "usage: bench-nvtx-rate LIBRARY [SECONDS]\n");
		return 2;
	}
	char dir[480];
	snprintf(dir, sizeof(dir), "%s/bench-nvtx-rate.XXXXXX", gp_tmpdir());
	if (!mkdtemp(dir)) {
		perror("bench-nvtx-rate: mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/trace.gpz", dir);
	printf("bench-nvtx-rate: nvtxRangePushA + nvtxRangePop, %.2f s per run, default buffers;\n"
	       "ns per pair on the calling thread (mean and median batch of %d), the worst thread\n"
	       "wr ns: the writer thread's CPU time per range written (10 ms ticks);\n"
	       "lost: events counted lost (nvtx-buffer-full); missing: ranges not in the trace\n"
	       "  thr rate            mean      p50  M/s got  wr ns      ranges        lost     missing  missing\n",
	       secs, BATCH);
	for (size_t t = 0; t < GP_ARRAY_SIZE(threads); t++) {
		for (size_t k = 0; k < GP_ARRAY_SIZE(rates); k++) {
			/* unthrottled: as many ranges as the fastest paced run */
			double rate = rates[k] > 0 ? rates[k] : 4e6;
			struct run r = {
				.rate = rates[k],
				.nthr = threads[t],
				.ranges = (uint64_t)(rate * secs / threads[t]),
			};
			bad |= one(argv[1], path, &r);
		}
	}
	unlink(path);
	rmdir(dir);
	return bad ? 1 : 0;
}
