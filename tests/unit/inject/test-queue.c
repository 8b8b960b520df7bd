/* SPDX-License-Identifier: MIT */
/*
 * test-queue.c - the bounded lock-free queue of inject/queue.h: order, a full
 * queue dropping and counting, the wake-up past half full, laps of the ring,
 * four producers against one consumer, and a forked child's reset.
 */
#include "base/compat.h"
#include "inject/queue.h"
#include "tests/unit/test.h"

#include <pthread.h>
#include <string.h>

struct ent {
	uint32_t who;
	uint32_t pad;
	uint64_t n;
	char tag[8];
};

TEST(queue_order_full_and_dropped)
{
	static _Atomic uint64_t seq[8];
	static struct ent ev[8];
	static struct gpi_queue_ends ends;
	static const struct gpi_queue q = GPI_QUEUE_INIT(seq, ev, &ends);
	struct ent e = {0};

	CHECK_EQ_U(q.cap, 8);
	CHECK_EQ_U(q.size, sizeof(struct ent));
	CHECK(!gpi_queue_has_data(&q));
	CHECK(!gpi_queue_pop(&q, &e));
	for (uint64_t i = 0; i < 8; i++) {
		e.n = i;
		snprintf(e.tag, sizeof(e.tag), "e%u", (unsigned)i);
		CHECK_EQ_U(gpi_queue_push(&q, &e), GPI_QUEUE_PUSHED);
	}
	e.n = 99;
	CHECK_EQ_U(gpi_queue_push(&q, &e), GPI_QUEUE_FULL);
	gpi_queue_drop(&q);
	CHECK(gpi_queue_has_data(&q));
	for (uint64_t i = 0; i < 8; i++) {
		char want[8];
		memset(&e, 0, sizeof(e));
		CHECK(gpi_queue_pop(&q, &e));
		CHECK_EQ_U(e.n, i);
		snprintf(want, sizeof(want), "e%u", (unsigned)i);
		CHECK_STR(e.tag, want);
	}
	CHECK(!gpi_queue_pop(&q, &e));
	CHECK(!gpi_queue_has_data(&q));
	CHECK_EQ_U(gpi_queue_take_dropped(&q), 2);
	CHECK_EQ_U(gpi_queue_take_dropped(&q), 0);
}

TEST(queue_laps_of_the_ring)
{
	static _Atomic uint64_t seq[4];
	static struct ent ev[4];
	static struct gpi_queue_ends ends;
	static const struct gpi_queue q = GPI_QUEUE_INIT(seq, ev, &ends);
	struct ent e = {0};
	uint64_t next = 0, want = 0;

	/* 3 in, 2 out, a thousand times: the ring goes round, FIFO and never full */
	for (int lap = 0; lap < 1000; lap++) {
		for (int k = 0; k < 3 && next - want < 4; k++) {
			e.n = next++;
			CHECK_EQ_U(gpi_queue_push(&q, &e), GPI_QUEUE_PUSHED);
		}
		for (int k = 0; k < 2 && gpi_queue_pop(&q, &e); k++) {
			CHECK_EQ_U(e.n, want);
			want++;
		}
	}
	while (gpi_queue_pop(&q, &e)) {
		CHECK_EQ_U(e.n, want);
		want++;
	}
	CHECK_EQ_U(want, next);
	CHECK(next > 2000);
	CHECK_EQ_U(gpi_queue_take_dropped(&q), 0);
}

TEST(queue_wakes_past_half_full)
{
	static _Atomic uint64_t seq[2048];
	static uint64_t ev[2048];
	static struct gpi_queue_ends ends;
	static const struct gpi_queue q = GPI_QUEUE_INIT(seq, ev, &ends);
	uint64_t wakes[4], nw = 0;

	/* positions 0, 512, 1024 are not past half of 2048 entries; 1536 is */
	for (uint64_t i = 0; i < 2048; i++) {
		enum gpi_queue_push r = gpi_queue_push(&q, &i);
		CHECK(r != GPI_QUEUE_FULL);
		if (r == GPI_QUEUE_WAKE && nw < 4) {
			wakes[nw++] = i;
		}
	}
	CHECK_EQ_U(nw, 1);
	CHECK_EQ_U(wakes[0], 1536);
}

struct mt {
	const struct gpi_queue *q;
	uint32_t who;
	uint64_t pushed;
	_Atomic int *done;
};

#define MT_EACH 200000

static void *producer(void *arg)
{
	struct mt *m = arg;
	struct ent e = {.who = m->who};

	for (uint64_t i = 0; i < MT_EACH; i++) {
		e.n = i;
		if (gpi_queue_push(m->q, &e) != GPI_QUEUE_FULL) {
			m->pushed++;
		}
	}
	atomic_fetch_add(m->done, 1);
	return NULL;
}

TEST(queue_four_producers_one_consumer)
{
	static _Atomic uint64_t seq[256];
	static struct ent ev[256];
	static struct gpi_queue_ends ends;
	static const struct gpi_queue q = GPI_QUEUE_INIT(seq, ev, &ends);
	_Atomic int done = 0;
	struct mt m[4];
	pthread_t th[4];
	uint64_t next[4] = {0}, got[4] = {0}, popped = 0, pushed = 0;
	bool order = true;
	struct ent e;

	for (uint32_t k = 0; k < 4; k++) {
		m[k] = (struct mt){.q = &q, .who = k, .done = &done};
		REQUIRE(pthread_create(&th[k], NULL, producer, &m[k]) == 0);
	}
	/* each producer's entries come out in its order, each once */
	for (;;) {
		bool last = atomic_load(&done) == 4;
		while (gpi_queue_pop(&q, &e)) {
			REQUIRE(e.who < 4);
			order &= e.n >= next[e.who];
			next[e.who] = e.n + 1;
			got[e.who]++;
			popped++;
		}
		if (last) {
			break;
		}
	}
	for (int k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		CHECK_EQ_U(got[k], m[k].pushed);
		pushed += m[k].pushed;
	}
	CHECK(order);
	CHECK_EQ_U(popped, pushed);
	CHECK_EQ_U(pushed + gpi_queue_take_dropped(&q), 4 * MT_EACH);
	CHECK(!gpi_queue_has_data(&q));
}

TEST(queue_atfork_child_forgets)
{
	static _Atomic uint64_t seq[16];
	static uint64_t ev[16];
	static struct gpi_queue_ends ends;
	static const struct gpi_queue q = GPI_QUEUE_INIT(seq, ev, &ends);
	uint64_t v = 7;

	for (int i = 0; i < 20; i++) {
		gpi_queue_push(&q, &v);
	}
	gpi_queue_atfork_child(&q);
	CHECK(!gpi_queue_has_data(&q));
	CHECK_EQ_U(gpi_queue_take_dropped(&q), 0);
	/* a push the parent's thread had claimed but not published: the ring starts afresh */
	atomic_fetch_add(&ends.tail, 1);
	gpi_queue_atfork_child(&q);
	CHECK_EQ_U(atomic_load(&ends.tail), 0);
	CHECK_EQ_U(atomic_load(&ends.head), 0);
	v = 42;
	CHECK_EQ_U(gpi_queue_push(&q, &v), GPI_QUEUE_PUSHED);
	v = 0;
	CHECK(gpi_queue_pop(&q, &v));
	CHECK_EQ_U(v, 42);
	CHECK(!gpi_queue_pop(&q, &v));
}
