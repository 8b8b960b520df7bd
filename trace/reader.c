/* SPDX-License-Identifier: MIT */
/*
 * reader.c - the .gpz reader. The file is hostile: every length, count, id
 * and offset is checked before use; memory is bounded by the limits in
 * trace.h whatever the file says. A corrupt chunk is skipped where its
 * header can be trusted, else the reader scans for the next valid header;
 * either way it is reported with its index, offset and reason.
 */
#define GP_LOG_TAG "trace/reader"
#include "base/compat.h"
#include "trace/format.h"
#include "trace/prefetch.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef GPT_HAVE_LIBDEFLATE
/*
 * libdeflate (Debian: libdeflate-dev) inflates a whole chunk about 1.6x as
 * fast as zlib and has a faster CRC-32. A chunk it refuses goes through zlib
 * again, so the reasons given for damaged chunks are zlib's either way.
 */
#include <libdeflate.h>
#endif

#define MAX_PROBLEMS_KEPT 256
#define MAX_STRING_IDS (1u << 24)     /* ids, defined or skipped, in one file */
#define MAX_STRING_ID_GAP (1u << 20)  /* ids one string chunk may skip (lost chunks) */
#define ARENA_BLOCK (256u << 10)

struct gpt_reader {
	char *name;
	int fd;
	const uint8_t *mem;
	uint64_t size, pos;
	uint32_t chunk_index;
	bool index_seen, done;
	bool end_logged; /* the debug line at the end of the file is out */
	uint32_t header_len;

	/*
	 * A packed chunk being read (format 2.x, FORMAT.md 12.3): its payload
	 * is in raw[0..pk_len), the next inner chunk at pk_pos, pk_left still
	 * to come. pk_off is the packed chunk's file offset, for problems.
	 */
	bool in_pack, pk_bad;
	size_t pk_pos, pk_len;
	uint32_t pk_left;
	uint64_t pk_off;
	/*
	 * The packed chunk is cut by the end of the file (pk_cut): pk_len is what
	 * inflated from the bytes there, pk_need the chunk's length, pk_count its
	 * inner chunks; those read whole are kept.
	 */
	bool pk_cut;
	uint32_t pk_count, pk_idx;
	uint64_t pk_need;
	/*
	 * The file is full length: it ends with a valid trailer, or is a header
	 * and one packed chunk that ends it. Damage in it is corruption, not a cut.
	 */
	bool trailer_at_end, pack_spans_file;

	struct gpt_reader_status st;
	char errbuf[320];

	uint8_t *stored;
	size_t stored_cap;
	uint8_t *raw;
	size_t raw_cap;
	uint8_t *recs;
	size_t recs_cap;
	z_stream zs;
	bool zinit;
#ifdef GPT_HAVE_LIBDEFLATE
	struct libdeflate_decompressor *ld;
#endif

	/*
	 * Strings live in arena blocks that never move, so the pointers
	 * gpt_reader_string returns stay valid until gpt_reader_free.
	 */
	GP_VEC(const char *) strs; /* by id - 1; NULL for ids never defined */
	GP_VEC(char *) blocks;
	size_t block_used, block_cap;
	uint64_t string_bytes;
	GP_VEC(struct gpt_problem) problems;

	/*
	 * What this file may make the reader inflate, hand out and keep (the
	 * GPT_LIMIT_* of trace.h, from the file's size), and what it has so
	 * far; pf_raw and pf_records count the chunks planned for the workers
	 * as well, whose buffers hold them.
	 */
	uint64_t lim_size, lim_raw, lim_records, lim_strings;
	uint64_t used_raw, used_records, pf_raw, pf_records;

	/*
	 * Worker threads decoding the chunks ahead (gpt_reader_set_threads):
	 * planned from pf_scan on; pf_stopped when the chunk there is one the
	 * reader reads itself; pf_used the job whose records *out borrows.
	 */
	struct gpt_pf *pf;
	uint64_t pf_scan;
	bool pf_stopped;
	bool pf_used;
};

static void set_err(struct gpt_reader *r, const char *fmt, ...) GP_PRINTF(2, 3);
static void set_err(struct gpt_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->errbuf, sizeof(r->errbuf), "%s: ", r->name);

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r->errbuf)) {
		vsnprintf(r->errbuf + n, sizeof(r->errbuf) - (size_t)n, fmt, ap);
	}
	va_end(ap);
}

static void add_problem(struct gpt_reader *r, uint64_t offset, int err, const char *fmt, ...)
	GP_PRINTF(4, 5);
static void add_problem(struct gpt_reader *r, uint64_t offset, int err, const char *fmt, ...)
{
	struct gpt_problem p = {.chunk_index = r->chunk_index, .offset = offset, .err = err};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p.reason, sizeof(p.reason), fmt, ap);
	va_end(ap);
	set_err(r, "chunk %u at offset %" PRIu64 ": %s", p.chunk_index, offset, p.reason);
	if (r->problems.n < MAX_PROBLEMS_KEPT) {
		gp_vec_push(&r->problems, p); /* losing the detail on ENOMEM is acceptable */
	}
	if (err != -GP_ERR_TRUNCATED) {
		r->st.problems++;
	}
	gp_debug("%s: chunk %u at offset %" PRIu64 " skipped (%s): %s", r->name, p.chunk_index,
		 offset, gp_err_str(err), p.reason);
}

/* Reads up to len bytes at off; returns the count (short at end) or -1 on error. */
static ssize_t read_at(struct gpt_reader *r, uint64_t off, void *buf, size_t len)
{
	size_t got = 0;

	if (off >= r->size) {
		return 0;
	}
	if (len > r->size - off) {
		len = (size_t)(r->size - off);
	}
	if (r->mem) {
		memcpy(buf, r->mem + off, len);
		return (ssize_t)len;
	}
	while (got < len) {
		ssize_t n = pread(r->fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			set_err(r, "read failed at offset %" PRIu64 ": %s", off + got,
				strerror(errno));
			return -1;
		}
		if (n == 0) {
			break; /* the file shrank under us */
		}
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int ensure(void **buf, size_t *cap, size_t want)
{
	if (want <= *cap) {
		return 0;
	}
	void *nb = realloc(*buf, want);
	if (!nb) {
		return -GP_ERR_NOMEM;
	}
	*buf = nb;
	*cap = want;
	return 0;
}

static int check_header(struct gpt_reader *r)
{
	uint8_t h[GPT_FILE_HEADER_MAX];
	ssize_t n = read_at(r, 0, h, GPT_FILE_HEADER_SIZE);
	uint32_t hlen;

	if (n < 0) {
		return -GP_ERR_IO;
	}
	if ((size_t)n < 8 ? memcmp(h, GPT_FILE_MAGIC, (size_t)n) != 0
			  : memcmp(h, GPT_FILE_MAGIC, 8) != 0) {
		set_err(r, "not a gpuprof trace (bad magic)");
		return -GP_ERR_FORMAT;
	}
	if (n < GPT_FILE_HEADER_SIZE) {
		set_err(r, "truncated: %zd bytes, shorter than the %d-byte file header", n,
			GPT_FILE_HEADER_SIZE);
		return -GP_ERR_TRUNCATED;
	}
	r->st.major = gp_get_le16(h + 8);
	r->st.minor = gp_get_le16(h + 10);
	if (r->st.major > GPT_FORMAT_MAJOR) {
		/*
		 * A newer major may lay its header out differently, so its CRC is
		 * only checked where this version keeps it: a flipped bit in the
		 * version field is then told from a real newer file.
		 */
		if (gp_get_le32(h + 28) != gp_crc32(0, h, 28) &&
		    gp_get_le32(h + 16) == GPT_FILE_HEADER_SIZE) {
			set_err(r, "bad file header: crc mismatch (it claims trace format %u.%u)",
				r->st.major, r->st.minor);
			return -GP_ERR_CHECKSUM;
		}
		set_err(r, "written in trace format %u.%u, newer than this gpuprof reads (%d.x); "
			   "upgrade gpuprof",
			r->st.major, r->st.minor, GPT_FORMAT_MAJOR);
		return -GP_ERR_VERSION;
	}
	if (r->st.major == 0) {
		set_err(r, "bad file header: format version 0");
		return -GP_ERR_FORMAT;
	}
	r->st.flags = gp_get_le32(h + 12);
	hlen = gp_get_le32(h + 16);
	if (hlen < GPT_FILE_HEADER_SIZE || hlen > GPT_FILE_HEADER_MAX) {
		set_err(r, "bad file header: header length %u", hlen);
		return -GP_ERR_FORMAT;
	}
	if (hlen > GPT_FILE_HEADER_SIZE) {
		n = read_at(r, 0, h, hlen);
		if (n < 0) {
			return -GP_ERR_IO;
		}
		if ((size_t)n < hlen) {
			set_err(r, "truncated inside the file header");
			return -GP_ERR_TRUNCATED;
		}
	}
	if (gp_get_le32(h + hlen - 4) != gp_crc32(0, h, hlen - 4)) {
		set_err(r, "bad file header: crc mismatch");
		return -GP_ERR_CHECKSUM;
	}
	r->st.created_realtime = gp_get_le64(h + 20);
	r->pos = hlen;
	r->header_len = hlen;
	return 0;
}

static int reader_new(const char *name, struct gpt_reader **out)
{
	struct gpt_reader *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r) {
		return -GP_ERR_NOMEM;
	}
	r->fd = -1;
	r->name = strdup(name ? name : "trace");
	if (!r->name) {
		free(r);
		*out = NULL;
		return -GP_ERR_NOMEM;
	}
	if (inflateInit2(&r->zs, -15) != Z_OK) {
		set_err(r, "cannot initialize zlib");
		return -GP_ERR_NOMEM;
	}
	r->zinit = true;
#ifdef GPT_HAVE_LIBDEFLATE
	r->ld = libdeflate_alloc_decompressor();
	if (!r->ld) {
		set_err(r, "cannot initialize libdeflate");
		return -GP_ERR_NOMEM;
	}
#endif
	return 0;
}

static bool is_trailer(struct gpt_reader *r, uint64_t off);

static uint64_t at_least(uint64_t per_byte, uint64_t size, uint64_t min)
{
	if (size > UINT64_MAX / per_byte) {
		return UINT64_MAX;
	}
	return size * per_byte > min ? size * per_byte : min;
}

/* The memory a file of size bytes may make the reader use (trace.h, FORMAT.md 4.2). */
static void set_limits(struct gpt_reader *r, uint64_t size)
{
	r->lim_size = size;
	r->lim_raw = at_least(GPT_LIMIT_RAW_PER_BYTE, size, GPT_LIMIT_RAW_MIN);
	r->lim_records = at_least(GPT_LIMIT_RECORDS_PER_BYTE, size, GPT_LIMIT_RECORDS_MIN);
	r->lim_strings = at_least(GPT_LIMIT_STRINGS_PER_BYTE, size, GPT_LIMIT_STRINGS_MIN);
}

void gpt_reader_limit_as(struct gpt_reader *r, uint64_t size)
{
	if (size > r->size) {
		set_limits(r, size);
	}
}

/*
 * Reading stops: the chunk at off would take the file past one of its
 * limits (what, in units, per_byte of the file's size, at least min).
 */
static int over_limit(struct gpt_reader *r, uint32_t idx, uint64_t off, const char *what,
		      uint64_t limit, const char *units, unsigned per_byte, uint64_t min)
{
	set_err(r, "chunk %u at offset %" PRIu64 ": %s more than %" PRIu64 " %s, the limit for a "
		   "file of %" PRIu64 " bytes (%u per byte, at least %" PRIu64 "); not read further",
		idx, off, what, limit, units, r->lim_size, per_byte, min);
	gp_debug("%s", r->errbuf);
	r->done = true;
	return -GP_ERR_RANGE;
}

/* Checks out the raw payload of the chunk at off against the file's limit. */
static int charge_raw(struct gpt_reader *r, uint32_t idx, uint64_t off, uint32_t raw_len)
{
	if (r->used_raw + raw_len > r->lim_raw) {
		return over_limit(r, idx, off, "its chunks inflate to", r->lim_raw, "bytes",
				  GPT_LIMIT_RAW_PER_BYTE, GPT_LIMIT_RAW_MIN);
	}
	r->used_raw += raw_len;
	return 0;
}

/* Checks out the records of the chunk at off against the file's limit. */
static int charge_records(struct gpt_reader *r, uint32_t idx, uint64_t off, uint64_t count)
{
	if (r->used_records + count > r->lim_records) {
		return over_limit(r, idx, off, "its chunks hold", r->lim_records, "records",
				  GPT_LIMIT_RECORDS_PER_BYTE, GPT_LIMIT_RECORDS_MIN);
	}
	r->used_records += count;
	return 0;
}

/* Checks the header of a file just opened. */
static int opened(struct gpt_reader *r)
{
	int ret = check_header(r);

	if (ret) {
		gp_debug("not opened: %s", r->errbuf);
		return ret;
	}
	set_limits(r, r->size);
	r->trailer_at_end = r->size >= (uint64_t)r->header_len + GPT_TRAILER_SIZE &&
			    is_trailer(r, r->size - GPT_TRAILER_SIZE);
	gp_debug("%s: trace format %u.%u, %" PRIu64 " bytes, header %u bytes", r->name,
		 r->st.major, r->st.minor, r->size, r->header_len);
	return 0;
}

static int open_fd(struct gpt_reader *r)
{
	struct stat sb;

	if (fstat(r->fd, &sb)) {
		set_err(r, "cannot stat: %s", strerror(errno));
		return -GP_ERR_IO;
	}
	if (!S_ISREG(sb.st_mode)) {
		set_err(r, "not a regular file");
		return -GP_ERR_IO;
	}
	r->size = (uint64_t)sb.st_size;
	r->st.file_bytes = r->size;
	return opened(r);
}

int gpt_reader_open(const char *path, struct gpt_reader **out)
{
	struct gpt_reader *r;
	int ret = reader_new(path, &r);

	*out = r; /* also on error, when allocated: gpt_reader_last_error explains */
	if (ret) {
		return ret;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		set_err(r, "cannot open: %s", strerror(errno));
		return -GP_ERR_IO;
	}
	return open_fd(r);
}

int gpt_reader_open_fd(int fd, const char *name, struct gpt_reader **out)
{
	struct gpt_reader *r;
	int ret = reader_new(name, &r);

	*out = r;
	if (ret) {
		close(fd);
		return ret;
	}
	r->fd = fd;
	return open_fd(r);
}

int gpt_reader_open_mem(const void *data, size_t len, const char *name, struct gpt_reader **out)
{
	struct gpt_reader *r;
	int ret = reader_new(name, &r);

	*out = r;
	if (ret) {
		return ret;
	}
	r->mem = data;
	r->size = len;
	r->st.file_bytes = len;
	return opened(r);
}

void gpt_reader_free(struct gpt_reader *r)
{
	if (!r) {
		return;
	}
	gpt_pf_stop(r->pf); /* before the file it reads is closed */
	if (r->fd >= 0) {
		close(r->fd);
	}
	if (r->zinit) {
		inflateEnd(&r->zs);
	}
#ifdef GPT_HAVE_LIBDEFLATE
	libdeflate_free_decompressor(r->ld);
#endif
	free(r->stored);
	free(r->raw);
	free(r->recs);
	for (size_t i = 0; i < r->blocks.n; i++) {
		free(r->blocks.v[i]);
	}
	gp_vec_free(&r->blocks);
	gp_vec_free(&r->strs);
	gp_vec_free(&r->problems);
	free(r->name);
	free(r);
}

/* Is the trailer at off, and does it end the file? */
static bool is_trailer(struct gpt_reader *r, uint64_t off)
{
	uint8_t t[GPT_TRAILER_SIZE];

	if (r->size - off != GPT_TRAILER_SIZE || read_at(r, off, t, sizeof(t)) != GPT_TRAILER_SIZE) {
		return false;
	}
	return !memcmp(t, GPT_TRAILER_MAGIC, 8) && gp_get_le32(t + 20) == gp_crc32(0, t, 20);
}

/* Do the bytes at off start as the trailer does (whatever its CRC)? */
static bool has_trailer_magic(struct gpt_reader *r, uint64_t off)
{
	uint8_t t[8];

	return read_at(r, off, t, sizeof(t)) == (ssize_t)sizeof(t) &&
	       !memcmp(t, GPT_TRAILER_MAGIC, sizeof(t));
}

/*
 * After a header that cannot be trusted: find the next offset holding a
 * valid chunk header or the trailer. Returns r->size if there is none.
 */
static uint64_t resync(struct gpt_reader *r, uint64_t from)
{
	uint8_t buf[65536];
	uint64_t off = from;

	while (off < r->size) {
		ssize_t n = read_at(r, off, buf, sizeof(buf));
		if (n <= 0) {
			break;
		}
		size_t lim = (size_t)n;
		for (size_t i = 0; i < lim; i++) {
			if (buf[i] == 'G' && off + i + GPT_TRAILER_SIZE == r->size &&
			    is_trailer(r, off + i)) {
				return off + i;
			}
			if (buf[i] != 'G' || off + i + GPT_CHUNK_HEADER_SIZE > r->size) {
				continue;
			}
			uint8_t hb[GPT_CHUNK_HEADER_SIZE];
			struct gpt_chunk_header h;
			if (i + GPT_CHUNK_HEADER_SIZE <= lim) {
				memcpy(hb, buf + i, sizeof(hb));
			} else if (read_at(r, off + i, hb, sizeof(hb)) != (ssize_t)sizeof(hb)) {
				continue;
			}
			if (!gpt_chunk_header_unpack(hb, &h, NULL, 0)) {
				return off + i;
			}
		}
		off += lim;
	}
	return r->size;
}

static int absorb_strings(struct gpt_reader *r, const uint8_t *p, size_t len, uint32_t count,
			  char *errbuf, size_t errlen)
{
	const uint8_t *end = p + len;
	uint64_t first;

	if (!gpt_get_varint(&p, end, &first) || first == 0 || first > UINT32_MAX) {
		snprintf(errbuf, errlen, "bad first string id");
		return -GP_ERR_FORMAT;
	}
	if (first <= r->strs.n) {
		snprintf(errbuf, errlen, "string ids defined twice");
		return -GP_ERR_FORMAT;
	}
	if (first - 1 - r->strs.n > MAX_STRING_ID_GAP ||
	    first - 1 + count > MAX_STRING_IDS) {
		snprintf(errbuf, errlen, "string ids out of range");
		return -GP_ERR_FORMAT;
	}
	/* Validate the whole chunk before changing the table. */
	const uint8_t *q = p;
	uint64_t total = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t sl;
		if (!gpt_get_varint(&q, end, &sl) || sl > GPT_MAX_STRING_BYTES ||
		    sl > (uint64_t)(end - q)) {
			snprintf(errbuf, errlen, "string longer than its chunk");
			return -GP_ERR_FORMAT;
		}
		q += sl;
		total += sl + 1;
	}
	if (q != end) {
		snprintf(errbuf, errlen, "bytes after the last string");
		return -GP_ERR_FORMAT;
	}
	/* Memory: the bytes, their NULs, and a pointer per id defined or skipped; the bytes alone
	 * within the format's limit. */
	if (r->string_bytes + total + (first - 1 + count) * sizeof(char *) > r->lim_strings ||
	    r->string_bytes + total > GPT_MAX_STRINGS_BYTES) {
		snprintf(errbuf, errlen, "strings exceed the reader's limit");
		return -GP_ERR_RANGE;
	}
	/* Ids skipped by a lost chunk stay undefined. */
	if (gp_vec_reserve(&r->strs, first - 1 + count)) {
		return -GP_ERR_NOMEM;
	}
	while (r->strs.n < first - 1) {
		r->strs.v[r->strs.n++] = NULL;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint64_t sl = 0;
		gpt_get_varint(&p, end, &sl);
		if (r->block_used + sl + 1 > r->block_cap) {
			size_t cap = sl + 1 > ARENA_BLOCK ? (size_t)sl + 1 : ARENA_BLOCK;
			char *b = malloc(cap);
			if (!b || gp_vec_push(&r->blocks, b)) {
				free(b);
				return -GP_ERR_NOMEM;
			}
			r->block_used = 0;
			r->block_cap = cap;
		}
		char *dst = r->blocks.v[r->blocks.n - 1] + r->block_used;
		memcpy(dst, p, (size_t)sl);
		dst[sl] = '\0';
		r->block_used += (size_t)sl + 1;
		r->strs.v[r->strs.n++] = dst;
		p += sl;
	}
	r->string_bytes += total;
	r->st.strings += count;
	return 0;
}


enum take {
	TAKE_ABSORBED = 0, /* strings or index: nothing to return */
	TAKE_RECORDS = 1,  /* *out is filled */
	TAKE_BAD = 2,      /* a problem: reason in errbuf, error in *err */
};

/*
 * Takes the raw payload of a chunk whose kind has a schema or is strings
 * (sections 5 and 6): absorbs strings, checks the index, decodes records
 * into r->recs. Returns enum take, or a negative error that ends reading.
 */
static int take_payload(struct gpt_reader *r, const struct gpt_chunk_header *h,
			const struct gpt_kind_info *ki, const uint8_t *raw, const uint8_t *decoded,
			uint64_t off, uint32_t idx, struct gpt_chunk *out, char *errbuf,
			size_t errlen, int *err)
{
	char reason[128];
	int ret;

	if (h->kind == GPT_KIND_STRING) {
		ret = absorb_strings(r, raw, h->raw_len, h->count, reason, sizeof(reason));
		if (ret == -GP_ERR_NOMEM) {
			set_err(r, "out of memory reading strings");
			return ret;
		}
		if (ret == -GP_ERR_RANGE) {
			return over_limit(r, idx, off, "its strings take", r->lim_strings, "bytes",
					  GPT_LIMIT_STRINGS_PER_BYTE, GPT_LIMIT_STRINGS_MIN);
		}
		if (ret) {
			snprintf(errbuf, errlen, "bad string chunk: %s", reason);
			*err = ret;
			return TAKE_BAD;
		}
		r->st.chunks++;
		return TAKE_ABSORBED;
	}
	if (h->kind != GPT_KIND_INDEX && charge_records(r, idx, off, h->count)) {
		return -GP_ERR_RANGE;
	}
	size_t rb = (size_t)h->count * ki->size;
	if (decoded) {
		ret = 0; /* a worker decoded them (prefetch.c) */
	} else if (ensure((void **)&r->recs, &r->recs_cap, rb + 1)) {
		set_err(r, "out of memory reading chunk %u", idx);
		return -GP_ERR_NOMEM;
	} else {
		/* The codec zeroes the records itself, a cache-sized block at a time. */
		ret = gpt_decode_records_ex(ki, raw, h->raw_len, h->count, r->recs, reason,
					    sizeof(reason), r->st.major >= 2);
	}
	if (ret == -GP_ERR_NOMEM) {
		set_err(r, "out of memory reading chunk %u", idx);
		return ret;
	}
	if (ret) {
		snprintf(errbuf, errlen, "bad %s chunk: %s", ki->name, reason);
		*err = ret;
		return TAKE_BAD;
	}
	if (h->kind == GPT_KIND_INDEX) {
		r->index_seen = true;
		return TAKE_ABSORBED;
	}
	r->st.chunks++;
	r->st.records[h->kind] += h->count;
	out->kind = (enum gpt_kind)h->kind;
	out->info = ki;
	out->count = h->count;
	out->records = decoded ? decoded : r->recs;
	out->first_ts = h->first_ts;
	out->last_ts = h->last_ts;
	out->offset = off;
	out->index = idx;
	return TAKE_RECORDS;
}

/* The end of the file cuts the packed chunk: said once, with what was kept. */
static void pack_cut_said(struct gpt_reader *r)
{
	uint32_t whole = r->pk_count - r->pk_left, next = r->chunk_index;

	r->in_pack = false;
	r->pk_cut = false;
	r->chunk_index = r->pk_idx; /* the problem names the packed chunk */
	add_problem(r, r->pk_off, -GP_ERR_TRUNCATED,
		    "truncated: the packed chunk needs %" PRIu64 " bytes, the file has %" PRIu64
		    "; kept the %u of its %u inner chunks before the cut",
		    r->pk_need, r->size - r->pk_off, whole, r->pk_count);
	r->chunk_index = next;
}

/* The rest of a packed chunk is lost: one problem, counted as skipped bytes. */
static void pack_lost(struct gpt_reader *r, const char *why)
{
	add_problem(r, r->pk_off, -GP_ERR_FORMAT, "bad packed chunk: %s", why);
	r->st.bytes_skipped += r->pk_len - r->pk_pos;
	r->in_pack = false;
	r->pk_bad = true;
}

/*
 * The next inner chunk of the packed chunk being read (FORMAT.md 12.4):
 * returns 1 with *out filled, 0 when the packed chunk is used up, or a
 * negative error that ends reading. Each inner chunk gets every check an
 * ordinary chunk gets, but the CRC, which the packed chunk's covers.
 */
static int next_inner(struct gpt_reader *r, struct gpt_chunk *out)
{
	while (r->in_pack) {
		const uint8_t *base = r->raw, *p = base + r->pk_pos, *end = base + r->pk_len;
		uint64_t kind, count, len, first, span;
		char why[160];
		int err = 0;

		if (!r->pk_left && r->pk_cut) {
			pack_cut_said(r);
			break;
		}
		if (!r->pk_left) {
			r->in_pack = false;
			if (p != end) {
				pack_lost(r, "bytes after the last inner chunk");
			}
			break;
		}
		if (!gpt_get_varint(&p, end, &kind) || !gpt_get_varint(&p, end, &count) ||
		    !gpt_get_varint(&p, end, &len) || !gpt_get_varint(&p, end, &first) ||
		    !gpt_get_varint(&p, end, &span) || (r->pk_cut && len > (uint64_t)(end - p))) {
			if (r->pk_cut) {
				pack_cut_said(r); /* the inner chunks from here on are past the cut */
				break;
			}
			pack_lost(r, "cut inner chunk header");
			break;
		}
		if (len > (uint64_t)(end - p)) {
			pack_lost(r, "inner chunk longer than the packed chunk");
			break;
		}
		uint32_t idx = r->chunk_index++;
		size_t start = r->pk_pos;
		r->pk_pos = (size_t)(p - base) + (size_t)len;
		r->pk_left--;
		if (kind == GPT_KIND_STRING || (kind < GPT_KIND_INDEX && gpt_kind_info((unsigned)kind))) {
			/* checked below */
		} else if (kind == GPT_KIND_INDEX || kind == GPT_KIND_PACKED) {
			snprintf(why, sizeof(why), "inner chunk of kind %" PRIu64, kind);
			err = -GP_ERR_FORMAT;
		} else {
			continue; /* a newer minor's kind: skipped whole, as in 4.4 */
		}
		if (!err && count > GPT_MAX_CHUNK_RECORDS) {
			snprintf(why, sizeof(why), "%" PRIu64 " records exceed the format's limit of %u per chunk",
				 count, GPT_MAX_CHUNK_RECORDS);
			err = -GP_ERR_FORMAT;
		}
		if (!err) {
			struct gpt_chunk_header h = {
				.kind = (uint16_t)kind,
				.count = (uint32_t)count,
				.raw_len = (uint32_t)len, /* <= the packed payload, <= 64 MiB */
				.first_ts = first,
				.last_ts = first + span,
			};
			const struct gpt_kind_info *ki =
				kind == GPT_KIND_STRING ? NULL : gpt_kind_info((unsigned)kind);
			int ret = take_payload(r, &h, ki, p, NULL, r->pk_off, idx, out, why,
					       sizeof(why), &err);
			if (ret < 0 || ret == TAKE_RECORDS) {
				return ret;
			}
			if (ret == TAKE_ABSORBED) {
				continue;
			}
		}
		r->chunk_index = idx; /* the problem names the inner chunk */
		add_problem(r, r->pk_off, err, "%s", why);
		r->chunk_index = idx + 1;
		r->st.bytes_skipped += r->pk_pos - start;
		r->pk_bad = true;
	}
	/* Used up: a packed chunk read whole, ending the file, is its clean close (12.5). */
	if (r->st.truncated) {
		/* cut: said by pack_cut_said */
	} else if (!r->pk_bad && r->pos == r->size) {
		r->st.has_footer = true;
	} else if (!r->pk_bad && r->pos < r->size) {
		add_problem(r, r->pos, -GP_ERR_FORMAT,
			    "%" PRIu64 " bytes after the packed chunk", r->size - r->pos);
		r->st.bytes_skipped += r->size - r->pos;
		r->done = true;
	}
	return 0;
}

/* What a step of gpt_reader_next found, when not a negative error. */
enum step {
	STEP_END = 0,     /* no more chunks */
	STEP_RECORDS = 1, /* *out is filled */
	STEP_AGAIN = 2,   /* on to the next chunk */
	STEP_READY = 3,   /* this chunk checks out so far: on with it */
	STEP_CUT_PACK = 4, /* a packed chunk cut by the end of the file: what precedes the cut */
};

/* Where the chunk being read is: its offset, the next chunk's, and its index. */
struct chunk_at {
	uint64_t off, next;
	uint32_t idx;
};

/*
 * A chunk that does not check out: a problem that names it (r->chunk_index
 * is its index), its bytes skipped; returns STEP_AGAIN.
 */
static int bad_chunk(struct gpt_reader *r, const struct chunk_at *at, int err, const char *fmt, ...)
	GP_PRINTF(4, 5);
static int bad_chunk(struct gpt_reader *r, const struct chunk_at *at, int err, const char *fmt, ...)
{
	char reason[sizeof(((struct gpt_problem *)NULL)->reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	add_problem(r, at->off, err, "%s", reason);
	r->st.bytes_skipped += at->next - at->off;
	r->chunk_index = at->idx + 1;
	return STEP_AGAIN;
}

/* The end of the file reached at off: a clean end only after the footer. */
static int end_of_file(struct gpt_reader *r, uint64_t off)
{
	r->done = true;
	/* A packed file whose one chunk was damaged is whole: the damage is its problem. */
	if (!r->st.has_footer && !r->pack_spans_file) {
		r->st.truncated = true;
		r->st.truncated_at = r->size;
		add_problem(r, off, -GP_ERR_TRUNCATED, "no footer: the writer did not finish the file");
	}
	return STEP_END;
}

/*
 * Is the damaged header at off the first chunk of a 2.x file whose stored
 * length, if it is right, ends the file? Then the file is a packed file of
 * full length whose chunk header is corrupt, not a cut one.
 */
static bool full_length_pack(struct gpt_reader *r, uint64_t off)
{
	uint8_t hb[GPT_CHUNK_HEADER_SIZE];

	if (r->st.major < 2 || off != r->header_len ||
	    read_at(r, off, hb, sizeof(hb)) != (ssize_t)sizeof(hb)) {
		return false;
	}
	return off + GPT_CHUNK_HEADER_SIZE + gp_get_le32(hb + 16) == r->size;
}

/* A chunk header that does not unpack: skips to the next one that does. */
static int resync_after(struct gpt_reader *r, uint64_t off, int err, const char *why)
{
	uint64_t next = resync(r, off + 1);

	add_problem(r, off, err, "%s; skipped %" PRIu64 " bytes", why, next - off);
	r->st.bytes_skipped += next - off;
	r->chunk_index++;
	r->pos = next;
	if (next >= r->size) {
		/* Nothing valid after it: the end is lost, but say it as corruption. */
		r->done = true;
		if (!r->st.has_footer && !full_length_pack(r, off)) {
			r->st.truncated = true;
			r->st.truncated_at = off;
		}
		return STEP_END;
	}
	return STEP_AGAIN;
}

/*
 * Reads the header of the chunk at off into *h: STEP_READY when the file
 * holds the whole chunk, else what comes next (the footer, the end of the
 * file, a skipped header) or a negative error.
 */
static int read_chunk_header(struct gpt_reader *r, uint64_t off, struct gpt_chunk_header *h)
{
	uint8_t hb[GPT_CHUNK_HEADER_SIZE];
	char why[64];
	ssize_t n;
	int ret;

	if (off >= r->size) {
		return end_of_file(r, off);
	}
	if (r->index_seen && is_trailer(r, off)) {
		r->st.has_footer = true;
		r->pos = r->size;
		return STEP_AGAIN;
	}
	if (r->size - off == GPT_TRAILER_SIZE && (r->trailer_at_end || has_trailer_magic(r, off))) {
		/* Full length, but the trailer or the index before it is damaged. */
		r->done = true;
		if (!r->trailer_at_end) {
			add_problem(r, off, -GP_ERR_CHECKSUM, "bad trailer");
			r->st.bytes_skipped += GPT_TRAILER_SIZE;
		}
		return STEP_END;
	}
	n = read_at(r, off, hb, sizeof(hb));
	if (n < 0) {
		return -GP_ERR_IO;
	}
	if ((size_t)n < sizeof(hb)) {
		r->done = true;
		r->st.truncated = true;
		r->st.truncated_at = r->size;
		add_problem(r, off, -GP_ERR_TRUNCATED,
			    "truncated: the file ends inside a chunk header (%zd of %d bytes)", n,
			    GPT_CHUNK_HEADER_SIZE);
		return STEP_END;
	}
	ret = gpt_chunk_header_unpack(hb, h, why, sizeof(why));
	if (ret) {
		return resync_after(r, off, ret, why);
	}
	if (off + GPT_CHUNK_HEADER_SIZE + h->stored_len > r->size) {
		if (r->trailer_at_end) {
			/* The file is whole: the length is wrong, not the file short. */
			snprintf(why, sizeof(why), "bad chunk length: %u bytes past the end of the file",
				 (unsigned)(off + GPT_CHUNK_HEADER_SIZE + h->stored_len - r->size));
			return resync_after(r, off, -GP_ERR_FORMAT, why);
		}
		if (h->kind == GPT_KIND_PACKED && r->st.major >= 2 && off == r->header_len) {
			return STEP_CUT_PACK;
		}
		r->done = true;
		r->st.truncated = true;
		r->st.truncated_at = r->size;
		add_problem(r, off, -GP_ERR_TRUNCATED,
			    "truncated: the chunk needs %" PRIu64 " bytes, the file has %" PRIu64,
			    (uint64_t)GPT_CHUNK_HEADER_SIZE + h->stored_len, r->size - off);
		return STEP_END;
	}
	return STEP_READY;
}

/* The limits a chunk header must keep (FORMAT.md 4): STEP_READY, or the chunk is skipped. */
static int check_chunk(struct gpt_reader *r, const struct gpt_chunk_header *h, bool packed,
		       const struct chunk_at *at)
{
	if (h->flags & ~GPT_CHUNK_FLAGS_KNOWN) {
		return bad_chunk(r, at, -GP_ERR_FORMAT, "unknown chunk flags 0x%x", h->flags);
	}
	if (h->raw_len > GPT_MAX_CHUNK_BYTES || h->stored_len > GPT_MAX_CHUNK_BYTES) {
		return bad_chunk(r, at, -GP_ERR_FORMAT, "chunk of %u bytes exceeds the format's limit",
				 h->raw_len > h->stored_len ? h->raw_len : h->stored_len);
	}
	if (packed && at->off != r->header_len) {
		return bad_chunk(r, at, -GP_ERR_FORMAT, "packed chunk after other chunks");
	}
	if (h->count > GPT_MAX_CHUNK_RECORDS) {
		return bad_chunk(r, at, -GP_ERR_FORMAT,
				 "%u records exceed the format's limit of %u per chunk", h->count,
				 GPT_MAX_CHUNK_RECORDS);
	}
	if (!(h->flags & GPT_CHUNK_FLAG_DEFLATE) && h->stored_len != h->raw_len) {
		return bad_chunk(r, at, -GP_ERR_FORMAT,
				 "stored and raw lengths differ in an uncompressed chunk");
	}
	return STEP_READY;
}

/* Reads the stored bytes of the chunk into r->stored: STEP_READY, STEP_END or an error. */
static int read_stored(struct gpt_reader *r, const struct gpt_chunk_header *h,
		       const struct chunk_at *at)
{
	ssize_t n;

	if (ensure((void **)&r->stored, &r->stored_cap, h->stored_len + 1u) ||
	    ensure((void **)&r->raw, &r->raw_cap, h->raw_len + 1u)) {
		set_err(r, "out of memory reading chunk %u", at->idx);
		return -GP_ERR_NOMEM;
	}
	n = read_at(r, at->off + GPT_CHUNK_HEADER_SIZE, r->stored, h->stored_len);
	if (n < 0) {
		return -GP_ERR_IO;
	}
	if ((size_t)n < h->stored_len) {
		r->done = true;
		r->st.truncated = true;
		r->st.truncated_at = at->off + GPT_CHUNK_HEADER_SIZE + (uint64_t)n;
		add_problem(r, at->off, -GP_ERR_TRUNCATED, "truncated: the file shrank while read");
		return STEP_END;
	}
	return STEP_READY;
}

/*
 * The raw payload of the chunk in r->stored, inflated into r->raw when it
 * is compressed, in *raw; checks its CRC. STEP_READY or the chunk is skipped.
 */
static int unpack_payload(struct gpt_reader *r, const struct gpt_chunk_header *h,
			  const struct chunk_at *at, const uint8_t **raw)
{
	bool inflated = false;

	*raw = r->stored;
#ifdef GPT_HAVE_LIBDEFLATE
	if (h->flags & GPT_CHUNK_FLAG_DEFLATE) {
		size_t in_used = 0, out_got = 0;
		inflated = libdeflate_deflate_decompress_ex(r->ld, r->stored, h->stored_len, r->raw,
							    h->raw_len + 1, &in_used,
							    &out_got) == LIBDEFLATE_SUCCESS &&
			   in_used == h->stored_len && out_got == h->raw_len;
		*raw = r->raw;
	}
#endif
	if ((h->flags & GPT_CHUNK_FLAG_DEFLATE) && !inflated) {
		inflateReset(&r->zs);
		r->zs.next_in = r->stored;
		r->zs.avail_in = h->stored_len;
		r->zs.next_out = r->raw;
		r->zs.avail_out = h->raw_len + 1; /* one spare byte detects a longer stream */
		int zr = inflate(&r->zs, Z_FINISH);
		if (zr != Z_STREAM_END || r->zs.avail_out != 1 || r->zs.avail_in != 0) {
			return bad_chunk(r, at, -GP_ERR_FORMAT, "cannot inflate the chunk: %s",
					 zr == Z_STREAM_END ? "wrong length"
					 : r->zs.msg	    ? r->zs.msg
							    : "stream ends early");
		}
		*raw = r->raw;
	}
	/* zlib's and libdeflate's crc32 are gp_crc32 (FORMAT.md 1), only faster. */
#ifdef GPT_HAVE_LIBDEFLATE
	uint32_t crc = libdeflate_crc32(0, *raw, h->raw_len);
#else
	uint32_t crc = (uint32_t)crc32(0, *raw, h->raw_len);
#endif
	if (crc != h->raw_crc) {
		return bad_chunk(r, at, -GP_ERR_CHECKSUM, "bad chunk crc");
	}
	return STEP_READY;
}

/* A packed chunk checked out: its inner chunks come next, from raw (FORMAT.md 12.4). */
static void start_pack(struct gpt_reader *r, const struct gpt_chunk_header *h, const uint8_t *raw,
		       uint64_t off)
{
	if (raw != r->raw) {
		memcpy(r->raw, raw, h->raw_len); /* stored: no inflate put it there */
	}
	r->in_pack = true;
	r->pk_bad = false;
	r->pk_pos = 0;
	r->pk_len = h->raw_len;
	r->pk_left = h->count;
	r->pk_off = off;
}

/*
 * A packed chunk the end of the file cuts (format 2.x, FORMAT.md 12.5): its
 * bytes up to the cut are inflated as far as they go, and the inner chunks
 * they hold whole are read as from any packed chunk. Its CRC cannot be
 * checked; each inner chunk's own checks still apply.
 */
static int read_cut_pack(struct gpt_reader *r, const struct gpt_chunk_header *h, uint64_t off)
{
	size_t have = (size_t)(r->size - off - GPT_CHUNK_HEADER_SIZE), got;
	ssize_t n;

	r->done = true;
	r->st.truncated = true;
	r->st.truncated_at = r->size;
	r->pos = r->size;
	r->pk_idx = r->chunk_index++;
	r->pk_need = (uint64_t)GPT_CHUNK_HEADER_SIZE + h->stored_len;
	if ((h->flags & ~GPT_CHUNK_FLAGS_KNOWN) || h->raw_len > GPT_MAX_CHUNK_BYTES ||
	    h->stored_len > GPT_MAX_CHUNK_BYTES || h->count > GPT_MAX_CHUNK_RECORDS) {
		add_problem(r, off, -GP_ERR_TRUNCATED,
			    "truncated: the chunk needs %" PRIu64 " bytes, the file has %" PRIu64,
			    r->pk_need, r->size - off);
		return STEP_END;
	}
	if (charge_raw(r, r->pk_idx, off, h->raw_len)) {
		return -GP_ERR_RANGE;
	}
	if (ensure((void **)&r->stored, &r->stored_cap, h->stored_len + 1u) ||
	    ensure((void **)&r->raw, &r->raw_cap, h->raw_len + 1u)) {
		set_err(r, "out of memory reading the packed chunk");
		return -GP_ERR_NOMEM;
	}
	n = read_at(r, off + GPT_CHUNK_HEADER_SIZE, r->stored, have);
	if (n < 0) {
		return -GP_ERR_IO;
	}
	if (h->flags & GPT_CHUNK_FLAG_DEFLATE) {
		inflateReset(&r->zs);
		r->zs.next_in = r->stored;
		r->zs.avail_in = (uInt)n;
		r->zs.next_out = r->raw;
		r->zs.avail_out = h->raw_len;
		(void)inflate(&r->zs, Z_SYNC_FLUSH); /* what the bytes there give, up to the cut */
		got = h->raw_len - r->zs.avail_out;
	} else {
		got = (size_t)n < h->raw_len ? (size_t)n : h->raw_len;
		memcpy(r->raw, r->stored, got);
	}
	r->in_pack = true;
	r->pk_bad = false;
	r->pk_cut = true;
	r->pk_pos = 0;
	r->pk_len = got;
	r->pk_left = h->count;
	r->pk_count = h->count;
	r->pk_off = off;
	gp_debug("%s: packed chunk cut at %" PRIu64 " of %" PRIu64 " bytes; %zu of %u raw bytes "
		 "inflated", r->name, r->size - off, r->pk_need, got, h->raw_len);
	return STEP_AGAIN;
}

/* ------------------------------------------------ decoding ahead on workers */

/* The header at off as it stands, without a word when it cannot be read. */
static bool peek_header(struct gpt_reader *r, uint64_t off, struct gpt_chunk_header *h)
{
	uint8_t hb[GPT_CHUNK_HEADER_SIZE];
	size_t got = 0;

	if (off >= r->size || r->size - off < sizeof(hb)) {
		return false;
	}
	if (r->mem) {
		memcpy(hb, r->mem + off, sizeof(hb));
	} else {
		while (got < sizeof(hb)) {
			ssize_t n = pread(r->fd, hb + got, sizeof(hb) - got, (off_t)(off + got));
			if (n < 0 && errno == EINTR) {
				continue;
			}
			if (n <= 0) {
				return false;
			}
			got += (size_t)n;
		}
	}
	return gpt_chunk_header_unpack(hb, h, NULL, 0) == 0;
}

/*
 * Plans the chunk at off for a worker when it is an ordinary chunk that
 * checks out as far as its header goes; anything else (the index, a packed
 * chunk, a kind this reader skips, a header out of bounds) the reader reads
 * itself, and planning stops there until it has.
 */
static bool pf_plan_one(struct gpt_reader *r, uint64_t off, struct gpt_pf_job *j)
{
	struct gpt_chunk_header *h = &j->h;

	if (r->size - off <= GPT_TRAILER_SIZE || !peek_header(r, off, h)) {
		return false;
	}
	if (h->kind != GPT_KIND_STRING && (h->kind >= GPT_KIND_INDEX || !gpt_kind_info(h->kind))) {
		return false;
	}
	if ((h->flags & ~GPT_CHUNK_FLAGS_KNOWN) || h->raw_len > GPT_MAX_CHUNK_BYTES ||
	    h->stored_len > GPT_MAX_CHUNK_BYTES || h->count > GPT_MAX_CHUNK_RECORDS ||
	    (!(h->flags & GPT_CHUNK_FLAG_DEFLATE) && h->stored_len != h->raw_len) ||
	    off + GPT_CHUNK_HEADER_SIZE + h->stored_len > r->size ||
	    r->pf_raw + h->raw_len > r->lim_raw ||
	    (h->kind != GPT_KIND_STRING && r->pf_records + h->count > r->lim_records)) {
		return false; /* past the limit: the reader says so when it gets there */
	}
	j->off = off;
	j->ki = h->kind == GPT_KIND_STRING ? NULL : gpt_kind_info(h->kind);
	return true;
}

/* Frees the job last taken and hands the workers chunks up to the ring's size. */
static void pf_plan(struct gpt_reader *r)
{
	struct gpt_pf_job *j;

	if (!r->pf) {
		return;
	}
	if (r->pf_used) {
		gpt_pf_pop(r->pf);
		r->pf_used = false;
	}
	if (r->index_seen || r->in_pack || r->done) {
		return;
	}
	if (gpt_pf_empty(r->pf)) {
		r->pf_scan = r->pos;
		r->pf_stopped = false;
		r->pf_raw = r->used_raw;
		r->pf_records = r->used_records;
	}
	while (!r->pf_stopped && (j = gpt_pf_slot(r->pf))) {
		if (!pf_plan_one(r, r->pf_scan, j)) {
			r->pf_stopped = true;
			break;
		}
		r->pf_scan = j->off + GPT_CHUNK_HEADER_SIZE + j->h.stored_len;
		r->pf_raw += j->h.raw_len;
		r->pf_records += j->ki ? j->h.count : 0;
		gpt_pf_submit(r->pf);
	}
}

/*
 * The workers' job for the chunk at off whose header is *h, when they read
 * it whole; NULL when the reader must read it itself (then the jobs planned
 * past a chunk the reader did not expect are dropped).
 */
static struct gpt_pf_job *pf_take(struct gpt_reader *r, const struct gpt_chunk_header *h,
				  uint64_t off)
{
	struct gpt_pf_job *j = r->pf ? gpt_pf_head(r->pf) : NULL;

	if (!j) {
		return NULL;
	}
	if (j->off != off || j->h.kind != h->kind || j->h.flags != h->flags ||
	    j->h.count != h->count || j->h.raw_len != h->raw_len ||
	    j->h.stored_len != h->stored_len || j->h.raw_crc != h->raw_crc) {
		gpt_pf_drop(r->pf);
		return NULL;
	}
	r->pf_used = true; /* popped at the next chunk: *out may borrow its records */
	return j->raw_ok ? j : NULL;
}

int gpt_reader_set_threads(struct gpt_reader *r, unsigned threads)
{
	struct gpt_pf_src src = {.fd = r->fd, .mem = r->mem, .size = r->size,
				 .v2 = r->st.major >= 2};

	if (threads <= 1 || r->pf || r->chunk_index || r->size <= r->header_len) {
		return 0;
	}
	if (threads > GPT_MAX_THREADS) {
		threads = GPT_MAX_THREADS;
	}
	int ret = gpt_pf_start(&src, threads, &r->pf);
	if (!ret) {
		gp_debug("%s: chunks decoded ahead on %u worker threads", r->name, threads);
	}
	return ret;
}

/* Reads the chunk at r->pos; returns an enum step or a negative error. */
static int next_chunk(struct gpt_reader *r, struct gpt_chunk *out)
{
	struct gpt_chunk_header h;
	struct chunk_at at = {.off = r->pos};
	const struct gpt_kind_info *ki = NULL;
	const uint8_t *raw;
	char why[160];
	int err = 0;
	struct gpt_pf_job *job;
	int ret;

	pf_plan(r);
	ret = read_chunk_header(r, at.off, &h);
	if (ret == STEP_CUT_PACK) {
		return read_cut_pack(r, &h, at.off);
	}
	if (ret != STEP_READY) {
		return ret;
	}
	at.next = at.off + GPT_CHUNK_HEADER_SIZE + h.stored_len;
	r->pos = at.next;
	at.idx = r->chunk_index++;
	bool packed = h.kind == GPT_KIND_PACKED && r->st.major >= 2;
	r->pack_spans_file = packed && at.off == r->header_len && at.next == r->size;
	if (h.kind == GPT_KIND_INDEX) {
		ki = &gpt_index_info;
	} else if (h.kind != GPT_KIND_STRING && !packed) {
		ki = gpt_kind_info(h.kind);
		if (!ki) {
			/* a kind from a newer minor version: skip it whole */
			gp_debug("%s: chunk %u at offset %" PRIu64 " skipped: kind %u is unknown to "
				 "this reader", r->name, at.idx, at.off, h.kind);
			return STEP_AGAIN;
		}
	}
	r->chunk_index = at.idx; /* problems below name this chunk */
	ret = check_chunk(r, &h, packed, &at);
	if (ret == STEP_READY && charge_raw(r, at.idx, at.off, h.raw_len)) {
		return -GP_ERR_RANGE;
	}
	job = ret == STEP_READY ? pf_take(r, &h, at.off) : NULL;
	if (job) {
		raw = job->raw;
	} else if (ret == STEP_READY) {
		ret = read_stored(r, &h, &at);
		if (ret == STEP_READY) {
			ret = unpack_payload(r, &h, &at, &raw);
		}
	}
	if (ret != STEP_READY) {
		return ret;
	}
	if (packed) {
		r->chunk_index = at.idx + 1;
		start_pack(r, &h, raw, at.off);
		return STEP_AGAIN;
	}
	ret = take_payload(r, &h, ki, raw, job && job->dec_ok ? job->recs : NULL, at.off, at.idx,
			   out, why, sizeof(why), &err);
	if (ret < 0) {
		return ret;
	}
	if (ret == TAKE_BAD) {
		return bad_chunk(r, &at, err, "%s", why);
	}
	r->chunk_index = at.idx + 1;
	if (ret == TAKE_RECORDS) {
		gp_trace("%s: chunk %u at offset %" PRIu64 ": %u %s records", r->name, at.idx, at.off,
			 h.count, ki->name);
		return STEP_RECORDS;
	}
	return STEP_AGAIN;
}

/* Says once, at debug level, what the file held. */
static void log_end(struct gpt_reader *r)
{
	uint64_t records = 0;

	if (r->end_logged || !gp_log_enabled(GP_LOG_DEBUG)) {
		return;
	}
	r->end_logged = true;
	for (size_t k = 0; k < GPT_KIND__MAX; k++) {
		records += r->st.records[k];
	}
	gp_debug("%s: read %" PRIu64 " chunks, %" PRIu64 " records, %" PRIu64 " strings; %" PRIu64
		 " chunks skipped (%" PRIu64 " bytes)%s%s", r->name, r->st.chunks, records,
		 r->st.strings, r->st.problems, r->st.bytes_skipped,
		 r->st.has_footer ? "" : "; no footer", r->st.truncated ? "; truncated" : "");
}

int gpt_reader_next(struct gpt_reader *r, struct gpt_chunk *out)
{
	for (;;) {
		int ret;

		if (r->in_pack) {
			ret = next_inner(r, out);
			if (ret) {
				return ret;
			}
			continue; /* the packed chunk is used up */
		}
		if (r->done) {
			log_end(r);
			return 0;
		}
		ret = next_chunk(r, out);
		if (ret == STEP_END) {
			log_end(r);
		}
		if (ret != STEP_AGAIN) {
			return ret; /* STEP_END, STEP_RECORDS or an error */
		}
	}
}

int gpt_reader_count_records(struct gpt_reader *r, uint64_t counts[GPT_KIND__MAX])
{
	uint64_t off = r->pos, total = 0;

	memset(counts, 0, sizeof(uint64_t) * GPT_KIND__MAX);
	/* Chunk headers only: stops at the first one that is cut or does not check out. */
	while (off + GPT_CHUNK_HEADER_SIZE <= r->size) {
		uint8_t hb[GPT_CHUNK_HEADER_SIZE];
		struct gpt_chunk_header h;
		ssize_t n = read_at(r, off, hb, sizeof(hb));

		if (n < 0) {
			return -GP_ERR_IO;
		}
		if ((size_t)n < sizeof(hb) || gpt_chunk_header_unpack(hb, &h, NULL, 0) ||
		    h.count > GPT_MAX_CHUNK_RECORDS) {
			break;
		}
		if (h.kind < GPT_KIND__MAX && gpt_kind_info(h.kind)) {
			counts[h.kind] += h.count;
			total += h.count;
		}
		if (r->used_records + total > r->lim_records) {
			set_err(r, "its chunk headers announce more than %" PRIu64 " records, the "
				   "limit for a file of %" PRIu64 " bytes", r->lim_records, r->lim_size);
			return -GP_ERR_RANGE;
		}
		off += GPT_CHUNK_HEADER_SIZE + (uint64_t)h.stored_len;
	}
	if (gp_log_enabled(GP_LOG_DEBUG)) {
		unsigned kinds = 0;
		for (size_t k = 0; k < GPT_KIND__MAX; k++) {
			kinds += counts[k] != 0;
		}
		gp_debug("%s: chunk headers announce %" PRIu64 " records of %u kinds", r->name,
			 total, kinds);
	}
	return 0;
}

const char *gpt_reader_string(const struct gpt_reader *r, uint32_t id)
{
	if (id == 0) {
		return "";
	}
	if (id > r->strs.n) {
		return NULL;
	}
	return r->strs.v[id - 1];
}

uint32_t gpt_reader_string_ids(const struct gpt_reader *r)
{
	return (uint32_t)r->strs.n;
}

const char *gpt_reader_string_or(const struct gpt_reader *r, uint32_t id, const char *missing)
{
	const char *s = gpt_reader_string(r, id);

	return s ? s : missing;
}

void gpt_reader_get_status(const struct gpt_reader *r, struct gpt_reader_status *st)
{
	*st = r->st;
}

const char *gpt_reader_name(const struct gpt_reader *r)
{
	return r->name;
}

const char *gpt_reader_last_error(const struct gpt_reader *r)
{
	return r->errbuf[0] ? r->errbuf : "no error";
}

const struct gpt_problem *gpt_reader_problems(const struct gpt_reader *r, size_t *n)
{
	*n = r->problems.n;
	return r->problems.v;
}
