/* SPDX-License-Identifier: MIT */
/*
 * bt-prog - a program whose launches come from known functions at known
 * depths, for the call-stack tests. Built twice: with frame pointers
 * (bt-prog-fp) and without (bt-prog-nofp).
 *
 * usage: bt-prog [-e EXPECT] [N]
 *   N times: main -> bt_level1 -> bt_level2 -> bt_level3 -> bt_launch ->
 *   sim_launch (cudaLaunchKernel); then once main -> ns::Worker::copy(int)
 *   (a C++ symbol) -> sim_memcpy (cudaMemcpy); then once bt_recurse 40 deep
 *   -> bt_launch. It prints one line per kind of call ("stack NAME CORR")
 *   with the correlation id, so tests can find each call's stack.
 * usage: bt-prog -t THREADS N
 *   THREADS threads at once, each N times bt_thread -> bt_level1 -> ...
 *   -> sim_launch: the capture path under concurrency.
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <pthread.h>
#include <stdio.h>

/* The compiler must neither inline these nor turn the calls into jumps. */
#define KEEP __attribute__((noinline, used))
#define NO_TAIL() __asm__ __volatile__("" ::: "memory")

static uint32_t last_corr;

KEEP void bt_launch(void)
{
	last_corr = sim_launch(0, 1, 7, NULL);
	NO_TAIL();
}

KEEP void bt_level3(void)
{
	bt_launch();
	NO_TAIL();
}

KEEP void bt_level2(void)
{
	bt_level3();
	NO_TAIL();
}

KEEP void bt_level1(void)
{
	bt_level2();
	NO_TAIL();
}

/* ns::Worker::copy(int), by its mangled name */
KEEP void worker_copy(int bytes) __asm__("_ZN2ns6Worker4copyEi");
KEEP void worker_copy(int bytes)
{
	sim_memcpy(0, 1, 7, 1, (uint64_t)bytes, false);
	NO_TAIL();
}

KEEP void bt_recurse(int n)
{
	if (n > 0) {
		bt_recurse(n - 1);
	} else {
		bt_launch();
	}
	NO_TAIL();
}

static int per_thread;

KEEP void *bt_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < per_thread; i++) {
		bt_level1();
	}
	NO_TAIL();
	return NULL;
}

static int run_threads(int nthreads, int n)
{
	pthread_t th[64];

	if (nthreads < 1 || nthreads > 64) {
		fprintf(stderr, "bt-prog: 1 to 64 threads\n");
		return 2;
	}
	per_thread = n;
	sim_init(NULL, 7);
	sim_cuinit();
	sim_context(1, 0);
	sim_stream(7, 1);
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&th[i], NULL, bt_thread, NULL)) {
			fprintf(stderr, "bt-prog: cannot start a thread\n");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
	}
	printf("launches %d\n", nthreads * n);
	sim_finish();
	return 0;
}

int main(int argc, char **argv)
{
	const char *expect = NULL;
	int n = 4;

	if (argc == 4 && !strcmp(argv[1], "-t")) {
		return run_threads(atoi(argv[2]), atoi(argv[3]));
	}

	if (argc > 2 && !strcmp(argv[1], "-e")) {
		expect = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc > 1) {
		n = atoi(argv[1]);
	}
	sim_init(expect, 7);
	sim_cuinit();
	sim_context(1, 0);
	sim_stream(7, 1);
	for (int i = 0; i < n; i++) {
		bt_level1();
	}
	printf("stack launch %u\n", last_corr);
	worker_copy(4096);
	printf("stack copy %u\n", last_corr + 1);
	bt_recurse(40);
	printf("stack deep %u\n", last_corr);
	sim_finish();
	return 0;
}
