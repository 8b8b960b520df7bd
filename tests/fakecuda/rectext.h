/* SPDX-License-Identifier: MIT */
/*
 * rectext.h - one trace record as a line of text, "kind f=v f=v ...", in
 * the schema's field order with strings quoted. The fake stack writes the
 * records it expects this way and check-trace prints the trace's records
 * the same way, so two multisets of lines can be compared.
 */
#ifndef RECTEXT_H
#define RECTEXT_H

#include "trace/trace.h"

/* Resolves a string id of the record's source; NULL prints as "?". */
typedef const char *(*rt_str_fn)(void *ctx, uint32_t id);

/*
 * Appends the line (no newline). Fields whose ids are in skip (0-terminated,
 * may be NULL) are left out.
 */
void rt_format(struct gp_strbuf *out, const struct gpt_kind_info *ki, const void *rec,
	       rt_str_fn str, void *ctx, const uint16_t *skip);

/* Appends s quoted, with \\, \" and non-printing bytes escaped. */
void rt_quote(struct gp_strbuf *out, const char *s);

#endif
