/* SPDX-License-Identifier: MIT */
/*
 * hashmap.c - struct gp_u64map (base.h): what is not inline there, growth
 * above all.
 */
#include "base/compat.h"
#include "base/base.h"

#define MIN_SLOTS 16u

void gp_u64map_init(struct gp_u64map *m)
{
	*m = (struct gp_u64map)GP_U64MAP_INIT;
}

void gp_u64map_release(struct gp_u64map *m)
{
	free(m->slots);
	gp_u64map_init(m);
}

void gp_u64map_clear(struct gp_u64map *m)
{
	if (m->cap) {
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	}
	m->n = 0;
	m->has_zero = false;
	m->zero_val = 0;
}

size_t gp_u64map_bytes(const struct gp_u64map *m)
{
	return m->cap * sizeof(*m->slots);
}

/* Moves the keys into a table of cap slots (a power of two, more than twice the keys). */
static int rehash(struct gp_u64map *m, size_t cap)
{
	struct gp_u64map_slot *old = m->slots;
	size_t old_cap = m->cap;
	size_t bytes;

	if (gp_mul_overflow_size(cap, sizeof(*m->slots), &bytes)) {
		return -GP_ERR_NOMEM;
	}
	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -GP_ERR_NOMEM;
	}
	/*
	 * The keys land all over the new table: map its pages in at once
	 * rather than one fault at a time (see gp_prefault).
	 */
	gp_prefault(m->slots, bytes);
	m->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (old[i].key) {
			*gp_u64map_slot_(m, old[i].key) = old[i];
		}
	}
	free(old);
	return 0;
}

int gp_u64map_reserve(struct gp_u64map *m, size_t n)
{
	size_t want, cap = m->cap ? m->cap : MIN_SLOTS;

	/* At most half the slots used. */
	if (gp_mul_overflow_size(n, 2, &want)) {
		return -GP_ERR_NOMEM;
	}
	while (cap < want) {
		if (gp_mul_overflow_size(cap, 2, &cap)) {
			return -GP_ERR_NOMEM;
		}
	}
	return cap == m->cap ? 0 : rehash(m, cap);
}

int gp_u64map_get_or_insert_slow_(struct gp_u64map *m, uint64_t key, uint64_t val,
				  uint64_t **valp)
{
	struct gp_u64map_slot *s;
	int added = 0;

	if (key == 0) {
		if (!m->has_zero) {
			m->has_zero = true;
			m->zero_val = val;
			added = 1;
		}
		if (valp) {
			*valp = &m->zero_val;
		}
		return added;
	}
	/* Grow only for a key that is not there yet. */
	if (!m->cap || !gp_u64map_slot_(m, key)->key) {
		int ret = gp_u64map_reserve(m, m->n + 1);
		if (ret) {
			return ret;
		}
	}
	s = gp_u64map_slot_(m, key);
	if (!s->key) {
		s->key = key;
		s->val = val;
		m->n++;
		added = 1;
	}
	if (valp) {
		*valp = &s->val;
	}
	return added;
}

bool gp_u64map_next(const struct gp_u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	/* *pos: 0 before the key 0; then 1 + the next slot to look at. */
	if (*pos == 0) {
		*pos = 1;
		if (m->has_zero) {
			*key = 0;
			*val = m->zero_val;
			return true;
		}
	}
	for (size_t i = *pos - 1; i < m->cap; i++) {
		if (m->slots[i].key) {
			*key = m->slots[i].key;
			*val = m->slots[i].val;
			*pos = i + 2;
			return true;
		}
	}
	*pos = m->cap + 1;
	return false;
}
