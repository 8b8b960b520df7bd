/* SPDX-License-Identifier: MIT */
/*
 * make-corpus - regenerate the corpus of broken traces in tests/corpus/.
 *
 *   sh tests/corpus/make-corpus.sh          (builds this program and runs it)
 *   make-corpus DIR                         (writes DIR/NAME.gpz and DIR/NAME.expect)
 *
 * Each NAME.gpz is a small trace from the seeded generator, damaged in one
 * known way. NAME.expect holds the line the reader must leave in
 * gpt_reader_last_error() after opening NAME.gpz (by that relative name) and
 * reading it to the end. The expected lines are written here from what was
 * done to the file (chunk index, offsets, lengths) and from the reader's
 * documented messages; nothing here runs the reader.
 */
#include "base/compat.h"
#include "tests/tools/gen.h"
#include "trace/format.h"

#include <stdio.h>
#include <unistd.h>

#define FIXED_CREATED 1767225600000000000ULL
#define MAX_CHUNKS 512

struct file {
	uint8_t *p;
	size_t len;
};

struct chunk {
	uint64_t off, end;
	uint16_t kind, flags;
	uint32_t count, stored_len, raw_len;
};

static const char *outdir;
static int failures;

static void die(const char *what)
{
	fprintf(stderr, "make-corpus: %s\n", what);
	exit(1);
}

/* A generated trace in memory, with a fixed creation time so runs are identical. */
static struct file gen_base(int level)
{
	struct gpt_writer_opts wo = {.level = level, .chunk_records = 6};
	struct gen_opts go;
	struct gen_stats gs;
	struct gpt_writer *w;
	char path[PATH_MAX];
	struct file f;
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "%s/make-corpus-XXXXXX", gp_tmpdir());
	fd = mkstemp(path);

	if (fd < 0) {
		die("cannot create a temporary file");
	}
	gen_opts_default(&go);
	go.seed = 3;
	go.steps = 1;
	go.kernels_per_step = 10;
	go.copies_per_step = 1;
	go.nvtx_depth = 1;
	go.all_kinds = true;
	if (gpt_writer_open_fd(fd, path, &wo, &w) || gen_write(w, &go, &gs) ||
	    gpt_writer_close(w)) {
		die("cannot write the base trace");
	}
	fp = fopen(path, "rb");
	if (!fp) {
		die("cannot read the base trace");
	}
	f.p = malloc(1 << 20);
	if (!f.p) {
		die("out of memory");
	}
	f.len = fread(f.p, 1, 1 << 20, fp);
	fclose(fp);
	unlink(path);
	gp_put_le64(f.p + 20, FIXED_CREATED);
	gp_put_le32(f.p + 28, gp_crc32(0, f.p, 28));
	return f;
}

static size_t walk(const struct file *f, struct chunk *c, uint64_t *trailer)
{
	uint64_t off = GPT_FILE_HEADER_SIZE;
	size_t n = 0;

	while (off + GPT_CHUNK_HEADER_SIZE <= f->len &&
	       gp_get_le32(f->p + off) == GPT_CHUNK_MAGIC && n < MAX_CHUNKS) {
		const uint8_t *h = f->p + off;
		c[n].off = off;
		c[n].kind = gp_get_le16(h + 4);
		c[n].flags = gp_get_le16(h + 6);
		c[n].count = gp_get_le32(h + 8);
		c[n].raw_len = gp_get_le32(h + 12);
		c[n].stored_len = gp_get_le32(h + 16);
		c[n].end = off + GPT_CHUNK_HEADER_SIZE + c[n].stored_len;
		off = c[n].end;
		n++;
	}
	*trailer = off;
	return n;
}

static struct file copy(const struct file *f)
{
	struct file c = {malloc(f->len + 4096), f->len};

	if (!c.p) {
		die("out of memory");
	}
	memcpy(c.p, f->p, f->len);
	return c;
}

static void fix_chunk_crc(struct file *f, uint64_t off)
{
	gp_put_le32(f->p + off + 44, gp_crc32(0, f->p + off, 44));
}

/* Replaces chunk c of f by an uncompressed chunk with the given raw payload. */
static struct file replace_chunk(const struct file *f, const struct chunk *c, uint16_t kind,
				 uint32_t count, const uint8_t *raw, size_t raw_len)
{
	struct gpt_chunk_header h = {.kind = kind,
				     .count = count,
				     .raw_len = (uint32_t)raw_len,
				     .stored_len = (uint32_t)raw_len,
				     .raw_crc = gp_crc32(0, raw, raw_len)};
	struct file n = {malloc(f->len + raw_len + GPT_CHUNK_HEADER_SIZE), 0};

	if (!n.p) {
		die("out of memory");
	}
	memcpy(n.p, f->p, c->off);
	gpt_chunk_header_pack(&h, n.p + c->off);
	memcpy(n.p + c->off + GPT_CHUNK_HEADER_SIZE, raw, raw_len);
	n.len = c->off + GPT_CHUNK_HEADER_SIZE + raw_len;
	memcpy(n.p + n.len, f->p + c->end, f->len - c->end);
	n.len += f->len - c->end;
	return n;
}

static void emit(const char *name, const struct file *f, const char *fmt, ...) GP_PRINTF(3, 4);
static void emit(const char *name, const struct file *f, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	FILE *fp;

	if (f->len > 20000) {
		fprintf(stderr, "make-corpus: %s is %zu bytes, over the 20 KB budget\n", name,
			f->len);
		failures++;
	}
	snprintf(path, sizeof(path), "%s/%s.gpz", outdir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(f->p, 1, f->len, fp) != f->len || fclose(fp)) {
		die("cannot write a .gpz file");
	}
	snprintf(path, sizeof(path), "%s/%s.expect", outdir, name);
	fp = fopen(path, "w");
	if (!fp) {
		die("cannot write a .expect file");
	}
	fprintf(fp, "%s.gpz: ", name);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
	fputc('\n', fp);
	if (fclose(fp)) {
		die("cannot write a .expect file");
	}
}

/* The two base traces, their chunks, and the chunks the cases damage. */
struct corpus {
	struct file base, stored; /* deflate level 6; level 0 (stored chunks) */
	struct chunk cc[MAX_CHUNKS], cu[MAX_CHUNKS];
	uint64_t tc, tu; /* the trailers' offsets */
	size_t nc, nu;
	/* Victims: the first compressed kernel chunk; the stored trace's second string chunk. */
	size_t k, s2, ku;
};

static void find_victims(struct corpus *c)
{
	c->k = c->s2 = c->ku = SIZE_MAX;
	for (size_t i = 0; i < c->nc && c->k == SIZE_MAX; i++) {
		if (c->cc[i].kind == GPT_KIND_KERNEL && (c->cc[i].flags & GPT_CHUNK_FLAG_DEFLATE)) {
			c->k = i;
		}
	}
	for (size_t i = 0, seen = 0; i < c->nu && c->s2 == SIZE_MAX; i++) {
		if (c->cu[i].kind == GPT_KIND_STRING && ++seen == 2) {
			c->s2 = i;
		}
	}
	for (size_t i = 0; i < c->nu && c->ku == SIZE_MAX; i++) {
		if (c->cu[i].kind == GPT_KIND_KERNEL) {
			c->ku = i;
		}
	}
	if (c->k == SIZE_MAX || c->s2 == SIZE_MAX || c->ku == SIZE_MAX || c->k + 2 >= c->nc) {
		die("the base traces lack the chunks the corpus needs");
	}
}

static void header_cases(const struct corpus *c)
{
	struct file f;

	/* ---- the file header */
	f = (struct file){c->base.p, 0};
	emit("empty", &f, "truncated: 0 bytes, shorter than the 32-byte file header");
	f = (struct file){c->base.p, 20};
	emit("cut-header", &f, "truncated: 20 bytes, shorter than the 32-byte file header");
	f = copy(&c->base);
	f.p[1] = 'X';
	emit("bad-magic", &f, "not a gpuprof trace (bad magic)");
	f = copy(&c->base);
	gp_put_le16(f.p + 8, 3);
	gp_put_le16(f.p + 10, 0);
	gp_put_le32(f.p + 28, gp_crc32(0, f.p, 28));
	emit("newer-major", &f,
	     "written in trace format 3.0, newer than this gpuprof reads (2.x); upgrade gpuprof");
	f = copy(&c->base);
	gp_put_le16(f.p + 8, 0);
	gp_put_le32(f.p + 28, gp_crc32(0, f.p, 28));
	emit("major-zero", &f, "bad file header: format version 0");
	f = copy(&c->base);
	f.p[22] ^= 0x20; /* creation time */
	emit("bad-header-crc", &f, "bad file header: crc mismatch");
	f = copy(&c->base);
	gp_put_le32(f.p + 16, 8);
	gp_put_le32(f.p + 28, gp_crc32(0, f.p, 28));
	emit("bad-header-length", &f, "bad file header: header length 8");
	f = copy(&c->base);
	gp_put_le32(f.p + 16, 64);
	gp_put_le32(f.p + 28, gp_crc32(0, f.p, 28));
	f.len = 40;
	emit("cut-long-header", &f, "truncated inside the file header");
}

static void cut_cases(const struct corpus *c)
{
	const struct chunk *v = &c->cc[c->k];
	size_t k = c->k;
	struct file f;

	/* ---- cuts */
	f = (struct file){c->base.p, v->off + 20};
	emit("cut-chunk-header", &f,
	     "chunk %zu at offset %" PRIu64
	     ": truncated: the file ends inside a chunk header (20 of 48 bytes)",
	     k, v->off);
	f = (struct file){c->base.p, v->off + GPT_CHUNK_HEADER_SIZE + v->stored_len / 2};
	emit("cut-payload", &f,
	     "chunk %zu at offset %" PRIu64 ": truncated: the chunk needs %" PRIu64
	     " bytes, the file has %" PRIu64,
	     k, v->off, v->end - v->off, (uint64_t)GPT_CHUNK_HEADER_SIZE + v->stored_len / 2);
	f = (struct file){c->base.p, c->cc[k + 1].off};
	emit("no-footer", &f,
	     "chunk %zu at offset %" PRIu64 ": no footer: the writer did not finish the file",
	     k + 1, c->cc[k + 1].off);
	f = (struct file){c->base.p, c->tc + 10};
	emit("cut-trailer", &f,
	     "chunk %zu at offset %" PRIu64
	     ": truncated: the file ends inside a chunk header (10 of 48 bytes)",
	     c->nc, c->tc);
}

static void damaged_chunk_cases(const struct corpus *c)
{
	const struct chunk *v = &c->cc[c->k];
	size_t k = c->k, ku = c->ku;
	struct file f;

	/* ---- damaged chunks: skipped, reading goes on to the footer */
	f = copy(&c->base);
	f.p[v->off + 20] ^= 0x01; /* raw_crc, header crc made valid again */
	fix_chunk_crc(&f, v->off);
	emit("bad-chunk-crc", &f, "chunk %zu at offset %" PRIu64 ": bad chunk crc", k, v->off);
	f = copy(&c->stored);
	f.p[c->cu[ku].off + GPT_CHUNK_HEADER_SIZE + c->cu[ku].stored_len / 2] ^= 0x08;
	emit("bad-chunk-crc-stored", &f, "chunk %zu at offset %" PRIu64 ": bad chunk crc", ku,
	     c->cu[ku].off);
	f = copy(&c->base);
	f.p[v->off + 9] ^= 0x04; /* count */
	emit("bad-chunk-header-crc", &f,
	     "chunk %zu at offset %" PRIu64 ": bad chunk header crc; skipped %" PRIu64 " bytes", k,
	     v->off, v->end - v->off);
	f = copy(&c->base);
	f.p[v->off + 2] = 'X';
	emit("bad-chunk-magic", &f,
	     "chunk %zu at offset %" PRIu64 ": bad chunk magic; skipped %" PRIu64 " bytes", k,
	     v->off, v->end - v->off);
	f = copy(&c->base);
	f.p[v->off + GPT_CHUNK_HEADER_SIZE] = 0x07; /* final block of the invalid type 3 */
	emit("inflate-failure", &f,
	     "chunk %zu at offset %" PRIu64 ": cannot inflate the chunk: invalid block type", k,
	     v->off);
	f = copy(&c->base);
	gp_put_le16(f.p + v->off + 6, GPT_CHUNK_FLAG_DEFLATE | 0x4);
	fix_chunk_crc(&f, v->off);
	emit("unknown-flags", &f, "chunk %zu at offset %" PRIu64 ": unknown chunk flags 0x5", k,
	     v->off);
	f = copy(&c->base);
	gp_put_le32(f.p + v->off + 8, 1u << 21);
	fix_chunk_crc(&f, v->off);
	emit("oversized-count", &f,
	     "chunk %zu at offset %" PRIu64
	     ": 2097152 records exceed the format's limit of 131072 per chunk",
	     k, v->off);
	f = copy(&c->base);
	gp_put_le32(f.p + v->off + 12, 100u << 20);
	fix_chunk_crc(&f, v->off);
	emit("oversized-chunk", &f,
	     "chunk %zu at offset %" PRIu64 ": chunk of 104857600 bytes exceeds the format's limit",
	     k, v->off);
	f = copy(&c->base);
	gp_put_le32(f.p + v->off + 16, (uint32_t)c->base.len);
	fix_chunk_crc(&f, v->off);
	/* The file ends with its trailer: whole, so the length is corrupt, not the file cut. */
	emit("stored-len-past-end", &f,
	     "chunk %zu at offset %" PRIu64 ": bad chunk length: %" PRIu64
	     " bytes past the end of the file; skipped %" PRIu64 " bytes",
	     k, v->off, v->off + GPT_CHUNK_HEADER_SIZE, v->end - v->off);
}

static void hostile_content_cases(const struct corpus *c)
{
	const struct chunk *v = &c->cc[c->k];
	size_t k = c->k, s2 = c->s2;
	struct file f;

	/* ---- valid CRCs, hostile content */
	{
		/* The second string chunk says it starts at id 1 again. */
		const struct chunk *sc = &c->cu[s2];
		const uint8_t *raw = c->stored.p + sc->off + GPT_CHUNK_HEADER_SIZE;
		const uint8_t *q = raw;
		uint64_t first;
		if (!gpt_get_varint(&q, raw + sc->raw_len, &first) || first < 2) {
			die("the second string chunk is not what the corpus expects");
		}
		uint8_t *nr = malloc(sc->raw_len + 1);
		if (!nr) {
			die("out of memory");
		}
		nr[0] = 1;
		size_t rest = sc->raw_len - (size_t)(q - raw);
		memcpy(nr + 1, q, rest);
		f = replace_chunk(&c->stored, sc, GPT_KIND_STRING, sc->count, nr, 1 + rest);
		emit("bad-string-chunk", &f,
		     "chunk %zu at offset %" PRIu64 ": bad string chunk: string ids defined twice",
		     s2, sc->off);
		free(nr);
	}
	{
		static const uint8_t repeated[] = {2, 6, GPT_ENC_CONST, 3, 6, GPT_ENC_CONST, 4};
		f = replace_chunk(&c->base, v, GPT_KIND_KERNEL, 1, repeated, sizeof(repeated));
		emit("repeated-column", &f,
		     "chunk %zu at offset %" PRIu64 ": bad kernel chunk: column repeated", k,
		     v->off);
		static const uint8_t unknown_enc[] = {1, 6, 9, 3};
		f = replace_chunk(&c->base, v, GPT_KIND_KERNEL, 1, unknown_enc,
				  sizeof(unknown_enc));
		emit("unknown-encoding", &f,
		     "chunk %zu at offset %" PRIu64 ": bad kernel chunk: unknown column encoding",
		     k, v->off);
		static const uint8_t long_col[] = {1, 6, GPT_ENC_VARINT, 50, 1, 2, 3};
		f = replace_chunk(&c->base, v, GPT_KIND_KERNEL, 3, long_col, sizeof(long_col));
		emit("column-longer-than-chunk", &f,
		     "chunk %zu at offset %" PRIu64
		     ": bad kernel chunk: column longer than its chunk",
		     k, v->off);
		static const uint8_t u8_range[] = {1, 9, GPT_ENC_CONST, 0x80, 0x02};
		f = replace_chunk(&c->base, v, GPT_KIND_MEMSET, 1, u8_range, sizeof(u8_range));
		emit("value-out-of-range", &f,
		     "chunk %zu at offset %" PRIu64
		     ": bad memset chunk: value out of range for its field",
		     k, v->off);
	}
}

static void after_footer_case(const struct corpus *c)
{
	struct file f;

	/* ---- after the footer */
	f = copy(&c->base);
	memset(f.p + f.len, 'x', 64);
	f.len += 64;
	emit("garbage-after-footer", &f,
	     "chunk %zu at offset %" PRIu64 ": bad chunk magic; skipped %u bytes", c->nc, c->tc,
	     GPT_TRAILER_SIZE + 64);
}

int main(int argc, char **argv)
{
	static struct corpus c;

	if (argc != 2) {
		fprintf(stderr, "usage: make-corpus DIR\n");
		return 2;
	}
	outdir = argv[1];
	c.base = gen_base(6);
	c.stored = gen_base(0);
	c.nc = walk(&c.base, c.cc, &c.tc);
	c.nu = walk(&c.stored, c.cu, &c.tu);
	if (c.tc + GPT_TRAILER_SIZE != c.base.len || c.tu + GPT_TRAILER_SIZE != c.stored.len) {
		die("the base traces do not end with a trailer");
	}
	find_victims(&c);
	header_cases(&c);
	cut_cases(&c);
	damaged_chunk_cases(&c);
	hostile_content_cases(&c);
	after_footer_case(&c);
	return failures ? 1 : 0;
}
