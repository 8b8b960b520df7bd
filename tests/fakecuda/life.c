/* SPDX-License-Identifier: MIT */
/*
 * life - a traced program's life and death, for the lifecycle tests.
 *
 * usage: life [-e EXPECT] MODE [ARG]
 *   signal TERM|INT   work, then the signal (the trace must still be whole)
 *   kill              work, a pause longer than the flush period, more work,
 *                     then SIGKILL (EXPECT holds the work before the pause)
 *   exit-thread CODE  a second thread calls exit(CODE) while main works
 *   fork              work, fork; the child uses NVTX and exits; the parent
 *                     waits and works on
 *   exec              work, then exec of "life exec-child", which works too
 *   output            prints to stdout and stderr, works, exits with 3
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR) {
	}
}

static void work(const char *name, int n)
{
	for (int i = 0; i < n; i++) {
		nvtxRangePushA(name);
		sim_launch(0, 1, 7, name);
		sim_memcpy(0, 1, 7, 1, 4096, true);
		nvtxRangePop();
	}
}

static volatile int keep_going = 1;

static void *spinner(void *arg)
{
	(void)arg;
	while (keep_going) {
		nvtxRangePushA("spin");
		sleep_ms(1);
		nvtxRangePop();
	}
	return NULL;
}

static void *exiter(void *arg)
{
	sleep_ms(60);
	printf("exit from a second thread\n");
	fflush(stdout);
	exit((int)(intptr_t)arg);
}

int main(int argc, char **argv)
{
	const char *exp = NULL;
	int opt;

	/*
	 * The signal mode needs SIGINT's default action, which the tests expect
	 * the injection library to find in place: a shell without job control
	 * starts a background command with SIGINT ignored, and its children
	 * inherit that. So the program sets it itself, before CUDA or NVTX load
	 * the library.
	 */
	signal(SIGINT, SIG_DFL);
	while ((opt = getopt(argc, argv, "e:")) != -1) {
		if (opt == 'e') {
			exp = optarg;
		} else {
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: life [-e EXPECT] MODE [ARG]\n");
		return 2;
	}
	const char *mode = argv[optind];
	const char *arg = optind + 1 < argc ? argv[optind + 1] : "";

	if (!strcmp(mode, "exec-child")) {
		sim_init(exp, 99);
		sim_cuinit();
		work("after_exec", 5);
		sim_finish();
		printf("exec child done\n");
		return 0;
	}
	sim_init(exp, 5);
	sim_cuinit();

	if (!strcmp(mode, "signal")) {
		pthread_t t;
		pthread_create(&t, NULL, spinner, NULL);
		work("before_signal", 50);
		sim_finish(); /* what the trace must hold */
		sleep_ms(50);
		printf("raising SIG%s\n", arg);
		fflush(stdout);
		raise(!strcmp(arg, "INT") ? SIGINT : SIGTERM);
		sleep_ms(5000);
		return 0; /* not reached */
	}
	if (!strcmp(mode, "kill")) {
		work("before_pause", 50);
		sim_finish();
		const char *f = getenv("GPUPROF_FLUSH_MS");
		sleep_ms(3 * (unsigned)(f ? atoi(f) : 200) + 100);
		work("after_pause", 50);
		printf("killing myself\n");
		fflush(stdout);
		raise(SIGKILL);
		return 0;
	}
	if (!strcmp(mode, "exit-thread")) {
		pthread_t t;
		pthread_create(&t, NULL, exiter, (void *)(intptr_t)atoi(arg));
		for (;;) {
			work("main_loop", 1);
			sleep_ms(1);
		}
	}
	if (!strcmp(mode, "fork")) {
		work("parent_before", 10);
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 3; i++) {
				nvtxRangePushA("child_range");
				nvtxMarkA("child_mark");
				nvtxRangePop();
			}
			printf("child %d done\n", (int)getpid());
			return 0;
		}
		int st = 0;
		waitpid(pid, &st, 0);
		work("parent_after", 10);
		sim_finish();
		printf("parent done, child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		work("before_exec", 5);
		fflush(stdout);
		/* exec runs no exit handlers: what was flushed before it is what stays */
		const char *delay = getenv("LIFE_EXEC_DELAY_MS");
		if (delay) {
			sleep_ms((unsigned)atoi(delay));
		}
		char *args[] = {argv[0], "exec-child", NULL};
		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	if (!strcmp(mode, "output")) {
		printf("line one to stdout\n");
		fprintf(stderr, "line one to stderr\n");
		work("output", 20);
		for (int i = 0; i < 5; i++) {
			printf("step %d\n", i);
			fprintf(stderr, "warn %d\n", i);
		}
		sim_finish();
		return 3;
	}
	fprintf(stderr, "life: unknown mode %s\n", mode);
	return 2;
}
