/* SPDX-License-Identifier: MIT */
/*
 * bench-flame - flame-graph figures (docs/flame.md, docs/performance.md).
 *
 *   bench-flame [KERNELS [RUNS]]    (default 10000000 kernels, 3 runs)
 *
 * 1. A generated training trace with KERNELS kernel launches (one device,
 *    two streams, NVTX step > phase > phase, each kernel with its launch
 *    call: about 2 x KERNELS events) is written once to
 *    $TMPDIR/gpuprof-bench-flame-N.gpz and loaded. Then, RUNS times each,
 *    the median wall and CPU time of: building the GPU-time tree, writing
 *    folded stacks, writing the SVG, writing sampled speedscope, building
 *    the wall-share tree (with the idle-gap analysis); and the
 *    output sizes. Model loading is timed once, apart: it is the reader's
 *    figure, not the flame graph's.
 * 2. SVG size bound: a trace of 200,000 kernels with distinct names and
 *    Pareto-distributed durations (alpha 1.2, from 1 us), drawn with the
 *    default minimum width (0.1 px) and with none.
 */
#include "base/compat.h"
#include "analyze/model.h"
#include "analyze/flame.h"
#include "report/report.h"
#include "report/flame-graph.h"
#include "tests/tools/gen.h"
#include "tests/bench/timing.h"

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

static void report(const char *what, struct timing *t, const char *extra)
{
	report_width(what, 28, t, extra);
}

static int load(const char *path, struct gpa_model *m)
{
	char err[512];
	const char *paths[] = {path};

	if (gpa_model_load(m, paths, 1, NULL, err, sizeof(err))) {
		fprintf(stderr, "bench-flame: %s\n", err);
		return -1;
	}
	return 0;
}

static int big_trace(uint64_t kernels, int runs)
{
	char path[512];
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	struct gpr_flame_svg_opts so;
	struct gp_strbuf out = GP_STRBUF_INIT;
	struct timing tl = {0}, tb = {0}, tw = {0}, tf = {0}, ts = {0}, tj = {0};
	size_t folded = 0, svg = 0, json = 0, nodes = 0;
	char err[256], extra[128];

	if (bench_trace("flame", kernels, path, sizeof(path))) {
		return -1;
	}
	TIMED(&tl, if (load(path, &m)) return -1);
	printf("flame graph of %zu kernels (%" PRIu64 " events, %zu API calls, %zu NVTX ranges), "
	       "median of %d runs:\n",
	       gpa_kern_rows(&m), m.events, gpa_api_rows(&m), gpa_nvtx_rows(&m), runs);
	report("load the model (once)", &tl, "");
	gpa_flame_opts_init(&o);
	gpr_flame_svg_opts_init(&so);
	for (int r = 0; r < runs; r++) {
		TIMED(&tb, if (gpa_flame_build(&m, &o, &f, err, sizeof(err))) {
			fprintf(stderr, "bench-flame: %s\n", err);
			return -1;
		});
		nodes = f.nodes.n;
		{
			struct gpa_flame fw;
			struct gpa_flame_opts ow = o;
			ow.weight = GPA_FLAME_WALL_SHARE;
			TIMED(&tw, if (gpa_flame_build(&m, &ow, &fw, err, sizeof(err))) {
				fprintf(stderr, "bench-flame: %s\n", err);
				return -1;
			});
			gpa_flame_release(&fw);
		}
		gp_strbuf_reset(&out);
		TIMED(&tf, gpr_flame_folded(&out, &f));
		folded = out.len;
		gp_strbuf_reset(&out);
		TIMED(&ts, gpr_flame_svg(&out, &f, &so, err, sizeof(err)));
		svg = out.len;
		gp_strbuf_reset(&out);
		TIMED(&tj, gpr_flame_speedscope(&out, &f, &m, GPR_SPEEDSCOPE_SAMPLED, NULL));
		json = out.len;
		if (r + 1 < runs) {
			gpa_flame_release(&f);
		}
	}
	snprintf(extra, sizeof(extra), "%zu frames, %.2f M ops/s", nodes,
		 (double)f.ops / 1e6 / tb.wall[0]);
	report("build the tree", &tb, extra);
	report("build, wall share + idle", &tw, "");
	snprintf(extra, sizeof(extra), "%zu bytes", folded);
	report("folded stacks", &tf, extra);
	snprintf(extra, sizeof(extra), "%zu bytes", svg);
	report("SVG", &ts, extra);
	snprintf(extra, sizeof(extra), "%zu bytes", json);
	report("speedscope (sampled)", &tj, extra);
	printf("  tree + SVG: %.3f s wall (median parts)\n", tb.wall[runs / 2] + ts.wall[runs / 2]);
	gpa_flame_release(&f);
	gpa_model_release(&m);
	gp_strbuf_release(&out);
	return 0;
}

/* 200,000 kernels with their own names and heavy-tailed durations. */
static int wide_trace(void)
{
	char path[512], name[64], err[256];
	struct gpt_writer *w;
	struct gp_rng rng;
	struct gpa_model m;
	struct gpa_flame f;
	struct gpa_flame_opts o;
	struct gpr_flame_svg_opts so;
	struct gp_strbuf out = GP_STRBUF_INIT;
	uint64_t t = 1000000;
	const uint32_t n = 200000;

	snprintf(path, sizeof(path), "%s/gpuprof-bench-flame-wide.gpz",
		 gp_tmpdir());
	gp_rng_seed(&rng, 42);
	if (gpt_writer_open(path, NULL, &w)) {
		return -1;
	}
	struct gpt_process p = {.pid = 1, .rank = 0, .phase = 1};
	gpt_writer_add(w, GPT_KIND_PROCESS, &p);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = 0, api = 0;
		snprintf(name, sizeof(name), "kernel_%06u<float>", i);
		gpt_writer_intern_cstr(w, name, &id);
		gpt_writer_intern_cstr(w, "cudaLaunchKernel", &api);
		/* Pareto (alpha 1.2) from 1 us, capped at 1 s: a few long kernels, a long tail. */
		double u = 1.0 - gp_rng_double(&rng);
		double d = 1000.0 / __builtin_pow(u, 1.0 / 1.2);
		uint64_t dur = d > 1e9 ? 1000000000u : (uint64_t)d;
		struct gpt_api a = {.start = t, .end = t + 1000, .tid = 1, .domain = GPT_API_RUNTIME,
				    .name = api, .correlation = i + 1};
		struct gpt_kernel k = {.start = t + 2000, .end = t + 2000 + dur, .device = 0,
				       .stream = 7, .correlation = i + 1, .name = id, .grid_x = 1,
				       .grid_y = 1, .grid_z = 1, .block_x = 32, .block_y = 1,
				       .block_z = 1};
		gpt_writer_add(w, GPT_KIND_API, &a);
		gpt_writer_add(w, GPT_KIND_KERNEL, &k);
		t += 2000 + dur;
	}
	if (gpt_writer_close(w) || load(path, &m)) {
		return -1;
	}
	remove(path);
	gpa_flame_opts_init(&o);
	if (gpa_flame_build(&m, &o, &f, err, sizeof(err))) {
		return -1;
	}
	gpr_flame_svg_opts_init(&so);
	printf("SVG size, %u distinct kernels (durations Pareto, alpha 1.2, from 1 us):\n", n);
	double widths[] = {0.1, 0.0};
	for (int i = 0; i < 2; i++) {
		so.min_width = widths[i];
		gp_strbuf_reset(&out);
		double w0 = now(CLOCK_MONOTONIC);
		if (gpr_flame_svg(&out, &f, &so, err, sizeof(err))) {
			return -1;
		}
		size_t frames = 0;
		for (const char *s = out.buf; (s = strstr(s, "<g><title>")) != NULL; s++) {
			frames++;
		}
		printf("  min-width %.1f px: %zu bytes, %zu frames drawn of %zu, %.3f s\n",
		       widths[i], out.len, frames, f.nodes.n, now(CLOCK_MONOTONIC) - w0);
	}
	gpa_flame_release(&f);
	gpa_model_release(&m);
	gp_strbuf_release(&out);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t kernels = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	int runs = argc > 2 ? atoi(argv[2]) : 3;

	if (!kernels || runs < 1 || runs > 16) {
		fprintf(stderr, "usage: bench-flame [KERNELS [RUNS (1-16)]]\n");
		return 2;
	}
	if (big_trace(kernels, runs) || wide_trace()) {
		return 1;
	}
	return 0;
}
