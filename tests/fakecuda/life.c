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
 *   many N            N iterations of work, then exits 0
 *   crash SIG         work, then dies by SIG (SEGV a null write, ABRT abort(),
 *                     BUS, FPE, ILL raised) within the first flush period;
 *                     with -H the program first installs its own handler,
 *                     which says so and re-raises with the default action
 *   stream            works for ever; every 5 ms prints "N T": kernels
 *                     launched so far and the CLOCK_MONOTONIC time in ns
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

static void own_handler(int sig)
{
	static const char msg[] = "life: own handler\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);

	(void)r;
	signal(sig, SIG_DFL);
	raise(sig);
}

static int sig_by_name(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {{"SEGV", SIGSEGV}, {"ABRT", SIGABRT}, {"BUS", SIGBUS},
		    {"FPE", SIGFPE},   {"ILL", SIGILL}};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (!strcmp(name, sigs[i].name)) {
			return sigs[i].sig;
		}
	}
	return 0;
}

static void crash(int sig)
{
	if (sig == SIGSEGV) {
		static int *volatile nowhere;
		*nowhere = 1;
	}
	if (sig == SIGABRT) {
		abort();
	}
	raise(sig);
}

/* Kernels launched so far and when, every 5 ms, for ever (the SIGKILL test). */
static void stream(void)
{
	uint64_t n = 0, next = 0;
	char line[64];

	for (;;) {
		work("s", 1);
		n++;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		if (now >= next) {
			int len = snprintf(line, sizeof(line), "%llu %llu\n", (unsigned long long)n,
					   (unsigned long long)now);
			ssize_t r = write(1, line, (size_t)len);
			(void)r;
			next = now + 5000000;
		}
		sleep_ms(1);
	}
}

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
	bool own = false;
	int opt;

	/*
	 * The signal mode needs SIGINT's default action, which the tests expect
	 * the injection library to find in place: a shell without job control
	 * starts a background command with SIGINT ignored, and its children
	 * inherit that. So the program sets it itself, before CUDA or NVTX load
	 * the library.
	 */
	signal(SIGINT, SIG_DFL);
	while ((opt = getopt(argc, argv, "e:H")) != -1) {
		if (opt == 'e') {
			exp = optarg;
		} else if (opt == 'H') {
			own = true;
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
	if (!strcmp(mode, "crash") && own) {
		/* before CUDA loads the library, as a program's start-up would */
		signal(sig_by_name(arg), own_handler);
	}
	sim_init(exp, 5);
	sim_cuinit();

	if (!strcmp(mode, "crash")) {
		int sig = sig_by_name(arg);
		if (!sig) {
			fprintf(stderr, "life: unknown signal %s\n", arg);
			return 2;
		}
		work("before_crash", 50);
		sim_finish();
		crash(sig);
		return 0; /* not reached */
	}
	if (!strcmp(mode, "many")) {
		work("many", atoi(arg));
		sim_finish();
		return 0;
	}
	if (!strcmp(mode, "stream")) {
		stream();
	}

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
