/* SPDX-License-Identifier: MIT */
/*
 * test-hashmap.c - struct gp_u64map: the empty map, colliding keys, the
 * keys 0 and UINT64_MAX, growth with many keys against a reference, clear,
 * reserve, and walking the keys.
 */
#include "base/compat.h"
#include "base/base.h"
#include "tests/unit/test.h"

#define MISSING 0xdeadbeefull

/* Key i of a run: distinct for distinct i (gp_hash_u64 is a bijection), never 0 for i > 0. */
static uint64_t key_of(uint64_t i)
{
	return gp_hash_u64(i);
}

/* The inverse of a multiplication by odd c mod 2^64 (Newton's iteration). */
static uint64_t mul_inverse(uint64_t c)
{
	uint64_t x = c; /* right in the low 3 bits; each step doubles them */

	for (int i = 0; i < 5; i++) {
		x *= 2 - c * x;
	}
	return x;
}

/* i from key_of(i): the steps of gp_hash_u64 undone in reverse (x ^= x >> 33 undoes itself). */
static uint64_t index_of(uint64_t k)
{
	k ^= k >> 33;
	k *= mul_inverse(0xc4ceb9fe1a85ec53ULL);
	k ^= k >> 33;
	k *= mul_inverse(0xff51afd7ed558ccdULL);
	k ^= k >> 33;
	return k;
}

TEST(u64map_empty)
{
	struct gp_u64map zeroed;
	struct gp_u64map m = GP_U64MAP_INIT;
	uint64_t k, v;
	size_t pos = 0;

	memset(&zeroed, 0, sizeof(zeroed));
	CHECK(gp_u64map_find(&zeroed, 1) == NULL);
	CHECK(gp_u64map_find(&zeroed, 0) == NULL);
	CHECK_EQ_U(gp_u64map_get(&zeroed, 7, MISSING), MISSING);
	CHECK_EQ_U(gp_u64map_count(&zeroed), 0);
	CHECK(!gp_u64map_next(&zeroed, &pos, &k, &v));
	CHECK_EQ_U(gp_u64map_bytes(&m), 0);
	gp_u64map_clear(&m);
	gp_u64map_release(&m);
	gp_u64map_release(&m); /* twice is fine */
	CHECK(m.slots == NULL);
	gp_u64map_init(&m);
	CHECK(gp_u64map_find(&m, UINT64_MAX) == NULL);
	CHECK_EQ_U(gp_u64map_count(&m), 0);
}

TEST(u64map_put_get_or_insert)
{
	struct gp_u64map m = GP_U64MAP_INIT;
	uint64_t *v = NULL;

	CHECK_EQ_I(gp_u64map_put(&m, 42, 1), 1);
	CHECK_EQ_I(gp_u64map_put(&m, 42, 2), 0); /* replaced */
	CHECK_EQ_U(gp_u64map_get(&m, 42, MISSING), 2);
	CHECK_EQ_U(gp_u64map_count(&m), 1);

	/* get-or-insert keeps an existing value and says so */
	CHECK_EQ_I(gp_u64map_get_or_insert(&m, 42, 9, &v), 0);
	REQUIRE(v != NULL);
	CHECK_EQ_U(*v, 2);
	*v = 3; /* the pointer is the value */
	CHECK_EQ_U(gp_u64map_get(&m, 42, MISSING), 3);
	CHECK_EQ_I(gp_u64map_get_or_insert(&m, 43, 9, &v), 1);
	CHECK_EQ_U(*v, 9);
	CHECK_EQ_I(gp_u64map_get_or_insert(&m, 44, 10, NULL), 1);
	CHECK_EQ_U(gp_u64map_count(&m), 3);

	v = gp_u64map_find(&m, 43);
	REQUIRE(v != NULL);
	(*v)++;
	CHECK_EQ_U(gp_u64map_get(&m, 43, MISSING), 10);
	CHECK(gp_u64map_find(&m, 45) == NULL);
	CHECK_EQ_U(gp_u64map_get(&m, 45, MISSING), MISSING);
	gp_u64map_release(&m);
	CHECK_EQ_U(gp_u64map_count(&m), 0);
	CHECK(gp_u64map_find(&m, 42) == NULL);
}

/* 0 is the empty-slot marker inside: as a key it must work like any other, as must ~0. */
TEST(u64map_special_keys)
{
	struct gp_u64map m = GP_U64MAP_INIT;
	uint64_t *v = NULL;
	uint64_t k, val;
	size_t pos = 0;
	int seen0 = 0, seenmax = 0;

	CHECK_EQ_I(gp_u64map_get_or_insert(&m, 0, 5, &v), 1);
	REQUIRE(v != NULL);
	CHECK_EQ_U(*v, 5);
	CHECK_EQ_U(gp_u64map_count(&m), 1);
	CHECK_EQ_U(gp_u64map_get(&m, 0, MISSING), 5);
	CHECK_EQ_I(gp_u64map_get_or_insert(&m, 0, 6, &v), 0);
	CHECK_EQ_U(*v, 5);
	CHECK_EQ_I(gp_u64map_put(&m, 0, 0), 0);
	CHECK_EQ_U(gp_u64map_get(&m, 0, MISSING), 0); /* value 0 is a value */
	CHECK(gp_u64map_find(&m, 0) != NULL);

	CHECK_EQ_I(gp_u64map_put(&m, UINT64_MAX, UINT64_MAX), 1);
	CHECK_EQ_U(gp_u64map_get(&m, UINT64_MAX, MISSING), UINT64_MAX);
	CHECK_EQ_U(gp_u64map_count(&m), 2);
	/* many more keys: both survive growth */
	for (uint64_t i = 1; i <= 1000; i++) {
		REQUIRE(gp_u64map_put(&m, i, i * 3) == 1);
	}
	CHECK_EQ_U(gp_u64map_count(&m), 1002);
	CHECK_EQ_U(gp_u64map_get(&m, 0, MISSING), 0);
	CHECK_EQ_U(gp_u64map_get(&m, UINT64_MAX, MISSING), UINT64_MAX);
	while (gp_u64map_next(&m, &pos, &k, &val)) {
		seen0 += k == 0;
		seenmax += k == UINT64_MAX;
	}
	CHECK_EQ_I(seen0, 1);
	CHECK_EQ_I(seenmax, 1);
	gp_u64map_clear(&m);
	CHECK(gp_u64map_find(&m, 0) == NULL);
	CHECK_EQ_U(gp_u64map_get(&m, UINT64_MAX, MISSING), MISSING);
	gp_u64map_release(&m);
}

/* Keys that all want the same slot, and some that want the last one (probes wrap around). */
TEST(u64map_collisions)
{
	struct gp_u64map m = GP_U64MAP_INIT;
	uint64_t same[24], last[8];
	unsigned nsame = 0, nlast = 0;

	REQUIRE(gp_u64map_reserve(&m, 32) == 0);
	size_t cap = m.cap;
	REQUIRE(cap >= 64);
	const struct gp_u64map_slot *slots = m.slots;
	for (uint64_t k = 1; nsame < GP_ARRAY_SIZE(same) || nlast < GP_ARRAY_SIZE(last); k++) {
		size_t h = (size_t)gp_hash_u64(k) & (cap - 1);
		if (h == 5 && nsame < GP_ARRAY_SIZE(same)) {
			same[nsame++] = k;
		} else if (h == cap - 1 && nlast < GP_ARRAY_SIZE(last)) {
			last[nlast++] = k;
		}
	}
	/* 24 + 8 = 32 keys: the reserved room, so no growth changes the collisions */
	for (unsigned i = 0; i < nsame; i++) {
		REQUIRE(gp_u64map_put(&m, same[i], i) == 1);
	}
	for (unsigned i = 0; i < nlast; i++) {
		REQUIRE(gp_u64map_put(&m, last[i], 100 + i) == 1);
	}
	CHECK(m.slots == slots);
	CHECK_EQ_U(m.cap, cap);
	for (unsigned i = 0; i < nsame; i++) {
		CHECK_EQ_U(gp_u64map_get(&m, same[i], MISSING), i);
	}
	for (unsigned i = 0; i < nlast; i++) {
		CHECK_EQ_U(gp_u64map_get(&m, last[i], MISSING), 100 + i);
	}
	CHECK_EQ_U(gp_u64map_count(&m), 32);
	/* an absent key on the same crowded chain */
	for (uint64_t k = same[nsame - 1] + 1;; k++) {
		if (((size_t)gp_hash_u64(k) & (cap - 1)) == 5) {
			CHECK(gp_u64map_find(&m, k) == NULL);
			break;
		}
	}
	/* then growth rehashes them all */
	for (uint64_t i = 1; i <= 1000; i++) {
		REQUIRE(gp_u64map_put(&m, key_of(1u << 20 | i), i) == 1);
	}
	CHECK(m.cap > cap);
	for (unsigned i = 0; i < nsame; i++) {
		CHECK_EQ_U(gp_u64map_get(&m, same[i], MISSING), i);
	}
	for (unsigned i = 0; i < nlast; i++) {
		CHECK_EQ_U(gp_u64map_get(&m, last[i], MISSING), 100 + i);
	}
	gp_u64map_release(&m);
}

/*
 * Many keys against a reference: val[i] for key_of(i), some keys put twice
 * and some only looked up. Growth must keep the load at most one half.
 */
TEST(u64map_many_keys)
{
	enum { N = 200000 };
	struct gp_u64map m = GP_U64MAP_INIT;
	uint64_t *ref = calloc(N, sizeof(*ref));
	bool *in = calloc(N, sizeof(*in));
	struct gp_rng rng;
	size_t present = 0, grows = 0, last_cap = 0;

	REQUIRE(ref && in);
	REQUIRE(index_of(key_of(12345)) == 12345);
	gp_rng_seed(&rng, 17);
	for (size_t step = 0; step < 3 * (size_t)N; step++) {
		uint64_t i = gp_rng_below(&rng, N);
		uint64_t v = gp_rng_next(&rng);
		if (gp_rng_below(&rng, 4) == 0) {
			/* get-or-insert: an existing value stays */
			uint64_t *p = NULL;
			int r = gp_u64map_get_or_insert(&m, key_of(i), v, &p);
			REQUIRE(r >= 0 && p != NULL);
			if (r != !in[i]) {
				TFAIL("key %" PRIu64 ": get_or_insert says %d", i, r);
				break;
			}
			if (!in[i]) {
				ref[i] = v;
				in[i] = true;
				present++;
			}
			if (*p != ref[i]) {
				TFAIL("key %" PRIu64 ": value %" PRIu64 " not %" PRIu64, i, *p, ref[i]);
				break;
			}
		} else {
			int r = gp_u64map_put(&m, key_of(i), v);
			REQUIRE(r >= 0);
			if (r != !in[i]) {
				TFAIL("key %" PRIu64 ": put says %d", i, r);
				break;
			}
			present += !in[i];
			in[i] = true;
			ref[i] = v;
		}
		if (m.cap != last_cap) {
			grows++;
			last_cap = m.cap;
		}
		if (m.n * 2 > m.cap) {
			TFAIL("load above one half: %zu keys in %zu slots", m.n, m.cap);
			break;
		}
	}
	CHECK_EQ_U(gp_u64map_count(&m), present);
	CHECK(grows <= 20);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t got = gp_u64map_get(&m, key_of(i), MISSING);
		if (in[i] ? got != ref[i] : gp_u64map_find(&m, key_of(i)) != NULL) {
			TFAIL("key %" PRIu64 ": got %" PRIu64 ", in %d", i, got, in[i]);
			break;
		}
	}
	for (uint64_t i = N; i < 2 * (uint64_t)N; i++) {
		if (gp_u64map_find(&m, key_of(i))) {
			TFAIL("never-added key %" PRIu64 " found", i);
			break;
		}
	}
	/* the walk sees every key once, with its value */
	size_t pos = 0, walked = 0;
	uint64_t k, v;
	while (gp_u64map_next(&m, &pos, &k, &v)) {
		uint64_t i = index_of(k);
		if (i >= N || !in[i] || ref[i] != v) {
			TFAIL("walk: key %" PRIu64 " (i %" PRIu64 ") value %" PRIu64, k, i, v);
			break;
		}
		in[i] = false; /* seen */
		walked++;
	}
	CHECK_EQ_U(walked, present);
	CHECK(!gp_u64map_next(&m, &pos, &k, &v)); /* stays at the end */
	CHECK_EQ_U(gp_u64map_bytes(&m), m.cap * sizeof(struct gp_u64map_slot));
	gp_u64map_release(&m);
	free(ref);
	free(in);
}

TEST(u64map_clear_and_reuse)
{
	struct gp_u64map m = GP_U64MAP_INIT;

	for (uint64_t i = 0; i < 5000; i++) {
		REQUIRE(gp_u64map_put(&m, i, i + 1) == 1);
	}
	size_t cap = m.cap;
	const struct gp_u64map_slot *slots = m.slots;
	gp_u64map_clear(&m);
	CHECK_EQ_U(gp_u64map_count(&m), 0);
	CHECK_EQ_U(m.cap, cap);
	for (uint64_t i = 0; i < 5000; i++) {
		if (gp_u64map_find(&m, i)) {
			TFAIL("key %" PRIu64 " found after clear", i);
			break;
		}
	}
	size_t pos = 0;
	uint64_t k, v;
	CHECK(!gp_u64map_next(&m, &pos, &k, &v));
	/* the same number of keys again: no new memory */
	for (uint64_t i = 0; i < 5000; i++) {
		REQUIRE(gp_u64map_put(&m, i * 7, i) == 1);
	}
	CHECK(m.slots == slots);
	CHECK_EQ_U(gp_u64map_get(&m, 7 * 4999, MISSING), 4999);
	CHECK_EQ_U(gp_u64map_get(&m, 1, MISSING), MISSING);
	gp_u64map_release(&m);
}

TEST(u64map_reserve)
{
	struct gp_u64map m = GP_U64MAP_INIT;

	CHECK_EQ_I(gp_u64map_reserve(&m, 0), 0);
	CHECK_EQ_U(m.cap, 16);
	CHECK_EQ_I(gp_u64map_reserve(&m, 1000), 0);
	CHECK(m.cap >= 2000);
	size_t cap = m.cap;
	const struct gp_u64map_slot *slots = m.slots;
	for (uint64_t i = 1; i <= 1000; i++) {
		REQUIRE(gp_u64map_put(&m, key_of(i), i) == 1);
	}
	CHECK(m.slots == slots);
	CHECK_EQ_U(m.cap, cap);
	/* reserving less never shrinks */
	CHECK_EQ_I(gp_u64map_reserve(&m, 10), 0);
	CHECK_EQ_U(m.cap, cap);
	/* sizes that overflow fail cleanly, the map unchanged */
	CHECK_EQ_I(gp_u64map_reserve(&m, SIZE_MAX), -GP_ERR_NOMEM);
	CHECK_EQ_I(gp_u64map_reserve(&m, SIZE_MAX / 2 + 1), -GP_ERR_NOMEM);
	CHECK_EQ_I(gp_u64map_reserve(&m, SIZE_MAX / 4), -GP_ERR_NOMEM); /* bytes overflow */
	CHECK(m.slots == slots);
	CHECK_EQ_U(m.cap, cap);
	CHECK_EQ_U(gp_u64map_count(&m), 1000);
	CHECK_EQ_U(gp_u64map_get(&m, key_of(500), MISSING), 500);
	/* a present key at the load limit does not grow the map */
	while ((m.n + 1) * 2 <= m.cap) {
		REQUIRE(gp_u64map_put(&m, key_of(m.n + 1), 0) == 1);
	}
	CHECK_EQ_I(gp_u64map_put(&m, key_of(1), 11), 0);
	CHECK_EQ_U(m.cap, cap);
	CHECK_EQ_I(gp_u64map_put(&m, key_of(m.n + 1), 0), 1);
	CHECK_EQ_U(m.cap, 2 * cap);
	gp_u64map_release(&m);
}

/* The same calls give the same walk (output that depends on it stays deterministic). */
TEST(u64map_walk_order)
{
	struct gp_u64map a = GP_U64MAP_INIT, b = GP_U64MAP_INIT;
	size_t pa = 0, pb = 0;
	uint64_t ka, va, kb, vb;

	for (uint64_t i = 0; i < 3000; i++) {
		REQUIRE(gp_u64map_put(&a, i * 13, i) >= 0);
		REQUIRE(gp_u64map_put(&b, i * 13, i) >= 0);
	}
	for (;;) {
		bool more_a = gp_u64map_next(&a, &pa, &ka, &va);
		bool more_b = gp_u64map_next(&b, &pb, &kb, &vb);
		REQUIRE(more_a == more_b);
		if (!more_a) {
			break;
		}
		if (ka != kb || va != vb) {
			TFAIL("walks differ: %" PRIu64 " vs %" PRIu64, ka, kb);
			break;
		}
	}
	gp_u64map_release(&a);
	gp_u64map_release(&b);
}
