/* SPDX-License-Identifier: MIT */
/*
 * bench-backtrace - what a call stack costs at a launch (docs/backtrace.md):
 * for stacks 8, 16 and 32 frames deep (this program recurses to that depth,
 * compiled with frame pointers), the nanoseconds per
 *   walk     the stack walk alone (gpi_bt_walk), frame pointers and libunwind
 *   capture  what the API callback does: walk, intern into the node table,
 *            queue for the writer (gpi_bt_api_enter + _exit), with the
 *            method given (fp, or unwind: libunwind, the default)
 * Each figure is the best of 5 runs of 20000 calls; the writer's drain runs
 * between runs, outside the timing. The same launch site repeats, as in a
 * training loop, so interning finds its nodes after the first call.
 *
 * usage: bench-backtrace [fp|unwind]
 */
#include "base/compat.h"
#include "inject/inject.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define CALLS 20000
#define RUNS 5
#define CBID 211 /* cudaLaunchKernel's id, any wanted one does */

static volatile int sink;
static struct gpi_conv cv;
static struct gpt_writer *w;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One measurement at the bottom of the recursion: ns per call. */
static double measure(int what, int method, unsigned *frames)
{
	uintptr_t pcs[GPI_BT_MAX_DEPTH + 8];
	double best = 1e30;

	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = now_ns();
		for (uint32_t i = 0; i < CALLS; i++) {
			if (what == 0) {
				*frames = gpi_bt_walk(method, pcs, GPI_BT_MAX_DEPTH);
			} else {
				gpi_bt_api_enter(2, CBID, i + 1);
				gpi_bt_api_exit(2, CBID);
			}
		}
		double ns = (double)(now_ns() - t0) / CALLS;
		best = ns < best ? ns : best;
		gpi_bt_drain(&cv); /* empties the queue, outside the timing */
	}
	return best;
}

__attribute__((noinline)) static void recurse(int n, int what, int method, double *out,
					      unsigned *frames)
{
	if (n > 0) {
		recurse(n - 1, what, method, out, frames);
	} else {
		*out = measure(what, method, frames);
	}
	sink++; /* not a tail call */
}

int main(int argc, char **argv)
{
	static const unsigned depths[] = {8, 16, 32};
	char path[PATH_MAX];
	struct gpi_config c = {.backtrace = GPI_BT_MAX_DEPTH, .backtrace_method = GPI_BT_AUTO};
	int fd;

	snprintf(path, sizeof(path), "%s/bench-backtrace-XXXXXX", gp_tmpdir());
	fd = mkstemp(path);

	if (argc > 1 && !strcmp(argv[1], "fp")) {
		c.backtrace_method = GPI_BT_FP;
	}

	if (fd < 0 || gpt_writer_open(path, NULL, &w)) {
		fprintf(stderr, "bench-backtrace: cannot open a scratch trace\n");
		return 1;
	}
	close(fd);
	gpi_conv_init(&cv, w);
	if (!gpi_bt_init(&c)) {
		fprintf(stderr, "bench-backtrace: cannot set up call stacks\n");
		return 1;
	}
	gpi_bt_wants(2, CBID, "cudaLaunchKernel");
	bool unwind = gpi_bt_method() == GPT_STACK_UNWIND;
	if (c.backtrace_method == GPI_BT_FP) {
		/* the walk column still wants libunwind: load it for gpi_bt_walk only */
		unwind = false;
	}
	printf("bench-backtrace: ns per call stack (best of %d x %d calls); capture = walk + "
	       "intern + queue with %s\n",
	       RUNS, CALLS, unwind ? "libunwind" : (c.backtrace_method == GPI_BT_FP ? "frame pointers" : "frame pointers (libunwind.so.8 not found)"));
	printf("  %-6s %10s %12s %14s\n", "frames", "walk fp", "walk unwind", "capture");
	for (size_t k = 0; k < GP_ARRAY_SIZE(depths); k++) {
		double fp = 0, uw = 0, cap = 0;
		unsigned f_fp = 0, f_uw = 0, dummy = 0;
		/* main and the C library's start frames sit below: recurse to the rest */
		int n = (int)depths[k] - 4;
		recurse(n, 0, GPT_STACK_FP, &fp, &f_fp);
		if (unwind) {
			recurse(n, 0, GPT_STACK_UNWIND, &uw, &f_uw);
		}
		recurse(n, 1, 0, &cap, &dummy);
		char uws[32] = "-";
		if (unwind) {
			snprintf(uws, sizeof(uws), "%.1f", uw);
		}
		printf("  %-6u %10.1f %12s %14.1f   (frames walked: fp %u, unwind %u)\n",
		       depths[k], fp, uws, cap, f_fp, f_uw);
	}
	gpi_conv_release(&cv);
	gpt_writer_close(w);
	unlink(path);
	return 0;
}
