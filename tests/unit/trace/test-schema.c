/* SPDX-License-Identifier: MIT */
/*
 * test-schema.c - the record schema tables: every kind and field is
 * consistent with its C struct, lookups work, and gpt_field_set/get keep
 * values within their types.
 */
#include "base/compat.h"
#include "tests/unit/trace/trace-test.h"
#include "tests/unit/test.h"

static size_t type_size(uint8_t t)
{
	switch (t) {
	case GPT_TY_u8:
		return 1;
	case GPT_TY_u16:
		return 2;
	case GPT_TY_u32:
	case GPT_TY_i32:
	case GPT_TY_str:
		return 4;
	case GPT_TY_u64:
	case GPT_TY_i64:
		return 8;
	default:
		return 0;
	}
}

TEST(schema_kinds_and_fields)
{
	unsigned nkinds = 0;

	for (unsigned k = 0; k < GPT_KIND__MAX + 10; k++) {
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		bool is_record = k >= GPT_KIND_PROCESS && k <= GPT_KIND__LAST_RECORD;
		if (!is_record) {
			if (ki) {
				TFAIL("kind %u is not a record kind but has a schema", k);
			}
			continue;
		}
		if (!ki) {
			TFAIL("record kind %u has no schema", k);
			continue;
		}
		nkinds++;
		CHECK_EQ_U(ki->kind, k);
		REQUIRE(ki->name != NULL);
		CHECK(gpt_kind_by_name(ki->name) == ki);
		CHECK(ki->nfields > 0);
		CHECK(ki->nfields < 256);
		/* Field bytes do not overlap and stay inside the struct. */
		uint8_t *used = calloc(1, ki->size);
		REQUIRE(used != NULL);
		for (size_t i = 0; i < ki->nfields; i++) {
			const struct gpt_field *f = &ki->fields[i];
			size_t sz = type_size(f->type);
			CHECK(sz != 0);
			CHECK_EQ_U(f->id, i + 1); /* dense and in order */
			CHECK(gpt_kind_field(ki, f->id) == f);
			CHECK(f->name != NULL && f->name[0] != '\0');
			CHECK(f->enc < GPT_ENC__MAX && f->enc != GPT_ENC_CONST);
			CHECK_EQ_U(f->offset % sz, 0);
			if (f->offset + sz > ki->size) {
				TFAIL("%s.%s outside the struct", ki->name, f->name);
				continue;
			}
			for (size_t b = 0; b < sz; b++) {
				if (used[f->offset + b]) {
					TFAIL("%s.%s overlaps another field", ki->name, f->name);
				}
				used[f->offset + b] = 1;
			}
			if (f->enc == GPT_ENC_REL || f->enc == GPT_ENC_KEYED) {
				const struct gpt_field *rf = gpt_kind_field(ki, f->ref);
				if (!rf || rf == f) {
					TFAIL("%s.%s refers to field %u", ki->name, f->name,
					      f->ref);
				} else if (f->enc == GPT_ENC_REL && rf->id > f->id) {
					TFAIL("%s.%s is REL to a later field", ki->name, f->name);
				}
			} else {
				CHECK_EQ_U(f->ref, 0);
			}
			for (size_t j = 0; j < i; j++) {
				if (!strcmp(ki->fields[j].name, f->name)) {
					TFAIL("%s has two fields named %s", ki->name, f->name);
				}
			}
		}
		size_t nused = 0;
		for (size_t b = 0; b < ki->size; b++) {
			nused += used[b];
		}
		/* Only padding is left over, less than one 8-byte slot per field. */
		CHECK(ki->size - nused < 8 * ki->nfields);
		free(used);
		CHECK(gpt_kind_field(ki, 0) == NULL);
		CHECK(gpt_kind_field(ki, (unsigned)ki->nfields + 1) == NULL);
		CHECK(gpt_kind_field(ki, 65535) == NULL);
		if (ki->time_field) {
			const struct gpt_field *tf = gpt_kind_field(ki, ki->time_field);
			CHECK(tf != NULL && tf->type == GPT_TY_u64);
		}
		if (ki->end_field) {
			const struct gpt_field *ef = gpt_kind_field(ki, ki->end_field);
			CHECK(ki->time_field != 0);
			CHECK(ef != NULL && ef->type == GPT_TY_u64);
		}
	}
	CHECK_EQ_U(nkinds, GPT_KIND__LAST_RECORD - GPT_KIND_PROCESS + 1);
	CHECK(gpt_kind_by_name("kernel") == gpt_kind_info(GPT_KIND_KERNEL));
	CHECK(gpt_kind_by_name("nccl") == gpt_kind_info(GPT_KIND_NCCL));
	CHECK(gpt_kind_by_name("no-such-kind") == NULL);
	CHECK(gpt_kind_by_name("") == NULL);
	CHECK(gpt_kind_by_name("string") == NULL);
	CHECK(gpt_kind_by_name("index") == NULL);
	CHECK_EQ_U(gpt_kind_info(GPT_KIND_KERNEL)->size, sizeof(struct gpt_kernel));
	CHECK_EQ_U(gpt_kind_info(GPT_KIND_NAME)->size, sizeof(struct gpt_name));
}

TEST(schema_struct_offsets_match)
{
	/* A few fields checked against the C struct directly. */
	const struct gpt_kind_info *ki = gpt_kind_info(GPT_KIND_KERNEL);
	struct gpt_kernel k;

	memset(&k, 0, sizeof(k));
	k.grid_id = -5;
	k.registers = 255;
	k.name = 77;
	k.end = 123456789012345ULL;
	CHECK_EQ_U(gpt_field_get(gpt_kind_field(ki, 39), &k), (uint64_t)-5);
	CHECK_STR(gpt_kind_field(ki, 39)->name, "grid_id");
	CHECK_EQ_U(gpt_field_get(gpt_kind_field(ki, 22), &k), 255);
	CHECK_EQ_U(gpt_field_get(gpt_kind_field(ki, 10), &k), 77);
	CHECK_EQ_U(gpt_field_get(gpt_kind_field(ki, 2), &k), 123456789012345ULL);

	const struct gpt_kind_info *ni = gpt_kind_info(GPT_KIND_NVTX);
	struct gpt_nvtx n;
	memset(&n, 0, sizeof(n));
	CHECK_EQ_I(gpt_field_set(gpt_kind_field(ni, 13), &n, 4242), 0);
	CHECK_EQ_U(n.depth, 4242);
	CHECK_EQ_I(gpt_field_set(gpt_kind_field(ni, 3), &n, GPT_NVTX_MARK), 0);
	CHECK_EQ_U(n.type, GPT_NVTX_MARK);
}

TEST(schema_field_set_ranges)
{
	/* For every field of every kind: edges fit, one past them does not and changes nothing. */
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		const struct gpt_kind_info *ki = gpt_kind_info(k);
		if (!ki) {
			continue;
		}
		uint8_t *rec = malloc(ki->size), *copy = malloc(ki->size);
		REQUIRE(rec && copy);
		for (size_t i = 0; i < ki->nfields; i++) {
			const struct gpt_field *f = &ki->fields[i];
			uint64_t lo, hi;
			bool bounded = true;
			switch (f->type) {
			case GPT_TY_u8:
				lo = 0, hi = UINT8_MAX;
				break;
			case GPT_TY_u16:
				lo = 0, hi = UINT16_MAX;
				break;
			case GPT_TY_u32:
			case GPT_TY_str:
				lo = 0, hi = UINT32_MAX;
				break;
			case GPT_TY_i32:
				lo = (uint64_t)(int64_t)INT32_MIN, hi = INT32_MAX;
				break;
			case GPT_TY_i64:
				lo = (uint64_t)INT64_MIN, hi = INT64_MAX;
				bounded = false;
				break;
			default:
				lo = 0, hi = UINT64_MAX;
				bounded = false;
				break;
			}
			memset(rec, 0xa5, ki->size);
			CHECK_EQ_I(gpt_field_set(f, rec, lo), 0);
			CHECK_EQ_U(gpt_field_get(f, rec), lo);
			CHECK_EQ_I(gpt_field_set(f, rec, hi), 0);
			CHECK_EQ_U(gpt_field_get(f, rec), hi);
			/* Other fields' bytes untouched: only sz bytes at offset changed. */
			for (size_t b = 0; b < ki->size; b++) {
				if ((b < f->offset || b >= f->offset + type_size(f->type)) &&
				    rec[b] != 0xa5) {
					TFAIL("setting %s.%s changed byte %zu", ki->name, f->name,
					      b);
					break;
				}
			}
			if (!bounded) {
				continue;
			}
			memcpy(copy, rec, ki->size);
			if (f->type == GPT_TY_i32) {
				CHECK_EQ_I(gpt_field_set(f, rec, (uint64_t)INT32_MAX + 1),
					   -GP_ERR_RANGE);
				CHECK_EQ_I(
					gpt_field_set(f, rec, (uint64_t)((int64_t)INT32_MIN - 1)),
					-GP_ERR_RANGE);
				/* A 32-bit pattern not sign-extended is out of range too. */
				CHECK_EQ_I(gpt_field_set(f, rec, 0xffffffffULL), -GP_ERR_RANGE);
				CHECK(!memcmp(copy, rec, ki->size));
				CHECK_EQ_I(gpt_field_set(f, rec, UINT64_MAX), 0);
				CHECK_EQ_I((int64_t)gpt_field_get(f, rec), -1);
				CHECK(gpt_field_is_signed(f));
				continue;
			}
			CHECK(!gpt_field_is_signed(f));
			CHECK_EQ_I(gpt_field_set(f, rec, hi + 1), -GP_ERR_RANGE);
			CHECK_EQ_I(gpt_field_set(f, rec, UINT64_MAX), -GP_ERR_RANGE);
			CHECK(!memcmp(copy, rec, ki->size));
		}
		free(rec);
		free(copy);
	}
}
