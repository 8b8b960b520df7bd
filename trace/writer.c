/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the .gpz writer: buffers records per kind, encodes them as
 * columns, deflates and appends whole chunks; strings are interned and
 * written before any chunk that can refer to them; a footer index is
 * written at clean close.
 *
 * Obeys the inject/ contract (STYLE.md section 8) for what it may do: it
 * never exits, prints, takes locks or installs handlers. It allocates, so it
 * runs on the writer thread, never on a traced program's hot path.
 */
#include "base/compat.h"
#include "trace/format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#define DEFAULT_CHUNK_RECORDS 8192
#define DEFAULT_LEVEL 1
#define STRING_CHUNK_BYTES (256u << 10)
/* Levels up to this one code random-looking columns with Huffman codes only. */
#define HUFFMAN_COLUMNS_MAX_LEVEL 3
#define HUFFMAN_COLUMN_MIN_BYTES 1024
#define DEFAULT_PACK_BYTES (256u << 10)

/* keep_going: a chunk could not be written and was cut off; not an error (positive). */
#define CHUNK_LOST 1

struct str_slot {
	uint64_t hash;
	uint32_t id; /* 0: empty slot */
};

struct gpt_writer {
	int fd;
	char *name;
	int level;
	uint32_t chunk_records;
	int err;
	char errbuf[256];
	uint64_t offset;
	bool keep_going;
	bool in_chunk;	 /* write_all is writing a chunk (keep_going applies) */
	int write_errno; /* keep_going: the errno of a failed chunk write, until it is handled */

	struct {
		uint8_t *rows;
		uint32_t n;
		size_t mapped;	/* bytes of rows gp_prefault() has mapped in */
	} pend[GPT_KIND__MAX];

	/* Interned strings: text in 'text', offsets by id, open-addressed table. */
	struct gp_strbuf text;
	GP_VEC(uint64_t) str_off; /* str_off.v[id - 1]: offset in text; length up to NUL */
	struct str_slot *slots;
	size_t nslots;
	uint32_t strings_written; /* ids 1..strings_written are in the file */

	z_stream zs;
	bool zinit;
	int zstrategy; /* the strategy zs was last given */
	struct gp_strbuf raw, out;
	uint64_t *tmp;
	size_t tmp_mapped; /* bytes of tmp gp_prefault() has mapped in (as chunks need them) */
	GP_VEC(struct gpt_index_entry) index;
	struct gpt_writer_stats stats;

	/*
	 * Compact (format 2.0) writers: scaled columns, and while packing, the
	 * chunks are kept in 'pack' as the inner chunks of one packed chunk
	 * (FORMAT.md 12.3) until close, or until they pass pack_bytes: then
	 * they are written out as ordinary chunks and the writer streams.
	 */
	bool compact, packing;
	uint32_t pack_bytes, pack_chunks;
	struct gp_strbuf pack;

	/* gpt_writer_hold: full row buffers of timed kinds, in the order they filled */
	bool holding;
	/* gpt_writer_opts.sink: chunks go there, not to fd */
	int (*sink)(void *ctx, const uint8_t *chunk, size_t len);
	void *sink_ctx;
	/* gpt_writer_opts.rows: records go there unencoded; no file, no string chunks */
	gpt_rows_fn rows;
	void *rows_ctx;
	struct held {
		uint8_t *rows;
		uint32_t n;
		uint16_t kind;
	} *held;
	size_t nheld, heldcap, held_bytes;
	/* gpt_writer_opts.number_names: the shapes of the names interned by pattern */
	bool number_names;
	struct gpt_name_shapes shapes;
};

static int set_err(struct gpt_writer *w, int err, const char *fmt, ...) GP_PRINTF(3, 4);
static int set_err(struct gpt_writer *w, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(w->errbuf, sizeof(w->errbuf), "%s: ", w->name ? w->name : "trace");
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(w->errbuf)) {
		vsnprintf(w->errbuf + n, sizeof(w->errbuf) - (size_t)n, fmt, ap);
	}
	va_end(ap);
	if (!w->err) {
		w->err = err;
	}
	return err;
}

const char *gpt_writer_last_error(const struct gpt_writer *w)
{
	return w->errbuf[0] ? w->errbuf : "no error";
}

static int write_all(struct gpt_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len) {
		ssize_t n = write(w->fd, p, len);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			if (w->keep_going && w->in_chunk) {
				w->write_errno = errno;
				return -GP_ERR_IO;
			}
			return set_err(w, -GP_ERR_IO, "write failed: %s", strerror(errno));
		}
		p += n;
		len -= (size_t)n;
		w->offset += (uint64_t)n;
		w->stats.file_bytes += (uint64_t)n;
	}
	return 0;
}

void gpt_chunk_header_pack(const struct gpt_chunk_header *h, uint8_t out[GPT_CHUNK_HEADER_SIZE])
{
	gp_put_le32(out + 0, GPT_CHUNK_MAGIC);
	gp_put_le16(out + 4, h->kind);
	gp_put_le16(out + 6, h->flags);
	gp_put_le32(out + 8, h->count);
	gp_put_le32(out + 12, h->raw_len);
	gp_put_le32(out + 16, h->stored_len);
	gp_put_le32(out + 20, h->raw_crc);
	gp_put_le64(out + 24, h->first_ts);
	gp_put_le64(out + 32, h->last_ts);
	gp_put_le32(out + 40, 0);
	gp_put_le32(out + 44, gp_crc32(0, out, 44));
}

int gpt_chunk_header_unpack(const uint8_t in[GPT_CHUNK_HEADER_SIZE], struct gpt_chunk_header *h,
			    char *errbuf, size_t errlen)
{
	if (gp_get_le32(in) != GPT_CHUNK_MAGIC) {
		snprintf(errbuf, errlen, "bad chunk magic");
		return -GP_ERR_FORMAT;
	}
	if (gp_get_le32(in + 44) != gp_crc32(0, in, 44)) {
		snprintf(errbuf, errlen, "bad chunk header crc");
		return -GP_ERR_CHECKSUM;
	}
	h->kind = gp_get_le16(in + 4);
	h->flags = gp_get_le16(in + 6);
	h->count = gp_get_le32(in + 8);
	h->raw_len = gp_get_le32(in + 12);
	h->stored_len = gp_get_le32(in + 16);
	h->raw_crc = gp_get_le32(in + 20);
	h->first_ts = gp_get_le64(in + 24);
	h->last_ts = gp_get_le64(in + 32);
	return 0;
}

/*
 * Whether a column body looks random to LZ77: few of the 4-byte sequences
 * of a sample repeat within it. Time columns (start deltas, durations) are
 * like that: deflate's match search finds almost nothing in them and is
 * most of its time, while Huffman coding alone gets the same size.
 */
static bool looks_random(const uint8_t *p, size_t n)
{
	uint32_t seen[1024];
	size_t hits = 0;

	/* In the generator's mix, columns score near 0 or near 1: a small sample tells. */
	if (n > 1024) {
		n = 1024;
	}
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i + 4 <= n; i++) {
		uint32_t g = (uint32_t)gp_get_le32(p + i) | 1; /* 0 marks an empty entry */
		uint32_t h = (g * 2654435761u) >> 22;
		hits += seen[h] == g;
		seen[h] = g;
	}
	return hits * 4 < n;
}

/*
 * A packed payload (FORMAT.md 12.3) as one deflate stream, ending a deflate
 * block (Z_BLOCK: no padding, the window kept) around every inner chunk of
 * PACK_BLOCK_MIN bytes or more, so that the strings and each large record
 * chunk get code tables of their own, as they would as separate chunks;
 * small inner chunks share blocks.
 */
#define PACK_BLOCK_MIN 4096
static int deflate_packed(struct gpt_writer *w)
{
	const uint8_t *base = (const uint8_t *)w->raw.buf, *p = base, *end = base + w->raw.len;
	const uint8_t *run = base;

	for (uint32_t c = 0; c < w->pack_chunks && p < end; c++) {
		const uint8_t *start = p;
		uint64_t v, len = 0;
		for (int i = 0; i < 5; i++) {
			if (!gpt_get_varint(&p, end, i == 2 ? &len : &v)) {
				p = end;
			}
		}
		if (len > (uint64_t)(end - p)) {
			break;
		}
		p += len;
		if (len < PACK_BLOCK_MIN) {
			continue;
		}
		/* Block boundaries before and after this chunk. */
		const uint8_t *cuts[2] = {start, p};
		for (int k = 0; k < 2; k++) {
			if (cuts[k] == run) {
				continue;
			}
			w->zs.next_in = (Bytef *)run;
			w->zs.avail_in = (uInt)(cuts[k] - run);
			if (deflate(&w->zs, Z_BLOCK) != Z_OK || w->zs.avail_in) {
				return Z_BUF_ERROR;
			}
			run = cuts[k];
		}
	}
	w->zs.next_in = (Bytef *)run;
	w->zs.avail_in = (uInt)(end - run);
	return deflate(&w->zs, Z_FINISH);
}

/*
 * Deflates w->raw into the space set up in w->zs. The columns of a record
 * payload that look random are coded with Z_HUFFMAN_ONLY and the others
 * with the default strategy, switching with deflateParams between runs of
 * columns (each switch ends a deflate block). The result is one ordinary
 * raw DEFLATE stream. Returns zlib's result of the final deflate call.
 */
static int deflate_payload(struct gpt_writer *w, uint16_t kind)
{
	const uint8_t *base = (const uint8_t *)w->raw.buf;
	const uint8_t *p = base, *end = base + w->raw.len;
	const uint8_t *run = base; /* start of the input not yet given to zlib */
	int want = Z_DEFAULT_STRATEGY;
	uint64_t ncols;

	if (w->zstrategy != Z_DEFAULT_STRATEGY) {
		/* Right after deflateReset this flushes nothing. */
		if (deflateParams(&w->zs, w->level, Z_DEFAULT_STRATEGY) != Z_OK) {
			return Z_STREAM_ERROR;
		}
		w->zstrategy = Z_DEFAULT_STRATEGY;
	}
	if (kind == GPT_KIND_PACKED) {
		return deflate_packed(w);
	}
	if (w->level > HUFFMAN_COLUMNS_MAX_LEVEL || !gpt_kind_info(kind) ||
	    !gpt_get_varint(&p, end, &ncols)) {
		p = end;
		ncols = 0;
	}
	/* Our own payload: a parse error only ends the per-column treatment. */
	for (uint64_t c = 0; c < ncols && p < end; c++) {
		const uint8_t *col = p;
		uint64_t id, v, blen = 0;
		uint8_t enc;

		if (!gpt_get_varint(&p, end, &id) || p >= end) {
			break;
		}
		enc = *p++;
		if (enc == GPT_ENC_CONST) {
			if (!gpt_get_varint(&p, end, &v)) {
				break;
			}
			continue;
		}
		if ((enc == GPT_ENC_REL || enc == GPT_ENC_KEYED) && !gpt_get_varint(&p, end, &v)) {
			break;
		}
		if (!gpt_get_varint(&p, end, &blen) || blen > (uint64_t)(end - p)) {
			break;
		}
		int strategy = blen >= HUFFMAN_COLUMN_MIN_BYTES && looks_random(p, (size_t)blen)
				       ? Z_HUFFMAN_ONLY
				       : Z_DEFAULT_STRATEGY;
		p += blen;
		if (strategy == want) {
			continue;
		}
		/* The run before this column goes out with the strategy it had. */
		w->zs.next_in = (Bytef *)run;
		w->zs.avail_in = (uInt)(col - run);
		if (deflate(&w->zs, Z_NO_FLUSH) != Z_OK || w->zs.avail_in) {
			return Z_BUF_ERROR;
		}
		run = col;
		want = strategy;
		if (deflateParams(&w->zs, w->level, want) != Z_OK) {
			w->zstrategy = -1; /* unknown: set again for the next chunk */
			return Z_BUF_ERROR;
		}
		w->zstrategy = want;
	}
	w->zs.next_in = (Bytef *)run;
	w->zs.avail_in = (uInt)(end - run);
	return deflate(&w->zs, Z_FINISH);
}

/*
 * keep_going: a chunk that began at offset could not be written. Cuts the
 * file back to where it began and counts it; If the file cannot be cut back,
 * the error is sticky as without keep_going. CHUNK_LOST tells the caller
 * that the chunk is gone and the writer goes on.
 */
static int lose_chunk(struct gpt_writer *w, uint16_t kind, uint32_t count, uint64_t offset,
		      size_t bytes)
{
	int e = w->write_errno;

	w->write_errno = 0;
	w->stats.lost_chunks++;
	w->stats.lost_bytes += bytes;
	w->stats.lost_errno = e;
	if (kind != GPT_KIND_STRING && kind != GPT_KIND_INDEX) {
		w->stats.lost_records += count;
	}
	w->stats.file_bytes -= w->offset - offset;
	w->offset = offset;
	if (ftruncate(w->fd, (off_t)offset) || lseek(w->fd, (off_t)offset, SEEK_SET) < 0) {
		return set_err(w, -GP_ERR_IO, "write failed: %s", strerror(e));
	}
	return CHUNK_LOST;
}

/* Writes one chunk of kind with the raw payload in w->raw, to the file. */
static int write_chunk_out(struct gpt_writer *w, uint16_t kind, uint32_t count, uint64_t first_ts,
			   uint64_t last_ts)
{
	struct gpt_chunk_header h = {
		.kind = kind,
		.count = count,
		.raw_len = (uint32_t)w->raw.len,
		/* zlib's crc32 is gp_crc32 (FORMAT.md section 1), only faster. */
		.raw_crc = (uint32_t)crc32(0, (const Bytef *)w->raw.buf, (uInt)w->raw.len),
		.first_ts = first_ts,
		.last_ts = last_ts,
	};
	uint8_t *payload;
	size_t plen;
	int ret;

	if (w->raw.failed) {
		return set_err(w, -GP_ERR_NOMEM, "out of memory encoding a chunk");
	}
	if (w->raw.len > GPT_MAX_CHUNK_BYTES) {
		return set_err(w, -GP_ERR_RANGE, "chunk of %zu bytes exceeds the format's limit",
			       w->raw.len);
	}
	gp_strbuf_reset(&w->out);
	payload = (uint8_t *)w->raw.buf;
	plen = w->raw.len;
	if (w->level > 0 && w->raw.len > 0) {
		/* Room for a few more block headers than deflateBound's one stream. */
		uLong bound = deflateBound(&w->zs, (uLong)w->raw.len) + 4096;
		if (gp_strbuf_grow(&w->out, GPT_CHUNK_HEADER_SIZE + bound)) {
			return set_err(w, -GP_ERR_NOMEM, "out of memory compressing a chunk");
		}
		deflateReset(&w->zs);
		w->zs.next_out = (Bytef *)w->out.buf + GPT_CHUNK_HEADER_SIZE;
		w->zs.avail_out = (uInt)bound;
		int zr = deflate_payload(w, kind);
		if (zr == Z_STREAM_ERROR) {
			return set_err(w, -GP_ERR_IO, "deflate failed: %s",
				       w->zs.msg ? w->zs.msg : "unknown");
		}
		/* Out of room (incompressible data): the chunk is stored as is. */
		size_t clen = zr == Z_STREAM_END ? bound - w->zs.avail_out : SIZE_MAX;
		if (clen < w->raw.len) {
			h.flags = GPT_CHUNK_FLAG_DEFLATE;
			payload = (uint8_t *)w->out.buf + GPT_CHUNK_HEADER_SIZE;
			plen = clen;
		}
	}
	h.stored_len = (uint32_t)plen;
	if (!(h.flags & GPT_CHUNK_FLAG_DEFLATE)) {
		if (gp_strbuf_grow(&w->out, GPT_CHUNK_HEADER_SIZE + plen)) {
			return set_err(w, -GP_ERR_NOMEM, "out of memory writing a chunk");
		}
		memcpy(w->out.buf + GPT_CHUNK_HEADER_SIZE, payload, plen);
	}
	gpt_chunk_header_pack(&h, (uint8_t *)w->out.buf);

	struct gpt_index_entry ie = {
		.offset = w->offset,
		.kind = kind,
		.count = count,
		.first_ts = first_ts,
		.last_ts = last_ts,
	};
	if (w->sink) {
		ret = w->sink(w->sink_ctx, (const uint8_t *)w->out.buf, GPT_CHUNK_HEADER_SIZE + plen);
		if (ret) {
			return set_err(w, ret, "chunk sink failed: %s", gp_err_str(ret));
		}
		w->stats.chunks++;
		w->stats.raw_bytes += w->raw.len;
		return 0;
	}
	w->in_chunk = true;
	ret = write_all(w, w->out.buf, GPT_CHUNK_HEADER_SIZE + plen);
	w->in_chunk = false;
	if (ret && w->write_errno) {
		return lose_chunk(w, kind, count, ie.offset, GPT_CHUNK_HEADER_SIZE + plen);
	}
	if (ret) {
		return ret;
	}
	w->stats.chunks++;
	w->stats.raw_bytes += w->raw.len;
	if (kind != GPT_KIND_INDEX && kind != GPT_KIND_PACKED && gp_vec_push(&w->index, ie)) {
		return set_err(w, -GP_ERR_NOMEM, "out of memory growing the index");
	}
	return 0;
}

/*
 * The chunks packed so far go out as ordinary chunks, in order, and the
 * writer streams from now on. w->raw (the chunk being written) is kept.
 */
static int unpack_to_file(struct gpt_writer *w)
{
	struct gp_strbuf cur = w->raw, pk = w->pack;
	const uint8_t *p = (const uint8_t *)pk.buf, *end = p + pk.len;
	int ret = 0;

	w->packing = false;
	gp_strbuf_init(&w->raw);
	gp_strbuf_init(&w->pack);
	/* Our own bytes: they parse. */
	for (uint32_t c = 0; c < w->pack_chunks && !ret; c++) {
		uint64_t kind = 0, count = 0, len = 0, first = 0, span = 0;
		gpt_get_varint(&p, end, &kind);
		gpt_get_varint(&p, end, &count);
		gpt_get_varint(&p, end, &len);
		gpt_get_varint(&p, end, &first);
		gpt_get_varint(&p, end, &span);
		gp_strbuf_reset(&w->raw);
		gp_strbuf_add(&w->raw, p, (size_t)len);
		p += len;
		ret = write_chunk_out(w, (uint16_t)kind, (uint32_t)count, first, first + span);
	}
	w->pack_chunks = 0;
	gp_strbuf_release(&w->raw);
	gp_strbuf_release(&pk);
	w->raw = cur;
	return ret;
}

/*
 * Writes one chunk of kind with the raw payload in w->raw: while packing,
 * into the packed chunk's payload (FORMAT.md 12.3), else to the file.
 */
static int write_chunk(struct gpt_writer *w, uint16_t kind, uint32_t count, uint64_t first_ts,
		       uint64_t last_ts)
{
	if (w->packing) {
		uint8_t ih[50];
		size_t n = 0;

		n += gpt_put_varint(ih + n, kind);
		n += gpt_put_varint(ih + n, count);
		n += gpt_put_varint(ih + n, w->raw.len);
		n += gpt_put_varint(ih + n, first_ts);
		n += gpt_put_varint(ih + n, last_ts - first_ts);
		if (w->pack.len + n + w->raw.len <= w->pack_bytes &&
		    w->pack_chunks < GPT_MAX_CHUNK_RECORDS) {
			if (w->raw.failed) {
				return set_err(w, -GP_ERR_NOMEM, "out of memory encoding a chunk");
			}
			gp_strbuf_add(&w->pack, ih, n);
			gp_strbuf_add(&w->pack, w->raw.buf, w->raw.len);
			if (w->pack.failed) {
				return set_err(w, -GP_ERR_NOMEM, "out of memory packing a chunk");
			}
			w->pack_chunks++;
			return 0;
		}
		int ret = unpack_to_file(w);
		if (ret) {
			return ret;
		}
	}
	return write_chunk_out(w, kind, count, first_ts, last_ts);
}

static int flush_strings(struct gpt_writer *w)
{
	uint32_t total = w->rows ? 0 : (uint32_t)w->str_off.n; /* rows: they stay here */

	while (w->strings_written < total) {
		uint32_t first = w->strings_written + 1, id = first;
		uint8_t vb[10];

		gp_strbuf_reset(&w->raw);
		gp_strbuf_add(&w->raw, vb, gpt_put_varint(vb, first));
		while (id <= total && w->raw.len < STRING_CHUNK_BYTES) {
			const char *s = w->text.buf + w->str_off.v[id - 1];
			size_t len = strlen(s);
			gp_strbuf_add(&w->raw, vb, gpt_put_varint(vb, len));
			gp_strbuf_add(&w->raw, s, len);
			id++;
		}
		int ret = write_chunk(w, GPT_KIND_STRING, id - first, 0, 0);
		if (ret) {
			return ret;
		}
		w->stats.strings += id - first;
		w->strings_written = id - 1;
	}
	return 0;
}

/* gpt_writer_opts.rows: hands n records of kind ki over as one chunk. */
static int take_rows(struct gpt_writer *w, const struct gpt_kind_info *ki, const uint8_t *rows,
		     uint32_t n, uint64_t first, uint64_t last)
{
	const struct gpt_chunk ch = {.kind = ki->kind, .info = ki, .count = n, .records = rows,
				     .first_ts = first, .last_ts = last,
				     .index = (uint32_t)w->stats.chunks};
	int ret = w->rows(w->rows_ctx, w, &ch);

	if (ret) {
		return set_err(w, ret, "cannot take %s records: %s", ki->name, gp_err_str(ret));
	}
	w->stats.chunks++;
	w->stats.records[ki->kind] += n;
	return 0;
}

/* Encodes n records of kind from rows and writes them as one chunk. */
static int write_rows(struct gpt_writer *w, unsigned kind, const uint8_t *rows, uint32_t n)
{
	const struct gpt_kind_info *ki = gpt_kind_info(kind);
	uint64_t first = UINT64_MAX, last = 0;
	int ret;

	ret = flush_strings(w);
	if (ret == CHUNK_LOST) {
		/* their strings are not in the file: the records go too, and the strings wait */
		w->stats.lost_records += n;
		return ret;
	}
	if (ret) {
		return ret;
	}
	if (ki->time_field) {
		const struct gpt_field *tf = gpt_kind_field(ki, ki->time_field);
		const struct gpt_field *ef = ki->end_field ? gpt_kind_field(ki, ki->end_field) : tf;
		const uint8_t *rec = rows;
		bool fast = tf->type == GPT_TY_u64 && ef->type == GPT_TY_u64; /* every kind's are */
		for (uint32_t i = 0; i < n; i++, rec += ki->size) {
			uint64_t s, e;
			if (fast) {
				memcpy(&s, rec + tf->offset, 8);
				memcpy(&e, rec + ef->offset, 8);
			} else {
				s = gpt_field_get(tf, rec);
				e = gpt_field_get(ef, rec);
			}
			first = s < first ? s : first;
			last = e > last ? e : last;
			last = s > last ? s : last;
		}
	} else {
		first = 0;
	}
	if (w->rows) {
		return take_rows(w, ki, rows, n, first, last);
	}
	gp_strbuf_reset(&w->raw);
	/* the encoder's arrays, 24 bytes a record: mapped in one call the first time a chunk needs them */
	size_t need = sizeof(uint64_t) * 3 * ((size_t)n + 1);
	if (need > w->tmp_mapped) {
		gp_prefault((uint8_t *)w->tmp + w->tmp_mapped, need - w->tmp_mapped);
		w->tmp_mapped = need;
	}
	ret = gpt_encode_records_ex(ki, rows, n, w->tmp, &w->raw, w->compact);
	if (ret) {
		return set_err(w, ret, "cannot encode %s records: %s", ki->name, gp_err_str(ret));
	}
	ret = write_chunk(w, (uint16_t)kind, n, first, last);
	if (ret) {
		return ret;
	}
	w->stats.records[kind] += n;
	return 0;
}

/* Keeps the pending rows of a timed kind aside while holding; the next add maps new ones. */
static int hold_rows(struct gpt_writer *w, unsigned kind)
{
	if (w->nheld == w->heldcap) {
		size_t cap = w->heldcap ? w->heldcap * 2 : 16;
		struct held *h = realloc(w->held, cap * sizeof(*h));
		if (!h) {
			return set_err(w, -GP_ERR_NOMEM, "out of memory holding records");
		}
		w->held = h;
		w->heldcap = cap;
	}
	size_t bytes = (size_t)w->pend[kind].n * gpt_kind_info(kind)->size;
	uint8_t *rows = w->pend[kind].rows;
	if (w->pend[kind].n < w->chunk_records) {
		/* a flush while holding: keep no more than the records (realloc may fail: keep all) */
		uint8_t *fit = realloc(rows, bytes);
		rows = fit ? fit : rows;
	}
	w->held[w->nheld++] = (struct held){rows, w->pend[kind].n, (uint16_t)kind};
	w->held_bytes += bytes;
	w->pend[kind].rows = NULL;
	w->pend[kind].n = 0;
	w->pend[kind].mapped = 0;
	return 0;
}

static int flush_kind(struct gpt_writer *w, unsigned kind)
{
	uint32_t n = w->pend[kind].n;
	int ret;

	if (!n) {
		return 0;
	}
	if (w->holding && gpt_kind_info(kind)->time_field) {
		return hold_rows(w, kind);
	}
	ret = write_rows(w, kind, w->pend[kind].rows, n);
	if (ret == CHUNK_LOST) {
		ret = 0; /* counted: the rows are dropped */
	}
	if (!ret) {
		w->pend[kind].n = 0;
	}
	return ret;
}

int gpt_writer_hold(struct gpt_writer *w)
{
	if (!w || w->holding) {
		return -GP_ERR_API;
	}
	if (w->err) {
		return w->err;
	}
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		if (w->pend[k].n && ki && ki->time_field) {
			return -GP_ERR_API;
		}
	}
	w->holding = true;
	return 0;
}

size_t gpt_writer_held_bytes(const struct gpt_writer *w)
{
	return w ? w->held_bytes : 0;
}

/* Adds offset to the time and end fields of n records; false when one would wrap. */
static bool shift_times(const struct gpt_kind_info *ki, uint8_t *rows, uint32_t n, int64_t offset)
{
	const struct gpt_field *f[2] = {gpt_kind_field(ki, ki->time_field),
					ki->end_field ? gpt_kind_field(ki, ki->end_field) : NULL};
	uint64_t d = (uint64_t)offset;

	for (uint32_t i = 0; i < n; i++, rows += ki->size) {
		for (int j = 0; j < 2 && f[j]; j++) {
			uint64_t v;
			if (f[j]->type == GPT_TY_u64) { /* every kind's time fields (schema.c) */
				memcpy(&v, rows + f[j]->offset, 8);
			} else {
				v = gpt_field_get(f[j], rows);
			}
			if (offset >= 0 ? v > UINT64_MAX - d : v < -d) {
				return false;
			}
			v += d;
			if (f[j]->type == GPT_TY_u64) {
				memcpy(rows + f[j]->offset, &v, 8);
			} else if (gpt_field_set(f[j], rows, v)) {
				return false;
			}
		}
	}
	return true;
}

int gpt_writer_release(struct gpt_writer *w, int64_t offset)
{
	int ret;

	if (!w || !w->holding) {
		return -GP_ERR_API;
	}
	w->holding = false;
	if (w->err) {
		return w->err;
	}
	for (size_t i = 0; i < w->nheld; i++) {
		struct held *h = &w->held[i];
		const struct gpt_kind_info *ki = gpt_kind_info(h->kind);
		if (offset && !shift_times(ki, h->rows, h->n, offset)) {
			return set_err(w, -GP_ERR_RANGE, "%s time out of range with offset %lld",
				       ki->name, (long long)offset);
		}
		ret = write_rows(w, h->kind, h->rows, h->n);
		if (ret && ret != CHUNK_LOST) {
			return ret;
		}
		free(h->rows);
		h->rows = NULL;
		w->held_bytes -= (size_t)h->n * ki->size;
	}
	w->nheld = 0;
	for (unsigned k = 0; k < GPT_KIND__MAX && offset; k++) {
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		if (w->pend[k].n && ki && ki->time_field &&
		    !shift_times(ki, w->pend[k].rows, w->pend[k].n, offset)) {
			return set_err(w, -GP_ERR_RANGE, "%s time out of range with offset %lld",
				       ki->name, (long long)offset);
		}
	}
	return 0;
}

int gpt_writer_open_fd(int fd, const char *name, const struct gpt_writer_opts *opts,
		       struct gpt_writer **out)
{
	struct gpt_writer *w;
	uint8_t hdr[GPT_FILE_HEADER_SIZE];

	*out = NULL;
	if (opts && (opts->level > 9 || opts->level < -1 ||
		     opts->chunk_records > GPT_MAX_CHUNK_RECORDS ||
		     opts->pack_bytes > GPT_MAX_CHUNK_BYTES || (opts->sink && opts->compact) ||
		     (opts->rows && (opts->sink || opts->compact)))) {
		if (fd >= 0) {
			close(fd);
		}
		return -GP_ERR_API;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		if (fd >= 0) {
			close(fd);
		}
		return -GP_ERR_NOMEM;
	}
	w->fd = opts && (opts->sink || opts->rows) ? -1 : fd;
	if (opts && opts->rows) {
		w->rows = opts->rows;
		w->rows_ctx = opts->rows_ctx;
		if (fd >= 0) {
			close(fd); /* owned, as with a file */
		}
	}
	if (opts && opts->sink) {
		w->sink = opts->sink;
		w->sink_ctx = opts->sink_ctx;
		w->keep_going = false;
		w->number_names = opts->number_names;
	}
	w->keep_going = opts && opts->keep_going && !opts->compact && !opts->sink && !opts->rows;
	w->name = strdup(name ? name : "trace");
	w->level = w->rows ? 0 : (opts && opts->level >= 0) ? opts->level : DEFAULT_LEVEL;
	w->chunk_records =
		(opts && opts->chunk_records) ? opts->chunk_records : DEFAULT_CHUNK_RECORDS;
	gp_strbuf_init(&w->text);
	gp_strbuf_init(&w->raw);
	gp_strbuf_init(&w->out);
	gp_strbuf_init(&w->pack);
	if (opts && opts->compact) {
		w->compact = true;
		w->packing = true;
		w->pack_bytes = opts->pack_bytes ? opts->pack_bytes : DEFAULT_PACK_BYTES;
	}
	w->tmp = malloc(sizeof(uint64_t) * 3 * (w->chunk_records + 1));
	if (!w->name || !w->tmp) {
		gpt_writer_abandon(w);
		return -GP_ERR_NOMEM;
	}
	if (w->level > 0) {
		w->zstrategy = Z_DEFAULT_STRATEGY;
		if (deflateInit2(&w->zs, w->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			gpt_writer_abandon(w);
			return -GP_ERR_NOMEM;
		}
		w->zinit = true;
	}
	memcpy(hdr, GPT_FILE_MAGIC, 8);
	/* The version needed to read the file: 2.0 only for what 1.x readers cannot read. */
	gp_put_le16(hdr + 8, w->compact ? GPT_FORMAT_MAJOR : GPT_FORMAT_STREAM_MAJOR);
	gp_put_le16(hdr + 10, w->compact		 ? GPT_FORMAT_MINOR
			      : opts && opts->flight ? GPT_FORMAT_FLIGHT_MINOR
						     : GPT_FORMAT_STREAM_MINOR);
	gp_put_le32(hdr + 12, 0);
	gp_put_le32(hdr + 16, GPT_FILE_HEADER_SIZE);
	gp_put_le64(hdr + 20, gp_clock_realtime_ns());
	gp_put_le32(hdr + 28, gp_crc32(0, hdr, 28));
	*out = w;
	return w->sink || w->rows ? 0 : write_all(w, hdr, sizeof(hdr));
}

int gpt_writer_open(const char *path, const struct gpt_writer_opts *opts,
		    struct gpt_writer **out)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	*out = NULL;
	if (fd < 0) {
		return -GP_ERR_IO;
	}
	return gpt_writer_open_fd(fd, path, opts, out);
}

static int grow_slots(struct gpt_writer *w)
{
	size_t nn = w->nslots ? w->nslots * 2 : 1024;
	struct str_slot *ns = calloc(nn, sizeof(*ns));

	if (!ns) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < w->nslots; i++) {
		if (w->slots[i].id) {
			size_t j = w->slots[i].hash & (nn - 1);
			while (ns[j].id) {
				j = (j + 1) & (nn - 1);
			}
			ns[j] = w->slots[i];
		}
	}
	free(w->slots);
	w->slots = ns;
	w->nslots = nn;
	return 0;
}

int gpt_writer_intern(struct gpt_writer *w, const char *s, size_t len, uint32_t *id)
{
	uint64_t h;
	size_t j;

	*id = 0;
	if (!s || !len) {
		return 0;
	}
	/* Strings are NUL-terminated in the file's table: stop at an embedded NUL. */
	const char *nul = memchr(s, '\0', len);
	if (nul) {
		len = (size_t)(nul - s);
		if (!len) {
			return 0;
		}
	}
	if (len > GPT_MAX_STRING_BYTES) {
		len = GPT_MAX_STRING_BYTES;
	}
	if ((w->str_off.n + 1) * 2 > w->nslots && grow_slots(w)) {
		return set_err(w, -GP_ERR_NOMEM, "out of memory interning a string");
	}
	h = gp_hash_bytes(s, len);
	for (j = h & (w->nslots - 1); w->slots[j].id; j = (j + 1) & (w->nslots - 1)) {
		if (w->slots[j].hash == h) {
			const char *t = w->text.buf + w->str_off.v[w->slots[j].id - 1];
			if (!strncmp(t, s, len) && t[len] == '\0') {
				*id = w->slots[j].id;
				return 0;
			}
		}
	}
	if (w->str_off.n >= UINT32_MAX - 1 || w->text.len + len + 1 > GPT_MAX_STRINGS_BYTES) {
		return set_err(w, -GP_ERR_RANGE, "too many strings");
	}
	uint64_t off = w->text.len;
	gp_strbuf_add(&w->text, s, len);
	gp_strbuf_addch(&w->text, '\0');
	if (w->text.failed || gp_vec_push(&w->str_off, off)) {
		return set_err(w, -GP_ERR_NOMEM, "out of memory interning a string");
	}
	w->slots[j].hash = h;
	w->slots[j].id = (uint32_t)w->str_off.n;
	*id = w->slots[j].id;
	return 0;
}

int gpt_writer_intern_numbered(struct gpt_writer *w, const char *s, size_t len, uint32_t *id,
			       uint64_t *num)
{
	char pat[GPT_NAME_PATTERN_MAX + 1];
	size_t plen = 0;

	*num = 0;
	if (!w->number_names || !s || !len || memchr(s, '\0', len) ||
	    !gpt_name_split(&w->shapes, s, len, pat, &plen, num)) {
		return gpt_writer_intern(w, s, len, id);
	}
	int ret = gpt_writer_intern(w, pat, plen, id);
	if (ret) {
		*num = 0;
	}
	return ret;
}

int gpt_writer_reserve_ids(struct gpt_writer *w, uint32_t n)
{
	if (w->str_off.n || n >= UINT32_MAX - 1) {
		return -GP_ERR_API;
	}
	if (!n) {
		return 0;
	}
	/* every reserved id points at one empty string: offset 0 */
	gp_strbuf_addch(&w->text, '\0');
	if (w->text.failed || gp_vec_reserve(&w->str_off, n)) {
		return set_err(w, -GP_ERR_NOMEM, "out of memory reserving string ids");
	}
	for (uint32_t i = 0; i < n; i++) {
		w->str_off.v[w->str_off.n++] = 0;
	}
	w->strings_written = n;
	return 0;
}

uint32_t gpt_writer_strings_written(const struct gpt_writer *w)
{
	return w->strings_written;
}

/* Rows are mapped this many bytes at a time (8 pages of 4 KiB): at most that much unused. */
#define PREFAULT_STEP (32u << 10)

int gpt_writer_add(struct gpt_writer *w, enum gpt_kind kind, const void *rec)
{
	const struct gpt_kind_info *ki = gpt_kind_info(kind);

	if (!ki || !rec) {
		return -GP_ERR_API;
	}
	/*
	 * Errors are sticky: after a failed write the file may end in a partial
	 * chunk, and the records of a chunk that could not be written are gone.
	 * The caller counts what it can no longer add.
	 */
	if (w->err) {
		return w->err;
	}
	if (!w->pend[kind].rows) {
		w->pend[kind].rows = malloc(ki->size * w->chunk_records);
		if (!w->pend[kind].rows) {
			return set_err(w, -GP_ERR_NOMEM, "out of memory buffering %s records",
				       ki->name);
		}
		w->pend[kind].mapped = 0;
	}
	if (((size_t)w->pend[kind].n + 1) * ki->size > w->pend[kind].mapped) {
		size_t all = (size_t)ki->size * w->chunk_records, m = w->pend[kind].mapped;
		size_t step = all - m < PREFAULT_STEP ? all - m : PREFAULT_STEP;
		gp_prefault(w->pend[kind].rows + m, step);
		w->pend[kind].mapped = m + step;
	}
	memcpy(w->pend[kind].rows + (size_t)w->pend[kind].n * ki->size, rec, ki->size);
	if (++w->pend[kind].n == w->chunk_records) {
		return flush_kind(w, kind);
	}
	return 0;
}

int gpt_writer_flush(struct gpt_writer *w)
{
	if (w->err) {
		return w->err;
	}
	int ret = flush_strings(w);

	if (ret == CHUNK_LOST) {
		ret = 0; /* the strings are written with the next chunk that needs them */
	}

	for (unsigned k = 0; k < GPT_KIND__MAX && !ret; k++) {
		ret = flush_kind(w, k);
	}
	return ret;
}

static int write_footer(struct gpt_writer *w)
{
	uint64_t index_offset = w->offset;
	size_t done = 0;
	uint8_t tr[GPT_TRAILER_SIZE];
	int ret = 0;

	/* The index may exceed one chunk on very long traces: write it in pieces. */
	do {
		uint32_t n = (uint32_t)(w->index.n - done);
		if (n > w->chunk_records) {
			n = w->chunk_records;
		}
		gp_strbuf_reset(&w->raw);
		/* No chunks: index.v is NULL, and NULL + 0 is undefined in C. */
		const struct gpt_index_entry *first = w->index.n ? w->index.v + done : NULL;
		ret = gpt_encode_records_ex(&gpt_index_info, first, n, w->tmp, &w->raw, w->compact);
		if (!ret) {
			ret = write_chunk(w, GPT_KIND_INDEX, n, 0, 0);
		}
		done += n;
	} while (!ret && done < w->index.n);
	if (ret == CHUNK_LOST) {
		return set_err(w, -GP_ERR_IO, "write failed: %s", strerror(w->stats.lost_errno));
	}
	if (ret) {
		return ret;
	}
	memcpy(tr, GPT_TRAILER_MAGIC, 8);
	gp_put_le64(tr + 8, index_offset);
	gp_put_le32(tr + 16, (uint32_t)w->index.n);
	gp_put_le32(tr + 20, gp_crc32(0, tr, 20));
	return write_all(w, tr, sizeof(tr));
}

static void writer_free(struct gpt_writer *w)
{
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		free(w->pend[k].rows);
	}
	for (size_t i = 0; i < w->nheld; i++) {
		free(w->held[i].rows);
	}
	free(w->held);
	if (w->zinit) {
		deflateEnd(&w->zs);
	}
	gp_strbuf_release(&w->text);
	gp_strbuf_release(&w->raw);
	gp_strbuf_release(&w->out);
	gp_strbuf_release(&w->pack);
	gp_vec_free(&w->str_off);
	gp_vec_free(&w->index);
	free(w->slots);
	gpt_name_shapes_release(&w->shapes);
	free(w->tmp);
	free(w->name);
	free(w);
}

int gpt_writer_close_err(struct gpt_writer *w, char *errbuf, size_t errlen)
{
	int ret;

	if (!w) {
		return -GP_ERR_API;
	}
	ret = w->err;
	if (!ret && w->holding) {
		ret = gpt_writer_release(w, 0);
	}
	if (!ret) {
		ret = gpt_writer_flush(w);
	}
	if (!ret && w->packing) {
		/* The whole file in one packed chunk, which is its own proof of a clean close. */
		struct gp_strbuf cur = w->raw;
		w->raw = w->pack;
		w->pack = cur;
		ret = write_chunk_out(w, GPT_KIND_PACKED, w->pack_chunks, 0, 0);
	} else if (!ret && !w->sink && !w->rows) {
		ret = write_footer(w);
	}
	if (w->fd >= 0 && close(w->fd) && !ret) {
		ret = set_err(w, -GP_ERR_IO, "close failed: %s", strerror(errno));
	}
	if (ret && errlen) {
		snprintf(errbuf, errlen, "%s", gpt_writer_last_error(w));
	}
	writer_free(w);
	return ret;
}

int gpt_writer_close(struct gpt_writer *w)
{
	return gpt_writer_close_err(w, NULL, 0);
}

void gpt_writer_abandon(struct gpt_writer *w)
{
	if (!w) {
		return;
	}
	if (w->fd >= 0) {
		close(w->fd);
	}
	writer_free(w);
}

const char *gpt_writer_string(const struct gpt_writer *w, uint32_t id)
{
	if (!id || id > w->str_off.n) {
		return NULL;
	}
	return w->text.buf + w->str_off.v[id - 1];
}

uint32_t gpt_writer_string_ids(const struct gpt_writer *w)
{
	return (uint32_t)w->str_off.n;
}

int gpt_writer_append_chunk(struct gpt_writer *w, const uint8_t *chunk, size_t len)
{
	struct gpt_chunk_header h;
	int ret;

	if (w->err) {
		return w->err;
	}
	if (w->sink || w->packing || len < GPT_CHUNK_HEADER_SIZE ||
	    gpt_chunk_header_unpack(chunk, &h, NULL, 0) ||
	    (uint64_t)h.stored_len + GPT_CHUNK_HEADER_SIZE != len) {
		return -GP_ERR_API;
	}
	struct gpt_index_entry ie = {.offset = w->offset, .kind = h.kind, .count = h.count,
				     .first_ts = h.first_ts, .last_ts = h.last_ts};
	ret = write_all(w, chunk, len);
	if (ret) {
		return ret;
	}
	w->stats.chunks++;
	w->stats.raw_bytes += h.raw_len;
	if (h.kind < GPT_KIND__MAX && h.kind != GPT_KIND_STRING) {
		w->stats.records[h.kind] += h.count;
	}
	if (h.kind != GPT_KIND_INDEX && gp_vec_push(&w->index, ie)) {
		return set_err(w, -GP_ERR_NOMEM, "out of memory growing the index");
	}
	return 0;
}

void gpt_writer_get_stats(const struct gpt_writer *w, struct gpt_writer_stats *st)
{
	*st = w->stats;
}
