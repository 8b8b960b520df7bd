/* SPDX-License-Identifier: MIT */
/*
 * test-report.c - the report composed in one call (analyze/report.c): the
 * same result on one thread and several, what each kind holds, errors as a
 * code and one line, one free.
 */
#include "base/compat.h"
#include "analyze/report.h"
#include "tests/tools/gen.h"
#include "tests/unit/test.h"

#include <stdio.h>
#include <string.h>

#define STEPS 6

/* A generated trace of STEPS steps on two devices, every record kind, loaded; 0 or -1. */
static int load_gen(struct gpa_model *m)
{
	struct gen_opts go;
	struct gen_stats gs;
	struct gpt_writer *w;
	char path[512], err[512];
	const char *p = path;

	gen_opts_default(&go);
	go.steps = STEPS;
	go.kernels_per_step = 30;
	go.devices = 2;
	go.gap_ns = 200000;
	go.all_kinds = true;
	go.memory_per_step = 8;
	snprintf(path, sizeof(path), "%s/gen.gpz", test_tmpdir());
	if (gpt_writer_open(path, NULL, &w) || gen_write(w, &go, &gs) || gpt_writer_close(w)) {
		TFAIL("cannot write %s", path);
		return -1;
	}
	if (gpa_model_load(m, &p, 1, NULL, err, sizeof(err))) {
		TFAIL("load: %s", err);
		return -1;
	}
	return 0;
}

static struct gpa_report *build(struct gpa_model *m, enum gpa_report_kind kind, unsigned threads)
{
	struct gpa_report_opts o;
	struct gpa_report *r = NULL;
	char err[512] = "";

	gpa_report_opts_init(&o);
	o.kind = kind;
	o.threads = threads;
	o.page_events = 1000;
	o.gaps.min_gap_ns = 0; /* every gap listed: more than the report shows */
	if (gpa_report_build(m, &o, &r, err, sizeof(err))) {
		TFAIL("build: %s", err);
	}
	return r;
}

/* Threads change when each analysis runs, never what it finds. */
TEST(report_same_on_threads)
{
	struct gpa_model m;
	struct gpa_report *a, *b;

	REQUIRE(load_gen(&m) == 0);
	a = build(&m, GPA_REPORT_FULL, 1);
	b = build(&m, GPA_REPORT_FULL, 3);
	REQUIRE(a && b);
	CHECK_EQ_U(a->steps.v.n, STEPS);
	CHECK_EQ_U(b->steps.v.n, a->steps.v.n);
	CHECK(a->kernels.rows.n > 0);
	CHECK_EQ_U(b->kernels.rows.n, a->kernels.rows.n);
	CHECK(a->gaps.all.window > 0);
	CHECK(!memcmp(&a->gaps.all, &b->gaps.all, sizeof(a->gaps.all)));
	CHECK_EQ_U(b->gaps.top.n, a->gaps.top.n);
	CHECK(a->verdict.path_ns > 0);
	CHECK_EQ_U(b->verdict.bound, a->verdict.bound);
	CHECK_EQ_U(b->verdict.path_ns, a->verdict.path_ns);
	CHECK(!memcmp(a->verdict.cat_ns, b->verdict.cat_ns, sizeof(a->verdict.cat_ns)));
	CHECK_EQ_U(b->findings.v.n, a->findings.v.n);
	CHECK_EQ_U(b->findings.total_ns, a->findings.total_ns);
	CHECK_EQ_U(b->occ.groups.n, a->occ.groups.n);
	/* the findings read up to 100 gaps; the report lists 10 of them */
	CHECK(a->gaps.top.n > 10);
	CHECK_EQ_U(a->shown.top.n, 10);
	CHECK_EQ_U(a->shown.top_n, 10);
	CHECK(a->shown.top.v == a->gaps.top.v);
	/* a full report leaves the page's parts out */
	CHECK_EQ_U(a->flame.ops, 0);
	CHECK_EQ_U(a->critpath.steps.n, 0);
	gpa_report_free(a);
	gpa_report_free(b);
	gpa_model_release(&m);
}

/* One rank of the job report: steps, gaps, communication, findings; nothing else. */
TEST(report_rank_kind)
{
	struct gpa_model m;
	struct gpa_report *f, *r;

	REQUIRE(load_gen(&m) == 0);
	f = build(&m, GPA_REPORT_FULL, 2);
	r = build(&m, GPA_REPORT_RANK, 2);
	REQUIRE(f && r);
	CHECK_EQ_U(r->steps.v.n, STEPS);
	CHECK(!memcmp(&r->gaps.all, &f->gaps.all, sizeof(r->gaps.all)));
	CHECK_EQ_U(r->gaps.top.n, 10); /* the gaps the options ask for, no more */
	CHECK_EQ_U(r->kernels.rows.n, 0);
	CHECK_EQ_U(r->verdict.path_ns, 0);
	CHECK_EQ_U(r->occ.groups.n, 0);
	CHECK(r->comm.ops > 0);
	CHECK_EQ_U(r->comm.ops, f->comm.ops);
	CHECK_EQ_U(r->comm.comm_kernels, f->comm.comm_kernels);
	gpa_report_free(f);
	gpa_report_free(r);
	gpa_model_release(&m);
}

/* The HTML page adds shaded gaps, the flame graph and the critical path of every step. */
TEST(report_page_kind)
{
	struct gpa_model m;
	struct gpa_report *p;

	REQUIRE(load_gen(&m) == 0);
	p = build(&m, GPA_REPORT_PAGE, 2);
	REQUIRE(p);
	CHECK(p->flame.ops > 0);
	CHECK_EQ_U(p->critpath.steps.n, STEPS);
	CHECK(p->shade.top.n >= p->shown.top.n);
	CHECK(p->shade.top.n <= 4000);
	CHECK_EQ_U(p->shade.min_gap_ns, 1000);
	gpa_report_free(p);
	gpa_model_release(&m);
}

/* Errors: a code, one line, nothing to free. */
TEST(report_errors)
{
	struct gpa_model m;
	struct gpa_report_opts o;
	struct gpa_mfu_opts mfu = {0};
	struct gpa_report *r = (struct gpa_report *)&o;
	char err[512] = "";

	REQUIRE(load_gen(&m) == 0);
	CHECK_EQ_I(gpa_report_build(&m, NULL, &r, err, sizeof(err)), -GP_ERR_API);
	CHECK(r == NULL);
	CHECK_STR(err, "report: bad arguments");
	gpa_report_opts_init(&o);
	o.step_regex = "(";
	o.threads = 2;
	r = (struct gpa_report *)&o;
	CHECK_EQ_I(gpa_report_build(&m, &o, &r, err, sizeof(err)), -GP_ERR_API);
	CHECK(r == NULL);
	CHECK(strstr(err, "step pattern") != NULL);
	CHECK(!strchr(err, '\n'));
	gpa_report_opts_init(&o);
	mfu.peaks.device = "no-such-gpu-anywhere";
	o.mfu = &mfu;
	CHECK_EQ_I(gpa_report_build(&m, &o, &r, err, sizeof(err)), -GP_ERR_NOTFOUND);
	CHECK(r == NULL);
	CHECK(strstr(err, "no-such-gpu-anywhere") != NULL);
	gpa_report_free(NULL);
	gpa_model_release(&m);
}
