/* SPDX-License-Identifier: MIT */
/*
 * fakecuda-run - plays a scenario on the fake CUDA stack: a CUDA program
 * whose API calls, kernels, copies, synchronizations and NVTX ranges are
 * read from a file, so tests describe workloads in a few lines.
 *
 * usage: fakecuda-run [-e EXPECT] [-s SEED] SCENARIO
 *
 * One command per line ('#' starts a comment):
 *   devices N                    device count (before init)
 *   init                         cuInit: the driver loads the injection library
 *   context ID DEV | stream ID CTX
 *   launch DEV CTX STREAM [NAME] graph DEV CTX STREAM NODES
 *   memcpy DEV CTX STREAM KIND BYTES [async]
 *   p2p SRC DST CTX STREAM BYTES memset DEV CTX STREAM BYTES
 *   sync TYPE CTX STREAM [WAIT_US]  overhead  incomplete DEV CTX STREAM
 *   malloc DEV CTX BYTES | free  (the newest allocation) | mempool DEV OP SIZE
 *   extcorr KIND ID              the next API call carries it
 *   drop N | deliver | profiler_start | profiler_stop
 *   push NAME | pop | mark NAME  NVTX through the real NVTX headers
 *   sleep MS | print TEXT | eprint TEXT | exit CODE
 *   repeat N ... end             threads N ... end (the block on N threads)
 * Without a CUDA driver the program runs on and prints the same output.
 */
#include "base/compat.h"
#include "tests/fakecuda/sim.h"

#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static char **lines;
static int nlines;
static char *names[256]; /* kernel names given in the scenario: CUPTI keeps the pointer */
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *kernel_name(const char *s)
{
	const char *r = NULL;

	pthread_mutex_lock(&names_mu);
	for (int i = 0; i < 256 && !r; i++) {
		if (!names[i]) {
			names[i] = strdup(s);
			r = names[i];
		} else if (!strcmp(names[i], s)) {
			r = names[i];
		}
	}
	pthread_mutex_unlock(&names_mu);
	return r;
}

static int find_end(int i)
{
	int depth = 0;

	for (int k = i + 1; k < nlines; k++) {
		if (!strncmp(lines[k], "repeat", 6) || !strncmp(lines[k], "threads", 7)) {
			depth++;
		} else if (!strcmp(lines[k], "end")) {
			if (!depth--) {
				return k;
			}
		}
	}
	fprintf(stderr, "fakecuda-run: line %d: block without end\n", i + 1);
	exit(2);
}

static void run(int lo, int hi);

struct block {
	int lo, hi;
};

static void *thread_main(void *arg)
{
	struct block *b = arg;
	run(b->lo, b->hi);
	return NULL;
}

static unsigned long long num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static void run(int lo, int hi)
{
	for (int i = lo; i < hi; i++) {
		char cmd[32] = "", a[6][256] = {{0}};
		int n = sscanf(lines[i], "%31s %255s %255s %255s %255s %255s %255s", cmd, a[0],
			       a[1], a[2], a[3], a[4], a[5]) -
			1;
		const char *rest = lines[i] + strlen(cmd);
		while (*rest == ' ') {
			rest++;
		}
		if (!cmd[0] || cmd[0] == '#') {
			continue;
		}
		if (!strcmp(cmd, "repeat") || !strcmp(cmd, "threads")) {
			int e = find_end(i);
			unsigned long long count = num(a[0]);
			if (cmd[0] == 'r') {
				for (unsigned long long k = 0; k < count; k++) {
					run(i + 1, e);
				}
			} else {
				pthread_t t[256];
				struct block b = {i + 1, e};
				if (count > 256) {
					count = 256;
				}
				for (unsigned long long k = 0; k < count; k++) {
					pthread_create(&t[k], NULL, thread_main, &b);
				}
				for (unsigned long long k = 0; k < count; k++) {
					pthread_join(t[k], NULL);
				}
			}
			i = e;
		} else if (!strcmp(cmd, "devices")) {
			setenv("FAKECUDA_DEVICES", a[0], 1);
		} else if (!strcmp(cmd, "init")) {
			sim_cuinit();
		} else if (!strcmp(cmd, "context")) {
			sim_context((uint32_t)num(a[0]), (uint32_t)num(a[1]));
		} else if (!strcmp(cmd, "stream")) {
			sim_stream((uint32_t)num(a[0]), (uint32_t)num(a[1]));
		} else if (!strcmp(cmd, "launch")) {
			sim_launch((uint32_t)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]),
				   n > 3 ? kernel_name(a[3]) : NULL);
		} else if (!strcmp(cmd, "graph")) {
			sim_graph_launch((uint32_t)num(a[0]), (uint32_t)num(a[1]),
					 (uint32_t)num(a[2]), (unsigned)num(a[3]));
		} else if (!strcmp(cmd, "memcpy")) {
			sim_memcpy((uint32_t)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]),
				   (unsigned)num(a[3]), num(a[4]), n > 5 && !strcmp(a[5], "async"));
		} else if (!strcmp(cmd, "p2p")) {
			sim_p2p((uint32_t)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]),
				(uint32_t)num(a[3]), num(a[4]));
		} else if (!strcmp(cmd, "memset")) {
			sim_memset((uint32_t)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]),
				   num(a[3]));
		} else if (!strcmp(cmd, "malloc")) {
			sim_malloc((uint32_t)num(a[0]), (uint32_t)num(a[1]), num(a[2]));
		} else if (!strcmp(cmd, "free")) {
			sim_free();
		} else if (!strcmp(cmd, "mempool")) {
			sim_mempool((uint32_t)num(a[0]), (unsigned)num(a[1]), num(a[2]));
		} else if (!strcmp(cmd, "sync")) {
			sim_sync((unsigned)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]),
				 n > 3 ? num(a[3]) * 1000 : 0);
		} else if (!strcmp(cmd, "event")) {
			sim_event_record((uint32_t)num(a[0]), (uint32_t)num(a[1]), (uint32_t)num(a[2]),
					 !(n > 3 && !strcmp(a[3], "notime")));
		} else if (!strcmp(cmd, "overhead")) {
			sim_overhead();
		} else if (!strcmp(cmd, "incomplete")) {
			sim_incomplete_kernel((uint32_t)num(a[0]), (uint32_t)num(a[1]),
					      (uint32_t)num(a[2]));
		} else if (!strcmp(cmd, "extcorr")) {
			sim_extcorr((unsigned)num(a[0]), num(a[1]));
		} else if (!strcmp(cmd, "drop")) {
			sim_drop(num(a[0]));
		} else if (!strcmp(cmd, "deliver")) {
			sim_deliver();
		} else if (!strcmp(cmd, "profiler_start")) {
			sim_profiler_start();
		} else if (!strcmp(cmd, "profiler_stop")) {
			sim_profiler_stop();
		} else if (!strcmp(cmd, "push")) {
			nvtxRangePushA(rest);
		} else if (!strcmp(cmd, "pop")) {
			nvtxRangePop();
		} else if (!strcmp(cmd, "mark")) {
			nvtxMarkA(rest);
		} else if (!strcmp(cmd, "sleep")) {
			struct timespec ts = {(time_t)(num(a[0]) / 1000),
					      (long)(num(a[0]) % 1000) * 1000000L};
			nanosleep(&ts, NULL);
		} else if (!strcmp(cmd, "print")) {
			printf("%s\n", rest);
			fflush(stdout);
		} else if (!strcmp(cmd, "eprint")) {
			fprintf(stderr, "%s\n", rest);
		} else if (!strcmp(cmd, "exit")) {
			sim_finish();
			exit((int)num(a[0]));
		} else {
			fprintf(stderr, "fakecuda-run: line %d: unknown command '%s'\n", i + 1,
				cmd);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	const char *expect = NULL;
	uint64_t seed = 1;
	int opt;
	FILE *f;
	char buf[1024];

	while ((opt = getopt(argc, argv, "e:s:")) != -1) {
		switch (opt) {
		case 'e':
			expect = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: fakecuda-run [-e EXPECT] [-s SEED] SCENARIO\n");
			return 2;
		}
	}
	if (optind >= argc || !(f = fopen(argv[optind], "r"))) {
		fprintf(stderr, "usage: fakecuda-run [-e EXPECT] [-s SEED] SCENARIO\n");
		return 2;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *s = buf, *hash;
		while (*s == ' ' || *s == '\t') {
			s++;
		}
		if ((hash = strchr(s, '#'))) {
			*hash = '\0';
		}
		size_t len = strlen(s);
		while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t')) {
			s[--len] = '\0';
		}
		if (!len) {
			continue;
		}
		lines = realloc(lines, sizeof(*lines) * (size_t)(nlines + 1));
		lines[nlines++] = strdup(s);
	}
	fclose(f);
	sim_init(expect, seed);
	run(0, nlines);
	sim_finish();
	return 0;
}
