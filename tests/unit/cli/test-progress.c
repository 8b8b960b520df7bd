/* SPDX-License-Identifier: MIT */
/*
 * test-progress.c - the progress line (cli/progress.c): percent, amounts,
 * records, rate and time left; nothing drawn when stderr is not a terminal
 * or with --quiet.
 */
#include "base/compat.h"
#include "cli/cli.h"
#include "cli/parse-options.h"
#include "tests/unit/test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void line(struct gp_strbuf *sb, const struct gp_progress *p, uint64_t ns)
{
	gp_strbuf_reset(sb);
	cli_progress_line(sb, p, ns);
}

TEST(progress_line)
{
	struct gp_strbuf sb = GP_STRBUF_INIT;
	struct gp_progress p = {.what = "importing", .unit = "bytes", .done = 120400000,
				.total = 481600000, .records = 1234567};

	/* A quarter in 2 s: 60.2 MB/s, three quarters left = 6 s. */
	line(&sb, &p, 2000000000u);
	CHECK_STR(sb.buf, "gpuprof: importing  25% 120.4 MB of 481.6 MB, 1,234,567 records, "
			  "60.2 MB/s, 6 s left");
	/* Counted units, no total: the count and the rate, no percent or time left. */
	p = (struct gp_progress){.what = "importing", .unit = "rows", .done = 16384};
	line(&sb, &p, 500000000u);
	CHECK_STR(sb.buf, "gpuprof: importing 16,384 rows, 32,768 rows/s");
	/* Events of a total, done: 100 %, nothing left. */
	p = (struct gp_progress){.what = "exporting", .unit = "events", .done = 2000000,
				 .total = 2000000};
	line(&sb, &p, 4000000000u);
	CHECK_STR(sb.buf, "gpuprof: exporting 100% 2,000,000 of 2,000,000 events, "
			  "500,000 events/s");
	/* More done than the total said (a total that was an estimate): capped. */
	p.done = 3000000;
	line(&sb, &p, 1000000000u);
	CHECK_CONTAINS(sb.buf, "100% 2,000,000 of 2,000,000 events");
	gp_strbuf_release(&sb);
}

/* Runs the callback with stderr on a file; returns what reached it. */
static size_t drawn(bool quiet, const char *after)
{
	struct gp_strbuf path = GP_STRBUF_INIT;
	int fd, saved = dup(STDERR_FILENO);
	struct cli_progress pr;
	struct gp_progress p = {.what = "reading", .unit = "bytes", .done = 1, .total = 2};
	off_t n;

	gp_strbuf_addf(&path, "%s/gp-progress-XXXXXX", gp_tmpdir());
	fd = mkstemp(path.buf);
	CHECK(fd >= 0);
	unlink(path.buf);
	gp_strbuf_release(&path);
	dup2(fd, STDERR_FILENO);
	setenv("GPUPROF_PROGRESS_AFTER", after, 1);
	cli_progress_start(&pr, quiet);
	cli_progress_fn(&p, &pr);
	cli_progress_end(&pr);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = lseek(fd, 0, SEEK_END);
	close(fd);
	return (size_t)n;
}

TEST(progress_silent_off_a_terminal)
{
	/* stderr is a file here: nothing, even with no delay; and nothing with --quiet. */
	CHECK_EQ_U(drawn(false, "0"), 0);
	CHECK_EQ_U(drawn(true, "0"), 0);
}

TEST(progress_quiet_option)
{
	static const struct cli_option opts[] = {CLI_OPT_HELP(0), CLI_OPT_END()};
	const struct cli_command cmd = {.usage = "usage: t\n", .options = opts};
	char *argv[] = {"t", "--quiet", "x", NULL};
	struct cli_common c = {0};
	int nargs = 0;

	CHECK_EQ_I(cli_parse_options(&cmd, NULL, &c, 3, argv, &nargs), CLI_PARSE_CONTINUE);
	CHECK(c.quiet);
	CHECK_EQ_U(c.threads_given, 0);
	CHECK_EQ_I(nargs, 1);
	CHECK_STR(argv[0], "x");
}

/* --threads goes into the command's struct cli_common, resolved once from it. */
TEST(threads_option_per_command)
{
	static const struct cli_option opts[] = {CLI_OPT_HELP(0), CLI_OPT_END()};
	const struct cli_command cmd = {.usage = "usage: t\n", .options = opts};
	char *argv[] = {"t", "--threads", "3", "x", NULL};
	char *argv2[] = {"t", "y", NULL};
	char *argv3[] = {"t", "--threads=2", "z", NULL};
	struct cli_common a = {0}, b = {0};
	unsigned n = 0;
	int nargs = 0;

	CHECK_EQ_I(cli_parse_options(&cmd, NULL, &a, 4, argv, &nargs), CLI_PARSE_CONTINUE);
	CHECK_EQ_U(a.threads_given, 3);
	CHECK(!a.quiet);
	CHECK_EQ_I(nargs, 1);
	setenv("GPUPROF_THREADS", "5", 1);
	CHECK_EQ_I(cli_common_threads(&a, &n), 0);
	CHECK_EQ_U(n, 3);
	/* another command's options are its own: GPUPROF_THREADS, read once */
	CHECK_EQ_I(cli_parse_options(&cmd, NULL, &b, 2, argv2, &nargs), CLI_PARSE_CONTINUE);
	CHECK_EQ_U(b.threads_given, 0);
	CHECK_EQ_I(cli_common_threads(&b, &n), 0);
	CHECK_EQ_U(n, 5);
	setenv("GPUPROF_THREADS", "7", 1);
	CHECK_EQ_I(cli_common_threads(&b, &n), 0);
	CHECK_EQ_U(n, 5);
	unsetenv("GPUPROF_THREADS");
	/* accepted and checked, kept nowhere, without a struct */
	CHECK_EQ_I(cli_parse_options(&cmd, NULL, NULL, 3, argv3, &nargs), CLI_PARSE_CONTINUE);
	CHECK_EQ_I(nargs, 1);
}
