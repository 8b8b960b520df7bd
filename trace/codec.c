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

int gpt_encode_records(const struct gpt_kind_info *ki, const void *recs, uint32_t count,
		       uint64_t *tmp, struct gp_strbuf *out)
{
	return gpt_encode_records_ex(ki, recs, count, tmp, out, false);
}

int gpt_encode_records_ex(const struct gpt_kind_info *ki, const void *recs, uint32_t count,
			  uint64_t *tmp, struct gp_strbuf *out, bool scaled)
{
	const uint8_t *rb = recs;
	uint64_t *col = tmp, *ref = tmp + count;
	uint32_t *prev = (uint32_t *)(tmp + 2 * (size_t)count);
	uint8_t diff[MAX_FIELDS * 8];
	bool done[MAX_FIELDS] = {false}; /* by field index */
	bool same[MAX_FIELDS];
	unsigned ndone = 0, ncols = 0;
	const struct gpt_field *prev_key = NULL; /* prev[] holds the prediction keyed on it */
	size_t start_len = out->len;
	uint8_t hdr[32];
	int ret = 0;

	if (ki->nfields > MAX_FIELDS) {
		return -GP_ERR_API;
	}
	/*
	 * Constant columns from one pass over the records when they are small
	 * enough for the diff buffer (all kinds are); else gather each column.
	 */
	bool have_diff = count > 0 && ki->size <= sizeof(diff);
	if (have_diff) {
		diff_records(rb, ki->size, count, diff);
	}
	for (size_t fi = 0; fi < ki->nfields; fi++) {
		const struct gpt_field *f = &ki->fields[fi];
		bool s = count == 0;
		if (!s && have_diff) {
			s = is_same(f, diff);
		} else if (!s) {
			gather(f, rb, ki->size, count, col);
			s = true;
			for (uint32_t i = 1; i < count && s; i++) {
				s = col[i] == col[0];
			}
		}
		same[fi] = s;
		/* All zero (or no records): the reader's zeroed structs say it. */
		if (!(s && (count == 0 || load(rb + f->offset, f->type) == 0))) {
			ncols++;
		}
	}
	{
		uint8_t nb[10];
		gp_strbuf_add(out, nb, gpt_put_varint(nb, ncols));
	}
	/*
	 * Columns go out in schema order, except that a column predicted from
	 * another field waits until that field is out: passes until all are.
	 */
	while (ndone < ki->nfields) {
		unsigned before = ndone;
		for (size_t fi = 0; fi < ki->nfields; fi++) {
			const struct gpt_field *f = &ki->fields[fi];
			const struct gpt_field *rf = NULL;
			uint8_t enc = f->enc;
			size_t h = 0;

			if (done[fi]) {
				continue;
			}
			if (has_dep(enc)) {
				rf = gpt_kind_field(ki, f->ref);
				if (!rf || (rf != f && !done[rf - ki->fields])) {
					continue;
				}
			}
			done[fi] = true;
			ndone++;
			if (same[fi]) {
				uint64_t v = count ? load(rb + f->offset, f->type) : 0;
				if (v == 0) {
					continue;
				}
				h += gpt_put_varint(hdr + h, f->id);
				hdr[h++] = GPT_ENC_CONST;
				h += gpt_put_varint(hdr + h, v);
				gp_strbuf_add(out, hdr, h);
				continue;
			}
			h += gpt_put_varint(hdr + h, f->id);
			if (enc == GPT_ENC_ZIGZAG && !gpt_field_is_signed(f)) {
				enc = GPT_ENC_VARINT;
			}
			size_t enc_at = h;
			hdr[h++] = enc;
			gather(f, rb, ki->size, count, col);
			if (enc == GPT_ENC_REL) {
				gather(rf, rb, ki->size, count, ref);
			}
			if (enc == GPT_ENC_KEYED && prev_key != rf) {
				struct key_track kt;
				bool nomem = false;
				key_track_init(&kt, rb + rf->offset, ki->size, rf->type, count);
				key_prevs(&kt, 0, count, prev, false, &nomem);
				key_track_release(&kt);
				if (nomem) {
					ret = -GP_ERR_NOMEM;
					goto out;
				}
				prev_key = rf;
			}
			uint64_t scale = 1;
			if (scaled) {
				/* Residuals go to ref[], which only REL uses, in place. */
				residuals(enc, col, ref, prev, count, ref);
				scale = column_scale(enc, ref, count);
				if (scale > 1) {
					hdr[enc_at] |= GPT_ENC_SCALED;
					h += gpt_put_varint(hdr + h, scale);
				}
			}
			if (has_dep(enc)) {
				h += gpt_put_varint(hdr + h, f->ref);
			}
			/* Worst case 10 bytes a value, after room for the header and length. */
			if (gp_strbuf_grow(out, h + 10 + (size_t)count * 10)) {
				ret = -GP_ERR_NOMEM;
				goto out;
			}
			uint8_t *start = (uint8_t *)out->buf + out->len;
			uint8_t *body = start + h + 10;
			uint8_t *q = body;
			if (scaled) {
				/* Exact divisions: scale divides every residual. */
				for (uint32_t i = 0; i < count; i++) {
					uint64_t r = ref[i], x;
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
				goto emitted;
			}
			switch (enc) {
			case GPT_ENC_VARINT:
				for (uint32_t i = 0; i < count; i++) {
					q += gpt_put_varint(q, col[i]);
				}
				break;
			case GPT_ENC_ZIGZAG:
				for (uint32_t i = 0; i < count; i++) {
					q += gpt_put_varint(q, gpt_zigzag((int64_t)col[i]));
				}
				break;
			case GPT_ENC_DELTA: {
				uint64_t last = 0;
				for (uint32_t i = 0; i < count; i++) {
					q += gpt_put_varint(q, gpt_zigzag((int64_t)(col[i] - last)));
					last = col[i];
				}
				break;
			}
			case GPT_ENC_REL:
				for (uint32_t i = 0; i < count; i++) {
					q += gpt_put_varint(q, gpt_zigzag((int64_t)(col[i] - ref[i])));
				}
				break;
			case GPT_ENC_KEYED:
				for (uint32_t i = 0; i < count; i++) {
					uint64_t pred = prev[i] == NO_PREV ? 0 : col[prev[i]];
					q += gpt_put_varint(q, gpt_zigzag((int64_t)(col[i] - pred)));
				}
				break;
			default:
				ret = -GP_ERR_API;
				goto out;
			}
		emitted:;
			size_t blen = (size_t)(q - body);
			h += gpt_put_varint(hdr + h, blen);
			memcpy(start, hdr, h);
			memmove(start + h, body, blen);
			out->len += h + blen;
			out->buf[out->len] = '\0';
		}
		if (ndone == before) {
			ret = -GP_ERR_API; /* a dependency cycle in the schema */
			goto out;
		}
	}
	if (out->failed) {
		ret = -GP_ERR_NOMEM;
	}
out:
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
		       uint32_t count, void *recs, uint64_t *tmp, const char **why)
{
	return gpt_decode_records_ex(ki, p, len, count, recs, tmp, why, false);
}

int gpt_decode_records_ex(const struct gpt_kind_info *ki, const uint8_t *p, size_t len,
			  uint32_t count, void *recs, uint64_t *tmp, const char **why, bool scaled)
{
	const uint8_t *end = p + len;
	uint8_t *rb = recs;
	size_t size = ki->size;
	/* 1: decoded; 2: another column already relied on it being all zero */
	uint8_t state[MAX_FIELDS] = {0};
	struct dcol cols[MAX_FIELDS];
	struct dtrack *tr = NULL;
	unsigned ncol = 0, ntrack = 0;
	uint64_t ncols;
	/*
	 * The first error in the payload's order wins, as if each column were
	 * decoded whole before the next header is read: a header error stops the
	 * parse at column 'stop'; decoding then finds value errors before it.
	 */
	const char *err = NULL;
	unsigned stop;
	uint32_t block;
	int ret = -GP_ERR_FORMAT;

	(void)tmp;
	if (ki->nfields > MAX_FIELDS) {
		*why = "schema too large";
		return -GP_ERR_FORMAT;
	}
	if (!gpt_get_varint(&p, end, &ncols)) {
		*why = "bad column count";
		return -GP_ERR_FORMAT;
	}

	/* ---- pass 1: every column header */
	for (uint64_t c = 0; c < ncols && !err; c++) {
		uint64_t id, refid = 0, blen, scale = 1;
		uint8_t enc;

		if (!gpt_get_varint(&p, end, &id) || p >= end) {
			err = "cut column header";
			break;
		}
		enc = *p++;
		if (scaled && (enc & GPT_ENC_SCALED)) {
			/* Format 2.x (FORMAT.md 12.2): a scale varint follows. */
			enc &= (uint8_t)~GPT_ENC_SCALED;
			if (enc == GPT_ENC_CONST || enc >= GPT_ENC__MAX) {
				err = "unknown column encoding";
				break;
			}
			if (!gpt_get_varint(&p, end, &scale) || scale < 2) {
				err = "bad column scale";
				break;
			}
		}
		if (enc >= GPT_ENC__MAX) {
			err = "unknown column encoding";
			break;
		}
		const struct gpt_field *f = id <= UINT16_MAX ? gpt_kind_field(ki, (unsigned)id) : NULL;
		if (f) {
			size_t fi = (size_t)(f - ki->fields);
			if (state[fi]) {
				err = state[fi] == 1 ? "column repeated"
						     : "column after a column predicted from it";
				break;
			}
			state[fi] = 1;
		}
		if (enc == GPT_ENC_CONST) {
			uint64_t v;
			if (!gpt_get_varint(&p, end, &v)) {
				err = "cut constant column";
				break;
			}
			if (!f) {
				continue; /* a newer minor's field */
			}
			uint8_t scratch[8];
			if (count && store(scratch, f->type, v)) {
				err = "value out of range for its field";
				break;
			}
			cols[ncol++] = (struct dcol){.f = f, .enc = enc, .v = v, .scale = 1};
			continue;
		}
		if (enc == GPT_ENC_REL || enc == GPT_ENC_KEYED) {
			if (!gpt_get_varint(&p, end, &refid) || refid == 0 || refid > UINT16_MAX) {
				err = "bad reference field";
				break;
			}
		}
		if (!gpt_get_varint(&p, end, &blen) || blen > (uint64_t)(end - p)) {
			err = "column longer than its chunk";
			break;
		}
		const uint8_t *body = p;
		p += blen;
		if (!f) {
			continue;
		}
		const struct gpt_field *rf = NULL;
		if (refid) {
			/* Errors about the reference come after those about the values. */
			rf = gpt_kind_field(ki, (unsigned)refid);
			if (!rf || (rf == f && enc == GPT_ENC_REL)) {
				err = "reference to an unknown field";
			} else if (rf == f) {
				err = "column keyed on itself";
			}
			if (err) {
				if (!check_varints(body, p, count)) {
					err = "column does not hold one value per record";
				}
				break;
			}
			size_t ri = (size_t)(rf - ki->fields);
			if (!state[ri]) {
				state[ri] = 2; /* absent means zero: it may not come later */
			}
		}
		struct dcol *dc = &cols[ncol++];
		*dc = (struct dcol){.p = body, .end = p, .f = f, .rf = rf, .enc = enc, .scale = scale};
		if (enc == GPT_ENC_KEYED) {
			unsigned t;
			for (t = 0; t < ncol - 1; t++) {
				if (cols[t].enc == GPT_ENC_KEYED && cols[t].rf == rf) {
					break;
				}
			}
			dc->track = t < ncol - 1 ? cols[t].track : (uint16_t)ntrack++;
		}
	}
	if (!err && p != end) {
		err = "bytes after the last column"; /* reported only if every value decodes */
	}
	stop = ncol;

	/* ---- key trackers, one per reference field of KEYED columns */
	uint32_t bsize = BLOCK_BYTES / (uint32_t)(size ? size : 1);
	if (bsize > BLOCK_MAX) {
		bsize = BLOCK_MAX;
	}
	if (bsize < 16) {
		bsize = 16;
	}
	if (ntrack) {
		tr = calloc(ntrack, sizeof(*tr) + bsize * sizeof(uint32_t));
		if (!tr) {
			*why = "out of memory";
			return -GP_ERR_NOMEM;
		}
		for (unsigned c = 0; c < ncol; c++) {
			struct dtrack *t = &tr[cols[c].track];
			if (cols[c].enc != GPT_ENC_KEYED || t->rf) {
				continue;
			}
			t->rf = cols[c].rf;
			t->prev = (uint32_t *)(tr + ntrack) + (size_t)cols[c].track * bsize;
			key_track_init(&t->kt, rb + t->rf->offset, size, t->rf->type, count);
		}
	}

	/*
	 * CONST columns go into a template record that starts every record of
	 * a block, instead of being stored one record at a time.
	 */
	uint8_t tmpl[1024];
	bool use_tmpl = false;
	if (size <= sizeof(tmpl)) {
		memset(tmpl, 0, size);
		for (unsigned c = 0; c < stop; c++) {
			if (cols[c].enc == GPT_ENC_CONST) {
				store(tmpl + cols[c].f->offset, cols[c].f->type, cols[c].v);
				use_tmpl = true;
			}
		}
	}

	/* ---- pass 2: values, a block of records at a time */
	const char *verr = NULL;
	unsigned vcol = stop; /* the first column with a value error */
	bool nomem = false;
	block = 0;
	for (uint32_t b0 = 0; b0 < count && !(verr && vcol == 0); b0 += bsize, block++) {
		uint32_t b1 = count - b0 < bsize ? count : b0 + bsize;
		if (use_tmpl) {
			fill_records(rb + (size_t)b0 * size, tmpl, size, b1 - b0);
		} else {
			memset(rb + (size_t)b0 * size, 0, (size_t)(b1 - b0) * size);
		}
		for (unsigned c = 0; c < vcol && c < stop; c++) {
			struct dcol *dc = &cols[c];
			if (use_tmpl && dc->enc == GPT_ENC_CONST) {
				continue;
			}
			if (dc->enc == GPT_ENC_KEYED) {
				struct dtrack *t = &tr[dc->track];
				if (t->block != block + 1) {
					key_prevs(&t->kt, b0, b1, t->prev, true, &nomem);
					t->block = block + 1;
				}
			}
			enum dfail fail = decode_block(dc, tr, rb, size, b0, b1, end);
			if (fail == DFAIL_VALUES) {
				/* Final for this column; later ones no longer matter. */
				verr = "column does not hold one value per record";
				vcol = c;
				break;
			}
			if (fail == DFAIL_RANGE) {
				/* A later block may still show that its values are cut. */
				verr = "value out of range for its field";
				vcol = c + 1;
			}
		}
		if (nomem) {
			break;
		}
	}
	/* Every column decoded so far must have used its bytes exactly. */
	for (unsigned c = 0; c < stop && c < vcol && !nomem; c++) {
		if (cols[c].enc != GPT_ENC_CONST && cols[c].p != cols[c].end) {
			verr = "column does not hold one value per record";
			vcol = c;
			break;
		}
	}
	if (nomem) {
		*why = "out of memory";
		ret = -GP_ERR_NOMEM;
	} else if (verr) {
		*why = verr;
	} else if (err) {
		*why = err;
	} else {
		ret = 0;
	}
	for (unsigned t = 0; t < ntrack; t++) {
		key_track_release(&tr[t].kt);
	}
	free(tr);
	return ret;
}
