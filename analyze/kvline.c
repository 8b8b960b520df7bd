/* SPDX-License-Identifier: MIT */
/*
 * kvline.c - the key=value lines of user files (device files, roofline
 * rules): one tokenizer, so both read quoting and comments alike.
 */
#include "base/compat.h"
#include "analyze/analyze.h"

int gpa_kv_next(char **sp, char **key, char **val, const char **why)
{
	char *s = *sp;

	*key = *val = NULL;
	*why = NULL;
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
		*why = "expected key=value, got";
		return -1;
	}
	*s++ = '\0';
	*val = s;
	if (*s == '"') {
		*val = ++s;
		while (*s && *s != '"') {
			s++;
		}
		if (*s != '"') {
			*why = "unterminated quote";
			return -2;
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
