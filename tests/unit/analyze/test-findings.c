/* SPDX-License-Identifier: MIT */
/*
 * test-findings.c - the findings' thresholds, ranking and launch-bound rule
 * on hand-made gap totals (analyze/findings.c).
 */
#include "base/compat.h"
#include "analyze/findings.h"
#include "analyze/gaps.h"
#include "analyze/model.h"
#include "tests/unit/test.h"

#include <string.h>

static void build(const struct gpa_gaps *g, struct gpa_findings *f)
{
	static struct gpa_model m; /* no GPU ops, no copies */
	struct gpa_findings_in in = {.m = &m, .gaps = g};

	REQUIRE(gpa_findings_build(&in, f) == 0);
}

TEST(findings_no_gpu_work)
{
	struct gpa_gaps g;
	struct gpa_findings f;

	memset(&g, 0, sizeof(g));
	build(&g, &f);
	CHECK_EQ_U(f.verdict, GPA_VERDICT_NO_GPU);
	CHECK_EQ_U(f.v.n, 0);
	gpa_findings_release(&f);
}

/* Material from 5 % of GPU time: 1 ns below is not. */
TEST(findings_material_threshold)
{
	struct gpa_gaps g;
	struct gpa_findings f;

	memset(&g, 0, sizeof(g));
	g.all.window = 1000000000;
	g.all.cause_ns[GPA_GAP_CPU] = 49999999;
	g.all.cause_n[GPA_GAP_CPU] = 400;
	build(&g, &f);
	CHECK_EQ_U(f.verdict, GPA_VERDICT_NONE);
	CHECK_EQ_U(f.v.n, 0);
	CHECK_EQ_U(f.minor.n, 1);
	CHECK_EQ_U(f.minor_ns, 49999999);
	gpa_findings_release(&f);

	g.all.cause_ns[GPA_GAP_CPU] = 50000000;
	g.all.cause_ns[GPA_GAP_SYNC] = 300000000;
	g.all.cause_n[GPA_GAP_SYNC] = 2;
	build(&g, &f);
	CHECK_EQ_U(f.verdict, GPA_VERDICT_MATERIAL);
	REQUIRE(f.v.n == 2);
	CHECK_EQ_U(f.v.v[0].cause, GPA_GAP_SYNC); /* largest first */
	CHECK(f.v.v[0].major);
	CHECK_EQ_U(f.v.v[0].conf, GPA_CONF_LOW); /* a model without GPU ops: too few to judge */
	CHECK_EQ_U(f.v.v[1].cause, GPA_GAP_CPU);
	CHECK(!f.v.v[1].major);
	CHECK_EQ_U(f.total_ns, 350000000);
	gpa_findings_release(&f);
}

/* Many short launch gaps are launch-bound; a few long ones are idle of that cause. */
TEST(findings_launch_bound_needs_many_short_gaps)
{
	struct gpa_gaps g;
	struct gpa_findings f;

	memset(&g, 0, sizeof(g));
	g.all.window = 1000000;
	g.all.cause_ns[GPA_GAP_LAUNCH] = 300000;
	g.all.cause_n[GPA_GAP_LAUNCH] = 30;
	build(&g, &f);
	REQUIRE(f.v.n == 1);
	CHECK_EQ_U(f.v.v[0].cat, GPA_FIND_LAUNCH);
	gpa_findings_release(&f);

	g.all.cause_n[GPA_GAP_LAUNCH] = 3;
	build(&g, &f);
	REQUIRE(f.v.n == 1);
	CHECK_EQ_U(f.v.v[0].cat, GPA_FIND_IDLE);
	CHECK_EQ_U(f.v.v[0].cause, GPA_GAP_LAUNCH);
	gpa_findings_release(&f);
}

TEST(findings_names)
{
	CHECK_STR(gpa_finding_cat_name(GPA_FIND_COMM), "exposed-communication");
	CHECK_STR(gpa_finding_cat_name(99), "unknown");
	CHECK_STR(gpa_confidence_name(GPA_CONF_LOW), "low");
}
