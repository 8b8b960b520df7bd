/* SPDX-License-Identifier: MIT */
/*
 * le.h - little-endian records: the byte formats processes exchange (diff
 * --mpi, report --mpi, critical-path --mpi). Integers of 1 to 8 bytes, least
 * significant byte first; a string is its length as 4 bytes, then its bytes
 * (no NUL); a double is its IEEE bits as 8 bytes.
 *
 * Writing appends to a gp_strbuf (its `failed` says when memory ran out).
 * Reading goes through a struct gp_le_rd: every read checks what is left, and
 * the first problem stays in `bad` (a static phrase, NULL while all is well);
 * once bad, reads return 0 or NULL and move nothing, so a reader checks once,
 * at the end of a record.
 */
#ifndef GP_LE_H
#define GP_LE_H

#include "base/compat.h"
#include "base/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* v's low `bytes` bytes (1 to 8), least significant first. */
void gp_le_put(struct gp_strbuf *o, uint64_t v, unsigned bytes);
/* strlen(s) as 4 bytes, then the bytes of s. */
void gp_le_put_str(struct gp_strbuf *o, const char *s);
void gp_le_put_f64(struct gp_strbuf *o, double v);

struct gp_le_rd {
	const unsigned char *p, *end;
	const char *bad; /* the first problem, or NULL */
};

/* A reader of the n bytes at buf. */
static inline struct gp_le_rd gp_le_rd_init(const void *buf, size_t n)
{
	return (struct gp_le_rd){.p = buf, .end = (const unsigned char *)buf + n};
}

/* Bytes left to read. */
static inline size_t gp_le_left(const struct gp_le_rd *r)
{
	return (size_t)(r->end - r->p);
}

/* Notes why as the problem unless one was noted before. */
static inline void gp_le_fail(struct gp_le_rd *r, const char *why)
{
	if (!r->bad) {
		r->bad = why;
	}
}

/* The next `bytes` bytes (1 to 8) as an integer; 0 and "ends early" when fewer are left. */
uint64_t gp_le_get(struct gp_le_rd *r, unsigned bytes);
double gp_le_get_f64(struct gp_le_rd *r);
/* Whether n items of at least min (> 0) bytes each can be left; "count larger than the
 * record" when not. */
bool gp_le_fits(struct gp_le_rd *r, uint64_t n, size_t min);
/* A string, copied and NUL-terminated (the caller frees it); NULL when bad, when the
 * length runs past the end, when out of memory or when it holds a NUL byte. */
char *gp_le_get_str(struct gp_le_rd *r);

#endif
