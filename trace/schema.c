/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "trace/format.h"

#define FIELD_ENTRY_(st, id, type, name, enc, ref)                                                 \
	{id, GPT_TY_##type, GPT_ENC_##enc, ref, (uint16_t)offsetof(struct st, name), #name},

#define DEFINE_FIELDS_(num, name, NAME, FIELDS, tf, ef)                                            \
	static const struct gpt_field name##_fields[] = {FIELDS(name##_FIELD_)};

#define process_FIELD_(...) FIELD_ENTRY_(gpt_process, __VA_ARGS__)
#define device_FIELD_(...) FIELD_ENTRY_(gpt_device, __VA_ARGS__)
#define context_FIELD_(...) FIELD_ENTRY_(gpt_context, __VA_ARGS__)
#define stream_FIELD_(...) FIELD_ENTRY_(gpt_stream, __VA_ARGS__)
#define thread_FIELD_(...) FIELD_ENTRY_(gpt_thread, __VA_ARGS__)
#define clock_FIELD_(...) FIELD_ENTRY_(gpt_clock, __VA_ARGS__)
#define loss_FIELD_(...) FIELD_ENTRY_(gpt_loss, __VA_ARGS__)
#define kernel_FIELD_(...) FIELD_ENTRY_(gpt_kernel, __VA_ARGS__)
#define memcpy_FIELD_(...) FIELD_ENTRY_(gpt_memcpy, __VA_ARGS__)
#define memset_FIELD_(...) FIELD_ENTRY_(gpt_memset, __VA_ARGS__)
#define api_FIELD_(...) FIELD_ENTRY_(gpt_api, __VA_ARGS__)
#define sync_FIELD_(...) FIELD_ENTRY_(gpt_sync, __VA_ARGS__)
#define nvtx_FIELD_(...) FIELD_ENTRY_(gpt_nvtx, __VA_ARGS__)
#define nccl_FIELD_(...) FIELD_ENTRY_(gpt_nccl, __VA_ARGS__)
#define extcorr_FIELD_(...) FIELD_ENTRY_(gpt_extcorr, __VA_ARGS__)
#define overhead_FIELD_(...) FIELD_ENTRY_(gpt_overhead, __VA_ARGS__)
#define metric_FIELD_(...) FIELD_ENTRY_(gpt_metric, __VA_ARGS__)
#define memory_FIELD_(...) FIELD_ENTRY_(gpt_memory, __VA_ARGS__)
#define graph_FIELD_(...) FIELD_ENTRY_(gpt_graph, __VA_ARGS__)
#define name_FIELD_(...) FIELD_ENTRY_(gpt_name, __VA_ARGS__)
#define stack_node_FIELD_(...) FIELD_ENTRY_(gpt_stack_node, __VA_ARGS__)
#define stack_FIELD_(...) FIELD_ENTRY_(gpt_stack, __VA_ARGS__)
#define module_FIELD_(...) FIELD_ENTRY_(gpt_module, __VA_ARGS__)
#define nccl_channel_FIELD_(...) FIELD_ENTRY_(gpt_nccl_channel, __VA_ARGS__)
#define memory_pool_FIELD_(...) FIELD_ENTRY_(gpt_memory_pool, __VA_ARGS__)
#define index_FIELD_(...) FIELD_ENTRY_(gpt_index_entry, __VA_ARGS__)

GPT_RECORD_KINDS(DEFINE_FIELDS_)
static const struct gpt_field index_fields[] = {GPT_INDEX_FIELDS(index_FIELD_)};

static const struct gpt_kind_info kinds[GPT_KIND__MAX] = {
#define KIND_INFO_(num, nm, NAME, FIELDS, tf, ef)                                                  \
	[num] = {GPT_KIND_##NAME, #nm,  sizeof(struct gpt_##nm), nm##_fields,                      \
		 GP_ARRAY_SIZE(nm##_fields), tf, ef},
	GPT_RECORD_KINDS(KIND_INFO_)};

const struct gpt_kind_info gpt_index_info = {
	GPT_KIND_INDEX, "index", sizeof(struct gpt_index_entry), index_fields,
	GP_ARRAY_SIZE(index_fields), 4, 5,
};

const struct gpt_kind_info *gpt_kind_info(unsigned kind)
{
	if (kind >= GPT_KIND__MAX || !kinds[kind].name) {
		return NULL;
	}
	return &kinds[kind];
}

const struct gpt_kind_info *gpt_kind_by_name(const char *name)
{
	for (unsigned k = 0; k < GPT_KIND__MAX; k++) {
		if (kinds[k].name && !strcmp(kinds[k].name, name)) {
			return &kinds[k];
		}
	}
	return NULL;
}

const struct gpt_field *gpt_kind_field(const struct gpt_kind_info *ki, unsigned id)
{
	/* Ids are dense and in order in every list; check rather than trust that. */
	if (id >= 1 && id <= ki->nfields && ki->fields[id - 1].id == id) {
		return &ki->fields[id - 1];
	}
	for (size_t i = 0; i < ki->nfields; i++) {
		if (ki->fields[i].id == id) {
			return &ki->fields[i];
		}
	}
	return NULL;
}

uint64_t gpt_field_get(const struct gpt_field *f, const void *rec)
{
	const uint8_t *p = (const uint8_t *)rec + f->offset;

	switch (f->type) {
	case GPT_TY_u8:
		return *p;
	case GPT_TY_u16: {
		uint16_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	case GPT_TY_u32:
	case GPT_TY_str: {
		uint32_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	case GPT_TY_i32: {
		int32_t v;
		memcpy(&v, p, sizeof(v));
		return (uint64_t)(int64_t)v;
	}
	default: {
		uint64_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	}
}

int gpt_field_set(const struct gpt_field *f, void *rec, uint64_t v)
{
	uint8_t *p = (uint8_t *)rec + f->offset;

	switch (f->type) {
	case GPT_TY_u8:
		if (v > UINT8_MAX) {
			return -GP_ERR_RANGE;
		}
		*p = (uint8_t)v;
		return 0;
	case GPT_TY_u16: {
		if (v > UINT16_MAX) {
			return -GP_ERR_RANGE;
		}
		uint16_t x = (uint16_t)v;
		memcpy(p, &x, sizeof(x));
		return 0;
	}
	case GPT_TY_u32:
	case GPT_TY_str: {
		if (v > UINT32_MAX) {
			return -GP_ERR_RANGE;
		}
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, sizeof(x));
		return 0;
	}
	case GPT_TY_i32: {
		int64_t s = (int64_t)v;
		if (s < INT32_MIN || s > INT32_MAX) {
			return -GP_ERR_RANGE;
		}
		int32_t x = (int32_t)s;
		memcpy(p, &x, sizeof(x));
		return 0;
	}
	default:
		memcpy(p, &v, sizeof(v));
		return 0;
	}
}
