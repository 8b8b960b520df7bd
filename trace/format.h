/* SPDX-License-Identifier: MIT */
/*
 * format.h - private to trace/: byte layout constants and the column codec
 * shared by the writer and the reader. See FORMAT.md.
 */
#ifndef GPT_FORMAT_H
#define GPT_FORMAT_H

#include "trace/trace.h"

#define GPT_FILE_MAGIC "\x89GPZ\r\n\x1a\n"
#define GPT_FILE_HEADER_SIZE 32
#define GPT_FILE_HEADER_MAX 4096
#define GPT_CHUNK_MAGIC 0x435a5047u /* "GPZC" little-endian */
#define GPT_CHUNK_HEADER_SIZE 48
#define GPT_CHUNK_FLAG_DEFLATE 0x1u
#define GPT_CHUNK_FLAGS_KNOWN GPT_CHUNK_FLAG_DEFLATE
#define GPT_TRAILER_MAGIC "GPZ-END\n"
#define GPT_TRAILER_SIZE 24
/* Format 2.x: the chunk kind holding a whole small file's chunks (FORMAT.md 12.3). */
#define GPT_KIND_PACKED 126

struct gpt_chunk_header {
	uint16_t kind;
	uint16_t flags;
	uint32_t count;
	uint32_t raw_len;
	uint32_t stored_len;
	uint32_t raw_crc;
	uint64_t first_ts;
	uint64_t last_ts;
};

void gpt_chunk_header_pack(const struct gpt_chunk_header *h, uint8_t out[GPT_CHUNK_HEADER_SIZE]);
/*
 * Returns 0, or a negative error with the reason (bad magic, bad header crc)
 * in errbuf; errbuf may be NULL when errlen is 0.
 */
int gpt_chunk_header_unpack(const uint8_t in[GPT_CHUNK_HEADER_SIZE], struct gpt_chunk_header *h,
			    char *errbuf, size_t errlen);

/* The footer index: one entry per chunk written. */
#define GPT_INDEX_FIELDS(X)                                                                        \
	X(1, u64, offset, DELTA, 0)                                                                \
	X(2, u32, kind, VARINT, 0)                                                                 \
	X(3, u32, count, VARINT, 0)                                                                \
	X(4, u64, first_ts, DELTA, 0)                                                              \
	X(5, u64, last_ts, REL, 4)
struct gpt_index_entry {
	GPT_INDEX_FIELDS(GPT_STRUCT_MEMBER_)
};
extern const struct gpt_kind_info gpt_index_info;

/* ---- varints */

static inline size_t gpt_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Decodes one varint from [*pp, end); returns false on a cut or overlong one. */
static inline bool gpt_get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= end) {
			return false;
		}
		uint8_t b = *p++;
		if (shift == 63 && b > 1) {
			return false;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return true;
		}
	}
	return false;
}

static inline uint64_t gpt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t gpt_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- column codec (codec.c) */

/*
 * Encodes count records of kind ki (an array of structs) as the columnar
 * payload described in FORMAT.md, appending to out. tmp is scratch space of
 * at least 3 * count uint64_t values. With scaled, a column whose residuals
 * share a factor >= 2 is scaled (format 2.x). On failure out is as it was.
 */
int gpt_encode_records_ex(const struct gpt_kind_info *ki, const void *recs, uint32_t count,
			  uint64_t *tmp, struct gp_strbuf *out, bool scaled);

/*
 * Decodes a payload into the count structs at recs, writing every byte of
 * them (fields without a column are zero); needs no scratch space. On a
 * format error returns -GP_ERR_FORMAT, out of memory -GP_ERR_NOMEM, each
 * with the reason in errbuf; the structs are then unspecified.
 */
int gpt_decode_records(const struct gpt_kind_info *ki, const uint8_t *p, size_t len,
		       uint32_t count, void *recs, char *errbuf, size_t errlen);
/* Same; scaled allows scaled columns (a 2.x file); without it they are unknown encodings. */
int gpt_decode_records_ex(const struct gpt_kind_info *ki, const uint8_t *p, size_t len,
			  uint32_t count, void *recs, char *errbuf, size_t errlen, bool scaled);

/* ---- names interned by pattern (names.c; flight rings: FORMAT.md "Flight recordings") */

struct gpt_name_shape;
/* The shapes seen (zeroed to start); released by gpt_name_shapes_release. */
struct gpt_name_shapes {
	struct gpt_name_shape *slots;
	size_t n;
};
void gpt_name_shapes_release(struct gpt_name_shapes *t);
/*
 * 1 when s (len bytes, no NUL) is to be kept as a pattern: the pattern in
 * pat (GPT_NAME_PATTERN_MAX + 1 bytes, not NUL-terminated), its length in
 * *patlen, the number in *num (value << 5 | digits, never 0); else 0 and
 * *num 0 (intern s whole).
 */
int gpt_name_split(struct gpt_name_shapes *t, const char *s, size_t len, char *pat,
		   size_t *patlen, uint64_t *num);

/*
 * Ids 1..n are defined by string chunks the caller copies into the file
 * itself (gpt_writer_append_chunk): the writer's own strings take the ids
 * after them. Only before the writer interned anything; -GP_ERR_API else.
 */
int gpt_writer_reserve_ids(struct gpt_writer *w, uint32_t n);
/* The highest string id the writer has handed to its file or sink. */
uint32_t gpt_writer_strings_written(const struct gpt_writer *w);

#endif /* GPT_FORMAT_H */
