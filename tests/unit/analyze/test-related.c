/* SPDX-License-Identifier: MIT */
/*
 * Tests of whether traces are one run (analyze/related.c): traces hours
 * apart on one clock or naming jobs of different sizes are refused with
 * both files named; traces of one file, untimed traces and traces that
 * overlap or follow each other within the bound are one run.
 * Two traces of one rank are refused unless they are windows of one process
 * or processes of one host recording at the same time.
 */
#include "base/compat.h"
#include "analyze/related.h"
#include "tests/unit/test.h"

#define S(x) ((uint64_t)(x) * 1000000000u)

TEST(related_one_run)
{
	struct gpa_related_in v[] = {
		{"a.json", 0, 8, true, S(100), S(200), NULL, 0},
		{"b.json", 1, 8, true, S(150), S(260), NULL, 0},
		{"c.json", 2, 8, true, S(200) + S(3000), S(4000), NULL, 0}, /* 50 min after a, b */
		{"d.json", -1, 0, false, 0, 0, NULL, 0},
	};
	char err[256] = "";

	CHECK_EQ_I(gpa_related_check(v, 4, err, sizeof(err)), 0);
	CHECK_STR(err, "");
}

TEST(related_far_apart)
{
	struct gpa_related_in v[] = {
		{"late.json", -1, 0, true, S(100) + S(365ull * 86400 * 4), S(100) + S(365ull * 86400 * 4) + 5, NULL, 0},
		{"early.json", -1, 0, true, S(100), S(200), NULL, 0},
		{"mid.json", -1, 0, true, S(150), S(300), NULL, 0},
	};
	char err[256];

	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	CHECK_STR(err, "'mid.json' and 'late.json' are not one run: the second began 4.0 years "
		       "after the first ended");
	/* one file's processes are one run, however far apart */
	v[1].path = v[2].path = "late.json";
	v[1].t1 = v[2].t1 = S(200);
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
	/* untimed: their clocks say nothing */
	v[0].timed = false;
	v[1].path = "x";
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
}

TEST(related_two_hours)
{
	struct gpa_related_in v[] = {
		{"a", 0, 2, true, S(0), S(10), NULL, 0},
		{"b", 1, 2, true, S(10) + S(7200), S(7300), NULL, 0},
	};
	char err[256];

	CHECK_EQ_I(gpa_related_check(v, 2, err, sizeof(err)), 1);
	CHECK_CONTAINS(err, "began 2.0 hours after");
}

TEST(related_world_sizes)
{
	struct gpa_related_in v[] = {
		{"r3.json", 3, 8, true, S(0), S(10), NULL, 0},
		{"nows.json", -1, 0, true, S(0), S(10), NULL, 0},
		{"r1.json", 1, 2, true, S(0), S(10), NULL, 0},
	};
	char err[256];

	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	CHECK_STR(err, "'r3.json' and 'r1.json' are not one run: they name jobs of 8 and 2 ranks");
	v[2].world_size = 8;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
}

TEST(related_same_rank)
{
	struct gpa_related_in v[] = {
		{"a/rank0.json", 0, 2, true, S(0), S(10), "node1", 0},
		{"a/rank1.json", 1, 2, true, S(0), S(10), "node1", 0},
		{"b/rank0.json", 0, 2, true, S(20), S(30), "node1", 0},
	};
	char err[256] = "";

	/* two runs of a job, minutes apart: rank 0 twice */
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	CHECK_STR(err, "'a/rank0.json' and 'b/rank0.json' are not one run: both are rank 0");
	/* the same rank on two hosts at the same time: two jobs */
	v[2].t0 = S(5);
	v[2].host = "node2";
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	/* no host known: nothing says they are one rank's processes */
	v[2].host = v[0].host = NULL;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	/* one host at the same time: the rank's program and a process it started */
	v[2].host = v[0].host = "node1";
	err[0] = '\0';
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	/* untimed: the clocks cannot say they overlapped */
	v[2].timed = false;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	/* two profiling windows of one process: its pid, on one host or hosts not named */
	v[0].pid = v[2].pid = 851;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
	v[0].host = v[2].host = NULL;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
	v[2].host = "node2"; /* the same pid on another host: another process */
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	v[2].host = v[0].host = "node1";
	v[2].pid = 852;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 1);
	/* the processes of one file, and traces naming no rank, are never refused for it */
	v[2].path = "a/rank0.json";
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
	v[2].path = "c.json";
	v[2].rank = v[0].rank = -1;
	CHECK_EQ_I(gpa_related_check(v, 3, err, sizeof(err)), 0);
}
