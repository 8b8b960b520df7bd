/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "tests/fakecuda/rectext.h"

void rt_quote(struct gp_strbuf *out, const char *s)
{
	gp_strbuf_addch(out, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			gp_strbuf_addch(out, '\\');
			gp_strbuf_addch(out, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			gp_strbuf_addf(out, "\\x%02x", c);
		} else {
			gp_strbuf_addch(out, (char)c);
		}
	}
	gp_strbuf_addch(out, '"');
}

void rt_format(struct gp_strbuf *out, const struct gpt_kind_info *ki, const void *rec,
	       rt_str_fn str, void *ctx, const uint16_t *skip)
{
	gp_strbuf_adds(out, ki->name);
	for (size_t i = 0; i < ki->nfields; i++) {
		const struct gpt_field *f = &ki->fields[i];
		bool skipped = false;
		for (const uint16_t *s = skip; s && *s; s++) {
			skipped |= *s == f->id;
		}
		if (skipped) {
			continue;
		}
		uint64_t v = gpt_field_get(f, rec);
		gp_strbuf_addf(out, " %s=", f->name);
		if (f->type == GPT_TY_str) {
			if (!v) {
				gp_strbuf_adds(out, "\"\"");
			} else {
				const char *s = str(ctx, (uint32_t)v);
				if (s) {
					rt_quote(out, s);
				} else {
					gp_strbuf_adds(out, "?");
				}
			}
		} else if (gpt_field_is_signed(f)) {
			gp_strbuf_addf(out, "%" PRId64, (int64_t)v);
		} else {
			gp_strbuf_addf(out, "%" PRIu64, v);
		}
	}
}
