/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for inject/: the signal-safe formatter, settings, output names,
 * launcher ranks, the buffer pool, tick conversion and the CUPTI record
 * conversion (through a real trace writer and reader).
 */
#include "base/compat.h"
#include "inject/inject.h"
#include "tests/unit/test.h"

#include <signal.h>

#include <cupti.h>
#include <stdio.h>
#include <unistd.h>

/* ------------------------------------------------------------ a fake env */

static const char *const *fake_env;

static const char *env_lookup(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = fake_env; e && *e; e++) {
		if (!strncmp(*e, name, n) && (*e)[n] == '=') {
			return *e + n + 1;
		}
	}
	return NULL;
}

TEST(fmt_formats_like_printf)
{
	char buf[128];

	gpi_fmt(buf, sizeof(buf), "a%sb%dc%uD%x|%5u|%05d|%lld|%zu|%%", "X", -42, 7u, 255u, 3u, 12,
		-9000000000LL, (size_t)77);
	CHECK_STR(buf, "aXb-42c7Dff|    3|00012|-9000000000|77|%");
	gpi_fmt(buf, 6, "%s", "truncated");
	CHECK_STR(buf, "trunc");
	const char *volatile none = NULL;
	gpi_fmt(buf, sizeof(buf), "%s", none);
	CHECK_STR(buf, "(null)");
}

TEST(kinds_parse)
{
	uint32_t k = 0;

	CHECK_EQ_I(gpi_parse_kinds("all", &k), 0);
	CHECK_EQ_U(k, GPI_K_ALL);
	CHECK_EQ_I(gpi_parse_kinds("kernel,memcpy", &k), 0);
	CHECK_EQ_U(k, GPI_K_KERNEL | GPI_K_MEMCPY);
	CHECK_EQ_I(gpi_parse_kinds("all,-driver,-nvtx", &k), 0);
	CHECK_EQ_U(k, GPI_K_ALL & ~(GPI_K_DRIVER | GPI_K_NVTX));
	CHECK_EQ_I(gpi_parse_kinds("-overhead", &k), 0);
	CHECK_EQ_U(k, GPI_K_ALL & ~GPI_K_OVERHEAD);
	CHECK_EQ_I(gpi_parse_kinds("api", &k), 0);
	CHECK_EQ_U(k, GPI_K_RUNTIME | GPI_K_DRIVER);
	CHECK_EQ_I(gpi_parse_kinds("kernel,bogus", &k), -1);
}

TEST(capture_parse)
{
	struct gpi_config c;

	CHECK_EQ_I(gpi_parse_capture("cudaProfilerApi", &c), 0);
	CHECK_EQ_I(c.capture, GPI_CAPTURE_PROFILER_API);
	CHECK_EQ_I(gpi_parse_capture("nvtx:train step@PyTorch,delay:1.5,duration:300ms", &c), 0);
	CHECK_EQ_I(c.capture, GPI_CAPTURE_NVTX);
	CHECK_STR(c.capture_nvtx, "train step");
	CHECK_STR(c.capture_nvtx_domain, "PyTorch");
	CHECK_EQ_U(c.delay_ns, 1500000000ULL);
	CHECK_EQ_U(c.duration_ns, 300000000ULL);
	CHECK_EQ_I(gpi_parse_capture("delay:2s", &c), 0);
	CHECK_EQ_I(c.capture, GPI_CAPTURE_ALL);
	CHECK_EQ_U(c.delay_ns, 2000000000ULL);
	CHECK_EQ_I(gpi_parse_capture("nvtx:", &c), -1);
	CHECK_EQ_I(gpi_parse_capture("duration:0", &c), -1);
	CHECK_EQ_I(gpi_parse_capture("sometimes", &c), -1);
}

TEST(config_defaults_and_bad_values)
{
	static const char *const env[] = {
		"GPUPROF_FLUSH_MS=50",	     "GPUPROF_BUFFER_MB=0.25",
		"GPUPROF_KINDS=kernel,nvtx", "GPUPROF_FORK=off",
		"GPUPROF_DEBUG=1",	     "GPUPROF_OUTPUT=out/%p.gpz",
		"GPUPROF_NVTX_CLOCK=nope",   NULL,
	};
	struct gpi_config c;
	char err[256];
	char desc[512];

	fake_env = NULL;
	gpi_config_load(&c, env_lookup, err, sizeof(err));
	CHECK_STR(err, "");
	CHECK_STR(c.output, GPI_DEFAULT_PATTERN);
	CHECK_EQ_U(c.flush_ms, GPI_DEFAULT_FLUSH_MS);
	CHECK_EQ_U(c.buffer_bytes, (uint64_t)GPI_DEFAULT_BUFFER_MB << 20);
	CHECK_EQ_U(c.kinds, GPI_K_ALL);
	CHECK(!c.debug);

	fake_env = env;
	gpi_config_load(&c, env_lookup, err, sizeof(err));
	CHECK_EQ_U(c.flush_ms, 50);
	CHECK_EQ_U(c.buffer_bytes, 262144);
	CHECK_EQ_U(c.kinds, GPI_K_KERNEL | GPI_K_NVTX);
	CHECK_EQ_I(c.fork_mode, GPI_FORK_OFF);
	CHECK(c.debug);
	CHECK_STR(c.output, "out/%p.gpz");
	CHECK_CONTAINS(err, "GPUPROF_NVTX_CLOCK");
	gpi_config_describe(&c, desc, sizeof(desc));
	CHECK_CONTAINS(desc, "kinds=kernel,nvtx");
	CHECK_CONTAINS(desc, "flush_ms=50");
	CHECK_CONTAINS(desc, "fork=off");

	static const char *const bad[] = {"GPUPROF_FLUSH_MS=-3", "GPUPROF_BUFFER_MB=lots",
					  "GPUPROF_CAPTURE=whenever", NULL};
	fake_env = bad;
	gpi_config_load(&c, env_lookup, err, sizeof(err));
	CHECK_EQ_U(c.flush_ms, GPI_DEFAULT_FLUSH_MS);
	CHECK_EQ_U(c.buffer_bytes, (uint64_t)GPI_DEFAULT_BUFFER_MB << 20);
	CHECK_EQ_I(c.capture, GPI_CAPTURE_ALL);
	CHECK_CONTAINS(err, "GPUPROF_FLUSH_MS");
	CHECK_CONTAINS(err, "GPUPROF_BUFFER_MB");
	CHECK_CONTAINS(err, "GPUPROF_CAPTURE");
}

TEST(flight_config)
{
	static const char *const on[] = {
		"GPUPROF_FLIGHT=1.5",	       "GPUPROF_FLIGHT_MB=8",	      "GPUPROF_FLIGHT_SLOW=2.5",
		"GPUPROF_FLIGHT_STEPS=10",     "GPUPROF_FLIGHT_ON=-rank,+exit", "GPUPROF_FLIGHT_SIGNAL=USR1",
		"GPUPROF_FLIGHT_COOLDOWN=500ms", "GPUPROF_FLIGHT_AFTER=2",	      NULL,
	};
	static const char *const bad[] = {
		"GPUPROF_FLIGHT=soon",	  "GPUPROF_FLIGHT_MB=0",	"GPUPROF_FLIGHT_SLOW=1",
		"GPUPROF_FLIGHT_STEPS=2", "GPUPROF_FLIGHT_ON=slow-step,bogus", "GPUPROF_FLIGHT_SIGNAL=HUP",
		NULL,
	};
	struct gpi_config c;
	char err[512], desc[1024];
	uint32_t t;

	fake_env = NULL;
	gpi_config_load(&c, env_lookup, err, sizeof(err));
	CHECK_EQ_U(c.flight_window_ns, 0); /* off */
	CHECK_EQ_U(c.flight_bytes, 256ull << 20);
	CHECK_EQ_U(c.flight_triggers, GPI_FLIGHT_DEFAULT_TRIGGERS);
	CHECK_EQ_I(c.flight_signal, SIGUSR2);
	gpi_config_describe(&c, desc, sizeof(desc));
	CHECK(!strstr(desc, "flight"));

	fake_env = on;
	gpi_config_load(&c, env_lookup, err, sizeof(err));
	CHECK_STR(err, "");
	CHECK_EQ_U(c.flight_window_ns, 1500000000ull);
	CHECK_EQ_U(c.flight_bytes, 8ull << 20);
	CHECK(c.flight_slow_k == 2.5);
	CHECK_EQ_U(c.flight_steps, 10);
	CHECK_EQ_U(c.flight_triggers,
		   (GPI_FLIGHT_DEFAULT_TRIGGERS & ~(1u << GPI_FLIGHT_RANK)) | (1u << GPI_FLIGHT_EXIT));
	CHECK_EQ_I(c.flight_signal, SIGUSR1);
	CHECK_EQ_U(c.flight_cooldown_ns, 500000000ull);
	CHECK_EQ_U(c.flight_after_ns, 2000000000ull);
	gpi_config_describe(&c, desc, sizeof(desc));
	CHECK_CONTAINS(desc, "flight_ms=1500 flight_kb=8192");
	CHECK_CONTAINS(desc, "flight_on=slow-step,signal,cuda-error,crash,exit");

	fake_env = bad;
	gpi_config_load(&c, env_lookup, err, sizeof(err));
	CHECK_EQ_U(c.flight_window_ns, 60000000000ull); /* on, at the default window */
	CHECK_EQ_U(c.flight_bytes, 256ull << 20);
	CHECK(c.flight_slow_k == 3.0);
	CHECK_EQ_U(c.flight_steps, 50);
	CHECK_EQ_U(c.flight_triggers, GPI_FLIGHT_DEFAULT_TRIGGERS);
	CHECK_EQ_I(c.flight_signal, SIGUSR2);
	CHECK_CONTAINS(err, "GPUPROF_FLIGHT=\"soon\"");
	CHECK_CONTAINS(err, "GPUPROF_FLIGHT_MB");
	CHECK_CONTAINS(err, "GPUPROF_FLIGHT_SLOW");
	CHECK_CONTAINS(err, "GPUPROF_FLIGHT_STEPS");
	CHECK_CONTAINS(err, "GPUPROF_FLIGHT_ON");
	CHECK_CONTAINS(err, "GPUPROF_FLIGHT_SIGNAL");

	CHECK_EQ_I(gpi_parse_flight_triggers("signal", &t), 0);
	CHECK_EQ_U(t, 1u << GPI_FLIGHT_SIGNAL);
	CHECK_EQ_I(gpi_parse_flight_triggers("all", &t), 0);
	CHECK_EQ_U(t, (1u << GPI_FLIGHT__COUNT) - 1);
	CHECK_EQ_I(gpi_parse_flight_triggers("all,-crash", &t), 0);
	CHECK_EQ_U(t, ((1u << GPI_FLIGHT__COUNT) - 1) & ~(1u << GPI_FLIGHT_CRASH));
	CHECK_STR(gpi_flight_trig_name(GPI_FLIGHT_CUDA_ERROR), "cuda-error");
	CHECK_STR(gpi_flight_trig_name(99), "unknown");
}

TEST(flight_median)
{
	uint64_t odd[] = {5, 1, 9, 3, 7}, even[] = {10, 2, 8, 4};

	CHECK_EQ_U(gpi_flight_median(odd, 5), 5);
	CHECK_EQ_U(gpi_flight_median(even, 4), 6);
	CHECK_EQ_U(gpi_flight_median(odd, 0), 0);
	CHECK_EQ_U(gpi_flight_median(odd, 1), 5);
}

TEST(pattern_expansion)
{
	static const char *const env[] = {"JOB=train42", NULL};
	char out[64];

	fake_env = env;
	CHECK_EQ_I(gpi_expand_pattern("run-%h-%p-r%r.gpz", 1234, "node7", 3, env_lookup, out,
				      sizeof(out)),
		   0);
	CHECK_STR(out, "run-node7-1234-r3.gpz");
	CHECK_EQ_I(gpi_expand_pattern("%q{JOB}/%q{NOPE}x-%r-100%%.gpz", 1, "h", -1, env_lookup, out,
				      sizeof(out)),
		   0);
	CHECK_STR(out, "train42/x-0-100%.gpz");
	CHECK_EQ_I(gpi_expand_pattern("%z", 1, "h", 0, env_lookup, out, sizeof(out)), -1);
	CHECK_EQ_I(gpi_expand_pattern("%q{unclosed", 1, "h", 0, env_lookup, out, sizeof(out)), -1);
	CHECK_EQ_I(gpi_expand_pattern("%q{}", 1, "h", 0, env_lookup, out, sizeof(out)), -1);
	CHECK_EQ_I(gpi_expand_pattern("%h%h%h%h%h", 1, "a-very-long-host-name", 0, env_lookup, out,
				      sizeof(out)),
		   -1);
}

TEST(path_suffix)
{
	char p[64] = "/d/run.gpz";

	CHECK_EQ_I(gpi_path_add_suffix(p, sizeof(p), "exec1"), 0);
	CHECK_STR(p, "/d/run.exec1.gpz");
	strcpy(p, "noext");
	CHECK_EQ_I(gpi_path_add_suffix(p, sizeof(p), "77"), 0);
	CHECK_STR(p, "noext.77");
	char small[12] = "abc.gpz";
	CHECK_EQ_I(gpi_path_add_suffix(small, sizeof(small), "toolong"), -1);
	CHECK_STR(small, "abc.gpz");
}

TEST(ranks_from_launchers)
{
	struct gpi_rank r;
	static const char *const torch[] = {"RANK=3", "LOCAL_RANK=1", "WORLD_SIZE=8",
					    "LOCAL_WORLD_SIZE=4", NULL};
	static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=16",
					   "OMPI_COMM_WORLD_LOCAL_RANK=1",
					   "OMPI_COMM_WORLD_LOCAL_SIZE=8", NULL};
	static const char *const slurm[] = {"SLURM_PROCID=9", "SLURM_NTASKS=32", "SLURM_LOCALID=1",
					    NULL};
	static const char *const mpich[] = {"PMI_RANK=2", "PMI_SIZE=4", NULL};
	static const char *const junk[] = {"RANK=abc", NULL};

	fake_env = torch;
	gpi_detect_rank(env_lookup, &r);
	CHECK_EQ_I(r.rank, 3);
	CHECK_EQ_I(r.local_rank, 1);
	CHECK_EQ_I(r.world_size, 8);
	CHECK_EQ_I(r.local_world_size, 4);
	CHECK_STR(r.launcher, "torchrun");
	fake_env = ompi;
	gpi_detect_rank(env_lookup, &r);
	CHECK_EQ_I(r.rank, 5);
	CHECK_EQ_I(r.world_size, 16);
	CHECK_STR(r.launcher, "openmpi");
	fake_env = slurm;
	gpi_detect_rank(env_lookup, &r);
	CHECK_EQ_I(r.rank, 9);
	CHECK_EQ_I(r.local_rank, 1);
	CHECK_EQ_I(r.world_size, 32);
	CHECK_EQ_I(r.local_world_size, -1);
	CHECK_STR(r.launcher, "slurm");
	fake_env = mpich;
	gpi_detect_rank(env_lookup, &r);
	CHECK_EQ_I(r.rank, 2);
	CHECK_STR(r.launcher, "mpich");
	fake_env = junk;
	gpi_detect_rank(env_lookup, &r);
	CHECK_EQ_I(r.rank, -1);
	CHECK_STR(r.launcher, "none");
}

TEST(pool_bounded_and_ordered)
{
	struct gpi_slot *got[64];
	uint8_t *bufs[64];
	size_t size;
	uint32_t n = 0;

	REQUIRE(gpi_pool_init(1 << 20) == 0);
	CHECK(gpi_pool.nslots >= 2);
	CHECK(gpi_pool.nvtx_nbuf >= 2);
	CHECK_EQ_U(gpi_pool.nvtx_buf_bytes & (gpi_pool.nvtx_buf_bytes - 1), 0);
	while (n < 64 && (bufs[n] = gpi_pool_get(&size)) != NULL) {
		CHECK_EQ_U(size, gpi_pool.slot_bytes);
		n++;
	}
	CHECK_EQ_U(n, gpi_pool.nslots);
	CHECK_EQ_U(gpi_pool.refused, 1);
	CHECK_EQ_U(gpi_pool_outstanding(), n);
	/* completed in reverse: collected in completion order */
	for (uint32_t i = n; i-- > 0;) {
		bufs[i][0] = (uint8_t)i;
		CHECK(gpi_pool_complete(bufs[i], 100 + i));
	}
	uint8_t stranger[16];
	CHECK(!gpi_pool_complete(stranger, 8));
	CHECK(!gpi_pool_complete(bufs[0] + 8, 8));
	uint32_t c = gpi_pool_collect(got, 64);
	CHECK_EQ_U(c, n);
	for (uint32_t i = 0; i < c; i++) {
		CHECK_EQ_U(got[i]->mem[0], n - 1 - i);
		CHECK_EQ_U(got[i]->valid, 100 + (n - 1 - i));
		gpi_pool_release(got[i]);
		CHECK_EQ_U(got[i]->mem[0], 0); /* zeroed for CUPTI */
	}
	CHECK_EQ_U(gpi_pool_outstanding(), 0);
	CHECK(gpi_pool_get(&size) != NULL);
}

TEST(tick_conversion)
{
	struct gpi_tickconv tc;

	gpi_tick_init(GPI_CLOCK_AUTO);
	gpi_tickconv_init(&tc);
	uint64_t t = gpi_tick();
	uint64_t ns = gpi_now();
	struct timespec req = {0, 20000000};
	nanosleep(&req, NULL);
	gpi_tickconv_anchor(&tc);
	uint64_t conv = gpi_tickconv_ns(&tc, t);
	int64_t err = (int64_t)(conv - ns);
	if (err < 0) {
		err = -err;
	}
	/* within 20 us after 20 ms, whatever the counter */
	CHECK(err < 20000);
	gpi_tick_init(GPI_CLOCK_MONOTONIC);
	CHECK(!gpi_tick_is_tsc);
	CHECK_EQ_U(gpi_tickconv_ns(&tc, 12345), 12345);
}

/* ------------------------------------------------------ record conversion */

static int next_record(uint8_t *buf, size_t valid, void **rec)
{
	size_t off = 0;

	if (*rec) {
		const CUpti_Activity *a = *rec;
		size_t sz = a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
				    ? sizeof(CUpti_ActivityKernel10)
				    : sizeof(CUpti_ActivityAPI);
		off = (size_t)((uint8_t *)*rec - buf) + sz;
	}
	if (off >= valid) {
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	}
	*rec = buf + off;
	return CUPTI_SUCCESS;
}

/*
 * A window closed by an NVTX range has no exact correlation bound: a kernel
 * whose launch call was not converted yet is judged by when it ran, not by
 * the highest call id seen so far (CUPTI may hand over the kernel first).
 * A window from cudaProfilerStart/Stop keeps its exact bounds.
 */
TEST(capture_window_bounds)
{
	struct gpi_config saved = gpi_s.cfg;
	uint32_t n0 = atomic_load(&gpi_windows.n);

	gpi_s.cfg.capture = GPI_CAPTURE_NVTX;
	gpi_s.cfg.delay_ns = gpi_s.cfg.duration_ns = 0;
	gpi_window_open(1000, 0); /* an NVTX range opens it */
	gpi_capture_note_api(1100, 20); /* one launch call inside converted */
	gpi_window_close(3000, 0);
	CHECK(gpi_capture_keep_gpu(2000, 20, 0));      /* its kernel */
	CHECK(gpi_capture_keep_gpu(2000, 25, 0));      /* a later call, not converted yet */
	CHECK(gpi_capture_keep_gpu(2000, 25, 1200));   /* the same with its call known */
	CHECK(!gpi_capture_keep_gpu(2000, 25, 3500));  /* called after the window */
	CHECK(!gpi_capture_keep_gpu(3500, 30, 0));     /* ran after it, call unknown */

	gpi_s.cfg.capture = GPI_CAPTURE_PROFILER_API;
	gpi_window_open(5000, 40); /* cudaProfilerStart, correlation 40 */
	gpi_window_close(7000, 60); /* cudaProfilerStop, correlation 60 */
	CHECK(gpi_capture_keep_gpu(6000, 45, 0));      /* launched between them */
	CHECK(!gpi_capture_keep_gpu(6000, 61, 0));     /* launched after the stop */
	CHECK(!gpi_capture_keep_gpu(6000, 39, 0));     /* launched before the start */
	gpi_s.cfg = saved;
	atomic_store(&gpi_windows.n, n0);
}

TEST(conv_kernels_names_and_api)
{
	char path[256];
	struct gpt_writer *w;
	struct gpi_conv cv;
	static uint8_t buf[4096] __attribute__((aligned(8)));
	char name1[64] = "_Z6vecAddPKfS0_Pfi";
	size_t off = 0;

	snprintf(path, sizeof(path), "%s/conv.gpz", test_tmpdir());
	REQUIRE(gpt_writer_open(path, NULL, &w) == 0);
	gpi_conv_init(&cv, w);
	gpi_cupti_set_next_record(next_record);
	for (int i = 0; i < 3; i++) {
		CUpti_ActivityKernel10 k = {0};
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k.start = 1000 + (uint64_t)i * 100;
		k.end = k.start + 50;
		k.gridX = 7 + i;
		k.blockX = 256;
		k.registersPerThread = 32;
		k.localMemoryTotal = 5;
		k.localMemoryTotal_v2 = 1ULL << 40;
		k.cacheConfig.config.requested = 2;
		k.cacheConfig.config.executed = 3;
		k.correlationId = 10 + (uint32_t)i;
		k.graphId = 4;
		k.name = name1;
		memcpy(buf + off, &k, sizeof(k));
		off += sizeof(k);
		if (i == 1) {
			CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME,
					       .cbid = 211,
					       .start = 990,
					       .end = 995,
					       .threadId = 77,
					       .correlationId = 10};
			memcpy(buf + off, &a, sizeof(a));
			off += sizeof(a);
			gpi_conv_cupti_buffer(&cv, buf, off);
			off = 0;
			/* the same pointer now names another kernel (a module was reloaded) */
			strcpy(name1, "triton_fused_0");
		}
	}
	gpi_conv_cupti_buffer(&cv, buf, off);
	CHECK_EQ_U(cv.records, 4);
	CHECK_EQ_U(cv.events, 4);
	CHECK_EQ_I(cv.err, 0);
	CHECK_EQ_U(cv.tids_n, 1);
	gpi_conv_release(&cv);
	gpi_cupti_set_next_record(NULL);
	REQUIRE(gpt_writer_close(w) == 0);

	struct gpt_reader *r;
	struct gpt_chunk c;
	REQUIRE(gpt_reader_open(path, &r) == 0);
	int kernels = 0;
	while (gpt_reader_next(r, &c) > 0) {
		for (uint32_t i = 0; i < c.count; i++) {
			if (c.kind == GPT_KIND_KERNEL) {
				const struct gpt_kernel *k =
					(const struct gpt_kernel *)c.records + i;
				CHECK_EQ_I(k->grid_x, 7 + kernels);
				CHECK_EQ_U(k->local_mem_total, 1ULL << 40);
				CHECK_EQ_U(k->cache_config_requested, 2);
				CHECK_EQ_U(k->cache_config_executed, 3);
				CHECK_EQ_U(k->graph_id, 4);
				const char *n = gpt_reader_string(r, k->name);
				const char *d = gpt_reader_string(r, k->demangled);
				if (kernels < 2) {
					CHECK_STR(n, "_Z6vecAddPKfS0_Pfi");
					/* no C++ runtime in a test binary is fine too */
					CHECK(!k->demangled ||
					      !strcmp(d, "vecAdd(float const*, float const*, "
							 "float*, int)"));
				} else {
					CHECK_STR(n, "triton_fused_0");
					CHECK_EQ_U(k->demangled, 0);
				}
				kernels++;
			} else if (c.kind == GPT_KIND_API) {
				const struct gpt_api *ap = (const struct gpt_api *)c.records + i;
				CHECK_EQ_U(ap->domain, GPT_API_RUNTIME);
				CHECK_EQ_U(ap->tid, 77);
				CHECK_STR(gpt_reader_string(r, ap->name), "cuda#211");
			}
		}
	}
	CHECK_EQ_I(kernels, 3);
	gpt_reader_free(r);
}
