/* SPDX-License-Identifier: MIT */
/*
 * fuzz-reader.c - libFuzzer target for the .gpz reader (make fuzz).
 *
 * Each input is read twice through gpt_reader_open_mem:
 *
 *  1. as given, which mostly exercises headers, checksums, resynchronization
 *     after corrupt chunks and truncation;
 *  2. after its checksums were recomputed (file header, chunk headers, chunk
 *     payloads once inflated, trailer), so that mutated payloads get past the
 *     CRC checks and reach the string table and the column decoder.
 *
 * Every record field of every chunk is read through the schema and every
 * str field is resolved, so the sanitizers see any value the reader lets
 * through; status and problems are read at the end.
 */
#include "base/compat.h"
#include "trace/format.h"

#include <zlib.h>

/* Do not inflate more than this to recompute one payload CRC. */
#define FIX_RAW_MAX (8u << 20)

static volatile uint64_t sink;

static void touch_chunk(const struct gpt_reader *r, const struct gpt_chunk *c)
{
	const struct gpt_kind_info *ki = c->info;
	const uint8_t *rec = c->records;
	uint64_t acc = c->kind ^ c->count ^ c->first_ts ^ c->last_ts ^ c->offset ^ c->index;

	if (ki != gpt_kind_info(c->kind) || c->count > GPT_MAX_CHUNK_RECORDS) {
		__builtin_trap();
	}
	for (uint32_t i = 0; i < c->count; i++, rec += ki->size) {
		for (size_t fi = 0; fi < ki->nfields; fi++) {
			const struct gpt_field *f = &ki->fields[fi];
			uint64_t v = gpt_field_get(f, rec);

			acc += v;
			if (f->type == GPT_TY_str) {
				const char *s = gpt_reader_string(r, (uint32_t)v);
				if (s) {
					acc += strlen(s);
				}
				acc += (uintptr_t)gpt_reader_string_or(r, (uint32_t)v, "?")[0];
			}
		}
	}
	sink += acc;
}

static void read_all(const uint8_t *data, size_t size)
{
	struct gpt_reader *r = NULL;
	struct gpt_reader_status st;
	const struct gpt_problem *pr;
	struct gpt_chunk c;
	size_t np = 0;
	int ret;

	ret = gpt_reader_open_mem(data, size, "fuzz", &r);
	if (!r) {
		return;
	}
	sink += strlen(gpt_reader_last_error(r)) + strlen(gpt_reader_name(r));
	if (!ret) {
		while ((ret = gpt_reader_next(r, &c)) == 1) {
			touch_chunk(r, &c);
		}
		/* At the end, reading again must keep saying so. */
		if (ret == 0 && gpt_reader_next(r, &c) != 0) {
			__builtin_trap();
		}
	}
	gpt_reader_get_status(r, &st);
	sink += st.chunks + st.strings + st.problems + st.bytes_skipped + st.truncated_at;
	pr = gpt_reader_problems(r, &np);
	for (size_t i = 0; i < np; i++) {
		sink += strnlen(pr[i].reason, sizeof(pr[i].reason)) + (uint64_t)pr[i].err;
	}
	sink += strlen(gpt_reader_last_error(r));
	gpt_reader_free(r);
}

/* The CRC of the inflated payload, or of the stored bytes; false if it cannot be had. */
static bool payload_crc(const uint8_t *p, uint32_t stored_len, uint32_t raw_len, bool deflated,
			uint8_t *scratch, uint32_t *crc)
{
	z_stream zs;
	int zr;

	if (!deflated) {
		*crc = gp_crc32(0, p, stored_len);
		return true;
	}
	if (raw_len > FIX_RAW_MAX) {
		return false;
	}
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK) {
		return false;
	}
	zs.next_in = (Bytef *)p;
	zs.avail_in = stored_len;
	zs.next_out = scratch;
	zs.avail_out = raw_len;
	zr = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (zr != Z_STREAM_END) {
		return false;
	}
	*crc = gp_crc32(0, scratch, raw_len);
	return true;
}

/* Recomputes every checksum it can find in buf, in place. */
static void fix_crcs(uint8_t *buf, size_t size, uint8_t *scratch)
{
	uint64_t pos;
	uint32_t hlen;

	if (size < GPT_FILE_HEADER_SIZE || memcmp(buf, GPT_FILE_MAGIC, 8)) {
		return;
	}
	hlen = gp_get_le32(buf + 16);
	if (hlen < GPT_FILE_HEADER_SIZE || hlen > size) {
		return;
	}
	gp_put_le32(buf + hlen - 4, gp_crc32(0, buf, hlen - 4));
	pos = hlen;
	while (pos + GPT_CHUNK_HEADER_SIZE <= size) {
		uint8_t *h = buf + pos;
		uint32_t stored_len, raw_len, crc;
		uint16_t flags;

		if (size - pos == GPT_TRAILER_SIZE && !memcmp(h, GPT_TRAILER_MAGIC, 8)) {
			gp_put_le32(h + 20, gp_crc32(0, h, 20));
			return;
		}
		if (gp_get_le32(h) != GPT_CHUNK_MAGIC) {
			pos++; /* as the reader resynchronizes */
			continue;
		}
		flags = gp_get_le16(h + 6);
		raw_len = gp_get_le32(h + 12);
		stored_len = gp_get_le32(h + 16);
		if (stored_len <= size - pos - GPT_CHUNK_HEADER_SIZE &&
		    payload_crc(h + GPT_CHUNK_HEADER_SIZE, stored_len, raw_len,
				flags & GPT_CHUNK_FLAG_DEFLATE, scratch, &crc)) {
			gp_put_le32(h + 20, crc);
		}
		gp_put_le32(h + 44, gp_crc32(0, h, 44));
		if (stored_len > size - pos - GPT_CHUNK_HEADER_SIZE) {
			return;
		}
		pos += GPT_CHUNK_HEADER_SIZE + (uint64_t)stored_len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *scratch;
	uint8_t *copy;

	read_all(data, size);
	if (!scratch) {
		scratch = malloc(FIX_RAW_MAX);
		if (!scratch) {
			return 0;
		}
	}
	copy = malloc(size ? size : 1);
	if (!copy) {
		return 0;
	}
	memcpy(copy, data, size);
	fix_crcs(copy, size, scratch);
	read_all(copy, size);
	free(copy);
	return 0;
}
