/* SPDX-License-Identifier: MIT */
/*
 * flight-train - a training loop on the fake CUDA stack for the flight
 * recorder's tests: per step an NVTX ProfilerStep#N range holding a short
 * host pause, a few kernels and a stream synchronization; one step is
 * slowed by an injected stall. API calls succeed unless asked otherwise.
 *
 * usage: flight-train STEPS SLOW STALL [ACTION...]
 *   STALL  sleep   a host pause of 1 s inside an NVTX range "stall"
 *          sync    a 1 s kernel the step then waits for (a host sync)
 *          kernel  a 1 s kernel the step's own synchronization waits for
 *          none    no stall
 *   ACTION handler        install a SIGUSR2 handler before CUDA starts
 *          handler-late   install it after CUDA started
 *          usr2:N         raise SIGUSR2 at step N (up to four times)
 *          crash:N        raise SIGSEGV at step N (after a 600 ms pause)
 *          error:N        one API call of step N returns error 1
 *          pause:MS       sleep MS milliseconds before returning
 *          step-us:US     the host pause of a normal step (default 1500)
 *          name:PREFIX    steps named PREFIX followed by their number (default
 *                         "ProfilerStep#")
 *          first:N        first N bare steps (a ProfilerStep#N range and
 *                         nothing else, 1 ms pause per 500), then the
 *                         STEPS steps numbered from N: a run of N distinct
 *                         step names
 * Prints "handler calls N" at the end when a handler was installed.
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#define COMPUTE 7
#define STALL_NS 1000000000ull

static volatile sig_atomic_t handler_calls;

static void on_usr2(int sig)
{
	(void)sig;
	handler_calls++;
}

static void sleep_us(unsigned us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000L};
	nanosleep(&ts, NULL);
}

static const struct sim_kernel gemm = {
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
	{264, 1, 1}, {384, 1, 1}, 168, 0, 98304, 60000};
static const struct sim_kernel elem = {
	"triton_poi_fused_gelu_mul_0", {2048, 1, 1}, {128, 1, 1}, 24, 0, 0, 20000};
static const struct sim_kernel slow = {
	"slow_stall_kernel", {1, 1, 1}, {32, 1, 1}, 16, 0, 0, STALL_NS};

static int at(const char *arg, const char *key)
{
	size_t n = strlen(key);
	return strncmp(arg, key, n) ? -1 : atoi(arg + n);
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
}

/* n ranges ProfilerStep#0 .. #n-1 holding nothing, paced for the writer that converts them */
static void bare_steps(long n)
{
	char name[64];

	for (long s = 0; s < n; s++) {
		snprintf(name, sizeof(name), "ProfilerStep#%ld", s);
		nvtxRangePushA(name);
		nvtxRangePop();
		if (s % 500 == 499) {
			sleep_us(1000);
		}
	}
}

static const char *step_prefix = "ProfilerStep#";

static void step(int s, long first, int slow_step, const char *stall, int error_at,
		 unsigned step_us)
{
	char name[96];

	snprintf(name, sizeof(name), "%.60s%ld", step_prefix, first + s);
	nvtxRangePushA(name);
	nvtxRangePushA("forward");
	sleep_us(step_us);
	if (s == error_at) {
		sim_set_api_result(1);
	}
	sim_launch_kernel(0, 1, COMPUTE, &gemm);
	sim_set_api_result(0);
	sim_launch_kernel(0, 1, COMPUTE, &elem);
	sim_launch_kernel(0, 1, COMPUTE, &gemm);
	nvtxRangePop();
	if (s == slow_step && !strcmp(stall, "sleep")) {
		nvtxRangePushA("stall");
		sleep_us((unsigned)(STALL_NS / 1000));
		nvtxRangePop();
	} else if (s == slow_step && (!strcmp(stall, "sync") || !strcmp(stall, "kernel"))) {
		sim_launch_kernel(0, 1, COMPUTE, &slow);
		if (!strcmp(stall, "sync")) {
			sim_wait_stream(0, 1, COMPUTE);
		}
	}
	sim_wait_stream(0, 1, COMPUTE);
	nvtxRangePop();
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: flight-train STEPS SLOW STALL [ACTION...]\n");
		return 2;
	}
	int steps = atoi(argv[1]), slow_step = atoi(argv[2]);
	const char *stall = argv[3];
	int usr2_at[4] = {-1, -1, -1, -1}, nusr2 = 0, crash_at = -1, error_at = -1, pause_ms = 0, v;
	unsigned step_us = 1500;
	long first = 0;
	bool handler = false, late = false;

	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "handler")) {
			handler = true;
		} else if (!strcmp(argv[i], "handler-late")) {
			late = true;
		} else if ((v = at(argv[i], "usr2:")) >= 0 && nusr2 < 4) {
			usr2_at[nusr2++] = v;
		} else if ((v = at(argv[i], "crash:")) >= 0) {
			crash_at = v;
		} else if ((v = at(argv[i], "error:")) >= 0) {
			error_at = v;
		} else if ((v = at(argv[i], "pause:")) >= 0) {
			pause_ms = v;
		} else if (!strncmp(argv[i], "name:", 5)) {
			step_prefix = argv[i] + 5;
		} else if (!strncmp(argv[i], "first:", 6)) {
			first = atol(argv[i] + 6);
		} else if ((v = at(argv[i], "step-us:")) >= 0) {
			step_us = (unsigned)v;
		}
	}
	if (handler) {
		install();
	}
	sim_init(NULL, 7);
	sim_set_api_result(0);
	sim_cuinit();
	sim_context(1, 0);
	sim_stream(COMPUTE, 1);
	if (late) {
		sleep_us(300000); /* after the session started and its handler went in */
		install();
	}
	bare_steps(first);
	for (int s = 0; s < steps; s++) {
		for (int k = 0; k < nusr2; k++) {
			if (s == usr2_at[k]) {
				raise(SIGUSR2);
			}
		}
		if (s == crash_at) {
			sleep_us(600000); /* the steps before it reach the ring */
			raise(SIGSEGV);
		}
		step(s, first, slow_step, stall, error_at, step_us);
	}
	sim_wait_stream(0, 1, 0);
	if (pause_ms > 0) {
		sleep_us((unsigned)pause_ms * 1000);
	}
	printf("flight-train: %d steps\n", steps);
	if (handler || late) {
		printf("handler calls %d\n", (int)handler_calls);
	}
	return 0;
}
