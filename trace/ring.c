/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the flight ring: the chunks a writer made, kept in memory,
 * bounded by bytes and by time, and saved as a whole .gpz on demand.
 *
 * A writer given gpt_ring_sink as its sink hands every finished chunk
 * here instead of writing it. Chunks a later chunk may refer to or that
 * describe the process (strings, process, devices, contexts, streams,
 * threads, names, stack nodes, modules, the first clock anchors) are
 * pinned: kept for the life of the ring. Every other chunk joins the ring
 * in the order it was made and leaves it whole, oldest first, when the
 * ring passes its byte bound or when it is older than the window.
 *
 * Obeys the inject/ contract (STYLE.md section 8): it allocates, so it runs
 * on the writer thread only; no locks, no printing.
 */
#include "base/compat.h"
#include "trace/format.h"

#include <unistd.h>
#include <zlib.h>

struct ring_chunk {
	uint8_t *bytes;
	uint32_t len;
	uint32_t count;
	uint16_t kind;
	uint64_t age_ts; /* its last time, or the newest time seen when it has none */
};

struct gpt_ring {
	uint64_t max_bytes, window_ns;
	GP_VEC(struct ring_chunk) pinned;
	struct ring_chunk *q; /* circular: q[(head + i) % cap], i < n */
	size_t head, n, cap;
	uint64_t newest_ts;
	uint64_t floor_ts; /* gpt_ring_hold: the window never drops chunks newer than this */
	bool clock_pinned;
	struct gpt_ring_stats st;
};

int gpt_ring_new(uint64_t max_bytes, uint64_t window_ns, struct gpt_ring **out)
{
	struct gpt_ring *r;

	*out = NULL;
	if (!max_bytes || !window_ns) {
		return -GP_ERR_API;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		return -GP_ERR_NOMEM;
	}
	r->max_bytes = max_bytes;
	r->window_ns = window_ns;
	*out = r;
	return 0;
}

void gpt_ring_free(struct gpt_ring *r)
{
	if (!r) {
		return;
	}
	for (size_t i = 0; i < r->pinned.n; i++) {
		free(r->pinned.v[i].bytes);
	}
	gp_vec_free(&r->pinned);
	for (size_t i = 0; i < r->n; i++) {
		free(r->q[(r->head + i) % r->cap].bytes);
	}
	free(r->q);
	free(r);
}

/* Kinds every later chunk may need, whatever the window: kept for good. */
static bool is_pinned(struct gpt_ring *r, uint16_t kind)
{
	switch (kind) {
	case GPT_KIND_STRING:
	case GPT_KIND_PROCESS:
	case GPT_KIND_DEVICE:
	case GPT_KIND_CONTEXT:
	case GPT_KIND_STREAM:
	case GPT_KIND_THREAD:
	case GPT_KIND_NAME:
	case GPT_KIND_STACK_NODE:
	case GPT_KIND_MODULE:
		return true;
	case GPT_KIND_CLOCK:
		/* the start anchors align files; later ones age out with the data */
		if (!r->clock_pinned) {
			r->clock_pinned = true;
			return true;
		}
		return false;
	default:
		return false;
	}
}

static void drop_oldest(struct gpt_ring *r)
{
	struct ring_chunk *c = &r->q[r->head];

	r->st.dropped_chunks++;
	r->st.dropped_records += c->count;
	r->st.dropped_bytes += c->len;
	r->st.ring_bytes -= c->len;
	r->st.ring_chunks--;
	free(c->bytes);
	c->bytes = NULL;
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

void gpt_ring_trim(struct gpt_ring *r, uint64_t now_ns)
{
	if (now_ns > r->newest_ts) {
		r->newest_ts = now_ns;
	}
	while (r->n && r->q[r->head].age_ts + r->window_ns < r->newest_ts &&
	       (!r->floor_ts || r->q[r->head].age_ts < r->floor_ts)) {
		drop_oldest(r);
	}
	while (r->n && r->st.ring_bytes + r->st.pinned_bytes > r->max_bytes) {
		drop_oldest(r);
	}
}

static int grow_queue(struct gpt_ring *r)
{
	size_t nc = r->cap ? r->cap * 2 : 256;
	struct ring_chunk *nq = malloc(nc * sizeof(*nq));

	if (!nq) {
		return -GP_ERR_NOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		nq[i] = r->q[(r->head + i) % r->cap];
	}
	free(r->q);
	r->q = nq;
	r->cap = nc;
	r->head = 0;
	return 0;
}

int gpt_ring_add(struct gpt_ring *r, const uint8_t *chunk, size_t len)
{
	struct gpt_chunk_header h;

	if (len < GPT_CHUNK_HEADER_SIZE || len > UINT32_MAX ||
	    gpt_chunk_header_unpack(chunk, &h, NULL, 0)) {
		return -GP_ERR_API;
	}
	struct ring_chunk c = {.len = (uint32_t)len, .count = h.count, .kind = h.kind};
	if (h.last_ts > r->newest_ts) {
		r->newest_ts = h.last_ts;
	}
	c.age_ts = h.last_ts ? h.last_ts : r->newest_ts;
	bool pin = is_pinned(r, h.kind);
	if (!pin && len > r->max_bytes) {
		/* never fits: lost whole, as an old chunk would be */
		r->st.dropped_chunks++;
		r->st.dropped_records += h.count;
		r->st.dropped_bytes += len;
		return 0;
	}
	c.bytes = malloc(len);
	if (!c.bytes) {
		return -GP_ERR_NOMEM;
	}
	memcpy(c.bytes, chunk, len);
	if (pin) {
		if (gp_vec_push(&r->pinned, c)) {
			free(c.bytes);
			return -GP_ERR_NOMEM;
		}
		r->st.pinned_chunks++;
		r->st.pinned_bytes += len;
	} else {
		if (r->n == r->cap && grow_queue(r)) {
			free(c.bytes);
			return -GP_ERR_NOMEM;
		}
		r->q[(r->head + r->n) % r->cap] = c;
		r->n++;
		r->st.ring_chunks++;
		r->st.ring_bytes += len;
		r->st.added_records += h.count;
	}
	gpt_ring_trim(r, 0);
	if (r->st.ring_bytes + r->st.pinned_bytes > r->st.peak_bytes) {
		r->st.peak_bytes = r->st.ring_bytes + r->st.pinned_bytes;
	}
	return 0;
}

void gpt_ring_hold(struct gpt_ring *r, uint64_t floor_ts)
{
	r->floor_ts = floor_ts;
}

int gpt_ring_sink(void *ctx, const uint8_t *chunk, size_t len)
{
	return gpt_ring_add(ctx, chunk, len);
}

void gpt_ring_get_stats(const struct gpt_ring *r, struct gpt_ring_stats *st)
{
	*st = r->st;
	st->oldest_ts = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct ring_chunk *c = &r->q[(r->head + i) % r->cap];
		struct gpt_chunk_header h;
		if (!gpt_chunk_header_unpack(c->bytes, &h, NULL, 0) && h.first_ts &&
		    (!st->oldest_ts || h.first_ts < st->oldest_ts)) {
			st->oldest_ts = h.first_ts;
		}
	}
}

/* The payload of a chunk the ring holds (ours: well formed), inflated into raw. */
static int chunk_payload(const uint8_t *chunk, const struct gpt_chunk_header *h,
			 struct gp_strbuf *raw)
{
	gp_strbuf_reset(raw);
	if (gp_strbuf_grow(raw, (size_t)h->raw_len + 1)) {
		return -GP_ERR_NOMEM;
	}
	if (!(h->flags & GPT_CHUNK_FLAG_DEFLATE)) {
		gp_strbuf_add(raw, chunk + GPT_CHUNK_HEADER_SIZE, h->stored_len);
		return raw->failed ? -GP_ERR_NOMEM : 0;
	}
	z_stream zs = {0};
	if (inflateInit2(&zs, -15) != Z_OK) {
		return -GP_ERR_NOMEM;
	}
	zs.next_in = (Bytef *)(uintptr_t)(chunk + GPT_CHUNK_HEADER_SIZE);
	zs.avail_in = h->stored_len;
	zs.next_out = (Bytef *)raw->buf;
	zs.avail_out = h->raw_len;
	int z = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (z != Z_STREAM_END || zs.avail_out) {
		return -GP_ERR_FORMAT;
	}
	raw->len = h->raw_len;
	return 0;
}

/*
 * An NVTX chunk whose ranges name patterns (gpt_writer_opts.number_names):
 * its records again with the names they stand for, interned by the saving
 * writer (ids after the ring's own). 0 when it has none: copied as it is.
 */
static int names_back(struct gpt_writer *out, const struct gpt_writer *names,
		      const uint8_t *chunk, const struct gpt_chunk_header *h, struct gp_strbuf *raw,
		      bool *done)
{
	const struct gpt_kind_info *ki = gpt_kind_info(GPT_KIND_NVTX);
	char err[160], name[GPT_NAME_PATTERN_MAX + 24];
	int ret = chunk_payload(chunk, h, raw);
	struct gpt_nvtx *v = ret ? NULL : calloc(h->count ? h->count : 1, sizeof(*v));

	*done = false;
	if (!ret && !v) {
		ret = -GP_ERR_NOMEM;
	}
	if (!ret) {
		ret = gpt_decode_records(ki, (const uint8_t *)raw->buf, raw->len, h->count, v, err,
					 sizeof(err));
	}
	uint32_t n = 0;
	for (uint32_t i = 0; !ret && i < h->count; i++) {
		n += v[i].message_num != 0;
	}
	for (uint32_t i = 0; !ret && n && i < h->count; i++) {
		if (v[i].message_num) {
			const char *pat = gpt_writer_string(names, v[i].message);
			size_t len = gpt_name_expand(pat ? pat : "", v[i].message_num, name,
						     sizeof(name));
			ret = gpt_writer_intern(out, name, len, &v[i].message);
			v[i].message_num = 0;
		}
		if (!ret) {
			ret = gpt_writer_add(out, GPT_KIND_NVTX, &v[i]);
		}
	}
	if (!ret && n) {
		ret = gpt_writer_flush(out); /* its chunk goes where the ring's was */
		*done = true;
	}
	free(v);
	return ret;
}

int gpt_ring_save_fd(const struct gpt_ring *r, const struct gpt_writer *names, int fd,
		     const char *name, char *errbuf, size_t errlen)
{
	struct gpt_writer *w = NULL;
	struct gpt_writer_opts wo = {.level = -1, .flight = true};
	struct gp_strbuf raw = GP_STRBUF_INIT;
	int ret = gpt_writer_open_fd(fd, name, &wo, &w);

	/* the names given back take the ids after those of the pinned strings */
	if (!ret && names) {
		ret = gpt_writer_reserve_ids(w, gpt_writer_strings_written(names));
	}
	/* pinned chunks first: the strings every later chunk refers to */
	for (size_t i = 0; !ret && i < r->pinned.n; i++) {
		ret = gpt_writer_append_chunk(w, r->pinned.v[i].bytes, r->pinned.v[i].len);
	}
	for (size_t i = 0; !ret && i < r->n; i++) {
		const struct ring_chunk *c = &r->q[(r->head + i) % r->cap];
		struct gpt_chunk_header h;
		bool done = false;
		if (names && c->kind == GPT_KIND_NVTX &&
		    !gpt_chunk_header_unpack(c->bytes, &h, NULL, 0)) {
			ret = names_back(w, names, c->bytes, &h, &raw, &done);
		}
		if (!ret && !done) {
			ret = gpt_writer_append_chunk(w, c->bytes, c->len);
		}
	}
	gp_strbuf_release(&raw);
	if (!w) {
		if (errlen) {
			snprintf(errbuf, errlen, "%s: %s", name, gp_err_str(ret));
		}
		return ret;
	}
	if (ret) {
		if (errlen) {
			snprintf(errbuf, errlen, "%s", gpt_writer_last_error(w));
		}
		gpt_writer_abandon(w);
		return ret;
	}
	return gpt_writer_close_err(w, errbuf, errlen);
}
