/* SPDX-License-Identifier: MIT */
/*
 * test-roundtrip.c - random record streams of every kind, written with
 * gpt_writer at every compression level and many chunk sizes, read back with
 * gpt_reader: every field of every record, the order per kind, every string,
 * the chunk timestamps, the footer index and the reader's status.
 *
 * Values come from the schema, not from knowledge of the codec: per column a
 * random pattern (all zero, constant, edge values, runs, ramps that wrap,
 * random walks, values near the REL/KEYED reference field, ...) so that
 * omitted, CONST, VARINT, ZIGZAG, DELTA, REL and KEYED columns all see
 * extremes. Everything is seeded; a failure names the case and its seed.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------------------------------------------------------- strings */

struct strtab {
	char **by_id; /* expected text of each id; by_id[0] = "" */
	size_t *len_by_id;
	size_t n, cap;  /* ids 0..n-1 are defined */
	uint32_t *pool; /* ids records may use (0 included) */
	size_t npool;
};

static void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 64;
	t->by_id = calloc(t->cap, sizeof(*t->by_id));
	t->len_by_id = calloc(t->cap, sizeof(*t->len_by_id));
	t->pool = calloc(t->cap, sizeof(*t->pool));
	if (!t->by_id || !t->len_by_id || !t->pool) {
		abort();
	}
	t->by_id[0] = strdup("");
	t->n = 1;
	t->pool[t->npool++] = 0;
}

static void strtab_release(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->by_id[i]);
	}
	free(t->by_id);
	free(t->len_by_id);
	free(t->pool);
}

/* Random text of one of several shapes; returns its length (bytes, may include NUL). */
static size_t random_string(struct gp_rng *rng, char *s, size_t max_long)
{
	static const char *const utf8[] = {"\xc3\xa9",
					   "\xc3\x9f",
					   "\xce\xbb",
					   "\xe2\x82\xac",
					   "\xe6\xbc\xa2",
					   "\xe5\xad\x97",
					   "\xf0\x9f\x9a\x80",
					   "\xf0\x9f\x98\x80",
					   "\xd0\x96",
					   "a",
					   " ",
					   "::"};
	unsigned shape = (unsigned)gp_rng_below(rng, 100);
	size_t len = 0;

	if (shape < 55) {
		/* Short identifiers, often repeated across calls (interning dedups them). */
		size_t n = 1 + (size_t)gp_rng_below(rng, shape < 20 ? 3 : 24);
		for (size_t i = 0; i < n; i++) {
			s[len++] = (char)('a' + gp_rng_below(rng, shape < 20 ? 3 : 26));
		}
	} else if (shape < 75) {
		size_t n = 24 + (size_t)gp_rng_below(rng, 400);
		for (size_t i = 0; i < n; i++) {
			s[len++] = (char)(' ' + gp_rng_below(rng, 95));
		}
	} else if (shape < 88) {
		size_t n = 1 + (size_t)gp_rng_below(rng, 120);
		for (size_t i = 0; i < n; i++) {
			const char *u = utf8[gp_rng_below(rng, GP_ARRAY_SIZE(utf8))];
			memcpy(s + len, u, strlen(u));
			len += strlen(u);
		}
	} else if (shape < 94) {
		/* Any non-NUL byte: the format stores bytes, not characters. */
		size_t n = 1 + (size_t)gp_rng_below(rng, 200);
		for (size_t i = 0; i < n; i++) {
			s[len++] = (char)(1 + gp_rng_below(rng, 255));
		}
	} else if (shape < 97) {
		/* An embedded NUL: the writer keeps what comes before it. */
		size_t n = (size_t)gp_rng_below(rng, 20);
		for (size_t i = 0; i < n; i++) {
			s[len++] = (char)('A' + gp_rng_below(rng, 26));
		}
		s[len++] = '\0';
		s[len++] = 'z';
	} else if (shape < 98) {
		len = 0; /* the empty string: id 0 */
	} else {
		size_t n = max_long / 2 + (size_t)gp_rng_below(rng, max_long / 2 + 1);
		for (size_t i = 0; i < n; i++) {
			s[len++] = (char)('a' + (i * 7 + gp_rng_below(rng, 3)) % 26);
		}
	}
	return len;
}

/* Interns s through the writer and checks the id against what is known so far. */
static bool intern_check(struct gpt_writer *w, struct strtab *t, const char *s, size_t len,
			 const char *what)
{
	size_t want = len;
	uint32_t id = 12345;
	const char *nul = memchr(s, '\0', len);

	if (nul) {
		want = (size_t)(nul - s);
	}
	if (want > GPT_MAX_STRING_BYTES) {
		want = GPT_MAX_STRING_BYTES;
	}
	int ret = gpt_writer_intern(w, s, len, &id);
	if (ret) {
		TFAIL("%s: gpt_writer_intern failed: %d", what, ret);
		return false;
	}
	if (want == 0) {
		if (id != 0) {
			TFAIL("%s: the empty string got id %u", what, id);
			return false;
		}
		return true;
	}
	for (size_t i = 1; i < t->n; i++) {
		if (t->len_by_id[i] == want && !memcmp(t->by_id[i], s, want)) {
			if (id != i) {
				TFAIL("%s: string interned again got id %u, first %zu", what, id,
				      i);
				return false;
			}
			return true;
		}
	}
	if (id != t->n) {
		TFAIL("%s: new string got id %u, expected the next id %zu", what, id, t->n);
		return false;
	}
	if (t->n == t->cap) {
		t->cap *= 2;
		t->by_id = realloc(t->by_id, t->cap * sizeof(*t->by_id));
		t->len_by_id = realloc(t->len_by_id, t->cap * sizeof(*t->len_by_id));
		t->pool = realloc(t->pool, t->cap * sizeof(*t->pool));
		if (!t->by_id || !t->len_by_id || !t->pool) {
			abort();
		}
	}
	t->by_id[t->n] = malloc(want + 1);
	if (!t->by_id[t->n]) {
		abort();
	}
	memcpy(t->by_id[t->n], s, want);
	t->by_id[t->n][want] = '\0';
	t->len_by_id[t->n] = want;
	t->pool[t->npool++] = id;
	t->n++;
	return true;
}

/* ---------------------------------------------------------------- values */

static uint64_t wrap(const struct gpt_field *f, uint64_t x)
{
	switch (f->type) {
	case GPT_TY_u8:
		return x & 0xff;
	case GPT_TY_u16:
		return x & 0xffff;
	case GPT_TY_u32:
	case GPT_TY_str:
		return x & 0xffffffffu;
	case GPT_TY_i32:
		return (uint64_t)(int64_t)(int32_t)(uint32_t)x;
	default:
		return x;
	}
}

static uint64_t type_max(const struct gpt_field *f)
{
	switch (f->type) {
	case GPT_TY_u8:
		return UINT8_MAX;
	case GPT_TY_u16:
		return UINT16_MAX;
	case GPT_TY_u32:
	case GPT_TY_str:
		return UINT32_MAX;
	case GPT_TY_i32:
		return INT32_MAX;
	case GPT_TY_i64:
		return INT64_MAX;
	default:
		return UINT64_MAX;
	}
}

static uint64_t type_min(const struct gpt_field *f)
{
	if (f->type == GPT_TY_i32) {
		return (uint64_t)(int64_t)INT32_MIN;
	}
	if (f->type == GPT_TY_i64) {
		return (uint64_t)INT64_MIN;
	}
	return 0;
}

static uint64_t edge_value(struct gp_rng *rng, const struct gpt_field *f)
{
	uint64_t mx = type_max(f), mn = type_min(f);

	switch (gp_rng_below(rng, 9)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return mx;
	case 3:
		return wrap(f, mx - 1);
	case 4:
		return mn;
	case 5:
		return wrap(f, mn + 1);
	case 6:
		return wrap(f, UINT64_MAX); /* -1, or the unsigned maximum */
	case 7:
		return wrap(f, mx / 2 + 1);
	default:
		return wrap(f, 1ULL << gp_rng_below(rng, 64));
	}
}

/* Random value of any magnitude: the top bits often clear so varints vary in length. */
static uint64_t any_value(struct gp_rng *rng, const struct gpt_field *f)
{
	return wrap(f, gp_rng_next(rng) >> gp_rng_below(rng, 64));
}

enum mode {
	M_ZERO,  /* all zero: the column is omitted */
	M_CONST, /* one random value: CONST */
	M_CONST_EDGE,
	M_RANDOM,
	M_SMALL,
	M_RAMP,     /* small increments, wrapping at the type's end */
	M_EDGE,     /* edge values in any order: deltas overflow */
	M_ALT,      /* min, max, min, max: the largest deltas */
	M_RUNS,     /* runs of equal values */
	M_WALK,     /* steps of any size either way */
	M_NEAR_REF, /* the reference field (REL, KEYED) plus a small offset */
	M_BY_KEY,   /* a function of the key field, so KEYED prediction hits */
	M__COUNT
};

struct colgen {
	enum mode mode;
	uint64_t cval, cedge, last, run_val;
	uint32_t run_left, i;
};

static void col_pick_mode(struct gp_rng *rng, const struct gpt_field *f, struct colgen *c)
{
	static const uint8_t weights[M__COUNT] = {14, 12, 5, 10, 10, 10, 8, 4, 10, 8, 6, 6};
	unsigned total = 0, x;

	for (int m = 0; m < M__COUNT; m++) {
		total += weights[m];
	}
	x = (unsigned)gp_rng_below(rng, total);
	c->mode = 0;
	while (x >= weights[c->mode]) {
		x -= weights[c->mode];
		c->mode++;
	}
	if ((c->mode == M_NEAR_REF || c->mode == M_BY_KEY) && f->enc != GPT_ENC_REL &&
	    f->enc != GPT_ENC_KEYED) {
		c->mode = M_WALK;
	}
	c->cval = any_value(rng, f);
	c->cedge = edge_value(rng, f);
	c->last = edge_value(rng, f);
	c->run_left = 0;
}

static uint64_t col_next(struct gp_rng *rng, const struct gpt_field *f, struct colgen *c,
			 uint64_t refv)
{
	uint64_t v;

	switch (c->mode) {
	case M_ZERO:
		v = 0;
		break;
	case M_CONST:
		v = c->cval;
		break;
	case M_CONST_EDGE:
		v = c->cedge;
		break;
	case M_RANDOM:
		v = wrap(f, gp_rng_next(rng));
		break;
	case M_SMALL:
		v = gpt_field_is_signed(f) ? wrap(f, gp_rng_below(rng, 16) - 8)
					   : gp_rng_below(rng, 16);
		break;
	case M_RAMP:
		v = wrap(f, c->last + gp_rng_below(rng, 1000));
		break;
	case M_EDGE:
		v = edge_value(rng, f);
		break;
	case M_ALT:
		v = (c->i & 1) ? type_max(f) : type_min(f);
		break;
	case M_RUNS:
		if (!c->run_left) {
			c->run_left = 1 + (uint32_t)gp_rng_below(rng, 30);
			c->run_val = gp_rng_below(rng, 3) ? any_value(rng, f) : edge_value(rng, f);
		}
		c->run_left--;
		v = c->run_val;
		break;
	case M_WALK: {
		uint64_t step = gp_rng_next(rng) >> gp_rng_below(rng, 64);
		v = wrap(f, gp_rng_below(rng, 2) ? c->last + step : c->last - step);
		break;
	}
	case M_NEAR_REF:
		v = wrap(f, refv + gp_rng_below(rng, 2000) - 1000);
		break;
	case M_BY_KEY:
	default:
		v = wrap(f, gp_hash_u64(refv) >> (refv % 61) ^ (gp_rng_below(rng, 4) ? 0 : c->i));
		break;
	}
	c->last = v;
	c->i++;
	return v;
}

/* ---------------------------------------------------------------- a case */

struct rt_opts {
	int level;
	uint32_t chunk_records;
	uint32_t max_per_kind;  /* records of one kind: 0..max_per_kind */
	size_t max_long_string; /* longest random string */
	unsigned n_strings;     /* strings interned up front */
	bool use_file;          /* write and read a real file rather than memory */
	bool no_flush;          /* no flushes mid-stream: only full chunks, then the rest */
};

struct rt_case {
	struct gp_rng rng;
	uint64_t seed;
	const char *label;
	struct rt_opts o;
	struct strtab tab;
	struct tt_recs want[GPT_KIND__MAX];
	struct tt_buf file;
};

static const char *case_name(const struct rt_case *c)
{
	static char buf[200];
	snprintf(buf, sizeof(buf), "%s seed=%" PRIu64 " level=%d chunk_records=%u", c->label,
		 c->seed, c->o.level, c->o.chunk_records);
	return buf;
}

/* Field fill order: a REL or KEYED field after the field it refers to. */
static void fill_order(const struct gpt_kind_info *ki, size_t *order)
{
	bool done[256] = {false};
	size_t n = 0;

	while (n < ki->nfields) {
		for (size_t i = 0; i < ki->nfields; i++) {
			const struct gpt_field *f = &ki->fields[i];
			if (done[i]) {
				continue;
			}
			if (f->enc == GPT_ENC_REL || f->enc == GPT_ENC_KEYED) {
				const struct gpt_field *rf = gpt_kind_field(ki, f->ref);
				if (rf && !done[rf - ki->fields]) {
					continue;
				}
			}
			done[i] = true;
			order[n++] = i;
		}
	}
}

/*
 * One random record of kind ki in rec, its fields in fill order, each from
 * its column's pattern; false (after saying why) when a value does not fit.
 */
static bool fill_record(struct rt_case *c, const struct gpt_kind_info *ki, struct colgen *cols,
			const size_t *order, uint8_t *rec)
{
	/* Padding filled with junk: the writer must not depend on it. */
	memset(rec, (int)gp_rng_below(&c->rng, 256), ki->size);
	for (size_t oi = 0; oi < ki->nfields; oi++) {
		size_t i = order[oi];
		const struct gpt_field *f = &ki->fields[i];
		struct colgen *cg = &cols[i];
		uint64_t refv = 0, v;
		if (f->enc == GPT_ENC_REL || f->enc == GPT_ENC_KEYED) {
			refv = gpt_field_get(gpt_kind_field(ki, f->ref), rec);
		}
		if (!gp_rng_below(&c->rng, 60)) {
			col_pick_mode(&c->rng, f, cg);
		}
		if (f->type == GPT_TY_str) {
			/* String fields hold ids the writer gave out, same patterns. */
			uint64_t x = col_next(&c->rng, f, cg, refv);
			v = cg->mode == M_ZERO ? 0 : c->tab.pool[x % c->tab.npool];
		} else {
			v = col_next(&c->rng, f, cg, refv);
		}
		if (gpt_field_set(f, rec, v)) {
			TFAIL("%s: value %" PRIx64 " does not fit %s.%s", case_name(c), v, ki->name,
			      f->name);
			return false;
		}
	}
	return true;
}

/* Closes the writer and keeps the file's bytes in c->file: 0 or an error. */
static int finish_file(struct rt_case *c, struct tt_mem_writer *mw, const char *path)
{
	int ret;

	if (!c->o.use_file) {
		return tt_writer_finish(mw, &c->file);
	}
	ret = gpt_writer_close(mw->w);
	mw->w = NULL;
	if (!ret) {
		FILE *fp = fopen(path, "rb");
		if (!fp) {
			ret = -GP_ERR_IO;
		} else {
			fseek(fp, 0, SEEK_END);
			c->file.len = (size_t)ftell(fp);
			fseek(fp, 0, SEEK_SET);
			c->file.p = malloc(c->file.len + 1);
			if (!c->file.p || fread(c->file.p, 1, c->file.len, fp) != c->file.len) {
				ret = -GP_ERR_IO;
			}
			fclose(fp);
		}
	}
	return ret;
}

static bool write_case(struct rt_case *c)
{
	struct gpt_writer_opts wo = {.level = c->o.level, .chunk_records = c->o.chunk_records};
	struct tt_mem_writer mw = {0};
	struct colgen *cols[GPT_KIND__MAX] = {0};
	size_t remaining[GPT_KIND__MAX] = {0}, total = 0;
	size_t *orders[GPT_KIND__MAX] = {0};
	char *s = malloc(c->o.max_long_string + 1024);
	char path[300];
	bool ok = false;
	int ret;

	if (!s) {
		abort();
	}
	if (c->o.use_file) {
		snprintf(path, sizeof(path), "%s/rt-%" PRIu64 ".gpz", test_tmpdir(), c->seed);
		ret = gpt_writer_open(path, &wo, &mw.w);
		mw.keep_fd = -1;
	} else {
		ret = tt_writer_open(&mw, &wo);
	}
	if (ret) {
		TFAIL("%s: cannot open the writer: %d", case_name(c), ret);
		goto out;
	}
	for (unsigned i = 0; i < c->o.n_strings; i++) {
		size_t len = random_string(&c->rng, s, c->o.max_long_string);
		if (!intern_check(mw.w, &c->tab, s, len, case_name(c))) {
			goto out_abandon;
		}
	}
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		if (!ki) {
			continue;
		}
		cols[k] = calloc(ki->nfields, sizeof(struct colgen));
		orders[k] = calloc(ki->nfields, sizeof(size_t));
		if (!cols[k] || !orders[k]) {
			abort();
		}
		fill_order(ki, orders[k]);
		for (size_t i = 0; i < ki->nfields; i++) {
			col_pick_mode(&c->rng, &ki->fields[i], &cols[k][i]);
		}
		if (gp_rng_below(&c->rng, 8)) {
			remaining[k] = (size_t)gp_rng_below(&c->rng, c->o.max_per_kind + 1);
		}
		total += remaining[k];
	}
	while (total) {
		/* A random kind among those with records left, so kinds interleave. */
		size_t pick = (size_t)gp_rng_below(&c->rng, total);
		unsigned k = 0;
		while (pick >= remaining[k]) {
			pick -= remaining[k++];
		}
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		uint8_t rec[1024];
		if (ki->size > sizeof(rec)) {
			TFAIL("record of kind %s is larger than the test's buffer", ki->name);
			goto out_abandon;
		}
		if (!fill_record(c, ki, cols[k], orders[k], rec)) {
			goto out_abandon;
		}
		ret = gpt_writer_add(mw.w, (enum gpt_kind)k, rec);
		if (ret) {
			TFAIL("%s: gpt_writer_add(%s) failed: %d: %s", case_name(c), ki->name, ret,
			      gpt_writer_last_error(mw.w));
			goto out_abandon;
		}
		tt_recs_push(&c->want[k], ki, rec);
		remaining[k]--;
		total--;
		/* Now and then: new strings mid-stream, and a flush that cuts chunks short. */
		if (!gp_rng_below(&c->rng, 40)) {
			size_t len = random_string(&c->rng, s, c->o.max_long_string);
			if (!intern_check(mw.w, &c->tab, s, len, case_name(c))) {
				goto out_abandon;
			}
		}
		if (!c->o.no_flush && !gp_rng_below(&c->rng, 300) &&
		    (ret = gpt_writer_flush(mw.w))) {
			TFAIL("%s: gpt_writer_flush failed: %d", case_name(c), ret);
			goto out_abandon;
		}
	}
	ret = finish_file(c, &mw, path);
	if (ret) {
		TFAIL("%s: closing the writer failed: %d", case_name(c), ret);
		goto out;
	}
	ok = true;
	goto out;
out_abandon:
	if (c->o.use_file) {
		gpt_writer_abandon(mw.w);
	} else {
		tt_writer_abandon_finish(&mw, &c->file);
	}
out:
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		free(cols[k]);
		free(orders[k]);
	}
	free(s);
	return ok;
}

/*
 * What the written columns looked like, over all cases of a test: proof that
 * the random values reach every encoding, CONST columns and omitted ones.
 */
static struct {
	uint64_t enc[GPT_ENC__MAX];
	uint64_t omitted; /* fields with no column in a chunk */
	uint64_t columns;
} seen;

static void count_columns(const struct gpt_kind_info *ki, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t ncols, id, x;

	if (!gpt_get_varint(&p, end, &ncols)) {
		return;
	}
	seen.omitted += ki->nfields - ncols;
	for (uint64_t i = 0; i < ncols; i++) {
		if (!gpt_get_varint(&p, end, &id) || p >= end) {
			return;
		}
		uint8_t enc = *p++;
		if (enc >= GPT_ENC__MAX) {
			return;
		}
		seen.enc[enc]++;
		seen.columns++;
		if (enc == GPT_ENC_CONST) {
			gpt_get_varint(&p, end, &x);
			continue;
		}
		if (enc == GPT_ENC_REL || enc == GPT_ENC_KEYED) {
			gpt_get_varint(&p, end, &x);
		}
		if (!gpt_get_varint(&p, end, &x) || x > (uint64_t)(end - p)) {
			return;
		}
		p += x;
	}
}

/* Inflates or copies a chunk payload found by the walker. */
static uint8_t *chunk_payload(const uint8_t *file, const struct tt_chunk *ch)
{
	uint8_t *raw = malloc(ch->raw_len + 1);
	const uint8_t *stored = file + ch->off + GPT_CHUNK_HEADER_SIZE;

	if (!raw) {
		abort();
	}
	if (!(ch->flags & GPT_CHUNK_FLAG_DEFLATE)) {
		memcpy(raw, stored, ch->raw_len);
		return raw;
	}
	z_stream zs = {0};
	if (inflateInit2(&zs, -15) != Z_OK) {
		abort();
	}
	zs.next_in = (Bytef *)stored;
	zs.avail_in = ch->stored_len;
	zs.next_out = raw;
	zs.avail_out = ch->raw_len;
	int zr = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (zr != Z_STREAM_END || zs.avail_out != 0) {
		free(raw);
		return NULL;
	}
	return raw;
}

/*
 * The file's structure, found without the reader: chunk headers chain up to
 * the trailer, the trailer points at the index, and the index lists every
 * other chunk with its kind, count and times.
 */
static bool check_structure(struct rt_case *c, struct tt_chunk *chunks, size_t *nchunks)
{
	const uint8_t *p = c->file.p;
	uint64_t trailer;
	size_t n = tt_walk(p, c->file.len, chunks, TT_MAX_CHUNKS, &trailer);
	size_t nindexed = 0, ie = 0, first_index = SIZE_MAX;

	*nchunks = n;
	if (n == TT_MAX_CHUNKS) {
		TFAIL("%s: too many chunks for the test", case_name(c));
		return false;
	}
	if (trailer + GPT_TRAILER_SIZE != c->file.len) {
		TFAIL("%s: chunks end at %" PRIu64 ", file is %zu bytes", case_name(c), trailer,
		      c->file.len);
		return false;
	}
	const uint8_t *t = p + trailer;
	for (size_t i = 0; i < n; i++) {
		if (chunks[i].kind == GPT_KIND_INDEX) {
			if (first_index == SIZE_MAX) {
				first_index = i;
			}
		} else {
			nindexed++;
			if (first_index != SIZE_MAX) {
				TFAIL("%s: chunk %zu after the index", case_name(c), i);
				return false;
			}
		}
		if (gp_get_le32(p + chunks[i].off + 40) != 0) {
			TFAIL("%s: chunk %zu reserved bytes not zero", case_name(c), i);
			return false;
		}
		const struct gpt_kind_info *ki = gpt_kind_info(chunks[i].kind);
		if (ki && !(chunks[i].flags & GPT_CHUNK_FLAG_DEFLATE)) {
			count_columns(ki, p + chunks[i].off + GPT_CHUNK_HEADER_SIZE,
				      chunks[i].raw_len);
		}
	}
	if (memcmp(t, "GPZ-END\n", 8) || gp_get_le32(t + 20) != gp_crc32(0, t, 20) ||
	    first_index == SIZE_MAX || gp_get_le64(t + 8) != chunks[first_index].off ||
	    gp_get_le32(t + 16) != nindexed) {
		TFAIL("%s: bad trailer", case_name(c));
		return false;
	}
	for (size_t i = first_index; i < n; i++) {
		const struct tt_chunk *ch = &chunks[i];
		uint8_t *raw = chunk_payload(p, ch);
		struct gpt_index_entry *ents = calloc(ch->count + 1, sizeof(*ents));
		char why[128] = "inflate";
		if (!raw || !ents ||
		    gpt_decode_records(&gpt_index_info, raw, ch->raw_len, ch->count, ents, why,
				       sizeof(why))) {
			TFAIL("%s: index chunk %zu: %s", case_name(c), i, why);
			free(raw);
			free(ents);
			return false;
		}
		for (uint32_t j = 0; j < ch->count; j++, ie++) {
			const struct tt_chunk *x = &chunks[ie];
			if (ie >= nindexed || ents[j].offset != x->off || ents[j].kind != x->kind ||
			    ents[j].count != x->count || ents[j].first_ts != x->first_ts ||
			    ents[j].last_ts != x->last_ts) {
				TFAIL("%s: index entry %zu does not describe chunk %zu",
				      case_name(c), ie, ie);
				free(raw);
				free(ents);
				return false;
			}
		}
		free(raw);
		free(ents);
	}
	if (ie != nindexed) {
		TFAIL("%s: the index lists %zu chunks of %zu", case_name(c), ie, nindexed);
		return false;
	}
	return true;
}

/*
 * The records of chunk ch are the ones written, from the kind's row pos on,
 * and the chunk's times span theirs.
 */
static bool check_records(const struct rt_case *c, const struct gpt_chunk *ch, size_t pos)
{
	const struct gpt_kind_info *ki = ch->info;
	unsigned k = ch->kind;
	uint64_t first = UINT64_MAX, last = 0;

	for (uint32_t i = 0; i < ch->count; i++) {
		const uint8_t *got = (const uint8_t *)ch->records + (size_t)i * ki->size;
		const uint8_t *want = c->want[k].v + (pos + i) * ki->size;
		const struct gpt_field *bad = tt_rec_diff(ki, want, got);
		if (bad) {
			TFAIL("%s: %s record %zu field %s: got %" PRIx64 ", wrote %" PRIx64,
			      case_name(c), ki->name, pos + i, bad->name, gpt_field_get(bad, got),
			      gpt_field_get(bad, want));
			return false;
		}
		if (ki->time_field) {
			const struct gpt_field *tf = gpt_kind_field(ki, ki->time_field);
			const struct gpt_field *ef =
				ki->end_field ? gpt_kind_field(ki, ki->end_field) : tf;
			uint64_t s = gpt_field_get(tf, want), e = gpt_field_get(ef, want);
			first = s < first ? s : first;
			last = e > last ? e : last;
			last = s > last ? s : last;
		}
	}
	if (!ki->time_field) {
		first = 0;
	}
	if (ch->first_ts != first || ch->last_ts != last) {
		TFAIL("%s: %s chunk times %" PRIu64 "..%" PRIu64 ", records span %" PRIu64
		      "..%" PRIu64,
		      case_name(c), ki->name, ch->first_ts, ch->last_ts, first, last);
		return false;
	}
	return true;
}

/* Every string id resolves to its text, whether or not a record used it; no other id does. */
static bool check_strings(const struct rt_case *c, struct gpt_reader *r)
{
	for (size_t id = 0; id < c->tab.n; id++) {
		const char *s = gpt_reader_string(r, (uint32_t)id);
		if (!s || strlen(s) != c->tab.len_by_id[id] || strcmp(s, c->tab.by_id[id])) {
			TFAIL("%s: string %zu reads back as \"%.40s\" (%zu bytes), wrote \"%.40s\" "
			      "(%zu bytes)",
			      case_name(c), id, s ? s : "(null)", s ? strlen(s) : 0,
			      c->tab.by_id[id], c->tab.len_by_id[id]);
			return false;
		}
	}
	if (gpt_reader_string(r, (uint32_t)c->tab.n) != NULL ||
	    gpt_reader_string(r, UINT32_MAX) != NULL) {
		TFAIL("%s: an id never interned resolves", case_name(c));
		return false;
	}
	if (strcmp(gpt_reader_string_or(r, (uint32_t)c->tab.n + 5, "<?>"), "<?>")) {
		TFAIL("%s: gpt_reader_string_or ignores its placeholder", case_name(c));
		return false;
	}
	return true;
}

/* The reader's status after a clean file read to the end, and no error. */
static bool check_status(const struct rt_case *c, struct gpt_reader *r, uint64_t chunks)
{
	struct gpt_reader_status st;
	size_t nprob;

	gpt_reader_get_status(r, &st);
	gpt_reader_problems(r, &nprob);
	bool st_ok = st.has_footer && !st.truncated && st.problems == 0 && nprob == 0 &&
		     st.bytes_skipped == 0 && st.major == GPT_FORMAT_STREAM_MAJOR &&
		     st.minor == GPT_FORMAT_STREAM_MINOR && st.file_bytes == c->file.len &&
		     st.strings == c->tab.n - 1 && st.chunks == chunks;
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		st_ok &= st.records[k] == c->want[k].n;
	}
	if (!st_ok) {
		TFAIL("%s: status: footer %d truncated %d problems %" PRIu64 "/%zu strings %" PRIu64
		      " of %zu chunks %" PRIu64 " of %" PRIu64 " (last error: %s)",
		      case_name(c), st.has_footer, st.truncated, st.problems, nprob, st.strings,
		      c->tab.n - 1, st.chunks, chunks, gpt_reader_last_error(r));
		return false;
	}
	if (strcmp(gpt_reader_last_error(r), "no error")) {
		TFAIL("%s: last error on a clean file: %s", case_name(c), gpt_reader_last_error(r));
		return false;
	}
	return true;
}

static bool verify_case(struct rt_case *c)
{
	struct tt_chunk *chunks = malloc(TT_MAX_CHUNKS * sizeof(*chunks));
	size_t nchunks = 0, pos[GPT_KIND__MAX] = {0}, walk = 0, string_chunks = 0;
	struct gpt_reader *r = NULL;
	struct gpt_chunk ch;
	uint64_t record_chunks = 0;
	uint32_t chunk_cap = c->o.chunk_records ? c->o.chunk_records : 8192;
	bool ok = false;
	int ret;

	if (!chunks) {
		abort();
	}
	if (!check_structure(c, chunks, &nchunks)) {
		goto out;
	}
	if (c->o.use_file) {
		char path[300];
		snprintf(path, sizeof(path), "%s/rt-%" PRIu64 ".gpz", test_tmpdir(), c->seed);
		ret = gpt_reader_open(path, &r);
	} else {
		ret = gpt_reader_open_mem(c->file.p, c->file.len, "rt.gpz", &r);
	}
	if (ret) {
		TFAIL("%s: open failed: %d: %s", case_name(c), ret,
		      r ? gpt_reader_last_error(r) : "");
		goto out;
	}
	while ((ret = gpt_reader_next(r, &ch)) == 1) {
		const struct gpt_kind_info *ki = ch.info;
		unsigned k = ch.kind;

		/* The walker's next record chunk is this one. */
		while (walk < nchunks && (chunks[walk].kind == GPT_KIND_STRING ||
					  chunks[walk].kind == GPT_KIND_INDEX)) {
			string_chunks += chunks[walk].kind == GPT_KIND_STRING;
			walk++;
		}
		if (walk >= nchunks || ch.offset != chunks[walk].off || ch.index != walk ||
		    k != chunks[walk].kind || ch.count != chunks[walk].count) {
			TFAIL("%s: chunk at %" PRIu64 " (index %u) is not the walker's chunk %zu",
			      case_name(c), ch.offset, ch.index, walk);
			goto out;
		}
		walk++;
		record_chunks++;
		if (ki != gpt_kind_info(k) || ch.count == 0 || ch.count > chunk_cap) {
			TFAIL("%s: chunk of %u %s records (chunk_records %u)", case_name(c),
			      ch.count, ki ? ki->name : "?", c->o.chunk_records);
			goto out;
		}
		if (pos[k] + ch.count > c->want[k].n) {
			TFAIL("%s: more %s records than written", case_name(c), ki->name);
			goto out;
		}
		if (!check_records(c, &ch, pos[k])) {
			goto out;
		}
		pos[k] += ch.count;
	}
	if (ret != 0) {
		TFAIL("%s: gpt_reader_next failed: %d: %s", case_name(c), ret,
		      gpt_reader_last_error(r));
		goto out;
	}
	for (size_t i = walk; i < nchunks; i++) {
		string_chunks += chunks[i].kind == GPT_KIND_STRING;
	}
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		if (pos[k] != c->want[k].n) {
			TFAIL("%s: read %zu %s records of %zu", case_name(c), pos[k],
			      gpt_kind_info(k)->name, c->want[k].n);
			goto out;
		}
	}
	if (!check_strings(c, r)) {
		goto out;
	}

	if (!check_status(c, r, record_chunks + string_chunks)) {
		goto out;
	}
	/* At the end, more calls keep returning 0. */
	if (gpt_reader_next(r, &ch) != 0) {
		TFAIL("%s: gpt_reader_next after the end", case_name(c));
		goto out;
	}
	ok = true;
out:
	gpt_reader_free(r);
	free(chunks);
	return ok;
}

static bool run_case(uint64_t seed, const char *label, const struct rt_opts *o)
{
	struct rt_case c = {.seed = seed, .label = label, .o = *o};
	bool ok;

	gp_rng_seed(&c.rng, seed);
	strtab_init(&c.tab);
	ok = write_case(&c) && verify_case(&c);
	strtab_release(&c.tab);
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		free(c.want[k].v);
	}
	tt_buf_free(&c.file);
	return ok;
}

static const uint32_t chunk_sizes[] = {1, 2, 3, 5, 7, 13, 31, 64, 100, 127, 255, 1000, 8192};

/* Runs n seeded cases; stops after a few failures so the output stays readable. */
static void run_cases(const char *label, uint64_t seed0, unsigned n, int level_lo, int level_hi,
		      uint32_t max_per_kind)
{
	struct gp_rng pick;
	unsigned failed = 0;

	gp_rng_seed(&pick, seed0);
	for (unsigned i = 0; i < n && failed < 3; i++) {
		struct rt_opts o = {
			.level = level_lo +
				 (int)gp_rng_below(&pick, (uint64_t)(level_hi - level_lo + 1)),
			.chunk_records =
				chunk_sizes[gp_rng_below(&pick, GP_ARRAY_SIZE(chunk_sizes))],
			.max_long_string = 2048,
			.n_strings = (unsigned)gp_rng_below(&pick, 40),
		};
		/* Few records per kind when chunks are tiny, to keep the case count high. */
		o.max_per_kind = o.chunk_records < 8 ? max_per_kind / 4 : max_per_kind;
		if (!run_case(seed0 + i, label, &o)) {
			failed++;
		}
	}
	if (failed) {
		TFAIL("%s: at least %u failing cases", label, failed);
	}
}

TEST(roundtrip_uncompressed)
{
	run_cases("level0", 1000000, test_sampled(700), 0, 0, 120);
	/* The cases reached every encoding, and CONST and omitted columns, many times. */
	for (unsigned e = 0; e < GPT_ENC__MAX; e++) {
		if (seen.enc[e] < test_sampled(1000)) {
			TFAIL("only %" PRIu64 " columns of encoding %u", seen.enc[e], e);
		}
	}
	CHECK(seen.omitted > test_sampled(10000));
	CHECK(seen.enc[GPT_ENC_CONST] * 10 > seen.columns);
}

TEST(roundtrip_compressed)
{
	run_cases("levels1-9", 2000000, test_sampled(900), 1, 9, 120);
}

TEST(roundtrip_default_opts)
{
	struct gpt_writer_opts wo = {.level = -1, .chunk_records = 0};
	struct tt_mem_writer mw;
	struct tt_buf b;
	struct gpt_kernel k = {.start = 10, .end = 20};
	struct tt_chunk ch[8];
	uint64_t tr;
	unsigned failed = 0;

	/* level -1 and chunk_records 0 mean the defaults: deflate level 1, 8192 records. */
	REQUIRE(tt_writer_open(&mw, &wo) == 0);
	for (unsigned j = 0; j < 8193; j++) {
		k.start += j;
		REQUIRE(gpt_writer_add(mw.w, GPT_KIND_KERNEL, &k) == 0);
	}
	REQUIRE(tt_writer_finish(&mw, &b) == 0);
	size_t n = tt_walk(b.p, b.len, ch, 8, &tr);
	CHECK_EQ_U(n, 3);
	CHECK_EQ_U(ch[0].count, 8192);
	CHECK_EQ_U(ch[0].flags, GPT_CHUNK_FLAG_DEFLATE);
	CHECK_EQ_U(ch[1].count, 1);
	CHECK_EQ_U(ch[2].kind, GPT_KIND_INDEX);
	tt_buf_free(&b);

	for (unsigned i = 0; i < 40 && failed < 3; i++) {
		struct rt_opts o = {.level = -1,
				    .chunk_records = 0,
				    .max_per_kind = 150,
				    .max_long_string = 2048,
				    .n_strings = 20};
		if (!run_case(3000000 + i, "defaults", &o)) {
			failed++;
		}
	}
	CHECK_EQ_U(failed, 0);
}

TEST(roundtrip_real_file)
{
	unsigned failed = 0;
	for (unsigned i = 0; i < 30 && failed < 3; i++) {
		struct rt_opts o = {.level = (int)(i % 10),
				    .chunk_records = chunk_sizes[i % 13],
				    .max_per_kind = 60,
				    .max_long_string = 2048,
				    .n_strings = 10,
				    .use_file = true};
		if (!run_case(4000000 + i, "file", &o)) {
			failed++;
		}
	}
	CHECK_EQ_U(failed, 0);
}

TEST(roundtrip_long_strings)
{
	/* Strings up to 300 KB: string chunks beyond their 256 KB target, and many of them. */
	unsigned failed = 0;
	for (unsigned i = 0; i < 12 && failed < 3; i++) {
		struct rt_opts o = {.level = (int)(i % 3),
				    .chunk_records = chunk_sizes[(i * 5) % 13],
				    .max_per_kind = 40,
				    .max_long_string = 300000,
				    .n_strings = 60};
		if (!run_case(5000000 + i, "long-strings", &o)) {
			failed++;
		}
	}
	CHECK_EQ_U(failed, 0);
}

TEST(roundtrip_big_chunks)
{
	/*
	 * Thousands of records in one chunk: keyed prediction tables fill up
	 * (more distinct keys than slots), long varint columns.
	 */
	unsigned failed = 0;
	for (unsigned i = 0; i < 4 && failed < 3; i++) {
		struct rt_opts o = {.level = i & 1 ? 1 : 0,
				    .chunk_records = i < 2 ? 8192 : 6000,
				    .max_per_kind = 7000,
				    .max_long_string = 100,
				    .n_strings = 3000,
				    .no_flush = true};
		if (!run_case(6000000 + i, "big-chunks", &o)) {
			failed++;
		}
	}
	CHECK_EQ_U(failed, 0);
}

TEST(roundtrip_string_edge_cases)
{
	struct tt_mem_writer mw;
	struct tt_buf b = {0};
	uint32_t id_a, id_a2, id_empty, id_null, id_nul, id_long, id_pre, id_b;
	size_t biglen = GPT_MAX_STRING_BYTES + 1000;
	char *big = malloc(biglen);

	REQUIRE(big != NULL);
	for (size_t i = 0; i < biglen; i++) {
		big[i] = (char)('a' + i % 23);
	}
	REQUIRE(tt_writer_open(&mw, NULL) == 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(mw.w, "alpha", &id_a), 0);
	CHECK_EQ_I(gpt_writer_intern(mw.w, "alphabet", 5, &id_a2), 0);
	CHECK_EQ_I(gpt_writer_intern_cstr(mw.w, "", &id_empty), 0);
	CHECK_EQ_I(gpt_writer_intern(mw.w, NULL, 0, &id_null), 0);
	CHECK_EQ_I(gpt_writer_intern(mw.w, "\0abc", 4, &id_nul), 0);
	CHECK_EQ_I(gpt_writer_intern(mw.w, big, biglen, &id_long), 0);
	CHECK_EQ_I(gpt_writer_intern(mw.w, big, GPT_MAX_STRING_BYTES, &id_pre), 0);
	CHECK_EQ_I(gpt_writer_intern(mw.w, "be\0ta", 5, &id_b), 0);
	CHECK_EQ_U(id_a, 1);
	CHECK_EQ_U(id_a2, id_a); /* the first five bytes of "alphabet" */
	CHECK_EQ_U(id_empty, 0);
	CHECK_EQ_U(id_null, 0);
	CHECK_EQ_U(id_nul, 0); /* cut at the NUL: empty */
	CHECK_EQ_U(id_long, 2);
	CHECK_EQ_U(id_pre, id_long); /* the long string was cut to exactly this */
	CHECK_EQ_U(id_b, 3);
	struct gpt_thread t = {.ts = 1, .tid = 2, .name = id_long};
	REQUIRE(gpt_writer_add(mw.w, GPT_KIND_THREAD, &t) == 0);
	t.name = id_b;
	REQUIRE(gpt_writer_add(mw.w, GPT_KIND_THREAD, &t) == 0);
	REQUIRE(tt_writer_finish(&mw, &b) == 0);

	struct gpt_reader *r;
	struct gpt_chunk ch;
	REQUIRE(gpt_reader_open_mem(b.p, b.len, "s.gpz", &r) == 0);
	CHECK_EQ_I(gpt_reader_next(r, &ch), 1);
	CHECK_EQ_I(gpt_reader_next(r, &ch), 0);
	CHECK_STR(gpt_reader_string(r, id_a), "alpha");
	CHECK_STR(gpt_reader_string(r, id_b), "be");
	CHECK_STR(gpt_reader_string(r, 0), "");
	const char *l = gpt_reader_string(r, id_long);
	CHECK(l != NULL && strlen(l) == GPT_MAX_STRING_BYTES && !memcmp(l, big, strlen(l)));
	CHECK(gpt_reader_string(r, 4) == NULL);
	struct gpt_reader_status st;
	gpt_reader_get_status(r, &st);
	CHECK_EQ_U(st.strings, 3);
	CHECK(st.has_footer && !st.truncated && st.problems == 0);
	gpt_reader_free(r);
	tt_buf_free(&b);
	free(big);
}

TEST(writer_api_misuse)
{
	struct gpt_writer *w = (struct gpt_writer *)1;
	struct gpt_writer_opts bad_level = {.level = 10}, neg_level = {.level = -2},
			       big_chunks = {.chunk_records = GPT_MAX_CHUNK_RECORDS + 1};
	int fd = memfd_create("x", 0);

	REQUIRE(fd >= 0);
	CHECK_EQ_I(gpt_writer_open_fd(dup(fd), "x", &bad_level, &w), -GP_ERR_API);
	CHECK(w == NULL);
	CHECK_EQ_I(gpt_writer_open_fd(dup(fd), "x", &neg_level, &w), -GP_ERR_API);
	CHECK_EQ_I(gpt_writer_open_fd(dup(fd), "x", &big_chunks, &w), -GP_ERR_API);
	char path[300];
	snprintf(path, sizeof(path), "%s/no/such/dir/t.gpz", test_tmpdir());
	CHECK_EQ_I(gpt_writer_open(path, NULL, &w), -GP_ERR_IO);
	CHECK(w == NULL);

	REQUIRE(gpt_writer_open_fd(fd, "x", NULL, &w) == 0);
	struct gpt_kernel k = {0};
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_NONE, &k), -GP_ERR_API);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_STRING, &k), -GP_ERR_API);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_INDEX, &k), -GP_ERR_API);
	CHECK_EQ_I(gpt_writer_add(w, (enum gpt_kind)200, &k), -GP_ERR_API);
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, NULL), -GP_ERR_API);
	/* Misuse left the writer working. */
	CHECK_EQ_I(gpt_writer_add(w, GPT_KIND_KERNEL, &k), 0);
	CHECK_STR(gpt_writer_last_error(w), "no error");
	CHECK_EQ_I(gpt_writer_close(w), 0);
	CHECK_EQ_I(gpt_writer_close(NULL), -GP_ERR_API);
	gpt_writer_abandon(NULL);
}

TEST(writer_stats_and_empty_trace)
{
	struct tt_mem_writer mw;
	struct tt_buf b;
	struct gpt_writer_stats ws;
	struct gpt_writer_opts o = {.level = 0, .chunk_records = 3};

	/* An empty trace: header, an empty index, the trailer; reads cleanly. */
	REQUIRE(tt_writer_open(&mw, NULL) == 0);
	REQUIRE(tt_writer_finish(&mw, &b) == 0);
	struct tt_read rd;
	tt_read_all(b.p, b.len, "empty.gpz", &rd);
	CHECK_EQ_I(rd.open_ret, 0);
	CHECK_EQ_I(rd.next_ret, 0);
	CHECK_EQ_U(rd.chunks, 0);
	CHECK(rd.st.has_footer && !rd.st.truncated);
	CHECK_EQ_U(rd.nproblems, 0);
	tt_read_release(&rd);
	tt_buf_free(&b);

	REQUIRE(tt_writer_open(&mw, &o) == 0);
	uint32_t id;
	REQUIRE(gpt_writer_intern_cstr(mw.w, "n", &id) == 0);
	struct gpt_stream s = {.id = 1, .name = id};
	for (int i = 0; i < 7; i++) {
		s.id = (uint32_t)i;
		REQUIRE(gpt_writer_add(mw.w, GPT_KIND_STREAM, &s) == 0);
	}
	gpt_writer_get_stats(mw.w, &ws);
	/* Two full chunks of 3 went out with the string chunk before them. */
	CHECK_EQ_U(ws.records[GPT_KIND_STREAM], 6);
	CHECK_EQ_U(ws.chunks, 3);
	CHECK_EQ_U(ws.strings, 1);
	REQUIRE(gpt_writer_flush(mw.w) == 0);
	gpt_writer_get_stats(mw.w, &ws);
	CHECK_EQ_U(ws.records[GPT_KIND_STREAM], 7);
	CHECK_EQ_U(ws.chunks, 4);
	uint64_t fb = ws.file_bytes;
	REQUIRE(tt_writer_finish(&mw, &b) == 0);
	struct tt_chunk ch[16];
	uint64_t tr;
	size_t n = tt_walk(b.p, b.len, ch, 16, &tr);
	/* string, 3 stream chunks, then the index of 4 entries in chunks of 3 and 1 */
	CHECK_EQ_U(n, 6);
	CHECK_EQ_U(fb, ch[4].off);
	CHECK_EQ_U(ch[0].kind, GPT_KIND_STRING);
	CHECK_EQ_U(ch[3].count, 1);
	CHECK_EQ_U(ch[4].kind, GPT_KIND_INDEX);
	CHECK_EQ_U(ch[4].count, 3);
	CHECK_EQ_U(ch[5].kind, GPT_KIND_INDEX);
	CHECK_EQ_U(ch[5].count, 1);
	tt_buf_free(&b);
}
