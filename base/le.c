/* SPDX-License-Identifier: MIT */
/*
 * le.c - little-endian records (le.h).
 */
#include "base/compat.h"
#include "base/le.h"

#include <stdlib.h>
#include <string.h>

void gp_le_put(struct gp_strbuf *o, uint64_t v, unsigned bytes)
{
	unsigned char b[8];

	for (unsigned i = 0; i < bytes && i < 8; i++) {
		b[i] = (unsigned char)(v >> (8 * i));
	}
	gp_strbuf_add(o, b, bytes < 8 ? bytes : 8);
}

void gp_le_put_str(struct gp_strbuf *o, const char *s)
{
	size_t n = strlen(s);

	gp_le_put(o, n, 4);
	gp_strbuf_add(o, s, n);
}

void gp_le_put_f64(struct gp_strbuf *o, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	gp_le_put(o, u, 8);
}

uint64_t gp_le_get(struct gp_le_rd *r, unsigned bytes)
{
	uint64_t v = 0;

	if (bytes > 8) {
		bytes = 8;
	}
	if (r->bad || gp_le_left(r) < bytes) {
		gp_le_fail(r, "ends early");
		return 0;
	}
	for (unsigned i = 0; i < bytes; i++) {
		v |= (uint64_t)r->p[i] << (8 * i);
	}
	r->p += bytes;
	return v;
}

double gp_le_get_f64(struct gp_le_rd *r)
{
	uint64_t u = gp_le_get(r, 8);
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

bool gp_le_fits(struct gp_le_rd *r, uint64_t n, size_t min)
{
	if (!r->bad && n > (uint64_t)gp_le_left(r) / (min ? min : 1)) {
		r->bad = "count larger than the record";
	}
	return !r->bad;
}

char *gp_le_get_str(struct gp_le_rd *r)
{
	uint64_t n = gp_le_get(r, 4);
	char *s;

	if (!gp_le_fits(r, n, 1)) {
		return NULL;
	}
	if (memchr(r->p, 0, n)) {
		r->bad = "string holds a NUL byte";
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		r->bad = "out of memory";
		return NULL;
	}
	memcpy(s, r->p, n);
	s[n] = 0;
	r->p += n;
	return s;
}
