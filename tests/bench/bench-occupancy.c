/* SPDX-License-Identifier: MIT */
/*
 * bench-occupancy - occupancy figures (docs/occupancy.md, docs/performance.md).
 *
 *   bench-occupancy [KERNELS [RUNS]]    (default 10000000 kernels, 3 runs)
 *
 * A generated training trace with KERNELS kernel launches (the generator's
 * realistic mix of GEMM, attention, elementwise and NCCL kernels with their
 * launch configurations, one device) is written once to
 * $TMPDIR/gpuprof-bench-occupancy-N.gpz and loaded; model loading is timed
 * once, apart (it is the reader's figure). Then, RUNS times each, the median
 * wall and CPU time of the occupancy analysis of every launch: grouping
 * by kernel, configuration and device, the calculator per group, sums per
 * launch and per step, sorting; with and without the what-if search. Last,
 * the calculator alone on random configurations, per call.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/occupancy-calc.h"
#include "analyze/occupancy.h"
#include "analyze/steps.h"
#include "tests/tools/gen.h"
#include "tests/bench/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static void report(const char *what, struct timing *t, const char *extra)
{
	report_width(what, 34, t, extra);
}

/* Random H100 configurations through the calculator; returns the sum of blocks. */
static uint64_t calculator(uint32_t calls)
{
	struct gpa_occ_dev d;
	struct gpa_occ_state s = {.carveout = -1};
	uint64_t x = 88172645463325252ull, sum = 0;

	gpa_occ_dev_defaults(&d, 9, 0);
	d.num_sms = 132;
	for (uint32_t i = 0; i < calls; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		struct gpa_occ_func f = {.regs = (uint32_t)(x % 256), .barriers = 1};
		struct gpa_occ_result r;
		gpa_occ_compute(&d, &f, &s, 32 * (1 + (uint32_t)(x >> 20) % 32),
				(uint32_t)(x >> 40) % 65536, &r);
		sum += r.blocks;
	}
	return sum;
}

int main(int argc, char **argv)
{
	uint64_t kernels = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	char path[512], err[512], extra[160];
	struct gpa_model m;
	struct gpa_steps steps;
	struct gpa_occupancy occ;
	struct timing tl = {0}, ts = {0}, to = {0}, tw = {0}, tc = {0};

	if (!kernels || runs < 1 || runs > 16) {
		fprintf(stderr, "usage: bench-occupancy [KERNELS [RUNS (1-16)]]\n");
		return 2;
	}
	if (bench_trace("occupancy", kernels, path, sizeof(path))) {
		return 1;
	}
	const char *paths[] = {path};
	TIMED(&tl, if (gpa_model_load(&m, paths, 1, NULL, err, sizeof(err))) {
		fprintf(stderr, "bench-occupancy: %s\n", err);
		return 1;
	});
	TIMED(&ts, if (gpa_steps_find(&m, NULL, &steps, err, sizeof(err))) {
		fprintf(stderr, "bench-occupancy: %s\n", err);
		return 1;
	});
	printf("occupancy of %zu kernel launches (%zu configurations, %zu steps), median of %d "
	       "runs:\n",
	       gpa_kern_rows(&m), m.shapes.n, steps.v.n, runs);
	report("load the model (once, not occupancy)", &tl, "");
	report("find the steps (once)", &ts, "");
	struct gpa_occ_opts o = {.device = -1};
	for (int r = 0; r < runs; r++) {
		TIMED(&to, if (gpa_occupancy_analyze(&m, &steps, &o, &occ, err, sizeof(err))) {
			fprintf(stderr, "bench-occupancy: %s\n", err);
			return 1;
		});
		snprintf(extra, sizeof(extra), "%" PRIu64 " launches, %zu groups, %.1f M launches/s",
			 occ.launches, occ.groups.n, occ.launches / to.wall[to.n - 1] / 1e6);
		gpa_occupancy_release(&occ);
	}
	report("occupancy of every launch", &to, extra);
	o.whatif = true;
	for (int r = 0; r < runs; r++) {
		TIMED(&tw, if (gpa_occupancy_analyze(&m, &steps, &o, &occ, err, sizeof(err))) {
			fprintf(stderr, "bench-occupancy: %s\n", err);
			return 1;
		});
		gpa_occupancy_release(&occ);
	}
	report("the same with what-if per group", &tw, "");
	/* The calculator alone. */
	const uint32_t calls = 10000000;
	uint64_t sum = 0;
	TIMED(&tc, sum = calculator(calls));
	snprintf(extra, sizeof(extra), "%.1f ns per call (checksum %" PRIu64 ")",
		 tc.wall[0] / calls * 1e9, sum);
	report("calculator alone, 10 M calls", &tc, extra);
	gpa_steps_release(&steps);
	gpa_model_release(&m);
	return 0;
}
