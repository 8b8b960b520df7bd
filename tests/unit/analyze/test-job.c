/* SPDX-License-Identifier: MIT */
/*
 * Tests of the rank summaries and the job merge (analyze/job-sum.c,
 * analyze/job.c) on hand-made summaries whose answers are worked out here:
 * the byte format round trip and every damaged blob refused, the straggler
 * and its margin, the slow rank against the median of its peers, and the
 * same job whatever the order the summaries arrive in.
 */
#include "base/compat.h"
#include "analyze/job.h"
#include "tests/unit/test.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((uint64_t)(x) * 1000u)

static void str(struct gpa_rank_sum *s, const char *v)
{
	char *d = strdup(v);
	CHECK(d && !gp_vec_push(&s->strs, d));
}

/*
 * Rank r of n: 3 steps of 3 ms (4 ms on rank `slow_steps`); an AllReduce
 * per step arriving at 1 ms + 10 us * r, the straggler at 1 ms + late;
 * kernel "gemm" 1 ms a launch (times factor on rank `slow`).
 */
static void make(struct gpa_rank_sum *s, uint32_t r, int straggler, uint64_t late, int slow,
		 double factor)
{
	CHECK_EQ_I(gpa_rank_sum_failed(r, "x.gpz", "", s), 0);
	s->ok = true;
	s->rank = (int32_t)r;
	s->aligned = true;
	s->clock_offset = 1000;
	str(s, "AllReduce"); /* 1 */
	str(s, "gemm");	     /* 2 */
	for (int k = 0; k < 3; k++) {
		uint64_t t = U(4000) * (uint64_t)k;
		struct gpa_rank_step st = {.number = k, .start = t, .end = t + U(3000),
					   .busy = U(2000)};
		CHECK(!gp_vec_push(&s->steps, st));
		uint64_t a = t + U(1000) + ((int)r == straggler ? late : U(10) * r);
		struct gpa_rank_coll c = {.hash = 9, .seq = (uint64_t)k + 1, .func = 1,
					  .bytes = 1024, .arrival = a, .end = a + U(100),
					  .doing = 2, .idle_before = U(5)};
		CHECK(!gp_vec_push(&s->colls, c));
	}
	uint64_t d = (int)r == slow ? (uint64_t)(U(1000) * factor) : U(1000);
	struct gpa_rank_kernel k = {.name = 2, .count = 6, .total = 6 * d, .min = d, .max = d};
	CHECK(!gp_vec_push(&s->kernels, k));
	s->compute_ns = k.total;
	s->window = U(12000);
	s->busy = U(6000);
	s->idle = U(6000);
	s->cause_ns[6] = U(6000);
	struct gpa_rank_finding f = {.cat = 0, .cause = 6, .cost_ns = U(6000), .count = 3};
	CHECK(!gp_vec_push(&s->findings, f));
}

static struct gpa_rank_sum *job_of(uint32_t n, int straggler, uint64_t late, int slow,
				   double factor)
{
	struct gpa_rank_sum *v = calloc(n, sizeof(*v));

	CHECK(v != NULL);
	for (uint32_t r = 0; r < n; r++) {
		make(&v[r], r, straggler, late, slow, factor);
	}
	return v;
}

TEST(job_pack_roundtrip)
{
	struct gpa_rank_sum *v = job_of(3, 1, U(500), -1, 1), *w = NULL;
	struct gp_strbuf a = GP_STRBUF_INIT, b = GP_STRBUF_INIT;
	size_t n = 0, cap = 0;
	char err[256];

	CHECK_EQ_I(gpa_rank_sums_pack(v, 3, &a), 0);
	CHECK_EQ_I(gpa_rank_sums_unpack(a.buf, a.len, "blob", &w, &n, &cap, err, sizeof(err)), 0);
	CHECK_EQ_U(n, 3);
	CHECK_EQ_I(gpa_rank_sums_pack(w, n, &b), 0);
	CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
	CHECK_EQ_U(w[1].colls.v[2].arrival, U(8000) + U(1000) + U(500));
	CHECK_STR(w[2].strs.v[w[2].kernels.v[0].name], "gemm");
	CHECK_EQ_I(w[0].clock_offset, 1000);
	for (size_t i = 0; i < 3; i++) {
		gpa_rank_sum_release(&v[i]);
		gpa_rank_sum_release(&w[i]);
	}
	free(v);
	free(w);
	gp_strbuf_release(&a);
	gp_strbuf_release(&b);
}

/* Every cut of the blob and a damaged byte at every place: an error or a summary, no crash. */
TEST(job_unpack_damaged)
{
	struct gpa_rank_sum *v = job_of(2, -1, 0, -1, 1);
	struct gp_strbuf a = GP_STRBUF_INIT;
	char err[256];

	CHECK_EQ_I(gpa_rank_sums_pack(v, 2, &a), 0);
	for (size_t cut = 0; cut < a.len; cut++) {
		struct gpa_rank_sum *w = NULL;
		size_t n = 0, cap = 0;
		int ret = gpa_rank_sums_unpack(a.buf, cut, "blob", &w, &n, &cap, err, sizeof(err));
		if (!ret) {
			TFAIL("a blob cut at %zu read as whole", cut);
		}
		CHECK_CONTAINS(err, "blob");
		for (size_t i = 0; i < n; i++) {
			gpa_rank_sum_release(&w[i]);
		}
		free(w);
	}
	char *c = malloc(a.len);
	CHECK(c != NULL);
	for (size_t at = 0; at < a.len; at++) {
		struct gpa_rank_sum *w = NULL;
		size_t n = 0, cap = 0;
		memcpy(c, a.buf, a.len);
		c[at] = (char)0xff;
		gpa_rank_sums_unpack(c, a.len, "blob", &w, &n, &cap, err, sizeof(err));
		for (size_t i = 0; i < n; i++) {
			CHECK(w[i].path && w[i].strs.n >= 1);
			gpa_rank_sum_release(&w[i]);
		}
		free(w);
	}
	free(c);
	for (size_t i = 0; i < 2; i++) {
		gpa_rank_sum_release(&v[i]);
	}
	free(v);
	gp_strbuf_release(&a);
}

TEST(job_straggler_found)
{
	struct gpa_rank_sum *v = job_of(8, 3, U(200), -1, 1);
	struct gpa_job j;

	CHECK_EQ_I(gpa_job_merge(v, 8, &j), 0);
	CHECK_EQ_U(j.groups, 3);
	CHECK_EQ_U(j.straggler_ev, GPA_JOB_FOUND);
	CHECK_EQ_I(j.ranks.v[j.straggler].s->rank, 3);
	/* rank 7 arrives at +70 us, rank 3 at +200 us: 130 us */
	CHECK_EQ_U(j.straggler_margin, U(130));
	CHECK_EQ_U(j.skew.max, U(200));
	CHECK_STR(j.colls.v[j.straggler_at].doing, "gemm");
	CHECK_EQ_U(j.ranks.v[3].last, 3);
	/* the others waited 200 - 10 r us each, r != 3, per collective */
	CHECK_EQ_U(j.ranks.v[3].caused, 3 * (U(200) * 7 - U(10) * (28 - 3)));
	CHECK_EQ_U(j.slow_ev, GPA_JOB_NOTHING);
	CHECK_EQ_U(j.steps.n, 3);
	CHECK(j.aligned);
	gpa_job_release(&j);
}

TEST(job_no_straggler_below_margin)
{
	struct gpa_rank_sum *v = job_of(8, -1, 0, -1, 1);
	struct gpa_job j;

	CHECK_EQ_I(gpa_job_merge(v, 8, &j), 0);
	/* rank 7 is always last, but by 10 us only */
	CHECK_EQ_U(j.ranks.v[7].last, 3);
	CHECK_EQ_U(j.straggler_ev, GPA_JOB_NOTHING);
	CHECK_EQ_U(j.straggler, GPA_NONE);
	gpa_job_release(&j);
}

TEST(job_slow_rank)
{
	struct gpa_rank_sum *v = job_of(6, -1, 0, 4, 1.3);
	struct gpa_job j;

	CHECK_EQ_I(gpa_job_merge(v, 6, &j), 0);
	CHECK_EQ_U(j.slow_ev, GPA_JOB_FOUND);
	CHECK_EQ_U(j.slow.n, 1);
	CHECK_EQ_I(j.ranks.v[j.slow.v[0]].s->rank, 4);
	CHECK(j.ranks.v[4].ratio > 1.299 && j.ranks.v[4].ratio < 1.301);
	gpa_job_release(&j);

	v = job_of(6, -1, 0, 4, 1.3); /* the kernel compared holds a third of its compute time */
	v[4].compute_ns = 3 * v[4].kernels.v[0].total;
	CHECK_EQ_I(gpa_job_merge(v, 6, &j), 0);
	CHECK_EQ_U(j.slow_ev, GPA_JOB_NOTHING);
	CHECK(j.ranks.v[4].ratio > 1.299 && !j.ranks.v[4].slow);
	gpa_job_release(&j);

	v = job_of(6, -1, 0, 4, 1.3); /* twice the launches of its peers: other work, not compared */
	v[4].kernels.v[0].count *= 2;
	v[4].kernels.v[0].total *= 2;
	CHECK_EQ_I(gpa_job_merge(v, 6, &j), 0);
	CHECK_EQ_U(j.ranks.v[4].compared, 0);
	CHECK_EQ_U(j.slow_ev, GPA_JOB_NOTHING);
	gpa_job_release(&j);

	v = job_of(6, -1, 0, 4, 1.05); /* 5 %: below the threshold */
	CHECK_EQ_I(gpa_job_merge(v, 6, &j), 0);
	CHECK_EQ_U(j.slow_ev, GPA_JOB_NOTHING);
	gpa_job_release(&j);

	v = job_of(2, -1, 0, 1, 2.0); /* two ranks: no median of peers */
	CHECK_EQ_I(gpa_job_merge(v, 2, &j), 0);
	CHECK_EQ_U(j.slow_ev, GPA_JOB_NONE);
	gpa_job_release(&j);
}

/* The same job whatever order the summaries come in; a failed file is counted, not merged. */
TEST(job_order_and_failures)
{
	struct gpa_rank_sum *a = job_of(5, 2, U(300), 1, 1.5), *b = job_of(5, 2, U(300), 1, 1.5);
	struct gpa_job ja, jb;

	for (uint32_t i = 0; i < 5; i++) { /* b reversed */
		struct gpa_rank_sum t = b[i];
		if (i < 2) {
			b[i] = b[4 - i];
			b[4 - i] = t;
		}
	}
	gpa_rank_sum_release(&b[0]); /* file 4 could not be read */
	CHECK_EQ_I(gpa_rank_sum_failed(4, "bad.gpz", "bad.gpz: not a trace", &b[0]), 0);
	gpa_rank_sum_release(&a[4]);
	CHECK_EQ_I(gpa_rank_sum_failed(4, "bad.gpz", "bad.gpz: not a trace", &a[4]), 0);
	CHECK_EQ_I(gpa_job_merge(a, 5, &ja), 0);
	CHECK_EQ_I(gpa_job_merge(b, 5, &jb), 0);
	CHECK_EQ_U(ja.failed, 1);
	CHECK_EQ_U(ja.ranks.n, 4);
	CHECK_EQ_U(ja.straggler, jb.straggler);
	CHECK_EQ_U(ja.straggler_margin, jb.straggler_margin);
	CHECK_EQ_U(ja.slow.n, jb.slow.n);
	CHECK_EQ_U(ja.colls.n, jb.colls.n);
	for (size_t i = 0; i < ja.ranks.n; i++) {
		CHECK_EQ_U(ja.ranks.v[i].s->file, jb.ranks.v[i].s->file);
		CHECK_EQ_U(ja.ranks.v[i].caused, jb.ranks.v[i].caused);
		CHECK(ja.ranks.v[i].ratio == jb.ranks.v[i].ratio);
	}
	CHECK_STR(ja.sums[4].error, "bad.gpz: not a trace");
	gpa_job_release(&ja);
	gpa_job_release(&jb);
}

/*
 * Collectives without sequence numbers, keyed by order per stream 13 and
 * timed on the GPU: every rank's kernel ends when the last one's arrives
 * plus 100 us (at end_skew[r] more on rank r), as a collective does.
 */
static void by_order(struct gpa_rank_sum *v, uint32_t n, const uint64_t *end_skew)
{
	for (uint32_t r = 0; r < n; r++) {
		uint64_t last = 0;
		for (size_t k = 0; k < v[r].colls.n; k++) {
			last = v[r].colls.v[k].arrival > last ? v[r].colls.v[k].arrival : last;
		}
		for (size_t k = 0; k < v[r].colls.n; k++) {
			struct gpa_rank_coll *c = &v[r].colls.v[k];
			uint64_t a_last = 0;
			for (uint32_t q = 0; q < n; q++) {
				uint64_t a = v[q].colls.v[k].arrival;
				a_last = a > a_last ? a : a_last;
			}
			c->by = GPA_COLL_ORDER_STREAM;
			c->hash = 13;
			c->bytes = 0;
			c->gpu_end = true;
			c->end = a_last + U(100) + (end_skew ? end_skew[r] : 0);
		}
	}
}

TEST(job_straggler_by_order)
{
	struct gpa_rank_sum *v = job_of(8, 3, U(200), -1, 1);
	struct gpa_job j;
	char why[512];

	by_order(v, 8, NULL);
	CHECK_EQ_I(gpa_job_merge(v, 8, &j), 0);
	CHECK_EQ_U(j.by, GPA_COLL_ORDER_STREAM);
	CHECK_EQ_U(j.groups, 3);
	CHECK_EQ_U(j.ends_checked, 3);
	CHECK_EQ_U(j.ends_far, 0);
	CHECK(!j.clocks_disagree);
	CHECK_EQ_U(j.straggler_ev, GPA_JOB_FOUND);
	CHECK_EQ_I(j.ranks.v[j.straggler].s->rank, 3);
	CHECK_EQ_U(j.straggler_margin, U(130));
	CHECK_STR(gpa_job_why_unmatched(&j, why, sizeof(why)), "");
	gpa_job_release(&j);
}

/* Ends 5 ms apart on half the ranks: the clocks disagree, nothing is claimed and the why says so. */
TEST(job_order_clocks_disagree)
{
	struct gpa_rank_sum *v = job_of(4, 3, U(200), -1, 1);
	uint64_t skew[4] = {0, U(5000), 0, U(5000)};
	struct gpa_job j;
	char why[512];

	by_order(v, 4, skew);
	CHECK_EQ_I(gpa_job_merge(v, 4, &j), 0);
	CHECK_EQ_U(j.ends_checked, 3);
	CHECK_EQ_U(j.ends_far, 3);
	CHECK(j.clocks_disagree);
	CHECK_EQ_U(j.groups, 0);
	CHECK_EQ_U(j.straggler_ev, GPA_JOB_NONE);
	CHECK_EQ_U(j.end_spread_median, U(5000));
	CHECK_CONTAINS(gpa_job_why_unmatched(&j, why, sizeof(why)), "the clocks disagree: 3 of 3");
	CHECK_CONTAINS(why, "order per stream");
	gpa_job_release(&j);
}

/* By order, a collective of another kind or size at the same place matches nothing. */
TEST(job_order_kind_and_size_checked)
{
	struct gpa_rank_sum *v = job_of(2, -1, 0, -1, 1);
	struct gpa_job j;
	char why[512];

	by_order(v, 2, NULL);
	str(&v[1], "AllGather"); /* 3 */
	for (size_t k = 0; k < 3; k++) {
		v[0].colls.v[k].bytes = 1024;
		v[1].colls.v[k].bytes = k == 1 ? 2048 : 1024;
	}
	v[1].colls.v[0].func = 3;
	CHECK_EQ_I(gpa_job_merge(v, 2, &j), 0);
	CHECK_EQ_U(j.mismatched, 2);
	CHECK_EQ_U(j.groups, 1);
	CHECK_EQ_U(j.colls.v[0].seq, 3);
	gpa_job_release(&j);
	v = job_of(2, -1, 0, -1, 1);
	by_order(v, 2, NULL);
	for (size_t k = 0; k < 3; k++) {
		v[1].colls.v[k].bytes = 4096;
		v[0].colls.v[k].bytes = 1024;
	}
	CHECK_EQ_I(gpa_job_merge(v, 2, &j), 0);
	CHECK_EQ_U(j.groups, 0);
	CHECK_CONTAINS(gpa_job_why_unmatched(&j, why, sizeof(why)), "differ in kind or size");
	gpa_job_release(&j);
}

/* The collective key and GPU-end flag survive the byte format; an unknown key is refused. */
TEST(job_pack_order_keys)
{
	struct gpa_rank_sum *v = job_of(2, -1, 0, -1, 1), *w = NULL;
	struct gp_strbuf a = GP_STRBUF_INIT;
	size_t n = 0, cap = 0;
	char err[256];

	by_order(v, 2, NULL);
	CHECK_EQ_I(gpa_rank_sums_pack(v, 2, &a), 0);
	CHECK_EQ_I(gpa_rank_sums_unpack(a.buf, a.len, "blob", &w, &n, &cap, err, sizeof(err)), 0);
	CHECK_EQ_U(w[1].colls.v[2].by, GPA_COLL_ORDER_STREAM);
	CHECK(w[1].colls.v[2].gpu_end);
	for (size_t i = 0; i < 2; i++) {
		gpa_rank_sum_release(&w[i]);
	}
	free(w);
	w = NULL;
	n = cap = 0;
	v[0].colls.v[0].by = 9;
	gp_strbuf_reset(&a);
	CHECK_EQ_I(gpa_rank_sums_pack(v, 2, &a), 0);
	CHECK_EQ_I(gpa_rank_sums_unpack(a.buf, a.len, "blob", &w, &n, &cap, err, sizeof(err)),
		   -GP_ERR_FORMAT);
	CHECK_CONTAINS(err, "unknown collective key");
	for (size_t i = 0; i < n; i++) {
		gpa_rank_sum_release(&w[i]);
	}
	free(w);
	for (size_t i = 0; i < 2; i++) {
		gpa_rank_sum_release(&v[i]);
	}
	free(v);
	gp_strbuf_release(&a);
}
