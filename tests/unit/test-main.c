/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

struct test_case {
	const char *name;
	test_fn fn;
};

static struct test_case cases[512];
static size_t ncases;
int test_failures;
static char tmpdir[256];

void test_register(const char *name, test_fn fn)
{
	if (ncases < GP_ARRAY_SIZE(cases)) {
		cases[ncases++] = (struct test_case){name, fn};
	}
}

const char *test_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/gpuprof-test-XXXXXX", gp_tmpdir());
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(1);
		}
	}
	return tmpdir;
}

static bool is_dir(const char *path)
{
	DIR *d = opendir(path);

	if (d) {
		closedir(d);
	}
	return d != NULL;
}

const char *test_anchors(const char *sub)
{
	static char dir[PATH_MAX];
	const char *env = getenv("GPUPROF_ANCHORS");
	const char *top = getenv("TOP");
	const char *ci = getenv("CI");

	if (env && *env) {
		snprintf(dir, sizeof(dir), "%s/%s", env, sub);
		if (is_dir(dir)) {
			return dir;
		}
	} else {
		const char *bases[] = {top, ".", ".."};

		for (size_t i = 0; i < GP_ARRAY_SIZE(bases); i++) {
			if (!bases[i]) {
				continue;
			}
			snprintf(dir, sizeof(dir), "%s/../shared/anchors/%s", bases[i], sub);
			if (is_dir(dir)) {
				return dir;
			}
		}
		snprintf(dir, sizeof(dir), "../shared/anchors/%s", sub);
	}
	if (ci && !strcmp(ci, "true")) {
		TFAIL("no %s: in CI (CI=true) ../shared/anchors must be beside the checkout",
		      dir);
	}
	return NULL;
}

unsigned test_sampled(unsigned n)
{
#ifdef __SANITIZE_ADDRESS__
	const char *stress = getenv("GPUPROF_STRESS");

	if (!stress || strcmp(stress, "1")) {
		return n / 4 ? n / 4 : 1;
	}
#endif
	return n;
}

static void rm_tmpdir(void)
{
	if (tmpdir[0]) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd)) {
			fprintf(stderr, "cannot remove %s\n", tmpdir);
		}
		tmpdir[0] = '\0';
	}
}

int main(int argc, char **argv)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *filter = NULL;
	bool nofork = false;
	int failed = 0, passed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n")) {
			nofork = true;
		} else {
			filter = argv[i];
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < ncases; i++) {
		int ok;

		if (filter && !strstr(cases[i].name, filter)) {
			continue;
		}
		if (nofork) {
			test_failures = 0;
			cases[i].fn();
			ok = test_failures == 0;
			rm_tmpdir();
		} else {
			fflush(NULL);
			pid_t pid = fork();
			if (pid < 0) {
				perror("fork");
				return 1;
			}
			if (pid == 0) {
				test_failures = 0;
				cases[i].fn();
				rm_tmpdir();
				_exit(test_failures ? 1 : 0);
			}
			int status;
			while (waitpid(pid, &status, 0) < 0) {
				if (errno != EINTR) {
					perror("waitpid");
					return 1;
				}
			}
			ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
			if (WIFSIGNALED(status)) {
				fprintf(stderr, "  killed by signal %d\n", WTERMSIG(status));
			}
		}
		printf("%s %s %s\n", ok ? "ok" : "FAIL", prog, cases[i].name);
		if (ok) {
			passed++;
		} else {
			failed++;
		}
	}
	return failed ? 1 : 0;
	(void)passed;
}
