/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the columnar record payload (FORMAT.md section 6): a field of
 * every record is one column of 64-bit values, encoded CONST, VARINT,
 * ZIGZAG, DELTA, REL or KEYED; and the reverse. Every length and value read
 * is checked.
 *
 * Speed notes. Records are arrays of structs of up to ~200 bytes, and a
 * chunk of them (8192 by default) is larger than a core's L2 cache, so
 * neither side walks the whole array once per column:
 *  - the encoder finds the constant and all-zero columns in one sequential
 *    pass (an OR of every record XOR the first) and gathers only the others;
 *  - the decoder first parses and checks every column header, then decodes
 *    all columns a block of records at a time, each value going straight
 *    from its varint into its record while the block is in L1.
 */
#include "base/compat.h"
#include "trace/format.h"

#define NO_PREV UINT32_MAX
#define KEY_SLOTS_MAX 4096u
#define KEY_SMALL 8u
#define MAX_FIELDS 256u

/* ---- one field of one record as a 64-bit value (i32 sign-extended) */

static inline uint64_t load(const uint8_t *p, uint8_t type)
{
	switch (type) {
	case GPT_TY_u8:
		return *p;
	case GPT_TY_u16: {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	case GPT_TY_u32:
	case GPT_TY_str: {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	case GPT_TY_i32: {
		int32_t v;
		memcpy(&v, p, 4);
		return (uint64_t)(int64_t)v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* Stores v; returns non-zero when v does not fit the type (FORMAT.md 6.4). */
static inline uint64_t store(uint8_t *p, uint8_t type, uint64_t v)
{
	switch (type) {
	case GPT_TY_u8:
		*p = (uint8_t)v;
		return v >> 8;
	case GPT_TY_u16: {
		uint16_t x = (uint16_t)v;
		memcpy(p, &x, 2);
		return v >> 16;
	}
	case GPT_TY_u32:
	case GPT_TY_str: {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, 4);
		return v >> 32;
	}
	case GPT_TY_i32: {
		int64_t s = (int64_t)v;
		int32_t x = (int32_t)s;
		memcpy(p, &x, 4);
		return (uint64_t)(s != x);
	}
	default:
		memcpy(p, &v, 8);
		return 0;
	}
}

static size_t type_width(uint8_t type)
{
	switch (type) {
	case GPT_TY_u8:
		return 1;
	case GPT_TY_u16:
		return 2;
	case GPT_TY_u32:
	case GPT_TY_str:
	case GPT_TY_i32:
		return 4;
	default:
		return 8;
	}
}

static void gather(const struct gpt_field *f, const uint8_t *recs, size_t size, uint32_t n,
		   uint64_t *col)
{
	const uint8_t *p = recs + f->offset;

#define GATHER_(ty)                                                                                \
	for (uint32_t i = 0; i < n; i++, p += size) {                                              \
		col[i] = load(p, ty);                                                              \
	}
	switch (f->type) {
	case GPT_TY_u8:
		GATHER_(GPT_TY_u8);
		break;
	case GPT_TY_u16:
		GATHER_(GPT_TY_u16);
		break;
	case GPT_TY_u32:
	case GPT_TY_str:
		GATHER_(GPT_TY_u32);
		break;
	case GPT_TY_i32:
		GATHER_(GPT_TY_i32);
		break;
	default:
		GATHER_(GPT_TY_u64);
		break;
	}
#undef GATHER_
}

/* ---- keyed prediction (FORMAT.md 6.2) */

/*
 * The last earlier record with the same key, for records in order. The
 * format's rule: the first 'limit' distinct keys are tracked, where limit
 * is half the slots of a table of max(16, 2 * count) rounded up to a power
 * of two, at most 4096; other keys predict nothing. Only the order of first
 * appearance matters, so this keeps up to KEY_SMALL keys in a list (most
 * chunks: one key per stream or thread) and moves to an open-addressed
 * table of record indices, whose keys are read back from the records, when
 * more appear.
 */
struct key_track {
	const uint8_t *keys; /* the key of record i is at keys + i * stride */
	size_t stride;
	uint8_t type;
	uint32_t limit, used;
	uint32_t mask;       /* slots - 1 once spilled to 'slot' */
	uint32_t *slot;      /* last index + 1; 0 empty; NULL until spilled */
	uint64_t small_key[KEY_SMALL];
	uint32_t small_last[KEY_SMALL];
};

static void key_track_init(struct key_track *t, const uint8_t *keys, size_t stride, uint8_t type,
			   uint32_t count)
{
	uint32_t slots = 16;

	while (slots < 2 * (uint64_t)count && slots < KEY_SLOTS_MAX) {
		slots *= 2;
	}
	t->keys = keys;
	t->stride = stride;
	t->type = type;
	t->limit = slots / 2;
	t->used = 0;
	t->mask = 0;
	t->slot = NULL;
}

static void key_track_release(struct key_track *t)
{
	free(t->slot);
	t->slot = NULL;
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The key of record i; T is t->type, a constant where this is inlined. */
static ALWAYS_INLINE uint64_t key_at(const struct key_track *t, uint32_t i, uint8_t T)
{
	return load(t->keys + (size_t)i * t->stride, T);
}

/* Finds the slot of key k: its own, or the empty one where it would go. */
static ALWAYS_INLINE uint32_t key_slot(const struct key_track *t, uint64_t k, uint8_t T)
{
	/* Any hash will do (FORMAT.md 6.2): the result depends only on the order of keys. */
	uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & t->mask;

	while (t->slot[h] && key_at(t, t->slot[h] - 1, T) != k) {
		h = (h + 1) & t->mask;
	}
	return h;
}

/* Moves the list to a table once it is full; false when out of memory. */
static bool key_spill(struct key_track *t)
{
	uint32_t slots = 2 * t->limit;

	t->slot = calloc(slots, sizeof(*t->slot));
	if (!t->slot) {
		return false;
	}
	t->mask = slots - 1;
	for (uint32_t j = 0; j < t->used; j++) {
		t->slot[key_slot(t, t->small_key[j], t->type)] = t->small_last[j] + 1;
	}
	return true;
}

/*
 * Record i (in order, each once) has key k: returns the last earlier record
 * with that key or NO_PREV, and remembers i. Sets *nomem on allocation failure.
 */
static ALWAYS_INLINE uint32_t key_prev(struct key_track *t, uint64_t k, uint32_t i, bool *nomem,
				       uint8_t T)
{
	uint32_t prev;

	if (!t->slot) {
		for (uint32_t j = 0; j < t->used; j++) {
			if (t->small_key[j] == k) {
				prev = t->small_last[j];
				t->small_last[j] = i;
				return prev;
			}
		}
		if (t->used < KEY_SMALL) {
			/* limit >= 8 always: the first eight keys are tracked */
			t->small_key[t->used] = k;
			t->small_last[t->used] = i;
			t->used++;
			return NO_PREV;
		}
		if (t->used >= t->limit) {
			return NO_PREV;
		}
		if (!key_spill(t)) {
			*nomem = true;
			return NO_PREV;
		}
	}
	uint32_t h = key_slot(t, k, T);
	if (t->slot[h]) {
		prev = t->slot[h] - 1;
		t->slot[h] = i + 1;
		return prev;
	}
	if (t->used < t->limit) {
		t->slot[h] = i + 1;
		t->used++;
	}
	return NO_PREV;
}

static ALWAYS_INLINE void key_prevs_t(struct key_track *t, uint32_t i0, uint32_t i1,
				      uint32_t *prev, bool self, bool *nomem, uint8_t T)
{
	for (uint32_t i = i0; i < i1; i++) {
		uint32_t j = key_prev(t, key_at(t, i, T), i, nomem, T);
		prev[i - i0] = self && j == NO_PREV ? i : j;
	}
}

/*
 * prev[i - i0] for records i0..i1-1, which come next in order. With self,
 * a record without a prediction gets its own index instead of NO_PREV: the
 * decoder reads the prediction from its still zero field.
 */
static void key_prevs(struct key_track *t, uint32_t i0, uint32_t i1, uint32_t *prev, bool self,
		      bool *nomem)
{
	switch (t->type) {
	case GPT_TY_u8:
		key_prevs_t(t, i0, i1, prev, self, nomem, GPT_TY_u8);
		break;
	case GPT_TY_u16:
		key_prevs_t(t, i0, i1, prev, self, nomem, GPT_TY_u16);
		break;
	case GPT_TY_u32:
	case GPT_TY_str:
		key_prevs_t(t, i0, i1, prev, self, nomem, GPT_TY_u32);
		break;
	case GPT_TY_i32:
		key_prevs_t(t, i0, i1, prev, self, nomem, GPT_TY_i32);
		break;
	default:
		key_prevs_t(t, i0, i1, prev, self, nomem, GPT_TY_u64);
		break;
	}
}

/* ---- encoding */

static bool has_dep(uint8_t enc)
{
	return enc == GPT_ENC_REL || enc == GPT_ENC_KEYED;
}

/*
 * OR of every record XOR the first, byte by byte, into diff (size bytes):
 * a field whose bytes stay zero has one value in every record.
 */
static void diff_records(const uint8_t *recs, size_t size, uint32_t n, uint8_t *diff)
{
	size_t words = size / 8;
	uint64_t acc[MAX_FIELDS]; /* the caller checked size <= 8 * MAX_FIELDS */

	memset(acc, 0, words * 8);
	memset(diff, 0, size);
	for (uint32_t i = 1; i < n; i++) {
		const uint8_t *r = recs + (size_t)i * size;
		for (size_t w = 0; w < words; w++) {
			uint64_t a, b;
			memcpy(&a, r + 8 * w, 8);
			memcpy(&b, recs + 8 * w, 8);
			acc[w] |= a ^ b;
		}
		for (size_t j = words * 8; j < size; j++) {
			diff[j] |= r[j] ^ recs[j];
		}
	}
	for (size_t w = 0; w < words; w++) {
		uint64_t d;
		memcpy(&d, diff + 8 * w, 8);
		d |= acc[w];
		memcpy(diff + 8 * w, &d, 8);
	}
}

static bool is_same(const struct gpt_field *f, const uint8_t *diff)
{
	size_t w = type_width(f->type);

	for (size_t j = 0; j < w; j++) {
		if (diff[f->offset + j]) {
			return false;
		}
	}
	return true;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* The magnitude of a residual held as 64 bits two's complement (2^63 for INT64_MIN). */
static inline uint64_t magnitude(uint64_t r)
{
	return (int64_t)r < 0 ? 0 - r : r;
}

/*
 * Residuals of a column into res (what the encoding stores before zigzag):
 * the value (VARINT, ZIGZAG) or its difference from the prediction, mod 2^64.
 * res may be ref (REL reads ref[i] before writing res[i]).
 */
static void residuals(uint8_t enc, const uint64_t *col, const uint64_t *ref, const uint32_t *prev,
		      uint32_t count, uint64_t *res)
{
	uint64_t last = 0;

	for (uint32_t i = 0; i < count; i++) {
		switch (enc) {
		case GPT_ENC_DELTA:
			res[i] = col[i] - last;
			last = col[i];
			break;
		case GPT_ENC_REL:
			res[i] = col[i] - ref[i];
			break;
		case GPT_ENC_KEYED:
			res[i] = col[i] - (prev[i] == NO_PREV ? 0 : col[prev[i]]);
			break;
		default:
			res[i] = col[i];
			break;
		}
	}
}

/*
 * The scale of a column (FORMAT.md 12.2): the greatest common divisor of its
 * residuals' magnitudes, the largest factor that leaves every stored value
 * an integer; 1 when there is none worth a varint.
 */
static uint64_t column_scale(uint8_t enc, const uint64_t *res, uint32_t count)
{
	uint64_t g = 0;

	for (uint32_t i = 0; i < count && g != 1; i++) {
		uint64_t m = enc == GPT_ENC_VARINT ? res[i] : magnitude(res[i]);
		g = g ? gcd_u64(g, m) : m;
	}
	return g >= 2 ? g : 1;
}

/* The state of one encoding: its records, scratch columns and output. */
struct encoder {
	const struct gpt_kind_info *ki;
	const uint8_t *rb;
	uint32_t count;
	bool scaled;
	uint64_t *col;                    /* the values of the column being written */
	uint64_t *ref;                    /* REL: its reference column; scaled: its residuals */
	uint32_t *prev;                   /* KEYED: the record each record is predicted from */
	const struct gpt_field *prev_key; /* prev[] holds the prediction keyed on this field */
	struct gp_strbuf *out;
};

/*
 * Finds whether each field has one value in every record (same[], by field
 * index) and returns how many columns are written: all but those whose
 * value is zero in every record, as the reader's zeroed structs say it.
 */
static unsigned find_same_columns(const struct encoder *e, bool *same)
{
	const struct gpt_kind_info *ki = e->ki;
	uint8_t diff[MAX_FIELDS * 8];
	unsigned ncols = 0;
	/*
	 * Constant columns from one pass over the records when they are small
	 * enough for the diff buffer (all kinds are); else gather each column.
	 */
	bool have_diff = e->count > 0 && ki->size <= sizeof(diff);

	if (have_diff) {
		diff_records(e->rb, ki->size, e->count, diff);
	}
	for (size_t fi = 0; fi < ki->nfields; fi++) {
		const struct gpt_field *f = &ki->fields[fi];
		bool s = e->count == 0;
		if (!s && have_diff) {
			s = is_same(f, diff);
		} else if (!s) {
			gather(f, e->rb, ki->size, e->count, e->col);
			s = true;
			for (uint32_t i = 1; i < e->count && s; i++) {
				s = e->col[i] == e->col[0];
			}
		}
		same[fi] = s;
		if (!(s && (e->count == 0 || load(e->rb + f->offset, f->type) == 0))) {
			ncols++;
		}
	}
	return ncols;
}

/* A column with one value in every record: CONST, or nothing when that value is zero. */
static void write_same_column(struct encoder *e, const struct gpt_field *f)
{
	uint64_t v = e->count ? load(e->rb + f->offset, f->type) : 0;
	uint8_t hdr[32];
	size_t h = 0;

	if (v == 0) {
		return;
	}
	h += gpt_put_varint(hdr + h, f->id);
	hdr[h++] = GPT_ENC_CONST;
	h += gpt_put_varint(hdr + h, v);
	gp_strbuf_add(e->out, hdr, h);
}

/* Gathers the column of f into col[] and what encoding enc predicts it from. */
static int load_column(struct encoder *e, const struct gpt_field *f, const struct gpt_field *rf,
		       uint8_t enc)
{
	size_t size = e->ki->size;

	gather(f, e->rb, size, e->count, e->col);
	if (enc == GPT_ENC_REL) {
		gather(rf, e->rb, size, e->count, e->ref);
	}
	if (enc == GPT_ENC_KEYED && e->prev_key != rf) {
		struct key_track kt;
		bool nomem = false;
		key_track_init(&kt, e->rb + rf->offset, size, rf->type, e->count);
		key_prevs(&kt, 0, e->count, e->prev, false, &nomem);
		key_track_release(&kt);
		if (nomem) {
			return -GP_ERR_NOMEM;
		}
		e->prev_key = rf;
	}
	return 0;
}

/* The residuals in ref[] divided by scale (exactly: it divides them all), as varints at q. */
static uint8_t *put_scaled_values(const struct encoder *e, uint8_t enc, uint64_t scale, uint8_t *q)
{
	for (uint32_t i = 0; i < e->count; i++) {
		uint64_t r = e->ref[i], x;
		if (enc == GPT_ENC_VARINT) {
			x = r / scale;
		} else if (scale == 1) {
			x = gpt_zigzag((int64_t)r);
		} else {
			uint64_t m = magnitude(r) / scale;
			x = gpt_zigzag((int64_t)r < 0 ? -(int64_t)m : (int64_t)m);
		}
		q += gpt_put_varint(q, x);
	}
	return q;
}

/* The column in col[] encoded as enc, as varints at q; NULL for an unknown encoding. */
static uint8_t *put_values(const struct encoder *e, uint8_t enc, uint8_t *q)
{
	const uint64_t *col = e->col, *ref = e->ref;
	const uint32_t *prev = e->prev;
	uint32_t count = e->count;

	switch (enc) {
	case GPT_ENC_VARINT:
		for (uint32_t i = 0; i < count; i++) {
			q += gpt_put_varint(q, col[i]);
		}
		return q;
	case GPT_ENC_ZIGZAG:
		for (uint32_t i = 0; i < count; i++) {
			q += gpt_put_varint(q, gpt_zigzag((int64_t)col[i]));
		}
		return q;
	case GPT_ENC_DELTA: {
		uint64_t last = 0;
		for (uint32_t i = 0; i < count; i++) {
			q += gpt_put_varint(q, gpt_zigzag((int64_t)(col[i] - last)));
			last = col[i];
		}
		return q;
	}
	case GPT_ENC_REL:
		for (uint32_t i = 0; i < count; i++) {
			q += gpt_put_varint(q, gpt_zigzag((int64_t)(col[i] - ref[i])));
		}
		return q;
	case GPT_ENC_KEYED:
		for (uint32_t i = 0; i < count; i++) {
			uint64_t pred = prev[i] == NO_PREV ? 0 : col[prev[i]];
			q += gpt_put_varint(q, gpt_zigzag((int64_t)(col[i] - pred)));
		}
		return q;
	default:
		return NULL;
	}
}

/* Writes the column of field f, predicted from rf where its encoding says so. */
static int write_column(struct encoder *e, const struct gpt_field *f, const struct gpt_field *rf)
{
	struct gp_strbuf *out = e->out;
	uint8_t enc = f->enc;
	uint64_t scale = 1;
	uint8_t hdr[32];
	size_t h = 0, enc_at;
	int ret;

	h += gpt_put_varint(hdr + h, f->id);
	if (enc == GPT_ENC_ZIGZAG && !gpt_field_is_signed(f)) {
		enc = GPT_ENC_VARINT;
	}
	enc_at = h;
	hdr[h++] = enc;
	ret = load_column(e, f, rf, enc);
	if (ret) {
		return ret;
	}
	if (e->scaled) {
		/* Residuals go to ref[], which only REL uses, in place. */
		residuals(enc, e->col, e->ref, e->prev, e->count, e->ref);
		scale = column_scale(enc, e->ref, e->count);
		if (scale > 1) {
			hdr[enc_at] |= GPT_ENC_SCALED;
			h += gpt_put_varint(hdr + h, scale);
		}
	}
	if (has_dep(enc)) {
		h += gpt_put_varint(hdr + h, f->ref);
	}
	/* Worst case 10 bytes a value, after room for the header and length. */
	if (gp_strbuf_grow(out, h + 10 + (size_t)e->count * 10)) {
		return -GP_ERR_NOMEM;
	}
	uint8_t *start = (uint8_t *)out->buf + out->len;
	uint8_t *body = start + h + 10;
	uint8_t *q = e->scaled ? put_scaled_values(e, enc, scale, body) : put_values(e, enc, body);
	if (!q) {
		return -GP_ERR_API;
	}
	size_t blen = (size_t)(q - body);
	h += gpt_put_varint(hdr + h, blen);
	memcpy(start, hdr, h);
	memmove(start + h, body, blen);
	out->len += h + blen;
	out->buf[out->len] = '\0';
	return 0;
}

/*
 * One pass over the schema: writes, in schema order, each column not yet
 * done (done[], by field index; *ndone of them) whose reference field is out.
 */
static int write_ready_columns(struct encoder *e, const bool *same, bool *done, unsigned *ndone)
{
	const struct gpt_kind_info *ki = e->ki;

	for (size_t fi = 0; fi < ki->nfields; fi++) {
		const struct gpt_field *f = &ki->fields[fi];
		const struct gpt_field *rf = NULL;
		int ret;

		if (done[fi]) {
			continue;
		}
		if (has_dep(f->enc)) {
			rf = gpt_kind_field(ki, f->ref);
			if (!rf || (rf != f && !done[rf - ki->fields])) {
				continue;
			}
		}
		done[fi] = true;
		(*ndone)++;
		if (same[fi]) {
			write_same_column(e, f);
			continue;
		}
		ret = write_column(e, f, rf);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

int gpt_encode_records_ex(const struct gpt_kind_info *ki, const void *recs, uint32_t count,
			  uint64_t *tmp, struct gp_strbuf *out, bool scaled)
{
	struct encoder e = {
		.ki = ki,
		.rb = recs,
		.count = count,
		.scaled = scaled,
		.col = tmp,
		.ref = tmp + count,
		.prev = (uint32_t *)(tmp + 2 * (size_t)count),
		.out = out,
	};
	bool done[MAX_FIELDS] = {false};
	bool same[MAX_FIELDS];
	unsigned ndone = 0;
	size_t start_len = out->len;
	uint8_t nb[10];
	int ret = 0;

	if (ki->nfields > MAX_FIELDS) {
		return -GP_ERR_API;
	}
	gp_strbuf_add(out, nb, gpt_put_varint(nb, find_same_columns(&e, same)));
	/*
	 * Columns go out in schema order, except that a column predicted from
	 * another field waits until that field is out: passes until all are.
	 */
	while (!ret && ndone < ki->nfields) {
		unsigned before = ndone;
		ret = write_ready_columns(&e, same, done, &ndone);
		if (!ret && ndone == before) {
			ret = -GP_ERR_API; /* a dependency cycle in the schema */
		}
	}
	if (!ret && out->failed) {
		ret = -GP_ERR_NOMEM;
	}
	if (ret && !out->failed) {
		out->len = start_len;
		out->buf[out->len] = '\0';
	}
	return ret;
}

/* ---- decoding */

/*
 * One varint from [*pp, end); false if cut, longer than 10 bytes or past 64
 * bits. Unless checked (a constant where inlined), the caller has made sure
 * that 10 bytes can be read at *pp, and checks *pp against end afterwards.
 */
static ALWAYS_INLINE bool varint_at(const uint8_t **pp, const uint8_t *end, uint64_t *out,
				    bool checked)
{
	const uint8_t *p = *pp;

	if (!checked || GP_LIKELY(end - p >= 10)) {
		uint64_t b = *p++;
		if (GP_LIKELY(b < 0x80)) {
			*out = b;
			*pp = p;
			return true;
		}
		uint64_t v = b & 0x7f;
		for (unsigned shift = 7;; shift += 7) {
			b = *p++;
			if (shift == 63) {
				if (b > 1) {
					return false;
				}
				v |= b << 63;
				break;
			}
			v |= (b & 0x7f) << shift;
			if (b < 0x80) {
				break;
			}
		}
		*out = v;
		*pp = p;
		return true;
	}
	return gpt_get_varint(pp, end, out);
}

static ALWAYS_INLINE bool next_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	return varint_at(pp, end, out, true);
}

/* Whether [p, end) holds exactly n varints. */
static bool check_varints(const uint8_t *p, const uint8_t *end, uint32_t n)
{
	uint64_t v;

	for (uint32_t i = 0; i < n; i++) {
		if (!next_varint(&p, end, &v)) {
			return false;
		}
	}
	return p == end;
}

/* A column of a known field, as parsed from its header. */
struct dcol {
	const uint8_t *p, *end;        /* values still to decode */
	const struct gpt_field *f, *rf;
	uint8_t enc;
	uint16_t track;                /* KEYED: index of its key tracker */
	uint64_t v;                    /* CONST: the value; DELTA: the last value */
	uint64_t scale;                /* residuals are multiplied by it, mod 2^64; 1 unscaled */
};

/* The key tracker of one reference field, with the predictions for the current block. */
struct dtrack {
	struct key_track kt;
	const struct gpt_field *rf;
	uint32_t block;                /* block whose prev[] is filled, + 1; 0 none */
	uint32_t *prev;
};

/* Copies the record at tmpl into the n records at dst, doubling the copied part each time. */
static void fill_records(uint8_t *dst, const uint8_t *tmpl, size_t size, uint32_t n)
{
	size_t done = size, total = size * n;

	memcpy(dst, tmpl, size);
	while (done < total) {
		size_t k = done < total - done ? done : total - done;
		memcpy(dst + done, dst, k);
		done += k;
	}
}

/* Records per block: the block's structs stay within a 32 KiB L1 cache. */
#define BLOCK_BYTES 32768u
#define BLOCK_MAX 512u

enum dfail {
	DFAIL_NONE = 0,
	DFAIL_RANGE = 1,  /* a value out of range for its field */
	DFAIL_VALUES = 2, /* not exactly one valid varint per record: reported first */
};

/*
 * Decodes values [b0, b1) of column c into the records; returns DFAIL_*.
 * T is the field's type and checked whether each varint must be bounds
 * checked, constants where this is inlined.
 */
static ALWAYS_INLINE enum dfail
decode_run(struct dcol *c, struct dtrack *tr, uint8_t *recs, size_t size, uint32_t b0, uint32_t b1,
	   uint8_t T, bool checked)
{
	const uint8_t *end = c->end;
	const uint8_t *p = c->p;
	const uint64_t m = c->scale;
	size_t off = c->f->offset;
	uint8_t *r = recs + (size_t)b0 * size + off;
	uint64_t bad = 0, s;

	switch (c->enc) {
	case GPT_ENC_CONST:
		for (uint32_t i = b0; i < b1; i++, r += size) {
			store(r, T, c->v);
		}
		return DFAIL_NONE; /* its range was checked with its header */
	case GPT_ENC_VARINT:
		for (uint32_t i = b0; i < b1; i++, r += size) {
			if (!varint_at(&p, end, &s, checked)) {
				return DFAIL_VALUES;
			}
			bad |= store(r, T, m * s);
		}
		break;
	case GPT_ENC_ZIGZAG:
		for (uint32_t i = b0; i < b1; i++, r += size) {
			if (!varint_at(&p, end, &s, checked)) {
				return DFAIL_VALUES;
			}
			bad |= store(r, T, m * (uint64_t)gpt_unzigzag(s));
		}
		break;
	case GPT_ENC_DELTA: {
		uint64_t last = c->v;
		for (uint32_t i = b0; i < b1; i++, r += size) {
			if (!varint_at(&p, end, &s, checked)) {
				return DFAIL_VALUES;
			}
			last += m * (uint64_t)gpt_unzigzag(s);
			bad |= store(r, T, last);
		}
		c->v = last;
		break;
	}
	case GPT_ENC_REL: {
		const uint8_t *rr = recs + (size_t)b0 * size + c->rf->offset;
		uint8_t rt = c->rf->type;
		if (rt == GPT_TY_u64 || rt == GPT_TY_i64) {
			/* The usual case, an end time relative to a start time, unswitched. */
			for (uint32_t i = b0; i < b1; i++, r += size, rr += size) {
				if (!varint_at(&p, end, &s, checked)) {
					return DFAIL_VALUES;
				}
				uint64_t v = load(rr, GPT_TY_u64) + m * (uint64_t)gpt_unzigzag(s);
				bad |= store(r, T, v);
			}
			break;
		}
		for (uint32_t i = b0; i < b1; i++, r += size, rr += size) {
			if (!varint_at(&p, end, &s, checked)) {
				return DFAIL_VALUES;
			}
			bad |= store(r, T, load(rr, rt) + m * (uint64_t)gpt_unzigzag(s));
		}
		break;
	}
	case GPT_ENC_KEYED: {
		/* No prediction: prev[i] is i, whose field still holds zero. */
		const uint32_t *prev = tr[c->track].prev - b0;
		for (uint32_t i = b0; i < b1; i++, r += size) {
			if (!varint_at(&p, end, &s, checked)) {
				return DFAIL_VALUES;
			}
			uint64_t pred = load(recs + (size_t)prev[i] * size + off, T);
			bad |= store(r, T, pred + m * (uint64_t)gpt_unzigzag(s));
		}
		break;
	}
	}
	if (!checked && p > end) {
		return DFAIL_VALUES; /* the last values ran into the next column */
	}
	c->p = p;
	return bad ? DFAIL_RANGE : DFAIL_NONE;
}

static ALWAYS_INLINE enum dfail decode_block_c(struct dcol *c, struct dtrack *tr, uint8_t *recs,
					      size_t size, uint32_t b0, uint32_t b1, bool checked)
{
	switch (c->f->type) {
	case GPT_TY_u8:
		return decode_run(c, tr, recs, size, b0, b1, GPT_TY_u8, checked);
	case GPT_TY_u16:
		return decode_run(c, tr, recs, size, b0, b1, GPT_TY_u16, checked);
	case GPT_TY_u32:
	case GPT_TY_str:
		return decode_run(c, tr, recs, size, b0, b1, GPT_TY_u32, checked);
	case GPT_TY_i32:
		return decode_run(c, tr, recs, size, b0, b1, GPT_TY_i32, checked);
	default:
		return decode_run(c, tr, recs, size, b0, b1, GPT_TY_u64, checked);
	}
}

/*
 * Decodes records [b0, b1) of column c. When the payload (ending at pend)
 * has 10 bytes for each of these values past the column's position, as it
 * has but near its end, no varint needs its own bounds check.
 */
static enum dfail decode_block(struct dcol *c, struct dtrack *tr, uint8_t *recs, size_t size,
			       uint32_t b0, uint32_t b1, const uint8_t *pend)
{
	if (c->enc != GPT_ENC_CONST && (size_t)(pend - c->p) / 10 >= b1 - b0) {
		return decode_block_c(c, tr, recs, size, b0, b1, false);
	}
	return decode_block_c(c, tr, recs, size, b0, b1, true);
}

int gpt_decode_records(const struct gpt_kind_info *ki, const uint8_t *p, size_t len,
		       uint32_t count, void *recs, char *errbuf, size_t errlen)
{
	return gpt_decode_records_ex(ki, p, len, count, recs, errbuf, errlen, false);
}

/*
 * What went wrong, in the order of precedence at one column: memory, then
 * a column without exactly one valid varint per record, then a value out
 * of range, then a bad header (which is the next column's).
 */
enum derr_kind {
	DERR_NOMEM = 0,
	DERR_VALUES = 1,
	DERR_RANGE = 2,
	DERR_HEADER = 3,
	DERR_NONE = 4,
};

/*
 * The first error in the payload's order, as if each column were decoded
 * whole before the next header is read: a header error stops the parse at
 * the column it is in; decoding then may find value errors before it.
 */
struct derr {
	unsigned col; /* the column, by index in cols[]; a bad header is at ncol */
	enum derr_kind kind;
	const char *why; /* static */
};

/* The state of one decoding. */
struct decoder {
	const struct gpt_kind_info *ki;
	uint8_t *recs;
	size_t size; /* ki->size */
	uint32_t count;
	bool scaled; /* scaled columns are allowed (format 2.x) */
	/* 1: decoded; 2: another column already relied on it being all zero */
	uint8_t state[MAX_FIELDS];
	struct dcol cols[MAX_FIELDS]; /* the columns of known fields, in payload order */
	unsigned ncol;
	struct dtrack *tr; /* key trackers, one per reference field of KEYED columns */
	unsigned ntrack;
	uint32_t bsize; /* records per block */
	/* CONST columns, when the records fit: every block's records start as copies */
	uint8_t tmpl[1024];
	bool use_tmpl;
	struct derr err;
};

/* Notes an error at column col unless one comes before it in the payload's order. */
static void note_error(struct decoder *d, unsigned col, enum derr_kind kind, const char *why)
{
	if (col < d->err.col || (col == d->err.col && kind < d->err.kind)) {
		d->err = (struct derr){.col = col, .kind = kind, .why = why};
	}
}

/*
 * Whether column c is still decoded: it comes before the first error, or
 * holds a value out of range, after which a cut value may still show up.
 */
static inline bool is_decoded(const struct decoder *d, unsigned c)
{
	return c < d->err.col || (c == d->err.col && d->err.kind == DERR_RANGE);
}

/* Reads a column's field id and encoding (and scale); returns an error or NULL. */
static const char *parse_encoding(const struct decoder *d, const uint8_t **pp, const uint8_t *end,
				  uint64_t *id, uint8_t *enc, uint64_t *scale)
{
	const uint8_t *p = *pp;

	if (!gpt_get_varint(&p, end, id) || p >= end) {
		return "cut column header";
	}
	*enc = *p++;
	if (d->scaled && (*enc & GPT_ENC_SCALED)) {
		/* Format 2.x (FORMAT.md 12.2): a scale varint follows. */
		*enc &= (uint8_t)~GPT_ENC_SCALED;
		if (*enc == GPT_ENC_CONST || *enc >= GPT_ENC__MAX) {
			return "unknown column encoding";
		}
		if (!gpt_get_varint(&p, end, scale) || *scale < 2) {
			return "bad column scale";
		}
	}
	if (*enc >= GPT_ENC__MAX) {
		return "unknown column encoding";
	}
	*pp = p;
	return NULL;
}

/* The rest of a CONST column's header: its value, kept for a known field f. */
static const char *parse_const(struct decoder *d, const uint8_t **pp, const uint8_t *end,
			       const struct gpt_field *f)
{
	uint8_t scratch[8];
	uint64_t v;

	if (!gpt_get_varint(pp, end, &v)) {
		return "cut constant column";
	}
	if (!f) {
		return NULL; /* a newer minor's field */
	}
	if (d->count && store(scratch, f->type, v)) {
		return "value out of range for its field";
	}
	d->cols[d->ncol++] = (struct dcol){.f = f, .enc = GPT_ENC_CONST, .v = v, .scale = 1};
	return NULL;
}

/*
 * The reference field refid of the column of f, whose values are [body,
 * end): sets *rf or returns an error. Errors about the reference come
 * after those about the values.
 */
static const char *check_reference(struct decoder *d, const struct gpt_field *f, uint8_t enc,
				   uint64_t refid, const uint8_t *body, const uint8_t *end,
				   const struct gpt_field **rf)
{
	const char *why = NULL;

	*rf = gpt_kind_field(d->ki, (unsigned)refid);
	if (!*rf || (*rf == f && enc == GPT_ENC_REL)) {
		why = "reference to an unknown field";
	} else if (*rf == f) {
		why = "column keyed on itself";
	}
	if (why) {
		return check_varints(body, end, d->count) ? why
							   : "column does not hold one value per record";
	}
	size_t ri = (size_t)(*rf - d->ki->fields);
	if (!d->state[ri]) {
		d->state[ri] = 2; /* absent means zero: it may not come later */
	}
	return NULL;
}

/* The key tracker of a KEYED column on rf: the one of an earlier such column, or a new one. */
static uint16_t track_of(struct decoder *d, const struct gpt_field *rf)
{
	for (unsigned t = 0; t < d->ncol; t++) {
		if (d->cols[t].enc == GPT_ENC_KEYED && d->cols[t].rf == rf) {
			return d->cols[t].track;
		}
	}
	return (uint16_t)d->ntrack++;
}

/*
 * The rest of the header of a column with values (not CONST), and skips
 * its values; keeps it for a known field f.
 */
static const char *parse_values(struct decoder *d, const uint8_t **pp, const uint8_t *end,
				const struct gpt_field *f, uint8_t enc, uint64_t scale)
{
	const struct gpt_field *rf = NULL;
	uint64_t refid = 0, blen;
	const uint8_t *body;
	const char *why;

	if (enc == GPT_ENC_REL || enc == GPT_ENC_KEYED) {
		if (!gpt_get_varint(pp, end, &refid) || refid == 0 || refid > UINT16_MAX) {
			return "bad reference field";
		}
	}
	if (!gpt_get_varint(pp, end, &blen) || blen > (uint64_t)(end - *pp)) {
		return "column longer than its chunk";
	}
	body = *pp;
	*pp += blen;
	if (!f) {
		return NULL;
	}
	if (refid) {
		why = check_reference(d, f, enc, refid, body, *pp, &rf);
		if (why) {
			return why;
		}
	}
	struct dcol dc = {.p = body, .end = *pp, .f = f, .rf = rf, .enc = enc, .scale = scale};
	if (enc == GPT_ENC_KEYED) {
		dc.track = track_of(d, rf);
	}
	d->cols[d->ncol++] = dc;
	return NULL;
}

/* Parses one column header into cols[] (known fields only); returns an error or NULL. */
static const char *parse_column(struct decoder *d, const uint8_t **pp, const uint8_t *end)
{
	uint64_t id, scale = 1;
	uint8_t enc;
	const char *why = parse_encoding(d, pp, end, &id, &enc, &scale);

	if (why) {
		return why;
	}
	const struct gpt_field *f = id <= UINT16_MAX ? gpt_kind_field(d->ki, (unsigned)id) : NULL;
	if (f) {
		size_t fi = (size_t)(f - d->ki->fields);
		if (d->state[fi]) {
			return d->state[fi] == 1 ? "column repeated"
						 : "column after a column predicted from it";
		}
		d->state[fi] = 1;
	}
	if (enc == GPT_ENC_CONST) {
		return parse_const(d, pp, end, f);
	}
	return parse_values(d, pp, end, f, enc, scale);
}

/* Pass 1: every column header of [p, end), up to the first bad one. */
static void parse_columns(struct decoder *d, const uint8_t *p, const uint8_t *end, uint64_t ncols)
{
	for (uint64_t c = 0; c < ncols; c++) {
		const char *why = parse_column(d, &p, end);
		if (why) {
			note_error(d, d->ncol, DERR_HEADER, why);
			return;
		}
	}
	if (p != end) {
		/* reported only if every value decodes */
		note_error(d, d->ncol, DERR_HEADER, "bytes after the last column");
	}
}

/* Records per block: the block's structs stay within a 32 KiB L1 cache. */
static uint32_t block_records(size_t size)
{
	uint32_t bsize = BLOCK_BYTES / (uint32_t)(size ? size : 1);

	if (bsize > BLOCK_MAX) {
		bsize = BLOCK_MAX;
	}
	if (bsize < 16) {
		bsize = 16;
	}
	return bsize;
}

/* One key tracker per reference field of KEYED columns, each with a block of predictions. */
static int init_trackers(struct decoder *d)
{
	if (!d->ntrack) {
		return 0;
	}
	d->tr = calloc(d->ntrack, sizeof(*d->tr) + d->bsize * sizeof(uint32_t));
	if (!d->tr) {
		return -GP_ERR_NOMEM;
	}
	for (unsigned c = 0; c < d->ncol; c++) {
		struct dtrack *t = &d->tr[d->cols[c].track];
		if (d->cols[c].enc != GPT_ENC_KEYED || t->rf) {
			continue;
		}
		t->rf = d->cols[c].rf;
		t->prev = (uint32_t *)(d->tr + d->ntrack) + (size_t)d->cols[c].track * d->bsize;
		key_track_init(&t->kt, d->recs + t->rf->offset, d->size, t->rf->type, d->count);
	}
	return 0;
}

static void release_trackers(struct decoder *d)
{
	if (d->tr) {
		for (unsigned t = 0; t < d->ntrack; t++) {
			key_track_release(&d->tr[t].kt);
		}
	}
	free(d->tr);
	d->tr = NULL;
}

/*
 * CONST columns go into a template record that starts every record of a
 * block, instead of being stored one record at a time.
 */
static void init_template(struct decoder *d)
{
	d->use_tmpl = false;
	if (d->size > sizeof(d->tmpl)) {
		return;
	}
	memset(d->tmpl, 0, d->size);
	for (unsigned c = 0; c < d->ncol; c++) {
		if (d->cols[c].enc == GPT_ENC_CONST) {
			store(d->tmpl + d->cols[c].f->offset, d->cols[c].f->type, d->cols[c].v);
			d->use_tmpl = true;
		}
	}
}

/* Decodes records [b0, b1), block number 'block', column after column while still in L1. */
static void decode_block_columns(struct decoder *d, uint32_t block, uint32_t b0, uint32_t b1,
				 const uint8_t *pend)
{
	uint8_t *rb = d->recs;

	if (d->use_tmpl) {
		fill_records(rb + (size_t)b0 * d->size, d->tmpl, d->size, b1 - b0);
	} else {
		memset(rb + (size_t)b0 * d->size, 0, (size_t)(b1 - b0) * d->size);
	}
	for (unsigned c = 0; c < d->ncol && is_decoded(d, c); c++) {
		struct dcol *dc = &d->cols[c];
		if (d->use_tmpl && dc->enc == GPT_ENC_CONST) {
			continue;
		}
		if (dc->enc == GPT_ENC_KEYED) {
			struct dtrack *t = &d->tr[dc->track];
			if (t->block != block + 1) {
				bool nomem = false;
				key_prevs(&t->kt, b0, b1, t->prev, true, &nomem);
				if (nomem) {
					note_error(d, 0, DERR_NOMEM, "out of memory");
					return;
				}
				t->block = block + 1;
			}
		}
		enum dfail fail = decode_block(dc, d->tr, rb, d->size, b0, b1, pend);
		if (fail == DFAIL_VALUES) {
			/* Final for this column; later ones no longer matter. */
			note_error(d, c, DERR_VALUES, "column does not hold one value per record");
		} else if (fail == DFAIL_RANGE) {
			/* A later block may still show that its values are cut. */
			note_error(d, c, DERR_RANGE, "value out of range for its field");
		}
	}
}

/* Pass 2: the values, a block of records at a time. */
static void decode_values(struct decoder *d, const uint8_t *pend)
{
	uint32_t block = 0;

	for (uint32_t b0 = 0; b0 < d->count; b0 += d->bsize, block++) {
		if (d->err.col == 0 && d->err.kind <= DERR_VALUES) {
			return; /* nothing left to decode or to find */
		}
		uint32_t b1 = d->count - b0 < d->bsize ? d->count : b0 + d->bsize;
		decode_block_columns(d, block, b0, b1, pend);
	}
	/* Every column decoded must have used its bytes exactly. */
	for (unsigned c = 0; c < d->ncol && is_decoded(d, c); c++) {
		if (d->cols[c].enc != GPT_ENC_CONST && d->cols[c].p != d->cols[c].end) {
			note_error(d, c, DERR_VALUES, "column does not hold one value per record");
			break;
		}
	}
}

int gpt_decode_records_ex(const struct gpt_kind_info *ki, const uint8_t *p, size_t len,
			  uint32_t count, void *recs, char *errbuf, size_t errlen, bool scaled)
{
	const uint8_t *end = p + len;
	struct decoder d;
	uint64_t ncols;

	if (ki->nfields > MAX_FIELDS) {
		snprintf(errbuf, errlen, "schema too large");
		return -GP_ERR_FORMAT;
	}
	if (!gpt_get_varint(&p, end, &ncols)) {
		snprintf(errbuf, errlen, "bad column count");
		return -GP_ERR_FORMAT;
	}
	d.ki = ki;
	d.recs = recs;
	d.size = ki->size;
	d.count = count;
	d.scaled = scaled;
	memset(d.state, 0, sizeof(d.state));
	d.ncol = 0;
	d.tr = NULL;
	d.ntrack = 0;
	d.bsize = block_records(d.size);
	d.err = (struct derr){.col = UINT_MAX, .kind = DERR_NONE, .why = NULL};

	parse_columns(&d, p, end, ncols);
	if (init_trackers(&d)) {
		note_error(&d, 0, DERR_NOMEM, "out of memory");
	}
	init_template(&d);
	decode_values(&d, end);
	release_trackers(&d);
	if (d.err.kind == DERR_NONE) {
		return 0;
	}
	snprintf(errbuf, errlen, "%s", d.err.why);
	return d.err.kind == DERR_NOMEM ? -GP_ERR_NOMEM : -GP_ERR_FORMAT;
}
