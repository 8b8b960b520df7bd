/* SPDX-License-Identifier: MIT */
/*
 * Tests of the matcher gpuprof comm and the job report share
 * (analyze/coll-match.c) on hand-made arrivals whose answers are worked out
 * here: the straggler and its margin, waits and lateness, the same answer
 * whatever the order, groups by order refused when kinds differ, streams
 * paired by place rather than id, and clocks that disagree.
 */
#include "base/compat.h"
#include "analyze/coll-match.h"
#include "tests/unit/test.h"

#include <stdlib.h>
#include <string.h>

#define U(x) ((uint64_t)(x) * 1000u)

/*
 * Rank r of n at collective k (of 4): arrives at 1 ms * k + 10 us * r, rank
 * `late` at 1 ms * k + late_us; every rank's GPU end at 1 ms * k + 900 us
 * plus end_off * r.
 */
static void fill(struct gpa_coll_ev *ev, uint32_t n, int late, uint64_t late_us, uint8_t by,
		 uint64_t end_off)
{
	for (uint32_t k = 0; k < 4; k++) {
		for (uint32_t r = 0; r < n; r++) {
			struct gpa_coll_ev *e = &ev[k * n + r];
			uint64_t t = U(1000) * k;
			*e = (struct gpa_coll_ev){.hash = 42, .seq = k + 1, .by = by, .gpu_end = true,
						  .func = "AllReduce", .bytes = 1024,
						  .arrival = t + ((int)r == late ? U(late_us) : U(10) * r),
						  .end = t + U(900) + end_off * r, .rank = r, .tag = k};
		}
	}
}

TEST(coll_match_straggler)
{
	struct gpa_coll_ev ev[16];
	struct gpa_coll_match x;

	fill(ev, 4, 1, 400, GPA_COLL_SEQ, 0);
	CHECK_EQ_I(gpa_coll_match(ev, 16, 4, &x), 0);
	CHECK_EQ_U(x.chk.groups, 4);
	CHECK_EQ_U(x.groups.n, 4);
	CHECK_EQ_U(x.straggler_ev, GPA_COLL_FOUND);
	CHECK_EQ_U(x.straggler, 1);
	/* rank 1 at 400 us, rank 3 before it at 30 us */
	CHECK_EQ_U(x.straggler_margin, U(370));
	CHECK_EQ_U(x.groups.v[0].skew, U(400));
	CHECK_EQ_U(x.ranks[1].last, 4);
	/* the others wait 400, 380, 370 us at each */
	CHECK_EQ_U(x.ranks[1].caused, 4 * U(400 + 380 + 370));
	CHECK_EQ_U(x.ranks[0].waited, 4 * U(400));
	CHECK_EQ_U(x.ranks[3].late_sum, 4 * U(30));
	CHECK_EQ_U(x.chk.ends_checked, 4);
	CHECK(!x.chk.clocks_disagree);
	gpa_coll_match_release(&x);
}

TEST(coll_match_even_spread_is_no_straggler)
{
	struct gpa_coll_ev ev[16];
	struct gpa_coll_match x;
	char why[256];

	fill(ev, 4, -1, 0, GPA_COLL_SEQ, 0);
	CHECK_EQ_I(gpa_coll_match(ev, 16, 4, &x), 0);
	CHECK_EQ_U(x.ranks[3].last, 4); /* last every time, 10 us ahead */
	CHECK_EQ_U(x.straggler_ev, GPA_COLL_NOTHING);
	CHECK_EQ_U(x.straggler, GPA_NONE);
	CHECK_STR(gpa_coll_why_unmatched(&x.chk, why, sizeof(why)), "");
	gpa_coll_match_release(&x);
}

TEST(coll_match_order_does_not_matter)
{
	struct gpa_coll_ev a[16], b[16];
	struct gpa_coll_match x, y;

	fill(a, 4, 2, 300, GPA_COLL_ORDER_COMM, U(5));
	for (size_t i = 0; i < 16; i++) {
		b[i] = a[(i * 7 + 3) % 16]; /* 7 is prime to 16: a permutation */
	}
	CHECK_EQ_I(gpa_coll_match(a, 16, 4, &x), 0);
	CHECK_EQ_I(gpa_coll_match(b, 16, 4, &y), 0);
	CHECK_EQ_U(x.groups.n, y.groups.n);
	CHECK_EQ_U(x.straggler, 2);
	CHECK_EQ_U(y.straggler, 2);
	CHECK_EQ_U(x.straggler_margin, y.straggler_margin);
	for (uint32_t r = 0; r < 4; r++) {
		CHECK(!memcmp(&x.ranks[r], &y.ranks[r], sizeof(x.ranks[r])));
	}
	for (size_t g = 0; g < x.groups.n; g++) {
		CHECK_EQ_U(x.groups.v[g].seq, y.groups.v[g].seq);
		CHECK_EQ_U(x.groups.v[g].end_spread, U(15));
	}
	gpa_coll_match_release(&x);
	gpa_coll_match_release(&y);
}

TEST(coll_match_order_checks_kind_and_size)
{
	struct gpa_coll_ev ev[16];
	struct gpa_coll_match x;
	char why[256];

	fill(ev, 4, 1, 400, GPA_COLL_ORDER_STREAM, 0);
	for (uint32_t k = 0; k < 4; k++) {
		ev[k * 4 + 3].func = "AllGather"; /* rank 3 is one collective off */
	}
	CHECK_EQ_I(gpa_coll_match(ev, 16, 4, &x), 0);
	CHECK_EQ_U(x.chk.groups, 0);
	CHECK_EQ_U(x.chk.mismatched, 4);
	CHECK_EQ_U(x.straggler_ev, GPA_COLL_NONE);
	CHECK_CONTAINS(gpa_coll_why_unmatched(&x.chk, why, sizeof(why)), "differ in kind or size");
	gpa_coll_match_release(&x);
	/* a size that differs refuses its own group only */
	fill(ev, 2, 1, 400, GPA_COLL_ORDER_COMM, 0);
	ev[1].bytes = 2048;
	CHECK_EQ_I(gpa_coll_match(ev, 8, 2, &x), 0);
	CHECK_EQ_U(x.chk.groups, 3);
	CHECK_EQ_U(x.chk.mismatched, 1);
	gpa_coll_match_release(&x);
}

TEST(coll_match_streams_by_place)
{
	struct gpa_coll_ev ev[8];
	struct gpa_coll_match x;

	fill(ev, 2, 1, 400, GPA_COLL_ORDER_STREAM, 0);
	for (size_t i = 0; i < 8; i++) { /* rank 0's NCCL stream is 7, rank 1's 15: both the first */
		ev[i].hash = (uint64_t)1 << 32 | (ev[i].rank ? 15 : 7);
	}
	CHECK_EQ_I(gpa_coll_match(ev, 8, 2, &x), 0);
	CHECK_EQ_U(x.chk.groups, 4);
	CHECK_EQ_U(x.straggler, 1);
	CHECK_EQ_U(gpa_coll_stream_place(x.groups.v[0].hash), 1);
	CHECK_EQ_U(gpa_coll_stream_id(x.groups.v[0].hash), 15); /* the last rank's */
	gpa_coll_match_release(&x);
	ev[0].hash = (uint64_t)2 << 32 | 7; /* a second stream of rank 0: its own key */
	CHECK_EQ_I(gpa_coll_match(ev, 8, 2, &x), 0);
	CHECK_EQ_U(x.chk.groups, 3);
	CHECK_EQ_U(x.chk.unmatched, 2);
	gpa_coll_match_release(&x);
}

TEST(coll_match_clocks_disagree)
{
	struct gpa_coll_ev ev[16];
	struct gpa_coll_match x;
	char why[512];

	fill(ev, 4, 1, 400, GPA_COLL_SEQ, U(5000)); /* rank r's ends 5 ms * r late */
	CHECK_EQ_I(gpa_coll_match(ev, 16, 4, &x), 0);
	CHECK_EQ_U(x.chk.ends_checked, 4);
	CHECK_EQ_U(x.chk.ends_far, 4);
	CHECK_EQ_U(x.chk.end_spread_median, U(15000));
	CHECK(x.chk.clocks_disagree);
	CHECK_EQ_U(x.chk.groups, 0);
	CHECK_EQ_U(x.straggler_ev, GPA_COLL_NONE);
	CHECK_CONTAINS(gpa_coll_why_unmatched(&x.chk, why, sizeof(why)),
		       "the clocks disagree: 4 of 4 collectives matched by sequence number");
	gpa_coll_match_release(&x);
	/* one rank alone: nothing to judge, said so */
	fill(ev, 1, -1, 0, GPA_COLL_SEQ, 0);
	CHECK_EQ_I(gpa_coll_match(ev, 4, 1, &x), 0);
	CHECK_STR(gpa_coll_why_unmatched(&x.chk, why, sizeof(why)),
		  "fewer than two ranks were analysed");
	gpa_coll_match_release(&x);
}
