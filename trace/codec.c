/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the columnar record payload: gather a field of every record
 * into a column of 64-bit values, encode it (CONST, VARINT, ZIGZAG, DELTA,
 * REL), and the reverse. Every length and value read is checked.
 */
#include "base/compat.h"
#include "trace/format.h"

/* ---- gather and scatter between record structs and a column */

static void gather(const struct gpt_field *f, const uint8_t *recs, size_t size, uint32_t n,
		   uint64_t *col)
{
	const uint8_t *p = recs + f->offset;

	switch (f->type) {
	case GPT_TY_u8:
		for (uint32_t i = 0; i < n; i++, p += size) {
			col[i] = *p;
		}
		break;
	case GPT_TY_u16:
		for (uint32_t i = 0; i < n; i++, p += size) {
			uint16_t v;
			memcpy(&v, p, 2);
			col[i] = v;
		}
		break;
	case GPT_TY_u32:
	case GPT_TY_str:
		for (uint32_t i = 0; i < n; i++, p += size) {
			uint32_t v;
			memcpy(&v, p, 4);
			col[i] = v;
		}
		break;
	case GPT_TY_i32:
		for (uint32_t i = 0; i < n; i++, p += size) {
			int32_t v;
			memcpy(&v, p, 4);
			col[i] = (uint64_t)(int64_t)v;
		}
		break;
	default:
		for (uint32_t i = 0; i < n; i++, p += size) {
			memcpy(&col[i], p, 8);
		}
		break;
	}
}

/* Returns false when a value does not fit the field's type. */
static bool scatter(const struct gpt_field *f, uint8_t *recs, size_t size, uint32_t n,
		    const uint64_t *col)
{
	uint8_t *p = recs + f->offset;
	uint64_t bad = 0;

	switch (f->type) {
	case GPT_TY_u8:
		for (uint32_t i = 0; i < n; i++, p += size) {
			bad |= col[i] >> 8;
			*p = (uint8_t)col[i];
		}
		break;
	case GPT_TY_u16:
		for (uint32_t i = 0; i < n; i++, p += size) {
			uint16_t v = (uint16_t)col[i];
			bad |= col[i] >> 16;
			memcpy(p, &v, 2);
		}
		break;
	case GPT_TY_u32:
	case GPT_TY_str:
		for (uint32_t i = 0; i < n; i++, p += size) {
			uint32_t v = (uint32_t)col[i];
			bad |= col[i] >> 32;
			memcpy(p, &v, 4);
		}
		break;
	case GPT_TY_i32:
		for (uint32_t i = 0; i < n; i++, p += size) {
			int64_t s = (int64_t)col[i];
			int32_t v = (int32_t)s;
			bad |= (uint64_t)(s != v);
			memcpy(p, &v, 4);
		}
		break;
	default:
		for (uint32_t i = 0; i < n; i++, p += size) {
			memcpy(p, &col[i], 8);
		}
		break;
	}
	return bad == 0;
}

/* ---- keyed prediction */

#define NO_PREV UINT32_MAX
#define KEY_SLOTS_MAX 4096u

/*
 * prev[i] = the last j < i with keys[j] == keys[i], else NO_PREV. The table
 * stops taking new keys when half full, identically in writer and reader,
 * so a chunk with very many distinct keys just predicts less.
 */
static void keyed_prev(const uint64_t *keys, uint32_t n, uint32_t *prev)
{
	struct slot {
		uint64_t key;
		uint32_t idx; /* last index + 1; 0 = empty */
	} tab[KEY_SLOTS_MAX];
	uint32_t slots = 16, used = 0;

	while (slots < 2 * n && slots < KEY_SLOTS_MAX) {
		slots *= 2;
	}
	memset(tab, 0, sizeof(tab[0]) * slots);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = (uint32_t)(gp_hash_u64(keys[i]) & (slots - 1));
		while (tab[h].idx && tab[h].key != keys[i]) {
			h = (h + 1) & (slots - 1);
		}
		if (tab[h].idx) {
			prev[i] = tab[h].idx - 1;
			tab[h].idx = i + 1;
		} else {
			prev[i] = NO_PREV;
			if (used < slots / 2) {
				tab[h].key = keys[i];
				tab[h].idx = i + 1;
				used++;
			}
		}
	}
}

/* ---- encoding */

static bool has_dep(uint8_t enc)
{
	return enc == GPT_ENC_REL || enc == GPT_ENC_KEYED;
}

int gpt_encode_records(const struct gpt_kind_info *ki, const void *recs, uint32_t count,
		       uint64_t *tmp, struct gp_strbuf *out)
{
	uint64_t *col = tmp, *ref = tmp + count;
	uint32_t *prev = (uint32_t *)(tmp + 2 * (size_t)count);
	struct gp_strbuf cols = GP_STRBUF_INIT;
	bool done[256] = {false}; /* by field index */
	unsigned ncols = 0, ndone = 0;
	uint8_t hdr[32];
	int ret = 0;

	if (ki->nfields > GP_ARRAY_SIZE(done)) {
		return -GP_ERR_API;
	}
	/*
	 * Columns go out in schema order, except that a column predicted from
	 * another field waits until that field is out: passes until all are.
	 */
	while (ndone < ki->nfields) {
		unsigned before = ndone;
		for (size_t fi = 0; fi < ki->nfields; fi++) {
			const struct gpt_field *f = &ki->fields[fi];
			uint8_t enc = f->enc;
			bool same = true;
			size_t h = 0;

			if (done[fi]) {
				continue;
			}
			if (has_dep(enc)) {
				const struct gpt_field *rf = gpt_kind_field(ki, f->ref);
				if (!rf || (rf != f && !done[rf - ki->fields])) {
					continue;
				}
			}
			done[fi] = true;
			ndone++;
			gather(f, recs, ki->size, count, col);
			for (uint32_t i = 1; i < count && same; i++) {
				same = col[i] == col[0];
			}
			if (same && (count == 0 || col[0] == 0)) {
				continue; /* all zero: the reader's zeroed structs say it */
			}
			ncols++;
			h += gpt_put_varint(hdr + h, f->id);
			if (same) {
				hdr[h++] = GPT_ENC_CONST;
				h += gpt_put_varint(hdr + h, col[0]);
				gp_strbuf_add(&cols, hdr, h);
				continue;
			}
			if (enc == GPT_ENC_ZIGZAG && !gpt_field_is_signed(f)) {
				enc = GPT_ENC_VARINT;
			}
			hdr[h++] = enc;
			if (has_dep(enc)) {
				h += gpt_put_varint(hdr + h, f->ref);
				gather(gpt_kind_field(ki, f->ref), recs, ki->size, count, ref);
			}
			if (enc == GPT_ENC_KEYED) {
				keyed_prev(ref, count, prev);
			}
			/* Worst case 10 bytes a value, after room for the header and length. */
			if (gp_strbuf_grow(&cols, h + 10 + (size_t)count * 10)) {
				ret = -GP_ERR_NOMEM;
				goto out;
			}
			uint8_t *start = (uint8_t *)cols.buf + cols.len;
			uint8_t *body = start + h + 10;
			uint8_t *q = body;
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
			size_t blen = (size_t)(q - body);
			h += gpt_put_varint(hdr + h, blen);
			memcpy(start, hdr, h);
			memmove(start + h, body, blen);
			cols.len += h + blen;
			cols.buf[cols.len] = '\0';
		}
		if (ndone == before) {
			ret = -GP_ERR_API; /* a dependency cycle in the schema */
			goto out;
		}
	}
	{
		uint8_t nb[10];
		size_t n = gpt_put_varint(nb, ncols);
		gp_strbuf_add(out, nb, n);
		gp_strbuf_add(out, cols.buf, cols.len);
		if (out->failed || cols.failed) {
			ret = -GP_ERR_NOMEM;
		}
	}
out:
	gp_strbuf_release(&cols);
	return ret;
}

/* ---- decoding */

/* Decodes exactly n varints filling [p, end); false if they do not fill it exactly. */
static bool get_varints(const uint8_t *p, const uint8_t *end, uint64_t *out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (GP_LIKELY(end - p >= 10)) {
			uint64_t b = *p++;
			if (GP_LIKELY(b < 0x80)) {
				out[i] = b;
				continue;
			}
			uint64_t v = b & 0x7f;
			unsigned shift = 7;
			for (;;) {
				b = *p++;
				if (shift == 63 && b > 1) {
					return false;
				}
				v |= (b & 0x7f) << shift;
				if (b < 0x80) {
					break;
				}
				shift += 7;
				if (shift > 63) {
					return false;
				}
			}
			out[i] = v;
		} else if (!gpt_get_varint(&p, end, &out[i])) {
			return false;
		}
	}
	return p == end;
}

int gpt_decode_records(const struct gpt_kind_info *ki, const uint8_t *p, size_t len,
		       uint32_t count, void *recs, uint64_t *tmp, const char **why)
{
	const uint8_t *end = p + len;
	uint64_t *col = tmp, *ref = tmp + count;
	uint32_t *prev = (uint32_t *)(tmp + 2 * (size_t)count);
	/* 1: decoded; 2: another column already relied on it being all zero */
	uint8_t state[256] = {0};
	uint64_t ncols;

#define FAIL(msg)                                                                                  \
	do {                                                                                       \
		*why = msg;                                                                        \
		return -GP_ERR_FORMAT;                                                             \
	} while (0)

	if (ki->nfields > GP_ARRAY_SIZE(state)) {
		FAIL("schema too large");
	}
	if (!gpt_get_varint(&p, end, &ncols)) {
		FAIL("bad column count");
	}
	for (uint64_t c = 0; c < ncols; c++) {
		uint64_t id, refid = 0, blen;
		uint8_t enc;

		if (!gpt_get_varint(&p, end, &id) || p >= end) {
			FAIL("cut column header");
		}
		enc = *p++;
		if (enc >= GPT_ENC__MAX) {
			FAIL("unknown column encoding");
		}
		const struct gpt_field *f = id <= UINT16_MAX ? gpt_kind_field(ki, (unsigned)id) : NULL;
		if (f) {
			size_t fi = (size_t)(f - ki->fields);
			if (state[fi]) {
				FAIL(state[fi] == 1 ? "column repeated"
						    : "column after a column predicted from it");
			}
			state[fi] = 1;
		}
		if (enc == GPT_ENC_CONST) {
			uint64_t v;
			if (!gpt_get_varint(&p, end, &v)) {
				FAIL("cut constant column");
			}
			if (!f) {
				continue; /* a newer minor's field */
			}
			for (uint32_t i = 0; i < count; i++) {
				col[i] = v;
			}
			if (!scatter(f, recs, ki->size, count, col)) {
				FAIL("value out of range for its field");
			}
			continue;
		}
		if (enc == GPT_ENC_REL || enc == GPT_ENC_KEYED) {
			if (!gpt_get_varint(&p, end, &refid) || refid == 0 || refid > UINT16_MAX) {
				FAIL("bad reference field");
			}
		}
		if (!gpt_get_varint(&p, end, &blen) || blen > (uint64_t)(end - p)) {
			FAIL("column longer than its chunk");
		}
		if (!f) {
			p += blen;
			continue;
		}
		if (!get_varints(p, p + blen, col, count)) {
			FAIL("column does not hold one value per record");
		}
		p += blen;
		const struct gpt_field *rf = NULL;
		if (refid) {
			rf = gpt_kind_field(ki, (unsigned)refid);
			if (!rf || (rf == f && enc == GPT_ENC_REL)) {
				FAIL("reference to an unknown field");
			}
			if (rf != f) {
				size_t ri = (size_t)(rf - ki->fields);
				if (!state[ri]) {
					state[ri] = 2; /* absent means zero: it may not come later */
				}
				gather(rf, recs, ki->size, count, ref);
			}
		}
		switch (enc) {
		case GPT_ENC_VARINT:
			break;
		case GPT_ENC_ZIGZAG:
			for (uint32_t i = 0; i < count; i++) {
				col[i] = (uint64_t)gpt_unzigzag(col[i]);
			}
			break;
		case GPT_ENC_DELTA: {
			uint64_t last = 0;
			for (uint32_t i = 0; i < count; i++) {
				last += (uint64_t)gpt_unzigzag(col[i]);
				col[i] = last;
			}
			break;
		}
		case GPT_ENC_REL:
			for (uint32_t i = 0; i < count; i++) {
				col[i] = ref[i] + (uint64_t)gpt_unzigzag(col[i]);
			}
			break;
		case GPT_ENC_KEYED:
			if (rf == f) {
				/* Keyed on itself: the prediction is the value itself; no use. */
				FAIL("column keyed on itself");
			}
			keyed_prev(ref, count, prev);
			for (uint32_t i = 0; i < count; i++) {
				uint64_t pred = prev[i] == NO_PREV ? 0 : col[prev[i]];
				col[i] = pred + (uint64_t)gpt_unzigzag(col[i]);
			}
			break;
		}
		if (!scatter(f, recs, ki->size, count, col)) {
			FAIL("value out of range for its field");
		}
	}
	if (p != end) {
		FAIL("bytes after the last column");
	}
	return 0;
#undef FAIL
}
