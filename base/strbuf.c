/* SPDX-License-Identifier: MIT */
#include "base/compat.h"
#include "base/base.h"

#include <stdio.h>

char gp_strbuf_empty_[1];

void gp_strbuf_init(struct gp_strbuf *sb)
{
	sb->buf = gp_strbuf_empty_;
	sb->len = 0;
	sb->alloc = 0;
	sb->failed = false;
}

void gp_strbuf_release(struct gp_strbuf *sb)
{
	if (sb->alloc) {
		free(sb->buf);
	}
	gp_strbuf_init(sb);
}

void gp_strbuf_reset(struct gp_strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc) {
		sb->buf[0] = '\0';
	}
	sb->failed = false;
}

int gp_strbuf_grow(struct gp_strbuf *sb, size_t extra)
{
	size_t want;
	char *nb;

	if (sb->failed) {
		return -GP_ERR_NOMEM;
	}
	if (gp_add_overflow_size(sb->len, extra, &want) || gp_add_overflow_size(want, 1, &want)) {
		sb->failed = true;
		return -GP_ERR_NOMEM;
	}
	if (want <= sb->alloc) {
		return 0;
	}
	size_t na = sb->alloc ? sb->alloc : 64;
	while (na < want) {
		if (gp_mul_overflow_size(na, 2, &na)) {
			na = want;
			break;
		}
	}
	nb = realloc(sb->alloc ? sb->buf : NULL, na);
	if (!nb) {
		sb->failed = true;
		return -GP_ERR_NOMEM;
	}
	if (!sb->alloc) {
		nb[0] = '\0';
	}
	sb->buf = nb;
	sb->alloc = na;
	return 0;
}

void gp_strbuf_add(struct gp_strbuf *sb, const void *data, size_t len)
{
	if (gp_strbuf_grow(sb, len)) {
		return;
	}
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void gp_strbuf_adds(struct gp_strbuf *sb, const char *s)
{
	gp_strbuf_add(sb, s, strlen(s));
}

void gp_strbuf_addch(struct gp_strbuf *sb, char c)
{
	gp_strbuf_add(sb, &c, 1);
}

void gp_strbuf_vaddf(struct gp_strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (gp_strbuf_grow(sb, 64)) {
		return;
	}
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if ((size_t)n >= sb->alloc - sb->len) {
		if (gp_strbuf_grow(sb, (size_t)n)) {
			return;
		}
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void gp_strbuf_addf(struct gp_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gp_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void gp_strbuf_add_json_str(struct gp_strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	gp_strbuf_addch(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			gp_strbuf_add(sb, "\\\"", 2);
			break;
		case '\\':
			gp_strbuf_add(sb, "\\\\", 2);
			break;
		case '\n':
			gp_strbuf_add(sb, "\\n", 2);
			break;
		case '\t':
			gp_strbuf_add(sb, "\\t", 2);
			break;
		case '\r':
			gp_strbuf_add(sb, "\\r", 2);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
				gp_strbuf_add(sb, u, 6);
			} else {
				gp_strbuf_addch(sb, (char)c);
			}
		}
	}
	gp_strbuf_addch(sb, '"');
}

char *gp_strbuf_detach(struct gp_strbuf *sb, size_t *len)
{
	char *r;

	if (len) {
		*len = sb->len;
	}
	if (!sb->alloc) {
		r = calloc(1, 1);
	} else {
		r = sb->buf;
	}
	gp_strbuf_init(sb);
	return r;
}
