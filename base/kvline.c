/* SPDX-License-Identifier: MIT */
/*
 * kvline.c - the key=value lines of user files (device files, roofline
 * rules): one tokenizer, so both read quoting and comments alike.
 */
#include "base/compat.h"
#include "base/base.h"

#include <string.h>

int gp_kv_next(char **sp, char **key, char **val, const char *path, size_t line, char *errbuf,
	       size_t errlen)
{
	char *s = *sp;

	*key = *val = NULL;
	while (*s == ' ' || *s == '\t') {
		s++;
	}
	if (!*s || *s == '#') {
		*sp = s;
		return 0;
	}
	*key = s;
	while (*s && *s != '=' && *s != ' ' && *s != '\t') {
		s++;
	}
	if (*s != '=') {
		*s = '\0';
		return gp_kv_error(errbuf, errlen, path, line, "expected key=value, got", *key);
	}
	*s++ = '\0';
	*val = s;
	if (*s == '"') {
		*val = ++s;
		while (*s && *s != '"') {
			s++;
		}
		if (*s != '"') {
			return gp_kv_error(errbuf, errlen, path, line, "unterminated quote", NULL);
		}
		*s++ = '\0';
	} else {
		while (*s && *s != ' ' && *s != '\t') {
			s++;
		}
		if (*s) {
			*s++ = '\0';
		}
	}
	*sp = s;
	return 1;
}

int gp_kv_error(char *errbuf, size_t errlen, const char *path, size_t line, const char *what,
		const char *val)
{
	snprintf(errbuf, errlen, "%s:%zu: %s%s%.60s%s", path, line, what, val ? " '" : "",
		 val ? val : "", val ? "'" : "");
	return -GP_ERR_FORMAT;
}

int gp_kv_line(const char *path, const char *text, size_t len, size_t *pos, size_t *ln,
	       char line[GP_KV_LINE_MAX + 1], char *errbuf, size_t errlen)
{
	size_t start = *pos, p = start;

	if (p >= len) {
		return 0;
	}
	while (p < len && text[p] != '\n') {
		p++;
	}
	size_t n = p - start;
	*pos = p + 1;
	++*ln;
	if (n > GP_KV_LINE_MAX) {
		return gp_kv_error(errbuf, errlen, path, *ln, "line longer than 4096 bytes", NULL);
	}
	if (memchr(text + start, '\0', n)) {
		return gp_kv_error(errbuf, errlen, path, *ln, "NUL byte in line", NULL);
	}
	memcpy(line, text + start, n);
	line[n] = '\0';
	if (n && line[n - 1] == '\r') {
		line[n - 1] = '\0';
	}
	return 1;
}
