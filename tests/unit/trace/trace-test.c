/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define FIXED_CREATED 1767225600000000000ULL

void tt_buf_free(struct tt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

int tt_writer_open(struct tt_mem_writer *mw, const struct gpt_writer_opts *opts)
{
	int fd = memfd_create("gpuprof-test", MFD_CLOEXEC);

	mw->w = NULL;
	mw->keep_fd = -1;
	if (fd < 0) {
		return -GP_ERR_IO;
	}
	mw->keep_fd = dup(fd);
	if (mw->keep_fd < 0) {
		close(fd);
		return -GP_ERR_IO;
	}
	/* The writer owns (closes) fd; keep_fd reads the bytes back afterwards. */
	return gpt_writer_open_fd(fd, "mem.gpz", opts, &mw->w);
}

static int slurp(int fd, struct tt_buf *out)
{
	struct stat sb;
	size_t got = 0;

	out->p = NULL;
	out->len = 0;
	if (fstat(fd, &sb)) {
		close(fd);
		return -GP_ERR_IO;
	}
	out->p = malloc((size_t)sb.st_size + 1);
	if (!out->p) {
		close(fd);
		return -GP_ERR_NOMEM;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = pread(fd, out->p + got, (size_t)sb.st_size - got, (off_t)got);
		if (n <= 0) {
			close(fd);
			return -GP_ERR_IO;
		}
		got += (size_t)n;
	}
	out->len = got;
	close(fd);
	return 0;
}

int tt_writer_finish(struct tt_mem_writer *mw, struct tt_buf *out)
{
	int ret = gpt_writer_close(mw->w);
	int ret2 = slurp(mw->keep_fd, out);

	mw->w = NULL;
	return ret ? ret : ret2;
}

int tt_writer_abandon_finish(struct tt_mem_writer *mw, struct tt_buf *out)
{
	gpt_writer_abandon(mw->w);
	mw->w = NULL;
	return slurp(mw->keep_fd, out);
}

void tt_fix_file_crc(uint8_t *p)
{
	gp_put_le32(p + 28, gp_crc32(0, p, 28));
}

void tt_fix_chunk_crc(uint8_t *p, uint64_t off)
{
	gp_put_le32(p + off + 44, gp_crc32(0, p + off, 44));
}

int tt_gen_trace(const struct gen_opts *go, const struct gpt_writer_opts *wo, struct tt_buf *out)
{
	struct tt_mem_writer mw;
	struct gen_stats gs;
	int ret = tt_writer_open(&mw, wo);

	out->p = NULL;
	out->len = 0;
	if (ret) {
		if (mw.w) {
			gpt_writer_abandon(mw.w);
		}
		if (mw.keep_fd >= 0) {
			close(mw.keep_fd);
		}
		return ret;
	}
	ret = gen_write(mw.w, go, &gs);
	if (ret) {
		tt_writer_abandon_finish(&mw, out);
		tt_buf_free(out);
		return ret;
	}
	ret = tt_writer_finish(&mw, out);
	if (!ret && out->len >= GPT_FILE_HEADER_SIZE) {
		gp_put_le64(out->p + 20, FIXED_CREATED);
		tt_fix_file_crc(out->p);
	}
	return ret;
}

size_t tt_walk(const uint8_t *p, size_t len, struct tt_chunk *out, size_t max, uint64_t *trailer)
{
	uint64_t off = gp_get_le32(p + 16); /* header length */
	size_t n = 0;

	while (off + GPT_CHUNK_HEADER_SIZE <= len && gp_get_le32(p + off) == GPT_CHUNK_MAGIC &&
	       n < max) {
		const uint8_t *h = p + off;
		struct tt_chunk *c = &out[n++];
		c->off = off;
		c->kind = gp_get_le16(h + 4);
		c->flags = gp_get_le16(h + 6);
		c->count = gp_get_le32(h + 8);
		c->raw_len = gp_get_le32(h + 12);
		c->stored_len = gp_get_le32(h + 16);
		c->raw_crc = gp_get_le32(h + 20);
		c->first_ts = gp_get_le64(h + 24);
		c->last_ts = gp_get_le64(h + 32);
		off += GPT_CHUNK_HEADER_SIZE + (uint64_t)c->stored_len;
	}
	*trailer = off;
	return n;
}

size_t tt_units(const struct tt_buf *b, struct tt_unit *u, size_t max)
{
	struct tt_chunk *ch = malloc(max * sizeof(*ch));
	uint64_t trailer;
	size_t n;

	if (!ch) {
		abort();
	}
	n = tt_walk(b->p, b->len, ch, max - 1, &trailer);
	for (size_t i = 0; i < n; i++) {
		u[i] = (struct tt_unit){ch[i].off,
					ch[i].off + GPT_CHUNK_HEADER_SIZE + ch[i].stored_len,
					ch[i].kind, ch[i].count};
	}
	u[n] = (struct tt_unit){trailer, b->len, 0, 0};
	free(ch);
	return n + 1;
}

void tt_recs_push(struct tt_recs *r, const struct gpt_kind_info *ki, const void *rec)
{
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		uint8_t *nv = realloc(r->v, nc * ki->size);
		if (!nv) {
			abort();
		}
		r->v = nv;
		r->cap = nc;
	}
	memcpy(r->v + r->n * ki->size, rec, ki->size);
	r->n++;
}

const struct gpt_field *tt_rec_diff(const struct gpt_kind_info *ki, const void *a, const void *b)
{
	for (size_t i = 0; i < ki->nfields; i++) {
		if (gpt_field_get(&ki->fields[i], a) != gpt_field_get(&ki->fields[i], b)) {
			return &ki->fields[i];
		}
	}
	return NULL;
}

void tt_read_all(const uint8_t *p, size_t len, const char *name, struct tt_read *out)
{
	struct gpt_reader *r = NULL;
	struct gpt_chunk c;

	memset(out, 0, sizeof(*out));
	out->strings_ok = true;
	out->open_ret = gpt_reader_open_mem(p, len, name, &r);
	if (out->open_ret) {
		if (r) {
			snprintf(out->last_error, sizeof(out->last_error), "%s",
				 gpt_reader_last_error(r));
		}
		gpt_reader_free(r);
		return;
	}
	while ((out->next_ret = gpt_reader_next(r, &c)) == 1) {
		const struct gpt_kind_info *ki = c.info;
		out->chunks++;
		for (uint32_t i = 0; i < c.count; i++) {
			const uint8_t *rec = (const uint8_t *)c.records + (size_t)i * ki->size;
			tt_recs_push(&out->recs[c.kind], ki, rec);
			for (size_t f = 0; f < ki->nfields; f++) {
				const struct gpt_field *fl = &ki->fields[f];
				if (fl->type == GPT_TY_str &&
				    !gpt_reader_string(r, (uint32_t)gpt_field_get(fl, rec))) {
					out->strings_ok = false;
				}
			}
		}
	}
	gpt_reader_get_status(r, &out->st);
	size_t n;
	const struct gpt_problem *pr = gpt_reader_problems(r, &n);
	out->nproblems = n;
	if (n) {
		memcpy(out->problems, pr, sizeof(pr[0]) * (n < 16 ? n : 16));
	}
	snprintf(out->last_error, sizeof(out->last_error), "%s", gpt_reader_last_error(r));
	gpt_reader_free(r);
}

void tt_read_release(struct tt_read *rd)
{
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		free(rd->recs[k].v);
		rd->recs[k].v = NULL;
		rd->recs[k].n = rd->recs[k].cap = 0;
	}
}

void tt_put_file_header(struct gp_strbuf *sb, uint16_t major, uint16_t minor)
{
	uint8_t h[GPT_FILE_HEADER_SIZE];

	memcpy(h, "\x89GPZ\r\n\x1a\n", 8);
	gp_put_le16(h + 8, major);
	gp_put_le16(h + 10, minor);
	gp_put_le32(h + 12, 0);
	gp_put_le32(h + 16, GPT_FILE_HEADER_SIZE);
	gp_put_le64(h + 20, FIXED_CREATED);
	gp_put_le32(h + 28, gp_crc32(0, h, 28));
	gp_strbuf_add(sb, h, sizeof(h));
}

void tt_put_chunk(struct gp_strbuf *sb, uint16_t kind, uint32_t count, const void *raw,
		  size_t raw_len, bool deflated)
{
	struct gpt_chunk_header h = {
		.kind = kind,
		.count = count,
		.raw_len = (uint32_t)raw_len,
		.raw_crc = gp_crc32(0, raw, raw_len),
	};
	uint8_t hb[GPT_CHUNK_HEADER_SIZE];
	uint8_t *z = NULL;
	size_t zlen = raw_len;

	if (deflated) {
		z_stream zs = {0};
		uLong bound;
		if (deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			abort();
		}
		bound = deflateBound(&zs, (uLong)raw_len);
		z = malloc(bound);
		if (!z) {
			abort();
		}
		zs.next_in = (Bytef *)raw;
		zs.avail_in = (uInt)raw_len;
		zs.next_out = z;
		zs.avail_out = (uInt)bound;
		if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
			abort();
		}
		zlen = bound - zs.avail_out;
		deflateEnd(&zs);
		h.flags = GPT_CHUNK_FLAG_DEFLATE;
	}
	h.stored_len = (uint32_t)zlen;
	gpt_chunk_header_pack(&h, hb);
	gp_strbuf_add(sb, hb, sizeof(hb));
	gp_strbuf_add(sb, deflated ? z : raw, zlen);
	free(z);
}
