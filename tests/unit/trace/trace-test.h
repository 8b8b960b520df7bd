/* SPDX-License-Identifier: MIT */
/*
 * trace-test.h - helpers shared by the trace/ unit tests: writing a trace
 * into memory, walking its chunks independently of trace/reader.c, reading
 * every record back, and building hostile files by hand.
 */
#ifndef GP_TRACE_TEST_H
#define GP_TRACE_TEST_H

#include "trace/format.h"
#include "tests/tools/gen.h"

/* Bytes of a whole file; free with tt_buf_free. */
struct tt_buf {
	uint8_t *p;
	size_t len;
};
void tt_buf_free(struct tt_buf *b);

/*
 * A writer over an anonymous in-memory file. tt_writer_finish closes the
 * writer (writing the footer) and returns the bytes; tt_writer_abandon_finish
 * abandons it (no flush, no footer) instead.
 */
struct tt_mem_writer {
	struct gpt_writer *w;
	int keep_fd;
};
int tt_writer_open(struct tt_mem_writer *mw, const struct gpt_writer_opts *opts);
int tt_writer_finish(struct tt_mem_writer *mw, struct tt_buf *out);
int tt_writer_abandon_finish(struct tt_mem_writer *mw, struct tt_buf *out);

/* A generated trace in memory; created time patched to a fixed value. */
int tt_gen_trace(const struct gen_opts *go, const struct gpt_writer_opts *wo, struct tt_buf *out);

/* One chunk found by walking headers from the file header (no reader involved). */
struct tt_chunk {
	uint64_t off;
	uint16_t kind, flags;
	uint32_t count, raw_len, stored_len, raw_crc;
	uint64_t first_ts, last_ts;
};
#define TT_MAX_CHUNKS 4096
/*
 * Walks a well-formed file; returns the number of chunks and sets *trailer to
 * the offset after the last chunk (the trailer when the file is complete).
 */
size_t tt_walk(const uint8_t *p, size_t len, struct tt_chunk *out, size_t max, uint64_t *trailer);

/* A chunk, or the trailer (kind 0) after the last chunk. */
struct tt_unit {
	uint64_t off, end;
	uint16_t kind;
	uint32_t count;
};
/*
 * The chunks of a whole file and, last, its trailer: the bytes from the end
 * of the last chunk to the end of the file. Returns the number of units.
 */
size_t tt_units(const struct tt_buf *b, struct tt_unit *u, size_t max);

/* Rewrites the header CRC of the chunk at off after a deliberate change. */
void tt_fix_chunk_crc(uint8_t *p, uint64_t off);
/* Rewrites the file header CRC (32-byte header). */
void tt_fix_file_crc(uint8_t *p);

/* Records of one kind, in order, as plain struct bytes. */
struct tt_recs {
	uint8_t *v;
	size_t n, cap; /* in records */
};

/* Everything read from a trace. */
struct tt_read {
	int open_ret; /* from gpt_reader_open_mem */
	int next_ret; /* the last gpt_reader_next return (0 at a normal end) */
	struct tt_recs recs[GPT_KIND__MAX];
	uint64_t chunks; /* record chunks returned */
	bool strings_ok; /* every str field of every record resolved */
	struct gpt_reader_status st;
	struct gpt_problem problems[16];
	size_t nproblems;
	char last_error[320];
};
/* Opens bytes in memory and reads every chunk. Frees everything but *out. */
void tt_read_all(const uint8_t *p, size_t len, const char *name, struct tt_read *out);
void tt_read_release(struct tt_read *rd);

void tt_recs_push(struct tt_recs *r, const struct gpt_kind_info *ki, const void *rec);

/* Compares two records of kind ki field by field; returns the first differing field or NULL. */
const struct gpt_field *tt_rec_diff(const struct gpt_kind_info *ki, const void *a, const void *b);

/* ---- building files by hand */

/* Appends a valid 32-byte file header (major, minor as given). */
void tt_put_file_header(struct gp_strbuf *sb, uint16_t major, uint16_t minor);
/*
 * Appends a chunk with the given raw payload: stored as is (deflated false)
 * or as a raw deflate stream; raw_crc and both header CRCs correct.
 */
void tt_put_chunk(struct gp_strbuf *sb, uint16_t kind, uint32_t count, const void *raw,
		  size_t raw_len, bool deflated);

#endif
